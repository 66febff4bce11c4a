#!/usr/bin/env bash
# Dead code (superopt/ir/dead.h): statements that reach no output are dropped before anything
# checks, searches or rewrites a program, with a note naming each (its line), so a max or a
# comparison nobody reads no longer makes a verb refuse the program (the finite field has no
# order):
#   * equiv: tests/superopt/dead/dead.axl (a dead max) against itself, against its lowering
#     (dead.mug, the max still there) and against a graph without the max (nomax.mug): exit 0;
#   * superopt --output: exit 0, the graph written has no max;
#   * superopt --output-dir on an HLO module with a dead maximum and compare (dead.hlo):
#     exit 0, report.json names both with their HLO lines, module.mug holds neither;
#   * optimize: exit 0, the program written has no max;
#   * a max that does reach the output is still refused (exit 3): nothing is dropped that
#     an output reads.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
D=tests/superopt/dead
note="axle: note: $D/dead.axl: program 'dead': 1 statement reaches no output: m (line 6) — removed"

for other in dead.axl dead.mug nomax.mug; do
  "$AXLE" equiv --seed 3 "$D/dead.axl" "$D/$other" > "$tmp/out" 2> "$tmp/err"
  check "equiv dead.axl $other: exit 0" test $? -eq 0
  check "equiv dead.axl $other: equivalent" has "$tmp/out" "^equivalent"
  check "equiv dead.axl $other: the note" has "$tmp/err" "^$note$"
  if [ "$other" = dead.mug ]; then
    check "equiv dead.mug: the graph's own note" \
      has "$tmp/err" "^axle: note: $D/dead.mug: mugraph 'dead': 1 statement reaches no output: m (line 5) — removed$"
  fi
done
"$AXLE" equiv --candidates --seed 3 "$D/dead.axl" "$D/dead.mug" "$D/nomax.mug" > "$tmp/out" 2> "$tmp/err"
check "equiv --candidates: exit 0" test $? -eq 0
check "equiv --candidates: both equivalent" test "$(grep -c ': equivalent' "$tmp/out")" -eq 2

S=("$AXLE" superopt --no-gate --progress never --time-limit 2)
"${S[@]}" "$D/dead.axl" --output "$tmp/best.mug" > "$tmp/out" 2> "$tmp/err"
check "superopt: exit 0" test $? -eq 0
check "superopt: the note" has "$tmp/err" "^$note$"
check "superopt: no max in the graph" bash -c "! grep -q 'max' '$tmp/best.mug'"
"$AXLE" equiv --seed 4 "$D/dead.axl" "$tmp/best.mug" > /dev/null 2>&1
check "superopt: the graph is equivalent to the program" test $? -eq 0

"${S[@]}" "$D/dead.hlo" --output-dir "$tmp/m" > "$tmp/out" 2> "$tmp/err"
check "module: exit 0" test $? -eq 0
check "module: the note names the HLO lines" \
  has "$tmp/err" "dead.hlo: program 'jit_dead': 2 statements reach no output: maximum_3 (line 6), compare_4 (line 7) — removed"
check "module: report.json lists them" \
  jqt '.dead_operators == 2 and (.dead | map([.name, .line])) == [["maximum_3", 6], ["compare_4", 7]]' "$tmp/m/report.json"
check "module: a region fused" jqt '.status == 0 and .regions[0].verdict == "equivalent"' "$tmp/m/report.json"
check "module: module.mug without them" bash -c "! grep -qE 'max|gt\\(' '$tmp/m/module.mug'"
check "module: module.axl without them" bash -c "! grep -qE 'max|gt\\(' '$tmp/m/module.axl'"
check "module: the text line counts them" has "$tmp/out" "2 dead"

"$AXLE" optimize --rules rules/superopt "$D/dead.axl" --output "$tmp/opt.axl" > "$tmp/out" 2> "$tmp/err"
check "optimize: exit 0" test $? -eq 0
check "optimize: the note" has "$tmp/err" "^$note$"
check "optimize: checked" has "$tmp/out" "^equivalent to the input"
check "optimize: no max written" bash -c "! grep -q 'max' '$tmp/opt.axl'"

# a live max is refused as before
sed 's/let t = s + a/let t = s + m/' "$D/dead.axl" > "$tmp/live.axl"
"$AXLE" equiv --seed 3 "$tmp/live.axl" "$tmp/live.axl" > /dev/null 2> "$tmp/err"
check "live max: equiv exit 3" test $? -eq 3
check "live max: no note" bash -c "! grep -q 'reach' '$tmp/err'"
check "live max: refused for its order" has "$tmp/err" "max in 'm': it needs an order"

echo "superopt_dead: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
