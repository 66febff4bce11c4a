/* equiv.h — probabilistic equivalence of a μGraph with a program (Mirage §5).
 *
 * Pairs the μGraph's inputs and outputs with the program's by name (shapes and element
 * types must agree), checks that both are in the Lax fragment (lax.h), derives the
 * number of random tests T from δ, and runs them: every test draws ω, the sqrt function
 * and every input element uniformly from Zp x Zq (ChaCha20 from the seed), evaluates both
 * graphs with the field interpreter and compares every output element exactly. A test in
 * which a division by zero occurs says nothing and is drawn again.
 *
 * Then a float check runs both in doubles on inputs drawn uniformly from [-0.5, 0.5] and
 * rounded to their dtype, the program exactly (f64) and the μGraph with every stored
 * tensor rounded to its dtype (accumulators f32), and reports the largest relative error
 * max|μ - ref| / max|ref| per output; beyond the tolerance (or inf/nan) the μGraph is
 * rejected as numerically unstable, like Mirage's floating-point filter.
 *
 * Mirage itself runs one test in Z_13861 with fixed inputs; these tests use primes near
 * 2^31 and 2^32 and as many tests as the bound asks. */
#ifndef AX_EQUIV_H
#define AX_EQUIV_H

#include "superopt/mugraph.h"

typedef struct AxEquivOpts {
  double delta;          /* target probability of accepting a wrong μGraph (default 2^-30) */
  uint64_t seed;         /* seed of every random draw */
  int tests;             /* > 0: run exactly this many field tests (overrides the bound) */
  int max_tests;         /* cap on the derived count (default 1000) */
  int unbounded_tests;   /* tests to run when the theorem gives no bound (default 8) */
  bool require_bound;    /* treat "no bound" as a failure (exit 2) */
  int float_tests;       /* float checks (default 1; 0 skips) */
  double float_tol;      /* 0: by dtype (f16 2e-2, bf16 8e-2, f32 1e-4) */
  FILE *out;             /* report */
} AxEquivOpts;

void ax_equiv_defaults(AxEquivOpts *o);

/* Exit status: 0 equivalent, 1 not equivalent (or numerically unstable), 2 no guarantee
 * could be given and require_bound was set, 3 the pair cannot be compared (mismatched
 * inputs/outputs, outside the Lax fragment) — reported through d at the μGraph's or the
 * program's node. Both graphs must be validated. */
int ax_equiv_run(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o);

/* Parses "2^-30", "1e-9" or "0.001" into (0, 1). */
bool ax_equiv_parse_delta(const char *s, double *out);

#endif
