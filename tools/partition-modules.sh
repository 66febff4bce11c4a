#!/usr/bin/env bash
# tools/partition-modules.sh [LIMIT_S] [JOBS] [MODULE.hlo...] — every test module
# superoptimized region by region (`axle superopt MODULE --output-dir DIR --time-limit LIMIT_S`,
# docs/superopt.md §13): per region its HLO lines, operators, search order, seconds, naive and
# found modelled time (h100) and verdict, and per module the totals. Reads report.json;
# asserts nothing (the tests never assert timings). Default: tests/hlo/*.hlo, LIMIT_S 10,
# JOBS 2. KEEP=DIR keeps each module's directory under DIR. RECORD=FILE.md also writes the
# table as a section of docs/results-superopt.md (docs/data/partition-modules.md: rendered by
# tools/superopt-results.sh --render).
set -u
cd "$(dirname "$0")/.." || exit 1
limit=${1:-10}
jobs=${2:-2}
shift $(($# > 2 ? 2 : $#))
mods=("$@")
[ ${#mods[@]} -eq 0 ] && mods=(tests/hlo/*.hlo)
axle=${AXLE:-build/axle}
# the recorded figures (docs/data) were modelled for the H100: the same target gives them back
target=h100
out=${KEEP:-$(mktemp -d)}
table=$(mktemp)
trap 'rm -f "$table"; [ -z "${KEEP:-}" ] && rm -rf "$out"' EXIT
{
printf '%-16s %-6s %-22s %4s %5s %9s %10s %10s  %s\n' module region "HLO lines" ops rank search_s naive_us found_us verdict
for m in "${mods[@]}"; do
  n=$(basename "$m" .hlo)
  "$axle" superopt "$m" --target $target --output-dir "$out/$n" --no-gate --progress never --jobs "$jobs" \
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
} | tee "$table"
if [ -n "${RECORD:-}" ]; then
  {
    echo '## Whole modules, region by region (`axle superopt MODULE.hlo --output-dir DIR`)'
    echo
    echo "Produced by \`tools/partition-modules.sh $limit $jobs\` on $(date +%Y-%m-%d) ($(nproc) cores, load"
    echo "average $(cut -d' ' -f1 /proc/loadavg) at the end): every module of tests/hlo, \`--time-limit $limit\` for"
    echo "the whole module, modelled on h100 (us). A region whose checks did not finish within its"
    echo "share gets no graph (its reason says so); a larger limit is the remedy (docs/superopt.md §13)."
    echo
    echo '```'
    cat "$table"
    echo '```'
  } > "$RECORD"
fi
