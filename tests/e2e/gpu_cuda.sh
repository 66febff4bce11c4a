#!/usr/bin/env bash
# axle cuda: every example of superopt/examples generates a .cu and a header for sm_90 and
# sm_80 (a __global__ per graph-defined kernel, the host entry, the shared memory stated);
# a block beyond sm_80's shared memory is refused at the kernel (exit 3) and leaves no
# file; bad input and usage errors exit 3.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
ex=superopt/examples
for prog in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  for t in sm_90 sm_80; do
    "$AXLE" cuda "$ex/$prog.mug" --output "$tmp/$prog.$t.cu" --target "$t" 2>"$tmp/err"
    check "$prog $t: exit 0" test $? -eq 0
    cu="$tmp/$prog.$t.cu" h="$tmp/$prog.$t.h"
    nk=$(grep -c '^  kernel ' "$ex/$prog.mug")
    check "$prog $t: one __global__ per kernel" test "$(grep -c '^__global__ void __launch_bounds__([0-9]*, 1) ax_k' "$cu")" -eq "$nk"
    check "$prog $t: host entry" has "$cu" "^extern \"C\" int axle_run_$prog(const void \*const \*inputs, void \*const \*outputs, cudaStream_t stream)"
    check "$prog $t: header beside" has "$h" "^int axle_run_$prog(const void \*const \*inputs, void \*const \*outputs, void \*stream);"
    check "$prog $t: header lists the inputs" has "$h" "inputs\[0\]"
    check "$prog $t: shared memory stated" has "$cu" "shared memory [0-9]* bytes .*limit"
    check "$prog $t: target named" has "$cu" "for $t\. Do not edit"
  done
done
# --header names the header
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/x.cu" --header "$tmp/other.h"
check "--header" test -s "$tmp/other.h" -a ! -e "$tmp/x.h"
# rmsnorm_linear: barriers only where needed (4: after the loads, end of iteration, before
# the broadcast division, before the store; the matmul's accumulator is in registers)
check "rmsnorm_linear barriers" has "$tmp/rmsnorm_linear.sm_90.cu" "barriers 4$"
# the cp.async ring (docs/gpu.md, "The cp.async ring"): as many stages (4, 3, 2) as the loop's
# iterations allow and the target's shared memory holds, and the file says which and why.
# rmsnorm_linear's 64 iterations: 4 (45184 bytes); LoRA: 4 on sm_90 (178688), 3 on sm_80
# (4 would need 178688 of its 166912); GQA: 3 on sm_90 (219264; 4 would need 284800), 2
# on sm_80; QKNorm's first kernel needs 189696 bytes for 2, beyond sm_80's 166912:
# single-buffered there (124160)
check "rmsnorm_linear: a ring of 4" has "$tmp/rmsnorm_linear.sm_90.cu" "^// axle: kernel k1 loads in a cp.async ring of 4 stages: 'x' 16 B 'w' 16 B$"
check "rmsnorm_linear: 4 fit" has "$tmp/rmsnorm_linear.sm_90.cu" "^// axle: kernel k1 ring of 4: the most stages axle uses, and they fit$"
check "rmsnorm_linear: 4 slots" has "$tmp/rmsnorm_linear.sm_90.cu" "^// axle: kernel k1 shared memory 45184 bytes"
check "rmsnorm_linear: wait_group 2" has "$tmp/rmsnorm_linear.sm_90.cu" "^    ax_cp_async_wait<2>();"
check "lora sm_90: a ring of 4" has "$tmp/lora.sm_90.cu" "^// axle: kernel k1 shared memory 178688 bytes"
check "lora sm_80: a ring of 3, said" has "$tmp/lora.sm_80.cu" "^// axle: kernel k1 ring of 3: 4 stages would need 178688 bytes of shared memory, more than sm_80 allows (166912)$"
check "lora sm_80: 3 slots" has "$tmp/lora.sm_80.cu" "^// axle: kernel k1 shared memory 143872 bytes"
check "gqa sm_90: a ring of 3, said" has "$tmp/gqa.sm_90.cu" "^// axle: kernel k1 ring of 3: 4 stages would need 284800 bytes of shared memory, more than sm_90 allows (232448)$"
check "gqa sm_90: wait_group 1" has "$tmp/gqa.sm_90.cu" "^    ax_cp_async_wait<1>();"
check "gqa sm_80: a ring of 2, said" has "$tmp/gqa.sm_80.cu" "^// axle: kernel k1 ring of 2: 3 stages would need 219264 bytes of shared memory, more than sm_80 allows (166912)$"
check "gqa sm_80: wait_group 0" has "$tmp/gqa.sm_80.cu" "^    ax_cp_async_wait<0>();"
check "rmsnorm_linear: 16-byte cp.async" has "$tmp/rmsnorm_linear.sm_90.cu" "ax_cp_async16(s0n + e \* 8, p0 + "
# 'w', which only the matmul reads, is stored swizzled (docs/gpu.md, "Swizzled tiles")
check "rmsnorm_linear: 'w' swizzled" has "$tmp/rmsnorm_linear.sm_90.cu" "ax_cp_async16(s1n + (e / 8 \* 8 + (e % 8 ^ (e / 8) % 8)) \* 8, p1 + .*;  // swizzled\$"
check "qknorm sm_90: a ring of 2" has "$tmp/qknorm.sm_90.cu" "^// axle: kernel k1 shared memory 189696 bytes"
check "qknorm sm_90: 3 would not fit, said" has "$tmp/qknorm.sm_90.cu" "^// axle: kernel k1 ring of 2: 3 stages would need 255232 bytes of shared memory, more than sm_90 allows (232448)$"
check "qknorm sm_80: single-buffered, said" has "$tmp/qknorm.sm_80.cu" "^// axle: kernel k1 loads single-buffered: a ring of 2 stages would need 189696 bytes of shared memory, more than sm_80 allows (166912)$"
check "qknorm sm_80: single-buffered size" has "$tmp/qknorm.sm_80.cu" "^// axle: kernel k1 shared memory 124160 bytes"
check "qknorm sm_80: no cp.async" bash -c "! grep -q '^ *ax_cp_async16(s' '$tmp/qknorm.sm_80.cu'"
"$AXLE" cuda tests/gpu/dbuf.mug --output "$tmp/dbuf.cu" --target sm_80
check "dbuf: widths by row" has "$tmp/dbuf.cu" "^// axle: kernel rows loads in a cp.async ring of 3 stages: 'a' 8 B 'b' 4 B 'c' plain (ragged rows) 'd' 4 B$"
check "dbuf: 3 iterations, 3 stages" has "$tmp/dbuf.cu" "^// axle: kernel rows ring of 3: no more stages than the loop's 3 iterations (4 needs at least 4)$"
check "dbuf: one iteration" has "$tmp/dbuf.cu" "^// axle: kernel one loads single-buffered: the loop has one iteration$"
check "dbuf: 8-byte copies" has "$tmp/dbuf.cu" "ax_cp_async8(s0n + e \* 4, p0 + "
# --single-buffer: the loop without the ring (to time both on a GPU)
"$AXLE" cuda "$ex/rmsnorm_linear.mug" --output "$tmp/sb.cu" --single-buffer
check "--single-buffer: exit 0" test $? -eq 0
check "--single-buffer: said" has "$tmp/sb.cu" "^// axle: kernel k1 loads single-buffered: asked for (--single-buffer)$"
check "--single-buffer: one buffer each" has "$tmp/sb.cu" "^// axle: kernel k1 shared memory 14464 bytes"
check "--single-buffer: no cp.async" bash -c "! grep -q '^ *ax_cp_async16(s' '$tmp/sb.cu'"
# shared memory beyond sm_80's 163 KB: refused there, accepted for sm_90
"$AXLE" cuda tests/gpu/smem_sm80.mug --output "$tmp/big.cu" --target sm_80 2>"$tmp/err"
check "sm_80 smem: exit 3" test $? -eq 3
check "sm_80 smem: located" has "$tmp/err" "smem_sm80.mug:6:3: error: kernel 'k1': needs 168192 bytes of shared memory per block"
check "sm_80 smem: no file left" test ! -e "$tmp/big.cu"
"$AXLE" cuda tests/gpu/smem_sm80.mug --output "$tmp/big.cu" --target sm_90
check "sm_90 smem: exit 0" test $? -eq 0
check "sm_90 smem: dynamic shared memory" has "$tmp/big.cu" "AX_SMEM_DYNAMIC(ax_smem)"
# --program: the benchmark manifest beside the .cu
"$AXLE" cuda "$ex/qknorm.mug" --output "$tmp/q.cu" --program "$ex/qknorm.axl"
check "manifest: exit 0" test $? -eq 0
check "manifest: written" jqt '.format == "axle-bench-1"' "$tmp/q.json"
check "manifest: entry" jqt '.entry == "axle_run_qknorm"' "$tmp/q.json"
check "manifest: input order" \
  jqt '[.inputs[].name] == ["Q", "K", "V"] and .inputs[0] == {"name": "Q", "t": 0, "dtype": "f16", "shape": [2, 256, 64]}' "$tmp/q.json"
check "manifest: program steps" \
  jqt 'any(.steps[]; . == {"t": 4, "op": "rms_norm", "in": [1], "dtype": "f16", "shape": [2, 64, 4096], "axis": 1})' "$tmp/q.json"
"$AXLE" cuda "$ex/qknorm.mug" --output "$tmp/m.cu" --program "$ex/lora.axl" 2>"$tmp/err"
check "unpaired program: exit 3" test $? -eq 3
check "unpaired program: located" has "$tmp/err" "qknorm.mug:4:9: error: input 'Q' of mugraph 'qknorm' is not a tensor of program 'lora'"
check "unpaired program: no files left" test ! -e "$tmp/m.cu" -a ! -e "$tmp/m.json" -a ! -e "$tmp/m.h"
# a program in place of the graph: its naive μGraph, one pre-defined kernel per operator
# (qknorm: 7 operators, the two matmuls cuBLAS calls instead of kernels: docs/gpu.md;
# the manifest pairs with the program itself)
"$AXLE" cuda "$ex/qknorm.axl" --output "$tmp/naive.cu" --program "$ex/qknorm.axl"
check "naive: exit 0" test $? -eq 0
check "naive: a kernel per operator but the matmuls" test "$(grep -c '^__global__ void __launch_bounds__(256) ax_op' "$tmp/naive.cu")" -eq 5
check "naive: the matmuls are cuBLAS calls" test "$(grep -c 'cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N' "$tmp/naive.cu")" -eq 2
check "naive: rms_norm of Q over rows of 64, a warp each" has "$tmp/naive.cu" "rms_norm(...) __half, pre-defined: 512 rows of 64, 32 lanes a row, 16-byte loads where aligned\$"
check "naive: rms_norm of K over its axis 1, a thread per column" has "$tmp/naive.cu" "rms_norm(...) __half, pre-defined: 8192 columns of 64 elements 4096 apart, a thread each\$"
check "naive: the header says how cuBLAS fails" has "$tmp/naive.h" "or 20000 + a cublasStatus_t"
check "naive: no graph-defined kernel" bash -c "! grep -q ' ax_k[0-9]*(' '$tmp/naive.cu'"
check "naive: entry named after the program" has "$tmp/naive.cu" "^extern \"C\" int axle_run_qknorm("
check "naive: manifest" jqt '.entry == "axle_run_qknorm" and (.steps | length) == 7' "$tmp/naive.json"
printf 'program p {\n  input X : f16[4, 8]\n  output Y = matmul(X, X)\n}\n' >"$tmp/badp.axl"
"$AXLE" cuda "$tmp/badp.axl" --output "$tmp/n.cu" 2>"$tmp/err"
check "bad program: exit 3" test $? -eq 3
check "bad program: located" has "$tmp/err" "badp.axl:3:"
check "bad program: no file" test ! -e "$tmp/n.cu"
# bad input
"$AXLE" cuda "$tmp/none.mug" --output "$tmp/n.cu" 2>"$tmp/err"
check "missing file: exit 3" test $? -eq 3
printf 'mugraph m {\n  input X : f16[4]\n  kernel k grid [3, 1, 1] {\n    x = input X imap {x: 0}\n    output Y = x omap {x: 0}\n  }\n  output Y\n}\n' >"$tmp/bad.mug"
"$AXLE" cuda "$tmp/bad.mug" --output "$tmp/n.cu" 2>"$tmp/err"
check "invalid graph: exit 3" test $? -eq 3
check "invalid graph: located" has "$tmp/err" "bad.mug:4:5: error: kernel 'k': input 'x': dim 0 of 'X' (size 4) is not divisible by grid.x (3)"
"$AXLE" cuda "$ex/lora.mug" 2>"$tmp/err"
check "no --output: exit 3" test $? -eq 3
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/n.cu" --target sm_75 2>"$tmp/err"
check "bad target: exit 3" test $? -eq 3
check "bad target: message" has "$tmp/err" "--target takes sm_90 or sm_80"
# files that cannot be written (cli/out.h): exit 3, one message naming the file and the
# reason, no partial file, an existing file left as it was
"$AXLE" cuda "$ex/lora.mug" --output /dev/full --header "$tmp/full.h" 2>"$tmp/err"
check "full disk: exit 3" test $? -eq 3
check "full disk: message" grep -qx "axle: error: cannot write /dev/full: No space left on device" "$tmp/err"
check "full disk: one message" test "$(wc -l <"$tmp/err")" -eq 1
check "full disk: the device is left alone" test -c /dev/full
check "full disk: no header renamed into place" test ! -e "$tmp/full.h"
check "full disk: no temporary left" bash -c "! ls -a '$tmp' | grep -q 'tmp-'"
echo "old source" >"$tmp/keep.cu"
echo "old header" >"$tmp/keep.h"
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/keep.cu" --program "$ex/lora.axl" --header /dev/full 2>"$tmp/err"
check "full disk, header: exit 3" test $? -eq 3
check "full disk, header: message" grep -qx "axle: error: cannot write /dev/full: No space left on device" "$tmp/err"
check "full disk, header: old .cu kept" grep -qx "old source" "$tmp/keep.cu"
check "full disk, header: no manifest" test ! -e "$tmp/keep.json"
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/nodir/x.cu" 2>"$tmp/err"
check "missing directory: exit 3" test $? -eq 3
check "missing directory: message" grep -qx "axle: error: cannot write $tmp/nodir/x.h: No such file or directory" "$tmp/err"
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/keep.cu" --header "$tmp/nodir/x.h" 2>"$tmp/err"
check "missing header directory: exit 3" test $? -eq 3
check "missing header directory: old .cu kept" grep -qx "old source" "$tmp/keep.cu"
"$AXLE" cuda "$ex/lora.mug" --output "$tmp/keep.cu" 2>"$tmp/err"
check "rewrite: exit 0" test $? -eq 0
check "rewrite: new .cu" has "$tmp/keep.cu" "^extern \"C\" int axle_run_lora"
check "rewrite: new header" has "$tmp/keep.h" "^int axle_run_lora"
echo "gpu cuda: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
