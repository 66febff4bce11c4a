// The emulator's cuBLAS stand-in (gpu/emu/axle_emu.h) driven directly: tests/unit/check_emu.c
// compiles this file with the host C++ compiler and -DAXLE_EMU (as axle emulate compiles a
// generated file), writes a call's arguments to DIR/in.bin, runs it and reads DIR/out.bin.
//
//   in.bin:  16 int64 — transa, transb, m, n, k, lda, ldb, ldc, strideA, strideB, strideC,
//            batchCount, Atype, Btype, Ctype, computeType (cuBLAS's enum values) —, then
//            alpha and beta (float), then the int64 element counts of A, B and C and their
//            elements as floats (converted to each matrix's type here).
//   out.bin: the call's cublasStatus_t (int32), then C's elements as floats.
// A second argument "never" makes the call on a handle cublasCreate did not make.
#include "axle_emu.h"

static float to_float(cudaDataType t, const std::vector<unsigned char> &m, size_t i) { return axemu::blas_get(t, m.data(), (long long)i); }

int main(int argc, char **argv) {
  if (argc < 2) return 6;
  char path[4096];
  std::snprintf(path, sizeof path, "%s/in.bin", argv[1]);
  FILE *f = std::fopen(path, "rb");
  if (!f) return 6;
  long long a[16], cnt[3];
  float ab[2];
  if (std::fread(a, sizeof a, 1, f) != 1 || std::fread(ab, sizeof ab, 1, f) != 1 || std::fread(cnt, sizeof cnt, 1, f) != 1)
    return 6;
  const cudaDataType ty[3] = {(cudaDataType)a[12], (cudaDataType)a[13], (cudaDataType)a[14]};
  std::vector<unsigned char> mat[3];
  for (int q = 0; q < 3; q++) {
    const size_t es = ty[q] == CUDA_R_32F || !axemu::blas_type_ok(ty[q]) ? 4 : 2;
    mat[q].assign((size_t)cnt[q] * es + 1, 0);
    for (long long i = 0; i < cnt[q]; i++) {
      float v;
      if (std::fread(&v, 4, 1, f) != 1) return 6;
      if (axemu::blas_type_ok(ty[q])) axemu::blas_put(ty[q], mat[q].data(), i, v);
      else std::memcpy(mat[q].data() + 4 * i, &v, 4);
    }
  }
  std::fclose(f);
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, nullptr) != CUBLAS_STATUS_SUCCESS) return 6;
  axemu_cublas never{0, nullptr};   // a handle cublasCreate did not make
  if (argc > 2 && std::strcmp(argv[2], "never") == 0) h = &never;
  const int st = cublasGemmStridedBatchedEx(
      h, (cublasOperation_t)a[0], (cublasOperation_t)a[1], (int)a[2], (int)a[3], (int)a[4], &ab[0], mat[0].data(), ty[0],
      (int)a[5], a[8], mat[1].data(), ty[1], (int)a[6], a[9], &ab[1], mat[2].data(), ty[2], (int)a[7], a[10], (int)a[11],
      (cublasComputeType_t)a[15], CUBLAS_GEMM_DEFAULT);
  if (h != &never && cublasDestroy(h) != CUBLAS_STATUS_SUCCESS) return 6;
  std::snprintf(path, sizeof path, "%s/out.bin", argv[1]);
  FILE *o = std::fopen(path, "wb");
  if (!o || std::fwrite(&st, 4, 1, o) != 1) return 6;
  for (long long i = 0; i < cnt[2]; i++) {
    const float v = axemu::blas_type_ok(ty[2]) ? to_float(ty[2], mat[2], (size_t)i) : 0.0f;
    if (std::fwrite(&v, 4, 1, o) != 1) return 6;
  }
  return std::fclose(o) == 0 ? 0 : 6;
}
