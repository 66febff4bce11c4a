/* check_brute.c — the brute-force oracle (verifier/brute.h): wrong rules are refuted by the
 * smallest instances there are (a slice that leaves an element free: s = [1]; a rule wrong
 * only at rank 2: found at rank 2), right ones are not, however their preconditions cut the
 * instances down; the search is exhaustive where it is small and the same for the same seed;
 * what the concrete domain cannot evaluate is SKIPPED; and --instance tells a counterexample
 * from an instance that breaks a precondition, agrees, or is no instance of the rule. */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/brute.h"
#include "unit.h"

static AxBruteResult run(const char *text, AxType t) {
  AxBruteOpts o;
  ax_brute_defaults(&o);
  o.time_limit_s = 0;   /* results must not depend on the machine */
  AxBruteResult r;
  ax_brute_rule(unit_rule(text), t, &o, &r);
  return r;
}

/* The counterexample's JSON field `key` (a cJSON owned by *root; free it). */
static const cJSON *field(const AxBruteResult *r, cJSON **root, const char *key) {
  *root = cJSON_Parse(r->cex_json);
  ck_assert_ptr_nonnull(*root);
  return cJSON_GetObjectItemCaseSensitive(*root, key);
}

static const char *SLICE_LEAVES_LAST =
    "rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
    "  require slice(A, end={x: s - 1}) > 0\n  select(A > 0, A, A * 0) => A\n}\n";

START_TEST(refutes_with_the_smallest_instance) {
  AxBruteResult r = run(SLICE_LEAVES_LAST, AX_INT);
  ck_assert_int_eq(r.status, AX_BRUTE_REFUTED);
  ck_assert_str_eq(r.failed, "the values differ at the access");
  ck_assert_ptr_nonnull(strstr(r.cex_text, "maps: s = [1]"));
  cJSON *root;
  const cJSON *reads = field(&r, &root, "reads");
  ck_assert_int_eq(cJSON_GetArraySize(reads), 1);   /* every point of A: one */
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(reads, 0), "value")->valuestring, "-1");
  ck_assert_str_eq(cJSON_GetObjectItem(root, "lhs")->valuestring, "0");
  cJSON_Delete(root);
  ax_brute_free(&r);
}
END_TEST

START_TEST(right_rules_hold) {
  /* the slice is the whole tensor; a positive pad keeps every element of A */
  const char *rules[] = {
      "rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
      "  require slice(A, start={x: 0}, end={x: s}) > 0\n  select(A > 0, A, A * 0) => A\n}\n",
      "rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
      "  require pad(A, 1, low={x: 2}, high={x: 1}) > 0\n  select(A > 0, A, A * 0) => A\n}\n",
      "rule r for T in num {\n  rclass x\n  map s over x\n  map l1, l2 over x nonneg\n"
      "  tensor Y : T[x: s]\n  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1 + l2})\n}\n"};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    for (AxType t = AX_INT; t <= AX_REAL; t++) {
      AxBruteResult r = run(rules[i], t);
      ck_assert_msg(r.status == AX_BRUTE_NONE, "rule %zu refuted: %s", i, r.cex_text ? r.cex_text : "");
      ck_assert_uint_gt(r.counted, 100);
      ck_assert_ptr_null(r.cex_json);
      ax_brute_free(&r);
    }
}
END_TEST

START_TEST(wrong_only_at_rank_2) {
  /* with some axis of size <= 1, a slice to 1 on every axis is the whole tensor at rank 1
   * but one element of a 1 x 2 tensor at rank 2 (tests/verify/preconditions) */
  AxBruteResult r = run("rule r for T in int {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
                        "  require exists x: s <= 1\n  require slice(A, end={x: 1}) > 0\n"
                        "  select(A > 0, A, A * 0) => A\n}\n", AX_INT);
  ck_assert_int_eq(r.status, AX_BRUTE_REFUTED);
  cJSON *root;
  ck_assert_int_eq((int)cJSON_GetObjectItem(field(&r, &root, "ranks"), "x")->valuedouble, 2);
  cJSON_Delete(root);
  ax_brute_free(&r);
}
END_TEST

START_TEST(exhaustive_when_small_and_deterministic) {
  const char *text = "rule r for T in bool {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
                     "  require forall x: s <= 1\n  reverse(A, [x]) => A\n}\n";
  AxBruteResult r = run(text, AX_BOOL);
  ck_assert_int_eq(r.status, AX_BRUTE_NONE);
  ck_assert(r.exhaustive);
  /* sizes 0 or 1 on each of 1..3 axes: 2 + 4 + 8 map instances, one of each rank with a
   * point (2 values), the others empty (1) */
  ck_assert_uint_eq(r.tried, (1 + 2) + (3 + 2) + (7 + 2));
  ax_brute_free(&r);
  AxBruteResult a = run(SLICE_LEAVES_LAST, AX_REAL), b = run(SLICE_LEAVES_LAST, AX_REAL);
  ck_assert_str_eq(a.cex_json, b.cex_json);
  ck_assert_uint_eq(a.tried, b.tried);
  ax_brute_free(&a);
  ax_brute_free(&b);
}
END_TEST

START_TEST(unevaluable_is_skipped) {
  /* exp is exact only at 0; a rule whose every instance needs exp elsewhere */
  AxBruteResult r = run("rule r for T in real {\n  tensor A : T\n  require A > 0\n  exp(A) => exp(A) + 0\n}\n",
                        AX_REAL);
  ck_assert_int_eq(r.status, AX_BRUTE_SKIPPED);
  ck_assert_ptr_nonnull(strstr(r.reason, "exp"));
  ax_brute_free(&r);
}
END_TEST

START_TEST(equalities_define_maps) {
  /* start == 1 and end == s fix two maps: the slice's validity is met at once */
  AxBruteResult r = run("rule r for T in int {\n  rclass x\n  map s, start, end over x\n  tensor A : T[x: s]\n"
                        "  require start == 1, end == s\n"
                        "  slice(A, start={x: start}, end={x: end}) => slice(A, start={x: 0}, end={x: end - start})\n}\n",
                        AX_INT);
  ck_assert_int_eq(r.status, AX_BRUTE_REFUTED);
  ax_brute_free(&r);
}
END_TEST

static AxBruteCheck instance(const char *json, char **why) {
  char *failed;
  AxBruteCheck c = ax_brute_instance(unit_rule(SLICE_LEAVES_LAST), AX_INT, json, why, &failed);
  free(failed);
  return c;
}

START_TEST(given_instances) {
  char *why;
  ck_assert_int_eq(instance("{\"failed\": \"the values differ at the access\", \"ranks\": {\"x\": 1}, "
                            "\"maps\": {\"s\": [1]}, \"access\": {\"x\": [0]}, "
                            "\"reads\": [{\"tensor\": \"A\", \"index\": [0], \"value\": \"-1\"}]}", &why),
                   AX_BRUTE_REPRODUCED);
  free(why);
  /* the same, a whole result line: the counterexample inside is taken */
  ck_assert_int_eq(instance("{\"verdict\": \"invalid\", \"counterexample\": {\"ranks\": {\"x\": 1}, "
                            "\"maps\": {\"s\": [1]}, \"reads\": [{\"tensor\": \"A\", \"index\": [0], "
                            "\"value\": \"-1\"}]}}", &why),
                   AX_BRUTE_REPRODUCED);
  free(why);
  /* A = [-1, 5]: the slice covers A[0] = -1, so the precondition fails there */
  ck_assert_int_eq(instance("{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [2]}, \"access\": {\"x\": [0]}, "
                            "\"reads\": [{\"tensor\": \"A\", \"index\": [0], \"value\": \"-1\"}, "
                            "{\"tensor\": \"A\", \"index\": [1], \"value\": \"5\"}]}", &why),
                   AX_BRUTE_NOT_CEX);
  ck_assert_ptr_nonnull(strstr(why, "does not hold at x = [0]"));
  free(why);
  /* unlisted points read as the fill of mode k: 0 for k = 0, so A = [0] agrees */
  ck_assert_int_eq(instance("{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"reads\": []}", &why),
                   AX_BRUTE_NOT_CEX);
  free(why);
  /* another access than the one that fails: a counterexample, elsewhere */
  ck_assert_int_eq(instance("{\"failed\": \"the values differ at the access\", \"ranks\": {\"x\": 1}, "
                            "\"maps\": {\"s\": [2]}, \"access\": {\"x\": [0]}, "
                            "\"reads\": [{\"tensor\": \"A\", \"index\": [0], \"value\": \"3\"}, "
                            "{\"tensor\": \"A\", \"index\": [1], \"value\": \"-1/1\"}]}", &why),
                   AX_BRUTE_ELSEWHERE);
  free(why);
  const char *bad[] = {"[", "{}", "{\"ranks\": {\"x\": 0}}", "{\"ranks\": {\"x\": 1}}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1, 2]}}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"reads\": [{\"tensor\": \"B\", \"index\": [0], \"value\": \"1\"}]}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"reads\": [{\"tensor\": \"A\", \"index\": [0, 0], \"value\": \"1\"}]}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"reads\": [{\"tensor\": \"A\", \"index\": [0], \"value\": \"1/2\"}]}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"reads\": [{\"tensor\": \"A\", \"index\": [0], \"value\": \"1/0\"}]}",
                       "{\"ranks\": {\"x\": 1}, \"maps\": {\"s\": [1]}, \"unlisted_points_t\": {\"A\": 7}}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(instance(bad[i], &why) == AX_BRUTE_BAD_INSTANCE, "accepted %s", bad[i]);
    ck_assert_ptr_nonnull(why);
    free(why);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("brute");
  TCase *t = tcase_create("brute");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, refutes_with_the_smallest_instance);
  tcase_add_test(t, right_rules_hold);
  tcase_add_test(t, wrong_only_at_rank_2);
  tcase_add_test(t, exhaustive_when_small_and_deterministic);
  tcase_add_test(t, unevaluable_is_skipped);
  tcase_add_test(t, equalities_define_maps);
  tcase_add_test(t, given_instances);
  suite_add_tcase(s, t);
  return unit_run(s);
}
