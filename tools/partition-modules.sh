#!/usr/bin/env bash
# tools/partition-modules.sh [LIMIT_S] [JOBS] [MODULE.hlo...] — every test module
# superoptimized region by region (`axle superopt MODULE --output-dir DIR --time-limit LIMIT_S`,
# docs/superopt.md §13): per region its HLO lines, operators, search order, seconds, naive and
# found modelled time (h100) and verdict, and per module the totals. Reads report.json;
# asserts nothing (the tests never assert timings). Default: tests/hlo/*.hlo, LIMIT_S 10,
# JOBS 2. KEEP=DIR keeps each module's directory under DIR.
set -u
cd "$(dirname "$0")/.." || exit 1
limit=${1:-10}
jobs=${2:-2}
shift $(($# > 2 ? 2 : $#))
mods=("$@")
[ ${#mods[@]} -eq 0 ] && mods=(tests/hlo/*.hlo)
axle=${AXLE:-build/axle}
out=${KEEP:-$(mktemp -d)}
[ -z "${KEEP:-}" ] && trap 'rm -rf "$out"' EXIT
printf '%-16s %-6s %-22s %4s %5s %9s %10s %10s  %s\n' module region "HLO lines" ops rank search_s naive_us found_us verdict
for m in "${mods[@]}"; do
  n=$(basename "$m" .hlo)
  "$axle" superopt "$m" --output-dir "$out/$n" --no-gate --progress never --jobs "$jobs" \
    --time-limit "$limit" > /dev/null 2>&1
  st=$?
  if [ ! -s "$out/$n/report.json" ]; then
    printf '%-16s exit %d, no report\n' "$n" "$st"
    continue
  fi
  jq -r --arg n "$n" '.regions[] | [$n, .name, .lines, .operators, .rank, (.seconds * 10 | round / 10),
      (.naive_time_us * 100 | round / 100), (if .found_time_us then (.found_time_us * 100 | round / 100) else "-" end),
      (if .verdict == "equivalent" then "equivalent" else "none: " + .reason end)] | @tsv' \
    "$out/$n/report.json" | while IFS=$'\t' read -r a b c d e f g h i; do
      printf '%-16s %-6s %-22s %4s %5s %9s %10s %10s  %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i"
    done
  jq -r --arg n "$n" '"\($n): exit \(.status), \(.regions | length) regions, \(.left_operators) cut points, \(.dead_operators) dead, \(.cuts) import cuts; naive \(.naive_time_us * 100 | round / 100) us, found \(if .found_time_us then (.found_time_us * 100 | round / 100) else "-" end) us, \(.seconds * 10 | round / 10) s"' \
    "$out/$n/report.json"
done
