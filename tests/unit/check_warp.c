/* check_warp.c — the warp-level primitives of the generated prelude (gpu/warp.cuh) as the
 * emulator runs them (gpu/emu/axle_emu.h), against their definitions: CUDA's shuffles
 * (the Programming Guide's source lane of each __shfl*_sync), the warp sums, maxima and
 * minima, ldmatrix's registers per lane and mma.sync's D = A B + C (PTX ISA: "Warp-level
 * matrix load instruction: ldmatrix", "Matrix Fragments for mma.m16n8k16 with floating
 * point type"), the bank counter, the reports of a collective part of its warp cannot
 * reach, and a missing barrier around shuffles still caught in both fiber orders.
 *
 * main compiles tests/gpu/warp.cu once with the host C++ compiler and -DAXLE_EMU after the
 * generated prelude (as axle emulate compiles a generated file); each test writes in.bin,
 * runs one of its kernels and reads out.bin. Without a C++ compiler the suite says so and
 * passes (gpu_emulate skips then too). */
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/cuda.h"
#include "unit.h"

extern const char ax_emu_runtime_h[];

static char dir[256];   /* the compiled harness and its files */

static char *path(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static void put(const char *name, const void *data, size_t n) {
  FILE *f = fopen(path(name), "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

static size_t get(const char *name, void *data, size_t n) {
  FILE *f = fopen(path(name), "rb");
  if (!f) return 0;
  size_t k = fread(data, 1, n, f);
  fclose(f);
  return k;
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

static const char *log_text(void) {
  static char buf[8192];
  size_t n = get("log", buf, sizeof buf - 1);
  buf[n] = 0;
  return buf;
}

/* Runs test `t` of the harness on in.bin; its exit status. */
static int harness(const char *t) {
  char *argv[] = {path("warp"), dir, (char *)t, NULL};
  return run(argv);
}

static bool have_cxx;

/* The harness: axle_emu.h, the prelude, tests/gpu/warp.cu, compiled as axle emulate does. */
static bool build_harness(void) {
  const char *root = getenv("AXLE_SRC"), *cxx = getenv("CXX");
  if (!cxx || !*cxx) cxx = "g++";
  if (!root) return false;
  snprintf(dir, sizeof dir, "%s/axle-check-warp-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) return false;
  FILE *f = fopen(path("axle_emu.h"), "w");
  if (!f) return false;
  fputs(ax_emu_runtime_h, f);
  fclose(f);
  f = fopen(path("prelude.cuh"), "w");
  if (!f) return false;
  ax_cuda_emit_prelude(f);
  fclose(f);
  char src[1024];
  snprintf(src, sizeof src, "%s/tests/gpu/warp.cu", root);
  char *argv[] = {(char *)cxx, "-std=c++17", "-O2", "-w", "-DAXLE_EMU", "-I", dir, "-x", "c++", src, "-o",
                  path("warp"), NULL};
  int rc = run(argv);
  if (rc == 127) {
    printf("check_warp: SKIP: no C++ compiler '%s': the primitives were NOT emulated\n", cxx);
    return false;
  }
  if (rc != 0) fprintf(stderr, "check_warp: tests/gpu/warp.cu does not compile:\n%s\n", log_text());
  have_cxx = true;
  return rc == 0;
}

static bool built;

static float as_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint32_t as_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- shuffles ---------------------------------------------------------------------------
 * The source lane of each, as the CUDA Programming Guide defines it within segments of
 * `width` lanes: __shfl_sync reads lane srcLane % width of the caller's segment;
 * __shfl_up_sync lane - delta unless that leaves the segment (then the caller's own
 * value); __shfl_down_sync lane + delta likewise; __shfl_xor_sync lane ^ laneMask, which
 * may be in an earlier segment but not a later one (the caller's own value then). */
static int s_idx(int lane, int src, int w) { return src % w + lane / w * w; }
static int s_up(int lane, int d, int w) { return lane % w >= d ? lane - d : lane; }
static int s_down(int lane, int d, int w) { return lane % w + d < w ? lane + d : lane; }
static int s_xor(int lane, int m, int w) {
  int j = lane ^ m;
  return j < (lane / w + 1) * w ? j : lane;
}

START_TEST(shuffles) {
  ck_assert_msg(built, "the harness did not build");
  float in[64];
  for (int t = 0; t < 64; t++) in[t] = (float)t * 1.25f - 7.0f;   /* distinct, so sources show */
  put("in.bin", in, sizeof in);
  ck_assert_int_eq(harness("shfl"), 0);
  uint32_t out[64 * 15];
  ck_assert_uint_eq(get("out.bin", out, sizeof out), sizeof out);
  for (int t = 0; t < 64; t++) {
    int l = t % 32, base = t - l;
    const int src[12] = {s_idx(l, (l * 7 + 3) % 32, 32), s_idx(l, 5, 8), s_idx(l, 29, 16), s_xor(l, 1, 32),
                         s_xor(l, 16, 32), s_xor(l, 3, 4), s_xor(l, 8, 8), s_down(l, 3, 32),
                         s_down(l, 5, 16), s_up(l, 2, 8), s_up(l, 1, 32),
                         l < 16 ? s_xor(l, 4, 16) : s_down(l, 2, 16)};
    for (int k = 0; k < 12; k++)
      ck_assert_msg(out[t * 15 + k] == as_bits(in[base + src[k]]), "thread %d, pattern %d: %g, not lane %d's %g", t,
                    k, (double)as_float(out[t * 15 + k]), src[k], (double)in[base + src[k]]);
    int j = base + 31 - l;   /* an int, from lane 31 - l */
    ck_assert_int_eq((int32_t)out[t * 15 + 12], j * 3 - 50);
    j = base + (l ^ 2);   /* 64 bits, from lane l ^ 2 */
    uint64_t w = (uint64_t)j << 40 | (uint64_t)(j * 12345 + 7);
    ck_assert_uint_eq(out[t * 15 + 13], (uint32_t)(w >> 32));
    ck_assert_uint_eq(out[t * 15 + 14], (uint32_t)w);
  }
}
END_TEST

/* ---- warp sums, maxima, minima -----------------------------------------------------------
 * Integers sum exactly in any order: the results must be the segments' exact sums, maxima
 * and minima. Random values: every lane of a segment holds the same bits (the butterfly),
 * within the f32 bound of a sum of W terms: W FLT_EPSILON times the sum of |v|. */
static void reduce_check(const float *in, bool exact) {
  put("in.bin", in, 64 * sizeof *in);
  ck_assert_int_eq(harness("reduce"), 0);
  float out[64 * 8];
  ck_assert_uint_eq(get("out.bin", out, sizeof out), sizeof out);
  static const int width[6] = {32, 16, 8, 4, 2, 1};
  for (int t = 0; t < 64; t++) {
    for (int k = 0; k < 8; k++) {
      int w = k < 6 ? width[k] : k == 6 ? 8 : 32, s0 = t / w * w;
      double sum = 0, abs = 0, mx = in[s0], mn = in[s0];
      for (int u = s0; u < s0 + w; u++) sum += in[u], abs += fabs(in[u]), mx = fmax(mx, in[u]), mn = fmin(mn, in[u]);
      double want = k < 6 ? sum : k == 6 ? mx : mn;
      float got = out[t * 8 + k];
      ck_assert_msg(as_bits(got) == as_bits(out[s0 * 8 + k]), "thread %d, reduction %d: not its segment's bits", t, k);
      if (exact || k >= 6) ck_assert_msg(got == want, "thread %d, reduction %d: %g, want %g", t, k, (double)got, want);
      else ck_assert_msg(fabs(got - want) <= w * FLT_EPSILON * abs, "thread %d, sum of %d: %g, want %g", t, w, (double)got, want);
    }
  }
}

START_TEST(warp_reductions) {
  ck_assert_msg(built, "the harness did not build");
  float in[64];
  uint32_t x = 12345;
  for (int t = 0; t < 64; t++) {
    x = x * 1103515245u + 12345u;
    in[t] = (float)((int)(x >> 16) % 201 - 100);
  }
  reduce_check(in, true);
  for (int t = 0; t < 64; t++) {
    x = x * 1103515245u + 12345u;
    in[t] = ((float)(x >> 8) / 16777216.0f - 0.5f) * 3.0f;
  }
  reduce_check(in, false);
}
END_TEST

/* ---- ldmatrix ----------------------------------------------------------------------------
 * PTX ISA, ldmatrix .m8n8 .b16: matrix i's 8 rows are addressed by lanes 8i..8i+7 (16
 * bytes each); lane l receives in register i the elements (l / 4, 2 (l % 4)) and
 * (l / 4, 2 (l % 4) + 1) of matrix i, the first in the low half; with .trans the elements
 * (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4). */
static uint16_t tile[64 * 8];
static int32_t rows[32];

static uint16_t mat(int i, int r, int c) { return tile[rows[8 * i + r] * 8 + c]; }

static uint32_t ldm_reg(int l, int i, bool trans) {
  int a = l / 4, b = 2 * (l % 4);
  return trans ? (uint32_t)mat(i, b, a) | (uint32_t)mat(i, b + 1, a) << 16
               : (uint32_t)mat(i, a, b) | (uint32_t)mat(i, a, b + 1) << 16;
}

START_TEST(ldmatrix_registers) {
  ck_assert_msg(built, "the harness did not build");
  for (int i = 0; i < 64 * 8; i++) tile[i] = (uint16_t)(i * 77 + 5);   /* distinct */
  for (int l = 0; l < 32; l++) rows[l] = (l * 37 + 11) % 64;   /* rows anywhere in the tile */
  unsigned char in[64 * 16 + sizeof rows];
  memcpy(in, tile, sizeof tile);
  memcpy(in + sizeof tile, rows, sizeof rows);
  put("in.bin", in, sizeof in);
  ck_assert_int_eq(harness("ldmatrix"), 0);
  uint32_t out[32 * 14];
  ck_assert_uint_eq(get("out.bin", out, sizeof out), sizeof out);
  static const struct {
    int num, first;
    bool trans;
  } v[6] = {{1, 0, false}, {2, 1, false}, {4, 3, false}, {1, 7, true}, {2, 8, true}, {4, 10, true}};
  for (int l = 0; l < 32; l++)
    for (int k = 0; k < 6; k++)
      for (int i = 0; i < v[k].num; i++)
        ck_assert_msg(out[l * 14 + v[k].first + i] == ldm_reg(l, i, v[k].trans),
                      "lane %d, x%d%s register %d: 0x%08x, want 0x%08x", l, v[k].num, v[k].trans ? ".trans" : "", i,
                      out[l * 14 + v[k].first + i], ldm_reg(l, i, v[k].trans));
}
END_TEST

/* ---- mma.sync m16n8k16 ---------------------------------------------------------------- */

static double f16_value(uint16_t h) {
  int e = h >> 10 & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  return h & 0x8000 ? -v : v;
}

static double bf16_value(uint16_t b) { return as_float((uint32_t)b << 16); }

/* f16 and bf16 of small integers (|v| <= 256: exact in both) */
static uint16_t f16_int(int v) {
  if (v == 0) return 0;
  int a = abs(v), e = 0;
  while ((a >> e) >= 2) e++;
  uint16_t m = (uint16_t)(((a << 10) >> e) & 0x3ff);
  return (uint16_t)((v < 0 ? 0x8000 : 0) | (e + 15) << 10 | m);
}

static uint16_t bf16_int(int v) { return (uint16_t)(as_bits((float)v) >> 16); }

/* D = A B + C by the triple loop in double, against the emulated mma (test t). Exact inputs:
 * every product and partial sum is an integer below 2^24, so any order of the hardware's
 * gives the same f32: D must be exact. Random inputs: PTX leaves the order and intermediate
 * precision of the sum unspecified, so D may differ from the exact value by what an f32
 * sum of 17 terms can lose, 17 FLT_EPSILON times |C| + sum |a b| (the emulator itself rounds
 * once: within half an ulp). */
static void mma_check(const char *t, bool bf16, bool exact, uint32_t seed) {
  uint16_t ma[256], mb[128];
  float mc[128];
  uint32_t x = seed;
  for (int i = 0; i < 256 + 128 + 128; i++) {
    x = x * 1664525u + 1013904223u;
    double r = ((double)(x >> 8) / 16777216.0 - 0.5) * 2.0;   /* in (-1, 1) */
    if (i >= 384) {
      mc[i - 384] = exact ? (float)((int)((x >> 16) % 201) - 100) : (float)r;
      continue;
    }
    uint16_t h;
    if (exact) h = bf16 ? bf16_int((int)((x >> 20) % 17) - 8) : f16_int((int)((x >> 20) % 17) - 8);
    else if (bf16) h = (uint16_t)(as_bits((float)r) >> 16);   /* truncated: a bf16 in (-1, 1) */
    else h = (uint16_t)((x & 0x8000u) | ((x >> 4) % 15) << 10 | ((x >> 11) & 0x3ffu));   /* an f16 in (-1, 1) */
    if (i < 256) ma[i] = h;
    else mb[i - 256] = h;
  }
  unsigned char in[256 * 2 + 128 * 2 + 128 * 4];
  memcpy(in, ma, sizeof ma);
  memcpy(in + sizeof ma, mb, sizeof mb);
  memcpy(in + sizeof ma + sizeof mb, mc, sizeof mc);
  put("in.bin", in, sizeof in);
  ck_assert_int_eq(harness(t), 0);
  float md[128];
  ck_assert_uint_eq(get("out.bin", md, sizeof md), sizeof md);
  for (int m = 0; m < 16; m++)
    for (int n = 0; n < 8; n++) {
      double s = mc[m * 8 + n], abs = fabs(mc[m * 8 + n]);
      for (int k = 0; k < 16; k++) {
        double p = (bf16 ? bf16_value(ma[m * 16 + k]) * bf16_value(mb[k * 8 + n])
                         : f16_value(ma[m * 16 + k]) * f16_value(mb[k * 8 + n]));
        s += p, abs += fabs(p);
      }
      double got = md[m * 8 + n];
      if (exact) ck_assert_msg(got == s, "%s: D[%d][%d] = %g, want %g", t, m, n, got, s);
      else ck_assert_msg(fabs(got - s) <= 17 * FLT_EPSILON * abs, "%s: D[%d][%d] = %.9g, want %.9g", t, m, n, got, s);
    }
}

START_TEST(mma_products) {
  ck_assert_msg(built, "the harness did not build");
  mma_check("mma_f16", false, true, 1);
  mma_check("mma_bf16", true, true, 2);
  mma_check("mma_f16", false, false, 3);
  mma_check("mma_bf16", true, false, 4);
  /* ldmatrix feeding mma from row-major tiles: both layouts agree with the product */
  mma_check("mma_ldmatrix", false, true, 5);
  mma_check("mma_ldmatrix", false, false, 6);
}
END_TEST

/* ---- the bank counter ------------------------------------------------------------------ */

START_TEST(bank_counter) {
  ck_assert_msg(built, "the harness did not build");
  put("in.bin", "", 0);
  ck_assert_int_eq(harness("banks"), 0);
  char text[2048];
  size_t n = get("banks.txt", text, sizeof text - 1);
  text[n] = 0;
  /* name, then ldmatrix requests, wavefronts, ideal; vector requests, wavefronts, ideal;
   * partial vector accesses */
  ck_assert_msg(strstr(text, "k_bank_plain 1 32 4 0 0 0 0\n"), "%s", text);      /* 8 x the ideal */
  ck_assert_msg(strstr(text, "k_bank_padded 1 4 4 0 0 0 0\n"), "%s", text);     /* the ideal */
  ck_assert_msg(strstr(text, "k_bank_swizzled 1 4 4 0 0 0 0\n"), "%s", text);   /* the ideal */
  /* 16 bytes apart: 4 wavefronts (the ideal); 128 bytes apart: 8 per 8-lane phase, 32 */
  ck_assert_msg(strstr(text, "k_bank_vec 0 0 0 2 36 8 0\n"), "%s", text);
}
END_TEST

/* ---- misuse ------------------------------------------------------------------------------ */

START_TEST(partial_warps) {
  ck_assert_msg(built, "the harness did not build");
  static const char *const want[6] = {
      "__shfl_xor_sync (mask 0xffffffff) reached by lanes 0-15, while lane 16 has returned",
      "__shfl_xor_sync (mask 0xffffffff) reached by lanes 0-15, while lane 16 waits at __syncthreads()",
      "__shfl_xor_sync (mask 0xffffffff) reached by lanes 0-15, while lane 16 waits at __shfl_down_sync (mask 0xffffffff)",
      "__shfl_xor_sync (mask 0x0000ffff) called by lane 16, which is not in its mask",
      "__shfl_sync (mask 0xffff0000): lane 16 reads lane 3, which is not in the mask",
      "warp 1: __shfl_xor_sync (mask 0xffffffff) names lanes 16-31, which this block does not have (48 threads)"};
  put("in.bin", "", 0);
  for (int how = 0; how < 6; how++) {
    char t[16];
    snprintf(t, sizeof t, "partial%d", how);
    ck_assert_int_eq(harness(t), 8);
    const char *log = log_text();
    ck_assert_msg(strstr(log, "axle emulate: warp divergence in block (0, 0, 0) of kernel k_partial, warp "), "%s", log);
    ck_assert_msg(strstr(log, want[how]), "case %d: %s", how, log);
  }
}
END_TEST

/* Two warps, no barrier between one's writes and the other's reads, and a shuffle after:
 * the forward block (0) shows warp 0 reading warp 1's values before they are written, the
 * reverse block (1) warp 1 reading warp 0's. */
START_TEST(race_still_caught) {
  ck_assert_msg(built, "the harness did not build");
  float in[128];
  for (int t = 0; t < 128; t++) in[t] = (float)(t + 1);
  put("in.bin", in, sizeof in);
  ck_assert_int_eq(harness("race"), 0);
  float out[128];
  ck_assert_uint_eq(get("out.bin", out, sizeof out), sizeof out);
  for (int b = 0; b < 2; b++)
    for (int w = 0; w < 2; w++) {
      double right = 0;   /* the other warp's values, summed */
      for (int l = 0; l < 32; l++) right += in[b * 64 + (1 - w) * 32 + l];
      bool wrong = out[b * 64 + w * 32] != right;
      ck_assert_msg(wrong == (w == b), "block %d warp %d: %g (right: %g)", b, w, (double)out[b * 64 + w * 32], right);
    }
}
END_TEST

int main(void) {
  built = build_harness();
  if (!built && !have_cxx) return EXIT_SUCCESS;   /* no compiler: said so */
  Suite *s = suite_create("warp");
  TCase *t = tcase_create("warp");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, shuffles);
  tcase_add_test(t, warp_reductions);
  tcase_add_test(t, ldmatrix_registers);
  tcase_add_test(t, mma_products);
  tcase_add_test(t, bank_counter);
  tcase_add_test(t, partial_warps);
  tcase_add_test(t, race_still_caught);
  suite_add_tcase(s, t);
  int rc = unit_run(s);
  static const char *const files[] = {"axle_emu.h", "prelude.cuh", "warp", "in.bin", "out.bin", "banks.txt", "log"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) remove(path(files[i]));
  rmdir(dir);
  return rc;
}
