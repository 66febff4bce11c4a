/* print.c — canonical printer; see print.h. */
#include "dsl/print.h"

#include <string.h>

/* Binding strength, loosest first; parentheses are printed exactly where the parser
 * would otherwise group differently. ORDER BINOP for the binary entries. */
enum { P_IF = 1, P_OR, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_NEG, P_ATOM };

static const int binprec[AX_BIN_COUNT] = {
    [AX_BIN_OR] = P_OR,   [AX_BIN_AND] = P_AND, [AX_BIN_EQ] = P_CMP,  [AX_BIN_NE] = P_CMP,
    [AX_BIN_LT] = P_CMP,  [AX_BIN_LE] = P_CMP,  [AX_BIN_GT] = P_CMP,  [AX_BIN_GE] = P_CMP,
    [AX_BIN_ADD] = P_ADD, [AX_BIN_SUB] = P_ADD, [AX_BIN_MUL] = P_MUL, [AX_BIN_DIV] = P_MUL,
    [AX_BIN_REM] = P_MUL,
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

/* Output with a column, so calls that do not fit in WIDTH break between arguments. The
 * scanner continues a statement inside parentheses, so a broken call parses the same. */
enum { WIDTH = 100 };

typedef struct Out {
  FILE *f;
  int col;
  int width;   /* INT32_MAX: never break (flat printing) */
} Out;

static void put(Out *o, const char *s) {
  fputs(s, o->f);
  const char *nl = strrchr(s, '\n');
  o->col = nl ? (int)strlen(nl + 1) : o->col + (int)strlen(s);
}

static void expr(Out *o, const AxExpr *e);

static int flat_width(const AxExpr *e, int ctx);

static void sub(Out *o, const AxExpr *e, int ctx) {
  bool paren = prec(e) < ctx;
  if (paren) put(o, "(");
  expr(o, e);
  if (paren) put(o, ")");
}

static void arg(Out *o, const AxArg *g) {
  if (g->name.name) {
    put(o, g->name.name);
    put(o, "=");
  }
  sub(o, g->value, 0);
}

static int arg_width(const AxArg *g) {
  return (g->name.name ? (int)strlen(g->name.name) + 1 : 0) + flat_width(g->value, 0);
}

/* name(a, b, c): flat when it fits, else packed lines aligned after '(' */
static void call(Out *o, const AxExpr *e) {
  put(o, e->u.call.fn.name);
  put(o, "(");
  int align = o->col;
  bool fits = o->width == INT32_MAX ||
              o->col + flat_width(e, 0) - (int)strlen(e->u.call.fn.name) - 1 <= o->width;
  for (size_t i = 0; i < e->u.call.nargs; i++) {
    const AxArg *g = &e->u.call.args[i];
    if (i) {
      put(o, ",");
      bool last = i + 1 == e->u.call.nargs;
      int need = arg_width(g) + (last ? 1 : 2);
      if (!fits && o->col + 1 + need > o->width) {   /* this argument starts a new line */
        fputc('\n', o->f);
        o->col = 0;
        for (int k = 0; k < align; k++) put(o, " ");
      } else {
        put(o, " ");
      }
    }
    arg(o, g);
  }
  put(o, ")");
}

static void expr(Out *o, const AxExpr *e) {
  switch (e->kind) {
  case AX_E_INT:
  case AX_E_REAL:
  case AX_E_NAME:
  case AX_E_INF:
    put(o, e->u.text);
    break;
  case AX_E_BOOL:
    put(o, e->u.boolean ? "true" : "false");
    break;
  case AX_E_CALL:
    call(o, e);
    break;
  case AX_E_UNARY:
    if (e->u.unary.op == AX_UN_NOT) {
      put(o, "not ");
      sub(o, e->u.unary.arg, P_NOT);
    } else {
      put(o, "-");
      /* "-(-x)" rather than "--x": same tree, kinder to readers */
      const AxExpr *x = e->u.unary.arg;
      sub(o, x, x->kind == AX_E_UNARY ? P_ATOM : P_NEG);
    }
    break;
  case AX_E_BINARY: {
    int p = binprec[e->u.binary.op];
    sub(o, e->u.binary.lhs, p == P_CMP ? p + 1 : p);   /* comparisons do not chain */
    put(o, " ");
    put(o, ax_binop_text(e->u.binary.op));
    put(o, " ");
    sub(o, e->u.binary.rhs, p + 1);
    break;
  }
  case AX_E_IF:
    put(o, "if ");
    sub(o, e->u.ite.cond, 0);
    put(o, " then ");
    sub(o, e->u.ite.then_e, 0);
    put(o, " else ");
    sub(o, e->u.ite.else_e, 0);
    break;
  case AX_E_QUANT:
    put(o, e->u.quant.exists ? "exists " : "forall ");
    put(o, e->u.quant.rclass.name);
    put(o, ": ");
    sub(o, e->u.quant.body, 0);
    break;
  case AX_E_AXMAP:
    put(o, "{");
    for (size_t i = 0; i < e->u.axmap.n; i++) {
      if (i) put(o, ", ");
      put(o, e->u.axmap.entries[i].axis.name);
      put(o, ": ");
      sub(o, e->u.axmap.entries[i].value, 0);
    }
    put(o, "}");
    break;
  case AX_E_LIST:
    put(o, "[");
    for (size_t i = 0; i < e->u.list.n; i++) {
      if (i) put(o, ", ");
      sub(o, e->u.list.items[i], 0);
    }
    put(o, "]");
    break;
  }
}

static int flat_width(const AxExpr *e, int ctx) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AX_ASSERT(m);
  Out o = {m, 0, INT32_MAX};
  sub(&o, e, ctx);
  fclose(m);
  free(buf);
  return (int)len;
}

void ax_print_expr(FILE *out, const AxExpr *e) {
  Out o = {out, 0, INT32_MAX};
  sub(&o, e, 0);
}

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
  uint32_t last; /* source offset where the last printed comment ended */
} Printer;

static bool blank_between(const Printer *p, uint32_t a, uint32_t b);

static int line_of(const Printer *p, uint32_t off) {
  int line, col;
  ax_source_linecol(p->f->src, off, &line, &col);
  return line;
}

static void comment(Printer *p, const AxComment *c) {
  fwrite(p->f->src->text + c->span.start, 1, c->span.end - c->span.start, p->out);
}

/* Comments that start before `off`, each on its own line at `indent`. A blank line
 * between two comments of a run is kept (the caller handles the one before the run). */
static void leading(Printer *p, uint32_t off, const char *indent) {
  bool first = true;
  while (p->next < p->f->ncomments && p->f->comments[p->next].span.start < off) {
    const AxComment *c = &p->f->comments[p->next++];
    if (!first && blank_between(p, p->last, c->span.start)) fputc('\n', p->out);
    fputs(indent, p->out);
    comment(p, c);
    fputc('\n', p->out);
    p->last = c->span.end;
    first = false;
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
  const AxSource *src = p->f->src;
  const char *t = src->text;
  int newlines = 0;
  for (uint32_t i = a; i < b && i < src->len; i++) {
    if (ax_source_is_break(src, i)) {
      if (++newlines >= 2) return true;
    } else if (t[i] == '#') {
      while (i + 1 < b && i + 1 < src->len && !ax_source_is_break(src, i + 1)) i++;
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

/* One statement at two spaces of indentation. A rewrite too wide for one line breaks
 * after '=>' (the scanner continues a statement after '=>'); a call too wide for what is
 * left of its line breaks between arguments. */
static void stmt_line(Printer *p, const AxStmt *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AX_ASSERT(m);
  stmt(m, s);
  fclose(m);
  if (len + 2 <= WIDTH || (s->kind != AX_S_REWRITE && s->kind != AX_S_REQUIRE && s->kind != AX_S_HINT)) {
    fprintf(p->out, "  %s", buf);   /* declarations are short */
  } else if (s->kind != AX_S_REWRITE) {
    /* a long list of conditions continues after a comma, one indentation step deeper */
    Out o = {p->out, 0, WIDTH};
    put(&o, s->kind == AX_S_REQUIRE ? "  require " : "  hint ");
    for (size_t i = 0; i < s->nexprs; i++) {
      if (i) {
        put(&o, ",");
        if (o.col + 1 + flat_width(s->exprs[i], 0) > WIDTH) put(&o, "\n   ");
        put(&o, " ");
      }
      sub(&o, s->exprs[i], 0);
    }
  } else {
    Out o = {p->out, 0, WIDTH};
    put(&o, "  ");
    sub(&o, s->lhs, 0);
    if (o.col + 3 + flat_width(s->rhs, 0) <= WIDTH) {
      put(&o, " => ");
    } else {
      put(&o, " =>\n    ");
    }
    sub(&o, s->rhs, 0);
  }
  free(buf);
}

static const char *tclass_name(AxTypeClass tc) { return ax_typeclass_name(tc); }

static void header(FILE *out, const AxBlock *b) {
  if (b->kind == AX_B_RULE) {
    fprintf(out, "rule %s", b->name.name);
    if (b->tvar.name) fprintf(out, " for %s in %s", b->tvar.name, tclass_name(b->tclass));
    if (b->expect_written)
      fprintf(out, " expect %s", b->expect == AX_EXPECT_VALID     ? "valid"
                                 : b->expect == AX_EXPECT_INVALID ? "invalid"
                                 : b->expect == AX_EXPECT_TRIVIAL ? "trivial"
                                                                  : "invalid hint");
  } else {
    fprintf(out, "program %s", b->name.name);
  }
  fputs(" {", out);
}

void ax_print_block(FILE *out, const AxBlock *b) {
  header(out, b);
  fputc('\n', out);
  for (size_t i = 0; i < b->nstmts; i++) {
    fputs("  ", out);
    stmt(out, b->stmts[i]);
    fputc('\n', out);
  }
  fputs("}\n", out);
}

static void block(Printer *p, const AxBlock *b) {
  FILE *out = p->out;
  leading(p, b->span.start, "");
  header(out, b);
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

static void print_file(FILE *out, const AxFile *f) {
  Printer p = {out, f, 0, 0};
  for (size_t i = 0; i < f->nblocks; i++) {
    if (i) fputc('\n', out);
    block(&p, f->blocks[i]);
  }
  if (f->nblocks && p.next < f->ncomments &&
      blank_between(&p, f->blocks[f->nblocks - 1]->span.end, f->comments[p.next].span.start))
    fputc('\n', out);
  leading(&p, UINT32_MAX, "");
}

/* The file's line ending: that of its first line ("\n" when it has one line). */
static const char *line_end(const AxSource *src) {
  for (size_t i = 0; i < src->len; i++)
    if (ax_source_is_break(src, i))
      return src->text[i] == '\r' ? "\r" : i > 0 && src->text[i - 1] == '\r' ? "\r\n" : "\n";
  return "\n";
}

void ax_print_file(FILE *out, const AxFile *f) {
  const char *eol = line_end(f->src);
  if (strcmp(eol, "\n") == 0) {
    print_file(out, f);
    return;
  }
  /* printed with "\n", then given the file's own line ending, so that fmt --write does
   * not change every line of a CRLF (or CR) file */
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AX_ASSERT(m);
  print_file(m, f);
  fclose(m);
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == '\n') fputs(eol, out);
    else fputc(buf[i], out);
  }
  free(buf);
}
