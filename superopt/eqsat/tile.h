/* tile.h — rewrites of μGraphs at the tile level (docs/egraph.md, "The tile level").
 *
 * A rewrite here maps one μGraph to another: inside a graph-defined kernel's block graph, or
 * two kernels merged into one. Each rests on an argument (a proved rule at the block tensors'
 * shapes, a sum split over the iterations of a loop), but its matcher is written by hand, so
 * the caller checks the rewritten graph against the program (`ax_equiv_accept`) when it
 * applies it, keeps it only where that check proves it and the cost model prices it lower,
 * and checks the graph it finally writes once more with the others. Every function takes a
 * valid graph's text (borrowed) and returns the rewritten graph's text, validated, or NULL. */
#ifndef AX_EQSAT_TILE_H
#define AX_EQSAT_TILE_H

#include "base/arena.h"
#include "superopt/cost/cost.h"
#include "superopt/ir/mugraph.h"

/* The scale out of a matmul, eq_matmul_mul at block level. In every kernel without a
 * for-loop (forloop 1: each block tensor a whole tile along the contracted dimension),
 * `y = mul(x, s); z = matmul(y, w)` where y is read by the matmul alone, x is [m, k] and s
 * [m, 1] (a per-row scale, either operand order), neither in a thread graph, becomes
 * `z = matmul(x, w); y = mul(z, s)` with z's readers reading y. In a kernel with a
 * for-loop, where the matmul's tile is a partial product summed by an accumulator c = accum
 * sum(z), the same when s is loop-invariant (computed before the loop): the scale goes after
 * the sum, `c = accum sum(matmul(x, w)); y = mul(c, s)`, c's readers reading y — the rule
 * summed over the iterations. text: a valid graph (borrowed). Returns the rewritten graph's text, validated (owned, free()), with the count
 * of sites rewritten in *applied; NULL (and 0) when no site matches. */
char *ax_tile_scale_out(AxArena *a, const char *text, int *applied);

/* Loop insertion: in every kernel without a for-loop (and without thread graphs or
 * accumulators) holding a matmul whose operands come from input iterators through element-
 * wise operators, the contracted dim (k) is split into n iterations: the iterators the matmul
 * reads get `fmap` along k, and every node that reads a tiled node is element-wise along k
 * (tiled in turn) or a reduction over k, which becomes a partial result and an accumulator —
 * matmul and sum(·, axis = k) an `accum sum`, and the root mean square sqrt(mean(square(e),
 * axis = k)) an `accum rms(e, axis = k)`: the norm's sum of squares carried by the loop
 * beside X·W, its division after the loop (Trinity's factoring of the loop-carried
 * dependency). A kernel where anything else reads a tiled node, or where a tile of k/n is
 * under 8 or does not divide, is left as it is. Returns the rewritten graph's text,
 * validated (owned, free()), with the kernels rewritten in *applied; NULL (and 0) when none. */
char *ax_tile_loop_insert(AxArena *a, const char *text, int64_t n, int *applied);

/* Fusion of a producer kernel into its consumer: a kernel without a for-loop (or
 * accumulators) whose tensors a later kernel of the same grid reads tile for tile — each of
 * its iterators of them with imap = the producer's omap and no fmap: the element-wise case,
 * and a per-row reduction saved [m, 1] and read by the block that wrote it — is merged into
 * that kernel: the producer's nodes first (before its loop), the consumer's iterators of its
 * tensors reading the nodes saved, an iterator both have loaded once; a tensor read nowhere
 * else is no longer written. Nothing between the two may read the producer's tensors.
 * Returns the rewritten graph's text, validated (owned, free()), with the fusions in
 * *applied; NULL (and 0) when none applies. */
char *ax_tile_fuse(AxArena *a, const char *text, int *applied);

/* What ax_tile_rewrite applied to the graph it returns. */
typedef struct AxTileCounts {
  int scale_out;      /* matmuls whose scale moved after them (or after their accumulator) */
  int loops;          /* kernels given a for-loop */
  int fused;          /* producer kernels fused into their consumers */
  int64_t forloop;    /* its iterations (0: none) */
} AxTileCounts;

/* The tile-level rewrites in order on graph text (borrowed): producers fused into their
 * consumers, the scale out of every matmul, then loop insertion with 2, 4, ..., 64 iterations, each followed by the scale out again (a
 * scale the loop left invariant goes after the accumulator). Returns the variant the cost
 * model prices lowest on t when it is cheaper than text (owned, free()), what it applied in
 * *c; NULL when none is cheaper. The caller checks the result against the program. */
char *ax_tile_rewrite(AxArena *a, const char *text, const AxTarget *t, AxTileCounts *c);

#endif
