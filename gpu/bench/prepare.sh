#!/usr/bin/env bash
# prepare.sh — writes the benchmark set for gpu/bench/bench.py into OUTDIR: for every
# example of superopt/examples, NAME.cu (+ NAME.h) and the manifest NAME.json from
# `axle cuda --program`, NAME.cost with the cost model's time_us when this axle has
# `axle cost`, and bench.py itself. Copy OUTDIR to a GPU machine (nvcc, Python, PyTorch)
# and run `python3 OUTDIR/bench.py OUTDIR` there (docs/gpu.md).
#   usage: gpu/bench/prepare.sh OUTDIR [--target sm_90|sm_80]     ($AXLE: the binary)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
axle=${AXLE:-$src/build/axle}
out=${1:?usage: prepare.sh OUTDIR [--target sm_90|sm_80]}
shift
target=sm_90
if [ "${1:-}" = --target ]; then target=${2:?--target needs sm_90 or sm_80}; fi
mkdir -p "$out"
has_cost=no
if "$axle" cost --help >/dev/null 2>&1; then has_cost=yes; fi
for name in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  ex=$src/superopt/examples/$name
  "$axle" cuda "$ex.mug" --output "$out/$name.cu" --target "$target" --program "$ex.axl"
  if [ $has_cost = yes ]; then
    gpu=h100; [ "$target" = sm_80 ] && gpu=a100
    "$axle" cost "$ex.mug" --target $gpu --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])' >"$out/$name.cost"
  fi
done
cp "$here/bench.py" "$out/bench.py"
echo "prepare: $out holds 6 benchmarks for $target (cost model: $has_cost); on a GPU machine run"
echo "  python3 $out/bench.py $out --out results-gpu-table.md"
