/* cmd_emulate.c — `axle emulate` (docs/gpu.md, "Emulator").
 *
 *   axle emulate GRAPH.mug [--seed N] [--source FILE.cu] [--tol X] [--keep]
 *       Compiles the μGraph's generated CUDA (or FILE.cu, e.g. one generated earlier and
 *       edited) for the CPU, runs it on random inputs and compares every output with the
 *       float interpreter. 0 agrees, 1 differs, 2 could not compile or run it, 3 bad
 *       input (a located error). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "gpu/emulate.h"
#include "superopt/ir/mugtext.h"

static int usage(const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fprintf(stderr, "usage: axle emulate GRAPH.mug [--seed N] [--source FILE.cu] [--tol X] [--keep]\n");
  return 3;
}

int ax_cmd_emulate(int argc, char **argv) {
  AxEmuOpts o = {.seed = 1, .out = stdout};
  const char *in = NULL;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      printf("usage: axle emulate GRAPH.mug [--seed N] [--source FILE.cu] [--tol X] [--keep]\n");
      return 0;
    }
    if (strcmp(s, "--keep") == 0) {
      o.keep = true;
    } else if (s[0] == '-' && s[1] == '-') {
      if (!v) return usage("option needs a value");
      i++;
      char *end;
      if (strcmp(s, "--seed") == 0) {
        if (!*v || *v == '-') return usage("--seed takes an integer from 0 to 2^64 - 1");
        errno = 0;
        o.seed = strtoull(v, &end, 10);
        if (*end || errno == ERANGE) return usage("--seed takes an integer from 0 to 2^64 - 1");
      } else if (strcmp(s, "--source") == 0) {
        o.source = v;
      } else if (strcmp(s, "--tol") == 0) {
        o.tol = strtod(v, &end);
        if (*end || !(o.tol > 0) || !isfinite(o.tol)) return usage("--tol takes a positive finite number");
      } else {
        return usage("unknown option");
      }
    } else if (!in) {
      in = s;
    } else {
      return usage("too many arguments");
    }
  }
  if (!in) return usage("emulate needs a .mug file");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  AxSource *src;
  AxMugraph *g = ax_source_load(a, &d, in, &src) ? ax_mugtext_parse(a, &d, src) : NULL;
  if (g && ax_mug_check(g, &d)) status = ax_emu_run(g, &d, &o);
  ax_arena_free(a);
  return status;
}
