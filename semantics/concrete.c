/* concrete.c — the concrete domain; see concrete.h and docs/semantics.md for the
 * arithmetic of infinities, NaN and division by zero, which this file defines. */
#include "semantics/concrete.h"

#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/decimal.h"
#include "semantics/convert.h"

typedef enum { K_INT, K_BOOL, K_ELEM } Kind;

typedef struct Val {
  Kind kind;
  bool b;            /* K_BOOL, and bool elements */
  mpz_t z;           /* K_INT */
  mpq_t q;           /* K_ELEM (numeric) */
  AxNumClass cls;    /* K_ELEM (numeric) */
  bool is_bool_elem;
} Val;

typedef struct Entry {
  int sym;
  size_t n;
  const Val **idx;
  const Val *value;
} Entry;

struct AxConcrete {
  AxConcreteScalars head;   /* first: the domain pointer is the concrete state; head.c is
                               the domain itself (another domain's head borrows it) */
  AxArena *a;
  AxVec vals;        /* every Val, for clearing */
  AxVec table;       /* Entry* */
  size_t missing;
  int fill;          /* ax_concrete_set_fill */
  bool record;       /* ax_concrete_record_fills */
  AxVec filled;      /* Entry*: unset points read, at most AX_CONCRETE_MAX_FILLED */
  long summands;     /* summands evaluated so far, nested sums included (SUM_BUDGET) */
};

/* The summands one replay may evaluate, over all its reductions, nested ones included:
 * every summand allocates its index and values in the arena until the replay ends, so a
 * model with large sizes and nested sums would exhaust the worker's memory (an ERROR)
 * where it should only leave the replay undone (UNKNOWN). */
#define SUM_BUDGET (1L << 19)
/* The values one replay may hold: a summand of a high rank (one index per named axis, each
 * operator's values per axis) takes kilobytes, so within SUM_BUDGET a replay at rank 10
 * still exhausted a 4 GiB worker (an ERROR where UNKNOWN is due). Checked per summand;
 * the instance's own bookkeeping (denote.c, in the caller's arena) grows alongside. */
#define VALUE_BUDGET ((size_t)256 << 20)

#define C(d) ((AxConcrete *)(d))
/* the state of the integer and boolean operations, in this domain or one sharing them */
#define SC(d) (((AxConcreteScalars *)(d))->c)
#define V(x) ((const Val *)(x))

static Val *mk(AxConcrete *c, Kind k) {
  Val *v = ax_arena_alloc(c->a, sizeof *v);
  v->kind = k;
  if (k == K_INT) mpz_init(v->z);
  if (k == K_ELEM) mpq_init(v->q);
  ax_vec_push(c->a, &c->vals, v);
  return v;
}

static AxV mkbool(AxConcrete *c, bool b) {
  Val *v = mk(c, K_BOOL);
  v->b = b;
  return v;
}

/* ---- integers ------------------------------------------------------------------------- */

static AxV int_lit(AxDomain *d, const char *dec) {
  Val *v = mk(SC(d), K_INT);
  /* bounded: an integer literal has at most AX_DECIMAL_MAX_DIGITS digits (dsl/parser.y) */
  if (mpz_set_str(v->z, dec, 10) != 0) mpz_set_ui(v->z, 0);
  return v;
}

static AxV int_small(AxDomain *d, long n) {
  Val *v = mk(SC(d), K_INT);
  mpz_set_si(v->z, n);
  return v;
}

static AxV iadd(AxDomain *d, AxV a, AxV b) {
  Val *v = mk(SC(d), K_INT);
  mpz_add(v->z, V(a)->z, V(b)->z);
  return v;
}

static AxV isub(AxDomain *d, AxV a, AxV b) {
  Val *v = mk(SC(d), K_INT);
  mpz_sub(v->z, V(a)->z, V(b)->z);
  return v;
}

static AxV imul(AxDomain *d, AxV a, AxV b) {
  Val *v = mk(SC(d), K_INT);
  mpz_mul(v->z, V(a)->z, V(b)->z);
  return v;
}

/* Denotations only divide by a positive divisor where the result matters; elsewhere (an
 * untaken branch) any value will do, so division by zero gives 0 instead of a trap. */
static AxV idiv(AxDomain *d, AxV a, AxV b) {
  Val *v = mk(SC(d), K_INT);
  if (mpz_sgn(V(b)->z) != 0) mpz_fdiv_q(v->z, V(a)->z, V(b)->z);
  return v;
}

static AxV imod(AxDomain *d, AxV a, AxV b) {
  Val *v = mk(SC(d), K_INT);
  if (mpz_sgn(V(b)->z) != 0) mpz_fdiv_r(v->z, V(a)->z, V(b)->z);
  return v;
}

static AxV ilt(AxDomain *d, AxV a, AxV b) { return mkbool(SC(d), mpz_cmp(V(a)->z, V(b)->z) < 0); }
static AxV ile(AxDomain *d, AxV a, AxV b) { return mkbool(SC(d), mpz_cmp(V(a)->z, V(b)->z) <= 0); }
static AxV ieq(AxDomain *d, AxV a, AxV b) { return mkbool(SC(d), mpz_cmp(V(a)->z, V(b)->z) == 0); }

/* ---- booleans ------------------------------------------------------------------------- */

static AxV bool_lit(AxDomain *d, bool b) { return mkbool(SC(d), b); }
static AxV band(AxDomain *d, AxV a, AxV b) { return mkbool(SC(d), V(a)->b && V(b)->b); }
static AxV bor(AxDomain *d, AxV a, AxV b) { return mkbool(SC(d), V(a)->b || V(b)->b); }
static AxV bnot(AxDomain *d, AxV a) { return mkbool(SC(d), !V(a)->b); }

static AxV ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  (void)d;
  (void)kind;
  (void)t;
  return V(c)->b ? a : b;
}

/* ---- elements ------------------------------------------------------------------------- */

static Val *num(AxConcrete *c, AxNumClass cls) {
  Val *v = mk(c, K_ELEM);
  v->cls = cls;
  return v;
}

void ax_decimal_to_mpq(const char *text, mpq_t out) {
  /* Bounded: every literal text comes from a parser that refused one beyond the limits
   * of base/decimal.h (dsl/parser.y; the .mug and HLO readers hold int64 rationals), so the
   * mantissa has at most AX_DECIMAL_MAX_DIGITS digits and the power of ten below is at most
   * 10^(AX_DECIMAL_MAX_DIGITS + AX_DECIMAL_MAX_EXPONENT). A text beyond them is a bug of
   * axle's, stopped here rather than handed to GMP as an exponent it cannot hold. */
  long ex;
  AX_ASSERT(ax_decimal_limit(text, NULL, &ex) == AX_DECIMAL_OK);
  mpz_t mant, p10;
  mpz_inits(mant, p10, NULL);
  long scale = 0;
  const char *s = text;
  for (; *s && *s != 'e' && *s != 'E'; s++) {
    if (*s == '.') {
      scale = -1;
      continue;
    }
    mpz_mul_ui(mant, mant, 10);
    mpz_add_ui(mant, mant, (unsigned long)(*s - '0'));
    if (scale < 0) scale--;
  }
  ex += scale < 0 ? scale + 1 : 0;
  mpz_ui_pow_ui(p10, 10, (unsigned long)(ex < 0 ? -ex : ex));
  if (ex > 0) mpz_mul(mant, mant, p10);
  mpq_set_z(out, mant);
  if (ex < 0) {
    mpq_set_den(out, p10);
    mpq_canonicalize(out);
  }
  mpz_clears(mant, p10, NULL);
}

static AxV elem_lit(AxDomain *d, AxType t, const char *text, int inf_sign) {
  if (t == AX_BOOL) return mkbool(C(d), strcmp(text, "0") != 0);
  if (inf_sign) return num(C(d), inf_sign > 0 ? AX_PINF : AX_NINF);
  Val *v = num(C(d), AX_FIN);
  ax_decimal_to_mpq(text, v->q);
  if (t == AX_INT && mpz_cmp_ui(mpq_denref(v->q), 1) != 0) {   /* 2.5 as an int: truncate */
    mpz_t z;
    mpz_init(z);
    mpz_tdiv_q(z, mpq_numref(v->q), mpq_denref(v->q));
    mpq_set_z(v->q, z);
    mpz_clear(z);
  }
  return v;
}

static AxV elem_of_int(AxDomain *d, AxType t, AxV i) {
  (void)t;
  Val *v = num(C(d), AX_FIN);
  mpq_set_z(v->q, V(i)->z);
  return v;
}

static AxV int_of_elem(AxDomain *d, AxV e) {
  Val *v = mk(C(d), K_INT);
  if (V(e)->cls == AX_FIN) mpz_tdiv_q(v->z, mpq_numref(V(e)->q), mpq_denref(V(e)->q));
  return v;
}

static int sign_of(const Val *a) {
  if (a->cls == AX_PINF) return 1;
  if (a->cls == AX_NINF) return -1;
  return mpq_sgn(a->q);
}

static bool is_inf(const Val *a) { return a->cls == AX_PINF || a->cls == AX_NINF; }

static AxNumClass inf_of(int sign) { return sign > 0 ? AX_PINF : AX_NINF; }

/* the order of two non-NaN extended numbers: <0, 0, >0 */
static int order(const Val *a, const Val *b) {
  if (a->cls == b->cls && is_inf(a)) return 0;
  if (is_inf(a)) return sign_of(a);
  if (is_inf(b)) return -sign_of(b);
  return mpq_cmp(a->q, b->q);
}

/* truncating integer quotient of two finite integral rationals */
static void tdiv(mpq_t out, const mpq_t a, const mpq_t b, bool rem) {
  mpz_t q;
  mpz_init(q);
  if (rem) mpz_tdiv_r(q, mpq_numref(a), mpq_numref(b));
  else mpz_tdiv_q(q, mpq_numref(a), mpq_numref(b));
  mpq_set_z(out, q);
  mpz_clear(q);
}

/* out = x^(p/q) for a rational x > 0 when that is rational (x's numerator and denominator
 * are exact q-th powers) and small enough to compute; false otherwise */
static bool rational_power(mpq_t out, const mpq_t x, const mpq_t e) {
  if (!mpz_fits_slong_p(mpq_numref(e)) || !mpz_fits_ulong_p(mpq_denref(e))) return false;
  long p = mpz_get_si(mpq_numref(e));
  unsigned long q = mpz_get_ui(mpq_denref(e));
  if (q > 64) return false;
  mpz_t n, dd;
  mpz_inits(n, dd, NULL);
  bool ok = mpz_root(n, mpq_numref(x), q) != 0 && mpz_root(dd, mpq_denref(x), q) != 0;
  unsigned long ap = (unsigned long)(p < 0 ? -p : p);
  /* bounded: the powers below have at most 2^16 bits together */
  ok = ok && (mpz_sizeinbase(n, 2) + mpz_sizeinbase(dd, 2)) * ap <= (1ul << 16);
  if (ok) {
    mpz_pow_ui(n, n, ap);
    mpz_pow_ui(dd, dd, ap);
    if (p < 0) mpz_swap(n, dd);
    mpq_set_num(out, n);
    mpq_set_den(out, dd);
    mpq_canonicalize(out);
  }
  mpz_clears(n, dd, NULL);
  return ok;
}

/* ---- element-wise operators ---------------------------------------------------------
 * One named function per operator, dispatched from tables indexed by AxOp: a new
 * element-wise operator is one row here, one in symbolic.c, float.c and fpsym.c, and its
 * functions (tests/unit/check_semantics.c walks AX_OP_LIST for a missing row). */

typedef AxV (*Unary)(AxDomain *d, AxType t, const Val *a);
typedef AxV (*Binary)(AxDomain *d, AxType t, const Val *a, const Val *b);

static bool any_nan(const Val *a, const Val *b) { return a->cls == AX_NAN || b->cls == AX_NAN; }

/* An operator without a row: a programming error, reported as the domain's `unsupported`
 * (so the result can only be UNKNOWN) rather than a call through NULL. */
static AxV no_row(AxDomain *d, const char *table, AxOp op, AxType t) {
  d->unsupported = ax_arena_printf(C(d)->a, "internal: operator '%s' has no row in the concrete domain's %s table",
                                   (unsigned)op < AX_OP_COUNT ? ax_op_name(op) : "?", table);
  return t == AX_BOOL ? mkbool(C(d), false) : num(C(d), AX_FIN);
}

static AxV and_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return mkbool(C(d), a->b && b->b);
}

static AxV or_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return mkbool(C(d), a->b || b->b);
}

/* POW (C99/IEEE pow on axle's numbers, as symbolic.c's pow_ext): pow(x, 0) = pow(1, y) = 1;
 * NaN in, NaN out; finite x < 0 with a non-integer y is NaN; 0^y is 0 or +inf by the sign
 * of y; y = ±inf by |x| against 1; x = ±inf by the sign (and parity) of y. On int, finite
 * x and y < 0 give 0 (XLA's integer power; 1^y = 1 above). Exact where the result is
 * rational; elsewhere (2^(1/2), or too large a power) the replay is refused (UNKNOWN). */
static AxV pow_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  AxConcrete *c = C(d);
  Val *v = num(c, AX_FIN);
  if ((b->cls == AX_FIN && mpq_sgn(b->q) == 0) || (a->cls == AX_FIN && mpq_cmp_ui(a->q, 1, 1) == 0)) {
    mpq_set_ui(v->q, 1, 1);
    return v;
  }
  if (any_nan(a, b)) return num(c, AX_NAN);
  bool integer = b->cls == AX_FIN && mpz_cmp_ui(mpq_denref(b->q), 1) == 0;
  if (is_inf(b)) {   /* by |x| against 1; pow(-1, ±inf) = 1 */
    int mag = is_inf(a) ? 1 : mpz_cmpabs(mpq_numref(a->q), mpq_denref(a->q));
    if (mag == 0) {
      mpq_set_ui(v->q, 1, 1);
      return v;
    }
    return (mag > 0) == (b->cls == AX_PINF) ? num(c, AX_PINF) : v;
  }
  int sb = mpq_sgn(b->q);
  if (a->cls == AX_PINF) return sb > 0 ? num(c, AX_PINF) : v;
  if (a->cls == AX_NINF)
    return sb < 0 ? v : integer && mpz_odd_p(mpq_numref(b->q)) ? num(c, AX_NINF) : num(c, AX_PINF);
  int sa = mpq_sgn(a->q);
  if (t == AX_INT && sb < 0) return v;   /* XLA's integer power: 0 for y < 0 unless x = 1 */
  if (sa == 0) return sb > 0 ? v : num(c, AX_PINF);
  if (sa < 0 && !integer) return num(c, AX_NAN);
  mpq_t m;
  mpq_init(m);
  mpq_abs(m, a->q);
  bool ok = rational_power(v->q, m, b->q);
  mpq_clear(m);
  if (!ok) {
    d->unsupported = "pow of these numbers has no exact rational value (or too large a one)";
    return v;
  }
  if (sa < 0 && mpz_odd_p(mpq_numref(b->q))) mpq_neg(v->q, v->q);
  return v;
}

/* MAX MIN: NaN propagates (as XLA's max and min do); otherwise one of the operands */
static AxV max_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return any_nan(a, b) ? num(C(d), AX_NAN) : order(a, b) >= 0 ? a : b;
}

static AxV min_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return any_nan(a, b) ? num(C(d), AX_NAN) : order(a, b) >= 0 ? b : a;
}

/* ADD SUB on extended numbers: NaN in, NaN out; +inf + -inf = NaN; an infinity wins over a
 * finite value. b enters with the sign `sb` (negated for SUB). */
static AxV add_signed(AxDomain *d, const Val *a, const Val *b, bool sub) {
  AxConcrete *c = C(d);
  if (any_nan(a, b)) return num(c, AX_NAN);
  int sb = sub ? -sign_of(b) : sign_of(b);
  if (is_inf(a) && is_inf(b)) return sign_of(a) == sb ? num(c, inf_of(sb)) : num(c, AX_NAN);
  if (is_inf(a)) return num(c, a->cls);
  if (is_inf(b)) return num(c, inf_of(sb));
  Val *v = num(c, AX_FIN);
  if (sub) mpq_sub(v->q, a->q, b->q);
  else mpq_add(v->q, a->q, b->q);
  return v;
}

static AxV add_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return add_signed(d, a, b, false);
}

static AxV sub_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  (void)t;
  return add_signed(d, a, b, true);
}

/* MUL: inf * 0 = NaN; the sign of an infinite product is the product of the signs */
static AxV mul_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  AxConcrete *c = C(d);
  (void)t;
  if (any_nan(a, b)) return num(c, AX_NAN);
  if (is_inf(a) || is_inf(b)) {
    int s = sign_of(a) * sign_of(b);
    return s == 0 ? num(c, AX_NAN) : num(c, inf_of(s));
  }
  Val *v = num(c, AX_FIN);
  mpq_mul(v->q, a->q, b->q);
  return v;
}

/* DIV: x / 0 (real) = ±inf, 0/0 = NaN, inf / inf = NaN, x / inf = 0; x / 0 (int) = -1
 * (XLA); int division truncates toward zero */
static AxV div_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  AxConcrete *c = C(d);
  if (any_nan(a, b)) return num(c, AX_NAN);
  if (is_inf(a) && is_inf(b)) return num(c, AX_NAN);
  if (is_inf(a)) return num(c, inf_of(sign_of(a) * (sign_of(b) < 0 ? -1 : 1)));
  Val *v = num(c, AX_FIN);
  if (is_inf(b)) return v;   /* finite / inf = 0 */
  if (mpq_sgn(b->q) == 0) {
    if (t == AX_INT) {
      mpq_set_si(v->q, -1, 1);
      return v;
    }
    return mpq_sgn(a->q) == 0 ? num(c, AX_NAN) : num(c, inf_of(mpq_sgn(a->q)));
  }
  if (t == AX_INT) tdiv(v->q, a->q, b->q, false);
  else mpq_div(v->q, a->q, b->q);
  return v;
}

/* REM: inf rem y = NaN, x rem inf = x; x rem 0 = x (int, XLA) or NaN (real); int
 * truncates, real is fmod: a - b * trunc(a / b) */
static AxV rem_op(AxDomain *d, AxType t, const Val *a, const Val *b) {
  AxConcrete *c = C(d);
  if (any_nan(a, b)) return num(c, AX_NAN);
  if (is_inf(a)) return num(c, AX_NAN);
  Val *v = num(c, AX_FIN);
  if (is_inf(b)) {
    mpq_set(v->q, a->q);
    return v;
  }
  if (mpq_sgn(b->q) == 0) {
    if (t == AX_INT) {
      mpq_set(v->q, a->q);
      return v;
    }
    return num(c, AX_NAN);
  }
  if (t == AX_INT) {
    tdiv(v->q, a->q, b->q, true);
    return v;
  }
  mpq_t q;
  mpq_init(q);
  mpq_div(q, a->q, b->q);
  mpz_t z;
  mpz_init(z);
  mpz_tdiv_q(z, mpq_numref(q), mpq_denref(q));
  mpq_set_z(q, z);
  mpq_mul(q, q, b->q);
  mpq_sub(v->q, a->q, q);
  mpz_clear(z);
  mpq_clear(q);
  return v;
}

static const Binary binary[AX_OP_COUNT] = {
    [AX_OP_ADD] = add_op, [AX_OP_SUB] = sub_op, [AX_OP_MUL] = mul_op, [AX_OP_DIV] = div_op,
    [AX_OP_REM] = rem_op, [AX_OP_MAX] = max_op, [AX_OP_MIN] = min_op, [AX_OP_POW] = pow_op,
    [AX_OP_AND] = and_op, [AX_OP_OR] = or_op,
};

static AxV elem_binary(AxDomain *d, AxOp op, AxType t, AxV a, AxV b) {
  Binary f = (unsigned)op < AX_OP_COUNT ? binary[op] : NULL;
  return f ? f(d, t, V(a), V(b)) : no_row(d, "binary", op, t);
}

static AxV not_op(AxDomain *d, AxType t, const Val *a) {
  (void)t;
  return mkbool(C(d), !a->b);
}

static AxV neg_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (is_inf(a)) return num(c, a->cls == AX_PINF ? AX_NINF : AX_PINF);
  if (a->cls == AX_NAN) return num(c, AX_NAN);
  Val *v = num(c, AX_FIN);
  mpq_neg(v->q, a->q);
  return v;
}

static AxV abs_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (is_inf(a)) return num(c, AX_PINF);
  if (a->cls == AX_NAN) return num(c, AX_NAN);
  Val *v = num(c, AX_FIN);
  mpq_abs(v->q, a->q);
  return v;
}

/* EXP: exact only where exp is rational: exp(0) = 1, exp(-inf) = 0, exp(+inf) = +inf */
static AxV exp_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (a->cls == AX_NAN || a->cls == AX_PINF) return num(c, a->cls);
  Val *v = num(c, AX_FIN);
  if (a->cls == AX_NINF) return v;
  if (mpq_sgn(a->q) == 0) {
    mpq_set_ui(v->q, 1, 1);
    return v;
  }
  d->unsupported = "exp of a non-zero number has no exact rational value";
  return v;
}

/* SQRT: the non-negative root, exact where it is rational (numerator and denominator
 * perfect squares); sqrt(x < 0) = sqrt(-inf) = NaN, sqrt(+inf) = +inf, sqrt(NaN) = NaN */
static AxV sqrt_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (a->cls == AX_NAN || a->cls == AX_NINF) return num(c, AX_NAN);
  if (a->cls == AX_PINF) return num(c, AX_PINF);
  if (mpq_sgn(a->q) < 0) return num(c, AX_NAN);
  Val *v = num(c, AX_FIN);
  if (!mpz_perfect_square_p(mpq_numref(a->q)) || !mpz_perfect_square_p(mpq_denref(a->q))) {
    d->unsupported = "sqrt of a number that is not the square of a rational has no exact value";
    return v;
  }
  mpz_sqrt(mpq_numref(v->q), mpq_numref(a->q));
  mpz_sqrt(mpq_denref(v->q), mpq_denref(a->q));
  mpq_canonicalize(v->q);
  return v;
}

/* LOG: exact only where log is rational: log(1) = 0, log(0) = -inf, log(+inf) = +inf;
 * NaN for NaN and x < 0 */
static AxV log_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (a->cls == AX_NAN || sign_of(a) < 0) return num(c, AX_NAN);
  if (a->cls == AX_PINF) return num(c, AX_PINF);
  if (mpq_sgn(a->q) == 0) return num(c, AX_NINF);
  Val *v = num(c, AX_FIN);
  if (mpq_cmp_ui(a->q, 1, 1) != 0) d->unsupported = "log of a number other than 1 has no exact rational value";
  return v;
}

/* RSQRT: 1 / sqrt(x), exact where sqrt(x) is rational */
static AxV rsqrt_op(AxDomain *d, AxType t, const Val *a) {
  AxConcrete *c = C(d);
  (void)t;
  if (a->cls == AX_NAN || sign_of(a) < 0) return num(c, AX_NAN);
  Val *v = num(c, AX_FIN);
  if (a->cls == AX_PINF) return v;
  if (mpq_sgn(a->q) == 0) return num(c, AX_PINF);
  mpq_t h;
  mpq_init(h);
  mpq_set_si(h, -1, 2);
  if (!rational_power(v->q, a->q, h))
    d->unsupported = "rsqrt of a number that is not a rational square has no exact rational value";
  mpq_clear(h);
  return v;
}

/* TO_F16, TO_BF16, TO_F32: the exact rounding to the format (convert.h); NaN and the
 * infinities are kept, a finite value from the overflow threshold on becomes ±inf */
static AxV convert(AxDomain *d, const AxConvFormat *f, const Val *a) {
  AxConcrete *c = C(d);
  if (a->cls != AX_FIN) return num(c, a->cls);
  Val *v = num(c, AX_FIN);
  int over = ax_convert_round(f, a->q, v->q);
  return over ? num(c, over > 0 ? AX_PINF : AX_NINF) : v;
}

static AxV to_f16_op(AxDomain *d, AxType t, const Val *a) {
  (void)t;
  return convert(d, ax_convert_format(AX_OP_TO_F16), a);
}
static AxV to_bf16_op(AxDomain *d, AxType t, const Val *a) {
  (void)t;
  return convert(d, ax_convert_format(AX_OP_TO_BF16), a);
}
static AxV to_f32_op(AxDomain *d, AxType t, const Val *a) {
  (void)t;
  return convert(d, ax_convert_format(AX_OP_TO_F32), a);
}

static const Unary unary[AX_OP_COUNT] = {
    [AX_OP_NOT] = not_op,   [AX_OP_NEG] = neg_op, [AX_OP_ABS] = abs_op, [AX_OP_EXP] = exp_op,
    [AX_OP_SQRT] = sqrt_op, [AX_OP_LOG] = log_op, [AX_OP_RSQRT] = rsqrt_op,
    [AX_OP_TO_F16] = to_f16_op, [AX_OP_TO_BF16] = to_bf16_op, [AX_OP_TO_F32] = to_f32_op,
};

static AxV elem_unary(AxDomain *d, AxOp op, AxType t, AxV a) {
  Unary f = (unsigned)op < AX_OP_COUNT ? unary[op] : NULL;
  return f ? f(d, t, V(a)) : no_row(d, "unary", op, t);
}

/* Comparisons read an ordering outcome: -1, 0, 1 as a <, =, > b, or 2 when they are
 * unordered (a NaN is unordered: only ne holds). The IEEE replay (float.c) reads the same
 * rows with its own outcome. */
static bool eq_holds(int cmp) { return cmp == 0; }
static bool ne_holds(int cmp) { return cmp != 0; }
static bool lt_holds(int cmp) { return cmp == -1; }
static bool le_holds(int cmp) { return cmp == -1 || cmp == 0; }
static bool gt_holds(int cmp) { return cmp == 1; }
static bool ge_holds(int cmp) { return cmp == 1 || cmp == 0; }

static const AxCmpHolds compare[AX_OP_COUNT] = {
    [AX_OP_EQ] = eq_holds, [AX_OP_NE] = ne_holds, [AX_OP_LT] = lt_holds,
    [AX_OP_LE] = le_holds, [AX_OP_GT] = gt_holds, [AX_OP_GE] = ge_holds,
};

AxCmpHolds ax_concrete_compare_row(AxOp op) { return (unsigned)op < AX_OP_COUNT ? compare[op] : NULL; }

/* comparisons: NaN is unordered (only != holds); infinities order as expected; false < true */
static AxV elem_compare(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb) {
  const Val *a = V(pa), *b = V(pb);
  AxCmpHolds holds = ax_concrete_compare_row(op);
  if (!holds) return no_row(d, "compare", op, AX_BOOL);
  int cmp = t == AX_BOOL ? (int)a->b - (int)b->b : any_nan(a, b) ? 2 : order(a, b);
  return mkbool(C(d), holds(cmp == 2 ? 2 : (cmp > 0) - (cmp < 0)));
}

static AxV elem_same(AxDomain *d, AxType t, AxV pa, AxV pb) {
  const Val *a = V(pa), *b = V(pb);
  if (t == AX_BOOL) return mkbool(C(d), a->b == b->b);
  if (a->cls != b->cls) return mkbool(C(d), false);
  return mkbool(C(d), a->cls != AX_FIN || mpq_equal(a->q, b->q));
}

static bool same_index(const Entry *e, int sym, const AxV *idx, size_t n) {
  if (e->sym != sym || e->n != n) return false;
  for (size_t i = 0; i < n; i++)
    if (mpz_cmp(e->idx[i]->z, V(idx[i])->z) != 0) return false;
  return true;
}

/* A sampled fill (modes from AX_CONCRETE_FILL_SAMPLED on): a value drawn from a small set
 * of edge values by a hash of the mode, the tensor and the index — halves and negatives
 * included for reals, so that a base of -1 and an exponent of 1/2 can meet. */
static AxV sampled_value(AxConcrete *c, int sym, AxType t, const AxV *idx, size_t n) {
  static const long nums[] = {0, 1, -1, 2, 1, -1, 3, -2}, dens[] = {1, 1, 1, 1, 2, 2, 1, 1};
  uint64_t h = 0x9e3779b97f4a7c15ULL * (uint64_t)(c->fill + 1) + 0x632be59bd9b4e019ULL * (uint64_t)(sym + 1);
  for (size_t i = 0; i < n; i++) {
    long v = mpz_fits_slong_p(V(idx[i])->z) ? mpz_get_si(V(idx[i])->z) : 1;
    h = (h ^ (uint64_t)v) * 0x100000001b3ULL + (uint64_t)i;
  }
  h ^= h >> 29;
  size_t pick = (size_t)(h % 8);
  if (t == AX_BOOL) return mkbool(c, pick & 1);
  Val *v = num(c, AX_FIN);
  mpq_set_si(v->q, nums[pick], t == AX_REAL ? (unsigned long)dens[pick] : 1);
  mpq_canonicalize(v->q);
  return v;
}

/* What the unset point idx of a tensor of element type t reads as (ax_concrete_set_fill). */
static AxV fill_value(AxConcrete *c, int sym, AxType t, const AxV *idx, size_t n) {
  if (!c->fill) return elem_lit(&c->head.dom, t, "0", 0);
  if (c->fill >= AX_CONCRETE_FILL_SAMPLED) return sampled_value(c, sym, t, idx, n);
  long h = 7L * c->fill + 11L * (sym + 1);
  for (size_t i = 0; i < n; i++) h += 31L * (long)(i + 1) * (mpz_fits_slong_p(V(idx[i])->z) ? mpz_get_si(V(idx[i])->z) : 1);
  h = ((h % 13) + 13) % 13 - 6;
  if (t == AX_BOOL) return mkbool(c, h & 1);
  Val *v = num(c, AX_FIN);
  mpq_set_si(v->q, h, 1);
  return v;
}

static Entry *entry(AxConcrete *c, int sym, const AxV *idx, size_t n, AxV value) {
  Entry *e = ax_arena_alloc(c->a, sizeof *e);
  e->sym = sym;
  e->n = n;
  e->idx = ax_arena_alloc(c->a, (n + 1) * sizeof(Val *));
  for (size_t i = 0; i < n; i++) e->idx[i] = V(idx[i]);
  e->value = V(value);
  return e;
}

static AxV read(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n) {
  AxConcrete *c = C(d);
  for (size_t i = 0; i < c->table.len; i++) {
    const Entry *e = c->table.items[i];
    if (same_index(e, sym, idx, n)) return e->value;
  }
  c->missing++;
  AxV v = fill_value(c, sym, t, idx, n);
  if (c->record && c->filled.len < AX_CONCRETE_MAX_FILLED) {
    bool seen = false;
    for (size_t i = 0; i < c->filled.len && !seen; i++) seen = same_index(c->filled.items[i], sym, idx, n);
    if (!seen) ax_vec_push(c->a, &c->filled, entry(c, sym, idx, n, v));
  }
  return v;
}

void ax_concrete_record_fills(AxConcrete *c) { c->record = true; }

size_t ax_concrete_nfilled(const AxConcrete *c) { return c->filled.len; }

void ax_concrete_filled(const AxConcrete *c, size_t i, int *sym, const AxV **idx, size_t *n, AxV *value) {
  const Entry *e = c->filled.items[i];
  *sym = e->sym;
  *idx = (const AxV *)e->idx;
  *n = e->n;
  *value = e->value;
}

void ax_concrete_set_fill(AxConcrete *c, int mode) { c->fill = mode; }

const char *ax_concrete_fill_text(int mode) {
  if (mode >= AX_CONCRETE_FILL_SAMPLED) return "sampled (each point read is listed)";
  return mode ? "((7k + 11t + 31 * sum of (i+1) * index_i) mod 13) - 6" : "0";
}

/* REDUCE: every index tuple in the box, in order; too large a box is refused rather than
 * ground through (a counterexample with a million-element reduction is not a useful one). */
static AxV sum(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
               const char *const *names, const int *axes, const int *pos,
               AxV (*body)(void *, const AxV *), void *ctx) {
  (void)vars;
  (void)names;
  (void)axes;
  (void)pos;
  long total = 1, len[64];
  for (size_t k = 0; k < n && k < 64; k++) {
    mpz_srcptr z = V(sizes[k])->z;
    len[k] = mpz_sgn(z) <= 0 ? 0 : mpz_fits_slong_p(z) ? mpz_get_si(z) : 1L << 40;
    total = len[k] && total > (1L << 20) / len[k] ? (1L << 21) : total * len[k];
  }
  AxV acc = elem_lit(d, t, "0", 0);
  if (total > (1L << 20)) {
    d->unsupported = "a reduction over more than 2^20 elements cannot be replayed";
    return acc;
  }
  if (C(d)->summands + total > SUM_BUDGET) {
    d->unsupported = "the replay's reductions need more than 2^19 summands in all";
    return acc;
  }
  C(d)->summands += total;
  AxV idx[64];
  long at[64] = {0};
  for (long i = 0; i < total; i++) {
    if (ax_arena_bytes(C(d)->a) > VALUE_BUDGET) {
      d->unsupported = "the replay's reductions need more than 256 MB of values";
      return acc;
    }
    for (size_t k = 0; k < n; k++) idx[k] = int_small(d, at[k]);
    acc = add_op(d, t, V(acc), V(body(ctx, idx)));
    for (size_t k = n; k-- > 0;) {   /* odometer, last index fastest */
      if (++at[k] < len[k]) break;
      at[k] = 0;
    }
  }
  return acc;
}

AxConcrete *ax_concrete_new(void) {
  AxArena *a = ax_arena_new();
  AxConcrete *c = ax_arena_alloc(a, sizeof *c);
  c->a = a;
  c->head.c = c;
  c->head.dom = (AxDomain){.int_lit = int_lit,         .int_small = int_small,
                      .iadd = iadd,               .isub = isub,
                      .imul = imul,               .idiv = idiv,
                      .imod = imod,               .ilt = ilt,
                      .ile = ile,                 .ieq = ieq,
                      .bool_lit = bool_lit,       .band = band,
                      .bor = bor,                 .bnot = bnot,
                      .ite = ite,                 .elem_lit = elem_lit,
                      .elem_of_int = elem_of_int, .int_of_elem = int_of_elem,
                      .elem_binary = elem_binary,
                      .elem_unary = elem_unary,   .elem_compare = elem_compare,
                      .elem_same = elem_same,     .read = read,
                      .sum = sum};
  return c;
}

void ax_concrete_free(AxConcrete *c) {
  if (!c) return;
  for (size_t i = 0; i < c->vals.len; i++) {
    Val *v = c->vals.items[i];
    if (v->kind == K_INT) mpz_clear(v->z);
    if (v->kind == K_ELEM) mpq_clear(v->q);
  }
  ax_arena_free(c->a);
}

AxDomain *ax_concrete_domain(AxConcrete *c) { return &c->head.dom; }

void ax_concrete_scalars(AxConcreteScalars *head, AxDomain *concrete) {
  const AxDomain *from = concrete;
  head->c = C(concrete);
  head->dom.int_lit = from->int_lit;
  head->dom.int_small = from->int_small;
  head->dom.iadd = from->iadd;
  head->dom.isub = from->isub;
  head->dom.imul = from->imul;
  head->dom.idiv = from->idiv;
  head->dom.imod = from->imod;
  head->dom.ilt = from->ilt;
  head->dom.ile = from->ile;
  head->dom.ieq = from->ieq;
  head->dom.bool_lit = from->bool_lit;
  head->dom.band = from->band;
  head->dom.bor = from->bor;
  head->dom.bnot = from->bnot;
}

AxV ax_concrete_int(AxConcrete *c, const mpz_t v) {
  Val *x = mk(c, K_INT);
  mpz_set(x->z, v);
  return x;
}

AxV ax_concrete_elem(AxConcrete *c, AxType t, AxNumClass cls, const mpq_t v, bool b) {
  if (t == AX_BOOL) return mkbool(c, b);
  Val *x = num(c, cls);
  if (cls == AX_FIN) mpq_set(x->q, v);
  return x;
}

void ax_concrete_set(AxConcrete *c, int sym, const AxV *idx, size_t n, AxV value) {
  for (size_t i = 0; i < c->table.len; i++) {
    Entry *e = c->table.items[i];
    if (same_index(e, sym, idx, n)) {
      e->value = V(value);
      return;
    }
  }
  ax_vec_push(c->a, &c->table, entry(c, sym, idx, n, value));
}

size_t ax_concrete_missing(const AxConcrete *c) { return c->missing; }

void ax_concrete_get_int(AxV v, mpz_t out) { mpz_set(out, V(v)->z); }
bool ax_concrete_get_bool(AxV v) { return V(v)->b; }

AxNumClass ax_concrete_get_elem(AxV v, mpq_t out) {
  if (V(v)->cls == AX_FIN) mpq_set(out, V(v)->q);
  return V(v)->cls;
}

char *ax_concrete_text(AxV pv) {
  const Val *v = V(pv);
  if (v->kind == K_BOOL) return ax_xstrdup(v->b ? "true" : "false");
  if (v->kind == K_INT) {
    char *s = mpz_get_str(NULL, 10, v->z);
    char *r = ax_xstrdup(s);
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    freefn(s, strlen(s) + 1);
    return r;
  }
  switch (v->cls) {
  case AX_PINF: return ax_xstrdup("+inf");
  case AX_NINF: return ax_xstrdup("-inf");
  case AX_NAN: return ax_xstrdup("NaN");
  default: {
    char *s = mpq_get_str(NULL, 10, v->q);
    char *r = ax_xstrdup(s);
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    freefn(s, strlen(s) + 1);
    return r;
  }
  }
}
