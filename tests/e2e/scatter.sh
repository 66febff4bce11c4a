#!/usr/bin/env bash
# scatter(A, I, U, axis=y) (docs/language.md, docs/semantics.md): the identities of
# rules/examples/scatter.axl VERIFIED with the pairing that keeps the bound small, their
# mutated twins INVALID with replayed counterexamples that show the indices and the
# updates; the replay adds repeated indices and skips indices that are no row; IEEE mode
# leaves scatter UNKNOWN (its indices are int); what is outside the fragment is UNKNOWN
# with a reason; the printer round-trips it. The checker's errors are
# tests/diag/check_scatter.axl; the bound oracle is tests/verify/bounds/scatter.axl; XLA's
# scatter rules and their mutants are in tests/e2e/xla_extra.sh.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json rules/examples/scatter.axl > "$tmp/id.json" 2> "$tmp/err"; st=$?
check "identities: exit 0 (all as expected)" [ "$st" = 0 ]
check "identities: 6 results, all VERIFIED" jqt -s 'length == 6 and all(.[]; .verdict == "verified")' "$tmp/id.json"
check "identities: the scatter axis is fixed at rank 1 and said so" \
  jqt -s 'all(.[]; .fixed_rank.y.why == "scatter axis")' "$tmp/id.json"
# A + Σ_z: the inferred pairing sends z to z itself (no path condition on the side that
# pins it), so the indices' class needs rank 2 only — with the ite form it needed 6
check "identities: the indices' class is bounded at rank 2" jqt -s 'all(.[]; .bounds.z == 2)' "$tmp/id.json"
check "identities: scatter_as_sum pairs the summation index with itself" \
  jqt -s '[.[] | select(.rule == "scatter_as_sum") | .inferred_hint | test("^side#[0-9]+ == .*, z\\.0#[0-9]+ == z\\.0#[0-9]+$")] | all' "$tmp/id.json"

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json rules/examples-mutants/scatter.axl > "$tmp/mut.json" 2> "$tmp/err"; st=$?
check "mutants: exit 0, 6 results, all INVALID with a replayed counterexample" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 6 and all(.[]; .verdict == \"invalid\" and .counterexample.failed != null)' '$tmp/mut.json' > /dev/null"
# The replay of "the updates dropped": the left side is A plus the updates whose index
# hits the access's row, so lhs - rhs is that sum — non-zero, and made of U's values read
check "drop replay: lhs - rhs is the sum of the updates read at indices equal to the row" jqt -s '
  [.[] | select(.rule == "scatter_drops_updates") | .counterexample
   | (.access.y[0]) as $row
   | [.reads[] | select(.tensor == "I")] as $ix
   | ((.lhs | tonumber) - (.rhs | tonumber)) as $d
   | $d != 0 and ($ix | length) >= 1
     and ([$ix[] | select((.value | tonumber) == $row)] | length) >= 1] | all' "$tmp/mut.json"

# repeated indices add up, an index that is no row adds nothing: rules that misstate rows
# 0 and 1 of scatter(0, [0, 0, 5, -1], [1, 2, 4, 8]) replay to the true rows, 1 + 2 = 3
# and 0 (5 and -1 hit no row of two)
cat > "$tmp/val.axl" <<'EOF2'
rule row0_wrong for T in num expect invalid {
  rclass y, z
  let I = concat(constant(0, {z: 2}), constant(5, {z: 1}), constant(-1, {z: 1}), axis=z)
  let U = concat(constant(1, {z: 1}), constant(2, {z: 1}), constant(4, {z: 1}), constant(8, {z: 1}), axis=z)
  slice(scatter(constant(0, {y: 2}), I, U, axis=y), {y: 0}, {y: 1}) => constant(4, {y: 1})
}
rule row1_wrong for T in num expect invalid {
  rclass y, z
  let I = concat(constant(0, {z: 2}), constant(5, {z: 1}), constant(-1, {z: 1}), axis=z)
  let U = concat(constant(1, {z: 1}), constant(2, {z: 1}), constant(4, {z: 1}), constant(8, {z: 1}), axis=z)
  slice(scatter(constant(0, {y: 2}), I, U, axis=y), {y: 1}, {y: 2}) => constant(8, {y: 1})
}
EOF2
"$AXLE" verify --no-cache --format json "$tmp/val.axl" > "$tmp/val.json" 2> "$tmp/err"; st=$?
check "values: exit 0, 4 results, all INVALID" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 4 and all(.[]; .verdict == \"invalid\")' '$tmp/val.json' > /dev/null"
check "values: row 0 replays to 1 + 2 = 3 (repeated index 0; 5 and -1 are no row)" \
  jqt -s '[.[] | select(.rule == "row0_wrong") | .counterexample.lhs == "3"] | all and length == 2' "$tmp/val.json"
check "values: row 1 replays to 0 (no index hits it)" \
  jqt -s '[.[] | select(.rule == "row1_wrong") | .counterexample.lhs == "0"] | all and length == 2' "$tmp/val.json"

ieee_int_unknown scatter 3 rules/examples/scatter.axl

# Attacks. An index that is no row is skipped, not folded in: abs(I) for I is wrong exactly
# where an index is negative (the counterexample reads one), right under I >= 0. The plain
# parts regroup (symbolic.c Union), the updates never: B + (A + Σ) in another order and
# nesting is VERIFIED, the updates added twice are INVALID.
cat > "$tmp/att.axl" <<'EOF2'
rule abs_index_wrong for T in num expect invalid {
  rclass y, z
  map n over y
  map m over z
  tensor A : T[y: n]
  tensor I : int[z: m]
  tensor U : T[z: m]
  scatter(A, abs(I), U, axis=y) => scatter(A, I, U, axis=y)
}
rule abs_index_nonneg for T in num {
  rclass y, z
  map n over y
  map m over z
  tensor A : T[y: n]
  tensor I : int[z: m]
  tensor U : T[z: m]
  require I >= 0
  scatter(A, abs(I), U, axis=y) => scatter(A, I, U, axis=y)
}
rule regroup_nested for T in num {
  rclass y, z
  map n over y
  map m over z
  tensor A, B, C : T[y: n]
  tensor I : int[z: m]
  tensor U : T[z: m]
  (B + scatter(A, I, U, axis=y)) + C => scatter(C + (A + B), I, U, axis=y)
}
rule updates_twice for T in num expect invalid {
  rclass y, z
  map n over y
  map m over z
  tensor A, B : T[y: n]
  tensor I : int[z: m]
  tensor U : T[z: m]
  B + scatter(A, I, U, axis=y) => scatter(B, I, U, axis=y) + scatter(A, I, U, axis=y)
}
EOF2
"$AXLE" verify --no-cache --jobs 2 --format json "$tmp/att.axl" > "$tmp/att.json" 2> "$tmp/err"; st=$?
check "attacks: exit 0, 8 results, all as expected" \
  sh -c "[ $st = 0 ] && jq -e -s 'length == 8 and all(.[]; .met == true)' '$tmp/att.json' > /dev/null"
check "attacks: abs(I) refuted at a negative index" \
  jqt -s '[.[] | select(.rule == "abs_index_wrong") | .counterexample.reads
           | any(.tensor == "I" and (.value | tonumber) < 0)] | all and length == 2' "$tmp/att.json"
check "attacks: the regrouped plain parts VERIFIED, the doubled updates INVALID" \
  jqt -s '[.[] | select(.rule == "regroup_nested") | .verdict == "verified"] + [.[] | select(.rule == "updates_twice") | .verdict == "invalid"] | all and length == 4' "$tmp/att.json"


# outside what axle reasons about: UNKNOWN with a reason
cat > "$tmp/unsup.axl" <<'EOF2'
# the index is a sum: comparing it with a row is outside the reduction fragment
rule sum_index for T in num {
  rclass y, z, w
  map n over y
  map m over z
  map p over w
  tensor A : T[y: n]
  tensor J : int[z: m, w: p]
  tensor U : T[z: m]
  scatter(A, reduce(J, [w]), U, axis=y) => scatter(A, reduce(J, [w]), U, axis=y) + 0
}
EOF2
"$AXLE" verify --no-cache --format json "$tmp/unsup.axl" > "$tmp/unsup.json" 2> "$tmp/err"
check "unsupported: 2 results, both UNKNOWN with the fragment's reason" \
  jqt -s 'length == 2 and all(.[]; .verdict == "unknown" and (.reason | test("reduction")))' "$tmp/unsup.json"

"$AXLE" fmt rules/examples/scatter.axl > "$tmp/fmt.axl"
check "fmt: canonical text of the identities parses and checks" sh -c "'$AXLE' check '$tmp/fmt.axl' > /dev/null"
check "fmt: scatter printed with its named axis" has "$tmp/fmt.axl" 'scatter(neg(A), I, neg(U), axis=y) => neg(scatter(A, I, U, axis=y))'

echo "scatter: $pass passed, $fail failed"
[ "$fail" = 0 ]
