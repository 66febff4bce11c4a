#!/usr/bin/env bash
# speed.sh — how long each rule takes, in the default mode (both solvers).
#
#   tools/speed.sh [--axle PATH] [--jobs N] [--from FILE.json] [FILE|DIR...]
#
# Runs `axle verify --no-cache --jobs N --format json` over the rules (default rules/, N
# the number of cores) — or reads such output from --from — and prints the wall time, the
# load average beside it, p50, p90 and max of the per-result times (one rule at one element
# type), and every result above 1 s with its verdict and who confirmed it. A benchmark:
# it prints figures and passes no judgement (the machine's load changes them; compare
# ratios taken in one run).
set -eu
axle=build/axle jobs=$(nproc 2>/dev/null || echo 2) from=
while [ $# -gt 0 ]; do
  case $1 in
    --axle) axle=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    --*) echo "speed: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 0 ] && set -- rules
command -v jq > /dev/null || { echo "speed: needs jq" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -n "$from" ]; then
  cp "$from" "$tmp/r.json"
  echo "results read from $from"
else
  [ -x "$axle" ] || { echo "speed: $axle is not an executable (build first)" >&2; exit 2; }
  t0=$(date +%s.%N)
  "$axle" verify --no-cache --jobs "$jobs" --format json "$@" > "$tmp/r.json" || [ $? -le 2 ]
  t1=$(date +%s.%N)
  printf 'wall %.1f s with --jobs %s on %s cores; load average after: %s\n' \
    "$(echo "$t1 - $t0" | bc)" "$jobs" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
fi
jq -s -r '
  map(select(.rule != null)) | sort_by(.time_ms) as $r | ($r | length) as $n |
  def pct(p): $r[(((p * $n) | ceil) - 1) | if . < 0 then 0 else . end].time_ms;
  "\($n) results: p50 \(pct(0.5)) ms, p90 \(pct(0.9)) ms, max \($r[-1].time_ms) ms (\($r[-1].rule) [\($r[-1].type)]); \([$r[] | select(.time_ms > 1000)] | length) above 1 s",
  ($r | reverse | .[] | select(.time_ms > 1000) |
   "  \(.time_ms) ms  \(.rule) [\(.type)]  \(.file):\(.line)  \(.verdict)  \((.confirmed_by // []) | join("+"))")
' "$tmp/r.json"
