/* mem.c — the memory budget's counter and limit; see mem.h. */
#include "base/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic uint64_t held, limit;
static AxMemHandler *handler;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A forked child keeps its parent's counter but not its limit: a worker or a helper process
 * runs under limits of its own (an address-space limit, jobs.h). */
static void in_child(void) { atomic_store(&limit, 0); }

static void at_fork(void) { pthread_atfork(NULL, NULL, in_child); }

void ax_mem_set_limit(uint64_t bytes) {
  pthread_once(&once, at_fork);
  atomic_store(&limit, bytes);
}

uint64_t ax_mem_limit(void) { return atomic_load(&limit); }

uint64_t ax_mem_held(void) { return atomic_load(&held); }

bool ax_mem_fits(uint64_t bytes) {
  uint64_t l = atomic_load(&limit), h = atomic_load(&held);
  return l == 0 || (bytes <= l && h <= l - bytes);
}

void ax_mem_take(uint64_t bytes) {
  uint64_t h = atomic_fetch_add(&held, bytes) + bytes, l = atomic_load(&limit);
  if (l == 0 || (h >= bytes && h <= l)) return;
  atomic_fetch_sub(&held, bytes);
  if (handler) handler(bytes, h - bytes, l);
  fprintf(stderr, "axle: memory limit of %llu bytes reached (%llu more asked for)\n", (unsigned long long)l,
          (unsigned long long)bytes);
  abort();
}

void ax_mem_give(uint64_t bytes) { atomic_fetch_sub(&held, bytes); }

void ax_mem_set_handler(AxMemHandler *h) { handler = h; }
