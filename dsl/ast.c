/* ast.c — names of AST enumerations and structural equality; see ast.h. */
#include "dsl/ast.h"

#include <string.h>

static const char *const bintext[AX_BIN_COUNT] = {
    [AX_BIN_OR] = "or",  [AX_BIN_AND] = "and", [AX_BIN_EQ] = "==",  [AX_BIN_NE] = "!=",
    [AX_BIN_LT] = "<",   [AX_BIN_LE] = "<=",   [AX_BIN_GT] = ">",   [AX_BIN_GE] = ">=",
    [AX_BIN_ADD] = "+",  [AX_BIN_SUB] = "-",   [AX_BIN_MUL] = "*",  [AX_BIN_DIV] = "/",
    [AX_BIN_REM] = "%",
};

const char *ax_binop_text(AxBinop op) {
  AX_ASSERT(op >= 0 && op < AX_BIN_COUNT);
  return bintext[op];
}

const char *ax_typeclass_name(AxTypeClass tc) {
  static const char *const names[] = {
      [AX_TC_ANY] = "any", [AX_TC_NUM] = "num", [AX_TC_INT] = "int", [AX_TC_REAL] = "real",
      [AX_TC_BOOL] = "bool"};
  return names[tc];
}

const char *ax_typename_text(const AxTypeRef *t) {
  static const char *const names[] = {
      [AX_TY_BOOL] = "bool", [AX_TY_INT] = "int", [AX_TY_REAL] = "real",
      [AX_TY_F16] = "f16",   [AX_TY_BF16] = "bf16", [AX_TY_F32] = "f32"};
  return t->name == AX_TY_VAR ? t->var : names[t->name];
}

static bool str_eq(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool id_eq(const AxIdent *a, const AxIdent *b) { return str_eq(a->name, b->name); }

static bool expr_eq(const AxExpr *a, const AxExpr *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case AX_E_INT:
  case AX_E_REAL:
  case AX_E_NAME:
  case AX_E_INF:
    return str_eq(a->u.text, b->u.text);
  case AX_E_BOOL:
    return a->u.boolean == b->u.boolean;
  case AX_E_CALL:
    if (!id_eq(&a->u.call.fn, &b->u.call.fn) || a->u.call.nargs != b->u.call.nargs) return false;
    for (size_t i = 0; i < a->u.call.nargs; i++)
      if (!id_eq(&a->u.call.args[i].name, &b->u.call.args[i].name) ||
          !expr_eq(a->u.call.args[i].value, b->u.call.args[i].value))
        return false;
    return true;
  case AX_E_UNARY:
    return a->u.unary.op == b->u.unary.op && expr_eq(a->u.unary.arg, b->u.unary.arg);
  case AX_E_BINARY:
    return a->u.binary.op == b->u.binary.op && expr_eq(a->u.binary.lhs, b->u.binary.lhs) &&
           expr_eq(a->u.binary.rhs, b->u.binary.rhs);
  case AX_E_IF:
    return expr_eq(a->u.ite.cond, b->u.ite.cond) && expr_eq(a->u.ite.then_e, b->u.ite.then_e) &&
           expr_eq(a->u.ite.else_e, b->u.ite.else_e);
  case AX_E_QUANT:
    return a->u.quant.exists == b->u.quant.exists &&
           id_eq(&a->u.quant.rclass, &b->u.quant.rclass) &&
           expr_eq(a->u.quant.body, b->u.quant.body);
  case AX_E_AXMAP:
    if (a->u.axmap.n != b->u.axmap.n) return false;
    for (size_t i = 0; i < a->u.axmap.n; i++)
      if (!id_eq(&a->u.axmap.entries[i].axis, &b->u.axmap.entries[i].axis) ||
          !expr_eq(a->u.axmap.entries[i].value, b->u.axmap.entries[i].value))
        return false;
    return true;
  case AX_E_LIST:
    if (a->u.list.n != b->u.list.n) return false;
    for (size_t i = 0; i < a->u.list.n; i++)
      if (!expr_eq(a->u.list.items[i], b->u.list.items[i])) return false;
    return true;
  }
  return false;
}

static bool stmt_eq(const AxStmt *a, const AxStmt *b) {
  if (a->kind != b->kind || a->nnames != b->nnames || a->nonneg != b->nonneg ||
      a->has_shape != b->has_shape || a->ndims != b->ndims || a->nexprs != b->nexprs)
    return false;
  for (size_t i = 0; i < a->nnames; i++)
    if (!id_eq(&a->names[i], &b->names[i])) return false;
  if (!id_eq(&a->over, &b->over)) return false;
  if (a->kind == AX_S_TENSOR || a->kind == AX_S_SCALAR || a->kind == AX_S_INPUT)
    if (a->type.name != b->type.name || !str_eq(a->type.var, b->type.var)) return false;
  for (size_t i = 0; i < a->ndims; i++)
    if (!id_eq(&a->dims[i].axis, &b->dims[i].axis) || !expr_eq(a->dims[i].size, b->dims[i].size))
      return false;
  for (size_t i = 0; i < a->nexprs; i++)
    if (!expr_eq(a->exprs[i], b->exprs[i])) return false;
  return expr_eq(a->value, b->value) && expr_eq(a->lhs, b->lhs) && expr_eq(a->rhs, b->rhs);
}

static bool block_eq(const AxBlock *a, const AxBlock *b) {
  if (a->kind != b->kind || !id_eq(&a->name, &b->name) || !id_eq(&a->tvar, &b->tvar) ||
      a->nstmts != b->nstmts || a->expect != b->expect || a->expect_written != b->expect_written)
    return false;
  if (a->tvar.name && a->tclass != b->tclass) return false;
  for (size_t i = 0; i < a->nstmts; i++)
    if (!stmt_eq(a->stmts[i], b->stmts[i])) return false;
  return true;
}

bool ax_ast_equal(const AxFile *a, const AxFile *b) {
  if (a->nblocks != b->nblocks) return false;
  for (size_t i = 0; i < a->nblocks; i++)
    if (!block_eq(a->blocks[i], b->blocks[i])) return false;
  return true;
}

void ax_expr_children(const AxExpr *e, void (*f)(const AxExpr *child, void *ctx), void *ctx) {
  switch (e->kind) {
  case AX_E_CALL:
    for (size_t i = 0; i < e->u.call.nargs; i++) f(e->u.call.args[i].value, ctx);
    break;
  case AX_E_UNARY:
    f(e->u.unary.arg, ctx);
    break;
  case AX_E_BINARY:
    f(e->u.binary.lhs, ctx);
    f(e->u.binary.rhs, ctx);
    break;
  case AX_E_IF:
    f(e->u.ite.cond, ctx);
    f(e->u.ite.then_e, ctx);
    f(e->u.ite.else_e, ctx);
    break;
  case AX_E_QUANT:
    f(e->u.quant.body, ctx);
    break;
  case AX_E_AXMAP:
    for (size_t i = 0; i < e->u.axmap.n; i++) f(e->u.axmap.entries[i].value, ctx);
    break;
  case AX_E_LIST:
    for (size_t i = 0; i < e->u.list.n; i++) f(e->u.list.items[i], ctx);
    break;
  default:
    break;
  }
}
