#!/usr/bin/env bash
# axle emulate: the generated CUDA of every example, compiled for the CPU (gpu/emu), agrees
# with the float interpreter at the real shapes (none takes over a minute here, so none is
# reduced). QKNorm in f16 overflows in the μGraph itself (every output is nan, and the
# emulation must give nan at the same places), so it also runs in bf16
# (tests/gpu/qknorm_bf16.mug, same shapes), where the values are compared. Every
# pre-defined operator runs once (tests/gpu/predefined.mug), and so do the element-wise
# operators of real layers (tests/gpu/vocab.mug: rsqrt, tanh, logistic, max, min, sin, cos, erf, also fused;
# with max turned into min in the generated source it must differ), the sums and the max
# and min reductions (tests/gpu/rowsum.mug, rowmax.mug: split over lanes, warp shuffles,
# across warps; without the barrier before the cross-warp step they must differ); slices,
# pads, reverses, abs, log and pow (tests/gpu/window.mug, the last three also fused);
# tests/gpu/dbuf.mug runs the cp.async ring's loads at their edges (a ring of 3 over 3
# iterations, 8-, 4-byte and ragged rows, f32, bf16, a loop of one iteration);
# tests/gpu/ring.mug a ring of 4 stages (a tensor-core matmul over 8 iterations, swizzled
# slots, and a loop of 5 iterations whose last three commit empty groups); tests/gpu/predef_mm.mug the
# pre-defined matmuls as cuBLAS calls (f16, bf16, f32, odd sizes, batches, broadcast batch
# dims) and predef_rows.mug the pre-defined reductions and rms_norm as row and column
# kernels and the element-wise packs (with their mutants below); tests/gpu/mma.mug the block
# matmuls on tensor cores (mma.sync fed by ldmatrix) at shapes that are neither square nor
# symmetric, so that a wrong fragment mapping differs element by element: mutants that feed
# one n8 tile's B fragment to its neighbour, store a fragment element at another's place,
# swap A's two k halves, load B without .trans, or write a register accumulator's chain
# into another's place must be caught (exit 1).
# Soundness: generated sources with a barrier removed (two places), a tile offset shifted
# and a barrier made divergent must be caught (exit 1, 1, 1, 2), and a shuffle some lanes
# of a warp skip (exit 2, warp divergence, named); so must the cp.async mistakes: the wait
# removed, a wait that leaves this iteration's copies in flight (wait_group S-1 for S-2),
# the barrier after the wait removed, the end-of-iteration barrier removed (the refill
# overwrites a slot still being read), a read of the slot off by one, the refill issued
# into the slot this iteration reads (before the barrier that ends its reads). The bank counter's lines: the generated copies at the ideal, the
# matmuls' ldmatrix.x4 at the ideal on swizzled tiles, at 8 times it on 128-byte rows. Bad input exits 3.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
if ! command -v "${CXX:-g++}" >/dev/null; then
  echo "SKIP: no host C++ compiler (${CXX:-g++}); install g++ (make deps) to emulate"
  exit 77
fi
ex=superopt/examples
for g in $ex/rmsnorm_linear $ex/gated_mlp $ex/lora $ex/gqa $ex/qknorm $ex/ntrans tests/gpu/qknorm_bf16 \
         tests/gpu/predefined tests/gpu/dbuf tests/gpu/rowsum tests/gpu/vocab tests/gpu/rowmax \
         tests/gpu/layout tests/gpu/mask tests/gpu/window tests/gpu/predef_mm tests/gpu/predef_rows tests/gpu/mma \
         tests/gpu/ring; do
  name=$(basename "$g")
  start=$(date +%s)
  "$AXLE" emulate "$g.mug" --seed 7 >"$tmp/out" 2>&1
  st=$?
  check "$name: exit 0" test $st -eq 0
  check "$name: agrees" has "$tmp/out" "^agrees: the generated kernels compute what the mugraph computes"
  check "$name: error printed" has "$tmp/out" "max relative error"
  echo "$name ($(($(date +%s) - start)) s): $(grep 'max relative error' "$tmp/out")"
  [ $st -eq 0 ] || head -20 "$tmp/out"
  cp "$tmp/out" "$tmp/out.$name"
done
# tensor cores (docs/gpu.md, "Generated code"): wrong fragment mappings compute other values
"$AXLE" cuda tests/gpu/mma.mug --output "$tmp/mma.cu"
check "mma: no portable matmul" bash -c "! grep -q 'fmaf(' '$tmp/mma.cu'"
mma_mutant() {   # WHAT SED-SCRIPT OUTPUT: the mutant differs from the source and is caught
  sed "$2" "$tmp/mma.cu" >"$tmp/mma2.cu"
  check "mma mutant ($1): changed" test -n "$(diff "$tmp/mma.cu" "$tmp/mma2.cu")"
  "$AXLE" emulate tests/gpu/mma.mug --source "$tmp/mma2.cu" --seed 7 >"$tmp/out" 2>&1
  check "mma mutant ($1): exit 1" test $? -eq 1
  check "mma mutant ($1): output '$3' differs" has "$tmp/out" "output '$3' [a-z0-9]*: max relative error .* at"
}
mma_mutant "the second n8 tile's B fragment" 's/(d0, a0, b0l, d0)/(d0, a0, b0h, d0)/' R
mma_mutant "d[1] stored at d[2]'s place" '0,/ax_st2(po + 0, ax_to<__half>(d0\[0\]), ax_to<__half>(d0\[1\]));/s//ax_st2(po + 0, ax_to<__half>(d0[0]), ax_to<__half>(d0[2]));/' C
mma_mutant "A's k halves swapped" 's/ca = lane >> 4;/ca = 1 - (lane >> 4);/' UV
mma_mutant "B without .trans" 's/ax_ldmatrix_x4_trans(b\([0-9]\), /ax_ldmatrix_x4(b\1, /' O
mma_mutant "a register chain written at another's place" 's/(po + \([0-9]*\), ax_f(ax_to<__half>(rf\([0-9]*\)_1\[2\]))/(po + \1, ax_f(ax_to<__half>(rf\2_2[2]))/' O
# the XOR swizzle of the tiles only ldmatrix reads: a reader that reads plainly what was
# stored swizzled, and writers that store plainly what is read swizzled, are caught
check "mma: 4-chunk rows swizzled" has "$tmp/mma.cu" "const int sa = (lane & 15) / 2 % 4, ca = lane >> 4;"
check "mma: 2-chunk rows swizzled" has "$tmp/mma.cu" "const int sb = (lane & 15) / 4 % 2, cb = (tn >> 3) + (lane >> 4);"
mma_mutant "A read without the swizzle" 's/const int sa = [^,]*,/const int sa = 0,/' C
mma_mutant "tiles stored without the swizzle" 's/ ^ (e \/ \([0-9]*\))/ ^ 0 * (e \/ \1)/' O
# a block reduction with few outputs is split over lanes: per lane, by warp shuffles, and
# across warps through a small array and a barrier; without that barrier the emulator must
# see the partials read before they are written
"$AXLE" cuda tests/gpu/rowsum.mug --output "$tmp/rs.cu"
check "rowsum: a row of 1003 over 96 lanes (3 warps)" has "$tmp/rs.cu" "1 row of 1003: 96 lanes each, then shuffles, then across warps"
check "rowsum: a sum to 8 over 8 lanes a row" has "$tmp/rs.cu" "8 rows of 125: 8 lanes each, then shuffles\$"
check "rowsum: warp sums" has "$tmp/rs.cu" "acc = ax_warp_sum<32>(acc);"
check "rowsum: a block of 48 threads: the whole warp shuffles" has "$tmp/rs.cu" "1 row of 1000: 32 lanes each, then shuffles\$"
check "rowsum: no single thread adds the partials" bash -c "! grep -q 'for (int p = 0; p <' '$tmp/rs.cu'"
grep -v "the warps' partials of a row are combined by one warp" "$tmp/rs.cu" >"$tmp/rs2.cu"
check "mutant: the cross-warp barriers were removed" test "$(wc -l <"$tmp/rs2.cu")" -eq $(($(wc -l <"$tmp/rs.cu") - 3))
"$AXLE" emulate tests/gpu/rowsum.mug --source "$tmp/rs2.cu" >"$tmp/out" 2>&1
check "missing cross-warp barrier: exit 1" test $? -eq 1
check "missing cross-warp barrier: DIFFERS" has "$tmp/out" "^DIFFERS"
# max and min reductions are split the same way (ax_warp_max, ax_warp_min)
"$AXLE" cuda tests/gpu/rowmax.mug --output "$tmp/rm.cu"
check "rowmax: a row of 1000 over 96 lanes" has "$tmp/rm.cu" "1 row of 1000: 96 lanes each, then shuffles, then across warps"
check "rowmax: a min to 8 over 8 lanes a row" has "$tmp/rm.cu" "acc = ax_warp_min<8>(acc);"
check "rowmax: the max across warps" has "$tmp/rm.cu" "acc = ax_warp_max<4>(acc);"
grep -v "the warps' partials of a row are combined by one warp" "$tmp/rm.cu" >"$tmp/rm2.cu"
check "mutant: the cross-warp barriers were removed" test "$(wc -l <"$tmp/rm2.cu")" -eq $(($(wc -l <"$tmp/rm.cu") - 2))
"$AXLE" emulate tests/gpu/rowmax.mug --source "$tmp/rm2.cu" >"$tmp/out" 2>&1
check "missing cross-warp barrier (max): exit 1" test $? -eq 1
check "missing cross-warp barrier (max): DIFFERS" has "$tmp/out" "^DIFFERS"

# pre-defined operators (docs/gpu.md, "Pre-defined operators"): the matmuls are cuBLAS calls
# the emulator's stand-in runs; the row kernels' partials cross warps after a barrier —
# without it the rows that span warps must differ; the single-element path (a base not
# 16-byte aligned; the emulator's buffers always are) agrees too; a cuBLAS call given the
# wrong operation is refused by the stand-in as by cuBLAS (the entry returns 20000 + 7),
# and a batch stride dropped computes the wrong product
"$AXLE" cuda tests/gpu/predef_rows.mug --output "$tmp/pr.cu"
check "predef_rows: rows of 4096 over 8 warps" has "$tmp/pr.cu" "pre-defined: 40 rows of 4096, 256 lanes a row, 16-byte loads where aligned\$"
check "predef_rows: a column kernel" has "$tmp/pr.cu" "pre-defined: 600 columns of 64 elements 300 apart, a thread each\$"
grep -v "warps' partials\$" "$tmp/pr.cu" >"$tmp/pr2.cu"
check "mutant: the row kernels' barriers removed" test "$(wc -l <"$tmp/pr2.cu")" -eq $(($(wc -l <"$tmp/pr.cu") - 6))
"$AXLE" emulate tests/gpu/predef_rows.mug --source "$tmp/pr2.cu" >"$tmp/out" 2>&1
check "rows without the cross-warp barrier: exit 1" test $? -eq 1
check "rows without the cross-warp barrier: the 8-warp rms_norm differs" has "$tmp/out" "output 'r' f16: max relative error .* at"
sed 's/const bool vec = .*;/const bool vec = false;  \/\/ as if a base were not 16-byte aligned/' "$tmp/pr.cu" >"$tmp/pr3.cu"
check "mutant: every pack path off" test "$(grep -c 'const bool vec = false;' "$tmp/pr3.cu")" -eq 9
"$AXLE" emulate tests/gpu/predef_rows.mug --source "$tmp/pr3.cu" --seed 7 >"$tmp/out" 2>&1
check "single elements only: agrees" has "$tmp/out" "^agrees: the generated kernels compute what the mugraph computes"
"$AXLE" cuda tests/gpu/predef_mm.mug --output "$tmp/pm.cu"
check "predef_mm: no kernel of its own" bash -c "! grep -q '^__global__' '$tmp/pm.cu'"
check "predef_mm: five cuBLAS calls" test "$(grep -c 'cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N' "$tmp/pm.cu")" -eq 5
sed '0,/CUBLAS_OP_N, CUBLAS_OP_N/s//CUBLAS_OP_T, CUBLAS_OP_T/' "$tmp/pm.cu" >"$tmp/pm2.cu"
"$AXLE" emulate tests/gpu/predef_mm.mug --source "$tmp/pm2.cu" >"$tmp/out" 2>&1
check "transposed cuBLAS call: exit 2" test $? -eq 2
check "transposed cuBLAS call: refused by the stand-in" has "$tmp/out" "axle_run_predef_mm returned 20007"
sed 's/CUDA_R_16BF, 45, 765LL,/CUDA_R_16BF, 45, 0LL,/' "$tmp/pm.cu" >"$tmp/pm3.cu"
check "mutant: a batch stride dropped" test -n "$(diff "$tmp/pm.cu" "$tmp/pm3.cu")"
"$AXLE" emulate tests/gpu/predef_mm.mug --source "$tmp/pm3.cu" >"$tmp/out" 2>&1
check "batch stride dropped: exit 1" test $? -eq 1
check "batch stride dropped: the batched bf16 product differs" has "$tmp/out" "output 'n' bf16: max relative error .* at \[[12], "

# mutated generated sources
"$AXLE" cuda tests/gpu/vocab.mug --output "$tmp/v.cu"
sed 's/fmaxf(/fminf(/g' "$tmp/v.cu" >"$tmp/v2.cu"
check "mutant: max made min" test -n "$(diff "$tmp/v.cu" "$tmp/v2.cu")"
"$AXLE" emulate tests/gpu/vocab.mug --source "$tmp/v2.cu" >"$tmp/out" 2>&1
check "max made min: exit 1" test $? -eq 1
check "max made min: the clipped output differs" has "$tmp/out" "output 'c' f16: max relative error .* at"
sed 's/sinf(/cosf(/g' "$tmp/v.cu" >"$tmp/v3.cu"
"$AXLE" emulate tests/gpu/vocab.mug --source "$tmp/v3.cu" >"$tmp/out" 2>&1
check "sin made cos: exit 1" test $? -eq 1
check "sin made cos: the sine output differs" has "$tmp/out" "output 'sn' f16: max relative error .* at"
r=$ex/rmsnorm_linear.mug
"$AXLE" cuda "$r" --output "$tmp/r.cu"
grep -v "reads 'x'" "$tmp/r.cu" >"$tmp/nobarrier.cu"
check "mutant: a barrier was removed" test "$(wc -l <"$tmp/nobarrier.cu")" -lt "$(wc -l <"$tmp/r.cu")"
"$AXLE" emulate "$r" --source "$tmp/nobarrier.cu" >"$tmp/out" 2>&1
check "missing barrier: exit 1" test $? -eq 1
check "missing barrier: DIFFERS" has "$tmp/out" "^DIFFERS"
sed 's|\* 64 + i0)|* 64 + (i0 + 1) % 64)|' "$tmp/r.cu" >"$tmp/shifted.cu"
check "mutant: an offset was shifted" test -n "$(diff "$tmp/r.cu" "$tmp/shifted.cu")"
"$AXLE" emulate "$r" --source "$tmp/shifted.cu" >"$tmp/out" 2>&1
check "shifted tile: exit 1" test $? -eq 1
check "shifted tile: error printed" has "$tmp/out" "output 'O' f16: max relative error .* at \[[0-9]*, [0-9]*\]"
sed "s|^\(  *\)__syncthreads();  // 'o' reads 'acc'|\1if (tid < 64) __syncthreads();|" "$tmp/r.cu" >"$tmp/diverge.cu"
check "mutant: a divergent barrier" has "$tmp/diverge.cu" "if (tid < 64) __syncthreads"
"$AXLE" emulate "$r" --source "$tmp/diverge.cu" >"$tmp/out" 2>&1
check "divergent barrier: exit 2" test $? -eq 2
check "divergent barrier: named" has "$tmp/out" "barrier divergence in block (0, 0, 0) of kernel ax_k2: 64 threads wait"
# the cp.async ring (docs/gpu.md, "The cp.async ring"): the emulator poisons a copy's
# destination until the wait that completes it. rmsnorm_linear's loop of 64 iterations is
# a ring of 4: wait_group 2.
check "rmsnorm_linear: a ring of 4" has "$tmp/r.cu" "loads in a cp.async ring of 4 stages: 'x' 16 B 'w' 16 B"
grep -v "ax_cp_async_wait<2>" "$tmp/r.cu" >"$tmp/nowait.cu"
check "mutant: the wait was removed" test "$(wc -l <"$tmp/nowait.cu")" -eq $(($(wc -l <"$tmp/r.cu") - 1))
"$AXLE" emulate "$r" --source "$tmp/nowait.cu" >"$tmp/out" 2>&1
check "missing wait: exit 1" test $? -eq 1
check "missing wait: nan read" has "$tmp/out" "output 'O' f16: max relative error inf .*: -\?nan instead of"
sed 's|ax_cp_async_wait<2>()|ax_cp_async_wait<3>()|' "$tmp/r.cu" >"$tmp/wait3.cu"
check "mutant: wait_group 3" has "$tmp/wait3.cu" "ax_cp_async_wait<3>"
"$AXLE" emulate "$r" --source "$tmp/wait3.cu" >"$tmp/out" 2>&1
check "wait leaving this iteration in flight: exit 1" test $? -eq 1
grep -v "next iteration overwrites" "$tmp/r.cu" >"$tmp/noend.cu"
check "mutant: end-of-iteration barrier removed" test "$(wc -l <"$tmp/noend.cu")" -eq $(($(wc -l <"$tmp/r.cu") - 1))
"$AXLE" emulate "$r" --source "$tmp/noend.cu" >"$tmp/out" 2>&1
check "missing end-of-iteration barrier: exit 1" test $? -eq 1
# tests/gpu/ring.mug: both kernels are rings of 4 (8 and 5 iterations)
"$AXLE" cuda tests/gpu/ring.mug --output "$tmp/ring.cu"
check "ring: mm, 4 stages" has "$tmp/ring.cu" "^// axle: kernel mm loads in a cp.async ring of 4 stages: 'x' 16 B 'w' 16 B$"
check "ring: five, 4 stages" has "$tmp/ring.cu" "^// axle: kernel five loads in a cp.async ring of 4 stages: 'a' 16 B$"
ring_mutant() {   # WHAT SED-SCRIPT OUTPUTS: the mutant differs from the source and is caught
  sed "$2" "$tmp/ring.cu" >"$tmp/ring2.cu"
  check "ring mutant ($1): changed" test -n "$(diff "$tmp/ring.cu" "$tmp/ring2.cu")"
  "$AXLE" emulate tests/gpu/ring.mug --source "$tmp/ring2.cu" >"$tmp/out" 2>&1
  check "ring mutant ($1): exit 1" test $? -eq 1
  for o in $3; do
    check "ring mutant ($1): output '$o' differs" has "$tmp/out" "output '$o' f16: max relative error .* at"
  done
}
ring_mutant "wait_group S-1" 's|ax_cp_async_wait<2>()|ax_cp_async_wait<3>()|' "O SA"
ring_mutant "read slot off by one" 's|(ax_smem + \([0-9]*\) + (it % 4) \* |(ax_smem + \1 + ((it + 1) % 4) * |' "O SA"
ring_mutant "refill into the slot being read" 's|(ax_smem + \([0-9]*\) + ((it + 3) % 4) \* |(ax_smem + \1 + (it % 4) * |' "O SA"
# without the barrier that ends iteration it - 1's reads, the refill of iteration it
# overwrites them: caught on the row sums (the matmul's warps run their collectives in
# step in the emulator, so there the reads happen to finish first)
ring_mutant "refill before the barrier" '/next iteration overwrites/d' "SA"
"$AXLE" cuda tests/gpu/dbuf.mug --output "$tmp/d.cu"
grep -v "'ea' reads 'a'" "$tmp/d.cu" >"$tmp/d2.cu"
check "mutant: barrier after an 8-byte cp.async removed" test "$(wc -l <"$tmp/d2.cu")" -eq $(($(wc -l <"$tmp/d.cu") - 1))
"$AXLE" emulate tests/gpu/dbuf.mug --source "$tmp/d2.cu" >"$tmp/out" 2>&1
check "missing barrier after the wait: exit 1" test $? -eq 1
check "missing barrier after the wait: SA" has "$tmp/out" "output 'SA' f16: max relative error inf"
# nTrans' row reductions are split over all threads: dropping the barrier after the
# partial sums is caught too
"$AXLE" cuda $ex/ntrans.mug --output "$tmp/n.cu"
grep -v "the warps' partials of a row are combined by one warp" "$tmp/n.cu" >"$tmp/n2.cu"
check "mutant: cross-warp barrier removed" test "$(wc -l <"$tmp/n2.cu")" -eq $(($(wc -l <"$tmp/n.cu") - 2))
"$AXLE" emulate $ex/ntrans.mug --source "$tmp/n2.cu" >"$tmp/out" 2>&1
check "missing cross-warp barrier: exit 1" test $? -eq 1
# a shuffle that some lanes of a warp skip: a warp collective part of its mask never
# reaches is an error like barrier divergence (exit 2), naming kernel, block, warp, lanes
sed '0,/acc = ax_warp_sum<32>(acc);/s//if (tid < 100) acc = ax_warp_sum<32>(acc);/' "$tmp/n.cu" >"$tmp/n3.cu"
check "mutant: a shuffle skipped by lanes 4-31 of warp 3" has "$tmp/n3.cu" "if (tid < 100) acc = ax_warp_sum"
"$AXLE" emulate $ex/ntrans.mug --source "$tmp/n3.cu" >"$tmp/out" 2>&1
check "divergent shuffle: exit 2" test $? -eq 2
check "divergent shuffle: named" has "$tmp/out" "warp divergence in block (0, 0, 0) of kernel ax_k3, warp 3: __shfl_xor_sync (mask 0xffffffff) reached by lanes 0-3, while lane 4 waits at __syncthreads()"
check "divergent shuffle: the reason" has "$tmp/out" "the emulated program failed (warp divergence)"
# the bank counter: the generated tile copies through ax_smem_load16/store16 are ideal;
# ldmatrix.x4 on swizzled tiles costs the ideal (4 wavefronts; tests/gpu/mma.mug's 'wide'
# and 'idle' kernels, dbuf.mug's matmul), on unswizzled 128-byte rows 8 times it: RMSNorm +
# linear's 'w' is swizzled (only the matmul reads it), its 'x' not (the rms accumulator
# reads it too), so its kernel averages (32 + 4) / 2 = 18 wavefronts a request
"$AXLE" emulate $ex/ntrans.mug --seed 7 >"$tmp/out" 2>&1
check "ntrans: bank counts" has "$tmp/out" "^  shared memory, kernel 'k1' (ax_k3): 512 16-byte vector requests, 2048 wavefronts (4.00 per request), ideal 2048 (4.00 per request): 1.00 of ideal\$"
check "rmsnorm_linear: ldmatrix, half of it swizzled" has "$tmp/out.rmsnorm_linear" "^  shared memory, kernel 'k1' (ax_k2): 131072 ldmatrix requests, 2359296 wavefronts (18.00 per request), ideal 524288 (4.00 per request): 4.50 of ideal"
check "mma: swizzled ldmatrix at the ideal" has "$tmp/out.mma" "^  shared memory, kernel 'wide' (ax_k9): 16 ldmatrix requests, 64 wavefronts (4.00 per request), ideal 64 (4.00 per request): 1.00 of ideal"
check "dbuf: swizzled ldmatrix at the ideal" has "$tmp/out.dbuf" "^  shared memory, kernel 'mm' (ax_k8): 12 ldmatrix requests, 48 wavefronts (4.00 per request), ideal 48 (4.00 per request): 1.00 of ideal"
# a source that does not compile
printf 'this is not C++\n' >"$tmp/junk.cu"
"$AXLE" emulate "$r" --source "$tmp/junk.cu" >"$tmp/out" 2>&1
check "junk source: exit 2" test $? -eq 2
check "junk source: compiler output" has "$tmp/out" "does not compile for the CPU"
CXX=/nonexistent/c++ "$AXLE" emulate "$r" >"$tmp/out" 2>&1
check "no compiler: exit 2" test $? -eq 2
check "no compiler: message" has "$tmp/out" "cannot run the C++ compiler '/nonexistent/c++'"
# bad input
"$AXLE" emulate "$tmp/none.mug" 2>"$tmp/err"
check "missing file: exit 3" test $? -eq 3
"$AXLE" emulate "$r" --seed x 2>"$tmp/err"
check "bad seed: exit 3" test $? -eq 3
"$AXLE" emulate "$r" --seed 18446744073709551616 2>"$tmp/err"
check "seed beyond 2^64 - 1: exit 3" test $? -eq 3
"$AXLE" emulate "$r" --source "$tmp/none.cu" >"$tmp/out" 2>&1
check "missing source: exit 3" test $? -eq 3
echo "gpu emulate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
