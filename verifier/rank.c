/* rank.c — bound inference; see rank.h. */
#include "verifier/rank.h"

#include <string.h>

#include "verifier/bijection.h"
#include "verifier/instance.h"

typedef struct Facts {
  const AxSymInstance *in;
  const AxRuleSyms *s;
  uint64_t *classes;   /* per term id: rank classes whose variables occur in it */
  bool *has_read;      /* per term id: contains a read of an input tensor */
} Facts;

/* the rule symbol of a tensor read, or -1 (e.g. the uninterpreted exp) */
static int read_sym(const Facts *f, const AxTerm *t) {
  if (ax_term_kind(t) != AX_TERM_APP) return -1;
  const char *name = ax_term_func_name(ax_term_app_func(t));
  for (size_t i = 0; i < f->s->nsyms; i++)
    if (f->s->syms[i].kind == AX_SYM_TENSOR && strcmp(f->s->syms[i].name, name) == 0) return (int)i;
  return -1;
}

static void facts_visit(const AxTerm *t, void *data) {
  Facts *f = data;
  uint32_t id = ax_term_id(t);
  uint64_t cls = 0;
  bool rd = read_sym(f, t) >= 0;
  if (ax_term_kind(t) == AX_TERM_VAR) {
    int c = ax_instance_var_rclass(f->in, t);
    if (c >= 0) cls |= (uint64_t)1 << c;
  }
  for (size_t i = 0; i < ax_term_nargs(t); i++) {
    uint32_t a = ax_term_id(ax_term_arg(t, i));
    cls |= f->classes[a];
    rd |= f->has_read[a];
  }
  f->classes[id] = cls;
  f->has_read[id] = rd;
}

/* Conditions: maximal Bool subterms without reads that mention some rank class. */
static void conditions(const Facts *f, const AxTerm *t, AxArena *a, AxVec *out, AxVec *seen) {
  for (size_t i = 0; i < seen->len; i++)
    if (seen->items[i] == t) return;
  ax_vec_push(a, seen, (void *)t);
  if (ax_term_kind(t) == AX_TERM_APP) return;   /* indices are per-axis maps */
  uint32_t id = ax_term_id(t);
  if (ax_term_sort(t) == AX_SORT_BOOL && !f->has_read[id] && f->classes[id]) {
    ax_vec_push(a, out, (void *)t);
    return;
  }
  for (size_t i = 0; i < ax_term_nargs(t); i++) conditions(f, ax_term_arg(t, i), a, out, seen);
}

/* Does the solver prove `eq` under the context? UNKNOWN counts as no. */
static bool proves(const AxSolverOpts *o, AxSymInstance *in, const AxTerm *ctx, const AxTerm *eq,
                   int *queries) {
  (*queries)++;
  const AxTerm *q = ax_term_mk_and2(in->tc, ctx, ax_term_mk_not(in->tc, eq));
  char reason[256];
  return ax_solver_check(o, in->tc, q, NULL, 0, NULL, reason, sizeof reason) == AX_SMT_UNSAT;
}

/* Quantifiers over rclass in a precondition, through let bindings. */
static int count_quantifiers(const AxRuleSyms *s, const AxExpr *e, int rclass) {
  if (!e) return 0;
  switch (e->kind) {
  case AX_E_QUANT:
    return (e->ty.sym == rclass) + count_quantifiers(s, e->u.quant.body, rclass);
  case AX_E_UNARY:
    return count_quantifiers(s, e->u.unary.arg, rclass);
  case AX_E_BINARY:
    return count_quantifiers(s, e->u.binary.lhs, rclass) + count_quantifiers(s, e->u.binary.rhs, rclass);
  case AX_E_IF:
    return count_quantifiers(s, e->u.ite.cond, rclass) + count_quantifiers(s, e->u.ite.then_e, rclass) +
           count_quantifiers(s, e->u.ite.else_e, rclass);
  case AX_E_NAME:
    if (e->ty.sym >= 0 && s->syms[e->ty.sym].kind == AX_SYM_LET)
      return count_quantifiers(s, s->syms[e->ty.sym].def, rclass);
    return 0;
  default:
    return 0;
  }
}

void ax_rank_bounds(const AxBlock *rule, AxType T, const AxSolverOpts *o, AxRankBounds *out) {
  const AxRuleSyms *s = rule->syms;
  memset(out, 0, sizeof *out);
  out->bounds = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  int *ones = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  for (size_t c = 0; c < s->nrclasses; c++) ones[c] = 1;
  AxSymInstance in;
  ax_instance_build(&in, rule, T, ones);
  if (in.unsupported) {
    out->unsupported = in.unsupported;   /* static or arena text: copy below */
    out->unsupported = ax_xstrdup(in.unsupported);
    ax_instance_free(&in);
    free(ones);
    return;
  }
  /* the value equality; for reductions its parts, each a root of its own so that a
   * summation domain (a conjunction over the named axes, like an access's validity) counts
   * as one condition: both domains, the summands, the hints */
  const AxTerm *roots[4] = {in.same};
  size_t nroots = 1;
  if (in.reduction) {
    /* with the pairing h known, the summand obligation itself: f(X) = g(h(X)) over D_X,
     * and D_Y(h(X)); otherwise everything the bijection checks look at */
    const AxTerm **h = ax_arena_alloc(in.a, (in.red[1].n + 1) * sizeof(AxTerm *));
    const AxTerm **g = ax_arena_alloc(in.a, (in.red[0].n + 1) * sizeof(AxTerm *));
    char why[256], inferred[256] = "";
    if (ax_bij_maps(&in, h, g, why, sizeof why, inferred, sizeof inferred)) {
      roots[0] = in.red[0].dom;
      roots[1] = ax_term_subst(in.tc, in.red[1].dom, in.red[1].n, in.red[1].vars, h);
      roots[2] = ax_term_mk_eq(in.tc, in.red[0].body,
                               ax_term_subst(in.tc, in.red[1].body, in.red[1].n, in.red[1].vars, h));
      nroots = 3;
    } else {
      roots[0] = in.red[0].dom;
      roots[1] = in.red[1].dom;
      roots[2] = ax_term_mk_eq(in.tc, in.red[0].body, in.red[1].body);
      roots[3] = in.hint;
      nroots = 4;
    }
  }
  Facts f = {.in = &in, .s = s};
  uint32_t n = ax_term_ctx_size(in.tc);
  f.classes = ax_xcalloc(n + 1, sizeof(uint64_t));
  f.has_read = ax_xcalloc(n + 1, sizeof(bool));
  ax_term_postorder(in.tc, roots, nroots, facts_visit, &f);

  const AxTerm *ctx = ax_term_mk_and2(in.tc, ax_term_mk_and2(in.tc, in.pre, in.valid_lhs), in.acc_valid);
  /* distinct reads per tensor */
  AxVec reads = {0};
  ax_term_collect(in.tc, roots, nroots, ax_term_pred_app, NULL, in.a, &reads);
  int *nreads = ax_xcalloc(s->nsyms + 1, sizeof(int));
  AxVec reps = {0};
  for (size_t i = 0; i < reads.len; i++) {
    const AxTerm *r = reads.items[i];
    int t = read_sym(&f, r);
    if (t < 0) continue;
    bool dup = false;
    for (size_t j = 0; j < reps.len && !dup; j++) {
      const AxTerm *q = reps.items[j];
      if (read_sym(&f, q) != t) continue;
      const AxTerm *eq = ax_term_mk_true(in.tc);
      for (size_t k = 0; k < ax_term_nargs(r); k++)
        eq = ax_term_mk_and2(in.tc, eq, ax_term_mk_eq(in.tc, ax_term_arg(r, k), ax_term_arg(q, k)));
      dup = proves(o, &in, ctx, eq, &out->queries);
    }
    if (!dup) {
      ax_vec_push(in.a, &reps, (void *)r);
      nreads[t]++;
    }
  }
  /* distinct conditions */
  AxVec conds = {0}, seen = {0}, creps = {0};
  for (size_t r = 0; r < nroots; r++) conditions(&f, roots[r], in.a, &conds, &seen);
  for (size_t i = 0; i < conds.len; i++) {
    const AxTerm *c = conds.items[i];
    bool dup = false;
    /* c <=> r as two implications: each query then has one side's conjuncts at its top
     * level, where arith.h can eliminate their divisibility constraints */
    for (size_t j = 0; j < creps.len && !dup; j++)
      dup = proves(o, &in, ax_term_mk_and2(in.tc, ctx, c), creps.items[j], &out->queries) &&
            proves(o, &in, ax_term_mk_and2(in.tc, ctx, creps.items[j]), c, &out->queries);
    if (!dup) ax_vec_push(in.a, &creps, (void *)c);
  }
  for (size_t c = 0; c < s->nrclasses; c++) {
    if (s->rclasses[c].singleton) {
      out->bounds[c] = 1;
      continue;
    }
    int k = 0;
    for (size_t t = 0; t < s->nsyms; t++) {
      const AxSym *y = &s->syms[t];
      if (y->kind != AX_SYM_TENSOR) continue;
      bool has = false;
      for (int j = 0; j < y->ndims; j++) has |= s->syms[s->axes[y->dim_axis[j]]].rclass == (int)c;
      if (has && nreads[t] > 1) k += nreads[t] * (nreads[t] - 1) / 2;
    }
    for (size_t i = 0; i < creps.len; i++)
      k += (int)(f.classes[ax_term_id(creps.items[i])] >> c & 1);
    for (size_t i = 0; i < s->nrequires; i++) k += count_quantifiers(s, s->requires[i], (int)c);
    out->bounds[c] = k > 1 ? k : 1;
  }
  free(nreads);
  free(f.classes);
  free(f.has_read);
  free(ones);
  ax_instance_free(&in);
}
