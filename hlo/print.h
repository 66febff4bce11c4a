/* print.h — an axle program as an XLA HLO text module (docs/hlo.md, "Printing").
 *
 * The caller describes the program value by value in HLO's own terms (this layer knows
 * nothing of programs: superopt/eqsat/tohlo.h translates a lowered one), and the printer
 * writes a module XLA's text format accepts and `axle import` reads back:
 *
 *   HloModule NAME, entry_computation_layout={(f32[4,8]{1,0}, ...)->f32[4,8]{1,0}}
 *   %add_f32 (x: f32[], y: f32[]) -> f32[] { ... ROOT add }     one per reducer and element type
 *   ENTRY %main { parameters; one instruction (or a few) per value; ROOT }
 *
 * Masks: a comparison is a pred instruction and its f32 convert; a reshape or broadcast of
 * a mask is printed in pred too (then converted), so that a select finds its pred mask
 * without a comparison against 0 and `axle import` gives back the program's own mask.
 *
 * Values keep the program's shapes: a sum keeps its axis with size 1 (HLO's reduce drops
 * it: a reshape puts it back), element-wise operands broadcast numpy-style (HLO needs them
 * explicit: a reshape dropping the size-1 dims, then a broadcast with dimensions=). The
 * instruction that computes a value is named after it, the helpers after it with a suffix
 * (`NAME.zero`, `NAME.kept`, `NAME.b0`), so that `axle import` of the module gives back the
 * program with its names. */
#ifndef AX_HLO_PRINT_H
#define AX_HLO_PRINT_H

#include <stdio.h>

#include "hlo/hlo.h"

#define AX_HLO_PMAXRANK 8
#define AX_HLO_PMAXIN 8

typedef enum {
  AX_HP_PARAM,      /* parameter `param` */
  AX_HP_CONST,      /* a scalar (rank 0) constant, `literal` as HLO writes it */
  AX_HP_EW,         /* element-wise `opcode` (add subtract multiply divide maximum minimum
                     * power negate exponential log sqrt rsqrt tanh logistic abs convert) on 1
                     * or 2 operands that
                     * broadcast numpy-style to the value's shape */
  AX_HP_SUM,        /* the reduction of in[0] along `axis` by `opcode` (add, maximum or
                     * minimum; NULL is add), kept with size 1 */
  AX_HP_DOT,        /* batched matmul [..., m, k] x [..., k, n], equal batch dims, or a
                     * rank-2 rhs [k, n] (the lhs's leading dims free dims) */
  AX_HP_RESHAPE,    /* in[0] with the value's dims, same elements in row-major order */
  AX_HP_BROADCAST,  /* in[0] broadcast numpy-style to the value's shape */
  AX_HP_CONCAT,     /* in[0..nin) joined along `axis` */
  AX_HP_TRANSPOSE,  /* in[0] permuted: the value's dim k is in[0]'s dim perm[k] */
  AX_HP_COMPARE,    /* 1.0 where in[0] `direction` in[1] holds (EQ NE LT LE GT GE), else
                     * 0.0: a pred compare, converted (operands broadcast as EW's) */
  AX_HP_SELECT,     /* in[1] where in[0] is not 0, else in[2] (one shape) */
  AX_HP_IOTA,       /* the index along `axis` */
  AX_HP_SLICE,      /* in[0][lo + i·step] per dim, hi exclusive */
  AX_HP_PAD,        /* in[0] padded with the one element of in[1]: lo before, hi after,
                     * step between neighbours, per dim (HLO's pad) */
  AX_HP_REVERSE,    /* in[0] with dims perm[0..nperm) reversed */
} AxHloPKind;

typedef struct AxHloPVal {
  AxHloPKind kind;
  const char *name;         /* an HLO instruction name (letters, digits, _ . -), unique */
  AxHloType type;           /* f16, bf16 or f32 */
  int rank;                 /* 0 only for AX_HP_CONST */
  int64_t dims[AX_HLO_PMAXRANK];
  const char *opcode;       /* AX_HP_EW; AX_HP_SUM: its reducer */
  int in[AX_HLO_PMAXIN];    /* operand values: indices of earlier values */
  int nin;
  int axis;                 /* AX_HP_SUM, AX_HP_CONCAT */
  int perm[AX_HLO_PMAXRANK];  /* AX_HP_TRANSPOSE; AX_HP_REVERSE: its dims */
  int nperm;                /* AX_HP_REVERSE */
  int64_t lo[AX_HLO_PMAXRANK], hi[AX_HLO_PMAXRANK], step[AX_HLO_PMAXRANK];   /* SLICE, PAD */
  const char *direction;    /* AX_HP_COMPARE */
  int param;                /* AX_HP_PARAM: 0, 1, ... in order */
  bool scalar;              /* AX_HP_PARAM of dims [1]: an HLO scalar (the importer holds
                             * one as [1]), printed T[] and reshaped to [1] */
  const char *literal;      /* AX_HP_CONST */
} AxHloPVal;

typedef struct AxHloPProg {
  const char *name;         /* the module's name */
  const AxHloPVal *vals;    /* in an order where operands come first */
  int nvals;
  const int *outs;          /* the outputs, in order (values; at least one) */
  int nouts;
  const bool *out_scalar;   /* per output, or NULL: of dims [1] and an HLO scalar, reshaped
                             * to T[] for the ROOT */
} AxHloPProg;

/* Writes p (borrowed) as an HLO module to out. The description must be well formed (the
 * shapes consistent: the translation guarantees it); it is asserted, not reported. */
void ax_hlo_print(FILE *out, const AxHloPProg *p);

#endif
