#!/usr/bin/env bash
# The oracle of bound inference (docs/semantics.md "How the rank bound is
# inferred"): the rules of rules/examples, rules/xla and tests/verify/bounds verified again
# with --bound-slack 1 — every rank vector up to each inferred bound + 1 — keep their
# verdicts; a VERIFIED rule that turned INVALID beyond its bounds would be an ERROR "bound
# inference too small". And the oracle can fail: with the bounds capped at 1 by the test
# hook AXLE_TEST_BOUND_CAP (read by axle-test only, base/hooks.h; axle ignores it), a rule
# wrong only at rank 2 is caught as exactly that ERROR.
#
# Left out for time (z3 on 2 cores; 4–5 rank classes each, so slack 1 asks for 16–48
# instances of nonlinear convolution arithmetic):
#   rules/xla/conv.axl (conv_00, conv_01, conv_03), rules/xla/generalize.axl,
#   rules/examples/fold_conv_input_pad.axl (the XLA and the generalized fold).
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

files=()
for f in rules/examples/*.axl rules/xla/*.axl tests/verify/bounds/*.axl; do
  case "$f" in
    rules/xla/conv.axl | rules/xla/generalize.axl | rules/examples/fold_conv_input_pad.axl) ;;
    *) files+=("$f") ;;
  esac
done
"$AXLE" verify --no-cache --solver z3 --bound-slack 1 --jobs 2 --timeout 60 --format json \
  "${files[@]}" > "$tmp/slack.json" 2> "$tmp/err"; st=$?
n=$(jq -s length "$tmp/slack.json")
errors=$(jq -s '[.[] | select(.verdict == "error")] | length' "$tmp/slack.json")
unknown=$(jq -r 'select(.verdict == "unknown") | .rule' "$tmp/slack.json")
check "slack 1: more than 300 results ($n)" [ "$n" -gt 300 ]
check "slack 1: no ERROR, no bound too small ($errors)" [ "$errors" = 0 ]
check "slack 1: no UNKNOWN (z3 alone proves mul_10_exp_sum from the solver layer's exp facts): $unknown" \
  [ -z "$unknown" ]
check "slack 1: every result met its expectation" \
  [ "$(jq -s '[.[] | select(.met | not)] | length' "$tmp/slack.json")" = 0 ]
check "slack 1: the oracle ran (pad_low_combine: bound 2, 3 instances)" \
  [ "$(jq -s '[.[] | select(.rule == "pad_low_combine") | .instances] | min' "$tmp/slack.json")" = 3 ]
check "slack 1: exit 0 (all as expected)" [ "$st" = 0 ]

# the oracle fails loudly when the bounds are too small
cat > "$tmp/r2.axl" <<'EOF2'
# fails only at rank 2: "some axis >= 1" against "every axis >= 1"
rule all_vs_any {
  rclass x
  map s over x
  tensor A : int[x: s]
  require forall x: s >= 2
  select(pad(constant(true, {x: s}), false, low={x: 1}, high={x: -1}),
         constant(1, {x: s}), constant(0, {x: s})) =>
    select(dynamic_update_slice(constant(true, {x: s}), constant(false, {x: 1}), {x: 0}),
           constant(1, {x: s}), constant(0, {x: s}))
}
EOF2
"$AXLE" verify --no-cache --solver z3 --format json "$tmp/r2.axl" > "$tmp/r2.json"; st=$?
check "rank-2 rule: INVALID at x = 2 with the inferred bound (exit 1)" \
  sh -c "[ $st = 1 ] && jq -e '.verdict == \"invalid\" and .counterexample.ranks.x == 2' $tmp/r2.json > /dev/null"
# the hook is read by the tests' binary only (base/hooks.h): axle itself ignores it
AXLE_TEST_BOUND_CAP=1 "$AXLE" verify --no-cache --solver z3 --format json "$tmp/r2.axl" > "$tmp/rel.json"
check "the release binary ignores the cap: still INVALID at x = 2" \
  jqt '.verdict == "invalid" and .counterexample.ranks.x == 2' "$tmp/rel.json"
AXLE_TEST_BOUND_CAP=1 "$AXLE_TEST_BIN" verify --no-cache --solver z3 --format json "$tmp/r2.axl" > "$tmp/cap.json"
check "capped at 1 without slack: the wrong rule passes (what the oracle is for)" \
  jqt '.verdict == "verified"' "$tmp/cap.json"
AXLE_TEST_BOUND_CAP=1 "$AXLE_TEST_BIN" verify --no-cache --solver z3 --bound-slack 1 --format json "$tmp/r2.axl" > "$tmp/cap1.json"; st=$?
check "capped at 1 with slack 1: ERROR, exit 2" \
  sh -c "[ $st = 2 ] && jq -e '.verdict == \"error\"' $tmp/cap1.json > /dev/null"
check "capped at 1 with slack 1: the reason names the class and the rank" \
  jqt '.reason | startswith("bound inference too small for x (bound 1): the rule is INVALID at rank x=2")' "$tmp/cap1.json"
check "capped at 1 with slack 1: the counterexample is kept" jqt '.counterexample.ranks.x == 2' "$tmp/cap1.json"

# a class fixed by a concat axis is reported, and slack does not raise it
cat > "$tmp/fixed.axl" <<'EOF2'
rule fixed_by_concat for T in num {
  rclass x, y
  map s over x
  map a, b over y
  tensor A : T[x: s, y: a]
  tensor B : T[x: s, y: b]
  reverse(concat(A, B, axis=y), [x]) => concat(reverse(A, [x]), reverse(B, [x]), axis=y)
}
EOF2
"$AXLE" verify --no-cache --solver z3 --bound-slack 2 --format json "$tmp/fixed.axl" > "$tmp/f.json"; st=$?
check "fixed class: verified with slack 2 (exit 0)" [ "$st" = 0 ]
check "fixed class: y fixed by the concat axis, with its line" \
  [ "$(jq -c 'select(.type == "int") | .fixed_rank' "$tmp/f.json")" = '{"y":{"why":"concat axis","line":7}}' ]
echo "bound_slack: $pass passed, $fail failed"
[ "$fail" = 0 ]
