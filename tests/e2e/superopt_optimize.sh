#!/usr/bin/env bash
# `axle optimize`: a program rewritten with a small rule directory proved on the spot (the
# default set takes minutes to prove without a warm cache). The output is written, is a
# program `axle equiv` accepts against the input, and uses the rewrites; a wrong rule in
# the directory stops the run (exit 3, named) unless --skip-unproved drops it with a
# warning; an `expect invalid` rule is skipped; a rule whose precondition fails at the
# program's values is not applied where applying it would change the result; saturation
# limits stop associativity + commutativity with a message; bad input is exit 3. Rule
# families fire on programs written to need them, each named by --explain, replayed and
# checked equivalent: products of literals folded, select of equal branches (not written:
# a comparison cannot be checked), transposes that cancel or compose, a dot with transposed
# operands, a product of matrices reassociated, slice of slice, pad of pad, slice of pad (and
# a slice of pad whose require is false at the program's offsets, not applied), reshape of
# reshape, reduce of concat, broadcast of add, a batched dot with transposed operands.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export XDG_CACHE_HOME="$tmp/cache"
mkdir -p "$tmp/rules" "$tmp/ac"

cat > "$tmp/rules/ew.axl" <<'AXL'
# x * 1 = x
rule mul_one for T in num {
  rclass x
  map s over x
  tensor A : T[x: s]

  A * 1 => A
}

# x * z + y * z = (x + y) * z
rule distrib for T in num {
  rclass x
  map s over x
  tensor X, Y, Z : T[x: s]

  X * Z + Y * Z => (X + Y) * Z
}

# sqrt(z * z) * x = z * x, for z not negative (a negative z would flip the sign)
rule sqrt_square_scale for T in real {
  rclass x
  map s over x
  tensor X : T[x: s]
  scalar z : T
  require z >= 0

  sqrt(z * z) * X => z * X
}

# subtraction does not commute: never loaded, listed as skipped
rule sub_comm_wrong for T in num expect invalid {
  rclass x
  map s over x
  tensor X, Y : T[x: s]

  X - Y => Y - X
}
AXL

cat > "$tmp/p.axl" <<'AXL'
program p {
  input A, B, C : f32[4, 8]
  let T = A * C + B * C
  output O = T * 1
}
AXL

# --- a proved directory: written, equivalent, rewritten ---
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" --output "$tmp/out.axl" >"$tmp/o1" 2>"$tmp/e1"
check "proved rules: exit 0" [ $? -eq 0 ]
check "the output is written" [ -s "$tmp/out.axl" ]
check "distributivity applied: one multiplication" \
  bash -c '[ "$(grep -c "mul(" "$0")" -eq 1 ] && grep -q "add(A, B)" "$0"' "$tmp/out.axl"
check "x * 1 applied: no multiplication by one" bash -c '! grep -q ", 1)" "$0"' "$tmp/out.axl"
check "report: each applied rule with its file:line" has "$tmp/o1" "applied distrib (.*/ew.axl:11)"
check "report: equivalent and written" has "$tmp/o1" "equivalent to the input (axle equiv, delta 2^-30); written to"
check "report: modelled cost falls (four kernels to two)" \
  awk '/^modelled cost \(h200\): / { found = 1; ok = $4 > $7 } END { exit !(found && ok) }' "$tmp/o1"
check "expect invalid: skipped, named" has "$tmp/e1" "skipped (expect invalid): .*/ew.axl:.*: sub_comm_wrong"
"$AXLE" equiv "$tmp/p.axl" "$tmp/out.axl" >"$tmp/eq" 2>&1
check "axle equiv accepts the output against the input (two programs)" [ $? -eq 0 ]
check "equiv: equivalent" has "$tmp/eq" "^equivalent"

# JSON report
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" --output "$tmp/out2.axl" --format json >"$tmp/j" 2>/dev/null
check "json: exit 0" [ $? -eq 0 ]
check "json: counts and stop reason" \
  jqt '.rules_proved == 3 and .rules_skipped == 1 and .stop == "saturated" and .equivalence == "equivalent"' "$tmp/j"
check "json: applied rules listed" jqt '[.applied[].rule] | index("distrib") != null' "$tmp/j"
check "json: second run from the cache" jqt '.results_cached == .results' "$tmp/j"

# --- --explain: the chain of proved rules, in order, each with its file:line and key ---
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" --output "$tmp/out3.axl" --explain --format json >"$tmp/jx" 2>/dev/null
check "explain: exit 0" [ $? -eq 0 ]
check "explain: x * 1, then distributivity, with their lines" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["mul_one@ew.axl:2", "distrib@ew.axl:11"]' "$tmp/jx"
check "explain: each step applied lhs => rhs, in output O" \
  jqt 'all(.explanation[]; .direction == "lhs => rhs" and .output == "O")' "$tmp/jx"
check "explain: the subterms rewritten" \
  jqt '.explanation[1].before == "add(mul(A, C), mul(B, C))" and .explanation[1].after == "mul(add(A, B), C)"' "$tmp/jx"
check "explain: the steps replayed on the input give the output" jqt '.explanation_replayed == true' "$tmp/jx"
for key in $(jq -r '.explanation[].key' "$tmp/jx"); do
  check "explain: key $key names an entry of the verify cache" \
    bash -c '[ -n "$(find "$0" -name "$1.json")" ]' "$XDG_CACHE_HOME/axle" "$key"
done
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" --output "$tmp/out4.axl" --explain >"$tmp/ox" 2>/dev/null
check "explain, text: two steps, replayed" has "$tmp/ox" "^explanation: 2 steps from the input to the output (replayed: the steps give the output)"
check "explain, text: a step" has "$tmp/ox" "^  2\. distrib (.*/ew.axl:11, lhs => rhs, key [0-9a-f]\{16\}) in O:"
check "explain: the output is the one written without it" cmp -s "$tmp/out3.axl" "$tmp/out.axl"

# --- slices and pads keep their offsets through the e-graph: x * 1 under a pad of a slice ---
cat > "$tmp/sp.axl" <<'AXL'
program sp {
  input X : f32[6, 10]
  input V : f32[1]
  let S = slice(X, start = [1, 0], limit = [6, 10], stride = [2, 3])
  output O = pad(S * 1, V, low = [1, -1], high = [0, 2], interior = [0, 1])
}
AXL
"$AXLE" optimize --rules "$tmp/rules" "$tmp/sp.axl" --output "$tmp/sp.out.axl" >"$tmp/osp" 2>&1
check "slice and pad: exit 0, equivalent and written" has "$tmp/osp" "equivalent to the input (axle equiv, delta 2^-30); written to"
check "slice and pad: x * 1 applied" bash -c '! grep -q ", 1)" "$0"' "$tmp/sp.out.axl"
check "slice and pad: the slice's lists kept" has "$tmp/sp.out.axl" "slice(X, start = \[1, 0\], limit = \[6, 10\], stride = \[2, 3\])"
check "slice and pad: the pad's lists kept" has "$tmp/sp.out.axl" "low = \[1, -1\], high = \[0, 2\], interior = \[0, 1\])"

# two slices of one tensor that differ only in their start: offsets dropped from the
# e-graph's attributes would hash-cons them into one e-node and make A - B zero
cat > "$tmp/sp2.axl" <<'AXL'
program sp2 {
  input X : f32[6, 10]
  let A = slice(X, start = [0, 0], limit = [5, 10])
  let B = slice(X, start = [1, 0], limit = [6, 10])
  output O = A * 1 - B
}
AXL
"$AXLE" optimize --rules "$tmp/rules" "$tmp/sp2.axl" --output "$tmp/sp2.out.axl" >"$tmp/osp2" 2>&1
check "two slices, other starts: equivalent and written" has "$tmp/osp2" "equivalent to the input (axle equiv, delta 2^-30); written to"
check "two slices, other starts: both kept" \
  bash -c 'grep -q "start = \[0, 0\]" "$0" && grep -q "start = \[1, 0\]" "$0"' "$tmp/sp2.out.axl"

# --- .hlo in, .hlo out: the optimized module re-imports and is equivalent ---
cat > "$tmp/m.hlo" <<'HLO'
HloModule jit_f, entry_computation_layout={(f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0})->f32[4,8]{1,0}}

ENTRY main.9 {
  Arg_0.1 = f32[4,8]{1,0} parameter(0)
  Arg_1.2 = f32[4,8]{1,0} parameter(1)
  Arg_2.3 = f32[4,8]{1,0} parameter(2)
  multiply.4 = f32[4,8]{1,0} multiply(Arg_0.1, Arg_2.3)
  multiply.5 = f32[4,8]{1,0} multiply(Arg_1.2, Arg_2.3)
  add.6 = f32[4,8]{1,0} add(multiply.4, multiply.5)
  constant.7 = f32[] constant(1)
  broadcast.8 = f32[4,8]{1,0} broadcast(constant.7), dimensions={}
  ROOT multiply.9 = f32[4,8]{1,0} multiply(add.6, broadcast.8)
}
HLO
"$AXLE" optimize --rules "$tmp/rules" "$tmp/m.hlo" --output "$tmp/m.out.hlo" >"$tmp/oh" 2>"$tmp/eh"
check ".hlo out: exit 0" [ $? -eq 0 ]
check ".hlo out: an HLO module with its ENTRY and ROOT" \
  bash -c 'head -1 "$0" | grep -q "^HloModule jit_f, entry_computation_layout=" && grep -q "^ENTRY %main {" "$0" && grep -q "^  ROOT %" "$0"' "$tmp/m.out.hlo"
check ".hlo out: rewritten (one multiply, one add)" \
  bash -c '[ "$(grep -c " multiply(" "$0")" -eq 1 ] && [ "$(grep -c " add(" "$0")" -eq 1 ]' "$tmp/m.out.hlo"
"$AXLE" import "$tmp/m.out.hlo" >"$tmp/mi" 2>&1
check ".hlo out: axle import reads it without cuts" bash -c '[ $? -eq 0 ] && ! grep -q "cut" "$0"' "$tmp/mi"
"$AXLE" equiv "$tmp/m.hlo" "$tmp/m.out.hlo" >"$tmp/meq" 2>&1
check ".hlo out: axle equiv accepts it against the input module" has "$tmp/meq" "^equivalent"
# a module with cuts is refused for an .hlo output (a .axl output is fine)
# (a custom-call is never in the vocabulary: the module keeps its cut whatever operators
# the importer learns)
cat >"$tmp/cut.hlo" <<'HLO'
HloModule jit_cut, entry_computation_layout={(f32[4,8]{1,0})->f32[4,8]{1,0}}

ENTRY %main.5 (Arg_0.1: f32[4,8]) -> f32[4,8] {
  %Arg_0.1 = f32[4,8]{1,0} parameter(0)
  %custom-call.2 = f32[4,8]{1,0} custom-call(f32[4,8]{1,0} %Arg_0.1), custom_call_target="Sharding"
  %multiply.3 = f32[4,8]{1,0} multiply(f32[4,8]{1,0} %custom-call.2, f32[4,8]{1,0} %Arg_0.1)
  ROOT %add.4 = f32[4,8]{1,0} add(f32[4,8]{1,0} %multiply.3, f32[4,8]{1,0} %Arg_0.1)
}
HLO
rm -f "$tmp/cut.out.hlo"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/cut.hlo" --output "$tmp/cut.out.hlo" >/dev/null 2>"$tmp/ec"
check ".hlo out with cuts: exit 3" [ $? -eq 3 ]
check ".hlo out with cuts: said" has "$tmp/ec" "cut.hlo: imported with 1 cut (axle import .* lists them); an HLO output would lose it: write a .axl output instead"
check ".hlo out with cuts: nothing written" [ ! -e "$tmp/cut.out.hlo" ]

# --- --extract ilp: shared subterms counted once finds the cheaper program greedy misses ---
cat > "$tmp/s.axl" <<'AXL'
program s {
  input A, B, C : f32[4, 8]
  output P = A * C
  output Q = B * C
  output O = A * C + B * C
}
AXL
"$AXLE" optimize --rules "$tmp/rules" "$tmp/s.axl" --output "$tmp/s.g.axl" --format json >"$tmp/jg" 2>/dev/null
check "greedy: exit 0, O = (A + B) * C (a tree: two kernels beside P and Q)" \
  bash -c '[ $0 -eq 0 ] && grep -q "add(A, B)" "$1"' $? "$tmp/s.g.axl"
check "greedy: the default, reported" jqt '.extraction == "greedy" and (has("ilp_status") | not)' "$tmp/jg"
if "$AXLE" --version | grep -qx 'ilp: no'; then
  # built without GLPK: the request is refused before anything runs, nothing written
  "$AXLE" optimize --rules "$tmp/rules" "$tmp/s.axl" --output "$tmp/s.i.axl" --extract ilp >"$tmp/ji" 2>"$tmp/ei"
  check "no GLPK: --extract ilp is exit 3, says why" \
    bash -c '[ $0 -eq 3 ] && grep -q "extract ilp needs GLPK, and this axle was built without it" "$1"' $? "$tmp/ei"
  check "no GLPK: nothing written" [ ! -e "$tmp/s.i.axl" ]
else
  "$AXLE" optimize --rules "$tmp/rules" "$tmp/s.axl" --output "$tmp/s.i.axl" --extract ilp --format json >"$tmp/ji" 2>/dev/null
  check "ilp: exit 0, O = P + Q (one kernel: P and Q shared)" \
    bash -c '[ $0 -eq 0 ] && grep -q "output O = add(P, Q)" "$1"' $? "$tmp/s.i.axl"
  check "ilp: optimal, reported" jqt '.extraction == "ilp" and .ilp_status == "optimal" and .ilp_variables > 0' "$tmp/ji"
  check "ilp: modelled cost below greedy's" \
    bash -c '[ "$(jq -n --slurpfile g "$0" --slurpfile i "$1" "\$i[0].cost_after_us < \$g[0].cost_after_us")" = true ]' "$tmp/jg" "$tmp/ji"
  "$AXLE" equiv "$tmp/s.axl" "$tmp/s.i.axl" >/dev/null 2>&1
  check "ilp: axle equiv accepts its output" [ $? -eq 0 ]
fi

# --- --dry-run: the report without the check, nothing written ---
"$AXLE" optimize --rules "$tmp/rules" "$tmp/s.axl" --dry-run --format json >"$tmp/jd" 2>/dev/null
check "dry run: exit 0, not checked, no output" \
  jqt '.equivalence == "not checked (--dry-run)" and (has("output") | not) and .cost_after_us < .cost_before_us' "$tmp/jd"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/s.axl" --dry-run --output "$tmp/x.axl" >/dev/null 2>"$tmp/ed"
check "dry run with --output: usage error, exit 3" bash -c '[ $0 -eq 3 ] && grep -q "no --output with it" "$1"' $? "$tmp/ed"

# --- a module with a reshape (priced at nothing by the cost model) extracts: costs stay positive ---
"$AXLE" optimize --rules "$tmp/rules" tests/hlo/softmax.hlo --output "$tmp/sm.axl" >/dev/null 2>"$tmp/esm"
check "softmax.hlo (a reshape): exit 0, written" bash -c '[ $0 -eq 0 ] && [ -s "$1" ]' $? "$tmp/sm.axl"

# --- a precondition false at the program's values is not applied ---
cat > "$tmp/neg.axl" <<'AXL'
program neg {
  input A : f32[4, 8]
  output O = exp(sqrt(-2 * -2) * A)
}
AXL
sed 's/-2/2/g; s/program neg/program pos/' "$tmp/neg.axl" > "$tmp/pos.axl"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/neg.axl" --output "$tmp/neg.out.axl" >"$tmp/o2" 2>&1
check "z = -2: exit 0" [ $? -eq 0 ]
check "z = -2: sqrt_square_scale not applied (it would give -2 * A)" \
  bash -c 'grep -q "sqrt(" "$0" && ! grep -q "applied sqrt_square_scale" "$1"' "$tmp/neg.out.axl" "$tmp/o2"
check "z = -2: the refusal is counted" has "$tmp/o2" "[1-9][0-9]* with a require false"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/pos.axl" --output "$tmp/pos.out.axl" >"$tmp/o3" 2>&1
check "z = 2: applied" bash -c 'grep -q "mul(2, A)" "$0" && ! grep -q "sqrt(" "$0"' "$tmp/pos.out.axl"

# --- an unproved rule stops the run; --skip-unproved drops it ---
cp "$tmp/rules/ew.axl" "$tmp/ac/ew.axl"
cat > "$tmp/ac/wrong.axl" <<'AXL'
# not a law: x - y = y - x
rule sub_comm for T in num {
  rclass x
  map s over x
  tensor X, Y : T[x: s]

  X - Y => Y - X
}
AXL
rm -f "$tmp/bad.out.axl"
"$AXLE" optimize --rules "$tmp/ac" "$tmp/p.axl" --output "$tmp/bad.out.axl" >"$tmp/o4" 2>"$tmp/e4"
check "INVALID rule: exit 3" [ $? -eq 3 ]
check "INVALID rule: named with its verdict" has "$tmp/e4" "wrong.axl:2: sub_comm \[int\] invalid"
check "INVALID rule: how to go on" has "$tmp/e4" "pass --skip-unproved"
check "INVALID rule: nothing written" [ ! -e "$tmp/bad.out.axl" ]
"$AXLE" optimize --skip-unproved --rules "$tmp/ac" "$tmp/p.axl" --output "$tmp/skip.out.axl" >"$tmp/o5" 2>"$tmp/e5"
check "--skip-unproved: exit 0" [ $? -eq 0 ]
check "--skip-unproved: a warning names the rule" has "$tmp/e5" "warning: optimize: dropped, not proved: .*sub_comm"
check "--skip-unproved: written" [ -s "$tmp/skip.out.axl" ]

# --- associativity + commutativity grow without bound: the node limit stops them ---
cat > "$tmp/ac/wrong.axl" <<'AXL'
rule add_comm for T in num {
  rclass x
  map s over x
  tensor X, Y : T[x: s]

  X + Y => Y + X
}

rule add_assoc for T in num {
  rclass x
  map s over x
  tensor X, Y, Z : T[x: s]

  X + (Y + Z) => X + Y + Z
}
AXL
cat > "$tmp/sum.axl" <<'AXL'
program sum {
  input A, B, C, D, E, F, G, H : f32[4, 8]
  output O = A + B + C + D + E + F + G + H
}
AXL
timeout 300 "$AXLE" optimize --rules "$tmp/ac" "$tmp/sum.axl" --output "$tmp/sum.out.axl" --node-limit 2000 \
  >"$tmp/o6" 2>"$tmp/e6"
check "assoc + comm: exit 0 (no hang)" [ $? -eq 0 ]
check "assoc + comm: stopped at the node limit, said so" \
  has "$tmp/e6" "saturation stopped at the node limit"
check "assoc + comm: the output is still checked and written" [ -s "$tmp/sum.out.axl" ]

# --- an HLO module is read like a program ---
"$AXLE" optimize --rules "$tmp/rules" tests/hlo/layernorm.hlo --output "$tmp/ln.axl" >"$tmp/o7" 2>&1
check "HLO module: exit 0" [ $? -eq 0 ]
"$AXLE" equiv tests/hlo/layernorm.hlo "$tmp/ln.axl" >/dev/null 2>&1
check "HLO module: axle equiv accepts the output against the module" [ $? -eq 0 ]

# --- bad input ---
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" >"$tmp/u1" 2>&1
check "no --output: exit 3" [ $? -eq 3 ]
check "no --output: usage" has "$tmp/u1" "optimize needs --output OUT.axl"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/p.axl" --output "$tmp/x.mug" >"$tmp/u2" 2>&1
check "output not .axl: exit 3" [ $? -eq 3 ]
"$AXLE" optimize --rules "$tmp/none" "$tmp/p.axl" --output "$tmp/x.axl" >"$tmp/u3" 2>&1
check "unreadable rules directory: exit 3" [ $? -eq 3 ]
check "unreadable rules directory: named" has "$tmp/u3" "none: cannot read the directory"
mkdir -p "$tmp/broken" && printf 'rule r for T in num {\n  X + => X\n}\n' > "$tmp/broken/r.axl"
"$AXLE" optimize --skip-unproved --rules "$tmp/broken" "$tmp/p.axl" --output "$tmp/x.axl" >"$tmp/u4" 2>&1
check "a rule file that does not parse: exit 3 even with --skip-unproved" [ $? -eq 3 ]
check "a rule file that does not parse: named" has "$tmp/u4" "r.axl: does not parse"
printf 'program p {\n  input A : f32[4]\n  output O = exp(B)\n}\n' > "$tmp/badp.axl"
"$AXLE" optimize --rules "$tmp/rules" "$tmp/badp.axl" --output "$tmp/x.axl" >"$tmp/u5" 2>&1
check "a program in error: exit 3" [ $? -eq 3 ]
check "a program in error: located" has "$tmp/u5" "badp.axl:3:"
check "nothing written on bad input" [ ! -e "$tmp/x.axl" ]

# --- rule families on programs written to need them (a small directory proved here) ---
mkdir -p "$tmp/fam"
cat > "$tmp/fam/fam.axl" <<'AXL'
# select(P, A, A) = A
rule select_same for T in any {
  rclass x
  map s over x
  tensor P : bool[x: s]
  tensor A : T[x: s]

  select(P, A, A) => A
}

# (x * c) * d = x * (c * d)
rule assoc_const for T in real {
  rclass x
  map s over x
  tensor A : T[x: s]
  scalar c, d : T

  (A * c) * d => A * (c * d)
}
AXL
cat > "$tmp/fam/relabel.axl" <<'AXL'
# two renamings are one
rule relabel_compose for T in any {
  rclass c
  axes x1, x2, x3 : c
  map s over c
  tensor A : T[x1: s]

  relabel(relabel(A, {x1: x2}), {x2: x3}) => relabel(A, {x1: x3})
}

# renaming an axis to itself
rule relabel_identity for T in any {
  rclass x
  map s over x
  tensor A : T[x: s]

  relabel(A, {x: x}) => A
}
AXL
# transposes that cancel: the permutations compose to the identity, then the identity goes
cat > "$tmp/tr.axl" <<'AXL'
program t {
  input A : f32[4, 8, 2]
  let T1 = transpose(A, [2, 0, 1])
  let T2 = transpose(T1, [1, 2, 0])
  output O = T2 * 2
}
AXL
"$AXLE" optimize --rules "$tmp/fam" "$tmp/tr.axl" --output "$tmp/tr_out.axl" --explain --format json >"$tmp/jt" 2>/dev/null
check "transposes that cancel: exit 0, written without a transpose" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = mul(A, 2)" "$1" && ! grep -q transpose "$1"' $? "$tmp/tr_out.axl"
check "transposes that cancel: explain composes, then drops the identity, replayed, equivalent" \
  jqt '[.explanation[].rule] == ["relabel_compose", "relabel_identity"]
       and .explanation[0].after == "transpose(A, [0, 1, 2])" and .explanation[1].after == "A"
       and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jt"
# transposes that do not cancel: one transpose, the composition
sed 's/\[2, 0, 1\]/[1, 0, 2]/; s/\[1, 2, 0\]/[0, 2, 1]/' "$tmp/tr.axl" >"$tmp/tr2.axl"
"$AXLE" optimize --rules "$tmp/fam" "$tmp/tr2.axl" --output "$tmp/tr2_out.axl" >"$tmp/ot2" 2>&1
check "transposes composed: exit 0, one transpose by the composed permutation, equivalent" \
  bash -c '[ $0 -eq 0 ] && [ "$(grep -c transpose "$1")" -eq 1 ] && grep -q "transpose(A, \[1, 2, 0\])" "$1"' $? "$tmp/tr2_out.axl"
cat > "$tmp/fam/dot.axl" <<'AXL'
# A(BC) = (AB)C
rule dot_assoc for T in num {
  rclass w, x, y, z
  map sw over w
  map sx over x
  map sy over y
  map sz over z
  index i, i' over x
  index j, j' over y
  tensor A : T[w: sw, x: sx]
  tensor B : T[x: sx, y: sy]
  tensor C : T[y: sy, z: sz]

  dot(A, dot(B, C, contract={y: j}), contract={x: i}) =>
    dot(dot(A, B, contract={x: i'}), C, contract={y: j'})
}
AXL
cat > "$tmp/fam/dotc.axl" <<'AXL'
# with named axes the product commutes: AB = (B^T A^T)^T for matrices
rule dot_commute for T in num {
  rclass c, m, n
  map sc over c
  map sm over m
  map sn over n
  index i, j over c
  tensor A : T[m: sm, c: sc]
  tensor B : T[c: sc, n: sn]

  dot(A, B, contract={c: i}) => dot(B, A, contract={c: j})
}
AXL
# dot with transposed operands: (B^T A^T)^T becomes A·B
cat > "$tmp/dt.axl" <<'AXL'
program d {
  input A : f32[16, 8]
  input B : f32[8, 32]
  let P = matmul(transpose(B, [1, 0]), transpose(A, [1, 0]))
  output O = transpose(P, [1, 0])
}
AXL
"$AXLE" optimize --rules "$tmp/fam" "$tmp/dt.axl" --output "$tmp/dt_out.axl" --explain --format json >"$tmp/jd" 2>/dev/null
check "dot with transposed operands: exit 0, A·B written without a transpose" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = matmul(A, B)" "$1" && ! grep -q transpose "$1"' $? "$tmp/dt_out.axl"
check "dot with transposed operands: explain names dot_commute, replayed, equivalent" \
  jqt '([.explanation[].rule] | index("dot_commute") != null) and .explanation_replayed == true
       and .equivalence == "equivalent"' "$tmp/jd"
# dot as matmul: (A·B)·C with a wide A·B becomes A·(B·C), modelled faster
cat > "$tmp/mm.axl" <<'AXL'
program d {
  input A : f32[512, 8]
  input B : f32[8, 512]
  input C : f32[512, 8]
  let AB = matmul(A, B)
  output O = matmul(AB, C)
}
AXL
"$AXLE" optimize --rules "$tmp/fam" "$tmp/mm.axl" --output "$tmp/mm_out.axl" --explain --format json >"$tmp/jm" 2>/dev/null
check "matrix product reassociated: exit 0, A·(B·C) written" \
  bash -c '[ $0 -eq 0 ] && grep -q "matmul(B, C)" "$1" && grep -q "output O = matmul(A, " "$1"' $? "$tmp/mm_out.axl"
check "matrix product: explain names dot_assoc reversed, replayed, equivalent, cost falls" \
  jqt '[.explanation[] | .rule + " " + .direction] == ["dot_assoc rhs => lhs"]
       and .explanation_replayed == true and .equivalence == "equivalent" and .cost_after_us < .cost_before_us' "$tmp/jm"
# reduce of concat: a sum along the concatenation axis is the sum of the parts' sums
mkdir -p "$tmp/rc"
cat > "$tmp/rc/concat.axl" <<'AXL'
# summing a concatenation along its axis sums each part (XLA's reduce of concat)
rule sum_of_concat for T in num {
  rclass c, y
  map a, b over c
  map t over y
  tensor X : T[c: a, y: t]
  tensor Y : T[c: b, y: t]

  reduce(concat(X, Y, axis=c), [c]) => reduce(X, [c]) + reduce(Y, [c])
}
AXL
"$AXLE" optimize --rules "$tmp/rc" tests/superopt/optimize/reduce_of_concat.axl --output "$tmp/rc_out.axl" --explain --format json >"$tmp/jrc" 2>/dev/null
check "reduce of concat: exit 0, one sum of the concatenation written" \
  bash -c '[ $0 -eq 0 ] && grep -q "concat(X, Y, axis = 1)" "$1" && [ "$(grep -c "sum(" "$1")" -eq 1 ]' $? "$tmp/rc_out.axl"
check "reduce of concat: explain names sum_of_concat reversed with its line, replayed, equivalent" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; "")) + " " + .direction] == ["sum_of_concat@concat.axl:2 rhs => lhs"]
       and .explanation_replayed == true and .equivalence == "equivalent" and .cost_after_us < .cost_before_us' "$tmp/jrc"
# broadcast: the new axis is the dimension the broadcast grows (size 1 in its operand)
cat > "$tmp/rc/broadcast.axl" <<'AXL'
# adding two broadcasts along one new axis is broadcasting the sum (XLA's broadcast of add)
rule broadcast_add for T in num {
  rclass x, y
  map s over x
  map t over y
  tensor A, B : T[x: s]

  broadcast(A, {y: t}) + broadcast(B, {y: t}) => broadcast(A + B, {y: t})
}
AXL
"$AXLE" optimize --rules "$tmp/rc" tests/superopt/optimize/broadcast_add.axl --output "$tmp/bc_out.axl" --explain --format json >"$tmp/jbc" 2>/dev/null
check "broadcast of add: exit 0, one broadcast of the sum written" \
  bash -c '[ $0 -eq 0 ] && grep -q "broadcast(e[0-9]*, \[4, 8\])" "$1" && [ "$(grep -c "broadcast(" "$1")" -eq 1 ]' $? "$tmp/bc_out.axl"
check "broadcast of add: explain names broadcast_add with its line, replayed, equivalent" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["broadcast_add@broadcast.axl:2"]
       and .explanation_replayed == true and .equivalence == "equivalent" and .cost_after_us < .cost_before_us' "$tmp/jbc"
# batched dot: the batch axis is the program's leading dimension, the transposes keep it
mkdir -p "$tmp/bd"
cp "$tmp/fam/relabel.axl" "$tmp/bd/"
cat > "$tmp/bd/dot.axl" <<'AXL'
# with named axes a batched product commutes (XLA's dot with a batch dimension)
rule dot_commute_batched for T in num {
  rclass c, bt, m, n
  map sc over c
  map sb over bt
  map sm over m
  map sn over n
  index i, j over c
  tensor A : T[c: sc, bt: sb, m: sm]
  tensor B : T[c: sc, bt: sb, n: sn]

  dot(A, B, contract={c: i}, batch=[bt]) => dot(B, A, contract={c: j}, batch=[bt])
}
AXL
"$AXLE" optimize --rules "$tmp/bd" tests/superopt/optimize/batched_dot_transposed.axl --output "$tmp/bd_out.axl" --explain --format json >"$tmp/jbd" 2>/dev/null
check "batched dot with transposed operands: exit 0, A·B written without a transpose" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = matmul(A, B)" "$1" && ! grep -q "transpose(" "$1"' $? "$tmp/bd_out.axl"
check "batched dot: explain names dot_commute_batched with its line, replayed, equivalent, saturated" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["dot_commute_batched@dot.axl:2"]
       and .explanation_replayed == true and .equivalence == "equivalent" and .stop == "saturated"' "$tmp/jbd"
# products of literals: associativity builds 2 * 3, constant folding makes it 6
cat > "$tmp/fold.axl" <<'AXL'
program f {
  input A : f32[4, 8]
  let T = A * 2
  output O = T * 3
}
AXL
"$AXLE" optimize --rules "$tmp/fam" "$tmp/fold.axl" --output "$tmp/fold_out.axl" --explain --format json >"$tmp/jf" 2>"$tmp/ef"
check "folding: exit 0, written, equivalent" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = mul(A, 6)" "$1"' $? "$tmp/fold_out.axl"
check "folding: explain names associativity, then the fold 2 * 3 = 6, and replays" \
  jqt '[.explanation[].rule] == ["assoc_const", "constant folding"] and .explanation[1].before == "mul(2, 3)"
       and .explanation[1].after == "6" and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jf"
# select of equal branches: fires (--dry-run: `axle equiv` cannot decide a comparison, so a
# program with a select mask is never written)
cat > "$tmp/sel.axl" <<'AXL'
program s {
  input A, B, C : f32[4, 8]
  let M = lt(A, B)
  output O = select(M, C * 2, C * 2)
}
AXL
"$AXLE" optimize --rules "$tmp/fam" "$tmp/sel.axl" --dry-run --explain --format json >"$tmp/js" 2>/dev/null
check "select of equal branches: explain names select_same, the select is gone" \
  jqt '[.explanation[].rule] == ["select_same"] and .explanation[0].before == "select(lt(A, B), mul(C, 2), mul(C, 2))"
       and .explanation[0].after == "mul(C, 2)" and .explanation_replayed == true' "$tmp/js"

# --- slices and pads: offsets bound per dimension, requires evaluated on them ---
mkdir -p "$tmp/sl"
cat > "$tmp/sl/slice.axl" <<'AXL'
# unit-stride slices compose (XLA's slice of slice)
rule slice_slice for T in any {
  rclass x
  map s, start1, end1, stride1, start2, end2, stride2 over x
  tensor A : T[x: s]
  require stride2 == 1
  require stride1 == 1

  slice(slice(A, start={x: start1}, end={x: end1}, stride={x: stride1}), start={x: start2},
        end={x: end2}, stride={x: stride2}) =>
    slice(A, start={x: start2 + start1}, end={x: end2 + start1}, stride={x: stride1})
}

# a slice that takes exactly A's elements back out of its padding (XLA's slice of pad)
rule slice_pad_inverse for T in any {
  rclass x
  map s, low, high, ip over x nonneg
  map start, end, stride over x
  tensor A : T[x: s]
  scalar a : T
  require start == low
  require stride == ip + 1
  require end == s + low + (s - 1) * ip

  slice(pad(A, a, low={x: low}, interior={x: ip}, high={x: high}), start={x: start}, end={x: end},
        stride={x: stride}) => A
}

# edge paddings by one value add up (pad of pad; edges not negative, no interior)
rule pad_pad for T in any {
  rclass x
  map s over x
  map low1, high1, low2, high2 over x nonneg
  tensor A : T[x: s]
  scalar a : T

  pad(pad(A, a, low={x: low1}, high={x: high1}), a, low={x: low2}, high={x: high2}) =>
    pad(A, a, low={x: low1 + low2}, high={x: high1 + high2})
}
AXL
cat > "$tmp/sl/reshape.axl" <<'AXL'
# a row-major split of every dimension merged back (XLA's no-op reshape of a reshape)
rule merge_of_split for T in any {
  rclass x
  axes xh, xl : x
  map s, t over x
  tensor A : T[x: s]
  require t >= 1, s % t == 0

  reshape_merge(reshape_split(A, {x: t}, [xh, xl]), [xh, xl], x) => A
}
AXL
# reshape of reshape: [8, 6] -> [2, 4, 3, 2] -> [8, 6] is X
"$AXLE" optimize --rules "$tmp/sl" tests/superopt/optimize/reshape_of_reshape.axl --output "$tmp/rr_out.axl" --explain --format json >"$tmp/jrr" 2>/dev/null
check "reshape of reshape: exit 0, X * 2 written without a reshape" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = mul(X, 2)" "$1" && ! grep -q "reshape(" "$1"' $? "$tmp/rr_out.axl"
check "reshape of reshape: explain names merge_of_split with its line, replayed, equivalent" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["merge_of_split@reshape.axl:2"]
       and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jrr"
# slice of slice: the starts add up
"$AXLE" optimize --rules "$tmp/sl" tests/superopt/optimize/slice_of_slice.axl --output "$tmp/ss_out.axl" --explain --format json >"$tmp/jss" 2>/dev/null
check "slice of slice: exit 0, one slice by the composed bounds" \
  bash -c '[ $0 -eq 0 ] && [ "$(grep -c "slice(" "$1")" -eq 1 ] && grep -q "slice(X, start = \[3, 1\], limit = \[6, 4\], stride = \[1, 1\])" "$1"' $? "$tmp/ss_out.axl"
check "slice of slice: explain names slice_slice with its line, replayed, equivalent" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["slice_slice@slice.axl:2"]
       and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jss"
# pad of pad: the edges add up
"$AXLE" optimize --rules "$tmp/sl" tests/superopt/optimize/pad_of_pad.axl --output "$tmp/pp_out.axl" --explain --format json >"$tmp/jpp" 2>/dev/null
check "pad of pad: exit 0, one pad by the summed edges" \
  bash -c '[ $0 -eq 0 ] && [ "$(grep -c "pad(" "$1")" -eq 1 ] && grep -q "pad(X, 0, low = \[3, 1\], high = \[1, 2\]" "$1"' $? "$tmp/pp_out.axl"
check "pad of pad: explain names pad_pad with its line, replayed, equivalent" \
  jqt '[.explanation[] | .rule + "@" + (.at | sub(".*/"; ""))] == ["pad_pad@slice.axl:30"]
       and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jpp"
# slice of pad that takes A back (start = low, stride = interior + 1, the end after A's last)
"$AXLE" optimize --rules "$tmp/sl" tests/superopt/optimize/slice_of_pad.axl --output "$tmp/spi_out.axl" --explain --format json >"$tmp/jspi" 2>/dev/null
check "slice of pad: exit 0, X * 2 written, explain names slice_pad_inverse, equivalent" \
  bash -c '[ $0 -eq 0 ] && grep -q "output O = mul(X, 2)" "$1"' $? "$tmp/spi_out.axl"
check "slice of pad: explained and replayed" \
  jqt '[.explanation[].rule] == ["slice_pad_inverse"] and .explanation_replayed == true and .equivalence == "equivalent"' "$tmp/jspi"
# the same shapes, but the slice starts one later: it reads padding, not X (start != low);
# applying the rule would write X * 2 — its require is false at these values, so nothing is
# applied and the input is written unchanged
"$AXLE" optimize --rules "$tmp/sl" tests/superopt/optimize/slice_of_pad_off.axl --output "$tmp/spf_out.axl" >"$tmp/ospf" 2>&1
check "slice of pad, require false at the program's values: exit 0, not applied, equivalent" \
  bash -c '[ $0 -eq 0 ] && ! grep -q "applied slice_pad_inverse" "$1" && grep -q "1 with a require false" "$1" &&
           grep -q "equivalent to the input" "$1" && grep -q "slice(e2, start = \[2, 0\], limit = \[9, 3\]" "$2"' $? "$tmp/ospf" "$tmp/spf_out.axl"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
