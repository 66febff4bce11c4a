/* check_lax.c — the Lax fragment check and the test count (superopt/equiv/lax.h): the abstract
 * values of small programs (degree, exponential terms, square roots, where a denominator
 * varies), the refusals, and ax_lax_tests against values worked out by hand from
 * eps = 8·d·k^4/q + q^(-1/k^2) + C(m, 2)·d_uf/p and T = ceil(ln δ / ln eps), its
 * monotonicity, and the saturated counts that must give "no bound" rather than a number. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/parse.h"
#include "superopt/arith/field.h"
#include "superopt/equiv/lax.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugraph.h"
#include "unit.h"

/* Program p with inputs X, Y : f32[4, 8] and W : f32[8, 6] and the statements of body,
 * lowered and validated. */
static AxMugraph *prog(const char *body) {
  char text[1024];
  snprintf(text, sizeof text,
           "program p {\n  input X : f32[4, 8]\n  input Y : f32[4, 8]\n  input W : f32[8, 6]\n%s}\n",
           body);
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

/* The abstract value of the program's only output; *ok and *sqrt report the analysis. */
static AxLaxVal out1(const char *body, bool *ok, bool *sqrt_used) {
  AxMugraph *g = prog(body);
  ck_assert_int_eq(g->noutputs, 1);
  AxLaxVal v;
  *ok = ax_lax_analyse(g, &D, &v, sqrt_used);
  return v;
}

static AxLaxVal val(const char *body) {
  bool ok, sq;
  AxLaxVal v = out1(body, &ok, &sq);
  ck_assert_msg(ok, "%s", unit_diagnostics());
  ck_assert(!sq);
  return v;
}

/* Multi-linear operators: degree adds under mul and matmul, add keeps the larger, no
 * exponential terms, and a matmul's result varies along both of its axes. */
START_TEST(degrees) {
  AxLaxVal v = val("  output O = X\n");
  ck_assert_double_eq(v.deg, 1);
  ck_assert(!v.exp);
  ck_assert_uint_eq(v.vary & 0xFF, 3);   /* rows and columns (sizes 4 and 8) */
  v = val("  output O = mul(X, Y)\n");
  ck_assert_double_eq(v.deg, 2);
  v = val("  output O = add(mul(X, Y), X)\n");
  ck_assert_double_eq(v.deg, 2);
  v = val("  output O = mul(mul(X, Y), X)\n");
  ck_assert_double_eq(v.deg, 3);
  v = val("  output O = matmul(X, W)\n");
  ck_assert_double_eq(v.deg, 2);
  ck_assert_double_eq(v.kn, 1);
  ck_assert_double_eq(v.kd, 1);
  ck_assert_int_eq(v.nexp, 0);
  ck_assert_uint_eq(v.vary & 0xFF, 3);
  /* a reduction to one column no longer varies along that axis */
  v = val("  output O = sum(X, axis = 1)\n");
  ck_assert_uint_eq(v.vary & 0xFF, 1);
  ck_assert_double_eq(v.deg, 1);
}
END_TEST

/* Exponentials: exp gives one term, silu's denominator 1 + e^-x a second; a sum of n
 * exponentials has n terms; a second exponential on a path is refused at its operator. */
START_TEST(exponentials) {
  AxLaxVal v = val("  output O = exp(X)\n");
  ck_assert(v.exp);
  ck_assert_int_eq(v.nexp, 1);
  ck_assert_double_eq(v.kn, 1);
  ck_assert_double_eq(v.kd, 1);
  v = val("  output O = silu(X)\n");
  ck_assert_double_eq(v.kd, 2);
  v = val("  output O = sum(exp(X), axis = 1)\n");
  ck_assert_double_eq(v.kn, 8);
  ck_assert_int_eq(v.nexp, 1);
  /* two exponentials side by side are one per path: allowed */
  v = val("  output O = mul(exp(X), exp(Y))\n");
  ck_assert_int_eq(v.nexp, 1);
  ck_assert_double_eq(v.kn, 1);

  bool ok, sq;
  out1("  output O = exp(silu(X))\n", &ok, &sq);
  ck_assert(!ok);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "error: exp in 'O': an exponential on a path that "
                                              "already holds one is outside the Lax fragment"));
}
END_TEST

/* A sum over the axis along which a denominator varies cross-multiplies: counts saturate
 * and the bound is gone. Along an axis where the denominator is constant it stays. */
START_TEST(denominators) {
  AxLaxVal v = val("  output O = sum(div(exp(X), sum(exp(X), axis = 1)), axis = 1)\n");
  ck_assert(v.kn < 1e6);
  ck_assert_uint_eq(v.den & 0xFF & 2, 0);
  AxLaxVal w = val("  output O = sum(div(exp(X), exp(Y)), axis = 1)\n");
  ck_assert(w.kn >= 1e300);
  ck_assert(w.deg >= 1e300);
  AxLaxBound b;
  ax_lax_tests(&w, &w, ldexp(1.0, -30), AX_FIELD_LEGACY_Q, AX_FIELD_LEGACY_P, &b);
  ck_assert(isinf(b.tests));
  ck_assert(!isnan(b.eps));
}
END_TEST

/* sqrt is read as an uninterpreted function: counted, and its argument's degree kept. */
START_TEST(square_roots) {
  bool ok, sq;
  AxLaxVal v = out1("  output O = rms_norm(X, axis = 1)\n", &ok, &sq);
  ck_assert(ok);
  ck_assert(sq);
  ck_assert_double_eq(v.nuf, 1);
  ck_assert_double_eq(v.ufdeg, 2);   /* the argument is a mean of squares */
  v = out1("  output O = sqrt(X)\n", &ok, &sq);
  ck_assert(sq);
  ck_assert_double_eq(v.nuf, 1);
  ck_assert_double_eq(v.ufdeg, 1);
  ck_assert_double_eq(v.deg, 1);
  v = out1("  output O = sum(sqrt(X), axis = 1)\n", &ok, &sq);
  ck_assert_double_eq(v.nuf, 8);      /* eight square roots feed one element */
}
END_TEST

/* ax_lax_tests against the formula worked by hand. */
START_TEST(exact_counts) {
  const double q = AX_FIELD_LEGACY_Q, p = AX_FIELD_LEGACY_P, delta = ldexp(1.0, -30);
  AxLaxVal a = {1, 1, 1, false, 0, 0, 0, 0, 0}, b = a;
  AxLaxBound r;
  /* k = 1, d = 2: eps = 16/q + 1/q */
  ax_lax_tests(&a, &b, delta, q, p, &r);
  ck_assert_double_eq(r.k, 1);
  ck_assert_double_eq(r.d, 2);
  ck_assert_double_eq_tol(r.eps_thm, 17 / q, 1e-18);
  ck_assert_double_eq(r.eps_uf, 0);
  ck_assert_double_eq(r.tests, 2);   /* ln 2^-30 / ln(17/q) = 1.16 */
  /* the numerator counts do not matter without exponentials */
  a.kn = 7;
  ax_lax_tests(&a, &b, delta, q, p, &r);
  ck_assert_double_eq(r.k, 1);
  /* constants on both sides: degree clamped to 1, eps = 8/q + 1/q */
  AxLaxVal c = {1, 1, 0, false, 0, 0, 0, 0, 0};
  ax_lax_tests(&c, &c, delta, q, p, &r);
  ck_assert_double_eq(r.d, 1);
  ck_assert_double_eq_tol(r.eps_thm, 9 / q, 1e-18);
  /* exp on one side: k = kn_a·kd_b + kn_b·kd_a = 1·1 + 1·1 = 2; eps = 8·2·16/q + q^(-1/4) */
  a = b;
  a.exp = true;
  ax_lax_tests(&a, &b, delta, q, p, &r);
  ck_assert_double_eq(r.k, 2);
  ck_assert_double_eq_tol(r.eps_thm, 256 / q + pow(q, -0.25), 1e-15);
  ck_assert_double_eq(r.tests, ceil(log(delta) / log(256 / q + pow(q, -0.25))));
  ck_assert_double_eq(r.tests, 4);   /* q^(-1/4) ≈ 0.0047: ln 2^-30 / ln 0.0047 = 3.9 */
  /* square roots: m = 3, d_uf = 2 → C(3, 2)·2/p; one square root alone cannot collide */
  a = b;
  a.nuf = 2;
  a.ufdeg = 2;
  b.nuf = 1;
  ax_lax_tests(&a, &b, delta, q, p, &r);
  ck_assert_double_eq(r.m, 3);
  ck_assert_double_eq(r.ufdeg, 2);
  ck_assert_double_eq_tol(r.eps_uf, 6 / p, 1e-18);
  ck_assert_double_eq_tol(r.eps, r.eps_thm + 6 / p, 1e-18);
  a.nuf = 1, b.nuf = 0;
  ax_lax_tests(&a, &b, delta, q, p, &r);
  ck_assert_double_eq(r.eps_uf, 0);
  /* a target δ the first test already meets still runs one test */
  ax_lax_tests(&b, &b, 0.5, q, p, &r);
  ck_assert_double_eq(r.tests, 1);
}
END_TEST

/* More terms, a higher degree, more square roots or a smaller δ never need fewer tests. */
START_TEST(monotone) {
  const double q = AX_FIELD_LEGACY_Q, p = AX_FIELD_LEGACY_P;
  AxLaxBound r;
  double last_k = 0;
  for (double kn = 1; kn <= 64; kn *= 2) {
    AxLaxVal a = {kn, 1, 2, true, 1, 0, 0, 0, 0}, b = {1, 1, 2, false, 0, 0, 0, 0, 0};
    ax_lax_tests(&a, &b, 1e-9, q, p, &r);
    ck_assert_double_eq(r.k, kn + 1);
    ck_assert(r.tests >= last_k);
    last_k = r.tests;
  }
  ck_assert(isinf(last_k));   /* k = 65: 8·d·k^4 > q */
  double last_d = 0;
  for (double d = 1; d <= 1 << 20; d *= 4) {
    AxLaxVal a = {1, 2, d, true, 1, 0, 0, 0, 0};
    ax_lax_tests(&a, &a, 1e-9, q, p, &r);
    ck_assert(r.tests >= last_d);
    last_d = r.tests;
  }
  double last_m = 0;
  for (double m = 0; m <= 1 << 17; m = m * 2 + 1) {
    AxLaxVal a = {1, 1, 2, false, 0, m, 4, 0, 0}, b = {1, 1, 2, false, 0, 0, 0, 0, 0};
    ax_lax_tests(&a, &b, 1e-9, q, p, &r);
    ck_assert(r.tests >= last_m);
    last_m = r.tests;
  }
  ck_assert(isinf(last_m));   /* C(2^17, 2)·4/p > 1 */
  double last_delta = 0;
  for (int e = 1; e <= 60; e++) {
    AxLaxVal a = {1, 2, 3, true, 1, 0, 0, 0, 0};
    ax_lax_tests(&a, &a, ldexp(1.0, -e), q, p, &r);
    ck_assert(isfinite(r.tests));
    ck_assert(r.tests >= last_delta);
    last_delta = r.tests;
  }
  ck_assert(last_delta > 1);
}
END_TEST

/* Saturated counts (the analysis's stand-in for "overflowed") give no bound, never a
 * finite number of tests or a NaN. */
START_TEST(saturation_refused) {
  const double q = AX_FIELD_LEGACY_Q, p = AX_FIELD_LEGACY_P;
  AxLaxBound r;
  AxLaxVal huge = {1e300, 1e300, 1e300, true, 1, 0, 0, 0, 0}, one = {1, 1, 1, false, 0, 0, 0, 0, 0};
  ax_lax_tests(&huge, &one, 1e-9, q, p, &r);
  ck_assert(isinf(r.tests));
  ck_assert(r.tests > 0);
  AxLaxVal deg = {1, 1, 1e300, false, 0, 0, 0, 0, 0};
  ax_lax_tests(&deg, &one, 1e-9, q, p, &r);
  ck_assert(isinf(r.tests));
  AxLaxVal roots = {1, 1, 1, false, 0, 1e300, 1e300, 0, 0};
  ax_lax_tests(&roots, &one, 1e-9, q, p, &r);
  ck_assert(isinf(r.tests));
  /* the largest degree with a bound: 8·d/q + 1/q < 1 */
  AxLaxVal edge = {1, 1, floor(q / 8) - 2, false, 0, 0, 0, 0, 0}, zero = {1, 1, 0, false, 0, 0, 0, 0, 0};
  ax_lax_tests(&edge, &zero, 0.5, q, p, &r);
  ck_assert(isfinite(r.tests));
  edge.deg = q / 8;
  ax_lax_tests(&edge, &zero, 0.5, q, p, &r);
  ck_assert(isinf(r.tests));
}
END_TEST

int main(void) {
  Suite *s = suite_create("lax");
  TCase *t = tcase_create("lax");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, degrees);
  tcase_add_test(t, exponentials);
  tcase_add_test(t, denominators);
  tcase_add_test(t, square_roots);
  tcase_add_test(t, exact_counts);
  tcase_add_test(t, monotone);
  tcase_add_test(t, saturation_refused);
  suite_add_tcase(s, t);
  return unit_run(s);
}
