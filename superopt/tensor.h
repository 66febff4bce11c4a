/* tensor.h — the tensor operators shared by programs, kernel graphs and block graphs.
 *
 * One table (AX_TOP_LIST) defines every operator a program, a pre-defined kernel or a
 * block graph can apply: its name, its operand counts and which of its attributes it
 * takes. Shape inference (ax_tensor_infer) and evaluation (ax_tensor_apply) read it, so
 * a program's `matmul` and a block graph's `matmul` are the same code; the three IRs only
 * differ in what surrounds the operators (maps, loops, accumulators).
 *
 * Tensors are dense and row-major. Their elements belong to a value domain (domain.h):
 * doubles for the float interpreter, Zp x Zq pairs for the finite-field one. The
 * evaluation here never looks inside an element; it moves bytes and calls the domain.
 *
 * Semantics (also in docs/superopt.md):
 *   add sub mul div  element-wise with broadcasting: shapes are aligned on the right, a
 *                    missing dim counts as 1, every pair of dims is equal or one is 1.
 *   neg exp square sqrt silu   element-wise; silu(x) = x / (1 + exp(-x)).
 *   matmul(A, B)     A [..., m, k] x B [..., k, n] -> [..., m, n]; the leading (batch)
 *                    dims broadcast like element-wise operands.
 *   sum(X, axis=a [, to=t])    sums along a; the axis is kept with size t (default 1): the
 *                    axis is cut into chunks of t consecutive elements which are added
 *                    (out[i] = sum_j X[j*t + i]), Mirage's reduction to dimx.
 *   mean(X, axis=a)  sum / size of the axis (kept with size 1).
 *   rms_norm(X, axis=a)        X / sqrt(mean(X*X, axis=a)), same shape.
 *   reshape(X, [d...])         row-major reinterpretation, same element count.
 *   broadcast(X, [d...])       numpy broadcast_to.
 *   repeat(X, axis=a, times=n) each element repeated n times along a (repeat_interleave).
 *   concat(X, Y, ..., axis=a)  all other dims equal.
 *   const            a scalar rational constant (from a literal such as 4096 or 0.5). */
#ifndef AX_TENSOR_H
#define AX_TENSOR_H

#include "dsl/arena.h"

#define AX_MAXRANK 8
#define AX_MAXIN 8     /* operands of one operator (concat is the only variadic one) */

typedef struct AxShape {
  int rank;
  int64_t dim[AX_MAXRANK];
} AxShape;

/* Storage types of programs and μGraphs. ORDER DTYPE */
typedef enum { AX_DT_F16, AX_DT_BF16, AX_DT_F32 } AxDtype;

/* An exact rational constant num/den (den > 0). */
typedef struct AxRat {
  int64_t num, den;
} AxRat;

/* Attribute flags of the operator table. */
enum {
  AX_TA_AXIS = 1,     /* axis = a */
  AX_TA_TO = 2,       /* to = t */
  AX_TA_SHAPE = 4,    /* [d, ...] */
  AX_TA_TIMES = 8,    /* times = n */
  AX_TA_VALUE = 16,   /* the constant */
};

/* ORDER TOP: X(ENUM, "name", min operands, max operands (-1: variadic), attributes, class) */
#define AX_TOP_LIST(X)                                            \
  X(INPUT, "input", 0, 0, 0, AX_TC_SOURCE)                        \
  X(CONST, "const", 0, 0, AX_TA_VALUE, AX_TC_SOURCE)              \
  X(ADD, "add", 2, 2, 0, AX_TC_BINARY)                            \
  X(SUB, "sub", 2, 2, 0, AX_TC_BINARY)                            \
  X(MUL, "mul", 2, 2, 0, AX_TC_BINARY)                            \
  X(DIV, "div", 2, 2, 0, AX_TC_BINARY)                            \
  X(NEG, "neg", 1, 1, 0, AX_TC_UNARY)                             \
  X(EXP, "exp", 1, 1, 0, AX_TC_UNARY)                             \
  X(SQUARE, "square", 1, 1, 0, AX_TC_UNARY)                       \
  X(SQRT, "sqrt", 1, 1, 0, AX_TC_UNARY)                           \
  X(SILU, "silu", 1, 1, 0, AX_TC_UNARY)                           \
  X(MATMUL, "matmul", 2, 2, 0, AX_TC_MATMUL)                      \
  X(SUM, "sum", 1, 1, AX_TA_AXIS | AX_TA_TO, AX_TC_REDUCE)        \
  X(MEAN, "mean", 1, 1, AX_TA_AXIS, AX_TC_REDUCE)                 \
  X(RMS_NORM, "rms_norm", 1, 1, AX_TA_AXIS, AX_TC_NORM)           \
  X(RESHAPE, "reshape", 1, 1, AX_TA_SHAPE, AX_TC_LAYOUT)          \
  X(BROADCAST, "broadcast", 1, 1, AX_TA_SHAPE, AX_TC_LAYOUT)      \
  X(REPEAT, "repeat", 1, 1, AX_TA_AXIS | AX_TA_TIMES, AX_TC_LAYOUT) \
  X(CONCAT, "concat", 2, AX_MAXIN, AX_TA_AXIS, AX_TC_LAYOUT)

typedef enum {
  AX_TC_SOURCE, AX_TC_BINARY, AX_TC_UNARY, AX_TC_MATMUL, AX_TC_REDUCE, AX_TC_NORM,
  AX_TC_LAYOUT,
} AxTClass;

typedef enum {
#define X(e, name, lo, hi, at, cl) AX_TOP_##e,
  AX_TOP_LIST(X)
#undef X
  AX_TOP_COUNT
} AxTOp;

typedef struct AxTOpSpec {
  const char *name;
  int min_in, max_in;
  unsigned attrs;     /* AX_TA_* this operator takes */
  AxTClass cls;
} AxTOpSpec;

/* The attributes of one application. `axis` is already normalized (0 <= axis < rank)
 * once ax_tensor_infer has accepted it; `to` is 0 when not written. */
typedef struct AxTAttrs {
  int axis;
  bool axis_set;
  int64_t to;
  int64_t times;
  AxShape shape;
  AxRat value;
} AxTAttrs;

const AxTOpSpec *ax_tensor_spec(AxTOp op);
bool ax_tensor_lookup(const char *name, AxTOp *out);
const char *ax_tensor_opname(AxTOp op);
bool ax_tensor_is_elementwise(AxTOp op);   /* binary and unary classes */

const char *ax_dtype_name(AxDtype t);
bool ax_dtype_lookup(const char *name, AxDtype *out);
size_t ax_dtype_bytes(AxDtype t);

int64_t ax_shape_numel(const AxShape *s);
bool ax_shape_equal(const AxShape *a, const AxShape *b);
/* Writes "[16, 4096]" into buf (always NUL-terminated). Returns buf. */
char *ax_shape_str(const AxShape *s, char *buf, size_t n);
/* numpy broadcasting of two shapes; false when some pair of dims is neither equal nor 1. */
bool ax_shape_broadcast(const AxShape *a, const AxShape *b, AxShape *out);

/* Shape inference: the result shape of applying op to operands of shapes in[0..nin).
 * Normalizes at->axis (a negative axis counts from the end; an unset axis means the last).
 * On failure returns false and writes a message (without the operator's name, which the
 * caller prefixes) into err. */
bool ax_tensor_infer(AxTOp op, AxTAttrs *at, const AxShape *const *in, int nin, AxShape *out,
                     char *err, size_t errn);

/* A dense row-major tensor whose elements belong to some domain (size bytes each). */
typedef struct AxTensor {
  AxShape shape;
  void *data;        /* owned by whoever made the tensor (an arena or the interpreter) */
} AxTensor;

struct AxDomain;

/* Evaluates op over the domain: out->shape must be the inferred shape and out->data hold
 * room for its elements. Operands are borrowed. Scratch memory comes from `scratch` (an
 * arena the caller frees or resets). */
void ax_tensor_apply(const struct AxDomain *d, AxArena *scratch, AxTOp op, const AxTAttrs *at,
                     const AxTensor *const *in, int nin, AxTensor *out);

/* Copies the box [off, off+box.shape) of src into dst (dst->shape is the box's size), or
 * (store) the whole of src into dst at offset off. Element size esz. */
void ax_tensor_copy_box(size_t esz, const AxTensor *src, const int64_t *off, AxTensor *dst);
void ax_tensor_store_box(size_t esz, const AxTensor *src, AxTensor *dst, const int64_t *off);

/* Parses a decimal literal ("4096", "0.5", "1e-3") into an exact rational. */
bool ax_rat_parse(const char *text, AxRat *out);

#endif
