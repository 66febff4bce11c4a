/* files.h — the .axl files named on a command line.
 *
 * A FILE argument is taken as is; a DIR argument stands for every *.axl file below it,
 * recursively, in byte order of their paths, so output order never depends on the file
 * system. Paths are allocated in the arena. */
#ifndef AX_FILES_H
#define AX_FILES_H

#include "dsl/diag.h"

typedef struct AxPathList {
  const char **paths;
  size_t n;
} AxPathList;

/* Returns false (after reporting through d) if an argument does not exist. */
bool ax_files_collect(AxArena *a, AxDiag *d, char **args, int nargs, AxPathList *out);

#endif
