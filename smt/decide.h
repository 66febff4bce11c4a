/* decide.h — the decisions of the solver back-ends, apart from their plumbing.
 *
 * Two pure functions of what happened, no processes, clocks or solvers: the portfolio's
 * answer from the two racers' outcomes (portfolio.c runs the race, then asks
 * ax_decide_portfolio), and z3's try ladder (z3.c: which solver first, with how much time,
 * and after each try whether to take its answer or pass on to the next). Each is tested by
 * its truth table (tests/unit/check_decide.c).
 *
 * The rule of solver.h holds for both: UNSAT only when a solver said unsat (and, when two
 * cross-check, never against the other's exact sat). A timeout, a crash, a garbled answer,
 * a racer that never started or was killed all reach ax_decide_portfolio as UNKNOWN. */
#ifndef AX_DECIDE_H
#define AX_DECIDE_H

#include <stdbool.h>

#include "smt/query.h"

/* --- The portfolio (portfolio.c) --------------------------------------------------------- */

/* How the two solvers are asked (solver.h: PORTFOLIO, cross_check, confirm). */
typedef enum {
  AX_DECIDE_RACE,      /* the first definite answer wins */
  AX_DECIDE_STRICT,    /* cross-check: both must answer, and agree */
  AX_DECIDE_CONFIRM,   /* cross-check, confirm mode: one answer stands when the other has none */
} AxDecideMode;

/* One racer's final outcome. Racer 0 is z3 (through its API), racer 1 the binary. */
typedef struct AxRacerOutcome {
  AxSmtResult r;       /* UNKNOWN for no answer of any kind (timeout, crash, garbled, killed) */
  bool model;          /* sat with a model */
  bool replayed;       /* its model was confirmed by the caller's eager replay */
  bool unreplayed;     /* its model was replayed and did not confirm (a lie) */
} AxRacerOutcome;

/* Why the answer is what it is; portfolio.c words the reason and counts the log from it. */
typedef enum {
  AX_WHY_REPLAYED,           /* the winner's model replayed: SAT, whatever the other says */
  AX_WHY_WINNER,             /* the race's winner's answer */
  AX_WHY_CANDIDATE,          /* z3's sat on a formula it approximates, nobody else decided */
  AX_WHY_NO_WINNER,          /* race: nobody gave a definite answer (UNKNOWN) */
  AX_WHY_ONE_DECIDED,        /* confirm: one answered, the other could not decide */
  AX_WHY_NONE_DECIDED,       /* cross-check: neither answered (UNKNOWN) */
  AX_WHY_Z3_UNDECIDED,       /* strict: z3 had no answer, the binary had one (UNKNOWN) */
  AX_WHY_BINARY_UNDECIDED,   /* strict: the binary had no answer, z3 had one (UNKNOWN) */
  AX_WHY_Z3_APPROX,          /* strict: z3's sat on exp against the binary's unsat (UNKNOWN) */
  AX_WHY_DISAGREE,           /* sat against unsat: the solvers disagree (UNKNOWN, logged) */
  AX_WHY_AGREE,              /* both gave the same answer */
} AxDecideWhy;

typedef struct AxDecision {
  AxSmtResult r;
  int give;            /* whose model goes to the caller when r is SAT (0, 1), -1: none */
  AxDecideWhy why;
} AxDecision;

/* The portfolio's answer. approx: the formula holds an operator z3 only approximates (exp),
 * so z3's sat is a candidate, not an answer. winner: the racer the race stopped at, -1 when
 * it ran until both answered or the deadline. */
AxDecision ax_decide_portfolio(AxDecideMode mode, bool approx, int winner,
                               const AxRacerOutcome rc[2]);

/* --- z3's try ladder (z3.c) -------------------------------------------------------------- */

/* ORDER: the tries, first to last; only the default solver's answer is final */
typedef enum { AX_TRY_NLSAT, AX_TRY_SIMPLE, AX_TRY_DEFAULT } AxZ3Try;

/* What z3.c noted of a query while translating it. */
typedef struct AxZ3Shape {
  bool rdiv_var;   /* real division by a non-numeral */
  bool idiv;       /* integer div or mod */
  bool idiv_var;   /* integer div or mod by a non-numeral */
  bool exp;        /* exp, uninterpreted to z3 */
  bool fp;         /* floating-point terms */
} AxZ3Shape;

#define AX_Z3_NRA_MS 2000      /* nlsat's first try, on real division by unknowns */
#define AX_Z3_SIMPLE_MS 1000   /* the plain SMT core's first try on the other arithmetic */

/* The first try for a query of this shape, and its time in ms (*first_ms; 0 for the default
 * solver, which gets what is left). total_ms: the query's limit, 0 for none; a first try
 * takes at most half of it. */
AxZ3Try ax_decide_z3_first(const AxZ3Shape *q, unsigned total_ms, unsigned *first_ms);

/* The time of one try in ms, 0 for none: a first try its own; the default solver the rest
 * of total_ms after elapsed_ms (at least 1 ms: even out of time it is asked). */
unsigned ax_decide_z3_budget(AxZ3Try t, unsigned first_ms, unsigned total_ms, double elapsed_ms);

typedef enum { AX_Z3_FALSE = -1, AX_Z3_UNDEF = 0, AX_Z3_TRUE = 1 } AxZ3Answer;   /* Z3_lbool's */

/* ORDER: what to do after a try */
typedef enum {
  AX_STEP_NEXT,        /* no answer taken: on to the default solver (z3's error cleared) */
  AX_STEP_ERROR,       /* z3 reported an error: UNKNOWN with its message */
  AX_STEP_UNSAT,
  AX_STEP_SAT,
  AX_STEP_TIMEOUT,     /* UNKNOWN: "timeout after ..." */
  AX_STEP_UNKNOWN,     /* UNKNOWN: z3's own reason */
} AxZ3Step;

/* After try t answered res: error is z3's error code being set, fired the watchdog having
 * interrupted the check, out_of_time the query's limit (total_ms > 0) having passed. */
AxZ3Step ax_decide_z3_step(AxZ3Try t, AxZ3Answer res, bool error, bool fired, bool out_of_time);

#endif
