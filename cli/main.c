/* main.c — the axle binary: dispatches to one sub-command (cli/commands.h).
 *
 * Whatever a command printed to standard output is checked here once it returns
 * (cli/out.h): a write that failed turns any status into 3. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/out.h"
#include "egraph/ilp.h"
#include "run/mpi.h"

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} commands[] = {
    {.name = "check", .run = ax_cmd_check,
     .help = "parse and check rule files (FILE|DIR...)"},
    {.name = "fmt", .run = ax_cmd_fmt,
     .help = "print files in canonical form (FILE...; --check, --write)"},
    {.name = "verify", .run = ax_cmd_verify,
     .help = "prove every rule for all ranks and sizes (FILE|DIR...)"},
    {.name = "gate", .run = ax_cmd_gate,
     .help = "verify for CI: one summary line, JUnit XML (FILE|DIR...)"},
    {.name = "brute", .run = ax_cmd_brute,
     .help = "search small concrete instances for a counterexample (FILE|DIR...)"},
    {.name = "equiv", .run = ax_cmd_equiv,
     .help = "probabilistic equivalence of a program and a uGraph"},
    {.name = "mugraph", .run = ax_cmd_mugraph,
     .help = "uGraph tools: check, fmt, dot"},
    {.name = "cost", .run = ax_cmd_cost,
     .help = "modelled GPU time of a uGraph, per kernel"},
    {.name = "superopt", .run = ax_cmd_superopt,
     .help = "search for a fused uGraph equivalent to a program"},
    {.name = "cuda", .run = ax_cmd_cuda,
     .help = "CUDA source and C header of a uGraph's kernels"},
    {.name = "emulate", .run = ax_cmd_emulate,
     .help = "run a uGraph's generated CUDA on the CPU vs the interpreter"},
    {.name = "import", .run = ax_cmd_import, .help = "an XLA HLO text module as a tensor program"},
    {.name = "mpk", .run = ax_cmd_mpk,
     .help = "a uGraph as a megakernel's task graph; its modelled schedule"},
    {.name = "optimize", .run = ax_cmd_optimize,
     .help = "rewrite a program with proved rules (equality saturation)"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: axle <command> [options] [args]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(out, "\n'axle <command> --help' describes a command; docs/cli.md has the whole contract.\n");
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 3;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("axle %s\nmpi: %s\nilp: %s\n", AXLE_VERSION, ax_mpi_built() ? "yes" : "no", ax_eg_ilp_built() ? "yes" : "no");
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "axle: error: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 3;
}

int main(int argc, char **argv) {
  ax_out_start();
  return ax_out_finish(dispatch(argc, argv));
}
