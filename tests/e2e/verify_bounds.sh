#!/usr/bin/env bash
# Bound inference (verifier/rank.c) must be sound: tests/verify/bounds holds rules that are
# correct at rank 1 and wrong from rank 2, 3 or 4 of some rank class (index masks built
# from constants, "every axis" against "some axis", quantified preconditions, unused lets
# that concatenate, several classes at once, boolean results, rules that need rank 3 and
# rank 4), each beside a valid neighbour. Every `expect invalid` rule carries a comment
# `# first-fails: CLASS=RANK ...` (on a line before its `rule` line): it must be INVALID
# with a replayed counterexample whose rank of each listed class is exactly that rank
# (the smallest failing instance). Every other rule must be VERIFIED, and not vacuously.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
dir=tests/verify/bounds

# RULE<TAB>expect<TAB>spec, one line per rule: expect is "invalid" or "valid", spec the
# first-fails annotation that precedes an invalid rule ("" when there is none)
awk '
  FNR == 1 { spec = "" }
  /^# first-fails:/ { spec = $0; sub(/^# first-fails:[ \t]*/, "", spec); next }
  /^rule / {
    name = $2
    expect = ($0 ~ /expect invalid/) ? "invalid" : "valid"
    printf "%s\t%s\t%s\n", name, expect, (expect == "invalid" ? spec : "")
    spec = ""
  }' "$dir"/*.axl > "$tmp/rules.tsv"

"$AXLE" verify --format json --no-cache "$dir" > "$tmp/out.json" 2> "$tmp/err"
rc=$?
check "verify exits 0 (every rule as expected)" [ "$rc" = 0 ]
check "the json is one object per result" jq -e -s 'length > 0' "$tmp/out.json" > /dev/null

ninvalid=$(awk -F'\t' '$2 == "invalid"' "$tmp/rules.tsv" | wc -l)
nvalid=$(awk -F'\t' '$2 == "valid"' "$tmp/rules.tsv" | wc -l)
check "at least 24 rules that must be invalid (found $ninvalid)" [ "$ninvalid" -ge 24 ]
check "at least 24 valid neighbours (found $nvalid)" [ "$nvalid" -ge 24 ]

wrong=()
while IFS=$'\t' read -r rule expect spec; do
  results=$(jq -c --arg r "$rule" 'select(.rule == $r)' "$tmp/out.json")
  n=$(printf '%s' "$results" | grep -c .)
  check "$rule: has results" [ "$n" -ge 1 ]
  if [ "$expect" = valid ]; then
    bad=$(printf '%s\n' "$results" | jq -r 'select(.verdict != "verified" or .vacuous == true)
      | "\(.type // "untyped"): \(.verdict)\(if .vacuous then " (vacuous)" else "" end)"')
    check "$rule: VERIFIED ${bad:+(got: $bad)}" [ -z "$bad" ]
    continue
  fi
  check "$rule: has a first-fails annotation" [ -n "$spec" ]
  # the annotation as a JSON object {"x": 2, ...}
  want=$(printf '%s\n' $spec | jq -R -s -c 'split("\n") | map(select(length > 0) | split("="))
    | map({(.[0]): (.[1] | tonumber)}) | add // {}')
  bad=$(printf '%s\n' "$results" | jq -r --argjson want "$want" '
    . as $r
    | select($r.verdict != "invalid" or $r.counterexample == null or $r.met != true
             or ([$want | to_entries[] | $r.counterexample.ranks[.key] == .value] | all | not))
    | "\(.type // "untyped"): \(.verdict), ranks \(.counterexample.ranks // {} | tojson), bounds \(.bounds | tojson)"')
  check "$rule: INVALID first at $spec ${bad:+(got: $bad)}" [ -z "$bad" ]
  [ -n "$bad" ] && wrong+=("$rule")
done < "$tmp/rules.tsv"

[ ${#wrong[@]} -gt 0 ] && echo "invalid rules not refuted at their first failing rank: ${wrong[*]}"
echo "verify_bounds: $pass passed, $fail failed"
[ "$fail" = 0 ]
