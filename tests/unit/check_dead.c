/* check_dead.c — dead code dropped (superopt/ir/dead.h): a program's lets that reach no
 * output, a μGraph's operators and kernels, a kept kernel's block nodes and savers that reach
 * no live tensor; inputs kept however unread; the pruned graph validates and computes the
 * outputs the original computes. */
#include "superopt/equiv/equiv.h"
#include "superopt/ir/dead.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"
#include "unit.h"

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

static AxMugraph *parse(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.mug", text, NULL);
  ck_assert_msg(g, "%s\n%s", unit_diagnostics(), text);
  return g;
}

static int count(const AxMugraph *g, AxKStmtKind k) {
  int n = 0;
  for (int s = 0; s < g->nstmts; s++) n += g->stmts[s].kind == k;
  return n;
}

/* The field check of a against b (equiv.h): 0 when equivalent (its refusals unprinted). */
static int equiv(const AxMugraph *a, const AxMugraph *b) {
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 7;
  o.out = NULL;
  AxDiag quiet;
  ax_diag_init(&quiet, NULL);
  return ax_equiv_run(a, b, &quiet, &o);
}

/* The example of a dead max: m and the whole of `u = exp(m) + 1` go, b stays an input. */
START_TEST(program_lets) {
  AxMugraph *g = prog("program dead {\n  input a : f32[64, 64]\n  input b : f32[64, 64]\n"
                      "  let m = max(a, b)\n  let u = exp(m) + 1\n  let s = a * b\n  let t = s + a\n"
                      "  output t\n}\n");
  AxDead dd;
  AxMugraph *r = ax_dead_drop(A, g, &dd);
  ck_assert_ptr_ne(r, g);
  ck_assert_int_eq(dd.nstmts, 3);   /* max, exp and the add of u */
  ck_assert_str_eq(dd.stmts[0].name, "m");
  ck_assert_str_eq(dd.stmts[2].name, "u");
  int line, col;
  ax_source_linecol(dd.stmts[0].span.src, dd.stmts[0].span.start, &line, &col);
  ck_assert_int_eq(line, 4);
  ck_assert_int_eq(count(r, AX_KS_INPUT), 2);   /* b is read by s; a by everything */
  ck_assert_int_eq(count(r, AX_KS_OP), 2);
  ck_assert_int_eq(ax_mug_find(r, "m"), -1);
  ck_assert_int_ge(ax_mug_find(r, "t"), 0);
  ck_assert_int_eq(r->noutputs, 1);
  ck_assert_str_eq(r->tensors[r->outputs[0]].name, "t");
  /* the original is refused (a max), the pruned one is equivalent to a graph without m */
  ck_assert_int_eq(equiv(g, g), 3);
  ck_assert_int_eq(equiv(r, r), 0);
  AxMugraph *w = prog("program w {\n  input a : f32[64, 64]\n  input b : f32[64, 64]\n"
                      "  let s = a * b\n  output t = s + a\n}\n");
  ck_assert_int_eq(equiv(r, w), 0);
  /* and nothing dead: the graph itself */
  r = ax_dead_drop(A, w, &dd);
  ck_assert_ptr_eq(r, w);
  ck_assert_int_eq(dd.nstmts + dd.nnodes, 0);
}
END_TEST

/* An input nothing reads any more stays an input, in its place. */
START_TEST(unread_input_stays) {
  AxMugraph *g = prog("program p {\n  input a : f32[8, 8]\n  input c : f16[4]\n"
                      "  let q = c * 2\n  output o = a + a\n}\n");
  AxDead dd;
  AxMugraph *r = ax_dead_drop(A, g, &dd);
  ck_assert_int_eq(dd.nstmts, 1);
  ck_assert_int_eq(count(r, AX_KS_INPUT), 2);
  int c = ax_mug_find(r, "c");
  ck_assert_int_ge(c, 0);
  ck_assert_int_eq(r->tensors[c].shape.dim[0], 4);
  ck_assert_int_eq(r->tensors[c].dtype, AX_DT_F16);
  ck_assert_int_eq(r->stmts[r->tensors[c].stmt].kind, AX_KS_INPUT);
  ck_assert_int_eq(equiv(g, r), 0);
}
END_TEST

/* A μGraph: a dead operator, a dead kernel, and in the kernel that stays a saver nobody
 * reads with the nodes only it needed; a thread graph loses a node and keeps its place. */
START_TEST(mugraph_kernels_and_nodes) {
  AxMugraph *g = parse("mugraph m {\n  input X : f32[16, 64]\n  input Y : f32[16, 64]\n"
                       "  Z = exp(Y)\n"
                       "  kernel k0 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    y = input Y imap {x: 0} fmap -\n    e = exp(y)\n    output E = e omap {x: 0}\n  }\n"
                       "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    x = input X imap {x: 0} fmap -\n    y = input Y imap {x: 0} fmap -\n"
                       "    thread {\n      a = mul(x, x)\n      b = add(y, y)\n      c = add(a, x)\n    }\n"
                       "    output O = c omap {x: 0}\n    output P = b omap {x: 0}\n  }\n"
                       "  output O\n}\n");
  AxDead dd;
  AxMugraph *r = ax_dead_drop(A, g, &dd);
  ck_assert_int_eq(dd.nstmts, 2);   /* Z and k0 */
  ck_assert_str_eq(dd.stmts[0].name, "Z");
  ck_assert_str_eq(dd.stmts[1].name, "k0");
  ck_assert_int_eq(dd.nnodes, 3);   /* k1's y, b and the saver of P */
  ck_assert_int_eq(count(r, AX_KS_KERNEL), 1);
  ck_assert_int_eq(count(r, AX_KS_INPUT), 2);
  ck_assert_int_eq(ax_mug_find(r, "P"), -1);
  ck_assert_int_eq(ax_mug_find(r, "E"), -1);
  const AxKernel *k = NULL;
  for (int s = 0; s < r->nstmts; s++)
    if (r->stmts[s].kind == AX_KS_KERNEL) k = r->stmts[s].kernel;
  ck_assert_str_eq(k->name, "k1");
  ck_assert_int_eq(k->nnodes, 4);   /* x, a, c, the saver of O */
  ck_assert_int_eq(k->nthreads, 1);
  ck_assert_int_eq(k->nodes[1].thread, 0);
  ck_assert_int_eq(k->nodes[2].thread, 0);
  ck_assert_int_eq(k->nodes[2].in[0], 1);   /* c = add(a, x): renumbered */
  ck_assert_int_eq(k->nodes[2].in[1], 0);
  /* it prints, parses back and computes O as the original does */
  char *text = ax_mugtext_string(r);
  ck_assert_ptr_null(strstr(text, "b = add"));
  ck_assert_ptr_nonnull(strstr(text, "thread {"));
  AxMugraph *back = parse(text);
  free(text);
  AxMugraph *p = prog("program m {\n  input X : f32[16, 64]\n  input Y : f32[16, 64]\n"
                      "  output O = X * X + X\n}\n");
  ck_assert_int_eq(equiv(p, back), 0);
  ck_assert_int_eq(equiv(p, r), 0);
}
END_TEST

/* A kernel's iterator whose tile only a dead node reads goes; the kernel tensor it read, if
 * nothing else reads it, goes with its producer. */
START_TEST(chain_through_kernels) {
  AxMugraph *g = parse("mugraph m {\n  input X : f32[16, 64]\n  T = exp(X)\n"
                       "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    x = input X imap {x: 0} fmap -\n    t = input T imap {x: 0} fmap -\n"
                       "    u = exp(t)\n    o = mul(x, x)\n    output O = o omap {x: 0}\n  }\n"
                       "  output O\n}\n");
  AxDead dd;
  AxMugraph *r = ax_dead_drop(A, g, &dd);
  ck_assert_int_eq(dd.nstmts, 1);   /* T */
  ck_assert_int_eq(dd.nnodes, 2);   /* t and u */
  ck_assert_int_eq(ax_mug_find(r, "T"), -1);
  ck_assert_int_eq(count(r, AX_KS_OP), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("dead");
  TCase *t = tcase_create("dead");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, program_lets);
  tcase_add_test(t, unread_input_stays);
  tcase_add_test(t, mugraph_kernels_and_nodes);
  tcase_add_test(t, chain_through_kernels);
  suite_add_tcase(s, t);
  return unit_run(s);
}
