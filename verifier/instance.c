/* instance.c — symbolic execution of one rank instance; see instance.h. */
#include "verifier/instance.h"

#include <string.h>

#include "verifier/access.h"

/* A variable of the instance: its rank class, the named axis it belongs to (position),
 * and its family — the variables of one family are the same quantity on the named axes
 * of the class (one map, one access axis, one summation of a group), so two variables of
 * one family that differ in position are twins (rank.h). */
typedef struct VarClass {
  const AxTerm *var;
  int rclass;
  int pos;
  long family;
} VarClass;

static void add_var(AxSymInstance *in, AxVec *classes, const AxTerm *var, int rclass, int pos,
                    long family) {
  VarClass *vc = ax_arena_alloc(in->a, sizeof *vc);
  *vc = (VarClass){.var = var, .rclass = rclass, .pos = pos, .family = family};
  ax_vec_push(in->a, classes, vc);
}

/* a variable of the maps or the access (access.h), its class recorded */
static AxV new_var(void *ctx, const char *name, int rclass, int pos, long family) {
  AxSymInstance *in = ctx;
  AxV v = ax_symbolic_int_var(in->sym, name);
  add_var(in, in->classes, ax_symbolic_term(v), rclass, pos, family);
  return v;
}


void ax_instance_build(AxSymInstance *in, const AxBlock *rule, AxType T, const int *rank) {
  memset(in, 0, sizeof *in);
  const AxRuleSyms *s = rule->syms;
  in->rule = rule;
  in->rank = rank;
  in->T = T;
  in->a = ax_arena_new();
  in->tc = ax_term_ctx_new();
  const char **names = ax_arena_alloc(in->a, (s->nsyms + 1) * sizeof(char *));
  for (size_t i = 0; i < s->nsyms; i++) names[i] = s->syms[i].name;
  in->sym = ax_symbolic_new(in->tc, names);
  AxDomain *d = in->d = ax_symbolic_domain(in->sym);
  AxVec *classes = ax_arena_alloc(in->a, sizeof(AxVec));
  in->classes = classes;

  /* symbolic maps and index maps: one Int variable per named axis */
  in->maps = ax_access_maps(in->a, s, rank, new_var, in);
  in->den = (AxInst){.a = in->a, .syms = s, .rank = rank, .T = T, .d = d, .maps = in->maps};
  /* a concat or iota axis has one index: its denotation reads position 0 only */
  for (size_t c = 0; c < s->nrclasses; c++)
    if (s->rclasses[c].singleton && rank[c] != 1) {
      in->unsupported = "a rank class used as a concat or iota axis is instantiated above rank 1";
      return;
    }
  in->lhs = ax_den_shape(&in->den, s->lhs);
  in->rhs = ax_den_shape(&in->den, s->rhs);
  /* the general access, its validity, and equal sizes on every named axis */
  AxV acc_valid, sizes;
  ax_access_build(&in->den, in->lhs, in->rhs, new_var, in, &in->acc, &acc_valid, &sizes);
  in->type = ax_den_type(&in->den, s->lhs, T);
  in->lval = ax_den_at(&in->den, s->lhs, in->type, &in->acc);
  in->rval = ax_den_at(&in->den, s->rhs, in->type, &in->acc);
  AxV same;
  if (in->type != AX_BOOL && (ax_symbolic_red(in->lval, in->type, &in->red[0]) |
                              ax_symbolic_red(in->rval, in->type, &in->red[1]))) {
    in->reduction = true;
    for (int side = 0; side < 2; side++) {
      if (!in->red[side].dom) in->red[side].dom = ax_term_mk_true(in->tc);
      /* a side that is a plain value is compared through its value term only */
      const AxTerm *flags[4];
      ax_symbolic_elem_terms(side ? in->rval : in->lval, in->type, flags);
      for (int f = 1; f < 4; f++)
        if (ax_term_kind(flags[f]) != AX_TERM_FALSE && !in->unsupported)
          in->unsupported = "a reduction compared with a value that may be infinite or NaN";
    }
    same = d->bool_lit(d, true);   /* proved separately */
  } else {
    same = d->elem_same(d, in->type, in->lval, in->rval);
  }
  /* summation variables belong to the rank class of the axis they range over */
  size_t nsum;
  const AxSumVar *sv = ax_symbolic_sumvars(in->sym, &nsum);
  for (size_t i = 0; i < nsum; i++) {
    if (ax_instance_var_rclass(in, sv[i].var) >= 0) continue;   /* an index map's variable */
    add_var(in, classes, sv[i].var, sv[i].axis >= 0 ? s->syms[s->axes[sv[i].axis]].rclass : -1,
            sv[i].pos, AX_FAMILY_SUM + (long)sv[i].group * 64 + (sv[i].axis >= 0 ? sv[i].axis : 63));
  }

  /* the assumptions, tensor preconditions at the points the two sides read */
  size_t nreads;
  const AxRead *reads = ax_symbolic_reads(in->sym, &nreads);
  AxPoint *points = ax_arena_alloc(in->a, (nreads + 1) * sizeof(AxPoint));
  for (size_t i = 0; i < nreads; i++) points[i] = (AxPoint){reads[i].sym, (const AxV *)reads[i].idx};
  AxV pre = ax_den_assume(&in->den, points, nreads, &in->acc, in->lhs->axes);
  /* the definitional facts of sqrt: true of the real root, so assumed like the maps' */
  pre = d->band(d, pre, ax_symbolic_facts(in->sym));

  in->pre = ax_symbolic_term(pre);
  in->valid_lhs = ax_symbolic_term(in->lhs->valid);
  in->valid_rhs = ax_symbolic_term(in->rhs->valid);
  in->sizes_eq = ax_symbolic_term(sizes);
  in->acc_valid = ax_symbolic_term(acc_valid);
  in->same = ax_symbolic_term(same);
  AxV goal = d->band(d, in->rhs->valid, d->band(d, sizes, d->bor(d, d->bnot(d, acc_valid), same)));
  in->query = ax_symbolic_term(d->band(d, d->band(d, pre, in->lhs->valid), d->bnot(d, goal)));
  AxV hint = d->bool_lit(d, true);
  for (size_t i = 0; i < s->nhints; i++) hint = d->band(d, hint, ax_den_closed(&in->den, s->hints[i]));
  in->hint = ax_symbolic_term(hint);
  in->ctx = ax_symbolic_term(d->band(d, d->band(d, pre, in->lhs->valid),
                                     d->band(d, in->rhs->valid, d->band(d, sizes, acc_valid))));
  in->not_finite = ax_symbolic_not_finite(in->sym);
  ax_symbolic_closed(in->sym, &in->nclosed);
  if (!in->unsupported) in->unsupported = in->den.unsupported ? in->den.unsupported : d->unsupported;
}

void ax_instance_free(AxSymInstance *in) {
  ax_symbolic_free(in->sym);
  ax_term_ctx_free(in->tc);
  ax_arena_free(in->a);
  memset(in, 0, sizeof *in);
}

int ax_instance_var_rclass(const AxSymInstance *in, const AxTerm *var) {
  int rclass, pos;
  long family;
  return ax_instance_var_info(in, var, &rclass, &pos, &family) ? rclass : -1;
}

bool ax_instance_var_info(const AxSymInstance *in, const AxTerm *var, int *rclass, int *pos,
                          long *family) {
  const AxVec *classes = in->classes;
  for (size_t i = 0; i < classes->len; i++) {
    const VarClass *vc = classes->items[i];
    if (vc->var == var) {
      *rclass = vc->rclass;
      *pos = vc->pos;
      *family = vc->family;
      return true;
    }
  }
  return false;
}

const AxTerm *ax_instance_twin(const AxSymInstance *in, const AxTerm *var, int pos) {
  int rc, p;
  long fam;
  if (!ax_instance_var_info(in, var, &rc, &p, &fam) || rc < 0) return NULL;
  const AxVec *classes = in->classes;
  for (size_t i = 0; i < classes->len; i++) {
    const VarClass *vc = classes->items[i];
    if (vc->family == fam && vc->pos == pos && vc->rclass == rc) return vc->var;
  }
  return NULL;
}
