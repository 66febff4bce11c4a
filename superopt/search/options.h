/* options.h — the options of a search: the limits of the search space, which the
 * generator (generate.h) reads, and the run's controls, which the driver (search.h) reads.
 * A header of its own because both need it and the driver sits above the generator;
 * ax_search_defaults (search.h) fills it in. */
#ifndef AX_SEARCH_OPTIONS_H
#define AX_SEARCH_OPTIONS_H

#include <stdio.h>

#include "superopt/cost/cost.h"
#include "superopt/ir/mugraph.h"

typedef struct AxSearchOpts {
  int jobs;               /* threads (default 1) */
  double time_limit;      /* seconds; 0: none */
  long max_states;        /* stop after building this many states; 0: none */
  int top;                /* candidates kept (default 5) */
  const AxTarget *target; /* cost model target (default AX_COST_DEFAULT) */
  int max_kernel_ops;     /* kernel-graph statements (default 3) */
  int max_kernels;        /* graph-defined kernels (default 2) */
  int max_block_ops;      /* block nodes, input iterators included (default 10) */
  int max_grid_dims;      /* grid axes of size > 1 (default 3) */
  int64_t min_blocks, max_blocks;   /* blocks per kernel (default 8 and 1024) */
  int64_t forloops[4];    /* for-loop ranges tried besides 1 (default 4, 16, 64); 0 ends */
  bool prune;             /* abstract-expression pruning (default on) */
  bool verify_final;      /* full-shape check of the returned graph (default on) */
  bool verify_all;        /* full-shape check of every kept graph (default off) */
  uint64_t seed;          /* equivalence draws */
  FILE *progress;         /* a progress line every 0.5 s, or NULL */
  const AxMugraph *pin;   /* reachability (not a search): a validated μGraph of the same
                             program. The generator runs with its kernel headers pinned to
                             pin's (grid, for-loop, iterators' maps), kernels and statements
                             limited to pin's counts, block nodes to its largest block graph,
                             pruning as set; every candidate's canonical key is compared with
                             pin's (no filter, no check). pin_reached tells; found[0] is the
                             generated text. */
  const char *incumbent;  /* a graph already checked by ax_search_accept (.mug text,
                             borrowed; greedy.h's floor), or NULL: the search starts with it
                             as its best, keeps only candidates modelled faster than it,
                             cuts by its time (branch and bound) from the start, and returns
                             it (unchecked again) when nothing beats it */
  double incumbent_s;     /* its modelled time */
  int rank, ranks;        /* one search shared by the ranks of an MPI job (spread.h; superopt
                             --mpi): this process is rank of ranks, every rank calls
                             ax_search_run with the same program and options. 0 of 0 or 1
                             (the default): alone */
  double deadline;        /* ax_clock_s() at which every full-shape check stops (0: none; see
                             equiv.h): the whole command's --time-limit. A check it stops is
                             no verdict (ax_search_accept 4): the graph is dropped, never
                             accepted unchecked */
  double delta;           /* δ of every full-shape check (ax_search_accept): the probability
                             of accepting a wrong graph; 0: equiv's default (2^-30). The floor
                             checked group by group gives each group's check its share
                             (greedy.h) */
} AxSearchOpts;

#endif
