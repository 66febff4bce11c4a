/* check_decide.c — the back-ends' decisions (smt/decide.c) by their truth tables: the
 * portfolio's answer for every combination of the two racers' outcomes, the mode and the
 * race's winner; z3's first try for every query shape, and its next step after every
 * answer of every try. The rows are the specification: each says what the answer must be.
 * Plus the soundness rule over every input, reachable or not: UNSAT only from a solver's
 * unsat, and never against the other solver's exact sat when both are asked. */
#include <check.h>
#include <stdio.h>

#include "smt/decide.h"

/* --- The portfolio ----------------------------------------------------------------------- */

/* One racer's outcome as the table names it: a sat with its model (SAT), one without
 * (SAT_NOMODEL: no model was asked for), one whose model the caller's replay refuted
 * (SAT_LIE), one whose model replayed (SAT_REPLAYED: it ended the race), unsat, and no
 * answer (UNKNOWN: a timeout, a crash, a garbled answer, a solver's unknown, a racer killed
 * or never started — they all reach the decision as UNKNOWN). */
enum { SAT, SAT_NOMODEL, SAT_LIE, SAT_REPLAYED, UNSAT, UNKNOWN };
enum { RACE = AX_DECIDE_RACE, STRICT = AX_DECIDE_STRICT, CONFIRM = AX_DECIDE_CONFIRM };
#define R_SAT AX_SMT_SAT
#define R_UNSAT AX_SMT_UNSAT
#define R_UNKNOWN AX_SMT_UNKNOWN
enum {
  REPLAYED = AX_WHY_REPLAYED, WINNER = AX_WHY_WINNER, CANDIDATE = AX_WHY_CANDIDATE,
  NO_WINNER = AX_WHY_NO_WINNER, ONE_DECIDED = AX_WHY_ONE_DECIDED,
  NONE_DECIDED = AX_WHY_NONE_DECIDED, Z3_UNDECIDED = AX_WHY_Z3_UNDECIDED,
  BINARY_UNDECIDED = AX_WHY_BINARY_UNDECIDED, Z3_APPROX = AX_WHY_Z3_APPROX,
  DISAGREE = AX_WHY_DISAGREE, AGREE = AX_WHY_AGREE,
};

static AxRacerOutcome outcome(int s) {
  switch (s) {
  case SAT: return (AxRacerOutcome){.r = AX_SMT_SAT, .model = true};
  case SAT_NOMODEL: return (AxRacerOutcome){.r = AX_SMT_SAT};
  case SAT_LIE: return (AxRacerOutcome){.r = AX_SMT_SAT, .model = true, .unreplayed = true};
  case SAT_REPLAYED: return (AxRacerOutcome){.r = AX_SMT_SAT, .model = true, .replayed = true};
  case UNSAT: return (AxRacerOutcome){.r = AX_SMT_UNSAT};
  default: return (AxRacerOutcome){.r = AX_SMT_UNKNOWN};
  }
}

/* mode, approx (the formula has exp: z3's sat is a candidate), z3's outcome, the binary's,
 * the race's winner (-1: none) -> the answer, whose model (-1: none), why. Rows the race
 * cannot produce are left out: a replayed model is the winner's; the race stops at the
 * first definite answer (unsat, or an exact sat) and the winner gave one; z3's sat on exp
 * wins only by a replay; the strict cross-check replays nothing and has no winner.
 * The labels follow from why (portfolio.c explain): an unsat of ONE_DECIDED is counted as
 * confirmed by one solver ("z3 only", "cvc5 only"), one of AGREE by both ("z3+cvc5");
 * DISAGREE is counted as a disagreement (the verdict ERROR, the query kept). */
static const struct PfRow {
  int mode, approx, z3, bin, winner;
  AxSmtResult r;
  int give, why;
} pf_rows[] = {
  {RACE, 0, SAT, SAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT, SAT_NOMODEL, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT, SAT_LIE, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 0, SAT, UNSAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 0, SAT, UNKNOWN, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT_NOMODEL, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT_LIE, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_NOMODEL, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 0, SAT_NOMODEL, UNSAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_NOMODEL, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 0, SAT_NOMODEL, UNKNOWN, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_LIE, SAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_LIE, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_LIE, SAT_NOMODEL, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_LIE, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_LIE, SAT_LIE, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_LIE, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 0, SAT_LIE, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 0, SAT_LIE, UNSAT, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_LIE, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 0, SAT_LIE, UNKNOWN, 0, R_SAT, 0, WINNER},
  {RACE, 0, SAT_REPLAYED, SAT, 0, R_SAT, 0, REPLAYED},
  {RACE, 0, SAT_REPLAYED, SAT_NOMODEL, 0, R_SAT, 0, REPLAYED},
  {RACE, 0, SAT_REPLAYED, SAT_LIE, 0, R_SAT, 0, REPLAYED},
  {RACE, 0, SAT_REPLAYED, UNSAT, 0, R_SAT, 0, REPLAYED},
  {RACE, 0, SAT_REPLAYED, UNKNOWN, 0, R_SAT, 0, REPLAYED},
  {RACE, 0, UNSAT, SAT, 0, R_UNSAT, 0, WINNER},
  {RACE, 0, UNSAT, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNSAT, SAT_NOMODEL, 0, R_UNSAT, 0, WINNER},
  {RACE, 0, UNSAT, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNSAT, SAT_LIE, 0, R_UNSAT, 0, WINNER},
  {RACE, 0, UNSAT, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNSAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 0, UNSAT, UNSAT, 0, R_UNSAT, 0, WINNER},
  {RACE, 0, UNSAT, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 0, UNSAT, UNKNOWN, 0, R_UNSAT, 0, WINNER},
  {RACE, 0, UNKNOWN, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNKNOWN, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNKNOWN, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 0, UNKNOWN, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 0, UNKNOWN, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 0, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NO_WINNER},
  {RACE, 1, SAT, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 1, SAT, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 1, SAT, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {RACE, 1, SAT_NOMODEL, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_NOMODEL, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_NOMODEL, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_NOMODEL, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 1, SAT_NOMODEL, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 1, SAT_NOMODEL, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {RACE, 1, SAT_LIE, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_LIE, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_LIE, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 1, SAT_LIE, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 1, SAT_LIE, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 1, SAT_LIE, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {RACE, 1, SAT_REPLAYED, SAT, 0, R_SAT, 0, REPLAYED},
  {RACE, 1, SAT_REPLAYED, SAT_NOMODEL, 0, R_SAT, 0, REPLAYED},
  {RACE, 1, SAT_REPLAYED, SAT_LIE, 0, R_SAT, 0, REPLAYED},
  {RACE, 1, SAT_REPLAYED, UNSAT, 0, R_SAT, 0, REPLAYED},
  {RACE, 1, SAT_REPLAYED, UNKNOWN, 0, R_SAT, 0, REPLAYED},
  {RACE, 1, UNSAT, SAT, 0, R_UNSAT, 0, WINNER},
  {RACE, 1, UNSAT, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNSAT, SAT_NOMODEL, 0, R_UNSAT, 0, WINNER},
  {RACE, 1, UNSAT, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNSAT, SAT_LIE, 0, R_UNSAT, 0, WINNER},
  {RACE, 1, UNSAT, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNSAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 1, UNSAT, UNSAT, 0, R_UNSAT, 0, WINNER},
  {RACE, 1, UNSAT, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 1, UNSAT, UNKNOWN, 0, R_UNSAT, 0, WINNER},
  {RACE, 1, UNKNOWN, SAT, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNKNOWN, SAT_NOMODEL, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNKNOWN, SAT_LIE, 1, R_SAT, 1, WINNER},
  {RACE, 1, UNKNOWN, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {RACE, 1, UNKNOWN, UNSAT, 1, R_UNSAT, 1, WINNER},
  {RACE, 1, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NO_WINNER},
  {STRICT, 0, SAT, SAT, -1, R_SAT, 0, AGREE},
  {STRICT, 0, SAT, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {STRICT, 0, SAT, UNSAT, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 0, SAT, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 0, SAT_NOMODEL, SAT, -1, R_SAT, 1, AGREE},
  {STRICT, 0, SAT_NOMODEL, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {STRICT, 0, SAT_NOMODEL, UNSAT, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 0, SAT_NOMODEL, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 0, UNSAT, SAT, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 0, UNSAT, SAT_NOMODEL, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 0, UNSAT, UNSAT, -1, R_UNSAT, 0, AGREE},
  {STRICT, 0, UNSAT, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 0, UNKNOWN, SAT, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 0, UNKNOWN, SAT_NOMODEL, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 0, UNKNOWN, UNSAT, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 0, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NONE_DECIDED},
  {STRICT, 1, SAT, SAT, -1, R_SAT, 1, AGREE},
  {STRICT, 1, SAT, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {STRICT, 1, SAT, UNSAT, -1, R_UNKNOWN, -1, Z3_APPROX},
  {STRICT, 1, SAT, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 1, SAT_NOMODEL, SAT, -1, R_SAT, 1, AGREE},
  {STRICT, 1, SAT_NOMODEL, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {STRICT, 1, SAT_NOMODEL, UNSAT, -1, R_UNKNOWN, -1, Z3_APPROX},
  {STRICT, 1, SAT_NOMODEL, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 1, UNSAT, SAT, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 1, UNSAT, SAT_NOMODEL, -1, R_UNKNOWN, -1, DISAGREE},
  {STRICT, 1, UNSAT, UNSAT, -1, R_UNSAT, 0, AGREE},
  {STRICT, 1, UNSAT, UNKNOWN, -1, R_UNKNOWN, -1, BINARY_UNDECIDED},
  {STRICT, 1, UNKNOWN, SAT, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 1, UNKNOWN, SAT_NOMODEL, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 1, UNKNOWN, UNSAT, -1, R_UNKNOWN, -1, Z3_UNDECIDED},
  {STRICT, 1, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NONE_DECIDED},
  {CONFIRM, 0, SAT, SAT, -1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT, 0, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT, 1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_NOMODEL, 0, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_NOMODEL, 1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_LIE, -1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_LIE, 0, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_LIE, 1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 0, SAT, UNSAT, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT, UNSAT, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT, UNSAT, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT, UNKNOWN, -1, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT, UNKNOWN, 0, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT_NOMODEL, SAT, -1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT, 0, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT, 1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_NOMODEL, 0, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_NOMODEL, 1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_LIE, -1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_LIE, 0, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_LIE, 1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_NOMODEL, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 0, SAT_NOMODEL, UNSAT, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_NOMODEL, UNSAT, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_NOMODEL, UNSAT, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_NOMODEL, UNKNOWN, -1, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT_NOMODEL, UNKNOWN, 0, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT_LIE, SAT, -1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT, 0, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT, 1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_NOMODEL, -1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_NOMODEL, 0, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_NOMODEL, 1, R_SAT, 0, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_LIE, -1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_LIE, 0, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_LIE, 1, R_SAT, 1, AGREE},
  {CONFIRM, 0, SAT_LIE, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 0, SAT_LIE, UNSAT, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_LIE, UNSAT, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_LIE, UNSAT, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, SAT_LIE, UNKNOWN, -1, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT_LIE, UNKNOWN, 0, R_SAT, 0, ONE_DECIDED},
  {CONFIRM, 0, SAT_REPLAYED, SAT, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 0, SAT_REPLAYED, SAT_NOMODEL, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 0, SAT_REPLAYED, SAT_LIE, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 0, SAT_REPLAYED, UNSAT, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 0, SAT_REPLAYED, UNKNOWN, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 0, UNSAT, SAT, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_NOMODEL, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_NOMODEL, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_NOMODEL, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_LIE, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_LIE, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_LIE, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 0, UNSAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 0, UNSAT, UNSAT, -1, R_UNSAT, 0, AGREE},
  {CONFIRM, 0, UNSAT, UNSAT, 0, R_UNSAT, 0, AGREE},
  {CONFIRM, 0, UNSAT, UNSAT, 1, R_UNSAT, 0, AGREE},
  {CONFIRM, 0, UNSAT, UNKNOWN, -1, R_UNSAT, 0, ONE_DECIDED},
  {CONFIRM, 0, UNSAT, UNKNOWN, 0, R_UNSAT, 0, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT_NOMODEL, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT_NOMODEL, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT_LIE, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT_LIE, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 0, UNKNOWN, UNSAT, -1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, UNSAT, 1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 0, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NONE_DECIDED},
  {CONFIRM, 1, SAT, SAT, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT_NOMODEL, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT_NOMODEL, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT_LIE, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT_LIE, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 1, SAT, UNSAT, -1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, UNSAT, 1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {CONFIRM, 1, SAT_NOMODEL, SAT, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT_NOMODEL, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT_NOMODEL, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT_LIE, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT_LIE, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 1, SAT_NOMODEL, UNSAT, -1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, UNSAT, 1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_NOMODEL, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {CONFIRM, 1, SAT_LIE, SAT, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT_NOMODEL, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT_NOMODEL, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT_LIE, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT_LIE, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 1, SAT_LIE, UNSAT, -1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, UNSAT, 1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, SAT_LIE, UNKNOWN, -1, R_SAT, 0, CANDIDATE},
  {CONFIRM, 1, SAT_REPLAYED, SAT, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 1, SAT_REPLAYED, SAT_NOMODEL, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 1, SAT_REPLAYED, SAT_LIE, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 1, SAT_REPLAYED, UNSAT, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 1, SAT_REPLAYED, UNKNOWN, 0, R_SAT, 0, REPLAYED},
  {CONFIRM, 1, UNSAT, SAT, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_NOMODEL, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_NOMODEL, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_NOMODEL, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_LIE, -1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_LIE, 0, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_LIE, 1, R_UNKNOWN, -1, DISAGREE},
  {CONFIRM, 1, UNSAT, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 1, UNSAT, UNSAT, -1, R_UNSAT, 0, AGREE},
  {CONFIRM, 1, UNSAT, UNSAT, 0, R_UNSAT, 0, AGREE},
  {CONFIRM, 1, UNSAT, UNSAT, 1, R_UNSAT, 0, AGREE},
  {CONFIRM, 1, UNSAT, UNKNOWN, -1, R_UNSAT, 0, ONE_DECIDED},
  {CONFIRM, 1, UNSAT, UNKNOWN, 0, R_UNSAT, 0, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT_NOMODEL, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT_NOMODEL, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT_LIE, -1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT_LIE, 1, R_SAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, SAT_REPLAYED, 1, R_SAT, 1, REPLAYED},
  {CONFIRM, 1, UNKNOWN, UNSAT, -1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, UNSAT, 1, R_UNSAT, 1, ONE_DECIDED},
  {CONFIRM, 1, UNKNOWN, UNKNOWN, -1, R_UNKNOWN, -1, NONE_DECIDED},
};

START_TEST(test_portfolio_table) {
  for (size_t i = 0; i < sizeof pf_rows / sizeof pf_rows[0]; i++) {
    const struct PfRow *row = &pf_rows[i];
    AxRacerOutcome rc[2] = {outcome(row->z3), outcome(row->bin)};
    AxDecision d = ax_decide_portfolio((AxDecideMode)row->mode, row->approx, row->winner, rc);
    ck_assert_msg(d.r == row->r && d.give == row->give && (int)d.why == row->why,
                  "row %zu: got r=%d give=%d why=%d, want r=%d give=%d why=%d", i, d.r, d.give,
                  d.why, row->r, row->give, row->why);
  }
}
END_TEST

/* Every input, reachable or not: each racer any answer (a sat with or without a model,
 * replayed or refuted), any winner. UNSAT needs a solver's unsat; with two solvers asked, no exact
 * sat (z3's on a formula without exp, the binary's) against it; the strict cross-check needs
 * both. A model handed over is a sat's. */
START_TEST(test_portfolio_never_unsat_without_unsat) {
  for (int mode = RACE; mode <= CONFIRM; mode++)
    for (int approx = 0; approx < 2; approx++)
      for (int w = -1; w < 2; w++)
        for (int a = 0; a < 24; a++)
          for (int b = 0; b < 24; b++) {
            AxRacerOutcome rc[2];
            int v[2] = {a, b};
            for (int i = 0; i < 2; i++)
              rc[i] = (AxRacerOutcome){(AxSmtResult)(v[i] % 3), v[i] / 3 % 2, v[i] / 6 % 2,
                                       v[i] / 12 % 2};
            bool meaningless = false;   /* a model, replayed or not, of no sat */
            for (int i = 0; i < 2; i++)
              meaningless |= rc[i].r != AX_SMT_SAT && (rc[i].model || rc[i].replayed || rc[i].unreplayed);
            if (meaningless) continue;
            AxDecision d = ax_decide_portfolio((AxDecideMode)mode, approx, w, rc);
            if (d.r == AX_SMT_SAT) ck_assert(d.give >= 0 && rc[d.give].r == AX_SMT_SAT);
            if (d.r != AX_SMT_UNSAT) continue;
            ck_assert(rc[0].r == AX_SMT_UNSAT || rc[1].r == AX_SMT_UNSAT);
            if (mode == RACE) continue;
            bool z3_exact_sat = rc[0].r == AX_SMT_SAT && !approx;
            ck_assert_msg(!z3_exact_sat && rc[1].r != AX_SMT_SAT,
                          "mode %d approx %d winner %d: unsat against a sat", mode, approx, w);
            if (mode == STRICT) ck_assert(rc[0].r == AX_SMT_UNSAT && rc[1].r == AX_SMT_UNSAT);
          }
}
END_TEST

/* --- z3's try ladder ---------------------------------------------------------------------- */

enum { NLSAT = AX_TRY_NLSAT, SIMPLE = AX_TRY_SIMPLE, DEFAULT = AX_TRY_DEFAULT };
enum { Z3_FALSE = AX_Z3_FALSE, Z3_UNDEF = AX_Z3_UNDEF, Z3_TRUE = AX_Z3_TRUE };
enum { STEP_NEXT = AX_STEP_NEXT, STEP_ERROR = AX_STEP_ERROR, STEP_UNSAT = AX_STEP_UNSAT,
       STEP_SAT = AX_STEP_SAT, STEP_TIMEOUT = AX_STEP_TIMEOUT, STEP_UNKNOWN = AX_STEP_UNKNOWN };

/* the query's shape -> the first try at no time limit, and its time */
static const struct FirstRow {
  bool rdiv_var, idiv, idiv_var, exp, fp;
  unsigned total;
  int first;
  unsigned first_ms;
} first_rows[] = {
  {0, 0, 0, 0, 0,     0, SIMPLE, 1000},
  {1, 0, 0, 0, 0,     0, NLSAT, 2000},
  {0, 1, 0, 0, 0,     0, SIMPLE, 1000},
  {1, 1, 0, 0, 0,     0, SIMPLE, 1000},
  {0, 1, 1, 0, 0,     0, DEFAULT,    0},
  {1, 1, 1, 0, 0,     0, DEFAULT,    0},
  {0, 0, 0, 1, 0,     0, DEFAULT,    0},
  {1, 0, 0, 1, 0,     0, NLSAT, 2000},
  {0, 1, 0, 1, 0,     0, DEFAULT,    0},
  {1, 1, 0, 1, 0,     0, DEFAULT,    0},
  {0, 1, 1, 1, 0,     0, DEFAULT,    0},
  {1, 1, 1, 1, 0,     0, DEFAULT,    0},
  {0, 0, 0, 0, 1,     0, DEFAULT,    0},
  {1, 0, 0, 0, 1,     0, NLSAT, 2000},
  {0, 1, 0, 0, 1,     0, DEFAULT,    0},
  {1, 1, 0, 0, 1,     0, DEFAULT,    0},
  {0, 1, 1, 0, 1,     0, DEFAULT,    0},
  {1, 1, 1, 0, 1,     0, DEFAULT,    0},
  {0, 0, 0, 1, 1,     0, DEFAULT,    0},
  {1, 0, 0, 1, 1,     0, NLSAT, 2000},
  {0, 1, 0, 1, 1,     0, DEFAULT,    0},
  {1, 1, 0, 1, 1,     0, DEFAULT,    0},
  {0, 1, 1, 1, 1,     0, DEFAULT,    0},
  {1, 1, 1, 1, 1,     0, DEFAULT,    0},
  /* a first try takes at most half the limit */
  {1, 0, 0, 0, 0, 60000, NLSAT, 2000},
  {1, 0, 0, 0, 0, 3000, NLSAT, 1500},
  {0, 0, 0, 0, 0, 3000, SIMPLE, 1000},
  {0, 0, 0, 0, 0, 1500, SIMPLE, 750},
  {0, 0, 0, 1, 0, 1500, DEFAULT, 0},
};

START_TEST(test_z3_first_table) {
  for (size_t i = 0; i < sizeof first_rows / sizeof first_rows[0]; i++) {
    const struct FirstRow *row = &first_rows[i];
    AxZ3Shape q = {.rdiv_var = row->rdiv_var, .idiv = row->idiv, .idiv_var = row->idiv_var,
                   .exp = row->exp, .fp = row->fp};
    unsigned ms = 12345;
    AxZ3Try t = ax_decide_z3_first(&q, row->total, &ms);
    ck_assert_msg((int)t == row->first && ms == row->first_ms, "row %zu: got %d, %u ms", i, t, ms);
  }
}
END_TEST

START_TEST(test_z3_budget) {
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_SIMPLE, 1000, 60000, 0), 1000);
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_NLSAT, 2000, 0, 5), 2000);
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_DEFAULT, 1000, 0, 1000), 0);        /* no limit */
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_DEFAULT, 1000, 60000, 1000.5), 59000);
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_DEFAULT, 1000, 60000, 59999.5), 1);
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_DEFAULT, 1000, 60000, 60000), 1);   /* out of time: asked */
  ck_assert_uint_eq(ax_decide_z3_budget(AX_TRY_DEFAULT, 1000, 60000, 70000), 1);
}
END_TEST

/* try, z3's answer, its error code set, the watchdog fired, the limit passed -> the step.
 * nlsat's only answer taken is an unsat without an error; the plain core's undecided or
 * failed try passes on while time is left; an error is never an unsat. */
static const struct StepRow {
  int t, res;
  bool error, fired, out_of_time;
  int step;
} step_rows[] = {
  {NLSAT, Z3_FALSE, 0, 0, 0, STEP_UNSAT},
  {NLSAT, Z3_FALSE, 0, 0, 1, STEP_UNSAT},
  {NLSAT, Z3_FALSE, 0, 1, 0, STEP_UNSAT},
  {NLSAT, Z3_FALSE, 0, 1, 1, STEP_UNSAT},
  {NLSAT, Z3_FALSE, 1, 0, 0, STEP_NEXT},
  {NLSAT, Z3_FALSE, 1, 0, 1, STEP_NEXT},
  {NLSAT, Z3_FALSE, 1, 1, 0, STEP_NEXT},
  {NLSAT, Z3_FALSE, 1, 1, 1, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 0, 0, 0, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 0, 0, 1, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 0, 1, 0, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 0, 1, 1, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 1, 0, 0, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 1, 0, 1, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 1, 1, 0, STEP_NEXT},
  {NLSAT, Z3_UNDEF, 1, 1, 1, STEP_NEXT},
  {NLSAT, Z3_TRUE, 0, 0, 0, STEP_NEXT},
  {NLSAT, Z3_TRUE, 0, 0, 1, STEP_NEXT},
  {NLSAT, Z3_TRUE, 0, 1, 0, STEP_NEXT},
  {NLSAT, Z3_TRUE, 0, 1, 1, STEP_NEXT},
  {NLSAT, Z3_TRUE, 1, 0, 0, STEP_NEXT},
  {NLSAT, Z3_TRUE, 1, 0, 1, STEP_NEXT},
  {NLSAT, Z3_TRUE, 1, 1, 0, STEP_NEXT},
  {NLSAT, Z3_TRUE, 1, 1, 1, STEP_NEXT},
  {SIMPLE, Z3_FALSE, 0, 0, 0, STEP_UNSAT},
  {SIMPLE, Z3_FALSE, 0, 0, 1, STEP_UNSAT},
  {SIMPLE, Z3_FALSE, 0, 1, 0, STEP_UNSAT},
  {SIMPLE, Z3_FALSE, 0, 1, 1, STEP_UNSAT},
  {SIMPLE, Z3_FALSE, 1, 0, 0, STEP_NEXT},
  {SIMPLE, Z3_FALSE, 1, 0, 1, STEP_ERROR},
  {SIMPLE, Z3_FALSE, 1, 1, 0, STEP_NEXT},
  {SIMPLE, Z3_FALSE, 1, 1, 1, STEP_ERROR},
  {SIMPLE, Z3_UNDEF, 0, 0, 0, STEP_NEXT},
  {SIMPLE, Z3_UNDEF, 0, 0, 1, STEP_TIMEOUT},
  {SIMPLE, Z3_UNDEF, 0, 1, 0, STEP_NEXT},
  {SIMPLE, Z3_UNDEF, 0, 1, 1, STEP_TIMEOUT},
  {SIMPLE, Z3_UNDEF, 1, 0, 0, STEP_NEXT},
  {SIMPLE, Z3_UNDEF, 1, 0, 1, STEP_TIMEOUT},
  {SIMPLE, Z3_UNDEF, 1, 1, 0, STEP_NEXT},
  {SIMPLE, Z3_UNDEF, 1, 1, 1, STEP_TIMEOUT},
  {SIMPLE, Z3_TRUE, 0, 0, 0, STEP_SAT},
  {SIMPLE, Z3_TRUE, 0, 0, 1, STEP_SAT},
  {SIMPLE, Z3_TRUE, 0, 1, 0, STEP_SAT},
  {SIMPLE, Z3_TRUE, 0, 1, 1, STEP_SAT},
  {SIMPLE, Z3_TRUE, 1, 0, 0, STEP_NEXT},
  {SIMPLE, Z3_TRUE, 1, 0, 1, STEP_SAT},
  {SIMPLE, Z3_TRUE, 1, 1, 0, STEP_NEXT},
  {SIMPLE, Z3_TRUE, 1, 1, 1, STEP_SAT},
  {DEFAULT, Z3_FALSE, 0, 0, 0, STEP_UNSAT},
  {DEFAULT, Z3_FALSE, 0, 0, 1, STEP_UNSAT},
  {DEFAULT, Z3_FALSE, 0, 1, 0, STEP_UNSAT},
  {DEFAULT, Z3_FALSE, 0, 1, 1, STEP_UNSAT},
  {DEFAULT, Z3_FALSE, 1, 0, 0, STEP_ERROR},
  {DEFAULT, Z3_FALSE, 1, 0, 1, STEP_ERROR},
  {DEFAULT, Z3_FALSE, 1, 1, 0, STEP_ERROR},
  {DEFAULT, Z3_FALSE, 1, 1, 1, STEP_ERROR},
  {DEFAULT, Z3_UNDEF, 0, 0, 0, STEP_UNKNOWN},
  {DEFAULT, Z3_UNDEF, 0, 0, 1, STEP_TIMEOUT},
  {DEFAULT, Z3_UNDEF, 0, 1, 0, STEP_TIMEOUT},
  {DEFAULT, Z3_UNDEF, 0, 1, 1, STEP_TIMEOUT},
  {DEFAULT, Z3_UNDEF, 1, 0, 0, STEP_ERROR},
  {DEFAULT, Z3_UNDEF, 1, 0, 1, STEP_ERROR},
  {DEFAULT, Z3_UNDEF, 1, 1, 0, STEP_ERROR},
  {DEFAULT, Z3_UNDEF, 1, 1, 1, STEP_ERROR},
  {DEFAULT, Z3_TRUE, 0, 0, 0, STEP_SAT},
  {DEFAULT, Z3_TRUE, 0, 0, 1, STEP_SAT},
  {DEFAULT, Z3_TRUE, 0, 1, 0, STEP_SAT},
  {DEFAULT, Z3_TRUE, 0, 1, 1, STEP_SAT},
  {DEFAULT, Z3_TRUE, 1, 0, 0, STEP_ERROR},
  {DEFAULT, Z3_TRUE, 1, 0, 1, STEP_ERROR},
  {DEFAULT, Z3_TRUE, 1, 1, 0, STEP_ERROR},
  {DEFAULT, Z3_TRUE, 1, 1, 1, STEP_ERROR},
};

START_TEST(test_z3_step_table) {
  for (size_t i = 0; i < sizeof step_rows / sizeof step_rows[0]; i++) {
    const struct StepRow *row = &step_rows[i];
    AxZ3Step s = ax_decide_z3_step((AxZ3Try)row->t, (AxZ3Answer)row->res, row->error,
                                   row->fired, row->out_of_time);
    ck_assert_msg((int)s == row->step, "row %zu: got step %d, want %d", i, s, row->step);
  }
}
END_TEST

static Suite *decide_suite(void) {
  Suite *s = suite_create("decide");
  TCase *t = tcase_create("tables");
  tcase_add_test(t, test_portfolio_table);
  tcase_add_test(t, test_portfolio_never_unsat_without_unsat);
  tcase_add_test(t, test_z3_first_table);
  tcase_add_test(t, test_z3_budget);
  tcase_add_test(t, test_z3_step_table);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(decide_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
