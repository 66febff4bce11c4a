/* check_search.c — the search driver (search.h) on tiny programs, on one thread under
 * --max-states so that every run is the same run: what it returns (a checked graph faster
 * than naive, the top list in order), its counters, the floor it starts from, pinned
 * reachability, the final check's statuses (ax_search_accept) and what it refuses. */
#include <math.h>

#include "superopt/ir/load.h"
#include "superopt/search/search.h"
#include "unit.h"

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

/* An element-wise chain and a reduction with its epilogue: both fuse into one kernel. */
static const char *CHAIN = "program c {\n  input X, Y : f16[64, 1024]\n  output O = exp(X) * Y + 0.5\n}\n";
static const char *ROWSUM = "program r {\n  input X : f16[64, 1024]\n  output O = sum(exp(X), axis = 1) * 0.5\n}\n";

static AxSearchOpts opts(long max_states) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  o.max_states = max_states;
  return o;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* The defaults the options' comments promise. */
START_TEST(defaults) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  ck_assert_int_eq(o.jobs, 1);
  ck_assert_int_eq(o.top, 5);
  ck_assert_int_eq(o.max_kernel_ops, 3);
  ck_assert_int_eq(o.max_kernels, 2);
  ck_assert_int_eq(o.max_block_ops, 10);
  ck_assert_int_eq(o.min_blocks, 8);
  ck_assert_int_eq(o.max_blocks, 1024);
  ck_assert(o.forloops[0] == 4 && o.forloops[1] == 16 && o.forloops[2] == 64 && o.forloops[3] == 0);
  ck_assert(o.prune && o.verify_final && !o.verify_all);
  ck_assert(o.time_limit == 0 && o.max_states == 0 && o.deadline == 0);
  ck_assert_ptr_null(o.incumbent);
  ck_assert_ptr_null(o.pin);
}
END_TEST

/* The chain: the best graph is one kernel, modelled faster than naive, checked at full
 * shape; the top list is sorted and holds at most `top` graphs; the counters are ordered
 * as the pipeline is (built, complete, filtered, passed); the run stops at max_states
 * (counted in steps of 256). */
START_TEST(chain_fuses_into_one_kernel) {
  AxMugraph *p = prog(CHAIN);
  AxSearchOpts o = opts(30000);
  AxSearchResult r;
  ck_assert(ax_search_run(p, &o, &D, &r));
  ck_assert_int_ge(r.nfound, 1);
  ck_assert_int_le(r.nfound, o.top);
  ck_assert(r.best_verified);
  ck_assert(r.found[0].time_s > 0 && r.found[0].time_s < r.naive_s);
  for (int i = 1; i < r.nfound; i++) ck_assert(r.found[i - 1].time_s <= r.found[i].time_s);
  ck_assert_int_eq(count(r.found[0].text, "  kernel "), 1);
  ck_assert_int_eq(count(r.found[0].text, " = input "), 2);
  ck_assert_ptr_nonnull(strstr(r.found[0].text, "exp("));
  ck_assert_ptr_nonnull(strstr(r.found[0].text, ", 0.5)"));
  ck_assert_ptr_nonnull(ax_load_from_text(A, NULL, "<best>", r.found[0].text, NULL));
  ck_assert_int_ge(r.states, 30000);
  ck_assert_int_lt(r.states, 30000 + 256);
  ck_assert(r.candidates >= r.checked && r.checked >= r.equivalent && r.equivalent >= 1);
  ck_assert_int_eq(r.rejected_final + r.late_final, 0);
  ck_assert(!r.timed_out);
  ck_assert(r.naive_s == ax_cost_time(p, o.target));
  ax_search_result_free(&r);
  ck_assert_int_eq(r.nfound, 0);
  ck_assert_ptr_null(r.found);
}
END_TEST

/* One thread and a state budget: the same run twice gives the same graphs, in the same
 * order, with the same counts. The row sum's best within 20000 states: one kernel, a row
 * per block, the scalar moved into the thread graph before the sum. */
START_TEST(same_run_same_result) {
  AxMugraph *p = prog(ROWSUM);
  AxSearchOpts o = opts(20000);
  AxSearchResult a, b;
  ck_assert(ax_search_run(p, &o, &D, &a));
  ck_assert(ax_search_run(p, &o, &D, &b));
  ck_assert_int_ge(a.nfound, 1);
  ck_assert_int_eq(a.nfound, b.nfound);
  for (int i = 0; i < a.nfound; i++) {
    ck_assert_str_eq(a.found[i].text, b.found[i].text);
    ck_assert(a.found[i].time_s == b.found[i].time_s);
  }
  ck_assert_int_eq(a.states, b.states);
  ck_assert_int_eq(a.candidates, b.candidates);
  ck_assert_int_eq(a.checked, b.checked);
  ck_assert_int_eq(a.equivalent, b.equivalent);
  ck_assert_str_eq(a.found[0].text, "mugraph r {\n"
                                    "  input X : f16[64, 1024]\n"
                                    "\n"
                                    "  kernel k1 grid [64, 1, 1] block [128, 1, 1] forloop 1 {\n"
                                    "    n0 = input X imap {x: 0} fmap -\n"
                                    "    thread {\n"
                                    "      n1 = exp(n0)\n"
                                    "      n2 = mul(n1, 0.5)\n"
                                    "    }\n"
                                    "    n3 = sum(n2, axis = 1)\n"
                                    "    output O = n3 omap {x: 0}\n"
                                    "  }\n"
                                    "  output O\n"
                                    "}\n");
  ax_search_result_free(&a);
  ax_search_result_free(&b);
}
END_TEST

/* An exhaustive run (small limits, no state budget) returns the same top list on one
 * thread and on two: ties are broken by text, not by which thread found a graph first —
 * also a tie with the worst graph kept (the chain's best time is shared by several
 * grids: with ties dropped on arrival, two threads wrote grid [2, 128, 1], one [16, 16,
 * 1]). */
START_TEST(threads_do_not_change_the_result) {
  AxMugraph *p = prog(CHAIN);
  AxSearchOpts o = opts(0);
  o.max_kernel_ops = 1;
  o.max_kernels = 1;
  o.max_block_ops = 5;
  AxSearchResult one, two;
  ck_assert(ax_search_run(p, &o, &D, &one));
  o.jobs = 2;
  ck_assert(ax_search_run(p, &o, &D, &two));
  ck_assert_int_eq(one.nfound, o.top);
  ck_assert_int_eq(one.nfound, two.nfound);
  for (int i = 0; i < one.nfound; i++) ck_assert_str_eq(one.found[i].text, two.found[i].text);
  /* (the counters may differ: how much the bound cuts depends on when it falls) */
  ax_search_result_free(&one);
  ax_search_result_free(&two);
}
END_TEST

/* The floor as incumbent: a search that finds nothing modelled faster returns the floor
 * itself, unchecked again (it was checked before the search), as verified; and a graph
 * the search does find faster replaces it. */
START_TEST(incumbent_is_the_floor) {
  AxMugraph *p = prog(CHAIN);
  const char *floor = "mugraph c {\n  input X : f16[64, 1024]\n  input Y : f16[64, 1024]\n"
                      "  t2 = exp(X)\n  t3 = mul(t2, Y)\n  O = add(t3, 0.5)\n  output O\n}\n";
  AxSearchOpts o = opts(30000);
  o.incumbent = floor;
  o.incumbent_s = 1e-9;   /* nothing is modelled faster */
  AxSearchResult r;
  ck_assert(ax_search_run(p, &o, &D, &r));
  ck_assert_int_eq(r.nfound, 1);
  ck_assert_str_eq(r.found[0].text, floor);
  ck_assert(r.found[0].time_s == 1e-9);
  ck_assert(r.best_verified);
  ck_assert_int_eq(r.equivalent, 0);   /* every candidate was cut before the filter */
  ax_search_result_free(&r);
  o.incumbent_s = 1.0;   /* a slow floor: the search's graph replaces it */
  ck_assert(ax_search_run(p, &o, &D, &r));
  ck_assert_int_ge(r.nfound, 1);
  ck_assert_str_ne(r.found[0].text, floor);
  ck_assert(r.found[0].time_s < 1.0);
  ck_assert(r.best_verified);
  ax_search_result_free(&r);
}
END_TEST

/* Reachability: with a graph pinned, the generator runs with its kernel headers and
 * reports whether it built a graph with the same canonical key — the search's own best
 * is reached; a graph with a grid of 4 blocks (under min_blocks) is not. Nothing is
 * checked. */
START_TEST(pinned_reachability) {
  AxMugraph *p = prog(CHAIN);
  AxSearchOpts o = opts(30000);
  AxSearchResult r;
  ck_assert(ax_search_run(p, &o, &D, &r));
  AxMugraph *best = ax_load_from_text(A, NULL, "<best>", r.found[0].text, NULL);
  ck_assert_ptr_nonnull(best);
  ax_search_result_free(&r);
  AxSearchOpts q = opts(0);
  q.pin = best;
  ck_assert(ax_search_run(p, &q, &D, &r));
  ck_assert(r.pin_reached);
  ck_assert_int_eq(r.nfound, 1);
  ck_assert_int_eq(r.checked, 0);
  ax_search_result_free(&r);
  AxMugraph *small = ax_load_from_text(A, NULL, "<pin>", "mugraph c {\n  input X : f16[64, 1024]\n  input Y : f16[64, 1024]\n"
                                                           "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                                                           "    x = input X imap {x: 0} fmap -\n    y = input Y imap {x: 0} fmap -\n"
                                                           "    e = exp(x)\n    m = mul(e, y)\n    a = add(m, 0.5)\n"
                                                           "    output O = a omap {x: 0}\n  }\n  output O\n}\n", NULL);
  ck_assert_ptr_nonnull(small);
  q.pin = small;
  ck_assert(ax_search_run(p, &q, &D, &r));
  ck_assert(!r.pin_reached);
  ck_assert_int_eq(r.nfound, 0);
  ax_search_result_free(&r);
}
END_TEST

/* The final check's statuses: 0 for a graph the field tests establish, 1 for a wrong one
 * (0.25 for 0.5), 3 for a text that does not parse or validate, 4 for a check the deadline
 * stopped (no verdict, never "equivalent"). */
START_TEST(accept_statuses) {
  AxMugraph *p = prog(CHAIN);
  AxSearchOpts o = opts(0);
  const char *right = "mugraph c {\n  input X : f16[64, 1024]\n  input Y : f16[64, 1024]\n"
                      "  kernel k1 grid [64, 1, 1] block [128, 1, 1] forloop 1 {\n"
                      "    x = input X imap {x: 0} fmap -\n    y = input Y imap {x: 0} fmap -\n"
                      "    e = exp(x)\n    m = mul(e, y)\n    a = add(m, 0.5)\n"
                      "    output O = a omap {x: 0}\n  }\n  output O\n}\n";
  ck_assert_int_eq(ax_search_accept(p, right, &o), 0);
  char *wrong = ax_arena_strdup(A, right);
  memcpy(strstr(wrong, "add(m, 0.5)"), "add(m, 0.2)", 11);
  ck_assert_int_eq(ax_search_accept(p, wrong, &o), 1);
  ck_assert_int_eq(ax_search_accept(p, "mugraph c {\n  input X : f16[64, 1024]\n  O = exp(Q)\n  output O\n}\n", &o), 3);
  ck_assert_int_eq(ax_search_accept(p, "mugraph c {\n  input X : f16[64, 1024]\n  input Y : f16[64, 1024]\n"
                                       "  O = exp(X)\n  output O\n}\n", &o), 1);
  o.deadline = 1e-9;   /* long past */
  ck_assert_int_eq(ax_search_accept(p, right, &o), 4);
  ck_assert_int_eq(ax_search_accept(p, wrong, &o), 4);
}
END_TEST

/* What the search refuses, before it builds anything (false, r untouched, the statement
 * located): a max of data (the field has no order), and — without a floor to fall back
 * on — a layout operator. With a floor, a program whose only layout operators build an
 * index-only mask is left to the floor: the result is the floor, no state built. */
START_TEST(refusals) {
  AxMugraph *mx = prog("program m {\n  input X, Y : f32[16, 16]\n  output O = max(X, Y) * 2\n}\n");
  AxMugraph *lay = prog("program l {\n  input X : f16[16, 32]\n  output O = reshape(exp(X), [32, 16])\n}\n");
  AxMugraph *mask = prog("program k {\n  input S : f32[16, 16]\n  let i = iota([16], axis = 0)\n"
                         "  let m = ge(reshape(i, [16, 1]), i)\n"
                         "  output O = select(m, S * 2, broadcast(0, [16, 16]))\n}\n");
  ck_assert(!ax_search_supported(mx, &D));
  AxSearchOpts o = opts(1000);
  AxSearchResult r;
  memset(&r, 0x5a, sizeof r);
  ck_assert(!ax_search_run(mx, &o, &D, &r));
  ck_assert_int_eq(r.nfound, 0x5a5a5a5a);   /* untouched */
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:3:14: error: superopt cannot search a program that uses max: "
                                                  "it needs an order, which the equivalence check's finite field lacks"));
  ck_assert(!ax_search_run(lay, &o, &D, &r));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "error: superopt: the search does not handle 'reshape' yet"));
  ck_assert(ax_search_supported(mask, &D));
  o.incumbent = "mugraph k {\n  input S : f32[16, 16]\n  O = mul(S, 2)\n  output O\n}\n";   /* never checked here */
  o.incumbent_s = 1e-6;
  ck_assert(ax_search_run(mask, &o, &D, &r));
  ck_assert_int_eq(r.states, 0);
  ck_assert_int_eq(r.nfound, 1);
  ck_assert_str_eq(r.found[0].text, o.incumbent);
  ax_search_result_free(&r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("search");
  TCase *t = tcase_create("search");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, defaults);
  tcase_add_test(t, chain_fuses_into_one_kernel);
  tcase_add_test(t, same_run_same_result);
  tcase_add_test(t, threads_do_not_change_the_result);
  tcase_add_test(t, incumbent_is_the_floor);
  tcase_add_test(t, pinned_reachability);
  tcase_add_test(t, accept_statuses);
  tcase_add_test(t, refusals);
  suite_add_tcase(s, t);
  return unit_run(s);
}
