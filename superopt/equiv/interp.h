/* interp.h — the μGraph interpreter (and so the program interpreter), over any domain.
 *
 * Runs a validated μGraph statement by statement. A pre-defined kernel operator is one
 * call of ax_tensorop_apply on whole kernel tensors. A graph-defined kernel is executed the
 * way Mirage defines it, literally: for every block (x, y, z) of its grid, each input
 * iterator loads the tile its imap and fmap select, the invariant operators run once, then
 * for every iteration of the for-loop the iterating inputs load the iteration's tile, the
 * loop body runs and the accumulators take its values; after the loop the accumulators
 * are finished (rms: square root of the mean), the post-loop operators run, and every
 * output saver stores its tile where the omap puts it. A wrong map therefore computes a
 * wrong result, which is what the equivalence checker must see.
 *
 * With the float domain in storage mode, every stored tensor is rounded to its dtype
 * (accumulators to f32), as a GPU would keep it. */
#ifndef AX_INTERP_H
#define AX_INTERP_H

#include "superopt/equiv/values.h"
#include "superopt/ir/mugraph.h"

/* vals has g->ntensors entries; on entry the entries of input tensors hold borrowed data
 * of their declared shapes. On return every kernel tensor has a value; the data of
 * computed ones is allocated in a. */
void ax_interp_run(const AxMugraph *g, const AxTDomain *d, AxArena *a, AxTensor *vals);

/* The bytes ax_interp_run allocates for g (validated) with elements of elem_size bytes,
 * input tensors counted as if they were allocated too: every kernel tensor, plus the
 * block tensors and scratch of the largest graph-defined kernel. Saturates at INT64_MAX.
 * For refusing a shape before anything is allocated (axle equiv --memory). */
int64_t ax_interp_bytes(const AxMugraph *g, size_t elem_size);

#endif
