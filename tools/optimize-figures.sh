#!/usr/bin/env bash
# optimize-figures.sh — the figures of `axle optimize` (docs/results-superopt.md, "E-graph
# sizes and extraction times"): for every example program (superopt/examples/*.axl), every
# program written for a rule family (tests/superopt/optimize/*.axl) and every
# HLO test module (tests/hlo/*.hlo), with the default rule set, the e-graph's size before and
# after saturation (e-nodes, classes, programs represented), its iterations and stop reason,
# the time to saturate, the time to extract greedily and by ILP, and the modelled cost (h100)
# before and after each extraction. One markdown table on standard output.
#
#   tools/optimize-figures.sh [BUILD_DIR]      (default: build; or AXLE=path/to/axle)
#
# Each file is optimized once with --extract ilp, whose report also gives greedy's extraction
# time and the cost of greedy's term as a DAG (`greedy_dag_cost_us`, each chosen e-node once:
# what the program greedy would write costs) beside the ILP's (`ilp_dag_cost_us`), and the
# modelled cost of the ILP's program as lowered. --dry-run: the equivalence check, which at
# the 4096-wide shapes takes minutes per program, is left out (nothing is written; every
# output `axle optimize` writes is checked, tests/e2e/superopt_optimize.sh). The first run
# proves the default rules into the verify cache ($XDG_CACHE_HOME/axle) unless it is warm.
# Needs jq.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
axle="${AXLE:-$root/${1:-build}/axle}"   # AXLE: a copy, to keep the verify cache warm (its key hashes the binary)
[ -x "$axle" ] || { echo "optimize-figures: no $axle (build first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "optimize-figures: needs jq" >&2; exit 2; }
# the recorded figures (docs/data) were modelled for the H100: the same target gives them back
target=h100
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 2

num() { jq -r "if .$2 == null then \"-\" else .$2 end" "$1"; }
fmt() { jq -r "if .$2 == null then \"-\" elif (.$2 | type) == \"number\" then (.$2 * 1000 | round / 1000 | tostring) else .$2 end" "$1"; }

echo "| program | e-nodes in | e-nodes | classes | programs | iterations | stop | saturate s | greedy s | ilp s (status) | cost before µs | greedy (DAG) µs | ilp (DAG) µs | written µs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in superopt/examples/*.axl tests/superopt/optimize/*.axl tests/hlo/*.hlo; do
  name=${f##*/}
  "$axle" optimize "$f" --target $target --dry-run --extract ilp --format json >"$tmp/j" 2>"$tmp/e"
  j="$tmp/j"
  if ! jq -e . "$j" >/dev/null 2>&1; then
    echo "| $name | not optimized: $(grep -m1 error "$tmp/e") |||||||||||||"
    continue
  fi
  echo "| $name | $(num "$j" nodes_in) | $(num "$j" nodes) | $(num "$j" classes) | $(num "$j" programs) |" \
       "$(num "$j" iterations) | $(num "$j" stop) | $(fmt "$j" saturate_s) | $(fmt "$j" greedy_extract_s) |" \
       "$(fmt "$j" ilp_extract_s) ($(num "$j" ilp_status)) | $(fmt "$j" cost_before_us) |" \
       "$(fmt "$j" greedy_dag_cost_us) | $(fmt "$j" ilp_dag_cost_us) | $(fmt "$j" cost_after_us) |"
done
