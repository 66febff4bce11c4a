/* z3.c — the in-process back-end: libz3 through its C API; see solver.h. The only file
 * that includes z3.h.
 *
 * One Z3 context per call, created and deleted here, so there is no shared state and calls
 * in different threads are independent. The context is a plain (non reference counted)
 * one: its ASTs live until it is deleted, which the memo table below relies on; the
 * solver, parameters and model are reference counted by us.
 *
 * Errors: Z3's default handler calls exit(). Ours is installed right after the context is
 * created and does nothing, so an error only sets the context's error code, which is read
 * after every call that can fail (Z3 resets it at the start of each API call).
 *
 * Time limit: not Z3's `timeout` parameter. In z3 4.8.12 that parameter arms a
 * scoped_timer whose thread pool can deadlock when the limit fires inside nested timers
 * (upstream Z3Prover/z3#5371; a nonlinear integer query reproduces it reliably: the check
 * never returns). Instead a watchdog thread of ours calls Z3_interrupt at the deadline,
 * which cancels the check through Z3's resource limit without any timer of Z3's. */
#include "smt/z3.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "smt/decide.h"
#include "smt/smtlib.h"

/* Leaves the error code set for the caller to read; never exits. */
static void on_error(Z3_context ctx, Z3_error_code code) {
  (void)ctx;
  (void)code;
}

/* Writes "z3 error: <message>" and returns true when the last call failed. */
static bool failed(Z3_context ctx, char *reason, size_t len) {
  Z3_error_code e = Z3_get_error_code(ctx);
  if (e == Z3_OK) return false;
  const char *msg = Z3_get_error_msg(ctx, e);
  snprintf(reason, len, "z3 error: %s", msg ? msg : "unknown error");
  return true;
}

/* --- Watchdog -------------------------------------------------------------------------------- */

typedef struct Watchdog {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;       /* the check has returned */
  bool fired;      /* we interrupted it */
  Z3_context ctx;
  struct timespec deadline;   /* CLOCK_MONOTONIC */
} Watchdog;

static void *watch_run(void *arg) {
  Watchdog *w = arg;
  pthread_mutex_lock(&w->mu);
  while (!w->done) {
    int rc = pthread_cond_timedwait(&w->cv, &w->mu, &w->deadline);
    if (rc == ETIMEDOUT && !w->done) {
      /* Under the mutex: the main thread cannot have moved past the check's end and on
       * to deleting the context. */
      Z3_interrupt(w->ctx);
      w->fired = true;
      break;
    }
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static bool watch_start(Watchdog *w, pthread_t *th, Z3_context ctx, unsigned ms) {
  pthread_condattr_t attr;
  memset(w, 0, sizeof *w);
  w->ctx = ctx;
  if (pthread_mutex_init(&w->mu, NULL) != 0) return false;
  if (pthread_condattr_init(&attr) != 0) goto no_attr;
  if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
      pthread_cond_init(&w->cv, &attr) != 0)
    goto no_cond;
  pthread_condattr_destroy(&attr);
  clock_gettime(CLOCK_MONOTONIC, &w->deadline);
  w->deadline.tv_sec += ms / 1000;
  w->deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (w->deadline.tv_nsec >= 1000000000L) {
    w->deadline.tv_sec++;
    w->deadline.tv_nsec -= 1000000000L;
  }
  if (pthread_create(th, NULL, watch_run, w) == 0) return true;
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  return false;
no_cond:
  pthread_condattr_destroy(&attr);
no_attr:
  pthread_mutex_destroy(&w->mu);
  return false;
}

/* Stops and joins the watchdog; returns whether it fired. */
static bool watch_stop(Watchdog *w, pthread_t th) {
  pthread_mutex_lock(&w->mu);
  w->done = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(th, NULL);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  return w->fired;
}

/* --- Translation ----------------------------------------------------------------------------- */

typedef struct Tr {
  Z3_context ctx;
  Z3_ast *ast;              /* by term id; owned by the context */
  Z3_func_decl *decl;       /* by func id */
  Z3_sort sorts[6];         /* by AxSort */
  Z3_ast rne;               /* the rounding mode of every FP operation */
  bool bad;                 /* a Z3 call failed: stop */
  char *reason;
  size_t reason_len;
  Z3_func_decl exp;         /* the uninterpreted stand-in for exp, once used */
  /* what the query holds, for the choice of z3's first try (check): a real division by a
   * non-numeral, an integer div or mod, one by a non-numeral, a floating-point term */
  bool rdiv_var, idiv, idiv_var, fp;
  const AxSmtlibQuery *names;  /* which subterms become defined constants */
  Z3_ast *defs;             /* their definitions (= const term), to assert */
  size_t ndefs;
} Tr;

static Z3_ast numeral(Tr *tr, const AxTerm *t) {
  mpq_t q;
  mpq_init(q);
  ax_term_real_value(t, q);
  /* "p" or "p/q": the forms Z3_mk_numeral reads for Int and Real sorts. */
  size_t n = mpz_sizeinbase(mpq_numref(q), 10) + mpz_sizeinbase(mpq_denref(q), 10) + 3;
  char *s = ax_xmalloc(n);
  mpq_get_str(s, 10, q);
  mpq_clear(q);
  Z3_ast a = Z3_mk_numeral(tr->ctx, s, tr->sorts[ax_term_sort(t)]);
  free(s);
  return a;
}

static Z3_func_decl func_decl(Tr *tr, const AxFunc *f) {
  uint32_t id = ax_term_func_id(f);
  if (tr->decl[id]) return tr->decl[id];
  size_t n = ax_term_func_nargs(f);
  Z3_sort *dom = ax_xmalloc((n ? n : 1) * sizeof *dom);
  for (size_t i = 0; i < n; i++) dom[i] = tr->sorts[ax_term_func_argsort(f, i)];
  /* Fresh declarations: distinct axle functions (and variables) never merge in Z3, even
   * when a name repeats at another sort; the names only matter for debugging. */
  tr->decl[id] = Z3_mk_fresh_func_decl(tr->ctx, ax_term_func_name(f), (unsigned)n, dom,
                                       tr->sorts[ax_term_func_result(f)]);
  free(dom);
  return tr->decl[id];
}

/* Translates t, whose arguments are translated already (postorder). */
static void translate(const AxTerm *t, void *data) {
  Tr *tr = data;
  if (tr->bad || tr->ast[ax_term_id(t)]) return;
  AxTermKind kind = ax_term_kind(t);
  bool by_var = ax_term_nargs(t) == 2 && !ax_term_is_const(ax_term_arg(t, 1));
  tr->rdiv_var |= kind == AX_TERM_RDIV && by_var;
  tr->idiv |= kind == AX_TERM_DIV || kind == AX_TERM_MOD;
  tr->idiv_var |= (kind == AX_TERM_DIV || kind == AX_TERM_MOD) && by_var;
  tr->fp |= ax_term_sort_is_fp(ax_term_sort(t));
  Z3_context c = tr->ctx;
  size_t n = ax_term_nargs(t);
  Z3_ast small[8], *args = n <= 8 ? small : ax_xmalloc(n * sizeof *args);
  for (size_t i = 0; i < n; i++) args[i] = tr->ast[ax_term_id(ax_term_arg(t, i))];
  unsigned un = (unsigned)n;
  Z3_ast a = NULL;
  switch (ax_term_kind(t)) {
  case AX_TERM_TRUE: a = Z3_mk_true(c); break;
  case AX_TERM_FALSE: a = Z3_mk_false(c); break;
  case AX_TERM_INT:
  case AX_TERM_REAL: a = numeral(tr, t); break;
  case AX_TERM_VAR:
    a = Z3_mk_fresh_const(c, ax_term_var_name(t), tr->sorts[ax_term_sort(t)]);
    break;
  case AX_TERM_APP: {
    Z3_func_decl d = func_decl(tr, ax_term_app_func(t));
    if (!failed(c, tr->reason, tr->reason_len)) a = Z3_mk_app(c, d, un, args);
    break;
  }
  case AX_TERM_NOT: a = Z3_mk_not(c, args[0]); break;
  case AX_TERM_AND: a = Z3_mk_and(c, un, args); break;
  case AX_TERM_OR: a = Z3_mk_or(c, un, args); break;
  case AX_TERM_IMPLIES: a = Z3_mk_implies(c, args[0], args[1]); break;
  case AX_TERM_ITE: a = Z3_mk_ite(c, args[0], args[1], args[2]); break;
  case AX_TERM_EQ: a = Z3_mk_eq(c, args[0], args[1]); break;
  case AX_TERM_LT: a = Z3_mk_lt(c, args[0], args[1]); break;
  case AX_TERM_LE: a = Z3_mk_le(c, args[0], args[1]); break;
  case AX_TERM_ADD: a = Z3_mk_add(c, un, args); break;
  case AX_TERM_SUB: a = Z3_mk_sub(c, un, args); break;
  case AX_TERM_MUL: a = Z3_mk_mul(c, un, args); break;
  case AX_TERM_NEG: a = Z3_mk_unary_minus(c, args[0]); break;
  case AX_TERM_DIV: a = Z3_mk_div(c, args[0], args[1]); break;   /* Int: SMT-LIB div */
  case AX_TERM_MOD: a = Z3_mk_mod(c, args[0], args[1]); break;
  case AX_TERM_RDIV: a = Z3_mk_div(c, args[0], args[1]); break;  /* Real: / */
  case AX_TERM_TO_REAL: a = Z3_mk_int2real(c, args[0]); break;
  case AX_TERM_ABS: {   /* the C API of 4.8 has no abs: ite(x < 0, -x, x) */
    Z3_ast zero = Z3_mk_int(c, 0, tr->sorts[ax_term_sort(t)]);
    a = Z3_mk_ite(c, Z3_mk_lt(c, args[0], zero), Z3_mk_unary_minus(c, args[0]), args[0]);
    break;
  }
  case AX_TERM_EXP: {
    /* z3 4.8 has no exponential: an uninterpreted function (with exp(0) = 1 asserted), so
     * z3 proves only what holds for every such function (sound) and its models may need a
     * replay that fails (UNKNOWN) */
    Z3_sort real = tr->sorts[AX_SORT_REAL];
    if (!tr->exp) tr->exp = Z3_mk_func_decl(c, Z3_mk_string_symbol(c, "exp!uninterpreted"), 1, &real, real);
    a = Z3_mk_app(c, tr->exp, 1, args);
    break;
  }
  case AX_TERM_FP_LIT: {   /* the bit pattern, reinterpreted */
    AxSort so = ax_term_sort(t);
    char bits[16];
    snprintf(bits, sizeof bits, "%u", (unsigned)ax_term_fp_bits_value(t));
    Z3_sort bv = Z3_mk_bv_sort(c, (unsigned)(ax_term_fp_ebits(so) + ax_term_fp_sbits(so)));
    a = Z3_mk_fpa_to_fp_bv(c, Z3_mk_numeral(c, bits, bv), tr->sorts[so]);
    break;
  }
  case AX_TERM_FP_ADD: a = Z3_mk_fpa_add(c, tr->rne, args[0], args[1]); break;
  case AX_TERM_FP_SUB: a = Z3_mk_fpa_sub(c, tr->rne, args[0], args[1]); break;
  case AX_TERM_FP_MUL: a = Z3_mk_fpa_mul(c, tr->rne, args[0], args[1]); break;
  case AX_TERM_FP_DIV: a = Z3_mk_fpa_div(c, tr->rne, args[0], args[1]); break;
  case AX_TERM_FP_NEG: a = Z3_mk_fpa_neg(c, args[0]); break;
  case AX_TERM_FP_ABS: a = Z3_mk_fpa_abs(c, args[0]); break;
  case AX_TERM_FP_LT: a = Z3_mk_fpa_lt(c, args[0], args[1]); break;
  case AX_TERM_FP_LE: a = Z3_mk_fpa_leq(c, args[0], args[1]); break;
  case AX_TERM_FP_EQ: a = Z3_mk_fpa_eq(c, args[0], args[1]); break;
  case AX_TERM_FP_ISNAN: a = Z3_mk_fpa_is_nan(c, args[0]); break;
  case AX_TERM_FP_ISZERO: a = Z3_mk_fpa_is_zero(c, args[0]); break;
  case AX_TERM_FP_ISNEG: a = Z3_mk_fpa_is_negative(c, args[0]); break;
  case AX_TERM_FP_ISINF: a = Z3_mk_fpa_is_infinite(c, args[0]); break;
  case AX_TERM_FP_OF_REAL:
    a = Z3_mk_fpa_to_fp_real(c, tr->rne, args[0], tr->sorts[ax_term_sort(t)]);
    break;
  default: AX_UNREACHABLE();
  }
  if (args != small) free(args);
  const char *def = a ? ax_smtlib_query_def(tr->names, t) : NULL;
  if (def) {   /* a constant with its definition asserted, as in the SMT-LIB text */
    Z3_ast k = Z3_mk_fresh_const(c, def, tr->sorts[ax_term_sort(t)]);
    tr->defs[tr->ndefs++] = Z3_mk_eq(c, k, a);
    a = k;
  }
  if (!a || failed(c, tr->reason, tr->reason_len)) {
    if (!tr->reason[0]) snprintf(tr->reason, tr->reason_len, "z3 error: cannot build a term");
    tr->bad = true;
    return;
  }
  tr->ast[ax_term_id(t)] = a;
}

/* --- Models ---------------------------------------------------------------------------------- */

/* Records the value of watched term i from its completed evaluation v, if exact. */
static void record(Z3_context c, AxModel *m, size_t i, const AxTerm *t, Z3_ast v) {
  if (ax_term_sort(t) == AX_SORT_BOOL) {
    Z3_lbool b = Z3_get_bool_value(c, v);
    if (Z3_get_error_code(c) == Z3_OK && b != Z3_L_UNDEF) ax_model_set_bool(m, i, b == Z3_L_TRUE);
    return;
  }
  if (ax_term_sort_is_fp(ax_term_sort(t))) {   /* the bit pattern; every NaN is one NaN */
    AxSort so = ax_term_sort(t);
    int w = ax_term_fp_ebits(so) + ax_term_fp_sbits(so);
    mpq_t q;
    mpq_init(q);
    if (Z3_fpa_is_numeral_nan(c, v)) {
      mpq_set_ui(q, w == 32 ? 0x7fc00000u : w == 16 && so == AX_SORT_F16 ? 0x7e00u : 0x7fc0u, 1);
      if (Z3_get_error_code(c) == Z3_OK) ax_model_set_rational(m, i, q);
    } else {
      Z3_ast bv = Z3_simplify(c, Z3_mk_fpa_to_ieee_bv(c, v));
      Z3_string s = Z3_get_error_code(c) == Z3_OK && Z3_get_ast_kind(c, bv) == Z3_NUMERAL_AST
                        ? Z3_get_numeral_string(c, bv) : NULL;
      if (s && Z3_get_error_code(c) == Z3_OK && mpq_set_str(q, s, 10) == 0) ax_model_set_rational(m, i, q);
    }
    Z3_set_error(c, Z3_OK);
    mpq_clear(q);
    return;
  }
  /* Irrational algebraic numbers (root-obj) have no exact decimal: no value. */
  if (Z3_get_ast_kind(c, v) != Z3_NUMERAL_AST || Z3_is_algebraic_number(c, v)) return;
  /* "-5", "1/3": mpq_set_str is linear in the text z3 printed, whose size z3 allocated */
  Z3_string s = Z3_get_numeral_string(c, v);
  if (Z3_get_error_code(c) != Z3_OK || !s) return;
  mpq_t q;
  mpq_init(q);
  if (mpq_set_str(q, s, 10) == 0 && mpz_sgn(mpq_denref(q)) != 0) {
    mpq_canonicalize(q);
    ax_model_set_rational(m, i, q);
  }
  mpq_clear(q);
}

static AxModel *model(Z3_context c, Z3_solver s, Tr *tr, const AxTerm *const *watch,
                      size_t nwatch) {
  AxModel *m = ax_model_new(watch, nwatch);
  Z3_model zm = Z3_solver_get_model(c, s);
  if (!zm || Z3_get_error_code(c) != Z3_OK) return m;   /* sat without a model: no values */
  Z3_model_inc_ref(c, zm);
  for (size_t i = 0; i < nwatch; i++) {
    Z3_ast v = NULL;
    /* Model completion: a term the model leaves open (f at a new point) still gets one. */
    if (Z3_model_eval(c, zm, tr->ast[ax_term_id(watch[i])], true, &v) && v &&
        Z3_get_error_code(c) == Z3_OK)
      record(c, m, i, watch[i], v);
  }
  Z3_model_dec_ref(c, zm);
  return m;
}

/* --- The back-end ---------------------------------------------------------------------------- */

/* A query's tries, their times and what follows each: decide.h (ax_decide_z3_*). */

static double elapsed_ms(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Everything after the context exists; the caller deletes the context. */
static AxSmtResult check(Z3_context c, const AxSolverOpts *o, AxTermCtx *tc,
                         const AxTerm *formula, const AxTerm *const *watch, size_t nwatch,
                         AxModel **model_out, char *reason, size_t len) {
  Tr tr = {.ctx = c, .reason = reason, .reason_len = len};
  tr.ast = ax_xcalloc(ax_term_ctx_size(tc) + 1, sizeof *tr.ast);
  tr.decl = ax_xcalloc(ax_term_ctx_nfuncs(tc) + 1, sizeof *tr.decl);
  tr.sorts[AX_SORT_BOOL] = Z3_mk_bool_sort(c);
  tr.sorts[AX_SORT_INT] = Z3_mk_int_sort(c);
  tr.sorts[AX_SORT_REAL] = Z3_mk_real_sort(c);
  tr.sorts[AX_SORT_F32] = Z3_mk_fpa_sort(c, 8, 24);
  tr.sorts[AX_SORT_F16] = Z3_mk_fpa_sort(c, 5, 11);
  tr.sorts[AX_SORT_BF16] = Z3_mk_fpa_sort(c, 8, 8);
  tr.rne = Z3_mk_fpa_round_nearest_ties_to_even(c);
  AxSmtResult r = AX_SMT_UNKNOWN;
  Z3_solver s = NULL;
  Z3_params p = NULL;
  if (failed(c, reason, len)) goto out;
  /* One traversal: each variable must become exactly one Z3 constant. */
  const AxTerm **roots = ax_xmalloc((nwatch + 1) * sizeof *roots);
  roots[0] = formula;
  for (size_t i = 0; i < nwatch; i++) roots[i + 1] = watch[i];
  AxSmtlibQuery *names = ax_smtlib_query_new(tc, formula, watch, model_out ? nwatch : 0);
  tr.names = names;
  tr.defs = ax_xcalloc(ax_term_ctx_size(tc) + 1, sizeof *tr.defs);
  ax_term_postorder(tc, roots, model_out ? nwatch + 1 : 1, translate, &tr);
  ax_smtlib_query_free(names);
  free(roots);
  if (tr.bad) goto out;

  /* The default solver gets the last try, with the rest of the time; one of two gets a
   * first, short one:
   * - Real division by unknowns (the encodings of the divmod rules' real division) is
   *   nonlinear real arithmetic, which z3's nlsat decides in milliseconds where its default
   *   solver can time out (divmod_03: 0.03 s against > 20 s).
   * - Other arithmetic goes to the plain SMT core (Z3_mk_simple_solver) first. The default
   *   solver runs the tactic z3 picks for the logic, which on axle's small bounded queries
   *   is mostly its cost: over the corpus z3's time fell from 53.4 s to 21.0 s with the core
   *   first. Not on exp, which z3 only approximates: there a sat counts only if its
   *   model replays, and the default solver's models did where the core's did not (log_06's
   *   mutant); nor on floats, where the default bit-blasts (qffp); nor on integer division
   *   by an unknown (a padded or strided window's index), where the default's
   *   preprocessing was faster (slice_05: 0.8-1.0 s a type with the core first, 0.5-0.66 s
   *   without; the corpus as a whole unchanged).
   * Any try's unsat is z3's unsat; a try without an answer passes on to the next. What the
   * query holds was noted while it was translated (Tr's flags): no second walk. */
  unsigned total = o->timeout_ms, first_ms = 0;
  AxZ3Shape shape = {.rdiv_var = tr.rdiv_var, .idiv = tr.idiv, .idiv_var = tr.idiv_var,
                     .exp = tr.exp != NULL, .fp = tr.fp};
  AxZ3Try first = ax_decide_z3_first(&shape, total, &first_ms);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (AxZ3Try attempt = first;; attempt = AX_TRY_DEFAULT) {   /* the default's answer breaks out */
    unsigned ms = ax_decide_z3_budget(attempt, first_ms, total, elapsed_ms(&t0));
    if (s) Z3_solver_dec_ref(c, s);
    s = NULL;
    if (attempt == AX_TRY_NLSAT) {
      Z3_tactic t = Z3_mk_tactic(c, "qfnra");
      if (failed(c, reason, len)) goto out;
      Z3_tactic_inc_ref(c, t);
      s = Z3_mk_solver_from_tactic(c, t);
      Z3_tactic_dec_ref(c, t);
    } else if (attempt == AX_TRY_SIMPLE) {
      s = Z3_mk_simple_solver(c);
    } else {
      s = Z3_mk_solver(c);
    }
    if (failed(c, reason, len)) goto out;
    Z3_solver_inc_ref(c, s);
    if (!p) {
      p = Z3_mk_params(c);
      if (failed(c, reason, len)) goto out;
      Z3_params_inc_ref(c, p);
      /* Z3 would otherwise install its own SIGINT handler around the check. */
      Z3_params_set_bool(c, p, Z3_mk_string_symbol(c, "ctrl_c"), false);
    }
    Z3_solver_set_params(c, s, p);
    if (failed(c, reason, len)) goto out;
    for (size_t i = 0; i < tr.ndefs; i++) Z3_solver_assert(c, s, tr.defs[i]);
    Z3_solver_assert(c, s, tr.ast[ax_term_id(formula)]);
    if (failed(c, reason, len)) goto out;
    if (tr.exp) {   /* exp(0) = 1, as the concrete domain computes it */
      Z3_sort real = tr.sorts[AX_SORT_REAL];
      Z3_ast zero = Z3_mk_numeral(c, "0", real), one = Z3_mk_numeral(c, "1", real);
      Z3_solver_assert(c, s, Z3_mk_eq(c, Z3_mk_app(c, tr.exp, 1, &zero), one));
      if (failed(c, reason, len)) goto out;
    }

    Watchdog w;
    pthread_t th;
    bool watching = false;
    if (ms) {
      watching = watch_start(&w, &th, c, ms);
      if (!watching) {
        snprintf(reason, len, "cannot start the timer thread");
        goto out;
      }
    }
    Z3_lbool res = Z3_solver_check(c, s);
    bool fired = watching && watch_stop(&w, th);   /* first: no Z3 call races Z3_interrupt */
    AxZ3Answer got = res == Z3_L_FALSE ? AX_Z3_FALSE : res == Z3_L_TRUE ? AX_Z3_TRUE : AX_Z3_UNDEF;
    AxZ3Step step = ax_decide_z3_step(attempt, got, Z3_get_error_code(c) != Z3_OK, fired,
                                      total && elapsed_ms(&t0) >= total);
    if (step == AX_STEP_ERROR) {
      failed(c, reason, len);
      goto out;
    }
    Z3_set_error(c, Z3_OK);   /* an error of a try whose answer is not taken (decide.h) */
    if (step == AX_STEP_NEXT) continue;
    char limit[32];
    switch (step) {
    case AX_STEP_UNSAT: r = AX_SMT_UNSAT; break;
    case AX_STEP_SAT:
      r = AX_SMT_SAT;
      if (model_out) *model_out = model(c, s, &tr, watch, nwatch);
      break;
    case AX_STEP_TIMEOUT:
      snprintf(reason, len, "timeout after %s", ax_solver_fmt_ms(limit, sizeof limit, total));
      break;
    default: {
      Z3_string why = Z3_solver_get_reason_unknown(c, s);
      snprintf(reason, len, "solver said unknown (%s)",
               why && *why && Z3_get_error_code(c) == Z3_OK ? why : "no reason given");
      break;
    }
    }
    break;
  }
out:
  if (p) Z3_params_dec_ref(c, p);
  if (s) Z3_solver_dec_ref(c, s);
  free(tr.ast);
  free(tr.decl);
  free(tr.defs);
  return r;
}

AxSmtResult ax_z3_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                        const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                        char *reason, size_t reason_len) {
  Z3_config cfg = Z3_mk_config();
  if (!cfg) {
    snprintf(reason, reason_len, "z3 error: cannot create a configuration");
    return AX_SMT_UNKNOWN;
  }
  Z3_set_param_value(cfg, "model", "true");
  Z3_context c = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  if (!c) {
    snprintf(reason, reason_len, "z3 error: cannot create a context");
    return AX_SMT_UNKNOWN;
  }
  Z3_set_error_handler(c, on_error);
  AxSmtResult r = check(c, o, tc, formula, watch, nwatch, model_out, reason, reason_len);
  Z3_del_context(c);
  return r;
}
