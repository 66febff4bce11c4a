/* search.c — the driver of the superoptimizer (search.h): threads, the candidates'
 * judgement (validate, cost, filter, keep), the final full-shape check. The generator is
 * generate.c. */
#include "superopt/search/search.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "base/mem.h"
#include "run/mpi.h"
#include "superopt/equiv/equiv.h"
#include "superopt/equiv/exact.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"
#include "superopt/search/canon.h"
#include "superopt/search/generate.h"
#include "superopt/search/spread.h"

/* The classes the generator's classes() (generate.c) refuses with "does not handle". */
bool ax_search_handles(AxOp op) {
  AxOpClass c = ax_op_spec(op)->cls;
  return c != AX_TC_NONE && c != AX_TC_LAYOUT;
}

void ax_search_defaults(AxSearchOpts *o) {
  memset(o, 0, sizeof *o);
  o->jobs = 1;
  o->top = 5;
  o->target = ax_cost_target(AX_COST_DEFAULT);
  o->max_kernel_ops = 3;
  o->max_kernels = 2;
  o->max_block_ops = 10;
  o->max_grid_dims = 3;
  o->min_blocks = 8;
  o->max_blocks = 1024;
  o->forloops[0] = 4;
  o->forloops[1] = 16;
  o->forloops[2] = 64;
  o->prune = true;
  o->verify_final = true;
  o->seed = 2024;
}

/* --- judging candidates -------------------------------------------------------------- */

/* g validated in place (sizes, phases, shared memory: mugraph.h), diagnostics counted
 * only; g when valid, else NULL. */
static AxMugraph *valid(AxMugraph *g) {
  FILE *sink = NULL;   /* a candidate's diagnostics are counted, not printed */
  AxDiag d;
  ax_diag_init(&d, sink);
  return ax_mug_check(g, &d) ? g : NULL;
}

/* By modelled time, then by text: which of two graphs of equal time comes first does not
 * depend on which thread (or rank, spread.h) found it first. */
static int cmp_found(const void *a, const void *b) {
  const Found *x = a, *y = b;
  if (x->time_s != y->time_s) return x->time_s < y->time_s ? -1 : 1;
  return strcmp(x->text, y->text);
}

/* Whether a graph of time t and text `text` enters a full top list, whose last entry is
 * `worst`: before it in cmp_found's order. A graph as fast as the worst kept one but first
 * by text enters too, so the list is the first `top` graphs of everything built in that
 * order, whichever thread built which first (a tie dropped on arrival made the kept graphs
 * depend on the threads' timing). */
static bool enters(double t, const char *text, const Found *worst) {
  return t < worst->time_s || (t == worst->time_s && strcmp(text, worst->text) < 0);
}

/* Two independent 64-bit hashes of a candidate text (FNV-1a from two offsets), the first
 * never 0 so that {0, 0} marks an empty slot. */
static void text_hash(const char *t, uint64_t h[2]) {
  uint64_t x = 1469598103934665603ull, y = 0x9e3779b97f4a7c15ull;
  for (; *t; t++) {
    x = (x ^ (unsigned char)*t) * 1099511628211ull;
    y = (y ^ (unsigned char)*t) * 0x100000001b3ull + 0x632be59bd9b4e019ull;
  }
  h[0] = x ? x : 1;   /* not x | 1: the low bits pick the slot */
  h[1] = y;
}

/* Adds a text, given by its hashes (text_hash), to the set of texts already seen; false
 * when it was there. A search emits hundreds of thousands of candidates: the set is hashed
 * (a list scanned per candidate, under the lock, grew quadratically) and keeps 16 bytes per
 * text, not the text. Two texts with equal 128-bit hashes would lose the second candidate
 * from the search — never a wrong result (every result is checked) and, at 10^6
 * candidates, a chance of about 10^-27. Caller holds s->mu. */
static bool seen_add(SearchState *s, const uint64_t h[2]) {
  if (2 * (s->nseen + 1) > s->capseen) {
    int cap = s->capseen ? s->capseen * 2 : 1024;
    ax_mem_take((size_t)cap * sizeof(uint64_t[2]));   /* search state: taken before it is allocated */
    uint64_t (*t)[2] = ax_xcalloc((size_t)cap, sizeof *t);
    for (int i = 0; i < s->capseen; i++)
      if (s->seen[i][0]) {
        size_t j = s->seen[i][0] & (size_t)(cap - 1);
        while (t[j][0]) j = (j + 1) & (size_t)(cap - 1);
        t[j][0] = s->seen[i][0];
        t[j][1] = s->seen[i][1];
      }
    free(s->seen);
    ax_mem_give((size_t)s->capseen * sizeof *t);
    s->seen = t;
    s->capseen = cap;
  }
  size_t j = h[0] & (size_t)(s->capseen - 1);
  for (; s->seen[j][0]; j = (j + 1) & (size_t)(s->capseen - 1))
    if (s->seen[j][0] == h[0] && s->seen[j][1] == h[1]) return false;
  s->seen[j][0] = h[0];
  s->seen[j][1] = h[1];
  s->nseen++;
  return true;
}

/* A complete candidate: validate, cost, filter, keep. */
static void emit(Worker *w, const int *outs) {
  SearchState *s = w->s;
  const AxSearchOpts *o = s->o;
  /* the candidate as a graph, and its text: the dedup key and what is kept */
  AxArena *a = ax_arena_new();
  AxMugraph *g = ax_generate_candidate(a, w, outs, NULL);
  char *text = ax_mugtext_string(g);
  if (o->pin) {
    /* reachability: compare with the pinned graph, nothing else */
    g = valid(g);
    char *k = g ? ax_canon_key(g) : NULL;
    bool hit = k && strcmp(k, s->pin_key) == 0;
    if (getenv("AXLE_SEARCH_DEBUG")) fprintf(stderr, "pinned candidate%s:\n%s%s", hit ? " (reached)" : "", text, k ? k : "");
    pthread_mutex_lock(&s->mu);
    s->candidates++;
    s->pin_candidates++;
    if (hit && !s->pin_reached) {
      s->pin_reached = true;
      s->stop = true;
      s->nfound = 1;
      s->found[0] = (Found){text, 0};
      text = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    free(k);
    ax_arena_free(a);
    free(text);
    return;
  }
  uint64_t h[2];
  text_hash(text, h);   /* outside the lock: the threads share only the set */
  pthread_mutex_lock(&s->mu);
  s->candidates++;
  bool dup = !seen_add(s, h);
  pthread_mutex_unlock(&s->mu);
  if (dup) {
    ax_arena_free(a);
    free(text);
    return;
  }
  g = valid(g);
  double t = 0;
  bool keep = false;
  if (g) {
    AxCost c;
    ax_cost_run(a, g, o->target, &c);
    t = c.time_s;
    keep = c.fits;
  }
  if (keep) {
    pthread_mutex_lock(&s->mu);
    if (s->nfound >= o->top && !enters(t, text, &s->found[s->nfound - 1])) keep = false;
    if (o->incumbent && t >= o->incumbent_s) keep = false;   /* only what beats the floor */
    if (s->bound_s > 0 && t > s->bound_s) keep = false;       /* alone: one of the two above;
                                                                 with ranks, theirs too (a
                                                                 tie may still enter) */
    pthread_mutex_unlock(&s->mu);
  }
  if (keep) {
    /* the filter: one field test on the scaled-down instance */
    SizeMap m;
    ax_generate_scale_map(w, &m);
    if (!s->scalable || ax_generate_uses_sized(w)) memset(&m, 0, sizeof m);
    AxMugraph *sg = valid(ax_generate_candidate(a, w, outs, &m));
    AxMugraph *sp = valid(ax_generate_scaled_program(a, s->prog, s->tcls, &m));
    int verdict = 3;
    double c0 = ax_clock_s(), u0 = ax_clock_cpu_s();
    if (sg && sp) {
      AxEquivOpts eo;
      ax_equiv_defaults(&eo);
      eo.tests = 1;
      eo.float_tests = 0;
      eo.field_only = true;   /* no doubles: the final check refuses a sqrt law anyway */
      eo.seed = o->seed + (uint64_t)s->checked;
      FILE *sink = NULL;   /* equiv's report and diagnostics are counted, not printed */
      eo.out = sink;
      AxDiag d;
      ax_diag_init(&d, sink);
      verdict = ax_equiv_run(sp, sg, &d, &eo);
    }
    if (getenv("AXLE_SEARCH_DEBUG")) {
      fprintf(stderr, "candidate %.3f us, filter %d (%s)\n", t * 1e6, verdict,
              sg && sp ? "scaled" : "did not validate");
      if (sg) ax_mugtext_print(stderr, sg);
    }
    double cs = ax_clock_s() - c0, us = ax_clock_cpu_s() - u0;
    pthread_mutex_lock(&s->mu);
    s->checked++;
    s->check_s += cs;
    s->check_cpu_s += us;
    if (verdict == 0) {
      s->equivalent++;
      if (s->nfound < o->top) {
        s->found[s->nfound++] = (Found){text, t};
        text = NULL;
      } else if (enters(t, text, &s->found[s->nfound - 1])) {
        free(s->found[s->nfound - 1].text);
        s->found[s->nfound - 1] = (Found){text, t};
        text = NULL;
      }
      qsort(s->found, (size_t)s->nfound, sizeof(Found), cmp_found);
      /* only ever lowered: other ranks may have lowered it further (spread.h) */
      if (s->nfound >= o->top && (s->bound_s <= 0 || s->found[s->nfound - 1].time_s < s->bound_s))
        __atomic_store(&s->bound_s, &s->found[s->nfound - 1].time_s, __ATOMIC_RELAXED);
      if (s->found[0].time_s < s->best_s || s->best_s == 0) {
        s->best_s = s->found[0].time_s;
        s->best_at = ax_clock_s() - s->start;
      }
    }
    pthread_mutex_unlock(&s->mu);
  }
  ax_arena_free(a);
  free(text);
}

/* --- driver --------------------------------------------------------------------------- */

/* A thread of the search: one worker of the generator, and whether it has ended (read by
 * ax_spread_wait while the threads run). */
typedef struct Thread {
  Worker w;
  bool *done;
} Thread;

static void *worker(void *arg) {
  Thread *t = arg;
  ax_generate_run(&t->w);
  if (getenv("AXLE_SEARCH_DEBUG"))   /* the balance of the prefix split */
    fprintf(stderr, "worker %d of %d: ended at %.3f s\n", t->w.id, t->w.jobs, ax_clock_s() - t->w.s->start);
  bool yes = true;
  __atomic_store(t->done, &yes, __ATOMIC_RELEASE);
  return NULL;
}

/* With ranks (spread.h): the full-shape check of the i-th kept candidate. */
typedef struct Final {
  const AxMugraph *prog;
  const SearchState *s;
  const AxSearchOpts *alone;   /* the options with ranks 1: this rank's check alone */
} Final;

static int check_final(void *ctx, int i) {
  const Final *f = ctx;
  return ax_search_accept(f->prog, f->s->found[i].text, f->alone);
}

/* A line every 0.5 s, and at least one: a search that ends before the thread first looks
 * still reports its state once (what a progress line shows must not depend on speed). */
static void *progress(void *arg) {
  SearchState *s = arg;
  FILE *out = s->o->progress;
  bool once = false;
  while (!once || !s->stop) {
    once = true;
    struct timespec ts = {0, 500000000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&s->mu);
    double el = ax_clock_s() - s->start;
    if (el <= 0) el = 1e-9;
    fprintf(out, "\r%6.1f s  built %ld (%.0f/s)  checked %ld (%.1f/s)  equivalent %ld  best %s",
            el, s->states, (double)s->states / el, s->checked, (double)s->checked / el,
            s->equivalent, s->nfound ? "" : "-");
    if (s->nfound) fprintf(out, "%.2f us (modelled)", s->found[0].time_s * 1e6);
    fflush(out);
    pthread_mutex_unlock(&s->mu);
  }
  fputc('\n', out);
  return NULL;
}

int ax_search_accept(const AxMugraph *prog, const char *text, const AxSearchOpts *o) {
  if (o->ranks > 1) {
    /* every rank together: rank 0 checks, the others wait for its status (a maximum with
     * their -1) — one check where each would run the same one, and one verdict for all */
    AxSearchOpts alone = *o;
    alone.ranks = 1;
    double st = o->rank == 0 ? ax_search_accept(prog, text, &alone) : -1;
    ax_mpi_reduce_all(&st, 1, AX_MPI_MAX);
    return (int)st;
  }
  FILE *sink = NULL;   /* diagnostics and equiv's report are counted, not printed */
  AxArena *a = ax_arena_new();
  AxMugraph *g = ax_load_from_text(a, NULL, "<candidate>", text, NULL);
  int st = 3;
  if (g) {
    AxEquivOpts eo;
    ax_equiv_defaults(&eo);
    eo.seed = o->seed;
    if (o->delta > 0) eo.delta = o->delta;
    eo.out = getenv("AXLE_SEARCH_DEBUG") ? stderr : sink;
    eo.jobs = o->jobs < 1 ? 1 : o->jobs;
    eo.deadline = o->deadline;
    AxDiag dd;
    ax_diag_init(&dd, sink);
    st = ax_equiv_accept(prog, g, &dd, &eo);
  }
  ax_arena_free(a);
  return st;
}

/* Test hook (axle-test only, base/hooks.h): AXLE_TEST_SEARCH_INJECT=FILE.mug adds that graph to the kept candidates,
 * ranked first (modelled 0 s), as if the generator had built it and the filter had passed
 * it — so that a test can show what the final check does with a graph that the generator
 * would not build today (tests/e2e/superopt_search.sh). */
static void inject(SearchState *s) {
  const char *path = ax_test_hook("AXLE_TEST_SEARCH_INJECT");
  if (!path || !*path) return;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  int c;
  while ((c = fgetc(f)) != EOF) fputc(c, m);
  fclose(m);
  fclose(f);
  memmove(s->found + 1, s->found, sizeof(Found) * (size_t)s->nfound);
  s->found[0] = (Found){text, 0};
  s->nfound++;
}

/* The index-only bounds of prog's tensors (exact.h), malloc'd: the caller frees. */
static int64_t *exact_bounds(const AxMugraph *prog) {
  int64_t *tb = malloc(sizeof *tb * (size_t)(prog->ntensors + 1));
  int64_t **nb = calloc((size_t)prog->nstmts + 1, sizeof *nb);
  for (int i = 0; i < prog->nstmts; i++)
    if (prog->stmts[i].kind == AX_KS_KERNEL)
      nb[i] = malloc(sizeof **nb * (size_t)(prog->stmts[i].kernel->nnodes + 1));
  ax_exact_analyse(prog, tb, nb);
  for (int i = 0; i < prog->nstmts; i++) free(nb[i]);
  free(nb);
  return tb;
}

/* A comparison of two index values (exact.h) is decided exactly in the field, so a program
 * that compares only those (a causal mask) can be searched and its graphs proved; one that
 * compares data cannot. */
bool ax_search_supported(const AxMugraph *prog, AxDiag *d) {
  bool ok = true;
  int64_t *tb = exact_bounds(prog);
  for (int i = 0; i < prog->nstmts; i++) {
    const AxKStmt *st = &prog->stmts[i];
    const AxEwOp *e = st->kind == AX_KS_OP ? ax_ewop_get(st->op) : NULL;
    if (!e || e->lax != AX_EWOP_LAX_ORDER) continue;
    int64_t b[AX_MAXIN];
    for (int j = 0; j < st->nin; j++) b[j] = tb[st->in[j]];
    if (ax_exact_decides(st->op, b, st->nin)) continue;
    ax_diag_error(d, st->span,
                  "superopt cannot search a program that uses %s: it needs an order, which the "
                  "equivalence check's finite field lacks, so no graph found could be proved",
                  ax_op_pname(st->op));
    ok = false;
  }
  free(tb);
  return ok;
}

/* Whether prog has a mask the generator cannot read, and nothing else it cannot: every
 * operator the generator does not handle itself (it builds no iota, reshape, broadcast or
 * select of its own) makes an index value — an iota, a reshape or broadcast of literals and
 * index values — or is a select on an index-only mask, and the generator cannot build the
 * masked selects whole (ax_generate_reads_masks: the mask and the fill index values, the
 * other branch a value it holds as a tile). Such a program is left to the floor, which
 * makes the mask inside its kernel (greedy.h); any other layout operator keeps the
 * generator's refusal. */
static bool mask_only(const AxMugraph *prog) {
  int64_t *tb = exact_bounds(prog);
  bool *idx = calloc((size_t)prog->ntensors + 1, sizeof *idx);
  bool any = false, ok = true;
  for (int t = 0; t < prog->ntensors; t++) idx[t] = prog->tensors[t].anon || tb[t] >= 0;
  for (int i = 0; i < prog->nstmts && ok; i++) {
    const AxKStmt *st = &prog->stmts[i];
    if (st->kind != AX_KS_OP || ax_search_handles(st->op)) continue;
    any = true;
    if (st->op == AX_OP_IOTA) idx[st->t] = true;
    else if (st->op == AX_OP_RESHAPE || st->op == AX_OP_BROADCAST) idx[st->t] = ok = idx[st->in[0]];
    else ok = st->op == AX_OP_SELECT && tb[st->in[0]] >= 0;
  }
  free(idx);
  free(tb);
  return any && ok && !ax_generate_reads_masks(prog);
}

bool ax_search_run(const AxMugraph *prog, const AxSearchOpts *o, AxDiag *d, AxSearchResult *r) {
  if (!ax_search_supported(prog, d)) return false;
  SearchState *s = calloc(1, sizeof *s);
  s->prog = prog;
  s->o = o;
  /* With a floor, a program the generator cannot read is not searched: the result is the
   * floor, checked like any other. Without one, the generator says what it lacks. */
  bool floor_only = o->incumbent && !o->pin && o->ranks <= 1 && mask_only(prog);
  if (!floor_only && !ax_generate_prepare(s, d)) {
    free(s);
    return false;
  }
  s->emit = emit;
  AxSearchOpts po;
  if (o->pin) {
    const AxMugraph *pg = o->pin;
    s->pin_key = ax_canon_key(pg);
    for (int i = 0; i < pg->nstmts; i++) {
      const AxKStmt *st = &pg->stmts[i];
      if (st->kind == AX_KS_OP && !pg->tensors[st->t].anon) s->pin_ops = true, s->pin_stmts++;
      if (st->kind != AX_KS_KERNEL) continue;
      s->pin_stmts++, s->pin_kernels++;
      int nn = 0;
      for (int j = 0; j < st->kernel->nnodes; j++)
        nn += st->kernel->nodes[j].kind != AX_BN_SAVE && !st->kernel->nodes[j].anon;
      if (nn > s->pin_nodes) s->pin_nodes = nn;
    }
    po = *o;
    po.max_kernels = s->pin_kernels;
    po.max_kernel_ops = s->pin_stmts;
    po.verify_final = po.verify_all = false;
    s->o = o = &po;
  }
  s->memo = !ax_test_hook("AXLE_TEST_SEARCH_NO_MEMO");
  pthread_mutex_init(&s->mu, NULL);
  s->found = calloc((size_t)o->top + 2, sizeof(Found));
  s->start = ax_clock_s();
  s->deadline = o->time_limit > 0 ? s->start + o->time_limit : 0;
  if (o->incumbent && !o->pin) {
    /* the floor: the best so far from the start, and the bound every prefix must beat */
    s->found[s->nfound++] = (Found){strdup(o->incumbent), o->incumbent_s};
    s->best_s = s->bound_s = o->incumbent_s;
  }
  int jobs = floor_only ? 0 : o->jobs < 1 ? 1 : o->jobs;
  /* with ranks, rank r's thread t is worker r * jobs + t of ranks * jobs (spread.h) */
  int rank = o->ranks > 1 && !o->pin ? o->rank : 0, ranks = o->ranks > 1 && !o->pin ? o->ranks : 1;
  Thread *ws = calloc((size_t)jobs, sizeof(Thread));
  bool *done = calloc((size_t)jobs, sizeof(bool));
  pthread_t *th = calloc((size_t)jobs, sizeof(pthread_t));
  pthread_t pt;
  bool prog_thread = o->progress != NULL;
  if (prog_thread) pthread_create(&pt, NULL, progress, s);
  for (int i = 0; i < jobs; i++) {
    ws[i].w.s = s, ws[i].w.id = rank * jobs + i, ws[i].w.jobs = ranks * jobs, ws[i].done = &done[i];
    pthread_create(&th[i], NULL, worker, &ws[i]);
  }
  if (ranks > 1) ax_spread_wait(s, done, jobs);
  for (int i = 0; i < jobs; i++) pthread_join(th[i], NULL);
  s->stop = true;
  if (prog_thread) pthread_join(pt, NULL);
  memset(r, 0, sizeof *r);
  r->timed_out = s->deadline > 0 && ax_clock_s() > s->deadline;
  if (ranks > 1) ax_spread_merge(s, &r->timed_out);
  r->states = s->states;
  r->pruned = s->pruned;
  r->candidates = s->candidates;
  r->checked = s->checked;
  r->equivalent = s->equivalent;
  r->check_s = s->check_s;
  r->check_cpu_s = s->check_cpu_s;
  r->pin_reached = s->pin_reached;
  free(s->pin_key);
  r->naive_s = ax_cost_time(prog, o->target);
  r->best_found_s = s->best_at;
  r->search_s = ax_clock_s() - s->start;
  inject(s);
  /* the full-shape check, best first; a graph that fails it is dropped */
  r->found = calloc((size_t)o->top + 2, sizeof(AxSearchFound));
  double f0 = ax_clock_s();
  int *pre = NULL;   /* with ranks: the checks' statuses, spread over the ranks first */
  AxSearchOpts alone = *o;
  alone.ranks = 1;
  if (ranks > 1) {
    bool *need = calloc((size_t)s->nfound + 1, sizeof *need);
    pre = calloc((size_t)s->nfound + 1, sizeof *pre);
    for (int i = 0; i < s->nfound; i++) {   /* the graphs the loop below checks alone */
      bool is_floor = o->incumbent && strcmp(s->found[i].text, o->incumbent) == 0;
      bool slow = s->found[i].time_s >= r->naive_s && !o->verify_all;
      if (o->verify_all) need[i] = !is_floor;
      else if (!o->verify_final || is_floor || slow) break;
      else need[i] = true;
    }
    Final fc = {prog, s, &alone};
    ax_spread_checks(s->nfound, need, !o->verify_all, pre, check_final, &fc);
    free(need);
  }
  /* Test hook (axle-test only, base/hooks.h): AXLE_TEST_SEARCH_LATE_FINAL=1 makes the final
   * check of every graph the search found end as no verdict (4), as if the deadline had
   * passed before it, so that a test can show what a run ends with then — the floor when
   * there is one (tests/e2e/superopt_greedy.sh). */
  bool late = ax_test_hook("AXLE_TEST_SEARCH_LATE_FINAL") != NULL;
  for (int i = 0; i < s->nfound; i++) {
    bool pass = true;
    bool is_floor = o->incumbent && strcmp(s->found[i].text, o->incumbent) == 0;   /* checked before */
    if (is_floor && r->nfound == 0) r->best_verified = true;
    /* a graph modelled no faster than the naive one is never written: not worth a check */
    bool slow = s->found[i].time_s >= r->naive_s && !o->verify_all;
    if (!is_floor && !slow && ((o->verify_final && r->nfound == 0) || o->verify_all)) {
      int st = late ? 4 : pre ? pre[i] : ax_search_accept(prog, s->found[i].text, &alone);
      pass = st == 0;
      if (pass && r->nfound == 0) r->best_verified = true;
      if (st == 4) r->late_final++;
      else if (!pass) r->rejected_final++;
    }
    if (pass) r->found[r->nfound++] = (AxSearchFound){s->found[i].text, s->found[i].time_s};
    else free(s->found[i].text);
  }
  /* The floor was checked before the search. Faster graphs push it out of the top list, so
   * when each of them was refused or not checked in time it is added back as the result:
   * a run never ends below the floor it started from. */
  if (o->incumbent && !o->pin && r->nfound == 0) {
    r->found[r->nfound++] = (AxSearchFound){strdup(o->incumbent), o->incumbent_s};
    r->best_verified = true;
  }
  free(pre);
  r->final_s = ax_clock_s() - f0;
  r->seconds = ax_clock_s() - s->start;
  free(s->seen);
  ax_mem_give((size_t)s->capseen * sizeof(uint64_t[2]));
  free(s->found);
  free(s->tcls);
  pthread_mutex_destroy(&s->mu);
  free(ws);
  free(done);
  free(th);
  free(s);
  return true;
}

void ax_search_result_free(AxSearchResult *r) {
  for (int i = 0; i < r->nfound; i++) free(r->found[i].text);
  free(r->found);
  r->found = NULL;
  r->nfound = 0;
}
