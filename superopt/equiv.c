/* equiv.c — random tests in Zp x Zq and the float check. */
#include "superopt/equiv.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "superopt/lax.h"
#include "superopt/field.h"
#include "superopt/interp.h"

void ax_equiv_defaults(AxEquivOpts *o) {
  memset(o, 0, sizeof *o);
  o->delta = ldexp(1.0, -30);
  o->max_tests = 1000;
  o->unbounded_tests = 8;
  o->float_tests = 1;
  o->out = stdout;
}

bool ax_equiv_parse_delta(const char *s, double *out) {
  char *end;
  double v;
  if (strncmp(s, "2^", 2) == 0) {
    double e = strtod(s + 2, &end);
    if (*end || end == s + 2) return false;
    v = ldexp(1.0, (int)e);
    if (e != (int)e) v = pow(2.0, e);
  } else {
    v = strtod(s, &end);
    if (*end || end == s) return false;
  }
  if (!(v > 0 && v < 1)) return false;
  *out = v;
  return true;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Input tensor indices of g in statement order. */
static int inputs_of(const AxMugraph *g, int *out) {
  int n = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) out[n++] = g->stmts[s].t;
  return n;
}

/* Pairs inputs (pin[i] with min[i]) and outputs by name; reports mismatches. */
static bool pair(const AxMugraph *p, const AxMugraph *m, AxDiag *d, int *pin, int *min, int *nin,
                 int *mout) {
  char b1[96], b2[96];
  bool ok = true;
  int *pi = ax_xmalloc(((size_t)p->nstmts + 1) * sizeof *pi);
  int *mi = ax_xmalloc(((size_t)m->nstmts + 1) * sizeof *mi);
  int np = inputs_of(p, pi), nm = inputs_of(m, mi);
  *nin = 0;
  for (int i = 0; i < np; i++) {
    const AxKTensor *pt = &p->tensors[pi[i]];
    int j = ax_mug_find(m, pt->name);
    const AxKTensor *mt = j >= 0 ? &m->tensors[j] : NULL;
    if (!mt || m->stmts[mt->stmt].kind != AX_KS_INPUT) {
      ax_diag_error(d, m->span, "mugraph '%s' has no input '%s' (program '%s' has)", m->name,
                    pt->name, p->name);
      ok = false;
      continue;
    }
    if (!ax_shape_equal(&pt->shape, &mt->shape) || pt->dtype != mt->dtype) {
      ax_diag_error(d, mt->span, "input '%s' is %s%s here but %s%s in program '%s'", pt->name,
                    ax_dtype_name(mt->dtype), ax_shape_str(&mt->shape, b1, sizeof b1),
                    ax_dtype_name(pt->dtype), ax_shape_str(&pt->shape, b2, sizeof b2), p->name);
      ok = false;
      continue;
    }
    pin[*nin] = pi[i];
    min[(*nin)++] = j;
  }
  for (int i = 0; i < nm; i++) {
    const AxKTensor *mt = &m->tensors[mi[i]];
    int j = ax_mug_find(p, mt->name);
    if (j < 0 || p->stmts[p->tensors[j].stmt].kind != AX_KS_INPUT) {
      ax_diag_error(d, mt->span, "input '%s' is not an input of program '%s'", mt->name, p->name);
      ok = false;
    }
  }
  for (int i = 0; i < p->noutputs; i++) {
    const AxKTensor *pt = &p->tensors[p->outputs[i]];
    int j = -1;
    for (int k = 0; k < m->noutputs; k++)
      if (strcmp(m->tensors[m->outputs[k]].name, pt->name) == 0) j = m->outputs[k];
    mout[i] = j;
    if (j < 0) {
      ax_diag_error(d, m->span, "mugraph '%s' has no output '%s' (program '%s' has)", m->name,
                    pt->name, p->name);
      ok = false;
      continue;
    }
    const AxKTensor *mt = &m->tensors[j];
    if (!ax_shape_equal(&pt->shape, &mt->shape)) {
      ax_diag_error(d, mt->span, "output '%s' has shape %s here but %s in program '%s'", pt->name,
                    ax_shape_str(&mt->shape, b1, sizeof b1), ax_shape_str(&pt->shape, b2, sizeof b2),
                    p->name);
      ok = false;
    }
  }
  if (m->noutputs != p->noutputs && ok) {
    ax_diag_error(d, m->span, "mugraph '%s' has %d outputs, program '%s' has %d", m->name,
                  m->noutputs, p->name, p->noutputs);
    ok = false;
  }
  free(pi);
  free(mi);
  return ok;
}

static void index_str(const AxTShape *s, int64_t flat, char *buf, size_t n) {
  int64_t idx[AX_MAXRANK];
  for (int i = s->rank - 1; i >= 0; i--) {
    idx[i] = flat % s->dim[i];
    flat /= s->dim[i];
  }
  size_t used = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < s->rank; i++)
    used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%" PRId64, i ? ", " : "", idx[i]);
  snprintf(buf + used, used < n ? n - used : 0, "]");
}

static void qstr(uint32_t q, char *buf, size_t n) {
  if (q == AX_FF_UNDEF) snprintf(buf, n, "-");
  else snprintf(buf, n, "%" PRIu32, q);
}

/* One field test. Returns 0 pass, 1 differ (reported), -1 inconclusive. */
static int field_test(const AxMugraph *p, const AxMugraph *m, const int *pin, const int *min,
                      int nin, const int *mout, uint64_t seed, uint64_t stream, int testno,
                      const AxEquivOpts *o) {
  AxRng r;
  ax_rng_init(&r, seed, stream);
  AxField f;
  ax_field_init(&f, &r);
  AxTDomain dom = ax_field_domain(&f);
  AxTensor *pv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *pv);
  AxTensor *mv = ax_xcalloc((size_t)m->ntensors + 1, sizeof *mv);
  AxFF **bufs = ax_xcalloc((size_t)nin + 1, sizeof *bufs);
  for (int i = 0; i < nin; i++) {
    const AxTShape *s = &p->tensors[pin[i]].shape;
    size_t n = (size_t)ax_shape_numel(s);
    bufs[i] = ax_xmalloc(n * sizeof(AxFF) + 1);
    for (size_t k = 0; k < n; k++) bufs[i][k] = ax_field_random(&r);
    pv[pin[i]] = (AxTensor){*s, bufs[i]};
    mv[min[i]] = (AxTensor){*s, bufs[i]};
  }
  AxArena *pa = ax_arena_new(), *ma = ax_arena_new();
  ax_interp_run(p, &dom, pa, pv);
  ax_interp_run(m, &dom, ma, mv);
  int verdict = f.divzero ? -1 : 0;
  for (int i = 0; verdict == 0 && i < p->noutputs; i++) {
    const AxTensor *a = &pv[p->outputs[i]], *b = &mv[mout[i]];
    const AxFF *x = a->data, *y = b->data;
    int64_t n = ax_shape_numel(&a->shape);
    for (int64_t k = 0; k < n; k++) {
      bool qdiff = x[k].q != AX_FF_UNDEF && y[k].q != AX_FF_UNDEF && x[k].q != y[k].q;
      if (x[k].p == y[k].p && !qdiff) continue;
      char idx[128], q1[16], q2[16];
      index_str(&a->shape, k, idx, sizeof idx);
      qstr(x[k].q, q1, sizeof q1);
      qstr(y[k].q, q2, sizeof q2);
      fprintf(o->out,
              "not equivalent: output '%s' differs at %s in field test %d: program (%" PRIu32
              ", %s), mugraph (%" PRIu32 ", %s)\n",
              p->tensors[p->outputs[i]].name, idx, testno, x[k].p, q1, y[k].p, q2);
      int64_t bad = 0;
      for (int64_t j = k; j < n; j++) bad += x[j].p != y[j].p;
      fprintf(o->out, "  %" PRId64 " of its %" PRId64 " elements differ on the p side\n", bad, n);
      verdict = 1;
      break;
    }
  }
  ax_arena_free(pa);
  ax_arena_free(ma);
  for (int i = 0; i < nin; i++) free(bufs[i]);
  free(bufs);
  free(pv);
  free(mv);
  ax_field_fini(&f);
  return verdict;
}

static double default_tol(AxDtype t) {
  switch (t) {
  case AX_DT_F16: return 2e-2;
  case AX_DT_BF16: return 8e-2;
  case AX_DT_F32: return 1e-4;
  }
  return 2e-2;
}

/* Largest |y - x| relative to max |x| (inf when y holds inf or nan); *at gets its index. */
static double rel_error(const double *x, const double *y, int64_t n, int64_t *at) {
  double ref = 0, err = 0;
  *at = 0;
  for (int64_t k = 0; k < n; k++) {
    ref = fmax(ref, fabs(x[k]));
    if (!isfinite(y[k])) {
      *at = k;
      return INFINITY;
    }
    if (fabs(y[k] - x[k]) > err) err = fabs(y[k] - x[k]), *at = k;
  }
  return ref > 0 ? err / ref : err;
}

/* One float check: the program exactly (the reference), the program and the μGraph with
 * storage rounding. Returns 1 when the μGraph is unstable although the program in the
 * same storage is not; updates worst[] (μGraph) and pworst[] (program). */
static int float_test(const AxMugraph *p, const AxMugraph *m, const int *pin, const int *min,
                      int nin, const int *mout, uint64_t seed, uint64_t stream,
                      const AxEquivOpts *o, double *worst, double *pworst) {
  AxRng r;
  ax_rng_init(&r, seed, stream);
  AxTDomain exact = ax_domain_float(false), stored = ax_domain_float(true);
  AxTensor *pv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *pv);
  AxTensor *sv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *sv);
  AxTensor *mv = ax_xcalloc((size_t)m->ntensors + 1, sizeof *mv);
  double **bufs = ax_xcalloc((size_t)nin + 1, sizeof *bufs);
  for (int i = 0; i < nin; i++) {
    const AxKTensor *t = &p->tensors[pin[i]];
    size_t n = (size_t)ax_shape_numel(&t->shape);
    bufs[i] = ax_xmalloc(n * sizeof(double) + 1);
    for (size_t k = 0; k < n; k++)
      bufs[i][k] = ax_domain_round_to(t->dtype, ax_rng_unit(&r) - 0.5);
    pv[pin[i]] = sv[pin[i]] = (AxTensor){t->shape, bufs[i]};
    mv[min[i]] = (AxTensor){t->shape, bufs[i]};
  }
  AxArena *pa = ax_arena_new(), *sa = ax_arena_new(), *ma = ax_arena_new();
  ax_interp_run(p, &exact, pa, pv);
  ax_interp_run(p, &stored, sa, sv);
  ax_interp_run(m, &stored, ma, mv);
  int verdict = 0;
  for (int i = 0; i < p->noutputs; i++) {
    const AxKTensor *ot = &p->tensors[p->outputs[i]];
    const double *x = pv[p->outputs[i]].data;
    int64_t n = ax_shape_numel(&ot->shape), at, pat;
    double rel = rel_error(x, mv[mout[i]].data, n, &at);
    double prel = rel_error(x, sv[p->outputs[i]].data, n, &pat);
    if (rel > worst[i] || isnan(rel)) worst[i] = rel;
    if (prel > pworst[i] || isnan(prel)) pworst[i] = prel;
    double tol = o->float_tol > 0 ? o->float_tol : default_tol(ot->dtype);
    if (!(prel <= tol)) continue;   /* the program itself does not survive its storage type */
    if (!(rel <= tol)) {
      char idx[128];
      index_str(&ot->shape, at, idx, sizeof idx);
      fprintf(o->out,
              "numerically unstable: output '%s': the mugraph in %s storage is off by a relative "
              "%.3g (tolerance %.3g; the program in the same storage: %.3g) at %s: %.6g instead "
              "of %.6g\n",
              ot->name, ax_dtype_name(ot->dtype), rel, tol, prel, idx,
              ((const double *)mv[mout[i]].data)[at], x[at]);
      verdict = 1;
    }
  }
  ax_arena_free(pa);
  ax_arena_free(sa);
  ax_arena_free(ma);
  for (int i = 0; i < nin; i++) free(bufs[i]);
  free(bufs);
  free(pv);
  free(sv);
  free(mv);
  return verdict;
}

static void print_prob(FILE *out, double x) {
  if (x > 0 && x < 1e-3) fprintf(out, "%.3g (2^%.1f)", x, log2(x));
  else fprintf(out, "%.3g", x);
}

int ax_equiv_run(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o) {
  FILE *out = o->out;
  int nmax = prog->ntensors + 1;
  int *pin = ax_xmalloc((size_t)nmax * sizeof *pin), *min = ax_xmalloc((size_t)nmax * sizeof *min);
  int *mout = ax_xmalloc(((size_t)prog->noutputs + 1) * sizeof *mout);
  AxLaxVal *pb = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *pb);
  AxLaxVal *mb = ax_xcalloc((size_t)mug->noutputs + 1, sizeof *mb);
  double *worst = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *worst);
  double *pworst = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *pworst);
  int status = 3, nin = 0;
  bool sq1 = false, sq2 = false;
  if (!pair(prog, mug, d, pin, min, &nin, mout)) goto done;
  bool lax1 = ax_lax_analyse(prog, d, pb, &sq1);
  bool lax2 = ax_lax_analyse(mug, d, mb, &sq2);
  if (!lax1 || !lax2) goto done;

  fprintf(out, "equiv: program '%s' vs mugraph '%s'\n", prog->name, mug->name);
  fprintf(out, "  Lax fragment: yes%s\n",
          sq1 || sq2 ? "; sqrt (rms) is outside it and read as an uninterpreted function" : "");
  fprintf(out, "  field: Zp x Zq, p = %u, q = %u; seed %" PRIu64 "\n", AX_FIELD_P, AX_FIELD_Q, o->seed);
  double need = 1;
  bool bounded = true;
  for (int i = 0; i < prog->noutputs; i++) {
    int j = 0;
    while (mug->outputs[j] != mout[i]) j++;
    AxLaxBound b;
    ax_lax_tests(&pb[i], &mb[j], o->delta, &b);
    fprintf(out, "  bound for output '%s': k = %.4g exponential terms, degree d = %.4g",
            prog->tensors[prog->outputs[i]].name, b.k, b.d);
    if (b.m > 0) fprintf(out, ", %.4g square roots (argument degree %.3g)", b.m, b.ufdeg);
    fprintf(out, "\n    per-test miss probability <= 8dk^4/q + q^(-1/k^2)");
    if (b.m > 1) fprintf(out, " + C(m,2)d_uf/p");
    fprintf(out, " = ");
    if (b.eps < 1) print_prob(out, b.eps);
    else fprintf(out, "%.3g: no bound (Theorem 2 needs 8dk^4 < q)", b.eps);
    fputc('\n', out);
    if (isinf(b.tests)) bounded = false;
    else if (b.tests > need) need = b.tests;
  }
  int T;
  if (o->tests > 0) T = o->tests;
  else if (!bounded) T = o->unbounded_tests;
  else T = need > o->max_tests ? o->max_tests : (int)need;
  fprintf(out, "  delta = ");
  print_prob(out, o->delta);
  if (bounded)
    fprintf(out, ": T = ceil(ln delta / ln eps) = %.0f tests%s; running %d\n", need,
            need > T ? " (more than allowed)" : "", T);
  else
    fprintf(out, ": no number of tests reaches it; running %d\n", T);

  double t0 = now();
  int redrawn = 0, passed = 0;
  uint64_t stream = 1;
  for (int t = 1; t <= T; t++) {
    int v = field_test(prog, mug, pin, min, nin, mout, o->seed, stream++, t, o);
    if (v < 0) {
      if (++redrawn > 10 + T) {
        fprintf(out, "undecided: divisions by zero in %d draws\n", redrawn);
        status = 3;
        goto done;
      }
      t--;
      continue;
    }
    if (v > 0) {
      fprintf(out, "  (reproduce with --seed %" PRIu64 ")\n", o->seed);
      status = 1;
      goto done;
    }
    passed++;
  }
  fprintf(out, "  field tests: %d passed (%d redrawn for a zero divisor) in %.2f s\n", passed,
          redrawn, now() - t0);
  if (o->float_tests > 0) {
    t0 = now();
    int bad = 0;
    for (int t = 0; t < o->float_tests; t++)
      bad |= float_test(prog, mug, pin, min, nin, mout, o->seed, 0x10000 + (uint64_t)t, o, worst, pworst);
    fprintf(out, "  float check (%d run%s, inputs in [-0.5, 0.5]):", o->float_tests,
            o->float_tests == 1 ? "" : "s");
    fprintf(out, " %.2f s\n", now() - t0);
    for (int i = 0; i < prog->noutputs; i++) {
      const AxKTensor *ot = &prog->tensors[prog->outputs[i]];
      double tol = o->float_tol > 0 ? o->float_tol : default_tol(ot->dtype);
      fprintf(out, "    output '%s': max relative error %.3g in %s storage (the program in the same storage: %.3g; tolerance %.3g)%s\n",
              ot->name, worst[i], ax_dtype_name(ot->dtype), pworst[i], tol,
              pworst[i] <= tol ? "" : "\n    inconclusive: the program itself does not survive its storage type on these inputs");
    }
    if (bad) {
      status = 1;
      goto done;
    }
  }
  if (bounded && need <= T) {
    fprintf(out, "equivalent (probability of a wrong verdict <= ");
    print_prob(out, o->delta);
    fprintf(out, ")\n");
    status = 0;
  } else {
    fprintf(out, "equivalent on %d random tests, but without the guarantee: %s\n", T,
            bounded ? "fewer tests than the bound asks" : "Theorem 2 gives no bound for this pair");
    status = o->require_bound ? 2 : 0;
  }
done:
  free(pin);
  free(min);
  free(mout);
  free(pb);
  free(mb);
  free(worst);
  free(pworst);
  return status;
}
