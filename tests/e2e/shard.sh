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
merge_err "shard twice" "$tmp/s2.json:1: result" "$tmp"/s[1-4].json "$tmp/s2.json"
merge_err "shards of other runs" "not the shards of one run" "$tmp/s1.json" "$tmp/f1.json"
: > "$tmp/empty.json"
merge_err "only empty reports" "the reports hold no result" "$tmp/empty.json"
merge_err "no report" "gate --merge: no REPORT given"
merge_err "a run option" "'--jobs' does not go with --merge" --jobs 2 "$tmp/s1.json"
merge_err "text to --output" "--output needs --format json or junit" --output "$tmp/o.txt" "$tmp/s1.json"

echo "e2e/shard: $pass passed, $fail failed"
[ "$fail" = 0 ]
