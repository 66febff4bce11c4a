#!/usr/bin/env bash
# Comparisons, select and iota (a causal mask) in the equivalence check and the search
# (docs/superopt.md, "Masks"): the field has no reading of a comparison or of a mask's
# choice, so
#   * equiv of a masked softmax against its fused graph is "cannot decide" (exit 3) with a
#     message naming the comparison and the select, never "equivalent";
#   * superopt refuses to search a program with a comparison (exit 3, the reason given);
#   * a whole module (tests/hlo/causal_attention.hlo, as JAX emits it) is split: the mask is
#     left as pre-defined kernels, the softmax after it is fused and proved, and the module
#     graph is accepted by the check cut at the mask statements both hold (the attacks on
#     that check are in tests/unit/check_partition.c, mask_cut).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt

"$AXLE" equiv $s/causal.axl $s/causal.mug > "$tmp/out" 2>&1
check "equiv: exit 3" test $? -eq 3
check "equiv: never equivalent" bash -c "! grep -q '^equivalent' '$tmp/out'"
check "equiv: the comparison named" has "$tmp/out" "ge in 'm': it needs an order, which the finite field Zp x Zq lacks"
check "equiv: the select named" has "$tmp/out" "select in 'x': its mask has no truth value in the finite field"

"$AXLE" superopt $s/causal.axl --time-limit 5 --jobs 1 --progress never --output "$tmp/x.mug" > "$tmp/out" 2>&1
check "superopt: exit 3" test $? -eq 3
check "superopt: the reason" has "$tmp/out" "superopt cannot search a program that uses ge"
check "superopt: nothing written" test ! -e "$tmp/x.mug"

"$AXLE" superopt tests/hlo/causal_attention.hlo --time-limit 5 --jobs 1 --progress never \
  --output-dir "$tmp/ca" > "$tmp/out" 2>&1
st=$?
check "module: exit 0" test $st -eq 0
check "module: the mask region refused by the search" has "$tmp/out" "refused by the search: superopt cannot search a program that uses ge"
check "module: the softmax region proved" has "$tmp/out" "equivalent (the greedy graph)"
check "module: the graph written" test -s "$tmp/ca/module.mug"
check "module: the mask kept" has "$tmp/ca/module.mug" "select(broadcast_12, multiply_7"
[ $st -eq 0 ] || cat "$tmp/out"
echo "superopt_mask: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
