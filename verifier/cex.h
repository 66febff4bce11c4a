/* cex.h — counterexamples: what to ask the solver for, and the concrete replay.
 *
 * ax_cex_watch lists the terms whose model values make a concrete instance: every map
 * variable, every access index, and for every tensor read its indices and its value.
 * ax_cex_replay rebuilds that instance in the concrete domain (GMP), evaluates both sides
 * with the same denotations, and confirms the failure only if the concrete values show it:
 * precondition and valid(LHS) hold and valid(RHS), equal sizes or equal values do not.
 * A confirmed counterexample is rendered for a human (text, with grids for small tensors)
 * and for machines (a JSON object). */
#ifndef AX_CEX_H
#define AX_CEX_H

#include "verifier/instance.h"
#include "semantics/concrete.h"
#include "smt/solver.h"

typedef struct AxWatch {
  const AxTerm **terms;
  size_t n;
  AxRead *reads;      /* the tensor reads of the formula, in the order they are watched */
  size_t nreads;
  bool opaque;        /* formula applies an uninterpreted function that is no tensor (log,
                         pow's undecided cases): the solver chose its values, so a model
                         that does not replay is no internal error (the replay is UNKNOWN) */
} AxWatch;

typedef struct AxReplay {
  bool confirmed;
  const char *unsupported;   /* the replay could not be carried out (why) */
  char *text;                /* malloc'd; on confirmation */
  char *json;                /* malloc'd; on confirmation */
  char *failed;              /* malloc'd: "the values differ", "the sizes differ on …", … */
  /* The model satisfies the query's assumptions but a tensor precondition does not hold
   * (or could not be checked) at every point of its shape: unsupported says which; the
   * verifier may complete the model (ax_cex_completion). */
  bool partial_pre;
} AxReplay;

/* The watch list's layout, shared with the IEEE mode's instances (verifier/fpcheck.c): the
 * map variables of every symbol with maps (symbol order, rank values each), the access
 * indices of every accessed aggregated axis, then per tensor read its indices and its
 * value. ax_cex_watch_head appends the maps and access indices of den (den->maps) and acc
 * to v, ax_cex_watch_read one read; storage in a. */
void ax_cex_watch_head(const AxInst *den, const AxIndex *acc, AxArena *a, AxVec *v);
void ax_cex_watch_read(const AxRead *rd, AxArena *a, AxVec *v);

/* A model read back in that layout: maps, access and read indices as integers of the
 * concrete domain (arrays in the replay's arena). */
typedef struct AxModelPoints {
  AxV **maps;            /* per symbol: its rank values; NULL where the symbol has no maps */
  AxIndex acc;           /* per accessed aggregated axis */
  AxV **read_idx;        /* per read: its indices */
  size_t n;              /* watch-list positions read */
  const char *missing;   /* set when the model lacks a value (why); a static string */
} AxModelPoints;
/* Called once per read, in order, after its indices: its value is at model position pos
 * (the replays keep values differently: exact extended rationals, IEEE bit patterns);
 * set p->missing when the model has none. */
typedef void (*AxReadValue)(void *ctx, size_t read, const AxModel *m, size_t pos, AxModelPoints *p);
/* Reads model m in the layout above for instance den/acc and its `reads`: integers are
 * made in c, arrays in a. Borrows everything; fills *out. */
void ax_cex_load(const AxInst *den, const AxIndex *acc, const AxRead *reads, size_t nreads, const AxModel *m,
                 AxConcrete *c, AxArena *a, AxReadValue value, void *ctx, AxModelPoints *out);

/* Rendering shared by the real and the IEEE replays (text into f, JSON into object j):
 * "[1, 2]" for integers of the concrete domain (text and a JSON array of numbers); the
 * lines "  ranks: ..." and "  maps: ..." of a replayed instance den (den->maps, and the
 * maps a rule defines; scratch in a), and its line "  access: ...". Borrow everything. */
struct cJSON;
struct cJSON *ax_cex_ints_json(AxV *vals, int n);   /* returns owned (by the caller's JSON) */
void ax_cex_print_ints(FILE *f, AxV *vals, int n);
void ax_cex_render_maps(FILE *f, struct cJSON *j, AxInst *den, AxArena *a);
void ax_cex_render_access(FILE *f, struct cJSON *j, const AxInst *den, const AxIndex *acc);

/* What to watch for a model of `formula`: map variables, access indices, and every tensor
 * read occurring in formula (its indices and value). Storage in the instance's arena. */
void ax_cex_watch(AxSymInstance *in, const AxTerm *formula, AxWatch *out);
void ax_cex_replay(AxSymInstance *in, const AxWatch *w, const AxModel *m, AxReplay *out);

/* Every tensor precondition of den's rule at every point of its shape, in a replay's
 * concrete domain (den's ints and bools concrete): what a tensor condition means
 * (docs/semantics.md, "Tensor preconditions"). A query assumes each only at the points it
 * looks at, so a model may break one elsewhere and is then no counterexample. *too_many: a
 * shape has more than 4096 points, not checked (the caller claims no refutation). */
bool ax_cex_pre_everywhere(AxInst *den, bool *too_many);

/* For a model m of `formula` (watched by w) whose replay broke a tensor precondition away
 * from the points the query looked at (AxReplay.partial_pre): formula with the maps pinned
 * to m's values and every tensor precondition instantiated at every point of its shape at
 * those sizes (at most 4096 points in all) — a model of it replays with the preconditions
 * checked everywhere. NULL, with *why, when the shapes are too large or m lacks a value. */
const AxTerm *ax_cex_completion(AxSymInstance *in, const AxTerm *formula, const AxWatch *w,
                                const AxModel *m, const char **why);

/* A concrete instance to evaluate in (verifier/pairing.c): model m of a formula watched by
 * w (maps, access indices and reads as ax_cex_watch lays them out; terms watched after them
 * are not read) in the concrete domain, the tensor points m leaves open filled by `fill`
 * (ax_concrete_set_fill) and the points read recorded, checked exactly to be an instance
 * the rule applies to — in->ctx: every precondition (a tensor one at every point of its
 * shape, at most 4096), both sides valid, the access valid and the sizes equal. Returns
 * owned (ax_cex_inst_free), or NULL with *why (static or in in->a) when m lacks a value, a
 * check fails or could not be carried out. Borrows in, w and m. */
typedef struct AxCexInst AxCexInst;
AxCexInst *ax_cex_inst_new(AxSymInstance *in, const AxWatch *w, const AxModel *m, int fill, const char **why);
void ax_cex_inst_free(AxCexInst *ci);
/* Its concrete domain state (borrowed; ax_concrete_domain reads its tensors, model values
 * and fill). */
AxConcrete *ax_cex_inst_concrete(AxCexInst *ci);
/* The concrete value of a map variable or access index of in (in->maps, in->acc), NULL for
 * any other term. */
AxV ax_cex_inst_var(const AxCexInst *ci, const AxTerm *var);
/* The instance as a counterexample shows it, into f and the JSON object j: ranks, maps,
 * shapes, access, the tensor points read so far with their values (at most 64 of the fill)
 * and what the others hold. The caller writes the rest. */
void ax_cex_inst_render(AxCexInst *ci, FILE *f, struct cJSON *j);

/* A model of w's head (its maps and access indices, as ax_cex_watch lays them out) with the
 * small values ax_cex_search draws, from the generator state *state (start at AX_CEX_SEED):
 * returned owned, with *head the watch list of just those terms. */
#define AX_CEX_SEED 0x9e3779b97f4a7c15ULL
AxModel *ax_cex_sample(AxSymInstance *in, const AxWatch *w, uint64_t *state, AxWatch *head);

/* A counterexample found without the solver, for failures the solver's models miss (a sum
 * whose summands have no pairing): up to `samples` concrete instances with small values
 * (-1..3, fixed seed) for the maps and access indices of w and the replay's fillings for
 * every tensor point, each replayed like a model. True, with *out as ax_cex_replay fills
 * it, for the first one the replay confirms. */
bool ax_cex_search(AxSymInstance *in, const AxWatch *w, unsigned samples, AxReplay *out);
/* The samples the verifier asks ax_cex_search for (verify.c, bijection.c). */
#define AX_CEX_SAMPLES 256u

#endif
