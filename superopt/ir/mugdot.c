/* mugdot.c — DOT output. */
#include "superopt/ir/mugdot.h"

#include <inttypes.h>

#include "superopt/ir/mugtext.h"

static void shape(FILE *out, const AxTShape *s) {
  char buf[128];
  fputs(ax_shape_str(s, buf, sizeof buf), out);
}

static void mapstr(FILE *out, const char *what, const int *m) {
  fprintf(out, "%s ", what);
  ax_mugtext_print_map(out, m);
}

static void node_label(FILE *out, const AxMugraph *g, const AxBNode *n) {
  switch (n->kind) {
  case AX_BN_ITER:
    fprintf(out, "%s = input %s\\n", n->name, g->tensors[n->src].name);
    break;
  case AX_BN_OP:
    if (n->anon) fprintf(out, "%s\\n", n->text);
    else fprintf(out, "%s = %s\\n", n->name, ax_op_pname(n->op));
    break;
  case AX_BN_ACCUM:
    fprintf(out, "%s = accum %s", n->name, ax_mug_acc_name(n->acc));
    if (n->at.axis_set) fprintf(out, " (axis %d%s)", n->at.axis, n->at.to ? ", to" : "");
    fputs("\\n", out);
    break;
  case AX_BN_SAVE:
    fprintf(out, "save %s\\n", g->tensors[n->dst].name);
    break;
  }
  shape(out, &n->shape);
}

static void emit_node(FILE *out, const AxMugraph *g, int ki, int i, const AxBNode *n, int ind) {
  const char *sh = n->kind == AX_BN_ITER ? "invhouse" : n->kind == AX_BN_SAVE ? "house"
                   : n->kind == AX_BN_ACCUM ? "box3d" : "box";
  fprintf(out, "%*sk%d_n%d [shape=%s, label=\"", ind, "", ki, i, sh);
  node_label(out, g, n);
  fputs("\"];\n", out);
}

static void kernel(FILE *out, const AxMugraph *g, int ki, const AxKernel *k) {
  fprintf(out, "  subgraph cluster_k%d {\n", ki);
  fprintf(out,
          "    label=\"kernel %s\\ngrid [%" PRId64 ", %" PRId64 ", %" PRId64 "]  block [%" PRId64
          ", %" PRId64 ", %" PRId64 "]  forloop %" PRId64 "\\nshared memory %" PRId64 " bytes\";\n",
          k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
          k->forloop, k->smem);
  fputs("    style=\"rounded,filled\"; fillcolor=\"#eef3fb\"; labeljust=l;\n", out);
  for (int ph = 0; ph < 3; ph++) {
    int ind = 4;
    if (ph == AX_PH_LOOP) {
      fprintf(out, "    subgraph cluster_k%d_loop {\n      label=\"for-loop x %" PRId64
                   "\"; style=\"dashed\";\n", ki, k->forloop);
      ind = 6;
    } else if (ph == AX_PH_POST) {
      fprintf(out, "    subgraph cluster_k%d_post {\n      label=\"after the loop\"; style=\"dotted\";\n", ki);
      ind = 6;
    }
    for (int i = 0; i < k->nnodes; i++) {
      const AxBNode *n = &k->nodes[i];
      if ((int)n->phase != ph) continue;
      if (n->thread >= 0) {
        int id = n->thread;
        fprintf(out, "%*ssubgraph cluster_k%d_t%d {\n%*s  label=\"thread graph\"; style=\"filled\"; fillcolor=\"#fdf3e1\";\n",
                ind, "", ki, id, ind, "");
        for (; i < k->nnodes && k->nodes[i].thread == id; i++)
          if ((int)k->nodes[i].phase == ph) emit_node(out, g, ki, i, &k->nodes[i], ind + 2);
        i--;
        fprintf(out, "%*s}\n", ind, "");
        continue;
      }
      emit_node(out, g, ki, i, n, ind);
    }
    if (ph != AX_PH_INVARIANT) fputs("    }\n", out);
  }
  fputs("  }\n", out);
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_ITER) {
      fprintf(out, "  t%d -> k%d_n%d [label=\"", n->src, ki, i);
      mapstr(out, "imap", n->imap);
      if (n->fmap >= 0) fprintf(out, "\\nfmap %d", n->fmap);
      else fputs("\\nfmap -", out);
      fputs("\"];\n", out);
    }
    for (int j = 0; j < n->nin; j++) fprintf(out, "  k%d_n%d -> k%d_n%d;\n", ki, n->in[j], ki, i);
    if (n->rescaled)   /* the max whose updates rescale this sum */
      fprintf(out, "  k%d_n%d -> k%d_n%d [style=dashed, label=\"rescale\"];\n", ki, n->rescale, ki, i);
    if (n->kind == AX_BN_SAVE) {
      fprintf(out, "  k%d_n%d -> t%d [label=\"", ki, i, n->dst);
      mapstr(out, "omap", n->omap);
      fputs("\"];\n", out);
    }
  }
}

void ax_mugdot_print(FILE *out, const AxMugraph *g) {
  fprintf(out, "digraph \"%s\" {\n", g->name);
  fputs("  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n", out);
  for (int i = 0; i < g->ntensors; i++) {
    const AxKTensor *t = &g->tensors[i];
    if (t->anon) {
      fprintf(out, "  t%d [shape=plaintext, label=\"%s\"];\n", i, t->text);
      continue;
    }
    bool is_out = false;
    for (int k = 0; k < g->noutputs; k++) is_out = is_out || g->outputs[k] == i;
    fprintf(out, "  t%d [shape=box, style=\"rounded%s\", %slabel=\"%s\\n%s", i,
            is_out ? ",bold" : "", is_out ? "penwidth=2, " : "", t->name, ax_dtype_name(t->dtype));
    shape(out, &t->shape);
    fputs("\"];\n", out);
  }
  int ki = 0;
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_OP) {
      fprintf(out, "  op%d [shape=ellipse, label=\"%s", s, ax_op_pname(st->op));
      if (st->at.axis_set) fprintf(out, "\\naxis %d", st->at.axis);
      fputs("\"];\n", out);
      for (int j = 0; j < st->nin; j++) fprintf(out, "  t%d -> op%d;\n", st->in[j], s);
      fprintf(out, "  op%d -> t%d;\n", s, st->t);
    } else if (st->kind == AX_KS_KERNEL) {
      kernel(out, g, ki++, st->kernel);
    }
  }
  fputs("}\n", out);
}
