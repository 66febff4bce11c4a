#!/usr/bin/env bash
# Element types through fusion (docs/superopt.md §2 "Element types", §4):
#   * the regression: a bf16 input widened by to_f32 and reduced (types_dt.axl) — the graph
#     superopt writes has the program's f32 output, its CUDA code keeps the conversion's
#     tile and the rest in f32, and the emulator agrees with the program at f32's tolerance;
#   * the structural check, before any test (exit 3, located): a hand-edited graph whose
#     output is bf16, one whose input has another type, one whose output has another name;
#     an operator on two element types is refused by validation;
#   * conversions inside the graph, checked by the field: an intermediate that drops a
#     to_f16, one that adds a rounding to bf16, are not equivalent (exit 1);
#   * the greedy floor and the search on programs with conversions in the middle of fused
#     chains (a reduction, rms_norm before a matmul, a matmul before exp and a sum): each
#     writes a graph that keeps every conversion, has the program's output type and is
#     equivalent; so do `axle optimize` and a module's partition (--output-dir).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
s=tests/superopt
run() { "$AXLE" "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }
untested() { ! grep -q 'field tests' "$tmp/out"; }
# the element type and shape of output NAME of graph G, as the CUDA backend's header says
otype() { "$AXLE" cuda "$1" --output "$tmp/o.cu" --header "$tmp/o.h" >/dev/null 2>&1 &&
          sed -n "s/^ \*  outputs\[[0-9]*\] $2 *\([a-z0-9]*\[.*\]\)$/\1/p" "$tmp/o.h"; }

# --- the regression -------------------------------------------------------------------
run superopt $s/types_dt.axl --max-states 100000 --output "$tmp/dt.mug" --jobs 1 --progress never
check "types_dt: superopt exit 0" st 0
check "types_dt: the written graph keeps the conversion" has "$tmp/dt.mug" "= to_f32("
check "types_dt: its output is f32, as the program's" test "$(otype "$tmp/dt.mug" r)" = "f32[8, 1]"
v=$(sed -n 's/^ *\([a-z0-9]*\) = to_f32(.*/\1/p' "$tmp/dt.mug")
check "types_dt: the conversion's tile is f32 in the CUDA code" has "$tmp/o.cu" "// '$v' \[1, 4096\] f32"
check "types_dt: only the input's tile is bf16" test "$(grep -c '^  __nv_bfloat16 \*const s' "$tmp/o.cu")" -eq 1
run equiv $s/types_dt.axl "$tmp/dt.mug" --seed 3
check "types_dt: the written graph is equivalent" st 0
if command -v g++ >/dev/null 2>&1; then
  run emulate "$tmp/dt.mug" --program $s/types_dt.axl
  check "types_dt: emulated, f32 storage agrees with the program at f32's tolerance" \
    bash -c "grep -q \"output 'r' f32: max relative error\" $tmp/out && grep -q '^agrees' $tmp/out"
fi

# --- the structural check --------------------------------------------------------------
cat $s/types_dt.mug > "$tmp/bf16out.mug"
sed -i 's/^    v1 = to_f32(i0)$/    v1 = to_bf16(i0)/' "$tmp/bf16out.mug"
run equiv $s/types_dt.axl "$tmp/bf16out.mug" --seed 3
check "output bf16: exit 3" st 3
check "output bf16: located at its saver" has "$tmp/out" "bf16out.mug:11:12: error: output 'r' is bf16\[8, 1\] here but f32\[8, 1\] in program 'dt'"
check "output bf16: refused before any test" untested
run equiv --candidates $s/types_dt.axl "$tmp/bf16out.mug" --seed 3
check "output bf16, the search's fast path: cannot be compared" \
  bash -c "grep -q 'bf16out.mug: cannot be compared' $tmp/out && grep -q '^1 candidates: 0 equivalent' $tmp/out"
sed 's/^  input x : bf16\[8, 4096\]$/  input x : f16[8, 4096]/' $s/types_dt.mug > "$tmp/f16in.mug"
run equiv $s/types_dt.axl "$tmp/f16in.mug" --seed 3
check "input f16: exit 3" st 3
check "input f16: located" has "$tmp/out" "f16in.mug:4:9: error: input 'x' is f16\[8, 4096\] here but bf16\[8, 4096\] in program 'dt'"
check "input f16: refused before any test" untested
sed 's/output r\b/output q/' $s/types_dt.mug > "$tmp/renamed.mug"
run equiv $s/types_dt.axl "$tmp/renamed.mug" --seed 3
check "output renamed: exit 3" st 3
check "output renamed: named" has "$tmp/out" "error: mugraph 'dt' has no output 'r' (program 'dt' has)"
check "output renamed: refused before any test" untested
# a silent rounding: zeros of the bf16 tile added to the f32 sum give the program's value
# in the field, and typed by the first operand the sum would be stored as bf16 (then made
# f32 again by adding an f32 zero); an operator on two element types is no graph
cat >"$tmp/mixed.mug" <<'MUG'
mugraph dt {
  input x : bf16[8, 4096]
  kernel k0 grid [8, 1, 1] block [128, 1, 1] forloop 1 {
    i0 = input x imap {x: 0} fmap -
    v1 = to_f32(i0)
    v2 = sum(v1, axis = 1)
    z = sub(i0, i0)
    s = sum(z, axis = 1)
    v = add(s, v2)
    v3 = rsqrt(v)
    f = sub(v2, v2)
    o = add(f, v3)
    output r = o omap {x: 0}
  }
  output r
}
MUG
run equiv $s/types_dt.axl "$tmp/mixed.mug" --seed 3
check "two element types in one operator: exit 3" st 3
check "two element types in one operator: located at the second operand" has "$tmp/out" \
  "mixed.mug:9:16: error: kernel 'k0': operator 'add' ('v'): operands have different element types ('s' is bf16, 'v2' is f32); convert one explicitly"

# --- conversions inside the graph: the field reads each as a function of its own --------
sed -e '/^      n2 = to_f16(n1)$/d' -e 's/^    n3 = sum(n2, axis = 1)$/    n3 = sum(n1, axis = 1)/' \
  $s/types_half.mug > "$tmp/nof16.mug"
run equiv $s/types_half.axl "$tmp/nof16.mug" --seed 3
check "to_f16 dropped: exit 1" st 1
check "to_f16 dropped: not equivalent" has "$tmp/out" "^not equivalent: output 'O'"
sed -e 's/^    v3 = rsqrt(v2)$/    b = to_bf16(v2)\n    c = to_f32(b)\n    v3 = rsqrt(c)/' \
  $s/types_dt.mug > "$tmp/addbf16.mug"
run equiv $s/types_dt.axl "$tmp/addbf16.mug" --seed 3
check "to_bf16 added (an f32 sum stored as bf16): exit 1" st 1
check "to_bf16 added: not equivalent" has "$tmp/out" "^not equivalent: output 'r'"

# --- the greedy floor and the search on conversions in fused chains --------------------
# PROGRAM OUTPUT TYPE: the program's output and its element type
for case in "types_dt r f32[8, 1]" "types_rms O bf16[16, 64]" "types_mm O f16[16, 1]" \
            "types_half O f32[8, 1]"; do
  read -r p o want <<<"$case"
  nconv=$(grep -v '^#' $s/$p.axl | grep -o 'to_b\?f[0-9]*' | sort | uniq -c | tr -s ' ')
  for how in greedy search; do
    if [ $how = greedy ]; then
      AXLE_TEST_GREEDY_ONLY=1 "$AXLE_TEST_BIN" superopt $s/$p.axl --output "$tmp/$p.$how.mug" \
        --progress never >"$tmp/out" 2>&1
    else
      "$AXLE" superopt $s/$p.axl --no-greedy --max-states 1000000 --jobs 1 \
        --output "$tmp/$p.$how.mug" --progress never >"$tmp/out" 2>&1
    fi
    check "$p, $how: a graph written" test -s "$tmp/$p.$how.mug"
    check "$p, $how: every conversion kept" \
      test "$(grep -o 'to_b\?f[0-9]*' "$tmp/$p.$how.mug" | sort | uniq -c | tr -s ' ')" = "$nconv"
    check "$p, $how: every conversion fused (none a kernel of its own)" \
      bash -c "! grep -q '^  [A-Za-z_0-9]* = to_' $tmp/$p.$how.mug"
    check "$p, $how: output $o is $want, as the program's" test "$(otype "$tmp/$p.$how.mug" "$o")" = "$want"
    run equiv $s/$p.axl "$tmp/$p.$how.mug" --seed 5
    check "$p, $how: equivalent" st 0
  done
done

# --- axle optimize and a module's partition write the conversions too -----------------
run optimize $s/types_mm.axl --output "$tmp/mm.opt.axl"
check "optimize types_mm: exit 0" st 0
check "optimize types_mm: its program keeps both conversions" \
  bash -c "grep -q 'to_f32(' $tmp/mm.opt.axl && grep -q 'to_f16(' $tmp/mm.opt.axl"
run equiv $s/types_mm.axl "$tmp/mm.opt.axl" --seed 5
check "optimize types_mm: equivalent" st 0
run superopt $s/types_rms.axl --output-dir "$tmp/rmsdir" --max-states 100000 --time-limit 600 --jobs 1 --progress never
check "types_rms as a module: exit 0" st 0
check "types_rms as a module: the module graph's output is bf16" test "$(otype "$tmp/rmsdir/module.mug" O)" = "bf16[16, 64]"
check "types_rms as a module: its conversions kept" \
  bash -c "grep -q 'to_f32(' $tmp/rmsdir/module.mug && grep -q 'to_bf16(' $tmp/rmsdir/module.mug"
run equiv $s/types_rms.axl "$tmp/rmsdir/module.mug" --seed 5
check "types_rms as a module: equivalent" st 0

echo "superopt_types: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
