/* tohlo.h — a lowered program (program.h) as the HLO printer's description (hlo/print.h):
 * what `axle optimize MODULE.hlo --output OUT.hlo` writes (docs/hlo.md, "Printing").
 *
 * Operator by operator: add sub mul div max min neg exp sqrt rsqrt tanh logistic are HLO's
 * element-wise opcodes; square is multiply(x, x); silu is multiply(x, logistic(x)); sum is
 * reduce (its axis kept); mean is that sum divided by the axis's size; matmul is dot;
 * reshape, broadcast and concat are HLO's. rms_norm and repeat, and a sum with `to`, are
 * refused (not printed yet): ax_eq_to_hlo says which. Literals are scalar constants. */
#ifndef AX_EQSAT_TOHLO_H
#define AX_EQSAT_TOHLO_H

#include "hlo/print.h"
#include "superopt/ir/mugraph.h"

/* Describes g (borrowed; a lowered program of pre-defined operators) into *out, its arrays
 * and names allocated in a. False with the reason in *why (arena text) when an operator
 * has no printing. */
bool ax_eq_to_hlo(const AxMugraph *g, AxArena *a, AxHloPProg *out, const char **why);

#endif
