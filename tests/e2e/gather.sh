#!/usr/bin/env bash
# gather(A, I, axis=y) (docs/language.md, docs/semantics.md): the identities of
# tests/verify/gather.axl VERIFIED and their wrong twins INVALID; a counterexample is
# replayed with the index tensor's values first and the operand's values at the clamped
# indices they choose, both printed; IEEE mode leaves gather UNKNOWN (its indices are int);
# what axle cannot reason about (an index that is a sum, an index built from a per-axis
# mask) is UNKNOWN with a reason, never VERIFIED. The checker's errors are goldens in
# tests/diag/check_gather.axl; the bound oracle is tests/verify/bounds/gather.axl; XLA's
# gather rules and their mutants are in tests/e2e/xla_extra.sh.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

"$AXLE" verify --no-cache --jobs 2 --timeout 20 --format json tests/verify/gather.axl > "$tmp/id.json" 2> "$tmp/err"; st=$?
check "identities: exit 0 (all as expected)" [ "$st" = 0 ]
check "identities: 22 results" [ "$(jq -s length "$tmp/id.json")" = 22 ]
check "identities: every result met its expectation" [ "$(jcount "$tmp/id.json" '.met != true')" = 0 ]
check "identities: 14 VERIFIED, 8 INVALID" \
  sh -c "[ $(jcount "$tmp/id.json" '.verdict == "verified"') = 14 ] && [ $(jcount "$tmp/id.json" '.verdict == "invalid"') = 8 ]"
check "identities: every INVALID has a replayed counterexample" \
  [ "$(jcount "$tmp/id.json" '.verdict == "invalid" and .counterexample.failed == null')" = 0 ]
check "identities: the gather axis is fixed at rank 1 and said so" \
  jqt -s 'all(.[]; .fixed_rank.y.why == "gather axis")' "$tmp/id.json"

# The replay: gather of an iota against the unclamped indices. The index tensor is read
# first, at a value outside [0, 4]; the left side is that value clamped, the right the value.
cx=$(jq -c 'select(.rule == "gather_iota_unclamped") | .counterexample' "$tmp/id.json")
check "iota replay: the first read is of the indices I" jqt '.reads[0].tensor == "I"' <<< "$cx"
check "iota replay: the index is out of range, lhs its clamp, rhs the index" jqt '
  (.reads[0].value | tonumber) as $i
  | ($i < 0 or $i > 4) and (.rhs | tonumber) == $i
  and (.lhs | tonumber) == (if $i < 0 then 0 else 4 end)' <<< "$cx"

# XLA's select chain with == instead of >= (rules/xla-extra-mutants/gather.axl): the
# counterexample's index is out of range, and the left side is the operand at its clamp
"$AXLE" verify --no-cache --format json rules/xla-extra-mutants/gather.axl > "$tmp/mut.json" 2> "$tmp/err"
"$AXLE" verify --no-cache rules/xla-extra-mutants/gather.axl > "$tmp/mut.txt" 2> "$tmp/err"
for t in int real; do
  cx=$(jq -c --arg t "$t" 'select(.rule == "gather_03_selects_equal" and .type == $t) | .counterexample' "$tmp/mut.json")
  check "selects replay [$t]: INVALID with reads of I, then A" \
    jqt '.reads[0].tensor == "I" and ([.reads[1:][].tensor] | length > 0 and all(. == "A"))' <<< "$cx"
  check "selects replay [$t]: I out of range, lhs = A at the clamped index" jqt '
    (.reads[0].value | tonumber) as $i
    | ($i < 0 or $i > 2)
    and ([.reads[] | select(.tensor == "A" and .index == [if $i < 0 then 0 else 2 end]) | .value] | first) == .lhs' <<< "$cx"
done
check "selects replay: the text shows the index read and the operand's values" \
  sh -c "grep -A12 'gather_03_selects_equal \[int\]' '$tmp/mut.txt' | grep -q '^      I\[[0-9]*\] = ' &&
         grep -A12 'gather_03_selects_equal \[int\]' '$tmp/mut.txt' | grep -q '^      A\[[0-2]\] = '"

# IEEE mode: the indices are int elements, which it does not model
ieee_int_unknown gather 7 rules/xla-extra/gather.axl

# outside what axle reasons about: UNKNOWN with a reason
cat > "$tmp/unsup.axl" <<'EOF2'
# the index is a sum: its value is no term of the fragment
rule sum_index for T in num {
  rclass y, z, w
  map n over y
  map m over z
  map p over w
  tensor A : T[y: n]
  tensor J : int[z: m, w: p]
  gather(A, reduce(J, [w]), axis=y) => gather(A, reduce(J, [w]), axis=y) + 0
}
# the index is a per-axis mask (a fold of z): an index of y that depends on z's axes
rule mask_index for T in num {
  rclass y, z
  map n over y
  map m over z
  tensor A : T[y: n]
  let All = pad(constant(true, {z: m}), false, low={z: 1})
  gather(A, select(All, 1, 0), axis=y) =>
    select(All, gather(A, constant(1, {z: m + 1}), axis=y), gather(A, constant(0, {z: m + 1}), axis=y))
}
EOF2
"$AXLE" verify --no-cache --format json "$tmp/unsup.axl" > "$tmp/unsup.json" 2> "$tmp/err"
check "unsupported: 4 results, all UNKNOWN" jqt -s 'length == 4 and all(.[]; .verdict == "unknown")' "$tmp/unsup.json"
check "unsupported: a sum as an index is outside the reduction fragment" \
  jqt -s '[.[] | select(.rule == "sum_index") | .reason | test("reductions")] | all' "$tmp/unsup.json"
check "unsupported: a mask index fails bound inference for z" \
  jqt -s '[.[] | select(.rule == "mask_index") | .reason | test("bound inference for rank class .z.")] | all' "$tmp/unsup.json"

# the printer: gather round-trips through axle fmt
"$AXLE" fmt tests/verify/gather.axl > "$tmp/fmt.axl"
check "fmt: canonical text of the identities parses and checks" sh -c "'$AXLE' check '$tmp/fmt.axl' > /dev/null"
check "fmt: gather printed with its named axis" has "$tmp/fmt.axl" 'gather(A, iota({y: n}, y), axis=y) => A'

echo "gather: $pass passed, $fail failed"
[ "$fail" = 0 ]
