/* decimal.h — a decimal literal as an exact int64 rational.
 *
 * The rule language's programs and the HLO importer hold numeric literals exactly, as
 * num/den with den a power of ten (then reduced by 2s and 5s): a literal whose digits or
 * exponent do not fit is refused rather than rounded, so both readers agree on which
 * literals a program can hold. */
#ifndef AX_DECIMAL_H
#define AX_DECIMAL_H

#include <stdbool.h>
#include <stdint.h>

/* The longest literal axle reads, in rules, programs, .mug graphs and HLO modules alike:
 * at most AX_DECIMAL_MAX_DIGITS digits before the exponent (leading and trailing zeros
 * count) and an exponent of at most AX_DECIMAL_MAX_EXPONENT in absolute value. Every real
 * literal fits: a binary64 written out exactly has at most 767 significant digits and 1074
 * after the point, and exponents to ±324. The point of the bound: the exact value of a
 * literal is at most 10^8192, so that no GMP call on it (ax_decimal_to_mpq, the solvers'
 * numerals) can be asked for a size that overflows or exhausts memory. */
#define AX_DECIMAL_MAX_DIGITS 4096
#define AX_DECIMAL_MAX_EXPONENT 4096

typedef enum {
  AX_DECIMAL_OK,
  AX_DECIMAL_TOO_MANY_DIGITS,   /* more than AX_DECIMAL_MAX_DIGITS digits before the exponent */
  AX_DECIMAL_EXPONENT_RANGE,    /* |exponent| > AX_DECIMAL_MAX_EXPONENT */
} AxDecimalLimit;

/* Whether text, digits ["." digits] [("e"|"E") ["+"|"-"] digits] (what the scanners take
 * as a number; anything after that form is not looked at), is within the limits. *digits
 * and *exponent (either may be NULL) get its digit count and its exponent, the exponent
 * saturated at +-(AX_DECIMAL_MAX_EXPONENT + 1). */
AxDecimalLimit ax_decimal_limit(const char *text, long *digits, long *exponent);

/* Reads all of text as digits ["." digits] [("e"|"E") ["+"|"-"] digits] (no sign; at
 * least one digit before the exponent) into *num / *den, reduced by common factors 2
 * and 5. False when text is not of that form or does not fit in int64. */
bool ax_decimal_parse(const char *text, int64_t *num, int64_t *den);

#endif
