#!/usr/bin/env bash
# The GPU benchmark harness without a GPU: gpu/bench/prepare.sh writes the six benchmarks
# (.cu, .h, manifest, bench.py), and with --megakernel the persistent megakernels' set;
# bench.py --show prints each program in PyTorch from its manifest; bench.py itself says
# that there is no GPU measurement here and exits 0 (no PyTorch, or no CUDA device); bad
# manifests and arguments exit 2. Skipped without python3.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 not found: the benchmark harness (gpu/bench/bench.py) was NOT tested"
  exit 77
fi
b="$tmp/bench"
AXLE="$AXLE" gpu/bench/prepare.sh "$b" >"$tmp/out" 2>&1
check "prepare: exit 0" test $? -eq 0
for name in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  check "prepare: $name" test -s "$b/$name.cu" -a -s "$b/$name.h" -a -s "$b/$name.json"
done
check "prepare: bench.py copied" test -s "$b/bench.py"
python3 "$b/bench.py" --show "$b" >"$tmp/show" 2>&1
check "show: exit 0" test $? -eq 0
check "show: six programs" test "$(grep -c '^def program' "$tmp/show")" -eq 6
check "show: rmsnorm_linear in torch" has "$tmp/show" "t2 = ax_rms_norm(t0, 1).to(torch.float16)"
check "show: gqa's sum" has "$tmp/show" "t5 = ax_sum(t4, 2, 1).to(torch.float16)"
check "show: outputs returned" has "$tmp/show" "return (t7,)"
python3 "$b/bench.py" "$b" --out "$tmp/table.md" >"$tmp/out" 2>&1
st=$?
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "a GPU is visible: bench.py measured (exit $st)"; cat "$tmp/out"
  check "GPU: table written" has "$tmp/table.md" "| device | benchmark | axle µs"
else
  check "no GPU: exit 0" test $st -eq 0
  check "no GPU: says so" has "$tmp/out" "^bench: no GPU measurement ([0-9-]* [0-9:]* UTC): "
  check "no GPU: no table" test ! -e "$tmp/table.md"
fi
# the operators of real layers in torch (naive graphs of tests/superopt's programs)
v="$tmp/vocab"
mkdir -p "$v"
for n in vocab_layers vocab_max softmax_max rowmax vocab_layout causal; do
  "$AXLE" cuda tests/superopt/$n.axl --output "$v/$n.cu" --program tests/superopt/$n.axl > /dev/null
done
python3 gpu/bench/bench.py --show "$v" >"$tmp/show" 2>&1
check "show vocab: exit 0" test $? -eq 0
check "show vocab: tanh" has "$tmp/show" "= torch.tanh(t[0-9]*).to(torch.float32)"
check "show vocab: logistic is the sigmoid" has "$tmp/show" "= torch.sigmoid(t1).to(torch.float32)"
check "show vocab: rsqrt" has "$tmp/show" "= torch.rsqrt(t[0-9]*).to(torch.float32)"
check "show vocab: max with a literal" has "$tmp/show" "= torch.maximum(ax_t(t0, 0.0), ax_t(0.0, t0)).to(torch.float32)"
check "show vocab: reduce_max" has "$tmp/show" "= ax_max(t0, 1, 1).to(torch.float32)"
check "show vocab: reduce_min" has "$tmp/show" "= ax_min(t0, 1, 1).to(torch.float32)"
check "show vocab: min" has "$tmp/show" "= torch.minimum(ax_t(t[0-9]*, 6.0), ax_t(6.0, t[0-9]*)).to(torch.float32)"
check "show vocab: transpose is permute" has "$tmp/show" "= t0.permute(\[1, 0, 2\]).contiguous().to(torch.float32)"
check "show vocab: to_f16 rounds through float16, stored in it" has "$tmp/show" "= t[0-9]*.to(torch.float16).float().to(torch.float16)"
check "show vocab: to_bf16" has "$tmp/show" "= t[0-9]*.to(torch.bfloat16).float().to(torch.bfloat16)"
check "show vocab: iota" has "$tmp/show" "= torch.arange(16, device='cuda', dtype=torch.float32).reshape(\[16\]).expand(\[16\]).contiguous().to(torch.float32)"
check "show vocab: a comparison is a 1.0/0.0 mask" has "$tmp/show" "= torch.ge(ax_t(t[0-9]*, t[0-9]*), ax_t(t[0-9]*, t[0-9]*)).float().to(torch.float32)"
check "show vocab: a literal broadcast is filled" has "$tmp/show" "= torch.full(\[16, 16\], -1000.0, device='cuda').to(torch.float32)"
check "show vocab: select is where" has "$tmp/show" "= torch.where(t[0-9]* != 0, t[0-9]*, t[0-9]*).to(torch.float32)"
# bad manifests and arguments
echo '{"format": "other"}' >"$tmp/bad.json"
python3 "$b/bench.py" "$tmp/bad.json" >"$tmp/out" 2>&1
check "bad manifest: exit 2" test $? -eq 2
check "bad manifest: message" has "$tmp/out" "bad.json: not an axle benchmark manifest"
jq '(.steps[] | select(.op == "rms_norm") | .op) = "rms_nrom"' "$b/ntrans.json" >"$tmp/ntrans.json"
cp "$b/ntrans.cu" "$tmp/ntrans.cu"
python3 "$b/bench.py" "$tmp/ntrans.json" >"$tmp/out" 2>&1
check "unknown operator: exit 2" test $? -eq 2
check "unknown operator: message" has "$tmp/out" "unknown operator 'rms_nrom'"
rm "$b/lora.cu"
python3 "$b/bench.py" "$b" >"$tmp/out" 2>&1
check "missing .cu: exit 2" test $? -eq 2
check "missing .cu: message" has "$tmp/out" "lora.json: no generated source"
python3 "$b/bench.py" "$b" --iters 10 >"$tmp/out" 2>&1
check "too few iterations: exit 2" test $? -eq 2

# the generator's comments name the μGraph kernel behind every CUDA kernel (per-kernel times)
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/k" >/dev/null 2>&1
python3 "$tmp/k/bench.py" "$tmp/k" --sanitize memcheck,helgrind >"$tmp/out" 2>&1
check "bad sanitizer tool: exit 2" test $? -eq 2
check "bad sanitizer tool: names the tools" has "$tmp/out" "memcheck, racecheck, synccheck, initcheck, ncu"
python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import bench; print(sorted(bench.kernel_names(sys.argv[2]).items()))" \
  gpu/bench "$tmp/k/gqa.cu" >"$tmp/names" 2>&1
check "kernel names: gqa's two kernels" has "$tmp/names" "^\[('ax_k3', 'k1'), ('ax_k4', 'k2')\]$"
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/nv" --graphs naive >"$tmp/out" 2>&1
check "prepare naive: exit 0" test $? -eq 0
python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import bench; print(sorted(bench.kernel_names(sys.argv[2]).values()))" \
  gpu/bench "$tmp/nv/lora.cu" >"$tmp/names" 2>&1
# its three matmuls are cuBLAS calls: their kernels are cuBLAS's, profiled under cuBLAS's names
check "kernel names: lora's operators but the matmuls" has "$tmp/names" "^\['O'\]$"
check "prepare naive: lora's matmuls are cuBLAS calls" test "$(grep -c 'cublasGemmStridedBatchedEx(h' "$tmp/nv/lora.cu")" -eq 3
check "prepare naive: graphs recorded" has "$tmp/nv/graphs" "^lora .*superopt/examples/lora.axl$"
# a set of variants from a directory, one graph missing: skipped, said
mkdir -p "$tmp/var"
sed 's/block \[128, 1, 1\]/block [256, 1, 1]/' superopt/examples/lora.mug >"$tmp/var/lora.mug"
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/v" --graphs "$tmp/var" >"$tmp/out" 2>&1
check "prepare DIR: exit 0" test $? -eq 0
check "prepare DIR: one benchmark" has "$tmp/out" "holds 1 benchmarks"
check "prepare DIR: missing graphs said" has "$tmp/out" "prepare: gqa: no .*/var/gqa.mug, not benchmarked"
check "prepare DIR: the variant's block" has "$tmp/v/lora.cu" "dim3(256, 1, 1)"
# the microbenchmarks (gpu/bench/micro): prepared as a set of their own, the small ones'
# generated code computing their programs on the CPU, run-all.sh timing them without
# torch.compile (the step named) before ncu and memcheck
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/mb/micro" --programs gpu/bench/micro --graphs gpu/bench/micro >"$tmp/out" 2>&1
check "prepare micro: exit 0" test $? -eq 0
check "prepare micro: eight benchmarks" has "$tmp/out" "holds 8 benchmarks"
check "prepare micro: the h200's prediction" jqt --arg c "$(cat "$tmp/mb/micro/copy_256m.cost")" \
  '.time_us == ($c | tonumber) and .target == "h200"' <("$AXLE" cost gpu/bench/micro/copy_256m.mug --format json)
for n in copy_tiny mm_tile mm_loop; do
  check "micro $n: the generated code computes the program" \
    "$AXLE" emulate gpu/bench/micro/$n.mug --program gpu/bench/micro/$n.axl --seed 2
done
gpu/bench/run-all.sh "$tmp/mb" "$tmp/mbrun" 0 >/dev/null 2>&1
check "run-all micro: timed, then ncu, then memcheck (skipped here)" \
  bash -c 'grep -q "^run-all: time micro: skipped" "$0" && grep -q "^run-all: ncu micro: skipped" "$0" &&
           grep -q "^run-all: sanitize memcheck micro: skipped" "$0" && ! grep -q "racecheck micro" "$0"' "$tmp/mbrun/log.txt"
# the megakernel set: the same entries and manifests, NAME.cu from axle mpk --output, the
# simulator's megakernel_us as the prediction; a graph it cannot run is skipped, said
cp tests/gpu/predefined.mug "$tmp/var/gqa.mug"
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/mk" --graphs "$tmp/var" --megakernel >"$tmp/out" 2>&1
check "prepare --megakernel: exit 0" test $? -eq 0
check "prepare --megakernel: one benchmark" has "$tmp/out" "holds 1 benchmarks (.* as megakernels)"
check "prepare --megakernel: a pre-defined operator said" \
  has "$tmp/out" "prepare: gqa: no megakernel (.*the megakernel runs graph-defined kernels only.*), not benchmarked"
check "prepare --megakernel: the megakernel" has "$tmp/mk/lora.cu" "^__global__ void __launch_bounds__(256, 1) ax_mk("
check "prepare --megakernel: its manifest" test -s "$tmp/mk/lora.json"
"$AXLE" mpk "$tmp/var/lora.mug" --simulate --format json >"$tmp/lora.sim.json"
check "prepare --megakernel: the simulator's prediction" \
  jqt --arg c "$(cat "$tmp/mk/lora.cost")" '.megakernel_us == ($c | tonumber)' "$tmp/lora.sim.json"
python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import bench; print(sorted(bench.kernel_names(sys.argv[2]).items()))" \
  gpu/bench "$tmp/mk/lora.cu" >"$tmp/names" 2>&1
check "kernel names: the megakernel" has "$tmp/names" "^\[('ax_mk', 'megakernel')\]$"
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/mk2" --graphs naive --megakernel >"$tmp/out" 2>&1
check "prepare: --megakernel of naive graphs exits 1" test $? -eq 1
rm -f "$tmp/var/gqa.mug"
AXLE="$AXLE" gpu/bench/prepare.sh "$tmp/v" --graphs nowhere >"$tmp/out" 2>&1
check "prepare: bad --graphs exits 1" test $? -eq 1
# run-all.sh with no time left skips every step and says so
gpu/bench/run-all.sh "$tmp" "$tmp/run" 0 >/dev/null 2>&1
check "run-all: writes env.txt" test -s "$tmp/run/env.txt"
check "run-all: every step skipped, said" has "$tmp/run/log.txt" "^run-all: time nv: skipped, out of time$"
check "run-all: the megakernel set timed" has "$tmp/run/log.txt" "^run-all: time mk: skipped, out of time$"
check "run-all: done" has "$tmp/run/log.txt" "^run-all: done after"

# prepare --build (nvcc here) makes the libraries and the sanitizer driver; the driver
# refuses bad arguments (exit 2) and, without a GPU, says it cannot place the inputs
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$NVCC" ]; then
  AXLE="$AXLE" NVCC="$NVCC" gpu/bench/prepare.sh "$tmp/built" --graphs "$tmp/var" --build >"$tmp/out" 2>&1
  check "build: exit 0" test $? -eq 0
  check "build: library exports the entry" bash -c "nm -D '$tmp/built/lora.so' | grep -q ' T axle_run_lora$'"
  check "build: library not older than its source" test ! "$tmp/built/lora.so" -ot "$tmp/built/lora.cu"
  "$tmp/built/driver" >"$tmp/out" 2>&1
  check "driver: no arguments: exit 2" test $? -eq 2
  "$tmp/built/driver" "$tmp/built/lora.so" axle_run_lora in f16:x out f16:1 >"$tmp/out" 2>&1
  check "driver: bad buffer: exit 2" test $? -eq 2
  check "driver: bad buffer: message" has "$tmp/out" "bad buffer 'f16:x'"
  "$tmp/built/driver" "$tmp/built/lora.so" axle_run_nothing in f16:1 out f16:1 >"$tmp/out" 2>&1
  check "driver: unknown entry: exit 2" test $? -eq 2
  "$tmp/built/driver" "$tmp/none.so" axle_run_lora in f16:1 out f16:1 >"$tmp/out" 2>&1
  check "driver: missing library: exit 2" test $? -eq 2
  if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    "$tmp/built/driver" "$tmp/built/lora.so" axle_run_lora in f16:4096 f16:1048576 f16:4096 f16:65536 \
      out f16:65536 >"$tmp/out" 2>&1
    check "driver: no GPU: exit 1" test $? -eq 1
  fi
else
  echo "SKIP: nvcc not found: prepare.sh --build and the sanitizer driver were NOT tested"
fi

# docs/results-gpu.md is exactly what tools/gpu-results.py makes of docs/gpu-run with this
# binary's cost model (regenerate it after changing either)
AXLE="$AXLE" python3 tools/gpu-results.py --out "$tmp/results-gpu.md" >"$tmp/out" 2>&1
check "gpu-results: exit 0" test $? -eq 0
check "gpu-results: docs/results-gpu.md is current" cmp -s "$tmp/results-gpu.md" docs/results-gpu.md
mkdir -p "$tmp/emptyrun"
python3 tools/gpu-results.py "$tmp/emptyrun" --out "$tmp/x.md" >"$tmp/out" 2>&1
check "gpu-results: a run without files: exit 2" test $? -eq 2
check "gpu-results: names the file" has "$tmp/out" "env.txt"
tools/gpu-keep.sh "$tmp/emptyrun" "$tmp/built" testrun >"$tmp/out" 2>&1
check "gpu-keep: missing files: exit 1" test $? -eq 1
check "gpu-keep: nothing kept" test ! -e docs/gpu-run/testrun
echo "gpu bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
