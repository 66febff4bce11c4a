/* cmd_verify.c — `axle verify`: prove every rule of the files, report, set the exit status.
 *
 * Exit status (docs/cli.md): 0 every rule met its expectation; 1 some rule's verdict
 * contradicts its expectation (INVALID where valid was expected, VERIFIED where invalid
 * was); 2 otherwise some rule is UNKNOWN or in ERROR; 3 usage, unreadable file, syntax or
 * checker error (nothing is verified then). */
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/verify.h"

typedef enum { FMT_TEXT, FMT_JSON } Format;

typedef struct Opts {
  AxVerifyOpts v;
  const char *solver_name;
  const char *rule_glob;
  Format format;
} Opts;

static int usage(const char *msg) {
  if (msg) fprintf(stderr, "axle: error: verify: %s\n", msg);
  fprintf(msg ? stderr : stdout,
          "usage: axle verify [options] FILE|DIR...\n"
          "  --solver z3|cvc5     solver back-end (default z3; cvc5 runs as a child process)\n"
          "  --timeout SECONDS    per query (default 10)\n"
          "  --rule GLOB          only rules whose name matches GLOB\n"
          "  --format text|json   report format (default text)\n"
          "  --jobs N             accepted; rules are verified one after another for now\n");
  return msg ? 3 : 0;
}

static bool met(const AxResult *r) {
  if (r->rule->expect == AX_EXPECT_INVALID) return r->verdict == AX_INVALID;
  if (r->rule->expect == AX_EXPECT_INVALID_HINT) return r->verdict == AX_INVALID_HINT;
  return r->verdict == AX_VERIFIED && !r->vacuous;
}

static void print_text(const AxResult *r, const char *path) {
  int line, col;
  ax_source_linecol(r->rule->name.span.src, r->rule->name.span.start, &line, &col);
  printf("%s:%d: %s", path, line, r->rule->name.name);
  if (r->has_type) printf(" [%s]", ax_type_name(r->type));
  const char *v = r->verdict == AX_VERIFIED ? "VERIFIED" : r->verdict == AX_INVALID ? "INVALID"
                : r->verdict == AX_INVALID_HINT ? "INVALID-HINT" : r->verdict == AX_UNKNOWN ? "UNKNOWN"
                : "ERROR";
  printf("  %s", v);
  if (r->rule->expect != AX_EXPECT_VALID)
    printf(" (expected invalid%s%s)", r->rule->expect == AX_EXPECT_INVALID_HINT ? " hint" : "",
           met(r) ? "" : ": NOT MET");
  else if (!met(r)) printf(" (expected valid: NOT MET)");
  if (r->nrclasses && r->instances) {
    printf("  bounds {");
    for (int i = 0; i < r->nrclasses; i++) printf("%s%s: %d", i ? ", " : "", r->rclass_names[i], r->bounds[i]);
    printf("}");
  }
  printf("  %d instance%s, %d quer%s, %.0f ms\n", r->instances, r->instances == 1 ? "" : "s", r->queries,
         r->queries == 1 ? "y" : "ies", r->time_ms);
  if (r->vacuous)
    printf("    WARNING: VACUOUS — the precondition admits no valid left-hand side at any rank; "
           "the rule proves nothing\n");
  if (r->reason && r->verdict != AX_VERIFIED && !r->cex_text) printf("    reason: %s\n", r->reason);
  if (r->cex_text) {
    for (const char *s = r->cex_text; *s;) {
      const char *nl = strchr(s, '\n');
      int n = nl ? (int)(nl - s) : (int)strlen(s);
      printf("    %.*s\n", n, s);
      s += n + (nl ? 1 : 0);
    }
  }
  fflush(stdout);
}

static void print_json(const AxResult *r, const char *path, const char *solver) {
  int line, col;
  ax_source_linecol(r->rule->name.span.src, r->rule->name.span.start, &line, &col);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "rule", r->rule->name.name);
  cJSON_AddStringToObject(o, "file", path);
  cJSON_AddNumberToObject(o, "line", line);
  if (r->has_type) cJSON_AddStringToObject(o, "type", ax_type_name(r->type));
  else cJSON_AddNullToObject(o, "type");
  cJSON_AddStringToObject(o, "verdict", ax_verdict_name(r->verdict));
  cJSON_AddStringToObject(o, "expected", r->rule->expect == AX_EXPECT_VALID     ? "valid"
                                         : r->rule->expect == AX_EXPECT_INVALID ? "invalid"
                                                                                : "invalid-hint");
  cJSON_AddBoolToObject(o, "met", met(r));
  cJSON *b = cJSON_AddObjectToObject(o, "bounds");
  for (int i = 0; i < r->nrclasses; i++) cJSON_AddNumberToObject(b, r->rclass_names[i], r->bounds[i]);
  cJSON_AddNumberToObject(o, "instances", r->instances);
  cJSON_AddNumberToObject(o, "queries", r->queries);
  cJSON_AddNumberToObject(o, "time_ms", (double)(long)(r->time_ms * 10 + 0.5) / 10);
  cJSON_AddStringToObject(o, "solver", solver);
  cJSON_AddBoolToObject(o, "vacuous", r->vacuous);
  if (r->reason) cJSON_AddStringToObject(o, "reason", r->reason);
  else cJSON_AddNullToObject(o, "reason");
  cJSON *cex = r->cex_json ? cJSON_Parse(r->cex_json) : NULL;
  if (cex) cJSON_AddItemToObject(o, "counterexample", cex);
  else cJSON_AddNullToObject(o, "counterexample");
  char *s = cJSON_PrintUnformatted(o);
  printf("%s\n", s);
  fflush(stdout);
  cJSON_free(s);
  cJSON_Delete(o);
}

static int parse_opts(int argc, char **argv, Opts *o, int *first) {
  memset(o, 0, sizeof *o);
  o->v.solver.kind = AX_SOLVER_Z3;
  o->v.solver.timeout_ms = 10000;
  o->solver_name = "z3";
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0) return usage(NULL) - 1;   /* -1: exit 0 */
    if (strcmp(a, "--solver") == 0 || strcmp(a, "--timeout") == 0 || strcmp(a, "--rule") == 0 ||
        strcmp(a, "--format") == 0 || strcmp(a, "--jobs") == 0) {
      if (!val) return usage("an option needs a value");
      i++;
    }
    if (strcmp(a, "--solver") == 0) {
      if (strcmp(val, "z3") == 0) {
        o->v.solver.kind = AX_SOLVER_Z3;
      } else if (strcmp(val, "cvc5") == 0) {
        o->v.solver.kind = AX_SOLVER_PIPE;
        o->v.solver.binary = "cvc5";
      } else {
        return usage("--solver takes z3 or cvc5");
      }
      o->solver_name = val;
    } else if (strcmp(a, "--timeout") == 0) {
      char *end;
      double s = strtod(val, &end);
      if (*end || s <= 0 || s > 86400) return usage("--timeout takes a number of seconds in (0, 86400]");
      o->v.solver.timeout_ms = (unsigned)(s * 1000);
    } else if (strcmp(a, "--rule") == 0) {
      o->rule_glob = val;
    } else if (strcmp(a, "--format") == 0) {
      if (strcmp(val, "text") == 0) o->format = FMT_TEXT;
      else if (strcmp(val, "json") == 0) o->format = FMT_JSON;
      else return usage("--format takes text or json");
    } else if (strcmp(a, "--jobs") == 0) {
      char *end;
      long n = strtol(val, &end, 10);
      if (*end || n < 1 || n > 1024) return usage("--jobs takes a number from 1 to 1024");
    } else {
      char msg[256];
      snprintf(msg, sizeof msg, "unknown option '%s'", a);
      return usage(msg);
    }
  }
  *first = i;
  if (i == argc) return usage("no FILE or DIR given");
  return 0;
}

int ax_cmd_verify(int argc, char **argv) {
  Opts o;
  int first = 0;
  int st = parse_opts(argc, argv, &o, &first);
  if (st == -1) return 0;
  if (st) return st;
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxArena *a = ax_arena_new();
  AxPathList files;
  bool ok = ax_files_collect(a, &d, argv + first, argc - first, &files);
  /* parse and check everything first: a broken file verifies nothing */
  AxFile **parsed = ax_arena_alloc(a, (files.n + 1) * sizeof(AxFile *));
  for (size_t i = 0; i < files.n; i++) {
    AxSource *src;
    if (!ax_source_load(a, &d, files.paths[i], &src)) continue;
    int before = d.errors;
    AxFile *f = ax_parse(a, &d, src);
    if (d.errors == before) ax_check_file(a, &d, f);
    parsed[i] = d.errors == before ? f : NULL;
  }
  if (!ok || d.errors) {
    fprintf(stderr, "axle: %d error%s; nothing verified\n", d.errors, d.errors == 1 ? "" : "s");
    ax_arena_free(a);
    return 3;
  }
  int total = 0, nmet = 0, verified = 0, invalid = 0, unknown = 0, contradicted = 0;
  for (size_t i = 0; i < files.n; i++) {
    AxFile *f = parsed[i];
    for (size_t j = 0; j < f->nblocks; j++) {
      AxBlock *b = f->blocks[j];
      if (b->kind != AX_B_RULE) continue;
      if (o.rule_glob && fnmatch(o.rule_glob, b->name.name, 0) != 0) continue;
      AxType types[3];
      int nt = ax_rule_types(b, types);
      for (int k = 0; k < nt; k++) {
        AxResult r;
        ax_verify_rule(b, types[k], &o.v, &r);
        if (o.format == FMT_JSON) print_json(&r, files.paths[i], o.solver_name);
        else print_text(&r, files.paths[i]);
        total++;
        nmet += met(&r);
        verified += r.verdict == AX_VERIFIED;
        invalid += r.verdict == AX_INVALID || r.verdict == AX_INVALID_HINT;
        unknown += r.verdict == AX_UNKNOWN || r.verdict == AX_ERROR;
        if (!met(&r) && (r.verdict == AX_VERIFIED || r.verdict == AX_INVALID || r.verdict == AX_INVALID_HINT) &&
            !r.vacuous)
          contradicted++;
        ax_result_free(&r);
      }
    }
  }
  if (o.format == FMT_TEXT)
    printf("axle verify: %d result%s: %d verified, %d invalid, %d unknown; %d of %d as expected\n", total,
           total == 1 ? "" : "s", verified, invalid, unknown, nmet, total);
  ax_arena_free(a);
  if (contradicted) return 1;
  return nmet == total ? 0 : 2;
}
