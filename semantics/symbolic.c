/* symbolic.c — the symbolic domain; see symbolic.h. The arithmetic of infinities and NaN
 * mirrors concrete.c exactly (docs/semantics.md states it once for both). */
#include "semantics/symbolic.h"

#include <string.h>

#include "dsl/check.h"
#include "semantics/concrete.h"
#include "semantics/convert.h"

typedef const AxTerm *T;

/* A reduction element Red_X f(X) (TensorRight §5): the sum of the element over every
 * tuple of the summation variables X that satisfies dom. */
typedef struct Red {
  size_t n;
  T *vars;
  T dom;
} Red;

struct Union;

/* A numeric element: value and flags. Bool elements are plain Bool terms. When red is
 * set, v/nan/pinf/ninf are the summand f(X) and the element is Red_X f(X); `un` is set
 * only on the element add_sums made of a plain value and a reduction (its parts). */
typedef struct Ext {
  T v, nan, pinf, ninf;
  const Red *red;
  const struct Union *un;
} Ext;

/* v + Σ g as add_sums builds it (a Red over a tag variable: the plain value v at one tag,
 * every other variable pinned to 0, the sum's summand at the other): its two operands. A
 * plain value or another such union added to it regroups — w + (v + Σ g) = (w + v) + Σ g,
 * (v + Σ g) + (w + Σ h) = (v + w) + (Σ g + Σ h) — so that sides that add their plain
 * terms in different orders build unions of one shape, which the bijection proof pairs.
 * Exact: a summand is finite wherever it counts (with_red's obligation), so the sum of
 * the parts is associative and commutative there. */
typedef struct Union {
  const Ext *plain, *sum;
} Union;

struct AxSymbolic {
  AxTermScalars head;   /* first: the domain pointer is the symbolic state */
  AxArena *a;
  const char *const *names;   /* tensor names by symbol index */
  AxVec reads;                /* AxRead* */
  AxVec sumvars;              /* AxSumVar*: summation variables made here */
  int fresh;                  /* counter for fresh variable names */
  int groups;                 /* counter for summation-variable groups (AxSumVar) */
  AxVec not_finite;           /* T: "a summand of a reduction is not finite" (obligations) */
  AxVec facts;                /* T: definitional facts of sqrt applications */
  AxVec closed;               /* AxClosedSum*: sums closed under a function (sqrt) */
};

#define S(d) ((AxSymbolic *)(d))
#define TC(d) (((AxTermScalars *)(d))->tc)

/* The names of this domain's own uninterpreted functions (no rule symbol contains '.'),
 * read back by ax_symbolic_fn. */
#define SQRT_FN "axle.sqrt"
#define IPOW_FN "ipow.ax"
#define POW_INT_FN "pow.int.ax"
#define POW_ODD_FN "pow.odd.ax"
#define ROUND_PREFIX "axle.round_"
#define SUM_PREFIX "axle.sum."

static T and2(AxDomain *d, T a, T b) { return ax_term_mk_and2(TC(d), a, b); }
static T or2(AxDomain *d, T a, T b) { return ax_term_mk_or2(TC(d), a, b); }
static T not1(AxDomain *d, T a) { return ax_term_mk_not(TC(d), a); }
static T fls(AxDomain *d) { return ax_term_mk_false(TC(d)); }
static T zero(AxDomain *d, AxType t) {
  return t == AX_REAL ? ax_term_mk_real_si(TC(d), 0, 1) : ax_term_mk_int_si(TC(d), 0);
}

/* ---- integers and booleans ------------------------------------------------------------ */

static AxV int_lit(AxDomain *d, const char *dec) { return ax_term_mk_int_str(TC(d), dec); }
static AxV int_small(AxDomain *d, long v) { return ax_term_mk_int_si(TC(d), v); }
static AxV iadd(AxDomain *d, AxV a, AxV b) { return ax_term_mk_add2(TC(d), a, b); }
static AxV isub(AxDomain *d, AxV a, AxV b) { return ax_term_mk_sub(TC(d), a, b); }
static AxV imul(AxDomain *d, AxV a, AxV b) { return ax_term_mk_mul2(TC(d), a, b); }
/* SMT-LIB div/mod are Euclidean: for a positive divisor they are floor division and its
 * remainder, which is all the denotations ask for (domain.h). */
static AxV idiv(AxDomain *d, AxV a, AxV b) { return ax_term_mk_div(TC(d), a, b); }
static AxV imod(AxDomain *d, AxV a, AxV b) { return ax_term_mk_mod(TC(d), a, b); }
static AxV ilt(AxDomain *d, AxV a, AxV b) { return ax_term_mk_lt(TC(d), a, b); }
static AxV ile(AxDomain *d, AxV a, AxV b) { return ax_term_mk_le(TC(d), a, b); }
static AxV ieq(AxDomain *d, AxV a, AxV b) { return ax_term_mk_eq(TC(d), a, b); }
static AxV bool_lit(AxDomain *d, bool v) { return ax_term_mk_bool(TC(d), v); }
static AxV band(AxDomain *d, AxV a, AxV b) { return and2(d, a, b); }
static AxV bor(AxDomain *d, AxV a, AxV b) { return or2(d, a, b); }
static AxV bnot(AxDomain *d, AxV a) { return not1(d, a); }

void ax_symbolic_scalars(AxDomain *d) {
  d->int_lit = int_lit;
  d->int_small = int_small;
  d->iadd = iadd;
  d->isub = isub;
  d->imul = imul;
  d->idiv = idiv;
  d->imod = imod;
  d->ilt = ilt;
  d->ile = ile;
  d->ieq = ieq;
  d->bool_lit = bool_lit;
  d->band = band;
  d->bor = bor;
  d->bnot = bnot;
}

static Ext *ext(AxDomain *d, T v, T nan, T pinf, T ninf) {
  Ext *e = ax_arena_alloc(S(d)->a, sizeof *e);
  *e = (Ext){v, nan, pinf, ninf, NULL, NULL};
  return e;
}

static Ext *finite(AxDomain *d, T v) { return ext(d, v, fls(d), fls(d), fls(d)); }

static AxV plain_ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  AxTermCtx *tc = TC(d);
  if (kind != 2 || t == AX_BOOL) return ax_term_mk_ite(tc, c, a, b);
  const Ext *x = a, *y = b;
  return ext(d, ax_term_mk_ite(tc, c, x->v, y->v), ax_term_mk_ite(tc, c, x->nan, y->nan),
             ax_term_mk_ite(tc, c, x->pinf, y->pinf), ax_term_mk_ite(tc, c, x->ninf, y->ninf));
}

/* ---- elements ------------------------------------------------------------------------- */

static AxV elem_lit(AxDomain *d, AxType t, const char *text, int inf_sign) {
  if (t == AX_BOOL) return ax_term_mk_bool(TC(d), strcmp(text, "0") != 0);
  if (inf_sign)
    return ext(d, zero(d, t), fls(d), ax_term_mk_bool(TC(d), inf_sign > 0),
               ax_term_mk_bool(TC(d), inf_sign < 0));
  mpq_t q;
  mpq_init(q);
  ax_decimal_to_mpq(text, q);
  T v;
  if (t == AX_INT) {   /* a decimal in an int context truncates, as in concrete.c */
    mpz_t z;
    mpz_init(z);
    mpz_tdiv_q(z, mpq_numref(q), mpq_denref(q));
    v = ax_term_mk_int(TC(d), z);
    mpz_clear(z);
  } else {
    v = ax_term_mk_real(TC(d), q);
  }
  mpq_clear(q);
  return finite(d, v);
}

static AxV elem_of_int(AxDomain *d, AxType t, AxV i) {
  return finite(d, t == AX_REAL ? ax_term_mk_to_real(TC(d), i) : (T)i);
}

/* a gather index: the value term of an int element; a sum as an index is outside the
 * fragment (its value is no term here) */
static AxV int_of_elem(AxDomain *d, AxV e) {
  const Ext *x = e;
  if (x->red) {
    if (!d->unsupported) d->unsupported = "a gather index that is a sum (reduce, dot) is not supported";
    return ax_term_mk_int_si(TC(d), 0);
  }
  return x->v;
}

static T is_fin(AxDomain *d, const Ext *x) {
  return not1(d, or2(d, x->nan, or2(d, x->pinf, x->ninf)));
}
static T is_inf(AxDomain *d, const Ext *x) { return or2(d, x->pinf, x->ninf); }
static T fin_zero(AxDomain *d, const Ext *x, AxType t) {
  return and2(d, is_fin(d, x), ax_term_mk_eq(TC(d), x->v, zero(d, t)));
}
static T positive(AxDomain *d, const Ext *x, AxType t) {   /* +inf or finite > 0 */
  return or2(d, x->pinf, and2(d, is_fin(d, x), ax_term_mk_lt(TC(d), zero(d, t), x->v)));
}
static T negative(AxDomain *d, const Ext *x, AxType t) {   /* -inf or finite < 0 */
  return or2(d, x->ninf, and2(d, is_fin(d, x), ax_term_mk_lt(TC(d), x->v, zero(d, t))));
}

/* a >= b for non-NaN extended numbers */
static T ge(AxDomain *d, const Ext *a, const Ext *b) {
  return or2(d, or2(d, a->pinf, b->ninf),
             and2(d, and2(d, is_fin(d, a), is_fin(d, b)), ax_term_mk_le(TC(d), b->v, a->v)));
}

static Ext *neg(AxDomain *d, const Ext *a) {
  return ext(d, ax_term_mk_neg(TC(d), a->v), a->nan, a->ninf, a->pinf);
}

/* result flags from "is NaN", "is infinite" and "positive when infinite" */
static Ext *with_flags(AxDomain *d, T v, T nan, T inf, T pos) {
  T infr = and2(d, not1(d, nan), inf);
  return ext(d, v, nan, and2(d, infr, pos), and2(d, infr, not1(d, pos)));
}

/* |a| with the sign of `same` ? + : -  (for truncating integer division) */
static T signed_as(AxDomain *d, T same, T mag) {
  return ax_term_mk_ite(TC(d), same, mag, ax_term_mk_neg(TC(d), mag));
}

/* ---- log, pow, rsqrt (real only; docs/semantics.md states the model) ------------------ */

static Ext *nan_ext(AxDomain *d, AxType t) {
  return ext(d, zero(d, t), ax_term_mk_true(TC(d)), fls(d), fls(d));
}
static Ext *inf_ext(AxDomain *d, AxType t, int sign) {
  return ext(d, zero(d, t), fls(d), ax_term_mk_bool(TC(d), sign > 0), ax_term_mk_bool(TC(d), sign < 0));
}
static const Ext *pick(AxDomain *d, AxType t, T c, const Ext *a, const Ext *b) {
  return plain_ite(d, c, (AxV)a, (AxV)b, 2, t);
}

/* x is a finite numeral (all flags false, value a constant): its value in q */
static bool numeral(const Ext *x, mpq_t q) {
  if (x->red || ax_term_kind(x->nan) != AX_TERM_FALSE || ax_term_kind(x->pinf) != AX_TERM_FALSE ||
      ax_term_kind(x->ninf) != AX_TERM_FALSE || !ax_term_is_const(x->v) ||
      ax_term_sort(x->v) == AX_SORT_BOOL)
    return false;
  ax_term_real_value(x->v, q);
  return true;
}

/* an uninterpreted function of two reals (reserved names: no rule symbol contains '.') */
static T app2(AxDomain *d, const char *name, AxSort res, T x, T y) {
  AxSort rr[2] = {AX_SORT_REAL, AX_SORT_REAL};
  const AxFunc *f = ax_term_func(TC(d), name, y ? 2 : 1, rr, res);
  AX_ASSERT(f);
  T args[2] = {x, y};
  return ax_term_mk_app(TC(d), f, y ? 2 : 1, args);
}

/* "y is an integer": to_real(k(y)) = y for an uninterpreted k : Real -> Int; "y is an odd
 * integer": to_real(2 j(y) + 1) = y. Exact for a y that is not (no k or j can make it one);
 * for a y that is, the true k and j make it so, so the real pow is among the models. */
static T integer_of(AxDomain *d, T y) {
  return ax_term_mk_eq(TC(d), ax_term_mk_to_real(TC(d), app2(d, POW_INT_FN, AX_SORT_INT, y, NULL)), y);
}
static T odd_of(AxDomain *d, T y) {
  AxTermCtx *tc = TC(d);
  T j = app2(d, POW_ODD_FN, AX_SORT_INT, y, NULL);
  T k = ax_term_mk_add2(tc, ax_term_mk_mul2(tc, ax_term_mk_int_si(tc, 2), j), ax_term_mk_int_si(tc, 1));
  return ax_term_mk_eq(tc, ax_term_mk_to_real(tc, k), y);
}

static void add_fact(AxDomain *d, T fact);

/* e^(y log x), the real power x^y of an x > 0. For y = ±1/2 (sqrt and rsqrt through pow,
 * and rsqrt itself) the power's defining fact is added, as sqrt_op does for axle.sqrt:
 * x > 0 => (w > 0 ∧ w·w = x) for y = 1/2, x > 0 => (w > 0 ∧ w·w·x = 1) for y = -1/2 — true
 * of the real power, so sound for proofs; it lets the solvers relate the power to
 * axle.sqrt (A/rsqrt(B) = A·sqrt(B)), which the uninterpreted exp and log alone cannot. */
static T exp_log(AxDomain *d, T x, T y) {
  AxTermCtx *tc = TC(d);
  T w = ax_term_mk_exp(tc, ax_term_mk_mul2(tc, y, ax_term_mk_log(tc, x)));
  mpq_t q;
  mpq_init(q);
  if (ax_term_is_const(y) && ax_term_sort(y) == AX_SORT_REAL) {
    ax_term_real_value(y, q);
    bool half = mpz_cmp_ui(mpq_denref(q), 2) == 0 && mpz_cmpabs_ui(mpq_numref(q), 1) == 0;
    if (half) {
      T z = ax_term_mk_real_si(tc, 0, 1), one = ax_term_mk_real_si(tc, 1, 1);
      T sq = ax_term_mk_mul2(tc, w, w);
      T def = mpz_sgn(mpq_numref(q)) > 0 ? ax_term_mk_eq(tc, sq, x)
                                          : ax_term_mk_eq(tc, ax_term_mk_mul2(tc, sq, x), one);
      add_fact(d, ax_term_mk_implies(tc, ax_term_mk_lt(tc, z, x),
                                     and2(d, ax_term_mk_lt(tc, z, w), def)));
    }
  }
  mpq_clear(q);
  return w;
}

static AxV plain_binary(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb);

/* the constant n in t's sort */
static T cnum(AxDomain *d, AxType t, long n) {
  return t == AX_REAL ? ax_term_mk_real_si(TC(d), n, 1) : ax_term_mk_int_si(TC(d), n);
}

/* XLA's integer power of finite x, y (its HLO evaluator and its LLVM emitter agree):
 * x^0 = 1 and 1^y = 1 for every x, y; x^y for y > 0; and 0 for y < 0 otherwise — so
 * (-1)^-1 = 0 and 0^-1 = 0, where the real power gives -1 and +inf. axle's int is unbounded:
 * x^y is exact, no wrap-around. A numeral exponent k with |k| <= 16 is decided here (k
 * multiplications; ite(x = 1, 1, 0) for k < 0). Any other exponent y > 0 is an application
 * w = ipow.ax(x, y) of an uninterpreted Int x Int -> Int (a reserved name) with the facts
 * y = 1 => w = x and (y >= 1 ∧ x ∈ {0, 1}) => w = x, true of x^y (sound for proofs); a model
 * whose w is not the true power does not replay (UNKNOWN, never INVALID). */
static const Ext *int_power(AxDomain *d, const Ext *fin, const Ext *b, bool small, long k) {
  AxTermCtx *tc = TC(d);
  T x = fin->v, y = b->v, one = cnum(d, AX_INT, 1), nul = cnum(d, AX_INT, 0);
  T unit = ax_term_mk_eq(tc, x, one);
  if (small && k < 0) return finite(d, ax_term_mk_ite(tc, unit, one, nul));
  if (small) {
    const Ext *p = finite(d, one);
    for (long i = 0; i < k; i++) p = plain_binary(d, AX_OP_MUL, AX_INT, (AxV)p, (AxV)fin);
    return p;
  }
  AxSort ii[2] = {AX_SORT_INT, AX_SORT_INT};
  const AxFunc *f = ax_term_func(tc, IPOW_FN, 2, ii, AX_SORT_INT);
  AX_ASSERT(f);
  T args[2] = {x, y};
  T w = ax_term_mk_app(tc, f, 2, args);
  T pos = ax_term_mk_le(tc, one, y);
  T small_base = or2(d, unit, ax_term_mk_eq(tc, x, nul));
  add_fact(d, and2(d, ax_term_mk_implies(tc, ax_term_mk_eq(tc, y, one), ax_term_mk_eq(tc, w, x)),
                   ax_term_mk_implies(tc, and2(d, pos, small_base), ax_term_mk_eq(tc, w, x))));
  T v = ax_term_mk_ite(tc, or2(d, unit, ax_term_mk_eq(tc, y, nul)), one,
                       ax_term_mk_ite(tc, pos, w, nul));
  return finite(d, v);
}

/* POW (C99/IEEE pow on axle's numbers): pow(x, 0) = 1 and pow(1, y) = 1 for every x, y;
 * otherwise NaN in gives NaN. Finite x, y: x > 0 gives e^(y log x); x = 0 gives 0 for
 * y > 0 and +inf for y < 0; x < 0 gives x^y for an integer y and NaN otherwise (on int,
 * finite x and y give XLA's integer power instead: int_power). y = ±inf:
 * by |x| against 1 (pow(-1, ±inf) = 1). x = +inf: +inf for y > 0, 0 for y < 0; x = -inf:
 * 0 for y < 0, -inf for an odd integer y > 0, +inf for other y > 0. A numeral exponent
 * is decided here (an integer k with |k| <= 16 by multiplications, so pow(A, 2) is A * A);
 * a symbolic exponent leaves the negative-base value, whether it is NaN, and whether y is
 * an odd integer to uninterpreted functions (sound: the true pow is one of them). */
static const Ext *pow_ext(AxDomain *d, AxType t, const Ext *a, const Ext *b) {
  AxTermCtx *tc = TC(d);
  T r1 = cnum(d, t, 1), rm1 = cnum(d, t, -1);
  const Ext *one = finite(d, r1), *nul = finite(d, cnum(d, t, 0)), *pinf = inf_ext(d, t, 1),
            *nan = nan_ext(d, t);
  mpq_t q;
  mpq_init(q);
  bool known = numeral(b, q);
  bool integer = known && mpz_cmp_ui(mpq_denref(q), 1) == 0;
  bool small = integer && mpz_cmpabs_ui(mpq_numref(q), 16) <= 0;
  long k = small ? mpz_get_si(mpq_numref(q)) : 0;
  bool odd_k = integer && mpz_odd_p(mpq_numref(q));
  mpq_clear(q);
  const Ext *fin = finite(d, a->v);   /* a, read in a branch where it is finite */
  T apos = ax_term_mk_lt(tc, zero(d, t), a->v), azero = ax_term_mk_eq(tc, a->v, zero(d, t));
  T bpos = ax_term_mk_lt(tc, zero(d, t), b->v);
  /* finite ** finite */
  const Ext *ff;
  if (t == AX_INT) {
    ff = int_power(d, fin, b, small, k);
  } else if (small) {   /* x^k by multiplications: exact for every finite x (0^-k = 1/0 = +inf) */
    const Ext *p = one;
    for (long i = 0; i < (k < 0 ? -k : k); i++) p = plain_binary(d, AX_OP_MUL, t, (AxV)p, (AxV)fin);
    ff = k < 0 ? plain_binary(d, AX_OP_DIV, t, (AxV)one, (AxV)p) : p;
  } else {
    const Ext *neg;
    if (integer) {   /* (-1)^k e^(k log -x) */
      T m = exp_log(d, ax_term_mk_neg(tc, a->v), b->v);
      neg = finite(d, odd_k ? ax_term_mk_neg(tc, m) : m);
    } else if (known) {   /* a non-integer power of a negative number */
      neg = nan;
    } else {   /* (-1)^y e^(y log -x) if y is an integer, else NaN */
      T m = exp_log(d, ax_term_mk_neg(tc, a->v), b->v);
      neg = ext(d, ax_term_mk_ite(tc, odd_of(d, b->v), ax_term_mk_neg(tc, m), m),
                not1(d, integer_of(d, b->v)), fls(d), fls(d));
    }
    ff = pick(d, t, apos, finite(d, exp_log(d, a->v, b->v)),
              pick(d, t, azero, pick(d, t, bpos, nul, pinf), neg));
  }
  /* |x| > 1, |x| < 1 (x not NaN) */
  T big = or2(d, is_inf(d, a), and2(d, is_fin(d, a), or2(d, ax_term_mk_lt(tc, r1, a->v),
                                                            ax_term_mk_lt(tc, a->v, rm1))));
  T little = and2(d, is_fin(d, a), and2(d, ax_term_mk_lt(tc, rm1, a->v), ax_term_mk_lt(tc, a->v, r1)));
  /* y odd: an int y is odd when y mod 2 = 1 (Euclidean mod, exact) */
  T odd = integer ? ax_term_mk_bool(tc, odd_k)
          : known ? fls(d)
          : t == AX_INT ? ax_term_mk_eq(tc, ax_term_mk_mod(tc, b->v, cnum(d, t, 2)), r1)
                        : odd_of(d, b->v);
  const Ext *r =
      pick(d, t, a->pinf, pick(d, t, bpos, pinf, nul),
           /* a = -inf */ pick(d, t, bpos, pick(d, t, odd, inf_ext(d, t, -1), pinf), nul));
  r = pick(d, t, b->ninf, pick(d, t, big, nul, pick(d, t, little, pinf, one)), r);
  r = pick(d, t, b->pinf, pick(d, t, big, pinf, pick(d, t, little, nul, one)), r);
  r = pick(d, t, and2(d, is_fin(d, a), is_fin(d, b)), ff, r);
  r = pick(d, t, or2(d, a->nan, b->nan), nan, r);
  /* pow(1, y) = 1 for y = ±inf or NaN here; for a finite y the finite case gives it
   * (1^k, e^(y log 1) = e^0), which spares the solver the question whether a power is 1 */
  T one_case = or2(d, fin_zero(d, b, t), and2(d, not1(d, is_fin(d, b)),
                                              and2(d, is_fin(d, a), ax_term_mk_eq(tc, a->v, r1))));
  return pick(d, t, one_case, one, r);
}

/* ---- element-wise operators on values --------------------------------------------------
 * One named function per operator; the tables after the reduction section dispatch to
 * them. A numeric binary row gets `anynan` (either operand NaN), which the dispatcher
 * builds first for every numeric row, as most of them need it. */

static AxV and_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  (void)t;
  (void)anynan;
  return and2(d, a, b);
}

static AxV or_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  (void)t;
  (void)anynan;
  return or2(d, a, b);
}

/* ADD: +inf + -inf = NaN; an infinity wins over a finite value */
static AxV add_op(AxDomain *d, AxType t, AxV pa, AxV pb, T anynan) {
  const Ext *a = pa, *b = pb;
  (void)t;
  T nan = or2(d, anynan, or2(d, and2(d, a->pinf, b->ninf), and2(d, a->ninf, b->pinf)));
  return with_flags(d, ax_term_mk_add2(TC(d), a->v, b->v), nan, or2(d, is_inf(d, a), is_inf(d, b)),
                    or2(d, a->pinf, b->pinf));
}

/* SUB: a + (-b) */
static AxV sub_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  return add_op(d, t, a, neg(d, b), anynan);
}

/* MUL: inf * 0 = NaN; the sign of an infinite product is the product of signs */
static AxV mul_op(AxDomain *d, AxType t, AxV pa, AxV pb, T anynan) {
  const Ext *a = pa, *b = pb;
  T nan = or2(d, anynan, or2(d, and2(d, is_inf(d, a), fin_zero(d, b, t)), and2(d, is_inf(d, b), fin_zero(d, a, t))));
  T pos = or2(d, and2(d, positive(d, a, t), positive(d, b, t)), and2(d, negative(d, a, t), negative(d, b, t)));
  return with_flags(d, ax_term_mk_mul2(TC(d), a->v, b->v), nan, or2(d, is_inf(d, a), is_inf(d, b)), pos);
}

static AxV div_op(AxDomain *d, AxType t, AxV pa, AxV pb, T anynan) {
  AxTermCtx *tc = TC(d);
  const Ext *a = pa, *b = pb;
  T bzero = fin_zero(d, b, t);
  T binf = is_inf(d, b);
  if (t == AX_INT) {
    /* int: x / 0 = -1 (XLA), truncation toward zero; inf / inf = NaN; x / inf = 0 */
    T nan = or2(d, anynan, and2(d, is_inf(d, a), binf));
    T q0 = ax_term_mk_div(tc, ax_term_mk_abs(tc, a->v), ax_term_mk_abs(tc, b->v));
    T same = ax_term_mk_eq(tc, ax_term_mk_le(tc, zero(d, t), a->v), ax_term_mk_le(tc, zero(d, t), b->v));
    T v = ax_term_mk_ite(tc, binf, zero(d, t),
                         ax_term_mk_ite(tc, bzero, ax_term_mk_int_si(tc, -1), signed_as(d, same, q0)));
    return with_flags(d, v, nan, is_inf(d, a), ax_term_mk_eq(tc, a->pinf, not1(d, negative(d, b, t))));
  }
  /* real (exact rationals extended with ±inf and NaN, IEEE's rules for those, no signed
   * zero): x / 0 = ±inf by the sign of x, 0 / 0 = NaN, inf / inf = NaN, x / inf = 0 */
  T nan = or2(d, anynan, or2(d, and2(d, is_inf(d, a), binf), and2(d, fin_zero(d, a, t), bzero)));
  T inf = or2(d, is_inf(d, a), and2(d, is_fin(d, a), bzero));
  T pos = or2(d, and2(d, is_inf(d, a), ax_term_mk_eq(tc, a->pinf, not1(d, negative(d, b, t)))),
              and2(d, is_fin(d, a), ax_term_mk_lt(tc, zero(d, t), a->v)));
  T v = ax_term_mk_ite(tc, or2(d, binf, bzero), zero(d, t), ax_term_mk_rdiv(tc, a->v, b->v));
  return with_flags(d, v, nan, inf, pos);
}

static AxV rem_op(AxDomain *d, AxType t, AxV pa, AxV pb, T anynan) {
  AxTermCtx *tc = TC(d);
  const Ext *a = pa, *b = pb;
  if (t == AX_REAL) {
    d->unsupported = "'rem' on real elements is not supported by the verifier";
    return finite(d, zero(d, t));
  }
  /* int: x % 0 = x (XLA); the remainder has the sign of the dividend; inf % y = NaN;
   * x % inf = x */
  T nan = or2(d, anynan, is_inf(d, a));
  T r0 = ax_term_mk_mod(tc, ax_term_mk_abs(tc, a->v), ax_term_mk_abs(tc, b->v));
  T tr = signed_as(d, ax_term_mk_le(tc, zero(d, t), a->v), r0);
  T v = ax_term_mk_ite(tc, or2(d, is_inf(d, b), fin_zero(d, b, t)), a->v, tr);
  return with_flags(d, v, nan, fls(d), fls(d));
}

static AxV pow_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  (void)anynan;
  return (AxV)pow_ext(d, t, a, b);
}

/* MAX MIN: NaN propagates (as XLA's max and min do) */
static AxV maxmin(AxDomain *d, AxType t, const Ext *a, const Ext *b, T pick_a, T anynan) {
  const Ext *m = plain_ite(d, pick_a, a, b, 2, t);
  return ext(d, m->v, anynan, and2(d, not1(d, anynan), m->pinf), and2(d, not1(d, anynan), m->ninf));
}

static AxV max_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  return maxmin(d, t, a, b, ge(d, a, b), anynan);
}

static AxV min_op(AxDomain *d, AxType t, AxV a, AxV b, T anynan) {
  return maxmin(d, t, a, b, ge(d, b, a), anynan);
}

static AxV not_op(AxDomain *d, AxType t, AxV a) {
  (void)t;
  return not1(d, a);
}

static AxV neg_op(AxDomain *d, AxType t, AxV a) {
  (void)t;
  return neg(d, a);
}

static AxV abs_op(AxDomain *d, AxType t, AxV pa) {
  const Ext *a = pa;
  (void)t;
  return ext(d, ax_term_mk_abs(TC(d), a->v), a->nan, is_inf(d, a), fls(d));
}

/* EXP: exp(-inf) = 0, exp(+inf) = +inf; finite values go to the solver's exp (cvc5
 * reasons about it; z3 sees an uninterpreted function). A model that needs a value of
 * exp other than exp(0) cannot be replayed exactly (UNKNOWN). */
static AxV exp_op(AxDomain *d, AxType t, AxV pa) {
  const Ext *a = pa;
  T v = ax_term_mk_ite(TC(d), a->ninf, zero(d, t), ax_term_mk_exp(TC(d), a->v));
  return ext(d, v, a->nan, a->pinf, fls(d));
}

/* Adds a definitional fact (once) to the facts every query of this instance assumes. */
static void add_fact(AxDomain *d, T fact) {
  for (size_t i = 0; i < S(d)->facts.len; i++)
    if (S(d)->facts.items[i] == fact) return;
  ax_vec_push(S(d)->a, &S(d)->facts, (void *)fact);
}

/* SQRT (real): the non-negative root of a finite x >= 0 — an application of the
 * uninterpreted axle.sqrt with the fact x >= 0 => (r >= 0 ∧ r·r = x), which every real
 * root satisfies (sound for proofs); sqrt(x < 0) = sqrt(-inf) = NaN, sqrt(+inf) = +inf,
 * sqrt(NaN) = NaN. The value term is 0 where the element is not finite. */
static AxV sqrt_op(AxDomain *d, AxType t, AxV pa) {
  AxTermCtx *tc = TC(d);
  const Ext *a = pa;
  AxSort real = AX_SORT_REAL;
  const AxFunc *f = ax_term_func(tc, SQRT_FN, 1, &real, AX_SORT_REAL);
  AX_ASSERT(f);
  T r = ax_term_mk_app(tc, f, 1, &a->v);
  T nonneg = ax_term_mk_le(tc, zero(d, t), a->v);
  T fact = ax_term_mk_implies(tc, nonneg, and2(d, ax_term_mk_le(tc, zero(d, t), r),
                                               ax_term_mk_eq(tc, ax_term_mk_mul2(tc, r, r), a->v)));
  add_fact(d, fact);
  T fin = is_fin(d, a);
  T nan = or2(d, a->nan, negative(d, a, t));
  return ext(d, ax_term_mk_ite(tc, and2(d, fin, nonneg), r, zero(d, t)), nan, and2(d, not1(d, nan), a->pinf),
             fls(d));
}

static bool is_log_of_root(const AxTerm *t, void *unused) {
  (void)unused;
  if (!ax_term_is_log(t)) return false;
  const AxTerm *r = ax_term_arg(t, 0);
  return ax_term_kind(r) == AX_TERM_APP && strcmp(ax_term_func_name(ax_term_app_func(r)), SQRT_FN) == 0;
}

/* For every log(r) in lv whose r is a root r = axle.sqrt(x) (sqrt_op), the fact
 * x > 0 => log(r) = 1/2 log(x): true of the real root and logarithm for every x (for
 * x > 0, sqrt x > 0 and log(sqrt x) = log(x^(1/2)) = 1/2 log x), so sound for proofs, as
 * sqrt_op's own fact is. Nothing else ties log to the uninterpreted root: without it
 * ln(sqrt A) = 1/2 ln A is UNKNOWN. Added only where a log of a root is built, so queries
 * with a sqrt and no log gain no log term. The x^(1/2) of pow needs nothing: its log
 * folds (log(exp(1/2 log x)) = 1/2 log x). */
static void log_root_facts(AxDomain *d, T lv) {
  AxTermCtx *tc = TC(d);
  AxVec found = {0};
  ax_term_collect(tc, &lv, 1, is_log_of_root, NULL, S(d)->a, &found);
  for (size_t i = 0; i < found.len; i++) {
    T l = found.items[i], x = ax_term_arg(ax_term_arg(l, 0), 0);
    T half = ax_term_mk_mul2(tc, ax_term_mk_real_si(tc, 1, 2), ax_term_mk_log(tc, x));
    add_fact(d, ax_term_mk_implies(tc, ax_term_mk_lt(tc, ax_term_mk_real_si(tc, 0, 1), x),
                                   ax_term_mk_eq(tc, l, half)));
  }
}

/* LOG: log(NaN) = log(x < 0) = NaN (-inf included), log(0) = -inf, log(+inf) = +inf;
 * a finite x > 0 goes to the uninterpreted log (ax_term_mk_log: log(1) = 0 and
 * log(exp(u)) = u fold, and the solver layer knows exp(log(x)) = x for x > 0). A model
 * that needs log of a number other than 1 cannot be replayed exactly (UNKNOWN). */
static AxV log_op(AxDomain *d, AxType t, AxV pa) {
  const Ext *a = pa;
  T nan = or2(d, a->nan, negative(d, a, t));
  T lv = ax_term_mk_log(TC(d), a->v);
  log_root_facts(d, lv);
  T v = ax_term_mk_ite(TC(d), is_fin(d, a), lv, zero(d, t));
  return ext(d, v, nan, a->pinf, fin_zero(d, a, t));
}

/* RSQRT: 1 / sqrt(x): NaN for NaN and x < 0, +inf at 0, 0 at +inf; a finite x > 0 gives
 * e^(-1/2 log x), the real power x^(-1/2) (pow_ext) */
static AxV rsqrt_op(AxDomain *d, AxType t, AxV pa) {
  AxTermCtx *tc = TC(d);
  const Ext *a = pa;
  T nan = or2(d, a->nan, negative(d, a, t));
  T v = ax_term_mk_ite(tc, is_fin(d, a), exp_log(d, a->v, ax_term_mk_real_si(tc, -1, 2)), zero(d, t));
  return ext(d, v, nan, fin_zero(d, a, t), fls(d));
}

/* ---- conversions ---------------------------------------------------------------------
 *
 * to_f16, to_bf16, to_f32 round to the format (convert.h). The rounding of a finite x is
 * R(x), an application of the uninterpreted axle.round_<format> with definitional facts
 * that hold of round-to-nearest-even with an exponent unbounded above (the value a finite
 * result takes; the overflow threshold decides ±inf separately). The fold below applies
 * what is true of every x as term identities, so that rules about them need no solver:
 *   R(c) for a numeral c is its exact rounding;        R(ite(p, a, b)) = ite(p, R a, R b);
 *   R(-x) = -R(x) (the rounding is symmetric);         R_F(R_G(x)) = R_G(x) when every
 *   G-value is an F-value (idempotence; f16 and bf16 values are f32 values).
 * Everything else is a fact per application (round_facts). */

static T real_of(AxDomain *d, const mpq_t q) { return ax_term_mk_real(TC(d), q); }

/* the numeral 2^k; k is a format's exponent or precision (|k| < 200): bounded */
static T pow2(AxDomain *d, int k) {
  mpq_t q;
  mpq_init(q);
  mpq_set_ui(q, 1, 1);
  if (k >= 0) mpq_mul_2exp(q, q, (mp_bitcnt_t)k);
  else mpq_div_2exp(q, q, (mp_bitcnt_t)-k);
  T t = real_of(d, q);
  mpq_clear(q);
  return t;
}

static const AxFunc *round_func(AxDomain *d, const AxConvFormat *f, bool index) {
  AxSort real = AX_SORT_REAL;
  const char *name = ax_arena_printf(S(d)->a, index ? ROUND_PREFIX "%s.k" : ROUND_PREFIX "%s", f->name);
  const AxFunc *fn = ax_term_func(TC(d), name, 1, &real, index ? AX_SORT_INT : AX_SORT_REAL);
  AX_ASSERT(fn);
  return fn;
}

/* The binades whose rounding a fact states exactly: all of f16's; for bf16 and f32 those of
 * magnitudes 2^-24 to 2^25, where counterexamples live — a fact per binade for all 254
 * would make every query with a conversion large. Outside the window only the sign and
 * range facts hold, which is less, never wrong: a model there may not replay (UNKNOWN). */
enum { ROUND_WINDOW = 24 };

/* Facts of a = R(x), true of the rounding to f at every x: the sign is kept; a magnitude
 * below the overflow threshold rounds to at most the largest finite value; and in the
 * binade [2^e, 2^(e+1)) (from 0 for the first, which shares the subnormals' spacing) with
 * ulp u = 2^(e-p+1), a = u·k for an integer k = K(x), |x - a| <= u/2, and k is even at a
 * tie (ties to even: the significand's last bit is k's). */
static void round_facts(AxDomain *d, const AxConvFormat *f, T x, T a) {
  AxTermCtx *tc = TC(d);
  T z = ax_term_mk_real_si(tc, 0, 1);
  add_fact(d, ax_term_mk_implies(tc, ax_term_mk_le(tc, z, x), ax_term_mk_le(tc, z, a)));
  add_fact(d, ax_term_mk_implies(tc, ax_term_mk_le(tc, x, z), ax_term_mk_le(tc, a, z)));
  mpq_t q;
  mpq_init(q);
  ax_convert_overflow(f, q);
  T thr = real_of(d, q);
  ax_convert_max(f, q);
  T max = real_of(d, q);
  mpq_clear(q);
  T ax = ax_term_mk_abs(tc, x);
  add_fact(d, ax_term_mk_implies(tc, ax_term_mk_lt(tc, ax, thr), ax_term_mk_le(tc, ax_term_mk_abs(tc, a), max)));
  T k = ax_term_mk_app(tc, round_func(d, f, true), 1, &x);
  T even = ax_term_mk_eq(tc, ax_term_mk_mod(tc, k, ax_term_mk_int_si(tc, 2)), ax_term_mk_int_si(tc, 0));
  T diff = ax_term_mk_sub(tc, x, a);
  int lo = f->emin > -ROUND_WINDOW ? f->emin : -ROUND_WINDOW;
  int hi = f->emax < ROUND_WINDOW ? f->emax : ROUND_WINDOW;
  /* everywhere: the error is at most half an ulp, 2^-p |x| for a normal x and 2^(emin-p)
   * for a subnormal one (outside the window the only bound on a's value) */
  add_fact(d, ax_term_mk_le(tc, ax_term_mk_abs(tc, ax_term_mk_sub(tc, x, a)),
                            ax_term_mk_add2(tc, ax_term_mk_mul2(tc, pow2(d, -f->prec), ax), pow2(d, f->emin - f->prec))));
  /* outside the window, monotonicity with the representable bounds 2^lo and 2^(hi+1): a
   * value there stays there (else a model could move a huge x into the window) */
  if (lo > f->emin)
    add_fact(d, ax_term_mk_implies(tc, ax_term_mk_lt(tc, ax, pow2(d, lo)),
                                   ax_term_mk_le(tc, ax_term_mk_abs(tc, a), pow2(d, lo))));
  if (hi < f->emax)
    add_fact(d, ax_term_mk_implies(tc, ax_term_mk_le(tc, pow2(d, hi + 1), ax),
                                   ax_term_mk_le(tc, pow2(d, hi + 1), ax_term_mk_abs(tc, a))));
  for (int e = lo; e <= hi; e++) {
    T u = pow2(d, e - f->prec + 1), half = pow2(d, e - f->prec);
    T in = and2(d, e == f->emin ? ax_term_mk_le(tc, z, ax) : ax_term_mk_le(tc, pow2(d, e), ax),
                ax_term_mk_lt(tc, ax, pow2(d, e + 1)));
    T near = and2(d, ax_term_mk_le(tc, diff, half), ax_term_mk_le(tc, ax_term_mk_neg(tc, diff), half));
    T tie = or2(d, ax_term_mk_eq(tc, diff, half), ax_term_mk_eq(tc, ax_term_mk_neg(tc, diff), half));
    T grid = ax_term_mk_eq(tc, a, ax_term_mk_mul2(tc, u, ax_term_mk_to_real(tc, k)));
    add_fact(d, ax_term_mk_implies(tc, in, and2(d, grid, and2(d, near, ax_term_mk_implies(tc, tie, even)))));
  }
}

/* The format an application of axle.round_<name> rounds to; NULL for any other term. */
static const AxConvFormat *rounded_by(T x) {
  if (ax_term_kind(x) != AX_TERM_APP) return NULL;
  const char *name = ax_term_func_name(ax_term_app_func(x));
  static const AxOp ops[] = {AX_OP_TO_F16, AX_OP_TO_BF16, AX_OP_TO_F32};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    const AxConvFormat *g = ax_convert_format(ops[i]);
    if (strncmp(name, ROUND_PREFIX, strlen(ROUND_PREFIX)) == 0 && strcmp(name + strlen(ROUND_PREFIX), g->name) == 0) return g;
  }
  return NULL;
}

AxSymFn ax_symbolic_fn(const AxFunc *f, AxOp *op) {
  const char *name = ax_term_func_name(f);
  size_t nargs = ax_term_func_nargs(f);
  if (strcmp(name, SQRT_FN) == 0 && nargs == 1) return AX_SYMFN_SQRT;
  if (strcmp(name, IPOW_FN) == 0 && nargs == 2) return AX_SYMFN_IPOW;
  if (strcmp(name, POW_INT_FN) == 0 && nargs == 1) return AX_SYMFN_POW_INT;
  if (strcmp(name, POW_ODD_FN) == 0 && nargs == 1) return AX_SYMFN_POW_ODD;
  if (strncmp(name, SUM_PREFIX, strlen(SUM_PREFIX)) == 0) return AX_SYMFN_SUM;
  static const AxOp ops[] = {AX_OP_TO_F16, AX_OP_TO_BF16, AX_OP_TO_F32};
  size_t np = strlen(ROUND_PREFIX);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0] && strncmp(name, ROUND_PREFIX, np) == 0; i++) {
    const char *fmt = ax_convert_format(ops[i])->name;
    size_t nf = strlen(fmt);
    if (strncmp(name + np, fmt, nf) != 0) continue;
    if (op) *op = ops[i];
    if (name[np + nf] == '\0') return AX_SYMFN_ROUND;
    if (strcmp(name + np + nf, ".k") == 0) return AX_SYMFN_ROUND_K;
  }
  return AX_SYMFN_NONE;
}

/* R_f(x) with the folds above */
static T round_term(AxDomain *d, const AxConvFormat *f, T x) {
  AxTermCtx *tc = TC(d);
  switch (ax_term_kind(x)) {
  case AX_TERM_INT:
  case AX_TERM_REAL: {
    mpq_t q;
    mpq_init(q);
    ax_term_real_value(x, q);
    ax_convert_round(f, q, q);   /* an overflow gives 0: the value is not read there */
    T r = real_of(d, q);
    mpq_clear(q);
    return r;
  }
  case AX_TERM_ITE:
    return ax_term_mk_ite(tc, ax_term_arg(x, 0), round_term(d, f, ax_term_arg(x, 1)),
                          round_term(d, f, ax_term_arg(x, 2)));
  case AX_TERM_NEG: return ax_term_mk_neg(tc, round_term(d, f, ax_term_arg(x, 0)));
  default: break;
  }
  const AxConvFormat *g = rounded_by(x);
  if (g && ax_convert_contains(f, g)) return x;
  T a = ax_term_mk_app(tc, round_func(d, f, false), 1, &x);
  round_facts(d, f, x, a);
  return a;
}

/* TO_F16, TO_BF16, TO_F32: NaN and ±inf are kept; a finite x with |x| at or above the
 * overflow threshold becomes ±inf; below it the value is R(x) */
static AxV convert(AxDomain *d, const AxConvFormat *f, AxType t, AxV pa) {
  AxTermCtx *tc = TC(d);
  const Ext *a = pa;
  mpq_t q;
  mpq_init(q);
  ax_convert_overflow(f, q);
  T thr = real_of(d, q);
  mpq_clear(q);
  T fin = is_fin(d, a);
  T big = and2(d, fin, ax_term_mk_le(tc, thr, a->v));
  T small = and2(d, fin, ax_term_mk_le(tc, a->v, ax_term_mk_neg(tc, thr)));
  T in = and2(d, fin, not1(d, or2(d, big, small)));
  T v = ax_term_mk_ite(tc, in, round_term(d, f, a->v), zero(d, t));
  return ext(d, v, a->nan, or2(d, a->pinf, big), or2(d, a->ninf, small));
}

static AxV to_f16_op(AxDomain *d, AxType t, AxV a) { return convert(d, ax_convert_format(AX_OP_TO_F16), t, a); }
static AxV to_bf16_op(AxDomain *d, AxType t, AxV a) { return convert(d, ax_convert_format(AX_OP_TO_BF16), t, a); }
static AxV to_f32_op(AxDomain *d, AxType t, AxV a) { return convert(d, ax_convert_format(AX_OP_TO_F32), t, a); }

/* The comparisons are built from a few facts of their operands, made as one set before
 * the row picks: for bools a = b and (for an order) a < b, a > b with false < true; for
 * numbers a = b, a >= b and b >= a, all false where either is NaN (unordered). */
typedef struct Order {
  bool boolean;
  T eq, lt, gt;     /* bools (lt, gt only for an order) */
  T age, bge;       /* numbers */
} Order;

static T eq_op(AxTermCtx *tc, const Order *o) {
  (void)tc;
  return o->eq;
}
static T ne_op(AxTermCtx *tc, const Order *o) { return ax_term_mk_not(tc, o->eq); }
static T lt_op(AxTermCtx *tc, const Order *o) {
  return o->boolean ? o->lt : ax_term_mk_and2(tc, o->bge, ax_term_mk_not(tc, o->eq));
}
static T le_op(AxTermCtx *tc, const Order *o) { return o->boolean ? ax_term_mk_not(tc, o->gt) : o->bge; }
static T gt_op(AxTermCtx *tc, const Order *o) {
  return o->boolean ? o->gt : ax_term_mk_and2(tc, o->age, ax_term_mk_not(tc, o->eq));
}
static T ge_op(AxTermCtx *tc, const Order *o) { return o->boolean ? ax_term_mk_not(tc, o->lt) : o->age; }

typedef struct CompareRow {
  T (*of)(AxTermCtx *tc, const Order *o);
  bool order;    /* an order (lt..ge), not an equality: bools need a < b and a > b */
} CompareRow;

static const CompareRow compare[AX_OP_COUNT] = {
    [AX_OP_EQ] = {eq_op, false}, [AX_OP_NE] = {ne_op, false}, [AX_OP_LT] = {lt_op, true},
    [AX_OP_LE] = {le_op, true},  [AX_OP_GT] = {gt_op, true},  [AX_OP_GE] = {ge_op, true},
};

static const CompareRow *compare_row(AxOp op) {
  return (unsigned)op < AX_OP_COUNT && compare[op].of ? &compare[op] : NULL;
}

const AxTerm *ax_symbolic_bool_compare(AxTermCtx *tc, AxOp op, const AxTerm *a, const AxTerm *b) {
  const CompareRow *row = compare_row(op);
  if (!row) return NULL;
  Order o = {.boolean = true, .eq = ax_term_mk_eq(tc, a, b)};
  if (row->order) {
    o.lt = ax_term_mk_and2(tc, ax_term_mk_not(tc, a), b);
    o.gt = ax_term_mk_and2(tc, a, ax_term_mk_not(tc, b));
  }
  return row->of(tc, &o);
}

/* An operator without a row: a programming error, reported as the domain's `unsupported`
 * (so the result can only be UNKNOWN) rather than a call through NULL. */
static AxV no_row(AxDomain *d, const char *table, AxOp op, AxType t) {
  d->unsupported = ax_arena_printf(S(d)->a, "internal: operator '%s' has no row in the symbolic domain's %s table",
                                   (unsigned)op < AX_OP_COUNT ? ax_op_name(op) : "?", table);
  return t == AX_BOOL ? (AxV)fls(d) : (AxV)finite(d, zero(d, t));
}

static AxV plain_compare(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb) {
  AxTermCtx *tc = TC(d);
  const CompareRow *row = compare_row(op);
  if (!row) return no_row(d, "compare", op, AX_BOOL);
  if (t == AX_BOOL) return ax_symbolic_bool_compare(tc, op, pa, pb);
  const Ext *a = pa, *b = pb;
  T ordered = not1(d, or2(d, a->nan, b->nan));   /* NaN is unordered */
  Order o = {.boolean = false};
  o.eq = and2(d, ordered, or2(d, or2(d, and2(d, a->pinf, b->pinf), and2(d, a->ninf, b->ninf)),
                              and2(d, and2(d, is_fin(d, a), is_fin(d, b)), ax_term_mk_eq(tc, a->v, b->v))));
  o.age = and2(d, ordered, ge(d, a, b));
  o.bge = and2(d, ordered, ge(d, b, a));
  return row->of(tc, &o);
}

/* same value, or both NaN (docs/semantics.md) */
static AxV plain_same(AxDomain *d, AxType t, AxV pa, AxV pb) {
  AxTermCtx *tc = TC(d);
  if (t == AX_BOOL) return ax_term_mk_eq(tc, pa, pb);
  const Ext *a = pa, *b = pb;
  T flags = and2(d, ax_term_mk_eq(tc, a->pinf, b->pinf), ax_term_mk_eq(tc, a->ninf, b->ninf));
  T vals = ax_term_mk_implies(tc, is_fin(d, a), ax_term_mk_eq(tc, a->v, b->v));
  T defined = and2(d, and2(d, not1(d, a->nan), not1(d, b->nan)), and2(d, flags, vals));
  return or2(d, and2(d, a->nan, b->nan), defined);
}


/* ---- reduction elements --------------------------------------------------------------
 * The normal forms of TensorRight Fig. 9, extended: v * Red f = Red (v * f); Red f * Red g
 * = Red (f * g) over both variable sets; a sum of a reduction is one reduction over both
 * sets; -Red f = Red (-f); and a choice or a sum between reductions (select, pad, concat,
 * +) is one reduction over the union of the sets, each branch pinning the variables of the
 * others to 0. Anything else applied to a reduction is outside the fragment (unsupported),
 * as is a sum of values that may be infinite or NaN. */

/* A summand that is not finite by construction (a division, an infinite literal) is
 * accepted on an obligation: `cond` says where it would not be finite, and the verifier
 * proves it unsatisfiable under the assumptions (verify.c) before any verdict other than
 * UNKNOWN — a sum of finite values is the exact finite sum the normal forms assume. */
static void oblige(AxDomain *d, T cond) {
  if (ax_term_kind(cond) == AX_TERM_FALSE) return;
  ax_vec_push(S(d)->a, &S(d)->not_finite, (void *)cond);
}

static const Red *lift(AxDomain *d, const Ext *e) {
  static const Red none = {0, NULL, NULL};
  (void)d;
  return e->red ? e->red : &none;
}

static T fresh_var(AxDomain *d, const char *base, int axis, int pos, int group) {
  AxSymbolic *s = S(d);
  T v = ax_term_mk_var(s->head.tc, ax_arena_printf(s->a, "%s#%d", base, ++s->fresh), AX_SORT_INT);
  AxSumVar *sv = ax_arena_alloc(s->a, sizeof *sv);
  *sv = (AxSumVar){.var = v, .axis = axis, .pos = pos, .group = group};
  ax_vec_push(s->a, &s->sumvars, sv);
  return v;
}

static const AxSumVar *sumvar_of(AxDomain *d, T v) {
  AxSymbolic *s = S(d);
  for (size_t i = 0; i < s->sumvars.len; i++) {
    const AxSumVar *sv = s->sumvars.items[i];
    if (sv->var == v) return sv;
  }
  return NULL;
}

static int axis_of_var(AxDomain *d, T v) {
  const AxSumVar *sv = sumvar_of(d, v);
  return sv ? sv->axis : -1;
}

static bool has_var(const Red *r, T v) {
  for (size_t i = 0; r && i < r->n; i++)
    if (r->vars[i] == v) return true;
  return false;
}

/* b with every variable it shares with a renamed apart (for products of sums) */
static const Ext *apart(AxDomain *d, const Red *a, const Ext *b) {
  const Red *rb = b->red;
  if (!rb) return b;
  T from[64], to[64];
  size_t n = 0;
  int group = ++S(d)->groups;
  for (size_t i = 0; i < rb->n && n < 64; i++)
    if (has_var(a, rb->vars[i])) {
      const AxSumVar *old = sumvar_of(d, rb->vars[i]);
      from[n] = rb->vars[i];
      to[n++] = fresh_var(d, ax_term_var_name(rb->vars[i]), old ? old->axis : -1,
                          old ? old->pos : 0, group);
    }
  if (!n) return b;
  AxTermCtx *tc = TC(d);
  Red *r = ax_arena_alloc(S(d)->a, sizeof *r);
  r->n = rb->n;
  r->vars = ax_arena_alloc(S(d)->a, rb->n * sizeof(T));
  for (size_t i = 0; i < rb->n; i++) r->vars[i] = ax_term_subst(tc, rb->vars[i], n, from, to);
  r->dom = ax_term_subst(tc, rb->dom, n, from, to);
  Ext *e = ext(d, ax_term_subst(tc, b->v, n, from, to), b->nan, b->pinf, b->ninf);
  e->red = r;
  return e;
}

static bool is_zero(T t) {
  if (ax_term_kind(t) != AX_TERM_INT && ax_term_kind(t) != AX_TERM_REAL) return false;
  mpq_t q;
  mpq_init(q);
  ax_term_real_value(t, q);
  bool z = mpq_sgn(q) == 0;
  mpq_clear(q);
  return z;
}

/* The support of a finite summand: Σ_D ite(c, x, 0) = Σ_{D ∧ c} x, and a product with a
 * factor ite(c, x, 0) is ite(c, product with x, 0). Moving such conditions into the domain
 * is exact, keeps summands free of padding choices, and lets a bijection pair only the
 * points that count (a padded kernel's zeros are not summands at all). */
static T support(AxDomain *d, T v, T *cond) {
  AxTermCtx *tc = TC(d);
  for (;;) {
    if (ax_term_kind(v) == AX_TERM_ITE && is_zero(ax_term_arg(v, 2))) {
      *cond = and2(d, *cond, ax_term_arg(v, 0));
      v = ax_term_arg(v, 1);
      continue;
    }
    if (ax_term_kind(v) == AX_TERM_MUL) {
      size_t n = ax_term_nargs(v);
      T args[64];
      bool changed = false;
      for (size_t i = 0; i < n && i < 64; i++) {
        args[i] = ax_term_arg(v, i);
        if (ax_term_kind(args[i]) == AX_TERM_ITE && is_zero(ax_term_arg(args[i], 2))) {
          *cond = and2(d, *cond, ax_term_arg(args[i], 0));
          args[i] = ax_term_arg(args[i], 1);
          changed = true;
        }
      }
      if (changed && n <= 64) {
        v = ax_term_mk_mul(tc, n, args);
        continue;
      }
    }
    return v;
  }
}

static T dom_of(AxDomain *d, const Red *r);

static Ext *with_red(AxDomain *d, const Ext *body, const Red *r) {
  Ext *e = ext(d, body->v, body->nan, body->pinf, body->ninf);
  e->red = r->n ? r : NULL;
  if (e->red) {
    /* every summand on the domain is finite (an obligation unless it is so by
     * construction), so the sum is finite: its flags are false */
    oblige(d, and2(d, dom_of(d, r), not1(d, is_fin(d, body))));
    e->nan = e->pinf = e->ninf = fls(d);
    T cond = ax_term_mk_true(TC(d));
    e->v = support(d, e->v, &cond);
    if (ax_term_kind(cond) != AX_TERM_TRUE) {
      Red *nr = ax_arena_alloc(S(d)->a, sizeof *nr);
      *nr = *r;
      nr->dom = and2(d, r->dom, cond);
      e->red = nr;
    }
  }
  return e;
}

/* pinned(vars of b not in a) = 0 */
static T pin_others(AxDomain *d, const Red *a, const Red *b) {
  T acc = ax_term_mk_true(TC(d));
  for (size_t i = 0; i < b->n; i++)
    if (!has_var(a, b->vars[i]))
      acc = and2(d, acc, ax_term_mk_eq(TC(d), b->vars[i], ax_term_mk_int_si(TC(d), 0)));
  return acc;
}

static T dom_of(AxDomain *d, const Red *r) {
  return r->dom ? r->dom : ax_term_mk_true(TC(d)); }

/* union of the variable sets of a and b */
static Red *union_vars(AxDomain *d, const Red *a, const Red *b, T extra) {
  Red *r = ax_arena_alloc(S(d)->a, sizeof *r);
  r->vars = ax_arena_alloc(S(d)->a, (a->n + b->n + 2) * sizeof(T));
  if (extra) r->vars[r->n++] = extra;
  for (size_t i = 0; i < a->n; i++) r->vars[r->n++] = a->vars[i];
  for (size_t i = 0; i < b->n; i++)
    if (!has_var(a, b->vars[i])) r->vars[r->n++] = b->vars[i];
  return r;
}

/* ite(c, Red_A f, Red_B g) = Red_{A∪B} ite(c, f, g) over (c ∧ dom_A ∧ B\\A = 0) ∨ (¬c ∧ dom_B ∧ A\\B = 0) */
static AxV red_choice(AxDomain *d, T c, const Ext *a, const Ext *b, AxType t) {
  const Red *ra = lift(d, a), *rb = lift(d, b);
  Red *r = union_vars(d, ra, rb, NULL);
  r->dom = or2(d, and2(d, c, and2(d, dom_of(d, ra), pin_others(d, ra, rb))),
               and2(d, not1(d, c), and2(d, dom_of(d, rb), pin_others(d, rb, ra))));
  const Ext *body = plain_ite(d, c, a, b, 2, t);
  return with_red(d, body, r);
}

static AxV ite(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t) {
  if (kind == 2 && t != AX_BOOL && (((const Ext *)a)->red || ((const Ext *)b)->red))
    return red_choice(d, c, a, b, t);
  return plain_ite(d, c, a, b, kind, t);
}

static AxV unsupported(AxDomain *d, const char *what, AxType t) {
  d->unsupported = what;
  return finite(d, zero(d, t));
}

static bool mentions(AxDomain *d, T t, T v) {
  AxVec vars = {0};
  ax_term_collect(TC(d), &t, 1, ax_term_pred_var, NULL, S(d)->a, &vars);
  for (size_t i = 0; i < vars.len; i++)
    if (vars.items[i] == v) return true;
  return false;
}

/* b = Σ_{Y ∈ D'} g(Y) as a sum over a's variables X: the summand g[Y := X], when D'[Y := X]
 * is a's domain (the same term) and the renaming captures nothing (no variable of X occurs
 * in D' or g except as the Y it replaces); variable i of Y must range over the same named
 * axis as variable i of X, so bound inference keeps seeing one summation per axis. NULL
 * when b is not a sum over a's domain. */
static const Ext *onto(AxDomain *d, const Red *a, const Ext *b) {
  const Red *rb = b->red;
  if (!rb || rb->n != a->n || a->n > 64) return NULL;
  for (size_t i = 0; i < a->n; i++) {
    const AxSumVar *x = sumvar_of(d, a->vars[i]), *y = sumvar_of(d, rb->vars[i]);
    if (!x || !y || x->axis != y->axis || x->pos != y->pos) return NULL;
    for (size_t j = 0; j < a->n; j++)
      if (a->vars[i] == rb->vars[j] && i != j) return NULL;
    if (a->vars[i] != rb->vars[i] && (mentions(d, dom_of(d, rb), a->vars[i]) || mentions(d, b->v, a->vars[i])))
      return NULL;
  }
  AxTermCtx *tc = TC(d);
  if (ax_term_subst(tc, dom_of(d, rb), rb->n, rb->vars, a->vars) != dom_of(d, a)) return NULL;
  return finite(d, ax_term_subst(tc, b->v, rb->n, rb->vars, a->vars));
}

/* A sum closed into a value: Σ_{X ∈ D} f(X) as the application S(i1, …, im) of an
 * uninterpreted function named after the sum with its variables renamed canonically
 * ("$b0", "$b1", … in order), applied to the index variables it mentions (access indices
 * and the variables of enclosing sums, in the order of their first occurrence). Two sums
 * that differ only in the names of their variables are one function, so a rule whose two
 * sides apply sqrt to the same sum sees one value; the exact sum is one interpretation of
 * S, so a proof with S uninterpreted holds for it (sound); a model's value of S is never
 * trusted — the replay recomputes the sum. Bound inference reads S(...) as a read of a
 * derived tensor (rank.c, docs/semantics.md). */
static const Ext *close_sum(AxDomain *d, const Ext *a, AxType t) {
  AxSymbolic *s = S(d);
  AxTermCtx *tc = s->head.tc;
  const Red *r = a->red;
  T *canon = ax_arena_alloc(s->a, (r->n + 1) * sizeof(T));
  for (size_t i = 0; i < r->n; i++) canon[i] = ax_term_mk_var(tc, ax_arena_printf(s->a, "$b%zu", i), AX_SORT_INT);
  T dom = ax_term_subst(tc, dom_of(d, r), r->n, r->vars, canon);
  T body = ax_term_subst(tc, a->v, r->n, r->vars, canon);
  T both[2] = {dom, body};
  AxVec vars = {0};
  ax_term_collect(tc, both, 2, ax_term_pred_var, NULL, s->a, &vars);
  T args[64];
  AxSort sorts[64];
  size_t n = 0;
  for (size_t i = 0; i < vars.len; i++) {
    T v = vars.items[i];
    if (!sumvar_of(d, v) && ax_term_var_name(v)[0] != '@') continue;   /* a map: a constant */
    if (n == 64) return unsupported(d, "a sum under sqrt mentions more than 64 indices", t);
    sorts[n] = AX_SORT_INT;
    args[n++] = v;
  }
  const AxFunc *f = ax_term_func(tc, ax_arena_printf(s->a, SUM_PREFIX "%u.%u", ax_term_id(dom), ax_term_id(body)),
                                 n, sorts, t == AX_REAL ? AX_SORT_REAL : AX_SORT_INT);
  if (!f) return unsupported(d, "internal: two closed sums of one name", t);
  T app = ax_term_mk_app(tc, f, n, args);
  bool seen = false;
  for (size_t i = 0; i < s->closed.len && !seen; i++) seen = ((AxClosedSum *)s->closed.items[i])->app == app;
  if (!seen) {
    AxClosedSum *c = ax_arena_alloc(s->a, sizeof *c);
    *c = (AxClosedSum){.app = app, .n = r->n, .vars = r->vars, .dom = dom_of(d, r), .body = a->v};
    ax_vec_push(s->a, &s->closed, c);
  }
  return finite(d, app);
}

/* ---- element-wise operators: the tables ---------------------------------------------
 * A row per operator: its function on values and, for the few operators the reduction
 * normal forms cover, its function on reduction elements (NULL: outside the fragment).
 * A new element-wise operator is one row here, one in concrete.c, float.c and fpsym.c,
 * and its functions (tests/unit/check_semantics.c walks AX_OP_LIST for a missing row). */

static const char *const outside_sums = "only products, sums, negations and choices of reductions are supported";

/* -Red f = Red (-f) */
static AxV neg_sum(AxDomain *d, AxType t, AxV pa) {
  const Ext *a = pa;
  return with_red(d, neg_op(d, t, pa), a->red);
}

/* sqrt of a sum: the sum closed into a value first */
static AxV sqrt_sum(AxDomain *d, AxType t, AxV pa) { return sqrt_op(d, t, close_sum(d, pa, t)); }

static const Ext *negated(AxDomain *d, AxType t, const Ext *b) {
  return b->red ? neg_sum(d, t, b) : neg_op(d, t, b);
}

/* v * Red f = Red (v * f) for a finite v; Red f * Red g = Red_{A,B} f * g */
static AxV mul_sums(AxDomain *d, AxType t, const Ext *a, const Ext *b) {
  if (!a->red || !b->red) {
    const Ext *r = a->red ? a : b;
    /* inf · Σ f is not Σ (inf · f) (an empty sum, or summands of both signs): v must be
     * finite wherever the values matter, whatever the domain */
    oblige(d, not1(d, is_fin(d, a->red ? b : a)));
    return with_red(d, plain_binary(d, AX_OP_MUL, t, a, b), r->red);
  }
  b = apart(d, a->red, b);
  Red *r = union_vars(d, a->red, b->red, NULL);
  r->dom = and2(d, a->red->dom, b->red->dom);
  return with_red(d, plain_binary(d, AX_OP_MUL, t, a, b), r);
}

/* a + b with a reduction among them (b already negated for a difference) */
static AxV add_sums(AxDomain *d, AxType t, const Ext *a, const Ext *bb) {
  /* Σ_D f ± Σ_D g = Σ_D (f ± g): two sums over one domain (docs/semantics.md) */
  const Ext *merged = a->red && bb->red ? onto(d, a->red, bb) : NULL;
  if (merged) return with_red(d, plain_binary(d, AX_OP_ADD, t, a, merged), a->red);
  AxTermCtx *tc = TC(d);
  T zero_i = ax_term_mk_int_si(tc, 0), one = ax_term_mk_int_si(tc, 1);
  /* a plain value or another union added to v + Σ g: the plain parts together (Union) */
  if (a->un || bb->un) {
    const Ext *pa = a->un ? a->un->plain : a->red ? NULL : a, *sa = a->un ? a->un->sum : a->red ? a : NULL;
    const Ext *pb = bb->un ? bb->un->plain : bb->red ? NULL : bb, *sb = bb->un ? bb->un->sum : bb->red ? bb : NULL;
    const Ext *p = pa && pb ? plain_binary(d, AX_OP_ADD, t, pa, pb) : pa ? pa : pb;
    const Ext *sum = sa && sb ? add_sums(d, t, sa, sb) : sa ? sa : sb;
    return add_sums(d, t, p, sum);
  }
  /* otherwise a ± b = Red over a tag variable that picks the side */
  T tag = fresh_var(d, "side", -1, 0, ++S(d)->groups);
  const Red *ra = lift(d, a), *rb = lift(d, bb);
  T is0 = ax_term_mk_eq(tc, tag, zero_i);
  Red *r = union_vars(d, ra, rb, tag);
  r->dom = and2(d, and2(d, ax_term_mk_le(tc, zero_i, tag), ax_term_mk_le(tc, tag, one)),
                or2(d, and2(d, is0, and2(d, dom_of(d, ra), pin_others(d, ra, rb))),
                    and2(d, not1(d, is0), and2(d, dom_of(d, rb), pin_others(d, rb, ra)))));
  Ext *e = with_red(d, plain_ite(d, is0, a, bb, 2, t), r);
  if (!a->red || !bb->red) {   /* exactly one is plain: remember the parts */
    Union *n = ax_arena_alloc(S(d)->a, sizeof *n);
    *n = (Union){.plain = a->red ? bb : a, .sum = a->red ? a : bb};
    e->un = n;
  }
  return e;
}

static AxV sub_sums(AxDomain *d, AxType t, const Ext *a, const Ext *b) {
  return add_sums(d, t, a, negated(d, t, b));
}

/* (Σ f) / v = Σ (f / v) for a finite v != 0 (exact rationals); v must be so wherever the
 * values matter, whatever the domain (an obligation). Not for int: truncation. */
static AxV div_sum(AxDomain *d, AxType t, const Ext *a, const Ext *b) {
  if (t != AX_REAL || !a->red || b->red) return unsupported(d, outside_sums, t);
  oblige(d, or2(d, not1(d, is_fin(d, b)), fin_zero(d, b, t)));
  return with_red(d, plain_binary(d, AX_OP_DIV, t, a, b), a->red);
}

typedef struct BinaryRow {
  AxV (*plain)(AxDomain *d, AxType t, AxV a, AxV b, T anynan);
  AxV (*on_sum)(AxDomain *d, AxType t, const Ext *a, const Ext *b);
  bool boolean;   /* operands are Bool terms (and, or), not numeric elements */
} BinaryRow;

static const BinaryRow binary[AX_OP_COUNT] = {
    [AX_OP_ADD] = {.plain = add_op, .on_sum = add_sums},
    [AX_OP_SUB] = {.plain = sub_op, .on_sum = sub_sums},
    [AX_OP_MUL] = {.plain = mul_op, .on_sum = mul_sums},
    [AX_OP_DIV] = {.plain = div_op, .on_sum = div_sum},
    [AX_OP_REM] = {.plain = rem_op},
    [AX_OP_MAX] = {.plain = max_op},
    [AX_OP_MIN] = {.plain = min_op},
    [AX_OP_POW] = {.plain = pow_op},
    [AX_OP_AND] = {.plain = and_op, .boolean = true},
    [AX_OP_OR] = {.plain = or_op, .boolean = true},
};

typedef struct UnaryRow {
  AxV (*plain)(AxDomain *d, AxType t, AxV a);
  AxV (*on_sum)(AxDomain *d, AxType t, AxV a);
  bool boolean;   /* the operand is a Bool term (not), not a numeric element */
} UnaryRow;

static const UnaryRow unary[AX_OP_COUNT] = {
    [AX_OP_NEG] = {.plain = neg_op, .on_sum = neg_sum},
    [AX_OP_ABS] = {.plain = abs_op},
    [AX_OP_EXP] = {.plain = exp_op},
    [AX_OP_SQRT] = {.plain = sqrt_op, .on_sum = sqrt_sum},
    [AX_OP_LOG] = {.plain = log_op},
    [AX_OP_RSQRT] = {.plain = rsqrt_op},
    [AX_OP_TO_F16] = {.plain = to_f16_op},
    [AX_OP_TO_BF16] = {.plain = to_bf16_op},
    [AX_OP_TO_F32] = {.plain = to_f32_op},
    [AX_OP_NOT] = {.plain = not_op, .boolean = true},
};

static AxV plain_binary(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb) {
  const BinaryRow *row = (unsigned)op < AX_OP_COUNT && binary[op].plain ? &binary[op] : NULL;
  if (!row) return no_row(d, "binary", op, t);
  if (row->boolean) return row->plain(d, t, pa, pb, NULL);
  const Ext *a = pa, *b = pb;
  return row->plain(d, t, pa, pb, or2(d, a->nan, b->nan));
}

static AxV elem_binary(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb) {
  const BinaryRow *row = (unsigned)op < AX_OP_COUNT && binary[op].plain ? &binary[op] : NULL;
  if (!row) return no_row(d, "binary", op, t);
  if (row->boolean || t == AX_BOOL) return plain_binary(d, op, t, pa, pb);
  const Ext *a = pa, *b = pb;
  if (!a->red && !b->red) return plain_binary(d, op, t, pa, pb);
  return row->on_sum ? row->on_sum(d, t, a, b) : unsupported(d, outside_sums, t);
}

static AxV elem_unary(AxDomain *d, AxOp op, AxType t, AxV pa) {
  const UnaryRow *row = (unsigned)op < AX_OP_COUNT && unary[op].plain ? &unary[op] : NULL;
  if (!row) return no_row(d, "unary", op, t);
  if (row->boolean || t == AX_BOOL || !((const Ext *)pa)->red) return row->plain(d, t, pa);
  return row->on_sum ? row->on_sum(d, t, pa) : unsupported(d, outside_sums, t);
}

static AxV elem_compare(AxDomain *d, AxOp op, AxType t, AxV pa, AxV pb) {
  if (t != AX_BOOL && (((const Ext *)pa)->red || ((const Ext *)pb)->red)) {
    d->unsupported = "comparing a reduction with a value is not supported";
    return ax_term_mk_false(TC(d));
  }
  return plain_compare(d, op, t, pa, pb);
}

static AxV elem_same(AxDomain *d, AxType t, AxV pa, AxV pb) {
  if (t != AX_BOOL && (((const Ext *)pa)->red || ((const Ext *)pb)->red)) {
    d->unsupported = "equality of reductions needs a bijection (internal: asked as a term)";
    return ax_term_mk_false(TC(d));
  }
  return plain_same(d, t, pa, pb);
}

/* REDUCE: the summand at the summation variables, then one reduction over them (merged
 * with a reduction the summand already is). */
static AxV sum(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
               const char *const *names, const int *axes, const int *pos,
               AxV (*body)(void *, const AxV *), void *ctx) {
  AxSymbolic *s = S(d);
  (void)t;   /* the summand carries its type */
  int group = ++s->groups;
  AxTermCtx *tc = s->head.tc;
  T *v = ax_arena_alloc(s->a, (n + 1) * sizeof(T));
  Red *r = ax_arena_alloc(s->a, sizeof *r);
  r->dom = ax_term_mk_true(tc);
  for (size_t k = 0; k < n; k++) {
    v[k] = vars && vars[k] ? (T)vars[k] : fresh_var(d, names[k], axes[k], pos[k], group);
    if (vars && vars[k] && axis_of_var(d, v[k]) < 0) {   /* an index map's variable */
      AxSumVar *sv = ax_arena_alloc(s->a, sizeof *sv);
      *sv = (AxSumVar){.var = v[k], .axis = axes[k], .pos = pos[k], .group = group};
      ax_vec_push(s->a, &s->sumvars, sv);
    }
    r->dom = and2(d, r->dom, and2(d, ax_term_mk_le(tc, ax_term_mk_int_si(tc, 0), v[k]),
                                  ax_term_mk_lt(tc, v[k], sizes[k])));
  }
  r->vars = v;
  r->n = n;
  const Ext *f = body(ctx, (const AxV *)v);
  if (f->red) {   /* Red_X (Red_Y g) = Red_{X,Y} g */
    f = apart(d, r, f);
    Red *m = union_vars(d, r, f->red, NULL);
    m->dom = and2(d, r->dom, f->red->dom);
    r = m;
  }
  return with_red(d, f, r);
}

static AxV read(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n) {
  AxSymbolic *s = S(d);
  AxSort sorts[AX_MAX_AXES * 8];
  for (size_t i = 0; i < n; i++) sorts[i] = AX_SORT_INT;
  AxSort res = t == AX_BOOL ? AX_SORT_BOOL : t == AX_INT ? AX_SORT_INT : AX_SORT_REAL;
  const AxFunc *f = ax_term_func(s->head.tc, s->names[sym], n, sorts, res);
  AX_ASSERT(f);   /* one tensor, one signature: sort and arity are fixed per instance */
  T app = ax_term_mk_app(s->head.tc, f, n, (const AxTerm *const *)idx);
  bool seen = false;
  for (size_t i = 0; i < s->reads.len && !seen; i++) seen = ((AxRead *)s->reads.items[i])->app == app;
  if (!seen) {
    AxRead *r = ax_arena_alloc(s->a, sizeof *r);
    r->sym = sym;
    r->type = t;
    r->n = n;
    r->idx = ax_arena_alloc(s->a, (n + 1) * sizeof(T));
    memcpy(r->idx, idx, n * sizeof(T));
    r->app = app;
    ax_vec_push(s->a, &s->reads, r);
  }
  return t == AX_BOOL ? (AxV)app : finite(d, app);   /* inputs are finite */
}

AxSymbolic *ax_symbolic_new(AxTermCtx *tc, const char *const *tensor_names) {
  AxArena *a = ax_arena_new();
  AxSymbolic *s = ax_arena_alloc(a, sizeof *s);
  s->a = a;
  s->head.tc = tc;
  s->names = tensor_names;
  s->head.dom = (AxDomain){.ite = ite,                   .elem_lit = elem_lit,
                           .elem_of_int = elem_of_int,   .int_of_elem = int_of_elem,
                           .elem_binary = elem_binary,
                           .elem_unary = elem_unary,     .elem_compare = elem_compare,
                           .elem_same = elem_same,       .read = read,
                           .sum = sum};
  ax_symbolic_scalars(&s->head.dom);
  return s;
}

void ax_symbolic_free(AxSymbolic *s) {
  if (s) ax_arena_free(s->a);
}

AxDomain *ax_symbolic_domain(AxSymbolic *s) { return &s->head.dom; }

AxV ax_symbolic_int_var(AxSymbolic *s, const char *name) {
  return ax_term_mk_var(s->head.tc, name, AX_SORT_INT);
}

const AxTerm *ax_symbolic_term(AxV v) { return v; }

void ax_symbolic_elem_terms(AxV v, AxType t, const AxTerm *out[4]) {
  if (t == AX_BOOL) {
    out[0] = v;
    out[1] = out[2] = out[3] = NULL;
    return;
  }
  const Ext *e = v;
  out[0] = e->v;
  out[1] = e->nan;
  out[2] = e->pinf;
  out[3] = e->ninf;
}

const AxRead *ax_symbolic_reads(const AxSymbolic *s, size_t *n) {
  /* the vector holds pointers; hand out a contiguous copy */
  *n = s->reads.len;
  AxRead *out = ax_arena_alloc(s->a, (s->reads.len + 1) * sizeof(AxRead));
  for (size_t i = 0; i < s->reads.len; i++) out[i] = *(AxRead *)s->reads.items[i];
  return out;
}

bool ax_symbolic_red(AxV elem, AxType t, AxRedTerms *out) {
  if (t == AX_BOOL) return false;
  const Ext *e = elem;
  memset(out, 0, sizeof *out);
  out->body = e->v;
  if (!e->red) return false;
  out->n = e->red->n;
  out->vars = e->red->vars;
  out->dom = e->red->dom;
  return true;
}

const AxTerm *ax_symbolic_not_finite(AxSymbolic *s) {
  return ax_term_mk_or(s->head.tc, s->not_finite.len, (const AxTerm *const *)s->not_finite.items);
}

const AxTerm *ax_symbolic_facts(AxSymbolic *s) {
  return ax_term_mk_and(s->head.tc, s->facts.len, (const AxTerm *const *)s->facts.items);
}

const AxClosedSum *ax_symbolic_closed(const AxSymbolic *s, size_t *n) {
  *n = s->closed.len;
  AxClosedSum *out = ax_arena_alloc(s->a, (s->closed.len + 1) * sizeof(AxClosedSum));
  for (size_t i = 0; i < s->closed.len; i++) out[i] = *(AxClosedSum *)s->closed.items[i];
  return out;
}

const AxSumVar *ax_symbolic_sumvars(const AxSymbolic *s, size_t *n) {
  *n = s->sumvars.len;
  AxSumVar *out = ax_arena_alloc(s->a, (s->sumvars.len + 1) * sizeof(AxSumVar));
  for (size_t i = 0; i < s->sumvars.len; i++) out[i] = *(AxSumVar *)s->sumvars.items[i];
  return out;
}
