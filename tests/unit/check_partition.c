/* check_partition.c — a program split into regions (superopt/search/partition.h): cut points
 * at the operators the search refuses, regions that stay convex, the size limit, dead code,
 * the order by modelled gain, each region's program, and the module's graph put back
 * together (with and without region graphs) validating. */
#include "superopt/equiv/equiv.h"
#include "superopt/ir/load.h"
#include "superopt/search/partition.h"
#include "unit.h"

static AxMugraph *prog(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "t.axl", text, NULL);
  ck_assert_msg(g, "%s", unit_diagnostics());
  return g;
}

static AxPartition split(const AxMugraph *g, int max_ops) {
  AxPartition p;
  ck_assert_msg(ax_partition_split(A, &D, g, max_ops, ax_cost_target("h100"), &p), "%s",
                unit_diagnostics());
  return p;
}

static AxMugraph *parse(const char *text) {
  AxMugraph *g = ax_load_from_text(A, &D, "<module>", text, NULL);
  ck_assert_msg(g, "%s\n%s", unit_diagnostics(), text);
  return g;
}

/* The statement of g that defines `name`. */
static int stmt_of(const AxMugraph *g, const char *name) { return g->tensors[ax_mug_find(g, name)].stmt; }

static bool holds(const AxRegion *r, int s) {
  for (int i = 0; i < r->nstmts; i++)
    if (r->stmts[i] == s) return true;
  return false;
}

static const char *LAYOUT =
    "program p {\n  input X, W : f32[64, 64]\n  input V : f32[32, 128]\n"
    "  let A = matmul(X, W)\n  let B = exp(A) * 2\n  let C = reshape(B, [32, 128])\n"
    "  let D = C + V\n  let E = sqrt(D)\n  let R = reshape(A, [64, 64])\n  let F = A * R\n"
    "  output E\n  output F\n}\n";

/* Reshapes are cut points; F reads A directly and through a reshape, so it is not in A's
 * region (that region would depend on itself). */
START_TEST(cut_points_and_convexity) {
  AxMugraph *g = prog(LAYOUT);
  AxPartition p = split(g, 8);
  ck_assert_int_eq(p.n, 3);
  ck_assert_int_eq(p.nleft, 2);
  ck_assert_int_eq(p.ndead, 0);
  ck_assert(holds(&p.regions[0], stmt_of(g, "A")) && holds(&p.regions[0], stmt_of(g, "B")));
  ck_assert_int_eq(p.regions[0].nstmts, 3);   /* matmul, exp, mul */
  ck_assert(holds(&p.regions[1], stmt_of(g, "D")) && holds(&p.regions[1], stmt_of(g, "E")));
  ck_assert(holds(&p.regions[2], stmt_of(g, "F")) && p.regions[2].nstmts == 1);
  ck_assert_str_eq(p.regions[0].name, "r01");
  /* r01's program: X and W in, A (read by the reshape and F) and B out */
  ck_assert_ptr_nonnull(strstr(p.regions[0].text, "  output A\n  output B\n"));
  ck_assert_ptr_nonnull(strstr(p.regions[2].text, "  input A : f32[64, 64]\n  input R : f32[64, 64]\n"));
  ck_assert_int_eq(p.regions[0].prog->noutputs, 2);
  /* the order: a permutation, the largest estimated gain first */
  bool seen[3] = {0};
  for (int k = 0; k < p.n; k++) seen[p.order[k]] = true;
  ck_assert(seen[0] && seen[1] && seen[2]);
  for (int k = 1; k < p.n; k++) {
    const AxRegion *a = &p.regions[p.order[k - 1]], *b = &p.regions[p.order[k]];
    ck_assert(a->naive_s - a->estimate_s >= b->naive_s - b->estimate_s);
  }
  ck_assert(p.regions[0].estimate_s < p.regions[0].naive_s);   /* matmul + epilogue fuse */
}
END_TEST

/* The size limit cuts a region in program order. */
START_TEST(size_limit) {
  AxMugraph *g = prog(LAYOUT);
  AxPartition p = split(g, 1);
  ck_assert_int_eq(p.n, 6);
  for (int i = 0; i < p.n; i++) ck_assert_int_eq(p.regions[i].nstmts, 1);
  p = split(g, 2);
  ck_assert_int_eq(p.n, 4);   /* {A, exp} {mul} {D, E} {F} */
  ck_assert_int_eq(p.regions[0].nstmts, 2);
  ck_assert_int_eq(p.regions[1].nstmts, 1);
}
END_TEST

/* Operators that reach no output are in no region; a program without searchable operators
 * has no region. */
START_TEST(dead_and_empty) {
  AxMugraph *g = prog("program p {\n  input X : f32[64, 64]\n  let Y = exp(X)\n"
                      "  let Z = sqrt(Y)\n  output O = X * 2\n}\n");
  AxPartition p = split(g, 8);
  ck_assert_int_eq(p.n, 1);
  ck_assert_int_eq(p.ndead, 2);
  ck_assert_int_eq(p.regions[0].nstmts, 1);
  char *t = ax_partition_stitch(A, &D, g, &p, (const char *const[]){NULL}, "m");
  ck_assert_ptr_null(strstr(t, "exp("));   /* dead code is left out of the module */
  parse(t);
  free(t);
  AxMugraph *l = prog("program q {\n  input X : f32[64, 64]\n  output Y = reshape(X, [32, 128])\n}\n");
  p = split(l, 8);
  ck_assert_int_eq(p.n, 0);
  ck_assert_int_eq(p.nleft, 1);
}
END_TEST

/* The module's graph: every region's graph in place, renamed, in dataflow order (F's region
 * after R's reshape, although R comes after F's producer), valid; without graphs, the
 * program's live operators. */
START_TEST(stitch) {
  AxMugraph *g = prog(LAYOUT);
  AxPartition p = split(g, 8);
  const char *none[3] = {NULL, NULL, NULL};
  char *naive = ax_partition_stitch(A, &D, g, &p, none, "m");
  AxMugraph *n = parse(naive);
  ck_assert_int_eq(n->nstmts, g->nstmts);
  free(naive);
  /* r01 fused by hand into one kernel: A and B saved */
  const char *r01 =
      "mugraph r01 {\n  input X : f32[64, 64]\n  input W : f32[64, 64]\n"
      "  kernel k0 grid [8, 16, 1] block [128, 1, 1] forloop 1 {\n"
      "    i0 = input X imap {x: 0} fmap -\n    i1 = input W imap {y: 1} fmap -\n"
      "    v2 = matmul(i0, i1)\n    v3 = exp(v2)\n    v4 = mul(v3, 2)\n"
      "    output A = v2 omap {x: 0, y: 1}\n    output B = v4 omap {x: 0, y: 1}\n  }\n"
      "  output A, B\n}\n";
  const char *graphs[3] = {r01, NULL, NULL};
  char *t = ax_partition_stitch(A, &D, g, &p, graphs, "m");
  AxMugraph *m = parse(t);
  ck_assert_ptr_nonnull(strstr(t, "kernel r01__k0 "));
  ck_assert_int_ge(ax_mug_find(m, "A"), 0);
  ck_assert_int_ge(ax_mug_find(m, "F"), 0);
  ck_assert(m->tensors[ax_mug_find(m, "R")].stmt < m->tensors[ax_mug_find(m, "F")].stmt);
  ck_assert(ax_cost_time(m, ax_cost_target("h100")) < ax_cost_time(g, ax_cost_target("h100")));
  free(t);
  /* the whole program printed back lowers to the same graph */
  char *pt = ax_partition_program_text(g);
  AxMugraph *back = prog(ax_arena_strdup(A, pt));
  ck_assert_int_eq(back->nstmts, g->nstmts);
  free(pt);
}
END_TEST

static int accept(const AxMugraph *prog, const AxMugraph *mod, void *ctx) {
  (void)ctx;
  AxEquivOpts eo;
  ax_equiv_defaults(&eo);
  eo.out = NULL;
  AxDiag quiet;
  ax_diag_init(&quiet, NULL);
  return ax_equiv_accept(prog, mod, &quiet, &eo);
}

/* accept, and the cut graphs hold no input named W (a weight only a cut matmul reads) */
static int accept_without_w(const AxMugraph *prog, const AxMugraph *mod, void *ctx) {
  ck_assert_int_lt(ax_mug_find(prog, "W"), 0);
  ck_assert_int_lt(ax_mug_find(mod, "W"), 0);
  return accept(prog, mod, ctx);
}

/* The module check also cuts at a matmul a region kept, under the region's inner name
 * (r01__Y for the program's Y): what is tested is the fused kernel against the operators it
 * replaces, and the weight only the matmul reads is not drawn. A module whose kept matmul
 * reads the other weight is not accepted. */
START_TEST(check_cut_kept_matmul) {
  AxMugraph *g = prog("program t {\n  input X : f32[8, 64]\n  input W : f32[64, 64]\n  input V : f32[64, 64]\n"
                      "  let Y = matmul(X, W)\n  let Z = matmul(X, V)\n  output O = silu(Y) * Z\n}\n");
  const char *mod = "mugraph t {\n  input X : f32[8, 64]\n  input W : f32[64, 64]\n  input V : f32[64, 64]\n"
                    "  r01__Y = matmul(X, %s)\n  r01__Z = matmul(X, V)\n"
                    "  kernel r01__k grid [8, 1, 1] block [128, 1, 1] forloop 1 {\n"
                    "    y = input r01__Y imap {x: 1} fmap -\n    z = input r01__Z imap {x: 1} fmap -\n"
                    "    s = silu(y)\n    o = mul(s, z)\n    output O = o omap {x: 1}\n  }\n  output O\n}\n";
  AxMugraph *m = parse(ax_arena_printf(A, mod, "W"));
  ck_assert_int_eq(ax_partition_check_cut(A, g, m, accept_without_w, NULL), 0);
  AxMugraph *w = parse(ax_arena_printf(A, mod, "V"));
  ck_assert_int_ne(ax_partition_check_cut(A, g, w, accept, NULL), 0);
}
END_TEST

/* The module check cut at shared layout operators: exp, a transpose, then logistic is two
 * exponentials on one path (one field test refuses it whole); cut at the transpose both
 * hold, each piece is decided. A graph that differs before the cut (the exp's operand) or
 * transposes the other way is not accepted. */
START_TEST(check_cut) {
  AxMugraph *g = prog("program t {\n  input X : f32[16, 16]\n  let E = exp(X)\n"
                      "  let T = transpose(E, [1, 0])\n  let L = logistic(T)\n  output L\n}\n");
  const char *good = "mugraph t {\n  input X : f32[16, 16]\n  E = exp(X)\n"
                     "  T = transpose(E, [1, 0])\n  L = logistic(T)\n  output L\n}\n";
  AxMugraph *m = parse(good);
  ck_assert_int_eq(accept(g, m, NULL), 3);   /* outside the Lax fragment as a whole */
  ck_assert_int_eq(ax_partition_check_cut(A, g, m, accept, NULL), 0);
  /* wrong before the cut: exp(2X) where the program has exp(X) */
  AxMugraph *w1 = parse("mugraph t {\n  input X : f32[16, 16]\n  Y = mul(X, 2)\n  E = exp(Y)\n"
                        "  T = transpose(E, [1, 0])\n  L = logistic(T)\n  output L\n}\n");
  ck_assert_int_eq(ax_partition_check_cut(A, g, w1, accept, NULL), 1);
  /* the transpose left out (square: the shapes still fit): nothing shared to cut at */
  AxMugraph *w2 = parse("mugraph t {\n  input X : f32[16, 16]\n  E = exp(X)\n"
                        "  L = logistic(E)\n  output L\n}\n");
  ck_assert_int_ne(ax_partition_check_cut(A, g, w2, accept, NULL), 0);
  /* the wrong axes, no exponential: the plain check says not equivalent */
  AxMugraph *p3 = prog("program u {\n  input X : f32[8, 8, 8]\n  let T = transpose(X, [1, 0, 2])\n"
                       "  let S = T * 3\n  output S\n}\n");
  AxMugraph *w3 = parse("mugraph u {\n  input X : f32[8, 8, 8]\n  T = transpose(X, [0, 2, 1])\n"
                        "  S = mul(T, 3)\n  output S\n}\n");
  ck_assert_int_eq(accept(p3, w3, NULL), 1);
  AxMugraph *r3 = parse("mugraph u {\n  input X : f32[8, 8, 8]\n  Y = mul(X, 3)\n"
                        "  S = transpose(Y, [1, 0, 2])\n  output S\n}\n");
  ck_assert_int_eq(accept(p3, r3, NULL), 0);   /* the scale moved across the transpose */
}
END_TEST

/* A causal mask (iota, a comparison, select) before a softmax with its max: the field
 * tests decide it whole (a comparison of index-only values is exact: exact.h), and so does
 * the check cut at the mask statements both hold. A mask of the other direction (lt for
 * le), a mask on data instead of indices (no field reading: refused whole), or swapped
 * branches is never accepted. */
START_TEST(mask_cut) {
  const char *p = "program c {\n  input S : f32[16, 16]\n  input F : f32[16, 16]\n"
                  "  let I = iota([16], axis = 0)\n  let R = reshape(I, [16, 1])\n"
                  "  let M = le(R, I)\n  let X = select(M, S, F)\n"
                  "  let E = exp(X - reduce_max(X, axis = 1))\n  let O = E / sum(E, axis = 1)\n"
                  "  output O\n}\n";
  AxMugraph *g = prog(p);
#define MUG(cmp, sel) \
  parse("mugraph c {\n  input S : f32[16, 16]\n  input F : f32[16, 16]\n" \
        "  I = iota([16], axis = 0)\n  R = reshape(I, [16, 1])\n  M = " cmp "\n" \
        "  X = select(" sel ")\n  kernel k grid [16, 1, 1] block [128, 1, 1] forloop 1 {\n" \
        "    a = input X imap {x: 0} fmap -\n    b = reduce_max(a, axis = 1)\n" \
        "    c = sub(a, b)\n    d = exp(c)\n    s = sum(d, axis = 1)\n    o = div(d, s)\n" \
        "    output O = o omap {x: 0}\n  }\n  output O\n}\n")
  AxMugraph *good = MUG("le(R, I)", "M, S, F");
  ck_assert_int_eq(accept(g, good, NULL), 0);   /* an index-only comparison: exact */
  ck_assert_int_eq(ax_partition_check_cut(A, g, good, accept, NULL), 0);
  ck_assert_int_eq(accept(g, MUG("lt(R, I)", "M, S, F"), NULL), 1);
  ck_assert_int_eq(accept(g, MUG("le(R, I)", "M, F, S"), NULL), 1);
  ck_assert_int_eq(accept(g, MUG("le(S, F)", "M, S, F"), NULL), 3);   /* data: no field reading */
  ck_assert_int_ne(ax_partition_check_cut(A, g, MUG("lt(R, I)", "M, S, F"), accept, NULL), 0);
  ck_assert_int_ne(ax_partition_check_cut(A, g, MUG("ge(R, I)", "M, S, F"), accept, NULL), 0);
  ck_assert_int_ne(ax_partition_check_cut(A, g, MUG("le(S, F)", "M, S, F"), accept, NULL), 0);
  ck_assert_int_ne(ax_partition_check_cut(A, g, MUG("le(R, I)", "M, F, S"), accept, NULL), 0);
#undef MUG
}
END_TEST

/* A causal mask's statements are index values: they join the region of the select that
 * reads them (written into its program as lets, not read as inputs), leave the module, and
 * cut nothing; a select on data stays a cut point, its comparison in a region of its own. */
START_TEST(mask_region) {
  const char *mask = "program c {\n  input S : f32[16, 16]\n  input F : f32[16, 16]\n"
                     "  let I = iota([16], axis = 0)\n  let M = ge(reshape(I, [16, 1]), I)\n"
                     "  let X = select(M, S * 2, broadcast(-1000, [16, 16]))\n"
                     "  let E = exp(X - reduce_max(X, axis = 1))\n  output O = E / sum(E, axis = 1)\n}\n";
  AxMugraph *g = prog(mask);
  AxPartition p = split(g, 8);
  ck_assert_int_eq(p.n, 1);
  ck_assert_int_eq(p.nleft, 0);
  ck_assert(holds(&p.regions[0], stmt_of(g, "X")));
  ck_assert_ptr_nonnull(strstr(p.regions[0].text, "= iota([16], axis = 0)\n"));
  ck_assert_ptr_null(strstr(p.regions[0].text, "input M"));
  ck_assert(!p.live[stmt_of(g, "M")]);   /* made inside the region only */
  char *m = ax_partition_stitch(A, &D, g, &p, (const char *const[]){NULL}, "c");
  ck_assert_ptr_nonnull(m);   /* the region as its operators: the mask written before it */
  ck_assert_ptr_nonnull(strstr(m, "= ge("));
  ck_assert_ptr_nonnull(parse(m));
  free(m);
  AxMugraph *d = prog("program c {\n  input S : f32[16, 16]\n  input F : f32[16, 16]\n"
                      "  let M = ge(S, F)\n  let X = select(M, S * 2, F)\n  output O = exp(X)\n}\n");
  p = split(d, 8);
  ck_assert(!holds(&p.regions[0], stmt_of(d, "X")) && (p.n < 2 || !holds(&p.regions[1], stmt_of(d, "X"))));
  ck_assert_int_eq(p.nleft, 1);
}
END_TEST

/* Conversions in the equivalence check: the same conversions at the same places pass (here
 * also with a transpose moved across one); a conversion dropped, moved across an addition
 * or to another type is not accepted. */
START_TEST(conversions_equivalence) {
  AxMugraph *g = prog("program c {\n  input X : f32[8, 8]\n  input Y : f32[8, 8]\n"
                      "  let S = X + Y\n  let H = to_f16(S)\n  let T = transpose(H, [1, 0])\n"
                      "  let O = to_f32(T)\n  output O\n}\n");
  const char *head = "mugraph c {\n  input X : f32[8, 8]\n  input Y : f32[8, 8]\n";
  AxMugraph *same = parse(ax_arena_printf(A, "%s  S = add(X, Y)\n  H = to_f16(S)\n"
                                          "  T = transpose(H, [1, 0])\n  O = to_f32(T)\n  output O\n}\n", head));
  ck_assert_int_eq(accept(g, same, NULL), 0);
  AxMugraph *swapped = parse(ax_arena_printf(A, "%s  S = add(X, Y)\n  T = transpose(S, [1, 0])\n"
                                             "  H = to_f16(T)\n  O = to_f32(H)\n  output O\n}\n", head));
  ck_assert_int_eq(accept(g, swapped, NULL), 0);   /* rounding commutes with moving values */
  AxMugraph *dropped = parse(ax_arena_printf(A, "%s  S = add(X, Y)\n"
                                             "  T = transpose(S, [1, 0])\n  O = to_f32(T)\n  output O\n}\n", head));
  ck_assert_int_ne(accept(g, dropped, NULL), 0);
  AxMugraph *moved = parse(ax_arena_printf(A, "%s  A = to_f16(X)\n  B = to_f16(Y)\n  S = add(A, B)\n"
                                           "  T = transpose(S, [1, 0])\n  O = to_f32(T)\n  output O\n}\n", head));
  ck_assert_int_ne(accept(g, moved, NULL), 0);
  AxMugraph *other = parse(ax_arena_printf(A, "%s  S = add(X, Y)\n  H = to_bf16(S)\n"
                                           "  T = transpose(H, [1, 0])\n  O = to_f32(T)\n  output O\n}\n", head));
  ck_assert_int_ne(accept(g, other, NULL), 0);
}
END_TEST

/* A broadcast that only restores what its element-wise reader broadcasts anyway
 * (`X / broadcast(sum(X), [8, 256])`) is seen through: its reader reads the sum, it is dead
 * code, no cut point, and the program is one region. A broadcast that adds an axis (the
 * reader's result grows to [4, 8, 256]) changes its reader's shape: it stays a cut point
 * between two regions; so does one that is an output itself. */
START_TEST(restoring_broadcast) {
  AxMugraph *g = prog("program b {\n  input X : f32[8, 256]\n  let S = sum(X, axis = 1)\n"
                      "  let B = broadcast(S, [8, 256])\n  output O = X / B\n}\n");
  AxPartition p = split(g, 8);
  ck_assert_int_eq(p.n, 1);
  ck_assert_int_eq(p.nleft, 0);
  ck_assert_int_eq(p.ndead, 1);
  ck_assert_int_eq(p.repl[ax_mug_find(g, "B")], ax_mug_find(g, "S"));
  ck_assert(!p.live[stmt_of(g, "B")]);
  ck_assert_int_eq(p.regions[0].nstmts, 2);   /* the sum and the division */
  ck_assert_ptr_null(strstr(p.regions[0].text, "broadcast"));
  AxMugraph *w = prog("program w {\n  input X : f32[8, 256]\n  let S = sum(X, axis = 1)\n"
                      "  let B = broadcast(S, [4, 8, 256])\n  output O = X / B\n}\n");
  p = split(w, 8);
  ck_assert_int_eq(p.repl[ax_mug_find(w, "B")], ax_mug_find(w, "B"));
  ck_assert_int_eq(p.nleft, 1);
  ck_assert_int_eq(p.ndead, 0);
  ck_assert_int_eq(p.n, 2);
  ck_assert(holds(&p.regions[0], stmt_of(w, "S")) && !holds(&p.regions[0], stmt_of(w, "B")));
  AxMugraph *k = prog("program k {\n  input X : f32[8, 256]\n  output B = broadcast(sum(X, axis = 1), [8, 256])\n"
                      "  output O = X / B\n}\n");
  p = split(k, 8);
  ck_assert_int_eq(p.nleft, 1);
  ck_assert_int_eq(p.n, 2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("partition");
  TCase *t = tcase_create("partition");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, cut_points_and_convexity);
  tcase_add_test(t, size_limit);
  tcase_add_test(t, dead_and_empty);
  tcase_add_test(t, stitch);
  tcase_add_test(t, check_cut);
  tcase_add_test(t, check_cut_kept_matmul);
  tcase_add_test(t, conversions_equivalence);
  tcase_add_test(t, mask_cut);
  tcase_add_test(t, mask_region);
  tcase_add_test(t, restoring_broadcast);
  suite_add_tcase(s, t);
  return unit_run(s);
}
