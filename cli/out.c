/* out.c — checked output; see out.h.
 *
 * Every output stream is a stdio stream over a "cookie" (glibc's fopencookie) that does
 * the write(2) calls itself and keeps the errno of the first one that failed. stdio only
 * remembers *that* a write failed (ferror), and by the time a command finishes errno has
 * long been overwritten; the cookie keeps the reason for the one error message. */
#define _GNU_SOURCE   /* fopencookie */

#include "cli/out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"

typedef struct Sink {
  int fd;
  int err;        /* errno of the first failed write or close, 0 if none */
  bool closed;    /* fd was closed when axle started (stdout only) */
  bool reported;  /* the error message has been printed */
} Sink;

static Sink std_sink = {.fd = STDOUT_FILENO};
static bool started;

static ssize_t sink_write(void *cookie, const char *buf, size_t n) {
  Sink *s = cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(s->fd, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (!s->err) s->err = w < 0 ? errno : EIO;
      return done ? (ssize_t)done : -1;
    }
    done += (size_t)w;
  }
  return (ssize_t)n;
}

static int sink_close(void *cookie) {
  Sink *s = cookie;
  if (s == &std_sink) return 0;   /* standard output stays open */
  int r = s->fd >= 0 ? close(s->fd) : 0;
  free(s);
  return r;
}

static FILE *sink_stream(Sink *s) {
  cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
  return fopencookie(s, "w", io);
}

static const char *reason(const Sink *s) {
  if (s->closed) return "standard output is closed";
  return strerror(s->err ? s->err : EIO);
}

/* Out of memory in the axle process itself: an error, exit 3, what was printed kept. Only
 * async-signal-safe-ish calls: the heap is exhausted, stdio's buffers exist already. */
_Noreturn static void out_of_memory(size_t bytes) {
  char msg[160];
  int n = snprintf(msg, sizeof msg,
                   "axle: error: out of memory (%zu bytes more were needed; see ulimit -v)\n", bytes);
  fflush(stdout);
  if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) _exit(3);
  _exit(3);
}

/* The memory budget (base/mem.h, --memory) reached: an error, exit 3, what was printed kept.
 * Called before the allocation it refuses, so the heap is intact. */
_Noreturn static void memory_limit(uint64_t bytes, uint64_t held, uint64_t limit) {
  fflush(stdout);
  fprintf(stderr,
          "axle: error: memory limit reached: %.1f MB more were needed with %.1f MB held, beyond --memory %llu "
          "(give more, or 0 for no limit)\n",
          (double)bytes / (1 << 20), (double)held / (1 << 20), (unsigned long long)(limit >> 20));
  fflush(stderr);
  _exit(3);
}

void ax_out_start(void) {
  ax_set_oom_handler(out_of_memory);
  ax_mem_set_handler(memory_limit);
  /* a closed 0, 1 or 2 is occupied: a file axle opens later must not become its stdout.
   * stdout gets /dev/full, so that writing to it fails as writing to a closed one would. */
  static const char *const dev[3] = {"/dev/null", "/dev/full", "/dev/null"};
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    int r = open(dev[fd], fd == 0 ? O_RDONLY : O_WRONLY);
    if (r >= 0 && r != fd) close(r);
    if (fd == STDOUT_FILENO) std_sink.closed = true;
  }
  FILE *f = sink_stream(&std_sink);
  if (f) {
    fflush(stdout);
    stdout = f;
  }
  /* line-buffered even into a file or a pipe: a killed run keeps every line it printed */
  setvbuf(stdout, NULL, _IOLBF, 0);
  started = true;
}

/* Prints the error of a failed standard output once. */
static bool stdout_ok(void) {
  if (fflush(stdout) == 0 && !ferror(stdout) && !std_sink.err) return true;
  if (!std_sink.reported) {
    fprintf(stderr, "axle: error: cannot write standard output: %s\n",
            started ? reason(&std_sink) : strerror(errno));
    std_sink.reported = true;
  }
  return false;
}

int ax_out_finish(int status) { return stdout_ok() ? status : 3; }

static void fail(const char *path, int err) {
  fprintf(stderr, "axle: error: cannot write %s: %s\n", path, strerror(err ? err : EIO));
}

bool ax_out_open(AxOut *o, const char *path) {
  memset(o, 0, sizeof *o);
  if (!path) {
    o->f = stdout;
    return true;
  }
  o->name = ax_xstrdup(path);
  struct stat st;
  bool exists = stat(path, &st) == 0;
  int fd;
  if (exists && !S_ISREG(st.st_mode)) {   /* a device or a FIFO: written as it is */
    if (S_ISDIR(st.st_mode)) {
      fail(path, EISDIR);
      ax_out_abandon(o);
      return false;
    }
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      fail(path, errno);
      ax_out_abandon(o);
      return false;
    }
    o->path = ax_xstrdup(path);
  } else {
    /* the temporary goes next to the file the name leads to (through a symbolic link) */
    char *target = NULL;
    if (exists) target = realpath(path, NULL);
    if (!target) target = ax_xstrdup(path);
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target) : 0;
    size_t n = strlen(target) + 32;
    o->tmp = ax_xmalloc(n);
    snprintf(o->tmp, n, "%.*s%s.%s.tmp-XXXXXX", dirlen, target, slash ? "/" : "",
             slash ? slash + 1 : target);
    if (slash && dirlen == 0) snprintf(o->tmp, n, "/.%s.tmp-XXXXXX", slash + 1);
    fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
      fail(path, errno);
      free(o->tmp);
      o->tmp = NULL;
      free(target);
      ax_out_abandon(o);
      return false;
    }
    mode_t mask = umask(0);
    umask(mask);
    o->mode = exists ? (int)(st.st_mode & 07777) : (int)(0666 & ~mask);
    fchmod(fd, (mode_t)o->mode);
    o->path = target;
  }
  Sink *s = ax_xcalloc(1, sizeof *s);
  s->fd = fd;
  o->f = sink_stream(s);
  if (!o->f) {
    fail(path, errno);
    close(fd);
    free(s);
    ax_out_abandon(o);
    return false;
  }
  o->sink = s;
  return true;
}

bool ax_out_commit(AxOut *o) {
  if (!o->path) {
    memset(o, 0, sizeof *o);
    return stdout_ok();
  }
  Sink *s = o->sink;
  bool ok = fflush(o->f) == 0 && !ferror(o->f) && !s->err;
  int err = s->err ? s->err : errno;
  /* the data must be on the disk before the name points at it */
  if (ok && o->tmp && fsync(s->fd) != 0) {
    ok = false;
    err = errno;
  }
  int fd = s->fd;
  s->fd = -1;   /* closed here, where its error can be seen */
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  fclose(o->f);   /* frees s */
  o->f = NULL;
  o->sink = NULL;
  if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    fail(o->name, err);
    ax_out_abandon(o);
    return false;
  }
  free(o->tmp);
  free(o->path);
  free(o->name);
  memset(o, 0, sizeof *o);
  return true;
}

void ax_out_abandon(AxOut *o) {
  if (o->f && o->f != stdout) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->path);
  free(o->name);
  memset(o, 0, sizeof *o);
}

bool ax_out_replace(const char *path, const char *data, size_t len) {
  AxOut o;
  if (!ax_out_open(&o, path)) return false;
  fwrite(data, 1, len, o.f);
  return ax_out_commit(&o);
}
