/* check_limit.c — the physical limit of small programs (superopt/cost/limit.h): the bytes
 * and FLOP counted exactly by the rules stated there, the times and the bound they give,
 * the L2 note, and a graph refused. */
#include "superopt/cost/limit.h"
#include "superopt/ir/load.h"
#include "unit.h"

static AxLimit limit_of(const char *text, const char *target) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  const AxTarget *t = ax_cost_target(target);
  ck_assert_ptr_nonnull(t);
  AxLimit l;
  ck_assert(ax_limit_compute(g, t, &l));
  ck_assert_ptr_eq(l.target, t);
  return l;
}

/* 2·m·n·k, every input read once and the output written once, in f16 */
START_TEST(matmul) {
  AxLimit l = limit_of("program p {\n  input X : f16[4, 8]\n  input W : f16[8, 16]\n"
                       "  output O = matmul(X, W)\n}\n", "h200");
  ck_assert_double_eq(l.bytes_in, 4 * 8 * 2 + 8 * 16 * 2);
  ck_assert_double_eq(l.bytes_out, 4 * 16 * 2);
  ck_assert_double_eq(l.tensor_flops, 2.0 * 4 * 16 * 8);
  ck_assert_double_eq(l.other_flops, 0);
  /* a batched matmul: the batch multiplies m·n */
  l = limit_of("program q {\n  input Q : f16[2, 3, 4]\n  input K : f16[2, 4, 5]\n"
               "  output S = matmul(Q, K)\n}\n", "h200");
  ck_assert_double_eq(l.tensor_flops, 2.0 * 2 * 3 * 5 * 4);
  ck_assert_double_eq(l.bytes_in, (24 + 40) * 2);
  ck_assert_double_eq(l.bytes_out, 30 * 2);
}
END_TEST

/* one per result element of an element-wise operator, one per operand element of a sum;
 * f32 is four bytes an element */
START_TEST(elementwise_and_reduction) {
  AxLimit l = limit_of("program p {\n  input X : f32[4, 8]\n"
                       "  output S = sum(exp(X) + 1, axis = 1)\n}\n", "h200");
  ck_assert_double_eq(l.other_flops, 32 + 32 + 32);
  ck_assert_double_eq(l.tensor_flops, 0);
  ck_assert_double_eq(l.bytes_in, 32 * 4);
  ck_assert_double_eq(l.bytes_out, 4 * 4);
  /* reduce_max as a sum; select and a comparison one per element */
  l = limit_of("program m {\n  input X, Y : f16[4, 8]\n"
               "  output O = select(gt(X, Y), X, Y)\n  output R = reduce_max(X, axis = 0)\n}\n", "h200");
  ck_assert_double_eq(l.other_flops, 32 + 32 + 32);
  ck_assert_double_eq(l.bytes_out, 32 * 2 + 8 * 2);
}
END_TEST

/* mean and rms_norm: their rows' counts per operand element (one; four: square, add, root,
 * division), whatever the axis */
START_TEST(norms) {
  AxLimit l = limit_of("program p {\n  input X : f16[4, 8]\n  output M = mean(X, axis = 1)\n}\n", "h200");
  ck_assert_double_eq(l.other_flops, 32);
  l = limit_of("program r {\n  input X : f16[4, 8]\n  output O = rms_norm(X)\n}\n", "h200");
  ck_assert_double_eq(l.other_flops, 4 * 32);
  l = limit_of("program c {\n  input X : f16[4, 8]\n  output O = rms_norm(X, axis = 0)\n}\n", "h200");
  ck_assert_double_eq(l.other_flops, 4 * 32);
  /* a matmul's k is its contracted dim: 2 × (4 × 8) × 16 */
  l = limit_of("program k {\n  input X : f16[4, 16]\n  input W : f16[16, 8]\n"
               "  output O = matmul(rms_norm(X), W)\n}\n", "h200");
  ck_assert_double_eq(l.tensor_flops, 2.0 * 4 * 8 * 16);
  ck_assert_double_eq(l.other_flops, 4 * 64);
}
END_TEST

/* data movement computes nothing; an input nothing reads moves nothing */
START_TEST(movement_and_unread) {
  AxLimit l = limit_of("program p {\n  input X : f16[4, 8]\n"
                       "  output T = transpose(X, [1, 0])\n}\n", "h200");
  ck_assert_double_eq(l.other_flops + l.tensor_flops, 0);
  ck_assert_double_eq(l.bytes_in + l.bytes_out, 2 * 64);
  l = limit_of("program u {\n  input X, Y : f16[2, 2]\n  output O = X * 2\n}\n", "h200");
  ck_assert_double_eq(l.bytes_in, 8);
  ck_assert_double_eq(l.other_flops, 4);
}
END_TEST

/* the limit is the largest of the four times, each the count over the target's rate */
START_TEST(times_and_bound) {
  const AxTarget *t = ax_cost_target("h200");
  ck_assert_double_eq(t->hbm_bps, 4.8e12);
  ck_assert_int_eq(t->sms, 132);
  ck_assert_int_eq(t->smem_per_block, 227 * 1024);
  /* tiny: the launch floor */
  AxLimit l = limit_of("program p {\n  input X : f16[4, 8]\n  output O = exp(X)\n}\n", "h200");
  ck_assert_str_eq(l.bound, "launch");
  ck_assert_double_eq(l.limit_s, t->floor_s);
  ck_assert_double_eq_tol(l.t_hbm, 128.0 / 4.8e12, 1e-24);
  ck_assert(l.fits_l2);
  /* RMSNorm + linear (kernel-facts' 7.05 µs): 33.8 MB once at 4.8 TB/s; it fits the L2 */
  l = limit_of("program r {\n  input X : f16[16, 4096]\n  input W : f16[4096, 4096]\n"
               "  output O = matmul(rms_norm(X), W)\n}\n", "h200");
  ck_assert_double_eq(l.bytes_in + l.bytes_out, 33816576);
  ck_assert_str_eq(l.bound, "memory");
  ck_assert_double_eq_tol(l.limit_s * 1e6, 7.045, 0.001);
  ck_assert_double_eq_tol(l.t_tensor * 1e6, 536870912 / 989.4e12 * 1e6, 1e-9);
  ck_assert(l.fits_l2);
  /* the same program on the H100: its slower memory, a larger limit */
  AxLimit h = limit_of("program r {\n  input X : f16[16, 4096]\n  input W : f16[4096, 4096]\n"
                       "  output O = matmul(rms_norm(X), W)\n}\n", "h100");
  ck_assert(h.limit_s > l.limit_s);
  ck_assert_double_eq(h.bytes_in, l.bytes_in);
  /* a matmul with a long k and little data: tensor-bound */
  l = limit_of("program k {\n  input X : f16[1024, 1024]\n  input W : f16[1024, 1024]\n"
               "  output O = matmul(X, W)\n}\n", "h200");
  ck_assert_str_eq(l.bound, "tensor");
  ck_assert_double_eq(l.limit_s, l.t_tensor);
  /* 2 × 4096² elements of f16 in and out: beyond the 50 MB L2 */
  l = limit_of("program g {\n  input X : f16[4096, 4096]\n  output O = X + X\n}\n", "h200");
  ck_assert(!l.fits_l2);
}
END_TEST

/* a graph with a graph-defined kernel is not a program: refused */
START_TEST(graph_refused) {
  const char *root = getenv("AXLE_SRC");
  ck_assert(root);
  char path[1024];
  snprintf(path, sizeof path, "%s/superopt/examples/lora.mug", root);
  AxMugraph *g = ax_load_from_file(A, &D, path, NULL);
  ck_assert(g);
  AxLimit l = {.limit_s = -1};
  ck_assert(!ax_limit_compute(g, ax_cost_target("h200"), &l));
  ck_assert_double_eq(l.limit_s, -1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("limit");
  TCase *t = tcase_create("limit");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, matmul);
  tcase_add_test(t, elementwise_and_reduction);
  tcase_add_test(t, norms);
  tcase_add_test(t, movement_and_unread);
  tcase_add_test(t, times_and_bound);
  tcase_add_test(t, graph_refused);
  suite_add_tcase(s, t);
  return unit_run(s);
}
