/* domain.h — the value-domain interface every operator denotation is written against.
 *
 * A denotation (denote.h) never computes by itself: it asks a domain. The symbolic domain
 * (symbolic.h) answers with SMT terms, so running a denotation builds the verification
 * condition; the concrete domain (concrete.h) answers with GMP numbers, so running the
 * same denotation replays a counterexample. Writing each operator once against this table
 * is what makes a replayed counterexample an independent check of the solver's answer.
 *
 * Three sorts of values pass through a domain, all as opaque AxV handles owned by the
 * domain (valid until the domain is destroyed):
 *   int   — sizes, indices, attribute maps (unbounded integers);
 *   bool  — conditions, and elements of bool tensors;
 *   elem  — elements of int and real tensors: an extended number that is finite, +inf,
 *           -inf or NaN (see docs/semantics.md for the arithmetic of the last three).
 *
 * Element operations take the element type they compute in (AxType); bool elements are
 * plain bools. Nothing here reports errors: an operation outside a domain's fragment
 * (e.g. exp in the concrete domain at a non-zero point) records a reason on the domain
 * (`unsupported`), and callers must check it. */
#ifndef AX_DOMAIN_H
#define AX_DOMAIN_H

#include "dsl/ops.h"

typedef const void *AxV;

/* Element types of an instance (the rule's T instantiated). */
typedef enum { AX_BOOL, AX_INT, AX_REAL } AxType;

typedef struct AxDomain AxDomain;
struct AxDomain {
  /* integers */
  AxV (*int_lit)(AxDomain *d, const char *decimal);
  AxV (*int_small)(AxDomain *d, long v);
  AxV (*iadd)(AxDomain *d, AxV a, AxV b);
  AxV (*isub)(AxDomain *d, AxV a, AxV b);
  AxV (*imul)(AxDomain *d, AxV a, AxV b);
  AxV (*idiv)(AxDomain *d, AxV a, AxV b);   /* floor division; only for b > 0 */
  AxV (*imod)(AxDomain *d, AxV a, AxV b);   /* a - b * floor(a / b); only for b > 0 */
  AxV (*ilt)(AxDomain *d, AxV a, AxV b);    /* -> bool */
  AxV (*ile)(AxDomain *d, AxV a, AxV b);
  AxV (*ieq)(AxDomain *d, AxV a, AxV b);
  /* booleans */
  AxV (*bool_lit)(AxDomain *d, bool v);
  AxV (*band)(AxDomain *d, AxV a, AxV b);
  AxV (*bor)(AxDomain *d, AxV a, AxV b);
  AxV (*bnot)(AxDomain *d, AxV a);
  /* if-then-else on any sort: kind 0 int, 1 bool, 2 elem (of type t) */
  AxV (*ite)(AxDomain *d, AxV c, AxV a, AxV b, int kind, AxType t);
  /* elements */
  AxV (*elem_lit)(AxDomain *d, AxType t, const char *text, int inf_sign /* 0, +1, -1 */);
  AxV (*elem_of_int)(AxDomain *d, AxType t, AxV i);          /* iota's values */
  /* the int value of a finite int element (a gather index, already clamped); what it
   * returns for ±inf or NaN is unspecified (denote.c never uses it there) */
  AxV (*int_of_elem)(AxDomain *d, AxV e);
  AxV (*elem_binary)(AxDomain *d, AxOp op, AxType t, AxV a, AxV b);  /* add..min, and, or */
  AxV (*elem_unary)(AxDomain *d, AxOp op, AxType t, AxV a);  /* neg abs exp not */
  AxV (*elem_compare)(AxDomain *d, AxOp op, AxType t, AxV a, AxV b); /* eq..ge -> bool */
  /* the equality a rewrite must preserve: same value, or both NaN -> bool */
  AxV (*elem_same)(AxDomain *d, AxType t, AxV a, AxV b);
  /* an element of input tensor `sym` (a symbol index of the rule) at integer indices */
  AxV (*read)(AxDomain *d, int sym, AxType t, const AxV *idx, size_t n);
  /* REDUCE: the sum over every index tuple i with 0 <= i[k] < sizes[k] of body(i).
   * `vars` names the summation indices for the symbolic domain: vars[k] is an Int value
   * (an index map's variable) or NULL for a fresh one, named after names[k] and owned by
   * named axis pos[k] of aggregated axis axes[k] (bound inference pairs the variables of
   * one sum that differ only in the position). The concrete domain enumerates the tuples. */
  AxV (*sum)(AxDomain *d, AxType t, size_t n, const AxV *vars, const AxV *sizes,
             const char *const *names, const int *axes, const int *pos,
             AxV (*body)(void *ctx, const AxV *idx), void *ctx);
  const char *unsupported;   /* set when an operation left the domain's fragment */
};

#endif
