/* program.c — checker and lowering of `program` blocks. */
#include "superopt/ir/program.h"

#include <inttypes.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/tensorop.h"

typedef struct Sym {
  const char *name;
  int t;             /* tensor index */
} Sym;

typedef struct L {
  AxArena *a;
  AxDiag *d;
  const AxBlock *b;
  AxMugraph *g;
  int tcap, scap;
  Sym *syms;
  int nsyms, symcap;
  int *slots;        /* open addressing over syms: index + 1, 0 empty; grown at half load */
  int nslots;        /* a power of two, or 0 before the first bind */
  int ntmp;
  int errors;
} L;

#define ERR(l, sp, ...)                                                                    \
  do {                                                                                     \
    ax_diag_error((l)->d, (sp), "program '%s': " __VA_ARGS__);                             \
    (l)->errors++;                                                                         \
  } while (0)

/* Names are looked up by hash, not by a scan: an imported HLO module binds 100,000s of
 * lets, and a scan per name made lowering quadratic in the module's size. */
static size_t name_hash(const char *s) {
  size_t h = 1469598103934665603u;   /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* The slot of name: the one holding it, or the empty one where it would go. */
static size_t slot_of(const L *l, const char *name) {
  size_t mask = (size_t)l->nslots - 1, i = name_hash(name) & mask;
  while (l->slots[i] && strcmp(l->syms[l->slots[i] - 1].name, name) != 0) i = (i + 1) & mask;
  return i;
}

static int lookup(L *l, const char *name) {
  if (!l->nslots) return -1;
  int k = l->slots[slot_of(l, name)];
  return k ? l->syms[k - 1].t : -1;
}

static bool bind(L *l, const AxIdent *id, int t) {
  if (lookup(l, id->name) >= 0) {
    ERR(l, id->span, "'%s' is already defined", l->b->name.name, id->name);
    return false;
  }
  l->syms = ax_mug_grow(l->a, l->syms, l->nsyms, &l->symcap, sizeof *l->syms);
  l->syms[l->nsyms++] = (Sym){id->name, t};
  if (2 * l->nsyms > l->nslots) {   /* rehash every name into a table twice the size */
    l->nslots = l->nslots ? 2 * l->nslots : 64;
    l->slots = ax_arena_alloc(l->a, sizeof *l->slots * (size_t)l->nslots);
    for (int k = 0; k < l->nsyms; k++) l->slots[slot_of(l, l->syms[k].name)] = k + 1;
  } else {
    l->slots[slot_of(l, id->name)] = l->nsyms;
  }
  return true;
}

static int new_tensor(L *l) { return ax_mug_new_tensor(l->a, l->g, &l->tcap); }

static AxKStmt *new_stmt(L *l) { return ax_mug_new_stmt(l->a, l->g, &l->scap); }

static int constant(L *l, const AxExpr *e, bool neg) {
  AxRat v;
  if (!ax_rat_parse(e->u.text, &v)) {
    ERR(l, e->span, "constant %s cannot be represented exactly", l->b->name.name, e->u.text);
    return -1;
  }
  if (neg) v.num = -v.num;
  int t = new_tensor(l);
  AxKTensor *kt = &l->g->tensors[t];
  kt->anon = true;
  kt->text = kt->name = neg ? ax_arena_printf(l->a, "-%s", e->u.text) : e->u.text;
  kt->value = v;
  kt->span = e->span;
  kt->dtype = AX_DT_F32;
  return t;
}

/* An integer attribute value: INT or -INT. */
static bool int_value(L *l, const AxExpr *e, int64_t *out, const char *op, const char *what) {
  bool neg = false;
  if (e->kind == AX_E_UNARY && e->u.unary.op == AX_UN_NEG) neg = true, e = e->u.unary.arg;
  if (e->kind != AX_E_INT || strlen(e->u.text) > 15) {
    ERR(l, e->span, "%s: %s must be an integer", l->b->name.name, op, what);
    return false;
  }
  *out = strtoll(e->u.text, NULL, 10) * (neg ? -1 : 1);
  return true;
}

static int expr(L *l, const AxExpr *e);

/* Which of the three lists of a slice or pad (AX_TA_SLICE, AX_TA_PAD in tattrs) attribute
 * name an names: 0 lo, 1 hi, 2 step; -1 if none. */
static int bounds_attr(unsigned tattrs, const char *an) {
  unsigned flag = tattrs & (AX_TA_SLICE | AX_TA_PAD);
  if (!flag) return -1;
  const char *const *names = ax_tattrs_bound_names(flag);
  for (int k = 0; k < 3; k++)
    if (strcmp(an, names[k]) == 0) return k;
  return -1;
}

/* start = [..] (limit, stride; low, high, interior): one integer per axis, into at; *seen
 * gets the list's bit. All lists must have one length (at->nbound). */
static bool bound_list(L *l, AxTAttrs *at, const AxArg *arg, unsigned tattrs, const char *fn,
                       int *seen) {
  int which = bounds_attr(tattrs, arg->name.name);
  const AxExpr *lst = arg->value;
  if (lst->kind != AX_E_LIST || lst->u.list.n == 0 || lst->u.list.n > AX_MAXRANK) {
    ERR(l, lst->span, "%s: '%s' must be a list of 1 to %d integers, one per axis", l->b->name.name, fn,
        arg->name.name, AX_MAXRANK);
    return false;
  }
  int n = (int)lst->u.list.n;
  int32_t *dst = which == 0 ? at->lo : which == 1 ? at->hi : at->step;
  bool ok = true;
  for (int k = 0; k < n; k++) {
    int64_t v = 0;
    if (!int_value(l, lst->u.list.items[k], &v, fn, arg->name.name)) ok = false;
    else if (v < INT32_MIN || v > INT32_MAX) {
      ERR(l, lst->u.list.items[k]->span, "%s: '%s' entries must fit 32 bits", l->b->name.name, fn,
          arg->name.name);
      ok = false;
    }
    dst[k] = (int32_t)v;
  }
  if (at->nbound && at->nbound != n) {
    ERR(l, lst->span, "%s: '%s' lists %d axes, an earlier list %d", l->b->name.name, fn,
        arg->name.name, n, at->nbound);
    ok = false;
  }
  at->nbound = n;
  *seen |= 1 << which;
  return ok;
}

/* The first two lists are required; the third defaults to stride 1 or interior 0. */
static bool bounds_given(L *l, AxTAttrs *at, unsigned tattrs, int seen, AxSpan sp, const char *fn) {
  const char *const *names = ax_tattrs_bound_names(tattrs & (AX_TA_SLICE | AX_TA_PAD));
  if ((seen & 3) != 3) {
    ERR(l, sp, "%s needs '%s' and '%s', e.g. %s(X%s, %s = [0, 0], %s = [2, 2])", l->b->name.name, fn,
        names[0], names[1], fn, tattrs & AX_TA_PAD ? ", 0" : "", names[0], names[1]);
    return false;
  }
  if (!(seen & 4))
    for (int k = 0; k < at->nbound; k++) at->step[k] = tattrs & AX_TA_SLICE ? 1 : 0;
  return true;
}

/* Applies op to operand tensors: shape and element-type checks, reported at `at`. */
static int emit(L *l, AxOp op, AxTAttrs *attrs, const int *in, const AxSpan *in_spans, int nin,
                AxSpan at) {
  const AxTShape *shapes[AX_MAXIN];
  char msg[256];
  AxDtype dt = AX_DT_F32;
  int typed = -1;
  for (int i = 0; i < nin; i++) {
    const AxKTensor *t = &l->g->tensors[in[i]];
    shapes[i] = &t->shape;
    if (t->anon) continue;
    if (typed >= 0 && t->dtype != dt) {
      ERR(l, in_spans[i], "%s: operands have different element types (%s and %s)", l->b->name.name,
          ax_op_pname(op), ax_dtype_name(dt), ax_dtype_name(t->dtype));
      return -1;
    }
    dt = t->dtype;
    typed = i;
  }
  AxTShape out;
  if (!ax_tensorop_infer(op, attrs, shapes, nin, &out, msg, sizeof msg)) {
    ERR(l, at, "%s: %s", l->b->name.name, ax_op_pname(op), msg);
    return -1;
  }
  int t = new_tensor(l);
  AxKTensor *kt = &l->g->tensors[t];
  kt->name = ax_arena_printf(l->a, "_t%d", ++l->ntmp);
  kt->shape = out;
  kt->dtype = (AxDtype)ax_ewop_result_dtype(op, (int)dt);
  kt->span = at;
  kt->stmt = l->g->nstmts;
  AxKStmt *s = new_stmt(l);
  s->kind = AX_KS_OP;
  s->span = at;
  s->t = t;
  s->op = op;
  s->at = *attrs;
  s->nin = nin;
  for (int i = 0; i < nin; i++) s->in[i] = in[i], s->in_span[i] = in_spans[i];
  return t;
}

static int call(L *l, const AxExpr *e) {
  const char *fn = e->u.call.fn.name;
  AxOp op;
  if (!ax_op_lookup_prog(fn, &op)) {
    ERR(l, e->u.call.fn.span, "unknown operator '%s'", l->b->name.name, fn);
    return -1;
  }
  const AxOpSpec *sp = ax_op_spec(op);
  AxTAttrs at = {0};
  int in[AX_MAXIN], nin = 0;
  AxSpan spans[AX_MAXIN];
  bool shape_seen = false, ok = true;
  int bseen = 0;   /* the slice or pad lists given (bound_list) */
  for (size_t i = 0; i < e->u.call.nargs; i++) {
    const AxArg *arg = &e->u.call.args[i];
    if (arg->name.name && bounds_attr(sp->tattrs, arg->name.name) >= 0) {
      if (!bound_list(l, &at, arg, sp->tattrs, fn, &bseen)) ok = false;
      continue;
    }
    if (arg->name.name) {
      const char *an = arg->name.name;
      unsigned flag = strcmp(an, "axis") == 0 ? AX_TA_AXIS : strcmp(an, "to") == 0 ? AX_TA_TO
                      : strcmp(an, "times") == 0 ? AX_TA_TIMES : 0;
      int64_t v;
      if (!flag || !(sp->tattrs & flag)) {
        ERR(l, arg->name.span, "%s takes no attribute '%s'", l->b->name.name, fn, an);
        ok = false;
        continue;
      }
      if (!int_value(l, arg->value, &v, fn, an)) {
        ok = false;
        continue;
      }
      if (flag == AX_TA_AXIS) at.axis = (int)v, at.axis_set = true;
      else if (flag == AX_TA_TO) {
        if (v < 1) {
          ERR(l, arg->value->span, "%s: 'to' must be at least 1", l->b->name.name, fn);
          ok = false;
        }
        at.to = v;
      } else at.times = v;
      continue;
    }
    if (arg->value->kind == AX_E_LIST) {
      if (!(sp->tattrs & AX_TA_SHAPE) || shape_seen) {
        ERR(l, arg->value->span, "%s takes no shape list here", l->b->name.name, fn);
        ok = false;
        continue;
      }
      shape_seen = true;
      const AxExpr *lst = arg->value;
      if (lst->u.list.n == 0 || lst->u.list.n > AX_MAXRANK) {
        ERR(l, lst->span, "%s: a shape has 1 to %d dimensions", l->b->name.name, fn, AX_MAXRANK);
        ok = false;
        continue;
      }
      at.shape.rank = (int)lst->u.list.n;
      for (size_t k = 0; k < lst->u.list.n; k++) {
        int64_t v = 0;
        if (!int_value(l, lst->u.list.items[k], &v, fn, "a dimension") ) ok = false;
        else if ((sp->tattrs & AX_TA_PERM) && v < 0) {
          ERR(l, lst->u.list.items[k]->span, "%s: axes must be at least 0", l->b->name.name, fn);
          ok = false;
        } else if (!(sp->tattrs & AX_TA_PERM) && v < 1) {
          ERR(l, lst->u.list.items[k]->span, "%s: dimensions must be at least 1", l->b->name.name, fn);
          ok = false;
        }
        at.shape.dim[k] = v;
      }
      continue;
    }
    if (nin == AX_MAXIN) {
      ERR(l, arg->value->span, "%s: too many operands", l->b->name.name, fn);
      return -1;
    }
    spans[nin] = arg->value->span;
    int t = expr(l, arg->value);
    if (t < 0) ok = false;
    in[nin++] = t;
  }
  if (!ok) return -1;
  if ((sp->tattrs & (AX_TA_SLICE | AX_TA_PAD)) && !bounds_given(l, &at, sp->tattrs, bseen, e->span, fn)) return -1;
  if ((sp->tattrs & AX_TA_PERM) && !shape_seen && op == AX_OP_REVERSE) {
    ERR(l, e->span, "%s needs the axes it reverses, e.g. %s(X, [0])", l->b->name.name, fn, fn);
    return -1;
  }
  if ((sp->tattrs & AX_TA_PERM) && !shape_seen) {
    ERR(l, e->span, "%s needs the permutation of its axes, e.g. %s(X, [1, 0])", l->b->name.name, fn, fn);
    return -1;
  }
  if ((sp->tattrs & AX_TA_SHAPE) && !shape_seen) {
    ERR(l, e->span, "%s needs a shape list, e.g. %s(X, [16, 64])", l->b->name.name, fn, fn);
    return -1;
  }
  if ((sp->tattrs & AX_TA_TIMES) && at.times == 0) {
    ERR(l, e->span, "%s needs 'times = n'", l->b->name.name, fn);
    return -1;
  }
  if (nin < sp->min_in || nin > sp->max_in) {
    ERR(l, e->span, "%s takes %d%s tensor operand%s, got %d", l->b->name.name, fn, sp->min_in,
        sp->max_in != sp->min_in ? " or more" : "", sp->min_in == 1 ? "" : "s", nin);
    return -1;
  }
  return emit(l, op, &at, in, spans, nin, e->span);
}

static int expr(L *l, const AxExpr *e) {
  switch (e->kind) {
  case AX_E_NAME: {
    int t = lookup(l, e->u.text);
    if (t < 0) ERR(l, e->span, "unknown name '%s'", l->b->name.name, e->u.text);
    return t;
  }
  case AX_E_INT:
  case AX_E_REAL: return constant(l, e, false);
  case AX_E_CALL: return call(l, e);
  case AX_E_UNARY: {
    if (e->u.unary.op != AX_UN_NEG) break;
    const AxExpr *x = e->u.unary.arg;
    if (x->kind == AX_E_INT || x->kind == AX_E_REAL) return constant(l, x, true);
    int t = expr(l, x);
    if (t < 0) return -1;
    AxTAttrs at = {0};
    return emit(l, AX_OP_NEG, &at, &t, &x->span, 1, e->span);
  }
  case AX_E_BINARY: {
    AxOp op;
    switch (e->u.binary.op) {
    case AX_BIN_ADD: op = AX_OP_ADD; break;
    case AX_BIN_SUB: op = AX_OP_SUB; break;
    case AX_BIN_MUL: op = AX_OP_MUL; break;
    case AX_BIN_DIV: op = AX_OP_DIV; break;
    default:
      ERR(l, e->span, "operator '%s' is not available in programs (only + - * /)", l->b->name.name,
          ax_binop_text(e->u.binary.op));
      return -1;
    }
    int in[2] = {expr(l, e->u.binary.lhs), expr(l, e->u.binary.rhs)};
    if (in[0] < 0 || in[1] < 0) return -1;
    AxSpan sp[2] = {e->u.binary.lhs->span, e->u.binary.rhs->span};
    AxTAttrs at = {0};
    return emit(l, op, &at, in, sp, 2, e->span);
  }
  default: break;
  }
  ERR(l, e->span, "this kind of expression is not allowed in a program", l->b->name.name);
  return -1;
}

static const char *stmt_word(AxStmtKind k) {
  switch (k) {
  case AX_S_RCLASS: return "rclass";
  case AX_S_AXES: return "axes";
  case AX_S_MAP: return "map";
  case AX_S_INDEX: return "index";
  case AX_S_TENSOR: return "tensor";
  case AX_S_SCALAR: return "scalar";
  case AX_S_REQUIRE: return "require";
  case AX_S_HINT: return "hint";
  case AX_S_REWRITE: return "a rewrite";
  default: return "this statement";
  }
}

/* Names a computed tensor after the let/output that binds it (if still a temporary). */
static void name_tensor(L *l, int t, const AxIdent *id) {
  AxKTensor *kt = &l->g->tensors[t];
  if (kt->anon || kt->name[0] != '_') return;
  kt->name = id->name;
}

static void input(L *l, const AxStmt *st) {
  AxDtype dt;
  switch (st->type.name) {
  case AX_TY_F16: dt = AX_DT_F16; break;
  case AX_TY_BF16: dt = AX_DT_BF16; break;
  case AX_TY_F32: dt = AX_DT_F32; break;
  default:
    ERR(l, st->type.span, "inputs have element type f16, bf16 or f32", l->b->name.name);
    return;
  }
  if (!st->has_shape || st->ndims == 0) {
    ERR(l, st->span, "input '%s' needs a concrete shape, e.g. f16[16, 4096]", l->b->name.name,
        st->names[0].name);
    return;
  }
  if (st->ndims > AX_MAXRANK) {
    ERR(l, st->span, "inputs have at most %d dimensions", l->b->name.name, AX_MAXRANK);
    return;
  }
  AxTShape s = {(int)st->ndims, {0}};
  for (size_t i = 0; i < st->ndims; i++) {
    const AxDim *dm = &st->dims[i];
    if (dm->axis.name) {
      ERR(l, dm->axis.span, "program inputs have sizes, not named axes", l->b->name.name);
      return;
    }
    if (dm->size->kind != AX_E_INT || strlen(dm->size->u.text) > 12 ||
        strtoll(dm->size->u.text, NULL, 10) < 1) {
      ERR(l, dm->size->span, "a dimension must be an integer of at least 1", l->b->name.name);
      return;
    }
    s.dim[i] = strtoll(dm->size->u.text, NULL, 10);
  }
  {
    int64_t n = 1;
    for (int i = 0; i < s.rank; i++) {
      if (s.dim[i] > AX_MUG_MAX_ELEMS / n) {
        ERR(l, st->span, "input '%s' has more than %lld elements", l->b->name.name, st->names[0].name,
            (long long)AX_MUG_MAX_ELEMS);
        return;
      }
      n *= s.dim[i];
    }
  }
  for (size_t i = 0; i < st->nnames; i++) {
    int t = new_tensor(l);
    AxKTensor *kt = &l->g->tensors[t];
    kt->name = st->names[i].name;
    kt->span = st->names[i].span;
    kt->shape = s;
    kt->dtype = dt;
    kt->stmt = l->g->nstmts;
    if (!bind(l, &st->names[i], t)) continue;
    AxKStmt *ks = new_stmt(l);
    ks->kind = AX_KS_INPUT;
    ks->span = st->span;
    ks->t = t;
  }
}

AxMugraph *ax_prog_lower(AxArena *a, AxDiag *d, const AxBlock *b) {
  AX_ASSERT(b->kind == AX_B_PROGRAM);
  L l0 = {0}, *l = &l0;
  l->a = a;
  l->d = d;
  l->b = b;
  l->g = ax_arena_alloc(a, sizeof *l->g);
  l->g->name = b->name.name;
  l->g->span = b->name.span;
  int ocap = 0;
  for (size_t i = 0; i < b->nstmts; i++) {
    const AxStmt *st = b->stmts[i];
    switch (st->kind) {
    case AX_S_INPUT: input(l, st); break;
    case AX_S_LET:
    case AX_S_OUTPUT: {
      int t;
      if (st->value) {
        t = expr(l, st->value);
        if (t < 0) break;
        if (l->g->tensors[t].anon) {
          ERR(l, st->value->span, "'%s' is a constant; bind tensors only", b->name.name, st->names[0].name);
          break;
        }
        name_tensor(l, t, &st->names[0]);
        if (!bind(l, &st->names[0], t)) break;
      } else {
        t = lookup(l, st->names[0].name);
        if (t < 0) {
          ERR(l, st->names[0].span, "output '%s' is not defined", b->name.name, st->names[0].name);
          break;
        }
        if (l->g->stmts[l->g->tensors[t].stmt].kind == AX_KS_INPUT) {
          ERR(l, st->names[0].span, "output '%s' is an input; outputs must be computed", b->name.name,
              st->names[0].name);
          break;
        }
        if (strcmp(l->g->tensors[t].name, st->names[0].name) != 0) {
          /* an alias (let Y = X): the output keeps the name the program gives it */
          l->g->tensors[t].name = st->names[0].name;
        }
      }
      if (st->kind == AX_S_OUTPUT) {
        for (int k = 0; k < l->g->noutputs; k++)
          if (l->g->outputs[k] == t) {
            ERR(l, st->names[0].span, "'%s' is already an output", b->name.name, st->names[0].name);
            t = -1;
            break;
          }
        if (t < 0) break;
        l->g->outputs = ax_mug_grow(a, l->g->outputs, l->g->noutputs, &ocap, sizeof *l->g->outputs);
        l->g->outputs[l->g->noutputs++] = t;
      }
      break;
    }
    default:
      ERR(l, st->span, "%s is not allowed in a program", b->name.name, stmt_word(st->kind));
      break;
    }
  }
  if (!l->errors && l->g->noutputs == 0) ERR(l, b->name.span, "no output", b->name.name);
  if (l->errors) return NULL;
  /* the output statement, so that the lowered graph prints as a μGraph */
  AxKStmt *ks = new_stmt(l);
  ks->kind = AX_KS_OUTPUT;
  ks->outs = l->g->outputs;
  ks->nouts = l->g->noutputs;
  ks->out_spans = ax_arena_alloc(a, (size_t)l->g->noutputs * sizeof *ks->out_spans);
  return l->g;
}

const AxBlock *ax_prog_find(const AxFile *f, const char *name, AxDiag *d) {
  const AxBlock *found = NULL;
  int n = 0;
  for (size_t i = 0; i < f->nblocks; i++) {
    const AxBlock *b = f->blocks[i];
    if (b->kind != AX_B_PROGRAM) continue;
    n++;
    if (name ? strcmp(b->name.name, name) == 0 : !found) found = b;
  }
  AxSpan at = {f->src, 0, 0};
  if (name && !found) {
    ax_diag_error(d, at, "no program named '%s' in this file", name);
    return NULL;
  }
  if (!found) {
    ax_diag_error(d, at, "this file holds no program block");
    return NULL;
  }
  if (!name && n > 1) {
    ax_diag_error(d, at, "this file holds %d programs; choose one with --program NAME", n);
    return NULL;
  }
  return found;
}
