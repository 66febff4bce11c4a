/* files.h — the .axl files named on a command line, and the programs and μGraphs verbs load.
 *
 * A FILE argument is taken as is; a DIR argument stands for every *.axl file below it,
 * recursively, in byte order of their paths, so output order never depends on the file
 * system. Names starting with '.' are skipped. Symbolic links are followed, but every
 * file and every directory is taken once, by its device and inode: a file named twice
 * (or reached through a link) is verified once, at its first name; a link back to a
 * directory that encloses it (a cycle) is reported as a warning and skipped. Paths are
 * allocated in the arena. */
#ifndef AX_FILES_H
#define AX_FILES_H

#include "base/diag.h"

typedef struct AxPathList {
  const char **paths;
  size_t n;
} AxPathList;

/* Returns false (after reporting through d) if an argument does not exist or a directory
 * cannot be read. */
bool ax_files_collect(AxArena *a, AxDiag *d, char **args, int nargs, AxPathList *out);

/* The value of --max-input (MiB, 1 to 1024): sets the input limit of every file read
 * (diag.h). False, setting nothing, when text is no such number. */
bool ax_files_max_input(const char *text);

struct AxBlock;
/* Whether block b is a rule that --rule GLOB selects: every rule when nglobs is 0, else one
 * whose name matches some glob (fnmatch). */
bool ax_files_rule_wanted(const struct AxBlock *b, const char *const *globs, int nglobs);

/* Whether path names a program (.axl, or .hlo imported) rather than a μGraph (.mug). */
bool ax_files_is_program(const char *path);

struct AxMugraph;
/* The program `name` of the .axl file at path (the only one when name is NULL; a .hlo module
 * is imported, see below), lowered to a μGraph and validated through the IR's door
 * (superopt/ir/load.h); NULL after reporting through d. Everything lives in a. */
struct AxMugraph *ax_files_load_program(AxArena *a, AxDiag *d, const char *path, const char *name);
struct AxHloProgram;
/* The XLA HLO module at path imported to a program (hlo/import.h, into *out) and that
 * program lowered and validated; NULL after reporting through d. load_program reads a
 * path ending in .hlo this way (its cuts summed up in one note). Everything lives in a. */
struct AxMugraph *ax_files_import_hlo(AxArena *a, AxDiag *d, const char *path,
                                      struct AxHloProgram *out);
/* The graph a GRAPH argument names: path itself, or — when path is a directory, the
 * --output-dir of `axle superopt MODULE --output-dir DIR` — DIR/module.mug, the module's
 * graph with every region's found graph in place (allocated in a). */
const char *ax_files_graph_path(AxArena *a, const char *path);

/* The .mug file at path, parsed and validated through the same door; NULL after reporting
 * through d. */
struct AxMugraph *ax_files_load_mug(AxArena *a, AxDiag *d, const char *path);

/* Dead code (superopt/ir/dead.h) dropped from g, the program or graph read from path
 * (hp: the import of an .hlo module, for its lines; else NULL), before anything checks,
 * searches or rewrites it; one note through d says what went, e.g.
 *   axle: note: t.axl: program 'p': 2 statements reach no output: m (line 4), n (line 5) — removed
 * (the lines of the HLO instructions for a module). Returns g or its pruned copy (in a);
 * *dead (may be NULL) gets what was dropped. */
struct AxDead;
struct AxMugraph *ax_files_drop_dead(AxArena *a, AxDiag *d, struct AxMugraph *g, const char *path,
                                     const struct AxHloProgram *hp, struct AxDead *dead);
/* The line a dropped statement is reported at: its line in the file, or (hp) the line of the
 * HLO instruction its let comes from; 0 when none. */
struct AxDeadStmt;
int ax_files_dead_line(const struct AxDeadStmt *s, const struct AxHloProgram *hp);
/* ax_files_load_program and ax_files_load_mug, then ax_files_drop_dead: what the verbs that
 * check, search or rewrite read (equiv, superopt, optimize). */
struct AxMugraph *ax_files_load_live_program(AxArena *a, AxDiag *d, const char *path, const char *name);
struct AxMugraph *ax_files_load_live_mug(AxArena *a, AxDiag *d, const char *path);

#endif
