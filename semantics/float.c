/* float.c — exact IEEE 754 arithmetic by rounding exact rationals; see float.h. */
#include "semantics/float.h"

#include <stdio.h>
#include <string.h>

#include "semantics/concrete.h"

typedef struct Fmt {
  int eb, sb;        /* exponent bits; significand bits with the hidden one */
  long bias, emin, emax;
  uint32_t sign, expmask, fracmask;
} Fmt;

static Fmt fmt(AxSort f) {
  Fmt m;
  m.eb = ax_term_fp_ebits(f);
  m.sb = ax_term_fp_sbits(f);
  m.bias = (1L << (m.eb - 1)) - 1;
  m.emin = 1 - m.bias;
  m.emax = m.bias;
  m.sign = 1u << (m.eb + m.sb - 1);
  m.fracmask = (1u << (m.sb - 1)) - 1;
  m.expmask = ((1u << m.eb) - 1) << (m.sb - 1);
  return m;
}

const char *ax_float_name(AxSort f) {
  return f == AX_SORT_F32 ? "f32" : f == AX_SORT_F16 ? "f16" : f == AX_SORT_BF16 ? "bf16" : "?";
}

bool ax_float_parse(const char *name, AxSort *f) {
  if (strcmp(name, "f32") == 0) *f = AX_SORT_F32;
  else if (strcmp(name, "f16") == 0) *f = AX_SORT_F16;
  else if (strcmp(name, "bf16") == 0) *f = AX_SORT_BF16;
  else return false;
  return true;
}

int ax_float_width(AxSort f) { return ax_term_fp_ebits(f) + ax_term_fp_sbits(f); }

uint32_t ax_float_nan(AxSort f) {
  Fmt m = fmt(f);
  return m.expmask | 1u << (m.sb - 2);
}

uint32_t ax_float_inf(AxSort f, bool negative) {
  Fmt m = fmt(f);
  return m.expmask | (negative ? m.sign : 0);
}

bool ax_float_is_nan(AxSort f, uint32_t x) {
  Fmt m = fmt(f);
  return (x & m.expmask) == m.expmask && (x & m.fracmask) != 0;
}

bool ax_float_is_inf(AxSort f, uint32_t x) {
  Fmt m = fmt(f);
  return (x & m.expmask) == m.expmask && (x & m.fracmask) == 0;
}

bool ax_float_is_zero(AxSort f, uint32_t x) { return (x & ~fmt(f).sign) == 0; }
bool ax_float_sign(AxSort f, uint32_t x) { return (x & fmt(f).sign) != 0; }

/* q · 2^e; e is at most a format's exponent range plus its precision: bounded */
static void mul_pow2(mpq_t q, long e) {
  if (e >= 0) mpq_mul_2exp(q, q, (mp_bitcnt_t)e);
  else mpq_div_2exp(q, q, (mp_bitcnt_t)-e);
}

void ax_float_value(AxSort f, uint32_t x, mpq_t out) {
  Fmt m = fmt(f);
  long expf = (long)((x & m.expmask) >> (m.sb - 1));
  uint32_t frac = x & m.fracmask;
  AX_ASSERT(expf != (1L << m.eb) - 1);
  if (expf == 0) {   /* zero or subnormal: frac · 2^(emin − (sb − 1)) */
    mpq_set_ui(out, frac, 1);
    mul_pow2(out, m.emin - (m.sb - 1));
  } else {           /* (2^(sb−1) + frac) · 2^(e − bias − (sb − 1)) */
    mpq_set_ui(out, frac + (1u << (m.sb - 1)), 1);
    mul_pow2(out, expf - m.bias - (m.sb - 1));
  }
  if (x & m.sign) mpq_neg(out, out);
}

/* ROUND (IEEE 754 §4.3.1, roundTiesToEven): with 2^e ≤ |q| < 2^(e+1), e raised to emin for
 * subnormals, the quantum is 2^(e − (sb − 1)); |q| / quantum is rounded to the nearest
 * integer m, a tie to the even one; m = 2^sb carries into the exponent; an exponent above
 * emax is infinity. */
uint32_t ax_float_round(AxSort f, const mpq_t q, bool negative) {
  Fmt m = fmt(f);
  if (mpq_sgn(q) == 0) return negative ? m.sign : 0;
  bool neg = mpq_sgn(q) < 0;
  mpz_t num, den, mz, r;
  mpz_inits(num, den, mz, r, NULL);
  mpz_abs(num, mpq_numref(q));
  mpz_set(den, mpq_denref(q));
  long e = (long)mpz_sizeinbase(num, 2) - (long)mpz_sizeinbase(den, 2);
  /* now 2^(e−1) < |q| < 2^(e+1): lower e by one if |q| < 2^e. The shifts are bounded: by
   * |e|, at most q's own bit length, and by the format's constants */
  mpz_t a, b;
  mpz_inits(a, b, NULL);
  mpz_set(a, num);
  mpz_set(b, den);
  if (e >= 0) mpz_mul_2exp(b, b, (mp_bitcnt_t)e);
  else mpz_mul_2exp(a, a, (mp_bitcnt_t)-e);
  if (mpz_cmp(a, b) < 0) e--;
  if (e < m.emin) e = m.emin;
  long sh = m.sb - 1 - e;   /* |q| · 2^sh = num' / den' */
  if (sh >= 0) mpz_mul_2exp(num, num, (mp_bitcnt_t)sh);
  else mpz_mul_2exp(den, den, (mp_bitcnt_t)-sh);
  mpz_fdiv_qr(mz, r, num, den);
  mpz_mul_2exp(r, r, 1);
  int c = mpz_cmp(r, den);
  if (c > 0 || (c == 0 && mpz_odd_p(mz))) mpz_add_ui(mz, mz, 1);
  if (mpz_sizeinbase(mz, 2) > (size_t)m.sb) {   /* m = 2^sb: carry */
    mpz_fdiv_q_2exp(mz, mz, 1);
    e++;
  }
  uint32_t bits;
  if (e > m.emax) {
    bits = m.expmask;
  } else {
    uint64_t mv = mpz_get_ui(mz);
    if (mv < (1u << (m.sb - 1))) bits = (uint32_t)mv;   /* subnormal (e = emin) or zero */
    else bits = (uint32_t)(e + m.bias) << (m.sb - 1) | ((uint32_t)mv & m.fracmask);
  }
  mpz_clears(num, den, mz, r, a, b, NULL);
  return bits | (neg ? m.sign : 0);
}

uint32_t ax_float_from_decimal(AxSort f, const char *text) {
  bool neg = text[0] == '-';
  mpq_t q;
  mpq_init(q);
  ax_decimal_to_mpq(text + (neg || text[0] == '+'), q);
  if (neg) mpq_neg(q, q);
  uint32_t r = ax_float_round(f, q, neg);
  mpq_clear(q);
  return r;
}

/* --- Operations ----------------------------------------------------------------------- */

typedef enum { ADD, MUL, DIV } Arith;

static uint32_t arith(AxSort f, Arith op, uint32_t a, uint32_t b) {
  Fmt m = fmt(f);
  uint32_t nan = ax_float_nan(f);
  if (ax_float_is_nan(f, a) || ax_float_is_nan(f, b)) return nan;
  bool sa = ax_float_sign(f, a), sb = ax_float_sign(f, b);
  bool ia = ax_float_is_inf(f, a), ib = ax_float_is_inf(f, b);
  bool za = ax_float_is_zero(f, a), zb = ax_float_is_zero(f, b);
  uint32_t xsign = sa != sb ? m.sign : 0;
  switch (op) {
  case ADD:
    if (ia && ib) return sa == sb ? a : nan;   /* inf − inf */
    if (ia) return a;
    if (ib) return b;
    if (za && zb) return sa && sb ? m.sign : 0;   /* (−0) + (−0) = −0, else +0 */
    break;
  case MUL:
    if ((ia && zb) || (ib && za)) return nan;
    if (ia || ib) return m.expmask | xsign;
    if (za || zb) return xsign;
    break;
  case DIV:
    if ((ia && ib) || (za && zb)) return nan;
    if (ia) return m.expmask | xsign;
    if (ib) return xsign;
    if (zb) return m.expmask | xsign;   /* x / ±0, x ≠ 0 */
    if (za) return xsign;
    break;
  }
  mpq_t x, y;
  mpq_inits(x, y, NULL);
  ax_float_value(f, a, x);
  ax_float_value(f, b, y);
  if (op == ADD) mpq_add(x, x, y);
  else if (op == MUL) mpq_mul(x, x, y);
  else mpq_div(x, x, y);
  /* an exact zero sum of nonzero operands is +0 under roundTiesToEven (IEEE 754 §6.3) */
  uint32_t r = ax_float_round(f, x, op == ADD ? false : xsign != 0);
  mpq_clears(x, y, NULL);
  return r;
}

uint32_t ax_float_add(AxSort f, uint32_t a, uint32_t b) { return arith(f, ADD, a, b); }
uint32_t ax_float_sub(AxSort f, uint32_t a, uint32_t b) {
  return arith(f, ADD, a, ax_float_is_nan(f, b) ? b : b ^ fmt(f).sign);
}
uint32_t ax_float_mul(AxSort f, uint32_t a, uint32_t b) { return arith(f, MUL, a, b); }
uint32_t ax_float_div(AxSort f, uint32_t a, uint32_t b) { return arith(f, DIV, a, b); }
uint32_t ax_float_neg(AxSort f, uint32_t a) {
  return ax_float_is_nan(f, a) ? ax_float_nan(f) : a ^ fmt(f).sign;
}
uint32_t ax_float_abs(AxSort f, uint32_t a) {
  return ax_float_is_nan(f, a) ? ax_float_nan(f) : a & ~fmt(f).sign;
}

int ax_float_cmp(AxSort f, uint32_t a, uint32_t b) {
  if (ax_float_is_nan(f, a) || ax_float_is_nan(f, b)) return 2;
  if (ax_float_is_zero(f, a) && ax_float_is_zero(f, b)) return 0;
  bool sa = ax_float_sign(f, a), sb = ax_float_sign(f, b);
  if (sa != sb) return sa ? -1 : 1;
  uint32_t ma = a & ~fmt(f).sign, mb = b & ~fmt(f).sign;   /* magnitudes order as integers */
  int c = ma < mb ? -1 : ma > mb ? 1 : 0;
  return sa ? -c : c;
}

/* MAXIMUM / MINIMUM (IEEE 754-2019 §9.6): a NaN operand gives NaN; otherwise the larger
 * (smaller) operand, with −0 < +0. */
uint32_t ax_float_max(AxSort f, uint32_t a, uint32_t b) {
  int c = ax_float_cmp(f, a, b);
  if (c == 2) return ax_float_nan(f);
  if (c == 0) return ax_float_sign(f, a) ? b : a;
  return c > 0 ? a : b;
}

uint32_t ax_float_min(AxSort f, uint32_t a, uint32_t b) {
  int c = ax_float_cmp(f, a, b);
  if (c == 2) return ax_float_nan(f);
  if (c == 0) return ax_float_sign(f, a) ? a : b;
  return c < 0 ? a : b;
}

bool ax_float_same(AxSort f, uint32_t a, uint32_t b) {
  return (ax_float_is_nan(f, a) && ax_float_is_nan(f, b)) || a == b;
}

/* --- Text ----------------------------------------------------------------------------- */

char *ax_float_decimal(AxSort f, uint32_t x) {
  bool neg = ax_float_sign(f, x);
  if (ax_float_is_nan(f, x)) return ax_xstrdup("NaN");
  if (ax_float_is_inf(f, x)) return ax_xstrdup(neg ? "-inf" : "inf");
  if (ax_float_is_zero(f, x)) return ax_xstrdup(neg ? "-0" : "0");
  /* |x| = n / 2^k exactly; with k > 0 it is n · 5^k / 10^k: k decimal places */
  mpq_t q;
  mpq_init(q);
  ax_float_value(f, x, q);
  mpq_abs(q, q);
  unsigned long k = mpz_scan1(mpq_denref(q), 0);   /* the denominator is 2^k */
  mpz_t n;
  mpz_init(n);
  mpz_ui_pow_ui(n, 5, k);   /* bounded: k <= 149, the deepest subnormal's exponent */
  mpz_mul(n, n, mpq_numref(q));
  char *digits = mpz_get_str(NULL, 10, n);
  size_t len = strlen(digits);
  char *out = ax_xmalloc(len + k + 4);
  char *p = out;
  if (neg) *p++ = '-';
  if (len <= k) {
    *p++ = '0';
    *p++ = '.';
    for (size_t i = len; i < k; i++) *p++ = '0';
    memcpy(p, digits, len);
    p += len;
  } else {
    memcpy(p, digits, len - k);
    p += len - k;
    if (k) {
      *p++ = '.';
      memcpy(p, digits + len - k, k);
      p += k;
    }
  }
  *p = '\0';
  if (k) {   /* n · 5^k is odd when n is: no trailing zeros, but keep it safe */
    while (p > out && p[-1] == '0') *--p = '\0';
    if (p > out && p[-1] == '.') *--p = '\0';
  }
  void (*gmp_free)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &gmp_free);
  gmp_free(digits, len + 1);
  mpz_clear(n);
  mpq_clear(q);
  return out;
}

char *ax_float_text(AxSort f, uint32_t x) {
  char *d = ax_float_decimal(f, x);
  if (strlen(d) > 32) {   /* the bits are exact; a long decimal is shown to 9 digits */
    mpq_t q;
    mpq_init(q);
    ax_float_value(f, x, q);
    char approx[40];
    snprintf(approx, sizeof approx, "≈ %.9g", mpq_get_d(q));   /* every f32 is a double */
    mpq_clear(q);
    free(d);
    d = ax_xstrdup(approx);
  }
  size_t n = strlen(d) + 32;
  char *out = ax_xmalloc(n);
  snprintf(out, n, "0x%0*x (%s)", ax_float_width(f) / 4, (unsigned)x, d);
  free(d);
  return out;
}

/* --- The concrete IEEE domain ---------------------------------------------------------- */

typedef struct Point {
  int sym;
  size_t n;
  long *idx;
  uint32_t bits;
} Point;

struct AxFloatDom {
  AxConcreteScalars head;   /* first: the domain pointer is the state; its integers and
                               booleans are the concrete domain's own (concrete.h) */
  AxDomain *c;      /* the concrete domain: bool elements */
  AxSort f;
  AxArena *a;
  AxVec points;     /* Point* */
  size_t missing;
};

#define FD(d) ((AxFloatDom *)(d))
#define C(d) (FD(d)->c)

AxV ax_float_dom_elem(AxFloatDom *d, uint32_t bits) {
  uint32_t *p = ax_arena_alloc(d->a, sizeof *p);
  *p = bits;
  return p;
}

uint32_t ax_float_dom_bits(AxV elem) { return *(const uint32_t *)elem; }

static AxV el(AxDomain *d, uint32_t bits) { return ax_float_dom_elem(FD(d), bits); }
static uint32_t bits(AxV v) { return ax_float_dom_bits(v); }

static const char *const int_outside = "integer elements are outside IEEE mode";

static AxV outside(AxDomain *d, const char *why) {
  if (!d->unsupported) d->unsupported = why;
  return el(d, 0);
}

static AxV ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  if (kind == 2 && t != AX_BOOL) return ax_concrete_get_bool(c) ? a : b;
  return C(d)->ite(C(d), c, a, b, kind, t);
}

static AxV elem_lit(AxDomain *d, AxType t, const char *text, int inf_sign) {
  if (t == AX_BOOL) return C(d)->elem_lit(C(d), t, text, inf_sign);
  if (t == AX_INT) return outside(d, int_outside);
  if (inf_sign) return el(d, ax_float_inf(FD(d)->f, inf_sign < 0));
  return el(d, ax_float_from_decimal(FD(d)->f, text));
}

/* a gather index is an int element, which IEEE mode does not model */
static AxV int_of_elem(AxDomain *d, AxV e) {
  (void)e;
  outside(d, int_outside);
  return C(d)->int_small(C(d), 0);
}

static AxV elem_of_int(AxDomain *d, AxType t, AxV i) {
  if (t != AX_REAL) return C(d)->elem_of_int(C(d), t, i);
  mpz_t z;
  mpq_t q;
  mpz_init(z);
  mpq_init(q);
  ax_concrete_get_int(i, z);
  mpq_set_z(q, z);
  AxV r = el(d, ax_float_round(FD(d)->f, q, false));
  mpq_clear(q);
  mpz_clear(z);
  return r;
}

/* ---- element-wise operators ----------------------------------------------------------
 * The operators IEEE mode refuses: the one table of them, with the reason, which both
 * IEEE domains read (ax_float_unmodelled: this replay and the symbolic fpsym.c), so that
 * they refuse the same operators in the same words. Then rows indexed by AxOp: the exact
 * IEEE operation for the operators axle models in floating point, or the concrete domain's
 * operation for bool elements. A new element-wise operator is a row here and in fpsym.c,
 * or an entry of `unmodelled` (tests/unit/check_semantics.c walks AX_OP_LIST for a
 * missing one). */

/* ORDER: by AxOp; operands: the family the operator is refused in (1 unary, 2 binary) */
static const struct Unmodelled {
  const char *why;
  int operands;
} unmodelled[AX_OP_COUNT] = {
    [AX_OP_REM] = {"rem has no IEEE model in axle", 2},
    [AX_OP_POW] = {"an operator without an IEEE model", 2},
    [AX_OP_EXP] = {"exp has no IEEE model", 1},
    [AX_OP_SQRT] = {"an operator without an IEEE model", 1},
    [AX_OP_LOG] = {"an operator without an IEEE model", 1},
    [AX_OP_RSQRT] = {"an operator without an IEEE model", 1},
    /* IEEE mode's elements are of one format: a conversion to another is not modelled */
    [AX_OP_TO_F16] = {"a conversion has no IEEE model in axle", 1},
    [AX_OP_TO_BF16] = {"a conversion has no IEEE model in axle", 1},
    [AX_OP_TO_F32] = {"a conversion has no IEEE model in axle", 1},
};

const char *ax_float_unmodelled(AxOp op, int operands) {
  return (unsigned)op < AX_OP_COUNT && unmodelled[op].operands == operands ? unmodelled[op].why : NULL;
}

typedef struct BinaryRow {
  uint32_t (*fn)(AxSort f, uint32_t a, uint32_t b);
  bool boolean;   /* bool elements (and, or): the concrete domain's */
} BinaryRow;

static const BinaryRow binary[AX_OP_COUNT] = {
    [AX_OP_ADD] = {.fn = ax_float_add}, [AX_OP_SUB] = {.fn = ax_float_sub},
    [AX_OP_MUL] = {.fn = ax_float_mul}, [AX_OP_DIV] = {.fn = ax_float_div},
    [AX_OP_MAX] = {.fn = ax_float_max}, [AX_OP_MIN] = {.fn = ax_float_min},
    [AX_OP_AND] = {.boolean = true},    [AX_OP_OR] = {.boolean = true},
};

typedef struct UnaryRow {
  uint32_t (*fn)(AxSort f, uint32_t a);
  bool boolean;   /* bool elements (not): the concrete domain's */
} UnaryRow;

static const UnaryRow unary[AX_OP_COUNT] = {
    [AX_OP_NEG] = {.fn = ax_float_neg},
    [AX_OP_ABS] = {.fn = ax_float_abs},
    [AX_OP_NOT] = {.boolean = true},
};

/* An operator with neither a row nor a reason: a programming error, reported as the
 * domain's `unsupported` (the result can only be UNKNOWN), never a call through NULL. */
static AxV no_row(AxDomain *d, const char *table, AxOp op) {
  return outside(d, ax_arena_printf(FD(d)->a, "internal: operator '%s' has no row in the IEEE replay's %s table",
                                    (unsigned)op < AX_OP_COUNT ? ax_op_name(op) : "?", table));
}

static AxV elem_binary(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  const BinaryRow *row = (unsigned)op < AX_OP_COUNT ? &binary[op] : NULL;
  if (row && row->boolean) return C(d)->elem_binary(C(d), op, t, a, b);
  const char *refused = ax_float_unmodelled(op, 2);
  if (!row || (!row->fn && !refused)) return no_row(d, "binary", op);
  if (t != AX_REAL) return outside(d, int_outside);
  if (refused) return outside(d, refused);
  return el(d, row->fn(FD(d)->f, bits(a), bits(b)));
}

static AxV elem_unary(AxDomain *d, AxOp op, AxType t, AxV a) {
  const UnaryRow *row = (unsigned)op < AX_OP_COUNT ? &unary[op] : NULL;
  if (row && row->boolean) return C(d)->elem_unary(C(d), op, t, a);
  const char *refused = ax_float_unmodelled(op, 1);
  if (!row || (!row->fn && !refused)) return no_row(d, "unary", op);
  if (t != AX_REAL) return outside(d, int_outside);
  if (refused) return outside(d, refused);
  return el(d, row->fn(FD(d)->f, bits(a)));
}

/* comparisons: the concrete domain's rows (concrete.h) on ax_float_cmp's outcome, which
 * orders -0 = +0 and leaves a NaN unordered */
static AxV elem_compare(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  AxCmpHolds holds = ax_concrete_compare_row(op);
  if (!holds) {
    no_row(d, "compare", op);
    return d->bool_lit(d, false);
  }
  if (t == AX_BOOL) return C(d)->elem_compare(C(d), op, t, a, b);
  if (t != AX_REAL) {
    outside(d, int_outside);
    return d->bool_lit(d, false);
  }
  return d->bool_lit(d, holds(ax_float_cmp(FD(d)->f, bits(a), bits(b))));
}

static AxV elem_same(AxDomain *d, AxType t, AxV a, AxV b) {
  if (t == AX_BOOL) return C(d)->elem_same(C(d), t, a, b);
  return d->bool_lit(d, ax_float_same(FD(d)->f, bits(a), bits(b)));
}

static long small(AxV v) {
  mpz_t z;
  mpz_init(z);
  ax_concrete_get_int(v, z);
  long r = mpz_fits_slong_p(z) ? mpz_get_si(z) : LONG_MIN;
  mpz_clear(z);
  return r;
}

void ax_float_dom_set(AxFloatDom *d, int sym, const AxV *idx, size_t n, uint32_t b) {
  Point *p = ax_arena_alloc(d->a, sizeof *p);
  p->sym = sym;
  p->n = n;
  p->idx = ax_arena_alloc(d->a, (n + 1) * sizeof(long));
  for (size_t k = 0; k < n; k++) p->idx[k] = small(idx[k]);
  p->bits = b;
  ax_vec_push(d->a, &d->points, p);
}

size_t ax_float_dom_missing(const AxFloatDom *d) { return d->missing; }

static AxV read(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n) {
  if (t == AX_BOOL) return C(d)->read(C(d), sym, t, idx, n);
  if (t != AX_REAL) return outside(d, int_outside);
  AxFloatDom *fd = FD(d);
  for (size_t i = fd->points.len; i-- > 0;) {   /* the last setting wins */
    const Point *p = fd->points.items[i];
    if (p->sym != sym || p->n != n) continue;
    size_t k = 0;
    while (k < n && p->idx[k] == small(idx[k])) k++;
    if (k == n) return el(d, p->bits);
  }
  fd->missing++;
  return el(d, 0);
}

/* REDUCE in IEEE mode: the first summand, then acc = acc + body for each further tuple,
 * last index fastest; an empty sum is +0. */
static AxV sum(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
               const char *const *names, const int *axes, const int *pos,
               AxV (*body)(void *, const AxV *), void *ctx) {
  (void)vars;
  (void)names;
  (void)axes;
  (void)pos;
  if (t != AX_REAL) return outside(d, int_outside);
  long total = 1, len[64];
  for (size_t k = 0; k < n && k < 64; k++) {
    long s = small(sizes[k]);
    len[k] = s <= 0 ? 0 : s > (1L << 20) ? (1L << 21) : s;
    total = len[k] && total > (1L << 20) / len[k] ? (1L << 21) : total * len[k];
  }
  AxV acc = el(d, 0);
  if (n > 64 || total > (1L << 20)) return outside(d, "a reduction over more than 2^20 elements");
  AxV idx[64];
  long at[64] = {0};
  for (long i = 0; i < total; i++) {
    for (size_t k = 0; k < n; k++) idx[k] = d->int_small(d, at[k]);
    acc = i == 0 ? body(ctx, idx) : el(d, ax_float_add(FD(d)->f, bits(acc), bits(body(ctx, idx))));
    for (size_t k = n; k-- > 0;) {
      if (++at[k] < len[k]) break;
      at[k] = 0;
    }
  }
  return acc;
}

AxFloatDom *ax_float_dom_new(AxDomain *concrete, AxSort f) {
  AxArena *a = ax_arena_new();
  AxFloatDom *d = ax_arena_alloc(a, sizeof *d);
  memset(d, 0, sizeof *d);
  d->a = a;
  d->c = concrete;
  d->f = f;
  d->head.dom = (AxDomain){.ite = ite,                 .elem_lit = elem_lit,
                           .elem_of_int = elem_of_int, .int_of_elem = int_of_elem,
                           .elem_binary = elem_binary,
                           .elem_unary = elem_unary,   .elem_compare = elem_compare,
                           .elem_same = elem_same,     .read = read,
                           .sum = sum};
  ax_concrete_scalars(&d->head, concrete);
  return d;
}

void ax_float_dom_free(AxFloatDom *d) {
  if (d) ax_arena_free(d->a);
}

AxDomain *ax_float_dom_domain(AxFloatDom *d) { return &d->head.dom; }
