/* ewop.c — the rows of the element-wise operators and their double and field functions. */
#include "superopt/ir/ewop.h"

#include "superopt/ir/tensor.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

/* ---- doubles (the reference semantics) ------------------------------------------------ */

static void f64_add(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = x[i * sx] + y[i * sy];
}
static void f64_sub(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = x[i * sx] - y[i * sy];
}
static void f64_mul(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = x[i * sx] * y[i * sy];
}
static void f64_div(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = x[i * sx] / y[i * sy];
}
static void f64_neg(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = -x[i];
}
static void f64_exp(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = exp(x[i]);
}
static void f64_square(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = x[i] * x[i];
}
static void f64_sqrt(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = sqrt(x[i]);
}
/* silu(x) = x · sigmoid(x), as PyTorch defines it */
static void f64_silu(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = x[i] / (1.0 + exp(-x[i]));
}

/* rsqrt(x) = 1 / sqrt(x) */
static void f64_rsqrt(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = 1.0 / sqrt(x[i]);
}
static void f64_tanh(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = tanh(x[i]);
}
/* logistic(x) = 1 / (1 + e^-x), XLA's name for the sigmoid */
static void f64_logistic(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = 1.0 / (1.0 + exp(-x[i]));
}
/* max and min are XLA's maximum and minimum, the llvm.maximum / llvm.minimum it emits
 * (IEEE 754-2019 maximum, minimum; docs/semantics.md "Special values"): NaN if either
 * operand is NaN (C's fmax would drop it), otherwise the larger (smaller) operand, with -0
 * below +0 (C's fmax may return either zero). */
static double maximum(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return signbit(a) ? b : a;   /* equal: the same value, or zeros of both signs */
  return a > b ? a : b;
}
static double minimum(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static void f64_max(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = maximum(x[i * sx], y[i * sy]);
}
static void f64_min(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = minimum(x[i * sx], y[i * sy]);
}

/* eq ne lt le gt ge: 1.0 where the relation holds, else 0.0 (HLO's compare with a pred
 * result, converted); C's relations are IEEE's, so NaN is unordered: only ne holds */
#define COMPARE(name, rel)                                                                  \
  static void f64_##name(size_t n, double *o, const double *x, size_t sx, const double *y,   \
                         size_t sy) {                                                       \
    for (size_t i = 0; i < n; i++) o[i] = x[i * sx] rel y[i * sy] ? 1.0 : 0.0;              \
  }
COMPARE(eq, ==)
COMPARE(ne, !=)
COMPARE(lt, <)
COMPARE(le, <=)
COMPARE(gt, >)
COMPARE(ge, >=)
#undef COMPARE

/* to_f16, to_bf16, to_f32 (HLO's convert): the value rounded to the storage type,
 * round-to-nearest-even (tensor.h's ax_dtype_round); computation goes on in doubles */
static void f64_to_f16(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = ax_dtype_round(AX_DT_F16, x[i]);
}
static void f64_to_bf16(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = ax_dtype_round(AX_DT_BF16, x[i]);
}
static void f64_to_f32(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = ax_dtype_round(AX_DT_F32, x[i]);
}

static void f64_abs(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = fabs(x[i]);
}
static void f64_log(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = log(x[i]);
}
/* sin, cos and erf: C's, which XLA's CPU and GPU emitters call (erf in f64; in f32 XLA
 * evaluates its own rational approximation, within a few ulps of erff) */
static void f64_sin(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = sin(x[i]);
}
static void f64_cos(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = cos(x[i]);
}
static void f64_erf(size_t n, double *o, const double *x) {
  for (size_t i = 0; i < n; i++) o[i] = erf(x[i]);
}
/* pow(x, y) = x^y, C's (and XLA's) pow: pow(x, 0) = 1 even for NaN x */
static void f64_pow(size_t n, double *o, const double *x, size_t sx, const double *y, size_t sy) {
  for (size_t i = 0; i < n; i++) o[i] = pow(x[i * sx], y[i * sy]);
}

/* ---- Zp x Zq (field.h, Mirage Table 3) ------------------------------------------------ */

static inline uint64_t mulm(uint64_t a, uint64_t b, uint64_t m) { return a * b % m; }

/* The secondary component of a binary result: undefined when an operand's is, or when the
 * caller does not need it. */
static inline uint32_t q_of(uint64_t r, AxFF u, AxFF v, bool keep_q) {
  return u.q == AX_FF_UNDEF || v.q == AX_FF_UNDEF || !keep_q ? AX_FF_UNDEF : (uint32_t)r;
}

static void ff_add(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                   bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i * sx], v = y[i * sy];
    o[i] = (AxFF){(uint32_t)(((uint64_t)u.p + v.p) % p), q_of(((uint64_t)u.q + v.q) % q, u, v, keep_q)};
  }
}

static void ff_sub(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                   bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i * sx], v = y[i * sy];
    o[i] = (AxFF){(uint32_t)(((uint64_t)u.p + p - v.p) % p),
                  q_of(((uint64_t)u.q + q - v.q) % q, u, v, keep_q)};
  }
}

static void ff_mul(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                   bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i * sx], v = y[i * sy];
    o[i] = (AxFF){(uint32_t)mulm(u.p, v.p, p), q_of(mulm(u.q, v.q, q), u, v, keep_q)};
  }
}

/* Inverts the n values v[i] (component `comp`: 0 p, 1 q) in place with one modular
 * inverse (Montgomery's trick). Zeros stay zero and are counted in *zeros; undefined q
 * components stay undefined. pre: room for n. */
static void inv_batch(AxFF *v, size_t n, int comp, uint64_t m, uint64_t *zeros, uint64_t *pre) {
  uint64_t acc = 1;
  for (size_t i = 0; i < n; i++) {
    uint32_t x = comp ? v[i].q : v[i].p;
    pre[i] = acc;
    if (x != 0 && x != AX_FF_UNDEF) acc = mulm(acc, x, m);
  }
  uint64_t inv = ax_field_inv(acc, m);
  for (size_t i = n; i-- > 0;) {
    uint32_t *x = comp ? &v[i].q : &v[i].p;
    if (*x == AX_FF_UNDEF) continue;
    if (*x == 0) {
      (*zeros)++;
      continue;
    }
    uint64_t xi = mulm(inv, pre[i], m);
    inv = mulm(inv, *x, m);
    *x = (uint32_t)xi;
  }
}

/* x / y = x · y^-1. A zero divisor on the p side makes the test inconclusive (counted in
 * f->divzero); on the q side it only leaves that q component undefined. */
static void ff_div(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                   bool keep_q) {
  /* invert the divisors first, in a private copy: o may alias y */
  size_t m = sy ? n : 1;
  AxFF *inv = ax_xmalloc(m * sizeof *inv);
  uint64_t *pre = ax_xmalloc(m * sizeof *pre);
  memcpy(inv, y, m * sizeof *inv);
  uint64_t zq = 0;
  inv_batch(inv, m, 0, f->p, &f->divzero, pre);
  inv_batch(inv, m, 1, f->q, &zq, pre);
  for (size_t i = 0; i < m; i++)
    if (y[i].q == 0) inv[i].q = AX_FF_UNDEF;
  free(pre);
  ff_mul(f, n, o, x, sx, inv, sy, keep_q);
  free(inv);
}

static void ff_neg(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    bool qdef = u.q != AX_FF_UNDEF && keep_q;
    o[i] = (AxFF){(uint32_t)((p - u.p) % p), qdef ? (uint32_t)((q - u.q) % q) : AX_FF_UNDEF};
  }
}

static void ff_square(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    bool qdef = u.q != AX_FF_UNDEF && keep_q;
    o[i] = (AxFF){(uint32_t)mulm(u.p, u.p, p), qdef ? (uint32_t)mulm(u.q, u.q, q) : AX_FF_UNDEF};
  }
}

/* The functions of one exponential, each the real identity written with the field's
 * exp(x, y) = ω^y (field.h):
 *   exp(x, y)      = (ω^y, undefined)
 *   silu(x, y)     = (x·ω^y / (1 + ω^y), undefined)          silu(v) = v·e^v / (1 + e^v)
 *   logistic(x, y) = (ω^y / (1 + ω^y), undefined)            σ(v) = e^v / (1 + e^v)
 *   tanh(x, y)     = ((ω^2y - 1) / (ω^2y + 1), undefined)    tanh(v) = (e^2v - 1) / (e^2v + 1)
 * The denominators are never zero: -1 is no q-th root of unity (q is odd). An operand
 * without a q component has no exponent: that test says nothing (counted in divzero). */
typedef enum { EXP_PLAIN, EXP_SILU, EXP_LOGISTIC, EXP_TANH } ExpForm;

static void ff_exponent(AxField *f, size_t n, AxFF *o, const AxFF *x, ExpForm form) {
  uint64_t p = f->p;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    if (u.q == AX_FF_UNDEF) {
      f->divzero++;
      o[i] = (AxFF){0, AX_FF_UNDEF};
      continue;
    }
    uint64_t y = form == EXP_TANH ? (2 * (uint64_t)u.q) % f->q : u.q;
    uint64_t w = ax_field_exp(f, (uint32_t)y), r = w;
    if (form == EXP_SILU) r = mulm(mulm(u.p, w, p), ax_field_inv(1 + w, p), p);
    else if (form == EXP_LOGISTIC) r = mulm(w, ax_field_inv(1 + w, p), p);
    else if (form == EXP_TANH) r = mulm((w + p - 1) % p, ax_field_inv(1 + w, p), p);
    o[i] = (AxFF){(uint32_t)r, AX_FF_UNDEF};
  }
}

/* reads_q: the caller always keeps the operand's q, whatever keep_q says */
static void ff_exp(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  (void)keep_q;
  ff_exponent(f, n, o, x, EXP_PLAIN);
}

static void ff_silu(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  (void)keep_q;
  ff_exponent(f, n, o, x, EXP_SILU);
}

static void ff_logistic(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  (void)keep_q;
  ff_exponent(f, n, o, x, EXP_LOGISTIC);
}

static void ff_tanh(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  (void)keep_q;
  ff_exponent(f, n, o, x, EXP_TANH);
}

/* sqrt(x, y) = (H_p(x), H_q(y)): a keyed random function stands for it (field.h). */
static void ff_sqrt(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    bool qdef = u.q != AX_FF_UNDEF && keep_q;
    o[i] = (AxFF){(uint32_t)(ax_rng_hash(&f->hash, 1, u.p) % p),
                  qdef ? (uint32_t)(ax_rng_hash(&f->hash, 2, u.q) % q) : AX_FF_UNDEF};
  }
}

/* rsqrt(x, y) = (1 / H_p(x), 1 / H_q(y)): the inverse of sqrt's random function, so that
 * rsqrt(v) and 1 / sqrt(v) agree. A zero H_p(x) is a division by zero (the test is
 * inconclusive, counted in divzero); a zero H_q(y) leaves that q component undefined. */
static void ff_rsqrt(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    uint64_t hp = ax_rng_hash(&f->hash, 1, u.p) % p;
    bool qdef = u.q != AX_FF_UNDEF && keep_q;
    uint64_t hq = qdef ? ax_rng_hash(&f->hash, 2, u.q) % q : 0;
    if (hp == 0) f->divzero++;
    o[i] = (AxFF){hp ? (uint32_t)ax_field_inv(hp, p) : 0,
                  qdef && hq ? (uint32_t)ax_field_inv(hq, q) : AX_FF_UNDEF};
  }
}

/* A rounding to a storage type is no function of the field: it stands as a keyed random
 * function per type, (H_t,p(x), H_t,q(y)), as sqrt does. A graph that equals its program for
 * every such function equals it for the true rounding too, so a test passes only where the
 * same conversions are applied to the same values (docs/superopt.md, "Conversions");
 * dropping, moving or swapping one gives another function and a failing test. */
static void ff_round(AxField *f, uint32_t tag, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i];
    bool qdef = u.q != AX_FF_UNDEF && keep_q;
    o[i] = (AxFF){(uint32_t)(ax_rng_hash(&f->hash, tag, u.p) % p),
                  qdef ? (uint32_t)(ax_rng_hash(&f->hash, tag + 1, u.q) % q) : AX_FF_UNDEF};
  }
}

static void ff_to_f16(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 10, n, o, x, keep_q);
}
static void ff_to_bf16(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 12, n, o, x, keep_q);
}
static void ff_to_f32(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 14, n, o, x, keep_q);
}

/* max, min and the comparisons: a finite field has no order, so no value here means
 * max(a, b) or a < b (and equal residues do not mean equal reals). Each element becomes a
 * fresh variable instead (field.h): a keyed random pair, never drawn twice in a test.
 * equiv.c accepts a graph only when its outputs agree with the program's whatever these
 * values are, which then holds at the true max too (docs/superopt.md). The Lax check (lax.c,
 * AX_EWOP_LAX_ORDER) still refuses element-wise max, min and comparisons of data; the
 * reductions reduce_max and reduce_min reach here through ax_tensor_fold. */
static void ff_fresh(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                     bool keep_q) {
  (void)x, (void)sx, (void)y, (void)sy, (void)keep_q;
  ax_field_fresh(f, n, o);
}

/* abs has no field reading either (|x| needs an order): a fresh variable per element, as
 * max's; the Lax check refuses it, so a graph with abs is 'cannot decide', never equivalent
 * (a fresh value could only make two graphs agree by chance, never by a law of abs). */
static void ff_abs(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  (void)x, (void)keep_q;
  ax_field_fresh(f, n, o);
}

/* log(x, y) = (H_p(x), H_q(y)): a keyed random function of its own (tags 16, 17), read as
 * sqrt's: outside the Lax fragment, an uninterpreted function (docs/superopt.md). */
static void ff_log(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 16, n, o, x, keep_q);
}

/* sin, cos, erf: keyed random functions of their own (tags 20-25), outside the Lax fragment
 * as log is. Each is a function, so equal arguments give equal values on both sides; no law
 * of them (sin^2 + cos^2 = 1, erf(-x) = -erf(x)) holds in the field, so a graph that needs
 * one differs there and is never equivalent (the doubles cannot establish it either). */
static void ff_sin(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 20, n, o, x, keep_q);
}
static void ff_cos(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 22, n, o, x, keep_q);
}
static void ff_erf(AxField *f, size_t n, AxFF *o, const AxFF *x, bool keep_q) {
  ff_round(f, 24, n, o, x, keep_q);
}

/* pow(x, e): where e is a small integer k (|k| <= 16, the same residue on both sides: a
 * literal exponent), x^k by repeated multiplication (x^-k = 1 / x^k; a zero x is a division
 * by zero, inconclusive); any other e: a keyed random function of both (tags 18, 19), an
 * uninterpreted function as sqrt is. Every interpretation of it satisfies x^k = x·...·x at
 * the integers, so the identities the reals give for integer powers hold in the field too. */
#define POW_SMALL 16
static int small_int(const AxField *f, AxFF v) {
  for (int k = -POW_SMALL; k <= POW_SMALL; k++) {
    uint64_t kp = k < 0 ? f->p - (uint64_t)-k : (uint64_t)k, kq = k < 0 ? f->q - (uint64_t)-k : (uint64_t)k;
    if (v.p == kp && (v.q == AX_FF_UNDEF || v.q == kq)) return k;
  }
  return INT32_MIN;
}

static void ff_pow(AxField *f, size_t n, AxFF *o, const AxFF *x, size_t sx, const AxFF *y, size_t sy,
                   bool keep_q) {
  uint64_t p = f->p, q = f->q;
  for (size_t i = 0; i < n; i++) {
    AxFF u = x[i * sx], v = y[i * sy];
    bool qdef = u.q != AX_FF_UNDEF && v.q != AX_FF_UNDEF && keep_q;
    int k = small_int(f, v);
    if (k == INT32_MIN) {
      uint64_t kp = ax_rng_hash(&f->hash, 18, ((uint64_t)u.p << 32) | v.p) % p;
      uint64_t kq = qdef ? ax_rng_hash(&f->hash, 19, ((uint64_t)u.q << 32) | v.q) % q : 0;
      o[i] = (AxFF){(uint32_t)kp, qdef ? (uint32_t)kq : AX_FF_UNDEF};
      continue;
    }
    uint64_t rp = 1, rq = 1;
    for (int j = 0; j < (k < 0 ? -k : k); j++) {
      rp = mulm(rp, u.p, p);
      if (qdef) rq = mulm(rq, u.q, q);
    }
    if (k < 0) {
      if (rp == 0) f->divzero++;
      rp = rp ? ax_field_inv(rp, p) : 0;
      qdef = qdef && rq != 0;
      rq = qdef ? ax_field_inv(rq, q) : 0;
    }
    o[i] = (AxFF){(uint32_t)rp, qdef ? (uint32_t)rq : AX_FF_UNDEF};
  }
}

/* ---- the rows ------------------------------------------------------------------------- */

#define BINARY(fn) .arity = 2, .f64_bin = f64_##fn, .ff_bin = ff_##fn
#define UNARY(fn) .arity = 1, .f64_un = f64_##fn, .ff_un = ff_##fn
/* an operator that needs an order: its doubles, and a fresh variable in the field */
#define ORDERED(fn) .arity = 2, .f64_bin = f64_##fn, .ff_bin = ff_fresh

const AxEwOp ax_ewop_rows[AX_OP_COUNT] = {
    [AX_OP_ADD] = {.op = AX_OP_ADD, BINARY(add), .commutes = true, .lax = AX_EWOP_LAX_SUM,
                   .abs = AX_EWOP_ABS_ADD, .flops = 1, .cuda = "a0 + a1"},
    [AX_OP_SUB] = {.op = AX_OP_SUB, BINARY(sub), .lax = AX_EWOP_LAX_SUM, .abs = AX_EWOP_ABS_SUB,
                   .flops = 1, .cuda = "a0 - a1"},
    [AX_OP_MUL] = {.op = AX_OP_MUL, BINARY(mul), .commutes = true, .lax = AX_EWOP_LAX_PRODUCT,
                   .abs = AX_EWOP_ABS_POWER, .abs_pow = {1, 1}, .flops = 1, .cuda = "a0 * a1"},
    [AX_OP_DIV] = {.op = AX_OP_DIV, BINARY(div), .lax = AX_EWOP_LAX_QUOTIENT,
                   .abs = AX_EWOP_ABS_POWER, .abs_pow = {1, -1}, .flops = 2, .cuda = "a0 / a1"},
    [AX_OP_NEG] = {.op = AX_OP_NEG, UNARY(neg), .lax = AX_EWOP_LAX_SAME, .abs = AX_EWOP_ABS_NEG,
                   .flops = 1, .cuda = "-a0"},
    [AX_OP_EXP] = {.op = AX_OP_EXP, UNARY(exp), .reads_q = true, .lax = AX_EWOP_LAX_EXP,
                   .abs = AX_EWOP_ABS_EXP, .flops = 4, .insert = 1, .cuda = "expf(a0)"},
    [AX_OP_SQUARE] = {.op = AX_OP_SQUARE, UNARY(square), .lax = AX_EWOP_LAX_PRODUCT,
                      .abs = AX_EWOP_ABS_POWER, .abs_pow = {2, 0}, .flops = 1, .insert = 4,
                      .cuda = "a0 * a0"},
    [AX_OP_SQRT] = {.op = AX_OP_SQRT, UNARY(sqrt), .lax = AX_EWOP_LAX_OPAQUE,
                    .abs = AX_EWOP_ABS_OPAQUE, .flops = 4, .insert = 2, .cuda = "sqrtf(a0)"},
    [AX_OP_SILU] = {.op = AX_OP_SILU, UNARY(silu), .reads_q = true, .lax = AX_EWOP_LAX_EXP_RATIO,
                    .abs = AX_EWOP_ABS_SILU, .flops = 6, .insert = 3,
                    .cuda = "a0 / (1.0f + expf(-a0))"},
    [AX_OP_RSQRT] = {.op = AX_OP_RSQRT, UNARY(rsqrt), .lax = AX_EWOP_LAX_OPAQUE_INV,
                     .abs = AX_EWOP_ABS_RSQRT, .flops = 4, .insert = 5, .cuda = "rsqrtf(a0)"},
    [AX_OP_TANH] = {.op = AX_OP_TANH, UNARY(tanh), .reads_q = true, .lax = AX_EWOP_LAX_EXP_TANH,
                    .abs = AX_EWOP_ABS_OPAQUE, .flops = 6, .insert = 6, .cuda = "tanhf(a0)"},
    [AX_OP_LOGISTIC] = {.op = AX_OP_LOGISTIC, UNARY(logistic), .reads_q = true,
                        .lax = AX_EWOP_LAX_EXP_RATIO, .abs = AX_EWOP_ABS_LOGISTIC, .flops = 5,
                        .insert = 7, .cuda = "1.0f / (1.0f + expf(-a0))"},
    /* XLA's maximum/minimum: the generated code's ax_max/ax_min (gpu/cuda.c's prelude), NaN
     * in, NaN out and -0 below +0, as f64_max above; fmaxf alone would drop a NaN */
    [AX_OP_MAX] = {.op = AX_OP_MAX, ORDERED(max), .commutes = true, .lax = AX_EWOP_LAX_ORDER,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "ax_max(a0, a1)"},
    [AX_OP_MIN] = {.op = AX_OP_MIN, ORDERED(min), .commutes = true, .lax = AX_EWOP_LAX_ORDER,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "ax_min(a0, a1)"},
    /* comparisons: a 1.0/0.0 mask (select's first operand); the search inserts none */
    [AX_OP_EQ] = {.op = AX_OP_EQ, ORDERED(eq), .commutes = true, .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 == a1) ? 1.0f : 0.0f"},
    [AX_OP_NE] = {.op = AX_OP_NE, ORDERED(ne), .commutes = true, .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 != a1) ? 1.0f : 0.0f"},
    [AX_OP_LT] = {.op = AX_OP_LT, ORDERED(lt), .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 < a1) ? 1.0f : 0.0f"},
    [AX_OP_LE] = {.op = AX_OP_LE, ORDERED(le), .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 <= a1) ? 1.0f : 0.0f"},
    [AX_OP_GT] = {.op = AX_OP_GT, ORDERED(gt), .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 > a1) ? 1.0f : 0.0f"},
    [AX_OP_GE] = {.op = AX_OP_GE, ORDERED(ge), .lax = AX_EWOP_LAX_ORDER,
                  .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "(a0 >= a1) ? 1.0f : 0.0f"},
    /* abs: a fresh variable in the field (no order), refused by the Lax check as max is;
     * log and pow: uninterpreted functions there, as sqrt (pow exact at small integer
     * exponents); the search inserts none of them */
    [AX_OP_ABS] = {.op = AX_OP_ABS, UNARY(abs), .lax = AX_EWOP_LAX_ORDER,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .cuda = "fabsf(a0)"},
    [AX_OP_LOG] = {.op = AX_OP_LOG, UNARY(log), .lax = AX_EWOP_LAX_OPAQUE,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 4, .cuda = "logf(a0)"},
    [AX_OP_POW] = {.op = AX_OP_POW, BINARY(pow), .lax = AX_EWOP_LAX_OPAQUE,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 8, .cuda = "powf(a0, a1)"},
    /* conversions: the kernel computes in f32, so a round trip through the storage type */
    [AX_OP_TO_F16] = {.op = AX_OP_TO_F16, UNARY(to_f16), .lax = AX_EWOP_LAX_OPAQUE,
                      .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .insert = 8, .to_dtype = 1 + AX_DT_F16,
                      .cuda = "ax_f(ax_to<__half>(a0))"},
    [AX_OP_TO_BF16] = {.op = AX_OP_TO_BF16, UNARY(to_bf16), .lax = AX_EWOP_LAX_OPAQUE,
                       .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .insert = 9, .to_dtype = 1 + AX_DT_BF16,
                       .cuda = "ax_f(ax_to<__nv_bfloat16>(a0))"},
    [AX_OP_TO_F32] = {.op = AX_OP_TO_F32, UNARY(to_f32), .lax = AX_EWOP_LAX_OPAQUE,
                      .abs = AX_EWOP_ABS_OPAQUE, .flops = 1, .insert = 10,
                      .to_dtype = 1 + AX_DT_F32, .cuda = "a0"},
    /* sin, cos, erf: uninterpreted functions in the field; the search inserts none */
    [AX_OP_SIN] = {.op = AX_OP_SIN, UNARY(sin), .lax = AX_EWOP_LAX_OPAQUE,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 8, .cuda = "sinf(a0)"},
    [AX_OP_COS] = {.op = AX_OP_COS, UNARY(cos), .lax = AX_EWOP_LAX_OPAQUE,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 8, .cuda = "cosf(a0)"},
    [AX_OP_ERF] = {.op = AX_OP_ERF, UNARY(erf), .lax = AX_EWOP_LAX_OPAQUE,
                   .abs = AX_EWOP_ABS_OPAQUE, .flops = 10, .cuda = "erff(a0)"},
};

#undef BINARY
#undef UNARY
#undef ORDERED

bool ax_ewop_reads_q(AxOp op) {
  const AxEwOp *e = ax_ewop_get(op);
  return e && e->reads_q;
}

/* The generator's list, sorted once: the search asks for it in every state. */
static AxOp generated[AX_OP_COUNT];
static int ngenerated;
static pthread_once_t generated_once = PTHREAD_ONCE_INIT;

static void sort_generated(void) {
  for (int op = 0; op < AX_OP_COUNT; op++) {
    if (!ax_ewop_rows[op].arity || !ax_ewop_rows[op].insert) continue;
    int j = ngenerated++;
    for (; j > 0 && ax_ewop_rows[generated[j - 1]].insert > ax_ewop_rows[op].insert; j--)
      generated[j] = generated[j - 1];
    generated[j] = (AxOp)op;
  }
}

const AxOp *ax_ewop_generated(int *n) {
  pthread_once(&generated_once, sort_generated);
  *n = ngenerated;
  return generated;
}
