#!/usr/bin/env bash
# flatten(A, x, into=f) and unflatten(B, f, {x: s}) (docs/language.md, docs/semantics.md
# "Flatten: the merge argument"): XLA's flattening reshapes VERIFIED with x's class bounded
# at rank 1, the merge argument checked one and two ranks further (--bound-slack), every
# rule outside the argument UNKNOWN with the reason (never VERIFIED: each of them is wrong
# at rank 2 or has an operator the merge does not commute with), IEEE mode bounded, the
# printer round-trips. The checker's errors are tests/diag/check_flatten.axl; values are
# unit/check_semantics `flatten_is_row_major`; the rank-1 mutants are in
# tests/verify/bounds/flatten.axl and rules/xla-extra-mutants/flatten.axl.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

"$AXLE" verify --no-cache --jobs 2 --format json rules/xla-extra/flatten.axl > "$tmp/x.json" 2> "$tmp/err"; st=$?
check "xla-extra flatten: exit 0, 13 results, all VERIFIED" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 13 and all(.[]; .verdict == \"verified\")' '$tmp/x.json' > /dev/null"
check "xla-extra flatten: the flattened class bounded at rank 1, the flat axis fixed" \
  jqt -s 'all(.[]; .bounds.x == 1 and (.fixed_rank.f.why | test("flatten axis")))' "$tmp/x.json"

# The merge argument says a rule closed under merging holds at every rank once it holds at
# rank 1. Checked further: ranks 2 and 3 of x, where the row-major index mixes the named
# axes, for the rules whose instances there are decided (a sum over a flattened axis pairs
# its index through div and mod, which the inferred pairing does not invert: undecided
# there, not refuted)
"$AXLE" verify --no-cache --jobs 2 --bound-slack 2 --format json \
  --rule 'flatten_0[1235]*' rules/xla-extra/flatten.axl > "$tmp/slack.json" 2> "$tmp/err"; st=$?
check "slack 2: ranks up to 3 of x decided and VERIFIED (exit 0, 11 results)" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 11 and all(.[]; .verdict == \"verified\")' '$tmp/slack.json' > /dev/null"

# outside the argument: UNKNOWN with the reason, never VERIFIED
cat > "$tmp/out.axl" <<'EOF2'
# two size maps: wrong at rank 2 (s = (2, 3), s2 = (3, 2): 6 elements both ways, another
# order), and a merge turns both into 6
rule two_size_maps for T in any {
  rclass x, f
  map s, s2 over x
  tensor A : T[x: s]
  unflatten(flatten(A, x, into=f), f, {x: s2}) => A
}
# the size map in a precondition: s == 2 on every axis is not s.0 · s.1 == 2
rule size_in_require for T in any {
  rclass x, f
  map s over x
  tensor A : T[x: s]
  require forall x: s == 2
  unflatten(flatten(A, x, into=f), f, {x: s}) => A
}
# a literal size: 2 on every axis is not 2 · 2 after a merge
rule literal_size for T in any {
  rclass x, f
  tensor A : T[x: 2]
  unflatten(flatten(A, x, into=f), f, {x: 2}) => A
}
# a pad on the class: padding every named axis is not padding the flat one (wrong at rank 2)
rule pad_on_class for T in num {
  rclass x, f
  map s over x nonneg
  tensor A : T[x: s]
  flatten(pad_low(A, 0, {x: 1}), x, into=f) => pad_low(flatten(A, x, into=f), 0, {f: 1})
}
# a sum over the class through an index map
rule index_map for T in num {
  rclass x, f
  map s over x
  index i over x
  tensor A : T[x: s]
  reduce(flatten(A, x, into=f), [f]) => reduce(A, {x: i})
}
EOF2
"$AXLE" verify --no-cache --format json "$tmp/out.axl" > "$tmp/out.json" 2> "$tmp/err"
check "outside the argument: 13 results, all UNKNOWN" \
  jqt -s 'length == 13 and all(.[]; .verdict == "unknown")' "$tmp/out.json"
reason() { jq -r -s --arg r "$1" '[.[] | select(.rule == $r) | .reason] | unique | join("|")' "$tmp/out.json"; }
check "two size maps: said so" has <(reason two_size_maps) "a flatten reads it row-major and the axes of the class have more than one size map"
check "pad_low: named" has <(reason pad_on_class) "'pad_low' on an axis of the class does not commute with merging its named axes"
check "a size map in a require: said so" has <(reason size_in_require) "used other than as the size of its axes"
check "a literal size: said so" has <(reason literal_size) "an axis of the class has a size that is not a map"
check "an index map of the class: said so" has <(reason index_map) "used other than as the size of its axes"

"$AXLE" verify --no-cache --numbers ieee --ieee-types f32 --format json --rule 'flatten_0[125]*' rules/xla-extra/flatten.axl > "$tmp/ieee.json" 2> "$tmp/err"
check "IEEE: the flattening reshapes hold in f32 at the bounds" \
  jqt -s 'length == 3 and all(.[]; .verdict == "holds-bounded")' "$tmp/ieee.json"

"$AXLE" fmt rules/xla-extra/flatten.axl > "$tmp/fmt.axl"
check "fmt: canonical text parses and checks" sh -c "'$AXLE' check '$tmp/fmt.axl' > /dev/null"
check "fmt: flatten and unflatten printed with their axes" has "$tmp/fmt.axl" 'unflatten(flatten(A, x, into=f), f, {x: s}) => A'

echo "flatten: $pass passed, $fail failed"
[ "$fail" = 0 ]
