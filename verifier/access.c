/* access.c — the maps and the general access of a rank instance; see access.h. */
#include "verifier/access.h"

AxV **ax_access_maps(AxArena *a, const AxRuleSyms *s, const int *rank, AxAccessVar var, void *ctx) {
  AxV **maps = ax_arena_alloc(a, (s->nsyms + 1) * sizeof(AxV *));
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *m = &s->syms[i];
    if ((m->kind != AX_SYM_MAP && m->kind != AX_SYM_INDEX) || m->def) continue;
    int r = rank[m->rclass];
    maps[i] = ax_arena_alloc(a, (size_t)(r + 1) * sizeof(AxV));
    for (int k = 0; k < r; k++)
      maps[i][k] = var(ctx, ax_arena_printf(a, "%s.%d", m->name, k), m->rclass, k,
                       AX_FAMILY_MAP + (long)i);
  }
  return maps;
}

void ax_access_build(AxInst *den, const AxShape *lhs, const AxShape *rhs, AxAccessVar var,
                     void *ctx, AxIndex *acc, AxV *acc_valid, AxV *sizes) {
  const AxRuleSyms *s = den->syms;
  AxDomain *d = den->d;
  AxV valid = d->bool_lit(d, true), same = d->bool_lit(d, true);
  for (size_t i = 0; i < s->naxes; i++) {
    if (!(lhs->axes >> i & 1)) continue;
    const AxSym *ax = &s->syms[s->axes[i]];
    int r = ax_den_rank(den, (int)i);
    if (var) acc->at[i] = ax_arena_alloc(den->a, (size_t)(r + 1) * sizeof(AxV));
    for (int k = 0; k < r; k++) {
      if (var)
        acc->at[i][k] = var(ctx, ax_arena_printf(den->a, "@%s.%d", ax->name, k), ax->rclass, k,
                            AX_FAMILY_ACCESS + (long)i);
      AxV a = acc->at[i][k];
      valid = d->band(d, valid, d->band(d, d->ile(d, d->int_small(d, 0), a), d->ilt(d, a, lhs->size[i][k])));
      same = d->band(d, same, d->ieq(d, lhs->size[i][k], rhs->size[i][k]));
    }
  }
  *acc_valid = valid;
  *sizes = same;
}
