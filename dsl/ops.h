/* ops.h — the operator table of the rule language.
 *
 * Every tensor operator a rule can apply is one line of AX_OP_LIST: its enum constant,
 * its name in the language, how many tensor operands it takes, and how its element types
 * combine. Its named attributes are in ops.c (same ORDER). The checker, the printer, the
 * denotations and the documentation all read this table; adding an operator means one
 * line here, its attributes, a checker case for its axes, and a denotation. */
#ifndef AX_OPS_H
#define AX_OPS_H

#include "dsl/base.h"

/* How an operator's element types combine (the checker's typing rule). */
typedef enum {
  AX_ET_NUM,      /* numeric operands of one type; result the same type */
  AX_ET_REAL,     /* real operands; result real (exp) */
  AX_ET_BOOL,     /* boolean operands; result bool */
  AX_ET_ANY,      /* operands of one type (any); result the same */
  AX_ET_CMP,      /* numeric operands of one type; result bool */
  AX_ET_EQ,       /* operands of one type (any); result bool */
  AX_ET_SELECT,   /* bool predicate, two operands of one type; result that type */
  AX_ET_NONE,     /* no operands: iota (result int) */
} AxElemRule;

/* ORDER OP: X(ENUM, "name", min operands, max operands (-1: any), element rule) */
#define AX_OP_LIST(X)                                           \
  X(CONSTANT, "constant", 1, 1, AX_ET_ANY)                      \
  X(IOTA, "iota", 0, 0, AX_ET_NONE)                             \
  X(BROADCAST, "broadcast", 1, 1, AX_ET_ANY)                    \
  X(ADD, "add", 2, 2, AX_ET_NUM)                                \
  X(SUB, "sub", 2, 2, AX_ET_NUM)                                \
  X(MUL, "mul", 2, 2, AX_ET_NUM)                                \
  X(DIV, "div", 2, 2, AX_ET_NUM)                                \
  X(REM, "rem", 2, 2, AX_ET_NUM)                                \
  X(MAX, "max", 2, 2, AX_ET_NUM)                                \
  X(MIN, "min", 2, 2, AX_ET_NUM)                                \
  X(NEG, "neg", 1, 1, AX_ET_NUM)                                \
  X(ABS, "abs", 1, 1, AX_ET_NUM)                                \
  X(EXP, "exp", 1, 1, AX_ET_REAL)                               \
  X(AND, "and", 2, 2, AX_ET_BOOL)                               \
  X(OR, "or", 2, 2, AX_ET_BOOL)                                 \
  X(NOT, "not", 1, 1, AX_ET_BOOL)                               \
  X(EQ, "eq", 2, 2, AX_ET_EQ)                                   \
  X(NE, "ne", 2, 2, AX_ET_EQ)                                   \
  X(LT, "lt", 2, 2, AX_ET_CMP)                                  \
  X(LE, "le", 2, 2, AX_ET_CMP)                                  \
  X(GT, "gt", 2, 2, AX_ET_CMP)                                  \
  X(GE, "ge", 2, 2, AX_ET_CMP)                                  \
  X(SELECT, "select", 3, 3, AX_ET_SELECT)                       \
  X(CLAMP, "clamp", 3, 3, AX_ET_NUM)                            \
  X(PAD, "pad", 2, 2, AX_ET_ANY)                                \
  X(PAD_LOW, "pad_low", 2, 2, AX_ET_ANY)                        \
  X(SLICE, "slice", 1, 1, AX_ET_ANY)                            \
  X(DYNAMIC_SLICE, "dynamic_slice", 1, 1, AX_ET_ANY)            \
  X(DYNAMIC_UPDATE_SLICE, "dynamic_update_slice", 2, 2, AX_ET_ANY) \
  X(CONCAT, "concat", 2, -1, AX_ET_ANY)                         \
  X(RELABEL, "relabel", 1, 1, AX_ET_ANY)                        \
  X(REVERSE, "reverse", 1, 1, AX_ET_ANY)                        \
  X(RESHAPE_DEGENERATE, "reshape_degenerate", 1, 1, AX_ET_ANY)  \
  X(REDUCE, "reduce", 1, 1, AX_ET_NUM)                          \
  X(DOT, "dot", 2, 2, AX_ET_NUM)                                \
  X(CONV, "conv", 2, 2, AX_ET_NUM)

typedef enum {
#define X(e, name, lo, hi, et) AX_OP_##e,
  AX_OP_LIST(X)
#undef X
  AX_OP_COUNT
} AxOp;

/* What an attribute's value must be. */
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
  const char *name;
  int min_operands, max_operands;   /* max -1: variadic */
  AxElemRule elem;
  AxAttrSpec attrs[AX_MAX_ATTRS];   /* terminated by name == NULL; positional order */
} AxOpSpec;

const AxOpSpec *ax_op_spec(AxOp op);
bool ax_op_lookup(const char *name, AxOp *out);   /* by name in the language */
const char *ax_op_name(AxOp op);
const AxAttrSpec *ax_op_attr(AxOp op, const char *name, int *index);   /* NULL if none */
int ax_op_nattrs(AxOp op);

#endif
