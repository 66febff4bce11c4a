/* run.c — the saturation loop and the backoff scheduler (run.h). */
#include "egraph/run.h"

#include "base/clock.h"

static const char *const stop_names[] = {   /* ORDER AxEgStop */
  "saturated", "node limit", "iteration limit", "time limit",
};

const char *ax_eg_stop_name(AxEgStop s) {
  AX_ASSERT((size_t)s < AX_COUNTOF(stop_names));
  return stop_names[s];
}

AxEgLimits ax_eg_limits_default(void) {
  return (AxEgLimits){.nodes = 10000, .iters = 30, .time_ms = 5000, .backoff = true,
                      .match_limit = 1000, .ban_length = 5};
}

/* x << k without overflowing: the thresholds of a rule banned many times saturate. */
static size_t shl(size_t x, size_t k) {
  if (k >= sizeof(size_t) * 8 - 1 || x > (SIZE_MAX >> k)) return SIZE_MAX / 2;
  return x << k;
}

typedef struct Ban {
  size_t until;         /* banned while iteration < until */
  size_t times;
} Ban;

AxEgStop ax_eg_run(AxEgraph *g, const AxEgRewrite *rules, size_t nrules, const AxEgLimits *lim,
                   AxEgReport *rep) {
  double t0 = ax_clock_s();
  int64_t start = ax_clock_ms();
  *rep = (AxEgReport){.nrules = nrules, .rules = ax_xcalloc(nrules + 1, sizeof *rep->rules)};
  Ban *ban = ax_xcalloc(nrules + 1, sizeof *ban);
  AxEgMatches *found = ax_xcalloc(nrules + 1, sizeof *found);
  uint32_t *nvars = ax_xcalloc(nrules + 1, sizeof *nvars);
  for (size_t r = 0; r < nrules; r++) {
    char why[160];
    AX_ASSERT(ax_eg_rewrite_check(&rules[r], why, sizeof why));
    nvars[r] = ax_eg_rewrite_nvars(&rules[r]);
  }
  ax_eg_rebuild(g);
  AxEgStop stop;
  for (size_t it = 0;; it++) {
    if (it >= lim->iters) { stop = AX_EG_ITER_LIMIT; break; }
    if (ax_eg_nnodes(g) > lim->nodes) { stop = AX_EG_NODE_LIMIT; break; }
    if (lim->time_ms >= 0 && ax_clock_ms() - start >= lim->time_ms) {
      stop = AX_EG_TIME_LIMIT;
      break;
    }
    uint64_t v0 = ax_eg_version(g);
    bool skipped = false, halted = false;
    stop = AX_EG_SATURATED;
    /* search: the graph does not change */
    for (size_t r = 0; r < nrules; r++) {
      ax_eg_matches_clear(&found[r]);
      if (lim->backoff && it < ban[r].until) {
        skipped = true;
        continue;
      }
      size_t threshold = lim->backoff ? shl(lim->match_limit, ban[r].times) : SIZE_MAX - 1;
      size_t n = ax_eg_search(g, rules[r].lhs, nvars[r], threshold + 1, &found[r]);
      if (lim->backoff && n > threshold) {
        ban[r].until = it + shl(lim->ban_length, ban[r].times);
        ban[r].times++;
        rep->rules[r].banned++;
        ax_eg_matches_clear(&found[r]);
        skipped = true;
      }
      if (lim->time_ms >= 0 && ax_clock_ms() - start >= lim->time_ms) {
        stop = AX_EG_TIME_LIMIT;
        halted = true;
        break;
      }
    }
    /* apply: unions pile up, congruence waits for the rebuild */
    for (size_t r = 0; r < nrules && !halted; r++) {
      for (size_t i = 0; i < found[r].n; i++) {
        AxEgSubst s = ax_eg_matches_at(&found[r], i);
        int res = ax_eg_apply(g, &rules[r], found[r].roots[i], &s);
        rep->rules[r].matches++;
        if (res > 0) rep->rules[r].applied++;
        if (res < 0 || ax_eg_nnodes(g) > lim->nodes) {
          stop = AX_EG_NODE_LIMIT;
          halted = true;
          break;
        }
        /* one iteration's applications can take long: the clock is read every 256 */
        if (lim->time_ms >= 0 && (i & 255) == 255 && ax_clock_ms() - start >= lim->time_ms) {
          stop = AX_EG_TIME_LIMIT;
          halted = true;
          break;
        }
      }
    }
    ax_eg_rebuild(g);
    rep->iterations = it + 1;
    if (halted) break;
    if (ax_eg_version(g) != v0) continue;
    if (!skipped) break;     /* every rule searched, nothing changed: saturated */
    /* Nothing changed but some rules sat out: bring the earliest ban forward to now. */
    size_t next = SIZE_MAX;
    for (size_t r = 0; r < nrules; r++)
      if (ban[r].until > it + 1 && ban[r].until < next) next = ban[r].until;
    if (next != SIZE_MAX)
      for (size_t r = 0; r < nrules; r++)
        if (ban[r].until > it + 1) ban[r].until -= next - (it + 1);
  }
  for (size_t r = 0; r < nrules; r++) ax_eg_matches_free(&found[r]);
  free(found);
  free(nvars);
  free(ban);
  rep->stop = stop;
  rep->nodes = ax_eg_nnodes(g);
  rep->classes = ax_eg_nclasses(g);
  rep->seconds = ax_clock_s() - t0;
  return stop;
}

void ax_eg_report_free(AxEgReport *rep) {
  free(rep->rules);
  rep->rules = NULL;
}
