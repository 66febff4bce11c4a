#!/usr/bin/env bash
# `axle verify --shard K/N` and `axle gate --merge` end to end (docs/cli.md, "Sharding"):
# shards 1..N of a run hold every result exactly once and merge back into the single run's
# results (same verdict per rule and type, same JSON and JUnit but for times), whatever the
# cache holds; a shard with a failing rule makes the merge exit as the run would (1 for a
# contradicted expectation, 2 for an undecided rule); bad --shard values and unreadable,
# malformed or incomplete merge inputs are usage errors (exit 3) with a message.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
run="--solver z3 rules/examples rules/examples-mutants"
key='del(.time_ms, .cached, .shard)'   # what may differ between runs: timings and the cache

"$AXLE" verify --format json $run > "$tmp/all.json"; st=$?
check "single run: exit 0" [ "$st" = 0 ]
total=$(jq -s length "$tmp/all.json")
check "single run: results" [ "$total" -gt 8 ]

# four shards, each run twice: once from an empty cache, once after the single run filled it
for k in 1 2 3 4; do
  "$AXLE" verify --format json --shard $k/4 $run > "$tmp/s$k.json"; st=$?
  check "shard $k/4: exit 0" [ "$st" = 0 ]
  check "shard $k/4: some results" [ -s "$tmp/s$k.json" ]
  check "shard $k/4: its place in the JSON" \
    jqt -s "all(.[]; .shard.index == $k and .shard.of == 4 and .shard.tasks == $total)" "$tmp/s$k.json"
  XDG_CACHE_HOME="$tmp/other-cache" "$AXLE" verify --format json --no-cache --shard $k/4 $run \
    > "$tmp/n$k.json"
  check "shard $k/4: the same results without the cache" \
    diff <(jq -c "$key" "$tmp/s$k.json") <(jq -c "$key" "$tmp/n$k.json")
done
check "shards: every result exactly once" \
  jqt -s "[.[].shard.task] | sort == [range($total)]" "$tmp"/s[1-4].json
check "shards: the union is the single run (verdict per rule and type)" \
  diff <(jq -c "$key" "$tmp/all.json" | sort) <(cat "$tmp"/s[1-4].json | jq -c "$key" | sort)

# the merge: in any order of the reports, the single run's report
"$AXLE" gate --merge --format json "$tmp/s3.json" "$tmp/s1.json" "$tmp/s4.json" "$tmp/s2.json" \
  > "$tmp/merged.json"; st=$?
check "merge json: exit 0" [ "$st" = 0 ]
check "merge json: the single run's lines, in its order" \
  diff <(jq -c "$key" "$tmp/all.json") <(jq -c "$key" "$tmp/merged.json")
check "merge json: no shard object left" jqt -s 'all(.[]; has("shard") | not)' "$tmp/merged.json"
"$AXLE" gate --merge "$tmp"/s[1-4].json > "$tmp/merged.txt"; st=$?
check "merge text: exit 0" [ "$st" = 0 ]
check "merge text: one PASS line" \
  grep -qx "axle gate: PASS: $total results: .*; $total of $total as expected.*; merged from 4 reports" "$tmp/merged.txt"
check "merge text: nothing else" [ "$(wc -l < "$tmp/merged.txt")" = 1 ]
"$AXLE" gate --format junit --output "$tmp/all.xml" $run > /dev/null
"$AXLE" gate --merge --format junit --output "$tmp/merged.xml" "$tmp"/s[1-4].json > "$tmp/junit.txt"; st=$?
check "merge junit: exit 0" [ "$st" = 0 ]
check "merge junit: the summary on stdout" grep -q "^axle gate: PASS: $total results" "$tmp/junit.txt"
norm() { sed -E 's/time="[0-9.]+"//g; s/[0-9]+ ms( \(cached\))?/T ms/g' "$1"; }
check "merge junit: the single run's document but for times" diff <(norm "$tmp/all.xml") <(norm "$tmp/merged.xml")

# more shards than results: the empty ones are empty reports, and still merge
"$AXLE" verify --format json --shard 3/3 rules/examples/transpose_sum.axl > "$tmp/e3.json"; st=$?
check "empty shard: exit 0" [ "$st" = 0 ]
check "empty shard: no result" [ ! -s "$tmp/e3.json" ]
"$AXLE" verify --shard 3/3 rules/examples/transpose_sum.axl > "$tmp/e3.txt"
check "empty shard: the summary says so" grep -q '^axle verify: 0 results (shard 3/3 of 2): ' "$tmp/e3.txt"
for k in 1 2; do "$AXLE" verify --format json --shard $k/3 rules/examples/transpose_sum.axl > "$tmp/e$k.json"; done
"$AXLE" gate --merge "$tmp"/e[1-3].json > /dev/null; st=$?
check "empty shard: the merge passes" [ "$st" = 0 ]

# a failing rule in one shard: the merge fails as the single run does
sed 's/ expect invalid//' rules/examples-mutants/transpose_sum.axl > "$tmp/wrong.axl"
fail_run="--solver z3 rules/examples/pad_low_combine.axl $tmp/wrong.axl tests/verify/unsupported.axl"
"$AXLE" gate $fail_run > /dev/null; single=$?
check "failing run: exit 1 alone" [ "$single" = 1 ]
for k in 1 2 3; do "$AXLE" gate --format json --shard $k/3 $fail_run > "$tmp/f$k.json"; done
"$AXLE" gate --merge "$tmp"/f[1-3].json > "$tmp/fail.txt"; st=$?
check "failing shard: the merge exits 1" [ "$st" = 1 ]
check "failing shard: FAIL summary" grep -q '^axle gate: FAIL: 8 results: .*; 2 of 8 as expected' "$tmp/fail.txt"
check "failing shard: the counterexample shown" has "$tmp/fail.txt" "counterexample (replayed)"
check "failing shard: passing rules not shown" sh -c "! grep -q 'pad_low_combine \[' $tmp/fail.txt"
"$AXLE" gate --merge --format junit "$tmp"/f[1-3].json > "$tmp/fail.xml"; st=$?
check "failing shard: junit exit 1" [ "$st" = 1 ]
check "failing shard: junit failures=4" \
  [ "$(xmllint --xpath 'string(/testsuites/@failures)' "$tmp/fail.xml")" = 4 ]
check "failing shard: junit errors=2" \
  [ "$(xmllint --xpath 'string(/testsuites/@errors)' "$tmp/fail.xml")" = 2 ]
for k in 1 2; do
  "$AXLE" verify --format json --shard $k/2 --solver z3 tests/verify/unsupported.axl \
    rules/examples/pad_low_combine.axl > "$tmp/u$k.json"
done
"$AXLE" gate --merge "$tmp"/u[12].json > "$tmp/unknown.txt"; st=$?
check "undecided rule in a shard: the merge exits 2" [ "$st" = 2 ]
check "undecided rule: the reason shown" has "$tmp/unknown.txt" "reason: unsupported"

# usage errors: exit 3 and a message
for bad in 0/3 4/3 x 1/0 /3 3/ 1/3/5 -1/3 1/5000; do
  "$AXLE" verify --shard "$bad" rules/examples > /dev/null 2> "$tmp/err"; st=$?
  check "--shard $bad: exit 3" [ "$st" = 3 ]
  check "--shard $bad: message" grep -q '^axle: error: verify: --shard takes K/N, whole numbers with 1 <= K <= N' "$tmp/err"
done
merge_err() {   # merge_err NAME PATTERN REPORT...
  local name=$1 pattern=$2; shift 2
  "$AXLE" gate --merge "$@" > "$tmp/out" 2> "$tmp/err"; local st=$?
  check "merge $name: exit 3" [ "$st" = 3 ]
  check "merge $name: message" grep -qF -- "$pattern" "$tmp/err"
  check "merge $name: no report" [ ! -s "$tmp/out" ]
}
merge_err "unreadable file" "axle: error: gate --merge: cannot read '$tmp/none.json': No such file" \
  "$tmp/s1.json" "$tmp/none.json"
merge_err "a directory" "cannot read '$tmp': Is a directory" "$tmp"
printf '{"rule": \n' > "$tmp/broken.json"
merge_err "broken JSON" "$tmp/broken.json:1: not a JSON object" "$tmp/broken.json"
merge_err "unsharded report" "$tmp/all.json:1: no \"shard\" object" "$tmp/all.json"
jq -c '.shard.task = "x"' "$tmp/s1.json" > "$tmp/mal.json"
merge_err "malformed shard object" "$tmp/mal.json:1: a malformed \"shard\" object" "$tmp/mal.json"
jq -c 'del(.verdict)' "$tmp/s1.json" > "$tmp/mal2.json"
merge_err "missing verdict" "$tmp/mal2.json:1: the field \"verdict\" is missing or malformed" "$tmp/mal2.json"
merge_err "missing shard" "are in no report" "$tmp/s1.json" "$tmp/s2.json" "$tmp/s4.json"
merge_err "shard twice" "$tmp/s2.json:1: shard 2/4 again: it is in $tmp/s2.json already (line 1): a shard given twice" \
  "$tmp"/s[1-4].json "$tmp/s2.json"
merge_err "shards of other runs" "$tmp/f1.json:1: not a shard of the run of $tmp/s1.json:1: it ran on other rules" \
  "$tmp/s1.json" "$tmp/f1.json"

# Tampering and mix-ups, each refused with its exact message (exit 3, no report). A line says
# what it is; merge recomputes met and contradicts, checks its checksum, and its run identity.
merge_exact() {   # merge_exact NAME MESSAGE REPORT...
  local name=$1 msg=$2; shift 2
  "$AXLE" gate --merge "$@" > "$tmp/out" 2> "$tmp/err"; local st=$?
  check "merge $name: exit 3 ($st)" [ "$st" = 3 ]
  check "merge $name: the message" [ "$(cat "$tmp/err")" = "axle: error: gate --merge: $msg" ]
  check "merge $name: no report" [ ! -s "$tmp/out" ]
}
rest="$tmp/s2.json $tmp/s3.json $tmp/s4.json"
v=$(jq -rs '.[0].verdict' "$tmp/s1.json"); e=$(jq -rs '.[0].expected' "$tmp/s1.json")
m=$(jq -rs '.[0].met' "$tmp/s1.json"); c=$(jq -rs '.[0].shard.contradicts' "$tmp/s1.json")
check "tampering: the first line is a plain result" jqt -s '.[0] | (.vacuous or .trivial) | not' "$tmp/s1.json"
flip() { [ "$1" = true ] && echo false || echo true; }
jq -c '.met |= not' "$tmp/s1.json" > "$tmp/t-met.json"
merge_exact "met flipped" "$tmp/t-met.json:1: \"met\" is $(flip "$m"), but verdict $v with expected $e makes it $m: the line was edited" \
  "$tmp/t-met.json" $rest
jq -c '.shard.contradicts |= not' "$tmp/s1.json" > "$tmp/t-con.json"
merge_exact "contradicts flipped" "$tmp/t-con.json:1: \"contradicts\" is $(flip "$c"), but verdict $v with expected $e makes it $c: the line was edited" \
  "$tmp/t-con.json" $rest
# the failing run's first refuted line: INVALID where valid was expected
i=$(jq -s 'map(.verdict == "invalid" and .expected == "valid") | index(true)' "$tmp/f1.json")
check "tampering: shard 1 of the failing run holds a contradicted result" [ "$i" != null ]
n=$((i + 1))
jq -c "if input_line_number == $n then .verdict = \"verified\" else . end" "$tmp/f1.json" > "$tmp/t-v1.json"
merge_exact "verdict edited" "$tmp/t-v1.json:$n: \"met\" is false, but verdict verified with expected valid makes it true: the line was edited" \
  "$tmp/t-v1.json" "$tmp/f2.json" "$tmp/f3.json"
jq -c "if input_line_number == $n then .verdict = \"verified\" | .met = true | .shard.contradicts = false | .counterexample = null else . end" \
  "$tmp/f1.json" > "$tmp/t-v2.json"
merge_exact "verdict, met and contradicts edited" "$tmp/t-v2.json:$n: the line does not match its checksum: it was edited or damaged after axle wrote it" \
  "$tmp/t-v2.json" "$tmp/f2.json" "$tmp/f3.json"
jq -c '.shard.text |= sub("INVALID"; "VERIFIED")' "$tmp/f1.json" > "$tmp/t-text.json"
merge_exact "text edited" "$tmp/t-text.json:$n: the line does not match its checksum: it was edited or damaged after axle wrote it" \
  "$tmp/t-text.json" "$tmp/f2.json" "$tmp/f3.json"

# shards of other runs: the same two files elsewhere, or with other options, count or binary
mkdir -p "$tmp/tree"
cp rules/examples/transpose_sum.axl rules/examples/pad_low_combine.axl "$tmp/tree/"
small="--solver z3 transpose_sum.axl pad_low_combine.axl"
shard() { (cd "$tmp/tree" && "$@" --format json $small); }
shard "$AXLE" verify --shard 1/2 > "$tmp/o1.json"
shard "$AXLE" verify --shard 2/2 > "$tmp/o2.json"
"$AXLE" gate --merge "$tmp/o1.json" "$tmp/o2.json" > /dev/null; st=$?
check "other runs: the two shards merge" [ "$st" = 0 ]
cat "$tmp/o2.json" "$tmp/o1.json" > "$tmp/o12.json"
"$AXLE" gate --merge "$tmp/o12.json" > /dev/null; st=$?
check "other runs: the two shards in one file merge" [ "$st" = 0 ]
other="not a shard of the run of $tmp/o1.json:1"
shard "$AXLE" verify --shard 2/2 --timeout 11 > "$tmp/x-opt.json"
merge_exact "other options" "$tmp/x-opt.json:1: $other: it ran with other options (of those that can change a verdict: --solver, --timeout, --require-both, ...)" \
  "$tmp/o1.json" "$tmp/x-opt.json"
shard "$AXLE" verify --shard 2/2 --require-both > "$tmp/x-both.json"
merge_exact "--require-both" "$tmp/x-both.json:1: $other: it ran with other options (of those that can change a verdict: --solver, --timeout, --require-both, ...)" \
  "$tmp/o1.json" "$tmp/x-both.json"
shard "$AXLE" verify --shard 2/3 > "$tmp/x-n.json"
merge_exact "other shard count" "$tmp/x-n.json:1: $other: it is shard 2 of 3, that run was split 2 ways" \
  "$tmp/o1.json" "$tmp/x-n.json"
shard "$AXLE_TEST_BIN" verify --shard 2/2 > "$tmp/x-bin.json"
merge_exact "another binary" "$tmp/x-bin.json:1: $other: it was written by another axle executable" \
  "$tmp/o1.json" "$tmp/x-bin.json"
shard "$AXLE" verify --shard 2/2 --rule '*' > "$tmp/x-rule.json"
merge_exact "--rule" "$tmp/x-rule.json:1: $other: it ran on other rules (the rule files, their contents or --rule differ)" \
  "$tmp/o1.json" "$tmp/x-rule.json"
echo "# the same rule, another comment" >> "$tmp/tree/pad_low_combine.axl"
shard "$AXLE" verify --shard 2/2 > "$tmp/x-file.json"
merge_exact "a file's contents changed" "$tmp/x-file.json:1: $other: it ran on other rules (the rule files, their contents or --rule differ)" \
  "$tmp/o1.json" "$tmp/x-file.json"

# a shard missing, twice, a line twice, cut short
merge_exact "missing shard" "$(jq -s '[.[].shard.results] | .[0]' "$tmp/s3.json") of the run's $total results are in no report, the first is result $(jq -s '[.[].shard.task] | min + 1' "$tmp/s3.json"): shard 3 of 4 is missing" \
  "$tmp/s1.json" "$tmp/s2.json" "$tmp/s4.json"
cp "$tmp/s4.json" "$tmp/d4.json"
merge_exact "duplicate shard" "$tmp/s4.json:1: shard 4/4 again: it is in $tmp/d4.json already (line 1): a shard given twice" \
  "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" "$tmp/d4.json" "$tmp/s4.json"
t=$(head -n 1 "$tmp/s2.json" | jq '.shard.task + 1')
{ head -n 1 "$tmp/s2.json"; cat "$tmp/s2.json"; } > "$tmp/t-dup.json"
merge_exact "a line twice" "$tmp/t-dup.json:2: result $t of the run is also at $tmp/t-dup.json:1 (a shard given twice?)" \
  "$tmp/s1.json" "$tmp/t-dup.json" "$tmp/s3.json" "$tmp/s4.json"
head -n 2 "$tmp/s2.json" > "$tmp/t-cut.json"
merge_exact "a report cut at a line's end" "$tmp/t-cut.json: shard 2/4 has 2 of its $(jq -s length "$tmp/s2.json") results: the report was cut short or lost lines" \
  "$tmp/s1.json" "$tmp/t-cut.json" "$tmp/s3.json" "$tmp/s4.json"
{ head -n 2 "$tmp/s2.json"; head -n 3 "$tmp/s2.json" | tail -n 1 | head -c 200; } > "$tmp/t-trunc.json"
merge_exact "a truncated file" "$tmp/t-trunc.json:3: not a JSON object (a report of axle verify --shard K/N --format json has one result a line); the report ends in the middle of this line: it was cut short" \
  "$tmp/s1.json" "$tmp/t-trunc.json" "$tmp/s3.json" "$tmp/s4.json"
{ head -n 1 "$tmp/s2.json"; echo '{"rule": "x", '; tail -n +2 "$tmp/s2.json"; } > "$tmp/t-bad.json"
merge_exact "a malformed JSON line" "$tmp/t-bad.json:2: not a JSON object (a report of axle verify --shard K/N --format json has one result a line)" \
  "$tmp/s1.json" "$tmp/t-bad.json" "$tmp/s3.json" "$tmp/s4.json"

# IEEE mode: a bounded check cannot gate, merged or not
(cd "$tmp/tree" && "$AXLE" verify --numbers ieee --ieee-types f16 --ieee-max-rank 1 --ieee-max-size 2 \
  --shard 1/1 --format json --solver z3 pad_low_combine.axl > "$tmp/ieee.json"); st=$?
check "IEEE shard: it ran (exit $st)" [ "$st" = 0 ] && check "IEEE shard: HOLDS-BOUNDED" jqt -s '.[0].verdict == "holds-bounded"' "$tmp/ieee.json"
merge_exact "IEEE shard" "$tmp/ieee.json:1: a result of --numbers ieee: a bounded check cannot gate (use axle verify)" \
  "$tmp/ieee.json"
: > "$tmp/empty.json"
merge_err "only empty reports" "the reports hold no result" "$tmp/empty.json"
merge_err "no report" "gate --merge: no REPORT given"
merge_err "a run option" "'--jobs' does not go with --merge" --jobs 2 "$tmp/s1.json"
merge_err "text to --output" "--output needs --format json or junit" --output "$tmp/o.txt" "$tmp/s1.json"

echo "e2e/shard: $pass passed, $fail failed"
[ "$fail" = 0 ]
