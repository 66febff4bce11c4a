/* float.h — an exact software model of IEEE 754 binary floating point (binary32, binary16,
 * bfloat16), round to nearest, ties to even, for replaying IEEE-mode counterexamples.
 *
 * Independent of the solver: a value is its bit pattern (uint32_t, the low 32, 16 or 16
 * bits); an operation decodes its operands to exact rationals (GMP), computes the exact
 * result and rounds it once (ax_float_round). A correctly rounded +, −, ×, ÷ is by
 * definition the exact result rounded once, so this is the IEEE operation, with no double
 * rounding and no dependence on the host's FPU, excess precision or contraction
 * (tests/unit/check_float.c compares it with the host's float: directly for binary32, as
 * "compute in float, then round" for binary16 and bfloat16).
 *
 * Special values follow IEEE 754: NaN in gives NaN out (the quiet NaN of the format:
 * payloads are not modelled), inf − inf, 0 × inf, 0/0, inf/inf are NaN; an exact zero sum
 * is +0 except (−0) + (−0) = −0; products and quotients take the xor of the signs; x/±0 is
 * a signed infinity for x ≠ 0; overflow rounds to ±inf (RNE), underflow to subnormals and
 * signed zero. max/min are IEEE 754-2019 maximum/minimum: NaN propagates (as XLA's max and
 * min do), and −0 < +0.
 *
 * Formats are named by their term sort (AX_SORT_F32, AX_SORT_F16, AX_SORT_BF16). */
#ifndef AX_FLOAT_H
#define AX_FLOAT_H

#include <gmp.h>

#include "semantics/domain.h"
#include "semantics/term.h"

const char *ax_float_name(AxSort f);            /* "f32", "f16", "bf16" */
bool ax_float_parse(const char *name, AxSort *f);
int ax_float_width(AxSort f);                   /* 32, 16, 16 */

uint32_t ax_float_nan(AxSort f);                /* the quiet NaN: 0x7fc00000, 0x7e00, 0x7fc0 */
uint32_t ax_float_inf(AxSort f, bool negative);
bool ax_float_is_nan(AxSort f, uint32_t x);
bool ax_float_is_inf(AxSort f, uint32_t x);
bool ax_float_is_zero(AxSort f, uint32_t x);
bool ax_float_sign(AxSort f, uint32_t x);       /* the sign bit */
/* The exact value of a finite x; out initialised. */
void ax_float_value(AxSort f, uint32_t x, mpq_t out);
/* q rounded to nearest, ties to even; `negative` gives the sign of a zero q. Overflow is
 * ±inf. */
uint32_t ax_float_round(AxSort f, const mpq_t q, bool negative);
/* A decimal literal (digits[.digits][e[+-]digits], optional '-') correctly rounded. */
uint32_t ax_float_from_decimal(AxSort f, const char *text);

uint32_t ax_float_add(AxSort f, uint32_t a, uint32_t b);
uint32_t ax_float_sub(AxSort f, uint32_t a, uint32_t b);
uint32_t ax_float_mul(AxSort f, uint32_t a, uint32_t b);
uint32_t ax_float_div(AxSort f, uint32_t a, uint32_t b);
uint32_t ax_float_neg(AxSort f, uint32_t a);
uint32_t ax_float_abs(AxSort f, uint32_t a);
uint32_t ax_float_max(AxSort f, uint32_t a, uint32_t b);
uint32_t ax_float_min(AxSort f, uint32_t a, uint32_t b);
/* Why an element-wise operator, applied to `operands` operands (1 or 2), has no IEEE model
 * in axle ("exp has no IEEE model"), or NULL when it has one (add, sub, mul, div, max, min,
 * neg, abs, and the bool operators) or is no operator of that family. The one table of the
 * operators IEEE mode refuses: the replay here and the symbolic IEEE domain (fpsym.h) both
 * read it, so they refuse the same operators with the same words. A static string. */
const char *ax_float_unmodelled(AxOp op, int operands);
/* IEEE comparison: -1, 0, +1, or 2 when unordered (a NaN); -0 and +0 compare equal. */
int ax_float_cmp(AxSort f, uint32_t a, uint32_t b);
/* The equality a rewrite must preserve in IEEE mode: both NaN, or the same bits (so +0 and
 * -0 differ). */
bool ax_float_same(AxSort f, uint32_t a, uint32_t b);

/* "0x3f800001 (1.00000011920928955078125)", "0xff800000 (-inf)", "0x7fc00000 (NaN)",
 * "0x8000 (-0)": the bits and the exact decimal value — or, when that is longer than 32
 * characters, the value to 9 significant digits, "0x00000001 (≈ 1.40129846e-45)" (the
 * bits are exact either way). malloc'd. */
char *ax_float_text(AxSort f, uint32_t x);
/* The exact decimal value alone: "1.00000011920928955078125", "-0", "inf", "NaN". */
char *ax_float_decimal(AxSort f, uint32_t x);

/* --- The concrete IEEE domain (domain.h) --------------------------------------------------
 * Integers and booleans are those of a concrete domain (concrete.h, owned by the caller);
 * real elements are values of format f, computed with the functions above; int elements
 * are outside IEEE mode (unsupported). A reduction starts with its first summand and adds
 * the others one by one in the order of the summation tuples, last index fastest, rounding
 * after every addition (an empty sum is +0) — the order the symbolic IEEE domain (fpsym.h)
 * encodes. Tensor points are set by the caller; a point not
 * set reads +0 and is counted. exp and rem set `unsupported`. */
typedef struct AxFloatDom AxFloatDom;
AxFloatDom *ax_float_dom_new(AxDomain *concrete, AxSort f);    /* returns owned */
void ax_float_dom_free(AxFloatDom *d);
AxDomain *ax_float_dom_domain(AxFloatDom *d);                  /* borrowed */
AxV ax_float_dom_elem(AxFloatDom *d, uint32_t bits);
uint32_t ax_float_dom_bits(AxV elem);
/* Tensor `sym` at integer indices idx[0..n) (values of the concrete domain) holds bits. */
void ax_float_dom_set(AxFloatDom *d, int sym, const AxV *idx, size_t n, uint32_t bits);
size_t ax_float_dom_missing(const AxFloatDom *d);

#endif
