/* check_emu.c — the emulator's cuBLAS stand-in (gpu/emu/axle_emu.h), which runs every
 * pre-defined matmul of an emulated graph, against a triple loop of cuBLAS's column-major
 * definition: C_b = alpha op(A_b) op(B_b) + beta C_b, element (i, j) at [i + j ld], batch b
 * at b times the stride, op(X) X or its transpose. Exact inputs (small integers, whose sums
 * every type holds exactly) must give exactly the loop's values, in f16, bf16 and f32, with
 * the row-major operand swap the generated host entry makes, transposes, padded leading
 * dimensions, a shared operand (stride 0), alpha and beta; inexact f32 inputs the bits of
 * f32 fmaf sums in k order; C unread when beta is 0; cuBLAS's refusals (a leading dimension
 * too small, mixed operand types, another compute type, a handle cublasCreate did not make).
 *
 * main compiles tests/gpu/cublas_emu.cpp once with the host C++ compiler and -DAXLE_EMU;
 * each call writes in.bin and runs it. Without a C++ compiler the suite says so and passes
 * (gpu_emulate skips then too). */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

extern const char ax_emu_runtime_h[];

static char dir[256];
static bool built, have_cxx;

static char *path(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* Runs argv with stdout and stderr into DIR/log; its exit status (-1: no start or a signal). */
static int run(char *const *argv) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(path("log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
    close(fd);
    execvp(argv[0], argv);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

/* The harness: axle_emu.h and tests/gpu/cublas_emu.cpp, compiled as axle emulate compiles. */
static bool build_harness(void) {
  const char *root = getenv("AXLE_SRC"), *cxx = getenv("CXX");
  if (!cxx || !*cxx) cxx = "g++";
  if (!root) return false;
  snprintf(dir, sizeof dir, "%s/axle-check-emu-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) return false;
  FILE *f = fopen(path("axle_emu.h"), "w");
  if (!f) return false;
  fputs(ax_emu_runtime_h, f);
  fclose(f);
  char src[1024];
  snprintf(src, sizeof src, "%s/tests/gpu/cublas_emu.cpp", root);
  char *argv[] = {(char *)cxx, "-std=c++17", "-O2", "-w", "-DAXLE_EMU", "-I", dir, "-x", "c++", src, "-o",
                  path("blas"), NULL};
  int rc = run(argv);
  if (rc == 127) {
    printf("check_emu: SKIP: no C++ compiler '%s': the cuBLAS stand-in was NOT run\n", cxx);
    return false;
  }
  have_cxx = true;
  if (rc != 0) fprintf(stderr, "check_emu: tests/gpu/cublas_emu.cpp does not compile (see %s/log)\n", dir);
  return rc == 0;
}

/* cuBLAS's enum values (cublas_api.h, library_types.h) */
enum { OP_N = 0, OP_T = 1, R_32F = 0, R_16F = 2, R_16BF = 14, COMPUTE_32F = 68, COMPUTE_16F = 64 };
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };

/* One call: the arguments of cublasGemmStridedBatchedEx and the matrices' elements. */
typedef struct Call {
  int64_t ta, tb, m, n, k, lda, ldb, ldc, sa, sb, sc, batch, at, bt, ct, comp;
  float alpha, beta;
  int64_t na, nb, nc;
  float *a, *b, *c;
} Call;

/* Runs c (mode: NULL, or "never" for a handle cublasCreate did not make); the status, and C
 * after the call into out (nc floats). */
static int gemm(const Call *c, float *out, const char *mode) {
  FILE *f = fopen(path("in.bin"), "wb");
  ck_assert_ptr_nonnull(f);
  int64_t hdr[16] = {c->ta, c->tb, c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->sa, c->sb, c->sc, c->batch,
                     c->at, c->bt, c->ct, c->comp};
  float ab[2] = {c->alpha, c->beta};
  int64_t cnt[3] = {c->na, c->nb, c->nc};
  fwrite(hdr, sizeof hdr, 1, f);
  fwrite(ab, sizeof ab, 1, f);
  fwrite(cnt, sizeof cnt, 1, f);
  fwrite(c->a, 4, (size_t)c->na, f);
  fwrite(c->b, 4, (size_t)c->nb, f);
  fwrite(c->c, 4, (size_t)c->nc, f);
  ck_assert_int_eq(fclose(f), 0);
  char *argv[] = {path("blas"), dir, (char *)mode, NULL};
  ck_assert_int_eq(run(argv), 0);
  f = fopen(path("out.bin"), "rb");
  ck_assert_ptr_nonnull(f);
  int32_t st;
  ck_assert_uint_eq(fread(&st, 4, 1, f), 1);
  if (out) ck_assert_uint_eq(fread(out, 4, (size_t)c->nc, f), (size_t)c->nc);
  fclose(f);
  return st;
}

/* The triple loop: element (i, j) of batch b of alpha op(A) op(B) + beta C, in double. */
static double want(const Call *c, int64_t b, int64_t i, int64_t j) {
  double s = 0;
  for (int64_t p = 0; p < c->k; p++) {
    double x = c->a[b * c->sa + (c->ta == OP_T ? p + i * c->lda : i + p * c->lda)];
    double y = c->b[b * c->sb + (c->tb == OP_T ? j + p * c->ldb : p + j * c->ldb)];
    s += x * y;
  }
  return c->alpha * s + c->beta * c->c[b * c->sc + i + j * c->ldc];
}

static uint32_t lcg = 2024;

/* n small integers in [-r, r]. */
static float *ints(int64_t n, int r) {
  float *v = ax_arena_alloc(A, (size_t)n * sizeof *v + 1);
  for (int64_t i = 0; i < n; i++) {
    lcg = lcg * 1103515245u + 12345u;
    v[i] = (float)((int)(lcg >> 16) % (2 * r + 1) - r);
  }
  return v;
}

/* Every element of C the call writes is the triple loop's (exact: integer inputs); the
 * padding between columns (ldc > m) keeps what C held. */
static void check_exact(const Call *c) {
  float *out = ax_arena_alloc(A, (size_t)c->nc * sizeof *out + 1);
  ck_assert_int_eq(gemm(c, out, NULL), SUCCESS);
  for (int64_t b = 0; b < c->batch; b++)
    for (int64_t j = 0; j < c->n; j++)
      for (int64_t i = 0; i < c->ldc; i++) {
        int64_t at = b * c->sc + i + j * c->ldc;
        double w = i < c->m ? want(c, b, i, j) : c->c[at];
        ck_assert_msg(out[at] == w, "batch %ld, C(%ld, %ld): %g, want %g", (long)b, (long)i, (long)j,
                      (double)out[at], w);
      }
}

/* The generated host entry's call for a row-major C[m][n] = A[m][k] B[k][n]: gemm(N, N, n,
 * m, k, B, n, A, k, C, n) — here m = 37, n = 29, k = 53 (no multiple of 8) in f16, whose
 * integers are exact to 2048 (the sums reach at most 53 · 9). The stand-in's C is the
 * row-major product. */
START_TEST(row_major_swap) {
  ck_assert_msg(built, "the harness did not build");
  int64_t m = 37, n = 29, k = 53;
  float *a = ints(m * k, 3), *b = ints(k * n, 3);
  Call c = {.ta = OP_N, .tb = OP_N, .m = n, .n = m, .k = k, .lda = n, .ldb = k, .ldc = n, .batch = 1, .at = R_16F,
            .bt = R_16F, .ct = R_16F, .comp = COMPUTE_32F, .alpha = 1, .beta = 0, .na = k * n, .nb = m * k,
            .nc = m * n, .a = b, .b = a, .c = ints(m * n, 0)};
  float *out = ax_arena_alloc(A, (size_t)(m * n) * sizeof *out);
  ck_assert_int_eq(gemm(&c, out, NULL), SUCCESS);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t p = 0; p < k; p++) s += (double)a[i * k + p] * b[p * n + j];
      ck_assert_msg(out[i * n + j] == s, "C[%ld][%ld] = %g, want %g", (long)i, (long)j, (double)out[i * n + j], s);
    }
}
END_TEST

/* bf16 (integers exact to 256) batched with a stride each and with B shared (stride 0);
 * f32 with both transposes, padded leading dimensions, alpha and beta; f16 in, f32 out. */
START_TEST(batches_transposes_types) {
  ck_assert_msg(built, "the harness did not build");
  Call c = {.ta = OP_N, .tb = OP_N, .m = 17, .n = 23, .k = 45, .lda = 17, .ldb = 45, .ldc = 17, .sa = 17 * 45,
            .sb = 45 * 23, .sc = 17 * 23, .batch = 3, .at = R_16BF, .bt = R_16BF, .ct = R_16BF, .comp = COMPUTE_32F,
            .alpha = 1, .beta = 0};
  c.na = 3 * c.sa, c.nb = 3 * c.sb, c.nc = 3 * c.sc;
  c.a = ints(c.na, 2), c.b = ints(c.nb, 2), c.c = ints(c.nc, 0);
  check_exact(&c);
  c.sb = 0;   /* one B for the whole batch */
  check_exact(&c);
  Call t = {.ta = OP_T, .tb = OP_T, .m = 5, .n = 9, .k = 7, .lda = 10, .ldb = 12, .ldc = 8, .sa = 50, .sb = 0,
            .sc = 72, .batch = 2, .at = R_32F, .bt = R_32F, .ct = R_32F, .comp = COMPUTE_32F, .alpha = 0.5f,
            .beta = 2};
  t.na = 100, t.nb = 7 * 12, t.nc = 2 * 72;
  t.a = ints(t.na, 4), t.b = ints(t.nb, 4), t.c = ints(t.nc, 5);
  check_exact(&t);
  Call h = {.ta = OP_N, .tb = OP_T, .m = 11, .n = 6, .k = 13, .lda = 11, .ldb = 6, .ldc = 11, .batch = 1,
            .at = R_16F, .bt = R_16F, .ct = R_32F, .comp = COMPUTE_32F, .alpha = 1, .beta = 0, .na = 143, .nb = 78,
            .nc = 66};
  h.a = ints(h.na, 7), h.b = ints(h.nb, 7), h.c = ints(h.nc, 0);
  check_exact(&h);
}
END_TEST

/* Inexact f32 inputs: each element is the f32 sum of its products by fmaf in k order from
 * 0, bit for bit (the order the emulator documents; cuBLAS's own is unspecified); a NaN in
 * C is not read when beta is 0. */
START_TEST(f32_order_and_unread_c) {
  ck_assert_msg(built, "the harness did not build");
  int64_t m = 6, n = 5, k = 300;
  float *a = ax_arena_alloc(A, (size_t)(m * k) * sizeof *a), *b = ax_arena_alloc(A, (size_t)(k * n) * sizeof *b);
  for (int64_t i = 0; i < m * k; i++) a[i] = sinf((float)i * 0.37f) * 1.7f;
  for (int64_t i = 0; i < k * n; i++) b[i] = cosf((float)i * 0.11f) / 3.0f;
  float *cc = ax_arena_alloc(A, (size_t)(m * n) * sizeof *cc);
  for (int64_t i = 0; i < m * n; i++) cc[i] = NAN;
  Call c = {.ta = OP_N, .tb = OP_N, .m = m, .n = n, .k = k, .lda = m, .ldb = k, .ldc = m, .batch = 1, .at = R_32F,
            .bt = R_32F, .ct = R_32F, .comp = COMPUTE_32F, .alpha = 1, .beta = 0, .na = m * k, .nb = k * n,
            .nc = m * n, .a = a, .b = b, .c = cc};
  float *out = ax_arena_alloc(A, (size_t)(m * n) * sizeof *out);
  ck_assert_int_eq(gemm(&c, out, NULL), SUCCESS);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      float s = 0;
      for (int64_t p = 0; p < k; p++) s = fmaf(a[i + p * m], b[p + j * k], s);
      ck_assert_msg(!isnan(out[i + j * m]), "C(%ld, %ld) read the NaN in C with beta 0", (long)i, (long)j);
      ck_assert_msg(memcmp(&out[i + j * m], &s, 4) == 0, "C(%ld, %ld) = %.9g, want %.9g", (long)i, (long)j,
                    (double)out[i + j * m], (double)s);
    }
}
END_TEST

/* What cuBLAS refuses: INVALID_VALUE for a leading dimension below the rows it holds
 * (C then untouched), NOT_SUPPORTED for operands of two types or another compute type,
 * NOT_INITIALIZED for a handle cublasCreate did not make. */
START_TEST(refusals) {
  ck_assert_msg(built, "the harness did not build");
  Call c = {.ta = OP_N, .tb = OP_N, .m = 4, .n = 3, .k = 2, .lda = 4, .ldb = 2, .ldc = 4, .batch = 1, .at = R_16F,
            .bt = R_16F, .ct = R_16F, .comp = COMPUTE_32F, .alpha = 1, .beta = 0, .na = 8, .nb = 6, .nc = 12};
  c.a = ints(8, 2), c.b = ints(6, 2), c.c = ints(12, 3);
  float out[12];
  Call bad = c;
  bad.lda = 3;   /* below m = 4 */
  ck_assert_int_eq(gemm(&bad, out, NULL), INVALID_VALUE);
  for (int i = 0; i < 12; i++) ck_assert(out[i] == c.c[i]);
  bad = c;
  bad.ldc = 2;
  ck_assert_int_eq(gemm(&bad, NULL, NULL), INVALID_VALUE);
  bad = c;
  bad.ta = OP_T;   /* A is then stored k x m: its rows are k = 2 */
  bad.lda = 1;
  ck_assert_int_eq(gemm(&bad, NULL, NULL), INVALID_VALUE);
  bad = c;
  bad.batch = -1;
  ck_assert_int_eq(gemm(&bad, NULL, NULL), INVALID_VALUE);
  bad = c;
  bad.bt = R_16BF;
  ck_assert_int_eq(gemm(&bad, NULL, NULL), NOT_SUPPORTED);
  bad = c;
  bad.ct = R_16BF;   /* f16 operands into bf16: not a pair COMPUTE_32F takes */
  ck_assert_int_eq(gemm(&bad, NULL, NULL), NOT_SUPPORTED);
  bad = c;
  bad.comp = COMPUTE_16F;
  ck_assert_int_eq(gemm(&bad, NULL, NULL), NOT_SUPPORTED);
  ck_assert_int_eq(gemm(&c, NULL, "never"), NOT_INITIALIZED);
  ck_assert_int_eq(gemm(&c, NULL, NULL), SUCCESS);
}
END_TEST

int main(void) {
  built = build_harness();
  if (!built && !have_cxx) return EXIT_SUCCESS;   /* no compiler: said so */
  Suite *s = suite_create("emu");
  TCase *t = tcase_create("emu");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, row_major_swap);
  tcase_add_test(t, batches_transposes_types);
  tcase_add_test(t, f32_order_and_unread_c);
  tcase_add_test(t, refusals);
  suite_add_tcase(s, t);
  int rc = unit_run(s);
  static const char *const files[] = {"axle_emu.h", "blas", "in.bin", "out.bin", "log"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) remove(path(files[i]));
  rmdir(dir);
  return rc;
}
