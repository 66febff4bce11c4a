/* seed.c — program variants from an e-graph of proved rewrites, for the μGraph search; see
 * seed.h and docs/egraph.md ("Seeding the search"). */
#include "superopt/eqsat/seed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "dsl/parse.h"
#include "egraph/explain.h"
#include "egraph/extract.h"
#include "egraph/run.h"
#include "run/cache.h"
#include "superopt/eqsat/lang.h"
#include "superopt/eqsat/rules.h"
#include "superopt/ir/load.h"
#include "superopt/search/axioms.h"
#include "superopt/search/partition.h"

/* The rule applied by a rewrite of its own (seed.h), by its name in the rule files. */
#define SCALE_OUT "eq_matmul_mul"

/* Forced extractions tried (each one pass of the greedy extractor over the graph). */
#define MAX_FORCED 64

/* Steps of an explanation beyond which it is not listed. */
#define MAX_STEPS 10000

typedef struct Gate {
  AxEqRules rules;
  FILE *unproved;
  int nunproved, nskipped, nproved, ntranslated;
  const char *scale_at;   /* "FILE:LINE" of eq_matmul_mul when proved */
  const AxBlock *scale_rule;
  AxArena *a;
} Gate;

static void on_rule(void *ctx, const char *path, const AxSource *src, const AxBlock *rule, AxGateStatus status,
                    const char *failure) {
  Gate *g = ctx;
  if (status == AX_GATE_SKIPPED) {
    g->nskipped++;
    return;
  }
  if (status == AX_GATE_FAILED) {
    fprintf(g->unproved, "%s\n", failure);
    g->nunproved++;
    return;
  }
  g->nproved++;
  int line, col;
  ax_source_linecol(src, rule->span.start, &line, &col);
  char *where = ax_arena_printf(g->a, "%s:%d", path, line);
  const char *why = NULL;
  if (strcmp(rule->name.name, SCALE_OUT) == 0) g->scale_at = where, g->scale_rule = rule;
  else if (ax_eq_rules_add(&g->rules, rule, where, &why) > 0) g->ntranslated++;
}

/* ---- the scale out of a matmul: matmul(X * r, W) => matmul(X, W) * r ----
 *
 * The rule's instance at a match: the rank classes m, k, n at rank 1 (the proof covers every
 * rank), the maps the program's sizes, T real. X is [m, k], r [m, 1] (the rule's R broadcast
 * along k by the program's element-wise broadcasting), W [k, n], the matmul rank 2 (no batch
 * dimensions): then the matched term denotes the rule's lhs and the built one its rhs (r
 * broadcast along n). Any other shape is refused. */

static const AxEqData *data(AxEgraph *g, AxEgId c) { return ax_eg_data(g, c); }

static bool is_row_scale(const AxEqData *x, const AxEqData *r) {
  return x->ok && r->ok && x->shape.rank == 2 && r->shape.rank == 2 && r->shape.dim[0] == x->shape.dim[0] &&
         r->shape.dim[1] == 1;
}

static AxEgId scale_out_apply(void *ctx, AxEgraph *g, AxEgId root, const AxEgSubst *s) {
  (void)ctx, (void)root;
  AxEgId x = s->cls[0], r = s->cls[1], w = s->cls[2];
  const AxEqData *dx = data(g, x), *dr = data(g, r), *dw = data(g, w);
  if (!is_row_scale(dx, dr)) {   /* r * X: the other operand order */
    AxEgId t = x;
    x = r, r = t;
    dx = data(g, x), dr = data(g, r);
    if (!is_row_scale(dx, dr)) return AX_EG_NONE;
  }
  if (!dw->ok || dw->shape.rank != 2 || dw->shape.dim[0] != dx->shape.dim[1]) return AX_EG_NONE;
  int64_t attrs[4];
  for (int i = 0; i < 4; i++) attrs[i] = s->val[3 + i];
  AxEgId kids[2] = {x, w};
  AxEgNode mm = {AX_OP_DOT, 4, 2, attrs, kids};
  AxEgId m = ax_eg_add_exact(g, &mm);
  if (m == AX_EG_NONE) return AX_EG_NONE;
  AxEgId k2[2] = {m, r};
  AxEgNode mul = {AX_OP_MUL, 0, 2, NULL, k2};
  return ax_eg_add_exact(g, &mul);
}

/* matmul[?3 ?4 ?5 ?6](mul(?0, ?1), ?2): a rank-2 matmul's four attributes (axis, to, times,
 * rank 0: lang.h's encoding of a matmul) bound as they are and copied. */
static AxEgRewrite scale_out_rewrite(AxArena *a) {
  AxEgPat *x = ax_eg_pat_var(a, 0), *r = ax_eg_pat_var(a, 1), *w = ax_eg_pat_var(a, 2);
  AxEgPat *mk[2] = {x, r};
  AxEgPat *mul = ax_eg_pat_node(a, AX_OP_MUL, 0, NULL, 2, mk);
  AxEgPatAttr at[4];
  for (uint32_t i = 0; i < 4; i++) at[i] = (AxEgPatAttr){.var = true, .v = 3 + i};
  AxEgPat *kids[2] = {mul, w};
  AxEgPat *lhs = ax_eg_pat_node(a, AX_OP_DOT, 4, at, 2, kids);
  return (AxEgRewrite){.name = SCALE_OUT, .lhs = lhs, .apply = scale_out_apply};
}

/* ---- extraction: the greedy term with one class forced to another of its e-nodes ---- */

typedef struct Forced {
  AxEqLang *L;
  AxEgraph *g;
  AxEgId cls;          /* root class whose other e-nodes are priced out */
  const AxEgNode *keep;
} Forced;

static bool same_node(AxEgraph *g, const AxEgNode *a, const AxEgNode *b) {
  if (a->op != b->op || a->nattrs != b->nattrs || a->nkids != b->nkids) return false;
  for (uint32_t i = 0; i < a->nattrs; i++)
    if (a->attrs[i] != b->attrs[i]) return false;
  for (uint32_t i = 0; i < a->nkids; i++)
    if (ax_eg_find(g, a->kids[i]) != ax_eg_find(g, b->kids[i])) return false;
  return true;
}

static double forced_cost(void *ctx, const AxEgNode *n) {
  Forced *f = ctx;
  size_t m = ax_eg_class_size(f->g, f->cls);
  for (size_t i = 0; i < m; i++) {
    const AxEgNode *o = ax_eg_class_node(f->g, f->cls, i);
    if (o != f->keep && same_node(f->g, o, n) && !same_node(f->g, f->keep, n)) return INFINITY;
  }
  return ax_eq_cost(f->L, n);
}

/* The program term t prints as, and its lowered graph (NULL when it does not lower). */
static AxMugraph *lower(AxArena *a, const AxEqLang *L, const char *name, const AxEgTerm *t, const char **text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ax_eq_print_program(f, L, name, t);
  fclose(f);
  *text = ax_arena_strdup(a, buf);
  free(buf);
  return ax_load_from_text(a, NULL, "<seed variant>", *text, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
}

typedef struct Cand {
  AxEgTerm term;
  const char *text;
  AxMugraph *prog;
  double cost;
} Cand;

static int by_cost(const void *x, const void *y) {
  const Cand *a = x, *b = y;
  return a->cost < b->cost ? -1 : a->cost > b->cost;
}

/* Adds term t to the candidates unless it lowers to nothing or repeats a text seen. */
static void consider(AxArena *a, AxEqLang *L, const char *name, const AxEgTerm *t, Cand *c, int *n, int max,
                     const AxTarget *target) {
  if (*n == max) return;
  const char *text;
  AxMugraph *q = lower(a, L, name, t, &text);
  if (!q) return;
  for (int i = 0; i < *n; i++)
    if (strcmp(c[i].text, text) == 0) return;
  c[*n] = (Cand){.term = *t, .text = text, .prog = q, .cost = ax_cost_time(q, target)};
  (*n)++;
}

/* The class of every entry of term t (its children first): looked up, the graph rebuilt. */
static void term_classes(AxEgraph *g, const AxEgTerm *t, AxEgId *cls) {
  for (size_t i = 0; i < t->n; i++) {
    const AxEgNode *n = &t->nodes[i];
    AxEgId kids[16];
    uint32_t nk = n->nkids < 16 ? n->nkids : 16;
    for (uint32_t j = 0; j < nk; j++) kids[j] = cls[n->kids[j]];
    AxEgNode q = {n->op, n->nattrs, nk, n->attrs, kids};
    AxEgId c = ax_eg_lookup(g, &q);
    cls[i] = c == AX_EG_NONE ? AX_EG_NONE : ax_eg_find(g, c);
  }
}

/* The first 16 characters of the name of rule b's entry (at real, the element type the
 * rewrite is applied at) in the result cache of `axle verify`: its verification key, as
 * `axle optimize --explain` prints it; "-" without a cache. */
static const char *rule_key(AxArena *a, AxCache *cache, const AxBlock *b) {
  if (!cache || !b) return "-";
  char *key = ax_cache_key(cache, b, AX_REAL), path[4096];
  const char *e = strrchr(ax_cache_entry_path(cache, key, path, sizeof path), '/');
  const char *k = ax_arena_printf(a, "%.16s", e ? e + 1 : path);
  free(key);
  return k;
}

static const char *step_line(AxArena *a, const AxEgStep *st, const AxEqRules *rs, const AxEgRewrite *all,
                             const Gate *g, AxCache *cache) {
  if (!st->rule) return "constant folding (exact arithmetic of literals)";
  size_t i = (size_t)((const AxEgRewrite *)st->rule - all);
  if (i >= rs->n)
    return ax_arena_printf(a, "%s (%s, %s, key %s)", SCALE_OUT, g->scale_at, st->forward ? "lhs => rhs" : "rhs => lhs",
                           rule_key(a, cache, g->scale_rule));
  return ax_arena_printf(a, "%s (%s, %s, key %s)", rs->block[i]->name.name, rs->origin[i],
                         st->forward != rs->reversed[i] ? "lhs => rhs" : "rhs => lhs", rule_key(a, cache, rs->block[i]));
}

int ax_seed_variants(AxArena *a, const AxMugraph *p, const char *rules_dir, const AxTarget *target, int k,
                     int node_limit, int iter_limit, AxSeedResult *r) {
  memset(r, 0, sizeof *r);
  if (k < 2) k = 2;
  if (k > AX_SEED_MAX) k = AX_SEED_MAX;
  Gate g = {.a = a};
  char *unproved_t = NULL;
  size_t ulen = 0;
  g.unproved = open_memstream(&unproved_t, &ulen);
  AxVerifyOpts vo;
  const char *solver;
  ax_axioms_default_opts(&vo, &solver);
  AxAxiomReport rep;
  ax_axioms_gate(rules_dir, &vo, solver, true, on_rule, &g, a, &rep);
  fclose(g.unproved);
  bool bad_input = false;
  for (const char *s = rep.failures; s && *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != 0)) {
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
    bool nothing = strstr(line, ": no rule to verify") != NULL;
    if (nothing && rep.skipped > 0) continue;   /* a directory of `expect invalid` rules only */
    if (nothing || strstr(line, ": does not parse") || strstr(line, ": cannot read")) {
      fprintf(stderr, "axle: error: superopt: --seed-from-egraph: %s\n", line);
      bad_input = true;
    }
  }
  ax_axiom_report_free(&rep);
  r->nproved = g.nproved, r->nskipped = g.nskipped, r->ntranslated = g.ntranslated;
  if (g.nunproved > 0 || bad_input) {
    if (g.nunproved > 0) {
      fprintf(stderr, "axle: error: superopt: --seed-from-egraph: %d rule%s of %s not proved by `axle verify`:\n",
              g.nunproved, g.nunproved == 1 ? "" : "s", rules_dir);
      for (const char *s = unproved_t; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != 0))
        fprintf(stderr, "  %.*s\n", (int)strcspn(s, "\n"), s);
    }
    free(unproved_t);
    ax_eq_rules_free(&g.rules);
    return 3;
  }
  free(unproved_t);

  double t0 = ax_clock_s();
  AxEqLang L = {.prog = p, .target = target};
  AxEgAnalysis an = ax_eq_analysis(&L);
  AxEgraph *eg = ax_eg_new(&an);
  ax_eg_explain_enable(eg);
  AxEgId root;
  char *pt = ax_partition_program_text(p);
  const char *input_text = ax_arena_strdup(a, pt);
  free(pt);
  r->v[0] = (AxSeedVariant){.text = input_text, .prog = (AxMugraph *)p, .cost_s = ax_cost_time(p, target),
                            .explained = true};
  r->n = 1;
  if (!ax_eq_add_program(&L, eg, &root)) {   /* not representable: the input alone */
    r->stop = "not represented";
    ax_eg_free(eg);
    ax_eq_lang_free(&L);
    ax_eq_rules_free(&g.rules);
    return 0;
  }
  r->nodes0 = ax_eg_nnodes(eg);
  size_t nrw = g.rules.n + (g.scale_at ? 1 : 0);
  AxEgRewrite *all = ax_arena_alloc(a, sizeof *all * (nrw + 1));
  if (g.rules.n) memcpy(all, g.rules.rw, sizeof *all * g.rules.n);
  if (g.scale_at) all[g.rules.n] = scale_out_rewrite(a);
  r->scale_out = g.scale_at != NULL;
  AxEgLimits lim = ax_eg_limits_default();
  lim.nodes = (size_t)node_limit;
  lim.iters = (size_t)iter_limit;
  AxEgReport er;
  ax_eg_run(eg, all, nrw, &lim, &er);
  r->nodes = er.nodes, r->classes = er.classes, r->iterations = er.iterations;
  r->stop = ax_eg_stop_name(er.stop);

  /* the input's own term as printed (a variant that prints the same is no variant) */
  AxEgTerm in;
  ax_eg_exact_term(eg, root, a, &in);
  const char *in_text;
  (void)lower(a, &L, p->name, &in, &in_text);

  int max = MAX_FORCED + 2, nc = 0;
  Cand *c = ax_arena_alloc(a, sizeof *c * (size_t)max);
  AxEgTerm t0t;
  if (ax_eg_extract(eg, root, ax_eq_cost, &L, a, &t0t, NULL)) {
    consider(a, &L, p->name, &t0t, c, &nc, max, target);
    AxEgTerm dt;
    double total;
    if (ax_eg_extract_dag(eg, root, ax_eq_cost, &L, 64, a, &dt, &total)) consider(a, &L, p->name, &dt, c, &nc, max, target);
    /* every class of the greedy term, forced to each of its other e-nodes in turn */
    AxEgId *cls = ax_arena_alloc(a, sizeof *cls * (t0t.n + 1));
    term_classes(eg, &t0t, cls);
    int tries = 0;
    for (size_t i = 0; i < t0t.n && tries < MAX_FORCED; i++) {
      if (cls[i] == AX_EG_NONE) continue;
      bool seen = false;
      for (size_t j = 0; j < i && !seen; j++) seen = cls[j] == cls[i];
      size_t m = ax_eg_class_size(eg, cls[i]);
      for (size_t j = 0; !seen && m > 1 && j < m && tries < MAX_FORCED; j++) {
        Forced f = {.L = &L, .g = eg, .cls = cls[i], .keep = ax_eg_class_node(eg, cls[i], j)};
        AxEgTerm ft;
        tries++;
        if (ax_eg_extract(eg, root, forced_cost, &f, a, &ft, NULL)) consider(a, &L, p->name, &ft, c, &nc, max, target);
      }
    }
  }
  qsort(c, (size_t)nc, sizeof *c, by_cost);
  for (int i = 0; i < nc && r->n < k; i++) {
    if (strcmp(c[i].text, in_text) == 0) continue;
    r->v[r->n++] = (AxSeedVariant){.text = c[i].text, .prog = c[i].prog, .cost_s = c[i].cost};
  }
  /* each variant's chain of proved rules from the input (egg's explanations) */
  char why[256];
  AxCache *cache = ax_cache_open(NULL, &vo, solver, why, sizeof why);
  for (int i = 1; i < r->n; i++) {
    const Cand *ci = NULL;
    for (int j = 0; j < nc && !ci; j++)
      if (c[j].text == r->v[i].text) ci = &c[j];
    if (!ci) continue;
    AxEgId o = ax_eg_add_term_exact(eg, &ci->term);
    ax_eg_rebuild(eg);
    AxEgExplanation x;
    if (!ax_eg_explain(eg, root, o, MAX_STEPS, a, &x)) continue;
    r->v[i].explained = true;
    if (x.n == 0) r->v[i].prog = NULL;   /* the input's own term, printed another way */
    r->v[i].nsteps = (int)x.n;
    r->v[i].steps = ax_arena_alloc(a, sizeof *r->v[i].steps * (x.n + 1));
    for (size_t s = 0; s < x.n; s++) r->v[i].steps[s] = step_line(a, &x.steps[s], &g.rules, all, &g, cache);
  }
  ax_cache_close(cache);
  int n = 1;   /* the variants no rule leads to dropped: the input searched once */
  for (int i = 1; i < r->n; i++)
    if (r->v[i].prog) r->v[n++] = r->v[i];
  r->n = n;
  r->seconds = ax_clock_s() - t0;
  ax_eg_report_free(&er);
  ax_eg_free(eg);
  ax_eq_lang_free(&L);
  ax_eq_rules_free(&g.rules);
  return 0;
}
