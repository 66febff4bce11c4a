/* rank.h — bound inference: a sufficient rank for every rank class (TensorRight Alg. 1).
 *
 * On the instance where every rank class has rank 1, take the value-equality term
 * LHS[A] = RHS[A] and count, after removing duplicates the solver proves equal under
 * precondition ∧ valid(LHS) ∧ valid access:
 *   - the distinct reads of each input tensor (n_t), and
 *   - the distinct conditions: maximal Boolean subterms with no tensor read that mention a
 *     variable of the rank class (index expressions of reads are per-axis maps, not
 *     conditions, and are not searched).
 * Then k_c = max(1, Σ_{t has an axis of c} C(n_t, 2) + #conditions on c + #quantifiers over
 * c in the preconditions). A quantifier counts because an `exists` needs its witness axis
 * kept when a counterexample is projected to a lower rank (TensorRight §6.3 argues the
 * rest). Rank classes used as concat or iota axes are fixed at 1. A duplicate check the
 * solver cannot decide keeps both terms: the bound only grows. */
#ifndef AX_RANK_H
#define AX_RANK_H

#include "dsl/ast.h"
#include "semantics/domain.h"
#include "verifier/solver.h"

typedef struct AxRankBounds {
  int *bounds;        /* per rank class (malloc'd, caller frees) */
  int queries;        /* solver queries spent on duplicates */
  const char *unsupported;   /* non-NULL: the rule cannot be instantiated (why) */
} AxRankBounds;

void ax_rank_bounds(const AxBlock *rule, AxType T, const AxSolverOpts *o, AxRankBounds *out);

#endif
