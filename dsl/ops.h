/* ops.h — the one operator table of axle: rules, tensor programs, kernel graphs and block
 * graphs all name their operators from it.
 *
 * Every tensor operator is one line of AX_OP_LIST: its enum constant, its name, the
 * spelling programs and μGraphs use when it differs (an alias kept so that existing files
 * parse unchanged: rules write `dot`, `reduce`, `constant`; programs write `matmul`, `sum`,
 * and constants as literals), the levels where it may appear, and per level its operand
 * counts and attributes. An operator that exists at several levels is one entry with one
 * meaning: a program's `add` with numpy broadcasting is the rule-level `add` of its
 * operands broadcast to a common shape, a program's `matmul` is the rule-level `dot`
 * contracting the inner axis with the leading axes as batch axes, a program's `sum(X, axis
 * = a)` is the rule-level `reduce` over a with the axis kept with size 1 (docs/language.md,
 * "One operator vocabulary", states the correspondence operator by operator).
 *
 * Rule-level attributes are in ops.c (same ORDER); program-level attributes are the
 * AX_TA_* flags of the table. The checker, the printer, the denotations, program lowering,
 * the .mug parser, the interpreters and the documentation all read this table; adding an
 * operator means one line here, then what each of its levels needs: for rules its row in
 * dsl/check.c's `checks` and in semantics/denote.c's `dens` (a unit test fails while
 * either is missing); shape inference and evaluation in superopt/ir/tensorop.c for programs. */
#ifndef AX_OPS_H
#define AX_OPS_H

#include "base/base.h"

/* How an operator's element types combine (the rule checker's typing rule). */
typedef enum {
  AX_ET_NUM,      /* numeric operands of one type; result the same type */
  AX_ET_REAL,     /* real operands; result real (exp) */
  AX_ET_BOOL,     /* boolean operands; result bool */
  AX_ET_ANY,      /* operands of one type (any); result the same */
  AX_ET_CMP,      /* numeric operands of one type; result bool */
  AX_ET_EQ,       /* operands of one type (any); result bool */
  AX_ET_SELECT,   /* bool predicate, two operands of one type; result that type */
  AX_ET_NONE,     /* no operands: iota (result int) */
  AX_ET_GATHER,   /* operand 1 of any type, operand 2 int (the indices); result operand 1's */
  AX_ET_SCATTER,  /* operands 1 and 3 numeric of one type, operand 2 int; result that type */
} AxElemRule;

/* Operands of one program-level application (concat is the only variadic one). */
#define AX_MAXIN 8

/* Where an operator may appear. */
enum {
  AX_LV_RULE = 1,    /* in rules (the verifier's denotations) */
  AX_LV_PROG = 2,    /* called by name in programs and as a pre-defined kernel operator */
  AX_LV_BLOCK = 4,   /* as a block-graph operator */
  AX_LV_SOURCE = 8,  /* at the program/μGraph levels only as a declaration or a literal
                        (input, constants), never called by name there */
};

/* Program/μGraph attribute flags (AX_TA_*): what a program-level application takes. */
enum {
  AX_TA_AXIS = 1,     /* axis = a */
  AX_TA_TO = 2,       /* to = t */
  AX_TA_SHAPE = 4,    /* [d, ...] */
  AX_TA_TIMES = 8,    /* times = n */
  AX_TA_VALUE = 16,   /* the constant */
  AX_TA_PERM = 32,    /* with AX_TA_SHAPE: the [a, ...] list holds axes of the operand, not a
                         shape (transpose: a permutation; reverse: the axes it reverses), so
                         0 is a valid entry */
  AX_TA_SLICE = 64,   /* start = [..], limit = [..] [, stride = [..]]: one entry per axis */
  AX_TA_PAD = 128,    /* low = [..], high = [..] [, interior = [..]]: one entry per axis */
};

/* Program/μGraph operator classes (how shape inference and the analyses treat them). */
typedef enum {
  AX_TC_NONE,      /* not a program-level operator */
  AX_TC_SOURCE, AX_TC_BINARY, AX_TC_UNARY, AX_TC_MATMUL, AX_TC_REDUCE, AX_TC_NORM,
  AX_TC_LAYOUT,
} AxOpClass;

#define R_ AX_LV_RULE
#define P_ AX_LV_PROG
#define B_ AX_LV_BLOCK
#define S_ AX_LV_SOURCE
/* ORDER OP: X(ENUM, "name", "program spelling" or NULL, levels,
 *             rule: min operands, max operands (-1: any), element rule,
 *             program: min operands, max operands, AX_TA_* attributes, class) */
#define AX_OP_LIST(X)                                                                    \
  X(CONSTANT, "constant", "const", R_ | S_, 1, 1, AX_ET_ANY, 0, 0, AX_TA_VALUE, AX_TC_SOURCE) \
  X(IOTA, "iota", NULL, R_ | P_ | B_, 0, 0, AX_ET_NONE, 0, 0, AX_TA_SHAPE | AX_TA_AXIS, AX_TC_LAYOUT)                    \
  X(BROADCAST, "broadcast", NULL, R_ | P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_SHAPE, AX_TC_LAYOUT) \
  X(ADD, "add", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(SUB, "sub", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(MUL, "mul", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(DIV, "div", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(REM, "rem", NULL, R_, 2, 2, AX_ET_NUM, 0, 0, 0, AX_TC_NONE)                        \
  X(MAX, "max", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(MIN, "min", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)            \
  X(NEG, "neg", NULL, R_ | P_ | B_, 1, 1, AX_ET_NUM, 1, 1, 0, AX_TC_UNARY)             \
  X(ABS, "abs", NULL, R_ | P_ | B_, 1, 1, AX_ET_NUM, 1, 1, 0, AX_TC_UNARY)             \
  X(EXP, "exp", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)            \
  X(AND, "and", NULL, R_, 2, 2, AX_ET_BOOL, 0, 0, 0, AX_TC_NONE)                       \
  X(OR, "or", NULL, R_, 2, 2, AX_ET_BOOL, 0, 0, 0, AX_TC_NONE)                         \
  X(NOT, "not", NULL, R_, 1, 1, AX_ET_BOOL, 0, 0, 0, AX_TC_NONE)                       \
  X(EQ, "eq", NULL, R_ | P_ | B_, 2, 2, AX_ET_EQ, 2, 2, 0, AX_TC_BINARY)                           \
  X(NE, "ne", NULL, R_ | P_ | B_, 2, 2, AX_ET_EQ, 2, 2, 0, AX_TC_BINARY)                           \
  X(LT, "lt", NULL, R_ | P_ | B_, 2, 2, AX_ET_CMP, 2, 2, 0, AX_TC_BINARY)                          \
  X(LE, "le", NULL, R_ | P_ | B_, 2, 2, AX_ET_CMP, 2, 2, 0, AX_TC_BINARY)                          \
  X(GT, "gt", NULL, R_ | P_ | B_, 2, 2, AX_ET_CMP, 2, 2, 0, AX_TC_BINARY)                          \
  X(GE, "ge", NULL, R_ | P_ | B_, 2, 2, AX_ET_CMP, 2, 2, 0, AX_TC_BINARY)                          \
  X(SELECT, "select", NULL, R_ | P_ | B_, 3, 3, AX_ET_SELECT, 3, 3, 0, AX_TC_LAYOUT)               \
  X(CLAMP, "clamp", NULL, R_, 3, 3, AX_ET_NUM, 0, 0, 0, AX_TC_NONE)                    \
  X(PAD, "pad", NULL, R_ | P_, 2, 2, AX_ET_ANY, 2, 2, AX_TA_PAD, AX_TC_LAYOUT)          \
  X(PAD_LOW, "pad_low", NULL, R_, 2, 2, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)                \
  X(SLICE, "slice", NULL, R_ | P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_SLICE, AX_TC_LAYOUT)    \
  X(DYNAMIC_SLICE, "dynamic_slice", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)    \
  X(DYNAMIC_UPDATE_SLICE, "dynamic_update_slice", NULL, R_, 2, 2, AX_ET_ANY, 0, 0, 0, AX_TC_NONE) \
  X(CONCAT, "concat", NULL, R_ | P_ | B_, 2, -1, AX_ET_ANY, 2, AX_MAXIN, AX_TA_AXIS, AX_TC_LAYOUT) \
  X(RELABEL, "relabel", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)                \
  X(REVERSE, "reverse", NULL, R_ | P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_SHAPE | AX_TA_PERM, AX_TC_LAYOUT) \
  X(RESHAPE_DEGENERATE, "reshape_degenerate", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE) \
  X(REDUCE, "reduce", "sum", R_ | P_ | B_, 1, 1, AX_ET_NUM, 1, 1, AX_TA_AXIS | AX_TA_TO, AX_TC_REDUCE) \
  X(DOT, "dot", "matmul", R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_MATMUL)       \
  X(CONV, "conv", NULL, R_, 2, 2, AX_ET_NUM, 0, 0, 0, AX_TC_NONE)                      \
  X(INPUT, "input", NULL, S_, 0, 0, AX_ET_ANY, 0, 0, 0, AX_TC_SOURCE)                  \
  X(SQUARE, "square", NULL, R_ | P_ | B_, 1, 1, AX_ET_NUM, 1, 1, 0, AX_TC_UNARY)            \
  X(SQRT, "sqrt", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)               \
  X(SILU, "silu", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)               \
  X(MEAN, "mean", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, AX_TA_AXIS, AX_TC_REDUCE)     \
  X(RMS_NORM, "rms_norm", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, AX_TA_AXIS, AX_TC_NORM) \
  X(RESHAPE, "reshape", NULL, P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_SHAPE, AX_TC_LAYOUT)    \
  X(REPEAT, "repeat", NULL, P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_AXIS | AX_TA_TIMES, AX_TC_LAYOUT) \
  X(LOG, "log", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)            \
  X(POW, "pow", NULL, R_ | P_ | B_, 2, 2, AX_ET_NUM, 2, 2, 0, AX_TC_BINARY)             \
  X(RSQRT, "rsqrt", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)          \
  X(RESHAPE_SPLIT, "reshape_split", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)    \
  X(RESHAPE_MERGE, "reshape_merge", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)    \
  X(GATHER, "gather", NULL, R_, 2, 2, AX_ET_GATHER, 0, 0, 0, AX_TC_NONE)                \
  X(SCATTER, "scatter", NULL, R_, 3, 3, AX_ET_SCATTER, 0, 0, 0, AX_TC_NONE)                \
  X(FLATTEN, "flatten", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)                 \
  X(UNFLATTEN, "unflatten", NULL, R_, 1, 1, AX_ET_ANY, 0, 0, 0, AX_TC_NONE)             \
  X(TANH, "tanh", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)                \
  X(LOGISTIC, "logistic", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)       \
  X(REDUCE_MAX, "reduce_max", NULL, P_ | B_, 1, 1, AX_ET_NUM, 1, 1, AX_TA_AXIS | AX_TA_TO, AX_TC_REDUCE) \
  X(REDUCE_MIN, "reduce_min", NULL, P_ | B_, 1, 1, AX_ET_NUM, 1, 1, AX_TA_AXIS | AX_TA_TO, AX_TC_REDUCE) \
  X(TRANSPOSE, "transpose", NULL, P_, 1, 1, AX_ET_ANY, 1, 1, AX_TA_SHAPE | AX_TA_PERM, AX_TC_LAYOUT) \
  X(TO_F16, "to_f16", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)            \
  X(TO_BF16, "to_bf16", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)          \
  X(TO_F32, "to_f32", NULL, R_ | P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)            \
  X(SIN, "sin", NULL, P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)                      \
  X(COS, "cos", NULL, P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)                      \
  X(ERF, "erf", NULL, P_ | B_, 1, 1, AX_ET_REAL, 1, 1, 0, AX_TC_UNARY)

typedef enum {
#define X(e, name, pname, lv, lo, hi, et, plo, phi, pat, cl) AX_OP_##e,
  AX_OP_LIST(X)
#undef X
  AX_OP_COUNT
} AxOp;

/* What a rule-level attribute's value must be. */
typedef enum {
  AX_AT_SHAPE,     /* {axis: size map, ...}: every listed axis gets a size (new axes) */
  AX_AT_AXMAP,     /* {axis: map, ...}: per-axis integers; unlisted axes take the default */
  AX_AT_AXIS,      /* one aggregated axis */
  AX_AT_AXES,      /* [axis, ...] */
  AX_AT_AXIDX,     /* [axis, ...] or {axis: index map, ...}: reduced axes, optional indices */
  AX_AT_RELABEL,   /* {axis: axis, ...}: a renaming */
} AxAttrKind;

/* The value an unlisted axis takes in an AX_AT_AXMAP attribute. */
typedef enum { AX_DEF_NONE, AX_DEF_ZERO, AX_DEF_ONE, AX_DEF_SIZE } AxAttrDefault;

typedef struct AxAttrSpec {
  const char *name;
  AxAttrKind kind;
  bool required;
  AxAttrDefault dflt;
} AxAttrSpec;

#define AX_MAX_ATTRS 10

typedef struct AxOpSpec {
  const char *name;                 /* the rule-level name (and the canonical one) */
  const char *pname;                /* program/μGraph spelling (== name unless aliased) */
  unsigned levels;                  /* AX_LV_* */
  /* rule level */
  int min_operands, max_operands;   /* max -1: variadic */
  AxElemRule elem;
  const AxAttrSpec *attrs;          /* AX_MAX_ATTRS entries, terminated by name == NULL;
                                       positional order */
  /* program / μGraph level */
  int min_in, max_in;
  unsigned tattrs;                  /* AX_TA_* */
  AxOpClass cls;
} AxOpSpec;

const AxOpSpec *ax_op_spec(AxOp op);
/* By rule-level name: only operators that may appear in rules. */
bool ax_op_lookup(const char *name, AxOp *out);
/* By program spelling: only operators programs, kernel graphs and block graphs call by
 * name (level AX_LV_PROG or AX_LV_BLOCK). */
bool ax_op_lookup_prog(const char *name, AxOp *out);
const char *ax_op_name(AxOp op);    /* rule-level name */
const char *ax_op_pname(AxOp op);   /* program/μGraph spelling */
bool ax_op_is_elementwise(AxOp op); /* program-level unary and binary classes */
const AxAttrSpec *ax_op_attr(AxOp op, const char *name, int *index);   /* NULL if none */
int ax_op_nattrs(AxOp op);

#endif
