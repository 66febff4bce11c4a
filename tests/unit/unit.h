/* unit.h — what the Check suites (tests/unit/check_*.c) share: one arena `A` and one
 * diagnostic sink `D` per test, the sink writing into memory so a test can read what was
 * reported (unit_diagnostics); the first block of a rule text, parsed and checked; and
 * running a suite from main. A suite includes it once, registers unit_setup and
 * unit_teardown as its checked fixture (or calls them from its own), and never defines
 * A or D itself. */
#ifndef AX_UNIT_H
#define AX_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "dsl/check.h"
#include "dsl/parse.h"

static AxArena *A;    /* the test's arena: everything parsed lives here */
static AxDiag D;      /* the test's diagnostics, counted, text in unit_diagnostics() */
static char *unit_errs;
static size_t unit_errs_len;
static FILE *unit_errf;

static inline void unit_setup(void) {
  A = ax_arena_new();
  unit_errf = open_memstream(&unit_errs, &unit_errs_len);
  ax_diag_init(&D, unit_errf);
}

static inline void unit_teardown(void) {
  fclose(unit_errf);
  free(unit_errs);
  unit_errs = NULL;
  ax_arena_free(A);
}

/* Everything reported since unit_setup, rendered (borrowed until the next report). */
static inline const char *unit_diagnostics(void) {
  fflush(unit_errf);
  return unit_errs ? unit_errs : "";
}

/* The first block of `text` (copied into A), parsed and checked; the test fails, showing
 * the diagnostics, when either reports an error. */
static inline const AxBlock *unit_rule(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.axl", ax_arena_strdup(A, text), strlen(text));
  AxFile *f = ax_parse(A, &D, src);
  ck_assert_msg(D.errors == 0, "%s", unit_diagnostics());
  ck_assert_msg(ax_check_file(A, &D, f), "%s", unit_diagnostics());
  return f->blocks[0];
}

/* Runs every test of s; the exit status for main. */
static inline int unit_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
