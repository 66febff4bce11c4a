/* program.h — tensor programs: checking `program` blocks and lowering them to μGraphs.
 *
 *   program NAME {
 *     input X, ... : f16[16, 4096]        # f16 | bf16 | f32, concrete sizes
 *     let Y = rms_norm(X)                  # names are single-assignment
 *     output O = matmul(Y, W)              # or `output Y` for an existing name
 *   }
 *
 * Expressions: operator calls (tensor.h lists them and their attributes: axis = a,
 * to = t, times = n, and a shape list [d, ...] for reshape and broadcast), names, the
 * infix + - * / on tensors (add, sub, mul, div), unary minus (neg), and numeric literals,
 * which are scalar constants. Element-wise operands broadcast numpy-style; tensors of one
 * operator must have one element type (literals adapt). A checked program lowers to a
 * μGraph of pre-defined kernel operators only, which the interpreter and the equivalence
 * checker treat like any μGraph.
 *
 * Every error is reported at the offending node and names the program and the operator. */
#ifndef AX_PROGRAM_H
#define AX_PROGRAM_H

#include "dsl/ast.h"
#include "superopt/ir/mugraph.h"

/* Checks program block b (kind AX_B_PROGRAM) and lowers it into a (the caller's arena).
 * Returns NULL after reporting through d when the program has errors. */
AxMugraph *ax_prog_lower(AxArena *a, AxDiag *d, const AxBlock *b);

/* The program block named `name` of f, or its only program block when name is NULL.
 * Reports through d (at no location, or at the file) and returns NULL otherwise. */
const AxBlock *ax_prog_find(const AxFile *f, const char *name, AxDiag *d);

#endif
