/* denote.h — the denotation of checked rules at one rank instance, in any value domain.
 *
 * An instance fixes the rank of every rank class and the element type T. Aggregated axis
 * i of rank r then stands for the named axes (i, 0) … (i, r-1); two axes of one rank class
 * are paired index by index (TensorRight Def. 5), which is all `relabel` needs.
 *
 * Denoting a tensor expression gives
 *   - its shape: for every aggregated axis, the size of each of its named axes;
 *   - its validity: the conditions XLA-HLO puts on the operands and attributes of every
 *     operator in it (TensorRight Fig. 7), as a domain bool;
 *   - its value at an access: an element, for indices given per named axis.
 * Shapes are memoised per expression node; values are computed per access. All values are
 * the domain's (see domain.h); the instance allocates only bookkeeping in its arena.
 *
 * Reductions (reduce, dot, conv) are denoted through the domain's reduction operations;
 * whatever a domain cannot represent exactly (domain.h) sets `unsupported`, and the verifier
 * reports the rule UNKNOWN with that reason — never VERIFIED. */
#ifndef AX_DENOTE_H
#define AX_DENOTE_H

#include "dsl/check.h"
#include "semantics/domain.h"

typedef struct AxIndex {
  AxV *at[AX_MAX_AXES];   /* at[axis][k]; NULL for axes the tensor does not have */
} AxIndex;

typedef struct AxShape {
  uint64_t axes;
  AxV *size[AX_MAX_AXES]; /* size[axis][k] */
  AxV valid;              /* bool: every operator constraint in the expression holds */
} AxShape;

typedef struct AxInst {
  AxArena *a;
  const AxRuleSyms *syms;
  const int *rank;        /* per rank class */
  AxType T;               /* the element type the rule's variable stands for */
  AxDomain *d;
  AxV *const *maps;       /* maps[sym][k]: values of symbolic maps and index maps */
  const char *unsupported;/* set by a denotation outside what is implemented */
  AxVec memo;             /* internal: shapes per expression */
} AxInst;

int ax_den_rank(const AxInst *in, int axis);   /* rank of an aggregated axis */

/* A map expression at named axis k of its rank class (k is ignored for constants). */
AxV ax_den_map(AxInst *in, const AxExpr *e, int k);
/* A condition on maps at named axis k; a closed condition (forall/exists) ignores k. */
AxV ax_den_cond(AxInst *in, const AxExpr *e, int k);
/* A `require`/`hint` condition on maps as a whole: per-axis conditions hold on every
 * named axis of their rank class. Not for tensor conditions. */
AxV ax_den_closed(AxInst *in, const AxExpr *e);

const AxShape *ax_den_shape(AxInst *in, const AxExpr *e);
/* The element of tensor expression e at `idx`, computed in type `want` when e's own
 * type is a literal's (it adapts to its context). */
AxV ax_den_at(AxInst *in, const AxExpr *e, AxType want, const AxIndex *idx);
/* A point where input tensor `sym` is read: its indices flat, in declaration order. */
typedef struct AxPoint {
  int sym;
  const AxV *idx;
} AxPoint;

/* The rule's assumptions at this instance, as one domain bool: symbolic maps declared
 * nonneg are >= 0 on every axis; every size of every input tensor is >= 0; every
 * precondition holds — a condition on maps on every axis of its class; a tensor condition
 * c is well-formed and, at each candidate point (`acc`, the general access over
 * `acc_axes`, when it has c's axes; for each of `points` of a tensor c mentions, the points
 * of c that read it), c holds there if the point lies inside c's shape. That is an instance of what a tensor
 * condition means (c holds at every point of its shape, nothing outside it), so assuming
 * it is sound wherever the candidates lie; assuming it only at some points can leave a
 * rule unproved, and the replay checks c at every point (verifier/cex.c). */
AxV ax_den_assume(AxInst *in, const AxPoint *points, size_t npoints, const AxIndex *acc,
                  uint64_t acc_axes);
/* Whether index p lies inside `shape` on every named axis of its axes. */
AxV ax_den_pre_inside(AxInst *in, const AxShape *shape, const AxIndex *p);

/* Whether op has a denotation (a shape rule and a value rule): true for every operator
 * AX_OP_LIST gives the level AX_LV_RULE (check_semantics walks the list; a missing row is
 * an internal error). */
bool ax_den_knows(AxOp op);

/* The element type e computes in, given what its context wants. */
AxType ax_den_type(const AxInst *in, const AxExpr *e, AxType want);

#endif
