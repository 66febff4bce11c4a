/* tile.h — rewrites of μGraphs at the tile level (docs/egraph.md, "The tile level").
 *
 * A rewrite here maps one μGraph to another inside a graph-defined kernel's block graph. Each
 * is an instance of a proved rule at the block tensors' shapes; the caller still checks the
 * rewritten graph against the program (`ax_equiv_accept`) before using it, as it checks every
 * graph, and keeps it only where the cost model prices it lower. */
#ifndef AX_EQSAT_TILE_H
#define AX_EQSAT_TILE_H

#include "base/arena.h"
#include "superopt/ir/mugraph.h"

/* The scale out of a matmul, eq_matmul_mul at block level: in every kernel without a
 * for-loop (forloop 1: each block tensor a whole tile along the contracted dimension),
 * `y = mul(x, s); z = matmul(y, w)` where y is read by the matmul alone, x is [m, k] and s
 * [m, 1] (a per-row scale, either operand order), neither in a thread graph, becomes
 * `z = matmul(x, w); y = mul(z, s)` with z's readers reading y. text: a valid graph
 * (borrowed). Returns the rewritten graph's text, validated (owned, free()), with the count
 * of sites rewritten in *applied; NULL (and 0) when no site matches. */
char *ax_tile_scale_out(AxArena *a, const char *text, int *applied);

#endif
