/* check_taskgraph.c — the SM-level task graph (mpk/taskgraph.h): task and event counts,
 * fine-grained dependencies, linearization ranges, launch modes, and the check against the
 * μGraph catching a dropped edge. */
#include "mpk/taskgraph.h"
#include "superopt/ir/mugtext.h"
#include "unit.h"

static AxMugraph *parsed(AxSource *src) {
  AxMugraph *g = ax_mugtext_parse(A, &D, src);
  ck_assert_msg(g && ax_mug_check(g, &D), "%s", unit_diagnostics());
  return g;
}

static AxMugraph *file(const char *rel) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  AxSource *src;
  ck_assert_msg(ax_source_load(A, &D, path, &src), "%s", unit_diagnostics());
  return parsed(src);
}

static AxMugraph *text(const char *t) {
  return parsed(ax_source_from_text(A, "t.mug", ax_arena_strdup(A, t), strlen(t)));
}

static void build(const AxMugraph *g, AxTaskGraph *tg) {
  ck_assert_msg(ax_taskgraph_build(A, g, &D, tg), "%s", unit_diagnostics());
  char msg[512];
  ck_assert_msg(ax_taskgraph_check(tg, msg, sizeof msg), "%s: %s", g->name, msg);
}

/* Linearization: the events' ranges tile [0, ntasks) in event order, each task is in its
 * event's range, and every trigger of an event comes before its first dependent. */
static void linear(const AxTaskGraph *tg) {
  int at = 0;
  for (int e = 0; e < tg->nevents; e++) {
    ck_assert_int_eq(tg->events[e].first, at);
    at = tg->events[e].last;
    for (int t = tg->events[e].first; t < tg->events[e].last; t++)
      ck_assert_int_eq(tg->tasks[t].dep, e);
  }
  ck_assert_int_eq(at, tg->ntasks);
  for (int u = 0; u < tg->ntasks; u++)
    for (int j = 0; j < tg->tasks[u].ntrig; j++) {
      const AxEvent *ev = &tg->events[tg->trigs[tg->tasks[u].trig + j]];
      ck_assert(ev->first == ev->last || u < ev->first);
    }
}

/* The producer tasks of task t: those that trigger its event. */
static int producers(const AxTaskGraph *tg, int t, int *out) {
  int n = 0;
  for (int u = 0; u < tg->ntasks; u++)
    for (int j = 0; j < tg->tasks[u].ntrig; j++)
      if (tg->trigs[tg->tasks[u].trig + j] == tg->tasks[t].dep) out[n++] = u;
  return n;
}

START_TEST(every_example_checks) {
  static const char *const files[] = {
      "superopt/examples/rmsnorm_linear.mug", "superopt/examples/gated_mlp.mug",
      "superopt/examples/lora.mug",           "superopt/examples/gqa.mug",
      "superopt/examples/qknorm.mug",         "superopt/examples/ntrans.mug",
      "tests/gpu/dbuf.mug",                   "tests/gpu/predefined.mug",
      "tests/gpu/qknorm_bf16.mug"};
  for (size_t i = 0; i < AX_COUNTOF(files); i++) {
    AxTaskGraph tg;
    build(file(files[i]), &tg);
    linear(&tg);
    int64_t blocks = 0;
    for (int k = 0; k < tg.nkernels; k++)
      blocks += tg.kernels[k].grid[0] * tg.kernels[k].grid[1] * tg.kernels[k].grid[2];
    ck_assert_int_eq(tg.ntasks, blocks);
    ck_assert_int_eq(tg.events[0].ntriggers, 0);
    ck_assert_int_eq(tg.events[tg.end].first, tg.events[tg.end].last);
  }
}
END_TEST

/* GQA: k1's 128 blocks, k2's 32; each k2 block (x, y) reads the rows of N and D that the
 * four k1 blocks (x, y, 0..3) write, and only those: one event of 4 triggers each. */
static void two_kernel_attention(const char *rel) {
  AxTaskGraph tg;
  build(file(rel), &tg);
  ck_assert_int_eq(tg.nkernels, 2);
  ck_assert_int_eq(tg.ntasks, 160);
  ck_assert_int_eq(tg.nevents, 34);   /* start, 32 producer sets, end */
  ck_assert_int_eq(tg.pairs, 128);
  ck_assert_int_eq(tg.events[0].last - tg.events[0].first, 128);
  ck_assert_int_eq(tg.events[tg.end].ntriggers, 32);
  int prods[200];
  for (int t = 0; t < tg.ntasks; t++) {
    const AxTask *x = &tg.tasks[t];
    if (x->kernel == 0) {
      ck_assert_int_eq(x->dep, 0);
      ck_assert_int_eq(x->ntrig, 1);
      continue;
    }
    ck_assert_int_eq(tg.events[x->dep].ntriggers, 4);
    int n = producers(&tg, t, prods);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++) {
      const AxTask *u = &tg.tasks[prods[i]];
      ck_assert_int_eq(u->kernel, 0);
      ck_assert_int_eq(u->block[0], x->block[0]);
      ck_assert_int_eq(u->block[1], x->block[1]);
    }
  }
  linear(&tg);
}

START_TEST(gqa) { two_kernel_attention("superopt/examples/gqa.mug"); }
END_TEST

START_TEST(qknorm) { two_kernel_attention("superopt/examples/qknorm.mug"); }
END_TEST

/* One kernel: no edge, every task launched by the start event and ending the graph. */
START_TEST(rmsnorm_linear) {
  AxTaskGraph tg;
  build(file("superopt/examples/rmsnorm_linear.mug"), &tg);
  ck_assert_int_eq(tg.ntasks, 64);
  ck_assert_int_eq(tg.nevents, 2);
  ck_assert_int_eq(tg.end, 1);
  ck_assert_int_eq(tg.pairs, 0);
  ck_assert_int_eq(tg.events[0].last, 64);
  ck_assert_int_eq(tg.events[1].ntriggers, 64);
}
END_TEST

/* Split-K and its reduction: k2 block x reads the columns of P that k1 blocks (x, 0..3)
 * write; the other four k1 blocks are not its dependencies. */
static const char *const splitk =
    "mugraph splitk {\n"
    "  input X : f16[16, 256]\n"
    "  input W : f16[256, 64]\n"
    "  kernel k1 grid [2, 4, 1] block [128, 1, 1] forloop 1 {\n"
    "    x = input X imap {y: 1} fmap -\n"
    "    w = input W imap {x: 1, y: 0} fmap -\n"
    "    p = matmul(x, w)\n"
    "    output P = p omap {x: 1, y: 0}\n"
    "  }\n"
    "  kernel k2 grid [2, 1, 1] block [128, 1, 1] forloop 1 {\n"
    "    q = input P imap {x: 1} fmap -\n"
    "    s = sum(q, axis = 0, to = 16)\n"
    "    output O = s omap {x: 1}\n"
    "  }\n"
    "  output O\n"
    "}\n";

START_TEST(split_k) {
  AxTaskGraph tg;
  build(text(splitk), &tg);
  ck_assert_int_eq(tg.ntasks, 10);
  ck_assert_int_eq(tg.nevents, 4);
  ck_assert_int_eq(tg.pairs, 8);
  int prods[16];
  for (int t = 8; t < 10; t++) {
    ck_assert_int_eq(tg.tasks[t].kernel, 1);
    int n = producers(&tg, t, prods);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++) ck_assert_int_eq(tg.tasks[prods[i]].block[0], tg.tasks[t].block[0]);
  }
  /* linear order: the k1 tasks of the first reduction's event come first, together */
  ck_assert_int_eq(tg.events[0].last, 8);
  linear(&tg);
}
END_TEST

/* The mutants: a dropped edge (the trigger and its count), a trigger dropped but still
 * counted, two tasks swapped out of their events' ranges: each caught. */
START_TEST(mutants_caught) {
  AxTaskGraph tg;
  build(text(splitk), &tg);
  char msg[512];
  /* drop the edge from the first producer of task 8 */
  int prods[16];
  ck_assert_int_eq(producers(&tg, 8, prods), 4);
  AxTask *u = &tg.tasks[prods[0]];
  int e = tg.tasks[8].dep;
  ck_assert_int_eq(u->ntrig, 1);
  ck_assert_int_eq(tg.trigs[u->trig], e);
  u->ntrig = 0;
  tg.events[e].ntriggers--;
  ck_assert(!ax_taskgraph_check(&tg, msg, sizeof msg));
  ck_assert_msg(strstr(msg, "which is not among its dependencies") && strstr(msg, "reads P["),
                "%s", msg);
  /* the count kept: caught by the count */
  tg.events[e].ntriggers++;
  ck_assert(!ax_taskgraph_check(&tg, msg, sizeof msg));
  ck_assert_msg(strstr(msg, "counts 4 triggers but 3 tasks trigger it"), "%s", msg);
  u->ntrig = 1;
  ck_assert(ax_taskgraph_check(&tg, msg, sizeof msg));
  /* a reduction task moved before its producers: out of its event's range */
  AxTask k2 = tg.tasks[8];
  tg.tasks[8] = tg.tasks[0];
  tg.tasks[0] = k2;
  ck_assert(!ax_taskgraph_check(&tg, msg, sizeof msg));
  ck_assert_msg(strstr(msg, "is in the range of event"), "%s", msg);
}
END_TEST

/* MPK §5.2: JIT spreads from a data-dependent kernel until a barrier. */
START_TEST(launch_modes) {
  AxTaskGraph tg;
  build(file("superopt/examples/gqa.mug"), &tg);
  ck_assert_int_eq(tg.kernels[0].launch, AX_LAUNCH_AOT);
  ck_assert_int_eq(tg.kernels[1].launch, AX_LAUNCH_AOT);
  bool dd[2] = {true, false};
  ax_taskgraph_launch(&tg, dd);
  ck_assert_int_eq(tg.kernels[0].launch, AX_LAUNCH_JIT);
  ck_assert_int_eq(tg.kernels[1].launch, AX_LAUNCH_JIT);   /* 4 of 128 trigger each event */
  /* a reduction that reads the whole partial sums waits at a barrier: AOT */
  AxTaskGraph b;
  build(text("mugraph bar {\n"
             "  input X : f16[16, 256]\n"
             "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
             "    x = input X imap {x: 1} fmap -\n"
             "    e = exp(x)\n"
             "    output P = e omap {x: 1}\n"
             "  }\n"
             "  kernel k2 grid [2, 1, 1] block [128, 1, 1] forloop 1 {\n"
             "    p = input P imap {x: 0} fmap -\n"
             "    s = sum(p, axis = 1)\n"
             "    output O = s omap {x: 0}\n"
             "  }\n"
             "  output O\n"
             "}\n"),
        &b);
  ck_assert_int_eq(b.events[b.tasks[5].dep].ntriggers, 4);
  ax_taskgraph_launch(&b, dd);
  ck_assert_int_eq(b.kernels[0].launch, AX_LAUNCH_JIT);
  ck_assert_int_eq(b.kernels[1].launch, AX_LAUNCH_AOT);
}
END_TEST

/* A pre-defined operator is one task reading its operands whole; a reshape is no task. */
START_TEST(predefined_operators) {
  AxTaskGraph tg;
  build(text("mugraph ops {\n"
             "  input X : f16[4, 8]\n"
             "  e = exp(X)\n"
             "  r = reshape(e, [8, 4])\n"
             "  n = neg(r)\n"
             "  output n\n"
             "}\n"),
        &tg);
  ck_assert_int_eq(tg.nkernels, 2);
  ck_assert_int_eq(tg.ntasks, 2);
  ck_assert(!tg.kernels[0].graph_defined);
  int prods[4];
  ck_assert_int_eq(producers(&tg, 1, prods), 1);
  ck_assert_int_eq(prods[0], 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("taskgraph");
  TCase *t = tcase_create("taskgraph");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, every_example_checks);
  tcase_add_test(t, gqa);
  tcase_add_test(t, qknorm);
  tcase_add_test(t, rmsnorm_linear);
  tcase_add_test(t, split_k);
  tcase_add_test(t, mutants_caught);
  tcase_add_test(t, launch_modes);
  tcase_add_test(t, predefined_operators);
  suite_add_tcase(s, t);
  return unit_run(s);
}
