#!/usr/bin/env bash
# Comparisons, select and iota (a causal mask) in the equivalence check, the search, CUDA
# and the emulator (docs/superopt.md, "Masks"):
#   * a comparison of index-only values (iotas, integer literals, + - * of them) is exact in
#     the field, and so is a select on such a mask: the causal softmax with its mask as
#     pre-defined kernels, and with the mask inside one kernel (block iotas), are equivalent
#     to causal.axl; so is a causal FlashAttention kernel with the mask inside it;
#   * a mask off by one (gt for ge), transposed, or from a row iota that forgets the
#     block's position is refuted; a comparison of data is refused ("cannot decide");
#   * an online softmax whose first tile of a row is all -inf (anticausal.flash.mug) gives
#     no NaN in the interpreter nor in the generated CUDA run by the emulator;
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
check "equiv, kernel-level mask: exit 0" test $? -eq 0
check "equiv, kernel-level mask: equivalent" grep -q '^equivalent' "$tmp/out"
"$AXLE" equiv $s/causal.axl $s/causal.fused.mug > "$tmp/out" 2>&1
check "equiv, mask in the kernel: exit 0" test $? -eq 0
check "equiv, mask in the kernel: equivalent" grep -q '^equivalent' "$tmp/out"
"$AXLE" equiv $s/causal_attn.axl $s/causal_attn.flash.mug > "$tmp/out" 2>&1
check "equiv, causal flash attention: equivalent" grep -q '^equivalent' "$tmp/out"

# attacks: each must be refuted by the field tests, never "equivalent"
attack() {   # name, sed expression, graph, program
  sed "$2" "$3" > "$tmp/$1.mug"
  check "attack $1: the graph changed" bash -c "! cmp -s '$3' '$tmp/$1.mug'"
  "$AXLE" equiv "$4" "$tmp/$1.mug" > "$tmp/$1.out" 2>&1
  local st=$?
  check "attack $1: exit 1" test $st -eq 1
  check "attack $1: not equivalent" grep -q '^not equivalent' "$tmp/$1.out"
}
attack gt 's/m = ge(r, c)/m = gt(r, c)/' $s/causal.fused.mug $s/causal.axl
attack transposed 's/m = ge(r, c)/m = ge(c, r)/' $s/causal.fused.mug $s/causal.axl
attack wrong_axis 's/c = iota(\[1, 16\], axis = 1)/c = iota([1, 16], axis = 0)/' $s/causal.fused.mug $s/causal.axl
attack local_row 's/r = iota(\[32, 1\], axis = 0) imap {x: 0}/r = iota([16, 1], axis = 0) imap {}/' \
  $s/causal_attn.flash.mug $s/causal_attn.axl
attack flash_gt 's/w = ge(r, c)/w = gt(r, c)/' $s/causal_attn.flash.mug $s/causal_attn.axl

# a comparison of data has no reading in the field
sed 's/m = ge(r, c)/m = ge(a, c)/' $s/causal.fused.mug > "$tmp/data.mug"
"$AXLE" equiv $s/causal.axl "$tmp/data.mug" > "$tmp/out" 2>&1
check "data mask: exit 3" test $? -eq 3
check "data mask: the comparison named" has "$tmp/out" "ge in kernel 'k', node 'm': it needs an order, which the finite field Zp x Zq lacks"
check "data mask: the select named" has "$tmp/out" "select in kernel 'k', node 'x': its mask has no truth value in the finite field"

# the all-masked first tile: no NaN in the interpreter (the graph against the program in
# f64) nor in the generated CUDA (against the interpreter)
"$AXLE" emulate $s/anticausal.flash.mug --program $s/anticausal.axl > "$tmp/out" 2>&1
check "all-masked first tile: the CUDA agrees with the program" test $? -eq 0
check "all-masked first tile: agrees" grep -q '^agrees' "$tmp/out"
"$AXLE" emulate $s/anticausal.flash.mug > "$tmp/out" 2>&1
check "all-masked first tile: the CUDA agrees with the interpreter" grep -q '^agrees' "$tmp/out"
"$AXLE" equiv $s/anticausal.axl $s/anticausal.flash.mug > "$tmp/out" 2>&1
check "-inf fill: never equivalent" bash -c "! grep -q '^equivalent' '$tmp/out'"

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
