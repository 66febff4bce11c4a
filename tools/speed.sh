#!/usr/bin/env bash
# speed.sh — how long each rule takes, in the default mode (both solvers).
#
#   tools/speed.sh [--axle PATH] [--base PATH] [--jobs N] [--from FILE.json] [FILE|DIR...]
#
# Runs `axle verify --no-cache --jobs N --format json` over the rules (default rules/, N
# the number of cores) — or reads such output from --from — and prints the wall time, the
# load average beside it, p50, p90 and max of the per-result times (one rule at one element
# type), and every result above 1 s with its verdict and who confirmed it. With --base
# PATH, another axle (say main's) runs the same rules right before, and the figures of the
# two come with their ratios (new / base), every result whose verdict differs and every one
# whose confirming solvers differ: on a shared machine only such back-to-back ratios mean
# much. A benchmark: it prints figures and passes no judgement (the machine's load changes
# them).
set -eu
axle=build/axle base= jobs=$(nproc 2>/dev/null || echo 2) from=
while [ $# -gt 0 ]; do
  case $1 in
    --axle) axle=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    --*) echo "speed: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 0 ] && set -- rules
command -v jq > /dev/null || { echo "speed: needs jq" >&2; exit 2; }
[ -n "$from" ] && [ -n "$base" ] && { echo "speed: --from and --base exclude each other" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# run NAME AXLE: verifies the rules into $tmp/NAME.json; prints wall, CPU and the load
run() {
  [ -x "$2" ] || { echo "speed: $2 is not an executable (build first)" >&2; exit 2; }
  local t0 t1 c0 c1
  t0=$(date +%s.%N)
  c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  "$2" verify --no-cache --jobs "$jobs" --format json "${@:3}" > "$tmp/$1.json" || [ $? -le 2 ]
  t1=$(date +%s.%N)
  c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  printf '%s: wall %.1f s, CPU %.1f s (all processes) with --jobs %s on %s cores; load average after: %s\n' \
    "$1" "$(echo "$t1 - $t0" | bc)" "$(echo "($c1 - $c0) / $(getconf CLK_TCK)" | bc -l)" "$jobs" \
    "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# summary FILE: p50, p90, max and the results above 1 s
summary() {
  jq -s -r '
    map(select(.rule != null)) | sort_by(.time_ms) as $r | ($r | length) as $n |
    def pct(p): $r[(((p * $n) | ceil) - 1) | if . < 0 then 0 else . end].time_ms;
    "\($n) results: p50 \(pct(0.5)) ms, p90 \(pct(0.9)) ms, max \($r[-1].time_ms) ms (\($r[-1].rule) [\($r[-1].type)]); \([$r[] | select(.time_ms > 1000)] | length) above 1 s",
    ($r | reverse | .[] | select(.time_ms > 1000) |
     "  \(.time_ms) ms  \(.rule) [\(.type)]  \(.file):\(.line)  \(.verdict)  \((.confirmed_by // []) | join("+"))")
  ' "$1"
}

if [ -n "$from" ]; then
  cp "$from" "$tmp/new.json"
  echo "results read from $from"
elif [ -n "$base" ]; then
  run base "$base" "$@"
  run new "$axle" "$@"
else
  run new "$axle" "$@"
fi
if [ -z "$base" ]; then
  summary "$tmp/new.json"
  exit 0
fi
echo "== base ($base)"
summary "$tmp/base.json" | head -1
echo "== new ($axle)"
summary "$tmp/new.json"
echo "== new / base"
jq -n -r --slurpfile b "$tmp/base.json" --slurpfile n "$tmp/new.json" '
  def stats($r): ($r | map(select(.rule != null)) | sort_by(.time_ms)) as $s | ($s | length) as $k |
    def pct(p): $s[(((p * $k) | ceil) - 1) | if . < 0 then 0 else . end].time_ms;
    {p50: pct(0.5), p90: pct(0.9), max: $s[-1].time_ms, sum: ($s | map(.time_ms) | add),
     over: ($s | map(select(.time_ms > 1000)) | length)};
  stats($b) as $x | stats($n) as $y |
  "p50 \($y.p50 / $x.p50 * 100 | round) %, p90 \($y.p90 / $x.p90 * 100 | round) %, max \($y.max / $x.max * 100 | round) %, sum of result times \($y.sum / $x.sum * 100 | round) %; above 1 s: \($x.over) -> \($y.over)",
  (($b | map({key: "\(.file):\(.rule) [\(.type)]", value: .verdict}) | from_entries) as $bv |
   $n[] | select($bv["\(.file):\(.rule) [\(.type)]"] != .verdict) |
   "  verdict differs: \(.file):\(.rule) [\(.type)]: \($bv["\(.file):\(.rule) [\(.type)]"]) -> \(.verdict)"),
  (($b | map({key: "\(.file):\(.rule) [\(.type)]", value: ((.confirmed_by // []) | join("+"))}) | from_entries) as $bc |
   [$n[] | select(.rule != null) | ((.confirmed_by // []) | join("+")) as $c |
    select($bc["\(.file):\(.rule) [\(.type)]"] != null and $bc["\(.file):\(.rule) [\(.type)]"] != $c) |
    "  confirmed by differs: \(.file):\(.rule) [\(.type)]: \($bc["\(.file):\(.rule) [\(.type)]"]) -> \($c)"] |
   if length == 0 then "  confirmed by: the same for every result" else .[] end)'
