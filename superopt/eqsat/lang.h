/* lang.h — tensor programs as e-graph terms, and back (docs/egraph.md, "Programs in the
 * e-graph").
 *
 * The e-graph's language is the program level of dsl/ops.h: an e-node's operator id is the
 * AxOp, its children the operands' classes, its integers the attributes —
 *   input      [k]                 the program's k-th input
 *   constant   [num, den]          an exact literal (reduced, den > 0), rank 0
 *   add sub mul div neg exp square sqrt silu    []  (element-wise: no attributes)
 *   others     [axis or -1, to, times, rank, d0, ...]   (sum, mean, rms_norm, matmul,
 *              reshape, broadcast, repeat, concat: AxTAttrs as lowering normalized it);
 *              a slice or a pad then [n, lo0.., hi0.., step0..]: its three lists, n each
 *   tuple      AX_EQ_TUPLE, []     the outputs, in order: one root for extraction
 * The analysis gives every class its shape, element type and, for a literal, its value
 * (constant folding: a class whose value is exactly known gets the literal e-node);
 * rewrites from proved rules keep shapes, so a class has one shape (a merge of two different
 * shapes is counted in `conflicts`, which must stay 0).
 *
 * A lowered program (program.h: pre-defined operators only) enters as one term per
 * output; the extracted tuple prints back as a `program` block. */
#ifndef AX_EQSAT_LANG_H
#define AX_EQSAT_LANG_H

#include "egraph/egraph.h"
#include "egraph/explain.h"
#include "superopt/cost/cost.h"
#include "superopt/ir/mugraph.h"

#define AX_EQ_TUPLE ((uint32_t)AX_OP_COUNT)

/* A class's analysis value. */
typedef struct AxEqData {
  bool ok;            /* shape inference accepted the e-node (false: never extracted) */
  AxTShape shape;
  AxDtype dtype;
  bool literal;       /* a constant class: value holds it */
  AxRat value;
} AxEqData;

/* The context of one program's e-graph: the inputs (borrowed from the lowered μGraph) and
 * what the analysis counted. Zero it, set prog, then ax_eq_analysis. */
typedef struct AxEqLang {
  const AxMugraph *prog;
  int ninputs;
  int *inputs;        /* tensor index of the k-th input (owned; ax_eq_lang_free) */
  size_t conflicts;   /* merges of classes of different shapes (a bug if not 0) */
  const AxTarget *target;   /* cost model target (ax_eq_cost) */
  AxEgraph *g;              /* set by ax_eq_add_program; read by ax_eq_cost */
} AxEqLang;

/* The analysis over L (borrowed, must outlive the graph). */
AxEgAnalysis ax_eq_analysis(AxEqLang *L);
void ax_eq_lang_free(AxEqLang *L);

/* Constant folding (the analysis's modify): the exact value of operator op (add sub mul
 * div neg square) on the nk literal values k, into *out; false when the operator does not
 * fold or the result is not exact (an overflow of 64-bit rationals, a division by zero). */
bool ax_eq_fold(uint32_t op, const AxRat *k, uint32_t nk, AxRat *out);
/* A replay's check of a folding step (AxEgCallerCheck, egraph/explain.h): `before` is
 * literals under folding operators and `after` the literal of its exact value. */
bool ax_eq_fold_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after);
/* A replay's check of a step between chains of transposes (rules.c's relabel rules, whose
 * right sides an applier computes): the same operand under both, and the permutations
 * composed equal (an empty chain composes to the identity). */
bool ax_eq_transpose_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after);
/* A replay's check of a step between chains of slices (rules.c's slice rules, whose other
 * side an applier computes): the same operand under both, and the slices composed to the
 * same index map (offset, stride and count per dimension). */
bool ax_eq_slice_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after);
/* A replay's check of a step between chains of pads without interior padding and with
 * edges >= 0: the same operand and padding value under both, the edges summed equal (the
 * one form of pad chains whose meaning does not depend on the operand's size). */
bool ax_eq_pad_step(void *ctx, const AxEgTerm *before, const AxEgTerm *after);
/* Any of the four: the check `axle optimize --explain` replays with. */
bool ax_eq_step_check(void *ctx, const AxEgTerm *before, const AxEgTerm *after);

/* Adds every output of L->prog to g (made with ax_eq_analysis(L)); *root receives the class
 * of the tuple of outputs. False when an operator cannot be represented (a graph-defined
 * kernel: only lowered programs enter). */
bool ax_eq_add_program(AxEqLang *L, AxEgraph *g, AxEgId *root);

/* The e-node's attributes decoded (op must not be input, constant or tuple). */
void ax_eq_attrs_decode(const AxEgNode *n, AxTAttrs *at);

/* Extraction cost of one e-node: the cost model's time of the pre-defined operator alone on
 * its operands' shapes (superopt/cost), a nanosecond for inputs, literals and the tuple,
 * INFINITY for an e-node whose shape inference failed. ctx: the AxEqLang. */
double ax_eq_cost(void *ctx, const AxEgNode *n);

/* Prints term t (an extracted tuple) as a program block named `name` into out: the
 * inputs as declared, one `let` per operator, the outputs under their names. */
void ax_eq_print_program(FILE *out, const AxEqLang *L, const char *name, const AxEgTerm *t);

/* Prints term t (root last; a subterm of a program, the tuple included) as one expression
 * in the language's syntax: inputs by name, literals as numbers, operators as calls with
 * their attributes (`sum(mul(A, C), axis = 1)`); a tuple as `(O1, O2)`. */
void ax_eq_print_expr(FILE *out, const AxEqLang *L, const AxEgTerm *t);

#endif
