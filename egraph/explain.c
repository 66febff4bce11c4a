/* explain.c — flattened explanations from the proof forest (explain.h).
 *
 * explain(a, b, path): the forest path from a to b goes up from a to their lowest common
 * ancestor and down to b. Each edge u -> v on it says why term(u) = term(v): a rewrite edge
 * is one step at `path` (the subterm there is term(u) exactly, and becomes term(v)); a
 * congruence edge joins two e-nodes of one operator whose children are pairwise equal, so
 * it is the explanations of those children, each at path + its index. The recursion ends:
 * a congruence edge was added after its children were equal, and the forest path between
 * them is made of older edges (edges are never removed, so a tree path never changes). */
#include "egraph/explain.h"

#include <string.h>

#include "egraph/pattern.h"

typedef struct Ctx {
  AxEgraph *g;
  AxArena *ar;
  size_t max, n, cap;
  AxEgStep *steps;
  uint32_t *mark;          /* per id: the stamp of the walk that visited it */
  uint32_t stamp;
  bool over;
} Ctx;

typedef struct Edge {
  AxEgId from, to;
  AxEgJust j;              /* j.forward: traversed from -> to in the rule's direction */
} Edge;

static void step(Ctx *c, const AxEgJust *j, uint32_t depth, const uint32_t *path, AxEgId from,
                 AxEgId to) {
  if (c->n == c->max) {
    c->over = true;
    return;
  }
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 16;
    c->steps = ax_xrealloc(c->steps, c->cap * sizeof *c->steps);
  }
  uint32_t *p = depth ? ax_arena_alloc(c->ar, depth * sizeof *p) : NULL;
  if (depth) memcpy(p, path, depth * sizeof *p);
  c->steps[c->n++] = (AxEgStep){j->kind == AX_EG_BY_RULE ? j->rule : NULL, j->forward, depth,
                                p, from, to};
}

/* The edges from a to b, in order (owned array, *n entries). */
static Edge *forest_path(Ctx *c, AxEgId a, AxEgId b, size_t *n) {
  AxEgJust j;
  c->stamp++;
  for (AxEgId x = a; x != AX_EG_NONE; x = ax_eg_proof_next(c->g, x, &j)) c->mark[x] = c->stamp;
  size_t nb = 0, capb = 8, na = 0, capa = 8;
  Edge *down = ax_xmalloc(capb * sizeof *down);   /* from b up to the common ancestor */
  AxEgId lca = b;
  while (c->mark[lca] != c->stamp) {
    AxEgId next = ax_eg_proof_next(c->g, lca, &j);
    AX_ASSERT(next != AX_EG_NONE);                 /* a and b are in one tree */
    if (nb == capb) down = ax_xrealloc(down, (capb *= 2) * sizeof *down);
    /* traversed next -> lca: against the stored direction */
    AxEgJust r = j;
    r.forward = !j.forward;
    down[nb++] = (Edge){next, lca, r};
    lca = next;
  }
  Edge *all = ax_xmalloc(capa * sizeof *all);
  for (AxEgId x = a; x != lca;) {
    AxEgId next = ax_eg_proof_next(c->g, x, &j);
    if (na == capa) all = ax_xrealloc(all, (capa *= 2) * sizeof *all);
    all[na++] = (Edge){x, next, j};
    x = next;
  }
  for (size_t i = nb; i-- > 0;) {
    if (na == capa) all = ax_xrealloc(all, (capa *= 2) * sizeof *all);
    all[na++] = down[i];
  }
  free(down);
  *n = na;
  return all;
}

static void explain(Ctx *c, AxEgId a, AxEgId b, uint32_t depth, uint32_t **path, uint32_t *cap) {
  if (a == b || c->over) return;
  size_t ne;
  Edge *es = forest_path(c, a, b, &ne);
  for (size_t i = 0; i < ne && !c->over; i++) {
    const Edge *e = &es[i];
    if (e->j.kind != AX_EG_BY_CONGRUENCE) {
      step(c, &e->j, depth, *path, e->from, e->to);
      continue;
    }
    const AxEgNode *u = ax_eg_exact_node(c->g, e->from), *v = ax_eg_exact_node(c->g, e->to);
    AX_ASSERT(u->op == v->op && u->nkids == v->nkids);
    if (depth + 1 > *cap) {
      *cap = *cap * 2 + 8;
      *path = ax_xrealloc(*path, *cap * sizeof **path);
    }
    for (uint32_t k = 0; k < u->nkids && !c->over; k++) {
      (*path)[depth] = k;
      /* re-read: the nodes stay put, but keep no pointer across a recursion by habit */
      AxEgId ku = ax_eg_exact_node(c->g, e->from)->kids[k];
      AxEgId kv = ax_eg_exact_node(c->g, e->to)->kids[k];
      explain(c, ku, kv, depth + 1, path, cap);
    }
  }
  free(es);
}

bool ax_eg_explain(AxEgraph *g, AxEgId a, AxEgId b, size_t max_steps, AxArena *ar,
                   AxEgExplanation *out) {
  *out = (AxEgExplanation){0};
  if (ax_eg_find(g, a) != ax_eg_find(g, b)) return false;
  Ctx c = {.g = g, .ar = ar, .max = max_steps};
  c.mark = ax_xcalloc(ax_eg_nids(g), sizeof *c.mark);
  uint32_t *path = NULL, cap = 0;
  explain(&c, a, b, 0, &path, &cap);
  free(path);
  free(c.mark);
  if (!c.over) {
    out->n = c.n;
    out->steps = c.n ? ax_arena_alloc(ar, c.n * sizeof *c.steps) : NULL;
    if (c.n) memcpy(out->steps, c.steps, c.n * sizeof *c.steps);
  }
  free(c.steps);
  return !c.over;
}

/* Appends the tree of id to t (capacity *cap), returning its index. Iterative is not needed:
 * the depth is the term's height, as for the matcher. */
static uint32_t tree(const AxEgraph *g, AxEgId id, AxArena *ar, AxEgTerm *t, size_t *cap) {
  const AxEgNode *n = ax_eg_exact_node(g, id);
  AxEgId *kids = n->nkids ? ax_arena_alloc(ar, n->nkids * sizeof *kids) : NULL;
  for (uint32_t k = 0; k < n->nkids; k++) kids[k] = tree(g, n->kids[k], ar, t, cap);
  if (t->n == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    AxEgNode *nn = ax_arena_alloc(ar, nc * sizeof *nn);
    if (t->n) memcpy(nn, t->nodes, t->n * sizeof *nn);
    t->nodes = nn;
    *cap = nc;
  }
  t->nodes[t->n] = (AxEgNode){n->op, n->nattrs, n->nkids, n->attrs, kids};
  return (uint32_t)t->n++;
}

void ax_eg_exact_term(const AxEgraph *g, AxEgId id, AxArena *ar, AxEgTerm *t) {
  *t = (AxEgTerm){0};
  size_t cap = 0;
  tree(g, id, ar, t, &cap);
}

/* ---- replay: the steps applied to plain trees, with a matcher of their own ------------ */

typedef struct Tree {
  const AxEgNode *n;       /* op and attrs (kids unused) */
  struct Tree **kids;
} Tree;

static Tree *tree_of(AxArena *ar, const AxEgTerm *t, size_t i) {
  const AxEgNode *n = &t->nodes[i];
  Tree *r = ax_arena_alloc(ar, sizeof *r);
  r->n = n;
  r->kids = n->nkids ? ax_arena_alloc(ar, n->nkids * sizeof *r->kids) : NULL;
  for (uint32_t k = 0; k < n->nkids; k++) r->kids[k] = tree_of(ar, t, n->kids[k]);
  return r;
}

static bool tree_eq(const Tree *a, const Tree *b) {
  if (a->n->op != b->n->op || a->n->nattrs != b->n->nattrs || a->n->nkids != b->n->nkids)
    return false;
  if (a->n->nattrs && memcmp(a->n->attrs, b->n->attrs, a->n->nattrs * sizeof *a->n->attrs))
    return false;
  for (uint32_t k = 0; k < a->n->nkids; k++)
    if (!tree_eq(a->kids[k], b->kids[k])) return false;
  return true;
}

typedef struct Bind {
  const Tree **cls;
  int64_t *val;
  bool *has;
} Bind;

static bool tree_match(const AxEgPat *p, const Tree *t, Bind *b) {
  if (p->var) {
    if (b->cls[p->v]) return tree_eq(b->cls[p->v], t);
    b->cls[p->v] = t;
    return true;
  }
  if (p->op != t->n->op || p->nattrs != t->n->nattrs || p->nkids != t->n->nkids) return false;
  for (uint32_t i = 0; i < p->nattrs; i++) {
    const AxEgPatAttr *a = &p->attrs[i];
    int64_t x = t->n->attrs[i];
    if (!a->var ? a->value != x : b->has[a->v] && b->val[a->v] != x) return false;
    if (a->var) b->val[a->v] = x, b->has[a->v] = true;
  }
  for (uint32_t k = 0; k < p->nkids; k++)
    if (!tree_match(p->kids[k], t->kids[k], b)) return false;
  return true;
}

static Tree *tree_inst(AxArena *ar, const AxEgPat *p, const Bind *b) {
  if (p->var) return (Tree *)b->cls[p->v];
  int64_t *attrs = p->nattrs ? ax_arena_alloc(ar, p->nattrs * sizeof *attrs) : NULL;
  for (uint32_t i = 0; i < p->nattrs; i++)
    attrs[i] = p->attrs[i].var ? b->val[p->attrs[i].v] : p->attrs[i].value;
  AxEgNode *n = ax_arena_alloc(ar, sizeof *n);
  *n = (AxEgNode){p->op, p->nattrs, p->nkids, attrs, NULL};
  Tree *r = ax_arena_alloc(ar, sizeof *r);
  r->n = n;
  r->kids = p->nkids ? ax_arena_alloc(ar, p->nkids * sizeof *r->kids) : NULL;
  for (uint32_t k = 0; k < p->nkids; k++) r->kids[k] = tree_inst(ar, p->kids[k], b);
  return r;
}

/* How a caller's union (a step with rule NULL) or an applier's step is replayed: the graph its exact terms are
 * read from, and the caller's check of the pair. */
typedef struct CallerCheck {
  const AxEgraph *g;
  AxEgCallerCheck check;
  void *ctx;
} CallerCheck;

/* The caller's step at t: t must be the exact term of `before`, the caller must accept the
 * pair, and the result is the exact term of `after`. */
static Tree *caller_step(AxArena *ar, const Tree *t, const AxEgStep *st, const CallerCheck *cc) {
  if (!cc || !cc->check) return NULL;
  AxEgTerm b, a;
  ax_eg_exact_term(cc->g, st->before, ar, &b);
  ax_eg_exact_term(cc->g, st->after, ar, &a);
  if (!tree_eq(t, tree_of(ar, &b, b.n - 1)) || !cc->check(cc->ctx, &b, &a)) return NULL;
  return tree_of(ar, &a, a.n - 1);
}

/* t with step st applied at its path; NULL when the rule does not match there. */
static Tree *apply_at(AxArena *ar, const Tree *t, const AxEgStep *st, uint32_t at, const CallerCheck *cc) {
  if (at < st->depth) {
    uint32_t k = st->path[at];
    if (k >= t->n->nkids) return NULL;
    Tree *kid = apply_at(ar, t->kids[k], st, at + 1, cc);
    if (!kid) return NULL;
    Tree *r = ax_arena_alloc(ar, sizeof *r);
    r->n = t->n;
    r->kids = ax_arena_alloc(ar, t->n->nkids * sizeof *r->kids);
    memcpy(r->kids, t->kids, t->n->nkids * sizeof *r->kids);
    r->kids[k] = kid;
    return r;
  }
  const AxEgRewrite *rw = st->rule;
  /* a caller's union, or an applier's (its right side is computed, not a pattern): the
   * caller checks the pair */
  if (!rw || !rw->rhs) return caller_step(ar, t, st, cc);
  const AxEgPat *from = st->forward ? rw->lhs : rw->rhs, *to = st->forward ? rw->rhs : rw->lhs;
  uint32_t nv = ax_eg_rewrite_nvars(rw) + 1;
  Bind b = {ax_arena_alloc(ar, nv * sizeof *b.cls), ax_arena_alloc(ar, nv * sizeof *b.val),
            ax_arena_alloc(ar, nv * sizeof *b.has)};
  memset(b.cls, 0, nv * sizeof *b.cls);
  memset(b.has, 0, nv * sizeof *b.has);
  if (!tree_match(from, t, &b)) return NULL;
  return tree_inst(ar, to, &b);
}

static size_t replay(const AxEgTerm *in, const AxEgExplanation *x, const AxEgTerm *out, const CallerCheck *cc) {
  AxArena *ar = ax_arena_new();
  Tree *t = tree_of(ar, in, in->n - 1);
  size_t bad = 0;
  for (size_t i = 0; i < x->n && !bad; i++)
    if (!(t = apply_at(ar, t, &x->steps[i], 0, cc))) bad = i + 1;
  if (!bad && !tree_eq(t, tree_of(ar, out, out->n - 1))) bad = x->n + 1;
  ax_arena_free(ar);
  return bad;
}

size_t ax_eg_explain_replay(const AxEgTerm *in, const AxEgExplanation *x, const AxEgTerm *out) {
  return replay(in, x, out, NULL);
}

size_t ax_eg_explain_replay_with(const AxEgraph *g, const AxEgTerm *in, const AxEgExplanation *x,
                                 const AxEgTerm *out, AxEgCallerCheck check, void *ctx) {
  CallerCheck cc = {g, check, ctx};
  return replay(in, x, out, &cc);
}
