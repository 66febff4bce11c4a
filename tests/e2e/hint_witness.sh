#!/usr/bin/env bash
# INVALID-HINT only with a witness axle replayed (docs/semantics.md, "Reductions"): the
# rules of tests/verify/hints. approximate.axl and exp.axl hold true rules with right hints
# whose summation domains the solvers see only approximately (sqrt, a sum under sqrt, an
# integer power, exp, a tensor precondition): UNKNOWN, because the solvers' pairing model
# does not replay, never INVALID-HINT. inferred.axl holds true rules whose pairing axle
# inferred in part (no hint, a one-way hint): UNKNOWN with the advice, or VERIFIED. wrong.axl
# holds wrong hints on true rules — not well defined, not injective, not surjective: each
# INVALID-HINT with the replayed witness in the text and in the JSON, kept by the cache; a
# hint right up to zero summands (approximate.axl's last) is no witness.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
dir=tests/verify/hints
replay='but neither that model nor [0-9]+ small instances show it when replayed exactly'

# true rules, right hints, approximate domains
"$AXLE" verify --no-cache --jobs 2 --format json "$dir/approximate.axl" > "$tmp/approx.json"; st=$?
check "approximate: exit 2 (unknown)" [ "$st" = 2 ]
check "approximate: 8 results, every one UNKNOWN" \
  jqt -s 'length == 8 and all(.[]; .verdict == "unknown")' "$tmp/approx.json"
check "approximate: each reached the replay of the pairing model, which found no witness" \
  jqt -s "all(.[]; .reason | test(\"$replay\"))" "$tmp/approx.json"
check "approximate: no witness is carried" jqt -s 'all(.[]; .counterexample == null)' "$tmp/approx.json"
check "approximate: the sum under sqrt fails on well-definedness in the solvers' model" \
  jqt -s '[.[] | select(.rule == "sqrt_of_mean_twice") | .reason | test("outside the right-hand domain \\(i.0 = ")] == [true]' \
  "$tmp/approx.json"
check "approximate: the precondition's model breaks it at a point the query did not read" \
  jqt -s '[.[] | select(.rule == "precondition_at_every_point") | .reason | test("the model: the instance breaks a precondition")] == [true, true]' \
  "$tmp/approx.json"
"$AXLE" verify --no-cache --timeout 2 --format json "$dir/exp.axl" > "$tmp/exp.json"
check "exp: UNKNOWN, the model needs exp at a non-zero point" \
  jqt -s 'length == 1 and .[0].verdict == "unknown" and (.[0].reason | test("the model: exp of a non-zero number has no exact rational value"))' \
  "$tmp/exp.json"

# true rules, inferred pairings
"$AXLE" verify --no-cache --jobs 2 --format json "$dir/inferred.axl" > "$tmp/inf.json"
verdicts=$(jq -r '.rule + " " + .type + " " + .verdict' "$tmp/inf.json" | sort | tr '\n' ';')
check "inferred: the verdicts" [ "$verdicts" = \
  "plain_and_one_element int unknown;plain_and_one_element real unknown;plain_and_one_summand int unknown;plain_and_one_summand real unknown;reverse_both_ways int verified;reverse_both_ways real verified;reverse_one_way_hint int unknown;reverse_one_way_hint real unknown;sum_of_one_element int verified;sum_of_one_element real verified;" ]
check "inferred: no hint and no right-hand sum, the guessed pairing reported and advised on" \
  jqt -s '[.[] | select(.rule == "plain_and_one_summand") | (.inferred_hint == "side#2 == 0, y.0#1 == 0" and (.reason | endswith("partly inferred (side#2 == 0, y.0#1 == 0): a written hint may prove the rule")))] == [true, true]' \
  "$tmp/inf.json"
check "inferred: the one-way hint's inverse reported and advised on" \
  jqt -s '[.[] | select(.rule == "reverse_one_way_hint") | (.inferred_hint == "i == k" and (.reason | endswith("the inverse pairing was inferred (i.0 == k.0): a hint that gives it may prove the rule")))] == [true, true]' \
  "$tmp/inf.json"
check "inferred: a sum over one element pairs with its value" \
  jqt -s '[.[] | select(.rule == "sum_of_one_element") | .inferred_hint] == ["y.0#1 == 0", "y.0#1 == 0"]' "$tmp/inf.json"

# wrong hints: INVALID-HINT with the witness
"$AXLE" verify --jobs 2 --format json "$dir/wrong.axl" > "$tmp/wrong.json"; st=$?
check "wrong: exit 0 (every rule as expected)" [ "$st" = 0 ]
check "wrong: 9 results, every one INVALID-HINT and met" \
  jqt -s 'length == 9 and all(.[]; .verdict == "invalid-hint" and .met)' "$tmp/wrong.json"
check "wrong: every one carries its witness, replayed" \
  jqt -s 'all(.[]; .counterexample != null and (.reason | endswith("(replayed)")))' "$tmp/wrong.json"
prop() { jq -rs "[.[] | select(.rule == \"$1\") | .counterexample.property] | unique | join(\",\")" "$tmp/wrong.json"; }
check "wrong: off by one is not well defined" [ "$(prop reverse_off_by_one)" = well-defined ]
check "wrong: to the first index is not injective" [ "$(prop reverse_to_first)" = injective ]
check "wrong: the one-way version too" [ "$(prop reverse_to_first_one_way)" = injective ]
check "wrong: the concatenation's second copy is not reached" [ "$(prop double_into_concat)" = surjective ]
check "wrong: with sqrt, not well defined" [ "$(prop sqrt_of_square_off_by_one)" = well-defined ]
r='.[] | select(.rule == "reverse_off_by_one" and .type == "int") | .counterexample'
check "wrong: off by one's witness: i = 0 paired with k = s, outside" \
  jqt -s "[$r | (.left[0].index[\"i.0\"] == 0 and .left[0].in_domain and .left[0].paired_with[\"k.0\"] == .maps.s[0] and .right.in_domain == false)] == [true]" \
  "$tmp/wrong.json"
r='.[] | select(.rule == "reverse_to_first" and .type == "int") | .counterexample'
check "wrong: the collision: two left-hand indices, one image k = 0 in the right-hand domain" \
  jqt -s "[$r | (.left | length) == 2 and .left[0].index != .left[1].index and .left[0].paired_with == {\"k.0\": 0} and .left[1].paired_with == {\"k.0\": 0} and .right.in_domain] == [true]" \
  "$tmp/wrong.json"
r='.[] | select(.rule == "double_into_concat" and .type == "int") | .counterexample'
check "wrong: the unreached index is of the second copy, its summand not 0" \
  jqt -s "[$r | (.left == [] and .right.index[\"k.0\"] >= .maps.a[0] and .right.in_domain and .right.summand != \"0\" and .left_domain_points == .maps.a[0])] == [true]" \
  "$tmp/wrong.json"
check "wrong: the reason says the indices" \
  jqt -s '[.[] | select(.rule == "reverse_to_first" and .type == "int") | .reason | test("^at rank x=1, y=1: the hint maps two left-hand indices to one right-hand index \\(not injective\\): i.0 = [0-9]+ and i.0 = [0-9]+ both pair with k.0 = 0 \\(replayed\\)$")] == [true]' \
  "$tmp/wrong.json"

# the text: the witness like a counterexample, under the result line
"$AXLE" verify --rule reverse_off_by_one "$dir/wrong.axl" > "$tmp/text.txt"
check "text: the witness's head line" has "$tmp/text.txt" '^    hint witness (replayed): the hint maps a valid left-hand index outside the right-hand domain$'
check "text: the instance" has "$tmp/text.txt" '^      maps: s = \[[0-9]*\]  t = '
check "text: the left-hand index, its summand and its image" \
  has "$tmp/text.txt" '^      left-hand index i.0 = 0 (summand -\?[0-9/]*): in the left-hand domain, paired with k.0 = [0-9]*$'
check "text: the image outside" has "$tmp/text.txt" '^      right-hand index k.0 = [0-9]*: not in the right-hand domain$'
check "text: both types taken from the cache (the JSON run stored them)" [ "$(count "$tmp/text.txt" '(cached)$')" = 2 ]
"$AXLE" verify --format json --rule reverse_to_first "$dir/wrong.axl" > "$tmp/cached.json"
check "cache: the witness kept" \
  jqt -s 'length == 2 and all(.[]; .cached and .verdict == "invalid-hint" and .counterexample.property == "injective")' "$tmp/cached.json"

echo "hint witness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
