/* check_axioms.c — the proved-axiom gate of the search (superopt/search/axioms.h): a wrong axiom
 * is refused and named, a missing one is named, a proved set passes, and the second run
 * takes its results from the cache. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "superopt/search/axioms.h"

static char dir[256], cache[300];

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static const char *good =
    "rule eq_add_comm for T in num {\n  rclass x\n  map s over x\n  tensor X, Y : T[x: s]\n\n"
    "  X + Y => Y + X\n}\n";
/* a wrong axiom that a careless table could hold: subtraction does not commute */
static const char *wrong =
    "rule eq_sub_comm for T in real {\n  rclass x\n  map s over x\n  tensor X, Y : T[x: s]\n\n"
    "  X - Y => Y - X\n}\n";

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/axle-axioms-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(cache, sizeof cache, "%s/cache", dir);
  mkdir(cache, 0700);
  setenv("XDG_CACHE_HOME", cache, 1);   /* a cache of the test's own */
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

START_TEST(wrong_axiom_is_refused) {
  write_file("good.axl", good);
  write_file("wrong.axl", wrong);
  AxVerifyOpts vo;
  const char *sn;
  ax_axioms_default_opts(&vo, &sn);
  const char *req[] = {"eq_add_comm", "eq_sub_comm", "eq_not_written"};
  AxAxiomReport rep;
  ck_assert(!ax_superopt_axioms_proved(dir, &vo, sn, req, 3, &rep));
  ck_assert_int_eq(rep.files, 2);
  ck_assert_int_eq(rep.rules, 2);
  ck_assert_int_eq(rep.results, 3);    /* eq_add_comm at int and real, eq_sub_comm at real */
  ck_assert_int_eq(rep.verified, 2);
  ck_assert_int_eq(rep.failed, 2);     /* the wrong axiom and the missing name */
  ck_assert_ptr_nonnull(strstr(rep.failures, "eq_sub_comm [real] invalid"));
  ck_assert_ptr_nonnull(strstr(rep.failures, "eq_not_written: no such rule"));
  ck_assert_ptr_null(strstr(rep.failures, "eq_add_comm"));
  ax_axiom_report_free(&rep);
}
END_TEST

START_TEST(proved_set_passes_and_is_cached) {
  write_file("good.axl", good);
  AxVerifyOpts vo;
  const char *sn;
  ax_axioms_default_opts(&vo, &sn);
  const char *req[] = {"eq_add_comm"};
  AxAxiomReport rep;
  ck_assert(ax_superopt_axioms_proved(dir, &vo, sn, req, 1, &rep));
  ck_assert_int_eq(rep.verified, 2);
  ck_assert_str_eq(rep.failures, "");
  ax_axiom_report_free(&rep);
  ck_assert(ax_superopt_axioms_proved(dir, &vo, sn, req, 1, &rep));
  ck_assert_int_eq(rep.cached, 2);     /* the second gate reads the cache */
  ax_axiom_report_free(&rep);
}
END_TEST

START_TEST(unreadable_or_empty_directory_is_refused) {
  AxVerifyOpts vo;
  const char *sn;
  ax_axioms_default_opts(&vo, &sn);
  AxAxiomReport rep;
  ck_assert(!ax_superopt_axioms_proved(dir, &vo, sn, NULL, 0, &rep));   /* no rule */
  ck_assert_ptr_nonnull(strstr(rep.failures, "no rule to verify"));
  ax_axiom_report_free(&rep);
  ck_assert(!ax_superopt_axioms_proved("/nonexistent/axioms", &vo, sn, NULL, 0, &rep));
  ck_assert_ptr_nonnull(strstr(rep.failures, "cannot read the directory"));
  ax_axiom_report_free(&rep);
  write_file("bad.axl", "rule broken {\n");
  ck_assert(!ax_superopt_axioms_proved(dir, &vo, sn, NULL, 0, &rep));   /* a file that does not parse */
  ck_assert_ptr_nonnull(strstr(rep.failures, "does not parse or check"));
  ax_axiom_report_free(&rep);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("axioms");
  TCase *t = tcase_create("gate");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, wrong_axiom_is_refused);
  tcase_add_test(t, proved_set_passes_and_is_cached);
  tcase_add_test(t, unreadable_or_empty_directory_is_refused);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
