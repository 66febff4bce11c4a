#!/usr/bin/env bash
# prepare.sh — writes the benchmark set for gpu/bench/bench.py into OUTDIR: for every
# example of superopt/examples, NAME.cu (+ NAME.h) and the manifest NAME.json from
# `axle cuda --program`, NAME.cost with the cost model's time_us, bench.py itself, and
# OUTDIR/graphs: which graph file each benchmark came from (tools/gpu-keep.sh reads it).
# Copy OUTDIR to a GPU machine (Python, PyTorch; nvcc unless --build) and run
# `python3 OUTDIR/bench.py OUTDIR` there (docs/gpu.md).
#   usage: gpu/bench/prepare.sh OUTDIR [--target sm_90|sm_80] [--graphs hand|found|naive|DIR]
#                               [--single-buffer] [--megakernel] [--build] [--programs DIR]
#   --graphs   hand: the hand-written μGraphs of superopt/examples (default); found: the
#              search's graphs in docs/superopt-found; naive: each program lowered to one
#              kernel per operator; a directory: the NAME.mug files in it (variants)
#   --single-buffer  generate without the cp.async ring (to time both)
#   --megakernel     NAME.cu is the graph as one persistent megakernel (`axle mpk --output`;
#              same entry, same manifest) and NAME.cost the simulator's megakernel_us: a set
#              to time next to the per-kernel one (e.g. OUTDIR gpurun/mk beside gpurun/hand);
#              a graph the megakernel cannot run is skipped with a message
#   --programs DIR   benchmark the programs DIR/NAME.axl instead of superopt/examples' six
#              (with --graphs naive or a directory of NAME.mug; a program with no graph
#              there is not benchmarked)
#   --build    also compile here, with nvcc ($NVCC or /usr/local/cuda/bin/nvcc), NAME.so for
#              the target (tensor-core path, line info for the sanitizer; linked with
#              -lcublas, the pre-defined matmuls' library, and the toolkit's lib64 as its
#              run path) and OUTDIR/driver (bench.py --sanitize), so the GPU machine
#              compiles nothing
# ($AXLE: the binary.) Exit status: 0 written, 1 a step failed (its message above).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
axle=${AXLE:-$src/build/axle}
usage() { echo "usage: prepare.sh OUTDIR [--target sm_90|sm_80] [--graphs hand|found|naive|DIR] [--single-buffer] [--megakernel] [--build] [--programs DIR]" >&2; exit 1; }
out=${1:-}
[ -n "$out" ] && [ "${out#-}" = "$out" ] || usage
shift
target=sm_90 graphs=hand single= build=no mk=no progs=$src/superopt/examples
while [ $# -gt 0 ]; do
  case $1 in
    --target) target=${2:-}; shift 2 || usage ;;
    --graphs) graphs=${2:-}; shift 2 || usage ;;
    --single-buffer) single=--single-buffer; shift ;;
    --build) build=yes; shift ;;
    --megakernel) mk=yes; shift ;;
    --programs) progs=${2:-}; [ -d "$progs" ] || usage; shift 2 ;;
    *) usage ;;
  esac
done
# the cost model of the GPU the runs are on: sm_90 is the H200 measured so far (docs/gpu-run)
case $target in sm_90) gpu=h200 ;; sm_80) gpu=a100 ;; *) usage ;; esac
# a megakernel runs graph-defined kernels only: a naive graph is all pre-defined operators
[ $mk = yes ] && [ "$graphs" = naive ] && usage
case $graphs in
  hand) graph() { echo "$src/superopt/examples/$1.mug"; } ;;
  found) graph() { echo "$src/docs/superopt-found/$1.mug"; } ;;
  naive) graph() { echo "$progs/$1.axl"; } ;;
  *) [ -d "$graphs" ] || usage
     variants=$(cd "$graphs" && pwd)
     graph() { echo "$variants/$1.mug"; } ;;
esac
mkdir -p "$out"
rm -f "$out/graphs.new"
progs=$(cd "$progs" && pwd)
if [ "$progs" = "$src/superopt/examples" ]; then
  all="rmsnorm_linear gated_mlp lora gqa qknorm ntrans"
else
  case $graphs in hand|found) usage ;; esac   # those graphs exist for the six examples only
  all=$(cd "$progs" && ls *.axl | sed 's/\.axl$//')
fi
names=
for name in $all; do
  g=$(graph $name)
  if [ ! -e "$g" ]; then   # the search keeps no graph that is not modelled faster than naive
    echo "prepare: $name: no $g, not benchmarked" >&2
    continue
  fi
  if [ $mk = yes ] && ! "$axle" mpk "$g" --output "$out/$name.mk.cu" --target $gpu 2>"$out/$name.mk.err"; then
    echo "prepare: $name: no megakernel ($(head -1 "$out/$name.mk.err")), not benchmarked" >&2
    rm -f "$out/$name.mk.err"
    continue
  fi
  rm -f "$out/$name.mk.err"
  names="$names $name"
  echo "$name $g" >>"$out/graphs.new"   # which graph each benchmark is (tools/gpu-keep.sh)
  "$axle" cuda "$g" --output "$out/$name.cu" --target "$target" $single \
    --program "$progs/$name.axl"
  if [ $mk = yes ]; then   # the megakernel has the per-kernel file's entry, header and manifest
    mv "$out/$name.mk.cu" "$out/$name.cu"
    "$axle" mpk "$g" --simulate --target $gpu --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["megakernel_us"])' >"$out/$name.cost"
  else
    "$axle" cost "$g" --target $gpu --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])' >"$out/$name.cost"
  fi
done
mv "$out/graphs.new" "$out/graphs"
cp "$here/bench.py" "$out/bench.py"
if [ $build = yes ]; then
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  arch=${target#sm_}
  gencode="-gencode arch=compute_$arch,code=sm_$arch -gencode arch=compute_$arch,code=compute_$arch"
  # pre-defined matmuls are cuBLAS calls: -lcublas, found at run time through the toolkit's
  # library directory (the GPU machine has the same toolkit; ld drops it where unused)
  cudalib=$(cd "$(dirname "$nvcc")/../lib64" 2>/dev/null && pwd || echo /usr/local/cuda/lib64)
  # The .so files are made after the .cu files (bench.py uses a NAME.so only when it is
  # not older than its NAME.cu). Two at a time: nvcc is single-threaded.
  printf '%s\n' $names | xargs -P 2 -I{} sh -c \
    "\"$nvcc\" -O3 -std=c++17 $gencode -DAXLE_TC -lineinfo -Xcompiler -fPIC -shared \
       -o \"$out/{}.so\" \"$out/{}.cu\" -lcublas -Xlinker -rpath,$cudalib && strip \"$out/{}.so\"" ||
    { echo "prepare: nvcc failed" >&2; exit 1; }
  "$nvcc" -O2 -std=c++17 $gencode -o "$out/driver" "$here/driver.cu" -ldl ||
    { echo "prepare: nvcc failed on driver.cu" >&2; exit 1; }
  strip "$out/driver"
fi
mkdesc=; [ $mk = yes ] && mkdesc=", as megakernels"
echo "prepare: $out holds $(echo $names | wc -w) benchmarks ($graphs graphs${single:+, single-buffered}$mkdesc) for $target" \
     "(built: $build); on a GPU machine run"
echo "  python3 $out/bench.py $out --out results-gpu-table.md"
