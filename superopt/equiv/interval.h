/* interval.h — the interval domain: a certified replay of a difference between two graphs.
 *
 * An element is an interval [lo, hi] of doubles that holds the exact real value of the
 * element at the given inputs (the program semantics: no storage rounding; a conversion is
 * the exact rounding of its operand). Every operation rounds outward: + − × ÷ and sqrt are
 * IEEE-correctly rounded, so one ulp outward holds the exact result; exp, log, tanh, erf,
 * sin, cos and the other library functions are taken within AX_IVAL_LIB_ULPS ulps of the
 * exact value (glibc documents at most 2 on x86-64 for these), and widened by that; a
 * matmul's sums by the recursive-summation bound n·u·Σ|terms| (Higham, Accuracy and
 * Stability of Numerical Algorithms, §3.1), doubled. Where an operator is not defined on
 * all of an interval (sqrt or log of a negative part, a division by an interval holding 0,
 * ∞ − ∞), or the domain has no case for it, the element is *undefined* (lo = hi = NaN) and
 * judges nothing downstream.
 *
 * What it is for (equiv.c): when the field tests differ only where an uninterpreted
 * function (sqrt, a conversion, log, sin, ...) could explain the difference, a refutation
 * needs a witness. Both graphs are run at one input point in intervals; an output element
 * whose two intervals are defined and disjoint proves that the graphs differ there over
 * the reals — a replayed witness, not a tolerance on doubles. Overlapping intervals prove
 * nothing either way.
 *
 * Comparisons decided on the intervals give an exact 0 or 1; an undecided one is [0, 1],
 * and a select on it the hull of both branches. max and min are exact on endpoints. */
#ifndef AX_INTERVAL_H
#define AX_INTERVAL_H

#include "superopt/ir/tensor.h"

/* ulps of error granted to a library function (exp, log, tanh, logistic, erf, sin, cos,
 * pow) on top of its result's rounding. */
#define AX_IVAL_LIB_ULPS 4

typedef struct AxIval {
  double lo, hi;   /* lo <= hi; both NaN: undefined */
} AxIval;

/* The interval domain (no ctx, no storage rounding). */
AxTDomain ax_values_interval(void);

/* Whether the domain has an enclosure for element-wise operator op (a unit test walks the
 * operators' rows with it: a new operator needs its case here, or it is undefined). */
bool ax_interval_has(AxOp op);

/* Whether a and b are both defined and disjoint: the exact values differ. */
bool ax_interval_disjoint(AxIval a, AxIval b);

#endif
