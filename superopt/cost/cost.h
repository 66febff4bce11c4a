/* cost.h — the GPU cost model: a modelled running time for a μGraph (Mirage §4, §6).
 *
 * Nothing here is measured: every figure is a model of a target GPU built from published
 * constants (docs/superopt.md, "Cost model", lists them and their sources). Per kernel:
 *
 *   pre-defined operator  a library kernel (cuBLAS-like matmul, element-wise, reduction):
 *                         it reads its operands and writes its result once in device memory;
 *                         a matmul is tiled 128 x 128 over its output for wave quantization.
 *   graph-defined kernel  every block loads the tiles of its input iterators (once if
 *                         invariant, once per iteration if iterating) and stores its output
 *                         tiles; block operators read and write shared memory once per
 *                         execution (loop-phase operators once per iteration); a matmul
 *                         runs on tensor cores, everything else on CUDA cores; every depth
 *                         of the schedule (optimize.h) costs a barrier per execution.
 *
 * A kernel's time = launch overhead + waves x (the slowest of HBM, shared memory and
 * arithmetic for one wave, at the share of the GPU the wave's blocks occupy) + barriers.
 * Waves: blocks / (SMs x blocks resident per SM); residency is limited by shared memory
 * (the optimizer's lifetime plan), registers (threads x registers per thread) and the
 * hardware's maximum. A μGraph's time is the sum of its kernels' (they run in order). */
#ifndef AX_COST_H
#define AX_COST_H

#include <stdio.h>

#include "superopt/ir/mugraph.h"
#include "superopt/cost/optimize.h"

typedef struct AxTarget {
  const char *name;        /* "h200", "h100", "a100" */
  const char *desc;
  int sms;
  double hbm_bps;          /* device memory bandwidth, bytes/s */
  double tc_flops;         /* dense f16 tensor-core FLOP/s */
  double cuda_flops;       /* f32 CUDA-core FLOP/s (non-tensor) */
  double smem_bps;         /* aggregate shared-memory bandwidth, bytes/s */
  int64_t smem_per_sm;     /* bytes */
  int64_t smem_per_block;  /* bytes, the opt-in maximum */
  int regs_per_sm;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  double l2_bytes;         /* L2 cache (the model has none; the limit says when data fits it) */
  double launch_s;         /* kernel launch overhead */
  double floor_s;          /* the least device time of one kernel (the limit's floor, limit.h) */
  double barrier_s;        /* one __syncthreads over a block */
  /* axle's generated code (gpu/cuda.c), measured (docs/results-gpu.md, calibration): the
   * shared-memory traffic one block of a graph-defined kernel moves per second, and the
   * latency a round of blocks pays whatever its work */
  double gen_smem_bps_per_block;
  double gen_resident_exp;   /* r blocks resident on one SM move r^exp times one block's traffic */
  double gen_block_s;
  /* the most stages of a loop's cp.async ring the plan prices (ax_ring_stages); 0: as the
   * generator chooses (up to 4). `axle cost --stages` sets it, to price code generated
   * with fewer (--single-buffer: 1) or measured with fewer */
  int ring_stages;
} AxTarget;

/* The target named `name` (AX_COST_TARGETS), or NULL. */
const AxTarget *ax_cost_target(const char *name);
/* The targets' names as options list them, and the one a run uses when none is named. */
#define AX_COST_TARGETS "h200|h100|a100"
#define AX_COST_TARGETS_SAID "h200, h100 or a100"
#define AX_COST_DEFAULT "h200"

typedef struct AxKCost {
  const char *name;        /* kernel or operator name (borrowed from the μGraph) */
  bool graph_defined;
  int64_t blocks, blocks_per_sm, waves;
  int64_t threads;         /* per block */
  double warps_per_sm;     /* resident on the busiest SM */
  const char *limit;       /* what limits residency: "smem", "regs", "threads", "blocks" */
  int64_t smem_bytes;      /* per block (planned peak); 0 for pre-defined operators */
  int regs;                /* per thread, estimated */
  double hbm_bytes, smem_traffic, tc_flops, cuda_flops;
  double t_hbm, t_smem, t_math, t_launch, t_sync;   /* seconds */
  double t_block;          /* graph-defined: the blocks' fixed latency, per round */
  double time_s;
  const char *bound;       /* "memory", "shared", "compute", "launch" */
  bool fits;               /* shared memory and registers within the target's limits */
} AxKCost;

typedef struct AxCost {
  const AxTarget *target;
  AxKCost *k;              /* one per kernel-level statement that launches a kernel */
  int nk;
  double time_s;
  bool fits;               /* every kernel fits */
} AxCost;

/* Models validated μGraph g on target t; arrays in a. */
void ax_cost_run(AxArena *a, const AxMugraph *g, const AxTarget *t, AxCost *out);

/* Just the total time in seconds (no breakdown kept beyond the call). */
double ax_cost_time(const AxMugraph *g, const AxTarget *t);

/* A lower bound of the modelled time of a graph-defined kernel of `blocks` blocks that
 * loads at least `bytes` from device memory in all (its iterators' tiles, which are also
 * stored into shared memory): launch plus the memory terms of the model with latency fully
 * hidden. The search cuts headers with it (branch and bound). */
double ax_cost_kernel_floor(const AxTarget *t, int64_t blocks, double bytes);

/* Prints the breakdown: text for people, or the JSON document of docs/cli.md. */
void ax_cost_print_text(FILE *out, const AxMugraph *g, const AxCost *c);
void ax_cost_print_json(FILE *out, const AxMugraph *g, const AxCost *c);

#endif
