/* symbolic.h — the symbolic value domain: denotations build SMT terms.
 *
 * Integers and booleans are terms of sort Int and Bool. A numeric element is four terms:
 * its value (Int or Real) and three flags (is NaN, is +inf, is -inf) — all constant false
 * for the finite inputs, so the term builder folds them away unless a rule writes `inf` or
 * an operation can produce NaN (see docs/semantics.md). Bool elements are Bool terms.
 *
 * An input tensor is an uninterpreted function from its named-axis indices to its element
 * sort; every read the denotations make is recorded (tensor, index terms, application
 * term) so bound inference can count reads and a counterexample can be replayed. Tensor
 * inputs are finite: a read's flags are false.
 *
 * All terms live in the AxTermCtx given at creation (owned by the caller). */
#ifndef AX_SYMBOLIC_H
#define AX_SYMBOLIC_H

#include "semantics/domain.h"
#include "semantics/term.h"

typedef struct AxSymbolic AxSymbolic;

/* The head of a domain whose values are terms of one context: the symbolic domain and the
 * IEEE domain (fpsym.h) begin their state with it, and share the integers and booleans
 * (Int and Bool terms) written once here: ax_symbolic_scalars fills the members int_lit
 * through bnot of d, which must be the `dom` of an AxTermScalars. */
typedef struct AxTermScalars {
  AxDomain dom;
  AxTermCtx *tc;
} AxTermScalars;
void ax_symbolic_scalars(AxDomain *d);

typedef struct AxRead {
  int sym;                  /* the tensor's symbol in the rule */
  AxType type;
  size_t n;                 /* number of indices */
  const AxTerm **idx;       /* index terms (Int) */
  const AxTerm *app;        /* the application term: its value */
} AxRead;

AxSymbolic *ax_symbolic_new(AxTermCtx *tc, const char *const *tensor_names);   /* owned */
void ax_symbolic_free(AxSymbolic *s);
AxDomain *ax_symbolic_domain(AxSymbolic *s);      /* borrowed; lives as long as s */

/* `a op b` for two Bool terms with false < true, op eq..ge (the comparison rows of this
 * domain, which the IEEE domain's bool elements share); NULL for an op that is no
 * comparison. The term lives in tc. */
const AxTerm *ax_symbolic_bool_compare(AxTermCtx *tc, AxOp op, const AxTerm *a, const AxTerm *b);

AxV ax_symbolic_int_var(AxSymbolic *s, const char *name);   /* a fresh-named Int variable */
const AxTerm *ax_symbolic_term(AxV int_or_bool);            /* the term behind a value */
/* The terms of an element of type t: [0] value (or the Bool), [1] NaN, [2] +inf, [3] -inf
 * (the flags are NULL for bool elements). */
void ax_symbolic_elem_terms(AxV elem, AxType t, const AxTerm *out[4]);
/* A reduction element Red_X f(X): the summation variables, the domain (a Bool term over
 * them) and the summand's value term (finite by construction). */
typedef struct AxRedTerms {
  size_t n;
  const AxTerm *const *vars;
  const AxTerm *dom;
  const AxTerm *body;
} AxRedTerms;
/* Is elem (of numeric type t) a reduction element? Fills out either way (body = value). */
bool ax_symbolic_red(AxV elem, AxType t, AxRedTerms *out);

/* Summation variables made by `sum`, with the aggregated axis each ranges over (-1 for a
 * tag variable that picks a side of a sum), the named axis of it (its position) and a group
 * number: the variables of one summation (or one renaming apart of it) share a group, so
 * the variable of position k and that of position k' of one group are twins — the same
 * index on two named axes, which bound inference pairs (rank.h). */
typedef struct AxSumVar {
  const AxTerm *var;
  int axis;
  int pos;
  int group;
} AxSumVar;
const AxSumVar *ax_symbolic_sumvars(const AxSymbolic *s, size_t *n);

/* Obligations and facts the verifier must use (docs/semantics.md, "Reductions"):
 * not_finite is the disjunction of the conditions under which a summand of some reduction
 * (or a value multiplied into one) is not finite — false when every summand is finite by
 * construction; a verdict other than UNKNOWN needs it unsatisfiable under the assumptions.
 * facts is the conjunction of the definitional facts of the sqrt applications (true in
 * every real interpretation; conjoined to the assumptions). Both owned by s's term context. */
const AxTerm *ax_symbolic_not_finite(AxSymbolic *s);
const AxTerm *ax_symbolic_facts(AxSymbolic *s);

/* A sum closed into a value under a function (sqrt): the application term S(indices) that
 * stands for it, and the sum itself (its variables, domain and summand as built). */
typedef struct AxClosedSum {
  const AxTerm *app;
  size_t n;
  const AxTerm *const *vars;
  const AxTerm *dom;
  const AxTerm *body;
} AxClosedSum;
const AxClosedSum *ax_symbolic_closed(const AxSymbolic *s, size_t *n);

/* What an application of one of this domain's own uninterpreted functions stands for, for
 * an exact evaluator of its terms (verifier/pairing.c): each is the true function wherever
 * the terms this domain builds use its value, and open elsewhere. A tensor read and log
 * (term.h ax_term_is_log) are none of them. */
typedef enum {
  AX_SYMFN_NONE,
  AX_SYMFN_SQRT,      /* r(x): the non-negative root of x >= 0 */
  AX_SYMFN_IPOW,      /* w(x, y): the integer power x^y, for y >= 1 */
  AX_SYMFN_POW_INT,   /* k(y): an integer with to_real(k) = y when y is one (floor y) */
  AX_SYMFN_POW_ODD,   /* j(y): an integer with 2j + 1 = y when y is an odd one */
  AX_SYMFN_ROUND,     /* R(x): x rounded to the format of the conversion *op */
  AX_SYMFN_ROUND_K,   /* K(x): the ulp count of R(x), only in facts */
  AX_SYMFN_SUM,       /* S(…): a closed sum (ax_symbolic_closed) */
} AxSymFn;
AxSymFn ax_symbolic_fn(const AxFunc *f, AxOp *op);

/* Every read recorded so far, in order, without duplicates. */
const AxRead *ax_symbolic_reads(const AxSymbolic *s, size_t *n);

#endif
