// warp.cuh — axle's warp-level primitives, the part of the generated prelude that a warp
// runs together (docs/gpu.md, "Warp-level primitives"). axle carries this file inside its
// binary (gpu/embed.cmake) and writes it into every generated .cu right after the prelude's
// ax_max / ax_min. Compiled by nvcc (sm_80, sm_90) each primitive is the PTX instruction
// named; compiled with -DAXLE_EMU for the CPU, gpu/emu/axle_emu.h defines the same names as
// exact emulations (a warp-wide rendezvous of the emulator's fibers).
//
//   __shfl_sync, __shfl_xor_sync, __shfl_down_sync, __shfl_up_sync, __syncwarp: CUDA's own.
//   ax_warp_sum<W>(v), ax_warp_max<W>(v), ax_warp_min<W>(v): a butterfly over the aligned
//       segments of W lanes (W a power of two, at most 32) of a warp whose 32 lanes all call
//       it; every lane of a segment gets its segment's result. The order of the operations
//       is fixed, and a + b, ax_max and ax_min are commutative, so every lane of a segment
//       holds the same bits, on the GPU and in the emulator alike.
//   ax_ldmatrix_x{1,2,4}[_trans](r, row): ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans]
//       .shared.b16 — lane i gives the shared-memory address of row i % 8 of matrix i / 8
//       (lanes 0-7 for x1, 0-15 for x2, all for x4); register j of lane l holds row l / 4,
//       columns 2 (l % 4) and 2 (l % 4) + 1 of matrix j (the lower column in the low half),
//       with _trans rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4.
//   ax_mma_m16n8k16_f16 / _bf16(d, a, b, c): mma.sync.aligned.m16n8k16.row.col.f32.T.T.f32,
//       D = A B + C with A 16 x 16, B 16 x 8 and C, D 16 x 8 f32 in PTX's fragments (groupID
//       g = lane / 4, q = lane % 4): a register r holds A[g + 8 (r & 1)][2q + 8 (r >> 1)] and
//       the next column; b register r holds B[2q + 8r][g] and B[2q + 8r + 1][g]; d[i] is
//       D[g + 8 (i >> 1)][2q + (i & 1)].
//   ax_smem_load16(p), ax_smem_store16(p, v): one 16-byte shared-memory access per lane,
//       made by every lane of the warp alike (the emulator counts its bank wavefronts).
//   ax_st2(p, a, b): p[0] = a and p[1] = b as one store, 32-bit for f16 and bf16, 64-bit for
//       f32 — a fragment's two adjacent columns (2q, 2q + 1) at once; p is the pair's first,
//       even element of a tile whose rows hold an even number of elements, so it is aligned.
#ifndef AXLE_EMU
__device__ __forceinline__ unsigned ax_smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ax_ldmatrix_x1(unsigned (&r)[1], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(ax_smem_addr(row)) : "memory");
}
__device__ __forceinline__ void ax_ldmatrix_x2(unsigned (&r)[2], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(ax_smem_addr(row)) : "memory");
}
__device__ __forceinline__ void ax_ldmatrix_x4(unsigned (&r)[4], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(ax_smem_addr(row)) : "memory");
}
__device__ __forceinline__ void ax_ldmatrix_x1_trans(unsigned (&r)[1], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
               : "=r"(r[0]) : "r"(ax_smem_addr(row)) : "memory");
}
__device__ __forceinline__ void ax_ldmatrix_x2_trans(unsigned (&r)[2], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(ax_smem_addr(row)) : "memory");
}
__device__ __forceinline__ void ax_ldmatrix_x4_trans(unsigned (&r)[4], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(ax_smem_addr(row)) : "memory");
}

// mma.sync with f16 or bf16 operands needs sm_80; axle targets sm_80 and sm_90 only.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define AX_MMA_16816(T) __trap()
#else
#define AX_MMA_16816(T)                                                                         \
  asm("mma.sync.aligned.m16n8k16.row.col.f32." T "." T ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
      "{%8, %9}, {%10, %11, %12, %13};\n"                                                       \
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                          \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), \
        "f"(c[2]), "f"(c[3]))
#endif
__device__ __forceinline__ void ax_mma_m16n8k16_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                    const float (&c)[4]) {
  AX_MMA_16816("f16");
}
__device__ __forceinline__ void ax_mma_m16n8k16_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                     const float (&c)[4]) {
  AX_MMA_16816("bf16");
}

__device__ __forceinline__ uint4 ax_smem_load16(const void *p) { return *(const uint4 *)p; }
__device__ __forceinline__ void ax_smem_store16(void *p, uint4 v) { *(uint4 *)p = v; }
#endif

template <typename T>
__device__ __forceinline__ void ax_st2(T *p, T a, T b) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "pairs of 16- or 32-bit elements");
  if (sizeof(T) == 2) {
    unsigned short u0, u1;
    __builtin_memcpy(&u0, &a, 2);
    __builtin_memcpy(&u1, &b, 2);
    unsigned w = (unsigned)u0 | (unsigned)u1 << 16;
#ifdef AXLE_EMU
    __builtin_memcpy(p, &w, 4);
#else
    *(unsigned *)p = w;
#endif
  } else {
    unsigned u0, u1;
    __builtin_memcpy(&u0, &a, 4);
    __builtin_memcpy(&u1, &b, 4);
    unsigned long long w = (unsigned long long)u0 | (unsigned long long)u1 << 32;
#ifdef AXLE_EMU
    __builtin_memcpy(p, &w, 8);
#else
    *(unsigned long long *)p = w;
#endif
  }
}

template <int W>
__device__ __forceinline__ float ax_warp_sum(float v) {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a warp segment is a power of two of lanes");
  for (int o = W / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, W);
  return v;
}
template <int W>
__device__ __forceinline__ float ax_warp_max(float v) {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a warp segment is a power of two of lanes");
  for (int o = W / 2; o > 0; o /= 2) v = ax_max(v, __shfl_xor_sync(0xffffffffu, v, o, W));
  return v;
}
template <int W>
__device__ __forceinline__ float ax_warp_min(float v) {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a warp segment is a power of two of lanes");
  for (int o = W / 2; o > 0; o /= 2) v = ax_min(v, __shfl_xor_sync(0xffffffffu, v, o, W));
  return v;
}
