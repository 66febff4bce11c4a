#!/usr/bin/env bash
# The verdict fuzzer (tools/verdict-fuzz.py, docs/architecture.md "The verdict fuzzer"): about 20
# seconds with a fixed seed must generate and check rules — VERIFIED and INVALID among them,
# every INVALID's counterexample reproduced by brute force — and find no discrepancy. Then the
# oracle is shown able to fail: a fake `axle` that turns every INVALID into VERIFIED, and one
# that rewrites every counterexample's values, must each be caught (exit 1), with a minimized
# finding written that the real axle refutes; one that turns every VERIFIED into
# INVALID-HINT is caught on the hints the generator wrote right and on the missing witness.
# Shard/merge round trips are part of the run, every tampered merge refused; a merge that
# takes a tampered set must be caught too.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed by tools/verdict-fuzz.py"; exit 1; }

AXLE="$AXLE" tools/verdict-fuzz.sh 20 5 --jobs 2 --shard-every 15 --out "$tmp/findings" --stats "$tmp/stats.json" \
  --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "fuzzer: exit 0 ($st)" [ "$st" = 0 ]
check "fuzzer: at least 20 rules generated" jqt '.rules >= 20' "$tmp/stats.json"
check "fuzzer: at least 15 well-formed rules checked" jqt '.well_formed >= 15' "$tmp/stats.json"
check "fuzzer: some ill-formed ones counted, not checked" jqt '.ill_formed >= 0 and .rules >= .well_formed + .ill_formed' "$tmp/stats.json"
check "fuzzer: corpus mutants among them" jqt '.mutants >= 1' "$tmp/stats.json"
check "fuzzer: VERIFIED and INVALID verdicts" jqt '.verdicts.verified >= 1 and .verdicts.invalid >= 1' "$tmp/stats.json"
check "fuzzer: brute force refuted some and found nothing in others" jqt '.brute.refuted >= 1 and .brute.none >= 1' "$tmp/stats.json"
check "fuzzer: INVALID counterexamples reproduced by brute force" jqt '.replays.reproduced >= 1' "$tmp/stats.json"
check "fuzzer: shard/merge round trips done" jqt '.shards.trips >= 1' "$tmp/stats.json"
check "fuzzer: every tampered merge refused" jqt '.shards.tampered_refused == 4 * .shards.trips' "$tmp/stats.json"
check "fuzzer: no discrepancy" jqt '.discrepancies == 0 and (.findings | length) == 0' "$tmp/stats.json"
check "fuzzer: a summary on standard output" has "$tmp/out" "^  discrepancies: 0$"
check "fuzzer: no findings written" test ! -e "$tmp/findings"

# A lying verifier: every INVALID reported as VERIFIED.
cat >"$tmp/liar" <<EOF
#!/bin/sh
if [ "\$1" = verify ]; then
  "$AXLE" "\$@" | jq -c 'if .verdict == "invalid" then .verdict = "verified" | .counterexample = null | .reason = null else . end'
  exit 0
fi
exec "$AXLE" "\$@"
EOF
chmod +x "$tmp/liar"
AXLE="$tmp/liar" tools/verdict-fuzz.sh 30 5 --jobs 2 --out "$tmp/liar-findings" --stats "$tmp/liar.json" \
  --stop-after 1 --minimize-seconds 25 --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "liar: the fuzzer fails (exit 1, got $st)" [ "$st" = 1 ]
check "liar: VERIFIED refuted by brute force" jqt '.kinds["verified-refuted"] >= 1' "$tmp/liar.json"
f=$(ls "$tmp"/liar-findings/verified-refuted-*.axl 2>/dev/null | head -1)
check "liar: a finding written" test -n "$f"
if [ -n "$f" ]; then
  check "liar: the finding says what it shows" has "$f" "^# verdict-fuzz finding: verified-refuted"
  check "liar: the finding keeps the original rule" has "$f" "^# seed 5, case [0-9]* (.*); minimized in [0-9]* steps from:"
  "$AXLE" check -q "$f"
  check "liar: the finding is a well-formed rule" [ $? = 0 ]
  "$AXLE" brute "$f" >/dev/null 2>&1
  check "liar: the real brute force refutes it" [ $? = 1 ]
  "$AXLE" verify --no-cache --solver z3 --format json "$f" >"$tmp/real.json" 2>/dev/null
  check "liar: the real verifier says INVALID" jqt -s 'any(.[]; .verdict == "invalid")' "$tmp/real.json"
fi

# A verifier whose counterexamples are not the ones it found: every number read becomes 0.
cat >"$tmp/forger" <<EOF
#!/bin/sh
if [ "\$1" = verify ]; then
  "$AXLE" "\$@" | jq -c 'if .verdict == "invalid" then .counterexample.reads |= map(if .value == "true" or .value == "false" then . else .value = "0" end) | .counterexample.unlisted_points_k = 0 | del(.counterexample.unlisted_points_t) else . end'
  exit 0
fi
exec "$AXLE" "\$@"
EOF
chmod +x "$tmp/forger"
AXLE="$tmp/forger" tools/verdict-fuzz.sh 30 5 --jobs 2 --out "$tmp/forged" --stats "$tmp/forged.json" \
  --stop-after 1 --minimize-seconds 0 --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "forger: the fuzzer fails (exit 1, got $st)" [ "$st" = 1 ]
check "forger: a counterexample that does not reproduce" \
  jqt '[.kinds | to_entries[] | select(.key | startswith("cex-")) | .value] | add >= 1' "$tmp/forged.json"
check "forger: its finding written" bash -c "ls '$tmp'/forged/cex-*.axl >/dev/null 2>&1"

# A merge that takes whatever it is given: a tampered set of reports passes (exit 0).
cat >"$tmp/lax" <<EOF
#!/bin/sh
if [ "\$1" = gate ] && [ "\$2" = --merge ]; then
  "$AXLE" "\$@" 2>/dev/null
  st=\$?
  [ \$st = 3 ] && exit 0
  exit \$st
fi
exec "$AXLE" "\$@"
EOF
chmod +x "$tmp/lax"
AXLE="$tmp/lax" tools/verdict-fuzz.sh 30 5 --jobs 2 --out "$tmp/lax-findings" --stats "$tmp/lax.json" \
  --shard-every 2 --stop-after 1 --minimize-seconds 0 --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "lax merge: the fuzzer fails (exit 1, got $st)" [ "$st" = 1 ]
check "lax merge: a tampered merge not refused" jqt '.kinds["shard-tamper"] >= 1' "$tmp/lax.json"
f=$(ls "$tmp"/lax-findings/shard-tamper-*.axl 2>/dev/null | head -1)
check "lax merge: a finding written" test -n "$f"
if [ -n "$f" ]; then
  check "lax merge: the finding says what it shows" has "$f" "^# verdict-fuzz finding: shard-tamper"
  "$AXLE" check -q "$f"
  check "lax merge: the finding holds well-formed rules" [ $? = 0 ]
fi

# A verifier that calls pairings wrong: every VERIFIED becomes INVALID-HINT, with a witness
# where the rule writes a hint (caught where the generator's hint is right) and without one
# elsewhere (caught everywhere).
cat >"$tmp/hinter" <<EOF
#!/bin/sh
if [ "\$1" = verify ]; then
  for f; do :; done
  if grep -q '^  hint' "\$f"; then cex='{"failed": "forged"}'; else cex=null; fi
  "$AXLE" "\$@" | jq -c --argjson cex "\$cex" 'if .verdict == "verified" then .verdict = "invalid-hint" | .counterexample = \$cex | .reason = "forged" else . end'
  exit 0
fi
exec "$AXLE" "\$@"
EOF
chmod +x "$tmp/hinter"
AXLE="$tmp/hinter" tools/verdict-fuzz.sh 25 5 --jobs 2 --out "$tmp/hinted" --stats "$tmp/hinted.json" \
  --minimize-seconds 0 --quiet >"$tmp/out" 2>"$tmp/err"
st=$?
check "hinter: the fuzzer fails (exit 1, got $st)" [ "$st" = 1 ]
check "hinter: an INVALID-HINT without its witness" jqt '.kinds["hint-unwitnessed"] >= 1' "$tmp/hinted.json"
check "hinter: an INVALID-HINT for a right hint" jqt '.kinds["hint-refuted-right"] >= 1' "$tmp/hinted.json"
check "hinter: the right hint's finding written, saying what it shows" \
  bash -c "grep -l '^# verdict-fuzz finding: hint-refuted-right' '$tmp'/hinted/hint-refuted-right-*.axl >/dev/null 2>&1"

echo "verdict_fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
