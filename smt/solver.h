/* solver.h — one interface to the SMT solvers, whichever back-end answers.
 *
 * ax_solver_check asks whether a Boolean term is satisfiable. The verifier passes the
 * negation of what it wants proved, so UNSAT is the only answer that proves anything, and
 * the one rule every path below keeps is: a timeout, a crash, an error, an answer we cannot
 * parse, memory exhaustion -- anything but a clean "unsat" from the solver -- is
 * AX_SMT_UNKNOWN with a reason, never AX_SMT_UNSAT.
 *
 * Back-ends: AX_SOLVER_Z3 calls libz3 in-process (z3.c, the only file that includes z3.h);
 * AX_SOLVER_PIPE runs a solver binary as a child process and talks SMT-LIB2 with it over
 * pipes (pipe.c; the text comes from smtlib.c). Both are reentrant: no global state, each
 * call owns its Z3 context or child process and releases it before returning.
 * AX_SOLVER_PORTFOLIO and cross_check use both (portfolio.c): each back-end answers in a
 * process of its own — the binary's started for the query (from a thread that talks to
 * it), z3's a helper that answers query after query (helper.h) — so that the one not needed
 * any more can be killed at once. */
#ifndef AX_SOLVER_H
#define AX_SOLVER_H

#include "smt/query.h"

/* Is formula (sort Bool, built in tc) satisfiable?
 * On SAT, when model_out is non-NULL, *model_out receives a model owned by the caller
 * (ax_model_free) holding a value for each of watch[0..nwatch) the solver could give
 * (model completion is on, so normally all of them). Otherwise *model_out is NULL.
 * On UNKNOWN, reason[0..reason_len) receives why ("timeout after 10 s", "solver crashed
 * (signal 11)", "solver said unknown (incomplete)", "z3 error: ...", "unparsable answer:
 * ..."); reason may be NULL when reason_len is 0. Borrows everything. A query that divides
 * by unknowns is first simplified exactly (arith.h), which adds terms to tc.
 * A failure to write dump_path makes the answer UNKNOWN. */
AxSmtResult ax_solver_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                            const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                            char *reason, size_t reason_len);

#endif
