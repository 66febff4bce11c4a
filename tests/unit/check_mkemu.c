/* check_mkemu.c — the mutation the emulated megakernel's test uses (mpk/mkemu.h): a dropped
 * edge that the check against the μGraph refuses (the emulator's catching it is
 * tests/e2e/mpk_emulate.sh). */
#include "mpk/mkemu.h"
#include "superopt/ir/mugtext.h"
#include "unit.h"

static void load(const char *rel, AxTaskGraph *tg) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  AxSource *src;
  ck_assert_msg(ax_source_load(A, &D, path, &src), "%s", unit_diagnostics());
  AxMugraph *g = ax_mugtext_parse(A, &D, src);
  ck_assert_msg(g && ax_mug_check(g, &D), "%s", unit_diagnostics());
  ck_assert(ax_taskgraph_build(A, g, &D, tg));
}

START_TEST(dropped_edge) {
  AxTaskGraph tg;
  load("tests/mpk/splitk.mug", &tg);
  char what[160], msg[512];
  ck_assert(ax_mkemu_drop_edge(&tg, what, sizeof what));
  ck_assert_str_eq(what, "the edge from task 0 (k1 block 0,0,0) to event 1");
  ck_assert_int_eq(tg.events[1].ntriggers, 3);
  ck_assert_int_eq(tg.tasks[0].ntrig, 0);
  ck_assert(!ax_taskgraph_check(&tg, msg, sizeof msg));
  ck_assert_msg(strstr(msg, "written by task 0 (k1 block 0,0,0), which is not among its dependencies"),
                "%s", msg);
  /* a graph of one kernel has no edge to drop */
  AxTaskGraph one;
  load("superopt/examples/rmsnorm_linear.mug", &one);
  ck_assert(!ax_mkemu_drop_edge(&one, what, sizeof what));
}
END_TEST

int main(void) {
  Suite *s = suite_create("mkemu");
  TCase *t = tcase_create("mkemu");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, dropped_edge);
  suite_add_tcase(s, t);
  return unit_run(s);
}
