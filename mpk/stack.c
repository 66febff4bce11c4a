/* stack.c — N decoder layers from one (stack.h). */
#include "mpk/stack.h"

#include <string.h>

#include "base/arena.h"

/* Appends a copy of g's tensor t to s, renamed with prefix p and defined by statement si;
 * returns its index in s. */
static int copy_tensor(AxArena *a, AxMugraph *s, int *cap, const AxMugraph *g, int t,
                       const char *p, int si) {
  int u = ax_mug_new_tensor(a, s, cap);
  s->tensors[u] = g->tensors[t];
  if (!g->tensors[t].anon) s->tensors[u].name = ax_arena_printf(a, "%s%s", p, g->tensors[t].name);
  s->tensors[u].stmt = si;
  return u;
}

static const AxKStmt *output_stmt(const AxMugraph *g) {
  for (int i = g->nstmts - 1; i >= 0; i--)
    if (g->stmts[i].kind == AX_KS_OUTPUT) return &g->stmts[i];
  return NULL;
}

AxMugraph *ax_stack_build(AxArena *a, const AxMugraph *g, int n, AxDiag *d) {
  AX_ASSERT(n >= 1);
  const AxKStmt *os = output_stmt(g);
  AxSpan at = os ? (os->nouts ? os->out_spans[0] : os->span) : g->span;
  int x = -1;
  for (int i = 0; i < g->nstmts && x < 0; i++)
    if (g->stmts[i].kind == AX_KS_INPUT) x = g->stmts[i].t;
  if (x < 0 || g->noutputs != 1) {
    ax_diag_error(d, at,
                   "a stack of layers needs a layer graph with an input and exactly one output; "
                   "%s has %s and %d output%s",
                   g->name, x < 0 ? "no input" : "an input", g->noutputs,
                   g->noutputs == 1 ? "" : "s");
    return NULL;
  }
  const AxKTensor *in = &g->tensors[x], *out = &g->tensors[g->outputs[0]];
  if (!ax_shape_equal(&in->shape, &out->shape) || in->dtype != out->dtype) {
    char si[96], so[96];
    ax_diag_error(d, at,
                  "the layer's output %s is %s%s but its first input %s is %s%s: the next layer "
                  "cannot read it",
                   out->name, ax_dtype_name(out->dtype), ax_shape_str(&out->shape, so, sizeof so),
                   in->name, ax_dtype_name(in->dtype), ax_shape_str(&in->shape, si, sizeof si));
    return NULL;
  }
  AxMugraph *s = ax_arena_alloc(a, sizeof *s);
  memset(s, 0, sizeof *s);
  s->name = n == 1 ? g->name : ax_arena_printf(a, "%s_x%d", g->name, n);
  s->span = g->span;
  s->note = g->note;
  int tcap = 0, scap = 0, prev = -1;
  int *map = ax_arena_alloc(a, sizeof(int) * (size_t)(g->ntensors + 1));
  for (int l = 0; l < n; l++) {
    const char *p = n == 1 ? "" : ax_arena_printf(a, "L%d__", l + 1);
    for (int i = 0; i < g->nstmts; i++) {
      const AxKStmt *st = &g->stmts[i];
      if (st->kind == AX_KS_OUTPUT) continue;
      if (st->kind == AX_KS_INPUT && st->t == x && l > 0) {
        map[x] = prev;  /* the previous layer's output, where this layer reads its input */
        continue;
      }
      AxKStmt *ns = ax_mug_new_stmt(a, s, &scap);
      int si = s->nstmts - 1;
      *ns = *st;
      if (l > 0) memset(&ns->note, 0, sizeof ns->note);
      if (st->kind == AX_KS_INPUT) {
        map[st->t] = copy_tensor(a, s, &tcap, g, st->t, st->t == x ? "" : p, si);
        s->stmts[si].t = map[st->t];
      } else if (st->kind == AX_KS_OP) {
        for (int j = 0; j < st->nin; j++) {
          if (g->tensors[st->in[j]].anon) map[st->in[j]] = copy_tensor(a, s, &tcap, g, st->in[j], p, si);
          s->stmts[si].in[j] = map[st->in[j]];
        }
        map[st->t] = copy_tensor(a, s, &tcap, g, st->t, p, si);
        s->stmts[si].t = map[st->t];
      } else {
        const AxKernel *k = st->kernel;
        AxKernel *nk = ax_arena_alloc(a, sizeof *nk);
        *nk = *k;
        nk->name = ax_arena_printf(a, "%s%s", p, k->name);
        nk->nodes = ax_arena_alloc(a, sizeof(AxBNode) * (size_t)(k->nnodes + 1));
        for (int j = 0; j < k->nnodes; j++) {
          AxBNode *b = &nk->nodes[j];
          *b = k->nodes[j];
          if (b->kind == AX_BN_ITER) b->src = map[b->src];
          if (b->kind == AX_BN_SAVE) {
            map[b->dst] = copy_tensor(a, s, &tcap, g, b->dst, p, si);
            b->dst = map[b->dst];
            b->name = s->tensors[b->dst].name;
          }
        }
        s->stmts[si].kernel = nk;
      }
    }
    prev = map[g->outputs[0]];
  }
  AxKStmt *ns = ax_mug_new_stmt(a, s, &scap);
  *ns = *os;
  ns->outs = ax_arena_alloc(a, sizeof(int));
  ns->outs[0] = prev;
  ns->nouts = 1;
  s->outputs = ns->outs;
  s->noutputs = 1;
  s->end = g->end;
  return ax_mug_check(s, d) ? s : NULL;
}
