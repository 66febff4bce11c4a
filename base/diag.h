/* diag.h — sources, byte-span locations and the diagnostic sink.
 *
 * A location is a byte span {src, start, end} into a loaded source; line and column are
 * computed only when a diagnostic is printed. Every diagnostic of axle goes through one
 * renderer, which prints
 *
 *     file:line:col: error: message
 *        12 |   the source line
 *           |       ^~~~~
 *
 * and counts it in the sink. The sink stops printing (but keeps counting) after `limit`
 * errors, so a garbage file cannot flood a terminal; for the same reason a message is cut
 * to a few hundred bytes (a long run of name characters in it, i.e. an echoed identifier,
 * is shortened in the middle) and the source line to a window around the caret. */
#ifndef AX_DIAG_H
#define AX_DIAG_H

#include "base/arena.h"

typedef struct AxSource {
  const char *path;   /* as given by the user; printed in diagnostics */
  const char *text;   /* NUL-terminated; may contain NUL bytes before len */
  size_t len;
  const uint32_t *lines;   /* offsets where lines start (NULL: computed by scanning) */
  uint32_t nlines;
} AxSource;

typedef struct AxSpan {
  const AxSource *src;  /* NULL: no location (the diagnostic names none) */
  uint32_t start, end;  /* byte offsets, end exclusive */
} AxSpan;

typedef enum { AX_SEV_ERROR, AX_SEV_WARNING, AX_SEV_NOTE } AxSeverity;

typedef struct AxDiag {
  FILE *out;
  int errors, warnings;
  int limit;          /* errors printed at most; 0 = no limit */
} AxDiag;

/* The one function that reads an input file (rules, programs, μGraphs). Reads the whole
 * file into a (owned by a). Refuses, with a message naming the file, what is not a
 * regular file (a directory, a FIFO, a device such as /dev/zero: never opened in a way
 * that could block) and a file larger than the input limit. Returns false and reports
 * through d on failure. */
bool ax_source_load(AxArena *a, AxDiag *d, const char *path, AxSource **out);

/* The input limit of ax_source_load in bytes: default AX_SOURCE_DEFAULT_LIMIT, at most
 * AX_SOURCE_MAX_LIMIT (offsets are 32-bit). Process-wide; the CLI sets it from an option. */
#define AX_SOURCE_DEFAULT_LIMIT ((size_t)64 << 20)
#define AX_SOURCE_MAX_LIMIT ((size_t)1 << 30)
void ax_source_set_limit(size_t bytes);
size_t ax_source_limit(void);

/* Wraps a buffer (borrowed; must outlive the source) as a source named `path`. */
AxSource *ax_source_from_text(AxArena *a, const char *path, const char *text, size_t len);
/* 1-based line and column (in bytes) of an offset. A line ends at "\n", "\r\n" or a lone
 * "\r" (files from any platform read alike). O(log lines) for a source made by
 * ax_source_from_text. */
void ax_source_linecol(const AxSource *src, uint32_t off, int *line, int *col);

/* Is there a line break at text[i] (a "\n", or a "\r" that no "\n" follows)? A "\r\n"
 * counts once, at its "\n". */
bool ax_source_is_break(const AxSource *src, size_t i);


void ax_diag_init(AxDiag *d, FILE *out);
void ax_diag_report(AxDiag *d, AxSeverity sev, AxSpan at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ax_diag_error(d, at, ...) ax_diag_report((d), AX_SEV_ERROR, (at), __VA_ARGS__)
#define ax_diag_warning(d, at, ...) ax_diag_report((d), AX_SEV_WARNING, (at), __VA_ARGS__)
#define ax_diag_note(d, at, ...) ax_diag_report((d), AX_SEV_NOTE, (at), __VA_ARGS__)

AxSpan ax_span_join(AxSpan a, AxSpan b);   /* smallest span covering both (same source) */

#endif
