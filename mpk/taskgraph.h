/* taskgraph.h — the SM-level task graph of a μGraph (MPK §3–§5): what a persistent
 * megakernel would run, built and checked against the μGraph it came from.
 *
 * Tasks. Every block of every graph-defined kernel's grid is one task, in the kernel's
 * order and, inside a kernel, x fastest, then y, then z. A pre-defined operator (a library
 * kernel: axle knows no tiling of it) is one task that reads its operands whole, writes its
 * result whole and, in the simulator, takes the whole device. A free operator (a reshape, a
 * constant) is no task: a read of its result is a read of its operands, whole.
 *
 * Dependencies, fine-grained (MPK §4.1, "Dependency analysis"). A task reads, per input
 * iterator, the box of its kernel tensor that its block's imap cuts (the for-loop walks that
 * box, so the loop does not narrow it) and writes, per output saver, the box its omap cuts.
 * Task u must finish before task t when a box t reads meets a box u writes. Kernel tensors
 * are written once (a .mug defines each name once), so there are no write-after-read or
 * write-after-write hazards to order.
 *
 * Events and fusion. One event per (u, t) pair would be MPK's unfused graph; successor-set
 * fusion joins every event of one consumer (its producers become one event's triggers), and
 * predecessor-set fusion then joins consumers whose producer sets are equal. So every task
 * waits for exactly one event (MPK's fan-in normalization comes for free), and an event's
 * trigger count is the number of its producer tasks. Event 0 is the start event (no
 * triggers): tasks that read only graph inputs wait for it. The end event is triggered by
 * every task whose results no task reads, and launches nothing.
 *
 * Fan-out: a task may trigger several events (its tiles feed consumers with different
 * producer sets). MPK normalizes that with empty tasks so that every task triggers one
 * event; axle keeps each task's triggered events as a range of one flat array instead: an
 * empty task costs a dispatch and an event on the critical path, a second counter increment
 * costs an atomic.
 *
 * Linearization (MPK §4.1, Algorithm 1): events are dequeued breadth-first from the start
 * event; dequeuing one appends all the tasks that wait for it, and an event is enqueued once
 * all its triggering tasks have been appended. Tasks and events are numbered in that order,
 * so each event's dependents are the contiguous range [first, last) and a task's index is
 * after every task it depends on.
 *
 * Launch (MPK §5.2): a kernel's tasks are JIT (a scheduler hands them out once their event
 * fires) when the kernel's time depends on its data, or when it is downstream of a JIT
 * kernel with no barrier between (an event that all the JIT kernel's tasks trigger); all
 * others are AOT (pre-enqueued round robin, each worker waits on the event). A μGraph's
 * shapes are static, so no kernel is data-dependent today and every task is AOT; the rule is
 * ax_taskgraph_launch, which takes the data-dependent kernels as an argument.
 *
 * Everything lives in the arena given to ax_taskgraph_build. */
#ifndef AX_TASKGRAPH_H
#define AX_TASKGRAPH_H

#include "superopt/ir/mugraph.h"

typedef enum { AX_LAUNCH_AOT, AX_LAUNCH_JIT } AxLaunch;

/* A kernel-level statement that launches work: a graph-defined kernel or a pre-defined
 * operator. */
typedef struct AxTgKernel {
  const char *name;       /* the kernel's name, or the operator's result tensor */
  int stmt;               /* its statement in the μGraph */
  bool graph_defined;
  int64_t grid[3];        /* {1, 1, 1} for a pre-defined operator */
  int ntasks;
  AxLaunch launch;
} AxTgKernel;

typedef struct AxTask {
  int kernel;             /* index into kernels */
  int64_t block[3];       /* its block of the kernel's grid */
  int dep;                /* the one event it waits for */
  int trig, ntrig;        /* the events it triggers: trigs[trig .. trig + ntrig) */
} AxTask;

typedef struct AxEvent {
  int ntriggers;          /* tasks that trigger it; it fires when all have */
  int first, last;        /* the tasks that wait for it: [first, last) */
} AxEvent;

typedef struct AxTaskGraph {
  const AxMugraph *g;     /* borrowed */
  AxTgKernel *kernels;
  int nkernels;
  AxTask *tasks;          /* in linear order */
  int ntasks;
  AxEvent *events;        /* in linear order; 0 is the start event */
  int nevents;
  int end;                /* the end event */
  int *trigs;             /* every task's triggered events, task by task */
  int ntrigs;
  int64_t pairs;          /* (producer, consumer) pairs: MPK's events before fusion */
} AxTaskGraph;

/* Builds the task graph of validated μGraph g (ax_mug_check) into *out; everything in a,
 * g borrowed for out's lifetime. Returns false, reporting through d at the statement, when
 * g has more than AX_MUG_MAX_BLOCKS tasks in all. */
bool ax_taskgraph_build(AxArena *a, const AxMugraph *g, AxDiag *d, AxTaskGraph *out);

/* Sets each kernel's launch mode by the rule above; data_dependent[k] (nkernels entries, or
 * NULL for none) marks kernels whose running time depends on their data. */
void ax_taskgraph_launch(AxTaskGraph *tg, const bool *data_dependent);

/* Checks tg against its μGraph, recomputing every task's tiles from the imaps and omaps:
 * every task's producers (the tasks writing a box it reads) trigger the event it waits for
 * and come before it; every event's trigger count is the number of tasks that trigger it;
 * every event's dependents are exactly the tasks in [first, last); every task is in one
 * range; the end event is triggered by exactly the tasks nobody reads. Writes the first
 * problem found (cap bytes, "task 12 (k2 block 0,3,0) reads N[...] written by task 5 (k1
 * block 0,3,1), which is not among its dependencies") to msg and returns false; true when
 * there is none. */
bool ax_taskgraph_check(const AxTaskGraph *tg, char *msg, size_t cap);

/* "k2 block 0,3,0" for task t (kernel name, block coordinates) into buf; returns buf. */
const char *ax_taskgraph_task_name(const AxTaskGraph *tg, int t, char *buf, size_t cap);

#endif
