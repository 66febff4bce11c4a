/* ewop.h — the program-level element-wise operators of the superoptimizer: one row each.
 *
 * An element-wise operator of programs, kernel graphs and block graphs (class AX_TC_UNARY
 * or AX_TC_BINARY of dsl/ops.h: add, sub, mul, div, max, min, neg, exp, square, sqrt, rsqrt,
 * silu, tanh, logistic) means
 * something in every layer of superopt/ and gpu/. Its row says all of it, and each layer
 * reads the row instead of switching over operators:
 *
 *   float domain (values.c)   f64_un / f64_bin: the double function over runs of elements
 *   field domain (values.c)   ff_un / ff_bin: the Zp x Zq function (field.h, Mirage Table 3);
 *                             reads_q: it reads its operand's secondary component as an
 *                             exponent (exp, silu, tanh, logistic), so that component must be computed
 *                             (interp.c's liveness) and its own is undefined
 *   Lax analysis (lax.c)      lax: how the abstract value (degree, exponential terms,
 *                             denominators) of the result follows from its operands'
 *   pruning (prune.c)         abs, abs_pow: its abstract expression in the normal form
 *   cost model (cost.c)       flops: CUDA-core FLOPs per element
 *   generator (generate.c)    insert: whether, and in which order, the search inserts it as
 *                             a unary node (0: never); commutes: a binary operator whose
 *                             operands may swap (the generator builds one order, the
 *                             canonical keys sort them)
 *   CUDA (gpu/cuda.c)         cuda: its f32 expression over the variables a0, a1
 *
 * Adding an element-wise operator: its line in AX_OP_LIST (dsl/ops.h, class UNARY or
 * BINARY), its row in ewop.c with its double and field functions, and its tests;
 * check_ewop.c fails while a program-level element-wise operator has no complete row. A
 * new kind of Lax or abstract-expression rule (AxEwLax, AxEwAbs) is a case in lax.c
 * or prune.c. gpu/ reads this header; superopt/ never includes gpu/. */
#ifndef AX_EWOP_H
#define AX_EWOP_H

#include "dsl/ops.h"
#include "superopt/arith/field.h"

/* How the Lax analysis (lax.h) derives the result's abstract value. ORDER: lax.c. */
typedef enum {
  AX_EWOP_LAX_SAME,        /* the operand's (neg: a constant factor) */
  AX_EWOP_LAX_SUM,         /* binary: a sum of two fractions (add, sub) */
  AX_EWOP_LAX_PRODUCT,     /* binary: a product (mul); unary: the operand times itself (square) */
  AX_EWOP_LAX_QUOTIENT,    /* binary: a quotient (div) */
  AX_EWOP_LAX_EXP,         /* one exponentiation of the operand (exp) */
  AX_EWOP_LAX_EXP_RATIO,   /* v·e^v / (1 + e^v): an exponentiation with a denominator (silu,
                              and e^v / (1 + e^v): logistic) */
  AX_EWOP_LAX_EXP_TANH,    /* (e^2v - 1) / (e^2v + 1): two exponential terms over two (tanh) */
  AX_EWOP_LAX_OPAQUE,      /* outside the fragment: an uninterpreted function (sqrt) */
  AX_EWOP_LAX_OPAQUE_INV,  /* one over an uninterpreted function: 1 / sqrt (rsqrt) */
  AX_EWOP_LAX_ORDER,       /* needs an order, which a finite field lacks (max, min): the
                              Lax check refuses the graph, so the test cannot decide it */
} AxEwLax;

/* The abstract expression (prune.h) of the result. */
typedef enum {
  AX_EWOP_ABS_SAME,        /* the operand's */
  AX_EWOP_ABS_ADD,         /* an addition (add) */
  AX_EWOP_ABS_SUB,         /* x + (-1)·y (sub, eq_sub_def) */
  AX_EWOP_ABS_NEG,         /* (-1)·x (neg, eq_neg_def) */
  AX_EWOP_ABS_POWER,       /* a product of operand powers abs_pow[0], abs_pow[1] (mul, div, square) */
  AX_EWOP_ABS_EXP,         /* exp, which turns an addition into a product (eq_exp_add) */
  AX_EWOP_ABS_RSQRT,       /* sqrt(x)^-1 (rsqrt, eq_rsqrt_def) */
  AX_EWOP_ABS_LOGISTIC,    /* (1 + exp(-x))^-1 (logistic, by its definition) */
  AX_EWOP_ABS_SILU,        /* x·(1 + exp(-x))^-1 (silu, eq_silu_def) */
  AX_EWOP_ABS_OPAQUE,      /* a function of its operands known only by its name (sqrt, tanh,
                              max, min) */
} AxEwAbs;

typedef struct AxEwOp {
  AxOp op;
  int arity;               /* 1 or 2 (dsl/ops.h: min_in == max_in) */
  /* out[i] = op(a[i]), i < n; out may equal a. Set when arity is 1. */
  void (*f64_un)(size_t n, double *out, const double *a);
  /* out[i] = a[i*sa] op b[i*sb], i < n; sa, sb are 0 or 1; out may equal a or b. Arity 2. */
  void (*f64_bin)(size_t n, double *out, const double *a, size_t sa, const double *b, size_t sb);
  /* The same in Zp x Zq. keep_q false: the caller needs no secondary component of the
   * result, which may then be left undefined (AX_FF_UNDEF). f is borrowed; its counter of
   * inconclusive operations (divzero) may grow. */
  void (*ff_un)(AxField *f, size_t n, AxFF *out, const AxFF *a, bool keep_q);
  void (*ff_bin)(AxField *f, size_t n, AxFF *out, const AxFF *a, size_t sa, const AxFF *b, size_t sb,
                 bool keep_q);
  bool reads_q;            /* the operand's secondary component is an exponent (exp, silu,
                              tanh, logistic) */
  AxEwLax lax;
  AxEwAbs abs;
  int abs_pow[2];          /* AX_EWOP_ABS_POWER: the operands' exponents */
  double flops;            /* CUDA-core FLOPs per element (a transcendental costs a few) */
  int insert;              /* the generator's order of unary insertions, from 1; 0: never */
  bool commutes;           /* binary: op(a, b) = op(b, a) (add, mul) */
  const char *cuda;        /* f32 expression over a0 (and a1), e.g. "expf(a0)" */
  int to_dtype;            /* a conversion: 1 + the AxDtype (tensor.h) its result is stored
                              in at the kernel-graph level (programs, pre-defined operators);
                              0: the operands' type, as for every other operator */
} AxEwOp;


/* The rows, indexed by AxOp; arity 0 where an operator has none. Read them through
 * ax_ewop_get. */
extern const AxEwOp ax_ewop_rows[AX_OP_COUNT];

/* The row of op (borrowed, static), or NULL when op is not a program-level element-wise
 * operator. Inline: the interpreters ask once per run of elements. */
static inline const AxEwOp *ax_ewop_get(AxOp op) {
  return (unsigned)op < AX_OP_COUNT && ax_ewop_rows[op].arity ? &ax_ewop_rows[op] : NULL;
}

/* The storage type (an AxDtype of tensor.h) of op's result at the kernel-graph level, given
 * its operands' type dt: a conversion's own, else dt. */
static inline int ax_ewop_result_dtype(AxOp op, int dt) {
  const AxEwOp *e = ax_ewop_get(op);
  return e && e->to_dtype ? e->to_dtype - 1 : dt;
}

/* Whether op is a commutative binary element-wise operator (false for any other op). */
static inline bool ax_ewop_commutes(AxOp op) {
  const AxEwOp *e = ax_ewop_get(op);
  return e && e->commutes;
}

/* Whether op reads its operand's secondary field component (false for non-element-wise). */
bool ax_ewop_reads_q(AxOp op);

/* The unary operators the search inserts, in the order of their `insert` ranks (borrowed,
 * static; *n of them). Thread-safe. */
const AxOp *ax_ewop_generated(int *n);

#endif
