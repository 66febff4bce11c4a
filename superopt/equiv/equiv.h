/* equiv.h — probabilistic equivalence of a μGraph with a program (Mirage §5).
 *
 * Pairs the μGraph's inputs and outputs with the program's by name (shapes and element
 * types must agree: checked before any test, status 3 otherwise), checks that both are in the Lax fragment (lax.h), derives the
 * number of random tests T from δ, and runs them: p and q are drawn for the run from the
 * seed (field.h: a random prime q near 2^30, p = 2kq + 1), then every test draws ω, the
 * sqrt function and every input element uniformly from Zp x Zq (ChaCha20 from the seed),
 * evaluates both graphs with the field interpreter and compares every output element
 * exactly. A test in which a division by zero occurs says nothing and is drawn again.
 * Tests run on `jobs` threads; the verdict does not depend on their number.
 *
 * sqrt is read as an uninterpreted function in the field. Equal results then prove
 * equality for the real sqrt too (a function applied to equal arguments); a difference
 * does not refute it (sqrt(x)·sqrt(x) = x differs there). So when a graph takes a square
 * root and the field tests differ, both graphs are evaluated in doubles on random inputs,
 * compared where the program's outputs are finite: a relative difference above 1e-6 (far
 * beyond f64 rounding) is reported as not equivalent; when no output element is finite the
 * doubles cannot judge (status 3, cannot decide); otherwise the verdict is "equivalent by
 * testing, no bound" (exit 0, or 2 with require_bound) — never a "not equivalent" that only
 * the uninterpreted reading saw.
 * That verdict is evidence in doubles, not a proof: a graph wrong by 1e-7 relative through
 * a square root passes it. With field_only the doubles are not asked and the verdict is
 * status 2 ("not established"): a caller that writes a result (the search) sets it, so
 * that everything it writes was established by exact field tests (docs/superopt.md §4).
 *
 * Then a float check runs both in doubles on inputs drawn uniformly from [-0.5, 0.5] and
 * rounded to their dtype, the program exactly (f64) and the μGraph with every stored
 * tensor rounded to its dtype (accumulators f32), and reports the largest relative error
 * max|μ - ref| / max|ref| per output; beyond the tolerance (or inf/nan) the μGraph is
 * rejected as numerically unstable, like Mirage's floating-point filter.
 *
 * Mirage itself runs one test in Z_13861 with fixed inputs; these tests use primes near
 * 2^30 and 2^32, drawn per run, and as many tests as the bound asks. */
#ifndef AX_EQUIV_H
#define AX_EQUIV_H

#include "superopt/ir/mugraph.h"

typedef struct AxEquivOpts {
  double delta;          /* target probability of accepting a wrong μGraph (default 2^-30) */
  uint64_t seed;         /* seed of every random draw */
  int tests;             /* > 0: run exactly this many field tests (overrides the bound) */
  int max_tests;         /* cap on the derived count (default 1000) */
  int unbounded_tests;   /* tests to run when the theorem gives no bound (default 8) */
  bool require_bound;    /* treat "no bound" as a failure (exit 2) */
  int float_tests;       /* float checks (default 1; 0 skips) */
  double float_tol;      /* 0: by dtype (f16 2e-2, bf16 8e-2, f32 1e-4) */
  FILE *out;             /* report; NULL: silent */
  uint64_t p, q;         /* the field's primes; 0: drawn from seed (field.h) */
  int jobs;              /* threads for the field tests (default 1) */
  bool field_only;       /* equivalence only as the field tests establish it: a field
                            difference between graphs that take square roots is not
                            excused by the doubles (no "equivalent by testing, no bound"
                            through a sqrt law) but answered with status 2, and without the
                            doubles' run; what a search that writes its result must use */
  double deadline;       /* ax_clock_s() after which no further field test starts and a test
                            under way is cut short and void (0: none); a check it stops is
                            "not established" (status 2, AX_EQUIV_LATE), so a time limit
                            never turns into "equivalent" */
} AxEquivOpts;

void ax_equiv_defaults(AxEquivOpts *o);

/* Exit status: 0 equivalent, 1 not equivalent (or numerically unstable), 2 no guarantee
 * could be given and require_bound was set (or only a sqrt law excuses a field difference
 * and field_only was set), 3 the pair cannot be compared (mismatched
 * inputs/outputs, outside the Lax fragment) — reported through d at the μGraph's or the
 * program's node. Both graphs must be validated. */
int ax_equiv_run(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o);

/* How an "equivalent" (status 0) was reached. */
typedef enum AxEquivHow {
  AX_EQUIV_NONE,        /* not equivalent, or not established */
  AX_EQUIV_BOUNDED,     /* every field test agreed exactly, and as many ran as δ asks */
  AX_EQUIV_FIELD,       /* every field test agreed exactly, but Theorem 2 gives no bound
                           (attention: millions of exponential terms) or --tests ran fewer */
  AX_EQUIV_SQRT_LAW,    /* not established (status 2): the field tests differed where
                           sqrt is uninterpreted, the doubles agreed within 1e-9 (a law of
                           sqrt would explain it): evidence, not a proof; never with field_only */
  AX_EQUIV_LATE,        /* not established: the deadline passed before the tests decided
                           (status 2) */
} AxEquivHow;

/* What a tool that *writes* a graph or program must ask: ax_equiv_run with field_only, and
 * 0 only when exact field tests established the equivalence (AX_EQUIV_BOUNDED, or
 * AX_EQUIV_FIELD where Theorem 2 gives no bound) — never on the doubles' word (a sqrt law,
 * or a graph off by 1e-7 through a square root: 2). 4 when o->deadline stopped the check
 * (no verdict). Otherwise ax_equiv_run's status. */
int ax_equiv_accept(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d, const AxEquivOpts *o);

/* The bytes a check of mug against prog holds at once with `jobs` threads of field tests (as
 * ax_interp_bytes counts them): per thread both graphs' values (and a second run of the larger
 * where either takes a max or min, read as a fresh variable), or the float tests (the program twice, the graph once, in
 * doubles), whichever is more. Saturates at INT64_MAX. Every check (ax_equiv_run, accept,
 * candidate, estimate) first asks the memory budget (base/mem.h) for it and is status 3 —
 * reported through d, "needs about N MB, more than the --memory limit of L MB leaves" — when
 * it does not fit, before anything is allocated. */
int64_t ax_equiv_bytes(const AxMugraph *prog, const AxMugraph *mug, int jobs);

/* About how many seconds ax_equiv_accept(prog, mug, o) takes: the number of field tests the
 * bound asks times one test at full shape, run and timed here, over the threads, plus two
 * tests' time for the float check, which runs on one (with o->deadline: -1 when it passed
 * first, as when the pair cannot be compared). A time budget's planning figure, never
 * a verdict. */
double ax_equiv_estimate(const AxMugraph *prog, const AxMugraph *mug, const AxEquivOpts *o);
/* ax_equiv_run that also says how an equivalence was reached (*how; may be NULL). */
int ax_equiv_run_how(const AxMugraph *prog, const AxMugraph *mug, AxDiag *d,
                     const AxEquivOpts *o, AxEquivHow *how);

/* ---- the search's fast path -----------------------------------------------------------
 *
 * A search checks thousands of candidates against one program. ax_equiv_ctx_new prepares
 * the program once (the run's primes, its pairing data, scaled-down copies of it);
 * ax_equiv_candidate then checks one candidate μGraph in two stages:
 *   1. filter: the program and the candidate are rebuilt at a scaled-down instance —
 *      the same statements, every size s that a factor f divides with s/f >= 8 replaced
 *      by s/f, the same f for both graphs and for every size (largest f in 64..2 for which
 *      the size map is one-to-one and both graphs validate: grids, for-loops and tiles
 *      must still divide) — and one field test runs there. The candidate is rejected
 *      only when that test shows a difference (with a witness replayed in interval arithmetic when a square root is
 *      involved): a scaling that breaks a divisibility, or any other failure to build
 *      the instance, skips the filter instead of rejecting. With field_only (what the
 *      search sets) any field difference rejects, without a run in doubles: the final
 *      check would refuse such a candidate anyway.
 *   2. survivors get the full-shape check of ax_equiv_run with its δ (and float check).
 * The filter loses nothing that is equivalent for structural reasons; a candidate that
 * would be equivalent only at the exact full sizes (a coincidence of sizes) may be
 * filtered out. It never accepts: every "equivalent" comes from stage 2. */
typedef struct AxEquivCtx AxEquivCtx;

typedef struct AxEquivResult {
  int status;          /* as ax_equiv_run: 0 equivalent, 1 not, 2 no guarantee (require_bound), 3 cannot compare */
  bool bounded;        /* status 0 with the δ guarantee (not "by testing, no bound") */
  AxEquivHow how;      /* how a status 0 was reached */
  bool filtered;       /* rejected by the scaled instance; stage 2 did not run */
  int64_t scale;       /* the factor f of the scaled instance; 1 when no filter ran */
  double ms;           /* wall time of this check */
} AxEquivResult;

/* prog: a validated program μGraph, borrowed for the context's lifetime. o is copied; its
 * `out` is ignored (candidate checks are silent) and its primes are drawn once here when
 * 0. Returns an owned context; free with ax_equiv_ctx_free. */
AxEquivCtx *ax_equiv_ctx_new(const AxMugraph *prog, const AxEquivOpts *o);
void ax_equiv_ctx_free(AxEquivCtx *c);
/* Checks validated candidate mug (borrowed) against the context's program. Thread-safe:
 * any number of threads may call it on one context at once (the context is read-only
 * after ax_equiv_ctx_new; each call allocates its own state). Problems that make the pair
 * incomparable are reported through d (may be NULL: silent) and give status 3. The field
 * tests of one call run on o->jobs threads (set jobs 1 when the search itself runs one
 * check per thread). */
void ax_equiv_candidate(const AxEquivCtx *c, const AxMugraph *mug, AxDiag *d, AxEquivResult *r);
/* The run's primes (printed by the caller so that a run can be reproduced). */
void ax_equiv_ctx_primes(const AxEquivCtx *c, uint64_t *p, uint64_t *q);

/* Parses "2^-30", "1e-9" or "0.001" into (0, 1). */
bool ax_equiv_parse_delta(const char *s, double *out);

#endif
