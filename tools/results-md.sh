#!/usr/bin/env bash
# Writes docs/results.md and docs/results-cdf.svg whole from the recorded runs in docs/data/:
#
#   tools/results-md.sh [OUT_DIR]        (default docs; run from anywhere)
#
#   verify.jsonl      `axle verify --no-cache --jobs 1 --format json rules/`
#   ieee.jsonl        `axle verify --no-cache --numbers ieee ... --format json rules/xla`
#   runs.tsv          KEY<TAB>VALUE: wall (the first run's wall-clock seconds), ieee_wall (the
#                     second's), run (one line: the command, date and machine of the first)
#   verdict-fuzz.json the --stats figures of a long tools/verdict-fuzz.sh run
#
# Regenerating from the same data gives the same page (tests/e2e/docs_regen.sh checks the
# committed one). To refresh the figures, record the runs again (README.md, "Where the corpus
# stands") and run this. Needs what tools/timing-report.sh needs (jq, gnuplot).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs}
data=$root/docs/data
val() { awk -F '\t' -v k="$1" '$1 == k { print $2 }' "$data/runs.tsv"; }
mkdir -p "$out"
cd "$root"   # the rule tag readers look at rules/ of this checkout
tools/timing-report.sh --wall "$(val wall)" --ieee "$data/ieee.jsonl" --ieee-wall "$(val ieee_wall)" \
  --run "$(val run)" --fuzz "$data/verdict-fuzz.json" \
  "$data/verify.jsonl" "$out/results.md" "$out/results-cdf.svg"
