#!/usr/bin/env bash
# Softmax with the max subtraction in the equivalence check and the search
# (docs/superopt.md, "max as a fresh variable"): the field reads every max and min as a
# fresh variable, drawn independently for the program and the graph, so "equivalent" means
# equal whatever values they take — hence at the true max.
#   * the shift cancels: the graph with the shift is equivalent; the one without it is equal
#     over the reals, which the field tests accept, but the float check at scale (logits in
#     [-100, 100], run because the program takes a max) sees its exponentials overflow:
#     numerically unstable (exit 1);
#   * attacks, each "cannot decide" (exit 3) or "not equivalent" (exit 1), never
#     "equivalent": the shift per column (the max over the wrong axis), subtracted in the
#     numerator only, the max multiplied into the output, the max returned as a value (even
#     against the same graph), element-wise max of data; a graph that is wrong whatever the
#     max is (half the softmax) is "not equivalent";
#   * superopt searches the program and writes a graph (a block reduce_max) that equiv
#     accepts.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt
run() { "$AXLE" "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }
never_equivalent() { ! grep -q '^equivalent' "$tmp/out"; }

run equiv $s/softmax_max.axl $s/softmax_max.shifted.mug --seed 5
check "shifted: exit 0" st 0
check "shifted: equivalent" has "$tmp/out" "^equivalent on 8 random tests"
check "shifted: the max read as a fresh variable" has "$tmp/out" "max and min: read as fresh variables"
check "shifted: the float check at scale" has "$tmp/out" "float check at scale (1 run, inputs in \[-100, 100\]"
run equiv $s/softmax_max.axl $s/softmax_max.mug --seed 5
check "no shift: exit 1" st 1
check "no shift: the field tests pass" has "$tmp/out" "field tests: 8 passed"
check "no shift: numerically unstable at scale" has "$tmp/out" "^numerically unstable: output 'O': the mugraph in f32 storage is off"

for m in column oneside times; do
  run equiv $s/softmax_max.axl $s/softmax_max.$m.mug --seed 5
  check "attack $m: exit 3" st 3
  check "attack $m: never equivalent" never_equivalent
  check "attack $m: the graph depends on the max" has "$tmp/out" \
    "^cannot decide: output 'O' of the mugraph depends on the value of a max or min in field test 1"
done

# rank 3: the softmax along the last axis, the max taken along the middle one
cat >"$tmp/sm3.axl" <<'AXL'
program sm3 {
  input X : f32[2, 8, 16]
  let E = exp(X - reduce_max(X, axis = 2))
  output O = E / sum(E, axis = 2)
}
AXL
cat >"$tmp/sm3.mug" <<'MUG'
mugraph sm3_axis1 {
  input X : f32[2, 8, 16]
  M = reduce_max(X, axis = 1)
  D = sub(X, M)
  E = exp(D)
  S = sum(E, axis = 2)
  O = div(E, S)
  output O
}
MUG
run equiv "$tmp/sm3.axl" "$tmp/sm3.mug" --seed 5
check "attack max over the middle axis: exit 3" st 3
check "attack max over the middle axis: never equivalent" never_equivalent
sed 's/axis = 1)/axis = 2)/' "$tmp/sm3.mug" >"$tmp/sm3ok.mug"
run equiv "$tmp/sm3.axl" "$tmp/sm3ok.mug" --seed 5
check "rank 3, the right axis: equivalent" has "$tmp/out" "^equivalent"

run equiv $s/softmax_max.axl $s/softmax_max.half.mug --seed 5
check "half the softmax: exit 1" st 1
check "half the softmax: not equivalent" has "$tmp/out" "^not equivalent: output 'O' differs"

run equiv $s/rowmax.axl $s/rowmax.mug --seed 5
check "max returned, same graph: exit 3" st 3
check "max returned, same graph: never equivalent" never_equivalent
check "max returned: the program depends on it" has "$tmp/out" "output 'O' of the program depends on the value of a max or min"

cat >"$tmp/relu.mug" <<'MUG'
mugraph relu_shift {
  input X : f32[16, 64]
  R = max(X, 0)
  M = reduce_max(X, axis = 1)
  D = sub(R, M)
  E = exp(D)
  S = sum(E, axis = 1)
  O = div(E, S)
  output O
}
MUG
run equiv $s/softmax_max.axl "$tmp/relu.mug" --seed 5
check "element-wise max of data: exit 3" st 3
check "element-wise max of data: never equivalent" never_equivalent
check "element-wise max of data: refused at the max" has "$tmp/out" "relu.mug:3:3: error: max in 'R': it needs an order"

run superopt $s/softmax_max.axl --output "$tmp/sm.mug" --max-states 100000 --jobs 1 --progress never
check "superopt softmax_max: exit 0" st 0
check "superopt softmax_max: a graph written" test -s "$tmp/sm.mug"
check "superopt softmax_max: it keeps the max" has "$tmp/sm.mug" "reduce_max("
run equiv $s/softmax_max.axl "$tmp/sm.mug" --seed 9
check "superopt softmax_max: the graph is equivalent" has "$tmp/out" "^equivalent"

echo "superopt_softmax: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
