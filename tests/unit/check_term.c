/* check_term.c — the hash-consed term DAG: sharing, every builder simplification, exact
 * folding with numbers beyond 64 bits, substitution, collection order, printing. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "semantics/term.h"

static AxTermCtx *tc;

static void setup(void) { tc = ax_term_ctx_new(); }
static void teardown(void) { ax_term_ctx_free(tc); }

/* The term printed, in a static buffer. */
static const char *show(const AxTerm *t) {
  static char buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  ck_assert_ptr_nonnull(f);
  ax_term_print(f, t);
  fclose(f);
  return buf;
}

static const AxTerm *ivar(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_INT); }
static const AxTerm *rvar(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_REAL); }
static const AxTerm *bvar(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_BOOL); }
static const AxTerm *I(long v) { return ax_term_mk_int_si(tc, v); }
static const AxTerm *Q(long n, unsigned long d) { return ax_term_mk_real_si(tc, n, d); }

/* --- Sharing --------------------------------------------------------------------------------- */

START_TEST(test_log_folds) {
  /* only what is true of the real logarithm: log(1) = 0, log(exp(u)) = u, and log of an
   * ite is the ite of the logs; log(2) stays an application */
  const AxTerm *u = ax_term_mk_var(tc, "u", AX_SORT_REAL), *c = ax_term_mk_var(tc, "c", AX_SORT_BOOL);
  const AxTerm *one = ax_term_mk_real_si(tc, 1, 1), *two = ax_term_mk_real_si(tc, 2, 1);
  ck_assert_ptr_eq(ax_term_mk_log(tc, one), ax_term_mk_real_si(tc, 0, 1));
  ck_assert_ptr_eq(ax_term_mk_log(tc, ax_term_mk_exp(tc, u)), u);
  const AxTerm *l2 = ax_term_mk_log(tc, two);
  ck_assert(ax_term_is_log(l2));
  ck_assert(!ax_term_is_log(u));
  ck_assert_ptr_eq(ax_term_mk_log(tc, ax_term_mk_ite(tc, c, ax_term_mk_exp(tc, u), two)),
                   ax_term_mk_ite(tc, c, u, l2));
  /* a tensor named like the function cannot exist: rule names have no '.' */
  ck_assert_ptr_null(strchr("log", '.'));
  ck_assert_ptr_nonnull(strchr(AX_TERM_LOG_NAME, '.'));
}
END_TEST

START_TEST(test_hash_consing) {
  const AxTerm *x = ivar("x"), *y = ivar("y");
  ck_assert_ptr_eq(x, ivar("x"));
  ck_assert_ptr_ne(x, y);
  ck_assert_ptr_ne(x, rvar("x"));   /* same name, other sort: another term */
  ck_assert_int_eq(ax_term_sort(rvar("x")), AX_SORT_REAL);
  ck_assert_ptr_eq(ax_term_mk_add2(tc, x, y), ax_term_mk_add2(tc, x, y));
  ck_assert_ptr_ne(ax_term_mk_add2(tc, x, y), ax_term_mk_add2(tc, y, x));  /* no reordering */
  ck_assert_ptr_eq(I(42), I(42));
  ck_assert_ptr_eq(ax_term_mk_int_str(tc, "-123456789012345678901234567890"),
                   ax_term_mk_int_str(tc, "-123456789012345678901234567890"));
  ck_assert_ptr_eq(Q(2, 4), Q(1, 2));          /* canonical rationals */
  ck_assert_ptr_ne(Q(2, 1), I(2));             /* sorts differ */
  ck_assert_ptr_eq(ax_term_mk_bool(tc, true), ax_term_mk_true(tc));

  AxSort s2[2] = {AX_SORT_INT, AX_SORT_INT};
  const AxFunc *f = ax_term_func(tc, "f", 2, s2, AX_SORT_INT);
  ck_assert_ptr_eq(f, ax_term_func(tc, "f", 2, s2, AX_SORT_INT));
  ck_assert_ptr_null(ax_term_func(tc, "f", 1, s2, AX_SORT_INT));      /* other arity */
  ck_assert_ptr_null(ax_term_func(tc, "f", 2, s2, AX_SORT_REAL));     /* other result */
  const AxTerm *fxy = ax_term_mk_app(tc, f, 2, (const AxTerm *[]){x, y});
  ck_assert_ptr_eq(fxy, ax_term_mk_app(tc, f, 2, (const AxTerm *[]){x, y}));
  ck_assert_int_eq(ax_term_kind(fxy), AX_TERM_APP);
  ck_assert_ptr_eq(ax_term_app_func(fxy), f);
  ck_assert_ptr_eq(ax_term_arg(fxy, 1), y);
  ck_assert_str_eq(ax_term_func_name(f), "f");

  /* Ids are dense, in creation order, and arguments are older than their parents. */
  ck_assert_uint_lt(ax_term_id(x), ax_term_id(y));
  ck_assert_uint_lt(ax_term_id(y), ax_term_id(fxy));
  ck_assert_uint_eq(ax_term_id(fxy), ax_term_ctx_size(tc) - 1);
  const AxTerm *fresh = ivar("fresh");
  ck_assert_uint_eq(ax_term_id(fresh), ax_term_ctx_size(tc) - 1);
}
END_TEST

START_TEST(test_many_terms) {
  /* Enough terms to grow the table several times; sharing must survive rehashing. */
  enum { N = 20000 };
  const AxTerm **v = malloc(N * sizeof *v);
  char name[32];
  for (int i = 0; i < N; i++) {
    snprintf(name, sizeof name, "v%d", i);
    v[i] = ax_term_mk_add2(tc, ivar(name), I(i + 1));
  }
  for (int i = 0; i < N; i++) {
    snprintf(name, sizeof name, "v%d", i);
    ck_assert_ptr_eq(v[i], ax_term_mk_add2(tc, ivar(name), I(i + 1)));
  }
  free(v);
}
END_TEST

/* --- Simplifications --------------------------------------------------------------------------- */

START_TEST(test_bool_simplify) {
  const AxTerm *T = ax_term_mk_true(tc), *F = ax_term_mk_false(tc);
  const AxTerm *p = bvar("p"), *q = bvar("q"), *r = bvar("r");
  ck_assert_ptr_eq(ax_term_mk_not(tc, T), F);
  ck_assert_ptr_eq(ax_term_mk_not(tc, ax_term_mk_not(tc, p)), p);
  /* and: neutral dropped, absorbing wins, flattening, one argument, none. */
  ck_assert_ptr_eq(ax_term_mk_and2(tc, p, T), p);
  ck_assert_ptr_eq(ax_term_mk_and2(tc, p, F), F);
  ck_assert_ptr_eq(ax_term_mk_and(tc, 0, NULL), T);
  ck_assert_ptr_eq(ax_term_mk_and(tc, 3, (const AxTerm *[]){T, T, T}), T);
  const AxTerm *pq = ax_term_mk_and2(tc, p, q);
  const AxTerm *flat = ax_term_mk_and2(tc, pq, ax_term_mk_and2(tc, r, T));
  ck_assert_ptr_eq(flat, ax_term_mk_and(tc, 3, (const AxTerm *[]){p, q, r}));
  ck_assert_uint_eq(ax_term_nargs(flat), 3);
  ck_assert_str_eq(show(flat), "(and p q r)");
  /* or: the dual. */
  ck_assert_ptr_eq(ax_term_mk_or2(tc, p, F), p);
  ck_assert_ptr_eq(ax_term_mk_or2(tc, T, p), T);
  ck_assert_ptr_eq(ax_term_mk_or(tc, 0, NULL), F);
  ck_assert_str_eq(show(ax_term_mk_or2(tc, ax_term_mk_or2(tc, p, q), ax_term_mk_or2(tc, q, r))),
                   "(or p q q r)");
  /* and does not flatten an or, nor the other way round. */
  ck_assert_uint_eq(ax_term_nargs(ax_term_mk_and2(tc, ax_term_mk_or2(tc, p, q), r)), 2);
  /* implies. */
  ck_assert_ptr_eq(ax_term_mk_implies(tc, T, q), q);
  ck_assert_ptr_eq(ax_term_mk_implies(tc, F, q), T);
  ck_assert_ptr_eq(ax_term_mk_implies(tc, p, T), T);
  ck_assert_ptr_eq(ax_term_mk_implies(tc, p, F), ax_term_mk_not(tc, p));
  ck_assert_ptr_eq(ax_term_mk_implies(tc, p, p), T);
  ck_assert_str_eq(show(ax_term_mk_implies(tc, p, q)), "(=> p q)");
  /* ite. */
  const AxTerm *x = ivar("x"), *y = ivar("y");
  ck_assert_ptr_eq(ax_term_mk_ite(tc, T, x, y), x);
  ck_assert_ptr_eq(ax_term_mk_ite(tc, F, x, y), y);
  ck_assert_ptr_eq(ax_term_mk_ite(tc, p, x, x), x);
  ck_assert_ptr_eq(ax_term_mk_ite(tc, p, T, F), p);
  ck_assert_ptr_eq(ax_term_mk_ite(tc, p, F, T), ax_term_mk_not(tc, p));
  ck_assert_str_eq(show(ax_term_mk_ite(tc, p, x, y)), "(ite p x y)");
  ck_assert_int_eq(ax_term_sort(ax_term_mk_ite(tc, p, x, y)), AX_SORT_INT);
}
END_TEST

START_TEST(test_compare_simplify) {
  const AxTerm *T = ax_term_mk_true(tc), *F = ax_term_mk_false(tc);
  const AxTerm *x = ivar("x"), *y = ivar("y"), *p = bvar("p");
  ck_assert_ptr_eq(ax_term_mk_eq(tc, x, x), T);
  ck_assert_ptr_eq(ax_term_mk_le(tc, x, x), T);
  ck_assert_ptr_eq(ax_term_mk_lt(tc, x, x), F);
  ck_assert_ptr_eq(ax_term_mk_ge(tc, x, x), T);
  ck_assert_ptr_eq(ax_term_mk_gt(tc, x, x), F);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, I(3), I(3)), T);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, I(3), I(4)), F);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, Q(1, 3), Q(2, 6)), T);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, T, F), F);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, p, T), p);
  ck_assert_ptr_eq(ax_term_mk_eq(tc, F, p), ax_term_mk_not(tc, p));
  ck_assert_ptr_eq(ax_term_mk_lt(tc, I(-5), I(3)), T);
  ck_assert_ptr_eq(ax_term_mk_lt(tc, I(3), I(3)), F);
  ck_assert_ptr_eq(ax_term_mk_le(tc, I(3), I(3)), T);
  ck_assert_ptr_eq(ax_term_mk_lt(tc, Q(1, 3), Q(1, 2)), T);
  ck_assert_ptr_eq(ax_term_mk_le(tc, Q(1, 2), Q(1, 3)), F);
  /* gt/ge are lt/le with the arguments swapped. */
  ck_assert_ptr_eq(ax_term_mk_gt(tc, x, y), ax_term_mk_lt(tc, y, x));
  ck_assert_ptr_eq(ax_term_mk_ge(tc, x, y), ax_term_mk_le(tc, y, x));
  ck_assert_ptr_eq(ax_term_mk_gt(tc, I(4), I(3)), T);
  ck_assert_str_eq(show(ax_term_mk_gt(tc, x, y)), "(< y x)");
  ck_assert_str_eq(show(ax_term_mk_eq(tc, x, y)), "(= x y)");
}
END_TEST

START_TEST(test_arith_simplify) {
  const AxTerm *x = ivar("x"), *y = ivar("y"), *r = rvar("r");
  const AxTerm *zero = I(0), *one = I(1);
  ck_assert_ptr_eq(ax_term_mk_add2(tc, x, zero), x);
  ck_assert_ptr_eq(ax_term_mk_add2(tc, zero, x), x);
  ck_assert_ptr_eq(ax_term_mk_add(tc, 1, &x), x);
  ck_assert_str_eq(show(ax_term_mk_add(tc, 4, (const AxTerm *[]){x, zero, y, zero})), "(+ x y)");
  ck_assert_ptr_eq(ax_term_mk_add2(tc, r, Q(0, 1)), r);
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, x, one), x);
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, one, x), x);
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, x, zero), zero);
  ck_assert_ptr_eq(ax_term_mk_mul(tc, 3, (const AxTerm *[]){x, y, zero}), zero);
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, Q(0, 1), r), Q(0, 1));
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, r, Q(1, 1)), r);
  ck_assert_ptr_eq(ax_term_mk_sub(tc, x, zero), x);
  ck_assert_ptr_eq(ax_term_mk_sub(tc, x, x), zero);
  ck_assert_ptr_eq(ax_term_mk_sub(tc, r, r), Q(0, 1));
  ck_assert_ptr_eq(ax_term_mk_neg(tc, ax_term_mk_neg(tc, x)), x);
  ck_assert_ptr_eq(ax_term_mk_div(tc, x, one), x);
  ck_assert_ptr_eq(ax_term_mk_mod(tc, x, one), zero);
  ck_assert_ptr_eq(ax_term_mk_rdiv(tc, r, Q(1, 1)), r);
  /* Non-constant arguments stay. */
  ck_assert_str_eq(show(ax_term_mk_sub(tc, x, y)), "(- x y)");
  ck_assert_str_eq(show(ax_term_mk_neg(tc, x)), "(- x)");
  ck_assert_str_eq(show(ax_term_mk_mul2(tc, x, I(3))), "(* x 3)");
  ck_assert_str_eq(show(ax_term_mk_abs(tc, r)), "(abs r)");
  ck_assert_str_eq(show(ax_term_mk_to_real(tc, x)), "(to_real x)");
  ck_assert_int_eq(ax_term_sort(ax_term_mk_to_real(tc, x)), AX_SORT_REAL);
  /* A zero divisor never folds: SMT-LIB leaves its value unspecified. */
  const AxTerm *d0 = ax_term_mk_div(tc, I(7), zero);
  ck_assert_int_eq(ax_term_kind(d0), AX_TERM_DIV);
  ck_assert_int_eq(ax_term_kind(ax_term_mk_mod(tc, I(7), zero)), AX_TERM_MOD);
  ck_assert_int_eq(ax_term_kind(ax_term_mk_rdiv(tc, Q(1, 1), Q(0, 1))), AX_TERM_RDIV);
  ck_assert_str_eq(show(d0), "(div 7 0)");
}
END_TEST

static void expect_int(const AxTerm *t, const char *decimal) {
  ck_assert_int_eq(ax_term_kind(t), AX_TERM_INT);
  mpz_t v, want;
  mpz_inits(v, want, NULL);
  ax_term_int_value(t, v);
  mpz_set_str(want, decimal, 10);
  ck_assert_msg(mpz_cmp(v, want) == 0, "got %s, want %s", show(t), decimal);
  mpz_clears(v, want, NULL);
}

START_TEST(test_fold_big) {
  /* 2^70 * 2^70 = 2^140, far past 64 bits, exact. */
  const AxTerm *p70 = ax_term_mk_int_str(tc, "1180591620717411303424");
  expect_int(ax_term_mk_mul2(tc, p70, p70), "1393796574908163946345982392040522594123776");
  /* (2^64 + 1) + (2^64 - 1) = 2^65; 2^64 - 2^65 = -2^64. */
  const AxTerm *a = ax_term_mk_int_str(tc, "18446744073709551617");
  const AxTerm *b = ax_term_mk_int_str(tc, "18446744073709551615");
  expect_int(ax_term_mk_add2(tc, a, b), "36893488147419103232");
  expect_int(ax_term_mk_sub(tc, ax_term_mk_add2(tc, a, I(-1)), ax_term_mk_add2(tc, a, b)),
             "-18446744073709551616");
  expect_int(ax_term_mk_neg(tc, a), "-18446744073709551617");
  expect_int(ax_term_mk_abs(tc, ax_term_mk_neg(tc, a)), "18446744073709551617");
  expect_int(ax_term_mk_mul(tc, 3, (const AxTerm *[]){I(-2), a, I(3)}), "-110680464442257309702");
  /* Euclidean division: 0 <= mod < |divisor|, for every sign combination. */
  struct { long a, b, q, r; } cases[] = {
    {7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -3, 1}, {-7, -2, 4, 1},
    {6, 3, 2, 0}, {-6, 3, -2, 0}, {0, -5, 0, 0}, {-1, 5, -1, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const AxTerm *q = ax_term_mk_div(tc, I(cases[i].a), I(cases[i].b));
    const AxTerm *r = ax_term_mk_mod(tc, I(cases[i].a), I(cases[i].b));
    ck_assert_msg(q == I(cases[i].q), "%ld div %ld = %s", cases[i].a, cases[i].b, show(q));
    ck_assert_msg(r == I(cases[i].r), "%ld mod %ld = %s", cases[i].a, cases[i].b, show(r));
  }
  /* Big Euclidean: -(2^64+1) div 2^64 = -2, mod = 2^64 - 1. */
  const AxTerm *p64 = ax_term_mk_int_str(tc, "18446744073709551616");
  expect_int(ax_term_mk_div(tc, ax_term_mk_neg(tc, a), p64), "-2");
  expect_int(ax_term_mk_mod(tc, ax_term_mk_neg(tc, a), p64), "18446744073709551615");
  expect_int(ax_term_mk_mod(tc, ax_term_mk_neg(tc, a), ax_term_mk_neg(tc, p64)),
             "18446744073709551615");
  /* Comparisons of big constants. */
  ck_assert_ptr_eq(ax_term_mk_lt(tc, b, a), ax_term_mk_true(tc));
  ck_assert_ptr_eq(ax_term_mk_lt(tc, ax_term_mk_neg(tc, a), ax_term_mk_neg(tc, b)),
                   ax_term_mk_true(tc));
}
END_TEST

START_TEST(test_fold_real) {
  ck_assert_ptr_eq(ax_term_mk_add2(tc, Q(1, 3), Q(1, 6)), Q(1, 2));
  ck_assert_ptr_eq(ax_term_mk_sub(tc, Q(1, 3), Q(1, 2)), Q(-1, 6));
  ck_assert_ptr_eq(ax_term_mk_mul2(tc, Q(2, 3), Q(3, 4)), Q(1, 2));
  ck_assert_ptr_eq(ax_term_mk_rdiv(tc, Q(1, 3), Q(-2, 1)), Q(-1, 6));
  ck_assert_ptr_eq(ax_term_mk_neg(tc, Q(1, 3)), Q(-1, 3));
  ck_assert_ptr_eq(ax_term_mk_abs(tc, Q(-1, 3)), Q(1, 3));
  ck_assert_ptr_eq(ax_term_mk_to_real(tc, I(-7)), Q(-7, 1));
  mpq_t big;
  mpq_init(big);
  mpq_set_str(big, "1/340282366920938463463374607431768211456", 10);   /* 2^-128 */
  const AxTerm *eps = ax_term_mk_real(tc, big);
  const AxTerm *twice = ax_term_mk_add2(tc, eps, eps);
  mpq_t v;
  mpq_init(v);
  ax_term_real_value(twice, v);
  mpq_set_str(big, "1/170141183460469231731687303715884105728", 10);  /* 2^-127 */
  ck_assert(mpq_equal(v, big));
  mpq_clears(v, big, NULL);
  ck_assert_str_eq(show(Q(-1, 3)), "-1/3");
  ck_assert_str_eq(show(Q(4, 2)), "2.0");
}
END_TEST

/* --- Traversals --------------------------------------------------------------------------------- */

START_TEST(test_subst) {
  const AxTerm *x = ivar("x"), *y = ivar("y"), *z = ivar("z");
  AxSort s2[2] = {AX_SORT_INT, AX_SORT_INT};
  const AxFunc *f = ax_term_func(tc, "f", 2, s2, AX_SORT_INT);
  const AxTerm *fxy = ax_term_mk_app(tc, f, 2, (const AxTerm *[]){x, y});
  const AxTerm *t = ax_term_mk_add2(tc, fxy, x);
  /* Simultaneous: x and y swap, not x -> y -> x. */
  const AxTerm *swapped = ax_term_subst(tc, t, 2, (const AxTerm *[]){x, y},
                                        (const AxTerm *[]){y, x});
  ck_assert_str_eq(show(swapped), "(+ (f y x) y)");
  /* A replacement is not searched again. */
  const AxTerm *grown = ax_term_subst(tc, t, 1, (const AxTerm *[]){x},
                                      (const AxTerm *[]){ax_term_mk_add2(tc, x, z)});
  ck_assert_str_eq(show(grown), "(+ (f (+ x z) y) (+ x z))");
  /* Nothing to replace: the very same term. */
  ck_assert_ptr_eq(ax_term_subst(tc, t, 1, (const AxTerm *[]){z}, (const AxTerm *[]){x}), t);
  /* Non-variable patterns, and the builders simplify the result. */
  const AxTerm *r = ax_term_subst(tc, t, 1, (const AxTerm *[]){fxy}, (const AxTerm *[]){I(0)});
  ck_assert_ptr_eq(r, x);
  const AxTerm *c = ax_term_subst(tc, ax_term_mk_lt(tc, x, y), 2, (const AxTerm *[]){x, y},
                                  (const AxTerm *[]){I(2), I(3)});
  ck_assert_ptr_eq(c, ax_term_mk_true(tc));
  ck_assert_ptr_eq(ax_term_subst(tc, x, 1, (const AxTerm *[]){x}, (const AxTerm *[]){z}), z);

  /* Linear in the DAG: a chain whose tree has 2^200 nodes. */
  const AxTerm *d = x;
  for (int i = 0; i < 200; i++) d = ax_term_mk_add2(tc, d, d);
  const AxTerm *d2 = ax_term_subst(tc, d, 1, (const AxTerm *[]){x}, (const AxTerm *[]){y});
  const AxTerm *e = y;
  for (int i = 0; i < 200; i++) e = ax_term_mk_add2(tc, e, e);
  ck_assert_ptr_eq(d2, e);
}
END_TEST

static void names_of(const AxVec *v, char *out, size_t len) {
  out[0] = '\0';
  for (size_t i = 0; i < v->len; i++) {
    const AxTerm *t = v->items[i];
    const char *n = ax_term_kind(t) == AX_TERM_VAR ? ax_term_var_name(t)
                                                  : ax_term_func_name(ax_term_app_func(t));
    strncat(out, n, len - strlen(out) - 1);
    strncat(out, " ", len - strlen(out) - 1);
  }
}

/* Builds the same formula in a fresh context; variant 1 creates the variables in reverse. */
static void collect_in_fresh_ctx(int variant, char *vars, char *apps, size_t len) {
  AxTermCtx *c = ax_term_ctx_new();
  const char *names[] = {"w", "b", "a", "c"};
  const AxTerm *v[4];
  for (int i = 0; i < 4; i++) {
    int k = variant ? 3 - i : i;   /* creation order differs between variants */
    v[k] = ax_term_mk_var(c, names[k], AX_SORT_INT);
  }
  AxSort s1 = AX_SORT_INT;
  const AxFunc *g = ax_term_func(c, "g", 1, &s1, AX_SORT_INT);
  const AxFunc *h = ax_term_func(c, "h", 1, &s1, AX_SORT_INT);
  const AxTerm *hc = ax_term_mk_app(c, h, 1, &v[3]);
  const AxTerm *ga = ax_term_mk_app(c, g, 1, &v[2]);
  const AxTerm *gga = ax_term_mk_app(c, g, 1, &ga);
  const AxTerm *sum = ax_term_mk_add(c, 4, (const AxTerm *[]){v[0], gga, v[1], hc});
  const AxTerm *root = ax_term_mk_and2(c, ax_term_mk_lt(c, sum, v[2]),
                                       ax_term_mk_eq(c, v[0], hc));
  AxArena *a = ax_arena_new();
  AxVec out = {0};
  ck_assert_uint_eq(ax_term_collect(c, &root, 1, ax_term_pred_var, NULL, a, &out), 4);
  names_of(&out, vars, len);
  AxVec out2 = {0};
  ck_assert_uint_eq(ax_term_collect(c, &root, 1, ax_term_pred_app, NULL, a, &out2), 3);
  names_of(&out2, apps, len);
  ax_arena_free(a);
  ax_term_ctx_free(c);
}

START_TEST(test_collect_order) {
  char vars0[128], apps0[128], vars1[128], apps1[128];
  collect_in_fresh_ctx(0, vars0, apps0, sizeof vars0);
  collect_in_fresh_ctx(1, vars1, apps1, sizeof vars1);
  /* Postorder of the structure, first occurrence, arguments left to right; independent of
   * creation order. Inner applications come before outer ones. */
  ck_assert_str_eq(vars0, "w a b c ");
  ck_assert_str_eq(apps0, "g g h ");
  ck_assert_str_eq(vars1, vars0);
  ck_assert_str_eq(apps1, apps0);
}
END_TEST

typedef struct Count {
  int n;
} Count;

static void count_visit(const AxTerm *t, void *data) {
  Count *c = data;
  (void)t;
  c->n++;
}

START_TEST(test_postorder_deep) {
  /* A 100000-deep chain: the traversal must not recurse on the C stack. */
  const AxTerm *t = ivar("x");
  for (int i = 0; i < 100000; i++) t = ax_term_mk_add2(tc, t, I(i + 1));
  Count c = {0};
  ax_term_postorder(tc, &t, 1, count_visit, &c);
  ck_assert_int_eq(c.n, 1 + 100000 + 100000);   /* x, the constants, the sums */
  /* Several roots sharing subterms: each distinct subterm once. */
  const AxTerm *roots[3] = {t, t, ivar("x")};
  c.n = 0;
  ax_term_postorder(tc, roots, 3, count_visit, &c);
  ck_assert_int_eq(c.n, 1 + 100000 + 100000);
}
END_TEST

START_TEST(test_print) {
  const AxTerm *x = ivar("x");
  AxSort s = AX_SORT_INT;
  const AxFunc *f = ax_term_func(tc, "Y", 1, &s, AX_SORT_REAL);
  const AxFunc *k = ax_term_func(tc, "k", 0, NULL, AX_SORT_INT);
  const AxTerm *t = ax_term_mk_rdiv(tc, ax_term_mk_app(tc, f, 1, &x), Q(-3, 2));
  ck_assert_str_eq(show(t), "(/ (Y x) -3/2)");
  ck_assert_str_eq(show(ax_term_mk_app(tc, k, 0, NULL)), "k");
  ck_assert_str_eq(show(ax_term_mk_int_str(tc, "-99999999999999999999999")),
                   "-99999999999999999999999");
  ck_assert_str_eq(show(ax_term_mk_mod(tc, x, I(-4))), "(mod x -4)");
}
END_TEST

static Suite *term_suite(void) {
  Suite *s = suite_create("term");
  TCase *tcs = tcase_create("core");
  tcase_add_checked_fixture(tcs, setup, teardown);
  tcase_add_test(tcs, test_hash_consing);
  tcase_add_test(tcs, test_many_terms);
  tcase_add_test(tcs, test_bool_simplify);
  tcase_add_test(tcs, test_compare_simplify);
  tcase_add_test(tcs, test_arith_simplify);
  tcase_add_test(tcs, test_fold_big);
  tcase_add_test(tcs, test_fold_real);
  tcase_add_test(tcs, test_subst);
  tcase_add_test(tcs, test_collect_order);
  tcase_add_test(tcs, test_postorder_deep);
  tcase_add_test(tcs, test_print);
  tcase_add_test(tcs, test_log_folds);
  suite_add_tcase(s, tcs);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(term_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
