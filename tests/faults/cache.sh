#!/usr/bin/env bash
# A broken result cache: a FIFO, a truncated, a corrupt or an
# unreadable entry, and a read-only cache directory, are each a miss with a warning that
# names the entry — never a hang, a crash or a failed run; `--dump-smt` with a warm cache
# still writes every query.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
export TMPDIR="$tmp"
export XDG_CACHE_HOME="$tmp/cache"
rule=rules/examples/pad_low_combine.axl
entries="$XDG_CACHE_HOME/axle/verify-1"

run() {   # NAME [options]: verify the rule, keep out/err/status
  local name=$1; shift
  timeout 300 "$AXLE" verify --format json "$@" "$rule" >"$tmp/$name.json" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.status"
}
cached() { [ "$(jcount "$tmp/$1.json" '.cached == true')" = "$2" ]; }

run fill
check "fill: exit 0" [ "$(cat "$tmp/fill.status")" = 0 ]
files=("$entries"/*.json)
check "fill: two entries" [ ${#files[@]} = 2 ]

one() {   # NAME WARNING: the first entry was damaged: miss, warning, exit 0, entry repaired
  local name=$1 warning=$2
  run "$name"
  check "$name: exit 0" [ "$(cat "$tmp/$name.status")" = 0 ]
  check "$name: one result computed again" cached "$name" 1
  check "$name: warned" grep -q "axle: warning: cache entry '${files[0]}' ignored (computed again): $warning" "$tmp/$name.err"
  check "$name: entry rewritten" [ -f "${files[0]}" ]
  run "$name-again"
  check "$name: all cached after" cached "$name-again" 2
}

rm "${files[0]}"; mkfifo "${files[0]}"
one fifo "not a regular file"
head -c 40 "${files[0]}" >"$tmp/x" && mv "$tmp/x" "${files[0]}"
one truncated "not an entry of this cache format (truncated or corrupt)"
printf '\x00\xff garbage' >"${files[0]}"
one corrupt "not an entry of this cache format"
sed -i 's/\\"queries\\":\([0-9]\)/\\"queries\\":9\1/' "${files[0]}"
one altered "its checksum does not match (damaged)"
rm "${files[0]}"; mkdir "${files[0]}"
run directory
check "directory entry: exit 0" [ "$(cat "$tmp/directory.status")" = 0 ]
check "directory entry: warned" grep -q "ignored (computed again): not a regular file" "$tmp/directory.err"
rmdir "${files[0]}"; run refill

# unreadable entries and a read-only directory need a user that permissions apply to
as_user=()
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null; then
    chmod -R a+rX "$tmp"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    echo "SKIPPED (loudly): running as root without setpriv, cannot test unreadable entries"
  fi
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  chmod 000 "${files[0]}"
  chmod 555 "$entries"
  "${as_user[@]}" "$AXLE" verify --format json "$rule" >"$tmp/ro.json" 2>"$tmp/ro.err"
  st=$?
  check "unreadable entry, read-only directory: exit 0 (got $st)" [ "$st" = 0 ]
  check "unreadable entry: warned" grep -q "cache entry '${files[0]}' ignored (computed again): Permission denied" "$tmp/ro.err"
  check "unreadable entry: the other still cached" cached ro 1
  check "read-only directory: warned once" \
    [ "$(grep -c "axle: warning: cannot write to the result cache '$entries': Permission denied; results are not cached" "$tmp/ro.err")" = 1 ]
  chmod 755 "$entries"; chmod 644 "${files[0]}"
fi

# --dump-smt with a warm cache writes the queries all the same
run warm
check "warm: all cached" cached warm 2
run dump --dump-smt "$tmp/dump"
check "dump: exit 0" [ "$(cat "$tmp/dump.status")" = 0 ]
check "dump: nothing from the cache" cached dump 0
check "dump: queries written for both types" \
  sh -c "ls '$tmp/dump' | grep -q '^pad_low_combine.int.' && ls '$tmp/dump' | grep -q '^pad_low_combine.real.'"
run after
check "after dump: still cached" cached after 2

echo "faults/cache: $pass passed, $fail failed"
[ "$fail" = 0 ]
