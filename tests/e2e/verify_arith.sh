#!/usr/bin/env bash
# The rules whose proofs need axle's exact arithmetic preprocessing (smt/arith.h):
# divisibility by unknown dilations and strides, remainders by an unknown constant, and
# the case splits on signs -- and the real division of divmod_03 (z3's nlsat first, see
# smt/z3.c). Each must be VERIFIED with z3 alone, and each mutated twin
# INVALID with a replayed counterexample -- the preprocessing must not hide a bug.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
verdict() {   # verdict RULE TYPE: the verdict of RULE at TYPE in out.json
  jq -r --arg r "$1" --arg t "$2" 'select(.rule == $r and (.type // "untyped") == $t) | .verdict' \
    "$tmp/out.json"
}

valid=(conv_00_fold_input_pad conv_01_fold_filter_pad generalize_fold_conv_input_pad
       divmod_03_div_of_divs divmod_07_rem_iota_plus_const divmod_08_rem_plus_const
       slice_04_pad_inverse)
args=()
for r in "${valid[@]}"; do args+=(--rule "$r"); done
"$AXLE" verify --no-cache --solver z3 --timeout 30 --format json "${args[@]}" rules/xla \
  > "$tmp/out.json" 2> "$tmp/err"
check "valid rules: exit 0" [ $? = 0 ]
for r in conv_00_fold_input_pad conv_01_fold_filter_pad generalize_fold_conv_input_pad; do
  for t in int real; do check "$r [$t] verified" [ "$(verdict $r $t)" = verified ]; done
done
for r in divmod_03_div_of_divs divmod_07_rem_iota_plus_const divmod_08_rem_plus_const; do
  check "$r verified" [ "$(verdict $r untyped)" = verified ]
done
for t in bool int real; do
  check "slice_04_pad_inverse [$t] verified" [ "$(verdict slice_04_pad_inverse $t)" = verified ]
done
check "the generalized fold needs rank 1 only" \
  [ "$(jq -c 'select(.rule == "generalize_fold_conv_input_pad") | .bounds' "$tmp/out.json" | sort -u)" \
    = '{"b":1,"f":1,"o":1,"s":1}' ]

# the twins: every one INVALID with a replayed counterexample
"$AXLE" verify --no-cache --solver z3 --timeout 30 --format json \
  --rule 'conv_0[01]_*' --rule 'generalize_*' --rule 'divmod_0[378]_*' --rule 'slice_04_*' \
  rules/xla-mutants > "$tmp/out.json" 2> "$tmp/err"
check "mutants: exit 0" [ $? = 0 ]
total=$(wc -l < "$tmp/out.json")
check "mutants: at least 8 results" [ "$total" -ge 8 ]
check "mutants: all invalid with a counterexample" \
  [ "$(jq -r 'select(.verdict == "invalid" and .counterexample != null) | .rule' "$tmp/out.json" | wc -l)" = "$total" ]

# the generalized fold with its dilation arithmetic changed (rules/examples-mutants)
"$AXLE" verify --no-cache --solver z3 --timeout 30 --format json --rule 'fold_conv_input_pad_general_*' \
  rules/examples-mutants/fold_conv_input_pad.axl > "$tmp/out.json" 2> "$tmp/err"
check "fold mutants: exit 0" [ $? = 0 ]
check "fold mutants: 6 results, all invalid" \
  [ "$(jq -r 'select(.verdict == "invalid") | .rule' "$tmp/out.json" | wc -l)" = 6 ]
check "shifted fold: the values differ (not only the sizes)" \
  [ "$(jq -r 'select(.rule == "fold_conv_input_pad_general_shifted") | .counterexample.failed' "$tmp/out.json" | sort -u)" \
    = "the values differ at the access" ]

echo "verify_arith: $pass passed, $fail failed"
[ "$fail" = 0 ]
