/* lax.h — the Lax fragment check and the number of random tests (Mirage §5).
 *
 * Lax fragment (Mirage Def. 5.1): multi-linear operators, division, and at most one
 * exponentiation on every path from an input to an output. silu(v) = v·e^v/(1+e^v),
 * logistic(v) = e^v/(1+e^v) and tanh(v) = (e^2v-1)/(e^2v+1) count as one exponentiation.
 * sqrt (and so rms_norm, mean-free rms accumulators, rsqrt = 1/sqrt) is outside the
 * fragment; axle reads it as an uninterpreted function (field.h) and says so. max and min
 * need an order, which the field lacks: a graph using them is refused.
 *
 * The test count. Theorem 2 (arXiv v3 form) bounds the probability that one random test
 * in Zp x Zq misses a difference between two Lax graphs, for every output element whose
 * difference has the form of Equation 2, by
 *     eps_thm = 8·d·k^4/q + q^(-1/k^2)
 * where k is the number of exponential terms and d the largest degree of a polynomial in
 * it. Reading sqrt as a random function adds the chance that two different square-root
 * arguments collide at the random point: eps_uf = C(m, 2)·d_uf/p for the m square roots
 * one output element depends on (arguments of degree <= d_uf). With eps = eps_thm +
 * eps_uf < 1, T = ceil(ln δ / ln eps) independent tests miss a difference with probability
 * at most δ (Theorem 3). When eps >= 1 the theorem gives no bound.
 *
 * k, d, m and d_uf are computed by an abstract interpretation of both graphs (the program
 * and the μGraph) at tensor granularity: each tensor gets, for its worst element, the
 * number of exponential terms of its numerator and denominator (kn, kd), the degree, and
 * along which axes its denominator may vary. A sum over an axis along which the
 * denominator is constant keeps the denominator (the common case: x / rms(x) summed along
 * the rows of a matmul); otherwise fractions are cross-multiplied and the bound becomes
 * infinite. The difference of two values N1/D1 - N2/D2 has k = kn1·kd2 + kn2·kd1 terms
 * (k = 1 when neither side has an exponential) and degree d1 + d2. */
#ifndef AX_LAX_H
#define AX_LAX_H

#include "superopt/ir/mugraph.h"

/* The abstract value of a tensor (worst element). Counts are doubles: they saturate to
 * huge values instead of overflowing. */
typedef struct AxLaxVal {
  double kn, kd;     /* exponential terms of numerator and denominator (Equation 2) */
  double deg;        /* largest degree of a polynomial of the representation */
  bool exp;          /* holds exponential terms */
  int nexp;          /* exponentials on the longest path (Lax: <= 1) */
  double nuf;        /* square roots the element depends on (counted with repetition) */
  double ufdeg;      /* largest degree of a square-root argument */
  uint32_t vary;     /* axes (bits 0..7) along which values may differ; bit 8: iteration,
                        bits 9..11: grid x, y, z */
  uint32_t den;      /* the same for the denominator */
} AxLaxVal;

/* Analyses g (validated): checks the Lax fragment, reporting each violation through d at
 * the operator, and writes the abstract value of every output (g->outputs order) into
 * outs (g->noutputs entries). Returns false after a violation. *uses_sqrt tells whether
 * some square root was read as an uninterpreted function. */
bool ax_lax_analyse(const AxMugraph *g, AxDiag *d, AxLaxVal *outs, bool *uses_sqrt);

typedef struct AxLaxBound {
  double k, d;        /* exponential terms and degree of the difference */
  double m, ufdeg;    /* square roots and their argument degree */
  double eps_thm, eps_uf, eps;   /* per-test miss probability bounds */
  double tests;       /* tests for δ; INFINITY when there is no bound */
} AxLaxBound;

/* The bound for one pair of corresponding outputs, target δ (0 < δ < 1) and the run's
 * primes q and p. */
void ax_lax_tests(const AxLaxVal *a, const AxLaxVal *b, double delta, double q, double p,
                  AxLaxBound *out);

#endif
