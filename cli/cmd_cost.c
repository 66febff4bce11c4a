/* cmd_cost.c — `axle cost`: the modelled GPU time of a μGraph (superopt/cost/cost.h), or
 * the physical limit of a program (superopt/cost/limit.h).
 *
 *   axle cost (GRAPH.mug | PROGRAM.axl|MODULE.hlo [--program NAME]) [--target h200|h100|a100]
 *             [--limit] [--format text|json] [--stages N]
 *       0 printed, 3 bad input (located error) or bad usage (--limit of a graph with a
 *       graph-defined kernel among them). A program is costed as its naive μGraph: one
 *       kernel per operator. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "superopt/cost/cost.h"
#include "superopt/cost/limit.h"
#include "dsl/parse.h"
#include "superopt/ir/mugtext.h"
#include "superopt/ir/program.h"

#define USAGE                                                                                      \
  "usage: axle cost (GRAPH.mug | PROGRAM.axl|MODULE.hlo [--program NAME]) [--target " AX_COST_TARGETS "]\n" \
  "                 [--limit] [--format text|json] [--stages N] [--memory MB]\n"

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

/* --target: the cost model of a GPU */
static bool set_target(void *target, const char *v) {
  return (*(const AxTarget **)target = ax_cost_target(v)) != NULL;
}

int ax_cmd_cost(int argc, char **argv) {
  const char *prog = NULL;
  const AxTarget *t = ax_cost_target(AX_COST_DEFAULT);
  int json = 0, first = 1, stages = 4;
  bool limit = false;
  static const char *const formats[] = {"text", "json", NULL};
  ax_opts_memory_default();
  const AxOpt opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--program", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog},
      {.name = "--target", .meta = AX_COST_TARGETS, .help = "the GPU modelled (default " AX_COST_DEFAULT ")",
       .kind = AX_OPT_FN, .fn = set_target, .target = &t, .err = "--target is " AX_COST_TARGETS_SAID},
      {.name = "--limit", .help = "print the program's physical limit on the target (bytes moved\n"
       "once, FLOP, their times, the launch floor) instead of the modelled time",
       .kind = AX_OPT_FLAG, .target = &limit},
      {.name = "--format", .meta = "text|json", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &json, .err = "--format is text or json"},
      {.name = "--stages", .meta = "N", .help = "price a loop's cp.async ring with at most N stages (1 to 4;\n"
       "default 4, as axle cuda chooses; 1: as axle cuda --single-buffer)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 4, .target = &stages, .err = "--stages is 1, 2, 3 or 4"},
  };
  const AxOptTable table = {
      .usage = USAGE,
      .about = "Prints the modelled (not measured) time of every kernel and of the graph, or with\n"
               "--limit the program's physical limit.\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "unknown option",
      .missing = "option needs a value"};
  int parsed = ax_opts_run(&table, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (first == argc) return usage("cost needs a .mug file");
  if (argc - first > 1) return usage("too many arguments");
  const char *file = argv[first];
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  AxMugraph *g = ax_files_is_program(file) ? ax_files_load_program(a, &d, file, prog)
                                            : ax_files_load_mug(a, &d, file);
  if (g && limit) {
    AxLimit l;
    if (!ax_limit_compute(g, t, &l)) {
      fprintf(stderr, "axle: error: cost: %s: --limit needs a program (.axl or .hlo): the work of a "
                      "graph-defined kernel is the graph's, not the program's least\n", file);
    } else {
      if (json) ax_limit_print_json(stdout, g, &l);
      else ax_limit_print_text(stdout, g, &l);
      status = 0;
    }
  } else if (g) {
    AxCost c;
    AxTarget tt = *t;   /* the target's constants, with the ring's stages capped */
    tt.ring_stages = stages;
    ax_cost_run(a, g, &tt, &c);
    if (json) ax_cost_print_json(stdout, g, &c);
    else ax_cost_print_text(stdout, g, &c);
    status = 0;
  }
  ax_arena_free(a);
  return status;
}
