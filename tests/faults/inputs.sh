#!/usr/bin/env bash
# Hostile input files: what is not a regular file is refused
# without being read (never a hang on a FIFO, never reading /dev/zero until memory runs
# out); files above the input limit (--max-input, default 64 MiB) are refused; a huge
# identifier is echoed shortened; deep nesting is a located error, not a crash (HLO modules
# too: binaries, NUL bytes, a 50 MB line, 10 000-deep nesting, 5000-deep calls); CR-only and
# CRLF files read like LF files and fmt --write keeps their line ends; fmt is linear in
# comments. Every refusal is exit 3 with a message naming the file.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
mug=superopt/examples/lora.mug
prog=superopt/examples/lora.axl

refused() {   # NAME PATTERN command...: exit 3 and PATTERN on stderr (within 60 s)
  local name=$1 pattern=$2; shift 2
  timeout 60 "$@" >/dev/null 2>"$tmp/refused.err"
  local st=$?
  check "$name: exit 3 (got $st)" [ "$st" = 3 ]
  check "$name: says why" grep -q -- "$pattern" "$tmp/refused.err"
}

# --- not regular files ---------------------------------------------------------------------
refused "check /dev/zero" "cannot read '/dev/zero': it is a character device, not a regular file" \
  "$AXLE" check /dev/zero
refused "verify /dev/zero" "it is a character device" "$AXLE" verify /dev/zero
refused "equiv /dev/zero" "it is a character device" "$AXLE" equiv /dev/zero "$mug"
refused "mugraph check /dev/zero" "it is a character device" "$AXLE" mugraph check /dev/zero
mkfifo "$tmp/fifo.axl"
refused "check a FIFO" "cannot read '$tmp/fifo.axl': it is a FIFO, not a regular file" \
  "$AXLE" check "$tmp/fifo.axl"
refused "fmt a FIFO" "it is a FIFO" "$AXLE" fmt "$tmp/fifo.axl"
refused "equiv a FIFO" "it is a FIFO" "$AXLE" equiv "$prog" "$tmp/fifo.axl"

# --- the size limit ----------------------------------------------------------------------------
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' '#' >"$tmp/big.axl"
refused "over --max-input" "cannot read '$tmp/big.axl': it has 2097152 bytes, more than the input limit of 1 MiB (--max-input)" \
  "$AXLE" check --max-input 1 "$tmp/big.axl"
refused "over --max-input (equiv)" "more than the input limit of 1 MiB" \
  "$AXLE" equiv --max-input 1 "$prog" "$tmp/big.axl"
refused "over --max-input (mugraph)" "more than the input limit of 1 MiB" \
  "$AXLE" mugraph --max-input 1 fmt "$tmp/big.axl"
check "under --max-input: read" "$AXLE" check -q --max-input 3 "$tmp/big.axl"
head -c $((65 * 1024 * 1024)) /dev/zero >"$tmp/huge.axl"
refused "over the default limit" "more than the input limit of 64 MiB" "$AXLE" verify "$tmp/huge.axl"
rm -f "$tmp/huge.axl"

# --- a 10 MB identifier: a short message --------------------------------------------------------
{
  printf 'rule a for T in num {\n  rclass x\n  map s over x\n  tensor Y : T[x: s]\n  '
  head -c 10000000 /dev/zero | tr '\0' 'q'
  printf ' => Y\n}\n'
} >"$tmp/longid.axl"
"$AXLE" check "$tmp/longid.axl" >/dev/null 2>"$tmp/longid.err"
st=$?
check "long identifier: exit 3" [ "$st" = 3 ]
check "long identifier: under 2 KB of stderr ($(wc -c <"$tmp/longid.err") bytes)" \
  [ "$(wc -c <"$tmp/longid.err")" -lt 2000 ]
check "long identifier: shortened in the message" \
  grep -q "longid.axl:5:3: error: rule 'a': unknown name 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\.\.\.'$" "$tmp/longid.err"

# --- deep nesting: located, no crash -------------------------------------------------------------
hdr='rule a for T in num {\n  rclass x\n  map s over x\n  tensor Y : T[x: s]\n  '
deep() {   # NAME LHS-TEXT-GENERATOR...
  local name=$1; shift
  { printf "$hdr"; "$@"; printf ' => Y\n}\n'; } >"$tmp/$name.axl"
  "$AXLE" check "$tmp/$name.axl" >/dev/null 2>"$tmp/$name.err"
  local st=$?
  check "$name: exit 3 (got $st)" [ "$st" = 3 ]
  check "$name: located message" grep -q "^$tmp/$name.axl:5:[0-9]*: error: expression nested too deeply (at most 200 levels)" "$tmp/$name.err"
}
parens() { for _ in $(seq 10000); do printf '('; done; printf Y; for _ in $(seq 10000); do printf ')'; done; }
chain() { printf Y; for _ in $(seq 50000); do printf '+Y'; done; }
calls() { for _ in $(seq 3000); do printf 'neg('; done; printf Y; for _ in $(seq 3000); do printf ')'; done; }
negs() { for _ in $(seq 20000); do printf -- '- '; done; printf Y; }
deep parens10k parens
deep chain50k chain
deep calls3k calls
deep negs20k negs
# just under the limit is fine
{ printf "$hdr"; for _ in $(seq 150); do printf 'neg('; done; printf Y; for _ in $(seq 150); do printf ')'; done; printf ' => Y\n}\n'; } >"$tmp/ok150.axl"
check "150 nested calls: accepted" "$AXLE" check -q "$tmp/ok150.axl"

# --- HLO files that are not HLO: a located error or a refusal, exit 3, never a crash or a hang --
refused "import a directory" "cannot read '$tmp/dir.hlo': it is a directory, not a regular file" \
  bash -c "mkdir -p '$tmp/dir.hlo' && '$AXLE' import '$tmp/dir.hlo'"
refused "import /dev/zero" "it is a character device" "$AXLE" import /dev/zero
head -c 4096 "$AXLE" >"$tmp/binary.hlo"
refused "import a binary" "^$tmp/binary.hlo:1:1: error: invalid byte 0x7f" "$AXLE" import "$tmp/binary.hlo"
printf 'HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\0\n}\n' >"$tmp/nul.hlo"
refused "import a NUL byte" "^$tmp/nul.hlo:3:26: error: invalid byte 0x00" "$AXLE" import "$tmp/nul.hlo"
{ printf 'HloModule m, a='; head -c $((50 * 1024 * 1024)) /dev/zero | tr '\0' 'x'; } >"$tmp/line.hlo"
refused "import 50 MB on one line" "^$tmp/line.hlo:1:1: error: module 'm' has no ENTRY computation" \
  "$AXLE" import "$tmp/line.hlo"
rm -f "$tmp/line.hlo"
nest() { printf "%${1}s" | tr ' ' "$2"; }
# 10 000 braces deep in an attribute: its value is kept as text, the module imports
{ printf 'HloModule m\nENTRY e {\n  x = f32[2] parameter(0), frontend_attributes='; nest 10000 '{'; nest 10000 '}'
  printf '\n  ROOT y = f32[2] negate(x)\n}\n'; } >"$tmp/deepattr.hlo"
check "import: 10000 braces deep in an attribute: imports" "$AXLE" import "$tmp/deepattr.hlo" --output "$tmp/deepattr.axl"
# ... in a literal or a tuple shape the grammar nests: a located limit
{ printf 'HloModule m\nENTRY e {\n  x = f32[2] constant('; nest 10000 '{'; printf 1; nest 10000 '}'; printf ')\n}\n'; } >"$tmp/deeplit.hlo"
refused "import a literal 10000 deep" "^$tmp/deeplit.hlo:3:[0-9]*: error: nested too deeply" "$AXLE" import "$tmp/deeplit.hlo"
{ printf 'HloModule m\nENTRY e {\n  x = '; nest 10000 '('; printf 'f32[2]'; nest 10000 ')'; printf ' parameter(0)\n}\n'; } >"$tmp/deeptuple.hlo"
refused "import a tuple shape 10000 deep" "^$tmp/deeptuple.hlo:3:[0-9]*: error: nested too deeply" "$AXLE" import "$tmp/deeptuple.hlo"
# a chain of calls 5000 deep (the importer inlines calls recursively: 100 000 overflowed its stack)
python3 - "$tmp/chain.hlo" <<'PY2'
import sys
s = ['HloModule chain', 'c0 {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] negate(p)\n}']
s += ['c%d {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] call(p), to_apply=c%d\n}' % (k, k - 1) for k in range(1, 5000)]
s.append('ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] call(p), to_apply=c4999\n}')
open(sys.argv[1], 'w').write('\n'.join(s) + '\n')
PY2
refused "import calls 5000 deep" "^$tmp/chain.hlo:[0-9]*:[0-9]*: error: fusions and calls nested too deeply (at most 200 levels)" \
  "$AXLE" import "$tmp/chain.hlo"

# --- line ends ----------------------------------------------------------------------------------
lf='rule a for T in num {\n  # a comment\n  rclass x\n  map s over x\n  tensor Y : T[x: s]\n  neg(neg(Y)) => Y\n}\n'
printf "$lf" | tr '\n' '\r' >"$tmp/cr.axl"
printf "$lf" | sed 's/$/\r/' >"$tmp/crlf.axl"
printf "$lf" >"$tmp/lf.axl"
for f in cr crlf; do
  "$AXLE" check "$tmp/$f.axl" >"$tmp/$f.out" 2>&1
  check "$f: read as one rule" grep -qx "axle check: 1 rule, 0 programs in 1 file: ok" "$tmp/$f.out"
  check "$f: canonical as it is" "$AXLE" fmt --check "$tmp/$f.axl"
  check "$f: verified like the LF file" sh -c "'$AXLE' verify --no-cache '$tmp/$f.axl' | grep -c VERIFIED | grep -qx 2"
done
printf 'rule a for T in num {\r\n rclass x\r\n  map s over x\r\n  tensor Y : T[x: s]\r\n  neg(neg(Y))=>Y  # why\r\n}\r\n' >"$tmp/ugly-crlf.axl"
"$AXLE" fmt --write "$tmp/ugly-crlf.axl"
check "fmt --write keeps CRLF" [ "$(tr -cd '\r' <"$tmp/ugly-crlf.axl" | wc -c)" = "$(wc -l <"$tmp/ugly-crlf.axl")" ]
check "fmt --write of CRLF: canonical after" "$AXLE" fmt --check "$tmp/ugly-crlf.axl"
check "fmt --write of CRLF: same text as LF" \
  cmp -s <(tr -d '\r' <"$tmp/ugly-crlf.axl") <(printf 'rule a for T in num {\n  rclass x\n  map s over x\n  tensor Y : T[x: s]\n  neg(neg(Y)) => Y  # why\n}\n')
# a diagnostic in a CR-only file names the right line
printf 'rule a for T in num {\r  rclass x\r  map s over x\r  tensor Y : T[x: s]\r  nope(Y) => Y\r}\r' >"$tmp/cr-bad.axl"
"$AXLE" check "$tmp/cr-bad.axl" 2>"$tmp/cr-bad.err" >/dev/null
check "CR-only: error on line 5" grep -q "cr-bad.axl:5:3: error: rule 'a': unknown operator 'nope'" "$tmp/cr-bad.err"

# .mug files too
tr '\n' '\r' <superopt/examples/lora.mug >"$tmp/lora-cr.mug"
sed 's/$/\r/' superopt/examples/lora.mug >"$tmp/lora-crlf.mug"
check "CR-only .mug: valid" "$AXLE" mugraph check "$tmp/lora-cr.mug"
check "CRLF .mug: valid" "$AXLE" mugraph check "$tmp/lora-crlf.mug"
check "CR-only .mug: same graph" cmp -s <("$AXLE" mugraph fmt "$tmp/lora-cr.mug") <("$AXLE" mugraph fmt superopt/examples/lora.mug)

# --- fmt is linear in comments: 8000 commented rules (was over 2 minutes) -----------------------
python3 - "$tmp/many.axl" <<'PY'
import sys
rules = ['# rule %d\nrule r%d for T in num {  # header\n  # inside\n  rclass x\n  map s over x  # trailing\n'
         '  tensor Y : T[x: s]\n  Y => Y\n}\n' % (i, i) for i in range(8000)]
open(sys.argv[1], 'w').write('\n'.join(rules))
PY
timeout 120 "$AXLE" fmt "$tmp/many.axl" >"$tmp/many.out"
check "fmt of 8000 commented rules: done, unchanged" cmp -s "$tmp/many.axl" "$tmp/many.out"

echo "faults/inputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
