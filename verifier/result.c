/* result.c — the verdict and result types' plumbing and the solve-and-replay steps every
 * verifier of this folder shares; see result.h. */
#include "verifier/result.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/cex.h"
#include "verifier/instance.h"

const char *ax_verdict_name(AxVerdict v) {
  static const char *const names[] = {
      [AX_VERIFIED] = "verified", [AX_INVALID] = "invalid", [AX_INVALID_HINT] = "invalid-hint",
      [AX_UNKNOWN] = "unknown", [AX_ERROR] = "error", [AX_HOLDS_BOUNDED] = "holds-bounded"};
  return names[v];
}

const char *ax_type_name(AxType t) {
  static const char *const names[] = {[AX_BOOL] = "bool", [AX_INT] = "int", [AX_REAL] = "real"};
  return names[t];
}

void ax_result_free(AxResult *r) {
  free(r->bounds);
  free(r->rclass_names);
  free(r->reason);
  free(r->cex_text);
  free(r->cex_json);
  free(r->inferred_hint);
  free(r->confirmed_by);
  memset(r, 0, sizeof *r);
}

char *ax_verify_ranks_text(const AxRuleSyms *s, const int *rank) {
  char buf[512];
  size_t len = 0;
  buf[0] = '\0';
  for (size_t c = 0; c < s->nrclasses && len < sizeof buf - 64; c++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%d", c ? ", " : "", s->rclasses[c].name, rank[c]);
  return ax_xstrdup(buf);
}

void ax_result_set_reason(AxResult *out, const char *fmt, const char *a, const char *b) {
  free(out->reason);
  size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
  out->reason = ax_xmalloc(n);
  snprintf(out->reason, n, fmt, a, b);
}

void ax_result_take_cex(AxResult *out, AxReplay *rep) {
  free(out->cex_text);
  free(out->cex_json);
  out->cex_text = rep->text;
  out->cex_json = rep->json;
  rep->text = rep->json = NULL;
}

/* AxSolverOpts.replay: does m replay as a counterexample? */
static bool replays(void *ctx, const AxModel *m) {
  AxEagerReplay *e = ctx;
  AxReplay rep;
  ax_cex_replay(e->in, e->w, m, &rep);
  free(rep.text);
  free(rep.json);
  free(rep.failed);
  return rep.confirmed;
}

void ax_verify_eager(AxSolverOpts *s, const AxSolverOpts *base, AxEagerReplay *e) {
  *s = *base;
  s->replay = replays;
  s->replay_ctx = e;
  s->refute = NULL;   /* the caller's own, for its own query (verify.c), is never inherited */
  s->refute_ctx = NULL;
  s->refuted = NULL;
}

bool ax_verify_complete(AxSymInstance *in, const AxTerm *formula, const AxWatch *w, const AxModel *m,
                        const AxSolverOpts *so, int *queries, AxReplay *rep) {
  const char *why = NULL;
  const AxTerm *full = ax_cex_completion(in, formula, w, m, &why);
  free(rep->text);
  free(rep->json);
  free(rep->failed);
  memset(rep, 0, sizeof *rep);
  if (!full) {
    rep->unsupported = why;
    return false;
  }
  AxWatch fw;
  ax_cex_watch(in, full, &fw);
  AxEagerReplay eager = {in, &fw};
  AxSolverOpts fo;
  ax_verify_eager(&fo, so, &eager);
  AxModel *fm = NULL;
  char reason[512];
  (*queries)++;
  AxSmtResult r = ax_solver_check(&fo, in->tc, full, fw.terms, fw.n, &fm, reason, sizeof reason);
  if (r == AX_SMT_SAT) {
    ax_cex_replay(in, &fw, fm, rep);
    if (!rep->confirmed && !rep->unsupported)
      rep->unsupported = "the completed counterexample does not replay";
  } else {
    rep->unsupported = r == AX_SMT_UNSAT
        ? "the solver's counterexample breaks a tensor precondition away from the points the query "
          "looked at, and none of the same sizes satisfies it at every point"
        : ax_arena_strdup(in->a, reason);
  }
  ax_model_free(fm);
  return rep->confirmed;
}

int ax_verdict_severity(AxVerdict v) {
  static const int rank[] = {[AX_VERIFIED] = 0, [AX_INVALID] = 4, [AX_INVALID_HINT] = 3,
                             [AX_UNKNOWN] = 1,  [AX_ERROR] = 2,   [AX_HOLDS_BOUNDED] = 0};
  return rank[v];
}

/* The next rank vector in odometer order (the first class fastest); false after the last. */
static bool next(size_t n, const int *hi, int *rank) {
  size_t c = 0;
  while (c < n && rank[c] == hi[c]) rank[c++] = 1;
  if (c == n) return false;
  rank[c]++;
  return true;
}

AxVerdict ax_verify_sweep(const AxRuleSyms *s, const int *hi, const int *skip, AxSweepOrder order,
                         AxVerdict start, AxSweepCheck check, void *ctx, AxResult *out, int *at) {
  size_t n = s->nrclasses;
  int *rank = ax_xcalloc(n + 1, sizeof(int));
  int lo = (int)n, top = (int)n;   /* the totals swept: one pass of all of them, or each */
  if (order == AX_SWEEP_BY_TOTAL) {
    top = 0;
    for (size_t c = 0; c < n; c++) top += hi[c];
  }
  for (size_t c = 0; c < n; c++) at[c] = 1;
  AxVerdict worst = start;
  for (int total = lo; total <= top && worst != AX_INVALID; total++) {
    for (size_t c = 0; c < n; c++) rank[c] = 1;
    do {
      bool inside = skip != NULL;
      for (size_t c = 0; c < n && inside; c++) inside = rank[c] <= skip[c];
      int sum = 0;
      for (size_t c = 0; c < n; c++) sum += rank[c];
      if (inside || (order == AX_SWEEP_BY_TOTAL && sum != total)) continue;
      out->instances++;
      /* the reason and witness of the worst verdict so far (INVALID-HINT carries one) */
      char *kept = out->reason, *kept_text = out->cex_text, *kept_json = out->cex_json;
      out->reason = out->cex_text = out->cex_json = NULL;
      AxVerdict v = check(ctx, rank, out);
      if (ax_verdict_severity(v) > ax_verdict_severity(worst) || v == AX_INVALID) {
        worst = v;
        free(kept);
        free(kept_text);
        free(kept_json);
        memcpy(at, rank, n * sizeof(int));
        if (v == AX_INVALID) break;   /* a replayed counterexample settles it */
      } else {   /* a later, milder verdict does not replace the explanation */
        free(out->reason);
        free(out->cex_text);
        free(out->cex_json);
        out->reason = kept;
        out->cex_text = kept_text;
        out->cex_json = kept_json;
      }
    } while (next(n, hi, rank));
  }
  free(rank);
  return worst;
}
