#!/usr/bin/env bash
# The elementary functions at their special values, as XLA computes them (docs/semantics.md,
# "Special values"): the rules of tests/verify/specials/values.axl (tanh, logistic, silu,
# exp, log, sqrt, rsqrt, pow, max/min, the conversions at ±inf, NaN, 0, the overflow
# thresholds and subnormal ties) all VERIFIED, their wrong twins in twins.axl all INVALID
# with a replayed counterexample that shows the two values; in IEEE mode
# (tests/verify/ieee/specials.axl) max and min of signed zeros and NaN HOLD-BOUNDED as
# IEEE 754-2019 maximum/minimum, the first-of-equals, compare-and-select and NaN-dropping
# readings are INVALID at -0, +0 and NaN, and tanh stays UNKNOWN (exp has no IEEE model).
# The domains' own tables are unit tests: check_semantics (reals), check_ewop (doubles),
# check_float (IEEE), check_hlo (tests/hlo/specials.hlo against tests/hlo/reference.py).
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
D=tests/verify/specials

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json "$D/values.axl" > "$tmp/v.json" 2> "$tmp/err"; st=$?
check "values: exit 0 (all as expected)" [ "$st" = 0 ]
check "values: 61 results, all VERIFIED" jqt -s 'length == 61 and all(.[]; .verdict == "verified" and .met)' "$tmp/v.json"
check "values: tanh(inf) => 1 among them" \
  jqt -s 'any(.[]; .rule == "tanh_pinf" and .verdict == "verified")' "$tmp/v.json"
check "values: tanh of a quotient by zero (+inf or NaN by the tensor) VERIFIED" \
  jqt -s 'any(.[]; .rule == "tanh_of_a_quotient_by_zero" and .verdict == "verified")' "$tmp/v.json"
check "values: tanh stays odd" jqt -s 'any(.[]; .rule == "tanh_odd" and .verdict == "verified")' "$tmp/v.json"

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json "$D/twins.axl" > "$tmp/t.json" 2> "$tmp/err"; st=$?
check "twins: exit 0 (all as expected)" [ "$st" = 0 ]
check "twins: 24 results, all INVALID" jqt -s 'length == 24 and all(.[]; .verdict == "invalid" and .met)' "$tmp/t.json"
check "twins: every INVALID has a replayed counterexample" \
  [ "$(jcount "$tmp/t.json" '.counterexample.failed == null')" = 0 ]
side() {   # side RULE LHS RHS: the counterexample's two values
  jqt -s --arg r "$1" --arg l "$2" --arg h "$3" \
    'any(.[]; .rule == $r and .counterexample.lhs == $l and .counterexample.rhs == $h)' "$tmp/t.json"
}
check "twins: tanh(inf) is 1, not the exp form's NaN" side tanh_pinf_is_nan 1 NaN
check "twins: logistic(-inf) is 0" side logistic_ninf_is_half 0 1/2
check "twins: silu(-inf) is NaN (-inf * 0)" side silu_ninf_is_zero NaN 0
check "twins: log(0) is -inf" side log_zero_is_nan -inf NaN
check "twins: rsqrt(0) is +inf" side rsqrt_zero_is_zero +inf 0
check "twins: pow(NaN, 0) is 1" side pow_nan_to_zero_is_nan 1 NaN
check "twins: pow(0, -inf) is +inf" side pow_zero_to_ninf_is_zero +inf 0
check "twins: max(NaN, 1) is NaN" side max_drops_nan_first NaN 1
check "twins: max(1, NaN) is NaN" side max_drops_nan_second NaN 1
check "twins: to_f16(65520) overflows to +inf" side f16_overflow_saturates +inf 65504
check "twins: to_f16(2^-25) ties to the even 0" side f16_half_the_least_subnormal_rounds_up 0 1/16777216
check "twins: to_bf16 of its threshold is +inf" side bf16_overflow_saturates +inf 338953138925153547590470800371487866880
check "twins: the tensor case reads an A != 0, lhs 1 against NaN" jqt -s '
  any(.[]; .rule == "tanh_of_a_quotient_by_zero_is_nan" and .counterexample.lhs == "1"
      and .counterexample.rhs == "NaN" and .counterexample.reads[0].tensor == "A"
      and .counterexample.reads[0].value != "0")' "$tmp/t.json"
check "twins: max of a tensor and NaN keeps the NaN" jqt -s '
  any(.[]; .rule == "max_of_a_tensor_drops_nan" and .counterexample.lhs == "NaN"
      and .counterexample.rhs != "NaN")' "$tmp/t.json"
"$AXLE" verify --no-cache --rule tanh_pinf_is_nan "$D/twins.axl" > "$tmp/t.txt" 2> "$tmp/err"
check "twins text: replayed, lhs = 1, rhs = NaN" \
  sh -c "grep -q 'counterexample (replayed)' '$tmp/t.txt' && grep -q 'lhs = 1, rhs = NaN' '$tmp/t.txt'"

# IEEE mode: signed zeros and NaN of max and min, f32 and bf16 (f16 adds nothing here)
F=tests/verify/ieee/specials.axl
"$AXLE" verify --no-cache --jobs 2 --format json "$F" > "$tmp/ir.json" 2> "$tmp/err"; st=$?
check "ieee file, real mode: exit 0, all 8 VERIFIED" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 8 and all(.[]; .verdict == \"verified\")' '$tmp/ir.json' > /dev/null"
"$AXLE" verify --no-cache --jobs 2 --numbers ieee --ieee-types f32,bf16 --ieee-max-rank 1 --timeout 60 \
  --format json "$F" > "$tmp/i.json" 2> "$tmp/err"
verdict() {   # verdict RULE V: V in both formats
  jqt -s --arg r "$1" --arg v "$2" '[.[] | select(.rule == $r) | .verdict] == [$v, $v]' "$tmp/i.json"
}
check "ieee: max(±0, ∓0) = +0 HOLDS-BOUNDED" verdict max_of_zeros holds-bounded
check "ieee: min(±0, ∓0) = -0 HOLDS-BOUNDED" verdict min_of_zeros holds-bounded
check "ieee: maximum commutes (NaN and zeros) HOLDS-BOUNDED" verdict max_commutes holds-bounded
check "ieee: max of zeros is not the first: INVALID at -0, +0 against -0" jqt -s '
  [.[] | select(.rule == "max_of_zeros_is_the_first")] | length == 2 and all(.[]; .verdict == "invalid"
   and .counterexample.reads[0].value.value == "-0" and .counterexample.lhs.value == "0"
   and .counterexample.rhs.value == "-0")' "$tmp/i.json"
check "ieee: min of zeros is not the first: INVALID at +0, -0 against +0" jqt -s '
  [.[] | select(.rule == "min_of_zeros_is_the_first")] | length == 2 and all(.[]; .verdict == "invalid"
   and .counterexample.reads[0].value.value == "0" and .counterexample.lhs.value == "-0")' "$tmp/i.json"
check "ieee: compare-and-select max INVALID" verdict max_is_a_select invalid
check "ieee: a max that drops a NaN second operand INVALID, lhs NaN" jqt -s '
  [.[] | select(.rule == "max_drops_a_nan_second")] | length == 2 and all(.[]; .verdict == "invalid"
   and (.counterexample.lhs.value | test("NaN")) and (.counterexample.rhs.value | test("NaN") | not))' "$tmp/i.json"
check "ieee: tanh UNKNOWN, exp has no IEEE model" jqt -s '
  [.[] | select(.rule == "tanh_odd_in_floats")] | length == 2 and all(.[]; .verdict == "unknown"
   and (.reason | test("exp has no IEEE model")))' "$tmp/i.json"

echo "specials: $pass passed, $fail failed"
[ "$fail" = 0 ]
