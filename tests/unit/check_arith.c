/* check_arith.c — the exact arithmetic preprocessing (smt/arith.h): normal forms,
 * bounds, division, elimination of divisibility and equations, case splits, and the model
 * read back through the rewritten watch terms -- checked against the real z3. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "semantics/term.h"
#include "smt/arith.h"
#include "smt/solver.h"

static AxTermCtx *tc;

static void setup(void) { tc = ax_term_ctx_new(); }
static void teardown(void) { ax_term_ctx_free(tc); }

typedef const AxTerm *T;

static T v(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_INT); }
static T k(long x) { return ax_term_mk_int_si(tc, x); }
static T add(T a, T b) { return ax_term_mk_add2(tc, a, b); }
static T sub(T a, T b) { return ax_term_mk_sub(tc, a, b); }
static T mul(T a, T b) { return ax_term_mk_mul2(tc, a, b); }
static T eq(T a, T b) { return ax_term_mk_eq(tc, a, b); }
static T le(T a, T b) { return ax_term_mk_le(tc, a, b); }
static T lt(T a, T b) { return ax_term_mk_lt(tc, a, b); }
static T not(T a) { return ax_term_mk_not(tc, a); }
static T and2(T a, T b) { return ax_term_mk_and2(tc, a, b); }
static T and3(T a, T b, T c) { return and2(and2(a, b), c); }
/* the semantics' guarded divisor: ite(0 < d, d, 1) */
static T guarded(T d) { return ax_term_mk_ite(tc, lt(k(0), d), d, k(1)); }

static T simplify(T f, const T *watch, size_t n, T *out, unsigned *elim) {
  return ax_arith_simplify(tc, f, watch, n, out, elim);
}

static AxSmtResult z3(T f, const T *watch, size_t n, AxModel **m) {
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 20000};
  char reason[256];
  return ax_solver_check(&o, tc, f, watch, n, m, reason, sizeof reason);
}

/* Ring identities: (x + 1)(x - 1) - x·x + 1 = 0 becomes true. */
START_TEST(test_polynomial_identity) {
  T x = v("x"), d = v("d");
  T p = add(sub(mul(add(x, k(1)), sub(x, k(1))), mul(x, x)), k(1));
  T f = and2(le(k(1), d), not(eq(p, k(0))));
  ck_assert_ptr_eq(simplify(f, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
}
END_TEST

/* Bounds decide the guarded divisor and comparisons; the bound itself stays. */
START_TEST(test_bounds_decide) {
  T x = v("x"), y = v("y");
  T f = and2(le(k(0), x), eq(y, ax_term_mk_div(tc, y, guarded(add(x, k(1))))));
  T g = simplify(f, NULL, 0, NULL, NULL);
  /* the guard is gone: the divisor is x + 1 itself */
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  ax_term_print(mem, g);
  fclose(mem);
  ck_assert_msg(strstr(buf, "ite") == NULL, "guard left in %s", buf);
  ck_assert_msg(strstr(buf, "(<= 0 x)") != NULL, "bound lost in %s", buf);
  free(buf);
}
END_TEST

/* Two copies of one bound must not make each other vanish. */
START_TEST(test_duplicate_bounds_stay) {
  T x = v("x");
  T c = le(k(1), ax_term_mk_ite(tc, lt(k(0), x), x, k(5)));
  T f = and3(c, c, eq(x, k(0)));
  T g = simplify(f, NULL, 0, NULL, NULL);
  ck_assert_ptr_ne(g, ax_term_mk_false(tc));
  ck_assert_int_eq(z3(g, NULL, 0, NULL), AX_SMT_SAT);
  T h = and3(c, c, eq(x, k(-3)));   /* ite gives 5 >= 1: still satisfiable */
  ck_assert_int_eq(z3(simplify(h, NULL, 0, NULL, NULL), NULL, 0, NULL), AX_SMT_SAT);
}
END_TEST

/* The convolution pattern: from (p - l) mod d = 0 and ((p - l) div d - a) mod (i + 1) = 0,
 * (p - l - d·a) mod (d + d·i) = 0 follows; the solver alone times out on this. */
START_TEST(test_divisibility_chain) {
  T p = v("p"), l = v("l"), d = v("d"), i = v("i"), a = v("a"), n = v("n");
  T y = sub(p, l);
  T q = ax_term_mk_div(tc, y, guarded(d));
  T b = sub(q, a);
  T D = add(d, mul(d, i));
  T c = sub(y, mul(d, a));
  T hyp = and3(and3(le(k(1), d), le(k(0), i), le(k(0), a)),
               and2(eq(ax_term_mk_mod(tc, y, guarded(d)), k(0)), le(k(0), y)),
               and3(le(k(0), b), eq(ax_term_mk_mod(tc, b, guarded(add(i, k(1)))), k(0)),
                    lt(ax_term_mk_div(tc, b, guarded(add(i, k(1)))), n)));
  T goal = and3(le(k(0), c), eq(ax_term_mk_mod(tc, c, guarded(D)), k(0)),
                lt(ax_term_mk_div(tc, c, guarded(D)), n));
  unsigned elim = 0;
  T g = simplify(and2(hyp, not(goal)), NULL, 0, NULL, &elim);
  ck_assert_uint_eq(elim, 2);
  ck_assert_int_eq(z3(g, NULL, 0, NULL), AX_SMT_UNSAT);
  /* the same through ax_solver_check, which simplifies by itself */
  ck_assert_int_eq(z3(and2(hyp, not(goal)), NULL, 0, NULL), AX_SMT_UNSAT);
}
END_TEST

/* An eliminated variable is watched through its solution: the model z3 gives for the
 * simplified query, read through the rewritten watch terms, satisfies the original. */
START_TEST(test_model_through_substitution) {
  T x = v("x"), d = v("d"), w = v("w");
  T f = and3(and2(le(k(3), d), lt(d, k(6))), eq(ax_term_mk_mod(tc, sub(x, k(7)), guarded(d)), k(0)),
             and3(lt(k(20), x), lt(x, k(40)), eq(w, add(x, d))));
  T watch[3] = {x, d, w}, out[3];
  unsigned elim = 0;
  simplify(f, watch, 3, out, &elim);
  ck_assert_uint_ge(elim, 1);
  ck_assert_ptr_ne(out[0], x);   /* x was solved for */
  AxModel *m = NULL;
  ck_assert_int_eq(z3(f, watch, 3, &m), AX_SMT_SAT);
  mpz_t xv, dv, wv;
  mpz_inits(xv, dv, wv, NULL);
  ck_assert(ax_model_int(m, 0, xv) && ax_model_int(m, 1, dv) && ax_model_int(m, 2, wv));
  long X = mpz_get_si(xv), Dv = mpz_get_si(dv), W = mpz_get_si(wv);
  ck_assert(3 <= Dv && Dv < 6 && 20 < X && X < 40 && W == X + Dv);
  ck_assert_int_eq((X - 7) % Dv, 0);
  mpz_clears(xv, dv, wv, NULL);
  ax_model_free(m);
}
END_TEST

/* Remainders reduce by multiples of the divisor, whatever its sign, even 0. */
START_TEST(test_remainder_reduces) {
  T x = v("x"), c = v("c");
  T f = not(eq(ax_term_mk_mod(tc, add(x, mul(k(3), c)), c), ax_term_mk_mod(tc, x, c)));
  ck_assert_ptr_eq(simplify(f, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
  /* a quotient needs a divisor known to be non-zero */
  T g = not(eq(ax_term_mk_div(tc, add(x, c), c), add(ax_term_mk_div(tc, x, c), k(1))));
  ck_assert_ptr_ne(simplify(g, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
  ck_assert_int_eq(z3(g, NULL, 0, NULL), AX_SMT_SAT);   /* c = 0 */
  T h = and2(le(k(1), c), g);
  ck_assert_ptr_eq(simplify(h, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
}
END_TEST

/* Top-level equations are solved; a wrong rule stays satisfiable. */
START_TEST(test_equations_keep_satisfiability) {
  T s = v("s"), st = v("st"), i = v("i"), x = v("x");
  T f = and3(eq(st, add(i, k(1))), le(k(0), i),
             and2(le(k(0), x), not(eq(ax_term_mk_mod(tc, mul(st, x), guarded(st)), k(0)))));
  ck_assert_ptr_eq(simplify(f, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
  T g = and3(eq(st, add(i, k(2))), le(k(0), i),
             and2(le(k(0), s), not(eq(ax_term_mk_mod(tc, add(mul(st, x), k(1)), guarded(st)), k(0)))));
  ck_assert_int_eq(z3(simplify(g, NULL, 0, NULL, NULL), NULL, 0, NULL), AX_SMT_SAT);
}
END_TEST

/* Coefficients past int64 abandon the simplification: the query comes back unchanged. */
START_TEST(test_overflow_gives_up) {
  T x = v("x"), d = v("d");
  T big = ax_term_mk_int_str(tc, "9223372036854775807");
  T f = and2(le(k(1), d), eq(ax_term_mk_mod(tc, mul(mul(big, k(4)), x), d), k(1)));
  unsigned elim = 7;
  ck_assert_ptr_eq(simplify(f, NULL, 0, NULL, &elim), f);
  ck_assert_uint_eq(elim, 0);
}
END_TEST

/* Case splits: a disjunction's disjuncts replace it; an |x| of unknown sign splits on x. */
START_TEST(test_split) {
  T x = v("x"), n = v("n");
  T rem = ax_term_mk_mod(tc, ax_term_mk_abs(tc, x), ax_term_mk_abs(tc, n));
  T d1 = le(k(0), x), d2 = lt(x, k(-5));
  T f = and2(ax_term_mk_or2(tc, d1, d2), eq(rem, k(1)));
  T out[2];
  ck_assert_uint_eq(ax_arith_split(tc, f, out, 2), 2);
  ck_assert_ptr_eq(out[0], and2(d1, eq(rem, k(1))));
  ck_assert_ptr_eq(out[1], and2(d2, eq(rem, k(1))));
  T g = eq(rem, k(1));
  ck_assert_uint_eq(ax_arith_split(tc, g, out, 2), 2);
  ck_assert_ptr_eq(out[0], and2(g, le(k(0), x)));
  ck_assert_ptr_eq(out[1], and2(g, lt(x, k(0))));
  ck_assert_uint_eq(ax_arith_split(tc, eq(ax_term_mk_mod(tc, x, k(3)), k(1)), out, 2), 0);
  /* an integer ite inside a division: its condition, both ways */
  T c = lt(x, n), ite = ax_term_mk_ite(tc, c, x, n);
  T h = eq(ax_term_mk_div(tc, ite, n), k(2));
  ck_assert_uint_eq(ax_arith_split(tc, h, out, 2), 2);
  ck_assert_ptr_eq(out[0], and2(h, c));
  ck_assert_ptr_eq(out[1], and2(h, not(c)));
}
END_TEST

/* slice_13's duplicate check: with the ite's condition a case, the division is exact in
 * one case, and in the other the bounds on a div by a positive amount close the query. */
START_TEST(test_ite_case_and_div_bounds) {
  T st = v("st"), q = v("q"), x = v("x"), s = v("s");
  T r = ax_term_mk_ite(tc, lt(k(0), q), sub(s, mul(st, q)), s);
  T f = and3(and2(lt(k(0), st), le(k(0), x)), lt(x, add(ax_term_mk_div(tc, sub(q, k(1)), st), k(1))),
             not(eq(add(mul(st, ax_term_mk_div(tc, sub(s, r), st)), r), s)));
  T g0 = simplify(f, NULL, 0, NULL, NULL), cases[2];
  ck_assert_ptr_ne(g0, ax_term_mk_false(tc));   /* one ite too many to decide alone */
  ck_assert_uint_eq(ax_arith_split(tc, g0, cases, 2), 2);
  for (int i = 0; i < 2; i++)
    ck_assert_ptr_eq(simplify(cases[i], NULL, 0, NULL, NULL), ax_term_mk_false(tc));
  ck_assert_int_eq(z3(f, NULL, 0, NULL), AX_SMT_UNSAT);
  /* x >= 0 and x < (-1 div st) + 1 with st >= 1 cannot both hold */
  T g = and3(lt(k(0), st), le(k(0), x), lt(x, add(ax_term_mk_div(tc, k(-1), st), k(1))));
  ck_assert_ptr_eq(simplify(g, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
}
END_TEST

/* Division by an unknown, or a product of two unknowns, asks for the preprocessing. */
START_TEST(test_wanted) {
  T x = v("x"), d = v("d");
  ck_assert(!ax_arith_wanted(tc, eq(ax_term_mk_mod(tc, x, k(3)), k(1))));
  ck_assert(ax_arith_wanted(tc, eq(ax_term_mk_div(tc, x, d), k(1))));
  ck_assert(ax_arith_wanted(tc, eq(mul(x, d), k(1))));
  ck_assert(!ax_arith_wanted(tc, eq(mul(k(3), add(x, d)), k(1))));
  /* a product of reals (tensor values) is no index arithmetic */
  T r = ax_term_mk_var(tc, "r", AX_SORT_REAL);
  ck_assert(!ax_arith_wanted(tc, eq(ax_term_mk_mul2(tc, r, r), ax_term_mk_real_si(tc, 1, 1))));
}
END_TEST

/* A convolution's output size, (k - 1)·(p + 1) + 1 against k + (k - 1)·p: one polynomial,
 * so the shape check is decided before any solver sees it. */
START_TEST(test_conv_size_identity) {
  T kk = v("k"), p = v("p");
  T lhs = add(kk, mul(sub(kk, k(1)), p)), rhs = add(mul(sub(kk, k(1)), add(p, k(1))), k(1));
  T f = and3(lt(k(0), kk), le(k(0), p), not(eq(lhs, rhs)));
  ck_assert(ax_arith_wanted(tc, f));
  ck_assert_ptr_eq(simplify(f, NULL, 0, NULL, NULL), ax_term_mk_false(tc));
}
END_TEST

/* The conjuncts ax_arith_window_facts added to f: g's top-level conjuncts that are none of
 * f's (the term layer flattens nested conjunctions). */
static bool is_conjunct(T f, T c) {
  if (f == c) return true;
  if (ax_term_kind(f) != AX_TERM_AND) return false;
  for (size_t i = 0; i < ax_term_nargs(f); i++)
    if (is_conjunct(ax_term_arg(f, i), c)) return true;
  return false;
}

static size_t added_facts(T f, T g, T *out, size_t max) {
  size_t n = 0;
  if (g == f) return 0;
  ck_assert_int_eq(ax_term_kind(g), AX_TERM_AND);
  for (size_t i = 0; i < ax_term_nargs(g) && n < max; i++)
    if (!is_conjunct(f, ax_term_arg(g, i))) out[n++] = ax_term_arg(g, i);
  for (size_t i = 0; i < ax_term_nargs(f) && ax_term_kind(f) == AX_TERM_AND; i++)
    ck_assert_msg(is_conjunct(g, ax_term_arg(f, i)), "a conjunct of the formula lost");
  return n;
}

/* The oracle of the facts: each is implied by the formula it was drawn from (formula ∧ ¬fact
 * unsat, by z3 and by cvc5), so conjoining it changes no model. */
static void assert_implied(T f, T fact) {
  AxSolverOpts o[2] = {{.kind = AX_SOLVER_Z3, .timeout_ms = 20000},
                       {.kind = AX_SOLVER_PIPE, .binary = "cvc5", .timeout_ms = 20000}};
  for (int i = 0; i < 2; i++) {
    char reason[256];
    AxSmtResult r = ax_solver_check(&o[i], tc, and2(f, not(fact)), NULL, 0, NULL, reason, sizeof reason);
    ck_assert_msg(r == AX_SMT_UNSAT, "%s: a fact not implied (%d: %s)", i ? "cvc5" : "z3", (int)r, reason);
  }
}

static bool printed_has(T t, const char *text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  ax_term_print(mem, t);
  fclose(mem);
  bool has = strstr(buf, text) != NULL;
  free(buf);
  return has;
}

/* conv_01's surjectivity at rank 1: j < k, p >= 0, and j·(p + 1) must stay below the
 * dilated extent k + (k - 1)·p. The fact (k - 1 - j)·p >= 0 is among those added, every
 * fact is implied, and the query stays unsat. */
START_TEST(test_window_facts) {
  T j = v("j"), kk = v("k"), p = v("p");
  T f = and3(and2(le(k(0), j), lt(j, kk)), le(k(0), p),
             not(lt(mul(j, add(p, k(1))), add(kk, mul(sub(kk, k(1)), p)))));
  T g = ax_arith_window_facts(tc, f), facts[32];
  size_t n = added_facts(f, g, facts, 32);
  ck_assert_uint_ge(n, 2);
  bool monotone = false;
  for (size_t i = 0; i < n; i++) {
    assert_implied(f, facts[i]);
    monotone |= facts[i] == le(k(0), ax_arith_normal(tc, mul(sub(sub(kk, k(1)), j), p)));
  }
  ck_assert_msg(monotone, "no fact (k - 1 - j)·p >= 0");
  ck_assert_int_eq(z3(g, NULL, 0, NULL), AX_SMT_UNSAT);
  /* nothing to multiply: no facts */
  T lin = and2(le(k(0), j), lt(j, kk));
  ck_assert_ptr_eq(ax_arith_window_facts(tc, lin), lin);
}
END_TEST

/* A positive factor divides out of a bound: l·q + l·p·q >= 0 with l >= 1 gives
 * q + p·q >= 0, and l·q >= 1 gives q >= 1; a factor that may be 0 does not. */
START_TEST(test_positive_factor_facts) {
  T l = v("l"), q = v("q"), p = v("p"), z = v("z");
  T f = and3(le(k(1), l), le(k(0), p), le(k(0), add(mul(l, q), mul(mul(l, p), q))));
  T facts[32];
  size_t n = added_facts(f, ax_arith_window_facts(tc, f), facts, 32);
  bool found = false;
  for (size_t i = 0; i < n; i++) {
    assert_implied(f, facts[i]);
    found |= facts[i] == le(k(0), ax_arith_normal(tc, add(q, mul(p, q))));
  }
  ck_assert_msg(found, "no fact q + p·q >= 0");
  T g = and2(le(k(1), l), le(k(1), mul(l, q)));
  n = added_facts(g, ax_arith_window_facts(tc, g), facts, 32);
  ck_assert_uint_eq(n, 1);
  ck_assert_ptr_eq(facts[0], le(k(1), q));
  T h = and2(le(k(0), z), le(k(0), mul(z, q)));   /* z may be 0: nothing follows for q */
  n = added_facts(h, ax_arith_window_facts(tc, h), facts, 32);
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(!printed_has(facts[i], "(<= 0 q)"), "q >= 0 from z·q >= 0, z >= 0");
    assert_implied(h, facts[i]);
  }
}
END_TEST

/* Random bounds and products: every fact drawn is implied by its formula. */
START_TEST(test_window_facts_implied) {
  T x[4] = {v("a"), v("b"), v("c"), v("d")};
  unsigned seed = 17;
  size_t total = 0;
  for (int round = 0; round < 12; round++) {
    T f = ax_term_mk_true(tc);
    for (int i = 0; i < 4; i++) {
      seed = seed * 1103515245u + 12345u;
      T a = x[(seed >> 8) % 4], b = x[(seed >> 12) % 4];
      long c = (long)((seed >> 16) % 5) - 2;
      switch ((seed >> 20) % 4) {
      case 0: f = and2(f, le(k(c), a)); break;
      case 1: f = and2(f, lt(a, add(b, k(c)))); break;
      case 2: f = and2(f, not(lt(mul(a, b), k(c)))); break;
      default: f = and2(f, le(k(c), mul(a, add(b, k(1))))); break;
      }
    }
    T facts[32];
    size_t n = added_facts(f, ax_arith_window_facts(tc, f), facts, 32);
    for (size_t i = 0; i < n; i++) assert_implied(f, facts[i]);
    total += n;
  }
  ck_assert_uint_gt(total, 0);   /* the generator does reach the facts */
}
END_TEST

static Suite *arith_suite(void) {
  Suite *s = suite_create("arith");
  TCase *t = tcase_create("arith");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_polynomial_identity);
  tcase_add_test(t, test_bounds_decide);
  tcase_add_test(t, test_duplicate_bounds_stay);
  tcase_add_test(t, test_divisibility_chain);
  tcase_add_test(t, test_model_through_substitution);
  tcase_add_test(t, test_remainder_reduces);
  tcase_add_test(t, test_equations_keep_satisfiability);
  tcase_add_test(t, test_overflow_gives_up);
  tcase_add_test(t, test_split);
  tcase_add_test(t, test_ite_case_and_div_bounds);
  tcase_add_test(t, test_wanted);
  tcase_add_test(t, test_conv_size_identity);
  tcase_add_test(t, test_window_facts);
  tcase_add_test(t, test_positive_factor_facts);
  tcase_add_test(t, test_window_facts_implied);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(arith_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
