/* pairing.h — the replayed witness that a reduction's pairing is no bijection (INVALID-HINT).
 *
 * The bijection proof (bijection.h) asks the solvers whether the pairing h of the summation
 * indices maps D_X into D_Y, injectively and onto. Their `sat` is no verdict: a domain can
 * hold what the solvers see only approximately (a select's condition moved there by the
 * symbolic domain's support(), with a sum under sqrt, sqrt, exp, a power with a symbolic
 * exponent; tensor preconditions assumed only at the points read), so a model can be
 * spurious. A witness is an instance the rule applies to — in->ctx checked exactly
 * (ax_cex_inst_new: every precondition, a tensor one at every point of its shape) — and in
 * it, evaluated exactly, one of
 *   outside     an X ∈ D_X whose image h(X) is not in D_Y (h is not well defined);
 *   collision   X ≠ X' in D_X with h(X) = h(X') (h is not injective);
 *   unreached   a Y ∈ D_Y that h(X) is for no X ∈ D_X (h is not surjective);
 * each with the summands of its points other than 0: a zero summand needs no partner, so a
 * pairing that fails only there (one set of points written as a select's condition on one
 * side and as zero summands on the other) is no witness of a wrong hint.
 * D_X is enumerated inside the box its own bounds give, and D_Y for the third kind, at most
 * AX_PAIRING_POINTS points each; where D_X's box is unbounded or larger, only the model's
 * own points are checked (the first two kinds). Terms are evaluated exactly in the concrete
 * domain (semantics/concrete.c): integer and rational arithmetic, tensor reads (the model's
 * values, the fill elsewhere), and sqrt, exp, log, pow, the conversions and sums under sqrt
 * by the concrete domain's operators and enumeration. A value without an exact form (sqrt 2,
 * exp 1) or one the terms leave open (a division by zero) decides nothing: a point whose
 * membership or image is unknown is no witness, and "unreached" is claimed only when every
 * point of D_X was decided. */
#ifndef AX_PAIRING_H
#define AX_PAIRING_H

#include "verifier/cex.h"

/* A pairing as the bijection proof checks it; everything borrowed from the instance. */
typedef struct AxPairing {
  size_t nx, ny;
  const AxTerm *const *x;   /* the left-hand summation variables X */
  const AxTerm *const *y;   /* the right-hand ones Y */
  const AxTerm *dx, *dy;    /* D_X over X, D_Y over Y (and maps, access indices) */
  const AxTerm *fx, *fy;    /* the summands f(X), g(Y) */
  const AxTerm *const *h;   /* h[j]: Y's variable j as a term over X */
} AxPairing;

/* ORDER AxPairingKind: the properties of bijection.c's checks, in the order it asks them. */
typedef enum { AX_PAIRING_OUTSIDE, AX_PAIRING_COLLISION, AX_PAIRING_UNREACHED } AxPairingKind;

/* The points a box enumeration visits at most (the bound of ax_cex_pre_everywhere). */
#define AX_PAIRING_POINTS 4096

typedef struct AxPairingWitness {
  AxPairingKind kind;
  const char *what;   /* the failing property, as bijection.c's reasons say it (static) */
  char *summary;      /* the indices in one line ("i.0 = 0 and i.0 = 1 both pair with k.0 = 0") */
  char *text, *json;  /* the instance and the indices, as a counterexample shows them */
} AxPairingWitness;   /* strings malloc'd: ax_pairing_witness_free */

/* The witness at the instance of model m of a pairing query watched by w, the tensor points
 * m leaves open filled (fills 0, 1, 2 of ax_concrete_set_fill, as ax_cex_replay tries them),
 * of kind `want` (the check that failed) where the instance has one, else of another kind.
 * m's values of p->x, then of p->y, then (xc non-NULL) of the copies xc of X the injectivity
 * query has, follow w's own terms, from position w->n. True with *out; false with *why
 * (static or in in->a) when no witness was found there. Borrows everything. */
bool ax_pairing_replay(AxSymInstance *in, const AxPairing *p, AxPairingKind want, const AxWatch *w,
                       const AxModel *m, const AxTerm *const *xc, AxPairingWitness *out, const char **why);

/* The witness at small instances instead, without a model: `samples` draws of the maps and
 * access indices of w's head (ax_cex_sample), each with tensors of fill 0, 1 and a sampled
 * one. True with *out for the first instance that has one. */
bool ax_pairing_search(AxSymInstance *in, const AxPairing *p, AxPairingKind want, const AxWatch *w,
                       unsigned samples, AxPairingWitness *out);
/* The samples bijection.c asks ax_pairing_search for. */
#define AX_PAIRING_SAMPLES 48u

void ax_pairing_witness_free(AxPairingWitness *w);

#endif
