/* extract.c — greedy bottom-up extraction (extract.h). */
#include "egraph/extract.h"

#include <math.h>
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
  *t = (AxEgTerm){0};
  c = ax_eg_find(x->g, c);
  if (!x->best[c]) return false;
  size_t ids = ax_eg_nids(x->g);
  uint32_t *at = ax_xmalloc((ids + 1) * sizeof *at);   /* class -> term index */
  memset(at, 0xff, (ids + 1) * sizeof *at);
  Frame *st = ax_xmalloc((ids + 1) * sizeof *st);      /* a path visits a class once */
  AxEgNode *out = ax_xmalloc((ids + 1) * sizeof *out);
  size_t sp = 0, n = 0;
  st[sp++] = (Frame){c, 0};
  /* Post-order without recursion: a deep term must not overflow the C stack. */
  while (sp) {
    Frame *f = &st[sp - 1];
    const AxEgNode *e = x->best[f->c];
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
