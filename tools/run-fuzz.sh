#!/bin/sh
# Runs a libFuzzer target for a bounded time, seeded from every .axl file of the repository.
# Usage: run-fuzz.sh TARGET SECONDS.  Fails if the fuzzer finds a crash, a leak or a hang.
set -eu
target=$1; seconds=$2
corpus=$(mktemp -d); seeds=$(mktemp -d)
trap 'rm -rf "$corpus" "$seeds"' EXIT
find rules tests -name '*.axl' -exec cp {} "$seeds" \; 2>/dev/null || true
n=$(ls "$seeds" | wc -l)
echo "fuzz: $target for ${seconds}s, $n seed files"
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 "$corpus" "$seeds" > fuzz.log 2>&1 || { tail -40 fuzz.log; exit 1; }
grep -E 'stat::number_of_executed_units|Done' fuzz.log | tail -2
