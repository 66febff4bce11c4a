/* load.h — the one door from text into the IR: a `.axl` program or a `.mug` μGraph, read,
 * its program block picked, lowered and validated, in one call.
 *
 * Every reader of a program or a μGraph goes through here: the verbs (cuda, emulate, equiv,
 * mugraph, cost, mpk, superopt, optimize, check) and the superoptimizer's own re-reads of
 * texts it generated (a candidate, a region, a stitched module, a tile rewrite, a seed
 * variant). Each step reports through the caller's sink and the door stops at the first that
 * fails, so the messages, their locations and their order are the steps' own. Errors are
 * counted from the door's entry: a sink that holds errors already (a verb's earlier file)
 * fails no later load.
 *
 *   read      ax_source_load (from_file only): "cannot open 'p.axl': ..."
 *   parse     a program file: the rule language's parser (dsl/parse.h), which also parses
 *             `program` blocks; a μGraph: ax_mugtext_parse
 *   pick      a program file: ax_prog_find — the block named AxLoadOpts.program, else the
 *             file's only one; located at the file ("no program named 'q' in this file")
 *   lower     ax_prog_lower (programs)
 *   validate  ax_mug_check (both; it also infers the shapes and element types the lowered
 *             or parsed graph leaves to it)
 *
 * A module of its own rather than a function in program.c or mugtext.c: it is the one place
 * in the IR layer that joins both formats with the parser of dsl/ (program.c needs only the
 * AST, mugtext.c nothing of dsl/), so neither format's module depends on the other.
 *
 * XLA HLO modules (.hlo) do not come through here: importing one is cli/files.c's
 * (ax_files_import_hlo), which relocates an imported program's error to its HLO instruction
 * and names the verb that lists the cuts; the program text an import writes comes through
 * the door as text. */
#ifndef AX_LOAD_H
#define AX_LOAD_H

#include "dsl/ast.h"
#include "superopt/ir/mugraph.h"

typedef enum AxLoadKind {
  AX_LOAD_BY_NAME,   /* by the name's ending: ".axl" a program, anything else a μGraph */
  AX_LOAD_PROGRAM,   /* a file of `program` blocks (rules in it are parsed, not checked) */
  AX_LOAD_MUGRAPH,   /* the .mug text of one μGraph */
} AxLoadKind;

typedef struct AxLoadOpts {
  AxLoadKind kind;
  const char *program;   /* the program block to take; NULL: the file's only program */
  bool parse_only;       /* a μGraph parsed, not validated: `axle mugraph fmt` prints what
                          * parses, a region's graph is only renamed into the module's text
                          * (which is validated whole) */
} AxLoadOpts;

/* The μGraph of `text` (NUL-terminated; copied into a, so the caller may free it), named
 * `name` in diagnostics; allocated in a. o NULL: every default (kind by the name). d NULL:
 * diagnostics are counted, never printed — a generated text that fails is refused, not
 * reported. Returns NULL after the diagnostics of the first failing step. */
AxMugraph *ax_load_from_text(AxArena *a, AxDiag *d, const char *name, const char *text, const AxLoadOpts *o);

/* The same for the file at path (the input limit and the refusals of ax_source_load). */
AxMugraph *ax_load_from_file(AxArena *a, AxDiag *d, const char *path, const AxLoadOpts *o);

/* The door's last two steps for a block the caller parsed itself (kind AX_B_PROGRAM): b
 * lowered and validated, NULL after reporting through d. `axle check` checks every program
 * of a rule file this way. */
AxMugraph *ax_load_block(AxArena *a, AxDiag *d, const AxBlock *b);

#endif
