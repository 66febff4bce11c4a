/* rank.c — bound inference; see rank.h for what is counted and docs/semantics.md ("How
 * the rank bound is inferred") for why the count bounds the rank that matters. */
#include "verifier/rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smt/arith.h"
#include "verifier/bijection.h"
#include "verifier/instance.h"

typedef const AxTerm *T;

/* A fold: the conjunction (any = false) or disjunction (any = true) over the named axes of
 * the class of one per-axis Boolean g, written as g at position 0. */
typedef struct Fold {
  T g;
  bool any;
} Fold;

/* What the analysis of one rank class sees on its instance (the class at rank 2, every
 * other class at rank 1). */
typedef struct Scan {
  AxSymInstance *in;
  const AxRuleSyms *s;
  int c;
  uint8_t *mask;       /* per term id: bit k = mentions a variable of c at position k */
  uint32_t nmask;      /* ids below this have a mask */
  T *from, *to;        /* position-0 variables of c and their position-1 twins */
  size_t nren;
  const char *fail;    /* the structure was not recognized (why); the count is void */
  const AxClosedSum *closed;   /* sums closed under sqrt (symbolic.h) */
  size_t nclosed;
} Scan;

/* One kind of counterexample: the folds whose values it must keep, the reads whose
 * points it must keep apart, and the per-axis facts known true on every axis. */
typedef struct Tally {
  Scan *sc;
  AxVec folds;         /* Fold*, distinct */
  AxVec truths;        /* T: per-axis terms (position 0) true on every named axis */
  AxVec reads;         /* T: distinct tensor reads */
  AxVec closed;        /* T: closed sums met (their reads are in `reads`) */
  uint8_t *seen;       /* per term id below sc->nmask: already walked */
} Tally;

/* the rule symbol of a tensor read, or -1 */
static int read_sym(const AxRuleSyms *s, T t) {
  if (ax_term_kind(t) != AX_TERM_APP) return -1;
  const char *name = ax_term_func_name(ax_term_app_func(t));
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && strcmp(s->syms[i].name, name) == 0) return (int)i;
  return -1;
}

/* the closed sum t applies (symbolic.h), or -1 */
static int closed_of(const Scan *sc, T t) {
  if (ax_term_kind(t) != AX_TERM_APP) return -1;
  for (size_t i = 0; i < sc->nclosed; i++)
    if (sc->closed[i].app == t) return (int)i;
  return -1;
}

static void mask_visit(T t, void *data) {
  Scan *sc = data;
  uint32_t id = ax_term_id(t);
  if (id >= sc->nmask) return;
  uint8_t m = 0;
  int rc, pos;
  long fam;
  if (ax_term_kind(t) == AX_TERM_VAR && ax_instance_var_info(sc->in, t, &rc, &pos, &fam) &&
      rc == sc->c)
    m = (uint8_t)(1u << pos);
  /* a read's value is one opaque argument of the scalar function: its indices are checked
   * apart (per_axis_reads), they do not make the value a per-axis quantity */
  if (read_sym(sc->s, t) < 0 && closed_of(sc, t) < 0)
    for (size_t i = 0; i < ax_term_nargs(t); i++) {
      uint32_t a = ax_term_id(ax_term_arg(t, i));
      if (a < sc->nmask) m |= sc->mask[a];
    }
  sc->mask[id] = m;
}

static uint8_t mask_of(const Scan *sc, T t) {
  uint32_t id = ax_term_id(t);
  return id < sc->nmask ? sc->mask[id] : 0;
}

static bool vec_has(const AxVec *v, const void *p) {
  for (size_t i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

/* Every index of a read of a tensor with axes of c is a per-axis map: the index on named
 * axis k of c mentions no variable of c at another position, and indices on axes of other
 * classes mention none of c. The projection argument needs it (a tensor at rank k is the
 * restriction of the one at rank k+1). */
static void check_read(Scan *sc, T r) {
  const AxSym *y = &sc->s->syms[read_sym(sc->s, r)];
  size_t arg = 0;
  for (int j = 0; j < y->ndims; j++) {
    int ax = y->dim_axis[j];
    int rc = sc->s->syms[sc->s->axes[ax]].rclass, rank = sc->in->rank[rc];
    for (int k = 0; k < rank && arg < ax_term_nargs(r); k++, arg++) {
      uint8_t m = mask_of(sc, ax_term_arg(r, arg));
      if (rc == sc->c ? (m & ~(1u << k)) != 0 : m != 0)
        sc->fail = "a tensor index mixes named axes";
    }
  }
}

/* Do two reads of one tensor have different indices on some axis of c? */
static bool differ_on_class(const Scan *sc, T r1, T r2) {
  const AxSym *y = &sc->s->syms[read_sym(sc->s, r1)];
  size_t arg = 0;
  for (int j = 0; j < y->ndims; j++) {
    int rc = sc->s->syms[sc->s->axes[y->dim_axis[j]]].rclass, rank = sc->in->rank[rc];
    for (int k = 0; k < rank && arg < ax_term_nargs(r1); k++, arg++)
      if (rc == sc->c && ax_term_arg(r1, arg) != ax_term_arg(r2, arg)) return true;
  }
  return false;
}

/* t at position 1: the renaming, brought back to the normal form the roots are in */
static T twin(Scan *sc, T t) {
  return ax_arith_normal(sc->in->tc, ax_term_subst(sc->in->tc, t, sc->nren, sc->from, sc->to));
}

static int by_id(const void *a, const void *b) {
  uint32_t x = ax_term_id(*(T const *)a), y = ax_term_id(*(T const *)b);
  return (x > y) - (x < y);
}

static void walk(Tally *ty, T t);

/* An and/or node n over arguments that are per-axis at position 0 (A0), at position 1 (A1),
 * or neither (the rest). Its value is fold(A0) combined with the rest: the per-axis part
 * must be the same function at both positions (A1 = twin(A0)). `truth`: n is known true
 * (a top-level conjunction of assumptions), so its per-axis conjuncts hold on every axis. */
static void junction(Tally *ty, T n, bool truth) {
  Scan *sc = ty->sc;
  AxTermKind k = ax_term_kind(n);
  size_t na = ax_term_nargs(n);
  AxArena *a = sc->in->a;
  T *a0 = ax_arena_alloc(a, (na + 1) * sizeof(T));
  AxVec a1 = {0};
  size_t n0 = 0;
  for (size_t i = 0; i < na; i++) {
    T x = ax_term_arg(n, i);
    uint8_t m = mask_of(sc, x);
    if (m == 1) {
      bool dup = false;   /* the builders keep repeated conjuncts */
      for (size_t j = 0; j < n0 && !dup; j++) dup = a0[j] == x;
      if (!dup) a0[n0++] = x;
    }
    else if (m == 2) ax_vec_push(a, &a1, (void *)x);
    else if (m == 3) walk(ty, x);
    else if (m) sc->fail = "a condition mentions a third named axis";
  }
  if (!n0 && !a1.len) return;
  /* the twins of A0 are exactly A1 (as sets: the builders keep duplicates and order) */
  AxVec twins = {0};
  for (size_t i = 0; i < n0; i++) ax_vec_push(a, &twins, (void *)twin(sc, a0[i]));
  bool same = true;
  for (size_t i = 0; i < n0 && same; i++) same = vec_has(&a1, twins.items[i]);
  for (size_t i = 0; i < a1.len && same; i++) same = vec_has(&twins, a1.items[i]);
  if (!same) {
    sc->fail = "a condition is not the same on every named axis";
    return;
  }
  if (truth) {
    for (size_t i = 0; i < n0; i++) ax_vec_push(a, &ty->truths, (void *)a0[i]);
    return;
  }
  qsort(a0, n0, sizeof(T), by_id);
  Fold *f = ax_arena_alloc(a, sizeof *f);
  f->any = k == AX_TERM_OR;
  f->g = f->any ? ax_term_mk_or(sc->in->tc, n0, a0) : ax_term_mk_and(sc->in->tc, n0, a0);
  for (size_t i = 0; i < ty->folds.len; i++) {
    const Fold *o = ty->folds.items[i];
    if (o->g == f->g && o->any == f->any) return;
  }
  ax_vec_push(a, &ty->folds, f);
}

/* The scalar function around the folds: every node mentioning both positions is either an
 * and/or that holds a fold, a read (its indices checked), or glue whose arguments are walked
 * in turn. A per-axis term reached from glue is a structure the argument does not cover. */
static void walk(Tally *ty, T t) {
  Scan *sc = ty->sc;
  if (sc->fail || !mask_of(sc, t) || ty->seen[ax_term_id(t)]) return;
  ty->seen[ax_term_id(t)] = 1;
  if (read_sym(sc->s, t) >= 0 || closed_of(sc, t) >= 0) return;
  uint8_t m = mask_of(sc, t);
  if (m != 3) {
    sc->fail = "a value or condition on one named axis is used outside a conjunction or "
               "disjunction over the axes";
    return;
  }
  AxTermKind k = ax_term_kind(t);
  if (k == AX_TERM_AND || k == AX_TERM_OR) {
    junction(ty, t, false);
    return;
  }
  for (size_t i = 0; i < ax_term_nargs(t); i++) walk(ty, ax_term_arg(t, i));
}

static void collect_reads(T t, void *data);

/* A sum closed under sqrt (symbolic.c close_sum) is glue over the reads of its summand: its
 * value is kept by dropping a named axis of c when its variables range over other classes,
 * its domain and summand mention c only inside tensor reads (per-axis indices, checked
 * with the others), and those reads keep their values — so its reads count as reads of
 * the kind, and anything else about c inside it is a structure the argument does not
 * cover (docs/semantics.md). */
static void closed_sum(Tally *ty, int i) {
  Scan *sc = ty->sc;
  const AxClosedSum *cs = &sc->closed[i];
  for (size_t k = 0; k < cs->n; k++)
    if (ax_instance_var_rclass(sc->in, cs->vars[k]) == sc->c)
      sc->fail = "a sum under sqrt runs over this class";
  if (mask_of(sc, cs->dom) || mask_of(sc, cs->body))
    sc->fail = "a sum under sqrt depends on this class other than through tensor reads";
  T inner[2] = {cs->dom, cs->body};
  ax_term_postorder(sc->in->tc, inner, 2, collect_reads, ty);
}

static void collect_reads(T t, void *data) {
  Tally *ty = data;
  if (read_sym(ty->sc->s, t) >= 0 && !vec_has(&ty->reads, t)) {
    ax_vec_push(ty->sc->in->a, &ty->reads, (void *)t);
    check_read(ty->sc, t);
  }
  int c = closed_of(ty->sc, t);
  if (c >= 0 && !vec_has(&ty->closed, t)) {
    ax_vec_push(ty->sc->in->a, &ty->closed, (void *)t);
    closed_sum(ty, c);
  }
}

/* A fold known true in every counterexample needs no axis kept: a conjunction whose every
 * conjunct holds on every axis, or a disjunction with such a disjunct (ranks are >= 1). */
static bool known_true(const Tally *ty, const Fold *f) {
  T g = f->g;
  AxTermKind want = f->any ? AX_TERM_OR : AX_TERM_AND;
  size_t n = ax_term_kind(g) == want ? ax_term_nargs(g) : 1;
  size_t hits = 0;
  for (size_t i = 0; i < n; i++) hits += vec_has(&ty->truths, n == 1 ? g : ax_term_arg(g, i));
  return f->any ? hits > 0 : hits == n;
}

/* The constraints one kind of counterexample can put on the projection: one per fold whose
 * value is not known, one per pair of distinct reads of a tensor that has axes of c. */
static int tally(Scan *sc, T assumed, const T *roots, size_t nroots, AxRankCount *out) {
  Tally ty = {.sc = sc};
  ty.seen = ax_xcalloc(sc->nmask + 1, 1);
  if (ax_term_kind(assumed) == AX_TERM_AND) junction(&ty, assumed, true);
  else walk(&ty, assumed);
  for (size_t r = 0; r < nroots; r++) walk(&ty, roots[r]);
  free(ty.seen);
  T *all = ax_arena_alloc(sc->in->a, (nroots + 1) * sizeof(T));
  all[0] = assumed;
  memcpy(all + 1, roots, nroots * sizeof(T));
  ax_term_postorder(sc->in->tc, all, nroots + 1, collect_reads, &ty);
  int conds = 0, pairs = 0;
  bool debug = getenv("AXLE_DEBUG_BOUNDS") != NULL;
  for (size_t i = 0; i < ty.folds.len; i++) {
    const Fold *f = ty.folds.items[i];
    bool known = known_true(&ty, f);
    conds += !known;
    if (debug) {
      fprintf(stderr, "[bounds %s] %s%s ", sc->s->rclasses[sc->c].name, f->any ? "any" : "all",
              known ? " (known true)" : "");
      ax_term_print(stderr, f->g);
      fputc('\n', stderr);
    }
  }
  for (size_t i = 0; debug && i < ty.reads.len; i++) {
    fprintf(stderr, "[bounds %s] read ", sc->s->rclasses[sc->c].name);
    ax_term_print(stderr, ty.reads.items[i]);
    fputc('\n', stderr);
  }
  for (size_t t = 0; t < sc->s->nsyms; t++) {
    const AxSym *y = &sc->s->syms[t];
    if (y->kind != AX_SYM_TENSOR) continue;
    bool has = false;
    for (int j = 0; j < y->ndims; j++) has |= sc->s->syms[sc->s->axes[y->dim_axis[j]]].rclass == sc->c;
    if (!has) continue;
    /* two reads whose indices on the axes of c are the same terms never differ on an axis
     * of c, so dropping one cannot merge them: only the other pairs count */
    for (size_t i = 0; i < ty.reads.len; i++)
      for (size_t j = i + 1; j < ty.reads.len; j++)
        if (read_sym(sc->s, ty.reads.items[i]) == (int)t && read_sym(sc->s, ty.reads.items[j]) == (int)t)
          pairs += differ_on_class(sc, ty.reads.items[i], ty.reads.items[j]);
  }
  if (out) {
    out->conditions = conds;
    out->read_pairs = pairs;
  }
  return conds + pairs;
}

/* One kind of counterexample (see class_bound). */
typedef struct Kind {
  T assumed;
  T roots[4];
  size_t n;
} Kind;

/* a tensor read (the predicate of ax_term_collect) */
static bool is_read(const AxTerm *t, void *data) { return read_sym(data, t) >= 0; }

/* Does t hold a read (nested ones included: a gather's index) at an index that mentions c?
 * Its value hides c from the masks. */
static bool reads_class(Scan *sc, T t) {
  AxVec reads = {0};
  ax_term_collect(sc->in->tc, &t, 1, is_read, (void *)sc->s, sc->in->a, &reads);
  for (size_t r = 0; r < reads.len; r++)
    for (size_t a = 0; a < ax_term_nargs(reads.items[r]); a++)
      if (mask_of(sc, ax_term_arg(reads.items[r], a))) return true;
  return false;
}

/* A pairing of summation variables is per axis: the expression of the variable on named
 * axis k of c mentions c only at position k, and the twin variable's expression is the
 * twin of its expression. A pairing of a variable of c through the value of a read on c's
 * axes (a gather index) is not per-axis arithmetic, whatever its mask says (a read's value
 * has none): the argument does not cover it. A read that does not mention c (a branch guard
 * such as V2[x] != 0 when c is k) is a constant of the projection. */
static void per_axis_map(Scan *sc, const AxTerm *const *vars, const AxTerm **map, size_t n) {
  for (size_t i = 0; i < n && !sc->fail; i++) {
    int rc, pos;
    long fam;
    if (ax_instance_var_info(sc->in, vars[i], &rc, &pos, &fam) && rc == sc->c && reads_class(sc, map[i])) {
      sc->fail = "a pairing of summation indices depends on tensor values read on this class";
      continue;
    }
    if (!ax_instance_var_info(sc->in, vars[i], &rc, &pos, &fam) || rc != sc->c) {
      if (mask_of(sc, map[i])) sc->fail = "a summation index of another class is paired with one of this class";
      continue;
    }
    if (mask_of(sc, map[i]) & ~(1u << pos)) {
      sc->fail = "the pairing of summation indices mixes named axes";
      continue;
    }
    if (pos != 0) continue;
    const AxTerm *w = ax_instance_twin(sc->in, vars[i], 1);
    for (size_t j = 0; j < n; j++)
      if (vars[j] == w && twin(sc, map[i]) != map[j])
        sc->fail = "the pairing of summation indices differs between named axes";
  }
}

/* Bound of class c on the instance where c has rank 2 and every other class rank 1. */
static int class_bound(const AxBlock *rule, AxType T_, int c, AxRankCount *count, const char **fail,
                       char **unsupported) {
  const AxRuleSyms *s = rule->syms;
  int *rank = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  for (size_t k = 0; k < s->nrclasses; k++) rank[k] = (int)k == c ? 2 : 1;
  AxSymInstance in;
  ax_instance_build(&in, rule, T_, rank);
  int bound = 1;
  if (in.unsupported) {
    *unsupported = ax_xstrdup(in.unsupported);
    goto done;
  }
  Scan sc = {.in = &in, .s = s, .c = c};
  /* the twins: position-0 variables of c and their position-1 partners */
  AxVec vars = {0};
  const T everything[] = {in.query, in.ctx, in.same, in.hint, in.not_finite};
  ax_term_collect(in.tc, everything, 5, ax_term_pred_var, NULL, in.a, &vars);
  sc.closed = ax_symbolic_closed(in.sym, &sc.nclosed);
  size_t nsum;
  const AxSumVar *sv = ax_symbolic_sumvars(in.sym, &nsum);
  sc.from = ax_arena_alloc(in.a, (vars.len + nsum + 1) * sizeof(T));
  sc.to = ax_arena_alloc(in.a, (vars.len + nsum + 1) * sizeof(T));
  for (size_t i = 0; i < vars.len + nsum; i++) {
    T v = i < vars.len ? vars.items[i] : sv[i - vars.len].var;
    int rc, pos;
    long fam;
    if (!ax_instance_var_info(&in, v, &rc, &pos, &fam) || rc != c || pos != 0) continue;
    bool dup = false;
    for (size_t j = 0; j < sc.nren && !dup; j++) dup = sc.from[j] == v;
    T w = ax_instance_twin(&in, v, 1);
    if (dup) continue;
    if (!w) {
      sc.fail = "a variable has no twin on the second named axis";
      break;
    }
    sc.from[sc.nren] = v;
    sc.to[sc.nren++] = w;
  }

  /* The kinds of counterexample, each a conjunction of assumptions (known true, so their
   * per-axis conjuncts hold on every axis) and the terms whose values it turns on. Plain
   * values: the values differ (both sides valid, sizes equal, access valid), or the right
   * side is invalid or the sizes differ. Reductions: each query of the bijection proof
   * (bijection.c) is a kind of its own. */
  /* summands finite only under the preconditions: "this one is not" is a kind of its own
   * for each disjunct of not_finite (a counterexample to the disjunction is one to a
   * disjunct, and a projection that keeps that disjunct keeps the disjunction) */
  size_t nfin = ax_term_kind(in.not_finite) == AX_TERM_FALSE ? 0
              : ax_term_kind(in.not_finite) == AX_TERM_OR   ? ax_term_nargs(in.not_finite) : 1;
  Kind *kinds = ax_arena_alloc(in.a, (8 + nfin) * sizeof(Kind));
  size_t nk = 0;
  T pre_lhs = ax_term_mk_and2(in.tc, in.pre, in.valid_lhs);
  /* (one conjunction: the counterexample needs it false, not each part) */
  kinds[nk++] = (Kind){pre_lhs, {ax_term_mk_and2(in.tc, in.valid_rhs, in.sizes_eq)}, 1};
  const AxTerm **h = NULL, **g = NULL;
  size_t nh = 0, ng = 0;
  if (!in.reduction) {
    kinds[nk++] = (Kind){in.ctx, {in.same}, 1};
  } else {
    T DX = in.red[0].dom, DY = in.red[1].dom;
    /* one side a plain value: the other's sum is empty, and the value must be 0 */
    if ((in.red[0].n == 0) != (in.red[1].n == 0)) {
      int sum_side = in.red[0].n ? 0 : 1;
      T zero = in.type == AX_REAL ? ax_term_mk_real_si(in.tc, 0, 1) : ax_term_mk_int_si(in.tc, 0);
      kinds[nk++] = (Kind){in.ctx, {in.red[sum_side].dom}, 1};
      kinds[nk++] = (Kind){in.ctx, {ax_term_mk_eq(in.tc, in.red[!sum_side].body, zero)}, 1};
    }
    nh = in.red[1].n;
    ng = in.red[0].n;
    h = ax_arena_alloc(in.a, (nh + 1) * sizeof(T));
    g = ax_arena_alloc(in.a, (ng + 1) * sizeof(T));
    char why[256], inferred[256] = "";
    if (ax_bij_maps(&in, h, g, why, sizeof why, inferred, sizeof inferred)) {
      const AxTerm *const *X = in.red[0].vars, *const *Y = in.red[1].vars;
      T DYh = ax_term_subst(in.tc, DY, nh, Y, h);
      T gh = ax_term_subst(in.tc, in.red[1].body, nh, Y, h);
      T DXg = ax_term_subst(in.tc, DX, ng, X, g);
      T hg_eq = ax_term_mk_true(in.tc);
      for (size_t i = 0; i < nh; i++)
        hg_eq = ax_term_mk_and2(in.tc, hg_eq, ax_term_mk_eq(in.tc, ax_term_subst(in.tc, h[i], ng, X, g), Y[i]));
      T base = ax_term_mk_and2(in.tc, in.ctx, DX);
      kinds[nk++] = (Kind){base, {DYh}, 1};                           /* well defined */
      kinds[nk++] = (Kind){ax_term_mk_and2(in.tc, in.ctx, DY), {DXg, hg_eq}, 2};   /* onto */
      kinds[nk++] = (Kind){base, {ax_term_mk_eq(in.tc, in.red[0].body, gh)}, 1};  /* summands */
      /* injective: X != X' with h(X) = h(X') is one disjunction over the axes (h per axis,
       * checked below) under assumptions that hold on every axis: one condition */
    } else {
      h = g = NULL;   /* no pairing, no proof: only a replayed counterexample can come */
      nh = ng = 0;
    }
  }
  for (size_t i = 0; i < nfin; i++)
    kinds[nk++] = (Kind){in.ctx, {nfin == 1 ? in.not_finite : ax_term_arg(in.not_finite, i)}, 1};
  /* Everything in polynomial normal form (ring identities, exact for every value): a read
   * at (a − l2) − l1 and one at a − (l1 + l2) are one read, a size equation that is an
   * identity is true. Two folds or reads are merged only when their normal forms are equal. */
  T *all = ax_arena_alloc(in.a, (3 * nk + nh + ng + 2 * sc.nclosed + 1) * sizeof(T));
  size_t nall = 0;
  for (size_t k = 0; k < nk; k++) {
    kinds[k].assumed = ax_arith_normal(in.tc, kinds[k].assumed);
    all[nall++] = kinds[k].assumed;
    for (size_t r = 0; r < kinds[k].n; r++) all[nall++] = kinds[k].roots[r] = ax_arith_normal(in.tc, kinds[k].roots[r]);
  }
  for (size_t i = 0; i < nh; i++) all[nall++] = h[i] = ax_arith_normal(in.tc, h[i]);
  for (size_t i = 0; i < ng; i++) all[nall++] = g[i] = ax_arith_normal(in.tc, g[i]);
  /* the closed sums' insides get masks too (they are read, not normalised: closed_sum) */
  for (size_t i = 0; i < sc.nclosed; i++) {
    all[nall++] = sc.closed[i].dom;
    all[nall++] = sc.closed[i].body;
  }
  sc.nmask = ax_term_ctx_size(in.tc);
  sc.mask = ax_xcalloc(sc.nmask + 1, 1);
  ax_term_postorder(in.tc, all, nall, mask_visit, &sc);
  /* the pairing is per axis: the index on named axis k of c is a function of position k */
  per_axis_map(&sc, in.red[1].vars, h, nh);
  per_axis_map(&sc, in.red[0].vars, g, ng);
  bound = 1;
  for (size_t k = 0; k < nk && !sc.fail; k++) {
    AxRankCount cnt = {0};
    int b = tally(&sc, kinds[k].assumed, kinds[k].roots, kinds[k].n, &cnt);
    if (b > bound || (b == bound && !count->conditions && !count->read_pairs)) {
      bound = b > 1 ? b : 1;
      *count = cnt;
    }
  }
  free(sc.mask);
  if (sc.fail) *fail = sc.fail;
done:
  ax_instance_free(&in);
  free(rank);
  return bound;
}

/* ---- the flatten argument ---------------------------------------------------------------
 * A class c whose axes a flatten or unflatten reads row-major is not counted: the index of
 * its named axis k mixes the sizes of the others. Its bound is 1 when the rule is closed
 * under merging two adjacent named axes of c into one (docs/semantics.md, "Flatten: the merge
 * argument"), which this walk checks: every axis of c is sized by one map, that map is used
 * as nothing else, c has no other map or index, and every operator that touches an axis of c
 * commutes with the merge (its row's `merges`, dsl/check.c). */
typedef struct Merge {
  const AxRuleSyms *s;
  int c;
  uint64_t caxes;      /* the aggregated axes of c */
  int size;            /* the one size map of c, or -1 before it is met */
  bool flattens;       /* a flatten or unflatten reads an axis of c row-major */
  const char *why;     /* the first thing outside the argument */
  char buf[160];
  uint8_t *seen;       /* per symbol: a let already walked */
} Merge;

static void merge_expr(Merge *m, const AxExpr *e);

/* the first thing outside the argument is the one reported; the walk goes on, so that a
 * flatten after it is still seen */
static void merge_fail(Merge *m, const char *why) {
  if (!m->why) m->why = why;
}

/* a symbol met: a let is walked (once); a map of c is the one size map when met as a size,
 * and outside the argument anywhere else (so is an index of c) */
static void merge_name(Merge *m, int i, bool size) {
  const AxSym *y = &m->s->syms[i];
  if (y->kind == AX_SYM_LET) {
    if (!m->seen[i]) {
      m->seen[i] = 1;
      merge_expr(m, y->def);
    }
    return;
  }
  if ((y->kind != AX_SYM_MAP && y->kind != AX_SYM_INDEX) || y->rclass != m->c) return;
  if (!size || y->kind != AX_SYM_MAP || y->def)
    merge_fail(m, "a map or index of the class is used other than as the size of its axes");
  else if (m->size >= 0 && m->size != i)
    merge_fail(m, "the axes of the class have more than one size map");
  else
    m->size = i;
}

/* one size of an axis of c: exactly the size map's name */
static void merge_size(Merge *m, const AxExpr *v) {
  if (v->kind != AX_E_NAME || v->ty.sym < 0) merge_fail(m, "an axis of the class has a size that is not a map");
  else merge_name(m, v->ty.sym, true);
}

static bool merge_axis(const Merge *m, const char *axis) {
  for (size_t i = 0; i < m->s->naxes; i++)
    if ((m->caxes >> i & 1) && strcmp(m->s->syms[m->s->axes[i]].name, axis) == 0) return true;
  return false;
}

/* an operator application: it must commute with the merge where it touches c */
static void merge_op(Merge *m, const AxExpr *e) {
  AxOp op = (AxOp)e->ty.op;
  uint64_t touched = e->ty.axes;
  for (int i = 0; i < e->ty.nopnds; i++) touched |= e->ty.opnds[i]->ty.axes;
  if (touched & m->caxes && !ax_check_merges(op) && !m->why) {
    snprintf(m->buf, sizeof m->buf, "'%s' on an axis of the class does not commute with merging "
             "its named axes", ax_op_name(op));
    m->why = m->buf;
  }
  int flat = op == AX_OP_FLATTEN ? 0 : op == AX_OP_UNFLATTEN ? 1 : -1;
  if (flat >= 0) {
    const AxExpr *v = e->ty.attrs[flat];
    const char *axis = v->kind == AX_E_AXMAP ? v->u.axmap.entries[0].axis.name : m->s->syms[v->ty.sym].name;
    m->flattens |= merge_axis(m, axis);
  }
  for (int i = 0; i < e->ty.nopnds; i++) merge_expr(m, e->ty.opnds[i]);
  const AxOpSpec *spec = ax_op_spec(op);
  for (int k = 0; k < ax_op_nattrs(op); k++) {
    const AxExpr *v = e->ty.attrs[k];
    if (!v) continue;
    if (spec->attrs[k].kind != AX_AT_SHAPE) {
      merge_expr(m, v);
      continue;
    }
    for (size_t j = 0; j < v->u.axmap.n; j++) {
      const AxAxEntry *en = &v->u.axmap.entries[j];
      if (merge_axis(m, en->axis.name)) merge_size(m, en->value);
      else merge_expr(m, en->value);
    }
  }
}

static void merge_child(const AxExpr *e, void *m) { merge_expr(m, e); }

/* anything but a size: a map of c met here is outside the argument */
static void merge_expr(Merge *m, const AxExpr *e) {
  if (!e) return;
  if (e->ty.op >= 0) merge_op(m, e);
  else if (e->kind == AX_E_NAME && e->ty.sym >= 0) merge_name(m, e->ty.sym, false);
  else ax_expr_children(e, merge_child, m);
}

/* The flatten argument's walk for class c over everything the rule's verdict reads: the
 * declared sizes, both sides, the requires and the hints. */
static void merge_check(const AxRuleSyms *s, int c, Merge *m) {
  memset(m, 0, sizeof *m);
  m->s = s;
  m->c = c;
  m->size = -1;
  m->seen = ax_xcalloc(s->nsyms + 1, 1);
  for (size_t i = 0; i < s->naxes; i++)
    if (s->syms[s->axes[i]].rclass == c) m->caxes |= (uint64_t)1 << i;
  for (size_t t = 0; t < s->nsyms; t++) {
    const AxSym *y = &s->syms[t];
    if (y->kind != AX_SYM_TENSOR) continue;
    for (int j = 0; j < y->ndims; j++)
      if (m->caxes >> y->dim_axis[j] & 1) merge_size(m, y->dim_size[j]);
  }
  merge_expr(m, s->lhs);
  merge_expr(m, s->rhs);
  for (size_t i = 0; i < s->nrequires; i++) merge_expr(m, s->requires[i]);
  for (size_t i = 0; i < s->nhints; i++) merge_expr(m, s->hints[i]);
  free(m->seen);
}

void ax_rank_bounds(const AxBlock *rule, AxType T_, AxRankBounds *out) {
  const AxRuleSyms *s = rule->syms;
  memset(out, 0, sizeof *out);
  out->bounds = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  out->counts = ax_xcalloc(s->nrclasses + 1, sizeof(AxRankCount));
  for (size_t c = 0; c < s->nrclasses; c++) {
    out->bounds[c] = 1;
    if (s->rclasses[c].singleton) {
      out->counts[c].fixed = true;
      continue;
    }
    /* a class a flatten reads row-major: the merge argument, or nothing */
    Merge m;
    merge_check(s, (int)c, &m);
    if (m.flattens) {
      if (m.why) {
        char buf[512];
        snprintf(buf, sizeof buf, "bound inference for rank class '%s': a flatten reads it row-major "
                 "and %s", s->rclasses[c].name, m.why);
        out->unsupported = ax_xstrdup(buf);
        return;
      }
      out->counts[c].merged = true;
      continue;   /* bound 1 */
    }
    const char *fail = NULL;
    char *unsupported = NULL;
    out->bounds[c] = class_bound(rule, T_, (int)c, &out->counts[c], &fail, &unsupported);
    if (unsupported) {
      out->unsupported = unsupported;
      return;
    }
    if (fail) {
      char buf[512];
      snprintf(buf, sizeof buf, "bound inference for rank class '%s': %s", s->rclasses[c].name, fail);
      out->unsupported = ax_xstrdup(buf);
      return;
    }
  }
}

void ax_rank_bounds_free(AxRankBounds *b) {
  free(b->bounds);
  free(b->counts);
  free(b->unsupported);
  memset(b, 0, sizeof *b);
}
