#!/usr/bin/env bash
# Tensor preconditions (docs/semantics.md, "Tensor preconditions"): a `require` over tensor
# values holds at every point of its own shape and says nothing outside it. The rules of
# tests/verify/preconditions use slice, pad with a negative edge, reverse, relabel,
# broadcast, gather, scatter, dynamic_update_slice, concat, division by a tensor, reads in
# branches not taken and ranks above 1; every one must meet its `expect`, no ERROR and no
# UNKNOWN, every INVALID with a replayed counterexample, the smallest failing rank where a
# `# first-fails` comment names it, and nothing beyond the inferred bounds (--bound-slack 1).
# reach.axl holds valid rules once UNKNOWN (logs of products, chains of reverses, odd powers,
# a linear mean) beside wrong twins; unknown.axl must stay UNKNOWN with its reason.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
dir=tests/verify/preconditions
files=()
for f in "$dir"/*.axl; do [ "$(basename "$f")" = unknown.axl ] || files+=("$f"); done

"$AXLE" verify --no-cache --jobs 2 --format json "${files[@]}" >"$tmp/out.json" 2>"$tmp/err"
st=$?
check "verify exits 0 (every rule as expected)" [ "$st" = 0 ]
n=$(jq -s length "$tmp/out.json")
check "at least 50 results ($n)" [ "$n" -ge 50 ]
check "at least 25 rules" [ "$(jq -rs '[.[].rule] | unique | length' "$tmp/out.json")" -ge 25 ]
check "every result met its expectation" jqt -s 'all(.[]; .met)' "$tmp/out.json"
check "no ERROR, no UNKNOWN" jqt -s 'all(.[]; .verdict == "verified" or .verdict == "invalid")' "$tmp/out.json"
check "both verdicts occur" jqt -s 'any(.[]; .verdict == "verified") and any(.[]; .verdict == "invalid")' "$tmp/out.json"
check "every INVALID has its replayed counterexample" \
  jqt -s 'all(.[] | select(.verdict == "invalid"); .counterexample != null)' "$tmp/out.json"
check "no VERIFIED is vacuous" jqt -s 'all(.[] | select(.verdict == "verified"); .vacuous | not)' "$tmp/out.json"

# the red team's rule: s = [1] makes the slice empty, A = [-1] breaks the rule
r='select(.rule == "slice_leaves_last" and .type == "int")'
check "slice_leaves_last: INVALID" jqt -s "[.[] | $r | .verdict] == [\"invalid\"]" "$tmp/out.json"
check "slice_leaves_last: s = [1]" jqt -s "[.[] | $r | .counterexample.maps.s] == [[1]]" "$tmp/out.json"
check "slice_leaves_last: the values differ" \
  jqt -s "[.[] | $r | .counterexample.failed] == [\"the values differ at the access\"]" "$tmp/out.json"
# wrong only at rank 2: refuted at rank 2, after rank 1 held
r='select(.rule == "slice_to_one_rank2" and .type == "int")'
check "slice_to_one_rank2: refuted at rank 2" jqt -s "[.[] | $r | .counterexample.ranks.x] == [2]" "$tmp/out.json"
# the precondition fixes a class: said in the verdict line and the JSON
check "concat_fixes_rank: y fixed by the precondition's concat" \
  jqt -s '[.[] | select(.rule == "concat_fixes_rank") | .fixed_rank.y.why] | unique == ["concat axis in a precondition"]' \
  "$tmp/out.json"
"$AXLE" verify --no-cache --jobs 2 "$dir/branches_ranks.axl" >"$tmp/text" 2>&1
check "the verdict line names the precondition that fixes the rank" \
  has "$tmp/text" "concat_fixes_rank \[int\]  VERIFIED .*y: 1 (fixed: concat axis in a precondition, line [0-9]*)"

# the bound oracle: one rank further, nothing changes
"$AXLE" verify --no-cache --jobs 2 --solver z3 --bound-slack 1 --format json "${files[@]}" >"$tmp/slack.json" 2>"$tmp/err"
check "slack 1: exit 0" [ $? = 0 ]
check "slack 1: no ERROR (bound too small)" jqt -s 'all(.[]; .verdict != "error")' "$tmp/slack.json"
check "slack 1: every result met its expectation" jqt -s 'all(.[]; .met)' "$tmp/slack.json"

# what axle cannot use stays UNKNOWN, with the reason
"$AXLE" verify --no-cache --jobs 2 --format json "$dir/unknown.axl" >"$tmp/unknown.json" 2>"$tmp/err"
check "unknown.axl: every result UNKNOWN" jqt -s 'length > 0 and all(.[]; .verdict == "unknown")' "$tmp/unknown.json"
check "unknown.axl: a reduction compared with a value, said" \
  jqt -s 'all(.[] | select(.rule | startswith("reduce_")); .reason | test("comparing a reduction with a value"))' "$tmp/unknown.json"
check "unknown.axl: the sum under sqrt, said" \
  jqt -s 'any(.[]; .rule == "rms_positive_scaling" and (.reason | test("a sum under sqrt")))' "$tmp/unknown.json"
echo "preconditions: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
