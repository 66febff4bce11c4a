/* check_sim.c — the schedule simulator and the memory bound (mpk/sim.h): what the model
 * must give whatever its constants (one kernel: the megakernel is the kernel; one worker:
 * the tasks one after another; the bound's bytes), GQA's two kernels as one launch, and the
 * credit for cross-task prefetch. */
#include <math.h>

#include "mpk/sim.h"
#include "superopt/ir/load.h"
#include "unit.h"

static void load(const char *name, AxTaskGraph *tg) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/superopt/examples/%s.mug", root, name);
  AxMugraph *g = ax_load_from_file(A, &D, path, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  ck_assert(ax_taskgraph_build(A, g, &D, tg));
}

START_TEST(one_kernel_is_its_kernel) {
  AxTaskGraph tg;
  load("rmsnorm_linear", &tg);
  const AxTarget *h = ax_cost_target("h100");
  AxSim s;
  ax_sim_run(A, &tg, h, h->sms, &s);
  /* 64 blocks on 132 workers: one round, the kernel's time with its one launch */
  ck_assert_double_eq_tol(s.megakernel_s, s.per_kernel_s, 1e-12);
  /* X 16x4096 and W 4096x4096 read, O 16x4096 written, all f16 */
  ck_assert_double_eq_tol(s.bytes, 2.0 * (16 * 4096 + 4096.0 * 4096 + 16 * 4096), 0.5);
  ck_assert_double_eq_tol(s.bound_s, s.bytes / h->hbm_bps, 1e-15);
  ck_assert(s.bound_s < s.megakernel_s);
  /* one worker runs the 64 tasks one after another */
  AxSim one;
  ax_sim_run(A, &tg, h, 1, &one);
  ck_assert_double_eq_tol(one.makespan_s, 64 * s.task_s[0], 1e-12);
  ck_assert_double_eq_tol(one.busy, 1.0, 1e-9);
}
END_TEST

/* GQA: one launch instead of two, and k2's blocks start as their four producers finish
 * (plus the event latency), so the megakernel is modelled faster than the kernels; fewer
 * workers than k1's blocks make it slower. */
START_TEST(gqa_one_launch) {
  AxTaskGraph tg;
  load("gqa", &tg);
  const AxTarget *h = ax_cost_target("h100");
  AxSim s, few;
  ax_sim_run(A, &tg, h, h->sms, &s);
  ck_assert(s.megakernel_s < s.per_kernel_s);
  ck_assert(s.per_kernel_s - s.megakernel_s >= h->launch_s - 2 * s.event_s - 1e-12);
  ck_assert(s.bound_s > 0 && s.bound_s < s.megakernel_s);
  ck_assert(s.busy > 0 && s.busy <= 1.0 + 1e-9);
  /* k1's 128 tasks fit 132 workers at once: the schedule is one k1 task, the event, one k2 task */
  ck_assert_double_eq_tol(s.makespan_s, s.task_s[0] + s.event_s + s.task_s[tg.ntasks - 1], 1e-12);
  /* cross-task prefetch: every task has first tiles, but in one round no worker runs a task
   * whose tiles it could load ahead (k2 reads only k1's output, whose event fires after the
   * worker's k1 task started); on 16 workers k1's later tasks are credited */
  ck_assert_int_eq(s.prefetch_tasks, 160);
  ck_assert_int_eq(s.prefetched, 0);
  ax_sim_run(A, &tg, h, 16, &few);
  ck_assert(few.makespan_s > s.makespan_s);
  ck_assert(few.prefetched >= 128 - 16 && few.prefetch_s > 0);
  for (int i = 16; i < 128; i++) ck_assert(few.task_s[i] < s.task_s[0]);
  AxSim a100;
  ax_sim_run(A, &tg, ax_cost_target("a100"), 108, &a100);
  ck_assert(a100.bound_s > s.bound_s);   /* less bandwidth */
}
END_TEST

int main(void) {
  Suite *s = suite_create("sim");
  TCase *t = tcase_create("sim");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, one_kernel_is_its_kernel);
  tcase_add_test(t, gqa_one_launch);
  suite_add_tcase(s, t);
  return unit_run(s);
}
