/* pattern.c — patterns, the backtracking matcher, instantiation, rewrites (pattern.h).
 *
 * The matcher keeps the goals still to match as a linked list living on the C stack: a
 * pattern node that matches an e-node pushes one goal per child in front of the rest, so
 * backtracking to the next e-node only has to rebuild that frame's goals, never undo a
 * shared structure. Bindings made on the way are recorded on a trail and undone on return. */
#include "egraph/pattern.h"

#include <string.h>

AxEgPat *ax_eg_pat_var(AxArena *a, uint32_t v) {
  AxEgPat *p = ax_arena_alloc(a, sizeof *p);
  p->var = true;
  p->v = v;
  return p;
}

AxEgPat *ax_eg_pat_node(AxArena *a, uint32_t op, uint32_t nattrs, const AxEgPatAttr *attrs,
                        uint32_t nkids, AxEgPat *const *kids) {
  AxEgPat *p = ax_arena_alloc(a, sizeof *p);
  p->op = op;
  p->nattrs = nattrs;
  p->nkids = nkids;
  if (nattrs) {
    AxEgPatAttr *at = ax_arena_alloc(a, nattrs * sizeof *at);
    memcpy(at, attrs, nattrs * sizeof *at);
    p->attrs = at;
  }
  if (nkids) {
    AxEgPat **k = ax_arena_alloc(a, nkids * sizeof *k);
    memcpy(k, kids, nkids * sizeof *k);
    p->kids = k;
  }
  return p;
}

uint32_t ax_eg_pat_nvars(const AxEgPat *p) {
  if (p->var) return p->v + 1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->nattrs; i++)
    if (p->attrs[i].var && p->attrs[i].v + 1 > n) n = p->attrs[i].v + 1;
  for (uint32_t i = 0; i < p->nkids; i++) {
    uint32_t k = ax_eg_pat_nvars(p->kids[i]);
    if (k > n) n = k;
  }
  return n;
}

/* ---- matching ----------------------------------------------------------------------- */

typedef struct Goal {
  const AxEgPat *p;
  AxEgId c;
  const struct Goal *next;
} Goal;

typedef struct Matcher {
  AxEgraph *g;
  AxEgSubst s;
  AxEgId root;
  AxEgOnMatch *on;
  void *ctx;
  size_t count;
  bool stop;
  uint32_t *trail;           /* variables bound, in order; undone by unwinding */
  size_t ntrail, captrail;
} Matcher;

static void bind(Matcher *m, uint32_t v) {
  if (m->ntrail == m->captrail) {
    m->captrail = m->captrail ? m->captrail * 2 : 16;
    m->trail = ax_xrealloc(m->trail, m->captrail * sizeof *m->trail);
  }
  m->trail[m->ntrail++] = v;
}

static void unwind(Matcher *m, size_t to) {
  while (m->ntrail > to) {
    uint32_t v = m->trail[--m->ntrail];
    m->s.cls[v] = AX_EG_NONE;
    m->s.has_val[v] = false;
  }
}

/* Attributes of pattern node p against e-node n: exact ones equal, variables bound or
 * bound consistently. Binds onto the trail; the caller unwinds. */
static bool attrs_match(Matcher *m, const AxEgPat *p, const AxEgNode *n) {
  for (uint32_t i = 0; i < p->nattrs; i++) {
    const AxEgPatAttr *a = &p->attrs[i];
    if (!a->var) {
      if (n->attrs[i] != a->value) return false;
    } else if (m->s.has_val[a->v]) {
      if (m->s.val[a->v] != n->attrs[i]) return false;
    } else {
      m->s.val[a->v] = n->attrs[i];
      m->s.has_val[a->v] = true;
      bind(m, a->v);
    }
  }
  return true;
}

static void solve(Matcher *m, const Goal *goal) {
  if (m->stop) return;
  if (!goal) {
    m->count++;
    if (!m->on(m->ctx, m->root, &m->s)) m->stop = true;
    return;
  }
  const AxEgPat *p = goal->p;
  if (p->var) {
    AxEgId b = m->s.cls[p->v];
    if (b != AX_EG_NONE) {
      if (ax_eg_find(m->g, b) == goal->c) solve(m, goal->next);
      return;
    }
    size_t mark = m->ntrail;
    m->s.cls[p->v] = goal->c;
    bind(m, p->v);
    solve(m, goal->next);
    unwind(m, mark);
    return;
  }
  Goal local[8];
  Goal *kg = p->nkids <= 8 ? local : ax_xmalloc(p->nkids * sizeof *kg);
  size_t nn = ax_eg_class_size(m->g, goal->c);
  for (size_t i = 0; i < nn && !m->stop; i++) {
    const AxEgNode *n = ax_eg_class_node(m->g, goal->c, i);
    if (n->op != p->op || n->nattrs != p->nattrs || n->nkids != p->nkids) continue;
    size_t mark = m->ntrail;
    if (attrs_match(m, p, n)) {
      for (uint32_t k = 0; k < p->nkids; k++)
        kg[k] = (Goal){p->kids[k], n->kids[k], k + 1 < p->nkids ? &kg[k + 1] : goal->next};
      solve(m, p->nkids ? &kg[0] : goal->next);
    }
    unwind(m, mark);
  }
  if (kg != local) free(kg);
}

/* A matcher for p with nvars variables, all unbound; free with drop(). */
static Matcher prepare(AxEgraph *g, const AxEgPat *p, uint32_t nvars, AxEgOnMatch *on, void *ctx) {
  AX_ASSERT(ax_eg_is_clean(g));          /* matching reads canonical e-nodes */
  AX_ASSERT(nvars >= ax_eg_pat_nvars(p));
  Matcher m = {.g = g, .on = on, .ctx = ctx};
  m.s.nvars = nvars;
  m.s.cls = ax_xmalloc((nvars + 1) * sizeof *m.s.cls);
  m.s.val = ax_xcalloc(nvars + 1, sizeof *m.s.val);
  m.s.has_val = ax_xcalloc(nvars + 1, sizeof *m.s.has_val);
  for (uint32_t v = 0; v < nvars; v++) m.s.cls[v] = AX_EG_NONE;
  return m;
}

static void match_at(Matcher *m, const AxEgPat *p, AxEgId root) {
  m->root = ax_eg_find(m->g, root);
  Goal top = {p, m->root, NULL};
  solve(m, &top);
}

static void drop(Matcher *m) {
  free(m->s.cls);
  free(m->s.val);
  free(m->s.has_val);
  free(m->trail);
}

size_t ax_eg_match(AxEgraph *g, const AxEgPat *p, uint32_t nvars, AxEgId root,
                   AxEgOnMatch *on, void *ctx) {
  Matcher m = prepare(g, p, nvars, on, ctx);
  match_at(&m, p, root);
  drop(&m);
  return m.count;
}

typedef struct Collect {
  AxEgMatches *m;
  size_t limit, added;
} Collect;

static bool collect(void *ctx, AxEgId root, const AxEgSubst *s) {
  Collect *c = ctx;
  AxEgMatches *m = c->m;
  uint32_t nv = m->nvars;
  if (m->n == m->cap) {
    m->cap = m->cap ? m->cap * 2 : 16;
    m->roots = ax_xrealloc(m->roots, m->cap * sizeof *m->roots);
    m->cls = ax_xrealloc(m->cls, m->cap * (nv + 1) * sizeof *m->cls);
    m->val = ax_xrealloc(m->val, m->cap * (nv + 1) * sizeof *m->val);
    m->has_val = ax_xrealloc(m->has_val, m->cap * (nv + 1) * sizeof *m->has_val);
  }
  m->roots[m->n] = root;
  memcpy(m->cls + m->n * nv, s->cls, nv * sizeof *s->cls);
  memcpy(m->val + m->n * nv, s->val, nv * sizeof *s->val);
  memcpy(m->has_val + m->n * nv, s->has_val, nv * sizeof *s->has_val);
  m->n++;
  return ++c->added < c->limit;
}

size_t ax_eg_search(AxEgraph *g, const AxEgPat *p, uint32_t nvars, size_t limit, AxEgMatches *m) {
  if (m->cap == 0) m->nvars = nvars;
  AX_ASSERT(m->nvars == nvars);
  Collect c = {m, limit, 0};
  if (limit == 0) return 0;
  Matcher mt = prepare(g, p, nvars, collect, &c);
  size_t ids = ax_eg_nids(g);
  for (AxEgId id = 0; id < ids && !mt.stop; id++)
    if (ax_eg_find(g, id) == id) match_at(&mt, p, id);
  drop(&mt);
  return c.added;
}

AxEgSubst ax_eg_matches_at(const AxEgMatches *m, size_t i) {
  AX_ASSERT(i < m->n);
  size_t o = i * m->nvars;
  return (AxEgSubst){m->nvars, m->cls + o, m->val + o, m->has_val + o};
}

void ax_eg_matches_clear(AxEgMatches *m) { m->n = 0; }

void ax_eg_matches_free(AxEgMatches *m) {
  free(m->roots);
  free(m->cls);
  free(m->val);
  free(m->has_val);
  *m = (AxEgMatches){0};
}

/* ---- instantiation and rewrites ----------------------------------------------------- */

/* p under s; the exact id of the result when the graph explains (egraph.h), so that the id
 * denotes p instantiated with the bound ids' terms; a class otherwise. */
static AxEgId inst(AxEgraph *g, const AxEgPat *p, const AxEgSubst *s) {
  if (p->var) {
    AX_ASSERT(p->v < s->nvars && s->cls[p->v] != AX_EG_NONE);
    return ax_eg_explaining(g) ? s->cls[p->v] : ax_eg_find(g, s->cls[p->v]);
  }
  AxEgId kl[8];
  int64_t al[8];
  AxEgId *kids = p->nkids <= 8 ? kl : ax_xmalloc(p->nkids * sizeof *kids);
  int64_t *attrs = p->nattrs <= 8 ? al : ax_xmalloc(p->nattrs * sizeof *attrs);
  AxEgId r = AX_EG_NONE;
  for (uint32_t i = 0; i < p->nattrs; i++) {
    const AxEgPatAttr *a = &p->attrs[i];
    if (a->var) AX_ASSERT(a->v < s->nvars && s->has_val[a->v]);
    attrs[i] = a->var ? s->val[a->v] : a->value;
  }
  for (uint32_t i = 0; i < p->nkids; i++)
    if ((kids[i] = inst(g, p->kids[i], s)) == AX_EG_NONE) goto out;
  AxEgNode n = {p->op, p->nattrs, p->nkids, attrs, kids};
  r = ax_eg_add_exact(g, &n);
out:
  if (kids != kl) free(kids);
  if (attrs != al) free(attrs);
  return r;
}

AxEgId ax_eg_instantiate(AxEgraph *g, const AxEgPat *p, const AxEgSubst *s) {
  AxEgId r = inst(g, p, s);
  return r == AX_EG_NONE ? r : ax_eg_find(g, r);
}

/* Variable kinds seen in p: 1 class, 2 attribute, per variable; false on a clash, a
 * variable past nv, or (bound_only) a variable that kinds[] does not already have. */
static bool var_kinds(const AxEgPat *p, unsigned char *kinds, uint32_t nv, bool bound_only,
                      char *msg, size_t n) {
  if (p->var) {
    if (p->v >= nv || (bound_only && kinds[p->v] != 1) || kinds[p->v] == 2) {
      snprintf(msg, n, "class variable %u %s", p->v,
               kinds[p->v] == 2 ? "is also an attribute variable" : "is not bound by the left side");
      return false;
    }
    kinds[p->v] = 1;
    return true;
  }
  for (uint32_t i = 0; i < p->nattrs; i++) {
    const AxEgPatAttr *a = &p->attrs[i];
    if (!a->var) continue;
    if (a->v >= nv || (bound_only && kinds[a->v] != 2) || kinds[a->v] == 1) {
      snprintf(msg, n, "attribute variable %u %s", a->v,
               kinds[a->v] == 1 ? "is also a class variable" : "is not bound by the left side");
      return false;
    }
    kinds[a->v] = 2;
  }
  for (uint32_t i = 0; i < p->nkids; i++)
    if (!var_kinds(p->kids[i], kinds, nv, bound_only, msg, n)) return false;
  return true;
}

uint32_t ax_eg_rewrite_nvars(const AxEgRewrite *rw) {
  uint32_t n = ax_eg_pat_nvars(rw->lhs);
  if (rw->rhs && ax_eg_pat_nvars(rw->rhs) > n) n = ax_eg_pat_nvars(rw->rhs);
  return n;
}

bool ax_eg_rewrite_check(const AxEgRewrite *rw, char *msg, size_t n) {
  if (n) msg[0] = '\0';
  if (!rw->lhs || rw->lhs->var) {
    snprintf(msg, n, "the left side must be an operator pattern");
    return false;
  }
  if (!rw->rhs == !rw->apply) {
    snprintf(msg, n, "exactly one of a right side and an applier");
    return false;
  }
  uint32_t nv = ax_eg_rewrite_nvars(rw);
  unsigned char *kinds = ax_xcalloc(nv + 1, 1);
  bool ok = var_kinds(rw->lhs, kinds, nv, false, msg, n) &&
            (!rw->rhs || var_kinds(rw->rhs, kinds, nv, true, msg, n));
  free(kinds);
  return ok;
}

int ax_eg_apply(AxEgraph *g, const AxEgRewrite *rw, AxEgId root, const AxEgSubst *s) {
  if (rw->cond && !rw->cond(rw->ctx, g, root, s)) return 0;
  AxEgId r = rw->rhs ? inst(g, rw->rhs, s) : rw->apply(rw->ctx, g, root, s);
  if (r == AX_EG_NONE) return rw->rhs ? -1 : 0;
  if (ax_eg_find(g, r) == ax_eg_find(g, root)) return 0;
  if (!ax_eg_explaining(g)) {
    ax_eg_union(g, r, root);
    return 1;
  }
  /* The justified union is between lhs[σ] and rhs[σ] exactly; lhs[σ] is in root's class up
   * to congruence (now, or after the rebuild when the hashcons is stale mid-iteration). */
  AxEgId l = inst(g, rw->lhs, s);
  if (l == AX_EG_NONE) return -1;
  ax_eg_union_by(g, l, r, rw);
  return 1;
}
