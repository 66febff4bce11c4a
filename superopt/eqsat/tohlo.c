/* tohlo.c — a lowered program as HLO values (tohlo.h). */
#include "superopt/eqsat/tohlo.h"

#include <string.h>

typedef struct Build {
  AxArena *a;
  AxHloPVal *v;
  int n, cap;
} Build;

static AxHloPVal *val(Build *b) {
  if (b->n == b->cap) {
    int cap = b->cap ? b->cap * 2 : 32;
    AxHloPVal *nv = ax_arena_alloc(b->a, (size_t)cap * sizeof *nv);
    if (b->n) memcpy(nv, b->v, (size_t)b->n * sizeof *nv);
    b->v = nv;
    b->cap = cap;
  }
  AxHloPVal *x = &b->v[b->n++];
  memset(x, 0, sizeof *x);
  return x;
}

static AxHloType htype(AxDtype t) {
  return t == AX_DT_F16 ? AX_HLO_F16 : t == AX_DT_BF16 ? AX_HLO_BF16 : AX_HLO_F32;
}

static void set_shape(AxHloPVal *x, const AxKTensor *t) {
  x->type = htype(t->dtype);
  x->rank = t->shape.rank;
  for (int i = 0; i < t->shape.rank; i++) x->dims[i] = t->shape.dim[i];
}

/* num/den as an exact decimal when den is 2^a 5^b (what program literals are), else the
 * nearest double in 17 digits (never met: lowering keeps literals decimal). */
static const char *decimal(AxArena *a, AxRat r) {
  int64_t num = r.num, den = r.den;
  bool neg = num < 0;
  uint64_t u = neg ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
  int digits = 0;
  int64_t d = den;
  while (d % 10 == 0) d /= 10, digits++;
  while (d % 2 == 0 && u <= UINT64_MAX / 5) d /= 2, u *= 5, digits++;
  while (d % 5 == 0 && u <= UINT64_MAX / 2) d /= 5, u *= 2, digits++;
  if (d != 1 || digits > 40) return ax_arena_printf(a, "%.17g", (double)num / (double)den);
  char buf[96];
  snprintf(buf, sizeof buf, "%0*llu", digits + 1, (unsigned long long)u);
  size_t len = strlen(buf);
  if (digits == 0) return ax_arena_printf(a, "%s%s", neg ? "-" : "", buf);
  return ax_arena_printf(a, "%s%.*s.%s", neg ? "-" : "", (int)(len - (size_t)digits), buf,
                         buf + len - digits);
}

bool ax_eq_to_hlo(const AxMugraph *g, AxArena *a, AxHloPProg *out, const char **why) {
  Build b = {.a = a};
  int *at = ax_arena_alloc(a, ((size_t)g->ntensors + 1) * sizeof *at);   /* tensor -> value */
  for (int t = 0; t < g->ntensors; t++) at[t] = -1;
  int nparams = 0;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind == AX_KS_INPUT) {
      AxHloPVal *x = val(&b);
      x->kind = AX_HP_PARAM;
      x->name = g->tensors[st->t].name;
      x->param = nparams++;
      set_shape(x, &g->tensors[st->t]);
      at[st->t] = b.n - 1;
      continue;
    }
    if (st->kind == AX_KS_KERNEL) {
      *why = "a graph-defined kernel has no HLO printing";
      return false;
    }
    if (st->kind != AX_KS_OP) continue;
    const AxKTensor *res = &g->tensors[st->t];
    int in[AX_MAXIN];
    for (int j = 0; j < st->nin; j++) {
      const AxKTensor *it = &g->tensors[st->in[j]];
      if (it->anon) {       /* a literal: a scalar constant of the result's type */
        AxHloPVal *c = val(&b);
        c->kind = AX_HP_CONST;
        c->name = ax_arena_printf(a, "%s.c%d", res->name, j);
        c->type = htype(res->dtype);
        c->literal = decimal(a, it->value);
        in[j] = b.n - 1;
      } else {
        in[j] = at[st->in[j]];
      }
    }
    static const struct { AxOp op; const char *hlo; } ew[] = {
        {AX_OP_ADD, "add"}, {AX_OP_SUB, "subtract"}, {AX_OP_MUL, "multiply"},
        {AX_OP_DIV, "divide"}, {AX_OP_MAX, "maximum"}, {AX_OP_MIN, "minimum"},
        {AX_OP_NEG, "negate"}, {AX_OP_EXP, "exponential"}, {AX_OP_SQRT, "sqrt"},
        {AX_OP_RSQRT, "rsqrt"}, {AX_OP_TANH, "tanh"}, {AX_OP_LOGISTIC, "logistic"},
        {AX_OP_ABS, "abs"}, {AX_OP_LOG, "log"}, {AX_OP_POW, "power"},
        {AX_OP_SIN, "sine"}, {AX_OP_COS, "cosine"}, {AX_OP_ERF, "erf"},
        /* the result's type (the row's storage type) says which conversion */
        {AX_OP_TO_F16, "convert"}, {AX_OP_TO_BF16, "convert"}, {AX_OP_TO_F32, "convert"}};
    const char *opc = NULL;
    for (size_t k = 0; k < sizeof ew / sizeof *ew; k++)
      if (ew[k].op == st->op) opc = ew[k].hlo;
    AxHloPVal *x;
    switch (st->op) {
    case AX_OP_SQUARE:
      in[1] = in[0];
      opc = "multiply";
      /* fall through */
    default:
      if (!opc) {
        *why = ax_arena_printf(a, "%s has no HLO printing yet", ax_op_pname(st->op));
        return false;
      }
      x = val(&b);
      x->kind = AX_HP_EW;
      x->opcode = opc;
      x->nin = st->op == AX_OP_SQUARE ? 2 : st->nin;
      for (int j = 0; j < x->nin; j++) x->in[j] = in[j];
      break;
    case AX_OP_SILU: {
      AxHloPVal *s = val(&b);
      s->kind = AX_HP_EW;
      s->opcode = "logistic";
      s->name = ax_arena_printf(a, "%s.sigmoid", res->name);
      set_shape(s, res);
      s->in[0] = in[0];
      s->nin = 1;
      x = val(&b);
      x->kind = AX_HP_EW;
      x->opcode = "multiply";
      x->in[0] = in[0];
      x->in[1] = b.n - 2;
      x->nin = 2;
      break;
    }
    case AX_OP_REDUCE:
    case AX_OP_REDUCE_MAX:
    case AX_OP_REDUCE_MIN:
    case AX_OP_MEAN: {
      if (st->at.to > 1) {
        *why = "a reduction with `to` has no HLO printing yet";
        return false;
      }
      bool mean = st->op == AX_OP_MEAN;
      x = val(&b);
      x->kind = AX_HP_SUM;
      x->opcode = st->op == AX_OP_REDUCE_MAX ? "maximum" : st->op == AX_OP_REDUCE_MIN ? "minimum" : NULL;
      x->in[0] = in[0];
      x->nin = 1;
      x->axis = st->at.axis;
      if (!mean) break;
      x->name = ax_arena_printf(a, "%s.sum", res->name);
      set_shape(x, res);
      AxHloPVal *c = val(&b);
      c->kind = AX_HP_CONST;
      c->name = ax_arena_printf(a, "%s.n", res->name);
      c->type = htype(res->dtype);
      c->literal = ax_arena_printf(a, "%lld", (long long)g->tensors[st->in[0]].shape.dim[st->at.axis]);
      x = val(&b);
      x->kind = AX_HP_EW;
      x->opcode = "divide";
      x->in[0] = b.n - 3;
      x->in[1] = b.n - 2;
      x->nin = 2;
      break;
    }
    case AX_OP_DOT:
      x = val(&b);
      x->kind = AX_HP_DOT;
      x->in[0] = in[0], x->in[1] = in[1];
      x->nin = 2;
      break;
    case AX_OP_RESHAPE:
    case AX_OP_BROADCAST:
      x = val(&b);
      x->kind = st->op == AX_OP_RESHAPE ? AX_HP_RESHAPE : AX_HP_BROADCAST;
      x->in[0] = in[0];
      x->nin = 1;
      break;
    case AX_OP_TRANSPOSE:
      x = val(&b);
      x->kind = AX_HP_TRANSPOSE;
      x->in[0] = in[0];
      x->nin = 1;
      for (int k = 0; k < st->at.shape.rank; k++) x->perm[k] = (int)st->at.shape.dim[k];
      break;
    case AX_OP_EQ: case AX_OP_NE: case AX_OP_LT: case AX_OP_LE: case AX_OP_GT: case AX_OP_GE: {
      static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
      x = val(&b);
      x->kind = AX_HP_COMPARE;
      x->direction = dirs[st->op - AX_OP_EQ];   /* ORDER OP: eq ne lt le gt ge in a row */
      x->in[0] = in[0], x->in[1] = in[1];
      x->nin = 2;
      break;
    }
    case AX_OP_SELECT:
      x = val(&b);
      x->kind = AX_HP_SELECT;
      for (int j = 0; j < 3; j++) x->in[j] = in[j];
      x->nin = 3;
      break;
    case AX_OP_IOTA:
      x = val(&b);
      x->kind = AX_HP_IOTA;
      x->axis = st->at.axis;
      break;
    case AX_OP_SLICE:
    case AX_OP_PAD:
      x = val(&b);
      x->kind = st->op == AX_OP_SLICE ? AX_HP_SLICE : AX_HP_PAD;
      x->nin = st->nin;
      for (int j = 0; j < st->nin; j++) x->in[j] = in[j];
      for (int k = 0; k < st->at.nbound; k++)
        x->lo[k] = st->at.lo[k], x->hi[k] = st->at.hi[k], x->step[k] = st->at.step[k];
      break;
    case AX_OP_REVERSE:
      x = val(&b);
      x->kind = AX_HP_REVERSE;
      x->in[0] = in[0];
      x->nin = 1;
      x->nperm = st->at.shape.rank;
      for (int k = 0; k < st->at.shape.rank; k++) x->perm[k] = (int)st->at.shape.dim[k];
      break;
    case AX_OP_CONCAT:
      x = val(&b);
      x->kind = AX_HP_CONCAT;
      for (int j = 0; j < st->nin; j++) x->in[j] = in[j];
      x->nin = st->nin;
      x->axis = st->at.axis;
      break;
    case AX_OP_RMS_NORM: {
      /* x / sqrt(sum(x * x, axis) / n): the parts the importer reads back as rms_norm */
      AxKTensor kept = *res;   /* the sums' shape: the axis kept with size 1 */
      kept.shape.dim[st->at.axis] = 1;
      const char *parts[] = {"sq", "ss", "n", "ms", "rms"};
      int first = b.n;
      for (int k = 0; k < 5; k++) {
        x = val(&b);
        x->name = ax_arena_printf(a, "%s.%s", res->name, parts[k]);
        if (k == 2) {
          x->kind = AX_HP_CONST;
          x->type = htype(res->dtype);
          x->literal = ax_arena_printf(a, "%lld", (long long)res->shape.dim[st->at.axis]);
          continue;
        }
        set_shape(x, k == 0 ? res : &kept);
        x->kind = k == 1 ? AX_HP_SUM : AX_HP_EW;
        x->opcode = k == 0 ? "multiply" : k == 3 ? "divide" : k == 4 ? "sqrt" : NULL;
        static const int from[5] = {-1, 0, -1, 1, 3};   /* the part each reads first */
        x->in[0] = k == 0 ? in[0] : first + from[k];
        x->in[1] = k == 0 ? in[0] : first + 2;   /* x * x; ss / n */
        x->nin = k == 0 || k == 3 ? 2 : 1;
        x->axis = st->at.axis;
      }
      x = val(&b);
      x->kind = AX_HP_EW;
      x->opcode = "divide";
      x->in[0] = in[0];
      x->in[1] = b.n - 2;
      x->nin = 2;
      break;
    }
    case AX_OP_REPEAT:
      *why = ax_arena_printf(a, "%s has no HLO printing yet", ax_op_pname(st->op));
      return false;
    }
    x->name = res->name;
    set_shape(x, res);
    at[st->t] = b.n - 1;
  }
  int *outs = ax_arena_alloc(a, ((size_t)g->noutputs + 1) * sizeof *outs);
  for (int k = 0; k < g->noutputs; k++) outs[k] = at[g->outputs[k]];
  *out = (AxHloPProg){g->name, b.v, b.n, outs, g->noutputs, NULL};
  return true;
}
