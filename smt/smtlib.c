/* smtlib.c — prints queries as SMT-LIB2 and reads solver answers; see smtlib.h. */
#include "smt/smtlib.h"

#include <string.h>

/* A subterm nested deeper than this inside one printed expression gets an abbreviation of
 * its own: solvers parse recursively, and our DAGs can be deep chains (ite cascades). */
#define MAX_DEPTH 48

/* Never used as a declared name: SMT-LIB reserved words and commands, and the built-in
 * functions of logic ALL in z3 4.8 and cvc5 1.0 whose names are simple symbols. */
static const char *const reserved[] = {
  "!", "_", "as", "BINARY", "DECIMAL", "exists", "forall", "HEXADECIMAL", "let", "match",
  "NUMERAL", "par", "STRING", "lambda",
  "assert", "check-sat", "check-sat-assuming", "declare-const", "declare-datatype",
  "declare-datatypes", "declare-fun", "declare-sort", "define-fun", "define-fun-rec",
  "define-funs-rec", "define-sort", "echo", "exit", "get-assertions", "get-assignment",
  "get-info", "get-model", "get-option", "get-proof", "get-unsat-assumptions",
  "get-unsat-core", "get-value", "pop", "push", "reset", "reset-assertions", "set-info",
  "set-logic", "set-option",
  "Bool", "Int", "Real", "Array", "String", "true", "false", "not", "and", "or", "xor",
  "=>", "=", "distinct", "ite", "+", "-", "*", "/", "div", "mod", "rem", "abs", "^",
  "to_real", "to_int", "is_int", "divisible", "<", "<=", ">", ">=", "select", "store",
  "const", "concat", "extract", "repeat", "exp", "sqrt", "sin", "cos", "tan", "csc", "sec",
  "cot", "arcsin", "arccos", "arctan", "arccsc", "arcsec", "arccot", "iand", "choose",
  "witness", "root-obj", "as-array", "default", "map", "union", "intersection",
  "setminus", "subset", "member", "complement", "insert", "singleton", "card",
};

/* --- A set of strings (the names a script uses), open addressing ------------------------ */

typedef struct NameSet {
  const char **slots;
  size_t cap, count;
} NameSet;

static size_t hash_str(const char *s) {
  uint64_t h = 14695981039346656037u;   /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (size_t)h;
}

static bool set_has(const NameSet *s, const char *name) {
  for (size_t i = hash_str(name) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
    if (strcmp(s->slots[i], name) == 0) return true;
  return false;
}

/* name must outlive the set. */
static void set_add(NameSet *s, const char *name) {
  if (set_has(s, name)) return;
  if (2 * (s->count + 1) > s->cap) {
    NameSet big = {ax_xcalloc(2 * s->cap, sizeof(char *)), 2 * s->cap, 0};
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i]) set_add(&big, s->slots[i]);
    free(s->slots);
    *s = big;
  }
  size_t i = hash_str(name) & (s->cap - 1);
  while (s->slots[i]) i = (i + 1) & (s->cap - 1);
  s->slots[i] = name;
  s->count++;
}

/* --- Deciding names ---------------------------------------------------------------------------- */

typedef struct Decl {
  const char *name;      /* the user's name */
  int what;              /* 0: variable, 1: function (variables sort first) */
  const AxTerm *var;
  const AxFunc *func;
} Decl;

struct AxSmtlibQuery {
  AxTermCtx *tc;
  AxArena *a;
  const AxTerm *formula;
  const AxTerm *const *watch;
  size_t nwatch;
  uint32_t size;          /* ax_term_ctx_size when built: ids below index the tables */
  AxVec order;            /* every distinct subterm, children first */
  NameSet users;          /* every declared user name (sanitised), while naming */
  uint32_t *refs;         /* by id: parents (and root uses) */
  const char **name;      /* by id: the symbol of a variable or of a definition */
  const char **fname;     /* by func id */
  Decl *decls;
  size_t ndecls;
  NameSet used;
};

static bool is_simple_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && strchr("~!@$%^&*_-+=<>.?/", c) != NULL);
}

static bool is_simple_symbol(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!is_simple_char(*s)) return false;
  return true;
}

static bool is_reserved(const char *s) {
  for (size_t i = 0; i < AX_COUNTOF(reserved); i++)
    if (strcmp(s, reserved[i]) == 0) return true;
  return false;
}

/* The name as it can appear at all: no '|' or '\' (which quoted symbols cannot hold), not
 * empty, not starting with '@' or '.' (reserved for solvers). */
static const char *sanitize(AxArena *a, const char *name) {
  size_t n = strlen(name);
  bool prefix = n == 0 || name[0] == '@' || name[0] == '.';
  char *s = ax_arena_alloc(a, n + 2);
  char *p = s;
  if (prefix) *p++ = '_';
  for (size_t i = 0; i < n; i++) *p++ = (name[i] == '|' || name[i] == '\\') ? '_' : name[i];
  *p = '\0';
  return s;
}

/* The symbol of a declaration named base: base itself when no earlier declaration took
 * it and it is not reserved, else the first base!k that is neither used nor the name of
 * any other declaration. Marks it used. */
static const char *fresh(AxSmtlibQuery *q, const char *base) {
  const char *s = base;
  for (unsigned k = 1; is_reserved(s) || set_has(&q->used, s) ||
                       (s != base && set_has(&q->users, s));
       k++)
    s = ax_arena_printf(q->a, "%s!%u", base, k);
  set_add(&q->used, s);
  return s;
}

static int decl_cmp(const void *pa, const void *pb) {
  const Decl *a = pa, *b = pb;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  if (a->what != b->what) return a->what - b->what;
  if (a->what == 0) return (int)ax_term_sort(a->var) - (int)ax_term_sort(b->var);
  return 0;   /* one function per name */
}

static void count_refs(const AxTerm *t, void *data) {
  AxSmtlibQuery *q = data;
  ax_vec_push(q->a, &q->order, (void *)t);
  for (size_t i = 0; i < ax_term_nargs(t); i++) q->refs[ax_term_id(ax_term_arg(t, i))]++;
}

AxSmtlibQuery *ax_smtlib_query_new(AxTermCtx *tc, const AxTerm *formula,
                                   const AxTerm *const *watch, size_t nwatch) {
  AxSmtlibQuery *q = ax_xcalloc(1, sizeof *q);
  q->tc = tc;
  q->a = ax_arena_new();
  q->formula = formula;
  q->watch = watch;
  q->nwatch = nwatch;
  q->size = ax_term_ctx_size(tc);
  q->refs = ax_arena_alloc(q->a, (q->size + 1) * sizeof *q->refs);
  q->name = ax_arena_alloc(q->a, (q->size + 1) * sizeof *q->name);
  q->fname = ax_arena_alloc(q->a, (ax_term_ctx_nfuncs(tc) + 1) * sizeof *q->fname);
  q->used = (NameSet){ax_xcalloc(64, sizeof(char *)), 64, 0};

  /* Pass 1: the subterms, children first, and how often each is used. */
  const AxTerm **roots = ax_xmalloc((nwatch + 1) * sizeof *roots);
  roots[0] = formula;
  for (size_t i = 0; i < nwatch; i++) roots[i + 1] = watch[i];
  ax_term_postorder(tc, roots, nwatch + 1, count_refs, q);
  free(roots);
  q->refs[ax_term_id(formula)]++;
  for (size_t i = 0; i < nwatch; i++) q->refs[ax_term_id(watch[i])]++;

  /* Declarations, sorted by name; each user name is reserved before any is handed out so
   * that a suffixed name never takes a name a user wrote. */
  q->decls = ax_arena_alloc(q->a, (q->order.len + 1) * sizeof *q->decls);
  uint8_t *fseen = ax_xcalloc(ax_term_ctx_nfuncs(tc) + 1, 1);
  for (size_t i = 0; i < q->order.len; i++) {
    const AxTerm *t = q->order.items[i];
    if (ax_term_kind(t) == AX_TERM_VAR) {
      q->decls[q->ndecls++] =
          (Decl){sanitize(q->a, ax_term_var_name(t)), 0, t, NULL};
    } else if (ax_term_kind(t) == AX_TERM_APP) {
      const AxFunc *f = ax_term_app_func(t);
      if (fseen[ax_term_func_id(f)]++) continue;
      q->decls[q->ndecls++] = (Decl){sanitize(q->a, ax_term_func_name(f)), 1, NULL, f};
    }
  }
  free(fseen);
  qsort(q->decls, q->ndecls, sizeof *q->decls, decl_cmp);
  q->users = (NameSet){ax_xcalloc(64, sizeof(char *)), 64, 0};
  for (size_t i = 0; i < q->ndecls; i++) set_add(&q->users, q->decls[i].name);
  for (size_t i = 0; i < q->ndecls; i++) {
    const Decl *d = &q->decls[i];
    const char *s = fresh(q, d->name);
    if (d->what == 0)
      q->name[ax_term_id(d->var)] = s;
    else
      q->fname[ax_term_func_id(d->func)] = s;
  }
  /* Definitions avoid every user name too (a user's `s!1` keeps its name). */
  for (size_t i = 0; i < q->users.cap; i++)
    if (q->users.slots[i]) set_add(&q->used, q->users.slots[i]);
  free(q->users.slots);
  q->users.slots = NULL;

  /* Pass 2: definitions for shared and deep subterms (leaves always print inline). */
  uint32_t *depth = ax_xcalloc(q->size + 1, sizeof *depth);
  unsigned ndefs = 0;
  for (size_t i = 0; i < q->order.len; i++) {
    const AxTerm *t = q->order.items[i];
    uint32_t id = ax_term_id(t), d = 0;
    if (ax_term_nargs(t) == 0) continue;
    for (size_t j = 0; j < ax_term_nargs(t); j++) {
      uint32_t aid = ax_term_id(ax_term_arg(t, j));
      if (!q->name[aid] && depth[aid] + 1 > d) d = depth[aid] + 1;
    }
    if (d == 0) d = 1;
    depth[id] = d;
    if (q->refs[id] > 1 || d > MAX_DEPTH) {
      const char *s;
      do s = ax_arena_printf(q->a, "s!%u", ++ndefs);
      while (set_has(&q->used, s));
      set_add(&q->used, s);
      q->name[id] = s;
      depth[id] = 0;
    }
  }
  free(depth);
  return q;
}

const char *ax_smtlib_query_def(const AxSmtlibQuery *q, const AxTerm *t) {
  uint32_t id = ax_term_id(t);
  return id < q->size && ax_term_nargs(t) > 0 ? q->name[id] : NULL;
}

void ax_smtlib_query_free(AxSmtlibQuery *q) {
  if (!q) return;
  free(q->used.slots);
  ax_arena_free(q->a);
  free(q);
}

/* --- Printing ------------------------------------------------------------------------------------ */

static void put_symbol(FILE *out, const char *s) {
  if (is_simple_symbol(s))
    fputs(s, out);
  else
    fprintf(out, "|%s|", s);
}

static void put_mpz_abs(FILE *out, mpz_srcptr z) {
  if (mpz_sgn(z) >= 0) {
    mpz_out_str(out, 10, z);
    return;
  }
  mpz_t t;
  mpz_init(t);
  mpz_neg(t, z);
  mpz_out_str(out, 10, t);
  mpz_clear(t);
}

static void put_const(FILE *out, const AxTerm *t) {
  switch (ax_term_kind(t)) {
  case AX_TERM_TRUE: fputs("true", out); return;
  case AX_TERM_FALSE: fputs("false", out); return;
  default: break;
  }
  mpq_t v;
  mpq_init(v);
  ax_term_real_value(t, v);
  bool neg = mpq_sgn(v) < 0;
  if (neg) fputs("(- ", out);
  if (ax_term_kind(t) == AX_TERM_INT) {
    put_mpz_abs(out, mpq_numref(v));
  } else if (mpz_cmp_ui(mpq_denref(v), 1) == 0) {
    put_mpz_abs(out, mpq_numref(v));
    fputs(".0", out);
  } else {
    fputs("(/ ", out);
    put_mpz_abs(out, mpq_numref(v));
    fputs(".0 ", out);
    mpz_out_str(out, 10, mpq_denref(v));
    fputs(".0)", out);
  }
  if (neg) fputc(')', out);
  mpq_clear(v);
}

/* t inline (top: even when t itself is named); named arguments by name. Recursion is
 * bounded by MAX_DEPTH. */
static void put_expr(FILE *out, const AxSmtlibQuery *q, const AxTerm *t, bool top) {
  uint32_t id = ax_term_id(t);
  if (q->name[id] && (!top || ax_term_kind(t) == AX_TERM_VAR)) {
    put_symbol(out, q->name[id]);
    return;
  }
  AxTermKind k = ax_term_kind(t);
  if (ax_term_is_const(t)) {
    put_const(out, t);
    return;
  }
  if (k == AX_TERM_FP_LIT) {   /* (fp sign exponent significand), each a binary literal */
    AxSort so = ax_term_sort(t);
    int eb = ax_term_fp_ebits(so), sb = ax_term_fp_sbits(so);
    uint32_t bits = ax_term_fp_bits_value(t);
    fprintf(out, "(fp #b%u #b", (unsigned)(bits >> (eb + sb - 1)) & 1u);
    for (int i = eb + sb - 2; i >= sb - 1; i--) fputc('0' + (int)(bits >> i & 1u), out);
    fputs(" #b", out);
    for (int i = sb - 2; i >= 0; i--) fputc('0' + (int)(bits >> i & 1u), out);
    fputc(')', out);
    return;
  }
  if (k == AX_TERM_FP_OF_REAL) {   /* the second argument only carries the target sort */
    AxSort so = ax_term_sort(t);
    fprintf(out, "((_ to_fp %d %d) RNE ", ax_term_fp_ebits(so), ax_term_fp_sbits(so));
    put_expr(out, q, ax_term_arg(t, 0), false);
    fputc(')', out);
    return;
  }
  size_t n = ax_term_nargs(t);
  if (k == AX_TERM_APP) {
    const char *f = q->fname[ax_term_func_id(ax_term_app_func(t))];
    if (n == 0) {
      put_symbol(out, f);
      return;
    }
    fputc('(', out);
    put_symbol(out, f);
  } else {
    fprintf(out, "(%s", ax_term_kind_name(k));
  }
  for (size_t i = 0; i < n; i++) {
    fputc(' ', out);
    put_expr(out, q, ax_term_arg(t, i), false);
  }
  fputc(')', out);
}

void ax_smtlib_write_query(FILE *out, const AxSmtlibQuery *q, const char *comment) {
  if (comment) {
    for (const char *p = comment; *p;) {
      size_t n = strcspn(p, "\n");
      fprintf(out, "; %.*s\n", (int)n, p);
      p += n;
      if (*p) p++;
    }
  }
  fputs("(set-option :produce-models true)\n", out);
  /* cvc5 1.0 takes floating point other than Float32/Float64 only with its experimental
   * option (IEEE mode's f16 and bf16) */
  for (size_t i = 0; i < q->order.len; i++) {
    AxSort so = ax_term_sort(q->order.items[i]);
    if (so == AX_SORT_F16 || so == AX_SORT_BF16) {
      fputs("(set-option :fp-exp true)\n", out);
      break;
    }
  }
  fputs("(set-logic ALL)\n", out);
  for (size_t i = 0; i < q->ndecls; i++) {
    const Decl *d = &q->decls[i];
    fputs("(declare-fun ", out);
    if (d->what == 0) {
      put_symbol(out, q->name[ax_term_id(d->var)]);
      fprintf(out, " () %s)\n", ax_term_sort_name(ax_term_sort(d->var)));
      continue;
    }
    put_symbol(out, q->fname[ax_term_func_id(d->func)]);
    fputs(" (", out);
    for (size_t j = 0; j < ax_term_func_nargs(d->func); j++)
      fprintf(out, "%s%s", j ? " " : "", ax_term_sort_name(ax_term_func_argsort(d->func, j)));
    fprintf(out, ") %s)\n", ax_term_sort_name(ax_term_func_result(d->func)));
  }
  for (size_t i = 0; i < q->order.len; i++) {
    const AxTerm *t = q->order.items[i];
    if (ax_term_kind(t) == AX_TERM_VAR || !q->name[ax_term_id(t)]) continue;
    fputs("(declare-fun ", out);
    put_symbol(out, q->name[ax_term_id(t)]);
    fprintf(out, " () %s)\n(assert (= ", ax_term_sort_name(ax_term_sort(t)));
    put_symbol(out, q->name[ax_term_id(t)]);
    fputc(' ', out);
    put_expr(out, q, t, true);
    fputs("))\n", out);
  }
  fputs("(assert ", out);
  put_expr(out, q, q->formula, false);
  fputs(")\n(check-sat)\n", out);
}

void ax_smtlib_write_get_value(FILE *out, const AxSmtlibQuery *q) {
  if (q->nwatch == 0) return;
  fputs("(get-value (", out);
  for (size_t i = 0; i < q->nwatch; i++) {
    if (i) fputc(' ', out);
    put_expr(out, q, q->watch[i], false);
  }
  fputs("))\n", out);
}

void ax_smtlib_write(FILE *out, AxTermCtx *tc, const AxTerm *formula,
                     const AxTerm *const *watch, size_t nwatch, const char *comment) {
  AxSmtlibQuery *q = ax_smtlib_query_new(tc, formula, watch, nwatch);
  ax_smtlib_write_query(out, q, comment);
  ax_smtlib_write_get_value(out, q);
  ax_smtlib_query_free(q);
}

/* --- Reading ------------------------------------------------------------------------------------- */

#define MAX_NEST 4096

typedef struct Reader {
  AxArena *a;
  const char *buf;
  size_t len, pos;
  bool eof;
} Reader;

static bool is_delim(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
         c == '(' || c == ')' || c == ';' || c == '"' || c == '|';
}

/* Skips blanks and ; comments. */
static void skip_blank(Reader *r) {
  while (r->pos < r->len) {
    char c = r->buf[r->pos];
    if (c == ';') {
      while (r->pos < r->len && r->buf[r->pos] != '\n') r->pos++;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      r->pos++;
    } else {
      return;
    }
  }
}

static AxSexp *mk_sexp(Reader *r, AxSexpKind kind) {
  AxSexp *e = ax_arena_alloc(r->a, sizeof *e);
  e->kind = kind;
  return e;
}

/* sexp: atom | string | '|' chars '|' | '(' sexp* ')' */
static AxSexpStatus sexp(Reader *r, int nest, const AxSexp **out) {
  skip_blank(r);
  if (r->pos == r->len) return AX_SEXP_MORE;
  char c = r->buf[r->pos];
  if (c == ')') return AX_SEXP_BAD;
  if (c == '(') {
    if (nest >= MAX_NEST) return AX_SEXP_BAD;
    r->pos++;
    size_t n = 0, cap = 8;
    const AxSexp **items = ax_xmalloc(cap * sizeof *items);
    for (;;) {
      skip_blank(r);
      if (r->pos == r->len) {
        free(items);
        return AX_SEXP_MORE;
      }
      if (r->buf[r->pos] == ')') break;
      const AxSexp *item;
      AxSexpStatus st = sexp(r, nest + 1, &item);
      if (st != AX_SEXP_OK) {
        free(items);
        return st;
      }
      if (n == cap) items = ax_xrealloc(items, (cap *= 2) * sizeof *items);
      items[n++] = item;
    }
    r->pos++;
    AxSexp *e = mk_sexp(r, AX_SEXP_LIST);
    e->n = n;
    e->items = ax_arena_alloc(r->a, (n + 1) * sizeof *items);
    if (n) memcpy(e->items, items, n * sizeof *items);
    free(items);
    *out = e;
    return AX_SEXP_OK;
  }
  if (c == '"') {   /* "" stands for one quote */
    size_t start = ++r->pos;
    char *text = ax_arena_alloc(r->a, r->len - start + 1), *p = text;
    for (;;) {
      if (r->pos == r->len) return AX_SEXP_MORE;
      char d = r->buf[r->pos++];
      if (d == '"') {
        if (r->pos == r->len && !r->eof) return AX_SEXP_MORE;
        if (r->pos < r->len && r->buf[r->pos] == '"') {
          r->pos++;
          *p++ = '"';
          continue;
        }
        break;
      }
      *p++ = d;
    }
    *p = '\0';
    AxSexp *e = mk_sexp(r, AX_SEXP_STRING);
    e->text = text;
    *out = e;
    return AX_SEXP_OK;
  }
  if (c == '|') {
    const char *end = memchr(r->buf + r->pos + 1, '|', r->len - r->pos - 1);
    if (!end) return AX_SEXP_MORE;
    AxSexp *e = mk_sexp(r, AX_SEXP_ATOM);
    e->text = ax_arena_strndup(r->a, r->buf + r->pos + 1, (size_t)(end - r->buf - r->pos - 1));
    r->pos = (size_t)(end - r->buf) + 1;
    *out = e;
    return AX_SEXP_OK;
  }
  size_t start = r->pos;
  while (r->pos < r->len && !is_delim(r->buf[r->pos])) r->pos++;
  if (r->pos == r->len && !r->eof) return AX_SEXP_MORE;
  AxSexp *e = mk_sexp(r, AX_SEXP_ATOM);
  e->text = ax_arena_strndup(r->a, r->buf + start, r->pos - start);
  *out = e;
  return AX_SEXP_OK;
}

AxSexpStatus ax_smtlib_read(AxArena *a, const char *buf, size_t len, bool eof, size_t *pos,
                            const AxSexp **out) {
  Reader r = {a, buf, len, *pos, eof};
  AxSexpStatus st = sexp(&r, 0, out);
  if (st == AX_SEXP_OK) *pos = r.pos;
  return st;
}

bool ax_smtlib_is_atom(const AxSexp *e, const char *text) {
  return e->kind == AX_SEXP_ATOM && strcmp(e->text, text) == 0;
}

/* numeral: [0-9]+   decimal: [0-9]+ '.' [0-9]+ */
static bool number(const char *s, mpq_t out) {
  size_t ni = strspn(s, "0123456789");
  if (ni == 0) return false;
  size_t nf = 0;
  if (s[ni] == '.') {
    nf = strspn(s + ni + 1, "0123456789");
    if (nf == 0) return false;
  }
  if (s[ni + (nf ? nf + 1 : 0)] != '\0') return false;
  char *digits = ax_xmalloc(ni + nf + 1);
  memcpy(digits, s, ni);
  if (nf) memcpy(digits + ni, s + ni + 1, nf);
  digits[ni + nf] = '\0';
  /* bounded by the answer's length: a solver's output is read up to 256 MiB (pipe.c
   * MAX_OUTPUT), and 10^nf has no more digits than the numeral has */
  mpz_set_str(mpq_numref(out), digits, 10);
  free(digits);
  mpz_ui_pow_ui(mpq_denref(out), 10, nf);
  mpq_canonicalize(out);
  return true;
}

bool ax_smtlib_rational(const AxSexp *e, mpq_t out) {
  if (e->kind == AX_SEXP_ATOM) return number(e->text, out);
  if (e->kind != AX_SEXP_LIST || e->n < 2 || e->items[0]->kind != AX_SEXP_ATOM) return false;
  if (e->n == 2 && ax_smtlib_is_atom(e->items[0], "-")) {
    if (!ax_smtlib_rational(e->items[1], out)) return false;
    mpq_neg(out, out);
    return true;
  }
  if (e->n == 3 && ax_smtlib_is_atom(e->items[0], "/")) {
    mpq_t d;
    mpq_init(d);
    bool ok = ax_smtlib_rational(e->items[1], out) && ax_smtlib_rational(e->items[2], d) &&
              mpq_sgn(d) != 0;
    if (ok) mpq_div(out, out, d);
    mpq_clear(d);
    return ok;
  }
  return false;
}

bool ax_smtlib_bool(const AxSexp *e, bool *out) {
  if (ax_smtlib_is_atom(e, "true")) *out = true;
  else if (ax_smtlib_is_atom(e, "false")) *out = false;
  else return false;
  return true;
}

/* "#b0101" -> its value and width; false for anything else. */
static bool binary_atom(const AxSexp *e, uint64_t *v, int *w) {
  if (e->kind != AX_SEXP_ATOM || strncmp(e->text, "#b", 2) != 0) return false;
  *v = 0;
  *w = 0;
  for (const char *p = e->text + 2; *p; p++) {
    if ((*p != '0' && *p != '1') || *w >= 40) return false;
    *v = *v << 1 | (uint64_t)(*p - '0');
    ++*w;
  }
  return *w > 0;
}

bool ax_smtlib_fp_bits(const AxSexp *e, AxSort s, uint32_t *out) {
  int eb = ax_term_fp_ebits(s), sb = ax_term_fp_sbits(s);
  uint32_t sign = 1u << (eb + sb - 1), expmask = ((1u << eb) - 1) << (sb - 1);
  if (e->kind != AX_SEXP_LIST) return false;
  if (e->n == 4 && ax_smtlib_is_atom(e->items[0], "fp")) {
    uint64_t v[3];
    int w[3];
    for (int i = 0; i < 3; i++)
      if (!binary_atom(e->items[i + 1], &v[i], &w[i])) return false;
    if (w[0] != 1 || w[1] != eb || w[2] != sb - 1) return false;
    *out = (uint32_t)(v[0] << (eb + sb - 1) | v[1] << (sb - 1) | v[2]);
    return true;
  }
  /* (_ NaN eb sb), (_ +zero eb sb), (_ -zero eb sb), (_ +oo eb sb), (_ -oo eb sb) */
  if (e->n != 4 || !ax_smtlib_is_atom(e->items[0], "_")) return false;
  const AxSexp *k = e->items[1];
  if (ax_smtlib_is_atom(k, "NaN")) *out = expmask | 1u << (sb - 2);
  else if (ax_smtlib_is_atom(k, "+zero")) *out = 0;
  else if (ax_smtlib_is_atom(k, "-zero")) *out = sign;
  else if (ax_smtlib_is_atom(k, "+oo")) *out = expmask;
  else if (ax_smtlib_is_atom(k, "-oo")) *out = sign | expmask;
  else return false;
  return true;
}
