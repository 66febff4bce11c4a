/* pipe.h — a solver binary as a child process, spoken to in SMT-LIB2 over pipes.
 * Same contract as ax_solver_check (solver.h), which calls it with the options already
 * defaulted, reason non-NULL with reason_len > 0 and *model_out already NULL. */
#ifndef AX_PIPE_H
#define AX_PIPE_H

#include "smt/query.h"

AxSmtResult ax_pipe_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                          const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                          char *reason, size_t reason_len);

#endif
