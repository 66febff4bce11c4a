#!/usr/bin/env bash
# The TensorRight comparison (tools/tensorright-table.sh): every rule of rules/xla carries
# exactly one `# tensorright: CLASS — REASON` tag with a known class, and the script turns a
# verification run into the class table and headline (checked on a hand-written corpus and
# run, with the numbers asserted), and rejects missing, unknown and doubled tags.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

# --- the corpus: one tag per rule, directly above it, with a known class
classes='faithful|generalized|strengthened|corrected|trivial'
n_rules=$(cat rules/xla/*.axl | grep -c '^rule[[:space:]]')
n_tags=$(cat rules/xla/*.axl | grep -c '^# tensorright:')
n_good=$(awk -v re="^# tensorright: ($classes) — [^ ]" '
  FNR == 1 { prev = "" }
  /^rule[ \t]/ && prev ~ re { n++ }
  { prev = $0 }
  END { print n + 0 }' rules/xla/*.axl)
check "corpus: rules/xla has the 118 rules and the generalized fold" [ "$n_rules" = 119 ]
check "corpus: one tag per rule ($n_tags tags, $n_rules rules)" [ "$n_tags" = "$n_rules" ]
check "corpus: every rule has a well-formed tag directly above it ($n_good)" [ "$n_good" = "$n_rules" ]
check "corpus: concat_01 (expect trivial) is tagged trivial" \
  sh -c "grep -B1 '^rule concat_01_list_binary' rules/xla/concat.axl | grep -q '^# tensorright: trivial'"
check "corpus: only concat_01 is tagged trivial" \
  [ "$(cat rules/xla/*.axl | grep -c '^# tensorright: trivial')" = 1 ]

if ! command -v jq > /dev/null; then
  echo "SKIP: tensorright table (jq missing; make deps installs it)"
  echo "tensorright table: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]; exit
fi

# the real corpus's tags are accepted (one made-up result is enough to run the script)
echo '{"rule":"add_01_assoc_const","type":"int","verdict":"verified","trivial":false}' > "$tmp/one.json"
tools/tensorright-table.sh "$tmp/one.json" > "$tmp/real.md" 2> "$tmp/real.err"; st=$?
check "corpus: the script accepts the tags (exit $st)" [ "$st" = 0 ]
check "corpus: headline over TensorRight's 118 rules" has "$tmp/real.md" "Of TensorRight's 118 XLA rules, axle states "
check "corpus: 117 non-trivial" has "$tmp/real.md" " of the 117 non-trivial ones are VERIFIED"
check "corpus: rules without a result are reported" has "$tmp/real.err" "warning: 118 tagged rules have no result"

# --- a hand-written corpus and run
mkdir -p "$tmp/rules"
cat > "$tmp/rules/a.axl" <<'EOF'
# header comment
# tensorright: faithful — as TensorRight states it
rule add_01_a for T in num {
}

# Comment about the rule.
# tensorright: faithful — as TensorRight states it
rule add_02_b for T in num {
}

# tensorright: faithful — as TensorRight states it
rule divmod_07_c {
}

# tensorright: generalized — any predicate
rule select_04_d for T in any {
}

# tensorright: strengthened — needs B != 0
rule divmod_03_e {
}

# tensorright: corrected — compares the left side with itself
rule dot_03_f for T in num {
}

# tensorright: trivial — both sides the same term
rule concat_01_g for T in any expect trivial {
}

# tensorright: faithful — as TensorRight states it
rule sub_00_h for T in num {
}
EOF
cat > "$tmp/rules/generalize.axl" <<'EOF'
# tensorright: faithful — as TensorRight states it
rule generalize_x for T in num {
}
EOF
cat > "$tmp/run.json" <<'EOF'
{"rule":"add_01_a","type":"int","verdict":"verified","trivial":false}
{"rule":"add_01_a","type":"real","verdict":"verified","trivial":false}
{"rule":"add_02_b","type":"int","verdict":"verified","trivial":false}
{"rule":"add_02_b","type":"real","verdict":"unknown","trivial":false}
{"rule":"divmod_07_c","type":null,"verdict":"verified","trivial":false}
{"rule":"select_04_d","type":"bool","verdict":"verified","trivial":false}
{"rule":"select_04_d","type":"int","verdict":"verified","trivial":false}
{"rule":"divmod_03_e","type":null,"verdict":"invalid","trivial":false}
{"rule":"dot_03_f","type":"int","verdict":"verified","trivial":false}
{"rule":"concat_01_g","type":"bool","verdict":"verified","trivial":true}
{"rule":"generalize_x","type":"int","verdict":"verified","trivial":false}
{"rule":"generalize_x","type":"real","verdict":"verified","trivial":false}
EOF
tools/tensorright-table.sh --rules "$tmp/rules" "$tmp/run.json" > "$tmp/t.md" 2> "$tmp/t.err"; st=$?
check "table: exit 0" [ "$st" = 0 ]
check "table: a markdown section" grep -q '^## ' "$tmp/t.md"
check "table: header" has "$tmp/t.md" '^| class | meaning | rules | VERIFIED | not VERIFIED | TensorRight verifies | which |$'
check "table: faithful row (4 rules, 2 VERIFIED, 2 not; TensorRight 3 and a timeout)" \
  grep -q '^| faithful | [^|]* | 4 | 2 | 2 | 3; 1 timeout | the rest |$' "$tmp/t.md"
check "table: generalized row" grep -q '^| generalized | [^|]* | 1 | 1 | 0 | 1 | `select_04_d` |$' "$tmp/t.md"
check "table: strengthened row" grep -q '^| strengthened | [^|]* | 1 | 0 | 1 | 1 | `divmod_03_e` |$' "$tmp/t.md"
check "table: corrected row (TensorRight's pass is vacuous)" \
  grep -q '^| corrected | [^|]* | 1 | 1 | 0 | 1 (1 vacuously) | `dot_03_f` |$' "$tmp/t.md"
check "table: trivial row" grep -q '^| trivial | [^|]* | 1 | 1 | 0 | 1 | `concat_01_g` |$' "$tmp/t.md"
check "table: total row" grep -q '^| \*\*all\*\* | | 8 | 5 | 3 | 7 (1 vacuously); 1 timeout | |$' "$tmp/t.md"
check "table: headline" has "$tmp/t.md" \
  "^\*\*Of TensorRight's 8 XLA rules, axle states 4 faithfully, 1 generalized, 1 with a stronger precondition, 1 corrected, 1 trivial; 4 of the 7 non-trivial ones are VERIFIED for every element type.\*\*$"
check "table: the generalisation apart" \
  has "$tmp/t.md" '^\* `generalize_x` (generalize.axl): faithful, VERIFIED for every element type.$'
check "table: what is not VERIFIED, with verdicts" has "$tmp/t.md" '^\* `add_02_b` (faithful): real: unknown$'
check "table: an untyped rule's verdict" has "$tmp/t.md" '^\* `divmod_03_e` (strengthened): -: invalid$'
check "table: a rule without results" has "$tmp/t.md" '^\* `sub_00_h` (faithful): no result$'
check "table: warns of the rule without results" has "$tmp/t.err" 'warning: 1 tagged rules have no result in the input: sub_00_h'

# a trivial result on a rule not tagged trivial is pointed out
jq -c 'if .rule == "add_01_a" and .type == "int" and .verdict == "verified" and .trivial == false
       then .trivial = true else . end' "$tmp/run.json" > "$tmp/run2.json"
check "table: one result made trivial" [ "$(jcount "$tmp/run2.json" '.trivial')" = \
  "$(( $(jcount "$tmp/run.json" '.trivial') + 1 ))" ]
tools/tensorright-table.sh --rules "$tmp/rules" "$tmp/run2.json" > /dev/null 2> "$tmp/t2.err"
check "table: trivial mismatch warned" has "$tmp/t2.err" 'add_01_a is tagged faithful but the run found it trivial'

# --- malformed tags are errors (exit 2, located)
bad() {   # bad NAME PATTERN-IN-STDERR: the corpus in $tmp/bad must be rejected
  local st
  tools/tensorright-table.sh --rules "$tmp/bad" "$tmp/run.json" > /dev/null 2> "$tmp/bad.err"; st=$?
  check "$1: exit 2" [ "$st" = 2 ]
  check "$1: message" has "$tmp/bad.err" "$2"
}
mkdir -p "$tmp/bad"
printf '# a comment\nrule add_01_a for T in num {\n}\n' > "$tmp/bad/a.axl"
bad "untagged rule" 'a.axl:2: rule add_01_a has no'
printf '# tensorright: faithfull — typo\nrule add_01_a for T in num {\n}\n' > "$tmp/bad/a.axl"
bad "unknown class" 'a.axl:1: unknown class "faithfull"'
printf '# tensorright: faithful — one\n# tensorright: generalized — two\nrule add_01_a {\n}\n' > "$tmp/bad/a.axl"
bad "two tags" 'a.axl:2: two tensorright tags in a row'
printf '# tensorright: faithful — one\n\nrule add_01_a {\n}\n' > "$tmp/bad/a.axl"
bad "tag not directly above" 'a.axl:2: tensorright tag not directly above a rule line'
printf '# tensorright: faithful\nrule add_01_a {\n}\n' > "$tmp/bad/a.axl"
bad "tag without a reason" 'a.axl:1: tag is not'
tools/tensorright-table.sh --rules "$tmp/rules" /dev/null > /dev/null 2>&1; st=$?
check "no results: exit 2" [ "$st" = 2 ]

echo "tensorright table: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
