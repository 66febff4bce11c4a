/* extract.h — the cheapest term of a class: greedy bottom-up extraction (egg's Extractor;
 * docs/egraph.md).
 *
 * A term's cost is the sum over its e-nodes of the user's per-e-node cost (which must be
 * positive). Every class gets the cost of its cheapest e-node whose children all
 * have a cost, iterated to a fixed point; a class reachable only through cycles keeps an
 * infinite cost (no finite term) until an e-node that leaves the cycle is added. Positive
 * costs make the chosen e-nodes acyclic, so the term is finite. */
#ifndef AX_EG_EXTRACT_H
#define AX_EG_EXTRACT_H

#include "base/arena.h"
#include "egraph/egraph.h"

/* The cost of e-node n alone (its children's are added by the extractor): positive;
 * INFINITY for an e-node that must never be chosen (an operator a back-end lacks). */
typedef double AxEgCost(void *ctx, const AxEgNode *n);

typedef struct AxEgExtractor AxEgExtractor;

/* Costs of every class of the rebuilt graph g (borrowed; it must not change while the
 * extractor lives). Returned owned: ax_eg_extractor_free. */
AxEgExtractor *ax_eg_extractor_new(AxEgraph *g, AxEgCost *cost, void *ctx);
void ax_eg_extractor_free(AxEgExtractor *x);

/* The cost of the cheapest term of class c; INFINITY when it has none. */
double ax_eg_extractor_cost(const AxEgExtractor *x, AxEgId c);

/* The cheapest term of class c into *t (nodes, attrs and kids allocated in arena a; shared
 * subterms appear once). False, *t empty, when c has no finite term. */
bool ax_eg_extractor_term(const AxEgExtractor *x, AxEgId c, AxArena *a, AxEgTerm *t);

/* One-shot: the extractor for g, the term of c, its cost in *total (NULL allowed). */
bool ax_eg_extract(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx, AxArena *a, AxEgTerm *t,
                   double *total);

#endif
