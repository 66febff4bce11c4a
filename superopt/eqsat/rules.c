/* rules.c — proved rules as rewrites (rules.h; docs/egraph.md, "Rules as rewrites"). */
#include "superopt/eqsat/rules.h"

#include <stdlib.h>
#include <string.h>

#include "superopt/ir/tensor.h"

/* One translated rule: its symbols and the class variables of its patterns. Shared by its
 * one or two rewrites (the condition reads which variables the matching side bound). */
typedef struct Rule {
  AxEqRules *rs;
  const AxBlock *b;
  const AxRuleSyms *s;
  uint32_t nvars;
  int *var_sym;         /* class variable -> tensor symbol; -1 for an axis variable */
  int *var_axis;        /* axis variable -> the aggregated axis whose position it binds; -1 */
  int *sym_var;         /* tensor symbol -> class variable, -1 */
  int axis_var[AX_MAX_AXES];   /* aggregated axis -> its axis variable, -1 */
  uint64_t full;        /* the aggregated axes of the rule's tensors: each has them all or none */
  uint64_t result;      /* the aggregated axes of the rewrite's result */
  bool *mask;           /* class variable -> a bool tensor (a select's mask) */
  bool divrem;          /* requires may use / and % on maps (integers: the reshape rules) */
} Rule;

/* The comparisons: element-wise in programs and rules alike, a boolean result. */
static bool cmp(AxOp op) {
  return op == AX_OP_EQ || op == AX_OP_NE || op == AX_OP_LT || op == AX_OP_LE || op == AX_OP_GT ||
         op == AX_OP_GE;
}

static bool ew(AxOp op) {
  return op == AX_OP_ADD || op == AX_OP_SUB || op == AX_OP_MUL || op == AX_OP_DIV ||
         op == AX_OP_NEG || op == AX_OP_EXP || op == AX_OP_SQUARE || op == AX_OP_SQRT ||
         op == AX_OP_SILU || cmp(op);
}

static int64_t gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a ? a : 1;
}

static AxEgPat *lit(AxArena *a, AxRat v) {
  int64_t c = gcd(v.num, v.den);
  AxEgPatAttr at[2] = {{.value = v.num / c}, {.value = v.den / c}};
  return ax_eg_pat_node(a, AX_OP_CONSTANT, 2, at, 0, NULL);
}

static bool is_literal(const AxExpr *e) { return e->kind == AX_E_INT || e->kind == AX_E_REAL; }

static AxEgPat *pat(Rule *r, const AxExpr *e, const char **why);

/* reduce(A, [a]), mean(A, axis=a), rms_norm(A, axis=a): the program's sum, mean and rms_norm
 * along one dimension, which keep it (size 1, or its size for rms_norm) where the rule's
 * reduce and mean remove the axis — the same values, laid out with that dimension kept. The
 * dimension is an attribute variable: the condition binds aggregated axis a to it (rank 1). */
static AxEgPat *along(Rule *r, const AxExpr *e, AxOp op, const char **why) {
  const AxExpr *at = e->ty.attrs ? e->ty.attrs[0] : NULL;
  if (at && op == AX_OP_REDUCE) {
    if (at->kind != AX_E_LIST || at->u.list.n != 1) {
      *why = at->kind == AX_E_LIST ? "a reduce over several axes (a program's sum takes one)"
                                   : "a reduce with summation indices";
      return NULL;
    }
    at = at->u.list.items[0];
  }
  if (!at || at->ty.kind != AX_K_AXIS || at->ty.sym < 0 || e->ty.nopnds != 1) {
    *why = "a reduction whose axis is not one named axis";
    return NULL;
  }
  int ax = r->s->syms[at->ty.sym].axis;
  if (ax < 0 || ax >= AX_MAX_AXES) {
    *why = "a reduction whose axis is not one named axis";
    return NULL;
  }
  if (r->axis_var[ax] < 0) {
    r->axis_var[ax] = (int)r->nvars;
    r->var_sym[r->nvars] = -1;
    r->var_axis[r->nvars++] = ax;
  }
  AxEgPat *kid = pat(r, e->ty.opnds[0], why);
  if (!kid) return NULL;
  /* the lowered attributes (lang.h): axis, to = 0, times = 0, no shape */
  AxEgPatAttr attrs[4] = {{.var = true, .v = (uint32_t)r->axis_var[ax]}, {.value = 0}, {.value = 0}, {.value = 0}};
  return ax_eg_pat_node(r->rs->a, op, 4, attrs, 1, &kid);
}

/* The pattern of checked tensor expression e; NULL with the reason in *why. */
static AxEgPat *pat(Rule *r, const AxExpr *e, const char **why) {
  AxArena *a = r->rs->a;
  AxRat v;
  if (is_literal(e)) {
    if (ax_rat_parse(e->u.text, &v)) return lit(a, v);
    *why = "a literal that is no exact rational";
    return NULL;
  }
  if (e->kind == AX_E_UNARY && e->u.unary.op == AX_UN_NEG && is_literal(e->u.unary.arg)) {
    if (!ax_rat_parse(e->u.unary.arg->u.text, &v)) {
      *why = "a literal that is no exact rational";
      return NULL;
    }
    v.num = -v.num;
    return lit(a, v);
  }
  if (e->kind == AX_E_NAME) {
    int k = e->ty.sym;
    const AxSym *y = k >= 0 ? &r->s->syms[k] : NULL;
    if (y && y->kind == AX_SYM_LET) return pat(r, y->def, why);
    if (!y || y->kind != AX_SYM_TENSOR) {
      *why = "a name that is no tensor";
      return NULL;
    }
    if (y->elem != AX_ELEM_VAR && y->elem != AX_ELEM_REAL && y->elem != AX_ELEM_BOOL) {
      *why = "a tensor that is not real (programs are f16, bf16, f32)";
      return NULL;
    }
    if (y->axes != 0 && y->axes != r->full) {
      *why = "tensors of different axes (broadcasting in the rule)";
      return NULL;
    }
    if (r->sym_var[k] < 0) {
      r->sym_var[k] = (int)r->nvars;
      r->mask[r->nvars] = y->elem == AX_ELEM_BOOL;
      r->var_sym[r->nvars++] = k;
    }
    return ax_eg_pat_var(a, (uint32_t)r->sym_var[k]);
  }
  if (e->ty.kind != AX_K_TENSOR || e->ty.op < 0) {
    *why = e->kind == AX_E_INF ? "an infinite literal" : "an expression that is no tensor operator";
    return NULL;
  }
  AxOp op = (AxOp)e->ty.op;
  if (op == AX_OP_REDUCE || op == AX_OP_MEAN || op == AX_OP_RMS_NORM) return along(r, e, op, why);
  if (op == AX_OP_SELECT) {
    /* select(P, A, B): the program's select, whose lowered attributes are unset (lang.h) */
    AxEgPat *k3[3];
    if (e->ty.nopnds != 3) {
      *why = "a select without three operands";
      return NULL;
    }
    for (int i = 0; i < 3; i++)
      if (!(k3[i] = pat(r, e->ty.opnds[i], why))) return NULL;
    AxEgPatAttr attrs[4] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = 0}};
    return ax_eg_pat_node(a, op, 4, attrs, 3, k3);
  }
  if (op == AX_OP_RELABEL || op == AX_OP_DOT || op == AX_OP_BROADCAST || op == AX_OP_CONCAT ||
      op == AX_OP_RESHAPE_SPLIT || op == AX_OP_RESHAPE_MERGE || op == AX_OP_RESHAPE_DEGENERATE) {
    /* a program writes these with positional attributes whose length is the rank (a
     * transpose's permutation, a reshape's or broadcast's shape) or with dimension roles (a
     * matmul's batch and contracted dimensions): a pattern has a fixed number of integers,
     * so they need one pattern per rank and an applier that computes the other side's
     * attributes from the binding (docs/egraph.md, "Not built yet") */
    *why = "an operator with axes (relabel, dot, broadcast, concat, reshape: not translated yet)";
    return NULL;
  }
  if (!ew(op)) {
    *why = !(ax_op_spec(op)->levels & AX_LV_PROG) ? "an operator that programs do not have"
           : ax_op_is_elementwise(op) ? "an element-wise operator not translated yet (rsqrt; max and min, "
                                        "which the equivalence check cannot decide)"
                                      : "an operator with axes (reduce, dot, broadcast, concat: not translated yet)";
    return NULL;
  }
  AxEgPat *kids[2];
  if (e->ty.nopnds > 2) {
    *why = "an operator with more operands than programs give it";
    return NULL;
  }
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!(kids[i] = pat(r, e->ty.opnds[i], why))) return NULL;
  return ax_eg_pat_node(a, op, 0, NULL, (uint32_t)e->ty.nopnds, kids);
}

/* Whether the condition evaluator below handles every node of require e. */
static bool evaluable(const Rule *r, const AxExpr *e) {
  switch (e->kind) {
  case AX_E_INT: case AX_E_REAL: case AX_E_BOOL: return true;
  case AX_E_NAME: {
    if (e->ty.sym < 0) return false;
    const AxSym *y = &r->s->syms[e->ty.sym];
    if (y->kind == AX_SYM_LET || (y->kind == AX_SYM_MAP && y->def)) return evaluable(r, y->def);
    return y->kind == AX_SYM_MAP || y->kind == AX_SYM_TENSOR;
  }
  case AX_E_UNARY: return evaluable(r, e->u.unary.arg);
  case AX_E_BINARY:
    if ((e->u.binary.op == AX_BIN_DIV || e->u.binary.op == AX_BIN_REM) && !r->divrem) return false;
    return evaluable(r, e->u.binary.lhs) && evaluable(r, e->u.binary.rhs);
  case AX_E_IF:
    return evaluable(r, e->u.ite.cond) && evaluable(r, e->u.ite.then_e) && evaluable(r, e->u.ite.else_e);
  case AX_E_QUANT: return evaluable(r, e->u.quant.body);
  default: return false;
  }
}

/* ---- the condition: binding and requires ---- */

typedef struct Val {
  bool ok;
  int64_t num, den;     /* den > 0; maps and booleans have den 1 */
} Val;

typedef struct Env {
  Rule *r;
  AxEgraph *g;
  const AxEgSubst *sub;
  int k[AX_MAX_AXES];           /* rank bound to each rank class */
  int idx[AX_MAX_AXES];         /* the named axis a per-axis condition is at, -1 */
  int64_t (*mapv)[AX_MAXRANK];  /* per symbol: a map's values, one per named axis */
  bool *mapset;
} Env;

static Val bad(void) { return (Val){0}; }
static Val num(int64_t n, int64_t d) {
  if (d < 0) n = -n, d = -d;
  int64_t c = gcd(n, d);
  return (Val){true, n / c, d / c};
}

static int rclass_index(const AxRuleSyms *s, const char *name) {
  for (size_t i = 0; i < s->nrclasses; i++)
    if (strcmp(s->rclasses[i].name, name) == 0) return (int)i;
  return -1;
}

static Val eval(Env *v, const AxExpr *e);

static Val binary(Env *v, const AxExpr *e) {
  Val a = eval(v, e->u.binary.lhs), b = eval(v, e->u.binary.rhs);
  if (!a.ok || !b.ok) return bad();
  int64_t x, y, n, d;
  switch (e->u.binary.op) {
  case AX_BIN_OR: return num((a.num != 0) || (b.num != 0), 1);
  case AX_BIN_AND: return num((a.num != 0) && (b.num != 0), 1);
  case AX_BIN_ADD: case AX_BIN_SUB:
    if (__builtin_mul_overflow(a.num, b.den, &x) || __builtin_mul_overflow(b.num, a.den, &y) ||
        __builtin_mul_overflow(a.den, b.den, &d))
      return bad();
    if (e->u.binary.op == AX_BIN_ADD ? __builtin_add_overflow(x, y, &n) : __builtin_sub_overflow(x, y, &n))
      return bad();
    return num(n, d);
  case AX_BIN_MUL:
    if (__builtin_mul_overflow(a.num, b.num, &n) || __builtin_mul_overflow(a.den, b.den, &d)) return bad();
    return num(n, d);
  case AX_BIN_DIV: case AX_BIN_REM:
    /* integer division of maps: evaluated only where every reading of it agrees (floor,
     * truncation, Euclidean), a >= 0 and b > 0; anything else is undecided */
    if (a.den != 1 || b.den != 1 || a.num < 0 || b.num <= 0) return bad();
    return num(e->u.binary.op == AX_BIN_DIV ? a.num / b.num : a.num % b.num, 1);
  default: break;
  }
  /* comparisons: a.num / a.den against b.num / b.den, denominators positive */
  if (__builtin_mul_overflow(a.num, b.den, &x) || __builtin_mul_overflow(b.num, a.den, &y)) return bad();
  switch (e->u.binary.op) {
  case AX_BIN_EQ: return num(x == y, 1);
  case AX_BIN_NE: return num(x != y, 1);
  case AX_BIN_LT: return num(x < y, 1);
  case AX_BIN_LE: return num(x <= y, 1);
  case AX_BIN_GT: return num(x > y, 1);
  case AX_BIN_GE: return num(x >= y, 1);
  default: return bad();
  }
}

static Val eval(Env *v, const AxExpr *e) {
  const AxRuleSyms *s = v->r->s;
  AxRat q;
  switch (e->kind) {
  case AX_E_INT: case AX_E_REAL:
    return ax_rat_parse(e->u.text, &q) ? num(q.num, q.den) : bad();
  case AX_E_BOOL: return num(e->u.boolean, 1);
  case AX_E_NAME: {
    if (e->ty.sym < 0) return bad();
    const AxSym *y = &s->syms[e->ty.sym];
    if (y->kind == AX_SYM_LET) return eval(v, y->def);
    if (y->kind == AX_SYM_MAP) {
      int i = v->idx[y->rclass];
      if (i < 0) return bad();
      if (y->def) return eval(v, y->def);
      return v->mapset[e->ty.sym] ? num(v->mapv[e->ty.sym][i], 1) : bad();
    }
    if (y->kind == AX_SYM_TENSOR) {
      /* a tensor's value is known only when its class is a literal (a scalar constant) */
      int var = v->r->sym_var[e->ty.sym];
      if (var < 0 || v->sub->cls[var] == AX_EG_NONE) return bad();
      const AxEqData *d = ax_eg_data(v->g, v->sub->cls[var]);
      return d->literal ? num(d->value.num, d->value.den) : bad();
    }
    return bad();
  }
  case AX_E_UNARY: {
    Val a = eval(v, e->u.unary.arg);
    if (!a.ok) return bad();
    if (e->u.unary.op == AX_UN_NOT) return num(a.num == 0, 1);
    return a.num == INT64_MIN ? bad() : num(-a.num, a.den);
  }
  case AX_E_BINARY: return binary(v, e);
  case AX_E_IF: {
    Val c = eval(v, e->u.ite.cond);
    if (!c.ok) return bad();
    return eval(v, c.num ? e->u.ite.then_e : e->u.ite.else_e);
  }
  case AX_E_QUANT: {
    int c = rclass_index(s, e->u.quant.rclass.name);
    if (c < 0) return bad();
    int saved = v->idx[c];
    bool exists = e->u.quant.exists, any = false, all = true;
    for (int i = 0; i < v->k[c]; i++) {
      v->idx[c] = i;
      Val b = eval(v, e->u.quant.body);
      if (!b.ok) {
        v->idx[c] = saved;
        return bad();
      }
      any |= b.num != 0, all &= b.num != 0;
    }
    v->idx[c] = saved;
    return num(exists ? any : all, 1);
  }
  default: return bad();
  }
}

/* The rule's requires on the bound values v: each per axis of its class, or once; a false
 * one (or one that cannot be evaluated) refuses the match and is counted. */
static bool requires_hold(Env *v, const AxRuleSyms *s, AxEqRules *rs) {
  for (size_t q = 0; q < s->nrequires; q++) {
    const AxExpr *e = s->requires[q];
    int c = e->ty.kind == AX_K_COND ? e->ty.rclass : -1;
    int n = c >= 0 ? v->k[c] : 1;
    bool ok = true;
    for (int j = 0; j < n && ok; j++) {
      if (c >= 0) v->idx[c] = j;
      Val b = eval(v, e);
      ok = b.ok && b.num != 0;
    }
    if (c >= 0) v->idx[c] = -1;
    if (!ok) {
      rs->refused_require++;
      return false;
    }
  }
  return true;
}

/* Ranks k_c for the classes of the tensors' aggregated axes (count[c] axes each) that add
 * up to `rank`: every class at least 1 (a rule is instantiated from rank 1), a class fixed
 * at rank 1 (a concat or iota axis, or one a program's sum, mean or rms_norm runs along:
 * one[c]) exactly 1. The first solution in class order, largest first. */
static bool ranks(const Rule *r, const int *count, const bool *one, int c, int rank, int *k) {
  if (c == (int)r->s->nrclasses) return rank == 0;
  if (count[c] == 0) {
    k[c] = 0;
    return ranks(r, count, one, c + 1, rank, k);
  }
  int hi = (r->s->rclasses[c].singleton || one[c]) ? 1 : rank / count[c];
  for (int kc = hi; kc >= 1; kc--) {
    k[c] = kc;
    if (ranks(r, count, one, c + 1, rank - kc * count[c], k)) return true;
  }
  return false;
}

/* Whether class c holds a comparison: then every term of it is a boolean tensor (a class's
 * terms are equal), the only values a rule's bool tensor P stands for. A program's select
 * takes its mask from a comparison, but a class bound to P is checked, not assumed. */
static bool boolean(const AxEgraph *g, AxEgId c) {
  size_t n = ax_eg_class_size(g, c);
  for (size_t i = 0; i < n; i++)
    if (cmp((AxOp)ax_eg_class_node(g, c, i)->op)) return true;
  return false;
}

static bool cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Rule *r = ctx;
  AxEqRules *rs = r->rs;
  const AxRuleSyms *s = r->s;
  const AxEqData *rd = ax_eg_data(g, root);
  if (!rd->ok) return false;
  /* operands: every tensor with the rule's axes has one shape F, every scalar rank 0 — so
   * the program's broadcasting element-wise operators are the rule's on equal axes */
  AxTShape F = {0};
  bool have_f = false;
  for (uint32_t var = 0; var < r->nvars; var++) {
    if (r->var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
    const AxEqData *d = ax_eg_data(g, sub->cls[var]);
    bool full = s->syms[r->var_sym[var]].axes != 0;
    bool ok = d->ok;
    if (ok && r->mask[var]) ok = boolean(g, sub->cls[var]);
    if (ok && full && !have_f) F = d->shape, have_f = true;
    else if (ok && full) ok = ax_shape_equal(&d->shape, &F);
    else if (ok) ok = d->shape.rank == 0;
    if (!ok) {
      rs->refused_shape++;
      return false;
    }
  }
  if (r->full == 0) {
    if (rd->shape.rank != 0) {
      rs->refused_rank++;
      return false;
    }
  } else if (!have_f) {
    rs->refused_shape++;    /* no tensor bound: nothing to read the axes from */
    return false;
  }
  Env v = {.r = r, .g = g, .sub = sub};
  for (int c = 0; c < AX_MAX_AXES; c++) v.idx[c] = -1;
  /* dimensions pinned by the match: the one a sum, mean or rms_norm runs along */
  int pin[AX_MAX_AXES];
  bool one[AX_MAX_AXES] = {0}, taken[AX_MAXRANK] = {0};
  for (int i = 0; i < AX_MAX_AXES; i++) pin[i] = -1;
  for (uint32_t var = 0; var < r->nvars; var++) {
    if (r->var_axis[var] < 0 || !sub->has_val[var]) continue;
    int64_t p = sub->val[var];
    int ax = r->var_axis[var];
    if (p < 0 || p >= F.rank || taken[p] || !(r->full >> ax & 1)) {
      rs->refused_rank++;
      return false;
    }
    taken[p] = true;
    pin[ax] = (int)p;
    one[s->syms[s->axes[ax]].rclass] = true;
  }
  int count[AX_MAX_AXES] = {0};
  for (size_t i = 0; i < s->naxes; i++)
    if (r->full >> i & 1) count[s->syms[s->axes[i]].rclass]++;
  if (r->full != 0 && !ranks(r, count, one, 0, F.rank, v.k)) {
    rs->refused_rank++;
    return false;
  }
  /* each aggregated axis takes its dimensions: a pinned one its pinned dimension, the others
   * the free dimensions in order, k_c each (named axes have no order: any assignment is an
   * instance of the rule) */
  int at[AX_MAX_AXES][AX_MAXRANK];
  int next = 0;
  for (size_t i = 0; i < s->naxes; i++) {
    if (!(r->full >> i & 1)) continue;
    int k = v.k[s->syms[s->axes[i]].rclass];
    for (int j = 0; j < k; j++) {
      if (pin[i] >= 0) {
        at[i][j] = pin[i];
        continue;
      }
      while (next < F.rank && taken[next]) next++;
      at[i][j] = next++;
    }
  }
  /* the result: F with the dimensions of the axes it no longer has kept at size 1 */
  AxTShape want = {.rank = r->full ? F.rank : 0};
  for (size_t i = 0; i < s->naxes; i++) {
    if (!(r->full >> i & 1)) continue;
    for (int j = 0; j < v.k[s->syms[s->axes[i]].rclass]; j++)
      want.dim[at[i][j]] = (r->result >> i & 1) ? F.dim[at[i][j]] : 1;
  }
  if (!ax_shape_equal(&want, &rd->shape)) {
    rs->refused_shape++;
    return false;
  }
  v.mapv = ax_xcalloc(s->nsyms + 1, sizeof *v.mapv);
  v.mapset = ax_xcalloc(s->nsyms + 1, sizeof *v.mapset);
  bool ok = true;
  for (int pass = 0; pass < 2 && ok; pass++) {
    /* pass 0 binds bare size maps; pass 1 checks every other size expression */
    for (uint32_t var = 0; var < r->nvars && ok; var++) {
      if (r->var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
      const AxSym *y = &s->syms[r->var_sym[var]];
      if (y->axes == 0) continue;
      for (int d = 0; d < y->ndims && ok; d++) {
        int ax = y->dim_axis[d], c = s->syms[s->axes[ax]].rclass;
        const AxExpr *E = y->dim_size[d];
        int ms = E->kind == AX_E_NAME ? E->ty.sym : -1;
        bool bare = ms >= 0 && s->syms[ms].kind == AX_SYM_MAP && !s->syms[ms].def;
        for (int j = 0; j < v.k[c] && ok; j++) {
          int64_t size = F.dim[at[ax][j]];
          if (pass == 0 && bare) {
            if (v.mapset[ms] && v.mapv[ms][j] != size) ok = false;
            v.mapv[ms][j] = size;
          } else if (pass == 1 && !bare) {
            v.idx[c] = j;
            Val e = eval(&v, E);
            v.idx[c] = -1;
            ok = e.ok && e.den == 1 && e.num == size;
          }
        }
        if (pass == 0 && bare) v.mapset[ms] = true;
      }
    }
  }
  if (!ok) rs->refused_rank++;
  ok = ok && requires_hold(&v, s, rs);
  free(v.mapv);
  free(v.mapset);
  return ok;
}

static void push(AxEqRules *rs, const AxEgRewrite *rw, const char *where, const AxBlock *rule,
                 bool reversed) {
  if (rs->n == rs->cap) {
    rs->cap = rs->cap * 2 + 16;
    rs->rw = ax_xrealloc(rs->rw, rs->cap * sizeof *rs->rw);
    rs->origin = ax_xrealloc(rs->origin, rs->cap * sizeof *rs->origin);
    rs->block = ax_xrealloc(rs->block, rs->cap * sizeof *rs->block);
    rs->reversed = ax_xrealloc(rs->reversed, rs->cap * sizeof *rs->reversed);
  }
  rs->block[rs->n] = rule;
  rs->reversed[rs->n] = reversed;
  rs->rw[rs->n] = *rw;
  rs->origin[rs->n++] = ax_arena_strdup(rs->a, where);
}

/* The rewrites of one translated rule: lhs => rhs when the rhs's variables (in_r, nvars of
 * them) are all bound by the lhs (in_l), rhs => lhs when the reverse holds (a rule is proved
 * as an equality), each under condition c. Returns how many were added (0: *why says). */
static int add_rewrites(AxEqRules *rs, const AxBlock *rule, const char *where, AxEgPat *lhs, AxEgPat *rhs,
                        const bool *in_l, const bool *in_r, uint32_t nvars, AxEgCond *c, void *ctx,
                        const char **why) {
  bool fwd = !lhs->var, bwd = !rhs->var;
  for (uint32_t v = 0; v < nvars; v++) {
    if (in_r[v] && !in_l[v]) fwd = false;
    if (in_l[v] && !in_r[v]) bwd = false;
  }
  int added = 0;
  for (int dir = 0; dir < 2; dir++) {
    if (!(dir == 0 ? fwd : bwd)) continue;
    AxEgRewrite rw = {
        .name = dir == 0 ? rule->name.name : ax_arena_printf(rs->a, "%s (reversed)", rule->name.name),
        .lhs = dir == 0 ? lhs : rhs,
        .rhs = dir == 0 ? rhs : lhs,
        .cond = c,
        .ctx = ctx,
    };
    char msg[128];
    if (!ax_eg_rewrite_check(&rw, msg, sizeof msg)) continue;
    push(rs, &rw, where, rule, dir == 1);
    added++;
  }
  if (!added) *why = "neither side binds every variable of the other";
  return added;
}


/* The variables pattern p uses, marked in used[]. */
static void vars(const AxEgPat *p, bool *used) {
  if (p->var) {
    used[p->v] = true;
    return;
  }
  for (uint32_t i = 0; i < p->nkids; i++) vars(p->kids[i], used);
}

/* ---- relabel chains: the program's transposes ------------------------------------------
 * A rule whose two sides are chains of relabels over one tensor A of one aggregated axis
 * (relabel(relabel(A, {x1: x2}), {x2: x3}) => relabel(A, {x1: x3}); relabel(A, {x: x}) => A)
 * is a rewrite of chains of transposes. The binding: A's axis takes A's dimensions in order
 * (layout λ_A = identity: named axes have no order, so any assignment is an instance); a
 * program transpose(E, p), whose dimension q is E's dimension p[q], is relabel(E, {a: b})
 * with b's layout λ_b(j) = p⁻¹(λ_a(j)) — the same values, b's j-th index at that position.
 * One named axis has one layout in an instance: where the matched side meets an axis twice
 * (A's own, or two relabels to one name) the layouts must agree, or the match is refused.
 * The other side's transposes then have determined permutations, p[λ_b(j)] = λ_a(j), and an
 * applier builds them; a direction whose other side would need a layout the match does not
 * determine (an axis met nowhere on the matched side) is not generated. A pattern's e-node
 * has a fixed number of integers and a permutation has the rank's, so there is one rewrite
 * per rank 1..AX_MAXRANK. */

typedef struct Chain {
  AxEqRules *rs;
  int n[2];                       /* relabels per side, lhs and rhs */
  int axis[2][AX_MAX_AXES];       /* per side, bottom up: the axis each relabel's result has */
  int a0;                         /* A's axis */
  bool rev;                       /* this rewrite matches the rule's rhs */
  int k;                          /* rank */
} Chain;

/* The relabel chain e, bottom up, into axis[] and *n; the tensor symbol in *sym. */
static bool chain_of(const AxRuleSyms *s, const AxExpr *e, int *axis, int *n, int *sym) {
  *n = 0;
  for (;;) {
    if (e->kind == AX_E_NAME && e->ty.sym >= 0 && s->syms[e->ty.sym].kind == AX_SYM_LET) {
      e = s->syms[e->ty.sym].def;
      continue;
    }
    if (__builtin_popcountll(e->ty.axes) != 1) return false;
    if (e->kind == AX_E_NAME) {
      if (e->ty.sym < 0 || s->syms[e->ty.sym].kind != AX_SYM_TENSOR) return false;
      *sym = e->ty.sym;
      break;
    }
    if (e->ty.kind != AX_K_TENSOR || e->ty.op != AX_OP_RELABEL || e->ty.nopnds != 1 || *n == AX_MAX_AXES)
      return false;
    axis[(*n)++] = __builtin_ctzll(e->ty.axes);
    e = e->ty.opnds[0];
  }
  /* collected top down: reverse into bottom up */
  for (int i = 0; i < *n / 2; i++) {
    int t = axis[i];
    axis[i] = axis[*n - 1 - i], axis[*n - 1 - i] = t;
  }
  return true;
}

/* The layouts of the matched side's axes from its permutations (attribute variable 1 + level
 * * k + j); false when an axis would get two layouts. lay[a] set where known[a]. */
static bool chain_layouts(const Chain *c, const AxEgSubst *sub, int (*lay)[AX_MAXRANK], bool *known) {
  int m = c->rev ? 1 : 0, k = c->k;
  memset(known, 0, AX_MAX_AXES * sizeof *known);
  for (int j = 0; j < k; j++) lay[c->a0][j] = j;
  known[c->a0] = true;
  int in = c->a0;
  for (int l = 0; l < c->n[m]; l++) {
    int inv[AX_MAXRANK], out[AX_MAXRANK];
    bool seen[AX_MAXRANK] = {0};
    for (int q = 0; q < k; q++) {
      uint32_t v = 1 + (uint32_t)(l * k + q);
      int64_t pq = sub->has_val[v] ? sub->val[v] : -1;
      if (pq < 0 || pq >= k || seen[pq]) return false;
      seen[pq] = true;
      inv[pq] = q;
    }
    for (int j = 0; j < k; j++) out[j] = inv[lay[in][j]];
    int b = c->axis[m][l];
    if (known[b] && memcmp(lay[b], out, (size_t)k * sizeof *out) != 0) return false;
    memcpy(lay[b], out, (size_t)k * sizeof *out);
    known[b] = true;
    in = b;
  }
  return true;
}

static bool chain_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  (void)g, (void)root;
  Chain *c = ctx;
  int lay[AX_MAX_AXES][AX_MAXRANK];
  bool known[AX_MAX_AXES];
  if (chain_layouts(c, sub, lay, known)) return true;
  c->rs->refused_rank++;
  return false;
}

static AxEgId chain_apply(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  (void)root;
  Chain *c = ctx;
  int lay[AX_MAX_AXES][AX_MAXRANK];
  bool known[AX_MAX_AXES];
  if (!chain_layouts(c, sub, lay, known)) return AX_EG_NONE;
  int o = c->rev ? 0 : 1, k = c->k, in = c->a0;
  AxEgId cur = sub->cls[0];
  for (int l = 0; l < c->n[o] && cur != AX_EG_NONE; l++) {
    int b = c->axis[o][l];
    AX_ASSERT(known[b]);          /* translation generated only determined directions */
    int64_t attrs[4 + AX_MAXRANK] = {-1, 0, 0, k};
    for (int j = 0; j < k; j++) attrs[4 + lay[b][j]] = lay[in][j];
    AxEgNode n = {AX_OP_TRANSPOSE, 4 + (uint32_t)k, 1, attrs, &cur};
    cur = ax_eg_add_exact(g, &n);
    in = b;
  }
  return cur;
}

/* The pattern of side m's chain at rank k: transposes whose permutations are attribute
 * variables, over class variable 0. */
static AxEgPat *chain_pat(AxArena *a, const Chain *c, int m) {
  AxEgPat *p = ax_eg_pat_var(a, 0);
  for (int l = 0; l < c->n[m]; l++) {
    AxEgPatAttr at[4 + AX_MAXRANK] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = c->k}};
    for (int j = 0; j < c->k; j++) at[4 + j] = (AxEgPatAttr){.var = true, .v = 1 + (uint32_t)(l * c->k + j)};
    p = ax_eg_pat_node(a, AX_OP_TRANSPOSE, 4 + (uint32_t)c->k, at, 1, &p);
  }
  return p;
}

/* Translates a rule of relabel chains (above): the number of rewrites added; 0 with *why
 * when it is one but cannot be translated; -1 when it is not one. */
static int relabel_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  Chain proto = {.rs = rs};
  int sym[2];
  if (!chain_of(s, s->lhs, proto.axis[0], &proto.n[0], &sym[0]) ||
      !chain_of(s, s->rhs, proto.axis[1], &proto.n[1], &sym[1]) || proto.n[0] + proto.n[1] == 0)
    return -1;
  if (sym[0] != sym[1]) {
    *why = "relabel chains over different tensors";
    return 0;
  }
  if (s->nrequires) {
    *why = "a relabel rule with requires (not translated yet)";
    return 0;
  }
  proto.a0 = __builtin_ctzll(s->syms[sym[0]].axes);
  int added = 0;
  for (int dir = 0; dir < 2; dir++) {
    int m = dir, o = 1 - dir;
    if (proto.n[m] == 0) continue;          /* a bare variable matches everything: not a rewrite */
    bool known[AX_MAX_AXES] = {0}, ok = true;
    known[proto.a0] = true;
    for (int l = 0; l < proto.n[m]; l++) known[proto.axis[m][l]] = true;
    for (int l = 0; l < proto.n[o]; l++) ok &= known[proto.axis[o][l]];
    if (!ok) continue;
    for (int k = 1; k <= AX_MAXRANK; k++) {
      Chain *c = ax_arena_alloc(rs->a, sizeof *c);
      *c = proto;
      c->rev = dir == 1;
      c->k = k;
      AxEgRewrite rw = {
          .name = dir == 0 ? rule->name.name : ax_arena_printf(rs->a, "%s (reversed)", rule->name.name),
          .lhs = chain_pat(rs->a, c, m),
          .cond = chain_cond,
          .apply = chain_apply,
          .ctx = c,
      };
      push(rs, &rw, where, rule, dir == 1);
      added++;
    }
  }
  if (!added) *why = "a relabel chain whose other side needs a layout the match does not determine";
  return added;
}

/* ---- matrix rules: dot as the program's matmul ---------------------------------------
 * A rule whose tensors are matrices (two aggregated axes each, or scalars) and whose sides
 * use dot with one contracted axis and no batch axis, element-wise operators, variables and
 * literals — `dot(A, dot(B, C, contract={y: j}), contract={x: i}) => dot(dot(A, B, ...), C,
 * ...)` — is a rewrite of the program's rank-2 matmul. The binding: every rank class at rank
 * 1 (each aggregated axis is one dimension), and each tensor laid out as the program's
 * matmul needs it: matmul(X, Y) contracts X's last dimension with Y's first and lays its
 * result out [X's other, Y's other], so dot(X, Y, contract={a: i}) *is* matmul(X, Y) when X
 * is laid out [p, a] and Y [a, q], the result then [p, q]; element-wise operators keep
 * their operands' layout. These layouts are solved at translation, from the root down (both
 * sides have the matched class's layout). A tensor's first use fixes its layout (the
 * dimension order of the class it binds); a use that needs the other order, or a dot whose
 * result the rule needs as [q, p], is the program's transpose(·, [1, 0]) of it — the same
 * named tensor laid out the other way. At a match the condition checks that every bound tensor
 * has rank 2, every scalar rank 0, and that each size map and each axis gets one size. */

typedef struct Mat {
  AxEqRules *rs;
  const AxRuleSyms *s;
  uint32_t nvars;
  int var_sym[AX_MAX_AXES * 4];       /* class variable -> tensor symbol */
  int sym_var[256];                   /* tensor symbol -> class variable, -1 */
  int lay[256][2];                    /* per tensor symbol: its axes in dimension order */
  bool laid[256];
  uint64_t bat;                       /* the batch axis (at most one), or 0 */
  int kb;                             /* the batch axis's rank: the program's leading dims */
} Mat;

static bool mat_axes2(uint64_t m, int *a, int *b) {
  if (__builtin_popcountll(m) != 2) return false;
  *a = __builtin_ctzll(m);
  *b = 63 - __builtin_clzll(m);
  return true;
}

static const AxExpr *mat_unlet(const AxRuleSyms *s, const AxExpr *e) {
  while (e->kind == AX_E_NAME && e->ty.sym >= 0 && s->syms[e->ty.sym].kind == AX_SYM_LET) e = s->syms[e->ty.sym].def;
  return e;
}

/* Whether e has a dot (the translator's trigger). */
static bool has_dot(const AxRuleSyms *s, const AxExpr *e) {
  e = mat_unlet(s, e);
  if (e->ty.kind != AX_K_TENSOR || e->ty.op < 0) return false;
  if (e->ty.op == AX_OP_DOT) return true;
  for (int i = 0; i < e->ty.nopnds; i++)
    if (has_dot(s, e->ty.opnds[i])) return true;
  return false;
}

/* transpose(x, [0, …, kb - 1, kb + 1, kb]): a (batch of) matrices in its other layout,
 * the kb batch dimensions first and kept. */
static AxEgPat *transpose2(AxArena *a, AxEgPat *x, int kb) {
  AxEgPatAttr at[4 + AX_MAXRANK] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = kb + 2}};
  for (int j = 0; j < kb; j++) at[4 + j] = (AxEgPatAttr){.value = j};
  at[4 + kb] = (AxEgPatAttr){.value = kb + 1};
  at[5 + kb] = (AxEgPatAttr){.value = kb};
  return ax_eg_pat_node(a, AX_OP_TRANSPOSE, 6 + (uint32_t)kb, at, 1, &x);
}

/* The pattern of e laid out as want (two axes; want[0] < 0: a scalar); NULL with *why. */
static AxEgPat *mat_pat(Mat *m, const AxExpr *e, const int *want, const char **why) {
  AxArena *a = m->rs->a;
  const AxRuleSyms *s = m->s;
  e = mat_unlet(s, e);
  AxRat v;
  if (is_literal(e) || (e->kind == AX_E_UNARY && e->u.unary.op == AX_UN_NEG && is_literal(e->u.unary.arg))) {
    bool neg = !is_literal(e);
    if (!ax_rat_parse((neg ? e->u.unary.arg : e)->u.text, &v)) {
      *why = "a literal that is no exact rational";
      return NULL;
    }
    if (neg) v.num = -v.num;
    return lit(a, v);
  }
  if (e->kind == AX_E_NAME) {
    int k = e->ty.sym;
    if (k < 0 || k >= 256 || s->syms[k].kind != AX_SYM_TENSOR) {
      *why = "a name that is no tensor";
      return NULL;
    }
    const AxSym *y = &s->syms[k];
    if (y->elem != AX_ELEM_VAR && y->elem != AX_ELEM_REAL) {
      *why = "a tensor that is not real (programs are f16, bf16, f32)";
      return NULL;
    }
    if (y->axes != 0) {
      if (want[0] < 0) {
        *why = "a matrix where the rule needs a scalar";
        return NULL;
      }
      if (!m->laid[k]) m->lay[k][0] = want[0], m->lay[k][1] = want[1], m->laid[k] = true;
      bool swapped = m->lay[k][0] == want[1] && m->lay[k][1] == want[0];
      if (!swapped && (m->lay[k][0] != want[0] || m->lay[k][1] != want[1])) {
        *why = "a tensor laid out in a way no transpose gives";
        return NULL;
      }
      if (swapped) {
        /* the same tensor in its other layout: the program's transpose(X, [1, 0]) */
        int unswapped[2] = {want[1], want[0]};
        AxEgPat *x = mat_pat(m, e, unswapped, why);
        return x ? transpose2(a, x, m->kb) : NULL;
      }
    }
    if (m->sym_var[k] < 0) {
      if (m->nvars == sizeof m->var_sym / sizeof m->var_sym[0]) {
        *why = "too many tensors";
        return NULL;
      }
      m->sym_var[k] = (int)m->nvars;
      m->var_sym[m->nvars++] = k;
    }
    return ax_eg_pat_var(a, (uint32_t)m->sym_var[k]);
  }
  if (e->ty.kind != AX_K_TENSOR || e->ty.op < 0) {
    *why = "an expression that is no tensor operator";
    return NULL;
  }
  AxOp op = (AxOp)e->ty.op;
  if (op == AX_OP_DOT) {
    int x0, x1, y0, y1;
    const AxExpr *X = e->ty.opnds[0], *Y = e->ty.opnds[1];
    uint64_t xa = mat_unlet(s, X)->ty.axes & ~m->bat, ya = mat_unlet(s, Y)->ty.axes & ~m->bat, common = xa & ya;
    uint64_t con = common & ~e->ty.axes, bat = common & e->ty.axes;
    /* the batch axis: on both operands and the result (the program's leading dimensions) */
    bool batched = !m->bat || (mat_unlet(s, X)->ty.axes & mat_unlet(s, Y)->ty.axes & e->ty.axes & m->bat);
    if (e->ty.nopnds != 2 || !mat_axes2(xa, &x0, &x1) || !mat_axes2(ya, &y0, &y1) ||
        __builtin_popcountll(con) != 1 || bat || !batched) {
      *why = "a dot that is not a product of matrices (one contracted axis, no batch axis)";
      return NULL;
    }
    int c = __builtin_ctzll(con);
    int p = x0 == c ? x1 : x0, q = y0 == c ? y1 : y0;
    bool swapped = want[0] == q && want[1] == p;
    if (!swapped && (want[0] != p || want[1] != q)) {
      *why = "a dot laid out in a way no transpose gives";
      return NULL;
    }
    int wx[2] = {p, c}, wy[2] = {c, q};
    AxEgPat *kids[2];
    if (!(kids[0] = mat_pat(m, X, wx, why)) || !(kids[1] = mat_pat(m, Y, wy, why))) return NULL;
    AxEgPatAttr attrs[4] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = 0}};
    AxEgPat *mm = ax_eg_pat_node(a, AX_OP_DOT, 4, attrs, 2, kids);
    /* the rule's result laid out [q, p]: the program's product transposed */
    return swapped ? transpose2(a, mm, m->kb) : mm;
  }
  if (!ew(op) || cmp(op) || e->ty.nopnds > 2) {
    *why = "an operator beside dot that is not element-wise (not translated yet)";
    return NULL;
  }
  AxEgPat *kids[2];
  for (int i = 0; i < e->ty.nopnds; i++) {
    static const int scalar[2] = {-1, -1};
    const AxExpr *o = mat_unlet(s, e->ty.opnds[i]);
    if (!(kids[i] = mat_pat(m, o, o->ty.axes ? want : scalar, why))) return NULL;
  }
  return ax_eg_pat_node(a, op, 0, NULL, (uint32_t)e->ty.nopnds, kids);
}

static bool mat_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  (void)root;
  Mat *m = ctx;
  const AxRuleSyms *s = m->s;
  int64_t axis_size[AX_MAX_AXES], bsize[AX_MAXRANK];
  int64_t *map_size = ax_xcalloc(s->nsyms + 1, sizeof *map_size);
  for (int i = 0; i < AX_MAX_AXES; i++) axis_size[i] = -1;
  for (int j = 0; j < AX_MAXRANK; j++) bsize[j] = -1;
  bool ok = true;
  for (uint32_t v = 0; v < m->nvars && ok; v++) {
    if (sub->cls[v] == AX_EG_NONE) continue;
    int k = m->var_sym[v];
    const AxSym *y = &s->syms[k];
    const AxEqData *d = ax_eg_data(g, sub->cls[v]);
    if (!d->ok || d->shape.rank != (y->axes ? 2 + m->kb : 0)) {
      ok = false;
      break;
    }
    for (int i = 0; i < y->ndims && ok; i++) {
      int ax = y->dim_axis[i];
      if (m->bat >> ax & 1) {
        /* the batch dimensions, first: equal on every tensor (the program's matmul would
         * broadcast a batch of 1; the rule's batch axis has one size) */
        for (int j = 0; j < m->kb && ok; j++) {
          if (bsize[j] >= 0 && bsize[j] != d->shape.dim[j]) ok = false;
          bsize[j] = d->shape.dim[j];
        }
        continue;
      }
      int64_t size = d->shape.dim[m->kb + (m->lay[k][0] == ax ? 0 : 1)];
      if (axis_size[ax] >= 0 && axis_size[ax] != size) ok = false;
      axis_size[ax] = size;
      int ms = y->dim_size[i]->ty.sym;
      if (map_size[ms] && map_size[ms] != size) ok = false;
      map_size[ms] = size;
    }
  }
  free(map_size);
  if (!ok) m->rs->refused_shape++;
  return ok;
}

/* Translates a matrix rule (above): rewrites added, 0 with *why, -1 when it is not one. */
static int matrix_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  if (!has_dot(s, s->lhs) && !has_dot(s, s->rhs)) return -1;
  if (s->nsyms >= 256) {
    *why = "a rule with too many symbols";
    return 0;
  }
  if (s->nrequires) {
    *why = "a dot rule with requires (not translated yet)";
    return 0;
  }
  /* the batch axis: on every tensor that has axes and on the result (one at most) */
  uint64_t bat = s->lhs->ty.axes;
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used && s->syms[i].axes) bat &= s->syms[i].axes;
  if (__builtin_popcountll(bat) != 1 || __builtin_popcountll(s->lhs->ty.axes) != 3) bat = 0;
  /* every tensor a matrix (beside the batch axis) or a scalar, every size a bare map */
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if (y->kind != AX_SYM_TENSOR || !y->used) continue;
    if (y->axes && __builtin_popcountll(y->axes & ~bat) != 2) {
      *why = "a dot rule with a tensor that is no matrix (a batch or several kept axes)";
      return 0;
    }
    for (int d = 0; d < y->ndims; d++) {
      const AxExpr *E = y->dim_size[d];
      if (E->kind != AX_E_NAME || E->ty.sym < 0 || s->syms[E->ty.sym].kind != AX_SYM_MAP || s->syms[E->ty.sym].def) {
        *why = "a dot rule with a size that is an expression";
        return 0;
      }
    }
  }
  /* the root's layout: the first side whose top is a dot or reaches one through
   * element-wise operators gives it */
  int want[2] = {-1, -1};
  for (int side = 0; side < 2 && want[0] < 0; side++) {
    const AxExpr *e = mat_unlet(s, side ? s->rhs : s->lhs);
    while (e->ty.kind == AX_K_TENSOR && e->ty.op >= 0 && e->ty.op != AX_OP_DOT && e->ty.nopnds > 0) {
      const AxExpr *next = NULL;
      for (int i = 0; i < e->ty.nopnds && !next; i++)
        if (has_dot(s, e->ty.opnds[i])) next = mat_unlet(s, e->ty.opnds[i]);
      if (!next) break;
      e = next;
    }
    if (e->ty.kind == AX_K_TENSOR && e->ty.op == AX_OP_DOT) {
      int x0, x1, y0, y1;
      uint64_t xa = mat_unlet(s, e->ty.opnds[0])->ty.axes & ~bat, ya = mat_unlet(s, e->ty.opnds[1])->ty.axes & ~bat;
      uint64_t con = xa & ya & ~e->ty.axes;
      if (!mat_axes2(xa, &x0, &x1) || !mat_axes2(ya, &y0, &y1) || __builtin_popcountll(con) != 1) break;
      int c = __builtin_ctzll(con);
      want[0] = x0 == c ? x1 : x0, want[1] = y0 == c ? y1 : y0;
    }
  }
  if (want[0] < 0) {
    *why = "a dot that is not a product of matrices (one contracted axis, no batch axis)";
    return 0;
  }
  /* a batch axis takes the program's leading dimensions, k of them for its class at rank
   * k: one pattern per k (a transpose's permutation has the rank's length) */
  int kmax = 0;
  if (bat) {
    int bc = s->syms[s->axes[__builtin_ctzll(bat)]].rclass;
    kmax = s->rclasses[bc].singleton ? 1 : AX_MAXRANK - 2;
  }
  int added = 0;
  for (int kb = bat ? 1 : 0; kb <= kmax; kb++) {
    Mat *m = ax_arena_alloc(rs->a, sizeof *m);
    memset(m, 0, sizeof *m);
    m->rs = rs;
    m->s = s;
    m->bat = bat, m->kb = kb;
    for (int i = 0; i < 256; i++) m->sym_var[i] = -1;
    AxEgPat *lhs = mat_pat(m, s->lhs, want, why), *rhs = lhs ? mat_pat(m, s->rhs, want, why) : NULL;
    if (!lhs || !rhs) return added;
    bool in_l[AX_MAX_AXES * 4] = {0}, in_r[AX_MAX_AXES * 4] = {0};
    vars(lhs, in_l);
    vars(rhs, in_r);
    int n = add_rewrites(rs, rule, where, lhs, rhs, in_l, in_r, m->nvars, mat_cond, m, why);
    if (!n) return added;
    added += n;
  }
  return added;
}

/* ---- slices and pads: offsets as attribute variables -------------------------------------
 * A rule whose sides are built of slice and pad over tensors of one aggregated axis x (and
 * scalars: a pad's value) — `slice(slice(A, ...), ...) => slice(A, ...)`, `slice(pad(A, a,
 * ...), ...) => A`, `pad(A, a, low={x: 0}, ...) => A` — is a rewrite of the program's
 * slices and pads at rank k, one rewrite per k = 1..AX_MAXRANK (a pattern's e-node has a
 * fixed number of integers, and a slice has 3k). The binding: x's rank class at k, x takes
 * the dimensions in order (named axes have no order: any assignment is an instance), and
 * every entry of the matched side's three lists (start/limit/stride, low/high/interior) is
 * an attribute variable whose value is the rule's attribute at that dimension: a bare map
 * takes it (a map met twice must get one value), any other expression (a literal, `end2 +
 * start1`) must evaluate to it. Tensor sizes bind or check their maps the same way; a map
 * declared nonneg must get a value >= 0 (the proof covers only those); then the requires
 * are evaluated on these values. The other side is a bare variable (a plain rewrite) or a
 * chain of slices over one tensor, built by an applier from the attributes evaluated at the
 * binding, and replayed by ax_eq_slice_step (composed index maps); or a chain of pads
 * over one tensor when the matched side is one too, replayed by ax_eq_pad_step. */

typedef struct Pos {
  Rule r;                       /* s, sym_var, var_sym for the evaluator */
  int k;                        /* rank */
  int cls;                      /* the rank class of the one aggregated axis */
  const AxExpr *side[2];        /* matched side, other side */
  int nops;                     /* the matched side's slices and pads, in pattern order */
  const AxExpr *op_e[16];
  uint32_t op_v[16];            /* each one's first attribute variable (3k of them) */
  AxEgPat *other;               /* the other side as a pattern when it is a bare variable */
} Pos;

/* The program's list (0 lo, 1 hi, 2 step: lang.h) of rule attribute i of a slice or pad:
 * slice(start, end, stride) in order; pad(low, interior, high) as low, high, interior. */
static int pos_list(AxOp op, int i) {
  static const int pad[3] = {0, 2, 1};
  return op == AX_OP_PAD ? pad[i] : i;
}

/* Whether e is built of slices, pads, tensor names and literal pad values (the form this
 * translator takes); *has notes a slice or pad. `only` >= 0: that operator alone. */
static bool pos_form(const AxRuleSyms *s, const AxExpr *e, uint64_t full, int only, bool *has) {
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) {
    if (e->ty.sym < 0 || s->syms[e->ty.sym].kind != AX_SYM_TENSOR) return false;
    uint64_t ax = s->syms[e->ty.sym].axes;
    return ax == 0 || ax == full;
  }
  if (e->ty.kind != AX_K_TENSOR || (e->ty.op != AX_OP_SLICE && e->ty.op != AX_OP_PAD)) return false;
  if (only >= 0 && e->ty.op != only) return false;
  *has = true;
  for (int i = 0; i < 3; i++) {
    const AxExpr *at = e->ty.attrs ? e->ty.attrs[i] : NULL;
    if (at && (at->kind != AX_E_AXMAP || at->u.axmap.n > 1)) return false;
  }
  if (!pos_form(s, e->ty.opnds[0], full, only, has)) return false;
  if (e->ty.op == AX_OP_PAD) {
    const AxExpr *v = mat_unlet(s, e->ty.opnds[1]);
    if (is_literal(v)) return true;
    return v->kind == AX_E_NAME && v->ty.sym >= 0 && s->syms[v->ty.sym].kind == AX_SYM_TENSOR &&
           s->syms[v->ty.sym].axes == 0;
  }
  return true;
}

/* Marks in need[] the tensor symbols e names. */
static void pos_names(const AxRuleSyms *s, const AxExpr *e, bool *need) {
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) {
    if (e->ty.sym >= 0) need[e->ty.sym] = true;
    return;
  }
  if (e->ty.kind != AX_K_TENSOR) return;
  for (int i = 0; i < e->ty.nopnds; i++) pos_names(s, e->ty.opnds[i], need);
}

/* Marks in bound[] the maps side e binds by itself: bare maps in its slices' and pads'
 * attributes and in its tensors' sizes. */
static void pos_binds(const AxRuleSyms *s, const AxExpr *e, bool *bound) {
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) {
    const AxSym *y = e->ty.sym >= 0 ? &s->syms[e->ty.sym] : NULL;
    for (int d = 0; y && y->kind == AX_SYM_TENSOR && d < y->ndims; d++)
      if (y->dim_size[d]->kind == AX_E_NAME && y->dim_size[d]->ty.sym >= 0) bound[y->dim_size[d]->ty.sym] = true;
    return;
  }
  if (e->ty.kind != AX_K_TENSOR) return;
  for (int i = 0; i < 3 && e->ty.attrs; i++) {
    const AxExpr *at = e->ty.attrs[i];
    if (at && at->u.axmap.n == 1 && at->u.axmap.entries[0].value->kind == AX_E_NAME &&
        at->u.axmap.entries[0].value->ty.sym >= 0)
      bound[at->u.axmap.entries[0].value->ty.sym] = true;
  }
  for (int i = 0; i < e->ty.nopnds; i++) pos_binds(s, e->ty.opnds[i], bound);
}

/* Whether every map expression x names is bound (or defined from bound maps). */
static bool pos_known(const AxRuleSyms *s, const AxExpr *x, const bool *bound) {
  switch (x->kind) {
  case AX_E_NAME: {
    if (x->ty.sym < 0) return true;
    const AxSym *y = &s->syms[x->ty.sym];
    if (y->kind == AX_SYM_LET || (y->kind == AX_SYM_MAP && y->def)) return pos_known(s, y->def, bound);
    return y->kind != AX_SYM_MAP || bound[x->ty.sym];
  }
  case AX_E_UNARY: return pos_known(s, x->u.unary.arg, bound);
  case AX_E_BINARY: return pos_known(s, x->u.binary.lhs, bound) && pos_known(s, x->u.binary.rhs, bound);
  case AX_E_IF:
    return pos_known(s, x->u.ite.cond, bound) && pos_known(s, x->u.ite.then_e, bound) &&
           pos_known(s, x->u.ite.else_e, bound);
  case AX_E_QUANT: return pos_known(s, x->u.quant.body, bound);
  default: return true;
  }
}

/* Whether every attribute of side e can be evaluated from the maps in bound[]. */
static bool pos_side_known(const AxRuleSyms *s, const AxExpr *e, const bool *bound) {
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME || e->ty.kind != AX_K_TENSOR) return true;
  for (int i = 0; i < 3 && e->ty.attrs; i++) {
    const AxExpr *at = e->ty.attrs[i];
    if (at && at->u.axmap.n == 1 && !pos_known(s, at->u.axmap.entries[0].value, bound)) return false;
  }
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!pos_side_known(s, e->ty.opnds[i], bound)) return false;
  return true;
}

/* The matched side's pattern at rank p->k; NULL with *why. */
static AxEgPat *pos_pat(Pos *p, const AxExpr *e, const char **why) {
  AxArena *a = p->r.rs->a;
  const AxRuleSyms *s = p->r.s;
  e = mat_unlet(s, e);
  AxRat v;
  if (is_literal(e)) {
    if (ax_rat_parse(e->u.text, &v)) return lit(a, v);
    *why = "a literal that is no exact rational";
    return NULL;
  }
  if (e->kind == AX_E_NAME) return ax_eg_pat_var(a, (uint32_t)p->r.sym_var[e->ty.sym]);
  if (p->nops == 16) {
    *why = "too many slices and pads";
    return NULL;
  }
  int at = p->nops++;
  p->op_e[at] = e;
  p->op_v[at] = p->r.nvars;
  p->r.nvars += 3 * (uint32_t)p->k;
  AxEgPat *kids[2];
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!(kids[i] = pos_pat(p, e->ty.opnds[i], why))) return NULL;
  /* the lowered attributes (lang.h): axis unset, to = times = 0, no shape, then n = k and
   * the three lists */
  AxEgPatAttr attrs[5 + 3 * AX_MAXRANK] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = 0}, {.value = p->k}};
  for (int j = 0; j < 3 * p->k; j++) attrs[5 + j] = (AxEgPatAttr){.var = true, .v = p->op_v[at] + (uint32_t)j};
  return ax_eg_pat_node(a, (uint32_t)e->ty.op, 5 + 3 * (uint32_t)p->k, attrs, (uint32_t)e->ty.nopnds, kids);
}

/* Binds a size or attribute expression E at dimension j to value x: a bare map takes it
 * (pass 0), anything else must evaluate to it (pass 1). False when they disagree. */
static bool pos_bind1(Env *v, const AxExpr *E, int j, int64_t x, int pass) {
  const AxRuleSyms *s = v->r->s;
  int ms = E->kind == AX_E_NAME ? E->ty.sym : -1;
  bool bare = ms >= 0 && s->syms[ms].kind == AX_SYM_MAP && !s->syms[ms].def;
  if (pass == 0 && bare) {
    if (v->mapset[ms] && v->mapv[ms][j] != x) return false;
    v->mapv[ms][j] = x;
    return true;
  }
  if (pass == 1 && !bare) {
    int c = ((const Pos *)(const void *)v->r)->cls;
    v->idx[c] = j;
    Val e = eval(v, E);
    v->idx[c] = -1;
    return e.ok && e.den == 1 && e.num == x;
  }
  return true;
}

/* The value of rule attribute i of slice/pad e at dimension j, its default where omitted
 * (start 0, stride 1, padding 0; end: the operand's size, `size`); false when it cannot be
 * evaluated at the binding. */
static bool pos_attr(Env *v, const AxExpr *e, int i, int j, int64_t size, int64_t *out) {
  const Pos *p = (const Pos *)(const void *)v->r;
  const AxExpr *at = e->ty.attrs ? e->ty.attrs[i] : NULL;
  if (!at || at->u.axmap.n == 0) {
    *out = e->ty.op == AX_OP_SLICE ? (i == 0 ? 0 : i == 1 ? size : 1) : 0;
    return size >= 0 || e->ty.op != AX_OP_SLICE || i != 1;
  }
  v->idx[p->cls] = j;
  Val x = eval(v, at->u.axmap.entries[0].value);
  v->idx[p->cls] = -1;
  *out = x.num;
  return x.ok && x.den == 1 && x.num >= INT32_MIN && x.num <= INT32_MAX;
}

/* The binding of a match (above) into v (maps allocated: the caller frees them); false, with
 * the refusal counted, when the match is not an instance of the rule. */
static bool pos_binding(Pos *p, AxEgraph *g, AxEgId root, const AxEgSubst *sub, Env *v) {
  const AxRuleSyms *s = p->r.s;
  AxEqRules *rs = p->r.rs;
  const AxEqData *rd = ax_eg_data(g, root);
  memset(v, 0, sizeof *v);
  v->r = &p->r, v->g = g, v->sub = sub;
  for (int c = 0; c < AX_MAX_AXES; c++) v->idx[c] = -1;
  v->k[p->cls] = p->k;
  v->mapv = ax_xcalloc(s->nsyms + 1, sizeof *v->mapv);
  v->mapset = ax_xcalloc(s->nsyms + 1, sizeof *v->mapset);
  if (!rd->ok || rd->shape.rank != p->k) {
    rs->refused_shape++;
    return false;
  }
  /* tensors: rank k (scalars 0) */
  for (uint32_t var = 0; var < p->r.nvars; var++) {
    if (p->r.var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
    const AxEqData *d = ax_eg_data(g, sub->cls[var]);
    /* a scalar (a pad's value) binds a class of one element: a program's pad value is
     * a literal or a tensor of one element, either way the one value the rule's names */
    bool one = d->ok && !s->syms[p->r.var_sym[var]].axes;
    for (int j = 0; one && j < d->shape.rank; j++) one = d->shape.dim[j] == 1;
    if (!d->ok || (s->syms[p->r.var_sym[var]].axes ? d->shape.rank != p->k : !one)) {
      rs->refused_shape++;
      return false;
    }
  }
  bool ok = true;
  for (int pass = 0; pass < 2 && ok; pass++) {
    for (uint32_t var = 0; var < p->r.nvars && ok; var++) {
      if (p->r.var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
      const AxSym *y = &s->syms[p->r.var_sym[var]];
      const AxEqData *d = ax_eg_data(g, sub->cls[var]);
      for (int dd = 0; dd < y->ndims && ok; dd++)
        for (int j = 0; j < p->k && ok; j++) ok = pos_bind1(v, y->dim_size[dd], j, d->shape.dim[j], pass);
      if (pass == 0)
        for (int dd = 0; dd < y->ndims; dd++)
          if (y->dim_size[dd]->kind == AX_E_NAME && y->dim_size[dd]->ty.sym >= 0) v->mapset[y->dim_size[dd]->ty.sym] = true;
    }
    for (int o = 0; o < p->nops && ok; o++) {
      const AxExpr *e = p->op_e[o];
      for (int i = 0; i < 3 && ok; i++) {
        const AxExpr *at = e->ty.attrs ? e->ty.attrs[i] : NULL;
        int l = pos_list((AxOp)e->ty.op, i);
        for (int j = 0; j < p->k && ok; j++) {
          int64_t x = sub->val[p->op_v[o] + (uint32_t)(l * p->k + j)];
          if (at && at->u.axmap.n == 1) ok = pos_bind1(v, at->u.axmap.entries[0].value, j, x, pass);
          else if (pass == 1) ok = x == (e->ty.op == AX_OP_SLICE && i == 2 ? 1 : 0) || (e->ty.op == AX_OP_SLICE && i == 1);
        }
        if (pass == 0 && at && at->u.axmap.n == 1 && at->u.axmap.entries[0].value->kind == AX_E_NAME) {
          int ms = at->u.axmap.entries[0].value->ty.sym;
          if (ms >= 0) v->mapset[ms] = true;
        }
      }
    }
  }
  /* an omitted end is the operand's size: checked only where the operand is a tensor */
  for (int o = 0; o < p->nops && ok; o++) {
    const AxExpr *e = p->op_e[o], *at = e->ty.attrs ? e->ty.attrs[1] : NULL;
    if (e->ty.op != AX_OP_SLICE || (at && at->u.axmap.n == 1)) continue;
    const AxExpr *A = mat_unlet(s, e->ty.opnds[0]);
    int var = A->kind == AX_E_NAME ? p->r.sym_var[A->ty.sym] : -1;
    if (var < 0) {
      ok = false;
      break;
    }
    const AxEqData *d = ax_eg_data(g, sub->cls[var]);
    for (int j = 0; j < p->k && ok; j++) ok = sub->val[p->op_v[o] + (uint32_t)(p->k + j)] == d->shape.dim[j];
  }
  /* a map declared nonneg: the proof covers only values >= 0 */
  for (size_t m = 0; m < s->nsyms && ok; m++)
    if (s->syms[m].kind == AX_SYM_MAP && s->syms[m].nonneg && v->mapset[m])
      for (int j = 0; j < p->k && ok; j++) ok = v->mapv[m][j] >= 0;
  if (!ok) {
    rs->refused_rank++;
    return false;
  }
  ok = ok && requires_hold(v, s, rs);
  return ok;
}

/* The other side built at binding v: a tensor's class, or a slice or pad of what is below
 * it with its attributes evaluated per dimension; AX_EG_NONE when an attribute cannot be evaluated
 * or the program's shape inference refuses the result. */
static AxEgId pos_build(Pos *p, Env *v, const AxExpr *e) {
  const AxRuleSyms *s = p->r.s;
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) return v->sub->cls[p->r.sym_var[e->ty.sym]];
  AxOp op = (AxOp)e->ty.op;
  AxEgId kid[2] = {pos_build(p, v, e->ty.opnds[0]), AX_EG_NONE};
  if (kid[0] == AX_EG_NONE) return AX_EG_NONE;
  if (op == AX_OP_PAD) {
    /* the padding value: a scalar the match bound, or a literal */
    const AxExpr *x = mat_unlet(s, e->ty.opnds[1]);
    AxRat q;
    if (x->kind == AX_E_NAME) kid[1] = v->sub->cls[p->r.sym_var[x->ty.sym]];
    else if (ax_rat_parse(x->u.text, &q)) {
      int64_t c = gcd(q.num, q.den), lv[2] = {q.num / c, q.den / c};
      AxEgNode ln = {AX_OP_CONSTANT, 2, 0, lv, NULL};
      kid[1] = ax_eg_add_exact(v->g, &ln);
    }
    if (kid[1] == AX_EG_NONE) return AX_EG_NONE;
  }
  const AxEqData *d = ax_eg_data(v->g, kid[0]);
  int64_t attrs[5 + 3 * AX_MAXRANK] = {-1, 0, 0, 0, p->k};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < p->k; j++)
      if (!pos_attr(v, e, i, j, d->shape.dim[j], &attrs[5 + pos_list(op, i) * p->k + j])) return AX_EG_NONE;
  AxEgNode n = {op, 5 + 3 * (uint32_t)p->k, op == AX_OP_PAD ? 2 : 1, attrs, kid};
  AxEgId c = ax_eg_add_exact(v->g, &n);
  return c != AX_EG_NONE && ((const AxEqData *)ax_eg_data(v->g, c))->ok ? c : AX_EG_NONE;
}

static bool pos_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Pos *p = ctx;
  Env v;
  bool ok = pos_binding(p, g, root, sub, &v);
  free(v.mapv);
  free(v.mapset);
  return ok;
}

static AxEgId pos_apply(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Pos *p = ctx;
  Env v;
  AxEgId r = AX_EG_NONE;
  if (pos_binding(p, g, root, sub, &v)) {
    AxTShape want = ((const AxEqData *)ax_eg_data(g, root))->shape;
    r = pos_build(p, &v, p->side[1]);
    /* the built side has the matched class's shape, or it is not the rule's instance */
    if (r != AX_EG_NONE && !ax_shape_equal(&((const AxEqData *)ax_eg_data(g, r))->shape, &want)) r = AX_EG_NONE;
    if (r == AX_EG_NONE) p->r.rs->refused_shape++;
  }
  free(v.mapv);
  free(v.mapset);
  return r;
}

/* Translates a slice/pad rule (above): rewrites added, 0 with *why, -1 when it is not one. */
static int pos_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  uint64_t full = s->lhs->ty.axes;
  bool has = false;
  if (__builtin_popcountll(full) != 1 || !pos_form(s, s->lhs, full, -1, &has) ||
      !pos_form(s, s->rhs, full, -1, &has) || !has)
    return -1;
  if (s->nsyms >= 256) {
    *why = "a rule with too many symbols";
    return 0;
  }
  int ax = __builtin_ctzll(full), cls = s->syms[s->axes[ax]].rclass;
  if (s->rclasses[cls].singleton) {
    *why = "a slice or pad rule over a class fixed at rank 1";
    return 0;
  }
  for (size_t q = 0; q < s->nrequires; q++) {
    Rule probe = {.rs = rs, .s = s};
    if (!evaluable(&probe, s->requires[q])) {
      *why = "a require that is not a comparison of size maps, variables and literals";
      return 0;
    }
  }
  int added = 0;
  for (int dir = 0; dir < 2; dir++) {
    const AxExpr *m = mat_unlet(s, dir ? s->rhs : s->lhs), *o = mat_unlet(s, dir ? s->lhs : s->rhs);
    bool slices = false;
    if (m->kind == AX_E_NAME) continue;            /* a bare variable matches everything */
    /* an applier's step is replayed by composing the two sides (ax_eq_slice_step): both
     * slices only, or both pads only (ax_eq_pad_step) */
    int only = o->kind == AX_E_NAME ? -1 : o->ty.op;
    if (o->kind != AX_E_NAME && (!pos_form(s, o, full, only, &slices) || !pos_form(s, m, full, only, &slices)))
      continue;
    /* the matched side must determine every map the other side and the requires use: a
     * direction that needs a map it does not bind would refuse every match */
    bool *bound = ax_arena_alloc(rs->a, s->nsyms + 1), known = true;
    memset(bound, 0, s->nsyms + 1);
    pos_binds(s, m, bound);
    known = pos_side_known(s, m, bound) && pos_side_known(s, o, bound);
    for (size_t q = 0; q < s->nrequires && known; q++) known = pos_known(s, s->requires[q], bound);
    if (!known) continue;
    for (int k = 1; k <= AX_MAXRANK; k++) {
      Pos *p = ax_arena_alloc(rs->a, sizeof *p);
      memset(p, 0, sizeof *p);
      p->r.rs = rs, p->r.s = s, p->r.b = rule;
      size_t cap = s->nsyms + 1;
      p->r.sym_var = ax_arena_alloc(rs->a, cap * sizeof *p->r.sym_var);
      p->r.var_sym = ax_arena_alloc(rs->a, (cap + 16 * 3 * AX_MAXRANK) * sizeof *p->r.var_sym);
      for (size_t i = 0; i < cap; i++) p->r.sym_var[i] = -1;
      for (size_t i = 0; i < s->nsyms; i++)
        if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) {
          p->r.sym_var[i] = (int)p->r.nvars;
          p->r.var_sym[p->r.nvars++] = (int)i;
        }
      p->k = k, p->cls = cls;
      p->side[0] = m, p->side[1] = o;
      uint32_t ntensors = p->r.nvars;
      AxEgPat *lhs = pos_pat(p, m, why);
      if (!lhs) return added ? added : 0;
      for (uint32_t var = ntensors; var < p->r.nvars; var++) p->r.var_sym[var] = -1;
      /* every tensor of the other side must be bound by the matched side */
      bool *in = ax_arena_alloc(rs->a, p->r.nvars + 1), *need = ax_arena_alloc(rs->a, s->nsyms + 1);
      memset(in, 0, p->r.nvars + 1);
      memset(need, 0, s->nsyms + 1);
      vars(lhs, in);
      pos_names(s, o, need);
      bool covered = true;
      for (size_t i = 0; i < s->nsyms; i++) covered &= !need[i] || (p->r.sym_var[i] >= 0 && in[p->r.sym_var[i]]);
      if (!covered) break;
      AxEgRewrite rw = {
          .name = dir == 0 ? rule->name.name : ax_arena_printf(rs->a, "%s (reversed)", rule->name.name),
          .lhs = lhs,
          .cond = pos_cond,
          .ctx = p,
      };
      if (o->kind == AX_E_NAME) rw.rhs = ax_eg_pat_var(rs->a, (uint32_t)p->r.sym_var[o->ty.sym]);
      else rw.apply = pos_apply;
      char msg[128];
      if (!ax_eg_rewrite_check(&rw, msg, sizeof msg)) break;
      push(rs, &rw, where, rule, dir == 1);
      added++;
    }
  }
  if (!added)
    *why = "a slice or pad rule whose other side is not a tensor, nor slices or pads of one as its matched side (not translated yet)";
  return added;
}

/* ---- reshape chains: the program's reshape -----------------------------------------------
 * A rule whose matched side is a chain of reshape_split and reshape_merge over one tensor A,
 * all of its axes of one rank class, and whose other side is A — `reshape_merge(
 * reshape_split(A, {x: t}, [xh, xl]), [xh, xl], x) => A` — is a rewrite of the program's
 * reshape of a reshape. The binding: the class at rank k; every dimension position i < k
 * holds the same list of named axes, in order (A's axes as declared: named axes have no
 * order, so this layout is an instance), and the program's shape is those lists' sizes
 * position after position, row-major. A split of x into [xh, xl] puts xh, xl where x was
 * (hi then lo), which is the program's row-major reshape of that dimension into
 * [n / t, t]; a merge of [xh, xl] — adjacent, in that order, or the rule is not translated —
 * is the reshape of the two dimensions into their product. At a match each reshape's shape
 * list (attribute variables) must be exactly the layout's sizes; a bare map in a split's
 * `{x: t}` takes the lo size, any other expression must evaluate to it; t must divide the
 * size (the split's definition); A's size maps are bound from its dimensions; the requires
 * are evaluated on these values (`s % t == 0` included: integer / and % of non-negative
 * maps). The matched class must have A's shape. One rewrite per rank k = 1..AX_MAXRANK / 2
 * (a reshape's list has the rank's length). */

typedef struct Rsh {
  Rule r;
  int k, cls;
  int sym;                          /* A */
  int nsteps;
  const AxExpr *step[8];            /* the chain, bottom up */
  int nlay[9];                      /* axes per position before step j (nlay[nsteps]: after) */
  int lay[9][8];                    /* those axes, in order */
} Rsh;

static int rsh_axis(const AxRuleSyms *s, const AxExpr *e) {
  if (!e || e->kind != AX_E_NAME || e->ty.sym < 0 || s->syms[e->ty.sym].kind != AX_SYM_AXIS) return -1;
  return s->syms[e->ty.sym].axis;
}

static int rsh_axis_named(const AxRuleSyms *s, const char *name) {
  for (size_t i = 0; i < s->naxes; i++)
    if (strcmp(s->syms[s->axes[i]].name, name) == 0) return (int)i;
  return -1;
}

/* The chain e into rh (steps, layouts); false when e is not one this translator takes. */
static bool rsh_chain(Rsh *rh, const AxExpr *e) {
  const AxRuleSyms *s = rh->r.s;
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) {
    if (e->ty.sym < 0 || s->syms[e->ty.sym].kind != AX_SYM_TENSOR || !s->syms[e->ty.sym].axes) return false;
    const AxSym *y = &s->syms[e->ty.sym];
    rh->sym = e->ty.sym;
    rh->nlay[0] = y->ndims;
    if (y->ndims > 8) return false;
    for (int d = 0; d < y->ndims; d++) rh->lay[0][d] = y->dim_axis[d];
    return true;
  }
  if (e->ty.kind != AX_K_TENSOR || (e->ty.op != AX_OP_RESHAPE_SPLIT && e->ty.op != AX_OP_RESHAPE_MERGE) ||
      e->ty.nopnds != 1 || !e->ty.attrs || !e->ty.attrs[0] || !e->ty.attrs[1] || rh->nsteps == 8)
    return false;
  if (!rsh_chain(rh, e->ty.opnds[0])) return false;
  int j = rh->nsteps++, n = rh->nlay[j], *in = rh->lay[j], *out = rh->lay[j + 1], m = 0;
  rh->step[j] = e;
  const AxExpr *a0 = e->ty.attrs[0], *a1 = e->ty.attrs[1];
  if (e->ty.op == AX_OP_RESHAPE_SPLIT) {
    if (a0->kind != AX_E_AXMAP || a0->u.axmap.n != 1 || a1->kind != AX_E_LIST || a1->u.list.n != 2) return false;
    int x = rsh_axis_named(s, a0->u.axmap.entries[0].axis.name);
    int hi = rsh_axis(s, a1->u.list.items[0]), lo = rsh_axis(s, a1->u.list.items[1]);
    if (x < 0 || hi < 0 || lo < 0 || n + 1 > 8) return false;
    bool found = false;
    for (int d = 0; d < n; d++) {
      if (in[d] == x) out[m++] = hi, out[m++] = lo, found = true;
      else out[m++] = in[d];
    }
    if (!found) return false;
  } else {
    if (a0->kind != AX_E_LIST || a0->u.list.n != 2) return false;
    int hi = rsh_axis(s, a0->u.list.items[0]), lo = rsh_axis(s, a0->u.list.items[1]), x = rsh_axis(s, a1);
    if (x < 0 || hi < 0 || lo < 0) return false;
    bool found = false;
    for (int d = 0; d < n; d++) {
      if (in[d] == hi && d + 1 < n && in[d + 1] == lo) out[m++] = x, d++, found = true;
      else out[m++] = in[d];
    }
    if (!found) return false;     /* not adjacent hi-then-lo: no row-major reshape */
  }
  rh->nlay[j + 1] = m;
  return true;
}

static bool rsh_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Rsh *rh = ctx;
  const AxRuleSyms *s = rh->r.s;
  AxEqRules *rs = rh->r.rs;
  int k = rh->k;
  const AxEqData *rd = ax_eg_data(g, root), *ad = ax_eg_data(g, sub->cls[0]);
  if (!rd->ok || !ad->ok || ad->shape.rank != k * rh->nlay[0] || !ax_shape_equal(&rd->shape, &ad->shape)) {
    rs->refused_shape++;
    return false;
  }
  Env v = {.r = &rh->r, .g = g, .sub = sub};
  for (int c = 0; c < AX_MAX_AXES; c++) v.idx[c] = -1;
  v.k[rh->cls] = k;
  v.mapv = ax_xcalloc(s->nsyms + 1, sizeof *v.mapv);
  v.mapset = ax_xcalloc(s->nsyms + 1, sizeof *v.mapset);
  int64_t size[AX_MAX_AXES][AX_MAXRANK];
  const AxSym *A = &s->syms[rh->sym];
  bool ok = true;
  /* A's dimensions: position i, axis d of the layout; its size maps bound (bare) */
  for (int i = 0; i < k; i++)
    for (int d = 0; d < rh->nlay[0] && ok; d++) {
      int64_t n = ad->shape.dim[i * rh->nlay[0] + d];
      size[rh->lay[0][d]][i] = n;
      const AxExpr *E = A->dim_size[d];
      int ms = E->kind == AX_E_NAME ? E->ty.sym : -1;
      if (ms >= 0 && s->syms[ms].kind == AX_SYM_MAP && !s->syms[ms].def) {
        if (v.mapset[ms] && v.mapv[ms][i] != n) ok = false;
        v.mapv[ms][i] = n;
        if (i == k - 1) v.mapset[ms] = true;
      }
    }
  for (size_t m = 0; m < s->nsyms; m++)
    if (s->syms[m].kind == AX_SYM_MAP && !s->syms[m].def)
      for (int d = 0; d < A->ndims; d++)
        if (A->dim_size[d]->kind == AX_E_NAME && A->dim_size[d]->ty.sym == (int)m) v.mapset[m] = true;
  /* each step: its shape list must be the layout's sizes */
  uint32_t base = 1;
  for (int j = 0; j < rh->nsteps && ok; j++) {
    const AxExpr *e = rh->step[j];
    int w = rh->nlay[j + 1];
    if (e->ty.op == AX_OP_RESHAPE_SPLIT) {
      const AxExpr *a0 = e->ty.attrs[0], *a1 = e->ty.attrs[1], *T = a0->u.axmap.entries[0].value;
      int x = rsh_axis_named(s, a0->u.axmap.entries[0].axis.name);
      int hi = rsh_axis(s, a1->u.list.items[0]), lo = rsh_axis(s, a1->u.list.items[1]);
      int lopos = 0;
      while (rh->lay[j + 1][lopos] != lo) lopos++;
      int ms = T->kind == AX_E_NAME ? T->ty.sym : -1;
      bool bare = ms >= 0 && s->syms[ms].kind == AX_SYM_MAP && !s->syms[ms].def;
      for (int i = 0; i < k && ok; i++) {
        int64_t t = sub->val[base + (uint32_t)(i * w + lopos)];
        if (bare && !v.mapset[ms]) v.mapv[ms][i] = t;
        else {
          v.idx[rh->cls] = i;
          Val tv = eval(&v, T);
          v.idx[rh->cls] = -1;
          ok = tv.ok && tv.den == 1 && tv.num == t;
        }
        ok = ok && t >= 1 && size[x][i] % t == 0;
        if (ok) size[hi][i] = size[x][i] / t, size[lo][i] = t;
      }
      if (bare) v.mapset[ms] = true;
    } else {
      const AxExpr *a0 = e->ty.attrs[0];
      int hi = rsh_axis(s, a0->u.list.items[0]), lo = rsh_axis(s, a0->u.list.items[1]), x = rsh_axis(s, e->ty.attrs[1]);
      for (int i = 0; i < k && ok; i++) ok = !__builtin_mul_overflow(size[hi][i], size[lo][i], &size[x][i]);
    }
    for (int i = 0; i < k && ok; i++)
      for (int d = 0; d < w && ok; d++) ok = sub->val[base + (uint32_t)(i * w + d)] == size[rh->lay[j + 1][d]][i];
    base += (uint32_t)(k * w);
  }
  if (!ok) rs->refused_rank++;
  ok = ok && requires_hold(&v, s, rs);
  free(v.mapv);
  free(v.mapset);
  return ok;
}

/* Translates a reshape-chain rule (above): rewrites added, 0 with *why, -1 when it is not one. */
static int rsh_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  const AxExpr *m = mat_unlet(s, s->lhs), *o = mat_unlet(s, s->rhs);
  if (m->kind == AX_E_NAME) {
    const AxExpr *t = m;
    m = o, o = t;
  }
  if (m->ty.kind != AX_K_TENSOR || (m->ty.op != AX_OP_RESHAPE_SPLIT && m->ty.op != AX_OP_RESHAPE_MERGE)) return -1;
  Rsh proto = {.r = {.rs = rs, .s = s, .b = rule, .divrem = true}};
  if (s->nsyms >= 256 || !rsh_chain(&proto, m) || proto.nsteps < 1 || o->kind != AX_E_NAME || o->ty.sym != proto.sym) {
    *why = "a reshape rule whose sides are not a chain of reshape_split and reshape_merge and its tensor";
    return 0;
  }
  const AxSym *A = &s->syms[proto.sym];
  for (int d = 0; d < A->ndims; d++) {
    const AxExpr *E = A->dim_size[d];
    if (E->kind != AX_E_NAME || E->ty.sym < 0 || s->syms[E->ty.sym].kind != AX_SYM_MAP || s->syms[E->ty.sym].def) {
      *why = "a reshape rule with a size that is an expression";
      return 0;
    }
  }
  proto.cls = -1;
  for (size_t i = 0; i < s->naxes; i++) {
    int c = s->syms[s->axes[i]].rclass;
    if (proto.cls >= 0 && c != proto.cls) {
      *why = "a reshape rule over several rank classes";
      return 0;
    }
    proto.cls = c;
  }
  if (proto.cls < 0 || s->rclasses[proto.cls].singleton) {
    *why = "a reshape rule over a class fixed at rank 1";
    return 0;
  }
  for (size_t q = 0; q < s->nrequires; q++)
    if (!evaluable(&proto.r, s->requires[q])) {
      *why = "a require that is not a comparison of size maps, variables and literals";
      return 0;
    }
  int sym_var[1] = {0};
  proto.r.sym_var = ax_arena_alloc(rs->a, (s->nsyms + 1) * sizeof *proto.r.sym_var);
  for (size_t i = 0; i <= s->nsyms; i++) proto.r.sym_var[i] = -1;
  proto.r.sym_var[proto.sym] = sym_var[0];
  int added = 0;
  bool reversed = mat_unlet(s, s->lhs)->kind == AX_E_NAME;
  for (int k = 1; k * proto.nlay[proto.nsteps] <= AX_MAXRANK; k++) {
    bool fits = true;
    for (int j = 0; j <= proto.nsteps; j++) fits &= k * proto.nlay[j] <= AX_MAXRANK;
    if (!fits) break;
    Rsh *rh = ax_arena_alloc(rs->a, sizeof *rh);
    *rh = proto;
    rh->k = k;
    AxEgPat *p = ax_eg_pat_var(rs->a, 0);
    uint32_t base = 1;
    for (int j = 0; j < rh->nsteps; j++) {
      int w = k * rh->nlay[j + 1];
      AxEgPatAttr at[4 + AX_MAXRANK] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = w}};
      for (int d = 0; d < w; d++) at[4 + d] = (AxEgPatAttr){.var = true, .v = base + (uint32_t)d};
      base += (uint32_t)w;
      p = ax_eg_pat_node(rs->a, AX_OP_RESHAPE, 4 + (uint32_t)w, at, 1, &p);
    }
    AxEgRewrite rw = {
        .name = reversed ? ax_arena_printf(rs->a, "%s (reversed)", rule->name.name) : rule->name.name,
        .lhs = p,
        .rhs = ax_eg_pat_var(rs->a, 0),
        .cond = rsh_cond,
        .ctx = rh,
    };
    char msg[128];
    if (!ax_eg_rewrite_check(&rw, msg, sizeof msg)) break;
    push(rs, &rw, where, rule, reversed);
    added++;
  }
  if (!added) *why = "a reshape rule whose chain does not fit a program's rank";
  return added;
}

/* ---- concatenations: the program's concat ------------------------------------------------
 * A rule whose sides are trees of concat along one aggregated axis y over tensors that all
 * have y and (optionally) one more aggregated axis x — `concat(A, concat(B, C, axis=y),
 * axis=y) => concat(concat(A, B, axis=y), C, axis=y)` — is a rewrite of the program's
 * concat. y's class is fixed at rank 1 (a concat axis), so y is one dimension: the concat's
 * axis attribute, one attribute variable shared by every concat of both sides (so both
 * sides are patterns and a match's right side is an instance, replayed by matching). x's
 * class takes the other dimensions in order (k = rank - 1 >= 1; named axes have no order).
 * At a match every tensor's class must have the matched rank, every map over x or y the same
 * value wherever it sizes a dimension, and the requires must hold on those values. */

typedef struct Cat {
  Rule r;
  int y, x;                         /* the concat axis and the other axis (-1: none) */
  uint32_t axvar;                   /* the attribute variable of y's dimension */
} Cat;

/* The one axis of reduce e (`reduce(A, [a])`), -1 otherwise. */
static int cat_reduced(const AxRuleSyms *s, const AxExpr *e) {
  const AxExpr *at = e->ty.attrs ? e->ty.attrs[0] : NULL;
  if (!at || at->kind != AX_E_LIST || at->u.list.n != 1) return -1;
  at = at->u.list.items[0];
  return at->ty.kind == AX_K_AXIS && at->ty.sym >= 0 ? s->syms[at->ty.sym].axis : -1;
}

/* Whether e is concat along axis y over tensor names of axes `full`, sums along y (reduce
 * over [y]: the program's sum along the concat's dimension) and additions of those. */
static bool cat_form(const AxRuleSyms *s, const AxExpr *e, uint64_t full, int *y, bool *has) {
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME)
    return e->ty.sym >= 0 && s->syms[e->ty.sym].kind == AX_SYM_TENSOR && s->syms[e->ty.sym].axes == full;
  if (e->ty.kind == AX_K_TENSOR && e->ty.op == AX_OP_ADD && e->ty.nopnds == 2)
    return cat_form(s, e->ty.opnds[0], full, y, has) && cat_form(s, e->ty.opnds[1], full, y, has);
  if (e->ty.kind == AX_K_TENSOR && e->ty.op == AX_OP_REDUCE && e->ty.nopnds == 1) {
    int ax = cat_reduced(s, e);
    if (ax < 0 || (*y >= 0 && ax != *y)) return false;
    *y = ax;
    return cat_form(s, e->ty.opnds[0], full, y, has);
  }
  if (e->ty.kind != AX_K_TENSOR || e->ty.op != AX_OP_CONCAT || !e->ty.attrs) return false;
  const AxExpr *at = e->ty.attrs[0];
  if (!at || at->ty.kind != AX_K_AXIS || at->ty.sym < 0) return false;
  int ax = s->syms[at->ty.sym].axis;
  if (*y >= 0 && ax != *y) return false;
  *y = ax, *has = true;
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!cat_form(s, e->ty.opnds[i], full, y, has)) return false;
  return true;
}

static AxEgPat *cat_pat(Cat *c, const AxExpr *e) {
  const AxRuleSyms *s = c->r.s;
  AxArena *a = c->r.rs->a;
  e = mat_unlet(s, e);
  if (e->kind == AX_E_NAME) {
    int k = e->ty.sym;
    if (c->r.sym_var[k] < 0) {
      c->r.sym_var[k] = (int)c->r.nvars;
      c->r.var_sym[c->r.nvars++] = k;
    }
    return ax_eg_pat_var(a, (uint32_t)c->r.sym_var[k]);
  }
  AxEgPat *kids[AX_MAXIN];
  if (e->ty.nopnds > AX_MAXIN) return NULL;
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!(kids[i] = cat_pat(c, e->ty.opnds[i]))) return NULL;
  if (e->ty.op == AX_OP_ADD) return ax_eg_pat_node(a, AX_OP_ADD, 0, NULL, 2, kids);
  /* the lowered attributes (lang.h): the axis, to = times = 0, no shape; a sum keeps its
   * dimension at size 1 where the rule's reduce removes the axis (the same values) */
  AxEgPatAttr attrs[4] = {{.var = true, .v = c->axvar}, {.value = 0}, {.value = 0}, {.value = 0}};
  return ax_eg_pat_node(a, (uint32_t)e->ty.op, 4, attrs, (uint32_t)e->ty.nopnds, kids);
}

static bool cat_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Cat *c = ctx;
  const AxRuleSyms *s = c->r.s;
  AxEqRules *rs = c->r.rs;
  const AxEqData *rd = ax_eg_data(g, root);
  int r = rd->shape.rank;
  int64_t p = sub->has_val[c->axvar] ? sub->val[c->axvar] : -1;
  if (!rd->ok || p < 0 || p >= r || r != (c->x >= 0 ? r : 1) || (c->x >= 0 && r < 2) || (c->x < 0 && r != 1)) {
    rs->refused_rank++;
    return false;
  }
  Env v = {.r = &c->r, .g = g, .sub = sub};
  for (int i = 0; i < AX_MAX_AXES; i++) v.idx[i] = -1;
  int cy = s->syms[s->axes[c->y]].rclass, cx = c->x >= 0 ? s->syms[s->axes[c->x]].rclass : -1;
  v.k[cy] = 1;
  if (cx >= 0) v.k[cx] = r - 1;
  v.mapv = ax_xcalloc(s->nsyms + 1, sizeof *v.mapv);
  v.mapset = ax_xcalloc(s->nsyms + 1, sizeof *v.mapset);
  bool ok = true;
  for (uint32_t var = 0; var < c->r.nvars && ok; var++) {
    if (c->r.var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
    const AxSym *y = &s->syms[c->r.var_sym[var]];
    const AxEqData *d = ax_eg_data(g, sub->cls[var]);
    if (!d->ok || d->shape.rank != r) {
      ok = false;
      break;
    }
    for (int dd = 0; dd < y->ndims && ok; dd++) {
      const AxExpr *E = y->dim_size[dd];
      int ms = E->kind == AX_E_NAME ? E->ty.sym : -1;
      if (ms < 0 || s->syms[ms].kind != AX_SYM_MAP || s->syms[ms].def) {
        ok = false;
        break;
      }
      bool isy = y->dim_axis[dd] == c->y;
      for (int j = 0, q = 0; q < r && ok; q++) {
        if ((q == p) != isy) continue;
        if (v.mapset[ms] && v.mapv[ms][j] != d->shape.dim[q]) ok = false;
        v.mapv[ms][j++] = d->shape.dim[q];
      }
      v.mapset[ms] = true;
    }
  }
  if (!ok) rs->refused_shape++;
  ok = ok && requires_hold(&v, s, rs);
  free(v.mapv);
  free(v.mapset);
  return ok;
}

/* Translates a concat rule (above): rewrites added, 0 with *why, -1 when it is not one. */
static int cat_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  uint64_t full = 0;
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) full |= s->syms[i].axes;
  int y = -1;
  bool has = false;
  if (__builtin_popcountll(full) < 1 || __builtin_popcountll(full) > 2 || !cat_form(s, s->lhs, full, &y, &has) ||
      !cat_form(s, s->rhs, full, &y, &has) || !has)
    return -1;
  if (s->nsyms >= 256) {
    *why = "a rule with too many symbols";
    return 0;
  }
  Cat *c = ax_arena_alloc(rs->a, sizeof *c);
  memset(c, 0, sizeof *c);
  c->r.rs = rs, c->r.s = s, c->r.b = rule;
  c->y = y;
  c->x = full & ~(1ull << y) ? __builtin_ctzll(full & ~(1ull << y)) : -1;
  if (c->x >= 0 && s->syms[s->axes[c->x]].rclass == s->syms[s->axes[y]].rclass) {
    *why = "a concat rule whose other axis is of the concat axis's class";
    return 0;
  }
  for (size_t q = 0; q < s->nrequires; q++)
    if (!evaluable(&c->r, s->requires[q])) {
      *why = "a require that is not a comparison of size maps, variables and literals";
      return 0;
    }
  size_t cap = s->nsyms + 2;
  c->r.sym_var = ax_arena_alloc(rs->a, cap * sizeof *c->r.sym_var);
  c->r.var_sym = ax_arena_alloc(rs->a, cap * sizeof *c->r.var_sym);
  for (size_t i = 0; i < cap; i++) c->r.sym_var[i] = c->r.var_sym[i] = -1;
  /* class variables first (one per tensor), then y's attribute variable */
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) {
      c->r.sym_var[i] = (int)c->r.nvars;
      c->r.var_sym[c->r.nvars++] = (int)i;
    }
  c->axvar = c->r.nvars++;
  AxEgPat *lhs = cat_pat(c, s->lhs), *rhs = lhs ? cat_pat(c, s->rhs) : NULL;
  if (!lhs || !rhs) {
    *why = "a concat of more operands than programs give it";
    return 0;
  }
  bool *in_l = ax_arena_alloc(rs->a, c->r.nvars + 1), *in_r = ax_arena_alloc(rs->a, c->r.nvars + 1);
  memset(in_l, 0, c->r.nvars + 1);
  memset(in_r, 0, c->r.nvars + 1);
  vars(lhs, in_l);
  vars(rhs, in_r);
  in_l[c->axvar] = in_r[c->axvar] = true;
  return add_rewrites(rs, rule, where, lhs, rhs, in_l, in_r, c->r.nvars, cat_cond, c, why);
}

/* ---- broadcasts: the program's broadcast -------------------------------------------------
 * A rule whose broadcasts all add one aggregated axis y of size map t — `broadcast(A, {y: t})
 * + broadcast(B, {y: t}) => broadcast(A + B, {y: t})` — over element-wise operators,
 * tensors of one other axis x, scalars and literals, is a rewrite of the program's
 * broadcast(X, [d…]), which grows X's size-1 dimensions to d (the others stay). The
 * binding, at program rank r: the broadcast's target shape is r attribute variables shared
 * by every broadcast of both sides (so both sides are patterns, replayed by matching); y
 * takes the dimensions the broadcast grows (where the bound tensor's size differs from the
 * target's: it must be 1 there), x the others, in order; both at least one (each class is
 * instantiated from rank 1). At a match every tensor with x must have that one shape, every
 * scalar rank 0, and the maps and requires are read and evaluated as elsewhere. The program's
 * broadcast is then the rule's at the layout that puts y's dimensions where they grow. */

typedef struct Bc {
  Rule r;
  int x, y;                         /* the tensors' axis and the broadcast's new axis */
  int k;                            /* the program's rank */
  uint32_t v0;                      /* the target shape's first attribute variable */
} Bc;

/* Whether e is built of broadcasts adding y (with size map *t), element-wise operators,
 * tensors of axes `xs`, scalars and literals; *has notes a broadcast. */
static bool bc_form(const AxRuleSyms *s, const AxExpr *e, uint64_t xs, int *y, int *t, bool *has) {
  e = mat_unlet(s, e);
  if (is_literal(e) || (e->kind == AX_E_UNARY && e->u.unary.op == AX_UN_NEG && is_literal(e->u.unary.arg))) return true;
  if (e->kind == AX_E_NAME) {
    if (e->ty.sym < 0 || s->syms[e->ty.sym].kind != AX_SYM_TENSOR) return false;
    const AxSym *y_ = &s->syms[e->ty.sym];
    return (y_->axes == 0 || y_->axes == xs) && (y_->elem == AX_ELEM_VAR || y_->elem == AX_ELEM_REAL);
  }
  if (e->ty.kind != AX_K_TENSOR || e->ty.op < 0) return false;
  if (e->ty.op == AX_OP_BROADCAST) {
    const AxExpr *at = e->ty.attrs ? e->ty.attrs[0] : NULL;
    if (!at || at->kind != AX_E_AXMAP || at->u.axmap.n != 1 || e->ty.nopnds != 1) return false;
    int ax = rsh_axis_named(s, at->u.axmap.entries[0].axis.name);
    const AxExpr *T = at->u.axmap.entries[0].value;
    int ms = T->kind == AX_E_NAME ? T->ty.sym : -1;
    if (ax < 0 || ms < 0 || s->syms[ms].kind != AX_SYM_MAP || s->syms[ms].def) return false;
    if ((*y >= 0 && ax != *y) || (*t >= 0 && ms != *t)) return false;
    *y = ax, *t = ms, *has = true;
    /* the operand has exactly the tensors' axis */
    if (mat_unlet(s, e->ty.opnds[0])->ty.axes != xs) return false;
    return bc_form(s, e->ty.opnds[0], xs, y, t, has);
  }
  if (!ew((AxOp)e->ty.op) || cmp((AxOp)e->ty.op) || e->ty.nopnds > 2) return false;
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!bc_form(s, e->ty.opnds[i], xs, y, t, has)) return false;
  return true;
}

static AxEgPat *bc_pat(Bc *b, const AxExpr *e) {
  const AxRuleSyms *s = b->r.s;
  AxArena *a = b->r.rs->a;
  e = mat_unlet(s, e);
  AxRat v;
  if (is_literal(e) || (e->kind == AX_E_UNARY && e->u.unary.op == AX_UN_NEG && is_literal(e->u.unary.arg))) {
    bool neg = !is_literal(e);
    if (!ax_rat_parse((neg ? e->u.unary.arg : e)->u.text, &v)) return NULL;
    if (neg) v.num = -v.num;
    return lit(a, v);
  }
  if (e->kind == AX_E_NAME) return ax_eg_pat_var(a, (uint32_t)b->r.sym_var[e->ty.sym]);
  AxEgPat *kids[2];
  for (int i = 0; i < e->ty.nopnds; i++)
    if (!(kids[i] = bc_pat(b, e->ty.opnds[i]))) return NULL;
  if (e->ty.op != AX_OP_BROADCAST) return ax_eg_pat_node(a, (uint32_t)e->ty.op, 0, NULL, (uint32_t)e->ty.nopnds, kids);
  /* the lowered attributes (lang.h): axis unset, to = times = 0, the target shape */
  AxEgPatAttr attrs[4 + AX_MAXRANK] = {{.value = -1}, {.value = 0}, {.value = 0}, {.value = b->k}};
  for (int j = 0; j < b->k; j++) attrs[4 + j] = (AxEgPatAttr){.var = true, .v = b->v0 + (uint32_t)j};
  return ax_eg_pat_node(a, AX_OP_BROADCAST, 4 + (uint32_t)b->k, attrs, 1, kids);
}

static bool bc_cond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *sub) {
  Bc *b = ctx;
  const AxRuleSyms *s = b->r.s;
  AxEqRules *rs = b->r.rs;
  int k = b->k;
  const AxEqData *rd = ax_eg_data(g, root);
  AxTShape A = {0};
  bool have = false, ok = rd->ok && rd->shape.rank == k;
  for (uint32_t var = 0; var < b->r.nvars && ok; var++) {
    if (b->r.var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
    const AxEqData *d = ax_eg_data(g, sub->cls[var]);
    bool full = s->syms[b->r.var_sym[var]].axes != 0;
    if (!d->ok) ok = false;
    else if (full && !have) A = d->shape, have = true;
    else if (full) ok = ax_shape_equal(&d->shape, &A);
    else ok = d->shape.rank == 0;
  }
  if (!ok || !have || A.rank != k) {
    rs->refused_shape++;
    return false;
  }
  /* y: the grown dimensions (A's size 1 there), x: the others; both at least one */
  int grown = 0;
  for (int q = 0; q < k && ok; q++) {
    int64_t d = sub->val[b->v0 + (uint32_t)q];
    if (d != A.dim[q]) ok = A.dim[q] == 1, grown++;
  }
  if (!ok || grown == 0 || grown == k) {
    rs->refused_rank++;
    return false;
  }
  Env v = {.r = &b->r, .g = g, .sub = sub};
  for (int i = 0; i < AX_MAX_AXES; i++) v.idx[i] = -1;
  int cx = s->syms[s->axes[b->x]].rclass, cy = s->syms[s->axes[b->y]].rclass;
  v.k[cx] = k - grown, v.k[cy] = grown;
  v.mapv = ax_xcalloc(s->nsyms + 1, sizeof *v.mapv);
  v.mapset = ax_xcalloc(s->nsyms + 1, sizeof *v.mapset);
  /* maps: x's from A's kept dimensions, y's from the grown target sizes */
  for (uint32_t var = 0; var < b->r.nvars && ok; var++) {
    if (b->r.var_sym[var] < 0 || sub->cls[var] == AX_EG_NONE) continue;
    const AxSym *y = &s->syms[b->r.var_sym[var]];
    for (int dd = 0; dd < y->ndims && ok; dd++) {
      const AxExpr *E = y->dim_size[dd];
      int ms = E->kind == AX_E_NAME ? E->ty.sym : -1;
      if (ms < 0 || s->syms[ms].kind != AX_SYM_MAP || s->syms[ms].def) {
        ok = false;
        break;
      }
      for (int q = 0, j = 0; q < k && ok; q++) {
        if (sub->val[b->v0 + (uint32_t)q] != A.dim[q]) continue;
        if (v.mapset[ms] && v.mapv[ms][j] != A.dim[q]) ok = false;
        v.mapv[ms][j++] = A.dim[q];
      }
      v.mapset[ms] = true;
    }
  }
  for (size_t m = 0; m < s->nsyms && ok; m++) {
    if (s->syms[m].kind != AX_SYM_MAP || s->syms[m].rclass != cy || s->syms[m].def) continue;
    /* the broadcast's size map t: the grown sizes */
    for (int q = 0, j = 0; q < k; q++)
      if (sub->val[b->v0 + (uint32_t)q] != A.dim[q]) v.mapv[m][j++] = sub->val[b->v0 + (uint32_t)q];
    v.mapset[m] = true;
  }
  if (!ok) rs->refused_rank++;
  ok = ok && requires_hold(&v, s, rs);
  free(v.mapv);
  free(v.mapset);
  return ok;
}

/* Translates a broadcast rule (above): rewrites added, 0 with *why, -1 when it is not one. */
static int bc_rule(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  const AxRuleSyms *s = rule->syms;
  uint64_t xs = 0;
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) xs |= s->syms[i].axes;
  int y = -1, t = -1;
  bool has = false;
  if (__builtin_popcountll(xs) != 1 || !bc_form(s, s->lhs, xs, &y, &t, &has) || !bc_form(s, s->rhs, xs, &y, &t, &has) ||
      !has)
    return -1;
  int x = __builtin_ctzll(xs);
  int cx = s->syms[s->axes[x]].rclass, cy = s->syms[s->axes[y]].rclass;
  if (s->nsyms >= 256 || cx == cy || s->rclasses[cx].singleton || s->rclasses[cy].singleton) {
    *why = "a broadcast rule whose new axis shares a class with the tensors' (or is fixed at rank 1)";
    return 0;
  }
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_MAP && s->syms[i].rclass == cy && (int)i != t && !s->syms[i].def) {
      *why = "a broadcast rule with another map over the new axis";
      return 0;
    }
  int added = 0;
  for (int k = 2; k <= AX_MAXRANK; k++) {
    Bc *b = ax_arena_alloc(rs->a, sizeof *b);
    memset(b, 0, sizeof *b);
    b->r.rs = rs, b->r.s = s, b->r.b = rule;
    b->x = x, b->y = y, b->k = k;
    for (size_t q = 0; q < s->nrequires; q++)
      if (!evaluable(&b->r, s->requires[q])) {
        *why = "a require that is not a comparison of size maps, variables and literals";
        return 0;
      }
    size_t cap = s->nsyms + 1 + AX_MAXRANK;
    b->r.sym_var = ax_arena_alloc(rs->a, cap * sizeof *b->r.sym_var);
    b->r.var_sym = ax_arena_alloc(rs->a, cap * sizeof *b->r.var_sym);
    for (size_t i = 0; i < cap; i++) b->r.sym_var[i] = b->r.var_sym[i] = -1;
    for (size_t i = 0; i < s->nsyms; i++)
      if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) {
        b->r.sym_var[i] = (int)b->r.nvars;
        b->r.var_sym[b->r.nvars++] = (int)i;
      }
    b->v0 = b->r.nvars;
    b->r.nvars += (uint32_t)k;
    AxEgPat *lhs = bc_pat(b, s->lhs), *rhs = lhs ? bc_pat(b, s->rhs) : NULL;
    if (!lhs || !rhs) {
      *why = "a literal that is no exact rational";
      return 0;
    }
    bool *in_l = ax_arena_alloc(rs->a, b->r.nvars + 1), *in_r = ax_arena_alloc(rs->a, b->r.nvars + 1);
    memset(in_l, 0, b->r.nvars + 1);
    memset(in_r, 0, b->r.nvars + 1);
    vars(lhs, in_l);
    vars(rhs, in_r);
    /* a side without a broadcast does not bind the target shape: that direction is not one */
    int n = add_rewrites(rs, rule, where, lhs, rhs, in_l, in_r, b->r.nvars, bc_cond, b, why);
    if (!n) return added;
    added += n;
  }
  return added;
}

int ax_eq_rules_add(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why) {
  if (!rs->a) rs->a = ax_arena_new();
  const AxRuleSyms *s = rule->syms;
  if (!s || !s->lhs || !s->rhs) {
    *why = "a rule without a checked rewrite";
    return 0;
  }
  if (rule->tvar.name ? (rule->tclass == AX_TC_INT || rule->tclass == AX_TC_BOOL)
                      : s->elem != AX_ELEM_REAL) {
    *why = "a rule that does not hold for real tensors";
    return 0;
  }
  int chained = relabel_rule(rs, rule, where, why);
  if (chained >= 0) return chained;
  int broadcast = bc_rule(rs, rule, where, why);
  if (broadcast >= 0) return broadcast;
  int concat = cat_rule(rs, rule, where, why);
  if (concat >= 0) return concat;
  int reshaped = rsh_rule(rs, rule, where, why);
  if (reshaped >= 0) return reshaped;
  int positional = pos_rule(rs, rule, where, why);
  if (positional >= 0) return positional;
  int matrix = matrix_rule(rs, rule, where, why);
  if (matrix >= 0) return matrix;
  Rule *r = ax_arena_alloc(rs->a, sizeof *r);
  r->rs = rs;
  r->b = rule;
  r->s = s;
  /* the tensors' axes: the union of every tensor's (each must have them all or none) */
  r->result = s->lhs->ty.axes;
  r->full = r->result;
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].used) r->full |= s->syms[i].axes;
  size_t cap = s->nsyms + s->naxes + 1;
  r->var_sym = ax_arena_alloc(rs->a, cap * sizeof *r->var_sym);
  r->var_axis = ax_arena_alloc(rs->a, cap * sizeof *r->var_axis);
  r->sym_var = ax_arena_alloc(rs->a, cap * sizeof *r->sym_var);
  r->mask = ax_arena_alloc(rs->a, cap * sizeof *r->mask);
  memset(r->mask, 0, cap * sizeof *r->mask);
  for (size_t i = 0; i < cap; i++) r->sym_var[i] = r->var_axis[i] = -1;
  for (int i = 0; i < AX_MAX_AXES; i++) r->axis_var[i] = -1;
  AxEgPat *lhs = pat(r, s->lhs, why), *rhs = lhs ? pat(r, s->rhs, why) : NULL;
  if (!lhs || !rhs) return 0;
  for (size_t q = 0; q < s->nrequires; q++) {
    if (!evaluable(r, s->requires[q])) {
      *why = "a require that is not a comparison of size maps, variables and literals";
      return 0;
    }
  }
  bool *in_l = ax_arena_alloc(rs->a, r->nvars + 1), *in_r = ax_arena_alloc(rs->a, r->nvars + 1);
  vars(lhs, in_l);
  vars(rhs, in_r);
  /* a require naming a tensor only one side binds is decidable only from that side: the
   * condition then refuses (it cannot evaluate), which is the safe answer */
  return add_rewrites(rs, rule, where, lhs, rhs, in_l, in_r, r->nvars, cond, r, why);
}

void ax_eq_rules_free(AxEqRules *rs) {
  free(rs->rw);
  free(rs->origin);
  free(rs->block);
  free(rs->reversed);
  if (rs->a) ax_arena_free(rs->a);
  memset(rs, 0, sizeof *rs);
}
