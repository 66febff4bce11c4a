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

/* The cost of the cheapest term of class c as a DAG: the e-nodes it chose, each once (what
 * a program computing the term once per class pays). cost as given to ax_eg_extractor_new. */
double ax_eg_extractor_dag_cost(const AxEgExtractor *x, AxEgId c, AxEgCost *cost, void *ctx);

/* The term that choosing e-node best[c'] in every root class c' gives for class c (best
 * borrowed, indexed by root id; the choices reachable from c must be acyclic and their
 * children chosen), shared subterms once, into *t in arena a. False, *t empty, when
 * best[c] is NULL. */
bool ax_eg_term_of_choice(AxEgraph *g, const AxEgNode *const *best, AxEgId c, AxArena *a,
                          AxEgTerm *t);

/* How many terms (trees) class c of the rebuilt graph g represents: the sum over its
 * e-nodes of the product of their children's counts. INFINITY when a cycle makes it
 * unbounded or it exceeds 1e300 (a double: exact up to 2^53, then approximate). */
double ax_eg_count_terms(AxEgraph *g, AxEgId c);

/* DAG-aware greedy extraction (extraction-gym's greedy-dag): each class keeps the e-node
 * whose sub-DAG — the union of its children's, a class shared below counted once — is
 * cheapest, in at most `rounds` rounds of relaxation. A heuristic for the DAG cost (the ILP
 * is the exact one), which greedy's tree cost misprices where a subterm is shared. The term
 * of c into *t (arena a) and its DAG cost in *total (NULL allowed); false when c has no
 * acyclic choice. g: rebuilt, borrowed. */
bool ax_eg_extract_dag(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx, size_t rounds, AxArena *a,
                       AxEgTerm *t, double *total);
/* One-shot: the extractor for g, the term of c, its cost in *total (NULL allowed). */
bool ax_eg_extract(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx, AxArena *a, AxEgTerm *t,
                   double *total);

#endif
