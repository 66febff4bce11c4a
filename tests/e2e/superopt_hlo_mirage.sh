#!/usr/bin/env bash
# The six Mirage benchmarks written as HLO (tests/hlo/NAME.hlo, in the form JAX prints) give
# the programs of superopt/examples/NAME.axl and the same graphs:
#   * `axle import NAME.hlo`, its inputs and output renamed to the .axl's (JAX names them
#     Arg_0_1, ... and the output after its instruction), is a program `axle equiv` proves
#     equal to NAME.axl;
#   * `axle superopt` on the renamed import and on NAME.axl, with the same deterministic
#     settings (one job, a state budget instead of a clock), writes the same graph up to
#     names and the order of independent statements (the import keeps HLO's instruction
#     order: gated MLP's second matmul comes before the silu there): value names erased,
#     then the lines compared as a sorted list;
#   * the search alone (axle-test, one small level set, no greedy floor) likewise on three.
# At the benchmarks' shapes the full-shape checks cost seconds a graph, so both files are
# shrunk alike first (4096 -> 32, 256 -> 16: the HLO's mean divisor with them), which
# keeps every operator and axis of the programs.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
shrink() { sed -E 's/4096/32/g; s/\b256\b/16/g' "$1"; }
# rename FILE NEW... : the import's inputs, then its output, take the names NEW in order
rename() {
  local f=$1; shift
  local old=($(awk '$1 == "input" { print $2 } $1 == "output" { print $2 }' "$f")) args=() k
  for ((k = 0; k < $#; k++)); do args+=(-e "s/\\b${old[$k]}\\b/${@:k+1:1}/g"); done
  sed -E "${args[@]}" "$f"
}
# the graph without its names: the mugraph's, every value's (v3, n12), sorted lines
canon() { sed -E 's/^mugraph [A-Za-z_0-9]+/mugraph/; s/\b[vn][0-9]+\b/v/g' "$1" | sort; }
so() {   # so FILE OUT [axle-test env...]: superopt with deterministic settings
  "$AXLE" superopt "$1" --no-gate --jobs 1 --progress never --max-states 3000 \
    --output "$2" > "$2.log" 2>&1
}

declare -A names=([rmsnorm_linear]="X W O" [gated_mlp]="X W1 W2 O" [lora]="X W A B O"
                  [gqa]="Q K V O" [qknorm]="Q K V O" [ntrans]="H X alpha O")
for n in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  shrink tests/hlo/$n.hlo > "$tmp/$n.hlo"
  shrink superopt/examples/$n.axl > "$tmp/$n.axl"
  "$AXLE" import "$tmp/$n.hlo" > "$tmp/$n.imp" 2> "$tmp/$n.cuts"
  check "$n.hlo: imported" test $? -eq 0
  check "$n.hlo: no cut" test ! -s "$tmp/$n.cuts"
  rename "$tmp/$n.imp" ${names[$n]} > "$tmp/$n.hlo.axl"
  "$AXLE" equiv "$tmp/$n.hlo.axl" "$tmp/$n.axl" --seed 7 > "$tmp/eq" 2>&1
  check "$n: equiv against the .axl: exit 0" test $? -eq 0
  check "$n: equiv against the .axl: equivalent" has "$tmp/eq" "^equivalent"
  so "$tmp/$n.hlo.axl" "$tmp/$n.hlo.mug"
  check "$n.hlo: superopt exit 0" test $? -eq 0
  so "$tmp/$n.axl" "$tmp/$n.axl.mug"
  check "$n.axl: superopt exit 0" test $? -eq 0
  check "$n: the same graph" diff <(canon "$tmp/$n.hlo.mug") <(canon "$tmp/$n.axl.mug")
done
# the operators the programs write, recognised in the HLO's spelled-out forms
check "gated MLP: x * logistic(x) is silu" has tests/hlo/gated_mlp.expected "= silu(dot_4)$"
check "RMSNorm: x / sqrt(sum(x * x) / n) is rms_norm" has tests/hlo/rmsnorm_linear.expected "let Y = rms_norm(X, axis = 1)$"
check "QKNorm: over the kept axis of K too" has tests/hlo/qknorm.expected "rms_norm(Arg_1_2, axis = 1)$"
check "RMSNorm with an epsilon stays in parts" has tests/hlo/rmsnorm.expected "rsqrt(add_15)"

# the search alone, one level set: exhausted, so deterministic
for n in rmsnorm_linear lora ntrans; do
  for f in "$tmp/$n.hlo.axl" "$tmp/$n.axl"; do
    AXLE_TEST_SEARCH_LEVELS=1,1,3,8,0 "$AXLE_TEST_BIN" superopt "$f" --no-gate --no-greedy --jobs 1 \
      --progress never --output "$f.s.mug" > "$f.s.log" 2>&1
    check "$(basename "$f"): search alone exit 0" test $? -eq 0
  done
  check "$n: the search finds the same graph" diff <(canon "$tmp/$n.hlo.axl.s.mug") <(canon "$tmp/$n.axl.s.mug")
done

echo "superopt_hlo_mirage: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
