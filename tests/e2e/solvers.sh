#!/usr/bin/env bash
# Solvers end to end (docs/cli.md, "Solvers"): z3, cvc5, the z3 binary, the portfolio and the
# cross-check give the same verdicts on the example rules and their mutants; fake solvers
# that crash, hang or answer garbage make every rule UNKNOWN with the reason, and the run
# goes on; a worker killed or stopped under a rule costs that rule alone; --dump-smt
# writes every query as a file any solver can re-run, with the same answer.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
export XDG_CACHE_HOME="$tmp/cache"
# the examples and their mutants without the conv rules (cvc5 times out on those)
files="rules/examples/dot_as_reduce.axl rules/examples/dyslice_to_slice.axl
  rules/examples/mul_of_reductions.axl rules/examples/pad_low_combine.axl
  rules/examples/slice_dyup_slice.axl rules/examples/transpose_sum.axl
  rules/examples-mutants/dyslice_to_slice.axl rules/examples-mutants/pad_low_combine.axl
  rules/examples-mutants/reductions.axl rules/examples-mutants/transpose_sum.axl"
# rule, type and verdict of each result, in order
verdicts() { jq -r '[.rule, .type, .verdict, .met] | @tsv' "$1"; }

"$AXLE" verify --no-cache --format json $files > "$tmp/z3.json"; st=$?
check "z3: exit 0" [ "$st" = 0 ]
n=$(wc -l < "$tmp/z3.json")
check "z3: 50 results" [ "$n" = 50 ]
verdicts "$tmp/z3.json" > "$tmp/z3.tsv"
for s in cvc5 z3-binary portfolio; do
  "$AXLE" verify --no-cache --solver $s --format json $files > "$tmp/$s.json"; st=$?
  check "$s: exit 0" [ "$st" = 0 ]
  check "$s: solver named" [ "$(jcount "$tmp/$s.json" ".solver == \"$s\"")" = "$n" ]
  verdicts "$tmp/$s.json" > "$tmp/$s.tsv"
  check "$s: same verdicts as z3" cmp -s "$tmp/z3.tsv" "$tmp/$s.tsv"
done
"$AXLE" verify --no-cache --solver portfolio --cross-check --format json $files \
  > "$tmp/cross.json" 2> "$tmp/cross.err"; st=$?
check "cross-check: exit 0" [ "$st" = 0 ]
verdicts "$tmp/cross.json" > "$tmp/cross.tsv"
check "cross-check: same verdicts as z3" cmp -s "$tmp/z3.tsv" "$tmp/cross.tsv"
check "cross-check: solver named" [ "$(jcount "$tmp/cross.json" '.solver == "portfolio+cross-check"')" = "$n" ]
check "cross-check: no disagreement" [ ! -s "$tmp/cross.err" ]

# a solver that lies is caught by the cross-check, loudly, and nothing is proved by it
printf '#!/bin/sh\necho unsat\n' > "$tmp/liar"; chmod +x "$tmp/liar"
"$AXLE" verify --no-cache --cross-check --solver-binary "$tmp/liar" --format json \
  rules/examples-mutants/transpose_sum.axl > "$tmp/liar.json" 2> "$tmp/liar.err"; st=$?
check "liar: exit 2" [ "$st" = 2 ]
check "liar: every result an error" [ "$(jcount "$tmp/liar.json" '.verdict == "error"')" = 4 ]
check "liar: reason names both answers and the query" \
  [ "$(jcount "$tmp/liar.json" '.reason | contains("SOLVERS DISAGREE: z3 says sat, liar says unsat; query: /")')" = 4 ]
check "liar: reported on stderr" has "$tmp/liar.err" "axle: error: rules/examples-mutants/transpose_sum.axl:4: transpose_of_double \[int\]: .*SOLVERS DISAGREE"
rm -f "${TMPDIR:-/tmp}"/axle-disagreement-*.smt2 2>/dev/null

# fake solvers: every failure is UNKNOWN with the reason; all rules are still reported
two="rules/examples/pad_low_combine.axl rules/examples/transpose_sum.axl"
fake() {   # fake NAME BODY
  printf '#!/bin/sh\n%s\n' "$2" > "$tmp/$1"; chmod +x "$tmp/$1"
}
fake crash 'kill -SEGV $$'
fake garbage 'echo hello world'
fake hang 'exec sleep 300'
for f in crash garbage hang; do
  # (a hanging solver costs 1 s + 2 s of grace a query: one file with few queries)
  [ $f = hang ] && in=rules/examples/transpose_sum.axl n=2 || in=$two n=4
  "$AXLE" verify --no-cache --timeout 1 --solver cvc5 --solver-binary "$tmp/$f" --format json \
    $in > "$tmp/$f.json" 2> "$tmp/$f.err"; st=$?
  check "$f: exit 2" [ "$st" = 2 ]
  check "$f: all $n results reported, all unknown" [ "$(jcount "$tmp/$f.json" '.verdict == "unknown"')" = $n ]
done
check "crash: reason" \
  [ "$(jcount "$tmp/crash.json" '.reason | test("^at rank [a-z]=[0-9]+: solver crashed \\(signal 11\\)$")')" = 4 ]
check "garbage: reason" \
  [ "$(jcount "$tmp/garbage.json" '.reason | test("^at rank [a-z]=[0-9]+: unparsable answer: hello world$")')" = 4 ]
check "hang: reason" \
  [ "$(jcount "$tmp/hang.json" '.reason | test("^at rank [a-z]=[0-9]+: timeout after 1 s \\(solver did not answer; killed\\)$")')" = 2 ]
"$AXLE" verify --no-cache --solver portfolio --solver-binary "$tmp/crash" --format json $two \
  > "$tmp/pcrash.json"; st=$?
check "portfolio with a crashing cvc5: z3 answers, exit 0" [ "$st" = 0 ]

# a worker that dies or hangs under one rule: that rule is UNKNOWN, the run goes on
fake killer "if mkdir '$tmp/killed' 2>/dev/null; then kill -9 \$PPID; fi; exec cvc5 --lang=smt2"
"$AXLE" verify --no-cache --jobs 1 --solver cvc5 --solver-binary "$tmp/killer" --format json $two \
  > "$tmp/killer.json"; st=$?
check "killed worker: exit 2" [ "$st" = 2 ]
check "killed worker: first rule unknown with the reason" \
  jqt '.rule == "pad_low_combine" and .verdict == "unknown" and .reason == "worker killed by SIGKILL (signal 9), not sent by axle: the kernel'"'"'s out-of-memory killer sends it, or another process did"' \
    <(head -1 "$tmp/killer.json")
check "killed worker: the other 3 verified" [ "$(jcount "$tmp/killer.json" '.verdict == "verified"')" = 3 ]
fake stopper "if mkdir '$tmp/stopped' 2>/dev/null; then kill -STOP \$PPID; fi; exec cvc5 --lang=smt2"
"$AXLE" verify --no-cache --jobs 2 --rule-timeout 5 --solver cvc5 --solver-binary "$tmp/stopper" \
  --format json $two > "$tmp/stopper.json"; st=$?
check "hung worker: exit 2" [ "$st" = 2 ]
check "hung worker: one rule unknown with the reason" \
  [ "$(jcount "$tmp/stopper.json" '.verdict == "unknown" and .reason == "worker exceeded 5 s"')" = 1 ]
check "hung worker: the other 3 verified" [ "$(jcount "$tmp/stopper.json" '.verdict == "verified"')" = 3 ]
check "hung worker: output in input order" \
  [ "$(jq -r '.rule + "/" + .type' "$tmp/stopper.json" | tr '\n' ' ')" = \
    "pad_low_combine/int pad_low_combine/real transpose_of_symmetric_sum/int transpose_of_symmetric_sum/real " ]

# --dump-smt: one file per query, named after rule, type and rank instance, re-runnable
"$AXLE" verify --no-cache --dump-smt "$tmp/dump" rules/examples/pad_low_combine.axl \
  rules/examples/slice_dyup_slice.axl rules/examples-mutants/reductions.axl > /dev/null; st=$?
check "dump: exit 0" [ "$st" = 0 ]
for f in pad_low_combine.int.x_1.vc pad_low_combine.int.x_2.vc \
         pad_low_combine.real.x_2.vacuity slice_dyup_slice.int.x_2.vc \
         mul_of_reductions_hint_not_injective.int.x_1-r_1.hint-1; do
  check "dump: $f.smt2 written" [ -s "$tmp/dump/$f.smt2" ]
done
check "dump: the file names its rule" has "$tmp/dump/pad_low_combine.int.x_2.vc.smt2" \
  "; rule pad_low_combine \[int\] of rules/examples/pad_low_combine.axl"
for s in z3 cvc5; do
  check "dump: $s proves the valid rule's condition" \
    [ "$($s "$tmp/dump/pad_low_combine.int.x_2.vc.smt2" | head -1)" = unsat ]
  check "dump: $s refutes the invalid rule's condition" \
    [ "$($s "$tmp/dump/slice_dyup_slice.real.x_2.vc.smt2" | head -1)" = sat ]
done
# same rule name in two files: told apart
cp rules/examples/pad_low_combine.axl "$tmp/again.axl"
"$AXLE" verify --no-cache --dump-smt "$tmp/dump2" rules/examples/pad_low_combine.axl "$tmp/again.axl" \
  > /dev/null
check "dump: a rule name in two files gets @1" [ -s "$tmp/dump2/pad_low_combine@1.int.x_2.vc.smt2" ]
check "dump: ... and @2" [ -s "$tmp/dump2/pad_low_combine@2.int.x_2.vc.smt2" ]

echo "solvers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
