/* axioms.h — the gate between proved rules and the superoptimizer's search.
 *
 * The search prunes with Mirage's A_eq axioms (Table 2). In axle each axiom it relies on
 * is a tensor rule in rules/superopt/ with a fixed name (docs/superopt.md, "Proved
 * axioms"), and the search may start only when `axle verify` says VERIFIED for every one:
 * a wrong axiom could prune away the only equivalent graphs, or — worse — let an
 * e-graph derive equalities that do not hold. ax_superopt_axioms_proved is that gate.
 *
 * It reads every .axl file directly in rules_dir (not below it), checks it, and verifies
 * every rule at every element type of its class — the result cache first (the cache of
 * `axle verify`, same key material: the same options give the same entries), in-process
 * otherwise, storing what it proves. Every result that is not VERIFIED (INVALID,
 * INVALID-HINT, UNKNOWN, ERROR, a trivial or vacuous VERIFIED, a rule whose file does
 * not parse) and every required name that no rule carries is reported by name. Nothing
 * is skipped on a failure: the report lists them all. No path turns a failure into
 * "proved". */
#ifndef AX_AXIOMS_H
#define AX_AXIOMS_H

#include "verifier/verify.h"

typedef struct AxAxiomReport {
  int files, rules, results;   /* .axl files, rules, rule × element type results */
  int verified, cached;        /* results VERIFIED; of the results, taken from the cache */
  int failed;                  /* results (and missing names) that are not VERIFIED */
  int skipped;                 /* rules marked `expect invalid` or `expect trivial`,
                                  skipped (ax_axioms_gate) */
  char *failures;              /* owned: one line per failure, "file:line: NAME [type]
                                  VERDICT: reason" or "NAME: no such rule in DIR";
                                  "" when none */
} AxAxiomReport;

/* The options `axle verify` runs with by default (--solver both, --timeout 10), and the
 * solver setting's name that its cache key uses ("both"). */
void ax_axioms_default_opts(AxVerifyOpts *vo, const char **solver_name);

/* Verifies every rule of rules_dir (see above) with vo; solver_name is the --solver
 * setting vo stands for (the cache key). required[0..nrequired) are rule names that
 * must be present (the axioms the caller uses; may be NULL/0). Returns true only when
 * every result is VERIFIED and every required name is present. rep is filled either way
 * (free with ax_axiom_report_free). The cache is $XDG_CACHE_HOME/axle (as `axle verify`);
 * when it cannot be opened, everything is verified afresh. */
bool ax_superopt_axioms_proved(const char *rules_dir, const AxVerifyOpts *vo,
                               const char *solver_name, const char *const *required,
                               int nrequired, AxAxiomReport *rep);
void ax_axiom_report_free(AxAxiomReport *rep);

/* The gate rule by rule, for callers that use the rules themselves (`axle optimize`): the
 * same walk, cache and verdicts as ax_superopt_axioms_proved, with no required names, and
 * rules marked `expect invalid` (or `expect invalid-hint`) skipped unverified when
 * skip_expected_invalid — they are never meant to hold —, and so are rules marked `expect
 * trivial` (both sides one term: nothing to rewrite). For every rule, on(ctx, path,
 * src, rule, status, failure) is called once after all its element types: status
 * AX_GATE_PROVED (every result VERIFIED, not trivial, not vacuous), AX_GATE_FAILED
 * (failure: its first failing report line, borrowed for the call) or AX_GATE_SKIPPED. The
 * parsed and checked files live in arena a (the caller's), so the rule blocks handed to on
 * stay valid after the call. A file that does not parse or check is one report line and
 * no call. Returns as ax_superopt_axioms_proved; rep->failures lists every failure. */
typedef enum { AX_GATE_PROVED, AX_GATE_FAILED, AX_GATE_SKIPPED } AxGateStatus;
typedef void AxGateRule(void *ctx, const char *path, const AxSource *src, const AxBlock *rule,
                        AxGateStatus status, const char *failure);
bool ax_axioms_gate(const char *rules_dir, const AxVerifyOpts *vo, const char *solver_name,
                    bool skip_expected_invalid, AxGateRule *on, void *ctx, AxArena *a,
                    AxAxiomReport *rep);

#endif
