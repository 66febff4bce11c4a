/* egraph.c — e-nodes, the hashcons, union-find and rebuilding (egraph.h; docs/egraph.md).
 *
 * Every e-node ever added has an index into `nodes`; it stays there for the graph's life.
 * The hashcons is an open-addressing table of those indices, each stored under the hash of
 * the e-node's current content: an e-node's children change only by remove, canonicalize,
 * reinsert (repair), so the table never holds an entry under a stale hash. When a canonical
 * e-node turns out equal to another one already in the table, the two are congruent: their
 * classes are unioned and the newer copy is marked dead (dropped from its class's list at the
 * end of the rebuild, skipped wherever a parent list still names it). */
#include "egraph/egraph.h"

#include <string.h>

#include "base/arena.h"
#include "base/mem.h"

typedef struct Node {
  AxEgNode n;          /* kids point into the arena; repair rewrites them in place */
  AxEgId cls;          /* the class it was added to (find() for the current one) */
  bool dead;           /* a congruent duplicate of another e-node */
} Node;

/* A growable list of indices (e-nodes or classes). */
typedef struct Ids {
  uint32_t *v;
  uint32_t len, cap;
} Ids;

#define EMPTY UINT32_MAX         /* hashcons slot never used */
#define TOMB (UINT32_MAX - 1)    /* hashcons slot whose e-node was removed */
#define MAX_IDS (UINT32_MAX - 2) /* ids and node indices stay below the two markers */

struct AxEgraph {
  AxArena *arena;                /* attrs and kids of every e-node */
  uint64_t taken;                /* the arrays' bytes taken from the memory budget (base/mem.h):
                                    every growth is taken before it is allocated */
  Node *nodes;
  uint32_t nnodes, capnodes;
  size_t live;                   /* nodes not dead */
  uint32_t *slots;               /* the hashcons: node indices, EMPTY or TOMB */
  size_t nslots, nused;          /* nused: live entries + tombstones */
  AxEgId *parent;                /* union-find */
  uint32_t *usize;               /* ids under each root (union by size) */
  Ids *cnodes, *cparents;        /* per root: its e-nodes; the e-nodes that have it as a child */
  uint32_t nids, capids;
  size_t nclasses;
  AxEgAnalysis an;
  bool has_an;
  unsigned char *data;           /* an.size bytes per id; meaningful at roots */
  unsigned char *scratch;        /* one value: make's output during repair */
  Ids worklist, todo;            /* dirty classes (roots when pushed) */
  Ids touched;                   /* classes that gained a dead e-node this rebuild */
  AxEgId *kbuf;                  /* canonical children of the node being added or looked up */
  uint32_t capkbuf;
  uint64_t version;
  /* Explanations (off unless ax_eg_explain_enable): per id, the e-node exactly as it was
   * added (children as given, never canonicalized), an exact-content table of those, and
   * the proof forest: an edge from each id to `pnext` with its justification. */
  bool explain;
  AxEgNode *orig;
  AxEgId *pnext;
  AxEgJust *pjust;
  uint32_t *xslots;
  size_t nxslots, nxused;
};

static void push(Ids *s, uint32_t x) {
  if (s->len == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 4;
    s->v = ax_xrealloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->len++] = x;
}

static void append(Ids *to, const Ids *from) {
  for (uint32_t i = 0; i < from->len; i++) push(to, from->v[i]);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void sort_unique(Ids *s) {
  if (s->len < 2) return;
  qsort(s->v, s->len, sizeof *s->v, cmp_u32);
  uint32_t k = 1;
  for (uint32_t i = 1; i < s->len; i++)
    if (s->v[i] != s->v[k - 1]) s->v[k++] = s->v[i];
  s->len = k;
}

/* ---- hashing and the hashcons ------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_of(uint32_t op, uint32_t na, const int64_t *attrs, uint32_t nk,
                        const AxEgId *kids) {
  uint64_t h = mix(0x243f6a8885a308d3ull, op);
  h = mix(h, ((uint64_t)na << 32) | nk);
  for (uint32_t i = 0; i < na; i++) h = mix(h, (uint64_t)attrs[i]);
  for (uint32_t i = 0; i < nk; i++) h = mix(h, kids[i]);
  return h ^ (h >> 29);
}

static bool same(const AxEgNode *a, uint32_t op, uint32_t na, const int64_t *attrs, uint32_t nk,
                 const AxEgId *kids) {
  return a->op == op && a->nattrs == na && a->nkids == nk &&
         (na == 0 || memcmp(a->attrs, attrs, na * sizeof *attrs) == 0) &&
         (nk == 0 || memcmp(a->kids, kids, nk * sizeof *kids) == 0);
}

/* The node index with this content, or EMPTY. */
static uint32_t probe(const AxEgraph *g, uint32_t op, uint32_t na, const int64_t *attrs,
                      uint32_t nk, const AxEgId *kids) {
  size_t mask = g->nslots - 1;
  for (size_t i = hash_of(op, na, attrs, nk, kids) & mask;; i = (i + 1) & mask) {
    uint32_t s = g->slots[i];
    if (s == EMPTY) return EMPTY;
    if (s != TOMB && same(&g->nodes[s].n, op, na, attrs, nk, kids)) return s;
  }
}

static void place(AxEgraph *g, uint32_t idx) {
  const AxEgNode *n = &g->nodes[idx].n;
  size_t mask = g->nslots - 1;
  size_t i = hash_of(n->op, n->nattrs, n->attrs, n->nkids, n->kids) & mask;
  while (g->slots[i] != EMPTY && g->slots[i] != TOMB) i = (i + 1) & mask;
  if (g->slots[i] == EMPTY) g->nused++;
  g->slots[i] = idx;
}

/* Takes bytes from the memory budget for a growth of g's arrays, before it is allocated: an
 * e-graph that would grow past --memory ends the run there (base/mem.h), never the machine. */
static void take(AxEgraph *g, size_t bytes) {
  ax_mem_take(bytes);
  g->taken += bytes;
}

/* Rehashes into a table at most half full of live entries (tombstones dropped). */
static void regrow(AxEgraph *g) {
  uint32_t *old = g->slots;
  size_t nold = g->nslots, n = 64;
  while (n < 4 * (g->live + 1)) n *= 2;
  take(g, n * sizeof *g->slots);
  g->slots = ax_xmalloc(n * sizeof *g->slots);
  memset(g->slots, 0xff, n * sizeof *g->slots);   /* all EMPTY */
  g->nslots = n;
  g->nused = 0;
  for (size_t i = 0; i < nold; i++)
    if (old[i] != EMPTY && old[i] != TOMB) place(g, old[i]);
  free(old);
  ax_mem_give(nold * sizeof *g->slots);
  g->taken -= nold * sizeof *g->slots;
}

static void insert(AxEgraph *g, uint32_t idx) {
  if ((g->nused + 1) * 4 > g->nslots * 3) regrow(g);
  place(g, idx);
}

static void remove_node(AxEgraph *g, uint32_t idx) {
  const AxEgNode *n = &g->nodes[idx].n;
  size_t mask = g->nslots - 1;
  for (size_t i = hash_of(n->op, n->nattrs, n->attrs, n->nkids, n->kids) & mask;;
       i = (i + 1) & mask) {
    AX_ASSERT(g->slots[i] != EMPTY);   /* a live e-node is always in the table */
    if (g->slots[i] == idx) {
      g->slots[i] = TOMB;
      return;
    }
  }
}

/* ---- classes ------------------------------------------------------------------------ */

AxEgraph *ax_eg_new(const AxEgAnalysis *an) {
  AxEgraph *g = ax_xcalloc(1, sizeof *g);
  g->arena = ax_arena_new();
  if (an) {
    AX_ASSERT(an->size > 0 && an->make && an->merge);
    g->an = *an;
    g->has_an = true;
    g->scratch = ax_xmalloc(an->size);
  }
  regrow(g);
  return g;
}

void ax_eg_free(AxEgraph *g) {
  if (!g) return;
  for (uint32_t i = 0; i < g->nids; i++) {
    free(g->cnodes[i].v);
    free(g->cparents[i].v);
  }
  free(g->cnodes);
  free(g->cparents);
  free(g->parent);
  free(g->usize);
  free(g->data);
  free(g->scratch);
  free(g->nodes);
  free(g->slots);
  free(g->worklist.v);
  free(g->todo.v);
  free(g->touched.v);
  free(g->kbuf);
  free(g->orig);
  free(g->pnext);
  free(g->pjust);
  free(g->xslots);
  ax_arena_free(g->arena);
  ax_mem_give(g->taken);
  free(g);
}

AxEgId ax_eg_find(AxEgraph *g, AxEgId a) {
  AX_ASSERT(a < g->nids);
  AxEgId r = a;
  while (g->parent[r] != r) r = g->parent[r];
  while (g->parent[a] != r) {          /* path compression */
    AxEgId next = g->parent[a];
    g->parent[a] = r;
    a = next;
  }
  return r;
}

static AxEgId new_class(AxEgraph *g) {
  if (g->nids == g->capids) {
    uint32_t cap = g->capids ? g->capids * 2 : 64;
    size_t per = sizeof *g->parent + sizeof *g->usize + sizeof *g->cnodes + sizeof *g->cparents +
                 (g->has_an ? g->an.size : 0) +
                 (g->explain ? sizeof *g->orig + sizeof *g->pnext + sizeof *g->pjust : 0);
    take(g, (size_t)(cap - g->capids) * per);
    g->parent = ax_xrealloc(g->parent, cap * sizeof *g->parent);
    g->usize = ax_xrealloc(g->usize, cap * sizeof *g->usize);
    g->cnodes = ax_xrealloc(g->cnodes, cap * sizeof *g->cnodes);
    g->cparents = ax_xrealloc(g->cparents, cap * sizeof *g->cparents);
    if (g->has_an) g->data = ax_xrealloc(g->data, (size_t)cap * g->an.size);
    if (g->explain) {
      g->orig = ax_xrealloc(g->orig, cap * sizeof *g->orig);
      g->pnext = ax_xrealloc(g->pnext, cap * sizeof *g->pnext);
      g->pjust = ax_xrealloc(g->pjust, cap * sizeof *g->pjust);
    }
    g->capids = cap;
  }
  AxEgId id = g->nids++;
  if (g->explain) {
    g->orig[id] = (AxEgNode){0};
    g->pnext[id] = AX_EG_NONE;
    g->pjust[id] = (AxEgJust){0};
  }
  g->parent[id] = id;
  g->usize[id] = 1;
  g->cnodes[id] = (Ids){0};
  g->cparents[id] = (Ids){0};
  g->nclasses++;
  return id;
}

static void *data_at(AxEgraph *g, AxEgId c) {
  return g->data + (size_t)c * g->an.size;
}

void *ax_eg_data(AxEgraph *g, AxEgId c) {
  return g->has_an ? data_at(g, ax_eg_find(g, c)) : NULL;
}

/* Canonical children of n into kbuf. */
static const AxEgId *canon_kids(AxEgraph *g, const AxEgNode *n) {
  if (n->nkids > g->capkbuf) {
    g->capkbuf = n->nkids * 2;
    g->kbuf = ax_xrealloc(g->kbuf, g->capkbuf * sizeof *g->kbuf);
  }
  for (uint32_t i = 0; i < n->nkids; i++) g->kbuf[i] = ax_eg_find(g, n->kids[i]);
  return g->kbuf;
}

AxEgId ax_eg_lookup(AxEgraph *g, const AxEgNode *n) {
  const AxEgId *kids = canon_kids(g, n);
  uint32_t s = probe(g, n->op, n->nattrs, n->attrs, n->nkids, kids);
  return s == EMPTY ? AX_EG_NONE : ax_eg_find(g, g->nodes[s].cls);
}

/* ---- exact e-nodes and the proof forest (explanations) ------------------------------ */

/* The id whose e-node was added exactly as (op, attrs, kids), or EMPTY. */
static uint32_t xprobe(const AxEgraph *g, const AxEgNode *n) {
  size_t mask = g->nxslots - 1;
  for (size_t i = hash_of(n->op, n->nattrs, n->attrs, n->nkids, n->kids) & mask;;
       i = (i + 1) & mask) {
    uint32_t s = g->xslots[i];
    if (s == EMPTY) return EMPTY;
    if (same(&g->orig[s], n->op, n->nattrs, n->attrs, n->nkids, n->kids)) return s;
  }
}

static void xplace(AxEgraph *g, AxEgId id) {
  const AxEgNode *n = &g->orig[id];
  size_t mask = g->nxslots - 1;
  size_t i = hash_of(n->op, n->nattrs, n->attrs, n->nkids, n->kids) & mask;
  while (g->xslots[i] != EMPTY) i = (i + 1) & mask;
  g->xslots[i] = id;
  g->nxused++;
}

/* Records id's exact e-node (attrs and kids copied into the arena) in the exact table. */
static void xinsert(AxEgraph *g, AxEgId id, const AxEgNode *n) {
  int64_t *attrs = NULL;
  AxEgId *kids = NULL;
  if (n->nattrs) {
    attrs = ax_arena_alloc(g->arena, n->nattrs * sizeof *attrs);
    memcpy(attrs, n->attrs, n->nattrs * sizeof *attrs);
  }
  if (n->nkids) {
    kids = ax_arena_alloc(g->arena, n->nkids * sizeof *kids);
    memcpy(kids, n->kids, n->nkids * sizeof *kids);
  }
  g->orig[id] = (AxEgNode){n->op, n->nattrs, n->nkids, attrs, kids};
  if ((g->nxused + 1) * 4 > g->nxslots * 3) {
    uint32_t *old = g->xslots;
    size_t nold = g->nxslots;
    g->nxslots = nold ? nold * 2 : 64;
    g->xslots = ax_xmalloc(g->nxslots * sizeof *g->xslots);
    memset(g->xslots, 0xff, g->nxslots * sizeof *g->xslots);
    g->nxused = 0;
    for (size_t i = 0; i < nold; i++)
      if (old[i] != EMPTY) xplace(g, old[i]);
    free(old);
  }
  xplace(g, id);
}

/* Makes x the root of its proof tree by reversing the edges on its way to the old root;
 * a reversed edge is traversed against the rule's direction. */
static void reroot(AxEgraph *g, AxEgId x) {
  AxEgId prev = AX_EG_NONE;
  AxEgJust pj = {0};
  while (x != AX_EG_NONE) {
    AxEgId next = g->pnext[x];
    AxEgJust j = g->pjust[x];
    g->pnext[x] = prev;
    pj.forward = !pj.forward;
    g->pjust[x] = pj;
    prev = x;
    pj = j;
    x = next;
  }
}

/* The proof forest edge a -> b for a union of their classes (raw ids: what was merged,
 * not the roots). Called before the union-find link, while a and b are in two trees. */
static void proof_edge(AxEgraph *g, AxEgId a, AxEgId b, AxEgJust j) {
  reroot(g, a);
  j.forward = true;
  g->pnext[a] = b;
  g->pjust[a] = j;
}

static AxEgId unite(AxEgraph *g, AxEgId a, AxEgId b, AxEgJust j);

void ax_eg_explain_enable(AxEgraph *g) {
  AX_ASSERT(g->nids == 0 && !g->explain);   /* every id must have its exact e-node */
  g->explain = true;
}

bool ax_eg_explaining(const AxEgraph *g) { return g->explain; }

/* Adds e-node n; *exact receives the id whose e-node is exactly n (explaining) or the class. */
static AxEgId add(AxEgraph *g, const AxEgNode *node, AxEgId *exact) {
  /* A copy: node may be one the graph handed out, inside the table that grows below. */
  AxEgNode copy = *node;
  const AxEgNode *n = &copy;
  if (g->explain) {
    uint32_t e = g->nxslots ? xprobe(g, n) : EMPTY;
    if (e != EMPTY) {
      *exact = e;
      return ax_eg_find(g, e);
    }
  }
  const AxEgId *kids = canon_kids(g, n);
  uint32_t s = probe(g, n->op, n->nattrs, n->attrs, n->nkids, kids);
  if (s != EMPTY && !g->explain) return *exact = ax_eg_find(g, g->nodes[s].cls);
  if (g->nnodes >= MAX_IDS || g->nids >= MAX_IDS) return *exact = AX_EG_NONE;
  if (s != EMPTY) {
    /* Explaining: the same e-node up to equal children exists. A new id stands for this
     * exact one, merged into that class by congruence; the graph's e-nodes and classes
     * stay as they were (the merge is not counted as a change). */
    AxEgId id = new_class(g);
    xinsert(g, id, n);
    AxEgId c = ax_eg_find(g, g->nodes[s].cls);
    if (g->has_an) memcpy(data_at(g, id), data_at(g, c), g->an.size);
    uint64_t v = g->version;
    AxEgJust j = {.kind = AX_EG_BY_CONGRUENCE};
    unite(g, id, g->nodes[s].cls, j);
    g->version = v;
    *exact = id;
    return ax_eg_find(g, id);
  }
  AxEgId id = new_class(g);
  if (g->explain) xinsert(g, id, n);
  kids = canon_kids(g, n);   /* kbuf again: xinsert does not touch it, but stay safe */
  if (g->nnodes == g->capnodes) {
    uint32_t cap = g->capnodes ? g->capnodes * 2 : 64;
    take(g, (size_t)(cap - g->capnodes) * sizeof *g->nodes);
    g->capnodes = cap;
    g->nodes = ax_xrealloc(g->nodes, g->capnodes * sizeof *g->nodes);
  }
  uint32_t idx = g->nnodes++;
  Node *nd = &g->nodes[idx];
  int64_t *attrs = NULL;
  AxEgId *kcopy = NULL;
  if (n->nattrs) {
    attrs = ax_arena_alloc(g->arena, n->nattrs * sizeof *attrs);
    memcpy(attrs, n->attrs, n->nattrs * sizeof *attrs);
  }
  if (n->nkids) {
    kcopy = ax_arena_alloc(g->arena, n->nkids * sizeof *kcopy);
    memcpy(kcopy, kids, n->nkids * sizeof *kcopy);
  }
  *nd = (Node){.n = {n->op, n->nattrs, n->nkids, attrs, kcopy}, .cls = id};
  insert(g, idx);
  push(&g->cnodes[id], idx);
  for (uint32_t i = 0; i < n->nkids; i++) push(&g->cparents[kcopy[i]], idx);
  g->live++;
  g->version++;
  if (g->has_an) {
    g->an.make(g->an.ctx, g, &g->nodes[idx].n, data_at(g, id));
    if (g->an.modify) g->an.modify(g->an.ctx, g, id);
  }
  *exact = id;
  return ax_eg_find(g, id);
}

AxEgId ax_eg_add(AxEgraph *g, const AxEgNode *n) {
  AxEgId exact;
  return add(g, n, &exact);
}

AxEgId ax_eg_add_exact(AxEgraph *g, const AxEgNode *n) {
  AxEgId exact;
  add(g, n, &exact);
  return exact;
}

const AxEgNode *ax_eg_exact_node(const AxEgraph *g, AxEgId id) {
  AX_ASSERT(g->explain && id < g->nids);
  return &g->orig[id];
}

AxEgId ax_eg_proof_next(const AxEgraph *g, AxEgId id, AxEgJust *j) {
  AX_ASSERT(g->explain && id < g->nids);
  *j = g->pjust[id];
  return g->pnext[id];
}

AxEgId ax_eg_add_op(AxEgraph *g, uint32_t op, uint32_t nattrs, const int64_t *attrs,
                    uint32_t nkids, const AxEgId *kids) {
  AxEgNode n = {op, nattrs, nkids, attrs, kids};
  return ax_eg_add(g, &n);
}

/* Adds every entry of t; returns the root's class, or its exact id when `exact`. */
static AxEgId add_term(AxEgraph *g, const AxEgTerm *t, bool exact) {
  if (t->n == 0) return AX_EG_NONE;
  AxEgId *cls = ax_xmalloc(t->n * sizeof *cls);
  AxEgId *kids = NULL;
  uint32_t capk = 0;
  AxEgId r = AX_EG_NONE;
  for (size_t i = 0; i < t->n; i++) {
    const AxEgNode *n = &t->nodes[i];
    if (n->nkids > capk) {
      capk = n->nkids;
      kids = ax_xrealloc(kids, capk * sizeof *kids);
    }
    for (uint32_t k = 0; k < n->nkids; k++) {
      AX_ASSERT(n->kids[k] < i);   /* children come first */
      kids[k] = cls[n->kids[k]];
    }
    AxEgNode e = {n->op, n->nattrs, n->nkids, n->attrs, kids};
    AxEgId c = add(g, &e, &cls[i]);
    r = exact ? cls[i] : c;
    if (c == AX_EG_NONE) {
      r = AX_EG_NONE;
      break;
    }
  }
  free(kids);
  free(cls);
  return r;
}

AxEgId ax_eg_add_term(AxEgraph *g, const AxEgTerm *t) { return add_term(g, t, false); }
AxEgId ax_eg_add_term_exact(AxEgraph *g, const AxEgTerm *t) { return add_term(g, t, true); }

AxEgId ax_eg_union(AxEgraph *g, AxEgId a, AxEgId b) {
  return unite(g, a, b, (AxEgJust){.kind = AX_EG_BY_CALLER});
}

AxEgId ax_eg_union_by(AxEgraph *g, AxEgId a, AxEgId b, const void *rule) {
  return unite(g, a, b, (AxEgJust){.kind = AX_EG_BY_RULE, .rule = rule});
}

static AxEgId unite(AxEgraph *g, AxEgId a, AxEgId b, AxEgJust j) {
  if (g->explain && ax_eg_find(g, a) != ax_eg_find(g, b)) proof_edge(g, a, b, j);
  a = ax_eg_find(g, a);
  b = ax_eg_find(g, b);
  if (a == b) return a;
  if (g->usize[a] < g->usize[b]) {
    AxEgId t = a;
    a = b;
    b = t;
  }
  /* b goes under a; b's parents are the e-nodes whose children stopped being canonical,
   * and a joins the worklist so that repair re-canonicalizes them. */
  g->parent[b] = a;
  g->usize[a] += g->usize[b];
  append(&g->cnodes[a], &g->cnodes[b]);
  append(&g->cparents[a], &g->cparents[b]);
  free(g->cnodes[b].v);
  free(g->cparents[b].v);
  g->cnodes[b] = g->cparents[b] = (Ids){0};
  g->nclasses--;
  g->version++;
  push(&g->worklist, a);
  if (g->has_an) {
    /* Whatever changed, repair(a) re-makes a's parents (b's among them) and joins their
     * values into their classes: the answer of merge is not needed here. */
    g->an.merge(g->an.ctx, data_at(g, a), data_at(g, b));
    if (g->an.modify) g->an.modify(g->an.ctx, g, a);
  }
  return ax_eg_find(g, a);
}

/* ---- rebuilding (egg §3.2, the paper's rebuild/repair) ------------------------------- */

/* Re-canonicalizes the parents of class c, unioning the classes of parents that became
 * congruent, and re-makes their analysis values. Returns the unions made. */
static size_t repair(AxEgraph *g, AxEgId c) {
  size_t unions = 0;
  Ids ps = g->cparents[c];
  g->cparents[c] = (Ids){0};
  sort_unique(&ps);
  for (uint32_t i = 0; i < ps.len; i++) {
    uint32_t p = ps.v[i];
    if (g->nodes[p].dead) continue;
    remove_node(g, p);
    AxEgNode *n = &g->nodes[p].n;
    AxEgId *kids = (AxEgId *)n->kids;   /* arena memory the graph owns */
    for (uint32_t k = 0; k < n->nkids; k++) kids[k] = ax_eg_find(g, kids[k]);
    uint32_t q = probe(g, n->op, n->nattrs, n->attrs, n->nkids, n->kids);
    if (q == EMPTY) {
      insert(g, p);
      continue;
    }
    /* congruent to q: one e-node, one class */
    g->nodes[p].dead = true;
    g->live--;
    push(&g->touched, g->nodes[p].cls);
    if (ax_eg_find(g, g->nodes[p].cls) != ax_eg_find(g, g->nodes[q].cls)) {
      unite(g, g->nodes[p].cls, g->nodes[q].cls, (AxEgJust){.kind = AX_EG_BY_CONGRUENCE});
      unions++;
    }
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < ps.len; i++)
    if (!g->nodes[ps.v[i]].dead) ps.v[k++] = ps.v[i];
  ps.len = k;
  append(&g->cparents[ax_eg_find(g, c)], &ps);
  if (g->has_an)
    for (uint32_t i = 0; i < ps.len; i++) {
      uint32_t p = ps.v[i];
      g->an.make(g->an.ctx, g, &g->nodes[p].n, g->scratch);
      AxEgId pc = ax_eg_find(g, g->nodes[p].cls);
      if (g->an.merge(g->an.ctx, data_at(g, pc), g->scratch) & AX_EG_MERGE_INTO) {
        push(&g->worklist, pc);            /* its own parents may change value in turn */
        if (g->an.modify) g->an.modify(g->an.ctx, g, pc);
      }
    }
  free(ps.v);
  return unions;
}

size_t ax_eg_rebuild(AxEgraph *g) {
  size_t unions = 0;
  while (g->worklist.len) {
    Ids t = g->todo;
    g->todo = g->worklist;
    g->worklist = t;
    g->worklist.len = 0;
    for (uint32_t i = 0; i < g->todo.len; i++) g->todo.v[i] = ax_eg_find(g, g->todo.v[i]);
    sort_unique(&g->todo);
    for (uint32_t i = 0; i < g->todo.len; i++)
      unions += repair(g, ax_eg_find(g, g->todo.v[i]));
  }
  /* Dead e-nodes leave the lists of the classes they ended in. */
  for (uint32_t i = 0; i < g->touched.len; i++) {
    Ids *s = &g->cnodes[ax_eg_find(g, g->touched.v[i])];
    uint32_t k = 0;
    for (uint32_t j = 0; j < s->len; j++)
      if (!g->nodes[s->v[j]].dead) s->v[k++] = s->v[j];
    s->len = k;
  }
  g->touched.len = 0;
  return unions;
}

bool ax_eg_is_clean(const AxEgraph *g) { return g->worklist.len == 0; }
size_t ax_eg_nnodes(const AxEgraph *g) { return g->live; }
size_t ax_eg_nclasses(const AxEgraph *g) { return g->nclasses; }
size_t ax_eg_nids(const AxEgraph *g) { return g->nids; }
uint64_t ax_eg_version(const AxEgraph *g) { return g->version; }

size_t ax_eg_class_size(const AxEgraph *g, AxEgId c) {
  AX_ASSERT(c < g->nids && g->parent[c] == c);
  return g->cnodes[c].len;
}

const AxEgNode *ax_eg_class_node(const AxEgraph *g, AxEgId c, size_t i) {
  AX_ASSERT(c < g->nids && g->parent[c] == c && i < g->cnodes[c].len);
  return &g->nodes[g->cnodes[c].v[i]].n;
}

/* ---- the invariant check ------------------------------------------------------------ */

#define FAIL(...) do { snprintf(msg, n, __VA_ARGS__); ok = false; goto out; } while (0)

bool ax_eg_check(AxEgraph *g, char *msg, size_t n) {
  bool ok = true;
  uint32_t *listed = ax_xcalloc(g->nnodes + 1, sizeof *listed);
  size_t roots = 0, intable = 0;
  if (n) msg[0] = '\0';
  for (AxEgId r = 0; r < g->nids; r++) {
    if (g->parent[r] != r) continue;
    roots++;
    for (uint32_t j = 0; j < g->cnodes[r].len; j++) {
      uint32_t p = g->cnodes[r].v[j];
      if (g->nodes[p].dead) FAIL("class %u lists dead e-node %u", r, p);
      if (ax_eg_find(g, g->nodes[p].cls) != r)
        FAIL("class %u lists e-node %u of class %u", r, p, ax_eg_find(g, g->nodes[p].cls));
      listed[p]++;
    }
  }
  if (roots != g->nclasses) FAIL("%zu root classes, counted %zu", roots, g->nclasses);
  for (uint32_t p = 0; p < g->nnodes; p++) {
    const Node *nd = &g->nodes[p];
    if (nd->dead) continue;
    if (listed[p] != 1) FAIL("e-node %u listed %u times in its class", p, listed[p]);
    for (uint32_t k = 0; k < nd->n.nkids; k++) {
      AxEgId kid = nd->n.kids[k];
      if (g->parent[kid] != kid)
        FAIL("e-node %u is not canonical: child %u is not a root (congruence not restored)",
             p, kid);
      bool found = false;
      for (uint32_t j = 0; j < g->cparents[kid].len && !found; j++)
        found = g->cparents[kid].v[j] == p;
      if (!found) FAIL("e-node %u missing from the parents of its child class %u", p, kid);
    }
    if (probe(g, nd->n.op, nd->n.nattrs, nd->n.attrs, nd->n.nkids, nd->n.kids) != p)
      FAIL("hashcons does not map e-node %u to itself (a duplicate or a stale entry)", p);
  }
  for (size_t i = 0; i < g->nslots; i++) {
    uint32_t s = g->slots[i];
    if (s == EMPTY || s == TOMB) continue;
    if (s >= g->nnodes || g->nodes[s].dead) FAIL("hashcons slot %zu holds dead e-node %u", i, s);
    intable++;
  }
  if (intable != g->live) FAIL("hashcons holds %zu e-nodes, %zu live", intable, g->live);
  if (g->worklist.len) FAIL("%u dirty classes not rebuilt", g->worklist.len);
out:
  free(listed);
  return ok;
}
