#!/usr/bin/env bash
# Compile check of the persistent megakernel (`axle mpk --output`; docs/gpu.md, "The
# megakernel runtime"): split-K and its reduction and the three two-kernel examples for
# sm_90 (h100) and sm_80 (a100), the three one-kernel examples for sm_90; device code (the
# block matmuls on tensor cores: mma.sync, emitted unconditionally), GQA also once in full
# (the host entry too). Each must compile with no error and no warning, ptxas must report the
# persistent kernel ax_mk, and nothing may spill ("0 bytes spill stores"). Without nvcc
# the test is skipped (exit 77), loudly.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIP: nvcc not found (neither \$NVCC, PATH nor /usr/local/cuda/bin/nvcc): the megakernel"
  echo "SKIP: was NOT compiled; install the CUDA toolkit to run this check"
  exit 77
fi
ex=superopt/examples
: >"$tmp/queue"
queue() {   # queue NAME GRAPH TARGET(h100|a100) MODE(device|full)
  "$AXLE" mpk "$2" --output "$tmp/$1.$3.cu" --target "$3"
  check "$1 $3: written" test -s "$tmp/$1.$3.cu"
  echo "$1 $3 $4" >>"$tmp/queue"
}
compile_one() {   # NAME TARGET MODE
  local arch=sm_90 flags="-cubin"
  [ "$2" = a100 ] && arch=sm_80
  [ "$3" = full ] && flags="-c"
  # shellcheck disable=SC2086
  "$NVCC" $flags -arch=$arch -Xptxas -v -o "$tmp/$1.$2.$3.out" "$tmp/$1.$2.cu" >"$tmp/$1.$2.$3.log" 2>&1
  echo $? >"$tmp/$1.$2.$3.st"
}
for t in h100 a100; do
  queue splitk tests/mpk/splitk.mug $t device
  for g in gqa qknorm rmsnorm_linear; do queue $g $ex/$g.mug $t device; done
done
for g in gated_mlp lora ntrans; do queue $g $ex/$g.mug h100 device; done
echo "gqa h100 full" >>"$tmp/queue"
export NVCC tmp
export -f compile_one
xargs -P "${NVCC_JOBS:-2}" -L 1 bash -c 'compile_one "$@"' _ <"$tmp/queue"
while read -r name t mode; do
  log="$tmp/$name.$t.$mode.log"
  check "$name $t $mode: nvcc exit 0" [ "$(cat "$tmp/$name.$t.$mode.st")" = 0 ]
  check "$name $t $mode: no warning" bash -c "! grep -qi 'warning' '$log'"
  check "$name $t $mode: ptxas compiled ax_mk" has "$log" "Compiling entry function '_Z5ax_mk"
  check "$name $t $mode: no spill" bash -c "! grep 'spill stores' '$log' | grep -qv ' 0 bytes spill stores'"
  check "$name $t $mode: ptxas reported spills" has "$log" "0 bytes spill stores"
  [ "$fail" -eq 0 ] || { echo "--- $log"; head -40 "$log"; }
done <"$tmp/queue"
echo "mpk nvcc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
