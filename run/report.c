/* report.c — results as text, JSON, records and JUnit XML; see report.h. */
#include "run/report.h"

#include <string.h>

#include "semantics/float.h"

AxReportFacts ax_report_facts(const AxResult *r) {
  return (AxReportFacts){.verdict = r->verdict, .expect = r->rule->expect, .vacuous = r->vacuous,
                         .trivial = r->trivial, .single_refused = r->single && r->strict};
}

bool ax_report_facts_met(const AxReportFacts *f) {
  /* --numbers ieee: the strongest positive verdict a bounded check gives meets `expect
   * valid` (the summary says it is no proof) */
  if (f->verdict == AX_HOLDS_BOUNDED)
    return f->expect != AX_EXPECT_INVALID && f->expect != AX_EXPECT_INVALID_HINT &&
           f->expect != AX_EXPECT_TRIVIAL;
  if (f->expect == AX_EXPECT_INVALID) return f->verdict == AX_INVALID;
  if (f->expect == AX_EXPECT_INVALID_HINT) return f->verdict == AX_INVALID_HINT;
  if (f->expect == AX_EXPECT_TRIVIAL) return f->verdict == AX_VERIFIED && f->trivial;
  return f->verdict == AX_VERIFIED && !f->vacuous && !f->trivial && !f->single_refused;
}

bool ax_report_facts_contradict(const AxReportFacts *f) {
  bool definite = f->verdict == AX_VERIFIED || f->verdict == AX_INVALID ||
                  f->verdict == AX_INVALID_HINT;
  return definite && !f->vacuous && !f->trivial && !f->single_refused && !ax_report_facts_met(f);
}

bool ax_report_met(const AxResult *r) {
  AxReportFacts f = ax_report_facts(r);
  return ax_report_facts_met(&f);
}

bool ax_report_contradicts(const AxResult *r) {
  AxReportFacts f = ax_report_facts(r);
  return ax_report_facts_contradict(&f);
}

const char *ax_report_verdict_upper(AxVerdict v) {
  static const char *const names[] = {
      [AX_VERIFIED] = "VERIFIED", [AX_INVALID] = "INVALID", [AX_INVALID_HINT] = "INVALID-HINT",
      [AX_UNKNOWN] = "UNKNOWN", [AX_ERROR] = "ERROR", [AX_HOLDS_BOUNDED] = "HOLDS-BOUNDED"};
  return names[v];
}

int ax_report_line(const AxResult *r) {
  int line, col;
  ax_source_linecol(r->rule->name.span.src, r->rule->name.span.start, &line, &col);
  return line;
}

const char *ax_report_expect_name(AxExpect e) {
  static const char *const names[] = {[AX_EXPECT_VALID] = "valid", [AX_EXPECT_INVALID] = "invalid",
                                      [AX_EXPECT_INVALID_HINT] = "invalid-hint",
                                      [AX_EXPECT_TRIVIAL] = "trivial"};
  return names[e];
}

static int fixed_line(const AxRClass *rc) {
  int line, col;
  ax_source_linecol(rc->singleton_at.src, rc->singleton_at.start, &line, &col);
  return line;
}

/* --- Text -------------------------------------------------------------------------------- */

const char *ax_report_type_name(const AxResult *r) {
  return r->ieee && r->has_type && r->type == AX_REAL ? ax_float_name(r->fmt) : ax_type_name(r->type);
}

void ax_report_text(FILE *out, const AxResult *r, const char *path) {
  fprintf(out, "%s:%d: %s", path, ax_report_line(r), r->rule->name.name);
  if (r->has_type) fprintf(out, " [%s]", ax_report_type_name(r));
  fprintf(out, "  %s", ax_report_verdict_upper(r->verdict));
  bool met = ax_report_met(r);
  if (r->ieee) {   /* a bounded check: its bounds go with every verdict */
    fprintf(out, " (%s, rank ≤ %d, size ≤ %d", ax_report_type_name(r),
            r->ieee_rank, r->ieee_size);
    if (r->verdict == AX_HOLDS_BOUNDED && r->confirmed_by)
      fprintf(out, "; %s%s", r->confirmed_by, r->single ? " only" : "");
    fputc(')', out);
  }
  if (r->verdict == AX_VERIFIED && r->confirmed_by)
    fprintf(out, " (%s%s)", r->confirmed_by, r->single ? " only" : "");
  if (r->rule->expect != AX_EXPECT_VALID)
    fprintf(out, " (expected %s%s)", r->rule->expect == AX_EXPECT_INVALID_HINT ? "invalid hint"
                                     : ax_report_expect_name(r->rule->expect), met ? "" : ": NOT MET");
  else if (!met)
    fprintf(out, " (expected valid: NOT MET)");
  if (r->nrclasses && r->instances && !r->ieee) {
    fprintf(out, "  bounds {");
    for (int i = 0; i < r->nrclasses; i++) {
      fprintf(out, "%s%s: %d", i ? ", " : "", r->rclass_names[i], r->bounds[i]);
      const AxRClass *rc = &r->rule->syms->rclasses[i];
      if (rc->singleton) fprintf(out, " (fixed: %s, line %d)", rc->singleton_why, fixed_line(rc));
    }
    fprintf(out, "}");
  }
  fprintf(out, "  %d instance%s, %d quer%s, %.0f ms%s\n", r->instances,
          r->instances == 1 ? "" : "s", r->queries, r->queries == 1 ? "y" : "ies", r->time_ms,
          r->cached ? " (cached)" : "");
  if (r->trivial)
    fprintf(out, "    WARNING: TRIVIAL — both sides are the same expression; the rule proves "
                 "nothing about a rewrite\n");
  if (r->partial && r->verdict == AX_VERIFIED)
    fprintf(out, "    note: confirmed by %s alone on some queries (the other solver could not "
                 "decide them)%s\n", r->confirmed_by ? r->confirmed_by : "one solver",
            r->strict ? "; --require-both refuses it" : "");
  if (r->vacuous)
    fprintf(out, "    WARNING: VACUOUS — the precondition admits no valid left-hand side at any "
                 "rank; the rule proves nothing\n");
  if (r->inferred_hint) fprintf(out, "    hint (inferred): %s\n", r->inferred_hint);
  if (r->reason && r->verdict != AX_VERIFIED && (!r->cex_text || r->verdict == AX_ERROR))
    fprintf(out, "    reason: %s\n", r->reason);
  if (r->cex_text) {
    for (const char *s = r->cex_text; *s;) {
      const char *nl = strchr(s, '\n');
      int n = nl ? (int)(nl - s) : (int)strlen(s);
      fprintf(out, "    %.*s\n", n, s);
      s += n + (nl ? 1 : 0);
    }
  }
}

/* --- JSON -------------------------------------------------------------------------------- */

cJSON *ax_report_json(const AxResult *r, const char *path, const char *solver) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "rule", r->rule->name.name);
  cJSON_AddStringToObject(o, "file", path);
  cJSON_AddNumberToObject(o, "line", ax_report_line(r));
  if (r->has_type) cJSON_AddStringToObject(o, "type", ax_report_type_name(r));
  else cJSON_AddNullToObject(o, "type");
  cJSON_AddStringToObject(o, "verdict", ax_verdict_name(r->verdict));
  cJSON_AddStringToObject(o, "expected", ax_report_expect_name(r->rule->expect));
  cJSON_AddStringToObject(o, "numbers", r->ieee ? "ieee" : "real");
  if (r->ieee) {
    cJSON *ie = cJSON_AddObjectToObject(o, "ieee");
    if (r->has_type) cJSON_AddStringToObject(ie, "format", ax_float_name(r->fmt));
    else cJSON_AddNullToObject(ie, "format");
    cJSON_AddNumberToObject(ie, "max_rank", r->ieee_rank);
    cJSON_AddNumberToObject(ie, "max_size", r->ieee_size);
    cJSON_AddStringToObject(ie, "rounding", "nearest-even");
    cJSON_AddStringToObject(ie, "sum_order", "left-to-right, row-major, from the first summand");
  } else {
    cJSON_AddNullToObject(o, "ieee");
  }
  cJSON_AddBoolToObject(o, "met", ax_report_met(r));
  cJSON *b = cJSON_AddObjectToObject(o, "bounds");
  for (int i = 0; i < r->nrclasses; i++)
    cJSON_AddNumberToObject(b, r->rclass_names[i], r->bounds[i]);
  /* classes a concat or iota axis fixes at rank 1: the rule is proved at that rank only */
  cJSON *fx = cJSON_AddObjectToObject(o, "fixed_rank");
  for (int i = 0; i < r->nrclasses; i++) {
    const AxRClass *rc = &r->rule->syms->rclasses[i];
    if (!rc->singleton) continue;
    cJSON *e = cJSON_AddObjectToObject(fx, r->rclass_names[i]);
    cJSON_AddStringToObject(e, "why", rc->singleton_why);
    cJSON_AddNumberToObject(e, "line", fixed_line(rc));
  }
  cJSON_AddNumberToObject(o, "instances", r->instances);
  cJSON_AddNumberToObject(o, "queries", r->queries);
  cJSON_AddNumberToObject(o, "time_ms", (double)(long)(r->time_ms * 10 + 0.5) / 10);
  cJSON_AddStringToObject(o, "solver", solver);
  cJSON_AddBoolToObject(o, "cached", r->cached);
  cJSON_AddBoolToObject(o, "vacuous", r->vacuous);
  cJSON_AddBoolToObject(o, "trivial", r->trivial);
  cJSON *cb = cJSON_AddArrayToObject(o, "confirmed_by");
  for (const char *p = r->verdict == AX_VERIFIED || r->verdict == AX_HOLDS_BOUNDED ? r->confirmed_by : NULL;
       p && *p;) {
    const char *plus = strchr(p, '+');
    size_t n = plus ? (size_t)(plus - p) : strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), p);
    cJSON_AddItemToArray(cb, cJSON_CreateString(name));
    p += n + (plus ? 1 : 0);
  }
  cJSON_AddBoolToObject(o, "single_solver", r->single);
  if (r->reason) cJSON_AddStringToObject(o, "reason", r->reason);
  else cJSON_AddNullToObject(o, "reason");
  cJSON *cex = r->cex_json ? cJSON_Parse(r->cex_json) : NULL;
  if (cex) cJSON_AddItemToObject(o, "counterexample", cex);
  else cJSON_AddNullToObject(o, "counterexample");
  if (r->inferred_hint) cJSON_AddStringToObject(o, "inferred_hint", r->inferred_hint);
  else cJSON_AddNullToObject(o, "inferred_hint");
  return o;
}

/* --- Records ----------------------------------------------------------------------------- */

static void add_text(cJSON *o, const char *name, const char *s) {
  if (s) cJSON_AddStringToObject(o, name, s);
  else cJSON_AddNullToObject(o, name);
}

char *ax_report_record(const AxResult *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "verdict", ax_verdict_name(r->verdict));
  cJSON *b = cJSON_AddArrayToObject(o, "bounds");
  for (int i = 0; r->bounds && i < r->nrclasses; i++)
    cJSON_AddItemToArray(b, cJSON_CreateNumber(r->bounds[i]));
  cJSON_AddNumberToObject(o, "instances", r->instances);
  cJSON_AddNumberToObject(o, "queries", r->queries);
  cJSON_AddNumberToObject(o, "time_ms", r->time_ms);
  cJSON_AddBoolToObject(o, "vacuous", r->vacuous);
  cJSON_AddBoolToObject(o, "trivial", r->trivial);
  cJSON_AddBoolToObject(o, "single", r->single);
  cJSON_AddBoolToObject(o, "partial", r->partial);
  add_text(o, "confirmed_by", r->confirmed_by);
  cJSON_AddBoolToObject(o, "disagreement", r->disagreement);
  add_text(o, "reason", r->reason);
  add_text(o, "cex_text", r->cex_text);
  add_text(o, "cex_json", r->cex_json);
  add_text(o, "inferred_hint", r->inferred_hint);
  if (r->ieee) {
    cJSON_AddNumberToObject(o, "ieee_fmt", r->fmt);
    cJSON_AddNumberToObject(o, "ieee_rank", r->ieee_rank);
    cJSON_AddNumberToObject(o, "ieee_size", r->ieee_size);
    cJSON_AddBoolToObject(o, "ieee_typed", r->has_type);   /* a real rule without T too */
  }
  char *cj = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  char *s = ax_xstrdup(cj);
  cJSON_free(cj);
  return s;
}

/* A non-negative integer field that fits an int. */
static bool get_count(const cJSON *o, const char *name, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e9) ||
      v->valuedouble != (double)(long long)v->valuedouble)
    return false;
  *out = (int)v->valuedouble;
  return true;
}

static bool get_bool(const cJSON *o, const char *name, bool *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsBool(v)) return false;
  *out = cJSON_IsTrue(v);
  return true;
}

/* A string or null field: *out owned, or NULL for null. */
static bool get_text(const cJSON *o, const char *name, char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (cJSON_IsNull(v)) return true;
  if (!cJSON_IsString(v)) return false;
  *out = ax_xstrdup(v->valuestring);
  return true;
}

/* get_text for a field records gained later: absent reads as null, so that records
 * written before it (cache entries of an older axle) still read. */
static bool get_later_text(const cJSON *o, const char *name, char **out) {
  return !cJSON_GetObjectItemCaseSensitive(o, name) || get_text(o, name, out);
}

static bool read_record(const cJSON *o, const AxBlock *rule, AxResult *out) {
  if (!cJSON_IsObject(o)) return false;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdict");
  if (!cJSON_IsString(v)) return false;
  bool known = false;
  for (int k = AX_VERIFIED; k <= AX_HOLDS_BOUNDED; k++)
    if (strcmp(v->valuestring, ax_verdict_name((AxVerdict)k)) == 0) {
      out->verdict = (AxVerdict)k;
      known = true;
    }
  if (!known) return false;

  const AxRuleSyms *s = rule->syms;
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bounds");
  if (!cJSON_IsArray(b)) return false;
  int nb = cJSON_GetArraySize(b);
  if (nb != 0 && (size_t)nb != s->nrclasses) return false;
  out->nrclasses = nb;
  out->rclass_names = ax_xcalloc((size_t)nb + 1, sizeof(char *));
  out->bounds = ax_xcalloc((size_t)nb + 1, sizeof(int));
  for (int i = 0; i < nb; i++) {
    const cJSON *k = cJSON_GetArrayItem(b, i);
    if (!cJSON_IsNumber(k) || !(k->valuedouble >= 0 && k->valuedouble <= 1e6) ||
        k->valuedouble != (double)(long long)k->valuedouble)
      return false;
    out->bounds[i] = (int)k->valuedouble;
    out->rclass_names[i] = s->rclasses[i].name;
  }
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "time_ms");
  if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0 && t->valuedouble < 1e12)) return false;
  out->time_ms = t->valuedouble;
  if (!get_count(o, "instances", &out->instances) || !get_count(o, "queries", &out->queries) ||
      !get_bool(o, "vacuous", &out->vacuous) ||
      !get_bool(o, "disagreement", &out->disagreement) ||
      !get_text(o, "reason", &out->reason) || !get_text(o, "cex_text", &out->cex_text) ||
      !get_text(o, "cex_json", &out->cex_json) ||
      !get_later_text(o, "inferred_hint", &out->inferred_hint) ||
      !get_later_text(o, "confirmed_by", &out->confirmed_by))
    return false;
  if (cJSON_GetObjectItemCaseSensitive(o, "trivial") && !get_bool(o, "trivial", &out->trivial)) return false;
  if (cJSON_GetObjectItemCaseSensitive(o, "single") && !get_bool(o, "single", &out->single)) return false;
  if (cJSON_GetObjectItemCaseSensitive(o, "partial") && !get_bool(o, "partial", &out->partial)) return false;
  if (out->trivial && out->verdict != AX_VERIFIED) return false;
  /* IEEE mode: the format and bounds, present together or not at all */
  if (cJSON_GetObjectItemCaseSensitive(o, "ieee_fmt")) {
    int fmt;
    out->ieee = true;
    if (!get_count(o, "ieee_fmt", &fmt) || !ax_term_sort_is_fp((AxSort)fmt) ||
        !get_count(o, "ieee_rank", &out->ieee_rank) || !get_count(o, "ieee_size", &out->ieee_size))
      return false;
    out->fmt = (AxSort)fmt;
    if (!get_bool(o, "ieee_typed", &out->has_type)) return false;
  }
  /* HOLDS_BOUNDED only in IEEE mode, VERIFIED only outside it */
  if (out->verdict == AX_HOLDS_BOUNDED && !out->ieee) return false;
  if (out->verdict == AX_VERIFIED && out->ieee) return false;
  /* an INVALID or INVALID-HINT verdict stands only on the counterexample or witness the
   * verifier replayed */
  if ((out->verdict == AX_INVALID || out->verdict == AX_INVALID_HINT) && (!out->cex_text || !out->cex_json))
    return false;
  if (out->cex_json) {
    cJSON *cex = cJSON_Parse(out->cex_json);
    bool ok = cJSON_IsObject(cex);
    cJSON_Delete(cex);
    if (!ok) return false;
  }
  /* a disagreement is never anything but an ERROR; a vacuous result is VERIFIED */
  if (out->disagreement && out->verdict != AX_ERROR) return false;
  if (out->vacuous && out->verdict != AX_VERIFIED) return false;
  return true;
}

bool ax_report_unrecord(const char *text, const AxBlock *rule, AxType t, AxResult *out) {
  memset(out, 0, sizeof *out);
  out->rule = rule;
  out->type = t;
  out->has_type = rule->tvar.name != NULL;
  cJSON *o = cJSON_Parse(text);
  bool ok = read_record(o, rule, out);
  cJSON_Delete(o);
  if (!ok) {
    ax_result_free(out);
    memset(out, 0, sizeof *out);
  }
  return ok;
}

/* --- JUnit XML --------------------------------------------------------------------------- */

/* s with the five XML specials escaped and the control characters XML 1.0 forbids dropped. */
static void xml(FILE *out, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&apos;", out); break;
    default:
      if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') fputc(c, out);
    }
  }
}

/* "rules/examples/a.axl" -> "rules.examples.a": what JUnit readers show as a class. */
static void classname(FILE *out, const char *path) {
  const char *end = path + strlen(path);
  if (end - path > 4 && strcmp(end - 4, ".axl") == 0) end -= 4;
  for (const char *p = path; p < end; p++) {
    if (*p == '/') fputc('.', out);
    else if (*p == '&' || *p == '<' || *p == '>' || *p == '"' || *p == '\'') fputc('_', out);
    else if ((unsigned char)*p >= 0x20) fputc(*p, out);
  }
}

void ax_report_junit_cases(FILE *out, const AxReportCase *c, size_t n, const char *name,
                           const char *solver, double seconds) {
  int failures = 0, errors = 0;
  for (size_t i = 0; i < n; i++) {
    failures += c[i].outcome == AX_OUTCOME_CONTRADICTS;
    errors += c[i].outcome == AX_OUTCOME_NOT_MET;
  }
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
  xml(out, name);
  fprintf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", n, failures,
          errors, seconds);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int f = 0, e = 0;
    double t = 0;
    for (; j < n && strcmp(c[j].path, c[i].path) == 0; j++) {
      f += c[j].outcome == AX_OUTCOME_CONTRADICTS;
      e += c[j].outcome == AX_OUTCOME_NOT_MET;
      t += c[j].time_ms / 1000;
    }
    fputs("  <testsuite name=\"", out);
    xml(out, c[i].path);
    fprintf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
            j - i, f, e, t);
    fputs("    <properties><property name=\"solver\" value=\"", out);
    xml(out, solver);
    fputs("\"/></properties>\n", out);
    for (; i < j; i++) {
      fputs("    <testcase classname=\"", out);
      classname(out, c[i].path);
      fputs("\" name=\"", out);
      xml(out, c[i].name);
      fputs("\" file=\"", out);
      xml(out, c[i].path);
      fprintf(out, "\" line=\"%d\" time=\"%.3f\"", c[i].line, c[i].time_ms / 1000);
      const char *tag = c[i].outcome == AX_OUTCOME_CONTRADICTS ? "failure"
                        : c[i].outcome == AX_OUTCOME_NOT_MET   ? "error" : NULL;
      if (tag) {
        fprintf(out, ">\n      <%s type=\"%s\" message=\"", tag, c[i].verdict);
        xml(out, c[i].message);
        fputs("\">", out);
        xml(out, c[i].text);
        fprintf(out, "</%s>\n", tag);
        fputs("    </testcase>\n", out);
      } else {
        fputs(">\n      <system-out>", out);
        xml(out, c[i].text);
        fputs("</system-out>\n    </testcase>\n", out);
      }
    }
    fputs("  </testsuite>\n", out);
  }
  fputs("</testsuites>\n", out);
}

AxOutcome ax_report_outcome(const AxResult *r) {
  return ax_report_contradicts(r) ? AX_OUTCOME_CONTRADICTS
         : ax_report_met(r)       ? AX_OUTCOME_MET : AX_OUTCOME_NOT_MET;
}

void ax_report_junit(FILE *out, const AxReportItem *items, size_t n, const char *name,
                     const char *solver, double seconds) {
  AxReportCase *c = ax_xcalloc(n + 1, sizeof *c);
  char **own = ax_xcalloc(3 * n + 1, sizeof *own);   /* name, message, text of each */
  for (size_t i = 0; i < n; i++) {
    const AxResult *r = items[i].r;
    size_t len = 0;
    FILE *m = open_memstream(&own[3 * i], &len);
    AX_ASSERT(m);
    fputs(r->rule->name.name, m);
    if (r->has_type) fprintf(m, " [%s]", ax_report_type_name(r));
    fclose(m);
    m = open_memstream(&own[3 * i + 2], &len);
    AX_ASSERT(m);
    ax_report_text(m, r, items[i].path);
    fclose(m);
    AxOutcome oc = ax_report_outcome(r);
    char message[512];
    snprintf(message, sizeof message, "%s, expected %s%s%s",
             ax_report_verdict_upper(r->verdict), ax_report_expect_name(r->rule->expect),
             r->vacuous ? " (vacuous)" : r->trivial ? " (trivial)"
             : r->single && r->strict ? " (one solver only)" : "",
             r->reason && oc != AX_OUTCOME_CONTRADICTS ? ": " : "");
    m = open_memstream(&own[3 * i + 1], &len);
    AX_ASSERT(m);
    fputs(message, m);
    if (r->reason && oc != AX_OUTCOME_CONTRADICTS) fputs(r->reason, m);
    fclose(m);
    c[i] = (AxReportCase){.path = items[i].path, .name = own[3 * i], .line = ax_report_line(r),
                          .time_ms = r->time_ms, .outcome = oc,
                          .verdict = ax_verdict_name(r->verdict), .message = own[3 * i + 1],
                          .text = own[3 * i + 2]};
  }
  ax_report_junit_cases(out, c, n, name, solver, seconds);
  for (size_t i = 0; i < 3 * n; i++) free(own[i]);
  free(own);
  free(c);
}
