/* mugraph.h — the μGraph IR (Mirage §2) and its validation.
 *
 * A μGraph is a kernel graph: kernel-level tensors (in device memory) produced by
 * statements in order —
 *   input      a tensor the caller provides;
 *   operator   a pre-defined kernel operator (tensor.h: matmul, exp, rms_norm, ...);
 *   kernel     a graph-defined kernel, whose body is a block graph;
 *   output     marks kernel tensors as the graph's results (matched to a program's
 *              outputs by name).
 * A tensor program (program.h) lowers to a μGraph that has no graph-defined kernel, so
 * one interpreter and one analysis serve both.
 *
 * A block graph runs once per block of its grid (x, y, z) and holds block nodes —
 *   input iterator  loads a tile of a kernel tensor: imap sends each grid axis to a
 *                   tensor dim that it splits (or replicates the tensor along the axis),
 *                   fmap sends the for-loop to a dim that each iteration advances along
 *                   (or replicates);
 *   block operator  a tensor operator on tiles (element-wise, matmul, sum, mean,
 *                   rms_norm, concat, constants);
 *   accumulator     for-loop accumulator: sum (optionally also along an axis to size 1 or
 *                   `to`: Mirage's sum-to-1 and sum-to-dimx), concat along an axis, rms
 *                   (sqrt of the mean of squares over the iterations and an axis), or max
 *                   (running max over the iterations, optionally along an axis). A max
 *                   accumulator is also readable inside the loop: there its value is the
 *                   running max after this iteration's update. A sum may be `rescale`d by
 *                   a max accumulator m: before each iteration's value is added, its
 *                   state is multiplied by exp(m_prev - m_new) (FlashAttention's online
 *                   softmax), so that after the loop it is relative to the final max;
 *   output saver    writes a tile into a new kernel tensor: omap sends every grid axis of
 *                   size > 1 to the dim it tiles (a grid axis never maps to replicate in an
 *                   omap, or blocks would overwrite each other).
 * Block nodes run in phases: invariant (depends on no iterating input), loop (runs each
 * iteration), post (after the loop: depends on accumulators). Consecutive element-wise
 * operators may be grouped into a thread graph (`thread { ... }`), which fuses them;
 * its semantics is that of its operators.
 *
 * When a grid axis (or the for-loop) and other grid axes map to one dim, the dim is cut
 * hierarchically: first by the grid axes in x, y, z order (x outermost), then by the
 * for-loop inside each block's chunk.
 *
 * Everything lives in the arena given to the parser (mugtext.h) or program lowering. */
#ifndef AX_MUGRAPH_H
#define AX_MUGRAPH_H

#include "base/diag.h"
#include "superopt/ir/tensor.h"

/* Shared memory of one block on an H100 or H200 (compute capability 9.0): 227 KB. */
#define AX_MUG_SMEM_LIMIT (227 * 1024)
/* Sanity limits that keep the interpreters finite on any input. */
#define AX_MUG_MAX_ELEMS ((int64_t)1 << 32)
#define AX_MUG_MAX_BLOCKS (1 << 20)

/* Comments and layout kept so that printing a parsed file gives it back. */
typedef struct AxNote {
  const char **lead;    /* full-line comments before the statement, text from '#'; an
                           empty entry stands for a blank line between two of them */
  int nlead;
  const char *trail;    /* comment at the end of the statement's line, or NULL */
  bool blank;           /* a blank line preceded the statement (or its comments) */
} AxNote;

typedef enum { AX_PH_INVARIANT, AX_PH_LOOP, AX_PH_POST } AxPhase;

/* How a for-loop accumulates an output (ax_mug_acc_name). */
typedef enum { AX_ACC_SUM, AX_ACC_CONCAT, AX_ACC_RMS, AX_ACC_MAX } AxAccKind;

typedef enum { AX_BN_ITER, AX_BN_OP, AX_BN_ACCUM, AX_BN_SAVE } AxBNodeKind;

typedef struct AxBNode {
  AxBNodeKind kind;
  const char *name;       /* the block tensor defined (SAVE: the kernel tensor written) */
  AxSpan span;            /* the statement (for an inline constant: the literal) */
  AxNote note;
  int thread;             /* index of its thread graph, -1 when not in one */
  bool anon;              /* an inline constant operand (printed as its literal) */
  const char *text;       /* anon: the literal as written */
  const AxNote *thread_note;   /* first node of a thread graph: its [lead, end] notes (end's
                                 trail: the comment after its closing brace) */
  /* ITER: kernel tensor src; imap[g] = tensor dim or -1 (replicate); fmap likewise */
  int src;
  int imap[3], fmap;
  /* OP: operator; ACCUM: acc kind (attrs: axis, to); operands are node indices */
  AxOp op;
  AxAccKind acc;
  AxTAttrs at;
  /* ACCUM sum: rescaled (when `rescaled`) by the max accumulator at node index rescale */
  bool rescaled;
  int rescale;
  int in[AX_MAXIN];
  int nin;
  AxSpan in_span[AX_MAXIN];
  /* SAVE: omap[g] = tensor dim or -1; dst is the kernel tensor written */
  int omap[3];
  int dst;
  /* filled by validation */
  AxTShape shape;
  AxDtype dtype;
  AxPhase phase;
} AxBNode;

typedef struct AxKernel {
  const char *name;
  AxSpan span;            /* the kernel header (keyword to '{') */
  int64_t grid[3], block[3], forloop;
  AxBNode *nodes;
  int nnodes;
  AxNote end;             /* comments before the closing brace */
  int nthreads;           /* thread graphs */
  int64_t smem;           /* filled by validation: bytes of shared memory per block */
} AxKernel;

typedef struct AxKTensor {
  const char *name;
  AxSpan span;            /* where it is defined */
  AxTShape shape;
  AxDtype dtype;
  bool anon;              /* an inline constant of a pre-defined operator */
  const char *text;       /* anon: the literal */
  AxRat value;            /* anon */
  int stmt;               /* defining statement */
} AxKTensor;

typedef enum { AX_KS_INPUT, AX_KS_OP, AX_KS_KERNEL, AX_KS_OUTPUT } AxKStmtKind;

typedef struct AxKStmt {
  AxKStmtKind kind;
  AxSpan span;
  AxNote note;
  int t;                  /* INPUT, OP: the tensor defined */
  AxOp op;               /* OP */
  AxTAttrs at;
  int in[AX_MAXIN];       /* OP: tensor indices */
  int nin;
  AxSpan in_span[AX_MAXIN];
  AxKernel *kernel;       /* KERNEL */
  int *outs;              /* OUTPUT: tensor indices */
  int nouts;
  AxSpan *out_spans;
} AxKStmt;

typedef struct AxMugraph {
  const char *name;
  AxSpan span;            /* the name */
  AxNote note;            /* comments before `mugraph` */
  AxNote end;             /* comments before the closing brace */
  AxNote tail;            /* comments after the closing brace (lead only) */
  AxKStmt *stmts;
  int nstmts;
  AxKTensor *tensors;
  int ntensors;
  int *outputs;           /* tensor indices, in declaration order */
  int noutputs;
} AxMugraph;

/* Kernel tensor by name (anonymous constants excluded); -1 when absent. */
int ax_mug_find(const AxMugraph *g, const char *name);
/* Block node of kernel k defining `name`; -1 when absent. */
int ax_mug_find_node(const AxKernel *k, const char *name, int before);

/* Validates g in place: shape and dtype inference of every kernel tensor and block node,
 * divisibility of every partition, phases, omaps, thread graphs, and shared memory of
 * every block graph (<= AX_MUG_SMEM_LIMIT). Reports every problem through d at the
 * offending statement, naming the kernel and the node; returns false if any. */
bool ax_mug_check(AxMugraph *g, AxDiag *d);

/* The tile of tensor dims `full` cut by the maps (grid sizes, for-loop range r); used by
 * validation and the interpreter alike. off receives the tile's offset for block b and
 * iteration it. map[g] and fmap as in AxBNode (fmap -1: not cut by the loop). */
void ax_mug_tile(const AxTShape *full, const int *map, int fmap, const int64_t *grid, int64_t r,
                 const int64_t *b, int64_t it, AxTShape *tile, int64_t *off);

const char *ax_mug_acc_name(AxAccKind k);

/* Whether block node n is a running max (an accum max), whose value loop operators may read
 * as the running max after this iteration's update. */
bool ax_mug_running(const AxBNode *n);

/* Building a μGraph (the .mug parser, program lowering): arrays grow in an arena, the old
 * storage abandoned. ax_mug_grow returns arr, or a copy of its n elements (size esz) with
 * room for more, *cap updated. ax_mug_new_tensor / ax_mug_new_stmt append a zeroed tensor
 * (returns its index) or statement (returns it, borrowed from a) to g; *cap is the
 * builder's record of the array's capacity (0 at first). */
void *ax_mug_grow(AxArena *a, void *arr, int n, int *cap, size_t esz);
int ax_mug_new_tensor(AxArena *a, AxMugraph *g, int *cap);
AxKStmt *ax_mug_new_stmt(AxArena *a, AxMugraph *g, int *cap);
const char *ax_mug_phase_name(AxPhase p);

#endif
