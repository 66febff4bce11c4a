/* prune.h — abstract expressions and subexpression pruning (Mirage §4.3, Table 2).
 *
 * Every tensor of a candidate (and of the program) has an abstract expression: what it
 * computes with shapes, maps and constants forgotten. matmul(A, B) is sum(k, A·B) with k
 * the contracted size; a for-loop accumulator is sum(range, x) (sum(range·m, x) when it
 * also reduces an axis of size m); a reduction sum(axis, to = t) over size s is
 * sum(s/t, x); rms_norm over size m is x / sqrt(sum(m, x·x)); an rms accumulator is
 * sqrt(sum(range·m, x·x)); concatenation and output savers are the identity. A max or
 * min reduction over size s is an uninterpreted function max_s(x); a running max
 * accumulator is max_{range·m}(x), the final max, also where the loop reads it; a sum
 * rescaled by it is the plain sum(range·m, x), the sum its rescaling telescopes to
 * (docs/superopt.md §10, "Online softmax").
 *
 * Terms are hash-consed in a normal form under the A_eq axioms of the table in
 * docs/superopt.md §10 (each a proved rule of rules/superopt, named in axioms.c):
 *   add and mul are flattened, sorted multisets (eq_add_comm, eq_add_assoc, eq_mul_comm,
 *   eq_mul_assoc); division is multiplication by a factor of exponent −1, equal factors
 *   add their exponents (eq_mul_div_assoc, eq_div_div); a product that has a sum as a
 *   factor is the sum of the product (eq_sum_mul, eq_sum_div, eq_matmul_div); nested sums
 *   are one sum over the product of sizes and a sum over size 1 is its body (eq_sum_sum,
 *   eq_sum_one, eq_matmul_tiles); sums of equal size in an addition are one sum
 *   (eq_sum_add); exp of an addition is a product of exps (eq_exp_add); rms_norm, mean and
 *   square are unfolded into their definitions (eq_rms_def). A literal is a term of its
 *   exact rational value; a product's constants fold into one factor and an addition's
 *   into one term (eq_const_mul, eq_const_div, eq_const_add, eq_add_zero), a constant
 *   factor goes inside a sum (eq_sum_scale, eq_matmul_scale); neg, sub, rsqrt, silu and
 *   logistic are unfolded (eq_neg_def, eq_sub_def, eq_rsqrt_def, eq_silu_def). Distributivity of mul over add is not applied
 *   (it would multiply terms); a candidate that needs it is pruned (docs: limits).
 *
 * A prefix survives when its expression is a subexpression of the program's: equal to a
 * node of the program's normal form, or a sum over a divisor of that node's size of a
 * sub-product of its body, or a sub-product of a product, or a sub-sum of an addition.
 * Decisions are cached in the term. One table per search thread (not thread-safe). */
#ifndef AX_PRUNE_H
#define AX_PRUNE_H

#include <stdio.h>

#include "superopt/ir/tensor.h"

typedef struct AxAbs AxAbs;
typedef int AxAId;   /* a term of one table; -1: none */

AxAbs *ax_prune_new(void);            /* returns owned */
void ax_prune_free(AxAbs *t);         /* consumes t */

AxAId ax_prune_var(AxAbs *t, int input);
AxAId ax_prune_sum(AxAbs *t, int64_t n, AxAId x);
AxAId ax_prune_sqrt(AxAbs *t, AxAId x);
AxAId ax_prune_mul(AxAbs *t, AxAId a, AxAId b);
/* The exact constant c (-1 when c.den is 0): one term per value. */
AxAId ax_prune_const(AxAbs *t, AxRat c);
/* Whether e is a constant; its value in *out when it is. */
bool ax_prune_const_value(const AxAbs *t, AxAId e, AxRat *out);
/* A reduce_max or reduce_min (op) over n elements of x; also a running max accumulator
 * over the whole of what its loop walks (n = range · tile), in the loop as after it. */
AxAId ax_prune_extremum(AxAbs *t, AxOp op, int64_t n, AxAId x);
/* The masked select number `mask` of the program applied to x: an uninterpreted function
 * of x, one per mask, so that no axiom rewrites through it (the mask and the fill are the
 * program's, the same in every graph that writes the step). */
AxAId ax_prune_masked(AxAbs *t, int mask, AxAId x);
/* An rms accumulator over n elements: sqrt(sum(n, x·x / n)). */
AxAId ax_prune_rms_acc(AxAbs *t, int64_t n, AxAId x);
/* Applies a tensor operator; red = the size reduced (matmul's contracted size, the size
 * of a sum's or mean's or rms_norm's axis divided by `to`). -1 when op has no meaning
 * here (a layout operator). */
AxAId ax_prune_apply(AxAbs *t, AxOp op, const AxAId *in, int nin, int64_t red);

/* Makes the program's outputs the spec every later ax_prune_is_sub asks about. */
void ax_prune_set_spec(AxAbs *t, const AxAId *outs, int n);
bool ax_prune_is_sub(AxAbs *t, AxAId e);
/* The distinct constants of the spec (after ax_prune_set_spec) that are a product's
 * constant factor (additive false) or an addition's constant term (true): the scalar
 * operators the generator offers. Writes at most max into out; returns how many. */
int ax_prune_spec_consts(AxAbs *t, bool additive, AxAId *out, int max);
/* Counters: decisions computed and answered from the cache. */
void ax_prune_stats(const AxAbs *t, long *computed, long *cached);

void ax_prune_print(FILE *out, const AxAbs *t, AxAId e);

/* The names of the rules in rules/superopt (docs/superopt.md §10) whose statements the
 * normal form above applies: the search refuses to start unless each is VERIFIED. */
const char *const *ax_prune_axioms(int *n);

#endif
