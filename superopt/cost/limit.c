/* limit.c — the physical limit of a program (limit.h has the counting rules). */
#include "superopt/cost/limit.h"

#include <stdlib.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

static double tbytes(const AxKTensor *t) {
  return (double)ax_shape_numel(&t->shape) * (double)ax_dtype_bytes(t->dtype);
}

/* FLOP of one pre-defined operator statement by limit.h's rule, read off the operator's
 * row (as cost.c does): tensor FLOP for a matmul, the rest into *other. */
static void count(const AxMugraph *g, const AxKStmt *s, double *tensor, double *other) {
  const AxKTensor *o = &g->tensors[s->t];
  double out = (double)ax_shape_numel(&o->shape);
  if (ax_ewop_get(s->op)) {
    *other += out;
    return;
  }
  const AxPOp *p = ax_pop_get(s->op);
  const AxTShape *x = s->nin ? &g->tensors[s->in[0]].shape : &o->shape;
  switch (p->math) {
  case AX_POP_MATH_NONE: return;   /* moves or makes values: no arithmetic */
  case AX_POP_MATH_TENSOR: {
    /* every result element an inner product over the contracted dim */
    int k = ax_pop_contracted_dim(s->op, x, s->at.axis);
    *tensor += 2.0 * out * (k >= 0 ? (double)x->dim[k] : 1);
    return;
  }
  case AX_POP_MATH_CUDA: *other += p->flops * (double)ax_shape_numel(x); return;
  }
  AX_UNREACHABLE();
}

bool ax_limit_compute(const AxMugraph *g, const AxTarget *t, AxLimit *out) {
  AxLimit l = {.target = t};
  /* an input counts when the program reads it (one nobody reads need not be loaded) */
  bool *read = calloc((size_t)(g->ntensors ? g->ntensors : 1), sizeof *read);
  AX_ASSERT(read);
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *s = &g->stmts[i];
    if (s->kind == AX_KS_KERNEL) {
      free(read);
      return false;
    }
    if (s->kind != AX_KS_OP) continue;
    for (int j = 0; j < s->nin; j++) read[s->in[j]] = true;
    count(g, s, &l.tensor_flops, &l.other_flops);
  }
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *s = &g->stmts[i];
    if (s->kind == AX_KS_INPUT && read[s->t]) l.bytes_in += tbytes(&g->tensors[s->t]);
  }
  free(read);
  /* outputs are distinct computed tensors (program.h refuses an input or a repeat) */
  for (int k = 0; k < g->noutputs; k++) l.bytes_out += tbytes(&g->tensors[g->outputs[k]]);
  l.t_hbm = (l.bytes_in + l.bytes_out) / t->hbm_bps;
  l.t_tensor = l.tensor_flops / t->tc_flops;
  l.t_alu = l.other_flops / t->cuda_flops;
  l.t_floor = t->floor_s;
  l.limit_s = l.t_hbm, l.bound = "memory";
  if (l.t_tensor > l.limit_s) l.limit_s = l.t_tensor, l.bound = "tensor";
  if (l.t_alu > l.limit_s) l.limit_s = l.t_alu, l.bound = "alu";
  if (l.t_floor > l.limit_s) l.limit_s = l.t_floor, l.bound = "launch";
  l.fits_l2 = l.bytes_in + l.bytes_out <= t->l2_bytes;
  *out = l;
  return true;
}

void ax_limit_print_text(FILE *out, const AxMugraph *g, const AxLimit *l) {
  const AxTarget *t = l->target;
  fprintf(out, "program '%s' on %s: physical limit %.2f us (%s-bound; not a modelled or measured time)\n",
          g->name, t->name, l->limit_s * 1e6, l->bound);
  fprintf(out, "  bytes   %.0f B moved once (inputs %.0f, outputs %.0f) at %.2f TB/s: HBM %.2f us\n",
          l->bytes_in + l->bytes_out, l->bytes_in, l->bytes_out, t->hbm_bps / 1e12, l->t_hbm * 1e6);
  fprintf(out, "  tensor  %.0f FLOP (2mnk per matmul) at %.1f TFLOP/s: %.2f us\n", l->tensor_flops,
          t->tc_flops / 1e12, l->t_tensor * 1e6);
  fprintf(out, "  alu     %.0f FLOP (one per element-wise or reduced element) at %.1f TFLOP/s: %.2f us\n",
          l->other_flops, t->cuda_flops / 1e12, l->t_alu * 1e6);
  fprintf(out, "  floor   %.2f us (the least device time of one kernel)\n", l->t_floor * 1e6);
  if (l->fits_l2)
    fprintf(out, "  inputs and outputs fit the %.0f MB L2: a call repeated on the same buffers may beat "
                 "the HBM time\n", t->l2_bytes / 1e6);
}

void ax_limit_print_json(FILE *out, const AxMugraph *g, const AxLimit *l) {
  fprintf(out,
          "{\"program\": \"%s\", \"target\": \"%s\", \"limit\": true, \"bytes\": %.0f, "
          "\"bytes_in\": %.0f, \"bytes_out\": %.0f, \"tensor_flops\": %.0f, \"other_flops\": %.0f, "
          "\"hbm_us\": %.4f, \"tensor_us\": %.4f, \"alu_us\": %.4f, \"floor_us\": %.4f, "
          "\"limit_us\": %.4f, \"bound\": \"%s\", \"fits_l2\": %s, \"l2_bytes\": %.0f}\n",
          g->name, l->target->name, l->bytes_in + l->bytes_out, l->bytes_in, l->bytes_out,
          l->tensor_flops, l->other_flops, l->t_hbm * 1e6, l->t_tensor * 1e6, l->t_alu * 1e6,
          l->t_floor * 1e6, l->limit_s * 1e6, l->bound, l->fits_l2 ? "true" : "false",
          l->target->l2_bytes);
}
