# lib.bash — what every end-to-end script needs, sourced after `cd "$AXLE_SRC"` (not a test
# itself: ctest runs tests/e2e/*.sh). check NAME COMMAND... counts COMMAND's success as a
# passed check and prints "FAIL: NAME" otherwise; $tmp is a scratch directory removed on
# exit; has FILE PATTERN and count FILE PATTERN grep a file.
pass=0 fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fail=$((fail + 1)); fi
}
has() { grep -q -- "$2" "$1"; }
count() { grep -c -- "$2" "$1"; }
