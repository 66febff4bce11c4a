/* generate.c — the generator (generate.h): dimension classes, block graphs, kernel
 * graphs, the memo of last statements, the iterative deepening's levels. */
#include "superopt/search/generate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "base/mem.h"
#include "superopt/equiv/exact.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

/* --- dimension classes of the program ------------------------------------------------ */

static int uf_find(int *p, int x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}
static void uf_union(int *p, int a, int b) {
  a = uf_find(p, a), b = uf_find(p, b);
  if (a != b) p[a < b ? b : a] = a < b ? a : b;
}

static bool is_masked(const MaskSel *ms, int n, int stmt);

/* The dimension classes of s->prog. ix (index_values) when the generator reads its masks:
 * the index values are then made inside the kernel that reads them and get no class, and a
 * masked select is element-wise on its value; NULL otherwise. */
static bool classes(SearchState *s, const char *ix, AxDiag *d) {
  const AxMugraph *g = s->prog;
  int n = g->ntensors * AX_MAXRANK;
  int *p = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) p[i] = i;
#define ID(t, dd) ((t) * AX_MAXRANK + (dd))
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP) continue;
    const AxTShape *o = &g->tensors[st->t].shape;
    if (ix && ix[st->t]) continue;
    if (ix && is_masked(s->masks, s->nmasks, i)) {
      int v = st->in[1 + !ix[st->in[2]]];
      for (int k = 0; k < o->rank; k++) uf_union(p, ID(st->t, k), ID(v, k));
      continue;
    }
    const AxOpSpec *sp = ax_op_spec(st->op);
    switch (sp->cls) {
    case AX_TC_UNARY:
    case AX_TC_NORM:
      for (int k = 0; k < o->rank; k++) uf_union(p, ID(st->t, k), ID(st->in[0], k));
      break;
    case AX_TC_BINARY:
    case AX_TC_MATMUL: {
      int batch = sp->cls == AX_TC_MATMUL ? 2 : 0;
      for (int j = 0; j < st->nin; j++) {
        const AxTShape *a = &g->tensors[st->in[j]].shape;
        for (int k = 0; k < a->rank - batch; k++) {
          int od = o->rank - batch - (a->rank - batch - k);
          if (od >= 0 && a->dim[k] == o->dim[od] && a->dim[k] > 1) uf_union(p, ID(st->in[j], k), ID(st->t, od));
        }
      }
      if (batch) {
        const AxTShape *a = &g->tensors[st->in[0]].shape, *b = &g->tensors[st->in[1]].shape;
        uf_union(p, ID(st->in[0], a->rank - 1), ID(st->in[1], b->rank - 2));
        uf_union(p, ID(st->in[0], a->rank - 2), ID(st->t, o->rank - 2));
        uf_union(p, ID(st->in[1], b->rank - 1), ID(st->t, o->rank - 1));
      }
      break;
    }
    case AX_TC_REDUCE:
      for (int k = 0; k < o->rank; k++)
        if (k != st->at.axis) uf_union(p, ID(st->t, k), ID(st->in[0], k));
      break;
    case AX_TC_SOURCE: break;
    case AX_TC_NONE:
    case AX_TC_LAYOUT:
      ax_diag_error(d, st->span, "superopt: the search does not handle '%s' yet",
                    ax_op_pname(st->op));
      free(p);
      return false;
    }
  }
  s->tcls = calloc((size_t)n, sizeof(int));
  int *root_cls = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) root_cls[i] = -1;
  s->ncls = 1;
  s->cls[CLS_ONE] = (DimClass){1, 0, 0};
  for (int t = 0; t < g->ntensors; t++)
    for (int k = 0; k < g->tensors[t].shape.rank; k++) {
      int64_t sz = g->tensors[t].shape.dim[k];
      if (sz == 1 || (ix && ix[t])) {
        s->tcls[ID(t, k)] = CLS_ONE;
        continue;
      }
      int r = uf_find(p, ID(t, k));
      if (root_cls[r] < 0) {
        if (s->ncls == MAXC) continue;
        root_cls[r] = s->ncls;
        s->cls[s->ncls++] = (DimClass){sz, 0, 0};
      }
      s->tcls[ID(t, k)] = root_cls[r];
    }
  for (int o = 0; o < g->noutputs; o++)
    for (int k = 0; k < g->tensors[g->outputs[o]].shape.rank; k++)
      s->out_cls |= (uint64_t)1 << s->tcls[ID(g->outputs[o], k)];
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP || !st->nin) continue;
    const AxTShape *a = &g->tensors[st->in[0]].shape;
    int k = ax_pop_contracted_dim(st->op, a, st->at.axis);
    if (k >= 0) s->red_cls |= (uint64_t)1 << s->tcls[ID(st->in[0], k)];
  }
#undef ID
  free(root_cls);
  free(p);
  return true;
}

/* --- masked selects ------------------------------------------------------------------ */

/* An index value depends on no input: a literal, an iota, a broadcast of one, a reshape of
 * one that only adds or drops dims of size 1, and + - * neg or a comparison of such values
 * (the values greedy.h writes inside a kernel). A causal mask and its fill are index values;
 * comparisons of them are exact in the equivalence check (exact.h). */

/* Per tensor of g (owned array): 1 an index value that can be written from block iotas and
 * literals, 2 an index value made of literals only by an operator (not written: the
 * kernel's operators need a tile), 0 a value. */
static char *index_values(const AxMugraph *g) {
  char *ix = calloc((size_t)g->ntensors + 1, 1);
  bool *var = calloc((size_t)g->ntensors + 1, sizeof(bool));   /* varies with an index */
  for (int t = 0; t < g->ntensors; t++) ix[t] = g->tensors[t].anon;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP) continue;
    int v = 0;
    if (st->op == AX_OP_IOTA) {   /* along a dim of size 1 it is the literal 0 (mask_value) */
      var[st->t] = g->tensors[st->t].shape.dim[st->at.axis] > 1;
      v = var[st->t] ? 1 : 2;
    }
    else if (st->op == AX_OP_BROADCAST ||
             (st->op == AX_OP_RESHAPE &&
              ax_shape_squeeze_equal(&g->tensors[st->in[0]].shape, &g->tensors[st->t].shape))) {
      v = ix[st->in[0]];
      var[st->t] = var[st->in[0]];
    } else if (ax_exact_index_op(st->op)) {
      v = 1;
      for (int j = 0; j < st->nin; j++) {
        if (!ix[st->in[j]]) v = 0;
        else if (ix[st->in[j]] == 2 && v) v = 2;
        var[st->t] |= var[st->in[j]];
      }
      if (v == 1 && !var[st->t]) v = 2;
    }
    ix[st->t] = (char)v;
  }
  free(var);
  return ix;
}

/* The masked selects of g (ix: index_values) into ms, at most MAX_MASKS; -1 when it has
 * more. A select whose mask and one branch are written index values, the other branch a
 * value of the select's own shape. */
static int masked_selects(const AxMugraph *g, const char *ix, MaskSel *ms) {
  int n = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP || st->op != AX_OP_SELECT || st->nin != 3 || ix[st->in[0]] != 1) continue;
    int v = !ix[st->in[1]] && ix[st->in[2]] ? 1 : !ix[st->in[2]] && ix[st->in[1]] ? 2 : 0;
    if (!v || ix[st->in[3 - v]] == 2 ||
        !ax_shape_equal(&g->tensors[st->in[v]].shape, &g->tensors[st->t].shape))
      continue;
    if (n == MAX_MASKS) return -1;
    ms[n++] = (MaskSel){i, v};
  }
  return n;
}

static bool is_masked(const MaskSel *ms, int n, int stmt) {
  for (int k = 0; k < n; k++)
    if (ms[k].stmt == stmt) return true;
  return false;
}

bool ax_generate_reads_masks(const AxMugraph *g) {
  char *ix = index_values(g);
  MaskSel ms[MAX_MASKS];
  int n = masked_selects(g, ix, ms);
  bool ok = n > 0;
  for (int i = 0; i < g->nstmts && ok; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP || ix[st->t] || is_masked(ms, n, i)) continue;
    /* a value reads no index value but a literal, which the scalar operators carry */
    for (int j = 0; j < st->nin; j++)
      if (ix[st->in[j]] && !g->tensors[st->in[j]].anon) ok = false;
  }
  for (int o = 0; o < g->noutputs && ok; o++)
    if (ix[g->outputs[o]]) ok = false;
  free(ix);
  return ok;
}

/* --- abstract expressions of the program ---------------------------------------------- */

_Static_assert(AX_OP_COUNT <= 64, "operator masks hold every operator");
static uint64_t bit(AxOp op) { return (uint64_t)1 << op; }

/* The terms of the program's tensors in t (owned array, one per tensor); the masked
 * selects ms[0..nms) are opaque functions of their value (ax_prune_masked). */
static AxAId *program_exprs(AxAbs *t, const AxMugraph *g, const MaskSel *ms, int nms) {
  AxAId *e = malloc(sizeof(AxAId) * (size_t)(g->ntensors + 1));
  /* literals have no statement: their term is the constant's */
  for (int i = 0; i < g->ntensors; i++)
    e[i] = g->tensors[i].anon ? ax_prune_const(t, g->tensors[i].value) : -1;
  int input = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind == AX_KS_INPUT) {
      e[st->t] = ax_prune_var(t, input++);
    } else if (st->kind == AX_KS_OP) {
      int k = 0;
      while (k < nms && ms[k].stmt != i) k++;
      if (k < nms) {
        e[st->t] = ax_prune_masked(t, k, e[st->in[ms[k].value]]);
        continue;
      }
      AxAId in[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) in[j] = e[st->in[j]];
      const AxTShape *s0 = st->nin ? &g->tensors[st->in[0]].shape : NULL;
      e[st->t] = ax_prune_apply(t, st->op, in, st->nin,
                                s0 ? ax_pop_reduced(st->op, s0, st->at.axis, st->at.to) : 1);
    }
  }
  return e;
}

/* c as an exact decimal literal ("0.5", "-0.0009765625") in buf; false when c has no
 * finite decimal expansion or the text does not fit. */
static bool decimal_text(AxRat c, char *buf, size_t n) {
  int64_t d = c.den, twos = 0, fives = 0;
  while (d % 2 == 0) d /= 2, twos++;
  while (d % 5 == 0) d /= 5, fives++;
  if (d != 1) return false;
  int64_t digits = twos > fives ? twos : fives;
  if (digits > 18) return false;
  __int128 scale = 1;
  for (int64_t i = 0; i < digits; i++) scale *= 10;
  __int128 v = (__int128)c.num * (scale / c.den);
  bool neg = v < 0;
  if (neg) v = -v;
  int64_t ip = (int64_t)(v / scale), fp = (int64_t)(v % scale);
  int w = digits ? snprintf(buf, n, "%s%" PRId64 ".%0*" PRId64, neg ? "-" : "", ip, (int)digits, fp)
                 : snprintf(buf, n, "%s%" PRId64, neg ? "-" : "", ip);
  return w > 0 && (size_t)w < n;
}

static bool rat_eq(AxRat a, __int128 n, __int128 d) { return (__int128)a.num * d == n * (__int128)a.den; }

/* Whether c is ±1, ± a literal of g, or ± a product or quotient of two (8 / 16, 1 / 8): a
 * value that does not depend on g's sizes. */
static bool from_literals(const AxMugraph *g, AxRat c) {
  if (rat_eq(c, 1, 1) || rat_eq(c, -1, 1)) return true;
  for (int i = 0; i < g->ntensors; i++) {
    if (!g->tensors[i].anon) continue;
    AxRat p = g->tensors[i].value;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      if (rat_eq(c, sgn * (__int128)p.num, p.den) || (p.num && rat_eq(c, sgn * (__int128)p.den, p.num)))
        return true;
      for (int j = 0; j < g->ntensors; j++) {
        if (!g->tensors[j].anon) continue;
        AxRat q = g->tensors[j].value;
        if (rat_eq(c, sgn * (__int128)p.num * q.num, (__int128)p.den * q.den)) return true;
        if (q.num && rat_eq(c, sgn * (__int128)p.num * q.den, (__int128)p.den * q.num)) return true;
      }
    }
  }
  return false;
}

bool ax_generate_uses_sized(const Worker *w) {
  for (int k = 0; k < w->nks; k++) {
    if (!w->ks[k].kernel) continue;
    const BlockGraph *b = &w->ks[k].blk;
    for (int i = 0; i < b->nn; i++)
      if (b->n[i].scalar && w->sc[b->n[i].scalar - 1].sized) return true;
  }
  return false;
}

/* The scalar operators of w: each constant factor c of the spec as mul by c (a finite
 * decimal) or div by 1/c (an integer); each constant term as add c. */
static void scalars(Worker *w) {
  AxAId cs[MAX_SCALARS];
  w->nsc = 0;
  for (int additive = 0; additive < 2; additive++) {
    int n = ax_prune_spec_consts(w->abs, additive, cs, MAX_SCALARS);
    for (int i = 0; i < n && w->nsc < MAX_SCALARS; i++) {
      Scalar *x = &w->sc[w->nsc];
      if (!ax_prune_const_value(w->abs, cs[i], &x->c)) continue;
      x->op = additive ? AX_OP_ADD : AX_OP_MUL;
      if (!decimal_text(x->c, x->text, sizeof x->text)) {
        if (additive || x->c.num == 0) continue;
        /* 1/768 has no decimal: divide by 768 */
        x->op = AX_OP_DIV;
        x->c = (AxRat){x->c.num < 0 ? -x->c.den : x->c.den, x->c.num < 0 ? -x->c.num : x->c.num};
        if (!decimal_text(x->c, x->text, sizeof x->text)) continue;
      }
      x->expr = ax_prune_const(w->abs, x->c);
      x->sized = !from_literals(w->s->prog, x->c);
      w->nsc++;
    }
  }
}

static void spec_exprs(Worker *w) {
  const AxMugraph *g = w->s->prog;
  AxAId *e = program_exprs(w->abs, g, w->s->masks, w->s->nmasks);
  w->spec = malloc(sizeof(AxAId) * (size_t)(g->noutputs + 1));
  for (int i = 0; i < g->noutputs; i++) w->spec[i] = e[g->outputs[i]];
  ax_prune_set_spec(w->abs, w->spec, g->noutputs);
  free(e);
  scalars(w);
}

/* Operators a program written another way would have used: the unary operators u such
 * that u of one of its tensors is a subexpression of its normal form (rsqrt for x/sqrt(y),
 * sqrt for x*rsqrt(y), silu for x/(1+exp(-x)), rms_norm for x/sqrt(mean(x*x))), with the
 * binary operator each needs beside it, so that every written form is searched with the
 * same operators. */
static uint64_t written_forms(const AxMugraph *g, const MaskSel *ms, int nms) {
  AxAbs *t = ax_prune_new();
  AxAId *e = program_exprs(t, g, ms, nms);
  AxAId *outs = malloc(sizeof(AxAId) * (size_t)(g->noutputs + 1));
  for (int i = 0; i < g->noutputs; i++) outs[i] = e[g->outputs[i]];
  ax_prune_set_spec(t, outs, g->noutputs);
  /* only the operators a written form stands for: each one more widens every later
   * search of the program (logistic and square would enter every SiLU and RMSNorm) */
  static const struct { AxOp op; uint64_t with; } un[] = {
      {AX_OP_SQRT, (uint64_t)1 << AX_OP_DIV}, {AX_OP_RSQRT, (uint64_t)1 << AX_OP_MUL},
      {AX_OP_SILU, 0}};
  uint64_t m = 0;
  for (int i = 0; i < g->ntensors; i++) {
    if (e[i] < 0 || g->tensors[i].anon) continue;
    for (size_t u = 0; u < sizeof un / sizeof un[0]; u++)
      if (ax_prune_is_sub(t, ax_prune_apply(t, un[u].op, &e[i], 1, 1)))
        m |= (uint64_t)1 << un[u].op | un[u].with;
    const AxTShape *sh = &g->tensors[i].shape;
    for (int a = 0; a < sh->rank; a++)
      if (sh->dim[a] > 1 && ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_RMS_NORM, &e[i], 1, sh->dim[a])))
        m |= (uint64_t)1 << AX_OP_RMS_NORM | (uint64_t)1 << AX_OP_DIV;
  }
  free(outs);
  free(e);
  ax_prune_free(t);
  return m;
}

/* The program inputs (bit i: the i-th input statement) that some output depends on. */
static int live_inputs(const AxMugraph *g) {
  bool *live = calloc((size_t)g->ntensors + 1, sizeof(bool));
  for (int i = 0; i < g->noutputs; i++) live[g->outputs[i]] = true;
  for (int i = g->nstmts - 1; i >= 0; i--) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind == AX_KS_OP && live[st->t])
      for (int j = 0; j < st->nin; j++) live[st->in[j]] = true;
  }
  int mask = 0, input = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_INPUT) continue;
    if (input < 31 && live[st->t]) mask |= 1 << input;
    input++;
  }
  free(live);
  return mask;
}

/* Whether st is x op c for a literal c: add or mul with a literal on either side, sub or div
 * with one on the right (c - x and c / x need the tensor operator). */
static bool by_literal(const AxMugraph *g, const AxKStmt *st) {
  if (st->nin != 2) return false;
  bool l = g->tensors[st->in[0]].anon, r = g->tensors[st->in[1]].anon;
  switch (st->op) {
  case AX_OP_ADD:
  case AX_OP_MUL: return l != r;
  case AX_OP_SUB:
  case AX_OP_DIV: return r && !l;
  default: return false;
  }
}

/* Whether a reduce_max of the program reads a masked select's result: softmax's shift over
 * a masked score, as causal attention writes it. */
static bool max_of_masked(const AxMugraph *g, const MaskSel *ms, int n) {
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_OP || st->op != AX_OP_REDUCE_MAX || st->nin != 1) continue;
    for (int k = 0; k < n; k++)
      if (g->stmts[ms[k].stmt].t == st->in[0]) return true;
  }
  return false;
}

bool ax_generate_prepare(SearchState *s, AxDiag *d) {
  const AxMugraph *prog = s->prog;
  char *ix = NULL;
  s->nmasks = 0;
  s->masked_max = false;
  if (ax_generate_reads_masks(prog)) {
    ix = index_values(prog);
    s->nmasks = masked_selects(prog, ix, s->masks);
    s->masked_max = s->nmasks > 0 && max_of_masked(prog, s->masks, s->nmasks);
  }
  if (!classes(s, ix, d)) {
    free(ix);
    return false;
  }
  /* the masks' iotas have sizes of their own: a scaled-down instance would not keep them */
  s->scalable = s->nmasks == 0;
  s->live_inputs = live_inputs(prog);
  for (int i = 0; i < prog->nstmts; i++) {
    const AxKStmt *st = &prog->stmts[i];
    if (st->kind != AX_KS_OP) continue;
    /* the masks are built whole (masked_step), not from the generator's operators */
    if (ix && (ix[st->t] || is_masked(s->masks, s->nmasks, i))) continue;
    AxOp op = st->op;
    /* an element-wise operator with a literal operand is a scalar operator (scalars()): the
     * same constant factor or term whichever operator wrote it (`* 0.125`, `/ 8`), so it
     * brings no tensor-by-tensor operator, which would widen every block graph of one
     * written form and not the other's */
    if (by_literal(prog, st)) continue;
    s->opmask |= bit(op);
    /* mean by a sum; rms_norm by its parts (eq_rms_def: x / sqrt(mean(x * x))) */
    const AxPOp *p = ax_pop_get(op);
    if (p) s->opmask |= p->also;
    /* a reduction to a size: the scaled instance could not keep it */
    if (st->at.to > 1) s->scalable = false;
  }
  free(ix);
  s->opmask |= written_forms(prog, s->masks, s->nmasks);
  /* x - y is x + y·(-1): with a scalar operator, an addition does what a subtraction does */
  if (s->opmask & bit(AX_OP_SUB)) s->opmask |= bit(AX_OP_ADD);
  return true;
}

/* --- building candidates ------------------------------------------------------------- */

static int64_t sz(const SizeMap *m, int c, int64_t v) {
  return m && c >= 0 && c < MAXC && m->cls[c] ? m->cls[c] : v;
}

/* Names of the candidate's kernel tensors, block nodes and kernels, by index. */
_Static_assert(MAXT == 16 && MAXN == 16 && MAXS == 6, "a name for every index");
static const char *const tnames[MAXT] = {"t0", "t1", "t2",  "t3",  "t4",  "t5",  "t6",  "t7",
                                         "t8", "t9", "t10", "t11", "t12", "t13", "t14", "t15"};
static const char *const nnames[MAXN] = {"n0", "n1", "n2",  "n3",  "n4",  "n5",  "n6",  "n7",
                                         "n8", "n9", "n10", "n11", "n12", "n13", "n14", "n15"};
static const char *const knames[MAXS + 1] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6"};

/* A block node that is fused with the next one into a thread graph: both element-wise, of
 * one phase, and the next the only reader of this one. */
static bool fuses(const BlockGraph *b, int i) {
  if (i + 1 >= b->nn) return false;
  const BlockNode *x = &b->n[i], *y = &b->n[i + 1];
  if (x->kind != AX_BN_OP || y->kind != AX_BN_OP) return false;
  if (x->mask || y->mask) return false;   /* written as several block operators */
  if (!ax_op_is_elementwise(x->op) || !ax_op_is_elementwise(y->op)) return false;
  if (x->phase != y->phase || x->uses != 1) return false;
  return y->in[0] == i || (y->nin > 1 && y->in[1] == i);
}

/* An operator's attributes as the graph holds them: `to` 0 when it is 1 (not written). */
static AxTAttrs attrs(bool axis_set, int axis, int64_t to, int to_cls, const SizeMap *m) {
  AxTAttrs at = {0};
  at.axis_set = axis_set;
  at.axis = axis;
  at.to = to > 1 ? sz(m, to_cls, to) : 0;
  return at;
}

/* --- writing a masked step ------------------------------------------------------------ */

static int iota_cut(const SearchState *s, const BlockGraph *b, const BlockNode *x, int d);

/* Kernel k being written, masked step `node` of block graph b on tile x: the nodes of its
 * mask and fill, named m<node>_<j>, each dim of the select with one block iota. */
typedef struct MaskOut {
  AxArena *a;
  AxKernel *k;
  const SearchState *s;
  const BlockGraph *b;
  const BlockNode *x;
  int t;                  /* the program's select: its result */
  int node, nmade;
  int iota[AX_MAXRANK];   /* the select's dim d -> the kernel node of its block iota, -1 none */
} MaskOut;

/* An operand as it is written: a kernel node, or a literal (node -1) put just before the
 * operator that reads it, as the parser places an inline constant. */
typedef struct MaskArg {
  int node;
  const char *text;
  AxRat value;
} MaskArg;

static AxBNode *mask_node(MaskOut *o, AxOp op) {
  AxBNode *y = &o->k->nodes[o->k->nnodes++];
  memset(y, 0, sizeof *y);
  y->kind = AX_BN_OP;
  y->op = op;
  y->thread = -1;
  y->src = y->dst = -1;
  y->fmap = -1;
  for (int d = 0; d < 3; d++) y->imap[d] = y->omap[d] = -1;
  char nm[32];
  snprintf(nm, sizeof nm, "m%d_%d", o->node, o->nmade++);
  y->name = ax_arena_strdup(o->a, nm);
  return y;
}

/* The kernel node of operand v (a literal becomes its constant node now). */
static int mask_arg(MaskOut *o, MaskArg v) {
  if (v.node >= 0) return v.node;
  AxBNode *y = mask_node(o, AX_OP_CONSTANT);
  o->nmade--;   /* printed as its literal: no name of its own */
  y->anon = true;
  y->name = y->text = v.text;
  y->at.value = v.value;
  return o->k->nnodes - 1;
}

/* op of operands v[0..n) as a new kernel node. */
static MaskArg mask_op(MaskOut *o, AxOp op, const MaskArg *v, int n) {
  int in[AX_MAXIN];
  for (int j = 0; j < n; j++) in[j] = mask_arg(o, v[j]);
  AxBNode *y = mask_node(o, op);
  y->nin = n;
  for (int j = 0; j < n; j++) y->in[j] = in[j];
  return (MaskArg){o->k->nnodes - 1, NULL, {0, 1}};
}

/* The block iota of the select's dim d: the kernel-level iota of the select's size along d
 * (1 along the others), cut by the grid axis and the for-loop that cut the value's tile
 * (iota_cut), so that each element holds its global index along d. */
static MaskArg block_iota(MaskOut *o, int d) {
  if (o->iota[d] < 0) {
    const AxTShape *sh = &o->s->prog->tensors[o->t].shape;
    AxBNode *y = mask_node(o, AX_OP_IOTA);
    y->at.shape.rank = sh->rank;
    for (int e = 0; e < sh->rank; e++) y->at.shape.dim[e] = e == d ? sh->dim[d] : 1;
    y->at.axis = d, y->at.axis_set = true;
    for (int a = 0; a < 3; a++)
      if (o->b->grid[a] > 1 && o->b->gcls[a] == o->x->cls[d]) y->imap[a] = d;
    if (iota_cut(o->s, o->b, o->x, d) == 1) y->fmap = d;
    o->iota[d] = o->k->nnodes - 1;
  }
  return (MaskArg){o->iota[d], NULL, {0, 1}};
}

/* Writes index value t of the program, its dim e seen as the select's dim dmap[e] (-1: of
 * size 1), into *v; returns the select's dims it varies along (a bit each), -1 when it
 * cannot be written. As greedy.h writes an index value inside a kernel. */
static int mask_value(MaskOut *o, int t, const int *dmap, MaskArg *v) {
  const AxMugraph *g = o->s->prog;
  const AxKTensor *kt = &g->tensors[t];
  if (kt->anon) {
    *v = (MaskArg){-1, kt->text, kt->value};
    return 0;
  }
  const AxKStmt *st = &g->stmts[kt->stmt];
  if (st->op == AX_OP_IOTA) {
    if (dmap[st->at.axis] < 0) {   /* the index along a dim of size 1 */
      *v = (MaskArg){-1, "0", {0, 1}};
      return 0;
    }
    *v = block_iota(o, dmap[st->at.axis]);
    return 1 << dmap[st->at.axis];
  }
  int rt = kt->shape.rank, dm[AX_MAXIN][AX_MAXRANK];
  for (int j = 0; j < st->nin; j++) {
    const AxTShape *is = &g->tensors[st->in[j]].shape;
    if (st->op == AX_OP_RESHAPE) {   /* the dims other than 1 correspond in order */
      int e = 0;
      for (int d = 0; d < is->rank; d++) {
        dm[j][d] = -1;
        if (is->dim[d] == 1) continue;
        while (kt->shape.dim[e] == 1) e++;
        dm[j][d] = dmap[e++];
      }
    } else   /* broadcast and the element-wise operators: aligned on the right */
      for (int d = 0; d < is->rank; d++) dm[j][d] = is->dim[d] == 1 ? -1 : dmap[d + rt - is->rank];
  }
  if (st->op == AX_OP_BROADCAST || st->op == AX_OP_RESHAPE) return mask_value(o, st->in[0], dm[0], v);
  MaskArg arg[AX_MAXIN];
  int cover = 0;
  for (int j = 0; j < st->nin; j++) {
    int r = mask_value(o, st->in[j], dm[j], &arg[j]);
    if (r < 0) return -1;
    cover |= r;
  }
  if (!cover) return -1;
  *v = mask_op(o, st->op, arg, st->nin);
  return cover;
}

/* Operand t (the mask or the fill) of the select, widened to every dim of the select other
 * than 1 that it does not vary along by adding a zero made of that dim's block iota (the
 * select takes three tiles of one shape), never a data tile's zero, whose infinities would
 * make NaN. */
static int mask_operand(MaskOut *o, int t) {
  const AxMugraph *g = o->s->prog;
  const AxTShape *sh = &g->tensors[t].shape, *os = &g->tensors[o->t].shape;
  int dmap[AX_MAXRANK], need = 0;
  for (int d = 0; d < sh->rank; d++) dmap[d] = sh->dim[d] == 1 ? -1 : d + os->rank - sh->rank;
  for (int d = 0; d < os->rank; d++)
    if (os->dim[d] > 1) need |= 1 << d;
  MaskArg v;
  int cover = mask_value(o, t, dmap, &v);
  AX_ASSERT(cover >= 0);   /* index_values: every written index value varies */
  for (int d = 0; d < os->rank; d++) {
    if (!((need & ~cover) >> d & 1)) continue;
    MaskArg z[2] = {block_iota(o, d), {-1, "0", {0, 1}}};
    MaskArg sum[2] = {mask_op(o, AX_OP_MUL, z, 2), v};
    v = mask_op(o, AX_OP_ADD, sum, 2);
  }
  return mask_arg(o, v);
}

/* Writes the mask and the fill of masked step n (block node i, its value at kernel node
 * value) into k, then returns the select's operands in in[0..3). */
static void build_mask(AxArena *a, AxKernel *k, const SearchState *s, const BlockGraph *b, const BlockNode *n,
                       int i, int value, int *in) {
  const MaskSel *ms = &s->masks[n->mask - 1];
  const AxKStmt *st = &s->prog->stmts[ms->stmt];
  MaskOut o = {a, k, s, b, &b->n[n->in[0]], st->t, i, 0, {0}};
  for (int d = 0; d < AX_MAXRANK; d++) o.iota[d] = -1;
  in[0] = mask_operand(&o, st->in[0]);
  in[ms->value] = value;
  in[3 - ms->value] = mask_operand(&o, st->in[3 - ms->value]);
}

/* Kernel nodes a masked step may write besides its select (mask_node's bound). */
static int mask_bound(const SearchState *s) { return 2 * s->prog->nstmts + 4 * AX_MAXRANK + 8; }

/* The block graph of b as kernel `kname` of g; tm maps the search's kernel tensors to g's
 * (savers add theirs). */
static void build_block(AxArena *a, AxMugraph *g, int *tcap, const SearchState *ss, const BlockGraph *b,
                        const char *kname, const char *const *names, int *tm, const SizeMap *m,
                        const Scalar *sc) {
  int s = g->nstmts - 1;
  AxKernel *k = ax_arena_alloc(a, sizeof *k);
  g->stmts[s].kind = AX_KS_KERNEL;
  g->stmts[s].kernel = k;
  g->stmts[s].note.blank = true;   /* a blank line before every kernel */
  k->name = kname;
  for (int d = 0; d < 3; d++) k->grid[d] = b->grid[d];
  k->block[0] = 128, k->block[1] = k->block[2] = 1;
  k->forloop = b->R;
  /* a scalar operator's constant is an anonymous node just before it (as the parser
   * makes it): pos[i] is where node i of b lands */
  int pos[MAXN], nsc = 0;
  for (int i = 0; i < b->nn; i++) nsc += b->n[i].scalar > 0 ? 1 : b->n[i].mask ? mask_bound(ss) : 0;
  k->nodes = ax_arena_alloc(a, sizeof *k->nodes * (size_t)(b->nn + nsc + 1));
  memset(k->nodes, 0, sizeof *k->nodes * (size_t)(b->nn + nsc + 1));
  k->nnodes = 0;
  bool in_thread = false;
  for (int i = 0; i < b->nn; i++) {
    const BlockNode *n = &b->n[i];
    int cpos = -1;
    if (n->scalar) {
      const Scalar *c = &sc[n->scalar - 1];
      AxBNode *y = &k->nodes[k->nnodes];
      cpos = k->nnodes++;
      y->kind = AX_BN_OP;
      y->op = AX_OP_CONSTANT;
      y->anon = true;
      y->name = y->text = ax_arena_strdup(a, c->text);
      y->at.value = c->c;
      y->thread = -1;
      y->src = y->dst = -1;
      y->fmap = -1;
      for (int d = 0; d < 3; d++) y->imap[d] = y->omap[d] = -1;
    }
    int sel[3];
    if (n->mask) build_mask(a, k, ss, b, n, i, pos[n->in[0]], sel);
    pos[i] = k->nnodes;
    AxBNode *x = &k->nodes[k->nnodes++];
    x->kind = n->kind;
    x->name = nnames[i];
    x->thread = -1;
    x->src = x->dst = -1;
    x->fmap = -1;
    for (int d = 0; d < 3; d++) x->imap[d] = x->omap[d] = -1;
    x->nin = n->kind == AX_BN_ITER ? 0 : n->nin;
    for (int j = 0; j < x->nin; j++) x->in[j] = pos[n->in[j]];
    if (cpos >= 0) x->in[x->nin++] = cpos;
    if (n->mask) {
      x->nin = 3;
      for (int j = 0; j < 3; j++) x->in[j] = sel[j];
    }
    switch (n->kind) {
    case AX_BN_ITER:
      x->src = tm[n->src];
      for (int d = 0; d < 3; d++) x->imap[d] = n->imap[d];
      x->fmap = n->fmap;
      break;
    case AX_BN_OP:
      /* consecutive fused operators form one thread graph */
      if (!in_thread && fuses(b, i)) in_thread = true, k->nthreads++;
      if (in_thread) x->thread = k->nthreads - 1;
      if (cpos >= 0) k->nodes[cpos].thread = x->thread;
      if (in_thread && !fuses(b, i)) in_thread = false;
      x->op = n->op;
      x->at = attrs(n->axis_set, n->axis, n->to, n->to_cls, m);
      break;
    case AX_BN_ACCUM:
      x->acc = n->acc;
      x->at = attrs(n->axis_set, n->axis, 0, -1, NULL);
      x->rescaled = n->rescale > 0;
      if (x->rescaled) x->rescale = pos[n->rescale - 1];
      break;
    case AX_BN_SAVE: {
      for (int d = 0; d < 3; d++) x->omap[d] = n->omap[d];
      int t = ax_mug_new_tensor(a, g, tcap);
      g->tensors[t].name = names[n->dst];
      g->tensors[t].stmt = s;
      x->name = names[n->dst];
      x->dst = tm[n->dst] = t;
      break;
    }
    }
  }
}

AxMugraph *ax_generate_candidate(AxArena *a, const Worker *w, const int *outs, const SizeMap *m) {
  const AxMugraph *p = w->s->prog;
  AxMugraph *g = ax_arena_alloc(a, sizeof *g);
  g->name = p->name;
  const char *names[MAXT];
  for (int t = 0; t < w->nkt; t++) names[t] = w->kt[t].stmt < 0 ? w->kt[t].name : tnames[t];
  for (int i = 0; i < p->noutputs; i++) names[outs[i]] = p->tensors[p->outputs[i]].name;
  int tm[MAXT], tcap = 0, scap = 0;
  for (int t = 0; t < w->nkt; t++) {
    if (w->kt[t].stmt >= 0) continue;
    AxKStmt *st = ax_mug_new_stmt(a, g, &scap);
    st->kind = AX_KS_INPUT;
    st->t = tm[t] = ax_mug_new_tensor(a, g, &tcap);
    AxKTensor *x = &g->tensors[tm[t]];
    x->name = names[t];
    x->dtype = w->kt[t].dt;
    x->stmt = g->nstmts - 1;
    x->shape.rank = w->kt[t].shape.rank;
    for (int d = 0; d < x->shape.rank; d++) x->shape.dim[d] = sz(m, w->kt[t].cls[d], w->kt[t].shape.dim[d]);
  }
  int k = 0;
  for (int i = 0; i < w->nks; i++) {
    const KernelStmt *ks = &w->ks[i];
    AxKStmt *st = ax_mug_new_stmt(a, g, &scap);
    if (ks->kernel) {
      build_block(a, g, &tcap, w->s, &ks->blk, knames[++k], names, tm, m, w->sc);
      continue;
    }
    st->kind = AX_KS_OP;
    st->op = ks->op;
    st->nin = ks->nin;
    for (int j = 0; j < ks->nin; j++) st->in[j] = tm[ks->in[j]];
    st->at = attrs(ks->axis_set, ks->axis, ks->to, ks->to_cls, m);
    int t = ax_mug_new_tensor(a, g, &tcap);
    g->stmts[g->nstmts - 1].t = tm[ks->out] = t;
    g->tensors[t].name = names[ks->out];
    g->tensors[t].stmt = g->nstmts - 1;
  }
  AxKStmt *st = ax_mug_new_stmt(a, g, &scap);
  st->kind = AX_KS_OUTPUT;
  st->nouts = g->noutputs = p->noutputs;
  st->outs = g->outputs = ax_arena_alloc(a, sizeof(int) * (size_t)(p->noutputs + 1));
  for (int i = 0; i < p->noutputs; i++) st->outs[i] = tm[outs[i]];
  return g;
}

AxMugraph *ax_generate_scaled_program(AxArena *a, const AxMugraph *p, const int *tcls, const SizeMap *m) {
  AxMugraph *g = ax_arena_alloc(a, sizeof *g);
  *g = *p;
  g->tensors = ax_arena_alloc(a, sizeof *g->tensors * (size_t)(p->ntensors + 1));
  memcpy(g->tensors, p->tensors, sizeof *g->tensors * (size_t)p->ntensors);
  for (int i = 0; i < p->nstmts; i++) {
    if (p->stmts[i].kind != AX_KS_INPUT) continue;
    AxKTensor *t = &g->tensors[p->stmts[i].t];
    for (int d = 0; d < t->shape.rank; d++)
      t->shape.dim[d] = sz(m, tcls[p->stmts[i].t * AX_MAXRANK + d], t->shape.dim[d]);
  }
  return g;
}

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

static void need(SizeMap *m, int c, int64_t cut) {
  if (!m->cls[c]) m->cls[c] = 1;
  m->cls[c] = m->cls[c] / gcd64(m->cls[c], cut) * cut;
}

void ax_generate_scale_map(const Worker *w, SizeMap *m) {
  memset(m, 0, sizeof *m);
  const SearchState *s = w->s;
  for (int t = 0; t < w->nkt; t++)
    if (w->kt[t].stmt < 0)
      for (int d = 0; d < w->kt[t].shape.rank; d++) need(m, w->kt[t].cls[d], 1);
  for (int i = 0; i < w->nks; i++) {
    if (!w->ks[i].kernel) continue;
    const BlockGraph *b = &w->ks[i].blk;
    for (int j = 0; j < b->nn; j++) {
      const BlockNode *n = &b->n[j];
      if (n->kind != AX_BN_ITER) continue;
      for (int d = 0; d < n->shape.rank; d++) {
        int c = n->cls[d];
        if (s->cls[c].outer) continue;
        need(m, c, n->cut[d]);
      }
    }
  }
  for (int c = 1; c < s->ncls && c < MAXC; c++) {
    if (!m->cls[c] || s->cls[c].outer) {
      m->cls[c] = 0;
      continue;
    }
    int64_t v = s->cls[c].size, cut = m->cls[c];
    int64_t want = v < 8 ? v : 8;
    int64_t k = 1;
    while (cut * k < want) k++;
    int64_t to = cut * k;
    if (to > v || v % to != 0) to = v;
    m->cls[c] = to;
  }
}

/* --- complete candidates ------------------------------------------------------------- */

/* The program outputs all reached (no dead tensor left): hand the candidate to the
 * driver and say so. */
static bool complete(Worker *w) {
  const AxMugraph *g = w->s->prog;
  int outs[MAXT];
  for (int i = 0; i < g->noutputs; i++) {
    outs[i] = -1;
    const AxTShape *os = &g->tensors[g->outputs[i]].shape;
    for (int t = w->nkt - 1; t >= 0 && outs[i] < 0; t--)
      if (w->kt[t].expr == w->spec[i] && w->kt[t].stmt >= 0 && ax_shape_equal(&w->kt[t].shape, os))
        outs[i] = t;
    if (outs[i] < 0) return false;
  }
  for (int t = 0; t < w->nkt; t++) {
    bool is_out = false;
    for (int i = 0; i < g->noutputs; i++) is_out |= outs[i] == t;
    if (!is_out && w->kt[t].uses == 0 && w->kt[t].stmt >= 0) return false;
  }
  Memo *m = w->recording;
  if (m && w->nks == w->kernel_limit) {
    const KernelStmt *last = &w->ks[w->nks - 1];
    int nout = last->kernel ? last->nouts : 1;
    if (nout <= MAX_SAVES) {
      if (m->nsuf == m->capsuf) {
        int cap = m->capsuf ? 2 * m->capsuf : 4;
        ax_mem_take(sizeof(Suffix) * (size_t)(cap - m->capsuf));   /* search state: before it grows */
        m->capsuf = cap;
        m->suf = ax_xrealloc(m->suf, sizeof(Suffix) * (size_t)m->capsuf);
      }
      Suffix *x = &m->suf[m->nsuf++];
      x->ks = *last;
      x->nkt = nout;
      for (int i = 0; i < nout; i++) x->kt[i] = w->kt[w->nkt - nout + i];
    }
  }
  w->s->emit(w, outs);
  return true;
}

/* --- stopping ------------------------------------------------------------------------- */

static bool stop(Worker *w) {
  SearchState *s = w->s;
  if (s->stop) return true;
  if (w->states - w->reported >= 256) {
    pthread_mutex_lock(&s->mu);
    s->states += w->states - w->reported;
    s->pruned += w->pruned - w->reported_pruned;
    w->reported = w->states;
    w->reported_pruned = w->pruned;
    if ((s->deadline > 0 && ax_clock_s() > s->deadline) ||
        (s->o->max_states > 0 && s->states >= s->o->max_states))
      s->stop = true;
    pthread_mutex_unlock(&s->mu);
  }
  return s->stop;
}

/* Prefix split: at the top of the tree, choice number i belongs to worker i mod jobs. */
static bool mine(Worker *w) {
  if (w->depth > 0) return true;
  return w->top_index++ % w->jobs == w->id;
}

/* --- block graphs --------------------------------------------------------------------- */

static void kdfs(Worker *w);

static bool prune_out(Worker *w, AxAId e) {
  if (e < 0) return true;
  if (!w->s->o->prune) return false;
  if (ax_prune_is_sub(w->abs, e)) return false;
  w->pruned++;
  return true;
}

/* Element-wise operands (right-aligned): equal dims agree in class and cut. */
static bool ew_shape(const BlockNode *a, const BlockNode *b, BlockNode *out) {
  const BlockNode *big = a->shape.rank >= b->shape.rank ? a : b;
  out->shape = big->shape;
  memcpy(out->cls, big->cls, sizeof out->cls);
  memcpy(out->cut, big->cut, sizeof out->cut);
  for (int k = 1; k <= a->shape.rank && k <= b->shape.rank; k++) {
    int i = a->shape.rank - k, j = b->shape.rank - k, o = out->shape.rank - k;
    int64_t x = a->shape.dim[i], y = b->shape.dim[j];
    if (x == 1 && y == 1) continue;
    if (x == 1 || y == 1) {
      const BlockNode *src = x == 1 ? b : a;
      int si = x == 1 ? j : i;
      out->shape.dim[o] = src->shape.dim[si];
      out->cls[o] = src->cls[si];
      out->cut[o] = src->cut[si];
      continue;
    }
    if (x != y || a->cls[i] != b->cls[j] || a->cut[i] != b->cut[j]) return false;
  }
  return true;
}

/* Shared memory of b's tiles for the generator's cut: 2 bytes an element, the narrowest
 * storage type, whatever a tile's type (accumulators: their f32 state), so that the cut
 * never drops a graph for its tiles' types; validation (mugraph.c) and the cost model count
 * each tile by its own. */
static int64_t tile_bytes(const BlockGraph *b) {
  int64_t t = 0;
  for (int i = 0; i < b->nn; i++)
    if (b->n[i].kind != AX_BN_SAVE)
      t += ax_shape_numel(&b->n[i].shape) * (b->n[i].kind == AX_BN_ACCUM ? 4 : 2);
  return t;
}

/* Canonical key of node i (deepest operand, kind/operator, operands, axis). */
_Static_assert(AX_OP_COUNT + AX_ACC_MAX < 128, "a key's code holds every operator and accumulator");
static int64_t key(const BlockNode *n) {
  int hi = n->in[0];
  if (n->nin > 1 && n->in[1] > hi) hi = n->in[1];
  int code = n->kind == AX_BN_ACCUM ? AX_OP_COUNT + (int)n->acc : (int)n->op;
  int64_t k = hi;
  k = k * 128 + code;
  k = k * MAXN + n->in[0];
  _Static_assert(MAX_SCALARS + MAX_MASKS < MAXN, "a key tells scalar operators and masks apart");
  k = k * MAXN + (n->nin > 1 ? n->in[1] : n->scalar ? MAXN - n->scalar : n->mask ? MAXN - MAX_SCALARS - n->mask : 0);
  k = k * 16 + (n->axis_set ? n->axis + 1 : 0);
  k = k * 4 + (n->to > 1);
  return k;
}

static void bdfs(Worker *w, BlockGraph *b);
static void try_node(Worker *w, BlockGraph *b, BlockNode *n);
static AxPhase join(AxPhase a, AxPhase b, bool *ok, int64_t R);
static bool reducible(const SearchState *s, int c);
static void masked_step(Worker *w, BlockGraph *b, int i, int k);

/* --- online softmax: the running max and the sums rescaled by it ---------------------- */

/* Whether n is a running max (accum max): the loop reads its value after this iteration's
 * update, the post phase its final value. */
static bool running(const BlockNode *n) { return n->kind == AX_BN_ACCUM && n->acc == AX_ACC_MAX; }

/* BlockNode.run of operator n: the running max its operands depend on, -1 when two. */
static int run_of(const BlockGraph *b, const BlockNode *n) {
  int r = 0;
  for (int j = 0; j < n->nin; j++) {
    const BlockNode *a = &b->n[n->in[j]];
    int q = running(a) ? n->in[j] + 1 : a->run;
    if (q) r = r == 0 || r == q ? q : -1;
  }
  return r;
}

/* The block nodes graph b may hold once n is added (n NULL: as it is): the level's limit,
 * and one more where b has a running max. The online form of a one-pass graph needs a
 * node the one-pass form does not: the one-pass form divides by its sum before the
 * numerator's reduction (softmax @ V), the online one accumulates the numerator and the
 * denominator apart, each rescaled, and divides after the loop — FlashAttention is 11
 * nodes where the fused one-pass attention is 10. Counting the running max as free keeps
 * the two forms on one level; only graphs with an accum max, which are built only where
 * the program takes a max, grow (docs/superopt.md §10, "Online softmax"). */
static int node_limit(const Worker *w, const BlockGraph *b, const BlockNode *n) {
  /* a masked select is one step too (masked_step): the graph that writes it holds one node
   * the program's other graphs do not need, and only programs with a mask build one */
  bool run = n && running(n), mask = n && n->kind == AX_BN_OP && n->mask;
  for (int i = 0; i < b->nn; i++) {
    run |= running(&b->n[i]);
    mask |= b->n[i].kind == AX_BN_OP && b->n[i].mask;
  }
  return w->block_limit + run + mask;
}

/* Whether n, of the post phase, may compute the expression that x, of the loop phase,
 * already has: with a running max the loop's value is relative to this iteration's max and
 * holds one tile, so the post phase recomputes it from a concatenation or a whole tile
 * against the final max (softmax's output, normalized after the loop). Abstract
 * expressions forget both differences (prune.h: the running max is the final one). */
static bool recomputed(const BlockGraph *b, const BlockNode *x, const BlockNode *n) {
  if (b->R == 1 || x->phase != AX_PH_LOOP || n->phase != AX_PH_POST) return false;
  for (int i = 0; i < b->nn; i++)
    if (running(&b->n[i])) return true;
  return false;
}

/* The phase of a binary operator on x and y. A running max goes with either phase: with
 * a loop value it is read in the loop, otherwise after it (the validator's rule). */
static AxPhase phase2(const BlockNode *x, const BlockNode *y, bool *ok, int64_t R) {
  if (running(x) && running(y)) return AX_PH_POST;
  if (running(x) || running(y)) {
    AxPhase p = running(x) ? y->phase : x->phase;
    return p == AX_PH_INVARIANT ? AX_PH_POST : p;
  }
  return join(x->phase, y->phase, ok, R);
}

/* Whether running max m broadcasts onto accumulator state n: each dim equal (of one class)
 * or 1 in m. */
static bool rescalable(const BlockNode *m, const BlockNode *n) {
  if (m->shape.rank != n->shape.rank) return false;
  for (int d = 0; d < n->shape.rank; d++)
    if (m->shape.dim[d] != 1 && (m->shape.dim[d] != n->shape.dim[d] || m->cls[d] != n->cls[d])) return false;
  return true;
}

/* The online-softmax accumulators of loop value x (node i), for-loop R > 1. Where the
 * program takes a max over the class the loop walks: the running max of x along an axis of
 * that class, `accum max` — its expression the program's max over the whole class
 * (R tiles). Of a value that depends on one running max m: the sums the plain
 * accumulators would take (over the iterations, and along a reduced axis), rescaled by m
 * (`rescale = m`: the state multiplied by exp(m_prev - m_new) before each tile is added,
 * so that after the loop it is relative to the final max; its expression is the plain sum,
 * to which the rescaling telescopes). Which shift cancels is the equivalence check's to
 * decide, not the generator's: a max used as a value gets its running max too, and the
 * check refuses what depends on it (docs/superopt.md §10, "Online softmax"). */
static void online_accums(Worker *w, BlockGraph *b, int i) {
  SearchState *s = w->s;
  const BlockNode *x = &b->n[i];
  uint64_t m = s->opmask;
  bool lr = reducible(s, b->fcls);
  if (x->run == 0 && (m & bit(AX_OP_REDUCE_MAX)) && lr) {
    for (int a = 0; a < x->shape.rank; a++) {
      if (x->shape.dim[a] == 1 || x->cls[a] != b->fcls) continue;
      BlockNode n = *x;
      n.scalar = 0, n.rescale = 0;
      n.kind = AX_BN_ACCUM, n.acc = AX_ACC_MAX, n.in[0] = i, n.nin = 1, n.uses = 0;
      n.axis = a, n.axis_set = true, n.to = 0, n.phase = AX_PH_POST;
      n.shape.dim[a] = 1, n.cls[a] = CLS_ONE, n.cut[a] = 1;
      n.expr = ax_prune_extremum(w->abs, AX_OP_REDUCE_MAX, b->R * x->shape.dim[a], x->expr);
      try_node(w, b, &n);
    }
  }
  if (x->run <= 0 || !lr) return;
  const BlockNode *mx = &b->n[x->run - 1];
  bool walks = false;
  for (int a = 0; a < x->shape.rank; a++) walks |= x->cls[a] == b->fcls && x->shape.dim[a] > 1;
  if (!walks && (m & bit(AX_OP_DOT) || m & bit(AX_OP_REDUCE))) {
    BlockNode n = *x;
    n.scalar = 0, n.rescale = x->run;
    n.kind = AX_BN_ACCUM, n.acc = AX_ACC_SUM, n.in[0] = i, n.nin = 1, n.uses = 0;
    n.axis_set = false, n.to = 0, n.phase = AX_PH_POST;
    n.expr = ax_prune_sum(w->abs, b->R, x->expr);
    if (rescalable(mx, &n)) try_node(w, b, &n);
  }
  for (int a = 0; a < x->shape.rank && (m & bit(AX_OP_REDUCE)); a++) {
    if (x->shape.dim[a] == 1 || !reducible(s, x->cls[a])) continue;
    BlockNode n = *x;
    n.scalar = 0, n.rescale = x->run;
    n.kind = AX_BN_ACCUM, n.acc = AX_ACC_SUM, n.in[0] = i, n.nin = 1, n.uses = 0;
    n.axis = a, n.axis_set = true, n.to = 0, n.phase = AX_PH_POST;
    n.shape.dim[a] = 1, n.cls[a] = CLS_ONE, n.cut[a] = 1;
    n.expr = ax_prune_sum(w->abs, b->R * x->shape.dim[a], x->expr);
    if (rescalable(mx, &n)) try_node(w, b, &n);
  }
}

/* --- masked selects: the mask made inside the kernel --------------------------------- */

/* How block iotas cut dim d of tile x of class c: 0 as x when the grid alone cuts it, 1 when
 * the grid and the for-loop do, -1 when no block iota can (a class of partial results, or
 * two grid axes over one class). */
static int iota_cut(const SearchState *s, const BlockGraph *b, const BlockNode *x, int d) {
  int c = x->cls[d], axes = 0;
  if (c < 0 || c >= s->ncls || s->cls[c].outer) return -1;
  int64_t pieces = 1;
  for (int a = 0; a < 3; a++)
    if (b->grid[a] > 1 && b->gcls[a] == c) pieces *= b->grid[a], axes++;
  if (axes > 1) return -1;
  if (pieces == x->cut[d]) return 0;
  if (b->R > 1 && b->fcls == c && x->phase == AX_PH_LOOP && pieces * b->R == x->cut[d]) return 1;
  return -1;
}

/* Whether tile x can be the value of masked select k: the select's shape dim by dim, each
 * dim of the program's class and cut by block iotas as x is, so that the iotas give every
 * element of the tile its global index and the mask is the program's. */
static bool mask_fits(const SearchState *s, const BlockGraph *b, const BlockNode *x, int k) {
  const AxMugraph *g = s->prog;
  int t = g->stmts[s->masks[k].stmt].t;
  const AxTShape *o = &g->tensors[t].shape;
  if (x->shape.rank != o->rank) return false;
  for (int d = 0; d < o->rank; d++) {
    if (o->dim[d] == 1) {
      if (x->shape.dim[d] != 1) return false;
      continue;
    }
    if (x->cls[d] != s->tcls[t * AX_MAXRANK + d] || iota_cut(s, b, x, d) < 0) return false;
  }
  return true;
}

/* Masked select k of the program on tile x (node i) as one step of the node limit, as an
 * online accumulator is: the block iotas, the comparison, the fill and the select it is
 * written as (build_mask) do one thing the program names once. Its expression is opaque
 * (ax_prune_masked): pruning keeps it only where x is the program's value of the select,
 * and no axiom rewrites through it. */
static void masked_step(Worker *w, BlockGraph *b, int i, int k) {
  const BlockNode *x = &b->n[i];
  if (x->kind == AX_BN_ACCUM && x->acc == AX_ACC_MAX) return;   /* read as a value only */
  if (!mask_fits(w->s, b, x, k)) return;
  BlockNode n = *x;
  n.scalar = 0, n.rescale = 0;
  n.kind = AX_BN_OP, n.op = AX_OP_SELECT, n.in[0] = i, n.nin = 1, n.uses = 0;
  n.axis_set = false, n.to = 0, n.mask = k + 1;
  n.expr = ax_prune_masked(w->abs, k, x->expr);
  try_node(w, b, &n);
}

/* Appends node n (already shaped) if it passes the checks, recurses, and takes it back. */
static void try_node(Worker *w, BlockGraph *b, BlockNode *n) {
  const AxSearchOpts *o = w->s->o;
  /* a node made from a copy of a masked step is not one */
  if (n->kind != AX_BN_OP || n->op != AX_OP_SELECT) n->mask = 0;
  /* its element type, as validation infers it: the operands have one (a scalar operator's
   * constant and a masked select's mask and fill adapt to its value), which a conversion
   * changes; a pair of two types is no valid graph (mugraph.c), so it is not built */
  n->dt = b->n[n->in[0]].dt;
  if (n->nin > 1 && b->n[n->in[1]].dt != n->dt) return;
  if (n->kind == AX_BN_OP) n->dt = (AxDtype)ax_ewop_result_dtype(n->op, (int)n->dt);
  /* canonical order among the operators */
  int last = b->nn - 1;
  if (b->n[last].kind != AX_BN_ITER && key(n) <= key(&b->n[last])) return;
  w->states++;
  w->by_kernel[w->nkern < 3 ? w->nkern : 3]++;
  /* one tensor per expression: a second is redundant work (concat keeps its operand's) */
  if (!(n->kind == AX_BN_ACCUM && n->acc == AX_ACC_CONCAT))
    for (int i = 0; i < b->nn; i++)
      if (b->n[i].expr == n->expr && !recomputed(b, &b->n[i], n)) return;
  n->run = n->kind == AX_BN_ACCUM ? 0 : run_of(b, n);
  if (n->kind != AX_BN_ACCUM) n->rescale = 0;
  /* every tensor nobody reads must be read by a later operator or saved: an operator
   * leaves at least one unread tensor, a binary one consumes two */
  int unread = 1, budget = node_limit(w, b, n) - b->nn - 1;
  for (int i = 0; i < b->nn; i++)
    if (!b->n[i].uses && i != n->in[0] && !(n->nin > 1 && i == n->in[1])) unread++;
  if (unread - budget > MAX_SAVES) return;
  if (prune_out(w, n->expr)) return;
  b->n[b->nn++] = *n;
  for (int j = 0; j < n->nin; j++) b->n[n->in[j]].uses++;
  if (tile_bytes(b) <= o->target->smem_per_block) bdfs(w, b);
  for (int j = 0; j < n->nin; j++) b->n[n->in[j]].uses--;
  b->nn--;
}

static AxPhase join(AxPhase a, AxPhase b, bool *ok, int64_t R) {
  if (R > 1 && ((a == AX_PH_LOOP && b == AX_PH_POST) || (a == AX_PH_POST && b == AX_PH_LOOP))) *ok = false;
  return a > b ? a : b;
}

/* Closes the kernel: every block tensor nobody reads is saved. */
static void close_kernel(Worker *w, BlockGraph *b) {
  SearchState *s = w->s;
  if (w->nks >= MAXS || w->nkt + MAXN > MAXT + MAXN) return;
  int sinks[MAXN], ns = 0;
  for (int i = 0; i < b->nn; i++) {
    const BlockNode *n = &b->n[i];
    if (n->uses) continue;
    if (n->kind == AX_BN_ITER) return;                     /* an unread input */
    if (n->phase == AX_PH_LOOP && b->R > 1) return;         /* changes every iteration */
    sinks[ns++] = i;
  }
  if (ns == 0 || ns > MAX_SAVES || w->nkt + ns > MAXT) return;
  /* omaps: each grid axis to the sink's tile dim of its class, else to a whole dim */
  int nn0 = b->nn, nkt0 = w->nkt, ncls0 = s->ncls;
  bool ok = true;
  for (int q = 0; q < ns && ok; q++) {
    const BlockNode *src = &b->n[sinks[q]];
    BlockNode sv = {0};
    sv.kind = AX_BN_SAVE;
    sv.in[0] = sinks[q];
    sv.nin = 1;
    sv.phase = AX_PH_POST;
    KernelTensor kt = {0};
    kt.shape = src->shape;
    kt.dt = src->dt;   /* the saved tile's type (not the first input's) */
    kt.expr = src->expr;
    kt.stmt = w->nks;
    int64_t cut[AX_MAXRANK];
    memcpy(cut, src->cut, sizeof cut);
    memcpy(kt.cls, src->cls, sizeof kt.cls);
    bool used[AX_MAXRANK] = {0};
    for (int g = 0; g < 3; g++) {
      sv.omap[g] = -1;
      if (b->grid[g] == 1) continue;
      int d = -1;
      for (int k = 0; k < src->shape.rank && d < 0; k++)
        if (!used[k] && src->cls[k] == b->gcls[g] && cut[k] % b->grid[g] == 0) d = k;
      if (d >= 0) {
        cut[d] /= b->grid[g];
      } else {
        /* partial results side by side: a whole dim, not of a mixed class */
        for (int k = src->shape.rank - 1; k >= 0 && d < 0; k--)
          if (!used[k] && cut[k] == 1 && s->cls[src->cls[k]].outer == 0) d = k;
        if (d < 0 || s->ncls == MAXC) {
          ok = false;
          break;
        }
        pthread_mutex_lock(&s->mu);   /* classes are shared; appended only */
        int c = -1;
        for (int z = 0; z < s->ncls && c < 0; z++)
          if (s->cls[z].outer == b->grid[g] && s->cls[z].inner == src->cls[d]) c = z;
        if (c < 0 && s->ncls < MAXC) {
          c = s->ncls;
          s->cls[c] = (DimClass){b->grid[g] * s->cls[src->cls[d]].size, b->grid[g], src->cls[d]};
          s->ncls++;
        }
        pthread_mutex_unlock(&s->mu);
        if (c < 0) {
          ok = false;
          break;
        }
        kt.cls[d] = c;
      }
      used[d] = true;
      sv.omap[g] = d;
      kt.shape.dim[d] *= b->grid[g];
    }
    for (int k = 0; k < src->shape.rank && ok; k++)
      if (cut[k] != 1) ok = false;                        /* not a whole tensor */
    if (!ok) break;
    if (prune_out(w, kt.expr)) {
      ok = false;
      break;
    }
    sv.dst = w->nkt;
    w->kt[w->nkt++] = kt;
    b->n[b->nn++] = sv;
  }
  (void)ncls0;
  if (ok) {
    KernelStmt *st = &w->ks[w->nks];
    memset(st, 0, sizeof *st);
    st->kernel = true;
    st->blk = *b;
    st->nouts = ns;
    for (int i = 0; i < b->nn; i++)
      if (b->n[i].kind == AX_BN_ITER) w->kt[b->n[i].src].uses++;
    w->nks++;
    w->nkern++;
    w->depth++;
    kdfs(w);
    w->depth--;
    w->nkern--;
    w->nks--;
    for (int i = 0; i < b->nn; i++)
      if (b->n[i].kind == AX_BN_ITER) w->kt[b->n[i].src].uses--;
  }
  b->nn = nn0;
  w->nkt = nkt0;
}

/* The first dim of node n that holds partial results (a class with outer pieces), or -1. */
static int partial_dim(const SearchState *s, const BlockNode *n) {
  for (int d = 0; d < n->shape.rank; d++)
    if (s->cls[n->cls[d]].outer) return d;
  return -1;
}

/* A reducing kernel (headers) first adds the pieces of every partial dim — sum to the
 * inner width — one node at a time; true while such a reduction is still pending (it is
 * generated here and nothing else is). */
static bool reduce_partials(Worker *w, BlockGraph *b) {
  SearchState *s = w->s;
  for (int i = 0; i < b->nn; i++) {
    const BlockNode *x = &b->n[i];
    int a = partial_dim(s, x);
    if (a < 0 || x->uses) continue;
    const DimClass *c = &s->cls[x->cls[a]];
    int64_t to = s->cls[c->inner].size;
    BlockNode n = *x;
    n.scalar = 0;
    n.kind = AX_BN_OP, n.op = AX_OP_REDUCE, n.in[0] = i, n.nin = 1, n.uses = 0;
    n.axis = a, n.axis_set = true, n.to = to, n.to_cls = c->inner;
    n.shape.dim[a] = to;
    n.cls[a] = to == 1 ? CLS_ONE : c->inner;
    n.cut[a] = 1;
    n.expr = ax_prune_apply(w->abs, AX_OP_REDUCE, &x->expr, 1, x->shape.dim[a] / to);
    try_node(w, b, &n);
    return true;
  }
  return false;
}

/* Whether block operators may reduce over class c: a class the program reduces, or a dim of
 * partial results. A graph that sums over a class the program never reduces has lost what
 * the outputs index by it: it is never equivalent, except by a detour that computes the
 * sum and then cancels it — such detours are not built. */
static bool reducible(const SearchState *s, int c) {
  return c >= 0 && (s->cls[c].outer || (c < 64 && (s->red_cls >> c & 1)));
}

static void bdfs(Worker *w, BlockGraph *b) {
  SearchState *s = w->s;
  if (stop(w)) return;
  if (w->reducing && reduce_partials(w, b)) return;
  close_kernel(w, b);
  if (b->nn >= node_limit(w, b, NULL) || b->nn >= MAXN - 4) return;
  uint64_t m = s->opmask;
  int nn = b->nn;
  for (int i = 0; i < nn; i++) {
    const BlockNode *x = &b->n[i];
    if (w->reducing && partial_dim(s, x) >= 0) continue;   /* read by its reduction only */
    /* unary operators and reductions */
    int nun;
    const AxOp *un = ax_ewop_generated(&nun);
    for (int u = 0; u < nun; u++) {
      if (!(m & bit(un[u]))) continue;
      BlockNode n = *x;
      n.scalar = 0;
      n.kind = AX_BN_OP, n.op = un[u], n.in[0] = i, n.nin = 1, n.uses = 0, n.axis_set = false, n.to = 0;
      n.expr = ax_prune_apply(w->abs, un[u], &x->expr, 1, 1);
      try_node(w, b, &n);
    }
    for (int k = 0; k < s->nmasks; k++) masked_step(w, b, i, k);
    /* scalar operators: a constant of the spec, fused like any element-wise operator */
    for (int c = 0; c < w->nsc; c++) {
      BlockNode n = *x;
      n.scalar = 0;
      n.kind = AX_BN_OP, n.op = w->sc[c].op, n.in[0] = i, n.nin = 1, n.uses = 0, n.axis_set = false;
      n.to = 0, n.scalar = c + 1, n.in[1] = MAXN - 1 - c;
      AxAId ins[2] = {x->expr, w->sc[c].expr};
      n.expr = ax_prune_apply(w->abs, w->sc[c].op, ins, 2, 1);
      try_node(w, b, &n);
    }
    for (int a = 0; a < x->shape.rank; a++) {
      if (x->shape.dim[a] == 1 || !reducible(s, x->cls[a])) continue;
      if (m & bit(AX_OP_REDUCE)) {
        int64_t tos[2] = {1, 0};
        const DimClass *c = &s->cls[x->cls[a]];
        if (c->outer && x->cut[a] == 1) tos[1] = s->cls[c->inner].size;
        for (int q = 0; q < 2 && tos[q]; q++) {
          BlockNode n = *x;
          n.scalar = 0;
          n.kind = AX_BN_OP, n.op = AX_OP_REDUCE, n.in[0] = i, n.nin = 1, n.uses = 0;
          n.axis = a, n.axis_set = true, n.to = tos[q], n.to_cls = c->inner;
          n.shape.dim[a] = tos[q];
          n.cls[a] = tos[q] == 1 ? CLS_ONE : c->inner;
          n.cut[a] = 1;
          n.expr = ax_prune_apply(w->abs, AX_OP_REDUCE, &x->expr, 1, x->shape.dim[a] / tos[q]);
          try_node(w, b, &n);
        }
      }
      /* mean over the axis, to 1, where the program takes one: its own reduction in one node.
       * The sum and a scalar operator take two, which a layer norm's one kernel cannot spare
       * (mean-centring, rms_norm, weight, bias and the projection fill 10 nodes with mean,
       * 11 without). Over a tile of a class the grid or the loop cuts it divides by the tile's
       * size: another constant than the program's, which pruning refuses. */
      if ((m & bit(AX_OP_MEAN)) && !s->cls[x->cls[a]].outer) {
        BlockNode n = *x;
        n.scalar = 0;
        n.kind = AX_BN_OP, n.op = AX_OP_MEAN, n.in[0] = i, n.nin = 1, n.uses = 0;
        n.axis = a, n.axis_set = true, n.to = 0;
        n.shape.dim[a] = 1;
        n.cls[a] = CLS_ONE;
        n.cut[a] = 1;
        n.expr = ax_prune_apply(w->abs, AX_OP_MEAN, &x->expr, 1, x->shape.dim[a]);
        try_node(w, b, &n);
      }
      if (m & bit(AX_OP_RMS_NORM)) {
        BlockNode n = *x;
        n.scalar = 0;
        n.kind = AX_BN_OP, n.op = AX_OP_RMS_NORM, n.in[0] = i, n.nin = 1, n.uses = 0;
        n.axis = a, n.axis_set = true, n.to = 0;
        n.expr = ax_prune_apply(w->abs, AX_OP_RMS_NORM, &x->expr, 1, x->shape.dim[a]);
        try_node(w, b, &n);
      }
    }
    /* accumulators; of a value relative to a running max, only the rescaled sums */
    if (b->R > 1 && x->phase == AX_PH_LOOP) online_accums(w, b, i);
    if (b->R > 1 && x->phase == AX_PH_LOOP && x->run == 0) {
      bool lr = reducible(s, b->fcls);   /* a sum over the loop reduces the class it walks */
      bool walks = false;
      for (int a = 0; a < x->shape.rank; a++) walks |= x->cls[a] == b->fcls && x->shape.dim[a] > 1;
      if (!walks && lr && (m & bit(AX_OP_DOT) || m & bit(AX_OP_REDUCE))) {
        BlockNode n = *x;
        n.scalar = 0;
        n.kind = AX_BN_ACCUM, n.acc = AX_ACC_SUM, n.in[0] = i, n.nin = 1, n.uses = 0;
        n.axis_set = false, n.to = 0, n.phase = AX_PH_POST;
        n.expr = ax_prune_sum(w->abs, b->R, x->expr);
        try_node(w, b, &n);
      }
      for (int a = 0; a < x->shape.rank; a++) {
        if (x->shape.dim[a] == 1) continue;
        BlockNode n = *x;
        n.scalar = 0;
        n.kind = AX_BN_ACCUM, n.in[0] = i, n.nin = 1, n.uses = 0, n.axis = a, n.axis_set = true;
        n.to = 0, n.phase = AX_PH_POST;
        if ((m & bit(AX_OP_REDUCE)) && lr && reducible(s, x->cls[a])) {
          n.acc = AX_ACC_SUM;
          n.shape.dim[a] = 1, n.cls[a] = CLS_ONE, n.cut[a] = 1;
          n.expr = ax_prune_sum(w->abs, b->R * x->shape.dim[a], x->expr);
          try_node(w, b, &n);
        }
        if ((m & bit(AX_OP_RMS_NORM)) && x->cls[a] == b->fcls && lr) {
          n = *x;
          n.scalar = 0;
          n.kind = AX_BN_ACCUM, n.in[0] = i, n.nin = 1, n.uses = 0, n.axis = a, n.axis_set = true;
          n.to = 0, n.phase = AX_PH_POST, n.acc = AX_ACC_RMS;
          n.shape.dim[a] = 1, n.cls[a] = CLS_ONE, n.cut[a] = 1;
          n.expr = ax_prune_rms_acc(w->abs, b->R * x->shape.dim[a], x->expr);
          try_node(w, b, &n);
        }
        if (x->cls[a] == b->fcls && x->cut[a] % b->R == 0) {
          n = *x;
          n.scalar = 0;
          n.kind = AX_BN_ACCUM, n.in[0] = i, n.nin = 1, n.uses = 0, n.axis = a, n.axis_set = true;
          n.to = 0, n.phase = AX_PH_POST, n.acc = AX_ACC_CONCAT;
          n.shape.dim[a] *= b->R, n.cut[a] /= b->R;
          n.expr = x->expr;
          try_node(w, b, &n);
        }
      }
    }
    /* binary operators and matmul */
    for (int j = 0; j < nn; j++) {
      const BlockNode *y = &b->n[j];
      if (w->reducing && partial_dim(s, y) >= 0) continue;
      static const AxOp bin[] = {AX_OP_ADD, AX_OP_MUL, AX_OP_SUB, AX_OP_DIV};
      for (size_t u = 0; u < sizeof bin / sizeof bin[0]; u++) {
        AxOp op = bin[u];
        if (!(m & bit(op))) continue;
        if (ax_ewop_commutes(op) && j < i) continue;
        if ((op == AX_OP_SUB || op == AX_OP_DIV) && j == i) continue;
        BlockNode n = {0};
        if (!ew_shape(x, y, &n)) continue;
        bool ok = true;
        n.phase = phase2(x, y, &ok, b->R);
        if (!ok) continue;
        n.kind = AX_BN_OP, n.op = op, n.in[0] = i, n.in[1] = j, n.nin = 2;
        AxAId ins[2] = {x->expr, y->expr};
        n.expr = ax_prune_apply(w->abs, op, ins, 2, 1);
        try_node(w, b, &n);
      }
      if ((m & bit(AX_OP_DOT)) && i != j && x->shape.rank >= 2 && x->shape.rank == y->shape.rank) {
        int r = x->shape.rank;
        if (x->shape.dim[r - 1] != y->shape.dim[r - 2] || x->cls[r - 1] != y->cls[r - 2] ||
            x->cut[r - 1] != y->cut[r - 2])
          continue;
        bool ok = true;
        for (int k = 0; k < r - 2; k++)
          if (x->shape.dim[k] != y->shape.dim[k] || x->cls[k] != y->cls[k]) ok = false;
        if (!ok) continue;
        BlockNode n = *x;
        n.scalar = 0;
        n.phase = phase2(x, y, &ok, b->R);
        if (!ok) continue;
        n.kind = AX_BN_OP, n.op = AX_OP_DOT, n.in[0] = i, n.in[1] = j, n.nin = 2, n.uses = 0;
        n.axis_set = false, n.to = 0;
        n.shape.dim[r - 1] = y->shape.dim[r - 1];
        n.cls[r - 1] = y->cls[r - 1];
        n.cut[r - 1] = y->cut[r - 1];
        AxAId ins[2] = {x->expr, y->expr};
        n.expr = ax_prune_apply(w->abs, AX_OP_DOT, ins, 2, x->shape.dim[r - 1]);
        try_node(w, b, &n);
      }
    }
  }
}

/* Input iterator of kernel tensor t: maps derived from classes. False when a dim does not
 * divide. */
static bool make_iter(Worker *w, const BlockGraph *b, int t, BlockNode *n) {
  const KernelTensor *k = &w->kt[t];
  memset(n, 0, sizeof *n);
  n->kind = AX_BN_ITER;
  n->src = t;
  n->dt = k->dt;
  n->fmap = -1;
  n->expr = k->expr;
  bool used[AX_MAXRANK] = {0};
  int64_t parts[AX_MAXRANK];
  for (int d = 0; d < k->shape.rank; d++) parts[d] = 1;
  for (int g = 0; g < 3; g++) {
    n->imap[g] = -1;
    if (b->grid[g] == 1) continue;
    for (int d = 0; d < k->shape.rank && n->imap[g] < 0; d++)
      if (!used[d] && k->cls[d] == b->gcls[g]) n->imap[g] = d, used[d] = true;
    if (n->imap[g] >= 0) parts[n->imap[g]] *= b->grid[g];
  }
  if (b->R > 1)
    for (int d = 0; d < k->shape.rank && n->fmap < 0; d++)
      if (k->cls[d] == b->fcls) n->fmap = d;
  n->shape.rank = k->shape.rank;
  for (int d = 0; d < k->shape.rank; d++) {
    int64_t p = parts[d] * (n->fmap == d ? b->R : 1);
    if (k->shape.dim[d] % p) return false;
    n->shape.dim[d] = k->shape.dim[d] / p;
    n->cls[d] = k->cls[d];
    n->cut[d] = p;
  }
  n->phase = n->fmap >= 0 ? AX_PH_LOOP : AX_PH_INVARIANT;
  return true;
}

/* Reachability (o->pin): the header matches the pinned graph's next kernel — grid,
 * for-loop, and iterators with the same maps over tensors of the same shapes. */
static bool pin_header(Worker *w, const BlockGraph *b) {
  const AxMugraph *pg = w->s->o->pin;
  const AxKernel *k = NULL;
  for (int i = 0, nk = 0; i < pg->nstmts && !k; i++)
    if (pg->stmts[i].kind == AX_KS_KERNEL && nk++ == w->nkern) k = pg->stmts[i].kernel;
  if (!k || k->forloop != b->R) return false;
  for (int g = 0; g < 3; g++)
    if (k->grid[g] != b->grid[g]) return false;
  int nit = 0;
  for (int i = 0; i < k->nnodes; i++) nit += k->nodes[i].kind == AX_BN_ITER;
  if (nit != b->nn) return false;
  bool used[MAXN] = {false};
  for (int j = 0; j < b->nn; j++) {
    const BlockNode *n = &b->n[j];
    bool hit = false;
    for (int i = 0; i < k->nnodes && !hit; i++) {
      const AxBNode *t = &k->nodes[i];
      if (t->kind != AX_BN_ITER || used[i] || t->fmap != n->fmap) continue;
      if (!ax_shape_equal(&pg->tensors[t->src].shape, &w->kt[n->src].shape)) continue;
      bool same = true;
      for (int g = 0; g < 3; g++) same = same && t->imap[g] == n->imap[g];
      if (same) used[i] = hit = true;
    }
    if (!hit) return false;
  }
  return true;
}

/* Branch and bound: true when statements costing at least floor_s more cannot give a
 * graph that enters the top list (never before the list is full). A prefix whose floor
 * equals the bound is kept: a graph as fast as the worst kept one may still enter it by
 * its text (search.c `enters`), and cutting it or not must not depend on when the bound
 * reached that value. */
static bool beyond(Worker *w, double more) {
  double b;
  __atomic_load(&w->s->bound_s, &b, __ATOMIC_RELAXED);
  if (b > 0 && w->floor_s + more > b) {
    w->cut++;
    return true;
  }
  return false;
}

/* The kernel tensors the next statement must read (a bit mask): when it is the last one
 * the limit allows, every intermediate tensor nobody reads yet — a graph with a dead
 * tensor is never complete (complete()), so the subtree would be wasted. */
static int last_needs(const Worker *w) {
  if (w->nks + 1 < w->kernel_limit) return 0;
  int need = 0;
  for (int t = 0; t < w->nkt; t++)
    if (w->kt[t].stmt >= 0 && w->kt[t].uses == 0) need |= 1 << t;
  /* and every program input the outputs depend on that nothing has read: a graph that
   * never reads it cannot compute them (kernel tensors 0.. are the inputs, in order) */
  for (int t = 0; t < w->nkt && t < 31; t++)
    if (w->kt[t].stmt < 0 && w->kt[t].uses == 0 && (w->s->live_inputs >> t & 1)) need |= 1 << t;
  return need;
}

/* Headers: grid axes (classes in increasing order, sizes dividing them), for-loop, the
 * kernel tensors read. */
static void headers(Worker *w) {
  SearchState *s = w->s;
  const AxSearchOpts *o = s->o;
  int ncls = s->ncls;
  int cand[MAXC], nc = 0;
  for (int c = 1; c < ncls; c++)
    if (s->cls[c].outer == 0 && s->cls[c].size >= 2) cand[nc++] = c;
  int64_t rs[5] = {1, 0, 0, 0, 0};
  int nr = 1;
  for (int i = 0; i < 4 && o->forloops[i]; i++) rs[nr++] = o->forloops[i];
  int need = last_needs(w);
  /* A kernel after one that left partial results is their reducing kernel: it reads every
   * unread partial tensor, has no for-loop, sums each partial dim first and reads the
   * pieces nowhere else (bdfs); as the last statement it reads only the tensors it must.
   * The partials are what the rest of the graph is waiting for, and adding them is all a
   * second kernel of FlashDecoding's split does (docs/superopt.md §10). */
  int part = 0;
  for (int t = 0; t < w->nkt; t++) {
    bool p = false;
    for (int d = 0; d < w->kt[t].shape.rank; d++) p |= s->cls[w->kt[t].cls[d]].outer > 0;
    if (p && w->kt[t].stmt >= 0 && w->kt[t].uses == 0) part |= 1 << t;
  }
  if (part) nr = 1;
  /* a split level's reducing kernel reads only what the first one saved: the first reads
   * every input the outputs depend on */
  if (w->split && w->nks == 0) need |= w->s->live_inputs;
  if (w->split && w->nks > 0 && !part) return;   /* the first kernel left no partials */
  bool saved_reducing = w->reducing;
  BlockGraph *b = malloc(sizeof *b);
  /* axes: 1..max_grid_dims, as an odometer over (class index, size) per axis */
  for (int nax = 1; nax <= o->max_grid_dims && nax <= 3; nax++) {
    int ci[3] = {0, 1, 2};
    if (nax > nc) break;
    for (;;) {
      /* sizes: powers of two dividing the class size, and the size itself */
      int64_t gs[3][16];
      int ng[3];
      for (int a = 0; a < nax; a++) {
        int64_t csz = s->cls[cand[ci[a]]].size;
        ng[a] = 0;
        for (int64_t g = 2; g <= csz && g <= o->max_blocks && ng[a] < 15; g *= 2)
          if (csz % g == 0) gs[a][ng[a]++] = g;
        if ((csz & (csz - 1)) && csz <= o->max_blocks && ng[a] < 16) gs[a][ng[a]++] = csz;
      }
      int gi[3] = {0, 0, 0};
      bool more = true;
      for (int a = 0; a < nax; a++)
        if (ng[a] == 0) more = false;
      while (more) {
        int64_t blocks = 1;
        memset(b, 0, sizeof *b);
        for (int g = 0; g < 3; g++) b->grid[g] = 1, b->gcls[g] = -1;
        for (int a = 0; a < nax; a++) {
          b->grid[a] = gs[a][gi[a]];
          b->gcls[a] = cand[ci[a]];
          blocks *= b->grid[a];
        }
        /* a grid axis splits an output dim, or (at most one, and only when a later
         * kernel can add the pieces) a reduced dim into partial results */
        int partial = 0, pcls = -1;
        bool axes_ok = true;
        for (int a = 0; a < nax; a++) {
          uint64_t cb = (uint64_t)1 << b->gcls[a];
          if (s->out_cls & cb) continue;
          if ((s->red_cls & cb) && w->nkern + 1 < o->max_kernels && w->nks + 1 < w->kernel_limit) partial++, pcls = b->gcls[a];
          else axes_ok = false;
        }
        if (w->split && w->nks == 0 && partial != 1) axes_ok = false;
        if (axes_ok && partial <= 1 && blocks >= o->min_blocks && blocks <= o->max_blocks) {
          for (int ri = 0; ri < nr; ri++) {
            for (int fc = 0; fc < (ri == 0 ? 1 : nc); fc++) {
              b->R = rs[ri];
              b->fcls = ri == 0 ? -1 : cand[fc];
              /* a split level's first kernel splits a reduction over its grid and walks the
               * rest of it in its for-loop (FlashDecoding, split-K): no other loop */
              if (w->split && w->nks == 0 && ri > 0 && b->fcls != pcls) continue;
              int nt = w->nkt;
              for (int mask = 1; mask < (1 << nt); mask++) {
                if ((mask & need) != need || (mask & part) != part) continue;
                if (part && need && mask != need) continue;
                if (stop(w)) goto done;
                if (!mine(w)) continue;
                b->nn = 0;
                bool ok = true, loops = b->R == 1;
                bool mapped[3] = {false, false, false};
                for (int t = 0; t < nt && ok; t++) {
                  if (!(mask & (1 << t))) continue;
                  BlockNode n;
                  if (!make_iter(w, b, t, &n)) {
                    ok = false;
                    break;
                  }
                  if (n.fmap >= 0) loops = true;
                  for (int g = 0; g < 3; g++) mapped[g] |= n.imap[g] >= 0;
                  b->n[b->nn++] = n;
                }
                for (int g = 0; g < 3; g++)
                  if (b->grid[g] > 1 && !mapped[g]) ok = false;
                if (!ok || !loops) continue;
                if (o->pin && !pin_header(w, b)) continue;
                if (tile_bytes(b) > o->target->smem_per_block) continue;
                /* the modelled time of this kernel is at least what its tiles cost to
                 * load; a kernel of partial results needs one more to add them */
                double bytes = 0;
                for (int j = 0; j < b->nn; j++)
                  bytes += (double)ax_shape_numel(&b->n[j].shape) * (double)ax_dtype_bytes(w->kt[b->n[j].src].dt) *
                           (b->n[j].fmap >= 0 ? (double)b->R : 1.0);
                double fl = ax_cost_kernel_floor(o->target, blocks, bytes * (double)blocks);
                if (beyond(w, fl + (partial ? o->target->launch_s : 0))) continue;
                w->states++;
                w->nheaders[w->nkern < 3 ? w->nkern : 3]++;
                w->depth++;
                w->floor_s += fl;
                w->reducing = part != 0;
                bdfs(w, b);
                w->reducing = saved_reducing;
                w->floor_s -= fl;
                w->depth--;
              }
            }
          }
        }
        int a = nax - 1;
        while (a >= 0 && ++gi[a] == ng[a]) gi[a--] = 0;
        if (a < 0) more = false;
      }
      /* next class combination, increasing */
      int a = nax - 1;
      while (a >= 0 && ci[a] == nc - nax + a) a--;
      if (a < 0) break;
      ci[a]++;
      for (int z = a + 1; z < nax; z++) ci[z] = ci[z - 1] + 1;
    }
  }
done:
  free(b);
}

/* --- kernel graphs -------------------------------------------------------------------- */

static void kop(Worker *w, AxOp op, int i, int j, int axis, int64_t to) {
  SearchState *s = w->s;
  const KernelTensor *x = &w->kt[i], *y = j >= 0 ? &w->kt[j] : NULL;
  KernelTensor kt = {0};
  /* one element type per operator, a conversion's own for its result (as in mugraph.c) */
  if (y && y->dt != x->dt) return;
  kt.dt = (AxDtype)ax_ewop_result_dtype(op, (int)x->dt);
  kt.stmt = w->nks;
  kt.shape = x->shape;
  memcpy(kt.cls, x->cls, sizeof kt.cls);
  AxAId ins[2] = {x->expr, y ? y->expr : -1};
  switch (op) {
  case AX_OP_DOT: {
    int r = x->shape.rank;
    if (!y || r < 2 || y->shape.rank != r || x->cls[r - 1] != y->cls[r - 2]) return;
    kt.shape.dim[r - 1] = y->shape.dim[r - 1];
    kt.cls[r - 1] = y->cls[r - 1];
    break;
  }
  case AX_OP_REDUCE:
    kt.shape.dim[axis] = to;
    kt.cls[axis] = to == 1 ? CLS_ONE : s->cls[x->cls[axis]].inner;
    break;
  case AX_OP_RMS_NORM: break;
  default:
    if (y) {
      BlockNode a = {0}, b = {0}, n = {0};
      a.shape = x->shape, b.shape = y->shape;
      memcpy(a.cls, x->cls, sizeof a.cls);
      memcpy(b.cls, y->cls, sizeof b.cls);
      for (int k = 0; k < AX_MAXRANK; k++) a.cut[k] = b.cut[k] = 1;
      if (!ew_shape(&a, &b, &n)) return;
      kt.shape = n.shape;
      memcpy(kt.cls, n.cls, sizeof kt.cls);
    }
  }
  kt.expr = ax_prune_apply(w->abs, op, ins, y ? 2 : 1, ax_pop_reduced(op, &x->shape, axis, to));
  w->states++;
  if (prune_out(w, kt.expr)) return;
  if (beyond(w, s->o->target->launch_s)) return;
  w->floor_s += s->o->target->launch_s;
  KernelStmt *st = &w->ks[w->nks];
  memset(st, 0, sizeof *st);
  st->op = op, st->in[0] = i, st->in[1] = j, st->nin = y ? 2 : 1;
  st->axis = axis, st->axis_set = axis >= 0, st->to = to;
  st->to_cls = op == AX_OP_REDUCE && to > 1 ? s->cls[w->kt[i].cls[axis]].inner : -1;
  st->out = w->nkt;
  w->kt[w->nkt++] = kt;
  w->kt[i].uses++;
  if (y) w->kt[j].uses++;
  w->nks++;
  w->depth++;
  kdfs(w);
  w->depth--;
  w->nks--;
  w->floor_s -= s->o->target->launch_s;
  w->kt[i].uses--;
  if (y) w->kt[j].uses--;
  w->nkt--;
}

static void kbody(Worker *w);

/* The frontier's key: what the search of the remaining statements depends on (limits,
 * counts, and every kernel tensor's expression, type, shape, classes, whether read). */
static unsigned char *frontier(const Worker *w, size_t *len, uint64_t *h) {
  int32_t head[6] = {w->nkt, w->nks, w->nkern, w->kernel_limit, w->block_limit, w->split};
  size_t per = sizeof(int32_t) * 4 + sizeof(int64_t) * AX_MAXRANK + sizeof(int32_t) * AX_MAXRANK;
  size_t n = sizeof head + per * (size_t)w->nkt;
  unsigned char *k = calloc(1, n), *p = k;
  memcpy(p, head, sizeof head), p += sizeof head;
  for (int t = 0; t < w->nkt; t++) {
    const KernelTensor *x = &w->kt[t];
    int32_t a[4] = {x->expr, (int32_t)x->dt, x->uses > 0, x->stmt >= 0};
    memcpy(p, a, sizeof a), p += sizeof a;
    int64_t dims[AX_MAXRANK] = {0};
    int32_t cls[AX_MAXRANK] = {0};
    for (int d = 0; d < x->shape.rank; d++) dims[d] = x->shape.dim[d], cls[d] = x->cls[d];
    memcpy(p, dims, sizeof dims), p += sizeof dims;
    memcpy(p, cls, sizeof cls), p += sizeof cls;
  }
  uint64_t v = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) v = (v ^ k[i]) * 1099511628211ULL;
  *len = n, *h = v;
  return k;
}

/* Replays the recorded last statements of a frontier seen before: the same completions,
 * after the current prefix. */
static void replay(Worker *w, const Memo *m) {
  for (int i = 0; i < m->nsuf && !stop(w); i++) {
    const Suffix *x = &m->suf[i];
    KernelStmt *st = &w->ks[w->nks];
    *st = x->ks;
    if (st->kernel) {
      for (int j = 0; j < st->blk.nn; j++)
        if (st->blk.n[j].kind == AX_BN_ITER) w->kt[st->blk.n[j].src].uses++;
    } else {
      for (int j = 0; j < st->nin; j++) w->kt[st->in[j]].uses++;
    }
    for (int j = 0; j < x->nkt; j++) w->kt[w->nkt + j] = x->kt[j];
    w->nkt += x->nkt;
    w->nks++;
    w->nkern += st->kernel;
    complete(w);
    w->nkern -= st->kernel;
    w->nks--;
    w->nkt -= x->nkt;
    if (st->kernel) {
      for (int j = 0; j < st->blk.nn; j++)
        if (st->blk.n[j].kind == AX_BN_ITER) w->kt[st->blk.n[j].src].uses--;
    } else {
      for (int j = 0; j < st->nin; j++) w->kt[st->in[j]].uses--;
    }
  }
}

/* Kernel graphs. The last statement the limit allows is searched once per frontier:
 * prefixes that differ only inside their kernels (another block graph computing the same
 * saved tensors) reach the same frontier, and the completions found the first time are
 * replayed (each is still costed, filtered and checked as its own graph). What this can
 * lose: a completion the branch and bound cut under the first prefix's floor. */
static void kdfs(Worker *w) {
  SearchState *s = w->s;
  if (stop(w)) return;
  if (complete(w)) return;
  if (w->nks >= w->kernel_limit || w->nks >= MAXS || w->nkt >= MAXT - 2) return;
  if (w->nks + 1 != w->kernel_limit || w->nks == 0 || w->recording || s->o->pin || !s->memo) {
    kbody(w);
    return;
  }
  size_t len;
  uint64_t h;
  unsigned char *k = frontier(w, &len, &h);
  Memo **b = &w->memo[h & (MEMO_BUCKETS - 1)], *m = *b;
  while (m && !(m->h == h && m->klen == len && memcmp(m->key, k, len) == 0)) m = m->next;
  if (m && m->done) {
    free(k);
    w->memo_hits++;
    replay(w, m);
    return;
  }
  if (m || w->nmemo >= MEMO_MAX) {   /* being explored higher up, or the memo is full */
    free(k);
    kbody(w);
    return;
  }
  m = calloc(1, sizeof *m);
  m->h = h, m->key = k, m->klen = len, m->next = *b;
  *b = m;
  w->nmemo++;
  w->recording = m;
  kbody(w);
  w->recording = NULL;
  m->done = !s->stop;
}

static void kbody(Worker *w) {
  SearchState *s = w->s;
  if (w->nkern < s->o->max_kernels) headers(w);
  if ((s->o->pin && !s->pin_ops) || w->split) return;
  /* pre-defined operators; canonical: each statement reads the newest tensor */
  uint64_t m = s->opmask;
  int nt = w->nkt;
  int need = last_needs(w);
  for (int i = 0; i < nt; i++) {
    if (__builtin_popcount((unsigned)need) > 2) break;   /* no operator reads them all */
    for (int j = 0; j < nt; j++) {
      if (w->nks > 0 && i != nt - 1 && j != nt - 1) continue;
      if (need & ~((1 << i) | (1 << j))) continue;
      static const AxOp bin[] = {AX_OP_ADD, AX_OP_MUL, AX_OP_SUB, AX_OP_DIV, AX_OP_DOT};
      for (size_t u = 0; u < sizeof bin / sizeof bin[0]; u++) {
        AxOp op = bin[u];
        if (!(m & bit(op))) continue;
        if (ax_ewop_commutes(op) && j < i) continue;
        if (!ax_ewop_commutes(op) && i == j) continue;
        if (stop(w)) return;
        if (!mine(w)) continue;
        kop(w, op, i, j, -1, 0);
      }
    }
    if (w->nks > 0 && i != nt - 1) continue;
    if (need & ~(1 << i)) continue;
    int nun;
    const AxOp *un = ax_ewop_generated(&nun);
    for (int u = 0; u < nun; u++)
      if ((m & bit(un[u])) && mine(w)) kop(w, un[u], i, -1, -1, 0);
    for (int a = 0; a < w->kt[i].shape.rank; a++) {
      if (w->kt[i].shape.dim[a] == 1) continue;
      if ((m & bit(AX_OP_RMS_NORM)) && mine(w)) kop(w, AX_OP_RMS_NORM, i, -1, a, 0);
      if ((m & bit(AX_OP_REDUCE)) && mine(w)) {
        kop(w, AX_OP_REDUCE, i, -1, a, 1);
        const DimClass *c = &s->cls[w->kt[i].cls[a]];
        if (c->outer && mine(w)) kop(w, AX_OP_REDUCE, i, -1, a, s->cls[c->inner].size);
      }
    }
  }
}

/* --- levels ------------------------------------------------------------------------- */

/* The iterative deepening's levels (kernel statements, block nodes, split), small graphs
 * first so that a time limit still finds them. For each block-node limit: the split level
 * (a kernel of partial results and its reducing kernel:
 * FlashDecoding's shape, whose second kernel is built directly, so the level costs about
 * what the first kernel's tree costs), then the one-kernel level — at 9 and 10 nodes the
 * split level is the cheaper of the two (QKNorm); then the general levels of two and more
 * statements, whose last-kernel trees are the large ones. A split level's graphs are also
 * in the general level of two statements (found again there, not checked again). */
/* The block nodes of the pinned graph's largest block graph as the generator counts them:
 * the nodes a masked select writes for its mask and fill (index values: block iotas and
 * what is made of them and of literals alone) are part of its one step. */
static int pin_nodes(const SearchState *s) {
  if (!s->nmasks) return s->pin_nodes;
  const AxMugraph *pg = s->o->pin;
  int most = 0;
  for (int i = 0; i < pg->nstmts; i++) {
    if (pg->stmts[i].kind != AX_KS_KERNEL) continue;
    const AxKernel *k = pg->stmts[i].kernel;
    bool *ix = calloc((size_t)k->nnodes + 1, sizeof(bool));
    int nn = 0;
    for (int j = 0; j < k->nnodes; j++) {
      const AxBNode *x = &k->nodes[j];
      if (x->kind == AX_BN_OP && !x->anon) {
        ix[j] = x->op == AX_OP_IOTA || (x->nin > 0 && ax_exact_index_op(x->op));
        for (int q = 0; q < x->nin && ix[j] && x->op != AX_OP_IOTA; q++)
          ix[j] = k->nodes[x->in[q]].anon || ix[x->in[q]];
      }
      nn += x->kind != AX_BN_SAVE && !x->anon && !ix[j];
    }
    free(ix);
    if (nn > most) most = nn;
  }
  return most;
}

static void levels(const SearchState *s, int (*lev)[3], int *n) {
  int kl0 = 1, kl1 = s->o->max_kernel_ops, bl0 = 3, bl1 = s->o->max_block_ops;
  bool split = s->o->max_kernels >= 2 && kl1 >= 2;
  if (s->o->pin) kl0 = kl1 = s->pin_stmts, bl0 = bl1 = pin_nodes(s), split = false;  /* one pass */
  const char *lv = ax_test_hook("AXLE_TEST_SEARCH_LEVELS");   /* "KL0,KL1,BL0,BL1[,SPLIT]" */
  if (lv) {
    int sp = 0;
    sscanf(lv, "%d,%d,%d,%d,%d", &kl0, &kl1, &bl0, &bl1, &sp);
    split = sp != 0;
  }
  if (bl1 > MAXN) bl1 = MAXN;
  *n = 0;
  /* A program whose softmax shift is a max over a masked score (causal attention): the
   * one-kernel levels of every node limit first, then the split levels. Where it pays,
   * over long rows, its fast graph is FlashAttention with the mask inside — one kernel, at
   * the top node limit — and the split levels interleaved ahead of it cost the most
   * (causal_long: the one-kernel level of 10 nodes began after 37 s, 19 of them in the
   * split level of 10; in this order after 4 s). Every level is still searched; other
   * programs keep the order above, state for state. */
  bool first = s->masked_max;
  for (int bl = bl0; bl <= bl1; bl++) {
    if (split && !first) lev[*n][0] = 2, lev[*n][1] = bl, lev[*n][2] = 1, ++*n;
    if (kl0 <= 1) lev[*n][0] = 1, lev[*n][1] = bl, lev[*n][2] = 0, ++*n;
  }
  for (int bl = bl0; bl <= bl1 && first && split; bl++)
    lev[*n][0] = 2, lev[*n][1] = bl, lev[*n][2] = 1, ++*n;
  for (int kl = kl0 > 2 ? kl0 : 2; kl <= kl1 && kl <= MAXS; kl++)
    for (int bl = bl0; bl <= bl1; bl++) lev[*n][0] = kl, lev[*n][1] = bl, lev[*n][2] = 0, ++*n;
}

void ax_generate_run(Worker *w) {
  SearchState *s = w->s;
  w->abs = ax_prune_new();
  w->memo = calloc(MEMO_BUCKETS, sizeof(Memo *));
  spec_exprs(w);
  const AxMugraph *g = s->prog;
  w->nkt = 0;
  int input = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind != AX_KS_INPUT) continue;
    KernelTensor *k = &w->kt[w->nkt++];
    memset(k, 0, sizeof *k);
    const AxKTensor *t = &g->tensors[st->t];
    k->name = t->name;
    k->shape = t->shape;
    k->dt = t->dtype;
    k->stmt = -1;
    k->expr = ax_prune_var(w->abs, input++);
    for (int d = 0; d < t->shape.rank; d++) k->cls[d] = s->tcls[st->t * AX_MAXRANK + d];
  }
  /* iterative deepening: small graphs first, so a time limit still finds them */
  int lev[3 * MAXN * (MAXS + 2)][3], nlev = 0;
  levels(s, lev, &nlev);
  for (int l = 0; l < nlev && !s->stop; l++) {
    w->kernel_limit = lev[l][0];
    w->block_limit = lev[l][1];
    w->split = lev[l][2];
    if (getenv("AXLE_SEARCH_DEBUG") && w->id == 0)
      fprintf(stderr, "level: %d kernel statements%s, %d block nodes at %.1f s (%ld states)\n", w->kernel_limit,
              w->split ? " (split)" : "", w->block_limit, ax_clock_s() - s->start, s->states);
    w->top_index = 0;
    kdfs(w);
  }
  if (getenv("AXLE_SEARCH_DEBUG"))
    fprintf(stderr, "worker %d: block states by kernel %ld %ld %ld, headers %ld %ld %ld, %ld cut by the bound, memo %ld entries %ld hits\n", w->id,
            w->by_kernel[0], w->by_kernel[1], w->by_kernel[2], w->nheaders[0], w->nheaders[1], w->nheaders[2], w->cut, w->nmemo, w->memo_hits);
  pthread_mutex_lock(&s->mu);
  s->states += w->states - w->reported;
  s->pruned += w->pruned - w->reported_pruned;
  pthread_mutex_unlock(&s->mu);
  for (int i = 0; i < MEMO_BUCKETS; i++)
    for (Memo *m = w->memo[i], *nx; m; m = nx) {
      nx = m->next;
      free(m->key);
      free(m->suf);
      ax_mem_give(sizeof(Suffix) * (size_t)m->capsuf);
      free(m);
    }
  free(w->memo);
  free(w->spec);
  ax_prune_free(w->abs);
}
