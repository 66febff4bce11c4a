/* check_ewop.c — the element-wise operator table: every program-level element-wise
 * operator of AX_OP_LIST has a complete row, and the rows compute what they say. */
#include <math.h>

#include "superopt/ir/ewop.h"
#include "unit.h"

/* The operators that must have a row: program/block level, class UNARY or BINARY. */
static bool needs_row(AxOp op) {
  const AxOpSpec *sp = ax_op_spec(op);
  return (sp->levels & (AX_LV_PROG | AX_LV_BLOCK)) && (sp->cls == AX_TC_UNARY || sp->cls == AX_TC_BINARY);
}

/* A binary row's `commutes` agrees with its functions: the double function on (2, 3) and
 * (3, 2) gives one value iff it says it commutes, and the field function on random
 * elements in both orders agrees when it does. */
static void commutes_as_computed(const AxEwOp *r, const char *name) {
  double a[2] = {2, 3}, b[2] = {3, 2}, ab[2], ba[2];
  r->f64_bin(2, ab, a, 1, b, 1);
  r->f64_bin(2, ba, b, 1, a, 1);
  ck_assert_msg((ab[0] == ab[1]) == r->commutes, "'%s': commutes is %s, but %g %s %g", name,
                r->commutes ? "true" : "false", ab[0], ab[0] == ab[1] ? "=" : "!=", ab[1]);
  ck_assert(ab[0] == ba[1] && ab[1] == ba[0]);
  /* max and min have no field function to commute: each call draws fresh variables */
  if (!r->commutes || r->lax == AX_EWOP_LAX_ORDER) return;
  uint64_t P, Q;
  ax_field_draw_primes(11, &P, &Q);
  AxRng rng;
  ax_rng_init(&rng, 11, 11);
  AxField f;
  ax_field_init(&f, P, Q, &rng);
  AxFF x[8], y[8], xy[8], yx[8];
  for (int i = 0; i < 8; i++) x[i] = ax_field_random(&f, &rng), y[i] = ax_field_random(&f, &rng);
  r->ff_bin(&f, 8, xy, x, 1, y, 1, true);
  r->ff_bin(&f, 8, yx, y, 1, x, 1, true);
  for (int i = 0; i < 8; i++)
    ck_assert_msg(xy[i].p == yx[i].p && xy[i].q == yx[i].q, "'%s': the field function does not commute", name);
  ax_field_fini(&f);
}

/* A walk over AX_OP_LIST: a new element-wise operator without its row (or with half a
 * row) fails here, named, instead of reaching a NULL call in a layer. */
START_TEST(complete) {
  int rows = 0, generated_ranks = 0;
  bool rank_seen[AX_OP_COUNT + 1] = {false};
#define X(e, name, pname, lv, lo, hi, et, plo, phi, pat, cl)                                        \
  do {                                                                                             \
    AxOp op = AX_OP_##e;                                                                           \
    const AxEwOp *r = ax_ewop_get(op);                                                             \
    if (!needs_row(op)) {                                                                          \
      ck_assert_msg(r == NULL, "'%s' is not element-wise at the program level but has a row", name); \
      break;                                                                                       \
    }                                                                                              \
    ck_assert_msg(r != NULL, "element-wise operator '%s' has no row in superopt/ir/ewop.c", name);   \
    rows++;                                                                                        \
    const AxOpSpec *sp = ax_op_spec(op);                                                           \
    ck_assert_msg(r->op == op, "'%s': the row names another operator", name);                     \
    ck_assert_msg(r->arity == sp->min_in && r->arity == sp->max_in, "'%s': arity %d, ops.h says %d", \
                  name, r->arity, sp->min_in);                                                     \
    bool un = r->arity == 1;                                                                       \
    ck_assert_msg(un ? r->f64_un && r->ff_un && !r->f64_bin && !r->ff_bin                         \
                     : r->f64_bin && r->ff_bin && !r->f64_un && !r->ff_un,                         \
                  "'%s': double/field functions missing or of the wrong arity", name);            \
    ck_assert_msg(r->cuda && strstr(r->cuda, "a0") && (strstr(r->cuda, "a1") != NULL) == !un,      \
                  "'%s': CUDA expression missing or not over its operands", name);                \
    ck_assert_msg(r->flops > 0, "'%s': no FLOPs", name);                                          \
    ck_assert_msg(r->lax <= AX_EWOP_LAX_ORDER && r->abs <= AX_EWOP_ABS_OPAQUE, "'%s': rules", name); \
    /* ORDER (a fresh variable, refused) fits both arities (max; abs); OPAQUE too (sqrt; pow) */ \
    bool bin_lax = r->lax == AX_EWOP_LAX_SUM || r->lax == AX_EWOP_LAX_QUOTIENT;                    \
    ck_assert_msg(un ? !bin_lax                                                                    \
                     : (bin_lax || r->lax == AX_EWOP_LAX_PRODUCT || r->lax == AX_EWOP_LAX_ORDER || \
                        r->lax == AX_EWOP_LAX_OPAQUE),                                             \
                  "'%s': a Lax rule of the other arity", name);                                    \
    ck_assert_msg(un ? r->abs != AX_EWOP_ABS_ADD                                                  \
                     : (r->abs == AX_EWOP_ABS_ADD || r->abs == AX_EWOP_ABS_SUB || r->abs == AX_EWOP_ABS_POWER ||              \
                        r->abs == AX_EWOP_ABS_OPAQUE),                                             \
                  "'%s': an abstract rule of the other arity", name);                              \
    ck_assert_msg(r->abs != AX_EWOP_ABS_POWER || (r->abs_pow[0] != 0 && (un == (r->abs_pow[1] == 0))), \
                  "'%s': exponents of its operands", name);                                       \
    ck_assert_msg(!r->reads_q || un, "'%s': only a unary operator reads an exponent", name);      \
    ck_assert_msg(r->insert == 0 || un, "'%s': the generator inserts unary operators only", name); \
    ck_assert_msg(!r->commutes || !un, "'%s': only a binary operator commutes", name);            \
    if (!un) commutes_as_computed(r, name);                                                        \
    ck_assert_msg(r->insert >= 0 && r->insert <= AX_OP_COUNT && !rank_seen[r->insert],             \
                  "'%s': generator rank %d taken", name, r->insert);                              \
    if (r->insert) rank_seen[r->insert] = true, generated_ranks++;                                 \
  } while (0);
  AX_OP_LIST(X)
#undef X
  ck_assert_int_eq(rows, 29);
  ck_assert_ptr_null(ax_ewop_get(AX_OP_COUNT));
  /* the generator's list: the rows with a rank, in rank order */
  int n;
  const AxOp *g = ax_ewop_generated(&n);
  ck_assert_int_eq(n, generated_ranks);
  for (int i = 1; i < n; i++) ck_assert_int_lt(ax_ewop_get(g[i - 1])->insert, ax_ewop_get(g[i])->insert);
}
END_TEST

/* The behaviour the table must keep: the search's unary order, who reads exponents,
 * FLOPs and CUDA text as the cost model and the generated kernels had them. */
START_TEST(rows_as_before) {
  int n;
  const AxOp *g = ax_ewop_generated(&n);
  /* the first four as before; the operators of real layers after them (the generator
   * inserts only operators the program uses, so programs without them search as before) */
  AxOp want[] = {AX_OP_EXP, AX_OP_SQRT, AX_OP_SILU, AX_OP_SQUARE, AX_OP_RSQRT, AX_OP_TANH,
                 AX_OP_LOGISTIC, AX_OP_TO_F16, AX_OP_TO_BF16, AX_OP_TO_F32};
  ck_assert_int_eq(n, 10);
  for (int i = 0; i < 10; i++) ck_assert_int_eq(g[i], want[i]);
  ck_assert(ax_ewop_reads_q(AX_OP_EXP) && ax_ewop_reads_q(AX_OP_SILU));
  ck_assert(!ax_ewop_reads_q(AX_OP_SQRT) && !ax_ewop_reads_q(AX_OP_ADD) && !ax_ewop_reads_q(AX_OP_DOT));
  ck_assert(ax_ewop_get(AX_OP_SILU)->flops == 6 && ax_ewop_get(AX_OP_DIV)->flops == 2);
  ck_assert_str_eq(ax_ewop_get(AX_OP_SILU)->cuda, "a0 / (1.0f + expf(-a0))");
  ck_assert_ptr_null(ax_ewop_get(AX_OP_RMS_NORM));
}
END_TEST

/* The double functions on a few values, with broadcast strides. */
START_TEST(doubles) {
  double a[3] = {1, -2, 4}, b[3] = {2, 4, -8}, o[3];
  ax_ewop_get(AX_OP_SUB)->f64_bin(3, o, a, 1, b, 1);
  ck_assert(o[0] == -1 && o[1] == -6 && o[2] == 12);
  ax_ewop_get(AX_OP_DIV)->f64_bin(3, o, a, 1, b, 0);   /* b[0] broadcast */
  ck_assert(o[0] == 0.5 && o[1] == -1 && o[2] == 2);
  ax_ewop_get(AX_OP_SQUARE)->f64_un(3, o, a);
  ck_assert(o[0] == 1 && o[1] == 4 && o[2] == 16);
  ax_ewop_get(AX_OP_SILU)->f64_un(1, o, a);
  ck_assert(fabs(o[0] - 1 / (1 + exp(-1.0))) < 1e-15);
  ax_ewop_get(AX_OP_NEG)->f64_un(3, a, a);             /* in place */
  ck_assert(a[0] == -1 && a[1] == 2 && a[2] == -4);
}
END_TEST

/* The operators of real layers in doubles: rsqrt, tanh, logistic at a few points; max and
 * min element by element, with a broadcast operand, and NaN propagated as XLA does. */
START_TEST(doubles_of_real_layers) {
  double x[3] = {4, 0.25, -1}, o[4];
  ax_ewop_get(AX_OP_RSQRT)->f64_un(2, o, x);
  ck_assert(o[0] == 0.5 && o[1] == 2);
  ax_ewop_get(AX_OP_TANH)->f64_un(3, o, x);
  ck_assert(fabs(o[2] + 0.7615941559557649) < 1e-15 && o[0] > 0.999 && o[0] < 1);
  ax_ewop_get(AX_OP_LOGISTIC)->f64_un(3, o, x);
  ck_assert(fabs(o[2] - 0.2689414213699951) < 1e-15);
  double zero = 0, t[1] = {0};
  ax_ewop_get(AX_OP_LOGISTIC)->f64_un(1, t, &zero);
  ck_assert(t[0] == 0.5);
  double a[4] = {1, -2, NAN, 3}, b[4] = {0, 5, 1, NAN};
  ax_ewop_get(AX_OP_MAX)->f64_bin(4, o, a, 1, b, 1);
  ck_assert(o[0] == 1 && o[1] == 5 && isnan(o[2]) && isnan(o[3]));
  double m[4];
  ax_ewop_get(AX_OP_MIN)->f64_bin(4, m, a, 1, b, 1);
  ck_assert(m[0] == 0 && m[1] == -2 && isnan(m[2]) && isnan(m[3]));
  ax_ewop_get(AX_OP_MAX)->f64_bin(2, o, a, 1, &zero, 0);   /* relu: max(x, 0) */
  ck_assert(o[0] == 1 && o[1] == 0);
}
END_TEST

/* The comparisons: 1.0 where the relation holds, 0.0 elsewhere, with a broadcast operand;
 * NaN is unordered (only ne holds); in the field they are fresh variables, never a value
 * that could pick a branch. */
START_TEST(compares) {
  double a[4] = {1, 2, 3, NAN}, b[1] = {2}, o[4];
  struct { AxOp op; double want[4]; } rows[] = {
      {AX_OP_EQ, {0, 1, 0, 0}}, {AX_OP_NE, {1, 0, 1, 1}}, {AX_OP_LT, {1, 0, 0, 0}},
      {AX_OP_LE, {1, 1, 0, 0}}, {AX_OP_GT, {0, 0, 1, 0}}, {AX_OP_GE, {0, 1, 1, 0}},
  };
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    const AxEwOp *e = ax_ewop_get(rows[k].op);
    ck_assert_msg(e && e->lax == AX_EWOP_LAX_ORDER && e->insert == 0, "%s", ax_op_name(rows[k].op));
    e->f64_bin(4, o, a, 1, b, 0);
    for (int i = 0; i < 4; i++)
      ck_assert_msg(o[i] == rows[k].want[i], "%s at %d: %g", ax_op_name(rows[k].op), i, o[i]);
  }
  ck_assert_str_eq(ax_ewop_get(AX_OP_LE)->cuda, "(a0 <= a1) ? 1.0f : 0.0f");
  uint64_t P, Q;
  ax_field_draw_primes(7, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 7, 7);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxFF x[2] = {{1, 1}, {1, 1}}, z[2];
  ax_ewop_get(AX_OP_EQ)->ff_bin(&f, 2, z, x, 1, x, 1, true);
  ck_assert_uint_eq(f.fresh, 2);
  ck_assert(z[0].p != z[1].p);
  ax_field_fini(&f);
}
END_TEST

/* The field readings of docs/superopt.md, checked as identities in Zp: logistic(v) =
 * e^v / (1 + e^v), tanh(v) = 2·logistic(2v) - 1, rsqrt(v) · sqrt(v) = 1 (one random
 * function for both); max and min make every test inconclusive. */
START_TEST(field_of_real_layers) {
  uint64_t P, Q;
  ax_field_draw_primes(5, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 5, 5);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  for (int k = 0; k < 16; k++) {
    AxFF a = ax_field_random(&f, &r), a2 = {(uint32_t)(2 * (uint64_t)a.p % P), (uint32_t)(2 * (uint64_t)a.q % Q)};
    AxFF lg, lg2, th, sq, rs;
    ax_ewop_get(AX_OP_LOGISTIC)->ff_un(&f, 1, &lg, &a, false);
    uint64_t w = ax_field_exp(&f, a.q);
    ck_assert_uint_eq(lg.p, w * ax_field_inv((1 + w) % P, P) % P);
    ck_assert_uint_eq(lg.q, AX_FF_UNDEF);
    ax_ewop_get(AX_OP_LOGISTIC)->ff_un(&f, 1, &lg2, &a2, false);
    ax_ewop_get(AX_OP_TANH)->ff_un(&f, 1, &th, &a, false);
    ck_assert_uint_eq(th.p, (2 * (uint64_t)lg2.p + P - 1) % P);
    ck_assert_uint_eq(th.q, AX_FF_UNDEF);
    ax_ewop_get(AX_OP_SQRT)->ff_un(&f, 1, &sq, &a, true);
    ax_ewop_get(AX_OP_RSQRT)->ff_un(&f, 1, &rs, &a, true);
    ck_assert_uint_eq((uint64_t)sq.p * rs.p % P, 1);
    ck_assert_uint_eq((uint64_t)sq.q * rs.q % Q, 1);
  }
  ck_assert(ax_ewop_reads_q(AX_OP_TANH) && ax_ewop_reads_q(AX_OP_LOGISTIC) && !ax_ewop_reads_q(AX_OP_RSQRT));
  ck_assert_uint_eq(f.divzero, 0);
  /* max and min: a fresh variable per element, never the same twice, both sides defined */
  AxFF a[3] = {{1, 2}, {3, 4}, {5, 6}}, o[3], o2[3];
  ax_ewop_get(AX_OP_MAX)->ff_bin(&f, 3, o, a, 1, a, 1, true);
  ck_assert_uint_eq(f.fresh, 3);
  ax_ewop_get(AX_OP_MIN)->ff_bin(&f, 3, o2, a, 1, a, 0, true);
  ck_assert_uint_eq(f.fresh, 6);
  ck_assert_uint_eq(f.divzero, 0);
  for (int i = 0; i < 3; i++) {
    ck_assert(o[i].p < P && o[i].q < Q && o2[i].p < P && o2[i].q < Q);
    ck_assert(o[i].p != o2[i].p && (i == 0 || o[i].p != o[i - 1].p));
  }
  ck_assert(ax_ewop_get(AX_OP_MAX)->lax == AX_EWOP_LAX_ORDER && ax_ewop_get(AX_OP_MIN)->lax == AX_EWOP_LAX_ORDER);
  ax_field_fini(&f);
}
END_TEST

/* abs, log, pow in doubles; in the field: abs a fresh variable per element (refused by the
 * Lax check), log a keyed function (the same argument, the same value), pow exact at a
 * small integer exponent (x^3 = x·x·x, x^-2 = 1/(x·x), x^0 = 1) and a keyed function of
 * both operands at any other one. */
START_TEST(abs_log_pow) {
  double x[3] = {-2, 0.5, 3}, e[3] = {3, -1, 0.5}, o[3];
  ax_ewop_get(AX_OP_ABS)->f64_un(3, o, x);
  ck_assert(o[0] == 2 && o[1] == 0.5 && o[2] == 3);
  ax_ewop_get(AX_OP_LOG)->f64_un(1, o, &x[2]);
  ck_assert(fabs(o[0] - 1.0986122886681098) < 1e-15);
  ax_ewop_get(AX_OP_POW)->f64_bin(3, o, x, 1, e, 1);
  ck_assert(o[0] == -8 && o[1] == 2 && fabs(o[2] - 1.7320508075688772) < 1e-15);
  uint64_t P, Q;
  ax_field_draw_primes(7, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 7, 7);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxFF a = ax_field_random(&f, &r), b = ax_field_random(&f, &r), three = {3, 3}, m2 = {(uint32_t)(P - 2), (uint32_t)(Q - 2)},
       zero = {0, 0}, y, y2;
  ax_ewop_get(AX_OP_POW)->ff_bin(&f, 1, &y, &a, 1, &three, 1, true);
  ck_assert_uint_eq(y.p, (uint64_t)a.p * a.p % P * a.p % P);
  ck_assert_uint_eq(y.q, (uint64_t)a.q * a.q % Q * a.q % Q);
  ax_ewop_get(AX_OP_POW)->ff_bin(&f, 1, &y, &a, 1, &m2, 1, true);
  ck_assert_uint_eq((uint64_t)y.p * a.p % P * a.p % P, 1);
  ax_ewop_get(AX_OP_POW)->ff_bin(&f, 1, &y, &a, 1, &zero, 1, true);
  ck_assert(y.p == 1 && y.q == 1);
  ax_ewop_get(AX_OP_POW)->ff_bin(&f, 1, &y, &a, 1, &b, 1, true);
  ax_ewop_get(AX_OP_POW)->ff_bin(&f, 1, &y2, &a, 1, &b, 1, true);
  ck_assert(y.p == y2.p && y.q == y2.q && y.p < P && y.q < Q);
  ax_ewop_get(AX_OP_LOG)->ff_un(&f, 1, &y, &a, true);
  ax_ewop_get(AX_OP_LOG)->ff_un(&f, 1, &y2, &a, true);
  ck_assert(y.p == y2.p && y.q == y2.q);
  uint64_t before = f.fresh;
  ax_ewop_get(AX_OP_ABS)->ff_un(&f, 1, &y, &a, true);
  ax_ewop_get(AX_OP_ABS)->ff_un(&f, 1, &y2, &a, true);
  ck_assert(f.fresh == before + 2 && y.p != y2.p);
  ck_assert(ax_ewop_get(AX_OP_ABS)->lax == AX_EWOP_LAX_ORDER && ax_ewop_get(AX_OP_LOG)->lax == AX_EWOP_LAX_OPAQUE &&
            ax_ewop_get(AX_OP_POW)->lax == AX_EWOP_LAX_OPAQUE);
  ck_assert_uint_eq(f.divzero, 0);
  ax_field_fini(&f);
}
END_TEST

/* sin, cos, erf in doubles (C's, with their specials: sin(inf) and cos(inf) NaN, erf(±inf)
 * ±1); in the field three keyed functions, each the same value at the same argument and
 * different from one another there (no law between them, sin^2 + cos^2 = 1 included). */
START_TEST(sin_cos_erf) {
  double x[4] = {0.5, -2, INFINITY, -INFINITY}, o[4];
  ax_ewop_get(AX_OP_SIN)->f64_un(4, o, x);
  ck_assert(fabs(o[0] - 0.479425538604203) < 1e-15 && fabs(o[1] + 0.9092974268256817) < 1e-15);
  ck_assert(isnan(o[2]) && isnan(o[3]));
  ax_ewop_get(AX_OP_COS)->f64_un(4, o, x);
  ck_assert(fabs(o[0] - 0.8775825618903728) < 1e-15 && isnan(o[2]));
  ax_ewop_get(AX_OP_ERF)->f64_un(4, o, x);
  ck_assert(fabs(o[0] - 0.5204998778130465) < 1e-15 && fabs(o[1] + 0.9953222650189527) < 1e-15);
  ck_assert(o[2] == 1 && o[3] == -1);
  uint64_t P, Q;
  ax_field_draw_primes(7, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 7, 7);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxFF a = ax_field_random(&f, &r), y[3], y2;
  const AxOp ops[3] = {AX_OP_SIN, AX_OP_COS, AX_OP_ERF};
  for (int i = 0; i < 3; i++) {
    ax_ewop_get(ops[i])->ff_un(&f, 1, &y[i], &a, true);
    ax_ewop_get(ops[i])->ff_un(&f, 1, &y2, &a, true);
    ck_assert(y[i].p == y2.p && y[i].q == y2.q && y[i].p < P && y[i].q < Q);
    ck_assert(ax_ewop_get(ops[i])->lax == AX_EWOP_LAX_OPAQUE && ax_ewop_get(ops[i])->insert == 0);
  }
  ck_assert(y[0].p != y[1].p && y[1].p != y[2].p && y[0].p != y[2].p);
  uint64_t s2c2 = ((uint64_t)y[0].p * y[0].p + (uint64_t)y[1].p * y[1].p) % P;
  ck_assert_uint_ne(s2c2, 1);
  ax_field_fini(&f);
}
END_TEST

/* Conversions round to nearest, ties to even, at the edges of each format: f16's largest
 * value 65504 and the overflow from 65520, its subnormals (2^-24 the smallest, half of it a
 * tie to 0, 1.5·2^-24 a tie up to 2^-23), a tie between two normals (1 + 2^-11 to 1, 1 +
 * 3·2^-11 to 1 + 2^-9); bf16 (8 bits of precision, f32's range); f32. */
START_TEST(conversions) {
  double x[] = {65504, 65519, 65520, -65520, ldexp(1, -24), ldexp(1, -25), ldexp(1.5, -24),
                1 + ldexp(1, -11), 1 + ldexp(3, -11), 0.1, NAN, -INFINITY};
  double h[12];
  ax_ewop_get(AX_OP_TO_F16)->f64_un(12, h, x);
  ck_assert(h[0] == 65504 && h[1] == 65504 && h[2] == INFINITY && h[3] == -INFINITY);
  ck_assert(h[4] == ldexp(1, -24) && h[5] == 0 && h[6] == ldexp(1, -23));
  ck_assert(h[7] == 1 && h[8] == 1 + ldexp(1, -9));
  ck_assert(h[9] == 0.0999755859375);   /* 0x2E66 */
  ck_assert(isnan(h[10]) && h[11] == -INFINITY);
  double b[] = {1 + ldexp(1, -8), 1 + ldexp(3, -8), 3.0e38, 65520, ldexp(1, -133), 0.1}, bo[6];
  ax_ewop_get(AX_OP_TO_BF16)->f64_un(6, bo, b);
  ck_assert(bo[0] == 1 && bo[1] == 1 + ldexp(1, -6));
  ck_assert(bo[2] == ldexp(226, 120));   /* 1.765625 · 2^127 */
  ck_assert(bo[3] == 65536);   /* finite in bf16 */
  ck_assert(bo[4] == ldexp(1, -133));   /* a bf16 subnormal */
  ck_assert(bo[5] == 0.10009765625);   /* 0x3DCD */
  double s[] = {0.1, 1 + ldexp(1, -30)}, so[2];
  ax_ewop_get(AX_OP_TO_F32)->f64_un(2, so, s);
  ck_assert(so[0] == (double)0.1f && so[1] == 1);
  /* the field: a keyed function per type, the same value for the same argument */
  uint64_t P, Q;
  ax_field_draw_primes(7, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 7, 7);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxFF a[2] = {{5, 6}, {5, 6}}, o16[2], obf[2];
  ax_ewop_get(AX_OP_TO_F16)->ff_un(&f, 2, o16, a, true);
  ax_ewop_get(AX_OP_TO_BF16)->ff_un(&f, 2, obf, a, true);
  ck_assert(o16[0].p == o16[1].p && o16[0].q == o16[1].q && o16[0].q != AX_FF_UNDEF);
  ck_assert(o16[0].p != obf[0].p);   /* f16 and bf16 rounding are different functions */
  ck_assert(o16[0].p != a[0].p);     /* and neither is the identity */
  ck_assert_uint_eq(f.divzero, 0);
  ax_field_fini(&f);
}
END_TEST

/* The double functions at the special values of docs/semantics.md's table ("Special
 * values"): ±inf, NaN, ±0 and subnormals, each result compared as a bit pattern (the sign
 * of a zero or an infinity counts; any NaN is a NaN). These doubles are the reference
 * semantics the superoptimizer's checks, the emulator and check_hlo's comparison with
 * tests/hlo/reference.py read, so a row here is a row of that table. */
static bool same_double(double got, double want) {
  return isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want);
}

START_TEST(doubles_at_special_values) {
  const double I = INFINITY, N = NAN, sub = ldexp(1, -1060);   /* a double subnormal */
  static const struct { AxOp op; double x, want; } un[] = {
      {AX_OP_TANH, I, 1},          {AX_OP_TANH, -I, -1},        {AX_OP_TANH, N, N},
      {AX_OP_TANH, 0.0, 0.0},      {AX_OP_TANH, -0.0, -0.0},    {AX_OP_TANH, 0, 0},
      {AX_OP_LOGISTIC, I, 1},      {AX_OP_LOGISTIC, -I, 0},     {AX_OP_LOGISTIC, N, N},
      {AX_OP_LOGISTIC, -0.0, 0.5}, {AX_OP_LOGISTIC, -1000, 0},  {AX_OP_LOGISTIC, 1000, 1},
      {AX_OP_SILU, I, I},          {AX_OP_SILU, -I, N},         {AX_OP_SILU, N, N},
      {AX_OP_SILU, -0.0, -0.0},    {AX_OP_SILU, -1000, -0.0},
      {AX_OP_EXP, I, I},           {AX_OP_EXP, -I, 0},          {AX_OP_EXP, N, N},
      {AX_OP_EXP, -0.0, 1},        {AX_OP_EXP, 1000, I},
      {AX_OP_LOG, 0.0, -I},        {AX_OP_LOG, -0.0, -I},       {AX_OP_LOG, -1, N},
      {AX_OP_LOG, -I, N},          {AX_OP_LOG, I, I},           {AX_OP_LOG, N, N},
      {AX_OP_LOG, 1, 0},
      {AX_OP_SQRT, -0.0, -0.0},    {AX_OP_SQRT, 0.0, 0.0},      {AX_OP_SQRT, -1, N},
      {AX_OP_SQRT, -I, N},         {AX_OP_SQRT, I, I},          {AX_OP_SQRT, N, N},
      {AX_OP_RSQRT, 0.0, I},       {AX_OP_RSQRT, -0.0, -I},     {AX_OP_RSQRT, I, 0.0},
      {AX_OP_RSQRT, -1, N},        {AX_OP_RSQRT, -I, N},        {AX_OP_RSQRT, N, N},
      {AX_OP_TO_F16, -0.0, -0.0},  {AX_OP_TO_F16, -ldexp(1, -25), -0.0},
      {AX_OP_TO_F16, I, I},        {AX_OP_TO_F16, N, N},        {AX_OP_TO_F16, -65520, -I},
      {AX_OP_TO_BF16, -0.0, -0.0}, {AX_OP_TO_BF16, ldexp(1, -134), 0.0},
      {AX_OP_TO_BF16, ldexp(3, -135), ldexp(1, -133)},        {AX_OP_TO_BF16, -I, -I},
      {AX_OP_TO_F32, -0.0, -0.0},  {AX_OP_TO_F32, ldexp(1, -150), 0.0},
      {AX_OP_TO_F32, ldexp(3, -151), ldexp(1, -149)},         {AX_OP_TO_F32, 1e39, I},
      {AX_OP_TO_F32, N, N},
  };
  for (size_t k = 0; k < sizeof un / sizeof *un; k++) {
    double o;
    ax_ewop_get(un[k].op)->f64_un(1, &o, &un[k].x);
    ck_assert_msg(same_double(o, un[k].want), "%s(%g) = %g, want %g", ax_op_name(un[k].op), un[k].x, o, un[k].want);
  }
  /* tanh of a subnormal is that subnormal (tanh(x) = x + O(x^3)) */
  double t;
  ax_ewop_get(AX_OP_TANH)->f64_un(1, &t, &sub);
  ck_assert(t == sub);
  static const struct { AxOp op; double x, y, want; } bin[] = {
      /* maximum / minimum: NaN from either side; -0 below +0 in both orders */
      {AX_OP_MAX, N, 1, N},        {AX_OP_MAX, 1, N, N},        {AX_OP_MIN, N, -I, N},
      {AX_OP_MIN, -I, N, N},       {AX_OP_MAX, -0.0, 0.0, 0.0}, {AX_OP_MAX, 0.0, -0.0, 0.0},
      {AX_OP_MIN, -0.0, 0.0, -0.0},{AX_OP_MIN, 0.0, -0.0, -0.0},{AX_OP_MAX, -0.0, -0.0, -0.0},
      {AX_OP_MAX, -I, 2, 2},       {AX_OP_MIN, I, 2, 2},
      /* pow, C's (Annex F.10.4.4) */
      {AX_OP_POW, N, 0.0, 1},      {AX_OP_POW, N, -0.0, 1},     {AX_OP_POW, 1, N, 1},
      {AX_OP_POW, 1, I, 1},        {AX_OP_POW, -1, I, 1},       {AX_OP_POW, -1, -I, 1},
      {AX_OP_POW, 0.0, -1, I},     {AX_OP_POW, -0.0, -1, -I},   {AX_OP_POW, -0.0, -2, I},
      {AX_OP_POW, -0.0, 3, -0.0},  {AX_OP_POW, 0.0, -I, I},     {AX_OP_POW, 0.0, I, 0.0},
      {AX_OP_POW, 0.5, -I, I},     {AX_OP_POW, 2, -I, 0.0},     {AX_OP_POW, 0.5, I, 0.0},
      {AX_OP_POW, I, -1, 0.0},     {AX_OP_POW, I, 0.5, I},      {AX_OP_POW, -I, 3, -I},
      {AX_OP_POW, -I, 2, I},       {AX_OP_POW, -I, -1, -0.0},   {AX_OP_POW, -I, -2, 0.0},
      {AX_OP_POW, -2, 0.5, N},     {AX_OP_POW, N, 1, N},        {AX_OP_POW, -8, 1.0 / 3, N},
  };
  for (size_t k = 0; k < sizeof bin / sizeof *bin; k++) {
    double o;
    ax_ewop_get(bin[k].op)->f64_bin(1, &o, &bin[k].x, 1, &bin[k].y, 1);
    ck_assert_msg(same_double(o, bin[k].want), "%s(%g, %g) = %g, want %g", ax_op_name(bin[k].op), bin[k].x,
                  bin[k].y, o, bin[k].want);
  }
}
END_TEST

/* The field functions: the q side kept or left undefined as asked, exponents read. */
START_TEST(field) {
  uint64_t P, Q;
  ax_field_draw_primes(3, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 3, 3);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxFF a = {5, 7}, b = {3, 2}, o;
  ax_ewop_get(AX_OP_MUL)->ff_bin(&f, 1, &o, &a, 1, &b, 1, true);
  ck_assert(o.p == 15 && o.q == 14);
  ax_ewop_get(AX_OP_MUL)->ff_bin(&f, 1, &o, &a, 1, &b, 1, false);
  ck_assert(o.p == 15 && o.q == AX_FF_UNDEF);
  ax_ewop_get(AX_OP_NEG)->ff_un(&f, 1, &o, &a, true);
  ck_assert(o.p == P - 5 && o.q == Q - 7);
  ax_ewop_get(AX_OP_NEG)->ff_un(&f, 1, &o, &a, false);
  ck_assert_uint_eq(o.q, AX_FF_UNDEF);
  /* exp reads the q side even when its own is not wanted */
  ax_ewop_get(AX_OP_EXP)->ff_un(&f, 1, &o, &a, false);
  ck_assert_uint_eq(o.p, ax_field_exp(&f, 7));
  ck_assert_uint_eq(o.q, AX_FF_UNDEF);
  AxFF undef = {5, AX_FF_UNDEF};
  ax_ewop_get(AX_OP_SILU)->ff_un(&f, 1, &o, &undef, true);
  ck_assert_uint_eq(f.divzero, 1);   /* no exponent: inconclusive */
  AxFF zero = {0, 1};
  ax_ewop_get(AX_OP_DIV)->ff_bin(&f, 1, &o, &a, 1, &zero, 1, true);
  ck_assert_uint_eq(f.divzero, 2);
  ax_field_fini(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ewop");
  TCase *t = tcase_create("ewop");
  tcase_add_test(t, complete);
  tcase_add_test(t, rows_as_before);
  tcase_add_test(t, doubles);
  tcase_add_test(t, field);
  tcase_add_test(t, doubles_of_real_layers);
  tcase_add_test(t, field_of_real_layers);
  tcase_add_test(t, compares);
  tcase_add_test(t, conversions);
  tcase_add_test(t, doubles_at_special_values);
  tcase_add_test(t, abs_log_pow);
  tcase_add_test(t, sin_cos_erf);
  suite_add_tcase(s, t);
  return unit_run(s);
}
