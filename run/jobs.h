/* jobs.h — independent tasks run by a pool of worker processes.
 *
 * `axle verify --jobs N` runs each rule at each element type as one task. A worker is a
 * fork of the caller taken when the pool starts (so it shares everything the caller had
 * built, e.g. the checked ASTs), leads its own process group, runs under a memory limit,
 * and loops: read a task number, run it, send the result back as bytes. A worker that
 * crashes, exceeds the memory limit or outlives the time limit of its task is ended with
 * everything it started (proc.h); that task fails with the reason ("worker exceeded 60 s",
 * or the signal by name, what it means and what the worker saw as it died: "worker killed
 * by SIGSEGV (signal 11): an invalid memory access or a stack overflow; 42 MB of address
 * space in use, the memory limit is 4096 MB" — jobs.c says when the memory limit is blamed)
 * and a fresh worker takes the next task. Results arrive
 * in completion order; the caller restores its own order. A worker whose allocation fails
 * (ax_xmalloc, base.h) fails its task with a reason that starts "out of memory" and is
 * replaced.
 *
 * The caller must be single-threaded when it calls ax_jobs_run (fork copies one thread). */
#ifndef AX_JOBS_H
#define AX_JOBS_H

#include "base/base.h"

typedef struct AxJobsOpts {
  int jobs;                 /* worker processes, at least 1 */
  unsigned task_limit_ms;   /* wall-clock limit of one task; 0: none */
  unsigned memory_mb;       /* address-space limit of a worker; 0: none. Not applied in a
                             * sanitizer build, whose shadow memory needs terabytes of it. */
} AxJobsOpts;

/* In a worker: runs task i and returns its result, owned (malloc), of *len bytes; NULL
 * means the task could not produce one (it then fails with "worker returned no result"). */
typedef char *AxJobsRun(void *ctx, size_t i, size_t *len);

/* In the caller, exactly once per task, in completion order: data[0..len) the result
 * (borrowed; data[len] is '\0'), or data NULL and failure the reason it has none; ms the
 * wall-clock time since the task was handed out. */
typedef void AxJobsDone(void *ctx, size_t i, const char *data, size_t len,
                        const char *failure, double ms);

/* In the caller, about every 100 ms while tasks run (progress displays); may be NULL. */
typedef void AxJobsTick(void *ctx);

/* Runs tasks 0..n-1 (handed out in that order) on min(o->jobs, n) workers, calling done for
 * each; returns when all are done and every worker is reaped. */
void ax_jobs_run(const AxJobsOpts *o, size_t n, AxJobsRun *run, AxJobsDone *done,
                 AxJobsTick *tick, void *ctx);

/* The number of processors online (at least 1): the default of --jobs. */
int ax_jobs_cores(void);

#endif
