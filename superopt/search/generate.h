/* generate.h — the generator of the search (search.h): the candidates' state and the
 * depth-first enumeration of kernel graphs and block graphs.
 *
 * Private to superopt/search: the driver (search.c) prepares a SearchState from the
 * program, runs one Worker per thread through ax_generate_run and receives every complete
 * candidate through SearchState.emit; the generator builds candidates, the driver judges
 * them. The search space itself is described in search.h. */
#ifndef AX_GENERATE_H
#define AX_GENERATE_H

#include <pthread.h>

#include "superopt/search/options.h"
#include "superopt/search/prune.h"

#define MAXT 16     /* kernel tensors of a candidate */
#define MAXS 6      /* kernel statements */
#define MAXN 16     /* block nodes of one kernel */
#define MAXC 64     /* dimension classes */
#define CLS_ONE 0   /* the class of every dim of size 1 */
#define MAX_SAVES 2 /* output savers of one kernel */
#define MAX_MASKS 4 /* masked selects of the program the generator builds */

/* A dimension class: a plain class of the program (outer 0) or a dim of partial results,
 * `outer` pieces of class `inner` side by side. */
typedef struct DimClass {
  int64_t size;
  int64_t outer;
  int inner;
} DimClass;

/* A block node of the block graph being built: an input iterator, an operator, an
 * accumulator or an output saver, with the shape of its tile and, per dim, the class and
 * into how many pieces the tile cuts it. */
typedef struct BlockNode {
  AxBNodeKind kind;
  AxOp op;
  AxAccKind acc;
  int in[2], nin;
  int src, imap[3], fmap, omap[3];
  int axis;
  bool axis_set;
  int64_t to;
  int to_cls;                   /* the class whose size `to` is */
  int dst;                      /* SAVE: kernel tensor */
  AxTShape shape;
  AxDtype dt;                   /* its element type as validation infers it (mugraph.c): an
                                   iterator's tensor's, a conversion's own, else its
                                   operands' (one type: the generator pairs no others) */
  int cls[AX_MAXRANK];
  int64_t cut[AX_MAXRANK];      /* into how many pieces this tile cuts its class */
  AxPhase phase;
  AxAId expr;
  int uses;
  int scalar;                   /* OP with nin 1 and op add/mul/div: 1 + the index of its
                                   constant operand in Worker.sc (a scalar operator); 0 none */
  int run;                      /* 1 + the running max (accum max) this value depends on
                                   through the loop; 0 none; -1 two different ones */
  int rescale;                  /* ACCUM sum: 1 + the running max it is rescaled by; 0 none */
  int mask;                     /* OP select: 1 + the program's masked select it is
                                   (SearchState.masks), built as one step; 0 none */
} BlockNode;

/* The block graph of a kernel being built: its grid (size and class per axis), for-loop
 * (range R over class fcls) and nodes. */
typedef struct BlockGraph {
  int64_t grid[3];
  int gcls[3];
  int64_t R;
  int fcls;
  BlockNode n[MAXN];
  int nn;
} BlockGraph;

/* A kernel tensor of the candidate: a program input or what a statement defines. */
typedef struct KernelTensor {
  const char *name;             /* inputs: the program's name; NULL for the others */
  AxTShape shape;
  AxDtype dt;
  int cls[AX_MAXRANK];
  AxAId expr;
  int uses;
  int stmt;                     /* defining statement, -1 for inputs */
} KernelTensor;

/* A kernel-graph statement of the candidate: a pre-defined operator or a graph-defined
 * kernel. */
typedef struct KernelStmt {
  bool kernel;
  AxOp op;
  int in[2], nin;
  int axis;
  bool axis_set;
  int64_t to;
  int to_cls;
  int out;                      /* operator: the tensor defined */
  BlockGraph blk;               /* kernel */
  int nouts;                    /* kernel: tensors defined (the last nouts kernel tensors) */
} KernelStmt;

/* A kept candidate: its .mug text (owned) and modelled time. */
typedef struct Found {
  char *text;
  double time_s;
} Found;

typedef struct Worker Worker;

/* A masked select of the program, select(M, S, F) with mask M and fill F index values (made
 * of iotas and literals only) and S a value: the generator holds S as a block tile and
 * writes the select of that tile as one step, the mask and the fill made inside the kernel
 * from block iotas (docs/superopt.md §10, "Masks"). */
typedef struct MaskSel {
  int stmt;                     /* the select statement of the program */
  int value;                    /* the operand position of S (1 or 2) */
} MaskSel;

/* What the threads share: the program's dimension classes and operators, the options,
 * the kept candidates, the set of texts seen, the counters; mu guards what changes. */
typedef struct SearchState {
  const AxMugraph *prog;
  const AxSearchOpts *o;
  DimClass cls[MAXC];
  int ncls;
  int *tcls;                    /* program tensor t, dim d: tcls[t * AX_MAXRANK + d] */
  uint64_t out_cls, red_cls;    /* classes of the outputs' dims; classes reduced */
  uint64_t opmask;              /* operators the program uses (abstract symbols) */
  int live_inputs;              /* program inputs (by position) the outputs depend on */
  bool scalable;                /* the program has no operator whose attributes are sizes */
  MaskSel masks[MAX_MASKS];
  int nmasks;
  bool masked_max;              /* a reduce_max reads a masked select: one-kernel levels first */
  int ninputs;
  int *input_tensor;            /* program input i: tensor index */
  double deadline;              /* monotonic seconds; 0: none */
  pthread_mutex_t mu;
  Found *found;
  int nfound;
  uint64_t (*seen)[2];          /* texts already costed (dedup): an open-addressing set of
                                   capseen slots (a power of two) holding two independent
                                   64-bit hashes of each text ({0, 0} = empty) */
  int nseen, capseen;
  long states, pruned, candidates, checked, equivalent;
  double check_s;               /* seconds spent in the filter, summed over threads */
  double check_cpu_s;           /* CPU seconds of the same */
  char *pin_key;                /* o->pin: its canonical key */
  bool pin_ops;                 /* the pinned graph has pre-defined operators */
  int pin_stmts, pin_kernels, pin_nodes;   /* its statements, kernels, largest block graph */
  bool pin_reached;
  long pin_candidates;          /* candidates compared with it */
  bool stop;
  bool memo;                    /* kdfs's memo of last statements (test hook AXLE_TEST_SEARCH_NO_MEMO: off) */
  double start;
  double best_s, best_at;       /* best modelled time so far, and when it was found */
  double bound_s;               /* the top list's worst time once it is full (0 before):
                                   a prefix that cannot beat it cannot enter the top */
  /* What becomes of a complete candidate (the driver's: validate, cost, filter, keep);
   * outs[i] is the kernel tensor of program output i. Called on the worker's thread. */
  void (*emit)(Worker *w, const int *outs);
} SearchState;

/* Memo of the last statement (see kdfs): for one frontier — the kernel tensors so far as
 * the rest of the search sees them — the statements that completed a graph. */
typedef struct Suffix {
  KernelStmt ks;
  KernelTensor kt[MAX_SAVES];
  int nkt;
} Suffix;

typedef struct Memo {
  uint64_t h;
  unsigned char *key;
  size_t klen;
  Suffix *suf;
  int nsuf, capsuf;
  bool done;                    /* explored to the end (not stopped) */
  struct Memo *next;
} Memo;

#define MEMO_BUCKETS (1 << 16)
#define MEMO_MAX 100000          /* entries per worker; then no more are added */

/* One thread's generator: the candidate being built (its kernel tensors and statements),
 * the iterative deepening's limits, its memo and its counters. */
#define MAX_SCALARS 6   /* scalar operators (a constant operand) the generator offers */

/* A scalar operator: op (mul, div or add) with constant operand c, written as text. */
typedef struct Scalar {
  AxOp op;
  AxRat c;
  AxAId expr;                   /* c's term */
  bool sized;                   /* c is not made of the program's literals (a mean's 1/n):
                                   a scaled-down instance changes it */
  char text[40];
} Scalar;

struct Worker {
  SearchState *s;
  int id, jobs;
  AxAbs *abs;
  AxAId *spec;                  /* per program output */
  Scalar sc[MAX_SCALARS];       /* from the spec's constants (ax_prune_spec_consts) */
  int nsc;
  KernelTensor kt[MAXT];
  int nkt;
  KernelStmt ks[MAXS];
  int nks, nkern;
  int block_limit;              /* iterative deepening: block nodes allowed now */
  int kernel_limit;             /* and kernel statements */
  bool split;                   /* a split level: a kernel of partial results, then the
                                   kernel that reduces them, nothing else (worker) */
  long top_index;               /* top-level choices seen (prefix split) */
  long states, pruned, reported, reported_pruned;
  long by_kernel[4];            /* block states built, by the kernel being built */
  double floor_s;               /* lower bound of the modelled time of the statements so far */
  Memo **memo;                  /* MEMO_BUCKETS chains */
  long nmemo, memo_hits;
  Memo *recording;              /* the entry whose last statements are being recorded */
  long cut;                     /* headers and operators cut by the bound */
  long nheaders[4];             /* headers searched, by the kernel being built */
  bool reducing;                /* the kernel being built reads partial results (headers) */
  int depth;
};

/* Sizes of the scaled-down instance: every size value v becomes map[v] (identity when
 * the table is empty). */
typedef struct SizeMap {
  int64_t cls[MAXC];   /* scaled size of each class; 0: unchanged */
} SizeMap;

/* The search space of validated program s->prog (s->prog and s->o set): its dimension
 * classes, the operators the generator may use, the inputs the outputs depend on, whether
 * a scaled-down instance keeps its meaning. False (after reporting through d) when the
 * program uses an operator the search does not handle; nothing is then allocated. */
bool ax_generate_prepare(SearchState *s, AxDiag *d);

/* Whether the generator reads every index value of prog: prog has at least one masked
 * select (MaskSel) and every iota, and every value made of iotas and literals, is read only
 * by another such value or as the mask or the fill of a masked select. Borrows prog. */
bool ax_generate_reads_masks(const AxMugraph *prog);

/* Runs worker w (w->s, id, jobs set) through every level of the iterative deepening until
 * the levels end or w->s->stop; adds its counters to w->s. Owns and frees its own state. */
void ax_generate_run(Worker *w);

/* The candidate w holds as a μGraph in a, sizes through m (as found when m is NULL);
 * outs[i] is the kernel tensor of program output i. Inputs first, then the statements in
 * order, kernels named k1, k2, ..., their nodes n0, n1, ..., other kernel tensors t<index>. */
AxMugraph *ax_generate_candidate(AxArena *a, const Worker *w, const int *outs, const SizeMap *m);

/* Whether w's candidate uses a scalar operator whose constant comes from a size (its
 * scaled-down instance would not mean the same: the filter then tests it at full size). */
bool ax_generate_uses_sized(const Worker *w);

/* The scaled-down sizes of w's candidate: every size value keeps a multiple of every cut
 * applied to a dim of that size, at least 2 elements per tile and 8 overall where it has
 * them. */
void ax_generate_scale_map(const Worker *w, SizeMap *m);

/* The program p with its inputs' sizes mapped through m (its other tensors' shapes follow
 * from them when it is validated), in a; tcls: SearchState.tcls. */
AxMugraph *ax_generate_scaled_program(AxArena *a, const AxMugraph *p, const int *tcls, const SizeMap *m);

#endif
