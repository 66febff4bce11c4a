/* check.h — names, kinds, element types and aggregated axes of rules.
 *
 * The checker runs after parsing, over every `rule` block of a file (program blocks are
 * checked by superopt/ir/program.h). It resolves every name, decides for every expression
 * whether it is a tensor, a map or a condition, types tensor elements (bool, int, real,
 * the rule's T, or a literal that adapts), and checks the aggregated-axes discipline of
 * every operator application (TensorRight §4): element-wise operands have identical
 * axes (or one is a scalar), broadcast adds new axes, reduce removes present ones, the
 * concat and iota axis belongs to a rank class that is then fixed to rank 1, relabel is
 * an injective renaming within a rank class, and both sides of the rewrite end with the
 * same axes. Results are written into each AxExpr's `ty` and into the block's `syms`.
 *
 * Errors are reported as "rule 'NAME': ..." at the offending node; checking continues
 * with the next statement. */
#ifndef AX_CHECK_H
#define AX_CHECK_H

#include "dsl/ast.h"
#include "dsl/ops.h"

#define AX_MAX_AXES 64   /* aggregated axes per rule (bit sets are uint64_t) */

typedef enum {
  AX_SYM_AXIS,     /* an aggregated axis (the default one of an rclass, or from `axes`) */
  AX_SYM_MAP,      /* map over an rclass: symbolic, nonneg, or defined */
  AX_SYM_INDEX,    /* summation-index map over an rclass */
  AX_SYM_TENSOR,   /* an input tensor (scalars are tensors without axes) */
  AX_SYM_LET,      /* a let binding */
} AxSymKind;

typedef struct AxSym {
  AxSymKind kind;
  const char *name;
  AxSpan span;
  int rclass;              /* AXIS MAP INDEX: rank class index */
  bool nonneg;             /* MAP */
  AxExpr *def;             /* MAP: definition or NULL; LET: value */
  AxElem elem;             /* TENSOR */
  bool is_scalar;          /* TENSOR declared with `scalar` */
  int ndims;               /* TENSOR: dims, in declaration order */
  int dim_axis[AX_MAX_AXES];      /* axis index of each dim */
  AxExpr *dim_size[AX_MAX_AXES];  /* size map of each dim */
  uint64_t axes;           /* TENSOR: set of axis indices */
  int axis;                /* AXIS: its index in AxRuleSyms.axes */
  bool used;
  bool bad;                /* its declaration was in error: uses are not reported again */
} AxSym;

typedef struct AxRClass {
  const char *name;
  AxSpan span;
  bool singleton;          /* used as a concat or iota axis (in an expression the rule
                              uses): instantiated at rank 1 only */
  AxSpan singleton_at;     /* where that was decided */
  const char *singleton_why;   /* "concat axis" or "iota axis" */
} AxRClass;

typedef struct AxRuleSyms {
  AxSym *syms;             /* every value-namespace symbol, in declaration order */
  size_t nsyms;
  AxRClass *rclasses;
  size_t nrclasses;
  int axes[AX_MAX_AXES];   /* axis index -> symbol index */
  size_t naxes;
  AxExpr **requires;       /* conditions: AX_K_COND, or bool AX_K_TENSOR (∀ index) */
  size_t nrequires;
  AxExpr **hints;
  size_t nhints;
  AxExpr *lhs, *rhs;
  AxElem elem;             /* element type of the rewrite's result */
} AxRuleSyms;

/* Checks every rule block of f; fills e->ty and b->syms (allocated in a). Returns true
 * when no error was reported. */
bool ax_check_file(AxArena *a, AxDiag *d, AxFile *f);

/* Whether the checker has an axes rule for op: true for every operator AX_OP_LIST gives
 * the level AX_LV_RULE (check_dsl walks the list; a missing rule is an internal error). */
bool ax_check_knows(AxOp op);

/* Whether op commutes with merging two adjacent named axes of a rank class into one, read
 * row-major (element-wise operators, broadcasts, relabels, sums over every named axis,
 * flatten and unflatten): the condition of the flatten argument (verifier/rank.c). */
bool ax_check_merges(AxOp op);

/* The tensor operator an infix operator stands for (`A + B` is add(A, B), `and` is and). */
AxOp ax_check_infix_op(AxBinop op);

/* "bool", "int", "real", "T", ... for messages. */
const char *ax_elem_name(AxElem e);

/* Are a and b (checked expressions of rule syms) the same expression once lets are
 * inlined — the same operators on the same operands and attributes (however written:
 * infix or called, attributes by position or by name, axis maps in any order)? Literals
 * compare as written. A rule whose two sides are the same is trivial (verify.h). */
bool ax_check_same_expr(const AxRuleSyms *s, const AxExpr *a, const AxExpr *b);

#endif
