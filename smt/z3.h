/* z3.h — the in-process z3 back-end (z3.c is the only file that includes <z3.h>).
 * Same contract as ax_solver_check (solver.h), which calls it with the options already
 * defaulted, reason non-NULL with reason_len > 0 and *model_out already NULL. */
#ifndef AX_Z3_H
#define AX_Z3_H

#include "smt/query.h"

AxSmtResult ax_z3_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                        const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                        char *reason, size_t reason_len);

#endif
