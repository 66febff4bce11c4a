/* spread.c — a search shared by the ranks of an MPI job; see spread.h. */
#include "superopt/search/spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/clock.h"
#include "run/mpi.h"

#define NO_BOUND 1e300   /* a bound of 0 (none yet) in a minimum over ranks */

void ax_spread_wait(SearchState *s, const bool *done, int n) {
  for (;;) {
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    bool mine = true;
    for (int i = 0; i < n; i++) {
      bool d;
      __atomic_load(&done[i], &d, __ATOMIC_ACQUIRE);
      mine = mine && d;
    }
    double b;
    __atomic_load(&s->bound_s, &b, __ATOMIC_RELAXED);
    /* the bound, and whether every rank is done: the minimum of 1 (done) and 0 */
    double v[2] = {b > 0 ? b : NO_BOUND, mine ? 1 : 0};
    ax_mpi_reduce_all(v, 2, AX_MPI_MIN);
    if (v[0] < NO_BOUND) {
      /* only ever lowered: this rank's own list may have improved meanwhile */
      pthread_mutex_lock(&s->mu);
      if (s->bound_s <= 0 || v[0] < s->bound_s) __atomic_store(&s->bound_s, &v[0], __ATOMIC_RELAXED);
      pthread_mutex_unlock(&s->mu);
    }
    if (v[1] == 1) return;
  }
}

static int by_time_text(const void *a, const void *b) {
  const Found *x = a, *y = b;
  if (x->time_s != y->time_s) return x->time_s < y->time_s ? -1 : 1;
  return strcmp(x->text, y->text);
}

void ax_spread_merge(SearchState *s, bool *timed_out) {
  /* this rank's list: per candidate its time exactly (%a) and its text, NUL-ended */
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  for (int i = 0; i < s->nfound; i++) fprintf(m, "%a %s%c", s->found[i].time_s, s->found[i].text, '\0');
  fclose(m);
  size_t *lens;
  char *all = ax_mpi_gather_all(buf, len, &lens);
  free(buf);
  free(lens);
  for (int i = 0; i < s->nfound; i++) free(s->found[i].text);
  /* every rank's candidates, sorted, duplicates dropped, the best top kept */
  size_t cap = 16, nall = 0;
  Found *fs = ax_xcalloc(cap, sizeof *fs);
  const char *end = all;
  while (*end) end += strlen(end) + 1;   /* the records run up to the final NUL pair */
  for (const char *p = all; p < end; p += strlen(p) + 1) {
    char *rest;
    double t = strtod(p, &rest);
    AX_ASSERT(*rest == ' ');
    if (nall == cap) fs = ax_xrealloc(fs, (cap *= 2) * sizeof *fs);
    fs[nall++] = (Found){rest + 1, t};
  }
  qsort(fs, nall, sizeof *fs, by_time_text);
  s->nfound = 0;
  for (size_t i = 0; i < nall && s->nfound < s->o->top; i++) {
    if (i > 0 && strcmp(fs[i].text, fs[i - 1].text) == 0) continue;
    s->found[s->nfound++] = (Found){strdup(fs[i].text), fs[i].time_s};
  }
  free(fs);
  free(all);
  double sum[7] = {(double)s->states, (double)s->pruned, (double)s->candidates, (double)s->checked,
                   (double)s->equivalent, s->check_s, s->check_cpu_s};
  ax_mpi_reduce_all(sum, 7, AX_MPI_SUM);
  s->states = (long)sum[0], s->pruned = (long)sum[1], s->candidates = (long)sum[2];
  s->checked = (long)sum[3], s->equivalent = (long)sum[4], s->check_s = sum[5], s->check_cpu_s = sum[6];
  double at[2] = {s->best_s > 0 ? s->best_at : NO_BOUND, *timed_out ? 0 : 1};
  ax_mpi_reduce_all(at, 2, AX_MPI_MIN);
  s->best_at = at[0] < NO_BOUND ? at[0] : 0;
  *timed_out = at[1] == 0;   /* any rank's limit */
}

void ax_spread_checks(int n, bool *need, bool first_pass, int *st, int (*check)(void *ctx, int i),
                      void *ctx) {
  int rank = 0, ranks = 1;
  ax_mpi_start(&rank, &ranks);
  double *v = ax_xcalloc((size_t)n + 1, sizeof *v);
  for (int i = 0; i < n; i++) v[i] = need[i];
  ax_mpi_reduce_all(v, n, AX_MPI_MAX);
  int *todo = ax_xcalloc((size_t)n + 1, sizeof *todo), ntodo = 0;
  for (int i = 0; i < n; i++) {
    need[i] = v[i] > 0;
    st[i] = -1;
    if (need[i]) todo[ntodo++] = i;
  }
  for (int k0 = 0, nr; k0 < ntodo; k0 += nr) {
    /* one round: the k-th needed candidate on rank k mod ranks; statuses shared as
     * status + 1 in a maximum (0: not this rank's). With first_pass the first round checks
     * the best alone: it nearly always passes, and a check of the next ones beside it
     * would only compete with it for the cores of a node the ranks share */
    nr = first_pass && k0 == 0 ? 1 : ranks;
    if (nr > ntodo - k0) nr = ntodo - k0;
    for (int j = 0; j < nr; j++) v[j] = 0;
    if (rank < nr) v[rank] = check(ctx, todo[k0 + rank]) + 1;
    ax_mpi_reduce_all(v, nr, AX_MPI_MAX);
    bool passed = false;
    for (int j = 0; j < nr; j++) {
      st[todo[k0 + j]] = (int)v[j] - 1;
      passed = passed || v[j] == 1;
    }
    if (first_pass && passed) break;
  }
  free(todo);
  free(v);
}
