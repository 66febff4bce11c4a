#!/usr/bin/env bash
# The timing report and the benchmark (tools/timing-report.sh, tools/bench.sh): a results
# page with one row per rule and type and TensorRight's figures, a CDF plot, and the cache
# ratio and --jobs speedup on the examples.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"

"$AXLE" verify --format json rules/examples/pad_low_combine.axl rules/examples/slice_dyup_slice.axl \
  tests/verify/unsupported.axl > "$tmp/r.json"
if command -v gnuplot > /dev/null && command -v jq > /dev/null; then
  tools/timing-report.sh "$tmp/r.json" "$tmp/page/results.md" > "$tmp/out.txt"; st=$?
  check "report: exit 0" [ "$st" = 0 ]
  check "report: figures on stdout" \
    grep -qE '^6 results \(3 rules\): [0-9]+ under 1 s \([0-9]+\.[0-9]%\), max [0-9.]+ ms \([a-z_]+ \[[a-z]+\]\), mean [0-9.]+ ms' "$tmp/out.txt"
  check "report: figures on the page" has "$tmp/page/results.md" '^\*\*6 results (3 rules): '
  check "report: verdict counts" has "$tmp/page/results.md" "2 verified (0 of them by one solver alone), 2 invalid, 2 unknown, 0 trivial; 4 of 6 as expected"
  check "report: a row per result" [ "$(grep -c '^| [a-z_]* | `' "$tmp/page/results.md")" = 6 ]
  check "report: row with bounds and counts" \
    has "$tmp/page/results.md" '^| pad_low_combine | `pad_low_combine` (rules/examples/pad_low_combine.axl:3) | int | verified | valid | x=2 | 2 | [0-9]* | [0-9.]* | z3+cvc5 |$'
  check "report: unmet marked" has "$tmp/page/results.md" '| unknown \*\*not met\*\* |'
  check "report: what is not as expected, with its reason" \
    [ "$(grep -c '^\* `[a-z_]*` \[[a-z]*\]: [a-z-]* (expected [a-z-]*) -- .' "$tmp/page/results.md")" = 2 ]
  check "report: SVG plot" grep -q '<svg' "$tmp/page/results-cdf.svg"
  check "report: plot linked" has "$tmp/page/results.md" '](results-cdf.svg)'
  tools/timing-report.sh "$tmp/r.json" "$tmp/p2.md" "$tmp/p2.png" > /dev/null
  check "report: PNG plot" sh -c "head -c 4 $tmp/p2.png | grep -q PNG"
  : > "$tmp/empty.json"
  tools/timing-report.sh "$tmp/empty.json" "$tmp/p3.md" > /dev/null 2>&1; st=$?
  check "report: no results is an error" [ "$st" = 2 ]
else
  echo "SKIP: timing report (jq or gnuplot missing; make deps installs them)"
fi

tools/bench.sh "$AXLE" rules/examples/pad_low_combine.axl rules/examples/transpose_sum.axl \
  rules/examples-mutants/transpose_sum.axl > "$tmp/bench.txt"; st=$?
check "bench: exit 0" [ "$st" = 0 ]
check "bench: every result from the cache" has "$tmp/bench.txt" "(8 of 8 from the cache; same verdicts: yes)"
check "bench: prints the ratio" grep -qE '^cache: the second run takes [0-9.]+ of the first' "$tmp/bench.txt"
check "bench: prints the speedup" grep -qE '^jobs: --jobs [0-9]+ is [0-9.]+x as fast as --jobs 1' "$tmp/bench.txt"
cat "$tmp/bench.txt"

echo "gate report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
