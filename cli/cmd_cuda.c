/* cmd_cuda.c — `axle cuda` (docs/gpu.md).
 *
 *   axle cuda (GRAPH.mug | DIR | PROGRAM.axl|MODULE.hlo) --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]
 *             [--program PROGRAM.axl [--program-name NAME]] [--single-buffer]
 *       Writes the CUDA source of the μGraph and the C header of its host entry (default:
 *       FILE.cu with its extension replaced by .h). DIR, the --output-dir of `axle superopt
 *       MODULE --output-dir DIR`, stands for DIR/module.mug: the whole module's regions in
 *       one file, one host entry that runs them in order. A program given in place of the graph
 *       is lowered to its naive μGraph, one pre-defined kernel per operator (as `axle cost`
 *       costs it): the baseline the found graphs are timed against. With --program also the benchmark
 *       manifest FILE.json for gpu/bench/bench.py. --single-buffer: no cp.async double
 *       buffering (docs/gpu.md), to time both on a GPU. 0 written, 3 bad input: a located error
 *       in the graph or the program, a graph the target cannot run (shared memory, grid),
 *       or inputs and outputs that do not pair by name; 3 also when a file cannot be
 *       written ("axle: error: cannot write FILE: REASON", cli/out.h), which then leaves no
 *       partial file. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "gpu/cuda.h"

#define USAGE                                                                                      \
  "usage: axle cuda (GRAPH.mug | DIR | PROGRAM.axl|MODULE.hlo) --output FILE.cu\n"                 \
  "                 [--target sm_90|sm_80]\n"                                                     \
  "                 [--header FILE.h] [--program PROGRAM.axl [--program-name NAME]]\n"             \
  "                 [--single-buffer] [--memory MB]\n"

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

/* --target: a GPU architecture */
static bool set_target(void *target, const char *v) { return ax_cuda_target_lookup(v, target); }

/* FILE.cu -> FILE<ext>, allocated in a. */
static const char *beside(AxArena *a, const char *cu, const char *ext) {
  const char *slash = strrchr(cu, '/'), *dot = strrchr(cu, '.');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - cu) : strlen(cu);
  return ax_arena_printf(a, "%.*s%s", (int)n, cu, ext);
}

int ax_cmd_cuda(int argc, char **argv) {
  const char *out = NULL, *hdr = NULL, *prog_path = NULL, *prog_name = NULL;
  AxCudaTarget target = AX_CUDA_SM90;
  AxCudaOpts opts = {0};
  int first = 1;
  ax_opts_memory_default();
  const AxOpt table_opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--output", .meta = "FILE.cu", .help = "the CUDA source to write",
       .kind = AX_OPT_STR, .target = &out},
      {.name = "--target", .meta = "sm_90|sm_80", .help = "the GPU architecture (default sm_90)",
       .kind = AX_OPT_FN, .fn = set_target, .target = &target, .err = "--target takes sm_90 or sm_80"},
      {.name = "--header", .meta = "FILE.h",
       .help = "the C header of the host entry (default: FILE.cu with .h)",
       .kind = AX_OPT_STR, .target = &hdr},
      {.name = "--program", .meta = "PROGRAM.axl",
       .help = "also write the benchmark manifest FILE.json, with this\nprogram as the reference",
       .kind = AX_OPT_STR, .target = &prog_path},
      {.name = "--program-name", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog_name},
      {.name = "--single-buffer", .help = "no cp.async ring (one buffer per tile)",
       .kind = AX_OPT_FLAG, .target = &opts.single_buffer},
  };
  const AxOptTable table = {
      .usage = USAGE,
      .about = "A program in place of the graph is lowered to one kernel per operator.\n"
               "DIR (axle superopt --output-dir DIR) stands for DIR/module.mug: every region\n"
               "of the module, one host entry that runs them in order.\n",
      .opts = table_opts, .n = AX_COUNTOF(table_opts), .unknown = "unknown option",
      .missing = "option needs a value"};
  int parsed = ax_opts_run(&table, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (argc - first > 1) return usage("too many arguments");
  const char *in = first < argc ? argv[first] : NULL;
  if (!in) return usage("cuda needs a .mug file or a .axl program");
  if (!out) return usage("cuda needs --output FILE.cu");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  in = ax_files_graph_path(a, in);   /* DIR: a superoptimized module's graph */
  AxMugraph *g = ax_files_is_program(in) ? ax_files_load_program(a, &d, in, prog_name)   /* its naive μGraph */
                                         : ax_files_load_mug(a, &d, in);
  AxMugraph *prog = NULL;
  if (g && (!prog_path || (prog = ax_files_load_program(a, &d, prog_path, prog_name)))) {
    if (!hdr) hdr = beside(a, out, ".h");
    const char *man = prog ? beside(a, out, ".json") : NULL;
    /* Every file goes through cli/out.h: written under a temporary name beside it and
     * renamed into place only when every byte is out, so a full disk, an unwritable
     * directory or a graph the target cannot run leaves no partial file (an existing one
     * stays as it was). All are written and flushed before any is renamed, so a failed
     * write leaves none of them new; the .cu is renamed last. */
    const char *paths[3] = {hdr, man, out};
    AxOut o[3];
    memset(o, 0, sizeof o);
    bool ok = true;
    for (int w = 0; w < 3 && ok; w++) {
      if (!paths[w]) continue;
      if (!ax_out_open(&o[w], paths[w])) {
        ok = false;
        break;
      }
      if (w == 0) ax_cuda_emit_header(o[w].f, g);
      else if (w == 1) ok = ax_cuda_emit_manifest(o[w].f, g, prog, target, &d);
      else ok = ax_cuda_emit_opts(o[w].f, g, target, &opts, &d);
    }
    for (int w = 0; w < 3 && ok; w++)   /* a failed flush: commit reports it and fails */
      if (paths[w] && (fflush(o[w].f) != 0 || ferror(o[w].f))) ok = ax_out_commit(&o[w]);
    for (int w = 0; w < 3 && ok; w++)
      if (paths[w] && !ax_out_commit(&o[w])) ok = false;
    for (int w = 0; w < 3; w++) ax_out_abandon(&o[w]);   /* an empty (committed) one is fine */
    if (ok) status = 0;
  }
  ax_arena_free(a);
  return status;
}
