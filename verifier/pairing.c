/* pairing.c — the replayed witness that a pairing is no bijection; see pairing.h. */
#include "verifier/pairing.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "semantics/concrete.h"

typedef const AxTerm *T;

/* ---- exact evaluation of an instance's terms ------------------------------------------ */

/* A term's value under the bindings of one generation: b for Bool, q for Int and Real (an
 * integer has denominator 1). Valid while stamp == Eval.gen. */
typedef struct Slot {
  uint32_t stamp;
  bool init;
  bool b;
  mpq_t q;
} Slot;

enum {
  MAX_BINDS = 512,    /* variables bound at once: maps, access, X, Y, nested sums */
  MAX_VARS = 64,      /* summation variables of one side */
  MAX_DEPTH = 4000,   /* nested evaluation (a deeper term is not evaluated) */
};
/* Term nodes one replay, or one search, may evaluate over all its instances, memo hits not
 * counted: a bound on its time (a second or so at most), after which it finds nothing. */
#define WORK 2000000L

typedef struct Eval {
  AxSymInstance *in;
  AxCexInst *ci;
  AxConcrete *c;
  AxDomain *d;
  uint32_t nterms;
  Slot *slot;            /* by term id */
  int *sym_of;           /* by function id: tensor symbol + 2, 1 none, 0 not looked up */
  uint32_t gen, next;    /* the current generation, the next one to hand out */
  size_t nbind;
  T bvar[MAX_BINDS];
  mpq_t bval[MAX_BINDS];
  const AxClosedSum *closed;   /* the instance's sums under sqrt */
  size_t nclosed;
  long work;
  int depth;
  const char *why;       /* why the last evaluation failed */
} Eval;

static void eval_init(Eval *e, AxSymInstance *in, AxCexInst *ci) {
  memset(e, 0, sizeof *e);
  e->in = in;
  e->ci = ci;
  e->c = ax_cex_inst_concrete(ci);
  e->d = ax_concrete_domain(e->c);
  e->nterms = ax_term_ctx_size(in->tc);
  e->slot = ax_xcalloc(e->nterms + 1, sizeof *e->slot);
  e->sym_of = ax_xcalloc(ax_term_ctx_nfuncs(in->tc) + 1, sizeof *e->sym_of);
  for (size_t i = 0; i < MAX_BINDS; i++) mpq_init(e->bval[i]);
  e->closed = ax_symbolic_closed(in->sym, &e->nclosed);
  e->gen = e->next = 1;
}

static void eval_free(Eval *e) {
  for (uint32_t i = 0; i < e->nterms; i++)
    if (e->slot[i].init) mpq_clear(e->slot[i].q);
  for (size_t i = 0; i < MAX_BINDS; i++) mpq_clear(e->bval[i]);
  free(e->slot);
  free(e->sym_of);
}

/* A new generation: call after every change of the bindings. */
static void fresh(Eval *e) { e->gen = ++e->next; }

static bool bind(Eval *e, T var, const mpq_t v) {
  if (e->nbind == MAX_BINDS) {
    e->why = "too many indices to bind";
    return false;
  }
  e->bvar[e->nbind] = var;
  mpq_set(e->bval[e->nbind++], v);
  return true;
}

static bool bind_long(Eval *e, T var, long v) {
  mpq_t q;
  mpq_init(q);
  mpq_set_si(q, v, 1);
  bool ok = bind(e, var, q);
  mpq_clear(q);
  return ok;
}

static bool fail(Eval *e, const char *why) {
  e->why = why;
  return false;
}

static bool ev(Eval *e, T t, Slot **out);

/* An Int term's value as a long (false when it has none or is too large). */
static bool ev_long(Eval *e, T t, long *out) {
  Slot *s;
  if (!ev(e, t, &s)) return false;
  if (mpz_cmp_ui(mpq_denref(s->q), 1) != 0 || !mpz_fits_slong_p(mpq_numref(s->q)))
    return fail(e, "an index too large to enumerate");
  *out = mpz_get_si(mpq_numref(s->q));
  return true;
}

/* the concrete domain's element of value q, of type t */
static AxV elem(Eval *e, AxType t, const mpq_t q) { return ax_concrete_elem(e->c, t, AX_FIN, q, false); }

/* out := the finite value of concrete element v, made by an operator of the concrete domain
 * (its `unsupported` cleared before): false when the operator found no exact value or the
 * value is not finite (where this domain's terms use the function, it is). */
static bool took(Eval *e, AxV v, mpq_t out) {
  if (e->d->unsupported) {
    e->why = e->d->unsupported;
    e->d->unsupported = NULL;
    return false;
  }
  if (ax_concrete_get_elem(v, out) != AX_FIN) return fail(e, "a function's value is not finite there");
  return true;
}

/* A tensor read: its symbol in the rule, -1 for an application that is no tensor. */
static int tensor_of(Eval *e, const AxFunc *f) {
  uint32_t id = ax_term_func_id(f);
  if (!e->sym_of[id]) {
    const AxRuleSyms *s = e->in->rule->syms;
    e->sym_of[id] = 1;
    for (size_t i = 0; i < s->nsyms; i++)
      if (s->syms[i].kind == AX_SYM_TENSOR && strcmp(s->syms[i].name, ax_term_func_name(f)) == 0)
        e->sym_of[id] = (int)i + 2;
  }
  return e->sym_of[id] - 2;
}

typedef struct Range {
  bool empty, has_lo, has_hi;
  long lo, hi;
} Range;

static Range range_of(Eval *e, T t, T v);

/* Every point of the box [lo, hi] of vars, in order (last fastest): at each, the variables
 * are bound and a generation begun, then visit(ctx) runs; it returns false to stop. False
 * when a box bound is missing or the box has more than `cap` points. */
typedef struct Box {
  size_t n;
  long lo[MAX_VARS], hi[MAX_VARS];
  long total;
} Box;

static bool box_of(Eval *e, T dom, size_t n, const T *vars, long cap, Box *b) {
  if (n > MAX_VARS) return fail(e, "too many summation indices to enumerate");
  b->n = n;
  b->total = 1;
  for (size_t i = 0; i < n; i++) {
    Range r = range_of(e, dom, vars[i]);
    if (r.empty) {
      b->total = 0;
      b->lo[i] = 0, b->hi[i] = -1;
      continue;
    }
    if (!r.has_lo || !r.has_hi) return fail(e, "a summation domain without bounds the enumeration can read");
    b->lo[i] = r.lo, b->hi[i] = r.hi;
    long len = r.hi - r.lo + 1;
    if (len <= 0) b->total = 0;
    else if (len > cap || b->total > cap / len) b->total = cap + 1;
    else b->total *= len;
  }
  if (b->total > cap) return fail(e, "a summation domain of more points than the enumeration visits");
  return true;
}

/* Calls visit at every point of box b over vars (bound on top of the current bindings), in
 * a generation of its own; the bindings and generation are restored after. False when
 * visit stopped it. */
static bool each(Eval *e, const Box *b, const T *vars, bool (*visit)(Eval *e, const long *at, void *ctx),
                 void *ctx) {
  if (b->total == 0) return true;
  long at[MAX_VARS];
  for (size_t i = 0; i < b->n; i++) at[i] = b->lo[i];
  size_t base = e->nbind;
  uint32_t gen = e->gen;
  bool go = true;
  for (;;) {
    e->nbind = base;
    for (size_t i = 0; i < b->n && go; i++) go = bind_long(e, vars[i], at[i]);
    fresh(e);
    if (go) go = visit(e, at, ctx);
    if (!go) break;
    size_t k = b->n;
    while (k > 0 && ++at[k - 1] > b->hi[k - 1]) {
      at[k - 1] = b->lo[k - 1];
      k--;
    }
    if (k == 0) break;
  }
  e->nbind = base;
  e->gen = gen;   /* the outer bindings again: what was memoised under them still holds */
  return go;
}

/* ---- sums under sqrt --------------------------------------------------------------- */

typedef struct SumAt {
  const AxClosedSum *cs;
  mpq_t acc;
} SumAt;

static bool add_summand(Eval *e, const long *at, void *ctx) {
  (void)at;
  SumAt *s = ctx;
  Slot *in, *v;
  if (!ev(e, s->cs->dom, &in)) return false;
  if (!in->b) return true;
  if (!ev(e, s->cs->body, &v)) return false;
  mpq_add(s->acc, s->acc, v->q);
  return true;
}

/* S(args): the sum it stands for (ax_symbolic_closed), its parameters bound to the values of
 * args, enumerated exactly over the box of its domain */
static bool closed_sum(Eval *e, T t, mpq_t out) {
  /* the record of this very application first (its parameters are its arguments); else one
   * of the same function: the same sum up to the names of its variables, whose parameters
   * are in the same order (symbolic.c close_sum) */
  const AxClosedSum *cs = NULL;
  for (size_t i = 0; i < e->nclosed && !cs; i++)
    if (e->closed[i].app == t) cs = &e->closed[i];
  for (size_t i = 0; i < e->nclosed && !cs; i++)
    if (ax_term_app_func(e->closed[i].app) == ax_term_app_func(t)) cs = &e->closed[i];
  if (!cs) return fail(e, "a sum under sqrt of unknown form");
  size_t base = e->nbind;
  uint32_t gen = e->gen;
  bool ok = true;
  for (size_t i = 0; i < ax_term_nargs(t) && ok; i++) {
    Slot *a;
    T formal = ax_term_arg(cs->app, i);
    ok = ax_term_kind(formal) == AX_TERM_VAR && ev(e, ax_term_arg(t, i), &a);
    if (ok) ok = bind(e, formal, a->q);
    else if (!e->why) e->why = "a sum under sqrt of unknown form";
  }
  fresh(e);
  Box b;
  SumAt s = {.cs = cs};
  mpq_init(s.acc);
  ok = ok && box_of(e, cs->dom, cs->n, (const T *)cs->vars, AX_PAIRING_POINTS, &b) &&
       each(e, &b, (const T *)cs->vars, add_summand, &s);
  if (ok) mpq_set(out, s.acc);
  mpq_clear(s.acc);
  e->nbind = base;
  e->gen = gen;
  return ok;
}

/* ---- one term --------------------------------------------------------------------- */

/* exp(y · log x) (symbolic.c exp_log: the real power x^y of an x > 0): x and y, or false */
static bool exp_log_form(T arg, T *x, T *y) {
  if (ax_term_kind(arg) != AX_TERM_MUL || ax_term_nargs(arg) != 2) return false;
  for (int i = 0; i < 2; i++)
    if (ax_term_is_log(ax_term_arg(arg, (size_t)i))) {
      *x = ax_term_arg(ax_term_arg(arg, (size_t)i), 0);
      *y = ax_term_arg(arg, (size_t)!i);
      return true;
    }
  return false;
}

/* An application of one of the symbolic domain's functions (symbolic.h ax_symbolic_fn) or
 * log, at argument values arg (its first two) */
static bool function(Eval *e, T t, Slot *s, mpq_t *arg) {
  const AxFunc *f = ax_term_app_func(t);
  if (ax_term_is_log(t))
    return took(e, e->d->elem_unary(e->d, AX_OP_LOG, AX_REAL, elem(e, AX_REAL, arg[0])), s->q);
  AxOp op = AX_OP_TO_F32;
  switch (ax_symbolic_fn(f, &op)) {
  case AX_SYMFN_SQRT:   /* the root of x >= 0 (its value is left open below 0) */
    if (mpq_sgn(arg[0]) < 0) return fail(e, "sqrt where its value is left open");
    return took(e, e->d->elem_unary(e->d, AX_OP_SQRT, AX_REAL, elem(e, AX_REAL, arg[0])), s->q);
  case AX_SYMFN_IPOW:   /* x^y for y >= 1, open below */
    if (mpq_cmp_ui(arg[1], 1, 1) < 0) return fail(e, "an integer power where its value is left open");
    return took(e, e->d->elem_binary(e->d, AX_OP_POW, AX_INT, elem(e, AX_INT, arg[0]), elem(e, AX_INT, arg[1])),
                s->q);
  case AX_SYMFN_POW_INT:   /* floor y: to_real(k(y)) = y exactly when y is an integer */
    mpz_fdiv_q(mpq_numref(s->q), mpq_numref(arg[0]), mpq_denref(arg[0]));
    mpz_set_ui(mpq_denref(s->q), 1);
    return true;
  case AX_SYMFN_POW_ODD: {   /* floor((y - 1) / 2): 2 j(y) + 1 = y exactly when y is odd */
    mpq_t h;
    mpq_init(h);
    mpq_set_ui(h, 1, 1);
    mpq_sub(h, arg[0], h);
    mpz_mul_ui(mpq_denref(h), mpq_denref(h), 2);
    mpz_fdiv_q(mpq_numref(s->q), mpq_numref(h), mpq_denref(h));
    mpz_set_ui(mpq_denref(s->q), 1);
    mpq_clear(h);
    return true;
  }
  case AX_SYMFN_ROUND:
    return took(e, e->d->elem_unary(e->d, op, AX_REAL, elem(e, AX_REAL, arg[0])), s->q);
  case AX_SYMFN_SUM:
  case AX_SYMFN_ROUND_K:
  case AX_SYMFN_NONE:
    break;
  }
  return fail(e, "a function the replay cannot evaluate");
}

static bool app(Eval *e, T t, Slot *s) {
  const AxFunc *f = ax_term_app_func(t);
  size_t n = ax_term_nargs(t);
  int sym = tensor_of(e, f);
  if (sym >= 0) {   /* a tensor read: the instance's value (the model's, or the fill) */
    AxV idx[64];
    if (n > 64) return fail(e, "a tensor read of too many indices");
    mpz_t z;
    mpz_init(z);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
      Slot *x;
      ok = ev(e, ax_term_arg(t, i), &x);
      if (ok) {
        mpz_set(z, mpq_numref(x->q));
        idx[i] = ax_concrete_int(e->c, z);
      }
    }
    mpz_clear(z);
    if (!ok) return false;
    AxSort so = ax_term_sort(t);
    AxType ty = so == AX_SORT_BOOL ? AX_BOOL : so == AX_SORT_INT ? AX_INT : AX_REAL;
    AxV v = e->d->read(e->d, sym, ty, idx, n);
    if (ty == AX_BOOL) s->b = ax_concrete_get_bool(v);
    else if (ax_concrete_get_elem(v, s->q) != AX_FIN) return fail(e, "a tensor element that is not finite");
    return true;
  }
  if (ax_symbolic_fn(f, NULL) == AX_SYMFN_SUM) return closed_sum(e, t, s->q);
  mpq_t arg[2];
  mpq_inits(arg[0], arg[1], NULL);
  bool ok = true;
  for (size_t i = 0; i < n && i < 2 && ok; i++) {   /* copied out: a slot may be reused meanwhile */
    Slot *a;
    ok = ev(e, ax_term_arg(t, i), &a);
    if (ok) mpq_set(arg[i], a->q);
  }
  ok = ok && function(e, t, s, arg);
  mpq_clears(arg[0], arg[1], NULL);
  return ok;
}

/* Euclidean division and remainder (SMT-LIB: 0 <= r < |b|) of integers a, b != 0 */
static void euclid(mpq_t out, const mpq_t a, const mpq_t b, bool rem) {
  mpz_t r, q, ab;
  mpz_inits(r, q, ab, NULL);
  mpz_abs(ab, mpq_numref(b));
  mpz_fdiv_r(r, mpq_numref(a), ab);
  if (rem) {
    mpq_set_z(out, r);
  } else {
    mpz_sub(q, mpq_numref(a), r);
    mpz_divexact(q, q, mpq_numref(b));
    mpq_set_z(out, q);
  }
  mpz_clears(r, q, ab, NULL);
}

/* The values of t's first two arguments, copied out (x, y initialised): a slot may be
 * reused by a sum under sqrt that the second evaluates. */
static bool two(Eval *e, T t, mpq_t x, mpq_t y, bool *bx, bool *by) {
  Slot *a;
  if (!ev(e, ax_term_arg(t, 0), &a)) return false;
  mpq_set(x, a->q);
  if (bx) *bx = a->b;
  if (!ev(e, ax_term_arg(t, 1), &a)) return false;
  mpq_set(y, a->q);
  if (by) *by = a->b;
  return true;
}

static bool compute2(Eval *e, T t, Slot *s, mpq_t x, mpq_t y);

static bool compute(Eval *e, T t, Slot *s) {
  AxTermKind k = ax_term_kind(t);
  size_t n = ax_term_nargs(t);
  Slot *a, *b;
  switch (k) {
  case AX_TERM_TRUE: s->b = true; return true;
  case AX_TERM_FALSE: s->b = false; return true;
  case AX_TERM_INT:
  case AX_TERM_REAL: ax_term_real_value(t, s->q); return true;
  case AX_TERM_VAR:
    for (size_t i = e->nbind; i-- > 0;)
      if (e->bvar[i] == t) {
        mpq_set(s->q, e->bval[i]);
        return true;
      }
    return fail(e, "an index the instance does not fix");
  case AX_TERM_APP: return app(e, t, s);
  case AX_TERM_NOT:
    if (!ev(e, ax_term_arg(t, 0), &a)) return false;
    s->b = !a->b;
    return true;
  case AX_TERM_AND:
  case AX_TERM_OR: {   /* an absorbing argument decides, whatever the others */
    bool absorb = k == AX_TERM_OR, open = false;
    const char *why = NULL;
    for (size_t i = 0; i < n; i++) {
      if (!ev(e, ax_term_arg(t, i), &a)) {
        open = true;
        why = e->why;
        continue;
      }
      if (a->b == absorb) {
        s->b = absorb;
        return true;
      }
    }
    if (open) return fail(e, why);
    s->b = !absorb;
    return true;
  }
  case AX_TERM_IMPLIES: {
    bool pa = ev(e, ax_term_arg(t, 0), &a);
    if (pa && !a->b) {
      s->b = true;
      return true;
    }
    if (!ev(e, ax_term_arg(t, 1), &b)) return false;
    if (b->b) {
      s->b = true;
      return true;
    }
    if (!pa) return false;
    s->b = false;
    return true;
  }
  case AX_TERM_ITE: {
    if (!ev(e, ax_term_arg(t, 0), &a)) return false;
    if (!ev(e, ax_term_arg(t, a->b ? 1 : 2), &b)) return false;
    s->b = b->b;
    mpq_set(s->q, b->q);
    return true;
  }
  case AX_TERM_EQ:
  case AX_TERM_LT:
  case AX_TERM_LE:
  case AX_TERM_SUB:
  case AX_TERM_DIV:
  case AX_TERM_MOD:
  case AX_TERM_RDIV:
  case AX_TERM_EXP: {
    mpq_t x, y;
    mpq_inits(x, y, NULL);
    bool ok = compute2(e, t, s, x, y);
    mpq_clears(x, y, NULL);
    return ok;
  }
  case AX_TERM_ADD:
  case AX_TERM_MUL: {
    mpq_set_ui(s->q, k == AX_TERM_ADD ? 0 : 1, 1);
    for (size_t i = 0; i < n; i++) {
      if (!ev(e, ax_term_arg(t, i), &a)) return false;
      if (k == AX_TERM_ADD) mpq_add(s->q, s->q, a->q);
      else mpq_mul(s->q, s->q, a->q);
    }
    return true;
  }
  case AX_TERM_NEG:
  case AX_TERM_ABS:
  case AX_TERM_TO_REAL:
    if (!ev(e, ax_term_arg(t, 0), &a)) return false;
    if (k == AX_TERM_NEG) mpq_neg(s->q, a->q);
    else if (k == AX_TERM_ABS) mpq_abs(s->q, a->q);
    else mpq_set(s->q, a->q);
    return true;
  default:
    return fail(e, "a floating-point term (IEEE mode has no pairing)");
  }
}

/* The kinds of two operands (exp: of its base and exponent), their values copied into x, y */
static bool compute2(Eval *e, T t, Slot *s, mpq_t x, mpq_t y) {
  AxTermKind k = ax_term_kind(t);
  bool bx = false, by = false;
  if (k == AX_TERM_EXP) {
    T base, power;
    Slot *a;
    if (!exp_log_form(ax_term_arg(t, 0), &base, &power)) {
      if (!ev(e, ax_term_arg(t, 0), &a)) return false;
      return took(e, e->d->elem_unary(e->d, AX_OP_EXP, AX_REAL, elem(e, AX_REAL, a->q)), s->q);
    }
    /* e^(y log x) for x > 0 is the real power x^y, exactly where it is rational */
    if (!ev(e, base, &a)) return false;
    mpq_set(x, a->q);
    if (!ev(e, power, &a)) return false;
    mpq_set(y, a->q);
    if (mpq_sgn(x) <= 0) return fail(e, "log where its value is left open");
    return took(e, e->d->elem_binary(e->d, AX_OP_POW, AX_REAL, elem(e, AX_REAL, x), elem(e, AX_REAL, y)), s->q);
  }
  if (!two(e, t, x, y, &bx, &by)) return false;
  switch (k) {
  case AX_TERM_EQ:
  case AX_TERM_LT:
  case AX_TERM_LE: {
    if (ax_term_sort(ax_term_arg(t, 0)) == AX_SORT_BOOL) {
      s->b = k == AX_TERM_EQ ? bx == by : k == AX_TERM_LT ? !bx && by : !bx || by;
      return true;
    }
    int c = mpq_cmp(x, y);
    s->b = k == AX_TERM_EQ ? c == 0 : k == AX_TERM_LT ? c < 0 : c <= 0;
    return true;
  }
  case AX_TERM_SUB:
    mpq_sub(s->q, x, y);
    return true;
  default:   /* DIV, MOD, RDIV */
    if (mpq_sgn(y) == 0) return fail(e, "a division by zero, whose value the terms leave open");
    if (k == AX_TERM_RDIV) mpq_div(s->q, x, y);
    else euclid(s->q, x, y, k == AX_TERM_MOD);
    return true;
  }
}

/* The value of t under the current bindings, memoised per generation; false (e->why) when
 * it has no exact value there. */
static bool ev(Eval *e, T t, Slot **out) {
  uint32_t id = ax_term_id(t);
  /* every term the callers evaluate exists before the evaluator; one made after it has no
   * slot, and is no value (never a guess) */
  if (id >= e->nterms) return fail(e, "a term made after the replay began");
  Slot *s = &e->slot[id];
  if (s->stamp == e->gen) {
    *out = s;
    return true;
  }
  if (e->work-- <= 0) return fail(e, "the enumeration took more evaluation than a replay is given");
  if (e->depth >= MAX_DEPTH) return fail(e, "a term nested too deeply to evaluate");
  if (!s->init) {
    mpq_init(s->q);
    s->init = true;
  }
  /* compute may evaluate nested sums in other generations (which reuse slots); s is written
   * and stamped only at the end, under this generation */
  uint32_t gen = e->gen;
  Slot v = {0};
  mpq_init(v.q);
  e->depth++;
  bool ok = compute(e, t, &v);
  e->depth--;
  e->gen = gen;
  if (ok) {
    s->b = v.b;
    mpq_set(s->q, v.q);
    s->stamp = gen;
    *out = s;
  }
  mpq_clear(v.q);
  return ok;
}

/* ---- bounds of a summation domain ---------------------------------------------------- */

static Range full(void) { return (Range){0}; }

static Range intersect(Range a, Range b) {
  if (a.empty || b.empty) return (Range){.empty = true};
  if (b.has_lo && (!a.has_lo || b.lo > a.lo)) a.has_lo = true, a.lo = b.lo;
  if (b.has_hi && (!a.has_hi || b.hi < a.hi)) a.has_hi = true, a.hi = b.hi;
  if (a.has_lo && a.has_hi && a.lo > a.hi) a.empty = true;
  return a;
}

static Range hull(Range a, Range b) {
  if (a.empty) return b;
  if (b.empty) return a;
  Range r = {0};
  r.has_lo = a.has_lo && b.has_lo;
  r.lo = a.lo < b.lo ? a.lo : b.lo;
  r.has_hi = a.has_hi && b.has_hi;
  r.hi = a.hi > b.hi ? a.hi : b.hi;
  return r;
}

/* the bound value e + delta of a comparison, or none (unbound, inexact, too large) */
static bool bound(Eval *e, T t, long delta, long *out) {
  long v;
  const char *why = e->why;
  bool ok = ev_long(e, t, &v);
  e->why = why;   /* a comparison the bounds cannot read is no failure of the search */
  if (!ok || v > LONG_MAX / 4 || v < LONG_MIN / 4) return false;
  *out = v + delta;
  return true;
}

/* What the Bool term t says of integer variable v: a range that holds wherever t does
 * (sound: an atom it cannot read says nothing, a conjunction takes the tightest of its
 * conjuncts, a disjunction the hull of its disjuncts). The domains read here are those of
 * symbolic.c: 0 <= v < n per summation variable, a tag 0 <= s <= 1, a pinned v = 0. */
static Range range_of(Eval *e, T t, T v) {
  AxTermKind k = ax_term_kind(t);
  Range r = full();
  if (k == AX_TERM_FALSE) return (Range){.empty = true};
  if (k == AX_TERM_AND || k == AX_TERM_OR) {
    Range acc = k == AX_TERM_AND ? full() : (Range){.empty = true};
    for (size_t i = 0; i < ax_term_nargs(t); i++) {
      Range x = range_of(e, ax_term_arg(t, i), v);
      acc = k == AX_TERM_AND ? intersect(acc, x) : hull(acc, x);
    }
    return acc;
  }
  bool neg = k == AX_TERM_NOT;
  if (neg) {
    t = ax_term_arg(t, 0);
    k = ax_term_kind(t);
  }
  if (k != AX_TERM_LT && k != AX_TERM_LE && k != AX_TERM_EQ) return r;
  if (ax_term_sort(ax_term_arg(t, 0)) != AX_SORT_INT) return r;
  T a = ax_term_arg(t, 0), b = ax_term_arg(t, 1);
  long x;
  if (k == AX_TERM_EQ) {
    if (neg) return r;
    T other = a == v ? b : b == v ? a : NULL;
    if (other && bound(e, other, 0, &x)) r.has_lo = r.has_hi = true, r.lo = r.hi = x;
    return r;
  }
  /* a < b, a <= b, or (neg) a >= b, a > b */
  bool strict = (k == AX_TERM_LT) != neg;
  if ((a == v) != neg) {   /* v below the other side: v < b, v <= b, or not (b < v), not (b <= v) */
    T other = a == v ? b : a;
    if ((a == v || b == v) && bound(e, other, strict ? -1 : 0, &x)) r.has_hi = true, r.hi = x;
  } else {                 /* v above it */
    T other = b == v ? a : b;
    if ((a == v || b == v) && bound(e, other, strict ? 1 : 0, &x)) r.has_lo = true, r.lo = x;
  }
  return r;
}

/* ---- the witness at one instance ------------------------------------------------------ */

/* Images h(X) of the points of D_X decided so far, by a hash of the image (open
 * addressing, twice as many slots as points), each with a point it came from — one whose
 * summand is not zero, when there is one. */
typedef struct Images {
  size_t nx, ny, cap, len;
  long *key;    /* cap * ny */
  long *from;   /* cap * nx */
  bool *used;
  bool *nonzero;  /* its `from` has a summand other than 0 */
} Images;

static size_t hash_of(const long *k, size_t n, size_t cap) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint64_t)k[i]) * 0x100000001b3ULL;
  return (size_t)(h % cap);
}

/* The slot of image k: its own when present (*found), else the free one it would take. */
static size_t images_find(const Images *im, const long *k, bool *found) {
  size_t i = hash_of(k, im->ny, im->cap);
  while (im->used[i]) {
    if (memcmp(&im->key[i * im->ny], k, im->ny * sizeof *k) == 0) {
      *found = true;
      return i;
    }
    i = (i + 1) % im->cap;
  }
  *found = false;
  return i;
}

/* A witness as found: its kind, the left-hand points (one or two) with their images and
 * summands, and the right-hand point (with its summand, for the unreached kind). */
typedef struct Found {
  AxPairingKind kind;
  size_t nleft;
  long left[2][MAX_VARS], image[2][MAX_VARS];
  char *lsum[2];       /* the left-hand summands (malloc'd) */
  long right[MAX_VARS];
  char *rsum;          /* the right-hand summand (the unreached kind; malloc'd) */
  bool right_in;       /* the right-hand point is in D_Y */
  long nx_points;      /* |D_X| (the unreached kind: every one decided) */
} Found;

static void found_clear(Found *f) {
  free(f->lsum[0]);
  free(f->lsum[1]);
  free(f->rsum);
}

static char *qtext(const mpq_t q) {
  char *g = mpq_get_str(NULL, 10, q), *s = ax_xstrdup(g);
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(g, strlen(g) + 1);
  return s;
}

typedef struct Search {
  const AxPairing *p;
  AxPairingKind want;  /* the kind of the failing check: reported when found */
  Images im;
  bool complete;       /* every point of D_X decided: membership and image */
  long npoints;        /* the points of D_X decided */
  bool found;
  Found f;             /* the witness to report: of kind `want` once one is found */
  const char *why;     /* the first reason a point was left undecided */
} Search;

static void undecided(Search *s, Eval *e) {
  s->complete = false;
  if (!s->why) s->why = e->why;
}

/* Keeps witness w (consumed) if it is the first, or the first of the wanted kind; true
 * when the search can stop (one of the wanted kind is held). */
static bool take(Search *s, Found *w) {
  if (!s->found) {
    s->f = *w;
    s->found = true;
  } else if (s->f.kind != s->want && w->kind == s->want) {
    found_clear(&s->f);
    s->f = *w;
  } else {
    found_clear(w);
  }
  return s->f.kind == s->want;
}

/* Y := img, then D_Y there: 1 in, 0 out, -1 undecided */
static int in_dy(Eval *e, const AxPairing *p, const long *img) {
  size_t base = e->nbind;
  uint32_t gen = e->gen;
  bool ok = true;
  for (size_t j = 0; j < p->ny && ok; j++) ok = bind_long(e, p->y[j], img[j]);
  fresh(e);
  Slot *s;
  int r = ok && ev(e, p->dy, &s) ? s->b : -1;
  e->nbind = base;
  e->gen = gen;
  return r;
}

/* The summand t at the current bindings: 1 other than 0 (its text in *text), 0 zero, -1
 * undecided. A zero summand needs no partner: a point whose summand is 0 is no witness. */
static int summand(Eval *e, T t, char **text) {
  Slot *v;
  if (!ev(e, t, &v)) return -1;
  if (mpq_sgn(v->q) == 0) return 0;
  *text = qtext(v->q);
  return 1;
}

/* The left-hand summand at point at (bound on top, then unbound): its text, or "?" */
static char *summand_at(Eval *e, const AxPairing *p, const long *at) {
  size_t base = e->nbind;
  uint32_t gen = e->gen;
  bool ok = true;
  char *text = NULL;
  for (size_t k = 0; k < p->nx && ok; k++) ok = bind_long(e, p->x[k], at[k]);
  fresh(e);
  if (!ok || summand(e, p->fx, &text) != 1) text = ax_xstrdup("?");
  e->nbind = base;
  e->gen = gen;
  return text;
}

/* One point X of D_X's box: is it in D_X, its image, is that in D_Y, has it been seen */
static bool visit_x(Eval *e, const long *at, void *ctx) {
  Search *s = ctx;
  const AxPairing *p = s->p;
  Slot *in;
  if (!ev(e, p->dx, &in)) {
    undecided(s, e);
    return true;
  }
  if (!in->b) return true;
  long img[MAX_VARS];
  for (size_t j = 0; j < p->ny; j++)
    if (!ev_long(e, p->h[j], &img[j])) {
      undecided(s, e);
      return true;
    }
  s->npoints++;
  char *sum = NULL;
  int nz = summand(e, p->fx, &sum);
  int out = in_dy(e, p, img);
  if (out < 0) undecided(s, e);
  bool stop = false;
  if (out == 0 && nz == 1) {   /* a summand that counts, sent outside D_Y */
    Found w = {.kind = AX_PAIRING_OUTSIDE, .nleft = 1, .right_in = false};
    memcpy(w.left[0], at, p->nx * sizeof *at);
    memcpy(w.image[0], img, p->ny * sizeof *img);
    memcpy(w.right, img, p->ny * sizeof *img);
    w.lsum[0] = ax_xstrdup(sum);
    stop = take(s, &w);
  }
  bool seen;
  size_t i = images_find(&s->im, img, &seen);
  if (!stop && seen && nz == 1 && s->im.nonzero[i] && out == 1) {   /* two that count, one image */
    Found w = {.kind = AX_PAIRING_COLLISION, .nleft = 2, .right_in = true};
    memcpy(w.left[0], &s->im.from[i * p->nx], p->nx * sizeof *at);
    memcpy(w.left[1], at, p->nx * sizeof *at);
    memcpy(w.image[0], img, p->ny * sizeof *img);
    memcpy(w.image[1], img, p->ny * sizeof *img);
    memcpy(w.right, img, p->ny * sizeof *img);
    w.lsum[0] = summand_at(e, p, w.left[0]);   /* decided before: not zero */
    w.lsum[1] = ax_xstrdup(sum);
    stop = take(s, &w);
  }
  if (!seen) {
    s->im.used[i] = true;
    memcpy(&s->im.key[i * p->ny], img, p->ny * sizeof *img);
    s->im.len++;
  }
  if (!seen || (nz == 1 && !s->im.nonzero[i])) {
    memcpy(&s->im.from[i * p->nx], at, p->nx * sizeof *at);
    s->im.nonzero[i] = nz == 1;
  }
  free(sum);
  return !stop;
}

/* One point Y of D_Y's box: in D_Y with a summand that counts, and the image of no X of
 * D_X (all decided) */
static bool visit_y(Eval *e, const long *at, void *ctx) {
  Search *s = ctx;
  Slot *in;
  if (!ev(e, s->p->dy, &in)) return true;   /* undecided: no witness here */
  if (!in->b) return true;
  bool seen;
  images_find(&s->im, at, &seen);
  if (seen) return true;
  char *sum = NULL;
  if (summand(e, s->p->fy, &sum) != 1) return true;
  Found w = {.kind = AX_PAIRING_UNREACHED, .nleft = 0, .right_in = true, .rsum = sum,
             .nx_points = s->npoints};
  memcpy(w.right, at, s->p->ny * sizeof *at);
  return !take(s, &w);
}

/* The maps and access indices of the instance, bound (the base of every evaluation) */
static bool bind_instance(Eval *e) {
  AxSymInstance *in = e->in;
  const AxRuleSyms *s = in->rule->syms;
  mpz_t z;
  mpq_t q;
  mpz_init(z);
  mpq_init(q);
  bool ok = true;
  for (size_t i = 0; i < s->nsyms && ok; i++)
    if (in->maps[i])
      for (int k = 0; k < in->rank[s->syms[i].rclass] && ok; k++) {
        T var = ax_symbolic_term(in->maps[i][k]);
        ax_concrete_get_int(ax_cex_inst_var(e->ci, var), z);
        mpq_set_z(q, z);
        ok = bind(e, var, q);
      }
  for (size_t i = 0; i < s->naxes && ok; i++)
    if (in->acc.at[i])
      for (int k = 0; k < ax_den_rank(&in->den, (int)i) && ok; k++) {
        T var = ax_symbolic_term(in->acc.at[i][k]);
        ax_concrete_get_int(ax_cex_inst_var(e->ci, var), z);
        mpq_set_z(q, z);
        ok = bind(e, var, q);
      }
  mpz_clear(z);
  mpq_clear(q);
  fresh(e);
  return ok;
}

/* The model's own points, where D_X cannot be enumerated: X (mx) outside, or X and X' (mxc)
 * colliding, each with a summand that counts. */
static void at_points(Eval *e, const AxPairing *p, const long *mx, const long *mxc, Search *s) {
  const long *pts[2] = {mx, mxc};
  long img[2][MAX_VARS];
  char *sum[2] = {NULL, NULL};
  bool in_x[2] = {false, false};
  for (int k = 0; k < 2 && pts[k]; k++) {
    size_t base = e->nbind;
    bool ok = true;
    for (size_t i = 0; i < p->nx && ok; i++) ok = bind_long(e, p->x[i], pts[k][i]);
    fresh(e);
    Slot *in;
    ok = ok && ev(e, p->dx, &in);
    in_x[k] = ok && in->b;
    for (size_t j = 0; j < p->ny && in_x[k]; j++) in_x[k] = ev_long(e, p->h[j], &img[k][j]);
    in_x[k] = in_x[k] && summand(e, p->fx, &sum[k]) == 1;
    e->nbind = base;
    fresh(e);
    if (in_x[k] && in_dy(e, p, img[k]) == 0) {
      Found w = {.kind = AX_PAIRING_OUTSIDE, .nleft = 1, .right_in = false};
      memcpy(w.left[0], pts[k], p->nx * sizeof(long));
      memcpy(w.image[0], img[k], p->ny * sizeof(long));
      memcpy(w.right, img[k], p->ny * sizeof(long));
      w.lsum[0] = ax_xstrdup(sum[k]);
      take(s, &w);
    }
  }
  if (in_x[0] && in_x[1] && memcmp(mx, mxc, p->nx * sizeof *mx) != 0 &&
      memcmp(img[0], img[1], p->ny * sizeof(long)) == 0 && in_dy(e, p, img[0]) == 1) {
    Found w = {.kind = AX_PAIRING_COLLISION, .nleft = 2, .right_in = true};
    for (int k = 0; k < 2; k++) {
      memcpy(w.left[k], pts[k], p->nx * sizeof(long));
      memcpy(w.image[k], img[k], p->ny * sizeof(long));
      w.lsum[k] = ax_xstrdup(sum[k]);
    }
    memcpy(w.right, img[0], p->ny * sizeof(long));
    take(s, &w);
  }
  free(sum[0]);
  free(sum[1]);
}

/* A witness at instance ci, of kind `want` where there is one: D_X enumerated (outside,
 * collision), then D_Y (unreached); without D_X's box, the model's points mx, mxc (either
 * may be NULL). */
static bool witness_at(AxSymInstance *in, AxCexInst *ci, const AxPairing *p, AxPairingKind want, const long *mx,
                       const long *mxc, long *work, Found *out, const char **why) {
  Eval e;
  eval_init(&e, in, ci);
  e.work = *work;
  Search s = {.p = p, .want = want, .complete = true};
  bool ok = bind_instance(&e);
  Box bx, by;
  if (ok && p->nx <= MAX_VARS && p->ny <= MAX_VARS && box_of(&e, p->dx, p->nx, p->x, AX_PAIRING_POINTS, &bx)) {
    Images *im = &s.im;
    im->nx = p->nx, im->ny = p->ny, im->cap = 2 * (size_t)bx.total + 1;
    im->key = ax_xcalloc(im->cap * (p->ny + 1), sizeof *im->key);
    im->from = ax_xcalloc(im->cap * (p->nx + 1), sizeof *im->from);
    im->used = ax_xcalloc(im->cap, sizeof *im->used);
    im->nonzero = ax_xcalloc(im->cap, sizeof *im->nonzero);
    each(&e, &bx, p->x, visit_x, &s);
    bool more = !s.found || s.f.kind != want;
    if (more && s.complete && box_of(&e, p->dy, p->ny, p->y, AX_PAIRING_POINTS, &by))
      each(&e, &by, p->y, visit_y, &s);
    free(im->key);
    free(im->from);
    free(im->used);
    free(im->nonzero);
    if (!s.found)
      *why = s.why ? s.why : !s.complete ? e.why : "every index of the instance is paired one to one";
  } else if (ok && p->nx <= MAX_VARS && p->ny <= MAX_VARS) {
    const char *box_why = e.why;
    at_points(&e, p, mx, mxc, &s);
    if (!s.found) *why = box_why;
  } else {
    *why = e.why ? e.why : "too many summation indices to enumerate";
  }
  if (s.found) *out = s.f;
  *work = e.work;
  eval_free(&e);
  return s.found;
}

/* ---- rendering ---------------------------------------------------------------------- */

static const char *const WHAT[] = {
    [AX_PAIRING_OUTSIDE] = "the hint maps a valid left-hand index outside the right-hand domain",
    [AX_PAIRING_COLLISION] = "the hint maps two left-hand indices to one right-hand index (not injective)",
    [AX_PAIRING_UNREACHED] = "some right-hand index is the image of no valid left-hand index (not surjective)",
};
static const char *const PROPERTY[] = {
    [AX_PAIRING_OUTSIDE] = "well-defined",
    [AX_PAIRING_COLLISION] = "injective",
    [AX_PAIRING_UNREACHED] = "surjective",
};

/* "i.0 = 0, j.0 = 1" into f, and the same as a JSON object */
static cJSON *point(FILE *f, const T *vars, const long *at, size_t n) {
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%s%s = %ld", i ? ", " : "", ax_term_var_name(vars[i]), at[i]);
    cJSON_AddNumberToObject(o, ax_term_var_name(vars[i]), (double)at[i]);
  }
  if (!n) fputs("(no index)", f);
  return o;
}

static char *line(const T *vars, const long *at, size_t n) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cJSON_Delete(point(f, vars, at, n));
  fclose(f);
  return buf;
}

static void render(AxCexInst *ci, const AxPairing *p, const Found *w, AxPairingWitness *out) {
  out->kind = w->kind;
  out->what = WHAT[w->kind];
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "failed", out->what);
  cJSON_AddStringToObject(j, "property", PROPERTY[w->kind]);
  fprintf(f, "hint witness (replayed): %s\n", out->what);
  ax_cex_inst_render(ci, f, j);
  cJSON *jl = cJSON_AddArrayToObject(j, "left");
  for (size_t k = 0; k < w->nleft; k++) {
    cJSON *o = cJSON_CreateObject();
    fputs("  left-hand index ", f);
    cJSON_AddItemToObject(o, "index", point(f, p->x, w->left[k], p->nx));
    fprintf(f, " (summand %s): in the left-hand domain, paired with ", w->lsum[k] ? w->lsum[k] : "?");
    cJSON_AddStringToObject(o, "summand", w->lsum[k] ? w->lsum[k] : "?");
    cJSON_AddBoolToObject(o, "in_domain", true);
    cJSON_AddItemToObject(o, "paired_with", point(f, p->y, w->image[k], p->ny));
    fputc('\n', f);
    cJSON_AddItemToArray(jl, o);
  }
  cJSON *jr = cJSON_AddObjectToObject(j, "right");
  fputs("  right-hand index ", f);
  cJSON_AddItemToObject(jr, "index", point(f, p->y, w->right, p->ny));
  cJSON_AddBoolToObject(jr, "in_domain", w->right_in);
  if (w->kind == AX_PAIRING_UNREACHED) {
    fprintf(f, " (summand %s): in the right-hand domain, the image of none of the %ld indices of the "
               "left-hand domain\n", w->rsum ? w->rsum : "?", w->nx_points);
    cJSON_AddStringToObject(jr, "summand", w->rsum ? w->rsum : "?");
    cJSON_AddNumberToObject(j, "left_domain_points", (double)w->nx_points);
  } else {
    fprintf(f, ": %s the right-hand domain\n", w->right_in ? "in" : "not in");
  }
  fclose(f);
  if (len && buf[len - 1] == '\n') buf[len - 1] = '\0';
  out->text = buf;
  out->json = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  char *l0 = w->nleft ? line(p->x, w->left[0], p->nx) : NULL;
  char *l1 = w->nleft > 1 ? line(p->x, w->left[1], p->nx) : NULL;
  char *r = line(p->y, w->right, p->ny);
  size_t n = (l0 ? strlen(l0) : 0) + (l1 ? strlen(l1) : 0) + strlen(r) + 128;
  out->summary = ax_xmalloc(n);
  if (w->kind == AX_PAIRING_OUTSIDE)
    snprintf(out->summary, n, "%s pairs with %s, outside the right-hand domain", l0, r);
  else if (w->kind == AX_PAIRING_COLLISION)
    snprintf(out->summary, n, "%s and %s both pair with %s", l0, l1, r);
  else
    snprintf(out->summary, n, "%s is paired with no left-hand index", r);
  free(l0);
  free(l1);
  free(r);
}

/* ---- the two entry points ------------------------------------------------------------- */

/* m's integer values at positions from..from+n (into at); false when one is missing */
static bool model_point(const AxModel *m, size_t from, size_t n, long *at) {
  mpz_t z;
  mpz_init(z);
  bool ok = n <= MAX_VARS;
  for (size_t i = 0; i < n && ok; i++) {
    ok = ax_model_int(m, from + i, z) && mpz_fits_slong_p(z);
    if (ok) at[i] = mpz_get_si(z);
  }
  mpz_clear(z);
  return ok;
}

bool ax_pairing_replay(AxSymInstance *in, const AxPairing *p, AxPairingKind want, const AxWatch *w,
                       const AxModel *m, const AxTerm *const *xc, AxPairingWitness *out, const char **why) {
  memset(out, 0, sizeof *out);
  long mx[MAX_VARS], mxc[MAX_VARS];
  bool has_x = model_point(m, w->n, p->nx, mx);
  bool has_xc = xc && model_point(m, w->n + p->nx + p->ny, p->nx, mxc);
  bool found = false;
  long work = WORK;
  *why = "the model has no value for an index";
  /* each fill in turn until one has a witness of the wanted kind; else the first found */
  for (int fill = 0; fill < 3 && !(found && out->kind == want) && work > 0; fill++) {
    AxCexInst *ci = ax_cex_inst_new(in, w, m, fill, why);
    if (!ci) continue;
    Found f;
    if (witness_at(in, ci, p, want, has_x ? mx : NULL, has_xc ? mxc : NULL, &work, &f, why)) {
      if (!found || f.kind == want) {
        ax_pairing_witness_free(out);
        render(ci, p, &f, out);
      }
      found = true;
      found_clear(&f);
    }
    size_t filled = ax_concrete_missing(ax_cex_inst_concrete(ci));
    ax_cex_inst_free(ci);
    if (!filled) break;   /* the model fixed every point read: another fill changes nothing */
  }
  return found;
}

bool ax_pairing_search(AxSymInstance *in, const AxPairing *p, AxPairingKind want, const AxWatch *w,
                       unsigned samples, AxPairingWitness *out) {
  memset(out, 0, sizeof *out);
  uint64_t state = AX_CEX_SEED;
  long work = WORK;
  for (unsigned k = 0; k < samples && work > 0; k++) {
    AxWatch head;
    AxModel *m = ax_cex_sample(in, w, &state, &head);
    const int fills[] = {0, 1, AX_CONCRETE_FILL_SAMPLED + (int)k};
    bool found = false;
    for (size_t i = 0; i < sizeof fills / sizeof fills[0] && !found; i++) {
      const char *why;
      AxCexInst *ci = ax_cex_inst_new(in, &head, m, fills[i], &why);
      if (!ci) continue;
      Found f;
      found = witness_at(in, ci, p, want, NULL, NULL, &work, &f, &why);
      if (found) {
        render(ci, p, &f, out);
        found_clear(&f);
      }
      ax_cex_inst_free(ci);
    }
    ax_model_free(m);
    if (found) return true;
  }
  return false;
}

void ax_pairing_witness_free(AxPairingWitness *w) {
  free(w->summary);
  free(w->text);
  free(w->json);
  memset(w, 0, sizeof *w);
}
