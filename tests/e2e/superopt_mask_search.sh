#!/usr/bin/env bash
# The search builds a masked select as one step (docs/superopt.md §10, "Masks"): where the
# program has select(M, S, fill) with M and fill index values, the generator writes the
# block iotas, the comparison, the fill and the select inside the kernel that holds S.
#   * causal attention at a small shape (causal_small.axl), the one-kernel level of 10
#     nodes only (test hook; searched to its end, 3.7M states, no clock), without the
#     greedy floor: the written graph is FlashAttention
#     with the mask inside it — a running max, block iotas, the select — proved at full
#     shape, equivalent, and in f16 with scores around 30 it agrees with the program in f64;
#   * --reach: the generator builds the written graph again (its mask nodes one step);
#   * attack: the mask off by one (gt for ge) gets a graph of its own program; neither
#     written graph passes `axle equiv` against the other program (exit 1 or 2, never 0).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt
run() { "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }
not_proved() { local x; x=$(cat "$tmp/st"); [ "$x" -eq 1 ] || [ "$x" -eq 2 ]; }
search() {
  AXLE_TEST_SEARCH_LEVELS=1,1,10,10 "$AXLE_TEST_BIN" superopt "$1" --output "$2" --no-gate --no-greedy \
    --jobs 1 --progress never
}

sed 's/let m = ge(/let m = gt(/' $s/causal_small.axl >"$tmp/gt.axl"
for v in ge gt; do
  p=$s/causal_small.axl
  [ $v = gt ] && p="$tmp/gt.axl"
  run search "$p" "$tmp/$v.mug"
  check "search $v: exit 0" st 0
  check "search $v: written" has "$tmp/out" "^best graph: .*written to"
  check "search $v: one kernel" test "$(grep -c '^  kernel ' "$tmp/$v.mug")" -eq 1
  check "search $v: a running max" has "$tmp/$v.mug" "= accum max("
  check "search $v: the row iota in the kernel" has "$tmp/$v.mug" \
    '^    m[0-9_]* = iota(\[16, 1\], axis = 0) imap {x: 0} fmap -$'
  check "search $v: the column iota walked by the loop" has "$tmp/$v.mug" \
    '^    m[0-9_]* = iota(\[1, 64\], axis = 1) imap {} fmap 1$'
  check "search $v: its comparison" has "$tmp/$v.mug" "^    m[0-9_]* = $v(m[0-9_]*, m[0-9_]*)$"
  check "search $v: the select" has "$tmp/$v.mug" '^    n[0-9]* = select(m[0-9_]*, n[0-9]*, m[0-9_]*)$'
  run "$AXLE" equiv "$p" "$tmp/$v.mug" --seed 3
  check "search $v: equivalent to its program" has "$tmp/out" "^equivalent"
done

run "$AXLE" superopt $s/causal_small.axl --reach "$tmp/ge.mug" --jobs 1
check "reach the written graph: exit 0" st 0
check "reach the written graph: reached" has "$tmp/out" ": reached: the generator builds it"

if command -v "${CXX:-g++}" >/dev/null; then
  run "$AXLE" emulate "$tmp/ge.mug" --range 3 --program $s/causal_small.axl
  check "search ge: f16 at scale agrees with f64" has "$tmp/out" \
    "^agrees: the generated kernels compute what program 'causal_small' computes"
fi

run "$AXLE" equiv $s/causal_small.axl "$tmp/gt.mug" --seed 3
check "gt graph against the ge program: not equivalent (exit 1 or 2)" not_proved
run "$AXLE" equiv "$tmp/gt.axl" "$tmp/ge.mug" --seed 3
check "ge graph against the gt program: not equivalent (exit 1 or 2)" not_proved

echo "superopt_mask_search: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
