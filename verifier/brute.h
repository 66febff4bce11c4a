/* brute.h — the brute-force oracle: small concrete instances of a rule, evaluated with
 * axle's own concrete semantics, searched for a counterexample.
 *
 * The verifier proves a rule through solver queries over symbolic instances; this module
 * asks the same question without any solver. For one rule at one element type it builds
 * concrete instances — a rank vector (every class at ranks 1..max_rank, a class fixed by a
 * concat or iota axis at 1), a value for every symbolic map on every named axis (sizes
 * 0..max_size; other maps also -1 unless declared nonneg), and a value for every point of
 * every input tensor from a small set per element type (int {0, 1, -1, 2, -3}, real {0, 1,
 * -1, 1/2, 3}, bool {true, false}) — and evaluates both sides with the denotations of
 * semantics/denote.h in the concrete domain (semantics/concrete.h, GMP). An instance
 * *counts* when every precondition holds (the map conditions, and every tensor precondition
 * at every point of its shape: verifier/cex.h ax_cex_pre_everywhere) and the left side is
 * valid; it is a *counterexample* when then the right side is invalid, the sizes differ, or
 * at some point of the left side's shape the two elements are not the same (both NaN, or
 * equal: the domain's elem_same). Which conditions it checks and how are the replay's
 * (verifier/cex.c), so the two oracles disagree only where one of them is wrong.
 *
 * Where the instances within the limits are few (at most `exhaustive`) all of them are
 * tried; otherwise the instances whose tensors have few values are tried whole and the rest
 * are sampled with a fixed-seed generator (`samples` in all), tensors drawn constant, constant
 * but for one point, or point by point — a shape most counterexamples have. An instance the
 * concrete domain cannot evaluate (exp at a non-zero point, an irrational root, a reduction
 * too large) does not count; a rule none of whose instances it can evaluate is SKIPPED.
 *
 * No search is a proof: NONE means no counterexample within the limits, nothing more. The
 * verdict fuzzer (tools/verdict-fuzz.py) compares it with `axle verify`. */
#ifndef AX_BRUTE_H
#define AX_BRUTE_H

#include <stdint.h>

#include "dsl/check.h"
#include "semantics/domain.h"

typedef struct AxBruteOpts {
  uint64_t seed;         /* of the sampling generator (mixed with the rule's name and type) */
  unsigned samples;      /* instances tried when not exhaustive (default 2000) */
  int max_rank;          /* every class at ranks 1..max_rank (default 3) */
  int max_size;          /* map values 0..max_size, and -1 (default 3) */
  unsigned exhaustive;   /* try every instance when there are at most this many (20000) */
  double time_limit_s;   /* stop a rule and type after this long (default 60; 0: none) —
                            the only setting that makes a result depend on the machine */
} AxBruteOpts;

/* The defaults above. */
void ax_brute_defaults(AxBruteOpts *o);

typedef enum { AX_BRUTE_NONE, AX_BRUTE_REFUTED, AX_BRUTE_SKIPPED } AxBruteStatus;

typedef struct AxBruteResult {
  AxBruteStatus status;
  bool exhaustive;            /* every instance within the limits was tried */
  unsigned long tried;        /* instances evaluated */
  unsigned long counted;      /* ... of which every precondition held with a valid LHS */
  unsigned long unevaluable;  /* instances the concrete domain could not evaluate */
  unsigned long too_large;    /* map instances or instances left out as too large or too
                                 costly to evaluate (beyond the limits of brute.c) */
  bool timed_out;             /* stopped at the time limit */
  char *reason;               /* SKIPPED: why; otherwise why some instances were unevaluable
                                 (or NULL) */
  char *failed;               /* REFUTED: "the values differ at the access", ... */
  char *cex_text;             /* REFUTED: the instance for a human (lines, no indentation
                                 beyond two spaces; no trailing newline) */
  char *cex_json;             /* REFUTED: the instance as a JSON object, in the layout of a
                                 replayed counterexample (docs/cli.md): ranks, maps, shapes,
                                 access, reads (every point of every input tensor), lhs, rhs */
  double time_ms;
} AxBruteResult;

/* Searches rule (checked, without errors) at element type t for a counterexample within
 * o's limits. Borrows rule and o; fills *out, which owns its strings (ax_brute_free). */
void ax_brute_rule(const AxBlock *rule, AxType t, const AxBruteOpts *o, AxBruteResult *out);

/* The outcome of evaluating one given instance (ax_brute_instance). */
typedef enum {
  AX_BRUTE_REPRODUCED,   /* a counterexample, and the failure the instance names (the
                            values at its access, the sizes, the right side's validity) */
  AX_BRUTE_ELSEWHERE,    /* a counterexample, but not the failure it names: the values
                            differ at another access */
  AX_BRUTE_NOT_CEX,      /* no counterexample: a precondition fails somewhere (said where),
                            the left side is invalid, or both sides agree everywhere */
  AX_BRUTE_UNEVALUABLE,  /* the concrete domain cannot evaluate it (why) */
  AX_BRUTE_BAD_INSTANCE, /* the JSON does not describe an instance of this rule (why) */
} AxBruteCheck;

/* Evaluates exactly the instance described by `json` — a counterexample object as `axle
 * verify --format json` or ax_brute_rule writes it: "ranks", "maps" (symbolic maps; defined
 * ones are ignored), "reads" (tensor points with their values), "access" and "failed";
 * points not listed read as the replay's fill "unlisted_points_k" (semantics/concrete.h
 * ax_concrete_set_fill; 0 when absent) — for rule at element type t. Returns the outcome;
 * *why (owned, malloc'd) says what failed or why it is no counterexample; *failed (owned,
 * may be NULL) names the failure found when it is one. */
AxBruteCheck ax_brute_instance(const AxBlock *rule, AxType t, const char *json, char **why,
                               char **failed);

void ax_brute_free(AxBruteResult *r);

#endif
