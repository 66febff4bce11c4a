/* mugtext.c — .mug scanner, recursive-descent parser and canonical printer. */
#include "superopt/ir/mugtext.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

/* ---- scanner ------------------------------------------------------------------------- */

typedef enum { T_EOF, T_IDENT, T_INT, T_REAL, T_PUNCT, T_BAD } TokKind;

typedef struct Tok {
  TokKind kind;
  uint32_t start, end;
  char c;            /* T_PUNCT: the character */
  bool nl;           /* a newline separates it from the previous token */
} Tok;

typedef struct Comment {
  uint32_t start, end;
  bool used;
} Comment;

typedef struct P {
  AxArena *a;
  AxDiag *d;
  const AxSource *src;
  const char *s;
  uint32_t pos;
  Tok tok;            /* current token */
  uint32_t prev_end;  /* end of the previous token */
  Comment *cm;
  int ncm, cmcap, cnext;
  int errors;
  AxMugraph *g;
  int gcap_t, gcap_s;
} P;

static AxSpan span(P *p, uint32_t s, uint32_t e) {
  AxSpan sp = {p->src, s, e};
  return sp;
}

static void scan(P *p) {
  const char *s = p->s;
  uint32_t n = (uint32_t)p->src->len;
  bool nl = false;
  p->prev_end = p->tok.end;
  for (;;) {
    while (p->pos < n && (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\r' || s[p->pos] == '\n')) {
      if (ax_source_is_break(p->src, p->pos)) nl = true;   /* LF, CRLF or a lone CR */
      p->pos++;
    }
    if (p->pos < n && s[p->pos] == '#') {
      uint32_t st = p->pos;
      while (p->pos < n && s[p->pos] != '\n' && s[p->pos] != '\r') p->pos++;
      if (p->ncm == p->cmcap) {
        p->cmcap = p->cmcap ? 2 * p->cmcap : 16;
        Comment *c = ax_arena_alloc(p->a, (size_t)p->cmcap * sizeof *c);
        if (p->ncm) memcpy(c, p->cm, (size_t)p->ncm * sizeof *c);
        p->cm = c;
      }
      p->cm[p->ncm++] = (Comment){st, p->pos, false};
      continue;
    }
    break;
  }
  Tok t = {T_EOF, p->pos, p->pos, 0, nl};
  if (p->pos >= n) {
    p->tok = t;
    return;
  }
  char c = s[p->pos];
  if (isalpha((unsigned char)c) || c == '_') {
    while (p->pos < n && (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_')) p->pos++;
    t.kind = T_IDENT;
  } else if (isdigit((unsigned char)c)) {
    t.kind = T_INT;
    while (p->pos < n && isdigit((unsigned char)s[p->pos])) p->pos++;
    if (p->pos < n && s[p->pos] == '.') {
      t.kind = T_REAL;
      p->pos++;
      while (p->pos < n && isdigit((unsigned char)s[p->pos])) p->pos++;
    }
    if (p->pos < n && (s[p->pos] == 'e' || s[p->pos] == 'E')) {
      uint32_t save = p->pos++;
      if (p->pos < n && (s[p->pos] == '+' || s[p->pos] == '-')) p->pos++;
      if (p->pos < n && isdigit((unsigned char)s[p->pos])) {
        t.kind = T_REAL;
        while (p->pos < n && isdigit((unsigned char)s[p->pos])) p->pos++;
      } else {
        p->pos = save;
      }
    }
  } else if (strchr("{}()[],:=-", c) && c) {
    t.kind = T_PUNCT;
    t.c = c;
    p->pos++;
  } else {
    t.kind = T_BAD;
    p->pos++;
  }
  t.end = p->pos;
  p->tok = t;
}

static char *text(P *p, Tok t) { return ax_arena_strndup(p->a, p->s + t.start, t.end - t.start); }

static bool is_word(P *p, const char *w) {
  size_t n = strlen(w);
  return p->tok.kind == T_IDENT && p->tok.end - p->tok.start == n && memcmp(p->s + p->tok.start, w, n) == 0;
}

static bool is_punct(P *p, char c) { return p->tok.kind == T_PUNCT && p->tok.c == c; }

static const char *describe(P *p) {
  switch (p->tok.kind) {
  case T_EOF: return "end of file";
  case T_BAD: return ax_arena_printf(p->a, "invalid character '%c'", p->s[p->tok.start]);
  default: return ax_arena_printf(p->a, "'%.*s'", (int)(p->tok.end - p->tok.start), p->s + p->tok.start);
  }
}

/* Reports "expected X, found Y" at the current token; always returns false. */
static bool expected(P *p, const char *what) {
  ax_diag_error(p->d, span(p, p->tok.start, p->tok.end), "expected %s, found %s", what, describe(p));
  p->errors++;
  return false;
}

static bool accept_punct(P *p, char c) {
  if (!is_punct(p, c)) return false;
  scan(p);
  return true;
}

static bool expect_punct(P *p, char c) {
  if (accept_punct(p, c)) return true;
  char w[8];
  snprintf(w, sizeof w, "'%c'", c);
  return expected(p, w);
}

static bool expect_word(P *p, const char *w) {
  if (is_word(p, w)) {
    scan(p);
    return true;
  }
  return expected(p, ax_arena_printf(p->a, "'%s'", w));
}

static bool name(P *p, const char **out, AxSpan *sp) {
  if (p->tok.kind != T_IDENT) return expected(p, "a name");
  *out = text(p, p->tok);
  if (sp) *sp = span(p, p->tok.start, p->tok.end);
  scan(p);
  return true;
}

/* INT, optionally negative when neg_ok. */
static bool integer(P *p, int64_t *out, bool neg_ok) {
  bool neg = false;
  uint32_t st = p->tok.start;
  if (neg_ok && is_punct(p, '-')) {
    neg = true;
    scan(p);
  }
  if (p->tok.kind != T_INT) return expected(p, "an integer");
  char *t = text(p, p->tok);
  if (strlen(t) > 15) {
    ax_diag_error(p->d, span(p, st, p->tok.end), "integer %s is too large", t);
    p->errors++;
    return false;
  }
  *out = strtoll(t, NULL, 10) * (neg ? -1 : 1);
  scan(p);
  return true;
}

/* ---- comments ------------------------------------------------------------------------ */

static bool line_between(P *p, uint32_t a, uint32_t b) {
  for (uint32_t i = a; i < b; i++)
    if (ax_source_is_break(p->src, i)) return true;
  return false;
}

static int newlines(P *p, uint32_t a, uint32_t b) {
  int n = 0;
  for (uint32_t i = a; i < b; i++) n += ax_source_is_break(p->src, i);
  return n;
}

/* Collects the comments before offset `upto` as leading comments of a statement, and
 * whether a blank line precedes them. `from` is where the previous construct ended. A
 * blank line between two of the comments is kept as an empty entry (printed as an empty
 * line), so that a block of comments in paragraphs prints back as written. */
static void lead(P *p, uint32_t from, uint32_t upto, AxNote *n) {
  uint32_t first = upto;
  int start = p->cnext, cnt = 0;
  while (p->cnext < p->ncm && p->cm[p->cnext].start < upto) {
    if (first == upto) first = p->cm[p->cnext].start;
    p->cnext++;
    cnt++;
  }
  n->blank = from > 0 && newlines(p, from, first) >= 2;
  if (!cnt) return;
  n->lead = ax_arena_alloc(p->a, (size_t)(2 * cnt) * sizeof *n->lead);
  for (int i = 0; i < cnt; i++) {
    Comment *c = &p->cm[start + i];
    if (i > 0 && newlines(p, p->cm[start + i - 1].end, c->start) >= 2) n->lead[n->nlead++] = "";
    n->lead[n->nlead++] = ax_arena_strndup(p->a, p->s + c->start, c->end - c->start);
  }
}

/* A comment right after the statement's last token, on the same line, trails it. */
static void trail(P *p, AxNote *n) {
  if (p->cnext >= p->ncm) return;
  Comment *c = &p->cm[p->cnext];
  if (c->start >= p->prev_end && !line_between(p, p->prev_end, c->start)) {
    n->trail = ax_arena_strndup(p->a, p->s + c->start, c->end - c->start);
    p->cnext++;
  }
}

/* ---- arrays -------------------------------------------------------------------------- */

static int new_tensor(P *p) { return ax_mug_new_tensor(p->a, p->g, &p->gcap_t); }

static AxKStmt *new_stmt(P *p) { return ax_mug_new_stmt(p->a, p->g, &p->gcap_s); }

/* ---- calls --------------------------------------------------------------------------- */

/* One operand of a call as the parser sees it. */
typedef struct Operand {
  const char *name;   /* a name, or NULL for a literal */
  const char *lit;    /* literal text (with '-' when negative) */
  AxRat value;
  AxSpan sp;
} Operand;

typedef struct Call {
  AxOp op;
  const char *opname;
  AxSpan opspan;
  Operand ops[AX_MAXIN];
  int nops;
  AxTAttrs at;
  const char *rescale;   /* accumulators: `rescale = NAME`, or NULL */
  AxSpan rescale_sp;
  int bseen;   /* bits of the slice or pad lists given (bounds) */
} Call;

/* bounds = ("start" | "limit" | "stride" | "low" | "high" | "interior") "=" "[" ["-"] INT
 *          { "," ["-"] INT } "]" — one of a slice's or a pad's lists (AX_TA_SLICE, AX_TA_PAD) */
static bool bounds(P *p, Call *c, int which, const char *an, AxSpan asp) {
  int32_t *dst = which == 0 ? c->at.lo : which == 1 ? c->at.hi : c->at.step;
  if (!expect_punct(p, '[')) return false;
  int n = 0;
  do {
    int64_t v;
    if (n == AX_MAXRANK) {
      ax_diag_error(p->d, asp, "'%s' lists at most %d axes", an, AX_MAXRANK);
      p->errors++;
      return false;
    }
    if (!integer(p, &v, true)) return false;
    if (v < INT32_MIN || v > INT32_MAX) {
      ax_diag_error(p->d, asp, "'%s' entries must fit 32 bits", an);
      p->errors++;
      return false;
    }
    dst[n++] = (int32_t)v;
  } while (accept_punct(p, ','));
  if (!expect_punct(p, ']')) return false;
  if (c->bseen && c->at.nbound != n) {
    ax_diag_error(p->d, asp, "'%s' lists %d axes, an earlier list %d", an, n, c->at.nbound);
    p->errors++;
    return false;
  }
  c->at.nbound = n;
  c->bseen |= 1 << which;
  return true;
}

/* attr = ("axis" | "to" | "times") "=" ["-"] INT | bounds */
static bool attr(P *p, Call *c, unsigned allowed, const char *fn) {
  AxTAttrs *at = &c->at;
  const char *an;
  AxSpan asp;
  if (!name(p, &an, &asp) || !expect_punct(p, '=')) return false;
  unsigned bflag = allowed & (AX_TA_SLICE | AX_TA_PAD);
  for (int k = 0; bflag && k < 3; k++)
    if (strcmp(an, ax_tattrs_bound_names(bflag)[k]) == 0) return bounds(p, c, k, an, asp);
  int64_t v;
  unsigned flag = strcmp(an, "axis") == 0 ? AX_TA_AXIS : strcmp(an, "to") == 0 ? AX_TA_TO
                  : strcmp(an, "times") == 0 ? AX_TA_TIMES : 0;
  if (!flag || !(allowed & flag)) {
    ax_diag_error(p->d, asp, "'%s' takes no attribute '%s'", fn, an);
    p->errors++;
    return false;
  }
  if (!integer(p, &v, true)) return false;
  if (flag == AX_TA_AXIS) at->axis = (int)v, at->axis_set = true;
  else if (flag == AX_TA_TO) at->to = v;
  else at->times = v;
  return true;
}

/* call = OP "(" arg { "," arg } ")" ; `acc` parses an accumulator's kind instead of an
 * operator (returned through *acc). */
static bool call(P *p, Call *c, AxAccKind *acc) {
  memset(c, 0, sizeof *c);
  if (!name(p, &c->opname, &c->opspan)) return false;
  unsigned allowed;
  if (acc) {
    if (strcmp(c->opname, "sum") == 0) *acc = AX_ACC_SUM, allowed = AX_TA_AXIS | AX_TA_TO;
    else if (strcmp(c->opname, "concat") == 0) *acc = AX_ACC_CONCAT, allowed = AX_TA_AXIS;
    else if (strcmp(c->opname, "rms") == 0) *acc = AX_ACC_RMS, allowed = AX_TA_AXIS;
    else if (strcmp(c->opname, "max") == 0) *acc = AX_ACC_MAX, allowed = AX_TA_AXIS;
    else {
      ax_diag_error(p->d, c->opspan, "unknown accumulator '%s' (expected sum, concat, rms or max)", c->opname);
      p->errors++;
      return false;
    }
  } else {
    if (!ax_op_lookup_prog(c->opname, &c->op)) {
      ax_diag_error(p->d, c->opspan, "unknown operator '%s'", c->opname);
      p->errors++;
      return false;
    }
    allowed = ax_op_spec(c->op)->tattrs;
  }
  if (!expect_punct(p, '(')) return false;
  bool first = true;
  while (!is_punct(p, ')')) {
    if (!first && !expect_punct(p, ',')) return false;
    first = false;
    if (p->tok.kind == T_IDENT) {
      /* name or attr: look one token ahead for '=' */
      uint32_t save_pos = p->pos;
      Tok save = p->tok;
      uint32_t save_prev = p->prev_end;
      int save_nc = p->ncm;
      scan(p);
      bool is_attr = is_punct(p, '=');
      p->pos = save_pos;
      p->tok = save;
      p->prev_end = save_prev;
      p->ncm = save_nc;
      if (is_attr && acc && is_word(p, "rescale")) {
        /* rescale = NAME: a max accumulator, resolved by the caller */
        scan(p);
        if (!expect_punct(p, '=') || !name(p, &c->rescale, &c->rescale_sp)) return false;
        continue;
      }
      if (is_attr) {
        if (!attr(p, c, allowed, c->opname)) return false;
        continue;
      }
      if (c->nops == AX_MAXIN) {
        ax_diag_error(p->d, span(p, p->tok.start, p->tok.end), "'%s' has too many operands", c->opname);
        p->errors++;
        return false;
      }
      Operand *o = &c->ops[c->nops++];
      if (!name(p, &o->name, &o->sp)) return false;
      continue;
    }
    if (is_punct(p, '[')) {
      uint32_t st = p->tok.start;
      scan(p);
      if (!(allowed & AX_TA_SHAPE)) {
        ax_diag_error(p->d, span(p, st, p->tok.end), "'%s' takes no shape", c->opname);
        p->errors++;
        return false;
      }
      c->at.shape.rank = 0;
      do {
        int64_t v;
        if (c->at.shape.rank == AX_MAXRANK) {
          ax_diag_error(p->d, span(p, st, p->tok.end), "shapes have at most %d dims", AX_MAXRANK);
          p->errors++;
          return false;
        }
        if (!integer(p, &v, false)) return false;
        c->at.shape.dim[c->at.shape.rank++] = v;
      } while (accept_punct(p, ','));
      if (!expect_punct(p, ']')) return false;
      continue;
    }
    /* a literal operand */
    uint32_t st = p->tok.start;
    bool neg = accept_punct(p, '-');
    if (p->tok.kind != T_INT && p->tok.kind != T_REAL) return expected(p, "an operand");
    if (c->nops == AX_MAXIN) return expected(p, "')'");
    Operand *o = &c->ops[c->nops++];
    char *t = text(p, p->tok);
    if (!ax_rat_parse(t, &o->value)) {
      ax_diag_error(p->d, span(p, p->tok.start, p->tok.end), "constant %s cannot be represented exactly", t);
      p->errors++;
      return false;
    }
    if (neg) o->value.num = -o->value.num;
    o->lit = neg ? ax_arena_printf(p->a, "-%s", t) : t;
    o->sp = span(p, st, p->tok.end);
    scan(p);
  }
  unsigned bflag = allowed & (AX_TA_SLICE | AX_TA_PAD);
  if (bflag && (c->bseen & 3) != 3) {
    const char *const *nm = ax_tattrs_bound_names(bflag);
    ax_diag_error(p->d, c->opspan, "'%s' needs '%s' and '%s'", c->opname, nm[0], nm[1]);
    p->errors++;
    return false;
  }
  if (bflag && !(c->bseen & 4))   /* stride 1, interior 0 */
    for (int k = 0; k < c->at.nbound; k++) c->at.step[k] = bflag == AX_TA_SLICE ? 1 : 0;
  scan(p);   /* ')' */
  return true;
}

/* ---- kernel-level statements ----------------------------------------------------------- */

static bool define_check(P *p, const char *nm, AxSpan sp) {
  if (ax_mug_find(p->g, nm) >= 0) {
    ax_diag_error(p->d, sp, "'%s' is already defined", nm);
    p->errors++;
    return false;
  }
  return true;
}

/* "input" NAME { "," NAME } ":" DTYPE "[" INT { "," INT } "]" — as in programs, one
 * declaration may name several inputs of one type; each becomes a statement of its own */
static bool g_input(P *p, AxKStmt *st) {
  enum { MAX_NAMES = 64 };
  const char *nms[MAX_NAMES], *dt;
  AxSpan sps[MAX_NAMES], dsp;
  int n = 0;
  uint32_t st0 = p->tok.start;
  size_t first = (size_t)(st - p->g->stmts);
  scan(p);
  do {
    if (n == MAX_NAMES) return expected(p, "':' (at most 64 names in one input declaration)");
    if (!name(p, &nms[n], &sps[n])) return false;
    n++;
  } while (accept_punct(p, ','));
  if (!expect_punct(p, ':') || !name(p, &dt, &dsp)) return false;
  AxDtype dtype;
  if (!ax_dtype_lookup(dt, &dtype)) {
    ax_diag_error(p->d, dsp, "unknown element type '%s' (expected f16, bf16 or f32)", dt);
    p->errors++;
    return false;
  }
  AxTShape shape = {0};
  if (!expect_punct(p, '[')) return false;
  do {
    int64_t v;
    if (shape.rank == AX_MAXRANK) return expected(p, "']'");
    if (!integer(p, &v, false)) return false;
    shape.dim[shape.rank++] = v;
  } while (accept_punct(p, ','));
  if (!expect_punct(p, ']')) return false;
  for (int i = 0; i < n; i++) {
    if (!define_check(p, nms[i], sps[i])) return false;
    size_t at = i ? (size_t)(new_stmt(p) - p->g->stmts) : first;   /* new_stmt may move them */
    int t = new_tensor(p);
    AxKTensor *kt = &p->g->tensors[t];
    kt->name = nms[i];
    kt->span = sps[i];
    kt->stmt = (int)at;
    kt->dtype = dtype;
    kt->shape = shape;
    AxKStmt *s = &p->g->stmts[at];
    s->kind = AX_KS_INPUT;
    s->t = t;
    s->span = span(p, st0, p->prev_end);
  }
  return true;
}

/* NAME "=" call  (pre-defined kernel operator) */
static bool g_op(P *p, AxKStmt *st) {
  const char *nm;
  AxSpan sp;
  Call c;
  if (!name(p, &nm, &sp) || !define_check(p, nm, sp) || !expect_punct(p, '=') || !call(p, &c, NULL))
    return false;
  st->kind = AX_KS_OP;
  st->op = c.op;
  st->at = c.at;
  for (int i = 0; i < c.nops; i++) {
    Operand *o = &c.ops[i];
    int t;
    if (o->name) {
      t = ax_mug_find(p->g, o->name);
      if (t < 0) {
        ax_diag_error(p->d, o->sp, "'%s' is not defined", o->name);
        p->errors++;
        return false;
      }
    } else {
      t = new_tensor(p);
      AxKTensor *kt = &p->g->tensors[t];
      kt->anon = true;
      kt->name = o->lit;
      kt->text = o->lit;
      kt->value = o->value;
      kt->span = o->sp;
      kt->dtype = AX_DT_F32;
      kt->stmt = (int)(st - p->g->stmts);
    }
    st->in[st->nin] = t;
    st->in_span[st->nin++] = o->sp;
  }
  int t = new_tensor(p);
  p->g->tensors[t].name = nm;
  p->g->tensors[t].span = sp;
  p->g->tensors[t].stmt = (int)(st - p->g->stmts);
  st->t = t;
  return true;
}

/* "output" NAME { "," NAME } */
static bool g_output(P *p, AxKStmt *st) {
  scan(p);
  st->kind = AX_KS_OUTPUT;
  int cap = 0;
  do {
    const char *nm;
    AxSpan sp;
    if (!name(p, &nm, &sp)) return false;
    int t = ax_mug_find(p->g, nm);
    if (t < 0) {
      ax_diag_error(p->d, sp, "output '%s' is not defined", nm);
      p->errors++;
      return false;
    }
    for (int i = 0; i < p->g->noutputs; i++)
      if (p->g->outputs[i] == t) {
        ax_diag_error(p->d, sp, "'%s' is already an output", nm);
        p->errors++;
        return false;
      }
    int ocap = cap;
    st->outs = ax_mug_grow(p->a, st->outs, st->nouts, &cap, sizeof *st->outs);
    cap = ocap;
    st->out_spans = ax_mug_grow(p->a, st->out_spans, st->nouts, &cap, sizeof *st->out_spans);
    st->outs[st->nouts] = t;
    st->out_spans[st->nouts++] = sp;
    int gcap = p->g->noutputs;
    p->g->outputs = ax_mug_grow(p->a, p->g->outputs, p->g->noutputs, &gcap, sizeof *p->g->outputs);
    p->g->outputs[p->g->noutputs++] = t;
  } while (accept_punct(p, ','));
  return true;
}

/* ---- block graphs --------------------------------------------------------------------- */

typedef struct KP {
  AxKernel *k;
  int cap;
} KP;

static AxBNode *new_node(P *p, KP *kp) {
  AxKernel *k = kp->k;
  k->nodes = ax_mug_grow(p->a, k->nodes, k->nnodes, &kp->cap, sizeof *k->nodes);
  AxBNode *n = &k->nodes[k->nnodes++];
  memset(n, 0, sizeof *n);
  n->thread = -1;
  n->src = n->dst = -1;
  n->imap[0] = n->imap[1] = n->imap[2] = n->fmap = -1;
  n->omap[0] = n->omap[1] = n->omap[2] = -1;
  return n;
}

static bool node_define_check(P *p, KP *kp, const char *nm, AxSpan sp) {
  if (ax_mug_find_node(kp->k, nm, kp->k->nnodes) >= 0) {
    ax_diag_error(p->d, sp, "kernel '%s': '%s' is already defined", kp->k->name, nm);
    p->errors++;
    return false;
  }
  return true;
}

/* map = "{" [ gaxis ":" dim { "," gaxis ":" dim } ] "}" */
static bool gmap(P *p, int *m) {
  if (!expect_punct(p, '{')) return false;
  bool first = true;
  while (!is_punct(p, '}')) {
    if (!first && !expect_punct(p, ',')) return false;
    first = false;
    int g = is_word(p, "x") ? 0 : is_word(p, "y") ? 1 : is_word(p, "z") ? 2 : -1;
    if (g < 0) return expected(p, "a grid axis (x, y or z)");
    AxSpan gs = span(p, p->tok.start, p->tok.end);
    scan(p);
    if (!expect_punct(p, ':')) return false;
    int64_t v = -1;
    if (!accept_punct(p, '-') && !integer(p, &v, false)) return false;
    if (v > AX_MAXRANK) {
      ax_diag_error(p->d, gs, "dim %" PRId64 " is out of range", v);
      p->errors++;
      return false;
    }
    m[g] = (int)v;
  }
  scan(p);
  return true;
}

static int resolve_node(P *p, KP *kp, const char *nm, AxSpan sp) {
  int i = ax_mug_find_node(kp->k, nm, kp->k->nnodes);
  if (i < 0) {
    ax_diag_error(p->d, sp, "kernel '%s': '%s' is not defined in this block graph%s", kp->k->name, nm,
                  ax_mug_find(p->g, nm) >= 0 ? " (kernel tensors enter through 'input')" : "");
    p->errors++;
  }
  return i;
}

/* maps = "imap" map [ "fmap" ( "-" | dim ) ]  (input iterators and block iotas) */
static bool block_maps(P *p, AxBNode *n) {
  if (!expect_word(p, "imap") || !gmap(p, n->imap)) return false;
  if (is_word(p, "fmap")) {
    scan(p);
    int64_t v = -1;
    if (!accept_punct(p, '-') && !integer(p, &v, false)) return false;
    n->fmap = (int)(v > AX_MAXRANK ? AX_MAXRANK : v);
  }
  return true;
}

/* NAME "=" ( "input" ... | "accum" ... | call [ maps ] ) */
static bool b_assign(P *p, KP *kp, int thread, AxNote note, uint32_t st0) {
  const char *nm;
  AxSpan sp;
  if (!name(p, &nm, &sp) || !node_define_check(p, kp, nm, sp) || !expect_punct(p, '=')) return false;
  bool is_iter = is_word(p, "input"), is_acc = is_word(p, "accum");
  if ((is_iter || is_acc) && thread >= 0) {
    ax_diag_error(p->d, span(p, p->tok.start, p->tok.end), "kernel '%s': a thread graph holds only element-wise operators", kp->k->name);
    p->errors++;
    return false;
  }
  if (is_iter) {
    scan(p);
    const char *src;
    AxSpan ssp;
    if (!name(p, &src, &ssp)) return false;
    int t = ax_mug_find(p->g, src);
    if (t < 0) {
      ax_diag_error(p->d, ssp, "kernel '%s': '%s' is not a kernel tensor", kp->k->name, src);
      p->errors++;
      return false;
    }
    AxBNode *n = new_node(p, kp);
    n->kind = AX_BN_ITER;
    n->name = nm;
    n->src = t;
    n->note = note;
    if (!block_maps(p, n)) return false;
    n->span = span(p, st0, p->prev_end);
    return true;
  }
  Call c;
  AxAccKind acc = AX_ACC_SUM;
  if (is_acc) scan(p);
  if (!call(p, &c, is_acc ? &acc : NULL)) return false;
  int in[AX_MAXIN];
  for (int i = 0; i < c.nops; i++) {
    Operand *o = &c.ops[i];
    if (o->name) {
      in[i] = resolve_node(p, kp, o->name, o->sp);
      if (in[i] < 0) return false;
    } else {
      AxBNode *n = new_node(p, kp);
      n->kind = AX_BN_OP;
      n->op = AX_OP_CONSTANT;
      n->anon = true;
      n->name = n->text = o->lit;
      n->at.value = o->value;
      n->span = o->sp;
      n->thread = thread;
      in[i] = kp->k->nnodes - 1;
    }
  }
  if (is_acc && c.nops != 1) {
    ax_diag_error(p->d, c.opspan, "kernel '%s': accumulator '%s' takes one operand", kp->k->name, c.opname);
    p->errors++;
    return false;
  }
  int rescale = -1;
  if (c.rescale) {
    rescale = resolve_node(p, kp, c.rescale, c.rescale_sp);
    if (rescale < 0) return false;
  }
  AxBNode *n = new_node(p, kp);
  n->kind = is_acc ? AX_BN_ACCUM : AX_BN_OP;
  n->rescaled = rescale >= 0;
  n->rescale = rescale;
  n->name = nm;
  n->op = c.op;
  n->acc = acc;
  n->at = c.at;
  n->nin = c.nops;
  n->note = note;
  n->thread = thread;
  for (int i = 0; i < c.nops; i++) n->in[i] = in[i], n->in_span[i] = c.ops[i].sp;
  /* a block iota is a tile of the kernel-level iota of its shape: the maps cut it as an
   * input iterator's cut a tensor, so each element holds its global index */
  if (!is_acc && c.op == AX_OP_IOTA && !block_maps(p, n)) return false;
  n->span = span(p, st0, p->prev_end);
  return true;
}

/* "output" NAME "=" NAME "omap" map */
static bool b_output(P *p, KP *kp, AxNote note, uint32_t st0) {
  scan(p);
  const char *nm, *from;
  AxSpan sp, fsp;
  if (!name(p, &nm, &sp) || !define_check(p, nm, sp) || !expect_punct(p, '=') || !name(p, &from, &fsp))
    return false;
  int src = resolve_node(p, kp, from, fsp);
  if (src < 0) return false;
  AxBNode *n = new_node(p, kp);
  n->kind = AX_BN_SAVE;
  n->name = nm;
  n->in[0] = src;
  n->nin = 1;
  n->in_span[0] = fsp;
  n->note = note;
  if (!expect_word(p, "omap") || !gmap(p, n->omap)) return false;
  n->span = span(p, st0, p->prev_end);
  int t = new_tensor(p);
  AxKTensor *kt = &p->g->tensors[t];
  kt->name = nm;
  kt->span = sp;
  kt->stmt = p->g->nstmts - 1;
  kp->k->nodes[kp->k->nnodes - 1].dst = t;
  return true;
}

/* Skips to the first token of the next line (error recovery). */
static void skip_line(P *p) {
  do scan(p);
  while (p->tok.kind != T_EOF && !p->tok.nl);
}

/* "{" { bstmt } "}" of a kernel or a thread graph */
static bool b_body(P *p, KP *kp, int thread, AxNote *end) {
  if (!expect_punct(p, '{')) return false;
  for (;;) {
    if (is_punct(p, '}') || p->tok.kind == T_EOF) break;
    uint32_t st0 = p->tok.start;
    AxNote note = {0};
    lead(p, p->prev_end, st0, &note);
    bool ok;
    int before = kp->k->nnodes;
    bool thread_stmt = is_word(p, "thread") && thread < 0;
    if (thread_stmt) {
      scan(p);
      int id = kp->k->nthreads++;
      AxNote tend = {0};
      int first = kp->k->nnodes;
      ok = b_body(p, kp, id, &tend);
      if (ok && kp->k->nnodes == first) {
        ax_diag_error(p->d, span(p, st0, p->prev_end), "kernel '%s': empty thread graph", kp->k->name);
        p->errors++;
        ok = false;
      }
      if (ok) {
        /* a comment after its closing brace trails the thread graph, not its last node
         * (whose own trailing comment is already taken) */
        trail(p, &tend);
        /* the thread graph's own comments ride on its first node */
        for (int i = first; i < kp->k->nnodes; i++)
          if (!kp->k->nodes[i].anon) {
            AxNote *th = ax_arena_alloc(p->a, 2 * sizeof *th);
            th[0] = note;
            th[1] = tend;
            kp->k->nodes[i].thread_note = th;
            break;
          }
      }
    } else if (is_word(p, "output") && thread < 0) {
      ok = b_output(p, kp, note, st0);
    } else if (p->tok.kind == T_IDENT) {
      ok = b_assign(p, kp, thread, note, st0);
    } else {
      ok = expected(p, thread >= 0 ? "an element-wise operator or '}'" : "a block statement or '}'");
    }
    if (!ok) {
      if (p->tok.kind == T_EOF) return false;
      if (p->tok.start == st0 || (!p->tok.nl && !is_punct(p, '}'))) skip_line(p);
      continue;
    }
    if (kp->k->nnodes > before && !thread_stmt) trail(p, &kp->k->nodes[kp->k->nnodes - 1].note);
  }
  lead(p, p->prev_end, p->tok.start, end);
  return expect_punct(p, '}');
}

/* "kernel" NAME "grid" ints3 [ "block" ints3 ] [ "forloop" INT ] "{" { bstmt } "}" */
static bool ints3(P *p, int64_t *v) {
  if (!expect_punct(p, '[')) return false;
  for (int i = 0; i < 3; i++)
    if ((i && !expect_punct(p, ',')) || !integer(p, &v[i], false)) return false;
  return expect_punct(p, ']');
}

static bool g_kernel(P *p, AxKStmt *st, uint32_t st0) {
  scan(p);
  AxKernel *k = ax_arena_alloc(p->a, sizeof *k);
  st->kind = AX_KS_KERNEL;
  st->kernel = k;
  k->block[0] = 128, k->block[1] = k->block[2] = 1;
  k->forloop = 1;
  if (!name(p, &k->name, NULL)) return false;
  for (int i = 0; i < p->g->nstmts - 1; i++)
    if (p->g->stmts[i].kind == AX_KS_KERNEL && strcmp(p->g->stmts[i].kernel->name, k->name) == 0) {
      ax_diag_error(p->d, span(p, st0, p->prev_end), "kernel '%s' is already defined", k->name);
      p->errors++;
      return false;
    }
  if (!expect_word(p, "grid") || !ints3(p, k->grid)) return false;
  if (is_word(p, "block")) {
    scan(p);
    if (!ints3(p, k->block)) return false;
  }
  if (is_word(p, "forloop")) {
    scan(p);
    if (!integer(p, &k->forloop, false)) return false;
  }
  k->span = span(p, st0, p->prev_end);
  KP kp = {k, 0};
  return b_body(p, &kp, -1, &k->end);
}

/* mugraph = "mugraph" NAME "{" { gstmt } "}" */
AxMugraph *ax_mugtext_parse(AxArena *a, AxDiag *d, const AxSource *src) {
  P p0 = {0}, *p = &p0;
  p->a = a;
  p->d = d;
  p->src = src;
  p->s = src->text;
  int errors0 = d->errors;
  scan(p);
  AxMugraph *g = ax_arena_alloc(a, sizeof *g);
  p->g = g;
  lead(p, 0, p->tok.start, &g->note);
  if (!expect_word(p, "mugraph") || !name(p, &g->name, &g->span) || !expect_punct(p, '{'))
    return NULL;
  for (;;) {
    if (is_punct(p, '}') || p->tok.kind == T_EOF) break;
    uint32_t st0 = p->tok.start;
    AxNote note = {0};
    lead(p, p->prev_end, st0, &note);
    AxKStmt *st = new_stmt(p);
    st->note = note;
    bool ok;
    if (is_word(p, "input")) ok = g_input(p, st);
    else if (is_word(p, "kernel")) ok = g_kernel(p, st, st0);
    else if (is_word(p, "output")) ok = g_output(p, st);
    else if (p->tok.kind == T_IDENT) ok = g_op(p, st);
    else ok = expected(p, "'input', 'kernel', 'output', an operator statement or '}'");
    st = &g->stmts[g->nstmts - 1];
    if (!ok) {
      g->nstmts--;
      if (p->tok.kind == T_EOF) break;
      if (p->tok.start == st0 || (!p->tok.nl && !is_punct(p, '}'))) skip_line(p);
      continue;
    }
    if (st->kind != AX_KS_KERNEL) st->span = span(p, st0, p->prev_end);
    trail(p, &st->note);
  }
  lead(p, p->prev_end, p->tok.start, &g->end);
  if (expect_punct(p, '}')) {
    trail(p, &g->end);
    lead(p, p->prev_end, p->tok.start + 1, &g->tail);
    if (p->tok.kind != T_EOF) expected(p, "end of file (one mugraph per file)");
  }
  return d->errors > errors0 || p->errors ? NULL : g;
}

/* ---- printer ------------------------------------------------------------------------- */

static void pnote_lead(FILE *out, const AxNote *n, int ind, bool first) {
  if (n->blank && !first) fputc('\n', out);
  for (int i = 0; i < n->nlead; i++)
    if (n->lead[i][0]) fprintf(out, "%*s%s\n", ind, "", n->lead[i]);
    else fputc('\n', out);   /* a blank line between two comments */
}

static void pnote_trail(FILE *out, const AxNote *n) {
  if (n->trail) fprintf(out, "  %s", n->trail);
  fputc('\n', out);
}

/* The attributes after nin operands (iota has none: no leading comma then). */
static void pattrs(FILE *out, AxOp op, const AxTAttrs *at, bool acc, AxAccKind ak, int nin) {
  unsigned allowed = acc ? (ak == AX_ACC_SUM ? AX_TA_AXIS | AX_TA_TO : AX_TA_AXIS) : ax_op_spec(op)->tattrs;
  const char *sep = nin ? ", " : "";
  if (allowed & AX_TA_SHAPE) {
    fprintf(out, "%s[", sep);
    for (int i = 0; i < at->shape.rank; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", at->shape.dim[i]);
    fputc(']', out);
    sep = ", ";
  }
  if ((allowed & AX_TA_AXIS) && at->axis_set) fprintf(out, "%saxis = %d", sep, at->axis), sep = ", ";
  if ((allowed & AX_TA_TO) && at->to) fprintf(out, "%sto = %" PRId64, sep, at->to), sep = ", ";
  if ((allowed & AX_TA_TIMES) && at->times) fprintf(out, "%stimes = %" PRId64, sep, at->times);
  unsigned bflag = allowed & (AX_TA_SLICE | AX_TA_PAD);
  for (int k = 0; bflag && k < 3; k++) {
    const int32_t *v = k == 0 ? at->lo : k == 1 ? at->hi : at->step;
    fprintf(out, "%s%s = [", sep, ax_tattrs_bound_names(bflag)[k]);
    for (int i = 0; i < at->nbound; i++) fprintf(out, "%s%" PRId32, i ? ", " : "", v[i]);
    fputc(']', out);
    sep = ", ";
  }
}

void ax_mugtext_print_map(FILE *out, const int *map) {
  fputc('{', out);
  bool first = true;
  for (int g = 0; g < 3; g++)
    if (map[g] >= 0) {
      fprintf(out, "%s%c: %d", first ? "" : ", ", "xyz"[g], map[g]);
      first = false;
    }
  fputc('}', out);
}

static void pnode(FILE *out, const AxMugraph *g, const AxKernel *k, const AxBNode *n, int ind) {
  switch (n->kind) {
  case AX_BN_ITER:
    fprintf(out, "%*s%s = input %s imap ", ind, "", n->name, g->tensors[n->src].name);
    ax_mugtext_print_map(out, n->imap);
    if (n->fmap >= 0) fprintf(out, " fmap %d", n->fmap);
    else fputs(" fmap -", out);
    break;
  case AX_BN_OP:
  case AX_BN_ACCUM:
    fprintf(out, "%*s%s = %s%s(", ind, "", n->name, n->kind == AX_BN_ACCUM ? "accum " : "",
            n->kind == AX_BN_ACCUM ? ax_mug_acc_name(n->acc) : ax_op_pname(n->op));
    for (int i = 0; i < n->nin; i++) fprintf(out, "%s%s", i ? ", " : "", k->nodes[n->in[i]].name);
    pattrs(out, n->op, &n->at, n->kind == AX_BN_ACCUM, n->acc, n->nin);
    if (n->rescaled) fprintf(out, ", rescale = %s", k->nodes[n->rescale].name);
    fputc(')', out);
    if (n->kind == AX_BN_OP && n->op == AX_OP_IOTA) {
      fputs(" imap ", out);
      ax_mugtext_print_map(out, n->imap);
      if (n->fmap >= 0) fprintf(out, " fmap %d", n->fmap);
      else fputs(" fmap -", out);
    }
    break;
  case AX_BN_SAVE:
    fprintf(out, "%*soutput %s = %s omap ", ind, "", g->tensors[n->dst].name, k->nodes[n->in[0]].name);
    ax_mugtext_print_map(out, n->omap);
    break;
  }
}

static void pkernel(FILE *out, const AxMugraph *g, const AxKernel *k) {
  fprintf(out, "kernel %s grid [%" PRId64 ", %" PRId64 ", %" PRId64 "] block [%" PRId64 ", %" PRId64
          ", %" PRId64 "] forloop %" PRId64 " {\n",
          k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->forloop);
  bool first = true;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->anon) continue;
    if (n->thread >= 0) {
      const AxNote *th = n->thread_note;
      AxNote none = {0};
      pnote_lead(out, th ? &th[0] : &none, 4, first);
      fputs("    thread {\n", out);
      int id = n->thread;
      bool tfirst = true;
      for (; i < k->nnodes && (k->nodes[i].thread == id); i++) {
        const AxBNode *m = &k->nodes[i];
        if (m->anon) continue;
        pnote_lead(out, &m->note, 6, tfirst);
        pnode(out, g, k, m, 6);
        pnote_trail(out, &m->note);
        tfirst = false;
      }
      i--;
      if (th) pnote_lead(out, &th[1], 6, true);
      fputs("    }", out);
      pnote_trail(out, th ? &th[1] : &none);
      first = false;
      continue;
    }
    pnote_lead(out, &n->note, 4, first);
    pnode(out, g, k, n, 4);
    pnote_trail(out, &n->note);
    first = false;
  }
  pnote_lead(out, &k->end, 4, true);
  fputs("  }", out);
}

void ax_mugtext_print_stmt(FILE *out, const AxMugraph *g, const AxKStmt *st) {
  switch (st->kind) {
  case AX_KS_INPUT: {
    const AxKTensor *t = &g->tensors[st->t];
    fprintf(out, "  input %s : %s[", t->name, ax_dtype_name(t->dtype));
    for (int i = 0; i < t->shape.rank; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", t->shape.dim[i]);
    fputc(']', out);
    break;
  }
  case AX_KS_OP:
    fprintf(out, "  %s = %s(", g->tensors[st->t].name, ax_op_pname(st->op));
    for (int i = 0; i < st->nin; i++) fprintf(out, "%s%s", i ? ", " : "", g->tensors[st->in[i]].name);
    pattrs(out, st->op, &st->at, false, AX_ACC_SUM, st->nin);
    fputc(')', out);
    break;
  case AX_KS_KERNEL:
    fputs("  ", out);
    pkernel(out, g, st->kernel);
    break;
  case AX_KS_OUTPUT:
    fputs("  output ", out);
    for (int i = 0; i < st->nouts; i++) fprintf(out, "%s%s", i ? ", " : "", g->tensors[st->outs[i]].name);
    break;
  }
}

char *ax_mugtext_string(const AxMugraph *g) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ax_mugtext_print(f, g);
  fclose(f);
  return text;
}

void ax_mugtext_print(FILE *out, const AxMugraph *g) {
  pnote_lead(out, &g->note, 0, true);
  fprintf(out, "mugraph %s {\n", g->name);
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    pnote_lead(out, &st->note, 2, s == 0);
    ax_mugtext_print_stmt(out, g, st);
    pnote_trail(out, &st->note);
  }
  pnote_lead(out, &g->end, 2, true);
  fputs("}", out);
  pnote_trail(out, &g->end);
  if (g->tail.nlead) {
    if (g->tail.blank) fputc('\n', out);
    for (int i = 0; i < g->tail.nlead; i++) fprintf(out, "%s\n", g->tail.lead[i]);
  }
}
