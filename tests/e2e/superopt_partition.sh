#!/usr/bin/env bash
# axle superopt MODULE --output-dir DIR (superopt/search/partition.h): a whole module split
# into regions, each searched under a state budget (--max-states, one thread: the same
# regions' graphs at any speed; the module's 600 s only bound a hung run).
#   * the pre-norm decoder block of tests/hlo (JAX's format): exit 0, every region's
#     program (R.axl) and every written graph (R.mug) in DIR, and every graph passes
#     `axle equiv` against its region's program; the module's graph (module.mug, the
#     regions' graphs in place) was checked by superopt against the module's program cut
#     at the transposes (partition.h: the attention's exp and the MLP's logistic lie on
#     one path, outside what one field test decides, which `axle equiv` of the whole says);
#     report.json and --format json agree, HLO lines per region, the text table;
#   * a program with layout operators (tests/superopt/partition_layout.axl): the reshapes
#     are cut points, regions stay convex (F, which reads A directly and through a reshape,
#     is its own region after the reshape), --max-region-ops splits a region;
#   * no region (every operator a cut point): exit 1, the module still written;
#   * bad input: DIR is a file, DIR cannot be created, DIR not writable, an empty module,
#     --output-dir with --output: exit 3 with a message, nothing searched.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
S=("$AXLE" superopt --no-gate --progress never --jobs 1 --max-states 100000 --time-limit 600)

# 1. the decoder block
"${S[@]}" tests/hlo/decoder_block.hlo --output-dir "$tmp/d" > "$tmp/out" 2> "$tmp/err"
check "decoder: exit 0" test $? -eq 0
check "decoder: the table" has "$tmp/out" "^region  HLO lines"
check "decoder: the module line" has "$tmp/out" "^module: naive .* us, found .* us modelled on h200"
check "decoder: no cut in the import" test "$(grep -c 'imported with' "$tmp/err")" -eq 0
check "decoder: report.json" jqt '.program == "jit_decoder_block" and .status == 0 and .cuts == 0 and (.regions | length) >= 4' "$tmp/d/report.json"
check "decoder: the transposes stay pre-defined" test "$(grep -c ' = transpose(' "$tmp/d/module.mug")" -eq 4
check "decoder: the attention's softmax is in a region" bash -c "grep -l 'exp(' $tmp/d/r*.axl | grep -q ."
check "decoder: every region has its program" jqt 'all(.regions[]; .program == (.name + ".axl"))' "$tmp/d/report.json"
check "decoder: verdicts" jqt 'all(.regions[]; (.verdict == "equivalent" and .graph == (.name + ".mug") and .found_time_us < .naive_time_us) or (.verdict == "none" and .graph == null and (.reason | length) > 0))' "$tmp/d/report.json"
check "decoder: some region fused" jqt '[.regions[] | select(.verdict == "equivalent")] | length >= 1' "$tmp/d/report.json"
check "decoder: HLO lines" jqt 'all(.regions[]; .lines | test("^[0-9][0-9,-]*$"))' "$tmp/d/report.json"
check "decoder: ranks are a permutation" jqt '[.regions[].rank] | sort == [range(1; length + 1)]' "$tmp/d/report.json"
check "decoder: the module is faster" jqt '.found_time_us < .naive_time_us' "$tmp/d/report.json"
for r in $(jq -r '.regions[].name' "$tmp/d/report.json"); do
  check "decoder: $r.axl written" test -s "$tmp/d/$r.axl"
  if [ -e "$tmp/d/$r.mug" ]; then
    "$AXLE" equiv "$tmp/d/$r.axl" "$tmp/d/$r.mug" --seed 5 > "$tmp/eq" 2>&1
    check "decoder: $r.mug is equivalent to $r.axl" test $? -eq 0
  fi
done
"$AXLE" equiv "$tmp/d/module.axl" "$tmp/d/module.mug" --seed 5 > "$tmp/eq" 2>&1
check "decoder: module.mug as a whole is outside the Lax fragment (exit 3)" test $? -eq 3
check "decoder: ... and equiv says why" has "$tmp/eq" "outside the Lax"
"${S[@]}" tests/hlo/decoder_block.hlo --output-dir "$tmp/dj" --format json > "$tmp/j.json" 2> /dev/null
check "json: exit 0" test $? -eq 0
check "json: stdout is report.json" jqt --slurpfile r "$tmp/dj/report.json" '.regions | map(.name) == ($r[0].regions | map(.name))' "$tmp/j.json"

# 2. layout operators are cut points; regions stay convex
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/l" > "$tmp/out" 2> /dev/null
check "layout: exit 0" test $? -eq 0
check "layout: three regions, two cut points" jqt '(.regions | length) == 3 and .left_operators == 2' "$tmp/l/report.json"
check "layout: program lines" jqt '[.regions[].lines] == ["8-9", "11-12", "14"]' "$tmp/l/report.json"
check "layout: r01 is A and B" has "$tmp/l/r01.axl" "let A = matmul(X, W)"
check "layout: r01 gives A and B" test "$(grep -c '^  output' "$tmp/l/r01.axl")" -eq 2
check "layout: r03 is F alone" test "$(grep -c '^  let' "$tmp/l/r03.axl")" -eq 1
check "layout: r03 reads the reshape" has "$tmp/l/r03.axl" "input R : f32\[64, 64\]"
check "layout: the reshapes stay pre-defined" test "$(grep -c ' = reshape(' "$tmp/l/module.mug")" -eq 2
"$AXLE" equiv "$tmp/l/module.axl" "$tmp/l/module.mug" --seed 5 > /dev/null 2>&1
check "layout: module.mug is equivalent" test $? -eq 0
"$AXLE" equiv tests/superopt/partition_layout.axl "$tmp/l/module.mug" --seed 5 > /dev/null 2>&1
check "layout: module.mug is equivalent to the program itself" test $? -eq 0
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/l1" --max-region-ops 1 > /dev/null 2>&1
check "--max-region-ops 1: exit 1 (one operator fuses with nothing)" test $? -eq 1
check "--max-region-ops 1: one operator a region" jqt '(.regions | length) == 6 and all(.regions[]; .operators == 1 and .verdict == "none")' "$tmp/l1/report.json"
"$AXLE" equiv tests/superopt/partition_layout.axl "$tmp/l1/module.mug" --seed 5 > /dev/null 2>&1
check "--max-region-ops 1: module.mug is equivalent" test $? -eq 0

# 3. no region
"${S[@]}" tests/superopt/partition_layout_only.axl --output-dir "$tmp/n" > "$tmp/out" 2> /dev/null
check "no region: exit 1" test $? -eq 1
check "no region: said" has "$tmp/out" "^no region: no operator the search handles"
check "no region: report" jqt '.regions == [] and .status == 1 and .left_operators == 1' "$tmp/n/report.json"
check "no region: the module's graph" test -s "$tmp/n/module.mug"

# 4. bad input: exit 3, a message, nothing written
touch "$tmp/file"
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/file" > "$tmp/out" 2> "$tmp/err"
check "DIR is a file: exit 3" test $? -eq 3
check "DIR is a file: the message" has "$tmp/err" "output-dir $tmp/file is not a directory"
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/no/such" > "$tmp/out" 2> "$tmp/err"
check "DIR cannot be created: exit 3" test $? -eq 3
check "DIR cannot be created: the message" has "$tmp/err" "cannot create --output-dir $tmp/no/such"
if [ "$(id -u)" != 0 ]; then   # root writes anywhere
  mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
  "${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/ro" > "$tmp/out" 2> "$tmp/err"
  check "DIR not writable: exit 3" test $? -eq 3
  check "DIR not writable: the message" has "$tmp/err" "output-dir $tmp/ro is not writable"
  check "DIR not writable: nothing written" test -z "$(ls "$tmp/ro")"
fi
"${S[@]}" tests/hlo/bad/empty.hlo --output-dir "$tmp/e" > "$tmp/out" 2> "$tmp/err"
check "empty module: exit 3" test $? -eq 3
check "empty module: a located error" has "$tmp/err" "tests/hlo/bad/empty.hlo:1:1: error:"
check "empty module: no report" test ! -e "$tmp/e/report.json"
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/x" --output "$tmp/x.mug" > /dev/null 2> "$tmp/err"
check "--output-dir with --output: exit 3" test $? -eq 3
check "--output-dir with --output: the message" has "$tmp/err" "is not used with --output"
"${S[@]}" tests/superopt/partition_layout.axl --output-dir "$tmp/x" --max-region-ops 0 > /dev/null 2> "$tmp/err"
check "--max-region-ops 0: exit 3" test $? -eq 3
# a region the search refuses (abs needs an order) and an abs that stays a pre-defined
# kernel: the joined graph is checked cut at it, so the run ends "nothing better" (exit 1)
# with the region's reason, not with the joined graph refused (exit 3)
"${S[@]}" tests/hlo/lpnorm.hlo --output-dir "$tmp/lp" > "$tmp/out" 2> "$tmp/err"
check "abs kept as a kernel: exit 1" test $? -eq 1
check "abs kept as a kernel: the region's reason" has "$tmp/out" "cannot search a program that uses abs: it needs an order"
check "abs kept as a kernel: the module graph written" test -s "$tmp/lp/module.mug"

echo "superopt_partition: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
