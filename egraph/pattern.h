/* pattern.h — patterns, e-matching and rewrites over an e-graph (egraph.h; docs/egraph.md).
 *
 * A pattern is a term whose leaves may be variables: ?v matches any e-class, and an
 * attribute of a pattern node is either an exact integer or an attribute variable that binds
 * the e-node's integer there. Variables are numbered 0..nvars-1 per rewrite, shared by its
 * two sides; one number is a class variable or an attribute variable, never both. A
 * variable that occurs twice must bind the same class (or the same integer): ?x + ?x
 * matches a + a, and b + c only when b and c are one class.
 *
 * Matching is top-down backtracking over the e-nodes of each class (egg's naive matcher);
 * it needs a rebuilt graph and does not change it. */
#ifndef AX_EG_PATTERN_H
#define AX_EG_PATTERN_H

#include "base/arena.h"
#include "egraph/egraph.h"

typedef struct AxEgPatAttr {
  bool var;                 /* true: binds attribute variable v; false: must equal value */
  uint32_t v;
  int64_t value;
} AxEgPatAttr;

typedef struct AxEgPat AxEgPat;
struct AxEgPat {
  bool var;                 /* true: class variable v, the rest unused */
  uint32_t v;
  uint32_t op, nattrs, nkids;
  const AxEgPatAttr *attrs;
  AxEgPat *const *kids;
};

/* Builders; the pattern and copies of the arrays live in arena a. */
AxEgPat *ax_eg_pat_var(AxArena *a, uint32_t v);
AxEgPat *ax_eg_pat_node(AxArena *a, uint32_t op, uint32_t nattrs, const AxEgPatAttr *attrs,
                        uint32_t nkids, AxEgPat *const *kids);
/* 1 + the largest variable number in p (class or attribute), 0 without variables. */
uint32_t ax_eg_pat_nvars(const AxEgPat *p);

/* A substitution: per variable, the class bound (AX_EG_NONE if none) or the integer bound
 * (val, when has_val). Arrays of nvars entries; owned by whoever made it. */
typedef struct AxEgSubst {
  uint32_t nvars;
  AxEgId *cls;
  int64_t *val;
  bool *has_val;
} AxEgSubst;

/* Calls on(ctx, root, s) for every match of p in class root (found first; s borrowed for the
 * call); stops when on returns false. Returns the matches reported. nvars: at least
 * ax_eg_pat_nvars(p). */
typedef bool AxEgOnMatch(void *ctx, AxEgId root, const AxEgSubst *s);
size_t ax_eg_match(AxEgraph *g, const AxEgPat *p, uint32_t nvars, AxEgId root,
                   AxEgOnMatch *on, void *ctx);

/* Matches collected over the whole graph: substitution i is cls/val/has_val[i*nvars ..]. */
typedef struct AxEgMatches {
  uint32_t nvars;
  size_t n, cap;
  AxEgId *roots;
  AxEgId *cls;
  int64_t *val;
  bool *has_val;
} AxEgMatches;

/* Every match of p in every class, at most `limit` of them (it stops there: the backoff
 * scheduler asks for one more than it tolerates). Appends to *m (zeroed before first use, its
 * nvars set by the first call); returns the number appended. */
size_t ax_eg_search(AxEgraph *g, const AxEgPat *p, uint32_t nvars, size_t limit, AxEgMatches *m);
AxEgSubst ax_eg_matches_at(const AxEgMatches *m, size_t i);   /* borrowed view of match i */
void ax_eg_matches_clear(AxEgMatches *m);                      /* n = 0, storage kept */
void ax_eg_matches_free(AxEgMatches *m);

/* The class of p instantiated under s: every variable must be bound. Adds e-nodes as
 * needed; AX_EG_NONE when the id space is exhausted. */
AxEgId ax_eg_instantiate(AxEgraph *g, const AxEgPat *p, const AxEgSubst *s);

/* A rewrite lhs => rhs. cond (optional) is its precondition, asked before each application
 * with the match's class and substitution (the analysis values readable through
 * ax_eg_data); apply (optional, instead of rhs) computes the right side: it returns the class
 * to union with the match, or AX_EG_NONE to do nothing. Neither may search the graph; apply
 * may add e-nodes and union. ctx is passed to both. The rewrite borrows its patterns. */
typedef bool AxEgCond(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *s);
typedef AxEgId AxEgApplier(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *s);
typedef struct AxEgRewrite {
  const char *name;
  const AxEgPat *lhs, *rhs;
  AxEgCond *cond;
  AxEgApplier *apply;
  void *ctx;
} AxEgRewrite;

/* Checks that rw is well formed: a lhs that is not a bare variable, exactly one of rhs and
 * apply, every rhs variable bound by lhs, no variable used both for a class and an
 * attribute. False with the reason in msg (size n) otherwise. */
bool ax_eg_rewrite_check(const AxEgRewrite *rw, char *msg, size_t n);
uint32_t ax_eg_rewrite_nvars(const AxEgRewrite *rw);

/* Applies rw at one match: the condition, then the right side, then the union. Returns 1
 * when the union merged two classes, 0 when it changed nothing (or the condition refused),
 * -1 when an e-node could not be added (id space exhausted). */
int ax_eg_apply(AxEgraph *g, const AxEgRewrite *rw, AxEgId root, const AxEgSubst *s);

#endif
