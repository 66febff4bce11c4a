/* tensor.h — the tensors of programs, kernel graphs and block graphs: shapes,
 * storage types, attributes, the value-domain interface and the building blocks the
 * operators' rows are made of.
 *
 * The operators are the program-level entries of axle's one operator table (AX_OP_LIST in
 * dsl/ops.h, shared with rules): their spelling, their operand counts, which attributes
 * they take (AX_TA_*) and where they may appear (AX_LV_PROG, AX_LV_BLOCK). What each one
 * means is its row (ewop.h for the element-wise ones, pop.h for the others, whose functions
 * are built from the blocks below); shape inference and evaluation dispatch through the
 * rows in tensorop.h, so a program's `matmul` and a block graph's `matmul` are the same
 * code; the three IRs only differ in what surrounds the operators (maps, loops,
 * accumulators). This header is the bottom of superopt/ir: it includes no other module of
 * superopt/, so the rows can use its types. AxTShape is a concrete shape
 * (semantics/denote.h's AxShape is a rule's symbolic one).
 *
 * Tensors are dense and row-major. Their elements belong to a value domain (AxTDomain
 * below): doubles for the float interpreter, Zp x Zq pairs for the finite-field one. The
 * evaluation here never looks inside an element; it moves bytes and calls the domain.
 *
 * Semantics (also in docs/superopt.md; in terms of the rule-level operators in
 * docs/language.md, "One operator vocabulary"):
 *   add sub mul div  element-wise with broadcasting: shapes are aligned on the right, a
 *                    missing dim counts as 1, every pair of dims is equal or one is 1.
 *   neg exp square sqrt silu   element-wise; silu(x) = x / (1 + exp(-x)).
 *   matmul(A, B)     A [..., m, k] x B [..., k, n] -> [..., m, n]; the leading (batch)
 *                    dims broadcast like element-wise operands.
 *   sum(X, axis=a [, to=t])    sums along a; the axis is kept with size t (default 1): the
 *                    axis is cut into chunks of t consecutive elements which are added
 *                    (out[i] = sum_j X[j*t + i]), Mirage's reduction to dimx.
 *   mean(X, axis=a)  sum / size of the axis (kept with size 1).
 *   reduce_max(X, axis=a [, to=t]), reduce_min   like sum with max (min) in place of +.
 *   rms_norm(X, axis=a)        X / sqrt(mean(X*X, axis=a)), same shape.
 *   reshape(X, [d...])         row-major reinterpretation, same element count.
 *   broadcast(X, [d...])       numpy broadcast_to.
 *   repeat(X, axis=a, times=n) each element repeated n times along a (repeat_interleave).
 *   concat(X, Y, ..., axis=a)  all other dims equal.
 *   const            a scalar rational constant (from a literal such as 4096 or 0.5).
 *   eq ne lt le gt ge (X, Y)   element-wise comparisons with broadcasting: 1.0 where the
 *                    relation holds, else 0.0 (IEEE: NaN compares unequal to everything).
 *   select(M, A, B)  M, A, B of one shape: A where M is not 0, else B.
 *   iota([d...], axis=a)       the index along a: out[i0, ..., ir] = i_a.
 *   slice(X, start=[..], limit=[..], stride=[..])  out[i] = X[start + i * stride] per axis,
 *                    limit exclusive (HLO's slice).
 *   pad(X, V, low=[..], high=[..], interior=[..])  HLO's pad: interior copies of V between
 *                    neighbours, low before and high after each axis (negative: cropped);
 *                    V has one element.
 *   reverse(X, [a...])         the listed axes reversed.
 *   abs log      element-wise; pow(X, Y) element-wise X^Y with broadcasting. */
#ifndef AX_TENSOR_H
#define AX_TENSOR_H

#include "base/arena.h"
#include "dsl/ops.h"

#define AX_MAXRANK 8

typedef struct AxTShape {
  int rank;
  int64_t dim[AX_MAXRANK];
} AxTShape;

/* Storage types of programs and μGraphs. */
typedef enum { AX_DT_F16, AX_DT_BF16, AX_DT_F32 } AxDtype;

/* An exact rational constant num/den (den > 0). */
typedef struct AxRat {
  int64_t num, den;
} AxRat;

/* The attributes of one application. `axis` is already normalized (0 <= axis < rank)
 * once ax_tensorop_infer has accepted it; `to` is 0 when not written. */
typedef struct AxTAttrs {
  int axis;
  bool axis_set;
  int64_t to;
  int64_t times;
  AxTShape shape;
  AxRat value;
  /* AX_TA_SLICE: start, limit, stride; AX_TA_PAD: low, high, interior; one entry per axis
   * of the operand (int32: a slice or a pad of one axis past 2^31 is refused where parsed) */
  int32_t lo[AX_MAXRANK], hi[AX_MAXRANK], step[AX_MAXRANK];
  int nbound;   /* entries written in each of them (the operand's rank when valid) */
} AxTAttrs;

/* The three list attributes of AX_TA_SLICE or AX_TA_PAD (flag): their names, in the order
 * lo, hi, step ("start", "limit", "stride" / "low", "high", "interior"); the third may be
 * left out (stride 1, interior 0). Static strings. */
const char *const *ax_tattrs_bound_names(unsigned flag);

const char *ax_dtype_name(AxDtype t);
bool ax_dtype_lookup(const char *name, AxDtype *out);
size_t ax_dtype_bytes(AxDtype t);
/* x rounded to storage type t, round-to-nearest-even as the CUDA conversions
 * (__float2half_rn, __float2bfloat16_rn) do: subnormals kept, overflow to ±inf (f16: from
 * 65520 up), NaN and ±inf unchanged. The float interpreter's storage rounding and the
 * to_f16 / to_bf16 / to_f32 operators (ewop.h) both use it. */
double ax_dtype_round(AxDtype t, double x);

int64_t ax_shape_numel(const AxTShape *s);
bool ax_shape_equal(const AxTShape *a, const AxTShape *b);
/* The dims of a other than 1, in order, against b's: false when they differ. A reshape
 * between such shapes moves no element relative to the others. */
bool ax_shape_squeeze_equal(const AxTShape *a, const AxTShape *b);
/* Writes "[16, 4096]" into buf (always NUL-terminated). Returns buf. */
char *ax_shape_str(const AxTShape *s, char *buf, size_t n);
/* numpy broadcasting of two shapes; false when some pair of dims is neither equal nor 1. */
bool ax_shape_broadcast(const AxTShape *a, const AxTShape *b, AxTShape *out);

/* A dense row-major tensor whose elements belong to some domain (size bytes each). */
typedef struct AxTensor {
  AxTShape shape;
  void *data;        /* owned by whoever made the tensor (an arena or the interpreter) */
} AxTensor;

/* A value domain: the arithmetic an evaluation asks for (equiv/values.h has the two
 * domains, doubles and Zp x Zq). An evaluation moves tensor elements around without looking
 * at them and asks the domain for arithmetic. Every callback works on runs of elements so
 * that the per-element cost of the indirect call stays out of inner loops. A domain is a
 * value (copied freely); ctx is borrowed. (AxTDomain computes on tensor elements of
 * programs and μGraphs; semantics/domain.h's AxDomain is the verifier's, over symbolic and
 * exact values.) It lives here, below the operators' rows (ewop.h, pop.h), whose functions
 * take it, and the domains that fill it in are above them. */
typedef struct AxTDomain AxTDomain;
struct AxTDomain {
  const char *name;
  size_t size;    /* bytes of one element */
  void *ctx;      /* borrowed; the domain's parameters and counters */
  /* Set by a caller that needs only the primary component of the results (the field's p
   * side): a domain may then leave the secondary one undefined and skip its work. */
  bool primary_only;
  /* out[i] = a[i*sa] op b[i*sb], i < n; op is ADD SUB MUL or DIV; sa, sb are 0 or 1. */
  void (*binary)(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                 const void *b, size_t sb);
  /* out[i] = op(a[i]); op is NEG EXP SQUARE SQRT or SILU. out may equal a. */
  void (*unary)(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a);
  /* out[m x n] = a[m x k] . b[k x n], all contiguous row-major. */
  void (*matmul)(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                 const void *b);
  /* out[0] = the constant c. */
  void (*constant)(const AxTDomain *d, AxRat c, void *out);
  /* Rounds n stored elements to storage type t (NULL for exact domains). */
  void (*round)(const AxTDomain *d, AxDtype t, size_t n, void *data);
  /* out[i] = m[i] != 0 ? a[i] : b[i], i < n (select). A domain in which a mask element has
   * no truth value (the field: a 1.0/0.0 mask of data is no field value) must make the
   * evaluation inconclusive, never pick a branch. */
  void (*select)(const AxTDomain *d, size_t n, void *out, const void *m, const void *a,
                 const void *b);
  /* FlashAttention's guard on a running max (interp.c): out[i] = raw[i], or 0 where
   * raw[i] is -inf, i < n. NULL in a domain without infinities (the field). */
  void (*guard)(const AxTDomain *d, size_t n, void *out, const void *raw);
  /* Set by the interpreter for one application whose operands it has proved to be small
   * exact integers computed from indices only (superopt/equiv/exact.h): a comparison of
   * them, or a select on such a mask, is then decided element by element, exactly, in
   * every domain. Clear: a domain without order reads them as above. */
  bool exact;
  /* Set by a domain whose max and min read neither operand (the field: each is a fresh
   * variable, values.c): a fold of them is then one application, since the values of the
   * steps before the last one are drawn and discarded. Unset: every step is applied. */
  bool fresh_order;
};


/* ---- building blocks of the operators' rows (pop.c) ----------------------------------- */

/* Shapes stay within 2^32 elements (and so every product fits in int64). */
#define AX_TENSOR_MAX_ELEMS ((int64_t)1 << 32)

/* Writes a message into err (n bytes) and returns false. */
bool ax_tensor_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Normalizes at->axis against rank r (negative: from the end; unset: the last axis); false
 * with a message when r is 0 or the axis is out of range. */
bool ax_tensor_norm_axis(AxTAttrs *at, int r, char *err, size_t n);
/* A tensor of shape s with room for its elements, from arena a. */
AxTensor ax_tensor_scratch(AxArena *a, const AxTDomain *d, const AxTShape *s);
/* Element offset of multi-index idx (of shape out) in a tensor of shape s broadcast to out
 * (right-aligned; size-1 dims have stride 0). */
size_t ax_tensor_bcast_off(const AxTShape *s, const AxTShape *out, const int64_t *idx);
/* Advances idx over the first r dims of shape s; false after the last index. */
bool ax_tensor_next_index(int64_t *idx, const AxTShape *s, int r);
/* The outer x len x inner decomposition of shape s around axis. */
void ax_tensor_split3(const AxTShape *s, int axis, size_t *outer, size_t *len, size_t *inner);
/* out = a op b, an element-wise binary operator with broadcasting. */
void ax_tensor_binary(const AxTDomain *d, AxOp op, const AxTensor *a, const AxTensor *b,
                      AxTensor *out);
/* out = x summed along axis down to `to` elements (0: 1), Mirage's reduction to dimx. */
void ax_tensor_sum(const AxTDomain *d, const AxTensor *x, int axis, int64_t to, AxTensor *out);
/* The same with the element-wise binary operator op in place of the addition (max, min:
 * reduce_max, reduce_min); chunks are combined left to right. */
void ax_tensor_fold(const AxTDomain *d, AxOp op, const AxTensor *x, int axis, int64_t to,
                    AxTensor *out);
/* t *= c, element by element. */
void ax_tensor_scale(const AxTDomain *d, AxTensor *t, AxRat c);

/* Copies the box [off, off+box.shape) of src into dst (dst->shape is the box's size), or
 * (store) the whole of src into dst at offset off. Element size esz. */
void ax_tensor_copy_box(size_t esz, const AxTensor *src, const int64_t *off, AxTensor *dst);
void ax_tensor_store_box(size_t esz, const AxTensor *src, AxTensor *dst, const int64_t *off);

/* Parses a decimal literal ("4096", "0.5", "1e-3") into an exact rational. */
bool ax_rat_parse(const char *text, AxRat *out);

#endif
