/* mkcuda.h — a task graph as one persistent CUDA megakernel (`axle mpk --output MK.cu`;
 * docs/gpu.md, "The megakernel runtime").
 *
 * The file holds gpu/cuda.c's code for every graph-defined kernel as a __device__ task
 * function (the body of one block, AxCudaOpts.task_body) and its prefetch function, the
 * linearized task graph as constant tables, and one __global__ `ax_mk` whose blocks are the
 * workers:
 *   - a worker's thread 0 takes task indices from a global queue head (atomicAdd), so tasks
 *     are taken in linear order; it polls the counter of the one event its task waits for
 *     with an acquire load until the event's trigger count is reached, then takes the next
 *     task at once and decides which of that task's first tiles may be loaded now (cross-
 *     task prefetch, docs/mpk.md: tiles of tensors no task writes, and the others only if
 *     the next task's event has already fired, checked with an acquire load); a barrier
 *     hands both to the block;
 *   - the block issues the next task's prefetch (cp.async into one of two buffers above the
 *     largest task's shared memory), then runs the task function of its kernel with the
 *     task's block index, reading the tiles prefetched for it from the other buffer;
 *   - a barrier orders every thread's stores before thread 0, which then releases the task
 *     (__threadfence, then atomicAdd on the counter of every event the task triggers).
 * Deadlock freedom: every dependency of task i has an index below i (the linearization), so
 * when i has been taken so have they; the smallest task taken and not finished has all its
 * dependencies finished and runs as long as its worker, resident since it took the task,
 * progresses. A task taken ahead does not change this: its worker took it after the task it
 * runs, so it has the larger index, and the smallest unfinished task is always one that a
 * worker is running or waiting for. This needs no co-residency of all workers; the grid is one block per SM all
 * the same (at most the SM count times the occupancy the runtime queries).
 * The host entry is the per-kernel file's: `axle_run_<graph>(inputs, outputs, stream)`,
 * plus `axle_run_<graph>_workers(..., int workers)` (0: one worker per SM).
 *
 * The emulator (gpu/emu/axle_emu.h with -DAXLE_EMU_MK) compiles this very file for the CPU:
 * the workers are threads, the atomics are the compiler's, and AX_MK_POINT, empty on the
 * GPU, is where its seeded schedule holds a worker back or stalls it. */
#ifndef AX_MKCUDA_H
#define AX_MKCUDA_H

#include <stdio.h>

#include "gpu/cuda.h"
#include "mpk/taskgraph.h"

typedef struct AxMkCudaOpts {
  /* The mutant the emulator must catch (a test hook): each task releases its events before
   * its block runs, so a consumer may read a tile before it is written. */
  bool early_release;
  /* The other mutant (a test hook): a worker prefetches every first tile of its next task
   * without checking that the task's event has fired, so it may load a tile before its
   * producer wrote it. */
  bool early_prefetch;
} AxMkCudaOpts;

/* Cross-task prefetch as the megakernel for a target does it (docs/mpk.md). */
typedef struct AxMkPrefetch {
  int64_t base;    /* where the worker's two buffers start in its dynamic shared memory */
  int64_t bytes;   /* one buffer's size (0: no kernel's first tiles fit) */
  int tasks;       /* tasks whose first tiles a worker may load while it runs the one before */
} AxMkPrefetch;

/* Fills out for tg on target t, and per kernel of tg (arrays of tg->nkernels, or NULL) the
 * bytes of a task's first tiles that are prefetched always (tensors no task writes) and in
 * all (once its event has fired), 0 where the kernel's are not prefetched; false (all 0)
 * when the graph cannot be a megakernel (ax_mkcuda_emit would refuse it). Reports nothing. */
bool ax_mkcuda_prefetch(const AxTaskGraph *tg, AxCudaTarget t, AxMkPrefetch *out, double *safe_bytes,
                        double *all_bytes);

/* Writes the megakernel of tg (built from validated μGraph tg->g) for target t to out; o
 * borrowed, NULL for none. Returns false after reporting through d at the kernel when the
 * graph has a pre-defined operator (a library kernel, which axle cannot split into blocks)
 * or kernels of different block shapes (one worker block runs every task), or when
 * gpu/cuda.c refuses a kernel; out then holds a partial file, which the caller discards. */
bool ax_mkcuda_emit(FILE *out, const AxTaskGraph *tg, AxCudaTarget t, const AxMkCudaOpts *o,
                    AxDiag *d);

#endif
