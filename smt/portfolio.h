/* portfolio.h — two solvers on one query: the race (PORTFOLIO) and cross-checking.
 * Same contract as ax_solver_check (solver.h), which calls it with the options already
 * defaulted, reason non-NULL with reason_len > 0 and *model_out already NULL. */
#ifndef AX_PORTFOLIO_H
#define AX_PORTFOLIO_H

#include "smt/query.h"

/* PORTFOLIO, or cross_check (portfolio.c). o->dump_path, when set, names the query's dump,
 * already written. */
AxSmtResult ax_portfolio_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                               const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                               char *reason, size_t reason_len);

#endif
