#!/usr/bin/env bash
# Memory faults: running out of memory is "axle: error: out of memory"
# and exit 3, never SIGABRT (134); `axle equiv` computes what the shapes need before it
# allocates anything and refuses above --memory (default 4096 MB). A worker that runs out
# of memory fails its rule with ERROR (tests/unit/check_jobs.c, test_memory_limit).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"

# --- equiv on a 65536 x 65536 program: refused from the shapes ------------------------------
cat >"$tmp/big.axl" <<'AXL'
program big {
  input X : f16[65536, 65536]
  output O = X + X
}
AXL
cat >"$tmp/big.mug" <<'MUG'
mugraph big {
  input X : f16[65536, 65536]
  O = add(X, X)
  output O
}
MUG
timeout 120 "$AXLE" equiv --seed 1 "$tmp/big.axl" "$tmp/big.mug" >/dev/null 2>"$tmp/big.err"
st=$?
check "equiv 65536x65536: exit 3 (got $st)" [ "$st" = 3 ]
check "equiv 65536x65536: says what it needs" \
  grep -q "axle: error: equiv: evaluating program 'big' and mugraph 'big' needs about [0-9]* MB, more than the --memory limit of 4096 MB" "$tmp/big.err"
timeout 120 "$AXLE" equiv --memory 1 --seed 1 superopt/examples/lora.axl superopt/examples/lora.mug \
  >/dev/null 2>"$tmp/small.err"
st=$?
check "equiv under --memory 1: exit 3 (got $st)" [ "$st" = 3 ]
check "equiv under --memory 1: message" grep -q "more than the --memory limit of 1 MB" "$tmp/small.err"
check "equiv with the default: lora runs" \
  sh -c "'$AXLE' equiv --seed 1 superopt/examples/lora.axl superopt/examples/lora.mug | grep -q '^equivalent'"
"$AXLE" equiv --memory -5 superopt/examples/lora.axl superopt/examples/lora.mug >/dev/null 2>&1
check "equiv --memory -5: refused" [ $? = 3 ]

# --- the process out of memory: an error, not an abort (no address-space limit under ASan) ---
if [ "${AXLE_SANITIZED:-0}" = 1 ]; then
  echo "SKIPPED (loudly): ulimit -v cannot be used in a sanitizer build (shadow memory)"
else
  head -c $((40 * 1024 * 1024)) /dev/zero | tr '\0' '#' >"$tmp/big-comment.axl"
  (ulimit -v 90000; exec "$AXLE" check "$tmp/big-comment.axl") >/dev/null 2>"$tmp/oom.err"
  st=$?
  check "out of memory: exit 3, not 134 (got $st)" [ "$st" = 3 ]
  check "out of memory: message" \
    grep -q "^axle: error: out of memory ([0-9]* bytes more were needed; see ulimit -v)" "$tmp/oom.err"
  # and verify, in the caller before the workers start
  (ulimit -v 90000; exec "$AXLE" verify "$tmp/big-comment.axl") >/dev/null 2>"$tmp/oom2.err"
  st=$?
  check "verify out of memory: exit 3 (got $st)" [ "$st" = 3 ]
fi

echo "faults/memory: $pass passed, $fail failed"
[ "$fail" = 0 ]
