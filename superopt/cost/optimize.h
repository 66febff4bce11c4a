/* optimize.h — the μGraph optimizer (Mirage §6): a schedule, a shared-memory plan and a
 * layout per tensor for every graph-defined kernel.
 *
 * What a code generator (and the cost model, cost.h) needs to know about a block graph
 * beyond its semantics:
 *   schedule    operators ordered by depth inside each phase (invariant, loop, post);
 *               one barrier (__syncthreads) separates two depths, and a thread graph is
 *               one depth (its operators are fused, no barrier inside it);
 *   memory      every block tensor that lives in shared memory gets an offset: lifetimes
 *               are intervals over the schedule (an invariant tile read in the loop lives
 *               through the whole loop, accumulators through loop and post, an iterating
 *               input of a loop of more than one iteration gets a cp.async ring of
 *               ax_ring_stages slots), placed by first fit in decreasing size with
 *               128-byte alignment; the peak is what the kernel asks for, and apart from
 *               the ring's extra slots it is never more than validation's phase-by-phase
 *               sum;
 *   layout      row-major or swizzled, per shared-memory tensor that feeds a matmul: the
 *               swizzled layout is chosen where it changes the modelled cost, i.e. where a
 *               row-major tile's rows are 128 bytes or wider and ldmatrix would hit 8-way
 *               bank conflicts;
 *   registers   an estimate per thread: 32 for addresses and loop state plus the matmul
 *               accumulator fragments spread over the block's threads.
 * Values inside a thread graph other than its last live in registers, not shared memory. */
#ifndef AX_OPTIMIZE_H
#define AX_OPTIMIZE_H

#include "superopt/ir/mugraph.h"

/* A tensor's shared-memory layout (ax_opt_layout_name). */
typedef enum { AX_LAYOUT_NONE, AX_LAYOUT_ROW, AX_LAYOUT_SWIZZLED } AxLayout;

/* Registers a thread may hold before the compiler spills (sm80, sm90). */
#define AX_OPT_MAX_REGS 255
/* Alignment of shared-memory buffers. */
#define AX_OPT_SMEM_ALIGN 128

typedef struct AxKPlan {
  int *order;            /* node indices in schedule order (k->nnodes entries) */
  int *depth;            /* per node: its depth inside its phase */
  int barriers[3];       /* distinct depths per phase (AxPhase order) */
  int64_t *offset;       /* per node: shared-memory offset, -1 when not in shared memory */
  int64_t *bytes;        /* per node: shared-memory bytes (a ring's slots included) */
  int stages;            /* the loop's cp.async ring: slots per iterating input (1: none) */
  AxLayout *layout;      /* per node */
  int64_t smem_peak;     /* bytes the planned kernel needs */
  int64_t smem_sum;      /* validation's estimate (phase-by-phase sum), for comparison */
  int regs;              /* per thread, estimated */
  int conflicts_avoided; /* tensors given the swizzled layout */
} AxKPlan;

/* The stages of a loop's cp.async ring (gpu/cuda.c emits it, the plan below prices it):
 * the largest of 4 and 3 that the loop's iteration count allows (4 needs at least 4
 * iterations; S never exceeds the count) and for which fits(ctx, S) says the kernel's
 * shared memory, with S slots per ringed input, fits the target; else 2 on the same terms,
 * else 1 (no ring). More stages keep more copies in flight while a block computes; past 4
 * a loop body's tiles rarely leave room, and the gain is small where 3 already hide the
 * latency of one tile's load. */
int ax_ring_stages(int64_t forloop, bool (*fits)(void *ctx, int stages), void *ctx);
/* The same with at most `most` stages (1 to 4; 1: no ring). */
int ax_ring_stages_most(int64_t forloop, int most, bool (*fits)(void *ctx, int stages), void *ctx);

/* Plans kernel k of a validated μGraph; arrays are allocated in a. smem_limit: the
 * target's shared memory per block, which bounds the ring's stages (ax_ring_stages);
 * most_stages: at most that many (0: up to 4, the generator's rule). Never fails. */
void ax_opt_plan(AxArena *a, const AxKernel *k, int64_t smem_limit, int most_stages, AxKPlan *out);

const char *ax_opt_layout_name(AxLayout l);

#endif
