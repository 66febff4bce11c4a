/* check_stack.c — a stack of decoder layers (mpk/stack.h): the names each layer's copy gets,
 * its value (the interpreter on three stacked layers is the layer applied three times, each
 * time with that layer's own weight), and the refusals at the layer's output statement. */
#include <string.h>

#include "mpk/stack.h"
#include "mpk/taskgraph.h"
#include "superopt/equiv/interp.h"
#include "superopt/equiv/values.h"
#include "superopt/ir/load.h"
#include "unit.h"

static AxMugraph *parse(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "layer.mug", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

/* Y = X W + X in one graph-defined kernel of two blocks */
static const char *const LAYER =
    "mugraph layer {\n"
    "  input X : f32[4, 8]\n"
    "  input W : f32[8, 8]\n"
    "  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 1 {\n"
    "    x = input X imap {} fmap -\n"
    "    w = input W imap {x: 1} fmap -\n"
    "    r = input X imap {x: 1} fmap -\n"
    "    p = matmul(x, w)\n"
    "    y = add(p, r)\n"
    "    output Y = y omap {x: 1}\n"
    "  }\n"
    "  output Y\n"
    "}\n";

static void fill(double *v, int n, int seed) {
  for (int i = 0; i < n; i++) v[i] = ((i * 7 + seed * 13) % 11 - 5) / 8.0;
}

START_TEST(three_layers) {
  AxMugraph *g = parse(LAYER);
  AxMugraph *s = ax_stack_build(A, g, 3, &D);
  ck_assert_msg(s, "%s", unit_diagnostics());
  ck_assert_str_eq(s->name, "layer_x3");
  /* X once, then each layer's weight and output; the stack's output is the last layer's */
  ck_assert_int_ge(ax_mug_find(s, "X"), 0);
  ck_assert_int_lt(ax_mug_find(s, "L1__X"), 0);
  ck_assert_int_ge(ax_mug_find(s, "L3__W"), 0);
  ck_assert_int_eq(s->noutputs, 1);
  ck_assert_str_eq(s->tensors[s->outputs[0]].name, "L3__Y");
  AxTaskGraph tg;
  ck_assert(ax_taskgraph_build(A, s, &D, &tg));
  ck_assert_int_eq(tg.ntasks, 3 * 2);
  char msg[256];
  ck_assert_msg(ax_taskgraph_check(&tg, msg, sizeof msg), "%s", msg);

  double x[32], w[3][64];
  fill(x, 32, 0);
  for (int l = 0; l < 3; l++) fill(w[l], 64, l + 1);
  AxTDomain dom = ax_values_float(false);
  /* the stack */
  AxTensor *sv = ax_arena_alloc(A, sizeof(AxTensor) * (size_t)s->ntensors);
  for (int i = 0; i < s->ntensors; i++) sv[i].shape = s->tensors[i].shape;
  sv[ax_mug_find(s, "X")].data = x;
  const char *wn[3] = {"L1__W", "L2__W", "L3__W"};
  for (int l = 0; l < 3; l++) sv[ax_mug_find(s, wn[l])].data = w[l];
  ax_interp_run(s, &dom, A, sv);
  /* the layer three times */
  double cur[32];
  memcpy(cur, x, sizeof cur);
  for (int l = 0; l < 3; l++) {
    AxTensor *v = ax_arena_alloc(A, sizeof(AxTensor) * (size_t)g->ntensors);
    for (int i = 0; i < g->ntensors; i++) v[i].shape = g->tensors[i].shape;
    v[ax_mug_find(g, "X")].data = cur;
    v[ax_mug_find(g, "W")].data = w[l];
    ax_interp_run(g, &dom, A, v);
    memcpy(cur, v[ax_mug_find(g, "Y")].data, sizeof cur);
  }
  const double *y = sv[s->outputs[0]].data;
  for (int i = 0; i < 32; i++) ck_assert_double_eq(y[i], cur[i]);
}
END_TEST

START_TEST(refusals) {
  /* the output is narrower than the input: the next layer cannot read it */
  AxMugraph *g = parse("mugraph narrow {\n"
                       "  input X : f32[4, 8]\n"
                       "  kernel k grid [1, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    x = input X imap {} fmap -\n"
                       "    s = sum(x, axis = 1)\n"
                       "    output S = s omap {}\n"
                       "  }\n"
                       "  output S\n"
                       "}\n");
  ck_assert_ptr_null(ax_stack_build(A, g, 2, &D));
  ck_assert_str_eq(unit_diagnostics(),
                   "layer.mug:8:10: error: the layer's output S is f32[4, 1] but its first input X "
                   "is f32[4, 8]: the next layer cannot read it\n"
                   "    8 |   output S\n"
                   "      |          ^\n");
}
END_TEST

int main(void) {
  Suite *s = suite_create("stack");
  TCase *t = tcase_create("stack");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, three_layers);
  tcase_add_test(t, refusals);
  suite_add_tcase(s, t);
  return unit_run(s);
}
