#!/usr/bin/env bash
# tools/superopt-time-limit.sh [LIMIT_S] [JOBS] [PROGRAM.axl...] — how long `axle superopt
# --time-limit LIMIT_S` really runs, and where the time goes: the wall time of the whole
# command beside the greedy floor's build and full-shape check, the search and the final
# full-shape check (the JSON's fields). The time limit bounds the whole run: the greedy
# build, its check, the search and the final check (a check is stopped between field tests
# at the deadline, and its graph is then not used). Prints a table; asserts nothing (the
# tests never assert timings). Default: the benchmarks of superopt/examples and the
# greedy test programs of tests/superopt, LIMIT_S 1, JOBS 2.
set -u
cd "$(dirname "$0")/.." || exit 1
limit=${1:-1}
jobs=${2:-2}
shift $(($# > 2 ? 2 : $#))
progs=("$@")
[ ${#progs[@]} -eq 0 ] && progs=(superopt/examples/*.axl tests/superopt/greedy_*.axl)
axle=${AXLE:-build/axle}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-24s %5s %8s %9s %9s %9s %9s %9s\n' program exit wall_s greedy_s check_s search_s final_s over_s
for p in "${progs[@]}"; do
  n=$(basename "$p" .axl)
  t0=$(date +%s.%N)
  "$axle" superopt "$p" --no-gate --progress never --jobs "$jobs" --time-limit "$limit" \
    --output "$tmp/$n.mug" --format json >"$tmp/$n.json" 2>/dev/null
  st=$?
  t1=$(date +%s.%N)
  python3 - "$tmp/$n.json" "$n" "$st" "$t0" "$t1" "$limit" <<'PY'
import json, sys
path, name, st, t0, t1, limit = sys.argv[1:]
wall = float(t1) - float(t0)
try:
    d = json.load(open(path))
except Exception:
    print(f"{name:24s} {st:>5s} {wall:8.2f}   (no JSON)")
    sys.exit(0)
g = d.get("greedy") or {}
print(f"{name:24s} {st:>5s} {wall:8.2f} {g.get('build_seconds', 0):9.3f} {g.get('check_seconds', 0):9.2f} "
      f"{d['search_seconds']:9.2f} {d['final_check_seconds']:9.2f} {wall - float(limit):9.2f}")
PY
done
