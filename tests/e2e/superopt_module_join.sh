#!/usr/bin/env bash
# superopt --output-dir: the module's graph when the regions' graphs joined are not established
# (cli/cmd_superopt.c join_module, docs/superopt.md §13), on tests/superopt/partition_layout.axl
# (three regions; r01 and r02 fuse):
#   * a region's graph the joined check refuses (test hook AXLE_TEST_JOINED_REFUSE=r02,
#     axle-test only): the others are kept, r02 is left naive with its reason in report.json,
#     r02.mug is still written, module.mug (r01's kernels, r02's operators) passes axle equiv
#     against module.axl, exit 0; axle itself ignores the hook;
#   * every region refused: module.mug is the program itself, exit 1;
#   * --time-limit bounds the joined check: at a tiny limit the check is cut by the deadline
#     (module_check_status 4, each region's reason says so), module.mug is the program itself.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
P=tests/superopt/partition_layout.axl
args=(superopt --no-gate --progress never --time-limit 3 "$P")

AXLE_TEST_JOINED_REFUSE=r02 "$AXLE_TEST_BIN" "${args[@]}" --output-dir "$tmp/r" > "$tmp/out" 2> "$tmp/err"
check "refused r02: exit 0" test $? -eq 0
R=$tmp/r/report.json
check "refused r02: the first joined check refused" jqt '.module_check_status == 1 and .status == 0' "$R"
check "refused r02: r01 in the module, r02 left naive" \
  jqt '([.regions[] | select(.name == "r01")][0].in_module == true) and ([.regions[] | select(.name == "r02")][0] | .in_module == false and .verdict == "equivalent" and (.module_reason | test("refused")))' "$R"
check "refused r02: one region in module.mug" jqt '.regions_in_module == 1 and (.module_check == "cut" or .module_check == "whole")' "$R"
check "refused r02: r02.mug still written" test -s "$tmp/r/r02.mug"
check "refused r02: module.mug holds r01's kernel" has "$tmp/r/module.mug" "^  kernel r01__"
check "refused r02: ... and not r02's" bash -c "! grep -q 'r02__' '$tmp/r/module.mug'"
check "refused r02: the warning names r02" has "$tmp/err" "region r02 left naive in .*: the joined check refused the module with it"
check "refused r02: the table says so" has "$tmp/out" "^r02 .*equivalent; left naive in the module: the joined check refused"
"$AXLE" equiv --seed 9 "$tmp/r/module.axl" "$tmp/r/module.mug" > "$tmp/eq" 2>&1
check "refused r02: module.mug is equivalent to module.axl" test $? -eq 0
check "refused r02: the module is still faster than naive" jqt '.found_time_us < .naive_time_us' "$R"

AXLE_TEST_JOINED_REFUSE=r02 "$AXLE" "${args[@]}" --output-dir "$tmp/a" > /dev/null 2>&1
check "axle ignores the hook: exit 0" test $? -eq 0
check "axle ignores the hook: r02 in the module" \
  jqt '.module_check_status == 0 and ([.regions[] | select(.name == "r02")][0].in_module == true)' "$tmp/a/report.json"

# a module of one region, refused: the program itself
cat > "$tmp/one.axl" <<'AXL'
program one {
  input X : f32[64, 64]
  input W : f32[64, 64]
  let A = matmul(X, W)
  output B = exp(A) * 2
}
AXL
AXLE_TEST_JOINED_REFUSE=r01 "$AXLE_TEST_BIN" superopt --no-gate --progress never --time-limit 3 "$tmp/one.axl" \
  --output-dir "$tmp/o" > "$tmp/out" 2> /dev/null
check "refused r01 alone: exit 1" test $? -eq 1
check "refused r01 alone: the program itself" \
  jqt '.module_check == "naive" and .regions_in_module == 0 and .module_check_status == 1 and .status == 1 and .found_time_us == .naive_time_us' "$tmp/o/report.json"
check "refused r01 alone: r01.mug written" test -s "$tmp/o/r01.mug"
check "refused r01 alone: module.mug has no kernel" bash -c "! grep -q kernel '$tmp/o/module.mug'"
"$AXLE" equiv --seed 9 "$tmp/one.axl" "$tmp/o/module.mug" > /dev/null 2>&1
check "refused r01 alone: module.mug is the program" test $? -eq 0

# the joined check under a tiny --time-limit: cut by the deadline (regions get at least
# 0.05 s each, so the deadline has passed when it starts), never "equivalent"
"$AXLE" superopt --no-gate --progress never --time-limit 0.001 "$P" --output-dir "$tmp/t" > "$tmp/out" 2> "$tmp/err"
check "tiny limit: exit 1" test $? -eq 1
check "tiny limit: the joined check was cut by the deadline" \
  jqt '.module_check_status == 4 and .module_check == "naive" and .regions_in_module == 0' "$tmp/t/report.json"
check "tiny limit: every region with a graph says why it is not in the module" \
  jqt '[.regions[] | select(.verdict == "equivalent")] | length >= 1 and all(.in_module == false and .module_reason == "the joined check did not finish within the time limit")' "$tmp/t/report.json"
check "tiny limit: the summary says so" has "$tmp/out" "^module check: the regions' graphs joined were not checked within the time limit"

echo "superopt_module_join: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
