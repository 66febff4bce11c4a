/* query.h — what one SMT query is asked with and what it answers: the options, the
 * result, the model of the watched terms. solver.h (the dispatcher) and each back-end
 * (z3.h, pipe.h, portfolio.h) include this header and nothing of each other's, so the
 * back-ends do not depend on the dispatcher that calls them. Implemented in query.c. */
#ifndef AX_QUERY_H
#define AX_QUERY_H

#include <gmp.h>

#include "base/base.h"
#include "semantics/term.h"

typedef enum { AX_SMT_UNSAT, AX_SMT_SAT, AX_SMT_UNKNOWN } AxSmtResult;
/* PORTFOLIO: z3 (through its C API) and the binary race; the first definite answer (unsat, or
 * sat with its model) wins and the other is killed. z3's sat on a formula with exp, which
 * z3 does not know, is not definite (portfolio.c). */
typedef enum { AX_SOLVER_Z3, AX_SOLVER_PIPE, AX_SOLVER_PORTFOLIO } AxSolverKind;

/* Values of the watched terms, parallel to the watch list. */
typedef struct AxModel AxModel;

/* What the caller wants to learn about a run of queries beyond their answers. */
typedef struct AxSolverLog {
  int disagreements;       /* cross-check queries on which the two solvers disagreed */
  char first[1024];        /* the first of them: both answers and the query's file */
  /* confirm mode: unsat answers given by both solvers, by z3 alone (the binary had none),
   * and by the binary alone (z3 had none, or z3 does not know an operator: exp) */
  int unsat_both, unsat_z3_only, unsat_binary_only;
} AxSolverLog;

typedef struct AxSolverOpts {
  AxSolverKind kind;
  unsigned timeout_ms;     /* wall-clock limit of one check; 0: none */
  /* PIPE: path or name (searched in PATH) of the solver binary; NULL means "cvc5". A name
   * starting with "z3" is run as `z3 -in -smt2 -t:MS -T:S`, one containing "cvc" as
   * `cvc5 --lang=smt2 --tlimit-per=MS --tlimit=MS'`; any other binary gets no arguments and
   * must read SMT-LIB2 from stdin and answer on stdout. PORTFOLIO and cross_check use it
   * as the second solver. */
  const char *binary;
  const char *dump_path;   /* if non-NULL, the query is also written there as SMT-LIB2 */
  /* Every query answered by both z3 (through its C API) and the binary, whatever kind says:
   * the answer is theirs when they agree; when one has none it is UNKNOWN; sat against
   * unsat is UNKNOWN too, counted in log, with both answers and the query's file (the
   * dump, or one written under $TMPDIR for the purpose) in the reason -- except z3's sat
   * on a formula with exp, which is no answer (UNKNOWN, not counted). */
  bool cross_check;
  /* With cross_check: a query one solver answers and the other cannot decide (timeout,
   * unknown, an operator it does not know) takes the answer given — an unsat counted in log
   * as confirmed by one solver only, a sat still replayed before it refutes anything; sat
   * against unsat is still a disagreement. axle's default ("--solver both"). A sat whose
   * model the caller's replay confirms (replay, below) ends the query at once, whichever
   * solver found it. Without replay, or when it fails: z3's exact sat ends the query (the
   * verifier replays its model; with replay, after a failed one, the binary first gets the
   * grace below to find a model that replays); the binary's sat waits for z3's answer (z3's
   * model is then preferred); after an unsat the other solver has four times as long as
   * the first needed to confirm it, at least confirm_floor_ms (0: 0.5 s) and at most
   * confirm_grace_ms (portfolio.c). */
  bool confirm;
  unsigned confirm_grace_ms;
  unsigned confirm_floor_ms;
  /* With confirm, when the binary is cvc5: after z3's unsat on a formula with exp (log and
   * the powers included) and a real division of two non-numeral terms, cvc5 is not waited
   * for — it was never seen to confirm one (portfolio.c `hopeless`). Only the label changes
   * (z3 alone, which is what such a query got after the grace anyway); off for
   * --require-both, where that label fails the rule. */
  bool skip_hopeless;
  /* With confirm: the binary's sat ends the query too, without waiting for z3's (IEEE
   * mode, where cvc5 is often the faster on floating point; every model is replayed). */
  bool first_sat;
  /* When dump_path is NULL: a dump named "<dump_prefix>.smt2", or, when dump_seq is
   * non-NULL, "<dump_prefix>-<n>.smt2" with n = ++*dump_seq (numbering the queries of
   * one kind). dump_note, if non-NULL, is one more comment line of the dump. */
  const char *dump_prefix;
  unsigned *dump_seq;
  const char *dump_note;
  AxSolverLog *log;        /* if non-NULL, receives what AxSolverLog says */
  /* With confirm or PORTFOLIO (not the strict cross-check), when the caller asked for a
   * model: the caller's exact check of a candidate model, called as soon as a solver answers
   * sat while the other may still be running. True says the model is a counterexample the
   * caller has confirmed by replaying it: the query ends at once with it (SAT, that model)
   * and the other solver is stopped. False changes nothing but the wait: the other solver
   * is still asked (portfolio.c). Borrows m; must not keep it. NULL: no eager replay. */
  bool (*replay)(void *ctx, const AxModel *m);
  void *replay_ctx;
  /* With replay: the caller's own refutation without a model (verify.c: small instances
   * replayed exactly), tried at most once per query, when a candidate model m (borrowed)
   * did not replay and the other solver has not answered — which would otherwise be waited
   * for, up to its time limit. True says the caller holds a counterexample it has replayed
   * itself: the query then ends at once, UNKNOWN, the other solver stopped, and *refuted
   * (non-NULL whenever refute is) is set — unless an answer of the other solver came in
   * before the refutation did, which is then decided as without the hook, *refuted left
   * false. Only the caller's counterexample can make its verdict INVALID (portfolio.c).
   * NULL: none. */
  bool (*refute)(void *ctx, const AxModel *m);
  void *refute_ctx;
  bool *refuted;
  /* The query is a goal check, ctx ∧ ¬(P1 ∧ … ∧ Pn): ask ctx ∧ ¬Pi for each i instead,
   * one after another (solver.c; a Pi that is itself a conjunct of ctx is skipped, being
   * unsat at once). UNSAT when every part is, SAT with the model of the first SAT part
   * (a model of the whole), else UNKNOWN. For goals whose parts are independent (one per
   * dimension): each part is far easier than their conjunction. */
  bool split;
  /* Conjoin the product facts the query's own bounds imply (arith.h
   * ax_arith_window_facts) after its simplification: the same models, an easier proof of
   * unsat, but a solver may find another model — for queries whose model only reports. */
  bool window_facts;
} AxSolverOpts;


/* The value of watched term i. Each returns false, leaving out untouched, when the model
 * has no exact value of that kind: i out of range, a sort mismatch, or a value the solver
 * could not give as an integer / rational (e.g. an irrational algebraic number).
 * ax_model_int needs an Int term, ax_model_real an Int or Real term, ax_model_bool a Bool
 * term. out must be initialised. A floating-point term's value is its IEEE bit pattern as
 * an integer (every NaN as the format's quiet NaN), read with ax_model_real. */
bool ax_model_int(const AxModel *m, size_t i, mpz_t out);
bool ax_model_real(const AxModel *m, size_t i, mpq_t out);
bool ax_model_bool(const AxModel *m, size_t i, bool *out);
size_t ax_model_size(const AxModel *m);
void ax_model_free(AxModel *m);                 /* consumes m; NULL is fine */

/* --- For the back-ends only (z3.c, pipe.c, portfolio.c) -------------------------------- */

/* An empty model for watch[0..n): no slot has a value yet. Returns owned. */
AxModel *ax_model_new(const AxTerm *const *watch, size_t n);
/* Record the value of slot i. set_bool needs a Bool slot; set_rational a numeric slot, and
 * on an Int slot a value with denominator 1 (else it records nothing and returns false). */
bool ax_model_set_bool(AxModel *m, size_t i, bool v);
bool ax_model_set_rational(AxModel *m, size_t i, const mpq_t v);
/* The sort of slot i's term (i < ax_model_size(m)): what a back-end may read into it. */
AxSort ax_model_sort(const AxModel *m, size_t i);

/* "10 s" or "1500 ms": how reasons print a time limit. Writes into buf, returns buf. */
const char *ax_solver_fmt_ms(char *buf, size_t len, unsigned ms);

#endif
