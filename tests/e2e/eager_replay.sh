#!/usr/bin/env bash
# Eager replay (smt/portfolio.c, query.h AxSolverOpts.replay): in the default mode a
# counterexample whose model replays is INVALID at once, without the other solver. Here
# the other solver is a fake that never answers and there is no useful time limit
# (--timeout 86400): a verdict that waited for it would never come (the rule's own limit,
# --rule-timeout, would end it as UNKNOWN). Also: the labels of who confirmed what stay
# right when one solver never answers, and an unreplayed model is never INVALID.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
command -v jq > /dev/null || { echo "eager_replay: jq not found"; exit 77; }

printf '#!/bin/sh\nexec sleep 300\n' > "$tmp/hang"
chmod +x "$tmp/hang"
slow=(--no-cache --jobs 1 --timeout 86400 --rule-timeout 300 --solver-binary "$tmp/hang"
      --format json)

# pow_08_pow: z3 answers with a candidate on a formula it approximates (pow through exp,
# which is uninterpreted to z3); it replays (a negative base), so it is INVALID at once.
# pow_01_zero: VERIFIED by z3 alone (the hanging solver confirms nothing).
"$AXLE" verify "${slow[@]}" --rule 'pow_0[18]_*' rules/xla-extra/pow.axl > "$tmp/pow.json" 2> "$tmp/err"
st=$?
check "pow: exit 0 (as expected)" [ "$st" = 0 ]
check "pow_08_pow: INVALID without the other solver" \
  jqt -s '.[] | select(.rule == "pow_08_pow") | .verdict == "invalid" and .met' "$tmp/pow.json"
check "pow_08_pow: a replayed counterexample" \
  jqt -s '.[] | select(.rule == "pow_08_pow") | .counterexample.failed != null' "$tmp/pow.json"
check "pow_08_pow: confirmed by nobody (an INVALID needs no confirmation)" \
  jqt -s '.[] | select(.rule == "pow_08_pow") | .confirmed_by == []' "$tmp/pow.json"
check "pow_01_zero: VERIFIED, by z3 alone" \
  jqt -s '.[] | select(.rule == "pow_01_zero") | .verdict == "verified" and .confirmed_by == ["z3"] and .single_solver' \
  "$tmp/pow.json"

# the mutants of the example rules (z3 knows their whole formula): all still INVALID, each
# with a replayed counterexample, whatever the other solver does
"$AXLE" verify "${slow[@]}" rules/examples-mutants/pad_low_combine.axl > "$tmp/mut.json" 2> "$tmp/err"
n=$(jq -s 'length' "$tmp/mut.json")
check "mutants: some results" [ "$n" -gt 0 ]
check "mutants: all INVALID with a replayed counterexample" \
  [ "$(jcount "$tmp/mut.json" '.verdict == "invalid" and .counterexample.failed != null')" = "$n" ]

# both solvers, as usual: the same verdicts, pow_01_zero confirmed by both
"$AXLE" verify --no-cache --jobs 1 --timeout 20 --format json --rule 'pow_0[18]_*' rules/xla-extra/pow.axl \
  > "$tmp/both.json" 2> "$tmp/err"
check "both solvers: pow_08_pow INVALID" \
  jqt -s '.[] | select(.rule == "pow_08_pow") | .verdict == "invalid"' "$tmp/both.json"
check "both solvers: pow_01_zero confirmed by z3+cvc5" \
  jqt -s '.[] | select(.rule == "pow_01_zero") | .confirmed_by == ["z3", "cvc5"] and (.single_solver | not)' \
  "$tmp/both.json"

echo "eager_replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
