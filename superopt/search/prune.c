/* prune.c — hash-consed abstract expressions in normal form; subexpression decisions. */
#include "superopt/search/prune.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

/* ORDER KIND. K_UF: an uninterpreted function of its one or two arguments (sorted when the
 * operator commutes), the operator in n (sqrt, silu, max: AX_EWOP_ABS_OPAQUE; select: a
 * masked select of the program, 1 + its number in d). */
enum { K_ONE, K_VAR, K_ADD, K_MUL, K_SUM, K_EXP, K_UF, K_CONST };

typedef struct Term {
  int kind;
  int64_t n;          /* VAR: input; SUM: size; UF: the AxOp; CONST: numerator */
  int64_t d;          /* CONST: denominator (> 0, coprime with n); UF of a max or min: the
                         size it reduces; UF of a masked select: 1 + its number; 0 otherwise */
  int nargs;
  size_t args;        /* offset into the pool: nargs term ids, then (MUL) nargs exponents */
  uint32_t hash;
  int8_t sub;         /* 0 unknown, 1 subexpression of the spec, 2 not */
} Term;

struct AxAbs {
  Term *terms;
  int nterms, cap;
  int *pool;
  size_t npool, cappool;
  int *slots;         /* open addressing: term id + 1, 0 empty */
  size_t nslots;
  int *spec;          /* spec nodes (closure of the outputs) */
  int nspec;
  long computed, cached;
};

AxAbs *ax_prune_new(void) {
  AxAbs *t = calloc(1, sizeof *t);
  t->nslots = 1 << 12;
  t->slots = calloc(t->nslots, sizeof(int));
  return t;
}

void ax_prune_free(AxAbs *t) {
  if (!t) return;
  free(t->terms);
  free(t->pool);
  free(t->slots);
  free(t->spec);
  free(t);
}

void ax_prune_stats(const AxAbs *t, long *computed, long *cached) {
  *computed = t->computed;
  *cached = t->cached;
}

static const int *args(const AxAbs *t, const Term *x) { return t->pool + x->args; }
static const int *exps(const AxAbs *t, const Term *x) { return t->pool + x->args + x->nargs; }

static uint32_t mix(uint32_t h, uint64_t v) {
  h ^= (uint32_t)(v ^ (v >> 32));
  return h * 0x9E3779B1u + 0x7F4A7C15u;
}

static uint32_t hash_of(int kind, int64_t n, int64_t d, const int *a, const int *e, int na) {
  uint32_t h = mix(2166136261u, (uint64_t)kind);
  h = mix(h, (uint64_t)n);
  h = mix(h, (uint64_t)d);
  for (int i = 0; i < na; i++) h = mix(h, (uint64_t)a[i]);
  if (e)
    for (int i = 0; i < na; i++) h = mix(h, (uint64_t)(int64_t)e[i]);
  return h;
}

static void rehash(AxAbs *t) {
  free(t->slots);
  t->nslots *= 2;
  t->slots = calloc(t->nslots, sizeof(int));
  for (int i = 0; i < t->nterms; i++) {
    size_t s = t->terms[i].hash & (t->nslots - 1);
    while (t->slots[s]) s = (s + 1) & (t->nslots - 1);
    t->slots[s] = i + 1;
  }
}

/* The unique term (kind, n, a[, e]); a and e already in canonical order. */
static int mkd(AxAbs *t, int kind, int64_t n, int64_t d, const int *a, const int *e, int na) {
  uint32_t h = hash_of(kind, n, d, a, e, na);
  size_t s = h & (t->nslots - 1);
  for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
    const Term *x = &t->terms[t->slots[s] - 1];
    if (x->hash != h || x->kind != kind || x->n != n || x->d != d || x->nargs != na) continue;
    if (na && memcmp(args(t, x), a, sizeof(int) * (size_t)na)) continue;
    if (e && na && memcmp(exps(t, x), e, sizeof(int) * (size_t)na)) continue;
    return t->slots[s] - 1;
  }
  if (t->nterms == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    t->terms = realloc(t->terms, sizeof(Term) * (size_t)t->cap);
  }
  size_t need = (size_t)na * (e ? 2 : 1);
  if (t->npool + need > t->cappool) {
    while (t->npool + need > t->cappool) t->cappool = t->cappool ? t->cappool * 2 : 1024;
    t->pool = realloc(t->pool, sizeof(int) * t->cappool);
  }
  Term *x = &t->terms[t->nterms];
  *x = (Term){kind, n, d, na, t->npool, h, 0};
  if (na) memcpy(t->pool + t->npool, a, sizeof(int) * (size_t)na);
  if (e && na) memcpy(t->pool + t->npool + na, e, sizeof(int) * (size_t)na);
  t->npool += need;
  int id = t->nterms++;
  t->slots[s] = id + 1;
  if ((size_t)t->nterms * 2 > t->nslots) rehash(t);
  return id;
}

static int mk(AxAbs *t, int kind, int64_t n, const int *a, const int *e, int na) {
  return mkd(t, kind, n, 0, a, e, na);
}

static int one(AxAbs *t) { return mk(t, K_ONE, 0, NULL, NULL, 0); }

/* --- exact rational constants ---------------------------------------------------------- */

static int64_t gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  while (b) {
    int64_t r = a % b;
    a = b, b = r < 0 ? -r : r;
  }
  return a;
}

/* num/den in lowest terms with den > 0; false when it does not fit (or den is 0). */
static bool rat(__int128 num, __int128 den, int64_t *on, int64_t *od) {
  if (den == 0) return false;
  if (den < 0) num = -num, den = -den;
  __int128 a = num < 0 ? -num : num, b = den;
  while (b) {
    __int128 r = a % b;
    a = b, b = r;
  }
  if (a > 1) num /= a, den /= a;
  if (num > INT64_MAX || num < -INT64_MAX || den > INT64_MAX) return false;
  *on = (int64_t)num, *od = (int64_t)den;
  return true;
}

/* The constant num/den: one term per value (1 is K_ONE). pre: den != 0. */
static int konst(AxAbs *t, int64_t num, int64_t den) {
  int64_t g = gcd(num, den);
  if (g > 1) num /= g, den /= g;
  if (den < 0) num = -num, den = -den;
  if (num == 1 && den == 1) return one(t);
  return mkd(t, K_CONST, num, den, NULL, NULL, 0);
}

static bool is_const(const Term *x) { return x->kind == K_ONE || x->kind == K_CONST; }
static int64_t cnum(const Term *x) { return x->kind == K_ONE ? 1 : x->n; }
static int64_t cden(const Term *x) { return x->kind == K_ONE ? 1 : x->d; }

AxAId ax_prune_const(AxAbs *t, AxRat c) {
  if (c.den == 0) return -1;
  return konst(t, c.num, c.den);
}

bool ax_prune_const_value(const AxAbs *t, AxAId e, AxRat *out) {
  if (e < 0 || !is_const(&t->terms[e])) return false;
  *out = (AxRat){cnum(&t->terms[e]), cden(&t->terms[e])};
  return true;
}

AxAId ax_prune_var(AxAbs *t, int input) { return mk(t, K_VAR, input, NULL, NULL, 0); }

AxAId ax_prune_sum(AxAbs *t, int64_t n, AxAId x) {
  if (x < 0) return -1;
  const Term *b = &t->terms[x];
  if (n == 1) return x;                                           /* eq_sum_one */
  if (b->kind == K_SUM) {                                         /* eq_sum_sum */
    int inner = args(t, b)[0];
    return mk(t, K_SUM, n * b->n, &inner, NULL, 1);
  }
  return mk(t, K_SUM, n, &x, NULL, 1);
}

typedef struct {
  int *a, *e;
  int n, cap;
  int64_t cn, cd;     /* the product's constant factor cn/cd (eq_const_mul) */
} Fac;

static void fac_add(Fac *f, int id, int e) {
  for (int i = 0; i < f->n; i++)
    if (f->a[i] == id) {
      f->e[i] += e;
      return;
    }
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 8;
    f->a = realloc(f->a, sizeof(int) * (size_t)f->cap);
    f->e = realloc(f->e, sizeof(int) * (size_t)f->cap);
  }
  f->a[f->n] = id;
  f->e[f->n++] = e;
}

/* A product c·rest with c its folded constant factor: true with *c and *rest. */
static bool split_const(AxAbs *t, int x, int *c, int *rest) {
  const Term *b = &t->terms[x];
  if (b->kind != K_MUL) return false;
  int k = -1, na = b->nargs;
  for (int i = 0; i < na; i++)
    if (t->terms[args(t, b)[i]].kind == K_CONST && exps(t, b)[i] == 1) k = i;
  if (k < 0) return false;
  *c = args(t, b)[k];
  if (na == 2 && exps(t, b)[1 - k] == 1) {
    *rest = args(t, b)[1 - k];
    return true;
  }
  int a[64], e[64], m = 0;
  for (int i = 0; i < na && m < 64; i++)
    if (i != k) a[m] = args(t, &t->terms[x])[i], e[m] = exps(t, &t->terms[x])[i], m++;
  *rest = mk(t, K_MUL, 0, a, e, m);
  return true;
}

/* Flattens factor x^e into f; sums with exponent 1 are pulled out (their sizes
 * multiplied into *sz). */
static void flatten(AxAbs *t, Fac *f, int x, int e, int64_t *sz) {
  const Term *b = &t->terms[x];
  if (b->kind == K_ONE) return;
  if (b->kind == K_CONST) {                           /* eq_const_mul, eq_const_div */
    __int128 pn = 1, pd = 1;
    int64_t bn = e > 0 ? b->n : b->d, bd = e > 0 ? b->d : b->n;
    bool ok = bd != 0 && abs(e) <= 4;
    for (int i = 0; ok && i < abs(e); i++) {
      pn *= bn, pd *= bd;
      ok = pn <= INT64_MAX && pn >= -INT64_MAX && pd <= INT64_MAX && pd >= -INT64_MAX;
    }
    int64_t rn, rd;
    if (ok && rat((__int128)f->cn * pn, (__int128)f->cd * pd, &rn, &rd)) {
      f->cn = rn, f->cd = rd;
      return;
    }
    fac_add(f, x, e);                                 /* too large to fold: kept as a factor */
    return;
  }
  if (b->kind == K_MUL) {
    int na = b->nargs;
    for (int i = 0; i < na; i++) flatten(t, f, args(t, &t->terms[x])[i], e * exps(t, &t->terms[x])[i], sz);
    return;
  }
  if (b->kind == K_SUM && e == 1) {                   /* eq_sum_mul, eq_sum_div */
    *sz *= b->n;
    flatten(t, f, args(t, b)[0], 1, sz);
    return;
  }
  if (b->kind == K_SUM) {                             /* eq_sum_scale, from right to left */
    int c, rest;
    int64_t n = b->n;
    if (split_const(t, args(t, b)[0], &c, &rest)) {
      flatten(t, f, c, e, sz);
      fac_add(f, ax_prune_sum(t, n, rest), e);
      return;
    }
  }
  fac_add(f, x, e);
}

static int from_factors(AxAbs *t, Fac *f, int64_t sz) {
  /* drop zero exponents, sort by id */
  int m = 0;
  for (int i = 0; i < f->n; i++)
    if (f->e[i]) f->a[m] = f->a[i], f->e[m] = f->e[i], m++;
  f->n = m;
  if (f->cn != f->cd) {                               /* the folded constant, one factor */
    if (f->n == f->cap) {
      f->cap = f->cap ? f->cap * 2 : 8;
      f->a = realloc(f->a, sizeof(int) * (size_t)f->cap);
      f->e = realloc(f->e, sizeof(int) * (size_t)f->cap);
    }
    f->a[m] = konst(t, f->cn, f->cd);
    f->e[m++] = 1;
    f->n = m;
  }
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && f->a[j - 1] > f->a[j]; j--) {
      int x = f->a[j]; f->a[j] = f->a[j - 1]; f->a[j - 1] = x;
      x = f->e[j]; f->e[j] = f->e[j - 1]; f->e[j - 1] = x;
    }
  int r;
  if (m == 0) r = one(t);
  else if (m == 1 && f->e[0] == 1) r = f->a[0];
  else r = mk(t, K_MUL, 0, f->a, f->e, m);
  return ax_prune_sum(t, sz, r);
}

static int mul_pow(AxAbs *t, int a, int ea, int b, int eb) {
  Fac f = {0};
  f.cn = f.cd = 1;
  int64_t sz = 1;
  flatten(t, &f, a, ea, &sz);
  if (b >= 0) flatten(t, &f, b, eb, &sz);
  int r = from_factors(t, &f, sz);
  free(f.a);
  free(f.e);
  return r;
}

AxAId ax_prune_mul(AxAbs *t, AxAId a, AxAId b) {
  if (a < 0 || b < 0) return -1;
  return mul_pow(t, a, 1, b, 1);
}

static int add(AxAbs *t, int a, int b) {
  int buf[64], n = 0;
  int xs[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    const Term *x = &t->terms[xs[k]];
    if (x->kind == K_ADD) {
      for (int i = 0; i < x->nargs && n < 64; i++) buf[n++] = args(t, x)[i];
    } else if (n < 64) {
      buf[n++] = xs[k];
    }
  }
  /* eq_const_add: the constants of an addition are added; a zero term is dropped
   * (eq_add_zero) */
  {
    int64_t cn = 0, cd = 1;
    int m = 0;
    for (int i = 0; i < n; i++) {
      const Term *x = &t->terms[buf[i]];
      int64_t rn, rd;
      if (is_const(x) && rat((__int128)cn * cden(x) + (__int128)cnum(x) * cd, (__int128)cd * cden(x), &rn, &rd))
        cn = rn, cd = rd;
      else
        buf[m++] = buf[i];
    }
    n = m;
    if (cn != 0 || n == 0) buf[n++] = konst(t, cn, cd);
  }
  /* eq_sum_add: two sums of one size are one sum of the addition */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      const Term *x = &t->terms[buf[i]], *y = &t->terms[buf[j]];
      if (x->kind == K_SUM && y->kind == K_SUM && x->n == y->n) {
        int64_t sz = x->n;
        int s = ax_prune_sum(t, sz, add(t, args(t, x)[0], args(t, y)[0]));
        buf[j] = buf[--n];
        buf[i] = s;
        i = -1;
        break;
      }
    }
  if (n == 1) return buf[0];
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && buf[j - 1] > buf[j]; j--) {
      int x = buf[j]; buf[j] = buf[j - 1]; buf[j - 1] = x;
    }
  return mk(t, K_ADD, 0, buf, NULL, n);
}

static int expo(AxAbs *t, int x) {
  const Term *b = &t->terms[x];
  if (b->kind == K_ADD) {                              /* eq_exp_add */
    int na = b->nargs, r = one(t);
    for (int i = 0; i < na; i++) r = mul_pow(t, r, 1, expo(t, args(t, &t->terms[x])[i]), 1);
    return r;
  }
  return mk(t, K_EXP, 0, &x, NULL, 1);
}

AxAId ax_prune_sqrt(AxAbs *t, AxAId x) {
  if (x < 0) return -1;
  return mk(t, K_UF, AX_OP_SQRT, &x, NULL, 1);
}

static int scale(AxAbs *t, int x, int64_t num, int64_t den) {
  return mul_pow(t, x, 1, konst(t, num, den), 1);
}

/* 1 / (1 + exp(-x)) (eq_logistic_def) */
static int logistic(AxAbs *t, int x) {
  return mul_pow(t, add(t, one(t), expo(t, scale(t, x, -1, 1))), -1, -1, 0);
}

/* An element-wise operator, by its row's abstract-expression rule. */
static int elementwise(AxAbs *t, const AxEwOp *e, const AxAId *in) {
  switch (e->abs) {
  case AX_EWOP_ABS_SAME: return in[0];
  case AX_EWOP_ABS_ADD: return add(t, in[0], in[1]);
  case AX_EWOP_ABS_SUB: return add(t, in[0], scale(t, in[1], -1, 1));       /* eq_sub_def */
  case AX_EWOP_ABS_NEG: return scale(t, in[0], -1, 1);                      /* eq_neg_def */
  case AX_EWOP_ABS_POWER: return mul_pow(t, in[0], e->abs_pow[0], e->arity > 1 ? in[1] : -1, e->abs_pow[1]);
  case AX_EWOP_ABS_EXP: return expo(t, in[0]);
  case AX_EWOP_ABS_RSQRT: return mul_pow(t, ax_prune_sqrt(t, in[0]), -1, -1, 0);   /* eq_rsqrt_def */
  case AX_EWOP_ABS_LOGISTIC: return logistic(t, in[0]);
  case AX_EWOP_ABS_SILU: return mul_pow(t, in[0], 1, logistic(t, in[0]), 1);       /* eq_silu_def */
  case AX_EWOP_ABS_OPAQUE: {
    int a[2] = {in[0], e->arity > 1 ? in[1] : -1};
    if (e->arity > 1 && e->commutes && a[1] < a[0]) a[0] = in[1], a[1] = in[0];
    return mk(t, K_UF, e->op, a, NULL, e->arity);
  }
  }
  AX_UNREACHABLE();
  return -1;
}

/* A max or min over n elements is no term of the normal form's algebra: the field reads it
 * as a fresh value (docs/superopt.md, "max as a fresh variable"), and pruning as an
 * uninterpreted function of its operand and of the size it reduces, so that a max over a
 * row and one over a tile of it are two terms. The size is kept in the term's d field
 * (a constant's denominator, 0 in every other term). */
AxAId ax_prune_extremum(AxAbs *t, AxOp op, int64_t n, AxAId x) {
  if (x < 0) return -1;
  return mkd(t, K_UF, op, n, &x, NULL, 1);
}

AxAId ax_prune_masked(AxAbs *t, int mask, AxAId x) {
  if (x < 0 || mask < 0) return -1;
  return mkd(t, K_UF, AX_OP_SELECT, mask + 1, &x, NULL, 1);
}

AxAId ax_prune_rms_acc(AxAbs *t, int64_t n, AxAId x) {
  if (x < 0) return -1;
  return ax_prune_sqrt(t, ax_prune_sum(t, n, mul_pow(t, x, 2, konst(t, 1, n), 1)));
}

AxAId ax_prune_apply(AxAbs *t, AxOp op, const AxAId *in, int nin, int64_t red) {
  for (int i = 0; i < nin; i++)
    if (in[i] < 0) return -1;
  const AxEwOp *e = ax_ewop_get(op);
  if (e) return elementwise(t, e, in);
  const AxPOp *p = ax_pop_get(op);
  if (!p) return -1;
  switch (p->abs) {
  case AX_POP_ABS_NONE: return -1;
  case AX_POP_ABS_ONE: return -1;                     /* a constant: ax_prune_const */
  case AX_POP_ABS_SUM_PRODUCT: return ax_prune_sum(t, red, mul_pow(t, in[0], 1, in[1], 1));   /* eq_matmul_tiles */
  case AX_POP_ABS_SUM: return ax_prune_sum(t, red, in[0]);
  case AX_POP_ABS_MEAN: return ax_prune_sum(t, red, scale(t, in[0], 1, red));      /* mean's definition */
  case AX_POP_ABS_RMS:                                /* eq_rms_def */
    return mul_pow(t, in[0], 1, ax_prune_rms_acc(t, red, in[0]), -1);
  case AX_POP_ABS_FIRST: return nin ? in[0] : -1;
  case AX_POP_ABS_EXTREMUM: return ax_prune_extremum(t, op, red, in[0]);
  }
  AX_UNREACHABLE();
  return -1;
}

/* ORDER: the rules this file's normal form relies on, named as in rules/superopt. */
static const char *const axioms[] = {
    "eq_add_comm",    "eq_mul_comm",     "eq_add_assoc",  "eq_mul_assoc",
    "eq_mul_div_assoc", "eq_div_div",    "eq_sum_one",    "eq_sum_sum",
    "eq_sum_add",     "eq_sum_mul",      "eq_sum_div",    "eq_matmul_tiles",
    "eq_matmul_div",  "eq_exp_add",      "eq_rms_def",    "eq_const_mul",
    "eq_const_div",   "eq_const_add",    "eq_add_zero",   "eq_neg_def",
    "eq_sub_def",     "eq_sum_scale",    "eq_matmul_scale",
    "eq_rsqrt_def",   "eq_silu_def",     "eq_broadcast_add", "eq_broadcast_mul",
    "eq_logistic_def",
};

const char *const *ax_prune_axioms(int *n) {
  *n = (int)(sizeof axioms / sizeof axioms[0]);
  return axioms;
}

/* --- subexpressions ------------------------------------------------------------------ */

static void collect(AxAbs *t, int x, char *seen) {
  if (seen[x]) return;
  seen[x] = 1;
  const Term *b = &t->terms[x];
  for (int i = 0; i < b->nargs; i++) collect(t, args(t, &t->terms[x])[i], seen);
}

void ax_prune_set_spec(AxAbs *t, const AxAId *outs, int n) {
  char *seen = calloc((size_t)t->nterms + 1, 1);
  for (int i = 0; i < n; i++)
    if (outs[i] >= 0) collect(t, outs[i], seen);
  free(t->spec);
  t->spec = malloc(sizeof(int) * ((size_t)t->nterms + 1));
  t->nspec = 0;
  for (int i = 0; i < t->nterms; i++)
    if (seen[i]) t->spec[t->nspec++] = i;
  for (int i = 0; i < t->nterms; i++) t->terms[i].sub = 0;
  free(seen);
}

int ax_prune_spec_consts(AxAbs *t, bool additive, AxAId *out, int max) {
  int n = 0;
  for (int i = 0; i < t->nspec; i++) {
    const Term *x = &t->terms[t->spec[i]];
    if (x->kind != (additive ? K_ADD : K_MUL)) continue;
    for (int j = 0; j < x->nargs; j++) {
      int a = args(t, x)[j];
      if (t->terms[a].kind != K_CONST || (!additive && exps(t, x)[j] != 1)) continue;
      bool dup = false;
      for (int k = 0; k < n; k++) dup |= out[k] == a;
      if (!dup && n < max) out[n++] = a;
    }
  }
  return n;
}

/* Whether constant terms x and y are equal up to sign. */
static bool same_abs(const Term *x, const Term *y) {
  int64_t xn = x->kind == K_ONE ? 1 : x->n, xd = x->kind == K_ONE ? 1 : x->d;
  int64_t yn = y->kind == K_ONE ? 1 : y->n, yd = y->kind == K_ONE ? 1 : y->d;
  return xd == yd && (xn == yn || (xn == -yn && xn != INT64_MIN));
}

/* e's factors (e itself with exponent 1 when not a product) are a sub-multiset of
 * product m's: same sign, no larger exponent; a constant factor of e also stands for its
 * negation in m. Constants fold into one factor wherever they meet, and a subtraction is an
 * addition of y * (-1), so the part that is subtracted carries the opposite constant of the
 * whole: X - mean(X) is X + sum(X * (-1/n)), while mean(X) is sum(X * (1/n)). Keeping such
 * a prefix only keeps more prefixes (pruning never lets a graph through: a complete
 * candidate must reach the program's whole normal form, and is checked). */
static bool factors_sub(const AxAbs *t, int e, int m) {
  const Term *M = &t->terms[m], *E = &t->terms[e];
  if (M->kind != K_MUL) return false;
  int one1 = 1;
  const int *ea = E->kind == K_MUL ? args(t, E) : &e;
  const int *ee = E->kind == K_MUL ? exps(t, E) : &one1;
  int en = E->kind == K_MUL ? E->nargs : 1;
  for (int i = 0; i < en; i++) {
    bool found = false;
    bool c = is_const(&t->terms[ea[i]]);
    for (int j = 0; j < M->nargs && !found; j++)
      if (c ? is_const(&t->terms[args(t, M)[j]]) && same_abs(&t->terms[ea[i]], &t->terms[args(t, M)[j]])
            : args(t, M)[j] == ea[i]) {
        int me = exps(t, M)[j];
        found = (me > 0) == (ee[i] > 0) && abs(ee[i]) <= abs(me);
      }
    if (!found) return false;
  }
  return true;
}

static bool body_sub(const AxAbs *t, int e, int b) { return e == b || factors_sub(t, e, b); }

static bool match(const AxAbs *t, int e, int s) {
  if (e == s) return true;
  const Term *S = &t->terms[s], *E = &t->terms[e];
  switch (S->kind) {
  case K_SUM: {
    int b = args(t, S)[0];
    if (E->kind == K_SUM && S->n % E->n == 0 && body_sub(t, args(t, E)[0], b)) return true;
    return body_sub(t, e, b);
  }
  case K_MUL: return factors_sub(t, e, s);
  case K_ADD: {
    if (E->kind != K_ADD || E->nargs > S->nargs) return false;
    for (int i = 0; i < E->nargs; i++) {
      bool found = false;
      for (int j = 0; j < S->nargs && !found; j++) found = args(t, S)[j] == args(t, E)[i];
      if (!found) return false;
    }
    return true;
  }
  default: return false;
  }
}

bool ax_prune_is_sub(AxAbs *t, AxAId e) {
  if (e < 0) return false;
  if (t->terms[e].sub) {
    t->cached++;
    return t->terms[e].sub == 1;
  }
  t->computed++;
  bool ok = is_const(&t->terms[e]);
  for (int i = 0; i < t->nspec && !ok; i++) ok = match(t, e, t->spec[i]);
  /* an addition under an exp is no node of the normal form, which keeps exp(a + b) as
   * exp(a)·exp(b) (eq_exp_add): softmax's shift x - max(x) is one when its exp is */
  if (!ok && t->terms[e].kind == K_ADD) ok = ax_prune_is_sub(t, expo(t, e));
  t->terms[e].sub = ok ? 1 : 2;
  return ok;
}

void ax_prune_print(FILE *out, const AxAbs *t, AxAId e) {
  if (e < 0) {
    fputs("?", out);
    return;
  }
  const Term *x = &t->terms[e];
  switch (x->kind) {
  case K_ONE: fputs("1", out); return;
  case K_CONST:
    if (x->d == 1) fprintf(out, "%" PRId64, x->n);
    else fprintf(out, "%" PRId64 "/%" PRId64, x->n, x->d);
    return;
  case K_VAR: fprintf(out, "in%" PRId64, x->n); return;
  case K_SUM:
    fprintf(out, "sum(%" PRId64 ", ", x->n);
    ax_prune_print(out, t, args(t, x)[0]);
    fputs(")", out);
    return;
  case K_EXP: case K_UF:
    fprintf(out, "%s(", x->kind == K_EXP ? "exp" : ax_op_pname((AxOp)x->n));
    if (x->kind == K_UF && x->d) fprintf(out, "%" PRId64 ", ", x->d);
    for (int i = 0; i < x->nargs; i++) {
      if (i) fputs(", ", out);
      ax_prune_print(out, t, args(t, x)[i]);
    }
    fputs(")", out);
    return;
  case K_ADD: case K_MUL:
    fputs(x->kind == K_ADD ? "add(" : "mul(", out);
    for (int i = 0; i < x->nargs; i++) {
      if (i) fputs(", ", out);
      ax_prune_print(out, t, args(t, x)[i]);
      if (x->kind == K_MUL && exps(t, x)[i] != 1) fprintf(out, "^%d", exps(t, x)[i]);
    }
    fputs(")", out);
    return;
  }
}
