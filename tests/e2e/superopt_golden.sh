#!/usr/bin/env bash
# Goldens of the superoptimizer half: each case runs one command on a program or graph and
# diffs what it writes against tests/superopt/golden/NAME.*.expected, printing the diff on
# a mismatch. Every run is deterministic: one thread, a state budget (--max-states) instead
# of a time limit, the search's fixed seed, no wall-clock figure in what is compared.
#   floor     the greedy floors of the six Mirage benchmarks (superopt/examples, target
#             h100, where each of them fuses) through `axle superopt --max-states 1`: the
#             graph written and the run's report
#   search    small searches without the floor (--no-greedy) under a state budget: the
#             best graph and the report (states, candidates, the best's time)
#   cost      `axle cost --format json` of a benchmark's program and of its hand-written
#             graph, two JSON objects
#   optimize  `axle optimize` with the rules of tests/superopt/golden/rules: the program
#             written and the report
# A report is the command's JSON with its timings left out (tests/superopt/golden
# has the jq filters' output, one key a line). After an intended change, regenerate:
#   UPDATE=1 ctest --test-dir build -R e2e/superopt_golden
# (or UPDATE=1 AXLE=... AXLE_SRC=... bash tests/e2e/superopt_golden.sh), then read the
# diff in git before committing it. The cost model's constants are in every figure: a
# change to superopt/cost rewrites most of them.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
g=tests/superopt/golden
ex=superopt/examples
update=${UPDATE:-}

# golden NAME.KIND FILE: FILE against $g/NAME.KIND.expected (written there under UPDATE=1)
golden() {
  local want=$g/$1.expected
  if [ -n "$update" ]; then
    cp "$2" "$want"
    pass=$((pass + 1))
  elif diff -u "$want" "$2" >"$tmp/diff" 2>&1; then
    pass=$((pass + 1))
  else
    echo "FAIL: $1 differs from $want (UPDATE=1 regenerates):"
    sed 's/^/  /' "$tmp/diff"
    fail=$((fail + 1))
  fi
}

# the search's report without timings
SEARCH_REPORT='{program, target, status, states, candidates, pruned, checked, equivalent, rejected_final,
  naive_time_us, best_time_us, best_is_greedy, greedy: (.greedy | if . == null then null else
  {time_us, kernels, fused_ops, check, check_groups, dropped_groups} end)}'

# superopt NAME PROGRAM OPTIONS...: the graph (if one is written) and the report
superopt() {
  local name=$1 prog=$2
  shift 2
  rm -f "$tmp/out.mug"
  "$AXLE" superopt "$prog" --no-gate --jobs 1 --progress never --format json --output "$tmp/out.mug" "$@" \
    >"$tmp/out.json" 2>"$tmp/err"
  local st=$?
  check "$name: exit 0 or 1 (got $st)" [ "$st" -le 1 ]
  check "$name: the report is JSON" jqt "$SEARCH_REPORT" "$tmp/out.json"
  jq "$SEARCH_REPORT" "$tmp/out.json" >"$tmp/report.json" 2>/dev/null
  golden "$name.json" "$tmp/report.json"
  if [ -e "$tmp/out.mug" ] || [ -e "$g/$name.mug.expected" ]; then
    [ -e "$tmp/out.mug" ] || : >"$tmp/out.mug"
    golden "$name.mug" "$tmp/out.mug"
  fi
}

# --- the floors of the six Mirage benchmarks ---------------------------------------------
for p in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  superopt "floor_$p" $ex/$p.axl --target h100 --max-states 1
done
check "floors: gated_mlp, lora, gqa, qknorm and ntrans written as the greedy graph" \
  bash -c 'for p in gated_mlp lora gqa qknorm ntrans; do jq -e ".best_is_greedy and .greedy.check == 0" "$0/floor_$p.json.expected" >/dev/null || exit 1; done' "$g"
check "floors: rmsnorm_linear has none (cuBLAS is modelled faster than any fusion)" \
  jqt '.status == 1 and .greedy.time_us == null' "$g/floor_rmsnorm_linear.json.expected"

# --- small searches under a state budget ----------------------------------------------------
superopt search_tiny_chain tests/superopt/tiny_chain.axl --no-greedy --max-states 100000
superopt search_tiny_mm tests/superopt/tiny_mm.axl --no-greedy --max-states 100000
superopt search_tiny_rms_linear tests/superopt/tiny_rms_linear.axl --no-greedy --max-states 100000
superopt search_rowsum $g/in/rowsum.axl --no-greedy --max-states 20000
superopt search_tiny_attn tests/superopt/tiny_attn.axl --no-greedy --max-states 100000
check "searches: every graph found is modelled faster than naive" \
  bash -c 'for f in "$0"/search_*.json.expected; do jq -e ".status == 1 or .best_time_us < .naive_time_us" "$f" >/dev/null || exit 1; done' "$g"

# --- axle cost on each benchmark: its program (naive) and its hand-written graph ----------
for p in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  { "$AXLE" cost $ex/$p.axl --format json && "$AXLE" cost $ex/$p.mug --format json; } >"$tmp/cost.json" 2>"$tmp/err"
  check "cost $p: exit 0" [ $? -eq 0 ]
  jq . "$tmp/cost.json" >"$tmp/cost1.json"
  golden "cost_$p.json" "$tmp/cost1.json"
done

# --- axle optimize with the golden rules (proved by the gate on the spot) ------------------
OPT_REPORT='{program, rules_proved, rules_skipped, rules_translated, rewrites, stop, iterations, nodes_in,
  nodes, classes, extraction, kept_input, programs, cost_before_us, cost_after_us, equivalence,
  applied: [.applied[] | {rule, at, merges}]}'
for p in distrib shared; do
  rm -f "$tmp/out.axl"
  "$AXLE" optimize $g/in/$p.axl --rules $g/rules --format json --output "$tmp/out.axl" >"$tmp/out.json" 2>"$tmp/err"
  check "optimize $p: exit 0" [ $? -eq 0 ]
  jq "$OPT_REPORT" "$tmp/out.json" >"$tmp/report.json" 2>/dev/null
  golden "optimize_$p.json" "$tmp/report.json"
  [ -e "$tmp/out.axl" ] || : >"$tmp/out.axl"
  golden "optimize_$p.axl" "$tmp/out.axl"
done

echo "e2e/superopt_golden: $pass passed, $fail failed${update:+ (goldens rewritten)}"
[ "$fail" -eq 0 ]
