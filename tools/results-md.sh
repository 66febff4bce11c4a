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
#   mpi-scaling.tsv   ranks<TAB>wall seconds of verify --mpi runs (the run described on
#                     its first line), for the section tools/mpi-makespan.py models
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
# verify --mpi: the measured wall times (mpi-scaling.tsv: ranks, seconds, the run on its
# first line) and the makespan model fed with verify.jsonl's times (tools/mpi-makespan.py)
if [[ -f $data/mpi-scaling.tsv ]]; then
  {
    echo
    echo "## verify --mpi: measured here, modelled beyond"
    echo
    echo "Wall time on this machine, $(head -1 "$data/mpi-scaling.tsv" | cut -f3). With --mpi"
    echo "rank 0 coordinates and verifies nothing, so P ranks are P - 1 workers; on two busy cores"
    echo "more ranks cannot buy time, and these figures show what --mpi costs, not how it scales."
    echo
    python3 tools/mpi-makespan.py --wall "$(val wall)" --measured "$data/mpi-scaling.tsv" "$data/verify.jsonl"
    echo
    echo "The model (tools/mpi-makespan.py) replays run/mpi.c's coordinator on the times of the"
    echo "whole corpus run above: P - 1 worker ranks, tasks handed out one at a time in one order,"
    echo "rank 0 serving one request at a time at C ms a task. C is assumed, not taken from a run:"
    echo "0.1 ms is a message on one node and a report line, 1 ms adds a result-cache file write."
    echo "Ideal: max(sum / (P - 1), longest task). Longest first needs the times in advance; the"
    echo "coordinator orders by run/plan.c's size estimate, between that and the order as listed."
  } >> "$out/results.md"
fi
