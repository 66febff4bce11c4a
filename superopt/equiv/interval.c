/* interval.c — the interval domain (interval.h).
 *
 * The one place besides exact.c that names element-wise operators: an enclosure needs each
 * function's monotonicity and domain of definition, facts about the mathematics of the
 * operator that no other layer asks for. An operator without a case here is undefined in
 * this domain (it judges nothing, never wrongly); check_interval walks the operators' rows
 * and fails while one has no case. */
#include "superopt/equiv/interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/ewop.h"

static const AxIval UNDEF = {NAN, NAN};

/* pi as the double nearest it (C11 has no M_PI) */
#define PI 3.14159265358979323846

static bool defined(AxIval a) { return !isnan(a.lo) && !isnan(a.hi); }

/* k ulps below (above) x; an infinity stays where it is (an exact real beyond the doubles
 * is still beyond them) but for +inf below, which is DBL_MAX (and -inf above). */
static double dn(double x, int k) {
  for (int i = 0; i < k && x != -INFINITY; i++) x = nextafter(x, -INFINITY);
  return x;
}
static double up(double x, int k) {
  for (int i = 0; i < k && x != INFINITY; i++) x = nextafter(x, INFINITY);
  return x;
}

static AxIval iv(double lo, double hi, int ulps) {
  if (isnan(lo) || isnan(hi)) return UNDEF;
  return (AxIval){dn(lo, ulps), up(hi, ulps)};
}

static AxIval hull(AxIval a, AxIval b) {
  if (!defined(a) || !defined(b)) return UNDEF;
  return (AxIval){fmin(a.lo, b.lo), fmax(a.hi, b.hi)};
}

bool ax_interval_disjoint(AxIval a, AxIval b) {
  return defined(a) && defined(b) && (a.hi < b.lo || b.hi < a.lo);
}

/* ---- + - * / ------------------------------------------------------------------------- */

static AxIval add(AxIval a, AxIval b) {
  double lo = a.lo + b.lo, hi = a.hi + b.hi;   /* inf - inf: unbounded on that side */
  return iv(isnan(lo) ? -INFINITY : lo, isnan(hi) ? INFINITY : hi, 1);
}

static AxIval neg(AxIval a) { return defined(a) ? (AxIval){-a.hi, -a.lo} : UNDEF; }

/* A product of endpoints; 0 · inf is 0: an exact zero times a finite real however large. */
static double prod(double x, double y) {
  double p = x * y;
  return isnan(p) ? 0 : p;
}

static AxIval mul(AxIval a, AxIval b) {
  if (!defined(a) || !defined(b)) return UNDEF;
  double p[4] = {prod(a.lo, b.lo), prod(a.lo, b.hi), prod(a.hi, b.lo), prod(a.hi, b.hi)};
  double lo = p[0], hi = p[0];
  for (int i = 1; i < 4; i++) lo = fmin(lo, p[i]), hi = fmax(hi, p[i]);
  return iv(lo, hi, 1);
}

static AxIval recip(AxIval b) {
  if (!defined(b) || (b.lo <= 0 && b.hi >= 0)) return UNDEF;   /* a division by 0 possible */
  return iv(1 / b.hi, 1 / b.lo, 1);
}

static AxIval divi(AxIval a, AxIval b) { return mul(a, recip(b)); }

static AxIval square(AxIval a) {
  if (!defined(a)) return UNDEF;
  double l = fabs(a.lo), h = fabs(a.hi);
  if (a.lo <= 0 && a.hi >= 0) return iv(0, fmax(l, h) * fmax(l, h), 1);
  double m = fmin(l, h), M = fmax(l, h);
  return iv(m * m, M * M, 1);
}

static AxIval absi(AxIval a) {
  if (!defined(a)) return UNDEF;
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return neg(a);
  return (AxIval){0, fmax(-a.lo, a.hi)};
}

/* ---- functions ----------------------------------------------------------------------- */

/* An increasing function f on [lo, hi] (its double function from the operator's row),
 * granted `ulps` of error. */
static AxIval increasing(AxOp op, AxIval a, int ulps) {
  if (!defined(a)) return UNDEF;
  double x[2] = {a.lo, a.hi}, y[2];
  ax_ewop_get(op)->f64_un(2, y, x);
  return iv(y[0], y[1], ulps);
}

/* sin or cos: at its endpoints where no extremum lies between them (with a margin, and
 * for arguments below 2^20, where the reduction by pi of the test below is accurate), else
 * all of [-1, 1]. */
static AxIval trig(AxOp op, AxIval a) {
  if (!defined(a)) return UNDEF;
  if (!(fabs(a.lo) < 0x1p20 && fabs(a.hi) < 0x1p20)) return (AxIval){-1, 1};
  double shift = op == AX_OP_SIN ? PI / 2 : 0;   /* extrema at shift + k pi */
  double t0 = (a.lo - shift) / PI, t1 = (a.hi - shift) / PI;
  if (floor(t0 - 1e-6) != floor(t1 + 1e-6)) return (AxIval){-1, 1};
  double x[2] = {a.lo, a.hi}, y[2];
  ax_ewop_get(op)->f64_un(2, y, x);
  AxIval r = iv(fmin(y[0], y[1]), fmax(y[0], y[1]), AX_IVAL_LIB_ULPS);
  return defined(r) ? (AxIval){fmax(r.lo, -1), fmin(r.hi, 1)} : r;
}

static AxIval expi(AxIval a) { return increasing(AX_OP_EXP, a, AX_IVAL_LIB_ULPS); }

static AxIval logi(AxIval a) {
  if (!defined(a) || a.lo <= 0) return UNDEF;
  return increasing(AX_OP_LOG, a, AX_IVAL_LIB_ULPS);
}

static AxIval sqrti(AxIval a) {
  if (!defined(a) || a.lo < 0) return UNDEF;
  return iv(sqrt(a.lo), sqrt(a.hi), 1);
}

/* logistic(x) = 1 / (1 + exp(-x)): increasing; its double function rounds three times */
static AxIval logistic(AxIval a) { return increasing(AX_OP_LOGISTIC, a, AX_IVAL_LIB_ULPS + 2); }

/* x^y: by repeated products at an exact integer y (|y| <= 64: what a program writes),
 * else exp(y log x) where x > 0 */
static AxIval powi(AxIval a, AxIval b) {
  if (!defined(a) || !defined(b)) return UNDEF;
  if (b.lo == b.hi && b.lo == floor(b.lo) && fabs(b.lo) <= 64) {
    int k = (int)fabs(b.lo);
    AxIval r = {1, 1};
    for (int i = 0; i < k; i++) r = mul(r, a);
    return b.lo < 0 ? recip(r) : r;
  }
  if (a.lo <= 0) return UNDEF;
  return expi(mul(b, logi(a)));
}

/* A comparison: 1 or 0 where the intervals decide it, [0, 1] where they do not. */
static AxIval compare(AxOp op, AxIval a, AxIval b) {
  if (!defined(a) || !defined(b)) return UNDEF;
  bool pt = a.lo == a.hi && b.lo == b.hi;
  int v = -1;   /* undecided */
  switch (op) {
  case AX_OP_EQ: v = pt ? a.lo == b.lo : (a.hi < b.lo || b.hi < a.lo) ? 0 : -1; break;
  case AX_OP_NE: v = pt ? a.lo != b.lo : (a.hi < b.lo || b.hi < a.lo) ? 1 : -1; break;
  case AX_OP_LT: v = a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1; break;
  case AX_OP_LE: v = a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1; break;
  case AX_OP_GT: v = a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1; break;
  case AX_OP_GE: v = a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1; break;
  default: return UNDEF;
  }
  return v < 0 ? (AxIval){0, 1} : (AxIval){v, v};
}

static AxIval unary(AxOp op, AxIval a) {
  switch (op) {
  case AX_OP_NEG: return neg(a);
  case AX_OP_ABS: return absi(a);
  case AX_OP_SQUARE: return square(a);
  case AX_OP_EXP: return expi(a);
  case AX_OP_LOG: return logi(a);
  case AX_OP_SQRT: return sqrti(a);
  case AX_OP_RSQRT: return recip(sqrti(a));
  case AX_OP_TANH: case AX_OP_ERF: return increasing(op, a, AX_IVAL_LIB_ULPS);
  case AX_OP_LOGISTIC: return logistic(a);
  case AX_OP_SILU: return mul(a, logistic(a));
  case AX_OP_SIN: case AX_OP_COS: return trig(op, a);
  case AX_OP_TO_F16: case AX_OP_TO_BF16: case AX_OP_TO_F32:
    return increasing(op, a, 0);   /* a rounding is monotone and exact on each endpoint */
  default: return UNDEF;
  }
}

static AxIval binary(AxOp op, AxIval a, AxIval b) {
  switch (op) {
  case AX_OP_ADD: return add(a, b);
  case AX_OP_SUB: return add(a, neg(b));
  case AX_OP_MUL: return mul(a, b);
  case AX_OP_DIV: return divi(a, b);
  case AX_OP_MAX:
    return defined(a) && defined(b) ? (AxIval){fmax(a.lo, b.lo), fmax(a.hi, b.hi)} : UNDEF;
  case AX_OP_MIN:
    return defined(a) && defined(b) ? (AxIval){fmin(a.lo, b.lo), fmin(a.hi, b.hi)} : UNDEF;
  case AX_OP_POW: return powi(a, b);
  default: return compare(op, a, b);
  }
}

bool ax_interval_has(AxOp op) {
  const AxEwOp *e = ax_ewop_get(op);
  if (!e) return false;
  AxIval one = {1, 1}, two = {2, 2};
  return defined(e->arity == 1 ? unary(op, one) : binary(op, one, two));
}

/* ---- the domain ---------------------------------------------------------------------- */

static void ibinary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                    const void *b, size_t sb) {
  (void)d;
  AxIval *o = out;
  const AxIval *x = a, *y = b;
  for (size_t i = 0; i < n; i++) o[i] = binary(op, x[i * sa], y[i * sb]);
}

static void iunary(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a) {
  (void)d;
  AxIval *o = out;
  const AxIval *x = a;
  for (size_t i = 0; i < n; i++) o[i] = unary(op, x[i]);
}

/* out[i][j] = sum_l a[i][l] b[l][j]: the endpoint products' least and largest summed in
 * doubles, then widened by twice the recursive-summation bound (k + 2) u sum |p| and an
 * underflow allowance; an infinite term makes the sum unbounded (sound, if no witness). */
static void imatmul(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                    const void *b) {
  (void)d;
  AxIval *o = out;
  const AxIval *x = a, *y = b;
  double *lo = ax_xcalloc(n + 1, sizeof *lo), *hi = ax_xcalloc(n + 1, sizeof *hi), *s = ax_xcalloc(n + 1, sizeof *s);
  bool *undef = ax_xcalloc(n + 1, sizeof *undef);
  for (size_t i = 0; i < m; i++) {
    memset(lo, 0, n * sizeof *lo), memset(hi, 0, n * sizeof *hi), memset(s, 0, n * sizeof *s);
    memset(undef, 0, n * sizeof *undef);
    for (size_t l = 0; l < k; l++) {
      AxIval u = x[i * k + l];
      for (size_t j = 0; j < n; j++) {
        AxIval v = y[l * n + j];
        if (!defined(u) || !defined(v)) {
          undef[j] = true;
          continue;
        }
        double p0 = prod(u.lo, v.lo), p1 = prod(u.lo, v.hi), p2 = prod(u.hi, v.lo), p3 = prod(u.hi, v.hi);
        double pl = fmin(fmin(p0, p1), fmin(p2, p3)), ph = fmax(fmax(p0, p1), fmax(p2, p3));
        lo[j] += pl, hi[j] += ph, s[j] += fmax(fabs(pl), fabs(ph));
      }
    }
    for (size_t j = 0; j < n; j++) {
      double err = ((double)k + 2) * 0x1p-52 * s[j] + ((double)k + 2) * 0x1p-1070;
      double l = lo[j] - err, h = hi[j] + err;
      o[i * n + j] = undef[j] ? UNDEF : (AxIval){isfinite(l) ? dn(l, 1) : -INFINITY, isfinite(h) ? up(h, 1) : INFINITY};
    }
  }
  free(lo), free(hi), free(s), free(undef);
}

static void iconstant(const AxTDomain *d, AxRat c, void *out) {
  (void)d;
  AxIval *o = out;
  double q = (double)c.num / (double)c.den;
  bool exact = c.den == 1 && c.num > -((int64_t)1 << 53) && c.num < ((int64_t)1 << 53);
  *o = exact ? (AxIval){q, q} : iv(q, q, 2);   /* two conversions and a division: 1.5 ulps */
}

static void iselect(const AxTDomain *d, size_t n, void *out, const void *m, const void *a,
                    const void *b) {
  (void)d;
  AxIval *o = out;
  const AxIval *mm = m, *x = a, *y = b;
  for (size_t i = 0; i < n; i++) {
    AxIval k = mm[i];
    if (!defined(k)) o[i] = UNDEF;
    else if (k.lo > 0 || k.hi < 0) o[i] = x[i];
    else if (k.lo == 0 && k.hi == 0) o[i] = y[i];
    else o[i] = hull(x[i], y[i]);
  }
}

/* FlashAttention's guard: a running max that is -inf (no element yet) reads as 0 */
static void iguard(const AxTDomain *d, size_t n, void *out, const void *raw) {
  (void)d;
  AxIval *o = out;
  const AxIval *r = raw;
  for (size_t i = 0; i < n; i++) {
    AxIval v = r[i];
    if (!defined(v) || v.lo > -INFINITY) o[i] = v;
    else if (v.hi == -INFINITY) o[i] = (AxIval){0, 0};
    else o[i] = hull(v, (AxIval){0, 0});
  }
}

AxTDomain ax_values_interval(void) {
  AxTDomain d = {"interval", sizeof(AxIval), NULL, false, ibinary, iunary, imatmul, iconstant,
                 NULL, iselect, iguard, false, false};
  return d;
}
