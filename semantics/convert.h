/* convert.h — the rule language's conversions (to_f16, to_bf16, to_f32) as real functions.
 *
 * In the real-valued semantics a conversion is rounding to the target format: round to
 * nearest, ties to even, subnormals kept, and a magnitude from the format's overflow
 * threshold on ((2 − 2^−p) · 2^emax: 65520 for f16) is ±inf — the extended value that
 * both real domains already carry. The concrete domain rounds exactly (GMP); the symbolic domain (symbolic.c) gives the solver an uninterpreted
 * rounding function per format with definitional facts that are true of this rounding
 * (docs/semantics.md, "Conversions"). */
#ifndef AX_CONVERT_H
#define AX_CONVERT_H

#include <gmp.h>

#include "dsl/ops.h"
#include "semantics/term.h"

/* A target format: its term sort (AX_SORT_F16, AX_SORT_BF16, AX_SORT_F32), precision p
 * (significand bits, the hidden one included), least normal exponent emin and largest
 * exponent emax: normal values are m · 2^(e − p + 1) with 2^(p−1) <= m < 2^p, emin <= e <=
 * emax; subnormals are multiples of 2^(emin − p + 1) below 2^emin. */
typedef struct AxConvFormat {
  AxSort sort;
  const char *name;   /* "f16", "bf16", "f32" */
  int prec, emin, emax;
} AxConvFormat;

/* The format a conversion operator rounds to; NULL for any other operator. Borrowed
 * (static). */
const AxConvFormat *ax_convert_format(AxOp op);

/* Rounds the finite rational x to f (round to nearest, ties to even). Returns 0 with the
 * rounded value in out, or +1 / −1 when the result overflows to +inf / −inf (out is then
 * 0). out initialised by the caller; x and out may be the same. */
int ax_convert_round(const AxConvFormat *f, const mpq_t x, mpq_t out);

/* The least magnitude that rounds to infinity, (2 − 2^−p) · 2^emax, and the largest
 * finite value, (2 − 2^(1−p)) · 2^emax; out initialised by the caller. */
void ax_convert_overflow(const AxConvFormat *f, mpq_t out);
void ax_convert_max(const AxConvFormat *f, mpq_t out);

/* Whether every value of format `inner` is a value of format `outer` (f16 and bf16 in f32,
 * and each in itself): then rounding to outer leaves a value rounded to inner unchanged. */
bool ax_convert_contains(const AxConvFormat *outer, const AxConvFormat *inner);

#endif
