/* tensorop.c — shape inference and evaluation of the program-level operators
 * (dsl/ops.h), through their rows (ewop.h, pop.h). */
#include "superopt/ir/tensorop.h"

#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

#define MAX_ELEMS AX_TENSOR_MAX_ELEMS

static bool small_shape(const AxTShape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dim[i] < 1 || s->dim[i] > MAX_ELEMS / n) return false;
    n *= s->dim[i];
  }
  return true;
}

/* The operand count, then the operator's shape rule: its element-wise row's (the operand's
 * shape, or the operands' broadcast) or its pop.h row's. */
static bool infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                  char *err, size_t errn) {
  const AxOpSpec *sp = ax_op_spec(op);
  char b1[96], b2[96];
  if (nin < sp->min_in || nin > sp->max_in)
    return ax_tensor_fail(err, errn, "takes %d%s operand%s, got %d", sp->min_in,
                sp->max_in != sp->min_in ? " or more" : "", sp->min_in == 1 ? "" : "s", nin);
  const AxEwOp *e = ax_ewop_get(op);
  if (e && e->arity == 1) {
    *out = *in[0];
    return true;
  }
  if (e) {
    if (!ax_shape_broadcast(in[0], in[1], out))
      return ax_tensor_fail(err, errn, "operand shapes %s and %s do not broadcast",
                  ax_shape_str(in[0], b1, sizeof b1), ax_shape_str(in[1], b2, sizeof b2));
    return true;
  }
  const AxPOp *p = ax_pop_get(op);
  AX_ASSERT(p);   /* rule-only operators: the program's lookup never yields them */
  return p->infer(at, in, nin, out, err, errn);
}

bool ax_tensorop_infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                       char *err, size_t errn) {
  const AxOpSpec *sp = ax_op_spec(op);
  if ((sp->tattrs & AX_TA_SHAPE) && !(sp->tattrs & AX_TA_PERM) && !small_shape(&at->shape))
    return ax_tensor_fail(err, errn, "the shape must have dims of at least 1 and at most 2^32 elements");
  if ((sp->tattrs & AX_TA_TIMES) && (at->times < 1 || at->times > MAX_ELEMS))
    return ax_tensor_fail(err, errn, "needs 1 <= times <= 2^32");
  if (!infer(op, at, in, nin, out, err, errn)) return false;
  if (!small_shape(out)) return ax_tensor_fail(err, errn, "the result would have more than 2^32 elements");
  return true;
}

void ax_tensorop_apply(const AxTDomain *d, AxArena *scratch, AxOp op, const AxTAttrs *at,
                       const AxTensor *const *in, int nin, AxTensor *out) {
  const AxEwOp *e = ax_ewop_get(op);
  if (e) {
    if (e->arity == 2) ax_tensor_binary(d, op, in[0], in[1], out);
    else d->unary(d, op, (size_t)ax_shape_numel(&out->shape), out->data, in[0]->data);
    return;
  }
  const AxPOp *p = ax_pop_get(op);
  AX_ASSERT(p && p->apply);   /* inputs are given; rule-only operators never reach a program */
  p->apply(d, scratch, at, in, nin, out);
}
