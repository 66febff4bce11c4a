/* rules.h — proved rules as e-graph rewrites over programs (docs/egraph.md, "Rules as
 * rewrites").
 *
 * A checked rule `lhs => rhs` becomes up to two rewrites of lang.h's language: lhs => rhs
 * when the rhs's tensor variables are all bound by the lhs, rhs => lhs when the reverse
 * holds (a rule is proved as an equality). Each rewrite carries a condition that, at every
 * match, binds the rule's aggregated axes to the matched class's concrete axes and its size
 * maps to concrete sizes, refuses a binding the rule's proof does not cover, and evaluates
 * the `require` clauses on the bound values; it applies only when all of them hold.
 *
 * What translates today (everything else is refused with a reason, never approximated):
 *   - element types: the rule holds for real (T in num, real or any; or real tensors);
 *   - operators: the element-wise ones programs have (add sub mul div neg exp square sqrt
 *     silu), reduce over one axis, mean and rms_norm (the program's sum, mean, rms_norm along
 *     the dimension the match binds: an attribute variable of the pattern), tensor variables,
 *     scalar variables and numeric literals, lets inlined;
 *     comparisons and select (a rule's bool mask binds only a class holding a comparison);
 *     rules whose sides are relabel chains over one tensor of one axis: chains of the
 *     program's transposes, one rewrite per rank, the other side built by an applier;
 *     rules whose sides are slices and pads over tensors of one axis: the program's slice
 *     and pad, one rewrite per rank, every entry of their lists an attribute variable that
 *     binds or checks the rule's maps (nonneg maps >= 0), the other side a tensor or a chain
 *     of slices (pads) built by an applier where the matched side is one too;
 *     rules whose sides are chains of reshape_split/reshape_merge over one tensor and the
 *     tensor: the program's reshape of a reshape (row-major splits of every dimension);
 *     dot rules over matrices, or batches of matrices (the batch dims first): matmul;
 *     rules whose sides are concats along one axis (and sums along it, additions): the
 *     program's concat, its axis one attribute variable shared by both sides;
 *     rules whose broadcasts all add one axis y over tensors of one axis x: the program's
 *     broadcast, y its grown dimensions, the target shape shared by both sides;
 *   - tensors: every tensor has all of the rule's aggregated axes or none (a scalar);
 *   - requires: conditions over size maps (per axis, quantified, or closed), and conditions
 *     on tensor values that compare variables and literals (`Z != 0`), which hold at a match
 *     only when the bound classes are literals that satisfy them. */
#ifndef AX_EQSAT_RULES_H
#define AX_EQSAT_RULES_H

#include "dsl/check.h"
#include "egraph/pattern.h"
#include "superopt/eqsat/lang.h"

/* The rewrites of a rule set, and their sources. Zero it before the first add. */
typedef struct AxEqRules {
  AxArena *a;                /* owns patterns, conditions and names (made at first add) */
  AxEgRewrite *rw;           /* n rewrites, owned */
  const char **origin;       /* per rewrite: "FILE:LINE" of its rule */
  const AxBlock **block;     /* per rewrite: its rule (borrowed, as given to ax_eq_rules_add) */
  bool *reversed;            /* per rewrite: the rule's rhs => lhs */
  size_t n, cap;
  size_t refused_rank;       /* matches refused: a binding outside the proof's ranks */
  size_t refused_require;    /* matches refused: a require false or not decidable */
  size_t refused_shape;      /* matches refused: operands of other shapes (broadcasting) */
} AxEqRules;

/* Translates checked rule block `rule` (borrowed: it must outlive the rewrites) from
 * `where` ("FILE:LINE", copied) into rs. Returns the number of rewrites added, or
 * 0 with the reason (static text) in *why: the rule has a form that is not translated.
 * A relabel rule adds one rewrite per rank and direction (up to 2 * AX_MAXRANK). */
int ax_eq_rules_add(AxEqRules *rs, const AxBlock *rule, const char *where, const char **why);
void ax_eq_rules_free(AxEqRules *rs);

#endif
