/* pipe.c — the SMT-LIB2 back-end: a solver binary as a child process; see solver.h.
 *
 * Conversation: we write the query up to (check-sat) and read one s-expression back:
 * `unsat`, `sat`, `unknown`, or anything else (an `(error ...)`, garbage, end of output),
 * which makes the answer UNKNOWN. After `sat` we send (get-value ...), after `unknown`
 * (get-info :reason-unknown). The first s-expression must be the check-sat answer: both
 * solvers print nothing before it unless a command failed, and a failed command must not
 * let a later `unsat` through (z3 goes on after an error, e.g. with an assertion missing).
 *
 * Guards, from inner to outer: the solver's own per-query limit (a clean `unknown`), its
 * whole-process limit, our deadline (timeout + GRACE: then SIGKILL to its process group),
 * the caller's cancel descriptor (the portfolio's race is over: the whole tree killed), and
 * RLIMIT_AS / RLIMIT_CPU on the child, so that a runaway solver cannot take the machine even
 * if we die first. The child leads its own process group, so killing the group also takes
 * whatever it started (a wrapper script's `sleep`). Every path closes our pipe ends and
 * reaps the child: no zombies, no stray descendants.
 *
 * The child is started with posix_spawn, not fork: glibc's is a clone that shares our
 * memory until the exec, so the caller's page tables are never copied nor its heap
 * write-protected — after a fork every page the caller writes faults once more, which on
 * this project's VMs cost more than an easy query. What a forked
 * child did between fork and exec is done by spawn attributes (process group, signal mask,
 * SIGPIPE's default) and by prlimit on the pid right after the spawn: the limits then
 * start microseconds into the solver's life instead of before it, and they are a guard
 * against a solver that runs away for seconds, which those microseconds do not change.
 *
 * SIGPIPE: writing to a solver that has died raises it. We block it in the calling thread
 * while talking and consume the one our writes raised, so the process-wide disposition is
 * never touched (other threads may be talking to other solvers); the child gets the
 * preparing thread's mask and a default SIGPIPE. */
#define _GNU_SOURCE   /* pipe2, prlimit, F_DUPFD_CLOEXEC */

#include "smt/pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/proc.h"
#include "smt/smtlib.h"

#define GRACE_MS 2000            /* past the time limit before we kill */
#define FOLLOWUP_MS 5000         /* for get-value / get-info after the answer */
#define EXIT_WAIT_MS 1000        /* for a child that closed its output to exit */
#define MAX_OUTPUT (256u << 20)  /* a longer answer is garbage */
#define AS_LIMIT ((rlim_t)4 << 30)

typedef struct Child {
  pid_t pid;
  bool reaped, exited;     /* exited: it ended by itself, before any kill of ours */
  int status;              /* from waitpid, once reaped */
  int in, out, err;        /* our ends of its stdin, stdout, stderr; -1 once closed */
  bool out_eof;
  char *obuf;              /* everything it printed on stdout */
  size_t olen, ocap, opos; /* opos: where the next answer starts */
  char ebuf[512];          /* the start of its stderr */
  size_t elen;
  AxArena *a;              /* parsed answers */
  int cancel;              /* readable: stop (ax_pipe_run's cancel_fd); -1: none */
  bool cancelled;          /* it was: the whole tree is killed */
} Child;

typedef enum { TALK_OK, TALK_TIMEOUT, TALK_EOF, TALK_BAD, TALK_CANCEL } Talk;

struct AxPipeJob {
  char path[PATH_MAX];     /* the binary, resolved */
  unsigned timeout_ms;
  char *query, *getval;    /* the query up to (check-sat); the (get-value ...) after sat */
  size_t nquery, ngetval;
  AxModel *model;          /* empty, the watched terms' sorts; NULL: no model wanted */
  sigset_t mask;           /* the preparing thread's signal mask, which the solver gets */
};

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* --- Starting the child ---------------------------------------------------------------------- */

/* The executable named by name: itself when it has a '/', else the first match in PATH. */
static bool resolve(const char *name, char *out, size_t len) {
  struct stat st;
  if (strchr(name, '/')) {
    snprintf(out, len, "%s", name);
    return true;   /* exec reports what is wrong with it */
  }
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path;; p++) {
    size_t n = strcspn(p, ":");
    if ((size_t)snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name) < len &&
        stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
      return true;
    p += n;
    if (!*p) return false;
  }
}

static int start_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Fills argv (with storage in a) for the solver at path, by the flavour of its name. */
static void arguments(AxArena *a, const char *path, unsigned ms, const char *argv[8]) {
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  size_t n = 0;
  argv[n++] = path;
  if (start_with(base, "z3")) {
    argv[n++] = "-in";
    argv[n++] = "-smt2";
    if (ms) {
      /* -t is z3's soft per-query limit; -T its hard process limit, in whole seconds,
       * which also ends the scoped_timer deadlock of z3 4.8.12 that can swallow -t. */
      argv[n++] = ax_arena_printf(a, "-t:%u", ms);
      argv[n++] = ax_arena_printf(a, "-T:%u", (ms + 999) / 1000 + 1);
    }
  } else if (strstr(base, "cvc")) {
    argv[n++] = "--lang=smt2";
    if (ms) {
      argv[n++] = ax_arena_printf(a, "--tlimit-per=%u", ms);
      argv[n++] = ax_arena_printf(a, "--tlimit=%llu",
                                  (unsigned long long)ms + GRACE_MS + 1000);
    }
  }
  argv[n] = NULL;
}

/* Lowers limit `which` to want (keeping the hard limit) unless it already is lower. */
static struct rlimit lowered(int which, rlim_t want) {
  struct rlimit r;
  if (getrlimit(which, &r) != 0) r.rlim_cur = r.rlim_max = RLIM_INFINITY;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < want) want = r.rlim_max;
  if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > want) r.rlim_cur = want;
  return r;
}

/* Moves *fd above 2, close-on-exec, so that no dup2 onto 0..2 in the child has a source
 * that is its own target (a parent started with 0..2 closed), which would leave the target
 * close-on-exec and the solver without it. */
static bool above_stdio(int *fd) {
  if (*fd > 2) return true;
  int moved = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return false;
  close(*fd);
  *fd = moved;
  return true;
}

extern char **environ;

static bool spawn(Child *c, const char *path, const char *const argv[], unsigned ms,
                  const sigset_t *mask, char *reason, size_t len) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
      !above_stdio(&in[0]) || !above_stdio(&out[1]) || !above_stdio(&err[1])) {
    snprintf(reason, len, "cannot create pipes: %s", strerror(errno));
    goto fail;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  int e = posix_spawn_file_actions_init(&fa);
  if (e == 0 && (e = posix_spawnattr_init(&at)) != 0) posix_spawn_file_actions_destroy(&fa);
  if (e != 0) {
    snprintf(reason, len, "cannot start solver: %s", strerror(e));
    goto fail;
  }
  sigset_t dflt;
  sigemptyset(&dflt);
  sigaddset(&dflt, SIGPIPE);
  int fds[3] = {in[0], out[1], err[1]};
  for (int i = 0; e == 0 && i < 3; i++) e = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
  if (e == 0)
    e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                          POSIX_SPAWN_SETSIGDEF);
  if (e == 0) e = posix_spawnattr_setpgroup(&at, 0);   /* a group of its own */
  if (e == 0) e = posix_spawnattr_setsigmask(&at, mask);
  if (e == 0) e = posix_spawnattr_setsigdefault(&at, &dflt);
  pid_t pid = 0;
  if (e == 0) e = posix_spawn(&pid, path, &fa, &at, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (e != 0) {   /* glibc reports a failed exec here, its child already reaped */
    snprintf(reason, len, "cannot execute solver '%s': %s", path, strerror(e));
    goto fail;
  }
  c->pid = pid;
  struct rlimit as = lowered(RLIMIT_AS, AS_LIMIT), nocore = {0, 0};
  prlimit(pid, RLIMIT_AS, &as, NULL);
  if (ms) {
    struct rlimit cpu = lowered(RLIMIT_CPU, ((rlim_t)ms + GRACE_MS) / 1000 + 5);
    prlimit(pid, RLIMIT_CPU, &cpu, NULL);
  }
  prlimit(pid, RLIMIT_CORE, &nocore, NULL);
  close_fd(&in[0]);
  close_fd(&out[1]);
  close_fd(&err[1]);
  c->in = in[1];
  c->out = out[0];
  c->err = err[0];
  fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK);
  return true;
fail:
  for (int i = 0; i < 2; i++) {
    close_fd(&in[i]);
    close_fd(&out[i]);
    close_fd(&err[i]);
  }
  return false;
}

/* Waits up to ms for the child to end by itself, without reaping it (the zombie keeps its
 * process group id from being reused until finish() kills the group). */
static void await_exit(Child *c, int64_t ms) {
  int64_t deadline = ax_clock_ms() + ms;
  while (!c->exited) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
      if (si.si_pid == c->pid) {
        c->exited = true;
        break;
      }
    } else if (errno != EINTR) {
      break;
    }
    if (ax_clock_ms() >= deadline) break;
    /* 2 ms, or until the caller cancels (poll ignores a negative descriptor) */
    if (poll(&(struct pollfd){c->cancel, POLLIN, 0}, 1, 2) > 0) break;
  }
}

/* Closes our pipe ends, kills the child's process group (when cancelled, its whole tree
 * first, as the portfolio kills a racer it no longer needs), reaps the child. Idempotent. */
static void finish(Child *c) {
  close_fd(&c->in);
  close_fd(&c->out);
  close_fd(&c->err);
  if (c->pid <= 0 || c->reaped) return;
  if (c->cancelled) ax_proc_kill_tree(c->pid);
  if (kill(-c->pid, SIGKILL) != 0) kill(c->pid, SIGKILL);
  pid_t r;
  do r = waitpid(c->pid, &c->status, 0);
  while (r < 0 && errno == EINTR);
  c->reaped = true;
  if (r < 0) c->status = -1;   /* reaped by someone else (SIGCHLD ignored): unknown */
}

/* --- Talking --------------------------------------------------------------------------------- */

static void read_out(Child *c) {
  if (c->ocap - c->olen < 4096) {
    c->ocap = c->ocap ? 2 * c->ocap : 16384;
    c->obuf = ax_xrealloc(c->obuf, c->ocap);
    c->obuf[c->olen] = '\0';
  }
  ssize_t n = read(c->out, c->obuf + c->olen, c->ocap - c->olen - 1);
  if (n > 0) {
    c->olen += (size_t)n;
    c->obuf[c->olen] = '\0';
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    c->out_eof = true;
  }
}

static void read_err(Child *c) {
  char sink[4096];
  char *dst = c->elen + 1 < sizeof c->ebuf ? c->ebuf + c->elen : sink;
  size_t room = c->elen + 1 < sizeof c->ebuf ? sizeof c->ebuf - c->elen - 1 : sizeof sink;
  ssize_t n = read(c->err, dst, room);
  if (n > 0 && dst != sink) {
    c->elen += (size_t)n;
    c->ebuf[c->elen] = '\0';
  } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
    close_fd(&c->err);
  }
}

/* Sends msg[0..n) (if any) while collecting output, until the next s-expression of the
 * answer is complete (*out), the output ends, it is not an s-expression, or the deadline
 * (-1: none) passes. Stops early when the answer is complete before msg is all sent: the
 * solver can only answer early by complaining. */
static Talk talk(Child *c, const char *msg, size_t n, int64_t deadline, const AxSexp **out) {
  size_t sent = 0;
  for (;;) {
    switch (ax_smtlib_read(c->a, c->obuf ? c->obuf : "", c->olen, c->out_eof, &c->opos, out)) {
    case AX_SEXP_OK: return TALK_OK;
    case AX_SEXP_BAD: return TALK_BAD;
    case AX_SEXP_MORE: break;
    }
    if (c->out_eof) return TALK_EOF;
    if (c->olen > MAX_OUTPUT) return TALK_BAD;
    struct pollfd p[4];
    nfds_t np = 0;
    p[np++] = (struct pollfd){c->out, POLLIN, 0};
    if (c->err >= 0) p[np++] = (struct pollfd){c->err, POLLIN, 0};
    if (sent < n && c->in >= 0) p[np++] = (struct pollfd){c->in, POLLOUT, 0};
    if (c->cancel >= 0) p[np++] = (struct pollfd){c->cancel, POLLIN, 0};
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - ax_clock_ms();
      if (left <= 0) return TALK_TIMEOUT;
      wait = left > INT_MAX ? INT_MAX : (int)left;
    }
    int r = poll(p, np, wait);
    if (r < 0 && errno != EINTR) {
      c->out_eof = true;   /* cannot wait on it any more: treat as gone */
      continue;
    }
    for (nfds_t i = 0; r > 0 && i < np; i++) {
      if (!p[i].revents) continue;
      if (p[i].fd == c->cancel) {
        c->cancelled = true;
        return TALK_CANCEL;
      } else if (p[i].fd == c->out) {
        read_out(c);
      } else if (p[i].fd == c->err) {
        read_err(c);
      } else {
        ssize_t w = write(c->in, msg + sent, n - sent);
        if (w > 0) sent += (size_t)w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(&c->in); /* EPIPE */
      }
    }
  }
}

/* --- Reasons ------------------------------------------------------------------------------------- */

/* Up to max bytes of s, on one line. */
static void excerpt(char *dst, size_t len, const char *s, size_t max) {
  size_t i = 0;
  while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
  for (; *s && i + 1 < len && i < max; s++) dst[i++] = (*s < 32 && *s >= 0) ? ' ' : *s;
  while (i > 0 && dst[i - 1] == ' ') i--;
  dst[i] = '\0';
}

/* The reason when the output ended (or broke) before an answer: what the child did. */
static void describe_end(Child *c, const char *prefix, size_t from, char *reason, size_t len) {
  char out[96], err[160];
  excerpt(out, sizeof out, c->obuf ? c->obuf + from : "", 80);
  excerpt(err, sizeof err, c->ebuf, 120);
  await_exit(c, EXIT_WAIT_MS);
  bool exited = c->exited;
  finish(c);
  char what[128];
  if (out[0])
    snprintf(what, sizeof what, "unparsable answer: %s", out);
  else if (!exited)
    snprintf(what, sizeof what, "solver closed its output without answering (killed)");
  else if (c->status != -1 && WIFSIGNALED(c->status))
    snprintf(what, sizeof what, "solver crashed (signal %d)", WTERMSIG(c->status));
  else if (c->status != -1 && WIFEXITED(c->status))
    snprintf(what, sizeof what, "solver exited with status %d without answering",
             WEXITSTATUS(c->status));
  else
    snprintf(what, sizeof what, "solver ended without answering");
  snprintf(reason, len, "%s%s%s%s", prefix, what, err[0] ? "; stderr: " : "", err);
}

/* What an answer other than sat/unsat/unknown means. */
static void describe_odd(Child *c, const AxSexp *e, const char *prefix, size_t from,
                         char *reason, size_t len) {
  char msg[160];
  if (e && e->kind == AX_SEXP_LIST && e->n >= 1 && ax_smtlib_is_atom(e->items[0], "error")) {
    excerpt(msg, sizeof msg,
            e->n >= 2 && e->items[1]->kind != AX_SEXP_LIST ? e->items[1]->text : "", 150);
    snprintf(reason, len, "%ssolver error: %s", prefix, msg);
    return;
  }
  excerpt(msg, sizeof msg, c->obuf ? c->obuf + from : "", 80);
  snprintf(reason, len, "%sunparsable answer: %s", prefix, msg);
}

static bool mentions_timeout(const char *s) {
  static const char *const words[] = {"timeout", "time out", "canceled", "cancelled",
                                      "interrupted", "resourceout", "resource"};
  char low[128];
  size_t i = 0;
  for (; s[i] && i + 1 < sizeof low; i++)
    low[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
  low[i] = '\0';
  for (size_t k = 0; k < AX_COUNTOF(words); k++)
    if (strstr(low, words[k])) return true;
  return false;
}

/* --- The back-end ---------------------------------------------------------------------------- */

/* Fills m from a get-value answer ((t1 v1) (t2 v2) ...); false if malformed. */
static bool read_values(const AxSexp *e, AxModel *m) {
  size_t n = ax_model_size(m);
  if (e->kind != AX_SEXP_LIST || e->n != n) return false;
  for (size_t i = 0; i < n; i++)
    if (e->items[i]->kind != AX_SEXP_LIST || e->items[i]->n != 2) return false;
  mpq_t q;
  mpq_init(q);
  for (size_t i = 0; i < n; i++) {
    const AxSexp *v = e->items[i]->items[1];
    AxSort sort = ax_model_sort(m, i);
    bool b;
    /* A value we cannot read exactly (root-obj, a solver's own term) stays missing. */
    uint32_t bits;
    if (sort == AX_SORT_BOOL) {
      if (ax_smtlib_bool(v, &b)) ax_model_set_bool(m, i, b);
    } else if (ax_term_sort_is_fp(sort)) {
      if (ax_smtlib_fp_bits(v, sort, &bits)) {
        mpq_set_ui(q, bits, 1);
        ax_model_set_rational(m, i, q);
      }
    } else if (ax_smtlib_rational(v, q)) {
      ax_model_set_rational(m, i, q);
    }
  }
  mpq_clear(q);
  return true;
}

/* Renders into a malloc'd buffer; false if memory streams fail. */
static bool render(const AxSmtlibQuery *q, bool get_value, char **buf, size_t *len) {
  FILE *f = open_memstream(buf, len);
  if (!f) return false;
  if (get_value)
    ax_smtlib_write_get_value(f, q);
  else
    ax_smtlib_write_query(f, q, NULL);
  return fclose(f) == 0;
}

/* The reason of an answer the caller no longer wanted: it reads it nowhere, but says so. */
static AxSmtResult cancelled(char *reason, size_t len) {
  snprintf(reason, len, "cancelled: the answer was no longer wanted (killed)");
  return AX_SMT_UNKNOWN;
}

static AxSmtResult converse(Child *c, AxPipeJob *j, AxModel **model_out, char *reason,
                            size_t len) {
  char limit[32];
  ax_solver_fmt_ms(limit, sizeof limit, j->timeout_ms);
  int64_t start = ax_clock_ms();
  int64_t deadline = j->timeout_ms ? start + j->timeout_ms + GRACE_MS : -1;
  const AxSexp *ans;
  size_t from = c->opos;
  switch (talk(c, j->query, j->nquery, deadline, &ans)) {
  case TALK_OK: break;
  case TALK_TIMEOUT:
    snprintf(reason, len, "timeout after %s (solver did not answer; killed)", limit);
    return AX_SMT_UNKNOWN;
  case TALK_EOF: describe_end(c, "", from, reason, len); return AX_SMT_UNKNOWN;
  case TALK_BAD: describe_odd(c, NULL, "", from, reason, len); return AX_SMT_UNKNOWN;
  case TALK_CANCEL: return cancelled(reason, len);
  }

  if (ax_smtlib_is_atom(ans, "unsat")) return AX_SMT_UNSAT;
  int64_t followup = j->timeout_ms ? ax_clock_ms() + FOLLOWUP_MS : -1;
  if (ax_smtlib_is_atom(ans, "sat")) {
    if (!model_out || !j->model || j->ngetval == 0) return AX_SMT_SAT;
    const char *prefix = "sat, but get-value failed: ";
    from = c->opos;
    switch (talk(c, j->getval, j->ngetval, followup, &ans)) {
    case TALK_OK: break;
    case TALK_TIMEOUT:
      snprintf(reason, len, "%stimeout (killed)", prefix);
      return AX_SMT_UNKNOWN;
    case TALK_EOF: describe_end(c, prefix, from, reason, len); return AX_SMT_UNKNOWN;
    case TALK_BAD: describe_odd(c, NULL, prefix, from, reason, len); return AX_SMT_UNKNOWN;
    case TALK_CANCEL: return cancelled(reason, len);
    }
    if (!read_values(ans, j->model)) {
      describe_odd(c, ans, prefix, from, reason, len);
      return AX_SMT_UNKNOWN;
    }
    *model_out = j->model;
    j->model = NULL;
    return AX_SMT_SAT;
  }
  if (ax_smtlib_is_atom(ans, "unknown")) {
    static const char ask[] = "(get-info :reason-unknown)\n";
    const char *why = "";
    /* z3: (:reason-unknown "canceled"); cvc5: (:reason-unknown timeout). */
    if (talk(c, ask, sizeof ask - 1, followup, &ans) == TALK_OK && ans->kind == AX_SEXP_LIST &&
        ans->n == 2 && ax_smtlib_is_atom(ans->items[0], ":reason-unknown") &&
        ans->items[1]->kind != AX_SEXP_LIST)
      why = ans->items[1]->text;
    char w[128];
    excerpt(w, sizeof w, why, 100);
    if (j->timeout_ms && mentions_timeout(w))
      snprintf(reason, len, "timeout after %s (solver: %s)", limit, w);
    else
      snprintf(reason, len, "solver said unknown (%s)", w[0] ? w : "no reason given");
    return AX_SMT_UNKNOWN;
  }
  if (ax_smtlib_is_atom(ans, "timeout")) {   /* z3's answer at its -T limit */
    snprintf(reason, len, "timeout after %s (solver's hard limit)", limit);
    return AX_SMT_UNKNOWN;
  }
  describe_odd(c, ans, "", from, reason, len);
  return AX_SMT_UNKNOWN;
}

AxPipeJob *ax_pipe_prepare(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                           const AxTerm *const *watch, size_t nwatch, bool want_model,
                           char *reason, size_t reason_len) {
  AxPipeJob *j = ax_xcalloc(1, sizeof *j);
  if (!resolve(o->binary, j->path, sizeof j->path)) {
    snprintf(reason, reason_len, "solver binary '%s' not found in PATH", o->binary);
    free(j);
    return NULL;
  }
  j->timeout_ms = o->timeout_ms;
  AxSmtlibQuery *q = ax_smtlib_query_new(tc, formula, watch, nwatch);
  bool ok = render(q, false, &j->query, &j->nquery) && render(q, true, &j->getval, &j->ngetval);
  ax_smtlib_query_free(q);
  if (!ok) {
    snprintf(reason, reason_len, "cannot render the query: %s", strerror(errno));
    ax_pipe_job_free(j);
    return NULL;
  }
  if (want_model) j->model = ax_model_new(watch, nwatch);
  pthread_sigmask(SIG_BLOCK, NULL, &j->mask);
  return j;
}

void ax_pipe_job_free(AxPipeJob *j) {
  if (!j) return;
  free(j->query);
  free(j->getval);
  ax_model_free(j->model);
  free(j);
}

AxSmtResult ax_pipe_run(AxPipeJob *j, int cancel_fd, AxModel **model_out, char *reason,
                        size_t reason_len) {
  Child c = {.in = -1, .out = -1, .err = -1, .a = ax_arena_new(), .cancel = cancel_fd};
  const char *argv[8];
  arguments(c.a, j->path, j->timeout_ms, argv);

  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE);

  AxSmtResult r = AX_SMT_UNKNOWN;
  if (spawn(&c, j->path, argv, j->timeout_ms, &j->mask, reason, reason_len))
    r = converse(&c, j, model_out, reason, reason_len);
  finish(&c);

  /* Swallow the SIGPIPE our writes raised (it is pending while blocked). */
  sigpending(&pending);
  if (!was_pending && sigismember(&pending, SIGPIPE))
    sigtimedwait(&pipe_only, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);

  free(c.obuf);
  ax_arena_free(c.a);
  return r;
}

AxSmtResult ax_pipe_check(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                          const AxTerm *const *watch, size_t nwatch, AxModel **model_out,
                          char *reason, size_t reason_len) {
  AxPipeJob *j = ax_pipe_prepare(o, tc, formula, watch, nwatch, model_out != NULL, reason,
                                 reason_len);
  if (!j) return AX_SMT_UNKNOWN;
  AxSmtResult r = ax_pipe_run(j, -1, model_out, reason, reason_len);
  ax_pipe_job_free(j);
  return r;
}
