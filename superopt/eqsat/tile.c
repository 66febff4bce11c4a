/* tile.c — μGraph-to-μGraph rewrites at the tile level; see tile.h. */
#include "superopt/eqsat/tile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"

/* Readers of node i in kernel k (operands and accumulator rescales). */
static int readers(const AxKernel *k, int i) {
  int n = 0;
  for (int j = 0; j < k->nnodes; j++) {
    const AxBNode *b = &k->nodes[j];
    if (b->kind == AX_BN_ITER) continue;
    for (int q = 0; q < b->nin; q++) n += b->in[q] == i;
    n += b->kind == AX_BN_ACCUM && b->rescaled && b->rescale == i;
  }
  return n;
}

static bool row_scale(const AxTShape *x, const AxTShape *s) {
  return x->rank == 2 && s->rank == 2 && s->dim[0] == x->dim[0] && s->dim[1] == 1 && x->dim[1] > 1;
}

/* Whether node s of kernel k scales a matrix x by a per-row r — mul(x, r), mul(r, x) or
 * div(x, r) (a division by a per-row r is the product with its reciprocal, which moves the
 * same way) — read once, outside thread graphs; its operands in *x, *r. */
static bool scale_of(const AxKernel *k, int s, int *x, int *r) {
  const AxBNode *S = &k->nodes[s];
  if (S->kind != AX_BN_OP || (S->op != AX_OP_MUL && S->op != AX_OP_DIV) || S->nin != 2 || S->thread >= 0 ||
      readers(k, s) != 1)
    return false;
  *x = S->in[0], *r = S->in[1];
  if (row_scale(&k->nodes[*x].shape, &k->nodes[*r].shape)) return true;
  *x = S->in[1], *r = S->in[0];
  return S->op == AX_OP_MUL && row_scale(&k->nodes[*x].shape, &k->nodes[*r].shape);
}

/* One site in kernel k rewritten (nodes reordered: S removed, M' then S' at M's place);
 * false when there is none. */
static bool scale_out_once(AxArena *a, AxKernel *k) {
  if (k->forloop != 1) return false;
  for (int m = 0; m < k->nnodes; m++) {
    AxBNode *M = &k->nodes[m];
    if (M->kind != AX_BN_OP || M->op != AX_OP_DOT || M->nin != 2 || M->thread >= 0) continue;
    int s = M->in[0];
    AxBNode *S = &k->nodes[s];
    int x, r;
    if (!scale_of(k, s, &x, &r)) continue;
    /* old index -> new index; S leaves its place, M' and S' take M's */
    int n = k->nnodes;
    int *to = ax_arena_alloc(a, sizeof *to * (size_t)n);
    AxBNode *nodes = ax_arena_alloc(a, sizeof *nodes * (size_t)n);
    int w = 0, mnew = -1;
    for (int i = 0; i < n; i++) {
      if (i == s) continue;
      if (i == m) {
        mnew = w;
        to[m] = w + 1;   /* z's readers read y */
        nodes[w++] = *M;
        nodes[w++] = *S;
        continue;
      }
      to[i] = w;
      nodes[w++] = k->nodes[i];
    }
    for (int i = 0; i < n; i++) {
      AxBNode *b = &nodes[i];
      if (b->kind == AX_BN_ITER) continue;
      if (i == mnew) {
        b->in[0] = to[x], b->in[1] = to[M->in[1]];
        continue;
      }
      if (i == mnew + 1) {
        b->in[0] = mnew, b->in[1] = to[r];
        continue;
      }
      for (int q = 0; q < b->nin; q++) b->in[q] = to[b->in[q]];
      if (b->kind == AX_BN_ACCUM && b->rescaled) b->rescale = to[b->rescale];
    }
    k->nodes = nodes;
    return true;
  }
  return false;
}

static bool scale_out_loop_once(AxArena *a, AxKernel *k);
static bool norm_out_once(AxArena *a, AxKernel *k);

char *ax_tile_scale_out(AxArena *a, const char *text, int *applied) {
  *applied = 0;
  char *cur = NULL;
  /* one site per kernel and pass, the graph printed and validated between passes (the
   * shapes the next match reads are validation's) */
  for (int pass = 0; pass < 8; pass++) {
    AxMugraph *g = ax_load_from_text(a, NULL, "<tile rewrite>", cur ? cur : text, NULL);
    if (!g) break;
    int n = 0;
    for (int st = 0; st < g->nstmts; st++)
      if (g->stmts[st].kind == AX_KS_KERNEL) {
        AxKernel *k = g->stmts[st].kernel;
        n += k->forloop == 1 ? scale_out_once(a, k) || norm_out_once(a, k) : scale_out_loop_once(a, k);
      }
    if (n == 0) break;
    char *out = ax_mugtext_string(g);
    if (!ax_load_from_text(a, NULL, "<tile rewrite>", out, NULL)) {   /* must print back to a valid graph */
      free(out);
      break;
    }
    free(cur);
    cur = out;
    *applied += n;
  }
  if (!cur) *applied = 0;
  return cur;
}

/* ---- the scale out of a matmul inside a for-loop --------------------------------------- */

/* Node list rebuilt: old node i dropped (drop[i]) or kept at its place, nextra[i] new nodes
 * (extra[i]) emitted right after it; readers of i read the last of them when redirect[i].
 * Operands of kept nodes are remapped; an operand v of a new node is an old index when v >=
 * 0 (remapped), the node kept for old node -1 - v itself (not redirected) when CHAIN < v <
 * 0, and the new node CHAIN - v of the same chain when v <= CHAIN. */
#define CHAIN (-(1 << 24))

typedef struct Rebuild {
  bool *drop, *redirect;
  AxBNode **extra;
  int *nextra;
} Rebuild;

static Rebuild rebuild_new(AxArena *a, int n) {
  Rebuild r = {ax_arena_alloc(a, sizeof(bool) * (size_t)n), ax_arena_alloc(a, sizeof(bool) * (size_t)n),
               ax_arena_alloc(a, sizeof(AxBNode *) * (size_t)n), ax_arena_alloc(a, sizeof(int) * (size_t)n)};
  return r;
}

/* Appends a new node after old node i (a copy of *b, operands encoded as above); returns it. */
static AxBNode *rebuild_add(AxArena *a, Rebuild *r, int i, const AxBNode *b) {
  AxBNode *e = ax_arena_alloc(a, sizeof *e * (size_t)(r->nextra[i] + 1));
  if (r->nextra[i]) memcpy(e, r->extra[i], sizeof *e * (size_t)r->nextra[i]);
  r->extra[i] = e;
  e[r->nextra[i]] = *b;
  return &e[r->nextra[i]++];
}

static void rebuild_apply(AxArena *a, AxKernel *k, const Rebuild *r) {
  int n = k->nnodes, w = 0;
  int *to = ax_arena_alloc(a, sizeof *to * (size_t)n), *self = ax_arena_alloc(a, sizeof *self * (size_t)n);
  for (int i = 0; i < n; i++) {
    if (r->drop[i]) {
      to[i] = self[i] = -1;
      continue;
    }
    self[i] = w++;
    to[i] = self[i];
    w += r->nextra[i];
    if (r->nextra[i] && r->redirect[i]) to[i] = w - 1;
  }
  AxBNode *nodes = ax_arena_alloc(a, sizeof *nodes * (size_t)w);
  for (int i = 0; i < n; i++) {
    if (r->drop[i]) continue;
    AxBNode *b = &nodes[self[i]];
    *b = k->nodes[i];
    if (b->kind != AX_BN_ITER) {
      for (int q = 0; q < b->nin; q++) b->in[q] = to[b->in[q]];
      if (b->kind == AX_BN_ACCUM && b->rescaled) b->rescale = to[b->rescale];
    }
    for (int j = 0; j < r->nextra[i]; j++) {
      AxBNode *e = &nodes[self[i] + 1 + j];
      *e = r->extra[i][j];
      for (int q = 0; q < e->nin; q++) {
        int v = e->in[q];
        e->in[q] = v >= 0 ? to[v] : v > CHAIN ? self[-1 - v] : self[i] + 1 + (CHAIN - v);
      }
    }
  }
  k->nodes = nodes;
  k->nnodes = w;
}

/* A name for a new node of kernel k: base, or base_2, base_3, ... not taken. */
static const char *fresh(AxArena *a, const AxKernel *k, const char *base) {
  const char *nm = base;
  for (int i = 2; ax_mug_find_node(k, nm, k->nnodes) >= 0; i++) nm = ax_arena_printf(a, "%s_%d", base, i);
  return nm;
}

/* One site in kernel k (forloop > 1): `y = mul(x, s); z = matmul(y, w); c = accum sum(z)`,
 * s a per-row scale computed before the loop (invariant phase), y and z read once, c a
 * plain sum: becomes `z = matmul(x, w); c = accum sum(z); y = mul(c, s)`, c's readers
 * reading y. The rule's distributivity summed over the iterations: Σ_i (x_i s) w_i =
 * (Σ_i x_i w_i) s, s the same in every iteration. */
static bool scale_out_loop_once(AxArena *a, AxKernel *k) {
  if (k->forloop <= 1) return false;
  for (int m = 0; m < k->nnodes; m++) {
    AxBNode *M = &k->nodes[m];
    if (M->kind != AX_BN_OP || M->op != AX_OP_DOT || M->nin != 2 || M->thread >= 0 || readers(k, m) != 1) continue;
    int s = M->in[0];
    AxBNode *S = &k->nodes[s];
    int x, r;
    if (!scale_of(k, s, &x, &r)) continue;
    if (k->nodes[r].phase != AX_PH_INVARIANT) continue;
    int c = -1;
    for (int j = m + 1; j < k->nnodes; j++)
      if (k->nodes[j].kind != AX_BN_ITER)
        for (int q = 0; q < k->nodes[j].nin; q++)
          if (k->nodes[j].in[q] == m) c = j;
    if (c < 0) continue;
    AxBNode *C = &k->nodes[c];
    if (C->kind != AX_BN_ACCUM || C->acc != AX_ACC_SUM || C->at.axis_set || C->at.to || C->rescaled) continue;
    Rebuild rb = rebuild_new(a, k->nnodes);
    rb.drop[s] = true;
    M->in[0] = x;
    AxBNode *y = rebuild_add(a, &rb, c, S);
    y->note = (AxNote){0};
    y->in[0] = -1 - c, y->in[1] = r, y->nin = 2;
    rb.redirect[c] = true;
    rebuild_apply(a, k, &rb);
    return true;
  }
  return false;
}

/* ---- a norm's division out of a matmul ----------------------------------------------- */

/* One site in kernel k (forloop 1): `n = rms_norm(x, axis = 1); z = matmul(n, w)`, x [m, k]
 * and n read by the matmul alone, becomes `z = matmul(x, w); n = div(z, sqrt(mean(square(x),
 * axis = 1)))`, z's readers reading n: rms_norm's definition (eq_rms_def) and the scale of
 * each row moved out of the matmul (eq_matmul_mul with the reciprocal as the scale). */
static bool norm_out_once(AxArena *a, AxKernel *k) {
  if (k->forloop != 1) return false;
  for (int m = 0; m < k->nnodes; m++) {
    AxBNode *M = &k->nodes[m];
    if (M->kind != AX_BN_OP || M->op != AX_OP_DOT || M->nin != 2 || M->thread >= 0) continue;
    int nn = M->in[0];
    const AxBNode *N = &k->nodes[nn];
    if (N->kind != AX_BN_OP || N->op != AX_OP_RMS_NORM || N->nin != 1 || N->thread >= 0 || readers(k, nn) != 1 ||
        N->shape.rank != 2 || (N->at.axis_set && N->at.axis != 1))
      continue;
    int x = N->in[0];
    Rebuild rb = rebuild_new(a, k->nnodes);
    rb.drop[nn] = true;
    M->in[0] = x;
    AxBNode proto = {.kind = AX_BN_OP, .thread = -1, .span = N->span};
    AxBNode *sq = rebuild_add(a, &rb, m, &proto);
    sq->op = AX_OP_SQUARE, sq->in[0] = x, sq->nin = 1;
    sq->name = fresh(a, k, ax_arena_printf(a, "%s_sq", N->name));
    AxBNode *ms = rebuild_add(a, &rb, m, &proto);
    ms->op = AX_OP_MEAN, ms->in[0] = CHAIN - 0, ms->nin = 1;
    ms->at.axis = 1, ms->at.axis_set = true;
    ms->name = fresh(a, k, ax_arena_printf(a, "%s_ms", N->name));
    AxBNode *rt = rebuild_add(a, &rb, m, &proto);
    rt->op = AX_OP_SQRT, rt->in[0] = CHAIN - 1, rt->nin = 1;
    rt->name = fresh(a, k, ax_arena_printf(a, "%s_rms", N->name));
    AxBNode *y = rebuild_add(a, &rb, m, &proto);
    y->op = AX_OP_DIV, y->in[0] = -1 - m, y->in[1] = CHAIN - 2, y->nin = 2;
    y->name = N->name;   /* free: n is dropped */
    rb.redirect[m] = true;
    rebuild_apply(a, k, &rb);
    return true;
  }
  return false;
}

/* ---- loop insertion ------------------------------------------------------------------- */

/* Marks, walking back from node i, the dim d along which it is to be tiled: through
 * element-wise operators (an operand of size 1 along d is broadcast, not tiled) down to
 * input iterators. False when a node on the way is anything else or already marked with
 * another dim. */
static bool mark_back(const AxKernel *k, int i, int d, int *td) {
  const AxBNode *b = &k->nodes[i];
  if (d < 0 || d >= b->shape.rank) return false;
  if (td[i] >= 0) return td[i] == d;
  if (b->kind == AX_BN_ITER) {
    td[i] = d;
    return b->fmap < 0;
  }
  if (b->kind != AX_BN_OP || !ax_op_is_elementwise(b->op)) return false;
  for (int q = 0; q < b->nin; q++) {
    const AxBNode *o = &k->nodes[b->in[q]];
    if (o->anon || (o->shape.rank == b->shape.rank && o->shape.dim[d] == 1 && b->shape.dim[d] > 1)) continue;
    if (!mark_back(k, b->in[q], d, td)) return false;
  }
  td[i] = d;
  return true;
}

/* Whether node i is read only by node j. */
static bool only_reader(const AxKernel *k, int i, int j) {
  if (readers(k, i) != 1) return false;
  const AxBNode *b = &k->nodes[j];
  for (int q = 0; q < b->nin; q++)
    if (b->in[q] == i) return true;
  return false;
}

/* One site in kernel k (forloop 1): a matmul whose operands come from input iterators through
 * element-wise operators becomes a loop of n iterations. The iterators it reads are tiled
 * along the contracted dim (fmap); every node reading a tiled node is element-wise along the
 * same dim (then tiled itself) or a reduction over it, which becomes a partial result and an
 * accumulator: matmul and sum(·, axis = d) an `accum sum` after them; sqrt(mean(square(e),
 * axis = d)), the root mean square, an `accum rms(e, axis = d)` (the norm's sum of squares
 * carried by the loop, its division after it). Anything else reading a tiled node refuses
 * the site. */
static bool loop_insert_once(AxArena *a, AxKernel *k, int64_t n) {
  if (k->forloop != 1 || k->nthreads > 0) return false;
  for (int i = 0; i < k->nnodes; i++)
    if (k->nodes[i].kind == AX_BN_ACCUM) return false;
  int nn = k->nnodes;
  for (int m = 0; m < nn; m++) {
    const AxBNode *M = &k->nodes[m];
    if (M->kind != AX_BN_OP || M->op != AX_OP_DOT || M->nin != 2 || M->shape.rank != 2) continue;
    const AxTShape *xs = &k->nodes[M->in[0]].shape;
    if (xs->rank != 2 || xs->dim[1] % n != 0 || xs->dim[1] / n < 8) continue;
    int *td = ax_arena_alloc(a, sizeof *td * (size_t)nn);
    for (int i = 0; i < nn; i++) td[i] = -1;
    if (!mark_back(k, M->in[0], 1, td) || !mark_back(k, M->in[1], 0, td)) continue;
    /* forward: the tiled region from the marked iterators; reductions over the tiled dim */
    for (int i = 0; i < nn; i++)
      if (k->nodes[i].kind != AX_BN_ITER) td[i] = -1;
    Rebuild rb = rebuild_new(a, nn);
    bool ok = true;
    int nred = 0;
    for (int i = 0; i < nn && ok; i++) {
      AxBNode *b = &k->nodes[i];
      /* an iterator, a node dropped, or the rms accumulator made above */
      if (b->kind == AX_BN_ITER || b->kind == AX_BN_ACCUM || rb.drop[i]) continue;
      int d = -1;
      bool tiled_in = false;
      for (int q = 0; q < b->nin; q++)
        if (td[b->in[q]] >= 0) {
          if (d >= 0 && td[b->in[q]] != d && b->op != AX_OP_DOT) ok = false;
          d = td[b->in[q]], tiled_in = true;
        }
      if (!tiled_in) continue;
      if (b->kind == AX_BN_SAVE || b->kind != AX_BN_OP) {
        ok = false;
      } else if (b->op == AX_OP_DOT) {
        if (b->nin != 2 || td[b->in[0]] != 1 || td[b->in[1]] != 0 || b->shape.rank != 2) ok = false;
      } else if (ax_op_is_elementwise(b->op)) {
        /* every operand tiled along d, or of size 1 along it (broadcast) */
        for (int q = 0; q < b->nin && ok; q++) {
          const AxBNode *o = &k->nodes[b->in[q]];
          ok = td[b->in[q]] == d || o->anon || (o->shape.rank == b->shape.rank && o->shape.dim[d] == 1);
        }
        if (ok && b->shape.dim[d] > 1) {
          td[i] = d;
          continue;
        }
        ok = false;
      } else if (b->op == AX_OP_REDUCE && b->at.axis == d) {
        /* a partial sum */
      } else if (b->op == AX_OP_MEAN && b->at.axis == d) {
        /* the root mean square: square -> mean -> sqrt, each read once by the next */
        const AxBNode *sq = &k->nodes[b->in[0]];
        int sqrt_at = -1;
        for (int j = i + 1; j < nn; j++)
          if (k->nodes[j].kind == AX_BN_OP && k->nodes[j].op == AX_OP_SQRT && only_reader(k, i, j)) sqrt_at = j;
        if (sqrt_at < 0 || sq->kind != AX_BN_OP || sq->op != AX_OP_SQUARE || sq->thread >= 0 ||
            !only_reader(k, b->in[0], i) || k->nodes[sqrt_at].thread >= 0) {
          ok = false;
          continue;
        }
        AxBNode *R = &k->nodes[sqrt_at];
        R->kind = AX_BN_ACCUM, R->acc = AX_ACC_RMS;
        R->at = (AxTAttrs){0};
        R->at.axis = d, R->at.axis_set = true;
        R->in[0] = sq->in[0], R->nin = 1;
        rb.drop[b->in[0]] = rb.drop[i] = true;
        nred++;
        continue;
      } else {
        ok = false;
      }
      if (!ok) continue;
      AxBNode *acc = rebuild_add(a, &rb, i, &(AxBNode){0});
      acc->kind = AX_BN_ACCUM, acc->acc = AX_ACC_SUM;
      acc->name = fresh(a, k, ax_arena_printf(a, "%s_acc", b->name));
      acc->thread = -1;
      acc->in[0] = -1 - i, acc->nin = 1;
      acc->span = b->span;
      rb.redirect[i] = true;
      nred++;
    }
    if (!ok || nred == 0) return false;   /* nodes already rewritten in place: the caller drops k */
    for (int i = 0; i < nn; i++)
      if (k->nodes[i].kind == AX_BN_ITER && td[i] >= 0) k->nodes[i].fmap = td[i];
    k->forloop = n;
    rebuild_apply(a, k, &rb);
    return true;
  }
  return false;
}

/* The graph text g with kernel k's loop inserted (n iterations), validated; NULL when k has
 * no site or the result does not validate. */
static char *loop_insert_text(AxArena *a, const char *text, int kernel, int64_t n) {
  AxMugraph *g = ax_load_from_text(a, NULL, "<tile rewrite>", text, NULL);
  if (!g || g->stmts[kernel].kind != AX_KS_KERNEL) return NULL;
  if (!loop_insert_once(a, g->stmts[kernel].kernel, n)) return NULL;
  char *out = ax_mugtext_string(g);
  if (!ax_load_from_text(a, NULL, "<tile rewrite>", out, NULL)) {
    free(out);
    return NULL;
  }
  return out;
}

char *ax_tile_loop_insert(AxArena *a, const char *text, int64_t n, int *applied) {
  *applied = 0;
  AxMugraph *g = ax_load_from_text(a, NULL, "<tile rewrite>", text, NULL);
  if (!g || n < 2) return NULL;
  char *cur = NULL;
  for (int st = 0; st < g->nstmts; st++) {
    if (g->stmts[st].kind != AX_KS_KERNEL) continue;
    char *t = loop_insert_text(a, cur ? cur : text, st, n);
    if (!t) continue;
    free(cur);
    cur = t;
    (*applied)++;
  }
  return cur;
}

/* ---- fusion of a producer kernel into its consumer ------------------------------------- */

/* Whether statement st reads kernel tensor t (an operator's operand, an input iterator, or
 * the graph's outputs when st is the output statement). */
static bool stmt_reads(const AxKStmt *st, int t) {
  if (st->kind == AX_KS_OP) {
    for (int q = 0; q < st->nin; q++)
      if (st->in[q] == t) return true;
  } else if (st->kind == AX_KS_KERNEL) {
    const AxKernel *k = st->kernel;
    for (int i = 0; i < k->nnodes; i++)
      if (k->nodes[i].kind == AX_BN_ITER && k->nodes[i].src == t) return true;
  } else if (st->kind == AX_KS_OUTPUT) {
    for (int q = 0; q < st->nouts; q++)
      if (st->outs[q] == t) return true;
  }
  return false;
}

static bool same_maps(const AxBNode *a, const AxBNode *b) {
  return a->src == b->src && a->fmap == b->fmap && memcmp(a->imap, b->imap, sizeof a->imap) == 0;
}

/* Kernel statement s1 merged into the later kernel statement s2 of g, when it fits: both of
 * one grid, s1 without a for-loop or accumulators, every tile s2 reads of a tensor s1 writes
 * the tile the same block wrote (imap = omap, fmap -), and nothing between them reading what
 * s1 writes. s1's nodes go first (renamed where a name clashes; invariant in s2's loop), s2's
 * iterators of s1's tensors read the node saved instead, an iterator of s2 that s1 also has
 * reads s1's; a save is kept only for a tensor read elsewhere. s1's statement is removed. */
static bool fuse_pair(AxArena *a, AxMugraph *g, int s1, int s2) {
  AxKernel *k1 = g->stmts[s1].kernel, *k2 = g->stmts[s2].kernel;
  if (k1->forloop != 1 || memcmp(k1->grid, k2->grid, sizeof k1->grid) != 0) return false;
  bool reads = false;
  for (int i = 0; i < k1->nnodes; i++) {
    const AxBNode *b = &k1->nodes[i];
    if (b->kind == AX_BN_ACCUM || (b->kind == AX_BN_OP && b->op == AX_OP_IOTA)) return false;
    if (b->kind != AX_BN_SAVE) continue;
    for (int st = s1 + 1; st < s2; st++)
      if (stmt_reads(&g->stmts[st], b->dst)) return false;
    for (int j = 0; j < k2->nnodes; j++) {
      const AxBNode *c = &k2->nodes[j];
      if (c->kind != AX_BN_ITER || c->src != b->dst) continue;
      reads = true;
      if (c->fmap >= 0) return false;
      for (int d = 0; d < 3; d++)
        if (k1->grid[d] > 1 && c->imap[d] != b->omap[d]) return false;
    }
  }
  if (!reads) return false;
  int n1 = k1->nnodes, n2 = k2->nnodes;
  AxBNode *nodes = ax_arena_alloc(a, sizeof *nodes * (size_t)(n1 + n2));
  int *to1 = ax_arena_alloc(a, sizeof(int) * (size_t)n1), *to2 = ax_arena_alloc(a, sizeof(int) * (size_t)n2);
  int w = 0;
  for (int i = 0; i < n1; i++) {
    const AxBNode *b = &k1->nodes[i];
    to1[i] = -1;
    if (b->kind == AX_BN_SAVE) {
      bool elsewhere = false;
      for (int st = s2 + 1; st < g->nstmts && !elsewhere; st++) elsewhere = stmt_reads(&g->stmts[st], b->dst);
      if (!elsewhere) continue;
    }
    to1[i] = w;
    nodes[w] = *b;
    if (b->kind != AX_BN_ITER)
      for (int q = 0; q < b->nin; q++) nodes[w].in[q] = to1[b->in[q]];
    if (!b->anon && b->kind != AX_BN_SAVE && ax_mug_find_node(k2, b->name, n2) >= 0)
      nodes[w].name = ax_arena_printf(a, "%s_%s", k1->name, b->name);
    w++;
  }
  for (int j = 0; j < n2; j++) {
    const AxBNode *c = &k2->nodes[j];
    to2[j] = -1;
    if (c->kind == AX_BN_ITER) {
      for (int i = 0; i < n1 && to2[j] < 0; i++) {
        const AxBNode *b = &k1->nodes[i];
        if (b->kind == AX_BN_SAVE && b->dst == c->src) to2[j] = to1[b->in[0]];
        else if (b->kind == AX_BN_ITER && same_maps(b, c)) to2[j] = to1[i];
      }
      if (to2[j] >= 0) continue;
    }
    to2[j] = w;
    nodes[w] = *c;
    if (c->thread >= 0) nodes[w].thread += k1->nthreads;
    if (c->kind != AX_BN_ITER) {
      for (int q = 0; q < c->nin; q++) nodes[w].in[q] = to2[c->in[q]];
      if (c->kind == AX_BN_ACCUM && c->rescaled) nodes[w].rescale = to2[c->rescale];
    }
    w++;
  }
  k2->nodes = nodes;
  k2->nnodes = w;
  k2->nthreads += k1->nthreads;
  memmove(&g->stmts[s1], &g->stmts[s1 + 1], sizeof *g->stmts * (size_t)(g->nstmts - s1 - 1));
  g->nstmts--;
  return true;
}

char *ax_tile_fuse(AxArena *a, const char *text, int *applied) {
  *applied = 0;
  char *cur = NULL;
  for (int pass = 0; pass < 8; pass++) {
    AxMugraph *g = ax_load_from_text(a, NULL, "<tile rewrite>", cur ? cur : text, NULL);
    if (!g) break;
    bool done = false;
    for (int s2 = 0; s2 < g->nstmts && !done; s2++)
      for (int s1 = s2 - 1; s1 >= 0 && !done && g->stmts[s2].kind == AX_KS_KERNEL; s1--)
        if (g->stmts[s1].kind == AX_KS_KERNEL) done = fuse_pair(a, g, s1, s2);
    if (!done) break;
    char *out = ax_mugtext_string(g);
    if (!ax_load_from_text(a, NULL, "<tile rewrite>", out, NULL)) {   /* e.g. over the shared memory limit */
      free(out);
      break;
    }
    free(cur);
    cur = out;
    (*applied)++;
  }
  return cur;
}

/* ---- the rewrites together ------------------------------------------------------------ */

static double cost_of(AxArena *a, const char *text, const AxTarget *t) {
  AxMugraph *g = text ? ax_load_from_text(a, NULL, "<tile rewrite>", text, NULL) : NULL;
  return g ? ax_cost_time(g, t) : INFINITY;
}

char *ax_tile_rewrite(AxArena *a, const char *text, const AxTarget *t, AxTileCounts *c) {
  memset(c, 0, sizeof *c);
  double best_c = cost_of(a, text, t);
  char *best = NULL;
  /* the scale first: a scale before the matmul reads the whole contracted dim, which the
   * loop would otherwise have to carry */
  /* producers fused into their consumers first: what the loop below may carry */
  int fu = 0;
  char *f = ax_tile_fuse(a, text, &fu);
  const char *in = f ? f : text;
  double fc = cost_of(a, f, t);
  if (f && fc < best_c * (1 - 1e-9)) {
    best = strdup(f), best_c = fc;
    c->fused = fu;
  }
  int so = 0;
  char *s = ax_tile_scale_out(a, in, &so);
  const char *base = s ? s : in;
  double sc = cost_of(a, s, t);
  if (s && sc < best_c * (1 - 1e-9)) {
    free(best);
    best = strdup(s), best_c = sc;
    c->scale_out = so, c->fused = fu;
  }
  for (int64_t n = 2; n <= 64; n *= 2) {
    int li = 0;
    char *l = ax_tile_loop_insert(a, base, n, &li);
    if (!l) continue;
    int so2 = 0;
    char *l2 = ax_tile_scale_out(a, l, &so2);   /* a loop-invariant scale after the sum */
    if (l2) free(l), l = l2;
    double lc = cost_of(a, l, t);
    if (lc < best_c * (1 - 1e-9)) {
      free(best);
      best = l, best_c = lc;
      c->scale_out = so + so2, c->loops = li, c->forloop = n, c->fused = fu;
    } else {
      free(l);
    }
  }
  free(s);
  free(f);
  return best;
}
