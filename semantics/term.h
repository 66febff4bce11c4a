/* term.h — the hash-consed term DAG every later stage speaks (DESIGN.md §2, "Terms").
 *
 * A term context owns every term built in it: one arena for the nodes, one hash table for
 * sharing, one free. Terms are immutable and hash-consed: two structurally equal terms are
 * the same pointer, so `a == b` is structural equality. Each term has a dense id
 * (0, 1, 2, ... in creation order) that callers use to index side tables and to order terms
 * deterministically; ids are below ax_term_ctx_size(ctx).
 *
 * Builders check sorts with AX_ASSERT (an ill-sorted term is a bug in axle, never user
 * input) and apply only cheap, obviously sound simplifications, each listed at its builder.
 * Arithmetic follows SMT-LIB: `div`/`mod` are Euclidean (0 <= mod < |divisor|) and, like
 * real `/`, are total but unspecified for a zero divisor; builders never fold a division by
 * zero, they leave it to the solver, and the semantics layer guards zero divisors itself.
 *
 * Lifetimes: every `const AxTerm *` and `const AxFunc *` returned by this module is
 * borrowed from its context and lives until ax_term_ctx_free. Names passed in are copied.
 * A context is not thread-safe; use one per thread or per task. */
#ifndef AX_TERM_H
#define AX_TERM_H

#include <gmp.h>

#include "base/arena.h"
#include "base/base.h"

/* ORDER SORT. The three floating-point sorts are SMT-LIB's (_ FloatingPoint eb sb): binary32,
 * binary16 and bfloat16; only IEEE mode (verifier/fpcheck.h) builds terms of them. */
typedef enum { AX_SORT_BOOL, AX_SORT_INT, AX_SORT_REAL, AX_SORT_F32, AX_SORT_F16, AX_SORT_BF16 } AxSort;

/* ORDER AX_TERM_KINDS: kind, SMT-LIB operator (leaves: a description), arity (-1: any).
 * Leaves come first and have arity 0 (an APP's arity is its function's). */
#define AX_TERM_KINDS(X)                                                    \
  X(TRUE,    "true",     0)                                                 \
  X(FALSE,   "false",    0)                                                 \
  X(INT,     "int",      0)  /* integer constant, any size (mpz) */         \
  X(REAL,    "real",     0)  /* rational constant, canonical (mpq) */       \
  X(VAR,     "var",      0)  /* free constant: name + sort */               \
  X(APP,     "app",     -1)  /* application of an uninterpreted function */ \
  X(NOT,     "not",      1)                                                 \
  X(AND,     "and",     -1)  /* >= 2 args, none an AND or a constant */     \
  X(OR,      "or",      -1)  /* >= 2 args, none an OR or a constant */      \
  X(IMPLIES, "=>",       2)                                                 \
  X(ITE,     "ite",      3)                                                 \
  X(EQ,      "=",        2)  /* any sort, both args of the same sort */     \
  X(LT,      "<",        2)  /* gt/ge are lt/le with swapped args */        \
  X(LE,      "<=",       2)                                                 \
  X(ADD,     "+",       -1)  /* >= 2 args */                                \
  X(SUB,     "-",        2)                                                 \
  X(MUL,     "*",       -1)  /* >= 2 args */                                \
  X(NEG,     "-",        1)                                                 \
  X(DIV,     "div",      2)  /* Int, Euclidean */                           \
  X(MOD,     "mod",      2)  /* Int, Euclidean: 0 <= mod < |divisor| */     \
  X(RDIV,    "/",        2)  /* Real division */                            \
  X(TO_REAL, "to_real",  1)                                                 \
  X(ABS,     "abs",      1)  /* Int or Real */                              \
  X(EXP,     "exp",      1)  /* Real: the exponential (cvc5 knows it; to z3 it is
                                uninterpreted, which is sound for proofs) */         \
  /* IEEE 754 floating point (SMT-LIB FloatingPoint), every rounding RNE. A literal holds   \
   * its bit pattern; an operation's sort is its arguments' (predicates: Bool). */        \
  X(FP_LIT,  "fp",       0)  /* bit pattern (mpz), sort F32/F16/BF16 */     \
  X(FP_ADD,  "fp.add RNE", 2)                                               \
  X(FP_SUB,  "fp.sub RNE", 2)                                               \
  X(FP_MUL,  "fp.mul RNE", 2)                                               \
  X(FP_DIV,  "fp.div RNE", 2)                                               \
  X(FP_NEG,  "fp.neg",   1)                                                 \
  X(FP_ABS,  "fp.abs",   1)                                                 \
  X(FP_LT,   "fp.lt",    2)                                                 \
  X(FP_LE,   "fp.leq",   2)                                                 \
  X(FP_EQ,   "fp.eq",    2)  /* IEEE equality: -0 = +0, NaN unequal to all */ \
  X(FP_ISNAN, "fp.isNaN", 1)                                                \
  X(FP_ISZERO, "fp.isZero", 1)                                              \
  X(FP_ISNEG, "fp.isNegative", 1)                                           \
  X(FP_ISINF, "fp.isInfinite", 1)                                           \
  /* (to_fp RNE r): arg 0 a Real, arg 1 any term of the target sort (only its sort counts) */ \
  X(FP_OF_REAL, "to_fp", 2)

typedef enum {
#define X(kind, smt, arity) AX_TERM_##kind,
  AX_TERM_KINDS(X)
#undef X
  AX_TERM_NKINDS
} AxTermKind;

typedef struct AxTermCtx AxTermCtx;
typedef struct AxTerm AxTerm;
typedef struct AxFunc AxFunc;

/* --- Contexts ------------------------------------------------------------------------- */

AxTermCtx *ax_term_ctx_new(void);               /* returns owned */
void ax_term_ctx_free(AxTermCtx *ctx);          /* consumes ctx, every term and function */
uint32_t ax_term_ctx_size(const AxTermCtx *ctx);  /* number of terms so far: ids are below */
uint32_t ax_term_ctx_nfuncs(const AxTermCtx *ctx); /* number of functions: func ids below */

/* --- Reading terms (all borrow t) ------------------------------------------------------ */

AxTermKind ax_term_kind(const AxTerm *t);
AxSort ax_term_sort(const AxTerm *t);
uint32_t ax_term_id(const AxTerm *t);
size_t ax_term_nargs(const AxTerm *t);
const AxTerm *ax_term_arg(const AxTerm *t, size_t i);
bool ax_term_is_const(const AxTerm *t);                 /* TRUE, FALSE, INT or REAL */
bool ax_term_bool_value(const AxTerm *t);               /* t is TRUE or FALSE */
void ax_term_int_value(const AxTerm *t, mpz_t out);     /* t is INT; out initialised */
void ax_term_real_value(const AxTerm *t, mpq_t out);    /* t is INT or REAL; out initialised */
const char *ax_term_var_name(const AxTerm *t);          /* t is VAR */
const AxFunc *ax_term_app_func(const AxTerm *t);        /* t is APP */
const char *ax_term_kind_name(AxTermKind k);            /* the SMT-LIB operator column */
const char *ax_term_sort_name(AxSort s);                /* "Bool", "Int", "Real" */

const char *ax_term_func_name(const AxFunc *f);
uint32_t ax_term_func_id(const AxFunc *f);              /* dense, creation order */
size_t ax_term_func_nargs(const AxFunc *f);
AxSort ax_term_func_argsort(const AxFunc *f, size_t i);
AxSort ax_term_func_result(const AxFunc *f);

/* --- Building terms -------------------------------------------------------------------- */

/* Uninterpreted function `name : argsorts -> result`. The same name with the same signature
 * returns the same function; the same name with another signature returns NULL (the caller
 * decides whether that is a user error or a bug). Variables and functions live in separate
 * name spaces: the back-ends keep a variable and a function of the same name apart. */
const AxFunc *ax_term_func(AxTermCtx *ctx, const char *name, size_t nargs,
                           const AxSort *argsorts, AxSort result);

const AxTerm *ax_term_mk_true(AxTermCtx *ctx);
const AxTerm *ax_term_mk_false(AxTermCtx *ctx);
const AxTerm *ax_term_mk_bool(AxTermCtx *ctx, bool v);
const AxTerm *ax_term_mk_int(AxTermCtx *ctx, const mpz_t v);        /* copies v */
const AxTerm *ax_term_mk_int_si(AxTermCtx *ctx, long v);
const AxTerm *ax_term_mk_int_str(AxTermCtx *ctx, const char *decimal); /* "-123"; valid */
const AxTerm *ax_term_mk_real(AxTermCtx *ctx, const mpq_t v);       /* copies, canonicalises */
const AxTerm *ax_term_mk_real_si(AxTermCtx *ctx, long num, unsigned long den); /* den > 0 */
/* A free constant; the same name and sort give the same term, the same name with another
 * sort gives another term (the back-ends keep them apart). */
const AxTerm *ax_term_mk_var(AxTermCtx *ctx, const char *name, AxSort sort);
/* f(args): nargs and argument sorts must match f's signature. */
const AxTerm *ax_term_mk_app(AxTermCtx *ctx, const AxFunc *f, size_t nargs,
                             const AxTerm *const *args);

/* Boolean connectives. Simplifications: constants fold; not(not x) = x; and/or drop neutral
 * constants, stop at an absorbing one, flatten nested and/or, and return their only
 * argument (or the neutral constant when none is left); implies folds a constant on either
 * side and x => x; ite(true,a,b) = a, ite(false,a,b) = b, ite(c,a,a) = a, and on Bool
 * ite(c,true,false) = c, ite(c,false,true) = not c. */
const AxTerm *ax_term_mk_not(AxTermCtx *ctx, const AxTerm *a);
const AxTerm *ax_term_mk_and(AxTermCtx *ctx, size_t n, const AxTerm *const *args);
const AxTerm *ax_term_mk_or(AxTermCtx *ctx, size_t n, const AxTerm *const *args);
const AxTerm *ax_term_mk_and2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_or2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_implies(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_ite(AxTermCtx *ctx, const AxTerm *c, const AxTerm *a,
                             const AxTerm *b);

/* Comparisons; both arguments of one sort (Int or Real for the orders, any for eq).
 * Simplifications: two constants fold; eq(x,x) = true, le(x,x) = true, lt(x,x) = false;
 * on Bool eq(x,true) = x and eq(x,false) = not x. */
const AxTerm *ax_term_mk_eq(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_lt(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_le(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_gt(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b); /* lt(b,a) */
const AxTerm *ax_term_mk_ge(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b); /* le(b,a) */

/* Arithmetic; all arguments of one sort, Int or Real (div and mod: Int; rdiv: Real;
 * to_real: Int argument). n >= 1 for add and mul. Simplifications: all-constant arguments
 * fold exactly (GMP); x+0 = x, x-0 = x, x-x = 0, x*1 = x, x*0 = 0, -(-x) = x, x div 1 = x,
 * x mod 1 = 0, x / 1 = x. A zero divisor never folds. */
const AxTerm *ax_term_mk_add(AxTermCtx *ctx, size_t n, const AxTerm *const *args);
const AxTerm *ax_term_mk_mul(AxTermCtx *ctx, size_t n, const AxTerm *const *args);
const AxTerm *ax_term_mk_add2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_mul2(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_sub(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_neg(AxTermCtx *ctx, const AxTerm *a);
const AxTerm *ax_term_mk_div(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_mod(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_rdiv(AxTermCtx *ctx, const AxTerm *a, const AxTerm *b);
const AxTerm *ax_term_mk_to_real(AxTermCtx *ctx, const AxTerm *a);
const AxTerm *ax_term_mk_abs(AxTermCtx *ctx, const AxTerm *a);
const AxTerm *ax_term_mk_exp(AxTermCtx *ctx, const AxTerm *a);   /* Real; exp(0) = 1 folds */
/* The natural logarithm of a positive real, as an application of the context's reserved
 * uninterpreted function AX_TERM_LOG_NAME (a name no rule symbol can take). Only what is
 * true of log on positive reals folds: log(1) = 0, log(exp(u)) = u, and log of an ite is the
 * ite of the logs (a function of its argument); every application
 * built through ax_term_mk_app of that function folds the same way. What the function
 * means for an argument <= 0 is left open: callers apply it to positive values only, and
 * the solver layer asserts `v > 0 => exp(log(v)) = v` for every application (solver.c). */
#define AX_TERM_LOG_NAME "log.ax"
const AxTerm *ax_term_mk_log(AxTermCtx *ctx, const AxTerm *a);
bool ax_term_is_log(const AxTerm *t);   /* an application of the reserved log function */

/* The builder of operator kind k (NOT .. ABS) applied to args, simplifications included.
 * Used to rebuild a term over new arguments. */
const AxTerm *ax_term_mk(AxTermCtx *ctx, AxTermKind k, size_t nargs,
                         const AxTerm *const *args);

/* Floating point (sorts F32, F16, BF16). The bit pattern of a literal: sign, exponent and
 * significand fields as IEEE 754 interchange formats lay them out (bfloat16: the top half of
 * binary32). The operations round to nearest, ties to even. Simplifications: none but
 * fp.neg(fp.neg x) = x and literal folding of fp.neg/fp.abs (sign bit). */
bool ax_term_sort_is_fp(AxSort s);
int ax_term_fp_ebits(AxSort s);            /* 8, 5, 8 */
int ax_term_fp_sbits(AxSort s);            /* 24, 11, 8 (with the hidden bit) */
const AxTerm *ax_term_mk_fp_bits(AxTermCtx *ctx, AxSort s, uint32_t bits);
uint32_t ax_term_fp_bits_value(const AxTerm *t);           /* t is FP_LIT */
/* kind one of FP_ADD .. FP_OF_REAL with the arity of the table */
const AxTerm *ax_term_mk_fp(AxTermCtx *ctx, AxTermKind kind, const AxTerm *a, const AxTerm *b);

/* --- Traversals ------------------------------------------------------------------------ */

/* Calls visit once for every distinct subterm of roots[0..n), children before parents,
 * arguments left to right, roots in order. Iterative: deep terms do not grow the C stack. */
typedef void (*AxTermVisit)(const AxTerm *t, void *data);
void ax_term_postorder(const AxTermCtx *ctx, const AxTerm *const *roots, size_t n,
                       AxTermVisit visit, void *data);

/* Appends to *out (storage in arena a) every distinct subterm of roots that satisfies pred,
 * in the order of ax_term_postorder; returns how many were appended. The order depends
 * only on the structure of roots, never on addresses or creation history. */
typedef bool (*AxTermPred)(const AxTerm *t, void *data);
size_t ax_term_collect(const AxTermCtx *ctx, const AxTerm *const *roots, size_t n,
                       AxTermPred pred, void *data, AxArena *a, AxVec *out);
bool ax_term_pred_var(const AxTerm *t, void *unused);     /* free variables */
bool ax_term_pred_app(const AxTerm *t, void *unused);     /* uninterpreted applications */
bool ax_term_pred_symbol(const AxTerm *t, void *unused);  /* variables and applications */

/* Simultaneous substitution: every occurrence in t of from[i] (any term; the from[] are
 * distinct) becomes to[i] (same sort), and the result is rebuilt bottom-up through the
 * builders, so it is simplified again. Replacements are not searched again. Memoised over
 * the DAG: linear in the size of t. Returns t itself when nothing changes. */
const AxTerm *ax_term_subst(AxTermCtx *ctx, const AxTerm *t, size_t n,
                            const AxTerm *const *from, const AxTerm *const *to);

/* --- Printing -------------------------------------------------------------------------- */

/* SMT-LIB-like, for debugging and messages: (+ x (f 3 -5)), 1/3, 2.0. Prints the DAG as a
 * tree, so shared subterms repeat; the solver back-ends use smtlib.h instead. */
void ax_term_print(FILE *out, const AxTerm *t);

#endif
