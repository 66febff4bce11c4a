#!/usr/bin/env bash
# `mpirun -n N axle superopt --mpi` (docs/cli.md, "Over MPI"): one search shared by the
# ranks returns what one process returns on searches that finish within their limits — the
# same written .mug bytes with 2 and 4 ranks (with and without the greedy floor, two threads
# a rank), the same kept graphs under --found-dir (every one checked at full shape, the
# checks spread over the ranks), the same module graph, region graphs and report under
# --output-dir (the regions dealt to the ranks); rank 0 alone prints; the axiom gate runs on
# rank 0 (the result cache of the other superopt tests). --mpi without mpirun is one
# process. Small programs and limits: about 13 s in all. Skipped (77) where axle was built
# without MPI or mpirun is missing.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
if ! "$AXLE" --version | grep -qx 'mpi: yes'; then
  echo "e2e/superopt_mpi: skipped: this axle was built without MPI (install libopenmpi-dev)"; exit 77
fi
if ! command -v mpirun > /dev/null; then
  echo "e2e/superopt_mpi: skipped: no mpirun (install openmpi-bin)"; exit 77
fi
# Open MPI refuses root unless told; one node, more ranks than cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() { local n=$1; shift; mpirun --oversubscribe -n "$n" "$@"; }
t=tests/superopt
Q=(--progress never --max-kernel-ops 1)

# 1. the search alone: the same best graph, bytes, with 2 and 4 ranks
S=("$AXLE" superopt --no-gate --no-greedy "${Q[@]}" $t/tiny_rms_linear.axl --max-block-ops 7)
"${S[@]}" --output "$tmp/one.mug" --format json > "$tmp/one.json" 2> /dev/null; st=$?
check "rms alone: exit 0" [ "$st" = 0 ]
for n in 2 4; do
  mpi $n "${S[@]}" --mpi --output "$tmp/mpi$n.mug" --format json > "$tmp/mpi$n.json" 2> "$tmp/mpi$n.err"; st=$?
  check "rms -n $n: exit 0" [ "$st" = 0 ]
  check "rms -n $n: the single process's graph" cmp "$tmp/one.mug" "$tmp/mpi$n.mug"
  check "rms -n $n: one report (rank 0's)" jqt -s 'length == 1 and .[0].status == 0' "$tmp/mpi$n.json"
  check "rms -n $n: the same best time" \
    [ "$(jq .best_time_us "$tmp/one.json")" = "$(jq .best_time_us "$tmp/mpi$n.json")" ]
  check "rms -n $n: one warning (rank 0's)" [ "$(count "$tmp/mpi$n.err" 'no-gate')" = 1 ]
done

# 2. every kept graph, each checked at full shape: the same five, in the same order
mkdir "$tmp/f1" "$tmp/f2"
"${S[@]}" --output "$tmp/a.mug" --found-dir "$tmp/f1" > /dev/null 2>&1
mpi 2 "${S[@]}" --mpi --jobs 2 --output "$tmp/b.mug" --found-dir "$tmp/f2" > /dev/null 2>&1; st=$?
check "found-dir -n 2: exit 0" [ "$st" = 0 ]
check "found-dir -n 2: five graphs" [ "$(ls "$tmp/f2" | wc -l)" = 5 ]
check "found-dir -n 2: the single process's graphs" diff -r "$tmp/f1" "$tmp/f2"

# 3. the floor and the gate (rank 0 runs it) on a matmul chain
G=("$AXLE" superopt "${Q[@]}" --max-kernel-ops 2 --max-block-ops 6 $t/tiny_mm.axl)
"${G[@]}" --output "$tmp/mm1.mug" > /dev/null 2>&1
mpi 2 "${G[@]}" --mpi --output "$tmp/mm2.mug" > "$tmp/mm2.txt" 2>&1; st=$?
check "gated -n 2: exit 0" [ "$st" = 0 ]
check "gated -n 2: the single process's graph" cmp "$tmp/mm1.mug" "$tmp/mm2.mug"
check "gated -n 2: one report" [ "$(count "$tmp/mm2.txt" '^superopt tiny_mm')" = 1 ]

# 4. a module: the same region graphs and module graph
M=("$AXLE" superopt --no-gate "${Q[@]}" --max-block-ops 6 $t/partition_layout.axl)
"${M[@]}" --output-dir "$tmp/d1" > /dev/null 2>&1
mpi 2 "${M[@]}" --mpi --output-dir "$tmp/d2" > "$tmp/d2.txt" 2> /dev/null; st=$?
check "module -n 2: exit 0" [ "$st" = 0 ]
check "module -n 2: the same files" diff <(ls "$tmp/d1") <(ls "$tmp/d2")
for f in "$tmp"/d1/*.mug; do
  check "module -n 2: $(basename "$f") as alone" cmp "$f" "$tmp/d2/$(basename "$f")"
done
check "module -n 2: one table" [ "$(count "$tmp/d2.txt" '^module: ')" = 1 ]
rj='del(.seconds, .time_limit, .regions[].seconds)'
check "module -n 2: report.json as alone but for times" \
  diff <(jq -S "$rj" "$tmp/d1/report.json") <(jq -S "$rj" "$tmp/d2/report.json")

# 5. --mpi without mpirun: one process; --mpi with --reach: a usage error
"${S[@]}" --mpi --output "$tmp/alone.mug" > /dev/null 2>&1; st=$?
check "--mpi alone: exit 0" [ "$st" = 0 ]
check "--mpi alone: the same graph" cmp "$tmp/one.mug" "$tmp/alone.mug"
"$AXLE" superopt --mpi $t/tiny_mm.axl --reach "$tmp/one.mug" 2> "$tmp/e"; st=$?
check "--mpi --reach: exit 3" [ "$st" = 3 ]
check "--mpi --reach: says why" has "$tmp/e" "--mpi is not used with --reach"

echo "e2e/superopt_mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]
