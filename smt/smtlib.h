/* smtlib.h — SMT-LIB2 text: the only place that prints it, and a reader for solver answers.
 *
 * Writing. A query is a self-contained script:
 *     ; comment lines
 *     (set-option :produce-models true)      before set-logic, as SMT-LIB 2.6 requires
 *     (set-logic ALL)
 *     (declare-fun ...)                      every variable and function, sorted by name
 *     (declare-fun s!N () Sort)              an abbreviation of a shared or deep subterm,
 *     (assert (= s!N ...))                   children first
 *     (assert formula)
 *     (check-sat)
 *     (get-value (watched ...))              only meaningful after `sat`
 * A subterm used more than once, or nested deeper than a fixed bound, is printed once and
 * referred to by name, so the text is linear in the size of the DAG and no solver parser
 * recurses deeply. The names are constants with a defining equation, not define-fun or
 * let: both solvers expand those into trees somewhere (cvc5 1.0.3 flattens (+ s s) chains
 * through let and define-fun alike, exponentially; z3 4.8.12 takes minutes to expand a
 * chain of a few dozen define-funs of nested ite), while an equation is equisatisfiable,
 * keeps every model (extended by the abbreviations) and stays a DAG in both. Symbols print
 * as they are when they are simple SMT-LIB
 * symbols, quoted |...| otherwise; a name that would clash (a variable and a function of
 * one name, one name at two sorts, an SMT-LIB reserved word or built-in such as `abs` or
 * `exp`) gets a suffix `!k`. Negative constants print as (- 5), rationals as (/ 1.0 2.0),
 * integral reals as 2.0 (decimals, so that the script is well-sorted SMT-LIB).
 *
 * Reading. ax_smtlib_read parses one s-expression of a solver's answer at a time: atoms
 * (symbols, numerals, decimals, keywords), strings "..." (with "" for a quote) and lists.
 * The value readers accept what z3 4.8 and cvc5 1.0 print: 5, (- 5), 1.5, (/ 1 2),
 * (/ 1.0 2.0), (- (/ 1 2)), (/ (- 1) 2), true, false. */
#ifndef AX_SMTLIB_H
#define AX_SMTLIB_H

#include <gmp.h>

#include "base/arena.h"
#include "semantics/term.h"

/* The whole script, for dumps. comment (may be NULL, may span lines) opens it as ";"
 * lines. Borrows everything. */
void ax_smtlib_write(FILE *out, AxTermCtx *tc, const AxTerm *formula,
                     const AxTerm *const *watch, size_t nwatch, const char *comment);

/* The same script in two parts, for a solver that is talked to: names and definitions are
 * decided once by ax_smtlib_query_new (which borrows tc, formula and watch until
 * ax_smtlib_query_free), then write_query prints everything up to (check-sat) and
 * write_get_value the (get-value ...) line -- nothing when there are no watched terms. */
typedef struct AxSmtlibQuery AxSmtlibQuery;
AxSmtlibQuery *ax_smtlib_query_new(AxTermCtx *tc, const AxTerm *formula,
                                   const AxTerm *const *watch, size_t nwatch);
void ax_smtlib_write_query(FILE *out, const AxSmtlibQuery *q, const char *comment);
void ax_smtlib_write_get_value(FILE *out, const AxSmtlibQuery *q);
void ax_smtlib_query_free(AxSmtlibQuery *q);
/* The name of the definition that stands for compound term t in q (shared or deep
 * subterms get one), or NULL. The in-process z3 back-end names the same subterms: z3 4.8
 * solves some nonlinear queries in well under a second with these definitions and times
 * out on the same formula as one shared term (fold_conv_input_pad_general: 0.3 s vs 13 s). */
const char *ax_smtlib_query_def(const AxSmtlibQuery *q, const AxTerm *t);

/* --- Reading answers ---------------------------------------------------------------------- */

typedef enum { AX_SEXP_ATOM, AX_SEXP_STRING, AX_SEXP_LIST } AxSexpKind;

typedef struct AxSexp {
  AxSexpKind kind;
  const char *text;              /* ATOM (|quotes| removed), STRING (unescaped) */
  size_t n;                      /* LIST */
  const struct AxSexp **items;   /* LIST */
} AxSexp;

typedef enum {
  AX_SEXP_OK,     /* *out is the next s-expression; *pos is past it */
  AX_SEXP_MORE,   /* only blanks, comments or an unfinished s-expression remain */
  AX_SEXP_BAD     /* not an s-expression (a stray ')', nesting beyond 4096 levels) */
} AxSexpStatus;

/* Parses the s-expression starting at buf[*pos] (of len bytes) into arena a. Unless eof,
 * an atom touching the end of the buffer may continue, so it counts as unfinished. On
 * MORE and BAD, *pos is unchanged. */
AxSexpStatus ax_smtlib_read(AxArena *a, const char *buf, size_t len, bool eof, size_t *pos,
                            const AxSexp **out);

bool ax_smtlib_is_atom(const AxSexp *e, const char *text);      /* e is that very atom */
bool ax_smtlib_rational(const AxSexp *e, mpq_t out);  /* a numeric value; out initialised */
bool ax_smtlib_bool(const AxSexp *e, bool *out);      /* true / false */
/* A floating-point value of sort s, (fp #b.. #b.. #b..) or (_ NaN|+zero|-zero|+oo|-oo eb sb),
 * as its bit pattern (NaN: the quiet NaN); false for anything else. */
bool ax_smtlib_fp_bits(const AxSexp *e, AxSort s, uint32_t *out);

#endif
