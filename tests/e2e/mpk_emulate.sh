#!/usr/bin/env bash
# axle emulate --megakernel: the persistent megakernel that `axle mpk --output` writes,
# compiled for the CPU (gpu/emu/axle_emu.h, -DAXLE_EMU_MK: its workers are threads) and run
# under seeded adversarial schedules, each run compared with the interpreter: split-K and
# its reduction under 50 schedules, GQA and RMSNorm + linear under two each; the file run is
# byte for byte the one `axle mpk --output` writes. The oracle's own tests (axle-test only):
# with one dependency edge dropped (AXLE_TEST_MPK_DROP_EDGE) an event fires before one of its
# producers has written, and with every release moved before the task's stores
# (AXLE_TEST_MPK_EARLY_RELEASE) a consumer may read before the write; the emulator must
# report a wrong output within 100 schedules (runs here caught them within 10 and 2).
# Bad usage and a graph with a pre-defined operator exit 3.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
if ! command -v "${CXX:-g++}" >/dev/null; then
  echo "SKIP: no host C++ compiler (${CXX:-g++}); install g++ (make deps) to emulate"
  exit 77
fi
ex=superopt/examples
"$AXLE" emulate --megakernel tests/mpk/splitk.mug --runs 50 --workers 4 >"$tmp/splitk" 2>&1; st=$?
check "splitk: 50 schedules agree (exit 0)" [ "$st" -eq 0 ]
check "splitk: every schedule compared" [ "$(count "$tmp/splitk" "^  schedule [0-9]*:  output 'O'")" -eq 50 ]
check "splitk: verdict" has "$tmp/splitk" "^agrees: the megakernel computes what the mugraph computes under every schedule"
check "splitk: workers and seeds" has "$tmp/splitk" "^megakernel: 4 worker threads, 50 schedules (seeds 1 to 50)"
"$AXLE" emulate --megakernel tests/mpk/splitk.mug --keep >"$tmp/kept" 2>&1
kept=$(sed -n 's/^emulate: files kept in //p' "$tmp/kept")
"$AXLE" mpk tests/mpk/splitk.mug --output "$tmp/splitk.cu"
check "the emulator runs axle mpk --output's file" cmp -s "$kept/kernel.cu" "$tmp/splitk.cu"
[ -n "$kept" ] && rm -rf "$kept"
check "splitk: the megakernel prefetches" has "$tmp/splitk.cu" "^static __device__ const unsigned ax_mk_pf\\[2\\]\\[2\\] = {{3u, 3u}, {0u, 1u}};"
"$AXLE" emulate --megakernel tests/mpk/splitk.mug --workers 1 >"$tmp/one" 2>&1; st=$?
check "splitk, one worker (prefetches produced tiles): agrees" [ "$st" -eq 0 ]
for g in gqa rmsnorm_linear; do
  "$AXLE" emulate --megakernel $ex/$g.mug --runs 2 --seed 7 >"$tmp/$g" 2>&1; st=$?
  check "$g: 2 schedules agree (exit 0)" [ "$st" -eq 0 ]
  check "$g: schedules 7 and 8" [ "$(count "$tmp/$g" "^  schedule [78]:")" -eq 2 ]
done

# the mutant: one edge dropped, caught
AXLE_TEST_MPK_DROP_EDGE=1 "$AXLE_TEST_BIN" emulate --megakernel tests/mpk/splitk.mug --runs 100 \
  >"$tmp/drop" 2>&1; st=$?
check "dropped edge: exit 1" [ "$st" -eq 1 ]
check "dropped edge: named" has "$tmp/drop" "^emulate: test hook: dropped the edge from task 0 (k1 block 0,0,0) to event 1"
check "dropped edge: a wrong output" has "$tmp/drop" "^DIFFERS: the megakernel under schedule [0-9]* does not compute"
check "dropped edge: the output read too early is nan" has "$tmp/drop" "max relative error inf"
# the other mutant: each task releases its events before its stores, caught
AXLE_TEST_MPK_EARLY_RELEASE=1 "$AXLE_TEST_BIN" emulate --megakernel tests/mpk/splitk.mug --runs 100 \
  >"$tmp/early" 2>&1; st=$?
check "early release: exit 1" [ "$st" -eq 1 ]
check "early release: named" has "$tmp/early" "^emulate: test hook: every task releases its events before its stores"
check "early release: a wrong output" has "$tmp/early" "^DIFFERS: the megakernel under schedule [0-9]* does not compute"
# the third: the next task's produced tiles prefetched before its event fires, caught
AXLE_TEST_MPK_EARLY_PREFETCH=1 "$AXLE_TEST_BIN" emulate --megakernel tests/mpk/splitk.mug --runs 100 \
  >"$tmp/pf" 2>&1; st=$?
check "early prefetch: exit 1" [ "$st" -eq 1 ]
check "early prefetch: named" has "$tmp/pf" "^emulate: test hook: every task's first tiles are prefetched before its event fires"
check "early prefetch: a wrong output" has "$tmp/pf" "^DIFFERS: the megakernel under schedule [0-9]* does not compute"
check "early prefetch: the tile loaded too early is nan" has "$tmp/pf" "max relative error inf"
# axle itself ignores the hooks
AXLE_TEST_MPK_DROP_EDGE=1 AXLE_TEST_MPK_EARLY_RELEASE=1 AXLE_TEST_MPK_EARLY_PREFETCH=1 "$AXLE" emulate --megakernel tests/mpk/splitk.mug --runs 3 >"$tmp/rel" 2>&1; st=$?
check "axle ignores the hook" [ "$st" -eq 0 ]
check "axle ignores the hook: no edge dropped" [ "$(count "$tmp/rel" "test hook")" -eq 0 ]

# bad input and usage
"$AXLE" emulate --megakernel tests/gpu/predefined.mug >"$tmp/out" 2>"$tmp/err"; st=$?
check "pre-defined operator: exit 3" [ "$st" -eq 3 ]
check "pre-defined operator: located" has "$tmp/err" "predefined.mug:10:.*runs graph-defined kernels only, and 'm' is a pre-defined operator"
"$AXLE" emulate $ex/gqa.mug --workers 2 2>"$tmp/err"; st=$?
check "--workers without --megakernel: exit 3" [ "$st" -eq 3 ]
check "--workers without --megakernel: message" has "$tmp/err" "--workers and --runs need --megakernel"
"$AXLE" emulate --megakernel $ex/gqa.mug --workers 0 2>"$tmp/err"; st=$?
check "--workers 0: exit 3" [ "$st" -eq 3 ]
check "--workers 0: message" has "$tmp/err" "--workers is a whole number from 1 to 256"
"$AXLE" emulate --megakernel $ex/gqa.mug --runs 0 2>"$tmp/err"; st=$?
check "--runs 0: exit 3" [ "$st" -eq 3 ]
echo "mpk emulate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
