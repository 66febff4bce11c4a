/* cmd_equiv.c — `axle equiv` and `axle mugraph` (docs/superopt.md).
 *
 *   axle equiv PROGRAM.axl GRAPH.mug|PROGRAM2.axl [--delta X] [--seed N] [--program NAME] [--tests N]
 *              [--max-tests N] [--float-tests N] [--float-tol X] [--require-bound]
 *              [--jobs N] [--primes P,Q] [--field-only]
 *       0 equivalent, 1 not equivalent (or numerically unstable), 2 no guarantee under
 *       --require-bound (or, under --field-only, only a law of sqrt excuses a field
 *       difference: not established), 3 bad input (located error) or refusal (outside the Lax fragment).
 *   axle equiv --candidates PROGRAM.axl GRAPH.mug... [same options]
 *       each graph through the search's fast path (equiv.h: scaled-instance filter, then
 *       the full check), one line each with its time; 0 all equivalent, 1 some not,
 *       2 some without guarantee under --require-bound, 3 bad input.
 *   axle mugraph (check | fmt | dot) GRAPH.mug
 *       0 fine, 3 bad input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "superopt/equiv/equiv.h"
#include "superopt/arith/field.h"
#include "superopt/equiv/interp.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugdot.h"
#include "superopt/ir/mugtext.h"

/* Ranges of the counts: a test costs at least one run of both graphs, so a million is
 * already hours on a large shape; beyond that a number is a typo. */
#define MAX_TESTS 1000000
#define MAX_FLOAT_TESTS 10000

#define EQUIV_USAGE                                                                                \
  "usage: axle equiv PROGRAM.axl GRAPH.mug|PROGRAM2.axl [--delta X] [--seed N] [--program NAME]\n"\
  "                  [--tests N] [--max-tests N] [--float-tests N] [--float-tol X]\n"             \
  "                  [--require-bound] [--max-input MIB] [--memory MB] [--jobs N]\n"              \
  "                  [--primes P,Q] [--field-only]\n"                                             \
  "       axle equiv --candidates PROGRAM.axl GRAPH.mug... [options as above]\n"

/* A usage error (exit 3) with the help of table t on stderr. */
static int usage(const AxOptTable *t, const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  ax_opts_help(stderr, t);
  return 3;
}

/* A decimal integer in [0, 2^64): digits only, no sign, no overflow. */
static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (*s < '0' || *s > '9') return false;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return false;
  *out = v;
  return true;
}

static bool set_delta(void *target, const char *v) { return ax_equiv_parse_delta(v, target); }

/* --seed, and whether it was given (else it comes from the clock) */
typedef struct Seed {
  uint64_t value;
  bool set;
} Seed;

static bool set_seed(void *target, const char *v) {
  Seed *s = target;
  return (s->set = parse_u64(v, &s->value));
}

/* --primes P,Q: two primes with Q | P - 1 (field.h) */
static bool set_primes(void *target, const char *v) {
  AxEquivOpts *o = target;
  const char *comma = strchr(v, ',');
  char p[32];
  if (!comma || (size_t)(comma - v) >= sizeof p) return false;
  snprintf(p, sizeof p, "%.*s", (int)(comma - v), v);
  return parse_u64(p, &o->p) && parse_u64(comma + 1, &o->q) && ax_field_primes_ok(o->p, o->q);
}

static bool set_float_tol(void *target, const char *v) {
  double *tol = target;
  char *end;
  errno = 0;
  *tol = strtod(v, &end);
  return end != v && !*end && !errno && *tol > 0 && *tol < 1e6;
}

/* Does evaluating p and m (field tests: both at once; float tests: p twice and m) fit in
 * memory_mb? Computed from the shapes before anything is allocated; refused (reported)
 * if not, so that a huge shape is an error, not an allocation that fails half way. */
static bool fits(const AxMugraph *p, const AxMugraph *m) {
  long long memory_mb = ax_opts_memory_mb();
  if (memory_mb == 0) return true;
  int64_t field = ax_interp_bytes(p, sizeof(AxFF)), dp = ax_interp_bytes(p, sizeof(double));
  int64_t need = field > INT64_MAX - ax_interp_bytes(m, sizeof(AxFF))
                     ? INT64_MAX
                     : field + ax_interp_bytes(m, sizeof(AxFF));
  int64_t flt = dp > INT64_MAX / 3 ? INT64_MAX : 2 * dp;
  flt = flt > INT64_MAX - ax_interp_bytes(m, sizeof(double)) ? INT64_MAX
                                                               : flt + ax_interp_bytes(m, sizeof(double));
  if (flt > need) need = flt;
  if (need <= (int64_t)memory_mb << 20) return true;
  fprintf(stderr,
          "axle: error: equiv: evaluating program '%.64s' and mugraph '%.64s' needs about %lld MB, "
          "more than the --memory limit of %lld MB\n",
          p->name, m->name, (long long)(need >> 20) + 1, memory_mb);
  return false;
}

/* `--candidates`: every graph through the search's fast path (equiv.h). */
static int run_candidates(const AxMugraph *p, const char **files, int n, AxArena *a, AxDiag *d,
                          const AxEquivOpts *o) {
  AxEquivCtx *c = ax_equiv_ctx_new(p, o);
  uint64_t P, Q;
  ax_equiv_ctx_primes(c, &P, &Q);
  printf("equiv candidates: program '%s', %d candidates; p = %" PRIu64 ", q = %" PRIu64
         ", seed %" PRIu64 "\n", p->name, n, P, Q, o->seed);
  int status = 0, nfilt = 0, nok = 0;
  double total = 0;
  for (int i = 0; i < n; i++) {
    AxMugraph *m = ax_files_load_live_mug(a, d, files[i]);
    if (!m) {
      status = 3;
      continue;
    }
    AxEquivResult r;
    ax_equiv_candidate(c, m, d, &r);
    total += r.ms;
    nfilt += r.filtered;
    nok += r.status == 0;
    const char *what = r.status == 0 ? (r.how == AX_EQUIV_BOUNDED  ? "equivalent"
                                        : r.how == AX_EQUIV_FIELD ? "equivalent on the field tests, no bound"
                                                                  : "equivalent by testing, no bound")
                       : r.status == 1 ? "not equivalent"
                       : r.status == 2 ? (o->field_only ? "no guarantee or not established" : "no guarantee")
                                       : "cannot be compared";
    printf("%s: %s%s (scale 1/%" PRId64 ") %.1f ms\n", files[i], what,
           r.filtered ? " at the scaled instance" : "", r.scale, r.ms);
    if (r.status == 3) status = 3;
    else if (status != 3 && r.status > status) status = r.status;
  }
  printf("%d candidates: %d equivalent, %d rejected at the scaled instance; %.1f ms per candidate\n",
         n, nok, nfilt, n ? total / n : 0.0);
  ax_equiv_ctx_free(c);
  return status;
}

int ax_cmd_equiv(int argc, char **argv) {
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  const char *prog_name = NULL;
  bool candidates = false;
  int first = 1;
  ax_opts_memory_default();
  int status = 3;
  Seed seed = {0};
  const AxOpt opts[] = {
      {.name = "--delta", .meta = "X",
       .help = "target probability of accepting a wrong graph (default\n2^-30; 2^-40 and 1e-12 are accepted)",
       .kind = AX_OPT_FN, .fn = set_delta, .target = &o.delta,
       .err = "--delta takes a probability in (0, 1), e.g. 2^-30 or 1e-9"},
      {.name = "--seed", .meta = "N", .help = "0 to 18446744073709551615 (default: from the clock)",
       .kind = AX_OPT_FN, .fn = set_seed, .target = &seed,
       .err = "--seed takes an integer from 0 to 2^64 - 1"},
      {.name = "--program", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog_name},
      {.name = "--tests", .meta = "N", .help = "1 to 1000000 field tests (default: as the bound asks)",
       .kind = AX_OPT_INT, .lo = 1, .hi = MAX_TESTS, .target = &o.tests,
       .err = "--tests takes an integer from 1 to 1000000"},
      {.name = "--max-tests", .meta = "N", .help = "1 to 1000000 (default 1000)",
       .kind = AX_OPT_INT, .lo = 1, .hi = MAX_TESTS, .target = &o.max_tests,
       .err = "--max-tests takes an integer from 1 to 1000000"},
      {.name = "--float-tests", .meta = "N", .help = "0 to 10000 (default 1)",
       .kind = AX_OPT_INT, .lo = 0, .hi = MAX_FLOAT_TESTS, .target = &o.float_tests,
       .err = "--float-tests takes an integer from 0 to 10000"},
      {.name = "--float-tol", .meta = "X", .help = "relative tolerance of the float tests, below 1e6 (default\nby dtype: f16 2e-2, bf16 8e-2, f32 1e-4)",
       .kind = AX_OPT_FN, .fn = set_float_tol, .target = &o.float_tol,
       .err = "--float-tol takes a positive number below 1e6"},
      {.name = "--require-bound",
       .help = "no bound on the error probability is a failure (exit 2)",
       .kind = AX_OPT_FLAG, .target = &o.require_bound},
      AX_OPT_MAX_INPUT("--max-input takes MiB from 1 to 1024"),
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--jobs", .meta = "N", .help = "threads of the field tests, 1 to 256 (default 1)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 256, .target = &o.jobs,
       .err = "--jobs takes an integer from 1 to 256"},
      {.name = "--primes", .meta = "P,Q", .help = "fix the field instead of drawing it: primes with Q | P - 1,\n2^16 <= Q < 2^31 and P < 2^32",
       .kind = AX_OPT_FN, .fn = set_primes, .target = &o,
       .err = "--primes takes two primes P,Q with Q | P - 1, 2^16 <= Q < 2^31 and P < 2^32"},
      {.name = "--field-only",
       .help = "equivalent only as the field tests establish it: a difference\n"
               "that only a law of sqrt excuses (judged in doubles) is exit 2",
       .kind = AX_OPT_FLAG, .target = &o.field_only},
      {.name = "--candidates", .help = "every GRAPH through the search's fast path, one line each",
       .kind = AX_OPT_FLAG, .target = &candidates},
  };
  const AxOptTable t = {.usage = EQUIV_USAGE, .opts = opts, .n = AX_COUNTOF(opts),
                        .unknown = "unknown option '%.40s'", .missing = "%.40s needs a value"};
  char msg[256];
  switch (ax_opts_parse(&t, &argc, argv, &first, msg, sizeof msg)) {
  case AX_OPTS_HELP: return 0;
  case AX_OPTS_ERROR: return usage(&t, msg);
  case AX_OPTS_OK: break;
  }
  const char **files = (const char **)argv + first;
  int nfiles = argc - first;
  if (nfiles > 256) return usage(&t, "too many files");
  if (candidates ? nfiles < 2 : nfiles != 2) {
    return usage(&t, candidates ? "equiv --candidates needs a program file and .mug files"
                                : "equiv needs a program file and a .mug or second program file");
  }
  if (seed.set) {
    o.seed = seed.value;
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    o.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
  }
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  /* dead code goes first on both sides (superopt/ir/dead.h): the outputs are what is
   * compared, and they do not depend on it */
  AxMugraph *p = ax_files_load_live_program(a, &d, files[0], prog_name);
  if (p && !candidates) {
    /* a second program (.axl or .hlo: its only program block) is compared as its lowered
     * graph, which is made of pre-defined operators like any μGraph */
    AxMugraph *m = ax_files_is_program(files[1]) ? ax_files_load_live_program(a, &d, files[1], NULL)
                                                 : ax_files_load_live_mug(a, &d, files[1]);
    if (m && fits(p, m)) status = ax_equiv_run(p, m, &d, &o);
  } else if (p) {
    status = run_candidates(p, files + 1, nfiles - 1, a, &d, &o);
  }
  ax_arena_free(a);
  return status;
}

int ax_cmd_mugraph(int argc, char **argv) {
  int first = 1;
  ax_opts_memory_default();
  const AxOpt opts[] = {AX_OPT_MAX_INPUT("--max-input takes MiB from 1 to 1024"), AX_OPT_MEMORY(AX_OPT_MEMORY_ERR)};
  const AxOptTable t = {
      .usage = "usage: axle mugraph [--max-input MIB] [--memory MB] (check | fmt | dot) GRAPH.mug\n",
      .about = "check validates the graph, fmt prints it in canonical form, dot as a Graphviz graph.\n",
      .opts = opts, .n = AX_COUNTOF(opts),
      .unknown = "unknown option '%.40s'", .missing = "%.40s needs a value"};
  char msg[256];
  switch (ax_opts_parse(&t, &argc, argv, &first, msg, sizeof msg)) {
  case AX_OPTS_HELP: return 0;
  case AX_OPTS_ERROR: return usage(&t, msg);
  case AX_OPTS_OK: break;
  }
  argc -= first - 1;
  argv += first - 1;
  if (argc != 3) return usage(&t, "mugraph needs a sub-command and one file");
  const char *cmd = argv[1];
  if (strcmp(cmd, "check") && strcmp(cmd, "fmt") && strcmp(cmd, "dot"))
    return usage(&t, "mugraph sub-commands are check, fmt and dot");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  if (strcmp(cmd, "fmt") == 0) {
    /* fmt prints what parses, even when validation would complain */
    AxMugraph *g = ax_load_from_file(a, &d, argv[2], &(AxLoadOpts){.kind = AX_LOAD_MUGRAPH, .parse_only = true});
    if (g) {
      ax_mugtext_print(stdout, g);
      status = 0;
    }
  } else {
    AxMugraph *g = ax_files_load_mug(a, &d, argv[2]);
    if (g) {
      if (strcmp(cmd, "dot") == 0) ax_mugdot_print(stdout, g);
      else printf("%s: mugraph '%s' is valid\n", argv[2], g->name);
      status = 0;
    }
  }
  ax_arena_free(a);
  return status;
}
