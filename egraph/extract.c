/* extract.c — greedy bottom-up extraction (extract.h). */
#include "egraph/extract.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct AxEgExtractor {
  AxEgraph *g;
  double *cost;                 /* per id; meaningful at roots */
  const AxEgNode **best;        /* per id: the cheapest e-node, NULL while none is finite */
};

AxEgExtractor *ax_eg_extractor_new(AxEgraph *g, AxEgCost *cost, void *ctx) {
  AX_ASSERT(ax_eg_is_clean(g));
  size_t ids = ax_eg_nids(g);
  AxEgExtractor *x = ax_xcalloc(1, sizeof *x);
  x->g = g;
  x->cost = ax_xmalloc((ids + 1) * sizeof *x->cost);
  x->best = ax_xcalloc(ids + 1, sizeof *x->best);
  for (size_t i = 0; i < ids; i++) x->cost[i] = INFINITY;
  /* Bellman-Ford style: a class's cost only falls, and with positive e-node costs the
   * cheapest choices form no cycle, so this reaches its fixed point. */
  for (bool changed = true; changed;) {
    changed = false;
    for (AxEgId c = 0; c < ids; c++) {
      if (ax_eg_find(g, c) != c) continue;
      size_t nn = ax_eg_class_size(g, c);
      for (size_t i = 0; i < nn; i++) {
        const AxEgNode *n = ax_eg_class_node(g, c, i);
        double s = cost(ctx, n);
        AX_ASSERT(s > 0);                      /* INFINITY: never chosen; NaN refused */
        for (uint32_t k = 0; k < n->nkids && isfinite(s); k++) s += x->cost[n->kids[k]];
        if (s < x->cost[c]) {
          x->cost[c] = s;
          x->best[c] = n;
          changed = true;
        }
      }
    }
  }
  return x;
}

void ax_eg_extractor_free(AxEgExtractor *x) {
  if (!x) return;
  free(x->cost);
  free(x->best);
  free(x);
}

double ax_eg_extractor_cost(const AxEgExtractor *x, AxEgId c) {
  return x->cost[ax_eg_find(x->g, c)];
}

typedef struct Frame {
  AxEgId c;
  uint32_t next;                /* the next child to visit */
} Frame;

bool ax_eg_extractor_term(const AxEgExtractor *x, AxEgId c, AxArena *a, AxEgTerm *t) {
  return ax_eg_term_of_choice(x->g, x->best, c, a, t);
}

bool ax_eg_term_of_choice(AxEgraph *g, const AxEgNode *const *best, AxEgId c, AxArena *a,
                          AxEgTerm *t) {
  *t = (AxEgTerm){0};
  c = ax_eg_find(g, c);
  if (!best[c]) return false;
  size_t ids = ax_eg_nids(g);
  uint32_t *at = ax_xmalloc((ids + 1) * sizeof *at);   /* class -> term index */
  memset(at, 0xff, (ids + 1) * sizeof *at);
  Frame *st = ax_xmalloc((ids + 1) * sizeof *st);      /* a path visits a class once */
  AxEgNode *out = ax_xmalloc((ids + 1) * sizeof *out);
  size_t sp = 0, n = 0;
  st[sp++] = (Frame){c, 0};
  /* Post-order without recursion: a deep term must not overflow the C stack. */
  while (sp) {
    Frame *f = &st[sp - 1];
    const AxEgNode *e = best[f->c];
    AX_ASSERT(e);                    /* a chosen e-node's children are chosen */
    if (f->next < e->nkids) {
      AxEgId k = e->kids[f->next++];
      if (at[k] == UINT32_MAX) st[sp++] = (Frame){k, 0};
      continue;
    }
    if (at[f->c] == UINT32_MAX) {
      uint32_t *kids = e->nkids ? ax_arena_alloc(a, e->nkids * sizeof *kids) : NULL;
      for (uint32_t k = 0; k < e->nkids; k++) kids[k] = at[e->kids[k]];
      int64_t *attrs = e->nattrs ? ax_arena_alloc(a, e->nattrs * sizeof *attrs) : NULL;
      if (e->nattrs) memcpy(attrs, e->attrs, e->nattrs * sizeof *attrs);
      out[n] = (AxEgNode){e->op, e->nattrs, e->nkids, attrs, kids};
      at[f->c] = (uint32_t)n++;
    }
    sp--;
  }
  t->n = n;
  t->nodes = ax_arena_alloc(a, n * sizeof *t->nodes);
  memcpy(t->nodes, out, n * sizeof *t->nodes);
  free(out);
  free(st);
  free(at);
  return true;
}

bool ax_eg_extract(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx, AxArena *a, AxEgTerm *t,
                   double *total) {
  AxEgExtractor *x = ax_eg_extractor_new(g, cost, ctx);
  bool ok = ax_eg_extractor_term(x, c, a, t);
  if (total) *total = ax_eg_extractor_cost(x, c);
  ax_eg_extractor_free(x);
  return ok;
}

double ax_eg_count_terms(AxEgraph *g, AxEgId c) {
  AX_ASSERT(ax_eg_is_clean(g));
  size_t ids = ax_eg_nids(g);
  c = ax_eg_find(g, c);
  double *n = ax_xcalloc(ids + 1, sizeof *n);
  /* Jacobi-style rounds from 0: without a cycle every count is final after as many rounds
   * as the longest path has classes (at most the number of classes). A count still
   * changing in the round after that is on or above a productive cycle: unbounded. */
  size_t roots = ax_eg_nclasses(g);
  bool changed = true, c_changed = false;
  for (size_t round = 0; changed && round <= roots + 1; round++) {
    changed = c_changed = false;
    for (AxEgId k = 0; k < ids; k++) {
      if (ax_eg_find(g, k) != k) continue;
      double s = 0;
      size_t nn = ax_eg_class_size(g, k);
      for (size_t i = 0; i < nn; i++) {
        const AxEgNode *e = ax_eg_class_node(g, k, i);
        double p = 1;
        for (uint32_t j = 0; j < e->nkids && p > 0; j++) p *= n[e->kids[j]];
        s += p;
      }
      if (s > 1e300) s = INFINITY;
      if (s != n[k]) {
        n[k] = s;
        changed = true;
        c_changed |= k == c;
      }
    }
  }
  double r = changed && c_changed ? INFINITY : n[c];
  free(n);
  return r;
}

double ax_eg_extractor_dag_cost(const AxEgExtractor *x, AxEgId c, AxEgCost *cost, void *ctx) {
  c = ax_eg_find(x->g, c);
  if (!x->best[c]) return INFINITY;
  size_t ids = ax_eg_nids(x->g);
  bool *seen = ax_xcalloc(ids + 1, sizeof *seen);
  AxEgId *todo = ax_xmalloc((ids + 1) * sizeof *todo);
  size_t n = 0;
  double s = 0;
  seen[c] = true;
  todo[n++] = c;
  while (n) {
    const AxEgNode *e = x->best[todo[--n]];
    s += cost(ctx, e);
    for (uint32_t k = 0; k < e->nkids; k++)
      if (!seen[e->kids[k]]) {
        seen[e->kids[k]] = true;
        todo[n++] = e->kids[k];
      }
  }
  free(todo);
  free(seen);
  return s;
}

/* ---- DAG-aware greedy (extraction-gym's greedy-dag) ------------------------------------ */

/* A class's chosen sub-DAG: the classes in it (sorted ids) and each one's e-node cost. */
typedef struct Dag {
  size_t n;
  AxEgId *ids;
  double *cost;
  double total;
} Dag;

/* u = the union of a and b (a class in both keeps a's cost). */
static void dag_union(const Dag *a, const Dag *b, Dag *u) {
  size_t i = 0, j = 0;
  u->n = 0;
  u->total = 0;
  while (i < a->n || j < b->n) {
    bool ta = j == b->n || (i < a->n && a->ids[i] <= b->ids[j]);
    AxEgId id = ta ? a->ids[i] : b->ids[j];
    double c = ta ? a->cost[i] : b->cost[j];
    if (ta && j < b->n && b->ids[j] == id) j++;
    if (ta) i++;
    else j++;
    u->ids[u->n] = id, u->cost[u->n++] = c, u->total += c;
  }
}

static bool dag_has(const Dag *d, AxEgId c) {
  size_t lo = 0, hi = d->n;
  while (lo < hi) {
    size_t m = (lo + hi) / 2;
    if (d->ids[m] < c) lo = m + 1;
    else hi = m;
  }
  return lo < d->n && d->ids[lo] == c;
}

/* Whether the choices reachable from c are acyclic (iterative three-colour search). */
static bool acyclic(AxEgraph *g, const AxEgNode *const *best, AxEgId c) {
  size_t ids = ax_eg_nids(g);
  unsigned char *col = ax_xcalloc(ids + 1, 1);
  Frame *st = ax_xmalloc((ids + 1) * sizeof *st);
  size_t sp = 0;
  bool ok = true;
  st[sp++] = (Frame){c, 0};
  col[c] = 1;
  while (sp && ok) {
    Frame *f = &st[sp - 1];
    const AxEgNode *e = best[f->c];
    if (!e) {
      ok = false;
      break;
    }
    if (f->next < e->nkids) {
      AxEgId k = ax_eg_find(g, e->kids[f->next++]);
      if (col[k] == 1) ok = false;
      else if (col[k] == 0) col[k] = 1, st[sp++] = (Frame){k, 0};
      continue;
    }
    col[f->c] = 2;
    sp--;
  }
  free(st);
  free(col);
  return ok;
}

bool ax_eg_extract_dag(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx, size_t rounds, AxArena *a,
                       AxEgTerm *t, double *total) {
  AX_ASSERT(ax_eg_is_clean(g));
  *t = (AxEgTerm){0};
  size_t ids = ax_eg_nids(g), ncls = ax_eg_nclasses(g);
  Dag *d = ax_xcalloc(ids + 1, sizeof *d);
  const AxEgNode **best = ax_xcalloc(ids + 1, sizeof *best);
  Dag u = {0, ax_xmalloc((ncls + 1) * sizeof *u.ids), ax_xmalloc((ncls + 1) * sizeof *u.cost), 0};
  Dag w = {0, ax_xmalloc((ncls + 1) * sizeof *w.ids), ax_xmalloc((ncls + 1) * sizeof *w.cost), 0};
  /* Rounds of relaxation: an e-node's cost is its own plus the union of its children's
   * sub-DAGs (a class shared below counts once), a class keeps its cheapest e-node whose
   * sub-DAG does not contain the class itself. Costs are read as they are when the e-node
   * is visited, so a round may see stale children: a heuristic, bounded by `rounds`. */
  for (size_t round = 0, changed = 1; changed && round < rounds; round++) {
    changed = 0;
    for (AxEgId k = 0; k < ids; k++) {
      if (ax_eg_find(g, k) != k) continue;
      size_t nn = ax_eg_class_size(g, k);
      for (size_t i = 0; i < nn; i++) {
        const AxEgNode *e = ax_eg_class_node(g, k, i);
        double own = cost(ctx, e);
        if (!isfinite(own)) continue;
        bool ok = true;
        u.n = 0, u.total = 0;
        for (uint32_t j = 0; j < e->nkids && ok; j++) {
          const Dag *kd = &d[e->kids[j]];
          if (!best[e->kids[j]] || dag_has(kd, k)) {
            ok = false;
            break;
          }
          dag_union(&u, kd, &w);
          Dag tmp = u;
          u = w, w = tmp;
        }
        if (!ok || dag_has(&u, k)) continue;
        double tot = u.total + own;
        if (best[k] && tot >= d[k].total * (1 - 1e-12)) continue;
        /* d[k] = u + {k: own} */
        Dag *dk = &d[k];
        dk->ids = ax_xrealloc(dk->ids, (u.n + 1) * sizeof *dk->ids);
        dk->cost = ax_xrealloc(dk->cost, (u.n + 1) * sizeof *dk->cost);
        size_t m = 0, q = 0;
        for (; q < u.n && u.ids[q] < k; q++) dk->ids[m] = u.ids[q], dk->cost[m++] = u.cost[q];
        dk->ids[m] = k, dk->cost[m++] = own;
        for (; q < u.n; q++) dk->ids[m] = u.ids[q], dk->cost[m++] = u.cost[q];
        dk->n = m;
        dk->total = tot;
        best[k] = e;
        changed = 1;
      }
    }
  }
  c = ax_eg_find(g, c);
  bool ok = best[c] && acyclic(g, best, c) && ax_eg_term_of_choice(g, best, c, a, t);
  if (total) *total = ok ? d[c].total : INFINITY;
  for (size_t i = 0; i <= ids; i++) free(d[i].ids), free(d[i].cost);
  free(d);
  free(best);
  free(u.ids), free(u.cost), free(w.ids), free(w.cost);
  return ok;
}
