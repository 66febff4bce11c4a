/* check_cuda.c — CUDA generation (gpu/cuda.c) and the emulator's driver (gpu/emulate.c):
 * targets, identifiers, the shape of the generated kernels (barriers, fusion, tensor cores
 * and register accumulators, shared memory), refusals, header and manifest. The generated code's behaviour is
 * tested end to end by tests/e2e/gpu_emulate.sh and gpu_nvcc.sh. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/parse.h"
#include "gpu/cuda.h"
#include "gpu/emulate.h"
#include "superopt/ir/mugtext.h"
#include "superopt/ir/program.h"
#include "unit.h"

static AxMugraph *graph(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.mug", text, strlen(text));
  AxMugraph *g = ax_mugtext_parse(A, &D, src);
  ck_assert_msg(g && ax_mug_check(g, &D), "%s", unit_diagnostics());
  return g;
}

/* The generated source (NULL when refused). */
static char *emit(const AxMugraph *g, AxCudaTarget t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  bool ok = ax_cuda_emit(m, g, t, &D);
  fclose(m);
  char *s = ok ? ax_arena_strdup(A, buf) : NULL;
  free(buf);
  return s;
}

static int occurrences(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

START_TEST(targets) {
  AxCudaTarget t;
  ck_assert(ax_cuda_target_lookup("sm_90", &t) && t == AX_CUDA_SM90);
  ck_assert(ax_cuda_target_lookup("sm_80", &t) && t == AX_CUDA_SM80);
  ck_assert(!ax_cuda_target_lookup("sm_75", &t));
  ck_assert_str_eq(ax_cuda_target_name(AX_CUDA_SM80), "sm_80");
  ck_assert_int_eq(ax_cuda_smem_limit(AX_CUDA_SM90), 232448);
  ck_assert_int_eq(ax_cuda_smem_limit(AX_CUDA_SM80), 166912);
  char id[16];
  ax_cuda_ident("a-b.c", id, sizeof id);
  ck_assert_str_eq(id, "a_b_c");
  ax_cuda_ident("a_very_long_name_indeed", id, 8);
  ck_assert_str_eq(id, "a_very_");
}
END_TEST

static const char *MM =
    "mugraph mm {\n"
    "  input X : f16[16, 64]\n"
    "  input W : f16[64, 64]\n"
    "  kernel k grid [2, 1, 1] block [64, 1, 1] forloop 4 {\n"
    "    x = input X imap {} fmap 1\n"
    "    w = input W imap {x: 1} fmap 0\n"
    "    xw = matmul(x, w)\n"
    "    acc = accum sum(xw)\n"
    "    thread {\n"
    "      e = exp(acc)\n"
    "      o = mul(e, 2)\n"
    "    }\n"
    "    output O = o omap {x: 1}\n"
    "  }\n"
    "  output O\n"
    "}\n";

START_TEST(kernel_shape) {
  AxMugraph *g = graph(MM);
  char *s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "__global__ void __launch_bounds__(64, 1) ax_k2(const __half *__restrict__ p0, "
                                  "const __half *__restrict__ p1, __half *__restrict__ p2) {"));
  ck_assert_ptr_nonnull(strstr(s, "for (int it = 0; it < 4; ++it) {"));
  /* imap: the block's 32 columns of W; fmap: 16 rows per iteration — a ring of 4 (the
   * loop's 4 iterations): iterations 0, 1, 2 in the prologue, iteration it + 3 while it
   * computes, 16-byte cp.async */
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k loads in a cp.async ring of 4 stages: 'x' 16 B 'w' 16 B\n"
                                  "// axle: kernel k ring of 4: the most stages axle uses, and they fit\n"));
  /* only the matmul reads x and w: their 16-byte chunks are stored swizzled (w's rows are
   * 4 chunks: chunk c of row r at c ^ (r / 2 % 4); x's 2: c ^ (r / 4 % 2)) */
  ck_assert_ptr_nonnull(strstr(s, "ax_cp_async16(s1n + (e / 4 * 4 + (e % 4 ^ (e / 4) / 2 % 4)) * 8, p1 + ((long long)0 * 16 + i0) * 64LL + "
                                  "((long long)blockIdx.x * 32 + i1 * 8) * 1LL);  // swizzled"));
  ck_assert_ptr_nonnull(strstr(s, "ax_cp_async16(s1n + (e / 4 * 4 + (e % 4 ^ (e / 4) / 2 % 4)) * 8, p1 + ((long long)2 * 16 + i0) * 64LL + "
                                  "((long long)blockIdx.x * 32 + i1 * 8) * 1LL);  // swizzled"));
  ck_assert_ptr_null(strstr(s, "p1 + ((long long)3 * 16 + i0)"));   /* the prologue stops at S - 2 */
  /* every slot is swizzled alike: the refill goes through the same chunk map */
  ck_assert_ptr_nonnull(strstr(s, "if (it + 3 < 4) {"));
  ck_assert_ptr_nonnull(strstr(s, "ax_cp_async16(s1n + (e / 4 * 4 + (e % 4 ^ (e / 4) / 2 % 4)) * 8, p1 + ((long long)(it + 3) * 16 + i0) * 64LL + "
                                  "((long long)blockIdx.x * 32 + i1 * 8) * 1LL);  // swizzled"));
  ck_assert_ptr_nonnull(strstr(s, "ax_cp_async16(s0n + (e / 2 * 2 + (e % 2 ^ (e / 2) / 4 % 2)) * 8, "));
  /* slots: iteration it reads slot it % 4 and refills slot (it + 3) % 4, the one iteration
   * it - 1 read, after waiting for all but the 2 newest groups */
  ck_assert_ptr_nonnull(strstr(s, "__half *const s1 = (__half *)(ax_smem + 4096 + (it % 4) * 1024);  // 'w', slot it % 4"));
  ck_assert_ptr_nonnull(strstr(s, "__half *const s1n = (__half *)(ax_smem + 4096 + ((it + 3) % 4) * 1024);"));
  ck_assert_ptr_nonnull(strstr(s, "__half *const s0n = (__half *)(ax_smem + 3072);"));   /* x's slot 2 */
  ck_assert_int_eq(occurrences(s, "ax_cp_async_commit();"), 4);   /* 3 in the prologue, 1 per iteration */
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<2>();"), 1);
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<1>();") + occurrences(s, "ax_cp_async_wait<3>();"), 0);
  const char *w = strstr(s, "ax_cp_async_wait<2>();"), *r = strstr(s, "if (it + 3 < 4) {");
  ck_assert(w && r && w < r);   /* the wait comes before the refill */
  /* shared memory counts every slot: 2048 fixed (the f32 accumulator), loop 4 x 512 (x)
   * + 4 x 1024 (w); the matmul's product stays in registers (no tile, no scratch) */
  ck_assert_ptr_nonnull(strstr(s, "AX_SMEM_STATIC(ax_smem, 8192);"));
  ck_assert_ptr_null(strstr(s, "'xw' [16, 32]"));
  /* tensor cores: mma.sync fed by ldmatrix, no wmma, no scratch, no portable fallback; a
   * warp tile of 16 x 16 per warp (2 n8 chains) */
  ck_assert_ptr_nonnull(strstr(s, "{  // tensor cores: mma.sync m16n8k16 fed by ldmatrix, f32 in registers; 2 warp "
                                  "tiles of 16 x 16 (2 chains), added to an accumulator in registers\n"));
  ck_assert_ptr_nonnull(strstr(s, "const int sa = (lane & 15) / 4 % 2, ca = lane >> 4;"));
  ck_assert_ptr_nonnull(strstr(s, "const int sb = (lane & 15) / 2 % 4, cb = (tn >> 3) + (lane >> 4);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_ldmatrix_x4(a0, pa + (((q >> 3) + ca) ^ sa) * 8);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_ldmatrix_x4_trans(b0, pb + q * 32 + (cb ^ sb) * 8);"));
  ck_assert_int_eq(occurrences(s, "ax_mma_m16n8k16_f16(d"), 2);
  ck_assert_ptr_nonnull(strstr(s, "ax_mma_m16n8k16_f16(d1, a0, b0h, d1);"));
  ck_assert_ptr_null(strstr(s, "wmma"));
  ck_assert_ptr_null(strstr(s, "AX_TC_ON"));
  ck_assert_ptr_null(strstr(s, "fmaf("));
  /* the accumulator in registers: zero before the loop, each iteration's product rounded to
   * f16 (as the interpreter stores the matmul's result) and added, written out after the
   * loop rounded to its type (d[i] is D[g + 8 (i >> 1)][2q + (i & 1)]: row + 8 is 8 x 32) */
  ck_assert_ptr_nonnull(strstr(s, "float rf3_1[4] = {0.0f, 0.0f, 0.0f, 0.0f};"));
  ck_assert_ptr_nonnull(strstr(s, "rf3_1[2] += ax_f(ax_to<__half>(d1[2]));"));
  ck_assert_ptr_nonnull(strstr(s, "float *po = s3 + bt * 512 + (tm + lane / 4) * 32 + tn + 2 * (lane % 4);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_st2(po + 264, ax_f(ax_to<__half>(rf3_1[2])), ax_f(ax_to<__half>(rf3_1[3])));"));
  ck_assert_ptr_null(strstr(s, "po["));   /* every fragment pair one store */
  ck_assert_ptr_null(strstr(s, "s3[e] = 0.0f;"));
  /* the thread graph is one loop; its constant is a literal */
  ck_assert_ptr_nonnull(strstr(s, "// thread graph: 2 fused operators"));
  ck_assert_ptr_nonnull(strstr(s, "const float a1 = 2.0f;"));
  /* barriers: after the copies land, end of iteration, after the accumulator's fragments
   * are written (the thread graph reads them element-wise), and before the vector store */
  ck_assert_int_eq(occurrences(s, "__syncthreads();"), 4);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k barriers 4\n"));
  ck_assert_ptr_nonnull(strstr(s, "__syncthreads();  // 'O' reads 'o'"));
  ck_assert_ptr_nonnull(strstr(s, "__syncthreads();  // 'xw' reads 'x'"));
  ck_assert_ptr_nonnull(strstr(s, "__syncthreads();  // 'e' reads 'acc'"));
  ck_assert_ptr_nonnull(strstr(s, "AX_SMEM_STATIC(ax_smem, "));
  ck_assert_ptr_nonnull(strstr(s, "extern \"C\" int axle_run_mm(const void *const *inputs, void *const *outputs, cudaStream_t stream) {"));
  ck_assert_ptr_nonnull(strstr(s, "AX_LAUNCH(ax_k2, dim3(2, 1, 1), dim3(64, 1, 1), AX_SMEM_K2, stream, p0, p1, p2);"));
}
END_TEST

/* Block reductions (emit_rowred): a whole row over 3 warps (per lane, a warp butterfly, the
 * warps' partials through shared memory after a barrier, one more butterfly over 4 lanes,
 * the fourth adding 0), 64 rows of 64 over 2 lanes each (a fixed trip count of 32), a
 * column max, and 512 rows of 8 one thread each (no shuffle); element loops of a fixed trip
 * count or guarded, the strided loop only where the count is no multiple of NT; no thread
 * adds a row's partials alone. */
START_TEST(reductions) {
  AxMugraph *g = graph("mugraph red {\n"
                       "  input X : f32[4, 1000]\n"
                       "  input Y : f32[256, 64]\n"
                       "  input Z : f32[2048, 8]\n"
                       "  kernel k grid [4, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    x = input X imap {x: 0} fmap -\n"
                       "    y = input Y imap {x: 0} fmap -\n"
                       "    z = input Z imap {x: 0} fmap -\n"
                       "    a = sum(x, axis = 1)\n"
                       "    b = sum(y, axis = 1)\n"
                       "    c = reduce_max(y, axis = 0)\n"
                       "    d = mean(z, axis = 1)\n"
                       "    f = exp(y)\n"
                       "    output A = a omap {x: 0}\n"
                       "    output B = b omap {x: 0}\n"
                       "    output C = c omap {x: 0}\n"
                       "    output D = d omap {x: 0}\n"
                       "    output F = f omap {x: 0}\n"
                       "  }\n"
                       "  output A\n  output B\n  output C\n  output D\n  output F\n"
                       "}\n");
  char *s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "{  // 1 row of 1000: 96 lanes each, then shuffles, then across warps\n"));
  ck_assert_ptr_nonnull(strstr(s, "for (int j = p; j < 1000; j += 96) { const float v = ax_f(px[j]); acc += v; }\n"));
  ck_assert_ptr_nonnull(strstr(s, "if (tid % 32 == 0) part3[tid / 32] = acc;\n"));
  ck_assert_ptr_nonnull(strstr(s, "__syncthreads();  // the warps' partials of a row are combined by one warp\n"));
  ck_assert_ptr_nonnull(strstr(s, "float acc = r < 1 && q < 3 ? part3[r * 3 + q] : 0.0f;\n"));
  ck_assert_ptr_nonnull(strstr(s, "acc = ax_warp_sum<4>(acc);\n"));
  ck_assert_ptr_nonnull(strstr(s, "{  // 64 rows of 64: 2 lanes each, then shuffles\n"));
  ck_assert_ptr_nonnull(strstr(s, "for (int k = 0; k < 32; ++k) { const int j = p + k * 2; const float v = ax_f(px[j]); acc += v; }\n"));
  ck_assert_ptr_nonnull(strstr(s, "const float *px = s1 + (r / 64) * 4096 + r % 64;\n"));
  ck_assert_ptr_nonnull(strstr(s, "acc = ax_warp_max<2>(acc);\n"));
  ck_assert_int_eq(occurrences(s, "lanes each, then shuffles"), 3);   /* the mean of 512 rows: none */
  ck_assert_ptr_nonnull(strstr(s, "for (int j = 0; j < 8; ++j) { const float v = ax_f(px[j]); acc += v; }\n"));
  ck_assert_ptr_null(strstr(s, "for (int p = 0;"));
  /* loops: 4096 elements in 32 fixed rounds, 64 in one guarded block, 250 vectors strided */
  ck_assert_ptr_nonnull(strstr(s, "for (int rep = 0; rep < 32; ++rep) {\n    const int e = tid + rep * NT;\n"));
  ck_assert_ptr_nonnull(strstr(s, "if (tid < 64) {\n    const int e = tid;\n"));
  ck_assert_ptr_nonnull(strstr(s, "for (int e = tid; e < 250; e += NT) {\n"));
  /* the 16-byte tile copies of warp-uniform loops through the counted primitives */
  ck_assert_ptr_nonnull(strstr(s, "ax_smem_store16((uint4 *)s1 + e, "));
  ck_assert_ptr_nonnull(strstr(s, "= ax_smem_load16((const uint4 *)s7 + e);\n"));
  /* the prelude holds the warp-level primitives and ends with its marker */
  ck_assert_ptr_nonnull(strstr(s, "__device__ __forceinline__ float ax_warp_sum(float v) {"));
  ck_assert_ptr_nonnull(strstr(s, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  ck_assert_ptr_nonnull(strstr(s, "\n// axle: end of the prelude\n"));
}
END_TEST

/* Tensor cores without a register accumulator (and the swizzle of the tiles only they read): a batch of 2 bf16 products of 48 x 32 by 32
 * x 80 (30 warp tiles of 16 x 16 over 4 warps: a loop with a short last round) written from
 * the fragments straight into the output tile; a 64 x 64 product over 2 warps in warp tiles
 * of 32 x 64 (2 m16 rows, 4 n16 pairs: 16 chains) whose accumulator is read in two ways, so
 * it stays in shared memory; a 16 x 16 product with 4 warps (one warp tile, a guarded
 * block). */
START_TEST(tensor_cores) {
  AxMugraph *g = graph("mugraph m {\n  input A : bf16[2, 48, 32]\n  input B : bf16[2, 32, 80]\n"
                       "  kernel k grid [1, 1, 1] block [128, 1, 1] {\n"
                       "    a = input A imap {} fmap -\n    b = input B imap {} fmap -\n"
                       "    c = matmul(a, b)\n    output C = c omap {}\n  }\n  output C\n}\n");
  char *s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "30 warp tiles of 16 x 16 (2 chains)\n"));
  ck_assert_ptr_nonnull(strstr(s, "for (int w = warp; w < 30; w += 4) {"));
  ck_assert_ptr_nonnull(strstr(s, "const int tm = (w / 5) % 3 * 16, tn = w % 5 * 16;"));
  /* A's rows are 4 chunks (swizzled), B's 10 (no XOR swizzle spreads them: plain) */
  ck_assert_ptr_nonnull(strstr(s, "const __nv_bfloat16 *pa = s0 + bt * 1536 + (tm + (lane & 15)) * 32;  // rows swizzled (4 chunks)"));
  ck_assert_ptr_nonnull(strstr(s, "const __nv_bfloat16 *pb = s1 + bt * 2560 + (lane & 15) * 80 + tn + (lane >> 4) * 8;"));
  ck_assert_ptr_nonnull(strstr(s, "ax_mma_m16n8k16_bf16(d0, a0, b0l, d0);"));
  ck_assert_ptr_nonnull(strstr(s, "__nv_bfloat16 *po = s2 + bt * 3840 + (tm + lane / 4) * 80 + tn + 2 * (lane % 4);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_st2(po + 640, ax_to<__nv_bfloat16>(d0[2]), ax_to<__nv_bfloat16>(d0[3]));"));
  ck_assert_ptr_nonnull(strstr(s, "ax_st2(po + 648, ax_to<__nv_bfloat16>(d1[2]), ax_to<__nv_bfloat16>(d1[3]));"));
  ck_assert_ptr_null(strstr(s, "wmma"));
  ck_assert_ptr_null(strstr(s, "fmaf("));
  g = graph("mugraph m {\n  input A : f16[64, 128]\n  input B : f16[128, 64]\n"
            "  kernel k grid [1, 1, 1] block [64, 1, 1] forloop 2 {\n"
            "    a = input A imap {} fmap 1\n    b = input B imap {} fmap 0\n"
            "    c = matmul(a, b)\n    s = accum sum(c)\n    t = accum sum(c, axis = 1)\n"
            "    output S = s omap {}\n    output T = t omap {}\n  }\n  output S\n  output T\n}\n");
  s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "2 warp tiles of 32 x 64 (16 chains)\n"));
  ck_assert_ptr_nonnull(strstr(s, "const int sa = (lane & 15) % 8, ca = lane >> 4;"));
  ck_assert_ptr_nonnull(strstr(s, "ax_ldmatrix_x4(a1, pa + 1024 + (((q >> 3) + ca) ^ sa) * 8);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_ldmatrix_x4_trans(b1, pb + q * 64 + ((cb + 2) ^ sb) * 8);"));
  ck_assert_ptr_nonnull(strstr(s, "ax_mma_m16n8k16_f16(d15, a1, b3h, d15);"));
  ck_assert_ptr_null(strstr(s, "in registers:"));
  ck_assert_ptr_nonnull(strstr(s, "s3[e] += ax_f(s2[e]);"));
  g = graph("mugraph m {\n  input A : f16[16, 16]\n  input B : f16[16, 16]\n"
            "  kernel k grid [1, 1, 1] block [128, 1, 1] {\n"
            "    a = input A imap {} fmap -\n    b = input B imap {} fmap -\n"
            "    c = matmul(a, b)\n    output C = c omap {}\n  }\n  output C\n}\n");
  s = emit(g, AX_CUDA_SM80);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "if (warp < 1) {"));
  /* a tile another operator reads too is stored and read plainly; its partner swizzled */
  g = graph("mugraph m {\n  input A : f16[16, 64]\n  input B : f16[64, 16]\n"
            "  kernel k grid [1, 1, 1] block [64, 1, 1] {\n"
            "    a = input A imap {} fmap -\n    b = input B imap {} fmap -\n"
            "    c = matmul(a, b)\n    d = sum(a, axis = 1)\n"
            "    output C = c omap {}\n    output D = d omap {}\n  }\n  output C\n  output D\n}\n");
  s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "const __half *pa = s0 + bt * 1024 + (tm + (lane & 15)) * 64 + (lane >> 4) * 8;"));
  ck_assert_ptr_nonnull(strstr(s, "ax_smem_store16((uint4 *)s0 + e, "));
  ck_assert_ptr_nonnull(strstr(s, "const __half *pb = s1 + bt * 1024 + (lane & 15) * 16;  // rows swizzled (2 chunks)"));
  ck_assert_ptr_nonnull(strstr(s, "ax_smem_store16((uint4 *)s1 + (e / 2 * 2 + (e % 2 ^ (e / 2) / 4 % 2)), "));
}
END_TEST

START_TEST(no_tensor_cores_off_16) {
  AxMugraph *g = graph("mugraph m {\n  input A : f16[8, 24]\n  input B : f16[24, 8]\n"
                       "  kernel k grid [1, 1, 1] block [32, 1, 1] {\n"
                       "    a = input A imap {} fmap -\n    b = input B imap {} fmap -\n"
                       "    c = matmul(a, b)\n    output C = c omap {}\n  }\n  output C\n}\n");
  char *s = emit(g, AX_CUDA_SM80);
  ck_assert_ptr_nonnull(s);
  s = strstr(s, "// axle: end of the prelude");   /* the prelude defines them all */
  ck_assert_ptr_null(strstr(s, "ax_mma_m16n8k16"));
  ck_assert_ptr_null(strstr(s, "ax_ldmatrix"));
  ck_assert_ptr_nonnull(strstr(s, "for (int q = 0; q < 24; ++q)"));
}
END_TEST

START_TEST(smem_refused) {
  AxMugraph *g = graph("mugraph big {\n  input X : f16[82, 1024]\n"
                       "  kernel k1 grid [1, 1, 1] block [128, 1, 1] forloop 1 {\n"
                       "    x = input X imap {} fmap -\n    s = sum(x, axis = 1)\n"
                       "    output S = s omap {}\n  }\n  output S\n}\n");
  ck_assert_ptr_null(emit(g, AX_CUDA_SM80));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:3:3: error: kernel 'k1': needs 168192 bytes of shared "
                                              "memory per block (tiles, accumulators and scratch), more than sm_80 allows (166912)"));
  char *s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "AX_SMEM_DYNAMIC(ax_smem);"));
  ck_assert_ptr_nonnull(strstr(s, "#define AX_SMEM_K1 168192\n#define AX_SMEM_DYN_K1 1\n"));
}
END_TEST

static char *ring_of(int64_t cols, int forloop, AxCudaTarget t) {
  char src[512];
  snprintf(src, sizeof src,
           "mugraph r {\n  input X : f16[128, %lld]\n"
           "  kernel k grid [1, 1, 1] block [128, 1, 1] forloop %d {\n"
           "    x = input X imap {} fmap 1\n    a = accum sum(x, axis = 1)\n"
           "    output S = a omap {}\n  }\n  output S\n}\n",
           (long long)cols, forloop);
  return emit(graph(src), t);
}

/* The ring's stages (ax_ring_stages): 4 where the loop has 4 iterations and they fit, 3
 * where 4 would not fit (a 48 KiB tile: 197120 bytes on sm_80), or where the loop has 3
 * iterations, 2 for 2; the wait leaves S - 2 groups in flight, the refill is iteration
 * it + S - 1's. */
START_TEST(ring_stages) {
  char *s = ring_of(768, 4, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k shared memory 197120 bytes (dynamic, limit 232448)\n"
                                  "// axle: kernel k loads in a cp.async ring of 4 stages: 'x' 16 B\n"));
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<2>();"), 1);
  s = ring_of(768, 4, AX_CUDA_SM80);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k shared memory 147968 bytes (dynamic, limit 166912)\n"
                                  "// axle: kernel k loads in a cp.async ring of 3 stages: 'x' 16 B\n"
                                  "// axle: kernel k ring of 3: 4 stages would need 197120 bytes of shared memory, "
                                  "more than sm_80 allows (166912)\n"));
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<1>();"), 1);
  ck_assert_int_eq(occurrences(s, "ax_cp_async_commit();"), 3);
  ck_assert_ptr_nonnull(strstr(s, "if (it + 2 < 4) {"));
  ck_assert_ptr_nonnull(strstr(s, "(ax_smem + 512 + ((it + 2) % 3) * 49152);"));
  s = ring_of(96, 3, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k ring of 3: no more stages than the loop's 3 iterations "
                                  "(4 needs at least 4)\n"));
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<1>();"), 1);
  /* a megakernel's task keeps 2 stages (room for the worker's prefetch buffers), and its
   * plan says the same size as its body */
  AxMugraph *g = graph("mugraph r {\n  input X : f16[128, 96]\n"
                       "  kernel k grid [1, 1, 1] block [128, 1, 1] forloop 4 {\n"
                       "    x = input X imap {} fmap 1\n    a = accum sum(x, axis = 1)\n"
                       "    output S = a omap {}\n  }\n  output S\n}\n");
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AxCudaOpts o = {.task_body = true};
  ck_assert(ax_cuda_emit_opts(m, g, AX_CUDA_SM90, &o, &D));
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "// axle: kernel k ring of 2: the most a megakernel's task keeps "
                                    "(the worker's prefetch buffers need the room)\n"));
  ck_assert_int_eq(occurrences(buf, "ax_cp_async_wait<0>();"), 1);
  int ks = -1;
  for (int i = 0; i < g->nstmts; i++)
    if (g->stmts[i].kind == AX_KS_KERNEL) ks = i;
  AxCudaTaskPlan tp;
  ck_assert(ax_cuda_task_plan(g, ks, AX_CUDA_SM90, &tp, &D));
  char want[96];
  snprintf(want, sizeof want, "#define AX_SMEM_K%d %lld\n", ks, (long long)tp.smem);
  ck_assert_ptr_nonnull(strstr(buf, want));
  ck_assert_int_eq(tp.smem, 512 + 2 * 6144);   /* the f32 row sums, then 2 slots of 128 x 24 f16 */
  free(buf);
  s = ring_of(64, 2, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k ring of 2: no more stages than the loop's 2 iterations\n"));
  ck_assert_int_eq(occurrences(s, "ax_cp_async_wait<0>();"), 1);
  ck_assert_ptr_nonnull(strstr(s, "if (it + 1 < 2) {"));
}
END_TEST

/* The ring is dropped, and the file says why, where a ring of 2 slots would not
 * fit (262656 bytes on both targets; 131584 single-buffered fits sm_80) and where the loop
 * has one iteration; a ragged tile (6-byte rows) is loaded plainly. */
START_TEST(single_buffered) {
  AxMugraph *g = graph("mugraph big {\n  input X : f16[128, 1024]\n"
                       "  kernel k grid [1, 1, 1] block [128, 1, 1] forloop 2 {\n"
                       "    x = input X imap {} fmap 1\n    a = accum sum(x, axis = 1)\n"
                       "    output S = a omap {}\n  }\n  output S\n}\n");
  char *s = emit(g, AX_CUDA_SM80);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k shared memory 131584 bytes (dynamic, limit 166912)\n"
                                  "// axle: kernel k loads single-buffered: a ring of 2 stages would need 262656 "
                                  "bytes of shared memory, more than sm_80 allows (166912)\n"));
  ck_assert_ptr_null(strstr(s, "ax_cp_async16(s"));
  g = graph("mugraph one {\n  input X : f16[4, 64]\n"
            "  kernel k grid [1, 1, 1] block [32, 1, 1] forloop 1 {\n"
            "    x = input X imap {} fmap 1\n    a = accum sum(x, axis = 1)\n"
            "    output S = a omap {}\n  }\n  output S\n}\n");
  s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k loads single-buffered: the loop has one iteration\n"));
  ck_assert_ptr_null(strstr(s, "ax_cp_async16(s"));
  g = graph("mugraph ragged {\n  input X : f16[4, 12]\n"
            "  kernel k grid [1, 1, 1] block [32, 1, 1] forloop 4 {\n"
            "    x = input X imap {} fmap 1\n    a = accum sum(x, axis = 1)\n"
            "    output S = a omap {}\n  }\n  output S\n}\n");
  s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(strstr(s, "// axle: kernel k loads single-buffered: no iterating input has rows "
                                  "cp.async can copy (ragged rows)\n"));
}
END_TEST

START_TEST(header_and_manifest) {
  AxMugraph *g = graph(MM);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ax_cuda_emit_header(m, g);
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "int axle_run_mm(const void *const *inputs, void *const *outputs, void *stream);"));
  ck_assert_ptr_nonnull(strstr(buf, "inputs[1]  W        f16[64, 64]"));
  ck_assert_ptr_nonnull(strstr(buf, "outputs[0] O        f16[16, 64]"));
  free(buf);
  const char *prog = "program mm {\n  input X : f16[16, 64]\n  input W : f16[64, 64]\n"
                     "  output O = exp(matmul(X, W)) * 2\n}\n";
  AxSource *src = ax_source_from_text(A, "p.axl", prog, strlen(prog));
  AxFile *f = ax_parse(A, &D, src);
  AxMugraph *p = ax_prog_lower(A, &D, ax_prog_find(f, NULL, &D));
  ck_assert_msg(p && ax_mug_check(p, &D), "%s", unit_diagnostics());
  buf = NULL;
  m = open_memstream(&buf, &len);
  ck_assert(ax_cuda_emit_manifest(m, g, p, AX_CUDA_SM90, &D));
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "\"entry\": \"axle_run_mm\""));
  ck_assert_ptr_nonnull(strstr(buf, "{\"name\": \"W\", \"t\": 1, \"dtype\": \"f16\", \"shape\": [64, 64]}"));
  ck_assert_ptr_nonnull(strstr(buf, "\"op\": \"matmul\", \"in\": [0, 1]"));
  ck_assert_ptr_nonnull(strstr(buf, "\"op\": \"mul\", \"in\": [3, {\"const\": 2}]"));
  free(buf);
  /* an input of another shape does not pair */
  const char *other = "program mm {\n  input X : f16[16, 64]\n  input W : f16[64, 32]\n"
                      "  output O = matmul(X, W)\n}\n";
  src = ax_source_from_text(A, "q.axl", other, strlen(other));
  f = ax_parse(A, &D, src);
  p = ax_prog_lower(A, &D, ax_prog_find(f, NULL, &D));
  ck_assert_ptr_nonnull(p);
  ck_assert(ax_mug_check(p, &D));
  buf = NULL;
  m = open_memstream(&buf, &len);
  ck_assert(!ax_cuda_emit_manifest(m, g, p, AX_CUDA_SM90, &D));
  fclose(m);
  free(buf);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:3:9: error: input 'W': f16[64, 64] in the mugraph, f16[64, 32] in program 'mm'"));
}
END_TEST

/* Pre-defined operators (docs/gpu.md, "Pre-defined operators"): a matmul is a cuBLAS call
 * from the host entry, no kernel of its own — row-major as C^T = B^T A^T (n, m, k; B first
 * with leading dimension n, A with k), batch dims that broadcast across each other as a
 * host loop of batched calls (X's batch dim of size 1 shared: stride 0, Y's matrices one
 * after another); rms_norm over rows of 4096 is a row kernel of 256 lanes a row, one row a
 * block, its 8 warps' partials after a barrier; a sum over an axis with elements after it
 * one thread per column; past 65535 row groups a block runs more than one and needs a
 * second barrier; element-wise kernels move packs of 8 where aligned; the grids are the
 * plans'. */
START_TEST(predefined_kernels) {
  AxMugraph *g = graph("mugraph pd {\n"
                       "  input X : f32[2, 1, 5, 7]\n  input Y : f32[3, 7, 9]\n"
                       "  input R : f16[4, 4096]\n  input Q : f16[3, 64, 10]\n  input L : f16[300000, 1024]\n"
                       "  b = matmul(X, Y)\n  r = rms_norm(R)\n  c = sum(Q, axis = 1)\n  l = rms_norm(L)\n"
                       "  e = exp(R)\n  output b, r, c, l, e\n}\n");
  char *s = emit(g, AX_CUDA_SM90);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(occurrences(s, "\n__global__ void"), 4);   /* r, c, l, e: none for the matmul */
  ck_assert_ptr_nonnull(strstr(s, "#include <cublas_v2.h>"));
  ck_assert_ptr_nonnull(strstr(s, "for (long long ob = 0; ob < 2LL; ++ob) {"));
  ck_assert_ptr_nonnull(strstr(s, "cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 9, 5, 7, &alpha,\n"
                                  "          p1 + (0) * 63LL, CUDA_R_32F, 9, 63LL,"));
  ck_assert_ptr_nonnull(strstr(s, "p0 + (i0 * 1LL) * 35LL, CUDA_R_32F, 7, 0LL,  // A^T: 7 x 5, shared by the batch"));
  ck_assert_ptr_nonnull(strstr(s, "&beta, p5 + ob * 135LL, CUDA_R_32F, 9, 45LL, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);"));
  ck_assert_ptr_nonnull(strstr(s, "return ax_rc ? ax_rc : (int)err;"));
  ck_assert_ptr_nonnull(strstr(s, "extern \"C\" void axle_release_pd(void) {"));
  /* rms_norm of R: 4 rows, 8 warps each, one group a block, so no second barrier there */
  ck_assert_ptr_nonnull(strstr(s, "pre-defined: 4 rows of 4096, 256 lanes a row, 16-byte loads where aligned\n"));
  ck_assert_ptr_nonnull(strstr(s, "const int tid = threadIdx.x, p = tid % 256;"));
  ck_assert_ptr_nonnull(strstr(s, "const bool vec = (uintptr_t)p2 % 16 == 0 && (uintptr_t)p6 % 16 == 0;"));
  ck_assert_ptr_nonnull(strstr(s, "const ax_pack8<__half> v = *(const ax_pack8<__half> *)(px + 8 * c);"));
  ck_assert_ptr_nonnull(strstr(s, "__syncthreads();  // the row's 8 warps' partials"));
  ck_assert_ptr_nonnull(strstr(s, "AX_LAUNCH(ax_op6, dim3(4), dim3(256), 0, stream, p6, p2);"));
  /* the column sum: 30 columns of 64, 10 apart */
  ck_assert_ptr_nonnull(strstr(s, "pre-defined: 30 columns of 64 elements 10 apart, a thread each\n"));
  ck_assert_ptr_nonnull(strstr(s, "const long long o = e / 10, c = e % 10;"));
  ck_assert_ptr_nonnull(strstr(s, "AX_LAUNCH(ax_op7, dim3(1), dim3(256), 0, stream, p7, p3);"));
  /* 300000 rows of 1024: 2 warps a row, 4 rows a group, 75000 groups on 65535 blocks */
  ck_assert_ptr_nonnull(strstr(s, "for (long long g = blockIdx.x; g < 75000LL; g += gridDim.x) {"));
  ck_assert_int_eq(occurrences(s, "__syncthreads();  // read before the next group's partials are written"), 1);
  ck_assert_ptr_nonnull(strstr(s, "AX_LAUNCH(ax_op8, dim3(65535), dim3(256), 0, stream, p8, p4);"));
  /* exp(R): 16384 elements, 8 a thread: 8 blocks */
  ck_assert_ptr_nonnull(strstr(s, "for (long long c = gt; c < 2048LL; c += gs) {"));
  ck_assert_ptr_nonnull(strstr(s, "AX_LAUNCH(ax_op9, dim3(8), dim3(256), 0, stream, p9, p2);"));
  /* the header says how a cuBLAS failure is returned and declares the release */
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ax_cuda_emit_header(m, g);
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "or 20000 + a cublasStatus_t"));
  ck_assert_ptr_nonnull(strstr(buf, "void axle_release_pd(void);"));
  free(buf);
  /* a graph without a pre-defined matmul has no cuBLAS at all */
  s = emit(graph(MM), AX_CUDA_SM90);
  ck_assert_ptr_null(strstr(s, "cublas"));
  ck_assert_ptr_null(strstr(s, "ax_pack8"));
}
END_TEST

/* A pre-defined matmul beyond cuBLAS's int arguments is refused, located, nothing written. */
START_TEST(predefined_matmul_too_large) {
  AxMugraph *g = graph("mugraph big {\n  input X : f16[1, 3000000000]\n  input Y : f16[3000000000, 1]\n"
                       "  m = matmul(X, Y)\n  output m\n}\n");
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ck_assert(!ax_cuda_emit(m, g, AX_CUDA_SM90, &D));
  fclose(m);
  ck_assert_uint_eq(len, 0);
  free(buf);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:4:3: error: pre-defined matmul 'm': its k is 3000000000, "
                                                   "beyond cuBLAS's int arguments (at most 2147483647)"));
}
END_TEST

START_TEST(emulate_without_compiler) {
  AxMugraph *g = graph(MM);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  AxEmuOpts o = {.seed = 1, .cxx = "/nonexistent/c++", .out = m};
  ck_assert_int_eq(ax_emu_run(g, &D, &o), 2);
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "cannot run the C++ compiler '/nonexistent/c++'"));
  free(buf);
  ck_assert(ax_emu_default_tol(AX_DT_F16) == 1e-2);
  ck_assert(ax_emu_default_tol(AX_DT_BF16) == 4e-2);
  ck_assert(ax_emu_default_tol(AX_DT_F32) == 1e-4);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cuda");
  TCase *t = tcase_create("cuda");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, targets);
  tcase_add_test(t, kernel_shape);
  tcase_add_test(t, reductions);
  tcase_add_test(t, tensor_cores);
  tcase_add_test(t, no_tensor_cores_off_16);
  tcase_add_test(t, smem_refused);
  tcase_add_test(t, ring_stages);
  tcase_add_test(t, single_buffered);
  tcase_add_test(t, header_and_manifest);
  tcase_add_test(t, predefined_kernels);
  tcase_add_test(t, predefined_matmul_too_large);
  tcase_add_test(t, emulate_without_compiler);
  suite_add_tcase(s, t);
  return unit_run(s);
}
