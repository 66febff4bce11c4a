/* jobs.c — the worker pool; see jobs.h.
 *
 * Protocol, over two pipes per worker. Down: a task number (uint64). Up: a length
 * (uint64), then that many bytes, the first of which says what the rest is: 'R' a result,
 * 'F' the reason there is none, 'L' the same and the worker's last word (it leaves, and is
 * replaced). Any other byte stream is garbage, and ends the worker.
 *
 * A worker's death by a signal is told by name, with what the worker saw as it died: a
 * worker catches the fatal signals (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) on a stack of
 * its own and, before it dies of them, writes into a page it shares with the caller (Last,
 * mapped before the fork) the signal, errno and the address space it had. Only an abort
 * after a failed allocation (errno ENOMEM: what malloc, GMP's allocator and operator new
 * give under RLIMIT_AS) is blamed on the memory limit; a SIGKILL the pool did not send came
 * from outside (the kernel's out-of-memory killer, a user).
 *
 * The caller blocks SIGPIPE while the pool runs (a worker can die at any moment, and a
 * task number written to its pipe then raises it), consumes the one its writes raised and
 * restores its mask; workers get the caller's mask back. */
#define _GNU_SOURCE   /* pipe2, prctl */

#include "run/jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/proc.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
int __lsan_do_recoverable_leak_check(void);
#endif

#define TICK_MS 100
#define EXIT_WAIT_MS 2000          /* for an idle worker to leave after its last task */
#define MAX_MESSAGE ((uint64_t)1 << 30)

/* What a worker saw when a fatal signal struck it (written by its handler, read by the
 * caller once the worker is gone). */
typedef struct Last {
  volatile sig_atomic_t sig;   /* the signal caught; 0: none */
  pid_t pid;                   /* who caught it: the worker, or a child it forked (the z3
                                  helper inherits the page and the handlers) */
  int err;                     /* errno as it struck */
  long vm_mb;                  /* the address space in use then, MB; -1: unknown */
} Last;

typedef struct Worker {
  pid_t pid;           /* 0: no worker in this slot */
  Last *last;          /* shared with the worker (mmap); NULL when it could not be mapped */
  int to, from;        /* our ends of its pipes */
  long task;           /* the task it runs, -1 when idle */
  int64_t started;     /* when that task was handed out */
  char *buf;           /* the message being received */
  size_t len, cap;
} Worker;

typedef struct Pool {
  const AxJobsOpts *o;
  AxJobsRun *run;
  AxJobsDone *done;
  void *ctx;
  Worker *w;
  int nw;
  sigset_t mask;       /* the caller's signal mask, for workers */
} Pool;

int ax_jobs_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* --- In a worker ---------------------------------------------------------------------- */

static bool send_message(int fd, char kind, const char *data, size_t len) {
  uint64_t n = (uint64_t)len + 1;
  return ax_proc_write_full(fd, &n, sizeof n) && ax_proc_write_full(fd, &kind, 1) &&
         ax_proc_write_full(fd, data, len);
}

/* Serves tasks until the pool closes the pipe. Never returns. */
static void serve(Pool *p, int in, int out) {
  for (;;) {
    uint64_t i;
    if (!ax_proc_read_full(in, &i, sizeof i)) break;
    size_t len = 0;
    char *data = p->run(p->ctx, (size_t)i, &len);
    bool ok;
#ifdef SANITIZED
    /* A leak in a worker would go unseen (it leaves by _exit): make it the task's failure,
     * and leave, since every later check would report the same leak again. */
    if (__lsan_do_recoverable_leak_check()) {
      static const char leak[] = "worker leaked memory (see the sanitizer's report)";
      send_message(out, 'L', leak, sizeof leak - 1);
      ok = false;
    } else
#endif
    if (data) {
      ok = send_message(out, 'R', data, len);
    } else {
      static const char none[] = "worker returned no result";
      ok = send_message(out, 'F', none, sizeof none - 1);
    }
    free(data);
    if (!ok) break;
  }
  _exit(0);
}

#ifndef SANITIZED   /* the handler's pieces: a sanitized worker leaves the signals to ASan */
/* In a worker: where its fatal-signal handler writes (the Worker's `last`), and the page
 * size in KiB, read before any signal can strike (sysconf is not async-signal-safe). */
static Last *last_word;
static long page_kb;

/* In a worker, async-signal-safe (open, read, close, arithmetic): the address space in
 * use in MB, the first field of /proc/self/statm (in pages); -1 when it cannot be read. */
static long vm_mb(void) {
  char buf[64];
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0 || buf[0] < '0' || buf[0] > '9') return -1;
  long pages = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
    pages = pages * 10 + (buf[i] - '0');
  return pages * page_kb / 1024;
}

/* In a worker: a fatal signal. What it saw goes to the caller, then the signal's default
 * action ends the worker as the signal would have (SA_RESETHAND, SA_NODEFER). */
static void fatal(int sig) {
  int err = errno;
  last_word->err = err;
  last_word->pid = getpid();
  last_word->vm_mb = vm_mb();
  last_word->sig = sig;
  raise(sig);
}

/* In a worker: catches the fatal signals on an alternate stack (a stack overflow is a
 * SIGSEGV with no stack left to run a handler on). Without the stack, nothing is caught. */
static void catch_fatal(Last *last) {
  enum { STACK = 64 << 10 };
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
  if (!last) return;
  void *st = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  stack_t ss = {.ss_sp = st, .ss_size = STACK};
  if (st == MAP_FAILED || sigaltstack(&ss, NULL) != 0) return;
  last_word = last;
  page_kb = sysconf(_SC_PAGESIZE) / 1024;
  struct sigaction sa = {.sa_handler = fatal, .sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK};
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < AX_COUNTOF(sigs); i++) sigaction(sigs[i], &sa, NULL);
}
#endif

/* In a worker: the pipe up, and the memory limit, for its out-of-memory handler. */
static int oom_fd = -1;
static unsigned oom_limit_mb;

/* In a worker: allocation failed. The task fails with the reason, and the worker leaves
 * (its heap cannot be trusted any more); no allocation on this path. */
_Noreturn static void worker_oom(size_t bytes) {
  char msg[192];
  int n;
  if (oom_limit_mb)
    n = snprintf(msg, sizeof msg, "out of memory (%zu bytes more were needed; the memory limit is %u MB)",
                 bytes, oom_limit_mb);
  else
    n = snprintf(msg, sizeof msg, "out of memory (%zu bytes more were needed)", bytes);
  if (n > 0) send_message(oom_fd, 'L', msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  _exit(0);
}

static bool spawn(Pool *p, Worker *w, char *why, size_t len) {
  int down[2] = {-1, -1}, up[2] = {-1, -1};
  if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
    snprintf(why, len, "cannot start a worker: pipe: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
      close_fd(&down[i]);
      close_fd(&up[i]);
    }
    return false;
  }
  Last *last = mmap(NULL, sizeof *last, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                    0);
  if (last == MAP_FAILED) last = NULL;   /* its death is then told without what it saw */
  pid_t parent = getpid();
  fflush(NULL);   /* nothing buffered may be written twice */
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, len, "cannot start a worker: fork: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
      close_fd(&down[i]);
      close_fd(&up[i]);
    }
    if (last) munmap(last, sizeof *last);
    return false;
  }
  if (pid == 0) {
    /* a worker does not outlive the pool's process (killed, or interrupted at a terminal) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    for (int k = 0; k < p->nw; k++)
      if (&p->w[k] != w && p->w[k].pid) {
        close_fd(&p->w[k].to);
        close_fd(&p->w[k].from);
      }
    close_fd(&down[1]);
    close_fd(&up[0]);
#ifndef SANITIZED   /* the sanitizer catches these signals itself, and reports them */
    catch_fatal(last);
    if (p->o->memory_mb) {
      rlim_t bytes = (rlim_t)p->o->memory_mb << 20;
      struct rlimit r;
      if (getrlimit(RLIMIT_AS, &r) == 0 && (r.rlim_max == RLIM_INFINITY || r.rlim_max > bytes)) {
        r.rlim_cur = bytes;
        setrlimit(RLIMIT_AS, &r);
      }
    }
#endif
    pthread_sigmask(SIG_SETMASK, &p->mask, NULL);
    oom_fd = up[1];
    oom_limit_mb = p->o->memory_mb;
    ax_set_oom_handler(worker_oom);
    serve(p, down[0], up[1]);
  }
  close_fd(&down[0]);
  close_fd(&up[1]);
  *w = (Worker){.pid = pid, .last = last, .to = down[1], .from = up[0], .task = -1};
  fcntl(w->from, F_SETFL, fcntl(w->from, F_GETFL) | O_NONBLOCK);
  return true;
}

/* The memory shared with worker w unmapped, the slot emptied. */
static void clear(Worker *w) {
  if (w->last) munmap(w->last, sizeof *w->last);
  free(w->buf);
  *w = (Worker){.to = -1, .from = -1, .task = -1};
}

/* What worker pid, killed by signal sig (not by the pool), died of, after "worker killed
 * by SIGxxx (signal N)": what the signal means and, when the worker's own handler caught it
 * (l->sig == sig, l->pid == pid), what it saw. The memory limit is named as the cause only
 * for an allocation that had failed (errno ENOMEM): a crash at any size is a crash. */
static void signal_reason(char *buf, size_t len, int sig, pid_t pid, const Last *l,
                          unsigned limit_mb) {
  size_t n = strlen(buf);
  bool seen = l && l->sig == sig && l->pid == pid;
  const char *what;
  if (seen && l->err == ENOMEM)
    what = limit_mb ? " after an allocation failed (ENOMEM): memory limit exceeded"
                    : " after an allocation failed (ENOMEM): out of memory";
  else if (sig == SIGABRT)
    what = ": an abort, a failed assertion or a library's fatal error (its message is on "
           "standard error)";
  else if (sig == SIGSEGV) what = ": an invalid memory access or a stack overflow";
  else if (sig == SIGBUS) what = ": a bus error (a mapped file cut short, or a misaligned access)";
  else if (sig == SIGFPE) what = ": an arithmetic fault (an integer division by zero)";
  else if (sig == SIGILL) what = ": an illegal instruction";
  else if (sig == SIGKILL)
    what = ", not sent by axle: the kernel's out-of-memory killer sends it, or another process did";
  else what = ", not sent by axle: another process did";
  if (n < len) n += (size_t)snprintf(buf + n, len - n, "%s", what);
  if (seen && l->vm_mb >= 0 && n < len) {
    if (limit_mb)
      snprintf(buf + n, len - n, "; %ld MB of address space in use, the memory limit is %u MB",
               l->vm_mb, limit_mb);
    else
      snprintf(buf + n, len - n, "; %ld MB of address space in use, no memory limit", l->vm_mb);
  }
}

/* Ends worker w (which has failed, or must be stopped), and fails its task with the
 * reason: what `how` says (the pool ended it), else how it ended by itself. */
static void bury(Pool *p, Worker *w, const char *how) {
  char reason[512], end[64];
  close_fd(&w->to);
  close_fd(&w->from);
  ax_proc_kill_tree(w->pid);   /* its solvers too; a no-op on a worker already gone */
  int status = ax_proc_reap(w->pid);
  if (how) {
    snprintf(reason, sizeof reason, "worker %s", how);
  } else {
    snprintf(reason, sizeof reason, "worker %s", ax_proc_describe(status, end, sizeof end));
    if (status != -1 && WIFSIGNALED(status))
      signal_reason(reason, sizeof reason, WTERMSIG(status), w->pid, w->last, p->o->memory_mb);
  }
  long task = w->task;
  double ms = (double)(ax_clock_ms() - w->started);
  clear(w);
  if (task >= 0) p->done(p->ctx, (size_t)task, NULL, 0, reason, ms);
}

/* Reaps worker w, which has said its last word (no task of its own is left). */
static void retire(Worker *w) {
  close_fd(&w->to);
  close_fd(&w->from);
  ax_proc_kill_tree(w->pid);
  ax_proc_reap(w->pid);
  clear(w);
}

/* What receive found. */
typedef enum { HEARD, GONE, GARBAGE } Heard;

/* Reads what worker w sent; delivers a complete message. GONE if the worker is gone (its
 * pipe ended: it died), GARBAGE if it talks garbage (alive: the caller ends it). */
static Heard receive(Pool *p, Worker *w) {
  if (w->cap - w->len < 4096) {
    w->cap = w->cap ? 2 * w->cap : 16384;
    w->buf = ax_xrealloc(w->buf, w->cap);
  }
  ssize_t n = read(w->from, w->buf + w->len, w->cap - w->len - 1);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return HEARD;
  if (n <= 0) return GONE;
  w->len += (size_t)n;
  if (w->len < sizeof(uint64_t)) return HEARD;
  uint64_t size;
  memcpy(&size, w->buf, sizeof size);
  if (size == 0 || size > MAX_MESSAGE || w->task < 0) return GARBAGE;
  if (w->len < sizeof size + size) return HEARD;
  if (w->len > sizeof size + size) return GARBAGE;   /* more than one answer to one task */
  char kind = w->buf[sizeof size];
  if (kind != 'R' && kind != 'F' && kind != 'L') return GARBAGE;
  w->buf[w->len] = '\0';
  const char *body = w->buf + sizeof size + 1;
  size_t len = (size_t)size - 1;
  long task = w->task;
  double ms = (double)(ax_clock_ms() - w->started);
  w->task = -1;
  w->len = 0;
  if (kind == 'R') p->done(p->ctx, (size_t)task, body, len, NULL, ms);
  else p->done(p->ctx, (size_t)task, NULL, 0, body, ms);
  if (kind == 'L') retire(w);
  return HEARD;
}

static void fmt_limit(char *buf, size_t len, unsigned ms) {
  if (ms % 1000 == 0) snprintf(buf, len, "exceeded %u s", ms / 1000);
  else snprintf(buf, len, "exceeded %u ms", ms);
}

void ax_jobs_run(const AxJobsOpts *o, size_t n, AxJobsRun *run, AxJobsDone *done,
                 AxJobsTick *tick, void *ctx) {
  if (n == 0) return;
  Pool p = {.o = o, .run = run, .done = done, .ctx = ctx};
  p.nw = o->jobs < 1 ? 1 : (size_t)o->jobs > n ? (int)n : o->jobs;
  p.w = ax_xcalloc((size_t)p.nw, sizeof *p.w);
  for (int k = 0; k < p.nw; k++) p.w[k] = (Worker){.to = -1, .from = -1, .task = -1};

  sigset_t pipe_only, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &p.mask);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE);

  size_t next = 0, ndone = 0;
  int64_t last_tick = ax_clock_ms();
  struct pollfd *fds = ax_xcalloc((size_t)p.nw, sizeof *fds);
  int *who = ax_xcalloc((size_t)p.nw, sizeof *who);
  /* Every task handed out is done exactly once: by receive (a message) or by bury (the
   * worker failed); ndone counts both. */
  while (ndone < n) {
    /* start (or restart) workers while there are tasks for them; hand tasks out */
    int live = 0;
    char why[256] = "";
    for (int k = 0; k < p.nw; k++) {
      Worker *w = &p.w[k];
      if (!w->pid && next < n && !spawn(&p, w, why, sizeof why)) continue;
      if (w->pid && w->task < 0 && next < n) {
        uint64_t i = next;
        w->task = (long)next++;
        w->started = ax_clock_ms();
        if (!ax_proc_write_full(w->to, &i, sizeof i)) {   /* it died while idle */
          bury(&p, w, NULL);
          ndone++;
          continue;
        }
      }
      live += w->pid != 0;
    }
    if (live == 0 && next < n) {   /* no worker can be started: the next task cannot run */
      done(ctx, next++, NULL, 0, why[0] ? why : "cannot start a worker", 0);
      ndone++;
      continue;
    }
    if (ndone == n) break;

    int64_t now = ax_clock_ms(), wait = TICK_MS;
    nfds_t nfds = 0;
    for (int k = 0; k < p.nw; k++) {
      Worker *w = &p.w[k];
      if (!w->pid || w->task < 0) continue;
      if (o->task_limit_ms) {
        int64_t left = w->started + o->task_limit_ms - now;
        if (left < wait) wait = left < 0 ? 0 : left;
      }
      fds[nfds] = (struct pollfd){w->from, POLLIN, 0};
      who[nfds++] = k;
    }
    if (nfds == 0) continue;
    int r = poll(fds, nfds, (int)wait);
    if (r < 0 && errno != EINTR) r = 0;
    for (nfds_t i = 0; r > 0 && i < nfds; i++) {
      Worker *w = &p.w[who[i]];
      if (!fds[i].revents) continue;
      bool busy = w->task >= 0;
      Heard h = receive(&p, w);
      if (h != HEARD) {
        bury(&p, w, h == GARBAGE ? "sent an unreadable message (ended by axle)" : NULL);
        ndone += busy;
      } else if (busy && w->task < 0) {
        ndone++;
      }
    }
    now = ax_clock_ms();
    for (int k = 0; o->task_limit_ms && k < p.nw; k++) {
      Worker *w = &p.w[k];
      if (w->pid && w->task >= 0 && now - w->started >= o->task_limit_ms) {
        char how[64];
        fmt_limit(how, sizeof how, o->task_limit_ms);
        bury(&p, w, how);
        ndone++;
      }
    }
    if (tick && now - last_tick >= TICK_MS) {
      tick(ctx);
      last_tick = now;
    }
  }

  /* no more tasks: each worker leaves when its pipe closes */
  for (int k = 0; k < p.nw; k++) close_fd(&p.w[k].to);
  int64_t deadline = ax_clock_ms() + EXIT_WAIT_MS;
  for (int k = 0; k < p.nw; k++) {
    Worker *w = &p.w[k];
    if (!w->pid) continue;
    while (waitpid(w->pid, NULL, WNOHANG) == 0) {
      if (ax_clock_ms() >= deadline) {
        ax_proc_kill_tree(w->pid);
        ax_proc_reap(w->pid);
        break;
      }
      nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    }
    close_fd(&w->from);
    clear(w);
  }
  free(fds);
  free(who);
  free(p.w);

  sigpending(&pending);
  if (!was_pending && sigismember(&pending, SIGPIPE))
    sigtimedwait(&pipe_only, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &p.mask, NULL);
}
