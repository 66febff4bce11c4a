/* equiv.c — random tests in Zp x Zq and the float check. */
#include "superopt/equiv/equiv.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "superopt/arith/field.h"
#include "superopt/equiv/interp.h"
#include "superopt/equiv/interval.h"
#include "superopt/equiv/lax.h"
#include "superopt/equiv/values.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

void ax_equiv_defaults(AxEquivOpts *o) {
  memset(o, 0, sizeof *o);
  o->delta = ldexp(1.0, -30);
  o->max_tests = 1000;
  o->unbounded_tests = 8;
  o->float_tests = 1;
  o->out = stdout;
  o->jobs = 1;
}

/* fprintf to a report that may be NULL (silent). */
static void say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *out, const char *fmt, ...) {
  if (!out) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
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
    /* the element type too: the field tests read no storage type, so a graph that writes
     * an f32 output as bf16 would pass them (and the float check compares in the program's
     * type); refused here, before any test */
    if (!ax_shape_equal(&pt->shape, &mt->shape) || pt->dtype != mt->dtype) {
      ax_diag_error(d, mt->span, "output '%s' is %s%s here but %s%s in program '%s'", pt->name,
                    ax_dtype_name(mt->dtype), ax_shape_str(&mt->shape, b1, sizeof b1),
                    ax_dtype_name(pt->dtype), ax_shape_str(&pt->shape, b2, sizeof b2), p->name);
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

/* A program and a candidate paired by name (pair()). */
typedef struct Pair {
  const AxMugraph *p, *m;
  int *pin, *min, nin, *mout;
  /* per program output: whether either graph's output depends on a function the field
   * reads as uninterpreted (sqrt, a conversion, log, pow: lax.h nuf > 0), so that a field
   * difference there may be the reading's, not the reals'; NULL: every output may */
  const bool *soft;
} Pair;

/* Whether g, run again on the inputs of vals with new fresh variables for its max and min
 * (field.h), gives the outputs it gave in vals. False also when the run divides by zero
 * (no evidence of invariance); *out names the first output that moved. */
static bool invariant(const AxMugraph *g, const AxTDomain *dom, const AxTensor *vals,
                      const char **out) {
  AxField *f = dom->ctx;
  uint64_t dz = f->divzero;
  AxTensor *v2 = ax_xcalloc((size_t)g->ntensors + 1, sizeof *v2);
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) v2[g->stmts[s].t] = vals[g->stmts[s].t];
  AxArena *a = ax_arena_new();
  ax_interp_run(g, dom, a, v2);
  bool same = f->divzero == dz;
  *out = g->noutputs ? g->tensors[g->outputs[0]].name : "";
  for (int i = 0; same && i < g->noutputs; i++) {
    const AxFF *x = vals[g->outputs[i]].data, *y = v2[g->outputs[i]].data;
    int64_t n = ax_shape_numel(&vals[g->outputs[i]].shape);
    for (int64_t k = 0; same && k < n; k++) same = x[k].p == y[k].p;
    if (!same) *out = g->tensors[g->outputs[i]].name;
  }
  ax_arena_free(a);
  free(v2);
  return same;
}

/* One field test over (P, Q). Returns 0 pass, 1 differ (the report in *msg, owned by the
 * caller), 3 differ only in outputs that take an uninterpreted function (Pair.soft: the
 * report names one), 2 differ where an output depends on the value of a max or min, so
 * that the difference proves nothing (the report in *msg), -1 inconclusive (a division by
 * zero). Outputs with no uninterpreted function are compared first: a difference in one
 * of them is the reals' own whatever the other outputs do. */
static bool past(double deadline) { return deadline > 0 && ax_clock_s() > deadline; }

static int field_test(const Pair *pr, uint64_t P, uint64_t Q, uint64_t seed, uint64_t stream,
                      int testno, double deadline, char **msg) {
  const AxMugraph *p = pr->p, *m = pr->m;
  AxRng r;
  ax_rng_init(&r, seed, stream);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxTDomain dom = ax_values_field(&f);
  AxTensor *pv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *pv);
  AxTensor *mv = ax_xcalloc((size_t)m->ntensors + 1, sizeof *mv);
  AxFF **bufs = ax_xcalloc((size_t)pr->nin + 1, sizeof *bufs);
  /* Drawing the inputs is nearly half of a test on large weights (GatedMLP's two 4096 x 4096
   * matrices) and the matmuls stop only between row blocks: past the deadline the test stops
   * where it is — its caller voids a test that ends past its deadline, whatever it returns. */
  bool stop = false;
  uint64_t held = 0;   /* the inputs' bytes, taken from the memory budget (base/mem.h) */
  for (int i = 0; i < pr->nin && !stop; i++) {
    const AxTShape *sh = &p->tensors[pr->pin[i]].shape;
    size_t n = (size_t)ax_shape_numel(sh);
    ax_mem_take(n * sizeof(AxFF) + 1);
    held += n * sizeof(AxFF) + 1;
    bufs[i] = ax_xmalloc(n * sizeof(AxFF) + 1);
    for (size_t k = 0; k < n && !stop; k++) {
      bufs[i][k] = ax_field_random(&f, &r);
      stop = (k & 0xffff) == 0xffff && past(deadline);
    }
    pv[pr->pin[i]] = (AxTensor){*sh, bufs[i]};
    mv[pr->min[i]] = (AxTensor){*sh, bufs[i]};
  }
  AxArena *pa = ax_arena_new(), *ma = ax_arena_new();
  if (!stop) ax_interp_run(p, &dom, pa, pv);
  if (!stop && !past(deadline)) ax_interp_run(m, &dom, ma, mv);
  int verdict = f.divzero ? -1 : 0;
  if (past(deadline)) verdict = -1;   /* void: not compared */
  for (int pass = 0; verdict == 0 && pass < 2; pass++)
  for (int i = 0; verdict == 0 && i < p->noutputs; i++) {
    bool soft = !pr->soft || pr->soft[i];
    if (soft != (pass == 1)) continue;   /* pass 0: the outputs with no uninterpreted function */
    const AxTensor *a = &pv[p->outputs[i]], *b = &mv[pr->mout[i]];
    const AxFF *x = a->data, *y = b->data;
    int64_t n = ax_shape_numel(&a->shape);
    for (int64_t k = 0; k < n; k++) {
      bool qdiff = x[k].q != AX_FF_UNDEF && y[k].q != AX_FF_UNDEF && x[k].q != y[k].q;
      if (x[k].p == y[k].p && !qdiff) continue;
      char idx[128], q1[16], q2[16];
      index_str(&a->shape, k, idx, sizeof idx);
      qstr(x[k].q, q1, sizeof q1);
      qstr(y[k].q, q2, sizeof q2);
      int64_t bad = 0;
      for (int64_t j = k; j < n; j++) bad += x[j].p != y[j].p;
      size_t len = 0;
      FILE *mf = open_memstream(msg, &len);
      fprintf(mf,
              "not equivalent: output '%s' differs at %s in field test %d: program (%" PRIu32
              ", %s), mugraph (%" PRIu32 ", %s)\n"
              "  %" PRId64 " of its %" PRId64 " elements differ on the p side\n",
              p->tensors[p->outputs[i]].name, idx, testno, x[k].p, q1, y[k].p, q2, bad, n);
      fclose(mf);
      verdict = soft ? 3 : 1;
      break;
    }
  }
  if ((verdict == 1 || verdict == 3) && f.fresh > 0) {
    /* A max or min is a fresh variable here (field.h). The outputs differ; that refutes
     * only if neither graph's outputs depend on those variables: a graph that reads what
     * max returns (not only as a shift that cancels) is beyond the field's reach. */
    const char *po = "", *mo = "";
    bool pinv = invariant(p, &dom, pv, &po), minv = pinv && invariant(m, &dom, mv, &mo);
    if (!pinv || !minv) {
      free(*msg);
      size_t len = 0;
      FILE *mf = open_memstream(msg, &len);
      fprintf(mf,
              "cannot decide: output '%s' of the %s depends on the value of a max or min in "
              "field test %d; the field has no order and reads them as fresh variables, so it "
              "decides only graphs whose outputs do not depend on them (such as softmax's "
              "shift)\n",
              pinv ? mo : po, pinv ? "mugraph" : "program", testno);
      fclose(mf);
      verdict = 2;
    }
  }
  ax_arena_free(pa);
  ax_arena_free(ma);
  for (int i = 0; i < pr->nin; i++) free(bufs[i]);
  ax_mem_give(held);
  free(bufs);
  free(pv);
  free(mv);
  ax_field_fini(&f);
  return verdict;
}

/* ---- field tests on several threads --------------------------------------------------- */

#define NOT_RUN INT_MIN   /* a Batch verdict: the test was not started (the deadline) */

typedef struct Batch {
  const Pair *pr;
  uint64_t P, Q, seed, first;   /* streams first .. first + n - 1 */
  int n, testno0;
  int *verdict;
  char **msg;
  int next;                     /* next index to take (under lock) */
  int stop;                     /* smallest index that differed (under lock); n if none */
  double deadline;              /* no test starts after it (0: none) */
  bool late;                    /* a test was not started for the deadline (under lock) */
  pthread_mutex_t lock;
} Batch;

static void *batch_worker(void *arg) {
  Batch *b = arg;
  ax_values_stop_at(b->deadline);   /* a long matmul stops at the deadline, mid-test */
  for (;;) {
    pthread_mutex_lock(&b->lock);
    int i = b->next++;
    bool done = i >= b->n || i > b->stop;   /* later tests cannot change the verdict */
    if (!done && b->deadline > 0 && ax_clock_s() > b->deadline) b->late = done = true;
    pthread_mutex_unlock(&b->lock);
    if (done) break;
    int v = field_test(b->pr, b->P, b->Q, b->seed, b->first + (uint64_t)i, b->testno0 + i,
                       b->deadline, &b->msg[i]);
    pthread_mutex_lock(&b->lock);
    if (b->deadline > 0 && ax_clock_s() > b->deadline) {   /* its values may be cut short: void */
      free(b->msg[i]);
      b->msg[i] = NULL;
      v = NOT_RUN;
      b->late = true;
    }
    b->verdict[i] = v;
    if (v > 0 && i < b->stop) b->stop = i;
    pthread_mutex_unlock(&b->lock);
  }
  ax_values_stop_at(0);
  return NULL;
}

/* Runs field tests until T have passed, one has differed, or too many were inconclusive.
 * Streams are consumed in order 1, 2, ... and judged in that order whatever the number of
 * threads, so the verdict and the reported test depend only on the seed. Returns 0 all
 * passed, 1 a difference (*diff owns its report), 3 a difference only in outputs that take
 * an uninterpreted function (field_test), 2 a difference where an output depends on a max
 * or min (*diff owns its report), -1 undecided, -2 the deadline passed
 * before T had passed (a difference among the tests that ran still counts). */
static int run_tests(const Pair *pr, uint64_t P, uint64_t Q, uint64_t seed, int T, int jobs,
                     double deadline, int *passed, int *redrawn, char **diff) {
  uint64_t stream = 1;
  *passed = *redrawn = 0;
  *diff = NULL;
  while (*passed < T) {
    int n = T - *passed;
    Batch b = {pr, P, Q, seed, stream, n, *passed + 1, ax_xcalloc((size_t)n, sizeof(int)),
               ax_xcalloc((size_t)n, sizeof(char *)), 0, n, deadline, false, PTHREAD_MUTEX_INITIALIZER};
    for (int i = 0; i < n; i++) b.verdict[i] = NOT_RUN;
    int nth = jobs < n ? jobs : n;
    if (nth <= 1) {
      batch_worker(&b);
    } else {
      pthread_t *th = ax_xmalloc((size_t)nth * sizeof *th);
      int started = 0;
      for (int t = 0; t < nth; t++)
        if (pthread_create(&th[started], NULL, batch_worker, &b) == 0) started++;
      if (started == 0) batch_worker(&b);   /* no thread to be had: run here */
      for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
      free(th);
    }
    stream += (uint64_t)n;
    int status = 0;
    for (int i = 0; i < n && i <= b.stop; i++) {   /* judged in stream order, up to the first difference */
      if (status == 0 && b.verdict[i] == NOT_RUN) status = -2;   /* the deadline: tests taken in order */
      if (status == 0 && b.verdict[i] > 0) {
        *diff = b.msg[i];
        b.msg[i] = NULL;
        status = b.verdict[i];   /* 1 a difference, 3 one where sqrt may excuse it, 2 one that depends on a max */
      }
      if (status == 0 && b.verdict[i] == 0) (*passed)++;
      if (status == 0 && b.verdict[i] < 0) (*redrawn)++;
      free(b.msg[i]);
      b.msg[i] = NULL;
    }
    for (int i = 0; i < n; i++) free(b.msg[i]);   /* tests past a difference */
    free(b.verdict);
    free(b.msg);
    if (status) return status;
    if (*redrawn > 10 + T) return -1;
  }
  return 0;
}

/* ---- square roots: refutation in doubles ---------------------------------------------- */

/* Evaluates both graphs exactly in doubles (no storage rounding; a conversion still rounds,
 * as its operator does) on inputs uniform in [lo, hi]. Compares each output where the
 * program's element is finite (an rsqrt or sqrt of a negative value is not: those elements
 * judge nothing, the others still do). Returns 1 when some output differs there by more
 * than SQRT_REFUTE_TOL relative to the program's largest finite value, or is not finite
 * where the program is (*rel, *what get the figure and the output's name), 0 when none
 * does, -1 when no output has a finite element to compare (no judgement). The tolerance is
 * far above what doubles round to in these graphs (1e-16 an operation; a 4096-term sum in
 * another order stays near 1e-13) and far below what a wrong constant under a root
 * changes: 1e-6 let an epsilon changed by a thousandth inside an rsqrt pass, where the
 * root's other term is a thousand times larger. */
#define SQRT_REFUTE_TOL 1e-9

/* rel_error over the elements k where x[k] is finite; -1 when there is none. */
static double finite_rel_error(const double *x, const double *y, int64_t n) {
  double ref = 0, err = 0;
  bool any = false;
  for (int64_t k = 0; k < n; k++) {
    if (!isfinite(x[k])) continue;
    any = true;
    ref = fmax(ref, fabs(x[k]));
    if (!isfinite(y[k])) return INFINITY;
    err = fmax(err, fabs(y[k] - x[k]));
  }
  if (!any) return -1;
  return ref > 0 ? err / ref : err;
}

/* Both graphs of a pair run at one input point in domain d (the doubles, or intervals):
 * every input element uniform in [lo, hi] from the seed and `stream`, rounded to the
 * input's type as the program's values are; as a point [x, x] when d is the interval
 * domain. pv and mv hold the values until draw_close. */
typedef struct Draw {
  AxTensor *pv, *mv;
  void **bufs;
  int nin;
  uint64_t held;
  AxArena *pa, *ma;
} Draw;

static void draw_run(const Pair *pr, const AxTDomain *d, uint64_t seed, uint64_t stream, double lo,
                     double hi, Draw *dr) {
  const AxMugraph *p = pr->p, *m = pr->m;
  AxRng r;
  ax_rng_init(&r, seed, stream);
  bool ival = d->size == sizeof(AxIval);
  *dr = (Draw){ax_xcalloc((size_t)p->ntensors + 1, sizeof *dr->pv), ax_xcalloc((size_t)m->ntensors + 1, sizeof *dr->mv),
               ax_xcalloc((size_t)pr->nin + 1, sizeof *dr->bufs), pr->nin, 0, ax_arena_new(), ax_arena_new()};
  for (int i = 0; i < pr->nin; i++) {
    const AxKTensor *t = &p->tensors[pr->pin[i]];
    size_t n = (size_t)ax_shape_numel(&t->shape);
    ax_mem_take(n * d->size + 1);
    dr->held += n * d->size + 1;
    dr->bufs[i] = ax_xmalloc(n * d->size + 1);
    for (size_t k = 0; k < n; k++) {
      double x = ax_values_round_to(t->dtype, lo + (hi - lo) * ax_rng_unit(&r));
      if (ival) ((AxIval *)dr->bufs[i])[k] = (AxIval){x, x};
      else ((double *)dr->bufs[i])[k] = x;
    }
    dr->pv[pr->pin[i]] = (AxTensor){t->shape, dr->bufs[i]};
    dr->mv[pr->min[i]] = (AxTensor){t->shape, dr->bufs[i]};
  }
  ax_interp_run(p, d, dr->pa, dr->pv);
  ax_interp_run(m, d, dr->ma, dr->mv);
}

static void draw_close(Draw *dr) {
  ax_arena_free(dr->pa);
  ax_arena_free(dr->ma);
  for (int i = 0; i < dr->nin; i++) free(dr->bufs[i]);
  ax_mem_give(dr->held);
  free(dr->bufs);
  free(dr->pv);
  free(dr->mv);
}

static int float_refute(const Pair *pr, uint64_t seed, uint64_t stream, double lo, double hi,
                        double *rel, const char **what) {
  const AxMugraph *p = pr->p;
  AxTDomain exact = ax_values_float(false);
  Draw dr;
  draw_run(pr, &exact, seed, stream, lo, hi, &dr);
  AxTensor *pv = dr.pv, *mv = dr.mv;
  int verdict = -1;
  *rel = 0;
  for (int i = 0; i < p->noutputs; i++) {
    const double *x = pv[p->outputs[i]].data, *y = mv[pr->mout[i]].data;
    int64_t n = ax_shape_numel(&p->tensors[p->outputs[i]].shape);
    double e = finite_rel_error(x, y, n);
    if (e < 0) continue;   /* nothing finite to compare in this output */
    if (verdict < 0) verdict = 0;
    if (!(e <= SQRT_REFUTE_TOL)) {
      if (verdict == 0 || e > *rel) *rel = e, *what = p->tensors[p->outputs[i]].name;
      verdict = 1;
    }
  }
  draw_close(&dr);
  return verdict;
}

/* ---- a replayed witness: interval arithmetic (interval.h) ------------------------------ */

/* Where interval arithmetic proved that the graphs differ: output `what`, element `at`,
 * the program's value in p and the graph's in m, on inputs uniform in [lo, hi] drawn from
 * the seed and `stream` (as float_refute draws them). */
typedef struct Witness {
  const char *what;
  int64_t at;
  AxIval p, m;
  double lo, hi;
} Witness;

/* Runs both graphs in intervals at one point (draw_run) and looks for an output element
 * whose two intervals are disjoint: true, with *w, when one is found — the exact values
 * differ there. */
static bool interval_refute(const Pair *pr, uint64_t seed, uint64_t stream, double lo, double hi,
                            Witness *w) {
  const AxMugraph *p = pr->p;
  AxTDomain d = ax_values_interval();
  Draw dr;
  draw_run(pr, &d, seed, stream, lo, hi, &dr);
  AxTensor *pv = dr.pv, *mv = dr.mv;
  bool found = false;
  for (int i = 0; i < p->noutputs && !found; i++) {
    const AxIval *x = pv[p->outputs[i]].data, *y = mv[pr->mout[i]].data;
    int64_t n = ax_shape_numel(&p->tensors[p->outputs[i]].shape);
    for (int64_t k = 0; k < n && !found; k++)
      if (ax_interval_disjoint(x[k], y[k])) {
        *w = (Witness){p->tensors[p->outputs[i]].name, k, x[k], y[k], lo, hi};
        found = true;
      }
  }
  draw_close(&dr);
  return found;
}

/* A witness on the draws sqrt_confirms uses (inputs in [-1, 1], [-4, 4], [0, 1]). */
static bool witness(const Pair *pr, uint64_t seed, Witness *w) {
  static const double lo[] = {-1, -4, 0}, hi[] = {1, 4, 1};
  for (uint64_t t = 0; t < 3; t++)
    if (interval_refute(pr, seed, 0x20000 + t, lo[t], hi[t], w)) return true;
  return false;
}

static void say_witness(FILE *out, const AxMugraph *p, const Witness *w) {
  char idx[128];
  int oi = ax_mug_find(p, w->what);
  index_str(&p->tensors[oi].shape, w->at, idx, sizeof idx);
  say(out, "  replayed in interval arithmetic (inputs in [%g, %g] drawn from the seed, outward "
           "rounding): output '%s' at %s is in [%.17g, %.17g] in the program and in [%.17g, %.17g] "
           "in the mugraph, which do not meet\n",
      w->lo, w->hi, w->what, idx, w->p.lo, w->p.hi, w->m.lo, w->m.hi);
}

/* After the field tests saw a difference between graphs that take square roots: 1 when
 * doubles confirm it (two draws, either suffices: inputs in [-1, 1], then in [-4, 4], where
 * a term that [-1, 1] keeps small — an epsilon beside a square — weighs more), 0 when they
 * judged and do not, -1 when they could not judge: no finite program output on either
 * draw, nor on a third of inputs in [0, 1] (a root of an input is NaN on a negative one),
 * so nothing speaks for a law of sqrt — never read as an agreement. */
static int sqrt_confirms(const Pair *pr, uint64_t seed, double *rel, const char **what) {
  static const double lo[] = {-1, -4, 0}, hi[] = {1, 4, 1};
  bool judged = false;
  for (uint64_t t = 0; t < 3; t++) {
    if (t == 2 && judged) break;
    int v = float_refute(pr, seed, 0x20000 + t, lo[t], hi[t], rel, what);
    if (v > 0) return 1;
    if (v == 0) judged = true;
  }
  return judged ? 0 : -1;
}

/* 2 when some output element of the μGraph run exactly (ev) is not finite where the
 * program's (pv) is, saying where (the inputs in [-half, half], `how` after them), else 0. */
static int undefined_where(const AxMugraph *p, const AxMugraph *m, const AxTensor *pv,
                           const AxTensor *ev, const int *mout, double half, const char *how,
                           const AxEquivOpts *o) {
  (void)m;
  for (int i = 0; i < p->noutputs; i++) {
    const AxKTensor *ot = &p->tensors[p->outputs[i]];
    const double *x = pv[p->outputs[i]].data, *y = ev[mout[i]].data;
    int64_t n = ax_shape_numel(&ot->shape);
    for (int64_t k = 0; k < n; k++) {
      if (!isfinite(x[k]) || isfinite(y[k])) continue;
      char idx[128];
      index_str(&ot->shape, k, idx, sizeof idx);
      say(o->out,
          "  the field tests agree, but in doubles the mugraph has no value where the program "
          "has one: output '%s' at %s is %g where the program's is %.6g (inputs in "
          "[-%g, %g]%s); the field reads a root as defined everywhere and cancels x / x, so it "
          "cannot tell these apart\n",
          ot->name, idx, y[k], x[k], half, half, how);
      return 2;
    }
  }
  return 0;
}

/* One float check on inputs uniform in [-half, half]: the program exactly (the reference),
 * the program and the μGraph with storage rounding, the μGraph exactly. Returns 2 when
 * `defined` and the μGraph exactly is not finite where the program is (no value where the
 * program has one),
 * else 1 when the μGraph is unstable although the program in the same storage is not;
 * updates worst[] (μGraph) and pworst[] (program). */
static int float_test(const AxMugraph *p, const AxMugraph *m, const int *pin, const int *min,
                      int nin, const int *mout, uint64_t seed, uint64_t stream, double half,
                      bool defined, const AxEquivOpts *o, double *worst, double *pworst) {
  AxRng r;
  ax_rng_init(&r, seed, stream);
  AxTDomain exact = ax_values_float(false), stored = ax_values_float(true);
  AxTensor *pv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *pv);
  AxTensor *sv = ax_xcalloc((size_t)p->ntensors + 1, sizeof *sv);
  AxTensor *mv = ax_xcalloc((size_t)m->ntensors + 1, sizeof *mv);
  double **bufs = ax_xcalloc((size_t)nin + 1, sizeof *bufs);
  uint64_t held = 0;
  for (int i = 0; i < nin; i++) {
    const AxKTensor *t = &p->tensors[pin[i]];
    size_t n = (size_t)ax_shape_numel(&t->shape);
    ax_mem_take(n * sizeof(double) + 1);
    held += n * sizeof(double) + 1;
    bufs[i] = ax_xmalloc(n * sizeof(double) + 1);
    for (size_t k = 0; k < n; k++)
      bufs[i][k] = ax_values_round_to(t->dtype, (ax_rng_unit(&r) - 0.5) * 2 * half);
    pv[pin[i]] = sv[pin[i]] = (AxTensor){t->shape, bufs[i]};
    mv[min[i]] = (AxTensor){t->shape, bufs[i]};
  }
  AxTensor *ev = ax_xcalloc((size_t)m->ntensors + 1, sizeof *ev);
  for (int i = 0; i < nin; i++) ev[min[i]] = mv[min[i]];
  AxArena *pa = ax_arena_new(), *sa = ax_arena_new(), *ma = ax_arena_new(), *ea = ax_arena_new();
  ax_interp_run(p, &exact, pa, pv);
  ax_interp_run(p, &stored, sa, sv);
  ax_interp_run(m, &stored, ma, mv);
  ax_interp_run(m, &exact, ea, ev);
  int verdict = 0;
  /* Defined where the program is. The field reads a root as a function defined everywhere
   * and cancels x / x whatever x is, so a graph that takes the root of a negative value (or
   * divides an infinity by itself) where the program does not can pass every field test:
   * exp(rsqrt(2x)) / exp(rsqrt(2x)) against exp(rsqrt(x·x)) / exp(rsqrt(x·x)) is 1 = 1 in the
   * field, NaN against 1 at x = −3. In exact doubles (no storage rounding) such an element
   * is not finite where the program's is. Doubles are no exact replay, so this refutes
   * nothing: the verdict is *cannot decide* (2 here, status 3), never equivalent. Only on
   * inputs near 0 (`defined`): at scale an exponential that overflows is what the run looks
   * for, and it says numerically unstable. */
  if (defined) verdict = undefined_where(p, m, pv, ev, mout, half, "", o);
  if (defined && verdict == 0) {
    /* and on the same inputs negated, so that a root of an input's sign is seen whatever the
     * draw (one element of one sign on this draw) */
    for (int i = 0; i < nin; i++) {
      size_t n = (size_t)ax_shape_numel(&p->tensors[pin[i]].shape);
      for (size_t k = 0; k < n; k++) bufs[i][k] = -bufs[i][k];
    }
    AxTensor *pn = ax_xcalloc((size_t)p->ntensors + 1, sizeof *pn);
    AxTensor *en = ax_xcalloc((size_t)m->ntensors + 1, sizeof *en);
    for (int i = 0; i < nin; i++) pn[pin[i]] = pv[pin[i]], en[min[i]] = mv[min[i]];
    AxArena *na = ax_arena_new(), *nb = ax_arena_new();
    ax_interp_run(p, &exact, na, pn);
    ax_interp_run(m, &exact, nb, en);
    verdict = undefined_where(p, m, pn, en, mout, half, " negated", o);
    ax_arena_free(na);
    ax_arena_free(nb);
    free(pn);
    free(en);
    for (int i = 0; i < nin; i++) {
      size_t n = (size_t)ax_shape_numel(&p->tensors[pin[i]].shape);
      for (size_t k = 0; k < n; k++) bufs[i][k] = -bufs[i][k];
    }
  }
  for (int i = 0; i < p->noutputs && verdict != 2; i++) {
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
      say(o->out,
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
  ax_arena_free(ea);
  for (int i = 0; i < nin; i++) free(bufs[i]);
  ax_mem_give(held);
  free(bufs);
  free(pv);
  free(sv);
  free(mv);
  free(ev);
  return verdict;
}

static void print_prob(FILE *out, double x) {
  if (!out) return;
  if (x > 0 && x < 1e-3) fprintf(out, "%.3g (2^%.1f)", x, log2(x));
  else fprintf(out, "%.3g", x);
}

/* One run of check(): the two graphs, the options and what each phase leaves to the next. */
typedef struct Check {
  const AxMugraph *prog, *mug;
  const AxEquivOpts *o;
  FILE *out;
  uint64_t P, Q;
  Pair pr;                 /* inputs and outputs paired (pair()) */
  AxLaxVal *pb, *mb;       /* the outputs' abstract values (lax.h), program and μGraph */
  bool sq;                 /* a graph takes a square root (outside the Lax fragment) */
  bool *soft;              /* Pair.soft, per program output */
  bool conv;               /* a graph converts between element types (field_phase) */
  bool bounded;            /* Theorem 2 gives a number of tests for every output */
  double need;             /* tests the bound asks for */
  int T;                   /* field tests run */
  bool sqrt_law;           /* the field differs only where sqrt is uninterpreted; the doubles agree */
  char uf[160];            /* "sqrt is read as an uninterpreted function", or the plural with
                              the names of every such function the graphs apply */
  bool late;               /* the deadline stopped the field tests before they decided */
} Check;

/* Whether g converts between element types (to_f16, to_bf16, to_f32) anywhere. */
static bool uses_conversion(const AxMugraph *g) {
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    const AxEwOp *e = st->kind == AX_KS_OP ? ax_ewop_get(st->op) : NULL;
    if (e && e->to_dtype) return true;
    if (st->kind != AX_KS_KERNEL) continue;
    for (int i = 0; i < st->kernel->nnodes; i++) {
      const AxBNode *n = &st->kernel->nodes[i];
      e = n->kind == AX_BN_OP ? ax_ewop_get(n->op) : NULL;
      if (e && e->to_dtype) return true;
    }
  }
  return false;
}

/* The name by which a message calls an operator the field reads as an uninterpreted
 * function (lax.h), or NULL: rsqrt is one over sqrt's function, rms_norm and an rms
 * accumulator take sqrt's. */
static const char *uf_name(AxOp op, bool rms) {
  if (rms || op == AX_OP_RMS_NORM || op == AX_OP_RSQRT) return "sqrt";
  const AxEwOp *e = ax_ewop_get(op);
  if (!e || (e->lax != AX_EWOP_LAX_OPAQUE && e->lax != AX_EWOP_LAX_OPAQUE_INV)) return NULL;
  return ax_op_spec(op)->pname;
}

static void uf_add(const char **names, int *n, const char *nm) {
  if (!nm) return;
  for (int i = 0; i < *n; i++)
    if (strcmp(names[i], nm) == 0) return;
  if (*n < 8) names[(*n)++] = nm;
}

/* c->uf: the phrase the messages use for the uninterpreted functions of both graphs, in the
 * order they first appear ("sqrt is read as an uninterpreted function", "sin and cos are
 * read as uninterpreted functions"); sqrt when none is named (a root inside a kernel). */
static void uf_phrase(Check *c) {
  const char *names[8];
  int n = 0;
  const AxMugraph *gs[2] = {c->prog, c->mug};
  for (int k = 0; k < 2; k++)
    for (int s = 0; s < gs[k]->nstmts; s++) {
      const AxKStmt *st = &gs[k]->stmts[s];
      if (st->kind == AX_KS_OP) uf_add(names, &n, uf_name(st->op, false));
      if (st->kind != AX_KS_KERNEL) continue;
      for (int i = 0; i < st->kernel->nnodes; i++) {
        const AxBNode *nd = &st->kernel->nodes[i];
        if (nd->kind == AX_BN_OP) uf_add(names, &n, uf_name(nd->op, false));
        if (nd->kind == AX_BN_ACCUM && nd->acc == AX_ACC_RMS) uf_add(names, &n, uf_name(AX_OP_SQRT, true));
      }
    }
  if (n == 0) names[n++] = "sqrt";
  size_t len = 0, cap = sizeof c->uf;
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(c->uf + len, cap - len, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
  if (len < cap)
    snprintf(c->uf + len, cap - len, n == 1 ? " is read as an uninterpreted function"
                                            : " are read as uninterpreted functions");
}

/* Step 1: pair the graphs' inputs and outputs and place both in the Lax fragment. False
 * (diagnostics through d) when they cannot be compared. */
static bool analyse(Check *c, AxDiag *d) {
  bool sq1 = false, sq2 = false;
  if (!pair(c->prog, c->mug, d, c->pr.pin, c->pr.min, &c->pr.nin, c->pr.mout)) return false;
  bool lax1 = ax_lax_analyse(c->prog, d, c->pb, &sq1);
  bool lax2 = ax_lax_analyse(c->mug, d, c->mb, &sq2);
  if (!lax1 || !lax2) return false;
  c->sq = sq1 || sq2;
  uf_phrase(c);
  c->conv = uses_conversion(c->prog) || uses_conversion(c->mug);
  for (int i = 0; i < c->prog->noutputs; i++) {
    c->soft[i] = c->pb[i].nuf > 0;
    for (int j = 0; j < c->mug->noutputs; j++)
      if (c->mug->outputs[j] == c->pr.mout[i] && c->mb[j].nuf > 0) c->soft[i] = true;
  }
  c->pr.soft = c->soft;
  return true;
}

/* Whether g applies an operator the field reads as a fresh variable (reduce_max, reduce_min,
 * a max accumulator). */
static bool uses_fresh(const AxMugraph *g) {
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    const AxPOp *p = st->kind == AX_KS_OP ? ax_pop_get(st->op) : NULL;
    if (p && p->lax == AX_POP_LAX_FRESH) return true;
    if (st->kind != AX_KS_KERNEL) continue;
    for (int i = 0; i < st->kernel->nnodes; i++) {
      const AxBNode *n = &st->kernel->nodes[i];
      p = n->kind == AX_BN_OP ? ax_pop_get(n->op) : NULL;
      if ((p && p->lax == AX_POP_LAX_FRESH) || ax_mug_running(n)) return true;
    }
  }
  return false;
}

/* Step 2: the Lax bound of every output (Theorem 2) and from it the number of field tests,
 * T: as many as δ asks (at most max_tests), or unbounded_tests where no number reaches δ,
 * or what --tests says. */
static void bound(Check *c) {
  const AxEquivOpts *o = c->o;
  const AxMugraph *prog = c->prog, *mug = c->mug;
  FILE *out = c->out;
  say(out, "equiv: program '%s' vs mugraph '%s'\n", prog->name, mug->name);
  say(out, "  Lax fragment: yes%s%s\n",
      c->sq ? "; " : "", c->sq ? c->uf : "");
  if (uses_fresh(prog) || uses_fresh(mug))
    say(out, "  max and min: read as fresh variables, independent on each side; equivalent only "
             "if no output depends on them\n");
  say(out, "  field: Zp x Zq, p = %" PRIu64 ", q = %" PRIu64 "%s; seed %" PRIu64 "\n", c->P, c->Q,
      o->p ? " (given)" : " (drawn from the seed)", o->seed);
  c->need = 1;
  c->bounded = true;
  for (int i = 0; i < prog->noutputs; i++) {
    int j = 0;
    while (mug->outputs[j] != c->pr.mout[i]) j++;
    AxLaxBound b;
    ax_lax_tests(&c->pb[i], &c->mb[j], o->delta, (double)c->Q, (double)c->P, &b);
    say(out, "  bound for output '%s': k = %.4g exponential terms, degree d = %.4g",
        prog->tensors[prog->outputs[i]].name, b.k, b.d);
    if (b.m > 0) say(out, ", %.4g square roots (argument degree %.3g)", b.m, b.ufdeg);
    say(out, "\n    per-test miss probability <= 8dk^4/q + q^(-1/k^2)");
    if (b.m > 1) say(out, " + C(m,2)d_uf/p");
    say(out, " = ");
    if (b.eps < 1) print_prob(out, b.eps);
    else say(out, "%.3g: no bound (Theorem 2 needs 8dk^4 < q)", b.eps);
    say(out, "\n");
    if (isinf(b.tests)) c->bounded = false;
    else if (b.tests > c->need) c->need = b.tests;
  }
  if (o->tests > 0) c->T = o->tests;
  else if (!c->bounded) c->T = o->unbounded_tests;
  else c->T = c->need > o->max_tests ? o->max_tests : (int)c->need;
  say(out, "  delta = ");
  print_prob(out, o->delta);
  if (c->bounded)
    say(out, ": T = ceil(ln delta / ln eps) = %.0f tests%s; running %d on %d thread%s\n", c->need,
        c->need > c->T ? " (more than allowed)" : "", c->T, o->jobs, o->jobs == 1 ? "" : "s");
  else
    say(out, ": no number of tests reaches it; running %d on %d thread%s\n", c->T, o->jobs,
        o->jobs == 1 ? "" : "s");
}

/* Step 3: T field tests. Returns the status when they decide (3 undecided, 2 not
 * established, 1 not equivalent), -1 when the check goes on; a difference only where sqrt
 * is uninterpreted that the doubles do not confirm sets c->sqrt_law. A difference in an
 * output that takes no uninterpreted function in either graph (run_tests' 1, not 3) is the
 * reals' own — the field computes it exactly — and refutes whatever the other outputs take. */
static int field_phase(Check *c) {
  const AxEquivOpts *o = c->o;
  FILE *out = c->out;
  double t0 = ax_clock_s();
  int passed = 0, redrawn = 0;
  char *diff = NULL;
  int v = run_tests(&c->pr, c->P, c->Q, o->seed, c->T, o->jobs < 1 ? 1 : o->jobs, o->deadline,
                    &passed, &redrawn, &diff);
  if (v == -2) {
    say(out, "not established: the time limit passed after %d of %d field tests (%.2f s)\n", passed,
        c->T, ax_clock_s() - t0);
    c->late = true;
    return 2;
  }
  if (v < 0) {
    say(out, "undecided: divisions by zero in %d draws\n", redrawn);
    return 3;
  }
  if (v == 2) {
    say(out, "%s", diff);
    free(diff);
    return 3;
  }
  if (v == 3 && !c->sq) v = 1;   /* (cannot be: an output with a root makes c->sq) */
  if (v == 3 && o->field_only) {
    /* Only the doubles could excuse this difference, and they prove nothing: a graph off
     * by 1e-12 relative through a square root would pass them. Not established. */
    const char *head = "not equivalent: ";
    say(out, "field difference: %s", strncmp(diff, head, strlen(head)) ? diff : diff + strlen(head));
    free(diff);
    say(out, "not established: the field tests differ where %s; without --field-only the "
             "doubles would judge, which is evidence, not a proof\n  (reproduce with --seed %" PRIu64 ")\n",
        c->uf, o->seed);
    return 2;
  }
  if (v == 3) {
    /* The uninterpreted reading (of a root, a conversion, log, sin, ...) cannot refute by
     * itself: a refutation needs a witness. Both graphs run at one input point in interval
     * arithmetic; an output element whose two intervals do not meet is one (interval.h).
     * Without it the doubles say what they see: agreement is a law the field cannot model
     * (sqrt(x)·sqrt(x) = x, a widening conversion of a narrower value) or a difference
     * below them; a difference they see that the intervals cannot prove is none either. */
    Witness w;
    double rel = 0;
    const char *what = "";
    if (witness(&c->pr, o->seed, &w)) {
      say(out, "%s", diff);
      say_witness(out, c->prog, &w);
    } else {
      int conf = sqrt_confirms(&c->pr, o->seed, &rel, &what);
      const char *head = "not equivalent: ";
      say(out, "field difference: %s", strncmp(diff, head, strlen(head)) ? diff : diff + strlen(head));
      free(diff);
      diff = NULL;
      if (conf < 0) {
        say(out, "cannot decide: the field tests differ where %s, and the doubles cannot judge "
                 "it: no output of the program is finite on their inputs\n  (reproduce with --seed %" PRIu64 ")\n",
            c->uf, o->seed);
        return 3;
      }
      if (conf > 0) {
        say(out, "not established: the field tests differ where %s; in doubles output '%s' is "
                 "off by a relative %.3g, but interval arithmetic proves no difference at those "
                 "inputs, so no witness refutes the pair\n  (reproduce with --seed %" PRIu64 ")\n",
            c->uf, what, rel, o->seed);
        return 2;
      }
      say(out, "  the field tests differ, but only where %s; in doubles the outputs agree "
               "within %.0e relative\n",
          c->uf, SQRT_REFUTE_TOL);
      v = 0;
      c->sqrt_law = true;
    }
  }
  if (v > 0) {
    if (v == 1) say(out, "%s", diff);   /* (3: printed above) */
    if (v == 1 && c->sq)
      say(out, "  (no square root or conversion on this output's paths: the field's difference is exact)\n");
    /* A difference of polynomials and exponentials in the field is one over the reals
     * (docs/superopt.md §4); a point where it shows, proved in intervals, is said too. */
    Witness w;
    if (v == 1 && !o->field_only && witness(&c->pr, o->seed, &w)) say_witness(out, c->prog, &w);
    free(diff);
    say(out, "  (reproduce with --seed %" PRIu64 ")\n", o->seed);
    return 1;
  }
  if (!c->sqrt_law)
    say(out, "  field tests: %d passed (%d redrawn for a zero divisor) in %.2f s\n", passed,
        redrawn, ax_clock_s() - t0);
  return -1;
}

/* The half-width of the inputs of the float check at scale (float_phase): e^100 overflows
 * f32 and f16, e^(100 - max) does not. */
#define FLOAT_WIDE 100.0

/* Step 4: float_tests runs in doubles, each output compared with the program's within its
 * storage type's tolerance. Returns 3 (cannot decide) when the μGraph has no value where the
 * program has one, 1 (not equivalent) when one is off, else -1. */
static int float_phase(Check *c) {
  const AxEquivOpts *o = c->o;
  const AxMugraph *prog = c->prog;
  FILE *out = c->out;
  if (o->float_tests <= 0) return -1;
  double *worst = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *worst);
  double *pworst = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *pworst);
  double t0 = ax_clock_s();
  int bad = 0;
  for (int t = 0; t < o->float_tests; t++)
    bad |= float_test(prog, c->mug, c->pr.pin, c->pr.min, c->pr.nin, c->pr.mout, o->seed,
                      0x10000 + (uint64_t)t, 0.5, true, o, worst, pworst);
  say(out, "  float check (%d run%s, inputs in [-0.5, 0.5]):", o->float_tests,
      o->float_tests == 1 ? "" : "s");
  say(out, " %.2f s\n", ax_clock_s() - t0);
  for (int i = 0; i < prog->noutputs; i++) {
    const AxKTensor *ot = &prog->tensors[prog->outputs[i]];
    double tol = o->float_tol > 0 ? o->float_tol : default_tol(ot->dtype);
    say(out, "    output '%s': max relative error %.3g in %s storage (the program in the same storage: %.3g; tolerance %.3g)%s\n",
        ot->name, worst[i], ax_dtype_name(ot->dtype), pworst[i], tol,
        pworst[i] <= tol ? "" : "\n    inconclusive: the program itself does not survive its storage type on these inputs");
  }
  if (uses_fresh(prog)) {
    /* A max the program subtracts is what keeps its exponentials finite; the field cannot
     * tell a graph that dropped it (the shift cancels), so the doubles look at logits
     * large enough to overflow an exponential without it. */
    for (int i = 0; i < prog->noutputs; i++) worst[i] = pworst[i] = 0;
    bad |= float_test(prog, c->mug, c->pr.pin, c->pr.min, c->pr.nin, c->pr.mout, o->seed,
                      0x18000, FLOAT_WIDE, false, o, worst, pworst);
    say(out, "  float check at scale (1 run, inputs in [-%g, %g]: the program takes a max or min)\n",
        FLOAT_WIDE, FLOAT_WIDE);
    for (int i = 0; i < prog->noutputs; i++) {
      const AxKTensor *ot = &prog->tensors[prog->outputs[i]];
      double tol = o->float_tol > 0 ? o->float_tol : default_tol(ot->dtype);
      say(out, "    output '%s': max relative error %.3g (the program in the same storage: %.3g)%s\n",
          ot->name, worst[i], pworst[i],
          pworst[i] <= tol ? "" : "; inconclusive: the program itself does not survive its storage type here");
    }
  }
  free(worst);
  free(pworst);
  if (bad & 2)
    say(out, "cannot decide: in doubles the mugraph has no value where the program has one "
             "(above)\n  (reproduce with --seed %" PRIu64 ")\n", o->seed);
  return bad & 2 ? 3 : bad ? 1 : -1;
}

/* Step 5: every test passed; what kind of "equivalent" that is (*how), or 2 (not
 * established) where require_bound asks for a guarantee the tests do not give. */
static int verdict(const Check *c, AxEquivHow *how) {
  const AxEquivOpts *o = c->o;
  FILE *out = c->out;
  int status;
  if (c->sqrt_law) {
    /* Agreement in doubles is no proof: e^-1000 against e^-1001 under a root agree there,
     * and so does a constant off by 1e-12. What the doubles saw is said; the verdict is
     * not established, whatever the options. */
    say(out, "not established: the field tests differ where %s and the doubles agree, as an "
             "identity the field cannot model would explain (such as sqrt(x)*sqrt(x) = x, "
             "sin^2 + cos^2 = 1, or a conversion of a value its type already holds); agreement "
             "in doubles is evidence, not a proof\n",
        c->uf);
    status = 2;
    *how = AX_EQUIV_SQRT_LAW;
  } else if (c->bounded && c->need <= c->T) {
    say(out, "equivalent (probability of a wrong verdict <= ");
    print_prob(out, o->delta);
    say(out, ")\n");
    status = 0;
    *how = AX_EQUIV_BOUNDED;
  } else {
    say(out, "equivalent on %d random tests, but without the guarantee: %s\n", c->T,
        c->bounded ? "fewer tests than the bound asks" : "Theorem 2 gives no bound for this pair");
    status = o->require_bound ? 2 : 0;
    if (status == 0) *how = AX_EQUIV_FIELD;
  }
  return status;
}

/* The whole check of ax_equiv_run over primes (P, Q), step by step; *how tells whether an
 * "equivalent" carries the δ guarantee. */
/* A check's state for the pair, its pairing and bound arrays allocated; check_close frees
 * them. */
static void check_open(Check *c, const AxMugraph *prog, const AxMugraph *mug, const AxEquivOpts *o,
                       uint64_t P, uint64_t Q) {
  int nmax = prog->ntensors + 1;
  *c = (Check){.prog = prog, .mug = mug, .o = o, .out = o->out, .P = P, .Q = Q};
  c->pr = (Pair){prog, mug, ax_xmalloc((size_t)nmax * sizeof(int)), ax_xmalloc((size_t)nmax * sizeof(int)),
                 0, ax_xmalloc(((size_t)prog->noutputs + 1) * sizeof(int)), NULL};
  c->pb = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *c->pb);
  c->mb = ax_xcalloc((size_t)mug->noutputs + 1, sizeof *c->mb);
  c->soft = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *c->soft);
}

static void check_close(Check *c) {
  free(c->pr.pin);
  free(c->pr.min);
  free(c->pr.mout);
  free(c->pb);
  free(c->mb);
  free(c->soft);
}

/* Whether the check of mug against prog fits in what the memory budget leaves (base/mem.h);
 * reported through d when not. */
static bool fits(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o) {
  int64_t need = ax_equiv_bytes(prog, mug, o->jobs);
  if (ax_mem_fits((uint64_t)need)) return true;
  ax_diag_error(d, (AxSpan){0},
                "the equivalence check of program '%.64s' and mugraph '%.64s' needs about %lld MB, more than "
                "the --memory limit of %llu MB leaves (%llu MB held)",
                prog->name, mug->name, (long long)(need >> 20) + 1, (unsigned long long)(ax_mem_limit() >> 20),
                (unsigned long long)(ax_mem_held() >> 20));
  return false;
}

static int check(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o,
                 uint64_t P, uint64_t Q, AxEquivHow *how) {
  Check c;
  *how = AX_EQUIV_NONE;
  if (!fits(prog, mug, d, o)) return 3;   /* before anything is allocated */
  check_open(&c, prog, mug, o, P, Q);
  int status = 3;
  if (analyse(&c, d)) {
    bound(&c);
    status = field_phase(&c);
    if (c.late) *how = AX_EQUIV_LATE;
    if (status < 0) {
      /* the float check is bounded by the deadline too: its matmuls stop there, and a check
       * the deadline cut short is no verdict (values past it are zeros, not the graph's) */
      ax_values_stop_at(o->deadline);
      status = float_phase(&c);
      ax_values_stop_at(0);
      if (past(o->deadline)) {
        say(c.out, "not established: the time limit passed during the float check\n");
        *how = AX_EQUIV_LATE;
        status = 2;
      }
    }
    if (status < 0) status = verdict(&c, how);
  }
  check_close(&c);
  return status;
}

static void primes_of(const AxEquivOpts *o, uint64_t *P, uint64_t *Q) {
  if (o->p) *P = o->p, *Q = o->q;
  else ax_field_draw_primes(o->seed, P, Q);
}

int ax_equiv_run_how(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d,
                     const AxEquivOpts *o, AxEquivHow *how) {
  uint64_t P, Q;
  AxEquivHow h;
  primes_of(o, &P, &Q);
  int st = check(prog, mug, d, o, P, Q, &h);
  if (how) *how = h;
  return st;
}

int ax_equiv_run(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o) {
  return ax_equiv_run_how(prog, mug, d, o, NULL);
}

/* The check's own cost, measured rather than modelled: the bound's T (analysis only), times
 * one field test at full shape, timed, plus one more for the float check (one evaluation in
 * doubles of each graph costs about what a field test does). */
double ax_equiv_estimate(const AxMugraph *prog, const AxMugraph *mug, const AxEquivOpts *o) {
  uint64_t P, Q;
  primes_of(o, &P, &Q);
  AxEquivOpts eo = *o;
  eo.out = NULL;
  Check c;
  check_open(&c, prog, mug, &eo, P, Q);
  AxDiag quiet;
  ax_diag_init(&quiet, NULL);
  double est = -1;
  if (fits(prog, mug, &quiet, o) && analyse(&c, &quiet)) {
    bound(&c);
    int passed, redrawn;
    char *diff = NULL;
    double t0 = ax_clock_s();
    int v = run_tests(&c.pr, P, Q, o->seed, 1, 1, o->deadline, &passed, &redrawn, &diff);
    double one = ax_clock_s() - t0;
    free(diff);
    /* the field tests spread over the threads; the float check runs on one, and evaluates
     * the program twice and the graph three times in doubles (storage, f64, and where the
     * program is defined on a draw and its negation): measured on GQA, 1.6 field tests */
    if (v != -2) est = c.T * one / (o->jobs < 1 ? 1 : o->jobs) + (o->float_tests > 0 ? 2 * one : 0);
  }
  check_close(&c);
  return est;
}

int ax_equiv_accept(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o) {
  AxEquivOpts eo = *o;
  eo.field_only = true;   /* never the doubles' "by testing, no bound" through a sqrt */
  AxEquivHow how = AX_EQUIV_NONE;
  int st = ax_equiv_run_how(prog, mug, d, &eo, &how);
  if (how == AX_EQUIV_LATE) return 4;
  /* belt and braces: only what exact field tests established is accepted */
  if (st == 0 && how != AX_EQUIV_BOUNDED && how != AX_EQUIV_FIELD) st = 2;
  return st;
}

/* a + b and a * b, saturating at INT64_MAX (both non-negative) */
static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Whether g takes a max or a min anywhere (element-wise, folded or accumulated): the field
 * reads them as fresh variables, and a difference is then judged by a second run. */
static bool orders(const AxMugraph *g) {
  if (uses_fresh(g)) return true;
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_OP && (st->op == AX_OP_MAX || st->op == AX_OP_MIN)) return true;
    for (int i = 0; st->kind == AX_KS_KERNEL && i < st->kernel->nnodes; i++) {
      const AxBNode *n = &st->kernel->nodes[i];
      if (n->kind == AX_BN_OP && (n->op == AX_OP_MAX || n->op == AX_OP_MIN)) return true;
    }
  }
  return false;
}

int64_t ax_equiv_bytes(const AxMugraph *prog, const AxMugraph *mug, int jobs) {
  int64_t fp = ax_interp_bytes(prog, sizeof(AxFF)), fm = ax_interp_bytes(mug, sizeof(AxFF));
  int64_t dp = ax_interp_bytes(prog, sizeof(double)), dm = ax_interp_bytes(mug, sizeof(double));
  /* a field test holds both graphs' values (inputs counted in each) and, for a max or min
   * read as a fresh variable, a second run of one of them (invariant()) */
  int64_t field = sat_add(fp, fm);
  if (orders(prog) || orders(mug)) field = sat_add(field, fp > fm ? fp : fm);
  field = sat_mul(field, jobs < 1 ? 1 : jobs);
  /* a float test: the program exactly and in storage, the graph in storage */
  int64_t flt = sat_add(sat_mul(dp, 2), dm);
  /* a witness in intervals (interval_refute): both graphs, two doubles an element */
  int64_t ivl = sat_add(ax_interp_bytes(prog, sizeof(AxIval)), ax_interp_bytes(mug, sizeof(AxIval)));
  if (ivl > flt) flt = ivl;
  return field > flt ? field : flt;
}

/* ---- the search's fast path ------------------------------------------------------------ */

/* Scale factors tried, largest first, and the smallest size a scaled dim may have (a dim
 * of 1 would start to broadcast: a different structure). */
static const int64_t factors[] = {64, 32, 16, 8, 4, 2};
#define MIN_SCALED 8
#define NFACTORS ((int)AX_COUNTOF(factors))

static int64_t scaled(int64_t s, int64_t f) { return s % f == 0 && s / f >= MIN_SCALED ? s / f : s; }

/* Every size written in g: input dims, shape attributes, `to` attributes. */
static void sizes_of(const AxMugraph *g, int64_t **v, int *n, int *cap) {
#define PUSH(x)                                                                     \
  do {                                                                              \
    if (*n == *cap) *cap = *cap * 2 + 16, *v = ax_xrealloc(*v, (size_t)*cap * sizeof **v); \
    (*v)[(*n)++] = (x);                                                             \
  } while (0)
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_INPUT)
      for (int i = 0; i < g->tensors[st->t].shape.rank; i++) PUSH(g->tensors[st->t].shape.dim[i]);
    if (st->kind == AX_KS_OP) {
      /* a transpose's list holds axes, not sizes: never scaled */
      if (!(ax_op_spec(st->op)->tattrs & AX_TA_PERM))
        for (int i = 0; i < st->at.shape.rank; i++) PUSH(st->at.shape.dim[i]);
      if (st->at.to) PUSH(st->at.to);
    }
    if (st->kind == AX_KS_KERNEL)
      for (int k = 0; k < st->kernel->nnodes; k++) {
        const AxBNode *nd = &st->kernel->nodes[k];
        for (int i = 0; i < nd->at.shape.rank; i++) PUSH(nd->at.shape.dim[i]);
        if (nd->at.to) PUSH(nd->at.to);
      }
  }
#undef PUSH
}

/* The size map s -> scaled(s, f) is usable for these sizes: it changes some and merges none. */
static bool map_ok(const int64_t *v, int n, int64_t f) {
  bool changes = false;
  for (int i = 0; i < n; i++) {
    changes = changes || scaled(v[i], f) != v[i];
    for (int j = 0; j < i; j++)
      if (v[i] != v[j] && scaled(v[i], f) == scaled(v[j], f)) return false;
  }
  return changes;
}

static void scale_shape(AxTShape *s, int64_t f) {
  for (int i = 0; i < s->rank; i++) s->dim[i] = scaled(s->dim[i], f);
}

/* A copy of g (in a) with every size mapped by f, validated; NULL when it does not
 * validate (a grid, a for-loop or a tile no longer divides) or g holds a slice or a pad (their
 * offsets do not scale). Names, spans and notes are
 * shared with g. */
static AxMugraph *scale_copy(AxArena *a, const AxMugraph *g, int64_t f) {
  AxMugraph *c = ax_arena_alloc(a, sizeof *c);
  *c = *g;
  c->stmts = ax_arena_alloc(a, ((size_t)g->nstmts + 1) * sizeof *c->stmts);
  memcpy(c->stmts, g->stmts, (size_t)g->nstmts * sizeof *c->stmts);
  c->tensors = ax_arena_alloc(a, ((size_t)g->ntensors + 1) * sizeof *c->tensors);
  memcpy(c->tensors, g->tensors, (size_t)g->ntensors * sizeof *c->tensors);
  for (int s = 0; s < c->nstmts; s++) {
    AxKStmt *st = &c->stmts[s];
    if (st->kind == AX_KS_INPUT) scale_shape(&c->tensors[st->t].shape, f);
    if (st->kind == AX_KS_OP) {
      /* a slice's or a pad's offsets are positions, not sizes: no scaled copy has them */
      if (ax_op_spec(st->op)->tattrs & (AX_TA_SLICE | AX_TA_PAD)) return NULL;
      if (!(ax_op_spec(st->op)->tattrs & AX_TA_PERM)) scale_shape(&st->at.shape, f);
      if (st->at.to) st->at.to = scaled(st->at.to, f);
    }
    if (st->kind == AX_KS_KERNEL) {
      AxKernel *k = ax_arena_alloc(a, sizeof *k);
      *k = *st->kernel;
      k->nodes = ax_arena_alloc(a, ((size_t)k->nnodes + 1) * sizeof *k->nodes);
      memcpy(k->nodes, st->kernel->nodes, (size_t)k->nnodes * sizeof *k->nodes);
      for (int i = 0; i < k->nnodes; i++) {
        scale_shape(&k->nodes[i].at.shape, f);
        if (k->nodes[i].at.to) k->nodes[i].at.to = scaled(k->nodes[i].at.to, f);
      }
      st->kernel = k;
    }
  }
  AxDiag silent;
  ax_diag_init(&silent, NULL);
  return ax_mug_check(c, &silent) ? c : NULL;
}

struct AxEquivCtx {
  const AxMugraph *prog;
  AxEquivOpts o;
  uint64_t P, Q;
  AxArena *arena;
  int64_t *sizes;               /* the program's sizes */
  int nsizes;
  AxMugraph *scaled[NFACTORS];  /* the program at each factor; NULL where it does not build */
  bool sqrt_prog;               /* the program takes square roots */
};

AxEquivCtx *ax_equiv_ctx_new(const AxMugraph *prog, const AxEquivOpts *o) {
  AxEquivCtx *c = ax_xcalloc(1, sizeof *c);
  c->prog = prog;
  c->o = *o;
  c->o.out = NULL;
  if (c->o.jobs < 1) c->o.jobs = 1;
  primes_of(o, &c->P, &c->Q);
  c->arena = ax_arena_new();
  int cap = 0;
  sizes_of(prog, &c->sizes, &c->nsizes, &cap);
  for (int i = 0; i < NFACTORS; i++)
    c->scaled[i] = map_ok(c->sizes, c->nsizes, factors[i]) ? scale_copy(c->arena, prog, factors[i]) : NULL;
  AxLaxVal *pb = ax_xcalloc((size_t)prog->noutputs + 1, sizeof *pb);
  AxDiag silent;
  ax_diag_init(&silent, NULL);
  ax_lax_analyse(prog, &silent, pb, &c->sqrt_prog);
  free(pb);
  return c;
}

void ax_equiv_ctx_free(AxEquivCtx *c) {
  if (!c) return;
  ax_arena_free(c->arena);
  free(c->sizes);
  free(c);
}

void ax_equiv_ctx_primes(const AxEquivCtx *c, uint64_t *p, uint64_t *q) {
  *p = c->P;
  *q = c->Q;
}

/* Stage 1: 1 when the scaled instance shows a genuine difference, 0 otherwise (passed,
 * or no instance could be built: *scale stays 1). */
static int filter(const AxEquivCtx *c, const AxMugraph *mug, int64_t *scale) {
  *scale = 1;
  int64_t *v = ax_xmalloc(((size_t)c->nsizes + 1) * sizeof *v);
  memcpy(v, c->sizes, (size_t)c->nsizes * sizeof *v);
  int n = c->nsizes, cap = c->nsizes;
  sizes_of(mug, &v, &n, &cap);
  AxArena *a = ax_arena_new();
  int verdict = 0;
  for (int i = 0; i < NFACTORS; i++) {
    if (!c->scaled[i] || !map_ok(v, n, factors[i])) continue;
    AxMugraph *sm = scale_copy(a, mug, factors[i]);
    if (!sm) continue;
    const AxMugraph *sp = c->scaled[i];
    Pair pr = {sp, sm, ax_xmalloc(((size_t)sp->ntensors + 1) * sizeof(int)),
               ax_xmalloc(((size_t)sp->ntensors + 1) * sizeof(int)), 0,
               ax_xmalloc(((size_t)sp->noutputs + 1) * sizeof(int)), NULL};
    AxDiag silent;
    ax_diag_init(&silent, NULL);
    AxLaxVal *mb = ax_xcalloc((size_t)sm->noutputs + 1, sizeof *mb);
    bool sq = false;
    if (pair(sp, sm, &silent, pr.pin, pr.min, &pr.nin, pr.mout) &&
        ax_lax_analyse(sm, &silent, mb, &sq)) {
      *scale = factors[i];
      int passed, redrawn;
      char *diff = NULL;
      verdict = run_tests(&pr, c->P, c->Q, c->o.seed ^ 0x5ca1ed, 1, 1, 0, &passed, &redrawn, &diff) > 0;
      free(diff);
      if (verdict && (sq || c->sqrt_prog) && !c->o.field_only) {
        double rel;
        const char *what;
        verdict = sqrt_confirms(&pr, c->o.seed, &rel, &what) > 0;
      }
    }
    free(mb);
    free(pr.pin);
    free(pr.min);
    free(pr.mout);
    break;   /* one instance is enough: the largest factor that builds */
  }
  ax_arena_free(a);
  free(v);
  return verdict;
}

void ax_equiv_candidate(const AxEquivCtx *c, const AxMugraph *mug, AxDiag *d, AxEquivResult *r) {
  double t0 = ax_clock_s();
  AxDiag silent;
  ax_diag_init(&silent, NULL);
  memset(r, 0, sizeof *r);
  if (filter(c, mug, &r->scale)) {
    r->status = 1;
    r->filtered = true;
  } else {
    AxEquivHow how;
    r->status = check(c->prog, mug, d ? d : &silent, &c->o, c->P, c->Q, &how);
    r->bounded = how == AX_EQUIV_BOUNDED;
    r->how = how;
  }
  r->ms = (ax_clock_s() - t0) * 1e3;
}
