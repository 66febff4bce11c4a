/* check_equiv.c — the equivalence checker's verdicts and refusals (equiv.h) on small
 * pairs: a structural mismatch refused before any test, located; a wrong graph refuted
 * with the element that differs; an equivalence with the δ bound, without it (fewer tests,
 * or no bound from Theorem 2) and what require_bound and ax_equiv_accept make of those;
 * the float check's refusal of a graph that is exact but not stable; a verdict that does
 * not depend on the threads, a report that depends only on the seed; δ's syntax; the
 * search's two-stage check of a candidate. (check_interp covers the sqrt laws, element
 * types, deadlines and the estimate.) */
#include <math.h>

#include "superopt/arith/field.h"
#include "superopt/equiv/equiv.h"
#include "superopt/ir/load.h"
#include "unit.h"

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

static AxMugraph *mug(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.mug", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

/* The report of one check (status in *st, how in *how), with the seed 11 unless o says. */
static char *report(const AxMugraph *p, const AxMugraph *m, AxEquivOpts *o, int *st, AxEquivHow *how) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  o->out = out;
  *st = ax_equiv_run_how(p, m, &D, o, how);
  fclose(out);
  o->out = NULL;
  char *s = ax_arena_strdup(A, buf);
  free(buf);
  return s;
}

static AxEquivOpts defaults(void) {
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 11;
  return o;
}

/* A row-wise RMS norm and its fused kernel (a row per block, the rms in a thread graph). */
static const char *RMS = "program r {\n  input X : f32[16, 64]\n  output O = X / sqrt(mean(X * X, axis = 1) + 0.5)\n}\n";
static const char *RMS_MUG =
    "mugraph r {\n"
    "  input X : f32[16, 64]\n"
    "  kernel k1 grid [16, 1, 1] block [128, 1, 1] forloop 1 {\n"
    "    x = input X imap {x: 0} fmap -\n"
    "    s = mul(x, x)\n"
    "    m = mean(s, axis = 1)\n"
    "    a = add(m, 0.5)\n"
    "    q = sqrt(a)\n"
    "    o = div(x, q)\n"
    "    output O = o omap {x: 0}\n"
    "  }\n"
    "  output O\n"
    "}\n";

/* Inputs and outputs are paired by name, shape and type before any test: each mismatch
 * is a located error and status 3, and no field test runs. */
START_TEST(structural_mismatch_refused_before_any_test) {
  AxMugraph *p = prog(RMS);
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(p, mug("mugraph r {\n  input X : f32[16, 32]\n  O = mul(X, 1)\n  output O\n}\n"), &o, &st, &how);
  ck_assert_int_eq(st, 3);
  ck_assert_int_eq(how, AX_EQUIV_NONE);
  ck_assert_ptr_null(strstr(r, "field tests"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:2:9: error: input 'X' is f32[16, 32] here but f32[16, 64] in program 'r'"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:3:3: error: output 'O' is f32[16, 32] here but f32[16, 64] in program 'r'"));
  report(p, mug("mugraph r {\n  input Y : f32[16, 64]\n  O = mul(Y, 1)\n  output O\n}\n"), &o, &st, &how);
  ck_assert_int_eq(st, 3);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "error: mugraph 'r' has no input 'X' (program 'r' has)"));
  report(p, mug("mugraph r {\n  input X : f32[16, 64]\n  P = mul(X, 1)\n  output P\n}\n"), &o, &st, &how);
  ck_assert_int_eq(st, 3);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "error: mugraph 'r' has no output 'O' (program 'r' has)"));
  report(p, mug("mugraph r {\n  input X : f16[16, 64]\n  O = mul(X, 1)\n  output O\n}\n"), &o, &st, &how);
  ck_assert_int_eq(st, 3);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:2:9: error: input 'X' is f16[16, 64] here but f32[16, 64] in program 'r'"));
}
END_TEST

/* A wrong constant: not equivalent, the first element that differs named, the seed to
 * reproduce it given; never an "equivalent" line. */
START_TEST(wrong_graph_refuted) {
  AxMugraph *p = prog(RMS);
  char *bad = ax_arena_strdup(A, RMS_MUG);
  memcpy(strstr(bad, "add(m, 0.5)"), "add(m, 0.7)", 11);
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(p, mug(bad), &o, &st, &how);
  ck_assert_int_eq(st, 1);
  ck_assert_int_eq(how, AX_EQUIV_NONE);
  ck_assert_ptr_nonnull(strstr(r, "not equivalent: output 'O' differs at [0, 0]"));
  ck_assert_ptr_nonnull(strstr(r, "(reproduce with --seed 11)"));
  ck_assert_ptr_null(strstr(r, "\nequivalent"));
}
END_TEST

/* The fused kernel: as many field tests as δ asks (T printed), all agreeing exactly, the
 * float check within the f32 tolerance: equivalent with the bound. */
START_TEST(equivalent_with_bound) {
  AxMugraph *p = prog(RMS);
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(p, mug(RMS_MUG), &o, &st, &how);
  ck_assert_int_eq(st, 0);
  ck_assert_int_eq(how, AX_EQUIV_BOUNDED);
  ck_assert_ptr_nonnull(strstr(r, "equiv: program 'r' vs mugraph 'r'\n"));
  ck_assert_ptr_nonnull(strstr(r, "  Lax fragment: yes"));
  ck_assert_ptr_nonnull(strstr(r, "; seed 11\n"));
  ck_assert_ptr_nonnull(strstr(r, ": T = ceil(ln delta / ln eps) = "));
  ck_assert_ptr_nonnull(strstr(r, "  float check (1 run, inputs in [-0.5, 0.5]):"));
  ck_assert_ptr_nonnull(strstr(r, "equivalent (probability of a wrong verdict <= 9.31e-10 (2^-30.0))\n"));
  ck_assert_int_eq(ax_equiv_accept(p, mug(RMS_MUG), &D, &o), 0);
}
END_TEST

/* Fewer tests than the bound asks (--tests 1): equivalent without the guarantee (FIELD);
 * with require_bound that is status 2; the search's acceptance takes it (exact tests,
 * only fewer). */
START_TEST(fewer_tests_than_the_bound) {
  AxMugraph *p = prog(RMS), *m = mug(RMS_MUG);
  AxEquivOpts o = defaults();
  o.tests = 1;
  int st;
  AxEquivHow how;
  char *r = report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 0);
  ck_assert_int_eq(how, AX_EQUIV_FIELD);
  ck_assert_ptr_nonnull(strstr(r, "equivalent on 1 random tests, but without the guarantee: fewer tests than the bound asks\n"));
  o.require_bound = true;
  report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 2);
  ck_assert_int_eq(how, AX_EQUIV_NONE);
}
END_TEST

/* A softmax over 4096 columns has thousands of exponential terms: Theorem 2 gives no
 * bound, the checker runs its fixed number of tests (8) and says so; require_bound makes
 * that 2, ax_equiv_accept takes it (every test was exact: AX_EQUIV_FIELD). */
START_TEST(no_bound_from_the_theorem) {
  AxMugraph *p = prog("program s {\n  input X : f32[4, 4096]\n  output O = exp(X) / sum(exp(X), axis = 1)\n}\n");
  AxMugraph *m = mug("mugraph s {\n  input X : f32[4, 4096]\n"
                     "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                     "    x = input X imap {x: 0} fmap -\n    e = exp(x)\n    s = sum(e, axis = 1)\n"
                     "    o = div(e, s)\n    output O = o omap {x: 0}\n  }\n  output O\n}\n");
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 0);
  ck_assert_int_eq(how, AX_EQUIV_FIELD);
  ck_assert_ptr_nonnull(strstr(r, "no bound (Theorem 2 needs 8dk^4 < q)"));
  ck_assert_ptr_nonnull(strstr(r, "  field tests: 8 passed"));
  ck_assert_ptr_nonnull(strstr(r, "but without the guarantee: Theorem 2 gives no bound for this pair\n"));
  ck_assert_int_eq(ax_equiv_accept(p, m, &D, &o), 0);
  o.require_bound = true;
  report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 2);
}
END_TEST

/* Exact in the field, not in floats: X + 1000 stored as f16 keeps no digit of X in
 * [-0.5, 0.5] (f16's step at 1000 is 0.5), so the float check refuses the graph that adds
 * and subtracts 1000, though every field test agrees. */
START_TEST(float_check_refuses_an_unstable_graph) {
  AxMugraph *p = prog("program f {\n  input X : f16[8, 64]\n  output O = X * 2\n}\n");
  AxMugraph *m = mug("mugraph f {\n  input X : f16[8, 64]\n  a = add(X, 1000)\n  b = sub(a, 1000)\n"
                     "  O = mul(b, 2)\n  output O\n}\n");
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 1);
  ck_assert_ptr_nonnull(strstr(r, "  field tests: "));
  ck_assert_ptr_nonnull(strstr(r, "output 'O': max relative error "));
  ck_assert_ptr_null(strstr(r, "\nequivalent"));
  o.float_tests = 0;   /* the field alone cannot tell */
  report(p, m, &o, &st, &how);
  ck_assert_int_eq(st, 0);
}
END_TEST

/* Lines of a report without their timings ("in 0.01 s", " 0.00 s"), to compare two runs. */
static char *untimed(const char *r) {
  char *s = ax_arena_strdup(A, r), *w = s;
  for (const char *q = s; *q;) {
    if (*q == ' ' && q[1] >= '0' && q[1] <= '9') {
      const char *e = q + 1;
      while ((*e >= '0' && *e <= '9') || *e == '.') e++;
      if (e[0] == ' ' && e[1] == 's' && (e[2] == '\n' || e[2] == ')' || e[2] == ',')) {
        q = e + 2;
        continue;
      }
    }
    *w++ = *q++;
  }
  *w = 0;
  return s;
}

/* The verdict and the report do not depend on the number of threads; the report depends
 * on the seed alone (its primes drawn from it), and primes given are used as given. */
START_TEST(threads_and_seeds) {
  AxMugraph *p = prog(RMS), *m = mug(RMS_MUG);
  char *bad = ax_arena_strdup(A, RMS_MUG);
  memcpy(strstr(bad, "div(x, q)"), "div(q, x)", 9);
  AxMugraph *b = mug(bad);
  AxEquivOpts o = defaults();
  int st1, st4, stb1, stb4;
  AxEquivHow how;
  char *r1 = report(p, m, &o, &st1, &how);
  char *w1 = report(p, b, &o, &stb1, &how);
  o.jobs = 4;
  char *r4 = report(p, m, &o, &st4, &how);
  char *w4 = report(p, b, &o, &stb4, &how);
  ck_assert_int_eq(st1, 0);
  ck_assert_int_eq(st4, 0);
  ck_assert_int_eq(stb1, 1);
  ck_assert_int_eq(stb4, 1);
  ck_assert_ptr_nonnull(strstr(r4, "on 4 threads"));
  ck_assert_ptr_nonnull(strstr(w1, "not equivalent: output 'O' differs at "));
  ck_assert_ptr_nonnull(strstr(w4, "not equivalent: output 'O' differs at "));
  o.jobs = 1;
  ck_assert_str_eq(untimed(report(p, m, &o, &st1, &how)), untimed(r1));
  o.seed = 12;
  char *other = report(p, m, &o, &st1, &how);
  ck_assert_int_eq(st1, 0);
  ck_assert_str_ne(untimed(other), untimed(r1));
  ax_field_draw_primes(99, &o.p, &o.q);   /* another seed's: used as given */
  char *given = report(p, m, &o, &st1, &how);
  ck_assert_int_eq(st1, 0);
  char line[96];
  snprintf(line, sizeof line, "p = %llu, q = %llu", (unsigned long long)o.p, (unsigned long long)o.q);
  ck_assert_msg(strstr(given, line), "'%s' not in\n%s", line, given);
  ck_assert_ptr_nonnull(strstr(given, "; seed 12\n"));
}
END_TEST

/* δ is written 2^-K, in exponent notation or as a decimal, strictly between 0 and 1. */
START_TEST(delta_syntax) {
  double d;
  ck_assert(ax_equiv_parse_delta("2^-30", &d) && d == ldexp(1.0, -30));
  ck_assert(ax_equiv_parse_delta("1e-9", &d) && d == 1e-9);
  ck_assert(ax_equiv_parse_delta("0.001", &d) && d == 0.001);
  const char *bad[] = {"0", "1", "2^3", "2^0", "-0.1", "1.5", "abc", "", "2^-", "1e-9x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(!ax_equiv_parse_delta(bad[i], &d), "'%s' was accepted", bad[i]);
}
END_TEST

/* The search's check of a candidate: a wrong graph is stopped by the scaled-down filter
 * (one field test on the instance with every size divided by the largest factor that leaves
 * it at least 8 and keeps the graph valid: 8, the 64 columns become 8, the 16 rows stay),
 * the full check not run; a right one passes the filter and the full check with the bound;
 * a pair that cannot be compared is status 3. The context's primes are the seed's, as
 * ax_equiv_run draws them. */
START_TEST(candidate_filter_then_full_check) {
  AxMugraph *p = prog(RMS);
  AxEquivOpts o = defaults();
  o.float_tests = 1;
  AxEquivCtx *c = ax_equiv_ctx_new(p, &o);
  uint64_t cp, cq;
  ax_equiv_ctx_primes(c, &cp, &cq);
  char *r = report(p, mug(RMS_MUG), &o, &(int){0}, &(AxEquivHow){0});
  char line[128];
  snprintf(line, sizeof line, "p = %llu, q = %llu", (unsigned long long)cp, (unsigned long long)cq);
  ck_assert_msg(strstr(r, line), "'%s' not in\n%s", line, r);
  AxEquivResult res;
  ax_equiv_candidate(c, mug(RMS_MUG), NULL, &res);
  ck_assert_int_eq(res.status, 0);
  ck_assert(res.bounded);
  ck_assert_int_eq(res.how, AX_EQUIV_BOUNDED);
  ck_assert(!res.filtered);
  ck_assert_int_eq(res.scale, 8);
  char *bad = ax_arena_strdup(A, RMS_MUG);
  memcpy(strstr(bad, "add(m, 0.5)"), "add(m, 0.7)", 11);
  ax_equiv_candidate(c, mug(bad), NULL, &res);
  ck_assert_int_eq(res.status, 1);
  ck_assert(res.filtered);
  ck_assert(!res.bounded);
  ax_equiv_candidate(c, mug("mugraph r {\n  input X : f32[16, 64]\n  P = mul(X, 1)\n  output P\n}\n"), NULL, &res);
  ck_assert_int_eq(res.status, 3);
  ax_equiv_ctx_free(c);
}
END_TEST

/* A square root of an index-only perfect square is its integer root in the field (exact.h):
 * sqrt(2 * 2) * X equals 2 * X (equivalent), sqrt(3 * 3) * X is refuted against it (3
 * against 2, an exact difference), and rsqrt(4) * X equals X / 2. A root of a non-square
 * (sqrt(2 * 3)) stays the uninterpreted function: against a graph without it no test can
 * agree, and the verdict is never "equivalent". */
START_TEST(root_of_an_index_only_square) {
  const char *two = "mugraph s {\n  input X : f32[4, 8]\n  O = mul(2, X)\n  output O\n}\n";
  AxEquivOpts o = defaults();
  int st;
  AxEquivHow how;
  char *r = report(prog("program s {\n  input X : f32[4, 8]\n  output O = sqrt(2 * 2) * X\n}\n"),
                   mug(two), &o, &st, &how);
  ck_assert_msg(st == 0, "%s", r);
  ck_assert_ptr_nonnull(strstr(r, "\nequivalent"));
  r = report(prog("program s {\n  input X : f32[4, 8]\n  output O = sqrt(3 * 3) * X\n}\n"),
             mug(two), &o, &st, &how);
  ck_assert_msg(st == 1, "%s", r);
  ck_assert_ptr_nonnull(strstr(r, "not equivalent: output 'O' differs at [0, 0]"));
  r = report(prog("program s {\n  input X : f32[4, 8]\n  output O = rsqrt(4) * X\n}\n"),
             mug("mugraph s {\n  input X : f32[4, 8]\n  O = div(X, 2)\n  output O\n}\n"), &o, &st,
             &how);
  ck_assert_msg(st == 0, "%s", r);
  r = report(prog("program s {\n  input X : f32[4, 8]\n  output O = sqrt(2 * 3) * X\n}\n"),
             mug("mugraph s {\n  input X : f32[4, 8]\n  O = mul(2.449489742783178, X)\n  output O\n}\n"),
             &o, &st, &how);
  ck_assert_msg(st != 0, "%s", r);
  ck_assert_ptr_null(strstr(r, "\nequivalent"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("equiv");
  TCase *t = tcase_create("equiv");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, structural_mismatch_refused_before_any_test);
  tcase_add_test(t, wrong_graph_refuted);
  tcase_add_test(t, equivalent_with_bound);
  tcase_add_test(t, fewer_tests_than_the_bound);
  tcase_add_test(t, no_bound_from_the_theorem);
  tcase_add_test(t, float_check_refuses_an_unstable_graph);
  tcase_add_test(t, threads_and_seeds);
  tcase_add_test(t, delta_syntax);
  tcase_add_test(t, candidate_filter_then_full_check);
  tcase_add_test(t, root_of_an_index_only_square);
  suite_add_tcase(s, t);
  return unit_run(s);
}
