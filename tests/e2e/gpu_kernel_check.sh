#!/usr/bin/env bash
# tools/kernel-check.sh over the six benchmarks' hand graphs and the found graphs
# (docs/gpu.md, "Static checks of kernel quality"): every check passes or is a listed
# shortfall (tests/gpu/kernel-check.expected), and no listed one passes now. Attacks: a
# kernel whose waits are all made wait_group 0 fails `wait`; a kernel axle cost does not
# name fails `grid`; a listed shortfall that does
# not fail is reported "now passes"; an unlisted failure fails the run. The bank check
# (--banks, an emulation per graph) is left to the tool's own runs: gpu_emulate asserts
# the bank counter's figures.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
ex=superopt/examples
graphs="$ex/rmsnorm_linear.mug $ex/gated_mlp.mug $ex/lora.mug $ex/gqa.mug $ex/qknorm.mug $ex/ntrans.mug"
for f in docs/superopt-found/*.mug; do [ -e "$f" ] && graphs="$graphs $f"; done
tools/kernel-check.sh --axle "$AXLE" --expected tests/gpu/kernel-check.expected $graphs >"$tmp/out" 2>&1
st=$?
cat "$tmp/out"
check "benchmarks: exit 0 (every failure listed, every listed one fails)" test $st -eq 0
check "benchmarks: no unlisted failure" bash -c "! grep -q 'FAIL\$' '$tmp/out'"
check "benchmarks: summary" has "$tmp/out" "^kernel-check: [0-9]* pass, [0-9]* known shortfalls, 0 fail\$"
# attack: waits made wait_group 0 leave a ring of 4 waiting for everything: `wait` fails
tools/kernel-check.sh --axle "$AXLE" --cu-sed 's/ax_cp_async_wait<[0-9]*>/ax_cp_async_wait<0>/g; s/wait_group [0-9]*/wait_group 0/g' \
  $ex/gated_mlp.mug >"$tmp/bad" 2>&1
st=$?
check "bad wait: exit 1" test $st -eq 1
check "bad wait: wait FAILs" has "$tmp/bad" "^gated_mlp	ax_k3	wait	wait=0,stages=4	FAIL\$"
# attack: a kernel that axle cost does not name has no bytes: `grid` fails, never passes on 0
tools/kernel-check.sh --axle "$AXLE" --cu-sed "s/^\/\/ kernel 'k1'/\/\/ kernel 'nosuch'/" \
  $ex/gated_mlp.mug >"$tmp/nobytes" 2>&1
st=$?
check "unknown kernel: exit 1" test $st -eq 1
check "unknown kernel: grid FAILs" has "$tmp/nobytes" "^gated_mlp	ax_k3	grid	blocks=64,bytes=-1	FAIL\$"
# attack: a listed shortfall that passes is reported and fails the run
echo "gated_mlp ax_k3 spill" >"$tmp/exp"
tools/kernel-check.sh --axle "$AXLE" --expected "$tmp/exp" $ex/gated_mlp.mug >"$tmp/stale" 2>&1
st=$?
check "stale list: exit 1" test $st -eq 1
check "stale list: now passes" has "$tmp/stale" "spill.*now passes: remove from the list"
echo "gpu kernel check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
