#!/usr/bin/env bash
# pop-identity.sh BASE_AXLE NEW_AXLE — the operator-table oracle: two axle binaries (before
# and after a change to the operator tables, superopt/ir/ewop.c, superopt/ir/pop.c, gpu/cuda.c)
# must print byte-identical CUDA (sm_90, sm_80, --single-buffer, --header, --program),
# cost (text and JSON, h100 and a100), `mugraph fmt/dot/check` over every .mug of the tree,
# cost over every program, and identical search counts on the tiny programs. Prints one
# line per difference and a summary; exit 1 when anything differs.
set -u
base=$(realpath "$1") new=$(realpath "$2")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 diff=0
# compare LABEL CMD...: runs CMD with each binary in place of AXLE; stdout, exit status and
# any file written to $tmp/out.* must agree (stderr too, minus the binary's name).
compare() {
  local label=$1
  shift
  local side
  for side in base new; do
    local bin=${!side}
    rm -f "$tmp"/out.*
    (cd "$tmp" && "${@/#AXLE/$bin}" > "$tmp/$side.stdout" 2> "$tmp/$side.stderr"; echo "rc $?" >> "$tmp/$side.stdout")
    for f in "$tmp"/out.*; do [[ -e $f ]] && cat "$f" >> "$tmp/$side.stdout"; done
    sed -i "s|$bin|AXLE|g" "$tmp/$side.stderr"
  done
  if cmp -s "$tmp/base.stdout" "$tmp/new.stdout" && cmp -s "$tmp/base.stderr" "$tmp/new.stderr"; then
    same=$((same + 1))
  else
    diff=$((diff + 1))
    echo "DIFFERS: $label"
  fi
}
mugs=$(find "$PWD" -name '*.mug' -not -path '*/build*' | sort)
progs=$(grep -rl '^program' --include='*.axl' "$PWD/tests/superopt" "$PWD/superopt/examples" | sort)
for m in $mugs; do
  for sub in check fmt dot; do compare "mugraph $sub $m" AXLE mugraph "$sub" "$m"; done
  for t in h100 a100; do
    for f in text json; do compare "cost $t $f $m" AXLE cost "$m" --target "$t" --format "$f"; done
  done
  compare "cuda sm_90 $m" AXLE cuda "$m" --output out.cu --header out.h
  compare "cuda sm_80 $m" AXLE cuda "$m" --output out.cu --target sm_80
  compare "cuda single-buffer $m" AXLE cuda "$m" --output out.cu --single-buffer
  p=${m%.mug}.axl
  [[ -f $p ]] && compare "cuda --program $m" AXLE cuda "$m" --output out.cu --program "$p"
done
for p in $progs; do
  for f in text json; do compare "cost $f $p" AXLE cost "$p" --format "$f"; done
done
# The search: the same candidates, states, pruned and checked counts (and graphs found).
# Its JSON carries timings, also inside `greedy`: they are dropped at every level, the counts
# and the graphs found compared.
for p in tiny_mm tiny_chain tiny_rms_linear; do
  compare "superopt $p" sh -c "AXLE superopt $PWD/tests/superopt/$p.axl --no-gate --jobs 1 \
    --output out.best.mug --format json --progress never | jq -c 'walk(if type == \"object\" then with_entries(select(.key | test(\"second|ms_|_ms\") | not)) else . end)'"
done
echo "pop-identity: $same identical, $diff differing"
[[ $diff -eq 0 ]]
