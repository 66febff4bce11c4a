/* concrete.h — the concrete value domain: exact numbers, for replaying counterexamples.
 *
 * Integers are GMP integers, elements are GMP rationals with a class (finite, +inf, -inf,
 * NaN), booleans are booleans. Input tensors are tables: ax_concrete_set fills the value
 * of a tensor at an index (the points a counterexample read); reading a point that was not
 * set yields 0 and counts in `missing` (a replay that reads such a point is not trusted).
 * Every value lives until ax_concrete_free. */
#ifndef AX_CONCRETE_H
#define AX_CONCRETE_H

#include <gmp.h>

#include "semantics/domain.h"

typedef enum { AX_FIN, AX_PINF, AX_NINF, AX_NAN } AxNumClass;

typedef struct AxConcrete AxConcrete;

AxConcrete *ax_concrete_new(void);                 /* returns owned */
void ax_concrete_free(AxConcrete *c);
AxDomain *ax_concrete_domain(AxConcrete *c);       /* borrowed; lives as long as c */
/* A domain whose integers and booleans are a concrete domain's (the IEEE replay, float.h)
 * begins with this head, its domain first: ax_concrete_scalars sets c (borrowed: concrete
 * must outlive the head) and fills dom's integer and boolean entries with the concrete
 * domain's own operations, which find their state through c — no forwarding layer. */
typedef struct AxConcreteScalars {
  AxDomain dom;
  AxConcrete *c;
} AxConcreteScalars;
void ax_concrete_scalars(AxConcreteScalars *head, AxDomain *concrete);

AxV ax_concrete_int(AxConcrete *c, const mpz_t v);
AxV ax_concrete_elem(AxConcrete *c, AxType t, AxNumClass cls, const mpq_t v, bool b);
/* Sets tensor `sym` at integer index `idx` (values made by this domain). */
void ax_concrete_set(AxConcrete *c, int sym, const AxV *idx, size_t n, AxV value);
size_t ax_concrete_missing(const AxConcrete *c);
/* What an unset point reads as: mode 0 gives 0; mode k > 0 gives the integer
 * ((7k + 11t + 31 * Σ_i (i+1) * x_i) mod 13) - 6 (bool: its parity), t = the tensor's sym
 * + 1, so a replay can try other inputs that agree with a model at every point the model
 * fixes. t is there so that two tensors read at one index differ: without it a rule that
 * confuses X with Y (reduce_02's mutant: X summed twice) agreed on every filled input. */
void ax_concrete_set_fill(AxConcrete *c, int mode);
const char *ax_concrete_fill_text(int mode);   /* the rule above, for reports */
/* Modes from this one on fill with values sampled from a small set of edge values (0, ±1,
 * 2, ±1/2 for reals, 3, -2) by a hash of the mode, the tensor and the index: for searches
 * that list every point they read (ax_concrete_record_fills). */
#define AX_CONCRETE_FILL_SAMPLED 100
/* Recording (off until ax_concrete_record_fills): the first AX_CONCRETE_MAX_FILLED distinct
 * unset points read, in the order first read, each with the value its fill gave — what a
 * replay of inputs made only of fill (verifier/cex.c ax_cex_search) shows as the tensor
 * points its counterexample read. ax_concrete_filled reads entry i < ax_concrete_nfilled(c)
 * (borrowed; the values live as long as c). */
#define AX_CONCRETE_MAX_FILLED 64
void ax_concrete_record_fills(AxConcrete *c);
size_t ax_concrete_nfilled(const AxConcrete *c);
void ax_concrete_filled(const AxConcrete *c, size_t i, int *sym, const AxV **idx, size_t *n, AxV *value);

/* The exact value of a decimal literal (digits[.digits][e[+-]digits]); out initialised. */
void ax_decimal_to_mpq(const char *text, mpq_t out);

/* The comparison operators on an ordering outcome: cmp is -1, 0 or 1 as a <, =, > b, or 2
 * when a and b are unordered (a NaN: only ne holds). The row of op (eq..ge) says whether
 * `a op b` holds; NULL for an operator that is no comparison. The IEEE replay (float.h)
 * reads these rows too. */
typedef bool (*AxCmpHolds)(int cmp);
AxCmpHolds ax_concrete_compare_row(AxOp op);

/* Reading values back. */
void ax_concrete_get_int(AxV v, mpz_t out);
bool ax_concrete_get_bool(AxV v);
AxNumClass ax_concrete_get_elem(AxV v, mpq_t out);   /* numeric elements */
/* "3", "-1/2", "+inf", "NaN", "true": an element or integer as text (malloc'd). */
char *ax_concrete_text(AxV v);

#endif
