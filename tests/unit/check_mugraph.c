/* check_mugraph.c — μGraph validation (shapes, partitions, phases, shared memory, element
 * types) and the DOT printer; the .mug text format itself is check_mugtext's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/mugdot.h"
#include "superopt/ir/mugtext.h"
#include "unit.h"

static AxMugraph *parse(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.mug", text, strlen(text));
  return ax_mugtext_parse(A, &D, src);
}

static AxMugraph *check(const char *text) {
  AxMugraph *g = parse(text);
  return g && ax_mug_check(g, &D) ? g : NULL;
}

static char *print(const AxMugraph *g, bool dot) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (dot) ax_mugdot_print(m, g);
  else ax_mugtext_print(m, g);
  fclose(m);
  char *s = ax_arena_strdup(A, buf);
  free(buf);
  return s;
}

static const char *CANON =
    "# a comment before the graph\n"
    "mugraph g {\n"
    "  input X : f16[16, 64]\n"
    "  input W : f16[64, 32]  # trailing\n"
    "\n"
    "  # a comment before a kernel\n"
    "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 2 {\n"
    "    x = input X imap {} fmap 1\n"
    "    w = input W imap {x: 1} fmap 0\n"
    "    xw = matmul(x, w)\n"
    "    a = accum sum(xw)\n"
    "    r = accum rms(x, axis = 1)\n"
    "    # fused\n"
    "    thread {\n"
    "      o = div(a, r)\n"
    "      h = mul(o, 0.5)\n"
    "    }\n"
    "    output O = h omap {x: 1}\n"
    "    # before the brace\n"
    "  }\n"
    "  P = sum(O, axis = 1, to = 8)\n"
    "  output O, P\n"
    "}\n";

START_TEST(roundtrip_identity) {
  AxMugraph *g = check(CANON);
  ck_assert_msg(g, "%s", unit_diagnostics());
  ck_assert_str_eq(print(g, false), CANON);
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "O")].shape.dim[1], 32);
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "P")].shape.dim[1], 8);
}
END_TEST

START_TEST(dot_output) {
  AxMugraph *g = check(CANON);
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *dot = print(g, true);
  ck_assert_ptr_nonnull(strstr(dot, "digraph \"g\" {"));
  ck_assert_ptr_nonnull(strstr(dot, "subgraph cluster_k0 {"));
  ck_assert_ptr_nonnull(strstr(dot, "label=\"kernel k1\\ngrid [4, 1, 1]  block [128, 1, 1]  forloop 2"));
  ck_assert_ptr_nonnull(strstr(dot, "subgraph cluster_k0_loop {"));
  ck_assert_ptr_nonnull(strstr(dot, "label=\"for-loop x 2\""));
  ck_assert_ptr_nonnull(strstr(dot, "subgraph cluster_k0_t0 {"));
  ck_assert_ptr_nonnull(strstr(dot, "t1 -> k0_n1 [label=\"imap {x: 1}\\nfmap 0\"];"));
  ck_assert_ptr_nonnull(strstr(dot, "[label=\"omap {x: 1}\"];"));
  ck_assert_ptr_nonnull(strstr(dot, "t0 [shape=box, style=\"rounded\", label=\"X\\nf16[16, 64]\"];"));
  ck_assert(dot[strlen(dot) - 2] == '}');
}
END_TEST

/* Validation errors: each names the kernel and the node, at the statement. */
START_TEST(validation_errors) {
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 60]\n"
                           "  kernel k grid [8, 1, 1] forloop 1 {\n    x = input X imap {x: 1} fmap -\n"
                           "    output Y = x omap {x: 1}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:4:5: error: kernel 'k': input 'x': dim 1 of 'X' (size 60) is not divisible by grid.x (8)"));
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 64]\n"
                           "  kernel k grid [8, 2, 1] forloop 1 {\n    x = input X imap {x: 1} fmap -\n"
                           "    output Y = x omap {x: 1}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:5:5: error: kernel 'k': output 'Y': grid.y has size 2 but its omap leaves it unmapped"));
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 4096]\n  input W : f16[4096, 4096]\n"
                           "  kernel k grid [1, 1, 1] forloop 1 {\n    x = input X imap {} fmap -\n"
                           "    w = input W imap {} fmap -\n    y = matmul(x, w)\n"
                           "    output Y = y omap {}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "kernel 'k': its block graph needs 33816576 bytes of shared memory per block, more than the H100's 232448"));
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 64]\n"
                           "  kernel k grid [1, 1, 1] forloop 4 {\n    x = input X imap {} fmap 1\n"
                           "    a = accum sum(x)\n    b = add(a, x)\n"
                           "    output Y = b omap {}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:6:5: error: kernel 'k': 'b' mixes 'x', computed in every iteration, with 'a', computed after the loop"));
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 64]\n"
                           "  kernel k grid [1, 1, 1] forloop 4 {\n    x = input X imap {} fmap 1\n"
                           "    output Y = x omap {}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "output 'Y' saves 'x', which changes every iteration; accumulate it first"));
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[16, 64]\n"
                           "  kernel k grid [1, 1, 1] forloop 1 {\n    x = input X imap {} fmap -\n"
                           "    thread {\n      s = sum(x, axis = 1)\n    }\n"
                           "    output Y = s omap {}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "kernel 'k': thread graph: 'sum' is not element-wise"));
}
END_TEST

/* A block iota: printed back as written, its tile cut by its maps (a loop value when the
 * for-loop advances along it), its partition checked as an input iterator's. */
START_TEST(block_iota) {
  const char *text = "mugraph g {\n"
                     "  input X : f32[8, 16]\n"
                     "  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 4 {\n"
                     "    x = input X imap {x: 0} fmap 1\n"
                     "    r = iota([8, 1], axis = 0) imap {x: 0} fmap -\n"
                     "    c = iota([1, 16], axis = 1) imap {} fmap 1\n"
                     "    m = ge(r, c)\n"
                     "    z = mul(x, 0)\n"
                     "    y = select(m, x, z)\n"
                     "    a = accum concat(y, axis = 1)\n"
                     "    output Y = a omap {x: 0}\n"
                     "  }\n"
                     "  output Y\n"
                     "}\n";
  AxMugraph *g = check(text);
  ck_assert_msg(g, "%s", unit_diagnostics());
  ck_assert_str_eq(print(g, false), text);
  const AxKernel *k = g->stmts[1].kernel;
  const AxBNode *r = &k->nodes[ax_mug_find_node(k, "r", k->nnodes)];
  const AxBNode *c = &k->nodes[ax_mug_find_node(k, "c", k->nnodes)];
  ck_assert_int_eq(r->shape.dim[0], 4);
  ck_assert_int_eq(r->phase, AX_PH_INVARIANT);
  ck_assert_int_eq(c->shape.dim[1], 4);
  ck_assert_int_eq(c->phase, AX_PH_LOOP);
  ck_assert_ptr_null(check("mugraph g {\n  input X : f32[8, 16]\n"
                           "  kernel k grid [3, 1, 1] forloop 1 {\n    r = iota([8, 1], axis = 0) imap {x: 0} fmap -\n"
                           "    output Y = r omap {x: 0}\n  }\n  output Y\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:4:5: error: kernel 'k': iota 'r': dim 0 of 'r' (size 8) is not divisible by grid.x (3)"));
}
END_TEST

/* Element types: a conversion's result has its own type at the block level as at the kernel
 * level, every other operator its operands' (a literal adapts), an accumulator its value's,
 * a saved tensor its tile's; operands of two types are refused, located at the second. */
START_TEST(element_types) {
  const char *text = "mugraph g {\n"
                     "  input X : bf16[8, 64]\n"
                     "  input W : f32[64, 16]\n"
                     "  kernel k grid [8, 1, 1] block [128, 1, 1] forloop 2 {\n"
                     "    x = input X imap {x: 0} fmap 1\n"
                     "    w = input W imap {} fmap 0\n"
                     "    y = to_f32(x)\n"
                     "    m = matmul(y, w)\n"
                     "    a = accum sum(m)\n"
                     "    thread {\n"
                     "      h = mul(a, 0.5)\n"
                     "      b = to_bf16(h)\n"
                     "    }\n"
                     "    output B = b omap {x: 0}\n"
                     "    output A = a omap {x: 0}\n"
                     "  }\n"
                     "  C = to_f16(B)\n"
                     "  D = exp(A)\n"
                     "  output B, C, D\n"
                     "}\n";
  AxMugraph *g = check(text);
  ck_assert_msg(g, "%s", unit_diagnostics());
  const AxKernel *k = g->stmts[2].kernel;
  static const struct { const char *node; AxDtype dt; } nodes[] = {
      {"x", AX_DT_BF16}, {"w", AX_DT_F32}, {"y", AX_DT_F32}, {"m", AX_DT_F32},
      {"a", AX_DT_F32}, {"h", AX_DT_F32}, {"b", AX_DT_BF16}};
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    int j = ax_mug_find_node(k, nodes[i].node, k->nnodes);
    ck_assert_int_ge(j, 0);
    ck_assert_msg(k->nodes[j].dtype == nodes[i].dt, "block tensor '%s' is %s", nodes[i].node,
                  ax_dtype_name(k->nodes[j].dtype));
  }
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "B")].dtype, AX_DT_BF16);
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "A")].dtype, AX_DT_F32);
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "C")].dtype, AX_DT_F16);
  ck_assert_int_eq(g->tensors[ax_mug_find(g, "D")].dtype, AX_DT_F32);
  /* a block operator of a bf16 tile and an f32 tile: no silent rounding of either */
  ck_assert_ptr_null(check("mugraph g {\n  input X : bf16[8, 64]\n  input W : f32[64, 16]\n"
                           "  kernel k grid [8, 1, 1] {\n    x = input X imap {x: 0} fmap -\n"
                           "    w = input W imap {} fmap -\n    m = matmul(x, w)\n"
                           "    output M = m omap {x: 0}\n  }\n  output M\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:7:19: error: kernel 'k': operator 'matmul' ('m'): operands have "
                               "different element types ('x' is bf16, 'w' is f32); convert one "
                               "explicitly (to_f16, to_bf16, to_f32)"));
  /* and a pre-defined one */
  ck_assert_ptr_null(check("mugraph g {\n  input X : f16[4]\n  input Y : bf16[4]\n"
                           "  Z = add(X, Y)\n  output Z\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:4:14: error: operator 'add' ('Z'): operands have different "
                               "element types ('X' is f16, 'Y' is bf16)"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("mugraph");
  TCase *t = tcase_create("mugraph");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, roundtrip_identity);
  tcase_add_test(t, block_iota);
  tcase_add_test(t, dot_output);
  tcase_add_test(t, validation_errors);
  tcase_add_test(t, element_types);
  suite_add_tcase(s, t);
  return unit_run(s);
}
