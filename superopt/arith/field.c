/* field.c — Zp x Zq arithmetic (Mirage Table 3): primes, ω and its tables, inverses. */
#include "superopt/arith/field.h"

#include <string.h>

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

void ax_field_fresh(AxField *f, size_t n, AxFF *o) {
  for (size_t i = 0; i < n; i++, f->fresh++)
    o[i] = (AxFF){(uint32_t)(ax_rng_hash(&f->hash, 3, f->fresh) % f->p),
                  (uint32_t)(ax_rng_hash(&f->hash, 4, f->fresh) % f->q)};
}
