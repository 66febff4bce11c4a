/* check_smt.c — the solver interface against real solvers: libz3 in-process, and cvc5 and
 * the z3 binary through pipes; fake solvers (shell scripts) for every failure path; the
 * SMT-LIB printer and answer reader. No mocks: an answer here is a solver's answer. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "semantics/term.h"
#include "smt/smtlib.h"
#include "smt/solver.h"

typedef struct Backend {
  const char *label;
  AxSolverKind kind;
  const char *binary;
} Backend;

static const Backend backends[] = {
  {"z3 API", AX_SOLVER_Z3, NULL},
  {"cvc5 pipe", AX_SOLVER_PIPE, "cvc5"},
  {"z3 pipe", AX_SOLVER_PIPE, "z3"},
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

static AxTermCtx *tc;
static char reason[512];

static void setup(void) {
  tc = ax_term_ctx_new();
  reason[0] = '\0';
}

static void teardown(void) { ax_term_ctx_free(tc); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static AxSmtResult run_with(const Backend *b, unsigned timeout_ms, const AxTerm *f,
                            const AxTerm *const *watch, size_t n, AxModel **m) {
  AxSolverOpts o = {.kind = b->kind, .timeout_ms = timeout_ms, .binary = b->binary};
  return ax_solver_check(&o, tc, f, watch, n, m, reason, sizeof reason);
}

static AxSmtResult run(int i, const AxTerm *f, const AxTerm *const *watch, size_t n,
                       AxModel **m) {
  return run_with(&backends[i], 60000, f, watch, n, m);
}

static const AxTerm *ivar(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_INT); }
static const AxTerm *rvar(const char *n) { return ax_term_mk_var(tc, n, AX_SORT_REAL); }
static const AxTerm *I(long v) { return ax_term_mk_int_si(tc, v); }
static const AxTerm *Q(long n, unsigned long d) { return ax_term_mk_real_si(tc, n, d); }
static const AxTerm *eq(const AxTerm *a, const AxTerm *b) { return ax_term_mk_eq(tc, a, b); }
static const AxTerm *and_(size_t n, const AxTerm *const *a) { return ax_term_mk_and(tc, n, a); }

static void expect_int(const AxModel *m, size_t i, const char *decimal, const char *label) {
  mpz_t v, want;
  mpz_inits(v, want, NULL);
  ck_assert_msg(ax_model_int(m, i, v), "%s: no integer value for watch %zu", label, i);
  mpz_set_str(want, decimal, 10);
  char got[128];
  gmp_snprintf(got, sizeof got, "%Zd", v);
  ck_assert_msg(mpz_cmp(v, want) == 0, "%s: watch %zu = %s, want %s", label, i, got, decimal);
  mpz_clears(v, want, NULL);
}

static void expect_real(const AxModel *m, size_t i, const char *fraction, const char *label) {
  mpq_t v, want;
  mpq_inits(v, want, NULL);
  ck_assert_msg(ax_model_real(m, i, v), "%s: no rational value for watch %zu", label, i);
  mpq_set_str(want, fraction, 10);
  mpq_canonicalize(want);
  char got[128];
  gmp_snprintf(got, sizeof got, "%Qd", v);
  ck_assert_msg(mpq_equal(v, want), "%s: watch %zu = %s, want %s", label, i, got, fraction);
  mpq_clears(v, want, NULL);
}

/* --- Every back-end ---------------------------------------------------------------------------- */

/* IEEE mode's FloatingPoint terms: x * 1 = x (unsat negation), x + 0 = x only fails at -0
 * (the model's bits), (to_fp RNE 1/10) is 0x3dcccccd. f16 needs cvc5's fp-exp, written into
 * the query; the z3 binary does not know it, so it gets f32. */
START_TEST(test_floating_point) {
  const Backend *b = &backends[_i];
  AxSort so = _i == 2 ? AX_SORT_F32 : AX_SORT_F16;
  const AxTerm *x = ax_term_mk_var(tc, "x", so);
  const AxTerm *one = ax_term_mk_fp(tc, AX_TERM_FP_OF_REAL, Q(1, 1), ax_term_mk_fp_bits(tc, so, 0));
  const AxTerm *zero = ax_term_mk_fp_bits(tc, so, 0);
  const AxTerm *mul = ax_term_mk_fp(tc, AX_TERM_FP_MUL, x, one);
  ck_assert_int_eq(run(_i, ax_term_mk_not(tc, eq(mul, x)), NULL, 0, NULL), AX_SMT_UNSAT);
  const AxTerm *add = ax_term_mk_fp(tc, AX_TERM_FP_ADD, x, zero);
  AxModel *m = NULL;
  ck_assert_int_eq(run(_i, ax_term_mk_not(tc, eq(add, x)), &x, 1, &m), AX_SMT_SAT);
  expect_real(m, 0, so == AX_SORT_F32 ? "2147483648" : "32768", b->label);   /* -0 */
  ax_model_free(m);
  const AxTerm *tenth = ax_term_mk_fp(tc, AX_TERM_FP_OF_REAL, Q(1, 10), ax_term_mk_fp_bits(tc, AX_SORT_F32, 0));
  ck_assert_int_eq(run(_i, ax_term_mk_not(tc, eq(tenth, ax_term_mk_fp_bits(tc, AX_SORT_F32, 0x3dcccccdu))), NULL, 0, NULL),
                   AX_SMT_UNSAT);
}
END_TEST

START_TEST(test_valid_is_unsat) {
  const char *label = backends[_i].label;
  const AxTerm *x = ivar("x"), *y = ivar("y");
  /* x + y = y + x, negated. */
  const AxTerm *comm = eq(ax_term_mk_add2(tc, x, y), ax_term_mk_add2(tc, y, x));
  ck_assert_msg(run(_i, ax_term_mk_not(tc, comm), NULL, 0, NULL) == AX_SMT_UNSAT, "%s: %s",
                label, reason);
  /* x > 0 and y > 0 imply x*y > 0 (nonlinear), negated. */
  const AxTerm *pos = ax_term_mk_and2(tc, ax_term_mk_gt(tc, x, I(0)), ax_term_mk_gt(tc, y, I(0)));
  const AxTerm *prod = ax_term_mk_gt(tc, ax_term_mk_mul2(tc, x, y), I(0));
  AxModel *m = (AxModel *)1;
  ck_assert_msg(run(_i, ax_term_mk_not(tc, ax_term_mk_implies(tc, pos, prod)), &x, 1, &m) ==
                    AX_SMT_UNSAT,
                "%s: %s", label, reason);
  ck_assert_ptr_null(m);   /* no model unless SAT */
  /* The trivial cases. */
  ck_assert_int_eq(run(_i, ax_term_mk_false(tc), NULL, 0, NULL), AX_SMT_UNSAT);
  ck_assert_int_eq(run(_i, ax_term_mk_true(tc), NULL, 0, NULL), AX_SMT_SAT);
}
END_TEST

START_TEST(test_sat_model_values) {
  const char *label = backends[_i].label;
  const AxTerm *x = ivar("x"), *y = ivar("y"), *r = rvar("r"), *s = rvar("s");
  const AxTerm *b = ax_term_mk_var(tc, "b", AX_SORT_BOOL);
  AxSort is = AX_SORT_INT;
  const AxFunc *f = ax_term_func(tc, "f", 1, &is, AX_SORT_INT);
  const AxTerm *f3 = ax_term_mk_app(tc, f, 1, (const AxTerm *[]){I(3)});
  const AxTerm *f4 = ax_term_mk_app(tc, f, 1, (const AxTerm *[]){I(4)});
  const AxTerm *f5 = ax_term_mk_app(tc, f, 1, (const AxTerm *[]){I(5)});
  const AxTerm *p70 = ax_term_mk_int_str(tc, "1180591620717411303424");   /* 2^70 */
  const AxTerm *conj[] = {
    eq(ax_term_mk_sub(tc, x, I(1)), p70),                              /* x = 2^70 + 1 */
    eq(ax_term_mk_add2(tc, y, ax_term_mk_int_str(tc, "18446744073709551621")), I(0)),
    eq(ax_term_mk_mul2(tc, Q(3, 1), r), Q(1, 1)),                      /* r = 1/3 */
    eq(ax_term_mk_mul2(tc, Q(3, 1), s), Q(-2, 1)),                     /* s = -2/3 */
    ax_term_mk_or2(tc, b, ax_term_mk_lt(tc, x, I(0))),                 /* b */
    eq(ax_term_mk_add2(tc, f3, f4), I(7)),
    eq(f3, I(10)),                                                     /* f(4) = -3 */
  };
  const AxTerm *watch[] = {x, y, r, s, b, f4, f5, ax_term_mk_add2(tc, x, I(1)),
                           ax_term_mk_lt(tc, r, s)};
  AxModel *m = NULL;
  ck_assert_msg(run(_i, and_(7, conj), watch, 9, &m) == AX_SMT_SAT, "%s: %s", label, reason);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(ax_model_size(m), 9);
  expect_int(m, 0, "1180591620717411303425", label);
  expect_int(m, 1, "-18446744073709551621", label);
  expect_real(m, 2, "1/3", label);
  expect_real(m, 3, "-2/3", label);
  bool v = false;
  ck_assert(ax_model_bool(m, 4, &v) && v);
  expect_int(m, 5, "-3", label);
  mpz_t z;
  mpz_init(z);
  /* f(5) is unconstrained: model completion still gives it a value. */
  ck_assert_msg(ax_model_int(m, 6, z), "%s: f(5) has no value", label);
  expect_int(m, 7, "1180591620717411303426", label);
  ck_assert(ax_model_bool(m, 8, &v) && !v);
  /* Wrong kinds and indices are refused, never invented. */
  ck_assert(!ax_model_int(m, 2, z));           /* Real slot */
  ck_assert(!ax_model_bool(m, 0, &v));
  ck_assert(!ax_model_int(m, 9, z));
  mpq_t q;
  mpq_init(q);
  ck_assert(ax_model_real(m, 0, q));           /* an Int is a rational too */
  ck_assert(!ax_model_real(m, 4, q));
  mpq_clear(q);
  mpz_clear(z);
  ax_model_free(m);
  /* SAT without asking for a model. */
  ck_assert_int_eq(run(_i, and_(7, conj), watch, 9, NULL), AX_SMT_SAT);
}
END_TEST

START_TEST(test_nonlinear_int) {
  const char *label = backends[_i].label;
  const AxTerm *x = ivar("x"), *y = ivar("y");
  /* 391 = 17 * 23, both prime: the only solution with 1 < x < y. */
  const AxTerm *conj[] = {eq(ax_term_mk_mul2(tc, x, y), I(391)), ax_term_mk_lt(tc, I(1), x),
                          ax_term_mk_lt(tc, x, y)};
  AxModel *m = NULL;
  ck_assert_msg(run(_i, and_(3, conj), (const AxTerm *[]){x, y}, 2, &m) == AX_SMT_SAT, "%s: %s",
                label, reason);
  expect_int(m, 0, "17", label);
  expect_int(m, 1, "23", label);
  ax_model_free(m);
  /* And no factorisation of a prime. */
  const AxTerm *prime[] = {eq(ax_term_mk_mul2(tc, x, y), I(97)), ax_term_mk_lt(tc, I(1), x),
                           ax_term_mk_lt(tc, I(1), y)};
  ck_assert_msg(run(_i, and_(3, prime), NULL, 0, NULL) == AX_SMT_UNSAT, "%s: %s", label, reason);
}
END_TEST

START_TEST(test_z3_core_gives_way) {
  /* x·y = 999983 · 1000003 with 2 <= x, y <= 2^20: plain arithmetic, so z3.c asks z3's plain
   * SMT core first (SIMPLE_MS), which finds no factor in 20 s; the default solver, next
   * with the rest of the time, bit-blasts the bounded product and does in about 2 s. SAT
   * with the factors — UNKNOWN would mean the first try's interruption was the end. */
  const AxTerm *x = ivar("x"), *y = ivar("y"), *big = I(1 << 20);
  const AxTerm *parts[] = {ax_term_mk_le(tc, I(2), x), ax_term_mk_le(tc, x, big),
                           ax_term_mk_le(tc, I(2), y), ax_term_mk_le(tc, y, big),
                           eq(ax_term_mk_mul(tc, 2, (const AxTerm *[]){x, y}),
                              ax_term_mk_int_str(tc, "999985999949"))};
  const AxTerm *w[] = {x, y};
  AxModel *m = NULL;
  ck_assert_msg(run_with(&backends[0], 30000, and_(5, parts), w, 2, &m) == AX_SMT_SAT, "%s",
                reason);
  mpz_t a, b;
  mpz_inits(a, b, NULL);
  ck_assert(ax_model_int(m, 0, a) && ax_model_int(m, 1, b));
  ck_assert_msg(mpz_cmp_ui(b, 999983) == 0 || mpz_cmp_ui(b, 1000003) == 0, "y is no factor");
  mpz_mul(a, a, b);
  ck_assert_int_eq(mpz_cmp_ui(a, 999985999949UL), 0);
  mpz_clears(a, b, NULL);
  ax_model_free(m);
}
END_TEST

/* A caller with descriptors 0..2 closed (a daemon, `axle ... <&- >&- 2>&-`): the pipes to
 * cvc5 then take 0..2 themselves, and posix_spawn's dup2s onto 0..2 must still give the
 * solver its stdin, stdout and stderr. (This glibc gets it right even without pipe.c's
 * above_stdio — checked — which is there for those whose adddup2(fd, fd) leaves fd
 * close-on-exec.) In a child of the test, so that the test's own 0..2 stay: sat with
 * x = 42, then unsat. */
START_TEST(test_pipe_with_stdio_closed) {
  const AxTerm *x = ivar("x");
  const AxTerm *sat = ax_term_mk_and2(tc, ax_term_mk_lt(tc, I(41), x), ax_term_mk_lt(tc, x, I(43)));
  const AxTerm *unsat = ax_term_mk_and2(tc, ax_term_mk_lt(tc, I(1), x), ax_term_mk_lt(tc, x, I(1)));
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(0);
    close(1);
    close(2);
    AxModel *m = NULL;
    mpz_t v;
    mpz_init(v);
    bool ok = run_with(&backends[1], 30000, sat, &x, 1, &m) == AX_SMT_SAT && m &&
              ax_model_int(m, 0, v) && mpz_cmp_ui(v, 42) == 0 &&
              run_with(&backends[1], 30000, unsat, NULL, 0, NULL) == AX_SMT_UNSAT;
    _exit(ok ? 0 : 1);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "with 0..2 closed, cvc5 through pipes did not answer sat (x = 42) and unsat");
}
END_TEST

START_TEST(test_euclidean_div_mod) {
  const char *label = backends[_i].label;
  /* Variables, so that the solver (not our folding) computes; our folding is the oracle. */
  static const long cases[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {-1, 5}, {-6, 3}};
  enum { N = sizeof cases / sizeof cases[0] };
  const AxTerm *conj[2 * N], *watch[2 * N];
  char name[16];
  for (int k = 0; k < N; k++) {
    snprintf(name, sizeof name, "a%d", k);
    const AxTerm *a = ivar(name);
    snprintf(name, sizeof name, "b%d", k);
    const AxTerm *b = ivar(name);
    conj[2 * k] = eq(a, I(cases[k][0]));
    conj[2 * k + 1] = eq(b, I(cases[k][1]));
    watch[2 * k] = ax_term_mk_div(tc, a, b);
    watch[2 * k + 1] = ax_term_mk_mod(tc, a, b);
  }
  AxModel *m = NULL;
  ck_assert_msg(run(_i, and_(2 * N, conj), watch, 2 * N, &m) == AX_SMT_SAT, "%s: %s", label,
                reason);
  for (int k = 0; k < N; k++) {
    mpz_t want;
    mpz_init(want);
    char dec[32];
    ax_term_int_value(ax_term_mk_div(tc, I(cases[k][0]), I(cases[k][1])), want);
    gmp_snprintf(dec, sizeof dec, "%Zd", want);
    expect_int(m, 2 * k, dec, label);
    ax_term_int_value(ax_term_mk_mod(tc, I(cases[k][0]), I(cases[k][1])), want);
    gmp_snprintf(dec, sizeof dec, "%Zd", want);
    expect_int(m, 2 * k + 1, dec, label);
    mpz_clear(want);
  }
  ax_model_free(m);
}
END_TEST

START_TEST(test_timeout) {
  const char *label = backends[_i].label;
  /* x^3 + y^3 + z^3 = 114: whether it has a solution is an open problem, so no solver
   * settles it; both keep searching until stopped. */
  const AxTerm *x = ivar("x"), *y = ivar("y"), *z = ivar("z");
  const AxTerm *cube[3];
  const AxTerm *v[3] = {x, y, z};
  for (int i = 0; i < 3; i++) cube[i] = ax_term_mk_mul(tc, 3, (const AxTerm *[]){v[i], v[i], v[i]});
  const AxTerm *f = eq(ax_term_mk_add(tc, 3, cube), I(114));
  double t0 = now_s();
  AxModel *m = NULL;
  AxSmtResult r = run_with(&backends[_i], 1000, f, v, 3, &m);
  double dt = now_s() - t0;
  ck_assert_msg(r == AX_SMT_UNKNOWN, "%s: %d %s", label, r, reason);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(reason, "timeout"), "%s: reason '%s'", label, reason);
  ck_assert_msg(dt < 8.0, "%s: took %.1f s", label, dt);
}
END_TEST

START_TEST(test_big_dag) {
  const char *label = backends[_i].label;
  /* t = 2^80 x as a DAG of 81 nodes (a tree of 2^81): printing must stay linear, and the
   * solver must not expand the sharing either. */
  const AxTerm *x = ivar("x");
  const AxTerm *t = x;
  for (int i = 0; i < 80; i++) t = ax_term_mk_add2(tc, t, t);
  const AxTerm *f = ax_term_mk_and2(tc, eq(t, I(0)), ax_term_mk_not(tc, eq(x, I(0))));
  ck_assert_msg(run(_i, f, NULL, 0, NULL) == AX_SMT_UNSAT, "%s: %s", label, reason);
  /* A 400-deep cascade of ite: names keep the printed nesting shallow. (Not deeper: cvc5
   * 1.0.3 needs seconds for a 1000-case cascade however it is printed.) */
  const AxTerm *k = ivar("k");
  const AxTerm *c = I(-1);
  for (int i = 0; i < 400; i++) c = ax_term_mk_ite(tc, eq(k, I(i)), I(i * 2), c);
  AxModel *m = NULL;
  ck_assert_msg(run(_i, eq(c, I(500)), (const AxTerm *[]){k}, 1, &m) == AX_SMT_SAT, "%s: %s",
                label, reason);
  expect_int(m, 0, "250", label);
  ax_model_free(m);
}
END_TEST

START_TEST(test_awkward_names) {
  const char *label = backends[_i].label;
  /* Names needing quotes, names of built-ins, one name at two sorts and as a function, and
   * a user name that looks like one of our definitions. */
  const AxTerm *spaced = ivar("a b");
  const AxTerm *absv = ivar("abs"), *expv = rvar("exp");
  const AxTerm *xi = ivar("x"), *xr = rvar("x");
  const AxTerm *s1 = ivar("s!1");
  AxSort is = AX_SORT_INT, rs = AX_SORT_REAL;
  const AxFunc *xf = ax_term_func(tc, "x", 1, &is, AX_SORT_INT);
  const AxFunc *ef = ax_term_func(tc, "exp", 1, &rs, AX_SORT_REAL);
  const AxTerm *x1 = ax_term_mk_app(tc, xf, 1, (const AxTerm *[]){I(1)});
  const AxTerm *e0 = ax_term_mk_app(tc, ef, 1, (const AxTerm *[]){Q(0, 1)});
  const AxTerm *shared = ax_term_mk_add2(tc, xi, s1);   /* used twice: a definition */
  const AxTerm *conj[] = {
    eq(spaced, I(5)), eq(absv, I(6)), eq(xi, I(7)), eq(xr, Q(1, 2)), eq(x1, I(8)),
    eq(s1, I(9)), eq(expv, Q(-5, 2)), eq(e0, Q(1, 1)), ax_term_mk_lt(tc, shared, I(100)),
    ax_term_mk_lt(tc, I(0), shared),
  };
  const AxTerm *watch[] = {spaced, absv, xi, xr, x1, s1, expv, e0, shared};
  AxModel *m = NULL;
  ck_assert_msg(run(_i, and_(10, conj), watch, 9, &m) == AX_SMT_SAT, "%s: %s", label, reason);
  expect_int(m, 0, "5", label);
  expect_int(m, 1, "6", label);
  expect_int(m, 2, "7", label);
  expect_real(m, 3, "1/2", label);
  expect_int(m, 4, "8", label);
  expect_int(m, 5, "9", label);
  expect_real(m, 6, "-5/2", label);
  expect_real(m, 7, "1", label);
  expect_int(m, 8, "16", label);
  ax_model_free(m);
}
END_TEST

START_TEST(test_abs_to_real_rdiv) {
  const char *label = backends[_i].label;
  const AxTerm *n = ivar("n"), *r = rvar("r");
  const AxTerm *conj[] = {
    eq(ax_term_mk_abs(tc, n), I(4)), ax_term_mk_lt(tc, n, I(0)),
    eq(ax_term_mk_abs(tc, r), ax_term_mk_rdiv(tc, ax_term_mk_to_real(tc, n), Q(-8, 1))),
    ax_term_mk_lt(tc, r, Q(0, 1)),
  };
  AxModel *m = NULL;
  ck_assert_msg(run(_i, and_(4, conj), (const AxTerm *[]){n, r}, 2, &m) == AX_SMT_SAT,
                "%s: %s", label, reason);
  expect_int(m, 0, "-4", label);
  expect_real(m, 1, "-1/2", label);
  ax_model_free(m);
}
END_TEST

/* --- z3 only (cvc5 1.0.3 as packaged has no complete nonlinear real arithmetic) ---------- */

START_TEST(test_irrational_has_no_value) {
  int i = _i == 0 ? 0 : 2;   /* z3 API, z3 pipe */
  const char *label = backends[i].label;
  const AxTerm *x = rvar("x");
  const AxTerm *conj[] = {eq(ax_term_mk_mul2(tc, x, x), Q(2, 1)), ax_term_mk_gt(tc, x, Q(0, 1))};
  const AxTerm *watch[] = {x, ax_term_mk_gt(tc, x, Q(1, 1))};
  AxModel *m = NULL;
  ck_assert_msg(run(i, and_(2, conj), watch, 2, &m) == AX_SMT_SAT, "%s: %s", label, reason);
  mpq_t q;
  mpq_init(q);
  ck_assert_msg(!ax_model_real(m, 0, q), "%s: sqrt(2) read as a rational", label);
  mpq_clear(q);
  bool v = false;
  ck_assert(ax_model_bool(m, 1, &v) && v);
  ax_model_free(m);
}
END_TEST

/* --- Fake solvers ------------------------------------------------------------------------------ */

/* Made and removed by the runner process (an unchecked fixture), so a failing test that
 * dies in its forked child still leaves nothing behind. */
static char tmpdir[64];

static void mk_tmpdir(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/axle-smt-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Writes an executable script tmpdir/name with body; returns its path (static). */
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

static AxSmtResult run_fake(const char *path, unsigned timeout_ms, AxModel **m) {
  const AxTerm *x = ivar("x");
  Backend b = {path, AX_SOLVER_PIPE, path};
  return run_with(&b, timeout_ms, ax_term_mk_gt(tc, x, I(0)), &x, 1, m);
}

/* Open file descriptors of this process. */
static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

/* The process is gone (or a zombie left to init). */
static bool gone(pid_t pid) {
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return true;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *close_paren = strrchr(buf, ')');
  return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

START_TEST(test_fake_solvers) {
  char crash[512], hang[512], garbage[512], error[512];
  int fds = count_fds();
  double t0 = now_s();
  ck_assert_int_eq(run_fake(script("crash", "kill -SEGV $$"), 1000, NULL), AX_SMT_UNKNOWN);
  snprintf(crash, sizeof crash, "%s", reason);
  char pidfile[128], body[256];
  snprintf(pidfile, sizeof pidfile, "%s/sleep.pid", tmpdir);
  snprintf(body, sizeof body, "sleep 100 &\necho $! > %s\nwait", pidfile);
  ck_assert_int_eq(run_fake(script("hang", body), 1000, NULL), AX_SMT_UNKNOWN);
  snprintf(hang, sizeof hang, "%s", reason);
  ck_assert_int_eq(run_fake(script("garbage", "echo 'hello world'"), 1000, NULL),
                   AX_SMT_UNKNOWN);
  snprintf(garbage, sizeof garbage, "%s", reason);
  ck_assert_int_eq(run_fake(script("error", "echo '(error \"x\")'"), 1000, NULL),
                   AX_SMT_UNKNOWN);
  snprintf(error, sizeof error, "%s", reason);
  double dt = now_s() - t0;

  ck_assert_msg(strstr(crash, "solver crashed (signal 11)"), "crash: '%s'", crash);
  ck_assert_msg(strstr(hang, "timeout after 1 s"), "hang: '%s'", hang);
  ck_assert_msg(strstr(garbage, "unparsable answer: hello world"), "garbage: '%s'", garbage);
  ck_assert_msg(strcmp(error, "solver error: x") == 0, "error: '%s'", error);
  ck_assert_str_ne(crash, hang);
  ck_assert_str_ne(garbage, error);
  ck_assert_msg(dt < 8.0, "fake solvers took %.1f s", dt);

  /* The hanging script's own child died with it (process-group kill), and no child of
   * ours is left unreaped. */
  FILE *f = fopen(pidfile, "r");
  ck_assert_ptr_nonnull(f);
  int sleeper = 0;
  ck_assert_int_eq(fscanf(f, "%d", &sleeper), 1);
  fclose(f);
  for (int k = 0; k < 100 && !gone(sleeper); k++) nanosleep(&(struct timespec){0, 10000000}, NULL);
  ck_assert_msg(gone(sleeper), "the hanging solver's child %d survived", sleeper);
  errno = 0;
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
  ck_assert_int_eq(errno, ECHILD);
  ck_assert_int_eq(count_fds(), fds);   /* every pipe end closed */
}
END_TEST

START_TEST(test_fake_answers) {
  int fds = count_fds();
  /* An error before an unsat must not let the unsat through. */
  ck_assert_int_eq(run_fake(script("err-unsat", "echo '(error \"bad assert\")'; echo unsat"),
                            5000, NULL),
                   AX_SMT_UNKNOWN);
  ck_assert_str_eq(reason, "solver error: bad assert");
  /* A clean unsat from any solver is an answer. */
  ck_assert_int_eq(run_fake(script("unsat", "read line; echo unsat"), 5000, NULL),
                   AX_SMT_UNSAT);
  /* unknown, then the reason from get-info. */
  ck_assert_int_eq(run_fake(script("unknown", "echo unknown; "
                                              "echo '(:reason-unknown \"incomplete quantifiers\")'"),
                            5000, NULL),
                   AX_SMT_UNKNOWN);
  ck_assert_str_eq(reason, "solver said unknown (incomplete quantifiers)");
  /* unknown because of its own time limit reads as a timeout. */
  ck_assert_int_eq(run_fake(script("unk-to", "echo unknown; echo '(:reason-unknown timeout)'"),
                            5000, NULL),
                   AX_SMT_UNKNOWN);
  ck_assert_str_eq(reason, "timeout after 5 s (solver: timeout)");
  /* sat, then a broken get-value answer. */
  AxModel *m = NULL;
  ck_assert_int_eq(run_fake(script("badval", "echo sat; echo '((x 5) oops'"), 5000, &m),
                   AX_SMT_UNKNOWN);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(reason, "sat, but get-value failed: "), "'%s'", reason);
  /* sat and a value we cannot read exactly: SAT, that value missing. */
  ck_assert_int_eq(run_fake(script("rootobj", "echo sat; echo '((x (root-obj (+ (^ x 2) (- 2)) 2)))'"),
                            5000, &m),
                   AX_SMT_SAT);
  mpz_t z;
  mpz_init(z);
  ck_assert(!ax_model_int(m, 0, z));
  ax_model_free(m);
  /* A non-integral value for an Int term is refused too. */
  ck_assert_int_eq(run_fake(script("halfint", "echo sat; echo '((x (/ 1 2)))'"), 5000, &m),
                   AX_SMT_SAT);
  ck_assert(!ax_model_int(m, 0, z));
  ax_model_free(m);
  ck_assert_int_eq(run_fake(script("okval", "echo sat; echo '((x (- 12345678901234567890123)))'"),
                            5000, &m),
                   AX_SMT_SAT);
  ck_assert(ax_model_int(m, 0, z));
  ck_assert_int_eq(mpz_cmp_si(z, 0) < 0, 1);
  ax_model_free(m);
  mpz_clear(z);
  /* Exits without a word; exits before finishing a list. */
  ck_assert_int_eq(run_fake(script("quiet", "echo oops >&2; exit 3"), 5000, NULL),
                   AX_SMT_UNKNOWN);
  ck_assert_str_eq(reason, "solver exited with status 3 without answering; stderr: oops");
  ck_assert_int_eq(run_fake(script("cut", "printf '(error \"trunc'"), 5000, NULL),
                   AX_SMT_UNKNOWN);
  ck_assert_msg(strstr(reason, "unparsable answer: (error \"trunc"), "'%s'", reason);
  /* Binaries that do not exist or cannot run. */
  ck_assert_int_eq(run_fake("axle-no-such-solver", 5000, NULL), AX_SMT_UNKNOWN);
  ck_assert_str_eq(reason, "solver binary 'axle-no-such-solver' not found in PATH");
  char noexec[160];
  snprintf(noexec, sizeof noexec, "%s/plain", tmpdir);
  FILE *f = fopen(noexec, "w");
  fclose(f);
  ck_assert_int_eq(run_fake(noexec, 5000, NULL), AX_SMT_UNKNOWN);
  ck_assert_msg(strstr(reason, "cannot execute solver") && strstr(reason, "ermission denied"),
                "'%s'", reason);
  errno = 0;
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
  ck_assert_int_eq(errno, ECHILD);
  ck_assert_int_eq(count_fds(), fds);
}
END_TEST

/* --- Dumps --------------------------------------------------------------------------------------- */

/* First line of `binary file`. */
static void first_line(const char *binary, const char *file, char *out, size_t len) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", binary, file);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  out[0] = '\0';
  ck_assert_ptr_nonnull(fgets(out, (int)len, p));
  out[strcspn(out, "\n")] = '\0';
  char rest[4096];
  while (fgets(rest, sizeof rest, p)) {
  }
  pclose(p);
}

START_TEST(test_dump) {
  char path[160], line[256];
  snprintf(path, sizeof path, "%s/query.smt2", tmpdir);
  const AxTerm *x = ivar("x"), *y = ivar("y");
  AxSort is = AX_SORT_INT;
  const AxFunc *f = ax_term_func(tc, "f", 1, &is, AX_SORT_INT);
  const AxTerm *fx = ax_term_mk_app(tc, f, 1, &x);
  const AxTerm *sat = ax_term_mk_and2(tc, eq(ax_term_mk_add2(tc, fx, y), I(-5)),
                                      ax_term_mk_lt(tc, ax_term_mk_mul2(tc, x, y), I(0)));
  const AxTerm *unsat = ax_term_mk_and2(tc, ax_term_mk_lt(tc, x, y), ax_term_mk_lt(tc, y, x));
  const AxTerm *cases[2] = {sat, unsat};
  for (int b = 0; b < NBACKENDS; b++) {
    for (int k = 0; k < 2; k++) {
      remove(path);
      AxSolverOpts o = {.kind = backends[b].kind, .timeout_ms = 60000,
                        .binary = backends[b].binary, .dump_path = path};
      AxModel *m = NULL;
      AxSmtResult r = ax_solver_check(&o, tc, cases[k], (const AxTerm *[]){x, fx}, 2, &m,
                                      reason, sizeof reason);
      ck_assert_int_eq(r, k == 0 ? AX_SMT_SAT : AX_SMT_UNSAT);
      ax_model_free(m);
      first_line("z3", path, line, sizeof line);
      ck_assert_msg(strcmp(line, k == 0 ? "sat" : "unsat") == 0, "z3 on the dump: '%s'", line);
      first_line("cvc5", path, line, sizeof line);
      ck_assert_msg(strcmp(line, k == 0 ? "sat" : "unsat") == 0, "cvc5 on the dump: '%s'", line);
    }
  }
  /* The dump is the whole script. */
  FILE *fp = fopen(path, "r");
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, fp);
  fclose(fp);
  text[n] = '\0';
  ck_assert_ptr_nonnull(strstr(text, "; axle query"));
  ck_assert_ptr_nonnull(strstr(text, "(set-option :produce-models true)\n(set-logic ALL)\n"));
  ck_assert_ptr_nonnull(strstr(text, "(declare-fun f (Int) Int)\n(declare-fun x () Int)\n"
                                     "(declare-fun y () Int)\n"));
  ck_assert_ptr_nonnull(strstr(text, "(check-sat)\n(get-value (x (f x)))\n"));
  /* A dump that cannot be written makes the answer UNKNOWN. */
  AxSolverOpts bad = {.kind = AX_SOLVER_Z3, .dump_path = "/nonexistent-dir/q.smt2"};
  ck_assert_int_eq(ax_solver_check(&bad, tc, unsat, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNKNOWN);
  ck_assert_msg(strstr(reason, "cannot write dump file"), "'%s'", reason);
}
END_TEST

/* --- The printer and the reader --------------------------------------------------------------- */

/* The script, in a buffer the next call frees. */
static const char *script_of(const AxTerm *f, const AxTerm *const *w, size_t n) {
  static char *buf;
  size_t len;
  free(buf);
  buf = NULL;
  if (!f) return NULL;
  FILE *mf = open_memstream(&buf, &len);
  ax_smtlib_write(mf, tc, f, w, n, NULL);
  fclose(mf);
  return buf;
}

START_TEST(test_printer) {
  const AxTerm *x = ivar("x"), *r = rvar("r");
  const AxTerm *f = ax_term_mk_and2(tc, eq(x, I(-5)),
                                    eq(r, ax_term_mk_add2(tc, Q(-1, 2), r)));
  const char *s = script_of(f, (const AxTerm *[]){x}, 1);
  ck_assert_str_eq(s, "(set-option :produce-models true)\n"
                      "(set-logic ALL)\n"
                      "(declare-fun r () Real)\n"
                      "(declare-fun x () Int)\n"
                      "(assert (and (= x (- 5)) (= r (+ (- (/ 1.0 2.0)) r))))\n"
                      "(check-sat)\n"
                      "(get-value (x))\n");
  /* Shared subterms become abbreviations, children first; a shared root is named too. */
  const AxTerm *sum = ax_term_mk_add2(tc, x, I(1));
  const AxTerm *sq = ax_term_mk_mul2(tc, sum, sum);
  s = script_of(ax_term_mk_lt(tc, sq, I(7)), (const AxTerm *[]){sq, Q(2, 1)}, 2);
  ck_assert_str_eq(s, "(set-option :produce-models true)\n"
                      "(set-logic ALL)\n"
                      "(declare-fun x () Int)\n"
                      "(declare-fun s!1 () Int)\n"
                      "(assert (= s!1 (+ x 1)))\n"
                      "(declare-fun s!2 () Int)\n"
                      "(assert (= s!2 (* s!1 s!1)))\n"
                      "(assert (< s!2 7))\n"
                      "(check-sat)\n"
                      "(get-value (s!2 2.0))\n");
  /* Quoting and renaming. */
  AxSort is = AX_SORT_INT;
  const AxFunc *g = ax_term_func(tc, "x", 1, &is, AX_SORT_INT);
  const AxTerm *gx = ax_term_mk_app(tc, g, 1, &x);
  const AxTerm *odd = ivar("a|b c");
  const AxTerm *kw = ivar("let");
  s = script_of(ax_term_mk_and(tc, 3, (const AxTerm *[]){eq(gx, odd), eq(kw, I(0)),
                                                        ax_term_mk_lt(tc, r, rvar("x"))}),
                NULL, 0);
  ck_assert_str_eq(s, "(set-option :produce-models true)\n"
                      "(set-logic ALL)\n"
                      "(declare-fun |a_b c| () Int)\n"
                      "(declare-fun let!1 () Int)\n"
                      "(declare-fun r () Real)\n"
                      "(declare-fun x () Int)\n"
                      "(declare-fun x!1 () Real)\n"
                      "(declare-fun x!2 (Int) Int)\n"
                      "(assert (and (= (x!2 x) |a_b c|) (= let!1 0) (< r x!1)))\n"
                      "(check-sat)\n");
  /* Linear size: 2^200 as a tree, about 200 lines as a script. */
  const AxTerm *t = x;
  for (int i = 0; i < 200; i++) t = ax_term_mk_add2(tc, t, t);
  ck_assert_uint_lt(strlen(script_of(eq(t, I(0)), NULL, 0)), 200 * 80);
  script_of(NULL, NULL, 0);
}
END_TEST

static const AxSexp *parse(AxArena *a, const char *text) {
  size_t pos = 0;
  const AxSexp *e = NULL;
  ck_assert_int_eq(ax_smtlib_read(a, text, strlen(text), true, &pos, &e), AX_SEXP_OK);
  return e;
}

static void expect_value(AxArena *a, const char *text, const char *fraction) {
  mpq_t v, want;
  mpq_inits(v, want, NULL);
  ck_assert_msg(ax_smtlib_rational(parse(a, text), v), "'%s' not read", text);
  mpq_set_str(want, fraction, 10);
  mpq_canonicalize(want);
  ck_assert_msg(mpq_equal(v, want), "'%s' misread", text);
  mpq_clears(v, want, NULL);
}

START_TEST(test_reader) {
  AxArena *a = ax_arena_new();
  /* The value forms of z3 4.8 and cvc5 1.0. */
  expect_value(a, "5", "5");
  expect_value(a, "(- 5)", "-5");
  expect_value(a, "1.5", "3/2");
  expect_value(a, "0.0", "0");
  expect_value(a, "(/ 1 2)", "1/2");
  expect_value(a, "(/ 1.0 3.0)", "1/3");
  expect_value(a, "(- (/ 1 2))", "-1/2");
  expect_value(a, "(- (/ 1.0 3.0))", "-1/3");
  expect_value(a, "(/ (- 1) 3)", "-1/3");
  expect_value(a, "(- 18446744073709551621)", "-18446744073709551621");
  mpq_t q;
  mpq_init(q);
  ck_assert(!ax_smtlib_rational(parse(a, "(root-obj (+ (^ x 2) (- 2)) 1)"), q));
  ck_assert(!ax_smtlib_rational(parse(a, "(/ 1 0)"), q));
  ck_assert(!ax_smtlib_rational(parse(a, "1."), q));
  ck_assert(!ax_smtlib_rational(parse(a, "x"), q));
  ck_assert(!ax_smtlib_rational(parse(a, "(- 1 2)"), q));
  mpq_clear(q);
  bool b = false;
  ck_assert(ax_smtlib_bool(parse(a, "true"), &b) && b);
  ck_assert(ax_smtlib_bool(parse(a, " false "), &b) && !b);
  ck_assert(!ax_smtlib_bool(parse(a, "1"), &b));

  /* A get-value answer, comments, strings with "" and newlines, quoted symbols. */
  const AxSexp *e = parse(a, "; note\n((x (- 5))\n ((f 4) 7) (|a b| true))");
  ck_assert_int_eq(e->kind, AX_SEXP_LIST);
  ck_assert_uint_eq(e->n, 3);
  ck_assert(ax_smtlib_is_atom(e->items[2]->items[0], "a b"));
  e = parse(a, "(error \"say \"\"hi\"\"\nnow\")");
  ck_assert_str_eq(e->items[1]->text, "say \"hi\"\nnow");
  ck_assert_int_eq(e->items[1]->kind, AX_SEXP_STRING);

  /* Incremental reading: an atom at the end of the buffer may continue. */
  size_t pos = 0;
  const AxSexp *out;
  ck_assert_int_eq(ax_smtlib_read(a, "sa", 2, false, &pos, &out), AX_SEXP_MORE);
  ck_assert_int_eq(ax_smtlib_read(a, "sat", 3, false, &pos, &out), AX_SEXP_MORE);
  ck_assert_uint_eq(pos, 0);
  ck_assert_int_eq(ax_smtlib_read(a, "sat\nunsat\n", 10, false, &pos, &out), AX_SEXP_OK);
  ck_assert(ax_smtlib_is_atom(out, "sat"));
  ck_assert_int_eq(ax_smtlib_read(a, "sat\nunsat\n", 10, false, &pos, &out), AX_SEXP_OK);
  ck_assert(ax_smtlib_is_atom(out, "unsat"));
  ck_assert_int_eq(ax_smtlib_read(a, "sat\nunsat\n", 10, false, &pos, &out), AX_SEXP_MORE);
  pos = 0;
  ck_assert_int_eq(ax_smtlib_read(a, "((x 1) (y", 9, false, &pos, &out), AX_SEXP_MORE);
  ck_assert_int_eq(ax_smtlib_read(a, "(error \"a\"", 10, false, &pos, &out), AX_SEXP_MORE);
  ck_assert_int_eq(ax_smtlib_read(a, "sat", 3, true, &pos, &out), AX_SEXP_OK);
  pos = 0;
  ck_assert_int_eq(ax_smtlib_read(a, ") sat", 5, false, &pos, &out), AX_SEXP_BAD);
  ck_assert_int_eq(ax_smtlib_read(a, "  ; only a comment\n", 19, true, &pos, &out),
                   AX_SEXP_MORE);
  /* Nesting beyond the bound is refused, not recursed into. */
  size_t deep = 100000;
  char *d = malloc(deep + 1);
  memset(d, '(', deep);
  d[deep] = '\0';
  pos = 0;
  ck_assert_int_eq(ax_smtlib_read(a, d, deep, true, &pos, &out), AX_SEXP_BAD);
  free(d);
  ax_arena_free(a);
}
END_TEST

/* --- Goals asked part by part (query.h split) ---------------------------------------------- */

static AxSmtResult run_split(int i, bool split, const AxTerm *f, const AxTerm *const *watch,
                             size_t n, AxModel **m, const char *dump) {
  AxSolverOpts o = {.kind = backends[i].kind, .timeout_ms = 60000, .binary = backends[i].binary,
                    .split = split, .dump_path = dump};
  return ax_solver_check(&o, tc, f, watch, n, m, reason, sizeof reason);
}

START_TEST(test_split_goal) {
  /* ctx: 0 <= x < 3, 0 <= y < 3. A goal one of whose parts fails is SAT with a model of
   * the whole formula; one that holds is UNSAT; a conjunct of ctx repeated in the goal is
   * no part of its own */
  const AxTerm *x = ivar("x"), *y = ivar("y");
  const AxTerm *ctx = ax_term_mk_and(tc, 4, (const AxTerm *[]){ax_term_mk_le(tc, I(0), x),
      ax_term_mk_lt(tc, x, I(3)), ax_term_mk_le(tc, I(0), y), ax_term_mk_lt(tc, y, I(3))});
  const AxTerm *holds = ax_term_mk_and(tc, 3, (const AxTerm *[]){ax_term_mk_lt(tc, x, I(3)),
      ax_term_mk_lt(tc, x, I(5)), ax_term_mk_ge(tc, y, I(0))});
  const AxTerm *fails = ax_term_mk_and(tc, 2, (const AxTerm *[]){ax_term_mk_lt(tc, x, I(5)),
      ax_term_mk_lt(tc, y, I(2))});
  const AxTerm *w[] = {x, y};
  AxModel *m = NULL;
  ck_assert_int_eq(run_split(_i, true, ax_term_mk_and2(tc, ctx, ax_term_mk_not(tc, holds)), w, 2,
                             &m, NULL), AX_SMT_UNSAT);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(run_split(_i, true, ax_term_mk_and2(tc, ctx, ax_term_mk_not(tc, fails)), w, 2,
                             &m, NULL), AX_SMT_SAT);
  mpz_t v;
  mpz_init(v);
  ck_assert_ptr_nonnull(m);
  ck_assert(ax_model_int(m, 1, v));
  ck_assert_int_eq(mpz_get_si(v), 2);   /* y = 2: the failing part */
  ck_assert(ax_model_int(m, 0, v));
  ck_assert(mpz_sgn(v) >= 0 && mpz_cmp_si(v, 3) < 0);
  mpz_clear(v);
  ax_model_free(m);
}
END_TEST

START_TEST(test_split_agrees) {
  /* the oracle: on random goals over shared and separate variables, the split answer is
   * the whole query's answer (fixed seed; linear, so every back-end decides them) */
  const AxTerm *v[4] = {ivar("a"), ivar("b"), ivar("c"), ivar("d")};
  unsigned seed = 12345;
  int sat = 0, unsat = 0;
  for (int round = 0; round < 12; round++) {
    const AxTerm *ctx[8], *goal[4];
    for (int k = 0; k < 4; k++) {
      seed = seed * 1103515245u + 12345u;
      ctx[2 * k] = ax_term_mk_le(tc, I(0), v[k]);
      ctx[2 * k + 1] = ax_term_mk_lt(tc, v[k], I((long)(seed >> 16) % 4 + 1));
    }
    for (int k = 0; k < 4; k++) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = seed >> 16;
      const AxTerm *lhs = v[k];
      if (r & 1) lhs = ax_term_mk_add2(tc, v[k], v[(k + 1) % 4]);   /* joins two variables */
      goal[k] = ax_term_mk_le(tc, lhs, I((long)(r >> 1) % 7));
    }
    const AxTerm *f = ax_term_mk_and2(tc, ax_term_mk_and(tc, 8, ctx),
                                      ax_term_mk_not(tc, ax_term_mk_and(tc, 4, goal)));
    AxSmtResult whole = run_split(_i, false, f, v, 4, NULL, NULL);
    AxSmtResult parts = run_split(_i, true, f, v, 4, NULL, NULL);
    ck_assert_msg(whole != AX_SMT_UNKNOWN, "round %d: %s", round, reason);
    ck_assert_msg(whole == parts, "round %d: whole %d, split %d", round, whole, parts);
    sat += whole == AX_SMT_SAT;
    unsat += whole == AX_SMT_UNSAT;
  }
  ck_assert_int_gt(sat, 0);   /* the oracle saw both answers */
  ck_assert_int_gt(unsat, 0);
}
END_TEST

START_TEST(test_split_dumps_and_unknown) {
  /* each part has its dump, "<dump>-part<k>.smt2", which both solvers answer; a part no
   * solver decides makes the whole UNKNOWN, never UNSAT */
  char path[160], part[192], line[256];
  snprintf(path, sizeof path, "%s/goal.smt2", tmpdir);
  const AxTerm *x = ivar("x"), *y = ivar("y");
  const AxTerm *f = ax_term_mk_and2(tc, ax_term_mk_and2(tc, ax_term_mk_le(tc, I(0), x), ax_term_mk_le(tc, I(0), y)),
      ax_term_mk_not(tc, ax_term_mk_and2(tc, ax_term_mk_ge(tc, x, I(-1)), ax_term_mk_ge(tc, y, I(-2)))));
  ck_assert_int_eq(run_split(0, true, f, NULL, 0, NULL, path), AX_SMT_UNSAT);
  for (int k = 1; k <= 2; k++) {
    snprintf(part, sizeof part, "%s/goal-part%d.smt2", tmpdir, k);
    first_line("z3", part, line, sizeof line);
    ck_assert_str_eq(line, "unsat");
  }
  snprintf(part, sizeof part, "%s/goal-part3.smt2", tmpdir);
  ck_assert_int_ne(access(part, F_OK), 0);
  AxSolverOpts o = {.kind = AX_SOLVER_PIPE, .timeout_ms = 5000, .split = true,
                    .binary = script("unknown", "echo unknown")};
  ck_assert_int_eq(ax_solver_check(&o, tc, f, NULL, 0, NULL, reason, sizeof reason),
                   AX_SMT_UNKNOWN);
  ck_assert_ptr_nonnull(strstr(reason, "unknown"));
}
END_TEST

static Suite *smt_suite(void) {
  Suite *s = suite_create("smt");
  TCase *all = tcase_create("backends");
  tcase_add_checked_fixture(all, setup, teardown);
  tcase_set_timeout(all, 120);
  tcase_add_loop_test(all, test_valid_is_unsat, 0, NBACKENDS);
  tcase_add_loop_test(all, test_sat_model_values, 0, NBACKENDS);
  tcase_add_loop_test(all, test_nonlinear_int, 0, NBACKENDS);
  tcase_add_loop_test(all, test_euclidean_div_mod, 0, NBACKENDS);
  tcase_add_test(all, test_pipe_with_stdio_closed);
  tcase_add_loop_test(all, test_big_dag, 0, NBACKENDS);
  tcase_add_loop_test(all, test_awkward_names, 0, NBACKENDS);
  tcase_add_loop_test(all, test_abs_to_real_rdiv, 0, NBACKENDS);
  tcase_add_loop_test(all, test_irrational_has_no_value, 0, 2);
  tcase_add_loop_test(all, test_floating_point, 0, NBACKENDS);
  tcase_add_loop_test(all, test_split_goal, 0, NBACKENDS);
  tcase_add_loop_test(all, test_split_agrees, 0, NBACKENDS);
  suite_add_tcase(s, all);

  TCase *fake = tcase_create("fake solvers and dumps");
  tcase_add_unchecked_fixture(fake, mk_tmpdir, rm_tmpdir);
  tcase_add_checked_fixture(fake, setup, teardown);
  tcase_set_timeout(fake, 120);
  tcase_add_test(fake, test_fake_answers);
  tcase_add_test(fake, test_dump);
  tcase_add_test(fake, test_split_dumps_and_unknown);
  suite_add_tcase(s, fake);

  /* Tagged "timing" (tests/CMakeLists.txt: ctest label timing, run by `make test`, not by
   * `make check`): each waits for a solver's time limit to pass — z3's first try to give
   * way, a timeout of 1 s on every backend, a hanging fake solver stopped at 1 s — and
   * asserts a wall-clock bound or an answer that a loaded machine can miss. */
  TCase *timing = tcase_create("time limits");
  tcase_set_tags(timing, "timing");
  tcase_add_unchecked_fixture(timing, mk_tmpdir, rm_tmpdir);
  tcase_add_checked_fixture(timing, setup, teardown);
  tcase_set_timeout(timing, 120);
  tcase_add_test(timing, test_z3_core_gives_way);
  tcase_add_loop_test(timing, test_timeout, 0, NBACKENDS);
  tcase_add_test(timing, test_fake_solvers);
  suite_add_tcase(s, timing);

  TCase *text = tcase_create("smtlib text");
  tcase_add_checked_fixture(text, setup, teardown);
  tcase_add_test(text, test_printer);
  tcase_add_test(text, test_reader);
  suite_add_tcase(s, text);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(smt_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
