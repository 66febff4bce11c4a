#!/usr/bin/env bash
# axle import on malformed modules (tests/hlo/bad/NAME.hlo): exit 3 and the located error
# of NAME.err (FILE:LINE:COL: error: ..., the first line of stderr), never a crash, and that
# error the only one (no cascade of the imported program's own messages); then modules whose
# cuts must give their true reasons (tests/hlo/cuts/NAME.hlo: NAME.cuts, the whole stderr,
# and the program NAME.expected).
set -u
cd "$AXLE_SRC/tests/hlo/bad" || exit 1
source ../../e2e/lib.bash
for f in *.hlo; do
  "$AXLE" import "$f" > /dev/null 2> "$tmp/err"
  st=$?
  check "$f: exit 3" test "$st" -eq 3
  check "$f: the located error" diff -u "${f%.hlo}.err" <(head -1 "$tmp/err")
  check "$f: nothing about the imported program" bash -c "! grep -q 'imported program' '$tmp/err'"
done
# an element count past what anything can hold is one error, at the parameter: none for the
# instructions that read it
"$AXLE" import param_overflow.hlo > /dev/null 2> "$tmp/err"
check "param_overflow.hlo: one error" test "$(grep -c 'error:' "$tmp/err")" -eq 1
cd ../cuts || exit 1
for f in *.hlo; do
  "$AXLE" import "$f" > "$tmp/out" 2> "$tmp/err"
  check "$f: exit 0" test $? -eq 0
  check "$f: the cuts and their reasons" diff -u "${f%.hlo}.cuts" "$tmp/err"
  check "$f: the program" diff -u "${f%.hlo}.expected" "$tmp/out"
done
echo "hlo_errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
