/* args.c — options after operands (args.h). */
#include "cli/args.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static bool takes_value(const char *opt, const char *const *with_value) {
  for (size_t i = 0; with_value && with_value[i]; i++)
    if (strcmp(opt, with_value[i]) == 0) return true;
  return false;
}

int ax_args_permute(int argc, char **argv, const char *const *with_value) {
  if (argc < 3) return argc;
  char **opts = ax_xcalloc((size_t)argc, sizeof(char *)), **ops = ax_xcalloc((size_t)argc, sizeof(char *));
  int no = 0, nop = 0;
  bool dash_operand = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {   /* the rest are operands */
      for (int j = i + 1; j < argc; j++) {
        dash_operand |= argv[j][0] == '-';
        ops[nop++] = argv[j];
      }
      break;
    }
    if (a[0] == '-' && a[1]) {
      opts[no++] = argv[i];
      if (takes_value(a, with_value) && i + 1 < argc) opts[no++] = argv[++i];
    } else {
      ops[nop++] = argv[i];
    }
  }
  int k = 1;
  for (int i = 0; i < no; i++) argv[k++] = opts[i];
  if (dash_operand) argv[k++] = "--";
  for (int i = 0; i < nop; i++) argv[k++] = ops[i];
  for (int i = k; i < argc; i++) argv[i] = NULL;   /* a "--" dropped: the line got shorter */
  free(opts);
  free(ops);
  return k;
}
