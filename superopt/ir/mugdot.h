/* mugdot.h — Graphviz DOT rendering of μGraphs (`axle mugraph dot`).
 *
 * Kernel tensors are rounded boxes (name, dtype, shape); pre-defined kernel operators
 * are ellipses; a graph-defined kernel is a cluster headed by its grid, block, for-loop
 * and shared memory, holding its block graph: input iterators (with imap and fmap on the
 * edge from the kernel tensor), block operators, a nested "for-loop" cluster for the loop
 * body, an "after the loop" cluster for accumulators and post-loop operators, thread
 * graphs as clusters of their own, and output savers (omap on the edge to the kernel
 * tensor). The graph must be validated (shapes are printed). */
#ifndef AX_MUGDOT_H
#define AX_MUGDOT_H

#include "superopt/ir/mugraph.h"

void ax_mugdot_print(FILE *out, const AxMugraph *g);

#endif
