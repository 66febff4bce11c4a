/* helper.h — z3 in a helper process that outlives its queries (portfolio.c's z3 racer).
 *
 * A racer forked per query pays for a new process: a z3 context made in it writes some
 * 5 000 fresh pages, and each fork write-protects every page of the forking worker again
 * (measured on 2-core VMs: more than an easy query costs). The helper is forked once and never forks, so its memory stays
 * warm; the query reaches it as a term DAG over a socket (the wire format of helper.c), it
 * rebuilds the terms in a context of its own, asks z3.c on a new z3 context, and writes the
 * answer back in the racers' text format (ax_helper_write_answer). A helper that crashes,
 * babbles or outlives its deadline is killed by the caller (ax_helper_kill) and a new one
 * is forked for the next query. */
#ifndef AX_HELPER_H
#define AX_HELPER_H

#include <stdio.h>
#include <sys/types.h>

#include "smt/query.h"

/* Sends the query to this process's helper (forking one first if there is none) with
 * o->timeout_ms as z3's limit: on success *pid is the helper and *fd the end its answer
 * comes from, one answer per query, ending with the line "end". Both stay the helper's
 * (ax_helper_kill closes and reaps them). False, with the reason, when no helper could be
 * started or the query not sent (the helper is then killed). */
bool ax_helper_send(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                    const AxTerm *const *watch, size_t nwatch, bool want_model, pid_t *pid,
                    int *fd, char *reason, size_t reason_len);

/* Kills this process's helper with its tree, reaps it, closes its socket; the next
 * ax_helper_send forks a new one. Returns its wait status (-1: none, or not reaped). */
int ax_helper_kill(void);

/* The racers' answer format, one item a line: "unsat", "unknown <reason>" (reason on one
 * line), or "sat <n>" then n model slots ("-" no value, "b 0", "b 1", "q <rational>");
 * then "end". m may be NULL (sat without a model: n = 0). */
void ax_helper_write_answer(FILE *f, AxSmtResult r, const AxModel *m, const char *reason);

#endif
