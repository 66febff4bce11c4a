#!/usr/bin/env bash
# The emulated megakernel under ThreadSanitizer: `axle emulate --megakernel` with a C++
# compiler that adds -fsanitize=thread, so that the worker threads' accesses to the tensors
# are checked against the runtime's own synchronization (the emulator announces its fibers to
# ThreadSanitizer and keeps its schedule's counters relaxed: docs/mpk.md, "A race detector").
# Split-K runs clean under two schedules; the megakernel that releases its events before its
# stores (AXLE_TEST_MPK_EARLY_RELEASE) and the one that prefetches produced tiles before their
# event fires (AXLE_TEST_MPK_EARLY_PREFETCH) are reported as data races within four schedules
# (runs here caught both at the first schedule of every seed tried), whether or not their
# outputs come out wrong. Skipped (exit 77) where the compiler cannot build and run a
# ThreadSanitizer program. Not in ctest (a ThreadSanitizer compile per run costs about 12 CPU
# seconds in all): `make test-tsan` runs it.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
cxx=${CXX:-g++}
printf 'int main() { return 0; }\n' >"$tmp/probe.cc"
if ! "$cxx" -fsanitize=thread "$tmp/probe.cc" -o "$tmp/probe" >/dev/null 2>&1 || ! "$tmp/probe"; then
  echo "SKIP: $cxx cannot build and run a ThreadSanitizer program (-fsanitize=thread): the"
  echo "SKIP: emulated megakernel was NOT checked for races"
  exit 77
fi
printf '#!/bin/sh\nexec %s -fsanitize=thread -g "$@"\n' "$cxx" >"$tmp/cxx-tsan"
chmod +x "$tmp/cxx-tsan"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
CXX="$tmp/cxx-tsan" "$AXLE" emulate --megakernel tests/mpk/splitk.mug --runs 2 >"$tmp/clean" 2>&1; st=$?
check "splitk under ThreadSanitizer: agrees (exit 0)" [ "$st" -eq 0 ]
check "splitk under ThreadSanitizer: no race" bash -c "! grep -q ThreadSanitizer '$tmp/clean'"
[ "$fail" -eq 0 ] || head -40 "$tmp/clean"
for hook in EARLY_RELEASE EARLY_PREFETCH; do
  env "AXLE_TEST_MPK_$hook=1" CXX="$tmp/cxx-tsan" "$AXLE_TEST_BIN" emulate --megakernel tests/mpk/splitk.mug \
    --runs 4 >"$tmp/$hook" 2>&1; st=$?
  check "$hook: the emulated program fails (exit 2)" [ "$st" -eq 2 ]
  check "$hook: a data race reported" has "$tmp/$hook" "WARNING: ThreadSanitizer: data race"
done
echo "mpk tsan: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
