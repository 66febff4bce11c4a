#!/usr/bin/env bash
# The results pages are generated whole: docs/results.md (tools/results-md.sh, from the
# recorded runs in docs/data/), docs/results-superopt.md (tools/superopt-results.sh --render,
# from docs/superopt-found/) and docs/results-gpu.md (tools/gpu-results.py, from
# docs/gpu-run/ and the cost model of this axle) are each written again into a scratch
# directory and must equal the committed page byte for byte — a hand edit, or a generator
# changed without its page, fails here; so does README.md's corpus table when it is not
# tools/corpus-table.sh's output. And the check can fail: other data give another page.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash

if command -v jq > /dev/null && command -v gnuplot > /dev/null; then
  check "results.md: regenerated" bash -c 'tools/results-md.sh "$0/docs" > "$0/rep.txt" 2>&1' "$tmp"
  check "results.md: the committed page" diff -u docs/results.md "$tmp/docs/results.md"
  # the same generator on other data: one more discrepancy in the fuzzer's figures
  mkdir -p "$tmp/other"
  cp -r docs/data "$tmp/other/data"
  jq '.discrepancies += 1' docs/data/verdict-fuzz.json > "$tmp/other/fuzz.json"
  tools/timing-report.sh --fuzz "$tmp/other/fuzz.json" docs/data/verify.jsonl "$tmp/other/r.md" \
    "$tmp/other/r.svg" > /dev/null 2>&1
  # (the paragraph is folded: join its lines before looking)
  check "results.md: other data, another page" \
    bash -c 'tr "\n" " " < "$0" | grep -q "\*\*1 discrepancies\.\*\*"' "$tmp/other/r.md"
  check "results.md: no prose carried from an older page" \
    bash -c '! grep -q "^## Shortcuts\|Measured on" "$0"' "$tmp/docs/results.md"
fi
if command -v jq > /dev/null; then
  check "README.md: the corpus table is tools/corpus-table.sh's" \
    diff -u <(tools/corpus-table.sh) \
      <(sed -n '/^<!-- corpus-table: begin -->$/,/^<!-- corpus-table: end -->$/p' README.md | sed '1d;$d')
fi
if ! command -v jq > /dev/null || ! command -v gnuplot > /dev/null; then
  echo "docs_regen: jq or gnuplot missing, results.md not checked (make deps installs them)"
fi

check "results-superopt.md: regenerated" \
  bash -c 'tools/superopt-results.sh --render "$0/rs.md" 2> "$0/rs.err"' "$tmp"
check "results-superopt.md: the committed page" diff -u docs/results-superopt.md "$tmp/rs.md"

check "results-gpu.md: regenerated" \
  bash -c 'python3 tools/gpu-results.py --out "$0/rg.md" 2> "$0/rg.err"' "$tmp"
check "results-gpu.md: the committed page" diff -u docs/results-gpu.md "$tmp/rg.md"

echo "docs_regen: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
