/* check_float.c — the exact IEEE model of IEEE mode's replay (semantics/float.h): known
 * roundings (1 + 2^-24 in f32, f16 overflow at 65520, bf16 ties to even, subnormals),
 * signed zero, NaN, maximum/minimum, the text of values, and agreement with the host's
 * float arithmetic: f32 directly, f16 and bf16 as "compute in float, then round" — exact
 * for + − × ÷ because 24 >= 2p + 2 for p = 11 and p = 8 (Figueroa, "When is double
 * rounding innocuous?", SIGNUM 1995). This file is compiled with -ffp-contract=off
 * (tests/CMakeLists.txt), and the host comparison needs FLT_EVAL_METHOD == 0 (no excess
 * precision); it is skipped, loudly, elsewhere. */
#include <check.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantics/float.h"

#define F32 AX_SORT_F32
#define F16 AX_SORT_F16
#define BF16 AX_SORT_BF16

static uint32_t dec(int f, const char *s) { return ax_float_from_decimal((AxSort)f, s); }

START_TEST(test_round_f32) {
  /* 1 + 2^-24 is half an ulp above 1: a tie, to the even neighbour 1 */
  ck_assert_uint_eq(dec(F32, "1.000000059604644775390625"), 0x3f800000u);
  uint32_t one = 0x3f800000u, half_ulp = 0x33800000u;   /* 2^-24 */
  ck_assert_uint_eq(ax_float_add(F32, one, half_ulp), 0x3f800000u);
  /* 1 + 2^-23 is exact; 1 + 3 * 2^-24 is a tie between 1 + 2^-23 (odd) and 1 + 2^-22 */
  ck_assert_uint_eq(dec(F32, "1.00000011920928955078125"), 0x3f800001u);
  ck_assert_uint_eq(dec(F32, "1.000000178813934326171875"), 0x3f800002u);
  ck_assert_uint_eq(dec(F32, "0.1"), 0x3dcccccdu);
  ck_assert_uint_eq(dec(F32, "-2"), 0xc0000000u);
  ck_assert_uint_eq(dec(F32, "3.4028235e38"), 0x7f7fffffu);
  ck_assert_uint_eq(dec(F32, "3.5e38"), 0x7f800000u);   /* overflow: inf */
  ck_assert_uint_eq(dec(F32, "1e-46"), 0x00000000u);    /* below half the least subnormal */
  ck_assert_uint_eq(dec(F32, "1.5e-45"), 0x00000001u);
}
END_TEST

START_TEST(test_round_f16) {
  ck_assert_uint_eq(dec(F16, "65504"), 0x7bffu);       /* the largest finite */
  ck_assert_uint_eq(dec(F16, "65519"), 0x7bffu);
  ck_assert_uint_eq(dec(F16, "65520"), 0x7c00u);       /* the tie rounds to 2^16: inf */
  ck_assert_uint_eq(ax_float_add(F16, 0x7bffu, dec(F16, "16")), 0x7c00u);
  ck_assert_uint_eq(ax_float_add(F16, 0x7bffu, dec(F16, "15")), 0x7bffu);
  ck_assert_uint_eq(ax_float_mul(F16, 0xfbffu, dec(F16, "2")), 0xfc00u);   /* -inf */
  /* subnormals: the least is 2^-24; 2^-25 is a tie to 0 (even), 3 * 2^-26 rounds up */
  ck_assert_uint_eq(dec(F16, "0.000000059604644775390625"), 0x0001u);
  ck_assert_uint_eq(dec(F16, "0.0000000298023223876953125"), 0x0000u);
  ck_assert_uint_eq(dec(F16, "0.00000004470348358154296875"), 0x0001u);
  ck_assert_uint_eq(dec(F16, "-0.0000000298023223876953125"), 0x8000u);   /* -0 */
  ck_assert_uint_eq(dec(F16, "1"), 0x3c00u);
}
END_TEST

START_TEST(test_round_bf16) {
  ck_assert_uint_eq(dec(BF16, "1"), 0x3f80u);
  ck_assert_uint_eq(dec(BF16, "1.00390625"), 0x3f80u);   /* 1 + 2^-8: tie to even (1) */
  ck_assert_uint_eq(dec(BF16, "1.01171875"), 0x3f82u);   /* 1 + 3 * 2^-8: tie to even */
  ck_assert_uint_eq(dec(BF16, "1.0078125"), 0x3f81u);    /* 1 + 2^-7: exact */
  ck_assert_uint_eq(ax_float_add(BF16, 0x3f80u, 0x3b80u), 0x3f80u);   /* 1 + 2^-8 */
  ck_assert_uint_eq(dec(BF16, "256"), 0x4380u);
  ck_assert_uint_eq(ax_float_add(BF16, dec(BF16, "256"), 0x3f80u), 0x4380u);   /* 257: tie */
  ck_assert_uint_eq(ax_float_add(BF16, dec(BF16, "258"), 0x3f80u), 0x4382u);   /* 259 -> 260 */
}
END_TEST

START_TEST(test_signed_zero) {
  uint32_t pz = 0, nz = 0x80000000u;
  ck_assert_uint_eq(ax_float_add(F32, nz, pz), pz);   /* x + 0 is not x for x = -0 */
  ck_assert(!ax_float_same(F32, ax_float_add(F32, nz, pz), nz));
  ck_assert_uint_eq(ax_float_add(F32, nz, nz), nz);
  ck_assert_uint_eq(ax_float_sub(F32, pz, pz), pz);
  ck_assert_uint_eq(ax_float_sub(F32, nz, pz), nz);
  ck_assert_uint_eq(ax_float_add(F32, 0x3f800000u, 0xbf800000u), pz);   /* 1 + -1 = +0 */
  ck_assert_uint_eq(ax_float_mul(F32, nz, 0x3f800000u), nz);
  ck_assert_uint_eq(ax_float_mul(F32, pz, 0xbf800000u), nz);
  ck_assert_uint_eq(ax_float_div(F32, 0x3f800000u, nz), 0xff800000u);   /* 1 / -0 = -inf */
  ck_assert_int_eq(ax_float_cmp(F32, nz, pz), 0);                       /* -0 == +0 */
  ck_assert_uint_eq(ax_float_max(F32, nz, pz), pz);
  ck_assert_uint_eq(ax_float_max(F32, pz, nz), pz);
  ck_assert_uint_eq(ax_float_min(F32, pz, nz), nz);
  ck_assert_uint_eq(ax_float_neg(F16, 0), 0x8000u);
  ck_assert_uint_eq(ax_float_abs(F16, 0x8000u), 0);
}
END_TEST

START_TEST(test_nan_inf) {
  uint32_t nan = ax_float_nan(F32), inf = 0x7f800000u, ninf = 0xff800000u;
  ck_assert_int_eq(ax_float_cmp(F32, nan, nan), 2);   /* NaN != NaN */
  ck_assert(ax_float_same(F32, nan, 0x7fc00001u));    /* ... but both NaN is the same */
  ck_assert(ax_float_is_nan(F32, ax_float_add(F32, inf, ninf)));
  ck_assert(ax_float_is_nan(F32, ax_float_mul(F32, inf, 0)));
  ck_assert(ax_float_is_nan(F32, ax_float_div(F32, 0, 0x80000000u)));
  ck_assert(ax_float_is_nan(F32, ax_float_div(F32, inf, ninf)));
  ck_assert(ax_float_is_nan(F32, ax_float_max(F32, nan, 0x3f800000u)));   /* XLA: propagates */
  ck_assert(ax_float_is_nan(F32, ax_float_min(F32, 0x3f800000u, nan)));
  ck_assert_uint_eq(ax_float_add(F32, inf, 0x3f800000u), inf);
  ck_assert_uint_eq(ax_float_div(F32, 0x3f800000u, inf), 0);
  ck_assert_uint_eq(ax_float_nan(F16), 0x7e00u);
  ck_assert_uint_eq(ax_float_nan(BF16), 0x7fc0u);
}
END_TEST

START_TEST(test_text) {
  char *t = ax_float_text(F32, 0x3f800001u);
  ck_assert_str_eq(t, "0x3f800001 (1.00000011920928955078125)");
  free(t);
  t = ax_float_text(F16, 0x8000u);
  ck_assert_str_eq(t, "0x8000 (-0)");
  free(t);
  t = ax_float_text(F16, 0x7bffu);
  ck_assert_str_eq(t, "0x7bff (65504)");
  free(t);
  t = ax_float_text(BF16, 0xff80u);
  ck_assert_str_eq(t, "0xff80 (-inf)");
  free(t);
  t = ax_float_text(F32, ax_float_nan(F32));
  ck_assert_str_eq(t, "0x7fc00000 (NaN)");
  free(t);
  t = ax_float_text(F32, 1);
  ck_assert_str_eq(t, "0x00000001 (≈ 1.40129846e-45)");
  free(t);
  t = ax_float_decimal(F16, 0xb800u);
  ck_assert_str_eq(t, "-0.5");
  free(t);
}
END_TEST

/* --- Agreement with the host's float --------------------------------------------------- */

static uint32_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 32);
}

/* an interesting bit pattern of width w: random, or near a special value */
static uint32_t pick(uint64_t *s, int f) {
  uint32_t r = lcg(s), w = (uint32_t)ax_float_width((AxSort)f);
  uint32_t mask = w == 32 ? 0xffffffffu : (1u << w) - 1;
  switch (r % 8) {
  case 0: return lcg(s) & 0x3ffu;                                        /* subnormal / zero */
  case 1: return (ax_float_inf((AxSort)f, false) - 1 - (lcg(s) & 7)) | (r & 1u << (w - 1));   /* near max */
  case 2: return (lcg(s) % 2 ? ax_float_inf((AxSort)f, r & 2) : ax_float_nan((AxSort)f));
  case 3: return (dec(f, "1") + (lcg(s) & 15)) | (r & 1u << (w - 1));  /* near 1 */
  default: return lcg(s) & mask;
  }
}

static float as_float(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}

static uint32_t bits_of(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* a value of format f widened to float (exact), and a float rounded to f */
static float widen(int f, uint32_t b) { return as_float(f == F32 ? b : f == BF16 ? b << 16 : 0); }

static uint32_t narrow(int f, float x) {
  uint32_t b = bits_of(x);
  if (f == F32) return b;
  if (x != x) return ax_float_nan((AxSort)f);
  if (x == 1.0f / 0.0f || x == -1.0f / 0.0f) return ax_float_inf((AxSort)f, x < 0);
  mpq_t q;
  mpq_init(q);
  ax_float_value(AX_SORT_F32, b, q);
  uint32_t r = ax_float_round((AxSort)f, q, (b >> 31) != 0);
  mpq_clear(q);
  return r;
}

static float f16_to_float(uint32_t b) {   /* exact, through the rationals */
  if (ax_float_is_nan(AX_SORT_F16, b)) return 0.0f / 0.0f;
  if (ax_float_is_inf(AX_SORT_F16, b)) return (b & 0x8000u) ? -1.0f / 0.0f : 1.0f / 0.0f;
  mpq_t q;
  mpq_init(q);
  ax_float_value(AX_SORT_F16, b, q);
  float x = (float)mpq_get_d(q);   /* exact: every f16 is a float */
  mpq_clear(q);
  return (b & 0x8000u) && x == 0 ? -0.0f : x;
}

START_TEST(test_host_agrees) {
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
  fprintf(stderr, "SKIP: FLT_EVAL_METHOD != 0, no host comparison\n");
  return;
#else
  static const int fmts[] = {F32, F16, BF16};
  for (int fi = 0; fi < 3; fi++) {
    int f = fmts[fi];
    uint64_t seed = 12345 + (uint64_t)fi;
    for (int i = 0; i < 20000; i++) {
      uint32_t a = pick(&seed, f), b = pick(&seed, f);
      if (f != F32) {
        a &= 0xffffu;
        b &= 0xffffu;
      }
      volatile float x = f == F16 ? f16_to_float(a) : widen(f, a);
      volatile float y = f == F16 ? f16_to_float(b) : widen(f, b);
      uint32_t want[4] = {narrow(f, x + y), narrow(f, x - y), narrow(f, x * y), narrow(f, x / y)};
      uint32_t got[4] = {ax_float_add((AxSort)f, a, b), ax_float_sub((AxSort)f, a, b),
                         ax_float_mul((AxSort)f, a, b), ax_float_div((AxSort)f, a, b)};
      for (int k = 0; k < 4; k++)
        ck_assert_msg(ax_float_same((AxSort)f, got[k], want[k]),
                      "%s op %d on 0x%x, 0x%x: model 0x%x, host 0x%x", ax_float_name((AxSort)f), k,
                      a, b, got[k], want[k]);
    }
  }
#endif
}
END_TEST

static Suite *float_suite(void) {
  Suite *s = suite_create("float");
  TCase *tc = tcase_create("float");
  tcase_add_test(tc, test_round_f32);
  tcase_add_test(tc, test_round_f16);
  tcase_add_test(tc, test_round_bf16);
  tcase_add_test(tc, test_signed_zero);
  tcase_add_test(tc, test_nan_inf);
  tcase_add_test(tc, test_text);
  tcase_add_test(tc, test_host_agrees);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(float_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
