#!/usr/bin/env bash
# axle brute (verifier/brute.h, docs/cli.md): the brute-force oracle on rules whose verdicts
# are known. Every `expect invalid` rule of tests/verify/preconditions is REFUTED by a small
# concrete instance — except pow_of_pow, whose smallest counterexample needs an exponent 2
# (B = 1/2, C = 2), outside the value set {0, 1, -1, 1/2, 3} — and every valid rule has
# NO COUNTEREXAMPLE; the same on rules/examples; the JSON fields; a counterexample of
# `axle verify` reproduced by --instance, a tampered one refused; determinism of the seed;
# bad input (exit 3, located errors, no crash).
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
dir=tests/verify/preconditions
beyond='["pow_of_pow"]'   # expect invalid, counterexample outside the limits (above)
files=()
for f in "$dir"/*.axl; do [ "$(basename "$f")" = unknown.axl ] || files+=("$f"); done

"$AXLE" brute --format json "${files[@]}" >"$tmp/pre.json" 2>"$tmp/err"
st=$?
check "preconditions: exit 1 (some rule refuted)" [ "$st" = 1 ]
check "preconditions: at least 50 results" jqt -s 'length >= 50' "$tmp/pre.json"
check "every expect-invalid rule is REFUTED (but those beyond the limits)" \
  jqt -s "all(.[] | select(.expected == \"invalid\" and (.rule | IN($beyond[]) | not)); .result == \"refuted\")" "$tmp/pre.json"
check "a rule beyond the limits: NO COUNTEREXAMPLE (a search, no proof)" \
  jqt -s "all(.[] | select(.rule | IN($beyond[])); .result == \"none\" and .instances > 0)" "$tmp/pre.json"
check "every valid rule: NO COUNTEREXAMPLE, with instances that count" \
  jqt -s 'all(.[] | select(.expected == "valid"); .result == "none" and .instances > 0)' "$tmp/pre.json"
check "JSON fields of every result" \
  jqt -s 'all(.[]; has("rule") and has("file") and (.line | type == "number") and has("type") and
            (.result | IN("refuted", "none", "skipped")) and (.instances | type == "number") and
            (.tried | type == "number") and (.exhaustive | type == "boolean") and has("counterexample"))' "$tmp/pre.json"
check "every REFUTED has its instance: failed, ranks, maps, shapes, access, reads, lhs, rhs" \
  jqt -s 'all(.[] | select(.result == "refuted"); .counterexample | has("failed") and has("ranks") and
            has("maps") and has("shapes") and has("access") and (.reads | type == "array") and has("lhs") and has("rhs"))' "$tmp/pre.json"
check "no counterexample without REFUTED" \
  jqt -s 'all(.[] | select(.result != "refuted"); .counterexample == null)' "$tmp/pre.json"
# the red team's rule, as the verifier refutes it: a slice that leaves the last element free
r='select(.rule == "slice_leaves_last" and .type == "int")'
check "slice_leaves_last: s = [1], A = [-1]" \
  jqt -s "[.[] | $r | .counterexample | [.maps.s, [.reads[].value]]] == [[[1], [\"-1\"]]]" "$tmp/pre.json"
check "slice_to_one_rank2: found at rank 2" \
  jqt -s '[.[] | select(.rule == "slice_to_one_rank2") | .counterexample.ranks.x] | unique == [2]' "$tmp/pre.json"
check "slice_to_one_every_axis: few instances, all tried" \
  jqt -s '[.[] | select(.rule == "slice_to_one_every_axis") | .exhaustive] | unique == [true]' "$tmp/pre.json"

# what the verifier cannot decide, brute force settles where it is small
"$AXLE" brute --format json "$dir/unknown.axl" >"$tmp/unknown.json" 2>"$tmp/err"
check "unknown.axl: reduce_positive_not_each REFUTED" \
  jqt -s '[.[] | select(.rule == "reduce_positive_not_each") | .result] | unique == ["refuted"]' "$tmp/unknown.json"
check "unknown.axl: the two true rules have no counterexample" \
  jqt -s '[.[] | select(.rule != "reduce_positive_not_each") | .result] | unique == ["none"]' "$tmp/unknown.json"

# rules/examples: text output
"$AXLE" brute rules/examples/slice_dyup_slice.axl rules/examples/pad_low_combine.axl \
  rules/examples/reductions.axl >"$tmp/ex.txt" 2>"$tmp/err"
check "examples: exit 1" [ $? = 1 ]
check "examples: slice_dyup_slice REFUTED (expected invalid)" \
  has "$tmp/ex.txt" "slice_dyup_slice.axl:4: slice_dyup_slice \[int\]  REFUTED (expected invalid)"
check "examples: the counterexample's lines" has "$tmp/ex.txt" "^    counterexample (brute force): "
check "examples: its ranks, maps and values" \
  bash -c "grep -q '^      ranks: x = ' '$tmp/ex.txt' && grep -q '^      maps: ' '$tmp/ex.txt' && grep -q '^      lhs = .*, rhs = ' '$tmp/ex.txt'"
check "examples: pad_low_combine NO COUNTEREXAMPLE" \
  has "$tmp/ex.txt" "pad_low_combine \[real\]  NO COUNTEREXAMPLE in [0-9]* instances"
check "examples: the summary line" \
  has "$tmp/ex.txt" "^axle brute: 12 results: 2 refuted, 10 without counterexample, 0 skipped$"
"$AXLE" brute rules/examples/pad_low_combine.axl >"$tmp/valid.txt" 2>&1
check "no rule refuted: exit 0" [ $? = 0 ]

# the seed: the same seed, the same search
"$AXLE" brute --format json --seed 9 rules/examples/pad_low_combine.axl | jq -c 'del(.time_ms)' >"$tmp/s1"
"$AXLE" brute --format json --seed 9 rules/examples/pad_low_combine.axl | jq -c 'del(.time_ms)' >"$tmp/s2"
check "the same seed gives the same result" cmp -s "$tmp/s1" "$tmp/s2"
check "the seed is reported" jqt -s 'all(.[]; .seed == "9")' "$tmp/s1"

# --instance: the verifier's counterexample is one; a tampered one is not
"$AXLE" verify --no-cache --solver z3 --format json --rule slice_leaves_last "$dir/slice_pad.axl" \
  | jq -c 'select(.type == "int")' >"$tmp/v.json"
check "verify refutes slice_leaves_last [int]" jqt '.verdict == "invalid"' "$tmp/v.json"
"$AXLE" brute --rule slice_leaves_last --type int --format json --instance @"$tmp/v.json" "$dir/slice_pad.axl" >"$tmp/i.json"
check "--instance: the verifier's counterexample reproduces (exit 1)" [ $? = 1 ]
check "--instance: result reproduced, the failure named" \
  jqt '.result == "reproduced" and .failed == "the values differ at the access"' "$tmp/i.json"
# every value of A made 1: the precondition holds, and the sides agree
jq -c '.counterexample | .reads |= map(.value = "1")' "$tmp/v.json" >"$tmp/t.json"
"$AXLE" brute --rule slice_leaves_last --type int --format json --instance @"$tmp/t.json" "$dir/slice_pad.axl" >"$tmp/i2.json"
check "--instance: a tampered counterexample is none (exit 0)" [ $? = 0 ]
check "--instance: not-counterexample, said why" \
  jqt '.result == "not-counterexample" and (.reason | test("agree"))' "$tmp/i2.json"
# A = -1 at a point the slice covers: the precondition fails there, and says where
jq -c '.counterexample | .maps.s = [2] | .reads = [{"tensor": "A", "index": [0], "value": "-1"}, {"tensor": "A", "index": [1], "value": "-1"}]' \
  "$tmp/v.json" >"$tmp/t3.json"
"$AXLE" brute --rule slice_leaves_last --type int --instance @"$tmp/t3.json" "$dir/slice_pad.axl" >"$tmp/i3.txt"
check "--instance: a broken precondition is named with its point" \
  has "$tmp/i3.txt" "NOT A COUNTEREXAMPLE: no counterexample: the tensor precondition of line 10 does not hold at x = \[0\]"
# brute's own counterexample round-trips
jq -c 'select(.rule == "slice_dyup_slice" and .type == "int") | .counterexample' >"$tmp/bc.json" \
  < <("$AXLE" brute --format json rules/examples/slice_dyup_slice.axl)
"$AXLE" brute --type int --instance @"$tmp/bc.json" rules/examples/slice_dyup_slice.axl >"$tmp/i4.txt"
check "--instance: brute's own counterexample reproduces" has "$tmp/i4.txt" "REPRODUCED: "

# bad input: exit 3, a located error or a message, never a crash
: >"$tmp/empty.axl"
mkdir -p "$tmp/nothing"
printf 'rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n  pad_lo(A, 0, {x: s}) => A\n}\n' >"$tmp/bad.axl"
for args in "$tmp/empty.axl" "$tmp/nothing" superopt/examples/lora.axl "$tmp/bad.axl" "$tmp/missing.axl" \
            "--samples 0 rules/examples" "--max-rank 9 rules/examples" "--format xml rules/examples" \
            "--seed -1 rules/examples" "--instance {} rules/examples/pad_low_combine.axl" \
            "--type int --instance { rules/examples/pad_low_combine.axl" \
            "--type int --instance @$tmp/missing.json rules/examples/pad_low_combine.axl" "--bogus x" ""; do
  # shellcheck disable=SC2086
  "$AXLE" brute $args >"$tmp/out" 2>"$tmp/err"
  st=$?
  check "bad input '$args': exit 3 ($st)" [ "$st" = 3 ]
  check "bad input '$args': a message" test -s "$tmp/err"
done
"$AXLE" brute "$tmp/bad.axl" 2>"$tmp/err"
check "a checker error is located (FILE:LINE:COL)" has "$tmp/err" "bad.axl:5:3: error: rule 'r': unknown operator 'pad_lo'"
check "an empty file: no rule to check" bash -c "'$AXLE' brute '$tmp/empty.axl' 2>&1 | grep -q 'no rule to check'"

echo "brute: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
