/* base.h — what every axle module needs: the invariant macro and sized integers.
 *
 * AX_ASSERT states an invariant of axle itself (never of user input: bad input gets a
 * diagnostic). A broken invariant prints file and line and aborts, in every build. */
#ifndef AX_BASE_H
#define AX_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define AX_ASSERT(cond)                                                              \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "axle: internal error: %s:%d: assertion '%s' failed\n",        \
              __FILE__, __LINE__, #cond);                                            \
      abort();                                                                       \
    }                                                                                \
  } while (0)

_Noreturn void ax_unreachable(const char *file, int line);
#define AX_UNREACHABLE() ax_unreachable(__FILE__, __LINE__)
#define AX_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* malloc/realloc/calloc that never return NULL: on exhaustion they call the out-of-memory
 * handler with the size asked for (axle has no recovery path inside a computation). */
void *ax_xmalloc(size_t n);
void *ax_xcalloc(size_t count, size_t n);
void *ax_xrealloc(void *p, size_t n);
char *ax_xstrdup(const char *s);

/* The out-of-memory handler: must not return. Without one, "axle: out of memory" and
 * abort. The axle binary installs one that makes it an error with exit status 3
 * (cli/out.h); a verification worker, one that makes it its task's failure (jobs.h). */
typedef void AxOomHandler(size_t bytes);
void ax_set_oom_handler(AxOomHandler *h);

#endif
