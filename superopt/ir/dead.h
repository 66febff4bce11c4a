/* dead.h — dead code: the statements of a program or μGraph whose results reach no output.
 *
 * A statement is live when an output reads its result, or a live statement does; a block
 * node of a graph-defined kernel is live when it reaches a saver whose kernel tensor is
 * live (through operands, an accumulator's value or the max a sum is rescaled by). Every
 * other statement, saver and block node is dead, and dropping it changes no output: an
 * output's value is a function of the statements it reaches and nothing else — operators,
 * kernels and block nodes compute from their operands only, write nothing but their own
 * results and have no effect beyond them — so the graph without the dead ones computes every
 * output exactly as the graph with them, for every value of the inputs. A kernel left with
 * no live saver is dead as a whole.
 *
 * Inputs are never dropped, read or not: the interface (names, shapes, types) is the
 * graph's, and a graph checked against it must declare the same inputs.
 *
 * Why it matters: a dead `max` or comparison (a value computed and never used, common in
 * dumped HLO) would make the equivalence check refuse the whole program (the finite field
 * has no order), and the search, the floor and the partitioner would spend time on it. */
#ifndef AX_DEAD_H
#define AX_DEAD_H

#include "superopt/ir/mugraph.h"

/* One top-level statement dropped. */
typedef struct AxDeadStmt {
  const char *name;   /* the tensor an operator defines, or the kernel's name */
  AxSpan span;        /* the statement */
} AxDeadStmt;

typedef struct AxDead {
  AxDeadStmt *stmts;  /* in the graph's order (arena) */
  int nstmts;
  int nnodes;         /* block nodes (savers included) dropped from kernels that stay */
} AxDead;

/* Graph g (validated, borrowed) without its dead statements and block nodes: g itself when
 * nothing is dead, else a new validated μGraph allocated in a (tensors renumbered; names,
 * spans and notes shared with g, which must outlive it). *out says what was dropped (all
 * zero when nothing was). Never fails: should the pruned graph not validate (a bug), g is
 * returned unchanged and *out is zero — keeping dead code is always sound. */
AxMugraph *ax_dead_drop(AxArena *a, AxMugraph *g, AxDead *out);

#endif
