/* values.h — the value domains the interpreters compute in.
 *
 * An interpreter (program or μGraph) moves tensor elements around without looking at
 * them and asks a domain (AxTDomain, tensor.h) for arithmetic. Two domains exist:
 *   float  doubles; the reference semantics. Optionally rounds stored tensors to their
 *          storage type (f16, bf16, f32) so a μGraph is run with the precision a GPU
 *          would keep (Mirage's float filter).
 *   field  pairs in Zp x Zq (field.h), Mirage §5 Table 3, for probabilistic equivalence.
 * Both take their element-wise functions from the operators' rows (ewop.h), which is why
 * they sit above superopt/ir and the interface they fill in sits below it. */
#ifndef AX_VALUES_H
#define AX_VALUES_H

#include "superopt/arith/field.h"
#include "superopt/ir/tensor.h"

/* The float domain; rounding to storage types happens when `storage` is true. The
 * returned domain has no ctx to free. */
AxTDomain ax_values_float(bool storage);

/* Round-to-nearest-even of a double to the value set of t (overflow gives ±inf). */
double ax_values_round_to(AxDtype t, double x);

/* The field domain over f (borrowed; f must outlive every use). exp and silu read their
 * operand's secondary component whatever primary_only says. */
AxTDomain ax_values_field(AxField *f);

/* A deadline (ax_clock_s; 0: none) for the field domain's matmuls on the calling thread:
 * past it they stop between row blocks and leave the rest of their result zero, so that a
 * field test a time limit interrupts ends within a row block. The caller must then discard
 * what the test computed (equiv.c does: a test that ends past its deadline was not run). */
void ax_values_stop_at(double t);

#endif
