/* fpcheck.c — IEEE mode: bounded floating-point checking of one rule; see fpcheck.h. */
#include "verifier/fpcheck.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "semantics/concrete.h"
#include "semantics/denote.h"
#include "semantics/float.h"
#include "semantics/fpsym.h"
#include "verifier/access.h"
#include "verifier/cex.h"

typedef const AxTerm *T;

/* One rank instance in the IEEE domain (cf. instance.h, without reductions as elements). */
typedef struct Inst {
  AxArena *a;
  AxTermCtx *tc;
  AxFpSym *fp;
  AxDomain *d;
  const AxBlock *rule;
  const int *rank;
  AxSort f;
  int max_size;
  AxV **maps;
  AxInst den;
  AxIndex acc;
  const AxShape *lhs, *rhs;
  AxType type;
  const AxRead *reads;
  size_t nreads;
  T query;
  T assume;       /* bounds ∧ precondition ∧ valid(LHS): is there anything to check? */
  const char *unsupported;
} Inst;

/* bound <= max_size on every named axis of every input tensor */
static AxV input_bounds(AxInst *den, int max_size) {
  const AxRuleSyms *s = den->syms;
  AxDomain *d = den->d;
  AxV ok = d->bool_lit(d, true), cap = d->int_small(d, max_size);
  for (size_t i = 0; i < s->nsyms; i++) {
    const AxSym *y = &s->syms[i];
    if (y->kind != AX_SYM_TENSOR || y->bad) continue;
    for (int j = 0; j < y->ndims; j++)
      for (int k = 0; k < ax_den_rank(den, y->dim_axis[j]); k++)
        ok = d->band(d, ok, d->ile(d, ax_den_map(den, y->dim_size[j], k), cap));
  }
  return ok;
}

/* a map's or the access's variable (access.h): an Int variable of the IEEE domain */
static AxV int_var(void *ctx, const char *name, int rclass, int pos, long family) {
  (void)rclass;
  (void)pos;
  (void)family;
  return ax_fpsym_int_var(ctx, name);
}

static void build(Inst *in, const AxBlock *rule, AxSort f, int max_size, const int *rank) {
  memset(in, 0, sizeof *in);
  const AxRuleSyms *s = rule->syms;
  in->rule = rule;
  in->rank = rank;
  in->f = f;
  in->max_size = max_size;
  in->a = ax_arena_new();
  in->tc = ax_term_ctx_new();
  const char **names = ax_arena_alloc(in->a, (s->nsyms + 1) * sizeof(char *));
  for (size_t i = 0; i < s->nsyms; i++) names[i] = s->syms[i].name;
  in->fp = ax_fpsym_new(in->tc, names, f, max_size);
  AxDomain *d = in->d = ax_fpsym_domain(in->fp);
  in->maps = ax_access_maps(in->a, s, rank, int_var, in->fp);
  in->den = (AxInst){.a = in->a, .syms = s, .rank = rank, .T = AX_REAL, .d = d, .maps = in->maps};
  in->lhs = ax_den_shape(&in->den, s->lhs);
  in->rhs = ax_den_shape(&in->den, s->rhs);
  AxV acc_valid, sizes;
  ax_access_build(&in->den, in->lhs, in->rhs, int_var, in->fp, &in->acc, &acc_valid, &sizes);
  in->type = ax_den_type(&in->den, s->lhs, AX_REAL);
  if (in->type == AX_INT) {
    in->unsupported = "integer elements are outside IEEE mode";
    return;
  }
  AxV lval = ax_den_at(&in->den, s->lhs, in->type, &in->acc);
  AxV rval = ax_den_at(&in->den, s->rhs, in->type, &in->acc);
  AxV same = d->elem_same(d, in->type, lval, rval);
  size_t nreads;
  const AxRead *reads = ax_fpsym_reads(in->fp, &nreads);
  AxPoint *points = ax_arena_alloc(in->a, (nreads + 1) * sizeof(AxPoint));
  for (size_t i = 0; i < nreads; i++) points[i] = (AxPoint){reads[i].sym, (const AxV *)reads[i].idx};
  AxV pre = ax_den_assume(&in->den, points, nreads, &in->acc, in->lhs->axes);
  AxV bounds = d->band(d, input_bounds(&in->den, max_size), ax_fpsym_bounds(in->fp));
  in->reads = ax_fpsym_reads(in->fp, &in->nreads);   /* the preconditions may read more */
  AxV goal = d->band(d, in->rhs->valid, d->band(d, sizes, d->bor(d, d->bnot(d, acc_valid), same)));
  in->assume = ax_fpsym_term(d->band(d, bounds, d->band(d, pre, in->lhs->valid)));
  in->query = ax_term_mk_and2(in->tc, in->assume, ax_fpsym_term(d->bnot(d, goal)));
  in->unsupported = in->den.unsupported ? in->den.unsupported : d->unsupported;
}

static void inst_free(Inst *in) {
  ax_fpsym_free(in->fp);
  ax_term_ctx_free(in->tc);
  ax_arena_free(in->a);
}

/* maps, access, then per read its indices and its value (cex.h's layout) */
static const AxTerm **watch_list(Inst *in, size_t *n) {
  AxVec v = {0};
  ax_cex_watch_head(&in->den, &in->acc, in->a, &v);
  for (size_t r = 0; r < in->nreads; r++) ax_cex_watch_read(&in->reads[r], in->a, &v);
  *n = v.len;
  return (const AxTerm **)v.items;
}

/* ---- replay ---------------------------------------------------------------------------- */

typedef struct Rep {
  Inst *in;
  AxConcrete *c;
  AxFloatDom *fd;
  AxDomain *d;
  AxArena *a;
  AxInst den;
  AxV **maps;
  AxIndex acc;
  AxV **read_idx;
  uint32_t *read_bits;
  bool *read_bool;
  const char *missing;
} Rep;

/* a read's value as a bit pattern of the format (bools as bools); the point set in the
 * IEEE replay (bools in the concrete domain it uses for them) */
static void load_value(void *ctx, size_t j, const AxModel *m, size_t pos, AxModelPoints *p) {
  Rep *r = ctx;
  const AxRead *rd = &r->in->reads[j];
  mpq_t q;
  mpq_init(q);
  if (rd->type == AX_BOOL) {
    bool b = false;
    if (!ax_model_bool(m, pos, &b)) p->missing = "the model has no value for a tensor element";
    r->read_bool[j] = b;
    ax_concrete_set(r->c, rd->sym, p->read_idx[j], rd->n, ax_concrete_elem(r->c, AX_BOOL, AX_FIN, q, b));
  } else {
    if (!ax_model_real(m, pos, q) || mpz_cmp_ui(mpq_denref(q), 1) != 0 || mpz_sgn(mpq_numref(q)) < 0 ||
        mpz_sizeinbase(mpq_numref(q), 2) > (size_t)ax_float_width(r->in->f))
      p->missing = "the model has no bit pattern for a tensor element";
    else
      r->read_bits[j] = (uint32_t)mpz_get_ui(mpq_numref(q));
    ax_float_dom_set(r->fd, rd->sym, p->read_idx[j], rd->n, r->read_bits[j]);
  }
  mpq_clear(q);
}

static void load(Rep *r, const AxModel *m) {
  Inst *in = r->in;
  r->read_bits = ax_arena_alloc(r->a, (in->nreads + 1) * sizeof(uint32_t));
  r->read_bool = ax_arena_alloc(r->a, (in->nreads + 1) * sizeof(bool));
  AxModelPoints p;
  ax_cex_load(&in->den, &in->acc, in->reads, in->nreads, m, r->c, r->a, load_value, r, &p);
  r->maps = p.maps;
  r->acc = p.acc;
  r->read_idx = p.read_idx;
  r->missing = p.missing;
}

static cJSON *float_json(AxSort f, uint32_t bits) {
  cJSON *o = cJSON_CreateObject();
  char hex[16];
  snprintf(hex, sizeof hex, "0x%0*x", ax_float_width(f) / 4, (unsigned)bits);
  cJSON_AddStringToObject(o, "bits", hex);
  char *dec = ax_float_decimal(f, bits);
  cJSON_AddStringToObject(o, "value", dec);
  free(dec);
  return o;
}

/* Is the point idx (flat, in declaration order) inside tensor sym's shape? A read outside
 * it (in a branch the instance does not take) is no part of the input. */
static bool inside(Rep *r, int sym, AxV *idx) {
  const AxSym *y = &r->in->rule->syms->syms[sym];
  size_t pos = 0;
  for (int j = 0; j < y->ndims; j++)
    for (int k = 0; k < ax_den_rank(&r->den, y->dim_axis[j]); k++, pos++) {
      AxV n = ax_den_map(&r->den, y->dim_size[j], k);
      if (!ax_concrete_get_bool(r->d->ile(r->d, r->d->int_small(r->d, 0), idx[pos])) ||
          !ax_concrete_get_bool(r->d->ilt(r->d, idx[pos], n)))
        return false;
    }
  return true;
}

static void render(Rep *r, const char *failed, AxV lv, AxV rv, bool values, char **text, char **json) {
  Inst *in = r->in;
  const AxRuleSyms *s = in->rule->syms;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "failed", failed);
  cJSON_AddStringToObject(j, "format", ax_float_name(in->f));
  fprintf(f, "counterexample in %s (replayed in exact IEEE arithmetic): %s\n", ax_float_name(in->f), failed);
  ax_cex_render_maps(f, j, &r->den, r->a);
  ax_cex_render_access(f, j, &r->den, &r->acc);
  cJSON *jreads = cJSON_AddArrayToObject(j, "reads");
  for (size_t q = 0; q < in->nreads; q++) {
    const AxRead *rd = &in->reads[q];
    bool dup = false;   /* a point read twice is shown once */
    for (size_t p = 0; p < q && !dup; p++) {
      if (in->reads[p].sym != rd->sym || in->reads[p].n != rd->n) continue;
      bool eq = true;
      for (size_t k = 0; k < rd->n && eq; k++) {
        mpz_t x, y;
        mpz_inits(x, y, NULL);
        ax_concrete_get_int(r->read_idx[p][k], x);
        ax_concrete_get_int(r->read_idx[q][k], y);
        eq = mpz_cmp(x, y) == 0;
        mpz_clears(x, y, NULL);
      }
      dup = eq;
    }
    if (dup || !inside(r, rd->sym, r->read_idx[q])) continue;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tensor", s->syms[rd->sym].name);
    cJSON_AddItemToObject(o, "index", ax_cex_ints_json(r->read_idx[q], (int)rd->n));
    fprintf(f, "  %s", s->syms[rd->sym].name);
    if (rd->n) ax_cex_print_ints(f, r->read_idx[q], (int)rd->n);
    if (rd->type == AX_BOOL) {
      fprintf(f, " = %s\n", r->read_bool[q] ? "true" : "false");
      cJSON_AddBoolToObject(o, "value", r->read_bool[q]);
    } else {
      char *v = ax_float_text(in->f, r->read_bits[q]);
      fprintf(f, " = %s\n", v);
      free(v);
      cJSON_AddItemToObject(o, "value", float_json(in->f, r->read_bits[q]));
    }
    cJSON_AddItemToArray(jreads, o);
  }
  if (values) {
    if (in->type == AX_BOOL) {
      bool lb = ax_concrete_get_bool(lv), rb = ax_concrete_get_bool(rv);
      fprintf(f, "  left side = %s, right side = %s\n", lb ? "true" : "false", rb ? "true" : "false");
      cJSON_AddBoolToObject(j, "lhs", lb);
      cJSON_AddBoolToObject(j, "rhs", rb);
    } else {
      char *lt = ax_float_text(in->f, ax_float_dom_bits(lv)), *rt = ax_float_text(in->f, ax_float_dom_bits(rv));
      fprintf(f, "  left side = %s\n  right side = %s\n", lt, rt);
      free(lt);
      free(rt);
      cJSON_AddItemToObject(j, "lhs", float_json(in->f, ax_float_dom_bits(lv)));
      cJSON_AddItemToObject(j, "rhs", float_json(in->f, ax_float_dom_bits(rv)));
    }
  }
  fclose(f);
  while (len && buf[len - 1] == '\n') buf[--len] = '\0';
  *text = buf;
  char *cj = cJSON_PrintUnformatted(j);
  *json = ax_xstrdup(cj);
  cJSON_free(cj);
  cJSON_Delete(j);
}

/* Replays a model; true with text/json/failed set when it reproduces the failure. On
 * false, *why says why not. */
static bool replay(Inst *in, const AxModel *m, char **text, char **json, char **failed, const char **why) {
  const AxRuleSyms *s = in->rule->syms;
  Rep r;
  memset(&r, 0, sizeof r);
  r.in = in;
  r.a = ax_arena_new();
  r.c = ax_concrete_new();
  r.fd = ax_float_dom_new(ax_concrete_domain(r.c), in->f);
  AxDomain *d = r.d = ax_float_dom_domain(r.fd);
  load(&r, m);
  bool ok = false;
  *why = NULL;
  if (r.missing) {
    *why = r.missing;
    goto out;
  }
  r.den = (AxInst){.a = r.a, .syms = s, .rank = in->rank, .T = AX_REAL, .d = d, .maps = r.maps};
  const AxShape *lhs = ax_den_shape(&r.den, s->lhs), *rhs = ax_den_shape(&r.den, s->rhs);
  AxV acc_ok, sizes_eq;
  ax_access_build(&r.den, lhs, rhs, NULL, NULL, &r.acc, &acc_ok, &sizes_eq);
  bool acc_valid = ax_concrete_get_bool(acc_ok), sizes = ax_concrete_get_bool(sizes_eq);
  AxPoint *points = ax_arena_alloc(r.a, (in->nreads + 1) * sizeof(AxPoint));
  for (size_t j = 0; j < in->nreads; j++) points[j] = (AxPoint){in->reads[j].sym, r.read_idx[j]};
  bool pre = ax_concrete_get_bool(ax_den_assume(&r.den, points, in->nreads, &r.acc, lhs->axes));
  bool too_many = false;
  if (pre && !ax_cex_pre_everywhere(&r.den, &too_many)) {
    *why = "the model breaks a tensor precondition at a point the query did not look at";
    goto out;
  }
  if (too_many) {
    *why = "the counterexample's shapes are too large to check a tensor precondition at every point";
    goto out;
  }
  bool in_bounds = ax_concrete_get_bool(input_bounds(&r.den, in->max_size));
  bool vl = ax_concrete_get_bool(lhs->valid), vr = ax_concrete_get_bool(rhs->valid);
  AxV lv = NULL, rv = NULL;
  bool same = true;
  if (pre && vl && vr && sizes && acc_valid) {
    lv = ax_den_at(&r.den, s->lhs, in->type, &r.acc);
    rv = ax_den_at(&r.den, s->rhs, in->type, &r.acc);
    same = ax_concrete_get_bool(d->elem_same(d, in->type, lv, rv));
  }
  if (r.den.unsupported || d->unsupported) {
    *why = r.den.unsupported ? r.den.unsupported : d->unsupported;
    goto out;
  }
  if (ax_float_dom_missing(r.fd) || ax_concrete_missing(r.c)) {
    *why = "the replay read a tensor element the model does not fix";
    goto out;
  }
  if (!pre || !vl || !in_bounds) {
    *why = "the model does not satisfy the precondition, the left side's validity or the bounds";
    goto out;
  }
  const char *what = !vr ? "the right side is invalid"
                     : !sizes ? "the sizes differ"
                     : !same ? "the values differ" : NULL;
  if (!what) {
    *why = "the values agree in exact IEEE arithmetic";
    goto out;
  }
  render(&r, what, lv, rv, lv != NULL, text, json);
  *failed = ax_xstrdup(what);
  ok = true;
out:
  ax_float_dom_free(r.fd);
  ax_concrete_free(r.c);
  ax_arena_free(r.a);
  return ok;
}

/* ---- the rule ---------------------------------------------------------------------------- */

/* One rank instance: AX_HOLDS_BOUNDED (no counterexample), AX_INVALID or AX_UNKNOWN. When
 * it holds and *inhabited is false, one more query asks whether any input satisfies the
 * bounds, the precondition and the left side's validity here (sets *inhabited). */
static AxVerdict instance(const AxBlock *rule, AxSort f, const int *rank, const AxVerifyOpts *o,
                          AxResult *out, bool *inhabited) {
  Inst in;
  build(&in, rule, f, o->ieee.max_size, rank);
  char *where = ax_verify_ranks_text(rule->syms, rank);
  AxVerdict v = AX_HOLDS_BOUNDED;
  if (in.unsupported) {
    ax_result_set_reason(out, "not checkable in IEEE mode: %s%s", in.unsupported, "");
    v = AX_UNKNOWN;
    goto done;
  }
  size_t nw;
  const AxTerm **w = watch_list(&in, &nw);
  AxModel *m = NULL;
  char why[512] = "";
  out->queries++;
  AxSolverOpts so = o->solver;
  so.first_sat = true;
  char prefix[4096];
  if (o->dump_stem) {
    snprintf(prefix, sizeof prefix, "%s.%s.vc", o->dump_stem, where);
    for (char *p = prefix + strlen(o->dump_stem); *p; p++)
      if (*p == '=' || *p == ' ' || *p == ',') *p = *p == ',' ? '-' : '_';
    so.dump_path = NULL;
    so.dump_prefix = prefix;
  }
  AxSmtResult r = ax_solver_check(&so, in.tc, in.query, w, nw, &m, why, sizeof why);
  if (r == AX_SMT_UNKNOWN) {
    ax_result_set_reason(out, "at rank %s: %s", where, why);
    v = AX_UNKNOWN;
  } else if (r == AX_SMT_SAT) {
    char *text = NULL, *json = NULL, *failed = NULL;
    const char *no = NULL;
    if (replay(&in, m, &text, &json, &failed, &no)) {
      v = AX_INVALID;
      ax_result_set_reason(out, "at rank %s: %s", where, failed);
      free(out->cex_text);
      free(out->cex_json);
      out->cex_text = text;
      out->cex_json = json;
      free(failed);
    } else {
      v = AX_UNKNOWN;
      ax_result_set_reason(out, "at rank %s: the solver's counterexample did not replay: %s", where, no);
    }
  } else if (!*inhabited) {
    out->queries++;
    so.dump_prefix = NULL;
    *inhabited = ax_solver_check(&so, in.tc, in.assume, NULL, 0, NULL, why, sizeof why) == AX_SMT_SAT;
  }
  ax_model_free(m);
done:
  free(where);
  inst_free(&in);
  return v;
}

/* The rank vectors of one check (ax_verify_sweep); inhabited as instance() says. */
typedef struct Sweep {
  const AxBlock *rule;
  AxSort f;
  const AxVerifyOpts *o;
  bool inhabited;
} Sweep;

static AxVerdict sweep_instance(void *ctx, const int *rank, AxResult *out) {
  Sweep *sw = ctx;
  AxVerdict v = instance(sw->rule, sw->f, rank, sw->o, out, &sw->inhabited);
  for (size_t c = 0; c < sw->rule->syms->nrclasses; c++)   /* the ranks reached */
    if (rank[c] > out->bounds[c]) out->bounds[c] = rank[c];
  return v;
}

bool ax_fpcheck_in_scope(const AxBlock *rule) {
  if (rule->tvar.name)
    return rule->tclass == AX_TC_ANY || rule->tclass == AX_TC_NUM || rule->tclass == AX_TC_REAL;
  const AxRuleSyms *s = rule->syms;
  for (size_t i = 0; i < s->nsyms; i++)
    if (s->syms[i].kind == AX_SYM_TENSOR && s->syms[i].elem == AX_ELEM_REAL) return true;
  return false;
}

void ax_fpcheck_rule(const AxBlock *rule, AxSort f, const AxVerifyOpts *o, AxResult *out) {
  const AxRuleSyms *s = rule->syms;
  memset(out, 0, sizeof *out);
  double t0 = ax_clock_s();
  out->rule = rule;
  out->type = AX_REAL;
  out->has_type = rule->tvar.name != NULL;
  out->ieee = true;
  out->fmt = f;
  out->ieee_rank = o->ieee.max_rank;
  out->ieee_size = o->ieee.max_size;
  out->nrclasses = (int)s->nrclasses;
  out->rclass_names = ax_xcalloc(s->nrclasses + 1, sizeof(char *));
  out->bounds = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  for (size_t c = 0; c < s->nrclasses; c++) out->rclass_names[c] = s->rclasses[c].name;
  bool real = ax_fpcheck_in_scope(rule);
  out->has_type = real;   /* the format is the result's type, with or without a variable */
  if (!real) {
    out->has_type = rule->tvar.name != NULL;
    out->verdict = AX_UNKNOWN;
    out->reason = ax_xstrdup("outside IEEE mode: only rules whose element type can be real are "
                             "checked in floating point (int and bool rules are not)");
    out->time_ms = (ax_clock_s() - t0) * 1e3;
    return;
  }
  int *hi = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  int *at = ax_xcalloc(s->nrclasses + 1, sizeof(int));
  for (size_t c = 0; c < s->nrclasses; c++) hi[c] = s->rclasses[c].singleton ? 1 : o->ieee.max_rank;
  /* lowest ranks first: by total rank, then the odometer order */
  Sweep sw = {rule, f, o, false};
  AxVerdict worst = ax_verify_sweep(s, hi, NULL, AX_SWEEP_BY_TOTAL, AX_HOLDS_BOUNDED, sweep_instance,
                                   &sw, out, at);
  bool inhabited = sw.inhabited;
  free(hi);
  free(at);
  out->verdict = worst;
  if (worst == AX_HOLDS_BOUNDED) {
    free(out->reason);
    out->reason = NULL;
    if (!inhabited) {   /* nothing was checked: say so, never HOLDS */
      out->verdict = AX_UNKNOWN;
      out->reason = ax_xstrdup("vacuous at these bounds: no input within them was found that "
                               "satisfies the precondition with a valid left side (raise "
                               "--ieee-max-rank or --ieee-max-size)");
    }
  }
  out->time_ms = (ax_clock_s() - t0) * 1e3;
}
