#!/usr/bin/env bash
# Literals at and beyond the limits of base/decimal.h (docs/language.md, "Lexical
# structure"): at most 4096 digits and an exponent of at most 4096 in absolute value. At the
# limits a literal is exact everywhere (check, brute, verify: VERIFIED); beyond them it is a
# located error of the parser, exit 3, from every command that reads rules or programs —
# never a GMP abort (SIGABRT, "gmp: overflow in mpz type") or a worker killed on the way. The
# .mug and HLO readers hold literals as int64 rationals: a located error and a cut. A
# counterexample value of `brute --instance` is held to the same digit limit.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
zeros() { head -c "$1" /dev/zero | tr '\0' 0; }
rule() {   # rule NAME TYPE REWRITE: a one-class rule over a tensor A
  printf 'rule %s for T in %s {\n  rclass c\n  map n over c\n  tensor A : T[c: n]\n\n  %s\n}\n' "$1" "$2" "$3"
}

# --- at the limits: exact values ------------------------------------------------------------
{
  rule near_exponent real "A * 1e4096 => A * 1e4095 * 10"
  echo
  rule near_negative_exponent real "A * 1e-4096 => A / 1e4096"
  echo
  rule near_digits real "A * 0.$(zeros 4094)1 => A / 1e4095"
  echo
  rule near_digits_int int "A + 1$(zeros 4095) - 1$(zeros 4095) => A"
} >"$tmp/near.axl"
"$AXLE" check -q "$tmp/near.axl"
check "at the limits: check accepts" [ $? = 0 ]
timeout 120 "$AXLE" brute --format json "$tmp/near.axl" >"$tmp/near-brute.json"; st=$?
check "at the limits: brute runs (exit $st)" [ "$st" = 0 ]
check "at the limits: brute finds no counterexample" \
  jqt -s 'length == 4 and all(.[]; .result == "none")' "$tmp/near-brute.json"
timeout 300 "$AXLE" verify --no-cache --format json "$tmp/near.axl" >"$tmp/near.json"; st=$?
check "at the limits: verify exit 0 ($st)" [ "$st" = 0 ]
check "at the limits: every rule VERIFIED" \
  jqt -s 'length == 4 and all(.[]; .verdict == "verified")' "$tmp/near.json"

# --- beyond them: a located error -----------------------------------------------------------
over() {   # NAME LITERAL MESSAGE: the literal in a rule and in a program, every reader refuses it
  local name=$1 lit=$2 msg=$3 cmd st
  rule too_big real "A * $lit => A" >"$tmp/over.axl"
  printf 'program too_big {\n  input X : f32[4, 8]\n  output O = X * %s\n}\n' "$lit" >"$tmp/prog.axl"
  for cmd in "check" "brute" "verify --no-cache" "gate --no-cache"; do
    timeout 120 "$AXLE" $cmd "$tmp/over.axl" >/dev/null 2>"$tmp/err"; st=$?
    check "$name: $cmd exit 3 ($st)" [ "$st" = 3 ]
    check "$name: $cmd says where and why" grep -qxF "$tmp/over.axl:6:7: error: $msg" "$tmp/err"
    check "$name: $cmd no abort" sh -c "! grep -q 'gmp\|signal' '$tmp/err'"
  done
  for cmd in "check" "superopt --no-gate --time-limit 1 --output $tmp/best.mug" "optimize --output $tmp/opt.axl"; do
    timeout 120 "$AXLE" $cmd "$tmp/prog.axl" >/dev/null 2>"$tmp/err"; st=$?
    check "$name: program, $cmd exit 3 ($st)" [ "$st" = 3 ]
    check "$name: program, $cmd says where and why" grep -qxF "$tmp/prog.axl:3:18: error: $msg" "$tmp/err"
  done
}
range="number's exponent out of range (at most 4096 in absolute value)"
over "exponent 4097" 1e4097 "$range"
over "exponent -4097" 2.5e-4097 "$range"
over "exponent 999999999999" 1e999999999999 "$range"
over "an exponent of 41 digits" "1e1$(zeros 40)" "$range"
over "4097 digits" "1$(zeros 4096)" "number too long (at most 4096 digits)"
over "4097 digits with a point" "0.$(zeros 4095)1" "number too long (at most 4096 digits)"
# an exponent written with leading zeros is its value
rule lead real "A * 1e$(zeros 5000)5 => A * 100000" >"$tmp/lead.axl"
timeout 120 "$AXLE" verify --no-cache --format json "$tmp/lead.axl" >"$tmp/lead.json"
check "leading zeros of an exponent: its value (VERIFIED)" jqt -s '.[0].verdict == "verified"' "$tmp/lead.json"

# --- .mug graphs and HLO modules: int64 rationals -------------------------------------------
sed 's/1\.000000000001/1e999999999999/' tests/superopt/tiny_rms_linear.off-1e-12.mug >"$tmp/big.mug"
"$AXLE" mugraph check "$tmp/big.mug" >/dev/null 2>"$tmp/err"; st=$?
check ".mug constant: exit 3 ($st)" [ "$st" = 3 ]
check ".mug constant: located" \
  grep -q "big.mug:[0-9]*:[0-9]*: error: constant 1e999999999999 cannot be represented exactly" "$tmp/err"
sed 's/constant(0\.125)/constant(1e999999999999)/' tests/hlo/attention.hlo >"$tmp/big.hlo"
timeout 120 "$AXLE" import "$tmp/big.hlo" >"$tmp/out" 2>"$tmp/err"; st=$?
check "HLO constant: imported (exit $st)" [ "$st" = 0 ]
check "HLO constant: cut, as a constant the program cannot hold" \
  grep -q "cut: %constant.7 = constant: constant 1e999999999999 is not a finite decimal the program can hold" "$tmp/err"

# --- brute --instance: a value as long as a literal may be -------------------------------------
rule add_zero num "A + 0 => A" >"$tmp/z.axl"
inst() {
  printf '{"ranks":{"c":1},"maps":{"n":[1]},"reads":[{"tensor":"A","index":[0],"value":"0.%s"}],"access":{"c":[0]}}' "$1"
}
inst "$(zeros 4094)1" >"$tmp/ok.json"
"$AXLE" brute --rule add_zero --type real --instance @"$tmp/ok.json" "$tmp/z.axl" >"$tmp/out" 2>&1; st=$?
check "instance value of 4096 digits: evaluated (exit $st)" [ "$st" = 0 ]
check "instance value of 4096 digits: not a counterexample" has "$tmp/out" "NOT A COUNTEREXAMPLE"
inst "$(zeros 4095)1" >"$tmp/long.json"
"$AXLE" brute --rule add_zero --type real --instance @"$tmp/long.json" "$tmp/z.axl" >/dev/null 2>"$tmp/err"; st=$?
check "instance value of 4097 digits: exit 3 ($st)" [ "$st" = 3 ]
check "instance value of 4097 digits: refused as no real element" has "$tmp/err" "is no real element"

echo "faults/literals: $pass passed, $fail failed"
[ "$fail" = 0 ]
