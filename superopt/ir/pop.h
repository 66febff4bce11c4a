/* pop.h — the program-level operators that are not element-wise: one row each.
 *
 * ewop.h gives every element-wise operator (class UNARY or BINARY of dsl/ops.h) one row;
 * this header does the same for the others that programs, kernel graphs and block graphs
 * use: const, input, matmul, sum, mean, rms_norm, reshape, broadcast, repeat, concat,
 * reduce_max, reduce_min, transpose, select, iota, slice, pad, reverse. A row says what the
 * operator means in every layer of superopt/, and each layer reads the
 * row instead of switching over operators:
 *
 *   shapes (tensorop.c)      infer: the result's shape (operand count already checked)
 *   evaluation (tensorop.c)  apply: the operator over a value domain (AxTDomain)
 *   Lax analysis (lax.c)     lax: how the abstract value follows from the operands'
 *   pruning (prune.c)        abs: its abstract expression in the normal form
 *   contraction              contract: which operand dim it sums over (matmul: operand 0's
 *     (prune.c, generate.c)  last; sum, mean, rms_norm: `axis`), so the search's dimension
 *                            classes and the pruning's reduced size agree (ax_pop_reduced)
 *   cost model (cost.c)      math (tensor- or CUDA-core), flops per operand element; free:
 *                            no kernel of its own (a constant is an argument or a literal,
 *                            a reshape a view, an input is there); literal: a constant
 *   search (generate.c)      also: the operators the search may need to build it from
 *                            its parts (mean: sum; rms_norm: div, eq_rms_def)
 *
 * gpu/cuda.c has its own table over the same operators (how a pre-defined kernel and a
 * block operator are emitted); superopt/ never includes gpu/. Where the search inserts a
 * reduction or a matmul into a candidate is the generator's choice (generate.c), not a row.
 *
 * Adding such an operator: its line in AX_OP_LIST (dsl/ops.h), its row in pop.c with its
 * infer and apply functions, its row in gpu/cuda.c's table, and its tests; check_pop.c
 * fails while a program-level operator that is not element-wise has no complete row. A new
 * kind of Lax or abstract-expression rule (AxPopLax, AxPopAbs) is a case in lax.c or
 * prune.c. */
#ifndef AX_POP_H
#define AX_POP_H

#include "superopt/ir/tensor.h"

/* How the Lax analysis (lax.h) derives the result's abstract value. ORDER: lax.c. */
typedef enum {
  AX_POP_LAX_CONST,        /* a constant */
  AX_POP_LAX_MATMUL,       /* products summed over the contracted dim */
  AX_POP_LAX_SUM,          /* a sum along `axis` (to `to`) */
  AX_POP_LAX_NORM,         /* x / sqrt(mean(x·x)) */
  AX_POP_LAX_KEEP,         /* the operands' values moved around, each axis kept (repeat) */
  AX_POP_LAX_SCRAMBLE,     /* the axes scramble: what varied may vary on every axis (reshape) */
  AX_POP_LAX_ALIGN,        /* the operand's axes moved to the right of the result's (broadcast) */
  AX_POP_LAX_CONCAT,       /* the operands side by side along `axis` */
  AX_POP_LAX_FRESH,        /* a fresh variable per element (reduce_max, reduce_min: the field
                            * has no order; equiv decides only graphs invariant to it) */
  AX_POP_LAX_ORDER,        /* reads a mask's truth, which the field lacks (select): the Lax
                            * check refuses the graph, so the test cannot decide it */
} AxPopLax;

/* The abstract expression (prune.h) of the result. */
typedef enum {
  AX_POP_ABS_NONE,         /* outside the normal form: no expression (input, layouts) */
  AX_POP_ABS_ONE,          /* a constant: its value (ax_prune_const), not an application */
  AX_POP_ABS_SUM_PRODUCT,  /* a sum of the operands' product (matmul, eq_matmul_tiles) */
  AX_POP_ABS_SUM,          /* a sum of the operand (sum) */
  AX_POP_ABS_MEAN,         /* a sum of the operand over the size (mean, eq_mean_def) */
  AX_POP_ABS_RMS,          /* x · sqrt(sum(x²/m))⁻¹ (eq_rms_def) */
  AX_POP_ABS_EXTREMUM,     /* an uninterpreted function of the operand and the size reduced
                              (reduce_max, reduce_min: ax_prune_extremum) */
  AX_POP_ABS_FIRST,        /* its first operand's (concat: the search builds no concat;
                              broadcast: expressions forget shapes, eq_broadcast_add/mul) */
} AxPopAbs;

/* The operand dim an application sums over. */
typedef enum {
  AX_POP_CONTRACT_NONE,
  AX_POP_CONTRACT_LAST,    /* operand 0's last dim, whole (matmul) */
  AX_POP_CONTRACT_AXIS,    /* operand 0's `axis`, down to `to` elements (sum, mean, rms_norm) */
} AxPopContract;

/* Where its arithmetic runs (cost.c). */
typedef enum {
  AX_POP_MATH_NONE,        /* moves or makes values, no arithmetic */
  AX_POP_MATH_TENSOR,      /* tensor cores: 2·out·k FLOPs; a library (cuBLAS-like) kernel at the
                            * kernel level, a fragment MMA in a block (bank conflicts count) */
  AX_POP_MATH_CUDA,        /* CUDA cores: flops per element of operand 0 */
} AxPopMath;

typedef struct AxPOp {
  AxOp op;
  /* The result's shape (operand count already checked); normalizes at->axis. On failure
   * false and a message (without the operator's name) in err. */
  bool (*infer)(AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out, char *err,
                size_t errn);
  /* Evaluates the operator (tensorop.h's ax_tensorop_apply contract); NULL: never evaluated
   * (an input is given, not computed). */
  void (*apply)(const AxTDomain *d, AxArena *scratch, const AxTAttrs *at,
                const AxTensor *const *in, int nin, AxTensor *out);
  AxPopLax lax;
  AxPopAbs abs;
  AxPopContract contract;
  AxPopMath math;
  double flops;            /* AX_POP_MATH_CUDA: FLOPs per element of operand 0 */
  bool free;               /* launches no kernel of its own at the kernel level */
  bool literal;            /* a constant: an inline literal in a block, no memory */
  uint64_t also;           /* bits (1 << op) of the operators the search builds it from */
} AxPOp;

/* The rows, indexed by AxOp; infer is NULL where an operator has none. */
extern const AxPOp ax_pop_rows[AX_OP_COUNT];

/* The row of op (borrowed, static), or NULL when op has none (element-wise and rule-only
 * operators). */
static inline const AxPOp *ax_pop_get(AxOp op) {
  return (unsigned)op < AX_OP_COUNT && ax_pop_rows[op].infer ? &ax_pop_rows[op] : NULL;
}

/* Whether op is a constant (an inline literal; false for any other op). */
static inline bool ax_pop_literal(AxOp op) {
  const AxPOp *p = ax_pop_get(op);
  return p && p->literal;
}

/* Whether op's arithmetic runs on tensor cores (matmul; false for any other op). */
static inline bool ax_pop_tensor_core(AxOp op) {
  const AxPOp *p = ax_pop_get(op);
  return p && p->math == AX_POP_MATH_TENSOR;
}

/* The dim of operand 0 (shape in0) that an application of op sums over, or -1. */
int ax_pop_contracted_dim(AxOp op, const AxTShape *in0, int axis);

/* The reduced size of an application (prune.h): the contracted dim's size (over `to` for
 * an `axis` reduction, to > 0), or 1 when op sums over nothing. */
int64_t ax_pop_reduced(AxOp op, const AxTShape *in0, int axis, int64_t to);

/* How a pre-defined reduction or normalization along an axis (sum, mean, reduce_max,
 * reduce_min, rms_norm: the rows with AX_POP_CONTRACT_AXIS) runs on the GPU — gpu/cuda.c
 * emits this kernel and cost.c prices it, so the two cannot drift apart. Operand x is seen
 * as outer x (len / to) x to x inner; each output reduces `len / to` elements, `to · inner`
 * apart.
 *   rows: the reduced elements of an output are adjacent (to = 1, nothing after the axis):
 *     `lanes` threads share a row (32 W: W whole warps, W = 1, 2, 4 or 8, about 16
 *     elements a lane), the row's statistic by warp shuffles and, for W > 1, across the
 *     row's warps; 256-thread blocks hold 8 / W rows;
 *   columns (otherwise): one thread per output, consecutive threads on adjacent outputs, so
 *     each step of every thread's loop is one coalesced access of the block.
 * Every element is read once for the statistic, and rms_norm reads it once more for its
 * output (from L1/L2: the row or column was just read by the same block). */
typedef struct AxPopRowPlan {
  bool rows;         /* adjacent elements (a warp or more per row), else columns */
  int64_t outputs;   /* rows or columns: outer · to · inner */
  int64_t len;       /* elements each reduces: len / to */
  int64_t stride;    /* between them, in elements: 1 for rows, to · inner for columns */
  int64_t lanes;     /* threads per row (32 W); 1 for columns */
  int64_t per_block; /* rows (or columns) per 256-thread block */
  int64_t groups;    /* blocks' worth of them: ceil(outputs / per_block) */
  int64_t blocks;    /* the grid: groups, at most 65535 (a grid-stride loop takes the rest) */
} AxPopRowPlan;

#define AX_POP_ROW_THREADS 256
#define AX_POP_MAX_GRID 65535

/* The plan of a reduction of x along axis down to `to` elements (0 or 1: one). */
void ax_pop_rowplan(const AxTShape *x, int axis, int64_t to, AxPopRowPlan *out);

#endif
