/* lax.c — Lax check and the abstract interpretation behind the test count. */
#include "superopt/equiv/lax.h"

#include <math.h>
#include <string.h>

#include "superopt/equiv/exact.h"
#include "superopt/ir/ewop.h"
#include "superopt/arith/field.h"
#include "superopt/ir/pop.h"

#define IT_BIT (1u << 8)
#define G_BIT(g) (1u << (9 + (g)))
#define AXES 0xFFu
#define HUGE_COUNT 1e300

typedef struct A {
  AxDiag *d;
  const AxMugraph *g;
  bool ok;
  bool sqrt_used;
} A;

static uint32_t mask_shape(uint32_t bits, const AxTShape *s) {
  uint32_t m = bits & ~AXES;
  for (int i = 0; i < s->rank && i < 8; i++)
    if (s->dim[i] > 1 && (bits & (1u << i))) m |= 1u << i;
  return m;
}

/* Moves axis bits of a rank-`from` operand to a rank-`to` result (right-aligned). */
static uint32_t align(uint32_t bits, int from, int to) {
  return (bits & ~AXES) | (((bits & AXES) << (to - from)) & AXES);
}

static AxLaxVal leaf(const AxTShape *s) {
  AxLaxVal v = {1, 1, 1, false, 0, 0, 0, 0, 0};
  v.vary = mask_shape(AXES, s);
  return v;
}

static AxLaxVal constant(void) {
  AxLaxVal v = {1, 1, 0, false, 0, 0, 0, 0, 0};
  return v;
}

static bool trivial_den(const AxLaxVal *v) { return v->kd == 1 && v->den == 0 && !v->exp; }

/* n terms of v summed; `mixed`: their denominators may differ. */
static AxLaxVal sum_terms(AxLaxVal v, double n, bool mixed) {
  if (n <= 1) return v;
  if (mixed) {
    v.kn = v.kd = v.deg = HUGE_COUNT;
  } else {
    v.kn = v.exp ? v.kn * n : v.kn;
  }
  v.nuf *= n;
  return v;
}

/* a rule b (a binary rule of ewop.h: sum, product, quotient), operands of ranks ra, rb
 * aligned to the result's rank r. */
static AxLaxVal combine(const AxLaxVal *a, const AxLaxVal *b, AxEwLax rule, int ra, int rb, int r) {
  AxLaxVal v;
  uint32_t va = align(a->vary, ra, r), vb = align(b->vary, rb, r);
  uint32_t da = align(a->den, ra, r), db = align(b->den, rb, r);
  v.exp = a->exp || b->exp;
  v.nexp = a->nexp > b->nexp ? a->nexp : b->nexp;
  v.nuf = a->nuf + b->nuf;
  v.ufdeg = fmax(a->ufdeg, b->ufdeg);
  v.vary = va | vb;
  switch (rule) {
  case AX_EWOP_LAX_SUM:
    if (trivial_den(a) && trivial_den(b)) {
      v.kn = v.exp ? a->kn + b->kn : 1;
      v.kd = 1;
      v.deg = fmax(a->deg, b->deg);
    } else {
      v.kn = a->kn * b->kd + b->kn * a->kd;
      v.kd = a->kd * b->kd;
      v.deg = a->deg + b->deg;
    }
    v.den = da | db;
    break;
  case AX_EWOP_LAX_PRODUCT:
    v.kn = a->kn * b->kn;
    v.kd = a->kd * b->kd;
    v.deg = a->deg + b->deg;
    v.den = da | db;
    break;
  case AX_EWOP_LAX_QUOTIENT:
    v.kn = a->kn * b->kd;
    v.kd = a->kd * b->kn;
    v.deg = a->deg + b->deg;
    v.den = da | db | vb | 1u << 31;   /* bit 31: a denominator exists */
    break;
  default: AX_UNREACHABLE(); v = *a;
  }
  if (!v.exp) v.kn = v.kd = 1;
  return v;
}

static void lax_error(A *s, AxSpan at, const char *what, const char *where) {
  ax_diag_error(s->d, at,
                "%s in %s: an exponential on a path that already holds one is outside the Lax "
                "fragment (at most one exp or silu on every path), so random testing gives no "
                "guarantee; axle refuses it",
                what, where);
  s->ok = false;
}

static void order_error(A *s, AxSpan at, const char *what, const char *where) {
  ax_diag_error(s->d, at,
                "%s in %s: it needs an order, which the finite field Zp x Zq lacks, so random "
                "testing cannot decide a graph that uses max, min, abs or a comparison; axle refuses it",
                what, where);
  s->ok = false;
}

/* The unary operator op (its row's rule) applied to a. */
static AxLaxVal unary(A *s, AxOp op, const AxLaxVal *a, AxSpan at, const char *where) {
  AxLaxVal v = *a;
  AxEwLax rule = ax_ewop_get(op)->lax;
  switch (rule) {
  case AX_EWOP_LAX_SAME: break;
  case AX_EWOP_LAX_PRODUCT: {   /* a · a: the same square roots, not twice as many */
    AxLaxVal r = combine(a, a, AX_EWOP_LAX_PRODUCT, 0, 0, 0);
    r.vary = a->vary;
    r.den = a->den;
    r.nuf = a->nuf;
    return r;
  }
  case AX_EWOP_LAX_EXP:
  case AX_EWOP_LAX_EXP_RATIO:
  case AX_EWOP_LAX_EXP_TANH:
    if (a->nexp >= 1) lax_error(s, at, ax_op_pname(op), where);
    v.exp = true;
    v.nexp = a->nexp + 1;
    /* tanh: e^2v - 1 has two exponential terms in its numerator (e^2v and e^0) */
    v.kn = rule == AX_EWOP_LAX_EXP_TANH ? 2 : 1;
    /* silu, logistic, tanh: 1 + e^v (e^2v + 1) has two exponential terms */
    v.kd = rule == AX_EWOP_LAX_EXP ? 1 : 2;
    /* exponent g/h: its degree is that of a's representation */
    v.den = rule == AX_EWOP_LAX_EXP ? 0 : (a->vary | a->den | 1u << 31);
    break;
  case AX_EWOP_LAX_ORDER:
    order_error(s, at, ax_op_pname(op), where);
    break;
  case AX_EWOP_LAX_OPAQUE_INV: {
    /* 1 / H(a): the uninterpreted function's value as a denominator */
    AxLaxVal h = unary(s, AX_OP_SQRT, a, at, where), one = constant();
    return combine(&one, &h, AX_EWOP_LAX_QUOTIENT, 0, 0, 0);
  }
  case AX_EWOP_LAX_OPAQUE:
    /* an uninterpreted function: a fresh variable per distinct argument */
    s->sqrt_used = true;
    v.kn = v.kd = 1;
    v.exp = false;
    v.deg = 1;
    v.nuf = a->nuf + 1;
    v.ufdeg = fmax(a->ufdeg, a->deg);
    v.den = 0;
    break;
  default: AX_UNREACHABLE();
  }
  return v;
}

/* Sum along axis of a tensor of shape s (keeping the axis with size `to`). */
static AxLaxVal reduce(const AxLaxVal *a, const AxTShape *s, int axis, int64_t to) {
  int64_t len = s->dim[axis], t = to ? to : 1;
  bool mixed = (a->den & (1u << axis)) != 0;
  AxLaxVal v = sum_terms(*a, (double)(len / t), mixed);
  if (t == 1) v.vary &= ~(1u << axis), v.den &= ~(1u << axis);
  return v;
}

static AxLaxVal rms_of(A *s, const AxLaxVal *x, const AxTShape *sh, int axis, AxSpan at,
                         const char *where) {
  AxLaxVal sq = unary(s, AX_OP_SQUARE, x, at, where);
  AxLaxVal m = reduce(&sq, sh, axis, 1);
  return unary(s, AX_OP_SQRT, &m, at, where);
}

/* The abstract value of a pop.h operator by its row's rule, before masking to the shape. */
static AxLaxVal pop_val(A *s, AxPopLax rule, const AxTAttrs *at, const AxLaxVal *const *in,
                        const AxTShape *const *sh, int nin, const AxTShape *out, AxSpan sp,
                        const char *where, bool exact) {
  switch (rule) {
  case AX_POP_LAX_CONST: return constant();
  case AX_POP_LAX_MATMUL: {
    const AxLaxVal *a = in[0], *b = in[1];
    int ra = sh[0]->rank, rb = sh[1]->rank, r = out->rank;
    uint32_t ka = 1u << (ra - 1), kb = 1u << (rb - 2);
    bool mixed = (a->den & ka) || (b->den & kb);
    AxLaxVal pa = *a, pb = *b;
    /* move each operand's bits to the result: A keeps m, drops k; B's n moves to n */
    uint32_t abatch = a->vary & ((1u << (ra - 2)) - 1), adbatch = a->den & ((1u << (ra - 2)) - 1);
    uint32_t bbatch = b->vary & ((1u << (rb - 2)) - 1), bdbatch = b->den & ((1u << (rb - 2)) - 1);
    pa.vary = (a->vary & ~AXES) | align(abatch, ra - 2, r - 2) | ((a->vary >> (ra - 2) & 1u) << (r - 2));
    pa.den = (a->den & ~AXES) | align(adbatch, ra - 2, r - 2) | ((a->den >> (ra - 2) & 1u) << (r - 2));
    pb.vary = (b->vary & ~AXES) | align(bbatch, rb - 2, r - 2) | ((b->vary >> (rb - 1) & 1u) << (r - 1));
    pb.den = (b->den & ~AXES) | align(bdbatch, rb - 2, r - 2) | ((b->den >> (rb - 1) & 1u) << (r - 1));
    AxLaxVal p = combine(&pa, &pb, AX_EWOP_LAX_PRODUCT, r, r, r);
    return sum_terms(p, (double)sh[0]->dim[ra - 1], mixed);
  }
  case AX_POP_LAX_SUM: return reduce(in[0], sh[0], at->axis, at->to);   /* mean: `to` is 0 */
  case AX_POP_LAX_NORM: {
    AxLaxVal r = rms_of(s, in[0], sh[0], at->axis, sp, where);
    return combine(in[0], &r, AX_EWOP_LAX_QUOTIENT, sh[0]->rank, sh[0]->rank, sh[0]->rank);
  }
  case AX_POP_LAX_FRESH: {
    /* a fresh variable per element (field.h): a leaf of degree 1 without exponentials,
     * varying along the operand's axes but the reduced one */
    AxLaxVal v = leaf(out);
    v.vary = in[0]->vary & ~(at->to > 1 ? 0u : 1u << at->axis);
    return v;
  }
  case AX_POP_LAX_ORDER:
    /* an index-only mask (exact.h) picks, per element, the branch the reals pick and the
     * same in every test: each element is one branch's value, so the result is read as
     * the branches side by side (a layout of them) */
    if (exact) break;
    ax_diag_error(s->d, sp,
                  "select in %s: its mask has no truth value in the finite field Zp x Zq (a "
                  "comparison needs an order), so random testing cannot decide a graph that "
                  "uses select; axle refuses it",
                  where);
    s->ok = false;
    return leaf(out);
  case AX_POP_LAX_KEEP:
  case AX_POP_LAX_SCRAMBLE:
  case AX_POP_LAX_ALIGN:
  case AX_POP_LAX_CONCAT:
    break;
  }
  /* layouts: the operands' values moved around */
  AxLaxVal v = *in[0];
  for (int i = 1; i < nin; i++) {
    v.kn = fmax(v.kn, in[i]->kn);
    v.kd = fmax(v.kd, in[i]->kd);
    v.deg = fmax(v.deg, in[i]->deg);
    v.exp = v.exp || in[i]->exp;
    v.nexp = v.nexp > in[i]->nexp ? v.nexp : in[i]->nexp;
    v.nuf = fmax(v.nuf, in[i]->nuf);
    v.ufdeg = fmax(v.ufdeg, in[i]->ufdeg);
    v.vary |= in[i]->vary;
    v.den |= in[i]->den;
  }
  if (rule == AX_POP_LAX_SCRAMBLE) {
    /* axes scramble: anything that varied may vary along every axis */
    if (v.vary & AXES) v.vary |= AXES;
    if (v.den & AXES) v.den |= AXES;
  } else if (rule == AX_POP_LAX_ALIGN) {
    v.vary = align(v.vary, sh[0]->rank, out->rank);
    v.den = align(v.den, sh[0]->rank, out->rank);
  } else if (rule == AX_POP_LAX_CONCAT) {
    v.vary |= 1u << at->axis;
    bool dens = false;
    for (int i = 0; i < nin; i++) dens = dens || (in[i]->den != 0);
    if (dens) v.den |= 1u << at->axis;
  }
  return v;
}

/* The abstract value of op applied to in[0..nin) of shapes sh, with result shape out. */
static AxLaxVal op_val(A *s, AxOp op, const AxTAttrs *at, const AxLaxVal *const *in,
                         const AxTShape *const *sh, int nin, const AxTShape *out, AxSpan sp,
                         const char *where, bool exact) {
  const AxEwOp *e = ax_ewop_get(op);
  AxLaxVal v;
  if (exact && ax_exact_is_compare(op)) {
    /* a comparison of index-only values (exact.h): an exact 0 or 1, the same in every test */
    v = constant();
  } else if (e && e->arity == 2 && e->lax == AX_EWOP_LAX_ORDER) {
    order_error(s, sp, ax_op_pname(op), where);
    v = combine(in[0], in[1], AX_EWOP_LAX_SUM, sh[0]->rank, sh[1]->rank, out->rank);
  } else if (e && e->arity == 2 && e->lax == AX_EWOP_LAX_OPAQUE) {
    /* an uninterpreted function of both operands (pow): sqrt's reading of their product,
     * which carries the degrees and varying axes of both */
    AxLaxVal both = combine(in[0], in[1], AX_EWOP_LAX_PRODUCT, sh[0]->rank, sh[1]->rank, out->rank);
    v = unary(s, AX_OP_SQRT, &both, sp, where);
  } else if (e && e->arity == 2) v = combine(in[0], in[1], e->lax, sh[0]->rank, sh[1]->rank, out->rank);
  else if (e) v = unary(s, op, in[0], sp, where);
  else v = pop_val(s, ax_pop_get(op)->lax, at, in, sh, nin, out, sp, where, exact);
  v.vary = mask_shape(v.vary, out);
  v.den = (v.den & (1u << 31)) | mask_shape(v.den & ~(1u << 31), out);
  return v;
}

/* Whether the analysis (exact.h) decides op on operands ins[0..nin) of bounds b. */
static bool decided(AxOp op, const int *ins, int nin, const int64_t *b) {
  int64_t x[AX_MAXIN];
  for (int j = 0; j < nin; j++) x[j] = b[ins[j]];
  return ax_exact_decides(op, x, nin);
}

static void kernel(A *s, const AxKernel *k, AxLaxVal *tv, const int64_t *ex) {
  AxLaxVal *nv = ax_xcalloc((size_t)k->nnodes + 1, sizeof *nv);
  char where[160];
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    snprintf(where, sizeof where, "kernel '%s', node '%s'", k->name, n->name);
    switch (n->kind) {
    case AX_BN_ITER: {
      const AxLaxVal *src = &tv[n->src];
      AxLaxVal v = *src;
      for (int g = 0; g < 3; g++) {
        int dm = n->imap[g];
        if (dm < 0 || k->grid[g] < 2) continue;
        if (src->vary & (1u << dm)) v.vary |= G_BIT(g);
        if (src->den & (1u << dm)) v.den |= G_BIT(g);
      }
      if (n->fmap >= 0 && k->forloop > 1) {
        if (src->vary & (1u << n->fmap)) v.vary |= IT_BIT;
        if (src->den & (1u << n->fmap)) v.den |= IT_BIT;
      }
      v.vary = mask_shape(v.vary, &n->shape);
      v.den = (v.den & (1u << 31)) | mask_shape(v.den & ~(1u << 31), &n->shape);
      nv[i] = v;
      break;
    }
    case AX_BN_OP: {
      const AxLaxVal *ins[AX_MAXIN];
      const AxTShape *sh[AX_MAXIN];
      for (int j = 0; j < n->nin; j++) ins[j] = &nv[n->in[j]], sh[j] = &k->nodes[n->in[j]].shape;
      if (n->op == AX_OP_IOTA) {   /* integers, the same in every test */
        nv[i] = constant();
        break;
      }
      nv[i] = op_val(s, n->op, &n->at, ins, sh, n->nin, &n->shape, n->span, where,
                     decided(n->op, n->in, n->nin, ex));
      break;
    }
    case AX_BN_ACCUM: {
      const AxLaxVal *a = &nv[n->in[0]];
      const AxTShape *ash = &k->nodes[n->in[0]].shape;
      bool it_mixed = (a->den & IT_BIT) != 0;
      AxLaxVal v;
      double R = (double)k->forloop;
      if (n->acc == AX_ACC_CONCAT) {
        v = *a;
        if (a->vary & IT_BIT) v.vary |= 1u << n->at.axis;
        if (a->den & IT_BIT) v.den |= 1u << n->at.axis;
      } else if (n->acc == AX_ACC_MAX) {
        /* a fresh variable per element and iteration (field.h), like reduce_max: a leaf of
         * degree 1 without exponentials. Loop operators read its running value, which
         * changes every iteration, so it keeps the operand's iteration bit; the bit is
         * dropped from what only the post phase reads. */
        v = leaf(&n->shape);
        v.vary = a->vary & ~(n->at.axis_set ? 1u << n->at.axis : 0u);
        v.den = 0;
        v.vary = mask_shape(v.vary, &n->shape);
        nv[i] = v;
        break;
      } else if (n->acc == AX_ACC_SUM) {
        v = n->at.axis_set ? reduce(a, ash, n->at.axis, n->at.to) : *a;
        if (n->rescaled) {
          /* s <- s·exp(m_prev − m) + v: after the loop the state is Σ_i v_i·Π exp(...),
           * and a product of exponentials is one exponential term (of a degree-1
           * exponent in the fresh variables), so each iteration's term is v_i times one
           * exponential: its terms and degree as that product */
          AxLaxVal mv = leaf(&n->shape);
          AxLaxVal e = unary(s, AX_OP_EXP, &mv, n->span, where);
          e.vary = v.vary, e.den = 0;
          int r = n->shape.rank;
          v = combine(&v, &e, AX_EWOP_LAX_PRODUCT, r, r, r);
        }
        v = sum_terms(v, R, it_mixed);
      } else {
        AxLaxVal sq = unary(s, AX_OP_SQUARE, a, n->span, where);
        AxLaxVal m = reduce(&sq, ash, n->at.axis, 1);
        m = sum_terms(m, R, it_mixed);
        v = unary(s, AX_OP_SQRT, &m, n->span, where);
      }
      v.vary &= ~IT_BIT;
      v.den &= ~IT_BIT;
      v.vary = mask_shape(v.vary, &n->shape);
      v.den = (v.den & (1u << 31)) | mask_shape(v.den & ~(1u << 31), &n->shape);
      nv[i] = v;
      break;
    }
    case AX_BN_SAVE: {
      AxLaxVal v = nv[n->in[0]];
      uint32_t vary = v.vary & AXES, den = v.den & (AXES | 1u << 31);
      for (int g = 0; g < 3; g++)
        if (n->omap[g] >= 0) {
          if (v.vary & G_BIT(g)) vary |= 1u << n->omap[g];
          if (v.den & G_BIT(g)) den |= 1u << n->omap[g];
        }
      v.vary = mask_shape(vary, &s->g->tensors[n->dst].shape);
      v.den = (den & (1u << 31)) | mask_shape(den & ~(1u << 31), &s->g->tensors[n->dst].shape);
      tv[n->dst] = v;
      break;
    }
    }
  }
  free(nv);
}

bool ax_lax_analyse(const AxMugraph *g, AxDiag *d, AxLaxVal *outs, bool *uses_sqrt) {
  A s = {d, g, true, false};
  AxLaxVal *tv = ax_xcalloc((size_t)g->ntensors + 1, sizeof *tv);
  int64_t *tex = ax_xcalloc((size_t)g->ntensors + 1, sizeof *tex);
  int64_t **nex = ax_xcalloc((size_t)g->nstmts + 1, sizeof *nex);
  for (int si = 0; si < g->nstmts; si++)
    if (g->stmts[si].kind == AX_KS_KERNEL)
      nex[si] = ax_xcalloc((size_t)g->stmts[si].kernel->nnodes + 1, sizeof **nex);
  ax_exact_analyse(g, tex, nex);
  char where[160];
  for (int i = 0; i < g->ntensors; i++)
    if (g->tensors[i].anon) tv[i] = constant();
  for (int si = 0; si < g->nstmts; si++) {
    const AxKStmt *st = &g->stmts[si];
    if (st->kind == AX_KS_INPUT) {
      tv[st->t] = leaf(&g->tensors[st->t].shape);
    } else if (st->kind == AX_KS_OP) {
      const AxLaxVal *ins[AX_MAXIN];
      const AxTShape *sh[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) ins[j] = &tv[st->in[j]], sh[j] = &g->tensors[st->in[j]].shape;
      snprintf(where, sizeof where, "'%s'", g->tensors[st->t].name);
      tv[st->t] = op_val(&s, st->op, &st->at, ins, sh, st->nin, &g->tensors[st->t].shape, st->span,
                         where, decided(st->op, st->in, st->nin, tex));
    } else if (st->kind == AX_KS_KERNEL) {
      kernel(&s, st->kernel, tv, nex[si]);
    }
  }
  for (int si = 0; si < g->nstmts; si++) free(nex[si]);
  free(nex);
  free(tex);
  for (int i = 0; i < g->noutputs; i++) outs[i] = tv[g->outputs[i]];
  free(tv);
  *uses_sqrt = s.sqrt_used;
  return s.ok;
}

void ax_lax_tests(const AxLaxVal *a, const AxLaxVal *b, double delta, double q, double p,
                  AxLaxBound *out) {
  out->k = (a->exp || b->exp) ? a->kn * b->kd + b->kn * a->kd : 1;
  out->d = a->deg + b->deg;
  if (out->d < 1) out->d = 1;
  out->m = a->nuf + b->nuf;
  out->ufdeg = fmax(a->ufdeg, b->ufdeg);
  double k = out->k;
  out->eps_thm = 8 * out->d * k * k * k * k / q + exp(-log(q) / (k * k));
  out->eps_uf = out->m > 1 ? out->m * (out->m - 1) / 2 * fmax(out->ufdeg, 1) / p : 0;
  out->eps = out->eps_thm + out->eps_uf;
  if (!(out->eps < 1)) out->tests = INFINITY;
  else out->tests = ceil(log(delta) / log(out->eps));
  if (out->tests < 1) out->tests = 1;
}
