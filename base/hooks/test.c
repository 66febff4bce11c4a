/* test.c — test hooks in the tests' binary axle-test: read from the environment
 * (base/hooks.h). */
#include <stdlib.h>
#include <string.h>

#include "base/hooks.h"

const char *ax_test_hook(const char *name) {
  if (strncmp(name, "AXLE_TEST_", 10) != 0) return NULL;   /* hooks only */
  return getenv(name);
}

bool ax_test_hooks_on(void) { return true; }
