/* tensor.c — shapes, storage types, and the building blocks pop.c's rows are
 * made of. */
#include "superopt/ir/tensor.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "base/decimal.h"

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

bool ax_shape_squeeze_equal(const AxTShape *a, const AxTShape *b) {
  int i = 0, j = 0;
  for (;;) {
    while (i < a->rank && a->dim[i] == 1) i++;
    while (j < b->rank && b->dim[j] == 1) j++;
    if (i == a->rank || j == b->rank) return i == a->rank && j == b->rank;
    if (a->dim[i++] != b->dim[j++]) return false;
  }
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

bool ax_tensor_fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return false;
}

bool ax_tensor_norm_axis(AxTAttrs *at, int r, char *err, size_t n) {
  if (r == 0) return ax_tensor_fail(err, n, "needs an operand with at least one dimension");
  if (!at->axis_set) {
    at->axis = r - 1;
    at->axis_set = true;
  }
  if (at->axis < -r || at->axis >= r)
    return ax_tensor_fail(err, n, "axis %d is out of range for rank %d", at->axis, r);
  if (at->axis < 0) at->axis += r;
  return true;
}

/* ---- building blocks ---------------------------------------------------------------------- */

AxTensor ax_tensor_scratch(AxArena *a, const AxTDomain *d, const AxTShape *s) {
  AxTensor t = {*s, ax_arena_alloc(a, (size_t)ax_shape_numel(s) * d->size + 1)};
  return t;
}

size_t ax_tensor_bcast_off(const AxTShape *s, const AxTShape *out, const int64_t *idx) {
  size_t off = 0;
  int shift = out->rank - s->rank;
  for (int i = 0; i < s->rank; i++) {
    int64_t k = s->dim[i] == 1 ? 0 : idx[i + shift];
    off = off * (size_t)s->dim[i] + (size_t)k;
  }
  return off;
}

bool ax_tensor_next_index(int64_t *idx, const AxTShape *s, int r) {
  for (int i = r - 1; i >= 0; i--) {
    if (++idx[i] < s->dim[i]) return true;
    idx[i] = 0;
  }
  return false;
}

void ax_tensor_binary(const AxTDomain *d, AxOp op, const AxTensor *a, const AxTensor *b,
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
    size_t oa = ax_tensor_bcast_off(&a->shape, o, idx), ob = ax_tensor_bcast_off(&b->shape, o, idx);
    d->binary(d, op, last, po, (const char *)a->data + oa * d->size, sa,
              (const char *)b->data + ob * d->size, sb);
    po += last * d->size;
  } while (ax_tensor_next_index(idx, o, o->rank - 1));
}

void ax_tensor_split3(const AxTShape *s, int axis, size_t *outer, size_t *len, size_t *inner) {
  *outer = *inner = 1;
  for (int i = 0; i < axis; i++) *outer *= (size_t)s->dim[i];
  for (int i = axis + 1; i < s->rank; i++) *inner *= (size_t)s->dim[i];
  *len = (size_t)s->dim[axis];
}

void ax_tensor_sum(const AxTDomain *d, const AxTensor *x, int axis, int64_t to, AxTensor *out) {
  ax_tensor_fold(d, AX_OP_ADD, x, axis, to, out);
}

void ax_tensor_fold(const AxTDomain *d, AxOp op, const AxTensor *x, int axis, int64_t to,
                    AxTensor *out) {
  size_t outer, len, inner, es = d->size;
  ax_tensor_split3(&x->shape, axis, &outer, &len, &inner);
  size_t t = (size_t)(to ? to : 1), chunk = t * inner, nchunks = len / t;
  for (size_t o = 0; o < outer; o++) {
    const char *src = (const char *)x->data + o * len * inner * es;
    char *dst = (char *)out->data + o * chunk * es;
    memcpy(dst, src, chunk * es);
    /* a fold of fresh values: one draw per element instead of one per step (tensor.h) */
    size_t from = d->fresh_order && !d->exact && (op == AX_OP_MAX || op == AX_OP_MIN) && nchunks > 1
                      ? nchunks - 1 : 1;
    for (size_t j = from; j < nchunks; j++)
      d->binary(d, op, chunk, dst, dst, 1, src + j * chunk * es, 1);
  }
}

void ax_tensor_scale(const AxTDomain *d, AxTensor *t, AxRat c) {
  char k[64];
  AX_ASSERT(d->size <= sizeof k);
  d->constant(d, c, k);
  size_t n = (size_t)ax_shape_numel(&t->shape);
  d->binary(d, AX_OP_MUL, n, t->data, t->data, 1, k, 0);
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
  } while (ax_tensor_next_index(idx, s, r - 1));
}

void ax_tensor_copy_box(size_t esz, const AxTensor *src, const int64_t *off, AxTensor *dst) {
  box(esz, (AxTensor *)src, off, dst, 0);
}

void ax_tensor_store_box(size_t esz, const AxTensor *src, AxTensor *dst, const int64_t *off) {
  box(esz, dst, off, (AxTensor *)src, 1);
}

/* digits ["." digits] [("e"|"E") ["+"|"-"] digits], exactly, while it fits in int64. */
bool ax_rat_parse(const char *text, AxRat *out) {
  int64_t num, den;
  if (!ax_decimal_parse(text, &num, &den)) return false;
  out->num = num;
  out->den = den;
  return true;
}

/* Rounds to a binary format with `mant` fraction bits and exponent range [emin, emax]
 * (of normal numbers); below emin the spacing stays that of emin (subnormals). */
static double round_fmt(double x, int mant, int emin, int emax) {
  if (!isfinite(x) || x == 0) return x;
  int e;
  frexp(x, &e);              /* x = f * 2^e, 0.5 <= |f| < 1: the unit exponent is e-1 */
  int ue = e - 1;
  if (ue < emin) ue = emin;
  double ulp = ldexp(1.0, ue - mant);
  double r = nearbyint(x / ulp) * ulp;   /* default rounding mode: nearest, ties even */
  double maxv = ldexp(2.0 - ldexp(1.0, -mant), emax);
  if (fabs(r) > maxv) return x > 0 ? INFINITY : -INFINITY;
  return r;
}

double ax_dtype_round(AxDtype t, double x) {
  switch (t) {
  case AX_DT_F16: return round_fmt(x, 10, -14, 15);
  case AX_DT_BF16: return round_fmt(x, 7, -126, 127);
  case AX_DT_F32: return (double)(float)x;
  }
  AX_UNREACHABLE();
  return x;
}

const char *const *ax_tattrs_bound_names(unsigned flag) {
  static const char *const slice[] = {"start", "limit", "stride"}, *const pad[] = {"low", "high", "interior"};
  return flag == AX_TA_PAD ? pad : slice;
}
