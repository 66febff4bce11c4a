/* pipe.h — a solver binary as a child process, spoken to in SMT-LIB2 over pipes.
 *
 * ax_pipe_check has the contract of ax_solver_check (solver.h), which calls it with the
 * options already defaulted, reason non-NULL with reason_len > 0 and *model_out already
 * NULL. It is ax_pipe_prepare, ax_pipe_run and ax_pipe_job_free in a row; the portfolio
 * (portfolio.c) calls them apart, so that the conversation runs in a thread of its own:
 * prepare reads the terms, in the thread that owns them; run touches no term and no
 * option (any thread), and stops early, killing the solver, once cancel_fd is readable. */
#ifndef AX_PIPE_H
#define AX_PIPE_H

#include "smt/query.h"

typedef struct AxPipeJob AxPipeJob;

AxSmtResult ax_pipe_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                          const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                          char *reason, size_t reason_len);

/* The query rendered for o->binary, with an empty model for watch when want_model.
 * NULL, with the reason, if the binary is not found or the query cannot be rendered. */
AxPipeJob *ax_pipe_prepare(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                           const AxTerm *const *watch, size_t nwatch, bool want_model,
                           char *reason, size_t reason_len);
/* Asks the solver. On SAT with a model wanted, *model_out (when model_out is non-NULL)
 * gets the job's model. cancel_fd: -1, or a descriptor that becomes readable when the
 * answer is no longer wanted (UNKNOWN, "cancelled"). Runs once per job. */
AxSmtResult ax_pipe_run(AxPipeJob *j, int cancel_fd, AxModel **model_out, char *reason,
                        size_t reason_len);
void ax_pipe_job_free(AxPipeJob *j);   /* NULL is fine */

#endif
