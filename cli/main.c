/* main.c — the axle binary: dispatches to one sub-command (cli/commands.h).
 *
 * Whatever a command printed to standard output is checked here once it returns
 * (cli/out.h): a write that failed turns any status into 3. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/out.h"

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} commands[] = {
    {"check", ax_cmd_check, "parse and check rule files (FILE|DIR...)"},
    {"fmt", ax_cmd_fmt, "print files in canonical form (FILE...; --check, --write)"},
    {"verify", ax_cmd_verify, "prove every rule for all ranks and sizes (FILE|DIR...)"},
    {"gate", ax_cmd_gate, "verify for CI: one summary line, JUnit XML (FILE|DIR...)"},
    {"equiv", ax_cmd_equiv, "probabilistic equivalence of a program and a uGraph"},
    {"mugraph", ax_cmd_mugraph, "uGraph tools: check, fmt, dot"},
    {"cost", ax_cmd_cost, "modelled GPU time of a uGraph, per kernel"},
    {"superopt", ax_cmd_superopt, "search for a fused uGraph equivalent to a program"},
    {"cuda", ax_cmd_cuda, "CUDA source and C header of a uGraph's kernels"},
    {"emulate", ax_cmd_emulate, "run a uGraph's generated CUDA on the CPU vs the interpreter"},
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
    printf("axle %s\n", AXLE_VERSION);
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
