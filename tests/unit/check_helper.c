/* check_helper.c — the z3 helper (smt/helper.c): a query of every term kind answered by the
 * helper exactly as by z3.c in this process (the same answer text, model included); one
 * helper for query after query; a killed helper replaced; a forked child that never uses
 * its parent's helper. Real z3, real processes. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "semantics/term.h"
#include "smt/helper.h"
#include "smt/z3.h"

static AxTermCtx *tc;
static char reason[512];

static void setup(void) {
  tc = ax_term_ctx_new();
  reason[0] = '\0';
}

static void teardown(void) {
  ax_helper_kill();
  ax_term_ctx_free(tc);
}

static const AxTerm *I(long v) { return ax_term_mk_int_si(tc, v); }
static const AxTerm *eq(const AxTerm *a, const AxTerm *b) { return ax_term_mk_eq(tc, a, b); }

/* The helper's answer to the query: its text, up to and with the line "end". */
static char *ask_helper(const AxTerm *f, const AxTerm *const *watch, size_t n, pid_t *pid) {
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
  int fd = -1;
  ck_assert_msg(ax_helper_send(&o, tc, f, watch, n, true, pid, &fd, reason, sizeof reason),
                "send: %s", reason);
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
    ssize_t r = read(fd, buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR) continue;
    ck_assert_msg(r > 0, "the helper's answer ended early");
    len += (size_t)r;
    buf[len] = '\0';
    if (len >= 5 && strcmp(buf + len - 5, "\nend\n") == 0) return buf;
  }
}

/* z3.c's answer to the same query in this process, as text. */
static char *ask_here(const AxTerm *f, const AxTerm *const *watch, size_t n) {
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
  AxModel *m = NULL;
  char why[512] = "";
  AxSmtResult r = ax_z3_check(&o, tc, f, watch, n, &m, why, sizeof why);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  ax_helper_write_answer(out, r, m, why);
  fclose(out);
  ax_model_free(m);
  return text;
}

/* Every kind of term the wire carries: big and negative integers, rationals, an awkward
 * variable name, an uninterpreted function, exp, integer division and remainder, ite,
 * abs, to_real, floating point literals and operations; sat with one model. */
static const AxTerm *every_kind(const AxTerm **watch, size_t *n) {
  const AxTerm *x = ax_term_mk_var(tc, "x", AX_SORT_INT);
  const AxTerm *y = ax_term_mk_var(tc, "a name|with \"quotes\" and\nlines", AX_SORT_INT);
  const AxTerm *r = ax_term_mk_var(tc, "r", AX_SORT_REAL);
  const AxTerm *b = ax_term_mk_var(tc, "b", AX_SORT_BOOL);
  const AxTerm *h = ax_term_mk_var(tc, "h", AX_SORT_F16);
  AxSort is = AX_SORT_INT;
  const AxFunc *fn = ax_term_func(tc, "f", 1, &is, AX_SORT_INT);
  const AxTerm *fx = ax_term_mk_app(tc, fn, 1, &x);
  const AxTerm *big = ax_term_mk_int_str(tc, "-1180591620717411303424");   /* -2^70 */
  const AxTerm *one_f16 = ax_term_mk_fp_bits(tc, AX_SORT_F16, 0x3c00);
  const AxTerm *parts[] = {
    eq(ax_term_mk_sub(tc, x, big), I(5)),                                   /* x = 5 - 2^70 */
    eq(ax_term_mk_mod(tc, y, I(7)), I(3)),
    eq(ax_term_mk_div(tc, y, I(7)), I(2)),                                  /* y = 17 */
    eq(ax_term_mk_mul2(tc, ax_term_mk_real_si(tc, 3, 2), r), ax_term_mk_real_si(tc, -1, 4)),
    ax_term_mk_ite(tc, b, eq(fx, ax_term_mk_abs(tc, I(-9))), eq(fx, I(0))),
    b,
    ax_term_mk_le(tc, ax_term_mk_exp(tc, ax_term_mk_add2(tc, r, r)), ax_term_mk_to_real(tc, y)),
    ax_term_mk_fp(tc, AX_TERM_FP_EQ, ax_term_mk_fp(tc, AX_TERM_FP_ADD, h, h),
                  ax_term_mk_fp(tc, AX_TERM_FP_ADD, one_f16, one_f16)),
    ax_term_mk_not(tc, ax_term_mk_fp(tc, AX_TERM_FP_ISNAN, h, NULL)),
  };
  watch[0] = x;
  watch[1] = y;
  watch[2] = r;
  watch[3] = b;
  watch[4] = fx;
  watch[5] = x;   /* a term watched twice */
  *n = 6;
  return ax_term_mk_and(tc, sizeof parts / sizeof parts[0], parts);
}

START_TEST(test_same_answer_as_here) {
  const AxTerm *watch[8];
  size_t n = 0;
  const AxTerm *f = every_kind(watch, &n);
  pid_t pid = 0;
  char *there = ask_helper(f, watch, n, &pid), *here = ask_here(f, watch, n);
  ck_assert_str_eq(there, here);
  const char *model = "sat 6\nq -1180591620717411303419\nq 17\nq -1/6\nb 1\nq 9\n"
                      "q -1180591620717411303419\nend\n";
  ck_assert_str_eq(there, model);
  free(there);
  free(here);
  /* and an unsat one */
  const AxTerm *x = watch[0];
  const AxTerm *no = ax_term_mk_and2(tc, ax_term_mk_lt(tc, x, I(0)), ax_term_mk_lt(tc, I(0), x));
  there = ask_helper(no, NULL, 0, &pid);
  ck_assert_str_eq(there, "unsat\nend\n");
  free(there);
}
END_TEST

START_TEST(test_one_helper_replaced_when_killed) {
  const AxTerm *x = ax_term_mk_var(tc, "x", AX_SORT_INT);
  const AxTerm *q = eq(ax_term_mk_add2(tc, x, I(1)), I(43));
  pid_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;
  char *a = ask_helper(q, &x, 1, &p1), *b = ask_helper(q, &x, 1, &p2);
  ck_assert_str_eq(a, "sat 1\nq 42\nend\n");
  ck_assert_str_eq(b, a);
  ck_assert_int_eq(p1, p2);   /* query after query, one helper */
  free(a);
  free(b);
  /* killed by us: the next query forks a new one */
  ck_assert_int_eq(WTERMSIG(ax_helper_kill()), SIGKILL);
  a = ask_helper(q, &x, 1, &p3);
  ck_assert_str_eq(a, "sat 1\nq 42\nend\n");
  ck_assert_int_ne(p3, p1);
  free(a);
  /* died behind our back while idle: the send fails on it, and a new one answers */
  ck_assert_int_eq(kill(p3, SIGKILL), 0);
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  a = ask_helper(q, &x, 1, &p4);
  ck_assert_str_eq(a, "sat 1\nq 42\nend\n");
  ck_assert_int_ne(p4, p3);
  free(a);
}
END_TEST

START_TEST(test_child_forks_its_own) {
  const AxTerm *x = ax_term_mk_var(tc, "x", AX_SORT_INT);
  const AxTerm *q = eq(ax_term_mk_add2(tc, x, I(1)), I(43));
  pid_t mine = 0, again = 0;
  free(ask_helper(q, &x, 1, &mine));
  fflush(NULL);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    /* the parent's helper is not the child's: a new one, and the parent's is left alone */
    AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
    pid_t theirs = 0;
    int fd = -1;
    bool ok = ax_helper_send(&o, tc, q, &x, 1, true, &theirs, &fd, reason, sizeof reason);
    char buf[64] = "";
    ssize_t r = ok ? read(fd, buf, sizeof buf - 1) : -1;
    bool right = r > 0 && strncmp(buf, "sat 1\nq 42\nend\n", (size_t)r) == 0;
    int killed = WIFSIGNALED(ax_helper_kill());   /* its own helper, not the parent's */
    _exit(!ok ? 1 : theirs == mine ? 2 : !right ? 3 : !killed ? 4 : 0);
  }
  int status = -1;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "the child (1: no send, 2: the parent's helper, 3: wrong answer, 4: not killed): "
                "%d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  char *a = ask_helper(q, &x, 1, &again);
  ck_assert_int_eq(again, mine);   /* still the parent's, alive */
  ck_assert_str_eq(a, "sat 1\nq 42\nend\n");
  free(a);
}
END_TEST

START_TEST(test_big_query) {
  /* a query of some 100 000 terms, far more than a socket buffer holds: v0 = 0 and each
   * v(i+1) = v(i) + 1, so v20000 = 20000; sat, and unsat with v20000 = 3 added */
  enum { N = 20000 };
  const AxTerm **parts = malloc((N + 2) * sizeof *parts);
  const AxTerm *prev = ax_term_mk_var(tc, "v0", AX_SORT_INT), *last = prev;
  parts[0] = eq(prev, I(0));
  for (int i = 1; i <= N; i++) {
    char name[32];
    snprintf(name, sizeof name, "v%d", i);
    last = ax_term_mk_var(tc, name, AX_SORT_INT);
    parts[i] = eq(last, ax_term_mk_add2(tc, prev, I(1)));
    prev = last;
  }
  pid_t pid = 0;
  char *a = ask_helper(ax_term_mk_and(tc, N + 1, parts), &last, 1, &pid);
  ck_assert_str_eq(a, "sat 1\nq 20000\nend\n");
  free(a);
  parts[N + 1] = eq(last, I(3));
  a = ask_helper(ax_term_mk_and(tc, N + 2, parts), &last, 1, &pid);
  ck_assert_str_eq(a, "unsat\nend\n");
  free(a);
  free(parts);
}
END_TEST

static Suite *helper_suite(void) {
  Suite *s = suite_create("helper");
  TCase *t = tcase_create("helper");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_same_answer_as_here);
  tcase_add_test(t, test_one_helper_replaced_when_killed);
  tcase_add_test(t, test_child_forks_its_own);
  tcase_add_test(t, test_big_query);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(helper_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
