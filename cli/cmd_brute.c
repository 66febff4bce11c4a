/* cmd_brute.c — `axle brute`: the brute-force oracle (verifier/brute.h) on every rule of the
 * files, or on one given instance.
 *
 * Every file is parsed and checked first (a broken file checks nothing, exit 3), then each
 * rule at each element type of its class is searched for a counterexample among small
 * concrete instances, in file order, one line per rule and type: REFUTED with the instance,
 * NO COUNTEREXAMPLE with the number of instances that satisfied the preconditions, or
 * SKIPPED with the reason. `--instance` evaluates one given instance instead (a
 * counterexample of `axle verify --format json`), which is how the verdict fuzzer checks
 * that an INVALID's counterexample is one.
 *
 * Exit status (docs/cli.md): 0 no rule refuted (an instance: not a counterexample); 1 some
 * rule refuted (the instance is a counterexample); 2 the instance cannot be evaluated; 3 bad
 * usage, an unreadable or ill-formed file, no rule, or an instance that is no instance of
 * the rule. */
#include <cjson/cJSON.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>   /* mallopt */
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/brute.h"
#include "verifier/verify.h"

typedef struct Opts {
  AxBruteOpts b;
  const char **globs;   /* --rule, any of them */
  int nglobs;
  int type;             /* --type: an AxType, or -1 for every type */
  const char *instance; /* --instance: JSON text, or @FILE */
  bool json;
} Opts;

static int usage(const AxOptTable *t, const char *msg) {
  if (msg) fprintf(stderr, "axle: error: brute: %s\n", msg);
  ax_opts_help(msg ? stderr : stdout, t);
  return msg ? 3 : 0;
}

/* --seed: a whole number from 0 to 2^64 - 1 (digits only) */
static bool set_seed(void *target, const char *s) {
  if (*s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return false;
  *(uint64_t *)target = v;
  return true;
}

/* The counts of AxBruteOpts that are unsigned, and the time limit, are read as ints. */
typedef struct Counts {
  int samples, exhaustive, time_limit;
} Counts;

static bool add_glob(void *target, const char *v) {
  Opts *o = target;
  o->globs[o->nglobs++] = v;
  return true;
}

/* Returns -1 after --help, 0 when the options are good (*first: the first path), or the
 * exit status of a usage error; *argc may shrink (ax_opts_parse). */
static int parse_opts(int *argc, char **argv, Opts *o, int *first) {
  ax_brute_defaults(&o->b);
  int type = -1, json = 0;   /* --type: an index of types, -1 when not given */
  Counts c = {(int)o->b.samples, (int)o->b.exhaustive, (int)o->b.time_limit_s};
  static const char *const types[] = {"bool", "int", "real", NULL};
  static const AxType type_of[] = {AX_BOOL, AX_INT, AX_REAL};
  static const char *const formats[] = {"text", "json", NULL};
  const AxOpt opts[] = {
      {.name = "--seed", .meta = "N", .help = "seed of the sampling (default 1)",
       .kind = AX_OPT_FN, .fn = set_seed, .target = &o->b.seed,
       .err = "--seed takes a whole number from 0 to 2^64 - 1"},
      {.name = "--samples", .meta = "N",
       .help = "instances tried per rule and type when they are too many to\ntry all (default 2000)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 1000000, .target = &c.samples,
       .err = "--samples takes a whole number from 1 to 1000000"},
      {.name = "--max-rank", .meta = "R", .help = "every rank class at ranks 1..R (1 to 4, default 3)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 4, .target = &o->b.max_rank,
       .err = "--max-rank takes a whole number from 1 to 4"},
      {.name = "--max-size", .meta = "S",
       .help = "maps (sizes) from 0 to S, and -1 where not nonneg (1 to 6,\ndefault 3)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 6, .target = &o->b.max_size,
       .err = "--max-size takes a whole number from 1 to 6"},
      {.name = "--exhaustive", .meta = "N",
       .help = "try every instance when there are at most N (default 20000)",
       .kind = AX_OPT_INT, .lo = 0, .hi = 1000000, .target = &c.exhaustive,
       .err = "--exhaustive takes a whole number from 0 to 1000000"},
      {.name = "--time-limit", .meta = "S",
       .help = "stop a rule and type after S seconds (default 60; 0: none)",
       .kind = AX_OPT_INT, .lo = 0, .hi = 86400, .target = &c.time_limit,
       .err = "--time-limit takes whole seconds from 0 to 86400"},
      {.name = "--rule", .meta = "GLOB", .help = "only rules whose name matches GLOB (repeatable)",
       .kind = AX_OPT_FN, .fn = add_glob, .target = o},
      {.name = "--type", .meta = "bool|int|real",
       .help = "only this element type (rules without a type variable: kept)",
       .kind = AX_OPT_CHOICE, .words = types, .target = &type,
       .err = "--type takes bool, int or real"},
      {.name = "--instance", .meta = "JSON|@FILE",
       .help = "evaluate exactly this instance (a counterexample object of\n"
               "axle verify --format json, or its whole line) of the one rule\n"
               "and type selected: exit 1 if it is a counterexample, 0 if\n"
               "not, 2 if it cannot be evaluated",
       .kind = AX_OPT_STR, .target = &o->instance},
      {.name = "--format", .meta = "text|json",
       .help = "report format (default text; json: one object a line)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &json,
       .err = "--format takes text or json"},
      AX_OPT_MAX_INPUT("--max-input takes MiB from 1 to 1024"),
  };
  const AxOptTable t = {
      .usage = "usage: axle brute [options] FILE|DIR...\n",
      .about = "Searches small concrete instances of every rule for a counterexample, with axle's\n"
               "concrete semantics and no solver: REFUTED, NO COUNTEREXAMPLE or SKIPPED per rule and\n"
               "element type; exit 1 if some rule is refuted.\n",
      .opts = opts, .n = AX_COUNTOF(opts),
      .unknown = "unknown option '%.40s'", .missing = "%s needs a value"};
  char msg[256];
  AxOptsStatus st = ax_opts_parse(&t, argc, argv, first, msg, sizeof msg);
  if (st == AX_OPTS_HELP) return -1;
  if (st == AX_OPTS_ERROR) return usage(&t, msg);
  o->type = type < 0 ? -1 : (int)type_of[type];
  o->json = json == 1;
  o->b.samples = (unsigned)c.samples;
  o->b.exhaustive = (unsigned)c.exhaustive;
  o->b.time_limit_s = c.time_limit;
  if (*first == *argc) return usage(&t, "no FILE or DIR given");
  return 0;
}

/* The text of --instance: itself, or the contents of FILE for "@FILE" (malloc'd; NULL
 * after printing why). */
static char *instance_text(const char *arg) {
  if (arg[0] != '@') return ax_xstrdup(arg);
  const char *path = arg + 1;
  struct stat st;
  const char *why = NULL;
  FILE *f = NULL;
  if (stat(path, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_size > (16 << 20)) why = "larger than 16 MiB";
  else if (!(f = fopen(path, "r"))) why = strerror(errno);
  if (why) {
    fprintf(stderr, "axle: error: brute: cannot read the instance '%s': %s\n", path, why);
    return NULL;
  }
  char *buf = ax_xmalloc((size_t)st.st_size + 1);
  size_t n = fread(buf, 1, (size_t)st.st_size, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

typedef struct Task {   /* one rule at one element type */
  const char *path;
  const AxBlock *rule;
  AxType type;
} Task;

static int line_of(const AxBlock *b) {
  int line, col;
  ax_source_linecol(b->name.span.src, b->name.span.start, &line, &col);
  return line;
}

static const char *expect_name(AxExpect e) {
  return e == AX_EXPECT_INVALID ? "invalid" : e == AX_EXPECT_INVALID_HINT ? "invalid-hint"
       : e == AX_EXPECT_TRIVIAL ? "trivial" : "valid";
}

/* "FILE:LINE: RULE [type]" */
static void head(const Task *t) {
  printf("%s:%d: %s", t->path, line_of(t->rule), t->rule->name.name);
  if (t->rule->tvar.name) printf(" [%s]", ax_type_name(t->type));
}

static cJSON *head_json(const Task *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "rule", t->rule->name.name);
  cJSON_AddStringToObject(o, "file", t->path);
  cJSON_AddNumberToObject(o, "line", line_of(t->rule));
  if (t->rule->tvar.name) cJSON_AddStringToObject(o, "type", ax_type_name(t->type));
  else cJSON_AddNullToObject(o, "type");
  cJSON_AddStringToObject(o, "expected", expect_name(t->rule->expect));
  return o;
}

static void print_json(cJSON *o) {
  char *s = cJSON_PrintUnformatted(o);
  printf("%s\n", s);
  free(s);
  cJSON_Delete(o);
}

static void report(const Opts *o, const Task *t, const AxBruteResult *r) {
  static const char *const result[] = {[AX_BRUTE_NONE] = "none", [AX_BRUTE_REFUTED] = "refuted",
                                       [AX_BRUTE_SKIPPED] = "skipped"};
  if (o->json) {
    cJSON *j = head_json(t);
    cJSON_AddStringToObject(j, "result", result[r->status]);
    cJSON_AddNumberToObject(j, "instances", (double)r->counted);
    cJSON_AddNumberToObject(j, "tried", (double)r->tried);
    cJSON_AddBoolToObject(j, "exhaustive", r->exhaustive);
    cJSON_AddNumberToObject(j, "unevaluable", (double)r->unevaluable);
    cJSON_AddNumberToObject(j, "too_large", (double)r->too_large);
    cJSON_AddBoolToObject(j, "timed_out", r->timed_out);
    if (r->reason) cJSON_AddStringToObject(j, "reason", r->reason);
    else cJSON_AddNullToObject(j, "reason");
    cJSON_AddNumberToObject(j, "max_rank", o->b.max_rank);
    cJSON_AddNumberToObject(j, "max_size", o->b.max_size);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->b.seed);
    cJSON_AddStringToObject(j, "seed", seed);
    cJSON_AddNumberToObject(j, "time_ms", r->time_ms);
    cJSON *cex = r->cex_json ? cJSON_Parse(r->cex_json) : NULL;
    if (cex) cJSON_AddItemToObject(j, "counterexample", cex);
    else cJSON_AddNullToObject(j, "counterexample");
    print_json(j);
    return;
  }
  head(t);
  const char *how = r->exhaustive ? "exhaustive" : r->timed_out ? "stopped at the time limit" : "sampled";
  switch (r->status) {
  case AX_BRUTE_REFUTED:
    printf("  REFUTED");
    break;
  case AX_BRUTE_NONE:
    printf("  NO COUNTEREXAMPLE in %lu instance%s", r->counted, r->counted == 1 ? "" : "s");
    break;
  case AX_BRUTE_SKIPPED:
    printf("  SKIPPED: %s", r->reason);
    break;
  }
  if (t->rule->expect != AX_EXPECT_VALID) printf(" (expected %s)", expect_name(t->rule->expect));
  if (r->status != AX_BRUTE_SKIPPED)
    printf("  (%lu tried, %s; ranks <= %d, sizes <= %d)", r->tried, how, o->b.max_rank, o->b.max_size);
  printf("  %.0f ms\n", r->time_ms);
  if (r->status == AX_BRUTE_NONE && !r->counted)
    printf("    note: no instance within the limits satisfies the preconditions with a valid "
           "left-hand side\n");
  if (r->status != AX_BRUTE_SKIPPED && r->too_large)
    printf("    note: %lu instance%s left out as too large or too costly to evaluate\n", r->too_large,
           r->too_large == 1 ? "" : "s");
  if (r->status != AX_BRUTE_SKIPPED && r->unevaluable)
    printf("    note: %lu instance%s not evaluable: %s\n", r->unevaluable, r->unevaluable == 1 ? "" : "s", r->reason);
  if (r->cex_text)
    for (const char *s = r->cex_text; *s;) {
      const char *nl = strchr(s, '\n');
      int n = nl ? (int)(nl - s) : (int)strlen(s);
      printf("    %.*s\n", n, s);
      s += n + (nl ? 1 : 0);
    }
}

/* --instance: the one selected task evaluated at the given instance. */
static int check_instance(const Opts *o, const Task *t) {
  char *text = instance_text(o->instance);
  if (!text) return 3;
  char *why = NULL, *failed = NULL;
  AxBruteCheck c = ax_brute_instance(t->rule, t->type, text, &why, &failed);
  free(text);
  static const char *const names[] = {[AX_BRUTE_REPRODUCED] = "reproduced", [AX_BRUTE_ELSEWHERE] = "elsewhere",
                                      [AX_BRUTE_NOT_CEX] = "not-counterexample",
                                      [AX_BRUTE_UNEVALUABLE] = "unevaluable", [AX_BRUTE_BAD_INSTANCE] = "bad-instance"};
  int status = c == AX_BRUTE_REPRODUCED || c == AX_BRUTE_ELSEWHERE ? 1 : c == AX_BRUTE_NOT_CEX ? 0
             : c == AX_BRUTE_UNEVALUABLE ? 2 : 3;
  if (c == AX_BRUTE_BAD_INSTANCE) {
    fprintf(stderr, "axle: error: brute: --instance: %s (rule '%s' of %s:%d)\n", why, t->rule->name.name,
            t->path, line_of(t->rule));
  } else if (o->json) {
    cJSON *j = head_json(t);
    cJSON_AddStringToObject(j, "result", names[c]);
    cJSON_AddStringToObject(j, "reason", why);
    if (failed) cJSON_AddStringToObject(j, "failed", failed);
    else cJSON_AddNullToObject(j, "failed");
    print_json(j);
  } else {
    static const char *const upper[] = {[AX_BRUTE_REPRODUCED] = "REPRODUCED", [AX_BRUTE_ELSEWHERE] = "ELSEWHERE",
                                        [AX_BRUTE_NOT_CEX] = "NOT A COUNTEREXAMPLE",
                                        [AX_BRUTE_UNEVALUABLE] = "UNEVALUABLE", [AX_BRUTE_BAD_INSTANCE] = ""};
    head(t);
    printf("  %s: %s\n", upper[c], why);
  }
  free(why);
  free(failed);
  return status;
}

int ax_cmd_brute(int argc, char **argv) {
  Opts o;
  memset(&o, 0, sizeof o);
  o.globs = ax_xcalloc((size_t)argc + 1, sizeof(char *));
  int first = 0, st = parse_opts(&argc, argv, &o, &first);   /* options after operands too */
  if (st) {
    free(o.globs);
    return st == -1 ? 0 : st;
  }
#ifdef __GLIBC__
  /* every instance allocates and frees up to tens of megabytes: keep them in the heap
   * instead of giving them back to the kernel and faulting them in again (a third of
   * the time on the convolution rules) */
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
#endif
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxArena *a = ax_arena_new();
  AxPathList files;
  bool ok = ax_files_collect(a, &d, argv + first, argc - first, &files);
  AxFile **parsed = ax_arena_alloc(a, (files.n + 1) * sizeof(AxFile *));
  for (size_t i = 0; i < files.n; i++) {   /* a broken file checks nothing */
    AxSource *src;
    if (!ax_source_load(a, &d, files.paths[i], &src)) continue;
    int before = d.errors;
    AxFile *f = ax_parse(a, &d, src);
    if (d.errors == before) ax_check_file(a, &d, f);
    parsed[i] = d.errors == before ? f : NULL;
  }
  int status = 0;
  if (!ok || d.errors) {
    fprintf(stderr, "axle: %d error%s; nothing checked\n", d.errors, d.errors == 1 ? "" : "s");
    status = 3;
    goto out;
  }
  size_t cap = 1, n = 0;
  for (size_t i = 0; i < files.n; i++) cap += 3 * parsed[i]->nblocks;
  Task *tasks = ax_arena_alloc(a, cap * sizeof(Task));
  for (size_t i = 0; i < files.n; i++)
    for (size_t j = 0; j < parsed[i]->nblocks; j++) {
      const AxBlock *b = parsed[i]->blocks[j];
      if (!ax_files_rule_wanted(b, (const char *const *)o.globs, o.nglobs)) continue;
      AxType types[3];
      int nt = ax_rule_types(b, types);
      for (int k = 0; k < nt; k++)
        if (o.type < 0 || !b->tvar.name || (int)types[k] == o.type)
          tasks[n++] = (Task){.path = files.paths[i], .rule = b, .type = types[k]};
    }
  if (n == 0) {   /* a run that checks nothing must not pass */
    fprintf(stderr, "axle: error: brute: no rule to check (check the paths, --rule and --type)\n");
    status = 3;
    goto out;
  }
  if (o.instance) {
    if (n != 1) {
      fprintf(stderr, "axle: error: brute: --instance needs exactly one rule and type; %zu are "
                      "selected (use --rule and --type)\n", n);
      status = 3;
    } else {
      status = check_instance(&o, &tasks[0]);
    }
    goto out;
  }
  int refuted = 0, none = 0, skipped = 0;
  for (size_t i = 0; i < n; i++) {
    AxBruteResult r;
    ax_brute_rule(tasks[i].rule, tasks[i].type, &o.b, &r);
    report(&o, &tasks[i], &r);
    refuted += r.status == AX_BRUTE_REFUTED;
    none += r.status == AX_BRUTE_NONE;
    skipped += r.status == AX_BRUTE_SKIPPED;
    ax_brute_free(&r);
  }
  if (!o.json)
    printf("axle brute: %zu result%s: %d refuted, %d without counterexample, %d skipped\n", n,
           n == 1 ? "" : "s", refuted, none, skipped);
  status = refuted ? 1 : 0;
out:
  ax_arena_free(a);
  free(o.globs);
  return status;
}
