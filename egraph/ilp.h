/* ilp.h — exact extraction by integer linear programming (GLPK; docs/egraph.md,
 * "Extraction by ILP").
 *
 * Greedy extraction (extract.h) is optimal for the cost of a *tree*: a subterm used twice
 * is paid twice. A program computes a shared subterm once, so its cost is the cost of the
 * *DAG* of the chosen e-nodes, each paid once. This extraction minimizes that exactly:
 *   x_n in {0,1} per e-node n of finite cost reachable from the root, y_c in {0,1} per class;
 *   y_root = 1;  sum of x_n over the e-nodes of c = y_c  (a chosen class has one e-node);
 *   x_n <= y_k for every child class k of n              (its children are chosen);
 *   t_c - t_k >= 1 - M (1 - x_n), 0 <= t <= M - 1, M the number of classes
 *                                                        (a topological order: no cycle);
 *   minimize the sum of cost(n) x_n.
 * GLPK's branch and cut solves it with a time limit; past it, no answer is given (the
 * caller falls back to greedy), even if GLPK holds a feasible solution.
 *
 * GLPK is optional: a build without it (CMake found no libglpk-dev) has the same functions,
 * ax_eg_ilp_built false, and ax_eg_extract_ilp answering AX_EG_ILP_UNAVAILABLE; a caller
 * that offers the ILP asks ax_eg_ilp_built first and refuses the request (axle optimize
 * --extract ilp: exit 3). */
#ifndef AX_EG_ILP_H
#define AX_EG_ILP_H

#include "egraph/extract.h"

typedef enum {
  AX_EG_ILP_OPTIMAL,     /* *t is a cheapest DAG */
  AX_EG_ILP_TIMEOUT,     /* the time limit passed before optimality was proved */
  AX_EG_ILP_NO_TERM,     /* the class has no finite term */
  AX_EG_ILP_FAILED,      /* GLPK gave up otherwise (a numerical failure) */
  AX_EG_ILP_UNAVAILABLE, /* built without GLPK: nothing was tried */
} AxEgIlpStatus;

/* Whether this build has GLPK (else ax_eg_extract_ilp is AX_EG_ILP_UNAVAILABLE). */
bool ax_eg_ilp_built(void);

/* The cheapest DAG of class c of the rebuilt graph g under cost (as for ax_eg_extract:
 * positive, INFINITY never chosen), into *t in arena a, its cost (each e-node once) in
 * *total. time_limit_s bounds GLPK (at least 1 ms). Returns the status; *t is set only
 * when it is AX_EG_ILP_OPTIMAL. *nvars and *nrows (NULL allowed) receive the problem's size. */
AxEgIlpStatus ax_eg_extract_ilp(AxEgraph *g, AxEgId c, AxEgCost *cost, void *ctx,
                                double time_limit_s, AxArena *a, AxEgTerm *t, double *total,
                                size_t *nvars, size_t *nrows);

/* "optimal", "timeout", ... (static) */
const char *ax_eg_ilp_status_name(AxEgIlpStatus s);

#endif
