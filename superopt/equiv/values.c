/* values.c — the value domains: doubles (with optional rounding to storage types) and
 * Zp x Zq. Both dispatch through the operators' rows (ewop.h) for element-wise arithmetic. */
#include "superopt/equiv/values.h"

#include <math.h>
#include <string.h>

#include "base/clock.h"
#include "superopt/equiv/exact.h"
#include "superopt/ir/ewop.h"

typedef unsigned __int128 u128;

static inline uint64_t mulm(uint64_t a, uint64_t b, uint64_t m) { return a * b % m; }

/* ---- doubles ------------------------------------------------------------------------- */

/* The operators' double functions are their rows' (ewop.h). */
static void fbinary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                    const void *b, size_t sb) {
  (void)d;
  ax_ewop_get(op)->f64_bin(n, out, a, sa, b, sb);
}

static void funary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a) {
  (void)d;
  ax_ewop_get(op)->f64_un(n, out, a);
}

static bool stopped(void);
#define RB 8   /* result rows per block between deadline checks (and mm_side's row block) */

/* i-k-j order: the inner loop runs along contiguous rows of b and out (vectorizes). */
static void fmatmul(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                    const void *b) {
  (void)d;
  double *o = out;
  const double *x = a, *y = b;
  memset(o, 0, m * n * sizeof(double));
  for (size_t i = 0; i < m && !(i % RB == 0 && stopped()); i++)   /* zeros left past the deadline */
    for (size_t l = 0; l < k; l++) {
      double v = x[i * k + l];
      const double *row = y + l * n;
      double *orow = o + i * n;
      for (size_t j = 0; j < n; j++) orow[j] += v * row[j];
    }
}

static void fconstant(const AxTDomain *d, AxRat c, void *out) {
  (void)d;
  *(double *)out = (double)c.num / (double)c.den;
}

static void fround(const AxTDomain *d, AxDtype t, size_t n, void *data) {
  (void)d;
  double *x = data;
  for (size_t i = 0; i < n; i++) x[i] = ax_values_round_to(t, x[i]);
}

static void fselect(const AxTDomain *d, size_t n, void *out, const void *m, const void *a,
                    const void *b) {
  (void)d;
  double *o = out;
  const double *mm = m, *x = a, *y = b;
  for (size_t i = 0; i < n; i++) o[i] = mm[i] != 0 ? x[i] : y[i];
}

static void fguard(const AxTDomain *d, size_t n, void *out, const void *raw) {
  (void)d;
  double *o = out;
  const double *r = raw;
  for (size_t i = 0; i < n; i++) o[i] = r[i] == -INFINITY ? 0 : r[i];
}

AxTDomain ax_values_float(bool storage) {
  AxTDomain d = {"float", sizeof(double), NULL, false, fbinary, funary, fmatmul, fconstant,
                storage ? fround : NULL, fselect, fguard, false, false};
  return d;
}

double ax_values_round_to(AxDtype t, double x) { return ax_dtype_round(t, x); }

/* ---- Zp x Zq (field.h) --------------------------------------------------------------- */

/* The integer an index-only residue stands for (exact.h: |v| <= AX_EXACT_LIMIT, far below
 * p / 2, so the residue determines it). */
static int64_t centred(uint32_t r, uint64_t p) {
  return r <= p / 2 ? (int64_t)r : (int64_t)r - (int64_t)p;
}

/* A comparison of index-only integers (d->exact): decided exactly, 1 or 0 in both
 * components, as over the reals. */
static void ffcompare(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                      const void *b, size_t sb) {
  AxField *f = d->ctx;
  AxFF *o = out;
  const AxFF *x = a, *y = b;
  for (size_t i = 0; i < n; i++) {
    int64_t u = centred(x[i * sa].p, f->p), v = centred(y[i * sb].p, f->p);
    bool r = op == AX_OP_EQ ? u == v : op == AX_OP_NE ? u != v : op == AX_OP_LT ? u < v
           : op == AX_OP_LE ? u <= v : op == AX_OP_GT ? u > v : u >= v;
    o[i].p = o[i].q = r ? 1 : 0;
  }
}

/* The operators' field functions are their rows' (ewop.h). exp and silu read their
 * operand's secondary component whatever primary_only says (interp.c computes it for them). */
static void ffbinary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                     const void *b, size_t sb) {
  if (d->exact && ax_exact_is_compare(op)) {
    ffcompare(d, op, n, out, a, sa, b, sb);
    return;
  }
  ax_ewop_get(op)->ff_bin(d->ctx, n, out, a, sa, b, sb, !d->primary_only);
}

static uint32_t rat_mod(AxRat c, uint64_t m);

/* The square root of an index-only integer u (d->exact), or -1 when u is negative or no
 * perfect square: the root is then no integer, and sqrt stays the uninterpreted function. */
static int64_t exact_root(int64_t u) {
  if (u < 0) return -1;
  int64_t s = (int64_t)sqrt((double)u);   /* u <= 2^26: the double is exact, s off by <= 1 */
  while (s * s > u) s--;
  while ((s + 1) * (s + 1) <= u) s++;
  return s * s == u ? s : -1;
}

/* sqrt or rsqrt of index-only integers (d->exact): an element that is a perfect square s^2
 * gets its real root s (rsqrt: 1 / s, s > 0) in both components, as + - * of integers
 * are computed exactly; any other element is the operator's uninterpreted function, as
 * ever. So sqrt(2 * 2) is 2 in the field as over the reals (a literal folded by a proved
 * rule equals its program). */
static void ffroot(const AxTDomain *d, AxOp op, size_t n, AxFF *o, const AxFF *x) {
  AxField *f = d->ctx;
  const AxEwOp *e = ax_ewop_get(op);
  for (size_t i = 0; i < n; i++) {
    int64_t s = exact_root(centred(x[i].p, f->p));
    if (s < 0 || (op == AX_OP_RSQRT && s == 0)) {
      e->ff_un(f, 1, &o[i], &x[i], !d->primary_only);
      continue;
    }
    AxRat r = op == AX_OP_SQRT ? (AxRat){s, 1} : (AxRat){1, s};
    o[i].p = rat_mod(r, f->p);
    o[i].q = rat_mod(r, f->q);
  }
}

static void ffunary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a) {
  if (d->exact && (op == AX_OP_SQRT || op == AX_OP_RSQRT)) {
    ffroot(d, op, n, out, a);
    return;
  }
  ax_ewop_get(op)->ff_un(d->ctx, n, out, a, !d->primary_only);
}

/* The calling thread's deadline for field matmuls (ax_values_stop_at): past it, a matmul
 * stops between row blocks and leaves the rest of its result zero. */
static _Thread_local double stop_at;

void ax_values_stop_at(double t) { stop_at = t; }

static bool stopped(void) { return stop_at > 0 && ax_clock_s() > stop_at; }

/* Products of residues below 2^32 fit in 64 bits; their sums are kept in 128 bits and
 * reduced once per output element. Rows of the result are computed RB at a time in i-k-j
 * order, so b is streamed row by row (no transposition of large operands). */
static void mm_side(const AxFF *x, const AxFF *y, AxFF *o, size_t m, size_t k, size_t n,
                    int side, uint64_t mod, u128 *acc) {
  for (size_t i0 = 0; i0 < m; i0 += RB) {
    if (stopped()) return;
    size_t rb = m - i0 < RB ? m - i0 : RB;
    memset(acc, 0, rb * n * sizeof *acc);
    for (size_t l = 0; l < k; l++) {
      const AxFF *brow = y + l * n;
      for (size_t ii = 0; ii < rb; ii++) {
        AxFF av = x[(i0 + ii) * k + l];
        uint64_t a = side ? (av.q == AX_FF_UNDEF ? 0 : av.q) : av.p;
        if (!a) continue;
        u128 *row = acc + ii * n;
        if (side)
          for (size_t j = 0; j < n; j++) row[j] += a * (brow[j].q == AX_FF_UNDEF ? 0 : brow[j].q);
        else
          for (size_t j = 0; j < n; j++) row[j] += a * brow[j].p;
      }
    }
    for (size_t ii = 0; ii < rb; ii++)
      for (size_t j = 0; j < n; j++) {
        uint32_t v = (uint32_t)(acc[ii * n + j] % mod);
        if (side) o[(i0 + ii) * n + j].q = v;
        else o[(i0 + ii) * n + j].p = v;
      }
  }
}

/* For operands that fit in cache: b transposed, one dot product per result, four
 * independent accumulators so that the adds do not wait on each other. */
static uint32_t dot(const uint32_t *a, const uint32_t *b, size_t k, uint64_t m) {
  u128 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t l = 0;
  for (; l + 4 <= k; l += 4) {
    s0 += (uint64_t)a[l] * b[l];
    s1 += (uint64_t)a[l + 1] * b[l + 1];
    s2 += (uint64_t)a[l + 2] * b[l + 2];
    s3 += (uint64_t)a[l + 3] * b[l + 3];
  }
  for (; l < k; l++) s0 += (uint64_t)a[l] * b[l];
  return (uint32_t)((s0 % m + s1 % m + s2 % m + s3 % m) % m);
}

static void mm_dot(const AxFF *x, const AxFF *y, AxFF *o, size_t m, size_t k, size_t n, int side,
                   uint64_t mod) {
  uint32_t *bt = ax_xmalloc(k * n * sizeof *bt + 1), *ar = ax_xmalloc(k * sizeof *ar + 1);
  for (size_t l = 0; l < k; l++)
    for (size_t j = 0; j < n; j++) {
      AxFF v = y[l * n + j];
      bt[j * k + l] = side ? (v.q == AX_FF_UNDEF ? 0 : v.q) : v.p;
    }
  for (size_t i = 0; i < m && !(i % RB == 0 && stopped()); i++) {
    for (size_t l = 0; l < k; l++) {
      AxFF v = x[i * k + l];
      ar[l] = side ? (v.q == AX_FF_UNDEF ? 0 : v.q) : v.p;
    }
    for (size_t j = 0; j < n; j++) {
      uint32_t r = dot(ar, bt + j * k, k, mod);
      if (side) o[i * n + j].q = r;
      else o[i * n + j].p = r;
    }
  }
  free(bt);
  free(ar);
}

static void ffmatmul(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                     const void *b) {
  AxField *f = d->ctx;
  AxFF *o = out;
  const AxFF *x = a, *y = b;
  bool small = k * n <= (1u << 18);
  /* a matmul the deadline stops leaves rows unset, and the operators after it still read
   * them: zeros are residues they accept (the test is void anyway), garbage can trip the
   * field's range assertions */
  if (stop_at > 0) memset(o, 0, m * n * sizeof *o);
  u128 *acc = small ? NULL : ax_xmalloc(RB * n * sizeof *acc + 1);
  if (small) mm_dot(x, y, o, m, k, n, 0, f->p);
  else mm_side(x, y, o, m, k, n, 0, f->p, acc);
  if (d->primary_only) {
    for (size_t i = 0; i < m * n; i++) o[i].q = AX_FF_UNDEF;
  } else {
    if (small) mm_dot(x, y, o, m, k, n, 1, f->q);
    else mm_side(x, y, o, m, k, n, 1, f->q, acc);
    /* an undefined q anywhere in a row of x or a column of y leaves that result undefined */
    bool *colundef = ax_xcalloc(n + 1, 1);
    for (size_t l = 0; l < k; l++)
      for (size_t j = 0; j < n; j++)
        if (y[l * n + j].q == AX_FF_UNDEF) colundef[j] = true;
    for (size_t i = 0; i < m; i++) {
      bool rowundef = false;
      for (size_t l = 0; l < k; l++) rowundef = rowundef || x[i * k + l].q == AX_FF_UNDEF;
      for (size_t j = 0; j < n; j++)
        if (rowundef || colundef[j]) o[i * n + j].q = AX_FF_UNDEF;
    }
    free(colundef);
  }
  free(acc);
}

/* num/den with num possibly negative. An integer (den 1: every iota element, every integer
 * literal) needs no inverse: Fermat's costs some sixty modular products, which made the
 * constants of a kernel-level iota over a 2M-element score most of a field test. */
static uint32_t rat_mod(AxRat c, uint64_t m) {
  uint64_t an = (uint64_t)(c.num < 0 ? -(c.num + 1) + 1 : c.num) % m;
  uint64_t v = c.den == 1 ? an : mulm(an, ax_field_inv((uint64_t)c.den % m, m), m);
  if (c.num < 0) v = (m - v) % m;
  return (uint32_t)v;
}

static void ffconstant(const AxTDomain *d, AxRat c, void *out) {
  AxField *f = d->ctx;
  AxFF *o = out;
  o->p = rat_mod(c, f->p);
  o->q = rat_mod(c, f->q);
}

/* A mask in Zp x Zq has no truth value unless it is index-only (d->exact): a compare of data has no field reading (field.h),
 * so no element may pick a branch. The test is inconclusive (counted in divzero; equiv.c
 * then answers "cannot decide"), and the result is a fresh variable so that nothing
 * downstream reads a branch by accident. */
static void ffselect(const AxTDomain *d, size_t n, void *out, const void *m, const void *a,
                     const void *b) {
  AxField *f = d->ctx;
  AxFF *o = out;
  if (d->exact) {
    /* an index-only mask (exact.h): its truth is the reals', so the branch is theirs */
    const AxFF *mm = m, *x = a, *y = b;
    for (size_t i = 0; i < n; i++) o[i] = centred(mm[i].p, f->p) != 0 ? x[i] : y[i];
    return;
  }
  f->divzero++;
  ax_field_fresh(f, n, o);
}

AxTDomain ax_values_field(AxField *f) {
  AxTDomain d = {"field", sizeof(AxFF), f, false, ffbinary, ffunary, ffmatmul, ffconstant, NULL,
                 ffselect, NULL, false, true};
  return d;
}
