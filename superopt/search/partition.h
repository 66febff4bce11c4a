/* partition.h — a whole program (an imported HLO module) split into regions the search
 * can handle, and the module's graph put back together from the regions' graphs.
 *
 *   dead code    an operator whose result reaches no output (an importer leaves a let that
 *                only a cut reads) is in no region and left out of the module's graph.
 *   broadcasts   a broadcast read only by element-wise operators that broadcast its operand
 *                to the same shape themselves (`X / broadcast(sum(X, axis = 1), [8, 256])`)
 *                is the identity on the program's values: its readers read the operand, and
 *                it becomes dead code rather than a cut point.
 *   cut points   an operator the search refuses (ax_search_handles: reshape, broadcast,
 *                repeat, concat, ...) is in no region: it stays a pre-defined kernel. An
 *                import's cuts are already program inputs, so they bound regions too.
 *   regions      the searchable operators, grouped by dataflow: an operator joins the region
 *                of an operand's producer when both lie behind the same number of cut
 *                points (the largest count on any path from the inputs). This keeps every
 *                region convex — no path leaves a region and comes back through a cut — so
 *                the regions and the cut operators run in one order, and a region's inputs
 *                are all computed before it starts.
 *   size limit   a group of more than max_ops operators is cut, in program order, into
 *                pieces of at most max_ops (the search handles a handful of operators well:
 *                its kernels take 3 statements and 10 block nodes by default).
 *   order        regions are ranked by what fusion is modelled to gain (naive time minus the
 *                greedy floor's, unchecked: greedy.h), largest first, so that a time budget
 *                is spent where it pays; the caller splits its budget in that order.
 *
 * Each region is itself a program (its text, `program NAME { input ...; let ...; output
 * ... }`, is what `axle equiv` checks a region's graph against): inputs are the tensors it
 * reads from outside, outputs those it computes that the rest of the program (or the
 * program's outputs) read. Everything is allocated in the caller's arena. */
#ifndef AX_PARTITION_H
#define AX_PARTITION_H

#include "superopt/search/search.h"

typedef struct AxRegion {
  const char *name;        /* r01, r02, ... in program order */
  int *stmts;              /* the program's operator statements, in program order */
  int nstmts;
  const char *text;        /* the region's program (.axl text) */
  AxMugraph *prog;         /* that text lowered and validated */
  double naive_s;          /* modelled: one kernel per operator */
  double estimate_s;       /* the unchecked greedy floor's modelled time (naive_s when none) */
} AxRegion;

typedef struct AxPartition {
  AxRegion *regions;       /* in program order */
  int n;
  int *order;              /* region indices, largest modelled gain first */
  int nleft;               /* operator statements in no region (the cut points) */
  bool *live;              /* per statement: it reaches an output (the others are dropped) */
  int ndead;               /* operator statements that reach no output */
  int *repl;               /* per tensor: what its readers read — itself, or the operand of a
                              broadcast that only restores what element-wise readers would
                              broadcast anyway (that broadcast is then dead code) */
  bool *index;             /* per tensor: an index value (an iota, a literal, layouts, + - *
                              and comparisons of them: a causal mask and its fill), which a
                              region that reads it computes itself, from the same statements */
} AxPartition;

/* Splits validated program prog (borrowed; it must outlive p) into regions of at most max_ops
 * operators (>= 1), estimated on target t. Returns false after reporting through d when a
 * region's program does not lower (a bug: the text is built to check). A program with no
 * searchable operator has no region (p->n == 0). */
bool ax_partition_split(AxArena *a, AxDiag *d, const AxMugraph *prog, int max_ops,
                        const AxTarget *t, AxPartition *p);

/* The module's graph, as .mug text named `name` (owned by the caller, free()): the program's
 * inputs, then regions and cut operators in an order that respects the dataflow; a region
 * with a graph (graphs[r], .mug text of a graph equivalent to region r's program, borrowed)
 * is that graph — its inner tensors and kernels renamed NAME__x so that regions cannot
 * collide —, one without (NULL) its operators as pre-defined kernels; the program's outputs.
 * Returns NULL after reporting through d when a region's graph does not parse. */
char *ax_partition_stitch(AxArena *a, AxDiag *d, const AxMugraph *prog, const AxPartition *p,
                          const char *const *graphs, const char *name);

/* Program prog (a lowered program: inputs and pre-defined operators) printed back as a
 * program block, one let per operator (owned by the caller, free()): the module's program
 * beside its graph. */
char *ax_partition_program_text(const AxMugraph *prog);

/* The check of module graph mod against its program prog (both validated, borrowed), cut at
 * every statement both hold unchanged — the same line: operator, attributes, operand names,
 * once a region's inner name R__x in mod is renamed x where mod has no x (a renaming: the
 * same graph). In both, each such statement's result becomes an input and its operands
 * outputs, an input that only cut statements read is left out of both, and check(prog',
 * mod', ctx) decides the pair. Sound by induction over the dataflow: the cut graphs agree
 * on every output for every value of the cut tensors, so the operands of each cut statement
 * agree, so do its results (the same statement), and so the outputs of the uncut graphs. It
 * serves where the whole module is outside what one field test decides (two exponentials
 * on a path through a transpose: a decoder block's attention before its MLP) while the
 * pieces are not, and where a region kept a library matmul, which the cut graphs no longer
 * evaluate. Returns check's status, or 3 when nothing is cut or the cut graphs do not
 * build. Scratch from a. */
int ax_partition_check_cut(AxArena *a, const AxMugraph *prog, const AxMugraph *mod,
                           int (*check)(const AxMugraph *, const AxMugraph *, void *), void *ctx);

#endif
