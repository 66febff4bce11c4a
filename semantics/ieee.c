/* ieee.c — the symbolic IEEE domain; see ieee.h. */
#include "semantics/ieee.h"

#include <string.h>

#include "semantics/concrete.h"
#include "semantics/float.h"

typedef const AxTerm *T;

struct AxIeee {
  AxDomain dom;   /* first: the domain pointer is the state */
  AxTermCtx *tc;
  AxArena *a;
  const char *const *names;
  AxSort f;
  int max_size;
  AxVec reads;    /* AxRead* */
  T bounds;
};

#define S(d) ((AxIeee *)(d))
#define TC(d) (S(d)->tc)

static T fpbits(AxDomain *d, uint32_t bits) { return ax_term_mk_fp_bits(TC(d), S(d)->f, bits); }
static T fp1(AxDomain *d, AxTermKind k, T a) { return ax_term_mk_fp(TC(d), k, a, NULL); }
static T fp2(AxDomain *d, AxTermKind k, T a, T b) { return ax_term_mk_fp(TC(d), k, a, b); }

static AxV int_lit(AxDomain *d, const char *dec) { return ax_term_mk_int_str(TC(d), dec); }
static AxV int_small(AxDomain *d, long v) { return ax_term_mk_int_si(TC(d), v); }
static AxV iadd(AxDomain *d, AxV a, AxV b) { return ax_term_mk_add2(TC(d), a, b); }
static AxV isub(AxDomain *d, AxV a, AxV b) { return ax_term_mk_sub(TC(d), a, b); }
static AxV imul(AxDomain *d, AxV a, AxV b) { return ax_term_mk_mul2(TC(d), a, b); }
static AxV idiv(AxDomain *d, AxV a, AxV b) { return ax_term_mk_div(TC(d), a, b); }
static AxV imod(AxDomain *d, AxV a, AxV b) { return ax_term_mk_mod(TC(d), a, b); }
static AxV ilt(AxDomain *d, AxV a, AxV b) { return ax_term_mk_lt(TC(d), a, b); }
static AxV ile(AxDomain *d, AxV a, AxV b) { return ax_term_mk_le(TC(d), a, b); }
static AxV ieq(AxDomain *d, AxV a, AxV b) { return ax_term_mk_eq(TC(d), a, b); }
static AxV bool_lit(AxDomain *d, bool v) { return ax_term_mk_bool(TC(d), v); }
static AxV band(AxDomain *d, AxV a, AxV b) { return ax_term_mk_and2(TC(d), a, b); }
static AxV bor(AxDomain *d, AxV a, AxV b) { return ax_term_mk_or2(TC(d), a, b); }
static AxV bnot(AxDomain *d, AxV a) { return ax_term_mk_not(TC(d), a); }
static AxV ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  (void)kind;
  (void)t;
  return ax_term_mk_ite(TC(d), c, a, b);
}

static AxV outside(AxDomain *d, const char *why) {
  if (!d->unsupported) d->unsupported = why;
  return fpbits(d, 0);
}

/* (to_fp RNE q): the solver rounds, independently of float.c */
static T of_real(AxDomain *d, T q) { return fp2(d, AX_TERM_FP_OF_REAL, q, fpbits(d, 0)); }

static AxV elem_lit(AxDomain *d, AxType t, const char *text, int inf_sign) {
  if (t == AX_BOOL) return ax_term_mk_bool(TC(d), strcmp(text, "0") != 0);
  if (t != AX_REAL) return outside(d, "integer elements are outside IEEE mode");
  if (inf_sign) return fpbits(d, ax_float_inf(S(d)->f, inf_sign < 0));
  mpq_t q;
  mpq_init(q);
  ax_decimal_to_mpq(text, q);
  T v = mpq_sgn(q) == 0 ? fpbits(d, 0) : of_real(d, ax_term_mk_real(TC(d), q));
  mpq_clear(q);
  return v;
}

static AxV elem_of_int(AxDomain *d, AxType t, AxV i) {
  if (t == AX_BOOL) return ax_term_mk_not(TC(d), ax_term_mk_eq(TC(d), i, ax_term_mk_int_si(TC(d), 0)));
  if (t != AX_REAL) return outside(d, "integer elements are outside IEEE mode");
  return of_real(d, ax_term_mk_to_real(TC(d), i));
}

/* MAXIMUM / MINIMUM (IEEE 754-2019): NaN if either is NaN; else the larger (smaller), and
 * of two zeros +0 (−0) */
static T maxmin(AxDomain *d, bool max, T a, T b) {
  AxTermCtx *tc = TC(d);
  T nan = ax_term_mk_or2(tc, fp1(d, AX_TERM_FP_ISNAN, a), fp1(d, AX_TERM_FP_ISNAN, b));
  T a_neg_zero = ax_term_mk_and2(tc, fp1(d, AX_TERM_FP_ISZERO, a), fp1(d, AX_TERM_FP_ISNEG, a));
  T tie = max ? ax_term_mk_ite(tc, a_neg_zero, b, a) : ax_term_mk_ite(tc, a_neg_zero, a, b);
  T pick = max ? ax_term_mk_ite(tc, fp2(d, AX_TERM_FP_LT, b, a), a,
                                ax_term_mk_ite(tc, fp2(d, AX_TERM_FP_LT, a, b), b, tie))
               : ax_term_mk_ite(tc, fp2(d, AX_TERM_FP_LT, a, b), a,
                                ax_term_mk_ite(tc, fp2(d, AX_TERM_FP_LT, b, a), b, tie));
  return ax_term_mk_ite(tc, nan, fpbits(d, ax_float_nan(S(d)->f)), pick);
}

static AxV elem_binary(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  if (op == AX_OP_AND) return band(d, a, b);
  if (op == AX_OP_OR) return bor(d, a, b);
  if (t != AX_REAL) return outside(d, "integer elements are outside IEEE mode");
  switch (op) {
  case AX_OP_ADD: return fp2(d, AX_TERM_FP_ADD, a, b);
  case AX_OP_SUB: return fp2(d, AX_TERM_FP_SUB, a, b);
  case AX_OP_MUL: return fp2(d, AX_TERM_FP_MUL, a, b);
  case AX_OP_DIV: return fp2(d, AX_TERM_FP_DIV, a, b);
  case AX_OP_MAX: return maxmin(d, true, a, b);
  case AX_OP_MIN: return maxmin(d, false, a, b);
  case AX_OP_REM: return outside(d, "rem has no IEEE model in axle");
  default: return outside(d, "an operator without an IEEE model");
  }
}

static AxV elem_unary(AxDomain *d, AxOp op, AxType t, AxV a) {
  if (op == AX_OP_NOT) return bnot(d, a);
  if (t != AX_REAL) return outside(d, "integer elements are outside IEEE mode");
  switch (op) {
  case AX_OP_NEG: return fp1(d, AX_TERM_FP_NEG, a);
  case AX_OP_ABS: return fp1(d, AX_TERM_FP_ABS, a);
  case AX_OP_EXP: return outside(d, "exp has no IEEE model");
  default: return outside(d, "an operator without an IEEE model");
  }
}

static AxV elem_compare(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  AxTermCtx *tc = TC(d);
  if (t == AX_BOOL) {   /* false < true, as the symbolic domain orders booleans */
    T eq = ax_term_mk_eq(tc, a, b);
    if (op == AX_OP_EQ) return eq;
    if (op == AX_OP_NE) return bnot(d, eq);
    T lt = band(d, bnot(d, a), b), gt = band(d, a, bnot(d, b));
    return op == AX_OP_LT ? lt : op == AX_OP_GT ? gt : op == AX_OP_LE ? bnot(d, gt) : bnot(d, lt);
  }
  if (t != AX_REAL) {
    outside(d, "integer elements are outside IEEE mode");
    return bool_lit(d, false);
  }
  switch (op) {
  case AX_OP_EQ: return fp2(d, AX_TERM_FP_EQ, a, b);
  case AX_OP_NE: return bnot(d, fp2(d, AX_TERM_FP_EQ, a, b));
  case AX_OP_LT: return fp2(d, AX_TERM_FP_LT, a, b);
  case AX_OP_LE: return fp2(d, AX_TERM_FP_LE, a, b);
  case AX_OP_GT: return fp2(d, AX_TERM_FP_LT, b, a);
  case AX_OP_GE: return fp2(d, AX_TERM_FP_LE, b, a);
  default: AX_UNREACHABLE();
  }
  return NULL;
}

static AxV elem_same(AxDomain *d, AxType t, AxV a, AxV b) {
  (void)t;
  return ax_term_mk_eq(TC(d), a, b);   /* SMT-LIB `=`: NaN = NaN, +0 ≠ −0 */
}

static AxV read(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n) {
  AxIeee *s = S(d);
  if (t == AX_INT) return outside(d, "integer elements are outside IEEE mode");
  AxSort *argsorts = ax_arena_alloc(s->a, (n + 1) * sizeof(AxSort));
  for (size_t k = 0; k < n; k++) argsorts[k] = AX_SORT_INT;
  AxSort res = t == AX_BOOL ? AX_SORT_BOOL : s->f;
  const AxFunc *f = ax_term_func(s->tc, s->names[sym], n, argsorts, res);
  AX_ASSERT(f);
  T app = ax_term_mk_app(s->tc, f, n, (const AxTerm *const *)idx);
  for (size_t i = 0; i < s->reads.len; i++)
    if (((const AxRead *)s->reads.items[i])->app == app) return app;
  AxRead *r = ax_arena_alloc(s->a, sizeof *r);
  r->sym = sym;
  r->type = t;
  r->n = n;
  r->idx = ax_arena_alloc(s->a, (n + 1) * sizeof(AxTerm *));
  for (size_t k = 0; k < n; k++) r->idx[k] = idx[k];
  r->app = app;
  ax_vec_push(s->a, &s->reads, r);
  return app;
}

/* REDUCE, unrolled (ieee.h): extents bounded by max_size; the first summand, then the others
 * added one by one, last index fastest; an empty sum is +0 */
static AxV sum(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
               const char *const *names, const int *axes, const int *pos,
               AxV (*body)(void *, const AxV *), void *ctx) {
  (void)vars;
  (void)names;
  (void)axes;
  (void)pos;
  AxIeee *s = S(d);
  AxTermCtx *tc = s->tc;
  if (t != AX_REAL) return outside(d, "integer elements are outside IEEE mode");
  if (n > 16) return outside(d, "a reduction over more than 16 named axes");
  long total = 1;
  for (size_t k = 0; k < n; k++) {
    s->bounds = ax_term_mk_and2(tc, s->bounds, ax_term_mk_le(tc, sizes[k], ax_term_mk_int_si(tc, s->max_size)));
    total *= s->max_size;
    if (total > 4096) return outside(d, "a reduction unrolled to more than 4096 terms (lower --ieee-max-size)");
  }
  T acc = fpbits(d, 0);
  AxV idx[16];
  long at[16] = {0};
  for (long i = 0; i < total; i++) {
    T inside = ax_term_mk_true(tc);
    for (size_t k = 0; k < n; k++) {
      idx[k] = ax_term_mk_int_si(tc, at[k]);
      inside = ax_term_mk_and2(tc, inside, ax_term_mk_lt(tc, idx[k], sizes[k]));
    }
    /* the first tuple is inside exactly when the sum is not empty: it starts the fold */
    if (i == 0) acc = ax_term_mk_ite(tc, inside, body(ctx, idx), acc);
    else if (ax_term_kind(inside) != AX_TERM_FALSE)
      acc = ax_term_mk_ite(tc, inside, fp2(d, AX_TERM_FP_ADD, acc, body(ctx, idx)), acc);
    for (size_t k = n; k-- > 0;) {
      if (++at[k] < s->max_size) break;
      at[k] = 0;
    }
  }
  return acc;
}

AxIeee *ax_ieee_new(AxTermCtx *tc, const char *const *tensor_names, AxSort f, int max_size) {
  AxArena *a = ax_arena_new();
  AxIeee *s = ax_arena_alloc(a, sizeof *s);
  memset(s, 0, sizeof *s);
  s->a = a;
  s->tc = tc;
  s->names = tensor_names;
  s->f = f;
  s->max_size = max_size;
  s->bounds = ax_term_mk_true(tc);
  s->dom = (AxDomain){int_lit,  int_small, iadd,     isub,        imul,        idiv,
                      imod,     ilt,       ile,      ieq,         bool_lit,    band,
                      bor,      bnot,      ite,      elem_lit,    elem_of_int, elem_binary,
                      elem_unary, elem_compare, elem_same, read, sum, NULL};
  return s;
}

void ax_ieee_free(AxIeee *s) {
  if (s) ax_arena_free(s->a);
}

AxDomain *ax_ieee_domain(AxIeee *s) { return &s->dom; }
AxV ax_ieee_int_var(AxIeee *s, const char *name) { return ax_term_mk_var(s->tc, name, AX_SORT_INT); }
const AxTerm *ax_ieee_term(AxV v) { return v; }

const AxRead *ax_ieee_reads(const AxIeee *s, size_t *n) {
  *n = s->reads.len;
  AxRead *out = ax_arena_alloc(s->a, (s->reads.len + 1) * sizeof(AxRead));
  for (size_t i = 0; i < s->reads.len; i++) out[i] = *(const AxRead *)s->reads.items[i];
  return out;
}

const AxTerm *ax_ieee_bounds(const AxIeee *s) { return s->bounds; }
