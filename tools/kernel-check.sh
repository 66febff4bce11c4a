#!/usr/bin/env bash
# kernel-check.sh — static checks of the generated kernels' quality (docs/gpu.md, "Static
# checks of kernel quality"), no GPU: per graph-defined kernel of each graph, from
# tools/ptx-stats.sh's PTX counts, nvcc's resource usage, `axle cost`'s bytes and (with
# --banks) `axle emulate`'s bank counter:
#   mma    mma.sync in a kernel with a block matmul; wmma nowhere
#   shfl   shfl.sync in a kernel with a row reduction (ax_warp_sum/max/min in its source)
#   wait   the largest cp.async.wait_group N is stages-2 where the ring has >= 3 stages
#   st16   no 16-bit shared-memory stores in a kernel whose matmul is mma
#   spill  0 spill stores and loads (nvcc -cubin --resource-usage)
#   found  the kernel is in ptx-stats' counts (else its other checks are not run)
#   grid   >= 120 blocks where the kernel moves more than 4 MB (axle cost's hbm_bytes;
#          a kernel axle cost does not name once fails)
#   banks  ldmatrix wavefronts at 1.00 of ideal (axle emulate; only with --banks)
#
#   tools/kernel-check.sh [--axle AXLE] [--expected FILE] [--banks] [--cu-sed SCRIPT] GRAPH.mug...
#
# --cu-sed: a sed script applied to the generated source before compiling (to attack the
# checks with a bad kernel). Prints one row per kernel and check: graph kernel check value
# PASS|FAIL|KNOWN; exit 0 when every failure is listed in FILE (lines `graph kernel check`)
# and every listed one still fails; 1 otherwise; 77 without nvcc.
set -u
axle=build/axle expected=/dev/null banks=0 cused=
while [ $# -gt 0 ]; do
  case $1 in
  --axle) axle=$2; shift 2 ;;
  --expected) expected=$2; shift 2 ;;
  --banks) banks=1; shift ;;
  --cu-sed) cused=$2; shift 2 ;;
  *) break ;;
  esac
done
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "kernel-check: no nvcc" >&2; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=0 fails=0 known=0 passes=0
# the bad-case option: a wrapper axle whose `cuda` output goes through the sed script
if [ -n "$cused" ]; then
  real=$(cd "$(dirname "$axle")" && pwd)/$(basename "$axle")
  printf '#!/usr/bin/env bash\n"%s" "$@" || exit $?\nif [ "$1" = cuda ]; then while [ $# -gt 0 ]; do [ "$1" = --output ] && sed -i -e %q "$2"; shift; done; fi\n' \
    "$real" "$cused" >"$tmp/axle"
  chmod +x "$tmp/axle"
  axle=$tmp/axle
fi
verdict() {   # GRAPH KERNEL CHECK VALUE OK
  local v=PASS listed=0
  grep -qx "$1 $2 $3" "$expected" 2>/dev/null && listed=1
  if [ "$5" = 1 ]; then
    passes=$((passes + 1))
    [ $listed = 1 ] && { v="PASS now passes: remove from the list"; st=1; }
  elif [ $listed = 1 ]; then v=KNOWN; known=$((known + 1))
  else v=FAIL; fails=$((fails + 1)); st=1; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$v"
}
printf 'graph\tkernel\tcheck\tvalue\tverdict\n'
for g in "$@"; do
  name=$(basename "$g" .mug)
  case $g in *superopt-found/*) name=found-$name ;; esac
  if ! "$axle" cuda "$g" --target sm_90 --output "$tmp/$name.cu" >"$tmp/log" 2>&1 ||
     ! "$here/ptx-stats.sh" --axle "$axle" "$g" >"$tmp/$name.stats" 2>>"$tmp/log" ||
     ! "$NVCC" -O3 -cubin -arch=sm_90 -DAXLE_TC --resource-usage -o "$tmp/$name.cubin" "$tmp/$name.cu" \
        >"$tmp/$name.res" 2>&1 ||
     ! "$axle" cost "$g" --format json >"$tmp/$name.json" 2>>"$tmp/log"; then
    echo "kernel-check: $g does not generate, compile or cost:" >&2
    cat "$tmp/log" "$tmp/$name.res" 2>/dev/null >&2
    st=1; continue
  fi
  [ $banks = 1 ] && "$axle" emulate "$g" --seed 7 >"$tmp/$name.emu" 2>&1
  # per graph-defined kernel in the source: ax_kS, its graph name, grid blocks, ring stages,
  # a block matmul (an accumulator tile), a row reduction (a warp reduction called)
  awk '
    /^\/\/ kernel '\''/ { split($0, q, "'\''"); kn = q[2]; s = $0; sub(/.*grid \[/, "", s); sub(/\].*/, "", s)
                           n = split(s, d, ", "); blocks = 1; for (i = 1; i <= n; i++) blocks *= d[i]; stages = 1; next }
    /^\/\/ axle: kernel .* ring of [0-9]+ stages/ { s = $0; sub(/.*ring of /, "", s); stages = s + 0; next }
    /^__global__/ && kn != "" { if (cur != "") print cur, gn, gb, gs, mm, rd
                  match($0, /ax_k[0-9]+/); cur = substr($0, RSTART, RLENGTH); gn = kn; gb = blocks; gs = stages; mm = 0; rd = 0; kn = ""; next }
    /^__global__/ { if (cur != "") print cur, gn, gb, gs, mm, rd; cur = ""; next }
    cur != "" && /\] [a-z0-9]+ accumulator/ { mm = 1 }
    cur != "" && /ax_warp_(sum|max|min)</ { rd = 1 }
    END { if (cur != "") print cur, gn, gb, gs, mm, rd }' "$tmp/$name.cu" >"$tmp/$name.k"
  while read -r k kn blocks stages mm rd; do
    # ptx-stats columns: graph kernel shfl instructions branches mma wmma ldmatrix st16 bar wait
    read -r shfl mma wmma st16 wait < <(awk -v k="$k" -F'\t' '$2 == k { print $3, $6, $7, $9, $11 }' "$tmp/$name.stats")
    # a kernel that ptx-stats or axle cost does not know is a failure, never an empty pass
    verdict "$name" "$k" found "ptx=${mma:+yes}" $([ -n "$mma" ] && echo 1 || echo 0)
    [ -n "$mma" ] || continue
    verdict "$name" "$k" mma "mma=$mma,wmma=$wmma,matmul=$mm" $(( (mm == 0 || mma > 0) && wmma == 0 ))
    verdict "$name" "$k" shfl "shfl=$shfl,reduction=$rd" $(( rd == 0 || shfl > 0 ))
    w=$wait; [ "$w" = - ] && w=-1
    verdict "$name" "$k" wait "wait=$wait,stages=$stages" $(( stages < 3 || w == stages - 2 ))
    verdict "$name" "$k" st16 "st16=$st16,mma=$mma" $(( mma == 0 || st16 == 0 ))
    sp=$(awk -v k="$k" '/Function properties for/ { f = ($0 ~ k) } f && /spill stores/ { gsub(/[^0-9 ]/, " "); print $1 + $2; exit }' "$tmp/$name.res")
    sp=${sp:-0}
    verdict "$name" "$k" spill "spill_bytes=$sp" $(( sp == 0 ))
    by=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=[x["hbm_bytes"] for x in d["kernels"] if x["name"]==sys.argv[2]]; print(b[0] if len(b)==1 else -1)' "$tmp/$name.json" "$kn" 2>/dev/null || echo -1)
    verdict "$name" "$k" grid "blocks=$blocks,bytes=$by" $(( by >= 0 && (by <= 4194304 || blocks >= 120) ))
    if [ $banks = 1 ]; then
      r=$(grep "^  shared memory, kernel '$kn' ($k):" "$tmp/$name.emu" | sed -n 's/.*ldmatrix requests, .* ideal): \([0-9.]*\) of ideal.*/\1/p' | head -1)
      [ -n "$r" ] && verdict "$name" "$k" banks "ldmatrix_of_ideal=$r" $( [ "$r" = 1.00 ] && echo 1 || echo 0 )
    fi
  done <"$tmp/$name.k"
done
echo "kernel-check: $passes pass, $known known shortfalls, $fails fail"
exit $st
