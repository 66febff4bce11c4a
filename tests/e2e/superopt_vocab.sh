#!/usr/bin/env bash
# The element-wise operators of real layers in the equivalence check and the search
# (docs/superopt.md, section 3):
#   * tanh, logistic and rsqrt are decided: a program using them (GELU in tanh form, a
#     sigmoid gate, a norm with an epsilon through rsqrt) is equivalent to the same function
#     written with exp and sqrt, and a twin with e^u where tanh needs e^2u is not equivalent
#     (a witness replayed in interval arithmetic); tanh of an exp is two exponentials on one path: refused;
#   * max and min are never "equivalent": a graph that uses them, on either side, is refused
#     (exit 3, located at the operator), by `equiv`, by `equiv --candidates` (the search's
#     fast path) and by `superopt`, which searches nothing;
#   * superopt takes the program with tanh, logistic and rsqrt and writes a graph that
#     `axle equiv` proves; so with log and pow; abs is refused as max is.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt
run() { "$AXLE" "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }

run equiv $s/vocab_layers.axl $s/vocab_layers.exp.mug --seed 5
check "tanh, logistic, rsqrt = their exp/sqrt forms: exit 0" st 0
check "tanh, logistic, rsqrt = their exp/sqrt forms: equivalent" has "$tmp/out" "^equivalent"
check "rsqrt is read as one over sqrt's function" has "$tmp/out" "^  Lax fragment: yes; sqrt is read as an uninterpreted function$"
run equiv $s/vocab_layers.axl $s/vocab_layers.half.mug --seed 5
check "tanh with e^u for e^2u: exit 1" st 1
check "tanh with e^u for e^2u: not equivalent" has "$tmp/out" "^not equivalent: output 'O'"
check "tanh with e^u for e^2u: a witness in intervals" has "$tmp/out" "replayed in interval arithmetic"

cat >"$tmp/twoexp.axl" <<'AXL'
program twoexp {
  input X : f32[4, 8]
  output O = tanh(exp(X))
}
AXL
cat >"$tmp/twoexp.mug" <<'MUG'
mugraph twoexp {
  input X : f32[4, 8]
  e = exp(X)
  O = tanh(e)
  output O
}
MUG
run equiv "$tmp/twoexp.axl" "$tmp/twoexp.mug"
check "tanh of exp: exit 3" st 3
check "tanh of exp: outside the Lax fragment" has "$tmp/out" "tanh in 'O': an exponential on a path that already holds one"

# max and min: refused wherever they stand, never equivalent
for m in vocab_max vocab_square; do
  run equiv $s/vocab_max.axl $s/$m.mug --seed 5
  check "max/min vs $m: exit 3" st 3
  check "max/min vs $m: never equivalent" bash -c "! grep -q '^equivalent' $tmp/out"
  check "max/min vs $m: located at the max" has "$tmp/out" "vocab_max.axl:4:18: error: max in '_t1': it needs an order, which the finite field Zp x Zq lacks"
  check "max/min vs $m: and at the min" has "$tmp/out" "vocab_max.axl:4:14: error: min in '_t2'"
done
run equiv $s/vocab_max.axl $s/vocab_max.mug --seed 5
check "max in the graph: located" has "$tmp/out" "vocab_max.mug:4:3: error: max in 'r'"
run equiv --candidates $s/vocab_max.axl $s/vocab_max.mug --seed 5
check "--candidates with max: exit 3" st 3
check "--candidates with max: cannot be compared" has "$tmp/out" "vocab_max.mug: cannot be compared"
check "--candidates with max: 0 equivalent" has "$tmp/out" "^1 candidates: 0 equivalent"
run equiv $s/vocab_max.axl $s/vocab_max.mug --tests 3 --field-only
check "--tests --field-only with max: exit 3" st 3

run superopt $s/vocab_max.axl --output "$tmp/m.mug" --jobs 1 --progress never
check "superopt with max: exit 3" st 3
check "superopt with max: the reason, at the max" has "$tmp/out" "vocab_max.axl:4:18: error: superopt cannot search a program that uses max: it needs an order"
check "superopt with max: nothing written" test ! -e "$tmp/m.mug"
check "superopt with max: no search ran" bash -c "! grep -q 'candidates from' $tmp/out"

run superopt $s/vocab_layers.axl --output "$tmp/l.mug" --max-states 100000 --jobs 1 --progress never
check "superopt vocab_layers: exit 0" st 0
check "superopt vocab_layers: a graph written" test -s "$tmp/l.mug"
run equiv $s/vocab_layers.axl "$tmp/l.mug" --seed 9
check "superopt vocab_layers: the graph is equivalent" has "$tmp/out" "^equivalent"
check "superopt vocab_layers: its kernel keeps tanh, logistic, rsqrt" \
  bash -c "grep -q 'tanh(' $tmp/l.mug && grep -q 'logistic(' $tmp/l.mug && grep -q 'rsqrt(' $tmp/l.mug"

# log and pow (uninterpreted in the field, pow exact at an integer exponent) are fused and
# proved; abs is refused before any search, as max is
cat >"$tmp/lp.axl" <<'AXL'
program lp {
  input X : f16[16, 64]
  input W : f16[64, 64]
  output O = log(sum(pow(matmul(X, W), 2), axis = 1) + 1)
}
AXL
run superopt "$tmp/lp.axl" --output "$tmp/lp.mug" --max-states 100000 --jobs 1 --progress never
check "superopt log, pow: exit 0" st 0
run equiv "$tmp/lp.axl" "$tmp/lp.mug" --seed 9
check "superopt log, pow: the graph is equivalent" has "$tmp/out" "^equivalent"
check "superopt log, pow: fused in its kernel" bash -c "grep -q ' = log(' $tmp/lp.mug && grep -q ' = pow(' $tmp/lp.mug"
sed 's/pow(matmul(X, W), 2)/abs(matmul(X, W))/' "$tmp/lp.axl" > "$tmp/ab.axl"
run superopt "$tmp/ab.axl" --output "$tmp/ab.mug" --jobs 1 --progress never
check "superopt with abs: exit 3" st 3
check "superopt with abs: the reason" has "$tmp/out" "superopt cannot search a program that uses abs: it needs an order"

echo "superopt_vocab: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
