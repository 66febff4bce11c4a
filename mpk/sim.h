/* sim.h — the schedule simulator and the memory bound of a task graph
 * (`axle mpk GRAPH.mug --simulate`). Nothing here is measured: three modelled times.
 *
 *   megakernel  one launch, then list scheduling of the tasks in linear order: each task
 *               goes to the worker that is free first and starts when that worker is free
 *               and its event has fired plus the event latency (twice that for a JIT task:
 *               worker to scheduler to worker, MPK §5.2). A task of a graph-defined kernel
 *               takes the cost model's time of the kernel's busiest SM divided by the
 *               blocks that SM runs (superopt/cost/cost.h, launch excluded); a pre-defined
 *               operator's one task takes the operator's modelled time and the whole device
 *               (it starts once every worker is free and holds them all).
 *               Cross-task prefetch (mpk/mkcuda.h) is credited: a task that is not its
 *               worker's first has its first tiles loaded while the worker's previous task
 *               ran (those of produced tensors only if its event fired before that task
 *               started), and its time loses the load of those bytes at the SM's share of
 *               HBM bandwidth, at most the previous task's time (and its own). Modelled.
 *   per_kernel  one launch per kernel in order, each a barrier: the cost model's sum
 *               (the time `axle cost` prints).
 *   bound       the bytes of the graph's inputs (weights and activations) read once and of
 *               its outputs written once, over the HBM bandwidth: no schedule beats it.
 */
#ifndef AX_SIM_H
#define AX_SIM_H

#include <stdio.h>

#include "mpk/taskgraph.h"
#include "superopt/cost/cost.h"

/* The modelled latency from a task's release of its event counter to a waiting worker's
 * acquire seeing it fire: one atomic on an L2-resident counter and the poll that reads it. */
#define AX_SIM_EVENT_S 0.5e-6

typedef struct AxSim {
  const AxTarget *target;
  int workers;
  double event_s;
  double megakernel_s;     /* launch + makespan */
  double makespan_s;
  double per_kernel_s;
  double bound_s;
  double bytes;            /* of the bound */
  double busy;             /* the workers' busy share of the makespan, 0..1 */
  double *task_s;          /* per task, in linear order (in the arena) */
  int *worker;             /* per task: the worker that runs it, -1 for a pre-defined
                            * operator's task (it holds every worker) */
  int prefetch_tasks;      /* tasks whose first tiles the megakernel may prefetch (mkcuda.h) */
  int prefetched;          /* tasks the schedule credits with a prefetch */
  double prefetch_s;       /* the time those credits took off the tasks, summed */
} AxSim;

/* Simulates tg (built from a validated μGraph) on `workers` (>= 1) workers of target t;
 * everything in a. */
void ax_sim_run(AxArena *a, const AxTaskGraph *tg, const AxTarget *t, int workers, AxSim *out);

/* Text for people (every figure said to be modelled) or one JSON object with the fields
 * megakernel_us, per_kernel_us and bound_us, and `assignment`: per worker, the tasks it runs
 * in the simulated schedule, in order (a pre-defined operator's task in every worker's list)
 * (docs/mpk.md). */
void ax_sim_print_text(FILE *out, const AxTaskGraph *tg, const AxSim *s);
void ax_sim_print_json(FILE *out, const AxTaskGraph *tg, const AxSim *s);

#endif
