#!/bin/sh
# verdict-fuzz.sh [SECONDS [SEED]] [OPTIONS...] — the verdict fuzzer (tools/verdict-fuzz.py):
# random and mutated rules, `axle verify` against `axle brute`, for SECONDS (default 60)
# from SEED (default 1), on every core. The axle binary is $AXLE when set, else build/axle.
# Findings (minimized rules) go to fuzz-findings/; OPTIONS go to the driver (--jobs N,
# --out DIR, --stats FILE, ...; verdict-fuzz.py --help). Exit 0 only with zero
# discrepancies.
#   tools/verdict-fuzz.sh 60           # what CI runs (.ci/run)
#   tools/verdict-fuzz.sh 3600 42      # a long run
set -eu
cd "$(dirname "$0")/.."
seconds=60
seed=1
case "${1:-}" in [0-9]*) seconds=$1; shift ;; esac
case "${1:-}" in [0-9]*) seed=$1; shift ;; esac
command -v python3 >/dev/null || { echo "verdict-fuzz: python3 is needed" >&2; exit 3; }
exec python3 tools/verdict-fuzz.py --seconds "$seconds" --seed "$seed" --axle "${AXLE:-build/axle}" "$@"
