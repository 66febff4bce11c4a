/* hlo.c — the HLO module IR: builders for the grammar, lookups, and the checking pass
 * that runs after the parse (names, opcodes, operand counts, shapes). */
#include <ctype.h>
#include <string.h>

#include "hlo/hlo.h"

struct AxHloBuild {
  AxArena *a;
  AxDiag *d;
  const AxSource *src;
  AxHloModule *m;
  AxHloComp *cur;
  AxVec comps, instrs;
};

/* ORDER: AxHloType. */
static const char *const etypes[] = {
  "pred", "s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64",
  "f8e4m3fn", "f8e5m2", "f16", "bf16", "f32", "f64", "c64", "c128",
  "s1", "s2", "u1", "u2", "f4e2m1fn", "f6e2m3fn", "f6e3m2fn", "f8e3m4", "f8e4m3", "f8e4m3fnuz",
  "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e8m0fnu",
  "token", "(tuple)",
};

const char *ax_hlo_type_name(AxHloType t) { return etypes[t]; }

/* Every opcode XLA prints, and how many operands it takes (-1: any number). Opcodes the
 * importer reads are checked further in check_shapes. */
static const struct { const char *name; int arity; } opcodes[] = {
  {"abs", 1}, {"add", 2}, {"add-dependency", 2}, {"after-all", -1}, {"all-gather", -1},
  {"all-gather-start", -1}, {"all-gather-done", 1}, {"all-reduce", -1},
  {"all-reduce-start", -1}, {"all-reduce-done", 1}, {"all-to-all", -1}, {"and", 2},
  {"async-start", -1}, {"async-update", 1}, {"async-done", 1}, {"atan2", 2},
  {"batch-norm-grad", 5}, {"batch-norm-inference", 5}, {"batch-norm-training", 3},
  {"bitcast", 1}, {"bitcast-convert", 1}, {"broadcast", 1}, {"call", -1}, {"cbrt", 1},
  {"ceil", 1}, {"cholesky", 1}, {"clamp", 3}, {"clz", 1}, {"collective-broadcast", -1},
  {"collective-permute", -1}, {"collective-permute-start", -1},
  {"collective-permute-done", 1}, {"compare", 2}, {"complex", 2}, {"concatenate", -1},
  {"conditional", -1}, {"constant", -1}, {"convert", 1}, {"convolution", 2}, {"copy", 1},
  {"copy-start", 1}, {"copy-done", 1}, {"cosine", 1}, {"custom-call", -1}, {"divide", 2},
  {"domain", 1}, {"dot", 2}, {"dynamic-reshape", -1}, {"dynamic-slice", -1},
  {"dynamic-update-slice", -1}, {"erf", 1}, {"exponential", 1},
  {"exponential-minus-one", 1}, {"fft", 1}, {"floor", 1}, {"fusion", -1}, {"gather", 2},
  {"get-dimension-size", 1}, {"get-tuple-element", 1}, {"imag", 1}, {"infeed", 1},
  {"iota", 0}, {"is-finite", 1}, {"log", 1}, {"log-plus-one", 1}, {"map", -1},
  {"maximum", 2}, {"minimum", 2}, {"multiply", 2}, {"negate", 1}, {"not", 1},
  {"opt-barrier", 1}, {"optimization-barrier", 1}, {"or", 2}, {"outfeed", 2}, {"pad", 2},
  {"parameter", -1}, {"partition-id", 0}, {"popcnt", 1}, {"power", 2},
  {"ragged-all-to-all", -1}, {"real", 1}, {"recv", 1}, {"recv-done", 1}, {"reduce", -1},
  {"reduce-precision", 1}, {"reduce-scatter", -1}, {"reduce-window", -1}, {"remainder", 2},
  {"replica-id", 0}, {"reshape", 1}, {"reverse", 1}, {"rng", -1}, {"rng-bit-generator", 1},
  {"rng-get-and-update-state", 0}, {"round-nearest-afz", 1}, {"round-nearest-even", 1},
  {"rsqrt", 1}, {"scatter", -1}, {"select", 3}, {"select-and-scatter", 3}, {"send", 2},
  {"send-done", 1}, {"set-dimension-size", 2}, {"shift-left", 2},
  {"shift-right-arithmetic", 2}, {"shift-right-logical", 2}, {"sign", 1}, {"sine", 1},
  {"slice", 1}, {"sort", -1}, {"sqrt", 1}, {"stochastic-convert", 2}, {"subtract", 2},
  {"tan", 1}, {"tanh", 1}, {"topk", 1}, {"transpose", 1}, {"triangular-solve", 2},
  {"tuple", -1}, {"while", 1}, {"xor", 2}, {"logistic", 1},
};

/* Element-wise operators whose operands and result have one shape (types may differ for
 * compare, convert and select's predicate). */
static const char *const elementwise[] = {
  "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "clz", "compare", "convert", "copy",
  "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag",
  "is-finite", "log", "log-plus-one", "logistic", "maximum", "minimum", "multiply", "negate",
  "not", "or", "popcnt", "power", "real", "remainder", "round-nearest-afz",
  "round-nearest-even", "rsqrt", "select", "shift-left", "shift-right-arithmetic",
  "shift-right-logical", "sign", "sine", "sqrt", "subtract", "tan", "tanh", "xor",
};

static int arity_of(const char *op) {
  for (size_t i = 0; i < AX_COUNTOF(opcodes); i++)
    if (strcmp(opcodes[i].name, op) == 0) return opcodes[i].arity;
  return -2;
}

static bool is_elementwise(const char *op) {
  for (size_t i = 0; i < AX_COUNTOF(elementwise); i++)
    if (strcmp(elementwise[i], op) == 0) return true;
  return false;
}

/* ---- builders (called by parser.y) ---- */

static AxSpan span(const AxSource *src, uint32_t start, uint32_t end) {
  return (AxSpan){src, start, end};
}

AxVec *ax_hlo_vec(AxHloBuild *b) { return ax_arena_alloc(b->a, sizeof(AxVec)); }

void ax_hlo_push(AxHloBuild *b, AxVec *v, void *item) { ax_vec_push(b->a, v, item); }

void ax_hlo_mk_dim(AxHloBuild *b, AxVec *dims, const char *size) {
  int64_t *d = ax_arena_alloc(b->a, sizeof *d);
  *d = -1;   /* dynamic */
  if (size) {
    char *end;
    long long v = strtoll(size, &end, 0);
    *d = (*end || v < 0 || v > ((int64_t)1 << 40)) ? -2 : v;   /* -2: too large */
  }
  ax_vec_push(b->a, dims, d);
}

AxHloShape *ax_hlo_mk_shape(AxHloBuild *b, const char *type, AxVec *dims, const char *layout,
                            AxSpan at) {
  AxHloShape *s = ax_arena_alloc(b->a, sizeof *s);
  s->span = at;
  s->layout = layout;
  s->type = (AxHloType)-1;
  for (size_t i = 0; i < AX_COUNTOF(etypes) - 1; i++)
    if (strcmp(etypes[i], type) == 0) s->type = (AxHloType)i;
  if ((int)s->type < 0) {
    ax_diag_error(b->d, span(at.src, at.start, at.start + (uint32_t)strlen(type)),
                  "unknown element type '%s'", type);
    s->type = AX_HLO_F32;
  }
  s->rank = (int)dims->len;
  s->dims = ax_arena_alloc(b->a, sizeof(int64_t) * (dims->len + 1));
  for (size_t i = 0; i < dims->len; i++) {
    int64_t v = *(int64_t *)dims->items[i];
    if (v == -1) s->dynamic = true;
    if (v == -2) {
      ax_diag_error(b->d, at, "dimension %zu of this shape is too large", i);
      v = 1;
    }
    s->dims[i] = v < 0 ? 1 : v;
  }
  if (s->dynamic) ax_diag_error(b->d, at, "dynamic dimensions are not supported");
  return s;
}

AxHloShape *ax_hlo_mk_tuple(AxHloBuild *b, AxVec *elems, AxSpan at) {
  AxHloShape *s = ax_arena_alloc(b->a, sizeof *s);
  s->type = AX_HLO_TUPLE;
  s->span = at;
  s->nelems = (int)elems->len;
  s->elems = (AxHloShape **)elems->items;
  return s;
}

void ax_hlo_mk_module(AxHloBuild *b, const char *name, AxVec *attrs, AxSpan at) {
  (void)at;
  b->m->name = name;
  b->m->nattrs = (int)attrs->len;
  b->m->attrs = ax_arena_alloc(b->a, sizeof *b->m->attrs * (attrs->len + 1));
  for (size_t k = 0; k < attrs->len; k++) b->m->attrs[k] = *(AxHloAttr *)attrs->items[k];
}

void ax_hlo_mk_attr(AxHloBuild *b, AxVec *into, const char *name, const char *value, AxSpan at) {
  AxHloAttr *x = ax_arena_alloc(b->a, sizeof *x);
  *x = (AxHloAttr){name, value, at};
  ax_vec_push(b->a, into, x);
}

void ax_hlo_begin_comp(AxHloBuild *b, const char *name, bool entry, AxSpan at) {
  AxHloComp *c = ax_arena_alloc(b->a, sizeof *c);
  c->name = name;
  c->entry = entry;
  c->span = at;
  b->cur = c;
  b->instrs = (AxVec){0};
  ax_vec_push(b->a, &b->comps, c);
}

void ax_hlo_end_comp(AxHloBuild *b, AxVec *attrs) {
  (void)attrs;   /* execution_thread=...: nothing the importer needs */
  AxHloComp *c = b->cur;
  c->ninstrs = (int)b->instrs.len;
  c->instrs = (AxHloInstr **)b->instrs.items;
  b->cur = NULL;
}

AxHloOperand *ax_hlo_mk_operand(AxHloBuild *b, const char *name, AxHloShape *shape, AxSpan at) {
  AxHloOperand *o = ax_arena_alloc(b->a, sizeof *o);
  o->name = name;
  o->shape = shape;
  o->span = at;
  return o;
}

void ax_hlo_mk_instr(AxHloBuild *b, bool root, const char *name, AxSpan name_at, AxHloShape *s,
                     const char *opcode, AxSpan op_at, AxVec *operands, AxSpan args_at,
                     AxVec *attrs, AxSpan at) {
  AxHloInstr *i = ax_arena_alloc(b->a, sizeof *i);
  i->root = root;
  i->name = name;
  i->name_span = name_at;
  i->shape = s;
  i->opcode = opcode;
  i->op_span = op_at;
  i->span = at;
  i->nops = (int)operands->len;
  i->ops = ax_arena_alloc(b->a, sizeof *i->ops * (operands->len + 1));
  for (size_t k = 0; k < operands->len; k++) i->ops[k] = *(AxHloOperand *)operands->items[k];
  bool literal = strcmp(opcode, "constant") == 0 || strcmp(opcode, "parameter") == 0;
  if (literal) {
    i->literal = ax_arena_strndup(b->a, b->src->text + args_at.start, args_at.end - args_at.start);
    i->nops = 0;
  }
  i->nattrs = (int)attrs->len;
  i->attrs = ax_arena_alloc(b->a, sizeof *i->attrs * (attrs->len + 1));
  for (size_t k = 0; k < attrs->len; k++) i->attrs[k] = *(AxHloAttr *)attrs->items[k];
  ax_vec_push(b->a, &b->instrs, i);
}

/* ---- lookups ---- */

const AxHloAttr *ax_hlo_attr(const AxHloInstr *i, const char *name) {
  for (int k = 0; k < i->nattrs; k++)
    if (strcmp(i->attrs[k].name, name) == 0) return &i->attrs[k];
  return NULL;
}

AxHloComp *ax_hlo_comp(const AxHloModule *m, const char *name) {
  while (*name == ' ' || *name == '%') name++;
  char buf[256];
  size_t n = strlen(name);
  while (n > 0 && name[n - 1] == ' ') n--;
  if (n >= sizeof buf) return NULL;
  memcpy(buf, name, n);
  buf[n] = 0;
  int k = m->table ? ax_hlo_table_get(m->table, buf) : -1;
  return k >= 0 ? m->comps[k] : NULL;
}

int ax_hlo_attr_ints(const char *v, int64_t *out, int max) {
  const char *p = v;
  while (*p == ' ') p++;
  bool braced = *p == '{';
  if (braced) p++;
  int n = 0;
  for (;;) {
    while (*p == ' ') p++;
    if (braced && *p == '}') { p++; break; }
    if (!braced && !*p) break;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || n >= max) return -1;
    out[n++] = x;
    p = end;
    while (*p == ' ') p++;
    if (*p == ',') p++;
    else if (braced && *p != '}') return -1;
    else if (!braced && *p) return -1;
  }
  while (*p == ' ') p++;
  return *p ? -1 : n;
}

/* An optionally signed decimal at *p, advancing it; false when there is none. */
static bool read_int(const char **p, int64_t *out) {
  char *end;
  if (!isdigit((unsigned char)**p) && **p != '-') return false;
  long long x = strtoll(*p, &end, 10);
  if (end == *p) return false;
  *out = x;
  *p = end;
  return true;
}

int ax_hlo_attr_slice(const char *v, int64_t *start, int64_t *limit, int64_t *stride, int max) {
  const char *p = v;
  while (*p == ' ') p++;
  if (*p++ != '{') return -1;
  int n = 0;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == '}' && n == 0) { p++; break; }
    if (*p++ != '[' || n >= max) return -1;
    stride[n] = 1;
    if (!read_int(&p, &start[n]) || *p++ != ':' || !read_int(&p, &limit[n])) return -1;
    if (*p == ':' && (p++, !read_int(&p, &stride[n]))) return -1;
    if (*p++ != ']') return -1;
    n++;
    while (*p == ' ') p++;
    if (*p == ',') { p++; continue; }
    if (*p++ != '}') return -1;
    break;
  }
  while (*p == ' ') p++;
  return *p ? -1 : n;
}

int ax_hlo_attr_padding(const char *v, int64_t *low, int64_t *high, int64_t *interior, int max) {
  const char *p = v;
  while (*p == ' ') p++;
  int n = 0;
  for (;;) {
    if (n >= max) return -1;
    interior[n] = 0;
    if (!read_int(&p, &low[n]) || *p++ != '_' || !read_int(&p, &high[n])) return -1;
    if (*p == '_' && (p++, !read_int(&p, &interior[n]))) return -1;
    n++;
    if (*p != 'x') break;
    p++;
  }
  while (*p == ' ') p++;
  return *p ? -1 : n;
}

bool ax_hlo_layout_default(const AxHloShape *s) {
  if (!s->layout) return true;
  int64_t l[64];
  char buf[256];
  size_t n = strcspn(s->layout, ":");
  if (n >= sizeof buf - 2) return false;
  snprintf(buf, sizeof buf, "{%.*s}", (int)n, s->layout);
  int k = ax_hlo_attr_ints(buf, l, 64);
  if (k != s->rank) return k == 0 && s->rank == 0;
  for (int i = 0; i < k; i++)
    if (l[i] != s->rank - 1 - i) return false;
  return true;
}

int64_t ax_hlo_numel(const AxHloShape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] != 0 && n > INT64_MAX / 2 / s->dims[i]) return INT64_MAX / 2;
    n *= s->dims[i];
  }
  return n;
}

/* ---- name tables: open addressing, grown at half load ---- */

struct AxHloTable {
  AxArena *a;
  const char **keys;
  int *vals;
  size_t n, cap;
};

static size_t hash(const char *s) {
  size_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

AxHloTable *ax_hlo_table_new(AxArena *a) {
  AxHloTable *t = ax_arena_alloc(a, sizeof *t);
  t->a = a;
  t->cap = 16;
  t->keys = ax_arena_alloc(a, sizeof *t->keys * t->cap);
  t->vals = ax_arena_alloc(a, sizeof *t->vals * t->cap);
  return t;
}

static size_t probe(const AxHloTable *t, const char *name) {
  size_t i = hash(name) & (t->cap - 1);
  while (t->keys[i] && strcmp(t->keys[i], name) != 0) i = (i + 1) & (t->cap - 1);
  return i;
}

int ax_hlo_table_get(const AxHloTable *t, const char *name) {
  size_t i = probe(t, name);
  return t->keys[i] ? t->vals[i] : -1;
}

bool ax_hlo_table_add(AxHloTable *t, const char *name, int value) {
  if (t->keys[probe(t, name)]) return false;
  if (2 * (t->n + 1) > t->cap) {
    AxHloTable old = *t;
    t->cap *= 2;
    t->keys = ax_arena_alloc(t->a, sizeof *t->keys * t->cap);
    t->vals = ax_arena_alloc(t->a, sizeof *t->vals * t->cap);
    for (size_t k = 0; k < old.cap; k++)
      if (old.keys[k]) {
        size_t i = probe(t, old.keys[k]);
        t->keys[i] = old.keys[k];
        t->vals[i] = old.vals[k];
      }
  }
  size_t i = probe(t, name);
  t->keys[i] = name;
  t->vals[i] = value;
  t->n++;
  return true;
}

/* ---- the checking pass ---- */

static bool same_dims(const AxHloShape *a, const AxHloShape *b) {
  if (a->type == AX_HLO_TUPLE || b->type == AX_HLO_TUPLE) {
    if (a->type != b->type || a->nelems != b->nelems) return false;
    for (int i = 0; i < a->nelems; i++)
      if (!same_dims(a->elems[i], b->elems[i]) || a->elems[i]->type != b->elems[i]->type)
        return false;
    return true;
  }
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static bool same_shape(const AxHloShape *a, const AxHloShape *b) {
  return a->type == b->type && same_dims(a, b);
}

/* "f32[2,3]" or "(f32[2], s32[])" into an arena string. */
static const char *shape_text(AxArena *a, const AxHloShape *s) {
  if (s->type == AX_HLO_TUPLE) {
    const char *t = "(";
    for (int i = 0; i < s->nelems; i++)
      t = ax_arena_printf(a, "%s%s%s", t, i ? ", " : "", shape_text(a, s->elems[i]));
    return ax_arena_printf(a, "%s)", t);
  }
  const char *t = ax_arena_printf(a, "%s[", etypes[s->type]);
  for (int i = 0; i < s->rank; i++)
    t = ax_arena_printf(a, "%s%s%lld", t, i ? "," : "", (long long)s->dims[i]);
  return ax_arena_printf(a, "%s]", t);
}

typedef struct Chk {
  AxArena *a;
  AxDiag *d;
  const AxHloModule *m;
} Chk;

#define BAD(c, at, ...) ax_diag_error((c)->d, (at), __VA_ARGS__)

static bool is_op(const AxHloInstr *i, const char *name) { return strcmp(i->opcode, name) == 0; }

/* Bits of one element of type t (XLA's: pred is a byte), 0 when it has none (a token, a
 * tuple). ORDER: AxHloType. */
static int type_bits(AxHloType t) {
  switch (t) {
  case AX_HLO_S1: case AX_HLO_U1: return 1;
  case AX_HLO_S2: case AX_HLO_U2: return 2;
  case AX_HLO_S4: case AX_HLO_U4: case AX_HLO_F4E2M1FN: return 4;
  case AX_HLO_F6E2M3FN: case AX_HLO_F6E3M2FN: return 6;
  case AX_HLO_PRED: case AX_HLO_S8: case AX_HLO_U8: case AX_HLO_F8E4M3FN: case AX_HLO_F8E5M2:
  case AX_HLO_F8E3M4: case AX_HLO_F8E4M3: case AX_HLO_F8E4M3FNUZ: case AX_HLO_F8E4M3B11FNUZ:
  case AX_HLO_F8E5M2FNUZ: case AX_HLO_F8E8M0FNU: return 8;
  case AX_HLO_S16: case AX_HLO_U16: case AX_HLO_F16: case AX_HLO_BF16: return 16;
  case AX_HLO_S32: case AX_HLO_U32: case AX_HLO_F32: return 32;
  case AX_HLO_S64: case AX_HLO_U64: case AX_HLO_F64: case AX_HLO_C64: return 64;
  case AX_HLO_C128: return 128;
  case AX_HLO_TOKEN: case AX_HLO_TUPLE: return 0;
  }
  return 0;
}

/* Whether the element count of s (or of a tuple element) does not fit in 2^62 — beyond it
 * the products of counts and bits above overflow, and no machine holds the array: an error
 * of the file, reported at the shape. */
static bool huge(const AxHloShape *s) {
  if (s->type == AX_HLO_TUPLE) {
    for (int k = 0; k < s->nelems; k++)
      if (huge(s->elems[k])) return true;
    return false;
  }
  int64_t n = 1;
  for (int k = 0; k < s->rank; k++) {
    if (s->dims[k] != 0 && n > ((int64_t)1 << 62) / s->dims[k]) return true;
    n *= s->dims[k];
  }
  return false;
}

/* The values a constant's literal writes (the numbers and words between its braces and
 * commas; a complex element, `(re, im)`, counts once); -1 for elided data `{...}`. */
static int64_t literal_count(const char *lit) {
  if (strstr(lit, "...")) return -1;
  int64_t n = 0;
  int paren = 0;
  bool in = false;
  for (const char *p = lit; *p; p++) {
    bool sep = *p == '{' || *p == '}' || *p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
    if (*p == '(') paren++;
    if (*p == ')') paren--;
    if (paren > 0 || *p == ')') sep = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ')';
    if (!sep && !in && paren <= 1) n++, in = true;
    if (sep && paren == 0) in = false;
    if (*p == ')' && paren == 0) in = false;
  }
  return n;
}

/* The shape rules of the operators the importer reads; a mismatch is an error in the file,
 * reported at the instruction's opcode. */
static void check_shapes(Chk *c, AxHloInstr *i) {
  const AxHloShape *s = i->shape;
  AxSpan at = i->op_span;
  const char *st = NULL;
  if (is_elementwise(i->opcode)) {
    for (int k = 0; k < i->nops; k++) {
      const AxHloShape *o = i->ops[k].def->shape;
      bool scalar_pred = o->rank == 0 && ((is_op(i, "select") && k == 0) || (is_op(i, "clamp") && k != 1));
      if (!scalar_pred && !same_dims(o, s)) {
        st = shape_text(c->a, o);
        BAD(c, i->ops[k].span, "%s: operand %d has shape %s, the result %s", i->opcode, k, st,
            shape_text(c->a, s));
        return;
      }
      bool typed = !is_op(i, "compare") && !is_op(i, "convert") && !is_op(i, "is-finite") &&
                   !is_op(i, "real") && !is_op(i, "imag") && !(is_op(i, "select") && k == 0);
      if (typed && o->type != s->type) {
        BAD(c, i->ops[k].span, "%s: operand %d has element type %s, the result %s", i->opcode, k,
            etypes[o->type], etypes[s->type]);
        return;
      }
    }
    return;
  }
  if (is_op(i, "broadcast")) {
    const AxHloShape *o = i->ops[0].def->shape;
    const AxHloAttr *x = ax_hlo_attr(i, "dimensions");
    if (!x && o->rank == 0) {
      /* XLA's parser lets a scalar's broadcast leave dimensions= out; the IR holds the
       * `dimensions={}` its printer writes, so readers find one form (mk_instr left room
       * for one more attribute). */
      i->attrs[i->nattrs++] = (AxHloAttr){"dimensions", "{}", i->op_span};
      x = &i->attrs[i->nattrs - 1];
    }
    int64_t dims[64];
    int n = x ? ax_hlo_attr_ints(x->value, dims, 64) : -1;
    if (n != o->rank || o->type != s->type || s->type == AX_HLO_TUPLE) {
      BAD(c, x ? x->span : at, "broadcast: dimensions= must list one result dimension per operand dimension");
      return;
    }
    for (int k = 0; k < n; k++)
      if (dims[k] < 0 || dims[k] >= s->rank || s->dims[dims[k]] != o->dims[k]) {
        BAD(c, x->span, "broadcast: operand dimension %d (size %lld) does not match the result's", k,
            (long long)o->dims[k]);
        return;
      }
    return;
  }
  if (is_op(i, "transpose")) {   /* result dim k is operand dim dimensions[k] */
    const AxHloShape *o = i->ops[0].def->shape;
    const AxHloAttr *x = ax_hlo_attr(i, "dimensions");
    int64_t dims[64];
    int n = x ? ax_hlo_attr_ints(x->value, dims, 64) : -1;
    if (o->type == AX_HLO_TUPLE || s->type == AX_HLO_TUPLE || o->type != s->type ||
        s->rank != o->rank) {
      BAD(c, at, "transpose: %s cannot become %s", shape_text(c->a, o), shape_text(c->a, s));
      return;
    }
    bool seen[64] = {0}, ok = n == o->rank;
    for (int k = 0; ok && k < n; k++) {
      ok = dims[k] >= 0 && dims[k] < o->rank && !seen[dims[k]];
      if (ok) seen[dims[k]] = true;
    }
    if (!ok) {
      BAD(c, x ? x->span : at, "transpose: dimensions= must be a permutation of the operand's %d dimensions",
          o->rank);
      return;
    }
    for (int k = 0; k < n; k++)
      if (s->dims[k] != o->dims[dims[k]]) {
        BAD(c, x->span, "transpose: result dimension %d (size %lld) is not operand dimension %lld (size %lld)",
            k, (long long)s->dims[k], (long long)dims[k], (long long)o->dims[dims[k]]);
        return;
      }
    return;
  }
  if (is_op(i, "slice")) {   /* HLO's slice: 0 <= start <= limit <= n, stride >= 1 */
    const AxHloShape *o = i->ops[0].def->shape;
    const AxHloAttr *x = ax_hlo_attr(i, "slice");
    int64_t lo[64], hi[64], sp[64];
    int n = x ? ax_hlo_attr_slice(x->value, lo, hi, sp, 64) : -1;
    if (o->type == AX_HLO_TUPLE || s->type != o->type || s->rank != o->rank || n != o->rank) {
      BAD(c, x ? x->span : at, "slice: needs slice={[start:limit:stride], ...}, one per dimension of %s",
          shape_text(c->a, o));
      return;
    }
    for (int k = 0; k < n; k++) {
      if (lo[k] < 0 || lo[k] > hi[k] || hi[k] > o->dims[k] || sp[k] < 1) {
        BAD(c, x->span, "slice: [%lld:%lld:%lld] is not within dimension %d of %s", (long long)lo[k],
            (long long)hi[k], (long long)sp[k], k, shape_text(c->a, o));
        return;
      }
      if (s->dims[k] != (hi[k] - lo[k] + sp[k] - 1) / sp[k]) {
        BAD(c, x->span, "slice: dimension %d takes %lld elements, the result has %lld", k,
            (long long)((hi[k] - lo[k] + sp[k] - 1) / sp[k]), (long long)s->dims[k]);
        return;
      }
    }
    return;
  }
  if (is_op(i, "pad")) {   /* out = low + n + (n-1)·interior + high per dim, interior >= 0 */
    const AxHloShape *o = i->ops[0].def->shape, *pv = i->nops > 1 ? i->ops[1].def->shape : NULL;
    const AxHloAttr *x = ax_hlo_attr(i, "padding");
    int64_t lo[64], hi[64], in[64];
    int n = x ? ax_hlo_attr_padding(x->value, lo, hi, in, 64) : -1;
    if (!pv || o->type == AX_HLO_TUPLE || pv->type != o->type || pv->rank != 0 || s->type != o->type) {
      BAD(c, at, "pad: needs an operand and a scalar padding value of its element type");
      return;
    }
    if (s->rank != o->rank || n != o->rank) {
      BAD(c, x ? x->span : at, "pad: needs padding=low_high_interior for each of the %d dimensions of %s",
          o->rank, shape_text(c->a, o));
      return;
    }
    for (int k = 0; k < n; k++) {
      int64_t want = lo[k] + o->dims[k] + (o->dims[k] > 0 ? o->dims[k] - 1 : 0) * in[k] + hi[k];
      if (in[k] < 0 || want != s->dims[k]) {
        BAD(c, x->span, "pad: dimension %d padded %lld_%lld_%lld gives %lld elements, the result has %lld", k,
            (long long)lo[k], (long long)hi[k], (long long)in[k], (long long)want, (long long)s->dims[k]);
        return;
      }
    }
    return;
  }
  if (is_op(i, "reverse")) {   /* the listed dims, each once, of the operand's shape */
    const AxHloShape *o = i->ops[0].def->shape;
    const AxHloAttr *x = ax_hlo_attr(i, "dimensions");
    int64_t dims[64];
    int n = x ? ax_hlo_attr_ints(x->value, dims, 64) : -1;
    if (o->type == AX_HLO_TUPLE || !same_shape(o, s) || n < 0) {
      BAD(c, x ? x->span : at, "reverse: needs dimensions={...} and a result of the operand's shape %s",
          shape_text(c->a, o));
      return;
    }
    bool seen[64] = {0};
    for (int k = 0; k < n; k++) {
      if (dims[k] < 0 || dims[k] >= o->rank || seen[dims[k]]) {
        BAD(c, x->span, "reverse: dimension %lld is not a dimension of %s or is listed twice",
            (long long)dims[k], shape_text(c->a, o));
        return;
      }
      seen[dims[k]] = true;
    }
    return;
  }
  if (is_op(i, "reshape") || is_op(i, "bitcast")) {
    const AxHloShape *o = i->ops[0].def->shape;
    if (s->type == AX_HLO_TUPLE || o->type == AX_HLO_TUPLE ||
        (is_op(i, "reshape") && (ax_hlo_numel(o) != ax_hlo_numel(s) || o->type != s->type))) {
      BAD(c, at, "%s: %s cannot become %s", i->opcode, shape_text(c->a, o), shape_text(c->a, s));
      return;
    }
    /* a bitcast reinterprets the bytes: as many on both sides (XLA's verifier), so one type
     * keeps the element count */
    int bo = type_bits(o->type), bs = type_bits(s->type);
    if (is_op(i, "bitcast") && bo > 0 && bs > 0 && ax_hlo_numel(o) * bo != ax_hlo_numel(s) * bs) {
      if (o->type == s->type)
        BAD(c, at, "bitcast: %s has %lld elements and %s %lld: a bitcast keeps the element count of its type",
            shape_text(c->a, o), (long long)ax_hlo_numel(o), shape_text(c->a, s), (long long)ax_hlo_numel(s));
      else
        BAD(c, at, "bitcast: %s is %lld bits and %s %lld: a bitcast keeps the bytes", shape_text(c->a, o),
            (long long)(ax_hlo_numel(o) * bo), shape_text(c->a, s), (long long)(ax_hlo_numel(s) * bs));
    }
    return;
  }
  if (is_op(i, "iota")) {
    const AxHloAttr *x = ax_hlo_attr(i, "iota_dimension");
    int64_t d;
    if (s->type == AX_HLO_TUPLE || s->rank == 0) {
      BAD(c, at, "iota: the result %s has no dimension to count along", shape_text(c->a, s));
    } else if (!x || ax_hlo_attr_ints(x->value, &d, 1) != 1) {
      BAD(c, x ? x->span : at, "iota: needs iota_dimension=D, a dimension of %s", shape_text(c->a, s));
    } else if (d < 0 || d >= s->rank) {
      BAD(c, x->span, "iota: iota_dimension=%lld is not a dimension of %s (0 to %d)", (long long)d,
          shape_text(c->a, s), s->rank - 1);
    }
    return;
  }
  if (is_op(i, "get-tuple-element")) {
    const AxHloShape *o = i->ops[0].def->shape;
    const AxHloAttr *x = ax_hlo_attr(i, "index");
    int64_t k;
    if (!x || ax_hlo_attr_ints(x->value, &k, 1) != 1 || o->type != AX_HLO_TUPLE || k < 0) {
      BAD(c, x ? x->span : at, "get-tuple-element: needs index=K of a tuple operand");
      return;
    }
    if (k >= o->nelems) {
      BAD(c, x->span, "get-tuple-element: index=%lld is past the tuple %s, whose elements are 0 to %d", (long long)k,
          shape_text(c->a, o), o->nelems - 1);
      return;
    }
    if (!same_shape(o->elems[k], s))
      BAD(c, at, "get-tuple-element: element %lld is %s, not %s", (long long)k,
          shape_text(c->a, o->elems[k]), shape_text(c->a, s));
    return;
  }
  if (is_op(i, "tuple")) {
    bool ok = s->type == AX_HLO_TUPLE && s->nelems == i->nops;
    for (int k = 0; ok && k < i->nops; k++) ok = same_shape(s->elems[k], i->ops[k].def->shape);
    if (!ok) BAD(c, at, "tuple: the result shape %s does not match the operands", shape_text(c->a, s));
    return;
  }
  if (is_op(i, "dot")) {
    const AxHloShape *l = i->ops[0].def->shape, *r = i->ops[1].def->shape;
    int64_t lb[64], lc[64], rb[64], rc[64];
    const AxHloAttr *x;
    int nlb = (x = ax_hlo_attr(i, "lhs_batch_dims")) ? ax_hlo_attr_ints(x->value, lb, 64) : 0;
    int nlc = (x = ax_hlo_attr(i, "lhs_contracting_dims")) ? ax_hlo_attr_ints(x->value, lc, 64) : 0;
    int nrb = (x = ax_hlo_attr(i, "rhs_batch_dims")) ? ax_hlo_attr_ints(x->value, rb, 64) : 0;
    int nrc = (x = ax_hlo_attr(i, "rhs_contracting_dims")) ? ax_hlo_attr_ints(x->value, rc, 64) : 0;
    bool ok = nlb >= 0 && nlc >= 0 && nrb == nlb && nrc == nlc && l->type != AX_HLO_TUPLE &&
              r->type != AX_HLO_TUPLE && s->type != AX_HLO_TUPLE;
    for (int k = 0; ok && k < nlb; k++)
      ok = lb[k] >= 0 && lb[k] < l->rank && rb[k] >= 0 && rb[k] < r->rank && l->dims[lb[k]] == r->dims[rb[k]];
    for (int k = 0; ok && k < nlc; k++)
      ok = lc[k] >= 0 && lc[k] < l->rank && rc[k] >= 0 && rc[k] < r->rank && l->dims[lc[k]] == r->dims[rc[k]];
    if (ok) ok = s->rank == l->rank + r->rank - nlb - 2 * nlc && l->rank <= 64 && r->rank <= 64;
    /* each dim batch or contracted once at most; the result is XLA's: batch dims, then the
     * lhs's free dims, then the rhs's, each in order */
    bool lused[64] = {0}, rused[64] = {0};
    for (int k = 0; ok && k < nlb + nlc; k++) {
      int64_t dl = k < nlb ? lb[k] : lc[k - nlb], dr = k < nlb ? rb[k] : rc[k - nlb];
      ok = !lused[dl] && !rused[dr];
      lused[dl] = rused[dr] = true;
    }
    for (int k = 0; ok && k < nlb; k++) ok = s->dims[k] == l->dims[lb[k]];
    for (int k = 0, j = nlb; ok && k < l->rank + r->rank; k++) {
      bool left = k < l->rank;
      int d = left ? k : k - l->rank;
      if (left ? lused[d] : rused[d]) continue;
      ok = s->dims[j++] == (left ? l->dims[d] : r->dims[d]);
    }
    if (!ok)
      BAD(c, at, "dot: %s and %s do not give %s with these batch and contracting dimensions",
          shape_text(c->a, l), shape_text(c->a, r), shape_text(c->a, s));
    return;
  }
  if (is_op(i, "concatenate")) {
    const AxHloAttr *x = ax_hlo_attr(i, "dimensions");
    int64_t d;
    bool ok = x && ax_hlo_attr_ints(x->value, &d, 1) == 1 && d >= 0 && d < s->rank && i->nops > 0;
    int64_t total = 0;
    for (int k = 0; ok && k < i->nops; k++) {
      const AxHloShape *o = i->ops[k].def->shape;
      ok = o->rank == s->rank && o->type == s->type;
      for (int j = 0; ok && j < s->rank; j++) ok = j == d || o->dims[j] == s->dims[j];
      if (ok) total += o->dims[d];
    }
    if (!ok || total != s->dims[d])
      BAD(c, x ? x->span : at, "concatenate: the operands do not concatenate to %s", shape_text(c->a, s));
    return;
  }
  if (is_op(i, "reduce")) {
    if (i->nops % 2 || i->nops == 0) {
      BAD(c, at, "reduce: needs operands and as many init values");
      return;
    }
    const AxHloAttr *x = ax_hlo_attr(i, "dimensions");
    int64_t dims[64];
    int n = x ? ax_hlo_attr_ints(x->value, dims, 64) : -1;
    const AxHloShape *o = i->ops[0].def->shape;
    bool ok = n >= 0 && o->type != AX_HLO_TUPLE;
    if (ok && i->nops == 2) {   /* one operand: the result is the operand without dims */
      ok = s->type != AX_HLO_TUPLE && s->rank == o->rank - n;
      int j = 0;
      for (int k = 0; ok && k < o->rank; k++) {
        bool gone = false;
        for (int q = 0; q < n; q++) gone |= dims[q] == k;
        if (!gone) ok = j < s->rank && s->dims[j++] == o->dims[k];
      }
      for (int q = 0; ok && q < n; q++) ok = dims[q] >= 0 && dims[q] < o->rank;
      if (ok) ok = i->ops[1].def->shape->type != AX_HLO_TUPLE && i->ops[1].def->shape->rank == 0;
    }
    if (!ok) BAD(c, x ? x->span : at, "reduce: the result shape %s does not match the operand %s",
                 shape_text(c->a, s), shape_text(c->a, o));
    return;
  }
  if (is_op(i, "parameter")) {
    int64_t k;
    if (ax_hlo_attr_ints(i->literal, &k, 1) != 1 || k < 0)
      BAD(c, at, "parameter: needs its number, parameter(N)");
  }
}

/* The computations an instruction calls must exist. */
static void check_calls(Chk *c, const AxHloInstr *i) {
  static const char *const callers[] = {"calls", "to_apply", "condition", "body"};
  for (size_t k = 0; k < AX_COUNTOF(callers); k++) {
    const AxHloAttr *x = ax_hlo_attr(i, callers[k]);
    if (!x) continue;
    if (strchr(x->value, '{') || strchr(x->value, ',')) continue;   /* a list: async ops */
    if (!ax_hlo_comp(c->m, x->value))
      BAD(c, x->span, "%s: no computation named '%s'", i->opcode, x->value);
  }
}

static void check_comp(Chk *c, AxHloComp *comp) {
  if (comp->ninstrs == 0) {
    BAD(c, comp->span, "computation '%s' has no instructions", comp->name);
    return;
  }
  AxHloTable *names = ax_hlo_table_new(c->a);
  for (int k = 0; k < comp->ninstrs; k++) {
    comp->instrs[k]->index = k;
    if (!ax_hlo_table_add(names, comp->instrs[k]->name, k))
      BAD(c, comp->instrs[k]->name_span, "'%s' is already defined in computation '%s'",
          comp->instrs[k]->name, comp->name);
  }
  for (int k = 0; k < comp->ninstrs; k++) {
    AxHloInstr *i = comp->instrs[k];
    if (i->root) {
      if (comp->root) BAD(c, i->name_span, "computation '%s' has a second ROOT", comp->name);
      else comp->root = i;
    }
    int arity = arity_of(i->opcode);
    if (arity == -2) {
      BAD(c, i->op_span, "unknown opcode '%s'", i->opcode);
      continue;
    }
    if (arity >= 0 && i->nops != arity) {
      BAD(c, i->op_span, "%s takes %d operand%s, not %d", i->opcode, arity, arity == 1 ? "" : "s",
          i->nops);
      continue;
    }
    bool ok = true;
    for (int o = 0; o < i->nops; o++) {
      AxHloOperand *op = &i->ops[o];
      if (!op->name) {
        BAD(c, op->span, "%s: an operand must name an instruction", i->opcode);
        ok = false;
        continue;
      }
      int j = ax_hlo_table_get(names, op->name);
      if (j >= 0 && j < k) op->def = comp->instrs[j];
      if (!op->def) {
        if (j >= k)
          BAD(c, op->span, "'%s' is used before its definition", op->name);
        else
          BAD(c, op->span, "unknown instruction '%s' in computation '%s'", op->name, comp->name);
        ok = false;
      } else if (op->shape && !same_shape(op->shape, op->def->shape)) {
        BAD(c, op->span, "operand '%s' is written as %s but is %s", op->name,
            shape_text(c->a, op->shape), shape_text(c->a, op->def->shape));
        ok = false;
      }
    }
    bool after_huge = false;   /* an operand's shape was reported already: no cascade */
    for (int o = 0; ok && o < i->nops; o++) after_huge |= i->ops[o].def && huge(i->ops[o].def->shape);
    if (huge(i->shape) && !after_huge) {
      BAD(c, i->shape->span, "'%s': the shape %s has more than 2^62 elements", i->name, shape_text(c->a, i->shape));
      ok = false;
    }
    if (after_huge) ok = false;
    if (ok && is_op(i, "constant") && i->literal && i->shape->type != AX_HLO_TUPLE) {
      int64_t want = ax_hlo_numel(i->shape), got = literal_count(i->literal);
      if (got >= 0 && got != want)
        BAD(c, i->op_span, "constant: %s has %lld element%s, its literal %lld", shape_text(c->a, i->shape),
            (long long)want, want == 1 ? "" : "s", (long long)got);
    }
    if (ok && !i->literal && !is_op(i, "constant") && !is_op(i, "parameter")) check_shapes(c, i);
    if (ok && is_op(i, "parameter")) check_shapes(c, i);
    check_calls(c, i);
  }
  if (!comp->root) comp->root = comp->instrs[comp->ninstrs - 1];
}

/* A computation's parameters are numbered 0, 1, ... once each (XLA's verifier requires it),
 * and a fusion or call passes each parameter of its computation an operand of the
 * parameter's shape: the importer puts the operand in the parameter's place, so a mismatch
 * found only there would be reported in the imported program, not in this file. */
static void check_params(Chk *c, const AxHloComp *comp) {
  int nparams = 0;
  for (int k = 0; k < comp->ninstrs; k++) nparams += is_op(comp->instrs[k], "parameter");
  char *seen = ax_arena_alloc(c->a, (size_t)nparams + 1);
  memset(seen, 0, (size_t)nparams + 1);
  for (int k = 0; k < comp->ninstrs; k++) {
    const AxHloInstr *i = comp->instrs[k];
    int64_t num;
    if (!is_op(i, "parameter") || ax_hlo_attr_ints(i->literal, &num, 1) != 1 || num < 0) continue;
    if (num >= nparams)
      BAD(c, i->op_span, "parameter(%lld): computation '%s' has %d parameter%s, numbered from 0",
          (long long)num, comp->name, nparams, nparams == 1 ? "" : "s");
    else if (seen[num]++)
      BAD(c, i->op_span, "parameter(%lld) appears twice in computation '%s'", (long long)num,
          comp->name);
  }
}

static void check_call_operands(Chk *c, const AxHloInstr *i) {
  const AxHloAttr *x = (is_op(i, "fusion") || is_op(i, "call"))
                           ? (ax_hlo_attr(i, "calls") ? ax_hlo_attr(i, "calls") : ax_hlo_attr(i, "to_apply"))
                           : NULL;
  const AxHloComp *callee = x ? ax_hlo_comp(c->m, x->value) : NULL;
  if (!callee) return;
  for (int k = 0; k < callee->ninstrs; k++) {
    const AxHloInstr *p = callee->instrs[k];
    int64_t num;
    if (!is_op(p, "parameter") || ax_hlo_attr_ints(p->literal, &num, 1) != 1 || num < 0) continue;
    if (num >= i->nops) {
      BAD(c, i->op_span, "%s: '%s' has parameter(%lld), but %d operand%s passed", i->opcode,
          callee->name, (long long)num, i->nops, i->nops == 1 ? " is" : "s are");
      return;
    }
    const AxHloShape *o = i->ops[num].def->shape;
    if (!same_shape(o, p->shape)) {
      const char *os = shape_text(c->a, o);
      BAD(c, i->ops[num].span, "%s: operand %lld is %s, but parameter(%lld) of '%s' is %s", i->opcode,
          (long long)num, os, (long long)num, callee->name, shape_text(c->a, p->shape));
      return;
    }
  }
}

/* The importer imports a fusion's or a call's computation in place, recursively, once per
 * call site. Two shapes of module would make that fail badly rather than with a message: a
 * chain of calls thousands deep (the recursion overflows the stack) and computations that
 * each call the one below twice (the inlined program doubles per level: 60 levels are 2^60
 * instructions). Both are bounded here, before any import, by the nesting of fusion and
 * call from the entry and by the instructions the entry counts with every call inlined.
 * Real modules stay far below both: JAX nests calls a few levels, and a fusion is called
 * once. A computation reached again while it is being visited (a cycle) adds nothing here:
 * the importer reports it ("calls itself"). */
enum { MAX_CALL_DEPTH = 200 };
static const int64_t MAX_INLINED = 1000000;

static const AxHloAttr *callee_attr(const AxHloInstr *i) {
  if (!is_op(i, "fusion") && !is_op(i, "call")) return NULL;
  const AxHloAttr *x = ax_hlo_attr(i, "calls");
  return x ? x : ax_hlo_attr(i, "to_apply");
}

static void check_inlining(Chk *c) {
  const AxHloModule *m = c->m;
  int n = m->ncomps;
  char *state = ax_arena_alloc(c->a, (size_t)n);          /* 0 new, 1 on the path, 2 done */
  int64_t *size = ax_arena_alloc(c->a, sizeof *size * (size_t)n);
  int *height = ax_arena_alloc(c->a, sizeof *height * (size_t)n);   /* calls nested below */
  struct Frame { const AxHloComp *comp; int at; int64_t size; int height; } *path;
  path = ax_arena_alloc(c->a, sizeof *path * (MAX_CALL_DEPTH + 1));
  int top = 0, e = ax_hlo_table_get(m->table, m->entry->name);
  memset(state, 0, (size_t)n);
  path[0] = (struct Frame){m->entry, 0, m->entry->ninstrs, 0};
  state[e] = 1;
  while (top >= 0) {   /* depth first, the path on an explicit stack */
    struct Frame *f = &path[top];
    if (f->at == f->comp->ninstrs) {   /* every call of f->comp is counted */
      int k = ax_hlo_table_get(m->table, f->comp->name);
      size[k] = f->size;
      height[k] = f->height;
      state[k] = 2;
      if (--top >= 0) {
        if (f->height + 1 > path[top].height) path[top].height = f->height + 1;
        path[top].size += f->size;
        if (path[top].size > MAX_INLINED) {
          const AxHloAttr *x = callee_attr(path[top].comp->instrs[path[top].at - 1]);
          BAD(c, x->span, "computation '%s' imports to more than %lld instructions with its fusions "
              "and calls inlined", path[top].comp->name, (long long)MAX_INLINED);
          return;
        }
      }
      continue;
    }
    const AxHloAttr *x = callee_attr(f->comp->instrs[f->at++]);
    const AxHloComp *callee = x ? ax_hlo_comp(m, x->value) : NULL;
    if (!callee) continue;
    int k = ax_hlo_table_get(m->table, callee->name);
    if (state[k] == 1) continue;
    if (state[k] == 2) {   /* counted already: its size and height, not its calls again */
      if (top + 1 + height[k] > MAX_CALL_DEPTH) {
        BAD(c, x->span, "fusions and calls nested too deeply (at most %d levels)", MAX_CALL_DEPTH);
        return;
      }
      if (height[k] + 1 > f->height) f->height = height[k] + 1;
      f->size += size[k];
      if (f->size > MAX_INLINED) {
        BAD(c, x->span, "computation '%s' imports to more than %lld instructions with its fusions "
            "and calls inlined", f->comp->name, (long long)MAX_INLINED);
        return;
      }
      continue;
    }
    if (top == MAX_CALL_DEPTH) {
      BAD(c, x->span, "fusions and calls nested too deeply (at most %d levels)", MAX_CALL_DEPTH);
      return;
    }
    state[k] = 1;
    path[++top] = (struct Frame){callee, 0, callee->ninstrs, 0};
  }
}

AxHloModule *ax_hlo_parse(AxArena *a, AxDiag *d, const AxSource *src) {
  AxHloModule *m = ax_arena_alloc(a, sizeof *m);
  m->src = src;
  AxHloBuild b = {.a = a, .d = d, .src = src, .m = m};
  int before = d->errors;
  if (!ax_hlo_syntax(&b, a, d, src) || d->errors > before) return NULL;
  m->ncomps = (int)b.comps.len;
  m->comps = (AxHloComp **)b.comps.items;
  Chk c = {a, d, m};
  m->table = ax_hlo_table_new(a);
  for (int k = 0; k < m->ncomps; k++) {   /* all names first: a callee may come later */
    AxHloComp *comp = m->comps[k];
    if (!ax_hlo_table_add(m->table, comp->name, k))
      BAD(&c, comp->span, "computation '%s' is already defined", comp->name);
    if (comp->entry) {
      if (m->entry) BAD(&c, comp->span, "a second ENTRY computation ('%s')", comp->name);
      else m->entry = comp;
    }
  }
  /* XLA's parser takes the last computation as the entry when none is marked (callees
   * are printed before their callers); a module without computations has none. */
  if (!m->entry && m->ncomps > 0) m->entry = m->comps[m->ncomps - 1];
  /* A module written without its `HloModule NAME` header (XLA's parser accepts it, and
   * XLA's own fusion tests are written so) is named after its entry. */
  if (!m->name && m->entry) m->name = m->entry->name;
  for (int k = 0; k < m->ncomps; k++) check_comp(&c, m->comps[k]);
  if (d->errors == before)
    for (int k = 0; k < m->ncomps; k++) {
      check_params(&c, m->comps[k]);
      for (int j = 0; j < m->comps[k]->ninstrs; j++) check_call_operands(&c, m->comps[k]->instrs[j]);
    }
  if (m->entry && d->errors == before) check_inlining(&c);
  if (!m->entry && d->errors == before) {
    uint32_t at = 0;
    while (at < src->len && strchr(" \t\r\n", src->text[at])) at++;
    ax_diag_error(d, span(src, at, at + 9 <= src->len ? at + 9 : at),
                  "module '%s' has no ENTRY computation", m->name ? m->name : "?");
  }
  return d->errors > before ? NULL : m;
}
