// axle_emu.h — the CPU emulator of axle's generated CUDA (docs/gpu.md, "Emulator").
//
// The generated .cu compiled with -DAXLE_EMU by the host C++ compiler includes this
// instead of the CUDA headers. It defines just what the generator uses:
//   * __global__ / __device__ / __forceinline__ / __launch_bounds__ / __align__ (no-ops);
//   * threadIdx, blockIdx, blockDim, gridDim (globals the scheduler sets before it resumes
//     a thread);
//   * shared memory: AX_SMEM_STATIC is a function-local `static` array — blocks run one
//     after another, so one array per kernel is exactly one block's shared memory;
//     AX_SMEM_DYNAMIC points at a buffer of the launch's size;
//   * __syncthreads(): each thread of a block is a cooperative fiber (ucontext); a barrier
//     switches back to the scheduler, which resumes the next fiber; a round ends when every
//     fiber waits at the barrier (or all have returned). Fibers run in order (in blocks
//     of odd linear index in reverse order) and each runs until its next barrier, so a
//     missing barrier makes a thread read what others have not written yet — the
//     emulation computes wrong values where the GPU might by chance not.
//     A block in which some threads return while others wait at a barrier is reported as
//     barrier divergence (exit 5);
//   * warps: the fibers form warps of 32 in linear thread order, and the warp-level
//     primitives (the __shfl*_sync, __syncwarp, and gpu/warp.cuh's ldmatrix, mma.sync and
//     16-byte shared accesses) are exact emulations: a collective is a rendezvous of the
//     lanes its mask names, computed when the last arrives; one that some named lane can
//     never reach (returned, at a barrier, at another collective) ends the run (exit 8,
//     warp_error);
//   * the bank counter: the wavefronts of each warp-wide shared-memory request seen whole
//     (ldmatrix, ax_smem_load16/store16), per kernel, written to banks.txt (write_banks);
//   * __half / __nv_bfloat16 with round-to-nearest-even conversions, uint4, fmaf/expf/sqrtf/
//     tanhf/fmaxf/fminf/copysignf (the host's) and rsqrtf (CUDA's alone: 1 / sqrtf here);
//   * cp.async (ax_cp_async16/8/4, ax_cp_async_commit, ax_cp_async_wait<N>): per thread,
//     copies in flight are recorded and their destination poisoned (nan) until the
//     wait_group that completes them (see cp_async below);
//   * AX_LAUNCH: runs the grid block by block; cudaMallocAsync / cudaFreeAsync /
//     cudaMemcpyAsync / cudaGetLastError / cudaFuncSetAttribute on host memory, one device;
//   * the cuBLAS calls of a pre-defined matmul (the handle's, cublasGemmStridedBatchedEx):
//     a stand-in of the same signature computing the same product in f32 (see there).
// With -DAXLE_EMU_MK it runs `axle mpk --output`'s persistent megakernel (docs/mpk.md): a
// launch runs its blocks at once, one worker thread each, under a seeded adversarial
// schedule (AX_MK_POINT). The emulator's state is then per worker thread (AX_EMU_TLS), and
// intermediate tensors start as nan (a task that reads a tile before its producer wrote it
// computes nan).
// Compiled with -fsanitize=thread (make test-tsan), it announces its fibers to
// ThreadSanitizer, so that the races reported are the worker threads' own.
// Block matmuls on tensor cores are the generator's mma.sync and ldmatrix calls, so the
// emulator runs the same path as the GPU (no wmma, nothing behind a macro).
#ifndef AXLE_EMU_H
#define AXLE_EMU_H

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __restrict__ __restrict

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 {
  unsigned x, y, z;
};
struct uint4 {
  unsigned x, y, z, w;
};

#ifdef AXLE_EMU_MK
#define AX_EMU_TLS thread_local
#else
#define AX_EMU_TLS
#endif

inline AX_EMU_TLS uint3 threadIdx, blockIdx;
inline AX_EMU_TLS dim3 blockDim, gridDim;

// ---- storage types ------------------------------------------------------------------
struct __half {
  uint16_t x;
};
struct __nv_bfloat16 {
  uint16_t x;
};

// CUDA's reciprocal square root; the host library has none. The device's is within 2 ulp
// of the exact value, as this is, so the emulation's tolerance covers both.
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

inline __half __float2half_rn(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  __half h;
  if (ax >= 0x7f800000u) {   // inf, nan
    h.x = (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  } else if (ax >= 0x477ff000u) {   // >= 65520 rounds to inf
    h.x = (uint16_t)(sign | 0x7c00u);
  } else if (ax < 0x38800000u) {   // below 2^-14: a multiple of 2^-24 (subnormal), rounded
    float a;
    std::memcpy(&a, &ax, 4);
    h.x = (uint16_t)(sign | (uint32_t)std::nearbyint(a * 16777216.0f));
  } else {   // normal: rebias the exponent, round 23 fraction bits to 10, ties to even
    uint32_t r = ax - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1u);
    h.x = (uint16_t)(sign | (r >> 13));
  }
  return h;
}

inline float __half2float(__half h) {
  uint32_t s = (uint32_t)(h.x & 0x8000u) << 16, e = (h.x >> 10) & 0x1fu, m = h.x & 0x3ffu;
  if (e == 0) {
    float v = std::ldexp((float)m, -24);
    return s ? -v : v;
  }
  uint32_t bits = e == 31 ? (s | 0x7f800000u | (m << 13)) : (s | ((e + 112u) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  __nv_bfloat16 b;
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    b.x = (uint16_t)((x >> 16) | 0x40u);
  } else {
    x += 0x7fffu + ((x >> 16) & 1u);
    b.x = (uint16_t)(x >> 16);
  }
  return b;
}

inline float __bfloat162float(__nv_bfloat16 b) {
  uint32_t x = (uint32_t)b.x << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// ---- runtime ----------------------------------------------------------------------------
typedef int cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidDevice = 101 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaMemcpyKind { cudaMemcpyDeviceToDevice = 3 };

inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) {
  *p = std::malloc(n ? n : 1);
#ifdef AXLE_EMU_MK
  if (*p) std::memset(*p, 0xff, n);   // nan in f16, bf16 and f32 until a task writes it
#endif
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
template <typename F>
inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) {
  return cudaSuccess;
}
// One device, number 0.
inline cudaError_t cudaGetDevice(int *dev) {
  *dev = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int dev) { return dev == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

// ---- cuBLAS: a stand-in for the calls the generated host entry makes ---------------------
// cublasCreate, cublasDestroy, cublasSetStream and cublasGemmStridedBatchedEx with cuBLAS's
// meaning (column-major): for each batch b < batchCount, C_b = alpha op(A_b) op(B_b) + beta
// C_b, X_b at X + b strideX elements, element (i, j) of a matrix at [i + j ld], op(X) X or
// (CUBLAS_OP_T) its transpose. A and B of one type, f16, bf16 or f32, C of theirs or f32
// (the pairs CUBLAS_COMPUTE_32F takes; others CUBLAS_STATUS_NOT_SUPPORTED); f32 compute:
// each of C's elements sums its k products by fmaf in k order from 0 (cuBLAS leaves the
// order unspecified, so a GPU may differ within f32 rounding), then alpha times that plus
// beta times C, rounded once to C's type; C is not read when beta is 0, as cuBLAS
// documents. cuBLAS's argument checks: a negative size or batch count, or a leading
// dimension below max(1, the rows it holds), is CUBLAS_STATUS_INVALID_VALUE; a handle not
// made by cublasCreate (or destroyed) CUBLAS_STATUS_NOT_INITIALIZED. alpha and beta are
// host floats (cuBLAS's default pointer mode). No timing, no workspace.
typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14 } cudaDataType;
typedef enum { CUBLAS_COMPUTE_32F = 68 } cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
struct axemu_cublas {
  unsigned magic;   // CUBLAS_MAGIC while the handle lives
  cudaStream_t stream;
};
typedef axemu_cublas *cublasHandle_t;

namespace axemu {
constexpr unsigned CUBLAS_MAGIC = 0xc0b1a5u;

inline bool blas_type_ok(cudaDataType t) { return t == CUDA_R_32F || t == CUDA_R_16F || t == CUDA_R_16BF; }

inline float blas_get(cudaDataType t, const void *p, long long i) {
  switch (t) {
  case CUDA_R_16F: return __half2float(static_cast<const __half *>(p)[i]);
  case CUDA_R_16BF: return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
  case CUDA_R_32F: break;
  }
  return static_cast<const float *>(p)[i];
}

inline void blas_put(cudaDataType t, void *p, long long i, float v) {
  switch (t) {
  case CUDA_R_16F: static_cast<__half *>(p)[i] = __float2half_rn(v); return;
  case CUDA_R_16BF: static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(v); return;
  case CUDA_R_32F: break;
  }
  static_cast<float *>(p)[i] = v;
}
}  // namespace axemu

inline cublasStatus_t cublasCreate(cublasHandle_t *h) {
  if (!h) return CUBLAS_STATUS_INVALID_VALUE;
  *h = new axemu_cublas{axemu::CUBLAS_MAGIC, nullptr};
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h) {
  if (!h || h->magic != axemu::CUBLAS_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->magic = 0;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (!h || h->magic != axemu::CUBLAS_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                                                 int m, int n, int k, const void *alpha, const void *A,
                                                 cudaDataType Atype, int lda, long long strideA, const void *B,
                                                 cudaDataType Btype, int ldb, long long strideB, const void *beta,
                                                 void *C, cudaDataType Ctype, int ldc, long long strideC,
                                                 int batchCount, cublasComputeType_t computeType,
                                                 cublasGemmAlgo_t algo) {
  (void)algo;
  if (!h || h->magic != axemu::CUBLAS_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
  const bool ta = transa == CUBLAS_OP_T, tb = transb == CUBLAS_OP_T;
  const int arows = ta ? k : m, brows = tb ? n : k;
  if (m < 0 || n < 0 || k < 0 || batchCount < 0 || (transa != CUBLAS_OP_N && !ta) || (transb != CUBLAS_OP_N && !tb) ||
      lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (computeType != CUBLAS_COMPUTE_32F || !axemu::blas_type_ok(Atype) || Btype != Atype ||
      (Ctype != Atype && Ctype != CUDA_R_32F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const float al = *static_cast<const float *>(alpha), be = *static_cast<const float *>(beta);
  std::vector<float> acc((size_t)m + 1);
  for (long long b = 0; b < batchCount; b++)
    for (long long j = 0; j < n; j++) {   // column j of C; its elements accumulate together, each in k order
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (long long p = 0; p < k; p++) {
        const float bv = axemu::blas_get(Btype, B, b * strideB + (tb ? j + p * ldb : p + j * ldb));
        for (long long i = 0; i < m; i++)
          acc[(size_t)i] = std::fmaf(axemu::blas_get(Atype, A, b * strideA + (ta ? p + i * lda : i + p * lda)), bv,
                                     acc[(size_t)i]);
      }
      for (long long i = 0; i < m; i++) {
        const long long at = b * strideC + i + j * ldc;
        float v = al * acc[(size_t)i];
        if (be != 0.0f) v += be * axemu::blas_get(Ctype, C, at);
        axemu::blas_put(Ctype, C, at, v);
      }
    }
  return CUBLAS_STATUS_SUCCESS;
}

// ThreadSanitizer (gcc defines __SANITIZE_THREAD__): each fiber is a fiber of its own to
// it, and every switch is announced just before it happens; a switch synchronizes (flags
// 0), as a block's threads meet at barriers.
#if defined(__SANITIZE_THREAD__)
#define AX_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AX_EMU_TSAN 1
#endif
#endif
#ifdef AX_EMU_TSAN
extern "C" {
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
}
#endif

namespace axemu {

enum State { RUN, BARRIER, WARP, DONE };

// An asynchronous copy (cp.async) issued by a thread and not yet waited for: the source's
// bytes as they were at issue, where they go, and the group it belongs to (the number of
// commits the thread had made when it issued the copy).
struct Copy {
  unsigned char *dst;
  unsigned char data[16];
  unsigned bytes;
  unsigned long group;
};

// ---- warp collectives ------------------------------------------------------------------
// A block's fibers form warps of 32 in linear thread order (tid = x + X (y + Y z)), lane =
// tid % 32. A collective (__shfl*_sync, __syncwarp, ldmatrix, mma.sync) is a rendezvous:
// each lane deposits its operands here and switches to the scheduler; when every lane its
// mask names has arrived at the same collective (same kind, qualifiers and mask, as PTX's
// .sync requires), the scheduler computes every lane's result at once and the lanes go on.
// A lane named by the mask that has returned, waits at __syncthreads() or at another
// collective can never arrive: the run ends with exit 8 and a message naming kernel,
// block, warp and lanes (warp_error).
enum CollKind { COLL_SYNCWARP, COLL_SHFL, COLL_LDMATRIX, COLL_MMA };
enum ShflMode { SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };   // PTX shfl.sync's .mode

struct Coll {
  int kind;
  unsigned mask;
  unsigned qual;       // what the lanes must agree on besides kind and mask (see each primitive)
  const char *what;    // the primitive's name, for messages
  uint32_t in[10];     // the lane's operands (shfl: the value; mma: a[4], b[2], c[4])
  int arg;             // shfl: the lane operand (source lane, delta or lane mask)
  const unsigned char *addr;   // ldmatrix: the row this lane points at
  uint32_t out[4];     // the lane's results
};

struct Fiber {
  ucontext_t ctx;
  State state;
  unsigned tx, ty, tz;
  std::vector<Copy> pending;
  unsigned long committed;
  Coll coll;               // the collective it waits at (state WARP)
  unsigned long vseq;      // its warp-wide vector accesses so far (ax_smem_load16/store16)
  void *tsan = nullptr;    // its ThreadSanitizer fiber (AX_EMU_TSAN)
};

// ---- the shared-memory bank counter ------------------------------------------------------
// For the warp-wide shared-memory requests the emulator sees whole — ldmatrix (each lane's
// row address) and the 16-byte vector accesses the generator routes through
// ax_smem_load16/ax_smem_store16 — the wavefronts the request costs: shared memory has 32
// banks of 4 bytes, and a wavefront serves at most one 4-byte word per bank (lanes reading
// the same word share it). A request is served in phases — an 8-row matrix of ldmatrix
// each, 8 lanes of 16-byte accesses each (128 bytes) — and a phase costs as many
// wavefronts as the most distinct words any bank holds in it. The ideal is one wavefront
// per 32 distinct words of a phase: 4 for ldmatrix.x4, 4 for a whole warp's 16-byte access.
// Unswizzled 128-byte rows put all 8 rows of a matrix in the same banks: 8 per matrix, 32
// for ldmatrix.x4. Counted per kernel (the name AX_LAUNCH passes), over all its blocks.
struct Banks {
  unsigned long long req[2], wf[2], ideal[2];   // [0] ldmatrix, [1] 16-byte vector accesses
  unsigned long long partial;   // vector accesses not every lane of the warp made
};
struct KernelBanks {
  char name[96];
  Banks b;
};
inline std::deque<KernelBanks> banks;   // per kernel, in the order of first launch
#ifdef AXLE_EMU_MK
inline std::mutex banks_mu;   // the megakernel's workers count into one table
#define AX_EMU_BANKS_LOCK std::lock_guard<std::mutex> banks_lock(banks_mu)
#else
#define AX_EMU_BANKS_LOCK
#endif

// The wavefronts of one phase: n accesses of `bytes` each at addr[0..n-1]; *ideal gets the
// fewest wavefronts its distinct words could take.
inline unsigned phase_wavefronts(const unsigned char *const *addr, int n, unsigned bytes, unsigned *ideal) {
  uintptr_t words[32 * 4];
  int nw = 0;
  for (int i = 0; i < n; i++)
    for (unsigned b = 0; b < bytes; b += 4) {
      uintptr_t w = ((uintptr_t)addr[i] + b) / 4;
      bool seen = false;
      for (int k = 0; k < nw && !seen; k++) seen = words[k] == w;
      if (!seen) words[nw++] = w;
    }
  unsigned per_bank[32] = {0}, worst = 0;
  for (int k = 0; k < nw; k++) {
    unsigned c = ++per_bank[words[k] % 32];
    if (c > worst) worst = c;
  }
  *ideal = (unsigned)((nw + 31) / 32);
  return worst;
}

inline AX_EMU_TLS ucontext_t sched;
inline AX_EMU_TLS void *sched_tsan = nullptr;   // the scheduler's, the worker thread's own
inline AX_EMU_TLS std::vector<Fiber> fibers;
inline AX_EMU_TLS std::vector<char *> stacks;
inline AX_EMU_TLS int cur = -1;
inline AX_EMU_TLS const std::function<void()> *body = nullptr;
inline AX_EMU_TLS std::vector<unsigned char> dyn_buf;   // dynamic shared memory of the running launch
inline AX_EMU_TLS unsigned char *dyn = nullptr;         // ... 128-byte aligned, as on the GPU
inline AX_EMU_TLS const char *kname = "?";             // the running launch's kernel
inline AX_EMU_TLS Banks *kbanks = nullptr;             // ... and its bank counts
constexpr size_t STACK = 256 * 1024;

// A warp-wide 16-byte vector access not yet matched: lane l's n-th access of the block is
// slot n of its warp; a slot every lane has filled is one request (vector_access).
struct VecSlot {
  const unsigned char *addr[32];
  unsigned have;
};
inline AX_EMU_TLS std::vector<std::deque<VecSlot>> vslots;   // per warp
inline AX_EMU_TLS std::vector<unsigned long> vbase;          // per warp: the first slot's number

inline size_t warp_lanes(size_t w) {
  size_t nt = fibers.size();
  return nt - 32 * w < 32 ? nt - 32 * w : 32;
}

inline unsigned full_mask(size_t w) {
  size_t n = warp_lanes(w);
  return n == 32 ? 0xffffffffu : (1u << n) - 1;
}

// "lane 3", "lanes 0-15, 17"
inline void lane_list(unsigned set, char *buf, size_t n) {
  size_t u = 0;
  int count = __builtin_popcount(set);
  u += (size_t)snprintf(buf, n, count == 1 ? "lane " : "lanes ");
  bool first = true;
  for (int l = 0; l < 32 && u < n; l++) {
    if (!(set >> l & 1u)) continue;
    int h = l;
    while (h + 1 < 32 && (set >> (h + 1) & 1u)) h++;
    if (h == l) u += (size_t)snprintf(buf + u, n - u, "%s%d", first ? "" : ", ", l);
    else u += (size_t)snprintf(buf + u, n - u, "%s%d-%d", first ? "" : ", ", l, h);
    first = false;
    l = h;
  }
}

// A warp-level primitive used in a way the GPU does not define: the run ends (exit 8).
[[noreturn]] inline void warp_error(size_t w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
inline void warp_error(size_t w, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "axle emulate: warp divergence in block (%u, %u, %u) of kernel %s, warp %zu: %s\n",
               blockIdx.x, blockIdx.y, blockIdx.z, kname, w, msg);
  std::exit(8);
}

inline void add_banks(int cls, unsigned wf, unsigned ideal) {
  AX_EMU_BANKS_LOCK;
  kbanks->req[cls]++;
  kbanks->wf[cls] += wf;
  kbanks->ideal[cls] += ideal;
}

// The lane that runs, about to take part in a collective.
inline Fiber &lane_self(const char *what) {
  if (cur < 0) {
    std::fprintf(stderr, "axle emulate: %s called outside a kernel\n", what);
    std::exit(8);
  }
  return fibers[(size_t)cur];
}

// Deposits nothing more: waits until the collective lane_self's coll describes has run.
inline void coll_wait() {
  Fiber &f = fibers[(size_t)cur];
  f.state = WARP;
#ifdef AX_EMU_TSAN
  __tsan_switch_to_fiber(sched_tsan, 0);
#endif
  swapcontext(&f.ctx, &sched);
}

// shfl.sync for lane l of the collective (PTX ISA, shfl.sync): c packs the segment mask
// (bits 8-12, 32 - width) and the clamp (bits 0-4: 31, or 0 for .up), as CUDA's
// __shfl*_sync build it; the source lane j, or l itself when j is out of the segment.
inline int shfl_source(int mode, int l, int b, int width) {
  unsigned c = ((unsigned)(32 - width) << 8) | (mode == SHFL_UP ? 0u : 0x1fu);
  int segmask = (int)(c >> 8 & 0x1f), cval = (int)(c & 0x1f), bval = b & 0x1f;
  int max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask, j = l;
  bool in = false;
  switch (mode) {
  case SHFL_UP: j = l - bval; in = j >= max_lane; break;
  case SHFL_DOWN: j = l + bval; in = j <= max_lane; break;
  case SHFL_BFLY: j = l ^ bval; in = j <= max_lane; break;
  case SHFL_IDX: j = min_lane | (bval & ~segmask); in = j <= max_lane; break;
  }
  return in ? j : l;
}

// The 16-bit element (row, col) of the 8x8 matrix whose rows the lanes row0..row0+7 point at.
inline uint16_t mat_elem(const Fiber *w, int row0, int row, int col) {
  uint16_t v;
  std::memcpy(&v, w[row0 + row].coll.addr + 2 * col, 2);
  return v;
}

inline float f16_or_bf16(uint16_t v, bool bf16) {
  if (bf16) {
    __nv_bfloat16 b;
    b.x = v;
    return __bfloat162float(b);
  }
  __half h;
  h.x = v;
  return __half2float(h);
}

// Runs the collective of the lanes in m (warp w, all arrived, all agreeing) and lets them go on.
inline void coll_run(size_t w, unsigned m) {
  Fiber *lane = &fibers[32 * w];
  int l0 = __builtin_ctz(m);
  const Coll &c0 = lane[l0].coll;
  switch (c0.kind) {
  case COLL_SYNCWARP: break;
  case COLL_SHFL: {
    int mode = (int)(c0.qual & 0xf), width = (int)(c0.qual >> 4 & 0xff), words = (int)(c0.qual >> 12);
    for (int l = 0; l < 32; l++) {
      if (!(m >> l & 1u)) continue;
      int j = shfl_source(mode, l, lane[l].coll.arg, width);
      if (!(m >> j & 1u)) warp_error(w, "%s (mask 0x%08x): lane %d reads lane %d, which is not in the mask", c0.what, m, l, j);
      std::memcpy(lane[l].coll.out, lane[j].coll.in, 4 * (size_t)words);
    }
    break;
  }
  case COLL_LDMATRIX: {
    // PTX ldmatrix .m8n8 .b16: matrix i's rows come from lanes 8i..8i+7; lane l's register
    // i holds row l/4, columns 2(l%4) and 2(l%4)+1 (the lower column in the low half);
    // with .trans, rows 2(l%4) and 2(l%4)+1 of column l/4.
    int num = (int)(c0.qual & 0xf);
    bool trans = c0.qual >> 4 & 1;
    unsigned wf = 0, ideal = 0;
    for (int i = 0; i < num; i++) {   // one phase per matrix
      for (int r = 0; r < 8; r++)
        if ((uintptr_t)lane[8 * i + r].coll.addr % 16)
          warp_error(w, "%s: lane %d's row address is not 16-byte aligned", c0.what, 8 * i + r);
      const unsigned char *rows[8];
      for (int r = 0; r < 8; r++) rows[r] = lane[8 * i + r].coll.addr;
      unsigned id;
      wf += phase_wavefronts(rows, 8, 16, &id);
      ideal += id;
    }
    add_banks(0, wf, ideal);
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < num; i++) {
        uint16_t lo = trans ? mat_elem(lane, 8 * i, 2 * (l % 4), l / 4) : mat_elem(lane, 8 * i, l / 4, 2 * (l % 4));
        uint16_t hi = trans ? mat_elem(lane, 8 * i, 2 * (l % 4) + 1, l / 4) : mat_elem(lane, 8 * i, l / 4, 2 * (l % 4) + 1);
        lane[l].coll.out[i] = (uint32_t)lo | (uint32_t)hi << 16;
      }
    break;
  }
  case COLL_MMA: {
    // PTX mma.m16n8k16 .row.col .f32.{f16,bf16}.{f16,bf16}.f32 fragments, groupID g = l/4,
    // threadID_in_group q = l%4: A (16x16) a_i, i = 2r+h of register r, half h: row g + 8
    // (r & 1), column 2q + h + 8 (r >> 1); B (16x8) b_i of register r: row (k) 2q + h + 8r,
    // column g; C and D (16x8) c_i: row g + 8 (i >> 1), column 2q + (i & 1).
    bool bf = c0.qual & 1;
    float A[16][16], B[16][8], C[16][8];
    for (int l = 0; l < 32; l++) {
      int g = l / 4, q = l % 4;
      const uint32_t *in = lane[l].coll.in;
      for (int r = 0; r < 4; r++)
        for (int h = 0; h < 2; h++)
          A[g + 8 * (r & 1)][2 * q + h + 8 * (r >> 1)] = f16_or_bf16((uint16_t)(in[r] >> (16 * h)), bf);
      for (int r = 0; r < 2; r++)
        for (int h = 0; h < 2; h++) B[2 * q + h + 8 * r][g] = f16_or_bf16((uint16_t)(in[4 + r] >> (16 * h)), bf);
      for (int i = 0; i < 4; i++) std::memcpy(&C[g + 8 * (i >> 1)][2 * q + (i & 1)], &in[6 + i], 4);
    }
    // D = A B + C. PTX leaves the order and the intermediate precision of the sum
    // unspecified; here every product (exact: 11 x 11 or 8 x 8 significant bits) is added in
    // k order in double to C and the sum is rounded to f32 once, so a result is exact
    // wherever the products' sum is representable (the unit tests' exact inputs).
    for (int l = 0; l < 32; l++) {
      int g = l / 4, q = l % 4;
      for (int i = 0; i < 4; i++) {
        int row = g + 8 * (i >> 1), col = 2 * q + (i & 1);
        double s = C[row][col];
        for (int k = 0; k < 16; k++) s += (double)A[row][k] * (double)B[k][col];
        float d = (float)s;
        std::memcpy(&lane[l].coll.out[i], &d, 4);
      }
    }
    break;
  }
  }
  for (int l = 0; l < 32; l++)
    if (m >> l & 1u) lane[l].state = RUN;
}

// Called whenever a lane of warp w stops (at a collective, a barrier or its end): runs each
// collective of w whose lanes have all arrived; reports one that some lane of its mask can
// never reach; leaves the others waiting for lanes still running.
inline void warp_check(size_t w) {
  Fiber *lane = &fibers[32 * w];
  unsigned have = full_mask(w), seen = 0;
  for (int l = 0; l < 32; l++) {
    if (!(have >> l & 1u) || (seen >> l & 1u) || lane[l].state != WARP) continue;
    const Coll &c = lane[l].coll;
    unsigned m = c.mask, arrived = 0, running = 0, returned = 0, barrier = 0, other = 0;
    if (m & ~have) {
      char who[160];
      lane_list(m & ~have, who, sizeof who);
      warp_error(w, "%s (mask 0x%08x) names %s, which this block does not have (%zu threads)", c.what, m, who,
                 fibers.size());
    }
    for (int u = 0; u < 32; u++) {
      if (!(m >> u & 1u)) continue;
      const Fiber &f = lane[u];
      if (f.state == RUN) running |= 1u << u;
      else if (f.state == DONE) returned |= 1u << u;
      else if (f.state == BARRIER) barrier |= 1u << u;
      else if (f.coll.kind == c.kind && f.coll.qual == c.qual && f.coll.mask == m) arrived |= 1u << u;
      else other |= 1u << u;
    }
    seen |= arrived;
    if (returned | barrier | other) {
      char got[160], why[320];
      lane_list(arrived, got, sizeof got);
      int u = __builtin_ctz(returned | barrier | other);
      char them[160];
      if (returned) {
        lane_list(returned, them, sizeof them);
        snprintf(why, sizeof why, "%s %s returned", them, __builtin_popcount(returned) == 1 ? "has" : "have");
      } else if (barrier) {
        lane_list(barrier, them, sizeof them);
        snprintf(why, sizeof why, "%s %s at __syncthreads()", them, __builtin_popcount(barrier) == 1 ? "waits" : "wait");
      } else {
        snprintf(why, sizeof why, "lane %d waits at %s (mask 0x%08x)", u, lane[u].coll.what, lane[u].coll.mask);
      }
      warp_error(w, "%s (mask 0x%08x) reached by %s, while %s", c.what, m, got, why);
    }
    if (!running) coll_run(w, m);
  }
}

// A fiber that returns leaves its state RUN, and the scheduler, resumed through uc_link,
// marks it DONE: the fiber touches nothing of the scheduler's after its body.
inline void entry() {
  (*body)();
#ifdef AX_EMU_TSAN
  // back to the scheduler without returning: a return would leave this function on the
  // scheduler's ThreadSanitizer shadow stack, not on this fiber's
  __tsan_switch_to_fiber(sched_tsan, 0);
  setcontext(&sched);
#endif
}

inline void sync() {
  if (cur < 0) return;   // called outside a launch: nothing to wait for
  fibers[(size_t)cur].state = BARRIER;
#ifdef AX_EMU_TSAN
  __tsan_switch_to_fiber(sched_tsan, 0);
#endif
  swapcontext(&fibers[(size_t)cur].ctx, &sched);
}

// Prepares a launch of fn (kernel `name`): its fibers, their stacks, its dynamic shared
// memory, its line in the bank counts.
inline void setup(const char *name, dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  size_t nt = (size_t)block.x * block.y * block.z;
  fibers.assign(nt, Fiber());
  while (stacks.size() < nt) stacks.push_back(static_cast<char *>(std::malloc(STACK)));
  dyn_buf.assign((smem ? smem : 16) + 128, 0);
  dyn = dyn_buf.data() + (128 - (uintptr_t)dyn_buf.data() % 128) % 128;
  body = &fn;
  gridDim = grid;
  blockDim = block;
  kname = name;
  AX_EMU_BANKS_LOCK;
  kbanks = nullptr;
  for (KernelBanks &k : banks)
    if (std::strcmp(k.name, name) == 0) kbanks = &k.b;
  if (!kbanks) {
    banks.emplace_back();
    std::snprintf(banks.back().name, sizeof banks.back().name, "%s", name);
    std::memset(&banks.back().b, 0, sizeof(Banks));
    kbanks = &banks.back().b;
  }
}

// Runs block (bx, by, bz) of the launch set up, its threads as fibers. The scheduler
// resumes, in order (odd blocks in reverse), every fiber that can run, each until it
// stops: at a barrier, at a warp collective (which runs once its last lane arrives, and
// its lanes can run again) or at its end. When no fiber can run, a barrier that every
// thread reached releases them all; threads that returned while others wait at a barrier
// are barrier divergence (exit 5); a collective that can never complete was reported
// when its last hope stopped (warp_check, exit 8).
inline void run_block(unsigned bx, unsigned by, unsigned bz) {
  dim3 grid = gridDim, block = blockDim;
  size_t nt = (size_t)block.x * block.y * block.z, nw = (nt + 31) / 32;
  blockIdx = {bx, by, bz};
  for (size_t t = 0; t < nt; t++) {
    Fiber &f = fibers[t];
    f.state = RUN;
    f.tx = (unsigned)(t % block.x);
    f.ty = (unsigned)(t / block.x % block.y);
    f.tz = (unsigned)(t / ((size_t)block.x * block.y));
    f.pending.clear();   // copies a thread never waited for die with its block
    f.committed = 0;
    f.vseq = 0;
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stacks[t];
    f.ctx.uc_stack.ss_size = STACK;
    f.ctx.uc_link = &sched;
    makecontext(&f.ctx, entry, 0);
#ifdef AX_EMU_TSAN
    f.tsan = __tsan_create_fiber(0);
#endif
  }
  vslots.assign(nw, std::deque<VecSlot>());
  vbase.assign(nw, 0);
#ifdef AX_EMU_TSAN
  sched_tsan = __tsan_get_current_fiber();
#endif
  // Odd blocks resume their fibers in reverse order: a read of what another thread
  // wrote without a barrier between is caught when the reader runs first, so one
  // order catches readers below the writer, the other readers above it.
  bool rev = ((bz * grid.y + by) * grid.x + bx) & 1u;
  for (;;) {
    bool ran = false;
    for (size_t q = 0; q < nt; q++) {
      size_t t = rev ? nt - 1 - q : q;
      Fiber &f = fibers[t];
      if (f.state != RUN) continue;
      ran = true;
      threadIdx = {f.tx, f.ty, f.tz};
      cur = (int)t;
#ifdef AX_EMU_TSAN
      __tsan_switch_to_fiber(f.tsan, 0);
#endif
      swapcontext(&sched, &f.ctx);
      cur = -1;
      if (f.state == RUN) f.state = DONE;   // it returned
      warp_check(t / 32);
    }
    if (ran) continue;
    size_t waiting = 0, done = 0;
    for (const Fiber &f : fibers) waiting += f.state == BARRIER, done += f.state == DONE;
    if (done == nt) break;
    if (waiting == nt) {
      for (Fiber &f : fibers) f.state = RUN;
      continue;
    }
    std::fprintf(stderr,
                 "axle emulate: barrier divergence in block (%u, %u, %u) of kernel %s: %zu threads wait at "
                 "__syncthreads() while %zu have returned\n",
                 bx, by, bz, kname, waiting, done);
    std::exit(5);
  }
  // vector accesses not every lane of a warp made: not one request, counted apart
  unsigned long long partial = 0;
  for (const auto &d : vslots) partial += d.size();
  if (partial) {
    AX_EMU_BANKS_LOCK;
    kbanks->partial += partial;
  }
}

// Runs one launch: every block of the grid in order.
inline void launch(const char *name, dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  setup(name, grid, block, smem, fn);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) run_block(bx, by, bz);
  body = nullptr;
}

// cp.async: the destination is poisoned (every byte 0xff: nan in f16, bf16 and f32) from
// the issue until the wait_group that completes the copy, so that a thread reading it
// before its own wait — or another thread's copy before the barrier after that thread's
// wait — computes nan, which the comparison with the interpreter reports. A barrier does
// not complete copies (on the GPU it does not either).
inline void cp_async(void *dst, const void *src, unsigned bytes) {
  if (cur < 0) {   // outside a launch: nothing runs concurrently
    std::memcpy(dst, src, bytes);
    return;
  }
  Fiber &f = fibers[(size_t)cur];
  Copy c;
  c.dst = static_cast<unsigned char *>(dst);
  std::memcpy(c.data, src, bytes);
  c.bytes = bytes;
  c.group = f.committed;
  std::memset(dst, 0xff, bytes);
  f.pending.push_back(c);
}

inline void cp_commit() {
  if (cur >= 0) fibers[(size_t)cur].committed++;
}

// wait_group n: every copy of a committed group older than the n newest lands; copies not
// yet committed stay in flight.
inline void cp_wait(unsigned long n) {
  if (cur < 0) return;
  Fiber &f = fibers[(size_t)cur];
  std::vector<Copy> keep;
  for (const Copy &c : f.pending) {
    if (c.group + n < f.committed) std::memcpy(c.dst, c.data, c.bytes);
    else keep.push_back(c);
  }
  f.pending.swap(keep);
}

// ---- the warp-level primitives (their CUDA side: gpu/warp.cuh) ---------------------------

// shfl.sync of a 4- or 8-byte value: PTX's modes, CUDA's width (a power of two to 32).
template <typename T>
inline T shfl(int mode, const char *what, unsigned mask, T v, int b, int width) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a shuffle moves 4 or 8 bytes");
  Fiber &f = lane_self(what);
  size_t w = (size_t)cur / 32;
  int l = cur % 32;
  if (!(mask >> l & 1u)) warp_error(w, "%s (mask 0x%08x) called by lane %d, which is not in its mask", what, mask, l);
  if (width < 1 || width > 32 || (width & (width - 1)))
    warp_error(w, "%s: width %d is not a power of two from 1 to 32", what, width);
  Coll &c = f.coll;
  c.kind = COLL_SHFL;
  c.mask = mask;
  c.qual = (unsigned)mode | (unsigned)width << 4 | (unsigned)(sizeof(T) / 4) << 12;
  c.what = what;
  std::memcpy(c.in, &v, sizeof v);
  c.arg = b;
  coll_wait();
  T r;
  std::memcpy(&r, f.coll.out, sizeof r);
  return r;
}

inline void syncwarp(unsigned mask) {
  Fiber &f = lane_self("__syncwarp");
  int l = cur % 32;
  if (!(mask >> l & 1u))
    warp_error((size_t)cur / 32, "__syncwarp (mask 0x%08x) called by lane %d, which is not in its mask", mask, l);
  f.coll.kind = COLL_SYNCWARP;
  f.coll.mask = mask;
  f.coll.qual = 0;
  f.coll.what = "__syncwarp";
  coll_wait();
}

// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: every lane of a whole warp takes
// part (.aligned); lanes 0-7 (x1), 0-15 (x2) or all (x4) give the rows.
inline void ldmatrix(uint32_t *r, int num, bool trans, const void *row, const char *what) {
  Fiber &f = lane_self(what);
  size_t w = (size_t)cur / 32;
  if (warp_lanes(w) != 32) warp_error(w, "%s needs a whole warp; this one has %zu lanes", what, warp_lanes(w));
  Coll &c = f.coll;
  c.kind = COLL_LDMATRIX;
  c.mask = 0xffffffffu;
  c.qual = (unsigned)num | (trans ? 1u : 0u) << 4;
  c.what = what;
  c.addr = static_cast<const unsigned char *>(row);
  coll_wait();
  std::memcpy(r, f.coll.out, 4 * (size_t)num);
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (a whole warp)
inline void mma16816(float *d, const uint32_t *a, const uint32_t *b, const float *cc, bool bf16, const char *what) {
  Fiber &f = lane_self(what);
  size_t w = (size_t)cur / 32;
  if (warp_lanes(w) != 32) warp_error(w, "%s needs a whole warp; this one has %zu lanes", what, warp_lanes(w));
  Coll &c = f.coll;
  c.kind = COLL_MMA;
  c.mask = 0xffffffffu;
  c.qual = bf16 ? 1u : 0u;
  c.what = what;
  std::memcpy(c.in, a, 16);
  std::memcpy(c.in + 4, b, 8);
  std::memcpy(c.in + 6, cc, 16);
  coll_wait();
  std::memcpy(d, f.coll.out, 16);
}

// A warp-wide 16-byte shared-memory access (ax_smem_load16/store16), which the generator
// emits only where every lane of the warp makes the same sequence of them: lane l's n-th
// access is matched with the other lanes' n-th, and once all have made it, the request's
// wavefronts are counted (phases of 8 lanes, 128 bytes). The access itself is not delayed:
// no switch, so the fibers' order (and the races it shows) is what it would be without.
inline void vector_access(const void *p, const char *what) {
  if (cur < 0) return;   // outside a kernel: nothing to count
  size_t w = (size_t)cur / 32;
  int l = cur % 32;
  if ((uintptr_t)p % 16) warp_error(w, "%s: lane %d's address is not 16-byte aligned", what, l);
  Fiber &f = fibers[(size_t)cur];
  std::deque<VecSlot> &d = vslots[w];
  size_t i = (size_t)(f.vseq++ - vbase[w]);
  while (d.size() <= i) d.push_back(VecSlot{{}, 0});
  d[i].addr[l] = static_cast<const unsigned char *>(p);
  d[i].have |= 1u << l;
  size_t n = warp_lanes(w);
  while (!d.empty() && d.front().have == full_mask(w)) {
    unsigned wf = 0, ideal = 0;
    for (size_t ph = 0; ph * 8 < n; ph++) {
      unsigned id;
      wf += phase_wavefronts(&d.front().addr[ph * 8], (int)(n - ph * 8 < 8 ? n - ph * 8 : 8), 16, &id);
      ideal += id;
    }
    add_banks(1, wf, ideal);
    d.pop_front();
    vbase[w]++;
  }
}

// The bank counts into DIR/banks.txt, a line per kernel: name, then requests, wavefronts and
// ideal wavefronts of ldmatrix, the same of 16-byte vector accesses, and the partial vector
// accesses (the driver calls it after the run; gpu/emulate.c prints it).
inline bool write_banks(const char *dir) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/banks.txt", dir);
  FILE *f = std::fopen(path, "w");
  if (!f) return false;
  AX_EMU_BANKS_LOCK;
  for (const KernelBanks &k : banks)
    std::fprintf(f, "%s %llu %llu %llu %llu %llu %llu %llu\n", k.name, k.b.req[0], k.b.wf[0], k.b.ideal[0], k.b.req[1],
                 k.b.wf[1], k.b.ideal[1], k.b.partial);
  return std::fclose(f) == 0;
}

}  // namespace axemu

inline void ax_cp_async16(void *d, const void *s) { axemu::cp_async(d, s, 16); }
inline void ax_cp_async8(void *d, const void *s) { axemu::cp_async(d, s, 8); }
inline void ax_cp_async4(void *d, const void *s) { axemu::cp_async(d, s, 4); }
inline void ax_cp_async_commit() { axemu::cp_commit(); }
template <int N>
inline void ax_cp_async_wait() {
  axemu::cp_wait((unsigned long)N);
}

inline void __syncthreads() { axemu::sync(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { axemu::syncwarp(mask); }

template <typename T>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  return axemu::shfl(axemu::SHFL_IDX, "__shfl_sync", mask, var, src_lane, width);
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return axemu::shfl(axemu::SHFL_UP, "__shfl_up_sync", mask, var, (int)delta, width);
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return axemu::shfl(axemu::SHFL_DOWN, "__shfl_down_sync", mask, var, (int)delta, width);
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return axemu::shfl(axemu::SHFL_BFLY, "__shfl_xor_sync", mask, var, lane_mask, width);
}

inline void ax_ldmatrix_x1(unsigned (&r)[1], const void *row) { axemu::ldmatrix(r, 1, false, row, "ldmatrix.x1"); }
inline void ax_ldmatrix_x2(unsigned (&r)[2], const void *row) { axemu::ldmatrix(r, 2, false, row, "ldmatrix.x2"); }
inline void ax_ldmatrix_x4(unsigned (&r)[4], const void *row) { axemu::ldmatrix(r, 4, false, row, "ldmatrix.x4"); }
inline void ax_ldmatrix_x1_trans(unsigned (&r)[1], const void *row) {
  axemu::ldmatrix(r, 1, true, row, "ldmatrix.x1.trans");
}
inline void ax_ldmatrix_x2_trans(unsigned (&r)[2], const void *row) {
  axemu::ldmatrix(r, 2, true, row, "ldmatrix.x2.trans");
}
inline void ax_ldmatrix_x4_trans(unsigned (&r)[4], const void *row) {
  axemu::ldmatrix(r, 4, true, row, "ldmatrix.x4.trans");
}
inline void ax_mma_m16n8k16_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const float (&c)[4]) {
  axemu::mma16816(d, a, b, c, false, "mma.m16n8k16.f16");
}
inline void ax_mma_m16n8k16_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const float (&c)[4]) {
  axemu::mma16816(d, a, b, c, true, "mma.m16n8k16.bf16");
}
inline uint4 ax_smem_load16(const void *p) {
  axemu::vector_access(p, "ax_smem_load16");
  uint4 v;
  std::memcpy(&v, p, 16);
  return v;
}
inline void ax_smem_store16(void *p, uint4 v) {
  axemu::vector_access(p, "ax_smem_store16");
  std::memcpy(p, &v, 16);
}

#define AX_SMEM_STATIC(name, bytes) alignas(128) static AX_EMU_TLS unsigned char name[bytes]
#define AX_SMEM_DYNAMIC(name) unsigned char *name = axemu::dyn
#ifndef AXLE_EMU_MK
#define AX_LAUNCH(kernel, grid, block, smem, stream, ...) \
  axemu::launch(#kernel, grid, block, smem, [&]() { kernel(__VA_ARGS__); })
#else
// ---- the emulated megakernel runtime ---------------------------------------------------
// The file is `axle mpk --output`'s persistent megakernel (mpk/mkcuda.h): this header gives
// it what the GPU gives it. A launch runs every block of its grid at once, each on a thread
// of its own (a worker: its threads are fibers, as above); the runtime's atomics are the
// compiler's, with the same orders (acquire, release, relaxed); the device reports --workers
// SMs. AX_MK_POINT is where the seeded schedule bends the run: a worker that has taken a
// task may be held back until other tasks finish (a slow SM), and may stall between its
// task's stores and its release, or just after the release.
#include <atomic>
#include <chrono>
#include <thread>

#define AX_LAUNCH(kernel, grid, block, smem, stream, ...) \
  axemu::mk_launch(#kernel, grid, block, smem, [&]() { kernel(__VA_ARGS__); })

enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum { cudaErrorInvalidConfiguration = 9 };
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) {
  std::memset(p, v, n);
  return cudaSuccess;
}

namespace axemu {

inline int mk_workers = 4;      // the SMs the device reports (--workers)
inline uint64_t mk_seed = 1;    // the schedule's seed
// The schedule's own counters are relaxed: they steer the schedule and order nothing, so
// that a ThreadSanitizer build (tools/mpk-tsan.sh) sees only the runtime's own
// synchronization between workers.
constexpr std::memory_order mk_rlx = std::memory_order_relaxed;
inline std::atomic<long> mk_progress{0};   // tasks past their stores (AX_MK_POINT 2)
inline std::atomic<int> mk_active{0};    // workers not yet finished
inline std::atomic<int> mk_blocked{0};   // workers held back or waiting for an event
inline AX_EMU_TLS bool mk_waiting = false;
inline AX_EMU_TLS uint64_t mk_rng = 0;
inline AX_EMU_TLS bool mk_rng_set = false;

inline uint64_t mk_next() {   // splitmix64, per worker
  if (!mk_rng_set) {
    mk_rng = mk_seed * 1000003u + (uint64_t)blockIdx.x * 7919u + 1;
    mk_rng_set = true;
  }
  uint64_t z = (mk_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Runs every block of the grid at once, each on a thread: a persistent kernel's workers
// wait for each other, so they cannot run one after another.
inline void mk_launch(const char *name, dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  std::vector<std::thread> ws;
  mk_active = (int)(grid.x * grid.y * grid.z);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++)
        ws.emplace_back([=, &fn] {
          setup(name, grid, block, smem, fn);
          run_block(bx, by, bz);
          body = nullptr;
          mk_active.fetch_sub(1, mk_rlx);
        });
  for (auto &w : ws) w.join();
}

// The schedule's points in the runtime (AX_MK_POINT). 0, a task taken: half the time the
// worker is held back (a slow SM) until 1 to 16 more tasks have finished, or until no other
// worker can run (each waits for an event or is held: then the held ones go on), so the
// delay is measured in the schedule's progress, not in time. 1, the wait over. 2, the
// task's stores done, before its release: an eighth of the time a stall of up to 300 µs. 3,
// just after the release: a quarter of the time a stall.

// A waiting worker gives its core away: at once for a while, then in sleeps of 20 µs, so that
// waiting workers do not starve the ones that run on a machine with fewer cores.
inline void mk_idle(long long spins) {
  if (spins < 64) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(20));
}

inline void mk_point(int where, int task) {
  (void)task;
  uint64_t roll = mk_next();
  if (where == 0) {
    if (roll % 2) return;
    long until = mk_progress.load(mk_rlx) + 1 + (long)(roll / 2 % 16);
    // a safety net: the counts above are the rule, this only bounds a bug's cost
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    mk_blocked.fetch_add(1, mk_rlx);
    for (int spins = 0; mk_progress.load(mk_rlx) < until && mk_blocked.load(mk_rlx) < mk_active.load(mk_rlx) &&
                        std::chrono::steady_clock::now() < end;
         spins++)
      mk_idle(spins);
    mk_blocked.fetch_sub(1, mk_rlx);
    return;
  }
  if (where == 1) {
    if (mk_waiting) mk_blocked.fetch_sub(1, mk_rlx);
    mk_waiting = false;
    return;
  }
  if (where == 2) mk_progress.fetch_add(1, mk_rlx);
  if ((where == 2 && roll % 8 == 1) || (where == 3 && roll % 4 == 1))
    std::this_thread::sleep_for(std::chrono::microseconds(roll / 16 % 300));
}

// A worker waiting for an event: yields; after 20 s of waiting the event is taken never to
// fire (a task graph whose triggers do not add up) and the run ends with exit 9.
inline void mk_pause(long long spins, int event) {
  static AX_EMU_TLS std::chrono::steady_clock::time_point since;
  if (spins == 0) {
    since = std::chrono::steady_clock::now();
    mk_waiting = true;
    mk_blocked.fetch_add(1, mk_rlx);
  }
  mk_idle(spins);
  if (spins % 1024 == 1023 && std::chrono::steady_clock::now() - since > std::chrono::seconds(20)) {
    std::fprintf(stderr, "megakernel: worker %u waited 20 s for event %d, which never fired\n", blockIdx.x,
                 event);
    std::exit(9);
  }
}

}  // namespace axemu

inline int ax_mk_load_acquire(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void ax_mk_add_release(int *p) { __atomic_fetch_add(p, 1, __ATOMIC_RELEASE); }
inline int ax_mk_take(int *head) { return __atomic_fetch_add(head, 1, __ATOMIC_RELAXED); }
template <typename F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr, int) {
  *v = axemu::mk_workers;
  return cudaSuccess;
}
#define AX_MK_PAUSE(spins, event) axemu::mk_pause(spins, event)
#define AX_MK_POINT(where, task) axemu::mk_point(where, task)
#endif

#endif
