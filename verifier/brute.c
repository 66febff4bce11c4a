/* brute.c — the brute-force oracle; see brute.h.
 *
 * The search runs in two layers. A *map instance* is a rank vector with a value for every
 * searched map on every named axis; whether it can count at all — map conditions,
 * non-negative sizes, valid tensor preconditions, a valid left side — depends on the maps
 * alone, so it is decided once per map instance ("live"), and it fixes how many points the
 * input tensors have. An *instance* adds a value from the type's set to every one of those
 * points. Map instances are listed (and their liveness decided) one by one while there are
 * few; a rank vector with too many is sampled instead. */
#include "verifier/brute.h"

#include <cjson/cJSON.h>
#include <gmp.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "base/clock.h"
#include "base/decimal.h"
#include "semantics/concrete.h"
#include "semantics/denote.h"
#include "verifier/cex.h"
#include "verifier/verify.h"

/* An instance whose input tensors have more points than MAX_POINTS, or whose left side has
 * more than MAX_ACCESS, is not tried: slow to evaluate, and no small counterexample. */
#define MAX_POINTS 1024
#define MAX_ACCESS 4096
/* Map instances whose liveness is decided one by one, at most, per rule and type; rank
 * vectors beyond are sampled. */
#define MAX_LISTED 20000
/* Sampling first tries whole every map instance whose tensors take at most this many
 * values (the empty and one-point tensors, where edge cases live), within half the samples. */
#define TINY_SPACE 32
/* Named axes of one tensor or shape at most (AX_MAX_AXES aggregated axes of rank <= 8). */
#define MAX_NAMED (AX_MAX_AXES * 8)
/* The bytes an instance's denotations may allocate (its arena: indices, shapes; the concrete
 * values take about as much again): beyond, the instance is abandoned as too costly — a
 * convolution over 4096 points with large windows would take gigabytes. */
#define MAX_WORK_BYTES (24u << 20)
/* Rank vectors per rule at most (a rule with many rank classes is searched at lower ranks),
 * and searched map values (slots) per rank vector at most. */
#define MAX_VECTORS 4096
#define MAX_SLOTS 2048
/* Samples spent looking for a smaller counterexample once one is found. */
#define SHRINK 300
/* Live map instances a sampled rank vector's local search collects, at most. */
#define POOL 24

void ax_brute_defaults(AxBruteOpts *o) {
  *o = (AxBruteOpts){.seed = 1, .samples = 2000, .max_rank = 3, .max_size = 3, .exhaustive = 20000,
                     .time_limit_s = 60};
}

void ax_brute_free(AxBruteResult *r) {
  free(r->reason);
  free(r->failed);
  free(r->cex_text);
  free(r->cex_json);
  memset(r, 0, sizeof *r);
}

/* ---- the rule at one element type -------------------------------------------------------- */

/* The element values tried, per type: small, of both signs, 0 and 1 (the identities), a
 * fraction for real. Digit i of an instance is value i. ORDER AxType (bool, int, real). */
static const char *const value_text[3][5] = {
    {"true", "false"}, {"0", "1", "-1", "2", "-3"}, {"0", "1", "-1", "1/2", "3"}};
static const int value_count[3] = {2, 5, 5};

typedef struct Rule {
  const AxBlock *rule;
  const AxRuleSyms *s;
  AxType T;
  const AxBruteOpts *o;
  int nrc;              /* rank classes */
  int nvec;             /* rank vectors within the limits */
  int *vecs;            /* nvec x nrc ranks, lowest rank sum first */
  bool *sized;          /* per symbol: a map that is some input tensor's size as it stands */
  const AxExpr **derive;/* per symbol: a map a precondition `m == E` defines (else NULL) */
  int nt;               /* input tensors */
  int *tsym;            /* their symbols, in declaration order */
  AxType *ttype;        /* their element types */
  mpq_t num[3][5];      /* value_text as numbers (bool: unused) */
  AxArena *a;           /* everything above and the listed map instances */
} Rule;

static AxType elem_type(const Rule *R, AxElem e) {
  return e == AX_ELEM_VAR ? R->T : e == AX_ELEM_BOOL ? AX_BOOL : e == AX_ELEM_INT ? AX_INT : AX_REAL;
}

/* A symbolic map whose values the search picks (an index map names summation indices,
 * which the concrete sums enumerate: it is given 0; a map a precondition equates to an
 * expression is computed from it). */
static bool searched(const Rule *R, int sym) {
  const AxSym *y = &R->s->syms[sym];
  return y->kind == AX_SYM_MAP && !y->def && y->used && !R->derive[sym];
}

/* Does map expression e mention symbol sym (through defined maps too)? */
static bool mentions(const AxRuleSyms *s, const AxExpr *e, int sym, int depth) {
  if (!e || depth > 64) return depth > 64;
  switch (e->kind) {
  case AX_E_NAME:   /* through defined maps and lets */
    return e->ty.sym == sym ||
           (e->ty.sym >= 0 && (s->syms[e->ty.sym].kind == AX_SYM_MAP || s->syms[e->ty.sym].kind == AX_SYM_LET) &&
            mentions(s, s->syms[e->ty.sym].def, sym, depth + 1));
  case AX_E_CALL:
    for (size_t i = 0; i < e->u.call.nargs; i++)
      if (mentions(s, e->u.call.args[i].value, sym, depth + 1)) return true;
    return false;
  case AX_E_UNARY: return mentions(s, e->u.unary.arg, sym, depth + 1);
  case AX_E_BINARY:
    return mentions(s, e->u.binary.lhs, sym, depth + 1) || mentions(s, e->u.binary.rhs, sym, depth + 1);
  case AX_E_IF:
    return mentions(s, e->u.ite.cond, sym, depth + 1) || mentions(s, e->u.ite.then_e, sym, depth + 1) ||
           mentions(s, e->u.ite.else_e, sym, depth + 1);
  default: return false;
  }
}

/* Preconditions `m == E` (or `E == m`) that fix a symbolic map m per axis: m is computed
 * from E instead of searched, when E mentions no map derived so far and no derived map's
 * expression mentions m — equalities that random values would almost never meet
 * (`require start == low, end == s + low`). */
static void find_derived(Rule *R) {
  const AxRuleSyms *s = R->s;
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->kind != AX_E_BINARY || c->u.binary.op != AX_BIN_EQ || c->ty.kind != AX_K_COND) continue;
    for (int side = 0; side < 2; side++) {
      const AxExpr *n = side ? c->u.binary.rhs : c->u.binary.lhs, *e = side ? c->u.binary.lhs : c->u.binary.rhs;
      if (n->kind != AX_E_NAME || n->ty.sym < 0 || !searched(R, n->ty.sym)) continue;
      int m = n->ty.sym;
      bool ok = !mentions(s, e, m, 0);
      for (size_t j = 0; j < s->nsyms && ok; j++)
        if (R->derive[j]) ok = !mentions(s, e, (int)j, 0) && !mentions(s, R->derive[j], m, 0);
      if (ok) {
        R->derive[m] = e;
        break;
      }
    }
  }
}

static void setup(Rule *R, const AxBlock *rule, AxType t, const AxBruteOpts *o) {
  memset(R, 0, sizeof *R);
  R->rule = rule;
  R->s = rule->syms;
  R->T = t;
  R->o = o;
  R->a = ax_arena_new();
  const AxRuleSyms *s = R->s;
  R->nrc = (int)s->nrclasses;
  R->sized = ax_arena_alloc(R->a, (s->nsyms + 1) * sizeof(bool));
  R->derive = ax_arena_alloc(R->a, (s->nsyms + 1) * sizeof(AxExpr *));
  R->tsym = ax_arena_alloc(R->a, (s->nsyms + 1) * sizeof(int));
  R->ttype = ax_arena_alloc(R->a, (s->nsyms + 1) * sizeof(AxType));
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if (y->kind != AX_SYM_TENSOR || y->bad) continue;
    R->tsym[R->nt] = (int)i;
    R->ttype[R->nt++] = elem_type(R, y->elem);
    for (int j = 0; j < y->ndims; j++)
      if (y->dim_size[j]->kind == AX_E_NAME && y->dim_size[j]->ty.sym >= 0)
        R->sized[y->dim_size[j]->ty.sym] = true;
  }
  find_derived(R);
  for (int ty = 0; ty < 3; ty++)
    for (int v = 0; v < 5; v++) {
      mpq_init(R->num[ty][v]);
      if (ty != AX_BOOL) mpq_set_str(R->num[ty][v], value_text[ty][v], 10);   /* a fixed table */
    }
  /* rank vectors: every class 1..max_rank (a singleton class 1), by rank sum then in order;
   * with so many classes that they would be more than MAX_VECTORS, a lower top rank */
  int top = o->max_rank;
  for (;; top--) {
    double per = 1;
    for (int c = 0; c < R->nrc; c++) per *= s->rclasses[c].singleton ? 1 : top;
    if (per <= MAX_VECTORS || top == 1) break;
  }
  R->vecs = ax_arena_alloc(R->a, (MAX_VECTORS + 1) * (size_t)(R->nrc + 1) * sizeof(int));
  for (int sum = R->nrc; sum <= R->nrc * top; sum++) {
    int cur[AX_MAX_AXES];
    for (int c = 0; c < R->nrc; c++) cur[c] = 1;
    for (;;) {
      int total = 0;
      for (int c = 0; c < R->nrc; c++) total += cur[c];
      if (total == sum && R->nvec < MAX_VECTORS) {
        memcpy(&R->vecs[R->nvec * R->nrc], cur, (size_t)R->nrc * sizeof(int));
        R->nvec++;
      }
      int c = R->nrc - 1;
      for (; c >= 0; c--) {
        if (++cur[c] <= (s->rclasses[c].singleton ? 1 : top)) break;
        cur[c] = 1;
      }
      if (c < 0) break;
    }
  }
}

static void teardown(Rule *R) {
  for (int ty = 0; ty < 3; ty++)
    for (int v = 0; v < 5; v++) mpq_clear(R->num[ty][v]);
  ax_arena_free(R->a);
}

/* One searched map on one named axis, and the values it takes: 0..max_size for a size
 * or a nonneg map, -1..max_size for any other. */
typedef struct Slot {
  int sym, k;
  long lo, hi;
} Slot;

/* The slots of rank vector `rank`, in symbol order (out may be NULL); returns their count. */
static int slots(const Rule *R, const int *rank, Slot *out) {
  int n = 0;
  for (size_t i = 0; i < R->s->nsyms; i++) {
    const AxSym *y = &R->s->syms[i];
    if (!searched(R, (int)i)) continue;
    for (int k = 0; k < rank[y->rclass] && n < MAX_SLOTS; k++, n++)
      if (out) out[n] = (Slot){(int)i, k, y->nonneg || R->sized[i] ? 0 : -1, R->o->max_size};
  }
  return n;
}

/* ---- one concrete instance ------------------------------------------------------------- */

typedef struct Ctx {
  const Rule *R;
  const int *rank;
  AxConcrete *c;
  AxDomain *d;
  AxArena *a;
  AxInst den;
  AxV **maps;           /* per symbol: symbolic and index maps, one value per named axis */
} Ctx;

/* A fresh concrete domain for rank vector `rank`, every map 0 until set; unset tensor
 * points read as fill `fill` (semantics/concrete.h). */
static void open_ctx(Ctx *x, const Rule *R, const int *rank, int fill) {
  memset(x, 0, sizeof *x);
  x->R = R;
  x->rank = rank;
  x->c = ax_concrete_new();
  ax_concrete_set_fill(x->c, fill);
  x->d = ax_concrete_domain(x->c);
  x->a = ax_arena_new();
  const AxRuleSyms *s = R->s;
  x->maps = ax_arena_alloc(x->a, (s->nsyms + 1) * sizeof(AxV *));
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if ((y->kind != AX_SYM_MAP && y->kind != AX_SYM_INDEX) || y->def) continue;
    x->maps[i] = ax_arena_alloc(x->a, (size_t)(rank[y->rclass] + 1) * sizeof(AxV));
    for (int k = 0; k < rank[y->rclass]; k++) x->maps[i][k] = x->d->int_small(x->d, 0);
  }
  x->den = (AxInst){.a = x->a, .syms = s, .rank = rank, .T = R->T, .d = x->d, .maps = x->maps};
}

static void close_ctx(Ctx *x) {
  ax_concrete_free(x->c);
  ax_arena_free(x->a);
}

/* The searched maps' values, then the derived maps' (in the order they were found). */
static void set_slots(Ctx *x, const Slot *sl, int n, const long *vals) {
  for (int i = 0; i < n; i++) x->maps[sl[i].sym][sl[i].k] = x->d->int_small(x->d, vals[i]);
  const AxRuleSyms *s = x->R->s;
  for (size_t i = 0; i < s->nsyms; i++)
    if (x->R->derive[i])
      for (int k = 0; k < x->rank[s->syms[i].rclass]; k++)
        x->maps[i][k] = ax_den_map(&x->den, x->R->derive[i], k);
}

static const char *unsupported(const Ctx *x) {
  return x->den.unsupported ? x->den.unsupported : x->d->unsupported;
}

static long to_long(AxV v) {
  mpz_t z;
  mpz_init(z);
  ax_concrete_get_int(v, z);
  long r = mpz_fits_slong_p(z) ? mpz_get_si(z) : mpz_sgn(z) < 0 ? LONG_MIN : LONG_MAX;
  mpz_clear(z);
  return r;
}

static bool truth(AxV v) { return ax_concrete_get_bool(v); }

/* The sizes of input tensor t, flat in the order of its read indices (declaration order of
 * its dimensions, each aggregated axis's named axes in turn); returns their count. */
static int flat_sizes(Ctx *x, const AxSym *t, long *size) {
  int n = 0;
  for (int j = 0; j < t->ndims; j++)
    for (int k = 0; k < ax_den_rank(&x->den, t->dim_axis[j]) && n < MAX_NAMED; k++)
      size[n++] = to_long(ax_den_map(&x->den, t->dim_size[j], k));
  return n;
}

/* The number of points of sizes[0..n) (0 when one is <= 0), at most cap + 1. */
static size_t count_points(const long *size, int n, size_t cap) {
  size_t p = 1;
  for (int i = 0; i < n; i++) {
    if (size[i] <= 0) return 0;
    p = (size_t)size[i] > (cap + 1) / p ? cap + 1 : p * (size_t)size[i];
  }
  return p;
}

/* Row-major odometer over sizes[0..n): the next point after cur, false after the last. */
static bool next_point(long *cur, const long *size, int n) {
  int i = n - 1;
  while (i >= 0 && ++cur[i] == size[i]) cur[i--] = 0;
  return i >= 0;
}

/* The named axes of a shape, for walking its points: axis and position of each. */
typedef struct Walk {
  int n;
  int axis[MAX_NAMED], pos[MAX_NAMED];
  long size[MAX_NAMED], cur[MAX_NAMED];
} Walk;

/* Starts w at the first point of shape; the number of points (at most cap + 1). */
static size_t walk_start(Ctx *x, const AxShape *sh, Walk *w, size_t cap) {
  memset(w, 0, sizeof *w);
  for (int ax = 0; ax < AX_MAX_AXES; ax++)
    if (sh->axes >> ax & 1)
      for (int k = 0; k < ax_den_rank(&x->den, ax) && w->n < MAX_NAMED; k++) {
        w->axis[w->n] = ax, w->pos[w->n] = k;
        w->size[w->n++] = to_long(sh->size[ax][k]);
      }
  return count_points(w->size, w->n, cap);
}

/* The current point of w as an access (fresh, in x's arena). */
static AxIndex *walk_index(Ctx *x, const Walk *w) {
  AxIndex *idx = ax_arena_alloc(x->a, sizeof *idx);
  for (int i = 0; i < w->n; i++) {
    int ax = w->axis[i];
    if (!idx->at[ax]) idx->at[ax] = ax_arena_alloc(x->a, (size_t)(ax_den_rank(&x->den, ax) + 1) * sizeof(AxV));
    idx->at[ax][w->pos[i]] = x->d->int_small(x->d, w->cur[i]);
  }
  return idx;
}

/* "x = [1, 0], y = [2]": an access over the axes of `axes`, in x's arena. */
static char *index_text(Ctx *x, const AxIndex *idx, uint64_t axes) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  bool any = false;
  for (size_t i = 0; i < x->R->s->naxes; i++)
    if (axes >> i & 1 && idx->at[i]) {
      fprintf(f, "%s%s = ", any ? ", " : "", x->R->s->syms[x->R->s->axes[i]].name);
      ax_cex_print_ints(f, idx->at[i], ax_den_rank(&x->den, (int)i));
      any = true;
    }
  fclose(f);
  char *r = ax_arena_strdup(x->a, any ? buf : "(no axes)");
  free(buf);
  return r;
}

/* Sets every point of every input tensor: point p (tensors in declaration order, points
 * row-major) holds value digits[p] of its tensor's type. */
static void set_tensors(Ctx *x, const unsigned char *digits) {
  const Rule *R = x->R;
  size_t p = 0;
  for (int i = 0; i < R->nt; i++) {
    const AxSym *t = &R->s->syms[R->tsym[i]];
    long size[MAX_NAMED], cur[MAX_NAMED] = {0};
    int n = flat_sizes(x, t, size);
    if (!count_points(size, n, MAX_POINTS)) continue;
    AxType ty = R->ttype[i];
    do {
      AxV idx[MAX_NAMED];
      for (int k = 0; k < n; k++) idx[k] = x->d->int_small(x->d, cur[k]);
      int v = digits[p++];
      ax_concrete_set(x->c, R->tsym[i], idx, (size_t)n,
                      ax_concrete_elem(x->c, ty, AX_FIN, R->num[ty][v], v == 0));
    } while (next_point(cur, size, n));
  }
}

/* ---- judging an instance --------------------------------------------------------------- */

typedef enum { J_HOLDS, J_PRE, J_CEX, J_UNEVAL } Judgement;

typedef struct Verdict {
  Judgement j;
  const char *why;       /* J_PRE, J_UNEVAL: what (static, or in the instance's arena) */
  const char *failed;    /* J_CEX: which condition fails, worded as the replay words it */
  const AxIndex *acc;    /* J_CEX where the values differ: there */
  AxV lv, rv;
  bool costly;           /* J_UNEVAL: beyond MAX_WORK_BYTES (not the domain's limitation) */
} Verdict;

/* The first tensor precondition and point where it does not hold (for messages). */
static const char *where_pre_fails(Ctx *x) {
  const AxRuleSyms *s = x->R->s;
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->ty.kind != AX_K_TENSOR || !c->ty.axes) continue;
    const AxShape *sh = ax_den_shape(&x->den, c);
    Walk w;
    size_t n = walk_start(x, sh, &w, MAX_ACCESS);
    for (size_t p = 0; p < n && p <= MAX_ACCESS; p++, next_point(w.cur, w.size, w.n)) {
      AxIndex *idx = walk_index(x, &w);
      if (!truth(ax_den_at(&x->den, c, AX_BOOL, idx))) {
        int line, col;
        ax_source_linecol(c->span.src, c->span.start, &line, &col);
        return ax_arena_printf(x->a, "the tensor precondition of line %d does not hold at %s", line,
                               index_text(x, idx, sh->axes));
      }
    }
  }
  return "a tensor precondition does not hold at every point of its shape";
}

/* Is the instance in x a counterexample? The conditions and their order are the replay's
 * (verifier/cex.c): preconditions (maps, sizes, tensor preconditions' validity and those
 * over no axes; then every tensor precondition at every point of its shape), a valid left
 * side; then the right side's validity, equal sizes, and the same element at every point
 * of the left side's shape — at `first` before any other, when it is given and inside.
 * explain: name the precondition and the point that fails (a second walk; --instance). */
static void judge(Ctx *x, const AxIndex *first, bool explain, Verdict *v) {
  const AxRuleSyms *s = x->R->s;
  AxDomain *d = x->d;
  memset(v, 0, sizeof *v);
  AxIndex none = {0};
  bool pre = truth(ax_den_assume(&x->den, NULL, 0, &none, 0));
  if ((v->why = unsupported(x))) goto uneval;
  if (!pre) {
    v->j = J_PRE;
    v->why = "a precondition on maps or sizes does not hold, or a tensor precondition is not valid";
    return;
  }
  bool too_many = false, everywhere = ax_cex_pre_everywhere(&x->den, &too_many);
  if ((v->why = unsupported(x))) goto uneval;
  if (!everywhere) {
    v->j = J_PRE;
    v->why = explain ? where_pre_fails(x) : "a tensor precondition does not hold everywhere";
    return;
  }
  if (too_many) {
    v->why = "a tensor precondition's shape has more than 4096 points";
    goto uneval;
  }
  const AxShape *ls = ax_den_shape(&x->den, s->lhs), *rs = ax_den_shape(&x->den, s->rhs);
  bool vl = truth(ls->valid), vr = truth(rs->valid);
  if ((v->why = unsupported(x))) goto uneval;
  if (!vl) {
    v->j = J_PRE;
    v->why = "the left-hand side is not valid";
    return;
  }
  v->j = J_CEX;
  if (!vr) {
    v->failed = "the right-hand side is not valid where the left-hand side is";
    return;
  }
  for (size_t i = 0; i < s->naxes; i++)
    if (ls->axes >> i & 1)
      for (int k = 0; k < ax_den_rank(&x->den, (int)i); k++)
        if (!truth(d->ieq(d, ls->size[i][k], rs->size[i][k]))) {
          v->failed = ax_arena_printf(x->a, "the sizes differ on named axis %s.%d",
                                      s->syms[s->axes[i]].name, k);
          return;
        }
  AxType ty = ax_den_type(&x->den, s->lhs, x->R->T);
  Walk w;
  size_t n = walk_start(x, ls, &w, MAX_ACCESS);
  bool try_first = first && truth(ax_den_pre_inside(&x->den, ls, first));
  if (n > MAX_ACCESS) {
    /* too many points to compare them all: a given access alone (the others unchecked) */
    if (!try_first) {
      v->why = "the left-hand side has more than 4096 points";
      goto uneval;
    }
    n = 0;
  }
  for (size_t p = 0; p < n + try_first; p++) {
    const AxIndex *acc = try_first && p == 0 ? first : walk_index(x, &w);
    AxV lv = ax_den_at(&x->den, s->lhs, ty, acc), rv = ax_den_at(&x->den, s->rhs, ty, acc);
    bool same = truth(d->elem_same(d, ty, lv, rv));
    if ((v->why = unsupported(x))) goto uneval;
    if (ax_arena_bytes(x->a) > MAX_WORK_BYTES) {
      v->why = "the instance is too costly to evaluate";
      v->costly = true;
      goto uneval;
    }
    if (!same) {
      *v = (Verdict){.j = J_CEX, .failed = "the values differ at the access", .acc = acc, .lv = lv, .rv = rv};
      return;
    }
    if (!(try_first && p == 0)) next_point(w.cur, w.size, w.n);
  }
  v->j = J_HOLDS;
  if (try_first && !n) v->why = "the two sides agree at the access given (the left side has "
                                "more than 4096 points: the others were not compared)";
  return;
uneval:
  v->j = J_UNEVAL;
}

/* ---- rendering a counterexample ---------------------------------------------------------- */

static void print_value(FILE *f, AxV val) {
  char *t = ax_concrete_text(val);
  fputs(t, f);
  free(t);
}

/* Tensor t (the i-th input) with its sizes and every value: a grid when it has at most two
 * named axes of at most 8 each, else one line per point (the first 64); every point in
 * the JSON's reads. */
static void render_tensor(Ctx *x, int i, FILE *f, cJSON *shapes, cJSON *reads) {
  const Rule *R = x->R;
  const AxSym *t = &R->s->syms[R->tsym[i]];
  cJSON *jt = cJSON_AddObjectToObject(shapes, t->name);
  fprintf(f, "  %s %s", t->is_scalar || !t->ndims ? "scalar" : "tensor", t->name);
  for (int j = 0; j < t->ndims; j++) {
    int ax = t->dim_axis[j], rk = ax_den_rank(&x->den, ax);
    AxV *vals = ax_arena_alloc(x->a, (size_t)(rk + 1) * sizeof(AxV));
    for (int k = 0; k < rk; k++) vals[k] = ax_den_map(&x->den, t->dim_size[j], k);
    fprintf(f, "%s%s: ", j ? ", " : " {", R->s->syms[R->s->axes[ax]].name);
    ax_cex_print_ints(f, vals, rk);
    cJSON_AddItemToObject(jt, R->s->syms[R->s->axes[ax]].name, ax_cex_ints_json(vals, rk));
  }
  fputs(t->ndims ? "}" : "", f);
  long size[MAX_NAMED], cur[MAX_NAMED] = {0};
  int n = flat_sizes(x, t, size);
  size_t points = count_points(size, n, MAX_POINTS);
  bool grid = n <= 2 && (n < 1 || size[n - 1] <= 8) && (n < 2 || size[0] <= 8);
  if (!points) {
    fputs(n ? "  (empty)\n" : "\n", f);
    return;
  }
  if (!n) fputs(" =", f);
  fputc('\n', f);
  size_t shown = 0;
  do {
    AxV idx[MAX_NAMED];
    for (int k = 0; k < n; k++) idx[k] = x->d->int_small(x->d, cur[k]);
    AxV val = x->d->read(x->d, R->tsym[i], R->ttype[i], idx, (size_t)n);
    char *vt = ax_concrete_text(val);
    if (grid) {
      if (n < 1 || cur[n - 1] == 0) fputs("      ", f);
      fprintf(f, " %6s", vt);
      if (n < 1 || cur[n - 1] == size[n - 1] - 1) fputc('\n', f);
    } else if (shown++ < 64) {
      fprintf(f, "      %s", t->name);
      ax_cex_print_ints(f, idx, n);
      fprintf(f, " = %s\n", vt);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tensor", t->name);
    cJSON_AddItemToObject(o, "index", ax_cex_ints_json(idx, n));
    cJSON_AddStringToObject(o, "value", vt);
    cJSON_AddItemToArray(reads, o);
    free(vt);
  } while (next_point(cur, size, n));
  if (shown > 64) fprintf(f, "      ... %zu more points (in the JSON)\n", shown - 64);
}

/* The counterexample in x (judged v) into out's cex_text and cex_json. */
static void render(Ctx *x, const Verdict *v, AxBruteResult *out) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "failed", v->failed);
  cJSON_AddStringToObject(j, "found_by", "brute force");
  fprintf(f, "counterexample (brute force): %s\n", v->failed);
  ax_cex_render_maps(f, j, &x->den, x->a);
  cJSON *shapes = cJSON_AddObjectToObject(j, "shapes");
  cJSON *reads = cJSON_CreateArray();
  for (int i = 0; i < x->R->nt; i++) render_tensor(x, i, f, shapes, reads);
  if (v->acc) {
    ax_cex_render_access(f, j, &x->den, v->acc);
  } else {
    cJSON_AddObjectToObject(j, "access");
  }
  cJSON_AddItemToObject(j, "reads", reads);
  if (v->acc) {
    fputs("  lhs = ", f);
    print_value(f, v->lv);
    fputs(", rhs = ", f);
    print_value(f, v->rv);
    fputc('\n', f);
    char *lt = ax_concrete_text(v->lv), *rt = ax_concrete_text(v->rv);
    cJSON_AddStringToObject(j, "lhs", lt);
    cJSON_AddStringToObject(j, "rhs", rt);
    free(lt);
    free(rt);
  } else {
    cJSON_AddNullToObject(j, "lhs");
    cJSON_AddNullToObject(j, "rhs");
  }
  fclose(f);
  if (len && buf[len - 1] == '\n') buf[len - 1] = '\0';
  out->cex_text = buf;
  out->cex_json = cJSON_PrintUnformatted(j);
  out->failed = ax_xstrdup(v->failed);
  cJSON_Delete(j);
}

/* ---- the search ---------------------------------------------------------------------------- */

typedef struct MapInst {
  int vec;              /* its rank vector (Rule.vecs) */
  long *vals;           /* per slot of that vector */
  size_t *pts;          /* points of each input tensor (Rule.tsym order) */
  size_t points;        /* their sum */
  double space;         /* tensor value assignments: the product of count^points */
  size_t order;         /* listing order, for a stable sort */
} MapInst;

typedef struct Search {
  Rule *R;
  AxBruteResult *out;
  uint64_t rng;
  unsigned long too_large;   /* map instances beyond MAX_POINTS / MAX_ACCESS, or too costly */
  double deadline;           /* ax_clock_s() at the time limit (0: none) */
} Search;

/* Whether the time limit has passed (noted in the result). */
static bool late(Search *S) {
  if (S->deadline > 0 && ax_clock_s() > S->deadline) S->out->timed_out = true;
  return S->out->timed_out;
}

static const int *vec_ranks(const Rule *R, int v) { return &R->vecs[v * R->nrc]; }

/* Records an instance the concrete domain could not evaluate. */
static void uneval(Search *S, const char *why) {
  S->out->unevaluable++;
  if (!S->out->reason) S->out->reason = ax_xstrdup(why);
}

/* How many of the conditions a live map instance needs hold at x: each map precondition on
 * each named axis, each tensor operator application of the left side and of the tensor
 * preconditions that is valid — the measure the local search climbs (sample_maps). */
static int valid_nodes(Ctx *x, const AxExpr *e, int depth) {
  if (!e || depth > 200) return 0;
  if (e->kind == AX_E_NAME && e->ty.sym >= 0 && x->R->s->syms[e->ty.sym].kind == AX_SYM_LET)
    return valid_nodes(x, x->R->s->syms[e->ty.sym].def, depth + 1);
  if (e->ty.op < 0) return 0;
  int n = truth(ax_den_shape(&x->den, e)->valid);
  for (int i = 0; i < e->ty.nopnds; i++) n += valid_nodes(x, e->ty.opnds[i], depth + 1);
  return n;
}

static int score(Ctx *x) {
  const AxRuleSyms *s = x->R->s;
  int n = valid_nodes(x, s->lhs, 0);
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->ty.kind == AX_K_TENSOR) n += valid_nodes(x, c, 0);
    else if (c->ty.kind == AX_K_COND && c->ty.rclass >= 0 && c->kind != AX_E_QUANT)
      for (int k = 0; k < x->rank[c->ty.rclass]; k++) n += truth(ax_den_cond(&x->den, c, k));
    else n += truth(ax_den_closed(&x->den, c));
  }
  return n;
}

/* Decides whether map instance m can count, whatever its tensors hold (map conditions,
 * non-negative sizes, valid tensor preconditions, a valid left side), and fills its
 * points; *sc (when not NULL) gets score() for the local search. 1: live; 0: not; -1: the
 * domain could not evaluate it; -2: too large. */
static int live(Search *S, MapInst *m, AxArena *a, int *sc) {
  const Rule *R = S->R;
  const AxRuleSyms *s = R->s;
  const int *rank = vec_ranks(R, m->vec);
  Slot sl[MAX_SLOTS];
  int nsl = slots(R, rank, sl);
  Ctx x;
  open_ctx(&x, R, rank, 0);
  set_slots(&x, sl, nsl, m->vals);
  int r = 0;
  m->pts = ax_arena_alloc(a, ((size_t)R->nt + 1) * sizeof(size_t));
  m->points = 0;
  m->space = 1;
  if (sc) *sc = score(&x);
  for (int i = 0; i < R->nt; i++) {
    long size[MAX_NAMED];
    int n = flat_sizes(&x, &s->syms[R->tsym[i]], size);
    for (int k = 0; k < n; k++)
      if (size[k] < 0) goto done;
    m->pts[i] = count_points(size, n, MAX_POINTS);
    m->points += m->pts[i];
    m->space *= pow(value_count[R->ttype[i]], (double)m->pts[i]);
  }
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    bool ok = c->ty.kind == AX_K_TENSOR ? truth(ax_den_shape(&x.den, c)->valid)
                                        : truth(ax_den_closed(&x.den, c));
    if (!ok) goto done;
  }
  const AxShape *ls = ax_den_shape(&x.den, s->lhs);
  if (!truth(ls->valid)) goto done;
  Walk w;
  size_t acc = walk_start(&x, ls, &w, MAX_ACCESS);
  r = m->points > MAX_POINTS || acc > MAX_ACCESS ? -2 : 1;
done:
  if (unsupported(&x)) {
    uneval(S, unsupported(&x));
    r = -1;
  }
  close_ctx(&x);
  if (r == -2) S->too_large++;
  return r;
}

/* Evaluates map instance m with tensor values `digits`; true when it is a counterexample
 * (rendered into S->out). */
static bool try_one(Search *S, const MapInst *m, const unsigned char *digits) {
  const Rule *R = S->R;
  const int *rank = vec_ranks(R, m->vec);
  Slot sl[MAX_SLOTS];
  int nsl = slots(R, rank, sl);
  Ctx x;
  open_ctx(&x, R, rank, 0);
  set_slots(&x, sl, nsl, m->vals);
  set_tensors(&x, digits);
  Verdict v;
  judge(&x, NULL, false, &v);
  S->out->tried++;
  bool found = false;
  switch (v.j) {
  case J_PRE: break;
  case J_UNEVAL:
    if (v.costly) S->too_large++;
    else uneval(S, v.why);
    break;
  case J_HOLDS: S->out->counted++; break;
  case J_CEX:   /* a smaller one replaces an earlier one (the sampling's shrink phase) */
    S->out->counted++;
    S->out->status = AX_BRUTE_REFUTED;
    free(S->out->cex_text);
    free(S->out->cex_json);
    free(S->out->failed);
    render(&x, &v, S->out);
    found = true;
    break;
  }
  close_ctx(&x);
  return found;
}

/* Every tensor value assignment of m, in order, until a counterexample or `budget`
 * instances; true when one was found. */
static bool try_all(Search *S, const MapInst *m, unsigned long budget) {
  const Rule *R = S->R;
  unsigned char *digits = ax_xcalloc(m->points + 1, 1);
  int *base = ax_xcalloc(m->points + 1, sizeof(int));
  for (int i = 0, p = 0; i < R->nt; i++)
    for (size_t q = 0; q < m->pts[i]; q++) base[p++] = value_count[R->ttype[i]];
  bool found = false;
  for (;;) {
    if (S->out->tried >= budget || late(S) || (found = try_one(S, m, digits))) break;
    size_t i = m->points;
    while (i > 0 && ++digits[i - 1] == base[i - 1]) digits[--i] = 0;
    if (i == 0) break;
  }
  free(digits);
  free(base);
  return found;
}

static uint64_t next_random(uint64_t *s) {   /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static size_t below(uint64_t *s, size_t n) { return n ? (size_t)(next_random(s) % n) : 0; }

/* Random tensor values for m: each tensor constant (3 in 10), constant but for one point
 * (3 in 10), or point by point — a precondition such as A > 0 holds everywhere only
 * when few points vary, and a counterexample often needs one point that differs. */
static void draw(Search *S, const MapInst *m, unsigned char *digits) {
  const Rule *R = S->R;
  size_t p = 0;
  for (int i = 0; i < R->nt; i++) {
    size_t b = (size_t)value_count[R->ttype[i]], n = m->pts[i];
    size_t mode = below(&S->rng, 10), c = below(&S->rng, b), odd = below(&S->rng, n), w = below(&S->rng, b);
    for (size_t q = 0; q < n; q++)
      digits[p + q] = (unsigned char)(mode < 3 ? c : mode < 6 ? (q == odd ? w : c) : below(&S->rng, b));
    p += n;
  }
}

static int by_points(const void *pa, const void *pb) {
  const MapInst *a = *(MapInst *const *)pa, *b = *(MapInst *const *)pb;
  if (a->points != b->points) return a->points < b->points ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* The live map instances of rank vector v, all of them (its slot values enumerated). */
static void list_vector(Search *S, int v, AxArena *a, AxVec *live_list, size_t *order) {
  const Rule *R = S->R;
  Slot sl[MAX_SLOTS];
  int n = slots(R, vec_ranks(R, v), sl);
  long cur[MAX_SLOTS];
  for (int i = 0; i < n; i++) cur[i] = sl[i].lo;
  for (;;) {
    MapInst *m = ax_arena_alloc(a, sizeof *m);
    m->vec = v;
    m->vals = ax_arena_alloc(a, ((size_t)n + 1) * sizeof(long));
    memcpy(m->vals, cur, (size_t)n * sizeof(long));
    m->order = (*order)++;
    if (live(S, m, a, NULL) == 1) ax_vec_push(a, live_list, m);
    if (late(S)) break;
    int i = n - 1;
    while (i >= 0 && ++cur[i] > sl[i].hi) cur[i] = sl[i].lo, i--;
    if (i < 0) break;
  }
}

/* A live map instance of rank vector v, or NULL when none was found: first (when `base`,
 * the live map instances of the all-ones vector, has some) up to 16 compositions — each
 * named axis k of each class takes the class's values of a random base instance, since
 * most conditions hold axis by axis; then a local search from random values: one slot
 * changed at a time, kept when no fewer conditions hold (score), `restarts` times `steps`
 * steps — conditions such as 0 <= start <= end <= size are rarely met by random values on
 * several maps at once. */
static MapInst *sample_maps(Search *S, int v, const AxVec *base, int restarts, int steps, AxArena *a) {
  const Rule *R = S->R;
  const int *rank = vec_ranks(R, v);
  Slot sl[MAX_SLOTS];
  int n = slots(R, rank, sl);
  for (int tries = 0; base && base->len && tries < 16; tries++) {
    MapInst *m = ax_arena_alloc(a, sizeof *m);
    m->vec = v;
    m->vals = ax_arena_alloc(a, ((size_t)n + 1) * sizeof(long));
    const MapInst *pick[AX_MAX_AXES][8];   /* per class and named axis: its base instance */
    for (int c = 0; c < R->nrc; c++)
      for (int k = 0; k < rank[c] && k < 8; k++) pick[c][k] = base->items[below(&S->rng, base->len)];
    for (int i = 0, j = 0; i < n; i++) {   /* j: the slot of sl[i]'s map at rank 1 */
      if (i && sl[i].sym != sl[i - 1].sym) j++;
      int c = R->s->syms[sl[i].sym].rclass;
      m->vals[i] = pick[c][sl[i].k < 8 ? sl[i].k : 7]->vals[j];
    }
    int r = live(S, m, a, NULL);
    if (r == 1) return m;
    if (r == -1) return NULL;
  }
  for (int restart = 0; restart < restarts; restart++) {
    MapInst *m = ax_arena_alloc(a, sizeof *m);
    m->vec = v;
    m->vals = ax_arena_alloc(a, ((size_t)n + 1) * sizeof(long));
    for (int i = 0; i < n; i++) m->vals[i] = sl[i].lo + (long)below(&S->rng, (size_t)(sl[i].hi - sl[i].lo + 1));
    int best, sc, r = live(S, m, a, &best);
    if (r == 1) return m;
    if (r < 0 || !n) continue;
    for (int step = 0; step < steps && !late(S); step++) {
      int i = (int)below(&S->rng, (size_t)n);
      long old = m->vals[i];
      m->vals[i] = sl[i].lo + (long)below(&S->rng, (size_t)(sl[i].hi - sl[i].lo + 1));
      r = live(S, m, a, &sc);
      if (r == 1) return m;
      if (r < 0) break;
      if (sc >= best) best = sc;
      else m->vals[i] = old;
    }
  }
  return NULL;
}

static uint64_t mix_seed(uint64_t seed, const char *name, AxType t) {
  uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
  return seed ^ h ^ ((uint64_t)t + 1) * 0x9e3779b97f4a7c15ULL;
}

void ax_brute_rule(const AxBlock *rule, AxType t, const AxBruteOpts *o, AxBruteResult *out) {
  double t0 = ax_clock_s();
  memset(out, 0, sizeof *out);
  Rule R;
  setup(&R, rule, t, o);
  Search S = {.R = &R, .out = out, .rng = mix_seed(o->seed, rule->name.name, t),
              .deadline = o->time_limit_s > 0 ? t0 + o->time_limit_s : 0};
  AxArena *a = R.a;

  /* list the map instances of every rank vector while they are few; sample the others */
  AxVec *live_of = ax_arena_alloc(a, ((size_t)R.nvec + 1) * sizeof(AxVec));
  bool *sampled = ax_arena_alloc(a, ((size_t)R.nvec + 1) * sizeof(bool));
  AxVec all = {0};
  double listed = 0, space = 0;
  size_t order = 0;
  bool any_sampled = false;
  for (int v = 0; v < R.nvec; v++) {
    Slot sl[MAX_SLOTS];
    int n = slots(&R, vec_ranks(&R, v), sl);
    double combos = 1;
    for (int i = 0; i < n; i++) combos *= (double)(sl[i].hi - sl[i].lo + 1);
    if (listed + combos > MAX_LISTED) {
      sampled[v] = any_sampled = true;
      continue;
    }
    listed += combos;
    list_vector(&S, v, a, &live_of[v], &order);
    for (size_t i = 0; i < live_of[v].len; i++) {
      MapInst *m = live_of[v].items[i];
      ax_vec_push(a, &all, m);
      space += m->space;
    }
  }
  if (all.len) qsort(all.items, all.len, sizeof(void *), by_points);

  if (!any_sampled && space <= o->exhaustive) {
    /* every instance, the smallest map instances first */
    out->exhaustive = S.too_large == 0;
    for (size_t i = 0; i < all.len && out->status != AX_BRUTE_REFUTED; i++)
      try_all(&S, all.items[i], ULONG_MAX);
  } else {
    unsigned long budget = o->samples;
    for (size_t i = 0; i < all.len && out->status != AX_BRUTE_REFUTED; i++) {
      const MapInst *m = all.items[i];
      if (m->space <= TINY_SPACE && out->tried + (unsigned long)m->space <= budget / 2)
        try_all(&S, m, budget / 2);
    }
    if (out->status == AX_BRUTE_REFUTED) budget = 0;   /* the smallest map instances come first */
    int *cands = ax_arena_alloc(a, ((size_t)R.nvec + 1) * sizeof(int));
    bool *dry = ax_arena_alloc(a, ((size_t)R.nvec + 1) * sizeof(bool));
    int nc = 0;
    for (int v = 0; v < R.nvec; v++)
      if (sampled[v] || live_of[v].len) cands[nc++] = v;
    unsigned char *digits = NULL;
    size_t cap = 0;
    /* after a counterexample, up to SHRINK more samples among smaller map instances look
     * for a smaller one: a random draw is rarely the smallest */
    size_t best = SIZE_MAX;
    unsigned long stop = budget, skipped = 0;
    while (nc && out->tried < stop && !late(&S)) {
      size_t c = below(&S.rng, (size_t)nc);
      int v = cands[c];
      /* a sampled vector's live map instances are found by local search, up to POOL of
       * them, then drawn from like a listed vector's */
      if (sampled[v] && live_of[v].len < POOL && !dry[v]) {
        MapInst *found = v == 0 ? sample_maps(&S, v, NULL, 8, 256, a)
                                : sample_maps(&S, v, &live_of[0], 4, 64, a);
        if (found) ax_vec_push(a, &live_of[v], found);
        else dry[v] = true;
      }
      if (!live_of[v].len) {   /* its maps rarely satisfy the preconditions: leave it out */
        cands[c] = cands[--nc];
        continue;
      }
      MapInst *m = live_of[v].items[below(&S.rng, live_of[v].len)];
      if (m->points >= best) {
        if (++skipped > 64 * SHRINK) break;
        continue;
      }
      if (m->points + 1 > cap) {
        cap = m->points + 1;
        digits = ax_xrealloc(digits, cap);
      }
      draw(&S, m, digits);
      if (try_one(&S, m, digits)) {
        if (best == SIZE_MAX) stop = out->tried + SHRINK < budget ? out->tried + SHRINK : budget;
        best = m->points;
        if (!best) break;
      }
    }
    free(digits);
  }

  if (out->status != AX_BRUTE_REFUTED && !out->counted) {
    if (out->unevaluable) {
      out->status = AX_BRUTE_SKIPPED;
    } else if (S.too_large && !out->tried) {
      out->status = AX_BRUTE_SKIPPED;
      out->reason = ax_xstrdup("every instance within the limits has more than 1024 tensor points "
                               "(or 4096 on the left side)");
    }
  }
  out->too_large = S.too_large;
  if (out->timed_out) out->exhaustive = false;
  teardown(&R);
  out->time_ms = (ax_clock_s() - t0) * 1000;
}

/* ---- one given instance -------------------------------------------------------------------- */

/* An integer of a JSON number (false when it is none, or beyond 2^53). */
static bool json_long(const cJSON *j, long *out) {
  if (!cJSON_IsNumber(j)) return false;
  double v = j->valuedouble;
  if (!(v == floor(v) && fabs(v) < 9007199254740992.0)) return false;
  *out = (long)v;
  return true;
}

/* A tensor element as the replay writes it: "3", "-1/2", "2.5", "+inf", "-inf", "NaN",
 * "true", "false". NULL when text is none of type t. */
static AxV parse_elem(Ctx *x, AxType t, const char *text) {
  mpq_t q;
  if (t == AX_BOOL) {
    if (strcmp(text, "true") && strcmp(text, "false")) return NULL;
    mpq_init(q);
    AxV v = ax_concrete_elem(x->c, t, AX_FIN, q, strcmp(text, "true") == 0);
    mpq_clear(q);
    return v;
  }
  AxNumClass cls = AX_FIN;
  if (!strcmp(text, "+inf") || !strcmp(text, "inf")) cls = AX_PINF;
  else if (!strcmp(text, "-inf")) cls = AX_NINF;
  else if (!strcmp(text, "NaN")) cls = AX_NAN;
  mpq_init(q);
  bool ok = true;
  if (cls == AX_FIN) {
    const char *p = text + (text[0] == '-');
    size_t digits = strspn(p, "0123456789");
    if (!digits) {
      ok = false;
    } else if (p[digits] == '/') {
      const char *d = p + digits + 1;
      /* mpq_set_str is linear in the text, bounded by the instance file's size (--max-input) */
      ok = strspn(d, "0123456789") == strlen(d) && *d && strspn(d, "0") != strlen(d) &&
           mpq_set_str(q, text, 10) == 0;
      if (ok) mpq_canonicalize(q);
    } else if (p[digits] == '\0' || p[digits] == '.') {   /* no exponent: none is written */
      ok = (p[digits] == '\0' || strspn(p + digits + 1, "0123456789") == strlen(p + digits + 1));
      /* a value as long as a literal may be (base/decimal.h), so that its exact value is
       * bounded as every literal's is */
      ok = ok && ax_decimal_limit(p, NULL, NULL) == AX_DECIMAL_OK;
      if (ok) {
        ax_decimal_to_mpq(p, q);
        if (text[0] == '-') mpq_neg(q, q);
      }
    } else {
      ok = false;
    }
    if (ok && t == AX_INT && mpz_cmp_ui(mpq_denref(q), 1) != 0) ok = false;
  }
  AxV v = ok ? ax_concrete_elem(x->c, t, cls, q, false) : NULL;
  mpq_clear(q);
  return v;
}

static int sym_named(const AxRuleSyms *s, const char *name, AxSymKind kind) {
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == kind && strcmp(s->syms[i].name, name) == 0) return (int)i;
  return -1;
}

/* Reads the maps, tensor values and access of instance j into x (its ranks set); NULL on
 * success, else what is wrong (in x's arena). *acc: the access when j gives one for every
 * axis of the left side, else NULL. */
static const char *load_instance(Ctx *x, const cJSON *j, const AxIndex **acc) {
  const AxRuleSyms *s = x->R->s;
  AxDomain *d = x->d;
  const cJSON *maps = cJSON_GetObjectItemCaseSensitive(j, "maps");
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if (!x->maps[i]) continue;
    const cJSON *arr = cJSON_IsObject(maps) ? cJSON_GetObjectItemCaseSensitive(maps, y->name) : NULL;
    int rk = x->rank[y->rclass];
    if (!arr) {
      if (y->kind == AX_SYM_MAP && y->used) return ax_arena_printf(x->a, "the instance gives no value for map '%s'", y->name);
      continue;   /* index maps and unused maps: 0 */
    }
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != rk)
      return ax_arena_printf(x->a, "map '%s' needs %d integers (the rank of its class)", y->name, rk);
    for (int k = 0; k < rk; k++) {
      long v;
      if (!json_long(cJSON_GetArrayItem(arr, k), &v))
        return ax_arena_printf(x->a, "map '%s': value %d is not an integer", y->name, k);
      x->maps[i][k] = d->int_small(d, v);
    }
  }
  const cJSON *tvals = cJSON_GetObjectItemCaseSensitive(j, "unlisted_points_t");
  if (tvals && !cJSON_IsObject(tvals)) return "'unlisted_points_t' is not an object";
  for (const cJSON *e = tvals ? tvals->child : NULL; e; e = e->next) {
    long tv;
    int sym = sym_named(s, e->string, AX_SYM_TENSOR);
    if (sym < 0 || !json_long(e, &tv) || tv != sym + 1)
      return ax_arena_printf(x->a, "'unlisted_points_t' does not match this rule's tensors (at '%s')", e->string);
  }
  const cJSON *reads = cJSON_GetObjectItemCaseSensitive(j, "reads");
  if (reads && !cJSON_IsArray(reads)) return "'reads' is not an array";
  int nr = 0;
  for (const cJSON *r = reads ? reads->child : NULL; r; r = r->next, nr++) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(r, "tensor");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(r, "index");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(r, "value");
    if (!cJSON_IsString(name) || !cJSON_IsArray(index) || !cJSON_IsString(value))
      return ax_arena_printf(x->a, "read %d needs \"tensor\", \"index\" and \"value\"", nr);
    int sym = sym_named(s, name->valuestring, AX_SYM_TENSOR);
    if (sym < 0) return ax_arena_printf(x->a, "read %d: no input tensor '%.64s' in this rule", nr, name->valuestring);
    const AxSym *t = &s->syms[sym];
    int n = 0;
    for (int dj = 0; dj < t->ndims; dj++) n += ax_den_rank(&x->den, t->dim_axis[dj]);
    if (cJSON_GetArraySize(index) != n || n > MAX_NAMED)
      return ax_arena_printf(x->a, "read %d: tensor '%s' needs %d indices at these ranks", nr, t->name, n);
    AxV idx[MAX_NAMED];
    for (int k = 0; k < n; k++) {
      long v;
      if (!json_long(cJSON_GetArrayItem(index, k), &v))
        return ax_arena_printf(x->a, "read %d: index %d is not an integer", nr, k);
      idx[k] = d->int_small(d, v);
    }
    AxV val = parse_elem(x, elem_type(x->R, t->elem), value->valuestring);
    if (!val)
      return ax_arena_printf(x->a, "read %d: '%.64s' is no %s element", nr, value->valuestring,
                             ax_type_name(elem_type(x->R, t->elem)));
    ax_concrete_set(x->c, sym, idx, (size_t)n, val);
  }
  /* the access: over every axis of the left side, or not at all */
  const cJSON *access = cJSON_GetObjectItemCaseSensitive(j, "access");
  const AxShape *ls = ax_den_shape(&x->den, s->lhs);
  AxIndex *idx = ax_arena_alloc(x->a, sizeof *idx);
  *acc = NULL;
  for (size_t i = 0; i < s->naxes; i++) {
    if (!(ls->axes >> i & 1)) continue;
    const char *name = s->syms[s->axes[i]].name;
    const cJSON *arr = cJSON_IsObject(access) ? cJSON_GetObjectItemCaseSensitive(access, name) : NULL;
    int rk = ax_den_rank(&x->den, (int)i);
    if (!arr) return NULL;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != rk)
      return ax_arena_printf(x->a, "the access needs %d integers on axis '%s'", rk, name);
    idx->at[i] = ax_arena_alloc(x->a, (size_t)(rk + 1) * sizeof(AxV));
    for (int k = 0; k < rk; k++) {
      long v;
      if (!json_long(cJSON_GetArrayItem(arr, k), &v))
        return ax_arena_printf(x->a, "the access on axis '%s' is not made of integers", name);
      idx->at[i][k] = d->int_small(d, v);
    }
  }
  *acc = idx;
  return NULL;
}

/* The kind of a failure as the replay words it: 'v'alues, 's'izes, 'r'ight side invalid. */
static char failure_kind(const char *failed) {
  return !strncmp(failed, "the values differ", 17) ? 'v' : !strncmp(failed, "the sizes differ", 16) ? 's' : 'r';
}

AxBruteCheck ax_brute_instance(const AxBlock *rule, AxType t, const char *json, char **why,
                               char **failed) {
  *why = NULL;
  *failed = NULL;
  AxBruteOpts o;
  ax_brute_defaults(&o);
  Rule R;
  setup(&R, rule, t, &o);
  const AxRuleSyms *s = R.s;
  AxBruteCheck res = AX_BRUTE_BAD_INSTANCE;
  cJSON *root = cJSON_Parse(json);
  const cJSON *j = root;
  const cJSON *cex = cJSON_GetObjectItemCaseSensitive(root, "counterexample");
  if (cJSON_IsObject(cex)) j = cex;   /* a whole result line of `axle verify --format json` */
  if (!cJSON_IsObject(j)) {
    *why = ax_xstrdup("the instance is not a JSON object");
    goto out;
  }
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(j, "ranks");
  int *rank = ax_arena_alloc(R.a, ((size_t)R.nrc + 1) * sizeof(int));
  for (int c = 0; c < R.nrc; c++) {
    long v;
    const cJSON *rj = cJSON_IsObject(ranks) ? cJSON_GetObjectItemCaseSensitive(ranks, s->rclasses[c].name) : NULL;
    if (!rj || !json_long(rj, &v) || v < 1 || v > 8 || (s->rclasses[c].singleton && v != 1)) {
      char buf[256];
      snprintf(buf, sizeof buf, "the instance needs a rank from 1 to %d for class '%s'",
               s->rclasses[c].singleton ? 1 : 8, s->rclasses[c].name);
      *why = ax_xstrdup(buf);
      goto out;
    }
    rank[c] = (int)v;
  }
  long fill = 0;
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "unlisted_points_k");
  if (k && (!json_long(k, &fill) || fill < 0 || fill > 1000000)) {
    *why = ax_xstrdup("'unlisted_points_k' is not a whole number from 0 to 1000000");
    goto out;
  }
  Ctx x;
  open_ctx(&x, &R, rank, (int)fill);
  const AxIndex *acc = NULL;
  const char *bad = load_instance(&x, j, &acc);
  if (bad) {
    *why = ax_xstrdup(bad);
    close_ctx(&x);
    goto out;
  }
  const cJSON *claim = cJSON_GetObjectItemCaseSensitive(j, "failed");
  const char *claimed = cJSON_IsString(claim) ? claim->valuestring : NULL;
  Verdict v;
  judge(&x, acc, true, &v);
  char buf[1024];
  switch (v.j) {
  case J_UNEVAL:
    res = AX_BRUTE_UNEVALUABLE;
    snprintf(buf, sizeof buf, "%s", v.why);
    break;
  case J_PRE:
    res = AX_BRUTE_NOT_CEX;
    snprintf(buf, sizeof buf, "no counterexample: %s", v.why);
    break;
  case J_HOLDS:
    res = AX_BRUTE_NOT_CEX;
    snprintf(buf, sizeof buf, "no counterexample: %s",
             v.why ? v.why : "both sides are valid, of the same sizes, and agree at every point "
                             "of the left side's shape");
    break;
  case J_CEX: {
    *failed = ax_xstrdup(v.failed);
    bool same_kind = !claimed || failure_kind(claimed) == failure_kind(v.failed);
    bool there = failure_kind(v.failed) != 'v' || !acc || v.acc == acc;
    res = same_kind && there ? AX_BRUTE_REPRODUCED : AX_BRUTE_ELSEWHERE;
    char *lt = v.acc ? ax_concrete_text(v.lv) : NULL, *rt = v.acc ? ax_concrete_text(v.rv) : NULL;
    if (v.acc)
      snprintf(buf, sizeof buf, "%s%s%s: %s, lhs = %s, rhs = %s", res == AX_BRUTE_ELSEWHERE ? "a counterexample, but " : "",
               v.failed, res == AX_BRUTE_ELSEWHERE && claimed && failure_kind(claimed) == 'v' ? " (not at the access given)" : "",
               index_text(&x, v.acc, ax_den_shape(&x.den, s->lhs)->axes), lt, rt);
    else
      snprintf(buf, sizeof buf, "%s%s", res == AX_BRUTE_ELSEWHERE ? "a counterexample, but " : "", v.failed);
    if (res == AX_BRUTE_ELSEWHERE && claimed) {
      size_t len = strlen(buf);
      snprintf(buf + len, sizeof buf - len, " (the instance says: %.200s)", claimed);
    }
    free(lt);
    free(rt);
    break;
  }
  }
  *why = ax_xstrdup(buf);
  close_ctx(&x);
out:
  cJSON_Delete(root);
  teardown(&R);
  return res;
}
