#!/usr/bin/env bash
# Online softmax in μGraphs (docs/superopt.md, "for-loop accumulators" and "the running
# max"): `m = accum max(s, axis = a)` is readable in the loop as the running max after this
# iteration's update, and `accum sum(v, rescale = m)` multiplies its state by
# exp(m_prev - m_new) before adding v.
#   * softmax and attention written with the max subtraction, against hand-written
#     online-softmax graphs (one kernel, the for-loop over the reduced axis): equivalent,
#     also in the float check at scale (logits in [-100, 100], f16 storage for attention);
#   * the same attention graph without its max (Mirage's exp without shift): the field
#     accepts it (equal over the reals), the float check at scale sees f16 overflow: exit 1;
#   * attacks, never "equivalent": the rescale missing on the numerator or on the
#     denominator and the shift taken per column are "cannot decide" (exit 3: the output
#     moves with the fresh values of the max); a max over the wrong axis under a rescale,
#     and the running max read before its update, are refused by validation (exit 3);
#   * `axle emulate --range 3 --program attn_max.axl` (f16, scores around 30, the program
#     in f64 as the reference): the graph without the max gives nan (exit 1), the
#     FlashAttention graph agrees (exit 0);
#   * the search: both online graphs are in its space (--reach), the generated
#     FlashAttention is proved and agrees in f16 at scale; at 9 block nodes without the
#     greedy floor it writes an online softmax, proved; on a program whose max is used as a
#     value it builds online graphs and writes none;
#   * validation of rescale and accum max, and `mugraph fmt` giving the files back.
# Each search runs one level set (test hook) to its end, on one thread, with no clock: what
# it writes does not depend on the machine's speed.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt
run() { "$AXLE" "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }
never_equivalent() { ! grep -q '^equivalent' "$tmp/out"; }
depends() { has "$tmp/out" "^cannot decide: output 'O' of the mugraph depends on the value of a max or min"; }

run equiv $s/softmax_max.axl $s/softmax_max.online.mug --seed 5
check "online softmax: exit 0" st 0
check "online softmax: equivalent" has "$tmp/out" "^equivalent on 8 random tests"
check "online softmax: stable at scale" has "$tmp/out" "float check at scale (1 run, inputs in \[-100, 100\]"

f=$s/attn_max.flash.mug
run equiv $s/attn_max.axl $f --seed 5
check "flash attention: exit 0" st 0
check "flash attention: equivalent" has "$tmp/out" "^equivalent on 8 random tests"
check "flash attention: the max read as fresh variables" has "$tmp/out" "max and min: read as fresh variables"
run equiv $s/attn_max.axl $f --seed 11 --field-only
check "flash attention, another seed, field only: exit 0" st 0

# Mirage's form: no max at all. Equal over the reals; e^100 overflows f16.
sed -e '/m = accum max/d' -e 's/d = sub(s, m)/d = mul(s, 1)/' -e 's/, rescale = m//' $f >"$tmp/nomax.mug"
run equiv $s/attn_max.axl "$tmp/nomax.mug" --seed 5
check "no max: exit 1" st 1
check "no max: the field tests pass" has "$tmp/out" "field tests: 8 passed"
check "no max: numerically unstable at scale" has "$tmp/out" "^numerically unstable: output 'O'"

sed 's/acc = accum sum(ev, rescale = m)/acc = accum sum(ev)/' $f >"$tmp/nonum.mug"
sed 's/l = accum sum(e, axis = 2, rescale = m)/l = accum sum(e, axis = 2)/' $f >"$tmp/noden.mug"
sed -e 's/^\(    m = accum max(s, axis = 2)\)$/\1\n    c = accum max(s, axis = 1)/' \
    -e 's/d = sub(s, m)/d = sub(s, c)/' $f >"$tmp/column.mug"
for m in nonum noden column; do
  run equiv $s/attn_max.axl "$tmp/$m.mug" --seed 5
  check "attack $m: exit 3" st 3
  check "attack $m: never equivalent" never_equivalent
  check "attack $m: the output depends on the max" depends
done
sed 's/l = accum sum(e, axis = 1, rescale = m)/l = accum sum(e, axis = 1)/' $s/softmax_max.online.mug >"$tmp/sden.mug"
run equiv $s/softmax_max.axl "$tmp/sden.mug" --seed 5
check "softmax, denominator not rescaled: exit 3" st 3
check "softmax, denominator not rescaled: depends on the max" depends

# the max over the key axis's other side: its rescale cannot broadcast onto the state
sed 's/m = accum max(s, axis = 2)/m = accum max(s, axis = 1)/' $f >"$tmp/axis.mug"
run equiv $s/attn_max.axl "$tmp/axis.mug" --seed 5
check "attack max over the wrong axis: exit 3" st 3
check "attack max over the wrong axis: refused at the accumulator" has "$tmp/out" \
  "axis.mug:17:5: error: kernel 'k': accumulator 'l': its rescale 'm' \[1, 1, 16\] does not broadcast onto its state \[1, 16, 1\]"
# read before the update: the grammar has no name for the previous max, and a read placed
# before the accumulator's line names nothing yet
sed '/m = accum max/d; s/^\(    l = accum.*\)$/    m = accum max(s, axis = 2)\n\1/' $f >"$tmp/before.mug"
run equiv $s/attn_max.axl "$tmp/before.mug" --seed 5
check "attack read before the update: exit 3" st 3
check "attack read before the update: located" has "$tmp/out" "before.mug:14:16: error: kernel 'k': 'm' is not defined in this block graph"

# validation
sed 's/acc = accum sum(ev, rescale = m)/acc = accum concat(ev, axis = 2, rescale = m)/' $f >"$tmp/v1.mug"
run mugraph check "$tmp/v1.mug"
check "rescale on concat: exit 3" st 3
check "rescale on concat: message" has "$tmp/out" "v1.mug:19:5: error: kernel 'k': accumulator 'acc': only accum sum takes 'rescale'"
sed 's/acc = accum sum(ev, rescale = m)/acc = accum sum(ev, rescale = l)/' $f >"$tmp/v2.mug"
run mugraph check "$tmp/v2.mug"
check "rescale by a sum: message" has "$tmp/out" "v2.mug:19:5: error: kernel 'k': accumulator 'acc': rescale names 'l', which is not a max accumulator (accum max)"
sed 's/m = accum max(s, axis = 2)/m = accum max(s, axis = 2, to = 4)/' $f >"$tmp/v3.mug"
run mugraph check "$tmp/v3.mug"
check "accum max takes no 'to'" has "$tmp/out" "v3.mug:14:32: error: 'max' takes no attribute 'to'"
sed 's/acc = accum sum(ev, rescale = m)/acc = accum sum(ev, rescale = q)/' $f >"$tmp/v4.mug"
run mugraph check "$tmp/v4.mug"
check "rescale by an iterator: message" has "$tmp/out" "rescale names 'q', which is not a max accumulator"
printf 'mugraph t {\n  input X : f32[4, 8]\n  kernel k grid [1, 1, 1] forloop 2 {\n    x = input X imap {} fmap 1\n    m = accum max(x, axis = 1)\n    output M = m omap {}\n  }\n  output M\n}\n' >"$tmp/v5.mug"
run mugraph check "$tmp/v5.mug"
check "an accum max saved after the loop: valid" st 0

# the cost model prices the running max and the rescales: more than the same loop without
# them (modelled, deterministic)
us() { "$AXLE" cost "$1" | sed -n 's/.*modelled time \([0-9.]*\) us.*/\1/p' | head -1; }
check "cost: the online graph costs more than the one without the max" \
  awk -v a="$(us $f)" -v b="$(us $s/attn_max.nomax.mug)" 'BEGIN { exit !(a > b && b > 0) }'

# in f16 with scores around 30 against the program in f64 (needs a host C++ compiler;
# two compiles, about 15 s): the graph without the max overflows, the online one matches
if command -v "${CXX:-g++}" >/dev/null; then
  run emulate $f --range 3 --program $s/attn_max.axl
  check "emulate flash attention at scale: exit 0" st 0
  check "emulate flash attention at scale: agrees with the f64 program" has "$tmp/out" \
    "^agrees: the generated kernels compute what program 'attn_max' computes"
  run emulate $s/attn_max.nomax.mug --range 3 --program $s/attn_max.axl
  check "emulate without the max at scale: exit 1" st 1
  check "emulate without the max at scale: nan where the program is finite" has "$tmp/out" \
    "output 'O' f16: max relative error inf (tolerance 0.01) at \[0, 0, 0\]: -nan instead of"
  run emulate $f --program $s/softmax_max.axl
  check "emulate against a program that does not pair: exit 3" st 3
  check "emulate against a program that does not pair: located" has "$tmp/out" \
    "attn_max.flash.mug:5:9: error: input 'Q' of mugraph 'attn_max_flash' is not an input of program 'softmax_max'"
fi

# The search builds these graphs (docs/superopt.md §10, "Online softmax"). Both online
# graphs in the search's space are reached with their headers pinned; a rescale dropped from
# the numerator is another graph (canonical keys tell a rescaled sum from a plain one).
for p in softmax_max attn_max; do
  run superopt $s/$p.axl --reach $s/$p.searched.mug --no-gate
  check "reach $p.searched: exit 0" st 0
  check "reach $p.searched: reached" has "$tmp/out" "$p.searched.mug: reached: the generator builds it"
done
sed 's/acc = accum sum(ev, rescale = m)/acc = accum sum(ev)/' $s/attn_max.searched.mug >"$tmp/plain.mug"
run superopt $s/attn_max.axl --reach "$tmp/plain.mug" --no-gate
check "reach the numerator not rescaled: exit 1" st 1
check "reach the numerator not rescaled: not reached" has "$tmp/out" "plain.mug: not reached"
# what --reach prints is the generator's own text: proved, and in f16 at scale it agrees
"$AXLE" superopt $s/attn_max.axl --reach $s/attn_max.searched.mug --no-gate | sed -n '/^mugraph/,$p' >"$tmp/gen.mug"
run equiv $s/attn_max.axl "$tmp/gen.mug" --seed 5 --field-only
check "the generated FlashAttention: equivalent" has "$tmp/out" "^equivalent on 8 random tests"
if command -v "${CXX:-g++}" >/dev/null; then
  run emulate "$tmp/gen.mug" --range 3 --program $s/attn_max.axl
  check "emulate the generated FlashAttention at scale: agrees with the f64 program" has "$tmp/out" \
    "^agrees: the generated kernels compute what program 'attn_max' computes"
fi

# A search at the one-kernel level of 8 block nodes (9 in a graph with a running max, which
# the online softmax has) without the greedy floor (test hook,
# axle-test only): at these shapes the fused one-pass kernel is modelled faster (the greedy
# floor), so the search alone shows what it builds. It writes an online softmax: a
# for-loop over the row with a running max, proved.
AXLE_TEST_SEARCH_LEVELS=1,1,8,8 "$AXLE_TEST_BIN" superopt $s/softmax_max.axl --output "$tmp/sm.mug" \
  --no-gate --no-greedy --jobs 1 --progress never >"$tmp/out" 2>&1
echo $? >"$tmp/st"
check "search softmax_max at 8 nodes: exit 0" st 0
check "search softmax_max at 8 nodes: a running max" has "$tmp/sm.mug" "= accum max("
check "search softmax_max at 8 nodes: a for-loop over the row" has "$tmp/sm.mug" "forloop [1-9][0-9]* {"
run equiv $s/softmax_max.axl "$tmp/sm.mug" --seed 7
check "search softmax_max at 8 nodes: the graph is equivalent" has "$tmp/out" "^equivalent"

# FlashAttention at the default block-node limit: a graph with a running max may hold one
# node more than --max-block-ops (the numerator's rescaled sum), so the one-kernel level of
# 10 nodes (the default, test hook: only that level) builds the 11-node graph. Without the
# floor (at this shape the one-pass kernel is modelled faster) the search writes it: a
# running max, the numerator and the denominator rescaled, proved at full shape, and in f16
# with scores around 30 it agrees with the program in f64.
AXLE_TEST_SEARCH_LEVELS=1,1,10,10 "$AXLE_TEST_BIN" superopt $s/attn_max_small.axl --output "$tmp/fa.mug" \
  --no-gate --no-greedy --jobs 1 --progress never >"$tmp/out" 2>&1
echo $? >"$tmp/st"
check "search attention at the default node limit: exit 0" st 0
check "search attention at the default node limit: a running max" has "$tmp/fa.mug" "= accum max("
check "search attention at the default node limit: the numerator rescaled" \
  has "$tmp/fa.mug" "= accum sum(n[0-9]*, rescale = n[0-9]*)"
check "search attention at the default node limit: 11 block nodes" \
  test "$(grep -c '^ *n[0-9]* = ' "$tmp/fa.mug")" -eq 11
run equiv $s/attn_max_small.axl "$tmp/fa.mug" --seed 9
check "search attention at the default node limit: proved" has "$tmp/out" "^equivalent"
if command -v "${CXX:-g++}" >/dev/null; then
  run emulate "$tmp/fa.mug" --range 3 --program $s/attn_max_small.axl
  check "search attention at the default node limit: f16 at scale agrees with f64" has "$tmp/out" \
    "^agrees: the generated kernels compute what program 'attn_max_small' computes"
fi

# A max used as a value (max_value.axl: O = M + sum(exp(X - M))): the generator builds its
# online graphs (running max, rescaled sum, the max added), the check cannot decide them
# (the output moves with the max), and nothing is written.
AXLE_SEARCH_DEBUG=1 AXLE_TEST_SEARCH_LEVELS=1,1,6,6 "$AXLE_TEST_BIN" superopt $s/max_value.axl \
  --output "$tmp/mv.mug" --found-dir "$tmp/mvfound" --no-gate --no-greedy --jobs 1 \
  --progress never >"$tmp/out" 2>&1
echo $? >"$tmp/st"
check "search max_value: exit 1" st 1
check "search max_value: online graphs were built" has "$tmp/out" "accum sum(n3, axis = 1, rescale = n1)"
check "search max_value: none is equivalent" has "$tmp/out" "candidates from .* 0 equivalent"
check "search max_value: nothing written" test ! -e "$tmp/mv.mug"
check "search max_value: nothing kept" test -z "$(ls "$tmp/mvfound" 2>/dev/null)"

for g in $s/softmax_max.online.mug $f $s/softmax_max.searched.mug $s/attn_max.searched.mug; do
  "$AXLE" mugraph fmt "$g" >"$tmp/fmt.mug"
  check "fmt gives $(basename "$g") back" cmp -s "$g" "$tmp/fmt.mug"
done

echo "superopt_online: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
