/* fpsym.c — the symbolic IEEE domain; see fpsym.h. */
#include "semantics/fpsym.h"

#include <string.h>

#include "semantics/concrete.h"
#include "semantics/float.h"
#include "semantics/symbolic.h"

typedef const AxTerm *T;

struct AxFpSym {
  AxTermScalars head;   /* first: the domain pointer is the state; integers and booleans
                           are the symbolic domain's (ax_symbolic_scalars) */
  AxArena *a;
  const char *const *names;
  AxSort f;
  int max_size;
  AxVec reads;    /* AxRead* */
  T bounds;
};

#define S(d) ((AxFpSym *)(d))
#define TC(d) (S(d)->head.tc)

static T fpbits(AxDomain *d, uint32_t bits) { return ax_term_mk_fp_bits(TC(d), S(d)->f, bits); }
static T fp1(AxDomain *d, AxTermKind k, T a) { return ax_term_mk_fp(TC(d), k, a, NULL); }
static T fp2(AxDomain *d, AxTermKind k, T a, T b) { return ax_term_mk_fp(TC(d), k, a, b); }

static AxV bool_lit(AxDomain *d, bool v) { return ax_term_mk_bool(TC(d), v); }
static AxV band(AxDomain *d, AxV a, AxV b) { return ax_term_mk_and2(TC(d), a, b); }
static AxV bor(AxDomain *d, AxV a, AxV b) { return ax_term_mk_or2(TC(d), a, b); }
static AxV bnot(AxDomain *d, AxV a) { return ax_term_mk_not(TC(d), a); }
static AxV ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  (void)kind;
  (void)t;
  return ax_term_mk_ite(TC(d), c, a, b);
}

static const char *const int_outside = "integer elements are outside IEEE mode";

static AxV outside(AxDomain *d, const char *why) {
  if (!d->unsupported) d->unsupported = why;
  return fpbits(d, 0);
}

/* (to_fp RNE q): the solver rounds, independently of float.c */
static T of_real(AxDomain *d, T q) { return fp2(d, AX_TERM_FP_OF_REAL, q, fpbits(d, 0)); }

static AxV elem_lit(AxDomain *d, AxType t, const char *text, int inf_sign) {
  if (t == AX_BOOL) return ax_term_mk_bool(TC(d), strcmp(text, "0") != 0);
  if (t != AX_REAL) return outside(d, int_outside);
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
  if (t != AX_REAL) return outside(d, int_outside);
  return of_real(d, ax_term_mk_to_real(TC(d), i));
}

/* a gather index is an int element, which IEEE mode does not model */
static AxV int_of_elem(AxDomain *d, AxV e) {
  (void)e;
  outside(d, int_outside);
  return ax_term_mk_int_si(TC(d), 0);
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

/* ---- element-wise operators ----------------------------------------------------------
 * Rows indexed by AxOp: SMT-LIB's floating-point operation for the operators axle models
 * in floating point, or Bool terms for bool elements. The operators IEEE mode refuses are
 * not rows: they are the one table float.c keeps (ax_float_unmodelled), which its replay
 * reads too, so both refuse the same operators in the same words. A new element-wise
 * operator is a row here and in float.c, or an entry of that table
 * (tests/unit/check_semantics.c walks AX_OP_LIST for a missing one). */

static T add_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_ADD, a, b); }
static T sub_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_SUB, a, b); }
static T mul_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_MUL, a, b); }
static T div_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_DIV, a, b); }
static T max_fp(AxDomain *d, T a, T b) { return maxmin(d, true, a, b); }
static T min_fp(AxDomain *d, T a, T b) { return maxmin(d, false, a, b); }
static T neg_fp(AxDomain *d, T a) { return fp1(d, AX_TERM_FP_NEG, a); }
static T abs_fp(AxDomain *d, T a) { return fp1(d, AX_TERM_FP_ABS, a); }
static T eq_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_EQ, a, b); }
static T ne_fp(AxDomain *d, T a, T b) { return bnot(d, fp2(d, AX_TERM_FP_EQ, a, b)); }
static T lt_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_LT, a, b); }
static T le_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_LE, a, b); }
static T gt_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_LT, b, a); }
static T ge_fp(AxDomain *d, T a, T b) { return fp2(d, AX_TERM_FP_LE, b, a); }

typedef struct BinaryRow {
  T (*fn)(AxDomain *d, T a, T b);
  AxV (*boolean)(AxDomain *d, AxV a, AxV b);   /* bool elements: and, or */
} BinaryRow;

static const BinaryRow binary[AX_OP_COUNT] = {
    [AX_OP_ADD] = {.fn = add_fp}, [AX_OP_SUB] = {.fn = sub_fp},    [AX_OP_MUL] = {.fn = mul_fp},
    [AX_OP_DIV] = {.fn = div_fp}, [AX_OP_MAX] = {.fn = max_fp},    [AX_OP_MIN] = {.fn = min_fp},
    [AX_OP_AND] = {.boolean = band}, [AX_OP_OR] = {.boolean = bor},
};

typedef struct UnaryRow {
  T (*fn)(AxDomain *d, T a);
  AxV (*boolean)(AxDomain *d, AxV a);   /* bool elements: not */
} UnaryRow;

static const UnaryRow unary[AX_OP_COUNT] = {
    [AX_OP_NEG] = {.fn = neg_fp},
    [AX_OP_ABS] = {.fn = abs_fp},
    [AX_OP_NOT] = {.boolean = bnot},
};

static T (*const compare[AX_OP_COUNT])(AxDomain *d, T a, T b) = {
    [AX_OP_EQ] = eq_fp, [AX_OP_NE] = ne_fp, [AX_OP_LT] = lt_fp,
    [AX_OP_LE] = le_fp, [AX_OP_GT] = gt_fp, [AX_OP_GE] = ge_fp,
};

/* An operator with neither a row nor a reason: a programming error, reported as the
 * domain's `unsupported` (the result can only be UNKNOWN), never a call through NULL. */
static AxV no_row(AxDomain *d, const char *table, AxOp op) {
  return outside(d, ax_arena_printf(S(d)->a, "internal: operator '%s' has no row in the IEEE domain's %s table",
                                    (unsigned)op < AX_OP_COUNT ? ax_op_name(op) : "?", table));
}

static AxV elem_binary(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  const BinaryRow *row = (unsigned)op < AX_OP_COUNT ? &binary[op] : NULL;
  if (row && row->boolean) return row->boolean(d, a, b);
  const char *refused = ax_float_unmodelled(op, 2);
  if (!row || (!row->fn && !refused)) return no_row(d, "binary", op);
  if (t != AX_REAL) return outside(d, int_outside);
  if (refused) return outside(d, refused);
  return row->fn(d, a, b);
}

static AxV elem_unary(AxDomain *d, AxOp op, AxType t, AxV a) {
  const UnaryRow *row = (unsigned)op < AX_OP_COUNT ? &unary[op] : NULL;
  if (row && row->boolean) return row->boolean(d, a);
  const char *refused = ax_float_unmodelled(op, 1);
  if (!row || (!row->fn && !refused)) return no_row(d, "unary", op);
  if (t != AX_REAL) return outside(d, int_outside);
  if (refused) return outside(d, refused);
  return row->fn(d, a);
}

/* bool elements as the symbolic domain compares them (false < true); numbers by IEEE
 * comparison (a NaN is unordered, -0 = +0) */
static AxV elem_compare(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  if (t == AX_BOOL) {
    T r = ax_symbolic_bool_compare(TC(d), op, a, b);
    if (r) return r;
  } else if (t != AX_REAL) {
    outside(d, int_outside);
    return bool_lit(d, false);
  } else if ((unsigned)op < AX_OP_COUNT && compare[op]) {
    return compare[op](d, a, b);
  }
  no_row(d, "compare", op);
  return bool_lit(d, false);
}

static AxV elem_same(AxDomain *d, AxType t, AxV a, AxV b) {
  (void)t;
  return ax_term_mk_eq(TC(d), a, b);   /* SMT-LIB `=`: NaN = NaN, +0 ≠ −0 */
}

static AxV read(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n) {
  AxFpSym *s = S(d);
  if (t == AX_INT) return outside(d, int_outside);
  AxSort *argsorts = ax_arena_alloc(s->a, (n + 1) * sizeof(AxSort));
  for (size_t k = 0; k < n; k++) argsorts[k] = AX_SORT_INT;
  AxSort res = t == AX_BOOL ? AX_SORT_BOOL : s->f;
  const AxFunc *f = ax_term_func(s->head.tc, s->names[sym], n, argsorts, res);
  AX_ASSERT(f);
  T app = ax_term_mk_app(s->head.tc, f, n, (const AxTerm *const *)idx);
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

/* REDUCE, unrolled (fpsym.h): extents bounded by max_size; the first summand, then the others
 * added one by one, last index fastest; an empty sum is +0 */
static AxV sum(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
               const char *const *names, const int *axes, const int *pos,
               AxV (*body)(void *, const AxV *), void *ctx) {
  (void)vars;
  (void)names;
  (void)axes;
  (void)pos;
  AxFpSym *s = S(d);
  AxTermCtx *tc = s->head.tc;
  if (t != AX_REAL) return outside(d, int_outside);
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
      acc = ax_term_mk_ite(tc, inside, add_fp(d, acc, body(ctx, idx)), acc);
    for (size_t k = n; k-- > 0;) {
      if (++at[k] < s->max_size) break;
      at[k] = 0;
    }
  }
  return acc;
}

AxFpSym *ax_fpsym_new(AxTermCtx *tc, const char *const *tensor_names, AxSort f, int max_size) {
  AxArena *a = ax_arena_new();
  AxFpSym *s = ax_arena_alloc(a, sizeof *s);
  memset(s, 0, sizeof *s);
  s->a = a;
  s->head.tc = tc;
  s->names = tensor_names;
  s->f = f;
  s->max_size = max_size;
  s->bounds = ax_term_mk_true(tc);
  s->head.dom = (AxDomain){.ite = ite,                   .elem_lit = elem_lit,
                           .elem_of_int = elem_of_int,   .int_of_elem = int_of_elem,
                           .elem_binary = elem_binary,
                           .elem_unary = elem_unary,     .elem_compare = elem_compare,
                           .elem_same = elem_same,       .read = read,
                           .sum = sum};
  ax_symbolic_scalars(&s->head.dom);
  return s;
}

void ax_fpsym_free(AxFpSym *s) {
  if (s) ax_arena_free(s->a);
}

AxDomain *ax_fpsym_domain(AxFpSym *s) { return &s->head.dom; }
AxV ax_fpsym_int_var(AxFpSym *s, const char *name) { return ax_term_mk_var(s->head.tc, name, AX_SORT_INT); }
const AxTerm *ax_fpsym_term(AxV v) { return v; }

const AxRead *ax_fpsym_reads(const AxFpSym *s, size_t *n) {
  *n = s->reads.len;
  AxRead *out = ax_arena_alloc(s->a, (s->reads.len + 1) * sizeof(AxRead));
  for (size_t i = 0; i < s->reads.len; i++) out[i] = *(const AxRead *)s->reads.items[i];
  return out;
}

const AxTerm *ax_fpsym_bounds(const AxFpSym *s) { return s->bounds; }
