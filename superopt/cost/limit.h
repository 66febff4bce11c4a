/* limit.h — the physical limit of a tensor program on a target GPU: the least time any
 * implementation could take, from what the program must move and compute, never from how
 * a graph does it (cost.h models graphs).
 *
 *   bytes    every input the program reads, read once, and every output written once, in
 *            their element types (nothing else need touch device memory);
 *   FLOP     tensor: 2·m·n·k per matmul (times its batch); other: one per result element
 *            of every element-wise operator (select's mask, comparisons and conversions
 *            included), and for any other operator with arithmetic its row's count per
 *            operand element (pop.c `.flops`: one for sum, mean, reduce_max, reduce_min and
 *            select, four for rms_norm: square, add, root, division); data movement
 *            (reshape, broadcast, repeat, transpose, slice, pad, reverse, concat, iota,
 *            constants: AX_POP_MATH_NONE) none;
 *   times    HBM = bytes / bandwidth; tensor = tensor FLOP / the dense f16 tensor rate
 *            (whatever the element type: f32 operands only run slower); ALU = other FLOP /
 *            the f32 CUDA-core rate; floor = the target's least device time of one kernel
 *            (a program runs at least one);
 *   limit    the largest of the four: the units run in parallel, so no single one is a
 *            bound on the others, and the largest is a bound on the whole.
 * The L2 cache is not in the limit: where inputs and outputs together fit the target's L2,
 * a call repeated on the same buffers may read them from L2, and `fits_l2` says so. */
#ifndef AX_LIMIT_H
#define AX_LIMIT_H

#include <stdio.h>

#include "superopt/cost/cost.h"

typedef struct AxLimit {
  const AxTarget *target;
  double bytes_in, bytes_out;       /* bytes */
  double tensor_flops, other_flops;
  double t_hbm, t_tensor, t_alu, t_floor, limit_s;   /* seconds */
  const char *bound;                /* "memory", "tensor", "alu", "launch" */
  bool fits_l2;                     /* bytes_in + bytes_out <= the target's L2 */
} AxLimit;

/* The limit of g on t into *out. g must be a program's μGraph (program.h lowering: every
 * statement an input, a pre-defined operator or the outputs); false, *out untouched, when
 * it has a graph-defined kernel: a graph's own work is not the program's least. */
bool ax_limit_compute(const AxMugraph *g, const AxTarget *t, AxLimit *out);

/* Prints the limit: text for people, or the JSON document of docs/cli.md (`axle cost
 * --limit`). */
void ax_limit_print_text(FILE *out, const AxMugraph *g, const AxLimit *l);
void ax_limit_print_json(FILE *out, const AxMugraph *g, const AxLimit *l);

#endif
