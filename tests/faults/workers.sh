#!/usr/bin/env bash
# A verification worker that dies is reported by the signal that killed it, by name, with
# what it means, and with the memory limit named as the cause only when an allocation had
# failed (docs/cli.md, "Parallel jobs"): test hook AXLE_TEST_WORKER_FAULT=RULE:HOW (axle-test
# only) makes the worker that takes RULE die as HOW says. The rule is then UNKNOWN, never
# VERIFIED, the other rules of the run are verified as usual, and the release binary ignores
# the hook. The sanitizer build catches the signals itself and applies no memory limit: there
# only the verdicts are checked.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
files="rules/examples/pad_low_combine.axl rules/examples/transpose_sum.axl"
sanitized=${AXLE_SANITIZED:-0}
[ "$sanitized" = ON ] || [ "$sanitized" = 1 ] || [ "$sanitized" = true ] && sanitized=1 || sanitized=0

died() {   # died HOW REASON-PATTERN [OPTIONS...]: pad_low_combine's worker dies as HOW says
  local how=$1 pattern=$2 st; shift 2
  AXLE_TEST_WORKER_FAULT="pad_low_combine:$how" timeout 120 "$AXLE_TEST_BIN" verify --no-cache \
    --solver z3 --jobs 1 --format json "$@" $files >"$tmp/$how.json" 2>"$tmp/$how.err"
  st=$?
  check "$how: exit 2 ($st)" [ "$st" = 2 ]
  check "$how: both types of the rule UNKNOWN" \
    jqt -s '[.[] | select(.rule == "pad_low_combine") | .verdict] == ["unknown", "unknown"]' "$tmp/$how.json"
  check "$how: the other rule verified" \
    jqt -s '[.[] | select(.rule != "pad_low_combine") | .verdict] | length > 0 and all(. == "verified")' "$tmp/$how.json"
  [ "$sanitized" = 1 ] && return
  check "$how: the reason" \
    jqt -s --arg p "$pattern" 'all(.[] | select(.rule == "pad_low_combine"); .reason | test($p))' "$tmp/$how.json"
}
space='; [0-9]+ MB of address space in use, the memory limit is 512 MB$'
died abort "^worker killed by SIGABRT \\(signal 6\\): an abort, a failed assertion or a library's fatal error \\(its message is on standard error\\)$space" --memory 512
died segv "^worker killed by SIGSEGV \\(signal 11\\): an invalid memory access or a stack overflow$space" --memory 512
died stack "^worker killed by SIGSEGV \\(signal 11\\): an invalid memory access or a stack overflow$space" --memory 512
died kill "^worker killed by SIGKILL \\(signal 9\\), not sent by axle: the kernel's out-of-memory killer sends it, or another process did$" --memory 512
# GMP asked for a number it cannot represent: its own abort, not the memory limit (the
# literal 1e999999999999 did this once; now the parser refuses it, faults/literals.sh)
died gmp-overflow "^worker killed by SIGABRT \\(signal 6\\): an abort, a failed assertion or a library's fatal error" --memory 512
[ "$sanitized" = 1 ] || check "gmp-overflow: GMP's message on standard error" has "$tmp/gmp-overflow.err" "gmp: overflow in mpz type"
# beyond the memory limit (none in the sanitizer build): malloc's ENOMEM, then an abort as
# GMP's allocator does; GMP itself asked for 3.6 GB under a 512 MB limit
if [ "$sanitized" = 0 ]; then
  died oom "^worker killed by SIGABRT \\(signal 6\\) after an allocation failed \\(ENOMEM\\): memory limit exceeded$space" --memory 512
  died gmp-oom "^worker killed by SIGABRT \\(signal 6\\) after an allocation failed \\(ENOMEM\\): memory limit exceeded$space" --memory 512
  check "gmp-oom: GMP's message on standard error" has "$tmp/gmp-oom.err" "GNU MP: Cannot allocate memory"
  # no limit: an allocation beyond the address space fails all the same
  died oom "^worker killed by SIGABRT \\(signal 6\\) after an allocation failed \\(ENOMEM\\): out of memory; [0-9]+ MB of address space in use, no memory limit$" --memory 0
fi

# the release binary reads no hook: the run is as without it
AXLE_TEST_WORKER_FAULT=pad_low_combine:abort "$AXLE" verify --no-cache --solver z3 --format json $files \
  >"$tmp/release.json" 2>/dev/null
check "axle ignores the hook: exit 0" [ $? = 0 ]
check "axle ignores the hook: every rule verified" jqt -s 'all(.[]; .verdict == "verified")' "$tmp/release.json"

echo "faults/workers: $pass passed, $fail failed"
[ "$fail" = 0 ]
