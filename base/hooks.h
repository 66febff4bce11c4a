/* hooks.h — test hooks: settings only the tests may change.
 *
 * A test hook is an AXLE_TEST_* environment variable that bends axle for the test of an
 * oracle (AXLE_TEST_BOUND_CAP caps the inferred rank bounds so that --bound-slack can be
 * seen to catch a bound that is too small; AXLE_TEST_SEARCH_INJECT hands the search a wrong
 * graph so that its final check can be seen to refuse it). Set in a user's environment, a
 * hook would make a verdict unsound, so the binary `make` builds, `axle`, is linked with
 * base/hooks/release.c, where every hook reads as unset; the tests' second binary,
 * `axle-test`, with base/hooks/test.c, which reads the environment. */
#ifndef AX_HOOKS_H
#define AX_HOOKS_H

#include <stdbool.h>

/* The value of test hook `name` ("AXLE_TEST_..."): the environment's in axle-test, NULL
 * in axle. */
const char *ax_test_hook(const char *name);

/* Whether this binary reads test hooks at all (axle-test). */
bool ax_test_hooks_on(void);

#endif
