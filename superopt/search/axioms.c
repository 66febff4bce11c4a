/* axioms.c — the proved-axiom gate of the search (axioms.h). */
#include "superopt/search/axioms.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/parse.h"
#include "run/cache.h"

void ax_axioms_default_opts(AxVerifyOpts *vo, const char **solver_name) {
  memset(vo, 0, sizeof *vo);
  vo->solver.kind = AX_SOLVER_Z3;
  vo->solver.cross_check = vo->solver.confirm = true;   /* as `axle verify` (--solver both) */
  vo->solver.timeout_ms = 10000;
  vo->solver.binary = "cvc5";
  *solver_name = "both";
}

/* A report line (appended to rep->failures). */
static void fail(AxAxiomReport *rep, FILE *lines, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(AxAxiomReport *rep, FILE *lines, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(lines, fmt, ap);
  va_end(ap);
  fputc('\n', lines);
  rep->failed++;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .axl files directly in dir, sorted; NULL with *n = -1 when dir cannot be read. */
static char **list(const char *dir, int *n) {
  DIR *d = opendir(dir);
  *n = -1;
  if (!d) return NULL;
  char **names = NULL;
  int cap = 0;
  *n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".axl") != 0 || e->d_name[0] == '.') continue;
    if (*n == cap) cap = cap * 2 + 8, names = ax_xrealloc(names, (size_t)cap * sizeof *names);
    size_t plen = strlen(dir) + len + 2;
    names[*n] = ax_xmalloc(plen);
    snprintf(names[*n], plen, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (*n) qsort(names, (size_t)*n, sizeof *names, by_name);
  return names;
}

/* The walk both entry points share (axioms.h): required names for the search, the
 * per-rule callback and the skipping of `expect invalid` rules for the optimizer. */
static bool gate(const char *rules_dir, const AxVerifyOpts *vo, const char *solver_name,
                 const char *const *required, int nrequired, bool skip_invalid, AxGateRule *on,
                 void *ctx, AxArena *a, AxAxiomReport *rep) {
  memset(rep, 0, sizeof *rep);
  size_t flen = 0;
  FILE *lines = open_memstream(&rep->failures, &flen);
  bool *found = ax_xcalloc((size_t)nrequired + 1, sizeof *found);
  int nfiles;
  char **files = list(rules_dir, &nfiles);
  if (nfiles < 0) fail(rep, lines, "%s: cannot read the directory", rules_dir);
  char why[512];
  AxCache *cache = ax_cache_open(NULL, vo, solver_name, why, sizeof why);
  for (int f = 0; f < nfiles; f++) {
    rep->files++;
    AxDiag d;
    ax_diag_init(&d, NULL);
    AxSource *src;
    AxFile *file = ax_source_load(a, &d, files[f], &src) ? ax_parse(a, &d, src) : NULL;
    if (!file || d.errors || !ax_check_file(a, &d, file)) {
      fail(rep, lines, "%s: does not parse or check (run `axle check %s`); none of its rules count",
           files[f], files[f]);
      continue;
    }
    for (size_t b = 0; b < file->nblocks; b++) {
      const AxBlock *rule = file->blocks[b];
      if (rule->kind != AX_B_RULE) continue;
      rep->rules++;
      for (int i = 0; i < nrequired; i++)
        if (strcmp(required[i], rule->name.name) == 0) found[i] = true;
      int line, col;
      ax_source_linecol(src, rule->span.start, &line, &col);
      if (skip_invalid && (rule->expect == AX_EXPECT_INVALID || rule->expect == AX_EXPECT_INVALID_HINT ||
                           rule->expect == AX_EXPECT_TRIVIAL)) {
        rep->skipped++;
        if (on) on(ctx, files[f], src, rule, AX_GATE_SKIPPED, NULL);
        continue;
      }
      AxType types[3];
      int nt = ax_rule_types(rule, types);
      int failed_before = rep->failed;
      long first_failure = -1;
      for (int k = 0; k < nt; k++) {
        rep->results++;
        AxResult r;
        char *key = cache ? ax_cache_key(cache, rule, types[k]) : NULL;
        if (key && ax_cache_get(cache, key, rule, types[k], &r)) {
          rep->cached++;
        } else {
          ax_verify_rule(rule, types[k], vo, &r);
          if (key) ax_cache_put(cache, key, &r);
        }
        free(key);
        /* only a real proof counts: not a trivial rewrite, not a vacuous precondition */
        if (r.verdict == AX_VERIFIED && !r.trivial && !r.vacuous) {
          rep->verified++;
        } else {
          const char *v = r.verdict == AX_VERIFIED ? (r.trivial ? "TRIVIAL" : "VACUOUS")
                                                   : ax_verdict_name(r.verdict);
          fflush(lines);
          if (first_failure < 0) first_failure = (long)flen;
          fail(rep, lines, "%s:%d: %s [%s] %s%s%s", files[f], line, rule->name.name,
               ax_type_name(types[k]), v, r.reason ? ": " : "", r.reason ? r.reason : "");
        }
        ax_result_free(&r);
      }
      if (on) {
        char msg[1024] = "";
        bool bad = rep->failed > failed_before;
        if (bad) {
          fflush(lines);
          const char *from = rep->failures + first_failure;
          snprintf(msg, sizeof msg, "%.*s", (int)strcspn(from, "\n"), from);
        }
        on(ctx, files[f], src, rule, bad ? AX_GATE_FAILED : AX_GATE_PROVED, bad ? msg : NULL);
      }
    }
  }
  for (int i = 0; i < nrequired; i++)
    if (!found[i]) fail(rep, lines, "%s: no such rule in %s", required[i], rules_dir);
  if (nfiles >= 0 && rep->results == 0) fail(rep, lines, "%s: no rule to verify", rules_dir);
  fclose(lines);
  ax_cache_close(cache);
  for (int f = 0; f < nfiles; f++) free(files[f]);
  free(files);
  free(found);
  return rep->failed == 0 && rep->results > 0;
}

bool ax_superopt_axioms_proved(const char *rules_dir, const AxVerifyOpts *vo,
                               const char *solver_name, const char *const *required,
                               int nrequired, AxAxiomReport *rep) {
  AxArena *a = ax_arena_new();
  bool ok = gate(rules_dir, vo, solver_name, required, nrequired, false, NULL, NULL, a, rep);
  ax_arena_free(a);
  return ok;
}

bool ax_axioms_gate(const char *rules_dir, const AxVerifyOpts *vo, const char *solver_name,
                    bool skip_expected_invalid, AxGateRule *on, void *ctx, AxArena *a,
                    AxAxiomReport *rep) {
  return gate(rules_dir, vo, solver_name, NULL, 0, skip_expected_invalid, on, ctx, a, rep);
}

void ax_axiom_report_free(AxAxiomReport *rep) {
  free(rep->failures);
  rep->failures = NULL;
}
