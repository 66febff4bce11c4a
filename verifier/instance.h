/* instance.h — one rank instance of a rule, executed symbolically.
 *
 * ax_instance_build instantiates every rank class at its rank, every symbolic map as one
 * Int variable per named axis ("s.k"), the general access as one Int variable per named
 * axis of the result ("@x.k"), runs both sides' denotations in the symbolic domain and
 * assembles the verification conditions of TensorRight §6.4:
 *
 *   pre      the preconditions (map conditions on every axis; tensor conditions at the
 *            points the two sides read), nonneg maps, and nothing else;
 *   query    pre ∧ valid(LHS) ∧ ¬( valid(RHS) ∧ sizes equal ∧ (access valid → same) ).
 *
 * The instance owns its arena, term context and symbolic domain (ax_instance_free). */
#ifndef AX_INSTANCE_H
#define AX_INSTANCE_H

#include "semantics/denote.h"
#include "semantics/symbolic.h"

typedef struct AxSymInstance {
  AxArena *a;
  AxTermCtx *tc;
  AxSymbolic *sym;
  AxDomain *d;
  const AxBlock *rule;
  const int *rank;
  AxType T;             /* the rule's type variable */
  AxType type;          /* the element type of the two sides */
  AxV **maps;           /* maps[sym][k]: the Int variables of symbolic maps */
  AxInst den;
  AxIndex acc;          /* the general access */
  const AxShape *lhs, *rhs;
  AxV lval, rval;       /* elements of the two sides at the access */
  const AxTerm *pre, *valid_lhs, *valid_rhs, *sizes_eq, *acc_valid, *same, *query;
  const char *unsupported;   /* non-NULL: the rule cannot be verified (why) */
  /* When a side is a reduction element the value equality is not a term: it is proved
   * through a bijection between the summation indices (bijection.h), under `ctx`, and
   * `query` covers only validity and sizes. The side that is not a reduction is one over
   * no variables (n = 0, dom true). */
  bool reduction;
  AxRedTerms red[2];         /* LHS, RHS */
  const AxTerm *hint;        /* the hints, instantiated (true when none) */
  const AxTerm *ctx;         /* pre ∧ valid(LHS) ∧ valid(RHS) ∧ sizes equal ∧ access valid */
  /* Where a summand of a reduction (or a value multiplied into one) would not be finite
   * (false when none can be): the normal forms of reductions assume finite summands, so
   * ctx ∧ not_finite must be unsatisfiable before any verdict but UNKNOWN (verify.c). */
  const AxTerm *not_finite;
  /* Sums closed under sqrt (symbolic.h): uninterpreted to the solver, so a model of the
   * query need not replay; 0 when none. */
  size_t nclosed;
  /* Set once ax_cex_search (AX_CEX_SAMPLES samples) has found no counterexample at this
   * instance: the search is deterministic (fixed seed, the instance's own maps and access
   * indices), so asking it again would find none (verify.c, bijection.c refute). */
  bool searched;
  void *classes;             /* internal: variable -> rank class */
} AxSymInstance;

void ax_instance_build(AxSymInstance *in, const AxBlock *rule, AxType T, const int *rank);
void ax_instance_free(AxSymInstance *in);

/* The rank class of a variable of this instance (a map's, an access index's or a
 * summation variable's), or -1. */
int ax_instance_var_rclass(const AxSymInstance *in, const AxTerm *var);
/* The rank class, the position (named axis k of the class) and the family of a variable
 * of this instance; false when var is none of its variables. Variables of one family are
 * one quantity (a map, an access axis, a summation of one group) on the named axes. */
bool ax_instance_var_info(const AxSymInstance *in, const AxTerm *var, int *rclass, int *pos,
                          long *family);
/* The variable of var's family at position pos (its twin on another named axis), or NULL. */
const AxTerm *ax_instance_twin(const AxSymInstance *in, const AxTerm *var, int pos);

#endif
