#!/usr/bin/env bash
# The μGraph fuzzer (tools/mugraph-fuzz.py, docs/superopt.md §14) on fixed inputs: its
# evaluator gives known values for a program and for a graph (a for-loop, accumulators, a
# root of a perfect square, conversions rounded to nearest even, the online softmax's
# rescale); known-bad graphs are separated by the brute force and refused by axle equiv,
# a known-good one is not separated; the findings it made are still separated, and axle equiv
# refuses those outside the element types; a short run on the real axle ends with no
# discrepancy; and the driver fails (exit 1, a minimised finding written) when axle equiv is
# a fake that calls everything equivalent.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
command -v python3 >/dev/null || { echo "FAIL: python3 is needed by tools/mugraph-fuzz.py"; exit 1; }
F=(python3 tools/mugraph-fuzz.py)
s=tests/superopt

# 1. The evaluator against values worked out by hand.
cat >"$tmp/k.axl" <<'AXL'
program k {
  input X : f32[2, 3]
  input W : f32[3, 2]
  output O = matmul(X, W) * 0.5 + 1
  output S = sum(X, axis = 1)
  output M = mean(X, axis = 0)
}
AXL
"${F[@]}" --eval "$tmp/k.axl" --inputs '{"X": [1, 2, 3, 4, 5, 6], "W": [1, 0, 0, 1, 1, 1]}' >"$tmp/k.out"
check "eval program: exit 0" [ $? = 0 ]
check "eval program: matmul, scale, shift" has "$tmp/k.out" "^O \[2, 2\]: 3 7/2 6 13/2$"
check "eval program: sum along axis 1" has "$tmp/k.out" "^S \[2, 1\]: 6 15$"
check "eval program: mean along axis 0" has "$tmp/k.out" "^M \[1, 3\]: 5/2 7/2 9/2$"

# rms over a row: sqrt(mean(x^2)) = 3 for [1, 1, 3, 5] and 2 for [2, 2, 2, 2]
cat >"$tmp/r.axl" <<'AXL'
program r {
  input X : f32[2, 4]
  output O = sum(X, axis = 1) / sqrt(mean(X * X, axis = 1))
}
AXL
cat >"$tmp/r.mug" <<'MUG'
mugraph r {
  input X : f32[2, 4]
  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 2 {
    x = input X imap {x: 0} fmap 1
    s = accum sum(x, axis = 1)
    q = accum rms(x, axis = 1)
    o = div(s, q)
    output O = o omap {x: 0}
  }
  output O
}
MUG
for f in r.axl r.mug; do
  "${F[@]}" --eval "$tmp/$f" --inputs '{"X": [1, 1, 3, 5, 2, 2, 2, 2]}' >"$tmp/r.out"
  check "eval $f: a row sum over a root of a perfect square, exactly" has "$tmp/r.out" "^O \[2, 1\]: 10/3 4$"
done

# conversions: to nearest, ties to even (2049/2048 lies halfway between 1 and 1 + 2^-10 in f16)
cat >"$tmp/c.axl" <<'AXL'
program c {
  input X : f32[1, 2]
  output H = to_f16(X)
  output B = to_bf16(X)
}
AXL
"${F[@]}" --eval "$tmp/c.axl" --inputs '{"X": ["1/3", "2049/2048"]}' >"$tmp/c.out"
check "eval: to_f16 rounds 1/3 to 1365/4096 and a tie to even" has "$tmp/c.out" "^H \[1, 2\]: 1365/4096 1$"
check "eval: to_bf16 rounds 1/3 to 171/512" has "$tmp/c.out" "^B \[1, 2\]: 171/512 1$"
"${F[@]}" --eval "$tmp/c.axl" --float storage --inputs '{"X": ["1/3", "2049/2048"]}' >"$tmp/cf.out"
check "eval in floats: the same roundings (struct 'e', bf16 by bits)" has "$tmp/cf.out" "^H \[1, 2\]: 0.333251953125 1.0$"
check "eval in floats: bf16" has "$tmp/cf.out" "^B \[1, 2\]: 0.333984375 1.0$"

# the online softmax: equal logits give 1/64 everywhere, through exp(m_prev - m_new) = 1
"${F[@]}" --eval $s/softmax_max.online.mug >"$tmp/o.out"
check "eval: the online softmax of equal logits is 1/64 exactly" \
  bash -c '[ "$(sed "s/^O \[16, 64\]: //" "$0" | tr " " "\n" | sort -u)" = 1/64 ]' "$tmp/o.out"

# 2. Known pairs: the brute force and axle equiv.
"${F[@]}" --separate $s/softmax_max.axl $s/softmax_max.online.mug >"$tmp/sep.out"
check "good pair: the online softmax is not separated (exit 0)" [ $? = 0 ]
check "... every input point decided" has "$tmp/sep.out" "^not separated: 4 of 4 input points decided"
sed 's/, rescale = m//' $s/softmax_max.online.mug >"$tmp/norescale.mug"
"${F[@]}" --separate $s/softmax_max.axl "$tmp/norescale.mug" >"$tmp/sep.out"
check "the rescale dropped: separated by the brute force (exit 1)" [ $? = 1 ]
check "... by the values of O" has "$tmp/sep.out" "^separated (values): output 'O' differs at"
"$AXLE" equiv $s/softmax_max.axl "$tmp/norescale.mug" --seed 1 >"$tmp/eq.out" 2>&1
check "... and refused by axle equiv (cannot decide: exit 3)" [ $? = 3 ]
sed 's/input X : f32/input X : f16/' $s/softmax_max.mug >"$tmp/f16.mug"
"${F[@]}" --separate $s/softmax_max.axl "$tmp/f16.mug" >"$tmp/sep.out"
check "an input's element type changed: separated by the interface" has "$tmp/sep.out" \
  "^separated (interface): input 'X' is f16\[16, 64\] in the graph, f32\[16, 64\] in the program"
"$AXLE" equiv $s/softmax_max.axl "$tmp/f16.mug" --seed 1 >/dev/null 2>&1
check "... and refused by axle equiv (exit 3)" [ $? = 3 ]

# 3. The findings: each still separated; axle equiv says not equivalent (exit 1), or refuses
# the pair before any test for those of the element types (type_*: an output of another type,
# exit 3), says cannot decide where the graph has no value in doubles (undef_*: exit 3), or not
# established where the doubles cannot see the difference (below_*: exit 2) — never equivalent.
for p in $s/mugfuzz/*.axl; do
  n=$(basename "$p" .axl)
  "${F[@]}" --separate "$p" "${p%.axl}.mug" >"$tmp/sep.out"
  check "finding $n: separated by the brute force" [ $? = 1 ]
  "$AXLE" equiv "$p" "${p%.axl}.mug" --seed 1 >"$tmp/eq.out" 2>&1
  st=$?
  case $n in
    type_*)
      check "finding $n: axle equiv refuses the interface (exit 3, got $st)" [ $st = 3 ]
      check "finding $n: ... before any test" bash -c "! grep -q 'field tests' '$tmp/eq.out'" ;;
    undef_*)
      check "finding $n: axle equiv cannot decide (exit 3, got $st)" [ $st = 3 ]
      check "finding $n: ... the graph has no value where the program has one" \
        has "$tmp/eq.out" "^cannot decide: in doubles the mugraph has no value where the program has one" ;;
    below_*)
      check "finding $n: axle equiv does not establish it (exit 2, got $st)" [ $st = 2 ]
      check "finding $n: ... the doubles' agreement is no proof" \
        has "$tmp/eq.out" "^not established: the field tests differ where sqrt is read as an uninterpreted function and the doubles agree" ;;
    *) check "finding $n: axle equiv says not equivalent (exit 1, got $st)" [ $st = 1 ] ;;
  esac
done

# 4. A short run on the real axle: programs, graphs and mutants judged, no discrepancy.
AXLE="$AXLE" tools/mugraph-fuzz.sh 60 7 --cases 6 --jobs 2 --search-share 0.3 --out "$tmp/findings" \
  --stats "$tmp/stats.json" --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "run: exit 0 ($st)" [ "$st" = 0 ]
check "run: six programs" jqt '.programs == 6' "$tmp/stats.json"
check "run: graphs of the floor written, and the repository's graphs taken" \
  jqt '.graphs.greedy >= 2 and .graphs.corpus >= 1' "$tmp/stats.json"
check "run: mutants judged" jqt '.mutants >= 10' "$tmp/stats.json"
check "run: the brute force separated some pairs and not others" jqt '.separated >= 5 and .agree >= 3' "$tmp/stats.json"
check "run: axle equiv said equivalent and not equivalent" \
  jqt '.verdicts.equivalent >= 1 and .verdicts["not-equivalent"] >= 1' "$tmp/stats.json"
check "run: no discrepancy" jqt '.discrepancies == 0 and (.findings | length) == 0' "$tmp/stats.json"
check "run: a summary on standard output" has "$tmp/out" "^  discrepancies: 0$"
check "run: no findings written" test ! -e "$tmp/findings"
"${F[@]}" --render "$tmp/stats.json" >"$tmp/section.md"
check "run: its figures as a section of docs/results-superopt.md" has "$tmp/section.md" \
  "^| programs (of them the repository.s pairs) | 6 (3) |$"

# 5. A lying axle equiv: everything is equivalent. The driver fails with a minimised finding
# that the brute force separates and the real axle equiv refuses.
cat >"$tmp/liar" <<EOF
#!/bin/sh
if [ "\$1" = equiv ]; then
  echo "equivalent (probability of a wrong verdict <= 9.31e-10 (2^-30.0))"
  exit 0
fi
exec "$AXLE" "\$@"
EOF
chmod +x "$tmp/liar"
AXLE="$tmp/liar" tools/mugraph-fuzz.sh 60 5 --cases 2 --jobs 2 --axle-test "" --search-share 0 \
  --minimize-seconds 20 --minimize-first 1 --out "$tmp/liar-findings" --stats "$tmp/liar.json" \
  --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "liar: the fuzzer fails (exit 1, got $st)" [ "$st" = 1 ]
check "liar: equiv's 'equivalent' separated by the brute force" jqt '.kinds["equiv-separated"] >= 1' "$tmp/liar.json"
f=$(grep -l "^# seed 5, case [0-9]*; minimised in" "$tmp"/liar-findings/equiv-separated-*.axl 2>/dev/null | head -1)
check "liar: a minimised finding written" test -n "$f"
if [ -n "$f" ]; then
  check "liar: the finding says what it shows" has "$f" "^# mugraph-fuzz finding: equiv-separated"
  check "liar: ... and how to reproduce it" has "$f" "^# axle equiv: equivalent (reproduce: axle equiv "
  check "liar: its graph beside it" test -s "${f%.axl}.mug"
  "$AXLE" mugraph check "${f%.axl}.mug" >/dev/null 2>&1
  check "liar: the graph validates" [ $? = 0 ]
  "${F[@]}" --separate "$f" "${f%.axl}.mug" >/dev/null
  check "liar: the brute force separates the pair again" [ $? = 1 ]
  "$AXLE" equiv "$f" "${f%.axl}.mug" --seed 1 >/dev/null 2>&1
  check "liar: the real axle equiv does not say equivalent" [ $? != 0 ]
fi

echo "superopt_mugfuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
