/* decide.c — the back-ends' decisions as pure functions; see decide.h. */
#include "smt/decide.h"

AxDecision ax_decide_portfolio(AxDecideMode mode, bool approx, int winner,
                               const AxRacerOutcome rc[2]) {
  bool both = mode != AX_DECIDE_RACE, confirm = mode == AX_DECIDE_CONFIRM;
  AxSmtResult r0 = rc[0].r, r1 = rc[1].r;
  /* z3's sat on a formula it approximates (exp) is only a candidate */
  bool vague = approx && r0 == AX_SMT_SAT;
  AxDecision d = {.r = AX_SMT_UNKNOWN, .give = -1};
  if (winner >= 0 && rc[winner].replayed) {
    /* a model the caller replayed: a counterexample, whatever the other solver would say */
    d = (AxDecision){AX_SMT_SAT, winner, AX_WHY_REPLAYED};
  } else if (!both) {
    if (winner >= 0)
      d = (AxDecision){rc[winner].r, winner, AX_WHY_WINNER};
    else if (vague)
      /* the other solver has no answer: z3's candidate, as z3 alone would give it (the
       * verifier replays its model, and only a replay that confirms makes it INVALID) */
      d = (AxDecision){AX_SMT_SAT, 0, AX_WHY_CANDIDATE};
    else
      d.why = AX_WHY_NO_WINNER;
  } else if (confirm && vague && r1 == AX_SMT_UNKNOWN) {
    /* z3's candidate, the other solver undecided: a candidate only, replayed by the caller */
    d = (AxDecision){AX_SMT_SAT, 0, AX_WHY_CANDIDATE};
  } else if (confirm && (r0 == AX_SMT_UNKNOWN || vague) != (r1 == AX_SMT_UNKNOWN)) {
    /* one solver answered, the other could not decide (z3's sat on exp is no answer; the
     * case of both undecided, z3's candidate among them, was taken above) */
    int who = r1 == AX_SMT_UNKNOWN ? 0 : 1;
    d = (AxDecision){rc[who].r, who, AX_WHY_ONE_DECIDED};
  } else if (r0 == AX_SMT_UNKNOWN || r1 == AX_SMT_UNKNOWN) {
    d.why = r0 == AX_SMT_UNKNOWN && r1 == AX_SMT_UNKNOWN ? AX_WHY_NONE_DECIDED
            : r0 == AX_SMT_UNKNOWN                      ? AX_WHY_Z3_UNDECIDED
                                                        : AX_WHY_BINARY_UNDECIDED;
  } else if (vague && r1 == AX_SMT_UNSAT) {
    d.why = AX_WHY_Z3_APPROX;   /* no disagreement: z3 answered another question */
  } else if (r0 != r1) {
    d.why = AX_WHY_DISAGREE;
  } else {
    /* z3's model, unless it has none, rests on an approximation or did not replay */
    int give = (rc[0].model && !vague && !rc[0].unreplayed) || !rc[1].model ? 0 : 1;
    d = (AxDecision){r0, give, AX_WHY_AGREE};
  }
  return d;
}

AxZ3Try ax_decide_z3_first(const AxZ3Shape *q, unsigned total_ms, unsigned *first_ms) {
  AxZ3Try first = AX_TRY_DEFAULT;
  *first_ms = 0;
  if (q->rdiv_var && !q->idiv) {
    /* nlsat reasons over the reals: reading integers as reals only adds models, so its
     * unsat stands; integer div and mod are no relaxation of anything it knows */
    first = AX_TRY_NLSAT;
    *first_ms = AX_Z3_NRA_MS;
  } else if (!q->exp && !q->fp && !q->idiv_var) {
    first = AX_TRY_SIMPLE;
    *first_ms = AX_Z3_SIMPLE_MS;
  }
  if (total_ms && total_ms < 2 * *first_ms) *first_ms = total_ms / 2;
  return first;
}

unsigned ax_decide_z3_budget(AxZ3Try t, unsigned first_ms, unsigned total_ms, double elapsed_ms) {
  if (t != AX_TRY_DEFAULT) return first_ms;
  if (!total_ms) return 0;
  if (elapsed_ms >= total_ms) return 1;
  return total_ms - (unsigned)elapsed_ms;
}

AxZ3Step ax_decide_z3_step(AxZ3Try t, AxZ3Answer res, bool error, bool fired, bool out_of_time) {
  /* nlsat: only its unsat is taken (its models may give integers real values); any other
   * answer, or an error, leaves the question to the default solver */
  if (t == AX_TRY_NLSAT && (res != AX_Z3_FALSE || error)) return AX_STEP_NEXT;
  if (t == AX_TRY_SIMPLE && (res == AX_Z3_UNDEF || error)) {
    if (!out_of_time) return AX_STEP_NEXT;   /* no answer in its time: the default's turn */
    /* out of time: no default solver after it. An error is no unsat. */
    if (error && res == AX_Z3_FALSE) return AX_STEP_ERROR;
    error = false;
  }
  if (error) return AX_STEP_ERROR;
  if (res == AX_Z3_FALSE) return AX_STEP_UNSAT;
  if (res == AX_Z3_TRUE) return AX_STEP_SAT;
  return fired || out_of_time ? AX_STEP_TIMEOUT : AX_STEP_UNKNOWN;
}
