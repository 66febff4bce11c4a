/* mem.h — the process's memory budget: `--memory MB` of the verbs that allocate tensors,
 * e-graphs or search state (docs/cli.md, "Faults and limits").
 *
 * The budget counts what axle's large allocations hold: every arena's chunks (arena.h: the
 * tensors the interpreters compute, programs, graphs, parsed modules) and the buffers modules
 * take explicitly (the field tests' inputs, a kernel's block tensors, the e-graph's arrays,
 * the search's tables). Each is taken *before* it is allocated; one that would pass the limit
 * calls the handler instead of allocating anything. The axle binary installs a handler that
 * prints one error naming the limit and exits with status 3 (cli/out.h); what was printed
 * is kept, and files are only ever renamed into place whole. Where a need is known from
 * shapes before any allocation (an equivalence check, a search), the caller asks
 * ax_mem_fits first and refuses with a message of its own.
 *
 * Without a limit (0: the default, and that of the verbs without --memory) the counter still
 * runs, but nothing is refused. A forked child (a verification worker, the z3 helper) starts
 * without a limit: its own limits apply (run/jobs.h). Thread-safe: one atomic counter. */
#ifndef AX_MEM_H
#define AX_MEM_H

#include <stdbool.h>
#include <stdint.h>

/* The limit in bytes (0: none), process-wide; the CLI sets it from --memory. */
void ax_mem_set_limit(uint64_t bytes);
uint64_t ax_mem_limit(void);
/* Bytes the budget counts as held now. */
uint64_t ax_mem_held(void);

/* Whether bytes more fit under the limit now (always true without one). Takes nothing. */
bool ax_mem_fits(uint64_t bytes);
/* Takes bytes from the budget before they are allocated; when they do not fit, calls the
 * handler (which does not return) and takes nothing. */
void ax_mem_take(uint64_t bytes);
/* Gives back bytes taken (their allocation freed). */
void ax_mem_give(uint64_t bytes);

/* Called by ax_mem_take with what was asked for, what was held and the limit; must not
 * return. Without one: a message on stderr and abort. */
typedef void AxMemHandler(uint64_t bytes, uint64_t held, uint64_t limit);
void ax_mem_set_handler(AxMemHandler *h);

#endif
