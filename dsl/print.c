/* print.c — canonical printer; see print.h. */
#include "dsl/print.h"

#include <string.h>

/* Binding strength, loosest first; parentheses are printed exactly where the parser
 * would otherwise group differently. ORDER BINOP for the binary entries. */
enum { P_IF = 1, P_OR, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_NEG, P_ATOM };

static const int binprec[AX_BIN_COUNT] = {
    P_OR, P_AND, P_CMP, P_CMP, P_CMP, P_CMP, P_CMP, P_CMP, P_ADD, P_ADD, P_MUL, P_MUL, P_MUL,
};

static int prec(const AxExpr *e) {
  switch (e->kind) {
  case AX_E_IF:
  case AX_E_QUANT:
    return P_IF;
  case AX_E_BINARY:
    return binprec[e->u.binary.op];
  case AX_E_UNARY:
    return e->u.unary.op == AX_UN_NOT ? P_NOT : P_NEG;
  default:
    return P_ATOM;
  }
}

static void expr(FILE *out, const AxExpr *e, int ctx);

static void sub(FILE *out, const AxExpr *e, int ctx) {
  bool paren = prec(e) < ctx;
  if (paren) fputc('(', out);
  expr(out, e, paren ? 0 : ctx);
  if (paren) fputc(')', out);
}

static void expr(FILE *out, const AxExpr *e, int ctx) {
  (void)ctx;
  switch (e->kind) {
  case AX_E_INT:
  case AX_E_REAL:
  case AX_E_NAME:
  case AX_E_INF:
    fputs(e->u.text, out);
    break;
  case AX_E_BOOL:
    fputs(e->u.boolean ? "true" : "false", out);
    break;
  case AX_E_CALL:
    fprintf(out, "%s(", e->u.call.fn.name);
    for (size_t i = 0; i < e->u.call.nargs; i++) {
      const AxArg *g = &e->u.call.args[i];
      if (i) fputs(", ", out);
      if (g->name.name) fprintf(out, "%s=", g->name.name);
      sub(out, g->value, 0);
    }
    fputc(')', out);
    break;
  case AX_E_UNARY:
    if (e->u.unary.op == AX_UN_NOT) {
      fputs("not ", out);
      sub(out, e->u.unary.arg, P_NOT);
    } else {
      fputc('-', out);
      /* "-(-x)" rather than "--x": same tree, kinder to readers */
      const AxExpr *x = e->u.unary.arg;
      sub(out, x, x->kind == AX_E_UNARY ? P_ATOM : P_NEG);
    }
    break;
  case AX_E_BINARY: {
    int p = binprec[e->u.binary.op];
    sub(out, e->u.binary.lhs, p == P_CMP ? p + 1 : p);   /* comparisons do not chain */
    fprintf(out, " %s ", ax_binop_text(e->u.binary.op));
    sub(out, e->u.binary.rhs, p + 1);
    break;
  }
  case AX_E_IF:
    fputs("if ", out);
    sub(out, e->u.ite.cond, 0);
    fputs(" then ", out);
    sub(out, e->u.ite.then_e, 0);
    fputs(" else ", out);
    sub(out, e->u.ite.else_e, 0);
    break;
  case AX_E_QUANT:
    fprintf(out, "%s %s: ", e->u.quant.exists ? "exists" : "forall", e->u.quant.rclass.name);
    sub(out, e->u.quant.body, 0);
    break;
  case AX_E_AXMAP:
    fputc('{', out);
    for (size_t i = 0; i < e->u.axmap.n; i++) {
      if (i) fputs(", ", out);
      fprintf(out, "%s: ", e->u.axmap.entries[i].axis.name);
      sub(out, e->u.axmap.entries[i].value, 0);
    }
    fputc('}', out);
    break;
  case AX_E_LIST:
    fputc('[', out);
    for (size_t i = 0; i < e->u.list.n; i++) {
      if (i) fputs(", ", out);
      sub(out, e->u.list.items[i], 0);
    }
    fputc(']', out);
    break;
  }
}

void ax_print_expr(FILE *out, const AxExpr *e) { sub(out, e, 0); }

char *ax_print_expr_str(AxArena *a, const AxExpr *e) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AX_ASSERT(m);
  ax_print_expr(m, e);
  fclose(m);
  char *s = ax_arena_strdup(a, buf);
  free(buf);
  return s;
}

/* ---- comments and layout ------------------------------------------------------------ */

typedef struct Printer {
  FILE *out;
  const AxFile *f;
  size_t next;   /* first comment not printed yet */
} Printer;

static int line_of(const Printer *p, uint32_t off) {
  int line, col;
  ax_source_linecol(p->f->src, off, &line, &col);
  return line;
}

static void comment(Printer *p, const AxComment *c) {
  fwrite(p->f->src->text + c->span.start, 1, c->span.end - c->span.start, p->out);
}

/* Comments that start before `off`, each on its own line at `indent`. A blank line in
 * the source before a comment group is kept. */
static void leading(Printer *p, uint32_t off, const char *indent) {
  while (p->next < p->f->ncomments && p->f->comments[p->next].span.start < off) {
    fputs(indent, p->out);
    comment(p, &p->f->comments[p->next++]);
    fputc('\n', p->out);
  }
}

/* A comment on the same source line as `off` goes at the end of the printed line. */
static void trailing(Printer *p, uint32_t off) {
  if (p->next < p->f->ncomments) {
    const AxComment *c = &p->f->comments[p->next];
    if (line_of(p, c->span.start) == line_of(p, off)) {
      fputs("  ", p->out);
      comment(p, c);
      p->next++;
    }
  }
  fputc('\n', p->out);
}

/* Was there an empty line in the source between offsets a and b (comments excluded)? */
static bool blank_between(const Printer *p, uint32_t a, uint32_t b) {
  const char *t = p->f->src->text;
  int newlines = 0;
  for (uint32_t i = a; i < b && i < p->f->src->len; i++) {
    if (t[i] == '\n') {
      if (++newlines >= 2) return true;
    } else if (t[i] == '#') {
      while (i < b && t[i] != '\n') i++;
      i--;
      newlines = 0;
    } else if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r') {
      newlines = 0;
    }
  }
  return false;
}

static void idents(FILE *out, const AxIdent *ids, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(out, "%s%s", i ? ", " : "", ids[i].name);
}

static const char *stmt_kw[] = {
    [AX_S_RCLASS] = "rclass", [AX_S_AXES] = "axes",     [AX_S_MAP] = "map",
    [AX_S_INDEX] = "index",   [AX_S_TENSOR] = "tensor", [AX_S_SCALAR] = "scalar",
    [AX_S_LET] = "let",       [AX_S_REQUIRE] = "require", [AX_S_HINT] = "hint",
    [AX_S_REWRITE] = "",      [AX_S_INPUT] = "input",   [AX_S_OUTPUT] = "output",
};

enum { WIDTH = 100 };

static void stmt(FILE *out, const AxStmt *s) {
  fputs(stmt_kw[s->kind], out);
  switch (s->kind) {
  case AX_S_RCLASS:
    fputc(' ', out);
    idents(out, s->names, s->nnames);
    break;
  case AX_S_AXES:
    fputc(' ', out);
    idents(out, s->names, s->nnames);
    fprintf(out, " : %s", s->over.name);
    break;
  case AX_S_MAP:
  case AX_S_INDEX:
    fputc(' ', out);
    idents(out, s->names, s->nnames);
    fprintf(out, " over %s", s->over.name);
    if (s->nonneg) fputs(" nonneg", out);
    if (s->value) {
      fputs(" = ", out);
      ax_print_expr(out, s->value);
    }
    break;
  case AX_S_TENSOR:
  case AX_S_SCALAR:
  case AX_S_INPUT:
    fputc(' ', out);
    idents(out, s->names, s->nnames);
    fprintf(out, " : %s", ax_typename_text(&s->type));
    if (s->has_shape) {
      fputc('[', out);
      for (size_t i = 0; i < s->ndims; i++) {
        if (i) fputs(", ", out);
        if (s->dims[i].axis.name) fprintf(out, "%s: ", s->dims[i].axis.name);
        ax_print_expr(out, s->dims[i].size);
      }
      fputc(']', out);
    }
    break;
  case AX_S_LET:
  case AX_S_OUTPUT:
    fprintf(out, " %s", s->names[0].name);
    if (s->value) {
      fputs(" = ", out);
      ax_print_expr(out, s->value);
    }
    break;
  case AX_S_REQUIRE:
  case AX_S_HINT:
    for (size_t i = 0; i < s->nexprs; i++) {
      fputs(i ? ", " : " ", out);
      ax_print_expr(out, s->exprs[i]);
    }
    break;
  case AX_S_REWRITE:
    ax_print_expr(out, s->lhs);
    fputs(" => ", out);
    ax_print_expr(out, s->rhs);
    break;
  }
}

/* A rewrite too wide for one line breaks after '=>' (the scanner continues a statement
 * after '=>', so the broken form parses to the same tree). */
static void stmt_line(Printer *p, const AxStmt *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AX_ASSERT(m);
  stmt(m, s);
  fclose(m);
  if (s->kind == AX_S_REWRITE && len + 2 > WIDTH) {
    fputs("  ", p->out);
    ax_print_expr(p->out, s->lhs);
    fputs(" =>\n    ", p->out);
    ax_print_expr(p->out, s->rhs);
  } else {
    fprintf(p->out, "  %s", buf);
  }
  free(buf);
}

static const char *tclass_name(AxTypeClass tc) { return ax_typeclass_name(tc); }

static void block(Printer *p, const AxBlock *b) {
  FILE *out = p->out;
  leading(p, b->span.start, "");
  if (b->kind == AX_B_RULE) {
    fprintf(out, "rule %s", b->name.name);
    if (b->tvar.name) fprintf(out, " for %s in %s", b->tvar.name, tclass_name(b->tclass));
    if (b->expect_written)
      fprintf(out, " expect %s", b->expect == AX_EXPECT_VALID ? "valid" : "invalid");
  } else {
    fprintf(out, "program %s", b->name.name);
  }
  fputs(" {", out);
  uint32_t head_end = b->nstmts ? b->stmts[0]->span.start : b->span.end;
  /* a comment on the header line stays there */
  if (p->next < p->f->ncomments && p->f->comments[p->next].span.start < head_end &&
      line_of(p, p->f->comments[p->next].span.start) == line_of(p, b->name.span.start)) {
    fputs("  ", out);
    comment(p, &p->f->comments[p->next++]);
  }
  fputc('\n', out);
  uint32_t prev = b->name.span.end;
  for (size_t i = 0; i < b->nstmts; i++) {
    const AxStmt *s = b->stmts[i];
    if (i && blank_between(p, prev, s->span.start)) fputc('\n', out);
    leading(p, s->span.start, "  ");
    stmt_line(p, s);
    trailing(p, s->span.end);
    prev = s->span.end;
  }
  leading(p, b->span.end - 1, "  ");
  fputc('}', out);
  trailing(p, b->span.end - 1);
}

void ax_print_file(FILE *out, const AxFile *f) {
  Printer p = {out, f, 0};
  for (size_t i = 0; i < f->nblocks; i++) {
    if (i) fputc('\n', out);
    block(&p, f->blocks[i]);
  }
  if (f->nblocks && p.next < f->ncomments) fputc('\n', out);
  leading(&p, UINT32_MAX, "");
}
