#!/usr/bin/env bash
# A whole module's CUDA: `axle superopt tests/hlo/decoder_block.hlo --output-dir DIR`, then
# `axle cuda DIR` writes one .cu for every region (DIR/module.mug: one host entry that runs
# the regions and the cut operators in order), nvcc compiles it (device code for sm_90 and
# sm_80, and a full compile with the host entry), and `axle emulate DIR` runs it on the CPU
# against the float interpreter. Skipped (exit 77) without nvcc.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIP: nvcc not found (neither \$NVCC, PATH nor /usr/local/cuda/bin/nvcc): the module's"
  echo "SKIP: CUDA was NOT compiled; install the CUDA toolkit to run this check"
  exit 77
fi
# a state budget decides what the regions find (every region a graph at 100000); the time
# limit only bounds a hung run (a partition run always has one: 10 s a region by default)
"$AXLE" superopt --no-gate --progress never --jobs 1 --max-states 100000 --time-limit 600 tests/hlo/decoder_block.hlo \
  --output-dir "$tmp/d" > /dev/null 2>&1
check "superopt: exit 0" test $? -eq 0
"$AXLE" cuda "$tmp/d" --output "$tmp/m.cu" > "$tmp/out" 2>&1
check "cuda DIR: exit 0" test $? -eq 0
check "cuda DIR: one entry for the module" test "$(grep -c '^extern "C" int axle_run_' "$tmp/m.cu")" -eq 1
check "cuda DIR: the entry is the module's" has "$tmp/m.cu" "axle_run_jit_decoder_block("
check "cuda DIR: the header" has "$tmp/m.h" "axle_run_jit_decoder_block"
check "superopt: every region has a graph" jqt '(.regions | length) == 5 and all(.regions[]; .graph != null)' "$tmp/d/report.json"
for r in $(jq -r '.regions[] | select(.graph != null) | .name' "$tmp/d/report.json"); do
  check "cuda DIR: $r's kernels are in it" has "$tmp/m.cu" "${r}__"
done
for t in sm_90 sm_80; do
  "$AXLE" cuda "$tmp/d" --output "$tmp/m.$t.cu" --target $t > /dev/null 2>&1
  "$NVCC" -cubin -arch=$t -o "$tmp/m.$t.cubin" "$tmp/m.$t.cu" > "$tmp/nvcc.$t.log" 2>&1
  check "nvcc $t: compiles" test $? -eq 0
  check "nvcc $t: no warning" test "$(grep -ci warning "$tmp/nvcc.$t.log")" -eq 0
done
"$NVCC" -c -arch=sm_90 -o "$tmp/m.o" "$tmp/m.sm_90.cu" > "$tmp/host.log" 2>&1
check "nvcc: the host entry compiles" test $? -eq 0
if command -v "${CXX:-g++}" > /dev/null; then
  "$AXLE" emulate "$tmp/d" --seed 3 > "$tmp/emu" 2>&1
  check "emulate DIR: exit 0" test $? -eq 0
  check "emulate DIR: agrees" has "$tmp/emu" "^agrees: the generated kernels compute what the mugraph computes"
else
  echo "note: no host C++ compiler: the module was not emulated"
fi
echo "gpu_partition: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
