/* best.c — the floor, then the search from it; see best.h. */
#include "superopt/search/best.h"

#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "superopt/equiv/equiv.h"

bool ax_best_fits(const AxMugraph *prog, const AxSearchOpts *o, AxDiag *d) {
  int jobs = o->jobs < 1 ? 1 : o->jobs;
  int64_t need = ax_equiv_bytes(prog, prog, jobs);
  if (ax_mem_fits((uint64_t)need)) return true;
  ax_diag_error(d, prog->span,
                "program '%.64s': checking a graph against it at full shape needs about %lld MB (%d thread%s), "
                "more than the --memory limit of %llu MB leaves (%llu MB held)",
                prog->name, (long long)(need >> 20) + 1, jobs, jobs == 1 ? "" : "s",
                (unsigned long long)(ax_mem_limit() >> 20), (unsigned long long)(ax_mem_held() >> 20));
  return false;
}

bool ax_best_run(const AxMugraph *prog, const AxSearchOpts *o, bool no_greedy, AxDiag *d,
                 AxBestResult *r) {
  if (!ax_best_fits(prog, o, d)) return false;
  AxSearchOpts so = *o;
  AxGreedyResult gr;
  memset(&gr, 0, sizeof gr);
  gr.check = -1;
  /* the floor: the greedy fusion, checked, is the search's first incumbent. The time limit
   * bounds the whole run — the floor's check, the search and the final check: every
   * full-shape check stops starting field tests at the deadline (and is then no verdict:
   * the graph is dropped), and the search stops early enough to leave the final check twice
   * what a check is measured to cost below (the load of a shared machine changes while the
   * search runs: GQA's final check, left 1.5 times, ran out under it) (three quarters of what is left at most,
   * a twentieth at least). A deadline the caller set already (a whole module's) still
   * holds. */
  if (so.time_limit > 0) {
    double dl = ax_clock_s() + so.time_limit;
    if (so.deadline <= 0 || dl < so.deadline) so.deadline = dl;
  }
  if (!no_greedy) {
    ax_greedy_floor(prog, &so, &gr);
    if (gr.text) so.incumbent = gr.text, so.incumbent_s = gr.time_s;
  }
  if (so.time_limit > 0) {
    double left = so.deadline - ax_clock_s();
    /* what a full-shape check of a graph costs here, measured: one field test of the program
     * against itself (both sides evaluated, as in a check) times the tests its bound asks.
     * The measure may take a quarter of what is left; one that does not end by then says a
     * check would not either. A floor checked whole is a second measure (a floor checked
     * group by group says little of a whole graph's check). */
    AxEquivOpts eo;
    ax_equiv_defaults(&eo);
    eo.seed = o->seed;
    if (o->delta > 0) eo.delta = o->delta;
    eo.jobs = o->jobs < 1 ? 1 : o->jobs;
    eo.deadline = ax_clock_s() + 0.25 * left;
    double est = ax_equiv_estimate(prog, prog, &eo);
    left = so.deadline - ax_clock_s();
    double reserve = est < 0 ? left : 2 * est;
    if (gr.check_s > 0 && gr.groups == 0 && reserve < 2 * gr.check_s) reserve = 2 * gr.check_s;
    if (reserve < 0.05 * left) reserve = 0.05 * left;
    if (reserve > 0.75 * left) reserve = 0.75 * left;
    so.time_limit = left - reserve;
    if (so.time_limit < 1e-3) so.time_limit = 1e-3;
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
