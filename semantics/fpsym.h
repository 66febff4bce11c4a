/* fpsym.h — the symbolic IEEE domain: denotations build SMT FloatingPoint terms.
 *
 * Integers and booleans are Int and Bool terms, as in the symbolic domain (symbolic.h).
 * A real element is one term of a floating-point sort (F32, F16 or BF16): every operation
 * is the SMT-LIB FloatingPoint operation rounding to nearest, ties to even, so a rule's
 * two sides are evaluated exactly as an IEEE machine evaluates them in that format. Int
 * elements are outside IEEE mode (`unsupported`).
 *
 *   + − × ÷        fp.add / fp.sub / fp.mul / fp.div RNE
 *   neg, abs       fp.neg, fp.abs (sign bit)
 *   max, min       IEEE 754-2019 maximum / minimum: a NaN operand gives NaN (as XLA's
 *                  max/min), −0 < +0
 *   = != < <= > >= fp.eq, ¬fp.eq, fp.lt, fp.leq (NaN unordered, −0 = +0)
 *   literals       the decimal's exact rational, (to_fp RNE q); inf/-inf the infinities
 *   iota values    (to_fp RNE (to_real i))
 *   exp, rem, ...  no IEEE model: `unsupported` ("exp has no IEEE model")
 *   the equality a rewrite must preserve: SMT-LIB `=` on floats — both NaN, or the same
 *                  value with the same sign (+0 and −0 differ)
 *
 * REDUCE (sum, dot, conv) is unrolled: an instance bounds every summed extent by
 * `max_size` (recorded in ax_fpsym_bounds). With t0 = (0, …, 0) the first tuple of
 * [0, max_size)^n (inside the extents exactly when the sum is not empty), acc := ite(t0
 * inside, body(t0), +0), then for each further tuple, last index fastest, acc := ite(tuple
 * inside the extents, acc + body(tuple), acc): a left-to-right fold in row-major order,
 * rounded at every step, with no added init value (a one-element sum is its element, −0
 * included; an empty sum is +0). The concrete IEEE domain (float.h) sums in the same order.
 *
 * Input tensors are uninterpreted functions from Int indices to the format (every value:
 * NaN, ±inf, ±0, subnormals), or to Bool for bool tensors; every read is recorded. All
 * terms live in the AxTermCtx given at creation (owned by the caller). */
#ifndef AX_FPSYM_H
#define AX_FPSYM_H

#include "semantics/symbolic.h"

typedef struct AxFpSym AxFpSym;

AxFpSym *ax_fpsym_new(AxTermCtx *tc, const char *const *tensor_names, AxSort f, int max_size);
void ax_fpsym_free(AxFpSym *s);
AxDomain *ax_fpsym_domain(AxFpSym *s);                   /* borrowed; lives as long as s */
AxV ax_fpsym_int_var(AxFpSym *s, const char *name);      /* an Int variable */
const AxTerm *ax_fpsym_term(AxV v);                     /* the term behind any value */
/* Every read so far (tensor, index terms, application), in order, without duplicates. */
const AxRead *ax_fpsym_reads(const AxFpSym *s, size_t *n);
/* The conjunction of the bounds the unrolled reductions assume (each extent <= max_size). */
const AxTerm *ax_fpsym_bounds(const AxFpSym *s);

#endif
