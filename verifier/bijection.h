/* bijection.h — equality of reduction elements through a checked bijection (TensorRight
 * §6.5, made sound).
 *
 * The two sides of a rule at the general access are Red_X f(X) over domain D_X and
 * Red_Y g(Y) over D_Y (a side that is no reduction is one over no variables). They are
 * equal when a bijection h: D_X → D_Y pairs equal summands. axle takes h from the rule's
 * hints — every RHS summation variable given as an expression of the LHS ones (y == e) —
 * and its inverse candidate g the same way; where the hints say nothing it infers the
 * obvious pairing (a variable both sides share, or the summation variables of one axis in
 * order). Then four queries under ctx = precondition ∧ valid(LHS) ∧ valid(RHS) ∧ equal sizes
 * ∧ valid access:
 *   well defined   X ∈ D_X ⇒ h(X) ∈ D_Y
 *   injective      X, X' ∈ D_X ∧ h(X) = h(X') ⇒ X = X'
 *   surjective     Y ∈ D_Y ⇒ g(Y) ∈ D_X ∧ h(g(Y)) = Y
 *   summands       X ∈ D_X ⇒ f(X) = g(h(X))
 * One of the first three failing (a model) is INVALID-HINT only with a witness replayed
 * exactly (pairing.h) against a pairing the rule wrote — every right-hand variable given by
 * a hint or shared, and a hint written where the right-hand side sums nothing; a pairing
 * axle inferred in part, or no witness, is UNKNOWN with the advice to write a hint. The
 * last failing is replayed like any counterexample: the concrete sums are computed (open
 * tensor points are 0) and only a replayed difference is INVALID; otherwise UNKNOWN
 * (another pairing might prove the rule). Any solver UNKNOWN is UNKNOWN. */
#ifndef AX_BIJECTION_H
#define AX_BIJECTION_H

#include "verifier/instance.h"
#include "verifier/result.h"

/* The pairing of the summation variables: h[i] (an expression over the LHS variables)
 * for every RHS variable, g[j] for every LHS variable (arrays sized by in->red[1].n and
 * in->red[0].n). False, with why, when some variable is left unpaired. `inferred` receives
 * the pairs axle inferred as a report shows them (those of h; where h has none, those of
 * g), "k.0 == i.0, ...". */
bool ax_bij_maps(AxSymInstance *in, const AxTerm **h, const AxTerm **g, char *why, size_t len,
                 char *inferred, size_t ilen);

/* Proves the value equality of a reduction instance. Returns the instance's verdict and,
 * when not VERIFIED, sets out->reason (and the counterexample for INVALID). `where` names
 * the rank vector in messages. Counts queries in out->queries. */
AxVerdict ax_bij_prove(AxSymInstance *in, const AxVerifyOpts *o, const char *where, AxResult *out);

#endif
