/* cmd_cuda.c — `axle cuda` (docs/gpu.md).
 *
 *   axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]
 *             [--program PROGRAM.axl [--program-name NAME]]
 *       Writes the CUDA source of the μGraph and the C header of its host entry (default:
 *       FILE.cu with its extension replaced by .h); with --program also the benchmark
 *       manifest FILE.json for gpu/bench/bench.py. 0 written, 3 bad input: a located error
 *       in the graph or the program, a graph the target cannot run (shared memory, grid),
 *       or inputs and outputs that do not pair by name. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "dsl/parse.h"
#include "gpu/cuda.h"
#include "superopt/mugtext.h"
#include "superopt/program.h"

static int usage(const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fprintf(stderr, "usage: axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]\n"
                  "                 [--program PROGRAM.axl [--program-name NAME]]\n");
  return 3;
}

/* Removes a file this command wrote, unless it is no regular file (/dev/null, /dev/full). */
static void discard(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) remove(path);
}

/* FILE.cu -> FILE<ext>, allocated in a. */
static const char *beside(AxArena *a, const char *cu, const char *ext) {
  const char *slash = strrchr(cu, '/'), *dot = strrchr(cu, '.');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - cu) : strlen(cu);
  return ax_arena_printf(a, "%.*s%s", (int)n, cu, ext);
}

int ax_cmd_cuda(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *hdr = NULL, *prog_path = NULL, *prog_name = NULL;
  AxCudaTarget target = AX_CUDA_SM90;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--help") == 0) {
      printf("usage: axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]\n"
             "                 [--program PROGRAM.axl [--program-name NAME]]\n");
      return 0;
    }
    if (s[0] == '-' && s[1] == '-') {
      if (!v) return usage("option needs a value");
      i++;
      if (strcmp(s, "--output") == 0) out = v;
      else if (strcmp(s, "--header") == 0) hdr = v;
      else if (strcmp(s, "--program") == 0) prog_path = v;
      else if (strcmp(s, "--program-name") == 0) prog_name = v;
      else if (strcmp(s, "--target") == 0) {
        if (!ax_cuda_target_lookup(v, &target)) return usage("--target takes sm_90 or sm_80");
      } else return usage("unknown option");
    } else if (!in) {
      in = s;
    } else {
      return usage("too many arguments");
    }
  }
  if (!in) return usage("cuda needs a .mug file");
  if (!out) return usage("cuda needs --output FILE.cu");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  AxSource *src;
  AxMugraph *g = ax_source_load(a, &d, in, &src) ? ax_mugtext_parse(a, &d, src) : NULL;
  AxMugraph *prog = NULL;
  if (g && ax_mug_check(g, &d) && (!prog_path || (prog = ax_files_load_program(a, &d, prog_path, prog_name)))) {
    if (!hdr) hdr = beside(a, out, ".h");
    const char *man = prog ? beside(a, out, ".json") : NULL;
    /* every file written is discarded again when the command fails, so that a failed
     * run leaves no half-written .cu beside an old header */
    const char *paths[3] = {out, hdr, man};
    bool opened[3] = {false, false, false}, ok = true;
    for (int w = 0; w < 3 && ok; w++) {
      if (!paths[w]) continue;
      FILE *f = fopen(paths[w], "w");
      if (!f) {
        fprintf(stderr, "axle: error: cannot write '%s'\n", paths[w]);
        ok = false;
        break;
      }
      opened[w] = true;
      if (w == 0) ok = ax_cuda_emit(f, g, target, &d);
      else if (w == 1) ax_cuda_emit_header(f, g);
      else ok = ax_cuda_emit_manifest(f, g, prog, target, &d);
      if (fclose(f) != 0 && ok) {
        fprintf(stderr, "axle: error: cannot write '%s'\n", paths[w]);
        ok = false;
      }
    }
    if (ok) status = 0;
    else
      for (int w = 0; w < 3; w++)
        if (opened[w]) discard(paths[w]);
  }
  ax_arena_free(a);
  return status;
}
