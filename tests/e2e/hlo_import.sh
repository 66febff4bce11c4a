#!/usr/bin/env bash
# axle import: each JAX-format module in tests/hlo imports to its golden program
# (NAME.expected) with its golden cuts on stderr (NAME.cuts); slice, pad, reverse and power
# against a reference written without them, abs refused by the field check, q·kᵀ and a bf16
# dot with an f32 result imported without a cut; the JSON report (a scalar output's note);
# --output; optimize writing a module with scalars as .hlo (as scalars);
# a .hlo read where a program is (axle equiv against the hand-written Mirage μGraph); and
# an attack loop: prefixes of a module and seeded random deletions of bytes and tokens exit
# 0 or 3 with a message, never by a signal (tests/unit/check_hlo.c runs every prefix in
# process).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
h=tests/hlo

for f in $h/*.hlo; do
  n=${f%.hlo}
  "$AXLE" import "$f" > "$tmp/out.axl" 2> "$tmp/err"
  st=$?
  check "$f: exit 0" test "$st" -eq 0
  check "$f: the golden program" diff -u "$n.expected" "$tmp/out.axl"
  check "$f: the golden cuts" diff -u "$n.cuts" "$tmp/err"
done

# a reduce whose body is maximum (minimum) and whose init is -inf (inf) is reduce_max
# (reduce_min), whatever its computation is called; the -inf constant it reads is no cut
check "softmax: the max is reduce_max" has $h/softmax.expected "let reduce_8 = reduce_max(Arg_0_1, axis = 1)"
check "softmax: no cut" test ! -s $h/softmax.cuts
sed 's/constant(-inf)/constant(inf)/; s/ maximum(/ minimum(/; s/%region_0\.4/%smallest/g' $h/softmax.hlo > "$tmp/min.hlo"
"$AXLE" import "$tmp/min.hlo" > "$tmp/min.axl" 2> "$tmp/err"
check "min body, init inf: reduce_min" has "$tmp/min.axl" "let reduce_8 = reduce_min(Arg_0_1, axis = 1)"
check "min body, init inf: no cut" test ! -s "$tmp/err"
# the cut rule: a max with another init is cut and its result is an input, the rest of
# softmax is kept
sed 's/constant(-inf)/constant(0)/' $h/softmax.hlo > "$tmp/max0.hlo"
"$AXLE" import "$tmp/max0.hlo" > "$tmp/max0.axl" 2> "$tmp/err"
check "max with init 0: the max is an input" has "$tmp/max0.axl" "input reduce_8 : f32\[16\]"
check "attention: the transpose is a program operator" has $h/attention.expected "let transpose_4 = transpose(Arg_1_2, \[0, 2, 1\])"
check "decoder block: no cut" test ! -s $h/decoder_block.cuts
sed 's/ maximum(/ minimum(/' $h/softmax.hlo > "$tmp/min_ninf.hlo"
"$AXLE" import "$tmp/min_ninf.hlo" > /dev/null 2> "$tmp/err"
check "min with init -inf: the reduce is cut, the constant is not" test "$(cat "$tmp/err")" = \
  "$tmp/min_ninf.hlo:18: cut: %reduce.8 = reduce: reduce with minimum whose init value is not the constant inf"

# JSON: counts and cuts, the program's text when it is printed
"$AXLE" import --format json "$tmp/max0.hlo" > "$tmp/s.json" 2> "$tmp/err"
check "json: exit 0" test $? -eq 0
check "json: counts" jqt '.program == "jit_softmax" and .inputs == 2 and .outputs == 1 and .ncuts == 1 and .path == null' "$tmp/s.json"
check "json: a cut" jqt '.cuts[0] == {"line": 18, "name": "reduce.8", "opcode": "reduce", "reason": "reduce with maximum whose init value is not the constant -inf"}' "$tmp/s.json"
check "json: the text" jqt '.text | startswith("program jit_softmax {")' "$tmp/s.json"
check "json: nothing on stderr" test ! -s "$tmp/err"

# --output writes the program (and checks it) and says so on stderr
"$AXLE" import $h/lora.hlo --output "$tmp/lora.axl" > "$tmp/out" 2> "$tmp/err"
check "--output: exit 0" test $? -eq 0
check "--output: the program" diff -u $h/lora.expected "$tmp/lora.axl"
check "--output: nothing on stdout" test ! -s "$tmp/out"
check "--output: the summary" has "$tmp/err" "program 'lora' written to"
"$AXLE" cost "$tmp/lora.axl" > /dev/null
check "the written program reads back" test $? -eq 0

# usage errors: exit 3
for args in "" "--format yaml $h/lora.hlo" "--bogus $h/lora.hlo" "$h/lora.hlo $h/lora.hlo" "$h"; do
  "$AXLE" import $args > /dev/null 2>&1
  check "import $args: exit 3" test $? -eq 3
done
for opt in --help -h; do
  "$AXLE" import $opt > "$tmp/help" 2> "$tmp/err"
  check "$opt: exit 0 and the usage" has "$tmp/help" "usage: axle import MODULE.hlo"
  check "$opt: nothing on stderr" test ! -s "$tmp/err"
done
cp $h/lora.hlo "$tmp/-dash.hlo"
(cd "$tmp" && "$AXLE" import -- -dash.hlo > /dev/null 2>&1)
check "import -- -dash.hlo: a file named like an option" test $? -eq 0

# a .hlo module is a program wherever one is read: equiv against the hand-written μGraph
"$AXLE" equiv $h/lora.hlo superopt/examples/lora.mug --tests 2 > "$tmp/eq" 2>&1
check "equiv lora.hlo lora.mug: equivalent" has "$tmp/eq" "^equivalent"
"$AXLE" equiv "$tmp/max0.hlo" superopt/examples/lora.mug > "$tmp/eq" 2>&1
check "equiv on a module with a cut: a note on the cuts" has "$tmp/eq" "imported with 1 cut"
# cost and cuda read a module as they read a program: its naive μGraph, the same figures
"$AXLE" cost $h/lora.hlo > "$tmp/c1" 2>/dev/null
check "cost lora.hlo: exit 0" test $? -eq 0
"$AXLE" cost superopt/examples/lora.axl > "$tmp/c2" 2>/dev/null
check "cost lora.hlo: the program's modelled time" test "$(head -1 "$tmp/c1" | grep -o 'modelled time .*')" = "$(head -1 "$tmp/c2" | grep -o 'modelled time .*')"
"$AXLE" cuda $h/lora.hlo --output "$tmp/lora.cu" > /dev/null 2>&1
check "cuda lora.hlo: exit 0 and a kernel" grep -q "__global__" "$tmp/lora.cu"
"$AXLE" equiv $h/bad/shape_mismatch.hlo superopt/examples/lora.mug > /dev/null 2> "$tmp/err"
check "equiv on a bad module: exit 3" test $? -eq 3
check "equiv on a bad module: the located error" has "$tmp/err" "shape_mismatch.hlo:6:29: error"

# reduced axes kept and broadcasts left to the element-wise operators: these modules import
# to programs without reshape or broadcast, so the search takes them (exit 0 or 1, never 3),
# and a graph it writes is equivalent to the module. The searches have a state budget, not
# a time limit: the same run on a loaded machine. A partition run always has a time budget
# (10 s a region by default); 600 s there only bounds a hung run, the states decide.
for n in rmsnorm_linear lora rmsnorm layernorm softmax; do
  check "$n: no reshape or broadcast" bash -c "! grep -Eq 'reshape|broadcast' $h/$n.expected"
  rm -f "$tmp/x.mug"
  "$AXLE" superopt $h/$n.hlo --max-states 100000 --jobs 1 --progress never --output "$tmp/x.mug" > "$tmp/so" 2>&1
  st=$?
  check "superopt $n.hlo: exit 0 or 1 (was $st)" test "$st" -eq 0 -o "$st" -eq 1
  if [ "$st" -eq 0 ]; then
    "$AXLE" equiv $h/$n.hlo "$tmp/x.mug" --tests 2 > "$tmp/eq" 2>&1
    check "superopt $n.hlo: the graph is equivalent" has "$tmp/eq" "^equivalent"
  fi
done

# a transpose is a layout operator: superopt of the whole program refuses it (exit 3, located),
# superopt --output-dir leaves it a pre-defined kernel between regions
"$AXLE" superopt $h/attention.hlo --max-states 1 --jobs 1 --progress never --output "$tmp/x.mug" > "$tmp/so" 2>&1
check "superopt attention.hlo: exit 3" test $? -eq 3
check "superopt attention.hlo: the transpose named" has "$tmp/so" "does not handle 'transpose'"
"$AXLE" superopt $h/attention.hlo --max-states 100000 --time-limit 600 --jobs 1 --progress never --output-dir "$tmp/att" > "$tmp/so" 2>&1
check "superopt attention.hlo --output-dir: exit 0" test $? -eq 0
check "superopt attention.hlo --output-dir: the transpose pre-defined" has "$tmp/att/module.mug" " = transpose(Arg_1_2, \[0, 2, 1\])"
"$AXLE" equiv $h/attention.hlo "$tmp/att/module.mug" --tests 2 > "$tmp/eq" 2>&1
check "superopt attention.hlo --output-dir: module.mug equivalent" has "$tmp/eq" "^equivalent"

# malformed transposes: a located error, exit 3
printf 'HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2] transpose(x), dimensions={0,0}\n}\n' > "$tmp/t1.hlo"
"$AXLE" import "$tmp/t1.hlo" > /dev/null 2> "$tmp/err"
check "transpose not a permutation: exit 3" test $? -eq 3
check "transpose not a permutation: located" has "$tmp/err" "t1.hlo:4:46: error: transpose: dimensions= must be a permutation"
printf 'HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2,1] transpose(x), dimensions={1,0}\n}\n' > "$tmp/t2.hlo"
"$AXLE" import "$tmp/t2.hlo" > /dev/null 2> "$tmp/err"
check "transpose of the wrong rank: exit 3" test $? -eq 3
check "transpose of the wrong rank: located" has "$tmp/err" "t2.hlo:4:23: error: transpose: f32\[2,3\] cannot become f32\[3,2,1\]"

# slice, pad, reverse and power against an independent reference: tests/hlo/window.ref.mug
# computes the same outputs with interleaving, concat, matmul and mul only; a slice that
# starts one column later is refuted, exactly in the field (its output takes no power, the
# module's uninterpreted function, so the doubles need not judge)
"$AXLE" equiv $h/window.hlo $h/window.ref.mug --seed 3 > "$tmp/eq" 2>&1
check "window.hlo = its reference: exit 0" test $? -eq 0
check "window.hlo = its reference: equivalent" has "$tmp/eq" "^equivalent"
sed 's/slice={\[0:8\], \[0:6:2\]}/slice={[0:8], [1:6:2]}/' $h/window.hlo > "$tmp/w1.hlo"
"$AXLE" equiv "$tmp/w1.hlo" $h/window.ref.mug --seed 3 > "$tmp/eq" 2>&1
check "window.hlo, slice moved: exit 1" test $? -eq 1
check "window.hlo, slice moved: the field's difference is exact" has "$tmp/eq" \
  "no square root or conversion on this output's paths: the field's difference is exact"
# abs has no reading in the field: a module with abs is 'cannot decide', never equivalent
cp $h/lpnorm.expected "$tmp/lp.axl"
"$AXLE" equiv $h/lpnorm.hlo "$tmp/lp.axl" --seed 1 > "$tmp/eq" 2>&1
check "lpnorm.hlo: exit 3" test $? -eq 3
check "lpnorm.hlo: abs named" has "$tmp/eq" "abs in 'abs_2': it needs an order"
# JAX's q·kᵀ (rhs_contracting_dims={2}) is a matmul with the rhs transposed: no cut left
check "causal attention: no cut" test ! -s $h/causal_attention.cuts
check "causal attention: q·kᵀ" has $h/causal_attention.expected "let dot_4 = matmul(Arg_0_1, transpose(Arg_1_2, \[0, 2, 1\]))"
# bf16 operands, f32 result: converted exactly, accumulated in f32
printf 'HloModule m\nENTRY e {\n  a = bf16[4,8] parameter(0)\n  b = bf16[8,2] parameter(1)\n  ROOT d = f32[4,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n' > "$tmp/mixed.hlo"
"$AXLE" import "$tmp/mixed.hlo" > "$tmp/mixed.axl" 2> "$tmp/err"
check "bf16 dot to f32: no cut" test ! -s "$tmp/err"
check "bf16 dot to f32: converted operands" has "$tmp/mixed.axl" "let d = matmul(to_f32(a), to_f32(b))"

# a scalar output is held as [1] and noted; JSON carries the note
"$AXLE" import --format json $h/sgd_loss.hlo > "$tmp/sgd.json" 2> "$tmp/err"
check "scalar output: the note in JSON" jqt '.ncuts == 0 and .notes == [{"line": 29, "name": "add.24", "note": "the output is the scalar f32[], held as f32[1]"}]' "$tmp/sgd.json"
check "scalar lr: an input of shape [1]" has $h/sgd_loss.expected "input Arg_2_3 : f32\[1\]"
# optimize writes a module with a scalar parameter and a scalar result as valid HLO, the
# scalars as f32[] as the input had them (the program holds them as f32[1]), which imports back
mkdir -p "$tmp/r1"
cat > "$tmp/r1/one.axl" <<'AXL'
rule mul_one for T in num {
  rclass x
  map s over x
  tensor A : T[x: s]

  A * 1 => A
}
AXL
cat > "$tmp/loss.hlo" <<'HLO'
HloModule loss
plus { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT m = f32[] add(a, b) }
ENTRY e {
  x = f32[4,8] parameter(0)
  lr = f32[] parameter(1)
  one = f32[] constant(1)
  lrb = f32[4,8] broadcast(lr), dimensions={}
  ob = f32[4,8] broadcast(one), dimensions={}
  m = f32[4,8] multiply(x, lrb)
  m1 = f32[4,8] multiply(m, ob)
  z = f32[] constant(0)
  loss = f32[] reduce(m1, z), dimensions={0,1}, to_apply=plus
  ROOT t = (f32[4,8], f32[]) tuple(m1, loss)
}
HLO
XDG_CACHE_HOME="$tmp/cache" "$AXLE" optimize --rules "$tmp/r1" "$tmp/loss.hlo" --output "$tmp/loss.out.hlo" > /dev/null 2>&1
check "optimize a scalar module to .hlo: exit 0" test $? -eq 0
check "optimize a scalar module to .hlo: the scalar parameter" has "$tmp/loss.out.hlo" "%lr = f32\[\] parameter(1)"
check "optimize a scalar module to .hlo: the scalar output" has "$tmp/loss.out.hlo" "ROOT %outputs = (f32\[4,8\]{1,0}, f32\[\]) tuple("
"$AXLE" import "$tmp/loss.out.hlo" > "$tmp/loss2.axl" 2> /dev/null
check "optimize a scalar module to .hlo: it imports back" has "$tmp/loss2.axl" "input lr : f32\[1\]"

# attack loop: no input makes import crash or hang (exit 0 or 3, a message on exit 3)
attack() {   # attack FILE LABEL
  "$AXLE" import "$1" > /dev/null 2> "$tmp/aerr"
  local st=$?
  if [ "$st" -ne 0 ] && { [ "$st" -ne 3 ] || [ ! -s "$tmp/aerr" ]; }; then
    echo "FAIL: $2: exit $st"; cp "$1" "$tmp/crash.hlo"; bad=$((bad + 1))
  fi
}
bad=0
src=$h/gated_mlp.hlo
len=$(wc -c < $src)
for ((i = 0; i < len; i += 17)); do head -c $i $src > "$tmp/a.hlo"; attack "$tmp/a.hlo" "prefix $i"; done
RANDOM=20261126
for ((k = 0; k < 100; k++)); do
  start=$((RANDOM % len)) n=$((RANDOM % 12 + 1))
  { head -c $start $src; tail -c +$((start + n + 1)) $src; } > "$tmp/a.hlo"
  attack "$tmp/a.hlo" "deletion of $n bytes at $start"
done
toks=$(tr -s ' \n' '\n\n' < $h/layernorm.hlo | wc -l)
for ((k = 0; k < 50; k++)); do
  drop=$((RANDOM % toks + 1))
  awk -v d=$drop 'BEGIN { RS = "[ \n]"; ORS = " " } NR != d { print }' $h/layernorm.hlo > "$tmp/a.hlo"
  attack "$tmp/a.hlo" "token $drop deleted"
done
check "attack loop: exit 0 or 3 with a message, never a signal" test "$bad" -eq 0

echo "hlo_import: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
