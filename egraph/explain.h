/* explain.h — why two terms of an e-graph are equal: a chain of rewrite steps read off the
 * proof forest (egraph.h, "explanations"; egg's flattened explanations; docs/egraph.md).
 *
 * A step rewrites one subterm of the current term: the subterm at `path` (child indices from
 * the root) is the term of id `before` and becomes the term of id `after`, by rewrite `rule`
 * applied lhs => rhs (`forward`) or rhs => lhs. Steps justified by the caller's own unions
 * (ax_eg_union) have rule NULL. Starting from the term of a and applying the steps in order
 * gives the term of b: congruence contributes no step of its own, only the steps inside
 * its children, at their paths. */
#ifndef AX_EG_EXPLAIN_H
#define AX_EG_EXPLAIN_H

#include "base/arena.h"
#include "egraph/egraph.h"
#include "egraph/pattern.h"

typedef struct AxEgStep {
  const void *rule;        /* the rewrite (borrowed from the run's caller); NULL: a caller's union */
  bool forward;
  uint32_t depth;
  const uint32_t *path;    /* depth child indices, in the explanation's arena */
  AxEgId before, after;    /* exact ids: ax_eg_exact_term gives the subterms */
} AxEgStep;

typedef struct AxEgExplanation {
  size_t n;
  AxEgStep *steps;         /* in the arena */
} AxEgExplanation;

/* The steps from the term of exact id a to the term of exact id b (one class; g explaining).
 * At most max_steps (a flattened explanation can grow exponentially with nested
 * congruences): false when it would be longer, or a and b are not equal. Steps and paths
 * are allocated in arena ar. */
bool ax_eg_explain(AxEgraph *g, AxEgId a, AxEgId b, size_t max_steps, AxArena *ar,
                   AxEgExplanation *out);

/* The term of exact id `id` as a tree (a shared subterm repeated: paths address it),
 * children first, root last; nodes, attrs and kids in arena ar. */
void ax_eg_exact_term(const AxEgraph *g, AxEgId id, AxArena *ar, AxEgTerm *t);

/* Replays x on the term `in` with a term matcher of its own (not the e-graph's): each step's
 * rewrite must match the subterm at its path (a class variable bound twice to equal
 * subterms), and the other side, instantiated, replaces it; the result must equal `out`.
 * The steps' rules must be AxEgRewrite with a right side. Returns 0 when all of this holds;
 * otherwise i + 1 for the first step i that does not apply, or x->n + 1 when the result is
 * not `out`. in, x and out are borrowed. */
size_t ax_eg_explain_replay(const AxEgTerm *in, const AxEgExplanation *x, const AxEgTerm *out);

/* A caller's check of one of its own unions met in a replay: `before` and `after` are the
 * exact terms the union joined (borrowed); true when the caller vouches for the step (e.g.
 * constant folding: `after` is the exact value of `before`). */
typedef bool (*AxEgCallerCheck)(void *ctx, const AxEgTerm *before, const AxEgTerm *after);
/* As ax_eg_explain_replay, but a step with rule NULL (a caller's union) or whose rewrite
 * has an applier instead of a right side replays too where
 * the subterm at its path is the exact term of `before` in g and `check` accepts the pair:
 * it becomes the exact term of `after`. g is borrowed (explaining). */
size_t ax_eg_explain_replay_with(const AxEgraph *g, const AxEgTerm *in, const AxEgExplanation *x,
                                 const AxEgTerm *out, AxEgCallerCheck check, void *ctx);

#endif
