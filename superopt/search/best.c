/* best.c — the floor, then the search from it; see best.h. */
#include "superopt/search/best.h"

#include <string.h>

bool ax_best_run(const AxMugraph *prog, const AxSearchOpts *o, bool no_greedy, AxDiag *d,
                 AxBestResult *r) {
  AxSearchOpts so = *o;
  AxGreedyResult gr;
  memset(&gr, 0, sizeof gr);
  gr.check = -1;
  /* the floor: the greedy fusion, checked, is the search's first incumbent; its time comes
   * out of the time limit, which bounds the whole run */
  if (!no_greedy) {
    ax_greedy_floor(prog, &so, &gr);
    if (gr.text) so.incumbent = gr.text, so.incumbent_s = gr.time_s;
    if (so.time_limit > 0) {
      so.time_limit -= gr.build_s + gr.check_s;
      if (so.time_limit < 1e-3) so.time_limit = 1e-3;
    }
  }
  AxSearchResult sr;
  if (!ax_search_run(prog, &so, d, &sr)) {
    ax_greedy_result_free(&gr);
    return false;
  }
  r->greedy = gr;
  r->search = sr;
  r->best_is_greedy = gr.text && sr.nfound && strcmp(sr.found[0].text, gr.text) == 0;
  r->better = sr.nfound && sr.best_verified && sr.found[0].time_s < sr.naive_s;
  return true;
}

void ax_best_free(AxBestResult *r) {
  ax_search_result_free(&r->search);
  ax_greedy_result_free(&r->greedy);
}
