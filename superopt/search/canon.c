/* canon.c — canonical keys of μGraphs (canon.h). */
#include "superopt/search/canon.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/ewop.h"

/* The key describes every output as the tree that computes it: kernel tensors by how they
 * are made, block nodes by operator, attributes and operands (the operands of a commuting
 * operator, ewop.h, in sorted order), kernels by grid, block, for-loop and the saver's omap. Names, statement
 * order and thread grouping do not enter it; a block node read twice appears twice. A sum
 * rescaled by a running max carries that max's key. */
static void bkey(FILE *f, const AxMugraph *g, const AxKernel *k, int i);

static void tkey(FILE *f, const AxMugraph *g, int t) {
  const AxKTensor *kt = &g->tensors[t];
  if (kt->anon) {
    fprintf(f, "c%" PRId64 "/%" PRId64, kt->value.num, kt->value.den);
    return;
  }
  const AxKStmt *st = &g->stmts[kt->stmt];
  if (st->kind == AX_KS_INPUT) {
    fprintf(f, "in:%s", kt->name);
    return;
  }
  if (st->kind == AX_KS_OP) {
    char *a[AX_MAXIN] = {0};
    size_t n;
    for (int j = 0; j < st->nin; j++) {
      FILE *m = open_memstream(&a[j], &n);
      tkey(m, g, st->in[j]);
      fclose(m);
    }
    if (ax_ewop_commutes(st->op) && st->nin == 2 && strcmp(a[0], a[1]) > 0) {
      char *x = a[0];
      a[0] = a[1], a[1] = x;
    }
    fprintf(f, "%s(", ax_op_pname(st->op));
    for (int j = 0; j < st->nin; j++) fprintf(f, "%s%s", j ? "," : "", a[j]), free(a[j]);
    if (st->at.axis_set) fprintf(f, ";axis=%d", st->at.axis);
    if (st->at.to > 1) fprintf(f, ";to=%" PRId64, st->at.to);
    /* the shape an iota, a broadcast or a reshape makes */
    if (st->at.shape.rank > 0) {
      fputs(";shape=", f);
      for (int d = 0; d < st->at.shape.rank; d++) fprintf(f, "%s%" PRId64, d ? "," : "", st->at.shape.dim[d]);
    }
    fputc(')', f);
    return;
  }
  /* a graph-defined kernel: the saver that writes t */
  const AxKernel *k = st->kernel;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind != AX_BN_SAVE || n->dst != t) continue;
    fprintf(f, "K[%" PRId64 ",%" PRId64 ",%" PRId64 "|%" PRId64 ",%" PRId64 ",%" PRId64 "|%" PRId64 "]",
            k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->forloop);
    fprintf(f, "save{%d,%d,%d}(", n->omap[0], n->omap[1], n->omap[2]);
    bkey(f, g, k, n->in[0]);
    fputc(')', f);
    return;
  }
  fprintf(f, "?");
}

static void bkey(FILE *f, const AxMugraph *g, const AxKernel *k, int i) {
  const AxBNode *n = &k->nodes[i];
  if (n->anon) {
    fprintf(f, "c%" PRId64 "/%" PRId64, n->at.value.num, n->at.value.den);
    return;
  }
  if (n->kind == AX_BN_ITER) {
    fprintf(f, "it{%d,%d,%d;%d}(", n->imap[0], n->imap[1], n->imap[2], n->fmap);
    tkey(f, g, n->src);
    fputc(')', f);
    return;
  }
  char *a[AX_MAXIN] = {0};
  size_t len;
  for (int j = 0; j < n->nin; j++) {
    FILE *m = open_memstream(&a[j], &len);
    bkey(m, g, k, n->in[j]);
    fclose(m);
  }
  if (n->kind == AX_BN_OP && ax_ewop_commutes(n->op) && n->nin == 2 &&
      strcmp(a[0], a[1]) > 0) {
    char *x = a[0];
    a[0] = a[1], a[1] = x;
  }
  if (n->kind == AX_BN_ACCUM) fprintf(f, "accum-%s(", ax_mug_acc_name(n->acc));
  else fprintf(f, "%s(", ax_op_pname(n->op));
  for (int j = 0; j < n->nin; j++) fprintf(f, "%s%s", j ? "," : "", a[j]), free(a[j]);
  int axis = n->at.axis;
  if (n->at.axis_set && axis < 0 && n->nin) axis += k->nodes[n->in[0]].shape.rank;
  if (n->at.axis_set) fprintf(f, ";axis=%d", axis);
  if (n->at.to > 1) fprintf(f, ";to=%" PRId64, n->at.to);
  /* a block iota is a tile of a kernel-level iota: its shape and maps say which indices */
  if (n->kind == AX_BN_OP && n->op == AX_OP_IOTA) {
    fputs(";shape=", f);
    for (int d = 0; d < n->at.shape.rank; d++) fprintf(f, "%s%" PRId64, d ? "," : "", n->at.shape.dim[d]);
    fprintf(f, ";it{%d,%d,%d;%d}", n->imap[0], n->imap[1], n->imap[2], n->fmap);
  }
  /* a rescaled sum is another value than the plain one: the max it is rescaled by */
  if (n->kind == AX_BN_ACCUM && n->rescaled) {
    fputs(";rescale=", f);
    bkey(f, g, k, n->rescale);
  }
  fputc(')', f);
}

char *ax_canon_key(const AxMugraph *g) {
  int *o = malloc(sizeof(int) * (size_t)(g->noutputs + 1));
  for (int i = 0; i < g->noutputs; i++) o[i] = g->outputs[i];
  /* outputs by name */
  for (int i = 1; i < g->noutputs; i++)
    for (int j = i; j > 0 && strcmp(g->tensors[o[j - 1]].name, g->tensors[o[j]].name) > 0; j--) {
      int x = o[j];
      o[j] = o[j - 1], o[j - 1] = x;
    }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  for (int i = 0; i < g->noutputs; i++) {
    fprintf(f, "%s=", g->tensors[o[i]].name);
    tkey(f, g, o[i]);
    fputc('\n', f);
  }
  fclose(f);
  free(o);
  return text;
}
