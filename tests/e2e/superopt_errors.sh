#!/usr/bin/env bash
# Bad input to `axle equiv` and `axle mugraph` (and slices, pads and reverses a program
# gets wrong): exit 3 and a located error (file:line:col, the source line, a caret).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
expect() {   # expect NAME STATUS PATTERN command...
  local name=$1 want=$2 pattern=$3
  shift 3
  local out
  out=$("$@" 2>&1)
  local st=$?
  if [ "$st" -ne "$want" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $st"; echo "$out" | sed 's/^/  /'; fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
ex="$AXLE_SRC/superopt/examples"
cat >"$tmp/bad_shape.axl" <<'AXL'
program p {
  input X : f16[4, 8]
  output O = matmul(X, X)
}
AXL
expect program-shape 3 "bad_shape.axl:3:14: error: program 'p': matmul: inner dimensions differ" \
  "$AXLE" equiv "$tmp/bad_shape.axl" "$ex/lora.mug"
# slice, pad and reverse: a list missing, of another length, out of range, not one element
bad_window() {   # bad_window NAME COL MESSAGE STATEMENT
  printf 'program p {\n  input X : f32[4, 6]\n  output O = %s\n}\n' "$4" >"$tmp/w_$1.axl"
  expect "window-$1" 3 "w_$1.axl:3:$2: error: program 'p': $3" "$AXLE" cost "$tmp/w_$1.axl"
}
bad_window limit 14 "slice needs 'start' and 'limit', e.g. slice(X, start = [0, 0], limit = [2, 2])" \
  "slice(X, start = [0, 0])"
bad_window length 44 "slice: 'limit' lists 2 axes, an earlier list 1" "slice(X, start = [0], limit = [2, 2])"
bad_window past 14 "slice: axis 0: [0:5] is not a nonempty part of 0..4" "slice(X, start = [0, 0], limit = [5, 2])"
bad_window interior 14 "pad: axis 1: the interior padding -1 is negative" \
  "pad(X, 0, low = [0, 0], high = [1, 1], interior = [0, -1])"
bad_window value 14 "pad: the padding value [4, 6] is not one element" "pad(X, X, low = [0, 0], high = [1, 1])"
bad_window twice 14 "reverse: axis 0 is not an axis of [4, 6] or is listed twice" "reverse(X, [0, 0])"
bad_window axes 14 "reverse needs the axes it reverses, e.g. reverse(X, [0])" "reverse(X)"
cat >"$tmp/split.mug" <<'MUG'
mugraph lora {
  input X : f16[16, 256]
  kernel k1 grid [3, 1, 1] block [128, 1, 1] forloop 1 {
    x = input X imap {x: 1} fmap -
    output O = x omap {x: 1}
  }
  output O
}
MUG
expect divisibility 3 "split.mug:4:5: error: kernel 'k1': input 'x': dim 1 of 'X' (size 256) is not divisible by grid.x (3)" \
  "$AXLE" mugraph check "$tmp/split.mug"
sed 's/fmap 1  # 16 x 64: the same/fmap 1 $ # the same/' "$ex/rmsnorm_linear.mug" >"$tmp/syntax.mug"
expect syntax 3 "syntax.mug:9:32: error: expected a block statement or" "$AXLE" mugraph fmt "$tmp/syntax.mug"
expect missing-input 3 "mugraph 'gqa' has no input 'X' (program 'lora' has)" \
  "$AXLE" equiv "$ex/lora.axl" "$ex/gqa.mug"
cat >"$tmp/twoexp.axl" <<'AXL'
program p {
  input X : f32[4, 8]
  output O = exp(silu(X))
}
AXL
printf 'mugraph p {\n  input X : f32[4, 8]\n  S = silu(X)\n  O = exp(S)\n  output O\n}\n' >"$tmp/twoexp.mug"
expect lax 3 "twoexp.axl:3:14: error: exp in 'O': an exponential on a path that already holds one is outside the Lax fragment" \
  "$AXLE" equiv "$tmp/twoexp.axl" "$tmp/twoexp.mug"
expect usage 3 "usage: axle equiv" "$AXLE" equiv "$ex/lora.axl"
expect delta 3 "--delta takes a probability" "$AXLE" equiv "$ex/lora.axl" "$ex/lora.mug" --delta 2
expect seed-printed 0 "seed 5" "$AXLE" equiv "$ex/lora.axl" "$ex/lora.mug" --seed 5 --delta 1e-12
# one declaration of several inputs, as in programs: valid, and fmt writes one per line
printf 'mugraph m {\n  input A, B : f16[16, 64]\n  kernel k1 grid [1, 1, 1] block [128, 1, 1] forloop 1 {\n    a = input A imap {} fmap -\n    b = input B imap {} fmap -\n    c = add(a, b)\n    output C = c omap {}\n  }\n  output C\n}\n' >"$tmp/two_inputs.mug"
expect "input A, B: valid" 0 "mugraph 'm' is valid" "$AXLE" mugraph check "$tmp/two_inputs.mug"
expect "input A, B: fmt splits them" 0 "  input B : f16[16, 64]" "$AXLE" mugraph fmt "$tmp/two_inputs.mug"
printf 'mugraph m {\n  input A, A : f16[4]\n  output A\n}\n' >"$tmp/dup_input.mug"
expect "input A, A: located" 3 "dup_input.mug:2:12: error: 'A' is already defined" "$AXLE" mugraph check "$tmp/dup_input.mug"
echo "superopt errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
