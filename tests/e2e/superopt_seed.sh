#!/usr/bin/env bash
# `axle superopt --seed-from-egraph`: the program saturated with the proved rules of --rules
# before the search. On a per-row scale before a projection, eq_matmul_mul gives a variant
# (matmul first, scale after) whose graph is chosen; the rule chain is reported; the graph
# written is equivalent to the original program; a wrong rule in --rules stops the run (exit
# 3, named) both at the pruner's gate and, with --no-gate, at the seed's own; the option is
# refused where it does not apply. The tile-level rewrites (superopt/eqsat/tile.h) turn the
# input's own graph into the variant's and insert the k-loop (the rms accumulated beside X·W,
# the scale after it), and alone (the rule left out of --rules) give a graph equivalent to the
# program. On Trinity's pre-norm case (tests/superopt/prenorm_linear.axl, k = 4096) they give
# the graph with the rms inside the projection loop and the division after it, faster than the
# search's own, checked against the program.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export XDG_CACHE_HOME="$tmp/cache"
prog=tests/superopt/seed_rms_scale.axl

"$AXLE" superopt "$prog" --seed-from-egraph --max-states 20000 --output "$tmp/s.mug" --format json \
  > "$tmp/s.json" 2> "$tmp/s.err"
check "seeded: exit 0" [ $? -eq 0 ]
check "seeded: the graph comes from the variant eq_matmul_mul made" \
  jqt '.chosen_variant >= 1 and (.variants[.chosen_variant].rules | length) == 1
       and (.variants[.chosen_variant].rules[0] | startswith("eq_matmul_mul (rules/superopt/sums.axl:"))' "$tmp/s.json"
check "seeded: the input is variant 0, searched, with no rule" \
  jqt '.variants[0].searched and (.variants[0].rules | length) == 0' "$tmp/s.json"
check "seeded: the variant is matmul first, scale after" \
  jqt '.variants[.chosen_variant].program_text | test("= matmul\\(X, W\\)\n") and test("output O = mul\\(")' "$tmp/s.json"
check "seeded: faster than the naive graph and than the input's own best" \
  jqt '.best_time_us < .naive_time_us and .best_time_us < .variants[0].search_time_us' "$tmp/s.json"
check "seeded: the graph written is equivalent to the original program" \
  bash -c '"$0" equiv "$1" "$2" --seed 3 > "$3/eq" 2>&1' "$AXLE" "$prog" "$tmp/s.mug" "$tmp"

# the searches held to their floors (--max-states 1). No run here has a clock: which
# variant's graph wins, and whether a tile-level check finishes, must not depend on how far
# a loaded machine gets
"$AXLE" superopt "$prog" --seed-from-egraph --max-states 1 --output "$tmp/t.mug" > "$tmp/t.txt" 2>&1
check "text: exit 0" [ $? -eq 0 ]
check "text: the rule chain, with its file and line" has "$tmp/t.txt" '^    1\. eq_matmul_mul (rules/superopt/sums.axl:[0-9]*, lhs => rhs, key [0-9a-f]\{16\})$'
check "text: the variant named" has "$tmp/t.txt" 'from variant 1.*equivalent to the input; written to'

check "seeded: the input's graph, rewritten at tile level, ties the variant's" \
  jqt '.variants[0].tile_rewrites >= 1 and .variants[0].found_time_us < .variants[0].search_time_us
       and .variants[0].found_time_us == .variants[.chosen_variant].found_time_us' "$tmp/s.json"

# without eq_matmul_mul in --rules: no variant, and the tile-level rewrite alone gives the
# same graph, checked against the program
mkdir -p "$tmp/nomul"
cp rules/superopt/*.axl "$tmp/nomul/"
awk '/^rule eq_matmul_mul /{skip=1} !skip{print} skip&&/^}/{skip=0}' rules/superopt/sums.axl > "$tmp/nomul/sums.axl"
"$AXLE" superopt "$prog" --seed-from-egraph --rules "$tmp/nomul" --max-states 20000 --output "$tmp/n.mug" \
  --format json > "$tmp/n.json" 2> "$tmp/n.err"
check "tile level alone: exit 0" [ $? -eq 0 ]
check "tile level alone: the input only, its graph rewritten" \
  jqt '(.variants | length) == 1 and .chosen_variant == 0 and .variants[0].tile_rewrites >= 1' "$tmp/n.json"
check "tile level alone: matmul first, scale after, in the kernel" \
  bash -c 'grep -q "= matmul(i0, i1)" "$0" && grep -q "= mul(v[0-9a-z_]*, v[0-9]*)" "$0"' "$tmp/n.mug"
check "tile level alone: equivalent to the program" \
  bash -c '"$0" equiv "$1" "$2" --seed 5 > "$3/eq2" 2>&1' "$AXLE" "$prog" "$tmp/n.mug" "$tmp"

# Trinity's pre-norm case: RMSNorm (written out) feeding a projection; here at k = 2048 and 64
# columns (tests/superopt/prenorm_linear.axl, k = 4096, is the figure's: its checks need more
# than a test's time limit on a loaded machine). The greedy floor's one kernel normalises
# whole rows before the matmul, the tile level moves the division after it and inserts the
# k-loop. The search is held to its floor (--max-states 1): given a few seconds more it may
# find a graph as fast without the tile level, and the test is of the tile level
sed 's/4096/2048/g; s/256\]/64]/' tests/superopt/prenorm_linear.axl > "$tmp/prenorm.axl"
"$AXLE" superopt "$tmp/prenorm.axl" --seed-from-egraph --max-states 1 --output "$tmp/p.mug" \
  --format json > "$tmp/p.json" 2> "$tmp/p.err"
check "pre-norm: exit 0" [ $? -eq 0 ]
check "pre-norm: a for-loop inserted at tile level, faster than the search's graph" \
  jqt '.variants[.chosen_variant].tile_forloop > 1 and .best_time_us < .variants[.chosen_variant].search_time_us
       and .best_time_us < .search_alone_time_us' "$tmp/p.json"
check "pre-norm: the rms accumulated in the loop beside X·W, the division after" \
  bash -c 'grep -q "forloop \([2-9]\|[1-9][0-9]\)" "$0" && grep -q "fmap 1" "$0" && grep -q "= accum sum(" "$0" &&
           grep -q "= accum rms(.*, axis = 1)" "$0" && grep -q "= div(.*_acc, " "$0" && ! grep -q "rms_norm" "$0"' "$tmp/p.mug"
check "pre-norm: equivalent to the program" \
  bash -c '"$0" equiv "$2/prenorm.axl" "$1" --seed 9 > "$2/eqp" 2>&1' "$AXLE" "$tmp/p.mug" "$tmp"

# a wrong rule beside the axioms: stopped, named
mkdir -p "$tmp/wrong"
cp rules/superopt/*.axl "$tmp/wrong/"
cat > "$tmp/wrong/bad.axl" <<'AXL'
# subtraction does not commute
rule sub_comm_wrong for T in num {
  rclass x
  map s over x
  tensor X, Y : T[x: s]

  X - Y => Y - X
}
AXL
"$AXLE" superopt "$prog" --seed-from-egraph --rules "$tmp/wrong" --output "$tmp/w.mug" \
  > "$tmp/w.out" 2> "$tmp/w.err"
check "wrong rule: exit 3" [ $? -eq 3 ]
check "wrong rule: named" has "$tmp/w.err" 'sub_comm_wrong'
check "wrong rule: nothing written" [ ! -e "$tmp/w.mug" ]
"$AXLE" superopt "$prog" --seed-from-egraph --no-gate --rules "$tmp/wrong" --output "$tmp/w.mug" \
  > "$tmp/w2.out" 2> "$tmp/w2.err"
check "wrong rule, --no-gate: the seed's gate stops it (exit 3)" [ $? -eq 3 ]
check "wrong rule, --no-gate: named by the seed's gate" \
  bash -c 'grep -q "seed-from-egraph: 1 rule of .* not proved" "$0" && grep -q "sub_comm_wrong" "$0"' "$tmp/w2.err"
check "wrong rule, --no-gate: nothing written" [ ! -e "$tmp/w.mug" ]

"$AXLE" superopt "$prog" --seed-from-egraph --reach "$tmp/s.mug" > "$tmp/u.out" 2> "$tmp/u.err"
check "with --reach: a usage error (exit 3)" [ $? -eq 3 ]
check "with --reach: said" has "$tmp/u.err" 'seed-from-egraph is not used with'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
