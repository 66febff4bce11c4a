/* arith.c — exact preprocessing of integer arithmetic (see arith.h for what and why). */
#include "smt/arith.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Past these sizes a sum or product stays as written (an atom of the polynomials around
 * it): normal forms must not blow up, and the queries that need them are small. */
enum { MAX_MONOS = 128, MAX_DEGREE = 8, MAX_ROUNDS = 16, MAX_IVAL_DEPTH = 8 };

typedef const AxTerm *T;

/* c · a[0] · ... · a[n-1]; atoms ascend by term id, a power repeats its atom. */
typedef struct Mono {
  int64_t c;
  uint32_t n;
  T *a;
} Mono;

/* Σ m[i], monomials in descending mono_cmp order, no zero coefficient. */
typedef struct Poly {
  uint32_t n;
  Mono *m;
} Poly;

/* An integer interval; a missing end is infinite. */
typedef struct Ival {
  bool has_lo, has_hi;
  int64_t lo, hi;
} Ival;

/* A bound the formula's top-level conjuncts put on a canonical polynomial term. */
typedef struct Bound {
  T key;
  Ival iv;
} Bound;

typedef struct Simp {
  AxTermCtx *tc;
  AxArena *a;
  bool overflow;       /* a coefficient left int64: the whole simplification is abandoned */
  AxVec bounds;        /* of Bound * */
  bool use_bounds;     /* while normalizing: may the bounds decide comparisons? */
  T *memo;             /* per pass, by term id (ids below memo_n) */
  uint32_t memo_n;
} Simp;

/* --- Checked int64 arithmetic ------------------------------------------------------------ */

static int64_t add64(Simp *S, int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) S->overflow = true;
  return r;
}

static int64_t mul64(Simp *S, int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) S->overflow = true;
  return r;
}

/* --- Polynomials ------------------------------------------------------------------------- */

/* Graded lexicographic order, atoms of smaller id weighing more: a monomial order, so the
 * leading monomial of a product is the product of the leading monomials (exact division
 * below relies on it). */
static int mono_cmp(const Mono *x, const Mono *y) {
  if (x->n != y->n) return x->n > y->n ? 1 : -1;
  for (uint32_t i = 0; i < x->n; i++)
    if (x->a[i] != y->a[i]) return ax_term_id(x->a[i]) < ax_term_id(y->a[i]) ? 1 : -1;
  return 0;
}

static int mono_cmp_desc(const void *x, const void *y) { return -mono_cmp(x, y); }

static Poly *poly_new(Simp *S, uint32_t cap) {
  Poly *p = ax_arena_alloc(S->a, sizeof *p);
  p->n = 0;
  p->m = ax_arena_alloc(S->a, (cap ? cap : 1) * sizeof *p->m);   /* never NULL (qsort) */
  return p;
}

static Poly *poly_const(Simp *S, int64_t k) {
  Poly *p = poly_new(S, 1);
  if (k != 0) p->m[p->n++] = (Mono){.c = k, .n = 0, .a = NULL};
  return p;
}

static Poly *poly_atom(Simp *S, T t) {
  Poly *p = poly_new(S, 1);
  T *a = ax_arena_alloc(S->a, sizeof *a);
  a[0] = t;
  p->m[p->n++] = (Mono){.c = 1, .n = 1, .a = a};
  return p;
}

/* x + s·y (s = ±1), or NULL when the sum has too many monomials. */
static Poly *poly_add(Simp *S, const Poly *x, const Poly *y, int64_t s) {
  Poly *r = poly_new(S, x->n + y->n);
  uint32_t i = 0, j = 0;
  while (i < x->n || j < y->n) {
    int c = i == x->n ? -1 : j == y->n ? 1 : mono_cmp(&x->m[i], &y->m[j]);
    if (c > 0) {
      r->m[r->n++] = x->m[i++];
    } else if (c < 0) {
      r->m[r->n] = y->m[j++];
      r->m[r->n].c = mul64(S, r->m[r->n].c, s);
      r->n++;
    } else {
      Mono m = x->m[i++];
      m.c = add64(S, m.c, mul64(S, y->m[j++].c, s));
      if (m.c != 0) r->m[r->n++] = m;
    }
  }
  return r->n > MAX_MONOS ? NULL : r;
}

static Poly *poly_scale(Simp *S, const Poly *x, int64_t k) {
  if (k == 0) return poly_const(S, 0);
  Poly *r = poly_new(S, x->n);
  for (uint32_t i = 0; i < x->n; i++) {
    r->m[i] = x->m[i];
    r->m[i].c = mul64(S, x->m[i].c, k);
  }
  r->n = x->n;
  return r;
}

static Mono mono_mul(Simp *S, const Mono *x, const Mono *y) {
  Mono m = {.c = mul64(S, x->c, y->c), .n = x->n + y->n};
  m.a = m.n ? ax_arena_alloc(S->a, m.n * sizeof *m.a) : NULL;
  uint32_t i = 0, j = 0, k = 0;
  while (i < x->n || j < y->n)
    m.a[k++] = j == y->n || (i < x->n && ax_term_id(x->a[i]) <= ax_term_id(y->a[j]))
                   ? x->a[i++] : y->a[j++];
  return m;
}

/* x · y, or NULL when it has too many monomials or too high a degree. */
static Poly *poly_mul(Simp *S, const Poly *x, const Poly *y) {
  if ((uint64_t)x->n * y->n > 4 * MAX_MONOS) return NULL;
  Poly *r = poly_new(S, x->n * y->n);
  for (uint32_t i = 0; i < x->n; i++)
    for (uint32_t j = 0; j < y->n; j++) {
      if (x->m[i].n + y->m[j].n > MAX_DEGREE) return NULL;
      r->m[r->n++] = mono_mul(S, &x->m[i], &y->m[j]);
    }
  qsort(r->m, r->n, sizeof *r->m, mono_cmp_desc);
  uint32_t k = 0;   /* merge equal monomials, now adjacent, then drop the zeros */
  for (uint32_t i = 0; i < r->n; i++) {
    if (k > 0 && mono_cmp(&r->m[k - 1], &r->m[i]) == 0)
      r->m[k - 1].c = add64(S, r->m[k - 1].c, r->m[i].c);
    else
      r->m[k++] = r->m[i];
  }
  r->n = 0;
  for (uint32_t i = 0; i < k; i++)
    if (r->m[i].c != 0) r->m[r->n++] = r->m[i];
  return r->n > MAX_MONOS ? NULL : r;
}

/* The polynomial of an Int term: +, −, · and constants are read, anything else (and a sum
 * or product too large to expand) is an atom. */
static Poly *poly_of(Simp *S, T t) {
  size_t n = ax_term_nargs(t);
  Poly *acc = NULL;
  switch (ax_term_kind(t)) {
  case AX_TERM_INT: {
    mpz_t v;
    mpz_init(v);
    ax_term_int_value(t, v);
    if (!mpz_fits_slong_p(v)) S->overflow = true;
    Poly *p = poly_const(S, S->overflow ? 0 : mpz_get_si(v));
    mpz_clear(v);
    return p;
  }
  case AX_TERM_ADD:
    acc = poly_const(S, 0);
    for (size_t i = 0; acc && i < n; i++) acc = poly_add(S, acc, poly_of(S, ax_term_arg(t, i)), 1);
    break;
  case AX_TERM_SUB:
    acc = poly_add(S, poly_of(S, ax_term_arg(t, 0)), poly_of(S, ax_term_arg(t, 1)), -1);
    break;
  case AX_TERM_NEG:
    acc = poly_scale(S, poly_of(S, ax_term_arg(t, 0)), -1);
    break;
  case AX_TERM_MUL:
    acc = poly_const(S, 1);
    for (size_t i = 0; acc && i < n; i++) acc = poly_mul(S, acc, poly_of(S, ax_term_arg(t, i)));
    break;
  default:
    break;
  }
  return acc ? acc : poly_atom(S, t);
}

/* The canonical term of p: monomials in order, each `c * a0 * a1 ...` (c left out if 1). */
static T poly_term(Simp *S, const Poly *p) {
  AxTermCtx *tc = S->tc;
  if (p->n == 0) return ax_term_mk_int_si(tc, 0);
  T *sum = ax_arena_alloc(S->a, p->n * sizeof *sum);
  for (uint32_t i = 0; i < p->n; i++) {
    const Mono *m = &p->m[i];
    T *f = ax_arena_alloc(S->a, (m->n + 1) * sizeof *f);
    size_t k = 0;
    if (m->c != 1 || m->n == 0) f[k++] = ax_term_mk_int_si(tc, m->c);
    for (uint32_t j = 0; j < m->n; j++) f[k++] = m->a[j];
    sum[i] = k == 1 ? f[0] : ax_term_mk_mul(tc, k, f);
  }
  return p->n == 1 ? sum[0] : ax_term_mk_add(tc, p->n, sum);
}

/* Is the multiset d->a contained in x->a? Then q->a receives the difference. */
static bool mono_divides(Simp *S, const Mono *d, const Mono *x, Mono *q) {
  if (d->n > x->n || d->c == 0 || (d->c == -1 && x->c == INT64_MIN) || x->c % d->c != 0)
    return false;
  q->c = x->c / d->c;
  q->n = x->n - d->n;
  q->a = q->n ? ax_arena_alloc(S->a, q->n * sizeof *q->a) : NULL;
  uint32_t i = 0, k = 0;
  for (uint32_t j = 0; j < x->n; j++) {
    if (i < d->n && d->a[i] == x->a[j])
      i++;
    else if (k < q->n)
      q->a[k++] = x->a[j];
    else
      return false;
  }
  return i == d->n;
}

/* Division with remainder: p = d·Q + R, where no monomial of R is divisible by the leading
 * monomial of d (the usual multivariate division; it ends because the leading monomial of
 * what is left only decreases in a monomial order). If d divides p, R = 0: the leading
 * monomial of d·Q is lead(d)·lead(Q), so every step divides. False when a polynomial grew
 * too large. */
static bool poly_divrem(Simp *S, const Poly *p, const Poly *d, Poly **q, Poly **r) {
  *q = poly_const(S, 0);
  *r = poly_const(S, 0);
  for (int guard = 0; p->n > 0; guard++) {
    Mono t;
    Poly *tp = poly_new(S, 1);
    if (guard > 4 * MAX_MONOS) return false;
    if (mono_divides(S, &d->m[0], &p->m[0], &t)) {
      tp->m[tp->n++] = t;
      Poly *td = poly_mul(S, tp, d);
      *q = poly_add(S, *q, tp, 1);
      if (!td || !*q) return false;
      p = poly_add(S, p, td, -1);
    } else {
      tp->m[tp->n++] = p->m[0];
      *r = poly_add(S, *r, tp, 1);
      if (!*r) return false;
      p = poly_add(S, p, tp, -1);
    }
    if (!p) return false;
  }
  return true;
}

/* p without its constant monomial; *k receives that constant. */
static Poly *poly_split(Simp *S, const Poly *p, int64_t *k) {
  Poly *r = poly_new(S, p->n);
  *k = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    if (p->m[i].n == 0)
      *k = p->m[i].c;
    else
      r->m[r->n++] = p->m[i];
  }
  return r;
}

/* --- Intervals ------------------------------------------------------------------------- */

static const Ival IV_ALL = {false, false, 0, 0};

static Ival iv_point(int64_t k) { return (Ival){true, true, k, k}; }

/* Each end that overflows is dropped: a wider interval is still a true one. */
static Ival iv_add(Ival x, Ival y) {
  Ival r = IV_ALL;
  r.has_lo = x.has_lo && y.has_lo && !__builtin_add_overflow(x.lo, y.lo, &r.lo);
  r.has_hi = x.has_hi && y.has_hi && !__builtin_add_overflow(x.hi, y.hi, &r.hi);
  return r;
}

static Ival iv_scale(Ival x, int64_t k) {
  Ival r = IV_ALL;
  if (k < 0) x = (Ival){x.has_hi, x.has_lo, x.hi, x.lo};
  r.has_lo = x.has_lo && !__builtin_mul_overflow(x.lo, k, &r.lo);
  r.has_hi = x.has_hi && !__builtin_mul_overflow(x.hi, k, &r.hi);
  return r;
}

static Ival iv_mul(Ival x, Ival y) {
  if (x.has_lo && x.has_hi && x.lo == x.hi) return iv_scale(y, x.lo);
  if (y.has_lo && y.has_hi && y.lo == y.hi) return iv_scale(x, y.lo);
  if (x.has_lo && x.lo >= 0 && y.has_lo && y.lo >= 0) {   /* both non-negative */
    Ival r = IV_ALL;
    r.has_lo = !__builtin_mul_overflow(x.lo, y.lo, &r.lo);
    r.has_hi = x.has_hi && y.has_hi && !__builtin_mul_overflow(x.hi, y.hi, &r.hi);
    return r;
  }
  return IV_ALL;
}

static Ival iv_meet(Ival x, Ival y) {
  if (y.has_lo && (!x.has_lo || y.lo > x.lo)) x.lo = y.lo, x.has_lo = true;
  if (y.has_hi && (!x.has_hi || y.hi < x.hi)) x.hi = y.hi, x.has_hi = true;
  return x;
}

static Ival iv_join(Ival x, Ival y) {
  Ival r = IV_ALL;
  r.has_lo = x.has_lo && y.has_lo;
  r.lo = x.lo < y.lo ? x.lo : y.lo;
  r.has_hi = x.has_hi && y.has_hi;
  r.hi = x.hi > y.hi ? x.hi : y.hi;
  return r;
}

static Ival ival_poly(Simp *S, const Poly *p, int depth);

static const Bound *bound_of(Simp *S, T key) {
  for (size_t i = 0; i < S->bounds.len; i++) {
    const Bound *b = S->bounds.items[i];
    if (b->key == key) return b;
  }
  return NULL;
}

static Ival ival_atom(Simp *S, T t, int depth) {
  Ival r = IV_ALL;
  const Bound *b = bound_of(S, t);
  if (b) r = b->iv;
  if (depth >= MAX_IVAL_DEPTH) return r;
  if (ax_term_kind(t) == AX_TERM_ITE)
    r = iv_meet(r, iv_join(ival_poly(S, poly_of(S, ax_term_arg(t, 1)), depth + 1),
                           ival_poly(S, poly_of(S, ax_term_arg(t, 2)), depth + 1)));
  if (ax_term_kind(t) == AX_TERM_DIV) {   /* a div d for d >= 1: in [lo, -1] or [0, hi] */
    Ival a = ival_poly(S, poly_of(S, ax_term_arg(t, 0)), depth + 1);
    Ival d = ival_poly(S, poly_of(S, ax_term_arg(t, 1)), depth + 1);
    if (d.has_lo && d.lo >= 1 && a.has_lo && a.lo >= 0)
      r = iv_meet(r, (Ival){true, a.has_hi, 0, a.hi});
    if (d.has_lo && d.lo >= 1 && a.has_hi && a.hi < 0)
      r = iv_meet(r, (Ival){a.has_lo, true, a.lo, -1});
  }
  if (ax_term_kind(t) == AX_TERM_MOD) {   /* 0 <= mod < |d| (SMT-LIB, d != 0) */
    Ival d = ival_poly(S, poly_of(S, ax_term_arg(t, 1)), depth + 1);
    if (d.has_lo && d.lo > 0)
      r = iv_meet(r, (Ival){true, d.has_hi, 0, d.hi - 1});
  }
  return r;
}

/* The sign-normalised key of a non-constant polynomial: its term with a positive leading
 * coefficient; *neg tells whether p was negated to get it. */
static T poly_key(Simp *S, const Poly *p, bool *neg) {
  *neg = p->m[0].c < 0;
  return poly_term(S, *neg ? poly_scale(S, p, -1) : p);
}

static Ival ival_poly(Simp *S, const Poly *p, int depth) {
  int64_t k;
  Poly *n = poly_split(S, p, &k);
  if (n->n == 0) return iv_point(k);
  Ival sum = iv_point(0);
  for (uint32_t i = 0; i < n->n; i++) {
    Ival m = iv_point(n->m[i].c);
    for (uint32_t j = 0; j < n->m[i].n; j++) m = iv_mul(m, ival_atom(S, n->m[i].a[j], depth));
    sum = iv_add(sum, m);
  }
  bool neg;
  const Bound *b = bound_of(S, poly_key(S, n, &neg));
  if (b) sum = iv_meet(sum, neg ? iv_scale(b->iv, -1) : b->iv);
  return iv_add(sum, iv_point(k));
}

/* Records lo <= p <= hi (an end given when has_lo / has_hi). */
static void constrain(Simp *S, const Poly *p, bool has_lo, int64_t lo, bool has_hi,
                      int64_t hi) {
  int64_t k;
  Poly *n = poly_split(S, p, &k);
  if (n->n == 0) return;
  /* lo - k <= n <= hi - k */
  Ival iv = {has_lo, has_hi, 0, 0};
  if (has_lo && __builtin_sub_overflow(lo, k, &iv.lo)) iv.has_lo = false;
  if (has_hi && __builtin_sub_overflow(hi, k, &iv.hi)) iv.has_hi = false;
  bool neg;
  T key = poly_key(S, n, &neg);
  if (neg) iv = iv_scale(iv, -1);
  Bound *b = (Bound *)bound_of(S, key);
  if (b) {
    b->iv = iv_meet(b->iv, iv);
    return;
  }
  b = ax_arena_alloc(S->a, sizeof *b);
  *b = (Bound){key, iv};
  ax_vec_push(S->a, &S->bounds, b);
}

/* The bound a top-level conjunct states, if it compares integers; true when it gave one. */
static bool bound_from(Simp *S, T lit) {
  bool neg = ax_term_kind(lit) == AX_TERM_NOT;
  if (neg) lit = ax_term_arg(lit, 0);
  AxTermKind k = ax_term_kind(lit);
  if ((k != AX_TERM_LE && k != AX_TERM_LT && k != AX_TERM_EQ) ||
      ax_term_sort(ax_term_arg(lit, 0)) != AX_SORT_INT)
    return false;
  if (neg && k == AX_TERM_EQ) return false;
  Poly *d = poly_add(S, poly_of(S, ax_term_arg(lit, 1)), poly_of(S, ax_term_arg(lit, 0)), -1);
  if (!d) return false;
  /* a <= b: d >= 0; a < b: d >= 1; not (a <= b): d <= -1; not (a < b): d <= 0; a = b: d = 0 */
  if (k == AX_TERM_EQ)
    constrain(S, d, true, 0, true, 0);
  else if (!neg)
    constrain(S, d, true, k == AX_TERM_LT ? 1 : 0, false, 0);
  else
    constrain(S, d, false, 0, true, k == AX_TERM_LT ? 0 : -1);
  return true;
}

/* --- Normalisation ------------------------------------------------------------------------ */

/* Is d certainly non-zero: a non-zero constant, the guarded divisor ite(0 < x, x, c) with
 * c != 0, or (when bounds may be used) an interval without 0? */
static bool nonzero(Simp *S, T d) {
  if (ax_term_kind(d) == AX_TERM_INT) {
    mpz_t v;
    mpz_init(v);
    ax_term_int_value(d, v);
    bool nz = mpz_sgn(v) != 0;
    mpz_clear(v);
    return nz;
  }
  if (ax_term_kind(d) == AX_TERM_ITE) {
    T c = ax_term_arg(d, 0), x = ax_term_arg(d, 1);
    bool guarded = ax_term_kind(c) == AX_TERM_LT && ax_term_arg(c, 1) == x &&
                   ax_term_kind(ax_term_arg(c, 0)) == AX_TERM_INT &&
                   ax_term_arg(c, 0) == ax_term_mk_int_si(S->tc, 0);
    if ((guarded || nonzero(S, x)) && nonzero(S, ax_term_arg(d, 2))) return true;
  }
  if (!S->use_bounds) return false;
  Ival iv = ival_poly(S, poly_of(S, d), 0);
  return (iv.has_lo && iv.lo > 0) || (iv.has_hi && iv.hi < 0);
}

/* One rebuilt node (arguments already normalised) brought to normal form. */
static T rewrite(Simp *S, T t) {
  AxTermCtx *tc = S->tc;
  AxTermKind k = ax_term_kind(t);
  switch (k) {
  case AX_TERM_ADD:
  case AX_TERM_SUB:
  case AX_TERM_MUL:
  case AX_TERM_NEG:
    return ax_term_sort(t) == AX_SORT_INT ? poly_term(S, poly_of(S, t)) : t;
  case AX_TERM_DIV:
  case AX_TERM_MOD: {
    /* a = d·Q + R: a mod d = R mod d for every d (for d = 0 too: then a and R are equal,
     * and SMT-LIB's mod by 0 is a function of the dividend); a div d = Q + R div d needs
     * d != 0, and so does R = 0 giving a mod d = 0 */
    T d = ax_term_arg(t, 1);
    Poly *pd = poly_of(S, d), *q, *r;
    if (pd->n == 0 || !poly_divrem(S, poly_of(S, ax_term_arg(t, 0)), pd, &q, &r) || q->n == 0)
      return t;
    bool nz = nonzero(S, d);
    if (k == AX_TERM_MOD) {
      if (r->n > 0) return ax_term_mk_mod(tc, poly_term(S, r), d);
      return nz ? ax_term_mk_int_si(tc, 0) : t;
    }
    if (!nz) return t;
    if (r->n == 0) return poly_term(S, q);
    Poly *sum = poly_add(S, q, poly_atom(S, ax_term_mk_div(tc, poly_term(S, r), d)), 1);
    return sum ? poly_term(S, sum) : t;
  }
  case AX_TERM_ABS: {
    if (!S->use_bounds || ax_term_sort(t) != AX_SORT_INT) return t;
    Poly *x = poly_of(S, ax_term_arg(t, 0));
    Ival iv = ival_poly(S, x, 0);
    if (iv.has_lo && iv.lo >= 0) return ax_term_arg(t, 0);
    if (iv.has_hi && iv.hi <= 0) return poly_term(S, poly_scale(S, x, -1));
    return t;
  }
  case AX_TERM_LT:
  case AX_TERM_LE:
  case AX_TERM_EQ: {
    if (!S->use_bounds || ax_term_sort(ax_term_arg(t, 0)) != AX_SORT_INT) return t;
    Poly *d = poly_add(S, poly_of(S, ax_term_arg(t, 1)), poly_of(S, ax_term_arg(t, 0)), -1);
    if (!d) return t;
    Ival iv = ival_poly(S, d, 0);   /* of b - a */
    int64_t need = k == AX_TERM_LT ? 1 : 0;
    if (k != AX_TERM_EQ && iv.has_lo && iv.lo >= need) return ax_term_mk_true(tc);
    if (k != AX_TERM_EQ && iv.has_hi && iv.hi < need) return ax_term_mk_false(tc);
    if (k == AX_TERM_EQ && ((iv.has_lo && iv.lo > 0) || (iv.has_hi && iv.hi < 0)))
      return ax_term_mk_false(tc);
    return t;
  }
  default:
    return t;
  }
}

static void norm_visit(const AxTerm *t, void *data) {
  Simp *S = data;
  size_t n = ax_term_nargs(t);
  T r = t;
  if (n > 0) {
    T *args = ax_arena_alloc(S->a, n * sizeof *args);
    bool same = true;
    for (size_t i = 0; i < n; i++) {
      args[i] = S->memo[ax_term_id(ax_term_arg(t, i))];
      same = same && args[i] == ax_term_arg(t, i);
    }
    if (!same)
      r = ax_term_kind(t) == AX_TERM_APP ? ax_term_mk_app(S->tc, ax_term_app_func(t), n, args)
                                         : ax_term_mk(S->tc, ax_term_kind(t), n, args);
  }
  S->memo[ax_term_id(t)] = rewrite(S, r);
}

/* Normal forms of roots[0..n) in place, with or without the bounds. */
static void normalize(Simp *S, T *roots, size_t n, bool use_bounds) {
  S->use_bounds = use_bounds;
  S->memo_n = ax_term_ctx_size(S->tc);
  S->memo = ax_xcalloc(S->memo_n + 1, sizeof *S->memo);
  ax_term_postorder(S->tc, roots, n, norm_visit, S);
  for (size_t i = 0; i < n; i++) roots[i] = S->memo[ax_term_id(roots[i])];
  free(S->memo);
  S->memo = NULL;
}

static void push_conjuncts(Simp *S, T f, AxVec *out) {
  AxTermKind k = ax_term_kind(f);
  if (k == AX_TERM_AND) {
    for (size_t i = 0; i < ax_term_nargs(f); i++) push_conjuncts(S, ax_term_arg(f, i), out);
  } else if (k == AX_TERM_NOT && ax_term_kind(ax_term_arg(f, 0)) == AX_TERM_OR) {
    T o = ax_term_arg(f, 0);   /* not (a or b) = not a and not b */
    for (size_t i = 0; i < ax_term_nargs(o); i++)
      push_conjuncts(S, ax_term_mk_not(S->tc, ax_term_arg(o, i)), out);
  } else {
    ax_vec_push(S->a, out, (void *)f);
  }
}

/* The top-level conjuncts of f, in order, through nested `and` and negated `or`. */
static T *conjuncts(Simp *S, T f, size_t *n) {
  AxVec v = {0};
  push_conjuncts(S, f, &v);
  *n = v.len;
  return (T *)v.items;
}

/* S->bounds := the bounds stated by the conjuncts c[j] with src[j], j != skip. */
static void collect_bounds(Simp *S, const T *c, const bool *src, size_t n, size_t skip) {
  S->bounds = (AxVec){0};
  for (size_t j = 0; j < n; j++)
    if (src[j] && j != skip) bound_from(S, c[j]);
}

static bool pred_nonpolynomial(const AxTerm *t, void *unused) {
  (void)unused;
  AxTermKind k = ax_term_kind(t);
  return k == AX_TERM_ITE || k == AX_TERM_DIV || k == AX_TERM_MOD;
}

/* One round: every conjunct in normal form, then simplified with the bounds the others
 * state. A conjunct that states a bound is simplified only with the bounds of the others,
 * one after the other, each seeing the earlier ones as already simplified: every step
 * replaces a conjunct by one equivalent to it given the rest, so the conjunction keeps its
 * meaning (two copies of one bound cannot both vanish). The watch terms are simplified
 * with all the bounds. */
static T normalize_all(Simp *S, T f, T *watch, size_t nwatch) {
  size_t n;
  T *c = conjuncts(S, f, &n);
  normalize(S, c, n, false);
  bool *src = ax_arena_alloc(S->a, n * sizeof *src);
  S->bounds = (AxVec){0};
  for (size_t i = 0; i < n; i++) src[i] = bound_from(S, c[i]);
  T *rest = ax_arena_alloc(S->a, (n + nwatch) * sizeof *rest);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!src[i]) rest[m++] = c[i];
  for (size_t i = 0; i < nwatch; i++) rest[m++] = watch[i];
  normalize(S, rest, m, true);
  m = 0;
  for (size_t i = 0; i < n; i++)
    if (!src[i]) c[i] = rest[m++];
  for (size_t i = 0; i < nwatch; i++) watch[i] = rest[m++];
  AxVec found = {0};
  for (size_t i = 0; i < n; i++) {
    if (!src[i]) continue;
    found.len = 0;
    if (!ax_term_collect(S->tc, &c[i], 1, pred_nonpolynomial, NULL, S->a, &found)) continue;
    collect_bounds(S, c, src, n, i);
    normalize(S, &c[i], 1, true);
  }
  collect_bounds(S, c, src, n, n);   /* for find_divisibility */
  return ax_term_mk_and(S->tc, n, c);
}

/* --- Divisibility elimination ------------------------------------------------------------ */

typedef struct Occ {
  T v;
  bool found;
} Occ;

static void occ_visit(const AxTerm *t, void *data) {
  Occ *o = data;
  if (t == o->v) o->found = true;
}

static bool occurs(Simp *S, T v, T t) {
  Occ o = {v, false};
  ax_term_postorder(S->tc, &t, 1, occ_visit, &o);
  return o.found;
}

/* A fresh integer variable "q!N" that is no variable of f or the watch terms. */
static T fresh(Simp *S, T f, const T *watch, size_t nwatch, unsigned *seq) {
  for (;;) {
    char name[32];
    snprintf(name, sizeof name, "q!%u", ++*seq);
    T q = ax_term_mk_var(S->tc, name, AX_SORT_INT);
    bool used = occurs(S, q, f);
    for (size_t i = 0; !used && i < nwatch; i++) used = occurs(S, q, watch[i]);
    if (!used) return q;
  }
}

/* A variable v with p = s·v + R (s = ±1) and v nowhere in R or in `avoid` (may be NULL);
 * *rest receives R. NULL when p has none. */
static T unit_var(Simp *S, const Poly *p, T avoid, int64_t *s, Poly **rest) {
  for (uint32_t j = 0; j < p->n; j++) {
    const Mono *m = &p->m[j];
    if (m->n != 1 || (m->c != 1 && m->c != -1) || ax_term_kind(m->a[0]) != AX_TERM_VAR ||
        (avoid && occurs(S, m->a[0], avoid)))
      continue;
    Poly *r = poly_add(S, p, poly_scale(S, poly_atom(S, m->a[0]), m->c), -1);
    if (!r || occurs(S, m->a[0], poly_term(S, r))) continue;
    *s = m->c;
    *rest = r;
    return m->a[0];
  }
  return NULL;
}

/* Finds a top-level conjunct that determines a variable, and sets *v and *e so that
 * substituting e for v keeps the formula equisatisfiable:
 *  - an integer equation a = b with a - b = s·v + R: v := -s·R;
 *  - `a mod d = 0` with d non-zero and a = s·v + R: v := s·(d·q - R), q fresh. */
static bool find_elimination(Simp *S, T f, const T *watch, size_t nwatch, unsigned *seq,
                             T *v, T *e) {
  size_t n;
  T *c = conjuncts(S, f, &n);
  T zero = ax_term_mk_int_si(S->tc, 0);
  S->use_bounds = true;
  for (size_t i = 0; i < n; i++) {   /* equations first: they need no fresh variable */
    if (ax_term_kind(c[i]) != AX_TERM_EQ || ax_term_sort(ax_term_arg(c[i], 0)) != AX_SORT_INT)
      continue;
    T x = ax_term_arg(c[i], 0), y = ax_term_arg(c[i], 1);
    if (ax_term_kind(x) == AX_TERM_MOD || ax_term_kind(y) == AX_TERM_MOD) continue;
    Poly *p = poly_add(S, poly_of(S, x), poly_of(S, y), -1), *rest;
    int64_t s;
    if (!p || !(*v = unit_var(S, p, NULL, &s, &rest))) continue;
    *e = poly_term(S, poly_scale(S, rest, -s));
    return true;
  }
  for (size_t i = 0; i < n; i++) {
    if (ax_term_kind(c[i]) != AX_TERM_EQ) continue;
    T x = ax_term_arg(c[i], 0), y = ax_term_arg(c[i], 1);
    if (x == zero) x = y, y = zero;
    if (y != zero || ax_term_kind(x) != AX_TERM_MOD) continue;
    T a = ax_term_arg(x, 0), d = ax_term_arg(x, 1);
    if (!nonzero(S, d)) continue;
    Poly *rest;
    int64_t s;
    if (!(*v = unit_var(S, poly_of(S, a), d, &s, &rest))) continue;
    T q = fresh(S, f, watch, nwatch, seq);
    Poly *dq = poly_mul(S, poly_of(S, d), poly_atom(S, q));
    Poly *sol = dq ? poly_add(S, dq, rest, -1) : NULL;
    if (!sol) continue;
    *e = poly_term(S, poly_scale(S, sol, s));
    return true;
  }
  return false;
}

/* --- Facts of products ---------------------------------------------------------------- */

/* The index arithmetic of windows multiplies a bounded index by a non-negative amount: a
 * dilated kernel position j·(p + 1) against its extent (k - 1)·(p + 1) + 1, an input
 * position q·ld against (n - 1)·ld. That j ≤ k - 1 gives j·p ≤ (k - 1)·p is one
 * multiplication for a person and a nonlinear inference z3 and cvc5 search for (z3 took
 * 1-2 s on conv_01's surjectivity, 0.08 s with the fact). window_facts states such
 * products of the formula's own bounds, each implied by the formula's top-level conjuncts:
 *  - P·a ≥ 0 for a top-level bound P ≥ 0 of degree 1 (x < y gives y - x - 1 ≥ 0) and an
 *    atom a the bounds make non-negative, when P·a has a monomial the formula has (only
 *    products the query mentions; at most MAX_FACTS);
 *  - Q ≥ 0 (Q ≥ 1) for a top-level bound a·Q ≥ 0 (a·Q ≥ 1) where every monomial has the
 *    atom a with a ≥ 1: a > 0 divides out (Q is an integer, so Q > 0 is Q ≥ 1).
 * Conjoining what the formula implies changes neither its models nor whether it has one. */
enum { MAX_FACTS = 32 };

/* The canonical term of monomial m without its coefficient. */
static T mono_key(Simp *S, const Mono *m) {
  Poly p = {1, (Mono[]){{1, m->n, m->a}}};
  return poly_term(S, &p);
}

static bool pred_int_product(const AxTerm *t, void *unused) {
  (void)unused;
  return ax_term_kind(t) == AX_TERM_MUL && ax_term_sort(t) == AX_SORT_INT;
}

/* p ≥ 0 from a top-level conjunct comparing integers (not equations); NULL for others. */
static Poly *nonneg_of(Simp *S, T lit) {
  bool neg = ax_term_kind(lit) == AX_TERM_NOT;
  if (neg) lit = ax_term_arg(lit, 0);
  AxTermKind k = ax_term_kind(lit);
  if ((k != AX_TERM_LE && k != AX_TERM_LT) || ax_term_sort(ax_term_arg(lit, 0)) != AX_SORT_INT)
    return NULL;
  /* d = b - a: a <= b is d >= 0, a < b is d - 1 >= 0, not (a <= b) is -d - 1 >= 0, not
   * (a < b) is -d >= 0 */
  Poly *d = poly_add(S, poly_of(S, ax_term_arg(lit, 1)), poly_of(S, ax_term_arg(lit, 0)), -1);
  if (!d) return NULL;
  if (neg) d = poly_scale(S, d, -1);
  if ((k == AX_TERM_LT) != neg) d = poly_add(S, d, poly_const(S, 1), -1);
  return d;
}

static bool has_item(const AxVec *v, const void *x) {
  for (size_t i = 0; i < v->len; i++)
    if (v->items[i] == x) return true;
  return false;
}

/* An atom of every monomial of p that the bounds put at 1 or above; NULL if none. */
static T positive_factor(Simp *S, const Poly *p) {
  if (p->n == 0 || p->m[0].n == 0) return NULL;
  for (uint32_t j = 0; j < p->m[0].n; j++) {
    T a = p->m[0].a[j];
    bool all = true;
    for (uint32_t i = 1; i < p->n && all; i++) {
      all = false;
      for (uint32_t l = 0; l < p->m[i].n; l++) all |= p->m[i].a[l] == a;
    }
    Ival iv = ival_atom(S, a, 0);
    if (all && iv.has_lo && iv.lo >= 1) return a;
  }
  return NULL;
}

/* p with one factor a taken out of every monomial (positive_factor found a in each). */
static Poly *divide_out(Simp *S, const Poly *p, T a) {
  Poly *r = poly_new(S, p->n);
  for (uint32_t i = 0; i < p->n; i++) {
    Mono m = {p->m[i].c, p->m[i].n - 1, ax_arena_alloc(S->a, p->m[i].n * sizeof(T))};
    uint32_t k = 0;
    bool dropped = false;
    for (uint32_t l = 0; l < p->m[i].n; l++) {
      if (!dropped && p->m[i].a[l] == a) dropped = true;
      else m.a[k++] = p->m[i].a[l];
    }
    r->m[r->n++] = m;
  }
  qsort(r->m, r->n, sizeof *r->m, mono_cmp_desc);   /* removing one atom keeps no order */
  return r;
}

/* f with the facts above conjoined (f itself when there are none). */
static T window_facts(Simp *S, T f) {
  AxTermCtx *tc = S->tc;
  size_t n;
  T *c = conjuncts(S, f, &n);
  S->bounds = (AxVec){0};
  for (size_t i = 0; i < n; i++) bound_from(S, c[i]);
  /* the monomials of degree >= 2 the formula mentions, and their non-negative atoms */
  AxVec prods = {0}, keys = {0}, atoms = {0};
  ax_term_collect(tc, &f, 1, pred_int_product, NULL, S->a, &prods);
  for (size_t i = 0; i < prods.len; i++) {
    Poly *p = poly_of(S, prods.items[i]);
    for (uint32_t j = 0; j < p->n; j++) {
      if (p->m[j].n < 2) continue;
      T key = mono_key(S, &p->m[j]);
      if (!has_item(&keys, key)) ax_vec_push(S->a, &keys, (void *)key);
      for (uint32_t l = 0; l < p->m[j].n; l++) {
        T a = p->m[j].a[l];
        Ival iv = ival_atom(S, a, 0);
        if (iv.has_lo && iv.lo >= 0 && !has_item(&atoms, a)) ax_vec_push(S->a, &atoms, (void *)a);
      }
    }
  }
  T zero = ax_term_mk_int_si(tc, 0), one = ax_term_mk_int_si(tc, 1);
  AxVec facts = {0};
  for (size_t i = 0; i < n && facts.len < MAX_FACTS; i++) {
    Poly *p = nonneg_of(S, c[i]);
    if (!p || p->n == 0) continue;
    int64_t k;
    Poly *q = poly_split(S, p, &k);   /* p = q + k >= 0 */
    T a = k <= 0 ? positive_factor(S, q) : NULL;
    if (a) {   /* a·Q >= -k with a >= 1: Q >= 0, and Q >= 1 when -k > 0 */
      T fact = ax_term_mk_le(tc, k == 0 ? zero : one, poly_term(S, divide_out(S, q, a)));
      if (!has_item(&facts, fact)) ax_vec_push(S->a, &facts, (void *)fact);
    }
    bool linear = true;
    for (uint32_t j = 0; j < p->n; j++) linear = linear && p->m[j].n <= 1;
    if (!linear) continue;
    for (size_t j = 0; j < atoms.len && facts.len < MAX_FACTS; j++) {
      Poly *pa = poly_mul(S, p, poly_atom(S, atoms.items[j]));
      bool mentioned = false;
      for (uint32_t l = 0; pa && l < pa->n && !mentioned; l++)
        mentioned = pa->m[l].n >= 2 && has_item(&keys, mono_key(S, &pa->m[l]));
      if (!mentioned) continue;
      T fact = ax_term_mk_le(tc, zero, poly_term(S, pa));
      if (!has_item(&facts, fact)) ax_vec_push(S->a, &facts, (void *)fact);
    }
  }
  if (S->overflow || facts.len == 0) return f;
  return ax_term_mk_and2(tc, f, ax_term_mk_and(tc, facts.len, (const AxTerm *const *)facts.items));
}

/* --- Entry points --------------------------------------------------------------------------- */

static bool pred_symbolic_division(const AxTerm *t, void *unused) {
  (void)unused;
  AxTermKind k = ax_term_kind(t);
  return (k == AX_TERM_DIV || k == AX_TERM_MOD) &&
         ax_term_kind(ax_term_arg(t, 1)) != AX_TERM_INT;
}

static bool pred_nonlinear_product(const AxTerm *t, void *unused) {
  (void)unused;
  if (ax_term_kind(t) != AX_TERM_MUL || ax_term_sort(t) != AX_SORT_INT) return false;
  size_t vars = 0;
  for (size_t i = 0; i < ax_term_nargs(t); i++) vars += !ax_term_is_const(ax_term_arg(t, i));
  return vars >= 2;
}

static bool has_symbolic_division(const AxTermCtx *tc, const AxTerm *formula) {
  AxArena *a = ax_arena_new();
  AxVec found = {0};
  size_t n = ax_term_collect(tc, &formula, 1, pred_symbolic_division, NULL, a, &found);
  ax_arena_free(a);
  return n > 0;
}

bool ax_arith_wanted(const AxTermCtx *tc, const AxTerm *formula) {
  AxArena *a = ax_arena_new();
  AxVec found = {0};
  size_t n = ax_term_collect(tc, &formula, 1, pred_symbolic_division, NULL, a, &found);
  if (n == 0) n = ax_term_collect(tc, &formula, 1, pred_nonlinear_product, NULL, a, &found);
  ax_arena_free(a);
  return n > 0;
}

const AxTerm *ax_arith_simplify(AxTermCtx *tc, const AxTerm *formula,
                                const AxTerm *const *watch, size_t nwatch,
                                const AxTerm **watch_out, unsigned *eliminated) {
  Simp S = {.tc = tc, .a = ax_arena_new()};
  T *w = ax_arena_alloc(S.a, (nwatch + 1) * sizeof *w);
  for (size_t i = 0; i < nwatch; i++) w[i] = watch[i];
  unsigned seq = 0, count = 0;
  T f = formula;
  /* Rounds until nothing changes: a round can expose new top-level conjuncts (a negated
   * conjunction whose bounds are decided becomes a negated disjunction) */
  for (int round = 0; round < MAX_ROUNDS && !S.overflow; round++) {
    T g = normalize_all(&S, f, w, nwatch);
    T v, e;
    if (S.overflow) break;
    if (find_elimination(&S, g, w, nwatch, &seq, &v, &e)) {
      f = ax_term_subst(tc, g, 1, &v, &e);
      for (size_t i = 0; i < nwatch; i++) w[i] = ax_term_subst(tc, w[i], 1, &v, &e);
      count++;
      continue;
    }
    if (g == f) break;
    f = g;
  }
  if (S.overflow) {
    f = formula;
    count = 0;
  }
  for (size_t i = 0; i < nwatch; i++) watch_out[i] = S.overflow ? watch[i] : w[i];
  if (eliminated) *eliminated = count;
  ax_arena_free(S.a);
  return f;
}

const AxTerm *ax_arith_window_facts(AxTermCtx *tc, const AxTerm *formula) {
  Simp S = {.tc = tc, .a = ax_arena_new()};
  T f = window_facts(&S, formula);
  if (S.overflow) f = formula;   /* a fact's coefficient past int64: no facts */
  ax_arena_free(S.a);
  return f;
}

const AxTerm *ax_arith_normal(AxTermCtx *tc, const AxTerm *t) {
  Simp S = {.tc = tc, .a = ax_arena_new()};
  T r = t;
  normalize(&S, &r, 1, false);
  if (S.overflow) r = t;
  ax_arena_free(S.a);
  return r;
}

/* --- Case splits ------------------------------------------------------------------------ */

typedef struct AbsFind {
  const AxTermCtx *tc;
  T found;   /* the argument of the first integer |x| (x not constant) */
  T cond;    /* the condition of the first integer ite inside a div or mod argument */
} AbsFind;

static void find_ite(const AxTerm *t, void *data) {
  AbsFind *f = data;
  if (!f->cond && ax_term_kind(t) == AX_TERM_ITE && ax_term_sort(t) == AX_SORT_INT)
    f->cond = ax_term_arg(t, 0);
}

/* Postorder, so the ite found is an innermost one. Each division's arguments are walked
 * again; the queries are small. */
static void abs_visit(const AxTerm *t, void *data) {
  AbsFind *f = data;
  AxTermKind k = ax_term_kind(t);
  if (!f->found && k == AX_TERM_ABS && ax_term_sort(t) == AX_SORT_INT &&
      !ax_term_is_const(ax_term_arg(t, 0)))
    f->found = ax_term_arg(t, 0);
  if (!f->cond && (k == AX_TERM_DIV || k == AX_TERM_MOD)) {
    T args[2] = {ax_term_arg(t, 0), ax_term_arg(t, 1)};
    ax_term_postorder(f->tc, args, 2, find_ite, f);
  }
}

size_t ax_arith_split(AxTermCtx *tc, const AxTerm *formula, const AxTerm **out, size_t max) {
  if (max < 2 || !has_symbolic_division(tc, formula)) return 0;
  Simp S = {.tc = tc, .a = ax_arena_new()};
  size_t n, k = 0;
  T *c = conjuncts(&S, formula, &n);
  for (size_t i = 0; i < n && k == 0; i++) {
    /* a disjunction: one case per disjunct, which replaces it (every copy of it) */
    T d = c[i];
    if (ax_term_kind(d) != AX_TERM_OR || ax_term_nargs(d) > max) continue;
    T *ci = ax_arena_alloc(S.a, n * sizeof *ci);
    for (k = 0; k < ax_term_nargs(d); k++) {
      for (size_t j = 0; j < n; j++) ci[j] = c[j] == d ? ax_term_arg(d, k) : c[j];
      out[k] = ax_term_mk_and(tc, n, ci);
    }
  }
  AbsFind f = {tc, NULL, NULL};
  if (k == 0) ax_term_postorder(tc, &formula, 1, abs_visit, &f);
  if (k == 0 && f.found) {   /* |x| of unknown sign: x >= 0, x < 0 */
    T zero = ax_term_mk_int_si(tc, 0);
    out[k++] = ax_term_mk_and2(tc, formula, ax_term_mk_le(tc, zero, f.found));
    out[k++] = ax_term_mk_and2(tc, formula, ax_term_mk_lt(tc, f.found, zero));
  }
  if (k == 0 && f.cond) {   /* an integer ite inside a division: its condition, both ways */
    out[k++] = ax_term_mk_and2(tc, formula, f.cond);
    out[k++] = ax_term_mk_and2(tc, formula, ax_term_mk_not(tc, f.cond));
  }
  ax_arena_free(S.a);
  return k;
}
