/* run.h — equality saturation: rewrites applied in iterations until nothing changes or a
 * limit is reached (egg's Runner with its BackoffScheduler; docs/egraph.md).
 *
 * One iteration: search every rule that is not banned (the graph unchanged while searching),
 * then apply every match (condition, right side, union), then rebuild. A rule whose matches
 * in one iteration exceed its threshold (match_limit << times it was banned) is banned for
 * ban_length << times banned iterations instead of applied, so rules such as associativity
 * and commutativity, which match more with every application, cannot crowd out the rest.
 * When an iteration changes nothing while some rules are banned, the bans are fast-forwarded
 * instead of stopping: "saturated" means every rule was searched and nothing changed. */
#ifndef AX_EG_RUN_H
#define AX_EG_RUN_H

#include "egraph/egraph.h"
#include "egraph/pattern.h"

/* Why a run stopped. ORDER: names in run.c. */
typedef enum AxEgStop {
  AX_EG_SATURATED,
  AX_EG_NODE_LIMIT,
  AX_EG_ITER_LIMIT,
  AX_EG_TIME_LIMIT,
} AxEgStop;
const char *ax_eg_stop_name(AxEgStop s);    /* "saturated", "node limit", ... (static) */

typedef struct AxEgLimits {
  size_t nodes;         /* stop once the graph holds more live e-nodes than this */
  size_t iters;         /* stop after this many iterations */
  int64_t time_ms;      /* stop once this much time has passed (negative: no limit); checked
                         * between searches and applications, so a run may overshoot it by
                         * one search or one rebuild */
  bool backoff;         /* the backoff scheduler; off: every rule applies every match */
  size_t match_limit;   /* the backoff's first threshold */
  size_t ban_length;    /* the backoff's first ban, in iterations */
} AxEgLimits;

/* egg's defaults: 10,000 e-nodes, 30 iterations, 5 s, backoff with 1,000 matches, 5 iterations. */
AxEgLimits ax_eg_limits_default(void);

typedef struct AxEgRuleStats {
  size_t matches;       /* matches searched and applied (banned searches not counted) */
  size_t applied;       /* applications whose union merged two classes */
  size_t banned;        /* times the backoff banned it */
} AxEgRuleStats;

typedef struct AxEgReport {
  AxEgStop stop;
  size_t iterations;    /* iterations run (the last one included) */
  size_t nodes, classes;  /* after the last rebuild, which may fall back under the node
                           * limit that stopped the run (congruent duplicates merge) */
  double seconds;
  size_t nrules;
  AxEgRuleStats *rules; /* nrules entries, owned; ax_eg_report_free */
} AxEgReport;

/* Runs rules (borrowed; each must pass ax_eg_rewrite_check) on g until a stop reason, which
 * it returns and writes into *rep with the counts. g is rebuilt on return. */
AxEgStop ax_eg_run(AxEgraph *g, const AxEgRewrite *rules, size_t nrules, const AxEgLimits *lim,
                   AxEgReport *rep);
void ax_eg_report_free(AxEgReport *rep);

#endif
