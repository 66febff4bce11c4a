/* taskgraph.c — the SM-level task graph of a μGraph: tasks, fine-grained events, fusion,
 * linearization, launch modes, and the check against the μGraph (taskgraph.h). */
#include "mpk/taskgraph.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "base/arena.h"
#include "superopt/ir/pop.h"

/* A box of a kernel tensor: dims [lo, hi). */
typedef struct Box {
  int t;
  int rank;
  int64_t lo[AX_MAXRANK], hi[AX_MAXRANK];
} Box;

/* A growable list of boxes (malloc'd: tiles are working data, not part of the result). */
typedef struct Boxes {
  Box *b;
  int n, cap;
} Boxes;

static void push(Boxes *l, const Box *b) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->b = ax_xrealloc(l->b, sizeof(Box) * (size_t)l->cap);
  }
  l->b[l->n++] = *b;
}

static bool meet(const Box *a, const Box *b) {
  if (a->t != b->t) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return false;
  return true;
}

static Box whole(const AxMugraph *g, int t) {
  Box b = {.t = t, .rank = g->tensors[t].shape.rank};
  for (int d = 0; d < b.rank; d++) b.lo[d] = 0, b.hi[d] = g->tensors[t].shape.dim[d];
  return b;
}

static Box cut(const AxMugraph *g, int t, const int *map, const AxTgKernel *k,
               const int64_t *block) {
  AxTShape tile;
  int64_t off[AX_MAXRANK] = {0};
  ax_mug_tile(&g->tensors[t].shape, map, -1, k->grid, 1, block, 0, &tile, off);
  Box b = {.t = t, .rank = tile.rank};
  for (int d = 0; d < b.rank; d++) b.lo[d] = off[d], b.hi[d] = off[d] + tile.dim[d];
  return b;
}

/* Whether tensor t is the result of a free operator (a view or a constant: no task). */
static const AxKStmt *free_def(const AxMugraph *g, int t) {
  if (g->tensors[t].anon) return NULL;
  const AxKStmt *s = &g->stmts[g->tensors[t].stmt];
  if (s->kind != AX_KS_OP) return NULL;
  const AxPOp *p = ax_pop_get(s->op);
  return p && p->free ? s : NULL;
}

/* A read of box b: through a free operator, a read of its operands, whole. */
static void add_read(const AxMugraph *g, Boxes *l, Box b) {
  const AxKStmt *s = free_def(g, b.t);
  if (!s) {
    push(l, &b);
    return;
  }
  for (int i = 0; i < s->nin; i++) add_read(g, l, whole(g, s->in[i]));
}

/* The boxes task (k, block) reads and writes, appended to reads and writes. */
static void tiles(const AxMugraph *g, const AxTgKernel *k, const int64_t *block, Boxes *reads,
                  Boxes *writes) {
  const AxKStmt *s = &g->stmts[k->stmt];
  if (!k->graph_defined) {
    for (int i = 0; i < s->nin; i++)
      if (!g->tensors[s->in[i]].anon) add_read(g, reads, whole(g, s->in[i]));
    Box w = whole(g, s->t);
    push(writes, &w);
    return;
  }
  const AxKernel *kk = s->kernel;
  for (int i = 0; i < kk->nnodes; i++) {
    const AxBNode *n = &kk->nodes[i];
    if (n->kind == AX_BN_ITER) add_read(g, reads, cut(g, n->src, n->imap, k, block));
    else if (n->kind == AX_BN_SAVE) {
      Box w = cut(g, n->dst, n->omap, k, block);
      push(writes, &w);
    }
  }
}

static void block_of(const AxTgKernel *k, int64_t i, int64_t *block) {
  block[0] = i % k->grid[0];
  block[1] = i / k->grid[0] % k->grid[1];
  block[2] = i / (k->grid[0] * k->grid[1]);
}

/* ---- building ----------------------------------------------------------------------- */

/* Working state of one build: tasks in natural order (kernel by kernel) and their
 * producer sets, each sorted, as ranges of one array. */
typedef struct Build {
  const AxMugraph *g;
  AxTgKernel *kernels;
  int nkernels;
  AxTask *tasks;
  int ntasks;
  int *first_task;        /* per kernel: its first task in natural order */
  int *writer;            /* per tensor: the kernel that writes it, or -1 */
  int *pstart, *plen;     /* per task: its producers, prods[pstart .. + plen) */
  int *prods;
  int nprods, capprods;
  int *set;               /* per task: its event before linearization */
} Build;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static const Build *sort_ctx;   /* qsort has no context argument in C11 */
static int cmp_set(const void *a, const void *b) {
  const Build *B = sort_ctx;
  int x = *(const int *)a, y = *(const int *)b;
  if (B->plen[x] != B->plen[y]) return B->plen[x] < B->plen[y] ? -1 : 1;
  int c = B->plen[x] ? memcmp(B->prods + B->pstart[x], B->prods + B->pstart[y],   /* prods may be NULL */
                              sizeof(int) * (size_t)B->plen[x])
                     : 0;
  if (c) return c;
  return (x > y) - (x < y);
}
static bool same_set(const Build *B, int x, int y) {
  return B->plen[x] == B->plen[y] &&
         (B->plen[x] == 0 || memcmp(B->prods + B->pstart[x], B->prods + B->pstart[y],
                                    sizeof(int) * (size_t)B->plen[x]) == 0);
}

/* Producers of every task: for each box it reads, every task of the tensor's writer kernel
 * whose written box meets it. */
static void producers(Build *B, int64_t *pairs) {
  const AxMugraph *g = B->g;
  Boxes *writes = ax_xcalloc((size_t)B->ntasks, sizeof(Boxes));
  Boxes scratch = {0};
  for (int t = 0; t < B->ntasks; t++) {
    scratch.n = 0;
    tiles(g, &B->kernels[B->tasks[t].kernel], B->tasks[t].block, &scratch, &writes[t]);
  }
  int *mark = ax_xmalloc(sizeof(int) * (size_t)(B->ntasks ? B->ntasks : 1));
  for (int t = 0; t < B->ntasks; t++) mark[t] = -1;
  Boxes reads = {0}, none = {0};
  for (int t = 0; t < B->ntasks; t++) {
    reads.n = 0;
    none.n = 0;
    tiles(g, &B->kernels[B->tasks[t].kernel], B->tasks[t].block, &reads, &none);
    B->pstart[t] = B->nprods;
    for (int r = 0; r < reads.n; r++) {
      int k = B->writer[reads.b[r].t];
      if (k < 0) continue;   /* a graph input */
      for (int u = B->first_task[k]; u < B->first_task[k] + B->kernels[k].ntasks; u++) {
        if (mark[u] == t) continue;
        for (int w = 0; w < writes[u].n; w++)
          if (meet(&reads.b[r], &writes[u].b[w])) {
            mark[u] = t;
            if (B->nprods == B->capprods) {
              B->capprods = B->capprods ? 2 * B->capprods : 64;
              B->prods = ax_xrealloc(B->prods, sizeof(int) * (size_t)B->capprods);
            }
            B->prods[B->nprods++] = u;
            break;
          }
      }
    }
    B->plen[t] = B->nprods - B->pstart[t];
    if (B->plen[t] > 1)   /* B->prods is NULL while no task has a producer: no qsort of NULL */
      qsort(B->prods + B->pstart[t], (size_t)B->plen[t], sizeof(int), cmp_int);
    *pairs += B->plen[t];
  }
  for (int t = 0; t < B->ntasks; t++) free(writes[t].b);
  free(writes);
  free(scratch.b);
  free(reads.b);
  free(none.b);
  free(mark);
}

bool ax_taskgraph_build(AxArena *a, const AxMugraph *g, AxDiag *d, AxTaskGraph *out) {
  memset(out, 0, sizeof *out);
  out->g = g;
  Build B = {.g = g};
  B.kernels = ax_arena_alloc(a, sizeof(AxTgKernel) * (size_t)(g->nstmts + 1));
  B.writer = ax_xmalloc(sizeof(int) * (size_t)(g->ntensors + 1));
  for (int t = 0; t < g->ntensors; t++) B.writer[t] = -1;
  int64_t total = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *s = &g->stmts[i];
    AxTgKernel *k = &B.kernels[B.nkernels];
    if (s->kind == AX_KS_KERNEL) {
      const AxKernel *kk = s->kernel;
      *k = (AxTgKernel){.name = kk->name, .stmt = i, .graph_defined = true};
      for (int j = 0; j < 3; j++) k->grid[j] = kk->grid[j] > 0 ? kk->grid[j] : 1;
      for (int j = 0; j < kk->nnodes; j++)
        if (kk->nodes[j].kind == AX_BN_SAVE) B.writer[kk->nodes[j].dst] = B.nkernels;
    } else if (s->kind == AX_KS_OP && !free_def(g, s->t)) {
      *k = (AxTgKernel){.name = g->tensors[s->t].name, .stmt = i, .grid = {1, 1, 1}};
      B.writer[s->t] = B.nkernels;
    } else {
      continue;
    }
    int64_t n = k->grid[0] * k->grid[1] * k->grid[2];
    total += n;
    if (total > AX_MUG_MAX_BLOCKS) {
      ax_diag_error(d, s->span, "the task graph would have more than %d tasks", AX_MUG_MAX_BLOCKS);
      free(B.writer);
      return false;
    }
    k->ntasks = (int)n;
    B.nkernels++;
  }
  B.ntasks = (int)total;
  size_t nt = (size_t)(B.ntasks ? B.ntasks : 1);
  B.tasks = ax_xcalloc(nt, sizeof(AxTask));
  B.first_task = ax_xmalloc(sizeof(int) * (size_t)(B.nkernels + 1));
  for (int k = 0, t = 0; k < B.nkernels; k++) {
    B.first_task[k] = t;
    for (int64_t i = 0; i < B.kernels[k].ntasks; i++, t++) {
      B.tasks[t].kernel = k;
      block_of(&B.kernels[k], i, B.tasks[t].block);
    }
  }
  B.pstart = ax_xmalloc(sizeof(int) * nt);
  B.plen = ax_xmalloc(sizeof(int) * nt);
  producers(&B, &out->pairs);

  /* Fusion: tasks with equal producer sets share one event (successor-set fusion joins a
   * consumer's events into one, predecessor-set fusion joins equal sets). Event 0 is the
   * empty set, the start event, whether or not a task waits for it. */
  int *order = ax_xmalloc(sizeof(int) * nt);
  for (int t = 0; t < B.ntasks; t++) order[t] = t;
  sort_ctx = &B;
  qsort(order, (size_t)B.ntasks, sizeof(int), cmp_set);
  sort_ctx = NULL;
  B.set = ax_xmalloc(sizeof(int) * nt);
  int *rep = ax_xmalloc(sizeof(int) * (nt + 2));   /* per event: a task with its set */
  int nsets = 1;
  rep[0] = -1;
  for (int i = 0; i < B.ntasks; i++) {
    int t = order[i];
    if (B.plen[t] == 0) B.set[t] = 0;
    else if (i > 0 && B.plen[order[i - 1]] > 0 && same_set(&B, t, order[i - 1]))
      B.set[t] = B.set[order[i - 1]];
    else rep[nsets] = t, B.set[t] = nsets++;
  }
  int end = nsets++;   /* triggered by every task nobody reads */
  bool *read = ax_xcalloc(nt, sizeof(bool));
  for (int i = 0; i < B.nprods; i++) read[B.prods[i]] = true;

  /* Triggers per task (natural numbering of events): the sets it belongs to. */
  int *tcount = ax_xcalloc(nt + 1, sizeof(int));
  int *ntrig = ax_xcalloc((size_t)nsets, sizeof(int));
  for (int e = 1; e < end; e++)
    for (int j = 0; j < B.plen[rep[e]]; j++) tcount[B.prods[B.pstart[rep[e]] + j]]++, ntrig[e]++;
  for (int t = 0; t < B.ntasks; t++)
    if (!read[t]) tcount[t]++, ntrig[end]++;
  int *tstart = ax_xmalloc(sizeof(int) * (nt + 1));
  int ntrigs = 0;
  for (int t = 0; t < B.ntasks; t++) tstart[t] = ntrigs, ntrigs += tcount[t], tcount[t] = 0;
  int *trigs = ax_xmalloc(sizeof(int) * (size_t)(ntrigs ? ntrigs : 1));
  for (int e = 1; e < end; e++)
    for (int j = 0; j < B.plen[rep[e]]; j++) {
      int u = B.prods[B.pstart[rep[e]] + j];
      trigs[tstart[u] + tcount[u]++] = e;
    }
  for (int t = 0; t < B.ntasks; t++)
    if (!read[t]) trigs[tstart[t] + tcount[t]++] = end;

  /* Dependents per event, in natural task order. */
  int *dstart = ax_xcalloc((size_t)nsets + 1, sizeof(int));
  for (int t = 0; t < B.ntasks; t++) dstart[B.set[t] + 1]++;
  for (int e = 0; e < nsets; e++) dstart[e + 1] += dstart[e];
  int *dfill = ax_xcalloc((size_t)nsets, sizeof(int));
  int *deps = ax_xmalloc(sizeof(int) * nt);
  for (int t = 0; t < B.ntasks; t++) deps[dstart[B.set[t]] + dfill[B.set[t]]++] = t;

  /* Linearization, Algorithm 1: breadth-first over events from those without triggers. */
  int *newt = ax_xmalloc(sizeof(int) * nt);        /* natural task -> linear index */
  int *newe = ax_xmalloc(sizeof(int) * (size_t)nsets);
  int *left = ax_xmalloc(sizeof(int) * (size_t)nsets);
  int *queue = ax_xmalloc(sizeof(int) * (size_t)nsets);
  int *lin = ax_xmalloc(sizeof(int) * nt);         /* linear index -> natural task */
  int qh = 0, qt = 0, placed = 0;
  out->events = ax_arena_alloc(a, sizeof(AxEvent) * (size_t)nsets);
  for (int e = 0; e < nsets; e++) {
    left[e] = ntrig[e];
    if (left[e] == 0) queue[qt++] = e;
  }
  while (qh < qt) {
    int e = queue[qh], ne = qh++;
    newe[e] = ne;
    out->events[ne] = (AxEvent){.ntriggers = ntrig[e], .first = placed};
    for (int i = dstart[e]; i < dstart[e + 1]; i++) {
      int t = deps[i];
      newt[t] = placed;
      lin[placed++] = t;
      for (int j = tstart[t]; j < tstart[t] + tcount[t]; j++)
        if (--left[trigs[j]] == 0) queue[qt++] = trigs[j];
    }
    out->events[ne].last = placed;
  }
  /* every producer set holds tasks of earlier statements, so there is no cycle */
  AX_ASSERT(placed == B.ntasks && qt == nsets);

  out->kernels = B.kernels;
  out->nkernels = B.nkernels;
  out->ntasks = B.ntasks;
  out->nevents = nsets;
  out->end = newe[end];
  out->ntrigs = ntrigs;
  out->tasks = ax_arena_alloc(a, sizeof(AxTask) * nt);
  out->trigs = ax_arena_alloc(a, sizeof(int) * (size_t)(ntrigs ? ntrigs : 1));
  int fill = 0;
  for (int i = 0; i < B.ntasks; i++) {
    int t = lin[i];
    AxTask *x = &out->tasks[i];
    *x = B.tasks[t];
    x->dep = newe[B.set[t]];
    x->trig = fill;
    x->ntrig = tcount[t];
    for (int j = 0; j < tcount[t]; j++) out->trigs[fill++] = newe[trigs[tstart[t] + j]];
    if (x->ntrig > 1) qsort(out->trigs + x->trig, (size_t)x->ntrig, sizeof(int), cmp_int);
  }
  free(B.writer);
  free(B.tasks);
  free(B.first_task);
  free(B.pstart);
  free(B.plen);
  free(B.prods);
  free(B.set);
  free(order);
  free(rep);
  free(read);
  free(tcount);
  free(ntrig);
  free(tstart);
  free(trigs);
  free(dstart);
  free(dfill);
  free(deps);
  free(newt);
  free(newe);
  free(left);
  free(queue);
  free(lin);
  ax_taskgraph_launch(out, NULL);
  return true;
}

/* ---- launch modes ------------------------------------------------------------------- */

/* Whether trigger list of task u holds event e. */
static bool triggers(const AxTaskGraph *tg, int u, int e) {
  const AxTask *x = &tg->tasks[u];
  for (int j = x->trig; j < x->trig + x->ntrig; j++)
    if (tg->trigs[j] == e) return true;
  return false;
}

void ax_taskgraph_launch(AxTaskGraph *tg, const bool *data_dependent) {
  /* kernels in statement order; an event's triggers come from earlier kernels only */
  int *count = ax_xcalloc((size_t)tg->nkernels + 1, sizeof(int));
  bool any = false;   /* a JIT kernel so far: without one, nothing is inherited */
  for (int k = 0; k < tg->nkernels; k++) {
    AxTgKernel *K = &tg->kernels[k];
    K->launch = data_dependent && data_dependent[k] ? AX_LAUNCH_JIT : AX_LAUNCH_AOT;
    if (K->launch == AX_LAUNCH_JIT || !any) {
      any |= K->launch == AX_LAUNCH_JIT;
      continue;
    }
    /* inherited: one of its tasks waits for an event that some but not all tasks of a JIT
     * kernel trigger (no barrier ends the imbalance) */
    for (int t = 0; t < tg->ntasks && K->launch == AX_LAUNCH_AOT; t++) {
      if (tg->tasks[t].kernel != k) continue;
      int e = tg->tasks[t].dep;
      memset(count, 0, sizeof(int) * (size_t)tg->nkernels);
      for (int u = 0; u < tg->events[e].first; u++)
        if (triggers(tg, u, e)) count[tg->tasks[u].kernel]++;
      for (int j = 0; j < k; j++)
        if (count[j] > 0 && tg->kernels[j].launch == AX_LAUNCH_JIT && count[j] < tg->kernels[j].ntasks)
          K->launch = AX_LAUNCH_JIT;
    }
    any |= K->launch == AX_LAUNCH_JIT;
  }
  free(count);
}

/* ---- the check against the μGraph --------------------------------------------------- */

const char *ax_taskgraph_task_name(const AxTaskGraph *tg, int t, char *buf, size_t cap) {
  const AxTask *x = &tg->tasks[t];
  const AxTgKernel *k = &tg->kernels[x->kernel];
  if (k->graph_defined)
    snprintf(buf, cap, "%s block %" PRId64 ",%" PRId64 ",%" PRId64, k->name, x->block[0],
             x->block[1], x->block[2]);
  else snprintf(buf, cap, "operator %s", k->name);
  return buf;
}

static void box_text(const AxMugraph *g, const Box *b, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s[", g->tensors[b->t].name);
  for (int d = 0; d < b->rank && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64 ":%" PRId64, d ? ", " : "", b->lo[d],
                          b->hi[d]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

static bool fail(char *msg, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
  return false;
}

bool ax_taskgraph_check(const AxTaskGraph *tg, char *msg, size_t cap) {
  const AxMugraph *g = tg->g;
  int nt = tg->ntasks;
  char a[96], b[96], box[256];
  if (tg->nevents < 2 || tg->events[0].ntriggers != 0)
    return fail(msg, cap, "event 0 is not a start event without triggers");
  /* ranges: every task in exactly the range of the event it waits for */
  int covered = 0;
  for (int e = 0; e < tg->nevents; e++) {
    const AxEvent *ev = &tg->events[e];
    if (ev->first < 0 || ev->last < ev->first || ev->last > nt)
      return fail(msg, cap, "event %d has a bad range [%d, %d)", e, ev->first, ev->last);
    for (int t = ev->first; t < ev->last; t++)
      if (tg->tasks[t].dep != e)
        return fail(msg, cap, "task %d (%s) is in the range of event %d but waits for event %d",
                    t, ax_taskgraph_task_name(tg, t, a, sizeof a), e, tg->tasks[t].dep);
    covered += ev->last - ev->first;
  }
  if (covered != nt)
    return fail(msg, cap, "the events' ranges cover %d task slots, not the %d tasks", covered, nt);
  /* trigger counts and order: a trigger comes before every task its event launches */
  int *cnt = ax_xcalloc((size_t)tg->nevents, sizeof(int));
  for (int u = 0; u < nt; u++) {
    const AxTask *x = &tg->tasks[u];
    for (int j = x->trig; j < x->trig + x->ntrig; j++) {
      int e = tg->trigs[j];
      cnt[e]++;
      if (tg->events[e].last > tg->events[e].first && u >= tg->events[e].first) {
        free(cnt);
        return fail(msg, cap, "task %d (%s) triggers event %d, which launches task %d before it",
                    u, ax_taskgraph_task_name(tg, u, a, sizeof a), e, tg->events[e].first);
      }
    }
  }
  for (int e = 0; e < tg->nevents; e++)
    if (cnt[e] != tg->events[e].ntriggers) {
      int got = cnt[e];
      free(cnt);
      return fail(msg, cap, "event %d counts %d triggers but %d tasks trigger it", e,
                  tg->events[e].ntriggers, got);
    }
  free(cnt);
  if (tg->events[tg->end].last != tg->events[tg->end].first)
    return fail(msg, cap, "the end event %d launches tasks", tg->end);
  /* dependencies, from the tiles recomputed from the imaps and omaps */
  Boxes *reads = ax_xcalloc((size_t)(nt ? nt : 1), sizeof(Boxes));
  Boxes *writes = ax_xcalloc((size_t)(nt ? nt : 1), sizeof(Boxes));
  for (int t = 0; t < nt; t++)
    tiles(g, &tg->kernels[tg->tasks[t].kernel], tg->tasks[t].block, &reads[t], &writes[t]);
  /* per kernel tensor, the tasks that write a box of it (in task order) */
  int *wstart = ax_xcalloc((size_t)g->ntensors + 1, sizeof(int));
  for (int u = 0; u < nt; u++)
    for (int w = 0; w < writes[u].n; w++) wstart[writes[u].b[w].t + 1]++;
  for (int i = 0; i < g->ntensors; i++) wstart[i + 1] += wstart[i];
  int *wfill = ax_xcalloc((size_t)g->ntensors + 1, sizeof(int));
  int *writer = ax_xmalloc(sizeof(int) * (size_t)(wstart[g->ntensors] + 1));
  for (int u = 0; u < nt; u++)
    for (int w = 0; w < writes[u].n; w++) {
      int x = writes[u].b[w].t;
      writer[wstart[x] + wfill[x]++] = u;
    }
  bool *read = ax_xcalloc((size_t)(nt ? nt : 1), sizeof(bool));
  bool ok = true;
  for (int t = 0; t < nt && ok; t++)
    for (int r = 0; r < reads[t].n && ok; r++) {
      int x = reads[t].b[r].t;
      for (int i = wstart[x]; i < wstart[x + 1] && ok; i++) {
        int u = writer[i];
        for (int w = 0; w < writes[u].n; w++) {
          if (!meet(&reads[t].b[r], &writes[u].b[w])) continue;
          read[u] = true;
          if (!triggers(tg, u, tg->tasks[t].dep) || u >= t) {
            box_text(g, &reads[t].b[r], box, sizeof box);
            ok = fail(msg, cap,
                      "task %d (%s) reads %s written by task %d (%s), which is not among its "
                      "dependencies",
                      t, ax_taskgraph_task_name(tg, t, a, sizeof a), box, u,
                      ax_taskgraph_task_name(tg, u, b, sizeof b));
          }
          break;
        }
      }
    }
  for (int u = 0; u < nt && ok; u++)
    if (!read[u] && !triggers(tg, u, tg->end))
      ok = fail(msg, cap, "task %d (%s) has results nobody reads but does not trigger the end event",
                u, ax_taskgraph_task_name(tg, u, a, sizeof a));
  for (int t = 0; t < nt; t++) free(reads[t].b), free(writes[t].b);
  free(reads);
  free(writes);
  free(read);
  free(wstart);
  free(wfill);
  free(writer);
  return ok;
}
