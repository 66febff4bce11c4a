// Snippets of the warp-level primitives (gpu/warp.cuh): tests/unit/check_warp.c compiles
// this file with the emulator (g++ -DAXLE_EMU, as axle emulate does) and checks what each
// kernel writes against the PTX ISA's definitions; tests/e2e/gpu_nvcc.sh compiles it with
// nvcc -ptx for sm_80 and sm_90 and looks for the instructions. "prelude.cuh" is the
// generated prelude (axle cuda's, up to "// axle: end of the prelude").
//
// Under AXLE_EMU, main(DIR, TEST) reads DIR/in.bin, runs TEST's kernel and writes
// DIR/out.bin (and the bank counts, DIR/banks.txt); the layouts are in check_warp.c.
#include "prelude.cuh"

__device__ __forceinline__ unsigned ax_bits(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

// 64 threads (two warps): per thread 15 words, one per shuffle pattern.
constexpr int SHFL_WORDS = 15;
__global__ void k_shfl(const float *in, unsigned *out) {
  const int tid = threadIdx.x, lane = tid % 32;
  const float v = in[tid];
  const unsigned full = 0xffffffffu;
  unsigned *o = out + tid * SHFL_WORDS;
  o[0] = ax_bits(__shfl_sync(full, v, (lane * 7 + 3) % 32));
  o[1] = ax_bits(__shfl_sync(full, v, 5, 8));
  o[2] = ax_bits(__shfl_sync(full, v, 29, 16));
  o[3] = ax_bits(__shfl_xor_sync(full, v, 1));
  o[4] = ax_bits(__shfl_xor_sync(full, v, 16));
  o[5] = ax_bits(__shfl_xor_sync(full, v, 3, 4));
  o[6] = ax_bits(__shfl_xor_sync(full, v, 8, 8));
  o[7] = ax_bits(__shfl_down_sync(full, v, 3));
  o[8] = ax_bits(__shfl_down_sync(full, v, 5, 16));
  o[9] = ax_bits(__shfl_up_sync(full, v, 2, 8));
  o[10] = ax_bits(__shfl_up_sync(full, v, 1));
  // the two half-warps diverge, each shuffling under a mask of its own
  if (lane < 16) o[11] = ax_bits(__shfl_xor_sync(0x0000ffffu, v, 4, 16));
  else o[11] = ax_bits(__shfl_down_sync(0xffff0000u, v, 2, 16));
  o[12] = (unsigned)__shfl_sync(full, tid * 3 - 50, 31 - lane);
  const unsigned long long w = (unsigned long long)tid << 40 | (unsigned long long)(tid * 12345 + 7);
  const unsigned long long r = __shfl_xor_sync(full, w, 2);
  o[13] = (unsigned)(r >> 32);
  o[14] = (unsigned)r;
}

// 64 threads: per thread 8 floats, the warp reductions.
constexpr int REDUCE_WORDS = 8;
__global__ void k_reduce(const float *in, float *out) {
  const int tid = threadIdx.x;
  const float v = in[tid];
  float *o = out + tid * REDUCE_WORDS;
  o[0] = ax_warp_sum<32>(v);
  o[1] = ax_warp_sum<16>(v);
  o[2] = ax_warp_sum<8>(v);
  o[3] = ax_warp_sum<4>(v);
  o[4] = ax_warp_sum<2>(v);
  o[5] = ax_warp_sum<1>(v);
  o[6] = ax_warp_max<8>(v);
  o[7] = ax_warp_min<32>(v);
}

// One warp: a 64 x 8 tile of 16-bit values (rows of 16 bytes) in shared memory; lane l
// points at row rows[l]; per lane the registers of x1, x2, x4, x1.trans, x2.trans, x4.trans.
constexpr int LDM_WORDS = 14;
__global__ void k_ldmatrix(const unsigned short *tile, const int *rows, unsigned *out) {
  AX_SMEM_STATIC(sm, 64 * 16);
  const int lane = threadIdx.x;
  unsigned short *s = (unsigned short *)sm;
  for (int i = lane; i < 64 * 8; i += 32) s[i] = tile[i];
  __syncthreads();
  const unsigned short *row = s + rows[lane] * 8;
  unsigned r1[1], r2[2], r4[4], t1[1], t2[2], t4[4];
  ax_ldmatrix_x1(r1, row);
  ax_ldmatrix_x2(r2, row);
  ax_ldmatrix_x4(r4, row);
  ax_ldmatrix_x1_trans(t1, row);
  ax_ldmatrix_x2_trans(t2, row);
  ax_ldmatrix_x4_trans(t4, row);
  unsigned *o = out + lane * LDM_WORDS;
  o[0] = r1[0];
  o[1] = r2[0], o[2] = r2[1];
  o[3] = r4[0], o[4] = r4[1], o[5] = r4[2], o[6] = r4[3];
  o[7] = t1[0];
  o[8] = t2[0], o[9] = t2[1];
  o[10] = t4[0], o[11] = t4[1], o[12] = t4[2], o[13] = t4[3];
}

// One warp: D = A B + C with A 16 x 16, B 16 x 8 (16-bit, row-major), C and D 16 x 8 f32
// (row-major); the fragments gathered and scattered by PTX's formulas for m16n8k16.
template <bool BF16>
__global__ void k_mma(const unsigned short *A, const unsigned short *B, const float *C, float *D) {
  const int lane = threadIdx.x, g = lane / 4, q = lane % 4;
  unsigned a[4], b[2];
  float c[4], d[4];
  for (int r = 0; r < 4; r++) {
    const int row = g + 8 * (r & 1), col = 2 * q + 8 * (r >> 1);
    a[r] = (unsigned)A[row * 16 + col] | (unsigned)A[row * 16 + col + 1] << 16;
  }
  for (int r = 0; r < 2; r++) {
    const int k = 2 * q + 8 * r;
    b[r] = (unsigned)B[k * 8 + g] | (unsigned)B[(k + 1) * 8 + g] << 16;
  }
  for (int i = 0; i < 4; i++) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  if (BF16) ax_mma_m16n8k16_bf16(d, a, b, c);
  else ax_mma_m16n8k16_f16(d, a, b, c);
  for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
}
template __global__ void k_mma<false>(const unsigned short *, const unsigned short *, const float *, float *);
template __global__ void k_mma<true>(const unsigned short *, const unsigned short *, const float *, float *);

// One warp: the same product with the operands fed by ldmatrix from row-major tiles in
// shared memory, as a tensor-core matmul does: A by x4 (lanes 0-15 rows 0-15 at column 0,
// lanes 16-31 at column 8), B by x2.trans (lane l, l < 16, row k = l).
__global__ void k_mma_ldmatrix(const unsigned short *A, const unsigned short *B, const float *C, float *D) {
  AX_SMEM_STATIC(sm, 16 * 16 * 2 + 16 * 8 * 2);
  const int lane = threadIdx.x, g = lane / 4, q = lane % 4;
  unsigned short *sa = (unsigned short *)sm, *sb = sa + 16 * 16;
  for (int i = lane; i < 256; i += 32) sa[i] = A[i];
  for (int i = lane; i < 128; i += 32) sb[i] = B[i];
  __syncthreads();
  unsigned a[4], b[2];
  float c[4], d[4];
  ax_ldmatrix_x4(a, sa + (lane % 16) * 16 + (lane / 16) * 8);
  ax_ldmatrix_x2_trans(b, sb + (lane % 16) * 8);
  for (int i = 0; i < 4; i++) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  ax_mma_m16n8k16_f16(d, a, b, c);
  for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
}

// The bank counter: one warp, one request each. ldmatrix.x4 of 32 rows of 128 bytes, lane
// l at row l: unswizzled (8 rows of a matrix in the same banks), padded to 144 bytes a row,
// and swizzled (16-byte chunk c of row r stored at chunk c ^ (r % 8)); 16-byte stores of
// consecutive lanes 16 bytes apart and 128 bytes apart.
__global__ void k_bank_plain() {
  AX_SMEM_STATIC(sm, 32 * 128);
  unsigned r[4];
  ax_ldmatrix_x4(r, sm + threadIdx.x * 128);
  (void)r;
}
__global__ void k_bank_padded() {
  AX_SMEM_STATIC(sm, 32 * 144);
  unsigned r[4];
  ax_ldmatrix_x4(r, sm + threadIdx.x * 144);
  (void)r;
}
__global__ void k_bank_swizzled() {
  AX_SMEM_STATIC(sm, 32 * 128);
  unsigned r[4];
  ax_ldmatrix_x4(r, sm + threadIdx.x * 128 + ((0 ^ (threadIdx.x % 8)) * 16));
  (void)r;
}
__global__ void k_bank_vec(int stride) {
  AX_SMEM_STATIC(sm, 32 * 128);
  ax_smem_store16(sm + threadIdx.x * stride, uint4{threadIdx.x, 0, 0, 0});
}

// A missing barrier between two warps, around shuffles: every thread writes its value, then
// (no __syncthreads) sums, by a warp shuffle, what the other warp wrote. Two blocks: the
// first runs its fibers forward, the second in reverse; out[block * 64 + tid].
__global__ void k_race(const float *in, float *out) {
  AX_SMEM_STATIC(sm, 64 * 4);
  float *s = (float *)sm;
  const int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 64 + tid];
  out[blockIdx.x * 64 + tid] = ax_warp_sum<32>(s[(tid + 32) % 64]);
}

// Misuse, each one to be reported (exit 8): half a warp at a shuffle of the full mask while
// the other half has returned (0), waits at __syncthreads() (1) or at another shuffle (2);
// lanes outside their own mask (3); lanes reading a lane outside the mask (4); a full mask
// in a warp of 16 lanes (5, a block of 48 threads).
__global__ void k_partial(int how) {
  const int lane = threadIdx.x % 32;
  float v = (float)lane;
  if (how == 3) {
    v = __shfl_xor_sync(0x0000ffffu, v, 1);
  } else if (how == 4) {
    if (lane >= 16) v = __shfl_sync(0xffff0000u, v, 3);
  } else if (how == 5) {
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  } else if (lane < 16) {
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  } else if (how == 1) {
    __syncthreads();
  } else if (how == 2) {
    v = __shfl_down_sync(0xffffffffu, v, 1);
  }
  (void)v;
}

#ifdef AXLE_EMU
#include <string>

static std::vector<unsigned char> slurp(const std::string &path) {
  std::vector<unsigned char> b;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return b;
  unsigned char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) b.insert(b.end(), buf, buf + n);
  std::fclose(f);
  return b;
}

int main(int argc, char **argv) {
  if (argc != 3) return 6;
  const std::string dir = argv[1], t = argv[2];
  std::vector<unsigned char> in = slurp(dir + "/in.bin");
  in.resize(in.size() + 4096);
  std::vector<unsigned char> out(65536, 0);
  const void *ip = in.data();
  void *op = out.data();
  size_t bytes = 0;
  if (t == "shfl") {
    AX_LAUNCH(k_shfl, dim3(1), dim3(64), 0, nullptr, (const float *)ip, (unsigned *)op);
    bytes = 64 * SHFL_WORDS * 4;
  } else if (t == "reduce") {
    AX_LAUNCH(k_reduce, dim3(1), dim3(64), 0, nullptr, (const float *)ip, (float *)op);
    bytes = 64 * REDUCE_WORDS * 4;
  } else if (t == "ldmatrix") {
    const unsigned short *tile = (const unsigned short *)ip;
    const int *rows = (const int *)(in.data() + 64 * 16);
    AX_LAUNCH(k_ldmatrix, dim3(1), dim3(32), 0, nullptr, tile, rows, (unsigned *)op);
    bytes = 32 * LDM_WORDS * 4;
  } else if (t == "mma_f16" || t == "mma_bf16" || t == "mma_ldmatrix") {
    const unsigned short *A = (const unsigned short *)ip, *B = A + 256;
    const float *C = (const float *)(in.data() + 256 * 2 + 128 * 2);
    if (t == "mma_f16") AX_LAUNCH(k_mma<false>, dim3(1), dim3(32), 0, nullptr, A, B, C, (float *)op);
    else if (t == "mma_bf16") AX_LAUNCH(k_mma<true>, dim3(1), dim3(32), 0, nullptr, A, B, C, (float *)op);
    else AX_LAUNCH(k_mma_ldmatrix, dim3(1), dim3(32), 0, nullptr, A, B, C, (float *)op);
    bytes = 128 * 4;
  } else if (t == "banks") {
    AX_LAUNCH(k_bank_plain, dim3(1), dim3(32), 0, nullptr);
    AX_LAUNCH(k_bank_padded, dim3(1), dim3(32), 0, nullptr);
    AX_LAUNCH(k_bank_swizzled, dim3(1), dim3(32), 0, nullptr);
    AX_LAUNCH(k_bank_vec, dim3(1), dim3(32), 0, nullptr, 16);
    AX_LAUNCH(k_bank_vec, dim3(1), dim3(32), 0, nullptr, 128);
  } else if (t == "race") {
    AX_LAUNCH(k_race, dim3(2), dim3(64), 0, nullptr, (const float *)ip, (float *)op);
    bytes = 128 * 4;
  } else if (t.rfind("partial", 0) == 0) {
    const int how = std::atoi(t.c_str() + 7);
    AX_LAUNCH(k_partial, dim3(1), dim3(how == 5 ? 48 : 32), 0, nullptr, how);
  } else {
    return 6;
  }
  FILE *f = std::fopen((dir + "/out.bin").c_str(), "wb");
  if (!f || std::fwrite(out.data(), 1, bytes, f) != bytes || std::fclose(f) != 0) return 6;
  return axemu::write_banks(dir.c_str()) ? 0 : 6;
}
#endif
