/* load.c — the one door from text into the IR; see load.h. */
#include "superopt/ir/load.h"

#include <string.h>

#include "dsl/parse.h"
#include "superopt/ir/mugtext.h"
#include "superopt/ir/program.h"

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

AxMugraph *ax_load_block(AxArena *a, AxDiag *d, const AxBlock *b) {
  AxMugraph *g = ax_prog_lower(a, d, b);
  return g && ax_mug_check(g, d) ? g : NULL;
}

/* The steps after reading, on src. Errors are counted from here: a sink that holds errors
 * already (a verb's earlier file) does not fail this source. */
static AxMugraph *load(AxArena *a, AxDiag *d, const AxSource *src, const AxLoadOpts *o) {
  static const AxLoadOpts none = {0};
  if (!o) o = &none;
  int errors = d->errors;
  bool program = o->kind == AX_LOAD_PROGRAM || (o->kind == AX_LOAD_BY_NAME && ends_with(src->path, ".axl"));
  if (program) {
    AxFile *f = ax_parse(a, d, src);
    if (d->errors > errors) return NULL;
    const AxBlock *b = ax_prog_find(f, o->program, d);
    return b ? ax_load_block(a, d, b) : NULL;
  }
  AxMugraph *g = ax_mugtext_parse(a, d, src);
  if (!g || d->errors > errors) return NULL;
  return o->parse_only || ax_mug_check(g, d) ? g : NULL;
}

AxMugraph *ax_load_from_text(AxArena *a, AxDiag *d, const char *name, const char *text, const AxLoadOpts *o) {
  AxDiag quiet;
  if (!d) {
    ax_diag_init(&quiet, NULL);
    d = &quiet;
  }
  /* copied: the graph's spans point into the text, and callers free what they printed */
  size_t len = strlen(text);
  char *copy = ax_arena_alloc(a, len + 1);
  memcpy(copy, text, len + 1);
  return load(a, d, ax_source_from_text(a, ax_arena_strdup(a, name), copy, len), o);
}

AxMugraph *ax_load_from_file(AxArena *a, AxDiag *d, const char *path, const AxLoadOpts *o) {
  AxDiag quiet;
  if (!d) {
    ax_diag_init(&quiet, NULL);
    d = &quiet;
  }
  AxSource *src;
  return ax_source_load(a, d, path, &src) ? load(a, d, src, o) : NULL;
}
