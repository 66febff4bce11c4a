/* portfolio.c — two solvers on one query: a race (AX_SOLVER_PORTFOLIO) or a cross-check;
 * see solver.h.
 *
 * Each solver has a "racer". z3's is the z3 helper (helper.h): z3 through its API in a
 * process forked once that answers query after query, because a process per query cost
 * most of an easy query's time; z3 in a thread could not be stopped from outside z3.c. The
 * binary's is a thread of this process that talks to the binary through pipe.c, which
 * starts the solver with posix_spawn: the caller never forks per query (a fork
 * write-protects its heap, and each page written after it faults again). Each racer writes its answer, and on sat the model, as text: the thread to a pipe,
 * then ends; the helper to its socket, ending with the line "end", and waits for the next
 * query. A racer no longer needed is ended: the thread through its cancel pipe, on which
 * pipe.c kills the solver's whole process tree (proc.h) and returns; the helper killed,
 * when its answer is not in, and the next query forks a new one. The thread reads no term
 * and no option: the query is rendered before it starts (ax_pipe_prepare).
 *
 * This file is the race: processes, pipes, deadlines. Which answer the two outcomes make is
 * decided by ax_decide_portfolio (decide.h), a pure function tested by its truth table;
 * explain() below words its reasons and counts the log.
 *
 * What a racer sends, one item a line:
 *     unsat | unknown <reason> | sat <n>, then n model slots: "-" (no value), "b 0", "b 1",
 *     "q <rational>"
 * Anything else, a racer that dies before its last line, or one past the deadline, is an
 * answer of UNKNOWN with the reason. The rule of solver.h holds throughout: UNSAT only
 * when a solver said unsat (and, cross-checking, the other one too).
 *
 * One asymmetry: z3 does not know exp (z3.c makes it an uninterpreted function), so on a
 * formula with exp z3's sat is only a candidate. It does not win the race (the other
 * solver is waited for; z3's model is used only when that one has no answer, as z3 alone
 * would), and against the other's unsat it is no disagreement, only no confirmation.
 *
 * Eager replay (solver.h, o->replay): every sat with a model is handed to the caller's
 * exact replay the moment it is read, while the other racer goes on. A model that replays
 * is a counterexample whoever found it, so the query ends there: z3's candidate on exp no
 * longer waits out the binary's time limit, nor the binary's sat z3's answer. A model that
 * does not replay changes nothing but the wait: the other solver is still waited for (z3's
 * exact sat, which used to end the query, gives the binary the confirmation grace to find
 * a model that does replay). Only the replayed model can make the caller's verdict INVALID
 * (it replays it again), so nothing here can turn an unreplayed model into a refutation.
 *
 * Early refutation (query.h, o->refute): a model that does not replay, while the other
 * racer is still at it, first gets the caller's own refutation without a model (small
 * instances, replayed exactly). Where that finds a counterexample the query ends there, as
 * UNKNOWN with *o->refuted set: the caller's counterexample, not any solver's answer, makes
 * its verdict. Without that, a candidate on exp whose model does not replay waited out the
 * binary's whole time limit before the caller's search, which takes milliseconds, ran. An
 * answer of the other racer that is in before the refutation (looked for before and after
 * the search) is decided as it always was: an unsat keeps its say. */
#define _GNU_SOURCE   /* pipe2 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smt/portfolio.h"

#include "base/clock.h"
#include "base/proc.h"
#include "smt/decide.h"
#include "smt/helper.h"
#include "smt/pipe.h"
#include "smt/smtlib.h"

#define GRACE_MS 5000               /* past the time limit before a racer is killed */
#define MAX_ANSWER ((size_t)64 << 20)
/* Confirm mode: after one solver's unsat the other gets GRACE_FACTOR times the time the
 * first needed, at least GRACE_FLOOR_MS and at most confirm_grace_ms. Measured over the
 * whole corpus (763 queries both solvers proved): the second answer
 * came within that wait in every case where it came within the 2 s the fixed grace gave,
 * and a solver that cannot decide a query (cvc5 on nonlinear real division) no longer costs
 * 2 s per query. Only the label (one solver or both) depends on it, never the verdict. */
#define GRACE_FACTOR 4
#define GRACE_FLOOR_MS 500

typedef struct Racer {
  const char *name;      /* "z3", or the binary's base name */
  bool api;              /* z3 through its API (in the helper), else the binary through pipes */
  pid_t pid;             /* the helper's; 0 once given up or never started */
  int fd;                /* read end of its answer; -1 once closed */
  /* the binary's racer, a thread; it reads only job, cancel[0] and out, set before it
   * starts, and owns out (it closes it) */
  AxPipeJob *job;
  pthread_t thread;
  bool running;          /* started and not yet joined */
  int cancel[2];         /* writing a byte to cancel[1] stops it */
  int out;               /* the write end of its answer */
  bool wrote;            /* its whole answer went into the pipe (read after the join) */
  char *buf;
  size_t len, cap;
  bool answered;         /* r, model and reason are final */
  AxSmtResult r;
  AxModel *model;        /* owned until handed to the caller */
  char reason[512];
  int64_t at_ms;         /* when its answer was read, from the start of the race; -1: none */
  bool replayed;         /* its model was confirmed by the caller's replay (o->replay) */
  bool unreplayed;       /* its model was replayed and did not confirm */
} Racer;

/* Has part of rc's answer come in, read or not yet read? */
static bool pending(const Racer *rc) {
  if (rc->len > 0) return true;
  struct pollfd p = {rc->fd, POLLIN, 0};
  return rc->fd >= 0 && poll(&p, 1, 0) != 0;   /* an error counts: let the loop see it */
}

/* o->refute, once per query (*tried), for the model m of a racer that did not replay while
 * `other` has not answered: true when the query ends with the caller's refutation — found,
 * with no answer of other's in before the search or after it. */
static bool refuted_early(const AxSolverOpts *o, const AxModel *m, const Racer *other, bool *tried) {
  if (!o->refute || *tried || other->answered) return false;
  *tried = true;
  return !pending(other) && o->refute(o->refute_ctx, m) && !pending(other);
}

/* --- The binary's racer, a thread ---------------------------------------------------- */

/* Asks the binary, writes the answer to rc->out and closes it. */
static void *race(void *arg) {
  Racer *rc = arg;
  char reason[512] = "";
  AxModel *m = NULL;
  AxSmtResult r = ax_pipe_run(rc->job, rc->cancel[0], &m, reason, sizeof reason);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    ax_helper_write_answer(f, r, m, reason);
    /* a write after the reader gave up fails with EPIPE: SIGPIPE is blocked here */
    rc->wrote = fclose(f) == 0 && ax_proc_write_full(rc->out, text, len);
  }
  free(text);
  ax_model_free(m);
  close(rc->out);
  rc->out = -1;
  return NULL;
}

/* --- In the caller --------------------------------------------------------------------- */

static void close_pair(int p[2]) {
  for (int i = 0; i < 2; i++)
    if (p[i] >= 0) close(p[i]);
  p[0] = p[1] = -1;
}

/* rc could not start: UNKNOWN with the reason already written, or with why */
static bool not_started(Racer *rc, const char *why) {
  if (why) snprintf(rc->reason, sizeof rc->reason, "%s: %s", why, strerror(errno));
  ax_pipe_job_free(rc->job);
  rc->job = NULL;
  rc->pid = 0;
  rc->fd = -1;
  rc->r = AX_SMT_UNKNOWN;
  rc->answered = true;
  return false;
}

static bool start(Racer *rc, const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                  const AxTerm *const *watch, size_t nwatch, bool want_model) {
  if (rc->api)
    return ax_helper_send(o, tc, formula, watch, nwatch, want_model, &rc->pid, &rc->fd,
                          rc->reason, sizeof rc->reason) || not_started(rc, NULL);
  rc->job = ax_pipe_prepare(o, tc, formula, watch, nwatch, want_model, rc->reason,
                            sizeof rc->reason);
  if (!rc->job) return not_started(rc, NULL);
  int p[2] = {-1, -1};
  if (pipe2(p, O_CLOEXEC) != 0 || pipe2(rc->cancel, O_CLOEXEC) != 0) {
    close_pair(p);
    return not_started(rc, "cannot create a pipe");
  }
  rc->fd = p[0];
  rc->out = p[1];
  /* every signal blocked in the thread, so that none is delivered to it instead of the
   * main thread; the solver gets the mask ax_pipe_prepare saw */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int e = pthread_create(&rc->thread, NULL, race, rc);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (e != 0) {
    close_pair(p);
    close_pair(rc->cancel);
    errno = e;
    return not_started(rc, "cannot start a thread");
  }
  rc->running = true;
  return true;
}

/* Joins the binary's racer: cancelled first (which changes nothing once its answer is
 * written: it is past the conversation), and its answer's pipe closed, so that a write it
 * is still blocked in fails instead of waiting for a reader. */
static void join(Racer *rc) {
  if (write(rc->cancel[1], "x", 1) < 0) {
    /* cannot fail on a new pipe with one byte in it; closing it would wake the thread too */
    close(rc->cancel[1]);
    rc->cancel[1] = -1;
  }
  if (rc->fd >= 0) close(rc->fd);
  rc->fd = -1;
  if (rc->running) pthread_join(rc->thread, NULL);
  rc->running = false;
  close_pair(rc->cancel);
  ax_pipe_job_free(rc->job);
  rc->job = NULL;
}

/* Ends a racer that has not answered: the thread cancelled and joined, or the helper
 * killed (ax_helper_kill ends it with its tree, its pid and socket being the helper's). */
static void stop(Racer *rc) {
  if (rc->api) {
    if (rc->pid > 0) ax_helper_kill();
  } else {
    join(rc);
  }
  rc->fd = -1;
  rc->pid = 0;
}

/* Reads the next line of s (advancing *s); NULL when there is none. */
static char *next_line(char **s) {
  char *line = *s, *nl = strchr(line, '\n');
  if (!nl) return NULL;
  *nl = '\0';
  *s = nl + 1;
  return line;
}

/* Decodes a racer's whole output; false if it is not a complete answer. */
static bool decode(Racer *rc, const AxTerm *const *watch, size_t nwatch) {
  if (!rc->buf) return false;
  char *s = rc->buf, *line = next_line(&s);
  if (!line) return false;
  bool ok = false;
  if (strcmp(line, "unsat") == 0) {
    rc->r = AX_SMT_UNSAT;
    ok = true;
  } else if (strncmp(line, "unknown ", 8) == 0) {
    rc->r = AX_SMT_UNKNOWN;
    snprintf(rc->reason, sizeof rc->reason, "%s", line + 8);
    ok = true;
  } else if (strncmp(line, "sat ", 4) == 0) {
    char *end;
    unsigned long n = strtoul(line + 4, &end, 10);
    if (*end || (n != 0 && n != nwatch)) return false;
    AxModel *m = n ? ax_model_new(watch, nwatch) : NULL;
    mpq_t q;
    mpq_init(q);
    ok = true;
    for (size_t i = 0; ok && i < n; i++) {
      line = next_line(&s);
      if (!line) ok = false;
      else if (strcmp(line, "-") == 0) continue;
      else if (strcmp(line, "b 0") == 0 || strcmp(line, "b 1") == 0)
        ok = ax_model_set_bool(m, i, line[2] == '1');
      /* a rational the racer printed: linear in a line of its bounded answer */
      else if (strncmp(line, "q ", 2) == 0 && mpq_set_str(q, line + 2, 10) == 0 &&
               mpz_sgn(mpq_denref(q)) != 0) {
        mpq_canonicalize(q);
        ok = ax_model_set_rational(m, i, q);
      } else {
        ok = false;
      }
    }
    mpq_clear(q);
    if (!ok) {
      ax_model_free(m);
      return false;
    }
    rc->r = AX_SMT_SAT;
    rc->model = m;
  }
  line = ok ? next_line(&s) : NULL;
  if (!line || strcmp(line, "end") != 0 || *s) {
    ax_model_free(rc->model);
    rc->model = NULL;
    return false;
  }
  return true;
}

/* Is the helper's answer all in? It ends with the line "end", which no earlier line of an
 * answer can be (the first is unsat, unknown … or sat …; a model slot is -, b … or q …). */
static bool complete(const Racer *rc) {
  return rc->len >= 5 && memcmp(rc->buf + rc->len - 5, "\nend\n", 5) == 0;
}

/* The racer's output has ended (for the helper: its answer is complete, or its socket
 * closed): its answer, or UNKNOWN saying how it died. A helper whose answer is complete and
 * reads as one stays for the next query; any other is killed. */
static void finish(Racer *rc, const AxTerm *const *watch, size_t nwatch) {
  int status;
  rc->answered = true;
  if (rc->api) {
    bool in = rc->len <= MAX_ANSWER && complete(rc);   /* before decode() cuts the lines */
    if (in && decode(rc, watch, nwatch)) {
      rc->fd = -1;
      rc->pid = 0;
      return;
    }
    status = ax_helper_kill();
    if (in) status = 0;   /* all in, and not an answer: garbled (we killed it for that) */
  } else {
    join(rc);   /* its answer is in, or a read failed or ran past MAX_ANSWER: never waited for */
    status = 0;   /* a thread ends only by returning: an answer cut short is garbled */
    if (rc->wrote && decode(rc, watch, nwatch)) return;
  }
  rc->fd = -1;
  rc->pid = 0;
  char how[64];
  rc->r = AX_SMT_UNKNOWN;
  if (status == 0)
    snprintf(rc->reason, sizeof rc->reason, "its answer was cut or garbled");
  else
    snprintf(rc->reason, sizeof rc->reason, "its process %s",
             ax_proc_describe(status, how, sizeof how));
}

/* Reads what the racer wrote. False at the end of its output (or on an error). */
static bool take(Racer *rc) {
  if (rc->len + 4096 > rc->cap) {
    rc->cap = rc->cap ? rc->cap * 2 : 8192;
    rc->buf = ax_xrealloc(rc->buf, rc->cap);
  }
  ssize_t n = read(rc->fd, rc->buf + rc->len, rc->cap - rc->len - 1);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  rc->len += (size_t)n;
  rc->buf[rc->len] = '\0';
  return rc->len <= MAX_ANSWER;
}

/* Does some subterm of formula satisfy pred? (each distinct subterm visited once) */
static bool any_term(AxTermCtx *tc, const AxTerm *formula, bool (*pred)(const AxTerm *)) {
  uint32_t n = ax_term_ctx_size(tc);
  uint8_t *seen = ax_xcalloc(n ? n : 1, 1);
  size_t top = 0, cap = 64;
  const AxTerm **stack = ax_xmalloc(cap * sizeof *stack);
  stack[top++] = formula;
  bool found = false;
  while (top > 0 && !found) {
    const AxTerm *t = stack[--top];
    uint32_t id = ax_term_id(t);
    if (id < n && seen[id]) continue;
    if (id < n) seen[id] = 1;
    found = pred(t);
    for (size_t i = 0; i < ax_term_nargs(t); i++) {
      if (top == cap) stack = ax_xrealloc(stack, (cap *= 2) * sizeof *stack);
      stack[top++] = ax_term_arg(t, i);
    }
  }
  free(stack);
  free(seen);
  return found;
}

static bool is_exp(const AxTerm *t) { return ax_term_kind(t) == AX_TERM_EXP; }

/* Does z3 (z3.c) decide formula exactly? Not when it holds exp, which z3 4.8 does not
 * know: z3.c makes it an uninterpreted function, so z3's unsat stands (it holds for every
 * function) but its sat may rest on a function that is no exponential. */
static bool z3_exact(AxTermCtx *tc, const AxTerm *formula) { return !any_term(tc, formula, is_exp); }

/* a real division of two terms neither of which is a numeral (a / exp(b), a / sqrt(b)) */
static bool is_free_division(const AxTerm *t) {
  return ax_term_kind(t) == AX_TERM_RDIV && !ax_term_is_const(ax_term_arg(t, 0)) &&
         !ax_term_is_const(ax_term_arg(t, 1));
}

/* o->skip_hopeless (query.h): a formula with exp (log and the powers are exps) and a
 * division of two non-numeral terms, asked of cvc5 — whose 1.0 releases, built without
 * libpoly, have no complete method for nonlinear real arithmetic and, over rules/xla-extra
 * and rules/trinity, confirmed no such query z3 had proved: each one
 * cost the full grace and ended "z3 only". */
static bool hopeless(const AxSolverOpts *o, const char *base, AxTermCtx *tc, const AxTerm *formula,
                     bool approx) {
  return o->skip_hopeless && o->cross_check && o->confirm && approx && strncmp(base, "cvc5", 4) == 0 &&
         any_term(tc, formula, is_free_division);
}

/* Is rc's answer one the race can stop at? unsat always; sat unless it is z3's on a
 * formula z3 only approximates. */
static bool definite(const Racer *rc, bool approx) {
  return rc->r == AX_SMT_UNSAT || (rc->r == AX_SMT_SAT && !(rc->api && approx));
}

static const char *answer_name(AxSmtResult r) {
  return r == AX_SMT_SAT ? "sat" : r == AX_SMT_UNSAT ? "unsat" : "unknown";
}

/* The query's file for a disagreement report: the dump, or a new file under $TMPDIR. */
static void keep_query(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                       const AxTerm *const *watch, size_t nwatch, char *path, size_t len) {
  if (o->dump_path) {
    snprintf(path, len, "%s", o->dump_path);
    return;
  }
  const char *dir = getenv("TMPDIR");
  snprintf(path, len, "%s/axle-disagreement-XXXXXX.smt2", dir && *dir ? dir : "/tmp");
  int fd = mkstemps(path, 5);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    snprintf(path, len, "(not written: %s)", strerror(errno));
    return;
  }
  ax_smtlib_write(f, tc, formula, watch, nwatch, "axle query on which two solvers disagreed");
  if (fclose(f) != 0) snprintf(path, len, "(not written: %s)", strerror(errno));
}

/* Confirm mode, one solver has answered at t0 + its time: the other gets GRACE_FACTOR times
 * that time (at least confirm_floor_ms, by default GRACE_FLOOR_MS; at most confirm_grace_ms)
 * from now, unless the deadline is sooner already. */
static void give_grace(const AxSolverOpts *o, int64_t t0, int64_t *deadline, bool *grace) {
  int64_t extra = GRACE_FACTOR * (ax_clock_ms() - t0);
  int64_t floor_ms = o->confirm_floor_ms ? (int64_t)o->confirm_floor_ms : GRACE_FLOOR_MS;
  if (extra < floor_ms) extra = floor_ms;
  if (extra > (int64_t)o->confirm_grace_ms) extra = (int64_t)o->confirm_grace_ms;
  int64_t soon = ax_clock_ms() + extra;
  if (*deadline < 0 || soon < *deadline) {
    *deadline = soon;
    *grace = true;
  }
}

/* The reason of an answer that is none, and the log's counts (o->log), from the decision. */
static void explain(const AxSolverOpts *o, const AxDecision *d, const Racer rc[2], const char *base,
                    AxTermCtx *tc, const AxTerm *formula, const AxTerm *const *watch,
                    size_t nwatch, char *reason, size_t reason_len) {
  switch (d->why) {
  case AX_WHY_NO_WINNER:
    snprintf(reason, reason_len, "portfolio: z3: %s; %s: %s", rc[0].reason, base, rc[1].reason);
    break;
  case AX_WHY_ONE_DECIDED:
    if (d->r == AX_SMT_UNSAT && o->log) {
      if (d->give == 0) o->log->unsat_z3_only++;
      else o->log->unsat_binary_only++;
    }
    break;
  case AX_WHY_NONE_DECIDED:
    snprintf(reason, reason_len, "%s: z3: %s; %s: %s",
             o->confirm ? "no solver decided" : "cross-check", rc[0].reason, base, rc[1].reason);
    break;
  case AX_WHY_Z3_UNDECIDED:
    snprintf(reason, reason_len, "cross-check: z3 gave no answer (%s); %s said %s",
             rc[0].reason, base, answer_name(rc[1].r));
    break;
  case AX_WHY_BINARY_UNDECIDED:
    snprintf(reason, reason_len, "cross-check: %s gave no answer (%s); z3 said %s", base,
             rc[1].reason, answer_name(rc[0].r));
    break;
  case AX_WHY_Z3_APPROX:
    snprintf(reason, reason_len,
             "cross-check: z3 cannot decide this query (exp is uninterpreted to it: sat); "
             "%s said unsat",
             base);
    break;
  case AX_WHY_DISAGREE: {
    char path[4096];
    keep_query(o, tc, formula, watch, nwatch, path, sizeof path);
    snprintf(reason, reason_len, "SOLVERS DISAGREE: z3 says %s, %s says %s; query: %s",
             answer_name(rc[0].r), base, answer_name(rc[1].r), path);
    if (o->log && o->log->disagreements++ == 0)
      snprintf(o->log->first, sizeof o->log->first, "%s", reason);
    break;
  }
  case AX_WHY_AGREE:
    if (d->r == AX_SMT_UNSAT && o->log) o->log->unsat_both++;
    break;
  case AX_WHY_REPLAYED:
  case AX_WHY_WINNER:
  case AX_WHY_CANDIDATE:
    break;
  }
}

AxSmtResult ax_portfolio_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                               const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                               char *reason, size_t reason_len) {
  const char *base = strrchr(o->binary, '/') ? strrchr(o->binary, '/') + 1 : o->binary;
  /* r starts UNKNOWN: a racer that never answers must not read as unsat (enum 0) */
  Racer rc[2] = {{.name = "z3", .api = true, .fd = -1, .r = AX_SMT_UNKNOWN, .at_ms = -1},
                 {.name = base, .fd = -1, .r = AX_SMT_UNKNOWN, .at_ms = -1,
                  .cancel = {-1, -1}, .out = -1}};
  bool both = o->cross_check;
  /* z3's sat on a formula it only approximates proves nothing about the formula */
  bool approx = !z3_exact(tc, formula);
  bool skip = hopeless(o, base, tc, formula, approx), skipped = false;
  int64_t t0 = ax_clock_ms();
  for (int i = 0; i < 2; i++) start(&rc[i], o, tc, formula, watch, nwatch, model_out != NULL);
  int64_t deadline = o->timeout_ms ? ax_clock_ms() + o->timeout_ms + GRACE_MS : -1;
  int winner = -1;
  bool late = false, grace = false, tried = false, refuted = false;
  /* a candidate model is replayed the moment it arrives (o->replay): one that replays is a
   * counterexample whoever found it, so nobody else need be waited for — not the other's
   * time limit on a formula z3 approximates (exp), not z3's answer after the binary's sat.
   * Never in the strict cross-check, whose point is both answers. */
  bool eager = o->replay && model_out && (!both || o->confirm);
  while (winner < 0 && !refuted && (!rc[0].answered || !rc[1].answered)) {
    struct pollfd p[2];
    nfds_t np = 0;
    int who[2];
    for (int i = 0; i < 2; i++)
      if (!rc[i].answered) {
        p[np] = (struct pollfd){rc[i].fd, POLLIN, 0};
        who[np++] = i;
      }
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - ax_clock_ms();
      if (left <= 0) {
        late = true;
        break;
      }
      wait = (int)left;
    }
    if (poll(p, np, wait) < 0 && errno != EINTR) break;
    for (nfds_t k = 0; k < np; k++) {
      Racer *r = &rc[who[k]];
      if (!p[k].revents) continue;
      /* the end of its output, or for the helper the end of its answer */
      if (!take(r) || (r->api && complete(r))) {
        finish(r, watch, nwatch);
        r->at_ms = ax_clock_ms() - t0;
        if (winner >= 0 || refuted) continue;   /* both ended in one poll: the first stands */
        /* the binary's sat on a formula z3 decides exactly still waits for z3's (below):
         * z3's model is preferred, so that counterexamples do not depend on speed */
        if (eager && r->r == AX_SMT_SAT && r->model && (r->api || approx || !both)) {
          if (o->replay(o->replay_ctx, r->model)) {
            r->replayed = true;
            winner = who[k];
            continue;
          }
          r->unreplayed = true;
          if (both && r->api && !approx) {
            /* z3's exact sat that does not replay (an uninterpreted function took a value
             * the true one cannot): the binary, still at it, may find a model that does;
             * it gets the grace an unsat's confirmation gets, then z3's model stands */
            give_grace(o, t0, &deadline, &grace);
            refuted = refuted_early(o, r->model, &rc[1 - who[k]], &tried);
            continue;
          }
        }
        if (!both && definite(r, approx)) winner = who[k];
        if (both && o->confirm && definite(r, approx)) {
          /* confirm mode: z3's sat needs no second opinion (its model is replayed before it
           * refutes anything, and it is the model preferred, so counterexamples do not depend
           * on which solver was faster); the binary's sat waits for z3's answer; an unsat gets
           * the other solver's confirmation if it comes within the grace, else it stands
           * alone, labelled */
          if (r->r == AX_SMT_SAT) {
            /* no model asked for (the vacuity query): nothing to prefer, the first sat ends it */
            if (r->api || o->first_sat || !model_out) winner = who[k];
          } else if (skip && r->api) {
            winner = who[k];   /* z3's unsat, and a confirmation that would not come */
            skipped = true;
          } else {
            give_grace(o, t0, &deadline, &grace);
          }
        }
        /* a model that did not replay, and the race would wait on: the caller's search */
        if (r->unreplayed && winner < 0)
          refuted = refuted_early(o, r->model, &rc[1 - who[k]], &tried);
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (!rc[i].answered) {
      stop(&rc[i]);
      rc[i].answered = true;
      rc[i].r = AX_SMT_UNKNOWN;
      snprintf(rc[i].reason, sizeof rc[i].reason, "%s",
               late && grace ? "no confirmation within the grace after the other's answer (killed)"
               : late        ? "no answer within the time limit and grace (killed)"
               : skipped     ? "not waited for: nonlinear division with exp, which it was never seen to decide"
               : refuted     ? "not waited for: the caller refuted the query without a model"
               : winner >= 0 ? "lost the race (killed)" : "no answer (killed)");
    }
  if (getenv("AXLE_DEBUG_CONFIRM"))   /* the figures behind the grace's policy; -1: killed */
    fprintf(stderr, "confirm%s: z3 %s%s %lld ms; %s %s%s %lld ms%s\n", approx ? " (exp/log)" : "",
            answer_name(rc[0].r), rc[0].replayed ? " (replayed)" : rc[0].unreplayed ? " (not replayed)" : "",
            (long long)rc[0].at_ms, base, answer_name(rc[1].r),
            rc[1].replayed     ? " (replayed)"
            : rc[1].unreplayed ? " (not replayed)"
            : skipped          ? " (not waited for)"
                               : "",
            (long long)rc[1].at_ms, refuted ? "; refuted early (no model)" : "");
  if (refuted) {
    /* the caller's counterexample decides; no solver's answer is given */
    *o->refuted = true;
    snprintf(reason, reason_len, "refuted without a model while the solvers ran");
    for (int i = 0; i < 2; i++) {
      ax_model_free(rc[i].model);
      free(rc[i].buf);
    }
    return AX_SMT_UNKNOWN;
  }

  AxRacerOutcome out[2];
  for (int i = 0; i < 2; i++)
    out[i] = (AxRacerOutcome){.r = rc[i].r, .model = rc[i].model != NULL,
                              .replayed = rc[i].replayed, .unreplayed = rc[i].unreplayed};
  AxDecision d = ax_decide_portfolio(!both ? AX_DECIDE_RACE : o->confirm ? AX_DECIDE_CONFIRM
                                                                        : AX_DECIDE_STRICT,
                                     approx, winner, out);
  AxSmtResult r = d.r;
  int give = d.give;   /* whose model goes to the caller */
  explain(o, &d, rc, base, tc, formula, watch, nwatch, reason, reason_len);
  if (r == AX_SMT_SAT && model_out && give >= 0) {
    *model_out = rc[give].model;
    rc[give].model = NULL;
  }
  for (int i = 0; i < 2; i++) {
    ax_model_free(rc[i].model);
    free(rc[i].buf);
  }
  return r;
}
