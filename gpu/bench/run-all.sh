#!/usr/bin/env bash
# run-all.sh — the whole GPU check in one command, for a short lease on a GPU machine:
# every benchmark set under DIR that `prepare.sh --build` wrote (subfolders hand, found,
# mk: the megakernels of `prepare.sh --megakernel`, single, naive, micro: the
# microbenchmarks of gpu/bench/micro, and any other: variants), timed against PyTorch eager
# and torch.compile with outputs checked and kernels profiled, and compute-sanitizer
# (memcheck, racecheck, synccheck, initcheck) through the driver. The micro set is timed
# against eager only (torch.compile adds nothing to what it measures: the library's and the
# generated code's rates for tools/calibrate-cost.py --refit), memchecked and profiled by
# Nsight Compute, never racechecked (one tile per block, nothing shared between threads but
# what the reductions' barriers order). Nothing is compiled there. Steps run in order of worth and each gets
# what is left of SECONDS (default 420); a step that would start with under 20 s left is
# skipped and says so. Writes into OUTDIR: env.txt (date, device, driver, versions),
# tables.md (bench.py's tables), kernels.jsonl (per-kernel times), sanitize.txt, ncu.txt
# (Nsight Compute's sections for each hand-written graph's kernels, else each found one's), log.txt;
# tools/gpu-results.sh turns them into docs/results-gpu.md.
#   usage: gpu/bench/run-all.sh DIR OUTDIR [SECONDS]
set -u
dir=${1:?usage: run-all.sh DIR OUTDIR [SECONDS]}
out=${2:?usage: run-all.sh DIR OUTDIR [SECONDS]}
budget=${3:-420}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
log=$out/log.txt
{
  date -u '+%Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader
  python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda)'
  compute-sanitizer --version | tail -1
} >"$out/env.txt" 2>&1
start=$SECONDS
# step CAP WHAT ARGS...: run bench.py with ARGS under min(CAP, what is left) seconds
step() {
  local cap=$1 what=$2 left=$((budget - (SECONDS - start)))
  shift 2
  if [ $left -lt 20 ]; then echo "run-all: $what: skipped, out of time" >>"$log"; return; fi
  [ $cap -lt $left ] && left=$cap
  timeout $left python3 "$@" >>"$log" 2>&1
  echo "run-all: $what: exit $? after $((SECONDS - start)) s" >>"$log"
}
time_set() { local v=$1; shift   # time_set SET [bench.py options]
             step 170 "time $v" "$dir/$v/bench.py" "$dir/$v" --label "$v/" --warmup 50 \
               --kernels "$out/kernels.jsonl" --out "$out/$v.md" "$@"; }
check_set() { step 120 "sanitize $1 $2" "$dir/$2/bench.py" --sanitize "$1" "$dir/$2" --label "$2/" \
                --sanitize-seconds 40 --out "$out/sanitize.txt"; }
profile_set() { step 150 "ncu $1" "$dir/$1/bench.py" --sanitize ncu "$dir/$1" --label "$1/" \
                  --sanitize-seconds 60 --out "$out/ncu.txt"; }
# the sets present: the four of prepare.sh first, then any other (variants), by name
sets=
for v in hand found mk single naive micro $(cd "$dir" && ls | sort); do
  [ -e "$dir/$v/bench.py" ] && case " $sets " in *" $v "*) ;; *) sets="$sets $v" ;; esac
done
has() { case " $sets " in *" $1 "*) return 0 ;; esac; return 1; }
has hand && time_set hand
has found && time_set found
has mk && time_set mk
has micro && time_set micro --no-compile
has hand && check_set memcheck hand
has found && check_set memcheck,racecheck found
for v in $sets; do case $v in hand|found|mk|naive|micro) ;; *) time_set $v ;; esac; done
# the reference graphs for the checks that run once: the hand-written ones, else the found ones
ref=; has hand && ref=hand || { has found && ref=found; }
has hand && check_set racecheck hand
[ -n "$ref" ] && profile_set $ref
has micro && profile_set micro
has micro && check_set memcheck micro
has naive && time_set naive
for v in $sets; do case $v in hand|found|single|naive|mk|micro) ;; *) check_set memcheck,racecheck $v ;; esac; done
has mk && check_set memcheck mk
[ -n "$ref" ] && check_set synccheck,initcheck $ref
for v in $sets; do
  [ -s "$out/$v.md" ] && { echo "### $v"; cat "$out/$v.md"; echo; } >>"$out/tables.md"
  rm -f "$out/$v.md"
done
echo "run-all: done after $((SECONDS - start)) s" >>"$log"
