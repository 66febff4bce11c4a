#!/usr/bin/env bash
# The superoptimizer's axioms: every rule of rules/superopt is VERIFIED
# (every name the search's pruning cites is there: superopt/search/prune.c ax_prune_axioms), every
# mutated twin in rules/superopt-mutants is INVALID with a replayed counterexample, the
# rules the verifier must not decide (tests/verify/axioms-unknown) are UNKNOWN with their
# reasons — never VERIFIED — and `axle superopt` passes its gate without --no-gate.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export XDG_CACHE_HOME="$tmp/cache"
"$AXLE" verify --jobs 2 rules/superopt >"$tmp/ok" 2>&1
check "rules/superopt: exit 0" [ $? -eq 0 ]
for name in eq_add_comm eq_mul_comm eq_add_assoc eq_mul_assoc eq_mul_add_distrib \
    eq_div_add_distrib eq_mul_div_assoc eq_div_div eq_sum_one eq_sum_sum eq_sum_mul \
    eq_matmul_tiles eq_exp_add eq_silu_def eq_broadcast_add eq_broadcast_mul \
    eq_sum_add eq_sum_div eq_matmul_div eq_rms_def eq_sqrt_mul_self \
    eq_const_mul eq_const_div eq_const_add eq_add_zero eq_neg_def eq_sub_def eq_sum_scale \
    eq_matmul_scale eq_rsqrt_def eq_logistic_def eq_silu_logistic eq_tanh_logistic eq_logistic_neg \
    eq_gelu_tanh_logistic eq_f32_of_f16 eq_f32_of_bf16 eq_f16_twice eq_f16_round_trip eq_f16_neg \
    eq_bf16_relabel eq_f16_slice eq_f32_broadcast; do
  check "$name is VERIFIED" has "$tmp/ok" " $name \[[a-z]*\]  VERIFIED"
done
check "nothing in rules/superopt is not VERIFIED" [ "$(grep -c '\]  VERIFIED' "$tmp/ok")" -eq "$(grep -c '^rules/superopt/' "$tmp/ok")" ]
check "eq_rms_def: the rms_norm axis is fixed at rank 1" has "$tmp/ok" "eq_rms_def \[real\]  VERIFIED.*i: 1 (fixed: rms_norm axis"

"$AXLE" verify --no-cache --jobs 2 rules/superopt-mutants >"$tmp/mut" 2>&1
check "rules/superopt-mutants: every twin as expected (exit 0)" [ $? -eq 0 ]
check "every twin INVALID" [ "$(grep -c '\]  INVALID (expected invalid)' "$tmp/mut")" -eq "$(grep -c '^rules/superopt-mutants/' "$tmp/mut")" ]
check "counterexamples are replayed" has "$tmp/mut" "counterexample (replayed)"
for name in eq_sum_add_once eq_sum_add_sign eq_sum_add_same eq_sum_div_mul eq_matmul_div_counted \
    eq_sum_div_unguarded eq_matmul_div_unguarded eq_rms_def_no_square eq_rms_def_mul \
    eq_sqrt_square_negative eq_sqrt_add eq_sqrt_of_square eq_const_mul_added eq_const_div_kept \
    eq_const_add_multiplied eq_add_one_dropped eq_neg_def_unsigned eq_sub_def_unsigned \
    eq_sum_scale_twice eq_matmul_scale_twice eq_rsqrt_def_root eq_logistic_def_two \
    eq_silu_logistic_unscaled eq_tanh_logistic_unshifted eq_logistic_neg_plus \
    eq_gelu_tanh_logistic_unhalved eq_f32_of_f16_exact eq_f32_of_bf16_as_f16 eq_f16_twice_via_bf16 \
    eq_f16_round_trip_bf16 eq_f16_neg_dropped eq_f16_add eq_bf16_relabel_f16 eq_f16_slice_dropped \
    eq_f32_broadcast_f16; do
  check "$name is INVALID" has "$tmp/mut" " $name \[[a-z]*\]  INVALID (expected invalid)"
done
# IEEE mode: tanh and logistic go through exp, a conversion has no model: UNKNOWN, never proved
"$AXLE" verify --no-cache --numbers ieee --ieee-types f16 --rule eq_f16_twice --rule eq_tanh_logistic \
  rules/superopt/layers.axl >"$tmp/ieee" 2>&1
check "IEEE mode: tanh is UNKNOWN (exp)" has "$tmp/ieee" "eq_tanh_logistic \[f16\]  UNKNOWN"
check "... with exp's reason" has "$tmp/ieee" "exp has no IEEE model"
check "IEEE mode: a conversion is UNKNOWN" has "$tmp/ieee" "a conversion has no IEEE model in axle"
check "sqrt(-1) is NaN in the replay" grep -A12 ' eq_sqrt_square_negative ' "$tmp/mut" | grep -q 'lhs = NaN, rhs = -1'

u=tests/verify/axioms-unknown
"$AXLE" verify --no-cache --jobs 2 --timeout 5 $u >"$tmp/unk" 2>&1
check "the rules that must stay undecided are not VERIFIED" [ "$(grep -c '\]  VERIFIED' "$tmp/unk")" -eq 0 ]
check "... nor INVALID (but the one marked so)" [ "$(grep -c '\]  INVALID' "$tmp/unk")" -eq 1 ]
check "... but UNKNOWN" [ "$(grep -c '\]  UNKNOWN' "$tmp/unk")" -eq "$(( $(grep -c "^$u/" "$tmp/unk") - 1 ))" ]
reason() { grep -A3 " $1 \[" "$tmp/unk" | grep -q -- "$2"; }
check "int division of a sum: outside the fragment" reason eq_sum_div_int "only products, sums, negations and choices"
check "sum under sqrt: not replayed, not refuted" reason eq_rms_def_sum "a sum under sqrt is uninterpreted"
check "sum under sqrt over any rank: bound inference refuses" reason sqrt_of_sum_any_rank "bound inference for rank class 'i': a sum under sqrt"
check "a divisor zero only from rank 2: refuted at y = 2" has "$tmp/unk" "sum_div_mask_r2 \[real\]  INVALID (expected invalid)"
check "... with its counterexample at rank 2" grep -A4 " sum_div_mask_r2 \[" "$tmp/unk" | grep -q "ranks: i = 1 y = 2"

# --bound-slack 1 over the new axioms changes no verdict
"$AXLE" verify --no-cache --jobs 2 --bound-slack 1 rules/superopt/sums.axl >"$tmp/slack" 2>&1
check "bound slack 1: rules/superopt/sums.axl still all VERIFIED (exit 0)" [ $? -eq 0 ]
check "... every result VERIFIED" [ "$(grep -c '\]  VERIFIED' "$tmp/slack")" -eq "$(grep -c '^rules/superopt/' "$tmp/slack")" ]

# the gate: `axle superopt` proves rules/superopt (cache first: the run above filled it)
# and starts without --no-gate
"$AXLE" superopt tests/superopt/tiny_chain.axl --output "$tmp/g.mug" --progress never --jobs 2 \
  --max-kernel-ops 1 --max-block-ops 6 >"$tmp/gate.out" 2>"$tmp/gate.err"
check "superopt passes the gate by default (exit 0)" [ $? -eq 0 ]
check "... and says nothing of --no-gate" [ "$(grep -c 'no-gate' "$tmp/gate.err")" -eq 0 ]

echo "superopt axioms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
