#!/usr/bin/env bash
# Who stands behind a verdict: by default every query goes to z3 and cvc5 and a
# VERIFIED names who confirmed it; a lying solver binary cannot make a wrong rule VERIFIED;
# a rule only one solver can decide is VERIFIED by that one, labelled, and --require-both
# refuses it; trivial rules are reported as such and meet only `expect trivial`.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

# default: both solvers
"$AXLE" verify --no-cache --format json rules/examples/pad_low_combine.axl > "$tmp/pl.json"; st=$?
check "default: exit 0" [ "$st" = 0 ]
check "default: solver both" jqt -s 'all(.solver == "both")' "$tmp/pl.json"
check "default: confirmed by z3 and cvc5" jqt -s 'all(.confirmed_by == ["z3", "cvc5"] and .single_solver == false)' "$tmp/pl.json"
"$AXLE" verify --no-cache rules/examples/pad_low_combine.axl > "$tmp/pl.txt"
check "text: VERIFIED (z3+cvc5)" has "$tmp/pl.txt" 'pad_low_combine \[int\]  VERIFIED (z3+cvc5)  bounds {x: 2}'

# a single-solver mode is labelled so
"$AXLE" verify --no-cache --solver z3 rules/examples/pad_low_combine.axl > "$tmp/z3.txt"
check "--solver z3: labelled (z3 only)" has "$tmp/z3.txt" 'VERIFIED (z3 only)'
"$AXLE" verify --no-cache --solver z3 --require-both rules/examples/pad_low_combine.axl > /dev/null; st=$?
check "--solver z3 --require-both: not met, exit 2" [ "$st" = 2 ]

# exp injective: z3 4.8 cannot decide it, cvc5 can; labelled, accepted unless --require-both
"$AXLE" verify --no-cache --format json --rule exp_is_one_only_at_zero tests/verify/exp_cvc5_only.axl > "$tmp/exp.json"; st=$?
check "exp: exit 0 by default" [ "$st" = 0 ]
check "exp: VERIFIED by cvc5 alone" jqt '.verdict == "verified" and .confirmed_by == ["cvc5"] and .single_solver' "$tmp/exp.json"
"$AXLE" verify --no-cache --rule exp_is_one_only_at_zero tests/verify/exp_cvc5_only.axl > "$tmp/exp.txt"
check "exp text: labelled and explained" \
  sh -c "grep -q 'VERIFIED (cvc5 only)' $tmp/exp.txt && grep -q 'note: confirmed by cvc5 alone on some queries' $tmp/exp.txt"
"$AXLE" gate --no-cache --require-both --rule exp_is_one_only_at_zero tests/verify/exp_cvc5_only.axl > "$tmp/gate.txt"; st=$?
check "exp: gate --require-both fails, exit 2" [ "$st" = 2 ]
check "exp: gate --require-both says why" has "$tmp/gate.txt" 'refuses it'
"$AXLE" gate --no-cache --format junit --require-both --rule exp_is_one_only_at_zero tests/verify/exp_cvc5_only.axl > "$tmp/gate.xml"
check "exp: JUnit error names one solver" has "$tmp/gate.xml" 'VERIFIED, expected valid (one solver only)'
"$AXLE" gate --no-cache --format junit rules/examples/pad_low_combine.axl > "$tmp/ok.xml"
check "JUnit: who confirmed it" has "$tmp/ok.xml" 'VERIFIED (z3+cvc5)'

# a solver binary that answers unsat to everything cannot make a wrong rule VERIFIED. Its
# unsat comes at once; z3's sat must come within the confirmation floor (default 0.5 s) or
# the unsat stands alone, labelled one solver (the trust model of --solver both). On a
# loaded machine z3 can miss 0.5 s, so the floor is raised: the disagreement is then
# always seen, whatever the load.
printf '#!/bin/sh\necho unsat\n' > "$tmp/liar"; chmod +x "$tmp/liar"
"$AXLE" verify --no-cache --solver-binary "$tmp/liar" --confirm-grace 120 --confirm-floor 120 \
  --format json rules/examples/slice_dyup_slice.axl > "$tmp/liar.json" 2> "$tmp/liar.err"
check "liar: no VERIFIED" jqt -s 'all(.verdict != "verified")' "$tmp/liar.json"
check "liar: the disagreement is an ERROR, loudly" \
  sh -c "jq -e -s 'any(.verdict == \"error\" and (.reason | test(\"SOLVERS DISAGREE\")))' $tmp/liar.json > /dev/null && grep -q 'SOLVERS DISAGREE' $tmp/liar.err"
# --require-both refuses a VERIFIED that one solver alone stands behind, at the default floor
"$AXLE" verify --no-cache --solver-binary "$tmp/liar" --require-both --format json \
  rules/examples/slice_dyup_slice.axl > "$tmp/liar2.json" 2> /dev/null
check "liar, --require-both: no VERIFIED at the default floor" jqt -s 'length > 0 and all(.verdict != "verified")' "$tmp/liar2.json"
check "--confirm-floor: a bad value is a usage error" \
  sh -c "\"$AXLE\" verify --confirm-floor 0 rules/examples/slice_dyup_slice.axl 2>&1 >/dev/null | grep -q 'confirm-floor takes a number of seconds'"

# trivial rules
cat > "$tmp/triv.axl" <<'EOF'
rule same_through_let for T in num {
  rclass x
  map s, l over x
  tensor A : T[x: s]
  let P = pad(A, 0, low={x: l})
  P + 1 => add(pad(A, 0, {x: l}), 1)
}
rule kept_on_purpose for T in num expect trivial {
  rclass x
  map s over x
  tensor A : T[x: s]
  A => A
}
rule not_trivial for T in num {
  rclass x
  map s over x
  tensor A : T[x: s]
  A + 0 => A
}
EOF
"$AXLE" verify --no-cache --format json "$tmp/triv.axl" > "$tmp/triv.json"; st=$?
check "trivial: exit 2 (a trivial rule does not meet expect valid)" [ "$st" = 2 ]
check "trivial: flagged, not met" \
  jqt -s '[.[] | select(.rule == "same_through_let")] | all(.verdict == "verified" and .trivial and (.met | not))' "$tmp/triv.json"
check "trivial: expect trivial is met" \
  jqt -s '[.[] | select(.rule == "kept_on_purpose")] | all(.trivial and .met)' "$tmp/triv.json"
check "trivial: a real rewrite is not trivial" \
  jqt -s '[.[] | select(.rule == "not_trivial")] | all(.verdict == "verified" and (.trivial | not) and .met)' "$tmp/triv.json"
"$AXLE" verify --no-cache "$tmp/triv.axl" > "$tmp/triv.txt"
check "trivial: text warning" has "$tmp/triv.txt" 'WARNING: TRIVIAL'
check "trivial: counted apart in the summary" has "$tmp/triv.txt" '2 verified, 0 invalid, 0 unknown, 4 trivial; 4 of 6 as expected'
"$AXLE" gate --no-cache --format junit "$tmp/triv.axl" > "$tmp/triv.xml"
check "trivial: JUnit error" has "$tmp/triv.xml" 'VERIFIED, expected valid (trivial)'
"$AXLE" fmt "$tmp/triv.axl" > "$tmp/fmt.axl"
check "trivial: fmt keeps expect trivial" has "$tmp/fmt.axl" 'rule kept_on_purpose for T in num expect trivial {'
"$AXLE" verify --no-cache --rule concat_01_list_binary rules/xla/concat.axl > /dev/null; st=$?
check "concat_01 (expect trivial): exit 0" [ "$st" = 0 ]

# exp with a division of two non-numeral terms (A / exp(B)): z3 proves it, cvc5 1.0 cannot
# decide it, so cvc5 is not waited for after z3's unsat (smt/portfolio.c `hopeless`): the
# label is z3's alone, as it was after the grace. With --require-both cvc5 is waited for;
# a query without such a division (pow_03_exp) always is.
AXLE_DEBUG_CONFIRM=1 "$AXLE" verify --no-cache --jobs 1 --format json --rule div_02_exp \
  rules/xla-extra/divide.axl > "$tmp/hl.json" 2> "$tmp/hl.err"
check "div_02_exp: VERIFIED, by z3 alone" \
  jqt -s '.[0] | .verdict == "verified" and .confirmed_by == ["z3"]' "$tmp/hl.json"
check "div_02_exp: cvc5 not waited for" has "$tmp/hl.err" 'cvc5 unknown (not waited for)'
AXLE_DEBUG_CONFIRM=1 "$AXLE" verify --no-cache --jobs 1 --require-both --rule div_02_exp \
  rules/xla-extra/divide.axl > /dev/null 2> "$tmp/hl2.err"
check "div_02_exp --require-both: cvc5 waited for" [ "$(grep -c 'not waited for' "$tmp/hl2.err")" = 0 ]
AXLE_DEBUG_CONFIRM=1 "$AXLE" verify --no-cache --jobs 1 --rule pow_03_exp rules/xla-extra/pow.axl \
  > /dev/null 2> "$tmp/hl3.err"
check "pow_03_exp (no such division): cvc5 waited for" [ "$(grep -c 'not waited for' "$tmp/hl3.err")" = 0 ]

# a model that does not replay, the other solver still at the query: the small-instance
# search runs at once (verify.c `search`, portfolio.c `refuted_early`) instead of after cvc5's
# time limit; its counterexample, replayed, makes the mutant INVALID
AXLE_DEBUG_CONFIRM=1 "$AXLE" verify --no-cache --jobs 1 --format json --rule log_06_pow_guarded_weak \
  rules/xla-extra-mutants/log.axl > "$tmp/early.json" 2> "$tmp/early.err"
check "log_06_pow_guarded_weak: INVALID by small instances, with its counterexample" \
  jqt '.verdict == "invalid" and .met and (.reason | test("found by replaying small instances")) and .counterexample.lhs == "NaN" and .counterexample.rhs == "0"' "$tmp/early.json"
check "log_06_pow_guarded_weak: refuted while cvc5 ran" \
  has "$tmp/early.err" 'z3 sat (not replayed) [0-9]* ms; cvc5 unknown -1 ms; refuted early (no model)'

echo "verdict_trust: $pass passed, $fail failed"
[ "$fail" = 0 ]
