/* field.h — the finite field Zp x Zq of Mirage §5 (Table 3): its values and arithmetic.
 *
 * A value is a pair (x mod p, y mod q). p and q are primes with q | p-1, so Zp holds a
 * group of q-th roots of unity; ω is drawn from it (ω != 1) for every test. Operations
 * act on both components separately, except
 *   exp(x, y)  = (ω^y mod p, undefined)    — the q side is the exponent; after exp the q
 *                                           component is undefined, and the Lax fragment
 *                                           (lax.h) keeps a second exp off every path;
 *   silu(x, y) = (x · ω^y / (1 + ω^y), undefined)   — silu(v) = v·e^v / (1 + e^v), which
 *                                           has the form of Mirage's Equation 2;
 *   logistic(x, y) = (ω^y / (1 + ω^y), undefined), tanh(x, y) = ((ω^2y - 1) / (ω^2y + 1),
 *                                           undefined) — the same one-exponential form;
 *   sqrt(x, y) = (H_p(x), H_q(y))          — sqrt is outside the Lax fragment: it is read as
 *                                           an uninterpreted function, H a keyed random
 *                                           function (ChaCha20). Two graphs agree on it
 *                                           exactly when they take the square root of the
 *                                           same quantity. (Mirage uses x^((p+1)/4), which
 *                                           is a square root only for quadratic residues.)
 *   rsqrt(x, y) = (1 / H_p(x), 1 / H_q(y)) — one over sqrt's function, so rsqrt(v) = 1/sqrt(v).
 * max and min have no reading (no order): each element they produce is a fresh variable,
 *   a keyed random value (tag 3 and 4 of the hash, numbered by AxField.fresh) independent
 *   of everything else in the test. An equivalence verdict is then sound only for graphs
 *   whose outputs do not depend on it (docs/superopt.md, "max as a fresh variable").
 * Division by zero on the p side (probability about 1/p per division) makes the whole
 * test inconclusive: it is counted in AxField.divzero and the caller draws a new test.
 * A zero divisor on the q side only makes that q component undefined.
 *
 * p and q are drawn for every run from the seed (ax_field_draw_primes): q a random prime in
 * [2^29, 2^30), p = 2kq + 1 prime for the smallest k in 1..2 that gives one (p < 2^32, so
 * products of two residues fit in 64 bits). The family holds millions of pairs, so no fixed
 * public modulus can be hit on purpose: constants that differ by a multiple of one pair's p
 * or q, or a graph that relies on Fermat's little theorem for one pair (x^q = x in Zq), are
 * told apart by the next run's pair. The pair used before (p = 4294967087, q = 2147483543,
 * AX_FIELD_LEGACY_P/Q) can still be asked for (`axle equiv --primes P,Q`) to show that. */
#ifndef AX_FIELD_H
#define AX_FIELD_H

#include "superopt/arith/rng.h"

#define AX_FIELD_LEGACY_P 4294967087u
#define AX_FIELD_LEGACY_Q 2147483543u
#define AX_FF_UNDEF 0xFFFFFFFFu   /* an undefined q component (q < 2^31, so never a residue) */

typedef struct AxFF {
  uint32_t p, q;
} AxFF;

typedef struct AxField {
  uint64_t p, q;
  uint64_t omega;          /* a q-th root of unity mod p, != 1 */
  uint32_t *exp_lo, *exp_hi;   /* ω^i and ω^(i·2^16): ω^y = lo[y & 0xffff]·hi[y >> 16] */
  AxRng hash;              /* key of the random function standing for sqrt */
  uint64_t divzero;        /* p-side divisions by zero (and exps of undefined exponents) */
  uint64_t fresh;          /* fresh variables drawn so far (max, min); each draw its own */
} AxField;

/* Deterministic primality for 64-bit n (Miller-Rabin with the first twelve prime bases). */
bool ax_field_is_prime(uint64_t n);

/* The run's primes from seed: q prime in [2^29, 2^30), p = 2kq + 1 prime (k in 1..2, p <
 * 2^32). Deterministic in seed. */
void ax_field_draw_primes(uint64_t seed, uint64_t *p, uint64_t *q);

/* Whether (p, q) is usable: both prime, q | p - 1, q >= 2^16 (the exp tables), p < 2^32. */
bool ax_field_primes_ok(uint64_t p, uint64_t q);

/* Sets up the field over (p, q) (ax_field_primes_ok) for one test: draws ω and the sqrt key
 * from r. Owns its tables until ax_field_fini. */
void ax_field_init(AxField *f, uint64_t p, uint64_t q, AxRng *r);
void ax_field_fini(AxField *f);

/* A uniformly random element of Zp x Zq. */
AxFF ax_field_random(const AxField *f, AxRng *r);

/* n fresh variables into o (max, min, a select's result): keyed random pairs numbered by
 * f->fresh, which they advance, so no two draws of a test are the same variable. */
void ax_field_fresh(AxField *f, size_t n, AxFF *o);

/* Modular helpers (exposed for tests): a^e mod m, the inverse of a (a != 0) mod prime m. */
uint64_t ax_field_pow(uint64_t a, uint64_t e, uint64_t m);
uint64_t ax_field_inv(uint64_t a, uint64_t m);
/* ω^y mod p through the tables. */
uint64_t ax_field_exp(const AxField *f, uint64_t y);

#endif
