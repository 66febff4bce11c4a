#!/usr/bin/env bash
# `axle superopt` on programs small enough to search in seconds: the fused graph is
# found and passes `axle equiv`; an element-wise chain becomes a thread graph; pruning
# loses no equivalent graph of an exhaustive search; a wrong axiom (and a missing rules
# directory) is refused with exit 3 naming the rules; bad input exits 3; a search with
# no room finds nothing (exit 1). Every search is bounded by its limits, never by speed.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
t=tests/superopt
S=("$AXLE" superopt --no-gate --progress never --jobs 2 --max-kernel-ops 1)

# 1. RMSNorm + linear: one graph-defined kernel, equivalent at full shape
"${S[@]}" $t/tiny_rms_linear.axl --max-block-ops 7 --output "$tmp/rms.mug" --format json \
  >"$tmp/rms.json" 2>"$tmp/rms.err"; st=$?
check "rms exit 0" [ "$st" -eq 0 ]
check "rms written" test -s "$tmp/rms.mug"
check "rms one kernel" [ "$(count "$tmp/rms.mug" '^  kernel ')" -eq 1 ]
check "rms passes equiv" "$AXLE" equiv $t/tiny_rms_linear.axl "$tmp/rms.mug" --seed 7
for f in candidates pruned checked equivalent seconds naive_time_us best_time_us; do
  check "rms json $f" jqt ".$f | type == \"number\"" "$tmp/rms.json"
done
check "rms json modelled" jqt '.modelled == true' "$tmp/rms.json"
check "rms faster than naive" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['best_time_us'] < d['naive_time_us']" "$tmp/rms.json"
check "rms warns ungated" has "$tmp/rms.err" "no-gate"

# 2. an element-wise chain: one kernel, its operators fused into a thread graph
"${S[@]}" $t/tiny_chain.axl --max-block-ops 6 --output "$tmp/chain.mug" >"$tmp/chain.out" 2>/dev/null
check "chain exit 0" [ $? -eq 0 ]
check "chain thread graph" has "$tmp/chain.mug" 'thread {'
check "chain passes equiv" "$AXLE" equiv $t/tiny_chain.axl "$tmp/chain.mug" --seed 7
check "chain text summary" has "$tmp/chain.out" 'written to'

# 3. pruning loses nothing: the exhaustive result sets with and without it are equal
mkdir -p "$tmp/p" "$tmp/u"
"${S[@]}" $t/tiny_mm.axl --max-block-ops 4 --top 1000 --output "$tmp/p.mug" --found-dir "$tmp/p" \
  --format json >"$tmp/p.json" 2>/dev/null
"${S[@]}" $t/tiny_mm.axl --max-block-ops 4 --top 1000 --output "$tmp/u.mug" --found-dir "$tmp/u" \
  --no-prune --format json >"$tmp/u.json" 2>/dev/null
np=$(ls "$tmp/p" | wc -l); nu=$(ls "$tmp/u" | wc -l)
check "exhaustive found some" [ "$np" -gt 0 ]
check "same number found" [ "$np" -eq "$nu" ]
sums() { for f in "$1"/*.mug; do md5sum <"$f"; done | sort; }
check "same graphs found" [ "$(sums "$tmp/p")" = "$(sums "$tmp/u")" ]
check "pruning pruned" python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['pruned'] > 0" "$tmp/p.json"
check "no-prune pruned nothing" python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['pruned'] == 0" "$tmp/u.json"
for f in $(ls "$tmp"/p/*.mug | head -3); do
  "$AXLE" equiv $t/tiny_mm.axl "$f" --seed 11 >/dev/null 2>&1 || { echo "FAIL: $f not equivalent"; fail=$((fail + 1)); }
done

# 4. gating: a wrong axiom, and a directory without the rules, are refused by name
"$AXLE" superopt $t/tiny_mm.axl --output "$tmp/g.mug" --rules $t/wrong-rules --progress never \
  2>"$tmp/gate.err"; st=$?
check "wrong axiom exit 3" [ "$st" -eq 3 ]
check "wrong axiom named" has "$tmp/gate.err" 'eq_add_comm \[int\] invalid'
check "missing axiom named" has "$tmp/gate.err" 'eq_sum_sum: no such rule'
check "right axiom not named" bash -c "! grep -q 'eq_mul_comm' '$tmp/gate.err'"
check "nothing written" test ! -e "$tmp/g.mug"
"$AXLE" superopt $t/tiny_mm.axl --output "$tmp/g.mug" --rules "$tmp/nowhere" --progress never \
  2>"$tmp/gate2.err"; st=$?
check "no rules exit 3" [ "$st" -eq 3 ]
check "no rules named" has "$tmp/gate2.err" 'eq_add_comm: no such rule'

# 5. bad input and usage
"$AXLE" superopt "$tmp/none.axl" --output "$tmp/x.mug" --no-gate 2>"$tmp/e1"; st=$?
check "missing file exit 3" [ "$st" -eq 3 ]
"$AXLE" superopt $t/tiny_mm.axl 2>"$tmp/e2"; st=$?
check "no output exit 3" [ "$st" -eq 3 ]
check "no output message" has "$tmp/e2" "needs --output"
printf 'program p {\n  input X : f16[4, 8]\n  output O = matmul(X, X)\n}\n' >"$tmp/bad.axl"
"$AXLE" superopt "$tmp/bad.axl" --output "$tmp/x.mug" --no-gate 2>"$tmp/e3"; st=$?
check "bad program exit 3" [ "$st" -eq 3 ]
check "bad program located" has "$tmp/e3" "bad.axl:3:"

# 6. no room to find anything: exit 1, nothing written
"${S[@]}" $t/tiny_mm.axl --max-states 1 --output "$tmp/none.mug" >/dev/null 2>&1; st=$?
check "nothing found exit 1" [ "$st" -eq 1 ]
check "nothing found not written" test ! -e "$tmp/none.mug"

echo "superopt search: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
