/* verify.h — proving one rule for one element type, for every rank and size.
 *
 * ax_verify_rule follows TensorRight §6 (and DESIGN §2):
 *   1. bound inference (rank.h: a count of folds and read pairs, sound for every rank):
 *      a sufficient rank k_c per rank class; classes used as concat/iota axes are fixed at 1;
 *   2. for every rank vector in Π_c [1..k_c]: symbolic execution of both sides under a
 *      general access, and one query for the verification conditions of §6.4 (same sizes,
 *      RHS valid, same value) under precondition ∧ valid(LHS);
 *   3. unsat everywhere ⇒ VERIFIED; sat ⇒ the model is replayed in the concrete domain and
 *      only a replayed mismatch is INVALID (a model that breaks a tensor precondition away
 *      from the points the query looked at is completed by one more query or UNKNOWN; an
 *      uninterpreted function's values may explain another that does not replay: UNKNOWN;
 *      anything else that does not replay is an ERROR); unknown, timeout, solver error or
 *      an unsupported construct ⇒ UNKNOWN with the reason.
 * No path turns a failure into VERIFIED.
 *
 * The result owns its strings (free with ax_result_free). */
#ifndef AX_VERIFY_H
#define AX_VERIFY_H

#include "verifier/result.h"

/* The element types a rule is verified for (its class), in order. Returns the count. */
int ax_rule_types(const AxBlock *rule, AxType out[3]);

/* Verifies `rule` (checked, without errors) at element type `t`. */
void ax_verify_rule(const AxBlock *rule, AxType t, const AxVerifyOpts *opts, AxResult *out);

#endif
