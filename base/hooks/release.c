/* release.c — test hooks in the binary `make` builds: none is read (base/hooks.h). */
#include "base/hooks.h"

const char *ax_test_hook(const char *name) {
  (void)name;
  return 0;
}

bool ax_test_hooks_on(void) { return false; }
