#!/usr/bin/env bash
# Command-line faults: --help and -h exit 0 for every verb, --version; options after
# operands and -- ending the options; numbers out of range are refused (exit 3); a run with
# no rule to verify is exit 3 with a message; ERROR is counted apart from UNKNOWN.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
rule=rules/examples/pad_low_combine.axl
mug=superopt/examples/lora.mug
prog=superopt/examples/lora.axl

for verb in check fmt verify gate brute equiv mugraph cost superopt cuda emulate import optimize; do
  for h in --help -h; do
    "$AXLE" $verb $h >"$tmp/help.out" 2>"$tmp/help.err"
    st=$?
    check "$verb $h: exit 0 (got $st)" [ "$st" = 0 ]
    check "$verb $h: usage on stdout" grep -q "usage: axle" "$tmp/help.out"
    check "$verb $h: nothing on stderr" [ ! -s "$tmp/help.err" ]
  done
done
"$AXLE" --version >"$tmp/v.out" 2>&1
check "--version: exit 0, names axle" grep -q "^axle [0-9]" "$tmp/v.out"
check "--version: says whether MPI is built in" grep -Eqx "mpi: (yes|no)" "$tmp/v.out"
check "--version: says whether GLPK (--extract ilp) is built in" grep -Eqx "ilp: (yes|no)" "$tmp/v.out"

# options after operands (GNU habit), and -- ending the options
"$AXLE" check "$rule" -q >"$tmp/o.out" 2>&1
check "check FILE -q: exit 0, quiet" [ $? = 0 -a ! -s "$tmp/o.out" ]
"$AXLE" fmt "$rule" --check >"$tmp/o.out" 2>&1
check "fmt FILE --check: exit 0" [ $? = 0 ]
"$AXLE" verify "$rule" --no-cache --solver z3 --format json >"$tmp/o.json" 2>"$tmp/o.err"
check "verify FILE --no-cache --solver z3: verified by z3 alone" \
  jq -e -s 'length == 2 and all(.[]; .verdict == "verified" and .solver == "z3" and (.cached | not))' "$tmp/o.json"
cp "$rule" "$tmp/-dash.axl"
(cd "$tmp" && "$AXLE" check -q -- -dash.axl)
check "check -- -dash.axl: a file named like an option" [ $? = 0 ]
(cd "$tmp" && "$AXLE" check -q -- -dash.axl -q 2>"$tmp/o.err")
check "after --, -q is a file: exit 3" [ $? = 3 ]
check "after --, -q is a file: cannot open it" grep -q "cannot open '-q'" "$tmp/o.err"

refused() {   # NAME PATTERN command...: exit 3 and PATTERN on stderr
  local name=$1 pattern=$2; shift 2
  "$@" >/dev/null 2>"$tmp/refused.err"
  local st=$?
  check "$name: exit 3 (got $st)" [ "$st" = 3 ]
  check "$name: says why" grep -q -- "$pattern" "$tmp/refused.err"
}
refused "--seed overflow" "--seed takes an integer from 0 to 2^64 - 1" \
  "$AXLE" equiv --seed 99999999999999999999999 "$prog" "$mug"
refused "--seed negative" "--seed takes" "$AXLE" equiv --seed -1 "$prog" "$mug"
refused "--float-tests huge" "--float-tests takes an integer from 0 to 10000" \
  "$AXLE" equiv --float-tests 2000000000 "$prog" "$mug"
refused "--tests huge" "--tests takes an integer from 1 to 1000000" \
  "$AXLE" equiv --tests 1000001 "$prog" "$mug"
refused "--max-tests zero" "--max-tests takes" "$AXLE" equiv --max-tests 0 "$prog" "$mug"
refused "--float-tol inf" "--float-tol takes" "$AXLE" equiv --float-tol inf "$prog" "$mug"
refused "--jobs 0" "--jobs takes" "$AXLE" verify --jobs 0 "$rule"
refused "--timeout overflow" "--timeout takes" "$AXLE" verify --timeout 1e400 "$rule"
refused "--memory too small" "--memory takes" "$AXLE" verify --memory 1 "$rule"
refused "--max-input 0" "--max-input takes MiB from 1 to 1024" "$AXLE" check --max-input 0 "$rule"
refused "--max-input huge" "--max-input takes" "$AXLE" verify --max-input 5000 "$rule"
refused "equiv unknown option" "unknown option '--bogus'" "$AXLE" equiv --bogus 1 "$prog" "$mug"
# a value option that ends the line has no value: the operand before it is not its value
refused "verify FILE --jobs" "verify: --jobs needs a value" "$AXLE" verify "$rule" --jobs
refused "cuda GRAPH --output" "axle: error: option needs a value" "$AXLE" cuda "$mug" --output
refused "check FILE --max-input" "check: --max-input takes MiB from 1 to 1024" "$AXLE" check "$rule" --max-input
# every verb takes options after its operands (one option table per verb: cli/opts.h)
"$AXLE" cost "$mug" --format json >"$tmp/o.json" 2>"$tmp/o.err"
check "cost GRAPH --format json: options after the operand" jq -e '.mugraph == "lora"' "$tmp/o.json"
"$AXLE" mugraph check "$mug" --max-input 2 >"$tmp/o.out" 2>&1
check "mugraph check GRAPH --max-input 2: exit 0" grep -q "is valid" "$tmp/o.out"

# nothing to verify
mkdir "$tmp/empty"
refused "verify an empty directory" "axle: error: verify: no rule to verify" "$AXLE" verify "$tmp/empty"
refused "gate an empty directory" "axle: error: gate: no rule to verify" "$AXLE" gate "$tmp/empty"
refused "--rule matching nothing" "no rule to verify (check the paths and --rule)" \
  "$AXLE" verify --rule no_such_rule "$rule"
refused "optimize --node-limit 0" "--node-limit takes 1 to 10000000" \
  "$AXLE" optimize --node-limit 0 "$prog" --output "$tmp/o.axl"
refused "optimize --iter-limit huge" "--iter-limit takes 1 to 100000" \
  "$AXLE" optimize --iter-limit 100001 "$prog" --output "$tmp/o.axl"
refused "optimize with an empty rules directory" "optimize: .*empty: no rule to verify" \
  "$AXLE" optimize --rules "$tmp/empty" "$prog" --output "$tmp/o.axl"

# ERROR apart from UNKNOWN: a solver that contradicts z3 makes every result ERROR
cat >"$tmp/liar" <<'SH'
#!/bin/sh
while read -r l; do case "$l" in *check-sat*) echo unsat;; *get-value*) echo "()";; esac; done
SH
chmod +x "$tmp/liar"
"$AXLE" verify --no-cache --cross-check --solver-binary "$tmp/liar" \
  --rule dyslice_to_slice_end_off_by_one rules/examples-mutants/dyslice_to_slice.axl \
  >"$tmp/err.out" 2>"$tmp/err.err"
st=$?
check "disagreement: exit 2 (got $st)" [ "$st" = 2 ]
check "disagreement: results are ERROR" grep -q "ERROR (expected invalid: NOT MET)" "$tmp/err.out"
check "disagreement: summary counts errors apart" \
  grep -q "^axle verify: 3 results: 0 verified, 0 invalid, 0 unknown, 3 errors; 0 of 3 as expected" "$tmp/err.out"

echo "faults/cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
