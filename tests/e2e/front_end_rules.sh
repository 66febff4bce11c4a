#!/usr/bin/env bash
# The bundled corpus is well formed and in canonical layout.
set -u
cd "$AXLE_SRC" || exit 1
fail=0
out=$("$AXLE" check rules/ 2>&1) || { echo "FAIL: axle check rules/ exited $?"; echo "$out"; fail=1; }
case "$out" in *": ok"*) ;; *) echo "FAIL: no ok summary: $out"; fail=1 ;; esac
noncanon=$("$AXLE" fmt --check rules/ 2>&1) || { echo "FAIL: not canonical: $noncanon"; fail=1; }
# fmt --check reports a file whose layout differs, with exit status 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'rule r for T in num {\n  rclass x;   map s over x\n  tensor A : T[x: s]\n  A=>A\n}\n' > "$tmp/ugly.axl"
"$AXLE" fmt --check "$tmp/ugly.axl" > "$tmp/list"; st=$?
[ "$st" -eq 1 ] || { echo "FAIL: fmt --check on a non-canonical file exited $st"; fail=1; }
grep -q "ugly.axl" "$tmp/list" || { echo "FAIL: fmt --check did not name the file"; fail=1; }
"$AXLE" fmt --write "$tmp/ugly.axl" && "$AXLE" fmt --check "$tmp/ugly.axl" >/dev/null ||
  { echo "FAIL: fmt --write did not make the file canonical"; fail=1; }
grep -q "  map s over x" "$tmp/ugly.axl" || { echo "FAIL: fmt --write layout"; cat "$tmp/ugly.axl"; fail=1; }
# usage errors exit 3
"$AXLE" check >/dev/null 2>&1; [ $? -eq 3 ] || { echo "FAIL: check without files must exit 3"; fail=1; }
"$AXLE" frobnicate >/dev/null 2>&1; [ $? -eq 3 ] || { echo "FAIL: unknown command must exit 3"; fail=1; }
"$AXLE" check /nonexistent.axl 2>"$tmp/err"; [ $? -eq 3 ] || { echo "FAIL: missing file must exit 3"; fail=1; }
grep -q "cannot open '/nonexistent.axl'" "$tmp/err" || { echo "FAIL: missing file message"; fail=1; }
[ "$fail" -eq 0 ] && echo "front end: 1 passed, 0 failed" || echo "front end: 0 passed, 1 failed"
exit "$fail"
