/* diag.c — source loading and the one diagnostic renderer; see diag.h. */
#include "dsl/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

bool ax_source_load(AxArena *a, AxDiag *d, const char *path, AxSource **out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    ax_diag_error(d, (AxSpan){0}, "cannot open '%s': %s", path, strerror(errno));
    return false;
  }
  size_t cap = 4096, len = 0;
  char *buf = ax_xmalloc(cap);
  for (;;) {
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
    if (cap - len - 1 == 0) buf = ax_xrealloc(buf, cap *= 2);
  }
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    ax_diag_error(d, (AxSpan){0}, "cannot read '%s'", path);
    return false;
  }
  char *text = ax_arena_strndup(a, buf, len);
  memcpy(text, buf, len);   /* strndup stops at NUL bytes; keep them all */
  free(buf);
  *out = ax_source_from_text(a, ax_arena_strdup(a, path), text, len);
  return true;
}

AxSource *ax_source_from_text(AxArena *a, const char *path, const char *text, size_t len) {
  AxSource *s = ax_arena_alloc(a, sizeof *s);
  s->path = path;
  s->text = text;
  s->len = len;
  return s;
}

void ax_source_linecol(const AxSource *src, uint32_t off, int *line, int *col) {
  int l = 1;
  uint32_t bol = 0;
  if (off > src->len) off = (uint32_t)src->len;
  for (uint32_t i = 0; i < off; i++)
    if (src->text[i] == '\n') {
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

static const char *sevname[] = {"error", "warning", "note"};

/* The source line under a diagnostic, then a caret under the span's first byte and
 * tildes to its end (or to the end of the line). Control bytes print as '?' so a binary
 * file cannot garble a terminal; tabs are kept so the caret stays aligned. */
static void excerpt(FILE *out, const AxSource *src, uint32_t start, uint32_t end, int line) {
  uint32_t bol = start, eol = start;
  if (bol > src->len) bol = eol = (uint32_t)src->len;
  while (bol > 0 && src->text[bol - 1] != '\n') bol--;
  while (eol < src->len && src->text[eol] != '\n') eol++;
  if (end <= start) end = start + 1;
  fprintf(out, "%5d | ", line);
  for (uint32_t i = bol; i < eol; i++) {
    unsigned char c = (unsigned char)src->text[i];
    fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : '?', out);
  }
  fputs("\n      | ", out);
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
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    excerpt(d->out, at.src, at.start, at.end, line);
  } else {
    fprintf(d->out, "axle: %s: ", sevname[sev]);
    vfprintf(d->out, fmt, ap);
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
