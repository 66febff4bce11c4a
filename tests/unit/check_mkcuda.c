/* check_mkcuda.c — the persistent megakernel's CUDA (mpk/mkcuda.h): the task graph's tables,
 * the order of a task's run and its release (and the mutant's), one task function per kernel,
 * and the graphs it refuses (nvcc's compile is tests/e2e/mpk_nvcc.sh, the emulator's run
 * tests/e2e/mpk_emulate.sh). */
#include "mpk/mkcuda.h"
#include "superopt/ir/mugtext.h"
#include "unit.h"

static AxMugraph *parse(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.mug", text, strlen(text));
  AxMugraph *g = ax_mugtext_parse(A, &D, src);
  ck_assert_msg(g && ax_mug_check(g, &D), "%s", unit_diagnostics());
  return g;
}

static AxMugraph *load(const char *rel) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  AxSource *src;
  ck_assert_msg(ax_source_load(A, &D, path, &src), "%s", unit_diagnostics());
  AxMugraph *g = ax_mugtext_parse(A, &D, src);
  ck_assert_msg(g && ax_mug_check(g, &D), "%s", unit_diagnostics());
  return g;
}

/* The megakernel of g, or NULL when refused; a malloc'd string. */
static char *emit_opts(const AxMugraph *g, bool early, bool early_pf) {
  AxTaskGraph tg;
  ck_assert(ax_taskgraph_build(A, g, &D, &tg));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  AxMkCudaOpts o = {.early_release = early, .early_prefetch = early_pf};
  bool ok = ax_mkcuda_emit(f, &tg, AX_CUDA_SM90, &o, &D);
  fclose(f);
  if (!ok) {
    free(buf);
    return NULL;
  }
  return buf;
}

static char *emit(const AxMugraph *g, bool early) { return emit_opts(g, early, false); }

/* Cross-task prefetch: k1's first tiles (X and W, graph inputs) are safe always, k2's (P,
 * which k1 writes) once the task's event has fired; the worker checks that with an acquire
 * load, issues the next task's copies before it runs the current one, and waits for the
 * current one's before the barrier that starts it. The mutant skips the check. */
START_TEST(splitk_prefetch) {
  AxMugraph *g = load("tests/mpk/splitk.mug");
  char *s = emit(g, false);
  ck_assert(s);
  ck_assert_msg(strstr(s, "ax_mk_pf[2][2] = {{3u, 3u}, {0u, 1u}};"), "%s", s);
  ck_assert(strstr(s, "void ax_k2_prefetch(const uint3 blockIdx, unsigned char *ax_pf, unsigned ax_pfm, "));
  ck_assert(strstr(s, "if (!(ax_pfm & 1u)) {  // not prefetched"));
  const char *chk = strstr(s, "ax_mk_load_acquire(&ax_state[1 + ne]) >= ax_mk_event_triggers[ne]");
  const char *wait = strstr(s, "ax_cp_async_wait<0>();"), *pre = strstr(s, "case 0: ax_k2_prefetch(nb, npf, npfm");
  const char *run = strstr(s, "switch (ax_mk_task[t][0])");
  ck_assert(chk && wait && pre && run && chk < wait && wait < pre && pre < run);
  /* two buffers of k1's first tiles (2048 + 4096 bytes) above k1's shared memory */
  ck_assert_msg(strstr(s, "#define AX_MK_PF_BYTES 6144"), "%s", s);
  AxTaskGraph tg;
  ck_assert(ax_taskgraph_build(A, g, &D, &tg));
  AxMkPrefetch pf;
  double safe[2], all[2];
  ck_assert(ax_mkcuda_prefetch(&tg, AX_CUDA_SM90, &pf, safe, all));
  ck_assert_int_eq(pf.tasks, 10);
  ck_assert_int_eq(pf.bytes, 6144);
  ck_assert_double_eq(safe[0], 2048 + 4096);
  ck_assert_double_eq(safe[1], 0);
  ck_assert_double_eq(all[1], 4096);
  free(s);
  s = emit_opts(g, false, true);
  ck_assert(!strstr(s, "ax_mk_load_acquire(&ax_state[1 + ne])"));
  ck_assert(strstr(s, "MUTANT"));
  free(s);
}
END_TEST

START_TEST(splitk_tables) {
  char *s = emit(load("tests/mpk/splitk.mug"), false);
  ck_assert(s);
  ck_assert_msg(strstr(s, "#define AX_MK_TASKS 10\n#define AX_MK_EVENTS 4\n"), "%s", s);
  /* the start event, the reduction's four partials per block (two events), the end */
  ck_assert_msg(strstr(s, "ax_mk_event_triggers[AX_MK_EVENTS] = {0, 4, 4, 2};"), "%s", s);
  /* task 0: kernel 0 block 0,0,0 waits for event 0, triggers one event from index 0 */
  ck_assert_msg(strstr(s, "  {0, 0, 0, 0, 0, 0, 1},\n"), "%s", s);
  /* one task function per kernel, each called from the worker's switch */
  ck_assert(strstr(s, "__device__ __forceinline__ void ax_k2_task(const uint3 blockIdx, "));
  ck_assert(strstr(s, "case 0: ax_k2_task(b, "));
  ck_assert(strstr(s, "case 1: ax_k3_task(b, "));
  ck_assert(!strstr(s, "__restrict__ p"));
  ck_assert(!strstr(s, "AX_SMEM_STATIC(ax_smem"));
  /* release after the block's stores: the run, a barrier, then the release */
  const char *run = strstr(s, "switch (ax_mk_task[t][0])"), *rel = strstr(s, "ax_mk_add_release(&ax_state");
  ck_assert(run && rel && run < rel);
  ck_assert(strstr(run, "__syncthreads();  // every thread's stores before thread 0's release") < rel);
  ck_assert(strstr(s, "extern \"C\" int axle_run_splitk(const void *const *inputs"));
  free(s);
  /* the mutant releases before the run */
  s = emit(load("tests/mpk/splitk.mug"), true);
  run = strstr(s, "switch (ax_mk_task[t][0])");
  rel = strstr(s, "ax_mk_add_release(&ax_state");
  ck_assert(run && rel && rel < run);
  ck_assert(strstr(s, "MUTANT"));
  free(s);
}
END_TEST

START_TEST(refused) {
  /* a pre-defined operator: a library kernel is not split into blocks */
  AxMugraph *g = parse("mugraph m {\n  input X : f16[4, 8]\n  Y = exp(X)\n  output Y\n}\n");
  ck_assert(!emit(g, false));
  ck_assert_msg(strstr(unit_diagnostics(), "the megakernel runs graph-defined kernels only, and 'Y' is a pre-defined operator"),
                "%s", unit_diagnostics());
  /* two block shapes */
  g = parse("mugraph m {\n  input X : f16[16, 64]\n"
            "  kernel k1 grid [2, 1, 1] block [64, 1, 1] forloop 1 {\n"
            "    x = input X imap {x: 1} fmap -\n    output Y = x omap {x: 1}\n  }\n"
            "  kernel k2 grid [2, 1, 1] block [32, 1, 1] forloop 1 {\n"
            "    y = input Y imap {x: 1} fmap -\n    output Z = y omap {x: 1}\n  }\n"
            "  output Z\n}\n");
  ck_assert(!emit(g, false));
  ck_assert_msg(strstr(unit_diagnostics(), "kernel 'k2' has block [32, 1, 1] where 'k1' has [64, 1, 1]"),
                "%s", unit_diagnostics());
}
END_TEST

int main(void) {
  Suite *s = suite_create("mkcuda");
  TCase *t = tcase_create("mkcuda");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, splitk_tables);
  tcase_add_test(t, splitk_prefetch);
  tcase_add_test(t, refused);
  suite_add_tcase(s, t);
  return unit_run(s);
}
