/* check_tensor.c — the concrete tensors of programs and μGraphs (superopt/ir/tensor.h): shapes
 * (element counts, printing, numpy broadcasting), shape inference with its refusals (axis
 * out of range, shapes that do not broadcast or fit, element counts past 2^32), evaluation
 * in the float domain against values written out here (row-major indexing, broadcasting,
 * sums to a size, repeat, concat, boxes) and exact decimal literals. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/equiv/values.h"
#include "superopt/ir/tensor.h"
#include "superopt/ir/tensorop.h"

static AxArena *A;
static AxTDomain F;

static void setup(void) {
  A = ax_arena_new();
  F = ax_values_float(false);
}

static void teardown(void) { ax_arena_free(A); }

static AxTShape S(int rank, int64_t d0, int64_t d1, int64_t d2) {
  AxTShape s = {rank, {d0, d1, d2}};
  return s;
}

/* A tensor of shape s with element k = base + k. */
static AxTensor iota(AxTShape s, double base) {
  int64_t n = ax_shape_numel(&s);
  double *x = ax_arena_alloc(A, (size_t)(n ? n : 1) * sizeof *x);
  for (int64_t k = 0; k < n; k++) x[k] = base + (double)k;
  return (AxTensor){s, x};
}

/* Infers op's shape, checks it, evaluates it; the result's data. */
static const double *apply(AxOp op, AxTAttrs at, const AxTensor *a, const AxTensor *b,
                           AxTShape expect) {
  const AxTShape *sh[2] = {&a->shape, b ? &b->shape : NULL};
  const AxTensor *in[2] = {a, b};
  AxTShape out;
  char err[200] = "";
  ck_assert_msg(ax_tensorop_infer(op, &at, sh, b ? 2 : 1, &out, err, sizeof err), "%s", err);
  char b1[64], b2[64];
  ck_assert_msg(ax_shape_equal(&out, &expect), "%s vs %s", ax_shape_str(&out, b1, sizeof b1),
                ax_shape_str(&expect, b2, sizeof b2));
  AxTensor o = {out, ax_arena_alloc(A, (size_t)ax_shape_numel(&out) * sizeof(double))};
  ax_tensorop_apply(&F, A, op, &at, in, b ? 2 : 1, &o);
  return o.data;
}

/* Inference must fail with a message containing want. */
static void refused(AxOp op, AxTAttrs at, const AxTShape *a, const AxTShape *b, const char *want) {
  const AxTShape *sh[2] = {a, b};
  AxTShape out;
  char err[200] = "";
  ck_assert(!ax_tensorop_infer(op, &at, sh, b ? 2 : 1, &out, err, sizeof err));
  ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

START_TEST(shapes) {
  char buf[64];
  AxTShape s = S(2, 16, 4096, 0), e = S(0, 0, 0, 0);
  ck_assert_int_eq(ax_shape_numel(&s), 65536);
  ck_assert_int_eq(ax_shape_numel(&e), 1);   /* a scalar has one element */
  ck_assert_str_eq(ax_shape_str(&s, buf, sizeof buf), "[16, 4096]");
  ck_assert_str_eq(ax_shape_str(&e, buf, sizeof buf), "[]");
  /* truncated, still terminated */
  ck_assert_str_eq(ax_shape_str(&s, buf, 6), "[16, ");
  ck_assert(ax_shape_equal(&s, &s));
  AxTShape t = S(2, 16, 4095, 0), u = S(3, 16, 4096, 1);
  ck_assert(!ax_shape_equal(&s, &t));
  ck_assert(!ax_shape_equal(&s, &u));   /* same leading dims, another rank */
  AxDtype d;
  ck_assert(ax_dtype_lookup("bf16", &d));
  ck_assert_int_eq(d, AX_DT_BF16);
  ck_assert_str_eq(ax_dtype_name(d), "bf16");
  ck_assert_uint_eq(ax_dtype_bytes(AX_DT_F16), 2);
  ck_assert_uint_eq(ax_dtype_bytes(AX_DT_F32), 4);
  ck_assert(!ax_dtype_lookup("f64", &d));
}
END_TEST

/* numpy rules: aligned on the right, a missing dim counts as 1, a 1 stretches. */
START_TEST(broadcasting) {
  AxTShape o;
  AxTShape a = S(2, 4, 1, 0), b = S(1, 3, 0, 0);
  ck_assert(ax_shape_broadcast(&a, &b, &o));
  ck_assert(ax_shape_equal(&o, &(AxTShape){2, {4, 3}}));
  ck_assert(ax_shape_broadcast(&b, &a, &o));   /* symmetric */
  ck_assert(ax_shape_equal(&o, &(AxTShape){2, {4, 3}}));
  AxTShape c = S(3, 2, 1, 5), d = S(2, 7, 5, 0);
  ck_assert(ax_shape_broadcast(&c, &d, &o));
  ck_assert(ax_shape_equal(&o, &(AxTShape){3, {2, 7, 5}}));
  AxTShape sc = S(0, 0, 0, 0);
  ck_assert(ax_shape_broadcast(&sc, &d, &o));
  ck_assert(ax_shape_equal(&o, &d));
  AxTShape x = S(2, 4, 3, 0), y = S(1, 4, 0, 0);
  ck_assert(!ax_shape_broadcast(&x, &y, &o));   /* 3 against 4 on the right */
  ck_assert(!ax_shape_broadcast(&y, &x, &o));

  /* evaluation: out[i][j] = a[i][0] + b[j] */
  AxTensor ta = iota(a, 0), tb = iota(b, 10);
  const double *r = apply(AX_OP_ADD, (AxTAttrs){0}, &ta, &tb, S(2, 4, 3, 0));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) ck_assert_double_eq(r[i * 3 + j], i + (10 + j));
  /* a scalar against a matrix */
  AxTensor s1 = iota(sc, 2), m = iota(S(2, 2, 3, 0), 0);
  r = apply(AX_OP_MUL, (AxTAttrs){0}, &m, &s1, S(2, 2, 3, 0));
  for (int k = 0; k < 6; k++) ck_assert_double_eq(r[k], 2.0 * k);
  /* [2, 1, 3] against [4, 1]: out[i][j][k] = a[i][0][k] - b[j][0] */
  AxTensor p = iota(S(3, 2, 1, 3), 0), q = iota(S(2, 4, 1, 0), 100);
  r = apply(AX_OP_SUB, (AxTAttrs){0}, &p, &q, S(3, 2, 4, 3));
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++) ck_assert_double_eq(r[(i * 4 + j) * 3 + k], (i * 3 + k) - (100 + j));
  AxTShape xs = x, ys = y;
  refused(AX_OP_ADD, (AxTAttrs){0}, &xs, &ys, "operand shapes [4, 3] and [4] do not broadcast");
}
END_TEST

/* matmul indexes row-major with broadcast batch dims. */
START_TEST(matmul) {
  AxTensor a = iota(S(3, 2, 2, 3), 0), b = iota(S(2, 3, 2, 0), 1);
  const double *r = apply(AX_OP_DOT, (AxTAttrs){0}, &a, &b, S(3, 2, 2, 2));
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += (t * 6 + i * 3 + k) * (1 + k * 2 + j);
        ck_assert_double_eq(r[(t * 2 + i) * 2 + j], s);
      }
  AxTShape x = S(2, 4, 8, 0), v = S(1, 8, 0, 0), y = S(3, 2, 8, 5), z = S(3, 3, 8, 5);
  refused(AX_OP_DOT, (AxTAttrs){0}, &x, &x, "inner dimensions differ: [4, 8] x [4, 8] (8 vs 4)");
  refused(AX_OP_DOT, (AxTAttrs){0}, &x, &v, "needs operands of rank 2 or more");
  AxTShape w = S(3, 2, 4, 8);
  refused(AX_OP_DOT, (AxTAttrs){0}, &w, &z, "batch dimensions of [2, 4, 8] and [3, 8, 5] do not broadcast");
  AxTShape o;
  const AxTShape *sh[2] = {&w, &y};
  char err[128];
  AxTAttrs at = {0};
  ck_assert(ax_tensorop_infer(AX_OP_DOT, &at, sh, 2, &o, err, sizeof err));
  ck_assert(ax_shape_equal(&o, &(AxTShape){3, {2, 4, 5}}));
}
END_TEST

/* sum to a size cuts the axis into chunks that are added; mean divides by the length;
 * the axis may count from the end and defaults to the last. */
START_TEST(reductions) {
  AxTensor x = iota(S(2, 2, 6, 0), 0);
  AxTAttrs at = {.axis = 1, .axis_set = true, .to = 2};
  const double *r = apply(AX_OP_REDUCE, at, &x, NULL, S(2, 2, 2, 0));
  /* row 0: 0..5 → out[i] = Σ_j x[2j + i] = {0+2+4, 1+3+5} */
  ck_assert_double_eq(r[0], 6);
  ck_assert_double_eq(r[1], 9);
  ck_assert_double_eq(r[2], 6 + 18);
  ck_assert_double_eq(r[3], 9 + 18);
  at = (AxTAttrs){.axis = -2, .axis_set = true};
  r = apply(AX_OP_REDUCE, at, &x, NULL, S(2, 1, 6, 0));
  for (int j = 0; j < 6; j++) ck_assert_double_eq(r[j], j + (6 + j));
  at = (AxTAttrs){0};   /* unset: the last axis */
  r = apply(AX_OP_MEAN, at, &x, NULL, S(2, 2, 1, 0));
  ck_assert_double_eq(r[0], 2.5);
  ck_assert_double_eq(r[1], 8.5);
  at = (AxTAttrs){.axis = 1, .axis_set = true};
  r = apply(AX_OP_RMS_NORM, at, &x, NULL, S(2, 2, 6, 0));
  double ss = 0;
  for (int k = 6; k < 12; k++) ss += (double)k * k;
  ck_assert_double_eq_tol(r[6 + 3], 9 / sqrt(ss / 6), 1e-12);

  AxTShape s = x.shape, sc = S(0, 0, 0, 0);
  refused(AX_OP_REDUCE, (AxTAttrs){.axis = 2, .axis_set = true}, &s, NULL,
          "axis 2 is out of range for rank 2");
  refused(AX_OP_REDUCE, (AxTAttrs){.axis = -3, .axis_set = true}, &s, NULL,
          "axis -3 is out of range for rank 2");
  refused(AX_OP_REDUCE, (AxTAttrs){.axis = 1, .axis_set = true, .to = 4}, &s, NULL,
          "cannot sum axis 1 of size 6 to size 4 (the size must divide it)");
  refused(AX_OP_MEAN, (AxTAttrs){.axis = 1, .axis_set = true, .to = 3}, &s, NULL, "takes no 'to'");
  refused(AX_OP_REDUCE, (AxTAttrs){0}, &sc, NULL, "needs an operand with at least one dimension");
  refused(AX_OP_REDUCE, (AxTAttrs){0}, &s, &s, "takes 1 operand, got 2");
}
END_TEST

START_TEST(layout) {
  AxTensor x = iota(S(2, 2, 3, 0), 0);
  /* reshape keeps row-major order */
  AxTAttrs at = {.shape = S(3, 3, 1, 2)};
  const double *r = apply(AX_OP_RESHAPE, at, &x, NULL, S(3, 3, 1, 2));
  for (int k = 0; k < 6; k++) ck_assert_double_eq(r[k], k);
  /* broadcast [2, 3] to [2, 2, 3]: the matrix twice */
  at = (AxTAttrs){.shape = S(3, 2, 2, 3)};
  r = apply(AX_OP_BROADCAST, at, &x, NULL, S(3, 2, 2, 3));
  for (int k = 0; k < 12; k++) ck_assert_double_eq(r[k], k % 6);
  /* broadcast a column [2, 1] to [2, 4] */
  AxTensor c = iota(S(2, 2, 1, 0), 5);
  at = (AxTAttrs){.shape = S(2, 2, 4, 0)};
  r = apply(AX_OP_BROADCAST, at, &c, NULL, S(2, 2, 4, 0));
  for (int k = 0; k < 8; k++) ck_assert_double_eq(r[k], 5 + k / 4);
  /* repeat_interleave along axis 1 */
  at = (AxTAttrs){.axis = 1, .axis_set = true, .times = 2};
  r = apply(AX_OP_REPEAT, at, &x, NULL, S(2, 2, 6, 0));
  const double rep[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  for (int k = 0; k < 12; k++) ck_assert_double_eq(r[k], rep[k]);
  /* concat along axis 1: rows joined */
  AxTensor y = iota(S(2, 2, 1, 0), 100);
  at = (AxTAttrs){.axis = 1, .axis_set = true};
  r = apply(AX_OP_CONCAT, at, &x, &y, S(2, 2, 4, 0));
  const double cat[] = {0, 1, 2, 100, 3, 4, 5, 101};
  for (int k = 0; k < 8; k++) ck_assert_double_eq(r[k], cat[k]);

  AxTShape s = x.shape, ys = S(2, 3, 1, 0);
  refused(AX_OP_RESHAPE, (AxTAttrs){.shape = S(2, 4, 2, 0)}, &s, NULL,
          "cannot reshape [2, 3] (6 elements) to [4, 2] (8)");
  refused(AX_OP_BROADCAST, (AxTAttrs){.shape = S(2, 2, 4, 0)}, &s, NULL,
          "cannot broadcast [2, 3] to [2, 4]");
  refused(AX_OP_BROADCAST, (AxTAttrs){.shape = S(1, 3, 0, 0)}, &s, NULL,
          "cannot broadcast [2, 3] to [3]");   /* a smaller rank */
  refused(AX_OP_CONCAT, (AxTAttrs){.axis = 1, .axis_set = true}, &s, &ys,
          "operand 2 has shape [3, 1], which does not fit [2, 3] along axis 1");
  refused(AX_OP_REPEAT, (AxTAttrs){.axis = 0, .axis_set = true, .times = 0}, &s, NULL,
          "needs 1 <= times <= 2^32");
  refused(AX_OP_REPEAT, (AxTAttrs){.axis = 5, .axis_set = true, .times = 2}, &s, NULL,
          "axis 5 is out of range for rank 2");
}
END_TEST

/* Shapes past 2^32 elements are refused before anything is allocated. */
START_TEST(too_large) {
  AxTShape big = S(2, 1 << 16, 1 << 16, 0), col = S(2, 1 << 16, 1, 0);
  refused(AX_OP_REPEAT, (AxTAttrs){.axis = 1, .axis_set = true, .times = (int64_t)1 << 17}, &col, NULL,
          "the result would have more than 2^32 elements");
  refused(AX_OP_REPEAT, (AxTAttrs){.axis = 1, .axis_set = true, .times = ((int64_t)1 << 32) + 1},
          &col, NULL, "needs 1 <= times <= 2^32");
  refused(AX_OP_RESHAPE, (AxTAttrs){.shape = S(3, 1 << 16, 1 << 16, 2)}, &big, NULL,
          "the shape must have dims of at least 1 and at most 2^32 elements");
  refused(AX_OP_RESHAPE, (AxTAttrs){.shape = S(2, 0, 4, 0)}, &big, NULL,
          "the shape must have dims of at least 1");
  AxTShape a = S(2, 1 << 17, 1, 0), b = S(2, 1, 1 << 16, 0);
  refused(AX_OP_ADD, (AxTAttrs){0}, &a, &b, "the result would have more than 2^32 elements");
  AxTShape o;
  const AxTShape *sh[2] = {&big, &big};
  char err[128];
  AxTAttrs at = {0};
  ck_assert(ax_tensorop_infer(AX_OP_ADD, &at, sh, 2, &o, err, sizeof err));   /* exactly 2^32 */
}
END_TEST

/* Boxes: a tile copied out of and back into a larger tensor, at an offset. */
START_TEST(boxes) {
  AxTensor big = iota(S(2, 4, 5, 0), 0);
  AxTensor tile = iota(S(2, 2, 3, 0), 0);
  int64_t off[2] = {1, 2};
  ax_tensor_copy_box(sizeof(double), &big, off, &tile);
  const double *t = tile.data;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) ck_assert_double_eq(t[i * 3 + j], (1 + i) * 5 + (2 + j));
  AxTensor dst = iota(S(2, 4, 5, 0), 1000), src = iota(S(2, 2, 3, 0), -1);
  ax_tensor_store_box(sizeof(double), &src, &dst, off);
  const double *d = dst.data;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      bool in = i >= 1 && i < 3 && j >= 2 && j < 5;
      double want = in ? -1 + (i - 1) * 3 + (j - 2) : 1000 + i * 5 + j;
      ck_assert_double_eq(d[i * 5 + j], want);
    }
}
END_TEST

START_TEST(rationals) {
  AxRat r;
  ck_assert(ax_rat_parse("4096", &r));
  ck_assert_int_eq(r.num, 4096);
  ck_assert_int_eq(r.den, 1);
  ck_assert(ax_rat_parse("0.5", &r));
  ck_assert_int_eq(r.num, 1);
  ck_assert_int_eq(r.den, 2);
  ck_assert(ax_rat_parse("1e-3", &r));
  ck_assert_int_eq(r.num, 1);
  ck_assert_int_eq(r.den, 1000);
  ck_assert(ax_rat_parse("2.5E+2", &r));
  ck_assert_int_eq(r.num, 250);
  ck_assert_int_eq(r.den, 1);
  ck_assert(ax_rat_parse("0.125", &r));
  ck_assert_int_eq(r.num, 1);
  ck_assert_int_eq(r.den, 8);
  const char *bad[] = {"", ".", "1e", "1e+", "0x10", "1.5.2", "-1", "1e19", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    ck_assert_msg(!ax_rat_parse(bad[i], &r), "'%s' accepted", bad[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tensor");
  TCase *t = tcase_create("tensor");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, shapes);
  tcase_add_test(t, broadcasting);
  tcase_add_test(t, matmul);
  tcase_add_test(t, reductions);
  tcase_add_test(t, layout);
  tcase_add_test(t, too_large);
  tcase_add_test(t, boxes);
  tcase_add_test(t, rationals);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
