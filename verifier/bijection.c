/* bijection.c — reduction equality through a checked bijection; see bijection.h. */
#include "verifier/bijection.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "verifier/cex.h"
#include "verifier/pairing.h"

typedef const AxTerm *T;

/* out->reason := "at rank WHERE: " followed by the formatted message */
static void say(AxResult *out, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(AxResult *out, const char *where, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t n = strlen(where) + strlen(msg) + 16;
  free(out->reason);
  out->reason = ax_xmalloc(n);
  snprintf(out->reason, n, "at rank %s: %s", where, msg);
}

typedef struct Side {
  size_t n;
  T *vars;
} Side;

static bool in_side(const Side *s, T v) {
  for (size_t i = 0; i < s->n; i++)
    if (s->vars[i] == v) return true;
  return false;
}

/* Does t mention none of the variables of s (other than those of `allow`)? */
static bool free_of(AxSymInstance *in, T t, const Side *s, const Side *allow) {
  AxVec vars = {0};
  ax_term_collect(in->tc, &t, 1, ax_term_pred_var, NULL, in->a, &vars);
  for (size_t i = 0; i < vars.len; i++)
    if (in_side(s, vars.items[i]) && !in_side(allow, vars.items[i])) return false;
  return true;
}

static void conjuncts(T t, AxArena *a, AxVec *out) {
  if (ax_term_kind(t) == AX_TERM_AND) {
    for (size_t i = 0; i < ax_term_nargs(t); i++) conjuncts(ax_term_arg(t, i), a, out);
    return;
  }
  ax_vec_push(a, out, (void *)t);
}

static int axis_of(const AxSumVar *sv, size_t nsv, T v) {
  for (size_t i = 0; i < nsv; i++)
    if (sv[i].var == v) return sv[i].axis;
  return -2;
}

/* For every variable of `to`, an expression over the variables of `from`: a variable both
 * share maps to itself; else a hint conjunct `v == e` (either way round) with e free of the
 * other `to` variables; else the next unpaired `from` variable of the same axis. Returns
 * false (naming the variable in why) when some variable has none. Inferred pairings are
 * pushed on `pairs` (the `to` variable, then the `from` one). */
static bool solve(AxSymInstance *in, const Side *from, const Side *to, const AxVec *hint, T *out,
                  char *why, size_t len, AxVec *pairs) {
  size_t nsv;
  const AxSumVar *sv = ax_symbolic_sumvars(in->sym, &nsv);
  bool *used = ax_arena_alloc(in->a, from->n + 1);
  for (size_t i = 0; i < to->n; i++) {
    T v = to->vars[i];
    out[i] = NULL;
    if (in_side(from, v)) {
      out[i] = v;
      for (size_t j = 0; j < from->n; j++) used[j] |= from->vars[j] == v;
      continue;
    }
    for (size_t c = 0; c < hint->len && !out[i]; c++) {
      T h = hint->items[c];
      if (ax_term_kind(h) != AX_TERM_EQ) continue;
      for (int side = 0; side < 2 && !out[i]; side++) {
        T lhs = ax_term_arg(h, (size_t)side), rhs = ax_term_arg(h, (size_t)!side);
        if (lhs == v && free_of(in, rhs, to, from)) out[i] = rhs;
      }
    }
  }
  for (size_t i = 0; i < to->n; i++) {
    if (out[i]) continue;
    int ax = axis_of(sv, nsv, to->vars[i]);
    for (size_t j = 0; j < from->n && !out[i]; j++)
      if (!used[j] && ax >= 0 && axis_of(sv, nsv, from->vars[j]) == ax) {
        used[j] = true;
        out[i] = from->vars[j];
        ax_vec_push(in->a, pairs, (void *)to->vars[i]);
        ax_vec_push(in->a, pairs, (void *)from->vars[j]);
      }
    if (!out[i]) {
      snprintf(why, len, "no hint gives the summation index '%s' in terms of the other side's",
               ax_term_var_name(to->vars[i]));
      return false;
    }
  }
  return true;
}

static T tuple_eq(AxTermCtx *tc, const T *a, const T *b, size_t n) {
  T acc = ax_term_mk_true(tc);
  for (size_t i = 0; i < n; i++) acc = ax_term_mk_and2(tc, acc, ax_term_mk_eq(tc, a[i], b[i]));
  return acc;
}

/* "i.0 = 3, k.0 = 3": the model's values of the watched variables w[from..n) */
static void model_text(const AxModel *m, const T *w, size_t from, size_t n, char *buf, size_t len) {
  size_t pos = 0;
  buf[0] = '\0';
  mpz_t z;
  mpz_init(z);
  for (size_t i = from; i < n && pos < len; i++) {
    if (!ax_model_int(m, i, z)) continue;
    char *s = mpz_get_str(NULL, 10, z);
    pos += (size_t)snprintf(buf + pos, len - pos, "%s%s = %s", pos ? ", " : "", ax_term_var_name(w[i]), s);
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    freefn(s, strlen(s) + 1);
  }
  mpz_clear(z);
}

/* One query: UNSAT proves the property. On SAT *m receives the model (owned by the caller)
 * of `watch`. The property is a conjunction, one conjunct per summation variable (and per
 * dimension of each): it is asked conjunct by conjunct (query.h split), each far easier
 * for the solvers than the whole (docs/semantics.md, "Shortcuts in solving"); the products
 * of its window arithmetic come with the facts its bounds imply (window_facts: the model
 * is only a candidate, which pairing.c replays; no verdict rests on it unreplayed). */
static AxSmtResult ask(AxSymInstance *in, const AxVerifyOpts *o, T q, const T *watch, size_t nwatch,
                       AxModel **m, char *reason, size_t rlen, AxResult *out) {
  out->queries++;
  AxSolverOpts so = o->solver;
  so.split = true;
  so.window_facts = true;
  return ax_solver_check(&so, in->tc, q, watch, nwatch, m, reason, rlen);
}

/* --- Pairing by matching reads: concatenation offsets ------------------------------------ */

/* A summand is a tree of element-level choices; each leaf with its path condition. */
typedef struct Leaf {
  T pc;
  T term;
} Leaf;

/* Does the conjunction pc have conjunct c? */
static bool has_conjunct(T pc, T c) {
  if (pc == c) return true;
  if (ax_term_kind(pc) != AX_TERM_AND) return false;
  for (size_t i = 0; i < ax_term_nargs(pc); i++)
    if (ax_term_arg(pc, i) == c) return true;
  return false;
}

/* Element-level choices are lifted out of arithmetic (concat(X, Y)[i] · concat(C, D)[i] is
 * a product of two ites on i < xs), and a choice the path already decided is not split
 * again. */
enum { MAX_LEAVES = 64 };   /* past this many, a subtree is one leaf (no blow-up) */

static void leaves(AxTermCtx *tc, T t, T pc, AxArena *a, AxVec *out) {
  AxTermKind k = ax_term_kind(t);
  bool split = out->len < MAX_LEAVES;
  if (split && k == AX_TERM_ITE) {
    T c = ax_term_arg(t, 0), nc = ax_term_mk_not(tc, c);
    if (has_conjunct(pc, c)) {
      leaves(tc, ax_term_arg(t, 1), pc, a, out);
    } else if (has_conjunct(pc, nc)) {
      leaves(tc, ax_term_arg(t, 2), pc, a, out);
    } else {
      leaves(tc, ax_term_arg(t, 1), ax_term_mk_and2(tc, pc, c), a, out);
      leaves(tc, ax_term_arg(t, 2), ax_term_mk_and2(tc, pc, nc), a, out);
    }
    return;
  }
  if (split && (k == AX_TERM_ADD || k == AX_TERM_SUB || k == AX_TERM_MUL || k == AX_TERM_NEG)) {
    size_t n = ax_term_nargs(t);
    for (size_t i = 0; i < n; i++) {
      T x = ax_term_arg(t, i);
      if (ax_term_kind(x) != AX_TERM_ITE) continue;
      T *args = ax_arena_alloc(a, n * sizeof *args);
      for (size_t j = 0; j < n; j++) args[j] = ax_term_arg(t, j);
      args[i] = ax_term_arg(x, 1);
      T then = ax_term_mk(tc, k, n, args);
      args[i] = ax_term_arg(x, 2);
      T els = ax_term_mk(tc, k, n, args);
      leaves(tc, ax_term_mk_ite(tc, ax_term_arg(x, 0), then, els), pc, a, out);
      return;
    }
  }
  Leaf *l = ax_arena_alloc(a, sizeof *l);
  *l = (Leaf){pc, t};
  ax_vec_push(a, out, l);
}

/* e with arg = e, when arg is v, v - c or v + c (c free of the `to` variables). */
static T solve_for(AxSymInstance *in, T v, T arg, T e, const Side *to, const Side *from) {
  AxTermCtx *tc = in->tc;
  if (arg == v) return e;
  AxTermKind k = ax_term_kind(arg);
  if (k == AX_TERM_SUB && ax_term_arg(arg, 0) == v && free_of(in, ax_term_arg(arg, 1), to, from))
    return ax_term_mk_add2(tc, e, ax_term_arg(arg, 1));
  if (k == AX_TERM_ADD && ax_term_nargs(arg) == 2)
    for (int s = 0; s < 2; s++)
      if (ax_term_arg(arg, (size_t)s) == v && free_of(in, ax_term_arg(arg, (size_t)!s), to, from))
        return ax_term_mk_sub(tc, e, ax_term_arg(arg, (size_t)!s));
  return NULL;
}

/* A value of v that makes the path condition pc hold, from a conjunct v < c, v >= c, v <= c,
 * v > c or v = c (c free of the `to` variables): the bound itself, or next to it. */
static T choose(AxSymInstance *in, T v, T pc, const Side *to, const Side *from) {
  AxTermCtx *tc = in->tc;
  AxVec cs = {0};
  conjuncts(pc, in->a, &cs);
  T one = ax_term_mk_int_si(tc, 1);
  for (size_t i = 0; i < cs.len; i++) {
    T c = cs.items[i];
    bool neg = ax_term_kind(c) == AX_TERM_NOT;
    if (neg) c = ax_term_arg(c, 0);
    AxTermKind k = ax_term_kind(c);
    if (k != AX_TERM_LT && k != AX_TERM_LE && k != AX_TERM_EQ) continue;
    for (int s = 0; s < 2; s++) {
      T x = ax_term_arg(c, (size_t)s), b = ax_term_arg(c, (size_t)!s);
      if (x != v || !free_of(in, b, to, from)) continue;
      /* v = b: b itself; v != b: b + 1 (a side variable of a sum over a union is 0 or 1) */
      if (k == AX_TERM_EQ) return neg ? ax_term_mk_add2(tc, b, one) : b;
      bool v_below = (s == 0) != neg;   /* v < b or v <= b (or, negated, v > b, v >= b) */
      bool strict = (k == AX_TERM_LT) != neg;
      if (v_below) return strict ? ax_term_mk_sub(tc, b, one) : b;
      return strict ? ax_term_mk_add2(tc, b, one) : b;
    }
  }
  return NULL;
}

/* Is c false wherever the conjunction pc holds (pc has its negation)? */
static bool contradicts(AxTermCtx *tc, T pc, T c) {
  if (ax_term_kind(c) == AX_TERM_NOT && has_conjunct(pc, ax_term_arg(c, 0))) return true;
  return has_conjunct(pc, ax_term_mk_not(tc, c));
}

/* Does the domain t force w = 0 wherever the path condition pc holds? Read off the
 * and/or structure the sums' domains are built in (a union pins the other part's
 * variables at 0 under its tag): a conjunction does when one conjunct is w = 0, is
 * contradicted by pc or does so itself; a disjunction when every disjunct does. */
static bool pinned_on(AxTermCtx *tc, T t, T pc, T w) {
  AxTermKind k = ax_term_kind(t);
  if (k == AX_TERM_OR) {
    for (size_t i = 0; i < ax_term_nargs(t); i++)
      if (!pinned_on(tc, ax_term_arg(t, i), pc, w)) return false;
    return true;
  }
  if (k == AX_TERM_EQ) {
    T a = ax_term_arg(t, 0), b = ax_term_arg(t, 1), zero = ax_term_mk_int_si(tc, 0);   /* hash-consed */
    return (a == w && b == zero) || (b == w && a == zero) || contradicts(tc, pc, t);
  }
  if (k != AX_TERM_AND) return contradicts(tc, pc, t);
  for (size_t i = 0; i < ax_term_nargs(t); i++) {
    T c = ax_term_arg(t, i);
    if (contradicts(tc, pc, c) || pinned_on(tc, c, pc, w)) return true;
  }
  return false;
}

/* For every variable of `to`, a guess from the reads of the two summands: a leaf of `to`'s
 * summand and a leaf of `from`'s that read the same tensor are the same element, so an
 * index argument v, v - c or v + c of the one equals the argument of the other (v = j + a
 * for Y[v - a] against Y[j]: a concatenation's offset); a variable that is read nowhere but
 * chooses the leaf (r < 1) takes a value that makes its path condition hold. The guesses
 * of the leaves combine into an ite over `from`'s path conditions, 0 elsewhere (the value
 * a pinned summation variable has). A variable no leaf anchors is 0 when another variable
 * was guessed (a summation index pinned on the side of a union that does not use it: A +
 * Σ_z … pairs A's element with side 0 and z = 0), or when `from` has no variables (a sum
 * against a plain value pairs the value with its domain's point 0, which proves the rule
 * where that is the domain's only point: Σ over one element). Only a guess: the bijection checks
 * decide, so a wrong guess costs a proof, never soundness. */
static bool guess(AxSymInstance *in, const Side *from, const Side *to, T from_dom, T from_body,
                  T to_body, T *out) {
  AxTermCtx *tc = in->tc;
  AxVec lf = {0}, lt = {0};
  leaves(tc, from_body, ax_term_mk_true(tc), in->a, &lf);
  leaves(tc, to_body, ax_term_mk_true(tc), in->a, &lt);
  size_t anchored = 0;
  for (size_t i = 0; i < to->n; i++) {
    T v = to->vars[i], acc = ax_term_mk_int_si(tc, 0), same = NULL;
    bool any = false, agree = true;
    AxVec unanchored = {0};   /* Leaf*: the leaves of `from` that do not anchor v */
    for (size_t f = lf.len; f-- > 0;) {   /* from the last leaf, so the first is outermost */
      const Leaf *fl = lf.items[f];
      AxVec rf = {0};
      ax_term_collect(tc, &fl->term, 1, ax_term_pred_app, NULL, in->a, &rf);
      T e = NULL;
      for (size_t t = 0; t < lt.len && !e; t++) {
        const Leaf *tl = lt.items[t];
        AxVec rt = {0};
        ax_term_collect(tc, &tl->term, 1, ax_term_pred_app, NULL, in->a, &rt);
        bool matched = false;
        for (size_t a = 0; a < rt.len && !e; a++)
          for (size_t b = 0; b < rf.len && !e; b++) {
            T ra = rt.items[a], rb = rf.items[b];
            if (ax_term_app_func(ra) != ax_term_app_func(rb)) continue;
            matched = true;
            for (size_t p = 0; p < ax_term_nargs(ra) && !e; p++)
              e = solve_for(in, v, ax_term_arg(ra, p), ax_term_arg(rb, p), to, from);
          }
        if (matched && !e) e = choose(in, v, tl->pc, to, from);
      }
      if (e && free_of(in, e, to, from)) {
        acc = ax_term_mk_ite(tc, fl->pc, e, acc);
        agree &= !same || same == e;
        same = e;
        any = true;
      } else {
        ax_vec_push(in->a, &unanchored, (void *)fl);
      }
    }
    anchored += any;
    /* Every leaf that anchors v says it is one variable w of `from`, and the domain pins
     * w at 0 on every other leaf (the plain part of a + Σ g), where the ite gives 0: then
     * w is the same map on the domain, without the path conditions — which would count
     * as folds and reads in the rank bound (the same pairing, a smaller bound). */
    bool plain = any && agree && ax_term_kind(same) == AX_TERM_VAR;
    for (size_t f = 0; f < unanchored.len && plain; f++)
      plain = pinned_on(tc, from_dom, ((const Leaf *)unanchored.items[f])->pc, same);
    out[i] = plain ? same : acc;
  }
  return anchored > 0 || to->n == 0 || from->n == 0;
}

/* t as ax_term_print writes it, in arena a. */
static const char *term_text(AxArena *a, T t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) return "?";
  ax_term_print(mem, t);
  fclose(mem);
  const char *s = ax_arena_strdup(a, buf);
  free(buf);
  return s;
}

/* The pairings axle inferred rather than read from a hint (by axis, or guessed from the
 * reads): pairs (the variable, the term it is paired with) of h, the right-hand variables,
 * and of g, the left-hand ones; and whether the rule wrote a hint at all. */
typedef struct Inferred {
  AxVec h, g;
  bool written;
} Inferred;

/* ax_bij_maps, with what it inferred in *inf */
static bool maps(AxSymInstance *in, T *h, T *g, char *why, size_t len, Inferred *inf) {
  Side L = {in->red[0].n, (T *)in->red[0].vars}, R = {in->red[1].n, (T *)in->red[1].vars};
  AxVec hint = {0};
  conjuncts(in->hint, in->a, &hint);
  *inf = (Inferred){0};
  for (size_t i = 0; i < hint.len; i++) inf->written |= ax_term_kind(hint.items[i]) != AX_TERM_TRUE;
  if (solve(in, &L, &R, &hint, h, why, len, &inf->h) && solve(in, &R, &L, &hint, g, why, len, &inf->g))
    return true;
  /* no hint written and no variable-to-variable pairing: guess from the reads */
  if (inf->written || !guess(in, &L, &R, in->red[0].dom, in->red[0].body, in->red[1].body, h) ||
      !guess(in, &R, &L, in->red[1].dom, in->red[1].body, in->red[0].body, g))
    return false;
  inf->h.len = inf->g.len = 0;
  for (size_t i = 0; i < R.n; i++) {
    ax_vec_push(in->a, &inf->h, (void *)R.vars[i]);
    ax_vec_push(in->a, &inf->h, (void *)h[i]);
  }
  for (size_t i = 0; i < L.n; i++) {
    ax_vec_push(in->a, &inf->g, (void *)L.vars[i]);
    ax_vec_push(in->a, &inf->g, (void *)g[i]);
  }
  return true;
}

/* The inferred pairs a report shows: those of h; where h has none (the hints pair every
 * right-hand index, or the right-hand side sums nothing), those of g — the inverse of a
 * one-way hint, which the surjectivity check rests on. Where h has some, g's are the
 * inverse axle built with them. In arena a. */
static AxVec shown(AxArena *a, const Inferred *inf) {
  AxVec out = {0};
  const AxVec *v = inf->h.len ? &inf->h : &inf->g;
  for (size_t i = 0; i < v->len; i++) ax_vec_push(a, &out, v->items[i]);
  return out;
}

/* "k.0 == i.0, ...": the pairs in the instance's names (a guessed term as ax_term_print
 * writes it), into buf */
static void pairs_text(AxArena *a, const AxVec *pairs, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t i = 0; i + 1 < pairs->len; i += 2) {
    size_t n = strlen(buf);
    T from = pairs->items[i + 1];
    snprintf(buf + n, len - n, "%s%s == %s", n ? ", " : "", ax_term_var_name(pairs->items[i]),
             ax_term_kind(from) == AX_TERM_VAR ? ax_term_var_name(from) : term_text(a, from));
  }
}

bool ax_bij_maps(AxSymInstance *in, T *h, T *g, char *why, size_t len, char *inferred, size_t ilen) {
  Inferred inf;
  bool ok = maps(in, h, g, why, len, &inf);
  AxVec v = shown(in->a, &inf);
  pairs_text(in->a, &v, inferred, ilen);
  return ok;
}

/* The name a rule gives, or would give, summation variable v, from its name in the
 * instance: without the number of a fresh copy ("x.0#3", an unnamed index of axis x),
 * and without the component when it is the first ("i.0", component 0 of index map i).
 * NULL for a later component ("i.1"), which only a rank above 1 has. */
static const char *plain(AxArena *a, T v) {
  const char *s = ax_term_var_name(v);
  size_t n = strlen(s), k = n;
  while (k > 0 && isdigit((unsigned char)s[k - 1])) k--;
  if (k < n && k > 0 && s[k - 1] == '#') n = k - 1;
  if (n < 3 || s[n - 2] != '.' || s[n - 1] != '0') return NULL;
  return ax_arena_printf(a, "%.*s", (int)(n - 2), s);
}

/* Does every variable of s have a plain name, and no two the same? */
static bool plain_names(AxArena *a, const Side *s) {
  for (size_t i = 0; i < s->n; i++) {
    const char *p = plain(a, s->vars[i]);
    if (!p) return false;
    for (size_t j = 0; j < i; j++)
      if (strcmp(p, plain(a, s->vars[j])) == 0) return false;
  }
  return true;
}

/* AxResult.inferred_hint from the pairs solve inferred: "rhs == lhs, ...", in plain names
 * when both sides' are unambiguous (plain_names), else in the instance's names. Owned. */
static char *hint_text(AxArena *a, const AxVec *pairs, const Side *L, const Side *R) {
  bool strip = plain_names(a, L) && plain_names(a, R);
  for (size_t i = 1; i < pairs->len; i += 2)   /* a guessed expression keeps its names */
    strip = strip && ax_term_kind(pairs->items[i]) == AX_TERM_VAR;
  const char *text = "";
  for (size_t i = 0; i + 1 < pairs->len; i += 2) {
    T to = pairs->items[i], from = pairs->items[i + 1];
    const char *rhs = NULL;
    if (ax_term_kind(from) == AX_TERM_VAR)
      rhs = strip ? plain(a, from) : ax_term_var_name(from);
    else
      rhs = term_text(a, from);
    text = ax_arena_printf(a, "%s%s%s == %s", text, i ? ", " : "",
                           strip ? plain(a, to) : ax_term_var_name(to), rhs);
  }
  return ax_xstrdup(text);
}

/* The last obligation q (unsat: the values agree). A model is replayed with the concrete
 * sums; only a replayed difference is INVALID. */
static AxVerdict settle(AxSymInstance *in, const AxVerifyOpts *o, const char *where, T q, AxResult *out) {
  char reason[512];
  AxWatch w;
  ax_cex_watch(in, q, &w);
  AxModel *m = NULL;
  out->queries++;
  AxEagerReplay eager = {in, &w};
  AxSolverOpts so;
  ax_verify_eager(&so, &o->solver, &eager);
  AxSmtResult r = ax_solver_check(&so, in->tc, q, w.terms, w.n, &m, reason, sizeof reason);
  AxVerdict v = AX_VERIFIED;
  if (r == AX_SMT_UNKNOWN) {
    say(out, where, "%s", reason);
    v = AX_UNKNOWN;
  } else if (r == AX_SMT_SAT) {
    AxReplay rep;
    ax_cex_replay(in, &w, m, &rep);
    if (!rep.confirmed && rep.partial_pre) ax_verify_complete(in, q, &w, m, &so, &out->queries, &rep);
    if (rep.confirmed) {
      v = AX_INVALID;
      say(out, where, "%s", rep.failed);
      ax_result_take_cex(out, &rep);
    } else {
      v = AX_UNKNOWN;
      const char *msg = rep.unsupported ? rep.unsupported
                                        : "the summands differ under the hint's pairing, but the "
                                          "replayed sums agree; another pairing may prove the rule";
      say(out, where, "%s", msg);
    }
    free(rep.failed);
  }
  ax_model_free(m);
  return v;
}

/* Without a usable pairing: summands that differ at independent points of the two
 * domains, replayed with the concrete sums; INVALID only when the replay confirms. The
 * solver's model may choose values under which the sums agree (a constant 0, a sum of one
 * element: reduce_03's mutant a + Σx against Σ(a + x)); then small concrete instances are
 * replayed (ax_cex_search), and one that shows the difference refutes the rule. */
static AxVerdict refute(AxSymInstance *in, const AxVerifyOpts *o, const char *where, AxResult *out) {
  AxTermCtx *tc = in->tc;
  T q = ax_term_mk_and(tc, 3, (const AxTerm *const[]){in->ctx, ax_term_mk_and2(tc, in->red[0].dom, in->red[1].dom),
                                                       ax_term_mk_not(tc, ax_term_mk_eq(tc, in->red[0].body, in->red[1].body))});
  AxVerdict v = settle(in, o, where, q, out);
  if (v == AX_INVALID) return v;
  AxWatch w;
  ax_cex_watch(in, q, &w);
  AxReplay rep;
  if (in->searched || !ax_cex_search(in, &w, AX_CEX_SAMPLES, &rep)) return v;
  say(out, where, "%s (found by replaying small instances)", rep.failed);
  ax_result_take_cex(out, &rep);
  free(rep.failed);
  return AX_INVALID;
}

/* An integer product of two non-constant factors, or a division or remainder by one: the
 * index arithmetic of a strided or dilated window (conv, pad, slice), which the solvers
 * find hard enough that its checks are asked one by one and split (ask). */
static bool nonlinear_int(const AxTerm *t, void *unused) {
  (void)unused;
  AxTermKind k = ax_term_kind(t);
  if (ax_term_sort(t) != AX_SORT_INT) return false;
  if (k == AX_TERM_DIV || k == AX_TERM_MOD) return ax_term_kind(ax_term_arg(t, 1)) != AX_TERM_INT;
  if (k != AX_TERM_MUL) return false;
  size_t vars = 0;
  for (size_t i = 0; i < ax_term_nargs(t); i++) vars += ax_term_kind(ax_term_arg(t, i)) != AX_TERM_INT;
  return vars >= 2;
}

/* All four obligations of a pairing at once (docs/semantics.md, "Shortcuts in solving"): q0 ∨ q1 ∨ q2 ∨ q3
 * is unsatisfiable exactly when each qi is, so its unsat proves the pairing a bijection and
 * the summands equal under it — one query where there were four. Any other answer proves
 * nothing and the obligations are asked one by one, as if this had not been asked: which
 * one fails decides the verdict (INVALID-HINT, INVALID, UNKNOWN) and its message. Only for
 * linear index arithmetic (nonlinear_int): there, the split checks are what the solvers
 * can decide, and a hard disjunction would only add its time. */
static bool all_at_once(AxSymInstance *in, const AxVerifyOpts *o, const T *q, size_t n, AxResult *out) {
  AxVec nl = {0};
  ax_term_collect(in->tc, q, n - 1, nonlinear_int, NULL, in->a, &nl);   /* the index checks */
  if (nl.len) return false;
  char reason[512];
  out->queries++;
  return ax_solver_check(&o->solver, in->tc, ax_term_mk_or(in->tc, n, q), NULL, 0, NULL, reason,
                         sizeof reason) == AX_SMT_UNSAT;
}

/* The SAT answer to pairing check c (its query q, watched by watch[0..nwatch): the cex
 * watch list of q, then X, Y and, for the injectivity check, the copies xc): the verdict
 * and its reason. h is the written pairing, or axle's own (h_written false). */
static AxVerdict wrong_pairing(AxSymInstance *in, const char *where, const char *what, AxPairingKind want,
                               const AxModel *m, const AxWatch *w, const T *watch, size_t nwatch,
                               const AxPairing *p, const T *xc, bool h_written, const char *inferred,
                               bool g_inferred, AxResult *out) {
  char model[1024];
  model_text(m, watch, w->n, nwatch, model, sizeof model);
  if (!h_written) {
    /* part of the pairing is axle's guess, not the rule's claim: no verdict on a hint
     * nobody wrote, only the advice to write one */
    say(out, where, "%s (%s); the pairing was partly inferred (%s): a written hint may prove the rule", what,
        model, inferred[0] ? inferred : "the rule writes no hint");
    return AX_UNKNOWN;
  }
  /* INVALID-HINT only with a witness replayed exactly (pairing.h): the model's instance,
   * else small ones. The solvers' sat alone is no witness: a domain may hold sqrt, exp, a
   * sum under sqrt or a tensor precondition assumed only where the query reads, which they
   * see only approximately. */
  AxPairingWitness wit;
  const char *why = NULL;
  bool found = ax_pairing_replay(in, p, want, w, m, xc, &wit, &why) ||
               ax_pairing_search(in, p, want, w, AX_PAIRING_SAMPLES, &wit);
  if (found) {
    say(out, where, "%s: %s (replayed)", wit.what, wit.summary);
    free(out->cex_text);
    free(out->cex_json);
    out->cex_text = wit.text;
    out->cex_json = wit.json;
    wit.text = wit.json = NULL;
    ax_pairing_witness_free(&wit);
    return AX_INVALID_HINT;
  }
  if (g_inferred)
    say(out, where, "%s (%s), but neither that model nor %u small instances show it when replayed exactly "
        "(the model: %s); the inverse pairing was inferred (%s): a hint that gives it may prove the rule",
        what, model, AX_PAIRING_SAMPLES, why, inferred);
  else
    say(out, where, "%s (%s), but neither that model nor %u small instances show it when replayed exactly "
        "(the model: %s); the solvers see the summation domains only approximately (sqrt, exp, a power, a sum "
        "under sqrt, a tensor precondition), so the hint may be right", what, model, AX_PAIRING_SAMPLES, why);
  return AX_UNKNOWN;
}

AxVerdict ax_bij_prove(AxSymInstance *in, const AxVerifyOpts *o, const char *where, AxResult *out) {
  AxTermCtx *tc = in->tc;
  Side L = {in->red[0].n, (T *)in->red[0].vars}, R = {in->red[1].n, (T *)in->red[1].vars};
  char reason[512];
  /* One side a plain value, the other a sum whose domain is empty wherever the rule
   * applies: the sum is 0, so the plain value must be 0 (an empty dot, a sum over a
   * size-0 axis). No pairing is needed. */
  if ((L.n == 0) != (R.n == 0)) {
    int sum_side = L.n ? 0 : 1;
    T nonempty = ax_term_mk_and2(tc, in->ctx, in->red[sum_side].dom);
    out->queries++;
    if (ax_solver_check(&o->solver, tc, nonempty, NULL, 0, NULL, reason, sizeof reason) == AX_SMT_UNSAT) {
      T zero = in->type == AX_REAL ? ax_term_mk_real_si(tc, 0, 1) : ax_term_mk_int_si(tc, 0);
      T q = ax_term_mk_and2(tc, in->ctx, ax_term_mk_not(tc, ax_term_mk_eq(tc, in->red[!sum_side].body, zero)));
      return settle(in, o, where, q, out);
    }
  }
  T *h = ax_arena_alloc(in->a, (R.n + 1) * sizeof(T));   /* RHS vars from LHS vars */
  T *g = ax_arena_alloc(in->a, (L.n + 1) * sizeof(T));   /* LHS vars from RHS vars */
  char why[512], inferred[512] = "";
  Inferred inf;
  if (!maps(in, h, g, why, sizeof why, &inf)) {
    /* no pairing, so no proof; but a replayed difference still refutes the rule */
    if (refute(in, o, where, out) == AX_INVALID) return AX_INVALID;
    say(out, where, "%s", why);
    return AX_UNKNOWN;
  }
  /* the result reports the pairing of the first instance that inferred one (instances
   * run lowest ranks first, so usually that of rank 1 everywhere, in plain names) */
  AxVec show = shown(in->a, &inf);
  if (show.len && !out->inferred_hint) out->inferred_hint = hint_text(in->a, &show, &L, &R);
  pairs_text(in->a, &show, inferred, sizeof inferred);
  /* h is the rule's claim only when no part of it is axle's (by axis or guessed), and,
   * for a right-hand side that sums nothing, when the rule wrote a hint at all */
  bool h_written = inf.h.len == 0 && (R.n > 0 || inf.written);
  T DX = in->red[0].dom, DY = in->red[1].dom, f = in->red[0].body, gb = in->red[1].body;
  T DYh = ax_term_subst(tc, DY, R.n, (const AxTerm *const *)R.vars, h);
  T gh = ax_term_subst(tc, gb, R.n, (const AxTerm *const *)R.vars, h);
  T base = ax_term_mk_and2(tc, in->ctx, DX);

  struct {
    const char *what;
    T q;
  } checks[3];
  /* well defined: h maps D_X into D_Y */
  checks[0].what = "the hint maps a valid left-hand index outside the right-hand domain";
  checks[0].q = ax_term_mk_and2(tc, base, ax_term_mk_not(tc, DYh));
  /* injective: a copy X' of the LHS variables */
  T *Xc = ax_arena_alloc(in->a, (L.n + 1) * sizeof(T));
  for (size_t i = 0; i < L.n; i++)
    Xc[i] = ax_term_mk_var(tc, ax_arena_printf(in->a, "%s'", ax_term_var_name(L.vars[i])), AX_SORT_INT);
  T DXc = ax_term_subst(tc, DX, L.n, (const AxTerm *const *)L.vars, (const AxTerm *const *)Xc);
  T *hc = ax_arena_alloc(in->a, (R.n + 1) * sizeof(T));
  for (size_t i = 0; i < R.n; i++) hc[i] = ax_term_subst(tc, h[i], L.n, (const AxTerm *const *)L.vars, Xc);
  checks[1].what = "the hint maps two left-hand indices to one right-hand index (not injective)";
  checks[1].q = ax_term_mk_and(tc, 4, (const AxTerm *const[]){base, DXc, tuple_eq(tc, h, hc, R.n),
                                                               ax_term_mk_not(tc, tuple_eq(tc, L.vars, Xc, L.n))});
  /* surjective: every Y in D_Y is h(g(Y)) for g(Y) in D_X */
  T DXg = ax_term_subst(tc, DX, L.n, (const AxTerm *const *)L.vars, g);
  T *hg = ax_arena_alloc(in->a, (R.n + 1) * sizeof(T));
  for (size_t i = 0; i < R.n; i++) hg[i] = ax_term_subst(tc, h[i], L.n, (const AxTerm *const *)L.vars, g);
  checks[2].what = "some right-hand index is the image of no valid left-hand index (not surjective)";
  checks[2].q = ax_term_mk_and(tc, 3, (const AxTerm *const[]){in->ctx, DY,
      ax_term_mk_not(tc, ax_term_mk_and2(tc, DXg, tuple_eq(tc, hg, R.vars, R.n)))});
  /* the summands agree under the bijection: the last obligation */
  T agree = ax_term_mk_and2(tc, base, ax_term_mk_not(tc, ax_term_mk_eq(tc, f, gh)));
  if (all_at_once(in, o, (const T[]){checks[0].q, checks[1].q, checks[2].q, agree}, 4, out))
    return AX_VERIFIED;
  /* every term the witness replay evaluates exists before it (pairing.c) */
  AxPairing p = {.nx = L.n, .ny = R.n, .x = L.vars, .y = R.vars, .dx = DX, .dy = DY, .fx = f, .fy = gb, .h = h};
  for (int c = 0; c < 3; c++) {
    /* the model of q's instance (cex.h), then X, Y and X' for the witness */
    AxWatch w;
    ax_cex_watch(in, checks[c].q, &w);
    size_t nwatch = 0;
    T *watch = ax_arena_alloc(in->a, (w.n + 2 * L.n + R.n + 1) * sizeof(T));
    for (size_t i = 0; i < w.n; i++) watch[nwatch++] = w.terms[i];
    for (size_t i = 0; i < L.n; i++) watch[nwatch++] = L.vars[i];
    for (size_t i = 0; i < R.n; i++) watch[nwatch++] = R.vars[i];
    for (size_t i = 0; i < L.n && c == 1; i++) watch[nwatch++] = Xc[i];
    AxModel *m = NULL;
    AxSmtResult r = ask(in, o, checks[c].q, watch, nwatch, &m, reason, sizeof reason, out);
    if (r == AX_SMT_UNKNOWN) {
      say(out, where, "checking the reduction hint: %s", reason);
      return AX_UNKNOWN;
    }
    if (r == AX_SMT_SAT) {
      /* the pairing fails; if the rule is wrong too, a replayed counterexample says more:
       * try the hint's pairing where it lands in D_Y, then independent points */
      T paired = ax_term_mk_and(tc, 3, (const AxTerm *const[]){base, DYh, ax_term_mk_not(tc, ax_term_mk_eq(tc, f, gh))});
      AxVerdict v;
      if (settle(in, o, where, paired, out) == AX_INVALID || refute(in, o, where, out) == AX_INVALID) {
        v = AX_INVALID;
      } else if (!m) {
        v = AX_UNKNOWN;
        say(out, where, "%s (the solver gave no model)", checks[c].what);
      } else {
        v = wrong_pairing(in, where, checks[c].what, (AxPairingKind)c, m, &w, watch, nwatch, &p, c == 1 ? Xc : NULL, h_written,
                          inferred, inf.g.len > 0, out);
      }
      ax_model_free(m);
      return v;
    }
    ax_model_free(m);
  }
  return settle(in, o, where, agree, out);
}
