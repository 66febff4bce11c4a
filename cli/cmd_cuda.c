/* cmd_cuda.c — `axle cuda` (docs/gpu.md).
 *
 *   axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]
 *       Writes the CUDA source of the μGraph and the C header of its host entry (default:
 *       FILE.cu with its extension replaced by .h). 0 written, 3 bad input: a located
 *       error in the graph, or a graph the target cannot run (shared memory, grid). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "gpu/cuda.h"
#include "superopt/mugtext.h"

static int usage(const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fprintf(stderr, "usage: axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]\n");
  return 3;
}

/* FILE.cu -> FILE.h (any extension replaced; none: .h appended), allocated in a. */
static const char *header_path(AxArena *a, const char *cu) {
  const char *slash = strrchr(cu, '/'), *dot = strrchr(cu, '.');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - cu) : strlen(cu);
  return ax_arena_printf(a, "%.*s.h", (int)n, cu);
}

int ax_cmd_cuda(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *hdr = NULL;
  AxCudaTarget target = AX_CUDA_SM90;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--help") == 0) {
      printf("usage: axle cuda GRAPH.mug --output FILE.cu [--target sm_90|sm_80] [--header FILE.h]\n");
      return 0;
    }
    if (s[0] == '-' && s[1] == '-') {
      if (!v) return usage("option needs a value");
      i++;
      if (strcmp(s, "--output") == 0) out = v;
      else if (strcmp(s, "--header") == 0) hdr = v;
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
  if (g && ax_mug_check(g, &d)) {
    if (!hdr) hdr = header_path(a, out);
    FILE *f = fopen(out, "w");
    if (!f) {
      fprintf(stderr, "axle: error: cannot write '%s'\n", out);
    } else {
      bool ok = ax_cuda_emit(f, g, target, &d);
      ok = fclose(f) == 0 && ok;
      FILE *h = ok ? fopen(hdr, "w") : NULL;
      if (h) {
        ax_cuda_emit_header(h, g);
        if (fclose(h) == 0) status = 0;
      } else if (ok) {
        fprintf(stderr, "axle: error: cannot write '%s'\n", hdr);
      }
      if (status != 0) remove(out);
    }
  }
  ax_arena_free(a);
  return status;
}
