#!/usr/bin/env bash
# How much the result cache and the worker pool save, on a rule corpus.
#
#   tools/bench.sh [AXLE] [FILE|DIR...]
#
# AXLE defaults to build/axle; the corpus to the examples and their mutants without the
# conv rules of rules/examples/fold_conv_input_pad.axl (tens of seconds each; name
# rules/examples to include them). Runs, with a fresh cache of its own:
#   1. --jobs 1, cold cache        (every rule verified, entries stored)
#   2. --jobs 1, warm cache        (every rule from the cache)
#   3. --jobs N --no-cache         (N = the number of cores)
# and prints the times, the cache ratio (2 / 1) and the speedup of N jobs (1 / 3).
set -eu
axle=${1:-build/axle}
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
  set -- rules/examples/dot_as_reduce.axl rules/examples/dyslice_to_slice.axl \
    rules/examples/mul_of_reductions.axl rules/examples/pad_low_combine.axl \
    rules/examples/slice_dyup_slice.axl rules/examples/transpose_sum.axl rules/examples-mutants
fi
[ -x "$axle" ] || { echo "bench: $axle is not an executable (build first, or name it)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cores=$(nproc 2>/dev/null || echo 2)

timed() {   # timed NAME ARGS...: runs axle verify, prints the wall time in seconds
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$axle" verify --format json "$@" > "$tmp/$name.json" || [ $? -le 2 ]
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
cold=$(timed cold --jobs 1 "$@")
warm=$(timed warm --jobs 1 "$@")
par=$(timed par --jobs "$cores" --no-cache "$@")
n=$(wc -l < "$tmp/cold.json")
hits=$(grep -c '"cached":true' "$tmp/warm.json" || true)
same=$(cmp -s <(jq -c '[.rule, .type, .verdict]' "$tmp/cold.json") \
              <(jq -c '[.rule, .type, .verdict]' "$tmp/warm.json") && echo yes || echo NO)
echo "corpus: $n results (rule x element type) from: $*"
echo "cold cache, --jobs 1:      ${cold} s"
echo "warm cache, --jobs 1:      ${warm} s   ($hits of $n from the cache; same verdicts: $same)"
echo "no cache,   --jobs $cores:      ${par} s"
# UNKNOWN and ERROR are never stored (docs/cli.md): what they cost the warm run
jq -r 'select(.cached | not) | .time_ms' "$tmp/warm.json" | awk -v n="$n" '
  { k++; t += $1 } END { if (k) printf "not cacheable (UNKNOWN/ERROR, computed again): %d of %d results, %.1f s of the warm run\n", k, n, t / 1000 }'
awk -v c="$cold" -v w="$warm" -v p="$par" -v j="$cores" 'BEGIN {
  printf "cache: the second run takes %.3f of the first (%.0fx faster)\n", w / c, c / w
  printf "jobs: --jobs %d is %.2fx as fast as --jobs 1\n", j, c / p
}'
