/* arith.h — exact preprocessing of a query's integer arithmetic, before any solver sees it.
 *
 * Convolutions, dilations and interior padding put divisibility by unknown amounts into
 * the queries: "y = p·st + w·rd − lo, y ≥ 0, y mod ld = 0, y div ld < n". Products of
 * unknowns are nonlinear integer arithmetic, where z3 and cvc5 both time out on queries a
 * person proves in three lines — by substitution: from y mod ld = 0 write y = ld·q, solve
 * for a variable of y, and the other side's "mod (ld + ld·ip) = 0" becomes a polynomial
 * identity. ax_arith_simplify does exactly that work, and nothing that is not exact:
 *
 *  1. polynomial normal form of integer +, −, · (ring identities; a sum or product that
 *     would grow past a fixed size is left as it is);
 *  2. bounds: every top-level conjunct that compares integers (x ≥ 1, n − 1 ≥ 0, ...) gives
 *     an interval to its polynomial, and interval arithmetic decides comparisons and
 *     `ite` conditions elsewhere in the formula (never inside those conjuncts themselves,
 *     which stay as they are: the formula implies them, so using them elsewhere is exact);
 *  3. exact division: `P div D = Q` and `P mod D = 0` when P = D·Q as polynomials and D is
 *     known to be non-zero (a non-zero constant, the semantics' guarded divisor
 *     `ite(0 < d, d, 1)`, or an interval without 0);
 *  4. divisibility elimination: a top-level conjunct `a mod d = 0` (d non-zero) where
 *     a = ±v + R for a variable v that occurs nowhere else in a or in d becomes
 *     v := ±(d·q − R) with a fresh variable q, substituted everywhere.
 *
 * The result is equisatisfiable with the input, and the watched terms are rewritten by the
 * same substitutions: a model of the result, read through the rewritten watch terms, gives
 * the values the original watch terms have in a model of the original formula (v takes the
 * value of ±(d·q − R)). Integer overflow of a coefficient or bound (int64) abandons the
 * whole simplification: the original query is used, never a wrong one. */
#ifndef AX_ARITH_H
#define AX_ARITH_H

#include "semantics/term.h"

/* Does formula divide by something that is not a constant, or multiply two integer terms
 * that are not? Only such queries are worth preprocessing: elsewhere the solvers' own
 * (linear) arithmetic is enough, while a product left unexpanded hides ring identities
 * from them — a convolution's output size (k - 1)·(p + 1) + 1 against k + (k - 1)·p took
 * z3 0.6-1 s and cvc5 over 10 s as written, nothing in normal form (docs/semantics.md, "Shortcuts in solving"). */
bool ax_arith_wanted(const AxTermCtx *tc, const AxTerm *formula);

/* The simplified formula; watch_out[0..nwatch) receives the rewritten watch terms.
 * *eliminated (if non-NULL) receives the number of divisibility constraints eliminated.
 * Returns formula itself (and the watch terms unchanged) when nothing applies or an
 * integer overflowed. Adds terms to tc; borrows everything else. */
const AxTerm *ax_arith_simplify(AxTermCtx *tc, const AxTerm *formula,
                                const AxTerm *const *watch, size_t nwatch,
                                const AxTerm **watch_out, unsigned *eliminated);

/* The polynomial normal form of t (step 1, and step 3 for constant or guarded divisors):
 * ring identities only, no bounds, no context — t and the result are equal for every value
 * of every variable. Canonical: two terms equal as polynomials over the same atoms get the
 * same normal form. Returns t itself on integer overflow. Adds terms to tc. */
const AxTerm *ax_arith_normal(AxTermCtx *tc, const AxTerm *t);

/* formula ∧ F1 ∧ … ∧ Fm, each Fi a product fact its top-level conjuncts imply (at most
 * 32): P·a >= 0 for a bound P >= 0 of degree 1 (x < y gives y - x - 1 >= 0) and an atom a
 * they bound below by 0, when P·a has a monomial formula mentions — the monotonicity of a
 * window's index arithmetic, j <= k - 1 so j·d <= (k - 1)·d; and Q >= 0 (Q >= 1) from a
 * bound a·Q >= 0 (a·Q >= 1) with a >= 1 in every monomial. Equivalent to formula (same
 * models); formula itself when there is no fact or a coefficient overflows. For queries
 * that need only their answer (the pairing checks): the facts change which model a
 * solver finds. Adds terms to tc. */
const AxTerm *ax_arith_window_facts(AxTermCtx *tc, const AxTerm *formula);

/* Cases for a query whose simplification still divides by unknowns: formulas out[0..k)
 * whose disjunction is equivalent to formula -- one per disjunct of a top-level disjunction
 * (of at most max disjuncts), which replaces it; or else formula with x >= 0 and with x < 0
 * for the argument x of an integer |x|; or else formula with c and with not c for the
 * condition c of an integer ite inside a division. Each case gives the bounds that let the
 * next simplification decide signs, choose branches and reduce remainders; formula is
 * unsatisfiable if and only if every case is. Returns k (0: no split worth making). */
size_t ax_arith_split(AxTermCtx *tc, const AxTerm *formula, const AxTerm **out, size_t max);

#endif
