/* mugtext.h — the .mug text format of μGraphs: parser and canonical printer.
 *
 * Grammar (docs/superopt.md has it with examples; `#` starts a comment to end of line):
 *
 *   file     = mugraph
 *   mugraph  = "mugraph" NAME "{" { gstmt } "}"
 *   gstmt    = "input" NAME ":" DTYPE "[" INT { "," INT } "]"
 *            | NAME "=" call                                   pre-defined kernel operator
 *            | "kernel" NAME "grid" ints3 [ "block" ints3 ] [ "forloop" INT ]
 *                  "{" { bstmt } "}"                          graph-defined kernel
 *            | "output" NAME { "," NAME }
 *   bstmt    = NAME "=" "input" NAME "imap" map [ "fmap" dim ] input iterator
 *            | NAME "=" "accum" ACC "(" NAME { "," attr } ")"  for-loop accumulator
 *            | NAME "=" call                                   block operator
 *            | "thread" "{" { NAME "=" call } "}"              thread graph
 *            | "output" NAME "=" NAME "omap" map               output saver
 *   call     = OP "(" arg { "," arg } ")"
 *   arg      = NAME | number | "-" number | "[" INT { "," INT } "]" | attr
 *   attr     = ("axis" | "to" | "times") "=" ["-"] INT
 *   map      = "{" [ gaxis ":" dim { "," gaxis ":" dim } ] "}"   gaxis = "x" | "y" | "z"
 *   dim      = INT | "-"                                       "-": replicate
 *   ints3    = "[" INT "," INT "," INT "]"
 *   ACC      = "sum" | "concat" | "rms"
 *
 * Names are resolved while parsing (kernel tensors across the graph, block tensors inside
 * their kernel); validation is mugraph.h's. Comments and single blank lines are kept, so
 * printing a file in canonical layout gives it back byte for byte. */
#ifndef AX_MUGTEXT_H
#define AX_MUGTEXT_H

#include "superopt/ir/mugraph.h"

/* Parses src into a μGraph allocated in a. Reports syntax and name errors through d and
 * returns NULL if there were any. Does not validate (call ax_mug_check). Readers of a
 * file or a text go through load.h, which parses and validates in one call. */
AxMugraph *ax_mugtext_parse(AxArena *a, AxDiag *d, const AxSource *src);

/* Prints g in canonical layout (two-space indentation, one statement per line). */
void ax_mugtext_print(FILE *out, const AxMugraph *g);

/* The same text as a string (owned by the caller, free()). */
char *ax_mugtext_string(const AxMugraph *g);

/* Prints statement st of g as its line(s) in canonical layout, indented by two spaces,
 * without its comments (a kernel's lines keep those inside it) or the final newline: `input X : f16[8, 64]`, `Y = matmul(X, W)`
 * (a pre-defined operator: also the right-hand side of a program's `let`), a kernel, or
 * `output A, B`. */
void ax_mugtext_print_stmt(FILE *out, const AxMugraph *g, const AxKStmt *st);

/* Prints an imap or omap (three entries, -1 unmapped) as the grammar's `map`:
 * "{x: 1, z: 0}", "{}" when nothing is mapped. Every printer of maps (this one, the DOT
 * labels, the search's candidates) uses it. */
void ax_mugtext_print_map(FILE *out, const int *map);

#endif
