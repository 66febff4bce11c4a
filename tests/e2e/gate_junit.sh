#!/usr/bin/env bash
# `axle gate` end to end (docs/cli.md, "axle gate"): one summary line and exit 0 when every
# rule meets its expectation; the failing rules and exit 1 or 2 otherwise; JUnit XML that
# parses back with one testcase per rule and type and the counterexample in each failure;
# JSON as `axle verify` prints it; output order independent of --jobs; a progress line.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
xpath() { xmllint --xpath "$2" "$1" 2>/dev/null; }
good="rules/examples/pad_low_combine.axl rules/examples/slice_dyup_slice.axl
  rules/examples/transpose_sum.axl rules/examples-mutants/transpose_sum.axl"

"$AXLE" gate $good > "$tmp/pass.txt" 2> "$tmp/pass.err"; st=$?
check "passing corpus: exit 0" [ "$st" = 0 ]
check "passing corpus: one line" [ "$(wc -l < "$tmp/pass.txt")" = 1 ]
check "passing corpus: the summary" \
  grep -qx 'axle gate: PASS: 10 results: 4 verified, 6 invalid, 0 unknown; 10 of 10 as expected; [0-9.]* s' "$tmp/pass.txt"
check "passing corpus: nothing on stderr" [ ! -s "$tmp/pass.err" ]

# a wrong rule claiming validity, and a rule the verifier cannot decide
sed 's/ expect invalid//' rules/examples-mutants/transpose_sum.axl > "$tmp/wrong.axl"
"$AXLE" gate --no-cache rules/examples/pad_low_combine.axl "$tmp/wrong.axl" > "$tmp/fail.txt"; st=$?
check "wrong rule: exit 1" [ "$st" = 1 ]
check "wrong rule: its counterexample shown" has "$tmp/fail.txt" "counterexample (replayed)"
check "wrong rule: passing rules not shown" sh -c "! grep -q 'pad_low_combine \[' $tmp/fail.txt"
check "wrong rule: FAIL summary last" \
  sh -c "tail -1 $tmp/fail.txt | grep -q '^axle gate: FAIL: 6 results: 2 verified, 4 invalid, 0 unknown; 2 of 6 as expected'"
"$AXLE" gate tests/verify/unsupported.axl > "$tmp/unknown.txt"; st=$?
check "undecided rule: exit 2" [ "$st" = 2 ]
check "undecided rule: reason shown" has "$tmp/unknown.txt" "reason: unsupported"

# JUnit XML, parsed back
"$AXLE" gate --format junit --output "$tmp/report.xml" $good "$tmp/wrong.axl" \
  tests/verify/unsupported.axl > "$tmp/junit.txt"; st=$?
check "junit: exit 1" [ "$st" = 1 ]
check "junit: summary on stdout" grep -q '^axle gate: FAIL: 16 results' "$tmp/junit.txt"
check "junit: well-formed XML" xmllint --noout "$tmp/report.xml"
check "junit: 16 testcases" [ "$(xpath "$tmp/report.xml" 'count(//testcase)')" = 16 ]
check "junit: tests=16" [ "$(xpath "$tmp/report.xml" 'string(/testsuites/@tests)')" = 16 ]
check "junit: failures=4 (the wrong rule at two types, twice)" \
  [ "$(xpath "$tmp/report.xml" 'string(/testsuites/@failures)')" = 4 ]
check "junit: errors=2 (the undecided rule)" [ "$(xpath "$tmp/report.xml" 'string(/testsuites/@errors)')" = 2 ]
check "junit: one testsuite per file" [ "$(xpath "$tmp/report.xml" 'count(//testsuite)')" = 6 ]
check "junit: failure carries the counterexample" \
  sh -c "xmllint --xpath 'string(//testcase[@name=\"transpose_of_double [int]\" and contains(@file,\"wrong.axl\")]/failure)' $tmp/report.xml | grep -q 'counterexample (replayed)'"
check "junit: failure message" \
  [ "$(xpath "$tmp/report.xml" 'string(//testcase[@name="transpose_of_double [real]" and contains(@file,"wrong.axl")]/failure/@message)')" = "INVALID, expected valid" ]
check "junit: error carries the reason" \
  sh -c "xmllint --xpath 'string(//testcase[@name=\"max_of_sum [int]\"]/error/@message)' $tmp/report.xml | grep -q '^UNKNOWN, expected valid: unsupported'"
check "junit: passing case has no failure" \
  [ "$(xpath "$tmp/report.xml" 'count(//testcase[@name="pad_low_combine [int]"]/*[self::failure or self::error])')" = 0 ]
"$AXLE" verify --format junit rules/examples/transpose_sum.axl > "$tmp/stdout.xml"; st=$?
check "verify --format junit to stdout: exit 0, well-formed" \
  sh -c "[ $st = 0 ] && xmllint --noout $tmp/stdout.xml"

# --format json: what verify prints
"$AXLE" gate --format json $good > "$tmp/gate.json"; st=$?
"$AXLE" verify --format json $good > "$tmp/verify.json"
check "json: exit 0" [ "$st" = 0 ]
check "json: same lines as verify (time aside)" \
  cmp -s <(jq -c 'del(.time_ms)' "$tmp/gate.json") <(jq -c 'del(.time_ms)' "$tmp/verify.json")

# order independent of --jobs (and of the cache)
"$AXLE" verify --no-cache --jobs 1 --format json $good > "$tmp/j1.json"
"$AXLE" verify --no-cache --jobs 2 --format json $good > "$tmp/j2.json"
check "--jobs 2: same output as --jobs 1" \
  cmp -s <(jq -c 'del(.time_ms)' "$tmp/j1.json") <(jq -c 'del(.time_ms)' "$tmp/j2.json")

# progress: a live line on stderr when asked (auto: when stderr is a terminal)
"$AXLE" gate --no-cache --progress always $good > /dev/null 2> "$tmp/progress.err"
check "progress: counts to the end" \
  grep -q $'\[10/10\] 4 verified, 6 invalid, 0 unknown  [0-9.]* s' "$tmp/progress.err"
check "progress: cleared at the end" [ "$(tail -c 4 "$tmp/progress.err" | od -An -c | tr -d ' ')" = '\r033[K' ]
"$AXLE" gate --no-cache $good > /dev/null 2> "$tmp/quiet.err"
check "progress: none when stderr is no terminal" [ ! -s "$tmp/quiet.err" ]

# usage errors: exit 3
"$AXLE" gate --output "$tmp/x" rules/examples > /dev/null 2> "$tmp/usage.err"; st=$?
check "usage: --output needs json or junit" sh -c "[ $st = 3 ] && grep -q 'needs --format json or junit' $tmp/usage.err"
"$AXLE" gate --jobs 0 rules/examples > /dev/null 2>&1; st=$?
check "usage: --jobs 0" [ "$st" = 3 ]
"$AXLE" gate --solver z3 --solver-binary /bin/true rules/examples > /dev/null 2>&1; st=$?
check "usage: --solver-binary without a binary solver" [ "$st" = 3 ]

echo "gate junit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
