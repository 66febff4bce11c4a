/* files.c — expanding FILE|DIR arguments into .axl paths, and loading the programs and μGraphs the
 * superoptimizer verbs read; see files.h. */
#include "cli/files.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dsl/ast.h"
#include "hlo/import.h"
#include "superopt/ir/dead.h"
#include "superopt/ir/load.h"

/* A set of (device, inode) pairs: open addressing, grown at half load. */
typedef struct Seen {
  struct Id {
    dev_t dev;
    ino_t ino;
    bool used;
  } *slots;
  size_t n, cap;
} Seen;

static size_t slot(const Seen *s, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)ino * 0xff51afd7ed558ccdULL);
  size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);
  while (s->slots[i].used && (s->slots[i].dev != dev || s->slots[i].ino != ino))
    i = (i + 1) & (s->cap - 1);
  return i;
}

/* Adds st's identity; false if it was there already. */
static bool first_time(Seen *s, const struct stat *st) {
  if (2 * (s->n + 1) > s->cap) {
    Seen g = {ax_xcalloc(s->cap ? 2 * s->cap : 64, sizeof *g.slots), 0, s->cap ? 2 * s->cap : 64};
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i].used) {
        g.slots[slot(&g, s->slots[i].dev, s->slots[i].ino)] = s->slots[i];
        g.n++;
      }
    free(s->slots);
    *s = g;
  }
  size_t i = slot(s, st->st_dev, st->st_ino);
  if (s->slots[i].used) return false;
  s->slots[i] = (struct Id){st->st_dev, st->st_ino, true};
  s->n++;
  return true;
}

typedef struct Walk {
  AxArena *a;
  AxDiag *d;
  Seen seen;               /* every file and directory taken */
  struct Open {            /* the directories being walked, outermost first */
    dev_t dev;
    ino_t ino;
    const char *path;
  } *open;
  size_t nopen, capopen;
  AxVec out;
  bool ok;
} Walk;

static int cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void walk(Walk *w, const char *dir, const struct stat *dst) {
  for (size_t i = 0; i < w->nopen; i++)
    if (w->open[i].dev == dst->st_dev && w->open[i].ino == dst->st_ino) {
      ax_diag_warning(w->d, (AxSpan){0}, "skipping '%s': a symbolic link cycle (it is '%s')",
                      dir, w->open[i].path);
      return;
    }
  if (!first_time(&w->seen, dst)) return;   /* walked already, under another name */
  DIR *d = opendir(dir);
  if (!d) {
    ax_diag_error(w->d, (AxSpan){0}, "cannot read directory '%s': %s", dir, strerror(errno));
    w->ok = false;
    return;
  }
  AxVec found = {0};
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    ax_vec_push(w->a, &found, ax_arena_printf(w->a, "%s/%s", dir, e->d_name));
  }
  closedir(d);
  if (found.len) qsort(found.items, found.len, sizeof(void *), cmp);
  if (w->nopen == w->capopen) {
    w->capopen = w->capopen ? 2 * w->capopen : 16;
    w->open = ax_xrealloc(w->open, w->capopen * sizeof *w->open);
  }
  w->open[w->nopen++] = (struct Open){dst->st_dev, dst->st_ino, dir};
  for (size_t i = 0; i < found.len; i++) {
    const char *path = found.items[i];
    struct stat st;
    if (stat(path, &st) != 0) continue;   /* a dangling link, or gone meanwhile */
    if (S_ISDIR(st.st_mode)) walk(w, path, &st);
    else if (S_ISREG(st.st_mode) && ends_with(path, ".axl") && first_time(&w->seen, &st))
      ax_vec_push(w->a, &w->out, (void *)path);
  }
  w->nopen--;
}

bool ax_files_collect(AxArena *a, AxDiag *d, char **args, int nargs, AxPathList *out) {
  Walk w = {.a = a, .d = d, .ok = true};
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    if (stat(args[i], &st) != 0) {
      ax_diag_error(d, (AxSpan){0}, "cannot open '%s': %s", args[i], strerror(errno));
      w.ok = false;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      char *dir = ax_arena_strdup(a, args[i]);
      size_t n = strlen(dir);
      while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
      walk(&w, dir, &st);
    } else if (!S_ISREG(st.st_mode) || first_time(&w.seen, &st)) {
      ax_vec_push(a, &w.out, args[i]);   /* not a regular file: the reader refuses it */
    }
  }
  free(w.seen.slots);
  free(w.open);
  out->paths = (const char **)w.out.items;
  out->n = w.out.len;
  return w.ok;
}

bool ax_files_max_input(const char *text) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno || v < 1 || v > 1024) return false;
  ax_source_set_limit((size_t)v << 20);
  return true;
}

static bool is_hlo(const char *path) { return ends_with(path, ".hlo"); }

bool ax_files_is_program(const char *path) { return ends_with(path, ".axl") || is_hlo(path); }

AxMugraph *ax_files_import_hlo(AxArena *a, AxDiag *d, const char *path, AxHloProgram *out) {
  AxSource *src;
  if (!ax_source_load(a, d, path, &src)) return NULL;
  AxHloModule *m = ax_hlo_parse(a, d, src);
  if (!m || !ax_hlo_import(a, d, m, out)) return NULL;
  /* the importer writes programs that check; this is the proof, never skipped. Should it
   * fail (an importer's bug), the error still points into the HLO file: the first one only,
   * at the instruction the failing line comes from (its input or let), so that no cascade
   * of the program's own messages ("unknown name") follows */
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  AxDiag pd;
  ax_diag_init(&pd, mem);
  AxMugraph *g = ax_load_from_text(a, &pd, ax_arena_printf(a, "%s (imported program)", path), out->text,
                                   &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
  bool ok = g != NULL;
  fclose(mem);
  if (!ok) {
    /* "PATH (imported program):LINE:COL: error: MESSAGE" */
    const char *e = buf ? strstr(buf, "(imported program):") : NULL;
    int line = 0;
    if (e) line = atoi(e + strlen("(imported program):"));
    const char *msg = buf ? strstr(buf, "error: ") : NULL;
    AxSpan at = ax_hlo_program_at(out, line);
    if (!at.src) at = m->entry->root->name_span;
    ax_diag_error(d, at, "the imported program does not check: %.*s", msg ? (int)strcspn(msg + 7, "\n") : 0,
                  msg ? msg + 7 : "");
    free(buf);
    return NULL;
  }
  free(buf);
  return g;
}

AxMugraph *ax_files_load_program(AxArena *a, AxDiag *d, const char *path, const char *name) {
  if (is_hlo(path)) {
    AxHloProgram hp;
    AxMugraph *g = ax_files_import_hlo(a, d, path, &hp);
    if (!g) return NULL;
    if (name && strcmp(name, hp.name) != 0) {
      ax_diag_error(d, (AxSpan){0}, "%s: the imported program is '%s', not '%s'", path, hp.name, name);
      return NULL;
    }
    if (hp.ncuts > 0)
      ax_diag_note(d, (AxSpan){0}, "%s: imported with %d cut%s (axle import %s lists them)", path,
                   hp.ncuts, hp.ncuts == 1 ? "" : "s", path);
    return g;
  }
  return ax_load_from_file(a, d, path, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM, .program = name});
}

const char *ax_files_graph_path(AxArena *a, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return path;
  return ax_arena_printf(a, "%s/module.mug", path);
}

AxMugraph *ax_files_load_mug(AxArena *a, AxDiag *d, const char *path) {
  return ax_load_from_file(a, d, path, &(AxLoadOpts){.kind = AX_LOAD_MUGRAPH});
}

/* Named dead statements listed in the note at most; the rest are counted. */
#define DEAD_LISTED 8

int ax_files_dead_line(const AxDeadStmt *s, const AxHloProgram *hp) {
  int line = 0, col;
  if (s->span.src) ax_source_linecol(s->span.src, s->span.start, &line, &col);
  return hp ? ax_hlo_program_line(hp, line) : line;
}

AxMugraph *ax_files_drop_dead(AxArena *a, AxDiag *d, AxMugraph *g, const char *path,
                              const AxHloProgram *hp, AxDead *dead) {
  AxDead dd;
  AxMugraph *r = ax_dead_drop(a, g, &dd);
  if (dead) *dead = dd;
  if (dd.nstmts == 0 && dd.nnodes == 0) return r;
  /* the statements a user wrote, with their lines; temporaries of a compound expression
   * (names from '_') are counted with the let they belong to, not listed */
  const char *list = "";
  int listed = 0, named = 0;
  for (int i = 0; i < dd.nstmts; i++) {
    const AxDeadStmt *s = &dd.stmts[i];
    if (s->name[0] == '_') continue;
    if (++named > DEAD_LISTED) continue;
    int line = ax_files_dead_line(s, hp);
    list = line > 0 ? ax_arena_printf(a, "%s%s%s (line %d)", list, listed ? ", " : "", s->name, line)
                    : ax_arena_printf(a, "%s%s%s", list, listed ? ", " : "", s->name);
    listed++;
  }
  if (named > listed) list = ax_arena_printf(a, "%s and %d more", list, named - listed);
  const char *kind = ax_files_is_program(path) ? "program" : "mugraph";
  if (dd.nstmts)
    ax_diag_note(d, (AxSpan){0}, "%s: %s '%s': %d statement%s reach%s no output%s%s — removed", path, kind,
                 g->name, dd.nstmts, dd.nstmts == 1 ? "" : "s", dd.nstmts == 1 ? "es" : "", listed ? ": " : "",
                 list);
  if (dd.nnodes)
    ax_diag_note(d, (AxSpan){0}, "%s: %s '%s': %d block node%s reach%s no saved output — removed", path, kind,
                 g->name, dd.nnodes, dd.nnodes == 1 ? "" : "s", dd.nnodes == 1 ? "es" : "");
  return r;
}

AxMugraph *ax_files_load_live_program(AxArena *a, AxDiag *d, const char *path, const char *name) {
  if (is_hlo(path)) {
    AxHloProgram hp;
    AxMugraph *g = ax_files_import_hlo(a, d, path, &hp);
    if (!g) return NULL;
    if (name && strcmp(name, hp.name) != 0) {
      ax_diag_error(d, (AxSpan){0}, "%s: the imported program is '%s', not '%s'", path, hp.name, name);
      return NULL;
    }
    if (hp.ncuts > 0)
      ax_diag_note(d, (AxSpan){0}, "%s: imported with %d cut%s (axle import %s lists them)", path,
                   hp.ncuts, hp.ncuts == 1 ? "" : "s", path);
    return ax_files_drop_dead(a, d, g, path, &hp, NULL);
  }
  AxMugraph *g = ax_files_load_program(a, d, path, name);
  return g ? ax_files_drop_dead(a, d, g, path, NULL, NULL) : NULL;
}

AxMugraph *ax_files_load_live_mug(AxArena *a, AxDiag *d, const char *path) {
  AxMugraph *g = ax_files_load_mug(a, d, path);
  return g ? ax_files_drop_dead(a, d, g, path, NULL, NULL) : NULL;
}

bool ax_files_rule_wanted(const AxBlock *b, const char *const *globs, int nglobs) {
  if (b->kind != AX_B_RULE) return false;
  if (nglobs == 0) return true;
  for (int i = 0; i < nglobs; i++)
    if (fnmatch(globs[i], b->name.name, 0) == 0) return true;
  return false;
}
