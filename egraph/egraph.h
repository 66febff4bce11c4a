/* egraph.h — the e-graph: hash-consed e-nodes, union-find e-classes, deferred congruence
 * rebuilding and e-class analyses (egg, POPL'21, §3 and §4). docs/egraph.md is the long form.
 *
 * Language-agnostic: an e-node is an operator id (the caller's own numbering), a list of
 * integer attributes (an axis, a shape list, a literal's value, an input's name index) and a
 * list of child e-classes. Two e-nodes are the same when all three are equal, children
 * compared by canonical id.
 *
 * Invariants after ax_eg_rebuild (checked by ax_eg_check):
 *   - hashcons: every live e-node is canonical (its children are union-find roots) and the
 *     hashcons maps its content to it; no two live e-nodes have the same content.
 *   - congruence: therefore two e-nodes with equivalent children are one e-node, one class.
 *   - classes: every live e-node is listed in exactly its root class; every root class lists
 *     each live e-node that has it as a child among its parents.
 * Between ax_eg_union and ax_eg_rebuild these may be broken (that is the point: many unions,
 * one rebuild); ax_eg_add and ax_eg_union work in that state, searching does not.
 *
 * Memory: the graph owns everything it holds; ax_eg_free releases it. Ids are 32-bit; the
 * id space running out is reported (ax_eg_add returns AX_EG_NONE), never wrapped. Every growth
 * of the graph's arrays is taken from the memory budget (base/mem.h) before it is allocated,
 * and given back by ax_eg_free: past --memory the run ends there, with its message. */
#ifndef AX_EG_EGRAPH_H
#define AX_EG_EGRAPH_H

#include "base/base.h"

typedef uint32_t AxEgId;            /* an e-class id; canonical when it is its own root */
#define AX_EG_NONE UINT32_MAX       /* no class: a failed add, an absent result */

/* An e-node as the caller sees it. In calls that take one it is borrowed (copied if kept);
 * one the graph hands out points into the graph and is valid until the next ax_eg_add or
 * ax_eg_union (which may grow the tables). */
typedef struct AxEgNode {
  uint32_t op;                      /* operator id, the language's own */
  uint32_t nattrs, nkids;
  const int64_t *attrs;             /* nattrs integers, compared exactly */
  const AxEgId *kids;               /* nkids child classes */
} AxEgNode;

typedef struct AxEgraph AxEgraph;

/* E-class analysis (egg §4): a value of `size` bytes attached to every class, a join
 * semilattice. `make` computes a new e-node's value (its children's values are readable
 * through ax_eg_data); `merge` joins `from` into `into` and returns AX_EG_MERGE_INTO when
 * `into` changed, | AX_EG_MERGE_FROM when the result differs from `from` (the pair egg calls
 * DidMerge) — it must be idempotent and commutative up to that answer. `make` and `merge`
 * must not change the graph. `modify` (optional) runs after a class's value is made or
 * changed and may add e-nodes and union classes (constant folding adds the literal). The
 * graph keeps the values through unions and rebuilds: a class's value is the join of its
 * e-nodes' `make`s. ctx is passed through to every callback. */
enum { AX_EG_MERGE_INTO = 1, AX_EG_MERGE_FROM = 2 };
typedef struct AxEgAnalysis {
  size_t size;
  void (*make)(void *ctx, AxEgraph *g, const AxEgNode *n, void *out);
  int (*merge)(void *ctx, void *into, const void *from);
  void (*modify)(void *ctx, AxEgraph *g, AxEgId cls);
  void *ctx;
} AxEgAnalysis;

/* A new empty graph, returned owned. `an` may be NULL (no analysis); it is copied. */
AxEgraph *ax_eg_new(const AxEgAnalysis *an);
void ax_eg_free(AxEgraph *g);                       /* consumes g */

/* The class of e-node n (borrowed), adding it if no equal e-node exists: hash-consing. The
 * children are canonicalized first. Returns the canonical class, or AX_EG_NONE when the id
 * space is exhausted. Adding a new e-node makes its analysis value and runs modify. */
AxEgId ax_eg_add(AxEgraph *g, const AxEgNode *n);
/* Shorthand for ax_eg_add of {op, nattrs, attrs, nkids, kids}. */
AxEgId ax_eg_add_op(AxEgraph *g, uint32_t op, uint32_t nattrs, const int64_t *attrs,
                    uint32_t nkids, const AxEgId *kids);

/* The existing class of e-node n, or AX_EG_NONE: lookup without adding (a rebuilt graph). */
AxEgId ax_eg_lookup(AxEgraph *g, const AxEgNode *n);

/* The root of a's class (path compression: it may shorten the chain, hence not const). */
AxEgId ax_eg_find(AxEgraph *g, AxEgId a);

/* Merges the classes of a and b (union by size); returns the root of the result. The
 * congruences this implies are restored by the next ax_eg_rebuild, not here. The analysis
 * values are joined at once and modify runs on the merged class. */
AxEgId ax_eg_union(AxEgraph *g, AxEgId a, AxEgId b);

/* Restores the invariants above: processes the worklist of dirty classes until it is empty
 * (egg's rebuild). Returns the number of unions congruence caused. */
size_t ax_eg_rebuild(AxEgraph *g);
bool ax_eg_is_clean(const AxEgraph *g);             /* no rebuild pending */

/* Counts: live e-nodes, root classes, ids ever handed out (ids below it are valid to find). */
size_t ax_eg_nnodes(const AxEgraph *g);
size_t ax_eg_nclasses(const AxEgraph *g);
size_t ax_eg_nids(const AxEgraph *g);
/* Grows on every new e-node and every union that merged: "did anything change". */
uint64_t ax_eg_version(const AxEgraph *g);

/* The e-nodes of root class c (a rebuilt graph): count, and the i-th (borrowed, see above). */
size_t ax_eg_class_size(const AxEgraph *g, AxEgId c);
const AxEgNode *ax_eg_class_node(const AxEgraph *g, AxEgId c, size_t i);

/* The analysis value of class c (found first), borrowed until the next add or union; NULL
 * without an analysis. */
void *ax_eg_data(AxEgraph *g, AxEgId c);

/* A term: a tree (or DAG) of e-nodes in an array, children first, the root last; in a
 * term, an e-node's kids are indices of earlier entries, not classes (egg's RecExpr). What
 * extraction returns and what a program becomes before it enters the graph. */
typedef struct AxEgTerm {
  size_t n;
  AxEgNode *nodes;
} AxEgTerm;

/* Adds every entry of t (borrowed) and returns the class of its root (AX_EG_NONE when the
 * id space is exhausted, or t is empty). */
AxEgId ax_eg_add_term(AxEgraph *g, const AxEgTerm *t);

/* ---- explanations (egg's proof forest, Willsey et al. §"explanations"; docs/egraph.md) ----
 *
 * With explanations on, every id stands for one e-node exactly as it was added (children as
 * given, not canonicalized), so each id denotes one finite term; an e-node equal to an
 * existing one only up to equal children gets its own id, merged by congruence. Every union
 * adds an edge between the two ids it merged to a spanning forest of the classes, with its
 * justification: a rewrite (between the ids of lhs[σ] and rhs[σ]), congruence (two e-nodes of
 * one operator with pairwise equal children), or the caller (ax_eg_union). egraph/explain.h
 * turns a path in that forest into rewrite steps. Costs: an exact-content table and one
 * exact e-node per id; the e-graph's classes, e-nodes and saturation are the same. */
typedef enum { AX_EG_BY_CALLER, AX_EG_BY_CONGRUENCE, AX_EG_BY_RULE } AxEgBy;
typedef struct AxEgJust {
  AxEgBy kind;
  const void *rule;       /* AX_EG_BY_RULE: the rewrite (the caller's, borrowed) */
  bool forward;           /* the edge traversed from lhs[σ] to rhs[σ] */
} AxEgJust;

/* Turns explanations on; only on an empty graph. */
void ax_eg_explain_enable(AxEgraph *g);
bool ax_eg_explaining(const AxEgraph *g);
/* As ax_eg_add, but returns the id whose exact e-node is n (not its class's root) when
 * explaining; the class otherwise. */
AxEgId ax_eg_add_exact(AxEgraph *g, const AxEgNode *n);
/* As ax_eg_add_term, returning the exact id of the root (see ax_eg_add_exact). */
AxEgId ax_eg_add_term_exact(AxEgraph *g, const AxEgTerm *t);
/* As ax_eg_union, justified by `rule` (a rewrite: a and b are the exact ids of its two
 * sides instantiated, a the left). */
AxEgId ax_eg_union_by(AxEgraph *g, AxEgId a, AxEgId b, const void *rule);
/* The exact e-node of id (explaining only; borrowed, valid while the graph lives). */
const AxEgNode *ax_eg_exact_node(const AxEgraph *g, AxEgId id);
/* id's edge in the proof forest: the id it leads to (AX_EG_NONE at a tree's root) and *j. */
AxEgId ax_eg_proof_next(const AxEgraph *g, AxEgId id, AxEgJust *j);

/* Checks every invariant above by brute force over the whole graph (tests, debugging).
 * Returns true when all hold; otherwise false and the first violation in msg (size n). */
bool ax_eg_check(AxEgraph *g, char *msg, size_t n);

#endif
