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
//   * __half / __nv_bfloat16 with round-to-nearest-even conversions, uint4, fmaf/expf/sqrtf/
//     tanhf/fmaxf/fminf/copysignf (the host's) and rsqrtf (CUDA's alone: 1 / sqrtf here);
//   * cp.async (ax_cp_async16/8/4, ax_cp_async_commit, ax_cp_async_wait<N>): per thread,
//     copies in flight are recorded and their destination poisoned (nan) until the
//     wait_group that completes them (see cp_async below);
//   * AX_LAUNCH: runs the grid block by block; cudaMallocAsync / cudaFreeAsync /
//     cudaMemcpyAsync / cudaGetLastError / cudaFuncSetAttribute on host memory.
// With -DAXLE_EMU_MK it runs `axle mpk --output`'s persistent megakernel (docs/mpk.md): a
// launch runs its blocks at once, one worker thread each, under a seeded adversarial
// schedule (AX_MK_POINT). The emulator's state is then per worker thread (AX_EMU_TLS), and
// intermediate tensors start as nan (a task that reads a tile before its producer wrote it
// computes nan).
// Compiled with -fsanitize=thread (make test-tsan), it announces its fibers to
// ThreadSanitizer, so that the races reported are the worker threads' own.
// No tensor cores: AX_TC_ON is 0 under AXLE_EMU, so the portable path is what runs.
#ifndef AXLE_EMU_H
#define AXLE_EMU_H

#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
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

enum State { RUN, BARRIER, DONE };

// An asynchronous copy (cp.async) issued by a thread and not yet waited for: the source's
// bytes as they were at issue, where they go, and the group it belongs to (the number of
// commits the thread had made when it issued the copy).
struct Copy {
  unsigned char *dst;
  unsigned char data[16];
  unsigned bytes;
  unsigned long group;
};

struct Fiber {
  ucontext_t ctx;
  State state;
  unsigned tx, ty, tz;
  std::vector<Copy> pending;
  unsigned long committed;
  void *tsan = nullptr;   // its ThreadSanitizer fiber (AX_EMU_TSAN)
};

inline AX_EMU_TLS ucontext_t sched;
inline AX_EMU_TLS void *sched_tsan = nullptr;   // the scheduler's, the worker thread's own
inline AX_EMU_TLS std::vector<Fiber> fibers;
inline AX_EMU_TLS std::vector<char *> stacks;
inline AX_EMU_TLS int cur = -1;
inline AX_EMU_TLS const std::function<void()> *body = nullptr;
inline AX_EMU_TLS std::vector<unsigned char> dyn;   // dynamic shared memory of the running launch
constexpr size_t STACK = 256 * 1024;

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

// Prepares a launch of fn: its fibers, their stacks, its dynamic shared memory.
inline void setup(dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  size_t nt = (size_t)block.x * block.y * block.z;
  fibers.assign(nt, Fiber());
  while (stacks.size() < nt) stacks.push_back(static_cast<char *>(std::malloc(STACK)));
  dyn.assign(smem ? smem : 16, 0);
  body = &fn;
  gridDim = grid;
  blockDim = block;
}

// Runs block (bx, by, bz) of the launch set up, its threads as fibers.
inline void run_block(unsigned bx, unsigned by, unsigned bz) {
  dim3 grid = gridDim, block = blockDim;
  size_t nt = (size_t)block.x * block.y * block.z;
  {
      {
        blockIdx = {bx, by, bz};
        for (size_t t = 0; t < nt; t++) {
          Fiber &f = fibers[t];
          f.state = RUN;
          f.tx = (unsigned)(t % block.x);
          f.ty = (unsigned)(t / block.x % block.y);
          f.tz = (unsigned)(t / ((size_t)block.x * block.y));
          f.pending.clear();   // copies a thread never waited for die with its block
          f.committed = 0;
          getcontext(&f.ctx);
          f.ctx.uc_stack.ss_sp = stacks[t];
          f.ctx.uc_stack.ss_size = STACK;
          f.ctx.uc_link = &sched;
          makecontext(&f.ctx, entry, 0);
#ifdef AX_EMU_TSAN
          f.tsan = __tsan_create_fiber(0);
#endif
        }
#ifdef AX_EMU_TSAN
        sched_tsan = __tsan_get_current_fiber();
#endif
        // Odd blocks resume their fibers in reverse order: a read of what another thread
        // wrote without a barrier between is caught when the reader runs first, so one
        // order catches readers below the writer, the other readers above it.
        bool rev = ((bz * grid.y + by) * grid.x + bx) & 1u;
        for (;;) {
          size_t waiting = 0, done = 0;
          for (size_t q = 0; q < nt; q++) {
            size_t t = rev ? nt - 1 - q : q;
            Fiber &f = fibers[t];
            if (f.state == DONE) {
              done++;
              continue;
            }
            f.state = RUN;
            threadIdx = {f.tx, f.ty, f.tz};
            cur = (int)t;
#ifdef AX_EMU_TSAN
            __tsan_switch_to_fiber(f.tsan, 0);
#endif
            swapcontext(&sched, &f.ctx);
            cur = -1;
            if (f.state == BARRIER) {
              waiting++;
            } else {
              f.state = DONE;
              done++;
            }
          }
          if (done == nt) break;
          if (waiting != nt) {
            std::fprintf(stderr,
                         "axle emulate: barrier divergence in block (%u, %u, %u): %zu threads "
                         "wait at __syncthreads() while %zu have returned\n",
                         bx, by, bz, waiting, done);
            std::exit(5);
          }
        }
      }
  }
}

// Runs one launch: every block of the grid in order.
inline void launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  setup(grid, block, smem, fn);
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
inline void __syncwarp() {}

#define AX_SMEM_STATIC(name, bytes) alignas(128) static AX_EMU_TLS unsigned char name[bytes]
#define AX_SMEM_DYNAMIC(name) unsigned char *name = axemu::dyn.data()
#ifndef AXLE_EMU_MK
#define AX_LAUNCH(kernel, grid, block, smem, stream, ...) \
  axemu::launch(grid, block, smem, [&]() { kernel(__VA_ARGS__); })
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
  axemu::mk_launch(grid, block, smem, [&]() { kernel(__VA_ARGS__); })

enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum { cudaErrorInvalidConfiguration = 9 };
inline cudaError_t cudaGetDevice(int *dev) {
  *dev = 0;
  return cudaSuccess;
}
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
inline void mk_launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &fn) {
  std::vector<std::thread> ws;
  mk_active = (int)(grid.x * grid.y * grid.z);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++)
        ws.emplace_back([=, &fn] {
          setup(grid, block, smem, fn);
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
