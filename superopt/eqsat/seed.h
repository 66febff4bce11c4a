/* seed.h — the e-graph seeding the μGraph search (`axle superopt --seed-from-egraph`;
 * docs/egraph.md, "Seeding the search").
 *
 * The μGraph search prunes with a normal form of a few proved axioms, so it only finds graphs
 * whose algebra is the program's up to those axioms. Saturating the program with proved rules
 * first (the same gate as `axle optimize`) gives it other starting points: each variant is a
 * program equal to the input by a chain of proved rewrites, and the search runs on each. The
 * caller checks whatever graph wins against the *original* program, as every result is.
 *
 * Besides the rules the translator turns into rewrites (rules.h), one proved rule is applied
 * by a rewrite of its own here, because its tensors have fewer axes than its result (a rule
 * broadcast, not translated yet): eq_matmul_mul, `matmul(X * r, W) = matmul(X, W) * r` with
 * r of shape [m, 1] (a per-row scale), applied only when the gate proved it. */
#ifndef AX_EQSAT_SEED_H
#define AX_EQSAT_SEED_H

#include "base/arena.h"
#include "superopt/cost/cost.h"
#include "superopt/ir/mugraph.h"

#define AX_SEED_MAX 8   /* variants kept, the original included */

/* One program variant: its text and lowered graph (in the arena given to ax_seed_variants),
 * its modelled cost (the program cost model: one kernel per operator), and the chain of
 * proved rules from the input to it, one "RULE (FILE:LINE, lhs => rhs, key KEY)" per step
 * (KEY: the rule's entry in the result cache of `axle verify`, as `axle optimize --explain`
 * prints it). */
typedef struct AxSeedVariant {
  const char *text;
  AxMugraph *prog;
  double cost_s;
  int nsteps;
  const char **steps;
  bool explained;        /* false: the chain was longer than the bound, steps not listed */
} AxSeedVariant;

typedef struct AxSeedResult {
  int n;                              /* variants; v[0] is the input itself */
  AxSeedVariant v[AX_SEED_MAX];
  int nproved, nskipped, ntranslated;  /* rules through the gate; skipped: expect invalid */
  bool scale_out;                     /* eq_matmul_mul was proved and applied as a rewrite */
  size_t nodes0, nodes, classes, iterations;
  const char *stop;                   /* why saturation stopped */
  double seconds;                     /* gate excluded: saturation and extraction */
} AxSeedResult;

/* Saturates program p (borrowed, lowered and checked) with the rules of rules_dir that
 * `axle verify` proves (superopt/search/axioms.h's gate: the result cache first; `expect
 * invalid` rules skipped), and extracts up to k variants (2 ≤ k ≤ AX_SEED_MAX, the input
 * included as v[0]): the cheapest distinct programs, by the program cost model on target,
 * among those where one e-class of the greedy term is forced to each of its other e-nodes.
 * node_limit and iter_limit bound the saturation. Everything lives in arena a.
 * Returns 0 on success; 3 after printing to stderr every rule that is not proved (each named)
 * or a rule directory that cannot be read. */
int ax_seed_variants(AxArena *a, const AxMugraph *p, const char *rules_dir, const AxTarget *target, int k,
                     int node_limit, int iter_limit, AxSeedResult *r);

#endif
