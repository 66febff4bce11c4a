/* fpcheck.h — IEEE mode: checking one rule in floating point, at bounded ranks and sizes.
 *
 * ax_fpcheck_rule asks whether the rule holds when its element type T is the IEEE 754
 * format f (binary32, binary16, bfloat16; round to nearest, ties to even; signed zeros,
 * NaN, ±inf, overflow and subnormals as IEEE defines them):
 *   1. every rank vector with 1 <= rank <= max_rank per class (a class fixed by a concat or
 *      iota axis: rank 1), lowest first;
 *   2. at each, both sides are executed symbolically in the IEEE domain (semantics/fpsym.h)
 *      under a general access, every input size and every reduced extent bounded by
 *      max_size, and one query asks for a precondition-satisfying valid left side whose
 *      right side is invalid, differently sized, or holds another float (SMT-LIB `=`: both
 *      NaN, or the same bits up to NaN payload — +0 and −0 differ);
 *   3. sat: the model (maps, access, every tensor element read, as bit patterns) is
 *      replayed by the same denotations in the concrete IEEE domain (semantics/float.h:
 *      exact rationals rounded once per operation, no solver, no host FPU); only a
 *      reproduced failure is INVALID, with the float values; one that does not reproduce
 *      is UNKNOWN with that reason. unsat at every instance: HOLDS_BOUNDED (never
 *      VERIFIED). unknown/timeout, or an operator without an IEEE model (exp, rem):
 *      UNKNOWN with the reason.
 * Rules whose element type cannot be real (int or bool, or no type variable and no real
 * tensor) are outside IEEE mode: UNKNOWN, saying so.
 *
 * The result owns its strings (ax_result_free). */
#ifndef AX_FPCHECK_H
#define AX_FPCHECK_H

#include "verifier/verify.h"

void ax_fpcheck_rule(const AxBlock *rule, AxSort f, const AxVerifyOpts *opts, AxResult *out);

/* Is rule within IEEE mode: a type variable that can be real, or (without one) a tensor
 * declared real? */
bool ax_fpcheck_in_scope(const AxBlock *rule);

#endif
