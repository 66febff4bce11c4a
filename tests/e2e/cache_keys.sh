#!/usr/bin/env bash
# The result cache's key holds every input that can change a stored verdict (run/cache.h):
# every option of `axle verify --help` is classified here as keyed, as leaving stored
# verdicts alone, or as turning the cache off — an option this list does not know fails
# the test, so a new verdict-changing option cannot slip past the key. Each keyed option
# is shown to miss a cache the default filled (and to hit the entry it wrote), and so is
# the one test hook that changes verdicts (AXLE_TEST_BOUND_CAP, in axle-test).
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"

keyed="--solver --solver-binary --cross-check --require-both --confirm-grace --confirm-floor --bound-slack --timeout"
# what these change is never stored: UNKNOWN, ERROR (a time or memory limit) are computed
# again every time; the others select, format or schedule
unkeyed="--rule --format --output --jobs --rule-timeout --memory --progress --max-input --dump-smt --shard --mpi --mpi-lease --help"
# the cache is neither read nor written with these (IEEE mode keeps none)
off="--no-cache --numbers --ieee-types --ieee-max-rank --ieee-max-size"

"$AXLE" verify --help >"$tmp/help" 2>&1
grep -o -- '^ *--[a-z0-9-]*' "$tmp/help" | tr -d ' ' | sort -u >"$tmp/options"
check "the help lists options" [ "$(wc -l <"$tmp/options")" -ge 20 ]
while read -r o; do
  case " $keyed $unkeyed $off " in
    *" $o "*) ;;
    *) echo "FAIL: option $o of axle verify is not classified for the cache key (tests/e2e/cache_keys.sh)"
       fail=$((fail + 1)) ;;
  esac
done <"$tmp/options"
for o in $keyed $unkeyed $off; do
  [ "$o" = --help ] && continue
  check "classified option $o exists" grep -qx -- "$o" "$tmp/options"
done

cat >"$tmp/r.axl" <<'EOF'
rule neg_neg for T in num {
  rclass x
  map s over x
  tensor A : T[x: s]

  neg(neg(A)) => A
}
EOF
cp "$(command -v cvc5)" "$tmp/cvc5-copy"
# cached KEY-OPTIONS...: every result of this run came from the cache
cached() { jq -s -e 'length > 0 and all(.[]; .cached)' "$tmp/out.json" >/dev/null; }
fresh() { jq -s -e 'length > 0 and all(.[]; .cached | not)' "$tmp/out.json" >/dev/null; }
run() { XDG_CACHE_HOME="$tmp/cache" "$@" --format json "$tmp/r.axl" >"$tmp/out.json" 2>"$tmp/err"; }
for spec in "--solver z3" "--solver cvc5 --solver-binary $tmp/cvc5-copy" "--cross-check" \
            "--require-both" "--confirm-grace 3" "--confirm-floor 0.7" "--bound-slack 1" "--timeout 11"; do
  rm -rf "$tmp/cache"
  run "$AXLE" verify
  check "default run: computed" fresh
  run "$AXLE" verify
  check "default run again: from the cache" cached
  base=${spec%% *}
  if [ "$base" = --solver ] && [ "${spec#*--solver-binary}" != "$spec" ]; then
    run "$AXLE" verify --solver cvc5   # the same solver by its PATH name: another entry
  fi
  run "$AXLE" verify $spec
  check "$spec: not served from the default's entry" fresh
  run "$AXLE" verify $spec
  check "$spec: its own entry is reused" cached
done

# the test hook that changes verdicts, in the binary that reads it
rm -rf "$tmp/cache"
run "$AXLE_TEST_BIN" verify
check "axle-test: computed" fresh
AXLE_TEST_BOUND_CAP=1 run "$AXLE_TEST_BIN" verify
check "AXLE_TEST_BOUND_CAP: not served from the uncapped entry" fresh
AXLE_TEST_BOUND_CAP=1 run "$AXLE_TEST_BIN" verify
check "AXLE_TEST_BOUND_CAP: its own entry is reused" cached
# and the release binary does not share the test binary's entries (another executable)
run "$AXLE" verify
check "axle does not read axle-test's entries" fresh
echo "cache keys: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
