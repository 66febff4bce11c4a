/* exact.c — the index-only analysis (exact.h). */
#include "superopt/equiv/exact.h"

#include "superopt/ir/pop.h"

bool ax_exact_is_compare(AxOp op) {
  return op == AX_OP_EQ || op == AX_OP_NE || op == AX_OP_LT || op == AX_OP_LE || op == AX_OP_GT ||
         op == AX_OP_GE;
}

bool ax_exact_index_op(AxOp op) {
  switch (op) {
  case AX_OP_ADD: case AX_OP_SUB: case AX_OP_MUL: case AX_OP_NEG: return true;
  default: return ax_exact_is_compare(op);
  }
}

bool ax_exact_decides(AxOp op, const int64_t *b, int nin) {
  if (ax_exact_is_compare(op)) return nin == 2 && b[0] >= 0 && b[1] >= 0;
  if (op == AX_OP_SQRT || op == AX_OP_RSQRT) return nin == 1 && b[0] >= 0;
  if (op == AX_OP_SELECT) return nin == 3 && b[0] >= 0;
  return false;
}

static int64_t capped(int64_t v) { return v >= 0 && v <= AX_EXACT_LIMIT ? v : -1; }

/* An integer literal's magnitude, or -1 (a fraction is no index). */
static int64_t literal(AxRat v) {
  if (v.den != 1 || v.num < -AX_EXACT_LIMIT || v.num > AX_EXACT_LIMIT) return -1;
  return v.num < 0 ? -v.num : v.num;
}

/* The bound of op applied to operands of bounds b[0..nin): iota's largest index; add, sub,
 * mul, neg by interval arithmetic on the magnitudes; a comparison 1 (0 or 1) when decided;
 * a select or a layout (values moved, none made) the largest of its value operands; any
 * other operator -1. */
static int64_t apply(AxOp op, const AxTAttrs *at, const int64_t *b, int nin) {
  if (op == AX_OP_CONSTANT) return literal(at->value);
  if (op == AX_OP_IOTA) return capped(at->shape.dim[at->axis] - 1);
  for (int j = 0; j < nin; j++)
    if (b[j] < 0 && !(op == AX_OP_SELECT && j == 0)) return -1;
  switch (op) {
  case AX_OP_ADD:
  case AX_OP_SUB: return capped(b[0] + b[1]);
  case AX_OP_MUL: return b[0] > 0 && b[1] > AX_EXACT_LIMIT / b[0] ? -1 : capped(b[0] * b[1]);
  case AX_OP_NEG: return b[0];
  case AX_OP_SELECT: return b[0] < 0 ? -1 : (b[1] > b[2] ? b[1] : b[2]);
  default: break;
  }
  if (ax_exact_is_compare(op)) return 1;
  const AxPOp *p = ax_pop_get(op);
  if (p && ax_op_spec(op)->cls == AX_TC_LAYOUT && op != AX_OP_PAD) {
    int64_t m = 0;
    for (int j = 0; j < nin; j++) m = b[j] > m ? b[j] : m;
    return m;
  }
  return -1;
}

void ax_exact_analyse(const AxMugraph *g, int64_t *tb, int64_t **nb) {
  for (int i = 0; i < g->ntensors; i++)
    tb[i] = g->tensors[i].anon ? literal(g->tensors[i].value) : -1;
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    int64_t b[AX_MAXIN];
    if (st->kind == AX_KS_OP) {
      for (int j = 0; j < st->nin; j++) b[j] = tb[st->in[j]];
      tb[st->t] = apply(st->op, &st->at, b, st->nin);
    } else if (st->kind == AX_KS_KERNEL) {
      const AxKernel *k = st->kernel;
      int64_t *v = nb[s];
      for (int i = 0; i < k->nnodes; i++) {
        const AxBNode *n = &k->nodes[i];
        switch (n->kind) {
        case AX_BN_ITER: v[i] = tb[n->src]; break;
        case AX_BN_OP:
          for (int j = 0; j < n->nin; j++) b[j] = v[n->in[j]];
          /* a block iota's largest index is that of the kernel-level shape it tiles */
          v[i] = apply(n->op, &n->at, b, n->nin);
          break;
        case AX_BN_ACCUM: v[i] = -1; break;
        case AX_BN_SAVE: v[i] = -1, tb[n->dst] = v[n->in[0]]; break;
        }
      }
    }
  }
}
