/* domain.c — the float domain: doubles, with optional rounding to storage types. */
#include "superopt/domain.h"

#include <math.h>
#include <string.h>

#include "superopt/ewop.h"

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

/* i-k-j order: the inner loop runs along contiguous rows of b and out (vectorizes). */
static void fmatmul(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                    const void *b) {
  (void)d;
  double *o = out;
  const double *x = a, *y = b;
  memset(o, 0, m * n * sizeof(double));
  for (size_t i = 0; i < m; i++)
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
  for (size_t i = 0; i < n; i++) x[i] = ax_domain_round_to(t, x[i]);
}

AxTDomain ax_domain_float(bool storage) {
  AxTDomain d = {"float", sizeof(double), NULL, false, fbinary, funary, fmatmul, fconstant,
                storage ? fround : NULL};
  return d;
}

/* Rounds to a binary format with `mant` fraction bits and exponent range [emin, emax]
 * (of normal numbers); below emin the spacing stays that of emin (subnormals). */
static double round_fmt(double x, int mant, int emin, int emax) {
  if (!isfinite(x) || x == 0) return x;
  int e;
  frexp(x, &e);              /* x = f * 2^e, 0.5 <= |f| < 1: the unit exponent is e-1 */
  int ue = e - 1;
  if (ue < emin) ue = emin;
  double ulp = ldexp(1.0, ue - mant);
  double r = nearbyint(x / ulp) * ulp;   /* default rounding mode: nearest, ties even */
  double maxv = ldexp(2.0 - ldexp(1.0, -mant), emax);
  if (fabs(r) > maxv) return x > 0 ? INFINITY : -INFINITY;
  return r;
}

double ax_domain_round_to(AxDtype t, double x) {
  switch (t) {
  case AX_DT_F16: return round_fmt(x, 10, -14, 15);
  case AX_DT_BF16: return round_fmt(x, 7, -126, 127);
  case AX_DT_F32: return (double)(float)x;
  }
  AX_UNREACHABLE();
  return x;
}
