#!/usr/bin/env bash
# `axle cost`: modelled time of every example μGraph and of its program's naive graph,
# text and JSON (the fields docs/cli.md promises), both targets, and bad input (exit 3).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
ex=superopt/examples
for p in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  "$AXLE" cost $ex/$p.mug --format json >"$tmp/$p.json"; st=$?
  check "$p json exit" [ "$st" -eq 0 ]
  for f in '.time_us > 0' '.modelled == true' '.fits == true' '.kernels | length > 0' \
           '.kernels | all(.hbm_bytes > 0)' '.kernels | all(.waves >= 1)' \
           '.kernels | all(.blocks_per_sm >= 1)' '.kernels | all(.smem_bytes >= 0)' \
           '.kernels | all(.tensor_flops >= 0)' '.kernels | all(.launch_us > 0)' \
           '.kernels | all(.fits == true)'; do
    check "$p json: $f" jqt "$f" "$tmp/$p.json"
  done
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['time_us'] > 0" \
    "$tmp/$p.json" 2>/dev/null
  check "$p json parses" [ $? -eq 0 ]
  "$AXLE" cost $ex/$p.mug >"$tmp/$p.txt"
  check "$p text says modelled" has "$tmp/$p.txt" "modelled time"
  "$AXLE" cost $ex/$p.axl --format json >"$tmp/$p.naive.json"
  check "$p naive exit" [ $? -eq 0 ]
  # the hand-written fused graph is modelled faster than one kernel per operator
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a['time_us'] < b['time_us']" \
    "$tmp/$p.json" "$tmp/$p.naive.json"
  check "$p fused beats naive" [ $? -eq 0 ]
  "$AXLE" cost $ex/$p.mug --target a100 --format json >"$tmp/$p.a100.json"
  check "$p a100" jqt '.target == "a100"' "$tmp/$p.a100.json"
done
# the A100 is modelled slower than the H100 on a memory-bound kernel
h=$(jq '.time_us' "$tmp/rmsnorm_linear.json")
a=$(jq '.time_us' "$tmp/rmsnorm_linear.a100.json")
check "a100 slower" python3 -c "assert $a > $h"
"$AXLE" cost $ex/lora.mug --target v100 2>"$tmp/err"; st=$?
check "bad target exit 3" [ "$st" -eq 3 ]
check "bad target message" has "$tmp/err" "h100 or a100"
printf 'mugraph m {\n  input X : f16[4, 8]\n  Y = matmul(X, X)\n  output Y\n}\n' >"$tmp/bad.mug"
"$AXLE" cost "$tmp/bad.mug" 2>"$tmp/err"; st=$?
check "bad graph exit 3" [ "$st" -eq 3 ]
check "bad graph located" has "$tmp/err" "bad.mug:3:"
echo "superopt cost: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
