/* cmd_mpk.c — `axle mpk`: a μGraph as an SM-level task graph for a persistent megakernel
 * (mpk/taskgraph.h), printed or simulated (mpk/sim.h).
 *
 *   axle mpk INPUT --task-graph [--format text|json|dot]
 *   axle mpk INPUT --simulate [--target h200|h100|a100] [--workers N] [--format text|json]
 *   axle mpk INPUT --output MK.cu [--target h200|h100|a100]
 *       INPUT is a .mug file or a directory that `axle superopt MODULE --output-dir DIR`
 *       wrote (its joined module.mug); --layers N stacks N copies of it as decoder layers
 *       (mpk/stack.h); --graph TASKS.dot also writes the task graph as DOT.
 *       0 printed or written, 3 bad input (located error), bad usage or a file that cannot
 *       be written. The task graph is checked against the μGraph before anything is printed
 *       or written (a failure is an internal error). --output writes the persistent CUDA
 *       megakernel (mpk/mkcuda.h) for the target's architecture (h200 and h100 sm_90, a100 sm_80). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "mpk/mkcuda.h"
#include "mpk/sim.h"
#include "mpk/stack.h"
#include "mpk/taskgraph.h"
#include "mpk/tgprint.h"

#define USAGE                                                                                      \
  "usage: axle mpk INPUT --task-graph [--format text|json|dot]\n"                             \
  "       axle mpk INPUT --simulate [--target " AX_COST_TARGETS "] [--workers N] [--format text|json]\n" \
  "       axle mpk INPUT --output MK.cu [--target " AX_COST_TARGETS "]\n"                                \
  "       (INPUT: GRAPH.mug or a module DIR of axle superopt; [--layers N] [--graph TASKS.dot])\n"

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

/* --target: the cost model of a GPU */
static bool set_target(void *target, const char *v) {
  return (*(const AxTarget **)target = ax_cost_target(v)) != NULL;
}

/* The task graph as DOT into path; false after reporting. */
static bool write_dot(const char *path, const AxTaskGraph *tg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  AX_ASSERT(f);
  ax_tgprint_dot(f, tg);
  AX_ASSERT(fclose(f) == 0);
  bool ok = ax_out_replace(path, buf, len);
  free(buf);
  return ok;
}

int ax_cmd_mpk(int argc, char **argv) {
  const AxTarget *t = ax_cost_target(AX_COST_DEFAULT);
  bool graph = false, simulate = false;
  const char *output = NULL, *dot = NULL;
  int format = 0, workers = 0, layers = 1, first = 1;
  static const char *const formats[] = {"text", "json", "dot", NULL};
  const AxOpt opts[] = {
      {.name = "--task-graph", .help = "print the task graph: tasks, events, kernels",
       .kind = AX_OPT_FLAG, .target = &graph},
      {.name = "--simulate", .help = "print the modelled megakernel, per-kernel and bound times",
       .kind = AX_OPT_FLAG, .target = &simulate},
      {.name = "--output", .meta = "MK.cu",
       .help = "write the graph as one persistent CUDA megakernel (sm_90 for h200 and h100,\nsm_80 for a100)",
       .kind = AX_OPT_STR, .target = &output},
      {.name = "--target", .meta = AX_COST_TARGETS, .help = "the GPU modelled (default " AX_COST_DEFAULT ")",
       .kind = AX_OPT_FN, .fn = set_target, .target = &t, .err = "--target is " AX_COST_TARGETS_SAID},
      {.name = "--workers", .meta = "N", .help = "workers, 1 to 4096 (default the target's SMs)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 4096, .target = &workers,
       .err = "--workers is a whole number from 1 to 4096"},
      {.name = "--layers", .meta = "N",
       .help = "stack N copies of the graph as decoder layers, each layer's output\nfeeding "
               "the next layer's first input (default 1)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 256, .target = &layers,
       .err = "--layers is a whole number from 1 to 256"},
      {.name = "--graph", .meta = "TASKS.dot",
       .help = "also write the task graph as DOT (tasks grouped by kernel)",
       .kind = AX_OPT_STR, .target = &dot},
      {.name = "--format", .meta = "text|json|dot",
       .help = "report format (default text; dot only with --task-graph)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &format,
       .err = "--format is text, json or dot"},
  };
  const AxOptTable table = {
      .usage = USAGE,
      .about = "Builds the SM-level task graph of a μGraph (every block of every kernel a task,\n"
               "events from the tiles it reads) and prints it, or simulates it as one persistent\n"
               "megakernel against one launch per kernel and the memory bound (all modelled),\n"
               "or writes it as one persistent CUDA kernel.\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "unknown option",
      .missing = "option needs a value"};
  int parsed = ax_opts_run(&table, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (first == argc) return usage("mpk needs a .mug file or a directory");
  if (argc - first > 1) return usage("too many arguments");
  if (graph + simulate + (output != NULL) != 1)
    return usage("mpk needs one of --task-graph, --simulate and --output");
  if (simulate && format == 2) return usage("--simulate prints text or json");
  if (output && format != 0) return usage("--output takes no --format");
  const char *file = argv[first];
  if (ax_files_is_program(file))
    return usage("mpk reads a μGraph (.mug), not a program");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  struct stat st;
  if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
    /* a module's directory: its regions are already joined, in dataflow order, into
     * module.mug (validated before it was written), so the task graph is built from that */
    file = ax_arena_printf(a, "%s/module.mug", file);
    if (stat(file, &st) != 0) {
      ax_diag_error(&d, (AxSpan){0},
                    "cannot read '%s': no module.mug in this directory (axle superopt MODULE "
                    "--output-dir DIR writes one)",
                    argv[first]);
      ax_arena_free(a);
      return 3;
    }
  }
  AxMugraph *g = ax_files_load_mug(a, &d, file);
  if (g && layers > 1) g = ax_stack_build(a, g, layers, &d);
  AxTaskGraph tg;
  if (g && ax_taskgraph_build(a, g, &d, &tg)) {
    char msg[512];
    if (!ax_taskgraph_check(&tg, msg, sizeof msg)) {
      fprintf(stderr, "axle: internal error: the task graph of %s fails its check: %s\n", file, msg);
    } else if (dot && !write_dot(dot, &tg)) {
      /* reported by ax_out_replace */
    } else if (output) {
      char *buf = NULL;
      size_t len = 0;
      FILE *f = open_memstream(&buf, &len);
      AX_ASSERT(f);
      bool ok = ax_mkcuda_emit(f, &tg, strcmp(t->name, "a100") == 0 ? AX_CUDA_SM80 : AX_CUDA_SM90, NULL, &d);
      AX_ASSERT(fclose(f) == 0);
      if (ok && ax_out_replace(output, buf, len)) status = 0;
      free(buf);
    } else if (graph) {
      if (format == 0) ax_tgprint_text(stdout, &tg);
      else if (format == 1) ax_tgprint_json(stdout, &tg);
      else ax_tgprint_dot(stdout, &tg);
      status = 0;
    } else {
      AxSim s;
      ax_sim_run(a, &tg, t, workers ? workers : t->sms, &s);
      if (format == 1) ax_sim_print_json(stdout, &tg, &s);
      else ax_sim_print_text(stdout, &tg, &s);
      status = 0;
    }
  }
  ax_arena_free(a);
  return status;
}
