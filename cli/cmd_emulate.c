/* cmd_emulate.c — `axle emulate` (docs/gpu.md, "Emulator").
 *
 *   axle emulate GRAPH.mug|DIR [--seed N] [--source FILE.cu] [--tol X] [--range X]
 *                [--program PROGRAM.axl] [--keep]
 *       Compiles the μGraph's generated CUDA (or FILE.cu, e.g. one generated earlier and
 *       edited) for the CPU, runs it on random inputs (in [-X, X]) and compares every
 *       output with the float interpreter (or with the program in f64). 0 agrees, 1 differs, 2 could not compile or run it, 3 bad
 *       input (a located error). DIR (`axle superopt MODULE --output-dir DIR`) stands for
 *       DIR/module.mug.
 *   axle emulate --megakernel GRAPH.mug [--workers N] [--runs K] [--seed S] [...]
 *       Runs the graph's persistent megakernel (`axle mpk --output`, mpk/mkcuda.h) on
 *       the CPU with N worker threads under K seeded adversarial schedules (mpk/mkemu.h),
 *       each run compared with the interpreter; the same statuses. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hooks.h"
#include "base/mem.h"
#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "gpu/emulate.h"
#include "superopt/equiv/interp.h"
#include "mpk/mkemu.h"
#include "mpk/taskgraph.h"

#define USAGE                                                                          \
  "usage: axle emulate GRAPH.mug|DIR [--seed N] [--source FILE.cu] [--tol X] [--range X]\n" \
  "                    [--program PROGRAM.axl] [--keep] [--memory MB]\n" \
  "       axle emulate --megakernel GRAPH.mug|DIR [--workers N] [--runs K] [--seed N] [...]\n"

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

/* --seed: 0 to 2^64 - 1 */
static bool set_seed(void *target, const char *v) {
  char *end;
  if (!*v || *v == '-') return false;
  errno = 0;
  *(uint64_t *)target = strtoull(v, &end, 10);
  return !*end && errno != ERANGE;
}

/* --tol, --range: a positive finite number */
static bool set_tol(void *target, const char *v) {
  char *end;
  double *tol = target;
  *tol = strtod(v, &end);
  return !*end && *tol > 0 && isfinite(*tol);
}

/* Whether an emulation of g (with program prog as the reference, or NULL) fits under --memory,
 * from the shapes, before anything is allocated: the interpreter's run of the reference in
 * doubles, and the compiled program's own buffers (every kernel tensor, counted at 4 bytes an
 * element: it is a process of its own, which the budget cannot follow). Reported when not. */
static bool fits(const AxMugraph *g, const AxMugraph *prog) {
  int64_t ref = ax_interp_bytes(prog ? prog : g, sizeof(double)), run = ax_interp_bytes(g, sizeof(float));
  int64_t need = ref > INT64_MAX - run ? INT64_MAX : ref + run;
  if (ax_mem_fits((uint64_t)need)) return true;
  fprintf(stderr,
          "axle: error: emulate: running mugraph '%.64s' needs about %lld MB, more than the --memory limit of %lld MB\n",
          g->name, (long long)(need >> 20) + 1, ax_opts_memory_mb());
  return false;
}

int ax_cmd_emulate(int argc, char **argv) {
  AxEmuOpts o = {.seed = 1, .out = stdout, .workers = 0, .runs = 0};
  bool mk = false;
  const char *prog_path = NULL;
  int first = 1;
  ax_opts_memory_default();
  const AxOpt opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--seed", .meta = "N", .help = "seed of the random inputs (default 1)",
       .kind = AX_OPT_FN, .fn = set_seed, .target = &o.seed,
       .err = "--seed takes an integer from 0 to 2^64 - 1"},
      {.name = "--source", .meta = "FILE.cu",
       .help = "run this CUDA source instead of the graph's generated one",
       .kind = AX_OPT_STR, .target = &o.source},
      {.name = "--tol", .meta = "X", .help = "tolerance of the relative error (default by dtype:\nf16 1e-2, bf16 4e-2, f32 1e-4)",
       .kind = AX_OPT_FN, .fn = set_tol, .target = &o.tol,
       .err = "--tol takes a positive finite number"},
      {.name = "--range", .meta = "X", .help = "inputs uniform in [-X, X] (default 0.5)",
       .kind = AX_OPT_FN, .fn = set_tol, .target = &o.range,
       .err = "--range takes a positive finite number"},
      {.name = "--program", .meta = "PROGRAM.axl",
       .help = "compare with this program in f64 (inputs and outputs\npaired by name) instead of the graph with storage rounding",
       .kind = AX_OPT_STR, .target = &prog_path},
      {.name = "--keep", .help = "keep the temporary directory (its path is printed)",
       .kind = AX_OPT_FLAG, .target = &o.keep},
      {.name = "--megakernel",
       .help = "run the task graph as one persistent kernel on worker threads\nunder seeded adversarial schedules (docs/mpk.md)",
       .kind = AX_OPT_FLAG, .target = &mk},
      {.name = "--workers", .meta = "N", .help = "--megakernel: worker threads, 1 to 256 (default 4)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 256, .target = &o.workers,
       .err = "--workers is a whole number from 1 to 256"},
      {.name = "--runs", .meta = "K", .help = "--megakernel: schedules, seeds N to N + K - 1 (default 1)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 100000, .target = &o.runs,
       .err = "--runs is a whole number from 1 to 100000"},
  };
  const AxOptTable t = {
      .usage = USAGE,
      .about = "Runs the graph's generated CUDA on the CPU against the float interpreter.\n"
               "DIR (axle superopt --output-dir DIR) stands for DIR/module.mug.\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "unknown option",
      .missing = "option needs a value"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (argc - first > 1) return usage("too many arguments");
  const char *in = first < argc ? argv[first] : NULL;
  if (!in) return usage("emulate needs a .mug file");
  if (!mk && (o.workers || o.runs)) return usage("--workers and --runs need --megakernel");
  if (mk && prog_path) return usage("--program does not go with --megakernel");
  if (!o.workers) o.workers = 4;
  if (!o.runs) o.runs = 1;
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  in = ax_files_graph_path(a, in);
  AxMugraph *g = ax_files_load_mug(a, &d, in);
  AxTaskGraph tg;
  const AxMugraph *prog = NULL;
  if (g && (!prog_path || ((prog = ax_files_load_program(a, &d, prog_path, NULL)) &&
                           ax_emu_pair_check(g, prog, &d))) &&
      fits(g, prog)) {
    o.program = prog;
    if (!mk) status = ax_emu_run(g, &d, &o);
    else if (ax_taskgraph_build(a, g, &d, &tg)) {
      /* the oracle's own test: a runtime with one dependency missing must be caught */
      char what[160];
      if (ax_test_hook("AXLE_TEST_MPK_DROP_EDGE") && ax_mkemu_drop_edge(&tg, what, sizeof what))
        printf("emulate: test hook: dropped %s\n", what);
      /* ... and one that releases an event before the task's stores */
      AxMkCudaOpts mo = {.early_release = ax_test_hook("AXLE_TEST_MPK_EARLY_RELEASE") != NULL};
      if (mo.early_release) printf("emulate: test hook: every task releases its events before its stores\n");
      /* ... and one that prefetches a produced tile before its producers have written it */
      mo.early_prefetch = ax_test_hook("AXLE_TEST_MPK_EARLY_PREFETCH") != NULL;
      if (mo.early_prefetch)
        printf("emulate: test hook: every task's first tiles are prefetched before its event fires\n");
      status = ax_mkemu_run(&tg, &d, &o, &mo);
    }
  }
  ax_arena_free(a);
  return status;
}
