/* parser.y — the grammar of XLA's HLO text format (hlo.h shows an example).
 *
 * A pure, reentrant LALR(1) parser with byte-span locations; actions call hlo.c's builders
 * and check nothing (names, opcodes and shapes are hlo.c's later pass). The first syntax
 * error stops the parse: one located message, "unexpected X, expected Y". */
%require "3.6"
%define api.pure full
%define api.prefix {hloyy}
%define api.location.type {AxHloLoc}
%define parse.error custom
%locations
%expect 0
%parse-param {struct AxHloParser *p}
%lex-param {void *lexer}

%code requires {
#include "hlo/hlo.h"
#include "hlo/lexstate.h"
typedef struct AxHloLoc { uint32_t start, end; } AxHloLoc;
struct AxHloParser;
#define YYLLOC_DEFAULT(cur, rhs, n)                                       \
  do {                                                                    \
    if (n) { (cur).start = YYRHSLOC(rhs, 1).start; (cur).end = YYRHSLOC(rhs, n).end; } \
    else { (cur).start = (cur).end = YYRHSLOC(rhs, 0).end; }              \
  } while (0)
}

%code provides {
#define YYSTYPE HLOYYSTYPE
#define YYLTYPE HLOYYLTYPE
int hloyylex(HLOYYSTYPE *lval, AxHloLoc *lloc, void *scanner);
}

%code {
#include <string.h>

typedef struct AxHloParser {
  AxHloBuild *b;
  AxDiag *d;
  const AxSource *src;
  void *scanner;
  AxHloLex lex;
} AxHloParser;

#define lexer (p->scanner)
#define B (p->b)
#define SP(loc) ((AxSpan){p->src, (loc).start, (loc).end})

static void hloyyerror(AxHloLoc *loc, AxHloParser *p, const char *msg);
}

%union {
  const char *str;
  AxHloShape *shape;
  AxHloOperand *operand;
  AxVec *vec;
  bool flag;
}

%token <str> NAME "name" TYPE "element type" INT "integer" FLOAT "number" LAYOUT "layout"
%token <str> ATTR "attribute" ATTRVAL "attribute value"
%token STRING "string" BADCHAR "invalid character"
%token HLOMODULE "HloModule" ENTRY "ENTRY" ROOT "ROOT" ARROW "->" ELLIPSIS "..."

%type <shape> shape
%type <vec> shapes shapes1 dims dims1 attrs operands operands1
%type <operand> operand
%type <str> layout dim1
%type <flag> root

%%

/* The header is optional, as in XLA's parser: a file may start with its first
 * computation (the module is then named after its entry). */
module:
    HLOMODULE NAME attrs comps  { ax_hlo_mk_module(B, $2, $3, SP(@2)); }
  | comp comps
  ;

attrs:
    %empty                  { $$ = ax_hlo_vec(B); }
  | attrs ',' ATTR ATTRVAL  { $$ = $1; ax_hlo_mk_attr(B, $$, $3, $4, SP(@4)); }
  ;

comps:
    %empty
  | comps comp
  | comps section
  ;

comp:
    compname signature '{' instrs '}' attrs  { ax_hlo_end_comp(B, $6); }
  ;

/* The computation opens when its name is read: the signature's and the body's checks need
 * it. A plain name is told from a section's by the token after it. */
compname:
    NAME        { ax_hlo_begin_comp(B, $1, false, SP(@1)); }
  | ENTRY NAME  { ax_hlo_begin_comp(B, $2, true, SP(@2)); }
  ;

/* The stack-frame index newer XLA versions print after the header (`FileNames`,
 * `FunctionNames`, `FileLocations`, `StackFrames`): numbered strings and records
 * `N {key=value ...}` that metadata's `stack_frame_id=` points into. Read and dropped:
 * nothing the importer maps depends on where the Python source was. */
section:
    NAME records1
  ;

records1:
    record
  | records1 record
  ;

record:
    INT STRING
  | INT '{' fields '}'
  ;

fields:
    %empty
  | fields NAME '=' number
  ;

signature:
    %empty
  | '(' params ')' ARROW shape
  ;

params:
    %empty
  | params1
  ;

params1:
    param
  | params1 ',' param
  ;

param:
    NAME ':' shape
  ;

instrs:
    %empty
  | instrs instr
  ;

instr:
    root NAME '=' shape NAME '(' operands ')' attrs
      { ax_hlo_mk_instr(B, $1, $2, SP(@2), $4, $5, SP(@5), $7, SP(@7), $9, SP(@$)); }
  ;

root:
    %empty  { $$ = false; }
  | ROOT    { $$ = true; }
  ;

operands:
    %empty     { $$ = ax_hlo_vec(B); }
  | operands1
  ;

operands1:
    operand                { $$ = ax_hlo_vec(B); ax_hlo_push(B, $$, $1); }
  | operands1 ',' operand  { $$ = $1; ax_hlo_push(B, $$, $3); }
  ;

operand:
    shape NAME  { $$ = ax_hlo_mk_operand(B, $2, $1, SP(@$)); }
  | NAME        { $$ = ax_hlo_mk_operand(B, $1, NULL, SP(@$)); }
  | literal     { $$ = ax_hlo_mk_operand(B, NULL, NULL, SP(@$)); }
  ;

/* A constant's value: a number, a word (true, inf, nan), nested braces of them, or
 * `{...}` for data the printer left out. Kept as text. */
literal:
    number
  | '-' number
  | '-' NAME
  | '{' items '}'
  | '(' items1 ')'   /* a tuple or complex literal: (1, 0) */
  ;

number:
    INT
  | FLOAT
  ;

items:
    %empty
  | items1
  ;

items1:
    item
  | items1 ',' item
  ;

item:
    literal
  | NAME
  | ELLIPSIS
  ;

shape:
    TYPE '[' dims ']' layout  { $$ = ax_hlo_mk_shape(B, $1, $3, $5, SP(@$)); }
  | '(' shapes ')'            { $$ = ax_hlo_mk_tuple(B, $2, SP(@$)); }
  ;

layout:
    %empty   { $$ = NULL; }
  | LAYOUT
  ;

shapes:
    %empty   { $$ = ax_hlo_vec(B); }
  | shapes1
  ;

shapes1:
    shape               { $$ = ax_hlo_vec(B); ax_hlo_push(B, $$, $1); }
  | shapes1 ',' shape   { $$ = $1; ax_hlo_push(B, $$, $3); }
  ;

dims:
    %empty   { $$ = ax_hlo_vec(B); }
  | dims1
  ;

dims1:
    dim1              { $$ = ax_hlo_vec(B); ax_hlo_mk_dim(B, $$, $1); }
  | dims1 ',' dim1    { $$ = $1; ax_hlo_mk_dim(B, $$, $3); }
  ;

dim1:
    INT              { $$ = $1; }
  | '<' '=' INT      { $$ = NULL; }   /* bounded dynamic */
  | '?'              { $$ = NULL; }   /* unbounded dynamic */
  ;

%%

#include "lexer.h"

static const char *tokname(yysymbol_kind_t k) {
  if (k == YYSYMBOL_YYEOF) return "end of file";
  const char *s = yysymbol_name(k);
  return s ? s : "token";
}

/* The one renderer of syntax errors: what was found and, when few tokens fit, which. */
static int yyreport_syntax_error(const yypcontext_t *ctx, AxHloParser *p) {
  yysymbol_kind_t exp[YYNTOKENS];
  int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (nexp < 0) nexp = 0;
  yysymbol_kind_t got = yypcontext_token(ctx);
  const AxHloLoc *loc = yypcontext_location(ctx);
  char msg[512];
  size_t len;
  if (got == YYSYMBOL_BADCHAR) {
    unsigned char c = (unsigned char)p->src->text[loc->start];
    if (c >= 0x20 && c < 0x7f)
      len = (size_t)snprintf(msg, sizeof msg, "invalid character '%c'", c);
    else
      len = (size_t)snprintf(msg, sizeof msg, "invalid byte 0x%02x", c);
  } else if (got == YYSYMBOL_YYEOF && loc->start == 0 && p->lex.off == 0) {
    len = (size_t)snprintf(msg, sizeof msg, "empty file: expected 'HloModule NAME'");
    nexp = 0;
  } else {
    len = (size_t)snprintf(msg, sizeof msg, "unexpected %s", tokname(got));
    if (got == YYSYMBOL_NAME || got == YYSYMBOL_INT || got == YYSYMBOL_FLOAT || got == YYSYMBOL_TYPE)
      len += (size_t)snprintf(msg + len, sizeof msg - len, " '%.*s'",
                              (int)(loc->end - loc->start > 40 ? 40 : loc->end - loc->start),
                              p->src->text + loc->start);
  }
  if (got != YYSYMBOL_BADCHAR && nexp > 0 && nexp <= 5)
    for (int i = 0; i < nexp && len < sizeof msg; i++)
      len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                              i == 0 ? ", expected " : i == nexp - 1 ? " or " : ", ",
                              tokname(exp[i]));
  AxSpan at = SP(*loc);
  if (got == YYSYMBOL_YYEOF) {   /* point just after the last thing written */
    uint32_t end = (uint32_t)p->src->len;
    while (end > 0 && strchr(" \t\r\n", p->src->text[end - 1])) end--;
    at.start = at.end = end;
  }
  ax_diag_error(p->d, at, "%s", msg);
  return 0;
}

static void hloyyerror(AxHloLoc *loc, AxHloParser *p, const char *msg) {
  if (strcmp(msg, "memory exhausted") == 0)
    ax_diag_error(p->d, SP(*loc), "nested too deeply");
  else
    ax_diag_error(p->d, SP(*loc), "%s", msg);
}

bool ax_hlo_syntax(AxHloBuild *b, AxArena *a, AxDiag *d, const AxSource *src) {
  AxHloParser p = {.b = b, .d = d, .src = src};
  p.lex.arena = a;
  p.lex.text = src->text;
  hloyylex_init_extra(&p.lex, &p.scanner);
  YY_BUFFER_STATE buf = hloyy_scan_bytes(src->text, (int)src->len, p.scanner);
  int rc = hloyyparse(&p);
  hloyy_delete_buffer(buf, p.scanner);
  hloyylex_destroy(p.scanner);
  return rc == 0;
}
