/* merge.c — shards' JSON reports joined; see merge.h. */
#include "run/merge.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "run/cache.h"
#include "run/report.h"

typedef struct Item {
  cJSON *j;            /* the line, "shard" removed */
  const char *from;    /* the report it came from (borrowed path) */
  int line;
  bool met, contradicts;   /* decided again here, never read (see take) */
  char *text;          /* the shard's "text", owned */
} Item;

/* What the first line read says of its run: every later line must say the same. */
typedef struct Run {
  char rules[17], options[17], axle[17];
  const char *from;
  int line;
} Run;

/* One shard: where its lines came from, how many it says it has and how many came. */
typedef struct Shard {
  const char *from;    /* NULL until a line of it is read */
  int line;
  size_t results, got;
} Shard;

struct AxMerge {
  Item *items;         /* by task: items[i].j NULL until filled */
  size_t n;            /* T */
  int shards;          /* N */
  Shard *shard;        /* [1..N] */
  Run run;
};

/* --- Writing ----------------------------------------------------------------------------- */

static void hex(char out[17], uint64_t h) { snprintf(out, 17, "%016llx", (unsigned long long)h); }

bool ax_merge_identify(AxMergeRun *out, const AxSource *const *files, size_t nfiles,
                       const char *const *globs, int nglobs, const AxVerifyOpts *v,
                       const char *solver, bool require_both) {
  /* each piece with its length first, so that no two lists of pieces hash alike by
   * shifting bytes from one piece to the next */
  uint64_t h = AX_CACHE_HASH_START;
  for (size_t i = 0; i < nfiles; i++) {
    size_t n = strlen(files[i]->path);
    h = ax_cache_hash(h, &n, sizeof n);
    h = ax_cache_hash(h, files[i]->path, n);
    h = ax_cache_hash(h, &files[i]->len, sizeof files[i]->len);
    h = ax_cache_hash(h, files[i]->text, files[i]->len);
  }
  for (int i = 0; i < nglobs; i++) {
    size_t n = strlen(globs[i]);
    h = ax_cache_hash(h, &n, sizeof n);
    h = ax_cache_hash(h, globs[i], n);
  }
  out->rules = h;

  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  AX_ASSERT(f);
  const AxSolverOpts *s = &v->solver;
  fprintf(f, "solver %s, kind %d, cross-check %s, binary %s\n", solver, (int)s->kind,
          s->cross_check ? "yes" : "no", s->binary ? s->binary : "cvc5");
  ax_cache_write_settings(f, v);
  fprintf(f, "require both %s\n", require_both ? "yes" : "no");
  fprintf(f, "numbers %s", v->ieee.on ? "ieee" : "real");
  if (v->ieee.on)
    fprintf(f, ", formats %#x, max rank %d, max size %d", v->ieee.formats, v->ieee.max_rank,
            v->ieee.max_size);
  fputc('\n', f);
  fclose(f);
  out->options = ax_cache_hash(AX_CACHE_HASH_START, text, len);
  free(text);
  return ax_cache_executable(&out->axle);
}

/* The checksum of a line: its unformatted print without "check" (cJSON prints a parsed
 * line exactly as it printed the line it was made from: members in order, numbers in
 * their shortest exact form, strings escaped alike). */
static void line_sum(const cJSON *j, char out[17]) {
  char *s = cJSON_PrintUnformatted(j);
  AX_ASSERT(s);
  hex(out, ax_cache_hash(AX_CACHE_HASH_START, s, strlen(s)));
  cJSON_free(s);
}

void ax_merge_stamp(cJSON *line, const AxMergeRun *run, const AxMergeShard *sh) {
  cJSON *o = cJSON_AddObjectToObject(line, "shard");
  cJSON_AddNumberToObject(o, "index", sh->index);
  cJSON_AddNumberToObject(o, "of", sh->of);
  cJSON_AddNumberToObject(o, "task", (double)sh->task);
  cJSON_AddNumberToObject(o, "tasks", (double)sh->tasks);
  cJSON_AddNumberToObject(o, "results", (double)sh->results);
  cJSON_AddBoolToObject(o, "contradicts", sh->contradicts);
  cJSON_AddBoolToObject(o, "require_both", sh->require_both);
  cJSON_AddStringToObject(o, "text", sh->text);
  cJSON *id = cJSON_AddObjectToObject(o, "run");
  char h[17];
  hex(h, run->rules);
  cJSON_AddStringToObject(id, "rules", h);
  hex(h, run->options);
  cJSON_AddStringToObject(id, "options", h);
  hex(h, run->axle);
  cJSON_AddStringToObject(id, "axle", h);
  line_sum(line, h);
  cJSON_AddStringToObject(o, "check", h);
}

/* --- Reading ----------------------------------------------------------------------------- */

static bool is_whole(const cJSON *v, double lo, double hi) {
  return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
         v->valuedouble == (double)(long long)v->valuedouble;
}

static const cJSON *field(const cJSON *o, const char *name) {
  return cJSON_GetObjectItemCaseSensitive(o, name);
}

static const char *text(const cJSON *o, const char *name) {
  const cJSON *v = field(o, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool flag(const cJSON *o, const char *name) { return cJSON_IsTrue(field(o, name)); }

/* A digest as written: 16 lowercase hex digits. */
static bool is_digest(const cJSON *v) {
  if (!cJSON_IsString(v) || strlen(v->valuestring) != 16) return false;
  for (const char *p = v->valuestring; *p; p++)
    if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f')) return false;
  return true;
}

/* Whether j has the fields a result line of `axle verify --format json` always has, of the
 * right kinds; else *what names the first that is wrong. */
static bool result_fields(const cJSON *j, const char **what) {
  static const char *const strings[] = {"rule", "file", "verdict", "expected", "solver", "numbers"};
  static const char *const bools[] = {"met", "cached", "vacuous", "trivial", "single_solver"};
  static const char *const numbers[] = {"line", "instances", "queries", "time_ms"};
  for (size_t i = 0; i < AX_COUNTOF(strings); i++)
    if (!cJSON_IsString(field(j, strings[i]))) return *what = strings[i], false;
  for (size_t i = 0; i < AX_COUNTOF(bools); i++)
    if (!cJSON_IsBool(field(j, bools[i]))) return *what = bools[i], false;
  for (size_t i = 0; i < AX_COUNTOF(numbers); i++)
    if (!cJSON_IsNumber(field(j, numbers[i]))) return *what = numbers[i], false;
  const cJSON *t = field(j, "type");
  if (!cJSON_IsString(t) && !cJSON_IsNull(t)) return *what = "type", false;
  const cJSON *r = field(j, "reason");
  if (r && !cJSON_IsString(r) && !cJSON_IsNull(r)) return *what = "reason", false;
  if (strcmp(text(j, "numbers"), "real") != 0 && strcmp(text(j, "numbers"), "ieee") != 0)
    return *what = "numbers", false;
  bool known = false;
  for (int k = AX_VERIFIED; k <= AX_HOLDS_BOUNDED; k++)
    known = known || strcmp(text(j, "verdict"), ax_verdict_name((AxVerdict)k)) == 0;
  if (!known) return *what = "verdict", false;
  known = false;
  for (int k = AX_EXPECT_VALID; k <= AX_EXPECT_TRIVIAL; k++)
    known = known || strcmp(text(j, "expected"), ax_report_expect_name((AxExpect)k)) == 0;
  if (!known) return *what = "expected", false;
  return true;
}

/* The facts met and contradicts follow from (report.h), as the line states them. */
static AxReportFacts facts(const cJSON *j, const cJSON *sh) {
  AxReportFacts f = {.vacuous = flag(j, "vacuous"), .trivial = flag(j, "trivial"),
                     .single_refused = flag(j, "single_solver") && flag(sh, "require_both")};
  for (int k = AX_VERIFIED; k <= AX_HOLDS_BOUNDED; k++)
    if (strcmp(text(j, "verdict"), ax_verdict_name((AxVerdict)k)) == 0) f.verdict = (AxVerdict)k;
  for (int k = AX_EXPECT_VALID; k <= AX_EXPECT_TRIVIAL; k++)
    if (strcmp(text(j, "expected"), ax_report_expect_name((AxExpect)k)) == 0) f.expect = (AxExpect)k;
  return f;
}

static bool shard_fields(const cJSON *sh) {
  const cJSON *id = field(sh, "run");
  return cJSON_IsObject(sh) && is_whole(field(sh, "of"), 1, 4096) &&
         is_whole(field(sh, "index"), 1, field(sh, "of")->valuedouble) &&
         is_whole(field(sh, "tasks"), 1, 1e7) &&
         is_whole(field(sh, "task"), 0, field(sh, "tasks")->valuedouble - 1) &&
         is_whole(field(sh, "results"), 1, field(sh, "tasks")->valuedouble) &&
         cJSON_IsBool(field(sh, "contradicts")) && cJSON_IsBool(field(sh, "require_both")) &&
         cJSON_IsString(field(sh, "text")) && cJSON_IsObject(id) &&
         is_digest(field(id, "rules")) && is_digest(field(id, "options")) &&
         is_digest(field(id, "axle")) && is_digest(field(sh, "check"));
}

/* Whether the line's checksum matches it: j without "shard", sh with it. */
static bool sealed(cJSON *j, cJSON *sh) {
  cJSON *sum = cJSON_DetachItemFromObjectCaseSensitive(sh, "check");
  cJSON_AddItemToObject(j, "shard", sh);
  char want[17];
  line_sum(j, want);
  cJSON_DetachItemViaPointer(j, sh);
  bool ok = strcmp(sum->valuestring, want) == 0;
  cJSON_AddItemToObject(sh, "check", sum);
  return ok;
}

/* What in the line's run identity differs from the first line's, as a phrase; NULL when
 * nothing does. */
static const char *other_run(const Run *r, const cJSON *id) {
  if (strcmp(r->axle, text(id, "axle")) != 0) return "it was written by another axle executable";
  if (strcmp(r->rules, text(id, "rules")) != 0)
    return "it ran on other rules (the rule files, their contents or --rule differ)";
  if (strcmp(r->options, text(id, "options")) != 0)
    return "it ran with other options (of those that can change a verdict: --solver, --timeout, "
           "--require-both, ...)";
  return NULL;
}

/* One line of a report into m; false with err set. complete: the line ended in a newline
 * (a report's last line without one may be cut short). */
static bool take(AxMerge *m, const char *path, int lineno, const char *s, bool complete,
                 char *err, size_t cap) {
  cJSON *j = cJSON_Parse(s);
  const char *what = NULL;
  if (!cJSON_IsObject(j)) {
    snprintf(err, cap, "%s:%d: not a JSON object (a report of axle verify --shard K/N --format "
             "json has one result a line)%s", path, lineno,
             complete ? "" : "; the report ends in the middle of this line: it was cut short");
    cJSON_Delete(j);
    return false;
  }
  cJSON *sh = cJSON_DetachItemFromObjectCaseSensitive(j, "shard");
  bool ok = false;
  if (!sh) {
    snprintf(err, cap, "%s:%d: no \"shard\" object: not a report of axle verify --shard K/N "
             "--format json", path, lineno);
  } else if (!shard_fields(sh)) {
    snprintf(err, cap, "%s:%d: a malformed \"shard\" object (it needs whole numbers 1 <= index "
             "<= of, 0 <= task < tasks, 1 <= results <= tasks, contradicts, require_both, text, "
             "the run's digests and the check)", path, lineno);
  } else if (!result_fields(j, &what)) {
    snprintf(err, cap, "%s:%d: the field \"%s\" is missing or malformed", path, lineno, what);
  } else if (strcmp(text(j, "numbers"), "ieee") == 0) {
    snprintf(err, cap, "%s:%d: a result of --numbers ieee: a bounded check cannot gate (use axle "
             "verify)", path, lineno);
  } else {
    ok = true;
  }
  AxReportFacts f = ok ? facts(j, sh) : (AxReportFacts){0};
  bool met = ok && ax_report_facts_met(&f), contradicts = ok && ax_report_facts_contradict(&f);
  if (ok && (flag(j, "met") != met || flag(sh, "contradicts") != contradicts)) {
    bool of_met = flag(j, "met") != met;
    snprintf(err, cap, "%s:%d: \"%s\" is %s, but verdict %s%s with expected %s makes it %s: the "
             "line was edited", path, lineno, of_met ? "met" : "contradicts",
             (of_met ? flag(j, "met") : flag(sh, "contradicts")) ? "true" : "false",
             text(j, "verdict"), f.vacuous ? " (vacuous)" : f.trivial ? " (trivial)"
                                 : f.single_refused ? " (one solver, --require-both)" : "",
             text(j, "expected"), (of_met ? met : contradicts) ? "true" : "false");
    ok = false;
  } else if (ok && !sealed(j, sh)) {
    snprintf(err, cap, "%s:%d: the line does not match its checksum: it was edited or damaged "
             "after axle wrote it", path, lineno);
    ok = false;
  }
  if (ok) {
    int of = (int)field(sh, "of")->valuedouble, index = (int)field(sh, "index")->valuedouble;
    size_t tasks = (size_t)field(sh, "tasks")->valuedouble;
    size_t task = (size_t)field(sh, "task")->valuedouble;
    size_t results = (size_t)field(sh, "results")->valuedouble;
    const cJSON *id = field(sh, "run");
    const char *other;
    if (!m->items) {
      m->shards = of;
      m->n = tasks;
      m->items = ax_xcalloc(tasks, sizeof *m->items);
      m->shard = ax_xcalloc((size_t)of + 1, sizeof *m->shard);
      snprintf(m->run.rules, sizeof m->run.rules, "%s", text(id, "rules"));
      snprintf(m->run.options, sizeof m->run.options, "%s", text(id, "options"));
      snprintf(m->run.axle, sizeof m->run.axle, "%s", text(id, "axle"));
      m->run.from = path;
      m->run.line = lineno;
    }
    ok = false;
    Shard *k = of == m->shards ? &m->shard[index] : NULL;
    if ((other = other_run(&m->run, id))) {
      snprintf(err, cap, "%s:%d: not a shard of the run of %s:%d: %s", path, lineno, m->run.from,
               m->run.line, other);
    } else if (!k) {
      snprintf(err, cap, "%s:%d: not a shard of the run of %s:%d: it is shard %d of %d, that run "
               "was split %d ways", path, lineno, m->run.from, m->run.line, index, of, m->shards);
    } else if (tasks != m->n) {
      snprintf(err, cap, "%s:%d: not a shard of the run of %s:%d: it is of a run of %zu results, "
               "that run has %zu", path, lineno, m->run.from, m->run.line, tasks, m->n);
    } else if (k->from && k->from != path) {
      snprintf(err, cap, "%s:%d: shard %d/%d again: it is in %s already (line %d): a shard given twice",
               path, lineno, index, of, k->from, k->line);
    } else if (k->from && k->results != results) {
      snprintf(err, cap, "%s:%d: shard %d/%d of %zu results, but line %d says %zu: not one shard's "
               "report", path, lineno, index, of, results, k->line, k->results);
    } else if (m->items[task].j) {
      snprintf(err, cap, "%s:%d: result %zu of the run is also at %s:%d (a shard given twice?)",
               path, lineno, task + 1, m->items[task].from, m->items[task].line);
    } else {
      ok = true;
      if (!k->from) *k = (Shard){.from = path, .line = lineno, .results = results};
      k->got++;
      m->items[task] = (Item){.j = j, .from = path, .line = lineno, .met = met,
                              .contradicts = contradicts, .text = ax_xstrdup(text(sh, "text"))};
      j = NULL;
    }
  }
  cJSON_Delete(sh);
  cJSON_Delete(j);
  return ok;
}

/* After every report is read: each shard whole, every result there. */
static bool complete(const AxMerge *m, char *err, size_t cap) {
  for (int k = 1; k <= m->shards; k++) {
    const Shard *s = &m->shard[k];
    if (s->from && s->got != s->results) {
      snprintf(err, cap, "%s: shard %d/%d has %zu of its %zu results: the report was cut short or "
               "lost lines", s->from, k, m->shards, s->got, s->results);
      return false;
    }
  }
  size_t missing = 0, first = 0;
  for (size_t i = m->n; i-- > 0;)
    if (!m->items[i].j) missing++, first = i;
  if (!missing) return true;
  char absent[256] = "";
  size_t len = 0;
  int nabsent = 0;
  for (int k = 1; k <= m->shards && len < sizeof absent - 16; k++)
    if (!m->shard[k].from)
      len += (size_t)snprintf(absent + len, sizeof absent - len, "%s%d", nabsent++ ? ", " : "", k);
  snprintf(err, cap, "%zu of the run's %zu results are in no report, the first is result %zu: "
           "shard%s %s of %d %s missing", missing, m->n, first + 1, nabsent == 1 ? "" : "s",
           absent, m->shards, nabsent == 1 ? "is" : "are");
  return false;
}

AxMerge *ax_merge_read(const char *const *paths, size_t n, char *err, size_t cap) {
  AxMerge *m = ax_xcalloc(1, sizeof *m);
  char *line = NULL;
  size_t len = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    FILE *f = fopen(paths[i], "r");
    if (!f) {
      snprintf(err, cap, "cannot read '%s': %s", paths[i], strerror(errno));
      ok = false;
      break;
    }
    int lineno = 0;
    ssize_t got;
    while (ok && (got = getline(&line, &len, f)) >= 0) {
      lineno++;
      if (strspn(line, " \t\r\n") == (size_t)got) continue;   /* a blank line */
      ok = take(m, paths[i], lineno, line, got > 0 && line[got - 1] == '\n', err, cap);
    }
    if (ok && ferror(f)) {
      snprintf(err, cap, "cannot read '%s': %s", paths[i], strerror(errno));
      ok = false;
    }
    fclose(f);
  }
  free(line);
  if (ok && !m->items) {
    snprintf(err, cap, "the reports hold no result (every shard empty?)");
    ok = false;
  }
  ok = ok && complete(m, err, cap);
  if (!ok) {
    ax_merge_free(m);
    return NULL;
  }
  return m;
}

void ax_merge_free(AxMerge *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) {
    cJSON_Delete(m->items[i].j);
    free(m->items[i].text);
  }
  free(m->items);
  free(m->shard);
  free(m);
}

void ax_merge_totals(const AxMerge *m, AxMergeTotals *t) {
  memset(t, 0, sizeof *t);
  t->results = m->n;
  for (size_t i = 0; i < m->n; i++) {
    const cJSON *j = m->items[i].j;
    const char *v = text(j, "verdict");
    bool trivial = flag(j, "trivial");
    t->verified += strcmp(v, "verified") == 0 && !trivial;
    t->invalid += strcmp(v, "invalid") == 0 || strcmp(v, "invalid-hint") == 0;
    t->unknown += strcmp(v, "unknown") == 0;
    t->errors += strcmp(v, "error") == 0;
    t->bounded += strcmp(v, "holds-bounded") == 0;
    t->trivial += trivial;
    t->cached += flag(j, "cached");
    t->met += m->items[i].met;
    t->contradicted += m->items[i].contradicts;
  }
}

void ax_merge_json(FILE *out, const AxMerge *m) {
  for (size_t i = 0; i < m->n; i++) {
    char *s = cJSON_PrintUnformatted(m->items[i].j);
    fprintf(out, "%s\n", s);
    cJSON_free(s);
  }
}

/* The verdict as the text form writes it: "INVALID-HINT". */
static void upper(FILE *out, const char *s) {
  for (; *s; s++) fputc(toupper((unsigned char)*s), out);
}

/* "RULE [TYPE]" or "RULE". */
static void title(FILE *out, const cJSON *j) {
  fputs(text(j, "rule"), out);
  if (text(j, "type")) fprintf(out, " [%s]", text(j, "type"));
}

/* The result in text form, as `axle verify` printed it. */
static void result_text(FILE *out, const Item *it) { fputs(it->text, out); }

void ax_merge_text(FILE *out, const AxMerge *m, bool unmet_only) {
  for (size_t i = 0; i < m->n; i++)
    if (!unmet_only || !m->items[i].met) result_text(out, &m->items[i]);
}

/* A string the caller frees, written by f. */
static char *printed(void (*f)(FILE *, const Item *), const Item *it) {
  char *s = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&s, &len);
  AX_ASSERT(mem);
  f(mem, it);
  fclose(mem);
  return s;
}

static void name_of(FILE *out, const Item *it) { title(out, it->j); }

/* The failure's or error's message, as ax_report_junit words it. */
static void message_of(FILE *out, const Item *it) {
  const cJSON *j = it->j;
  const char *v = text(j, "verdict");
  upper(out, v);
  fprintf(out, ", expected %s", text(j, "expected"));
  if (flag(j, "vacuous")) fputs(" (vacuous)", out);
  else if (flag(j, "trivial")) fputs(" (trivial)", out);
  else if (!it->met && !it->contradicts && strcmp(v, "verified") == 0 && flag(j, "single_solver"))
    fputs(" (one solver only)", out);
  if (text(j, "reason") && !it->contradicts) fprintf(out, ": %s", text(j, "reason"));
}

void ax_merge_junit(FILE *out, const AxMerge *m, const char *name) {
  AxReportCase *c = ax_xcalloc(m->n + 1, sizeof *c);
  char **own = ax_xcalloc(3 * m->n + 1, sizeof *own);
  double seconds = 0;
  for (size_t i = 0; i < m->n; i++) {
    const Item *it = &m->items[i];
    own[3 * i] = printed(name_of, it);
    own[3 * i + 1] = printed(message_of, it);
    own[3 * i + 2] = printed(result_text, it);
    double ms = field(it->j, "time_ms")->valuedouble;
    seconds += ms / 1000;
    c[i] = (AxReportCase){.path = text(it->j, "file"), .name = own[3 * i],
                          .line = (int)field(it->j, "line")->valuedouble, .time_ms = ms,
                          .outcome = it->contradicts ? AX_OUTCOME_CONTRADICTS
                                     : it->met       ? AX_OUTCOME_MET : AX_OUTCOME_NOT_MET,
                          .verdict = text(it->j, "verdict"), .message = own[3 * i + 1],
                          .text = own[3 * i + 2]};
  }
  ax_report_junit_cases(out, c, m->n, name, m->n ? text(m->items[0].j, "solver") : "", seconds);
  for (size_t i = 0; i < 3 * m->n; i++) free(own[i]);
  free(own);
  free(c);
}
