/* tile.c — μGraph-to-μGraph rewrites at the tile level; see tile.h. */
#include "superopt/eqsat/tile.h"

#include <stdlib.h>
#include <string.h>

#include "superopt/ir/mugtext.h"

/* Readers of node i in kernel k (operands and accumulator rescales). */
static int readers(const AxKernel *k, int i) {
  int n = 0;
  for (int j = 0; j < k->nnodes; j++) {
    const AxBNode *b = &k->nodes[j];
    if (b->kind == AX_BN_ITER) continue;
    for (int q = 0; q < b->nin; q++) n += b->in[q] == i;
    n += b->kind == AX_BN_ACCUM && b->rescaled && b->rescale == i;
  }
  return n;
}

static bool row_scale(const AxTShape *x, const AxTShape *s) {
  return x->rank == 2 && s->rank == 2 && s->dim[0] == x->dim[0] && s->dim[1] == 1 && x->dim[1] > 1;
}

/* One site in kernel k rewritten (nodes reordered: S removed, M' then S' at M's place);
 * false when there is none. */
static bool scale_out_once(AxArena *a, AxKernel *k) {
  if (k->forloop != 1) return false;
  for (int m = 0; m < k->nnodes; m++) {
    AxBNode *M = &k->nodes[m];
    if (M->kind != AX_BN_OP || M->op != AX_OP_DOT || M->nin != 2 || M->thread >= 0) continue;
    int s = M->in[0];
    AxBNode *S = &k->nodes[s];
    if (S->kind != AX_BN_OP || S->op != AX_OP_MUL || S->nin != 2 || S->thread >= 0 || readers(k, s) != 1) continue;
    int x = S->in[0], r = S->in[1];
    if (!row_scale(&k->nodes[x].shape, &k->nodes[r].shape)) {
      x = S->in[1], r = S->in[0];
      if (!row_scale(&k->nodes[x].shape, &k->nodes[r].shape)) continue;
    }
    /* old index -> new index; S leaves its place, M' and S' take M's */
    int n = k->nnodes;
    int *to = ax_arena_alloc(a, sizeof *to * (size_t)n);
    AxBNode *nodes = ax_arena_alloc(a, sizeof *nodes * (size_t)n);
    int w = 0, mnew = -1;
    for (int i = 0; i < n; i++) {
      if (i == s) continue;
      if (i == m) {
        mnew = w;
        to[m] = w + 1;   /* z's readers read y */
        nodes[w++] = *M;
        nodes[w++] = *S;
        continue;
      }
      to[i] = w;
      nodes[w++] = k->nodes[i];
    }
    for (int i = 0; i < n; i++) {
      AxBNode *b = &nodes[i];
      if (b->kind == AX_BN_ITER) continue;
      if (i == mnew) {
        b->in[0] = to[x], b->in[1] = to[M->in[1]];
        continue;
      }
      if (i == mnew + 1) {
        b->in[0] = mnew, b->in[1] = to[r];
        continue;
      }
      for (int q = 0; q < b->nin; q++) b->in[q] = to[b->in[q]];
      if (b->kind == AX_BN_ACCUM && b->rescaled) b->rescale = to[b->rescale];
    }
    k->nodes = nodes;
    return true;
  }
  return false;
}

char *ax_tile_scale_out(AxArena *a, const char *text, int *applied) {
  *applied = 0;
  char *cur = NULL;
  /* one site per kernel and pass, the graph printed and validated between passes (the
   * shapes the next match reads are validation's) */
  for (int pass = 0; pass < 8; pass++) {
    AxMugraph *g = ax_mugtext_read(a, "<tile rewrite>", cur ? cur : text);
    if (!g) break;
    int n = 0;
    for (int st = 0; st < g->nstmts; st++)
      if (g->stmts[st].kind == AX_KS_KERNEL) n += scale_out_once(a, g->stmts[st].kernel);
    if (n == 0) break;
    char *out = ax_mugtext_string(g);
    if (!ax_mugtext_read(a, "<tile rewrite>", out)) {   /* must print back to a valid graph */
      free(out);
      break;
    }
    free(cur);
    cur = out;
    *applied += n;
  }
  if (!cur) *applied = 0;
  return cur;
}
