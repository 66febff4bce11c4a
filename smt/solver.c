/* solver.c — the dispatcher of solver.h: exact preprocessing, the dump file, the back-end. */
#include "smt/solver.h"

#include <errno.h>
#include <string.h>

#include "smt/arith.h"
#include "smt/pipe.h"
#include "smt/portfolio.h"
#include "smt/smtlib.h"
#include "smt/z3.h"

/* Writes the query to o->dump_path; false (with reason) when the file cannot be written. */
static bool dump(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                 const AxTerm *const *watch, size_t nwatch, char *reason, size_t reason_len) {
  FILE *f = fopen(o->dump_path, "w");
  if (!f) {
    snprintf(reason, reason_len, "cannot write dump file '%s': %s", o->dump_path,
             strerror(errno));
    return false;
  }
  char limit[32], comment[1024], backend[256];
  if (o->cross_check)
    snprintf(backend, sizeof backend, "z3 API and %s, cross-checked", o->binary);
  else if (o->kind == AX_SOLVER_PORTFOLIO)
    snprintf(backend, sizeof backend, "portfolio of z3 API and %s", o->binary);
  else
    snprintf(backend, sizeof backend, "%s", o->kind == AX_SOLVER_Z3 ? "z3 API" : o->binary);
  snprintf(comment, sizeof comment,
           "axle query (satisfiable means the property fails)\n%s%sback-end: %s, time limit: %s",
           o->dump_note ? o->dump_note : "", o->dump_note ? "\n" : "", backend,
           o->timeout_ms ? ax_solver_fmt_ms(limit, sizeof limit, o->timeout_ms) : "none");
  ax_smtlib_write(f, tc, formula, watch, nwatch, comment);
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  if (!ok)
    snprintf(reason, reason_len, "cannot write dump file '%s': %s", o->dump_path,
             strerror(errno));
  return ok;
}

/* One back-end answers the (simplified) query. */
static AxSmtResult dispatch(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                            const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                            char *reason, size_t reason_len) {
  if (o->dump_path && !dump(o, tc, formula, watch, nwatch, reason, reason_len))
    return AX_SMT_UNKNOWN;
  switch (o->cross_check ? AX_SOLVER_PORTFOLIO : o->kind) {
  case AX_SOLVER_Z3:
    return ax_z3_check(o, tc, formula, watch, nwatch, model_out, reason, reason_len);
  case AX_SOLVER_PIPE:
    return ax_pipe_check(o, tc, formula, watch, nwatch, model_out, reason, reason_len);
  case AX_SOLVER_PORTFOLIO:
    return ax_portfolio_check(o, tc, formula, watch, nwatch, model_out, reason, reason_len);
  default:
    snprintf(reason, reason_len, "unknown solver kind %d", (int)o->kind);
    return AX_SMT_UNKNOWN;
  }
}

enum { MAX_SPLIT_DEPTH = 2, MAX_CASES = 2 };   /* at most 4 cases in all */

/* Divisibility by unknown amounts is solved by substitution first (arith.h); the solver
 * sees, and the dump shows, the simplified query, and a model is read through the
 * rewritten watch terms. A query that still divides by unknowns is split into cases
 * (ax_arith_split), each simplified again: UNSAT only when every case is UNSAT, SAT with
 * the model of the first SAT case, else UNKNOWN with the reason of the first case that
 * had no answer. Each case gets its own dump, "<dump>-case<i>.smt2". */
static AxSmtResult check_cases(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                               const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                               char *reason, size_t reason_len, int depth) {
  if (!ax_arith_wanted(tc, formula))
    return dispatch(o, tc, formula, watch, nwatch, model_out, reason, reason_len);
  AxSolverOpts opts = *o;
  const AxTerm **wr = ax_xmalloc((nwatch + 1) * sizeof *wr);
  unsigned eliminated = 0;
  char note[1280];
  formula = ax_arith_simplify(tc, formula, watch, nwatch, wr, &eliminated);
  if (eliminated) {
    snprintf(note, sizeof note, "%s%saxle eliminated %u divisibility constraint%s",
             o->dump_note ? o->dump_note : "", o->dump_note ? "\n" : "", eliminated,
             eliminated == 1 ? "" : "s");
    opts.dump_note = note;
  }
  const AxTerm *cases[MAX_CASES];
  size_t ncases = depth < MAX_SPLIT_DEPTH ? ax_arith_split(tc, formula, cases, MAX_CASES) : 0;
  if (ncases == 0) {
    if (o->window_facts) formula = ax_arith_window_facts(tc, formula);
    AxSmtResult r = dispatch(&opts, tc, formula, wr, nwatch, model_out, reason, reason_len);
    free(wr);
    return r;
  }
  AxSmtResult r = AX_SMT_UNSAT;
  char why[512] = "", path[4096];
  /* a case the caller refuted (query.h refute) settles the query: no later case is asked */
  for (size_t i = 0; i < ncases && r != AX_SMT_SAT && !(o->refute && *o->refuted); i++) {
    AxSolverOpts sub = opts;
    if (o->dump_path) {
      size_t len = strlen(o->dump_path);
      if (len > 5 && strcmp(o->dump_path + len - 5, ".smt2") == 0) len -= 5;
      snprintf(path, sizeof path, "%.*s-case%zu.smt2", (int)len, o->dump_path, i + 1);
      sub.dump_path = path;
    }
    AxSmtResult ri = check_cases(&sub, tc, cases[i], wr, nwatch, model_out, reason, reason_len,
                                 depth + 1);
    if (ri == AX_SMT_SAT) {
      r = AX_SMT_SAT;
    } else if (ri == AX_SMT_UNKNOWN && r == AX_SMT_UNSAT) {
      r = AX_SMT_UNKNOWN;
      snprintf(why, sizeof why, "%s", reason);
    }
  }
  if (r == AX_SMT_UNKNOWN) snprintf(reason, reason_len, "%s", why);
  free(wr);
  return r;
}

static bool is_log(const AxTerm *t, void *unused) {
  (void)unused;
  return ax_term_is_log(t);
}

static bool is_exp(const AxTerm *t, void *unused) {
  (void)unused;
  return ax_term_kind(t) == AX_TERM_EXP;
}

enum { MAX_EXP_PAIRS = 6 };   /* exp(u) exp(v) = exp(u + v) for at most this many exps */
enum { MAX_LOG_TRIPLES = 12 };   /* log(u v) = log u + log v looked for among this many logs */

/* Ground facts about exp and axle's logarithm (semantics/term.h, ax_term_mk_log) that the
 * query may need, conjoined to it: for every application log(v) in it, `v > 0 =>
 * exp(log(v)) = v` and `v = 1 => log(v) = 0`; for every three logs of u, v and u v (or
 * u / v), `u, v > 0 => log(u v) = log(u) + log(v)` (or the difference); for every exp(u),
 * `exp(u) > 0`; and for every two of at most MAX_EXP_PAIRS exps, `exp(u) * exp(v) = exp(u + v)`. All hold of the real
 * exp and log, the only ones the semantics means, so the query with them is satisfiable
 * exactly when it is; they let z3 (to which exp is uninterpreted) and cvc5 prove what
 * follows from them. Returns formula itself when it has neither. */
static const AxTerm *with_log_facts(AxTermCtx *tc, const AxTerm *formula) {
  AxArena *a = ax_arena_new();
  AxVec logs = {0}, exps = {0};
  const AxTerm *facts = ax_term_mk_true(tc);
  if (ax_term_collect(tc, &formula, 1, is_log, NULL, a, &logs) > 0) {
    const AxTerm *zero = ax_term_mk_real_si(tc, 0, 1), *one = ax_term_mk_real_si(tc, 1, 1);
    for (size_t i = 0; i < logs.len; i++) {
      const AxTerm *l = logs.items[i], *v = ax_term_arg(l, 0);
      const AxTerm *inv = ax_term_mk_implies(tc, ax_term_mk_lt(tc, zero, v),
                                             ax_term_mk_eq(tc, ax_term_mk_exp(tc, l), v));
      const AxTerm *at1 = ax_term_mk_implies(tc, ax_term_mk_eq(tc, v, one), ax_term_mk_eq(tc, l, zero));
      facts = ax_term_mk_and2(tc, facts, ax_term_mk_and2(tc, inv, at1));
    }
    /* log(u v) = log(u) + log(v) and log(u / v) = log(u) - log(v) for positive u, v,
     * where the query takes all three logs: exp's facts cannot give them, exp being
     * uninterpreted (not known injective) to z3 */
    for (size_t i = 0; i < logs.len && logs.len <= MAX_LOG_TRIPLES; i++)
      for (size_t j = 0; j < logs.len; j++) {
        if (i == j) continue;
        const AxTerm *u = ax_term_arg(logs.items[i], 0), *v = ax_term_arg(logs.items[j], 0);
        const AxTerm *pos = ax_term_mk_and2(tc, ax_term_mk_lt(tc, zero, u), ax_term_mk_lt(tc, zero, v));
        const AxTerm *prod = ax_term_mk_mul2(tc, u, v), *quot = ax_term_mk_rdiv(tc, u, v);
        for (size_t k = 0; k < logs.len; k++) {
          const AxTerm *w = ax_term_arg(logs.items[k], 0);
          if (w == prod && i < j)
            facts = ax_term_mk_and2(tc, facts, ax_term_mk_implies(tc, pos, ax_term_mk_eq(tc, logs.items[k],
                                    ax_term_mk_add2(tc, logs.items[i], logs.items[j]))));
          if (w == quot)
            facts = ax_term_mk_and2(tc, facts, ax_term_mk_implies(tc, pos, ax_term_mk_eq(tc, logs.items[k],
                                    ax_term_mk_sub(tc, logs.items[i], logs.items[j]))));
        }
      }
  }
  /* the exps of the query with the log facts (exp(log(v)) is one) */
  const AxTerm *both = ax_term_mk_and2(tc, formula, facts);
  size_t n = ax_term_collect(tc, &both, 1, is_exp, NULL, a, &exps);
  const AxTerm *zero = ax_term_mk_real_si(tc, 0, 1);
  for (size_t i = 0; i < n; i++) {
    const AxTerm *ei = exps.items[i];
    facts = ax_term_mk_and2(tc, facts, ax_term_mk_lt(tc, zero, ei));
    for (size_t j = i + 1; j < n && n <= MAX_EXP_PAIRS; j++) {
      const AxTerm *ej = exps.items[j];
      const AxTerm *sum = ax_term_mk_add2(tc, ax_term_arg(ei, 0), ax_term_arg(ej, 0));
      facts = ax_term_mk_and2(tc, facts, ax_term_mk_eq(tc, ax_term_mk_mul2(tc, ei, ej),
                                                       ax_term_mk_exp(tc, sum)));
    }
  }
  ax_arena_free(a);
  return ax_term_kind(facts) == AX_TERM_TRUE ? formula : ax_term_mk_and2(tc, formula, facts);
}

/* o->split: formula's one top-level conjunct ¬(P1 ∧ … ∧ Pn), n >= 2, as *goal with the
 * other conjuncts in rest (a vector in a). False when formula has no such
 * shape (none, or more than one negated conjunction). */
static bool goal_of(const AxTerm *formula, AxArena *a, AxVec *rest, const AxTerm **goal) {
  *goal = NULL;
  size_t n = ax_term_kind(formula) == AX_TERM_AND ? ax_term_nargs(formula) : 1;
  for (size_t i = 0; i < n; i++) {
    const AxTerm *c = n == 1 ? formula : ax_term_arg(formula, i);
    if (ax_term_kind(c) == AX_TERM_NOT && ax_term_kind(ax_term_arg(c, 0)) == AX_TERM_AND) {
      if (*goal) return false;
      *goal = ax_term_arg(c, 0);
    } else {
      ax_vec_push(a, rest, (void *)c);
    }
  }
  return *goal && ax_term_nargs(*goal) >= 2;
}

static bool is_var(const AxTerm *t, void *unused) {
  (void)unused;
  return ax_term_kind(t) == AX_TERM_VAR;
}

static size_t find(size_t *up, size_t i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* The goal's parts: its conjuncts not already among rest's (those are true wherever rest
 * is), grouped so that two conjuncts sharing a variable are in one group (the conjuncts of
 * one dimension, of one summation variable, stay together). Returns the number of groups;
 * group[i] (sized nargs(goal)) is conjunct i's group, or -1 for a conjunct left out. */
static size_t parts_of(const AxTermCtx *tc, const AxVec *rest, const AxTerm *goal, AxArena *a,
                       long *group) {
  size_t n = ax_term_nargs(goal), ngroups = 0;
  size_t *up = ax_arena_alloc(a, (n + 1) * sizeof *up);
  AxVec *vars = ax_arena_alloc(a, (n + 1) * sizeof *vars);
  for (size_t i = 0; i < n; i++) {
    const AxTerm *p = ax_term_arg(goal, i);
    up[i] = i;
    group[i] = 0;
    vars[i] = (AxVec){0};
    for (size_t j = 0; j < rest->len && group[i] == 0; j++)
      if (rest->items[j] == p) group[i] = -1;
    for (size_t j = 0; j < i && group[i] == 0; j++)
      if (ax_term_arg(goal, j) == p) group[i] = -1;   /* a repeated conjunct */
    if (group[i] == 0) ax_term_collect(tc, &p, 1, is_var, NULL, a, &vars[i]);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i && group[i] == 0; j++) {
      if (group[j] < 0) continue;
      for (size_t x = 0; x < vars[i].len; x++)
        for (size_t y = 0; y < vars[j].len; y++)
          if (vars[i].items[x] == vars[j].items[y]) up[find(up, i)] = find(up, j);
    }
  long *id = ax_arena_alloc(a, (n + 1) * sizeof *id);
  for (size_t i = 0; i < n; i++) id[i] = -1;
  for (size_t i = 0; i < n; i++) {
    if (group[i] < 0) continue;
    size_t r = find(up, i);
    if (id[r] < 0) id[r] = (long)ngroups++;
    group[i] = id[r];
  }
  return ngroups;
}

/* The goal asked part by part (query.h split): ctx ∧ ¬(G1 ∧ … ∧ Gm) is satisfiable exactly
 * when some ctx ∧ ¬Gk is (each Gk a conjunction of some of the goal's conjuncts, every
 * conjunct in one Gk or true wherever ctx is), and a model of that part is one of the
 * whole. Each part is a query of its own ("<dump>-part<k>.smt2"); a goal of one part is
 * asked whole. False (nothing asked) then. */
static bool check_split(const AxSolverOpts *o, AxTermCtx *tc, const AxVec *rest,
                        const AxTerm *goal, AxArena *a, const AxTerm *const *watch, size_t nwatch,
                        AxModel **model_out, char *reason, size_t reason_len, AxSmtResult *out) {
  size_t n = ax_term_nargs(goal);
  long *group = ax_arena_alloc(a, (n + 1) * sizeof *group);
  size_t m = parts_of(tc, rest, goal, a, group);
  if (m < 2) return false;
  AxSmtResult r = AX_SMT_UNSAT;
  char why[512] = "", path[4096];
  AxSolverOpts sub = *o;
  sub.split = false;
  sub.dump_prefix = NULL;   /* each part's dump is named below, when dumping at all */
  sub.dump_seq = NULL;
  const AxTerm *ctx = ax_term_mk_and(tc, rest->len, (const AxTerm *const *)rest->items);
  const AxTerm **in = ax_arena_alloc(a, (n + 1) * sizeof *in);
  for (size_t k = 0; k < m && r != AX_SMT_SAT; k++) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
      if (group[i] == (long)k) in[len++] = ax_term_arg(goal, i);
    if (o->dump_path) {
      size_t stem = strlen(o->dump_path);
      if (stem > 5 && strcmp(o->dump_path + stem - 5, ".smt2") == 0) stem -= 5;
      snprintf(path, sizeof path, "%.*s-part%zu.smt2", (int)stem, o->dump_path, k + 1);
      sub.dump_path = path;
    }
    const AxTerm *q = ax_term_mk_and2(tc, ctx, ax_term_mk_not(tc, ax_term_mk_and(tc, len, in)));
    AxSmtResult rk = ax_solver_check(&sub, tc, q, watch, nwatch, model_out, reason, reason_len);
    if (rk == AX_SMT_SAT) {
      r = AX_SMT_SAT;
    } else if (rk == AX_SMT_UNKNOWN && r == AX_SMT_UNSAT) {
      r = AX_SMT_UNKNOWN;
      snprintf(why, sizeof why, "%s", reason);
    }
  }
  if (r == AX_SMT_UNKNOWN) snprintf(reason, reason_len, "%s", why);
  *out = r;
  return true;
}

AxSmtResult ax_solver_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                            const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                            char *reason, size_t reason_len) {
  AX_ASSERT(ax_term_sort(formula) == AX_SORT_BOOL);
  char scratch[256];
  if (!reason || reason_len == 0) {   /* callers may ignore reasons; back-ends may not */
    reason = scratch;
    reason_len = sizeof scratch;
  }
  reason[0] = '\0';
  if (model_out) *model_out = NULL;

  AxSolverOpts opts = *o;
  if (!opts.binary) opts.binary = "cvc5";
  char path[4096];
  if (!opts.dump_path && opts.dump_prefix) {
    if (opts.dump_seq)
      snprintf(path, sizeof path, "%s-%u.smt2", opts.dump_prefix, ++*opts.dump_seq);
    else
      snprintf(path, sizeof path, "%s.smt2", opts.dump_prefix);
    opts.dump_path = path;
  }
  if (opts.split) {
    AxArena *a = ax_arena_new();
    AxVec rest = {0};
    const AxTerm *goal;
    AxSmtResult r = AX_SMT_UNKNOWN;
    bool split = goal_of(formula, a, &rest, &goal) &&
                 check_split(&opts, tc, &rest, goal, a, watch, nwatch, model_out, reason,
                             reason_len, &r);
    ax_arena_free(a);
    if (split) return r;
  }
  formula = with_log_facts(tc, formula);
  AxSmtResult r = check_cases(&opts, tc, formula, watch, nwatch, model_out, reason, reason_len, 0);
  /* Only a SAT answer carries a model; a back-end that left one elsewhere is a bug. */
  AX_ASSERT(r == AX_SMT_SAT || !model_out || !*model_out);
  if (r == AX_SMT_UNKNOWN && reason[0] == '\0') snprintf(reason, reason_len, "unknown");
  return r;
}
