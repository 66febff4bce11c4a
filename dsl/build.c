/* build.c — AST builders for the grammar actions; see build.h. */
#include "dsl/build.h"

#include <string.h>

AxSpan ax_span(const AxSource *src, uint32_t start, uint32_t end) {
  return (AxSpan){src, start, end};
}

AxVec *ax_build_vec(AxArena *a) { return ax_arena_alloc(a, sizeof(AxVec)); }

AxVec *ax_build_vec1(AxArena *a, void *first) {
  AxVec *v = ax_build_vec(a);
  ax_vec_push(a, v, first);
  return v;
}

/* Copies a vector of pointers to `size`-byte structs into one array of structs. */
static void *flatten(AxArena *a, AxVec *v, size_t size, size_t *n) {
  *n = v ? v->len : 0;
  if (!*n) return NULL;
  unsigned char *out = ax_arena_alloc(a, *n * size);
  for (size_t i = 0; i < *n; i++) memcpy(out + i * size, v->items[i], size);
  return out;
}

static void **pointers(AxArena *a, AxVec *v, size_t *n) {
  *n = v ? v->len : 0;
  if (!*n) return NULL;
  void **out = ax_arena_alloc(a, *n * sizeof(void *));
  memcpy(out, v->items, *n * sizeof(void *));
  return out;
}

AxIdent *ax_build_ident(AxArena *a, const char *name, AxSpan span) {
  AxIdent *id = ax_arena_alloc(a, sizeof *id);
  id->name = name;
  id->span = span;
  return id;
}

AxTypeRef *ax_build_type(AxArena *a, AxTypeName name, const char *var, AxSpan span) {
  AxTypeRef *t = ax_arena_alloc(a, sizeof *t);
  t->name = name;
  t->var = var;
  t->span = span;
  return t;
}

AxDim *ax_build_dim(AxArena *a, AxIdent *axis, AxExpr *size) {
  AxDim *d = ax_arena_alloc(a, sizeof *d);
  if (axis) d->axis = *axis;
  d->size = size;
  return d;
}

AxArg *ax_build_arg(AxArena *a, AxIdent *name, AxExpr *value) {
  AxArg *g = ax_arena_alloc(a, sizeof *g);
  if (name) g->name = *name;
  g->value = value;
  return g;
}

AxAxEntry *ax_build_entry(AxArena *a, AxIdent *axis, AxExpr *value) {
  AxAxEntry *e = ax_arena_alloc(a, sizeof *e);
  e->axis = *axis;
  e->value = value;
  return e;
}

static AxExpr *expr(AxArena *a, AxExprKind kind, AxSpan span) {
  AxExpr *e = ax_arena_alloc(a, sizeof *e);
  e->kind = kind;
  e->span = span;
  e->ty.op = -1;
  e->ty.sym = -1;
  e->ty.rclass = -1;
  return e;
}

AxExpr *ax_build_text(AxArena *a, AxExprKind kind, const char *text, AxSpan span) {
  AxExpr *e = expr(a, kind, span);
  e->u.text = text;
  return e;
}

AxExpr *ax_build_bool(AxArena *a, bool value, AxSpan span) {
  AxExpr *e = expr(a, AX_E_BOOL, span);
  e->u.boolean = value;
  return e;
}

AxExpr *ax_build_call(AxArena *a, AxIdent *fn, AxVec *args, AxSpan span) {
  AxExpr *e = expr(a, AX_E_CALL, span);
  e->u.call.fn = *fn;
  e->u.call.args = flatten(a, args, sizeof(AxArg), &e->u.call.nargs);
  return e;
}

AxExpr *ax_build_unary(AxArena *a, AxUnop op, AxExpr *arg, AxSpan span) {
  AxExpr *e = expr(a, AX_E_UNARY, span);
  e->u.unary.op = op;
  e->u.unary.arg = arg;
  return e;
}

AxExpr *ax_build_binary(AxArena *a, AxBinop op, AxExpr *l, AxExpr *r, AxSpan span) {
  AxExpr *e = expr(a, AX_E_BINARY, span);
  e->u.binary.op = op;
  e->u.binary.lhs = l;
  e->u.binary.rhs = r;
  return e;
}

AxExpr *ax_build_if(AxArena *a, AxExpr *c, AxExpr *t, AxExpr *f, AxSpan span) {
  AxExpr *e = expr(a, AX_E_IF, span);
  e->u.ite.cond = c;
  e->u.ite.then_e = t;
  e->u.ite.else_e = f;
  return e;
}

AxExpr *ax_build_quant(AxArena *a, bool exists, AxIdent *rc, AxExpr *body, AxSpan span) {
  AxExpr *e = expr(a, AX_E_QUANT, span);
  e->u.quant.exists = exists;
  e->u.quant.rclass = *rc;
  e->u.quant.body = body;
  return e;
}

AxExpr *ax_build_axmap(AxArena *a, AxVec *entries, AxSpan span) {
  AxExpr *e = expr(a, AX_E_AXMAP, span);
  e->u.axmap.entries = flatten(a, entries, sizeof(AxAxEntry), &e->u.axmap.n);
  return e;
}

AxExpr *ax_build_list(AxArena *a, AxVec *items, AxSpan span) {
  AxExpr *e = expr(a, AX_E_LIST, span);
  e->u.list.items = (AxExpr **)pointers(a, items, &e->u.list.n);
  return e;
}

static AxStmt *stmt(AxArena *a, AxStmtKind kind, AxSpan span) {
  AxStmt *s = ax_arena_alloc(a, sizeof *s);
  s->kind = kind;
  s->span = span;
  return s;
}

AxStmt *ax_build_decl(AxArena *a, AxStmtKind kind, AxVec *names, AxIdent *over, AxSpan span) {
  AxStmt *s = stmt(a, kind, span);
  s->names = flatten(a, names, sizeof(AxIdent), &s->nnames);
  if (over) s->over = *over;
  return s;
}

AxStmt *ax_build_map(AxArena *a, AxVec *names, AxIdent *over, int nonneg, AxExpr *def,
                     AxSpan span) {
  AxStmt *s = ax_build_decl(a, AX_S_MAP, names, over, span);
  s->nonneg = nonneg != 0;
  s->value = def;
  return s;
}

AxStmt *ax_build_tensor(AxArena *a, AxStmtKind kind, AxVec *names, AxTypeRef *type,
                        AxVec *dims, AxSpan span) {
  AxStmt *s = ax_build_decl(a, kind, names, NULL, span);
  s->type = *type;
  s->has_shape = dims != NULL;
  s->dims = flatten(a, dims, sizeof(AxDim), &s->ndims);
  return s;
}

AxStmt *ax_build_let(AxArena *a, AxStmtKind kind, AxIdent *name, AxExpr *value, AxSpan span) {
  AxStmt *s = stmt(a, kind, span);
  s->names = name;
  s->nnames = 1;
  s->value = value;
  return s;
}

AxStmt *ax_build_conds(AxArena *a, AxStmtKind kind, AxVec *exprs, AxSpan span) {
  AxStmt *s = stmt(a, kind, span);
  s->exprs = (AxExpr **)pointers(a, exprs, &s->nexprs);
  return s;
}

AxStmt *ax_build_rewrite(AxArena *a, AxExpr *lhs, AxExpr *rhs, AxSpan span) {
  AxStmt *s = stmt(a, AX_S_REWRITE, span);
  s->lhs = lhs;
  s->rhs = rhs;
  return s;
}

AxBlock *ax_build_head(AxArena *a, AxIdent *tvar, int tclass, AxSpan tclass_span) {
  AxBlock *b = ax_arena_alloc(a, sizeof *b);
  b->tvar = *tvar;
  b->tclass = (AxTypeClass)tclass;
  b->tclass_span = tclass_span;
  return b;
}

AxBlock *ax_build_rule(AxArena *a, AxIdent *name, AxBlock *head, int expect, AxVec *stmts,
                       AxSpan span) {
  AxBlock *b = head ? head : ax_arena_alloc(a, sizeof *b);
  b->kind = AX_B_RULE;
  b->name = *name;
  b->span = span;
  b->expect_written = expect >= 0;
  b->expect = expect >= 0 ? (AxExpect)expect : AX_EXPECT_VALID;
  b->stmts = (AxStmt **)pointers(a, stmts, &b->nstmts);
  return b;
}

AxBlock *ax_build_program(AxArena *a, AxIdent *name, AxVec *stmts, AxSpan span) {
  AxBlock *b = ax_arena_alloc(a, sizeof *b);
  b->kind = AX_B_PROGRAM;
  b->name = *name;
  b->span = span;
  b->stmts = (AxStmt **)pointers(a, stmts, &b->nstmts);
  return b;
}

AxFile *ax_build_file(AxArena *a, const AxSource *src, AxVec *blocks, AxVec *comments) {
  AxFile *f = ax_arena_alloc(a, sizeof *f);
  f->src = src;
  f->blocks = (AxBlock **)pointers(a, blocks, &f->nblocks);
  f->comments = flatten(a, comments, sizeof(AxComment), &f->ncomments);
  for (size_t i = 0; i < f->ncomments; i++) f->comments[i].span.src = src;
  return f;
}
