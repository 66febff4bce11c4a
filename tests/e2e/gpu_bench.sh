#!/usr/bin/env bash
# The GPU benchmark harness without a GPU: gpu/bench/prepare.sh writes the six benchmarks
# (.cu, .h, manifest, bench.py); bench.py --show prints each program in PyTorch from its
# manifest; bench.py itself says that there is no GPU measurement here and exits 0 (no
# PyTorch, or no CUDA device); bad manifests and arguments exit 2. Skipped without python3.
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
echo "gpu bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
