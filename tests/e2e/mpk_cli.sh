#!/usr/bin/env bash
# `axle mpk`: the task graph of every example μGraph in text, JSON and DOT (checked against
# the μGraph before it is printed), the simulator's three modelled times in text and JSON
# on both targets, the persistent megakernel's file (--output: what it holds), and bad
# input: not a .mug, a missing file, a malformed graph, --workers 0, no mode or two, a
# megakernel of a pre-defined operator or into a missing directory (exit 3 each, with the
# message).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
ex=superopt/examples
for p in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  "$AXLE" mpk $ex/$p.mug --task-graph --format json >"$tmp/$p.tg.json"; st=$?
  check "$p task graph json exit 0" [ "$st" -eq 0 ]
  check "$p: one task per block" jqt '.ntasks == ([.kernels[] | .grid[0] * .grid[1] * .grid[2]] | add)' "$tmp/$p.tg.json"
  check "$p: every task waits for one event whose range holds it" \
    jqt '. as $g | all(.tasks[]; .id >= $g.events[.wait].first and .id < $g.events[.wait].last)' "$tmp/$p.tg.json"
  check "$p: ranges contiguous in event order" \
    jqt '[.events[] | [.first, .last]] | flatten | . as $r | all(range(1; length - 1; 2); $r[.] == $r[. + 1])' "$tmp/$p.tg.json"
  check "$p: trigger counts" \
    jqt '. as $g | all(.events[]; .triggers == ([$g.tasks[].trigger[] | select(. == 0)] | length) or .id != 0) and .events[0].triggers == 0' "$tmp/$p.tg.json"
  check "$p: all AOT" jqt 'all(.tasks[]; .launch == "aot")' "$tmp/$p.tg.json"
  "$AXLE" mpk $ex/$p.mug --task-graph >"$tmp/$p.tg.txt"
  check "$p task graph text" has "$tmp/$p.tg.txt" "^task graph of $p: "
  "$AXLE" mpk $ex/$p.mug --task-graph --format dot >"$tmp/$p.dot"
  check "$p dot" has "$tmp/$p.dot" "^digraph"
  if command -v dot >/dev/null; then check "$p dot renders" dot -Tsvg -o /dev/null "$tmp/$p.dot"; fi
  "$AXLE" mpk $ex/$p.mug --simulate --format json >"$tmp/$p.sim.json"; st=$?
  check "$p simulate exit 0" [ "$st" -eq 0 ]
  check "$p simulate: the three times, modelled" \
    jqt '.modelled == true and .megakernel_us > 0 and .per_kernel_us > 0 and .bound_us > 0' "$tmp/$p.sim.json"
  check "$p: the bound below both" jqt '.bound_us < .megakernel_us and .bound_us < .per_kernel_us' "$tmp/$p.sim.json"
  check "$p: default workers are the H200's SMs" jqt '.workers == 132 and .target == "h200"' "$tmp/$p.sim.json"
  # the per-kernel time is axle cost's
  "$AXLE" cost $ex/$p.mug --format json >"$tmp/$p.cost.json"
  check "$p: per-kernel is axle cost's time" \
    python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert abs(a['per_kernel_us'] - b['time_us']) < 1e-3" "$tmp/$p.sim.json" "$tmp/$p.cost.json"
done
# GQA: 160 tasks (128 + 32), each reduction block waits for the 4 partial blocks of its rows
check "gqa: 160 tasks, 34 events" jqt '.ntasks == 160 and .nevents == 34 and .unfused_events == 128' "$tmp/gqa.tg.json"
check "gqa: every k2 task waits for 4 triggers" \
  jqt '. as $g | all(.tasks[] | select(.kernel == "k2"); $g.events[.wait].triggers == 4)' "$tmp/gqa.tg.json"
# one kernel: the megakernel is that kernel; two: one launch fewer, modelled faster
check "rmsnorm_linear: megakernel = per-kernel" jqt '(.megakernel_us - .per_kernel_us) | fabs < 1e-3' "$tmp/rmsnorm_linear.sim.json"
check "gqa: megakernel faster than per-kernel" jqt '.megakernel_us < .per_kernel_us' "$tmp/gqa.sim.json"
"$AXLE" mpk $ex/gqa.mug --simulate >"$tmp/gqa.sim.txt"
check "text: megakernel line" has "$tmp/gqa.sim.txt" "^  megakernel "
check "text: per-kernel line" has "$tmp/gqa.sim.txt" "^  per-kernel "
check "text: bound line" has "$tmp/gqa.sim.txt" "^  bound "
check "text: says modelled" has "$tmp/gqa.sim.txt" "modelled, not measured"
# cross-task prefetch: every GQA task has first tiles to load ahead (one round: none credited);
# rmsnorm_linear's only tiles are its double-buffered loop's, so none
check "text: prefetch line" has "$tmp/gqa.sim.txt" "^  prefetch    160 of 160 tasks may load their first tiles"
check "gqa: prefetch_tasks 160, none credited in one round" jqt '.prefetch_tasks == 160 and .prefetched == 0' "$tmp/gqa.sim.json"
check "rmsnorm_linear: prefetch_tasks 0" jqt '.prefetch_tasks == 0 and .prefetch_us == 0' "$tmp/rmsnorm_linear.sim.json"
"$AXLE" mpk $ex/gqa.mug --simulate --target a100 --workers 16 --format json >"$tmp/a100.json"
check "a100, 16 workers" jqt '.target == "a100" and .workers == 16' "$tmp/a100.json"
check "fewer workers, slower" python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a['megakernel_us'] > b['megakernel_us']" "$tmp/a100.json" "$tmp/gqa.sim.json"

# --output: the persistent megakernel (its compile: mpk_nvcc.sh; its run: mpk_emulate.sh)
"$AXLE" mpk $ex/gqa.mug --output "$tmp/gqa.cu" >"$tmp/out" 2>"$tmp/err"; st=$?
check "output: exit 0" [ "$st" -eq 0 ]
check "output: nothing printed" [ ! -s "$tmp/out" ]
check "output: no message" [ ! -s "$tmp/err" ]
check "output: for sm_90" has "$tmp/gqa.cu" "^// Generated by axle (axle mpk) from mugraph 'gqa' for sm_90"
check "output: one task per block" has "$tmp/gqa.cu" "^#define AX_MK_TASKS 160$"
check "output: the persistent kernel" has "$tmp/gqa.cu" "^__global__ void __launch_bounds__(128, 1) ax_mk("
check "output: the host entry" has "$tmp/gqa.cu" '^extern "C" int axle_run_gqa(const void \*const \*inputs'
check "output: no per-kernel __global__" [ "$(count "$tmp/gqa.cu" "^__global__")" -eq 1 ]
"$AXLE" mpk $ex/gqa.mug --output "$tmp/gqa80.cu" --target a100
check "output: a100 is sm_80" has "$tmp/gqa80.cu" "^// Generated by axle (axle mpk) from mugraph 'gqa' for sm_80"

# bad input and usage
bad() {   # bad NAME MESSAGE ARGS...: exit 3 and MESSAGE on standard error
  local name=$1 msg=$2; shift 2
  "$AXLE" mpk "$@" >"$tmp/out" 2>"$tmp/err"; local st=$?
  check "$name: exit 3" [ "$st" -eq 3 ]
  check "$name: message" has "$tmp/err" "$msg"
  check "$name: nothing on stdout" [ ! -s "$tmp/out" ]
}
bad "a program" "mpk reads a μGraph (.mug), not a program" $ex/gqa.axl --simulate
bad "missing file" "cannot open '$tmp/none.mug'" "$tmp/none.mug" --simulate
printf 'this is not a graph\n' >"$tmp/notes.txt"
bad "not a .mug" "notes.txt:1:" "$tmp/notes.txt" --task-graph
printf 'mugraph m {\n  input X : f16[4, 8]\n  Y = matmul(X, X)\n  output Y\n}\n' >"$tmp/bad.mug"
bad "malformed graph" "bad.mug:3:" "$tmp/bad.mug" --simulate
bad "--workers 0" "--workers is a whole number from 1 to 4096" $ex/gqa.mug --simulate --workers 0
bad "no mode" "one of --task-graph, --simulate and --output" $ex/gqa.mug
bad "both modes" "one of --task-graph, --simulate and --output" $ex/gqa.mug --simulate --task-graph
bad "output and simulate" "one of --task-graph, --simulate and --output" $ex/gqa.mug --simulate --output "$tmp/x.cu"
bad "output with a format" "--output takes no --format" $ex/gqa.mug --output "$tmp/x.cu" --format json
bad "output of a pre-defined operator" "predefined.mug:10:.*the megakernel runs graph-defined kernels only" \
  tests/gpu/predefined.mug --output "$tmp/x.cu"
check "output refused: no file" [ ! -e "$tmp/x.cu" ]
bad "output into a missing directory" "cannot write $tmp/none/x.cu" $ex/gqa.mug --output "$tmp/none/x.cu"
bad "dot simulate" "--simulate prints text or json" $ex/gqa.mug --simulate --format dot
bad "no file" "mpk needs a .mug file" --simulate
bad "bad target" "--target is h200, h100 or a100" $ex/gqa.mug --simulate --target v100
echo "mpk cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
