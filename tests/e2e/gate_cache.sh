#!/usr/bin/env bash
# The result cache end to end (docs/cli.md, "Result cache"): a second run of an unchanged
# corpus answers every rule from the cache with the same verdicts; editing a rule recomputes
# that rule only, a comment does not; another solver option misses; --no-cache neither
# reads nor writes; damaged or forged entries are recomputed, never trusted.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
entries="$XDG_CACHE_HOME/axle/verify-1"
verdicts() { jq -r '[.rule, .type, .verdict, .met, .bounds, .counterexample] | @json' "$1"; }
mkdir -p "$tmp/rules"
cp rules/examples/pad_low_combine.axl rules/examples/slice_dyup_slice.axl \
   rules/examples/transpose_sum.axl rules/examples-mutants/reductions.axl "$tmp/rules/"
run() {   # run NAME [OPTIONS...]: verify the copy in JSON into $tmp/NAME.json
  local name=$1; shift
  "$AXLE" verify --format json "$@" "$tmp/rules" > "$tmp/$name.json" 2> "$tmp/$name.err"
  echo $? > "$tmp/$name.status"
}

run first
check "first run: exit 0" [ "$(cat "$tmp/first.status")" = 0 ]
total=$(wc -l < "$tmp/first.json")
check "first run: 22 results" [ "$total" = 22 ]
check "first run: nothing cached" [ "$(jcount "$tmp/first.json" '.cached == false')" = "$total" ]
check "first run: an entry per result" [ "$(ls "$entries" | wc -l)" = "$total" ]

run second
check "second run: exit 0" [ "$(cat "$tmp/second.status")" = 0 ]
check "second run: everything cached" [ "$(jcount "$tmp/second.json" '.cached == true')" = "$total" ]
check "second run: same verdicts, bounds and counterexamples" \
  cmp -s <(verdicts "$tmp/first.json") <(verdicts "$tmp/second.json")
"$AXLE" verify "$tmp/rules" > "$tmp/second.txt"
check "text: marked cached" grep -q 'VERIFIED (z3+cvc5)  bounds {x: 2}  2 instances, [0-9]* queries, [0-9]* ms (cached)$' "$tmp/second.txt"
check "text: summary counts the cache" grep -q '22 of 22 as expected (22 from the cache)$' "$tmp/second.txt"

# a comment and a new layout change nothing; a changed rule is computed again, alone
sed -i 's/^rule pad_low_combine/# a new comment\nrule pad_low_combine/; s/^  rclass x$/  rclass   x   # spaced/' \
  "$tmp/rules/pad_low_combine.axl"
run comment
check "comment: still all cached" [ "$(jcount "$tmp/comment.json" '.cached == true')" = "$total" ]
sed -i 's/pad_low(Y, 0, {x: l1 + l2})/pad_low(Y, 0, {x: l2 + l1})/' "$tmp/rules/pad_low_combine.axl"
run edited
check "edited rule: exit 0" [ "$(cat "$tmp/edited.status")" = 0 ]
check "edited rule: its 2 results computed" \
  [ "$(jcount "$tmp/edited.json" '.rule == "pad_low_combine" and .cached == false')" = 2 ]
check "edited rule: the other 20 cached" [ "$(jcount "$tmp/edited.json" '.cached == true')" = 20 ]
# a rule made wrong is found wrong, not served from the cache
sed -i 's/{x: l2 + l1})/{x: l2 + l1 + 1})/' "$tmp/rules/pad_low_combine.axl"
run wrong
check "wrong rule: exit 1" [ "$(cat "$tmp/wrong.status")" = 1 ]
check "wrong rule: invalid, computed" \
  [ "$(jcount "$tmp/wrong.json" '.rule == "pad_low_combine" and .verdict == "invalid" and .cached == false')" = 2 ]
cp rules/examples/pad_low_combine.axl "$tmp/rules/pad_low_combine.axl"

# every option that can change a verdict is part of the key
run timeout --timeout 7
check "other --timeout: nothing cached" [ "$(jcount "$tmp/timeout.json" '.cached == true')" = 0 ]
run cvc5 --solver cvc5
check "other --solver: nothing cached" [ "$(jcount "$tmp/cvc5.json" '.cached == true')" = 0 ]
run cvc5again --solver cvc5
check "same --solver again: all cached" [ "$(jcount "$tmp/cvc5again.json" '.cached == true')" = "$total" ]

# --no-cache: neither read nor written
rm -rf "$XDG_CACHE_HOME"
run nocache --no-cache
check "--no-cache: computed" [ "$(jcount "$tmp/nocache.json" '.cached == false')" = "$total" ]
check "--no-cache: nothing written" [ ! -e "$entries" ]

# damaged entries are recomputed, with the same verdicts
run fill
for f in "$entries"/*.json; do : > "$f"; break; done                  # one emptied
i=0
for f in "$entries"/*.json; do                                        # others damaged
  i=$((i + 1))
  case $i in
    2) head -c 100 "$f" > "$tmp/x" && mv "$tmp/x" "$f" ;;             # truncated
    3) printf 'garbage' > "$f" ;;
    4) jq '.record |= (fromjson | .queries |= ("9" + tostring | tonumber) | tojson)' "$f" \
         > "$tmp/x" && mv "$tmp/x" "$f" ;;                            # the record altered
  esac
done
# an entry copied over another one's file: its key material does not match
files=("$entries"/*.json)
cp "${files[6]}" "${files[7]}"
# forged: the first INVALID entry not damaged above now says VERIFIED
forged=
for k in "${!files[@]}"; do
  [ "$k" -ge 4 ] && [ "$k" != 6 ] && [ "$k" != 7 ] || continue
  if jq -e '.record | fromjson | .verdict == "invalid"' "${files[$k]}" > /dev/null; then
    forged=${files[$k]}
    jq '.record |= (fromjson | .verdict = "verified" | tojson)' "$forged" > "$tmp/x" && mv "$tmp/x" "$forged"
    break
  fi
done
check "damaged: an invalid entry forged" jqt '.record | fromjson | .verdict == "verified"' "$forged"
run damaged
check "damaged: exit 0" [ "$(cat "$tmp/damaged.status")" = 0 ]
check "damaged: same verdicts as the first run" \
  cmp -s <(verdicts "$tmp/first.json") <(verdicts "$tmp/damaged.json")
recomputed=$(jcount "$tmp/damaged.json" '.cached == false')
check "damaged: at least 5 recomputed ($recomputed)" [ "$recomputed" -ge 5 ]
run repaired
check "repaired: all cached again" [ "$(jcount "$tmp/repaired.json" '.cached == true')" = "$total" ]

# an unusable cache directory is a warning, not a failure
rm -rf "$XDG_CACHE_HOME"; : > "$XDG_CACHE_HOME"
run nodir
check "no cache dir: exit 0" [ "$(cat "$tmp/nodir.status")" = 0 ]
check "no cache dir: warned" grep -q "axle: warning: result cache off: cannot create the cache directory" "$tmp/nodir.err"

echo "gate cache: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
