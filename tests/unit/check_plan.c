/* check_plan.c — predicted costs and shards (run/plan.h): "K/N" read strictly; the split is
 * longest-first greedy, deterministic, with every task in exactly one shard; the cost of a
 * rule grows with its size and its rank classes, and IEEE mode weighs more. */
#include "unit.h"

#include "run/plan.h"

START_TEST(test_parse_shard) {
  int k = -1, n = -1;
  ck_assert(ax_plan_parse_shard("1/1", &k, &n) && k == 1 && n == 1);
  ck_assert(ax_plan_parse_shard("3/4", &k, &n) && k == 3 && n == 4);
  ck_assert(ax_plan_parse_shard("4096/4096", &k, &n) && k == 4096 && n == 4096);
  static const char *const bad[] = {"0/3", "4/3", "x", "1/0", "", "/", "1/", "/3", "1/3/5",
                                    "-1/3", "+1/3", " 1/3", "1/3 ", "1/4097", "1.0/3", "1,3"};
  for (size_t i = 0; i < AX_COUNTOF(bad); i++) {
    k = n = 7;
    ck_assert_msg(!ax_plan_parse_shard(bad[i], &k, &n), "accepted '%s'", bad[i]);
    ck_assert(k == 7 && n == 7);   /* untouched on a refusal */
  }
}
END_TEST

START_TEST(test_order) {
  const uint64_t cost[] = {3, 5, 3, 9, 1};
  size_t order[5];
  ax_plan_order(cost, 5, order);
  const size_t want[] = {3, 1, 0, 2, 4};   /* descending, ties by index */
  for (int i = 0; i < 5; i++) ck_assert_uint_eq(order[i], want[i]);
}
END_TEST

START_TEST(test_shard_greedy) {
  /* 5, 4 open the two shards; each 3 then goes to the lighter one: 4+3, 5+3, 7+3 */
  const uint64_t cost[] = {5, 4, 3, 3, 3};
  int of[5];
  ax_plan_shard(cost, 5, 2, of);
  const int want[] = {0, 1, 1, 0, 1};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(of[i], want[i]);
  /* equal costs: dealt round-robin from shard 0 */
  const uint64_t ones[] = {1, 1, 1, 1, 1, 1, 1};
  int r[7];
  ax_plan_shard(ones, 7, 3, r);
  for (int i = 0; i < 7; i++) ck_assert_int_eq(r[i], i % 3);
}
END_TEST

START_TEST(test_shard_cover) {
  /* every task in exactly one shard, the same split every time, the loads balanced within
   * the largest task (longest-first greedy's bound) */
  uint64_t cost[200];
  uint64_t x = 12345, big = 0;
  for (size_t i = 0; i < 200; i++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    cost[i] = 1 + (x >> 40) % 1000;
    if (cost[i] > big) big = cost[i];
  }
  for (int n = 1; n <= 9; n++) {
    int a[200], b[200];
    uint64_t load[9] = {0};
    ax_plan_shard(cost, 200, n, a);
    ax_plan_shard(cost, 200, n, b);
    for (size_t i = 0; i < 200; i++) {
      ck_assert(a[i] >= 0 && a[i] < n);
      ck_assert_int_eq(a[i], b[i]);
      load[a[i]] += cost[i];
    }
    uint64_t lo = load[0], hi = load[0];
    for (int s = 1; s < n; s++) {
      if (load[s] < lo) lo = load[s];
      if (load[s] > hi) hi = load[s];
    }
    ck_assert_msg(hi - lo <= big, "%d shards: loads %llu..%llu", n, (unsigned long long)lo,
                  (unsigned long long)hi);
  }
  int none[1];
  ax_plan_shard(cost, 0, 3, none);   /* no task: nothing to do */
}
END_TEST

START_TEST(test_cost) {
  const AxBlock *small = unit_rule("rule r for T in num {\n  rclass x\n  map s over x\n"
                                   "  tensor A : T[x: s]\n  neg(neg(A)) => A\n}\n");
  const AxBlock *bigger = unit_rule("rule r for T in num {\n  rclass x\n  map s over x\n"
                                    "  tensor A : T[x: s]\n  neg(neg(neg(neg(A)))) => A\n}\n");
  const AxBlock *two = unit_rule("rule r for T in num {\n  rclass x, y\n  map s over x\n"
                                 "  map t over y\n  tensor A : T[x: s, y: t]\n"
                                 "  neg(neg(A)) => A\n}\n");
  uint64_t c = ax_plan_cost(small, false);
  ck_assert_uint_ge(c, 1);
  ck_assert_uint_eq(ax_plan_cost(small, false), c);   /* a function of the rule alone */
  ck_assert_uint_gt(ax_plan_cost(bigger, false), c);
  ck_assert_uint_gt(ax_plan_cost(two, false), c);
  ck_assert_uint_eq(ax_plan_cost(small, true), 4 * c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("plan");
  TCase *t = tcase_create("plan");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, test_parse_shard);
  tcase_add_test(t, test_order);
  tcase_add_test(t, test_shard_greedy);
  tcase_add_test(t, test_shard_cover);
  tcase_add_test(t, test_cost);
  suite_add_tcase(s, t);
  return unit_run(s);
}
