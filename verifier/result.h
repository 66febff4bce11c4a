/* result.h — what verifying a rule yields, and the steps every verifier of this folder
 * shares (verify.c, bijection.c, fpcheck.c): the verdict and result types, their names, the
 * reason and counterexample plumbing, asking the solver for a model that replays, and the
 * one sweep over rank vectors that both the proof and IEEE mode run.
 * Below verify.h, bijection.h and rank.h, so that none of them needs another's header for
 * these: the verifier's modules form no include cycle. The result owns its strings (free
 * with ax_result_free). */
#ifndef AX_RESULT_H
#define AX_RESULT_H

#include "dsl/check.h"
#include "semantics/domain.h"
#include "smt/solver.h"

/* A rule instance's verdict (names: ax_verdict_name, ax_report_verdict_upper). */
typedef enum {
  AX_VERIFIED,
  AX_INVALID,
  AX_INVALID_HINT,
  AX_UNKNOWN,
  AX_ERROR,
  /* IEEE mode (fpcheck.h) only: no counterexample in floating point at the stated ranks and
   * sizes. A bounded check, not a proof (it meets `expect valid`; reports say it is none). */
  AX_HOLDS_BOUNDED,
} AxVerdict;

/* `--numbers ieee` (fpcheck.h): the bounds of the check and the formats it runs at. */
typedef struct AxIeeeOpts {
  bool on;
  int max_rank;         /* every rank class from 1 to max_rank (default 2) */
  int max_size;         /* every input size and every reduced extent <= max_size (3) */
  unsigned formats;     /* bit AX_SORT_F32 / F16 / BF16 set: checked (default all three) */
} AxIeeeOpts;

typedef struct AxVerifyOpts {
  AxSolverOpts solver;    /* back-end, timeout per query, dump path prefix */
  int max_instances;      /* refuse (UNKNOWN) when the bounds ask for more; 0: no limit */
  /* --bound-slack K: also run every rank vector up to bound + K (the oracle of bound
   * inference). VERIFIED within the bounds and INVALID beyond them is an ERROR naming the
   * classes ("bound inference too small for x"); undecided beyond them is UNKNOWN. */
  int bound_slack;
  /* --dump-smt: if non-NULL, every query is written to "<dump_stem>.<what>.smt2", what
   * naming the query: "<ranks>.vc" (the verification
   * condition of one rank instance, ranks as in "x_2-y_1"), "<ranks>.vacuity",
   * "<ranks>.hint-<n>" (a reduction's bijection). Overrides solver.dump_path/prefix. */
  const char *dump_stem;
  AxIeeeOpts ieee;
} AxVerifyOpts;

typedef struct AxResult {
  const AxBlock *rule;
  AxType type;
  bool has_type;              /* false when the rule has no type variable */
  AxVerdict verdict;
  int nrclasses;
  const char **rclass_names;  /* borrowed from the AST */
  int *bounds;                /* per rank class (a class fixed at rank 1 by a concat or
                                 iota axis says so in rule->syms->rclasses[c].singleton) */
  int instances;              /* rank vectors checked */
  int queries;                /* solver queries sent */
  double time_ms;
  bool vacuous;               /* the precondition admits no valid LHS at any instance */
  char *reason;               /* UNKNOWN/ERROR: why; INVALID: which condition failed */
  char *cex_text;             /* INVALID: the replayed counterexample for a human */
  char *cex_json;             /* INVALID: the same as a JSON object (text) */
  /* The pairings of summation indices that axle inferred where the rule wrote no hint
   * (bijection.h), as "k == i, x == x" (right-hand index == left-hand index; an index map
   * by its name, an unnamed index by its axis, or all by their instance names, "x.0#3",
   * when those would be ambiguous; docs/cli.md), taken from the first rank instance that
   * inferred any; NULL when nothing was inferred. */
  char *inferred_hint;
  /* Both sides are one expression (after inlining lets): VERIFIED trivially, without a
   * solver; it proves nothing about a rewrite and, like a vacuous result, does not meet
   * `expect valid` (only `expect trivial`). */
  bool trivial;
  /* Which solvers answered unsat on every query behind the verdict ("z3+cvc5", "cvc5",
   * "z3", ...; NULL when none was asked), and whether some query was confirmed by only one
   * of two solvers asked (the other could not decide: a timeout, exp for z3). */
  char *confirmed_by;
  bool single;                /* one solver stands behind it (a single-solver mode, or: */
  bool partial;               /* two were asked and one could not decide some query) */
  bool strict;                /* set by the caller: a single-solver VERIFIED does not meet
                                 the expectation (gate --require-both) */
  bool cached;                /* taken from the result cache (cache.h), not recomputed */
  bool disagreement;          /* cross-checking solvers disagreed (verdict ERROR) */
  /* IEEE mode: the result is for floating-point format `fmt` (type is AX_REAL), checked at
   * every rank vector up to ieee_rank and sizes up to ieee_size (bounds[] holds the ranks
   * reached, not inferred bounds). */
  bool ieee;
  AxSort fmt;
  int ieee_rank, ieee_size;
} AxResult;

const char *ax_verdict_name(AxVerdict v);   /* "verified", "invalid", ..., "holds-bounded" */
const char *ax_type_name(AxType t);         /* "bool", "int", "real" */

void ax_result_free(AxResult *r);

/* --- For the verifier's own files (verify.c, bijection.c, fpcheck.c) ---------------------- */

struct AxSymInstance;
struct AxWatch;
/* Eager replay (query.h, AxSolverOpts.replay): a query's candidate models replayed in the
 * concrete domain (cex.h) the moment a solver gives one, so that a counterexample that
 * replays does not wait for the other solver. The caller replays the model it is finally
 * given again, for its text: only that replay makes a verdict INVALID. */
typedef struct AxEagerReplay {
  struct AxSymInstance *in;
  const struct AxWatch *w;   /* the watch list the query was asked with */
} AxEagerReplay;

/* s: a copy of base whose candidate models are replayed against e (borrowed; it must
 * outlive every query asked with s). */
void ax_verify_eager(AxSolverOpts *s, const AxSolverOpts *base, AxEagerReplay *e);

/* For the verifiers of this folder (verify.c, fpcheck.c): out->reason becomes fmt filled with
 * a and b (fmt holds exactly two %s), the old reason freed; and a rank vector as reports
 * print it, "x=2, y=1" (returned owned). */
void ax_result_set_reason(AxResult *out, const char *fmt, const char *a, const char *b);
/* out's counterexample becomes rep's text and JSON (moved: rep keeps neither; out's old ones
 * freed). */
struct AxReplay;
void ax_result_take_cex(AxResult *out, struct AxReplay *rep);
char *ax_verify_ranks_text(const AxRuleSyms *s, const int *rank);

/* A model of `formula` whose replay broke a tensor precondition away from the points the
 * query looked at (rep->partial_pre): asks the solver again at the model's sizes with every
 * tensor precondition instantiated at every point of its shape (ax_cex_completion) and
 * replays that model into *rep. True when it replays as a counterexample; false with
 * rep->unsupported saying why not (no such counterexample at those sizes, the shapes too
 * large, the solver undecided) — never an INVALID without a replay. */
bool ax_verify_complete(struct AxSymInstance *in, const AxTerm *formula, const struct AxWatch *w,
                        const AxModel *m, const AxSolverOpts *so, int *queries,
                        struct AxReplay *rep);

/* --- The rank sweep both verifiers run (verify.c, fpcheck.c) -------------------------- */

/* ORDER of the sweep over the rank vectors r with 1 <= r[c] <= hi[c]. */
typedef enum {
  AX_SWEEP_ODOMETER,   /* the first class fastest (the proof's box) */
  AX_SWEEP_BY_TOTAL,   /* lowest total rank first, the odometer within one total (IEEE mode) */
} AxSweepOrder;

/* One instance: its verdict, a reason or counterexample left in out (ax_result_set_reason). */
typedef AxVerdict (*AxSweepCheck)(void *ctx, const int *rank, AxResult *out);

/* How much a verdict of one instance says about the rule: INVALID, then a wrong hint, then
 * an internal error, then UNKNOWN; VERIFIED and HOLDS_BOUNDED say nothing against it. */
int ax_verdict_severity(AxVerdict v);

/* Checks every rank vector r with 1 <= r[c] <= hi[c] (s->nrclasses classes) in `order`,
 * except those inside `skip` (r[c] <= skip[c] for every c) when skip is non-NULL, counting
 * each in out->instances. Returns the worst verdict (start when none is worse: VERIFIED or
 * HOLDS_BOUNDED), whose reason stays in out->reason — a later instance's milder verdict
 * does not replace it; stops at the first INVALID. `at` (nrclasses ints) receives the rank
 * vector of the instance whose verdict is returned (all 1 when none). */
AxVerdict ax_verify_sweep(const AxRuleSyms *s, const int *hi, const int *skip, AxSweepOrder order,
                          AxVerdict start, AxSweepCheck check, void *ctx, AxResult *out, int *at);

#endif
