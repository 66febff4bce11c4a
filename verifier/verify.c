/* verify.c — the verification of one rule at one element type; see verify.h. */
#include "verifier/verify.h"

#ifdef __GLIBC__
#include <malloc.h>   /* malloc_trim */
#endif
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "verifier/bijection.h"
#include "verifier/cex.h"
#include "verifier/instance.h"
#include "verifier/rank.h"

int ax_rule_types(const AxBlock *rule, AxType out[3]) {
  if (!rule->tvar.name) {
    out[0] = AX_INT;   /* no type variable: one run, in which T never occurs */
    return 1;
  }
  switch (rule->tclass) {
  case AX_TC_ANY: out[0] = AX_BOOL; out[1] = AX_INT; out[2] = AX_REAL; return 3;
  case AX_TC_NUM: out[0] = AX_INT; out[1] = AX_REAL; return 2;
  case AX_TC_INT: out[0] = AX_INT; return 1;
  case AX_TC_REAL: out[0] = AX_REAL; return 1;
  case AX_TC_BOOL: out[0] = AX_BOOL; return 1;
  }
  return 0;
}

/* --dump-smt: o with its queries written to "<dump_stem>.<ranks><what>.smt2" (ranks as
 * "x_2-y_1." or empty; no '=', which z3's command line takes for a parameter), numbered
 * "-<n>" when seq is non-NULL; o itself when not dumping. */
static const AxVerifyOpts *dumping(const AxVerifyOpts *o, AxVerifyOpts *local, char *prefix,
                                   size_t len, const AxRuleSyms *s, const int *rank,
                                   const char *what, unsigned *seq) {
  if (!o->dump_stem) return o;
  size_t n = (size_t)snprintf(prefix, len, "%s.", o->dump_stem);
  for (size_t c = 0; rank && c < s->nrclasses && n < len; c++)
    n += (size_t)snprintf(prefix + n, len - n, "%s%s_%d", c ? "-" : "", s->rclasses[c].name, rank[c]);
  if (n < len) snprintf(prefix + n, len - n, "%s%s", rank && s->nrclasses ? "." : "", what);
  *local = *o;
  local->solver.dump_path = NULL;
  local->solver.dump_prefix = prefix;
  local->solver.dump_seq = seq;
  return local;
}

/* Small concrete instances replayed exactly (ax_cex_search): true, with the replay in
 * *found (its strings owned by the caller), when one refutes the rule. Asked once per
 * instance (in->searched). */
static bool search_small(AxSymInstance *in, const AxWatch *w, AxReplay *found) {
  if (in->searched) return false;
  if (!ax_cex_search(in, w, AX_CEX_SAMPLES, found)) {
    in->searched = true;
    return false;
  }
  return true;
}

/* out takes the counterexample of search_small (found consumed) and its reason. */
static void take_small(AxReplay *found, const char *where, AxResult *out) {
  ax_result_set_reason(out, "at rank %s: %s (found by replaying small instances)", where, found->failed);
  ax_result_take_cex(out, found);
  free(found->failed);
  found->failed = NULL;
}

/* search_small, its counterexample and reason in out: the only INVALID that does not come
 * from a solver's model. */
static bool refuted_small(AxSymInstance *in, const AxWatch *w, const char *where, AxResult *out) {
  AxReplay found;
  if (!search_small(in, w, &found)) return false;
  take_small(&found, where, out);
  return true;
}

/* The VC query's early refutation (query.h refute): a solver's model that does not replay,
 * while the other solver is still at it, sends the verifier to the small-instance search
 * now instead of after that solver's answer or time limit — in exactly the cases where the
 * model, given back at the end, would send it there (instance() below): not confirmed, not
 * a model to complete (partial_pre), the replay unsupported or a sum closed under sqrt, and
 * an uninterpreted function or such a sum in the query. */
typedef struct Early {
  AxSymInstance *in;
  const AxWatch *w;
  AxReplay found;   /* the counterexample, when search() returned true */
  bool has;
} Early;

static bool search(void *ctx, const AxModel *m) {
  Early *e = ctx;
  if (e->has) return true;
  if (e->in->searched || !(e->w->opaque || e->in->nclosed)) return false;
  AxReplay rep;
  ax_cex_replay(e->in, e->w, m, &rep);
  bool sent = !rep.confirmed && !rep.partial_pre && (rep.unsupported || e->in->nclosed);
  free(rep.text);
  free(rep.json);
  free(rep.failed);
  e->has = sent && search_small(e->in, e->w, &e->found);
  return e->has;
}

/* Verifies one rank vector. Returns the verdict of this instance: VERIFIED (holds),
 * INVALID (replayed counterexample, stored in out), UNKNOWN or ERROR (reason in out). */
static AxVerdict instance(const AxBlock *rule, AxType T, const int *rank, const AxVerifyOpts *o,
                          AxResult *out, bool *vacuous) {
  AxSymInstance in;
  ax_instance_build(&in, rule, T, rank);
  char *where = ax_verify_ranks_text(rule->syms, rank);
  AxVerdict v = AX_VERIFIED;
  char reason[512] = "";
  if (in.unsupported) {
    ax_result_set_reason(out, "%s%s", in.unsupported, "");
    v = AX_UNKNOWN;
    goto done;
  }
  AxVerifyOpts dump_opts;
  char prefix[4096];
  unsigned hints = 0;
  const AxVerifyOpts *base = o;
  if (in.reduction) {
    /* small concrete instances first (docs/semantics.md, "Shortcuts in solving"): a wrong reduction rule is
     * usually refuted by one in a few milliseconds, where the solvers need five or six
     * queries before the last one's model — often with thousands of summands, each
     * replayed — shows it; a true rule pays the few milliseconds of a search that misses */
    AxWatch w;
    ax_cex_watch(&in, in.query, &w);
    if (refuted_small(&in, &w, where, out)) {
      v = AX_INVALID;
      goto done;
    }
  }
  if (ax_term_kind(in.not_finite) != AX_TERM_FALSE) {
    /* summands that are not finite by construction (a division, an infinite literal): the
     * normal forms of reductions hold only for finite summands, so they must be finite
     * wherever the values are compared — under the preconditions — or nothing is claimed */
    out->queries++;
    o = dumping(base, &dump_opts, prefix, sizeof prefix, rule->syms, rank, "finite", NULL);
    AxSmtResult f = ax_solver_check(&o->solver, in.tc, ax_term_mk_and2(in.tc, in.ctx, in.not_finite), NULL, 0,
                                    NULL, reason, sizeof reason);
    if (f != AX_SMT_UNSAT) {
      /* no claim from the normal forms; only a concrete replay (exact, whatever the
       * summands) can still refute the rule: small instances, as for reductions */
      ax_result_set_reason(out, "at rank %s: a sum of values that may be infinite or NaN (%s)", where,
                 f == AX_SMT_SAT ? "a summand is not finite at a point where the preconditions hold"
                                 : reason);
      v = AX_UNKNOWN;
      AxWatch w;
      ax_cex_watch(&in, in.query, &w);
      if (refuted_small(&in, &w, where, out)) v = AX_INVALID;
      goto done;
    }
  }
  AxWatch w;
  ax_cex_watch(&in, in.query, &w);
  AxModel *m = NULL;
  out->queries++;
  o = dumping(base, &dump_opts, prefix, sizeof prefix, rule->syms, rank, "vc", NULL);
  AxEagerReplay eager = {&in, &w};
  AxSolverOpts vc;
  ax_verify_eager(&vc, &o->solver, &eager);
  Early early = {.in = &in, .w = &w};
  bool refuted = false;
  vc.refute = search;
  vc.refute_ctx = &early;
  vc.refuted = &refuted;
  AxSmtResult r = ax_solver_check(&vc, in.tc, in.query, w.terms, w.n, &m, reason, sizeof reason);
  vc.refute = NULL;   /* vc serves ax_verify_complete below: its query is another one */
  if (refuted || early.has) {
    /* a small instance refuted the rule while a solver was still at the query. The replay
     * is exact and meets every precondition, so it decides even when the other solver's
     * unsat came in meanwhile (a solver or the encoding is then wrong: said in the reason,
     * never a VERIFIED against a counterexample in hand) */
    v = AX_INVALID;
    take_small(&early.found, where, out);
    if (!refuted && r == AX_SMT_UNSAT) {
      char *was = ax_xstrdup(out->reason);   /* set_reason frees the old one first */
      ax_result_set_reason(out, "%s%s", was, "; a solver answered unsat on this query, which this "
                                              "counterexample contradicts");
      free(was);
    }
  } else if (r == AX_SMT_UNKNOWN) {
    ax_result_set_reason(out, "at rank %s: %s", where, reason);
    v = AX_UNKNOWN;
  } else if (r == AX_SMT_SAT) {
    AxReplay rep;
    ax_cex_replay(&in, &w, m, &rep);
    if (!rep.confirmed && rep.partial_pre)
      ax_verify_complete(&in, in.query, &w, m, &vc, &out->queries, &rep);
    if (rep.confirmed) {
      v = AX_INVALID;
      ax_result_set_reason(out, "at rank %s: %s", where, rep.failed);
      ax_result_take_cex(out, &rep);
    } else if (rep.unsupported || in.nclosed) {
      /* the model need not be a real counterexample: an uninterpreted function (log, pow's
       * open cases, sqrt, a sum under sqrt: symbolic.c close_sum) may take values the true
       * one does not, or a value has no exact rational form. Where an uninterpreted
       * function is the cause, small concrete instances, replayed exactly, may still refute
       * the rule; nothing else is claimed. */
      if ((w.opaque || in.nclosed) && refuted_small(&in, &w, where, out)) {
        v = AX_INVALID;
      } else if (in.nclosed) {
        v = AX_UNKNOWN;
        ax_result_set_reason(out, "at rank %s: %s", where,
                   "the solver's counterexample does not replay (a sum under sqrt is uninterpreted to "
                   "the solver) and no small instance refutes the rule");
      } else {
        v = AX_UNKNOWN;
        ax_result_set_reason(out, w.opaque ? "at rank %s: the solver's counterexample cannot be replayed: %s; "
                                   "no small instance refutes the rule"
                                 : "at rank %s: the solver's counterexample cannot be replayed: %s",
                   where, rep.unsupported);
      }
    } else {
      v = AX_ERROR;
      ax_result_set_reason(out, "at rank %s: %s", where,
                 "internal error: the solver's counterexample does not replay in the concrete domain");
    }
    free(rep.failed);
  } else if (in.reduction &&
             (v = ax_bij_prove(&in, dumping(base, &dump_opts, prefix, sizeof prefix, rule->syms,
                                            rank, "hint", &hints),
                               where, out)) != AX_VERIFIED) {
    /* the values of a reduction did not follow from a checked bijection */
  } else {
    /* holds here; is it only because nothing satisfies the precondition? */
    const AxTerm *sat = ax_term_mk_and2(in.tc, in.pre, in.valid_lhs);
    out->queries++;
    o = dumping(base, &dump_opts, prefix, sizeof prefix, rule->syms, rank, "vacuity", NULL);
    *vacuous = ax_solver_check(&o->solver, in.tc, sat, NULL, 0, NULL, reason, sizeof reason) == AX_SMT_UNSAT;
  }
  ax_model_free(m);
done:
  free(where);
  ax_instance_free(&in);
  return v;
}

/* The instances of one box (ax_verify_sweep): *all_vacuous is cleared unless every
 * instance was VERIFIED vacuously. */
typedef struct Box {
  const AxBlock *rule;
  AxType T;
  const AxVerifyOpts *o;
  bool *all_vacuous;
} Box;

static AxVerdict box_instance(void *ctx, const int *rank, AxResult *out) {
  Box *b = ctx;
  bool vac = false;
  AxVerdict v = instance(b->rule, b->T, rank, b->o, out, &vac);
  *b->all_vacuous &= v == AX_VERIFIED && vac;
  return v;
}

/* Every rank vector r with 1 <= r[c] <= hi[c], the first class fastest, except those inside
 * `skip` when skip is non-NULL: the worst verdict, stopping at the first INVALID (its
 * counterexample in out); `at` receives the rank vector of the instance whose verdict is
 * returned. */
static AxVerdict run_box(const AxBlock *rule, AxType T, const AxVerifyOpts *o, AxResult *out,
                         const int *hi, const int *skip, int *at, bool *all_vacuous) {
  Box b = {rule, T, o, all_vacuous};
  return ax_verify_sweep(rule->syms, hi, skip, AX_SWEEP_ODOMETER, AX_VERIFIED, box_instance, &b,
                        out, at);
}

void ax_verify_rule(const AxBlock *rule, AxType T, const AxVerifyOpts *o, AxResult *out) {
  const AxRuleSyms *s = rule->syms;
  memset(out, 0, sizeof *out);
  double t0 = ax_clock_s();
  out->rule = rule;
  out->type = T;
  out->has_type = rule->tvar.name != NULL;
  out->nrclasses = (int)s->nrclasses;
  out->rclass_names = ax_xcalloc(s->nrclasses + 1, sizeof(char *));
  for (size_t c = 0; c < s->nrclasses; c++) out->rclass_names[c] = s->rclasses[c].name;

  if (ax_check_same_expr(s, s->lhs, s->rhs)) {
    out->verdict = AX_VERIFIED;
    out->trivial = true;
    out->bounds = ax_xcalloc(s->nrclasses + 1, sizeof(int));
    for (size_t c = 0; c < s->nrclasses; c++) out->bounds[c] = 1;
    out->reason = ax_xstrdup("both sides are the same expression (after inlining lets)");
    out->time_ms = (ax_clock_s() - t0) * 1e3;
    return;
  }
  AxRankBounds rb;
  ax_rank_bounds(rule, T, &rb);
  out->bounds = rb.bounds;
  rb.bounds = NULL;
  if (rb.unsupported) {
    out->verdict = AX_UNKNOWN;
    ax_result_set_reason(out, "unsupported: %s%s", rb.unsupported, "");
    ax_rank_bounds_free(&rb);
    out->time_ms = (ax_clock_s() - t0) * 1e3;
    return;
  }
  ax_rank_bounds_free(&rb);
  /* A hook for the oracle's own test (tests/e2e/bound_slack.sh; read by axle-test only,
   * base/hooks.h): bounds capped at N, as a wrong inference would make them, so that
   * --bound-slack can be seen to catch it. */
  const char *cap = ax_test_hook("AXLE_TEST_BOUND_CAP");
  for (size_t c = 0; cap && atoi(cap) >= 1 && c < s->nrclasses; c++)
    if (out->bounds[c] > atoi(cap)) out->bounds[c] = atoi(cap);
  int slack = o->bound_slack > 0 ? o->bound_slack : 0;
  /* a class fixed by a concat or iota axis is claimed at rank 1 only: never raised */
  int *hi = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  long total = 1;
  for (size_t c = 0; c < s->nrclasses; c++) {
    hi[c] = out->bounds[c] + (s->rclasses[c].singleton ? 0 : slack);
    total *= hi[c];
  }
  if (o->max_instances && total > o->max_instances) {
    char n[32];
    snprintf(n, sizeof n, "%ld", total);
    out->verdict = AX_UNKNOWN;
    ax_result_set_reason(out, "the rank bounds ask for %s instances (more than %s allowed)", n, "--max-instances");
    out->time_ms = (ax_clock_s() - t0) * 1e3;
    free(hi);
    return;
  }
  int *rank = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  bool all_vacuous = true;
  AxVerdict worst = run_box(rule, T, o, out, out->bounds, NULL, rank, &all_vacuous);
  out->vacuous = worst == AX_VERIFIED && all_vacuous;
  if (slack && worst == AX_VERIFIED) {
    /* --bound-slack: the oracle for bound inference. Every rank vector up to bound + K that
     * lies outside the inferred box; a verdict other than VERIFIED there means the inferred
     * bounds did not cover the rule (INVALID: the theorem's premise is wrong — an ERROR
     * naming the classes) or could not be confirmed (UNKNOWN). */
    bool vac = true;
    AxVerdict extra = run_box(rule, T, o, out, hi, out->bounds, rank, &vac);
    if (extra != AX_VERIFIED) {
      char classes[512] = "", *at = ax_verify_ranks_text(s, rank);
      size_t len = 0;
      for (size_t c = 0; c < s->nrclasses && len < sizeof classes - 64; c++)
        if (rank[c] > out->bounds[c])
          len += (size_t)snprintf(classes + len, sizeof classes - len, "%s%s (bound %d)", len ? ", " : "",
                                  s->rclasses[c].name, out->bounds[c]);
      char *why = out->reason ? out->reason : ax_xstrdup("");
      out->reason = NULL;
      char *msg = ax_xmalloc(strlen(why) + strlen(classes) + strlen(at) + 256);
      if (extra == AX_INVALID || extra == AX_INVALID_HINT) {
        sprintf(msg, "bound inference too small for %s: the rule is %s at rank %s, beyond the "
                     "inferred bounds (--bound-slack %d): %s", classes,
                extra == AX_INVALID ? "INVALID" : "INVALID-HINT", at, slack, why);
        worst = AX_ERROR;
      } else {
        sprintf(msg, "--bound-slack %d: the instance at rank %s beyond the inferred bounds of %s was "
                     "not decided: %s", slack, at, classes, why);
        worst = extra == AX_ERROR ? AX_ERROR : AX_UNKNOWN;
      }
      out->reason = msg;
      out->vacuous = false;
      free(why);
      free(at);
    }
  }
  free(hi);
  out->verdict = worst;
  if (worst == AX_VERIFIED) {
    free(out->reason);
    out->reason = NULL;
  }
  free(rank);
#ifdef __GLIBC__
  /* Give the memory this rule freed back to the system. A worker verifies many rules, and
   * every query forks it twice (portfolio.c): a replay of a counterexample with thousands
   * of summands frees a gigabyte that glibc keeps mapped behind a live chunk, after which
   * each fork copied its page tables and every later rule of the worker ran five times
   * slower (docs/semantics.md, "Shortcuts in solving"). Memory only: no verdict depends on it. */
  malloc_trim(0);
#endif
  out->time_ms = (ax_clock_s() - t0) * 1e3;
}
