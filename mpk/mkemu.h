/* mkemu.h — the persistent megakernel run by the emulator (`axle emulate --megakernel`;
 * docs/mpk.md, "The emulated runtime").
 *
 * The megakernel that `axle mpk --output` writes (mpk/mkcuda.h) is compiled for the CPU with
 * the emulator's header (gpu/emu/axle_emu.h, -DAXLE_EMU_MK): its workers are threads, its
 * atomics the compiler's, and the emulator's seeded schedule holds workers back and stalls
 * them at the runtime's AX_MK_POINTs. Every run's outputs are compared with the interpreter
 * (gpu/emulate.h). Intermediate tensors start as nan, so a task that runs before a producer
 * it reads computes nan and the run differs. */
#ifndef AX_MKEMU_H
#define AX_MKEMU_H

#include "gpu/emulate.h"
#include "mpk/mkcuda.h"
#include "mpk/taskgraph.h"

/* Runs tg (built from validated μGraph tg->g) as the emulated megakernel with o's seed,
 * workers and runs (o->megakernel is set here; mo, borrowed, the megakernel's options: NULL
 * for none); the exit status of ax_emu_run. A graph the megakernel cannot run (a
 * pre-defined operator, kernels of different block shapes: ax_mkcuda_emit) is refused with
 * status 3, reported through d. */
int ax_mkemu_run(const AxTaskGraph *tg, AxDiag *d, const AxEmuOpts *o, const AxMkCudaOpts *mo);

/* The mutation the emulator must catch: removes the first trigger of the first event that
 * launches a task and has one, lowering its count, so the event fires before that producer
 * has finished. Writes what was dropped ("the edge from task 3 (k1 block 1,0,0) to event 1")
 * to msg; false when the graph has no such edge. */
bool ax_mkemu_drop_edge(AxTaskGraph *tg, char *msg, size_t cap);

#endif
