/* check_bijection.c — equality of reduction elements through a checked bijection
 * (verifier/bijection.h), with z3: pairings that must be accepted (inferred and written),
 * hints that are no bijection (INVALID-HINT with the failing property named), right
 * pairings of wrong rules (INVALID with a counterexample), a pairing that fails on a right
 * rule (UNKNOWN, never INVALID), empty and one-element domains, a class at rank 0, and a
 * property loop over shifted and reflected hints whose verdict is known in advance. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/bijection.h"
#include "unit.h"

static AxVerifyOpts O;

static void setup(void) {
  unit_setup();
  O = (AxVerifyOpts){.solver = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000}};
}

/* The verdict of the bijection proof for rule at the given ranks; the result in *out
 * (caller frees). */
static AxVerdict prove(const char *text, const int *rank, AxResult *out) {
  const AxBlock *r = unit_rule(text);
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  ck_assert(in.reduction);
  memset(out, 0, sizeof *out);
  AxVerdict v = ax_bij_prove(&in, &O, "x=1", out);
  ax_instance_free(&in);
  return v;
}

static bool starts(const char *s, const char *prefix) {
  return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *REDUCE_REDUCE =
    "rule r for T in num {\n  rclass x, y, z\n  map sx over x\n  map sy over y\n  map sz over z\n"
    "  tensor X : T[x: sx, y: sy, z: sz]\n"
    "  reduce(reduce(X, [x]), [y]) => reduce(X, [x, y])\n}\n";

/* The obvious pairing (the same axes in order) is inferred, reported in the rule's names,
 * and proves the rule at every rank vector tried. */
START_TEST(inferred_pairing) {
  int ranks[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}, {3, 2, 1}};
  for (size_t i = 0; i < 4; i++) {
    AxResult res;
    AxVerdict v = prove(REDUCE_REDUCE, ranks[i], &res);
    ck_assert_msg(v == AX_VERIFIED, "ranks %zu: %s", i, res.reason);
    ck_assert_ptr_nonnull(res.inferred_hint);
    if (i == 0) ck_assert_str_eq(res.inferred_hint, "x == x, y == y");
    /* well defined, injective, surjective and the summands asked at once (linear indices) */
    ck_assert_int_eq(res.queries, 1);
    ax_result_free(&res);
  }
  /* ax_bij_maps: every RHS variable is an LHS one and back */
  const AxBlock *r = unit_rule(REDUCE_REDUCE);
  int rank[3] = {2, 1, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  const AxTerm *h[8], *g[8];
  char why[256] = "", inferred[256] = "";
  ck_assert_uint_eq(in.red[0].n, 3);
  ck_assert_uint_eq(in.red[1].n, 3);
  ck_assert(ax_bij_maps(&in, h, g, why, sizeof why, inferred, sizeof inferred));
  for (size_t i = 0; i < 3; i++) {
    bool found = false;
    for (size_t j = 0; j < 3; j++) found |= h[i] == in.red[0].vars[j];
    ck_assert(found);
    found = false;
    for (size_t j = 0; j < 3; j++) found |= g[i] == in.red[1].vars[j];
    ck_assert(found);
    /* g undoes h */
    for (size_t j = 0; j < 3; j++)
      if (h[i] == in.red[0].vars[j]) ck_assert_ptr_eq(g[j], in.red[1].vars[i]);
  }
  ck_assert_ptr_nonnull(strstr(inferred, " == "));
  ax_instance_free(&in);
}
END_TEST

static const char *CONCAT_HINTED =
    "rule r for T in num {\n"
    "  rclass c, y\n  map a, b over c\n  map one over c = 1\n  map t over y\n"
    "  index i, j, r, k over c\n"
    "  tensor X : T[c: a, y: t]\n  tensor Y : T[c: b, y: t]\n"
    "  hint k == (if r == 0 then i else j + %s)\n"
    "  hint r == (if k < a then 0 else 1), i == (if k < a then k else 0),\n"
    "    j == (if k < a then 0 else k - a)\n"
    "  reduce(concat(broadcast(reduce(X, {c: i}), {c: one}), broadcast(reduce(Y, {c: j}), {c: one}),\n"
    "                axis=c), {c: r}) => reduce(concat(X, Y, axis=c), {c: k})\n}\n";

/* A written hint that is a bijection proves the rule and is not reported as inferred;
 * the same hint with Y's part at the wrong offset is INVALID-HINT, with the witness
 * replayed: a left-hand index of Y's part paired with k = j + b, outside the concatenation
 * (k >= a + b once j >= a). */
START_TEST(written_hint) {
  char text[2048];
  int rank[2] = {1, 2};
  AxResult res;
  snprintf(text, sizeof text, CONCAT_HINTED, "a");
  ck_assert_int_eq(prove(text, rank, &res), AX_VERIFIED);
  ck_assert_ptr_null(res.inferred_hint);
  ax_result_free(&res);
  snprintf(text, sizeof text, CONCAT_HINTED, "b");
  ck_assert_int_eq(prove(text, rank, &res), AX_INVALID_HINT);
  ck_assert_msg(starts(res.reason, "at rank x=1: the hint maps a valid left-hand index outside the right-hand "
                                   "domain: r.0 = 1, "), "%s", res.reason);
  ck_assert_msg(strstr(res.reason, "outside the right-hand domain (replayed)"), "%s", res.reason);
  ck_assert_ptr_nonnull(res.cex_text);
  ck_assert_msg(starts(res.cex_text, "hint witness (replayed): the hint maps a valid left-hand index outside"),
                "%s", res.cex_text);
  ck_assert_msg(strstr(res.cex_text, ": not in the right-hand domain"), "%s", res.cex_text);
  ck_assert_ptr_nonnull(strstr(res.cex_json, "\"property\":\"well-defined\""));
  ck_assert_ptr_nonnull(strstr(res.cex_json, "\"in_domain\":false"));
  ax_result_free(&res);
}
END_TEST

static const char *PRODUCT =
    "rule r for T in num {\n"
    "  rclass x, r\n  axes r1, r2 : r\n  map s over x\n  map t over r\n"
    "  index i, k over r\n  index j, l over r\n"
    "  tensor X : T[x: s, r1: t]\n  tensor Y : T[x: s, r2: t]\n"
    "  hint %s\n"
    "  reduce(X, {r1: i}) * reduce(Y, {r2: j}) =>\n"
    "    reduce(broadcast(X, {r2: t}) %s broadcast(Y, {r1: t}), {r1: k, r2: l})\n}\n";

/* The product of two sums as one sum over pairs: the right hint proves it; a hint sending
 * every j to one l is not injective; a right hint on a wrong rule gives a replayed
 * counterexample (INVALID, not INVALID-HINT). */
START_TEST(product_of_sums) {
  char text[2048];
  int rank[2] = {1, 1};
  AxResult res;
  snprintf(text, sizeof text, PRODUCT, "k == i, l == j, i == k, j == l", "*");
  ck_assert_msg(prove(text, rank, &res) == AX_VERIFIED, "%s", res.reason);
  ax_result_free(&res);
  /* the written h is not injective (j is inferred only for g, the inverse): the witness
   * has two left-hand indices that differ in j and pair with one (k, l) */
  snprintf(text, sizeof text, PRODUCT, "k == i, l == i", "*");
  ck_assert_int_eq(prove(text, rank, &res), AX_INVALID_HINT);
  ck_assert_msg(starts(res.reason, "at rank x=1: the hint maps two left-hand indices to one "
                                   "right-hand index (not injective): i.0 = "), "%s", res.reason);
  ck_assert_msg(strstr(res.reason, " both pair with k.0 = "), "%s", res.reason);
  ck_assert_str_eq(res.inferred_hint, "j == l");
  ck_assert_ptr_nonnull(res.cex_json);
  ck_assert_ptr_nonnull(strstr(res.cex_json, "\"property\":\"injective\""));
  ax_result_free(&res);
  snprintf(text, sizeof text, PRODUCT, "k == i, l == j, i == k, j == l", "+");
  ck_assert_int_eq(prove(text, rank, &res), AX_INVALID);
  ck_assert_ptr_nonnull(res.cex_text);
  ck_assert_ptr_nonnull(res.cex_json);
  ck_assert_msg(starts(res.reason, "at rank x=1: "), "%s", res.reason);
  ax_result_free(&res);
}
END_TEST

/* Rank 0: a class with no named axis sums over one point (the empty index). */
START_TEST(rank_zero) {
  int rank[3] = {0, 1, 1};
  AxResult res;
  AxVerdict v = prove(REDUCE_REDUCE, rank, &res);
  ck_assert_msg(v == AX_VERIFIED, "%d: %s", v, res.reason);
  ax_result_free(&res);
}
END_TEST

static const char *REVERSED =
    "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
    "  index i, k over x\n"
    "  tensor X : T[x: s, y: t]\n%s%s"
    "  reduce(X, {x: i}) => reduce(reverse(X, [x]), {x: k})\n}\n";

/* A sum of a reversal is the sum: true. With the identity pairing inferred the summands
 * differ, yet the replayed sums agree: UNKNOWN, never INVALID. With one element per axis
 * the identity is the reflection, and the rule is proved; with the reflection written
 * as the hint it is proved at any size. */
START_TEST(right_rule_wrong_pairing) {
  char text[2048];
  AxResult res;
  for (int k = 1; k <= 2; k++) {
    int rank[2] = {k, 1};
    snprintf(text, sizeof text, REVERSED, "", "");
    AxVerdict v = prove(text, rank, &res);
    ck_assert_msg(v == AX_UNKNOWN, "rank %d: verdict %d: %s", k, v, res.reason);
    ck_assert_ptr_null(res.cex_text);
    ax_result_free(&res);
    /* small sizes: the model's sums are replayed, and agree */
    snprintf(text, sizeof text, REVERSED, "  require s <= 3\n", "");
    v = prove(text, rank, &res);
    ck_assert_msg(v == AX_UNKNOWN, "rank %d: verdict %d: %s", k, v, res.reason);
    ck_assert_ptr_null(res.cex_text);
    ck_assert_msg(strstr(res.reason, "the replayed sums agree"), "%s", res.reason);
    ax_result_free(&res);
    snprintf(text, sizeof text, REVERSED, "  require s == 1\n", "");
    v = prove(text, rank, &res);
    ck_assert_msg(v == AX_VERIFIED, "rank %d: %s", k, res.reason);
    ax_result_free(&res);
    snprintf(text, sizeof text, REVERSED, "", "  hint k == s - 1 - i, i == s - 1 - k\n");
    v = prove(text, rank, &res);
    ck_assert_msg(v == AX_VERIFIED, "rank %d: %s", k, res.reason);
    ax_result_free(&res);
  }
}
END_TEST

static const char *EMPTY =
    "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
    "  tensor X : T[x: s, y: t]\n  tensor Z : T[y: t]\n"
    "  require %s\n"
    "  reduce(X, [x]) => %s\n}\n";

/* A sum over a domain that is empty wherever the rule applies is 0: equal to 0 * Z, not
 * to Z (a counterexample that replays). With a nonempty domain neither holds. */
START_TEST(empty_domain) {
  char text[1024];
  AxResult res;
  for (int k = 1; k <= 2; k++) {
    int rank[2] = {k, 1};
    snprintf(text, sizeof text, EMPTY, "s == 0", "Z * 0");
    ck_assert_int_eq(prove(text, rank, &res), AX_VERIFIED);
    ck_assert_int_eq(res.queries, 2);   /* "the domain is empty" and "the value is 0" */
    ax_result_free(&res);
    snprintf(text, sizeof text, EMPTY, "s == 0", "Z");
    ck_assert_int_eq(prove(text, rank, &res), AX_INVALID);
    ck_assert_ptr_nonnull(res.cex_text);
    ax_result_free(&res);
    snprintf(text, sizeof text, EMPTY, "s == 1", "Z * 0");
    AxVerdict v = prove(text, rank, &res);
    ck_assert_msg(v == AX_INVALID, "rank %d: %d %s", k, v, res.reason);
    ax_result_free(&res);
  }
}
END_TEST

/* Summations over two different classes: no hint, no shared axis, nothing to read a
 * pairing from — ax_bij_maps says which index is left over; the rule (ΣX against ΣZ) is
 * still refuted by a replayed counterexample, without a pairing. */
START_TEST(unpaired_index) {
  const AxBlock *r = unit_rule("rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
                               "  index i over x\n  index j over y\n"
                               "  tensor X : T[x: s]\n  tensor Z : T[y: t]\n"
                               "  reduce(X, {x: i}) => reduce(Z, {y: j})\n}\n");
  int rank[2] = {1, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  const AxTerm *h[4], *g[4];
  char why[256] = "", inferred[256] = "";
  ck_assert(!ax_bij_maps(&in, h, g, why, sizeof why, inferred, sizeof inferred));
  ck_assert_msg(starts(why, "no hint gives the summation index 'j"), "%s", why);
  AxResult res = {0};
  AxVerdict v = ax_bij_prove(&in, &O, "x=1, y=1", &res);
  ck_assert_msg(v == AX_INVALID, "%d: %s", v, res.reason);
  ck_assert_ptr_nonnull(res.cex_text);
  ck_assert_msg(starts(res.reason, "at rank x=1, y=1: "), "%s", res.reason);
  ax_result_free(&res);
  ax_instance_free(&in);
}
END_TEST

static const char *PLAIN_PARTS =
    "rule r for T in num {\n  rclass x, z\n  map s over x\n  map m over z\n"
    "  tensor A, B : T[x: s]\n  tensor X : T[x: s, z: m]\n  %s => %s\n}\n";

/* Plain values added to a sum in different orders (semantics/symbolic.c Union): the plain
 * parts regroup into one, so the two sides are unions of one shape and the inferred pairing
 * proves them; each summation index is paired with the other side's outright (bijection.c
 * pinned_on), never through the tag's path condition. Dropping a plain term is INVALID. */
START_TEST(plain_parts) {
  const char *cases[][2] = {
      {"B + (A + reduce(X, [z]))", "(B + A) + reduce(X, [z])"},
      {"A + reduce(X, [z])", "reduce(X, [z]) + A"},
      {"(A + reduce(X, [z])) + B", "reduce(X, [z]) + (A + B)"},
  };
  int ranks[][2] = {{1, 1}, {1, 2}, {2, 3}};
  char text[1024];
  for (size_t c = 0; c < 3; c++)
    for (size_t i = 0; i < 3; i++) {
      snprintf(text, sizeof text, PLAIN_PARTS, cases[c][0], cases[c][1]);
      AxResult res;
      AxVerdict v = prove(text, ranks[i], &res);
      ck_assert_msg(v == AX_VERIFIED, "case %zu ranks %zu: %s", c, i, res.reason);
      ck_assert_ptr_nonnull(res.inferred_hint);
      /* every entry "z.k#a == e" of the inferred pairing has e a bare variable z.k#b */
      char *copy = strdup(res.inferred_hint), *save = NULL;
      int zs = 0;
      for (char *entry = strtok_r(copy, ",", &save); entry; entry = strtok_r(NULL, ",", &save)) {
        while (*entry == ' ') entry++;
        if (strncmp(entry, "z.", 2) != 0) continue;
        const char *e = strstr(entry, " == ");
        ck_assert_ptr_nonnull(e);
        ck_assert_msg(strncmp(e + 4, "z.", 2) == 0 && !strpbrk(e + 4, " ()"), "case %zu: %s", c,
                      res.inferred_hint);
        zs++;
      }
      ck_assert_int_eq(zs, ranks[i][1]);   /* one per named axis of z */
      free(copy);
      ax_result_free(&res);
    }
  snprintf(text, sizeof text, PLAIN_PARTS, "B + (A + reduce(X, [z]))", "A + reduce(X, [z])");
  AxResult res;
  int rank[2] = {1, 1};
  AxVerdict v = prove(text, rank, &res);
  ck_assert_msg(v == AX_INVALID, "%d: %s", v, res.reason);
  ck_assert_ptr_nonnull(res.cex_text);
  ax_result_free(&res);
}
END_TEST

/* Property: the shifted identity i ↦ i + c and the shifted reflection i ↦ s - 1 - i + c
 * are bijections of [0, s) onto itself exactly when c = 0; the prover's verdict must be
 * VERIFIED then and INVALID-HINT otherwise, at ranks 1 and 2. */
START_TEST(shifted_hints) {
  char text[2048], hint[256];
  for (int refl = 0; refl < 2; refl++)
    for (int c = -1; c <= 1; c++)
      for (int k = 1; k <= 2; k++) {
        int rank[2] = {k, 1};
        if (refl)
          snprintf(hint, sizeof hint, "  hint k == s - 1 - i + (%d), i == s - 1 - k + (%d)\n", c, c);
        else
          snprintf(hint, sizeof hint, "  hint k == i + (%d), i == k - (%d)\n", c, c);
        snprintf(text, sizeof text,
                 "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
                 "  index i, k over x\n  tensor X : T[x: s, y: t]\n%s"
                 "  reduce(X, {x: i}) => reduce(%s, {x: k})\n}\n",
                 hint, refl ? "reverse(X, [x])" : "X");
        AxResult res;
        AxVerdict v = prove(text, rank, &res);
        AxVerdict want = c == 0 ? AX_VERIFIED : AX_INVALID_HINT;
        ck_assert_msg(v == want, "reflect %d, c %d, rank %d: verdict %d, %s", refl, c, k, v,
                      res.reason ? res.reason : "");
        ax_result_free(&res);
      }
}
END_TEST

int main(void) {
  Suite *s = suite_create("bijection");
  TCase *t = tcase_create("bijection");
  tcase_add_checked_fixture(t, setup, unit_teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, inferred_pairing);
  tcase_add_test(t, rank_zero);
  tcase_add_test(t, written_hint);
  tcase_add_test(t, product_of_sums);
  tcase_add_test(t, right_rule_wrong_pairing);
  tcase_add_test(t, empty_domain);
  tcase_add_test(t, unpaired_index);
  tcase_add_test(t, plain_parts);
  suite_add_tcase(s, t);
  TCase *p = tcase_create("property");
  tcase_add_checked_fixture(p, setup, unit_teardown);
  tcase_set_timeout(p, 300);
  tcase_add_test(p, shifted_hints);
  suite_add_tcase(s, p);
  return unit_run(s);
}
