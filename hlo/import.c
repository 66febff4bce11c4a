/* import.c — HLO to a tensor program: one handler per opcode (the table `handlers`), the
 * values they produce, the cut rule, and the program text. */
#include <ctype.h>
#include <string.h>

#include "base/decimal.h"
#include "dsl/lexstate.h"
#include "hlo/import.h"

#define MAXRANK 8   /* superopt/tensor.h's AX_MAXRANK: the program's largest rank */
#define MAXIN 8     /* dsl/ops.h's AX_MAXIN: the most operands of one operator (concat) */
#define MAXAX (2 * MAXRANK)   /* axes a layout may track: the HLO dims plus kept size-1 axes */

/* What an instruction is in the program being written. */
typedef enum {
  V_TENSOR,   /* a program name: an input or a let */
  V_LIT,      /* a scalar literal, broadcast to `shape` where it is used */
  V_TUPLE,    /* elements */
  V_CUT       /* not expressible; becomes an input when someone needs it, if it can */
} VKind;

/* A V_TENSOR's layout: how the program tensor `text` holds the HLO value of shape `shape`.
 * The program tensor has the HLO dims in order at axes pos[0..rank-1] of q axes; every other
 * axis has size 1 (an axis a reduction kept, docs/hlo.md). An HLO dim whose axis has size 1
 * while the HLO size is larger is a pending broadcast: element-wise operators broadcast it
 * numpy-style, anything else gets the explicit form (`full`). The first q - real axes are
 * virtual: numpy's right alignment supplies them, the tensor's rank is `real`. */
typedef struct Layout {
  int q, real;
  int64_t size[MAXAX];
  int pos[MAXAX];
} Layout;

typedef struct Val {
  VKind kind;
  const char *text;          /* V_TENSOR: the name; V_LIT: the literal */
  bool computed;             /* V_TENSOR: a let (an output may name it) */
  const AxHloInstr *def;     /* where it comes from (names a cut's input) */
  const AxHloShape *shape;
  Layout lay;                /* V_TENSOR */
  struct Val *full;          /* V_TENSOR: the explicit form once made (`full`) */
  struct Val **elems;
  int nelems;
  const char *reason;        /* V_CUT */
  bool pending;              /* V_CUT: the cut is listed at the first use, not before (an
                                infinite constant that only a max reduction's init reads) */
} Val;

typedef struct Imp {
  AxArena *a;
  AxDiag *d;
  const AxHloModule *m;
  AxVec inputs, lets, cuts;   /* char* lines; AxHloCut* */
  AxVec notes;                /* AxHloCut*: what the report says beside the cuts */
  AxVec let_defs;             /* the AxHloInstr* each let comes from, in step with lets */
  AxVec input_defs;           /* the AxHloInstr* each input comes from, in step with inputs */
  AxHloTable *names;          /* the program's names so far */
  AxVec scalar_inputs;        /* char*: inputs held as [1] for a scalar parameter */
  AxVec out_scalar;           /* in step with the outputs: non-NULL for a scalar one */
  const char *dropped;        /* why the first output the program cannot compute is cut */
  AxHloTable *form_at;        /* let name -> index in forms */
  AxVec forms;                /* Form*: what each element-wise or sum let computes */
  bool fused;                 /* an idiom replaced some lets: drop the dead ones */
  bool failed;
} Imp;

typedef Val *Handler(Imp *im, const AxHloInstr *i, Val **ops, const char **why);

/* ---- names, types, literals ---- */

/* An identifier of the program language for HLO name s, unique in this program:
 * `Arg_0.1` -> `Arg_0_1`; a keyword or a taken name gets a suffix. */
static const char *fresh(Imp *im, const char *s) {
  size_t n = strlen(s);
  char *t = ax_arena_alloc(im->a, n + 2);
  size_t j = 0;
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') t[j++] = '_';
  for (size_t k = 0; k < n; k++) t[j++] = isalnum((unsigned char)s[k]) ? s[k] : '_';
  t[j] = 0;
  const char *name = t;
  for (int k = 2; ax_lex_keyword(name) || ax_hlo_table_get(im->names, name) >= 0; k++)
    name = ax_arena_printf(im->a, "%s_%d", t, k);
  ax_hlo_table_add(im->names, name, 0);
  return name;
}

static bool float_type(AxHloType t) { return t == AX_HLO_F16 || t == AX_HLO_BF16 || t == AX_HLO_F32; }

/* pred and the integer types: an index-valued tensor (iota, a compare's mask) is held by a
 * program tensor in f32, its values exact (0/1, or indices below 2^24). */
static bool index_type(AxHloType t) { return t >= AX_HLO_PRED && t <= AX_HLO_U64; }

/* The program type holding a tensor of HLO type t (float types as they are). */
static AxHloType held_type(AxHloType t) { return index_type(t) ? AX_HLO_F32 : t; }

/* expr, a program tensor of type from, as one of type to: 0/1 and small integers round
 * exactly, so this is the conversion HLO does. */
static const char *retyped(Imp *im, const char *expr, AxHloType from, AxHloType to) {
  if (from == to) return expr;
  const char *fn = to == AX_HLO_F16 ? "to_f16" : to == AX_HLO_BF16 ? "to_bf16" : "to_f32";
  return ax_arena_printf(im->a, "%s(%s)", fn, expr);
}

/* s's dims as a program shape: a scalar is held as [1] (programs have no rank 0). */
static const char *dims_text(Imp *im, const AxHloShape *s) {
  if (s->rank == 0) return "[1]";
  const char *t = "[";
  for (int k = 0; k < s->rank; k++)
    t = ax_arena_printf(im->a, "%s%s%lld", t, k ? ", " : "", (long long)s->dims[k]);
  return ax_arena_printf(im->a, "%s]", t);
}

/* The most elements a program tensor holds (superopt/ir/mugraph.h AX_MUG_MAX_ELEMS, which
 * the program checker enforces: a larger one would be an error in the imported program's
 * text instead of a cut here). */
#define MAX_ELEMS ((int64_t)1 << 32)

/* "f32[2,3]" */
static const char *shape_text(Imp *im, const AxHloShape *s) {
  const char *t = ax_arena_printf(im->a, "%s[", ax_hlo_type_name(s->type));
  for (int k = 0; k < s->rank; k++) t = ax_arena_printf(im->a, "%s%s%lld", t, k ? "," : "", (long long)s->dims[k]);
  return ax_arena_printf(im->a, "%s]", t);
}

/* Why a tensor of shape s cannot be a program tensor, or NULL when it can. */
static const char *not_tensor(Imp *im, const AxHloShape *s) {
  if (s->type == AX_HLO_TUPLE) return "a tuple";
  if (!float_type(s->type))
    return ax_arena_printf(im->a, "element type %s (programs hold f16, bf16, f32)",
                           ax_hlo_type_name(s->type));
  if (s->rank > MAXRANK) return ax_arena_printf(im->a, "rank %d (at most %d)", s->rank, MAXRANK);
  for (int k = 0; k < s->rank; k++)
    if (s->dims[k] == 0) return "an empty tensor";
  if (ax_hlo_numel(s) > MAX_ELEMS)
    return ax_arena_printf(im->a, "%s of %lld elements, more than a program tensor holds (2^32)",
                           shape_text(im, s), (long long)ax_hlo_numel(s));
  return NULL;
}

/* Whether a literal is a number the program can hold exactly: the digits and the
 * exponent fit the int64 rational of base/decimal.h, which the program reader uses too. */
static bool rational(const char *text) {
  const char *p = text;
  if (*p == '-') p++;
  /* "1." and ".5" are not the program's decimals */
  const char *dot = strchr(p, '.');
  if (dot && (dot == p || dot[1] < '0' || dot[1] > '9')) return false;
  int64_t num, den;
  return ax_decimal_parse(p, &num, &den);
}

/* ---- values ---- */

/* The layout of a program tensor of exactly the HLO shape s; a scalar's is one axis of size
 * 1, which no HLO dim names (numpy broadcasting makes it any shape's). */
static void plain(Layout *l, const AxHloShape *s) {
  if (s->rank == 0) {
    l->q = l->real = 1;
    l->size[0] = 1;
    return;
  }
  l->q = l->real = s->rank;
  for (int k = 0; k < s->rank && k < MAXAX; k++) {
    l->size[k] = s->dims[k];
    l->pos[k] = k;
  }
}

static bool is_plain(const Layout *l, const AxHloShape *s) {
  if (s->rank == 0) return l->q == 1 && l->real == 1;
  if (l->q != s->rank || l->real != s->rank) return false;
  for (int k = 0; k < s->rank; k++)
    if (l->pos[k] != k || l->size[k] != s->dims[k]) return false;
  return true;
}

static const char *sizes_text(Imp *im, const int64_t *d, int n) {
  const char *t = "[";
  for (int k = 0; k < n; k++) t = ax_arena_printf(im->a, "%s%s%lld", t, k ? ", " : "", (long long)d[k]);
  return ax_arena_printf(im->a, "%s]", t);
}

static Val *mk(Imp *im, VKind k, const AxHloInstr *i, const AxHloShape *s) {
  Val *v = ax_arena_alloc(im->a, sizeof *v);
  v->kind = k;
  v->def = i;
  v->shape = s;
  if (s->type != AX_HLO_TUPLE && s->rank <= MAXRANK) plain(&v->lay, s);
  return v;
}

static void cut(Imp *im, const AxHloInstr *i, const char *reason) {
  AxHloCut *c = ax_arena_alloc(im->a, sizeof *c);
  *c = (AxHloCut){i->name_span, i->name, i->opcode, reason};
  c->at.end = i->span.end;
  ax_vec_push(im->a, &im->cuts, c);
}

/* The program tensor of v, declaring a cut value as an input on first use; NULL (and
 * *why) when v cannot be one. Literals are accepted only where `lit_ok`. */
static Val *tensor(Imp *im, Val *v, bool lit_ok, const char **why) {
  if (v->kind == V_TENSOR || (v->kind == V_LIT && lit_ok)) return v;
  if (v->pending) {
    cut(im, v->def, v->reason);
    v->pending = false;
  }
  const char *name = v->def->name;
  if (v->kind == V_TUPLE) {
    *why = ax_arena_printf(im->a, "operand '%s' is a tuple", name);
    return NULL;
  }
  const char *bad = not_tensor(im, v->shape);
  if (bad) {
    *why = ax_arena_printf(im->a, "operand '%s' is %s", name, bad);
    return NULL;
  }
  if (v->kind == V_LIT) cut(im, v->def, "a constant used where the program needs a tensor");
  const char *pn = fresh(im, name);
  ax_vec_push(im->a, &im->inputs,
              ax_arena_printf(im->a, "  input %s : %s%s", pn, ax_hlo_type_name(v->shape->type),
                              dims_text(im, v->shape)));
  ax_vec_push(im->a, &im->input_defs, (void *)v->def);
  v->kind = V_TENSOR;
  v->text = pn;
  v->computed = false;
  plain(&v->lay, v->shape);
  return v;
}

/* A new let for instruction i computing expr. */
static Val *let(Imp *im, const AxHloInstr *i, const char *expr) {
  Val *v = mk(im, V_TENSOR, i, i->shape);
  v->text = fresh(im, i->name);
  v->computed = true;
  ax_vec_push(im->a, &im->lets, ax_arena_printf(im->a, "  let %s = %s", v->text, expr));
  ax_vec_push(im->a, &im->let_defs, (void *)i);
  return v;
}

/* What a let computes, kept for the idioms (`idiom`): the HLO opcode and its operands'
 * program names (a literal's text when `ylit`), the program axis of a sum. */
typedef struct Form {
  const char *op, *x, *y;
  bool ylit;
  int axis;
} Form;

static void note(Imp *im, const Val *v, const char *op, const char *x, const char *y, bool ylit,
                 int axis) {
  Form *f = ax_arena_alloc(im->a, sizeof *f);
  *f = (Form){op, x, y, ylit, axis};
  if (ax_hlo_table_add(im->form_at, v->text, (int)im->forms.len)) ax_vec_push(im->a, &im->forms, f);
}

static const Form *form(Imp *im, const char *name, const char *op) {
  int k = name ? ax_hlo_table_get(im->form_at, name) : -1;
  const Form *f = k >= 0 ? im->forms.items[k] : NULL;
  return f && strcmp(f->op, op) == 0 ? f : NULL;
}

static bool same_dims(const AxHloShape *a, const AxHloShape *b) {
  if (a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k]) return false;
  return true;
}

static Val *full(Imp *im, Val *v);

/* The same value, now also known as instruction i (copy, a reshape to the same shape). A
 * module whose fusion declares another shape than its computation's ROOT gets the ROOT's
 * tensor as it is, as the HLO does not say where the dims would go. */
static Val *alias(Imp *im, const AxHloInstr *i, Val *v) {
  if (v->kind == V_CUT) return v;   /* one cut, one input, named after the cut instruction */
  if (v->kind == V_TENSOR && !same_dims(v->shape, i->shape)) v = full(im, v);
  Val *w = mk(im, v->kind, i, i->shape);
  w->text = v->text;
  w->computed = v->computed;
  if (v->kind == V_TENSOR && v->shape->rank <= MAXRANK && !is_plain(&v->lay, v->shape)) {
    w->lay = v->lay;
    w->full = v->full;
  }
  w->elems = v->elems;
  w->nelems = v->nelems;
  return w;
}

/* The explicit form of tensor v: a program tensor of exactly its HLO shape, for the
 * operators that are not element-wise (matmul, concat, a reduction over a pending
 * broadcast) and for outputs. Kept size-1 axes go by a reshape, pending broadcasts by a
 * broadcast; made once per value. */
static Val *full(Imp *im, Val *v) {
  if (v->kind != V_TENSOR || v->shape->rank > MAXRANK || is_plain(&v->lay, v->shape)) return v;
  if (v->full) return v->full;
  const Layout *l = &v->lay;
  const AxHloShape *s = v->shape;
  int64_t held[MAXRANK];
  bool pending = false, kept = false;
  for (int k = 0; k < s->rank; k++) {
    held[k] = l->size[l->pos[k]];
    pending |= held[k] != s->dims[k];
  }
  for (int a = l->q - l->real, k = 0; a < l->q; a++) {   /* a real axis no HLO dim names */
    while (k < s->rank && l->pos[k] < a) k++;
    kept |= k == s->rank || l->pos[k] != a;
  }
  const char *e = v->text;
  if (s->rank == 0)
    e = ax_arena_printf(im->a, "reshape(%s, [1])", e);   /* kept axes, all of size 1 */
  else if (!pending)
    e = ax_arena_printf(im->a, "reshape(%s, %s)", e, dims_text(im, s));
  else {
    if (kept) e = ax_arena_printf(im->a, "reshape(%s, %s)", e, sizes_text(im, held, s->rank));
    e = ax_arena_printf(im->a, "broadcast(%s, %s)", e, dims_text(im, s));
  }
  Val *w = mk(im, V_TENSOR, v->def, s);
  w->text = fresh(im, v->def->name);
  w->computed = true;
  ax_vec_push(im->a, &im->lets, ax_arena_printf(im->a, "  let %s = %s", w->text, e));
  ax_vec_push(im->a, &im->let_defs, (void *)v->def);
  v->full = w;
  return w;
}

/* The layout l with n more virtual leading axes. */
static Layout padded(const Layout *l, int n) {
  Layout r = *l;
  r.q = l->q + n;
  for (int a = 0; a < r.q; a++) r.size[a] = a < n ? 1 : l->size[a - n];
  for (int k = 0; k < MAXAX - n && k < MAXAX; k++) r.pos[k] = l->pos[k] + n;
  return r;
}

/* Places x (a tensor) as the value of i, whose HLO dim j is x's HLO dim src[j], or, where
 * src[j] < 0, a new dim held by a size-1 axis: a kept axis of x where one lies in the right
 * place, a virtual leading axis before x's first real one, else a reshape inserts it. This
 * is a broadcast with increasing dimensions= (new dims grow later, element-wise) and a
 * reshape that only inserts or drops size-1 dims. NULL when the layout would be too wide. */
static Val *place(Imp *im, const AxHloInstr *i, Val *x, const int *src) {
  const Layout *xl = &x->lay;
  const AxHloShape *t = i->shape;
  Layout r = {0};
  if (x->shape->rank == 0) {
    /* A scalar's axes all have size 1 and name no dim: the new dims take the last axes,
     * virtual ones (numpy's right alignment) where the tensor has fewer; nothing moves. */
    r.q = t->rank > xl->q ? t->rank : xl->q;
    r.real = xl->real;
    for (int a = 0; a < r.q; a++) r.size[a] = 1;
    for (int j = 0; j < t->rank; j++) r.pos[j] = r.q - t->rank + j;
    Val *v = mk(im, V_TENSOR, i, i->shape);
    v->text = x->text;
    v->computed = x->computed;
    v->lay = r;
    return v;
  }
  int prev = -1, lead = 0, xv = xl->q - xl->real;
  bool seen_real = false, insert = false;
#define PUT(sz, from) do { \
    if (r.q == MAXAX) return NULL; \
    r.size[r.q++] = (sz); \
    if ((from) >= xv) seen_real = true; \
    if (!seen_real) lead++; \
  } while (0)
  for (int j = 0; j < t->rank; j++) {
    if (src[j] >= 0) {
      int at = xl->pos[src[j]];
      for (int a = prev + 1; a < at; a++) PUT(1, a);
      r.pos[j] = r.q;
      PUT(xl->size[at], at);
      prev = at;
      continue;
    }
    int limit = xl->q;
    for (int n = j + 1; n < t->rank; n++)
      if (src[n] >= 0) {
        limit = xl->pos[src[n]];
        break;
      }
    r.pos[j] = r.q;
    if (prev + 1 < limit) {
      prev++;
      PUT(1, prev);
    } else {
      insert |= seen_real;
      PUT(1, -1);
    }
  }
  for (int a = prev + 1; a < xl->q; a++) PUT(1, a);
#undef PUT
  r.real = r.q - lead;
  if (insert) r.real = r.q;
  if (r.real > MAXRANK) return NULL;
  Val *v;
  if (insert) {
    v = let(im, i, ax_arena_printf(im->a, "reshape(%s, %s)", x->text, sizes_text(im, r.size, r.q)));
  } else {
    v = mk(im, V_TENSOR, i, i->shape);   /* x's tensor, another HLO shape: a new layout */
    v->text = x->text;
    v->computed = x->computed;
  }
  v->lay = r;
  return v;
}

/* -1 for a literal -inf, 1 for inf (XLA prints them so), else 0. */
static int infinity(const char *lit) {
  if (strcmp(lit, "-inf") == 0) return -1;
  return strcmp(lit, "inf") == 0 ? 1 : 0;
}

static bool is_zero(const char *lit) {
  const char *p = lit;
  while (*p == ' ' || *p == '-' || *p == '(') p++;
  char *end;
  double x = strtod(p, &end);
  while (*end == ' ' || *end == ')') end++;
  return end != p && !*end && x == 0;
}

/* ---- handlers: one per opcode; NULL and *why for a cut ---- */

/* The minor-to-major order of s's layout into m (s->rank entries); false when it is not a
 * permutation of the dims (or none is written: the default). */
static bool layout_order(const AxHloShape *s, int64_t *m) {
  if (!s->layout || s->rank < 2 || s->rank > MAXRANK) return false;
  char buf[256];
  size_t n = strcspn(s->layout, ":");   /* tiles and memory spaces follow a ':' */
  if (n >= sizeof buf - 2) return false;
  snprintf(buf, sizeof buf, "{%.*s}", (int)n, s->layout);
  if (ax_hlo_attr_ints(buf, m, MAXRANK) != s->rank) return false;
  bool seen[MAXRANK] = {0};
  for (int k = 0; k < s->rank; k++) {
    if (m[k] < 0 || m[k] >= s->rank || seen[m[k]]) return false;
    seen[m[k]] = true;
  }
  return true;
}

/* An ENTRY parameter. A layout other than the default says the caller's buffer holds the
 * dims in another order (minor-to-major m): the program's input is that buffer, row-major
 * (dim j is the HLO dim m[rank-1-j]), and the HLO value its transpose. */
static Val *h_parameter(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  (void)ops;   /* ENTRY parameters only: a called computation's are bound first */
  const char *bad = not_tensor(im, i->shape);
  if (bad) {   /* a scalar or an int parameter: whoever needs it is cut in turn */
    *why = ax_arena_printf(im->a, "parameter is %s", bad);
    return NULL;
  }
  const AxHloShape *s = i->shape;
  int64_t m[MAXRANK];
  if (s->rank == 0) {   /* held as [1]; the printer writes it back as a scalar */
    Val *v = tensor(im, mk(im, V_CUT, i, s), false, why);
    if (v) ax_vec_push(im->a, &im->scalar_inputs, (void *)v->text);
    return v;
  }
  if (ax_hlo_layout_default(s)) return tensor(im, mk(im, V_CUT, i, s), false, why);
  if (!layout_order(s, m)) {
    *why = ax_arena_printf(im->a, "parameter with the layout {%s}, which is no order of its dims", s->layout);
    return NULL;
  }
  int r = s->rank;
  int64_t phys[MAXRANK], perm[MAXRANK];
  for (int j = 0; j < r; j++) phys[j] = s->dims[m[r - 1 - j]];
  for (int k = 0; k < r; k++)
    for (int q = 0; q < r; q++)
      if (m[q] == k) perm[k] = r - 1 - q;
  const char *pn = fresh(im, ax_arena_printf(im->a, "%s_buffer", i->name));
  ax_vec_push(im->a, &im->inputs, ax_arena_printf(im->a, "  input %s : %s%s", pn, ax_hlo_type_name(s->type),
                                                  sizes_text(im, phys, r)));
  ax_vec_push(im->a, &im->input_defs, (void *)i);
  return let(im, i, ax_arena_printf(im->a, "transpose(%s, %s)", pn, sizes_text(im, perm, r)));
}

/* A constant's literal text without surrounding blanks (arena copy). */
static const char *trimmed(Imp *im, const char *lit) {
  while (*lit == ' ' || *lit == '\t') lit++;
  size_t n = strlen(lit);
  while (n > 0 && strchr(" \t\r\n", lit[n - 1])) n--;
  return ax_arena_strndup(im->a, lit, n);
}

static Val *h_constant(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  (void)ops;
  const char *lit = trimmed(im, i->literal);
  if (i->shape->type != AX_HLO_TUPLE && i->shape->rank == 0 && float_type(i->shape->type)) {
    if (!rational(lit)) {
      *why = ax_arena_printf(im->a, "constant %s is not a finite decimal the program can hold", lit);
      if (!infinity(lit)) return NULL;
      /* the init of a max (min) reduction: no cut unless something else reads it */
      Val *v = mk(im, V_CUT, i, i->shape);
      v->reason = *why;
      v->pending = true;
      return v;
    }
    Val *v = mk(im, V_LIT, i, i->shape);
    v->text = lit[0] == '-' ? ax_arena_printf(im->a, "(%s)", lit) : lit;
    return v;
  }
  if (i->shape->type != AX_HLO_TUPLE && i->shape->rank == 0) {   /* a scalar, but not a float */
    *why = ax_arena_printf(im->a, "scalar constant %s of element type %s (programs hold f16, bf16, f32)", lit,
                           ax_hlo_type_name(i->shape->type));
    return NULL;
  }
  *why = strstr(lit, "...") ? "constant with elided data ({...}): becomes an input"
                            : "array constant: its data becomes an input";
  return NULL;
}

/* add subtract multiply divide (the infix operators), maximum minimum (max, min); literals
 * broadcast. */
/* The program's fused operators where the HLO spells them out, so that a module and the
 * program written with the operator lower to the same naive graph (and search to the same
 * μGraph): `silu(x)` for multiply(x, logistic(x)) (either order), `rms_norm(x, axis = a)`
 * for divide(x, sqrt(sum(x*x over a) / n)) with n the size of a (or * 1/n), x of its plain
 * shape. The lets of the parts stay and are dropped when nothing else reads them (`live`).
 * NULL when neither matches. */
static const char *idiom(Imp *im, const AxHloInstr *i, const Val *a, const Val *b) {
  if (a->kind != V_TENSOR || b->kind != V_TENSOR) return NULL;
  if (strcmp(i->opcode, "multiply") == 0) {
    const Val *pair[2][2] = {{a, b}, {b, a}};
    for (int k = 0; k < 2; k++) {
      const Form *l = form(im, pair[k][1]->text, "logistic");
      if (l && strcmp(l->x, pair[k][0]->text) == 0 && a->lay.q == b->lay.q &&
          memcmp(a->lay.pos, b->lay.pos, sizeof a->lay.pos) == 0 &&
          memcmp(a->lay.size, b->lay.size, sizeof a->lay.size) == 0)
        return ax_arena_printf(im->a, "silu(%s)", pair[k][0]->text);
    }
    return NULL;
  }
  if (strcmp(i->opcode, "divide") != 0 || !is_plain(&a->lay, a->shape)) return NULL;
  const Form *rt = form(im, b->text, "sqrt");
  const Form *mean = rt ? form(im, rt->x, "divide") : NULL;
  double scale = 0;
  if (mean && mean->ylit) scale = 1 / strtod(mean->y, NULL);
  if (!mean && rt && (mean = form(im, rt->x, "multiply")) && mean->ylit) scale = strtod(mean->y, NULL);
  const Form *sum = mean && mean->ylit ? form(im, mean->x, "sum") : NULL;
  const Form *sq = sum ? form(im, sum->x, "multiply") : NULL;
  if (!sq || sq->ylit || strcmp(sq->x, a->text) != 0 || strcmp(sq->y, a->text) != 0) return NULL;
  if (sum->axis < 0 || sum->axis >= a->shape->rank) return NULL;
  double n = (double)a->shape->dims[sum->axis];
  if (scale * n < 1 - 1e-12 || scale * n > 1 + 1e-12) return NULL;
  return ax_arena_printf(im->a, "rms_norm(%s, axis = %d)", a->text, sum->axis);
}

/* Lines up a and b, element-wise operands (tensors or literals) holding one HLO shape or b
 * a scalar (clamp's bounds): numpy broadcasting gives the program's result when the HLO
 * dims sit on the same axes (right-aligned), else b moves onto a's axes (a reshape, a let
 * of b's instruction bdef). Returns b as it is used; *r gets the result's layout. */
static Val *lineup(Imp *im, const AxHloInstr *bdef, Val *a, Val *b, Layout *r) {
  if (a->kind == V_LIT || b->kind == V_LIT) {
    *r = (a->kind == V_LIT ? b : a)->lay;
    return b;
  }
  int q = a->lay.q > b->lay.q ? a->lay.q : b->lay.q;
  Layout la = padded(&a->lay, q - a->lay.q), lb = padded(&b->lay, q - b->lay.q);
  bool same = true;
  /* a scalar's axes all have size 1: it broadcasts as it lies */
  for (int k = 0; b->shape->rank > 0 && k < a->shape->rank; k++) same &= la.pos[k] == lb.pos[k];
  if (!same) {
    Layout m = la;
    for (int a2 = 0; a2 < q; a2++) m.size[a2] = 1;
    for (int k = 0; k < a->shape->rank; k++) m.size[la.pos[k]] = lb.size[lb.pos[k]];
    m.real = q;
    Val *w = let(im, bdef, ax_arena_printf(im->a, "reshape(%s, %s)", b->text, sizes_text(im, m.size, q)));
    w->lay = m;
    b = w;
    lb = m;
  }
  *r = la;
  r->real = la.real > lb.real ? la.real : lb.real;
  for (int a2 = 0; a2 < q; a2++)
    if (lb.size[a2] > r->size[a2]) r->size[a2] = lb.size[a2];
  return b;
}

static Val *h_binary(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  static const struct { const char *op, *fmt; } forms[] = {
    {"add", "%s + %s"}, {"subtract", "%s - %s"}, {"multiply", "%s * %s"}, {"divide", "%s / %s"},
    {"maximum", "max(%s, %s)"}, {"minimum", "min(%s, %s)"}, {"power", "pow(%s, %s)"},
  };
  const char *fmt = NULL;
  for (size_t k = 0; k < AX_COUNTOF(forms); k++)
    if (strcmp(forms[k].op, i->opcode) == 0) fmt = forms[k].fmt;
  if (strcmp(i->opcode, "compare") == 0) {
    /* compare(direction=D): the program's comparison of that name, a 1.0/0.0 mask held in
     * f32 (a compare of f16 or bf16 data converts its mask) */
    static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    static const char *const fns[] = {"eq(%s, %s)", "ne(%s, %s)", "lt(%s, %s)",
                                      "le(%s, %s)", "gt(%s, %s)", "ge(%s, %s)"};
    const AxHloAttr *d = ax_hlo_attr(i, "direction");
    for (size_t k = 0; d && k < AX_COUNTOF(dirs); k++)
      if (strcmp(d->value, dirs[k]) == 0) fmt = fns[k];
    if (!fmt) {
      *why = d ? ax_arena_printf(im->a, "compare with direction=%s", d->value)
               : "compare without a direction";
      return NULL;
    }
    AxHloType t = held_type(ops[0]->shape->type);
    if (t != AX_HLO_F32) fmt = ax_arena_printf(im->a, "to_f32(%s)", fmt);
  }
  AX_ASSERT(fmt);
  if (ops[0]->kind == V_LIT && ops[1]->kind == V_LIT) {
    *why = "computes on constants only";
    return NULL;
  }
  Val *a = tensor(im, ops[0], true, why), *b = a ? tensor(im, ops[1], true, why) : NULL;
  if (!b) return NULL;
  Layout r;
  b = lineup(im, ops[1]->def, a, b, &r);
  const char *e = idiom(im, i, a, b);
  im->fused |= e != NULL;
  Val *v = let(im, i, e ? e : ax_arena_printf(im->a, fmt, a->text, b->text));
  v->lay = r;
  if (a->kind == V_TENSOR && !e) note(im, v, i->opcode, a->text, b->text, b->kind == V_LIT, -1);
  return v;
}

/* and or xor not of pred masks, held as 0.0/1.0 in f32 (compare's masks and these): the
 * polynomials that agree with the Boolean operators on 0 and 1, so exact (a * b, a + b - a *
 * b, a + b - 2 * (a * b), 1 - a). Integer operands are bit operations: cut. */
static Val *h_logic(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  if (i->shape->type != AX_HLO_PRED) {
    *why = ax_arena_printf(im->a, "%s of %s values (bitwise) is not in the program vocabulary", i->opcode,
                           ax_hlo_type_name(i->shape->type));
    return NULL;
  }
  Val *x[2] = {NULL, NULL};
  for (int k = 0; k < i->nops; k++) {
    if (ops[k]->kind == V_LIT) {
      *why = "a logical operator on a constant";
      return NULL;
    }
    if (!(x[k] = tensor(im, ops[k], false, why))) return NULL;
  }
  const char *e;
  Layout r = x[0]->lay;
  if (i->nops == 1) {
    e = ax_arena_printf(im->a, "1 - %s", x[0]->text);
  } else {
    x[1] = lineup(im, ops[1]->def, x[0], x[1], &r);
    const char *a = x[0]->text, *b = x[1]->text;
    e = strcmp(i->opcode, "and") == 0 ? ax_arena_printf(im->a, "%s * %s", a, b)
        : strcmp(i->opcode, "or") == 0 ? ax_arena_printf(im->a, "%s + %s - %s * %s", a, b, a, b)
                                       : ax_arena_printf(im->a, "%s + %s - 2 * (%s * %s)", a, b, a, b);
  }
  Val *v = let(im, i, e);
  v->lay = r;
  return v;
}

/* clamp(lo, x, hi), HLO's operand order: min(max(x, lo), hi), each bound x's shape or a
 * scalar (a literal, or a [1] tensor that broadcasts). */
static Val *h_clamp(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  if (ops[1]->kind == V_LIT) {
    *why = "computes on constants only";
    return NULL;
  }
  Val *x = tensor(im, ops[1], false, why);
  Val *lo = x ? tensor(im, ops[0], true, why) : NULL;
  Val *hi = lo ? tensor(im, ops[2], true, why) : NULL;
  if (!hi) return NULL;
  Layout r;
  lo = lineup(im, ops[0]->def, x, lo, &r);
  Val *m = mk(im, V_TENSOR, i, i->shape);   /* max(x, lo): an expression, not a let */
  m->text = ax_arena_printf(im->a, "max(%s, %s)", x->text, lo->text);
  m->lay = r;
  hi = lineup(im, ops[2]->def, m, hi, &r);
  Val *v = let(im, i, ax_arena_printf(im->a, "min(%s, %s)", m->text, hi->text));
  v->lay = r;
  return v;
}

/* negate exponential sqrt rsqrt tanh logistic abs log sine cosine erf: a template around the operand;
 * exponential-minus-one and log-plus-one spelled out (over the reals, where the program's
 * semantics is, exp(x) - 1 and log(1 + x) are these functions). */
static Val *h_unary(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  static const struct { const char *op, *fmt; } forms[] = {
    {"negate", "-%s"}, {"exponential", "exp(%s)"}, {"sqrt", "sqrt(%s)"},
    {"rsqrt", "rsqrt(%s)"}, {"tanh", "tanh(%s)"}, {"logistic", "logistic(%s)"},
    {"abs", "abs(%s)"}, {"log", "log(%s)"}, {"sine", "sin(%s)"}, {"cosine", "cos(%s)"},
    {"erf", "erf(%s)"},
    {"exponential-minus-one", "exp(%s) - 1"}, {"log-plus-one", "log(1 + %s)"},
  };
  if (ops[0]->kind == V_LIT) {
    *why = "computes on constants only";
    return NULL;
  }
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  for (size_t k = 0; k < AX_COUNTOF(forms); k++)
    if (strcmp(forms[k].op, i->opcode) == 0) {
      Val *v = let(im, i, ax_arena_printf(im->a, forms[k].fmt, x->text));
      v->lay = x->lay;   /* element-wise: the operand's axes */
      note(im, v, i->opcode, x->text, NULL, false, -1);
      return v;
    }
  AX_UNREACHABLE();
}

/* reshape(x, [d...]) of value x to shape s, or x itself when s is its shape. */
static Val *reshaped(Imp *im, const AxHloInstr *i, Val *x, const AxHloShape *s) {
  if (x->kind == V_LIT) {
    Val *v = alias(im, i, x);
    v->shape = s;
    return v;
  }
  if (same_dims(x->shape, s)) return alias(im, i, x);
  /* Only size-1 dims inserted or dropped: the same tensor, its dims on other axes. */
  int src[MAXRANK], k = 0;
  bool ones = s->rank <= MAXRANK;
  for (int j = 0; ones && j < s->rank; j++) {
    if (s->dims[j] == 1) {
      src[j] = -1;
      continue;
    }
    while (k < x->shape->rank && x->shape->dims[k] == 1) k++;
    ones = k < x->shape->rank && x->shape->dims[k] == s->dims[j];
    src[j] = k++;
  }
  while (ones && k < x->shape->rank) ones = x->shape->dims[k++] == 1;
  Val *v = ones ? place(im, i, x, src) : NULL;
  /* A scalar that only drops the dim of a [1] tensor is that tensor (as the printer writes
   * a scalar output back): its explicit form, where one is written, is named after it. */
  if (v && s->rank == 0 && x->shape->rank == 1) v->def = x->def;
  if (v) return v;
  x = full(im, x);
  return let(im, i, ax_arena_printf(im->a, "reshape(%s, %s)", x->text, dims_text(im, s)));
}

/* broadcast with increasing dimensions=: the operand on its axes with the new dims on
 * size-1 axes (`place`), grown by the element-wise operators that use it or by `full`. */
static Val *h_broadcast(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t dims[64];
  int n = ax_hlo_attr_ints(ax_hlo_attr(i, "dimensions")->value, dims, 64);
  for (int k = 1; k < n; k++)
    if (dims[k] <= dims[k - 1]) {
      *why = "broadcast that reorders dimensions (a transpose) is not in the program vocabulary";
      return NULL;
    }
  if (ops[0]->kind == V_LIT) {
    Val *v = alias(im, i, ops[0]);
    v->shape = i->shape;
    return v;
  }
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  if (i->shape->rank <= MAXRANK) {
    int src[MAXRANK];
    for (int j = 0; j < i->shape->rank; j++) src[j] = -1;
    for (int k = 0; k < n; k++) src[dims[k]] = k;
    Val *v = place(im, i, x, src);
    if (v) return v;
  }
  x = full(im, x);
  AxHloShape *mid = ax_arena_alloc(im->a, sizeof *mid);
  *mid = *i->shape;
  mid->dims = ax_arena_alloc(im->a, sizeof(int64_t) * (size_t)(mid->rank + 1));
  for (int k = 0; k < mid->rank; k++) mid->dims[k] = 1;
  for (int k = 0; k < n; k++) mid->dims[dims[k]] = x->shape->dims[k];
  const char *src = x->text;
  if (!same_dims(x->shape, mid))
    src = ax_arena_printf(im->a, "reshape(%s, %s)", x->text, dims_text(im, mid));
  if (same_dims(mid, i->shape)) return src == x->text ? alias(im, i, x) : let(im, i, src);
  return let(im, i, ax_arena_printf(im->a, "broadcast(%s, %s)", src, dims_text(im, i->shape)));
}

static Val *h_reshape(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  if (ops[0]->kind == V_LIT) return reshaped(im, i, ops[0], i->shape);
  Val *x = tensor(im, ops[0], false, why);
  return x ? reshaped(im, i, x, i->shape) : NULL;
}

/* A bitcast is a reshape when both layouts are row-major; otherwise it moves data. */
static Val *h_bitcast(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  const AxHloShape *o = ops[0]->shape, *s = i->shape;
  /* the bytes are the same on both sides (hlo.c checks it), so one element type keeps the count */
  if (o->type != s->type) {
    *why = ax_arena_printf(im->a, "bitcast from %s to %s reinterprets the bits of its elements",
                           ax_hlo_type_name(o->type), ax_hlo_type_name(s->type));
    return NULL;
  }
  if (ax_hlo_numel(o) != ax_hlo_numel(s) || !ax_hlo_layout_default(o) || !ax_hlo_layout_default(s)) {
    *why = ax_arena_printf(im->a, "bitcast between layouts other than row-major ({%s} to {%s}): it moves elements",
                           o->layout ? o->layout : "", s->layout ? s->layout : "");
    return NULL;
  }
  return h_reshape(im, i, ops, why);
}

static Val *h_copy(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  (void)why;
  return alias(im, i, ops[0]);   /* a layout change: the same values */
}

/* convert between float types: to_f16, to_bf16, to_f32, element-wise on the operand's
 * axes, the result stored in the new type (a narrowing one rounds; f16 and bf16 to f32 is
 * exact). Integer and pred types are not program types: cut. */
static Val *h_convert(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  AxHloType from = ops[0]->shape->type, to = i->shape->type;
  if (from == to) return alias(im, i, ops[0]);
  if (index_type(from) && float_type(to) && ops[0]->kind == V_TENSOR && ops[0]->computed) {
    /* a mask or an index held in f32: the same values, in the new type */
    if (held_type(from) == to) {
      Val *v = alias(im, i, ops[0]);
      v->shape = i->shape;
      return v;
    }
    Val *v = let(im, i, retyped(im, ops[0]->text, held_type(from), to));
    v->lay = ops[0]->lay;
    return v;
  }
  if (!float_type(from) || !float_type(to)) {
    *why = ax_arena_printf(im->a, "convert from %s to %s changes the element type",
                           ax_hlo_type_name(from), ax_hlo_type_name(to));
    return NULL;
  }
  if (ops[0]->kind == V_LIT) {
    if (to == AX_HLO_F32) {   /* a literal is exact: widening keeps it */
      Val *v = alias(im, i, ops[0]);
      v->shape = i->shape;
      return v;
    }
    *why = "converts a constant to a narrower type (the program holds the literal exactly)";
    return NULL;
  }
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  const char *fn = to == AX_HLO_F16 ? "to_f16" : to == AX_HLO_BF16 ? "to_bf16" : "to_f32";
  Val *v = let(im, i, ax_arena_printf(im->a, "%s(%s)", fn, x->text));
  v->lay = x->lay;   /* element-wise: the operand's axes */
  return v;
}

/* iota(iota_dimension=d): the program's iota of the HLO shape, held in f32 (an f16 or
 * bf16 iota rounds as HLO's does). */
static Val *h_iota(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  (void)ops;
  const AxHloAttr *d = ax_hlo_attr(i, "iota_dimension");
  int64_t dim;
  if (!d || ax_hlo_attr_ints(d->value, &dim, 1) != 1 || dim < 0 || dim >= i->shape->rank) {
    *why = "iota without a valid iota_dimension";
    return NULL;
  }
  if (i->shape->dims[dim] > ((int64_t)1 << 24)) {
    *why = "iota with more indices than f32 holds exactly";
    return NULL;
  }
  const char *e = ax_arena_printf(im->a, "iota(%s, axis = %lld)", dims_text(im, i->shape), (long long)dim);
  return let(im, i, retyped(im, e, AX_HLO_F32, held_type(i->shape->type)));
}

/* select(mask, a, b): the program's select over the explicit forms (one shape); the mask,
 * held in f32, converted exactly to the branches' type. */
static Val *h_select(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  const char *x[3];
  for (int k = 0; k < 3; k++) {
    if (ops[k]->kind == V_LIT && k > 0) {   /* a fill value: the literal, broadcast */
      x[k] = ax_arena_printf(im->a, "broadcast(%s, %s)", ops[k]->text, dims_text(im, i->shape));
      continue;
    }
    if (ops[k]->kind == V_LIT) {
      *why = "select with a constant mask";
      return NULL;
    }
    Val *v = tensor(im, ops[k], false, why);
    if (!v) return NULL;
    x[k] = full(im, v)->text;
    if (k == 0 && ops[0]->shape->rank == 0 && i->shape->rank > 0)   /* a scalar predicate */
      x[k] = ax_arena_printf(im->a, "broadcast(%s, %s)", x[k], dims_text(im, i->shape));
  }
  AxHloType t = held_type(i->shape->type);
  const char *m = retyped(im, x[0], held_type(ops[0]->shape->type), t);
  return let(im, i, ax_arena_printf(im->a, "select(%s, %s, %s)", m, x[1], x[2]));
}

/* transpose(x, dimensions=): result dim k is x's dim dimensions[k]; the program's transpose
 * of x's explicit form, the same permutation. The identity is the same value. */
static Val *h_transpose(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t dims[64];
  int n = ax_hlo_attr_ints(ax_hlo_attr(i, "dimensions")->value, dims, 64);
  bool ident = true;
  for (int k = 0; k < n; k++) ident &= dims[k] == k;
  if (ident || ops[0]->kind == V_LIT) {
    Val *v = alias(im, i, ops[0]);
    v->shape = i->shape;
    return v;
  }
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  x = full(im, x);
  return let(im, i, ax_arena_printf(im->a, "transpose(%s, %s)", x->text, sizes_text(im, dims, n)));
}

/* slice(x, slice={[s:l:p], ...}): the program's slice of x's explicit form; the whole of
 * x is the same value. The module check has bounded every range. */
static Val *h_slice(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t lo[64], hi[64], st[64];
  int n = ax_hlo_attr_slice(ax_hlo_attr(i, "slice")->value, lo, hi, st, 64);
  if (same_dims(ops[0]->shape, i->shape)) return h_copy(im, i, ops, why);
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  x = full(im, x);
  return let(im, i, ax_arena_printf(im->a, "slice(%s, start = %s, limit = %s, stride = %s)", x->text,
                                    sizes_text(im, lo, n), sizes_text(im, hi, n), sizes_text(im, st, n)));
}

/* pad(x, v), padding=low_high_interior per dim: the program's pad of x's explicit form,
 * the value a literal or a scalar tensor; no padding at all is the same value. */
static Val *h_pad(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t lo[64], hi[64], in[64];
  int n = ax_hlo_attr_padding(ax_hlo_attr(i, "padding")->value, lo, hi, in, 64);
  bool none = true;
  for (int k = 0; k < n; k++) none &= lo[k] == 0 && hi[k] == 0 && in[k] == 0;
  if (none) return h_copy(im, i, ops, why);
  if (ops[0]->kind == V_LIT) {
    *why = "pads a constant (the program holds the literal, not its array)";
    return NULL;
  }
  for (int k = 0; k < n; k++)
    if (lo[k] < INT32_MIN || lo[k] > INT32_MAX || hi[k] < INT32_MIN || hi[k] > INT32_MAX || in[k] > INT32_MAX) {
      *why = "pad by more than 2^31 elements";
      return NULL;
    }
  Val *x = tensor(im, ops[0], false, why);
  Val *v = x ? tensor(im, ops[1], true, why) : NULL;
  if (!v) return NULL;
  x = full(im, x);
  if (v->kind == V_TENSOR) v = full(im, v);
  return let(im, i, ax_arena_printf(im->a, "pad(%s, %s, low = %s, high = %s, interior = %s)", x->text,
                                    v->text, sizes_text(im, lo, n), sizes_text(im, hi, n),
                                    sizes_text(im, in, n)));
}

/* reverse(x, dimensions={...}): the program's reverse of x's explicit form; reversing no
 * dim, or only dims of size 1, is the same value. */
static Val *h_reverse(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t dims[64], kept[64];
  int n = ax_hlo_attr_ints(ax_hlo_attr(i, "dimensions")->value, dims, 64), nk = 0;
  for (int k = 0; k < n; k++)
    if (i->shape->dims[dims[k]] > 1) kept[nk++] = dims[k];
  if (nk == 0 || ops[0]->kind == V_LIT) return h_copy(im, i, ops, why);
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  x = full(im, x);
  return let(im, i, ax_arena_printf(im->a, "reverse(%s, %s)", x->text, sizes_text(im, kept, nk)));
}

/* e transposed by perm (n dims), or e itself for the identity. */
static const char *permuted(Imp *im, const char *e, const int64_t *perm, int n) {
  for (int k = 0; k < n; k++)
    if (perm[k] != k) return ax_arena_printf(im->a, "transpose(%s, %s)", e, sizes_text(im, perm, n));
  return e;
}

/* e, of dims have[0..nh), reshaped to want[0..nw), or e itself when they are the same. */
static const char *resized(Imp *im, const char *e, const int64_t *have, int nh, const int64_t *want,
                           int nw) {
  bool same = nh == nw;
  for (int k = 0; same && k < nh; k++) same = have[k] == want[k];
  return same ? e : ax_arena_printf(im->a, "reshape(%s, %s)", e, sizes_text(im, want, nw));
}

/* Whether the n dims d are distinct and below rank, none of them marked in used (which
 * gets them). */
static bool fresh_dims(const int64_t *d, int n, int rank, bool *used) {
  for (int k = 0; k < n; k++) {
    if (d[k] < 0 || d[k] >= rank || used[d[k]]) return false;
    used[d[k]] = true;
  }
  return true;
}

/* dot(lhs, rhs) with any batch, contracting and free dims, as XLA defines it: the result
 * holds the batch dims (in lhs_batch_dims' order), then the lhs's free dims, then the rhs's,
 * each side's free dims in their order. It is one matmul: each operand is transposed to
 * [batch..., free..., contracting...] (the lhs) or [batch..., contracting..., free...] (the
 * rhs), its free dims and its contracting dims merged into one each by a reshape, so that
 * matmul's [..., m, k] x [..., k, n] gives [batch..., m, n], which a reshape splits into
 * XLA's order (no transpose is needed: the order is already XLA's). Identity transposes and
 * reshapes are left out, so `[..., m, k] x [..., k, n]` is matmul(a, b) as it was, and JAX's
 * q·kᵀ (rhs_contracting_dims={2} of [b, n, d]) matmul(q, transpose(k, [0, 2, 1])). Without
 * batch dims and with one free dim on the rhs, the lhs's free dims stay apart: matmul
 * broadcasts its leading dims, so a dense layer on [b, s, h] x [h, n] is matmul(x, w) with
 * no reshape at all (one the search would refuse). Operands of a narrower float type than
 * the result (bf16 x bf16 -> f32: XLA's f32 accumulation) are converted to it first,
 * exactly. */
static Val *h_dot(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  const AxHloShape *l = ops[0]->shape, *r = ops[1]->shape;
  int64_t lb[64], lc[64], rb[64], rc[64];
  const AxHloAttr *x;
  int nlb = (x = ax_hlo_attr(i, "lhs_batch_dims")) ? ax_hlo_attr_ints(x->value, lb, 64) : 0;
  int nlc = (x = ax_hlo_attr(i, "lhs_contracting_dims")) ? ax_hlo_attr_ints(x->value, lc, 64) : 0;
  int nrb = (x = ax_hlo_attr(i, "rhs_batch_dims")) ? ax_hlo_attr_ints(x->value, rb, 64) : 0;
  int nrc = (x = ax_hlo_attr(i, "rhs_contracting_dims")) ? ax_hlo_attr_ints(x->value, rc, 64) : 0;
  /* the module check has matched the counts and sizes and kept the ranks; a matmul of
   * [batch..., m, k] needs batch + 2 axes */
  if (ax_hlo_numel(l) >= INT64_MAX / 2 || ax_hlo_numel(r) >= INT64_MAX / 2) {   /* numel's clamp */
    *why = "dot of operands with more elements than a program holds";
    return NULL;
  }
  if (l->rank > MAXRANK || r->rank > MAXRANK || nlb + 2 > MAXRANK) {
    *why = ax_arena_printf(im->a, "dot with %d batch dims (a matmul holds at most %d)", nlb, MAXRANK - 2);
    return NULL;
  }
  bool lused[MAXRANK] = {0}, rused[MAXRANK] = {0};
  if (nlb != nrb || nlc != nrc || !fresh_dims(lb, nlb, l->rank, lused) ||
      !fresh_dims(lc, nlc, l->rank, lused) || !fresh_dims(rb, nrb, r->rank, rused) ||
      !fresh_dims(rc, nrc, r->rank, rused)) {
    *why = "dot whose batch and contracting dimensions are not distinct dims of its operands";
    return NULL;
  }
  AxHloType t = i->shape->type;
  bool widen = (l->type != t || r->type != t) && t == AX_HLO_F32 && float_type(l->type) && float_type(r->type);
  if ((l->type != t || r->type != t) && !widen) {
    *why = ax_arena_printf(im->a, "dot of %s operands with a %s result changes the element type",
                           ax_hlo_type_name(l->type), ax_hlo_type_name(i->shape->type));
    return NULL;
  }
  /* each side's order: batch, free, contracting (lhs) / batch, contracting, free (rhs) */
  int64_t lperm[MAXRANK], rperm[MAXRANK], lfree[MAXRANK], rfree[MAXRANK];
  int nlf = 0, nrf = 0;
  for (int k = 0; k < l->rank; k++)
    if (!lused[k]) lfree[nlf++] = k;
  for (int k = 0; k < r->rank; k++)
    if (!rused[k]) rfree[nrf++] = k;
  int n = 0;
  for (int k = 0; k < nlb; k++) lperm[n++] = lb[k];
  for (int k = 0; k < nlf; k++) lperm[n++] = lfree[k];
  for (int k = 0; k < nlc; k++) lperm[n++] = lc[k];
  n = 0;
  for (int k = 0; k < nrb; k++) rperm[n++] = rb[k];
  for (int k = 0; k < nrc; k++) rperm[n++] = rc[k];
  for (int k = 0; k < nrf; k++) rperm[n++] = rfree[k];
  int64_t have_l[MAXRANK], have_r[MAXRANK], want_l[MAXRANK], want_r[MAXRANK], got[MAXRANK];
  for (int k = 0; k < l->rank; k++) have_l[k] = l->dims[lperm[k]];
  for (int k = 0; k < r->rank; k++) have_r[k] = r->dims[rperm[k]];
  int64_t m = 1, kk = 1, nn = 1;
  for (int k = 0; k < nlf; k++) m *= l->dims[lfree[k]];
  for (int k = 0; k < nlc; k++) kk *= l->dims[lc[k]];
  for (int k = 0; k < nrf; k++) nn *= r->dims[rfree[k]];
  /* the result XLA's dot gives, which the module check has not compared */
  int nres = nlb + nlf + nrf;
  bool res_ok = nres == i->shape->rank;
  for (int k = 0; res_ok && k < nres; k++)
    res_ok = i->shape->dims[k] == (k < nlb ? l->dims[lb[k]]
                                   : k < nlb + nlf ? l->dims[lfree[k - nlb]] : r->dims[rfree[k - nlb - nlf]]);
  if (!res_ok) {
    *why = "dot whose result shape is not batch, lhs free, rhs free dims";
    return NULL;
  }
  int nwl, nwr, ng = 0;
  bool spread = nlb == 0 && nrf == 1 && nlf >= 1;   /* the lhs's free dims as matmul's batch */
  for (int k = 0; k < nlb; k++) want_l[k] = want_r[k] = got[ng++] = l->dims[lb[k]];
  if (spread) {
    for (int k = 0; k < nlf; k++) want_l[k] = got[ng++] = l->dims[lfree[k]];
    want_l[nlf] = kk;
    nwl = nlf + 1;
  } else {
    want_l[nlb] = got[ng++] = m;
    want_l[nlb + 1] = kk;
    nwl = nlb + 2;
  }
  want_r[nlb] = kk;
  want_r[nlb + 1] = got[ng++] = nn;
  nwr = nlb + 2;
  Val *a = tensor(im, ops[0], false, why), *b = a ? tensor(im, ops[1], false, why) : NULL;
  if (!b) return NULL;
  const char *ta = full(im, a)->text, *tb = full(im, b)->text;
  if (l->type != t) ta = ax_arena_printf(im->a, "to_f32(%s)", ta);
  if (r->type != t) tb = ax_arena_printf(im->a, "to_f32(%s)", tb);
  ta = resized(im, permuted(im, ta, lperm, l->rank), have_l, l->rank, want_l, nwl);
  tb = resized(im, permuted(im, tb, rperm, r->rank), have_r, r->rank, want_r, nwr);
  /* the matmul's [batch..., m, n], then XLA's dims: a reshape, or none where it only drops
   * a size-1 m or n (a vector operand), which the layout keeps as an axis (`reshaped`) */
  AxHloShape *mid = ax_arena_alloc(im->a, sizeof *mid);
  *mid = *i->shape;
  mid->rank = ng;
  mid->dims = ax_arena_alloc(im->a, sizeof *mid->dims * (size_t)ng);
  memcpy(mid->dims, got, sizeof *got * (size_t)ng);
  mid->layout = NULL;
  Val *v = let(im, i, ax_arena_printf(im->a, "matmul(%s, %s)", ta, tb));
  v->shape = mid;
  plain(&v->lay, mid);
  return reshaped(im, i, v, i->shape);
}

/* The binary operator a reduction's to_apply computes: its ROOT applied to its two
 * parameters, whatever the computation is called ("add", "maximum", ...); NULL if the
 * body is anything else. */
static const char *reducer(Imp *im, const AxHloInstr *i) {
  const AxHloAttr *x = ax_hlo_attr(i, "to_apply");
  const AxHloComp *c = x ? ax_hlo_comp(im->m, x->value) : NULL;
  if (!c) return NULL;
  const AxHloInstr *r = c->root;
  if (r->nops != 2) return NULL;
  bool p0 = false, p1 = false;
  for (int k = 0; k < 2; k++) {
    const AxHloInstr *p = r->ops[k].def;
    if (strcmp(p->opcode, "parameter") != 0) return NULL;
    int64_t num;
    if (ax_hlo_attr_ints(p->literal, &num, 1) != 1) return NULL;
    p0 |= num == 0;
    p1 |= num == 1;
  }
  return p0 && p1 ? r->opcode : NULL;
}

/* reduce with an add body and a zero init: sum(x, axis = a) per axis, each kept with size 1
 * in the layout (docs/hlo.md); a dim still pending a broadcast is grown first. A maximum
 * (minimum) body with init -inf (inf), the identity, is reduce_max (reduce_min) the same way. */
static Val *h_reduce(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  if (i->nops != 2) {
    *why = "reduce of several operands (a variadic reduce) is not in the program vocabulary";
    return NULL;
  }
  const char *body = reducer(im, i);
  const char *fn = !body ? NULL
                   : strcmp(body, "add") == 0 ? "sum"
                   : strcmp(body, "maximum") == 0 ? "reduce_max"
                   : strcmp(body, "minimum") == 0 ? "reduce_min" : NULL;
  if (!fn) {
    *why = body ? ax_arena_printf(im->a, "reduce with %s is not in the program vocabulary (only add, maximum, minimum)", body)
                : "reduce whose body is not one binary operator is not in the program vocabulary";
    return NULL;
  }
  const AxHloInstr *init = i->ops[1].def;
  if (fn[0] == 's' && (ops[1]->kind != V_LIT || !is_zero(ops[1]->text))) {
    *why = "reduce whose init value is not the constant 0";
    return NULL;
  }
  bool max = strcmp(fn, "reduce_max") == 0;
  if (fn[0] == 'r' && (strcmp(init->opcode, "constant") != 0 || ops[1]->kind != V_CUT ||
                       infinity(trimmed(im, init->literal)) != (max ? -1 : 1))) {
    *why = ax_arena_printf(im->a, "reduce with %s whose init value is not the constant %s", body,
                           max ? "-inf" : "inf");
    return NULL;
  }
  const char *bad = not_tensor(im, i->shape);
  if (bad) {
    *why = ax_arena_printf(im->a, "its result is %s", bad);
    return NULL;
  }
  Val *x = tensor(im, ops[0], false, why);
  if (!x) return NULL;
  int64_t dims[64];
  int n = ax_hlo_attr_ints(ax_hlo_attr(i, "dimensions")->value, dims, 64);
  if (n == 0) return alias(im, i, x);
  bool gone[MAXRANK] = {0};
  for (int k = 0; k < n; k++) {
    gone[dims[k]] = true;
    if (x->lay.size[x->lay.pos[dims[k]]] != x->shape->dims[dims[k]]) x = full(im, x);
  }
  const Layout *xl = &x->lay;
  Layout r = *xl;
  const char *e = x->text;
  bool summed = false;
  int axis = -1;   /* the one axis summed, for `idiom` */
  for (int d = 0, j = 0; d < x->shape->rank; d++) {
    int at = xl->pos[d];
    if (!gone[d]) {
      r.pos[j++] = at;
      continue;
    }
    if (at < xl->q - xl->real) continue;   /* a virtual axis has size 1: nothing to sum */
    axis = summed ? -2 : at - (xl->q - xl->real);
    e = ax_arena_printf(im->a, "%s(%s, axis = %d)", fn, e, at - (xl->q - xl->real));
    r.size[at] = 1;
    summed = true;
  }
  Val *v;
  if (summed) {
    v = let(im, i, e);
    if (fn[0] == 's' && axis >= 0 && is_plain(&x->lay, x->shape)) note(im, v, "sum", x->text, NULL, false, axis);
  } else {
    v = mk(im, V_TENSOR, i, i->shape);   /* x's tensor, another HLO shape: a new layout */
    v->text = x->text;
    v->computed = x->computed;
  }
  v->lay = r;
  return v;
}

static Val *h_concatenate(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  if (i->nops > MAXIN) {
    *why = ax_arena_printf(im->a, "concatenate of %d operands (programs take at most %d)", i->nops, MAXIN);
    return NULL;
  }
  int64_t d;
  ax_hlo_attr_ints(ax_hlo_attr(i, "dimensions")->value, &d, 1);
  const char *e = "concat(";
  for (int k = 0; k < i->nops; k++) {
    Val *x = tensor(im, ops[k], false, why);
    if (!x) return NULL;
    x = full(im, x);
    e = ax_arena_printf(im->a, "%s%s, ", e, x->text);
  }
  if (i->nops == 1) return alias(im, i, ops[0]);
  return let(im, i, ax_arena_printf(im->a, "%saxis = %lld)", e, (long long)d));
}

static Val *h_tuple(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  (void)why;
  Val *v = mk(im, V_TUPLE, i, i->shape);
  v->elems = ops;
  v->nelems = i->nops;
  return v;
}

static Val *h_gte(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  int64_t k;
  ax_hlo_attr_ints(ax_hlo_attr(i, "index")->value, &k, 1);
  if (ops[0]->kind != V_TUPLE) {
    *why = ax_arena_printf(im->a, "element of '%s', which the program does not compute", ops[0]->def->name);
    return NULL;
  }
  return alias(im, i, ops[0]->elems[k]);
}

static Val *inline_comp(Imp *im, const AxHloComp *c, Val **args, int nargs);

/* fusion and call: the called computation, imported in place. */
static Val *h_call(Imp *im, const AxHloInstr *i, Val **ops, const char **why) {
  const AxHloAttr *x = ax_hlo_attr(i, "calls");
  if (!x) x = ax_hlo_attr(i, "to_apply");
  const AxHloComp *c = x ? ax_hlo_comp(im->m, x->value) : NULL;
  if (!c) {
    *why = ax_arena_printf(im->a, "%s without one called computation", i->opcode);
    return NULL;
  }
  if (c->visiting) {
    ax_diag_error(im->d, x->span, "computation '%s' calls itself", c->name);
    im->failed = true;
    return NULL;
  }
  Val *r = inline_comp(im, c, ops, i->nops);
  if (!r) return NULL;
  return r->kind == V_CUT ? r : alias(im, i, r);
}

/* ORDER: any; looked up by opcode. An opcode missing here is cut. */
static const struct { const char *opcode; Handler *fn; } handlers[] = {
  {"parameter", h_parameter}, {"constant", h_constant},
  {"add", h_binary}, {"subtract", h_binary}, {"multiply", h_binary}, {"divide", h_binary},
  {"maximum", h_binary}, {"minimum", h_binary}, {"compare", h_binary},
  {"iota", h_iota}, {"select", h_select},
  {"negate", h_unary}, {"exponential", h_unary}, {"sqrt", h_unary}, {"rsqrt", h_unary},
  {"tanh", h_unary}, {"logistic", h_unary}, {"broadcast", h_broadcast}, {"reshape", h_reshape},
  {"bitcast", h_bitcast}, {"copy", h_copy}, {"convert", h_convert}, {"dot", h_dot},
  {"transpose", h_transpose}, {"slice", h_slice}, {"pad", h_pad}, {"reverse", h_reverse},
  {"abs", h_unary}, {"log", h_unary}, {"power", h_binary},
  {"sine", h_unary}, {"cosine", h_unary}, {"erf", h_unary},
  {"exponential-minus-one", h_unary}, {"log-plus-one", h_unary}, {"clamp", h_clamp},
  {"and", h_logic}, {"or", h_logic}, {"xor", h_logic}, {"not", h_logic},
  {"reduce", h_reduce}, {"concatenate", h_concatenate}, {"tuple", h_tuple},
  {"get-tuple-element", h_gte}, {"fusion", h_call}, {"call", h_call},
};

/* Whether i's result can be a value at all: arrays of program types, tuples of them. */
static const char *result_bad(Imp *im, const AxHloInstr *i) {
  static const char *const passthrough[] = {"parameter", "constant", "tuple", "get-tuple-element",
                                            "fusion", "call", "reduce", "broadcast", "reshape",
                                            "copy", "convert", "bitcast"};
  for (size_t k = 0; k < AX_COUNTOF(passthrough); k++)
    if (strcmp(passthrough[k], i->opcode) == 0) return NULL;
  /* iota and compare make index values (pred, integers), held in f32, and the logical
   * operators combine pred masks */
  bool logic = strcmp(i->opcode, "and") == 0 || strcmp(i->opcode, "or") == 0 ||
               strcmp(i->opcode, "xor") == 0 || strcmp(i->opcode, "not") == 0;
  if ((strcmp(i->opcode, "iota") == 0 || strcmp(i->opcode, "compare") == 0 ||
       (logic && i->shape->type == AX_HLO_PRED)) &&
      i->shape->type != AX_HLO_TUPLE && index_type(i->shape->type) && i->shape->rank <= MAXRANK)
    return NULL;
  const char *bad = not_tensor(im, i->shape);
  return bad ? ax_arena_printf(im->a, "its result is %s", bad) : NULL;
}

/* Imports instruction i given its operands' values. */
static Val *instr(Imp *im, const AxHloInstr *i, Val **ops) {
  Handler *fn = NULL;
  for (size_t k = 0; k < AX_COUNTOF(handlers); k++)
    if (strcmp(handlers[k].opcode, i->opcode) == 0) fn = handlers[k].fn;
  const char *why = NULL;
  Val *v = NULL;
  if (!fn) {
    const AxHloAttr *t = ax_hlo_attr(i, "custom_call_target");
    why = strcmp(i->opcode, "custom-call") == 0
              ? ax_arena_printf(im->a, "custom-call%s%s", t ? " to " : "", t ? t->value : "")
              : ax_arena_printf(im->a, "%s is not in the program vocabulary", i->opcode);
  } else if (!(why = result_bad(im, i))) {
    v = fn(im, i, ops, &why);
  }
  if (im->failed) return NULL;
  if (v) return v;
  cut(im, i, why);
  v = mk(im, V_CUT, i, i->shape);
  v->reason = why;
  return v;
}

static Val *inline_comp(Imp *im, const AxHloComp *c, Val **args, int nargs) {
  ((AxHloComp *)c)->visiting = true;
  Val **vals = ax_arena_alloc(im->a, sizeof *vals * (size_t)(c->ninstrs + 1));
  Val *root = NULL;
  for (int k = 0; k < c->ninstrs && !im->failed; k++) {
    const AxHloInstr *i = c->instrs[k];
    if (args && strcmp(i->opcode, "parameter") == 0) {
      int64_t num;
      ax_hlo_attr_ints(i->literal, &num, 1);
      if (num >= nargs) {
        ax_diag_error(im->d, i->op_span, "parameter(%lld) of '%s', which is called with %d operands",
                      (long long)num, c->name, nargs);
        im->failed = true;
        break;
      }
      vals[k] = args[num];
    } else {
      Val **ops = ax_arena_alloc(im->a, sizeof *ops * (size_t)(i->nops + 1));
      for (int o = 0; o < i->nops; o++) ops[o] = vals[i->ops[o].def->index];
      vals[k] = instr(im, i, ops);
    }
    if (i == c->root) root = vals[k];
  }
  ((AxHloComp *)c)->visiting = false;
  return im->failed ? NULL : root;
}

/* The outputs: the ROOT's value, a tuple's elements in order. `as` is the ROOT's shape (or
 * its element's): a layout other than the default there says the caller's buffer holds the
 * dims in another order, so the output is the value transposed to it (h_parameter's rule). */
static void outputs(Imp *im, Val *v, const AxHloShape *as, AxVec *out) {
  if (v->kind == V_TUPLE) {
    for (int k = 0; k < v->nelems; k++)
      outputs(im, v->elems[k], as && as->type == AX_HLO_TUPLE && k < as->nelems ? as->elems[k] : NULL, out);
    return;
  }
  bool scalar = v->kind == V_TENSOR && v->shape->rank == 0;
  if (scalar) {   /* programs have no rank 0 */
    AxHloCut *c = ax_arena_alloc(im->a, sizeof *c);
    *c = (AxHloCut){v->def->name_span, v->def->name, v->def->opcode,
                    ax_arena_printf(im->a, "the output is the scalar %s[], held as %s[1]",
                                    ax_hlo_type_name(v->shape->type), ax_hlo_type_name(v->shape->type))};
    c->at.end = v->def->span.end;
    ax_vec_push(im->a, &im->notes, c);
  }
  if (v->kind == V_TENSOR && !is_plain(&v->lay, v->shape)) v = full(im, v);   /* the ROOT's shape */
  int64_t m[MAXRANK];
  if (v->kind == V_TENSOR && as && as->type != AX_HLO_TUPLE && !ax_hlo_layout_default(as) &&
      layout_order(as, m) && as->rank == v->shape->rank) {
    int r = as->rank;
    int64_t perm[MAXRANK];
    for (int j = 0; j < r; j++) perm[j] = m[r - 1 - j];
    Val *w = mk(im, V_TENSOR, v->def, v->shape);
    w->text = fresh(im, ax_arena_printf(im->a, "%s_buffer", v->def->name));
    w->computed = true;
    ax_vec_push(im->a, &im->lets, ax_arena_printf(im->a, "  let %s = transpose(%s, %s)", w->text, v->text,
                                                  sizes_text(im, perm, r)));
    ax_vec_push(im->a, &im->let_defs, (void *)v->def);
    v = w;
  }
  if (v->kind == V_TENSOR && v->computed) {
    for (size_t k = 0; k < out->len; k++)
      if (strcmp(out->items[k], v->text) == 0) return;   /* one name, one output */
    ax_vec_push(im->a, out, (void *)v->text);
    ax_vec_push(im->a, &im->out_scalar, scalar ? (void *)v->text : NULL);
    return;
  }
  if (v->pending) cut(im, v->def, v->reason);
  if (!im->dropped)
    im->dropped = v->kind == V_CUT && v->reason
                      ? ax_arena_printf(im->a, "'%s' is cut: %s", v->def->name, v->reason)
                      : ax_arena_printf(im->a, "'%s' is an input or a constant", v->def->name);
  cut(im, v->def, v->kind == V_CUT ? "output dropped: the program does not compute it"
                                   : "output dropped: an input or a constant, not a computation");
}

/* Drops the lets nothing reads (the parts an idiom replaced), last to first: a let is
 * live when an output or a live let names it. */
static void live(Imp *im, const AxVec *outs) {
  AxHloTable *used = ax_hlo_table_new(im->a);
  for (size_t k = 0; k < outs->len; k++) ax_hlo_table_add(used, outs->items[k], 0);
  size_t n = im->lets.len, kept = n;
  bool *dead = ax_arena_alloc(im->a, n + 1);
  for (size_t k = n; k-- > 0;) {
    const char *line = im->lets.items[k] + strlen("  let ");
    const char *eq = strstr(line, " = ");
    const char *name = ax_arena_strndup(im->a, line, (size_t)(eq - line));
    if (ax_hlo_table_get(used, name) < 0) {
      dead[k] = true;
      kept--;
      continue;
    }
    for (const char *p = eq + 3; *p;) {   /* every identifier of the expression */
      if (isalpha((unsigned char)*p) || *p == '_') {
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        ax_hlo_table_add(used, ax_arena_strndup(im->a, p, (size_t)(q - p)), 0);
        p = q;
      } else if (isdigit((unsigned char)*p)) {   /* a number, its exponent included */
        while (isalnum((unsigned char)*p) || *p == '.') p++;
      } else {
        p++;
      }
    }
  }
  if (kept == n) return;
  size_t j = 0;
  for (size_t k = 0; k < n; k++)
    if (!dead[k]) {
      im->lets.items[j] = im->lets.items[k];
      im->let_defs.items[j++] = im->let_defs.items[k];
    }
  im->lets.len = im->let_defs.len = j;
}

bool ax_hlo_import(AxArena *a, AxDiag *d, const AxHloModule *m, AxHloProgram *out) {
  Imp im = {.a = a, .d = d, .m = m, .names = ax_hlo_table_new(a), .form_at = ax_hlo_table_new(a)};
  *out = (AxHloProgram){0};
  out->name = fresh(&im, m->name);
  Val *root = inline_comp(&im, m->entry, NULL, 0);
  if (!root) return false;
  AxVec outs = {0};
  outputs(&im, root, m->entry->root->shape, &outs);
  out->ncuts = (int)im.cuts.len;
  out->cuts = ax_arena_alloc(a, sizeof *out->cuts * (im.cuts.len + 1));
  for (size_t k = 0; k < im.cuts.len; k++) out->cuts[k] = *(AxHloCut *)im.cuts.items[k];
  out->nnotes = (int)im.notes.len;
  out->notes = ax_arena_alloc(a, sizeof *out->notes * (im.notes.len + 1));
  for (size_t k = 0; k < im.notes.len; k++) out->notes[k] = *(AxHloCut *)im.notes.items[k];
  if (outs.len == 0) {
    ax_diag_error(d, m->entry->root->name_span,
                  "nothing to import: the program would compute none of the module's outputs "
                  "(every one is cut or an input; %s)", im.dropped ? im.dropped : "none");
    return false;
  }
  if (im.fused) live(&im, &outs);
  out->ninputs = (int)im.inputs.len;
  out->nlets = (int)im.lets.len;
  out->let_at = ax_arena_alloc(a, sizeof *out->let_at * (im.lets.len + 1));
  for (size_t k = 0; k < im.lets.len; k++)
    out->let_at[k] = ((const AxHloInstr *)im.let_defs.items[k])->name_span;
  out->input_at = ax_arena_alloc(a, sizeof *out->input_at * (im.inputs.len + 1));
  for (size_t k = 0; k < im.inputs.len; k++)
    out->input_at[k] = ((const AxHloInstr *)im.input_defs.items[k])->name_span;
  out->noutputs = (int)outs.len;
  out->output_scalar = ax_arena_alloc(a, sizeof *out->output_scalar * (outs.len + 1));
  for (size_t k = 0; k < outs.len; k++) out->output_scalar[k] = im.out_scalar.items[k] != NULL;
  out->nscalar_inputs = (int)im.scalar_inputs.len;
  out->scalar_inputs = ax_arena_alloc(a, sizeof *out->scalar_inputs * (im.scalar_inputs.len + 1));
  for (size_t k = 0; k < im.scalar_inputs.len; k++) out->scalar_inputs[k] = im.scalar_inputs.items[k];
  size_t cap = 64 + strlen(out->name);
  for (size_t k = 0; k < im.inputs.len; k++) cap += strlen(im.inputs.items[k]) + 1;
  for (size_t k = 0; k < im.lets.len; k++) cap += strlen(im.lets.items[k]) + 1;
  for (size_t k = 0; k < outs.len; k++) cap += strlen(outs.items[k]) + 12;
  char *t = ax_arena_alloc(a, cap), *p = t;
  p += sprintf(p, "program %s {\n", out->name);
  for (size_t k = 0; k < im.inputs.len; k++) p += sprintf(p, "%s\n", (char *)im.inputs.items[k]);
  for (size_t k = 0; k < im.lets.len; k++) p += sprintf(p, "%s\n", (char *)im.lets.items[k]);
  for (size_t k = 0; k < outs.len; k++) p += sprintf(p, "  output %s\n", (char *)outs.items[k]);
  sprintf(p, "}\n");
  out->text = t;
  return true;
}

AxSpan ax_hlo_program_at(const AxHloProgram *p, int line) {
  /* the text is `program NAME {`, the inputs, the lets, the outputs: one line each */
  int k = line - 2;
  if (k >= 0 && k < p->ninputs) return p->input_at[k];
  k -= p->ninputs;
  if (k >= 0 && k < p->nlets) return p->let_at[k];
  return (AxSpan){0};
}

int ax_hlo_program_line(const AxHloProgram *p, int line) {
  AxSpan at = ax_hlo_program_at(p, line);
  int l = 0, col;
  if (at.src) ax_source_linecol(at.src, at.start, &l, &col);
  return l;
}
