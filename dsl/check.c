/* check.c — the rule checker; see check.h for what it guarantees. */
#include "dsl/check.h"

#include <stdarg.h>
#include <string.h>

typedef struct Checker {
  AxArena *a;
  AxDiag *d;
  AxBlock *rule;
  AxRuleSyms *s;
  AxVec syms, rcls, reqs, hints;
  bool failed;
} Checker;

/* ---- diagnostics ------------------------------------------------------------------- */

static void err(Checker *c, AxSpan at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(Checker *c, AxSpan at, const char *fmt, ...) {
  /* formatted in full: the renderer shortens echoed names, a cut here would lose the end */
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *msg = ax_xmalloc(n > 0 ? (size_t)n + 1 : 1);
  msg[0] = '\0';
  if (n > 0) vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  ax_diag_error(c->d, at, "rule '%s': %s", c->rule->name.name, msg);
  free(msg);
  c->failed = true;
}

/* Edit distance, for "did you mean" (names are short; quadratic is fine). */
static int distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 30 || m > 30) return 99;
  int row[32];
  for (size_t j = 0; j <= m; j++) row[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

/* " (did you mean 'x'?)" for the closest of `names`, or "" */
static const char *suggest(Checker *c, const char *name, const char **names, size_t n) {
  const char *best = NULL;
  int bestd = 3;
  for (size_t i = 0; i < n; i++) {
    int dd = distance(name, names[i]);
    if (dd < bestd && (size_t)dd < strlen(name)) {
      bestd = dd;
      best = names[i];
    }
  }
  return best ? ax_arena_printf(c->a, " (did you mean '%s'?)", best) : "";
}

/* ---- symbols ----------------------------------------------------------------------- */

static AxSym *sym(Checker *c, int i) { return (AxSym *)c->syms.items[i]; }
static AxRClass *rcl(Checker *c, int i) { return (AxRClass *)c->rcls.items[i]; }

static int find_sym(Checker *c, const char *name) {
  for (size_t i = 0; i < c->syms.len; i++)
    if (strcmp(sym(c, (int)i)->name, name) == 0) return (int)i;
  return -1;
}

static int find_rclass(Checker *c, const char *name) {
  for (size_t i = 0; i < c->rcls.len; i++)
    if (strcmp(rcl(c, (int)i)->name, name) == 0) return (int)i;
  return -1;
}

static const char *symkind_name(AxSymKind k) {
  static const char *const names[] = {
      [AX_SYM_AXIS] = "axis",     [AX_SYM_MAP] = "map", [AX_SYM_INDEX] = "index map",
      [AX_SYM_TENSOR] = "tensor", [AX_SYM_LET] = "let binding"};
  return names[k];
}

static AxSym *declare(Checker *c, AxSymKind kind, const AxIdent *id) {
  int prev = find_sym(c, id->name);
  if (prev >= 0) {
    int line, col;
    ax_source_linecol(sym(c, prev)->span.src, sym(c, prev)->span.start, &line, &col);
    err(c, id->span, "'%s' is already declared (as %s %s at line %d)", id->name,
        sym(c, prev)->kind == AX_SYM_AXIS ? "an" : "a", symkind_name(sym(c, prev)->kind), line);
    return NULL;
  }
  AxSym *s = ax_arena_alloc(c->a, sizeof *s);
  s->kind = kind;
  s->name = id->name;
  s->span = id->span;
  s->rclass = -1;
  s->axis = -1;
  ax_vec_push(c->a, &c->syms, s);
  return s;
}

static int axis_index(Checker *c, int symi) { return sym(c, symi)->axis; }

static const char *axis_name(Checker *c, int axis) {
  return sym(c, c->s->axes[axis])->name;
}

static void add_axis(Checker *c, const AxIdent *id, int rclass) {
  if (c->s->naxes >= AX_MAX_AXES) {
    err(c, id->span, "too many aggregated axes (at most %d per rule)", AX_MAX_AXES);
    return;
  }
  AxSym *s = declare(c, AX_SYM_AXIS, id);
  if (!s) return;
  s->rclass = rclass;
  s->axis = (int)c->s->naxes;
  c->s->axes[c->s->naxes++] = (int)(c->syms.len - 1);
}

/* "{x, y}" */
static const char *axes_text(Checker *c, uint64_t axes) {
  char buf[512];
  size_t len = 0;
  buf[len++] = '{';
  for (size_t i = 0; i < c->s->naxes && len < sizeof buf - 40; i++)
    if (axes >> i & 1)
      len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", len > 1 ? ", " : "",
                              axis_name(c, (int)i));
  buf[len++] = '}';
  buf[len] = '\0';
  return ax_arena_strdup(c->a, buf);
}

/* ---- element types ------------------------------------------------------------------ */

const char *ax_elem_name(AxElem e) {
  static const char *const names[] = {
      [AX_ELEM_NONE] = "none", [AX_ELEM_BOOL] = "bool",       [AX_ELEM_INT] = "int",
      [AX_ELEM_REAL] = "real", [AX_ELEM_VAR] = "T",           [AX_ELEM_NUMLIT] = "a number",
      [AX_ELEM_REALLIT] = "a decimal"};
  return names[e];
}

static const char *elem_text(Checker *c, AxElem e) {
  if (e == AX_ELEM_VAR)
    return ax_arena_printf(c->a, "%s (in %s)", c->rule->tvar.name,
                           ax_typeclass_name(c->rule->tclass));
  return ax_elem_name(e);
}

static bool var_numeric(Checker *c) { return c->rule->tclass != AX_TC_ANY && c->rule->tclass != AX_TC_BOOL; }

static bool is_numeric(Checker *c, AxElem e) {
  return e == AX_ELEM_INT || e == AX_ELEM_REAL || e == AX_ELEM_NUMLIT || e == AX_ELEM_REALLIT ||
         (e == AX_ELEM_VAR && var_numeric(c));
}

static bool is_bool(Checker *c, AxElem e) {
  return e == AX_ELEM_BOOL || (e == AX_ELEM_VAR && c->rule->tclass == AX_TC_BOOL);
}

static bool is_real(Checker *c, AxElem e) {
  return e == AX_ELEM_REAL || e == AX_ELEM_REALLIT || e == AX_ELEM_NUMLIT ||
         (e == AX_ELEM_VAR && c->rule->tclass == AX_TC_REAL);
}

/* The common type of two operands, or NONE when they cannot meet. Literals adapt: a
 * number fits int, real and a numeric T; a decimal fits real and T in real. */
static AxElem unify(Checker *c, AxElem x, AxElem y) {
  if (x == y) return x;
  if (x == AX_ELEM_NONE || y == AX_ELEM_NONE) return AX_ELEM_NONE;
  if (y == AX_ELEM_NUMLIT || y == AX_ELEM_REALLIT) {
    AxElem t = x;
    x = y;
    y = t;
  }
  if (x == AX_ELEM_NUMLIT) {
    if (y == AX_ELEM_INT || y == AX_ELEM_REAL || y == AX_ELEM_REALLIT) return y;
    if (y == AX_ELEM_VAR && var_numeric(c)) return y;
    return AX_ELEM_NONE;
  }
  if (x == AX_ELEM_REALLIT) {
    if (y == AX_ELEM_REAL) return y;
    if (y == AX_ELEM_VAR && c->rule->tclass == AX_TC_REAL) return y;
    return AX_ELEM_NONE;
  }
  return AX_ELEM_NONE;
}

/* ---- expressions -------------------------------------------------------------------- */

static AxTy check_expr(Checker *c, AxExpr *e);

static AxTy none(void) { return (AxTy){.kind = AX_K_NONE, .rclass = -1, .op = -1, .sym = -1}; }

static AxTy tensor_ty(AxElem elem, uint64_t axes) {
  AxTy t = none();
  t.kind = AX_K_TENSOR;
  t.elem = elem;
  t.axes = axes;
  return t;
}

static AxTy map_ty(AxKind kind, int rclass) {
  AxTy t = none();
  t.kind = kind;
  t.rclass = rclass;
  return t;
}

/* a literal: a number (it adapts to its context) or a boolean */
static AxTy lit_ty(AxElem elem) {
  AxTy t = none();
  t.kind = AX_K_LIT;
  t.elem = elem;
  return t;
}

static bool is_mapish(AxTy t) { return t.kind == AX_K_MAP || (t.kind == AX_K_LIT && t.elem == AX_ELEM_NUMLIT); }
static bool is_condish(AxTy t) { return t.kind == AX_K_COND || (t.kind == AX_K_LIT && t.elem == AX_ELEM_BOOL); }

/* A literal used where a tensor is meant becomes a scalar tensor of its own type. */
static AxTy as_tensor(AxTy t) {
  if (t.kind == AX_K_LIT) return tensor_ty(t.elem, 0);
  return t;
}

static const char *kind_text(AxTy t) {
  switch (t.kind) {
  case AX_K_TENSOR: return t.axes ? "a tensor" : "a scalar";
  case AX_K_MAP: return "a map";
  case AX_K_COND: return "a condition on maps";
  case AX_K_AXMAP: return "an axis map {...}";
  case AX_K_LIST: return "a list [...]";
  case AX_K_AXIS: return "an axis";
  case AX_K_LIT: return "a literal";
  default: return "an invalid expression";
  }
}

/* Two rank classes of map operands: -1 (a literal or closed condition) joins anything. */
static bool join_rclass(Checker *c, AxExpr *at, int x, int y, int *out) {
  if (x < 0 || y < 0 || x == y) {
    *out = x >= 0 ? x : y;
    return true;
  }
  err(c, at->span, "maps over different rank classes '%s' and '%s' cannot be combined element-wise",
      rcl(c, x)->name, rcl(c, y)->name);
  return false;
}

static AxTy check_name(Checker *c, AxExpr *e) {
  int i = find_sym(c, e->u.text);
  if (i < 0) {
    const char *names[256];
    size_t n = 0;
    for (size_t k = 0; k < c->syms.len && n < 256; k++) names[n++] = sym(c, (int)k)->name;
    if (find_rclass(c, e->u.text) >= 0)
      err(c, e->span, "'%s' is a rank class, not a value (maps are declared with 'map … over %s')",
          e->u.text, e->u.text);
    else
      err(c, e->span, "unknown name '%s'%s", e->u.text, suggest(c, e->u.text, names, n));
    return none();
  }
  AxSym *s = sym(c, i);
  s->used = true;
  if (s->bad) return none();
  AxTy t = none();
  switch (s->kind) {
  case AX_SYM_AXIS: t.kind = AX_K_AXIS; break;
  case AX_SYM_MAP:
  case AX_SYM_INDEX: t = map_ty(AX_K_MAP, s->rclass); break;
  case AX_SYM_TENSOR:
    if (s->elem == AX_ELEM_NONE) return none();   /* its declaration was reported */
    t = tensor_ty(s->elem, s->axes);
    break;
  case AX_SYM_LET: t = s->def->ty; t.op = -1; break;
  }
  t.sym = i;
  return t;
}

/* Element rules of AX_OP_LIST applied to operand types; reports and returns NONE on a
 * mismatch. */
static AxElem op_elem(Checker *c, AxExpr *at, AxOp op, AxTy *ops, int n) {
  const AxOpSpec *spec = ax_op_spec(op);
  const char *name = spec->name;
  AxElem e = AX_ELEM_NONE;
  int first = spec->elem == AX_ET_SELECT ? 1 : 0;
  /* gather: the operand's type; the indices' (int) are checked, located, by axes_gather
   * (scatter's by axes_scatter: its operand and updates are typed below, as NUM) */
  if (spec->elem == AX_ET_GATHER) return ops[0].elem;
  int indices = spec->elem == AX_ET_SCATTER ? 1 : -1;
  if (spec->elem == AX_ET_SELECT && !is_bool(c, ops[0].elem)) {
    err(c, at->span, "'select' needs a boolean predicate, got %s", elem_text(c, ops[0].elem));
    return AX_ELEM_NONE;
  }
  for (int i = first; i < n; i++) {
    if (i == indices) continue;
    AxElem u = i == first ? ops[i].elem : unify(c, e, ops[i].elem);
    if (u == AX_ELEM_NONE) {
      err(c, at->span, "operands of '%s' have different element types: %s and %s", name,
          elem_text(c, e), elem_text(c, ops[i].elem));
      return AX_ELEM_NONE;
    }
    e = u;
  }
  switch (spec->elem) {
  case AX_ET_NUM:
  case AX_ET_CMP:
  case AX_ET_SCATTER:
    if (n && !is_numeric(c, e)) {
      err(c, at->span, "'%s' needs numeric operands, got %s", name, elem_text(c, e));
      return AX_ELEM_NONE;
    }
    return spec->elem == AX_ET_CMP ? AX_ELEM_BOOL : e;
  case AX_ET_REAL:
    if (!is_real(c, e)) {
      err(c, at->span, "'%s' needs real operands, got %s", name, elem_text(c, e));
      return AX_ELEM_NONE;
    }
    return e == AX_ELEM_NUMLIT ? AX_ELEM_REALLIT : e;
  case AX_ET_BOOL:
    if (!is_bool(c, e)) {
      err(c, at->span, "'%s' needs boolean operands, got %s", name, elem_text(c, e));
      return AX_ELEM_NONE;
    }
    return e;
  case AX_ET_EQ:
    return AX_ELEM_BOOL;
  case AX_ET_NONE:
    return AX_ELEM_INT;
  case AX_ET_ANY:
  case AX_ET_SELECT:
  case AX_ET_GATHER:
    return e;
  }
  return e;
}

/* Binds call arguments to operands (positional, first) and attributes (positional after
 * the operands, or by name). */
typedef struct Bound {
  AxExpr *operands[64];
  int noperands;
  AxExpr *attrs[AX_MAX_ATTRS];
} Bound;

static bool bind_args(Checker *c, AxExpr *e, AxOp op, Bound *b) {
  const AxOpSpec *spec = ax_op_spec(op);
  int nattrs = ax_op_nattrs(op);
  memset(b, 0, sizeof *b);
  bool ok = true;
  int npos = 0;
  for (size_t i = 0; i < e->u.call.nargs; i++) {
    AxArg *g = &e->u.call.args[i];
    if (g->name.name) {
      int k;
      if (!ax_op_attr(op, g->name.name, &k)) {
        char list[256] = "";
        size_t len = 0;
        for (int j = 0; j < nattrs; j++)
          len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "",
                                  spec->attrs[j].name);
        if (nattrs)
          err(c, g->name.span, "'%s' has no attribute '%s' (its attributes: %s)", spec->name,
              g->name.name, list);
        else
          err(c, g->name.span, "'%s' has no attributes", spec->name);
        ok = false;
      } else if (b->attrs[k]) {
        err(c, g->name.span, "attribute '%s' of '%s' is given twice", g->name.name, spec->name);
        ok = false;
      } else {
        b->attrs[k] = g->value;
      }
      continue;
    }
    if (npos > 0 && e->u.call.args[i - 1].name.name) {
      err(c, g->value->span, "positional argument after a named one in '%s'", spec->name);
      ok = false;
      continue;
    }
    bool variadic = spec->max_operands < 0;
    if (variadic || npos < spec->max_operands) {
      if (b->noperands == 64) {
        err(c, g->value->span, "too many operands");
        return false;
      }
      b->operands[b->noperands++] = g->value;
    } else if (npos - spec->max_operands < nattrs) {
      int k = npos - spec->max_operands;
      if (b->attrs[k]) {
        err(c, g->value->span, "attribute '%s' of '%s' is given twice", spec->attrs[k].name, spec->name);
        ok = false;
      }
      b->attrs[k] = g->value;
    } else {
      err(c, g->value->span, "too many arguments to '%s' (%d operand%s and %d attribute%s)",
          spec->name, spec->max_operands, spec->max_operands == 1 ? "" : "s", nattrs,
          nattrs == 1 ? "" : "s");
      ok = false;
    }
    npos++;
  }
  if (b->noperands < spec->min_operands) {
    err(c, e->span, "'%s' needs %s%d operand%s, got %d", spec->name,
        spec->max_operands != spec->min_operands ? "at least " : "", spec->min_operands,
        spec->min_operands == 1 ? "" : "s", b->noperands);
    ok = false;
  }
  for (int k = 0; k < nattrs; k++)
    if (spec->attrs[k].required && !b->attrs[k]) {
      err(c, e->span, "'%s' needs attribute '%s'", spec->name, spec->attrs[k].name);
      ok = false;
    }
  return ok;
}

/* Resolves an axis name written in an attribute. Returns the axis index or -1. */
static int attr_axis(Checker *c, const AxIdent *id, const char *op) {
  int i = find_sym(c, id->name);
  if (i < 0 || sym(c, i)->kind != AX_SYM_AXIS) {
    if (i < 0 && find_rclass(c, id->name) >= 0)
      err(c, id->span, "'%s' in '%s' is a rank class without an axis of that name", id->name, op);
    else
      err(c, id->span, "'%s' in '%s' is not an aggregated axis", id->name, op);
    return -1;
  }
  sym(c, i)->used = true;
  return axis_index(c, i);
}

/* An axis written as a name v (an attribute, a list item, a renaming's target): its
 * index, v typed as that axis; -1 after an error. */
static int axis_at(Checker *c, AxExpr *v, const char *opn) {
  AxIdent id = {v->u.text, v->span};
  int ax = attr_axis(c, &id, opn);
  if (ax < 0) return -1;
  v->ty = none();
  v->ty.kind = AX_K_AXIS;
  v->ty.sym = c->s->axes[ax];
  return ax;
}

/* [x, ...]: distinct axis names */
static bool check_axis_list(Checker *c, const AxAttrSpec *spec, const char *opn, AxExpr *v, uint64_t *axes) {
  for (size_t i = 0; i < v->u.list.n; i++) {
    AxExpr *it = v->u.list.items[i];
    if (it->kind != AX_E_NAME) {
      err(c, it->span, "attribute '%s' of '%s' lists axes; this is not an axis name", spec->name, opn);
      return false;
    }
    int ax = axis_at(c, it, opn);
    if (ax < 0) return false;
    if (*axes >> ax & 1) {
      err(c, it->span, "axis '%s' is listed twice", it->u.text);
      return false;
    }
    *axes |= (uint64_t)1 << ax;
  }
  v->ty = none();
  v->ty.kind = AX_K_LIST;
  return true;
}

/* The value of entry `en` (axis of rank class rc) of an axis map: per the attribute's
 * kind, an axis of the same rank class (relabel), a summation-index map over rc
 * (AX_AT_AXIDX), or a map over rc. */
static bool check_entry(Checker *c, const AxAttrSpec *spec, const char *opn, AxAxEntry *en, int rc) {
  if (spec->kind == AX_AT_RELABEL) {
    if (en->value->kind != AX_E_NAME) {
      err(c, en->value->span, "'relabel' maps an axis to an axis");
      return false;
    }
    int to = axis_at(c, en->value, opn);
    if (to < 0) return false;
    int rc2 = sym(c, c->s->axes[to])->rclass;
    if (rc2 != rc) {
      err(c, en->value->span, "'relabel' maps axis '%s' (rank class '%s') to '%s' (rank class '%s'); "
          "a renaming must stay within a rank class", en->axis.name, rcl(c, rc)->name,
          en->value->u.text, rcl(c, rc2)->name);
      return false;
    }
    return true;
  }
  AxTy t = check_expr(c, en->value);
  if (t.kind == AX_K_NONE) return false;
  if (spec->kind == AX_AT_AXIDX) {
    AxSym *is = en->value->kind == AX_E_NAME && t.sym >= 0 ? sym(c, t.sym) : NULL;
    if (!is || is->kind != AX_SYM_INDEX) {
      err(c, en->value->span, "the value for axis '%s' in '%s' must be a summation-index map "
          "(declared with 'index … over %s')", en->axis.name, spec->name, rcl(c, rc)->name);
      return false;
    }
    if (is->rclass != rc) {
      err(c, en->value->span, "index map '%s' is over rank class '%s', but axis '%s' is of '%s'",
          is->name, rcl(c, is->rclass)->name, en->axis.name, rcl(c, rc)->name);
      return false;
    }
    return true;
  }
  if (!is_mapish(t)) {
    err(c, en->value->span, "the value for axis '%s' in '%s' must be a map over '%s', not %s",
        en->axis.name, spec->name, rcl(c, rc)->name, kind_text(t));
    return false;
  }
  if (t.rclass >= 0 && t.rclass != rc) {
    err(c, en->value->span, "map over rank class '%s' used for axis '%s' of rank class '%s'",
        rcl(c, t.rclass)->name, en->axis.name, rcl(c, rc)->name);
    return false;
  }
  return true;
}

/* {axis: value, ...}: distinct axes, each value checked by check_entry; every entry is
 * checked (all its errors reported) */
static bool check_axis_map(Checker *c, const AxAttrSpec *spec, const char *opn, AxExpr *v, uint64_t *axes) {
  v->ty = none();
  v->ty.kind = AX_K_AXMAP;
  bool ok = true;
  for (size_t i = 0; i < v->u.axmap.n; i++) {
    AxAxEntry *en = &v->u.axmap.entries[i];
    int ax = attr_axis(c, &en->axis, opn);
    if (ax < 0) {
      ok = false;
      continue;
    }
    if (*axes >> ax & 1) {
      err(c, en->axis.span, "axis '%s' appears twice in '%s'", en->axis.name, spec->name);
      ok = false;
      continue;
    }
    *axes |= (uint64_t)1 << ax;
    if (!check_entry(c, spec, opn, en, sym(c, c->s->axes[ax])->rclass)) ok = false;
  }
  return ok;
}

/* An attribute value that names axes: {x: map, ...} (with per-axis map values),
 * [x, ...], or one axis, as its kind (dsl/ops.c) says. Fills the set of axes; checks
 * values per the kind. */
static bool check_attr(Checker *c, AxOp op, const AxAttrSpec *spec, AxExpr *v, uint64_t *axes) {
  const char *opn = ax_op_name(op);
  *axes = 0;
  switch (spec->kind) {
  case AX_AT_AXIS: {
    if (v->kind != AX_E_NAME) {
      err(c, v->span, "attribute '%s' of '%s' must be one axis", spec->name, opn);
      return false;
    }
    int ax = axis_at(c, v, opn);
    if (ax < 0) return false;
    *axes = (uint64_t)1 << ax;
    return true;
  }
  case AX_AT_AXES:
  case AX_AT_AXIDX:
    if (v->kind == AX_E_LIST) return check_axis_list(c, spec, opn, v, axes);
    if (spec->kind == AX_AT_AXES || v->kind != AX_E_AXMAP) {
      err(c, v->span, "attribute '%s' of '%s' must be a list of axes [x, ...]%s", spec->name, opn,
          spec->kind == AX_AT_AXIDX ? " or {axis: index map, ...}" : "");
      return false;
    }
    return check_axis_map(c, spec, opn, v, axes);
  default:
    if (v->kind != AX_E_AXMAP) {
      err(c, v->span, "attribute '%s' of '%s' must be an axis map {axis: value, ...}", spec->name, opn);
      return false;
    }
    return check_axis_map(c, spec, opn, v, axes);
  }
}

static void mark_singleton(Checker *c, uint64_t axes, AxSpan at, const char *why) {
  for (size_t i = 0; i < c->s->naxes; i++)
    if (axes >> i & 1) {
      AxRClass *r = rcl(c, sym(c, c->s->axes[i])->rclass);
      if (!r->singleton) {
        r->singleton_at = at;
        r->singleton_why = why;
      }
      r->singleton = true;
    }
}

static int nbits(uint64_t v) {
  int n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

/* ---- axes rules, one per operator family ------------------------------------------
 *
 * The axes discipline of one operator application (TensorRight §4, XLA-HLO shapes). An
 * operator's rule is in its row of `checks` below; check_op has already checked the
 * operands (tensors), the attributes (axis names, per-axis values) and the element types,
 * so a rule only relates axis sets. */

/* One application as its axes rule sees it. */
typedef struct Applied {
  AxExpr *e;                  /* the call */
  AxOp op;
  const AxOpSpec *spec;
  const Bound *b;             /* operands and attributes as written */
  const AxTy *ops;            /* the operands' types */
  uint64_t at[AX_MAX_ATTRS];  /* the axes each attribute names (0 when absent) */
  uint64_t x;                 /* the first operand's axes (0 without operands) */
} Applied;

/* Sets *result to the application's axes, or reports why it is ill-formed and returns
 * false. */
typedef bool AxesRule(Checker *c, const Applied *p, uint64_t *result);

/* The operand has every axis of `axes`; else "'OP' VERB axes … that the operand does not
 * have" at `at` (the attribute that names them: absent only when `axes` is empty). */
static bool operand_has(Checker *c, const Applied *p, uint64_t axes, const AxExpr *at, const char *verb) {
  if (!(axes & ~p->x)) return true;
  err(c, at->span, "'%s' %s axes %s that the operand does not have", p->spec->name, verb, axes_text(c, axes & ~p->x));
  return false;
}

/* The operand has no axis of `axes`; else "'OP' VERB axes … that the operand already has"
 * at `at` (as for operand_has). */
static bool operand_lacks(Checker *c, const Applied *p, uint64_t axes, const AxExpr *at, const char *verb) {
  if (!(axes & p->x)) return true;
  err(c, at->span, "'%s' %s axes %s that the operand already has", p->spec->name, verb, axes_text(c, axes & p->x));
  return false;
}

/* CONSTANT: a scalar value spread over the shape's axes */
static bool axes_constant(Checker *c, const Applied *p, uint64_t *result) {
  if (p->ops[0].axes) {
    err(c, p->b->operands[0]->span, "the value of 'constant' must be a scalar, not a tensor with axes %s",
        axes_text(c, p->ops[0].axes));
    return false;
  }
  *result = p->at[0];
  return true;
}

/* IOTA: the shape's axes; the iota axis is one of them (fixed at rank 1: its row) */
static bool axes_iota(Checker *c, const Applied *p, uint64_t *result) {
  if (!(p->at[0] & p->at[1])) {
    err(c, p->b->attrs[1]->span, "the 'iota' axis must be one of the shape's axes %s", axes_text(c, p->at[0]));
    return false;
  }
  *result = p->at[0];
  return true;
}

/* BROADCAST: the operand's axes and new ones */
static bool axes_broadcast(Checker *c, const Applied *p, uint64_t *result) {
  if (!operand_lacks(c, p, p->at[0], p->b->attrs[0], "adds")) return false;
  *result = p->x | p->at[0];
  return true;
}

/* SLICE, DYNAMIC_SLICE, REVERSE (and the pads, the update): the operand's axes; every
 * attribute names only axes the operand has */
static bool axes_window(Checker *c, const Applied *p, uint64_t *result) {
  for (int k = 0; k < ax_op_nattrs(p->op); k++)
    if (p->at[k] & ~p->x) {
      err(c, p->b->attrs[k]->span, "'%s' attribute '%s' names axes %s that the operand does not have",
          p->spec->name, p->spec->attrs[k].name, axes_text(c, p->at[k] & ~p->x));
      return false;
    }
  *result = p->x;
  return true;
}

/* PAD, PAD_LOW: a window whose padding value is a scalar */
static bool axes_pad(Checker *c, const Applied *p, uint64_t *result) {
  if (p->ops[1].axes) {
    err(c, p->b->operands[1]->span, "the padding value of '%s' must be a scalar", p->spec->name);
    return false;
  }
  return axes_window(c, p, result);
}

/* DYNAMIC_UPDATE_SLICE: a window whose update has the operand's axes */
static bool axes_update(Checker *c, const Applied *p, uint64_t *result) {
  if (!axes_window(c, p, result)) return false;
  if (p->ops[1].axes != p->x) {
    err(c, p->b->operands[1]->span, "the update of 'dynamic_update_slice' has axes %s, the operand %s",
        axes_text(c, p->ops[1].axes), axes_text(c, p->x));
    return false;
  }
  return true;
}

/* CONCAT: operands with one set of axes; the concat axis is one of them (fixed at rank 1:
 * its row) */
static bool axes_concat(Checker *c, const Applied *p, uint64_t *result) {
  for (int i = 1; i < p->b->noperands; i++)
    if (p->ops[i].axes != p->x) {
      err(c, p->b->operands[i]->span, "operands of 'concat' have different axes: %s and %s",
          axes_text(c, p->x), axes_text(c, p->ops[i].axes));
      return false;
    }
  if (!(p->at[0] & p->x)) {
    err(c, p->b->attrs[0]->span, "the 'concat' axis must be one of the operands' axes %s", axes_text(c, p->x));
    return false;
  }
  *result = p->x;
  return true;
}

/* RELABEL: an injective renaming of some of the operand's axes */
static bool axes_relabel(Checker *c, const Applied *p, uint64_t *result) {
  AxExpr *m = p->b->attrs[0];
  uint64_t x = p->x, from = p->at[0], to = 0;
  if (!operand_has(c, p, from, m, "renames")) return false;
  for (size_t i = 0; i < m->u.axmap.n; i++) {
    int ax = sym(c, m->u.axmap.entries[i].value->ty.sym)->axis;
    if (to >> ax & 1) {
      err(c, m->u.axmap.entries[i].value->span, "'relabel' is not injective: two axes become '%s'",
          axis_name(c, ax));
      return false;
    }
    to |= (uint64_t)1 << ax;
  }
  if (to & (x & ~from)) {
    err(c, m->span, "'relabel' is not injective: %s would clash with axes the operand keeps",
        axes_text(c, to & (x & ~from)));
    return false;
  }
  *result = (x & ~from) | to;
  return true;
}

/* RESHAPE_DEGENERATE: adds new axes, removes axes the operand has */
static bool axes_degenerate(Checker *c, const Applied *p, uint64_t *result) {
  if (!operand_lacks(c, p, p->at[0], p->b->attrs[0], "adds") ||
      !operand_has(c, p, p->at[1], p->b->attrs[1], "removes"))
    return false;
  *result = (p->x & ~p->at[1]) | p->at[0];
  return true;
}

/* MEAN, RMS_NORM: one axis of the operand (fixed at rank 1 — programs reduce along one
 * dimension: their rows); mean removes it, rms_norm keeps it */
static bool axes_one_axis(Checker *c, const Applied *p, uint64_t *result) {
  if (!(p->at[0] & p->x)) {
    err(c, p->b->attrs[0]->span, "the '%s' axis must be one of the operand's axes %s", p->spec->name,
        axes_text(c, p->x));
    return false;
  }
  *result = p->op == AX_OP_MEAN ? p->x & ~p->at[0] : p->x;
  return true;
}

/* RESHAPE_SPLIT, RESHAPE_MERGE: row-major split of one aggregated axis into two of its
 * rank class (named axis by named axis: x.k = hi.k * t.k + lo.k), and the merge back */
static bool axes_reshape(Checker *c, const Applied *p, uint64_t *result) {
  const char *name = p->spec->name;
  bool split = p->op == AX_OP_RESHAPE_SPLIT;
  uint64_t x = p->x, one = split ? p->at[0] : p->at[1], two = split ? p->at[1] : p->at[0];
  AxExpr *one_at = p->b->attrs[split ? 0 : 1], *two_at = p->b->attrs[split ? 1 : 0];
  if (split && nbits(one) != 1) {
    err(c, one_at->span, "'reshape_split' splits one axis: attribute 'inner' must name exactly one");
    return false;
  }
  if (nbits(two) != 2) {
    err(c, two_at->span, "'%s' needs exactly two axes [major, minor] in '%s'", name, split ? "into" : "axes");
    return false;
  }
  uint64_t gone = split ? one : two, made = split ? two : one;
  if (!operand_has(c, p, gone, split ? one_at : two_at, split ? "splits" : "merges") ||
      !operand_lacks(c, p, made, split ? two_at : one_at, "makes"))
    return false;
  int rc = -1;
  for (size_t i = 0; i < c->s->naxes; i++)
    if ((one | two) >> i & 1) {
      int r = sym(c, c->s->axes[i])->rclass;
      if (rc >= 0 && r != rc) {
        err(c, p->e->span, "'%s' needs its axes %s in one rank class", name, axes_text(c, one | two));
        return false;
      }
      rc = r;
    }
  *result = (x & ~gone) | made;
  return true;
}

/* REDUCE: the operand's axes without the reduced ones */
static bool axes_reduce(Checker *c, const Applied *p, uint64_t *result) {
  if (!operand_has(c, p, p->at[0], p->b->attrs[0], "removes")) return false;
  *result = p->x & ~p->at[0];
  return true;
}

/* DOT: both operands' axes without the contracted ones; every shared axis is contracted
 * or batch */
static bool axes_dot(Checker *c, const Applied *p, uint64_t *result) {
  uint64_t x = p->x, y = p->ops[1].axes, common = x & y, con = p->at[0], bat = p->at[1];
  if (con & ~common) {
    err(c, p->b->attrs[0]->span, "'dot' contracts axes %s that are not in both operands",
        axes_text(c, con & ~common));
    return false;
  }
  if (bat & ~common) {
    err(c, p->b->attrs[1]->span, "'dot' batch axes %s are not in both operands", axes_text(c, bat & ~common));
    return false;
  }
  if (con & bat) {
    err(c, p->b->attrs[1]->span, "axes %s are both contracted and batch", axes_text(c, con & bat));
    return false;
  }
  if (common & ~(con | bat)) {
    err(c, p->e->span, "'dot' operands share axes %s that are neither contracted nor batch "
        "(relabel one operand)", axes_text(c, common & ~(con | bat)));
    return false;
  }
  *result = (x | y) & ~con;
  return true;
}

/* CONV: input {batch, feature, spatial}, kernel {feature, out_feature, spatial}, result
 * {batch, out_feature, spatial}; the per-axis attributes name spatial axes only */
static bool axes_conv(Checker *c, const Applied *p, uint64_t *result) {
  uint64_t x = p->x, w = p->ops[1].axes, bat = p->at[0], feat = p->at[1], outf = p->at[2], sp = p->at[3];
  uint64_t all[4] = {bat, feat, outf, sp};
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      if (all[i] & all[j]) {
        err(c, p->e->span, "'conv' uses axes %s in two roles", axes_text(c, all[i] & all[j]));
        return false;
      }
  if (x != (bat | feat | sp)) {
    err(c, p->b->operands[0]->span, "the input of 'conv' must have exactly the batch, feature and "
        "spatial axes %s, it has %s", axes_text(c, bat | feat | sp), axes_text(c, x));
    return false;
  }
  if (w != (feat | outf | sp)) {
    err(c, p->b->operands[1]->span, "the kernel of 'conv' must have exactly the feature, output-feature "
        "and spatial axes %s, it has %s", axes_text(c, feat | outf | sp), axes_text(c, w));
    return false;
  }
  for (int k = 4; k < ax_op_nattrs(p->op); k++)
    if (p->at[k] & ~sp) {
      err(c, p->b->attrs[k]->span, "'conv' attribute '%s' names non-spatial axes %s",
          p->spec->attrs[k].name, axes_text(c, p->at[k] & ~sp));
      return false;
    }
  *result = bat | outf | sp;
  return true;
}

/* operand 2 of gather and scatter, the indices, is int (located at the operand) */
static bool indices_int(Checker *c, const Applied *p) {
  AxElem ix = p->ops[1].elem;
  if (ix == AX_ELEM_INT || ix == AX_ELEM_NUMLIT || (ix == AX_ELEM_VAR && c->rule->tclass == AX_TC_INT))
    return true;
  err(c, p->b->operands[1]->span, "the indices of '%s' must be int, got %s", p->spec->name, elem_text(c, ix));
  return false;
}

/* GATHER(A, I, axis=y): A's axes without y, and I's; y is one of A's axes (fixed at rank
 * 1: its row), I is an int tensor whose axes are not among A's others (it may have y: the
 * result's y is then I's). */
static bool axes_gather(Checker *c, const Applied *p, uint64_t *result) {
  if (!indices_int(c, p)) return false;
  if (!operand_has(c, p, p->at[0], p->b->attrs[0], "gathers along")) return false;
  uint64_t kept = p->x & ~p->at[0], z = p->ops[1].axes;
  if (z & kept) {
    err(c, p->b->operands[1]->span, "the indices of 'gather' have axes %s that the operand keeps "
        "(relabel the indices)", axes_text(c, z & kept));
    return false;
  }
  *result = kept | z;
  return true;
}

/* SCATTER(A, I, U, axis=y): A's axes; y is one of A's axes (fixed at rank 1: its row), I
 * is an int tensor with none of A's axes (its axes are summed over: an index of the result
 * cannot also be one), U has I's axes and A's others — gather(A, I, axis=y)'s axes, the
 * shape of what a gather would read. */
static bool axes_scatter(Checker *c, const Applied *p, uint64_t *result) {
  if (!indices_int(c, p)) return false;
  if (!operand_has(c, p, p->at[0], p->b->attrs[0], "scatters along")) return false;
  uint64_t z = p->ops[1].axes, u = p->ops[2].axes, want = (p->x & ~p->at[0]) | z;
  if (z & p->x) {
    err(c, p->b->operands[1]->span, "the indices of 'scatter' have axes %s that the operand has "
        "(relabel the indices)", axes_text(c, z & p->x));
    return false;
  }
  if (u != want) {
    err(c, p->b->operands[2]->span, "the updates of 'scatter' must have the indices' axes and the "
        "operand's others, %s; they have %s", axes_text(c, want), axes_text(c, u));
    return false;
  }
  *result = p->x;
  return true;
}

/* the rank class of the one axis in `axis` (an AX_AT_AXIS attribute's set) */
static int class_of(Checker *c, uint64_t axis) {
  for (size_t i = 0; i < c->s->naxes; i++)
    if (axis >> i & 1) return sym(c, c->s->axes[i])->rclass;
  return -1;
}

/* FLATTEN(A, x, into=a): A's axes with x replaced by a (new);
 * UNFLATTEN(A, a, {x: s}): A's axes with a replaced by x (new, exactly one).
 * a's class is fixed at rank 1 (their rows); x's must be another (a flat axis of x's own
 * class would be x at rank 1) */
static bool axes_flat(Checker *c, const Applied *p, uint64_t *result) {
  bool un = p->op == AX_OP_UNFLATTEN;
  if (un && nbits(p->at[1]) != 1) {
    err(c, p->b->attrs[1]->span, "'unflatten' makes one axis: its shape must name exactly one");
    return false;
  }
  if (!operand_has(c, p, p->at[0], p->b->attrs[0], un ? "unflattens" : "flattens") ||
      !operand_lacks(c, p, p->at[1], p->b->attrs[1], "makes"))
    return false;
  if (class_of(c, p->at[0]) == class_of(c, p->at[1])) {
    err(c, p->b->attrs[1]->span, "'%s' needs its %s axis in another rank class than %s", p->spec->name,
        un ? "new" : "flat", axes_text(c, p->at[0]));
    return false;
  }
  *result = (p->x & ~p->at[0]) | p->at[1];
  return true;
}

/* Element-wise operators (arithmetic, comparisons, logic, select, clamp, the unary
 * functions): operands with identical axes, or scalars that broadcast */
static bool axes_elementwise(Checker *c, const Applied *p, uint64_t *result) {
  *result = 0;
  for (int i = 0; i < p->b->noperands; i++) {
    if (!p->ops[i].axes) continue;
    if (*result && p->ops[i].axes != *result) {
      err(c, p->e->span, "operands of '%s' have different axes: %s and %s", p->spec->name,
          axes_text(c, *result), axes_text(c, p->ops[i].axes));
      return false;
    }
    *result = p->ops[i].axes;
  }
  return true;
}

/* What the checker knows of an operator besides its AX_OP_LIST row. */
typedef struct OpCheck {
  AxesRule *axes;     /* its axes rule */
  struct {
    int attr;         /* the attribute naming an axis whose rank class is fixed at rank 1 */
    const char *why;  /* for the messages ("concat axis"); NULL: no such attribute */
  } rank1;
  bool on_maps;       /* also map arithmetic: max(s, t), min(s, t), abs(s) on maps */
  /* commutes with merging two adjacent named axes of a class into one (their index pair
   * read row-major): its element at a position of such an axis depends on its operands at
   * that position only, or sums over every position, or reverses every named axis (the
   * pair (n.j - 1 - a, n.(j+1) - 1 - b) is, merged, n.j n.(j+1) - 1 - (a n.(j+1) + b): the
   * merged axis reversed) — the flatten argument's condition (verifier/rank.c,
   * docs/semantics.md "Flatten: the merge argument") */
  bool merges;
} OpCheck;

/* Every rule-level operator (AX_LV_RULE in AX_OP_LIST) has its row; operators of one
 * family share their axes rule. A missing row is an internal error at its first use, and
 * check_semantics' completeness test walks AX_OP_LIST so that it never reaches a user. */
static const OpCheck checks[AX_OP_COUNT] = {
    [AX_OP_CONSTANT] = {.axes = axes_constant, .merges = true},
    [AX_OP_IOTA] = {.axes = axes_iota, .rank1 = {.attr = 1, .why = "iota axis"}},
    [AX_OP_BROADCAST] = {.axes = axes_broadcast, .merges = true},
    [AX_OP_ADD] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_SUB] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_MUL] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_DIV] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_REM] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_MAX] = {.axes = axes_elementwise, .on_maps = true, .merges = true},
    [AX_OP_MIN] = {.axes = axes_elementwise, .on_maps = true, .merges = true},
    [AX_OP_NEG] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_ABS] = {.axes = axes_elementwise, .on_maps = true, .merges = true},
    [AX_OP_EXP] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_AND] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_OR] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_NOT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_EQ] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_NE] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_LT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_LE] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_GT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_GE] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_SELECT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_CLAMP] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_PAD] = {.axes = axes_pad},
    [AX_OP_PAD_LOW] = {.axes = axes_pad},
    [AX_OP_SLICE] = {.axes = axes_window},
    [AX_OP_DYNAMIC_SLICE] = {.axes = axes_window},
    [AX_OP_DYNAMIC_UPDATE_SLICE] = {.axes = axes_update},
    [AX_OP_CONCAT] = {.axes = axes_concat, .rank1 = {.attr = 0, .why = "concat axis"}},
    [AX_OP_RELABEL] = {.axes = axes_relabel, .merges = true},
    [AX_OP_REVERSE] = {.axes = axes_window, .merges = true},
    [AX_OP_RESHAPE_DEGENERATE] = {.axes = axes_degenerate},
    [AX_OP_REDUCE] = {.axes = axes_reduce, .merges = true},
    [AX_OP_DOT] = {.axes = axes_dot, .merges = true},
    [AX_OP_CONV] = {.axes = axes_conv},
    [AX_OP_SQUARE] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_SQRT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_SILU] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_MEAN] = {.axes = axes_one_axis, .rank1 = {.attr = 0, .why = "mean axis"}, .merges = true},
    [AX_OP_RMS_NORM] = {.axes = axes_one_axis, .rank1 = {.attr = 0, .why = "rms_norm axis"}, .merges = true},
    [AX_OP_LOG] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_POW] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_RSQRT] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_RESHAPE_SPLIT] = {.axes = axes_reshape},
    [AX_OP_RESHAPE_MERGE] = {.axes = axes_reshape},
    [AX_OP_GATHER] = {.axes = axes_gather, .rank1 = {.attr = 0, .why = "gather axis"}},
    [AX_OP_SCATTER] = {.axes = axes_scatter, .rank1 = {.attr = 0, .why = "scatter axis"}},
    [AX_OP_FLATTEN] = {.axes = axes_flat, .rank1 = {.attr = 1, .why = "flatten axis"}, .merges = true},
    [AX_OP_UNFLATTEN] = {.axes = axes_flat, .rank1 = {.attr = 0, .why = "unflatten axis"}, .merges = true},
    [AX_OP_TANH] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_LOGISTIC] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_TO_F16] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_TO_BF16] = {.axes = axes_elementwise, .merges = true},
    [AX_OP_TO_F32] = {.axes = axes_elementwise, .merges = true},
};

bool ax_check_knows(AxOp op) { return op >= 0 && op < AX_OP_COUNT && checks[op].axes; }

bool ax_check_merges(AxOp op) { return ax_check_knows(op) && checks[op].merges; }

/* One operator application: operands, attributes, element types (the row of AX_OP_LIST),
 * then the operator's axes rule. */
static AxTy check_op(Checker *c, AxExpr *e, AxOp op, Bound *b) {
  const AxOpSpec *spec = ax_op_spec(op);
  AxTy ops[64];
  bool ok = true;
  for (int i = 0; i < b->noperands; i++) {
    ops[i] = as_tensor(check_expr(c, b->operands[i]));
    if (ops[i].kind == AX_K_NONE) {
      ok = false;
    } else if (ops[i].kind != AX_K_TENSOR) {
      err(c, b->operands[i]->span, "operand %d of '%s' must be a tensor, not %s", i + 1, spec->name,
          kind_text(ops[i]));
      ok = false;
    }
  }
  Applied p = {.e = e, .op = op, .spec = spec, .b = b, .ops = ops};
  for (int k = 0; k < ax_op_nattrs(op); k++)
    if (b->attrs[k] && !check_attr(c, op, &spec->attrs[k], b->attrs[k], &p.at[k])) ok = false;
  if (!ok) return none();

  AxElem elem = op_elem(c, e, op, ops, b->noperands);
  if (elem == AX_ELEM_NONE) return none();
  p.x = b->noperands ? ops[0].axes : 0;
  AX_ASSERT(ax_check_knows(op));   /* a rule-level operator without its row in checks */
  const OpCheck *row = &checks[op];
  uint64_t result;
  if (!row->axes(c, &p, &result)) return none();
  if (row->rank1.why) mark_singleton(c, p.at[row->rank1.attr], b->attrs[row->rank1.attr]->span, row->rank1.why);

  AxTy t = tensor_ty(elem, result);
  t.op = op;
  t.nopnds = b->noperands;
  t.opnds = ax_arena_alloc(c->a, (size_t)(b->noperands + 1) * sizeof(AxExpr *));
  memcpy(t.opnds, b->operands, (size_t)b->noperands * sizeof(AxExpr *));
  t.attrs = ax_arena_alloc(c->a, AX_MAX_ATTRS * sizeof(AxExpr *));
  memcpy(t.attrs, b->attrs, sizeof b->attrs);
  return t;
}

/* Records the operands of an infix tensor operator like those of a call. */
static AxTy infix(Checker *c, AxTy t, AxExpr *l, AxExpr *r) {
  t.nopnds = r ? 2 : 1;
  t.opnds = ax_arena_alloc(c->a, 2 * sizeof(AxExpr *));
  t.opnds[0] = l;
  t.opnds[1] = r;
  t.attrs = ax_arena_alloc(c->a, AX_MAX_ATTRS * sizeof(AxExpr *));
  return t;
}

/* min / max / abs over maps (the same names as the tensor operators). */
static AxTy check_map_call(Checker *c, const Bound *b) {
  int rc = -1;
  bool lit = true;
  for (int i = 0; i < b->noperands; i++) {
    AxTy t = b->operands[i]->ty;
    if (!join_rclass(c, b->operands[i], rc, t.rclass, &rc)) return none();
    lit &= t.kind == AX_K_LIT;
  }
  return lit ? lit_ty(AX_ELEM_NUMLIT) : map_ty(AX_K_MAP, rc);
}

static AxTy check_call(Checker *c, AxExpr *e) {
  AxOp op;
  const char *fn = e->u.call.fn.name;
  if (!ax_op_lookup(fn, &op)) {
    const char *names[AX_OP_COUNT];
    int nnames = 0;   /* suggest only what a rule may apply */
    for (int i = 0; i < AX_OP_COUNT; i++)
      if (ax_op_spec((AxOp)i)->levels & AX_LV_RULE) names[nnames++] = ax_op_name((AxOp)i);
    AxOp prog;
    if (ax_op_lookup_prog(fn, &prog) && (prog == AX_OP_TRANSPOSE || (ax_op_spec(prog)->levels & AX_LV_RULE)))
      /* a program's spelling: name the rule language's (a transpose renames named axes) */
      err(c, e->u.call.fn.span, "unknown operator '%s' (rules write it '%s')", fn,
          prog == AX_OP_TRANSPOSE ? "relabel" : ax_op_name(prog));
    else
      err(c, e->u.call.fn.span, "unknown operator '%s'%s", fn, suggest(c, fn, names, nnames));
    return none();
  }
  Bound b;
  if (!bind_args(c, e, op, &b)) return none();
  /* max(s, t), min(s, t), abs(s) on maps are map arithmetic */
  if (checks[op].on_maps) {
    bool maps = true, any_map = false;
    for (int i = 0; i < b.noperands; i++) {
      AxTy t = check_expr(c, b.operands[i]);
      if (t.kind == AX_K_NONE) return none();
      maps &= is_mapish(t);
      any_map |= t.kind == AX_K_MAP;
    }
    if (maps && any_map) return check_map_call(c, &b);
  }
  return check_op(c, e, op, &b);
}

/* A tensor operator written prefix (-A, not P): the element rule of op, the axes of A. */
static AxTy prefix(Checker *c, AxExpr *e, AxOp op, AxTy t) {
  AxTy ops[1] = {t};
  AxElem el = op_elem(c, e, op, ops, 1);
  if (el == AX_ELEM_NONE) return none();
  AxTy r = tensor_ty(el, t.axes);
  r.op = op;
  return infix(c, r, e->u.unary.arg, NULL);
}

static AxTy check_unary(Checker *c, AxExpr *e) {
  AxTy t = check_expr(c, e->u.unary.arg);
  if (t.kind == AX_K_NONE) return t;
  if (e->u.unary.op == AX_UN_NEG) {
    if (t.kind == AX_K_MAP || t.kind == AX_K_LIT) {
      if (t.kind == AX_K_LIT && t.elem == AX_ELEM_BOOL) {
        err(c, e->span, "'-' applied to a boolean");
        return none();
      }
      return t;
    }
    if (t.kind != AX_K_TENSOR) {
      err(c, e->span, "'-' cannot apply to %s", kind_text(t));
      return none();
    }
    return prefix(c, e, AX_OP_NEG, t);
  }
  if (is_condish(t)) return t.kind == AX_K_LIT ? t : map_ty(AX_K_COND, t.rclass);
  if (t.kind != AX_K_TENSOR) {
    err(c, e->span, "'not' cannot apply to %s", kind_text(t));
    return none();
  }
  return prefix(c, e, AX_OP_NOT, t);
}

AxOp ax_check_infix_op(AxBinop op) {
  static const AxOp ops[AX_BIN_COUNT] = {
      [AX_BIN_OR] = AX_OP_OR,   [AX_BIN_AND] = AX_OP_AND, [AX_BIN_EQ] = AX_OP_EQ,
      [AX_BIN_NE] = AX_OP_NE,   [AX_BIN_LT] = AX_OP_LT,   [AX_BIN_LE] = AX_OP_LE,
      [AX_BIN_GT] = AX_OP_GT,   [AX_BIN_GE] = AX_OP_GE,   [AX_BIN_ADD] = AX_OP_ADD,
      [AX_BIN_SUB] = AX_OP_SUB, [AX_BIN_MUL] = AX_OP_MUL, [AX_BIN_DIV] = AX_OP_DIV,
      [AX_BIN_REM] = AX_OP_REM,
  };
  AX_ASSERT(op >= 0 && op < AX_BIN_COUNT);
  return ops[op];
}

static AxTy check_binary(Checker *c, AxExpr *e) {
  AxBinop bop = e->u.binary.op;
  AxTy l = check_expr(c, e->u.binary.lhs), r = check_expr(c, e->u.binary.rhs);
  if (l.kind == AX_K_NONE || r.kind == AX_K_NONE) return none();
  bool logic = bop == AX_BIN_AND || bop == AX_BIN_OR;
  bool cmp = bop >= AX_BIN_EQ && bop <= AX_BIN_GE;
  int rc;
  /* conditions on maps */
  if (logic && is_condish(l) && is_condish(r) && (l.kind == AX_K_COND || r.kind == AX_K_COND)) {
    if (!join_rclass(c, e, l.rclass, r.rclass, &rc)) return none();
    return map_ty(AX_K_COND, rc);
  }
  /* map arithmetic and comparisons */
  if (!logic && is_mapish(l) && is_mapish(r) && (l.kind == AX_K_MAP || r.kind == AX_K_MAP)) {
    if (!join_rclass(c, e, l.rclass, r.rclass, &rc)) return none();
    return map_ty(cmp ? AX_K_COND : AX_K_MAP, rc);
  }
  /* two literals: still a literal (1 + 2, true and false) */
  if (l.kind == AX_K_LIT && r.kind == AX_K_LIT) {
    if (logic && l.elem == AX_ELEM_BOOL && r.elem == AX_ELEM_BOOL) return l;
    if (!logic && l.elem == AX_ELEM_NUMLIT && r.elem == AX_ELEM_NUMLIT) {
      return cmp ? lit_ty(AX_ELEM_BOOL) : l;
    }
  }
  bool lmap = l.kind == AX_K_MAP || l.kind == AX_K_COND, rmap = r.kind == AX_K_MAP || r.kind == AX_K_COND;
  if ((lmap && r.kind == AX_K_TENSOR) || (rmap && l.kind == AX_K_TENSOR)) {
    err(c, e->span, "'%s' between %s and %s: maps and tensor values do not mix",
        ax_binop_text(bop), kind_text(l), kind_text(r));
    return none();
  }
  l = as_tensor(l);
  r = as_tensor(r);
  if (l.kind != AX_K_TENSOR || r.kind != AX_K_TENSOR) {
    err(c, e->span, "'%s' cannot combine %s and %s", ax_binop_text(bop), kind_text(l), kind_text(r));
    return none();
  }
  /* a tensor operator written infix */
  AxOp op = ax_check_infix_op(bop);
  AxTy ops[2] = {l, r};
  AxElem el = op_elem(c, e, op, ops, 2);
  if (el == AX_ELEM_NONE) return none();
  if (l.axes && r.axes && l.axes != r.axes) {
    err(c, e->span, "operands of '%s' have different axes: %s and %s", ax_binop_text(bop),
        axes_text(c, l.axes), axes_text(c, r.axes));
    return none();
  }
  AxTy t = tensor_ty(el, l.axes | r.axes);
  t.op = op;
  return infix(c, t, e->u.binary.lhs, e->u.binary.rhs);
}

/* if c then a else b: a choice between maps or between conditions (tensors use select) */
static AxTy check_if(Checker *c, AxExpr *e) {
  AxTy k = check_expr(c, e->u.ite.cond);
  AxTy x = check_expr(c, e->u.ite.then_e), y = check_expr(c, e->u.ite.else_e);
  if (k.kind == AX_K_NONE || x.kind == AX_K_NONE || y.kind == AX_K_NONE) return none();
  if (x.kind == AX_K_TENSOR || y.kind == AX_K_TENSOR) {
    err(c, e->span, "'if' chooses between maps; for tensors use select(p, a, b)");
    return none();
  }
  if (!is_condish(k)) {
    err(c, e->u.ite.cond->span, "the condition of 'if' must be a condition on maps, not %s",
        kind_text(k));
    return none();
  }
  int rc;
  bool mapsv = is_mapish(x) && is_mapish(y), conds = is_condish(x) && is_condish(y);
  if (!mapsv && !conds) {
    err(c, e->span, "the branches of 'if' must both be maps or both conditions");
    return none();
  }
  if (!join_rclass(c, e, k.rclass, x.rclass, &rc) || !join_rclass(c, e, rc, y.rclass, &rc))
    return none();
  return map_ty(mapsv ? AX_K_MAP : AX_K_COND, rc);
}

/* forall/exists rclass: p — a closed condition over the named axes of one rank class */
static AxTy check_quant(Checker *c, AxExpr *e) {
  int rc = find_rclass(c, e->u.quant.rclass.name);
  if (rc < 0) {
    err(c, e->u.quant.rclass.span, "'%s' is not a rank class", e->u.quant.rclass.name);
    return none();
  }
  AxTy b = check_expr(c, e->u.quant.body);
  if (b.kind == AX_K_NONE) return none();
  if (!is_condish(b)) {
    err(c, e->u.quant.body->span, "the body of '%s' must be a condition on maps, not %s",
        e->u.quant.exists ? "exists" : "forall", kind_text(b));
    return none();
  }
  if (b.rclass >= 0 && b.rclass != rc) {
    err(c, e->u.quant.body->span, "the body of '%s %s' is a condition over rank class '%s'",
        e->u.quant.exists ? "exists" : "forall", rcl(c, rc)->name, rcl(c, b.rclass)->name);
    return none();
  }
  AxTy t = map_ty(AX_K_COND, -1);
  t.sym = rc;   /* the quantified rank class, for the verifier */
  return t;
}

static AxTy check_expr_inner(Checker *c, AxExpr *e) {
  switch (e->kind) {
  case AX_E_INT:
    return lit_ty(AX_ELEM_NUMLIT);
  case AX_E_BOOL:
    return lit_ty(AX_ELEM_BOOL);
  case AX_E_REAL:
    return tensor_ty(AX_ELEM_REALLIT, 0);
  case AX_E_INF:
    return tensor_ty(AX_ELEM_NUMLIT, 0);
  case AX_E_NAME:
    return check_name(c, e);
  case AX_E_CALL:
    return check_call(c, e);
  case AX_E_UNARY:
    return check_unary(c, e);
  case AX_E_BINARY:
    return check_binary(c, e);
  case AX_E_IF:
    return check_if(c, e);
  case AX_E_QUANT:
    return check_quant(c, e);
  case AX_E_AXMAP:
    err(c, e->span, "an axis map {...} is only meaningful as an operator attribute");
    return none();
  case AX_E_LIST:
    err(c, e->span, "a list [...] is only meaningful as an operator attribute");
    return none();
  }
  return none();
}

static AxTy check_expr(Checker *c, AxExpr *e) {
  AxTy t = check_expr_inner(c, e);
  e->ty = t;
  return t;
}

/* ---- statements --------------------------------------------------------------------- */

static AxElem decl_elem(Checker *c, const AxTypeRef *t) {
  switch (t->name) {
  case AX_TY_VAR:
    if (!c->rule->tvar.name) {
      err(c, t->span, "'%s' is not declared; write 'for %s in any|num|int|real|bool' after the rule name",
          t->var, t->var);
      return AX_ELEM_NONE;
    }
    if (strcmp(t->var, c->rule->tvar.name) != 0) {
      err(c, t->span, "unknown element type '%s' (the rule's type variable is '%s')", t->var,
          c->rule->tvar.name);
      return AX_ELEM_NONE;
    }
    return AX_ELEM_VAR;
  case AX_TY_BOOL: return AX_ELEM_BOOL;
  case AX_TY_INT: return AX_ELEM_INT;
  case AX_TY_REAL: return AX_ELEM_REAL;
  default:
    err(c, t->span, "'%s' is an element type of programs; rules use bool, int, real or their type variable",
        ax_typename_text(t));
    return AX_ELEM_NONE;
  }
}

static int need_rclass(Checker *c, const AxIdent *id) {
  int rc = find_rclass(c, id->name);
  if (rc < 0) {
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < c->rcls.len && n < 64; i++) names[n++] = rcl(c, (int)i)->name;
    err(c, id->span, "'%s' is not a rank class (declare it with 'rclass %s')%s", id->name, id->name,
        suggest(c, id->name, names, n));
  }
  return rc;
}

static void check_tensor(Checker *c, AxStmt *st) {
  AxElem el = decl_elem(c, &st->type);
  if (st->kind == AX_S_SCALAR && st->has_shape) {
    err(c, st->span, "a scalar has no shape");
    return;
  }
  for (size_t k = 0; k < st->nnames; k++) {
    AxSym *s = declare(c, AX_SYM_TENSOR, &st->names[k]);
    if (!s) continue;
    s->elem = el;
    s->is_scalar = st->kind == AX_S_SCALAR;
    if (k > 0) {  /* the shape was checked with the first name */
      AxSym *first = sym(c, (int)c->syms.len - 1 - (int)k);
      s->ndims = first->ndims;
      s->axes = first->axes;
      memcpy(s->dim_axis, first->dim_axis, sizeof s->dim_axis);
      memcpy(s->dim_size, first->dim_size, sizeof s->dim_size);
      continue;
    }
    for (size_t i = 0; i < st->ndims; i++) {
      AxDim *dm = &st->dims[i];
      if (!dm->axis.name) {
        err(c, dm->size->span, "a tensor dimension is written 'axis: size'");
        continue;
      }
      int ax = attr_axis(c, &dm->axis, "tensor shape");
      if (ax < 0) continue;
      if (s->axes >> ax & 1) {
        err(c, dm->axis.span, "axis '%s' appears twice in the shape of '%s'", dm->axis.name, s->name);
        continue;
      }
      int rc = sym(c, c->s->axes[ax])->rclass;
      AxTy t = check_expr(c, dm->size);
      if (t.kind == AX_K_NONE) continue;
      if (!is_mapish(t)) {
        err(c, dm->size->span, "the size of axis '%s' must be a map over '%s', not %s", dm->axis.name,
            rcl(c, rc)->name, kind_text(t));
        continue;
      }
      if (t.rclass >= 0 && t.rclass != rc) {
        err(c, dm->size->span, "map over rank class '%s' used as the size of axis '%s' of rank class '%s'",
            rcl(c, t.rclass)->name, dm->axis.name, rcl(c, rc)->name);
        continue;
      }
      s->axes |= (uint64_t)1 << ax;
      s->dim_axis[s->ndims] = ax;
      s->dim_size[s->ndims++] = dm->size;
    }
  }
}

static void check_cond_list(Checker *c, AxStmt *st, AxVec *into) {
  for (size_t i = 0; i < st->nexprs; i++) {
    AxExpr *x = st->exprs[i];
    AxTy t = check_expr(c, x);
    if (t.kind == AX_K_NONE) continue;
    bool ok = is_condish(t) || (t.kind == AX_K_TENSOR && is_bool(c, t.elem));
    if (!ok) {
      err(c, x->span, "a %s must be a condition (on maps, or a boolean tensor that holds at every "
          "index), not %s", st->kind == AX_S_HINT ? "hint" : "precondition", kind_text(t));
      continue;
    }
    ax_vec_push(c->a, into, x);
  }
}

/* `rclass x, y`: each a new rank class with its default aggregated axis. */
static void check_rclass(Checker *c, AxStmt *st) {
  for (size_t i = 0; i < st->nnames; i++) {
    if (find_rclass(c, st->names[i].name) >= 0) {
      err(c, st->names[i].span, "rank class '%s' is already declared", st->names[i].name);
      continue;
    }
    AxRClass *r = ax_arena_alloc(c->a, sizeof *r);
    r->name = st->names[i].name;
    r->span = st->names[i].span;
    ax_vec_push(c->a, &c->rcls, r);
    add_axis(c, &st->names[i], (int)c->rcls.len - 1);   /* its default aggregated axis */
  }
}

/* `axes x1, x2 : x` */
static void check_axes_decl(Checker *c, AxStmt *st) {
  int rc = need_rclass(c, &st->over);
  if (rc < 0) return;
  for (size_t i = 0; i < st->nnames; i++) add_axis(c, &st->names[i], rc);
}

/* `map s, t over x [nonneg] [= e]`, `index i, j over x` */
static void check_map_decl(Checker *c, AxStmt *st) {
  int rc = need_rclass(c, &st->over);
  if (rc < 0) {   /* declare the names anyway, so their uses are not errors again */
    for (size_t i = 0; i < st->nnames; i++) {
      AxSym *s = declare(c, AX_SYM_MAP, &st->names[i]);
      if (s) s->bad = true;
    }
    return;
  }
  if (st->value) {
    AxTy t = check_expr(c, st->value);
    if (t.kind == AX_K_NONE) return;
    if (!is_mapish(t)) {
      err(c, st->value->span, "a map is defined by map arithmetic, not %s", kind_text(t));
      return;
    }
    if (t.rclass >= 0 && t.rclass != rc) {
      err(c, st->value->span, "the definition is a map over '%s', not over '%s'",
          rcl(c, t.rclass)->name, rcl(c, rc)->name);
      return;
    }
    if (st->nnames > 1) {
      err(c, st->span, "a defined map is declared alone ('map %s over %s = …')", st->names[0].name,
          st->over.name);
      return;
    }
  }
  for (size_t i = 0; i < st->nnames; i++) {
    AxSym *s = declare(c, st->kind == AX_S_MAP ? AX_SYM_MAP : AX_SYM_INDEX, &st->names[i]);
    if (!s) continue;
    s->rclass = rc;
    s->nonneg = st->nonneg;
    s->def = st->value;
  }
}

/* `let N = e` */
static void check_let(Checker *c, AxStmt *st) {
  AxTy t = check_expr(c, st->value);
  AxSym *s = declare(c, AX_SYM_LET, &st->names[0]);
  if (s) {
    s->def = st->value;
    s->bad = t.kind == AX_K_NONE;
  }
}

static void check_require(Checker *c, AxStmt *st) { check_cond_list(c, st, &c->reqs); }

static void check_hint(Checker *c, AxStmt *st) { check_cond_list(c, st, &c->hints); }

/* `lhs => rhs`: one per rule, two tensor expressions of the same axes and element type. */
static void check_rewrite(Checker *c, AxStmt *st) {
  if (c->s->lhs) {
    err(c, st->span, "a rule has one rewrite; this is a second 'lhs => rhs'");
    return;
  }
  AxTy l = as_tensor(check_expr(c, st->lhs)), r = as_tensor(check_expr(c, st->rhs));
  st->lhs->ty = l.kind == AX_K_TENSOR ? st->lhs->ty : l;
  if (l.kind == AX_K_NONE || r.kind == AX_K_NONE) return;
  if (l.kind != AX_K_TENSOR || r.kind != AX_K_TENSOR) {
    err(c, (l.kind != AX_K_TENSOR ? st->lhs : st->rhs)->span,
        "both sides of a rewrite must be tensor expressions, this is %s",
        kind_text(l.kind != AX_K_TENSOR ? l : r));
    return;
  }
  if (l.axes != r.axes) {
    err(c, st->span, "the two sides have different axes: %s => %s", axes_text(c, l.axes),
        axes_text(c, r.axes));
    return;
  }
  AxElem el = unify(c, l.elem, r.elem);
  if (el == AX_ELEM_NONE) {
    err(c, st->span, "the two sides have different element types: %s => %s", elem_text(c, l.elem),
        elem_text(c, r.elem));
    return;
  }
  c->s->lhs = st->lhs;
  c->s->rhs = st->rhs;
  c->s->elem = el;
}

/* `input`, `output`: program statements, not a rule's. */
static void check_program_decl(Checker *c, AxStmt *st) {
  err(c, st->span, "'%s' declares a program input or output; rules declare 'tensor'",
      st->kind == AX_S_INPUT ? "input" : "output");
}

/* One checker per statement kind (dsl/ast.h AxStmtKind); every kind has one. */
static void (*const stmt_checks[])(Checker *, AxStmt *) = {
    [AX_S_RCLASS] = check_rclass,   [AX_S_AXES] = check_axes_decl,
    [AX_S_MAP] = check_map_decl,    [AX_S_INDEX] = check_map_decl,
    [AX_S_TENSOR] = check_tensor,   [AX_S_SCALAR] = check_tensor,
    [AX_S_LET] = check_let,         [AX_S_REQUIRE] = check_require,
    [AX_S_HINT] = check_hint,       [AX_S_REWRITE] = check_rewrite,
    [AX_S_INPUT] = check_program_decl, [AX_S_OUTPUT] = check_program_decl,
};

_Static_assert(sizeof stmt_checks / sizeof *stmt_checks == AX_S_OUTPUT + 1, "a checker per kind");

static void check_stmt(Checker *c, AxStmt *st) {
  AX_ASSERT((size_t)st->kind < sizeof stmt_checks / sizeof *stmt_checks && stmt_checks[st->kind]);
  stmt_checks[st->kind](c, st);
}

/* Rank classes fixed at rank 1 are those of concat and iota axes in what the rule uses —
 * its two sides, requires and hints, through the lets they name. A let nobody uses
 * constrains nothing: marking its concat axis would silently narrow the proof. */
typedef struct Used {
  Checker *c;
  uint8_t *visited;   /* per symbol: a let already walked */
  bool require;       /* walking a precondition: the reason says so */
} Used;

static void mark_used(const AxExpr *e, void *ctx) {
  Used *u = ctx;
  Checker *c = u->c;
  if (!e) return;
  if (e->ty.op >= 0 && checks[e->ty.op].rank1.why && e->ty.attrs) {
    const AxExpr *v = e->ty.attrs[checks[e->ty.op].rank1.attr];
    const char *why = checks[e->ty.op].rank1.why;
    if (u->require) why = ax_arena_printf(c->a, "%s in a precondition", why);
    if (v) mark_singleton(c, (uint64_t)1 << sym(c, v->ty.sym)->axis, v->span, why);
  }
  if (e->kind == AX_E_NAME) {
    if (e->ty.sym >= 0 && sym(c, e->ty.sym)->kind == AX_SYM_LET && !u->visited[e->ty.sym]) {
      u->visited[e->ty.sym] = 1;
      mark_used(sym(c, e->ty.sym)->def, u);
    }
    return;
  }
  ax_expr_children(e, mark_used, u);
}

static void fixed_classes(Checker *c) {
  for (size_t i = 0; i < c->rcls.len; i++) rcl(c, (int)i)->singleton = false;
  Used u = {.c = c, .visited = ax_arena_alloc(c->a, c->syms.len + 1)};
  memset(u.visited, 0, c->syms.len + 1);
  mark_used(c->s->lhs, &u);
  mark_used(c->s->rhs, &u);
  u.require = true;   /* a precondition that fixes a rank says so ("rank x fixed to 1 by ...") */
  for (size_t i = 0; i < c->reqs.len; i++) mark_used(c->reqs.items[i], &u);
  u.require = false;
  for (size_t i = 0; i < c->hints.len; i++) mark_used(c->hints.items[i], &u);
}

static void check_rule(AxArena *a, AxDiag *d, AxBlock *b) {
  Checker c = {.a = a, .d = d, .rule = b};
  c.s = ax_arena_alloc(a, sizeof *c.s);
  for (size_t i = 0; i < b->nstmts; i++) check_stmt(&c, b->stmts[i]);
  if (!c.s->lhs && !c.failed)
    err(&c, b->name.span, "the rule has no rewrite; write 'lhs => rhs' as its last statement");
  if (b->tvar.name && !c.failed && c.s->lhs) {
    /* T is declared but no tensor uses it: the rule would be verified per type for nothing */
    bool uses = false;
    for (size_t i = 0; i < c.syms.len; i++)
      uses |= sym(&c, (int)i)->kind == AX_SYM_TENSOR && sym(&c, (int)i)->elem == AX_ELEM_VAR;
    if (!uses)
      ax_diag_warning(d, b->tvar.span, "rule '%s': no tensor has element type '%s'", b->name.name,
                      b->tvar.name);
  }
  if (!c.failed && c.s->lhs) fixed_classes(&c);
  AxRuleSyms *s = c.s;
  s->syms = ax_arena_alloc(a, (c.syms.len + 1) * sizeof(AxSym));
  for (size_t i = 0; i < c.syms.len; i++) s->syms[i] = *sym(&c, (int)i);
  s->nsyms = c.syms.len;
  s->rclasses = ax_arena_alloc(a, (c.rcls.len + 1) * sizeof(AxRClass));
  for (size_t i = 0; i < c.rcls.len; i++) s->rclasses[i] = *rcl(&c, (int)i);
  s->nrclasses = c.rcls.len;
  s->requires = (AxExpr **)c.reqs.items;
  s->nrequires = c.reqs.len;
  s->hints = (AxExpr **)c.hints.items;
  s->nhints = c.hints.len;
  b->syms = s;
}

bool ax_check_file(AxArena *a, AxDiag *d, AxFile *f) {
  int before = d->errors;
  for (size_t i = 0; i < f->nblocks; i++) {
    AxBlock *b = f->blocks[i];
    for (size_t j = 0; j < i; j++)
      if (f->blocks[j]->kind == b->kind && strcmp(f->blocks[j]->name.name, b->name.name) == 0) {
        int line, col;
        ax_source_linecol(f->src, f->blocks[j]->name.span.start, &line, &col);
        ax_diag_error(d, b->name.span, "%s '%s' is already defined at line %d",
                      b->kind == AX_B_RULE ? "rule" : "program", b->name.name, line);
        break;
      }
    if (b->kind == AX_B_RULE) check_rule(a, d, b);
  }
  return d->errors == before;
}

/* ---- same expression ----------------------------------------------------------------- */

static const AxExpr *through_lets(const AxRuleSyms *s, const AxExpr *e) {
  for (int guard = 0; e && e->kind == AX_E_NAME && e->ty.sym >= 0 && guard < 1 << 16; guard++) {
    const AxSym *y = &s->syms[e->ty.sym];
    if (y->kind != AX_SYM_LET || !y->def) break;
    e = y->def;
  }
  return e;
}

bool ax_check_same_expr(const AxRuleSyms *s, const AxExpr *a, const AxExpr *b) {
  a = through_lets(s, a);
  b = through_lets(s, b);
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->ty.op >= 0 || b->ty.op >= 0) {   /* operator applications, infix or called */
    if (a->ty.op != b->ty.op || a->ty.nopnds != b->ty.nopnds) return false;
    for (int i = 0; i < a->ty.nopnds; i++)
      if (!ax_check_same_expr(s, a->ty.opnds[i], b->ty.opnds[i])) return false;
    for (int i = 0; i < ax_op_nattrs((AxOp)a->ty.op); i++) {
      const AxExpr *x = a->ty.attrs ? a->ty.attrs[i] : NULL, *y = b->ty.attrs ? b->ty.attrs[i] : NULL;
      if ((x == NULL) != (y == NULL) || (x && !ax_check_same_expr(s, x, y))) return false;
    }
    return true;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case AX_E_INT:
  case AX_E_REAL:
    return strcmp(a->u.text, b->u.text) == 0;
  case AX_E_NAME:
    return a->ty.sym >= 0 ? a->ty.sym == b->ty.sym : strcmp(a->u.text, b->u.text) == 0;
  case AX_E_BOOL:
    return a->u.boolean == b->u.boolean;
  case AX_E_INF:
    return true;
  case AX_E_UNARY:
    return a->u.unary.op == b->u.unary.op && ax_check_same_expr(s, a->u.unary.arg, b->u.unary.arg);
  case AX_E_BINARY:
    return a->u.binary.op == b->u.binary.op && ax_check_same_expr(s, a->u.binary.lhs, b->u.binary.lhs) &&
           ax_check_same_expr(s, a->u.binary.rhs, b->u.binary.rhs);
  case AX_E_IF:
    return ax_check_same_expr(s, a->u.ite.cond, b->u.ite.cond) &&
           ax_check_same_expr(s, a->u.ite.then_e, b->u.ite.then_e) &&
           ax_check_same_expr(s, a->u.ite.else_e, b->u.ite.else_e);
  case AX_E_QUANT:
    return a->u.quant.exists == b->u.quant.exists &&
           strcmp(a->u.quant.rclass.name, b->u.quant.rclass.name) == 0 &&
           ax_check_same_expr(s, a->u.quant.body, b->u.quant.body);
  case AX_E_AXMAP:
    if (a->u.axmap.n != b->u.axmap.n) return false;
    for (size_t i = 0; i < a->u.axmap.n; i++) {
      bool found = false;
      for (size_t j = 0; j < b->u.axmap.n && !found; j++)
        found = strcmp(a->u.axmap.entries[i].axis.name, b->u.axmap.entries[j].axis.name) == 0 &&
                ax_check_same_expr(s, a->u.axmap.entries[i].value, b->u.axmap.entries[j].value);
      if (!found) return false;
    }
    return true;
  case AX_E_LIST:
    if (a->u.list.n != b->u.list.n) return false;
    for (size_t i = 0; i < a->u.list.n; i++)
      if (!ax_check_same_expr(s, a->u.list.items[i], b->u.list.items[i])) return false;
    return true;
  case AX_E_CALL:   /* min, max, abs on maps */
    if (strcmp(a->u.call.fn.name, b->u.call.fn.name) != 0 || a->u.call.nargs != b->u.call.nargs) return false;
    for (size_t i = 0; i < a->u.call.nargs; i++)
      if (!ax_check_same_expr(s, a->u.call.args[i].value, b->u.call.args[i].value)) return false;
    return true;
  }
  return false;
}
