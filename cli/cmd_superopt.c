/* cmd_superopt.c — `axle equiv` and `axle mugraph` (placeholder until superopt/ lands). */
#include <stdio.h>

#include "cli/commands.h"

int ax_cmd_equiv(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "axle: error: 'equiv' is not available in this build\n");
  return 3;
}

int ax_cmd_mugraph(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "axle: error: 'mugraph' is not available in this build\n");
  return 3;
}
