#!/usr/bin/env bash
# Compile check of the generated CUDA (docs/gpu.md, "Compile check"), for sm_90 and sm_80:
#   * every example of superopt/examples, the sm_80 shared-memory edge case (sm_90 only),
#     every pre-defined operator, the operators of real layers (tests/gpu/vocab.mug), sums,
#     means and max and min reductions by warp shuffles (tests/gpu/rowsum.mug, rowmax.mug;
#     a block of 48 threads among them), transposes and conversions (tests/gpu/layout.mug),
#     masks (tests/gpu/mask.mug), slices, pads, reverses, abs, log and pow (tests/gpu/window.mug),
#     the online softmax's running max and rescaled sums (tests/superopt/attn_max.flash.mug,
#     softmax_max.online.mug, and the search's own attn_max.searched.mug and
#     softmax_max.searched.mug), block iotas, comparisons and selects (a causal mask inside
#     the kernel: tests/superopt/causal.fused.mug, causal_attn.flash.mug; anticausal.flash.mug
#     is left out: its -inf fill is a division by a literal 0, which nvcc warns about),
#     QKNorm in bf16, the cp.async ring's edge cases (tests/gpu/dbuf.mug, ring.mug), the tensor-core matmuls' shapes
#     (tests/gpu/mma.mug), the pre-defined matmuls (cuBLAS calls:
#     tests/gpu/predef_mm.mug) and row kernels (predef_rows.mug), and each example's program
#     lowered to one kernel per operator (sm_90);
#   * every graph the superoptimizer writes: docs/superopt-found (tools/superopt-results.sh;
#     searched for the H100, so one over the A100's shared memory is checked refused for
#     sm_80 instead) and the graphs of tests/e2e/superopt_search.sh, whose searches (sections 1-3) are
#     rerun here — keep them in step;
# each generated for the target and compiled by nvcc with --resource-usage: no error, no
# warning, no register spill, static shared memory within the target's limit (from ptxas),
# dynamic shared memory within it (from the generated file), and ptxas reports every
# __global__. Where the file has block matmuls on tensor cores, also its PTX: every kernel
# with one holds mma.sync.aligned.m16n8k16 and ldmatrix, and no file holds a wmma
# instruction (the tensor-core path is mma.sync, emitted unconditionally).
# Device code only (-cubin), except two full compiles that include the host entry, links
# with -lcublas (the pre-defined matmuls' cuBLAS calls; shared libraries, every symbol
# resolved), the PTX of the cp.async rings, which must hold the cp.async instructions
# (every kernel whose loop is a ring of S >= 3 stages its cp.async.wait_group S-2), and of the pre-defined row kernels (vector loads and stores, shuffles); and the
# warp-level primitives' snippets (tests/gpu/warp.cu, emulated by tests/unit/check_warp.c),
# whose PTX must hold every shuffle, ldmatrix and mma.sync form.
# Without nvcc the test is skipped (exit 77), loudly.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "SKIP: nvcc not found (neither \$NVCC, PATH nor /usr/local/cuda/bin/nvcc): the generated"
  echo "SKIP: CUDA was NOT compiled; install the CUDA toolkit to run this check"
  exit 77
fi
echo "nvcc: $("$NVCC" --version | tail -1)"
limit() { [ "$1" = sm_90 ] && echo 232448 || echo 166912; }
ncompiled=0

# compile_check NAME GRAPH.mug TARGET: generates one graph for one target and queues its
# compiles (run_compiles runs the queue, two at a time, and checks every log)
: >"$tmp/queue"
compile_check() {
  local name=$1 mug=$2 t=$3
  local cu="$tmp/$name.$t.cu"
  "$AXLE" cuda "$mug" --output "$cu" --target "$t"
  check "$name $t: generated" test -s "$cu"
  local bytes paths path
  while read -r _ _ _ _ _ _ bytes _; do
    check "$name $t: dynamic shared memory $bytes <= $(limit "$t")" test "$bytes" -le "$(limit "$t")"
  done < <(grep '^// axle: kernel [^ ]* shared memory' "$cu")
  echo "$name $t cubin $cu" >>"$tmp/queue"
  if grep -q '// tensor cores: mma.sync' "$cu" || [ -n "$(ring_kernels "$cu")" ]; then
    echo "$name $t ptx $cu" >>"$tmp/queue"
  fi
}
# the kernels of a generated file whose loop is a cp.async ring of S >= 3 stages, "ax_kN S"
# a line (the notes above a __global__ say S)
ring_kernels() {
  awk '/^\/\/ axle: kernel [^ ]* loads in a cp.async ring of [0-9]+ stages/ { s = $11 }
       /^__global__ / { match($0, /ax_k[0-9]+\(/); if (s >= 3) print substr($0, RSTART, RLENGTH - 1), s; s = 0 }' "$1"
}
compile_one() {   # NAME TARGET KIND CU: one nvcc run (-cubin or -ptx), its log and exit status beside
  local out="$tmp/$1.$2.$3"
  if [ "$3" = ptx ]; then
    "$NVCC" -ptx -arch="$2" -o "$tmp/$1.$2.ptx" "$4" >"$out.log" 2>&1
  else
    "$NVCC" -cubin -arch="$2" --resource-usage -o "$out.cubin" "$4" >"$out.log" 2>&1
  fi
  echo $? >"$out.st"
}
# the kernels (ax_kN) of a generated file with a block matmul on tensor cores, one a line
mma_kernels() {
  awk '/^__global__ / { match($0, /ax_k[0-9]+\(/); k = substr($0, RSTART, RLENGTH - 1) }
       /\/\/ tensor cores: mma.sync/ && k != "" { print k }' "$1" | sort -u
}
# COUNT of PATTERN in the PTX entry of kernel K (from its .entry to the closing brace)
ptx_count() {   # PTX K PATTERN
  awk -v k="$2" -v pat="$3" '
    /^\.(visible )?\.entry / { match($0, /ax_k[0-9]+/); inside = substr($0, RSTART, RLENGTH) == k; next }
    inside && /^\}/ { inside = 0 }
    inside && index($0, pat) { n++ }
    END { print n + 0 }' "$1"
}
nmma=0
nring=0
run_compiles() {
  export NVCC tmp
  export -f compile_one
  xargs -P "${NVCC_JOBS:-2}" -L 1 bash -c 'compile_one "$@"' _ <"$tmp/queue"
  local name t path cu log st nglobal smem
  while read -r name t path cu; do
    log="$tmp/$name.$t.$path.log"
    st=$(cat "$tmp/$name.$t.$path.st" 2>/dev/null || echo none)
    nglobal=$(grep -c '^__global__' "$cu")
    ncompiled=$((ncompiled + 1))
    check "$name $t $path: nvcc exit 0" test "$st" = 0
    if [ "$path" = ptx ]; then
      check "$name $t ptx: written" test -s "$tmp/$name.$t.ptx"
      check "$name $t ptx: no wmma" bash -c "! grep -q 'wmma\.' '$tmp/$name.$t.ptx'"
      local k
      for k in $(mma_kernels "$cu"); do
        nmma=$((nmma + 1))
        check "$name $t ptx $k: mma.sync.aligned.m16n8k16" test "$(ptx_count "$tmp/$name.$t.ptx" "$k" 'mma.sync.aligned.m16n8k16.row.col.f32')" -gt 0
        check "$name $t ptx $k: ldmatrix.x4" test "$(ptx_count "$tmp/$name.$t.ptx" "$k" 'ldmatrix.sync.aligned.m8n8.x4.shared.b16')" -gt 0
        check "$name $t ptx $k: ldmatrix.x4.trans" test "$(ptx_count "$tmp/$name.$t.ptx" "$k" 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16')" -gt 0
      done
      # the ring's wait (docs/gpu.md, "The cp.async ring"): S - 2 groups left in flight,
      # cp.async.wait_group 1 or 2, in each kernel whose loop is a ring of 3 or 4
      local s
      while read -r k s; do
        nring=$((nring + 1))
        check "$name $t ptx $k: a ring of $s, cp.async.wait_group $((s - 2))" \
          test "$(ptx_count "$tmp/$name.$t.ptx" "$k" "cp.async.wait_group $((s - 2));")" -gt 0
        echo "$name $t ptx $k: ring of $s, cp.async.wait_group $((s - 2)) x $(ptx_count "$tmp/$name.$t.ptx" "$k" "cp.async.wait_group $((s - 2));")"
      done < <(ring_kernels "$cu")
      echo "$name $t ptx: $(mma_kernels "$cu" | tr '\n' ' ')"
      continue
    fi
    check "$name $t $path: no warning" bash -c "! grep -qi 'warning' '$log'"
    check "$name $t $path: ptxas reports every kernel" test "$(grep -c 'Used [0-9]* registers' "$log")" -eq "$nglobal"
    check "$name $t $path: no spill" bash -c "! grep -E '[1-9][0-9]* bytes spill (stores|loads)' '$log'"
    smem=$(grep -o '[0-9]* bytes smem' "$log" | sort -n | tail -1 | cut -d' ' -f1)
    check "$name $t $path: static smem ${smem:-0} <= $(limit "$t")" test "${smem:-0}" -le "$(limit "$t")"
    [ "$st" = 0 ] || head -20 "$log"
    echo "$name $t $path: $(grep -o 'Used [0-9]* registers' "$log" | tr '\n' ' ')smem ${smem:-0}"
  done <"$tmp/queue"
}

ex=superopt/examples
for g in $ex/{rmsnorm_linear,gated_mlp,lora,gqa,qknorm,ntrans} tests/gpu/{smem_sm80,predefined,qknorm_bf16,dbuf,ring,mma,vocab,rowsum,rowmax,layout,mask,window,predef_mm,predef_rows} \
         tests/superopt/{attn_max.flash,softmax_max.online,attn_max.searched,softmax_max.searched,causal.fused,causal_attn.flash}; do
  for t in sm_90 sm_80; do
    [ "$(basename "$g")" = smem_sm80 ] && [ "$t" = sm_80 ] && continue   # refused there (gpu_cuda.sh)
    compile_check "$(basename "$g")" "$g.mug" "$t"
  done
done

# every program lowered to one pre-defined kernel per operator (the naive baseline)
for g in $ex/{rmsnorm_linear,gated_mlp,lora,gqa,qknorm,ntrans}; do
  compile_check "naive-$(basename "$g")" "$g.axl" sm_90
done

# every graph the superoptimizer found and wrote (docs/superopt-found)
nfound=0
for f in docs/superopt-found/*.mug; do
  [ -e "$f" ] || continue
  nfound=$((nfound + 1))
  for t in sm_90 sm_80; do
    # searched for the H100 (227 KB per block): a graph whose blocks need more shared memory
    # than the A100 has is refused for sm_80 with a located error, not compiled (QKNorm's)
    if [ "$t" = sm_80 ] && ! "$AXLE" cuda "$f" --output "$tmp/probe.cu" --target sm_80 2>"$tmp/probe.err"; then
      check "found-$(basename "$f" .mug) sm_80: refused for shared memory" has "$tmp/probe.err" "more than sm_80 allows"
      continue
    fi
    compile_check "found-$(basename "$f" .mug)" "$f" "$t"
  done
done
echo "docs/superopt-found: $nfound graphs"

# the graphs tests/e2e/superopt_search.sh writes (its sections 1-3, the same commands)
S=("$AXLE" superopt --no-gate --no-greedy --progress never --jobs 2 --max-kernel-ops 1)
st=tests/superopt
mkdir -p "$tmp/found/mm"
"${S[@]}" $st/tiny_rms_linear.axl --max-block-ops 7 --output "$tmp/found/rms.mug" >/dev/null 2>&1
check "search: rms written" test -s "$tmp/found/rms.mug"
"${S[@]}" $st/tiny_chain.axl --max-block-ops 6 --output "$tmp/found/chain.mug" >/dev/null 2>&1
check "search: chain written" test -s "$tmp/found/chain.mug"
"${S[@]}" $st/tiny_mm.axl --max-block-ops 4 --top 1000 --output "$tmp/found/mm.mug" --found-dir "$tmp/found/mm" \
  >/dev/null 2>&1
nmm=$(ls "$tmp/found/mm" 2>/dev/null | wc -l)
check "search: exhaustive tiny_mm wrote graphs" test "$nmm" -gt 0
nsearch=0
for f in "$tmp"/found/*.mug "$tmp"/found/mm/*.mug; do
  [ -e "$f" ] || continue
  nsearch=$((nsearch + 1))
  for t in sm_90 sm_80; do compile_check "search-$(basename "$(dirname "$f")")-$(basename "$f" .mug)" "$f" "$t"; done
done
echo "superopt_search graphs: $nsearch"

run_compiles
# the tensor-core kernels: the examples' matmuls, tests/gpu/mma.mug's, the searched graphs'
check "tensor-core kernels checked in the PTX: $nmma" test "$nmma" -ge 28

# host code too (the checks above compile device code only): a full -c compile of the graph
# with intermediates, two kernels and dynamic shared memory, and of the pre-defined one
for name in gqa predefined; do
  "$NVCC" -c -arch=sm_90 -o "$tmp/$name.o" "$tmp/$name.sm_90.cu" >"$tmp/host.log" 2>&1
  check "$name: host and device compile" test $? -eq 0
  check "$name: host compile without warning" bash -c "! grep -qi warning '$tmp/host.log'"
done
# pre-defined matmuls are cuBLAS calls: linked with -lcublas into a shared library as
# gpu/bench/prepare.sh links them, every symbol resolved (--no-undefined), for both targets,
# and a naive program (two cuBLAS matmuls beside its row and element-wise kernels)
for unit in predef_mm.sm_90 predef_mm.sm_80 predefined.sm_80 naive-qknorm.sm_90; do
  "$NVCC" -shared -Xcompiler -fPIC -arch="${unit##*.}" -o "$tmp/$unit.so" "$tmp/$unit.cu" -lcublas \
    -Xlinker --no-undefined >"$tmp/link.log" 2>&1
  check "$unit: linked with -lcublas" test $? -eq 0
  check "$unit: link without warning" bash -c "! grep -qi warning '$tmp/link.log'"
  check "$unit: needs libcublas" bash -c "objdump -p '$tmp/$unit.so' | grep -q 'NEEDED.*libcublas'"
done
check "naive-qknorm: its two matmuls are cuBLAS calls" test "$(grep -c 'cublasGemmStridedBatchedEx(h' "$tmp/naive-qknorm.sm_90.cu")" -eq 2
# the pre-defined row kernels: 16-byte loads and stores, rows reduced by warp shuffles
for t in sm_90 sm_80; do
  "$NVCC" -ptx -arch="$t" -o "$tmp/pr.ptx" "$tmp/predef_rows.$t.cu" >"$tmp/ptx.log" 2>&1
  check "predef_rows $t ptx: 16-byte loads" test "$(count "$tmp/pr.ptx" 'ld.global.nc.v4.u32')" -ge 10
  check "predef_rows $t ptx: 16-byte stores" test "$(count "$tmp/pr.ptx" 'st.global.v4.u32')" -ge 4
  check "predef_rows $t ptx: warp shuffles" test "$(count "$tmp/pr.ptx" 'shfl.sync.bfly.b32')" -ge 50
done
# the ring's loops are cp.async in the PTX: 16-byte .cg, 8- and 4-byte .ca, one commit per
# iteration (and the prologue's: 3 for a ring of 4), a wait_group 2 (rmsnorm_linear's ring of 4)
for t in sm_90 sm_80; do
  "$NVCC" -ptx -arch="$t" -o "$tmp/r.ptx" "$tmp/rmsnorm_linear.$t.cu" >"$tmp/ptx.log" 2>&1
  check "rmsnorm_linear $t ptx: cp.async.cg 16" has "$tmp/r.ptx" "cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16;"
  check "rmsnorm_linear $t ptx: wait_group 2" has "$tmp/r.ptx" "cp.async.wait_group 2;"
  check "rmsnorm_linear $t ptx: commits" test "$(count "$tmp/r.ptx" 'cp.async.commit_group;')" -ge 4
  "$NVCC" -ptx -arch="$t" -o "$tmp/d.ptx" "$tmp/dbuf.$t.cu" >"$tmp/ptx.log" 2>&1
  check "dbuf $t ptx: cp.async.ca 8" has "$tmp/d.ptx" "cp.async.ca.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 8;"
  check "dbuf $t ptx: cp.async.ca 4" has "$tmp/d.ptx" "cp.async.ca.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 4;"
done
# the warp-level primitives (gpu/warp.cuh): tests/gpu/warp.cu, the snippets check_warp runs in
# the emulator, after the generated prelude, for both targets — ptxas takes them (a cubin, no
# warning) and the PTX holds each instruction; the generated row norms shuffle
sed '/^\/\/ axle: end of the prelude$/q' "$tmp/ntrans.sm_90.cu" >"$tmp/prelude.cuh"
check "prelude: cut at its end" has "$tmp/prelude.cuh" "^// axle: end of the prelude$"
for t in sm_90 sm_80; do
  "$NVCC" -cubin -arch="$t" -I "$tmp" -o "$tmp/warp.$t.cubin" tests/gpu/warp.cu >"$tmp/warp.log" 2>&1
  check "warp.cu $t: cubin" test $? -eq 0
  check "warp.cu $t: no warning" bash -c "! grep -qi warning '$tmp/warp.log'"
  "$NVCC" -ptx -arch="$t" -I "$tmp" -o "$tmp/warp.$t.ptx" tests/gpu/warp.cu >"$tmp/warp.log" 2>&1
  check "warp.cu $t: ptx" test $? -eq 0
  for ins in shfl.sync.idx.b32 shfl.sync.bfly.b32 shfl.sync.down.b32 shfl.sync.up.b32 \
             ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 ldmatrix.sync.aligned.m8n8.x{1,2,4}.trans.shared.b16 \
             mma.sync.aligned.m16n8k16.row.col.f32.{f16.f16,bf16.bf16}.f32; do
    check "warp.cu $t ptx: $ins" grep -qF "$ins" "$tmp/warp.$t.ptx"
  done
  "$NVCC" -ptx -arch="$t" -o "$tmp/n.ptx" "$tmp/ntrans.$t.cu" >"$tmp/ptx.log" 2>&1
  check "ntrans $t ptx: row norms by warp shuffles" test "$(count "$tmp/n.ptx" 'shfl.sync.bfly.b32')" -ge 10
done
# QKNorm's first kernel does not fit a ring of 2 on sm_80: no cp.async there
"$NVCC" -ptx -arch=sm_80 -o "$tmp/q.ptx" "$tmp/qknorm.sm_80.cu" >"$tmp/ptx.log" 2>&1
check "qknorm sm_80 ptx: single-buffered, no cp.async" bash -c "! grep -q 'cp.async' '$tmp/q.ptx'"
check "ring: kernels with a ring of 3 or 4 checked" test "$nring" -gt 0
echo "ring kernels (S >= 3) with their cp.async.wait_group S-2: $nring"
echo "gpu nvcc: $ncompiled compiles, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
