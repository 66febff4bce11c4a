#!/usr/bin/env bash
# Faults on the way out (docs/cli.md "Faults and limits"): a write that
# fails is exit 3 with "axle: error: cannot write FILE: <reason>", for every verb; a report
# file is written under a temporary name and renamed, so a failed run leaves the old report
# (or none), never a truncated one; stdout is line-buffered, so a killed run keeps the
# lines it printed.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
rule=rules/examples/pad_low_combine.axl
mug=superopt/examples/lora.mug
prog=superopt/examples/lora.axl

# runs "$@", keeping status, stdout and stderr as $tmp/NAME.{status,out,err}
run() {
  local name=$1; shift
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.status"
}
status() { [ "$(cat "$tmp/$1.status")" = "$2" ]; }

# --- a full disk: /dev/full as --output and as stdout, every verb ------------------------
run json-full "$AXLE" verify --format json --output /dev/full "$rule"
check "verify --output /dev/full: exit 3" status json-full 3
check "verify --output /dev/full: message" \
  grep -qx "axle: error: cannot write /dev/full: No space left on device" "$tmp/json-full.err"
run junit-full "$AXLE" gate --format junit --output /dev/full "$rule"
check "gate --output /dev/full: exit 3" status junit-full 3

stdout_full() {   # NAME command...: stdout on a full disk is exit 3 with the message
  local name=$1; shift
  "$@" >/dev/full 2>"$tmp/$name.err"
  local st=$?
  check "$name >/dev/full: exit 3 (got $st)" [ "$st" = 3 ]
  check "$name >/dev/full: message" \
    grep -qx "axle: error: cannot write standard output: No space left on device" "$tmp/$name.err"
}
stdout_full check "$AXLE" check "$rule"
stdout_full fmt "$AXLE" fmt "$rule"
stdout_full verify "$AXLE" verify "$rule"
stdout_full verify-json "$AXLE" verify --format json "$rule"
stdout_full gate "$AXLE" gate "$rule"
stdout_full equiv "$AXLE" equiv --seed 1 "$prog" "$mug"
stdout_full mugraph-fmt "$AXLE" mugraph fmt "$mug"
stdout_full mugraph-dot "$AXLE" mugraph dot "$mug"
stdout_full help "$AXLE" --help
stdout_full verify-help "$AXLE" verify --help

# --- a closed stdout -----------------------------------------------------------------------
"$AXLE" check "$rule" >&- 2>"$tmp/closed.err"
st=$?
check "closed stdout: exit 3 (got $st)" [ "$st" = 3 ]
check "closed stdout: message" \
  grep -qx "axle: error: cannot write standard output: standard output is closed" "$tmp/closed.err"
# a report file opened while stdout is closed must not become stdout
"$AXLE" verify --format json --output "$tmp/closed.json" "$rule" >&- 2>/dev/null
only_report() {   # two lines, each a verify record (jq fails on any other text)
  [ "$(wc -l < "$tmp/closed.json")" = 2 ] && [ "$(jcount "$tmp/closed.json" 'has("verdict")')" = 2 ]
}
check "closed stdout: the report holds only the report" only_report

# --- the report is replaced atomically --------------------------------------------------------
run good "$AXLE" verify --format json --output "$tmp/report.json" "$rule"
check "report written: exit 0" status good 0
check "report written: two results" [ "$(jcount "$tmp/report.json" '.verdict == "verified"')" = 2 ]
check "report written: no temporary left" [ -z "$(ls -A "$tmp" | grep '\.tmp-')" ]
cp "$tmp/report.json" "$tmp/before.json"
# a write that fails half way (file size limit: EFBIG once the report passes 1 KiB)
(trap '' XFSZ; ulimit -f 1; exec "$AXLE" verify --format json --output "$tmp/report.json" \
  rules/examples >/dev/null 2>"$tmp/efbig.err")
echo $? >"$tmp/efbig.status"
check "failed write: exit 3" status efbig 3
check "failed write: message" grep -q "axle: error: cannot write .*report.json: File too large" "$tmp/efbig.err"
check "failed write: the old report is intact" cmp -s "$tmp/before.json" "$tmp/report.json"
check "failed write: no temporary left" [ -z "$(ls -A "$tmp" | grep '\.tmp-')" ]
# a report whose directory does not exist: refused before any verification
run nodir "$AXLE" verify --format json --output "$tmp/no/such/dir/r.json" "$rule"
check "missing directory: exit 3" status nodir 3
check "missing directory: message" \
  grep -q "axle: error: cannot write $tmp/no/such/dir/r.json: No such file or directory" "$tmp/nodir.err"
# permissions of a replaced file are kept
chmod 640 "$tmp/report.json"
"$AXLE" verify --format json --output "$tmp/report.json" "$rule" >/dev/null 2>&1
check "replaced report keeps its mode" [ "$(stat -c %a "$tmp/report.json")" = 640 ]
# through a symbolic link, the file it names is replaced (the link stays)
ln -s report.json "$tmp/link.json"
"$AXLE" verify --format junit --output "$tmp/link.json" "$rule" >/dev/null 2>&1
check "symlinked report: still a link" [ -L "$tmp/link.json" ]
check "symlinked report: target rewritten" grep -q '<testsuites' "$tmp/report.json"

# --- fmt --write: atomic, and a failure is reported -------------------------------------------
printf 'rule r for T in num {\n rclass x\n  map s over x\n  tensor Y : T[x: s]\n  Y=>Y\n}\n' >"$tmp/ugly.axl"
chmod 600 "$tmp/ugly.axl"
run fmtw "$AXLE" fmt --write "$tmp/ugly.axl"
check "fmt --write: exit 0" status fmtw 0
check "fmt --write: canonical now" "$AXLE" fmt --check "$tmp/ugly.axl"
check "fmt --write: mode kept" [ "$(stat -c %a "$tmp/ugly.axl")" = 600 ]
printf 'rule r for T in num {\n rclass x\n  map s over x\n  tensor Y : T[x: s]\n  Y=>Y\n}\n' >"$tmp/ugly.axl"
cp "$tmp/ugly.axl" "$tmp/ugly.orig"
# (stderr through a pipe: the file size limit would stop the message into a file too)
(trap '' XFSZ; ulimit -f 0; exec "$AXLE" fmt --write "$tmp/ugly.axl" 2>&1 >/dev/null) | cat >"$tmp/fmtfull.err"
echo "${PIPESTATUS[0]}" >"$tmp/fmtfull.status"
check "fmt --write on a full disk: exit 3" status fmtfull 3
check "fmt --write on a full disk: message" grep -q "cannot write $tmp/ugly.axl: File too large" "$tmp/fmtfull.err"
check "fmt --write on a full disk: file intact" cmp -s "$tmp/ugly.orig" "$tmp/ugly.axl"

# --- a killed run keeps what it printed (line-buffered output into a file) ---------------------
# a quick rule first, then one that runs until its time limit; kill once the first is out
cat >"$tmp/slow.axl" <<'AXL'
rule quick for T in num {
  rclass x
  map s over x
  tensor Y : T[x: s]
  neg(neg(Y)) => Y
}
AXL
cat tests/verify/hard_nonlinear.axl >>"$tmp/slow.axl"
"$AXLE" verify --no-cache --jobs 1 --timeout 300 "$tmp/slow.axl" >"$tmp/killed.out" 2>/dev/null &
pid=$!
for _ in $(seq 1200); do grep -q "quick" "$tmp/killed.out" && break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
check "killed run: its first result is in the file" grep -q "quick \[int\]  VERIFIED" "$tmp/killed.out"

echo "faults/output: $pass passed, $fail failed"
[ "$fail" = 0 ]
