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
//     tanhf/fmaxf/fminf (the host's) and rsqrtf (CUDA's alone: 1 / sqrtf here);
//   * cp.async (ax_cp_async16/8/4, ax_cp_async_commit, ax_cp_async_wait<N>): per thread,
//     copies in flight are recorded and their destination poisoned (nan) until the
//     wait_group that completes them (see cp_async below);
//   * AX_LAUNCH: runs the grid block by block; cudaMallocAsync / cudaFreeAsync /
//     cudaMemcpyAsync / cudaGetLastError / cudaFuncSetAttribute on host memory.
// With -DAXLE_EMU_MK it is the emulated megakernel runtime instead (docs/mpk.md): AX_LAUNCH
// only records the launch, and axemu::mk_run then runs the task graph axle wrote
// (tasks.txt), one block a task, on worker threads under a seeded adversarial schedule. The
// emulator's state is then per worker thread (AX_EMU_TLS), intermediate tensors start as nan
// (a task that reads a tile before its producer wrote it computes nan) and are never freed.
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
#ifdef AXLE_EMU_MK
  (void)p;   // the host entry returns before the tasks run
#else
  std::free(p);
#endif
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
};

inline AX_EMU_TLS ucontext_t sched;
inline AX_EMU_TLS std::vector<Fiber> fibers;
inline AX_EMU_TLS std::vector<char *> stacks;
inline AX_EMU_TLS int cur = -1;
inline AX_EMU_TLS const std::function<void()> *body = nullptr;
inline AX_EMU_TLS std::vector<unsigned char> dyn;   // dynamic shared memory of the running launch
constexpr size_t STACK = 256 * 1024;

inline void entry() {
  (*body)();
  fibers[(size_t)cur].state = DONE;   // returning resumes uc_link: the scheduler
}

inline void sync() {
  if (cur < 0) return;   // called outside a launch: nothing to wait for
  fibers[(size_t)cur].state = BARRIER;
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
        }
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
            swapcontext(&sched, &f.ctx);
            cur = -1;
            if (f.state == BARRIER) waiting++;
            else done++;
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
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#define AX_LAUNCH(kernel, grid, block, smem, stream, ...) \
  axemu::mk_record(grid, block, smem, [=]() { kernel(__VA_ARGS__); })

namespace axemu {

// A launch the host entry made, in order: kernel k of the task graph.
struct MkLaunch {
  dim3 grid, block;
  size_t smem;
  std::function<void()> fn;
};
inline std::vector<MkLaunch> mk_launches;

inline void mk_record(dim3 grid, dim3 block, size_t smem, std::function<void()> fn) {
  mk_launches.push_back(MkLaunch{grid, block, smem, std::move(fn)});
}

struct MkTask {
  int kernel;
  unsigned b[3];
  int dep;
  std::vector<int> trig;
};
struct MkEvent {
  int ntriggers, first, last;
};

// The shared state of one run: the task records, the event counters (as on the GPU, one
// atomic per event, incremented with release by each trigger) and the pool of launched
// tasks the workers draw from.
struct Mk {
  std::vector<MkTask> tasks;
  std::vector<MkEvent> events;
  std::vector<std::atomic<int>> count;
  std::mutex m;
  std::condition_variable cv;
  std::vector<int> ready;
  int done = 0, running = 0, holding = 0, workers = 0;
  std::vector<uint64_t> held;   // the tickets of the tasks held back
  bool stuck = false;
};

inline uint64_t mk_next(uint64_t &s) {   // splitmix64
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline void mk_launch_range(Mk &S, int e) {   // S.m held
  for (int t = S.events[(size_t)e].first; t < S.events[(size_t)e].last; t++) S.ready.push_back(t);
  S.cv.notify_all();
}

// One worker: draws a launched task (mostly the newest, else a random one), maybe holds it
// back (a slow SM), runs its block, maybe stalls between its writes and its release, then
// triggers its events. The start event's tasks are launched in a shuffled order.
inline void mk_worker(Mk &S, int w, uint64_t seed) {
  uint64_t r = seed * 1000003u + (uint64_t)w * 7919u + 1;
  for (;;) {
    int t;
    {
      std::unique_lock<std::mutex> lk(S.m);
      S.cv.wait(lk, [&] {
        return !S.ready.empty() || S.done == (int)S.tasks.size() || S.stuck ||
               (S.running == 0 && S.ready.empty());
      });
      if (S.ready.empty()) {
        if (S.done < (int)S.tasks.size() && S.running == 0) S.stuck = true;
        S.cv.notify_all();
        return;
      }
      // mostly the newest launched task (a consumer as soon as its event fires, while
      // older tasks wait), else any
      size_t i = mk_next(r) % 4 ? S.ready.size() - 1 : (size_t)(mk_next(r) % S.ready.size());
      t = S.ready[i];
      S.ready[i] = S.ready.back();
      S.ready.pop_back();
      S.running++;
    }
    const MkTask &x = S.tasks[(size_t)t];
    uint64_t roll = mk_next(r);
    if (roll % 2 == 0) {
      // held back (a slow SM) until some more tasks have finished, or until nothing else
      // can run, and then only if it holds the smallest ticket of those held: a delay
      // measured in the schedule's progress, not in time, released one task at a time
      std::unique_lock<std::mutex> lk(S.m);
      int until = S.done + 1 + (int)(roll / 2 % S.tasks.size());
      uint64_t ticket = mk_next(r);
      S.holding++;
      S.held.push_back(ticket);
      S.cv.notify_all();
      S.cv.wait(lk, [&] {
        if (S.done >= until) return true;
        if (S.running != S.holding || !(S.ready.empty() || S.holding == S.workers)) return false;
        for (uint64_t h : S.held)
          if (h < ticket) return false;
        return true;
      });
      S.holding--;
      for (size_t i = 0; i < S.held.size(); i++)
        if (S.held[i] == ticket) {
          S.held[i] = S.held.back();
          S.held.pop_back();
          break;
        }
    } else {
      std::this_thread::yield();
    }
    const MkLaunch &L = mk_launches[(size_t)x.kernel];
    setup(L.grid, L.block, L.smem, L.fn);
    run_block(x.b[0], x.b[1], x.b[2]);
    body = nullptr;
    if (roll % 8 == 1) std::this_thread::sleep_for(std::chrono::microseconds(roll / 16 % 300));
    for (int e : x.trig)
      if (S.count[(size_t)e].fetch_add(1, std::memory_order_acq_rel) + 1 ==
          S.events[(size_t)e].ntriggers) {
        std::lock_guard<std::mutex> lk(S.m);
        mk_launch_range(S, e);
      }
    std::lock_guard<std::mutex> lk(S.m);
    S.done++;
    S.running--;
    S.cv.notify_all();
  }
}

// Reads DIR/tasks.txt and runs it on `workers` threads with schedule seed `seed`. Returns
// 0, or 8 (the task graph does not match the launches; printed) or 9 (tasks never launched:
// an event that never fires; printed).
//   tasks.txt: "axle-mk KERNELS TASKS EVENTS", then per kernel "GX GY GZ", per event
//   "TRIGGERS FIRST LAST", per task "KERNEL BX BY BZ WAIT NTRIG TRIG...".
inline int mk_run(const char *dir, int workers, uint64_t seed) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/tasks.txt", dir);
  FILE *f = std::fopen(path, "r");
  int nk = 0, nt = 0, ne = 0;
  if (!f || std::fscanf(f, "axle-mk %d %d %d", &nk, &nt, &ne) != 3) {
    std::fprintf(stderr, "megakernel: cannot read %s\n", path);
    return 8;
  }
  if ((size_t)nk != mk_launches.size()) {
    std::fprintf(stderr, "megakernel: the host entry launched %zu kernels, the task graph has %d\n",
                 mk_launches.size(), nk);
    return 8;
  }
  for (int k = 0; k < nk; k++) {
    unsigned g[3];
    if (std::fscanf(f, "%u %u %u", &g[0], &g[1], &g[2]) != 3 || g[0] != mk_launches[(size_t)k].grid.x ||
        g[1] != mk_launches[(size_t)k].grid.y || g[2] != mk_launches[(size_t)k].grid.z) {
      std::fprintf(stderr, "megakernel: kernel %d's grid differs from its launch's\n", k);
      return 8;
    }
  }
  Mk S;
  S.events.resize((size_t)ne);
  S.count = std::vector<std::atomic<int>>((size_t)ne);
  for (auto &e : S.events)
    if (std::fscanf(f, "%d %d %d", &e.ntriggers, &e.first, &e.last) != 3) return 8;
  S.tasks.resize((size_t)nt);
  for (auto &x : S.tasks) {
    int n = 0;
    if (std::fscanf(f, "%d %u %u %u %d %d", &x.kernel, &x.b[0], &x.b[1], &x.b[2], &x.dep, &n) != 6)
      return 8;
    x.trig.resize((size_t)n);
    for (int &e : x.trig)
      if (std::fscanf(f, "%d", &e) != 1) return 8;
  }
  std::fclose(f);
  {
    std::lock_guard<std::mutex> lk(S.m);
    for (int e = 0; e < ne; e++)
      if (S.events[(size_t)e].ntriggers == 0) mk_launch_range(S, e);
    uint64_t r = seed ^ 0x5bd1e995u;
    for (size_t i = S.ready.size(); i > 1; i--) std::swap(S.ready[i - 1], S.ready[mk_next(r) % i]);
  }
  S.workers = workers;
  std::vector<std::thread> ws;
  for (int w = 0; w < workers; w++) ws.emplace_back(mk_worker, std::ref(S), w, seed);
  for (auto &w : ws) w.join();
  if (S.done != nt) {
    std::fprintf(stderr, "megakernel: %d of %d tasks never launched (an event never fired)\n",
                 nt - S.done, nt);
    return 9;
  }
  return 0;
}

}  // namespace axemu
#endif

#endif
