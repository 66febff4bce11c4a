# lib.bash — what every end-to-end script needs, sourced after `cd "$AXLE_SRC"` (not a test
# itself: ctest runs tests/e2e/*.sh). check NAME COMMAND... counts COMMAND's success as a
# passed check and prints "FAIL: NAME" otherwise; $tmp is a scratch directory removed on
# exit; has FILE PATTERN and count FILE PATTERN grep a file. JSON is read with jq, never
# grepped: jcount FILE FILTER counts the records of FILE (one JSON value a line) for which
# the jq FILTER is true, jqt FILTER FILE... is jq -e (true when the last value FILTER
# yields is true: use it on one record, or with -s); both fail on a line that is not JSON.
# ieee_int_unknown OP N FILE: IEEE mode (f32) leaves all N results of FILE UNKNOWN, with the
# reason that int elements (OP's indices) are outside it.
pass=0 fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fail=$((fail + 1)); fi
}
has() { grep -q -- "$2" "$1"; }
count() { grep -c -- "$2" "$1"; }
jcount() { jq -s "[.[] | select($2)] | length" "$1"; }
jqt() { jq -e "$@" > /dev/null; }
ieee_int_unknown() {   # ieee_int_unknown OP N FILE
  "$AXLE" verify --no-cache --numbers ieee --ieee-types f32 --format json "$3" > "$tmp/ieee.json" 2> "$tmp/err"
  check "IEEE: every $1 rule UNKNOWN, never HOLDS-BOUNDED" jqt -s "length == $2 and all(.[]; .verdict == \"unknown\")" "$tmp/ieee.json"
  check "IEEE: the reason names the int elements" \
    jqt -s 'all(.[]; .reason | test("integer elements are outside IEEE mode"))' "$tmp/ieee.json"
}
