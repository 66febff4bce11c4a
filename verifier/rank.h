/* rank.h — bound inference: a sufficient rank for every rank class (TensorRight §6.3,
 * Alg. 1, with the count made sound for every rank; docs/semantics.md, "How the rank bound
 * is inferred", has the argument and worked examples).
 *
 * For a rank class c, the rule is instantiated with c at rank 2 and every other class at
 * rank 1, and the verification condition is read as a rank-independent scalar function of
 *   - reads of input tensors (each index a per-axis map), and
 *   - folds: a conjunction or a disjunction over the named axes of c of one per-axis
 *     Boolean g (every comparison, mask, window test and quantifier becomes one).
 * A counterexample at rank k+1 projects to one at rank k (one named axis dropped) unless
 * dropping the axis changes a fold's value (the axis is the only false conjunct, or the only
 * true disjunct: one axis per fold) or merges two reads of one tensor that differ only on that
 * axis (one axis per pair). So k_c = the number of folds whose value a counterexample does
 * not fix, plus C(n_t, 2) for every tensor t with an axis of c read at n_t distinct points,
 * and at least 1 — taken for the worse of two kinds of counterexample: values differ (both
 * sides valid, sizes equal, access valid: their per-axis conjuncts hold on every axis, so
 * folds made of them are known true), or the right side is invalid / sizes differ.
 * Two folds are one only when they are the same term (same quantifier, same g, position 0):
 * never because they are equal at rank 1 or under the preconditions. A structure this
 * reading does not cover (a per-axis value used outside a conjunction or disjunction over
 * the axes, a tensor index mixing axes, a condition that differs between the two named
 * axes) makes the rule UNKNOWN, never a smaller bound.
 * A rank class used as a concat or iota axis (in an expression the rule uses) is fixed at
 * rank 1: the rule speaks only of that rank (docs/language.md). */
#ifndef AX_RANK_H
#define AX_RANK_H

#include "dsl/ast.h"
#include "semantics/domain.h"

/* How one class's bound came about (for reports and unit tests). */
typedef struct AxRankCount {
  bool fixed;          /* a concat or iota axis: rank 1 only */
  bool merged;         /* read row-major by a flatten, closed under merging named axes:
                          bound 1 (the merge argument) */
  int conditions;      /* folds whose value is not fixed, in the deciding kind */
  int read_pairs;      /* Σ C(n_t, 2) in the deciding kind */
} AxRankCount;

typedef struct AxRankBounds {
  int *bounds;         /* per rank class (owned) */
  AxRankCount *counts; /* per rank class (owned) */
  char *unsupported;   /* non-NULL (owned): the rule cannot be instantiated or its structure
                          is outside the argument (why) */
} AxRankBounds;

/* Infers the bounds of every rank class of `rule` (checked, without errors) at element
 * type T. Sends no solver query. Free with ax_rank_bounds_free. */
void ax_rank_bounds(const AxBlock *rule, AxType T, AxRankBounds *out);
void ax_rank_bounds_free(AxRankBounds *b);

#endif
