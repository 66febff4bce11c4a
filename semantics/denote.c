/* denote.c — operator denotations; see denote.h.
 *
 * Every operator has a shape rule (sizes and validity) and a value rule (its element at
 * an access), each opening with the equation it implements. Notation: n = operand size
 * on a named axis, x = the output index on that axis, A[...] = the operand's element. */
#include "semantics/denote.h"

#include <string.h>

#define D (in->d)

typedef struct Memo {
  const AxExpr *e;
  AxShape *shape;
} Memo;

int ax_den_rank(const AxInst *in, int axis) {
  return in->rank[in->syms->syms[in->syms->axes[axis]].rclass];
}

static AxV lit(AxInst *in, long v) { return D->int_small(D, v); }
static AxV and2(AxInst *in, AxV a, AxV b) { return D->band(D, a, b); }

/* ---- maps and conditions -------------------------------------------------------------- */

static const AxSym *name_sym(const AxInst *in, const AxExpr *e) {
  return e->ty.sym >= 0 ? &in->syms->syms[e->ty.sym] : NULL;
}

AxV ax_den_map(AxInst *in, const AxExpr *e, int k) {
  switch (e->kind) {
  case AX_E_INT:
    return D->int_lit(D, e->u.text);
  case AX_E_NAME: {
    const AxSym *s = name_sym(in, e);
    AX_ASSERT(s && (s->kind == AX_SYM_MAP || s->kind == AX_SYM_INDEX || s->kind == AX_SYM_LET));
    if (s->def) return ax_den_map(in, s->def, k);   /* a defined map or a let */
    return in->maps[e->ty.sym][k];
  }
  case AX_E_UNARY:
    AX_ASSERT(e->u.unary.op == AX_UN_NEG);
    return D->isub(D, lit(in, 0), ax_den_map(in, e->u.unary.arg, k));
  case AX_E_BINARY: {
    AxV a = ax_den_map(in, e->u.binary.lhs, k), b = ax_den_map(in, e->u.binary.rhs, k);
    switch (e->u.binary.op) {
    case AX_BIN_ADD: return D->iadd(D, a, b);
    case AX_BIN_SUB: return D->isub(D, a, b);
    case AX_BIN_MUL: return D->imul(D, a, b);
    case AX_BIN_DIV:
    case AX_BIN_REM: {
      /* floor division / remainder; a zero divisor gives 0 (documented in semantics.md) */
      AxV pos = D->ilt(D, lit(in, 0), b), neg = D->ilt(D, b, lit(in, 0));
      AxV nb = D->isub(D, lit(in, 0), b);
      AxV q = e->u.binary.op == AX_BIN_DIV ? D->idiv(D, a, b) : D->imod(D, a, b);
      /* for b < 0: floor(a / b) = floor(-a / -b); a mod b = -((-a) mod (-b)) */
      AxV na = D->isub(D, lit(in, 0), a);
      AxV qn = e->u.binary.op == AX_BIN_DIV ? D->idiv(D, na, nb)
                                            : D->isub(D, lit(in, 0), D->imod(D, na, nb));
      return D->ite(D, pos, q, D->ite(D, neg, qn, lit(in, 0), 0, AX_INT), 0, AX_INT);
    }
    default: AX_UNREACHABLE();
    }
  }
  case AX_E_IF:
    return D->ite(D, ax_den_cond(in, e->u.ite.cond, k), ax_den_map(in, e->u.ite.then_e, k),
                  ax_den_map(in, e->u.ite.else_e, k), 0, AX_INT);
  case AX_E_CALL: {   /* min, max, abs on maps */
    AxV a = ax_den_map(in, e->u.call.args[0].value, k);
    if (strcmp(e->u.call.fn.name, "abs") == 0)
      return D->ite(D, D->ilt(D, a, lit(in, 0)), D->isub(D, lit(in, 0), a), a, 0, AX_INT);
    AxV b = ax_den_map(in, e->u.call.args[1].value, k);
    bool max = strcmp(e->u.call.fn.name, "max") == 0;
    return D->ite(D, D->ilt(D, a, b), max ? b : a, max ? a : b, 0, AX_INT);
  }
  default:
    AX_UNREACHABLE();
  }
  return NULL;
}

AxV ax_den_cond(AxInst *in, const AxExpr *e, int k) {
  switch (e->kind) {
  case AX_E_BOOL:
    return D->bool_lit(D, e->u.boolean);
  case AX_E_NAME: {   /* a let-bound condition */
    const AxSym *s = name_sym(in, e);
    AX_ASSERT(s && s->kind == AX_SYM_LET);
    return ax_den_cond(in, s->def, k);
  }
  case AX_E_UNARY:
    AX_ASSERT(e->u.unary.op == AX_UN_NOT);
    return D->bnot(D, ax_den_cond(in, e->u.unary.arg, k));
  case AX_E_IF:
    return D->ite(D, ax_den_cond(in, e->u.ite.cond, k), ax_den_cond(in, e->u.ite.then_e, k),
                  ax_den_cond(in, e->u.ite.else_e, k), 1, AX_BOOL);
  case AX_E_QUANT: {
    /* forall c: p  =  AND over the named axes of c;  exists c: p  =  OR over them */
    int rc = e->ty.sym, r = in->rank[rc];
    bool ex = e->u.quant.exists;
    AxV acc = D->bool_lit(D, !ex);
    for (int j = 0; j < r; j++) {
      AxV p = ax_den_cond(in, e->u.quant.body, j);
      acc = ex ? D->bor(D, acc, p) : D->band(D, acc, p);
    }
    return acc;
  }
  case AX_E_BINARY: {
    AxBinop op = e->u.binary.op;
    if (op == AX_BIN_AND || op == AX_BIN_OR) {
      AxV a = ax_den_cond(in, e->u.binary.lhs, k), b = ax_den_cond(in, e->u.binary.rhs, k);
      return op == AX_BIN_AND ? D->band(D, a, b) : D->bor(D, a, b);
    }
    AxV a = ax_den_map(in, e->u.binary.lhs, k), b = ax_den_map(in, e->u.binary.rhs, k);
    switch (op) {
    case AX_BIN_EQ: return D->ieq(D, a, b);
    case AX_BIN_NE: return D->bnot(D, D->ieq(D, a, b));
    case AX_BIN_LT: return D->ilt(D, a, b);
    case AX_BIN_LE: return D->ile(D, a, b);
    case AX_BIN_GT: return D->ilt(D, b, a);
    case AX_BIN_GE: return D->ile(D, b, a);
    default: AX_UNREACHABLE();
    }
  }
  default:
    AX_UNREACHABLE();
  }
  return NULL;
}

AxV ax_den_closed(AxInst *in, const AxExpr *e) {
  if (e->ty.rclass < 0) return ax_den_cond(in, e, 0);
  AxV acc = D->bool_lit(D, true);
  for (int k = 0; k < in->rank[e->ty.rclass]; k++) acc = and2(in, acc, ax_den_cond(in, e, k));
  return acc;
}

/* ---- attributes ----------------------------------------------------------------------- */

/* The value of an axis-map attribute {x: m, ...} at named axis (axis, k), or the
 * operator's default for that attribute when the axis (or the attribute) is omitted. */
static AxV attr_at(AxInst *in, const AxExpr *call, int attr, int axis, int k, const AxShape *opnd) {
  const AxExpr *v = call->ty.attrs[attr];
  const char *name = in->syms->syms[in->syms->axes[axis]].name;
  if (v)
    for (size_t i = 0; i < v->u.axmap.n; i++)
      if (strcmp(v->u.axmap.entries[i].axis.name, name) == 0)
        return ax_den_map(in, v->u.axmap.entries[i].value, k);
  switch (ax_op_spec((AxOp)call->ty.op)->attrs[attr].dflt) {
  case AX_DEF_ZERO: return lit(in, 0);
  case AX_DEF_ONE: return lit(in, 1);
  case AX_DEF_SIZE: return opnd->size[axis][k];
  default: AX_UNREACHABLE();
  }
  return NULL;
}

/* The set of axes an attribute names ({x: ...}, [x, ...] or one axis). */
static uint64_t attr_axes(const AxInst *in, const AxExpr *v) {
  uint64_t s = 0;
  if (!v) return 0;
  const AxRuleSyms *y = in->syms;
  if (v->kind == AX_E_NAME) return (uint64_t)1 << y->syms[v->ty.sym].axis;
  if (v->kind == AX_E_LIST) {
    for (size_t i = 0; i < v->u.list.n; i++)
      s |= (uint64_t)1 << y->syms[v->u.list.items[i]->ty.sym].axis;
    return s;
  }
  for (size_t i = 0; i < v->u.axmap.n; i++)
    for (size_t j = 0; j < y->naxes; j++)
      if (strcmp(y->syms[y->axes[j]].name, v->u.axmap.entries[i].axis.name) == 0) s |= (uint64_t)1 << j;
  return s;
}

/* the axis an attribute names at position i: the i-th item of a list [x, ...], the
 * attribute itself when it is one axis, the i-th entry of an axis map {x: ...} */
static int axis_of(const AxInst *in, const AxExpr *v, size_t i) {
  const AxRuleSyms *y = in->syms;
  if (v->kind == AX_E_NAME) return y->syms[v->ty.sym].axis;
  if (v->kind == AX_E_LIST) return y->syms[v->u.list.items[i]->ty.sym].axis;
  for (size_t j = 0; j < y->naxes; j++)
    if (strcmp(y->syms[y->axes[j]].name, v->u.axmap.entries[i].axis.name) == 0) return (int)j;
  AX_UNREACHABLE();
  return -1;
}

/* relabel {from: to}: the target axis of `from`, or -1 */
static int relabel_target(const AxInst *in, const AxExpr *m, int from) {
  const AxRuleSyms *y = in->syms;
  for (size_t i = 0; i < m->u.axmap.n; i++)
    if (strcmp(m->u.axmap.entries[i].axis.name, y->syms[y->axes[from]].name) == 0)
      return y->syms[m->u.axmap.entries[i].value->ty.sym].axis;
  return -1;
}

/* ---- named axes ----------------------------------------------------------------------- */

static AxV *new_sizes(AxInst *in, int axis) {
  return ax_arena_alloc(in->a, (size_t)(ax_den_rank(in, axis) + 1) * sizeof(AxV));
}

static AxV nonneg(AxInst *in, AxV v) { return D->ile(D, lit(in, 0), v); }

/* What a per-axis rule reads: the application, its operands' shapes, the access, and the
 * conjunction the rule adds its conditions to. */
typedef struct Axes {
  AxInst *in;
  const AxExpr *e;        /* the application (its attributes) */
  const AxShape *x, *y;   /* the first operand's shape; a second one (update, kernel) */
  const AxIndex *idx;     /* the access (value rules) */
  const AxIndex *win;     /* conv's summand: the window position */
  AxV *ok;                /* the running conjunction of the rule's conditions */
  struct Indices *sum;    /* the summation indices being made (at_sum) */
} Axes;

/* An operator's rule at named axis k of aggregated axis i: the size or index there; its
 * conditions are conjoined to *c->ok. */
typedef AxV PerAxis(const Axes *c, int i, int k);

/* The loop over named axes: for every aggregated axis i in `axes`, in order, and every
 * named axis k of i, v = f(c, i, k); where `out` is given, out[i] becomes a fresh vector
 * holding those values. */
static void each_named(const Axes *c, uint64_t axes, AxV **out, PerAxis *f) {
  AxInst *in = c->in;
  for (int i = 0; i < (int)in->syms->naxes; i++) {
    if (!(axes >> i & 1)) continue;
    if (out) out[i] = new_sizes(in, i);
    for (int k = 0; k < ax_den_rank(in, i); k++) {
      AxV v = f(c, i, k);
      if (out) out[i][k] = v;
    }
  }
}

/* x and y have the same size on (i, k) */
static AxV equal_size(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  *c->ok = and2(in, *c->ok, D->ieq(D, c->x->size[i][k], c->y->size[i][k]));
  return NULL;
}

/* Conjoins to *ok: a and b have the same size on every named axis of `axes`. */
static void same_sizes(AxInst *in, uint64_t axes, const AxShape *a, const AxShape *b, AxV *ok) {
  each_named(&(Axes){.in = in, .x = a, .y = b, .ok = ok}, axes, NULL, equal_size);
}

/* ---- shapes --------------------------------------------------------------------------- */

static AxShape *shape_of(AxInst *in, const AxExpr *e);

/* s takes x's axes and sizes (its validity stays) */
static void copy_shape(AxShape *s, const AxShape *x) {
  s->axes = x->axes;
  memcpy(s->size, x->size, sizeof s->size);
}

/* shape of a sized attribute {x: size, ...} (constant, iota, broadcast), added to s */
static void shape_attr(AxInst *in, const AxExpr *v, AxShape *s) {
  for (size_t i = 0; i < v->u.axmap.n; i++) {
    const AxAxEntry *en = &v->u.axmap.entries[i];
    int axis = -1;
    for (size_t j = 0; j < in->syms->naxes; j++)
      if (strcmp(in->syms->syms[in->syms->axes[j]].name, en->axis.name) == 0) axis = (int)j;
    AX_ASSERT(axis >= 0);
    s->axes |= (uint64_t)1 << axis;
    s->size[axis] = new_sizes(in, axis);
    for (int k = 0; k < ax_den_rank(in, axis); k++) {
      s->size[axis][k] = ax_den_map(in, en->value, k);
      s->valid = and2(in, s->valid, nonneg(in, s->size[axis][k]));   /* sizes are >= 0 */
    }
  }
}

/* A shape rule: given the operands' shapes o and s with their conjoined validity, fills
 * s's axes and sizes and conjoins the operator's own conditions to s->valid. */
typedef void ShapeRule(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s);

/* CONST: shape S, every element v;  IOTA: shape S, element = the index on the iota axis */
static void shape_sized(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  (void)o;   /* the shape is the attribute's; a constant's value is a scalar */
  shape_attr(in, e->ty.attrs[0], s);
}

/* EXPAND: S(A) ∪ S_new, new axes disjoint (checked) */
static void shape_broadcast(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  copy_shape(s, o[0]);
  shape_attr(in, e->ty.attrs[0], s);
}

/* PAD: out = lo + hi + n + max(0, n-1) * in;  valid: in >= 0, out >= 0 */
static AxV pad_size(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  bool full = c->e->ty.op == AX_OP_PAD;   /* pad_low has neither interior nor high */
  AxV nn = c->x->size[i][k], lo = attr_at(in, c->e, 0, i, k, c->x);
  AxV it = full ? attr_at(in, c->e, 1, i, k, c->x) : lit(in, 0);
  AxV hi = full ? attr_at(in, c->e, 2, i, k, c->x) : lit(in, 0);
  AxV gaps = D->ite(D, D->ilt(D, lit(in, 0), nn), D->imul(D, D->isub(D, nn, lit(in, 1)), it),
                    lit(in, 0), 0, AX_INT);
  AxV out = D->iadd(D, D->iadd(D, lo, hi), D->iadd(D, nn, gaps));
  *c->ok = and2(in, *c->ok, and2(in, nonneg(in, it), nonneg(in, out)));
  return out;
}

static void shape_pad(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  s->axes = o[0]->axes;
  each_named(&(Axes){.in = in, .e = e, .x = o[0], .ok = &s->valid}, o[0]->axes, s->size, pad_size);
}

/* SLICE: valid 0 <= s <= e <= n, p > 0;  out = (e - s + p - 1) div p */
static AxV slice_size(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV st = attr_at(in, c->e, 0, i, k, c->x), en = attr_at(in, c->e, 1, i, k, c->x),
      p = attr_at(in, c->e, 2, i, k, c->x);
  AxV ok = and2(in, and2(in, nonneg(in, st), D->ile(D, st, en)), D->ile(D, en, c->x->size[i][k]));
  ok = and2(in, ok, D->ilt(D, lit(in, 0), p));
  *c->ok = and2(in, *c->ok, ok);
  /* guard the division: p > 0 holds wherever the value matters */
  AxV safe = D->ite(D, D->ilt(D, lit(in, 0), p), p, lit(in, 1), 0, AX_INT);
  return D->idiv(D, D->iadd(D, D->isub(D, en, st), D->isub(D, safe, lit(in, 1))), safe);
}

static void shape_slice(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  s->axes = o[0]->axes;
  each_named(&(Axes){.in = in, .e = e, .x = o[0], .ok = &s->valid}, o[0]->axes, s->size, slice_size);
}

/* DYSLICE: valid 0 <= s, 0 <= l, s + l <= n (the window lies inside; XLA would clamp);
 * out = l */
static AxV dynamic_slice_size(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV st = attr_at(in, c->e, 0, i, k, c->x), l = attr_at(in, c->e, 1, i, k, c->x);
  AxV ok = and2(in, and2(in, nonneg(in, st), nonneg(in, l)), D->ile(D, D->iadd(D, st, l), c->x->size[i][k]));
  *c->ok = and2(in, *c->ok, ok);
  return l;
}

static void shape_dynamic_slice(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  s->axes = o[0]->axes;
  each_named(&(Axes){.in = in, .e = e, .x = o[0], .ok = &s->valid}, o[0]->axes, s->size,
             dynamic_slice_size);
}

/* DYUPSLICE: valid 0 <= s, s + |U| <= n;  out = S(A) */
static AxV update_fits(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV st = attr_at(in, c->e, 0, i, k, c->x);
  *c->ok = and2(in, *c->ok, and2(in, nonneg(in, st), D->ile(D, D->iadd(D, st, c->y->size[i][k]), c->x->size[i][k])));
  return NULL;
}

static void shape_update(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  copy_shape(s, o[0]);
  each_named(&(Axes){.in = in, .e = e, .x = o[0], .y = o[1], .ok = &s->valid}, o[0]->axes, NULL,
             update_fits);
}

/* CONCAT: other axes equal; along the concat axis (rank 1) sizes add up */
static void shape_concat(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  int cx = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  const AxShape *x = o[0];
  copy_shape(s, x);
  s->size[cx] = new_sizes(in, cx);
  AxV total = lit(in, 0);
  for (int j = 0; j < e->ty.nopnds; j++) {
    total = D->iadd(D, total, o[j]->size[cx][0]);
    same_sizes(in, x->axes & ~((uint64_t)1 << cx), o[j], x, &s->valid);
  }
  s->size[cx][0] = total;
}

/* RELABEL: S'[to] = S[from] (named axes paired by index), other axes unchanged */
static void shape_relabel(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0];
  for (int i = 0; i < (int)in->syms->naxes; i++) {
    if (!(x->axes >> i & 1)) continue;
    int to = relabel_target(in, e->ty.attrs[0], i);
    if (to < 0) to = i;
    s->axes |= (uint64_t)1 << to;
    s->size[to] = x->size[i];
  }
}

/* REVERSE: S(A) */
static void shape_operand(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  (void)in, (void)e;
  copy_shape(s, o[0]);
}

/* a removed axis has size 1 on (i, k) */
static AxV size_is_one(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  *c->ok = and2(in, *c->ok, D->ieq(D, c->x->size[i][k], lit(in, 1)));
  return NULL;
}

static AxV one(const Axes *c, int i, int k) {
  (void)i, (void)k;
  return lit(c->in, 1);
}

/* RESHAPE_DEGENERATE: adds axes of size 1; removes axes whose every named axis has size 1 */
static void shape_degenerate(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0];
  uint64_t add = attr_axes(in, e->ty.attrs[0]), rem = attr_axes(in, e->ty.attrs[1]);
  s->axes = (x->axes & ~rem) | add;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (x->axes >> i & 1 && !(rem >> i & 1)) s->size[i] = x->size[i];
  Axes c = {.in = in, .e = e, .x = x, .ok = &s->valid};
  each_named(&c, rem, NULL, size_is_one);
  each_named(&c, add, s->size, one);
}

/* SPLIT (row-major, per named axis): a of size n into hi of size n div t and lo of size t;
 * valid: t >= 1 and t divides n on every named axis */
static void shape_split(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0];
  int a = axis_of(in, e->ty.attrs[0], 0), hi = axis_of(in, e->ty.attrs[1], 0),
      lo = axis_of(in, e->ty.attrs[1], 1);
  s->axes = (x->axes & ~((uint64_t)1 << a)) | (uint64_t)1 << hi | (uint64_t)1 << lo;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (x->axes >> i & 1 && i != a) s->size[i] = x->size[i];
  s->size[hi] = new_sizes(in, hi);
  s->size[lo] = new_sizes(in, lo);
  for (int k = 0; k < ax_den_rank(in, a); k++) {
    AxV t = attr_at(in, e, 0, a, k, x), nn = x->size[a][k];
    AxV safe = D->ite(D, D->ilt(D, lit(in, 0), t), t, lit(in, 1), 0, AX_INT);
    s->valid = and2(in, s->valid, and2(in, D->ile(D, lit(in, 1), t),
                                       D->ieq(D, D->imod(D, nn, safe), lit(in, 0))));
    s->size[hi][k] = D->idiv(D, nn, safe);
    s->size[lo][k] = t;
  }
}

/* MERGE (row-major, per named axis): hi and lo into a of size n_hi * n_lo */
static void shape_merge(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0];
  int hi = axis_of(in, e->ty.attrs[0], 0), lo = axis_of(in, e->ty.attrs[0], 1),
      a = axis_of(in, e->ty.attrs[1], 0);
  s->axes = (x->axes & ~((uint64_t)1 << hi | (uint64_t)1 << lo)) | (uint64_t)1 << a;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (x->axes >> i & 1 && i != hi && i != lo) s->size[i] = x->size[i];
  s->size[a] = new_sizes(in, a);
  for (int k = 0; k < ax_den_rank(in, a); k++) s->size[a][k] = D->imul(D, x->size[hi][k], x->size[lo][k]);
}

/* GATHER(A, I, y): I's axes with I's sizes, A's others with A's; valid: n_y >= 1 (a
 * slice of size 1 along y must fit, as XLA's slice_sizes require) */
static void shape_gather(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  int y = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  s->axes = e->ty.axes;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (s->axes >> i & 1) s->size[i] = o[1]->axes >> i & 1 ? o[1]->size[i] : o[0]->size[i];
  s->valid = and2(in, s->valid, D->ile(D, lit(in, 1), o[0]->size[y][0]));
}

/* SCATTER(A, I, U, y): S(A); valid: U's sizes are I's on I's axes and A's on the others
 * (XLA's update shape) */
static void shape_scatter(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  copy_shape(s, o[0]);
  same_sizes(in, o[1]->axes, o[2], o[1], &s->valid);
  same_sizes(in, o[2]->axes & ~o[1]->axes, o[2], o[0], &s->valid);
  (void)e;
}

/* FLATTEN(A, x, a): x removed; a: ∏_k n_x.k (one named axis) */
static void shape_flatten(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  int x = axis_of(in, e->ty.attrs[0], 0), a = axis_of(in, e->ty.attrs[1], 0);
  copy_shape(s, o[0]);
  s->axes = (s->axes & ~((uint64_t)1 << x)) | (uint64_t)1 << a;
  s->size[x] = NULL;
  s->size[a] = new_sizes(in, a);
  s->size[a][0] = lit(in, 1);
  for (int k = 0; k < ax_den_rank(in, x); k++) s->size[a][0] = D->imul(D, s->size[a][0], o[0]->size[x][k]);
}

/* UNFLATTEN(A, a, {x: s}): a removed; x: s; valid: n_a = ∏_k s.k (XLA's reshape keeps the
 * element count) */
static void shape_unflatten(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  int a = axis_of(in, e->ty.attrs[0], 0);
  copy_shape(s, o[0]);
  s->axes &= ~((uint64_t)1 << a);
  s->size[a] = NULL;
  shape_attr(in, e->ty.attrs[1], s);
  int x = __builtin_ctzll(s->axes & ~o[0]->axes);
  AxV n = lit(in, 1);
  for (int k = 0; k < ax_den_rank(in, x); k++) n = D->imul(D, n, s->size[x][k]);
  s->valid = and2(in, s->valid, D->ieq(D, n, o[0]->size[a][0]));
}

/* REDUCE: S(A) without the reduced axes;  MEAN: S(A) without its axis */
static void shape_reduce(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  s->axes = e->ty.axes;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (s->axes >> i & 1) s->size[i] = o[0]->size[i];
}

/* DOT: (S(A) ∪ S(B)) without the contracted axes; the operands agree on the sizes of the
 * axes they share (contracted and batch) */
static void shape_dot(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0], *y = o[1];
  same_sizes(in, x->axes & y->axes, x, y, &s->valid);
  s->axes = e->ty.axes;
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (s->axes >> i & 1) s->size[i] = x->axes >> i & 1 ? x->size[i] : y->size[i];
}

/* CONV (XLA, named roles): input {batch, feature, spatial}, kernel {feature, out_feature,
 * spatial}. Per spatial named axis, with n, k the input and kernel sizes:
 *   N = lo + hi + (n - 1) * ld + 1 (n > 0; else lo + hi)   the dilated, padded input
 *   K = (k - 1) * rd + 1 (k > 0; else 0)                   the dilated window
 *   out = (N - K) div st + 1 if N >= K, else 0
 * valid: st >= 1, ld >= 1, rd >= 1, N >= 0, and the operands agree on feature sizes */
static AxV conv_size(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  const AxExpr *e = c->e;
  AxV nn = c->x->size[i][k], kk = c->y->size[i][k];
  AxV st = attr_at(in, e, 4, i, k, c->x), lo = attr_at(in, e, 5, i, k, c->x), hi = attr_at(in, e, 6, i, k, c->x);
  AxV ld = attr_at(in, e, 7, i, k, c->x), rd = attr_at(in, e, 8, i, k, c->x);
  AxV one = lit(in, 1), zero = lit(in, 0);
  AxV big_n = D->iadd(D, D->iadd(D, lo, hi),
                      D->ite(D, D->ilt(D, zero, nn), D->iadd(D, D->imul(D, D->isub(D, nn, one), ld), one),
                             zero, 0, AX_INT));
  AxV big_k = D->ite(D, D->ilt(D, zero, kk), D->iadd(D, D->imul(D, D->isub(D, kk, one), rd), one),
                     zero, 0, AX_INT);
  AxV safe = D->ite(D, D->ilt(D, zero, st), st, one, 0, AX_INT);
  AxV out = D->ite(D, D->ile(D, big_k, big_n),
                   D->iadd(D, D->idiv(D, D->isub(D, big_n, big_k), safe), one), zero, 0, AX_INT);
  AxV ok = and2(in, and2(in, D->ile(D, one, st), D->ile(D, one, ld)),
                and2(in, D->ile(D, one, rd), nonneg(in, big_n)));
  *c->ok = and2(in, *c->ok, ok);
  return out;
}

static void shape_conv(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *x = o[0], *w = o[1];
  uint64_t feat = attr_axes(in, e->ty.attrs[1]), sp = attr_axes(in, e->ty.attrs[3]);
  Axes c = {.in = in, .e = e, .x = x, .y = w, .ok = &s->valid};
  s->axes = e->ty.axes;
  /* axis by axis, so that the conditions keep the order of the axes */
  for (int i = 0; i < (int)in->syms->naxes; i++) {
    uint64_t bit = (uint64_t)1 << i;
    if (feat & bit) each_named(&c, bit, NULL, equal_size);
    if (!(s->axes & bit)) continue;
    if (sp & bit) each_named(&c, bit, s->size, conv_size);
    else s->size[i] = x->axes & bit ? x->size[i] : w->size[i];
  }
}

/* element-wise (BINOP, unary, compare, select, clamp; rms_norm keeps its operand's shape):
 * operands with axes have equal sizes; scalars broadcast */
static void shape_elementwise(AxInst *in, const AxExpr *e, AxShape *const *o, AxShape *s) {
  const AxShape *full = NULL;
  for (int i = 0; i < e->ty.nopnds; i++)
    if (o[i]->axes) {
      if (full) {
        AxV eq = D->bool_lit(D, true);
        same_sizes(in, full->axes, full, o[i], &eq);
        s->valid = and2(in, s->valid, eq);
      } else {
        full = o[i];
      }
    }
  if (full) copy_shape(s, full);
}

/* ---- values --------------------------------------------------------------------------- */

AxType ax_den_type(const AxInst *in, const AxExpr *e, AxType want) {
  switch (e->ty.elem) {
  case AX_ELEM_BOOL: return AX_BOOL;
  case AX_ELEM_INT: return AX_INT;
  case AX_ELEM_REAL:
  case AX_ELEM_REALLIT: return AX_REAL;
  case AX_ELEM_VAR: return in->T;
  default: return want == AX_BOOL ? AX_INT : want;   /* a number adapts to its context */
  }
}

/* The type operands first, first + 1, ... of an element-wise operator compute in (select
 * skips its predicate): the first operand whose type is not a literal's decides; all
 * literals take what the context wants. */
static AxType operand_type(const AxInst *in, const AxExpr *e, int first, AxType want) {
  for (int i = first; i < e->ty.nopnds; i++) {
    AxElem el = e->ty.opnds[i]->ty.elem;
    if (el != AX_ELEM_NUMLIT && el != AX_ELEM_REALLIT) return ax_den_type(in, e->ty.opnds[i], want);
  }
  for (int i = first; i < e->ty.nopnds; i++)
    if (e->ty.opnds[i]->ty.elem == AX_ELEM_REALLIT) return AX_REAL;
  return want == AX_BOOL ? AX_INT : want;
}

/* operand i of e at the access, in type t; a scalar operand ignores the access */
static AxV operand_at(AxInst *in, const AxExpr *e, int i, AxType t, const AxIndex *idx) {
  static const AxIndex none;
  const AxExpr *o = e->ty.opnds[i];
  return ax_den_at(in, o, t, o->ty.axes ? idx : &none);
}

static AxIndex *copy_index(AxInst *in, const AxIndex *idx) {
  AxIndex *c = ax_arena_alloc(in->a, sizeof *c);
  *c = *idx;
  return c;
}

/* The index idx restricted to the axes of expression o. */
static AxIndex *restrict_to(AxInst *in, const AxExpr *o, const AxIndex *idx) {
  AxIndex *j = ax_arena_alloc(in->a, sizeof *j);
  for (size_t i = 0; i < in->syms->naxes; i++)
    if (o->ty.axes >> i & 1) j->at[i] = idx->at[i];
  return j;
}

/* the "is this a boolean" argument of the domain's ite */
static int ite_kind(AxType t) { return t == AX_BOOL ? 1 : 2; }

/* A value rule: the element of application e at `idx`, computed in type t. */
typedef AxV ValueRule(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx);

/* CONST: [[const(v, S)]][A] = v */
static AxV at_constant(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return operand_at(in, e, 0, t, idx);
}

/* IOTA: [[iota(S, x)]][A] = A[x] (x has rank 1) */
static AxV at_iota(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  int ax = in->syms->syms[e->ty.attrs[1]->ty.sym].axis;
  return D->elem_of_int(D, t, idx->at[ax][0]);
}

/* EXPAND: [[expand(e, S)]][A] = [[e]][A without the new axes] */
static AxV at_broadcast(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  AxIndex *j = copy_index(in, idx);
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (!(x->axes >> i & 1)) j->at[i] = NULL;
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* PAD: y = x - lo; inside iff y >= 0, y mod (in+1) = 0, y div (in+1) < n on every named
 * axis; then A[y div (in+1)], else the padding value v */
static AxV pad_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV lo = attr_at(in, c->e, 0, i, k, c->x);
  AxV step = c->e->ty.op == AX_OP_PAD ? D->iadd(D, attr_at(in, c->e, 1, i, k, c->x), lit(in, 1)) : lit(in, 1);
  /* interior >= 0 wherever the value matters; keep the division well defined */
  step = D->ite(D, D->ilt(D, lit(in, 0), step), step, lit(in, 1), 0, AX_INT);
  AxV y = D->isub(D, c->idx->at[i][k], lo);
  AxV q = D->idiv(D, y, step);
  AxV ok = and2(in, nonneg(in, y), D->ieq(D, D->imod(D, y, step), lit(in, 0)));
  ok = and2(in, ok, D->ilt(D, q, c->x->size[i][k]));
  *c->ok = and2(in, *c->ok, ok);
  return q;
}

static AxV at_pad(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  AxIndex *j = copy_index(in, idx);
  AxV inside = D->bool_lit(D, true);
  each_named(&(Axes){.in = in, .e = e, .x = x, .idx = idx, .ok = &inside}, x->axes, j->at, pad_source);
  AxType ty = operand_type(in, e, 0, t);
  AxV v = operand_at(in, e, 1, ty, idx);
  return D->ite(D, inside, ax_den_at(in, e->ty.opnds[0], ty, j), v, ite_kind(ty), ty);
}

/* SLICE: [[slice(A, s, e, p)]][x] = A[s + p x] */
static AxV slice_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  return D->iadd(D, attr_at(in, c->e, 0, i, k, c->x), D->imul(D, attr_at(in, c->e, 2, i, k, c->x), c->idx->at[i][k]));
}

/* DYSLICE: [[dy-slice(A, s, l)]][x] = A[s + x] */
static AxV dynamic_slice_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  return D->iadd(D, attr_at(in, c->e, 0, i, k, c->x), c->idx->at[i][k]);
}

/* REVERSE: x -> n - 1 - x on the listed axes */
static AxV reverse_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  return D->isub(D, D->isub(D, c->x->size[i][k], lit(in, 1)), c->idx->at[i][k]);
}

/* a removed degenerate axis is read at index 0 */
static AxV zero(const Axes *c, int i, int k) {
  (void)i, (void)k;
  return lit(c->in, 0);
}

/* the operand read where `f` sends the access on the axes `axes` (others unchanged);
 * axes == NULL stands for the operand's own axes */
static AxV read_moved(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx, const uint64_t *axes,
                      PerAxis *f) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  AxIndex *j = copy_index(in, idx);
  each_named(&(Axes){.in = in, .e = e, .x = x, .idx = idx}, axes ? *axes : x->axes, j->at, f);
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

static AxV at_slice(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return read_moved(in, e, t, idx, NULL, slice_source);
}

static AxV at_dynamic_slice(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return read_moved(in, e, t, idx, NULL, dynamic_slice_source);
}

static AxV at_reverse(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  uint64_t rev = attr_axes(in, e->ty.attrs[0]);
  return read_moved(in, e, t, idx, &rev, reverse_source);
}

/* DYUPSLICE: U[x - s] if s <= x < s + |U| on every named axis, else A[x] */
static AxV update_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV st = attr_at(in, c->e, 0, i, k, c->x);
  AxV rel = D->isub(D, c->idx->at[i][k], st);
  *c->ok = and2(in, *c->ok, and2(in, nonneg(in, rel), D->ilt(D, rel, c->y->size[i][k])));
  return rel;
}

static AxV at_update(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxExpr *const *o = e->ty.opnds;
  const AxShape *x = shape_of(in, o[0]), *u = shape_of(in, o[1]);
  AxIndex *j = copy_index(in, idx);
  AxV inside = D->bool_lit(D, true);
  each_named(&(Axes){.in = in, .e = e, .x = x, .y = u, .idx = idx, .ok = &inside}, x->axes, j->at,
             update_source);
  return D->ite(D, inside, ax_den_at(in, o[1], t, j), ax_den_at(in, o[0], t, idx), ite_kind(t), t);
}

/* CONCAT: the first operand whose range along the axis holds the index, offset by the
 * sizes of the operands before it */
static AxV at_concat(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxExpr *const *o = e->ty.opnds;
  int cx = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  AxV result = NULL, offset = lit(in, 0);
  AxV conds[64];
  AxV vals[64] = {0};
  for (int j = 0; j < e->ty.nopnds; j++) {
    const AxShape *oj = shape_of(in, o[j]);
    AxIndex *ij = copy_index(in, idx);
    ij->at[cx] = new_sizes(in, cx);
    ij->at[cx][0] = D->isub(D, idx->at[cx][0], offset);
    offset = D->iadd(D, offset, oj->size[cx][0]);
    conds[j] = D->ilt(D, idx->at[cx][0], offset);
    vals[j] = ax_den_at(in, o[j], t, ij);
  }
  result = vals[e->ty.nopnds - 1];
  for (int j = e->ty.nopnds - 2; j >= 0; j--) result = D->ite(D, conds[j], vals[j], result, ite_kind(t), t);
  return result;
}

/* RELABEL: [[relabel(A, R)]][x] = A[x with axis R(a) read as a] */
static AxV at_relabel(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  AxIndex *j = ax_arena_alloc(in->a, sizeof *j);
  for (int i = 0; i < (int)in->syms->naxes; i++) {
    if (!(x->axes >> i & 1)) continue;
    int to = relabel_target(in, e->ty.attrs[0], i);
    j->at[i] = idx->at[to < 0 ? i : to];
  }
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* RESHAPE_DEGENERATE: removed axes are read at index 0, added ones dropped */
static AxV at_degenerate(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  uint64_t rem = attr_axes(in, e->ty.attrs[1]);
  AxIndex *j = copy_index(in, idx);
  each_named(&(Axes){.in = in, .e = e, .x = x, .idx = idx}, rem, j->at, zero);
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if (!(rem >> i & 1) && !(x->axes >> i & 1)) j->at[i] = NULL;
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* SPLIT: [[split(A)]][hi, lo] = A[a = hi * t + lo] */
static AxV at_split(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  int a = axis_of(in, e->ty.attrs[0], 0), hi = axis_of(in, e->ty.attrs[1], 0),
      lo = axis_of(in, e->ty.attrs[1], 1);
  AxIndex *j = copy_index(in, idx);
  j->at[a] = new_sizes(in, a);
  for (int k = 0; k < ax_den_rank(in, a); k++)
    j->at[a][k] = D->iadd(D, D->imul(D, idx->at[hi][k], attr_at(in, e, 0, a, k, x)), idx->at[lo][k]);
  j->at[hi] = j->at[lo] = NULL;
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* MERGE: [[merge(A)]][a] = A[hi = a div n_lo, lo = a mod n_lo] */
static AxV at_merge(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  int hi = axis_of(in, e->ty.attrs[0], 0), lo = axis_of(in, e->ty.attrs[0], 1),
      a = axis_of(in, e->ty.attrs[1], 0);
  AxIndex *j = copy_index(in, idx);
  j->at[hi] = new_sizes(in, hi);
  j->at[lo] = new_sizes(in, lo);
  for (int k = 0; k < ax_den_rank(in, a); k++) {
    AxV nl = x->size[lo][k];   /* n_lo = 0: no element exists; keep the division defined */
    AxV safe = D->ite(D, D->ilt(D, lit(in, 0), nl), nl, lit(in, 1), 0, AX_INT);
    j->at[hi][k] = D->idiv(D, idx->at[a][k], safe);
    j->at[lo][k] = D->imod(D, idx->at[a][k], safe);
  }
  j->at[a] = NULL;
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* GATHER: [[gather(A, I, y)]][z, x] = A[y = clamp(I[z], 0, n - 1), x] with n = A's size on
 * y (rank 1): XLA clamps a start index so that the slice (size 1 on y) fits. Over axle's
 * extended ints, +inf clamps to n - 1 and -inf to 0 (max/min order them so); a NaN index
 * (only from inf - inf: XLA's ints have none) reads index 0. The index is I's value, so
 * the read of A is at a point another read chose (docs/semantics.md, "How the rank bound
 * is inferred", covers it). */
static AxV at_gather(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxExpr *const *o = e->ty.opnds;
  int y = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  AxV n = shape_of(in, o[0])->size[y][0];
  AxV v = ax_den_at(in, o[1], AX_INT, restrict_to(in, o[1], idx));
  AxV lo = D->elem_of_int(D, AX_INT, lit(in, 0)), hi = D->elem_of_int(D, AX_INT, D->isub(D, n, lit(in, 1)));
  AxV c = D->elem_binary(D, AX_OP_MIN, AX_INT, D->elem_binary(D, AX_OP_MAX, AX_INT, v, lo), hi);
  AxV nan = D->elem_compare(D, AX_OP_NE, AX_INT, c, c);
  AxIndex *j = restrict_to(in, o[0], idx);
  j->at[y] = new_sizes(in, y);
  j->at[y][0] = D->ite(D, nan, lit(in, 0), D->int_of_elem(D, c), 0, AX_INT);
  return ax_den_at(in, o[0], t, j);
}

/* FLATTEN: [[flatten(A, x, a)]][a] = A[x.k = (a div ∏_{j>k} n.j) mod n.k] — row-major,
 * the last named axis fastest (a size 0 leaves no element; its divisor is kept defined).
 * The index on x.k mixes named axes: docs/semantics.md ("Flatten: the merge argument")
 * says why the rank bound of x's class is 1 when the rule is closed under merging. */
static AxV at_flatten(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *o = shape_of(in, e->ty.opnds[0]);
  int x = axis_of(in, e->ty.attrs[0], 0), a = axis_of(in, e->ty.attrs[1], 0);
  AxIndex *j = copy_index(in, idx);
  j->at[x] = new_sizes(in, x);
  j->at[a] = NULL;
  AxV f = idx->at[a][0];
  for (int k = ax_den_rank(in, x) - 1; k > 0; k--) {
    AxV n = o->size[x][k], safe = D->ite(D, D->ilt(D, lit(in, 0), n), n, lit(in, 1), 0, AX_INT);
    j->at[x][k] = D->imod(D, f, safe);
    f = D->idiv(D, f, safe);
  }
  j->at[x][0] = f;   /* below n.0 at a valid access (a < ∏ n): no mod, and a itself at rank 1 */
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* UNFLATTEN: [[unflatten(A, a, {x: s})]][x] = A[a = Σ_k x.k ∏_{j>k} s.j] (Horner) */
static AxV at_unflatten(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *r = shape_of(in, e);
  int a = axis_of(in, e->ty.attrs[0], 0), x = axis_of(in, e->ty.attrs[1], 0);
  AxIndex *j = copy_index(in, idx);
  AxV f = lit(in, 0);
  for (int k = 0; k < ax_den_rank(in, x); k++) f = D->iadd(D, D->imul(D, f, r->size[x][k]), idx->at[x][k]);
  j->at[x] = NULL;
  j->at[a] = new_sizes(in, a);
  j->at[a][0] = f;
  return ax_den_at(in, e->ty.opnds[0], t, j);
}

/* The sums (reduce, dot, conv, mean, rms_norm): the domain folds a summand over fresh
 * summation indices; the summand is the operator's (its row's `summand`). */
typedef struct SumCtx {
  AxInst *in;
  const AxExpr *e;
  AxType t;
  const AxIndex *idx;
  int n;                                           /* summation indices */
  int axis[AX_MAX_AXES * 8], k[AX_MAX_AXES * 8];   /* the named axis each one runs over */
} SumCtx;

/* What the domain's sum needs besides: each index's variable (NULL: a fresh one), bound
 * and name. */
typedef struct Indices {
  SumCtx *c;
  AxV vars[AX_MAX_AXES * 8], sizes[AX_MAX_AXES * 8];
  const char *names[AX_MAX_AXES * 8];
} Indices;

/* A summand rule: the summand at access j (the output access with the summation indices
 * filled in). */
typedef AxV SummandRule(SumCtx *c, AxIndex *j);

/* REDUCE, MEAN: A[x, y] */
static AxV summand_read(SumCtx *c, AxIndex *j) {
  const AxExpr *a = c->e->ty.opnds[0];
  return ax_den_at(c->in, a, c->t, restrict_to(c->in, a, j));
}

/* RMS_NORM: A[x, y]² */
static AxV summand_square(SumCtx *c, AxIndex *j) {
  AxInst *in = c->in;
  AxV v = summand_read(c, j);
  return D->elem_binary(D, AX_OP_MUL, c->t, v, v);
}

/* DOT: the product of the operands, each read on its own axes */
static AxV summand_product(SumCtx *c, AxIndex *j) {
  AxInst *in = c->in;
  AxExpr *const *o = c->e->ty.opnds;
  return D->elem_binary(D, AX_OP_MUL, c->t, ax_den_at(in, o[0], c->t, restrict_to(in, o[0], j)),
                        ax_den_at(in, o[1], c->t, restrict_to(in, o[1], j)));
}

/* CONV summand at output position p and window position w (per spatial named axis):
 *   q = p * st + w * rd; y = q - lo;
 *   In[b, f, y div ld] if y >= 0, y mod ld = 0 and y div ld < n on every spatial axis,
 *   else 0 (the padding) — times W[f, o, w] */
static AxV conv_source(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  const AxExpr *e = c->e;
  AxV p = c->idx->at[i][k], wpos = c->win->at[i][k];
  AxV st = attr_at(in, e, 4, i, k, c->x), lo = attr_at(in, e, 5, i, k, c->x);
  AxV ld = attr_at(in, e, 7, i, k, c->x), rd = attr_at(in, e, 8, i, k, c->x);
  AxV safe = D->ite(D, D->ilt(D, lit(in, 0), ld), ld, lit(in, 1), 0, AX_INT);
  AxV y = D->isub(D, D->iadd(D, D->imul(D, p, st), D->imul(D, wpos, rd)), lo);
  AxV q = D->idiv(D, y, safe);
  *c->ok = and2(in, *c->ok, and2(in, and2(in, nonneg(in, y), D->ieq(D, D->imod(D, y, safe), lit(in, 0))),
                                 D->ilt(D, q, c->x->size[i][k])));
  return q;
}

static AxV summand_conv(SumCtx *c, AxIndex *j) {
  AxInst *in = c->in;
  const AxExpr *e = c->e;
  AxExpr *const *o = e->ty.opnds;
  const AxShape *x = shape_of(in, o[0]);
  uint64_t sp = attr_axes(in, e->ty.attrs[3]);
  /* the kernel has every spatial axis (checked): it is read at the window position j */
  AxIndex *ii = restrict_to(in, o[0], j), *wi = restrict_to(in, o[1], j);
  AxV inside = D->bool_lit(D, true);
  each_named(&(Axes){.in = in, .e = e, .x = x, .idx = c->idx, .win = j, .ok = &inside}, sp, ii->at,
             conv_source);
  AxV a = D->ite(D, inside, ax_den_at(in, o[0], c->t, ii), D->elem_lit(D, c->t, "0", 0), 2, c->t);
  return D->elem_binary(D, AX_OP_MUL, c->t, a, ax_den_at(in, o[1], c->t, wi));
}

/* SCATTER at output row v (on y): U[z, x] if I[z] = v, else 0 — an index that is no row
 * (negative, too large, ±inf, NaN) equals no v and adds nothing */
static AxV summand_scatter(SumCtx *c, AxIndex *j) {
  AxInst *in = c->in;
  AxExpr *const *o = c->e->ty.opnds;
  int y = in->syms->syms[c->e->ty.attrs[0]->ty.sym].axis;
  AxV v = ax_den_at(in, o[1], AX_INT, restrict_to(in, o[1], j));
  AxV hit = D->elem_compare(D, AX_OP_EQ, AX_INT, v, D->elem_of_int(D, AX_INT, c->idx->at[y][0]));
  AxV u = ax_den_at(in, o[2], c->t, restrict_to(in, o[2], j));
  return D->ite(D, hit, u, D->elem_lit(D, c->t, "0", 0), 2, c->t);
}

static SummandRule *summand_of(AxOp op);

/* the summand at one tuple of the summation indices */
static AxV summand(void *p, const AxV *vals) {
  SumCtx *c = p;
  AxInst *in = c->in;
  AxIndex *j = ax_arena_alloc(in->a, sizeof *j);
  *j = *c->idx;
  for (int i = 0; i < c->n; i++) {
    int ax = c->axis[i];
    if (c->k[i] == 0) {
      j->at[ax] = new_sizes(in, ax);
      for (int k = 0; k < ax_den_rank(in, ax); k++) j->at[ax][k] = NULL;
    }
    j->at[ax][c->k[i]] = vals[i];
  }
  return summand_of((AxOp)c->e->ty.op)(c, j);
}

/* summation index over named axis (i, k): the variable of the index map the attribute
 * writes for axis i if any, else a fresh one; bounded by a->x's size there (the first
 * operand's; scatter's: the indices'; conv's window positions on a spatial axis: the
 * kernel's, a->y) */
static AxV sum_index(const Axes *a, int i, int k) {
  Indices *s = a->sum;
  SumCtx *c = s->c;
  AxInst *in = a->in;
  const AxExpr *e = a->e;
  const AxRuleSyms *y = in->syms;
  if (c->n == AX_MAX_AXES * 8) return NULL;
  bool conv = e->ty.op == AX_OP_CONV, spatial = conv && attr_axes(in, e->ty.attrs[3]) >> i & 1;
  const AxExpr *attr = !conv ? e->ty.attrs[0] : spatial ? e->ty.attrs[3] : e->ty.attrs[1];
  const AxExpr *map = NULL;   /* the index map written for this axis, if any */
  if (attr->kind == AX_E_AXMAP)
    for (size_t m = 0; m < attr->u.axmap.n; m++)
      if (strcmp(attr->u.axmap.entries[m].axis.name, y->syms[y->axes[i]].name) == 0)
        map = attr->u.axmap.entries[m].value;
  s->vars[c->n] = map ? in->maps[map->ty.sym][k] : NULL;
  s->sizes[c->n] = (spatial ? a->y : a->x)->size[i][k];
  s->names[c->n] = ax_arena_printf(in->a, "%s.%d", y->syms[y->axes[i]].name, k);
  c->axis[c->n] = i;
  c->k[c->n] = k;
  c->n++;
  return NULL;
}

/* REDUCE: [[reduce(A, Y)]][x] = Σ_{y < S(A)[Y]} A[x, y]
 * DOT:    [[dot(A, B, C, Bt)]][x] = Σ_{c < S(A)[C]} A[x|A, c] · B[x|B, c]
 * A summation index given as an index map ({y: j}) is that map's variable, so hints can
 * name it; otherwise the domain makes a fresh one. */
static AxV sum_over(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx, uint64_t axes,
                   const AxShape *x, const AxShape *w) {
  SumCtx *c = ax_arena_alloc(in->a, sizeof *c);   /* the domain may call summand later */
  *c = (SumCtx){.in = in, .e = e, .t = t, .idx = idx};
  Indices s;
  s.c = c;
  each_named(&(Axes){.in = in, .e = e, .x = x, .y = w, .sum = &s}, axes, NULL, sum_index);
  return D->sum(D, t, (size_t)c->n, s.vars, s.sizes, s.names, c->axis, c->k, summand, c);
}

static AxV at_sum(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  bool conv = e->ty.op == AX_OP_CONV;
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  const AxShape *w = conv ? shape_of(in, e->ty.opnds[1]) : x;
  /* REDUCE and DOT sum over their first attribute's axes; CONV over the feature axes and
   * the window positions of the spatial axes (sized by the kernel) */
  uint64_t axes = conv ? attr_axes(in, e->ty.attrs[1]) | attr_axes(in, e->ty.attrs[3])
                       : attr_axes(in, e->ty.attrs[0]);
  return sum_over(in, e, t, idx, axes, x, w);
}

/* SCATTER: [[scatter(A, I, U, y)]][y = v, x] = A[v, x] + Σ_{z < S(I)} (I[z] = v ? U[z, x] : 0)
 * — XLA's scatter with the add combiner, one row per index (docs/language.md). The sum runs
 * over I's axes with fresh indices (the axis attribute names no index map). */
static AxV at_scatter(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  const AxShape *ix = shape_of(in, e->ty.opnds[1]);
  AxV sum = sum_over(in, e, t, idx, ix->axes, ix, ix);
  return D->elem_binary(D, AX_OP_ADD, t, ax_den_at(in, e->ty.opnds[0], t, idx), sum);
}

/* MEAN:     [[mean(A, a)]][x] = (Σ_{y < n} A[x, a := y]) · (1 / n), n the size of axis a
 *           (one named axis: the class is fixed at rank 1), as programs scale a sum
 * RMS_NORM: [[rms_norm(A, a)]][x] = A[x] / sqrt((Σ_{y < n} A[x, a := y]²) · (1 / n)) —
 *           the programs' X / sqrt(mean(X·X, a)) with the mean broadcast back along a */
static AxV at_mean(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  int ax = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  AxV n = D->elem_of_int(D, t, shape_of(in, e->ty.opnds[0])->size[ax][0]);
  AxV inv = D->elem_binary(D, AX_OP_DIV, t, D->elem_lit(D, t, "1", 0), n);
  return D->elem_binary(D, AX_OP_MUL, t, at_sum(in, e, t, idx), inv);
}

static AxV at_rms_norm(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxV a = ax_den_at(in, e->ty.opnds[0], t, idx);
  return D->elem_binary(D, AX_OP_DIV, t, a, D->elem_unary(D, AX_OP_SQRT, t, at_mean(in, e, t, idx)));
}

/* select(P, A, B) = A where P, else B */
static AxV at_select(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxType ty = operand_type(in, e, 1, t);
  AxV p = operand_at(in, e, 0, AX_BOOL, idx);
  return D->ite(D, p, operand_at(in, e, 1, ty, idx), operand_at(in, e, 2, ty, idx), ite_kind(ty), ty);
}

/* clamp(lo, A, hi) = min(max(A, lo), hi) */
static AxV at_clamp(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxV lo = operand_at(in, e, 0, t, idx);
  AxV a = operand_at(in, e, 1, t, idx);
  AxV hi = operand_at(in, e, 2, t, idx);
  return D->elem_binary(D, AX_OP_MIN, t, D->elem_binary(D, AX_OP_MAX, t, a, lo), hi);
}

/* UNOP: the domain's function, element by element (log and rsqrt are real only; their
 * model is the domain's, docs/semantics.md) */
static AxV at_unary(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return D->elem_unary(D, (AxOp)e->ty.op, t, operand_at(in, e, 0, t, idx));
}

/* square(A) = A * A */
static AxV at_square(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxV a = operand_at(in, e, 0, t, idx);
  return D->elem_binary(D, AX_OP_MUL, t, a, a);
}

/* logistic(A) = 1 / (1 + exp(-A)), silu's sigmoid: defined through exp so that the solver
 * facts about exp apply and a replay is exact where exp is (docs/semantics.md) */
static AxV logistic(AxInst *in, AxType t, AxV a) {
  (void)in;
  AxV one = D->elem_lit(D, t, "1", 0);
  AxV ex = D->elem_unary(D, AX_OP_EXP, t, D->elem_unary(D, AX_OP_NEG, t, a));
  return D->elem_binary(D, AX_OP_DIV, t, one, D->elem_binary(D, AX_OP_ADD, t, one, ex));
}

/* silu(A) = A * sigmoid(A) = A * (1 / (1 + exp(-A))), as in PyTorch */
static AxV at_silu(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxV a = operand_at(in, e, 0, t, idx);
  return D->elem_binary(D, AX_OP_MUL, t, a, logistic(in, t, a));
}

static AxV at_logistic(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return logistic(in, t, operand_at(in, e, 0, t, idx));
}

/* TANH: [[tanh(A)]] = 1 where A = +inf, else (exp(2A) - 1) / (exp(2A) + 1), through exp as
 * logistic is. XLA's tanh is ±1 at ±inf (its polynomial clamps the operand; the C library's
 * tanh(±inf) = ±1, C11 F.10.2.6: docs/semantics.md "Special values"). The exp form alone
 * is inf / inf = NaN at +inf; at -inf it is already (0 - 1) / (0 + 1) = -1, and NaN gives
 * NaN through both. Sound: the branch is chosen by the operand's class and each branch is
 * tanh's value on its part of the domain, so the term is tanh everywhere. As provable as the
 * exp form alone: a finite operand (every input element is one) has the constant false as
 * its +inf flag, which the term builder folds, so such a query is the exp form's. Once the
 * domain has left its fragment (a reduction operand leaves it at exp) nothing it computes
 * is used: the form is returned as it is, and the first reason kept. */
static AxV at_tanh(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxV a = operand_at(in, e, 0, t, idx);
  AxV one = D->elem_lit(D, t, "1", 0);
  AxV ex = D->elem_unary(D, AX_OP_EXP, t, D->elem_binary(D, AX_OP_MUL, t, D->elem_lit(D, t, "2", 0), a));
  AxV form = D->elem_binary(D, AX_OP_DIV, t, D->elem_binary(D, AX_OP_SUB, t, ex, one),
                            D->elem_binary(D, AX_OP_ADD, t, ex, one));
  if (D->unsupported) return form;
  AxV at_inf = D->elem_compare(D, AX_OP_EQ, t, a, D->elem_lit(D, t, "inf", 1));
  return D->ite(D, at_inf, one, form, ite_kind(t), t);
}

/* CMP: the operands compare in their own type (two literals: in T, int when T is bool);
 * the result is a bool whatever the context wants */
static AxV at_compare(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  (void)t;
  AxType ty = operand_type(in, e, 0, AX_INT);
  if (e->ty.opnds[0]->ty.elem == AX_ELEM_NUMLIT && e->ty.opnds[1]->ty.elem == AX_ELEM_NUMLIT)
    ty = in->T == AX_BOOL ? AX_INT : in->T;
  return D->elem_compare(D, (AxOp)e->ty.op, ty, operand_at(in, e, 0, ty, idx), operand_at(in, e, 1, ty, idx));
}

/* BINOP: element-wise, scalars broadcast */
static AxV at_binary(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  return D->elem_binary(D, (AxOp)e->ty.op, t, operand_at(in, e, 0, t, idx), operand_at(in, e, 1, t, idx));
}

/* ---- where an application reads an operand ---------------------------------------------
 *
 * An inverse rule answers: at which index of application e is operand `j` read at index
 * q? (NULL: no single such index, or not worked out for this operator.) Tensor
 * preconditions use it to look for the point of their own shape that constrains the
 * element a rule reads (ax_den_assume): for `require reverse(A, [x]) > 0` and a read of A
 * at q, the point n - 1 - q. An index it returns may lie outside e's shape, or not read
 * q at all (a stride that does not divide): every instance is guarded by "inside the
 * shape", so a wrong candidate costs a useless assumption, never a wrong one. Axes of e
 * the operand does not have are left NULL (the caller fills them). */
typedef AxIndex *InverseRule(AxInst *in, const AxExpr *e, int j, const AxIndex *q);

/* element-wise: the same index (a scalar operand is read at every index: left open) */
static AxIndex *inv_same(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  (void)j;
  return restrict_to(in, e, q);
}

/* the operand's index moved on the listed axes by f, each named axis in turn; none when q
 * does not fix an axis it moves (a scalar read below: read at every index) */
static AxIndex *inv_moved(AxInst *in, const AxExpr *e, const AxIndex *q, uint64_t axes, PerAxis *f) {
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  for (int i = 0; i < (int)in->syms->naxes; i++)
    if ((axes & x->axes) >> i & 1 && !q->at[i]) return NULL;
  AxIndex *p = restrict_to(in, e, q);
  each_named(&(Axes){.in = in, .e = e, .x = x, .idx = q}, axes & x->axes, p->at, f);
  return p;
}

/* PAD: operand index y is output index y (interior + 1) + lo */
static AxV pad_target(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV lo = attr_at(in, c->e, 0, i, k, c->x);
  AxV step = c->e->ty.op == AX_OP_PAD ? D->iadd(D, attr_at(in, c->e, 1, i, k, c->x), lit(in, 1)) : lit(in, 1);
  return D->iadd(D, D->imul(D, c->idx->at[i][k], step), lo);
}

static AxIndex *inv_pad(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  return j == 0 ? inv_moved(in, e, q, ~(uint64_t)0, pad_target) : NULL;
}

/* SLICE: operand index s + p x is output index x = (y - s) div p (p >= 1 when valid) */
static AxV slice_target(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  AxV stride = attr_at(in, c->e, 2, i, k, c->x);
  stride = D->ite(D, D->ilt(D, lit(in, 0), stride), stride, lit(in, 1), 0, AX_INT);
  return D->idiv(D, D->isub(D, c->idx->at[i][k], attr_at(in, c->e, 0, i, k, c->x)), stride);
}

static AxIndex *inv_slice(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  (void)j;
  return inv_moved(in, e, q, ~(uint64_t)0, slice_target);
}

/* DYSLICE: operand index s + x is output index x */
static AxV dynamic_slice_target(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  return D->isub(D, c->idx->at[i][k], attr_at(in, c->e, 0, i, k, c->x));
}

static AxIndex *inv_dynamic_slice(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  (void)j;
  return inv_moved(in, e, q, ~(uint64_t)0, dynamic_slice_target);
}

/* REVERSE: its own inverse */
static AxIndex *inv_reverse(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  (void)j;
  return inv_moved(in, e, q, attr_axes(in, e->ty.attrs[0]), reverse_source);
}

/* DYUPSLICE: the operand A where it shows, the update U at s + x */
static AxV update_target(const Axes *c, int i, int k) {
  AxInst *in = c->in;
  return D->iadd(D, c->idx->at[i][k], attr_at(in, c->e, 0, i, k, c->x));
}

static AxIndex *inv_update(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  return j == 0 ? restrict_to(in, e, q) : inv_moved(in, e, q, ~(uint64_t)0, update_target);
}

/* CONCAT: operand j at y is the output at y + the sizes of the operands before it */
static AxIndex *inv_concat(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  int cx = in->syms->syms[e->ty.attrs[0]->ty.sym].axis;
  AxV offset = lit(in, 0);
  for (int i = 0; i < j; i++) offset = D->iadd(D, offset, shape_of(in, e->ty.opnds[i])->size[cx][0]);
  AxIndex *p = restrict_to(in, e, q);
  if (!q->at[cx]) return NULL;
  p->at[cx] = new_sizes(in, cx);
  p->at[cx][0] = D->iadd(D, q->at[cx][0], offset);
  return p;
}

/* RELABEL: the operand's axis a is the output's axis R(a) */
static AxIndex *inv_relabel(AxInst *in, const AxExpr *e, int j, const AxIndex *q) {
  (void)j;
  const AxShape *x = shape_of(in, e->ty.opnds[0]);
  AxIndex *p = ax_arena_alloc(in->a, sizeof *p);
  for (int i = 0; i < (int)in->syms->naxes; i++) {
    if (!(x->axes >> i & 1)) continue;
    int to = relabel_target(in, e->ty.attrs[0], i);
    p->at[to < 0 ? i : to] = q->at[i];
  }
  return p;
}

/* ---- the operator table --------------------------------------------------------------- */

/* An operator's denotation: its shape rule, its value rule, for the sums the summand, and
 * where it reads its operands (inverse rules, above; NULL: not worked out). */
typedef struct OpDen {
  ShapeRule *shape;
  ValueRule *at;
  SummandRule *summand;   /* the operators whose value rule is a sum (at_sum) */
  InverseRule *inv;
} OpDen;

/* Every rule-level operator (AX_LV_RULE in AX_OP_LIST) has its row; operators of one
 * family share their functions. A missing row is an internal error at its first use, and
 * check_semantics' completeness test walks AX_OP_LIST so that it never reaches a user. */
static const OpDen dens[AX_OP_COUNT] = {
    [AX_OP_CONSTANT] = {.shape = shape_sized, .at = at_constant},
    [AX_OP_IOTA] = {.shape = shape_sized, .at = at_iota},
    [AX_OP_BROADCAST] = {.shape = shape_broadcast, .at = at_broadcast, .inv = inv_same},
    [AX_OP_ADD] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_SUB] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_MUL] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_DIV] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_REM] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_MAX] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_MIN] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_NEG] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_ABS] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_EXP] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_AND] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_OR] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_NOT] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_EQ] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_NE] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_LT] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_LE] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_GT] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_GE] = {.shape = shape_elementwise, .at = at_compare, .inv = inv_same},
    [AX_OP_SELECT] = {.shape = shape_elementwise, .at = at_select, .inv = inv_same},
    [AX_OP_CLAMP] = {.shape = shape_elementwise, .at = at_clamp, .inv = inv_same},
    [AX_OP_PAD] = {.shape = shape_pad, .at = at_pad, .inv = inv_pad},
    [AX_OP_PAD_LOW] = {.shape = shape_pad, .at = at_pad, .inv = inv_pad},
    [AX_OP_SLICE] = {.shape = shape_slice, .at = at_slice, .inv = inv_slice},
    [AX_OP_DYNAMIC_SLICE] = {.shape = shape_dynamic_slice, .at = at_dynamic_slice, .inv = inv_dynamic_slice},
    [AX_OP_DYNAMIC_UPDATE_SLICE] = {.shape = shape_update, .at = at_update, .inv = inv_update},
    [AX_OP_CONCAT] = {.shape = shape_concat, .at = at_concat, .inv = inv_concat},
    [AX_OP_RELABEL] = {.shape = shape_relabel, .at = at_relabel, .inv = inv_relabel},
    [AX_OP_REVERSE] = {.shape = shape_operand, .at = at_reverse, .inv = inv_reverse},
    [AX_OP_RESHAPE_DEGENERATE] = {.shape = shape_degenerate, .at = at_degenerate},
    [AX_OP_REDUCE] = {.shape = shape_reduce, .at = at_sum, .summand = summand_read, .inv = inv_same},
    [AX_OP_DOT] = {.shape = shape_dot, .at = at_sum, .summand = summand_product},
    [AX_OP_CONV] = {.shape = shape_conv, .at = at_sum, .summand = summand_conv},
    [AX_OP_SQUARE] = {.shape = shape_elementwise, .at = at_square, .inv = inv_same},
    [AX_OP_SQRT] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_SILU] = {.shape = shape_elementwise, .at = at_silu, .inv = inv_same},
    [AX_OP_MEAN] = {.shape = shape_reduce, .at = at_mean, .summand = summand_read, .inv = inv_same},
    [AX_OP_RMS_NORM] = {.shape = shape_elementwise, .at = at_rms_norm, .summand = summand_square, .inv = inv_same},
    [AX_OP_LOG] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_POW] = {.shape = shape_elementwise, .at = at_binary, .inv = inv_same},
    [AX_OP_RSQRT] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_RESHAPE_SPLIT] = {.shape = shape_split, .at = at_split},
    [AX_OP_RESHAPE_MERGE] = {.shape = shape_merge, .at = at_merge},
    [AX_OP_GATHER] = {.shape = shape_gather, .at = at_gather},
    [AX_OP_SCATTER] = {.shape = shape_scatter, .at = at_scatter, .summand = summand_scatter},
    [AX_OP_FLATTEN] = {.shape = shape_flatten, .at = at_flatten},
    [AX_OP_UNFLATTEN] = {.shape = shape_unflatten, .at = at_unflatten},
    [AX_OP_TANH] = {.shape = shape_elementwise, .at = at_tanh, .inv = inv_same},
    [AX_OP_LOGISTIC] = {.shape = shape_elementwise, .at = at_logistic, .inv = inv_same},
    /* a conversion: the domain's rounding to the format (semantics/convert.h) */
    [AX_OP_TO_F16] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_TO_BF16] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
    [AX_OP_TO_F32] = {.shape = shape_elementwise, .at = at_unary, .inv = inv_same},
};

bool ax_den_knows(AxOp op) { return op >= 0 && op < AX_OP_COUNT && dens[op].shape && dens[op].at; }

static const OpDen *den_of(AxOp op) {
  AX_ASSERT(ax_den_knows(op));   /* a rule-level operator without its row in dens */
  return &dens[op];
}

static SummandRule *summand_of(AxOp op) {
  SummandRule *f = den_of(op)->summand;
  AX_ASSERT(f);   /* at_sum is the value rule only of operators with a summand */
  return f;
}

/* The shape of an application: its operands' shapes, their validity conjoined, then the
 * operator's shape rule. */
static AxShape *shape_op(AxInst *in, const AxExpr *e) {
  AxShape *s = ax_arena_alloc(in->a, sizeof *s);
  AxShape *o[64];
  s->valid = D->bool_lit(D, true);
  for (int i = 0; i < e->ty.nopnds; i++) {
    o[i] = shape_of(in, e->ty.opnds[i]);
    s->valid = and2(in, s->valid, o[i]->valid);
  }
  den_of((AxOp)e->ty.op)->shape(in, e, o, s);
  return s;
}

static AxShape *shape_of(AxInst *in, const AxExpr *e) {
  for (size_t i = 0; i < in->memo.len; i++) {
    Memo *m = in->memo.items[i];
    if (m->e == e) return m->shape;
  }
  AxShape *s;
  if (e->ty.op >= 0) {
    s = shape_op(in, e);
  } else if (e->kind == AX_E_NAME && name_sym(in, e)->kind == AX_SYM_LET) {
    s = shape_of(in, name_sym(in, e)->def);
  } else if (e->kind == AX_E_NAME) {
    /* an input tensor: sizes from its declaration, each >= 0 */
    const AxSym *t = name_sym(in, e);
    s = ax_arena_alloc(in->a, sizeof *s);
    s->axes = t->axes;
    s->valid = D->bool_lit(D, true);
    for (int j = 0; j < t->ndims; j++) {
      int ax = t->dim_axis[j];
      s->size[ax] = new_sizes(in, ax);
      for (int k = 0; k < ax_den_rank(in, ax); k++) {
        s->size[ax][k] = ax_den_map(in, t->dim_size[j], k);
        s->valid = and2(in, s->valid, nonneg(in, s->size[ax][k]));
      }
    }
  } else {   /* a literal: a scalar */
    s = ax_arena_alloc(in->a, sizeof *s);
    s->valid = D->bool_lit(D, true);
  }
  Memo *m = ax_arena_alloc(in->a, sizeof *m);
  m->e = e;
  m->shape = s;
  ax_vec_push(in->a, &in->memo, m);
  return s;
}

const AxShape *ax_den_shape(AxInst *in, const AxExpr *e) { return shape_of(in, e); }


/* literal arithmetic such as 1 + 2 (and true and false): the operator an infix operator
 * stands for, on literals in type t (comparisons in T, int when T is bool) */
static AxV literal_binary(AxInst *in, const AxExpr *e, AxType t, const AxIndex *idx) {
  AxOp op = ax_check_infix_op(e->u.binary.op);
  const AxExpr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
  if (op == AX_OP_AND || op == AX_OP_OR)
    return D->elem_binary(D, op, AX_BOOL, ax_den_at(in, l, AX_BOOL, idx), ax_den_at(in, r, AX_BOOL, idx));
  if (op >= AX_OP_EQ && op <= AX_OP_GE) {
    AxType ty = in->T == AX_BOOL ? AX_INT : in->T;
    return D->elem_compare(D, op, ty, ax_den_at(in, l, ty, idx), ax_den_at(in, r, ty, idx));
  }
  return D->elem_binary(D, op, t, ax_den_at(in, l, t, idx), ax_den_at(in, r, t, idx));
}

/* an input tensor read at the access, in its own element type whatever the context wants;
 * the indices flat, in declaration order of its dimensions */
static AxV read_tensor(AxInst *in, const AxExpr *e, const AxIndex *idx) {
  const AxSym *s = name_sym(in, e);
  AX_ASSERT(s->kind == AX_SYM_TENSOR);
  AxType own = s->elem == AX_ELEM_VAR ? in->T : s->elem == AX_ELEM_BOOL ? AX_BOOL
             : s->elem == AX_ELEM_INT ? AX_INT : AX_REAL;
  AxV args[AX_MAX_AXES * 8];
  size_t n = 0;
  for (int j = 0; j < s->ndims; j++) {
    int ax = s->dim_axis[j];
    for (int k = 0; k < ax_den_rank(in, ax) && n < AX_COUNTOF(args); k++) {
      AX_ASSERT(idx->at[ax]);
      args[n++] = idx->at[ax][k];
    }
  }
  return D->read(D, e->ty.sym, own, args, n);
}

AxV ax_den_at(AxInst *in, const AxExpr *e, AxType want, const AxIndex *idx) {
  AxType t = ax_den_type(in, e, want);
  if (e->ty.op >= 0) return den_of((AxOp)e->ty.op)->at(in, e, t, idx);
  switch (e->kind) {
  case AX_E_INT:
  case AX_E_REAL:
    return D->elem_lit(D, t, e->u.text, 0);
  case AX_E_INF:
    return D->elem_lit(D, t, "0", 1);
  case AX_E_BOOL:
    return D->bool_lit(D, e->u.boolean);
  case AX_E_UNARY:   /* -2.5, not true: a literal operated on */
    if (e->u.unary.op == AX_UN_NOT)
      return D->elem_unary(D, AX_OP_NOT, AX_BOOL, ax_den_at(in, e->u.unary.arg, AX_BOOL, idx));
    return D->elem_unary(D, AX_OP_NEG, t, ax_den_at(in, e->u.unary.arg, t, idx));
  case AX_E_BINARY:
    return literal_binary(in, e, t, idx);
  case AX_E_NAME: {
    const AxSym *s = name_sym(in, e);
    if (s->kind == AX_SYM_LET) return ax_den_at(in, s->def, want, idx);
    return read_tensor(in, e, idx);
  }
  default:
    AX_UNREACHABLE();
  }
  return NULL;
}

/* ---- assumptions ---------------------------------------------------------------------- */

/* a point as an access over its tensor's axes */
static AxIndex *point_index(AxInst *in, const AxPoint *p) {
  const AxSym *t = &in->syms->syms[p->sym];
  AxIndex *idx = ax_arena_alloc(in->a, sizeof *idx);
  size_t pos = 0;
  for (int j = 0; j < t->ndims; j++) {
    int ax = t->dim_axis[j], rk = ax_den_rank(in, ax);
    idx->at[ax] = ax_arena_alloc(in->a, (size_t)(rk + 1) * sizeof(AxV));
    for (int k = 0; k < rk; k++) idx->at[ax][k] = p->idx[pos++];
  }
  return idx;
}

AxV ax_den_pre_inside(AxInst *in, const AxShape *shape, const AxIndex *p) {
  AxV ok = D->bool_lit(D, true);
  for (int ax = 0; ax < AX_MAX_AXES; ax++)
    if (shape->axes >> ax & 1)
      for (int k = 0; k < ax_den_rank(in, ax); k++)
        ok = and2(in, ok, and2(in, D->ile(D, lit(in, 0), p->at[ax][k]), D->ilt(D, p->at[ax][k], shape->size[ax][k])));
  return ok;
}

/* c at p, guarded: p outside c's shape says nothing */
static AxV pre_at(AxInst *in, const AxExpr *c, const AxShape *shape, const AxIndex *p) {
  return D->bor(D, D->bnot(D, ax_den_pre_inside(in, shape, p)), ax_den_at(in, c, AX_BOOL, p));
}

/* The indices of e that read input tensor `sym` at q, through the inverse rules (into
 * out; none where a rule is missing). */
static void preimages(AxInst *in, const AxExpr *e, int sym, const AxIndex *q, AxVec *out) {
  if (e->ty.op >= 0) {
    InverseRule *inv = den_of((AxOp)e->ty.op)->inv;
    if (!inv) return;
    for (int j = 0; j < e->ty.nopnds; j++) {
      AxVec sub = {0};
      preimages(in, e->ty.opnds[j], sym, q, &sub);
      for (size_t i = 0; i < sub.len; i++) {
        AxIndex *p = inv(in, e, j, sub.items[i]);
        if (p) ax_vec_push(in->a, out, p);
      }
    }
  } else if (e->kind == AX_E_NAME) {
    const AxSym *s = name_sym(in, e);
    if (s->kind == AX_SYM_LET) preimages(in, s->def, sym, q, out);
    else if (e->ty.sym == sym) ax_vec_push(in->a, out, (void *)q);
  }
}

/* p with the axes of c it leaves open taken from `fill` (the access) where it has them,
 * else 0 */
static AxIndex *complete_index(AxInst *in, const AxExpr *c, const AxIndex *p, const AxIndex *fill) {
  AxIndex *r = copy_index(in, p);
  for (int ax = 0; ax < (int)in->syms->naxes; ax++) {
    if (!(c->ty.axes >> ax & 1)) {
      r->at[ax] = NULL;
      continue;
    }
    if (r->at[ax]) continue;
    if (fill && fill->at[ax]) {
      r->at[ax] = fill->at[ax];
      continue;
    }
    r->at[ax] = new_sizes(in, ax);
    for (int k = 0; k < ax_den_rank(in, ax); k++) r->at[ax][k] = lit(in, 0);
  }
  return r;
}

/* p joins the candidates of c unless one with the same index terms is there already:
 * every instance adds reads and folds that bound inference counts, so none twice */
static void add_candidate(AxInst *in, const AxExpr *c, AxVec *cands, const AxIndex *p) {
  for (size_t i = 0; i < cands->len; i++) {
    const AxIndex *o = cands->items[i];
    bool same = true;
    for (int ax = 0; ax < (int)in->syms->naxes && same; ax++)
      if (c->ty.axes >> ax & 1)
        for (int k = 0; k < ax_den_rank(in, ax) && same; k++) same = o->at[ax][k] == p->at[ax][k];
    if (same) return;
  }
  ax_vec_push(in->a, cands, (void *)p);
}

AxV ax_den_assume(AxInst *in, const AxPoint *points, size_t npoints, const AxIndex *acc,
                  uint64_t acc_axes) {
  const AxRuleSyms *s = in->syms;
  AxV ok = D->bool_lit(D, true);
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if (y->kind == AX_SYM_MAP && y->nonneg && !y->def && in->maps[i])
      for (int k = 0; k < in->rank[y->rclass]; k++) ok = and2(in, ok, nonneg(in, in->maps[i][k]));
    if (y->kind == AX_SYM_TENSOR && !y->bad)
      for (int j = 0; j < y->ndims; j++)
        for (int k = 0; k < ax_den_rank(in, y->dim_axis[j]); k++)
          ok = and2(in, ok, nonneg(in, ax_den_map(in, y->dim_size[j], k)));
  }
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->ty.kind != AX_K_TENSOR) {
      ok = and2(in, ok, ax_den_closed(in, c));
      continue;
    }
    /* A tensor condition means: c is well-formed, and c[p] holds at every point p of its
     * own shape (docs/semantics.md, "Tensor preconditions"). Each instance assumed below
     * is guarded by "p inside c's shape", so it is a consequence of that meaning wherever
     * the candidate p lies: a read in a branch not taken, an index a slice or a pad moved
     * outside. The candidates are the points the query looks at: the access (when it has
     * c's axes) and, for every element the sides read of a tensor c mentions, the points
     * of c that read it (preimages). Instantiating at fewer points than all can only leave
     * a rule unproved; the replay then checks c at every point (verifier/cex.c). */
    const AxShape *shape = ax_den_shape(in, c);
    ok = and2(in, ok, shape->valid);
    if (!c->ty.axes) {
      ok = and2(in, ok, ax_den_at(in, c, AX_BOOL, &(AxIndex){0}));
      continue;
    }
    const AxIndex *fill = acc_axes ? acc : NULL;
    AxVec cands = {0};
    if ((acc_axes & c->ty.axes) == c->ty.axes) add_candidate(in, c, &cands, acc);
    for (size_t j = 0; j < npoints; j++) {
      /* the points of c that read this element (the same point through element-wise
       * operators; moved through reverse, slice, pad, relabel, concat, ...) */
      AxVec pre = {0};
      preimages(in, c, points[j].sym, point_index(in, &points[j]), &pre);
      for (size_t m = 0; m < pre.len; m++) add_candidate(in, c, &cands, complete_index(in, c, pre.items[m], fill));
    }
    for (size_t m = 0; m < cands.len; m++) ok = and2(in, ok, pre_at(in, c, shape, cands.items[m]));
  }
  return ok;
}
