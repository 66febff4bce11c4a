/* merge.c — shards' JSON reports joined; see merge.h. */
#include "run/merge.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "run/report.h"

typedef struct Item {
  cJSON *j;            /* the line, "shard" removed */
  const char *from;    /* the report it came from (borrowed path) */
  int line;
  bool met, contradicts;
  char *text;          /* the shard's "text", owned */
} Item;

struct AxMerge {
  Item *items;         /* by task: items[i].j NULL until filled */
  size_t n;            /* T */
  int shards;          /* N */
};

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

/* Whether j has the fields a result line of `axle verify --format json` always has, of the
 * right kinds; else *what names the first that is wrong. */
static bool result_fields(const cJSON *j, const char **what) {
  static const char *const strings[] = {"rule", "file", "verdict", "expected", "solver"};
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
  const char *v = text(j, "verdict");
  for (int k = AX_VERIFIED; k <= AX_HOLDS_BOUNDED; k++)
    if (strcmp(v, ax_verdict_name((AxVerdict)k)) == 0) return true;
  *what = "verdict";
  return false;
}

/* One line of a report into m; false with err set. */
static bool take(AxMerge *m, const char *path, int lineno, const char *s, char *err, size_t cap) {
  cJSON *j = cJSON_Parse(s);
  const char *what = NULL;
  if (!cJSON_IsObject(j)) {
    snprintf(err, cap, "%s:%d: not a JSON object (a report of axle verify --shard K/N --format "
             "json has one result a line)", path, lineno);
    cJSON_Delete(j);
    return false;
  }
  cJSON *sh = cJSON_DetachItemFromObjectCaseSensitive(j, "shard");
  if (!sh) {
    snprintf(err, cap, "%s:%d: no \"shard\" object: not a report of axle verify --shard K/N "
             "--format json", path, lineno);
    cJSON_Delete(j);
    return false;
  }
  bool ok = cJSON_IsObject(sh) && is_whole(field(sh, "of"), 1, 4096) &&
            is_whole(field(sh, "index"), 1, field(sh, "of") ? field(sh, "of")->valuedouble : 0) &&
            is_whole(field(sh, "tasks"), 1, 1e7) &&
            is_whole(field(sh, "task"), 0, field(sh, "tasks")->valuedouble - 1) &&
            cJSON_IsBool(field(sh, "contradicts")) && cJSON_IsString(field(sh, "text"));
  if (!ok) {
    snprintf(err, cap, "%s:%d: a malformed \"shard\" object (it needs whole numbers 1 <= index "
             "<= of, 0 <= task < tasks, contradicts and text)", path, lineno);
  } else if (!result_fields(j, &what)) {
    snprintf(err, cap, "%s:%d: the field \"%s\" is missing or malformed", path, lineno, what);
    ok = false;
  }
  if (ok) {
    int of = (int)field(sh, "of")->valuedouble, index = (int)field(sh, "index")->valuedouble;
    size_t tasks = (size_t)field(sh, "tasks")->valuedouble;
    size_t task = (size_t)field(sh, "task")->valuedouble;
    if (!m->items) {
      m->shards = of;
      m->n = tasks;
      m->items = ax_xcalloc(tasks, sizeof *m->items);
    }
    if (of != m->shards || tasks != m->n) {
      snprintf(err, cap, "%s:%d: shard %d/%d of a run of %zu results, but the reports before "
               "it are shards of %d of a run of %zu: not the shards of one run", path, lineno,
               index, of, tasks, m->shards, m->n);
      ok = false;
    } else if (m->items[task].j) {
      snprintf(err, cap, "%s:%d: result %zu of the run is also at %s:%d (a shard given twice?)",
               path, lineno, task + 1, m->items[task].from, m->items[task].line);
      ok = false;
    } else {
      m->items[task] = (Item){.j = j, .from = path, .line = lineno, .met = flag(j, "met"),
                              .contradicts = flag(sh, "contradicts"),
                              .text = ax_xstrdup(text(sh, "text"))};
      j = NULL;
    }
  }
  cJSON_Delete(sh);
  cJSON_Delete(j);
  return ok;
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
      ok = take(m, paths[i], lineno, line, err, cap);
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
  for (size_t i = 0; ok && i < m->n; i++) {
    if (m->items[i].j) continue;
    size_t missing = 0;
    for (size_t k = i; k < m->n; k++) missing += !m->items[k].j;
    snprintf(err, cap, "%zu of the run's %zu results are in no report, the first is result %zu: "
             "a shard of the %d is missing", missing, m->n, i + 1, m->shards);
    ok = false;
  }
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
