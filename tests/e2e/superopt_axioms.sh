#!/usr/bin/env bash
# The superoptimizer's axioms (issue 14, item 3): every rule of rules/superopt is VERIFIED
# (the names the search's axiom table cites are there), every mutated twin in
# rules/superopt-mutants is INVALID with a replayed counterexample, and the axioms the
# verifier cannot decide yet (tests/verify/superopt-unproved) come out UNKNOWN — never VERIFIED.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
"$AXLE" verify --no-cache --jobs 2 rules/superopt >"$tmp/ok" 2>&1
check "rules/superopt: exit 0" [ $? -eq 0 ]
for name in eq_add_comm eq_mul_comm eq_add_assoc eq_mul_assoc eq_mul_add_distrib \
    eq_div_add_distrib eq_mul_div_assoc eq_div_div eq_sum_one eq_sum_sum eq_sum_mul \
    eq_matmul_tiles eq_exp_add eq_silu_def eq_broadcast_add eq_broadcast_mul; do
  check "$name is VERIFIED" has "$tmp/ok" " $name \[[a-z]*\]  VERIFIED"
done
check "nothing in rules/superopt is not VERIFIED" [ "$(grep -c '\]  VERIFIED' "$tmp/ok")" -eq "$(grep -c '^rules/superopt/' "$tmp/ok")" ]

"$AXLE" verify --no-cache --jobs 2 rules/superopt-mutants >"$tmp/mut" 2>&1
check "rules/superopt-mutants: every twin as expected (exit 0)" [ $? -eq 0 ]
check "every twin INVALID" [ "$(grep -c '\]  INVALID (expected invalid)' "$tmp/mut")" -eq "$(grep -c '^rules/superopt-mutants/' "$tmp/mut")" ]
check "counterexamples are replayed" has "$tmp/mut" "counterexample (replayed)"

"$AXLE" verify --no-cache --jobs 2 --timeout 5 tests/verify/superopt-unproved >"$tmp/unp" 2>&1
check "the undecidable axioms are not VERIFIED" [ "$(grep -c '\]  VERIFIED' "$tmp/unp")" -eq 0 ]
check "... but UNKNOWN, with a reason" [ "$(grep -c '\]  UNKNOWN' "$tmp/unp")" -eq "$(grep -c '^tests/verify/superopt-unproved/' "$tmp/unp")" ]

echo "superopt axioms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
