#!/usr/bin/env bash
# IEEE mode: `axle verify --numbers ieee` checks rules in floating point
# at bounded ranks and sizes. Rules that hold over the reals but not in floats are INVALID
# with a replayed float counterexample (associativity, x + 0 for x = -0, (x*y)/y); rules
# that hold in floats are HOLDS-BOUNDED, which never meets `expect valid`; exp is not
# checkable; int rules are outside the mode; bad options are usage errors (exit 3); the
# default stays --numbers real.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
jqt() { jq -e "$@" > /dev/null; }
F=tests/verify/ieee/floats.axl
V() { "$AXLE" verify --numbers ieee --jobs 2 --progress never --timeout 60 "$@"; }

# holds over the reals (the default mode is unchanged)
"$AXLE" verify --no-cache --jobs 2 --rule add_assoc --rule mul_one --rule add_zero --rule mul_div \
  --format json "$F" > "$tmp/real.json"; st=$?
check "real mode: exit 0" [ "$st" = 0 ]
check "real mode: all VERIFIED" jqt -s 'length == 4 and all(.verdict == "verified" and .numbers == "real" and .ieee == null)' "$tmp/real.json"

# associativity: INVALID with a float counterexample whose two sides differ
V --ieee-types bf16,f16 --ieee-max-rank 1 --rule add_assoc --format json "$F" > "$tmp/assoc.json"; st=$?
check "assoc: exit 1 (contradicts expect valid)" [ "$st" = 1 ]
check "assoc: INVALID in bf16 and f16" jqt -s 'map(.type) == ["f16", "bf16"] and all(.verdict == "invalid")' "$tmp/assoc.json"
check "assoc: values differ, bits differ" jqt -s 'all(.counterexample.failed == "the values differ" and .counterexample.lhs.bits != .counterexample.rhs.bits)' "$tmp/assoc.json"
check "assoc: three inputs as bits and decimals" jqt -s 'all(.counterexample.reads | length == 3 and all(.value.bits | test("^0x[0-9a-f]{4}$")))' "$tmp/assoc.json"
check "assoc: bounds stated" jqt -s 'all(.ieee.max_rank == 1 and .ieee.max_size == 3 and .ieee.rounding == "nearest-even")' "$tmp/assoc.json"

# x + 0 fails only for -0: the counterexample's input is -0
V --ieee-max-rank 1 --rule add_zero --format json "$F" > "$tmp/zero.json"
check "x + 0: INVALID in all three formats" jqt -s 'map(.type) == ["f32", "f16", "bf16"] and all(.verdict == "invalid")' "$tmp/zero.json"
check "x + 0: the input is -0, +0 against -0" jqt -s 'all(.counterexample.reads[0].value.value == "-0" and .counterexample.lhs.value == "0" and .counterexample.rhs.value == "-0")' "$tmp/zero.json"
check "x + 0: f16 bits" jqt -s '.[1].counterexample.reads[0].value.bits == "0x8000"' "$tmp/zero.json"
V --ieee-max-rank 1 --rule add_zero "$F" > "$tmp/zero.txt"
check "x + 0 text: -0 printed with bits" has "$tmp/zero.txt" 'A\[0\] = 0x80000000 (-0)'
check "x + 0 text: replayed" has "$tmp/zero.txt" 'counterexample in f32 (replayed in exact IEEE arithmetic): the values differ'

# (x * y) / y = x fails (bf16: fast to find)
V --ieee-types bf16 --ieee-max-rank 1 --rule mul_div --format json "$F" > "$tmp/div.json"
check "(x*y)/y: INVALID" jqt '.verdict == "invalid" and .type == "bf16"' "$tmp/div.json"

# rules that hold in floats: HOLDS-BOUNDED, never VERIFIED; it meets `expect valid` (the
# strongest positive verdict of a bounded check), and the summary says it is no proof
V --ieee-max-rank 1 --rule mul_one --rule sub_zero --rule max_neg_inf --format json "$F" > "$tmp/holds.json"; st=$?
check "holds: exit 0 (met)" [ "$st" = 0 ]
check "holds: HOLDS-BOUNDED, 9 results" jqt -s 'length == 9 and all(.verdict == "holds-bounded")' "$tmp/holds.json"
check "holds: expect valid met" jqt -s 'all(.met == true and .expected == "valid")' "$tmp/holds.json"
check "holds: names who stands behind it" jqt -s 'all(.confirmed_by | length >= 1)' "$tmp/holds.json"
V --ieee-types f16 --ieee-max-rank 1 --rule mul_one "$F" > "$tmp/holds.txt"; st=$?
check "holds text: label with bounds" has "$tmp/holds.txt" 'mul_one \[f16\]  HOLDS-BOUNDED (f16, rank ≤ 1, size ≤ 3; '
check "holds text: met" bash -c "! grep -q 'NOT MET' '$tmp/holds.txt'"
check "holds text: summary says not proofs" \
  has "$tmp/holds.txt" '1 holds-bounded (not proofs); 1 of 1 as expected (HOLDS-BOUNDED meets expect valid)'
V --ieee-types f16 --ieee-max-rank 1 --rule mul_one --format junit "$F" > "$tmp/holds.xml"
check "holds JUnit: a pass" bash -c "! grep -q '<error\|<failure' '$tmp/holds.xml'"
check "holds JUnit: format in the name" has "$tmp/holds.xml" 'name="mul_one \[f16\]"'

# a reduction summed in a fixed order: the sum of sums differs from the one sum
V --ieee-types bf16 --ieee-max-rank 1 --ieee-max-size 2 --rule reduce_split --format json "$F" > "$tmp/red.json"
check "reduce order: INVALID in bf16" jqt '.verdict == "invalid"' "$tmp/red.json"
check "reduce order: stated" jqt '.ieee.sum_order | test("left-to-right")' "$tmp/red.json"

# exp: no IEEE model; int: outside the mode
V --ieee-max-rank 1 --rule exp_twice --rule int_only --format json "$F" > "$tmp/exp.json"
check "exp: UNKNOWN, no IEEE model" jqt -s '[.[] | select(.rule == "exp_twice")] | length == 3 and all(.verdict == "unknown" and (.reason | test("exp has no IEEE model")))' "$tmp/exp.json"
check "int: one UNKNOWN, outside IEEE mode" jqt -s '[.[] | select(.rule == "int_only")] | length == 1 and all(.verdict == "unknown" and .type == "int" and (.reason | test("outside IEEE mode")))' "$tmp/exp.json"

# bad options: usage errors, exit 3, naming the option
bad() {   # bad NAME PATTERN ARGS...
  local name=$1 pat=$2; shift 2
  "$AXLE" verify "$@" "$F" > /dev/null 2> "$tmp/err"; local s=$?
  check "$name: exit 3" [ "$s" = 3 ]
  check "$name: message" has "$tmp/err" "$pat"
}
bad "--numbers float" "error: verify: --numbers takes real or ieee" --numbers float
bad "--ieee-max-size 0" "error: verify: --ieee-max-size takes a whole number from 1 to 8" --numbers ieee --ieee-max-size 0
bad "--ieee-max-rank 9" "error: verify: --ieee-max-rank takes a whole number from 1 to 4" --numbers ieee --ieee-max-rank 9
bad "--ieee-types f64" "unknown format 'f64'" --numbers ieee --ieee-types f32,f64
bad "--ieee-* without ieee" "need --numbers ieee" --ieee-max-rank 2
bad "--bound-slack in ieee" "--bound-slack is for --numbers real" --numbers ieee --bound-slack 1
"$AXLE" gate --numbers ieee "$F" > /dev/null 2> "$tmp/err"; st=$?
check "gate --numbers ieee: exit 3" [ "$st" = 3 ]
check "gate --numbers ieee: says why" has "$tmp/err" 'cannot gate'

echo "ieee_mode: $pass passed, $fail failed"
[ "$fail" = 0 ]
