#!/usr/bin/env bash
# Every malformed input in tests/diag/NAME.axl must make `axle check` exit 3 and print
# exactly tests/diag/NAME.err: message, location, source line and caret.
set -u
cd "$AXLE_SRC/tests/diag" || exit 1
pass=0 fail=0
for input in *.axl; do
  expected="${input%.axl}.err"
  actual=$("$AXLE" check -q "$input" 2>&1 >/dev/null)
  status=$?
  if [ "$status" -ne 3 ]; then
    echo "FAIL $input: exit status $status, expected 3"
    fail=$((fail + 1))
  elif [ "$actual" != "$(cat "$expected")" ]; then
    echo "FAIL $input: diagnostics differ"
    diff <(echo "$actual") "$expected" | head -20
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "diagnostics: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -ge 30 ]
