/* mkemu.h — the task graph run as an emulated megakernel (`axle emulate --megakernel`;
 * docs/mpk.md, "The emulated runtime").
 *
 * The μGraph's generated CUDA is compiled for the CPU with the emulator's megakernel
 * runtime (gpu/emu/axle_emu.h, -DAXLE_EMU_MK): the host entry only records its launches,
 * then worker threads run the task graph, one block a task, under a seeded adversarial
 * schedule — a random launched task drawn by each free worker, random stalls before a task
 * runs and between its writes and its release — and every run's outputs are compared with
 * the interpreter (gpu/emulate.h). Intermediate tensors start as nan, so a task that runs
 * before a producer it reads computes nan and the run differs. */
#ifndef AX_MKEMU_H
#define AX_MKEMU_H

#include "gpu/emulate.h"
#include "mpk/taskgraph.h"

/* The task graph as the runtime reads it (tasks.txt): "axle-mk KERNELS TASKS EVENTS", per
 * kernel its grid, per event "TRIGGERS FIRST LAST", per task "KERNEL BX BY BZ WAIT NTRIG
 * TRIG...". Returns a malloc'd string, owned by the caller. */
char *ax_mkemu_text(const AxTaskGraph *tg);

/* Runs tg (built from validated μGraph tg->g) as an emulated megakernel with o's seed,
 * workers and runs (o->tasks is set here); the exit status of ax_emu_run. A graph with a
 * pre-defined operator is refused (status 3, reported through d at the operator): the
 * runtime runs graph-defined blocks only. */
int ax_mkemu_run(const AxTaskGraph *tg, AxDiag *d, const AxEmuOpts *o);

/* The mutation the emulator must catch: removes the first trigger of the first event that
 * launches a task and has one, lowering its count, so the event fires before that producer
 * has finished. Writes what was dropped ("the edge from task 3 (k1 block 1,0,0) to event 1")
 * to msg; false when the graph has no such edge. */
bool ax_mkemu_drop_edge(AxTaskGraph *tg, char *msg, size_t cap);

#endif
