/* check_generate.c — the search's generator (generate.h) on tiny programs, as the driver
 * uses it: one SearchState, a Worker per thread, every complete candidate handed to emit.
 * What one level emits (how many candidates and their canonical text), that each graph is
 * built once, that pruning cuts states and loses no candidate here, that workers split the
 * tree without overlap, that max_states stops it, the scaled-down instance of every
 * candidate, and what the generator refuses. */
#include <pthread.h>

#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"
#include "superopt/search/generate.h"
#include "superopt/search/search.h"
#include "unit.h"

/* The candidates one run emitted, in order (texts owned), and what their scaled-down
 * instances did. emit has no context argument: `got` is the run's. */
typedef struct Got {
  char **text;
  int n, cap;
  int scaled_invalid;     /* candidates whose scaled-down instance did not validate */
  int scaled_not_smaller; /* scaled instances with no dimension smaller than the program's */
} Got;

static Got *got;

static void got_free(Got *g) {
  for (int i = 0; i < g->n; i++) free(g->text[i]);
  free(g->text);
  memset(g, 0, sizeof *g);
}

static AxMugraph *valid(AxMugraph *g) {
  AxDiag d;
  ax_diag_init(&d, NULL);
  return g && ax_mug_check(g, &d) ? g : NULL;
}

/* The driver's emit, reduced to recording: the candidate's text, and its scaled-down twin
 * built as the filter builds it (search.c emit). */
static void collect(Worker *w, const int *outs) {
  AxArena *a = ax_arena_new();
  AxMugraph *g = ax_generate_candidate(a, w, outs, NULL);
  if (got->n == got->cap) {
    got->cap = got->cap ? 2 * got->cap : 64;
    got->text = realloc(got->text, sizeof *got->text * (size_t)got->cap);
  }
  got->text[got->n++] = ax_mugtext_string(g);
  SizeMap m;
  ax_generate_scale_map(w, &m);
  const AxMugraph *sg = valid(ax_generate_candidate(a, w, outs, &m));
  const AxMugraph *sp = valid(ax_generate_scaled_program(a, w->s->prog, w->s->tcls, &m));
  if (!sg || !sp) {
    got->scaled_invalid++;
  } else {
    const AxKTensor *x = &sp->tensors[sp->stmts[0].t], *x0 = &w->s->prog->tensors[w->s->prog->stmts[0].t];
    bool smaller = false;
    for (int d = 0; d < x->shape.rank; d++) smaller |= x->shape.dim[d] < x0->shape.dim[d];
    got->scaled_not_smaller += !smaller;
  }
  ax_arena_free(a);
}

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

/* Search options of one small level: `stmts` kernel-graph statements, one graph-defined
 * kernel (so no split level), `nodes` block nodes; for-loops as the defaults unless
 * no_loops. */
static AxSearchOpts level(int stmts, int nodes, bool no_loops) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  o.max_kernel_ops = stmts;
  o.max_kernels = 1;
  o.max_block_ops = nodes;
  if (no_loops) o.forloops[0] = 0;
  return o;
}

/* Runs worker id of jobs over p under o (on this thread, as one of the driver's threads
 * would), collecting into *out; *states and *pruned (may be NULL) get the counters. */
static void generate(const AxMugraph *p, const AxSearchOpts *o, int id, int jobs, Got *out, long *states,
                     long *pruned) {
  SearchState s;
  memset(&s, 0, sizeof s);
  s.prog = p;
  s.o = o;
  s.memo = true;
  s.emit = collect;
  pthread_mutex_init(&s.mu, NULL);
  ck_assert_msg(ax_generate_prepare(&s, &D), "%s", unit_diagnostics());
  Worker w;
  memset(&w, 0, sizeof w);
  w.s = &s, w.id = id, w.jobs = jobs;
  got = out;
  ax_generate_run(&w);
  got = NULL;
  if (states) *states = s.states;
  if (pruned) *pruned = s.pruned;
  pthread_mutex_destroy(&s.mu);
  free(s.tcls);
}

static int find(const Got *g, const char *text) {
  for (int i = 0; i < g->n; i++)
    if (strcmp(g->text[i], text) == 0) return i;
  return -1;
}

static int count(const Got *g, const char *needle) {
  int n = 0;
  for (int i = 0; i < g->n; i++) n += strstr(g->text[i], needle) != NULL;
  return n;
}

static const char *EXP = "program e {\n  input X : f16[16, 32]\n  output O = exp(X)\n}\n";
static const char *MUL = "program m {\n  input X, Y : f16[16, 32]\n  output O = exp(X) * Y\n}\n";

/* One statement, three block nodes, no for-loop, for exp of a 16 x 32 tensor: the
 * pre-defined operator (last), and one kernel per grid — one axis of either class (sizes
 * dividing it, at least 8 blocks: 8 and 16 of the rows, 8, 16 and 32 of the columns) or
 * both, rows on x and columns on y, never the other way round (4 x 5 sizes of at least 2,
 * 19 of them with 8 to 1024 blocks) — reading X with the grid's map, exp, saving O: 25. */
START_TEST(one_kernel_level_of_exp) {
  AxMugraph *p = prog(EXP);
  AxSearchOpts o = level(1, 3, true);
  Got g = {0};
  generate(p, &o, 0, 1, &g, NULL, NULL);
  ck_assert_int_eq(g.n, 25);
  ck_assert_str_eq(g.text[0], "mugraph e {\n"
                              "  input X : f16[16, 32]\n"
                              "\n"
                              "  kernel k1 grid [8, 1, 1] block [128, 1, 1] forloop 1 {\n"
                              "    n0 = input X imap {x: 0} fmap -\n"
                              "    n1 = exp(n0)\n"
                              "    output O = n1 omap {x: 0}\n"
                              "  }\n"
                              "  output O\n"
                              "}\n");
  ck_assert_str_eq(g.text[24], "mugraph e {\n  input X : f16[16, 32]\n  O = exp(X)\n  output O\n}\n");
  ck_assert_int_eq(count(&g, "  kernel k1 grid ["), 24);
  ck_assert_int_eq(count(&g, "imap {x: 0} fmap -"), 2);
  ck_assert_int_eq(count(&g, "imap {x: 1} fmap -"), 3);
  ck_assert_int_eq(count(&g, "imap {x: 0, y: 1} fmap -"), 19);
  ck_assert_int_eq(count(&g, "imap {x: 1, y: 0}"), 0);
  ck_assert_int_ge(find(&g, "mugraph e {\n  input X : f16[16, 32]\n\n"
                            "  kernel k1 grid [16, 32, 1] block [128, 1, 1] forloop 1 {\n"
                            "    n0 = input X imap {x: 0, y: 1} fmap -\n    n1 = exp(n0)\n"
                            "    output O = n1 omap {x: 0, y: 1}\n  }\n  output O\n}\n"), 0);
  ck_assert_int_lt(find(&g, "mugraph e {\n  input X : f16[16, 32]\n\n"
                            "  kernel k1 grid [2, 2, 1] block [128, 1, 1] forloop 1 {\n"
                            "    n0 = input X imap {x: 0, y: 1} fmap -\n    n1 = exp(n0)\n"
                            "    output O = n1 omap {x: 0, y: 1}\n  }\n  output O\n}\n"), 0);   /* 4 blocks */
  for (int i = 0; i < g.n; i++) {
    AxMugraph *c = ax_load_from_text(A, NULL, "<candidate>", g.text[i], NULL);
    ck_assert_msg(c, "candidate %d does not validate:\n%s", i, g.text[i]);
    ck_assert_str_eq(c->tensors[c->outputs[0]].name, "O");
  }
  got_free(&g);
}
END_TEST

/* With the default for-loop ranges (4, 16, 64) the same level adds a loop along the rows
 * or the columns (where the range divides what the grid leaves of the dim: 64 never does),
 * X read in steps along it, and then either exp inside the loop and a concat after it or
 * the concat first and exp after (an accumulator is no node of the limit): 18 loop headers
 * in two orders, 36 more candidates, 61 in all. */
START_TEST(for_loops_add_accumulated_candidates) {
  AxMugraph *p = prog(EXP);
  AxSearchOpts o = level(1, 3, false);
  Got g = {0};
  generate(p, &o, 0, 1, &g, NULL, NULL);
  ck_assert_int_eq(g.n, 61);
  ck_assert_int_eq(count(&g, "forloop 1 {"), 24);
  ck_assert_int_eq(count(&g, "forloop 4 {"), 32);
  ck_assert_int_eq(count(&g, "forloop 16 {"), 4);
  ck_assert_int_eq(count(&g, "forloop 64 {"), 0);
  ck_assert_int_eq(count(&g, "fmap 0\n"), 14);
  ck_assert_int_eq(count(&g, "fmap 1\n"), 22);
  ck_assert_int_eq(count(&g, "    n1 = exp(n0)\n    n2 = accum concat(n1, axis = "), 18);
  ck_assert_int_eq(count(&g, "    n1 = accum concat(n0, axis = "), 18);
  ck_assert_int_ge(find(&g, "mugraph e {\n  input X : f16[16, 32]\n\n"
                            "  kernel k1 grid [8, 1, 1] block [128, 1, 1] forloop 4 {\n"
                            "    n0 = input X imap {x: 0} fmap 1\n    n1 = exp(n0)\n"
                            "    n2 = accum concat(n1, axis = 1)\n    output O = n2 omap {x: 0}\n"
                            "  }\n  output O\n}\n"), 0);
  ck_assert_int_ge(find(&g, "mugraph e {\n  input X : f16[16, 32]\n\n"
                            "  kernel k1 grid [8, 1, 1] block [128, 1, 1] forloop 4 {\n"
                            "    n0 = input X imap {x: 0} fmap 1\n    n1 = accum concat(n0, axis = 1)\n"
                            "    n2 = exp(n1)\n    output O = n2 omap {x: 0}\n"
                            "  }\n  output O\n}\n"), 0);
  got_free(&g);
}
END_TEST

static int occurrences(const Got *g, const char *text) {
  int n = 0;
  for (int i = 0; i < g->n; i++) n += strcmp(g->text[i], text) == 0;
  return n;
}

/* The canonical form: within one level every graph is built once (no text twice; here
 * the levels of one and two statements at three nodes), each validates and reads both
 * inputs. Iterative deepening builds a graph again at every larger node limit it fits
 * (the driver's set of texts seen drops the repeats): a text the five-node run emits more
 * than once is one the four-node run emits too. */
START_TEST(each_graph_built_once_per_level) {
  AxMugraph *p = prog(MUL);
  AxSearchOpts o = level(2, 3, false);
  Got g = {0};
  generate(p, &o, 0, 1, &g, NULL, NULL);
  ck_assert_int_eq(g.n, 85);
  for (int i = 0; i < g.n; i++) {
    ck_assert_msg(find(&g, g.text[i]) == i, "candidate %d was built before:\n%s", i, g.text[i]);
    ck_assert_msg(ax_load_from_text(A, NULL, "<candidate>", g.text[i], NULL), "candidate %d:\n%s", i, g.text[i]);
    ck_assert(strstr(g.text[i], "input X") && strstr(g.text[i], "input Y"));
  }
  got_free(&g);
  Got four = {0}, five = {0};
  o = level(1, 4, false);
  generate(p, &o, 0, 1, &four, NULL, NULL);
  o = level(1, 5, false);
  generate(p, &o, 0, 1, &five, NULL, NULL);
  int repeated = 0;
  for (int i = 0; i < five.n; i++) {
    if (find(&five, five.text[i]) != i) continue;
    int k = occurrences(&five, five.text[i]);
    ck_assert_int_le(k, 3);   /* levels of 3, 4 and 5 nodes */
    if (k > 1) {
      repeated++;
      ck_assert_msg(find(&four, five.text[i]) >= 0, "built twice, though not within 4 nodes:\n%s", five.text[i]);
    }
  }
  ck_assert_int_gt(repeated, 0);
  got_free(&four);
  got_free(&five);
}
END_TEST

/* Pruning cuts prefixes whose abstract expression cannot be part of the output's, so it
 * builds far fewer states; here no complete candidate is lost: the same texts in the same
 * order. The same run twice is the same run. */
START_TEST(pruning_cuts_states_not_candidates) {
  AxMugraph *p = prog(MUL);
  AxSearchOpts o = level(2, 5, false);
  Got on = {0}, off = {0}, again = {0};
  long s_on, s_off, s_again, p_on, p_off;
  generate(p, &o, 0, 1, &on, &s_on, &p_on);
  o.prune = false;
  generate(p, &o, 0, 1, &off, &s_off, &p_off);
  ck_assert_int_eq(p_off, 0);
  ck_assert_int_gt(p_on, 0);
  ck_assert_int_lt(5 * s_on, s_off);   /* 13897 against 292360 */
  ck_assert_int_eq(on.n, off.n);
  for (int i = 0; i < on.n; i++) ck_assert_str_eq(on.text[i], off.text[i]);
  o.prune = true;
  generate(p, &o, 0, 1, &again, &s_again, NULL);
  ck_assert_int_eq(s_again, s_on);
  ck_assert_int_eq(again.n, on.n);
  for (int i = 0; i < on.n; i++) ck_assert_str_eq(again.text[i], on.text[i]);
  got_free(&on);
  got_free(&off);
  got_free(&again);
}
END_TEST

/* Threads split the tree by its top-level choices, dealt round robin: two workers of two
 * together build what one worker alone builds, neither a graph the other builds. */
START_TEST(workers_split_the_tree) {
  AxMugraph *p = prog(MUL);
  AxSearchOpts o = level(2, 5, false);
  Got all = {0}, w0 = {0}, w1 = {0};
  generate(p, &o, 0, 1, &all, NULL, NULL);
  generate(p, &o, 0, 2, &w0, NULL, NULL);
  generate(p, &o, 1, 2, &w1, NULL, NULL);
  ck_assert_int_gt(w0.n, 0);
  ck_assert_int_gt(w1.n, 0);
  ck_assert_int_eq(w0.n + w1.n, all.n);
  for (int i = 0; i < w0.n; i++) {
    ck_assert_int_lt(find(&w1, w0.text[i]), 0);
    ck_assert_int_ge(find(&all, w0.text[i]), 0);
  }
  for (int i = 0; i < w1.n; i++) ck_assert_int_ge(find(&all, w1.text[i]), 0);
  got_free(&all);
  got_free(&w0);
  got_free(&w1);
}
END_TEST

/* max_states stops the generator (counted in steps of 256 states), deterministically: a
 * prefix of the full run's candidates. */
START_TEST(max_states_stops_early) {
  AxMugraph *p = prog(MUL);
  AxSearchOpts o = level(2, 5, false);
  Got all = {0}, part = {0};
  long s_all, s_part;
  generate(p, &o, 0, 1, &all, &s_all, NULL);
  o.max_states = 1000;
  generate(p, &o, 0, 1, &part, &s_part, NULL);
  ck_assert_int_ge(s_part, 1000);
  ck_assert_int_lt(s_part, 1000 + 256 + 1);
  ck_assert_int_lt(s_part, s_all);
  ck_assert_int_gt(part.n, 0);
  ck_assert_int_lt(part.n, all.n);
  for (int i = 0; i < part.n; i++) ck_assert_str_eq(part.text[i], all.text[i]);
  got_free(&all);
  got_free(&part);
}
END_TEST

/* Every candidate's scaled-down instance (the filter's) validates with the scaled program,
 * and is smaller: the cuts of its tiles still divide the scaled sizes. */
START_TEST(scaled_instances_validate) {
  AxMugraph *p = prog("program r {\n  input X : f16[64, 256]\n  input W : f16[256, 64]\n"
                      "  output O = matmul(X / sqrt(mean(X * X, axis = 1)), W)\n}\n");
  AxSearchOpts o = level(1, 6, false);
  o.max_states = 200000;
  Got g = {0};
  generate(p, &o, 0, 1, &g, NULL, NULL);
  ck_assert_int_gt(g.n, 100);
  ck_assert_int_eq(g.scaled_invalid, 0);
  ck_assert_int_eq(g.scaled_not_smaller, 0);
  got_free(&g);
}
END_TEST

/* What the generator cannot build from is refused before anything runs, at the statement:
 * a layout operator. A masked select of index values is read as one step. */
START_TEST(refusals_and_masks) {
  ck_assert(!ax_generate_reads_masks(prog(EXP)));
  ck_assert(ax_generate_reads_masks(prog("program c {\n  input S : f32[16, 16]\n  let i = iota([16], axis = 0)\n"
                                         "  let m = ge(reshape(i, [16, 1]), i)\n"
                                         "  output O = select(m, S, broadcast(-1000, [16, 16]))\n}\n")));
  AxMugraph *p = prog("program l {\n  input X : f16[16, 32]\n  output O = reshape(exp(X), [32, 16])\n}\n");
  SearchState s;
  memset(&s, 0, sizeof s);
  AxSearchOpts o = level(1, 3, true);
  s.prog = p;
  s.o = &o;
  ck_assert(!ax_generate_prepare(&s, &D));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:3:14: error: superopt: the search does not handle 'reshape' yet"));
  ck_assert(!ax_search_handles(AX_OP_RESHAPE));
  ck_assert(ax_search_handles(AX_OP_EXP));
}
END_TEST

int main(void) {
  Suite *s = suite_create("generate");
  TCase *t = tcase_create("generate");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, one_kernel_level_of_exp);
  tcase_add_test(t, for_loops_add_accumulated_candidates);
  tcase_add_test(t, each_graph_built_once_per_level);
  tcase_add_test(t, pruning_cuts_states_not_candidates);
  tcase_add_test(t, workers_split_the_tree);
  tcase_add_test(t, max_states_stops_early);
  tcase_add_test(t, scaled_instances_validate);
  tcase_add_test(t, refusals_and_masks);
  suite_add_tcase(s, t);
  return unit_run(s);
}
