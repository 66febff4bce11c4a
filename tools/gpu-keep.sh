#!/usr/bin/env bash
# tools/gpu-keep.sh OUT PREPARED NAME — keeps a GPU run in the repository: copies what
# gpu/bench/run-all.sh wrote into OUT (env.txt, tables.md, kernels.jsonl, sanitize.txt,
# ncu.txt) and the μGraphs that were measured (PREPARED/SET/NAME.cu's sources, as .mug,
# from the graphs prepare.sh was given: recorded in each manifest) into docs/gpu-run/NAME/,
# then regenerates docs/results-gpu.md (tools/gpu-results.py). Exit 0 kept, 1 a file is
# missing or the page cannot be made from the run (nothing is kept then).
set -eu
out=${1:?usage: gpu-keep.sh OUT PREPARED NAME}
prep=${2:?usage: gpu-keep.sh OUT PREPARED NAME}
name=${3:?usage: gpu-keep.sh OUT PREPARED NAME}
cd "$(dirname "$0")/.."
for f in env.txt tables.md kernels.jsonl sanitize.txt ncu.txt; do
  [ -s "$out/$f" ] || { echo "gpu-keep: $out/$f is missing or empty" >&2; exit 1; }
done
dest=docs/gpu-run/$name
[ -e "$dest" ] && { echo "gpu-keep: $dest exists: choose another name" >&2; exit 1; }
for set in $(cd "$prep" && ls); do
  [ -e "$prep/$set/graphs" ] || continue
  while read -r bench graph; do
    case $graph in *.mug) mkdir -p "$dest/$set" && cp "$graph" "$dest/$set/$bench.mug" ;; esac
  done <"$prep/$set/graphs"
done
mkdir -p "$dest"
cp "$out"/{env.txt,tables.md,kernels.jsonl,sanitize.txt,ncu.txt} "$dest/"
if ! python3 tools/gpu-results.py; then   # the run does not fit its graphs: keep nothing
  rm -rf "$dest"
  python3 tools/gpu-results.py 2>/dev/null || true
  exit 1
fi
echo "gpu-keep: kept $dest"
