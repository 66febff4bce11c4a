/* field.c — Zp x Zq arithmetic (Mirage Table 3) and the field domain. */
#include "superopt/field.h"

#include <string.h>

#include "superopt/ewop.h"

typedef unsigned __int128 u128;

static inline uint64_t mulm(uint64_t a, uint64_t b, uint64_t m) { return a * b % m; }

uint64_t ax_field_pow(uint64_t a, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  a %= m;
  while (e) {
    if (e & 1) r = mulm(r, a, m);
    a = mulm(a, a, m);
    e >>= 1;
  }
  return r;
}

/* Fermat: a^(m-2) is the inverse of a in the prime field Zm. */
uint64_t ax_field_inv(uint64_t a, uint64_t m) {
  AX_ASSERT(a % m != 0);
  return ax_field_pow(a, m - 2, m);
}

uint64_t ax_field_exp(const AxField *f, uint64_t y) {
  AX_ASSERT(y < f->q);
  return mulm(f->exp_lo[y & 0xffff], f->exp_hi[y >> 16], f->p);
}

static uint64_t mul128(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((u128)a * b % m); }

static uint64_t pow128(uint64_t a, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  a %= m;
  for (; e; e >>= 1, a = mul128(a, a, m))
    if (e & 1) r = mul128(r, a, m);
  return r;
}

bool ax_field_is_prime(uint64_t n) {
  static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  if (n < 2) return false;
  for (size_t i = 0; i < AX_COUNTOF(bases); i++) {
    if (n == bases[i]) return true;
    if (n % bases[i] == 0) return false;
  }
  uint64_t d = n - 1;
  int s = 0;
  while (!(d & 1)) d >>= 1, s++;
  for (size_t i = 0; i < AX_COUNTOF(bases); i++) {
    uint64_t x = pow128(bases[i], d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int j = 1; j < s && composite; j++) {
      x = mul128(x, x, n);
      if (x == n - 1) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

bool ax_field_primes_ok(uint64_t p, uint64_t q) {
  return p < ((uint64_t)1 << 32) && q >= (1u << 16) && q < ((uint64_t)1 << 31) && q < p &&
         (p - 1) % q == 0 && ax_field_is_prime(p) && ax_field_is_prime(q);
}

void ax_field_draw_primes(uint64_t seed, uint64_t *p, uint64_t *q) {
  AxRng r;
  ax_rng_init(&r, seed, 0x9e1d5);   /* a stream of its own: the tests' draws stay as they were */
  for (;;) {
    uint64_t c = ((uint64_t)1 << 29) + ax_rng_below(&r, (uint64_t)1 << 29);
    if (!ax_field_is_prime(c)) continue;
    for (uint64_t k = 1; k <= 2; k++) {
      uint64_t cand = 2 * k * c + 1;
      if (cand < ((uint64_t)1 << 32) && ax_field_is_prime(cand)) {
        *p = cand;
        *q = c;
        return;
      }
    }
  }
}

void ax_field_init(AxField *f, uint64_t p, uint64_t q, AxRng *r) {
  memset(f, 0, sizeof *f);
  AX_ASSERT(ax_field_primes_ok(p, q));
  f->p = p;
  f->q = q;
  /* x^((p-1)/q) lies in the subgroup of q-th roots of unity of Zp*, which has prime order
   * q: every element other than 1 generates it, and the map from a uniform unit is
   * uniform onto the subgroup ((p-1)/q to one). */
  for (;;) {
    uint64_t x = 2 + ax_rng_below(r, f->p - 3);
    f->omega = ax_field_pow(x, (f->p - 1) / f->q, f->p);
    if (f->omega != 1) break;
  }
  f->exp_lo = ax_xmalloc(sizeof(uint32_t) << 16);
  f->exp_hi = ax_xmalloc(sizeof(uint32_t) << 15);
  uint64_t w = 1;
  for (size_t i = 0; i < (1u << 16); i++, w = mulm(w, f->omega, f->p)) f->exp_lo[i] = (uint32_t)w;
  uint64_t step = w;   /* ω^(2^16) */
  w = 1;
  for (size_t i = 0; i < (1u << 15); i++, w = mulm(w, step, f->p)) f->exp_hi[i] = (uint32_t)w;
  uint64_t seed = ax_rng_u64(r);
  ax_rng_init(&f->hash, seed, 0x5152);
}

void ax_field_fini(AxField *f) {
  free(f->exp_lo);
  free(f->exp_hi);
  f->exp_lo = f->exp_hi = NULL;
}

AxFF ax_field_random(const AxField *f, AxRng *r) {
  AxFF v = {(uint32_t)ax_rng_below(r, f->p), (uint32_t)ax_rng_below(r, f->q)};
  return v;
}

/* ---- the domain ---------------------------------------------------------------------- */

/* The operators' field functions are their rows' (ewop.h). exp and silu read their
 * operand's secondary component whatever primary_only says (interp.c computes it for them). */
static void ffbinary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                     const void *b, size_t sb) {
  ax_ewop_get(op)->ff_bin(d->ctx, n, out, a, sa, b, sb, !d->primary_only);
}

static void ffunary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a) {
  ax_ewop_get(op)->ff_un(d->ctx, n, out, a, !d->primary_only);
}

/* Products of residues below 2^32 fit in 64 bits; their sums are kept in 128 bits and
 * reduced once per output element. Rows of the result are computed RB at a time in i-k-j
 * order, so b is streamed row by row (no transposition of large operands). */
#define RB 8

static void mm_side(const AxFF *x, const AxFF *y, AxFF *o, size_t m, size_t k, size_t n,
                    int side, uint64_t mod, u128 *acc) {
  for (size_t i0 = 0; i0 < m; i0 += RB) {
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
  for (size_t i = 0; i < m; i++) {
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

/* num/den with num possibly negative. */
static uint32_t rat_mod(AxRat c, uint64_t m) {
  uint64_t an = (uint64_t)(c.num < 0 ? -(c.num + 1) + 1 : c.num) % m;
  uint64_t v = mulm(an, ax_field_inv((uint64_t)c.den % m, m), m);
  if (c.num < 0) v = (m - v) % m;
  return (uint32_t)v;
}

static void ffconstant(const AxTDomain *d, AxRat c, void *out) {
  AxField *f = d->ctx;
  AxFF *o = out;
  o->p = rat_mod(c, f->p);
  o->q = rat_mod(c, f->q);
}

AxTDomain ax_field_domain(AxField *f) {
  AxTDomain d = {"field", sizeof(AxFF), f, false, ffbinary, ffunary, ffmatmul, ffconstant, NULL};
  return d;
}
