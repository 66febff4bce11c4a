/* ops.c — the operator table: levels, arities and element rules from AX_OP_LIST, rule-level
 * attributes here. */
#include "dsl/ops.h"

#include <string.h>

#define REQ(n, k) {n, k, true, AX_DEF_NONE}
#define OPT(n, k, d) {n, k, false, d}

/* Rule-level attributes, positional order after the operands. Indexed by the enum. The
 * whole table is a constant (no lazy set-up), so any thread may read it at any time. */
static const AxAttrSpec rule_attrs[AX_OP_COUNT][AX_MAX_ATTRS] = {
    [AX_OP_CONSTANT] = {REQ("shape", AX_AT_SHAPE)},
    [AX_OP_IOTA] = {REQ("shape", AX_AT_SHAPE), REQ("axis", AX_AT_AXIS)},
    [AX_OP_BROADCAST] = {REQ("shape", AX_AT_SHAPE)},
    [AX_OP_PAD] = {OPT("low", AX_AT_AXMAP, AX_DEF_ZERO), OPT("interior", AX_AT_AXMAP, AX_DEF_ZERO),
      OPT("high", AX_AT_AXMAP, AX_DEF_ZERO)},
    [AX_OP_PAD_LOW] = {OPT("low", AX_AT_AXMAP, AX_DEF_ZERO)},
    [AX_OP_SLICE] = {OPT("start", AX_AT_AXMAP, AX_DEF_ZERO), OPT("end", AX_AT_AXMAP, AX_DEF_SIZE),
      OPT("stride", AX_AT_AXMAP, AX_DEF_ONE)},
    [AX_OP_DYNAMIC_SLICE] = {OPT("start", AX_AT_AXMAP, AX_DEF_ZERO), OPT("sizes", AX_AT_AXMAP, AX_DEF_SIZE)},
    [AX_OP_DYNAMIC_UPDATE_SLICE] = {OPT("start", AX_AT_AXMAP, AX_DEF_ZERO)},
    [AX_OP_CONCAT] = {REQ("axis", AX_AT_AXIS)},
    [AX_OP_RELABEL] = {REQ("map", AX_AT_RELABEL)},
    [AX_OP_REVERSE] = {REQ("axes", AX_AT_AXES)},
    [AX_OP_RESHAPE_DEGENERATE] = {OPT("add", AX_AT_AXES, AX_DEF_NONE), OPT("remove", AX_AT_AXES, AX_DEF_NONE)},
    [AX_OP_RESHAPE_SPLIT] = {REQ("inner", AX_AT_AXMAP), REQ("into", AX_AT_AXES)},
    [AX_OP_RESHAPE_MERGE] = {REQ("axes", AX_AT_AXES), REQ("into", AX_AT_AXIS)},
    [AX_OP_REDUCE] = {REQ("axes", AX_AT_AXIDX)},
    [AX_OP_DOT] = {REQ("contract", AX_AT_AXIDX), OPT("batch", AX_AT_AXES, AX_DEF_NONE)},
    [AX_OP_CONV] = {OPT("batch", AX_AT_AXES, AX_DEF_NONE), REQ("feature", AX_AT_AXIDX),
      OPT("out_feature", AX_AT_AXES, AX_DEF_NONE), REQ("spatial", AX_AT_AXIDX),
      OPT("stride", AX_AT_AXMAP, AX_DEF_ONE), OPT("low", AX_AT_AXMAP, AX_DEF_ZERO),
      OPT("high", AX_AT_AXMAP, AX_DEF_ZERO), OPT("lhs_dilation", AX_AT_AXMAP, AX_DEF_ONE),
      OPT("rhs_dilation", AX_AT_AXMAP, AX_DEF_ONE)},
    /* one axis, as in programs: its class is fixed at rank 1 (like a concat axis) */
    [AX_OP_MEAN] = {REQ("axis", AX_AT_AXIS)},
    [AX_OP_RMS_NORM] = {REQ("axis", AX_AT_AXIS)},
    /* gather(A, I, axis=y): A read at y = clamp(I, 0, n-1); y's class fixed at rank 1 */
    [AX_OP_GATHER] = {REQ("axis", AX_AT_AXIS)},
    /* scatter(A, I, U, axis=y): A plus each update U[z] added at row y = I[z]; y rank 1 */
    [AX_OP_SCATTER] = {REQ("axis", AX_AT_AXIS)},
    /* flatten(A, x, into=a): every named axis of x into one axis a, row-major; a's class is
     * fixed at rank 1. unflatten(A, a, {x: s}): the inverse, a split into x of sizes s. */
    [AX_OP_FLATTEN] = {REQ("axis", AX_AT_AXIS), REQ("into", AX_AT_AXIS)},
    [AX_OP_UNFLATTEN] = {REQ("axis", AX_AT_AXIS), REQ("shape", AX_AT_SHAPE)},
};

static const AxOpSpec table[AX_OP_COUNT] = {
#define X(e, nm, pn, lv, lo, hi, et, plo, phi, pat, cl) \
  [AX_OP_##e] = {nm, pn ? pn : nm, lv, lo, hi, et, rule_attrs[AX_OP_##e], plo, phi, pat, cl},
    AX_OP_LIST(X)
#undef X
};

const AxOpSpec *ax_op_spec(AxOp op) {
  AX_ASSERT(op >= 0 && op < AX_OP_COUNT);
  return &table[op];
}

const char *ax_op_name(AxOp op) { return ax_op_spec(op)->name; }

bool ax_op_lookup(const char *name, AxOp *out) {
  for (int i = 0; i < AX_OP_COUNT; i++)
    if ((table[i].levels & AX_LV_RULE) && strcmp(table[i].name, name) == 0) {
      *out = (AxOp)i;
      return true;
    }
  return false;
}

const char *ax_op_pname(AxOp op) { return ax_op_spec(op)->pname; }

bool ax_op_lookup_prog(const char *name, AxOp *out) {
  for (int i = 0; i < AX_OP_COUNT; i++)
    if ((table[i].levels & (AX_LV_PROG | AX_LV_BLOCK)) && strcmp(table[i].pname, name) == 0) {
      *out = (AxOp)i;
      return true;
    }
  return false;
}

bool ax_op_is_elementwise(AxOp op) {
  AxOpClass c = ax_op_spec(op)->cls;
  return c == AX_TC_BINARY || c == AX_TC_UNARY;
}

int ax_op_nattrs(AxOp op) {
  const AxOpSpec *s = ax_op_spec(op);
  int n = 0;
  while (n < AX_MAX_ATTRS && s->attrs[n].name) n++;
  return n;
}

const AxAttrSpec *ax_op_attr(AxOp op, const char *name, int *index) {
  const AxOpSpec *s = ax_op_spec(op);
  for (int i = 0; i < ax_op_nattrs(op); i++)
    if (strcmp(s->attrs[i].name, name) == 0) {
      if (index) *index = i;
      return &s->attrs[i];
    }
  return NULL;
}
