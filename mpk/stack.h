/* stack.h — a stack of decoder layers: the μGraph of N copies of a one-layer μGraph, each
 * layer's output feeding the next layer's input (`axle mpk --layers N GRAPH.mug`).
 *
 * The layer graph has exactly one output, and its first input is the activation the layer
 * reads: layer i + 1 reads layer i's output where the layer graph reads that input. Every
 * other input (weights, a KV cache) is the layer's own: layer i's copy is named `Li__W`, as
 * are its kernels and every tensor it defines (1-based i), so the stack's task graph has N
 * times the layer's tasks and its memory bound counts N layers of weights. The first layer's
 * activation input keeps its name; the stack's one output is the last layer's. */
#ifndef AX_STACK_H
#define AX_STACK_H

#include "superopt/ir/mugraph.h"

/* The validated μGraph of n >= 1 layers of validated μGraph g (borrowed: the copies share
 * its strings, spans and notes), in a. Returns NULL, reporting through d at g's output
 * statement, when g has no input or not exactly one output, or when its output's shape or
 * dtype differs from its first input's (the next layer could not read it). */
AxMugraph *ax_stack_build(AxArena *a, const AxMugraph *g, int n, AxDiag *d);

#endif
