/* check_field.c — Zp x Zq arithmetic, roots of unity, ChaCha20 and float rounding. */
#include <check.h>
#include <gmp.h>
#include <math.h>
#include <stdlib.h>

#include "superopt/arith/field.h"
#include "superopt/equiv/values.h"

/* The field of the tests below: a pair drawn like a run's. */
static uint64_t FP, FQ;

static void draw(void) { ax_field_draw_primes(7, &FP, &FQ); }

/* Every drawn pair is prime with q | p - 1 (GMP's test agrees with ours), pairs differ
 * from seed to seed, and the legacy pair is still usable. */
START_TEST(primes) {
  mpz_t p, q, r;
  mpz_inits(p, q, r, NULL);
  uint64_t seen_p[64];
  for (uint64_t seed = 0; seed < 64; seed++) {
    uint64_t P, Q;
    ax_field_draw_primes(seed, &P, &Q);
    mpz_set_ui(p, P);
    mpz_set_ui(q, Q);
    ck_assert_int_gt(mpz_probab_prime_p(p, 40), 0);
    ck_assert_int_gt(mpz_probab_prime_p(q, 40), 0);
    ck_assert_uint_ge(Q, 1u << 29);
    ck_assert_uint_lt(Q, 1u << 30);
    ck_assert_uint_lt(P, (uint64_t)1 << 32);
    mpz_sub_ui(r, p, 1);
    ck_assert(mpz_divisible_p(r, q));
    ck_assert(ax_field_primes_ok(P, Q));
    seen_p[seed] = P;
    for (uint64_t j = 0; j < seed; j++) ck_assert_uint_ne(seen_p[j], P);
    uint64_t P2, Q2;
    ax_field_draw_primes(seed, &P2, &Q2);   /* deterministic in the seed */
    ck_assert_uint_eq(P, P2);
    ck_assert_uint_eq(Q, Q2);
  }
  ck_assert(ax_field_primes_ok(AX_FIELD_LEGACY_P, AX_FIELD_LEGACY_Q));
  ck_assert(!ax_field_primes_ok(AX_FIELD_LEGACY_P, AX_FIELD_LEGACY_Q - 2));
  /* our Miller-Rabin against GMP on a range of odd numbers */
  for (uint64_t n = 4294967087u - 20000; n < 4294967087u + 20000; n++) {
    mpz_set_ui(p, n);
    ck_assert_int_eq(ax_field_is_prime(n), mpz_probab_prime_p(p, 40) > 0);
  }
  mpz_clears(p, q, r, NULL);
}
END_TEST

START_TEST(inverses) {
  AxRng r;
  ax_rng_init(&r, 42, 0);
  for (int i = 0; i < 2000; i++) {
    uint64_t x = 1 + ax_rng_below(&r, FP - 1), y = 1 + ax_rng_below(&r, FQ - 1);
    ck_assert_uint_eq(x * ax_field_inv(x, FP) % FP, 1);
    ck_assert_uint_eq(y * ax_field_inv(y, FQ) % FQ, 1);
  }
  ck_assert_uint_eq(ax_field_inv(FP - 1, FP), FP - 1);
}
END_TEST

START_TEST(roots_of_unity) {
  for (uint64_t seed = 0; seed < 20; seed++) {
    AxRng r;
    ax_rng_init(&r, seed, 3);
    AxField f;
    ax_field_init(&f, FP, FQ, &r);
    ck_assert_uint_ne(f.omega, 1);
    ck_assert_uint_eq(ax_field_pow(f.omega, FQ, FP), 1);   /* order divides q ... */
    for (int i = 0; i < 200; i++) {                      /* ... and the tables agree with pow */
      uint64_t y = ax_rng_below(&r, FQ);
      ck_assert_uint_eq(ax_field_exp(&f, y), ax_field_pow(f.omega, y, FP));
    }
    ax_field_fini(&f);
  }
}
END_TEST

/* Table 3 through the domain: add, div, exp, silu, and the exp homomorphism. */
START_TEST(domain_ops) {
  AxRng r;
  ax_rng_init(&r, 9, 1);
  AxField f;
  ax_field_init(&f, FP, FQ, &r);
  AxTDomain d = ax_values_field(&f);
  for (int i = 0; i < 500; i++) {
    AxFF a = ax_field_random(&f, &r), b = ax_field_random(&f, &r), s, q, back, ea, eb, es, prod;
    if (b.p == 0 || b.q == 0) continue;
    d.binary(&d, AX_OP_ADD, 1, &s, &a, 1, &b, 1);
    ck_assert_uint_eq(s.p, ((uint64_t)a.p + b.p) % FP);
    ck_assert_uint_eq(s.q, ((uint64_t)a.q + b.q) % FQ);
    d.binary(&d, AX_OP_DIV, 1, &q, &a, 1, &b, 1);
    d.binary(&d, AX_OP_MUL, 1, &back, &q, 1, &b, 1);
    ck_assert_uint_eq(back.p, a.p);
    ck_assert_uint_eq(back.q, a.q);
    d.unary(&d, AX_OP_EXP, 1, &ea, &a);
    d.unary(&d, AX_OP_EXP, 1, &eb, &b);
    d.unary(&d, AX_OP_EXP, 1, &es, &s);
    ck_assert_uint_eq(ea.q, AX_FF_UNDEF);
    d.binary(&d, AX_OP_MUL, 1, &prod, &ea, 1, &eb, 1);
    ck_assert_uint_eq(prod.p, es.p);   /* e^a e^b = e^(a+b): the q side is the exponent */
    ck_assert_uint_eq(prod.q, AX_FF_UNDEF);
    AxFF si;
    d.unary(&d, AX_OP_SILU, 1, &si, &a);   /* silu(a) (1 + e^a) = a e^a */
    uint64_t lhs = (uint64_t)si.p * ((1 + (uint64_t)ea.p) % FP) % FP;
    ck_assert_uint_eq(lhs, (uint64_t)a.p * ea.p % FP);
  }
  AxFF z = {0, 0}, one = {1, 1}, bad;
  d.binary(&d, AX_OP_DIV, 1, &bad, &one, 1, &z, 1);
  ck_assert_uint_eq(f.divzero, 1);   /* a zero divisor makes the test inconclusive */
  ck_assert_uint_eq(bad.q, AX_FF_UNDEF);
  AxFF c;
  d.constant(&d, (AxRat){-1, 2}, &c);   /* -1/2 */
  ck_assert_uint_eq((uint64_t)c.p * 2 % FP, FP - 1);
  ax_field_fini(&f);
}
END_TEST

/* sqrt is a function: equal arguments agree, the q side is independent of the p side. */
START_TEST(sqrt_function) {
  AxRng r;
  ax_rng_init(&r, 5, 5);
  AxField f;
  ax_field_init(&f, FP, FQ, &r);
  AxTDomain d = ax_values_field(&f);
  AxFF a = {12345, 678}, b = a, sa, sb, c = {12346, 678}, sc;
  d.unary(&d, AX_OP_SQRT, 1, &sa, &a);
  d.unary(&d, AX_OP_SQRT, 1, &sb, &b);
  d.unary(&d, AX_OP_SQRT, 1, &sc, &c);
  ck_assert_uint_eq(sa.p, sb.p);
  ck_assert_uint_eq(sa.q, sb.q);
  ck_assert_uint_ne(sa.p, sc.p);
  ck_assert_uint_eq(sa.q, sc.q);
  ck_assert_uint_lt(sa.p, FP);
  ax_field_fini(&f);
}
END_TEST

/* A matmul in the field equals the naive sum, both through the cache-sized path and the
 * streaming path for large operands. */
START_TEST(matmul) {
  AxRng r;
  ax_rng_init(&r, 11, 2);
  AxField f;
  ax_field_init(&f, FP, FQ, &r);
  AxTDomain d = ax_values_field(&f);
  size_t shapes[2][3] = {{3, 5, 7}, {2, 700, 400}};
  for (int s = 0; s < 2; s++) {
    size_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
    AxFF *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b), *o = malloc(m * n * sizeof *o);
    for (size_t i = 0; i < m * k; i++) a[i] = ax_field_random(&f, &r);
    for (size_t i = 0; i < k * n; i++) b[i] = ax_field_random(&f, &r);
    d.matmul(&d, m, k, n, o, a, b);
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j += 13) {
        uint64_t sp = 0, sq = 0;
        for (size_t l = 0; l < k; l++) {
          sp = (sp + (uint64_t)a[i * k + l].p * b[l * n + j].p % FP) % FP;
          sq = (sq + (uint64_t)a[i * k + l].q * b[l * n + j].q % FQ) % FQ;
        }
        ck_assert_uint_eq(o[i * n + j].p, sp);
        ck_assert_uint_eq(o[i * n + j].q, sq);
      }
    free(a);
    free(b);
    free(o);
  }
  ax_field_fini(&f);
}
END_TEST

START_TEST(chacha) {
  ck_assert(ax_rng_selftest());
  AxRng a, b, c;
  ax_rng_init(&a, 1, 0);
  ax_rng_init(&b, 1, 0);
  ax_rng_init(&c, 1, 1);
  uint64_t x = ax_rng_u64(&a);
  ck_assert_uint_eq(x, ax_rng_u64(&b));   /* reproducible from the seed */
  ck_assert_uint_ne(x, ax_rng_u64(&c));   /* streams differ */
  int hist[10] = {0};
  for (int i = 0; i < 10000; i++) hist[ax_rng_below(&a, 10)]++;
  for (int i = 0; i < 10; i++) ck_assert(hist[i] > 850 && hist[i] < 1150);
}
END_TEST

START_TEST(rounding) {
  ck_assert(ax_values_round_to(AX_DT_F16, 65504.0) == 65504.0);
  ck_assert(ax_values_round_to(AX_DT_F16, 65519.0) == 65504.0);
  ck_assert(isinf(ax_values_round_to(AX_DT_F16, 65520.0)));
  ck_assert(ax_values_round_to(AX_DT_F16, 1.0 + 1.0 / 2048) == 1.0);   /* tie to even */
  ck_assert(ax_values_round_to(AX_DT_F16, 1.0 + 3.0 / 2048) == 1.0 + 2.0 / 1024);
  ck_assert(ax_values_round_to(AX_DT_F16, ldexp(1.0, -24)) == ldexp(1.0, -24));   /* subnormal */
  ck_assert(ax_values_round_to(AX_DT_BF16, 1.0 + 1.0 / 256) == 1.0);
  ck_assert(ax_values_round_to(AX_DT_F32, 0.1) == (double)0.1f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("field");
  TCase *t = tcase_create("field");
  tcase_add_unchecked_fixture(t, draw, NULL);
  tcase_add_test(t, primes);
  tcase_add_test(t, inverses);
  tcase_add_test(t, roots_of_unity);
  tcase_add_test(t, domain_ops);
  tcase_add_test(t, sqrt_function);
  tcase_add_test(t, matmul);
  tcase_add_test(t, chacha);
  tcase_add_test(t, rounding);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
