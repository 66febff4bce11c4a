/* dead.c — dropping the statements and block nodes that reach no output; see dead.h. */
#include "superopt/ir/dead.h"

#include <string.h>

/* The live block nodes of kernel k (alive[i]) given the live kernel tensors (need), and
 * the kernel tensors its live input iterators read, marked in need. Last to first: every
 * operand (and the max a sum is rescaled by) comes before its reader. Returns whether some
 * saver is live. */
static bool live_nodes(const AxKernel *k, bool *need, bool *alive) {
  bool any = false;
  for (int i = k->nnodes - 1; i >= 0; i--) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE) alive[i] = need[n->dst];
    if (!alive[i]) continue;
    any |= n->kind == AX_BN_SAVE;
    for (int j = 0; j < n->nin; j++) alive[n->in[j]] = true;
    if (n->rescaled) alive[n->rescale] = true;
  }
  for (int i = 0; i < k->nnodes; i++)
    if (alive[i] && k->nodes[i].kind == AX_BN_ITER) need[k->nodes[i].src] = true;
  return any;
}

/* Kernel k with only its live nodes (alive), node indices, thread graphs and kernel tensors
 * (tmap: old tensor index to new) renumbered; in a. A thread graph keeps its comments on
 * its first node left. */
static AxKernel *prune_kernel(AxArena *a, const AxKernel *k, const bool *alive, const int *tmap) {
  AxKernel *c = ax_arena_alloc(a, sizeof *c);
  *c = *k;
  c->nodes = ax_arena_alloc(a, sizeof *c->nodes * (size_t)(k->nnodes + 1));
  c->nnodes = 0;
  c->nthreads = 0;
  int *nmap = ax_xcalloc((size_t)k->nnodes + 1, sizeof *nmap);
  int *thmap = ax_xcalloc((size_t)k->nthreads + 1, sizeof *thmap);
  const AxNote **thnote = ax_xcalloc((size_t)k->nthreads + 1, sizeof *thnote);
  for (int t = 0; t < k->nthreads; t++) thmap[t] = -1;
  for (int i = 0; i < k->nnodes; i++)
    if (k->nodes[i].thread >= 0 && k->nodes[i].thread_note) thnote[k->nodes[i].thread] = k->nodes[i].thread_note;
  for (int i = 0; i < k->nnodes; i++) {
    if (!alive[i]) continue;
    AxBNode n = k->nodes[i];
    for (int j = 0; j < n.nin; j++) n.in[j] = nmap[n.in[j]];
    if (n.rescaled) n.rescale = nmap[n.rescale];
    if (n.kind == AX_BN_ITER) n.src = tmap[n.src];
    if (n.kind == AX_BN_SAVE) n.dst = tmap[n.dst];
    n.thread_note = NULL;
    if (n.thread >= 0) {
      int old = n.thread;
      bool first = thmap[old] < 0;
      if (first) thmap[old] = c->nthreads++;
      n.thread = thmap[old];
      /* the printer takes a thread graph's comments from its first node that is written */
      if (!n.anon && thnote[old]) n.thread_note = thnote[old], thnote[old] = NULL;
    }
    nmap[i] = c->nnodes;
    c->nodes[c->nnodes++] = n;
  }
  free(nmap);
  free(thmap);
  free(thnote);
  return c;
}

AxMugraph *ax_dead_drop(AxArena *a, AxMugraph *g, AxDead *out) {
  memset(out, 0, sizeof *out);
  int ns = g->nstmts, nt = g->ntensors;
  bool *need = ax_xcalloc((size_t)nt + 1, 1), *keep = ax_xcalloc((size_t)ns + 1, 1);
  bool **alive = ax_xcalloc((size_t)ns + 1, sizeof *alive);
  for (int k = 0; k < g->noutputs; k++) need[g->outputs[k]] = true;
  int dead = 0, dead_nodes = 0;
  for (int s = ns - 1; s >= 0; s--) {
    const AxKStmt *st = &g->stmts[s];
    switch (st->kind) {
    case AX_KS_INPUT:
    case AX_KS_OUTPUT:
      keep[s] = true;   /* the interface stays, read or not */
      break;
    case AX_KS_OP:
      keep[s] = need[st->t];
      for (int j = 0; keep[s] && j < st->nin; j++) need[st->in[j]] = true;
      break;
    case AX_KS_KERNEL: {
      const AxKernel *k = st->kernel;
      alive[s] = ax_xcalloc((size_t)k->nnodes + 1, 1);
      keep[s] = live_nodes(k, need, alive[s]);
      for (int i = 0; keep[s] && i < k->nnodes; i++) dead_nodes += !alive[s][i];
      break;
    }
    }
    dead += !keep[s];
  }
  AxMugraph *r = g;
  if (dead || dead_nodes) {
    /* the tensors that stay: the inputs, what a kept statement defines (a kernel: its live
     * savers' tensors), the literals a kept operator reads */
    int *tmap = ax_xcalloc((size_t)nt + 1, sizeof *tmap), *smap = ax_xcalloc((size_t)ns + 1, sizeof *smap);
    bool *tkeep = ax_xcalloc((size_t)nt + 1, 1);
    for (int s = 0; s < ns; s++) {
      const AxKStmt *st = &g->stmts[s];
      if (!keep[s]) continue;
      if (st->kind == AX_KS_INPUT || st->kind == AX_KS_OP) tkeep[st->t] = true;
      for (int j = 0; st->kind == AX_KS_OP && j < st->nin; j++) tkeep[st->in[j]] = true;
      if (st->kind == AX_KS_KERNEL)
        for (int i = 0; i < st->kernel->nnodes; i++)
          if (alive[s][i] && st->kernel->nodes[i].kind == AX_BN_SAVE) tkeep[st->kernel->nodes[i].dst] = true;
    }
    r = ax_arena_alloc(a, sizeof *r);
    *r = *g;
    r->tensors = ax_arena_alloc(a, sizeof *r->tensors * (size_t)(nt + 1));
    r->stmts = ax_arena_alloc(a, sizeof *r->stmts * (size_t)(ns + 1));
    r->outputs = ax_arena_alloc(a, sizeof *r->outputs * (size_t)(g->noutputs + 1));
    r->ntensors = r->nstmts = 0;
    for (int s = 0; s < ns; s++) smap[s] = keep[s] ? r->nstmts++ : 0;
    for (int t = 0; t < nt; t++) {
      tmap[t] = -1;
      if (!tkeep[t]) continue;
      tmap[t] = r->ntensors;
      AxKTensor kt = g->tensors[t];
      kt.stmt = kt.stmt >= 0 && kt.stmt < ns && keep[kt.stmt] ? smap[kt.stmt] : 0;
      r->tensors[r->ntensors++] = kt;
    }
    out->stmts = ax_arena_alloc(a, sizeof *out->stmts * (size_t)(dead + 1));
    int n = 0;
    for (int s = 0; s < ns; s++) {
      const AxKStmt *st = &g->stmts[s];
      if (!keep[s]) {
        out->stmts[out->nstmts++] =
            (AxDeadStmt){st->kind == AX_KS_KERNEL ? st->kernel->name : g->tensors[st->t].name, st->span};
        continue;
      }
      AxKStmt c = *st;
      if (c.kind == AX_KS_INPUT || c.kind == AX_KS_OP) c.t = tmap[c.t];
      for (int j = 0; c.kind == AX_KS_OP && j < c.nin; j++) c.in[j] = tmap[c.in[j]];
      if (c.kind == AX_KS_KERNEL) c.kernel = prune_kernel(a, st->kernel, alive[s], tmap);
      if (c.kind == AX_KS_OUTPUT) {
        c.outs = ax_arena_alloc(a, sizeof *c.outs * (size_t)(st->nouts + 1));
        for (int j = 0; j < st->nouts; j++) c.outs[j] = tmap[st->outs[j]];
      }
      r->stmts[n++] = c;
    }
    for (int k = 0; k < g->noutputs; k++) r->outputs[k] = tmap[g->outputs[k]];
    out->nnodes = dead_nodes;
    free(tmap);
    free(smap);
    free(tkeep);
    AxDiag quiet;
    ax_diag_init(&quiet, NULL);
    if (!ax_mug_check(r, &quiet)) {   /* cannot happen; dead code is sound to keep */
      r = g;
      memset(out, 0, sizeof *out);
    }
  }
  for (int s = 0; s < ns; s++) free(alive[s]);
  free(alive);
  free(need);
  free(keep);
  return r;
}
