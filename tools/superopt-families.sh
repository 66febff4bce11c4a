#!/usr/bin/env bash
# tools/superopt-families.sh [N] [SEED] [SECONDS] — the search's generality benchmark, its
# analogue of a fuzzer: N random programs in the families a transformer is built of
# (tools/superopt-families.py: projections with scale and bias, norms in any written form,
# activations, gated MLPs, LoRA with alpha / r, attention with a scale; shapes from real
# model configurations, scaled down), each searched by `axle superopt --time-limit SECONDS
# --jobs $JOBS --format json`, each written graph checked again with `axle equiv`. Prints a
# table, one row per program, and last the line
#
#   N programs: F faster than naive, G at least as fast as greedy, median ratio R
#
# F: programs whose written graph is modelled faster than the naive graph (one kernel per
# operator) and passed `axle equiv`; G: programs whose result (the naive graph when nothing
# was written) is modelled no slower than the greedy fusion floor (the naive graph when no
# fusion applies); R: the median of result / naive modelled time. A program axle rejects,
# or a graph `axle equiv` refutes, counts in neither and has ratio 1, and its row says why.
# Defaults: N 20, SEED 1, SECONDS 30.
#
# Environment: AXLE the binary (default build/axle), JOBS search threads (2), GATE=1 search
# gated by rules/superopt (default --no-gate, as tools/superopt-results.sh), FAMILIES_DIR
# keep the programs, graphs and reports there (default: a scratch directory, removed),
# FAMILIES_RECORD=FILE also write the run's raw figures (the TSV the docs page is rendered
# from: tools/superopt-results.sh --render reads docs/data/superopt-families.tsv).
# Exit status: 0 the benchmark ran (whatever its figures), 2 bad usage or a program the
# generator could not write, 3 some generated program was rejected by axle (a generator bug
# or an axle bug: the row and the message above say which program).
set -u
cd "$(dirname "$0")/.." || exit 2
n=${1:-20} seed=${2:-1} secs=${3:-30}
for v in "$n" "$seed" "$secs"; do
  case $v in ''|*[!0-9]*) echo "usage: tools/superopt-families.sh [N] [SEED] [SECONDS]" >&2; exit 2 ;; esac
done
axle=${AXLE:-build/axle}
# the recorded figures (docs/data) were modelled for the H100: the same target gives them back
target=h100
jobs=${JOBS:-2}
gate=(--no-gate)
[ "${GATE:-0}" = 1 ] && gate=(--rules rules/superopt)
if [ -n "${FAMILIES_DIR:-}" ]; then
  w=$FAMILIES_DIR; mkdir -p "$w" || exit 2
else
  w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
fi
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
load0=$(cut -d' ' -f1 /proc/loadavg)
python3 tools/superopt-families.py "$n" "$seed" "$w" >"$w/programs.tsv" || exit 2

tsv=$w/run.tsv
printf 'n\t%s\nseed\t%s\nseconds\t%s\njobs\t%s\ngate\t%s\ndate\t%s\nmachine\t%s\nload0\t%s\n' \
  "$n" "$seed" "$secs" "$jobs" "${gate[*]}" "$(date -u +%Y-%m-%d)" "$machine" "$load0" >"$tsv"
rejected=0 i=0
while IFS=$'\t' read -r prog fam form shapes; do
  i=$((i + 1))
  b=${prog%.axl}
  # well-formed: axle parses, checks and costs the naive graph
  if ! "$axle" cost "$prog" --target $target --format json >"$b.naive.json" 2>"$b.cost.err"; then
    echo "superopt-families: axle rejects generated program $prog:" >&2
    sed 's/^/  /' "$b.cost.err" >&2
    rejected=$((rejected + 1))
    printf 'prog\t%s\t%s\t%s\t%s\t%s\trejected\t-\t-\t-\t-\t-\t-\t-\t-\t-\n' "$i" "$(basename "$b")" "$fam" "$form" "$shapes" >>"$tsv"
    continue
  fi
  t0=$(date +%s.%N)
  "$axle" superopt "$prog" --target $target "${gate[@]}" --jobs "$jobs" --time-limit "$secs" --progress never \
    --format json --output "$b.mug" >"$b.search.json" 2>"$b.search.err"
  st=$?
  wall=$(echo "$(date +%s.%N) - $t0" | bc)
  equiv=-
  if [ "$st" -eq 0 ]; then
    "$axle" equiv "$prog" "$b.mug" --jobs "$jobs" --seed 1 >"$b.equiv.out" 2>&1
    es=$?
    if [ $es -eq 0 ]; then equiv=equivalent; else equiv="not-equivalent(exit-$es)"; fi
  fi
  python3 tools/superopt-families.py --row "$b.search.json" "$st" "$equiv" "$wall" "$i" \
    "$(basename "$b")" "$fam" "$form" "$shapes" "$b.mug" >>"$tsv"
done <"$w/programs.tsv"
printf 'load1\t%s\n' "$(cut -d' ' -f1 /proc/loadavg)" >>"$tsv"
python3 tools/superopt-families.py --table "$tsv" || exit 2
if [ -n "${FAMILIES_RECORD:-}" ]; then cp "$tsv" "$FAMILIES_RECORD" || exit 2; fi
[ "$rejected" -eq 0 ] || exit 3
