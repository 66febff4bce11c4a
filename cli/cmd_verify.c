/* cmd_verify.c — `axle verify` and `axle gate`: prove every rule of the files, report, set
 * the exit status.
 *
 * Both run the same pipeline: parse and check every file (a broken file verifies nothing);
 * make one task per rule and element type, in file order; answer what the result cache
 * can (cache.h); verify the rest on a pool of worker processes (jobs.h), each task in
 * isolation, so that a crash, a hang or memory exhaustion costs only that task (UNKNOWN,
 * with the reason); print results in task order as soon as all earlier ones are in.
 * `verify` prints every result; `gate` prints only those that miss their expectation and
 * one summary line, for CI logs.
 *
 * Exit status (docs/cli.md): 0 every rule met its expectation; 1 some rule's verdict
 * contradicts its expectation (INVALID where valid was expected, VERIFIED where invalid
 * was); 2 otherwise some rule is UNKNOWN, ERROR or vacuous; 3 usage, unreadable file,
 * syntax or checker error (nothing is verified then). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <gmp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "base/clock.h"
#include "base/hooks.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "dsl/check.h"
#include "dsl/parse.h"
#include "run/cache.h"
#include "run/jobs.h"
#include "run/merge.h"
#include "run/mpi.h"
#include "run/plan.h"
#include "run/report.h"
#include "semantics/float.h"
#include "verifier/fpcheck.h"
#include "verifier/verify.h"

typedef enum { FMT_TEXT, FMT_JSON, FMT_JUNIT } Format;   /* ORDER Format: the words of --format */
typedef enum { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER } Progress;   /* ORDER Progress */

typedef struct Opts {
  bool gate;                 /* `axle gate` */
  AxVerifyOpts v;
  char solver[64];           /* as reported: "z3", "cvc5", "portfolio+cross-check", ... */
  const char **globs;        /* --rule, any of them */
  int nglobs;
  int format;                /* a Format */
  const char *output;        /* --output FILE, else stdout */
  int jobs;
  unsigned rule_timeout_ms;  /* 0 until defaulted from --timeout */
  unsigned memory_mb;
  bool no_cache;
  const char *dump_dir;
  int progress;              /* a Progress */
  bool require_both;         /* a VERIFIED one solver alone confirmed does not pass */
  int shard, shards;         /* --shard K/N: K of N (1-based); 0 and 0 without */
  bool mpi;                  /* --mpi: the tasks spread over the ranks of mpirun (mpi.h) */
  unsigned mpi_lease_ms;     /* --mpi-lease: a rank silent this long is dead (0: default) */
} Opts;

typedef struct Task {        /* one rule at one element type */
  const char *path;
  AxBlock *rule;
  AxType type;
  bool ieee;                 /* --numbers ieee: at floating-point format fmt */
  AxSort fmt;
  char *stem;                /* --dump-smt: "<dir>/<rule>.<type>", else NULL */
  char *key;                 /* cache key material, NULL without a cache */
  size_t place;              /* its index among all the run's tasks (--shard keeps some) */
  AxResult r;
  bool done;
} Task;

typedef struct Run {
  const Opts *o;
  Task *tasks;
  size_t n;
  size_t total;              /* the run's tasks before --shard kept n of them */
  size_t *queue;             /* tasks for the pool, by pool index */
  size_t nqueue;
  size_t printed;            /* tasks[0..printed) are reported */
  size_t ndone;
  int verified, invalid, unknown, errors, trivial, cached, met, contradicted, bounded;
  AxCache *cache;
  double t0;
  FILE *out;                 /* the report: stdout or --output (rep.f) */
  AxOut rep;                 /* the report's checked output (cli/out.h) */
  AxMergeRun ident;          /* --shard: the run's identity, in every JSON line (merge.h) */
  int rank, ranks;           /* --mpi: this process's rank, of ranks; else 0 of 1 */
  bool serving;              /* --mpi: the other ranks wait for rank 0's tasks */
  bool live;                 /* a progress line is drawn on stderr */
  bool drawn;                /* ... and is on the screen now */
} Run;

/* --- Options ---------------------------------------------------------------------------- */

/* What the option table writes besides Opts: resolved once every option is in. */
typedef struct Parse {
  Opts *o;
  const char *solver;        /* --solver as given (default "both") */
  const char *binary;        /* --solver-binary */
  bool cross;                /* --cross-check */
  bool ieee_opt;             /* some --ieee-* option */
  char err[160];             /* the message of a refused --ieee-types */
  bool merge;                /* --merge (handled before this table: see run_command) */
} Parse;

static int usage(const AxOptTable *t, const Opts *o, const char *msg) {
  if (msg) fprintf(stderr, "axle: error: %s: %s\n", o->gate ? "gate" : "verify", msg);
  ax_opts_help(msg ? stderr : stdout, t);
  return msg ? 3 : 0;
}

static bool number(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

/* A whole number in [lo, hi] (number's syntax). */
static bool whole(const char *s, int lo, int hi, int *out) {
  double d;
  if (!number(s, lo, hi, &d) || d != (int)d) return false;
  *out = (int)d;
  return true;
}

/* Seconds in [lo, hi], as milliseconds. */
static bool millis(const char *s, double lo, double hi, unsigned *ms) {
  double d;
  if (!number(s, lo, hi, &d)) return false;
  *ms = (unsigned)(d * 1000);
  return true;
}

static bool set_solver(void *target, const char *v) {
  Parse *p = target;
  AxSolverOpts *s = &p->o->v.solver;
  s->cross_check = s->confirm = false;
  if (strcmp(v, "both") == 0) {
    s->kind = AX_SOLVER_Z3;
    s->cross_check = s->confirm = true;
    s->binary = "cvc5";
  } else if (strcmp(v, "z3") == 0) {
    s->kind = AX_SOLVER_Z3;
  } else if (strcmp(v, "cvc5") == 0) {
    s->kind = AX_SOLVER_PIPE;
    s->binary = "cvc5";
  } else if (strcmp(v, "z3-binary") == 0) {
    s->kind = AX_SOLVER_PIPE;
    s->binary = "z3";
  } else if (strcmp(v, "portfolio") == 0) {
    s->kind = AX_SOLVER_PORTFOLIO;
    s->binary = "cvc5";
  } else {
    return false;
  }
  p->solver = v;
  return true;
}

static bool set_binary(void *target, const char *v) {
  ((Parse *)target)->binary = v;
  return *v != '\0';
}

static bool set_grace(void *target, const char *v) {
  return millis(v, 0, 86400, &((Parse *)target)->o->v.solver.confirm_grace_ms);
}

static bool set_floor(void *target, const char *v) {
  return millis(v, 0.001, 86400, &((Parse *)target)->o->v.solver.confirm_floor_ms);
}

static bool set_slack(void *target, const char *v) {
  return whole(v, 0, 16, &((Parse *)target)->o->v.bound_slack);
}

static bool set_timeout(void *target, const char *v) {
  return millis(v, 0.001, 86400, &((Parse *)target)->o->v.solver.timeout_ms);
}

static bool add_glob(void *target, const char *v) {
  Opts *o = ((Parse *)target)->o;
  o->globs[o->nglobs++] = v;
  return true;
}

static bool set_jobs(void *target, const char *v) { return whole(v, 1, 1024, &((Parse *)target)->o->jobs); }

static bool set_shard(void *target, const char *v) {
  Opts *o = ((Parse *)target)->o;
  return ax_plan_parse_shard(v, &o->shard, &o->shards);
}

static bool set_rule_timeout(void *target, const char *v) {
  return millis(v, 0.001, 604800, &((Parse *)target)->o->rule_timeout_ms);
}

static bool set_lease(void *target, const char *v) {
  return millis(v, 1, 86400, &((Parse *)target)->o->mpi_lease_ms);
}

static bool set_memory(void *target, const char *v) {
  int mb;
  if (!whole(v, 0, 1 << 22, &mb) || (mb > 0 && mb < 64)) return false;
  ((Parse *)target)->o->memory_mb = (unsigned)mb;
  return true;
}

static bool set_numbers(void *target, const char *v) {
  bool *on = &((Parse *)target)->o->v.ieee.on;
  if (strcmp(v, "real") == 0) *on = false;
  else if (strcmp(v, "ieee") == 0) *on = true;
  else return false;
  return true;
}

static bool set_ieee_types(void *target, const char *v) {
  Parse *p = target;
  unsigned *formats = &p->o->v.ieee.formats;
  p->ieee_opt = true;
  *formats = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    AxSort f;
    if (!ax_float_parse(tok, &f)) {
      snprintf(p->err, sizeof p->err,
               "--ieee-types: unknown format '%.40s' (f32, f16, bf16, comma-separated)", tok);
      return false;
    }
    *formats |= 1u << f;
  }
  snprintf(p->err, sizeof p->err, "--ieee-types takes f32, f16 and/or bf16, comma-separated");
  return *formats && strlen(v) < sizeof buf;
}

static bool set_ieee_rank(void *target, const char *v) {
  Parse *p = target;
  p->ieee_opt = true;
  return whole(v, 1, 4, &p->o->v.ieee.max_rank);
}

static bool set_ieee_size(void *target, const char *v) {
  Parse *p = target;
  p->ieee_opt = true;
  return whole(v, 1, 8, &p->o->v.ieee.max_size);
}

/* Returns -1 after --help, 0 when the options are good (*first: the first path), or the
 * exit status of a usage error; *argc may shrink (ax_opts_parse). o->globs is allocated
 * (free). */
static int parse_opts(int *argc, char **argv, Opts *o, int *first) {
  o->v.solver.kind = AX_SOLVER_Z3;
  o->v.solver.cross_check = o->v.solver.confirm = true;   /* --solver both */
  o->v.solver.confirm_grace_ms = 2000;
  o->v.solver.timeout_ms = 10000;
  o->v.solver.binary = "cvc5";
  o->jobs = ax_jobs_cores();
  o->memory_mb = 4096;
  o->globs = ax_xcalloc((size_t)*argc + 1, sizeof(char *));
  o->v.ieee.max_rank = 2;
  o->v.ieee.max_size = 3;
  o->v.ieee.formats = 1u << AX_SORT_F32 | 1u << AX_SORT_F16 | 1u << AX_SORT_BF16;
  Parse p = {.o = o, .solver = "both"};
  static const char *const formats[] = {"text", "json", "junit", NULL};   /* ORDER Format */
  static const char *const progress[] = {"auto", "always", "never", NULL}; /* ORDER Progress */
  char usage_line[64], jobs_help[64];
  snprintf(usage_line, sizeof usage_line, "usage: axle %s [options] FILE|DIR...\n",
           o->gate ? "gate" : "verify");
  snprintf(jobs_help, sizeof jobs_help, "worker processes (default: the number of cores, %d)",
           ax_jobs_cores());
  const AxOpt opts[] = {
      {.name = "--solver", .meta = "both|z3|cvc5|z3-binary|portfolio",
       .help = "back-end (default both: every query to z3 and cvc5,\n"
               "VERIFIED needs their unsat, or one's where the other\n"
               "cannot decide, labelled; z3 in-process, cvc5 and\n"
               "z3-binary as child processes, portfolio races z3 and\n"
               "cvc5: single-solver modes for fast iteration)",
       .kind = AX_OPT_FN, .fn = set_solver, .target = &p,
       .err = "--solver takes both, z3, cvc5, z3-binary or portfolio"},
      {.name = "--solver-binary", .meta = "PATH",
       .help = "the SMT-LIB2 solver to run instead of cvc5 / z3",
       .kind = AX_OPT_FN, .fn = set_binary, .target = &p,
       .err = "--solver-binary takes a path or a name in PATH"},
      {.name = "--cross-check",
       .help = "every query answered by z3 and cvc5, which must agree\n"
               "(stricter than both: an undecided query is UNKNOWN)",
       .kind = AX_OPT_FLAG, .target = &p.cross},
      {.name = "--require-both", .help = "a VERIFIED that one solver alone confirmed fails",
       .kind = AX_OPT_FLAG, .target = &o->require_both},
      {.name = "--confirm-grace", .meta = "S",
       .help = "with both: after one solver's unsat, the longest the other\n"
               "has to confirm it (default 2; it gets 4x the first's time,\n"
               "at least the floor; beyond: one solver, labelled)",
       .kind = AX_OPT_FN, .fn = set_grace, .target = &p,
       .err = "--confirm-grace takes a number of seconds in [0, 86400]"},
      {.name = "--confirm-floor", .meta = "S",
       .help = "with both: the least the other solver gets after one's unsat\n"
               "(default 0.5; at most the grace). Raise it on a loaded\n"
               "machine for fewer one-solver labels",
       .kind = AX_OPT_FN, .fn = set_floor, .target = &p,
       .err = "--confirm-floor takes a number of seconds in (0, 86400]"},
      {.name = "--bound-slack", .meta = "K",
       .help = "also check ranks up to each inferred bound + K; a verdict\n"
               "that changes is an ERROR (the oracle of bound inference)",
       .kind = AX_OPT_FN, .fn = set_slack, .target = &p,
       .err = "--bound-slack takes a whole number from 0 to 16"},
      {.name = "--timeout", .meta = "SECONDS", .help = "per query (default 10)",
       .kind = AX_OPT_FN, .fn = set_timeout, .target = &p,
       .err = "--timeout takes a number of seconds in (0, 86400]"},
      {.name = "--rule", .meta = "GLOB", .help = "only rules whose name matches GLOB (repeatable)",
       .kind = AX_OPT_FN, .fn = add_glob, .target = &p},
      {.name = "--format", .meta = "text|json|junit", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &o->format,
       .err = "--format takes text, json or junit"},
      {.name = "--output", .meta = "FILE", .help = "write the json or junit report to FILE",
       .kind = AX_OPT_STR, .target = &o->output},
      {.name = "--jobs", .meta = "N", .help = jobs_help,
       .kind = AX_OPT_FN, .fn = set_jobs, .target = &p, .err = "--jobs takes a number from 1 to 1024"},
      {.name = "--rule-timeout", .meta = "SECONDS",
       .help = "wall-clock limit of one rule at one type (default\n"
               "120 x --timeout, at least 60)",
       .kind = AX_OPT_FN, .fn = set_rule_timeout, .target = &p,
       .err = "--rule-timeout takes a number of seconds in (0, 604800]"},
      {.name = "--memory", .meta = "MB", .help = "memory limit of a worker (default 4096; 0: none)",
       .kind = AX_OPT_FN, .fn = set_memory, .target = &p,
       .err = "--memory takes megabytes: 0 (no limit) or 64 to 4194304"},
      {.name = "--no-cache", .help = "neither read nor write the result cache",
       .kind = AX_OPT_FLAG, .target = &o->no_cache},
      {.name = "--dump-smt", .meta = "DIR",
       .help = "write every query to DIR as a .smt2 file (every rule is\n"
               "verified then: the cache is written, not read)",
       .kind = AX_OPT_STR, .target = &o->dump_dir},
      {.name = "--progress", .meta = "auto|always|never",
       .help = "live progress line on standard error (auto: when it is\na terminal)",
       .kind = AX_OPT_CHOICE, .words = progress, .target = &o->progress,
       .err = "--progress takes auto, always or never"},
      {.name = "--numbers", .meta = "real|ieee",
       .help = "real (default): exact rationals, proved for every rank\n"
               "and size; ieee: a bounded check in floating point\n"
               "(HOLDS-BOUNDED or a replayed float counterexample;\n"
               "verify only, no cache)",
       .kind = AX_OPT_FN, .fn = set_numbers, .target = &p, .err = "--numbers takes real or ieee"},
      {.name = "--ieee-types", .meta = "LIST",
       .help = "formats for --numbers ieee: f32,f16,bf16 (default all)",
       .kind = AX_OPT_FN, .fn = set_ieee_types, .target = &p, .err = p.err},
      {.name = "--ieee-max-rank", .meta = "N", .help = "ranks 1..N per class (1 to 4, default 2)",
       .kind = AX_OPT_FN, .fn = set_ieee_rank, .target = &p,
       .err = "--ieee-max-rank takes a whole number from 1 to 4"},
      {.name = "--ieee-max-size", .meta = "N",
       .help = "input sizes and reduced extents <= N (1 to 8, default 3)",
       .kind = AX_OPT_FN, .fn = set_ieee_size, .target = &p,
       .err = "--ieee-max-size takes a whole number from 1 to 8"},
      {.name = "--shard", .meta = "K/N",
       .help = "verify only shard K of N (1 <= K <= N): the results split\n"
               "by predicted cost, the same on every machine; join the\n"
               "JSON reports with axle gate --merge",
       .kind = AX_OPT_FN, .fn = set_shard, .target = &p,
       .err = "--shard takes K/N, whole numbers with 1 <= K <= N <= 4096 (e.g. 2/4)"},
      {.name = "--mpi",
       .help = "under mpirun: rank 0 hands the results out, longest\n"
               "predicted first, to the other ranks (each with --jobs\n"
               "workers) and reports",
       .kind = AX_OPT_FLAG, .target = &o->mpi},
      {.name = "--mpi-lease", .meta = "SECONDS",
       .help = "with --mpi under mpirun --enable-recovery: a rank\n"
               "silent this long is dead and its rules go to the\n"
               "others (default 10; ranks send a heartbeat while they\n"
               "work)",
       .kind = AX_OPT_FN, .fn = set_lease, .target = &p,
       .err = "--mpi-lease takes seconds from 1 to 86400"},
      AX_OPT_MAX_INPUT("--max-input takes MiB from 1 to 1024"),
      /* gate only, and last: run_command hands a command line with it to merge_command */
      {.name = "--merge", .help = "join the JSON reports of --shard runs (the operands):\n"
                                  "one report, one exit status (only --format and\n"
                                  "--output go with it)",
       .kind = AX_OPT_FLAG, .target = &p.merge},
  };
  const AxOptTable t = {.usage = usage_line, .opts = opts, .n = AX_COUNTOF(opts) - !o->gate,
                        .unknown = "unknown option '%s'", .missing = "%s needs a value"};
  char msg[256];
  switch (ax_opts_parse(&t, argc, argv, first, msg, sizeof msg)) {
  case AX_OPTS_HELP: return -1;
  case AX_OPTS_ERROR: return usage(&t, o, msg);
  case AX_OPTS_OK: break;
  }
  const char *solver = p.solver;
  if (p.cross) {   /* strict: both solvers, an undecided query is UNKNOWN */
    o->v.solver.cross_check = true;
    o->v.solver.confirm = false;
    if (strcmp(solver, "both") == 0) solver = "z3";
  }
  /* a label of one solver fails --require-both: there cvc5 is always waited for */
  o->v.solver.skip_hopeless = !o->require_both;
  if (p.binary) {
    if (o->v.solver.kind == AX_SOLVER_Z3 && !o->v.solver.cross_check)
      return usage(&t, o, "--solver-binary needs --solver cvc5, z3-binary or portfolio, or --cross-check");
    o->v.solver.binary = p.binary;
  }
  if (o->output && o->format == FMT_TEXT)
    return usage(&t, o, "--output needs --format json or junit");
  if (o->mpi_lease_ms && !o->mpi) return usage(&t, o, "--mpi-lease needs --mpi");
  if (o->mpi && !ax_mpi_built())
    return usage(&t, o, "--mpi needs an axle built with MPI (axle --version says mpi: no)");
  if (p.ieee_opt && !o->v.ieee.on)
    return usage(&t, o, "--ieee-types, --ieee-max-rank and --ieee-max-size need --numbers ieee");
  if (o->v.ieee.on && o->gate)
    return usage(&t, o, "--numbers ieee is a bounded check: it cannot gate (use axle verify)");
  if (o->v.ieee.on && o->v.bound_slack)
    return usage(&t, o, "--bound-slack is for --numbers real (IEEE mode has no inferred bounds)");
  if (o->v.ieee.on) o->no_cache = true;   /* the cache keys real-number results only */
  if (!o->rule_timeout_ms) {
    double ms = 120.0 * o->v.solver.timeout_ms;
    o->rule_timeout_ms = ms < 60000 ? 60000 : ms > 604800000 ? 604800000 : (unsigned)ms;
  }
  snprintf(o->solver, sizeof o->solver, "%s%s", solver,
           o->v.solver.cross_check && !o->v.solver.confirm ? "+cross-check" : "");
  if (*first == *argc) return usage(&t, o, "no FILE or DIR given");
  return 0;
}

/* --- Tasks ------------------------------------------------------------------------------ */

/* --dump-smt stems: "<dir>/<rule>.<type>"; a rule name that more than one file defines
 * gets "@<k>", k counting those files in order, so no two tasks share a file name. */
static void dump_stems(Run *run, AxArena *a, const char *dir) {
  for (size_t i = 0; i < run->n; i++) {
    Task *t = &run->tasks[i];
    int k = 0, files = 0;
    const char *last = NULL;
    for (size_t j = 0; j < run->n; j++) {
      if (strcmp(run->tasks[j].rule->name.name, t->rule->name.name) != 0) continue;
      if (run->tasks[j].path != last) {
        files++;
        last = run->tasks[j].path;
      }
      if (j == i) k = files;
    }
    const char *type = t->ieee ? ax_float_name(t->fmt)
                       : t->rule->tvar.name ? ax_type_name(t->type) : "untyped";
    t->stem = files > 1 ? ax_arena_printf(a, "%s/%s@%d.%s", dir, t->rule->name.name, k, type)
                        : ax_arena_printf(a, "%s/%s.%s", dir, t->rule->name.name, type);
  }
}

/* mkdir -p for --dump-smt. */
static bool make_dir(const char *path) {
  char *p = ax_xstrdup(path);
  bool ok = true;
  for (char *s = p + 1; ok; s++) {
    if (*s != '/' && *s != '\0') continue;
    char c = *s;
    *s = '\0';
    ok = mkdir(p, 0755) == 0 || errno == EEXIST;
    *s = c;
    if (!c) break;
  }
  struct stat st;
  ok = ok && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  free(p);
  return ok;
}

/* --shard K/N: keeps the tasks of shard K (ax_plan_shard), in their order. */
static void keep_shard(Run *run) {
  uint64_t *cost = ax_xcalloc(run->n + 1, sizeof *cost);
  int *shard_of = ax_xcalloc(run->n + 1, sizeof *shard_of);
  for (size_t i = 0; i < run->n; i++) cost[i] = ax_plan_cost(run->tasks[i].rule, run->tasks[i].ieee);
  ax_plan_shard(cost, run->n, run->o->shards, shard_of);
  size_t kept = 0;
  for (size_t i = 0; i < run->n; i++)
    if (shard_of[i] == run->o->shard - 1) run->tasks[kept++] = run->tasks[i];
  run->n = kept;
  free(shard_of);
  free(cost);
}

/* --- Reporting -------------------------------------------------------------------------- */

static void progress_clear(Run *run) {
  if (run->drawn) fputs("\r\033[K", stderr);
  run->drawn = false;
}

static void progress_draw(Run *run) {
  if (!run->live) return;
  fprintf(stderr, "\r\033[K[%zu/%zu] %d verified, %d invalid, %d unknown", run->ndone, run->n,
          run->verified, run->invalid, run->unknown);
  if (run->errors) fprintf(stderr, ", %d error%s", run->errors, run->errors == 1 ? "" : "s");
  fprintf(stderr, "  %.1f s", ax_clock_s() - run->t0);
  if (run->cached) fprintf(stderr, "  (%d cached)", run->cached);
  fflush(stderr);
  run->drawn = true;
}

static void tick(void *ctx) { progress_draw(ctx); }

static void report(Run *run, const Task *t) {
  const AxResult *r = &t->r;
  if (r->disagreement)
    fprintf(stderr, "axle: error: %s:%d: %s%s%s%s: %s\n", t->path, ax_report_line(r),
            r->rule->name.name, r->has_type ? " [" : "", r->has_type ? ax_report_type_name(r) : "",
            r->has_type ? "]" : "", r->reason ? r->reason : "solvers disagree");
  switch (run->o->format) {
  case FMT_TEXT:
    if (!run->o->gate || !ax_report_met(r)) ax_report_text(run->out, r, t->path);
    break;
  case FMT_JSON: {
    cJSON *j = ax_report_json(r, t->path, run->o->solver);
    if (run->o->shards) {   /* what axle gate --merge needs to join the shards (merge.h) */
      char *text = NULL;
      size_t len = 0;
      FILE *m = open_memstream(&text, &len);
      AX_ASSERT(m);
      ax_report_text(m, r, t->path);
      fclose(m);
      AxMergeShard sh = {.index = run->o->shard, .of = run->o->shards, .task = t->place,
                         .tasks = run->total, .results = run->n,
                         .contradicts = ax_report_contradicts(r),
                         .require_both = run->o->require_both, .text = text};
      ax_merge_stamp(j, &run->ident, &sh);
      free(text);
    }
    char *s = cJSON_PrintUnformatted(j);
    fprintf(run->out, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(j);
    break;
  }
  case FMT_JUNIT: break;   /* one document at the end */
  }
  fflush(run->out);
}

/* A task is finished: count it, and print every result now in order. */
static void finish(Run *run, Task *t) {
  t->done = true;
  t->r.strict = run->o->require_both;
  run->ndone++;
  const AxResult *r = &t->r;
  run->verified += r->verdict == AX_VERIFIED && !r->trivial;
  run->bounded += r->verdict == AX_HOLDS_BOUNDED;
  run->trivial += r->trivial;
  run->invalid += r->verdict == AX_INVALID || r->verdict == AX_INVALID_HINT;
  run->unknown += r->verdict == AX_UNKNOWN;
  run->errors += r->verdict == AX_ERROR;
  run->cached += r->cached;
  run->met += ax_report_met(r);
  run->contradicted += ax_report_contradicts(r);
  progress_clear(run);
  while (run->printed < run->n && run->tasks[run->printed].done)
    report(run, &run->tasks[run->printed++]);
  progress_draw(run);
}

/* --- Workers ---------------------------------------------------------------------------- */

/* Who stands behind a result: both solvers, or one (single-solver modes; or in both mode
 * the other solver could not decide some query — then it is labelled single). */
static void confirmation(const Opts *o, const AxSolverLog *log, AxResult *r) {
  const AxSolverOpts *s = &o->v.solver;
  const char *bin = strrchr(s->binary, '/') ? strrchr(s->binary, '/') + 1 : s->binary;
  char buf[160];
  if (r->trivial || r->queries == 0) return;
  if (s->cross_check) {
    bool z3_all = log->unsat_binary_only == 0, bin_all = log->unsat_z3_only == 0;
    r->single = r->partial = !(z3_all && bin_all);
    if (z3_all && bin_all) snprintf(buf, sizeof buf, "z3+%s", bin);
    else if (bin_all) snprintf(buf, sizeof buf, "%s", bin);
    else if (z3_all) snprintf(buf, sizeof buf, "z3");
    else snprintf(buf, sizeof buf, "z3 or %s, query by query", bin);
  } else {
    r->single = true;
    snprintf(buf, sizeof buf, "%s", s->kind == AX_SOLVER_Z3 ? "z3"
                                    : s->kind == AX_SOLVER_PIPE ? bin : "portfolio");
  }
  r->confirmed_by = ax_xstrdup(buf);
}

/* A stack that overflows (AXLE_TEST_WORKER_FAULT=RULE:stack): n frames of 1 KiB. */
static int deeper(volatile char *up, unsigned long n) {
  volatile char frame[1024];
  frame[0] = up ? up[0] : 1;
  frame[1] = 0;
  return n ? deeper(frame, n - 1) + frame[1] : 0;
}

/* In a worker, as it takes rule (tests/faults/workers.sh; axle-test only): test hook
 * AXLE_TEST_WORKER_FAULT=RULE:HOW makes the worker that verifies rule RULE die as HOW says,
 * so that each way a worker dies is seen reported: abort (SIGABRT); segv (SIGSEGV raised);
 * stack (a stack overflow: SIGSEGV with no stack left); kill (SIGKILL, as from outside);
 * oom (malloc beyond the memory limit fails, then abort, as GMP's allocator does);
 * gmp-overflow (GMP asked for 10^(10^12): its own abort, no allocation failed, the literal
 * that once did this in ax_decimal_to_mpq); gmp-oom (GMP asked for 10^(2^33), 3.6 GB: its
 * allocation fails under a smaller --memory). */
static void fault_hook(const Run *run, const AxBlock *rule) {
  const char *h = ax_test_hook("AXLE_TEST_WORKER_FAULT"), *how = h ? strchr(h, ':') : NULL;
  if (!how || (size_t)(how - h) != strlen(rule->name.name) ||
      strncmp(h, rule->name.name, (size_t)(how - h)) != 0)
    return;
  how++;
  if (strcmp(how, "abort") == 0) abort();
  if (strcmp(how, "segv") == 0) raise(SIGSEGV);
  if (strcmp(how, "stack") == 0) deeper(NULL, ULONG_MAX);
  if (strcmp(how, "kill") == 0) raise(SIGKILL);
  if (strcmp(how, "oom") == 0) {
    size_t bytes = run->o->memory_mb ? ((size_t)run->o->memory_mb + 64) << 20 : SIZE_MAX / 4;
    char *volatile p = malloc(bytes);
    if (!p) abort();
    free(p);
  }
  if (strcmp(how, "gmp-overflow") == 0 || strcmp(how, "gmp-oom") == 0) {
    mpz_t z;
    mpz_init(z);
    mpz_ui_pow_ui(z, 10, strcmp(how, "gmp-oom") == 0 ? 1ul << 33 : 1000000000000ul);
    mpz_clear(z);
  }
}

/* In a worker: verifies one task, returns its record. */
static char *work(void *ctx, size_t i, size_t *len) {
  Run *run = ctx;
  Task *t = &run->tasks[run->queue[i]];
  fault_hook(run, t->rule);
  AxVerifyOpts v = run->o->v;
  AxSolverLog log;
  memset(&log, 0, sizeof log);
  v.solver.log = &log;
  char note[1024];
  snprintf(note, sizeof note, "rule %s [%s] of %s", t->rule->name.name,
           t->ieee ? ax_float_name(t->fmt) : ax_type_name(t->type), t->path);
  v.solver.dump_note = note;
  v.dump_stem = t->stem;
  AxResult r;
  if (t->ieee) ax_fpcheck_rule(t->rule, t->fmt, &v, &r);
  else ax_verify_rule(t->rule, t->type, &v, &r);
  confirmation(run->o, &log, &r);
  if (log.disagreements) {
    /* loud, and never a verdict: the rule is in ERROR whatever else was found */
    r.verdict = AX_ERROR;
    r.vacuous = false;
    r.disagreement = true;
    if (!r.reason || !strstr(r.reason, "SOLVERS DISAGREE")) {
      free(r.reason);
      r.reason = ax_xstrdup(log.first);
    }
    free(r.cex_text);
    free(r.cex_json);
    r.cex_text = r.cex_json = NULL;
  }
  char *s = ax_report_record(&r);
  ax_result_free(&r);
  *len = strlen(s);
  return s;
}

/* A task's record arrived (data), or its worker failed (failure): it is finished. */
static void settle(Run *run, Task *t, const char *data, const char *failure, double ms) {
  if (!data || !ax_report_unrecord(data, t->rule, t->type, &t->r)) {
    AxResult *r = &t->r;
    memset(r, 0, sizeof *r);
    r->rule = t->rule;
    r->type = t->type;
    r->has_type = t->rule->tvar.name != NULL || (t->ieee && t->type == AX_REAL);
    r->ieee = t->ieee;
    r->fmt = t->fmt;
    r->ieee_rank = run->o->v.ieee.max_rank;
    r->ieee_size = run->o->v.ieee.max_size;
    /* running out of memory is the verifier failing (ERROR); a timeout or a crash stays
     * UNKNOWN */
    r->verdict = failure && strncmp(failure, "out of memory", 13) == 0 ? AX_ERROR : AX_UNKNOWN;
    r->rclass_names = ax_xcalloc(1, sizeof(char *));
    r->reason = ax_xstrdup(failure ? failure : "worker sent an unreadable result");
    r->time_ms = ms;
  } else if (run->cache && t->key) {
    ax_cache_put(run->cache, t->key, &t->r);
  }
  finish(run, t);
}

/* In the caller: the pool's task i is done (AxJobsDone). */
static void arrived(void *ctx, size_t i, const char *data, size_t len, const char *failure,
                    double ms) {
  (void)len;
  Run *run = ctx;
  settle(run, &run->tasks[run->queue[i]], data, failure, ms);
}

/* --mpi, rank 0: a task's result came from another rank (AxMpiGot). */
static void got(void *ctx, size_t task, const char *data, size_t len, const char *failure,
                double ms) {
  (void)len;
  Run *run = ctx;
  AX_ASSERT(task < run->n && !run->tasks[task].done);
  settle(run, &run->tasks[task], data, failure, ms);
}

/* --mpi, another rank: the pool's task i is done; its result goes to rank 0. */
static void sent(void *ctx, size_t i, const char *data, size_t len, const char *failure,
                 double ms) {
  Run *run = ctx;
  ax_mpi_send(run->queue[i], data, len, failure, ms);
}

/* --mpi, another rank: its pool works; rank 0 hears that this rank is alive (AxJobsTick). */
static void beat(void *ctx) {
  (void)ctx;
  ax_mpi_beat();
}

/* Whether this rank dies as it gets tasks[0..n) (tests/e2e/verify_mpi.sh; axle-test only):
 * test hook AXLE_TEST_MPI_KILL_RANK, a comma-separated list of ranks, names it (it dies at
 * its first tasks), or AXLE_TEST_MPI_KILL_TASK names one of them (a run's task number: every
 * rank that is given it dies, as if that rule killed its rank). */
static bool doomed(int rank, const size_t *tasks, size_t n) {
  const char *s = ax_test_hook("AXLE_TEST_MPI_KILL_RANK");
  while (s && *s) {
    char *end;
    long r = strtol(s, &end, 10);
    if (end == s) break;
    if (r == rank) return true;
    s = *end == ',' ? end + 1 : end;
  }
  const char *t = ax_test_hook("AXLE_TEST_MPI_KILL_TASK");
  for (size_t k = 0; t && *t && k < n; k++)
    if (strtoul(t, NULL, 10) == tasks[k]) return true;
  return false;
}

/* --mpi, another rank: runs the tasks rank 0 handed out (AxMpiBatch). */
static void batch(void *ctx, const size_t *tasks, size_t n) {
  Run *run = ctx;
  if (doomed(run->rank, tasks, n)) raise(SIGKILL);
  for (size_t k = 0; k < n; k++) run->queue[k] = tasks[k];
  run->nqueue = n;
  AxJobsOpts jo = {.jobs = run->o->jobs, .task_limit_ms = run->o->rule_timeout_ms,
                   .memory_mb = run->o->memory_mb};
  ax_jobs_run(&jo, n, work, sent, beat, run);
}

/* --mpi, rank 0: the queued tasks to the other ranks, longest predicted first (plan.h). */
static void coordinate(Run *run) {
  uint64_t *cost = ax_xcalloc(run->nqueue + 1, sizeof *cost);
  size_t *order = ax_xcalloc(run->nqueue + 1, sizeof *order);
  for (size_t k = 0; k < run->nqueue; k++) {
    const Task *t = &run->tasks[run->queue[k]];
    cost[k] = ax_plan_cost(t->rule, t->ieee);
  }
  ax_plan_order(cost, run->nqueue, order);
  for (size_t k = 0; k < run->nqueue; k++) order[k] = run->queue[order[k]];
  size_t *left = ax_xcalloc(run->nqueue + 1, sizeof *left);
  size_t nleft = ax_mpi_coordinate(order, run->nqueue, run->o->mpi_lease_ms, got, tick, run, left);
  run->serving = false;
  if (nleft) {   /* every other rank died: rank 0 verifies what is left itself */
    for (size_t k = 0; k < nleft; k++) run->queue[k] = left[k];
    run->nqueue = nleft;
    AxJobsOpts jo = {.jobs = run->o->jobs, .task_limit_ms = run->o->rule_timeout_ms,
                     .memory_mb = run->o->memory_mb};
    ax_jobs_run(&jo, nleft, work, arrived, tick, run);
  }
  free(left);
  free(order);
  free(cost);
}

/* --- The command ------------------------------------------------------------------------ */

static void summary(const Run *run, double seconds) {
  const char *what = run->o->gate ? "gate" : "verify";
  printf("axle %s: ", what);
  if (run->o->gate) printf("%s: ", run->met == (int)run->n ? "PASS" : "FAIL");
  printf("%zu result%s", run->n, run->n == 1 ? "" : "s");
  if (run->o->shards) printf(" (shard %d/%d of %zu)", run->o->shard, run->o->shards, run->total);
  printf(": %d verified, %d invalid, %d unknown", run->verified, run->invalid, run->unknown);
  if (run->o->v.ieee.on) printf(", %d holds-bounded (not proofs)", run->bounded);
  if (run->errors) printf(", %d error%s", run->errors, run->errors == 1 ? "" : "s");
  if (run->trivial) printf(", %d trivial", run->trivial);
  printf("; %d of %zu as expected", run->met, run->n);
  if (run->bounded) printf(" (HOLDS-BOUNDED meets expect valid)");
  if (run->cached) printf(" (%d from the cache)", run->cached);
  if (run->o->gate) printf("; %.1f s", seconds);
  printf("\n");
}

/* `axle gate --merge [--format F] [--output FILE] REPORT...` (merge.h). */
static int merge_command(int argc, char **argv) {
  int format = FMT_TEXT, first = 0;
  bool merge = false;
  const char *output = NULL;
  static const char *const formats[] = {"text", "json", "junit", NULL};   /* ORDER Format */
  const AxOpt opts[] = {
      {.name = "--merge", .help = "join the JSON reports of axle verify --shard K/N",
       .kind = AX_OPT_FLAG, .target = &merge},
      {.name = "--format", .meta = "text|json|junit", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &format,
       .err = "--format takes text, json or junit"},
      {.name = "--output", .meta = "FILE", .help = "write the json or junit report to FILE",
       .kind = AX_OPT_STR, .target = &output},
  };
  const AxOptTable t = {.usage = "usage: axle gate --merge [options] REPORT.json...\n",
                        .opts = opts, .n = AX_COUNTOF(opts),
                        .unknown = "gate --merge: '%s' does not go with --merge (only --format "
                                   "and --output do)",
                        .missing = "gate --merge: %s needs a value"};
  int st = ax_opts_run(&t, &argc, argv, &first);
  if (st >= 0) return st;
  if (output && format == FMT_TEXT)
    return ax_opts_usage_error(t.usage, "gate --merge: --output needs --format json or junit");
  if (first == argc)
    return ax_opts_usage_error(t.usage, "gate --merge: no REPORT given (the JSON reports of "
                                        "axle verify --shard K/N --format json)");
  char err[1024];
  AxMerge *m = ax_merge_read((const char *const *)argv + first, (size_t)(argc - first), err,
                             sizeof err);
  if (!m) {
    fprintf(stderr, "axle: error: gate --merge: %s\n", err);
    return 3;
  }
  AxOut rep;
  memset(&rep, 0, sizeof rep);
  if (!ax_out_open(&rep, output)) {
    ax_merge_free(m);
    return 3;
  }
  AxMergeTotals s;
  ax_merge_totals(m, &s);
  if (format == FMT_TEXT) ax_merge_text(rep.f, m, true);
  else if (format == FMT_JSON) ax_merge_json(rep.f, m);
  else ax_merge_junit(rep.f, m, "axle gate");
  int status = ax_out_commit(&rep) ? 0 : 3;
  ax_out_abandon(&rep);
  if (format == FMT_TEXT || output) {
    printf("axle gate: %s: %zu result%s: %d verified, %d invalid, %d unknown",
           s.met == (int)s.results ? "PASS" : "FAIL", s.results, s.results == 1 ? "" : "s",
           s.verified, s.invalid, s.unknown);
    if (s.bounded) printf(", %d holds-bounded (not proofs)", s.bounded);
    if (s.errors) printf(", %d error%s", s.errors, s.errors == 1 ? "" : "s");
    if (s.trivial) printf(", %d trivial", s.trivial);
    printf("; %d of %zu as expected", s.met, s.results);
    if (s.cached) printf(" (%d from the cache)", s.cached);
    printf("; merged from %d report%s\n", argc - first, argc - first == 1 ? "" : "s");
  }
  ax_merge_free(m);
  if (!status) status = s.contradicted ? 1 : s.met == (int)s.results ? 0 : 2;
  return status;
}

static int run_command(int argc, char **argv, bool gate) {
  for (int i = 1; gate && i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--merge") == 0) return merge_command(argc, argv);
  Opts o;
  memset(&o, 0, sizeof o);
  o.gate = gate;
  int first = 0;
  int st = parse_opts(&argc, argv, &o, &first);   /* options after operands too */
  if (st) {
    free(o.globs);
    return st == -1 ? 0 : st;
  }
  int rank = 0, ranks = 1;
  if (o.mpi && !ax_mpi_start(&rank, &ranks)) {
    fprintf(stderr, "axle: error: %s: MPI did not start\n", gate ? "gate" : "verify");
    free(o.globs);
    return 3;
  }
  /* --mpi: every rank reads the files; rank 0 alone reports what is wrong with them */
  FILE *quiet = rank > 0 ? fopen("/dev/null", "w") : NULL;
  if (rank > 0) o.no_cache = true;   /* rank 0 reads and writes the cache for all */
  AxDiag d;
  ax_diag_init(&d, quiet ? quiet : stderr);
  AxArena *a = ax_arena_new();
  AxPathList files;
  bool ok = ax_files_collect(a, &d, argv + first, argc - first, &files);
  /* parse and check everything first: a broken file verifies nothing */
  AxFile **parsed = ax_arena_alloc(a, (files.n + 1) * sizeof(AxFile *));
  for (size_t i = 0; i < files.n; i++) {
    AxSource *src;
    parsed[i] = NULL;
    if (!ax_source_load(a, &d, files.paths[i], &src)) continue;
    int before = d.errors;
    AxFile *f = ax_parse(a, &d, src);
    if (d.errors == before) ax_check_file(a, &d, f);
    parsed[i] = d.errors == before ? f : NULL;
  }
  if (!ok || d.errors) {
    if (rank == 0)
      fprintf(stderr, "axle: %d error%s; nothing verified\n", d.errors, d.errors == 1 ? "" : "s");
    ax_arena_free(a);
    free(o.globs);
    if (quiet) fclose(quiet);
    if (o.mpi) ax_mpi_stop();
    return 3;
  }

  Run run;
  memset(&run, 0, sizeof run);
  run.o = &o;
  run.rank = rank;
  run.ranks = ranks;
  run.t0 = ax_clock_s();
  run.out = stdout;
  size_t cap = 0;
  for (size_t i = 0; i < files.n; i++)
    for (size_t j = 0; j < parsed[i]->nblocks; j++) cap += 3;
  run.tasks = ax_arena_alloc(a, (cap + 1) * sizeof(Task));
  for (size_t i = 0; i < files.n; i++)
    for (size_t j = 0; j < parsed[i]->nblocks; j++) {
      AxBlock *b = parsed[i]->blocks[j];
      if (!ax_files_rule_wanted(b, (const char *const *)o.globs, o.nglobs)) continue;
      AxType types[3];
      int nt = ax_rule_types(b, types);
      if (o.v.ieee.on) {   /* one task per format for a rule that can be real, else one */
        bool real = ax_fpcheck_in_scope(b);
        static const AxSort fmts[] = {AX_SORT_F32, AX_SORT_F16, AX_SORT_BF16};
        for (size_t k = 0; k < AX_COUNTOF(fmts); k++) {
          if (!(o.v.ieee.formats >> fmts[k] & 1)) continue;
          run.tasks[run.n++] = (Task){.path = files.paths[i], .rule = b, .type = real ? AX_REAL : types[0],
                                      .ieee = true, .fmt = fmts[k]};
          if (!real) break;
        }
        continue;
      }
      for (int k = 0; k < nt; k++)
        run.tasks[run.n++] = (Task){.path = files.paths[i], .rule = b, .type = types[k]};
    }

  int status = 0;
  for (size_t i = 0; i < run.n; i++) run.tasks[i].place = i;
  run.total = run.n;
  if (run.n == 0) {   /* a run that checks nothing must not pass */
    if (rank == 0)
      fprintf(stderr, "axle: error: %s: no rule to verify (check the paths and --rule)\n",
              gate ? "gate" : "verify");
    status = 3;
    goto out;
  }
  /* from here on the other ranks wait for rank 0's tasks (or for word that there are none) */
  run.serving = o.mpi && ranks > 1;
  run.queue = ax_arena_alloc(a, (run.n + 1) * sizeof(size_t));
  if (rank > 0) {
    if (o.dump_dir && make_dir(o.dump_dir)) dump_stems(&run, a, o.dump_dir);
    if (o.shards) keep_shard(&run);
    ax_mpi_serve(o.jobs, o.mpi_lease_ms, batch, &run);
    goto out;
  }
  if (o.dump_dir) {
    if (!make_dir(o.dump_dir)) {
      fprintf(stderr, "axle: error: cannot create the --dump-smt directory '%s': %s\n",
              o.dump_dir, strerror(errno));
      status = 3;
      goto out;
    }
    dump_stems(&run, a, o.dump_dir);
  }
  if (o.shards) keep_shard(&run);
  if (o.shards && o.format == FMT_JSON) {   /* the identity goes in every JSON line */
    const AxSource **srcs = ax_arena_alloc(a, (files.n + 1) * sizeof *srcs);
    for (size_t i = 0; i < files.n; i++) srcs[i] = parsed[i]->src;
    if (!ax_merge_identify(&run.ident, srcs, files.n, (const char *const *)o.globs, o.nglobs,
                           &o.v, o.solver, o.require_both)) {
      fprintf(stderr, "axle: error: %s --shard: cannot read the axle executable to identify the "
              "run: %s\n", gate ? "gate" : "verify", strerror(errno));
      status = 3;
      goto out;
    }
  }
  if (!ax_out_open(&run.rep, o.output)) {
    status = 3;
    goto out;
  }
  run.out = run.rep.f;
  if (!o.no_cache) {
    char why[512];
    run.cache = ax_cache_open(NULL, &o.v, o.solver, why, sizeof why);
    if (!run.cache) fprintf(stderr, "axle: warning: result cache off: %s\n", why);
    else ax_cache_warn_to(run.cache, stderr);
  }
  run.live = o.progress == PROGRESS_ALWAYS ||
             (o.progress == PROGRESS_AUTO && isatty(STDERR_FILENO));

  /* what the cache knows is finished at once; the rest goes to the workers */
  for (size_t i = 0; i < run.n; i++) {
    Task *t = &run.tasks[i];
    if (run.cache) {
      t->key = ax_cache_key(run.cache, t->rule, t->type);
      /* --dump-smt wants the queries, which only a verification writes: the cache is not
       * read then (but still written) */
      if (!o.dump_dir && ax_cache_get(run.cache, t->key, t->rule, t->type, &t->r)) {
        finish(&run, t);
        continue;
      }
    }
    run.queue[run.nqueue++] = i;
  }
  AxJobsOpts jo = {.jobs = o.jobs, .task_limit_ms = o.rule_timeout_ms, .memory_mb = o.memory_mb};
  progress_draw(&run);
  if (o.mpi && ranks > 1) coordinate(&run);   /* one rank: it verifies alone */
  else ax_jobs_run(&jo, run.nqueue, work, arrived, tick, &run);
  progress_clear(&run);
  double seconds = ax_clock_s() - run.t0;

  if (o.format == FMT_JUNIT) {
    AxReportItem *items = ax_arena_alloc(a, (run.n + 1) * sizeof *items);
    for (size_t i = 0; i < run.n; i++) items[i] = (AxReportItem){&run.tasks[i].r, run.tasks[i].path};
    ax_report_junit(run.out, items, run.n, gate ? "axle gate" : "axle verify", o.solver, seconds);
  }
  if (!ax_out_commit(&run.rep)) status = 3;
  run.out = stdout;
  if (o.format == FMT_TEXT || (gate && o.output)) summary(&run, seconds);
  if (!status) status = run.contradicted ? 1 : run.met == (int)run.n ? 0 : 2;
  /* mpirun --enable-recovery exits 0 whatever rank 0 returns: a CI job that reads only
   * mpirun's status would pass a failing run, so the status is said where it can be seen */
  if (o.mpi && ranks > 1 && rank == 0 && ax_mpi_recovering())
    fprintf(stderr, "axle: note: %s --mpi: under mpirun --enable-recovery, mpirun exits 0 whatever "
            "the verdicts; this run's exit status is %d\n", gate ? "gate" : "verify", status);

out:
  if (run.serving && rank == 0)   /* release them */
    ax_mpi_coordinate(NULL, 0, o.mpi_lease_ms, got, NULL, &run, NULL);
  ax_out_abandon(&run.rep);
  for (size_t i = 0; i < run.n; i++) {
    ax_result_free(&run.tasks[i].r);
    free(run.tasks[i].key);
  }
  ax_cache_close(run.cache);
  ax_arena_free(a);
  free(o.globs);
  if (quiet) fclose(quiet);
  if (o.mpi) ax_mpi_stop();
  return status;
}

int ax_cmd_verify(int argc, char **argv) { return run_command(argc, argv, false); }

int ax_cmd_gate(int argc, char **argv) { return run_command(argc, argv, true); }
