/* convert.c — conversions as rounding; see convert.h. The rounding is float.c's
 * ax_float_round read as a rational (tests/unit/check_convert.c compares them), written
 * here again so that the concrete domain, which float.c builds on, needs no IEEE model. */
#include "semantics/convert.h"


/* ORDER: by AxOp in the switch below */
static const AxConvFormat f16 = {AX_SORT_F16, "f16", 11, -14, 15};
static const AxConvFormat bf16 = {AX_SORT_BF16, "bf16", 8, -126, 127};
static const AxConvFormat f32 = {AX_SORT_F32, "f32", 24, -126, 127};

const AxConvFormat *ax_convert_format(AxOp op) {
  switch (op) {
  case AX_OP_TO_F16: return &f16;
  case AX_OP_TO_BF16: return &bf16;
  case AX_OP_TO_F32: return &f32;
  default: return NULL;
  }
}

/* |x| = m · 2^q with the spacing 2^q of x's binade (from the least normal one down, the
 * subnormals' 2^(emin − p + 1)), m rounded to the nearest integer, ties to the even one —
 * the last significand bit; a rounding up to 2^(emax+1) or beyond is an overflow. */
int ax_convert_round(const AxConvFormat *f, const mpq_t x, mpq_t out) {
  int sign = mpq_sgn(x);
  if (sign == 0) {
    mpq_set_ui(out, 0, 1);
    return 0;
  }
  mpz_t num, den, m, r;
  mpz_inits(num, den, m, r, NULL);
  mpz_abs(num, mpq_numref(x));
  mpz_set(den, mpq_denref(x));
  /* e = floor(log2 |x|): 2^(e-1) < |x| < 2^(e+1) for e the difference of bit lengths.
   * Every shift below is bounded: by |e|, at most the bit length of x's numerator or
   * denominator (the products stay within twice x's own size), or by the format's
   * constants (emin, prec) */
  long e = (long)mpz_sizeinbase(num, 2) - (long)mpz_sizeinbase(den, 2);
  mpz_set(m, num);
  mpz_set(r, den);
  if (e >= 0) mpz_mul_2exp(r, r, (mp_bitcnt_t)e);
  else mpz_mul_2exp(m, m, (mp_bitcnt_t)-e);
  if (mpz_cmp(m, r) < 0) e--;
  if (e < f->emin) e = f->emin;
  long q = e - (f->prec - 1);   /* the spacing's exponent */
  if (q <= 0) mpz_mul_2exp(num, num, (mp_bitcnt_t)-q);
  else mpz_mul_2exp(den, den, (mp_bitcnt_t)q);
  mpz_fdiv_qr(m, r, num, den);   /* |x| / 2^q = m + r / den */
  mpz_mul_2exp(r, r, 1);
  int c = mpz_cmp(r, den);
  if (c > 0 || (c == 0 && mpz_odd_p(m))) mpz_add_ui(m, m, 1);
  /* overflow: m · 2^q >= 2^(emax + 1) */
  bool over = (long)mpz_sizeinbase(m, 2) - 1 + q > f->emax;
  if (over) {
    mpq_set_ui(out, 0, 1);
  } else {
    mpq_set_z(out, m);
    if (q >= 0) mpq_mul_2exp(out, out, (mp_bitcnt_t)q);
    else mpq_div_2exp(out, out, (mp_bitcnt_t)-q);
    if (sign < 0) mpq_neg(out, out);
  }
  mpz_clears(num, den, m, r, NULL);
  return over ? sign : 0;
}

/* (2 − 2^−k) · 2^emax = (2^(k+1) − 1) · 2^(emax − k); k and emax are a format's (at most
 * 24 and 127): the powers are bounded */
static void below_two(const AxConvFormat *f, int k, mpq_t out) {
  mpz_t n;
  mpz_init(n);
  mpz_ui_pow_ui(n, 2, (unsigned long)(k + 1));
  mpz_sub_ui(n, n, 1);
  mpq_set_z(out, n);
  int sh = f->emax - k;
  if (sh >= 0) mpq_mul_2exp(out, out, (mp_bitcnt_t)sh);
  else mpq_div_2exp(out, out, (mp_bitcnt_t)-sh);
  mpz_clear(n);
}

void ax_convert_overflow(const AxConvFormat *f, mpq_t out) { below_two(f, f->prec, out); }

void ax_convert_max(const AxConvFormat *f, mpq_t out) { below_two(f, f->prec - 1, out); }

bool ax_convert_contains(const AxConvFormat *outer, const AxConvFormat *inner) {
  return outer == inner ||
         (outer->prec >= inner->prec && outer->emin <= inner->emin && outer->emax >= inner->emax &&
          outer->emin - outer->prec <= inner->emin - inner->prec);
}
