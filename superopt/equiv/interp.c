/* interp.c — block-by-block, iteration-by-iteration execution of μGraphs. */
#include "superopt/equiv/interp.h"

#include <string.h>

#include "base/mem.h"
#include "superopt/equiv/exact.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/tensorop.h"

static void round_t(const AxTDomain *d, AxDtype t, AxTensor *x) {
  if (d->round) d->round(d, t, (size_t)ax_shape_numel(&x->shape), x->data);
}

/* One block operator on tiles (fresh scratch arena per application). */
static void apply(const AxTDomain *d, AxOp op, const AxTAttrs *at, const AxTensor *const *in,
                  int nin, AxTensor *out) {
  AxArena *scratch = ax_arena_new();
  ax_tensorop_apply(d, scratch, op, at, in, nin, out);
  ax_arena_free(scratch);
}

static void fill_zero(const AxTDomain *d, AxTensor *t) {
  char z[64];
  d->constant(d, (AxRat){0, 1}, z);
  size_t n = (size_t)ax_shape_numel(&t->shape);
  for (size_t i = 0; i < n; i++) memcpy((char *)t->data + i * d->size, z, d->size);
}

/* The accumulator's contribution of one iteration: v itself, v summed along the axis (to
 * `to`), or v squared and summed along the axis (rms). Written into tmp. */
static const AxTensor *contribution(const AxTDomain *d, const AxBNode *n, const AxTensor *v,
                                    AxTensor *tmp, AxTensor *tmp2) {
  if ((n->acc == AX_ACC_SUM || n->acc == AX_ACC_MAX) && !n->at.axis_set) return v;
  const AxTensor *src = v;
  if (n->acc == AX_ACC_RMS) {
    tmp2->shape = v->shape;
    d->unary(d, AX_OP_SQUARE, (size_t)ax_shape_numel(&v->shape), tmp2->data, v->data);
    src = tmp2;
  }
  AxTAttrs at = {0};
  at.axis = n->at.axis;
  at.axis_set = true;
  at.to = n->acc == AX_ACC_SUM ? n->at.to : 0;
  tmp->shape = n->shape;
  const AxTensor *ins[1] = {src};
  apply(d, n->acc == AX_ACC_MAX ? AX_OP_REDUCE_MAX : AX_OP_REDUCE, &at, ins, 1, tmp);
  return tmp;
}

/* The online-softmax rescale of accumulator state s by max accumulator value m (its value
 * now) against mp (its value when s was last updated; updated to m here):
 *   s <- s · exp(mp − m)      (m broadcast onto s)
 * m is the guarded max the loop reads (0 for -inf), mp the raw one, so a state whose
 * previous max was -inf (nothing but masked elements so far, a zero state) is multiplied
 * by exp(-inf - m) = 0, never by NaN.
 * In the field exp reads the q side of mp − m, which is exact (ω^(y_prev − y_new)), so the
 * factors of successive iterations telescope there as over the reals. */
static void rescale(const AxTDomain *d0, const AxTDomain *dn, AxTensor *s, const AxTensor *m,
                    const AxTensor *mraw, AxTensor *mp, size_t es) {
  AxArena *scratch = ax_arena_new();
  AxTensor f = ax_tensor_scratch(scratch, d0, &m->shape);
  size_t cnt = (size_t)ax_shape_numel(&m->shape);
  d0->binary(d0, AX_OP_SUB, cnt, f.data, mp->data, 1, m->data, 1);
  d0->unary(d0, AX_OP_EXP, cnt, f.data, f.data);
  AxTensor s2 = ax_tensor_scratch(scratch, d0, &s->shape);
  ax_tensor_binary(dn, AX_OP_MUL, s, &f, &s2);
  memcpy(s->data, s2.data, (size_t)ax_shape_numel(&s->shape) * es);
  memcpy(mp->data, mraw->data, cnt * es);
  ax_arena_free(scratch);
}

/* Which values an exponent will read (exp and silu read their operand's secondary
 * component: ewop.h, reads_q): a backward pass over statements and block nodes. Every other value is
 * computed with primary_only set, which halves the field domain's work; outputs are
 * compared on the primary component, which is what Theorem 2 speaks about. */
static void exponent_live(const AxMugraph *g, bool *tlive, bool **nlive) {
  for (int s = g->nstmts - 1; s >= 0; s--) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_OP) {
      bool reads = ax_ewop_reads_q(st->op);
      for (int j = 0; j < st->nin; j++)
        if (reads || tlive[st->t]) tlive[st->in[j]] = true;
    } else if (st->kind == AX_KS_KERNEL) {
      const AxKernel *k = st->kernel;
      bool *nl = nlive[s];
      for (int i = k->nnodes - 1; i >= 0; i--) {
        const AxBNode *n = &k->nodes[i];
        if (n->kind == AX_BN_SAVE) {
          if (tlive[n->dst]) nl[n->in[0]] = true;
        } else if (n->kind == AX_BN_ITER) {
          if (nl[i]) tlive[n->src] = true;
        } else {
          bool reads = n->kind == AX_BN_OP && ax_ewop_reads_q(n->op);
          for (int j = 0; j < n->nin; j++)
            if (reads || nl[i]) nl[n->in[j]] = true;
          if (n->rescaled) nl[n->rescale] = true;   /* exp(m_prev − m_new) reads it */
        }
      }
    }
  }
}

/* The domain for computing a value: primary_only unless an exponent reads it. */
static AxTDomain dom_for(const AxTDomain *d, bool live) {
  AxTDomain c = *d;
  c.primary_only = !live;
  c.exact = false;
  return c;
}

/* The same for one application of op to operands ins[0..nin) of an array of bounds
 * (exact.h): exact when the analysis decides the application. */
static AxTDomain dom_op(const AxTDomain *d, bool live, AxOp op, const int *ins, int nin,
                        const int64_t *bounds) {
  AxTDomain c = dom_for(d, live);
  int64_t b[AX_MAXIN];
  for (int j = 0; j < nin; j++) b[j] = bounds[ins[j]];
  c.exact = ax_exact_decides(op, b, nin);
  return c;
}

/* A block iota's tile for block b and iteration it: the kernel-level iota of its shape
 * (at.shape) at the tile's offset (its imap and fmap), so each element holds its global
 * index along the axis, as the program's iota does there. */
static void block_iota(const AxTDomain *d, const AxKernel *k, const AxBNode *n, const int64_t *b,
                       int64_t it, AxTensor *out) {
  AxTShape tile;
  int64_t off[AX_MAXRANK];
  ax_mug_tile(&n->at.shape, n->imap, n->fmap, k->grid, k->forloop, b, it, &tile, off);
  size_t outer, len, inner, es = d->size;
  ax_tensor_split3(&out->shape, n->at.axis, &outer, &len, &inner);
  char *po = out->data;
  /* the first row's constants once, the other rows copies (the tile is rebuilt per
   * iteration, and the domain's constant is a residue per prime) */
  for (size_t l = 0; l < len; l++)
    for (size_t i = 0; i < inner; i++, po += es)
      if (i == 0) d->constant(d, (AxRat){off[n->at.axis] + (int64_t)l, 1}, po);
      else memcpy(po, po - es, es);
  for (size_t o = 1; o < outer; o++, po += len * inner * es)
    memcpy(po, out->data, len * inner * es);
}

static int64_t kernel_bytes(const AxKernel *k, int64_t es);

static void run_kernel(const AxMugraph *g, const AxKernel *k, const AxTDomain *d0, AxArena *a,
                       AxTensor *vals, const bool *live, const int64_t *exact) {
  const AxTDomain *d = d0;
  size_t es = d->size;
  int nn = k->nnodes;
  /* the block tensors below, taken from the memory budget before they are allocated */
  uint64_t scratch = (uint64_t)kernel_bytes(k, (int64_t)es);
  ax_mem_take(scratch);
  AxTensor *t = ax_xcalloc((size_t)nn, sizeof *t);
  size_t maxn = 1;
  for (int i = 0; i < nn; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE) continue;
    t[i].shape = n->shape;
    size_t cnt = (size_t)ax_shape_numel(&n->shape);
    if (n->kind == AX_BN_ITER || n->kind == AX_BN_ACCUM) {
      size_t src = n->kind == AX_BN_ITER ? cnt : (size_t)ax_shape_numel(&k->nodes[n->in[0]].shape);
      if (src > maxn) maxn = src;
    }
    t[i].data = ax_xmalloc(cnt * es + 1);
  }
  for (int i = 0; i < nn; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE) {
      AxKTensor *kt = &g->tensors[n->dst];
      vals[n->dst].shape = kt->shape;
      vals[n->dst].data = ax_arena_alloc(a, (size_t)ax_shape_numel(&kt->shape) * es + 1);
    }
  }
  AxTensor tmp = {{0}, ax_xmalloc(maxn * es + 1)}, tmp2 = {{0}, ax_xmalloc(maxn * es + 1)};
  /* rescaled sums: the max accumulator's value at their last update */
  AxTensor *mp = ax_xcalloc((size_t)nn + 1, sizeof *mp);
  /* running maxes: the raw value; the loop reads the guarded one (FlashAttention's: 0 where
   * the raw max is still -inf, so a row whose tiles so far were all masked shifts by 0 and
   * gives exp(-inf) = 0 rather than exp(-inf - -inf) = NaN); after the loop, the raw one */
  AxTensor *raw = ax_xcalloc((size_t)nn + 1, sizeof *raw);
  for (int i = 0; i < nn; i++)
    if (k->nodes[i].kind == AX_BN_ACCUM && k->nodes[i].acc == AX_ACC_MAX) {
      raw[i].shape = k->nodes[i].shape;
      raw[i].data = ax_xmalloc((size_t)ax_shape_numel(&raw[i].shape) * es + 1);
    }
  for (int i = 0; i < nn; i++)
    if (k->nodes[i].rescaled) {
      mp[i].shape = k->nodes[k->nodes[i].rescale].shape;
      mp[i].data = ax_xmalloc((size_t)ax_shape_numel(&mp[i].shape) * es + 1);
    }
  int64_t R = k->forloop;
  int64_t b[3], off[AX_MAXRANK];
  AxTShape tile;
  for (b[0] = 0; b[0] < k->grid[0]; b[0]++)
    for (b[1] = 0; b[1] < k->grid[1]; b[1]++)
      for (b[2] = 0; b[2] < k->grid[2]; b[2]++) {
        /* before the loop: invariant tiles and operators; accumulators start at zero */
        for (int i = 0; i < nn; i++) {
          const AxBNode *n = &k->nodes[i];
          if (n->kind == AX_BN_ACCUM && n->acc != AX_ACC_CONCAT) fill_zero(d, &t[i]);
          if (n->phase != AX_PH_INVARIANT) continue;
          if (n->kind == AX_BN_ITER) {
            const AxTensor *src = &vals[n->src];
            ax_mug_tile(&src->shape, n->imap, n->fmap, k->grid, R, b, 0, &tile, off);
            ax_tensor_copy_box(es, src, off, &t[i]);
          } else if (n->kind == AX_BN_OP && n->op == AX_OP_IOTA) {
            block_iota(d, k, n, b, 0, &t[i]);
          } else if (n->kind == AX_BN_OP) {
            const AxTensor *ins[AX_MAXIN];
            for (int j = 0; j < n->nin; j++) ins[j] = &t[n->in[j]];
            AxTDomain dn = dom_op(d0, live[i], n->op, n->in, n->nin, exact);
            apply(&dn, n->op, &n->at, ins, n->nin, &t[i]);
            if (!n->anon) round_t(d, n->dtype, &t[i]);
          }
        }
        /* the for-loop */
        for (int64_t it = 0; it < R; it++)
          for (int i = 0; i < nn; i++) {
            const AxBNode *n = &k->nodes[i];
            if (n->kind == AX_BN_ITER && n->phase == AX_PH_LOOP) {
              const AxTensor *src = &vals[n->src];
              ax_mug_tile(&src->shape, n->imap, n->fmap, k->grid, R, b, it, &tile, off);
              ax_tensor_copy_box(es, src, off, &t[i]);
            } else if (n->kind == AX_BN_OP && n->phase == AX_PH_LOOP && n->op == AX_OP_IOTA) {
              block_iota(d, k, n, b, it, &t[i]);
            } else if (n->kind == AX_BN_OP && n->phase == AX_PH_LOOP) {
              const AxTensor *ins[AX_MAXIN];
              for (int j = 0; j < n->nin; j++) ins[j] = &t[n->in[j]];
              AxTDomain dn = dom_op(d0, live[i], n->op, n->in, n->nin, exact);
              apply(&dn, n->op, &n->at, ins, n->nin, &t[i]);
              round_t(d, n->dtype, &t[i]);
            } else if (n->kind == AX_BN_ACCUM) {
              const AxTensor *v = &t[n->in[0]];
              if (n->acc == AX_ACC_CONCAT) {
                int64_t o[AX_MAXRANK] = {0};
                o[n->at.axis] = it * v->shape.dim[n->at.axis];
                ax_tensor_store_box(es, v, &t[i], o);
              } else {
                AxTDomain dn = dom_for(d0, live[i]);
                const AxTensor *c = contribution(&dn, n, v, &tmp, &tmp2);
                size_t cnt = (size_t)ax_shape_numel(&n->shape);
                if (n->acc == AX_ACC_MAX) {
                  if (it == 0) memcpy(raw[i].data, c->data, cnt * es);   /* the first tile's max */
                  /* a max: in the field a fresh variable per element and iteration */
                  else dn.binary(&dn, AX_OP_MAX, cnt, raw[i].data, raw[i].data, 1, c->data, 1);
                  round_t(d, AX_DT_F32, &raw[i]);
                  if (d->guard) d->guard(d, cnt, t[i].data, raw[i].data);
                  else memcpy(t[i].data, raw[i].data, cnt * es);
                } else {
                  /* at it = 0 the state is zero and needs no rescale (its max has no
                   * previous value: -inf over the reals) */
                  if (n->rescaled && it > 0)
                    rescale(d0, &dn, &t[i], &t[n->rescale], &raw[n->rescale], &mp[i], es);
                  else if (n->rescaled) memcpy(mp[i].data, raw[n->rescale].data,
                                               (size_t)ax_shape_numel(&mp[i].shape) * es);
                  d->binary(d, AX_OP_ADD, cnt, t[i].data, t[i].data, 1, c->data, 1);
                  round_t(d, AX_DT_F32, &t[i]);
                }
              }
            }
          }
        /* after the loop */
        for (int i = 0; i < nn; i++) {
          const AxBNode *n = &k->nodes[i];
          if (n->kind == AX_BN_ACCUM) {
            if (n->acc == AX_ACC_MAX)   /* the post phase reads the raw max */
              memcpy(t[i].data, raw[i].data, (size_t)ax_shape_numel(&n->shape) * es);
            if (n->acc == AX_ACC_RMS) {
              /* sqrt(sum of squares / count), count = iterations x axis length */
              char c[64];
              int64_t len = k->nodes[n->in[0]].shape.dim[n->at.axis];
              d->constant(d, (AxRat){1, R * len}, c);
              size_t cnt = (size_t)ax_shape_numel(&n->shape);
              d->binary(d, AX_OP_MUL, cnt, t[i].data, t[i].data, 1, c, 0);
              d->unary(d, AX_OP_SQRT, cnt, t[i].data, t[i].data);
            }
            round_t(d, n->dtype, &t[i]);
          } else if (n->kind == AX_BN_OP && n->phase == AX_PH_POST) {
            const AxTensor *ins[AX_MAXIN];
            for (int j = 0; j < n->nin; j++) ins[j] = &t[n->in[j]];
            AxTDomain dn = dom_op(d0, live[i], n->op, n->in, n->nin, exact);
            apply(&dn, n->op, &n->at, ins, n->nin, &t[i]);
            round_t(d, n->dtype, &t[i]);
          } else if (n->kind == AX_BN_SAVE) {
            AxTensor *dst = &vals[n->dst];
            ax_mug_tile(&dst->shape, n->omap, -1, k->grid, 1, b, 0, &tile, off);
            ax_tensor_store_box(es, &t[n->in[0]], dst, off);
          }
        }
      }
  for (int i = 0; i < nn; i++) free(t[i].data), free(mp[i].data), free(raw[i].data);
  free(t);
  free(mp);
  free(raw);
  free(tmp.data);
  free(tmp2.data);
  ax_mem_give(scratch);
}

void ax_interp_run(const AxMugraph *g, const AxTDomain *d, AxArena *a, AxTensor *vals) {
  bool *tlive = ax_xcalloc((size_t)g->ntensors + 1, 1);
  bool **nlive = ax_xcalloc((size_t)g->nstmts + 1, sizeof *nlive);
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_KERNEL)
      nlive[s] = ax_xcalloc((size_t)g->stmts[s].kernel->nnodes + 1, 1);
  exponent_live(g, tlive, nlive);
  int64_t *tex = ax_xcalloc((size_t)g->ntensors + 1, sizeof *tex);
  int64_t **nex = ax_xcalloc((size_t)g->nstmts + 1, sizeof *nex);
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_KERNEL)
      nex[s] = ax_xcalloc((size_t)g->stmts[s].kernel->nnodes + 1, sizeof **nex);
  ax_exact_analyse(g, tex, nex);
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_OP) {
      const AxTensor *ins[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) {
        int ti = st->in[j];
        if (g->tensors[ti].anon && !vals[ti].data) {
          vals[ti].shape.rank = 0;
          vals[ti].data = ax_arena_alloc(a, d->size);
          d->constant(d, g->tensors[ti].value, vals[ti].data);
        }
        ins[j] = &vals[ti];
      }
      AxTensor *o = &vals[st->t];
      o->shape = g->tensors[st->t].shape;
      o->data = ax_arena_alloc(a, (size_t)ax_shape_numel(&o->shape) * d->size + 1);
      AxTDomain dn = dom_op(d, tlive[st->t], st->op, st->in, st->nin, tex);
      apply(&dn, st->op, &st->at, ins, st->nin, o);
      round_t(d, g->tensors[st->t].dtype, o);
    } else if (st->kind == AX_KS_KERNEL) {
      run_kernel(g, st->kernel, d, a, vals, nlive[s], nex[s]);
    }
  }
  for (int s = 0; s < g->nstmts; s++) free(nlive[s]), free(nex[s]);
  free(nex);
  free(tex);
  free(nlive);
  free(tlive);
}

/* a + b and a * b, saturating at INT64_MAX (both non-negative) */
static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* ax_shape_numel without overflow (dimensions are not bounded when this runs) */
static int64_t numel(const AxTShape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) n = sat_mul(n, s->dim[i] > 0 ? s->dim[i] : 0);
  return n;
}

/* The block tensors and scratch run_kernel allocates for kernel k, elements of es bytes. */
static int64_t kernel_bytes(const AxKernel *k, int64_t es) {
  int64_t sum = 0, maxn = 1;   /* as run_kernel allocates them */
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE) continue;
    int64_t cnt = numel(&n->shape);
    sum = sat_add(sum, sat_mul(cnt, es) + 1);
    if (n->rescaled) sum = sat_add(sum, sat_mul(numel(&k->nodes[n->rescale].shape), es) + 1);
    if (n->kind == AX_BN_ACCUM && n->acc == AX_ACC_MAX) sum = sat_add(sum, sat_mul(cnt, es) + 1);
    if (n->kind == AX_BN_ITER || n->kind == AX_BN_ACCUM) {
      int64_t src = n->kind == AX_BN_ITER ? cnt : numel(&k->nodes[n->in[0]].shape);
      if (src > maxn) maxn = src;
    }
  }
  return sat_add(sum, sat_mul(2 * maxn, es) + 2);
}

int64_t ax_interp_bytes(const AxMugraph *g, size_t elem_size) {
  int64_t es = (int64_t)elem_size, total = 0, kernel_max = 0;
  for (int i = 0; i < g->ntensors; i++)
    total = sat_add(total, sat_mul(numel(&g->tensors[i].shape), es));
  for (int s = 0; s < g->nstmts; s++) {
    const AxKernel *k = g->stmts[s].kind == AX_KS_KERNEL ? g->stmts[s].kernel : NULL;
    if (!k) continue;
    int64_t sum = kernel_bytes(k, es);
    if (sum > kernel_max) kernel_max = sum;
  }
  return sat_add(total, kernel_max);
}
