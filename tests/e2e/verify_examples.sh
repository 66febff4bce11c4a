#!/usr/bin/env bash
# `axle verify` end to end on the real rule files, with the real z3 (and cvc5): verdicts,
# bounds, replayed counterexamples and exit statuses (docs/cli.md).
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
json() { "$AXLE" verify --format json "$@" > "$tmp/out.json" 2> "$tmp/err"; echo $? > "$tmp/status"; }

json rules/examples/pad_low_combine.axl
check "pad_low_combine exit 0" [ "$(cat "$tmp/status")" = 0 ]
check "pad_low_combine int verified, bound 2" \
  [ "$(jcount "$tmp/out.json" '.type == "int" and .verdict == "verified" and .bounds == {"x": 2}')" = 1 ]
check "pad_low_combine real verified" [ "$(jcount "$tmp/out.json" '.type == "real" and .verdict == "verified"')" = 1 ]

json rules/examples/dyslice_to_slice.axl
check "dyslice_to_slice bound 1 for bool, int and real" \
  [ "$(jcount "$tmp/out.json" '.verdict == "verified" and .bounds == {"x": 1}')" = 3 ]

json rules/examples/transpose_sum.axl
check "transpose of symmetric sum verified" [ "$(jcount "$tmp/out.json" '.verdict == "verified"')" = 2 ]

json rules/examples/slice_dyup_slice.axl
check "slice_dyup_slice exit 0 (expected invalid)" [ "$(cat "$tmp/status")" = 0 ]
check "slice_dyup_slice invalid with a rank-2 counterexample" \
  [ "$(jcount "$tmp/out.json" '.verdict == "invalid" and .met == true and
      .counterexample.failed == "the values differ at the access" and .counterexample.ranks == {"x": 2}')" = 2 ]
check "counterexample names reads and both values" \
  [ "$(jcount "$tmp/out.json" '.counterexample.reads[0].tensor == "Y" and
      (.counterexample.lhs | type) == "string" and (.counterexample.rhs | type) == "string"')" = 2 ]

# every mutated twin of a valid example is INVALID with a replayed counterexample
json rules/examples-mutants/pad_low_combine.axl rules/examples-mutants/dyslice_to_slice.axl \
  rules/examples-mutants/transpose_sum.axl
check "mutants: exit 0" [ "$(cat "$tmp/status")" = 0 ]
n=$(jcount "$tmp/out.json" '.verdict == "invalid"'); total=$(wc -l < "$tmp/out.json")
check "mutants: all $total invalid" [ "$n" = "$total" ]
check "mutants: at least 16 results" [ "$total" -ge 16 ]
check "mutants: each carries a counterexample" [ "$(jcount "$tmp/out.json" '.counterexample | type == "object"')" = "$total" ]

# a wrong rule that claims to be valid: exit 1, text shows the replayed counterexample
sed 's/ expect invalid//' rules/examples-mutants/pad_low_combine.axl > "$tmp/wrong.axl"
"$AXLE" verify "$tmp/wrong.axl" > "$tmp/out.txt" 2>&1; st=$?
check "wrong rule: exit 1" [ "$st" = 1 ]
check "wrong rule: text counterexample" has "$tmp/out.txt" "counterexample (replayed): the values differ at the access"
check "wrong rule: marked NOT MET" has "$tmp/out.txt" "INVALID (expected valid: NOT MET)"

# a rule expected invalid that is valid: exit 1
sed 's/rule pad_low_combine for T in num {/rule pad_low_combine for T in num expect invalid {/' \
  rules/examples/pad_low_combine.axl > "$tmp/claims_invalid.axl"
"$AXLE" verify "$tmp/claims_invalid.axl" > /dev/null 2>&1; st=$?
check "valid rule expected invalid: exit 1" [ "$st" = 1 ]

# a solver timeout is UNKNOWN with the reason, never VERIFIED
json --timeout 1 --rule fermat_three tests/verify/hard_nonlinear.axl
check "timeout: exit 2" [ "$(cat "$tmp/status")" = 2 ]
check "timeout: unknown with reason" \
  [ "$(jcount "$tmp/out.json" '.verdict == "unknown" and
      (.reason | test("^at rank x=[0-9]+: no solver decided: z3: timeout after 1 s; cvc5: timeout after 1 s"))')" = 2 ]

# a construct outside the supported fragment is UNKNOWN with the reason
json tests/verify/unsupported.axl
check "unsupported: unknown, not verified" \
  [ "$(jcount "$tmp/out.json" '.verdict == "unknown" and (.reason | startswith("unsupported: only products, sums"))')" = 2 ]

# reductions: proved through a checked bijection; a hint that is no bijection is INVALID-HINT
json rules/examples/mul_of_reductions.axl rules/examples/dot_as_reduce.axl
check "reductions verified" [ "$(jcount "$tmp/out.json" '.verdict == "verified"')" = 6 ]
json rules/examples-mutants/reductions.axl
check "wrong hint: invalid-hint with the failing property" \
  [ "$(jcount "$tmp/out.json" '.verdict == "invalid-hint" and .expected == "invalid-hint" and
      (.reason | contains("(not injective)"))')" = 2 ]
check "wrong concatenation offset: invalid-hint, maps outside the domain" \
  [ "$(jcount "$tmp/out.json" '.verdict == "invalid-hint" and .expected == "invalid-hint" and
      (.reason | contains("the hint maps a valid left-hand index outside the right-hand domain"))')" = 2 ]
check "wrong reduction rules: invalid with counterexamples" \
  [ "$(jcount "$tmp/out.json" '.verdict == "invalid" and (.counterexample | type == "object")')" = 12 ]

# cvc5 through SMT-LIB gives the same verdicts
"$AXLE" verify --solver cvc5 --format json rules/examples/pad_low_combine.axl rules/examples/slice_dyup_slice.axl \
  rules/examples-mutants/transpose_sum.axl > "$tmp/cvc5.json" 2> "$tmp/cvc5.err"; st=$?
check "cvc5: exit 0" [ "$st" = 0 ]
check "cvc5: verdicts" [ "$(jcount "$tmp/cvc5.json" '.met == true')" = 8 ]
check "cvc5: solver named" [ "$(jcount "$tmp/cvc5.json" '.solver == "cvc5"')" = 8 ]

# bad input: exit 3, nothing verified
printf 'rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n  A => B\n}\n' > "$tmp/bad.axl"
"$AXLE" verify "$tmp/bad.axl" > "$tmp/out.txt" 2> "$tmp/err"; st=$?
check "checker error: exit 3" [ "$st" = 3 ]
check "checker error: located" has "$tmp/err" "bad.axl:5:8: error: rule 'r': unknown name 'B'"
"$AXLE" verify --solver nope rules/examples > /dev/null 2>&1; st=$?
check "bad option: exit 3" [ "$st" = 3 ]

echo "verify examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
