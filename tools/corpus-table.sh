#!/usr/bin/env bash
# Where the corpus stands, one row per folder of rules/, for README.md.
#
#   tools/corpus-table.sh [RESULTS.json]      (default docs/data/verify.jsonl)
#
# RESULTS.json is `axle verify --format json rules/` output. Prints a markdown table: per
# folder the rules, the results (rule × element type) and how many are VERIFIED (TRIVIAL
# counted apart), INVALID (INVALID-HINT included), UNKNOWN or ERROR, and as expected; then
# the totals. README.md holds this table between `<!-- corpus-table: begin -->` and
# `<!-- corpus-table: end -->`; tests/e2e/docs_regen.sh checks it is this script's output.
# Exit 2 on unreadable results. Needs jq.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
in=${1:-$root/docs/data/verify.jsonl}
command -v jq > /dev/null || { echo "corpus-table: jq not found (apt-get install jq)" >&2; exit 2; }
[ -s "$in" ] && jq -e . "$in" > /dev/null 2>&1 ||
  { echo "corpus-table: $in: not JSON lines from axle verify --format json" >&2; exit 2; }
jq -r -s '
  def row($name; $r):
    "| \($name) | \([$r[] | .file + ":" + .rule] | unique | length) | \($r | length) | " +
    "\([$r[] | select(.verdict == "verified" and (.trivial | not))] | length) | " +
    "\([$r[] | select(.trivial == true)] | length) | " +
    "\([$r[] | select(.verdict == "invalid" or .verdict == "invalid-hint")] | length) | " +
    "\([$r[] | select(.verdict == "unknown" or .verdict == "error")] | length) | " +
    "\([$r[] | select(.met)] | length) of \($r | length) |";
  "| folder | rules | results | VERIFIED | TRIVIAL | INVALID | UNKNOWN or ERROR | as expected |",
  "|---|---:|---:|---:|---:|---:|---:|---|",
  (group_by(.file | sub("/[^/]*$"; ""))[] | row("`" + (.[0].file | sub("/[^/]*$"; "")) + "`"; .)),
  row("**all**"; .)
' "$in"
