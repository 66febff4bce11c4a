/* ast.h — the syntax tree of an .axl file.
 *
 * An .axl file is a list of blocks: `rule` blocks (rewrite rules the verifier proves) and
 * `program` blocks (tensor programs with concrete shapes, for the superoptimizer). Every
 * node lives in the arena of its file and carries the byte span it was parsed from.
 *
 * The parser builds the tree and nothing else; the checker (check.h) resolves names and
 * fills each expression's `ty` in place. Expressions use one node type for everything
 * the language can say — tensor expressions, map arithmetic, conditions, attribute maps —
 * because which one an expression is depends on the names it mentions, which only the
 * checker knows. */
#ifndef AX_AST_H
#define AX_AST_H

#include "base/diag.h"

typedef struct AxExpr AxExpr;

typedef struct AxIdent {
  const char *name;   /* NULL when absent */
  AxSpan span;
} AxIdent;

/* ORDER UNOP: keep in step with the printer's table in print.c */
typedef enum { AX_UN_NEG, AX_UN_NOT } AxUnop;

/* ORDER BINOP: keep in step with the printer's and checker's tables */
typedef enum {
  AX_BIN_OR, AX_BIN_AND,
  AX_BIN_EQ, AX_BIN_NE, AX_BIN_LT, AX_BIN_LE, AX_BIN_GT, AX_BIN_GE,
  AX_BIN_ADD, AX_BIN_SUB,
  AX_BIN_MUL, AX_BIN_DIV, AX_BIN_REM,
  AX_BIN_COUNT
} AxBinop;

typedef enum {
  AX_E_INT,     /* integer literal; text holds the digits (any size) */
  AX_E_REAL,    /* decimal literal such as 2.5 or 1e-3; text holds it as written */
  AX_E_BOOL,    /* true | false */
  AX_E_INF,     /* inf  (-inf is unary minus applied to it) */
  AX_E_NAME,    /* an identifier */
  AX_E_CALL,    /* name(arg, ..., attr = value, ...) */
  AX_E_UNARY,   /* -e | not e */
  AX_E_BINARY,  /* e op e */
  AX_E_IF,      /* if c then a else b */
  AX_E_QUANT,   /* forall x: e | exists x: e   (x a rank class) */
  AX_E_AXMAP,   /* {axis: e, ...} — attribute maps, shapes, relabelings */
  AX_E_LIST,    /* [e, ...] — axis lists, concrete shapes */
} AxExprKind;

typedef struct AxArg {
  AxIdent name;      /* name.name == NULL for a positional argument */
  AxExpr *value;
} AxArg;

typedef struct AxAxEntry {
  AxIdent axis;
  AxExpr *value;
} AxAxEntry;

/* What the checker learned about an expression (zero until it has run). */
typedef enum {
  AX_K_NONE,     /* not checked, or in error */
  AX_K_LIT,      /* a literal constant not yet committed to being a map or a scalar */
  AX_K_TENSOR,   /* a tensor expression (a scalar is a tensor with no axes) */
  AX_K_MAP,      /* an integer map over a rank class */
  AX_K_COND,     /* a boolean over maps: per axis of a rank class, or closed (quantified) */
  AX_K_AXMAP,    /* {axis: ...} attribute */
  AX_K_LIST,     /* [...] attribute */
  AX_K_AXIS,     /* a bare aggregated-axis name used as an attribute */
} AxKind;

typedef enum {
  AX_ELEM_NONE,
  AX_ELEM_BOOL, AX_ELEM_INT, AX_ELEM_REAL,
  AX_ELEM_VAR,       /* the rule's element-type variable T */
  AX_ELEM_NUMLIT,    /* an integer literal or inf: fits int, real, or T when T is numeric */
  AX_ELEM_REALLIT,   /* a decimal literal: fits real, or T when T is real */
} AxElem;

typedef struct AxTy {
  AxKind kind;
  AxElem elem;        /* AX_K_TENSOR */
  uint64_t axes;      /* AX_K_TENSOR: set of the rule's aggregated axes (bit i = axis i) */
  int rclass;         /* AX_K_MAP / AX_K_COND: rank class index, -1 for none (closed) */
  int op;             /* AX_E_CALL / AX_E_BINARY / AX_E_UNARY on tensors: AxOp, -1 else */
  int sym;            /* AX_E_NAME: index into the rule's symbol table, -1 else */
  /* tensor operator applications (op >= 0): operands and attributes bound to the
   * operator's table entry (ops.h); attrs[i] is NULL for an omitted attribute */
  struct AxExpr **opnds;
  int nopnds;
  struct AxExpr **attrs;
} AxTy;

struct AxExpr {
  AxExprKind kind;
  AxSpan span;
  union {
    const char *text;                                          /* INT REAL NAME */
    bool boolean;                                              /* BOOL */
    struct { AxIdent fn; AxArg *args; size_t nargs; } call;    /* CALL */
    struct { AxUnop op; AxExpr *arg; } unary;                  /* UNARY */
    struct { AxBinop op; AxExpr *lhs, *rhs; } binary;          /* BINARY */
    struct { AxExpr *cond, *then_e, *else_e; } ite;            /* IF */
    struct { bool exists; AxIdent rclass; AxExpr *body; } quant; /* QUANT */
    struct { AxAxEntry *entries; size_t n; } axmap;            /* AXMAP */
    struct { AxExpr **items; size_t n; } list;                 /* LIST */
  } u;
  AxTy ty;
};

/* Element types written in declarations. */
typedef enum {
  AX_TY_VAR,                     /* the rule's type variable (e.g. T) */
  AX_TY_BOOL, AX_TY_INT, AX_TY_REAL,
  AX_TY_F16, AX_TY_BF16, AX_TY_F32, /* programs only */
} AxTypeName;

typedef struct AxTypeRef {
  AxTypeName name;
  const char *var;    /* AX_TY_VAR: the identifier written */
  AxSpan span;
} AxTypeRef;

/* One dimension of a declared shape: `axis: size` in rules, `size` in programs. */
typedef struct AxDim {
  AxIdent axis;       /* axis.name == NULL in programs */
  AxExpr *size;
} AxDim;

typedef enum {
  AX_S_RCLASS,    /* rclass x, y */
  AX_S_AXES,      /* axes x1, x2 : x */
  AX_S_MAP,       /* map s, t over x [nonneg] [= e] */
  AX_S_INDEX,     /* index i, j over x            (summation-index maps) */
  AX_S_TENSOR,    /* tensor A, B : T[x: s, ...]   (no brackets: a scalar tensor) */
  AX_S_SCALAR,    /* scalar c, d : T              (named symbolic scalars) */
  AX_S_LET,       /* let N = e */
  AX_S_REQUIRE,   /* require c, ... */
  AX_S_HINT,      /* hint c, ...                  (bijection between summation indices) */
  AX_S_REWRITE,   /* lhs => rhs */
  AX_S_INPUT,     /* program: input X : f16[16, 4096] */
  AX_S_OUTPUT,    /* program: output O [= e] */
} AxStmtKind;

typedef struct AxStmt {
  AxStmtKind kind;
  AxSpan span;
  AxIdent *names;       /* declared names (all declaring kinds, LET, OUTPUT) */
  size_t nnames;
  AxIdent over;         /* AXES, MAP, INDEX: the rank class */
  bool nonneg;          /* MAP */
  AxTypeRef type;       /* TENSOR, SCALAR, INPUT */
  bool has_shape;       /* TENSOR, INPUT: brackets were written */
  AxDim *dims;          /* TENSOR, INPUT */
  size_t ndims;
  AxExpr *value;        /* MAP definition, LET, OUTPUT definition (NULL when absent) */
  AxExpr **exprs;       /* REQUIRE, HINT */
  size_t nexprs;
  AxExpr *lhs, *rhs;    /* REWRITE */
} AxStmt;

typedef enum { AX_TC_ANY, AX_TC_NUM, AX_TC_INT, AX_TC_REAL, AX_TC_BOOL } AxTypeClass;
typedef enum { AX_EXPECT_VALID, AX_EXPECT_INVALID, AX_EXPECT_INVALID_HINT, AX_EXPECT_TRIVIAL } AxExpect;

typedef enum { AX_B_RULE, AX_B_PROGRAM } AxBlockKind;

typedef struct AxBlock {
  AxBlockKind kind;
  AxIdent name;
  AxSpan span;           /* from the keyword to the closing brace */
  /* rules only */
  AxIdent tvar;          /* `for T in ...`; tvar.name == NULL when absent */
  AxTypeClass tclass;
  AxSpan tclass_span;
  AxExpect expect;
  bool expect_written;
  /* both */
  AxStmt **stmts;
  size_t nstmts;
  struct AxRuleSyms *syms;   /* filled by the checker (check.h) */
} AxBlock;

typedef struct AxComment {
  AxSpan span;           /* from '#' to the end of the line, newline excluded */
} AxComment;

typedef struct AxFile {
  const AxSource *src;
  AxBlock **blocks;
  size_t nblocks;
  AxComment *comments;   /* in source order; the printer keeps them */
  size_t ncomments;
} AxFile;

const char *ax_binop_text(AxBinop op);   /* "+", "and", ... */
/* Structural equality of two trees, ignoring spans, comments and checker results
 * (what `fmt` must preserve). */
bool ax_ast_equal(const AxFile *a, const AxFile *b);

/* Calls f on each direct sub-expression of e in source order: call arguments (operands and
 * attributes), the operands of unary and binary expressions, the three parts of an if, a
 * quantifier's body, axis-map values and list items. A name's definition is no child. */
void ax_expr_children(const AxExpr *e, void (*f)(const AxExpr *child, void *ctx), void *ctx);
const char *ax_typeclass_name(AxTypeClass tc);
const char *ax_typename_text(const AxTypeRef *t);

#endif
