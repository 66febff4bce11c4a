#!/bin/sh
# mugraph-fuzz.sh [SECONDS [SEED]] [OPTIONS...] — the μGraph fuzzer (tools/mugraph-fuzz.py):
# random programs, the graphs `axle superopt` writes for them (the greedy floor, the floor
# before its check, the search) and mutants of those graphs, each judged by `axle equiv` and
# by a brute-force evaluator of its own, for SECONDS (default 60) from SEED (default 1), on
# every core. The axle binary is $AXLE when set, else build/axle (and axle-test beside it).
# Findings (minimised pairs) go to mugraph-fuzz-findings/; OPTIONS go to the driver (--jobs N,
# --out DIR, --stats FILE, ...; mugraph-fuzz.py --help). Exit 0 only with zero discrepancies.
#   tools/mugraph-fuzz.sh 60           # what CI runs (.ci/run)
#   nice tools/mugraph-fuzz.sh 1800 7  # a long run
set -eu
cd "$(dirname "$0")/.."
seconds=60
seed=1
case "${1:-}" in [0-9]*) seconds=$1; shift ;; esac
case "${1:-}" in [0-9]*) seed=$1; shift ;; esac
command -v python3 >/dev/null || { echo "mugraph-fuzz: python3 is needed" >&2; exit 3; }
exec python3 tools/mugraph-fuzz.py --seconds "$seconds" --seed "$seed" --axle "${AXLE:-build/axle}" "$@"
