/* tensor.c — shape inference and evaluation of the program-level operators (dsl/ops.h). */
#include "superopt/tensor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "superopt/domain.h"

static const char *const dtype_names[] = {
    [AX_DT_F16] = "f16", [AX_DT_BF16] = "bf16", [AX_DT_F32] = "f32"};

const char *ax_dtype_name(AxDtype t) { return dtype_names[t]; }

bool ax_dtype_lookup(const char *name, AxDtype *out) {
  for (int i = 0; i < (int)AX_COUNTOF(dtype_names); i++)
    if (strcmp(dtype_names[i], name) == 0) {
      *out = (AxDtype)i;
      return true;
    }
  return false;
}

size_t ax_dtype_bytes(AxDtype t) { return t == AX_DT_F32 ? 4 : 2; }

int64_t ax_shape_numel(const AxTShape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) n *= s->dim[i];
  return n;
}

bool ax_shape_equal(const AxTShape *a, const AxTShape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dim[i] != b->dim[i]) return false;
  return true;
}

char *ax_shape_str(const AxTShape *s, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "[");
  for (int i = 0; i < s->rank; i++)
    used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%" PRId64, i ? ", " : "",
                             s->dim[i]);
  snprintf(buf + used, used < n ? n - used : 0, "]");
  return buf;
}

bool ax_shape_broadcast(const AxTShape *a, const AxTShape *b, AxTShape *out) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  out->rank = r;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->dim[i] = da == 1 ? db : da;
  }
  return true;
}

static bool fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return false;
}

/* Normalizes at->axis against rank r (unset: the last axis). */
static bool norm_axis(AxTAttrs *at, int r, char *err, size_t n) {
  if (r == 0) return fail(err, n, "needs an operand with at least one dimension");
  if (!at->axis_set) {
    at->axis = r - 1;
    at->axis_set = true;
  }
  if (at->axis < -r || at->axis >= r)
    return fail(err, n, "axis %d is out of range for rank %d", at->axis, r);
  if (at->axis < 0) at->axis += r;
  return true;
}

/* Shapes stay within 2^32 elements (and so every product fits in int64). */
#define MAX_ELEMS ((int64_t)1 << 32)

static bool small_shape(const AxTShape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dim[i] < 1 || s->dim[i] > MAX_ELEMS / n) return false;
    n *= s->dim[i];
  }
  return true;
}

static bool infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                  char *err, size_t errn);

bool ax_tensor_infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                     char *err, size_t errn) {
  if ((ax_op_spec(op)->tattrs & AX_TA_SHAPE) && !small_shape(&at->shape))
    return fail(err, errn, "the shape must have dims of at least 1 and at most 2^32 elements");
  if (op == AX_OP_REPEAT && (at->times < 1 || at->times > MAX_ELEMS))
    return fail(err, errn, "needs 1 <= times <= 2^32");
  if (!infer(op, at, in, nin, out, err, errn)) return false;
  if (!small_shape(out)) return fail(err, errn, "the result would have more than 2^32 elements");
  return true;
}

static bool infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                  char *err, size_t errn) {
  const AxOpSpec *sp = ax_op_spec(op);
  char b1[96], b2[96];
  if (nin < sp->min_in || nin > sp->max_in)
    return fail(err, errn, "takes %d%s operand%s, got %d", sp->min_in,
                sp->max_in != sp->min_in ? " or more" : "", sp->min_in == 1 ? "" : "s", nin);
  switch (sp->cls) {
  case AX_TC_NONE: AX_UNREACHABLE(); return false;   /* rule-only: lookup never yields it */
  case AX_TC_SOURCE:
    out->rank = 0;   /* const: a scalar; input: the caller sets the shape */
    return true;
  case AX_TC_UNARY:
    *out = *in[0];
    return true;
  case AX_TC_BINARY:
    if (!ax_shape_broadcast(in[0], in[1], out))
      return fail(err, errn, "operand shapes %s and %s do not broadcast",
                  ax_shape_str(in[0], b1, sizeof b1), ax_shape_str(in[1], b2, sizeof b2));
    return true;
  case AX_TC_MATMUL: {
    const AxTShape *a = in[0], *b = in[1];
    if (a->rank < 2 || b->rank < 2)
      return fail(err, errn, "needs operands of rank 2 or more, got %s and %s",
                  ax_shape_str(a, b1, sizeof b1), ax_shape_str(b, b2, sizeof b2));
    if (a->dim[a->rank - 1] != b->dim[b->rank - 2])
      return fail(err, errn, "inner dimensions differ: %s x %s (%" PRId64 " vs %" PRId64 ")",
                  ax_shape_str(a, b1, sizeof b1), ax_shape_str(b, b2, sizeof b2),
                  a->dim[a->rank - 1], b->dim[b->rank - 2]);
    AxTShape ba = *a, bb = *b, bo;
    ba.rank -= 2;
    bb.rank -= 2;
    if (!ax_shape_broadcast(&ba, &bb, &bo))
      return fail(err, errn, "batch dimensions of %s and %s do not broadcast",
                  ax_shape_str(a, b1, sizeof b1), ax_shape_str(b, b2, sizeof b2));
    *out = bo;
    out->dim[out->rank++] = a->dim[a->rank - 2];
    out->dim[out->rank++] = b->dim[b->rank - 1];
    return true;
  }
  case AX_TC_REDUCE:
  case AX_TC_NORM: {
    if (!norm_axis(at, in[0]->rank, err, errn)) return false;
    *out = *in[0];
    if (sp->cls == AX_TC_NORM) return true;
    int64_t len = in[0]->dim[at->axis], to = at->to ? at->to : 1;
    if (op == AX_OP_MEAN && at->to) return fail(err, errn, "takes no 'to'");
    if (to < 1 || len % to != 0)
      return fail(err, errn, "cannot sum axis %d of size %" PRId64 " to size %" PRId64
                  " (the size must divide it)", at->axis, len, to);
    out->dim[at->axis] = to;
    return true;
  }
  case AX_TC_LAYOUT:
    break;
  }
  switch (op) {
  case AX_OP_RESHAPE:
    if (ax_shape_numel(&at->shape) != ax_shape_numel(in[0]))
      return fail(err, errn, "cannot reshape %s (%" PRId64 " elements) to %s (%" PRId64 ")",
                  ax_shape_str(in[0], b1, sizeof b1), ax_shape_numel(in[0]),
                  ax_shape_str(&at->shape, b2, sizeof b2), ax_shape_numel(&at->shape));
    *out = at->shape;
    return true;
  case AX_OP_BROADCAST: {
    AxTShape o;
    if (at->shape.rank < in[0]->rank || !ax_shape_broadcast(in[0], &at->shape, &o) ||
        !ax_shape_equal(&o, &at->shape))
      return fail(err, errn, "cannot broadcast %s to %s", ax_shape_str(in[0], b1, sizeof b1),
                  ax_shape_str(&at->shape, b2, sizeof b2));
    *out = at->shape;
    return true;
  }
  case AX_OP_REPEAT:
    if (!norm_axis(at, in[0]->rank, err, errn)) return false;
    if (at->times < 1 || at->times > MAX_ELEMS / in[0]->dim[at->axis])
      return fail(err, errn, "times = %" PRId64 " is out of range", at->times);
    *out = *in[0];
    out->dim[at->axis] *= at->times;
    return true;
  case AX_OP_CONCAT: {
    if (!norm_axis(at, in[0]->rank, err, errn)) return false;
    *out = *in[0];
    for (int i = 1; i < nin; i++) {
      bool ok = in[i]->rank == in[0]->rank;
      for (int k = 0; ok && k < in[0]->rank; k++)
        if (k != at->axis && in[i]->dim[k] != in[0]->dim[k]) ok = false;
      if (!ok)
        return fail(err, errn, "operand %d has shape %s, which does not fit %s along axis %d",
                    i + 1, ax_shape_str(in[i], b1, sizeof b1),
                    ax_shape_str(in[0], b2, sizeof b2), at->axis);
      out->dim[at->axis] += in[i]->dim[at->axis];
    }
    return true;
  }
  default:
    AX_UNREACHABLE();
  }
  return false;
}

/* ---- evaluation ---------------------------------------------------------------------- */

static AxTensor tmp(AxArena *a, const AxTDomain *d, const AxTShape *s) {
  AxTensor t = {*s, ax_arena_alloc(a, (size_t)ax_shape_numel(s) * d->size + 1)};
  return t;
}

/* Element offset of multi-index idx (of shape out) in a tensor of shape s broadcast to
 * out (right-aligned; size-1 dims have stride 0). */
static size_t bcast_off(const AxTShape *s, const AxTShape *out, const int64_t *idx) {
  size_t off = 0;
  int shift = out->rank - s->rank;
  for (int i = 0; i < s->rank; i++) {
    int64_t k = s->dim[i] == 1 ? 0 : idx[i + shift];
    off = off * (size_t)s->dim[i] + (size_t)k;
  }
  return off;
}

/* Advances idx over the first r dims of shape s; false after the last index. */
static bool next_index(int64_t *idx, const AxTShape *s, int r) {
  for (int i = r - 1; i >= 0; i--) {
    if (++idx[i] < s->dim[i]) return true;
    idx[i] = 0;
  }
  return false;
}

static void apply_binary(const AxTDomain *d, AxOp op, const AxTensor *a, const AxTensor *b,
                         AxTensor *out) {
  const AxTShape *o = &out->shape;
  if (o->rank == 0) {
    d->binary(d, op, 1, out->data, a->data, 1, b->data, 1);
    return;
  }
  size_t last = (size_t)o->dim[o->rank - 1];
  size_t sa = a->shape.rank && a->shape.dim[a->shape.rank - 1] != 1 ? 1 : 0;
  size_t sb = b->shape.rank && b->shape.dim[b->shape.rank - 1] != 1 ? 1 : 0;
  int64_t idx[AX_MAXRANK] = {0};
  char *po = out->data;
  do {
    size_t oa = bcast_off(&a->shape, o, idx), ob = bcast_off(&b->shape, o, idx);
    d->binary(d, op, last, po, (const char *)a->data + oa * d->size, sa,
              (const char *)b->data + ob * d->size, sb);
    po += last * d->size;
  } while (next_index(idx, o, o->rank - 1));
}

static void apply_matmul(const AxTDomain *d, const AxTensor *a, const AxTensor *b, AxTensor *out) {
  const AxTShape *o = &out->shape;
  size_t m = (size_t)o->dim[o->rank - 2], n = (size_t)o->dim[o->rank - 1];
  size_t k = (size_t)a->shape.dim[a->shape.rank - 1];
  AxTShape ob = *o, ab = a->shape, bb = b->shape;
  ob.rank -= 2;
  ab.rank -= 2;
  bb.rank -= 2;
  int64_t idx[AX_MAXRANK] = {0};
  char *po = out->data;
  do {
    size_t oa = bcast_off(&ab, &ob, idx), obb = bcast_off(&bb, &ob, idx);
    d->matmul(d, m, k, n, po, (const char *)a->data + oa * m * k * d->size,
              (const char *)b->data + obb * k * n * d->size);
    po += m * n * d->size;
  } while (ob.rank > 0 && next_index(idx, &ob, ob.rank));
}

/* outer x len x inner decomposition of a shape around axis. */
static void split3(const AxTShape *s, int axis, size_t *outer, size_t *len, size_t *inner) {
  *outer = *inner = 1;
  for (int i = 0; i < axis; i++) *outer *= (size_t)s->dim[i];
  for (int i = axis + 1; i < s->rank; i++) *inner *= (size_t)s->dim[i];
  *len = (size_t)s->dim[axis];
}

static void apply_sum(const AxTDomain *d, const AxTensor *x, int axis, int64_t to, AxTensor *out) {
  size_t outer, len, inner, es = d->size;
  split3(&x->shape, axis, &outer, &len, &inner);
  size_t t = (size_t)(to ? to : 1), chunk = t * inner, nchunks = len / t;
  for (size_t o = 0; o < outer; o++) {
    const char *src = (const char *)x->data + o * len * inner * es;
    char *dst = (char *)out->data + o * chunk * es;
    memcpy(dst, src, chunk * es);
    for (size_t j = 1; j < nchunks; j++)
      d->binary(d, AX_OP_ADD, chunk, dst, dst, 1, src + j * chunk * es, 1);
  }
}

static void scale(const AxTDomain *d, AxTensor *t, AxRat c) {
  char k[64];
  AX_ASSERT(d->size <= sizeof k);
  d->constant(d, c, k);
  size_t n = (size_t)ax_shape_numel(&t->shape);
  d->binary(d, AX_OP_MUL, n, t->data, t->data, 1, k, 0);
}

void ax_tensor_apply(const AxTDomain *d, AxArena *scratch, AxOp op, const AxTAttrs *at,
                     const AxTensor *const *in, int nin, AxTensor *out) {
  size_t es = d->size, n = (size_t)ax_shape_numel(&out->shape);
  switch (op) {
  case AX_OP_INPUT: AX_UNREACHABLE(); break;
  case AX_OP_CONSTANT: d->constant(d, at->value, out->data); break;
  case AX_OP_ADD:
  case AX_OP_SUB:
  case AX_OP_MUL:
  case AX_OP_DIV: apply_binary(d, op, in[0], in[1], out); break;
  case AX_OP_NEG:
  case AX_OP_EXP:
  case AX_OP_SQUARE:
  case AX_OP_SQRT:
  case AX_OP_SILU: d->unary(d, op, n, out->data, in[0]->data); break;
  case AX_OP_DOT: apply_matmul(d, in[0], in[1], out); break;
  case AX_OP_REDUCE: apply_sum(d, in[0], at->axis, at->to, out); break;
  case AX_OP_MEAN:
    apply_sum(d, in[0], at->axis, 0, out);
    scale(d, out, (AxRat){1, in[0]->shape.dim[at->axis]});
    break;
  case AX_OP_RMS_NORM: {
    /* X / sqrt(mean(X*X, axis)) */
    const AxTensor *x = in[0];
    AxTensor sq = tmp(scratch, d, &x->shape);
    d->unary(d, AX_OP_SQUARE, n, sq.data, x->data);
    AxTShape rs = x->shape;
    rs.dim[at->axis] = 1;
    AxTensor r = tmp(scratch, d, &rs);
    apply_sum(d, &sq, at->axis, 0, &r);
    scale(d, &r, (AxRat){1, x->shape.dim[at->axis]});
    d->unary(d, AX_OP_SQRT, (size_t)ax_shape_numel(&rs), r.data, r.data);
    apply_binary(d, AX_OP_DIV, x, &r, out);
    break;
  }
  case AX_OP_RESHAPE: memcpy(out->data, in[0]->data, n * es); break;
  case AX_OP_BROADCAST: {
    const AxTShape *o = &out->shape;
    if (o->rank == 0) {
      memcpy(out->data, in[0]->data, es);
      break;
    }
    size_t last = (size_t)o->dim[o->rank - 1];
    bool rep = in[0]->shape.rank == 0 || in[0]->shape.dim[in[0]->shape.rank - 1] == 1;
    int64_t idx[AX_MAXRANK] = {0};
    char *po = out->data;
    do {
      const char *src = (const char *)in[0]->data + bcast_off(&in[0]->shape, o, idx) * es;
      if (rep)
        for (size_t j = 0; j < last; j++) memcpy(po + j * es, src, es);
      else
        memcpy(po, src, last * es);
      po += last * es;
    } while (next_index(idx, o, o->rank - 1));
    break;
  }
  case AX_OP_REPEAT: {
    size_t outer, len, inner;
    split3(&in[0]->shape, at->axis, &outer, &len, &inner);
    size_t times = (size_t)at->times;
    char *po = out->data;
    for (size_t o = 0; o < outer; o++)
      for (size_t i = 0; i < len * times; i++) {
        memcpy(po, (const char *)in[0]->data + (o * len + i / times) * inner * es, inner * es);
        po += inner * es;
      }
    break;
  }
  case AX_OP_CONCAT: {
    size_t outer, len, inner;
    split3(&out->shape, at->axis, &outer, &len, &inner);
    char *po = out->data;
    for (size_t o = 0; o < outer; o++)
      for (int k = 0; k < nin; k++) {
        size_t lk = (size_t)in[k]->shape.dim[at->axis];
        memcpy(po, (const char *)in[k]->data + o * lk * inner * es, lk * inner * es);
        po += lk * inner * es;
      }
    break;
  }
  default: AX_UNREACHABLE();   /* rule-only operators never reach a program */
  }
}

/* Copies between a box of `big` and the whole of `small`; dir 0 loads, 1 stores. */
static void box(size_t es, AxTensor *big, const int64_t *off, AxTensor *small, int dir) {
  const AxTShape *s = &small->shape;
  int r = s->rank;
  if (r == 0) {
    if (dir) memcpy(big->data, small->data, es);
    else memcpy(small->data, big->data, es);
    return;
  }
  size_t run = (size_t)s->dim[r - 1] * es;
  int64_t idx[AX_MAXRANK] = {0};
  char *ps = small->data;
  do {
    size_t o = 0;
    for (int i = 0; i < r; i++) o = o * (size_t)big->shape.dim[i] + (size_t)(off[i] + idx[i]);
    char *pb = (char *)big->data + o * es;
    if (dir) memcpy(pb, ps, run);
    else memcpy(ps, pb, run);
    ps += run;
  } while (next_index(idx, s, r - 1));
}

void ax_tensor_copy_box(size_t esz, const AxTensor *src, const int64_t *off, AxTensor *dst) {
  box(esz, (AxTensor *)src, off, dst, 0);
}

void ax_tensor_store_box(size_t esz, const AxTensor *src, AxTensor *dst, const int64_t *off) {
  box(esz, dst, off, (AxTensor *)src, 1);
}

/* digits ["." digits] [("e"|"E") ["+"|"-"] digits], exactly, while it fits in int64. */
bool ax_rat_parse(const char *text, AxRat *out) {
  int64_t num = 0, den = 1;
  const char *p = text;
  bool any = false, frac = false;
  for (; *p; p++) {
    if (*p == '.' && !frac) {
      frac = true;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    any = true;
    if (num > (INT64_MAX - 9) / 10) return false;
    num = num * 10 + (*p - '0');
    if (frac) {
      if (den > INT64_MAX / 10) return false;
      den *= 10;
    }
  }
  if (!any) return false;
  if (*p == 'e' || *p == 'E') {
    p++;
    int sign = 1;
    if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
    if (*p < '0' || *p > '9') return false;
    long e = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
      e = e * 10 + (*p - '0');
      if (e > 18) return false;
    }
    for (long i = 0; i < e; i++) {
      int64_t *t = sign > 0 ? &num : &den;
      if (*t > INT64_MAX / 10) return false;
      *t *= 10;
    }
  }
  if (*p) return false;
  /* reduce by common factors of 2 and 5 so printing stays short */
  while (den % 2 == 0 && num % 2 == 0) den /= 2, num /= 2;
  while (den % 5 == 0 && num % 5 == 0) den /= 5, num /= 5;
  out->num = num;
  out->den = den;
  return true;
}
