/* search.h — the superoptimizer: generator, pruning and search driver (Mirage §4).
 *
 * Given a validated program (lowered to a μGraph of pre-defined operators), enumerates
 * μGraphs bottom-up and returns the fastest under the cost model (cost.h) that the
 * equivalence checker (equiv.h) accepts. The search space (docs/superopt.md §10):
 *
 *   kernel graph   statements appended one at a time: a pre-defined operator on kernel
 *                  tensors, or a graph-defined kernel (at most max_kernels of them);
 *   block graph    a header — grid axes (each with a dimension class of the program and a
 *                  size that divides it), a for-loop range and the class it walks, the
 *                  kernel tensors read — then block operators appended one at a time
 *                  (element-wise, matmul, sum, rms_norm, for-loop accumulators, and
 *                  scalar operators: mul/div/add by a constant of the program's normal
 *                  form, as a prologue, in a thread graph or as an epilogue); the kernel
 *                  is closed by saving every block tensor nobody reads.
 *   maps           derived, not guessed: dimension classes are the dims the program forces
 *                  to be equal (union-find over its operators); an input iterator maps a
 *                  grid axis to its dim of the axis's class (or replicates when it has none)
 *                  and the for-loop to its dim of the loop's class; an output saver maps each
 *                  axis to the tile dim of its class, or — when there is none — to a whole
 *                  dim, which becomes a dim of partial results (FlashDecoding's split).
 *   reducing kernel a kernel after one that left partial results reads them, has no
 *                  for-loop and first sums each partial dim to its width (built directly);
 *   levels         iterative deepening over block nodes; at each limit first the split level
 *                  (a kernel of partial results and its reducing kernel), then one kernel;
 *                  then the general levels of two and more statements;
 *   canonical form every appended operator's key (deepest operand, operator, operands) is
 *                  greater than the previous one's, so each graph is built once; no dead
 *                  tensors.
 *   checks while building   shapes, phases, shared memory (227 KB per block) and the
 *                  registers estimate (optimize.h); abstract-expression pruning (prune.h)
 *                  of every new tensor.
 *
 * A complete candidate (every program output's abstract expression reached) is built as a
 * μGraph (mugraph.h's builders) and printed by mugtext.h's printer — the text is the
 * dedup key (a text seen before is dropped) and what the search returns —, then the graph
 * is validated, costed, and — if it can enter the top K — checked by `axle equiv`'s
 * checker on a scaled-down instance (same graph, every dimension class cut to a small
 * multiple of its partition; one field test; at full size when a scalar operator's
 * constant comes from a size, such as a mean's 1/n): a filter. Survivors are ranked by modelled
 * cost; the best are then checked at full shape with the default δ, and only a graph that
 * passes is returned. Threads split the tree by prefixes (top-level choices dealt round
 * robin) — with AxSearchOpts.ranks, the threads of every rank of an MPI job (spread.h).
 * This header is the driver's (search.c); the generator is generate.h, the canonical keys
 * canon.h, the options options.h. */
#ifndef AX_SEARCH_H
#define AX_SEARCH_H

#include "superopt/search/options.h"

/* Whether the search builds graphs for programs that use op: everything but the layout
 * operators (reshape, broadcast, repeat, concat) and the operators with no search class;
 * ax_search_run refuses a program with any other (the module partitioner, partition.h, cuts
 * there). */
bool ax_search_handles(AxOp op);

/* Fills o with the defaults (each field's comment in options.h says which). */
void ax_search_defaults(AxSearchOpts *o);

typedef struct AxSearchFound {
  char *text;             /* the μGraph, .mug text (owned by the result) */
  double time_s;          /* modelled */
} AxSearchFound;

typedef struct AxSearchResult {
  long states;            /* block and kernel states built */
  long pruned;            /* states cut by abstract-expression pruning */
  long candidates;        /* complete graphs reached */
  long checked;           /* candidates run through the equivalence filter */
  long equivalent;        /* candidates that passed it */
  long rejected_final;    /* best candidates the full-shape check rejected */
  long late_final;        /* best candidates dropped because o->deadline stopped their check */
  double check_s;         /* seconds in the filter's checks, summed over threads */
  double check_cpu_s;     /* CPU seconds of those checks (independent of the load) */
  double final_s;         /* seconds in the final full-shape checks */
  double seconds;         /* the whole run, final full-shape checks included */
  double search_s;        /* the search alone */
  double best_found_s;    /* when the best graph (before the final check) was found */
  double naive_s;         /* modelled time of the program, one kernel per operator */
  bool timed_out;
  AxSearchFound *found;   /* sorted by time, at most opts.top; found[0] the best */
  int nfound;
  bool best_verified;     /* found[0] passed the full-shape check */
  bool pin_reached;       /* o->pin: a candidate with its canonical key was generated */
} AxSearchResult;

/* Whether the search can take validated program prog: false (after reporting each
 * offending statement through d) when prog uses an operator the equivalence check cannot
 * decide (max, min: ewop.h's AX_EWOP_LAX_ORDER), for no graph found from it could be proved.
 * ax_search_run asks it first. */
bool ax_search_supported(const AxMugraph *prog, AxDiag *d);

/* Runs the search on validated program prog. Returns false (after reporting through d)
 * only when the program uses what the search cannot handle; r is then untouched. */
bool ax_search_run(const AxMugraph *prog, const AxSearchOpts *o, AxDiag *d, AxSearchResult *r);
void ax_search_result_free(AxSearchResult *r);

/* The check every graph passes before the search returns it (and before anything is
 * written): text (borrowed .mug) parsed, validated and compared with prog at full shape,
 * δ o->delta (default 2^-30), on o->jobs threads, with field_only (equiv.h): accepted (0) only when every
 * exact field test agreed — with the δ bound, or without one where Theorem 2 gives none
 * (exponentials: attention) — and the float check passed. Never on the doubles' word
 * alone: a graph that differs in the field where sqrt is uninterpreted is refused (2),
 * even if it agrees within 1e-6 in doubles. Returns ax_equiv_run's status (3: text does
 * not parse or validate), or 4 when o->deadline stopped the field tests before they decided.
 * With o->ranks > 1 a collective (spread.h): every rank calls it with the same graph, rank 0
 * checks, and every rank returns rank 0's status (the greedy floor's check). */
int ax_search_accept(const AxMugraph *prog, const char *text, const AxSearchOpts *o);

#endif
