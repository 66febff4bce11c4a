/* proc.c — ending child processes and saying how they ended; see proc.h. */
#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The parent of process pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may
 * hold spaces and parentheses, so the fields are read after the last ')'); -1 if gone. */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *close_paren = strrchr(buf, ')');
  char state;
  int ppid;
  if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2) return -1;
  return (pid_t)ppid;
}

static bool member(const pid_t *set, size_t n, pid_t p) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == p) return true;
  return false;
}

void ax_proc_kill_tree(pid_t pid) {
  if (pid <= 0) return;
  size_t n = 1, cap = 16;
  pid_t *tree = ax_xmalloc(cap * sizeof *tree);
  tree[0] = pid;
  kill(pid, SIGSTOP);
  /* Rescan until a pass finds no new descendant: a process stopped in one pass may have
   * forked a child just before, which the next pass sees. */
  for (bool grew = true; grew;) {
    grew = false;
    DIR *d = opendir("/proc");
    if (!d) break;
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      pid_t p = (pid_t)atoi(e->d_name);
      if (member(tree, n, p)) continue;
      pid_t pp = parent_of(p);
      if (pp <= 0 || !member(tree, n, pp)) continue;
      kill(p, SIGSTOP);
      if (n == cap) tree = ax_xrealloc(tree, (cap *= 2) * sizeof *tree);
      tree[n++] = p;
      grew = true;
    }
    closedir(d);
  }
  for (size_t i = 0; i < n; i++) {
    /* a solver leads its own process group: take whatever it started, too */
    if (i > 0) kill(-tree[i], SIGKILL);
    kill(tree[i], SIGKILL);
  }
  free(tree);
}

int ax_proc_reap(pid_t pid) {
  int status;
  pid_t r;
  do r = waitpid(pid, &status, 0);
  while (r < 0 && errno == EINTR);
  return r == pid ? status : -1;
}

const char *ax_proc_signal_name(int sig) {
  static const struct { int sig; const char *name; } names[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
      {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
  };
  for (size_t i = 0; i < AX_COUNTOF(names); i++)
    if (names[i].sig == sig) return names[i].name;
  return NULL;
}

const char *ax_proc_describe(int status, char *buf, size_t len) {
  const char *name = status != -1 && WIFSIGNALED(status) ? ax_proc_signal_name(WTERMSIG(status)) : NULL;
  if (name)
    snprintf(buf, len, "killed by %s (signal %d)", name, WTERMSIG(status));
  else if (status != -1 && WIFSIGNALED(status))
    snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
  else if (status != -1 && WIFEXITED(status))
    snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(buf, len, "ended");
  return buf;
}

bool ax_proc_read_full(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= (size_t)r;
  }
  return true;
}

bool ax_proc_write_full(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}
