/* parser.y — the grammar of the .axl language (docs/language.md has it as EBNF).
 *
 * A pure, reentrant LALR(1) parser with byte-span locations. Actions only build syntax
 * (ast.c); names, types and axes are the checker's business. Syntax errors are rendered
 * by one function (report) and the parser recovers at the end of the statement, so a
 * file with several mistakes gets one message for each. */
%require "3.6"
%define api.pure full
%define api.prefix {axl}
%define api.location.type {AxLoc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {struct AxParser *p}
%lex-param {void *lexer}

%code requires {
#include "dsl/ast.h"
#include "dsl/lexstate.h"
typedef struct AxLoc { uint32_t start, end; } AxLoc;
struct AxParser;
#define YYLLOC_DEFAULT(cur, rhs, n)                                       \
  do {                                                                    \
    if (n) { (cur).start = YYRHSLOC(rhs, 1).start; (cur).end = YYRHSLOC(rhs, n).end; } \
    else { (cur).start = (cur).end = YYRHSLOC(rhs, 0).end; }              \
  } while (0)
}

%code provides {
/* flex's bison-bridge speaks of YYSTYPE and YYLTYPE whatever the prefix */
#define YYSTYPE AXLSTYPE
#define YYLTYPE AXLLTYPE
int axllex(AXLSTYPE *lval, AxLoc *lloc, void *scanner);
}

%code {
#include <string.h>

#include "base/decimal.h"
#include "dsl/build.h"
#include "dsl/parse.h"

typedef struct AxParser {
  AxArena *a;
  AxDiag *d;
  const AxSource *src;
  void *scanner;
  AxLexState lex;
  AxVec blocks;
} AxParser;

#define lexer (p->scanner)
#define A (p->a)
#define SP(loc) ax_span(p->src, (loc).start, (loc).end)

static void axlerror(AxLoc *loc, AxParser *p, const char *msg);
}

%union {
  const char *str;
  AxExpr *expr;
  AxStmt *stmt;
  AxBlock *block;
  AxVec *vec;
  AxIdent *ident;
  AxArg *arg;
  AxAxEntry *entry;
  AxDim *dim;
  AxTypeRef *type;
  int num;
}

%token <str> IDENT "identifier" INTLIT "integer" REALLIT "decimal number"
%token <str> BADCHAR "invalid character"
%token NL "end of line" ARROW "=>" EQEQ "==" NEQ "!=" LT "<" LE "<=" GT ">" GE ">="
%token RULE "rule" PROGRAM "program" FOR "for" IN "in" EXPECT "expect" VALID "valid"
%token INVALID_KW "invalid" TRIVIAL "trivial" RCLASS "rclass" AXES "axes" MAP "map" OVER "over"
%token NONNEG "nonneg" INDEX "index" TENSOR "tensor" SCALAR "scalar" LET "let"
%token REQUIRE "require" HINT "hint" INPUT "input" OUTPUT "output"
%token ANY "any" NUM "num" INT "int" REAL "real" BOOL "bool" F16 "f16" BF16 "bf16" F32 "f32"
%token TRUE "true" FALSE "false" INF "inf" AND "and" OR "or" NOT "not"
%token IF "if" THEN "then" ELSE "else" FORALL "forall" EXISTS "exists"

%type <block> block head
%type <stmt> stmt
%type <expr> expr primary
%type <vec> stmts body idents exprs exprs_opt args args_opt entries entries_opt dims dims_opt
%type <ident> ident
%type <arg> arg
%type <entry> entry
%type <dim> dim
%type <type> type
%type <num> tclass nonneg_opt expect_opt
%type <expr> mapdef_opt

%precedence IF FORALL EXISTS
%left OR
%left AND
%precedence NOT
%nonassoc EQEQ NEQ LT LE GT GE
%left '+' '-'
%left '*' '/' '%'
%precedence UMINUS

%%

/* file = { block | newline } */
file
  : %empty
  | file NL
  | file block                 { ax_vec_push(A, &p->blocks, $2); }
  | file error '}'
  ;

/* block = "rule" ident ["for" ident "in" tclass] ["expect" ("valid"|"invalid" ["hint"]|"trivial")] "{" body "}"
 *       | "program" ident "{" body "}" */
block
  : RULE ident head expect_opt '{' body '}'
                                 { $$ = ax_build_rule(A, $2, $3, $4, $6, SP(@$)); }
  | PROGRAM ident '{' body '}'   { $$ = ax_build_program(A, $2, $4, SP(@$)); }
  ;

head
  : %empty                       { $$ = NULL; }
  | FOR ident IN tclass          { $$ = ax_build_head(A, $2, $4, SP(@4)); }
  ;

tclass
  : ANY   { $$ = AX_TC_ANY; }
  | NUM   { $$ = AX_TC_NUM; }
  | INT   { $$ = AX_TC_INT; }
  | REAL  { $$ = AX_TC_REAL; }
  | BOOL  { $$ = AX_TC_BOOL; }
  ;

expect_opt
  : %empty               { $$ = -1; }
  | EXPECT VALID         { $$ = AX_EXPECT_VALID; }
  | EXPECT INVALID_KW    { $$ = AX_EXPECT_INVALID; }
  | EXPECT INVALID_KW HINT { $$ = AX_EXPECT_INVALID_HINT; }
  | EXPECT TRIVIAL       { $$ = AX_EXPECT_TRIVIAL; }
  ;

/* body = { [stmt] (newline | ";") } [stmt] */
body
  : stmts                { $$ = $1; }
  | stmts stmt           { $$ = $1; ax_vec_push(A, $$, $2); }
  | stmts error          { $$ = $1; }
  ;

stmts
  : %empty               { $$ = ax_build_vec(A); }
  | stmts sep            { $$ = $1; }
  | stmts stmt sep       { $$ = $1; ax_vec_push(A, $$, $2); }
  | stmts error sep      { $$ = $1; yyerrok; }
  ;

sep : NL | ';' ;

stmt
  : RCLASS idents                     { $$ = ax_build_decl(A, AX_S_RCLASS, $2, NULL, SP(@$)); }
  | AXES idents ':' ident             { $$ = ax_build_decl(A, AX_S_AXES, $2, $4, SP(@$)); }
  | MAP idents OVER ident nonneg_opt mapdef_opt
                                      { $$ = ax_build_map(A, $2, $4, $5, $6, SP(@$)); }
  | INDEX idents OVER ident           { $$ = ax_build_decl(A, AX_S_INDEX, $2, $4, SP(@$)); }
  | TENSOR idents ':' type            { $$ = ax_build_tensor(A, AX_S_TENSOR, $2, $4, NULL, SP(@$)); }
  | TENSOR idents ':' type '[' dims_opt ']'
                                      { $$ = ax_build_tensor(A, AX_S_TENSOR, $2, $4, $6, SP(@$)); }
  | SCALAR idents ':' type            { $$ = ax_build_tensor(A, AX_S_SCALAR, $2, $4, NULL, SP(@$)); }
  | LET ident '=' expr                { $$ = ax_build_let(A, AX_S_LET, $2, $4, SP(@$)); }
  | REQUIRE exprs                     { $$ = ax_build_conds(A, AX_S_REQUIRE, $2, SP(@$)); }
  | HINT exprs                        { $$ = ax_build_conds(A, AX_S_HINT, $2, SP(@$)); }
  | expr ARROW expr                   { $$ = ax_build_rewrite(A, $1, $3, SP(@$)); }
  | INPUT idents ':' type '[' dims_opt ']'
                                      { $$ = ax_build_tensor(A, AX_S_INPUT, $2, $4, $6, SP(@$)); }
  | INPUT idents ':' type             { $$ = ax_build_tensor(A, AX_S_INPUT, $2, $4, NULL, SP(@$)); }
  | OUTPUT ident                      { $$ = ax_build_let(A, AX_S_OUTPUT, $2, NULL, SP(@$)); }
  | OUTPUT ident '=' expr             { $$ = ax_build_let(A, AX_S_OUTPUT, $2, $4, SP(@$)); }
  ;

nonneg_opt
  : %empty               { $$ = 0; }
  | NONNEG               { $$ = 1; }
  ;

mapdef_opt
  : %empty               { $$ = NULL; }
  | '=' expr             { $$ = $2; }
  ;

type
  : IDENT                { $$ = ax_build_type(A, AX_TY_VAR, $1, SP(@$)); }
  | INT                  { $$ = ax_build_type(A, AX_TY_INT, NULL, SP(@$)); }
  | REAL                 { $$ = ax_build_type(A, AX_TY_REAL, NULL, SP(@$)); }
  | BOOL                 { $$ = ax_build_type(A, AX_TY_BOOL, NULL, SP(@$)); }
  | F16                  { $$ = ax_build_type(A, AX_TY_F16, NULL, SP(@$)); }
  | BF16                 { $$ = ax_build_type(A, AX_TY_BF16, NULL, SP(@$)); }
  | F32                  { $$ = ax_build_type(A, AX_TY_F32, NULL, SP(@$)); }
  ;

/* dims = dim {"," dim};  dim = ident ":" expr  (rules)  |  expr  (programs) */
dims_opt
  : %empty               { $$ = ax_build_vec(A); }
  | dims                 { $$ = $1; }
  ;

dims
  : dim                  { $$ = ax_build_vec1(A, $1); }
  | dims ',' dim         { $$ = $1; ax_vec_push(A, $$, $3); }
  ;

dim
  : IDENT ':' expr       { $$ = ax_build_dim(A, ax_build_ident(A, $1, SP(@1)), $3); }
  | expr                 { $$ = ax_build_dim(A, NULL, $1); }
  ;

idents
  : ident                { $$ = ax_build_vec1(A, $1); }
  | idents ',' ident     { $$ = $1; ax_vec_push(A, $$, $3); }
  ;

ident
  : IDENT                { $$ = ax_build_ident(A, $1, SP(@$)); }
  ;

exprs
  : expr                 { $$ = ax_build_vec1(A, $1); }
  | exprs ',' expr       { $$ = $1; ax_vec_push(A, $$, $3); }
  ;

exprs_opt
  : %empty               { $$ = ax_build_vec(A); }
  | exprs                { $$ = $1; }
  ;

/* expr: precedence from loosest to tightest — if/forall/exists, or, and, not,
 * comparisons, + -, * / %, unary minus. */
expr
  : IF expr THEN expr ELSE expr %prec IF   { $$ = ax_build_if(A, $2, $4, $6, SP(@$)); }
  | FORALL ident ':' expr %prec FORALL     { $$ = ax_build_quant(A, false, $2, $4, SP(@$)); }
  | EXISTS ident ':' expr %prec EXISTS     { $$ = ax_build_quant(A, true, $2, $4, SP(@$)); }
  | expr OR expr         { $$ = ax_build_binary(A, AX_BIN_OR, $1, $3, SP(@$)); }
  | expr AND expr        { $$ = ax_build_binary(A, AX_BIN_AND, $1, $3, SP(@$)); }
  | NOT expr             { $$ = ax_build_unary(A, AX_UN_NOT, $2, SP(@$)); }
  | expr EQEQ expr       { $$ = ax_build_binary(A, AX_BIN_EQ, $1, $3, SP(@$)); }
  | expr NEQ expr        { $$ = ax_build_binary(A, AX_BIN_NE, $1, $3, SP(@$)); }
  | expr LT expr         { $$ = ax_build_binary(A, AX_BIN_LT, $1, $3, SP(@$)); }
  | expr LE expr         { $$ = ax_build_binary(A, AX_BIN_LE, $1, $3, SP(@$)); }
  | expr GT expr         { $$ = ax_build_binary(A, AX_BIN_GT, $1, $3, SP(@$)); }
  | expr GE expr         { $$ = ax_build_binary(A, AX_BIN_GE, $1, $3, SP(@$)); }
  | expr '+' expr        { $$ = ax_build_binary(A, AX_BIN_ADD, $1, $3, SP(@$)); }
  | expr '-' expr        { $$ = ax_build_binary(A, AX_BIN_SUB, $1, $3, SP(@$)); }
  | expr '*' expr        { $$ = ax_build_binary(A, AX_BIN_MUL, $1, $3, SP(@$)); }
  | expr '/' expr        { $$ = ax_build_binary(A, AX_BIN_DIV, $1, $3, SP(@$)); }
  | expr '%' expr        { $$ = ax_build_binary(A, AX_BIN_REM, $1, $3, SP(@$)); }
  | '-' expr %prec UMINUS { $$ = ax_build_unary(A, AX_UN_NEG, $2, SP(@$)); }
  | primary              { $$ = $1; }
  ;

primary
  : INTLIT               { $$ = ax_build_text(A, AX_E_INT, $1, SP(@$)); }
  | REALLIT              { $$ = ax_build_text(A, AX_E_REAL, $1, SP(@$)); }
  | TRUE                 { $$ = ax_build_bool(A, true, SP(@$)); }
  | FALSE                { $$ = ax_build_bool(A, false, SP(@$)); }
  | INF                  { $$ = ax_build_text(A, AX_E_INF, "inf", SP(@$)); }
  | IDENT                { $$ = ax_build_text(A, AX_E_NAME, $1, SP(@$)); }
  | IDENT '(' args_opt ')'
                         { $$ = ax_build_call(A, ax_build_ident(A, $1, SP(@1)), $3, SP(@$)); }
  | '(' expr ')'         { $$ = $2; }
  | '{' entries_opt '}'  { $$ = ax_build_axmap(A, $2, SP(@$)); }
  | '[' exprs_opt ']'    { $$ = ax_build_list(A, $2, SP(@$)); }
  ;

/* args = arg {"," arg};  arg = expr | ident "=" expr */
args_opt
  : %empty               { $$ = ax_build_vec(A); }
  | args                 { $$ = $1; }
  ;

args
  : arg                  { $$ = ax_build_vec1(A, $1); }
  | args ',' arg         { $$ = $1; ax_vec_push(A, $$, $3); }
  ;

arg
  : expr                 { $$ = ax_build_arg(A, NULL, $1); }
  | IDENT '=' expr       { $$ = ax_build_arg(A, ax_build_ident(A, $1, SP(@1)), $3); }
  ;

/* entries = entry {"," entry};  entry = ident ":" expr */
entries_opt
  : %empty               { $$ = ax_build_vec(A); }
  | entries              { $$ = $1; }
  ;

entries
  : entry                { $$ = ax_build_vec1(A, $1); }
  | entries ',' entry    { $$ = $1; ax_vec_push(A, $$, $3); }
  ;

entry
  : IDENT ':' expr       { $$ = ax_build_entry(A, ax_build_ident(A, $1, SP(@1)), $3); }
  ;

%%

#include "lexer.h"

/* A token as a user reads it: 'rule', '=>', identifier, end of line, ... */
static const char *tokname(yysymbol_kind_t k, char *buf, size_t n) {
  if (k == YYSYMBOL_YYEOF) return "end of file";
  const char *s = yysymbol_name(k);
  if (s[0] == '\'' || s[0] == '"') return s;
  if (strchr(s, ' ') || k == YYSYMBOL_IDENT || k == YYSYMBOL_INTLIT) return s;
  snprintf(buf, n, "'%s'", s);
  return buf;
}

static bool is_char(yysymbol_kind_t k, const char *quoted) {
  return strcmp(yysymbol_name(k), quoted) == 0;
}

static bool is_operator(yysymbol_kind_t k) {
  return k == YYSYMBOL_EQEQ || k == YYSYMBOL_NEQ || k == YYSYMBOL_LT || k == YYSYMBOL_LE ||
         k == YYSYMBOL_GT || k == YYSYMBOL_GE || k == YYSYMBOL_AND || k == YYSYMBOL_OR ||
         is_char(k, "'+'") || is_char(k, "'*'") || is_char(k, "'/'") || is_char(k, "'%'");
}

static bool starts_expr(yysymbol_kind_t k) {
  return k == YYSYMBOL_IDENT || k == YYSYMBOL_INTLIT || k == YYSYMBOL_REALLIT ||
         k == YYSYMBOL_TRUE || k == YYSYMBOL_FALSE || k == YYSYMBOL_INF || k == YYSYMBOL_NOT ||
         k == YYSYMBOL_IF || k == YYSYMBOL_FORALL || k == YYSYMBOL_EXISTS ||
         is_char(k, "'('") || is_char(k, "'{'") || is_char(k, "'['");
}

/* The one renderer of syntax errors: what was found, what would have fitted (operators
 * summed up as "an operator", expression starts as "an expression"), and a hint for the
 * mistakes people really make. */
static int yyreport_syntax_error(const yypcontext_t *ctx, AxParser *p) {
  yysymbol_kind_t exp[YYNTOKENS];
  int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (nexp < 0) nexp = 0;
  yysymbol_kind_t got = yypcontext_token(ctx);
  const AxLoc *loc = yypcontext_location(ctx);
  char msg[512], b1[64];
  size_t len = 0;
  if (got == YYSYMBOL_BADCHAR) {
    unsigned char c = (unsigned char)p->src->text[loc->start];
    if (c >= 0x20 && c < 0x7f)
      len = (size_t)snprintf(msg, sizeof msg, "invalid character '%c'", c);
    else
      len = (size_t)snprintf(msg, sizeof msg, "invalid byte 0x%02x", c);
  } else {
    len = (size_t)snprintf(msg, sizeof msg, "unexpected %s", tokname(got, b1, sizeof b1));
    const char *items[YYNTOKENS + 2];
    char names[YYNTOKENS][64];
    int n = 0, nstart = 0;
    bool ops = false;
    for (int i = 0; i < nexp; i++) {
      ops |= is_operator(exp[i]);
      nstart += starts_expr(exp[i]);
    }
    bool summarize = nstart >= 3;
    if (ops) items[n++] = "an operator";
    if (summarize) items[n++] = "an expression";
    for (int i = 0; i < nexp; i++) {
      if (is_operator(exp[i]) || (summarize && starts_expr(exp[i]))) continue;
      if (is_char(exp[i], "'-'") && (ops || summarize)) continue;
      items[n++] = tokname(exp[i], names[i], sizeof names[i]);
    }
    if (n > 0 && n <= 5)
      for (int i = 0; i < n && len < sizeof msg; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                                i == 0 ? ", expected " : i == n - 1 ? " or " : ", ", items[i]);
  }
  bool compares = false, chains = false;
  for (int i = 0; i < nexp; i++) {
    compares |= exp[i] == YYSYMBOL_EQEQ;
    chains |= exp[i] == YYSYMBOL_AND;
  }
  /* '=' where an expression continues: almost always a comparison meant as '==' */
  if (is_char(got, "'='") && compares && len < sizeof msg)
    len += (size_t)snprintf(msg + len, sizeof msg - len, " (use '==' to compare)");
  /* a keyword where a name was expected: `map int over x` */
  bool wants_name = false;
  for (int i = 0; i < nexp; i++) wants_name |= exp[i] == YYSYMBOL_IDENT;
  const char *gname = yysymbol_name(got);
  bool keyword = got != YYSYMBOL_IDENT && got != YYSYMBOL_YYEOF && gname[0] != '\'' && !strchr(gname, ' ');
  for (const char *q = gname; keyword && *q; q++) keyword = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9');
  if (keyword && wants_name && len < sizeof msg)
    len += (size_t)snprintf(msg + len, sizeof msg - len, " ('%s' is a keyword and cannot name anything)", gname);
  /* a < b < c: after a comparison only 'and'/'or' may follow */
  if (is_operator(got) && got != YYSYMBOL_AND && got != YYSYMBOL_OR && !compares && chains &&
      len < sizeof msg)
    len += (size_t)snprintf(msg + len, sizeof msg - len,
                            " (comparisons do not chain: write 'a < b and b < c')");
  AxSpan at = SP(*loc);
  if (got == YYSYMBOL_YYEOF) {   /* point just after the last thing written */
    uint32_t end = (uint32_t)p->src->len;
    while (end > 0 && strchr(" \t\r\n", p->src->text[end - 1])) end--;
    at.start = at.end = end;
    if (len < sizeof msg) {
      int line, col;
      ax_source_linecol(p->src, p->lex.block_start, &line, &col);
      snprintf(msg + len, sizeof msg - len, " (the block at line %d is not closed)", line);
    }
  }
  ax_diag_error(p->d, at, "%s", msg);
  return 0;
}

static void axlerror(AxLoc *loc, AxParser *p, const char *msg) {
  /* bison's own stack (YYMAXDEPTH symbols) ran out: only deep nesting does that */
  if (strcmp(msg, "memory exhausted") == 0)
    ax_diag_error(p->d, SP(*loc), "expression nested too deeply (at most %d levels)",
                  AX_PARSE_MAX_DEPTH);
  else
    ax_diag_error(p->d, SP(*loc), "%s", msg);
}

/* Reports a literal beyond the limits of base/decimal.h: no later pass (the exact values
 * of semantics/concrete.c, the solvers' numerals) is ever handed one. */
static void literal_limits(AxParser *p, const AxExpr *e) {
  switch (ax_decimal_limit(e->u.text, NULL, NULL)) {
  case AX_DECIMAL_OK: break;
  case AX_DECIMAL_TOO_MANY_DIGITS:
    ax_diag_error(p->d, e->span, "number too long (at most %d digits)", AX_DECIMAL_MAX_DIGITS);
    break;
  case AX_DECIMAL_EXPONENT_RANGE:
    ax_diag_error(p->d, e->span, "number's exponent out of range (at most %d in absolute value)",
                  AX_DECIMAL_MAX_EXPONENT);
    break;
  }
}

/* Reports the first expression of e nested deeper than AX_PARSE_MAX_DEPTH (depth: e's
 * own), and every literal beyond the limits on the way. Recurses at most that deep,
 * however deep the tree. */
static bool too_deep(AxParser *p, const AxExpr *e, int depth) {
  if (!e) return false;
  if (depth > AX_PARSE_MAX_DEPTH) {
    ax_diag_error(p->d, e->span, "expression nested too deeply (at most %d levels)",
                  AX_PARSE_MAX_DEPTH);
    return true;
  }
  depth++;
  switch (e->kind) {
  case AX_E_CALL:
    for (size_t i = 0; i < e->u.call.nargs; i++)
      if (too_deep(p, e->u.call.args[i].value, depth)) return true;
    return false;
  case AX_E_UNARY: return too_deep(p, e->u.unary.arg, depth);
  case AX_E_BINARY:
    return too_deep(p, e->u.binary.lhs, depth) || too_deep(p, e->u.binary.rhs, depth);
  case AX_E_IF:
    return too_deep(p, e->u.ite.cond, depth) || too_deep(p, e->u.ite.then_e, depth) ||
           too_deep(p, e->u.ite.else_e, depth);
  case AX_E_QUANT: return too_deep(p, e->u.quant.body, depth);
  case AX_E_AXMAP:
    for (size_t i = 0; i < e->u.axmap.n; i++)
      if (too_deep(p, e->u.axmap.entries[i].value, depth)) return true;
    return false;
  case AX_E_LIST:
    for (size_t i = 0; i < e->u.list.n; i++)
      if (too_deep(p, e->u.list.items[i], depth)) return true;
    return false;
  case AX_E_INT:
  case AX_E_REAL:
    literal_limits(p, e);
    return false;
  default: return false;
  }
}

static void check_limits(AxParser *p, const AxFile *f) {
  for (size_t b = 0; b < f->nblocks; b++)
    for (size_t i = 0; i < f->blocks[b]->nstmts; i++) {
      const AxStmt *s = f->blocks[b]->stmts[i];
      bool deep = too_deep(p, s->value, 0) || too_deep(p, s->lhs, 0) || too_deep(p, s->rhs, 0);
      for (size_t k = 0; !deep && k < s->nexprs; k++) deep = too_deep(p, s->exprs[k], 0);
      for (size_t k = 0; !deep && k < s->ndims; k++) deep = too_deep(p, s->dims[k].size, 0);
    }
}

AxFile *ax_parse(AxArena *a, AxDiag *d, const AxSource *src) {
  AxParser p = {.a = a, .d = d, .src = src};
  p.lex.arena = a;
  axllex_init_extra(&p.lex, &p.scanner);
  YY_BUFFER_STATE buf = axl_scan_bytes(src->text, (int)src->len, p.scanner);
  axlparse(&p);
  axl_delete_buffer(buf, p.scanner);
  axllex_destroy(p.scanner);
  AxFile *f = ax_build_file(a, src, &p.blocks, &p.lex.comments);
  check_limits(&p, f);
  return f;
}
