#!/usr/bin/env bash
# `axle mpk` on whole models: a directory that `axle superopt --output-dir` wrote (its
# module.mug, with a pre-defined operator among its kernels), a stack of decoder layers
# (--layers N: N times the layer's tasks, each layer after the first waiting for the one
# before), the per-worker assignment in the simulator's JSON, --graph TASKS.dot, and bad
# input: a directory without a module.mug, a layer whose output its next layer cannot read,
# a layer graph with two outputs (exit 3 each, with a located message).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
layer=tests/mpk/decoder_layer.mug

# one layer, then two: structure (the simulator below runs four)
"$AXLE" mpk $layer --task-graph --format json >"$tmp/l1.json"; st=$?
check "layer: exit 0" [ "$st" -eq 0 ]
check "layer: 896 tasks in 6 kernels" jqt '.ntasks == 896 and (.kernels | length) == 6' "$tmp/l1.json"
"$AXLE" mpk $layer --layers 2 --task-graph --format json >"$tmp/l2.json"; st=$?
check "stack: exit 0" [ "$st" -eq 0 ]
check "stack: named for its layers" jqt '.graph == "decoder_layer_x2"' "$tmp/l2.json"
check "stack: 2 x the layer's tasks and kernels" \
  jqt '.ntasks == 2 * 896 and (.kernels | length) == 12' "$tmp/l2.json"
check "stack: one task per block" jqt '.ntasks == ([.kernels[] | .grid[0] * .grid[1] * .grid[2]] | add)' "$tmp/l2.json"
check "stack: kernels renamed per layer" \
  jqt '[.kernels[].name] | .[0] == "L1__qkv" and .[6] == "L2__qkv" and .[11] == "L2__down"' "$tmp/l2.json"
check "stack: every task in its event's range" \
  jqt '. as $g | all(.tasks[]; .id >= $g.events[.wait].first and .id < $g.events[.wait].last)' "$tmp/l2.json"
check "stack: ranges contiguous, covering every task" \
  jqt '[.events[] | [.first, .last]] | flatten | . as $r | $r[0] == 0 and all(range(1; length - 1; 2); $r[.] == $r[. + 1])' "$tmp/l2.json"
# only the first layer starts from the graph's inputs alone; layer i + 1's first kernel
# waits for layer i's last (it reads its output where the layer reads X)
check "stack: only layer 1 waits for the start event" \
  jqt 'all(.tasks[] | select(.wait == 0); .kernel | startswith("L1__"))' "$tmp/l2.json"
check "stack: L2__qkv waits for L1__down" \
  jqt '. as $g | ($g.tasks[] | select(.kernel == "L2__qkv") | .wait) as $e
       | any($g.tasks[] | select(.kernel == "L1__down"); .trigger | index($e))' "$tmp/l2.json"
check "stack: the end event's triggers are the last layer's" \
  jqt '. as $g | all(.tasks[] | select(.trigger | index($g.end_event)); .kernel | test("^L2__|^L1__qkv$"))' "$tmp/l2.json"

# the simulator on the stack: the bound counts 4 layers of weights, X and Y once
"$AXLE" mpk $layer --simulate --format json >"$tmp/s1.json"
"$AXLE" mpk $layer --layers 4 --simulate --format json >"$tmp/s4.json"; st=$?
check "stack simulate: exit 0" [ "$st" -eq 0 ]
check "stack simulate: the three times, modelled" \
  jqt '.modelled == true and .bound_us < .megakernel_us and .megakernel_us < .per_kernel_us' "$tmp/s4.json"
check "stack simulate: bound bytes" python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b['bound_bytes'] == 4 * a['bound_bytes'] - 3 * 2 * (1 * 2048 * 2), (a, b)
assert b['kernels'] == 24 and b['tasks'] == 4 * a['tasks']" "$tmp/s1.json" "$tmp/s4.json"
check "assignment: every worker, every task once, in order" python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
a = s['assignment']
assert [w['worker'] for w in a] == list(range(s['workers']))
ts = sorted(t for w in a for t in w['tasks'])
assert ts == list(range(s['tasks'])), 'not a partition'
assert all(w['tasks'] == sorted(w['tasks']) for w in a)" "$tmp/s4.json"
"$AXLE" mpk tests/mpk/splitk.mug --simulate --workers 3 --format json >"$tmp/sk.json"
check "assignment: split-K on 3 workers, round robin" \
  jqt '.assignment == [{"worker": 0, "tasks": [0, 3, 6, 9]}, {"worker": 1, "tasks": [1, 4, 7]}, {"worker": 2, "tasks": [2, 5, 8]}]' "$tmp/sk.json"

# --graph: the DOT beside any mode, a cluster per kernel
"$AXLE" mpk $layer --layers 2 --simulate --graph "$tmp/t.dot" >"$tmp/out"; st=$?
check "--graph: exit 0" [ "$st" -eq 0 ]
check "--graph: the simulation printed" has "$tmp/out" "^  megakernel "
check "--graph: a cluster per kernel" [ "$(count "$tmp/t.dot" "subgraph cluster_k")" -eq 12 ]
check "--graph: runs of tasks with the same events are one box" has "$tmp/t.dot" 'label="T[0-9]*-T[0-9]* ([0-9]* blocks)'
if command -v dot >/dev/null; then check "--graph renders" dot -Tsvg -o /dev/null "$tmp/t.dot"; fi

# a module's directory: its module.mug, a pre-defined operator as one task on every worker
"$AXLE" superopt tests/superopt/partition_layout.axl --max-states 1000 --time-limit 600 --jobs 1 --progress never \
  --output-dir "$tmp/d" >/dev/null 2>&1
check "superopt --output-dir: exit 0" [ -f "$tmp/d/module.mug" ]
"$AXLE" mpk "$tmp/d" --task-graph --format json >"$tmp/d.json"; st=$?
check "DIR: exit 0" [ "$st" -eq 0 ]
"$AXLE" mpk "$tmp/d/module.mug" --task-graph --format json >"$tmp/dm.json"
check "DIR: the task graph of its module.mug" cmp -s "$tmp/d.json" "$tmp/dm.json"
check "DIR: a pre-defined operator is one task" \
  jqt 'any(.kernels[]; .graph_defined == false and .tasks == 1)' "$tmp/d.json"
"$AXLE" mpk "$tmp/d" --simulate --format json >"$tmp/ds.json"; st=$?
check "DIR simulate: exit 0" [ "$st" -eq 0 ]
check "DIR simulate: the operator's task on every worker" \
  jqt '(.tasks - 1) as $op | all(.assignment[]; .tasks | index($op))' "$tmp/ds.json"

# bad input
bad() {   # bad NAME MESSAGE ARGS...: exit 3 and MESSAGE on standard error
  local name=$1 msg=$2; shift 2
  "$AXLE" mpk "$@" >"$tmp/out" 2>"$tmp/err"; local st=$?
  check "$name: exit 3" [ "$st" -eq 3 ]
  check "$name: message" has "$tmp/err" "$msg"
  check "$name: nothing on stdout" [ ! -s "$tmp/out" ]
}
mkdir "$tmp/empty"
bad "a directory without graphs" "cannot read '$tmp/empty': no module.mug in this directory" "$tmp/empty" --simulate
bad "a layer whose output its next layer cannot read" \
  "splitk.mug:20:10: error: the layer's output O is f16\[16, 64\] but its first input X is f16\[16, 256\]" \
  tests/mpk/splitk.mug --layers 2 --simulate
printf 'mugraph two {\n  input X : f16[16, 64]\n  kernel k grid [1, 1, 1] block [128, 1, 1] forloop 1 {\n    x = input X imap {} fmap -\n    e = exp(x)\n    output Y = e omap {}\n    output Z = e omap {}\n  }\n  output Y, Z\n}\n' >"$tmp/two.mug"
bad "a layer with two outputs" "two.mug:9:.*exactly one output; two has an input and 2 outputs" "$tmp/two.mug" --layers 3 --task-graph
bad "--layers 0" "--layers is a whole number from 1 to 256" $layer --layers 0 --simulate
check "refused stack: no DOT" [ ! -e "$tmp/none.dot" ]
echo "mpk stack: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
