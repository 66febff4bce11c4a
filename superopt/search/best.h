/* best.h — one program's best graph: the greedy floor (greedy.h), then the search
 * (search.h) from it, under one time limit.
 *
 * What `axle superopt PROGRAM.axl` runs, and what the module partitioner (partition.h)
 * runs once per region: both get the same floor, the same search and the same rule for
 * what is worth writing. */
#ifndef AX_BEST_H
#define AX_BEST_H

#include "superopt/search/greedy.h"

typedef struct AxBestResult {
  AxGreedyResult greedy;   /* the floor (check -1 and no text when it was off) */
  AxSearchResult search;   /* the search, started from the floor as its incumbent */
  bool better;             /* search.found[0] is modelled faster than the naive graph and
                              passed the full-shape check: worth writing */
  bool best_is_greedy;     /* search.found[0] is the floor's graph */
} AxBestResult;

/* Runs the floor (unless no_greedy) and the search on validated program prog with the
 * options o (borrowed; its time limit bounds the whole run, the final check included: the
 * deadline of every full-shape check, see options.h). Returns false, r untouched, after reporting through d when the
 * search cannot handle the program or its checks do not fit in memory (ax_best_fits); otherwise r owns its results until ax_best_free. */
bool ax_best_run(const AxMugraph *prog, const AxSearchOpts *o, bool no_greedy, AxDiag *d,
                 AxBestResult *r);
void ax_best_free(AxBestResult *r);

/* Whether the checks of a run on prog fit in what the memory budget leaves (base/mem.h): a
 * full-shape check of a graph against prog on o->jobs threads (ax_equiv_bytes of prog
 * against itself; the search's candidates run one check per thread, the final checks one
 * check on every thread). Reported through d when not — before anything is searched:
 * ax_best_run asks it first, and a caller that would spend time before the run (the axiom
 * gate) asks it earlier. */
bool ax_best_fits(const AxMugraph *prog, const AxSearchOpts *o, AxDiag *d);

#endif
