/* cuda.h — CUDA code generation from validated μGraphs (docs/gpu.md).
 *
 * ax_cuda_emit writes one self-contained CUDA C++ file for a μGraph:
 *   - a prelude: storage types (f16 = __half, bf16 = __nv_bfloat16, f32 = float),
 *     conversions to and from f32 (every value is computed in f32), and the launch and
 *     shared-memory macros, which the CPU emulator (gpu/emu/axle_emu.h, selected by
 *     AXLE_EMU) redefines so that the very same text runs on the CPU;
 *   - a __global__ per graph-defined kernel: grid and block from the μGraph; imap gives
 *     each block's tile offsets, fmap the per-iteration offsets of the tiles loaded into
 *     shared memory — a cp.async ring (sm_80+) of S = 4, 3 or 2 stages where the loop has
 *     more than one iteration and the slots fit (ax_ring_stages, superopt/cost/optimize.h),
 *     iterations i+1 .. i+S-1's tiles in flight while iteration i computes; block operators run in node order inside their phase (before the
 *     loop, the loop, after it) with __syncthreads() only where a value written by one
 *     thread is read by another (or a tile is about to be overwritten); accumulators in
 *     f32 shared memory; omap gives the stores;
 *   - a __global__ per pre-defined kernel operator but matmul: reductions and rms_norm as
 *     row kernels (a warp or more per row, warp shuffles; superopt/ir/pop.h's
 *     ax_pop_rowplan), element-wise operators 8 elements a step (16-byte packs where
 *     aligned), the rest grid-stride one element a step; a pre-defined matmul is a cuBLAS
 *     call (cublasGemmStridedBatchedEx) from the host entry instead, and the file links
 *     with -lcublas;
 *   - the host entry `extern "C" int axle_run_<graph>(const void *const *inputs,
 *     void *const *outputs, cudaStream_t stream)`: inputs in declaration order, outputs in
 *     the order of the graph's `output` statements; returns 0, a cudaError_t, or 20000 + a
 *     cublasStatus_t when a cuBLAS call failed; with a pre-defined matmul also
 *     `extern "C" void axle_release_<graph>(void)`, which destroys the calling host
 *     thread's cuBLAS handles.
 * Block matmuls where every dim is a multiple of 16, the operands are f16 or bf16 tiles and
 * the block is whole warps run on tensor cores (mma.sync m16n8k16 fed by ldmatrix, f32
 * accumulation in registers, sm_80 and newer: both targets); the others on an FMA loop.
 *
 * Nothing here needs nvcc: generation is plain text. */
#ifndef AX_CUDA_H
#define AX_CUDA_H

#include <stdio.h>

#include "superopt/ir/mugraph.h"

/* ORDER TARGET */
typedef enum { AX_CUDA_SM90, AX_CUDA_SM80 } AxCudaTarget;

bool ax_cuda_target_lookup(const char *name, AxCudaTarget *out);
const char *ax_cuda_target_name(AxCudaTarget t);
/* Shared memory one block may use on the target (opt-in maximum): 227 KB on sm_90,
 * 163 KB on sm_80. */
int64_t ax_cuda_smem_limit(AxCudaTarget t);

/* The identifier the host entry is named after: the graph's name with every character
 * outside [A-Za-z0-9_] replaced by '_'. Written into buf (always NUL-terminated). */
void ax_cuda_ident(const char *name, char *buf, size_t n);

/* Writes the CUDA source of g (validated by ax_mug_check) to out. Returns false after
 * reporting through d at the offending kernel when the graph cannot be compiled for the
 * target: a block whose shared memory (tiles, accumulators and the generator's scratch;
 * single-buffered — the ring shrinks, then goes, first) exceeds the target's limit, a
 * grid beyond CUDA's limits, or a pre-defined matmul with a size beyond cuBLAS's int
 * arguments (reported before anything is written). Nothing is written then
 * except possibly a partial file, which the caller discards. */
bool ax_cuda_emit(FILE *out, const AxMugraph *g, AxCudaTarget t, AxDiag *d);

/* Writes the prelude every generated file starts with (storage types, shared memory,
 * launches, cp.async, ax_max/ax_min, then gpu/warp.cuh's warp-level primitives), ending with
 * the line "// axle: end of the prelude". Tests compile snippets after it. */
void ax_cuda_emit_prelude(FILE *out);

/* Choices beyond the target; all false is ax_cuda_emit's default. */
typedef struct AxCudaOpts {
  bool single_buffer;   /* never ring the loop's iterating inputs: one slot each (to compare on a GPU) */
  /* For a persistent megakernel (mpk/mkcuda.h): each graph-defined kernel becomes
   * `__device__ void ax_k<s>_task(const uint3 blockIdx, <the kernel's tensors>)`, the body of
   * its __global__ for one block, with dynamic shared memory and no __restrict__; no host
   * entry is written (the caller writes the runtime and its own after the kernels). */
  bool task_body;
} AxCudaOpts;

/* With task_body, each task function also takes `unsigned char *ax_pf, unsigned ax_pfm`
 * after its block: bit j of ax_pfm set means that its j-th prefetchable first tile (below)
 * is already in shared memory at ax_pf (the worker loaded it while the previous task ran),
 * so the task reads it there instead of loading it; ax_pfm 0 is the plain task. Beside it,
 * where the kernel has such tiles, `ax_k<s>_prefetch(blockIdx, ax_pf, ax_pfm, <tensors>)` issues the cp.async copies of the
 * tiles ax_pfm names into ax_pf (uncommitted), and AX_PF_K<s> is that buffer's size. */

/* ax_cuda_emit with options o (borrowed). */
bool ax_cuda_emit_opts(FILE *out, const AxMugraph *g, AxCudaTarget t, const AxCudaOpts *o, AxDiag *d);

/* A megakernel task's shared memory and its prefetchable first tiles: the iterating inputs
 * loaded once, before the loop or in a loop of one iteration, whose rows allow cp.async
 * (none on a target without it); tile j (bit j of ax_pfm) reads kernel tensor pf_tensor[j]. */
typedef struct AxCudaTaskPlan {
  int64_t smem;       /* the task's (dynamic) shared memory */
  int64_t pf_bytes;   /* its prefetch buffer (0: nothing to prefetch) */
  int npf;
  int pf_tensor[32];
  int64_t pf_tile_bytes[32];   /* each tile's bytes */
} AxCudaTaskPlan;

/* The plan of graph-defined kernel statement s of validated g as a megakernel task on target
 * t; false after reporting through d when the kernel does not fit the target's shared memory. */
bool ax_cuda_task_plan(const AxMugraph *g, int s, AxCudaTarget t, AxCudaTaskPlan *out, AxDiag *d);

/* Whether the backend emits op (a program-level operator that is not element-wise,
 * superopt/ir/pop.h) as a pre-defined kernel (block false) or as a block operator (block true).
 * For the operator tables' unit test. */
bool ax_cuda_emits_op(AxOp op, bool block);

/* The CUDA type a tensor of storage type t is held in (__half, __nv_bfloat16, float). */
const char *ax_cuda_ctype(AxDtype t);

/* Writes the C header that declares g's host entry (usable from C and C++; the stream is
 * a `void *` there so that the header needs no CUDA include) and documents the order,
 * dtype and shape of its inputs and outputs. */
void ax_cuda_emit_header(FILE *out, const AxMugraph *g);

/* Writes the benchmark manifest (JSON, format "axle-bench-1"; docs/gpu.md) that
 * gpu/bench/bench.py reads beside the .cu: the entry's name, its inputs and outputs in
 * argument order, and the program `prog` (a lowered program: pre-defined operators only)
 * step by step, which the harness runs with PyTorch. Inputs and outputs are paired by name;
 * returns false after reporting through d when they do not match in name, dtype or shape. */
bool ax_cuda_emit_manifest(FILE *out, const AxMugraph *g, const AxMugraph *prog, AxCudaTarget t,
                           AxDiag *d);

#endif
