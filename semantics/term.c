/* term.c — hash-consed terms: interning, builders with their simplifications, traversals,
 * printing; see term.h.
 *
 * Invariants: every term is created by intern(), which returns the existing node when one
 * with the same key exists, so pointer equality is structural equality. Arguments of a
 * term are older than it (smaller ids). Constants are canonical (mpq_canonicalize), so two
 * constant terms of one sort are equal exactly when they are the same pointer. */
#include "semantics/term.h"

#include <string.h>

struct AxFunc {
  const char *name;
  uint32_t id;
  uint32_t nargs;
  AxSort result;
  AxSort *argsorts;
};

struct AxTerm {
  uint32_t id;
  uint32_t hash;
  uint32_t nargs;
  uint8_t kind;   /* AxTermKind */
  uint8_t sort;   /* AxSort */
  union {
    mpz_t z;                /* INT, FP_LIT (the bit pattern) */
    mpq_t q;                /* REAL */
    const char *name;       /* VAR */
    const AxFunc *func;     /* APP */
  } u;
  const AxTerm *args[];
};

/* An open-addressing table of pointers (terms or functions); capacity a power of two. */
typedef struct Table {
  void **slots;
  uint32_t cap, count;
} Table;

struct AxTermCtx {
  AxArena *arena;
  Table terms;              /* AxTerm*, by structure */
  Table funcs;              /* AxFunc*, by name */
  AxTerm **byid;            /* malloc'd; byid[id] */
  uint32_t nterms, capterms;
  AxFunc **funcbyid;        /* malloc'd */
  uint32_t nfuncs, capfuncs;
  const AxTerm *t_true, *t_false;
};

static const char *const kind_names[] = {
#define X(kind, smt, arity) smt,
  AX_TERM_KINDS(X)
#undef X
};

static const int kind_arity[] = {
#define X(kind, smt, arity) arity,
  AX_TERM_KINDS(X)
#undef X
};

/* --- Hashing --------------------------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;   /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static uint32_t hash_mpz(uint32_t h, mpz_srcptr z) {
  h = mix(h, (uint32_t)mpz_sgn(z) + 1);
  for (size_t i = 0, n = mpz_size(z); i < n; i++) {
    mp_limb_t l = mpz_getlimbn(z, i);
    h = mix(h, (uint32_t)l);
    if (sizeof l > 4) h = mix(h, (uint32_t)((uint64_t)l >> 32));
  }
  return h;
}

/* The identity of a term before it exists: what intern() hashes and compares. */
typedef struct Key {
  AxTermKind kind;
  AxSort sort;
  size_t nargs;
  const AxTerm *const *args;
  mpz_srcptr z;
  mpq_srcptr q;
  const char *name;
  const AxFunc *func;
} Key;

static uint32_t key_hash(const Key *k) {
  uint32_t h = mix(mix(0, (uint32_t)k->kind), (uint32_t)k->sort);
  for (size_t i = 0; i < k->nargs; i++) h = mix(h, k->args[i]->id);
  switch (k->kind) {
  case AX_TERM_INT:
  case AX_TERM_FP_LIT: h = hash_mpz(h, k->z); break;
  case AX_TERM_REAL: h = hash_mpz(hash_mpz(h, mpq_numref(k->q)), mpq_denref(k->q)); break;
  case AX_TERM_VAR: h = mix(h, hash_str(k->name)); break;
  case AX_TERM_APP: h = mix(h, k->func->id); break;
  default: break;
  }
  return h;
}

static bool key_equal(const Key *k, uint32_t h, const AxTerm *t) {
  if (t->hash != h || t->kind != k->kind || t->sort != k->sort || t->nargs != k->nargs)
    return false;
  for (size_t i = 0; i < k->nargs; i++)
    if (t->args[i] != k->args[i]) return false;
  switch (k->kind) {
  case AX_TERM_INT:
  case AX_TERM_FP_LIT: return mpz_cmp(t->u.z, k->z) == 0;
  case AX_TERM_REAL: return mpq_equal(t->u.q, k->q) != 0;
  case AX_TERM_VAR: return strcmp(t->u.name, k->name) == 0;
  case AX_TERM_APP: return t->u.func == k->func;
  default: return true;
  }
}

/* --- Tables ---------------------------------------------------------------------------- */

static void table_init(Table *tb) {
  tb->cap = 64;
  tb->count = 0;
  tb->slots = ax_xcalloc(tb->cap, sizeof(void *));
}

static uint32_t term_hash_of(const void *p) { return ((const AxTerm *)p)->hash; }
static uint32_t func_hash_of(const void *p) { return hash_str(((const AxFunc *)p)->name); }

/* Inserts p (known absent) with hash h, growing at load 1/2. */
static void table_put(Table *tb, void *p, uint32_t h, uint32_t (*hash_of)(const void *)) {
  if (2 * (tb->count + 1) > tb->cap) {
    Table big = {ax_xcalloc(2 * (size_t)tb->cap, sizeof(void *)), 2 * tb->cap, 0};
    for (uint32_t i = 0; i < tb->cap; i++)
      if (tb->slots[i]) table_put(&big, tb->slots[i], hash_of(tb->slots[i]), hash_of);
    free(tb->slots);
    *tb = big;
  }
  uint32_t i = h & (tb->cap - 1);
  while (tb->slots[i]) i = (i + 1) & (tb->cap - 1);
  tb->slots[i] = p;
  tb->count++;
}

/* --- Contexts -------------------------------------------------------------------------- */

static const AxTerm *intern(AxTermCtx *ctx, const Key *k);

AxTermCtx *ax_term_ctx_new(void) {
  AxTermCtx *ctx = ax_xcalloc(1, sizeof *ctx);
  ctx->arena = ax_arena_new();
  table_init(&ctx->terms);
  table_init(&ctx->funcs);
  ctx->t_true = intern(ctx, &(Key){.kind = AX_TERM_TRUE, .sort = AX_SORT_BOOL});
  ctx->t_false = intern(ctx, &(Key){.kind = AX_TERM_FALSE, .sort = AX_SORT_BOOL});
  return ctx;
}

void ax_term_ctx_free(AxTermCtx *ctx) {
  if (!ctx) return;
  /* GMP keeps the digits of constants outside the arena. */
  for (uint32_t i = 0; i < ctx->nterms; i++) {
    AxTerm *t = ctx->byid[i];
    if (t->kind == AX_TERM_INT || t->kind == AX_TERM_FP_LIT) mpz_clear(t->u.z);
    if (t->kind == AX_TERM_REAL) mpq_clear(t->u.q);
  }
  free(ctx->byid);
  free(ctx->funcbyid);
  free(ctx->terms.slots);
  free(ctx->funcs.slots);
  ax_arena_free(ctx->arena);
  free(ctx);
}

uint32_t ax_term_ctx_size(const AxTermCtx *ctx) { return ctx->nterms; }
uint32_t ax_term_ctx_nfuncs(const AxTermCtx *ctx) { return ctx->nfuncs; }

/* The unique term with key k: the existing one, or a new one with the next id. */
static const AxTerm *intern(AxTermCtx *ctx, const Key *k) {
  uint32_t h = key_hash(k);
  Table *tb = &ctx->terms;
  for (uint32_t i = h & (tb->cap - 1); tb->slots[i]; i = (i + 1) & (tb->cap - 1))
    if (key_equal(k, h, tb->slots[i])) return tb->slots[i];

  AX_ASSERT(ctx->nterms < UINT32_MAX && k->nargs < UINT32_MAX);
  AxTerm *t = ax_arena_alloc(ctx->arena, sizeof *t + k->nargs * sizeof t->args[0]);
  t->id = ctx->nterms;
  t->hash = h;
  t->nargs = (uint32_t)k->nargs;
  t->kind = (uint8_t)k->kind;
  t->sort = (uint8_t)k->sort;
  for (size_t i = 0; i < k->nargs; i++) t->args[i] = k->args[i];
  switch (k->kind) {
  case AX_TERM_INT:
  case AX_TERM_FP_LIT: mpz_init_set(t->u.z, k->z); break;
  case AX_TERM_REAL: mpq_init(t->u.q); mpq_set(t->u.q, k->q); break;
  case AX_TERM_VAR: t->u.name = ax_arena_strdup(ctx->arena, k->name); break;
  case AX_TERM_APP: t->u.func = k->func; break;
  default: break;
  }
  if (ctx->nterms == ctx->capterms) {
    ctx->capterms = ctx->capterms ? 2 * ctx->capterms : 256;
    ctx->byid = ax_xrealloc(ctx->byid, ctx->capterms * sizeof ctx->byid[0]);
  }
  ctx->byid[ctx->nterms++] = t;
  table_put(tb, t, h, term_hash_of);
  return t;
}

static const AxTerm *node(AxTermCtx *ctx, AxTermKind kind, AxSort sort, size_t n,
                          const AxTerm *const *args) {
  return intern(ctx, &(Key){.kind = kind, .sort = sort, .nargs = n, .args = args});
}

/* --- Reading --------------------------------------------------------------------------- */

AxTermKind ax_term_kind(const AxTerm *t) { return (AxTermKind)t->kind; }
AxSort ax_term_sort(const AxTerm *t) { return (AxSort)t->sort; }
uint32_t ax_term_id(const AxTerm *t) { return t->id; }
size_t ax_term_nargs(const AxTerm *t) { return t->nargs; }

const AxTerm *ax_term_arg(const AxTerm *t, size_t i) {
  AX_ASSERT(i < t->nargs);
  return t->args[i];
}

bool ax_term_is_const(const AxTerm *t) { return t->kind <= AX_TERM_REAL; }

bool ax_term_bool_value(const AxTerm *t) {
  AX_ASSERT(t->kind == AX_TERM_TRUE || t->kind == AX_TERM_FALSE);
  return t->kind == AX_TERM_TRUE;
}

void ax_term_int_value(const AxTerm *t, mpz_t out) {
  AX_ASSERT(t->kind == AX_TERM_INT);
  mpz_set(out, t->u.z);
}

void ax_term_real_value(const AxTerm *t, mpq_t out) {
  AX_ASSERT(t->kind == AX_TERM_INT || t->kind == AX_TERM_REAL);
  if (t->kind == AX_TERM_INT)
    mpq_set_z(out, t->u.z);
  else
    mpq_set(out, t->u.q);
}

const char *ax_term_var_name(const AxTerm *t) {
  AX_ASSERT(t->kind == AX_TERM_VAR);
  return t->u.name;
}

const AxFunc *ax_term_app_func(const AxTerm *t) {
  AX_ASSERT(t->kind == AX_TERM_APP);
  return t->u.func;
}

const char *ax_term_kind_name(AxTermKind k) {
  AX_ASSERT((unsigned)k < AX_TERM_NKINDS);
  return kind_names[k];
}

const char *ax_term_sort_name(AxSort s) {
  switch (s) {
  case AX_SORT_BOOL: return "Bool";
  case AX_SORT_INT: return "Int";
  case AX_SORT_REAL: return "Real";
  case AX_SORT_F32: return "(_ FloatingPoint 8 24)";
  case AX_SORT_F16: return "(_ FloatingPoint 5 11)";
  case AX_SORT_BF16: return "(_ FloatingPoint 8 8)";
  }
  AX_UNREACHABLE();
  return NULL;
}

const char *ax_term_func_name(const AxFunc *f) { return f->name; }
uint32_t ax_term_func_id(const AxFunc *f) { return f->id; }
size_t ax_term_func_nargs(const AxFunc *f) { return f->nargs; }
AxSort ax_term_func_result(const AxFunc *f) { return f->result; }

AxSort ax_term_func_argsort(const AxFunc *f, size_t i) {
  AX_ASSERT(i < f->nargs);
  return f->argsorts[i];
}

/* --- Leaves ---------------------------------------------------------------------------- */

const AxFunc *ax_term_func(AxTermCtx *ctx, const char *name, size_t nargs,
                           const AxSort *argsorts, AxSort result) {
  uint32_t h = hash_str(name);
  Table *tb = &ctx->funcs;
  for (uint32_t i = h & (tb->cap - 1); tb->slots[i]; i = (i + 1) & (tb->cap - 1)) {
    const AxFunc *f = tb->slots[i];
    if (strcmp(f->name, name) != 0) continue;
    if (f->nargs != nargs || f->result != result) return NULL;
    for (size_t j = 0; j < nargs; j++)
      if (f->argsorts[j] != argsorts[j]) return NULL;
    return f;
  }
  AX_ASSERT(nargs < UINT32_MAX);
  AxFunc *f = ax_arena_alloc(ctx->arena, sizeof *f);
  f->name = ax_arena_strdup(ctx->arena, name);
  f->id = ctx->nfuncs;
  f->nargs = (uint32_t)nargs;
  f->result = result;
  f->argsorts = ax_arena_alloc(ctx->arena, (nargs ? nargs : 1) * sizeof(AxSort));
  if (nargs) memcpy(f->argsorts, argsorts, nargs * sizeof(AxSort));
  if (ctx->nfuncs == ctx->capfuncs) {
    ctx->capfuncs = ctx->capfuncs ? 2 * ctx->capfuncs : 16;
    ctx->funcbyid = ax_xrealloc(ctx->funcbyid, ctx->capfuncs * sizeof ctx->funcbyid[0]);
  }
  ctx->funcbyid[ctx->nfuncs++] = f;
  table_put(tb, f, h, func_hash_of);
  return f;
}

const AxTerm *ax_term_mk_true(AxTermCtx *ctx) { return ctx->t_true; }
const AxTerm *ax_term_mk_false(AxTermCtx *ctx) { return ctx->t_false; }
const AxTerm *ax_term_mk_bool(AxTermCtx *ctx, bool v) {
  return v ? ctx->t_true : ctx->t_false;
}

const AxTerm *ax_term_mk_int(AxTermCtx *ctx, const mpz_t v) {
  return intern(ctx, &(Key){.kind = AX_TERM_INT, .sort = AX_SORT_INT, .z = v});
}

const AxTerm *ax_term_mk_int_si(AxTermCtx *ctx, long v) {
  mpz_t z;
  mpz_init_set_si(z, v);
  const AxTerm *t = ax_term_mk_int(ctx, z);
  mpz_clear(z);
  return t;
}

const AxTerm *ax_term_mk_int_str(AxTermCtx *ctx, const char *decimal) {
  mpz_t z;
  /* linear in the text: an integer literal of at most AX_DECIMAL_MAX_DIGITS digits, or a
   * numeral axle printed itself */
  int rc = mpz_init_set_str(z, decimal, 10);
  AX_ASSERT(rc == 0);
  const AxTerm *t = ax_term_mk_int(ctx, z);
  mpz_clear(z);
  return t;
}

const AxTerm *ax_term_mk_real(AxTermCtx *ctx, const mpq_t v) {
  mpq_t q;
  mpq_init(q);
  mpq_set(q, v);
  AX_ASSERT(mpz_sgn(mpq_denref(q)) != 0);
  mpq_canonicalize(q);
  const AxTerm *t = intern(ctx, &(Key){.kind = AX_TERM_REAL, .sort = AX_SORT_REAL, .q = q});
  mpq_clear(q);
  return t;
}

const AxTerm *ax_term_mk_real_si(AxTermCtx *ctx, long num, unsigned long den) {
  AX_ASSERT(den > 0);
  mpq_t q;
  mpq_init(q);
  mpq_set_si(q, num, den);
  const AxTerm *t = ax_term_mk_real(ctx, q);
  mpq_clear(q);
  return t;
}

const AxTerm *ax_term_mk_var(AxTermCtx *ctx, const char *name, AxSort sort) {
  return intern(ctx, &(Key){.kind = AX_TERM_VAR, .sort = sort, .name = name});
}

static const AxTerm *log_fold(AxTermCtx *ctx, const AxTerm *a);

const AxTerm *ax_term_mk_app(AxTermCtx *ctx, const AxFunc *f, size_t nargs,
                             const AxTerm *const *args) {
  AX_ASSERT(nargs == f->nargs);
  for (size_t i = 0; i < nargs; i++) AX_ASSERT(args[i]->sort == f->argsorts[i]);
  if (nargs == 1 && strcmp(f->name, AX_TERM_LOG_NAME) == 0) {
    const AxTerm *r = log_fold(ctx, args[0]);
    if (r) return r;
  }
  return intern(ctx, &(Key){.kind = AX_TERM_APP, .sort = f->result, .nargs = nargs,
                            .args = args, .func = f});
}

/* --- Numeric helpers for folding --------------------------------------------------------- */

static bool is_num(const AxTerm *t) {
  return t->kind == AX_TERM_INT || t->kind == AX_TERM_REAL;
}

static bool is_numsort(AxSort s) { return s == AX_SORT_INT || s == AX_SORT_REAL; }

/* The constant of sort s with value q (integral when s is Int). */
static const AxTerm *mk_num(AxTermCtx *ctx, AxSort s, const mpq_t q) {
  if (s == AX_SORT_REAL) return ax_term_mk_real(ctx, q);
  AX_ASSERT(mpz_cmp_ui(mpq_denref(q), 1) == 0);
  return ax_term_mk_int(ctx, mpq_numref(q));
}

static const AxTerm *mk_small(AxTermCtx *ctx, AxSort s, long v) {
  return s == AX_SORT_INT ? ax_term_mk_int_si(ctx, v) : ax_term_mk_real_si(ctx, v, 1);
}

/* t is the numeric constant v. */
static bool is_value(const AxTerm *t, long v) {
  if (t->kind == AX_TERM_INT) return mpz_cmp_si(t->u.z, v) == 0;
  if (t->kind == AX_TERM_REAL) return mpq_cmp_si(t->u.q, v, 1) == 0;
  return false;
}

static int num_cmp(const AxTerm *a, const AxTerm *b) {
  if (a->kind == AX_TERM_INT) return mpz_cmp(a->u.z, b->u.z);
  return mpq_cmp(a->u.q, b->u.q);
}

/* Temporary argument lists: on the stack when small. */
typedef struct Args {
  const AxTerm **v;
  size_t n;
  const AxTerm *small[8];
} Args;

static void args_init(Args *a, size_t cap) {
  a->v = cap <= AX_COUNTOF(a->small) ? a->small : ax_xmalloc(cap * sizeof a->v[0]);
  a->n = 0;
}

static void args_done(Args *a) {
  if (a->v != a->small) free(a->v);
}

/* --- Boolean connectives ----------------------------------------------------------------- */

const AxTerm *ax_term_mk_not(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(a->sort == AX_SORT_BOOL);
  if (a->kind == AX_TERM_TRUE) return ctx->t_false;
  if (a->kind == AX_TERM_FALSE) return ctx->t_true;
  if (a->kind == AX_TERM_NOT) return a->args[0];
  return node(ctx, AX_TERM_NOT, AX_SORT_BOOL, 1, &a);
}

/* and/or: `unit` is the neutral constant (TRUE for and), `zero` the absorbing one. */
static const AxTerm *mk_junction(AxTermCtx *ctx, AxTermKind kind, size_t n,
                                 const AxTerm *const *args) {
  const AxTerm *unit = kind == AX_TERM_AND ? ctx->t_true : ctx->t_false;
  const AxTerm *zero = kind == AX_TERM_AND ? ctx->t_false : ctx->t_true;
  size_t cap = 0;
  for (size_t i = 0; i < n; i++) {
    AX_ASSERT(args[i]->sort == AX_SORT_BOOL);
    if (args[i] == zero) return zero;
    cap += args[i]->kind == kind ? args[i]->nargs : 1;
  }
  Args out;
  args_init(&out, cap);
  for (size_t i = 0; i < n; i++) {
    const AxTerm *a = args[i];
    if (a == unit) continue;
    if (a->kind == kind) {   /* already flat and constant-free: it was built here */
      for (size_t j = 0; j < a->nargs; j++) out.v[out.n++] = a->args[j];
    } else {
      out.v[out.n++] = a;
    }
  }
  const AxTerm *t = out.n == 0   ? unit
                    : out.n == 1 ? out.v[0]
                                 : node(ctx, kind, AX_SORT_BOOL, out.n, out.v);
  args_done(&out);
  return t;
}

const AxTerm *ax_term_mk_and(AxTermCtx *ctx, size_t n, const AxTerm *const *args) {
  return mk_junction(ctx, AX_TERM_AND, n, args);
}

const AxTerm *ax_term_mk_or(AxTermCtx *ctx, size_t n, const AxTerm *const *args) {
  return mk_junction(ctx, AX_TERM_OR, n, args);
}

const AxTerm *ax_term_mk_and2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return ax_term_mk_and(ctx, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_or2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return ax_term_mk_or(ctx, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_implies(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  AX_ASSERT(a->sort == AX_SORT_BOOL && b->sort == AX_SORT_BOOL);
  if (a->kind == AX_TERM_TRUE) return b;
  if (a->kind == AX_TERM_FALSE || b->kind == AX_TERM_TRUE || a == b) return ctx->t_true;
  if (b->kind == AX_TERM_FALSE) return ax_term_mk_not(ctx, a);
  return node(ctx, AX_TERM_IMPLIES, AX_SORT_BOOL, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_ite(AxTermCtx *ctx, const AxTerm *c, const AxTerm *a,
                             const AxTerm *b) {
  AX_ASSERT(c->sort == AX_SORT_BOOL && a->sort == b->sort);
  if (c->kind == AX_TERM_TRUE || a == b) return a;
  if (c->kind == AX_TERM_FALSE) return b;
  if (a->kind == AX_TERM_TRUE && b->kind == AX_TERM_FALSE) return c;
  if (a->kind == AX_TERM_FALSE && b->kind == AX_TERM_TRUE) return ax_term_mk_not(ctx, c);
  return node(ctx, AX_TERM_ITE, (AxSort)a->sort, 3, (const AxTerm *const[]){c, a, b});
}

/* --- Comparisons --------------------------------------------------------------------------- */

const AxTerm *ax_term_mk_eq(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  AX_ASSERT(a->sort == b->sort);
  if (a == b) return ctx->t_true;
  /* Constants are canonical: two different constant terms have different values. */
  if (ax_term_is_const(a) && ax_term_is_const(b)) return ctx->t_false;
  if (a->sort == AX_SORT_BOOL) {
    if (b->kind == AX_TERM_TRUE) return a;
    if (b->kind == AX_TERM_FALSE) return ax_term_mk_not(ctx, a);
    if (a->kind == AX_TERM_TRUE) return b;
    if (a->kind == AX_TERM_FALSE) return ax_term_mk_not(ctx, b);
  }
  return node(ctx, AX_TERM_EQ, AX_SORT_BOOL, 2, (const AxTerm *const[]){a, b});
}

static const AxTerm *mk_order(AxTermCtx *ctx, AxTermKind kind, const AxTerm *a,
                              const AxTerm *b) {
  AX_ASSERT(a->sort == b->sort && is_numsort((AxSort)a->sort));
  bool strict = kind == AX_TERM_LT;
  if (a == b) return ax_term_mk_bool(ctx, !strict);
  if (is_num(a) && is_num(b)) {
    int c = num_cmp(a, b);
    return ax_term_mk_bool(ctx, strict ? c < 0 : c <= 0);
  }
  return node(ctx, kind, AX_SORT_BOOL, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_lt(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_order(ctx, AX_TERM_LT, a, b);
}

const AxTerm *ax_term_mk_le(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_order(ctx, AX_TERM_LE, a, b);
}

const AxTerm *ax_term_mk_gt(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_order(ctx, AX_TERM_LT, b, a);
}

const AxTerm *ax_term_mk_ge(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_order(ctx, AX_TERM_LE, b, a);
}

/* --- Arithmetic ---------------------------------------------------------------------------- */

/* add/mul: x+0 = x and x*1 = x drop `unit`; x*0 = 0; all constants fold. */
static const AxTerm *mk_sum_or_product(AxTermCtx *ctx, AxTermKind kind, size_t n,
                                       const AxTerm *const *args) {
  AX_ASSERT(n >= 1);
  AxSort s = (AxSort)args[0]->sort;
  AX_ASSERT(is_numsort(s));
  bool all_const = true;
  for (size_t i = 0; i < n; i++) {
    AX_ASSERT(args[i]->sort == s);
    all_const = all_const && is_num(args[i]);
  }
  if (kind == AX_TERM_MUL)
    for (size_t i = 0; i < n; i++)
      if (is_value(args[i], 0)) return args[i];
  if (all_const) {
    mpq_t acc, v;
    mpq_inits(acc, v, NULL);
    mpq_set_si(acc, kind == AX_TERM_MUL ? 1 : 0, 1);
    for (size_t i = 0; i < n; i++) {
      ax_term_real_value(args[i], v);
      if (kind == AX_TERM_MUL)
        mpq_mul(acc, acc, v);
      else
        mpq_add(acc, acc, v);
    }
    const AxTerm *t = mk_num(ctx, s, acc);
    mpq_clears(acc, v, NULL);
    return t;
  }
  long unit = kind == AX_TERM_MUL ? 1 : 0;
  Args out;
  args_init(&out, n);
  for (size_t i = 0; i < n; i++)
    if (!is_value(args[i], unit)) out.v[out.n++] = args[i];
  /* Not all arguments are constants, so at least one survives. */
  const AxTerm *t = out.n == 1 ? out.v[0] : node(ctx, kind, s, out.n, out.v);
  args_done(&out);
  return t;
}

const AxTerm *ax_term_mk_add(AxTermCtx *ctx, size_t n, const AxTerm *const *args) {
  return mk_sum_or_product(ctx, AX_TERM_ADD, n, args);
}

const AxTerm *ax_term_mk_mul(AxTermCtx *ctx, size_t n, const AxTerm *const *args) {
  return mk_sum_or_product(ctx, AX_TERM_MUL, n, args);
}

const AxTerm *ax_term_mk_add2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return ax_term_mk_add(ctx, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_mul2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return ax_term_mk_mul(ctx, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_sub(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  AX_ASSERT(a->sort == b->sort && is_numsort((AxSort)a->sort));
  AxSort s = (AxSort)a->sort;
  if (a == b) return mk_small(ctx, s, 0);
  if (is_value(b, 0)) return a;
  if (is_num(a) && is_num(b)) {
    mpq_t x, y;
    mpq_inits(x, y, NULL);
    ax_term_real_value(a, x);
    ax_term_real_value(b, y);
    mpq_sub(x, x, y);
    const AxTerm *t = mk_num(ctx, s, x);
    mpq_clears(x, y, NULL);
    return t;
  }
  return node(ctx, AX_TERM_SUB, s, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_neg(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(is_numsort((AxSort)a->sort));
  if (a->kind == AX_TERM_NEG) return a->args[0];
  if (is_num(a)) {
    mpq_t x;
    mpq_init(x);
    ax_term_real_value(a, x);
    mpq_neg(x, x);
    const AxTerm *t = mk_num(ctx, (AxSort)a->sort, x);
    mpq_clear(x);
    return t;
  }
  return node(ctx, AX_TERM_NEG, (AxSort)a->sort, 1, &a);
}

/* SMT-LIB Ints: for b != 0, a = b*q + r with 0 <= r < |b|; mod is r, div is q. */
static const AxTerm *mk_euclid(AxTermCtx *ctx, AxTermKind kind, const AxTerm *a,
                               const AxTerm *b) {
  AX_ASSERT(a->sort == AX_SORT_INT && b->sort == AX_SORT_INT);
  if (is_value(b, 1)) return kind == AX_TERM_DIV ? a : mk_small(ctx, AX_SORT_INT, 0);
  if (a->kind != AX_TERM_INT || b->kind != AX_TERM_INT || mpz_sgn(b->u.z) == 0)
    return node(ctx, kind, AX_SORT_INT, 2, (const AxTerm *const[]){a, b});
  mpz_t r;
  mpz_init(r);
  mpz_mod(r, a->u.z, b->u.z);   /* ignores the divisor's sign: 0 <= r < |b| */
  if (kind == AX_TERM_DIV) {
    mpz_sub(r, a->u.z, r);
    mpz_divexact(r, r, b->u.z);
  }
  const AxTerm *t = ax_term_mk_int(ctx, r);
  mpz_clear(r);
  return t;
}

const AxTerm *ax_term_mk_div(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_euclid(ctx, AX_TERM_DIV, a, b);
}

const AxTerm *ax_term_mk_mod(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  return mk_euclid(ctx, AX_TERM_MOD, a, b);
}

const AxTerm *ax_term_mk_rdiv(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b) {
  AX_ASSERT(a->sort == AX_SORT_REAL && b->sort == AX_SORT_REAL);
  if (is_value(b, 1)) return a;
  if (a->kind == AX_TERM_REAL && b->kind == AX_TERM_REAL && mpq_sgn(b->u.q) != 0) {
    mpq_t x;
    mpq_init(x);
    mpq_div(x, a->u.q, b->u.q);
    const AxTerm *t = ax_term_mk_real(ctx, x);
    mpq_clear(x);
    return t;
  }
  return node(ctx, AX_TERM_RDIV, AX_SORT_REAL, 2, (const AxTerm *const[]){a, b});
}

const AxTerm *ax_term_mk_to_real(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(a->sort == AX_SORT_INT);
  if (a->kind == AX_TERM_INT) {
    mpq_t x;
    mpq_init(x);
    mpq_set_z(x, a->u.z);
    const AxTerm *t = ax_term_mk_real(ctx, x);
    mpq_clear(x);
    return t;
  }
  return node(ctx, AX_TERM_TO_REAL, AX_SORT_REAL, 1, &a);
}

const AxTerm *ax_term_mk_abs(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(is_numsort((AxSort)a->sort));
  if (is_num(a)) {
    mpq_t x;
    mpq_init(x);
    ax_term_real_value(a, x);
    mpq_abs(x, x);
    const AxTerm *t = mk_num(ctx, (AxSort)a->sort, x);
    mpq_clear(x);
    return t;
  }
  return node(ctx, AX_TERM_ABS, (AxSort)a->sort, 1, &a);
}

const AxTerm *ax_term_mk_exp(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(a->sort == AX_SORT_REAL);
  if (is_num(a)) {   /* only exp(0) is rational */
    mpq_t x;
    mpq_init(x);
    ax_term_real_value(a, x);
    bool zero = mpq_sgn(x) == 0;
    mpq_clear(x);
    if (zero) return ax_term_mk_real_si(ctx, 1, 1);
  }
  return node(ctx, AX_TERM_EXP, AX_SORT_REAL, 1, &a);
}

/* LOG folds: log(1) = 0, log(exp(u)) = u (both true of the real logarithm); NULL if none */
static const AxTerm *log_fold(AxTermCtx *ctx, const AxTerm *a) {
  if (a->kind == AX_TERM_EXP) return a->args[0];
  if (a->kind == AX_TERM_ITE)   /* log(ite(c, x, y)) = ite(c, log x, log y): a function */
    return ax_term_mk_ite(ctx, a->args[0], ax_term_mk_log(ctx, a->args[1]),
                          ax_term_mk_log(ctx, a->args[2]));
  if (is_num(a)) {
    mpq_t x;
    mpq_init(x);
    ax_term_real_value(a, x);
    bool one = mpq_cmp_ui(x, 1, 1) == 0;
    mpq_clear(x);
    if (one) return ax_term_mk_real_si(ctx, 0, 1);
  }
  return NULL;
}

const AxTerm *ax_term_mk_log(AxTermCtx *ctx, const AxTerm *a) {
  AX_ASSERT(a->sort == AX_SORT_REAL);
  AxSort r = AX_SORT_REAL;
  const AxFunc *f = ax_term_func(ctx, AX_TERM_LOG_NAME, 1, &r, AX_SORT_REAL);
  AX_ASSERT(f);
  return ax_term_mk_app(ctx, f, 1, &a);
}

bool ax_term_is_log(const AxTerm *t) {
  return t->kind == AX_TERM_APP && strcmp(t->u.func->name, AX_TERM_LOG_NAME) == 0;
}

const AxTerm *ax_term_mk(AxTermCtx *ctx, AxTermKind k, size_t nargs,
                         const AxTerm *const *args) {
  AX_ASSERT((unsigned)k < AX_TERM_NKINDS);
  AX_ASSERT(kind_arity[k] < 0 || (size_t)kind_arity[k] == nargs);
  switch (k) {
  case AX_TERM_NOT: return ax_term_mk_not(ctx, args[0]);
  case AX_TERM_AND: return ax_term_mk_and(ctx, nargs, args);
  case AX_TERM_OR: return ax_term_mk_or(ctx, nargs, args);
  case AX_TERM_IMPLIES: return ax_term_mk_implies(ctx, args[0], args[1]);
  case AX_TERM_ITE: return ax_term_mk_ite(ctx, args[0], args[1], args[2]);
  case AX_TERM_EQ: return ax_term_mk_eq(ctx, args[0], args[1]);
  case AX_TERM_LT: return ax_term_mk_lt(ctx, args[0], args[1]);
  case AX_TERM_LE: return ax_term_mk_le(ctx, args[0], args[1]);
  case AX_TERM_ADD: return ax_term_mk_add(ctx, nargs, args);
  case AX_TERM_SUB: return ax_term_mk_sub(ctx, args[0], args[1]);
  case AX_TERM_MUL: return ax_term_mk_mul(ctx, nargs, args);
  case AX_TERM_NEG: return ax_term_mk_neg(ctx, args[0]);
  case AX_TERM_DIV: return ax_term_mk_div(ctx, args[0], args[1]);
  case AX_TERM_MOD: return ax_term_mk_mod(ctx, args[0], args[1]);
  case AX_TERM_RDIV: return ax_term_mk_rdiv(ctx, args[0], args[1]);
  case AX_TERM_TO_REAL: return ax_term_mk_to_real(ctx, args[0]);
  case AX_TERM_ABS: return ax_term_mk_abs(ctx, args[0]);
  case AX_TERM_EXP: return ax_term_mk_exp(ctx, args[0]);
  case AX_TERM_FP_ADD:
  case AX_TERM_FP_SUB:
  case AX_TERM_FP_MUL:
  case AX_TERM_FP_DIV:
  case AX_TERM_FP_LT:
  case AX_TERM_FP_LE:
  case AX_TERM_FP_EQ:
  case AX_TERM_FP_OF_REAL: return ax_term_mk_fp(ctx, k, args[0], args[1]);
  case AX_TERM_FP_NEG:
  case AX_TERM_FP_ABS:
  case AX_TERM_FP_ISNAN:
  case AX_TERM_FP_ISZERO:
  case AX_TERM_FP_ISNEG:
  case AX_TERM_FP_ISINF: return ax_term_mk_fp(ctx, k, args[0], NULL);
  default: AX_ASSERT(!"ax_term_mk: not an operator kind");
  }
  return NULL;
}

/* --- Floating point ------------------------------------------------------------------------ */

bool ax_term_sort_is_fp(AxSort s) {
  return s == AX_SORT_F32 || s == AX_SORT_F16 || s == AX_SORT_BF16;
}

int ax_term_fp_ebits(AxSort s) {
  AX_ASSERT(ax_term_sort_is_fp(s));
  return s == AX_SORT_F16 ? 5 : 8;
}

int ax_term_fp_sbits(AxSort s) {
  AX_ASSERT(ax_term_sort_is_fp(s));
  return s == AX_SORT_F32 ? 24 : s == AX_SORT_F16 ? 11 : 8;
}

const AxTerm *ax_term_mk_fp_bits(AxTermCtx *ctx, AxSort s, uint32_t bits) {
  int width = ax_term_fp_ebits(s) + ax_term_fp_sbits(s);
  AX_ASSERT(width == 32 || bits >> width == 0);
  mpz_t z;
  mpz_init_set_ui(z, bits);
  const AxTerm *t = intern(ctx, &(Key){.kind = AX_TERM_FP_LIT, .sort = s, .z = z});
  mpz_clear(z);
  return t;
}

uint32_t ax_term_fp_bits_value(const AxTerm *t) {
  AX_ASSERT(t->kind == AX_TERM_FP_LIT);
  return (uint32_t)mpz_get_ui(t->u.z);
}

const AxTerm *ax_term_mk_fp(AxTermCtx *ctx, AxTermKind kind, const AxTerm *a, const AxTerm *b) {
  AX_ASSERT(kind >= AX_TERM_FP_ADD && kind <= AX_TERM_FP_OF_REAL);
  size_t n = (size_t)kind_arity[kind];
  AX_ASSERT(n == 1 ? b == NULL : b != NULL);
  AxSort s = (AxSort)a->sort;
  switch (kind) {
  case AX_TERM_FP_OF_REAL:
    AX_ASSERT(a->sort == AX_SORT_REAL && ax_term_sort_is_fp((AxSort)b->sort));
    return node(ctx, kind, (AxSort)b->sort, 2, (const AxTerm *const[]){a, b});
  case AX_TERM_FP_NEG:
  case AX_TERM_FP_ABS: {
    AX_ASSERT(ax_term_sort_is_fp(s));
    if (kind == AX_TERM_FP_NEG && a->kind == AX_TERM_FP_NEG) return a->args[0];
    if (a->kind == AX_TERM_FP_LIT) {   /* the sign bit; a NaN stays a NaN */
      uint32_t top = 1u << (ax_term_fp_ebits(s) + ax_term_fp_sbits(s) - 1);
      uint32_t v = ax_term_fp_bits_value(a);
      return ax_term_mk_fp_bits(ctx, s, kind == AX_TERM_FP_NEG ? v ^ top : v & ~top);
    }
    return node(ctx, kind, s, 1, &a);
  }
  case AX_TERM_FP_ISNAN:
  case AX_TERM_FP_ISZERO:
  case AX_TERM_FP_ISNEG:
  case AX_TERM_FP_ISINF:
    AX_ASSERT(ax_term_sort_is_fp(s));
    return node(ctx, kind, AX_SORT_BOOL, 1, &a);
  case AX_TERM_FP_LT:
  case AX_TERM_FP_LE:
  case AX_TERM_FP_EQ:
    AX_ASSERT(ax_term_sort_is_fp(s) && a->sort == b->sort);
    return node(ctx, kind, AX_SORT_BOOL, 2, (const AxTerm *const[]){a, b});
  default:
    AX_ASSERT(ax_term_sort_is_fp(s) && a->sort == b->sort);
    return node(ctx, kind, s, 2, (const AxTerm *const[]){a, b});
  }
}

/* --- Traversals ---------------------------------------------------------------------------- */

typedef struct Frame {
  const AxTerm *t;
  uint32_t next;   /* next argument to descend into */
} Frame;

/* Postorder over the distinct subterms of roots. A term for which skip() holds is neither
 * visited nor descended into. Terms are marked when pushed: in a DAG a pushed term is
 * finished before anything that pushed it, so marking early never loses a visit. */
static void walk(const AxTermCtx *ctx, const AxTerm *const *roots, size_t n,
                 bool (*skip)(const AxTerm *, void *), AxTermVisit visit, void *data) {
  uint8_t *seen = ax_xcalloc(ctx->nterms, 1);
  size_t cap = 64, sp = 0;
  Frame *stack = ax_xmalloc(cap * sizeof *stack);
  for (size_t r = 0; r < n; r++) {
    const AxTerm *root = roots[r];
    AX_ASSERT(root->id < ctx->nterms && ctx->byid[root->id] == root);
    if (seen[root->id]) continue;
    seen[root->id] = 1;
    if (skip && skip(root, data)) continue;
    stack[sp++] = (Frame){root, 0};
    while (sp) {
      Frame *f = &stack[sp - 1];
      if (f->next == f->t->nargs) {
        visit(f->t, data);
        sp--;
        continue;
      }
      const AxTerm *a = f->t->args[f->next++];
      if (seen[a->id]) continue;
      seen[a->id] = 1;
      if (skip && skip(a, data)) continue;
      if (sp == cap) {
        cap *= 2;
        stack = ax_xrealloc(stack, cap * sizeof *stack);
      }
      stack[sp++] = (Frame){a, 0};
    }
  }
  free(stack);
  free(seen);
}

void ax_term_postorder(const AxTermCtx *ctx, const AxTerm *const *roots, size_t n,
                       AxTermVisit visit, void *data) {
  walk(ctx, roots, n, NULL, visit, data);
}

typedef struct Collect {
  AxTermPred pred;
  void *data;
  AxArena *arena;
  AxVec *out;
  size_t count;
} Collect;

static void collect_one(const AxTerm *t, void *data) {
  Collect *c = data;
  if (!c->pred(t, c->data)) return;
  ax_vec_push(c->arena, c->out, (void *)t);
  c->count++;
}

size_t ax_term_collect(const AxTermCtx *ctx, const AxTerm *const *roots, size_t n,
                       AxTermPred pred, void *data, AxArena *a, AxVec *out) {
  Collect c = {pred, data, a, out, 0};
  walk(ctx, roots, n, NULL, collect_one, &c);
  return c.count;
}

bool ax_term_pred_var(const AxTerm *t, void *unused) {
  (void)unused;
  return t->kind == AX_TERM_VAR;
}

bool ax_term_pred_app(const AxTerm *t, void *unused) {
  (void)unused;
  return t->kind == AX_TERM_APP;
}

bool ax_term_pred_symbol(const AxTerm *t, void *unused) {
  (void)unused;
  return t->kind == AX_TERM_VAR || t->kind == AX_TERM_APP;
}

typedef struct Subst {
  AxTermCtx *ctx;
  const AxTerm **memo;   /* by id of an original term: its image, or NULL */
} Subst;

static bool subst_done(const AxTerm *t, void *data) {
  return ((Subst *)data)->memo[t->id] != NULL;
}

/* t's arguments all have images: rebuild t over them when one of them changed. */
static void subst_one(const AxTerm *t, void *data) {
  Subst *s = data;
  bool changed = false;
  for (uint32_t i = 0; i < t->nargs && !changed; i++)
    changed = s->memo[t->args[i]->id] != t->args[i];
  if (!changed) {
    s->memo[t->id] = t;
    return;
  }
  Args out;
  args_init(&out, t->nargs);
  for (uint32_t i = 0; i < t->nargs; i++) out.v[out.n++] = s->memo[t->args[i]->id];
  s->memo[t->id] = t->kind == AX_TERM_APP
                       ? ax_term_mk_app(s->ctx, t->u.func, out.n, out.v)
                       : ax_term_mk(s->ctx, (AxTermKind)t->kind, out.n, out.v);
  args_done(&out);
}

const AxTerm *ax_term_subst(AxTermCtx *ctx, const AxTerm *t, size_t n,
                            const AxTerm *const *from, const AxTerm *const *to) {
  /* Terms built while substituting get new ids; only original ids index memo. */
  Subst s = {ctx, ax_xcalloc(ctx->nterms, sizeof(const AxTerm *))};
  for (size_t i = 0; i < n; i++) {
    AX_ASSERT(from[i]->sort == to[i]->sort);
    s.memo[from[i]->id] = to[i];
  }
  walk(ctx, &t, 1, subst_done, subst_one, &s);
  const AxTerm *r = s.memo[t->id];
  free(s.memo);
  return r;
}

/* --- Printing ------------------------------------------------------------------------------ */

void ax_term_print(FILE *out, const AxTerm *t) {
  switch ((AxTermKind)t->kind) {
  case AX_TERM_TRUE: fputs("true", out); return;
  case AX_TERM_FALSE: fputs("false", out); return;
  case AX_TERM_INT: mpz_out_str(out, 10, t->u.z); return;
  case AX_TERM_REAL:
    mpq_out_str(out, 10, t->u.q);
    if (mpz_cmp_ui(mpq_denref(t->u.q), 1) == 0) fputs(".0", out);
    return;
  case AX_TERM_VAR: fputs(t->u.name, out); return;
  case AX_TERM_FP_LIT: fprintf(out, "fp#x%0*x", (ax_term_fp_ebits((AxSort)t->sort) + ax_term_fp_sbits((AxSort)t->sort)) / 4, ax_term_fp_bits_value(t)); return;
  case AX_TERM_APP:
    if (t->nargs == 0) {
      fputs(t->u.func->name, out);
      return;
    }
    fprintf(out, "(%s", t->u.func->name);
    break;
  default: fprintf(out, "(%s", kind_names[t->kind]); break;
  }
  for (uint32_t i = 0; i < t->nargs; i++) {
    fputc(' ', out);
    ax_term_print(out, t->args[i]);
  }
  fputc(')', out);
}
