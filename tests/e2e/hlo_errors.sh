#!/usr/bin/env bash
# axle import on malformed modules (tests/hlo/bad/NAME.hlo): exit 3 and the located error
# of NAME.err (FILE:LINE:COL: error: ..., the first line of stderr), never a crash.
set -u
cd "$AXLE_SRC/tests/hlo/bad" || exit 1
source ../../e2e/lib.bash
for f in *.hlo; do
  "$AXLE" import "$f" > /dev/null 2> "$tmp/err"
  st=$?
  check "$f: exit 3" test "$st" -eq 3
  check "$f: the located error" diff -u "${f%.hlo}.err" <(head -1 "$tmp/err")
done
echo "hlo_errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
