/* pop.c — the rows of the program-level operators that are not element-wise (pop.h), and
 * their shape rules and evaluators. tensor.c owns the machinery they share (broadcast
 * offsets, index walks, sums along an axis). */
#include "superopt/ir/pop.h"

#include <inttypes.h>
#include <string.h>

#define FAIL(...) ax_tensor_fail(err, errn, __VA_ARGS__)

/* ---- shape rules ---------------------------------------------------------------------- */

/* const: a scalar; input: the caller sets the shape. */
static bool infer_source(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                         char *err, size_t errn) {
  (void)at, (void)in, (void)nin, (void)err, (void)errn;
  out->rank = 0;
  return true;
}

static bool infer_matmul(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                         char *err, size_t errn) {
  (void)at, (void)nin;
  char b1[96], b2[96];
  const AxTShape *a = in[0], *b = in[1];
  if (a->rank < 2 || b->rank < 2)
    return FAIL("needs operands of rank 2 or more, got %s and %s", ax_shape_str(a, b1, sizeof b1),
                ax_shape_str(b, b2, sizeof b2));
  if (a->dim[a->rank - 1] != b->dim[b->rank - 2])
    return FAIL("inner dimensions differ: %s x %s (%" PRId64 " vs %" PRId64 ")",
                ax_shape_str(a, b1, sizeof b1), ax_shape_str(b, b2, sizeof b2),
                a->dim[a->rank - 1], b->dim[b->rank - 2]);
  AxTShape ba = *a, bb = *b, bo;
  ba.rank -= 2;
  bb.rank -= 2;
  if (!ax_shape_broadcast(&ba, &bb, &bo))
    return FAIL("batch dimensions of %s and %s do not broadcast", ax_shape_str(a, b1, sizeof b1),
                ax_shape_str(b, b2, sizeof b2));
  *out = bo;
  out->dim[out->rank++] = a->dim[a->rank - 2];
  out->dim[out->rank++] = b->dim[b->rank - 1];
  return true;
}

/* sum (with `to`) and mean (without): the axis kept with size `to` (default 1). */
static bool infer_sum(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out, char *err,
                      size_t errn) {
  (void)nin;
  if (!ax_tensor_norm_axis(at, in[0]->rank, err, errn)) return false;
  *out = *in[0];
  int64_t len = in[0]->dim[at->axis], to = at->to ? at->to : 1;
  if (to < 1 || len % to != 0)
    return FAIL("cannot sum axis %d of size %" PRId64 " to size %" PRId64
                " (the size must divide it)", at->axis, len, to);
  out->dim[at->axis] = to;
  return true;
}

static bool infer_mean(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out, char *err,
                       size_t errn) {
  if (!ax_tensor_norm_axis(at, in[0]->rank, err, errn)) return false;
  if (at->to) return FAIL("takes no 'to'");
  return infer_sum(at, in, nin, out, err, errn);
}

static bool infer_norm(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out, char *err,
                       size_t errn) {
  (void)nin;
  if (!ax_tensor_norm_axis(at, in[0]->rank, err, errn)) return false;
  *out = *in[0];
  return true;
}

static bool infer_reshape(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                          char *err, size_t errn) {
  (void)nin;
  char b1[96], b2[96];
  if (ax_shape_numel(&at->shape) != ax_shape_numel(in[0]))
    return FAIL("cannot reshape %s (%" PRId64 " elements) to %s (%" PRId64 ")",
                ax_shape_str(in[0], b1, sizeof b1), ax_shape_numel(in[0]),
                ax_shape_str(&at->shape, b2, sizeof b2), ax_shape_numel(&at->shape));
  *out = at->shape;
  return true;
}

static bool infer_broadcast(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                            char *err, size_t errn) {
  (void)nin;
  char b1[96], b2[96];
  AxTShape o;
  if (at->shape.rank < in[0]->rank || !ax_shape_broadcast(in[0], &at->shape, &o) ||
      !ax_shape_equal(&o, &at->shape))
    return FAIL("cannot broadcast %s to %s", ax_shape_str(in[0], b1, sizeof b1),
                ax_shape_str(&at->shape, b2, sizeof b2));
  *out = at->shape;
  return true;
}

static bool infer_repeat(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                         char *err, size_t errn) {
  (void)nin;
  if (!ax_tensor_norm_axis(at, in[0]->rank, err, errn)) return false;
  if (at->times > AX_TENSOR_MAX_ELEMS / in[0]->dim[at->axis])
    return FAIL("times = %" PRId64 " is out of range", at->times);
  *out = *in[0];
  out->dim[at->axis] *= at->times;
  return true;
}

static bool infer_concat(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                         char *err, size_t errn) {
  char b1[96], b2[96];
  if (!ax_tensor_norm_axis(at, in[0]->rank, err, errn)) return false;
  *out = *in[0];
  for (int i = 1; i < nin; i++) {
    bool ok = in[i]->rank == in[0]->rank;
    for (int k = 0; ok && k < in[0]->rank; k++)
      if (k != at->axis && in[i]->dim[k] != in[0]->dim[k]) ok = false;
    if (!ok)
      return FAIL("operand %d has shape %s, which does not fit %s along axis %d", i + 1,
                  ax_shape_str(in[i], b1, sizeof b1), ax_shape_str(in[0], b2, sizeof b2), at->axis);
    out->dim[at->axis] += in[i]->dim[at->axis];
  }
  return true;
}

/* transpose(X, [p0, ...]): result dim k is operand dim p[k] (numpy's and HLO's transpose);
 * the list must name every operand axis once. */
static bool infer_transpose(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                            char *err, size_t errn) {
  (void)nin;
  char b1[96];
  const AxTShape *x = in[0];
  if (at->shape.rank != x->rank)
    return FAIL("the permutation lists %d axes, the operand %s has %d", at->shape.rank,
                ax_shape_str(x, b1, sizeof b1), x->rank);
  bool seen[AX_MAXRANK] = {0};
  for (int k = 0; k < x->rank; k++) {
    int64_t a = at->shape.dim[k];
    if (a < 0 || a >= x->rank || seen[a])
      return FAIL("%s is not a permutation of the axes 0..%d", ax_shape_str(&at->shape, b1, sizeof b1),
                  x->rank - 1);
    seen[a] = true;
  }
  out->rank = x->rank;
  for (int k = 0; k < x->rank; k++) out->dim[k] = x->dim[at->shape.dim[k]];
  return true;
}

/* select(M, A, B): three operands of one shape (HLO's select; a mask of another shape is
 * broadcast first, explicitly) */
static bool infer_select(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                         char *err, size_t errn) {
  (void)at, (void)nin;
  char b1[96], b2[96];
  for (int i = 1; i < 3; i++)
    if (!ax_shape_equal(in[i], in[0]))
      return FAIL("operand %d has shape %s, the mask %s (select takes three of one shape)", i + 1,
                  ax_shape_str(in[i], b1, sizeof b1), ax_shape_str(in[0], b2, sizeof b2));
  *out = *in[0];
  return true;
}

/* iota([d...], axis = a): the shape is the list; the axis (default the last) must be in it */
static bool infer_iota(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                       char *err, size_t errn) {
  (void)in, (void)nin;
  if (!ax_tensor_norm_axis(at, at->shape.rank, err, errn)) return false;
  *out = at->shape;
  return true;
}

/* slice(X, start = s, limit = l, stride = p), HLO's slice: per axis 0 <= s <= l <= n,
 * p >= 1, out = ceil((l - s) / p) >= 1 (an empty slice is no tensor here). */
static bool infer_slice(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                        char *err, size_t errn) {
  (void)nin;
  char b1[96];
  const AxTShape *x = in[0];
  if (at->nbound != x->rank)
    return FAIL("start, limit and stride list %d axes, the operand %s has %d", at->nbound,
                ax_shape_str(x, b1, sizeof b1), x->rank);
  out->rank = x->rank;
  for (int k = 0; k < x->rank; k++) {
    int64_t s = at->lo[k], l = at->hi[k], p = at->step[k];
    if (p < 1) return FAIL("axis %d: the stride %" PRId64 " is not positive", k, p);
    if (s < 0 || l > x->dim[k] || s >= l)
      return FAIL("axis %d: [%" PRId64 ":%" PRId64 "] is not a nonempty part of 0..%" PRId64, k, s, l,
                  x->dim[k]);
    out->dim[k] = (l - s + p - 1) / p;
  }
  return true;
}

/* pad(X, V, low = a, high = b, interior = c), HLO's pad: per axis out = a + n + (n - 1)·c + b
 * with c >= 0; a negative a or b crops; V holds one element; out >= 1. */
static bool infer_pad(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                      char *err, size_t errn) {
  (void)nin;
  char b1[96];
  const AxTShape *x = in[0];
  if (ax_shape_numel(in[1]) != 1)
    return FAIL("the padding value %s is not one element", ax_shape_str(in[1], b1, sizeof b1));
  if (at->nbound != x->rank)
    return FAIL("low, high and interior list %d axes, the operand %s has %d", at->nbound,
                ax_shape_str(x, b1, sizeof b1), x->rank);
  out->rank = x->rank;
  for (int k = 0; k < x->rank; k++) {
    int64_t n = x->dim[k], c = at->step[k];
    if (c < 0) return FAIL("axis %d: the interior padding %" PRId64 " is negative", k, c);
    int64_t o = at->lo[k] + n + (n - 1) * c + at->hi[k];
    if (o < 1 || o > AX_TENSOR_MAX_ELEMS)
      return FAIL("axis %d: padding %" PRId64 ", %" PRId64 ", %" PRId64 " leaves %" PRId64
                  " elements of %" PRId64, k, (int64_t)at->lo[k], (int64_t)at->hi[k], c, o, n);
    out->dim[k] = o;
  }
  return true;
}

/* reverse(X, [a, ...]): the listed axes, each at most once, reversed; same shape. */
static bool infer_reverse(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                          char *err, size_t errn) {
  (void)nin;
  char b1[96];
  const AxTShape *x = in[0];
  bool seen[AX_MAXRANK] = {0};
  for (int k = 0; k < at->shape.rank; k++) {
    int64_t a = at->shape.dim[k];
    if (a < 0 || a >= x->rank || seen[a])
      return FAIL("axis %" PRId64 " is not an axis of %s or is listed twice", a,
                  ax_shape_str(x, b1, sizeof b1));
    seen[a] = true;
  }
  *out = *x;
  return true;
}

/* ---- evaluators ----------------------------------------------------------------------- */

static void apply_const(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                        const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)in, (void)nin;
  d->constant(d, at->value, out->data);
}

static void apply_matmul(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                         const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)at, (void)nin;
  const AxTensor *a = in[0], *b = in[1];
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
    size_t oa = ax_tensor_bcast_off(&ab, &ob, idx), obb = ax_tensor_bcast_off(&bb, &ob, idx);
    d->matmul(d, m, k, n, po, (const char *)a->data + oa * m * k * d->size,
              (const char *)b->data + obb * k * n * d->size);
    po += m * n * d->size;
  } while (ob.rank > 0 && ax_tensor_next_index(idx, &ob, ob.rank));
}

static void apply_sum(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                      const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  ax_tensor_sum(d, in[0], at->axis, at->to, out);
}

static void apply_max(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                      const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  ax_tensor_fold(d, AX_OP_MAX, in[0], at->axis, at->to, out);
}

static void apply_min(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                      const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  ax_tensor_fold(d, AX_OP_MIN, in[0], at->axis, at->to, out);
}

static void apply_mean(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                       const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  ax_tensor_sum(d, in[0], at->axis, 0, out);
  ax_tensor_scale(d, out, (AxRat){1, in[0]->shape.dim[at->axis]});
}

/* X / sqrt(mean(X*X, axis)) */
static void apply_rms_norm(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                           const AxTensor *const *in, int nin, AxTensor *out) {
  (void)nin;
  const AxTensor *x = in[0];
  AxTensor sq = ax_tensor_scratch(scratch, d, &x->shape);
  d->unary(d, AX_OP_SQUARE, (size_t)ax_shape_numel(&out->shape), sq.data, x->data);
  AxTShape rs = x->shape;
  rs.dim[at->axis] = 1;
  AxTensor r = ax_tensor_scratch(scratch, d, &rs);
  ax_tensor_sum(d, &sq, at->axis, 0, &r);
  ax_tensor_scale(d, &r, (AxRat){1, x->shape.dim[at->axis]});
  d->unary(d, AX_OP_SQRT, (size_t)ax_shape_numel(&rs), r.data, r.data);
  ax_tensor_binary(d, AX_OP_DIV, x, &r, out);
}

static void apply_reshape(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                          const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)at, (void)nin;
  memcpy(out->data, in[0]->data, (size_t)ax_shape_numel(&out->shape) * d->size);
}

/* out[i0, ..., ir] = in[j] with j[perm[k]] = i_k: the operand's strides, permuted */
static void apply_transpose(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                            const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  size_t es = d->size;
  const AxTShape *x = &in[0]->shape, *o = &out->shape;
  if (o->rank == 0) return;
  size_t xs[AX_MAXRANK], st[AX_MAXRANK];
  xs[x->rank - 1] = 1;
  for (int k = x->rank - 1; k > 0; k--) xs[k - 1] = xs[k] * (size_t)x->dim[k];
  for (int k = 0; k < o->rank; k++) st[k] = xs[at->shape.dim[k]];
  int64_t idx[AX_MAXRANK] = {0};
  char *po = out->data;
  do {
    size_t off = 0;
    for (int k = 0; k < o->rank; k++) off += (size_t)idx[k] * st[k];
    memcpy(po, (const char *)in[0]->data + off * es, es);
    po += es;
  } while (ax_tensor_next_index(idx, o, o->rank));
}

/* Operand strides of shape x (row-major), in elements. */
static void strides(const AxTShape *x, int64_t *xs) {
  if (x->rank == 0) return;
  xs[x->rank - 1] = 1;
  for (int k = x->rank - 1; k > 0; k--) xs[k - 1] = xs[k] * x->dim[k];
}

/* out[i] = in[start + i·stride], per axis */
static void apply_slice(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                        const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  size_t es = d->size;
  const AxTShape *o = &out->shape;
  int64_t xs[AX_MAXRANK], idx[AX_MAXRANK] = {0};
  strides(&in[0]->shape, xs);
  char *po = out->data;
  do {
    int64_t off = 0;
    for (int k = 0; k < o->rank; k++) off += (at->lo[k] + idx[k] * at->step[k]) * xs[k];
    memcpy(po, (const char *)in[0]->data + (size_t)off * es, es);
    po += es;
  } while (o->rank > 0 && ax_tensor_next_index(idx, o, o->rank));
}

/* out[j] = in[i] where j = low + i·(interior + 1) on every axis, else the value V */
static void apply_pad(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                      const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  size_t es = d->size;
  const AxTShape *o = &out->shape, *x = &in[0]->shape;
  int64_t xs[AX_MAXRANK], idx[AX_MAXRANK] = {0};
  strides(x, xs);
  char *po = out->data;
  do {
    int64_t off = 0;
    bool inside = true;
    for (int k = 0; k < o->rank && inside; k++) {
      int64_t y = idx[k] - at->lo[k], p = (int64_t)at->step[k] + 1;
      inside = y >= 0 && y % p == 0 && y / p < x->dim[k];
      off += inside ? y / p * xs[k] : 0;
    }
    memcpy(po, inside ? (const char *)in[0]->data + (size_t)off * es : (const char *)in[1]->data, es);
    po += es;
  } while (o->rank > 0 && ax_tensor_next_index(idx, o, o->rank));
}

/* out[i] = in[i with i_a -> n_a - 1 - i_a on the listed axes] */
static void apply_reverse(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                          const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  size_t es = d->size;
  const AxTShape *o = &out->shape;
  bool rev[AX_MAXRANK] = {0};
  for (int k = 0; k < at->shape.rank; k++) rev[at->shape.dim[k]] = true;
  int64_t xs[AX_MAXRANK], idx[AX_MAXRANK] = {0};
  strides(o, xs);
  char *po = out->data;
  do {
    int64_t off = 0;
    for (int k = 0; k < o->rank; k++) off += (rev[k] ? o->dim[k] - 1 - idx[k] : idx[k]) * xs[k];
    memcpy(po, (const char *)in[0]->data + (size_t)off * es, es);
    po += es;
  } while (o->rank > 0 && ax_tensor_next_index(idx, o, o->rank));
}

static void apply_broadcast(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                            const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)at, (void)nin;
  size_t es = d->size;
  const AxTShape *o = &out->shape;
  if (o->rank == 0) {
    memcpy(out->data, in[0]->data, es);
    return;
  }
  size_t last = (size_t)o->dim[o->rank - 1];
  bool rep = in[0]->shape.rank == 0 || in[0]->shape.dim[in[0]->shape.rank - 1] == 1;
  int64_t idx[AX_MAXRANK] = {0};
  char *po = out->data;
  do {
    const char *src = (const char *)in[0]->data + ax_tensor_bcast_off(&in[0]->shape, o, idx) * es;
    if (rep)
      for (size_t j = 0; j < last; j++) memcpy(po + j * es, src, es);
    else
      memcpy(po, src, last * es);
    po += last * es;
  } while (ax_tensor_next_index(idx, o, o->rank - 1));
}

static void apply_repeat(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                         const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)nin;
  size_t es = d->size, outer, len, inner;
  ax_tensor_split3(&in[0]->shape, at->axis, &outer, &len, &inner);
  size_t times = (size_t)at->times;
  char *po = out->data;
  for (size_t o = 0; o < outer; o++)
    for (size_t i = 0; i < len * times; i++) {
      memcpy(po, (const char *)in[0]->data + (o * len + i / times) * inner * es, inner * es);
      po += inner * es;
    }
}

static void apply_concat(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                         const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch;
  size_t es = d->size, outer, len, inner;
  ax_tensor_split3(&out->shape, at->axis, &outer, &len, &inner);
  char *po = out->data;
  for (size_t o = 0; o < outer; o++)
    for (int k = 0; k < nin; k++) {
      size_t lk = (size_t)in[k]->shape.dim[at->axis];
      memcpy(po, (const char *)in[k]->data + o * lk * inner * es, lk * inner * es);
      po += lk * inner * es;
    }
}

static void apply_select(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                         const AxTensor *const *in, int nin, AxTensor *out) {
  (void)scratch, (void)at, (void)nin;
  d->select(d, (size_t)ax_shape_numel(&out->shape), out->data, in[0]->data, in[1]->data,
            in[2]->data);
}

/* out[i0, ..., ir] = i_axis, an exact integer in every domain. Each index's constant is
 * made once and copied: the domain's constant is not cheap (a residue per prime), and a
 * mask's iota spans a whole score. */
static void apply_iota(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                       const AxTensor *const *in, int nin, AxTensor *out) {
  (void)in, (void)nin;
  size_t outer, len, inner, es = d->size;
  ax_tensor_split3(&out->shape, at->axis, &outer, &len, &inner);
  char *row = ax_arena_alloc(scratch, len * es + 1);
  for (size_t l = 0; l < len; l++) d->constant(d, (AxRat){(int64_t)l, 1}, row + l * es);
  char *po = out->data;
  for (size_t o = 0; o < outer; o++)
    for (size_t l = 0; l < len; l++)
      for (size_t i = 0; i < inner; i++, po += es) memcpy(po, row + l * es, es);
}

/* ---- the rows ------------------------------------------------------------------------- */

#define BIT(op) ((uint64_t)1 << (op))

const AxPOp ax_pop_rows[AX_OP_COUNT] = {
    [AX_OP_CONSTANT] = {.op = AX_OP_CONSTANT, .infer = infer_source, .apply = apply_const,
                        .lax = AX_POP_LAX_CONST, .abs = AX_POP_ABS_ONE, .free = true,
                        .literal = true},
    [AX_OP_INPUT] = {.op = AX_OP_INPUT, .infer = infer_source, .lax = AX_POP_LAX_CONST,
                     .abs = AX_POP_ABS_NONE, .free = true},
    [AX_OP_DOT] = {.op = AX_OP_DOT, .infer = infer_matmul, .apply = apply_matmul,
                   .lax = AX_POP_LAX_MATMUL, .abs = AX_POP_ABS_SUM_PRODUCT,
                   .contract = AX_POP_CONTRACT_LAST, .math = AX_POP_MATH_TENSOR},
    [AX_OP_REDUCE] = {.op = AX_OP_REDUCE, .infer = infer_sum, .apply = apply_sum,
                      .lax = AX_POP_LAX_SUM, .abs = AX_POP_ABS_SUM,
                      .contract = AX_POP_CONTRACT_AXIS, .math = AX_POP_MATH_CUDA, .flops = 1},
    [AX_OP_MEAN] = {.op = AX_OP_MEAN, .infer = infer_mean, .apply = apply_mean,
                    .lax = AX_POP_LAX_SUM, .abs = AX_POP_ABS_MEAN,
                    .contract = AX_POP_CONTRACT_AXIS, .math = AX_POP_MATH_CUDA, .flops = 1,
                    .also = BIT(AX_OP_REDUCE)},
    /* square, add, the root and the division: a few FLOPs per element */
    [AX_OP_RMS_NORM] = {.op = AX_OP_RMS_NORM, .infer = infer_norm, .apply = apply_rms_norm,
                        .lax = AX_POP_LAX_NORM, .abs = AX_POP_ABS_RMS,
                        .contract = AX_POP_CONTRACT_AXIS, .math = AX_POP_MATH_CUDA, .flops = 4,
                        .also = BIT(AX_OP_DIV)},
    [AX_OP_RESHAPE] = {.op = AX_OP_RESHAPE, .infer = infer_reshape, .apply = apply_reshape,
                       .lax = AX_POP_LAX_SCRAMBLE, .abs = AX_POP_ABS_NONE, .free = true},
    [AX_OP_BROADCAST] = {.op = AX_OP_BROADCAST, .infer = infer_broadcast, .apply = apply_broadcast,
                         .lax = AX_POP_LAX_ALIGN, .abs = AX_POP_ABS_FIRST},
    [AX_OP_REPEAT] = {.op = AX_OP_REPEAT, .infer = infer_repeat, .apply = apply_repeat,
                      .lax = AX_POP_LAX_KEEP, .abs = AX_POP_ABS_NONE},
    /* moves values: a pre-defined kernel of its own; the search builds none and fuses none */
    [AX_OP_TRANSPOSE] = {.op = AX_OP_TRANSPOSE, .infer = infer_transpose, .apply = apply_transpose,
                         .lax = AX_POP_LAX_SCRAMBLE, .abs = AX_POP_ABS_NONE},
    /* move values as transpose does: a pre-defined kernel each, none built or fused by the
     * search; pad's value is its second operand, read like any other */
    [AX_OP_SLICE] = {.op = AX_OP_SLICE, .infer = infer_slice, .apply = apply_slice,
                     .lax = AX_POP_LAX_SCRAMBLE, .abs = AX_POP_ABS_NONE},
    [AX_OP_PAD] = {.op = AX_OP_PAD, .infer = infer_pad, .apply = apply_pad,
                   .lax = AX_POP_LAX_SCRAMBLE, .abs = AX_POP_ABS_NONE},
    [AX_OP_REVERSE] = {.op = AX_OP_REVERSE, .infer = infer_reverse, .apply = apply_reverse,
                       .lax = AX_POP_LAX_SCRAMBLE, .abs = AX_POP_ABS_NONE},
    [AX_OP_CONCAT] = {.op = AX_OP_CONCAT, .infer = infer_concat, .apply = apply_concat,
                      .lax = AX_POP_LAX_CONCAT, .abs = AX_POP_ABS_FIRST},
    /* the field reads a max or min as a fresh variable (lax.h, docs/superopt.md) */
    [AX_OP_REDUCE_MAX] = {.op = AX_OP_REDUCE_MAX, .infer = infer_sum, .apply = apply_max,
                          .lax = AX_POP_LAX_FRESH, .abs = AX_POP_ABS_EXTREMUM,
                          .contract = AX_POP_CONTRACT_AXIS, .math = AX_POP_MATH_CUDA, .flops = 1},
    [AX_OP_REDUCE_MIN] = {.op = AX_OP_REDUCE_MIN, .infer = infer_sum, .apply = apply_min,
                          .lax = AX_POP_LAX_FRESH, .abs = AX_POP_ABS_EXTREMUM,
                          .contract = AX_POP_CONTRACT_AXIS, .math = AX_POP_MATH_CUDA, .flops = 1},
    /* a mask's choice has no field reading (values.c); the Lax check refuses it. A
     * pre-defined kernel of its own, as transpose: the search builds none and fuses none */
    [AX_OP_SELECT] = {.op = AX_OP_SELECT, .infer = infer_select, .apply = apply_select,
                      .lax = AX_POP_LAX_ORDER, .abs = AX_POP_ABS_NONE, .math = AX_POP_MATH_CUDA,
                      .flops = 1},
    /* exact integers in both domains: in the field an input-like leaf, the same on both sides */
    [AX_OP_IOTA] = {.op = AX_OP_IOTA, .infer = infer_iota, .apply = apply_iota,
                    .lax = AX_POP_LAX_CONST, .abs = AX_POP_ABS_NONE},
};

int ax_pop_contracted_dim(AxOp op, const AxTShape *in0, int axis) {
  const AxPOp *p = ax_pop_get(op);
  if (!p) return -1;
  switch (p->contract) {
  case AX_POP_CONTRACT_NONE: return -1;
  case AX_POP_CONTRACT_LAST: return in0->rank - 1;
  case AX_POP_CONTRACT_AXIS: return axis;
  }
  AX_UNREACHABLE();
  return -1;
}

int64_t ax_pop_reduced(AxOp op, const AxTShape *in0, int axis, int64_t to) {
  int k = ax_pop_contracted_dim(op, in0, axis);
  if (k < 0) return 1;
  if (ax_pop_get(op)->contract == AX_POP_CONTRACT_LAST) return in0->dim[k];
  return in0->dim[k] / (to > 0 ? to : 1);
}

/* W: whole warps per row, about 16 elements a lane (a 4096-long row: 8 warps, two 16-byte
 * loads of f16 a lane), at most the block's 8; rows of 512 or fewer: one warp. */
static int64_t row_warps(int64_t len) {
  int64_t w = 1;
  while (w < 8 && w * 2 * 32 * 16 <= len) w *= 2;
  return w;
}

void ax_pop_rowplan(const AxTShape *x, int axis, int64_t to, AxPopRowPlan *out) {
  size_t outer, len, inner;
  ax_tensor_split3(x, axis, &outer, &len, &inner);
  int64_t t = to > 0 ? to : 1;
  memset(out, 0, sizeof *out);
  out->outputs = (int64_t)outer * t * (int64_t)inner;
  out->len = (int64_t)len / t;
  out->rows = t * (int64_t)inner == 1;
  out->stride = out->rows ? 1 : t * (int64_t)inner;
  out->lanes = out->rows ? 32 * row_warps(out->len) : 1;
  out->per_block = AX_POP_ROW_THREADS / out->lanes;
  out->groups = (out->outputs + out->per_block - 1) / out->per_block;
  out->blocks = out->groups < AX_POP_MAX_GRID ? out->groups : AX_POP_MAX_GRID;
}
