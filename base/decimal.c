/* decimal.c — decimal literals as exact rationals; see decimal.h. */
#include "base/decimal.h"

/* *v *= 10, or false when that overflows. */
static bool times_ten(int64_t *v) {
  if (*v > INT64_MAX / 10) return false;
  *v *= 10;
  return true;
}

AxDecimalLimit ax_decimal_limit(const char *text, long *digits_out, long *exponent_out) {
  const char *p = text;
  long digits = 0, e = 0;
  /* counted as long as the text goes, but never past the limit + 1: no overflow */
  for (; (*p >= '0' && *p <= '9') || *p == '.'; p++)
    if (*p != '.' && digits <= AX_DECIMAL_MAX_DIGITS) digits++;
  if (*p == 'e' || *p == 'E') {
    p++;
    bool neg = *p == '-';
    if (*p == '+' || *p == '-') p++;
    for (; *p >= '0' && *p <= '9'; p++)
      if ((e = e * 10 + (*p - '0')) > AX_DECIMAL_MAX_EXPONENT) e = AX_DECIMAL_MAX_EXPONENT + 1;
    if (neg) e = -e;
  }
  if (digits_out) *digits_out = digits;
  if (exponent_out) *exponent_out = e;
  if (digits > AX_DECIMAL_MAX_DIGITS) return AX_DECIMAL_TOO_MANY_DIGITS;
  if (e > AX_DECIMAL_MAX_EXPONENT || e < -AX_DECIMAL_MAX_EXPONENT) return AX_DECIMAL_EXPONENT_RANGE;
  return AX_DECIMAL_OK;
}

bool ax_decimal_parse(const char *text, int64_t *num_out, int64_t *den_out) {
  int64_t num = 0, den = 1;
  const char *p = text;
  bool any = false, frac = false;
  for (; *p; p++) {
    if (*p == '.' && !frac) {
      frac = true;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    any = true;
    if (num > (INT64_MAX - 9) / 10) return false;
    num = num * 10 + (*p - '0');
    if (frac && !times_ten(&den)) return false;
  }
  if (!any) return false;
  if (*p == 'e' || *p == 'E') {
    p++;
    bool up = *p != '-';
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return false;
    /* an int64 holds at most 18 more powers of ten: a larger exponent is refused as it is
     * read, so e never overflows and the loop below runs at most 18 times */
    long e = 0;
    for (; *p >= '0' && *p <= '9'; p++)
      if ((e = e * 10 + (*p - '0')) > 18) return false;
    for (long i = 0; i < e; i++)
      if (!times_ten(up ? &num : &den)) return false;
  }
  if (*p) return false;
  /* reduce by common factors of 2 and 5 so printing stays short */
  while (den % 2 == 0 && num % 2 == 0) den /= 2, num /= 2;
  while (den % 5 == 0 && num % 5 == 0) den /= 5, num /= 5;
  *num_out = num;
  *den_out = den;
  return true;
}
