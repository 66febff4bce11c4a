/* plan.c — cost prediction and shards; see plan.h. */
#include "run/plan.h"

#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"

static void count(const AxExpr *e, void *ctx) {
  (*(uint64_t *)ctx)++;
  ax_expr_children(e, count, ctx);
}

static uint64_t nodes(const AxExpr *e) {
  uint64_t n = 0;
  if (e) count(e, &n);
  return n;
}

uint64_t ax_plan_cost(const AxBlock *rule, bool ieee) {
  uint64_t n = 1;
  for (size_t i = 0; i < rule->nstmts; i++) {
    const AxStmt *s = rule->stmts[i];
    n += nodes(s->value) + nodes(s->lhs) + nodes(s->rhs);
    for (size_t j = 0; j < s->nexprs; j++) n += nodes(s->exprs[j]);
  }
  size_t classes = rule->syms ? rule->syms->nrclasses : 0;
  /* more than 16 classes would only overflow the estimate, not change the order much */
  n <<= classes < 16 ? classes : 16;
  return ieee ? n * 4 : n;
}

static const uint64_t *sort_cost;   /* qsort has no context argument; single-threaded use */

static int longer_first(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  if (sort_cost[i] != sort_cost[j]) return sort_cost[i] > sort_cost[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

void ax_plan_order(const uint64_t *cost, size_t n, size_t *order) {
  for (size_t i = 0; i < n; i++) order[i] = i;
  sort_cost = cost;
  qsort(order, n, sizeof *order, longer_first);
  sort_cost = NULL;
}

void ax_plan_shard(const uint64_t *cost, size_t n, int nshards, int *shard_of) {
  AX_ASSERT(nshards >= 1);
  size_t *order = ax_xcalloc(n + 1, sizeof *order);
  uint64_t *load = ax_xcalloc((size_t)nshards, sizeof *load);
  ax_plan_order(cost, n, order);
  for (size_t k = 0; k < n; k++) {
    int best = 0;
    for (int s = 1; s < nshards; s++)
      if (load[s] < load[best]) best = s;
    shard_of[order[k]] = best;
    load[best] += cost[order[k]];
  }
  free(load);
  free(order);
}

/* A decimal whole number of 1 to 4 digits at *s; advances *s past it. */
static bool digits(const char **s, int *out) {
  int v = 0, nd = 0;
  for (; **s >= '0' && **s <= '9'; (*s)++) {
    if (++nd > 4) return false;
    v = v * 10 + (**s - '0');
  }
  *out = v;
  return nd > 0;
}

bool ax_plan_parse_shard(const char *s, int *k, int *n) {
  int a, b;
  if (!digits(&s, &a) || *s++ != '/' || !digits(&s, &b) || *s) return false;
  if (a < 1 || b > 4096 || a > b) return false;
  *k = a;
  *n = b;
  return true;
}
