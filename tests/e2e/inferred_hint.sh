#!/usr/bin/env bash
# The inferred reduction hint (docs/cli.md, "hint (inferred)"): where a rule's hints leave
# summation indices unpaired, every result reports the pairing axle inferred, in text and
# JSON, whatever the verdict, through worker processes (--jobs) and the result cache; a
# rule whose written hints pair everything reports none.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
rules=rules/examples/reductions.axl
hint='^    hint (inferred): x == x, y == y$'
# the hint lines of a text report, each after the rule and type it belongs to
hints() { awk '/^[^ ]/ { head = $2 " " $3 } /^    hint \(inferred\): / { print head ": " $0 }' "$1"; }

# text: the line right under the result line of reduce_of_reduce, for int and real
"$AXLE" verify --no-cache --rule reduce_of_reduce "$rules" > "$tmp/text.txt"; st=$?
check "text: exit 0" [ "$st" = 0 ]
check "text: a hint line per type" [ "$(count "$tmp/text.txt" "$hint")" = 2 ]
check "text: under the result line" \
  [ "$(grep -A1 'reduce_of_reduce \[int\]  VERIFIED' "$tmp/text.txt" | tail -1)" = "    hint (inferred): x == x, y == y" ]

# a rule whose written hints pair every index: no line
"$AXLE" verify --no-cache --rule reduce_of_concat_of_reductions "$rules" > "$tmp/written.txt"
check "written hints: verified" [ "$(count "$tmp/written.txt" 'VERIFIED')" = 2 ]
check "written hints: no hint line" [ "$(count "$tmp/written.txt" 'hint (inferred)')" = 0 ]

# JSON: the field, a string where inferred, else null
"$AXLE" verify --no-cache --format json --rule reduce_of_reduce --rule reduce_of_concat_of_reductions \
  "$rules" > "$tmp/out.json"
check "json: four results" [ "$(wc -l < "$tmp/out.json")" = 4 ]
check "json: every result has the field" [ "$(jcount "$tmp/out.json" 'has("inferred_hint")')" = 4 ]
check "json: reduce_of_reduce inferred" \
  [ "$(jcount "$tmp/out.json" '.rule == "reduce_of_reduce" and .inferred_hint == "x == x, y == y"')" = 2 ]
check "json: reduce_of_concat_of_reductions null" \
  [ "$(jcount "$tmp/out.json" '.rule == "reduce_of_concat_of_reductions" and has("inferred_hint") and .inferred_hint == null')" = 2 ]
check "json: a string or null" \
  [ "$(jq -r '.rule + " " + (.inferred_hint | tostring)' "$tmp/out.json" | sort -u | tr '\n' ';')" = \
    "reduce_of_concat_of_reductions null;reduce_of_reduce x == x, y == y;" ]

# the whole file, through one worker and through two: the same lines
"$AXLE" verify --no-cache --jobs 1 "$rules" > "$tmp/jobs1.txt"
"$AXLE" verify --no-cache --jobs 2 "$rules" > "$tmp/jobs2.txt"
hints "$tmp/jobs1.txt" > "$tmp/jobs1.hints"
hints "$tmp/jobs2.txt" > "$tmp/jobs2.hints"
check "--jobs 1: reduce_of_reduce's hints" [ "$(grep -c "reduce_of_reduce.*x == x, y == y" "$tmp/jobs1.hints")" = 2 ]
check "--jobs 2: same hint lines as --jobs 1" cmp -s "$tmp/jobs1.hints" "$tmp/jobs2.hints"
check "--jobs 2: none for the written hints" [ "$(grep -c reduce_of_concat "$tmp/jobs2.hints")" = 0 ]

# the cache: a second run answers from the cache and prints the same hint lines
"$AXLE" verify "$rules" > "$tmp/first.txt"
"$AXLE" verify --jobs 2 "$rules" > "$tmp/second.txt"
check "cache: first run computed" [ "$(count "$tmp/first.txt" '(cached)$')" = 0 ]
check "cache: second run all cached" [ "$(count "$tmp/second.txt" '(cached)$')" = 8 ]
hints "$tmp/first.txt" > "$tmp/first.hints"
hints "$tmp/second.txt" > "$tmp/second.hints"
check "cache: hints kept" [ "$(grep -c "reduce_of_reduce.*x == x, y == y" "$tmp/second.hints")" = 2 ]
check "cache: same hint lines" cmp -s "$tmp/first.hints" "$tmp/second.hints"
check "cache: same as uncached" cmp -s "$tmp/jobs1.hints" "$tmp/second.hints"
"$AXLE" verify --format json --rule reduce_of_reduce --rule reduce_of_concat_of_reductions \
  "$rules" > "$tmp/cached.json"
check "cache: json field kept" \
  [ "$(jcount "$tmp/cached.json" '.cached == true and .inferred_hint == "x == x, y == y"')" = 2 ]
check "cache: json null kept" \
  [ "$(jcount "$tmp/cached.json" '.cached == true and has("inferred_hint") and .inferred_hint == null')" = 2 ]

# without its written hint the concatenation rule still verifies: axle infers the offsets
# from the tensor reads of the two sides (k is i where X is read, j + a where Y is read)
sed '/^  hint/,/j == (if k < a then 0 else k - a)/d' "$rules" > "$tmp/nohint.axl"
check "no hint: the hint lines are gone" [ "$(grep -c '^  hint' "$tmp/nohint.axl")" = 0 ]
"$AXLE" verify --no-cache --format json --rule reduce_of_concat_of_reductions "$tmp/nohint.axl" \
  > "$tmp/nohint.json"; st=$?
check "no hint: exit 0" [ "$st" = 0 ]
check "no hint: verified with the concatenation offset inferred, for both types" \
  [ "$(jcount "$tmp/nohint.json" '.verdict == "verified" and .inferred_hint == "k.0 == (ite (< r.0 1) i.0 (ite (not (< r.0 1)) (+ j.0 a.0) 0))"')" = 2 ]

# a guess that is no bijection is UNKNOWN with the advice to write a hint -- never
# INVALID-HINT (nobody wrote that hint), never VERIFIED: sum(concat(X, X)) = 2 sum(X) has no
# index-to-index pairing
cat > "$tmp/twice.axl" <<'EOF2'
rule concat_twice for T in num {
  rclass c, y
  map a over c
  map t over y
  index k, i over c
  tensor X : T[c: a, y: t]

  reduce(concat(X, X, axis=c), {c: k}) => 2 * reduce(X, {c: i})
}
EOF2
"$AXLE" verify --no-cache --format json "$tmp/twice.axl" > "$tmp/twice.json"; st=$?
check "wrong guess: exit 2 (unknown)" [ "$st" = 2 ]
check "wrong guess: unknown with the advice, for both types" \
  [ "$(jcount "$tmp/twice.json" '.verdict == "unknown" and (.reason | endswith("partly inferred (i.0 == k.0): a written hint may prove the rule"))')" = 2 ]

echo "inferred hint: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
