#!/usr/bin/env bash
# rules/xla-extra (XLA simplifier rules that use log, pow, rsqrt, sqrt, exp, abs, negate —
# beyond TensorRight's corpus) and their mutated twins, end to end with both solvers: every
# verdict as the file expects it, every INVALID with a replayed counterexample, the three XLA
# rules that are wrong with the counterexamples that show it, every rule tagged for the
# results table (tools/xla-extra-table.sh), and the oracles of the log-of-root fact
# (tests/verify/xla-extra-unproved) UNKNOWN, never VERIFIED or INVALID.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
command -v jq > /dev/null || { echo "xla_extra: jq not found"; exit 77; }

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json rules/xla-extra > "$tmp/rules.json" 2> "$tmp/err"
st=$?
check "xla-extra: exit 0 (all as expected)" [ "$st" = 0 ]
n=$(jq -s 'length' "$tmp/rules.json")
check "xla-extra: 111 results (66 rules; reshapes for every type, abs_01, abs_05, neg_01, pow_01, 02, 04, 10 for int and real, gather 7 rules 19 results, scatter 7 rules 14 results, flatten 5 rules 13 results)" [ "$n" = 111 ]
check "xla-extra: every verdict meets its expectation" \
  [ "$(jq -s '[.[] | select(.met != true)] | length' "$tmp/rules.json")" = 0 ]
check "xla-extra: every rule expected valid is VERIFIED" \
  [ "$(jq -s '[.[] | select(.expected == "valid" and .verdict != "verified")] | length' "$tmp/rules.json")" = 0 ]
check "xla-extra: exactly six XLA rules wrong (log_02, log_05, pow_08; on int pow_11, 13, 14)" \
  [ "$(jq -r -s '[.[] | select(.expected == "invalid") | .rule] | sort | join(",")' "$tmp/rules.json")" = "log_02_pow,log_05_pow_guarded,pow_08_pow,pow_11_minus_one_int,pow_13_minus_two_int,pow_14_pow_int" ]
check "xla-extra: every INVALID carries a counterexample" \
  [ "$(jq -s '[.[] | select(.verdict == "invalid" and .counterexample == null)] | length' "$tmp/rules.json")" = 0 ]
check "log_02_pow: A = 0, B = 0 gives 0 against NaN" \
  [ "$(jq -r 'select(.rule == "log_02_pow") | .counterexample | "\(.lhs) \(.rhs) \([.reads[].value] | join(","))"' "$tmp/rules.json")" = "0 NaN 0,0" ]
check "log_05_pow_guarded: A = -1 (a non-integer B) gives NaN against 0" \
  [ "$(jq -r 'select(.rule == "log_05_pow_guarded") | .counterexample | "\(.lhs) \(.rhs) \(.reads[] | select(.tensor == "A") | .value)"' "$tmp/rules.json")" = "NaN 0 -1" ]
check "pow_08_pow: a negative base (lhs and rhs of opposite signs)" \
  [ "$(jq -r 'select(.rule == "pow_08_pow") | .counterexample | (.lhs | startswith("-")) != (.rhs | startswith("-"))' "$tmp/rules.json")" = true ]
# XLA's integer pow (0 for a negative exponent unless the base is 1) against XLA's 1/A (1/0 =
# -1): A = 0 or A = -1, where the two sides are 0 and -1
check "pow_11_minus_one_int: A = 0 or -1, 0 against -1" \
  jqt -s '.[] | select(.rule == "pow_11_minus_one_int") | .counterexample | .lhs == "0" and .rhs == "-1" and ([.reads[].value] | . == ["0"] or . == ["-1"])' "$tmp/rules.json"
check "pow_12_minus_one_int_guarded (A not 0, not -1): VERIFIED" \
  [ "$(jq -r 'select(.rule == "pow_12_minus_one_int_guarded") | .verdict' "$tmp/rules.json")" = verified ]

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json rules/xla-extra-mutants > "$tmp/mut.json" 2> "$tmp/err"
st=$?
m=$(jq -s 'length' "$tmp/mut.json")
check "xla-extra mutants: exit 0" [ "$st" = 0 ]
check "xla-extra mutants: 102 results (gather: 7 rules, 15 results; scatter: 7 rules, 14 results; flatten: 5 rules, 10 results)" [ "$m" = 102 ]
check "xla-extra mutants: all INVALID" \
  [ "$(jq -s '[.[] | select(.verdict == "invalid")] | length' "$tmp/mut.json")" = "$m" ]
check "xla-extra mutants: each with a replayed counterexample" \
  [ "$(jq -s '[.[] | select(.counterexample.failed != null)] | length' "$tmp/mut.json")" = "$m" ]
for fam in log pow div reshape sqrt abs gather scatter flatten; do
  check "xla-extra mutants: family $fam has twins" \
    [ "$(jq -s --arg f "${fam}_" '[.[] | select(.rule | startswith($f))] | length' "$tmp/mut.json")" -ge 3 ]
done
for r in exp_01_zero_as_zero neg_01_mul_negs_one_kept; do
  check "xla-extra mutants: $r is there" \
    [ "$(jq -s --arg r "$r" '[.[] | select(.rule == $r)] | length' "$tmp/mut.json")" -ge 1 ]
done
# the guard of pow(A, 0.5) => sqrt(A) matters only at -inf, which a finite input reaches
# through log(0)
check "sqrt_07_pow_half_neg_inf: A = 0, +inf against NaN" \
  [ "$(jq -r 'select(.rule == "sqrt_07_pow_half_neg_inf") | .counterexample | "\(.lhs) \(.rhs) \([.reads[].value] | join(","))"' "$tmp/mut.json")" = "+inf NaN 0" ]

# the log-of-root fact's oracles: false rules a wrong factor in the fact would prove, and
# that no exact counterexample can refute (the file's header says why): UNKNOWN with the
# replay's or the solvers' reason, never VERIFIED, never INVALID. A short per-query limit
# only makes UNKNOWN likelier; it cannot turn one into another verdict.
"$AXLE" verify --no-cache --jobs 2 --timeout 5 --format json tests/verify/xla-extra-unproved > "$tmp/unp.json" 2> "$tmp/err"
check "xla-extra unproved: 3 results" [ "$(jq -s 'length' "$tmp/unp.json")" = 3 ]
check "xla-extra unproved: every one UNKNOWN with a reason" \
  [ "$(jq -s '[.[] | select(.verdict == "unknown" and (.reason | length) > 0)] | length' "$tmp/unp.json")" = 3 ]
check "sqrt_06_log_sqrt (ln(sqrt A) => 0.5 ln A): VERIFIED" \
  [ "$(jq -r 'select(.rule == "sqrt_06_log_sqrt") | .verdict' "$tmp/rules.json")" = verified ]

# log is exact only at 1: a rule whose only counterexamples need log(2) is UNKNOWN, never
# INVALID (exp(log(A)) => A at A = 2 is true, so a wrong right side A + 1 for A > 0 must
# be found at A = 1 (log 1 = 0) or not at all)
cat > "$tmp/unk.axl" <<'AXL'
rule log_inexact expect invalid {
  rclass x
  map s over x
  tensor A : real[x: s]
  require A > 1
  log(A) => A - A
}
AXL
"$AXLE" verify --no-cache --format json "$tmp/unk.axl" > "$tmp/unk.json" 2>&1
check "log at irrational points: UNKNOWN with the replay's reason, not INVALID" \
  [ "$(jq -r '"\(.verdict) \(.reason | test("no exact rational value|not the true ones"))"' "$tmp/unk.json")" = "unknown true" ]

# reshape: the split's row-major index (A[2] read for A[1] when the merge swaps the axes)
check "reshape_01_merge_swapped: a rank-1 counterexample for every type" \
  [ "$(jq -s '[.[] | select(.rule == "reshape_01_merge_swapped" and .verdict == "invalid" and .counterexample.ranks.x == 1)] | length' "$tmp/mut.json")" = 3 ]

# the results table script accepts every tag
tools/xla-extra-table.sh "$tmp/rules.json" > "$tmp/table.md" 2> "$tmp/table.err"; st=$?
check "xla-extra table: exit 0" [ "$st" = 0 ]
check "xla-extra table: counts the corpus" has "$tmp/table.md" "rules/xla-extra"

echo "xla-extra: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
