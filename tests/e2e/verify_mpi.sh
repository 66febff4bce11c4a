#!/usr/bin/env bash
# `mpirun -n N axle verify --mpi` (docs/cli.md, "MPI"): with 2 and 4 ranks, the same verdicts,
# report lines and exit status as one process, on rules/examples and a slice of rules/xla;
# rank 0 alone writes the result cache (a second run takes every result from it); a failing
# rule gives the failing exit status; a rank killed mid-run ends the job with a non-zero
# status and no report file, never a passing report, and leaves the result cache whole;
# under mpirun --enable-recovery a killed rank's rules go to the live ranks (the single
# process's report), and a rule that kills two ranks is UNKNOWN ("rank N died").
# Skipped (77) where axle was built without MPI or mpirun is missing.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
if ! "$AXLE" --version | grep -qx 'mpi: yes'; then
  echo "e2e/verify_mpi: skipped: this axle was built without MPI (install libopenmpi-dev)"; exit 77
fi
if ! command -v mpirun > /dev/null; then
  echo "e2e/verify_mpi: skipped: no mpirun (install openmpi-bin)"; exit 77
fi
export XDG_CACHE_HOME="$tmp/cache"
# Open MPI refuses root unless told; one node, more ranks than cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() { local n=$1; shift; mpirun --oversubscribe -n "$n" "$@"; }
key='del(.time_ms, .cached)'
run="--solver z3 --no-cache --jobs 1 rules/examples rules/xla/pad.axl rules/xla/select.axl"

"$AXLE" verify --format json $run > "$tmp/one.json"; st=$?
check "one process: exit 0" [ "$st" = 0 ]
for n in 2 4; do
  mpi $n "$AXLE" verify --mpi --format json $run > "$tmp/mpi$n.json" 2> "$tmp/mpi$n.err"; st=$?
  check "-n $n: exit 0" [ "$st" = 0 ]
  check "-n $n: the single process's lines, in its order" \
    diff <(jq -c "$key" "$tmp/one.json") <(jq -c "$key" "$tmp/mpi$n.json")
  check "-n $n: nothing on stderr" [ ! -s "$tmp/mpi$n.err" ]
done
"$AXLE" gate --format junit --output "$tmp/one.xml" $run > /dev/null
mpi 2 "$AXLE" gate --mpi --format junit --output "$tmp/mpi.xml" $run > "$tmp/gate.txt"; st=$?
check "gate -n 2: exit 0" [ "$st" = 0 ]
check "gate -n 2: one PASS line" grep -q '^axle gate: PASS: ' "$tmp/gate.txt"
norm() { sed -E 's/time="[0-9.]+"//g; s/[0-9]+ ms/T ms/g' "$1"; }
check "gate -n 2: the single process's JUnit but for times" diff <(norm "$tmp/one.xml") <(norm "$tmp/mpi.xml")

# the cache: rank 0 writes what the ranks found, a second run reads it all
mpi 3 "$AXLE" verify --mpi --solver z3 rules/examples > "$tmp/c1.txt"; st=$?
check "cache, first run: exit 0" [ "$st" = 0 ]
mpi 3 "$AXLE" verify --mpi --solver z3 rules/examples > "$tmp/c2.txt"; st=$?
n=$(tail -1 "$tmp/c2.txt" | sed -n 's/^axle verify: \([0-9]*\) results.*/\1/p')
check "cache, second run: every result from the cache" grep -q "($n from the cache)" "$tmp/c2.txt"
check "cache: no damaged entry reported" sh -c "! grep -q warning $tmp/c1.txt $tmp/c2.txt"

# a failing rule: the single process's exit status
sed 's/ expect invalid//' rules/examples-mutants/transpose_sum.axl > "$tmp/wrong.axl"
failrun="--solver z3 --no-cache rules/examples/pad_low_combine.axl $tmp/wrong.axl tests/verify/unsupported.axl"
"$AXLE" verify $failrun > "$tmp/f1.txt"; single=$?
mpi 2 "$AXLE" verify --mpi $failrun > "$tmp/f2.txt" 2> /dev/null; st=$?
check "failing rule: exit 1 alone" [ "$single" = 1 ]
check "failing rule: exit 1 under mpirun" [ "$st" = 1 ]
check "failing rule: the same report but for times" \
  diff <(sed -E 's/[0-9]+ ms/T ms/' "$tmp/f1.txt") <(sed -E 's/[0-9]+ ms/T ms/' "$tmp/f2.txt")

# a rank that dies mid-run, without mpirun --enable-recovery: the job fails, and no report
# claims anything
if [ -n "${AXLE_TEST_BIN:-}" ]; then
  AXLE_TEST_MPI_KILL_RANK=1 mpi 2 -x AXLE_TEST_MPI_KILL_RANK "$AXLE_TEST_BIN" verify --mpi \
    --format junit --output "$tmp/killed.xml" $run > /dev/null 2>&1; st=$?
  check "killed rank: mpirun exits non-zero" [ "$st" != 0 ]
  check "killed rank: no report written" [ ! -e "$tmp/killed.xml" ]
  # with the result cache on: what rank 0 wrote before the job was ended is whole — a run
  # from that cache gives the single process's lines and warns of no damaged entry
  export XDG_CACHE_HOME="$tmp/cache-killed"
  few="rules/examples/transpose_sum.axl rules/examples/dyslice_to_slice.axl rules/examples/fold_conv_input_pad.axl"
  AXLE_TEST_MPI_KILL_RANK=2 mpi 3 -x AXLE_TEST_MPI_KILL_RANK "$AXLE_TEST_BIN" verify --mpi \
    --solver z3 --jobs 1 --format json $few > /dev/null 2>&1; st=$?
  check "killed rank, cache on: mpirun exits non-zero" [ "$st" != 0 ]
  "$AXLE" verify --solver z3 --no-cache --jobs 1 --format json $few > "$tmp/fresh.json" 2> /dev/null
  "$AXLE" verify --solver z3 --jobs 1 --format json $few > "$tmp/after.json" 2> "$tmp/after.err"; st=$?
  check "killed rank, cache on: a later run exits 0" [ "$st" = 0 ]
  check "killed rank, cache on: a later run's lines are the fresh run's" \
    diff <(jq -c "$key" "$tmp/fresh.json") <(jq -c "$key" "$tmp/after.json")
  check "killed rank, cache on: no damaged entry" sh -c "! grep -q warning $tmp/after.err"
  export XDG_CACHE_HOME="$tmp/cache"

  # with mpirun --enable-recovery: a dead rank's rules go to the live ranks (to rank 0 when
  # none is left) once its lease of silence ends; the report is the single process's
  few="--solver z3 --no-cache --jobs 1 --mpi-lease 2 $few"
  fewone="${few/--mpi-lease 2/}"
  rmpi() { local n=$1 kill=$2; shift 2; AXLE_TEST_MPI_KILL_RANK=$kill mpi "$n" --enable-recovery \
             -x AXLE_TEST_MPI_KILL_RANK -x AXLE_TEST_MPI_KILL_TASK "$AXLE_TEST_BIN" "$@"; }
  "$AXLE" gate --format junit --output "$tmp/few.xml" $fewone > "$tmp/few-gate.txt"
  # every rank that verifies killed: rank 0 verifies what they held and the rest itself
  rmpi 3 1,2 gate --mpi --format junit --output "$tmp/r1.xml" $few > "$tmp/r1.txt" 2> "$tmp/r1.err"; st=$?
  check "recovery, ranks 1 and 2 of 3 killed: mpirun exits 0" [ "$st" = 0 ]
  check "recovery, ranks 1 and 2 of 3 killed: the single process's PASS line but for time" \
    diff <(sed -E 's/; [0-9.]+ s$//' "$tmp/few-gate.txt") <(sed -E 's/; [0-9.]+ s$//' "$tmp/r1.txt")
  check "recovery, ranks 1 and 2 of 3 killed: the single process's JUnit but for times" \
    diff <(norm "$tmp/few.xml") <(norm "$tmp/r1.xml")
  check "recovery, ranks 1 and 2 of 3 killed: rank 0 says so" \
    grep -q '^axle: warning: verify --mpi: rank 1 sent nothing for 2 s: declared dead; 1 of its results go to other ranks, 0 are UNKNOWN$' "$tmp/r1.err"
  # one rank left that verifies: it takes the dead ranks' results
  rmpi 4 1,2 verify --mpi --format json $few > "$tmp/r2.json" 2> /dev/null; st=$?
  check "recovery, ranks 1 and 2 of 4 killed: mpirun exits 0" [ "$st" = 0 ]
  check "recovery, ranks 1 and 2 of 4 killed: the single process's lines" \
    diff <(jq -c "$key" "$tmp/fresh.json") <(jq -c "$key" "$tmp/r2.json")
  # a rule that kills every rank it is given (task 0): after the second death it is UNKNOWN
  # with the reason, and every other result is the single process's; mpirun exits 0 under
  # recovery whatever the ranks return, so the status comes from the report (gate --merge)
  AXLE_TEST_MPI_KILL_TASK=0 rmpi 3 none verify --mpi --shard 1/1 --format json \
    --output "$tmp/r3.json" $few > /dev/null 2> "$tmp/r3.err"; st=$?
  check "recovery, a rule that kills its ranks: mpirun exits 0" [ "$st" = 0 ]
  check "recovery, a rule that kills its ranks: UNKNOWN, rank N died" \
    jq -e -s 'map(select(.line == 3 and .type == "int")) | length == 1 and
              (.[0] | .verdict == "unknown" and (.reason | test("^rank [12] died$")))' "$tmp/r3.json"
  check "recovery, a rule that kills its ranks: the other lines are the single process's" \
    diff <(jq -c "$key" "$tmp/fresh.json" | tail -n +2) \
         <(jq -c "$key | del(.shard)" "$tmp/r3.json" | tail -n +2)
  check "recovery, a rule that kills its ranks: rank 0 states the status mpirun hides" \
    grep -q '^axle: note: verify --mpi: under mpirun --enable-recovery, mpirun exits 0 whatever the verdicts; this run.s exit status is 2$' "$tmp/r3.err"
  "$AXLE" gate --merge "$tmp/r3.json" > /dev/null; st=$?
  check "recovery, a rule that kills its ranks: gate --merge of the report exits 2" [ "$st" = 2 ]
  # rank 0 killed at its first result: the report dies with it; the other ranks hear rank 0's
  # beats no more and stop within a lease (never wait for ever), and the missing report
  # fails the gate that reads it
  AXLE_TEST_MPI_KILL_RANK=0 timeout 120 mpirun --oversubscribe -n 3 --enable-recovery \
    -x AXLE_TEST_MPI_KILL_RANK "$AXLE_TEST_BIN" verify --mpi --shard 1/1 --format json \
    --output "$tmp/r4.json" $few > /dev/null 2> "$tmp/r4.err"; st=$?
  check "recovery, rank 0 killed: the others stop (no hang)" [ "$st" != 124 ]
  check "recovery, rank 0 killed: they say why" \
    grep -q '^axle: error: verify --mpi: rank [12]: rank 0 sent nothing for 2 s: it died, and with it the report; this rank stops$' "$tmp/r4.err"
  check "recovery, rank 0 killed: no report written" [ ! -e "$tmp/r4.json" ]
  "$AXLE" gate --merge "$tmp/r4.json" > /dev/null 2>&1; st=$?
  check "recovery, rank 0 killed: gate --merge of the missing report exits 3" [ "$st" = 3 ]
fi

# usage: --mpi alone runs in one process like a plain run
"$AXLE" verify --mpi --solver z3 --no-cache rules/examples/transpose_sum.axl > "$tmp/alone.txt"; st=$?
check "--mpi without mpirun: exit 0" [ "$st" = 0 ]
check "--mpi without mpirun: the results" grep -q '^axle verify: 2 results: 2 verified' "$tmp/alone.txt"

"$AXLE" verify --mpi-lease 2 --solver z3 rules/examples/transpose_sum.axl > /dev/null 2> "$tmp/lease.err"; st=$?
check "--mpi-lease without --mpi: exit 3" [ "$st" = 3 ]
check "--mpi-lease without --mpi: says so" grep -q '^axle: error: verify: --mpi-lease needs --mpi$' "$tmp/lease.err"
"$AXLE" verify --mpi --mpi-lease 0.5 rules/examples/transpose_sum.axl > /dev/null 2> "$tmp/lease.err"; st=$?
check "--mpi-lease 0.5: exit 3" [ "$st" = 3 ]
check "--mpi-lease 0.5: says so" grep -q '^axle: error: verify: --mpi-lease takes seconds from 1 to 86400$' "$tmp/lease.err"

echo "e2e/verify_mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]
