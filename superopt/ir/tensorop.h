/* tensorop.h — one operator application: its result shape and its evaluation.
 *
 * Both dispatch through the operator's row (ewop.h for the element-wise operators, pop.h
 * for the others), so they sit above the rows, which are themselves made of tensor.h's
 * building blocks: tensor.h <- ewop.h, pop.h <- tensorop.h. Programs, μGraphs and the
 * interpreters call these two, never a row's functions directly. */
#ifndef AX_TENSOROP_H
#define AX_TENSOROP_H

#include "superopt/ir/tensor.h"

/* Shape inference: the result shape of applying op to operands of shapes in[0..nin).
 * Normalizes at->axis (a negative axis counts from the end; an unset axis means the last).
 * On failure returns false and writes a message (without the operator's name, which the
 * caller prefixes) into err. */
bool ax_tensorop_infer(AxOp op, AxTAttrs *at, const AxTShape *const *in, int nin, AxTShape *out,
                       char *err, size_t errn);

/* Evaluates op over the domain: out->shape must be the inferred shape and out->data hold
 * room for its elements. Operands are borrowed. Scratch memory comes from `scratch` (an
 * arena the caller frees or resets). */
void ax_tensorop_apply(const AxTDomain *d, AxArena *scratch, AxOp op, const AxTAttrs *at,
                       const AxTensor *const *in, int nin, AxTensor *out);

#endif
