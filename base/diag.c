/* diag.c — source loading and the one diagnostic renderer; see diag.h. */
#include "base/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t input_limit = AX_SOURCE_DEFAULT_LIMIT;

void ax_source_set_limit(size_t bytes) {
  input_limit = bytes > AX_SOURCE_MAX_LIMIT ? AX_SOURCE_MAX_LIMIT : bytes;
}

size_t ax_source_limit(void) { return input_limit; }

static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

/* "64 MiB", or bytes when the number is no whole MiB. */
static void size_text(char *buf, size_t n, size_t bytes) {
  if (bytes && bytes % ((size_t)1 << 20) == 0) snprintf(buf, n, "%zu MiB", bytes >> 20);
  else snprintf(buf, n, "%zu bytes", bytes);
}

bool ax_source_load(AxArena *a, AxDiag *d, const char *path, AxSource **out) {
  /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below) */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    ax_diag_error(d, (AxSpan){0}, "cannot open '%s': %s", path, strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ax_diag_error(d, (AxSpan){0}, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    ax_diag_error(d, (AxSpan){0}, "cannot read '%s': it is %s, not a regular file", path,
                  file_kind(st.st_mode));
    close(fd);
    return false;
  }
  char lim[32];
  size_text(lim, sizeof lim, input_limit);
  if ((uint64_t)st.st_size > input_limit) {
    ax_diag_error(d, (AxSpan){0}, "cannot read '%s': it has %lld bytes, more than the input limit of %s (--max-input)",
                  path, (long long)st.st_size, lim);
    close(fd);
    return false;
  }
  /* read to the end, whatever the size said (the file may be growing), but never more
   * than the limit */
  size_t cap = (size_t)st.st_size + 4096, len = 0;
  char *buf = ax_xmalloc(cap);
  bool failed = false, big = false;
  for (;;) {
    if (len == cap - 1) {
      if (cap > input_limit + 1) {
        big = true;
        break;
      }
      buf = ax_xrealloc(buf, cap *= 2);
    }
    ssize_t n = read(fd, buf + len, cap - len - 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failed = true;
      break;
    }
    if (n == 0) break;
    len += (size_t)n;
    if (len > input_limit) {
      big = true;
      break;
    }
  }
  int err = errno;
  close(fd);
  if (failed || big) {
    free(buf);
    if (big)
      ax_diag_error(d, (AxSpan){0}, "cannot read '%s': it has more than the input limit of %s (--max-input)",
                    path, lim);
    else
      ax_diag_error(d, (AxSpan){0}, "cannot read '%s': %s", path, strerror(err));
    return false;
  }
  char *text = ax_arena_alloc(a, len + 1);   /* zeroed: text[len] == '\0' */
  memcpy(text, buf, len);                   /* NUL bytes included */
  free(buf);
  *out = ax_source_from_text(a, ax_arena_strdup(a, path), text, len);
  return true;
}

bool ax_source_is_break(const AxSource *src, size_t i) {
  char c = src->text[i];
  return c == '\n' || (c == '\r' && (i + 1 >= src->len || src->text[i + 1] != '\n'));
}

AxSource *ax_source_from_text(AxArena *a, const char *path, const char *text, size_t len) {
  AxSource *s = ax_arena_alloc(a, sizeof *s);
  s->path = path;
  s->text = text;
  s->len = len;
  /* the line table: diagnostics and the printer ask for lines all the time, and a scan
   * from the start each time is quadratic in the file */
  uint32_t n = 1;
  for (size_t i = 0; i < len; i++) n += ax_source_is_break(s, i);
  uint32_t *lines = ax_arena_alloc(a, (size_t)n * sizeof *lines);
  uint32_t k = 0;
  lines[k++] = 0;
  for (size_t i = 0; i < len; i++)
    if (ax_source_is_break(s, i)) lines[k++] = (uint32_t)(i + 1);
  s->lines = lines;
  s->nlines = n;
  return s;
}

void ax_source_linecol(const AxSource *src, uint32_t off, int *line, int *col) {
  if (off > src->len) off = (uint32_t)src->len;
  if (src->lines) {
    uint32_t lo = 0, hi = src->nlines;   /* the last line start <= off */
    while (hi - lo > 1) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (src->lines[mid] <= off) lo = mid;
      else hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - src->lines[lo]) + 1;
    return;
  }
  int l = 1;
  uint32_t bol = 0;
  for (uint32_t i = 0; i < off; i++)
    if (ax_source_is_break(src, i)) {
      l++;
      bol = i + 1;
    }
  *line = l;
  *col = (int)(off - bol) + 1;
}

void ax_diag_init(AxDiag *d, FILE *out) {
  memset(d, 0, sizeof *d);
  d->out = out;
  d->limit = 50;
}

static const char *const sevname[] = {
    [AX_SEV_ERROR] = "error", [AX_SEV_WARNING] = "warning", [AX_SEV_NOTE] = "note"};

enum {
  MSG_MAX = 1024,   /* bytes of one message */
  RUN_MAX = 64,     /* a longer run of name characters is shortened ... */
  RUN_KEEP = 32,    /* ... to its first RUN_KEEP bytes and "..." */
  LINE_MAX_SHOWN = 160,   /* a longer source line is shown as a window ... */
  LINE_BEFORE = 60,       /* ... starting this many bytes before the caret */
};

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* The message with every run of more than RUN_MAX name characters (an echoed identifier,
 * a number) shortened, so that a 10 MB identifier costs a line, not megabytes. */
static void put_message(FILE *out, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  char *msg = ax_xmalloc((size_t)n + 1);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  size_t shown = 0;
  for (const char *s = msg; *s && shown < MSG_MAX;) {
    const char *e = s;
    while (name_char(*e)) e++;
    if (e == s) {
      fputc(*s++, out);
      shown++;
    } else if (e - s > RUN_MAX) {
      fprintf(out, "%.*s...", RUN_KEEP, s);
      shown += RUN_KEEP + 3;
      s = e;
    } else {
      fwrite(s, 1, (size_t)(e - s), out);
      shown += (size_t)(e - s);
      s = e;
    }
  }
  if (shown >= MSG_MAX) fputs("...", out);
  free(msg);
}

/* The source line under a diagnostic, then a caret under the span's first byte and
 * tildes to its end (or to the end of the line). Control bytes print as '?' so a binary
 * file cannot garble a terminal; tabs are kept so the caret stays aligned. A long line is
 * shown as a window around the caret, marked with "...". */
static void excerpt(FILE *out, const AxSource *src, uint32_t start, uint32_t end, int line) {
  uint32_t bol = start, eol = start;
  if (bol > src->len) bol = eol = (uint32_t)src->len;
  if (start > src->len) start = (uint32_t)src->len;
  while (bol > 0 && !ax_source_is_break(src, bol - 1)) bol--;
  while (eol < src->len && src->text[eol] != '\n' && src->text[eol] != '\r') eol++;
  if (end <= start) end = start + 1;
  bool left = false, right = false;
  if (eol - bol > LINE_MAX_SHOWN) {
    if (start - bol > LINE_BEFORE) {
      bol = start - LINE_BEFORE;
      left = true;
    }
    if (eol - bol > LINE_MAX_SHOWN) {
      eol = bol + LINE_MAX_SHOWN;
      right = true;
    }
  }
  fprintf(out, "%5d | %s", line, left ? "..." : "");
  for (uint32_t i = bol; i < eol; i++) {
    unsigned char c = (unsigned char)src->text[i];
    fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : '?', out);
  }
  fputs(right ? "...\n      | " : "\n      | ", out);
  if (left) fputs("   ", out);
  for (uint32_t i = bol; i < start; i++) fputc(src->text[i] == '\t' ? '\t' : ' ', out);
  fputc('^', out);
  for (uint32_t i = start + 1; i < end && i < eol; i++) fputc('~', out);
  fputc('\n', out);
}

void ax_diag_report(AxDiag *d, AxSeverity sev, AxSpan at, const char *fmt, ...) {
  if (sev == AX_SEV_ERROR) d->errors++;
  if (sev == AX_SEV_WARNING) d->warnings++;
  if (d->limit && d->errors > d->limit) return;
  if (!d->out) return;
  va_list ap;
  va_start(ap, fmt);
  if (at.src) {
    int line, col;
    ax_source_linecol(at.src, at.start, &line, &col);
    fprintf(d->out, "%s:%d:%d: %s: ", at.src->path, line, col, sevname[sev]);
    put_message(d->out, fmt, ap);
    fputc('\n', d->out);
    excerpt(d->out, at.src, at.start, at.end, line);
  } else {
    fprintf(d->out, "axle: %s: ", sevname[sev]);
    put_message(d->out, fmt, ap);
    fputc('\n', d->out);
  }
  va_end(ap);
  if (d->limit && d->errors == d->limit && sev == AX_SEV_ERROR)
    fprintf(d->out, "axle: too many errors; further errors are counted, not shown\n");
}

AxSpan ax_span_join(AxSpan a, AxSpan b) {
  if (!a.src) return b;
  if (!b.src) return a;
  AxSpan r = a;
  if (b.start < r.start) r.start = b.start;
  if (b.end > r.end) r.end = b.end;
  return r;
}
