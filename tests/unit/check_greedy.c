/* check_greedy.c — the greedy fusion floor on small programs: what fuses, what does not,
 * that the result validates, is modelled faster, passes the search's check and is the same
 * on every run. */
#include <math.h>

#include "superopt/search/greedy.h"
#include "superopt/ir/load.h"
#include "unit.h"

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* The floor of p: built, validated, faster than naive, checked (status 0), deterministic. */
static char *floor_of(const AxMugraph *p) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  AxGreedyResult r;
  ck_assert(ax_greedy_floor(p, &o, &r));
  ck_assert_int_eq(r.check, 0);
  ck_assert(r.time_s > 0 && r.time_s < r.naive_s);
  ck_assert(r.kernels >= 1 && r.fused_ops >= 2);
  double t2;
  int k2, f2;
  char *again = ax_greedy_build(p, o.target, &t2, &k2, &f2);
  ck_assert_str_eq(again, r.text);
  ck_assert(t2 == r.time_s && k2 == r.kernels && f2 == r.fused_ops);
  free(again);
  AxMugraph *g = ax_load_from_text(A, &D, "<greedy>", r.text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *text = ax_arena_strdup(A, r.text);
  ax_greedy_result_free(&r);
  return text;
}

START_TEST(chain) {
  char *t = floor_of(prog("program p {\n  input X, Y : f16[64, 1024]\n"
                          "  output O = exp(X) * Y + 0.5\n}\n"));
  ck_assert_int_eq(count(t, "  kernel "), 1);
  ck_assert_ptr_nonnull(strstr(t, "add(v3, 0.5)"));
}
END_TEST

/* A reduction with its prologue and epilogue: the rows are split, the reduced dim is not. */
START_TEST(reduction) {
  char *t = floor_of(prog("program p {\n  input X : f16[64, 1024]\n"
                          "  output O = X / sqrt(mean(square(X), axis = 1))\n}\n"));
  ck_assert_int_eq(count(t, "  kernel "), 1);
  ck_assert_ptr_nonnull(strstr(t, "mean("));
  ck_assert_ptr_null(strstr(t, "imap {x: 1}"));
}
END_TEST

/* A tensor read inside the group that is also an output is saved (under its program name:
 * `output O1 = E` marks E). */
START_TEST(shared_result) {
  char *t = floor_of(prog("program p {\n  input X : f16[64, 1024]\n  let E = exp(X * 2)\n"
                          "  output O1 = E\n  output O2 = E / sum(E, axis = 1)\n}\n"));
  ck_assert_ptr_nonnull(strstr(t, "output E = "));
  ck_assert_ptr_nonnull(strstr(t, "output O2 = "));
}
END_TEST

/* Nothing to fuse: one operator, or operators that stay pre-defined kernels. */
START_TEST(nothing) {
  double t;
  int k, f;
  AxMugraph *one = prog("program p {\n  input X : f16[16, 256]\n  input W : f16[256, 256]\n"
                        "  output O = matmul(X, W)\n}\n");
  ck_assert_ptr_null(ax_greedy_build(one, ax_cost_target("h100"), &t, &k, &f));
  ck_assert_int_eq(k, 0);
  AxMugraph *layout = prog("program p {\n  input X : f16[16, 256]\n"
                           "  output O = reshape(broadcast(X, [4, 16, 256]), [64, 256])\n}\n");
  ck_assert_ptr_null(ax_greedy_build(layout, ax_cost_target("h100"), &t, &k, &f));
}
END_TEST

int main(void) {
  Suite *s = suite_create("greedy");
  TCase *t = tcase_create("greedy");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, chain);
  tcase_add_test(t, reduction);
  tcase_add_test(t, shared_result);
  tcase_add_test(t, nothing);
  suite_add_tcase(s, t);
  return unit_run(s);
}
