#!/usr/bin/env bash
# The directory walk: each file once, by device and inode, whatever the
# names it is reached by; a symbolic link cycle is a warning and is skipped, never walked
# forever; a directory that cannot be read is an error (exit 3), not silently skipped.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"

mkdir -p "$tmp/tree/a/b"
cp rules/examples/pad_low_combine.axl "$tmp/tree/a/"
cp rules/examples/slice_dyup_slice.axl "$tmp/tree/a/b/"
ln -s .. "$tmp/tree/a/b/up"            # a cycle: b/up is a
ln -s ../.. "$tmp/tree/a/b/top"        # a cycle: b/top is tree
ln -s a "$tmp/tree/alias"              # a second name for a directory
ln -s a/pad_low_combine.axl "$tmp/tree/same.axl"   # a second name for a file

timeout 60 "$AXLE" check "$tmp/tree" >"$tmp/check.out" 2>"$tmp/check.err"
st=$?
check "cycles: check ends, exit 0 (got $st)" [ "$st" = 0 ]
check "cycles: each file once" grep -qx "axle check: 2 rules, 0 programs in 2 files: ok" "$tmp/check.out"
check "cycles: b/up reported" grep -q "axle: warning: skipping '$tmp/tree/a/b/up': a symbolic link cycle (it is '$tmp/tree/a')" "$tmp/check.err"
check "cycles: b/top reported" grep -q "axle: warning: skipping '$tmp/tree/a/b/top': a symbolic link cycle (it is '$tmp/tree')" "$tmp/check.err"

timeout 300 "$AXLE" verify --format json "$tmp/tree" "$tmp/tree/same.axl" >"$tmp/verify.json" 2>/dev/null
check "verify: each rule × type once (4 results)" [ "$(jcount "$tmp/verify.json" 'has("verdict")')" = 4 ]
check "verify: the first name is kept" [ "$(jcount "$tmp/verify.json" ".file == \"$tmp/tree/a/pad_low_combine.axl\"")" = 2 ]

# the same file twice on the command line: once
"$AXLE" check rules/examples/pad_low_combine.axl ./rules/examples/pad_low_combine.axl >"$tmp/twice.out"
check "a file named twice: read once" grep -qx "axle check: 1 rule, 0 programs in 1 file: ok" "$tmp/twice.out"

# an unreadable directory (root reads everything: then as nobody, if setpriv is there)
mkdir -p "$tmp/locked/inner"
cp rules/examples/pad_low_combine.axl "$tmp/locked/inner/"
chmod 000 "$tmp/locked/inner"
as_user=()
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null; then
    chmod 755 "$tmp" "$tmp/locked"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    echo "SKIPPED (loudly): running as root without setpriv, cannot test an unreadable directory"
  fi
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  "${as_user[@]}" "$AXLE" check "$tmp/locked" >/dev/null 2>"$tmp/locked.err"
  st=$?
  check "unreadable directory: exit 3 (got $st)" [ "$st" = 3 ]
  check "unreadable directory: message" \
    grep -q "axle: error: cannot read directory '$tmp/locked/inner': Permission denied" "$tmp/locked.err"
fi
chmod 755 "$tmp/locked/inner"

echo "faults/walk: $pass passed, $fail failed"
[ "$fail" = 0 ]
