/* check_jobs.c — the worker pool (run/jobs.h) and process trees (base/proc.h):
 * every task is done exactly once with its own result, whatever the other tasks do; a
 * task whose worker crashes, exits, overruns its time or its memory fails alone with the
 * reason, the pool goes on with fresh workers, and nothing the worker started survives. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/jobs.h"
#include "base/proc.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

enum { MAXTASKS = 64 };

/* What the tasks do, by number; and what came back. */
typedef enum {
  OK, CRASH, SEGV, EXIT3, HANG, HANG_WITH_CHILD, GREEDY, NONE, SLOW, LEAK, ABORT, ENOMEM_ABORT,
  CHILD_ABORTS
} Act;

typedef struct Ctx {
  Act act[MAXTASKS];
  int calls[MAXTASKS];            /* done() per task */
  char *data[MAXTASKS];           /* results, owned */
  char failure[MAXTASKS][256];
  int order[MAXTASKS], ndone;     /* completion order */
  double ms[MAXTASKS];             /* the times done() was given */
  int ticks;
  int child_pipe[2];              /* HANG_WITH_CHILD reports its child's pid here */
} Ctx;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The process is gone, or a zombie left to init. */
static bool gone(pid_t pid) {
  char path[64], buf[256] = "";
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return true;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  const char *paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] == 'Z';
}

static char *run(void *vctx, size_t i, size_t *len) {
  Ctx *c = vctx;
  switch (c->act[i]) {
  case CRASH: raise(SIGKILL); break;
  case SEGV: raise(SIGSEGV); break;
  case EXIT3: _exit(3);
  case HANG:
    for (;;) pause();
  case HANG_WITH_CHILD: {
    /* like a solver: a child leading its own process group, that would outlive us */
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    ssize_t w = write(c->child_pipe[1], &pid, sizeof pid);
    (void)w;
    for (;;) pause();
  }
  case GREEDY: {
    char *p = ax_xmalloc((size_t)1 << 30);   /* over the limit: the worker's task fails */
    memset(p, 1, (size_t)1 << 30);
    free(p);
    break;
  }
  case NONE: return NULL;
  case LEAK:
    for (int k = 0; k < 100; k++) {
      char *volatile lost = malloc(64);
      lost[0] = (char)k;
    }
    break;
  case SLOW: nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL); break;
  case ABORT: abort();
  case ENOMEM_ABORT: {   /* as GMP's allocator does: malloc fails, then abort */
    char *volatile p = malloc((size_t)1 << 30);
    if (!p) abort();
    free(p);
    break;
  }
  case CHILD_ABORTS: {
    /* a child of the worker (as the z3 helper is) dies of SIGABRT after a failed
     * allocation, and its handler writes to the page it shares with the worker; then the
     * worker dies of SIGABRT without its handler: the child's words are not the worker's */
    pid_t pid = fork();
    if (pid == 0) {
      errno = ENOMEM;
      abort();
    }
    waitpid(pid, NULL, 0);
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
    break;
  }
  case OK: break;
  }
  char buf[64];
  int n = snprintf(buf, sizeof buf, "result of %zu", i);
  *len = (size_t)n;
  return strdup(buf);
}

static void done(void *vctx, size_t i, const char *data, size_t len, const char *failure,
                 double ms) {
  Ctx *c = vctx;
  ck_assert(ms >= 0);
  c->ms[i] = ms;
  ck_assert_uint_lt(i, MAXTASKS);
  c->calls[i]++;
  c->order[c->ndone++] = (int)i;
  if (data) {
    ck_assert_uint_eq(strlen(data), len);
    c->data[i] = strdup(data);
  } else {
    ck_assert_ptr_nonnull(failure);
    snprintf(c->failure[i], sizeof c->failure[i], "%s", failure);
  }
}

static void tick(void *vctx) { ((Ctx *)vctx)->ticks++; }

static void expect_ok(Ctx *c, size_t i) {
  char want[64];
  snprintf(want, sizeof want, "result of %zu", i);
  ck_assert_msg(c->data[i] != NULL, "task %zu failed: %s", i, c->failure[i]);
  ck_assert_str_eq(c->data[i], want);
}

static void expect_failure(Ctx *c, size_t i, const char *reason) {
  ck_assert_msg(c->data[i] == NULL, "task %zu should have failed", i);
  ck_assert_str_eq(c->failure[i], reason);
}

/* The failure's reason starts with head and ends with tail (what lies between, the
 * address space in use, is the machine's). */
static void expect_failure_around(Ctx *c, size_t i, const char *head, const char *tail) {
  ck_assert_msg(c->data[i] == NULL, "task %zu should have failed", i);
  size_t n = strlen(c->failure[i]), h = strlen(head), t = strlen(tail);
  ck_assert_msg(n >= h + t && strncmp(c->failure[i], head, h) == 0 &&
                strcmp(c->failure[i] + n - t, tail) == 0,
                "task %zu: reason '%s', wanted '%s...%s'", i, c->failure[i], head, tail);
}

#define KILLED_OUTSIDE                                                                      \
  "worker killed by SIGKILL (signal 9), not sent by axle: the kernel's out-of-memory killer " \
  "sends it, or another process did"

static void run_pool(Ctx *c, size_t n, int jobs, unsigned limit_ms, unsigned mem) {
  AxJobsOpts o = {.jobs = jobs, .task_limit_ms = limit_ms, .memory_mb = mem};
  ax_jobs_run(&o, n, run, done, tick, c);
  ck_assert_int_eq(c->ndone, (int)n);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(c->calls[i], 1);
  /* every worker was reaped: this process has no child left */
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}

static void free_ctx(Ctx *c) {
  for (int i = 0; i < MAXTASKS; i++) free(c->data[i]);
}

START_TEST(test_all_results) {
  static Ctx c;
  memset(&c, 0, sizeof c);
  run_pool(&c, 40, 3, 0, 0);
  for (size_t i = 0; i < 40; i++) expect_ok(&c, i);
  free_ctx(&c);
}
END_TEST

START_TEST(test_one_worker_many_tasks) {
  static Ctx c;
  memset(&c, 0, sizeof c);
  c.act[0] = SLOW;
  run_pool(&c, 5, 1, 0, 0);
  /* one worker: tasks finish in the order they were handed out */
  for (int i = 0; i < 5; i++) ck_assert_int_eq(c.order[i], i);
  ck_assert_int_gt(c.ticks, 0);
  free_ctx(&c);
}
END_TEST

START_TEST(test_failures_stay_local) {
  static Ctx c;
  memset(&c, 0, sizeof c);
  c.act[1] = CRASH;
  c.act[4] = SEGV;
  c.act[5] = EXIT3;
  c.act[7] = NONE;
  c.act[8] = CRASH;
  c.act[9] = CRASH;   /* two in a row on a fresh worker each */
  run_pool(&c, 12, 2, 0, 0);
  expect_failure(&c, 1, KILLED_OUTSIDE);
#ifdef SANITIZED
  expect_failure(&c, 4, "worker exited with status 1");   /* the sanitizer catches SIGSEGV */
#else
  expect_failure_around(&c, 4, "worker killed by SIGSEGV (signal 11): an invalid memory access "
                        "or a stack overflow; ", " MB of address space in use, no memory limit");
#endif
  expect_failure(&c, 5, "worker exited with status 3");
  expect_failure(&c, 7, "worker returned no result");
  expect_failure(&c, 8, KILLED_OUTSIDE);
  expect_failure(&c, 9, KILLED_OUTSIDE);
  for (size_t i = 0; i < 12; i++)
    if (i != 1 && i != 4 && i != 5 && i != 7 && i != 8 && i != 9) expect_ok(&c, i);
  free_ctx(&c);
}
END_TEST

START_TEST(test_hang_is_killed_with_its_children) {
  static Ctx c;
  memset(&c, 0, sizeof c);
  ck_assert_int_eq(pipe(c.child_pipe), 0);
  c.act[0] = HANG;
  c.act[2] = HANG_WITH_CHILD;
  double t0 = now_s();
  run_pool(&c, 6, 2, 700, 0);
  double dt = now_s() - t0;
  expect_failure(&c, 0, "worker exceeded 700 ms");
  ck_assert_msg(c.ms[0] >= 700 && c.ms[0] < 3000, "a hung task's time: %.0f ms", c.ms[0]);
  expect_failure(&c, 2, "worker exceeded 700 ms");
  for (size_t i = 0; i < 6; i++)
    if (i != 0 && i != 2) expect_ok(&c, i);
  ck_assert_msg(dt < 5.0, "the pool took %.1f s", dt);
  /* the grandchild in its own process group is gone too (or a zombie left to init) */
  pid_t child;
  ck_assert_int_eq(read(c.child_pipe[0], &child, sizeof child), (ssize_t)sizeof child);
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  ck_assert_msg(gone(child), "the worker's child %d survived", (int)child);
  close(c.child_pipe[0]);
  close(c.child_pipe[1]);
  free_ctx(&c);
}
END_TEST

START_TEST(test_memory_limit) {
#ifdef SANITIZED
  return;   /* no address-space limit under the sanitizer (jobs.h) */
#endif
  static Ctx c;
  memset(&c, 0, sizeof c);
  c.act[1] = GREEDY;
  run_pool(&c, 3, 1, 0, 512);
  /* allocation failure is the task's failure, with the reason, never an abort (docs/cli.md, "Faults and limits") */
  expect_failure(&c, 1, "out of memory (1073741824 bytes more were needed; the memory limit is 512 MB)");
  expect_ok(&c, 0);
  expect_ok(&c, 2);
  free_ctx(&c);
}
END_TEST

START_TEST(test_signals_named) {
#ifdef SANITIZED
  return;   /* the sanitizer catches the signals itself, and no memory limit is applied */
#endif
  static Ctx c;
  memset(&c, 0, sizeof c);
  c.act[0] = ABORT;
  c.act[1] = ENOMEM_ABORT;
  c.act[2] = CHILD_ABORTS;
  run_pool(&c, 4, 1, 0, 512);
  /* an abort is an abort, whatever the limit; the limit is named as the cause only when an
   * allocation had failed; a signal its child caught is not the worker's */
  expect_failure_around(&c, 0, "worker killed by SIGABRT (signal 6): an abort, a failed "
                        "assertion or a library's fatal error (its message is on standard "
                        "error); ", " MB of address space in use, the memory limit is 512 MB");
  expect_failure_around(&c, 1, "worker killed by SIGABRT (signal 6) after an allocation failed "
                        "(ENOMEM): memory limit exceeded; ",
                        " MB of address space in use, the memory limit is 512 MB");
  expect_failure(&c, 2, "worker killed by SIGABRT (signal 6): an abort, a failed assertion or a "
                 "library's fatal error (its message is on standard error)");
  expect_ok(&c, 3);
  free_ctx(&c);
}
END_TEST

START_TEST(test_leak_in_worker) {
  /* in a sanitizer build a worker's leak fails its task (a worker leaves by _exit, which
   * would skip the leak check); elsewhere the task just succeeds */
  static Ctx c;
  memset(&c, 0, sizeof c);
  c.act[1] = LEAK;
  run_pool(&c, 3, 1, 0, 0);
#ifdef SANITIZED
  expect_failure(&c, 1, "worker leaked memory (see the sanitizer's report)");
#else
  expect_ok(&c, 1);
#endif
  expect_ok(&c, 0);
  expect_ok(&c, 2);
  free_ctx(&c);
}
END_TEST

START_TEST(test_kill_tree) {
  /* a child with a grandchild in another process group; both end */
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  pid_t child = fork();
  if (child == 0) {
    pid_t g = fork();
    if (g == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    ssize_t w = write(p[1], &g, sizeof g);
    (void)w;
    for (;;) pause();
  }
  pid_t grandchild;
  ck_assert_int_eq(read(p[0], &grandchild, sizeof grandchild), (ssize_t)sizeof grandchild);
  ax_proc_kill_tree(child);
  int status = ax_proc_reap(child);
  char how[64];
  ck_assert_str_eq(ax_proc_describe(status, how, sizeof how), "killed by SIGKILL (signal 9)");
  ck_assert_str_eq(ax_proc_describe(SIGRTMAX, how, sizeof how), "killed by signal 64");   /* no name */
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  ck_assert_msg(gone(grandchild), "the grandchild survived");
  close(p[0]);
  close(p[1]);
}
END_TEST

static Suite *jobs_suite(void) {
  Suite *s = suite_create("jobs");
  TCase *t = tcase_create("pool");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_all_results);
  tcase_add_test(t, test_one_worker_many_tasks);
  tcase_add_test(t, test_failures_stay_local);
  tcase_add_test(t, test_memory_limit);
  tcase_add_test(t, test_signals_named);
  tcase_add_test(t, test_leak_in_worker);
  tcase_add_test(t, test_kill_tree);
  suite_add_tcase(s, t);
  /* Tagged "timing" (ctest label timing: `make test`, not `make check`): a hung task is
   * ended at its 700 ms limit, asserted within [0.7, 3) s and the pool under 5 s. */
  TCase *timing = tcase_create("time limits");
  tcase_set_tags(timing, "timing");
  tcase_set_timeout(timing, 60);
  tcase_add_test(timing, test_hang_is_killed_with_its_children);
  suite_add_tcase(s, timing);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(jobs_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
