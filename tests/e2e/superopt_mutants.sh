#!/usr/bin/env bash
# Every wrong μGraph in superopt/examples/mutants (named PROGRAM.WHAT.mug) validates and
# is rejected by `axle equiv` against its program: exit 1, "not equivalent".
set -u
cd "$AXLE_SRC/superopt/examples" || exit 1
pass=0 fail=0
for mug in mutants/*.mug; do
  name=$(basename "$mug")
  prog="${name%%.*}.axl"
  if ! "$AXLE" mugraph check "$mug" >/dev/null; then
    echo "FAIL $name: does not validate"; fail=$((fail + 1)); continue
  fi
  out=$("$AXLE" equiv "$prog" "$mug" --seed 7 --float-tests 0 2>&1)
  status=$?
  if [ "$status" -ne 1 ] || ! grep -q '^not equivalent' <<<"$out"; then
    echo "FAIL $name: exit $status"; echo "$out" | sed 's/^/  /'; fail=$((fail + 1)); continue
  fi
  pass=$((pass + 1))
done
echo "superopt mutants: $pass rejected, $fail not"
[ "$fail" -eq 0 ] && [ "$pass" -ge 20 ]
