/* check_pairing.c — the replayed witness that a pairing is no bijection (verifier/pairing.h),
 * found by small instances without a solver: the three kinds on true rules with wrong
 * hints, none for the right hints, none where only zero summands are left unpaired;
 * domains with sqrt decided exactly where the root is rational; a point whose membership
 * has no exact value (sqrt 2) never makes an index "unreached"; a sum under sqrt
 * enumerated exactly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/bijection.h"
#include "verifier/pairing.h"
#include "unit.h"

static void setup(void) { unit_setup(); }

/* The witness search on rule `text` at rank 1 for every class, its pairing read from the
 * rule's hints (ax_bij_maps); the witness in *w (caller frees) when found. */
static bool search(const char *text, AxType type, AxPairingKind want, AxPairingWitness *w) {
  const AxBlock *r = unit_rule(text);
  int rank[4] = {1, 1, 1, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, type, rank);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  ck_assert(in.reduction);
  const AxTerm *h[16], *g[16];
  char why[256] = "", inferred[256] = "";
  ck_assert_msg(ax_bij_maps(&in, h, g, why, sizeof why, inferred, sizeof inferred), "%s", why);
  AxPairing p = {.nx = in.red[0].n, .ny = in.red[1].n, .x = in.red[0].vars, .y = in.red[1].vars,
                 .dx = in.red[0].dom, .dy = in.red[1].dom, .fx = in.red[0].body, .fy = in.red[1].body,
                 .h = h};
  AxWatch watch;
  ax_cex_watch(&in, in.query, &watch);
  bool found = ax_pairing_search(&in, &p, want, &watch, AX_PAIRING_SAMPLES, w);
  ax_instance_free(&in);
  return found;
}

static const char *REVERSED =
    "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n  index i, k over x\n"
    "  tensor X : T[x: s, y: t]\n  hint %s\n"
    "  reduce(X, {x: i}) => reduce(reverse(X, [x]), {x: k})\n}\n";

/* The reflection pairs the sum of a reversal one to one: no witness at any small instance.
 * Off by one it leaves the domain (i = 0 pairs with k = s); sent to one index it collides. */
START_TEST(kinds) {
  char text[1024];
  AxPairingWitness w;
  snprintf(text, sizeof text, REVERSED, "k == s - 1 - i, i == s - 1 - k");
  ck_assert(!search(text, AX_INT, AX_PAIRING_COLLISION, &w));
  ck_assert_ptr_null(w.text);

  snprintf(text, sizeof text, REVERSED, "k == s - i, i == s - k");
  ck_assert(search(text, AX_INT, AX_PAIRING_OUTSIDE, &w));
  ck_assert_int_eq(w.kind, AX_PAIRING_OUTSIDE);
  ck_assert_str_eq(w.what, "the hint maps a valid left-hand index outside the right-hand domain");
  ck_assert_msg(strstr(w.summary, " pairs with k.0 = ") && strstr(w.summary, ", outside the right-hand domain"),
                "%s", w.summary);
  ck_assert_ptr_nonnull(strstr(w.json, "\"property\":\"well-defined\""));
  ck_assert_ptr_nonnull(strstr(w.json, "\"right\":{\"index\":{\"k.0\":"));
  ck_assert_ptr_nonnull(strstr(w.json, "\"in_domain\":false"));
  ck_assert_msg(strncmp(w.text, "hint witness (replayed): the hint maps a valid left-hand index outside", 70) == 0,
                "%s", w.text);
  ax_pairing_witness_free(&w);

  snprintf(text, sizeof text, REVERSED, "k == 0, i == k");
  ck_assert(search(text, AX_REAL, AX_PAIRING_COLLISION, &w));
  ck_assert_int_eq(w.kind, AX_PAIRING_COLLISION);
  ck_assert_msg(strstr(w.summary, " both pair with k.0 = 0"), "%s", w.summary);
  ck_assert_ptr_nonnull(strstr(w.json, "\"property\":\"injective\""));
  ax_pairing_witness_free(&w);
}
END_TEST

/* Twice a sum against the sum of the concatenation with itself, paired by the identity:
 * the second copy's indices (k >= a) are the image of no left-hand index, and their
 * summands are not zero. The witness names one, with its summand. */
START_TEST(unreached) {
  const char *text =
      "rule r for T in num {\n  rclass c, y\n  map a over c\n  map t over y\n  index i, k over c\n"
      "  tensor X : T[c: a, y: t]\n  hint k == i, i == k\n"
      "  reduce(X * 2, {c: i}) => reduce(concat(X, X, axis=c), {c: k})\n}\n";
  AxPairingWitness w;
  ck_assert(search(text, AX_INT, AX_PAIRING_UNREACHED, &w));
  ck_assert_int_eq(w.kind, AX_PAIRING_UNREACHED);
  ck_assert_msg(strstr(w.summary, "is paired with no left-hand index"), "%s", w.summary);
  ck_assert_ptr_nonnull(strstr(w.json, "\"property\":\"surjective\""));
  ck_assert_ptr_nonnull(strstr(w.json, "\"left\":[]"));
  ck_assert_ptr_nonnull(strstr(w.json, "\"left_domain_points\":"));
  ck_assert_ptr_nonnull(strstr(w.json, "\"summand\":\""));
  ck_assert_ptr_null(strstr(w.json, "\"summand\":\"0\""));
  ax_pairing_witness_free(&w);
}
END_TEST

/* A padding by a scalar c = 0 adds a summand the sum does not see as zero: the identity
 * reaches every index but the padding's (k = s), whose summand is 0 and needs no partner.
 * No witness: the hint pairs every summand that counts. */
START_TEST(zero_summands) {
  const char *text =
      "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n  index i, k over x\n"
      "  tensor X : T[x: s, y: t]\n  scalar c : T\n  require c == 0\n  hint k == i, i == k\n"
      "  reduce(X, {x: i}) => reduce(pad(X, c, high={x: 1}), {x: k})\n}\n";
  AxPairingWitness w;
  ck_assert(!search(text, AX_INT, AX_PAIRING_UNREACHED, &w));
  ck_assert_ptr_null(w.text);
}
END_TEST

static const char *ROOTS =
    "rule r for T in real {\n  rclass x\n  map s over x\n  index i, k over x\n  tensor X, A : T[x: s]\n"
    "  hint %s\n"
    "  reduce(select(%s > 1, A, 0), {x: i}) => reduce(reverse(select(%s > 1, A, 0), [x]), {x: k})\n}\n";

/* sqrt(X * X) is exact at every point (the root of a square), so the domains are decided:
 * the reflection is a bijection at every instance, and off by one the witness is found. */
START_TEST(exact_roots) {
  char text[1024];
  AxPairingWitness w;
  snprintf(text, sizeof text, ROOTS, "k == s - 1 - i, i == s - 1 - k", "sqrt(X * X)", "abs(X)");
  ck_assert(!search(text, AX_REAL, AX_PAIRING_OUTSIDE, &w));
  snprintf(text, sizeof text, ROOTS, "k == s - i, i == s - k", "sqrt(X * X)", "abs(X)");
  ck_assert(search(text, AX_REAL, AX_PAIRING_OUTSIDE, &w));
  ck_assert_int_eq(w.kind, AX_PAIRING_OUTSIDE);
  ax_pairing_witness_free(&w);
}
END_TEST

/* sqrt(X) > 1 has no exact value at X = 2 (sqrt 2 is irrational): such a point of D_X is
 * undecided, so an index of D_Y (X > 1 there) that only it could reach is no witness of
 * "unreached". The samples' fills hold 2 and other non-squares: no witness is found. */
START_TEST(open_values) {
  const char *text =
      "rule r for T in real {\n  rclass x\n  map s over x\n  index i, k over x\n  tensor X, A : T[x: s]\n"
      "  hint k == i, i == k\n"
      "  reduce(select(sqrt(X) > 1, A, 0), {x: i}) => reduce(select(X > 1, A, 0), {x: k})\n}\n";
  AxPairingWitness w;
  ck_assert(!search(text, AX_REAL, AX_PAIRING_UNREACHED, &w));
}
END_TEST

/* A sum under sqrt in the domain, enumerated exactly: the two sides' sums are the same
 * value written two ways, so the identity is a bijection at every instance; shifted by one
 * it leaves the domain. */
START_TEST(closed_sums) {
  const char *text =
      "rule r for T in real {\n  rclass x, y\n  map s over x\n  map t over y\n  index i, k over x\n"
      "  tensor X : T[y: t]\n  tensor A : T[x: s]\n  require t >= 1\n  hint %s\n"
      "  reduce(select(sqrt(mean(X * X, axis=y)) > 1, A, 0), {x: i}) =>\n"
      "    reduce(select(sqrt(mean((X + X) * X, axis=y) / 2) > 1, A, 0), {x: k})\n}\n";
  char buf[2048];
  AxPairingWitness w;
  snprintf(buf, sizeof buf, text, "k == i, i == k");
  ck_assert(!search(buf, AX_REAL, AX_PAIRING_OUTSIDE, &w));
  snprintf(buf, sizeof buf, text, "k == i + 1, i == k - 1");
  ck_assert(search(buf, AX_REAL, AX_PAIRING_OUTSIDE, &w));
  ck_assert_int_eq(w.kind, AX_PAIRING_OUTSIDE);
  ax_pairing_witness_free(&w);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pairing");
  TCase *t = tcase_create("pairing");
  tcase_add_checked_fixture(t, setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, kinds);
  tcase_add_test(t, unreached);
  tcase_add_test(t, zero_summands);
  tcase_add_test(t, exact_roots);
  tcase_add_test(t, open_values);
  tcase_add_test(t, closed_sums);
  suite_add_tcase(s, t);
  return unit_run(s);
}
