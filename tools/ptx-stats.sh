#!/usr/bin/env bash
# ptx-stats.sh — static counts of the generated kernels' PTX (docs/gpu.md, "Reductions"):
# per __global__ of each graph, its warp shuffles (shfl.sync), instructions, branches (bra),
# tensor-core instructions (mma.sync, wmma.*), ldmatrix, 16-bit shared-memory stores
# (st.shared.{u,b}16), barriers (bar.sync) and the cp.async ring's waits (the largest N of
# its cp.async.wait_group N, - without one: docs/gpu.md, "The cp.async ring"), as nvcc -O3
# -ptx compiles `axle cuda`'s file. Static counts, not times.
#
#   tools/ptx-stats.sh [--axle AXLE] [--target sm_90|sm_80] [--portable] GRAPH.mug...
#
# --axle: the axle binary (default build/axle; give an older build to compare); --portable:
# without -DAXLE_TC (default: with it, as gpu/bench/prepare.sh --build compiles; the
# generated code no longer reads it — an older build's wmma path did). Prints one
# tab-separated line per kernel: graph, kernel, shfl, instructions, branches, mma, wmma,
# ldmatrix, st16, bar, wait; exit 1 when a graph does not generate or compile, 77 without nvcc.
set -u
axle=build/axle target=sm_90 tc=-DAXLE_TC
while [ $# -gt 0 ]; do
  case $1 in
  --axle) axle=$2; shift 2 ;;
  --target) target=$2; shift 2 ;;
  --portable) tc=; shift ;;
  *) break ;;
  esac
done
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "ptx-stats: no nvcc" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'graph\tkernel\tshfl\tinstructions\tbranches\tmma\twmma\tldmatrix\tst16\tbar\twait\n'
st=0
for g in "$@"; do
  name=$(basename "$g" .mug)
  if ! "$axle" cuda "$g" --target "$target" --output "$tmp/$name.cu" >"$tmp/log" 2>&1 ||
     ! "$NVCC" -O3 -ptx -arch="$target" $tc -o "$tmp/$name.ptx" "$tmp/$name.cu" >>"$tmp/log" 2>&1; then
    echo "ptx-stats: $g does not generate or compile:" >&2
    cat "$tmp/log" >&2
    st=1
    continue
  fi
  # an .entry's body runs from its '{' to the '}' alone on a line; instructions are the
  # statements there that are not declarations (.reg, .shared, ...) or labels
  awk -v graph="$name" '
    /^\.(visible )?\.entry / { match($0, /ax_(k|op)[0-9]+/); kernel = substr($0, RSTART, RLENGTH); inside = 0; next }
    kernel != "" && /^\{/ { inside = 1; shfl = 0; ins = 0; bra = 0; mma = 0; wmma = 0; ldm = 0; st16 = 0; bar = 0; wait = -1; next }
    inside && /^\}/ {
      printf "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", graph, kernel, shfl, ins, bra, mma, wmma, ldm, st16, bar,
             wait < 0 ? "-" : wait
      inside = 0; kernel = ""; next
    }
    inside {
      line = $0
      sub(/\/\/.*/, "", line)
      if (line ~ /^[ \t]*\./ || line ~ /^[ \t]*\$?[A-Za-z_0-9$]+:/ || line !~ /;/) next
      ins++
      if (line ~ /shfl\.sync/) shfl++
      if (line ~ /(^|[ \t])bra(\.uni)?[ \t]/) bra++
      if (line ~ /mma\.sync\.aligned/ && line !~ /wmma/) mma++
      if (line ~ /wmma\./) wmma++
      if (line ~ /ldmatrix\./) ldm++
      if (line ~ /st\.shared\.[ub]16/) st16++
      if (line ~ /bar\.sync|barrier\.sync/) bar++
      if (match(line, /cp\.async\.wait_group [0-9]+/)) {
        n = substr(line, RSTART + 20, RLENGTH - 20) + 0
        if (n > wait) wait = n
      }
    }' "$tmp/$name.ptx"
done
exit $st
