// driver.cu — runs one generated host entry once on pseudo-random inputs, with no Python
// and no PyTorch in the process, so that compute-sanitizer (memcheck, racecheck, synccheck,
// initcheck) sees axle's kernels and nothing else. bench.py --sanitize calls it.
//
//   driver LIB.so ENTRY in DTYPE:COUNT... out DTYPE:COUNT...
//
// DTYPE is f16, bf16 or f32; COUNT the number of elements. Inputs are uniform in
// [-0.5, 0.5] (a fixed seed), outputs are filled with a NaN pattern first so that an
// element the kernels never write shows up (initcheck reads of it, NaN in the sum).
// It prints how many output elements are not finite (a program may overflow its dtype:
// that is its meaning, not a fault of the kernels). Exit status: 0 the entry returned 0,
// 1 it returned a CUDA error (or 20000 + a cuBLAS status: a pre-defined matmul's call
// failed), 2 bad arguments or the library cannot be loaded (LIB.so finds libcublas through
// the run path prepare.sh gave it).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

typedef int (*Entry)(const void *const *, void *const *, cudaStream_t);

struct Buf {
  int bytes_per;    // 2 or 4
  bool bf16;
  size_t count;
  void *dev;
};

static bool parse(const char *arg, Buf *b) {
  const char *colon = strchr(arg, ':');
  if (!colon) return false;
  size_t n = (size_t)(colon - arg);
  if (n == 3 && strncmp(arg, "f16", 3) == 0) b->bytes_per = 2, b->bf16 = false;
  else if (n == 4 && strncmp(arg, "bf16", 4) == 0) b->bytes_per = 2, b->bf16 = true;
  else if (n == 3 && strncmp(arg, "f32", 3) == 0) b->bytes_per = 4, b->bf16 = false;
  else return false;
  char *end;
  unsigned long long c = strtoull(colon + 1, &end, 10);
  if (*end || c == 0) return false;
  b->count = (size_t)c;
  b->dev = NULL;
  return true;
}

static float to_float(const Buf &b, const unsigned char *p) {
  if (b.bytes_per == 4) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  if (b.bf16) {
    __nv_bfloat16 h;
    memcpy(&h, p, 2);
    return __bfloat162float(h);
  }
  __half h;
  memcpy(&h, p, 2);
  return __half2float(h);
}

int main(int argc, char **argv) {
  if (argc < 4 || strcmp(argv[3], "in") != 0) {
    fprintf(stderr, "usage: driver LIB.so ENTRY in DTYPE:COUNT... out DTYPE:COUNT...\n");
    return 2;
  }
  std::vector<Buf> ins, outs;
  bool in_outs = false;
  for (int i = 4; i < argc; i++) {
    if (strcmp(argv[i], "out") == 0 && !in_outs) {
      in_outs = true;
      continue;
    }
    Buf b;
    if (!parse(argv[i], &b)) {
      fprintf(stderr, "driver: bad buffer '%s' (DTYPE:COUNT, DTYPE f16|bf16|f32)\n", argv[i]);
      return 2;
    }
    (in_outs ? outs : ins).push_back(b);
  }
  if (outs.empty()) {
    fprintf(stderr, "driver: no outputs\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "driver: cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  Entry entry = (Entry)dlsym(lib, argv[2]);
  if (!entry) {
    fprintf(stderr, "driver: %s has no %s\n", argv[1], argv[2]);
    return 2;
  }
  uint64_t state = 2024;
  std::vector<const void *> in_ptrs;
  std::vector<void *> out_ptrs;
  for (Buf &b : ins) {
    std::vector<unsigned char> host(b.count * b.bytes_per);
    for (size_t k = 0; k < b.count; k++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      float v = (float)((state >> 40) & 0xffffff) / 16777216.0f - 0.5f;
      unsigned char *p = &host[k * b.bytes_per];
      if (b.bytes_per == 4) memcpy(p, &v, 4);
      else if (b.bf16) {
        __nv_bfloat16 h = __float2bfloat16(v);
        memcpy(p, &h, 2);
      } else {
        __half h = __float2half(v);
        memcpy(p, &h, 2);
      }
    }
    if (cudaMalloc(&b.dev, host.size()) != cudaSuccess ||
        cudaMemcpy(b.dev, host.data(), host.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "driver: cannot place an input on the device\n");
      return 1;
    }
    in_ptrs.push_back(b.dev);
  }
  for (Buf &b : outs) {
    if (cudaMalloc(&b.dev, b.count * b.bytes_per) != cudaSuccess ||
        cudaMemset(b.dev, 0xff, b.count * b.bytes_per) != cudaSuccess) {
      fprintf(stderr, "driver: cannot allocate an output\n");
      return 1;
    }
    out_ptrs.push_back(b.dev);
  }
  int rc = entry(in_ptrs.data(), out_ptrs.data(), 0);
  cudaError_t sync = cudaDeviceSynchronize();
  if (rc >= 20000) {   // a failed cuBLAS call (a pre-defined matmul): 20000 + its status
    fprintf(stderr, "driver: %s returned %d (cuBLAS status %d), synchronize: %s\n", argv[2], rc, rc - 20000,
            cudaGetErrorString(sync));
    return 1;
  }
  if (rc != 0 || sync != cudaSuccess) {
    fprintf(stderr, "driver: %s returned %d (%s), synchronize: %s\n", argv[2], rc,
            cudaGetErrorString((cudaError_t)rc), cudaGetErrorString(sync));
    return 1;
  }
  bool finite = true;
  for (size_t o = 0; o < outs.size(); o++) {
    Buf &b = outs[o];
    std::vector<unsigned char> host(b.count * b.bytes_per);
    cudaMemcpy(host.data(), b.dev, host.size(), cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t k = 0; k < b.count; k++)
      if (!isfinite(to_float(b, &host[k * b.bytes_per]))) bad++;
    if (bad) printf("driver: output %zu: %zu of %zu elements not finite\n", o, bad, b.count);
    finite = finite && !bad;
    cudaFree(b.dev);
  }
  for (Buf &b : ins) cudaFree(b.dev);
  printf("driver: %s ran, %zu output(s)%s\n", argv[2], outs.size(), finite ? ", all finite" : "");
  return 0;
}
