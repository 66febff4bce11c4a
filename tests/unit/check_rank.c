/* check_rank.c — bound inference (verifier/rank.h): exact bounds and counts for given
 * rules, one test per way the old inference went wrong (read-free terms, "every axis" and
 * "some axis" folds that coincide at rank 1, quantified preconditions, unused lets) and per
 * merge it may still make (normal forms equal), and the structures it must refuse. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/rank.h"
#include "unit.h"

/* The bound of rank class c (by name) of the rule at type t; counts through *cnt. */
static int bound(const char *text, AxType t, const char *cls, AxRankCount *cnt) {
  const AxBlock *r = unit_rule(text);
  AxRankBounds b;
  ax_rank_bounds(r, t, &b);
  ck_assert_msg(b.unsupported == NULL, "unsupported: %s", b.unsupported);
  int k = -1;
  for (size_t c = 0; c < r->syms->nrclasses; c++)
    if (strcmp(r->syms->rclasses[c].name, cls) == 0) {
      k = b.bounds[c];
      if (cnt) *cnt = b.counts[c];
    }
  ax_rank_bounds_free(&b);
  ck_assert_int_ge(k, 1);
  return k;
}

/* TensorRight §6.2: two conditions (the outer and the inner padding) and one access. */
START_TEST(pad_low_combine_is_two) {
  AxRankCount c;
  int k = bound("rule r for T in num {\n"
                "  rclass x\n  map s over x\n  map l1, l2 over x nonneg\n"
                "  tensor Y : T[x: s]\n"
                "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1 + l2})\n}\n",
                AX_INT, "x", &c);
  ck_assert_int_eq(k, 2);
  ck_assert_int_eq(c.conditions, 2);
  ck_assert_int_eq(c.read_pairs, 0);   /* (a - l2) - l1 and a - (l1 + l2): one read */
}
END_TEST

/* A read-free comparison of two masks: each mask is one fold, the comparison is glue.
 * (The old inference counted the whole comparison as one condition.) */
START_TEST(read_free_masks_count_each_fold) {
  AxRankCount c;
  int k = bound("rule r {\n"
                "  rclass x\n  map s, l over x nonneg\n"
                "  tensor P : bool[x: s]\n"
                "  let M1 = pad(constant(true, {x: s}), false, {x: l})\n"
                "  let M2 = pad(constant(true, {x: s}), false, {x: l + 1})\n"
                "  M1 or M2 => M2 or M1\n}\n",
                AX_INT, "x", &c);
  ck_assert_int_ge(c.conditions, 2);
  ck_assert_int_ge(k, 2);
}
END_TEST

/* "exists an axis" against "every axis" of one per-axis test: equal at rank 1, two folds. */
START_TEST(all_and_any_are_two) {
  AxRankCount c;
  int k = bound("rule r for T in num {\n"
                "  rclass x\n  map s, t over x\n"
                "  tensor A : T[x: s]\n"
                "  require (forall x: s == t) or (exists x: s == t)\n"
                "  A => A + 0\n}\n",
                AX_INT, "x", &c);
  ck_assert_int_eq(c.conditions, 2);
  ck_assert_int_eq(k, 2);
}
END_TEST

/* Top-level `require forall` is known true in every counterexample: no axis to keep. An
 * `exists` needs its witness kept: one. */
START_TEST(quantified_preconditions) {
  const char *fa = "rule r for T in num {\n  rclass x\n  map s, t over x\n  tensor A : T[x: s]\n"
                   "  require forall x: s == t\n  A => A + 0\n}\n";
  const char *ex = "rule r for T in num {\n  rclass x\n  map s, t over x\n  tensor A : T[x: s]\n"
                   "  require exists x: s == t\n  A => A + 0\n}\n";
  AxRankCount c;
  ck_assert_int_eq(bound(fa, AX_INT, "x", &c), 1);
  ck_assert_int_eq(c.conditions, 0);
  ck_assert_int_eq(bound(ex, AX_INT, "x", &c), 1);
  ck_assert_int_eq(c.conditions, 1);
  const char *two = "rule r for T in num {\n  rclass x\n  map s, t over x\n  tensor A : T[x: s]\n"
                    "  require exists x: s == t, exists x: s == t + 1\n  A => A + 0\n}\n";
  ck_assert_int_eq(bound(two, AX_INT, "x", &c), 2);
}
END_TEST

/* Four per-axis clauses over two atoms: four folds (counting atoms would give two). */
START_TEST(four_clauses_four_folds) {
  AxRankCount c;
  int k = bound("rule r for T in num {\n"
                "  rclass x\n  map s, a, b over x\n"
                "  tensor A : T[x: s]\n"
                "  require not (forall x: a > 0 or b > 0), not (forall x: a > 0 or b <= 0)\n"
                "  require not (forall x: a <= 0 or b > 0), not (forall x: a <= 0 or b <= 0)\n"
                "  A => A + 0\n}\n",
                AX_INT, "x", &c);
  ck_assert_int_eq(c.conditions, 4);
  ck_assert_int_eq(k, 4);
}
END_TEST

/* Reads: C(n, 2) pairs that differ on an axis of the class; reads equal on the class's
 * axes never merge when it is projected. */
START_TEST(read_pairs) {
  AxRankCount c;
  int k = bound("rule r for T in num {\n"
                "  rclass x\n  map s over x\n"
                "  tensor A : T[x: s]\n"
                "  max(A, reverse(A, [x])) => max(reverse(A, [x]), A)\n}\n",
                AX_INT, "x", &c);
  ck_assert_int_eq(c.read_pairs, 1);   /* A[a] and A[s - 1 - a] */
  ck_assert_int_eq(k, 1);
  k = bound("rule r for T in num {\n"
            "  rclass x, y\n  map s over x\n  map t over y\n"
            "  tensor A : T[x: s, y: t]\n"
            "  max(A, reverse(A, [y])) => max(reverse(A, [y]), A)\n}\n",
            AX_INT, "x", &c);
  ck_assert_int_eq(c.read_pairs, 0);   /* the two reads agree on x */
  ck_assert_int_eq(k, 1);
}
END_TEST

/* A let the rewrite does not use fixes nothing; a used concat axis is fixed at 1. */
START_TEST(unused_let_fixes_nothing) {
  const AxBlock *r = unit_rule("rule r for T in num {\n"
                               "  rclass x, y\n  map a, b over y\n  map s over x\n"
                               "  tensor A : T[x: s, y: a]\n  tensor B : T[x: s, y: b]\n"
                               "  let C = concat(A, B, axis=y)\n"
                               "  reverse(A, [y]) => A\n}\n");
  ck_assert(!r->syms->rclasses[1].singleton);
  r = unit_rule("rule r for T in num {\n"
                "  rclass x, y\n  map a, b over y\n  map s over x\n"
                "  tensor A : T[x: s, y: a]\n  tensor B : T[x: s, y: b]\n"
                "  let C = concat(A, B, axis=y)\n"
                "  C => concat(B, A, axis=y)\n}\n");
  ck_assert(r->syms->rclasses[1].singleton);
  ck_assert_str_eq(r->syms->rclasses[1].singleton_why, "concat axis");
  AxRankBounds b;
  ax_rank_bounds(r, AX_INT, &b);
  ck_assert_int_eq(b.bounds[1], 1);
  ck_assert(b.counts[1].fixed);
  ax_rank_bounds_free(&b);
}
END_TEST

/* Reductions: the summation domain is assumed where the summands are compared; a pairing
 * that is the identity on the class adds nothing. */
START_TEST(reduce_of_reduce_is_one) {
  AxRankCount c;
  const char *t = "rule r for T in num {\n  rclass x, y\n  map sx over x\n  map sy over y\n"
                  "  tensor X : T[x: sx, y: sy]\n"
                  "  reduce(reduce(X, [x]), [y]) => reduce(X, [x, y])\n}\n";
  ck_assert_int_eq(bound(t, AX_INT, "x", &c), 1);
  ck_assert_int_eq(bound(t, AX_INT, "y", &c), 1);
}
END_TEST

/* Same expression on both sides: the checker's comparison sees through lets and syntax. */
START_TEST(same_expression) {
  const AxBlock *r = unit_rule("rule r for T in num {\n  rclass x\n  map s, l over x\n"
                               "  tensor A : T[x: s]\n  let P = pad(A, 0, low={x: l})\n"
                               "  P + 1 => add(pad(A, 0, {x: l}), 1)\n}\n");
  ck_assert(ax_check_same_expr(r->syms, r->syms->lhs, r->syms->rhs));
  r = unit_rule("rule r for T in num {\n  rclass x\n  map s, l over x\n"
                "  tensor A : T[x: s]\n  pad(A, 0, low={x: l}) + 1 => pad(A, 0, low={x: l}) + 2\n}\n");
  ck_assert(!ax_check_same_expr(r->syms, r->syms->lhs, r->syms->rhs));
  /* attributes by name in another order, with their values swapped: not the same */
  r = unit_rule("rule r for T in num {\n  rclass x\n  map s, l, h over x\n"
                "  tensor A : T[x: s]\n"
                "  pad(A, 0, low={x: l}, high={x: h}) => pad(A, 0, high={x: l}, low={x: h})\n}\n");
  ck_assert(!ax_check_same_expr(r->syms, r->syms->lhs, r->syms->rhs));
  /* ... and the same attributes in another order: the same */
  r = unit_rule("rule r for T in num {\n  rclass x\n  map s, l, h over x\n"
                "  tensor A : T[x: s]\n"
                "  pad(A, 0, low={x: l}, high={x: h}) => pad(A, 0, high={x: h}, low={x: l})\n}\n");
  ck_assert(ax_check_same_expr(r->syms, r->syms->lhs, r->syms->rhs));
  /* operands swapped, a literal of another spelling, another operator: not the same */
  const char *diff[] = {"A - B => B - A", "A + 1 => A + 1.0", "max(A, B) => min(A, B)",
                        "reverse(A, [x]) => A"};
  for (size_t i = 0; i < sizeof diff / sizeof *diff; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "rule r for T in real {\n  rclass x\n  map s over x\n  tensor A, B : T[x: s]\n  %s\n}\n",
             diff[i]);
    r = unit_rule(text);
    ck_assert_msg(!ax_check_same_expr(r->syms, r->syms->lhs, r->syms->rhs), "%s", diff[i]);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rank");
  TCase *t = tcase_create("bounds");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, pad_low_combine_is_two);
  tcase_add_test(t, read_free_masks_count_each_fold);
  tcase_add_test(t, all_and_any_are_two);
  tcase_add_test(t, quantified_preconditions);
  tcase_add_test(t, four_clauses_four_folds);
  tcase_add_test(t, read_pairs);
  tcase_add_test(t, unused_let_fixes_nothing);
  tcase_add_test(t, reduce_of_reduce_is_one);
  tcase_add_test(t, same_expression);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return unit_run(suite());
}
