/* build.h — AST builders called by the grammar actions (parser.y), one per production.
 *
 * Each returns a node allocated in `a`. Lists arrive as AxVec* of pointers collected
 * during parsing and are copied into the node's arrays; the vectors are abandoned (they
 * live in the arena too). Nothing here checks meaning — that is check.c's job. */
#ifndef AX_BUILD_H
#define AX_BUILD_H

#include "dsl/ast.h"

AxSpan ax_span(const AxSource *src, uint32_t start, uint32_t end);
AxVec *ax_build_vec(AxArena *a);
AxVec *ax_build_vec1(AxArena *a, void *first);

AxIdent *ax_build_ident(AxArena *a, const char *name, AxSpan span);
AxTypeRef *ax_build_type(AxArena *a, AxTypeName name, const char *var, AxSpan span);
AxDim *ax_build_dim(AxArena *a, AxIdent *axis, AxExpr *size);
AxArg *ax_build_arg(AxArena *a, AxIdent *name, AxExpr *value);
AxAxEntry *ax_build_entry(AxArena *a, AxIdent *axis, AxExpr *value);

AxExpr *ax_build_text(AxArena *a, AxExprKind kind, const char *text, AxSpan span);
AxExpr *ax_build_bool(AxArena *a, bool value, AxSpan span);
AxExpr *ax_build_call(AxArena *a, AxIdent *fn, AxVec *args, AxSpan span);
AxExpr *ax_build_unary(AxArena *a, AxUnop op, AxExpr *arg, AxSpan span);
AxExpr *ax_build_binary(AxArena *a, AxBinop op, AxExpr *l, AxExpr *r, AxSpan span);
AxExpr *ax_build_if(AxArena *a, AxExpr *c, AxExpr *t, AxExpr *e, AxSpan span);
AxExpr *ax_build_quant(AxArena *a, bool exists, AxIdent *rc, AxExpr *body, AxSpan span);
AxExpr *ax_build_axmap(AxArena *a, AxVec *entries, AxSpan span);
AxExpr *ax_build_list(AxArena *a, AxVec *items, AxSpan span);

AxStmt *ax_build_decl(AxArena *a, AxStmtKind kind, AxVec *names, AxIdent *over, AxSpan span);
AxStmt *ax_build_map(AxArena *a, AxVec *names, AxIdent *over, int nonneg, AxExpr *def,
                     AxSpan span);
AxStmt *ax_build_tensor(AxArena *a, AxStmtKind kind, AxVec *names, AxTypeRef *type,
                        AxVec *dims /* NULL: no brackets */, AxSpan span);
AxStmt *ax_build_let(AxArena *a, AxStmtKind kind, AxIdent *name, AxExpr *value, AxSpan span);
AxStmt *ax_build_conds(AxArena *a, AxStmtKind kind, AxVec *exprs, AxSpan span);
AxStmt *ax_build_rewrite(AxArena *a, AxExpr *lhs, AxExpr *rhs, AxSpan span);

/* `for T in tclass`: a block holding only tvar and tclass, merged by ax_build_rule. */
AxBlock *ax_build_head(AxArena *a, AxIdent *tvar, int tclass, AxSpan tclass_span);
AxBlock *ax_build_rule(AxArena *a, AxIdent *name, AxBlock *head /* NULL */, int expect /* -1 */,
                       AxVec *stmts, AxSpan span);
AxBlock *ax_build_program(AxArena *a, AxIdent *name, AxVec *stmts, AxSpan span);
AxFile *ax_build_file(AxArena *a, const AxSource *src, AxVec *blocks, AxVec *comments);

#endif
