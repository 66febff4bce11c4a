/* check_portfolio.c — two solvers on one query (smt/portfolio.c): the race returns
 * the first definite answer with its model and ends the loser with everything it started;
 * the cross-check answers only when both solvers answer and agree, and reports a
 * disagreement with both answers and a query file that reproduces it. Never UNSAT from a
 * solver that crashed, hung, lied alone or said nothing. Real z3 and cvc5; fake solvers are
 * shell scripts. Also: numbered dump files (solver.h dump_prefix/dump_seq). */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "semantics/term.h"
#include "smt/helper.h"
#include "smt/solver.h"

static AxTermCtx *tc;
static char reason[1024];
static char tmpdir[64];
static const AxTerm *x, *sat_q, *unsat_q;

static void mk_tmpdir(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/axle-portfolio-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

static void setup(void) {
  tc = ax_term_ctx_new();
  reason[0] = '\0';
  x = ax_term_mk_var(tc, "x", AX_SORT_INT);
  /* x > 41 and x < 43: sat, x = 42 */
  sat_q = ax_term_mk_and2(tc, ax_term_mk_gt(tc, x, ax_term_mk_int_si(tc, 41)),
                          ax_term_mk_lt(tc, x, ax_term_mk_int_si(tc, 43)));
  /* x > 1 and x < 1: unsat */
  unsat_q = ax_term_mk_and2(tc, ax_term_mk_gt(tc, x, ax_term_mk_int_si(tc, 1)),
                            ax_term_mk_lt(tc, x, ax_term_mk_int_si(tc, 1)));
}

static void teardown(void) { ax_term_ctx_free(tc); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *script(const char *name, const char *body) {
  static char path[8][128];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, 128, "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  ck_assert_int_eq(chmod(p, 0755), 0);
  return p;
}

static AxSmtResult check(AxSolverKind kind, bool cross, const char *binary, unsigned ms,
                         const AxTerm *q, AxModel **m, AxSolverLog *log) {
  AxSolverOpts o = {.kind = kind, .timeout_ms = ms, .binary = binary, .cross_check = cross,
                    .log = log};
  return ax_solver_check(&o, tc, q, &x, 1, m, reason, sizeof reason);
}

static void expect_42(AxModel *m) {
  mpz_t v;
  mpz_init(v);
  ck_assert_ptr_nonnull(m);
  ck_assert(ax_model_int(m, 0, v));
  ck_assert_int_eq(mpz_get_si(v), 42);
  mpz_clear(v);
  ax_model_free(m);
}

/* No process of ours is left but the z3 helper, which stays for the next query by design
 * (helper.h): the racers and their solvers are reaped or gone, and once the helper is
 * killed there is no child at all. The helper is alive and answers, or there is none. */
static void expect_no_children(void) {
  int status = ax_helper_kill();
  ck_assert_msg(status == -1 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
                "the z3 helper had ended by itself (status %d)", status);
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}

/* The pid a fake solver wrote to file, or 0. */
static pid_t pid_in(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) return 0;
  int pid = 0;
  if (fscanf(f, "%d", &pid) != 1) pid = 0;
  fclose(f);
  return pid;
}

static bool gone(pid_t pid) {
  char path[64], buf[256] = "";
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return true;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  const char *paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] == 'Z';
}

START_TEST(test_real_solvers_agree) {
  /* the portfolio and the cross-check of z3 and cvc5 (and of z3 and the z3 binary) */
  for (int cross = 0; cross < 2; cross++)
    for (int b = 0; b < 2; b++) {
      const char *bin = b ? "z3" : "cvc5";
      AxModel *m = NULL;
      AxSolverLog log = {0};
      ck_assert_msg(check(AX_SOLVER_PORTFOLIO, cross, bin, 30000, sat_q, &m, &log) == AX_SMT_SAT,
                    "%s: %s", bin, reason);
      expect_42(m);
      m = (AxModel *)1;
      ck_assert_msg(check(AX_SOLVER_PORTFOLIO, cross, bin, 30000, unsat_q, &m, &log) ==
                        AX_SMT_UNSAT,
                    "%s: %s", bin, reason);
      ck_assert_ptr_null(m);
      ck_assert_int_eq(log.disagreements, 0);
    }
  /* --cross-check whatever the kind says */
  AxModel *m = NULL;
  ck_assert_int_eq(check(AX_SOLVER_Z3, true, "cvc5", 30000, sat_q, &m, NULL), AX_SMT_SAT);
  expect_42(m);
  expect_no_children();
}
END_TEST

START_TEST(test_race_ends_the_loser) {
  /* a solver that never answers, and starts a child that would outlive it */
  char pidfile[128], cmd[512];
  snprintf(pidfile, sizeof pidfile, "%s/sleeper.pid", tmpdir);
  snprintf(cmd, sizeof cmd, "sleep 300 & echo $! > %s; wait", pidfile);
  const char *hang = script("hang", cmd);
  double t0 = now_s();
  AxModel *m = NULL;
  ck_assert_msg(check(AX_SOLVER_PORTFOLIO, false, hang, 20000, sat_q, &m, NULL) == AX_SMT_SAT,
                "%s", reason);
  expect_42(m);
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, false, hang, 20000, unsat_q, NULL, NULL),
                   AX_SMT_UNSAT);
  double dt = now_s() - t0;
  ck_assert_msg(dt < 5, "z3's answers took %.1f s: the loser was waited for", dt);
  pid_t sleeper = pid_in(pidfile);
  ck_assert_int_gt(sleeper, 0);
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  ck_assert_msg(gone(sleeper), "the loser's child %d survived", (int)sleeper);
  expect_no_children();

  /* a crashing or babbling binary: z3 answers alone */
  const char *crash = script("crash", "kill -SEGV $$");
  const char *garbage = script("garbage", "echo 'hello world'");
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, false, crash, 5000, unsat_q, NULL, NULL),
                   AX_SMT_UNSAT);
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, false, garbage, 5000, unsat_q, NULL, NULL),
                   AX_SMT_UNSAT);
  /* a binary that says "unknown" at once does not win the race */
  const char *unknown = script("unknown", "echo unknown");
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, false, unknown, 5000, unsat_q, NULL, NULL),
                   AX_SMT_UNSAT);
  expect_no_children();
}
END_TEST

START_TEST(test_helper_killed_mid_query) {
  /* z3's helper dies while z3 works (x^3 + y^3 = z^3 in positive integers keeps it busy):
   * the fake binary kills every other child of the process that started it, then says
   * unknown. The query is UNKNOWN, saying how z3's process ended — never unsat — and
   * the next query is answered by a new helper. */
  const AxTerm *y = ax_term_mk_var(tc, "y", AX_SORT_INT), *z = ax_term_mk_var(tc, "z", AX_SORT_INT);
  const AxTerm *x3 = ax_term_mk_mul(tc, 3, (const AxTerm *[]){x, x, x});
  const AxTerm *y3 = ax_term_mk_mul(tc, 3, (const AxTerm *[]){y, y, y});
  const AxTerm *z3 = ax_term_mk_mul(tc, 3, (const AxTerm *[]){z, z, z});
  const AxTerm *one = ax_term_mk_int_si(tc, 1);
  const AxTerm *parts[] = {ax_term_mk_le(tc, one, x), ax_term_mk_le(tc, one, y),
                           ax_term_mk_le(tc, one, z),
                           ax_term_mk_eq(tc, ax_term_mk_add2(tc, x3, y3), z3)};
  const AxTerm *fermat = ax_term_mk_and(tc, 4, parts);
  const char *killer = script("killer",
      "sleep 0.3\n"
      "for d in /proc/[0-9]*; do\n"
      "  p=${d#/proc/}\n"
      "  [ \"$p\" = \"$$\" ] && continue\n"
      "  [ \"$(awk '{print $4}' $d/stat 2>/dev/null)\" = \"$PPID\" ] && kill -9 $p\n"
      "done\n"
      "echo unknown");
  AxSolverOpts o = {.kind = AX_SOLVER_PORTFOLIO, .timeout_ms = 20000, .binary = killer,
                    .cross_check = true, .confirm = true, .confirm_grace_ms = 2000};
  ck_assert_int_eq(ax_solver_check(&o, tc, fermat, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNKNOWN);
  ck_assert_msg(strstr(reason, "z3: its process killed by SIGKILL (signal 9)"), "reason: %s", reason);
  /* a new helper for the next query */
  AxModel *m = NULL;
  ck_assert_msg(check(AX_SOLVER_PORTFOLIO, true, "cvc5", 30000, sat_q, &m, NULL) == AX_SMT_SAT,
                "%s", reason);
  expect_42(m);
  expect_no_children();
}
END_TEST

START_TEST(test_cross_check_disagreement) {
  /* a liar: unsat to everything */
  const char *liar = script("liar", "echo unsat");
  AxSolverLog log = {0};
  AxModel *m = (AxModel *)1;
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, true, liar, 10000, sat_q, &m, &log),
                   AX_SMT_UNKNOWN);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(log.disagreements, 1);
  ck_assert_str_eq(log.first, reason);
  const char *prefix = "SOLVERS DISAGREE: z3 says sat, liar says unsat; query: ";
  ck_assert_msg(strncmp(reason, prefix, strlen(prefix)) == 0, "%s", reason);
  /* the query file reproduces z3's side of it */
  const char *file = reason + strlen(prefix);
  char cmd[1200], out[64] = "";
  snprintf(cmd, sizeof cmd, "z3 %s", file);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(fgets(out, sizeof out, p));
  pclose(p);
  ck_assert_str_eq(out, "sat\n");
  unlink(file);
  /* agreement on the unsat query is an answer */
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, true, liar, 10000, unsat_q, NULL, &log),
                   AX_SMT_UNSAT);
  ck_assert_int_eq(log.disagreements, 1);
  expect_no_children();
}
END_TEST

START_TEST(test_cross_check_needs_both) {
  const char *crash = script("crash", "kill -SEGV $$");
  const char *hang = script("hang", "exec sleep 300");
  const char *garbage = script("garbage", "echo 'hello world'");
  AxSolverLog log = {0};
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, true, crash, 5000, unsat_q, NULL, &log),
                   AX_SMT_UNKNOWN);
  ck_assert_msg(strncmp(reason, "cross-check: crash gave no answer (solver crashed (signal 11)",
                        61) == 0, "%s", reason);
  ck_assert_ptr_nonnull(strstr(reason, "; z3 said unsat"));
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, true, garbage, 5000, unsat_q, NULL, &log),
                   AX_SMT_UNKNOWN);
  double t0 = now_s();
  ck_assert_int_eq(check(AX_SOLVER_PORTFOLIO, true, hang, 1000, unsat_q, NULL, &log),
                   AX_SMT_UNKNOWN);
  ck_assert_msg(now_s() - t0 < 8, "the hanging solver held the check %.1f s", now_s() - t0);
  ck_assert_ptr_nonnull(strstr(reason, "timeout after 1 s"));
  ck_assert_int_eq(log.disagreements, 0);   /* no answer is no disagreement */
  expect_no_children();
}
END_TEST

START_TEST(test_exp_is_not_z3s_to_refute) {
  /* exp(r) <= 2 with r = 1: unsat (e > 2), which cvc5 knows; to z3 exp is uninterpreted
   * (the solver layer tells it only exp > 0 and exp(u) exp(v) = exp(u + v), solver.c), so
   * its "sat" is no counterexample and must neither win the race nor contradict cvc5 */
  const AxTerm *r = ax_term_mk_var(tc, "r", AX_SORT_REAL);
  const AxTerm *q = ax_term_mk_and2(tc, ax_term_mk_eq(tc, r, ax_term_mk_real_si(tc, 1, 1)),
                                    ax_term_mk_le(tc, ax_term_mk_exp(tc, r), ax_term_mk_real_si(tc, 2, 1)));
  AxSolverOpts o = {.kind = AX_SOLVER_PORTFOLIO, .timeout_ms = 10000, .binary = "cvc5"};
  ck_assert_int_eq(ax_solver_check(&o, tc, q, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNSAT);
  AxSolverLog log = {0};
  o.cross_check = true;
  o.log = &log;
  ck_assert_int_eq(ax_solver_check(&o, tc, q, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNKNOWN);
  ck_assert_int_eq(log.disagreements, 0);
  ck_assert_ptr_nonnull(strstr(reason, "z3 cannot decide this query"));
  /* with no other answer, z3's candidate is what z3 alone gives: sat, for the replay */
  o.cross_check = false;
  o.binary = script("crash", "kill -SEGV $$");
  ck_assert_int_eq(ax_solver_check(&o, tc, q, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_SAT);
  expect_no_children();
}
END_TEST

/* AxSolverOpts.replay for the tests: counts its calls and says what `verdict` says. */
typedef struct Replays {
  int calls;
  bool verdict;
  const char *touch;   /* if non-NULL, a file created at the first call */
} Replays;

static bool fake_replay(void *ctx, const AxModel *m) {
  Replays *r = ctx;
  ck_assert_ptr_nonnull(m);
  if (r->calls++ == 0 && r->touch) {
    FILE *f = fopen(r->touch, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
  }
  return r->verdict;
}

/* --solver both's options with a replay that says `verdict`, and no time limit: a wait
 * for a solver that never answers would never end (the test's own timeout catches it),
 * so what is asserted does not depend on speed. */
static AxSolverOpts eager_opts(const char *binary, Replays *rp, AxSolverLog *log) {
  return (AxSolverOpts){.kind = AX_SOLVER_PORTFOLIO, .binary = binary, .cross_check = true,
                        .confirm = true, .confirm_grace_ms = 2000, .log = log,
                        .replay = fake_replay, .replay_ctx = rp};
}

/* exp(r) >= 2 with r = 1: sat (e > 2); to z3, exp is uninterpreted, so its sat is only a
 * candidate (a model of r) */
static const AxTerm *exp_sat_query(const AxTerm **r) {
  *r = ax_term_mk_var(tc, "r", AX_SORT_REAL);
  return ax_term_mk_and2(tc, ax_term_mk_eq(tc, *r, ax_term_mk_real_si(tc, 1, 1)),
                         ax_term_mk_ge(tc, ax_term_mk_exp(tc, *r), ax_term_mk_real_si(tc, 2, 1)));
}

START_TEST(test_replayed_candidate_ends_the_wait) {
  /* z3's candidate on exp used to wait out the other solver's time limit; a candidate the
   * caller's replay confirms ends the query at once, the hanging solver is stopped with
   * its children, and no unsat counter moves */
  char pidfile[128], cmd[512];
  snprintf(pidfile, sizeof pidfile, "%s/slow.pid", tmpdir);
  snprintf(cmd, sizeof cmd, "sleep 300 & echo $! > %s; wait", pidfile);
  const char *slow = script("slow", cmd);
  const AxTerm *r;
  const AxTerm *q = exp_sat_query(&r);
  Replays rp = {.verdict = true};
  AxSolverLog log = {0};
  AxSolverOpts o = eager_opts(slow, &rp, &log);
  AxModel *m = NULL;
  ck_assert_msg(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason) == AX_SMT_SAT, "%s",
                reason);
  ck_assert_int_eq(rp.calls, 1);
  mpq_t v;
  mpq_init(v);
  ck_assert_ptr_nonnull(m);
  ck_assert(ax_model_real(m, 0, v));
  ck_assert_int_eq(mpq_cmp_si(v, 1, 1), 0);
  mpq_clear(v);
  ax_model_free(m);
  ck_assert_int_eq(log.unsat_both + log.unsat_z3_only + log.unsat_binary_only, 0);
  ck_assert_int_eq(log.disagreements, 0);
  pid_t sleeper = pid_in(pidfile);
  if (sleeper > 0) {   /* the script may not have started its child before it was stopped */
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    ck_assert_msg(gone(sleeper), "the slow solver's child %d survived", (int)sleeper);
  }
  /* the plain portfolio too */
  rp.calls = 0;
  o.cross_check = o.confirm = false;
  ck_assert_int_eq(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason), AX_SMT_SAT);
  ck_assert_int_eq(rp.calls, 1);
  ax_model_free(m);
  expect_no_children();
}
END_TEST

START_TEST(test_unreplayed_candidate_waits) {
  /* a candidate that does not replay changes only the wait: the other solver's answer is
   * still taken as before — its unsat against z3's candidate on exp is the binary's alone
   * (this fake one lies; the point is the bookkeeping) */
  const AxTerm *r;
  const AxTerm *q = exp_sat_query(&r);
  /* the other solver answers only after the replay, so the order is fixed */
  char touch[128], cmd[512];
  snprintf(touch, sizeof touch, "%s/replayed", tmpdir);
  snprintf(cmd, sizeof cmd, "while [ ! -e %s ]; do sleep 0.05; done; echo unsat", touch);
  Replays rp = {.verdict = false, .touch = touch};
  AxSolverLog log = {0};
  AxSolverOpts o = eager_opts(script("unsat", cmd), &rp, &log);
  AxModel *m = (AxModel *)1;
  ck_assert_int_eq(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason), AX_SMT_UNSAT);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(rp.calls, 1);
  ck_assert_int_eq(log.unsat_binary_only, 1);   /* z3 could not decide it: the binary alone */
  ck_assert_int_eq(log.unsat_both + log.unsat_z3_only + log.disagreements, 0);
  /* with no other answer, z3's candidate goes back to the caller (who replays it again and
   * finds nothing): as without eager replay */
  o.binary = script("crash", "kill -SEGV $$");
  rp.calls = 0;
  ck_assert_int_eq(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason), AX_SMT_SAT);
  ck_assert_int_eq(rp.calls, 1);
  ax_model_free(m);
  /* z3's exact sat that does not replay: the binary has the grace to find another model,
   * then z3's model stands (a hanging binary, stopped after the grace) */
  rp.calls = 0;
  o.binary = script("hang", "exec sleep 300");
  ck_assert_int_eq(ax_solver_check(&o, tc, sat_q, &x, 1, &m, reason, sizeof reason), AX_SMT_SAT);
  ck_assert_int_eq(rp.calls, 1);
  expect_42(m);
  ck_assert_int_eq(log.unsat_binary_only, 1);
  ck_assert_int_eq(log.unsat_both + log.unsat_z3_only + log.disagreements, 0);
  expect_no_children();
}
END_TEST

/* AxSolverOpts.refute for the tests: counts its calls and says what `verdict` says. */
typedef struct Refutes {
  int calls;
  bool verdict;
} Refutes;

static bool fake_refute(void *ctx, const AxModel *m) {
  Refutes *r = ctx;
  ck_assert_ptr_nonnull(m);
  r->calls++;
  return r->verdict;
}

START_TEST(test_refuted_early_ends_the_wait) {
  /* z3's candidate on exp that does not replay, the other solver hanging: the caller's own
   * refutation ends the query at once, UNKNOWN with *refuted set, the hanging solver
   * stopped with its children, no counter moved */
  char pidfile[128], cmd[512];
  snprintf(pidfile, sizeof pidfile, "%s/slow2.pid", tmpdir);
  snprintf(cmd, sizeof cmd, "sleep 300 & echo $! > %s; wait", pidfile);
  const AxTerm *r;
  const AxTerm *q = exp_sat_query(&r);
  Replays rp = {.verdict = false};
  Refutes rf = {.verdict = true};
  bool refuted = false;
  AxSolverLog log = {0};
  AxSolverOpts o = eager_opts(script("slow2", cmd), &rp, &log);
  o.refute = fake_refute;
  o.refute_ctx = &rf;
  o.refuted = &refuted;
  AxModel *m = (AxModel *)1;
  ck_assert_int_eq(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason), AX_SMT_UNKNOWN);
  ck_assert_ptr_null(m);
  ck_assert(refuted);
  ck_assert_int_eq(rp.calls, 1);
  ck_assert_int_eq(rf.calls, 1);
  ck_assert_ptr_nonnull(strstr(reason, "refuted without a model"));
  ck_assert_int_eq(log.unsat_both + log.unsat_z3_only + log.unsat_binary_only + log.disagreements, 0);
  pid_t sleeper = pid_in(pidfile);
  if (sleeper > 0) {
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    ck_assert_msg(gone(sleeper), "the slow solver's child %d survived", (int)sleeper);
  }
  /* a refutation that finds nothing changes nothing: the other solver's unsat, which comes
   * only after the replay, is taken as before (the binary's alone) */
  char touch[128];
  snprintf(touch, sizeof touch, "%s/replayed2", tmpdir);
  snprintf(cmd, sizeof cmd, "while [ ! -e %s ]; do sleep 0.05; done; echo unsat", touch);
  rp = (Replays){.verdict = false, .touch = touch};
  rf = (Refutes){.verdict = false};
  refuted = false;
  o.binary = script("unsat2", cmd);
  ck_assert_int_eq(ax_solver_check(&o, tc, q, &r, 1, &m, reason, sizeof reason), AX_SMT_UNSAT);
  ck_assert_ptr_null(m);
  ck_assert(!refuted);
  ck_assert_int_eq(rf.calls, 1);
  ck_assert_int_eq(log.unsat_binary_only, 1);
  expect_no_children();
}
END_TEST

START_TEST(test_strict_cross_check_does_not_replay) {
  /* the strict cross-check wants both answers: no eager replay, no model handed over early */
  Replays rp = {.verdict = true};
  AxSolverLog log = {0};
  AxSolverOpts o = eager_opts("cvc5", &rp, &log);
  o.confirm = false;
  o.timeout_ms = 30000;
  AxModel *m = NULL;
  ck_assert_int_eq(ax_solver_check(&o, tc, sat_q, &x, 1, &m, reason, sizeof reason), AX_SMT_SAT);
  ck_assert_int_eq(rp.calls, 0);
  expect_42(m);
  /* no model asked for: nothing to replay */
  o.confirm = true;
  ck_assert_int_eq(ax_solver_check(&o, tc, sat_q, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_SAT);
  ck_assert_int_eq(rp.calls, 0);
  expect_no_children();
}
END_TEST

START_TEST(test_numbered_dumps) {
  char prefix[128], path[160];
  snprintf(prefix, sizeof prefix, "%s/r.int.bounds", tmpdir);
  unsigned seq = 0;
  AxSolverOpts o = {.kind = AX_SOLVER_PORTFOLIO, .timeout_ms = 10000, .binary = "cvc5",
                    .dump_prefix = prefix, .dump_seq = &seq, .dump_note = "rule r [int] of t.axl"};
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(ax_solver_check(&o, tc, unsat_q, NULL, 0, NULL, reason, sizeof reason),
                     AX_SMT_UNSAT);
  ck_assert_uint_eq(seq, 3);
  for (int i = 1; i <= 3; i++) {
    snprintf(path, sizeof path, "%s-%d.smt2", prefix, i);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "; rule r [int] of t.axl\n");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "; back-end: portfolio of z3 API and cvc5, time limit: 10 s\n");
    fclose(f);
  }
  o.dump_seq = NULL;   /* unnumbered: "<prefix>.smt2" */
  ck_assert_int_eq(ax_solver_check(&o, tc, unsat_q, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNSAT);
  snprintf(path, sizeof path, "%s.smt2", prefix);
  ck_assert_int_eq(access(path, R_OK), 0);
}
END_TEST

static Suite *portfolio_suite(void) {
  Suite *s = suite_create("portfolio");
  TCase *t = tcase_create("portfolio");
  tcase_add_unchecked_fixture(t, mk_tmpdir, rm_tmpdir);
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_real_solvers_agree);
  tcase_add_test(t, test_helper_killed_mid_query);
  tcase_add_test(t, test_cross_check_disagreement);
  tcase_add_test(t, test_exp_is_not_z3s_to_refute);
  tcase_add_test(t, test_replayed_candidate_ends_the_wait);
  tcase_add_test(t, test_unreplayed_candidate_waits);
  tcase_add_test(t, test_refuted_early_ends_the_wait);
  tcase_add_test(t, test_strict_cross_check_does_not_replay);
  tcase_add_test(t, test_numbered_dumps);
  suite_add_tcase(s, t);
  /* Tagged "timing" (ctest label timing: `make test`, not `make check`): the loser of a
   * race is not waited for, a hanging solver holds a cross-check no longer than its 1 s
   * limit — both asserted as wall-clock bounds, which a loaded machine can break. */
  TCase *timing = tcase_create("time limits");
  tcase_set_tags(timing, "timing");
  tcase_add_unchecked_fixture(timing, mk_tmpdir, rm_tmpdir);
  tcase_add_checked_fixture(timing, setup, teardown);
  tcase_set_timeout(timing, 60);
  tcase_add_test(timing, test_race_ends_the_loser);
  tcase_add_test(timing, test_cross_check_needs_both);
  suite_add_tcase(s, timing);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(portfolio_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
