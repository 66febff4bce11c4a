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

/* Reads all of text as digits ["." digits] [("e"|"E") ["+"|"-"] digits] (no sign; at
 * least one digit before the exponent) into *num / *den, reduced by common factors 2
 * and 5. False when text is not of that form or does not fit in int64. */
bool ax_decimal_parse(const char *text, int64_t *num, int64_t *den);

#endif
