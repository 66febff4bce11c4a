/* greedy.h — the greedy fusion floor of `axle superopt` (docs/superopt.md §11).
 *
 * A superoptimizer must never be worse than the compiler its user already has. Before the
 * search starts, this pass builds from the program's naive μGraph (one pre-defined kernel
 * per operator) the fused graph an XLA- or TorchInductor-style compiler would build, in the
 * μGraph IR the search itself produces:
 *
 *   groups     every operator starts alone; two groups where one reads what the other
 *              computes are merged when the merged group is one graph-defined kernel that
 *              validates (shapes, phases, shared memory, mugraph.h), fits the target and is
 *              modelled (cost.h) faster than the two apart — the merge with the largest gain
 *              first, until none gains. Never a merge that would make the kernel graph
 *              cyclic. Element-wise chains, reductions with their element-wise prologue and
 *              epilogue, a matmul with its epilogue and element-wise prologue all arise so;
 *   kernels    a group's kernel is derived, not searched: its tensors' dims are partitioned
 *              into classes the operators force equal; the grid splits classes that every
 *              saved tensor has and no operator reduces (up to three, power-of-two sizes,
 *              at most 1024 blocks); a group with one matmul may walk its contracted class
 *              in the for-loop (accum sum after the matmul; an rms_norm over that class
 *              feeding the matmul becomes Mirage's `accum rms` and a division after the
 *              loop); the configuration the cost model ranks fastest is taken.
 *
 * Deterministic: no randomness, no threads, ties broken by operator order. Each kernel is
 * then checked against the operators it replaces (ax_search_accept, the check of every
 * search result) before anything uses the graph. */
#ifndef AX_GREEDY_H
#define AX_GREEDY_H

#include "superopt/search/search.h"

typedef struct AxGreedyResult {
  char *text;          /* the checked greedy graph, .mug text (owned); NULL when none */
  double time_s;       /* its modelled time (0 when none was built) */
  double naive_s;      /* the program's, one kernel per operator */
  int kernels;         /* graph-defined kernels in it */
  int fused_ops;       /* program operators inside them */
  int check;           /* ax_search_accept's status for the built graph; -1 when none was built */
  double build_s, check_s;   /* wall seconds of the pass and of the check */
  int groups;          /* fused groups checked each against its own operators (0: the whole
                          graph was checked against the whole program) */
  int dropped;         /* of those, refused and left as the program's pre-defined kernels */
} AxGreedyResult;

/* Builds the greedy graph of validated program prog (borrowed) on o->target and, when it
 * has a graph-defined kernel and is modelled faster than prog, checks it group by group:
 * each fused group's kernel against the group's own operators over the same inputs
 * (ax_search_accept at δ/k for k groups, so δ in all; the argument is in greedy.c). A group
 * refused is dropped — its operators stay pre-defined kernels — and the rest of the floor
 * is kept while it is still modelled faster than prog; a check the deadline stops (4) ends
 * the floor. When a group cannot be written as a μGraph of its own, the whole graph is
 * checked against prog instead (ax_search_accept(prog, text, o)). r->text is set only when
 * the check accepted (status 0); r->check_s covers every check. Returns true when r->text
 * is set. */
bool ax_greedy_floor(const AxMugraph *prog, const AxSearchOpts *o, AxGreedyResult *r);

/* Builds without checking: the greedy graph's text (owned, free()) or NULL when no fusion
 * applies or none is modelled faster than prog; *time_s receives its modelled time. */
char *ax_greedy_build(const AxMugraph *prog, const AxTarget *t, double *time_s, int *kernels,
                      int *fused_ops);

void ax_greedy_result_free(AxGreedyResult *r);

#endif
