/* cmd_cost.c — `axle cost`: the modelled GPU time of a μGraph (superopt/cost/cost.h).
 *
 *   axle cost (GRAPH.mug | PROGRAM.axl [--program NAME]) [--target h100|a100]
 *             [--format text|json]
 *       0 printed, 3 bad input (located error) or bad usage. A program is costed as its
 *       naive μGraph: one kernel per operator. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "superopt/cost/cost.h"
#include "dsl/parse.h"
#include "superopt/ir/mugtext.h"
#include "superopt/ir/program.h"

static int usage(const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fprintf(stderr, "usage: axle cost (GRAPH.mug | PROGRAM.axl [--program NAME]) [--target h100|a100]\n"
          "                 [--format text|json]\n");
  return 3;
}

int ax_cmd_cost(int argc, char **argv) {
  const char *file = NULL, *target = "h100", *format = "text", *prog = NULL;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      printf("usage: axle cost (GRAPH.mug | PROGRAM.axl [--program NAME]) [--target h100|a100]\n"
             "                 [--format text|json]\n"
             "Prints the modelled (not measured) time of every kernel and of the graph.\n");
      return 0;
    }
    if (s[0] == '-' && s[1] == '-') {
      if (i + 1 >= argc) return usage("option needs a value");
      const char *v = argv[++i];
      if (strcmp(s, "--target") == 0) target = v;
      else if (strcmp(s, "--format") == 0) format = v;
      else if (strcmp(s, "--program") == 0) prog = v;
      else return usage("unknown option");
    } else if (!file) {
      file = s;
    } else {
      return usage("too many arguments");
    }
  }
  if (!file) return usage("cost needs a .mug file");
  const AxTarget *t = ax_cost_target(target);
  if (!t) return usage("--target is h100 or a100");
  if (strcmp(format, "text") && strcmp(format, "json")) return usage("--format is text or json");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  AxSource *src;
  size_t fl = strlen(file);
  bool is_prog = fl > 4 && strcmp(file + fl - 4, ".axl") == 0;
  AxMugraph *g = NULL;
  if (ax_source_load(a, &d, file, &src)) {
    if (is_prog) {
      AxFile *f = ax_parse(a, &d, src);
      const AxBlock *b = d.errors ? NULL : ax_prog_find(f, prog, &d);
      g = b ? ax_prog_lower(a, &d, b) : NULL;
    } else {
      g = ax_mugtext_parse(a, &d, src);
    }
  }
  if (g && ax_mug_check(g, &d)) {
    AxCost c;
    ax_cost_run(a, g, t, &c);
    if (strcmp(format, "json") == 0) ax_cost_print_json(stdout, g, &c);
    else ax_cost_print_text(stdout, g, &c);
    status = 0;
  }
  ax_arena_free(a);
  return status;
}
