/* cex.c — counterexample replay and rendering; see cex.h. */
#include "verifier/cex.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <string.h>

#include "semantics/concrete.h"

static AxType type_of_sort(AxSort s) {
  return s == AX_SORT_BOOL ? AX_BOOL : s == AX_SORT_INT ? AX_INT : AX_REAL;
}

void ax_cex_watch_head(const AxInst *den, const AxIndex *acc, AxArena *a, AxVec *v) {
  const AxRuleSyms *s = den->syms;
  for (size_t i = 0; i < s->nsyms; i++)
    if (den->maps[i])
      for (int k = 0; k < den->rank[s->syms[i].rclass]; k++) ax_vec_push(a, v, (void *)ax_symbolic_term(den->maps[i][k]));
  for (size_t i = 0; i < s->naxes; i++)
    if (acc->at[i])
      for (int k = 0; k < ax_den_rank(den, (int)i); k++) ax_vec_push(a, v, (void *)ax_symbolic_term(acc->at[i][k]));
}

void ax_cex_watch_read(const AxRead *rd, AxArena *a, AxVec *v) {
  for (size_t k = 0; k < rd->n; k++) ax_vec_push(a, v, (void *)rd->idx[k]);
  ax_vec_push(a, v, (void *)rd->app);
}

static AxV model_int(AxModelPoints *p, AxConcrete *c, const AxModel *m, size_t i) {
  mpz_t z;
  mpz_init(z);
  if (!ax_model_int(m, i, z)) p->missing = "the model has no integer value for an index or a map";
  AxV v = ax_concrete_int(c, z);
  mpz_clear(z);
  return v;
}

void ax_cex_load(const AxInst *den, const AxIndex *acc, const AxRead *reads, size_t nreads, const AxModel *m,
                 AxConcrete *c, AxArena *a, AxReadValue value, void *ctx, AxModelPoints *out) {
  const AxRuleSyms *s = den->syms;
  size_t pos = 0;
  memset(out, 0, sizeof *out);
  out->maps = ax_arena_alloc(a, (s->nsyms + 1) * sizeof(AxV *));
  for (size_t i = 0; i < s->nsyms; i++)
    if (den->maps[i]) {
      int rk = den->rank[s->syms[i].rclass];
      out->maps[i] = ax_arena_alloc(a, (size_t)(rk + 1) * sizeof(AxV));
      for (int k = 0; k < rk; k++) out->maps[i][k] = model_int(out, c, m, pos++);
    }
  for (size_t i = 0; i < s->naxes; i++)
    if (acc->at[i]) {
      int rk = ax_den_rank(den, (int)i);
      out->acc.at[i] = ax_arena_alloc(a, (size_t)(rk + 1) * sizeof(AxV));
      for (int k = 0; k < rk; k++) out->acc.at[i][k] = model_int(out, c, m, pos++);
    }
  out->read_idx = ax_arena_alloc(a, (nreads + 1) * sizeof(AxV *));
  for (size_t j = 0; j < nreads; j++) {
    out->read_idx[j] = ax_arena_alloc(a, (reads[j].n + 1) * sizeof(AxV));
    for (size_t k = 0; k < reads[j].n; k++) out->read_idx[j][k] = model_int(out, c, m, pos++);
    value(ctx, j, m, pos++, out);
  }
  out->n = pos;
}

void ax_cex_watch(AxSymInstance *in, const AxTerm *formula, AxWatch *out) {
  const AxRuleSyms *s = in->rule->syms;
  AxVec v = {0};
  ax_cex_watch_head(&in->den, &in->acc, in->a, &v);
  AxVec apps = {0};
  ax_term_collect(in->tc, &formula, 1, ax_term_pred_app, NULL, in->a, &apps);
  out->reads = ax_arena_alloc(in->a, (apps.len + 1) * sizeof(AxRead));
  out->nreads = 0;
  out->opaque = false;
  for (size_t r = 0; r < apps.len; r++) {
    const AxTerm *app = apps.items[r];
    const char *name = ax_term_func_name(ax_term_app_func(app));
    int sym = -1;
    for (size_t i = 0; i < s->nsyms && sym < 0; i++)
      if (s->syms[i].kind == AX_SYM_TENSOR && strcmp(s->syms[i].name, name) == 0) sym = (int)i;
    if (sym < 0) {   /* not a tensor: log, sqrt, pow's undecided cases, a sum under sqrt */
      out->opaque = true;
      continue;
    }
    AxRead *rd = &out->reads[out->nreads++];
    rd->sym = sym;
    rd->type = type_of_sort(ax_term_sort(app));
    rd->n = ax_term_nargs(app);
    rd->idx = ax_arena_alloc(in->a, (rd->n + 1) * sizeof(AxTerm *));
    for (size_t k = 0; k < rd->n; k++) rd->idx[k] = ax_term_arg(app, k);
    rd->app = app;
    ax_cex_watch_read(rd, in->a, &v);
  }
  out->terms = (const AxTerm **)v.items;
  out->n = v.len;
}

/* ---- the concrete instance ------------------------------------------------------------ */

typedef struct Rep {
  AxSymInstance *in;
  AxConcrete *c;
  AxDomain *d;
  AxArena *a;
  AxInst den;
  AxV **maps;
  AxIndex acc;
  const AxRead *reads;
  size_t nreads;
  AxV **read_idx;     /* concrete indices of each read */
  AxV *read_val;
  const char *missing;
  int fill;           /* how points the model leaves open are filled */
  bool record;        /* list the unset points read (ax_cex_search: inputs made of fill) */
  /* the points a counterexample shows: the model's reads, then (record) the unset points
   * read with their fill values */
  size_t np;
  int *psym;
  size_t *pn;
  const AxV **pidx;
  AxV *pval;
} Rep;

/* r's points to show (Rep.np ...), in r->a. */
static void shown_points(Rep *r) {
  size_t nf = r->record ? ax_concrete_nfilled(r->c) : 0, n = r->nreads + nf;
  r->psym = ax_arena_alloc(r->a, (n + 1) * sizeof *r->psym);
  r->pn = ax_arena_alloc(r->a, (n + 1) * sizeof *r->pn);
  r->pidx = ax_arena_alloc(r->a, (n + 1) * sizeof *r->pidx);
  r->pval = ax_arena_alloc(r->a, (n + 1) * sizeof *r->pval);
  for (size_t q = 0; q < r->nreads; q++) {
    r->psym[q] = r->reads[q].sym;
    r->pn[q] = r->reads[q].n;
    r->pidx[q] = r->read_idx[q];
    r->pval[q] = r->read_val[q];
  }
  for (size_t q = 0; q < nf; q++) {
    size_t k = r->nreads + q;
    ax_concrete_filled(r->c, q, &r->psym[k], &r->pidx[k], &r->pn[k], &r->pval[k]);
  }
  r->np = n;
}

/* a read's value in the extended rationals; the point set in the concrete domain */
static void load_value(void *ctx, size_t j, const AxModel *m, size_t pos, AxModelPoints *p) {
  Rep *r = ctx;
  const AxRead *rd = &r->reads[j];
  mpq_t q;
  mpq_init(q);
  bool b = false, ok;
  if (rd->type == AX_BOOL) {
    ok = ax_model_bool(m, pos, &b);
  } else if (rd->type == AX_INT) {
    mpz_t z;
    mpz_init(z);
    ok = ax_model_int(m, pos, z);
    mpq_set_z(q, z);
    mpz_clear(z);
  } else {
    ok = ax_model_real(m, pos, q);
  }
  if (!ok) p->missing = "the model has no exact value for a tensor element";
  r->read_val[j] = ax_concrete_elem(r->c, rd->type, AX_FIN, q, b);
  mpq_clear(q);
  ax_concrete_set(r->c, rd->sym, p->read_idx[j], rd->n, r->read_val[j]);
}

static void load(Rep *r, const AxWatch *w, const AxModel *m) {
  r->reads = w->reads;
  r->nreads = w->nreads;
  r->read_val = ax_arena_alloc(r->a, (r->nreads + 1) * sizeof(AxV));
  AxModelPoints p;
  ax_cex_load(&r->in->den, &r->in->acc, r->reads, r->nreads, m, r->c, r->a, load_value, r, &p);
  AX_ASSERT(p.n == w->n);
  r->maps = p.maps;
  r->acc = p.acc;
  r->read_idx = p.read_idx;
  r->missing = p.missing;
}

/* the preconditions on maps and sizes, the tensor preconditions' validity and those over
 * no axes, concretely; a tensor precondition over axes is checked at every point of its
 * shape (preconditions_everywhere), which implies each instance the query assumed */
static bool preconditions(Rep *r) {
  return ax_concrete_get_bool(ax_den_assume(&r->den, NULL, 0, &r->acc, 0));
}

/* Every point of the shape of tensor precondition c (concrete sizes in den), in order:
 * calls visit(ctx, idx) with a fresh index per point until it returns false; false when
 * a visit did, or with *too_many set (nothing visited) when c has more than `cap` points. */
static bool each_point(AxInst *den, const AxShape *shape, size_t cap, bool *too_many,
                       bool (*visit)(void *ctx, const AxIndex *idx), void *ctx) {
  AxDomain *d = den->d;
  long size[AX_MAX_AXES * 8];
  int axis[AX_MAX_AXES * 8], pos[AX_MAX_AXES * 8];
  int n = 0;
  double total = 1;
  *too_many = false;
  for (int ax = 0; ax < AX_MAX_AXES; ax++)
    if (shape->axes >> ax & 1)
      for (int k = 0; k < ax_den_rank(den, ax) && n < AX_MAX_AXES * 8; k++) {
        mpz_t z;
        mpz_init(z);
        ax_concrete_get_int(shape->size[ax][k], z);
        long v = mpz_fits_slong_p(z) ? mpz_get_si(z) : LONG_MAX;
        mpz_clear(z);
        if (v <= 0) return true;   /* an empty shape: nothing to check */
        size[n] = v, axis[n] = ax, pos[n] = k;
        total *= (double)v;
        n++;
      }
  if (total > (double)cap) {
    *too_many = true;
    return true;
  }
  long cur[AX_MAX_AXES * 8] = {0};
  for (;;) {
    AxIndex *idx = ax_arena_alloc(den->a, sizeof *idx);
    for (int i = 0; i < n; i++) {
      if (!idx->at[axis[i]]) idx->at[axis[i]] = ax_arena_alloc(den->a, (size_t)(ax_den_rank(den, axis[i]) + 1) * sizeof(AxV));
      idx->at[axis[i]][pos[i]] = d->int_small(d, cur[i]);
    }
    if (!visit(ctx, idx)) return false;
    int i = n - 1;
    while (i >= 0 && ++cur[i] == size[i]) cur[i--] = 0;
    if (i < 0) return true;
  }
}

typedef struct Everywhere {
  AxInst *den;
  const AxExpr *c;
} Everywhere;

static bool holds_at(void *ctx, const AxIndex *idx) {
  Everywhere *e = ctx;
  return ax_concrete_get_bool(ax_den_at(e->den, e->c, AX_BOOL, idx));
}

/* The points of a tensor precondition's shape the replay checks it at, at most. */
#define AX_PRE_POINTS 4096


bool ax_cex_pre_everywhere(AxInst *den, bool *too_many) {
  const AxRuleSyms *s = den->syms;
  *too_many = false;
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->ty.kind != AX_K_TENSOR || !c->ty.axes) continue;   /* assumed whole already */
    const AxShape *shape = ax_den_shape(den, c);
    if (!ax_concrete_get_bool(shape->valid)) return false;
    Everywhere e = {den, c};
    bool big;
    if (!each_point(den, shape, AX_PRE_POINTS, &big, holds_at, &e)) return false;
    *too_many |= big;
  }
  return true;
}

static bool preconditions_everywhere(Rep *r, bool *too_many) {
  return ax_cex_pre_everywhere(&r->den, too_many);
}

/* ---- completing a model ---------------------------------------------------------------- */

typedef struct Complete {
  AxSymInstance *in;
  const AxExpr *c;
  AxV all;
  size_t points;
} Complete;

/* c at the concrete point idx, in the symbolic instance (its indices as literals) */
static bool assume_at(void *ctx, const AxIndex *idx) {
  Complete *k = ctx;
  AxDomain *d = k->in->d;
  AxIndex *sym = ax_arena_alloc(k->in->a, sizeof *sym);
  for (int ax = 0; ax < AX_MAX_AXES; ax++)
    if (idx->at[ax]) {
      int rk = ax_den_rank(&k->in->den, ax);
      sym->at[ax] = ax_arena_alloc(k->in->a, (size_t)(rk + 1) * sizeof(AxV));
      for (int j = 0; j < rk; j++) {
        char *t = ax_concrete_text(idx->at[ax][j]);
        sym->at[ax][j] = d->int_lit(d, t);
        free(t);
      }
    }
  k->all = d->band(d, k->all, ax_den_at(&k->in->den, k->c, AX_BOOL, sym));
  k->points++;
  return true;
}

const AxTerm *ax_cex_completion(AxSymInstance *in, const AxTerm *formula, const AxWatch *w,
                                const AxModel *m, const char **why) {
  const AxRuleSyms *s = in->rule->syms;
  Rep r = {.in = in};
  r.c = ax_concrete_new();
  r.d = ax_concrete_domain(r.c);
  r.a = ax_arena_new();
  load(&r, w, m);
  const AxTerm *out = NULL;
  *why = r.missing;
  if (r.missing) goto done;
  r.den = (AxInst){.a = r.a, .syms = s, .rank = in->rank, .T = in->T, .d = r.d, .maps = r.maps};
  AxDomain *d = in->d;
  AxV pins = d->bool_lit(d, true);
  for (size_t i = 0; i < s->nsyms; i++)
    if (in->maps[i])
      for (int k = 0; k < in->rank[s->syms[i].rclass]; k++) {
        char *t = ax_concrete_text(r.maps[i][k]);
        pins = d->band(d, pins, d->ieq(d, in->maps[i][k], d->int_lit(d, t)));
        free(t);
      }
  Complete k = {.in = in, .all = pins};
  for (size_t i = 0; i < s->nrequires; i++) {
    const AxExpr *c = s->requires[i];
    if (c->ty.kind != AX_K_TENSOR || !c->ty.axes) continue;
    const AxShape *shape = ax_den_shape(&r.den, c);
    bool big;
    k.c = c;
    each_point(&r.den, shape, AX_PRE_POINTS - k.points, &big, assume_at, &k);
    if (big) {
      *why = "the counterexample's shapes are too large to check a tensor precondition at every point";
      goto done;
    }
  }
  if (r.den.unsupported || r.d->unsupported || in->den.unsupported || d->unsupported) {
    *why = r.den.unsupported ? r.den.unsupported : r.d->unsupported ? r.d->unsupported
         : in->den.unsupported ? in->den.unsupported : d->unsupported;
    goto done;
  }
  out = ax_term_mk_and2(in->tc, formula, ax_symbolic_term(k.all));
done:
  ax_concrete_free(r.c);
  ax_arena_free(r.a);
  return out;
}

/* ---- rendering ------------------------------------------------------------------------ */

static char *text(AxV v) { return ax_concrete_text(v); }

cJSON *ax_cex_ints_json(AxV *vals, int n) {
  cJSON *arr = cJSON_CreateArray();
  for (int k = 0; k < n; k++) {
    char *t = text(vals[k]);
    cJSON_AddItemToArray(arr, cJSON_CreateRaw(t));
    free(t);
  }
  return arr;
}

void ax_cex_print_ints(FILE *out, AxV *vals, int n) {
  fputc('[', out);
  for (int k = 0; k < n; k++) {
    char *t = text(vals[k]);
    fprintf(out, "%s%s", k ? ", " : "", t);
    free(t);
  }
  fputc(']', out);
}

void ax_cex_render_maps(FILE *f, cJSON *j, AxInst *den, AxArena *a) {
  const AxRuleSyms *s = den->syms;
  fputs("  ranks:", f);
  cJSON *jr = cJSON_AddObjectToObject(j, "ranks");
  for (size_t c = 0; c < s->nrclasses; c++) {
    fprintf(f, " %s = %d", s->rclasses[c].name, den->rank[c]);
    cJSON_AddNumberToObject(jr, s->rclasses[c].name, den->rank[c]);
  }
  fputc('\n', f);
  cJSON *jm = cJSON_AddObjectToObject(j, "maps");
  bool any = false;
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *m = &s->syms[i];
    if (m->kind != AX_SYM_MAP || m->bad) continue;
    int rk = den->rank[m->rclass];
    AxV *vals = ax_arena_alloc(a, (size_t)(rk + 1) * sizeof(AxV));
    for (int k = 0; k < rk; k++) vals[k] = m->def ? ax_den_map(den, m->def, k) : den->maps[i][k];
    fprintf(f, "%s%s = ", any ? "  " : "  maps: ", m->name);
    ax_cex_print_ints(f, vals, rk);
    cJSON_AddItemToObject(jm, m->name, ax_cex_ints_json(vals, rk));
    any = true;
  }
  if (any) fputc('\n', f);
}

void ax_cex_render_access(FILE *f, cJSON *j, const AxInst *den, const AxIndex *acc) {
  const AxRuleSyms *s = den->syms;
  fputs("  access:", f);
  cJSON *ja = cJSON_AddObjectToObject(j, "access");
  for (size_t i = 0; i < s->naxes; i++)
    if (acc->at[i]) {
      int rk = ax_den_rank(den, (int)i);
      fprintf(f, " %s = ", s->syms[s->axes[i]].name);
      ax_cex_print_ints(f, acc->at[i], rk);
      cJSON_AddItemToObject(ja, s->syms[s->axes[i]].name, ax_cex_ints_json(acc->at[i], rk));
    }
  fputc('\n', f);
}

static long small(AxV v) {
  mpz_t z;
  mpz_init(z);
  ax_concrete_get_int(v, z);
  long r = mpz_fits_slong_p(z) ? mpz_get_si(z) : -1;
  mpz_clear(z);
  return r;
}

/* A tensor with at most two named axes, each at most 8 long: a grid of the values the
 * counterexample fixes ('.' where it fixes none). */
static void grid(Rep *r, FILE *out, int sym, AxV *sizes, int nsizes) {
  if (nsizes > 2) return;
  long rows = nsizes == 2 ? small(sizes[0]) : 1, cols = nsizes ? small(sizes[nsizes - 1]) : 1;
  if (rows < 1 || cols < 1 || rows > 8 || cols > 8) return;
  for (long i = 0; i < rows; i++) {
    fputs("      ", out);
    for (long j = 0; j < cols; j++) {
      char *cell = NULL;
      for (size_t q = 0; q < r->np && !cell; q++) {
        if (r->psym[q] != sym) continue;
        long ri = nsizes == 2 ? small(r->pidx[q][0]) : 0;
        long rj = nsizes ? small(r->pidx[q][nsizes - 1]) : 0;
        if (ri == i && rj == j) cell = text(r->pval[q]);
      }
      fprintf(out, " %6s", cell ? cell : ".");
      free(cell);
    }
    fputc('\n', out);
  }
}

/* The inputs of r's instance, as a counterexample shows them: ranks, maps, shapes (grids
 * of small tensors), access, the tensor points read with their values, and what the points
 * not listed hold. */
static void render_inputs(Rep *r, FILE *f, cJSON *j) {
  AxSymInstance *in = r->in;
  shown_points(r);
  const AxRuleSyms *s = in->rule->syms;
  ax_cex_render_maps(f, j, &r->den, r->a);
  cJSON *js = cJSON_AddObjectToObject(j, "shapes");
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *t = &s->syms[i];
    if (t->kind != AX_SYM_TENSOR || t->bad) continue;
    cJSON *jt = cJSON_AddObjectToObject(js, t->name);
    fprintf(f, "  %s %s", t->is_scalar || !t->ndims ? "scalar" : "tensor", t->name);
    AxV sizes[64];
    int ns = 0;
    for (int d = 0; d < t->ndims; d++) {
      int ax = t->dim_axis[d], rk = ax_den_rank(&r->den, ax);
      AxV *vals = ax_arena_alloc(r->a, (size_t)(rk + 1) * sizeof(AxV));
      for (int k = 0; k < rk; k++) vals[k] = sizes[ns < 64 ? ns++ : 63] = ax_den_map(&r->den, t->dim_size[d], k);
      fprintf(f, "%s%s: ", d ? ", " : " {", s->syms[s->axes[ax]].name);
      ax_cex_print_ints(f, vals, rk);
      cJSON_AddItemToObject(jt, s->syms[s->axes[ax]].name, ax_cex_ints_json(vals, rk));
    }
    fputs(t->ndims ? "}\n" : "\n", f);
    grid(r, f, (int)i, sizes, ns);
  }
  ax_cex_render_access(f, j, &r->den, &r->acc);
  cJSON *jreads = cJSON_AddArrayToObject(j, "reads");
  for (size_t q = 0; q < r->np; q++) {
    char *v = text(r->pval[q]);
    fprintf(f, "  %s", s->syms[r->psym[q]].name);
    if (r->pn[q]) ax_cex_print_ints(f, (AxV *)r->pidx[q], (int)r->pn[q]);
    fprintf(f, " = %s\n", v);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tensor", s->syms[r->psym[q]].name);
    cJSON_AddItemToObject(o, "index", ax_cex_ints_json((AxV *)r->pidx[q], (int)r->pn[q]));
    cJSON_AddStringToObject(o, "value", v);
    cJSON_AddItemToArray(jreads, o);
    free(v);
  }
  /* a sampled fill is listed point by point (record): nothing is left to a formula */
  if (ax_concrete_missing(r->c) && !(r->record && r->fill >= AX_CONCRETE_FILL_SAMPLED)) {
    if (r->fill) {   /* the formula's k and each tensor's t, in the text and the JSON */
      fprintf(f, "  tensor points not listed: %s (k = %d; t:", ax_concrete_fill_text(r->fill), r->fill);
      cJSON *jt = cJSON_AddObjectToObject(j, "unlisted_points_t");
      cJSON_AddNumberToObject(j, "unlisted_points_k", r->fill);
      for (size_t i = 0, n = 0; i < s->nsyms; i++)
        if (s->syms[i].kind == AX_SYM_TENSOR) {
          fprintf(f, "%s %s = %zu", n++ ? "," : "", s->syms[i].name, i + 1);
          cJSON_AddNumberToObject(jt, s->syms[i].name, (double)(i + 1));
        }
      fputs(")\n", f);
    } else {
      fprintf(f, "  tensor points not listed: 0\n");
    }
    cJSON_AddStringToObject(j, "unlisted_points", ax_concrete_fill_text(r->fill));
  }
}

static void render(Rep *r, const char *failed, AxV lv, AxV rv, AxReplay *out) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "failed", failed);
  fprintf(f, "counterexample (replayed): %s\n", failed);
  render_inputs(r, f, j);
  char *lt = text(lv), *rt = text(rv);
  fprintf(f, "  lhs = %s, rhs = %s\n", lt, rt);
  cJSON_AddStringToObject(j, "lhs", lt);
  cJSON_AddStringToObject(j, "rhs", rt);
  free(lt);
  free(rt);
  fclose(f);
  if (len && buf[len - 1] == '\n') buf[len - 1] = '\0';
  out->text = buf;
  out->json = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
}

static void attempt(AxSymInstance *in, const AxWatch *w, const AxModel *m, int fill, bool record,
                    AxReplay *out, size_t *missing);

/* Points the model leaves open (the other terms of a sum) can be filled in any way: a
 * replay whose sums happen to agree with 0 there is tried again with other fillings.
 * record: the counterexample lists the unset points read (ax_cex_search's inputs are
 * nothing but fill, so without them it would show no tensor value). */
static void replay(AxSymInstance *in, const AxWatch *w, const AxModel *m, bool record, AxReplay *out) {
  size_t missing = 0;
  for (int fill = 0; fill < 3; fill++) {
    if (fill) {
      free(out->text);
      free(out->json);
      free(out->failed);
    }
    attempt(in, w, m, fill, record, out, &missing);
    /* a model that broke a tensor precondition at points the replay filled may keep it
     * under another filling */
    if (out->confirmed || (out->unsupported && !out->partial_pre) || !missing) break;
  }
  if (!out->confirmed && !out->unsupported && w->opaque)
    out->unsupported = "the model chose values of an uninterpreted function (log, sqrt, or pow "
                       "where the model leaves it open) that are not the true ones";
}

void ax_cex_replay(AxSymInstance *in, const AxWatch *w, const AxModel *m, AxReplay *out) {
  replay(in, w, m, false, out);
}

static void attempt(AxSymInstance *in, const AxWatch *w, const AxModel *m, int fill, bool record,
                    AxReplay *out, size_t *missing) {
  memset(out, 0, sizeof *out);
  Rep r = {.in = in, .fill = fill, .record = record};
  r.c = ax_concrete_new();
  ax_concrete_set_fill(r.c, fill);
  if (record) ax_concrete_record_fills(r.c);
  r.d = ax_concrete_domain(r.c);
  r.a = ax_arena_new();
  load(&r, w, m);
  if (r.missing) {
    out->unsupported = r.missing;
    goto done;
  }
  r.den = (AxInst){.a = r.a, .syms = in->rule->syms, .rank = in->rank, .T = in->T, .d = r.d, .maps = r.maps};
  const AxRuleSyms *s = in->rule->syms;
  AxDomain *d = r.d;
  const AxShape *ls = ax_den_shape(&r.den, s->lhs), *rs = ax_den_shape(&r.den, s->rhs);
  bool pre = preconditions(&r), too_many = false;
  bool everywhere = pre && preconditions_everywhere(&r, &too_many);
  bool vl = ax_concrete_get_bool(ls->valid), vr = ax_concrete_get_bool(rs->valid);
  bool acc = true, sizes = true;
  char *bad_axis = NULL;
  for (size_t i = 0; i < s->naxes; i++) {
    if (!r.acc.at[i]) continue;
    for (int k = 0; k < ax_den_rank(&r.den, (int)i); k++) {
      acc &= ax_concrete_get_bool(d->ile(d, d->int_small(d, 0), r.acc.at[i][k])) &&
             ax_concrete_get_bool(d->ilt(d, r.acc.at[i][k], ls->size[i][k]));
      if (!ax_concrete_get_bool(d->ieq(d, ls->size[i][k], rs->size[i][k])) && sizes) {
        sizes = false;
        bad_axis = ax_arena_printf(r.a, "%s.%d", s->syms[s->axes[i]].name, k);
      }
    }
  }
  AxV lv = ax_den_at(&r.den, s->lhs, in->type, &r.acc);
  AxV rv = ax_den_at(&r.den, s->rhs, in->type, &r.acc);
  bool same = ax_concrete_get_bool(d->elem_same(d, in->type, lv, rv));
  if (r.den.unsupported || d->unsupported) {
    out->unsupported = r.den.unsupported ? r.den.unsupported : d->unsupported;
    goto done;
  }
  *missing = ax_concrete_missing(r.c);
  if (pre && (!everywhere || too_many)) {
    /* The model satisfies the preconditions on maps, but not a tensor precondition at every
     * point of its shape (the query assumed it only at the points it looks at; points the
     * model leaves open hold the replay's fill, as everywhere else in this replay): no
     * counterexample as it stands. The verifier may complete it (ax_cex_completion). A
     * replay that passes has checked the preconditions on the very values — model and
     * fill — that its sides then read. */
    out->partial_pre = true;
    out->unsupported = too_many ? "the counterexample's shapes are too large to check a tensor "
                                  "precondition at every point"
                                : "the solver's model breaks a tensor precondition at a point the "
                                  "query did not look at";
    goto done;
  }
  out->confirmed = pre && everywhere && vl && !(vr && sizes && (!acc || same));
  if (!out->confirmed) goto done;
  const char *failed = !vr ? "the right-hand side is not valid where the left-hand side is"
                     : !sizes ? ax_arena_printf(r.a, "the sizes differ on named axis %s", bad_axis)
                              : "the values differ at the access";
  out->failed = ax_xstrdup(failed);
  render(&r, failed, lv, rv, out);
done:
  if (out->unsupported) out->unsupported = ax_arena_strdup(in->a, out->unsupported);
  ax_concrete_free(r.c);
  ax_arena_free(r.a);
}

/* ---- a concrete instance to evaluate in -------------------------------------------------- */

struct AxCexInst {
  Rep r;
};

AxCexInst *ax_cex_inst_new(AxSymInstance *in, const AxWatch *w, const AxModel *m, int fill, const char **why) {
  AxCexInst *ci = ax_xcalloc(1, sizeof *ci);
  Rep *r = &ci->r;
  *r = (Rep){.in = in, .fill = fill, .record = true};
  r->c = ax_concrete_new();
  ax_concrete_set_fill(r->c, fill);
  ax_concrete_record_fills(r->c);
  r->d = ax_concrete_domain(r->c);
  r->a = ax_arena_new();
  load(r, w, m);
  *why = r->missing;
  if (*why) goto fail;
  r->den = (AxInst){.a = r->a, .syms = in->rule->syms, .rank = in->rank, .T = in->T, .d = r->d, .maps = r->maps};
  const AxRuleSyms *s = in->rule->syms;
  AxDomain *d = r->d;
  /* in->ctx, concretely, in the order of attempt() */
  const AxShape *ls = ax_den_shape(&r->den, s->lhs), *rs = ax_den_shape(&r->den, s->rhs);
  bool too_many = false;
  if (!preconditions(r) || !preconditions_everywhere(r, &too_many)) {
    *why = "the instance breaks a precondition";
  } else if (too_many) {
    *why = "the instance's shapes are too large to check a tensor precondition at every point";
  } else if (!ax_concrete_get_bool(ls->valid) || !ax_concrete_get_bool(rs->valid)) {
    *why = "a side is not valid at the instance";
  } else {
    for (size_t i = 0; i < s->naxes && !*why; i++) {
      if (!r->acc.at[i]) continue;
      for (int k = 0; k < ax_den_rank(&r->den, (int)i) && !*why; k++)
        if (!ax_concrete_get_bool(d->ile(d, d->int_small(d, 0), r->acc.at[i][k])) ||
            !ax_concrete_get_bool(d->ilt(d, r->acc.at[i][k], ls->size[i][k])) ||
            !ax_concrete_get_bool(d->ieq(d, ls->size[i][k], rs->size[i][k])))
          *why = "the access is not valid at the instance, or the sizes differ";
    }
  }
  if (!*why && (r->den.unsupported || d->unsupported))
    *why = r->den.unsupported ? r->den.unsupported : d->unsupported;
  if (!*why) return ci;
  *why = ax_arena_strdup(in->a, *why);
fail:
  ax_cex_inst_free(ci);
  return NULL;
}

void ax_cex_inst_free(AxCexInst *ci) {
  if (!ci) return;
  ax_concrete_free(ci->r.c);
  ax_arena_free(ci->r.a);
  free(ci);
}

AxConcrete *ax_cex_inst_concrete(AxCexInst *ci) { return ci->r.c; }

AxV ax_cex_inst_var(const AxCexInst *ci, const AxTerm *var) {
  const Rep *r = &ci->r;
  const AxSymInstance *in = r->in;
  const AxRuleSyms *s = in->rule->syms;
  for (size_t i = 0; i < s->nsyms; i++)
    if (in->maps[i])
      for (int k = 0; k < in->rank[s->syms[i].rclass]; k++)
        if (ax_symbolic_term(in->maps[i][k]) == var) return r->maps[i][k];
  for (size_t i = 0; i < s->naxes; i++)
    if (in->acc.at[i])
      for (int k = 0; k < ax_den_rank(&in->den, (int)i); k++)
        if (ax_symbolic_term(in->acc.at[i][k]) == var) return r->acc.at[i][k];
  return NULL;
}

void ax_cex_inst_render(AxCexInst *ci, FILE *f, cJSON *j) { render_inputs(&ci->r, f, j); }

/* Small values for the maps and access indices, drawn from a fixed-seed generator: mostly
 * 0..3 (sizes, strides, paddings of a hand example), sometimes -1. */
static long sample_value(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  unsigned r = (unsigned)(*state >> 33) % 9;
  return r == 8 ? -1 : (long)(r % 4);
}

AxModel *ax_cex_sample(AxSymInstance *in, const AxWatch *w, uint64_t *state, AxWatch *head) {
  const AxRuleSyms *s = in->rule->syms;
  size_t n = 0;   /* the watch list's maps and access indices come first (ax_cex_watch) */
  for (size_t i = 0; i < s->nsyms; i++)
    if (in->maps[i]) n += (size_t)in->rank[s->syms[i].rclass];
  for (size_t i = 0; i < s->naxes; i++)
    if (in->acc.at[i]) n += (size_t)ax_den_rank(&in->den, (int)i);
  AX_ASSERT(n <= w->n);
  *head = (AxWatch){.terms = w->terms, .n = n, .reads = NULL, .nreads = 0};
  mpq_t q;
  mpq_init(q);
  AxModel *m = ax_model_new(w->terms, n);
  for (size_t i = 0; i < n; i++) {
    mpq_set_si(q, sample_value(state), 1);
    ax_model_set_rational(m, i, q);
  }
  mpq_clear(q);
  return m;
}

bool ax_cex_search(AxSymInstance *in, const AxWatch *w, unsigned samples, AxReplay *out) {
  uint64_t state = AX_CEX_SEED;
  memset(out, 0, sizeof *out);
  for (unsigned k = 0; k < samples; k++) {
    AxWatch sw;
    AxModel *m = ax_cex_sample(in, w, &state, &sw);
    replay(in, &sw, m, true, out);
    if (!out->confirmed) {
      /* tensor values sampled from edge values too (a base of -1 against an exponent of
       * 1/2), every point read listed */
      free(out->text);
      free(out->json);
      free(out->failed);
      size_t missing = 0;
      attempt(in, &sw, m, AX_CONCRETE_FILL_SAMPLED + (int)k, true, out, &missing);
    }
    ax_model_free(m);
    if (out->confirmed) break;
    free(out->text);
    free(out->json);
    free(out->failed);
    memset(out, 0, sizeof *out);
  }
  return out->confirmed;
}
