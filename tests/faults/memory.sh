#!/usr/bin/env bash
# Memory faults: running out of memory is "axle: error: out of memory"
# and exit 3, never SIGABRT (134); `axle equiv` computes what the shapes need before it
# allocates anything and refuses above --memory (default 4096 MB), and so do superopt,
# optimize and emulate; import, cost, cuda and mugraph refuse where what they read grows past
# it ("memory limit reached", base/mem.h). A worker that runs out
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

# --- --memory on every verb that allocates (base/mem.h): refused cleanly, exit 3 --------------
# the verbs that evaluate tensors refuse from the shapes before anything is allocated: a 2048 x
# 2048 matmul's check needs about 480 MB
cat >"$tmp/mm.axl" <<'AXL'
program mm {
  input X : f32[2048, 2048]
  input W : f32[2048, 2048]
  let A = matmul(X, W)
  output B = exp(A) * 2
}
AXL
refused() {   # refused NAME PATTERN COMMAND...: exit 3 and PATTERN on stderr
  local name=$1 pat=$2; shift 2
  timeout 120 "$@" >/dev/null 2>"$tmp/m.err"
  local st=$?
  check "$name: exit 3 (got $st)" [ "$st" = 3 ]
  check "$name: says why" grep -qE -- "$pat" "$tmp/m.err"
  check "$name: no crash report" bash -c "! grep -qiE 'internal error|abort|segmentation' '$tmp/m.err'"
}
refused "superopt --memory 16" "program 'mm': checking a graph against it at full shape needs about [0-9]+ MB \\(1 thread\\), more than the --memory limit of 16 MB" \
  "$AXLE" superopt --no-gate --memory 16 "$tmp/mm.axl" --output "$tmp/mm.mug"
check "superopt --memory 16: nothing written" test ! -e "$tmp/mm.mug"
refused "optimize --memory 16" "optimize: checking a rewritten program against 'mm' needs about [0-9]+ MB, more than the --memory limit of 16 MB" \
  "$AXLE" optimize --memory 16 --rules rules/superopt "$tmp/mm.axl" --output "$tmp/mm.out.axl"
refused "emulate --memory 1" "emulate: running mugraph 'lora' needs about [0-9]+ MB, more than the --memory limit of 1 MB" \
  "$AXLE" emulate --memory 1 superopt/examples/lora.mug
# a module: the region too big for its checks is refused by the search, named in the report
timeout 120 "$AXLE" superopt --no-gate --memory 16 --time-limit 2 "$tmp/mm.axl" --output-dir "$tmp/mmd" >/dev/null 2>&1
st=$?
check "superopt --output-dir --memory 16: exit 1, nothing faster (got $st)" [ "$st" = 1 ]
check "superopt --output-dir --memory 16: the region's reason" \
  jqt '.regions[0].reason | test("needs about [0-9]+ MB .*more than the --memory limit of 16 MB")' "$tmp/mmd/report.json"
# the verbs that hold only what they read (the IR of a large file) refuse where it grows past
# the limit: a chain of 20000 additions
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
h = ['HloModule chain', '', 'ENTRY main {', '  p0 = f32[8,8]{1,0} parameter(0)']
m = ['mugraph chain {', '  input X : f32[8, 8]']
for i in range(20000):
    h.append('  %sa%d = f32[8,8]{1,0} add(%s, p0)' % ('ROOT ' if i == 19999 else '', i, 'a%d' % (i - 1) if i else 'p0'))
    m.append('  t%d = add(%s, X)' % (i, 't%d' % (i - 1) if i else 'X'))
open(d + '/chain.hlo', 'w').write('\n'.join(h + ['}']) + '\n')
open(d + '/chain.mug', 'w').write('\n'.join(m + ['  output t19999', '}']) + '\n')
PY
lim="^axle: error: memory limit reached: [0-9.]+ MB more were needed with [0-9.]+ MB held, beyond --memory 2 "
refused "import --memory 2" "$lim" "$AXLE" import --memory 2 "$tmp/chain.hlo"
refused "cost --memory 2" "$lim" "$AXLE" cost --memory 2 "$tmp/chain.mug"
refused "cuda --memory 2" "$lim" "$AXLE" cuda --memory 2 "$tmp/chain.mug" --output "$tmp/chain.cu"
check "cuda --memory 2: no partial file" test ! -e "$tmp/chain.cu"
refused "mugraph check --memory 2" "$lim" "$AXLE" mugraph --memory 2 check "$tmp/chain.mug"
refused "equiv --memory 2 (its files)" "$lim" "$AXLE" equiv --memory 2 "$tmp/chain.hlo" "$tmp/chain.mug"
# the default holds them
check "import with the default: exit 0" bash -c "'$AXLE' import '$tmp/chain.hlo' >/dev/null 2>&1"
check "cost with the default: exit 0" bash -c "'$AXLE' cost '$tmp/chain.mug' >/dev/null 2>&1"
for v in superopt optimize import cuda emulate cost mugraph; do
  "$AXLE" $v --memory -5 x >/dev/null 2>"$tmp/u.err"
  check "$v --memory -5: refused (exit 3)" [ $? = 3 ]
  check "$v --memory -5: the option's message" grep -q -- "--memory takes megabytes from 0 (no limit) to 4194304" "$tmp/u.err"
done

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
