#!/bin/sh
# Runs a libFuzzer target for a bounded time, seeded from every file of the repository with
# extension EXT (default axl: the program parser's; hlo for the HLO front end's).
# Usage: run-fuzz.sh TARGET SECONDS [EXT].  Fails if the fuzzer finds a crash, a leak or a hang.
set -eu
target=$1; seconds=$2; ext=${3:-axl}
corpus=$(mktemp -d); seeds=$(mktemp -d)
trap 'rm -rf "$corpus" "$seeds"' EXIT
# seeds named after their path: tests/hlo/x.hlo and tests/hlo/bad/x.hlo are two seeds
find rules tests -name "*.$ext" 2>/dev/null | while read -r f; do
  cp "$f" "$seeds/$(echo "$f" | tr / _)"
done
n=$(ls "$seeds" | wc -l)
echo "fuzz: $target for ${seconds}s, $n seed files"
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 "$corpus" "$seeds" > fuzz.log 2>&1 || { tail -40 fuzz.log; exit 1; }
grep -E 'stat::number_of_executed_units|Done' fuzz.log | tail -2
