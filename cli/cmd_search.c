/* cmd_search.c — `axle superopt` (docs/cli.md). */
#include <stdio.h>

#include "cli/commands.h"

int ax_cmd_superopt(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "axle: error: superopt is not built yet\n");
  return 3;
}
