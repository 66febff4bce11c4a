/* exact.h — which values of a μGraph are small exact integers computed from indices only.
 *
 * A finite field has no order, so a comparison of data has no reading there (values.c
 * makes it a fresh variable and the Lax check refuses it). A comparison of *indices* is
 * different: an iota's elements are integers, the same on both sides of a check and in
 * every test, and integer literals and `+ - *` of such values stay integers. While their
 * magnitude stays below AX_EXACT_LIMIT (far below the field's primes, >= 2^29), their
 * residues determine them, so a comparison of two of them is decided exactly (an exact 0
 * or 1), and a select on such a mask picks the branch the reals pick. This analysis
 * finds those values: a forward pass over statements and block nodes giving each value
 * a bound on its magnitude, or -1 when it is not index-only (it reads an input, a
 * division, an accumulator, a transcendental). docs/superopt.md, "Masks", argues why the
 * field tests stay sound with it. */
#ifndef AX_EXACT_H
#define AX_EXACT_H

#include "superopt/ir/mugraph.h"

/* Index-only values above this magnitude are read as data (no exact comparison). */
#define AX_EXACT_LIMIT ((int64_t)1 << 26)

/* Fills tb[t] for every kernel tensor t of g and nb[s][i] for every node i of the kernel
 * of statement s (nb[s] NULL for other statements): the magnitude bound, or -1. Both
 * arrays are the caller's, of g->ntensors and nnodes entries. g must be validated. */
void ax_exact_analyse(const AxMugraph *g, int64_t *tb, int64_t **nb);

/* Whether an application of op to operands with bounds b[0..nin) is decided exactly: a
 * comparison of two index-only values, a select whose mask is index-only, or a sqrt or
 * rsqrt of an index-only value (exact where that integer is a perfect square, values.c). */
bool ax_exact_decides(AxOp op, const int64_t *b, int nin);

/* Whether op is a comparison (eq ne lt le gt ge). */
bool ax_exact_is_compare(AxOp op);

/* Whether op applied to index values gives an index value that a kernel can write from
 * block iotas: + - * neg and the comparisons (what the floor and the generator build a
 * mask with). */
bool ax_exact_index_op(AxOp op);

#endif
