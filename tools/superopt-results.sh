#!/usr/bin/env bash
# tools/superopt-results.sh [TIME_LIMIT_S] [JOBS] — searches each of the six benchmarks of
# superopt/examples from its program and writes docs/results-superopt.md: time, states,
# candidates, and the modelled cost (axle cost, the default target: H200) of the best graph found, of the
# hand-written graph and of the naive graph (one kernel per operator). The found graphs
# go to docs/superopt-found/NAME.mug with their DOT drawing (NAME.dot, and NAME.svg when
# Graphviz is installed). Run from the repository root after `make build`; GATE=1 searches
# gated by rules/superopt (which must then prove every axiom the pruner uses).
#
# tools/superopt-results.sh --render [OUT.md] — writes the page again from what the last
# run left in docs/superopt-found/ (the searches' JSON, the costs, the graphs, and run.tsv:
# the run's options, date, machine and each benchmark's exit status and wall time), without
# searching; the same files give the same page (tests/e2e/docs_regen.sh checks it). Both
# end the page with the online-softmax figures (docs/data/superopt-online.md, written by
# tools/superopt-online.sh) and the generality benchmark's section when their figures are
# recorded (docs/data/superopt-families.tsv, written by tools/superopt-families.sh: see there),
# and the μGraph fuzzer's long run (docs/data/mugraph-fuzz.json, tools/mugraph-fuzz.sh --stats).
set -u
dir=docs/superopt-found
render=0 out=docs/results-superopt.md
if [ "${1:-}" = --render ]; then render=1; out=${2:-$out}; fi
NAMES="rmsnorm_linear gated_mlp lora gqa qknorm ntrans"
tu() { python3 -c "import json,sys; print('%.2f' % json.load(open(sys.argv[1]))['time_us'])" "$1"; }
if [ $render = 0 ]; then
limit=${1:-60}
jobs=${2:-2}
axle=${AXLE:-build/axle}
mkdir -p "$dir"
gate=(--no-gate)
[ "${GATE:-0}" = 1 ] && gate=(--rules rules/superopt)   # GATE=1: only with every axiom proved
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
load0=$(cut -d' ' -f1 /proc/loadavg)
runs=""
for p in $NAMES; do
  ex=superopt/examples
  "$axle" cost $ex/$p.mug --format json >"$dir/$p.hand.json"
  "$axle" cost $ex/$p.axl --format json >"$dir/$p.naive.json"
  rm -f "$dir/$p.mug" "$dir/$p.dot" "$dir/$p.svg"
  start=$(date +%s.%N)
  "$axle" superopt $ex/$p.axl "${gate[@]}" --no-greedy --jobs "$jobs" --time-limit "$limit" --progress never \
    --format json --output "$dir/$p.mug" >"$dir/$p.search.json" 2>"$dir/$p.search.err"
  status=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  if [ "$status" -eq 0 ]; then
    "$axle" mugraph dot "$dir/$p.mug" >"$dir/$p.dot"
    command -v dot >/dev/null && dot -Tsvg "$dir/$p.dot" -o "$dir/$p.svg"
  fi
  runs+="bench	$p	$status	${wall%??????}"$'\n'
  echo "$p: exit $status ($(tu "$dir/$p.hand.json") us hand-written)" >&2
done
{
  printf 'limit\t%s\njobs\t%s\ngate\t%s\ndate\t%s\nmachine\t%s\nload0\t%s\nload1\t%s\n' \
    "$limit" "$jobs" "${gate[*]}" "$(date -u +%Y-%m-%d)" "$machine" "$load0" "$(cut -d' ' -f1 /proc/loadavg)"
  printf '%s' "$runs"
} >"$dir/run.tsv"
fi

# The page, from the files of the run alone.
[ -s "$dir/run.tsv" ] || { echo "superopt-results: $dir/run.tsv: no recorded run" >&2; exit 2; }
meta() { awk -F '\t' -v k="$1" '$1 == k { print $2 }' "$dir/run.tsv"; }
limit=$(meta limit) jobs=$(meta jobs) gate=$(meta gate) machine=$(meta machine)
rows=""
for p in $NAMES; do
  read -r status wall <<<"$(awk -F '\t' -v p="$p" '$1 == "bench" && $2 == p { print $3, $4 }' "$dir/run.tsv")"
  read -r secs bestat states cands checked best mspc finals late <<<"$(python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
b=d['best_time_us']
print('%.1f' % d['search_seconds'], '-' if b is None else '%.1f' % d['best_found_seconds'], d['states'], d['candidates'], d['checked'], '-' if b is None else '%.2f' % b,
      '%.1f' % d['ms_per_check'] if d['checked'] else '-', '%.1f' % d['final_check_seconds'], d.get('late_final', 0))" "$dir/$p.search.json")"
  hand=$(tu "$dir/$p.hand.json"); naive=$(tu "$dir/$p.naive.json")
  if [ "$status" -eq 0 ]; then
    kernels=$(grep -c '^  kernel ' "$dir/$p.mug")
    verdict=$(python3 -c "print('at least as fast as hand-written' if $best <= $hand else 'slower than hand-written')")
  else
    kernels=-; verdict="no graph better than naive within the limit"
    [ "${late:-0}" -gt 0 ] && verdict="$late faster graphs found, none checked at full shape within the limit"
  fi
  rows+="| $p | $bestat | $secs | $wall | $states | $cands | $checked | $mspc | $finals | $best | $hand | $naive | $kernels | $verdict |"$'\n'
done
{
  echo "# Superoptimizer results (modelled)"
  echo
  echo "Produced by \`tools/superopt-results.sh $limit $jobs\` on $(meta date) — a shared"
  echo "machine ($machine; load average $(meta load0) at the start, $(meta load1) at the end),"
  echo "\`--jobs $jobs\`, \`--time-limit $limit\` per benchmark, \`$gate\`."
  echo "Costs are **modelled** by \`axle cost\` for an H200 SXM, the default target (docs/superopt.md §8), with"
  echo "the generated code's constants calibrated against the kernels measured on a GPU"
  echo "(docs/results-gpu.md, which also holds the measured times). A benchmark whose best graph"
  echo "is not modelled faster than its naive graph (one library kernel per operator) keeps no"
  echo "found graph. *best at s*: when the search found the graph it returned; *search s*: the"
  echo "search (to its limit or exhaustion); *wall s*: the whole run, with the full-shape"
  echo "equivalence check of the returned graph (\`axle equiv\`, δ = 2^-30) — slow for large"
  echo "matmuls (it runs on \`--jobs\` threads)."
  echo
  echo "| benchmark | best at s | search s | wall s | states | candidates | checked | ms/check | final check s | best µs | hand-written µs | naive µs | kernels | |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "*states*: prefixes built (including those pruned); *candidates*: complete graphs"
  echo "reached; *checked*: candidates run through the scaled-down equivalence filter (only"
  echo "those whose modelled cost could enter the top 5 are); *ms/check*: the filter's time per"
  echo "checked candidate (summed over threads); *final check s*: the full-shape check(s) at the"
  echo "end. The returned graph passed \`axle equiv --field-only\` at full shape (δ = 2^-30) before"
  echo "it was written: exact field tests only, never a law of sqrt judged in doubles."
  echo
  echo "## Found graphs"
  for p in $NAMES; do
    echo
    echo "### $p"
    echo
    if [ -s "$dir/$p.mug" ]; then
      echo "\`superopt-found/$p.mug\` (drawing: \`superopt-found/$p.dot\`$( [ -e "$dir/$p.svg" ] && echo ", \`superopt-found/$p.svg\`")):"
      echo
      echo '```'
      cat "$dir/$p.mug"
      echo '```'
    else
      echo "Nothing better than the naive graph within ${limit} s."
    fi
  done
  # the online-softmax figures (tools/superopt-online.sh), kept across regenerations
  if [ -s docs/data/superopt-online.md ]; then
    echo
    cat docs/data/superopt-online.md
  fi
  if [ -s docs/data/superopt-families.tsv ]; then
    echo
    python3 tools/superopt-families.py --render docs/data/superopt-families.tsv
  fi
  # the figures of `axle optimize` (tools/optimize-figures.sh), kept across regenerations
  if [ -s docs/data/optimize-figures.md ]; then
    echo
    cat docs/data/optimize-figures.md
  fi
  # whole HLO modules region by region (RECORD=... tools/partition-modules.sh), kept likewise
  if [ -s docs/data/partition-modules.md ]; then
    echo
    cat docs/data/partition-modules.md
  fi
  # the figures of `axle superopt --seed-from-egraph` (tools/seed-figures.sh), kept likewise
  if [ -s docs/data/seed-figures.md ]; then
    echo
    cat docs/data/seed-figures.md
  fi
  # the μGraph fuzzer's long run (tools/mugraph-fuzz.sh --stats docs/data/mugraph-fuzz.json)
  if [ -s docs/data/mugraph-fuzz.json ]; then
    echo
    python3 tools/mugraph-fuzz.py --render docs/data/mugraph-fuzz.json
  fi
} >"$out"
echo "wrote $out" >&2
