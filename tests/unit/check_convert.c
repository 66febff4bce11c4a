/* check_convert.c — the rule language's conversions as rounding (semantics/convert.h):
 * exact values at the edges of each format (f16's largest value 65504 and its overflow
 * threshold 65520, the least subnormal 2^-24, ties to even, bf16 of 1 + 2^-8), the
 * formats that contain each other, agreement with the IEEE model's rounding (float.c), and
 * the concrete domain's to_f16 (±inf and NaN kept). */
#include <check.h>
#include <gmp.h>

#include "semantics/concrete.h"
#include "semantics/convert.h"
#include "semantics/float.h"

static const AxConvFormat *F16, *BF16, *F32;

static void setup(void) {
  F16 = ax_convert_format(AX_OP_TO_F16);
  BF16 = ax_convert_format(AX_OP_TO_BF16);
  F32 = ax_convert_format(AX_OP_TO_F32);
}

/* rounds the rational text x to f; returns the overflow sign and checks the value against
 * the rational text want (ignored when it overflows) */
static int rounds(const AxConvFormat *f, const char *x, const char *want) {
  mpq_t q, r, w;
  mpq_inits(q, r, w, NULL);
  ck_assert_int_eq(mpq_set_str(q, x, 10), 0);
  mpq_canonicalize(q);
  int over = ax_convert_round(f, q, r);
  if (!over) {
    ck_assert_int_eq(mpq_set_str(w, want, 10), 0);
    mpq_canonicalize(w);
    ck_assert_msg(mpq_equal(r, w), "%s of %s: got %s, want %s", f->name, x, mpq_get_str(NULL, 10, r), want);
  }
  mpq_clears(q, r, w, NULL);
  return over;
}

START_TEST(f16_edges) {
  ck_assert_int_eq(rounds(F16, "65504", "65504"), 0);        /* the largest finite value */
  ck_assert_int_eq(rounds(F16, "65519", "65504"), 0);        /* below the threshold */
  ck_assert_int_eq(rounds(F16, "65520", ""), 1);             /* the tie goes up: +inf */
  ck_assert_int_eq(rounds(F16, "-65520", ""), -1);
  ck_assert_int_eq(rounds(F16, "1/16777216", "1/16777216"), 0);   /* 2^-24, least subnormal */
  ck_assert_int_eq(rounds(F16, "1/33554432", "0"), 0);            /* 2^-25: tie to 0 (even) */
  ck_assert_int_eq(rounds(F16, "3/33554432", "1/8388608"), 0);    /* 3·2^-25: tie to 2^-23 */
  ck_assert_int_eq(rounds(F16, "2049/2048", "1"), 0);             /* 1 + 2^-11: tie to 1 */
  ck_assert_int_eq(rounds(F16, "2051/2048", "513/512"), 0);       /* 1 + 3·2^-11: to 1 + 2^-9 */
  ck_assert_int_eq(rounds(F16, "1/3", "1365/4096"), 0);
  ck_assert_int_eq(rounds(F16, "-1/3", "-1365/4096"), 0);
  ck_assert_int_eq(rounds(F16, "0", "0"), 0);
}
END_TEST

START_TEST(bf16_and_f32) {
  ck_assert_int_eq(rounds(BF16, "257/256", "1"), 0);              /* 1 + 2^-8: tie to 1 */
  ck_assert_int_eq(rounds(BF16, "259/256", "65/64"), 0);          /* 1 + 3·2^-8: tie to 1 + 2^-6 */
  ck_assert_int_eq(rounds(BF16, "65504", "65536"), 0);            /* no overflow in bf16 */
  ck_assert_int_eq(rounds(F32, "16777217/16777216", "1"), 0);     /* 1 + 2^-24: tie to 1 */
  ck_assert_int_eq(rounds(F32, "65504", "65504"), 0);
  mpq_t t, m;
  mpq_inits(t, m, NULL);
  ax_convert_overflow(F16, t);
  ax_convert_max(F16, m);
  ck_assert_int_eq(mpq_cmp_ui(t, 65520, 1), 0);
  ck_assert_int_eq(mpq_cmp_ui(m, 65504, 1), 0);
  ax_convert_overflow(BF16, t);   /* (2 - 2^-8) · 2^127 rounds up to +inf */
  ck_assert_int_eq(ax_convert_round(BF16, t, m), 1);
  ax_convert_max(F32, t);         /* (2 - 2^-23) · 2^127 is finite */
  ck_assert_int_eq(ax_convert_round(F32, t, m), 0);
  ck_assert(mpq_equal(t, m));
  mpq_clears(t, m, NULL);
}
END_TEST

START_TEST(containment) {
  ck_assert(ax_convert_contains(F32, F16) && ax_convert_contains(F32, BF16));
  ck_assert(ax_convert_contains(F16, F16) && ax_convert_contains(BF16, BF16));
  ck_assert(!ax_convert_contains(F16, BF16) && !ax_convert_contains(BF16, F16));
  ck_assert(!ax_convert_contains(F16, F32) && !ax_convert_contains(BF16, F32));
  ck_assert_ptr_null(ax_convert_format(AX_OP_EXP));
}
END_TEST

/* the same rounding as the IEEE model's (float.c), read as a rational, over a grid of
 * rationals n / 2^k · 3^j that covers ties, subnormals and overflow in each format */
START_TEST(agrees_with_the_ieee_model) {
  const AxConvFormat *fs[] = {F16, BF16, F32};
  mpq_t x, r, v;
  mpq_inits(x, r, v, NULL);
  for (size_t i = 0; i < 3; i++)
    for (long n = -2051; n <= 2051; n += 37)
      for (int k = -140; k <= 140; k += 7)
        for (unsigned j = 1; j <= 3; j += 2) {
          mpq_set_si(x, n, j);
          mpq_canonicalize(x);
          if (k >= 0) mpq_mul_2exp(x, x, (mp_bitcnt_t)k);
          else mpq_div_2exp(x, x, (mp_bitcnt_t)-k);
          int over = ax_convert_round(fs[i], x, r);
          uint32_t bits = ax_float_round(fs[i]->sort, x, n < 0);
          if (ax_float_is_inf(fs[i]->sort, bits)) {
            ck_assert_int_eq(over, ax_float_sign(fs[i]->sort, bits) ? -1 : 1);
            continue;
          }
          ck_assert_int_eq(over, 0);
          ax_float_value(fs[i]->sort, bits, v);
          ck_assert_msg(mpq_equal(r, v), "%s of %ld/%u·2^%d", fs[i]->name, n, j, k);
        }
  mpq_clears(x, r, v, NULL);
}
END_TEST

/* the concrete domain's row: the exact rounding, ±inf from the threshold, NaN kept */
START_TEST(concrete_domain) {
  AxConcrete *c = ax_concrete_new();
  AxDomain *d = ax_concrete_domain(c);
  mpq_t q;
  mpq_init(q);
  ck_assert_int_eq(ax_concrete_get_elem(d->elem_unary(d, AX_OP_TO_F16, AX_REAL, d->elem_lit(d, AX_REAL, "65520", 0)), q),
                   AX_PINF);
  ck_assert_int_eq(ax_concrete_get_elem(d->elem_unary(d, AX_OP_TO_BF16, AX_REAL, d->elem_lit(d, AX_REAL, "65520", 0)), q),
                   AX_FIN);
  ck_assert_int_eq(mpq_cmp_ui(q, 65536, 1), 0);
  ck_assert_int_eq(ax_concrete_get_elem(d->elem_unary(d, AX_OP_TO_F32, AX_REAL, d->elem_lit(d, AX_REAL, "0", -1)), q),
                   AX_NINF);
  ck_assert_ptr_null(d->unsupported);
  mpq_clear(q);
  ax_concrete_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("convert");
  TCase *t = tcase_create("convert");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_add_test(t, f16_edges);
  tcase_add_test(t, bf16_and_f32);
  tcase_add_test(t, containment);
  tcase_add_test(t, agrees_with_the_ieee_model);
  tcase_add_test(t, concrete_domain);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
