/* cmd_equiv.c — `axle equiv` and `axle mugraph` (docs/superopt.md).
 *
 *   axle equiv PROGRAM.axl GRAPH.mug [--delta X] [--seed N] [--program NAME] [--tests N]
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
#include "dsl/parse.h"
#include "superopt/equiv/equiv.h"
#include "superopt/arith/field.h"
#include "superopt/equiv/interp.h"
#include "superopt/ir/mugdot.h"
#include "superopt/ir/mugtext.h"
#include "superopt/ir/program.h"

/* Ranges of the counts: a test costs at least one run of both graphs, so a million is
 * already hours on a large shape; beyond that a number is a typo. */
#define MAX_TESTS 1000000
#define MAX_FLOAT_TESTS 10000

static const char usage_text[] =
    "usage: axle equiv PROGRAM.axl GRAPH.mug [--delta X] [--seed N] [--program NAME]\n"
    "                  [--tests N] [--max-tests N] [--float-tests N] [--float-tol X]\n"
    "                  [--require-bound] [--max-input MIB] [--memory MB] [--jobs N]\n"
    "                  [--primes P,Q] [--field-only]\n"
    "       axle equiv --candidates PROGRAM.axl GRAPH.mug... [options as above]\n"
    "       axle mugraph [--max-input MIB] (check | fmt | dot) GRAPH.mug\n"
    AX_FILES_MAX_INPUT_HELP
    "  --seed N              0 to 18446744073709551615 (default: from the clock)\n"
    "  --tests N             1 to 1000000 field tests (default: as the bound asks)\n"
    "  --max-tests N         1 to 1000000 (default 1000)\n"
    "  --float-tests N       0 to 10000 (default 1)\n"
    "  --float-tol X         a positive number below 1e6\n"
    "  --field-only          equivalent only as the field tests establish it: a difference\n"
    "                        that only a law of sqrt excuses (judged in doubles) is exit 2\n"
    "  --memory MB           refuse graphs whose evaluation needs more (default 4096;\n"
    "                        0: no limit)\n";

/* A usage error (exit 3), or with msg NULL the help (exit 0). */
static int usage(const char *msg) {
  if (!msg) {
    fputs(usage_text, stdout);
    return 0;
  }
  fprintf(stderr, "axle: error: %s\n%s", msg, usage_text);
  return 3;
}

static bool is_help(const char *s) { return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0; }

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

static bool parse_int(const char *s, int *out, int lo, int hi) {
  uint64_t v;
  if (!parse_u64(s, &v) || v < (uint64_t)lo || v > (uint64_t)hi) return false;
  *out = (int)v;
  return true;
}

/* Does evaluating p and m (field tests: both at once; float tests: p twice and m) fit in
 * memory_mb? Computed from the shapes before anything is allocated; refused (reported)
 * if not, so that a huge shape is an error, not an allocation that fails half way. */
static bool fits(const AxMugraph *p, const AxMugraph *m, int memory_mb) {
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
          "more than the --memory limit of %d MB\n",
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
    AxMugraph *m = ax_files_load_mug(a, d, files[i]);
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
  const char *files[256], *prog_name = NULL;
  int nfiles = 0;
  bool seed_set = false, candidates = false;
  int memory_mb = 4096;
  int status = 3;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (is_help(s)) return usage(NULL);
    if (strcmp(s, "--require-bound") == 0) {
      o.require_bound = true;
    } else if (strcmp(s, "--candidates") == 0) {
      candidates = true;
    } else if (strcmp(s, "--field-only") == 0) {
      o.field_only = true;
    } else if (s[0] == '-' && s[1] == '-') {
      char msg[128];
      snprintf(msg, sizeof msg, "%.40s needs a value", s);
      if (!v) return usage(msg);
      i++;
      if (strcmp(s, "--delta") == 0) {
        if (!ax_equiv_parse_delta(v, &o.delta)) return usage("--delta takes a probability in (0, 1), e.g. 2^-30 or 1e-9");
      } else if (strcmp(s, "--seed") == 0) {
        if (!parse_u64(v, &o.seed)) return usage("--seed takes an integer from 0 to 2^64 - 1");
        seed_set = true;
      } else if (strcmp(s, "--max-input") == 0) {
        if (!ax_files_max_input(v)) return usage("--max-input takes MiB from 1 to 1024");
      } else if (strcmp(s, "--memory") == 0) {
        if (!parse_int(v, &memory_mb, 0, 1 << 22)) return usage("--memory takes megabytes from 0 (no limit) to 4194304");
      } else if (strcmp(s, "--program") == 0) {
        prog_name = v;
      } else if (strcmp(s, "--tests") == 0) {
        if (!parse_int(v, &o.tests, 1, MAX_TESTS)) return usage("--tests takes an integer from 1 to 1000000");
      } else if (strcmp(s, "--max-tests") == 0) {
        if (!parse_int(v, &o.max_tests, 1, MAX_TESTS)) return usage("--max-tests takes an integer from 1 to 1000000");
      } else if (strcmp(s, "--float-tests") == 0) {
        if (!parse_int(v, &o.float_tests, 0, MAX_FLOAT_TESTS)) return usage("--float-tests takes an integer from 0 to 10000");
      } else if (strcmp(s, "--jobs") == 0) {
        if (!parse_int(v, &o.jobs, 1, 256)) return usage("--jobs takes an integer from 1 to 256");
      } else if (strcmp(s, "--primes") == 0) {
        char *comma = strchr(v, ',');
        if (!comma) return usage("--primes takes P,Q");
        *comma = 0;
        if (!parse_u64(v, &o.p) || !parse_u64(comma + 1, &o.q) || !ax_field_primes_ok(o.p, o.q))
          return usage("--primes takes two primes P,Q with Q | P - 1, 2^16 <= Q < 2^31 and P < 2^32");
      } else if (strcmp(s, "--float-tol") == 0) {
        char *end;
        errno = 0;
        o.float_tol = strtod(v, &end);
        if (end == v || *end || errno || !(o.float_tol > 0 && o.float_tol < 1e6))
          return usage("--float-tol takes a positive number below 1e6");
      } else {
        snprintf(msg, sizeof msg, "unknown option '%.40s'", s);
        return usage(msg);
      }
    } else if (nfiles < (int)AX_COUNTOF(files)) {
      files[nfiles++] = s;
    } else {
      return usage("too many files");
    }
  }
  if (candidates ? nfiles < 2 : nfiles != 2) {
    return usage(candidates ? "equiv --candidates needs a program file and .mug files"
                            : "equiv needs a program file and a .mug file");
  }
  if (!seed_set) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    o.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
  }
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *p = ax_files_load_program(a, &d, files[0], prog_name);
  if (p && !candidates) {
    AxMugraph *m = ax_files_load_mug(a, &d, files[1]);
    if (m && fits(p, m, memory_mb)) status = ax_equiv_run(p, m, &d, &o);
  } else if (p) {
    status = run_candidates(p, files + 1, nfiles - 1, a, &d, &o);
  }
  ax_arena_free(a);
  return status;
}

int ax_cmd_mugraph(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (is_help(argv[i])) return usage(NULL);
  if (argc >= 3 && strcmp(argv[1], "--max-input") == 0) {
    if (!ax_files_max_input(argv[2])) return usage("--max-input takes MiB from 1 to 1024");
    argc -= 2;
    argv += 2;
  }
  if (argc != 3) return usage("mugraph needs a sub-command and one file");
  const char *cmd = argv[1];
  if (strcmp(cmd, "check") && strcmp(cmd, "fmt") && strcmp(cmd, "dot"))
    return usage("mugraph sub-commands are check, fmt and dot");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  if (strcmp(cmd, "fmt") == 0) {
    /* fmt prints what parses, even when validation would complain */
    AxSource *src;
    AxMugraph *g = ax_source_load(a, &d, argv[2], &src) ? ax_mugtext_parse(a, &d, src) : NULL;
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
