#!/usr/bin/env bash
# Compile check of the generated CUDA: every example of superopt/examples (and the sm_80
# shared-memory edge case for sm_90, and every pre-defined operator), generated for sm_90 and sm_80, compiled by nvcc for
# that target with --resource-usage, on the tensor-core path (-DAXLE_TC) and on the
# portable path: no error, no warning, no register spill, static shared memory within the
# target's limit (from ptxas), dynamic shared memory within it (from the generated file),
# and ptxas reports every __global__. Device code only (-cubin), except two full compiles
# that include the host entry. Without nvcc the test is skipped (exit 77), loudly.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIP: nvcc not found (neither \$NVCC, PATH nor /usr/local/cuda/bin/nvcc): the generated"
  echo "SKIP: CUDA was NOT compiled; install the CUDA toolkit to run this check"
  exit 77
fi
echo "nvcc: $("$NVCC" --version | tail -1)"
limit() { [ "$1" = sm_90 ] && echo 232448 || echo 166912; }
# ... and every graph the superoptimizer found and wrote (docs/superopt-found, from
# tools/superopt-results.sh), so what the search emits is compiled too
found=()
for f in docs/superopt-found/*.mug; do [ -e "$f" ] && found+=("${f%.mug}"); done
for g in superopt/examples/{rmsnorm_linear,gated_mlp,lora,gqa,qknorm,ntrans} tests/gpu/{smem_sm80,predefined} "${found[@]}"; do
  name=$(basename "$g")
  for t in sm_90 sm_80; do
    [ "$name" = smem_sm80 ] && [ "$t" = sm_80 ] && continue   # refused there (gpu_cuda.sh)
    cu="$tmp/$name.$t.cu"
    "$AXLE" cuda "$g.mug" --output "$cu" --target "$t"
    check "$name $t: generated" test -s "$cu"
    nglobal=$(grep -c '^__global__' "$cu")
    while read -r _ _ _ _ _ _ bytes _; do
      check "$name $t: dynamic shared memory $bytes <= $(limit $t)" test "$bytes" -le "$(limit $t)"
    done < <(grep '^// axle: kernel .* shared memory' "$cu")
    for path in tc portable; do
      flags=""; [ $path = tc ] && flags="-DAXLE_TC"
      log="$tmp/$name.$t.$path.log"
      "$NVCC" -cubin -arch="$t" --resource-usage $flags -o "$tmp/x.cubin" "$cu" >"$log" 2>&1
      st=$?
      check "$name $t $path: nvcc exit 0" test $st -eq 0
      check "$name $t $path: no warning" bash -c "! grep -qi 'warning' '$log'"
      check "$name $t $path: ptxas reports every kernel" test "$(grep -c 'Used [0-9]* registers' "$log")" -eq "$nglobal"
      check "$name $t $path: no spill" bash -c "! grep -E '[1-9][0-9]* bytes spill (stores|loads)' '$log'"
      smem=$(grep -o '[0-9]* bytes smem' "$log" | sort -n | tail -1 | cut -d' ' -f1)
      check "$name $t $path: static smem ${smem:-0} <= $(limit $t)" test "${smem:-0}" -le "$(limit $t)"
      [ $st -eq 0 ] || head -20 "$log"
      echo "$name $t $path: $(grep -o 'Used [0-9]* registers' "$log" | tr '\n' ' ')smem ${smem:-0}"
    done
  done
done
# host code too (the loop above compiles device code only): a full -c compile of the graph
# with intermediates, two kernels and dynamic shared memory, and of the pre-defined one
for name in gqa predefined; do
  "$NVCC" -c -arch=sm_90 -DAXLE_TC -o "$tmp/$name.o" "$tmp/$name.sm_90.cu" >"$tmp/host.log" 2>&1
  check "$name: host and device compile" test $? -eq 0
  check "$name: host compile without warning" bash -c "! grep -qi warning '$tmp/host.log'"
done
echo "gpu nvcc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
