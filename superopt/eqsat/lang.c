/* lang.c — programs as e-graph terms (lang.h). */
#include "superopt/eqsat/lang.h"

#include <stdint.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/tensorop.h"

static bool is_ew(uint32_t op) {
  return op < AX_OP_COUNT && ax_op_is_elementwise((AxOp)op);
}

void ax_eq_attrs_decode(const AxEgNode *n, AxTAttrs *at) {
  memset(at, 0, sizeof *at);
  if (n->nattrs < 4) return;
  at->axis_set = n->attrs[0] >= 0;
  at->axis = at->axis_set ? (int)n->attrs[0] : 0;
  at->to = n->attrs[1];
  at->times = n->attrs[2];
  at->shape.rank = (int)n->attrs[3];
  for (int i = 0; i < at->shape.rank && 4 + (uint32_t)i < n->nattrs; i++) at->shape.dim[i] = n->attrs[4 + i];
  /* a slice's or a pad's three lists follow the shape: their count, then each list */
  uint32_t b = 4 + (uint32_t)at->shape.rank;
  if (b >= n->nattrs || n->attrs[b] < 0 || n->attrs[b] > AX_MAXRANK ||
      n->nattrs != b + 1 + 3 * (uint32_t)n->attrs[b])
    return;
  at->nbound = (int)n->attrs[b];
  for (int k = 0; k < at->nbound; k++) {
    at->lo[k] = (int32_t)n->attrs[b + 1 + (uint32_t)k];
    at->hi[k] = (int32_t)n->attrs[b + 1 + (uint32_t)(at->nbound + k)];
    at->step[k] = (int32_t)n->attrs[b + 1 + (uint32_t)(2 * at->nbound + k)];
  }
}

/* The attributes of a lowered operator, encoded (lang.h); returns the count. */
static uint32_t encode(AxOp op, const AxTAttrs *at, int64_t *out) {
  if (is_ew(op)) return 0;
  out[0] = at->axis_set ? at->axis : -1;
  out[1] = at->to;
  out[2] = at->times;
  out[3] = at->shape.rank;
  for (int i = 0; i < at->shape.rank; i++) out[4 + i] = at->shape.dim[i];
  uint32_t n = 4 + (uint32_t)at->shape.rank;
  if (ax_op_spec(op)->tattrs & (AX_TA_SLICE | AX_TA_PAD)) {   /* the offsets are the operator */
    out[n++] = at->nbound;
    for (int k = 0; k < at->nbound; k++) out[n++] = at->lo[k];
    for (int k = 0; k < at->nbound; k++) out[n++] = at->hi[k];
    for (int k = 0; k < at->nbound; k++) out[n++] = at->step[k];
  }
  return n;
}

static int64_t gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a ? a : 1;
}

/* ---- constant folding: exact arithmetic of literals -------------------------------------
 * A class whose value is known exactly gets the literal e-node (modify below), so a rule
 * that matches a literal matches it, and products of literals that rules build (c1 * c2
 * from associativity) fall into the classes of their values instead of growing the graph.
 * Only what is exact folds: + - * / neg square over 64-bit rationals, an overflow or a
 * division by zero leaves the e-node alone (its class is then not a literal). */

static bool rat(int64_t n, int64_t d, AxRat *out) {
  if (d == 0 || n == INT64_MIN) return false;   /* gcd negates n: INT64_MIN has no negation */
  if (d < 0) {
    if (n == INT64_MIN || d == INT64_MIN) return false;
    n = -n, d = -d;
  }
  int64_t c = gcd(n, d);
  *out = (AxRat){n / c, d / c};
  return true;
}

bool ax_eq_fold(uint32_t op, const AxRat *k, uint32_t nk, AxRat *out) {
  int64_t x, y, n, d;
  bool un = nk == 1, bin = nk == 2;
  switch (op) {
  case AX_OP_NEG:
    return un && k[0].num != INT64_MIN && rat(-k[0].num, k[0].den, out);
  case AX_OP_SQUARE:
    return un && !__builtin_mul_overflow(k[0].num, k[0].num, &n) &&
           !__builtin_mul_overflow(k[0].den, k[0].den, &d) && rat(n, d, out);
  case AX_OP_ADD: case AX_OP_SUB:
    if (!bin || __builtin_mul_overflow(k[0].num, k[1].den, &x) ||
        __builtin_mul_overflow(k[1].num, k[0].den, &y) || __builtin_mul_overflow(k[0].den, k[1].den, &d))
      return false;
    if (op == AX_OP_ADD ? __builtin_add_overflow(x, y, &n) : __builtin_sub_overflow(x, y, &n)) return false;
    return rat(n, d, out);
  case AX_OP_MUL:
    return bin && !__builtin_mul_overflow(k[0].num, k[1].num, &n) &&
           !__builtin_mul_overflow(k[0].den, k[1].den, &d) && rat(n, d, out);
  case AX_OP_DIV:
    return bin && k[1].num != 0 && !__builtin_mul_overflow(k[0].num, k[1].den, &n) &&
           !__builtin_mul_overflow(k[0].den, k[1].num, &d) && rat(n, d, out);
  default:
    return false;
  }
}

/* The folded value of e-node n whose children are all literals; false otherwise. */
static bool fold_node(AxEgraph *g, const AxEgNode *n, AxRat *out) {
  AxRat k[2];
  if (n->nkids == 0 || n->nkids > 2) return false;
  for (uint32_t j = 0; j < n->nkids; j++) {
    const AxEqData *d = ax_eg_data(g, n->kids[j]);
    if (!d->literal) return false;
    k[j] = d->value;
  }
  return ax_eq_fold(n->op, k, n->nkids, out);
}

/* A literal class without its literal e-node gets it. The union is made between the exact
 * e-nodes `op(literals)` and `literal` (when explaining, the proof forest's edge then joins
 * two terms an explanation's replay can check by arithmetic: ax_eq_fold_step). */
static void modify(void *ctx, AxEgraph *g, AxEgId cls) {
  (void)ctx;
  const AxEqData *v = ax_eg_data(g, cls);
  if (!v->literal) return;
  AxRat val = v->value;
  size_t m = ax_eg_class_size(g, cls);
  const AxEgNode *src = NULL;
  for (size_t i = 0; i < m; i++) {
    const AxEgNode *n = ax_eg_class_node(g, cls, i);
    if (n->op == AX_OP_CONSTANT) return;
    AxRat f;
    if (!src && fold_node(g, n, &f) && f.num == val.num && f.den == val.den) src = n;
  }
  if (!src) return;
  /* copy before adding: adds may move the graph's arrays */
  uint32_t op = src->op, nk = src->nkids;
  AxRat kv[2];
  for (uint32_t j = 0; j < nk; j++) kv[j] = ((const AxEqData *)ax_eg_data(g, src->kids[j]))->value;
  AxEgId kids[2];
  for (uint32_t j = 0; j < nk; j++) {
    int64_t lit[2] = {kv[j].num, kv[j].den};
    AxEgNode ln = {AX_OP_CONSTANT, 2, 0, lit, NULL};
    kids[j] = ax_eg_add_exact(g, &ln);
  }
  AxEgNode on = {op, 0, nk, NULL, kids};
  AxEgId e = ax_eg_add_exact(g, &on);
  int64_t lit[2] = {val.num, val.den};
  AxEgNode ln = {AX_OP_CONSTANT, 2, 0, lit, NULL};
  AxEgId l = ax_eg_add_exact(g, &ln);
  if (e != AX_EG_NONE && l != AX_EG_NONE) ax_eg_union(g, e, l);
}

/* The exact value of term entry i: literals and the folding operators only. */
static bool term_value(const AxEgTerm *t, size_t i, AxRat *out) {
  const AxEgNode *n = &t->nodes[i];
  if (n->op == AX_OP_CONSTANT) return n->nattrs == 2 && rat(n->attrs[0], n->attrs[1], out);
  AxRat k[2];
  if (n->nkids == 0 || n->nkids > 2) return false;
  for (uint32_t j = 0; j < n->nkids; j++)
    if (!term_value(t, n->kids[j], &k[j])) return false;
  return ax_eq_fold(n->op, k, n->nkids, out);
}

bool ax_eq_fold_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after) {
  (void)ctx;
  AxRat b, a;
  return term_value(before, before->n - 1, &b) && term_value(after, after->n - 1, &a) &&
         b.num == a.num && b.den == a.den;
}

/* Whether entries i of a and j of b are the same tree. */
static bool term_eq(const AxEgTerm *a, size_t i, const AxEgTerm *b, size_t j) {
  const AxEgNode *x = &a->nodes[i], *y = &b->nodes[j];
  if (x->op != y->op || x->nattrs != y->nattrs || x->nkids != y->nkids) return false;
  if (x->nattrs && memcmp(x->attrs, y->attrs, x->nattrs * sizeof *x->attrs)) return false;
  for (uint32_t k = 0; k < x->nkids; k++)
    if (!term_eq(a, x->kids[k], b, y->kids[k])) return false;
  return true;
}

/* The transposes at the root of t composed: c[q] is the dimension of the operand under
 * them that the result's dimension q is (transpose(E, p): dimension q is E's p[q]); the
 * operand's entry in *base, the rank in *k. False when a permutation is malformed. */
static bool transposes(const AxEgTerm *t, int64_t *c, int *k, size_t *base) {
  size_t i = t->n - 1;
  *k = -1;
  while (t->nodes[i].op == AX_OP_TRANSPOSE) {
    const AxEgNode *n = &t->nodes[i];
    if (n->nattrs < 4 || n->nkids != 1 || n->attrs[3] < 1 || n->attrs[3] > AX_MAXRANK ||
        n->nattrs != 4 + (uint32_t)n->attrs[3] || (*k >= 0 && n->attrs[3] != *k))
      return false;
    if (*k < 0) {
      *k = (int)n->attrs[3];
      for (int q = 0; q < *k; q++) c[q] = q;
    }
    for (int q = 0; q < *k; q++) {
      if (c[q] < 0 || c[q] >= *k) return false;
      c[q] = n->attrs[4 + c[q]];
    }
    i = n->kids[0];
  }
  *base = i;
  return true;
}

bool ax_eq_transpose_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after) {
  (void)ctx;
  int64_t cb[AX_MAXRANK], ca[AX_MAXRANK];
  int kb, ka;
  size_t ib, ia;
  if (!transposes(before, cb, &kb, &ib) || !transposes(after, ca, &ka, &ia)) return false;
  if (!term_eq(before, ib, after, ia)) return false;
  /* no transpose on one side: the composition of the other must be the identity */
  int k = kb > 0 ? kb : ka;
  if (k < 0) return true;
  for (int q = 0; q < k; q++) {
    int64_t x = kb > 0 ? cb[q] : q, y = ka > 0 ? ca[q] : q;
    if (x != y) return false;
  }
  return true;
}

/* The slices at the root of t composed, per dimension: the result's element i is the
 * operand's element off[q] + i·str[q], cnt[q] of them; the operand's entry in *base, the
 * rank in *k (-1: no slice). Each slice in a program is valid, so the composition is its
 * meaning. False when a slice's lists are malformed. */
static bool slices(const AxEgTerm *t, int64_t *off, int64_t *str, int64_t *cnt, int *k, size_t *base) {
  size_t i = t->n - 1;
  *k = -1;
  while (t->nodes[i].op == AX_OP_SLICE) {
    AxTAttrs at;
    ax_eq_attrs_decode(&t->nodes[i], &at);
    if (t->nodes[i].nkids != 1 || at.nbound < 1 || (*k >= 0 && at.nbound != *k)) return false;
    if (*k < 0) {
      *k = at.nbound;
      for (int q = 0; q < *k; q++) {
        if (at.step[q] < 1 || at.hi[q] <= at.lo[q]) return false;
        off[q] = 0, str[q] = 1, cnt[q] = (at.hi[q] - at.lo[q] + at.step[q] - 1) / at.step[q];
      }
    }
    /* i -> lo + (off + i·str)·step */
    for (int q = 0; q < *k; q++) {
      if (at.step[q] < 1) return false;
      off[q] = at.lo[q] + off[q] * at.step[q], str[q] *= at.step[q];
    }
    i = t->nodes[i].kids[0];
  }
  *base = i;
  return true;
}

bool ax_eq_slice_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after) {
  (void)ctx;
  int64_t ob[AX_MAXRANK], sb[AX_MAXRANK], nb[AX_MAXRANK], oa[AX_MAXRANK], sa[AX_MAXRANK], na[AX_MAXRANK];
  int kb, ka;
  size_t ib, ia;
  if (!slices(before, ob, sb, nb, &kb, &ib) || !slices(after, oa, sa, na, &ka, &ia)) return false;
  /* without a slice a side is its operand, whose size a term does not say */
  if (kb < 0 || ka != kb || !term_eq(before, ib, after, ia)) return false;
  for (int q = 0; q < kb; q++)
    if (nb[q] != na[q] || ob[q] != oa[q] || (nb[q] > 1 && sb[q] != sa[q])) return false;
  return true;
}

/* The pads at the root of t composed, per dimension, where each has interior 0 and edges
 * >= 0: the operand's element i is the result's element low[q] + i, with high[q] elements
 * after it; the padding value's entry in *val (one for all), the operand's in *base, the
 * rank in *k (-1: no pad). False outside that form. */
static bool pads(const AxEgTerm *t, int64_t *low, int64_t *high, int *k, size_t *val, size_t *base) {
  size_t i = t->n - 1;
  *k = -1;
  while (t->nodes[i].op == AX_OP_PAD) {
    AxTAttrs at;
    ax_eq_attrs_decode(&t->nodes[i], &at);
    if (t->nodes[i].nkids != 2 || at.nbound < 1 || (*k >= 0 && at.nbound != *k)) return false;
    if (*k < 0) {
      *k = at.nbound, *val = t->nodes[i].kids[1];
      for (int q = 0; q < *k; q++) low[q] = high[q] = 0;
    } else if (!term_eq(t, *val, t, t->nodes[i].kids[1])) {
      return false;
    }
    for (int q = 0; q < *k; q++) {
      if (at.lo[q] < 0 || at.hi[q] < 0 || at.step[q] != 0) return false;
      low[q] += at.lo[q], high[q] += at.hi[q];
    }
    i = t->nodes[i].kids[0];
  }
  *base = i;
  return true;
}

bool ax_eq_pad_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after) {
  (void)ctx;
  int64_t lb[AX_MAXRANK], hb[AX_MAXRANK], la[AX_MAXRANK], ha[AX_MAXRANK];
  int kb, ka;
  size_t vb = 0, va = 0, ib, ia;
  if (!pads(before, lb, hb, &kb, &vb, &ib) || !pads(after, la, ha, &ka, &va, &ia)) return false;
  if (kb < 0 || ka != kb || !term_eq(before, ib, after, ia) || !term_eq(before, vb, after, va)) return false;
  for (int q = 0; q < kb; q++)
    if (lb[q] != la[q] || hb[q] != ha[q]) return false;
  return true;
}

bool ax_eq_step_check(void *ctx, const AxEgTerm *before, const AxEgTerm *after) {
  return ax_eq_fold_step(ctx, before, after) || ax_eq_transpose_step(ctx, before, after) ||
         ax_eq_slice_step(ctx, before, after) || ax_eq_pad_step(ctx, before, after);
}

static void make(void *ctx, AxEgraph *g, const AxEgNode *n, void *out) {
  AxEqLang *L = ctx;
  AxEqData *v = out;
  memset(v, 0, sizeof *v);
  v->dtype = AX_DT_F32;
  if (n->op == AX_OP_INPUT) {
    const AxKTensor *t = &L->prog->tensors[L->inputs[n->attrs[0]]];
    v->ok = true, v->shape = t->shape, v->dtype = t->dtype;
    return;
  }
  if (n->op == AX_OP_CONSTANT) {
    v->ok = v->literal = true;
    v->value = (AxRat){n->attrs[0], n->attrs[1]};
    return;
  }
  if (n->op == AX_EQ_TUPLE) {
    v->ok = true;
    return;
  }
  const AxTShape *ins[AX_MAXIN];
  bool dt_set = false;
  if (n->nkids > AX_MAXIN) return;
  for (uint32_t j = 0; j < n->nkids; j++) {
    const AxEqData *k = ax_eg_data(g, n->kids[j]);
    if (!k->ok) return;
    ins[j] = &k->shape;
    if (!k->literal && !dt_set) v->dtype = k->dtype, dt_set = true;
  }
  /* a conversion's class has the conversion's type (a program's typing, program.c) */
  v->dtype = (AxDtype)ax_ewop_result_dtype((AxOp)n->op, (int)v->dtype);
  AxTAttrs at;
  ax_eq_attrs_decode(n, &at);
  char msg[128];
  v->ok = ax_tensorop_infer((AxOp)n->op, &at, ins, (int)n->nkids, &v->shape, msg, sizeof msg);
  if (v->ok && v->shape.rank == 0 && fold_node(g, n, &v->value)) v->literal = true;
}

/* Join: a class is ok when some e-node of it is; a literal value is kept once known. */
static int merge(void *ctx, void *into, const void *from) {
  AxEqLang *L = ctx;
  AxEqData *a = into;
  const AxEqData *b = from;
  int r = 0;
  if (!a->ok && b->ok) {
    bool lit = a->literal;
    AxRat v = a->value;
    *a = *b;
    if (lit && !b->literal) a->literal = true, a->value = v;
    return AX_EG_MERGE_INTO | (lit && !b->literal ? AX_EG_MERGE_FROM : 0);
  }
  if (a->ok && !b->ok) return AX_EG_MERGE_FROM;
  if (a->ok && b->ok && !ax_shape_equal(&a->shape, &b->shape)) L->conflicts++;
  if (!a->literal && b->literal) a->literal = true, a->value = b->value, r |= AX_EG_MERGE_INTO;
  else if (a->literal && !b->literal) r |= AX_EG_MERGE_FROM;
  return r;
}

AxEgAnalysis ax_eq_analysis(AxEqLang *L) {
  return (AxEgAnalysis){.size = sizeof(AxEqData), .make = make, .merge = merge, .modify = modify, .ctx = L};
}

void ax_eq_lang_free(AxEqLang *L) {
  free(L->inputs);
  L->inputs = NULL;
}

bool ax_eq_add_program(AxEqLang *L, AxEgraph *g, AxEgId *root) {
  const AxMugraph *p = L->prog;
  L->g = g;
  free(L->inputs);
  L->inputs = ax_xcalloc((size_t)p->ntensors + 1, sizeof *L->inputs);
  L->ninputs = 0;
  AxEgId *cls = ax_xcalloc((size_t)p->ntensors + 1, sizeof *cls);
  for (int t = 0; t < p->ntensors; t++) cls[t] = AX_EG_NONE;
  bool ok = true;
  for (int i = 0; i < p->nstmts && ok; i++) {
    const AxKStmt *st = &p->stmts[i];
    if (st->kind == AX_KS_INPUT) {
      int64_t k = L->ninputs;
      L->inputs[L->ninputs++] = st->t;
      cls[st->t] = ax_eg_add_op(g, AX_OP_INPUT, 1, &k, 0, NULL);
    } else if (st->kind == AX_KS_OP) {
      AxEgId kids[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) {
        const AxKTensor *in = &p->tensors[st->in[j]];
        if (in->anon) {
          int64_t c = gcd(in->value.num, in->value.den);
          int64_t lit[2] = {in->value.num / c, in->value.den / c};
          kids[j] = ax_eg_add_op(g, AX_OP_CONSTANT, 2, lit, 0, NULL);
        } else {
          kids[j] = cls[st->in[j]];
        }
      }
      int64_t attrs[5 + 4 * AX_MAXRANK];   /* encode's most: shape, count, three lists */
      uint32_t na = encode(st->op, &st->at, attrs);
      cls[st->t] = ax_eg_add_op(g, st->op, na, attrs, (uint32_t)st->nin, kids);
    } else if (st->kind == AX_KS_KERNEL) {
      ok = false;
    }
  }
  if (ok) {
    AxEgId *outs = ax_xcalloc((size_t)p->noutputs + 1, sizeof *outs);
    for (int k = 0; k < p->noutputs; k++) outs[k] = cls[p->outputs[k]];
    *root = ax_eg_add_op(g, AX_EQ_TUPLE, 0, NULL, (uint32_t)p->noutputs, outs);
    free(outs);
  }
  free(cls);
  ax_eg_rebuild(g);
  return ok;
}

double ax_eq_cost(void *ctx, const AxEgNode *n) {
  AxEqLang *L = ctx;
  if (n->op == AX_OP_INPUT || n->op == AX_OP_CONSTANT || n->op == AX_EQ_TUPLE) return 1e-9;
  /* the operator alone, its operands inputs of their classes' shapes: what the cost model
   * charges a pre-defined operator (a library kernel reading its operands once) */
  AxArena *a = ax_arena_new();
  AxMugraph *m = ax_arena_alloc(a, sizeof *m);
  m->name = "op";
  int tcap = 0, scap = 0;
  double cost = INFINITY;
  AxTAttrs at;
  ax_eq_attrs_decode(n, &at);
  bool ok = n->nkids <= AX_MAXIN;
  AxKStmt *op = NULL;
  int ins[AX_MAXIN];
  for (uint32_t j = 0; ok && j < n->nkids; j++) {
    const AxEqData *k = ax_eg_data(L->g, n->kids[j]);
    if (!k->ok) ok = false;
    int t = ax_mug_new_tensor(a, m, &tcap);
    m->tensors[t].name = ax_arena_printf(a, "i%u", j);
    m->tensors[t].shape = k->shape;
    m->tensors[t].dtype = k->dtype;
    AxKStmt *s = ax_mug_new_stmt(a, m, &scap);
    s->kind = AX_KS_INPUT;
    s->t = t;
    m->tensors[t].stmt = m->nstmts - 1;
    ins[j] = t;
  }
  if (ok) {
    const AxTShape *shapes[AX_MAXIN];
    AxDtype dt = AX_DT_F32;
    bool dt_set = false;
    for (uint32_t j = 0; j < n->nkids; j++) {
      shapes[j] = &m->tensors[ins[j]].shape;
      const AxEqData *k = ax_eg_data(L->g, n->kids[j]);
      if (!k->literal && !dt_set) dt = k->dtype, dt_set = true;
    }
    int t = ax_mug_new_tensor(a, m, &tcap);
    char msg[128];
    ok = ax_tensorop_infer((AxOp)n->op, &at, shapes, (int)n->nkids, &m->tensors[t].shape, msg, sizeof msg);
    m->tensors[t].name = "o";
    m->tensors[t].dtype = (AxDtype)ax_ewop_result_dtype((AxOp)n->op, (int)dt);
    op = ax_mug_new_stmt(a, m, &scap);
    op->kind = AX_KS_OP;
    op->op = (AxOp)n->op;
    op->at = at;
    op->t = t;
    op->nin = (int)n->nkids;
    for (uint32_t j = 0; j < n->nkids; j++) op->in[j] = ins[j];
    m->tensors[t].stmt = m->nstmts - 1;
    if (ok) {
      int *outs = ax_arena_alloc(a, sizeof *outs);
      outs[0] = t;
      m->outputs = outs;
      m->noutputs = 1;
      AxKStmt *o = ax_mug_new_stmt(a, m, &scap);
      o->kind = AX_KS_OUTPUT;
      o->outs = outs;
      o->nouts = 1;
      cost = ax_cost_time(m, L->target);
    }
  }
  ax_arena_free(a);
  /* a layout operator the model prices at nothing (a reshape is a view) still costs a
   * nanosecond: extraction needs positive costs, or a cycle of free e-nodes could be chosen */
  if (cost < 1e-9) cost = 1e-9;
  return cost;
}

/* An exact decimal of num/den, den = 2^a 5^b (what program literals are); otherwise the
 * quotient of two literals, which lowering folds back into one. */
static void literal(FILE *out, int64_t num, int64_t den) {
  bool neg = num < 0;
  uint64_t u = neg ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
  int digits = 0;
  int64_t d = den;
  uint64_t scaled = u;
  while (d % 10 == 0) d /= 10, digits++;
  while (d % 2 == 0 && scaled <= UINT64_MAX / 5) d /= 2, scaled *= 5, digits++;
  while (d % 5 == 0 && scaled <= UINT64_MAX / 2) d /= 5, scaled *= 2, digits++;
  if (neg) fputs("(-", out);
  if (d != 1) {
    fprintf(out, "(%llu / %lld)", (unsigned long long)u, (long long)den);
  } else if (digits == 0) {
    fprintf(out, "%llu", (unsigned long long)scaled);
  } else {
    char buf[32];
    snprintf(buf, sizeof buf, "%0*llu", digits + 1, (unsigned long long)scaled);
    size_t len = strlen(buf);
    fprintf(out, "%.*s.%s", (int)(len - (size_t)digits), buf, buf + len - digits);
  }
  if (neg) fputc(')', out);
}

static void shape_list(FILE *out, const AxTShape *s) {
  fputc('[', out);
  for (int i = 0; i < s->rank; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)s->dim[i]);
  fputc(']', out);
}

/* The name of term entry i; entries that are outputs take the output's name. */
typedef struct Printer {
  const AxEqLang *L;
  const AxEgTerm *t;
  const char **name;
} Printer;

static void operand(FILE *out, const Printer *p, size_t i) {
  const AxEgNode *n = &p->t->nodes[i];
  if (n->op == AX_OP_CONSTANT) literal(out, n->attrs[0], n->attrs[1]);
  else fputs(p->name[i], out);
}

/* An operator's attributes after its operands, as the program syntax writes them, and the
 * closing parenthesis. */
static void attrs_close(FILE *out, const AxEgNode *n) {
  AxTAttrs a;
  ax_eq_attrs_decode(n, &a);
  const AxTAttrs *at = &a;
  const AxOpSpec *spec = ax_op_spec((AxOp)n->op);
  uint32_t nkids = n->nkids;
  if (spec->tattrs & AX_TA_SHAPE) fputs(nkids ? ", " : "", out), shape_list(out, &at->shape);
  if ((spec->tattrs & AX_TA_AXIS) && at->axis_set) fprintf(out, ", axis = %d", at->axis);
  if ((spec->tattrs & AX_TA_TO) && at->to > 0) fprintf(out, ", to = %lld", (long long)at->to);
  if ((spec->tattrs & AX_TA_TIMES) && at->times > 0) fprintf(out, ", times = %lld", (long long)at->times);
  unsigned bflag = spec->tattrs & (AX_TA_SLICE | AX_TA_PAD);
  for (int k = 0; bflag && k < 3; k++) {
    const int32_t *v = k == 0 ? at->lo : k == 1 ? at->hi : at->step;
    fprintf(out, ", %s = [", ax_tattrs_bound_names(bflag)[k]);
    for (int i = 0; i < at->nbound; i++) fprintf(out, "%s%d", i ? ", " : "", (int)v[i]);
    fputc(']', out);
  }
  fputc(')', out);
}

static void call(FILE *out, const Printer *p, const AxEgNode *n) {
  fprintf(out, "%s(", ax_op_pname((AxOp)n->op));
  for (uint32_t j = 0; j < n->nkids; j++) {
    if (j) fputs(", ", out);
    operand(out, p, n->kids[j]);
  }
  attrs_close(out, n);
}

void ax_eq_print_program(FILE *out, const AxEqLang *L, const char *name, const AxEgTerm *t) {
  const AxMugraph *g = L->prog;
  Printer p = {L, t, ax_xcalloc(t->n + 1, sizeof(char *))};
  AxArena *a = ax_arena_new();
  const AxEgNode *tuple = &t->nodes[t->n - 1];
  AX_ASSERT(tuple->op == AX_EQ_TUPLE && (int)tuple->nkids == g->noutputs);
  fprintf(out, "program %s {\n", name);
  for (int k = 0; k < L->ninputs; k++) {
    const AxKTensor *in = &g->tensors[L->inputs[k]];
    fprintf(out, "  input %s : %s", in->name, ax_dtype_name(in->dtype));
    shape_list(out, &in->shape);
    fputc('\n', out);
  }
  /* names: inputs by name, outputs by name (the first output of a class), lets e<i> */
  for (size_t i = 0; i < t->n; i++) {
    const AxEgNode *n = &t->nodes[i];
    if (n->op == AX_OP_INPUT) p.name[i] = g->tensors[L->inputs[n->attrs[0]]].name;
  }
  bool *is_out = ax_xcalloc(t->n + 1, sizeof *is_out);
  for (int k = 0; k < g->noutputs; k++) {
    size_t i = tuple->kids[k];
    const AxEgNode *n = &t->nodes[i];
    if (!is_out[i] && n->op != AX_OP_INPUT && n->op != AX_OP_CONSTANT) {
      is_out[i] = true;
      p.name[i] = g->tensors[g->outputs[k]].name;
    }
  }
  for (size_t i = 0; i < t->n; i++) {
    if (p.name[i]) continue;
    const char *nm = ax_arena_printf(a, "e%zu", i);
    /* a let name must not be an input's or an output's */
    for (bool clash = true; clash;) {
      clash = false;
      for (int k = 0; k < g->ntensors; k++)
        if (g->tensors[k].name && strcmp(g->tensors[k].name, nm) == 0) clash = true;
      if (clash) nm = ax_arena_printf(a, "%s_", nm);
    }
    p.name[i] = nm;
  }
  for (size_t i = 0; i + 1 < t->n; i++) {
    const AxEgNode *n = &t->nodes[i];
    if (n->op == AX_OP_INPUT || n->op == AX_OP_CONSTANT) continue;
    fprintf(out, "  %s %s = ", is_out[i] ? "output" : "let", p.name[i]);
    call(out, &p, n);
    fputc('\n', out);
  }
  /* outputs that are not an operator of their own: an input, a literal, or a class another
   * output already names — written as `X * 1`, exact in every float type */
  bool *done = ax_xcalloc(t->n + 1, sizeof *done);
  for (int k = 0; k < g->noutputs; k++) {
    size_t i = tuple->kids[k];
    const char *oname = g->tensors[g->outputs[k]].name;
    if (is_out[i] && !done[i] && strcmp(p.name[i], oname) == 0) {
      done[i] = true;
      continue;
    }
    fprintf(out, "  output %s = mul(", oname);
    operand(out, &p, i);
    fputs(", 1)\n", out);
  }
  fputs("}\n", out);
  free(done);
  free(is_out);
  free(p.name);
  ax_arena_free(a);
}

static void expr(FILE *out, const AxEqLang *L, const AxEgTerm *t, size_t i) {
  const AxEgNode *n = &t->nodes[i];
  if (n->op == AX_OP_INPUT) {
    fputs(L->prog->tensors[L->inputs[n->attrs[0]]].name, out);
    return;
  }
  if (n->op == AX_OP_CONSTANT) {
    literal(out, n->attrs[0], n->attrs[1]);
    return;
  }
  if (n->op == AX_EQ_TUPLE) {
    fputc('(', out);
    for (uint32_t j = 0; j < n->nkids; j++) {
      if (j) fputs(", ", out);
      expr(out, L, t, n->kids[j]);
    }
    fputc(')', out);
    return;
  }
  fprintf(out, "%s(", ax_op_pname((AxOp)n->op));
  for (uint32_t j = 0; j < n->nkids; j++) {
    if (j) fputs(", ", out);
    expr(out, L, t, n->kids[j]);
  }
  attrs_close(out, n);
}

void ax_eq_print_expr(FILE *out, const AxEqLang *L, const AxEgTerm *t) {
  expr(out, L, t, t->n - 1);
}
