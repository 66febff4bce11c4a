/* cmd_superopt.c — `axle superopt`: search for a fused μGraph (superopt/search/search.h).
 *
 *   axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]
 *                 [--time-limit S] [--top K] [--rules DIR] [--target T]
 *                 [--format text|json] [--max-states N] [--no-prune] [--no-gate]
 *                 [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]
 *                 [--progress auto|always|never] [--found-dir DIR] [--no-greedy]
 *   axle superopt PROGRAM.axl --reach GRAPH.mug [--no-prune] [--jobs N] [--time-limit S]
 *       reachability, not a search: does the generator build GRAPH (its kernel headers
 *       pinned, search.h AxSearchOpts.pin)? 0 yes, 1 no, 3 bad input.
 *       0 found a graph modelled faster than the naive one (written to --output, checked by
 *       the equivalence checker first): the search's best, or the greedy fusion floor
 *       (superopt/search/greedy.h) the search starts from; 1 nothing better: no fusion applies and
 *       the search found nothing faster in time; 3 bad input, or the axioms the pruner
 *       relies on are not all VERIFIED (each one named). --no-greedy: the search alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "dsl/parse.h"
#include "superopt/search/axioms.h"
#include "superopt/search/greedy.h"
#include "superopt/ir/program.h"
#include "superopt/search/prune.h"
#include "superopt/search/search.h"

#define USAGE                                                                                      \
  "usage: axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]\n"               \
  "                     [--time-limit S] [--top K] [--rules DIR] [--target h100|a100]\n"          \
  "                     [--format text|json] [--max-states N] [--no-prune] [--no-gate]\n"         \
  "                     [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]\n"             \
  "                     [--progress auto|always|never] [--found-dir DIR] [--no-greedy]\n"         \
  "       axle superopt PROGRAM.axl --reach GRAPH.mug [--no-prune] [--jobs N]\n"

/* A usage error: the message and the usage on stderr (exit 3). */
static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

/* Gating: every axiom the pruner relies on (ax_prune_axioms) must be a rule of rules DIR
 * that `axle verify`'s defaults prove VERIFIED (superopt/search/axioms.h: result cache first). On
 * failure every rule that is not VERIFIED, and every missing name, is printed. */
static bool axioms_proved(const char *dir) {
  int n;
  const char *const *names = ax_prune_axioms(&n);
  AxVerifyOpts vo;
  const char *solver;
  ax_axioms_default_opts(&vo, &solver);
  AxAxiomReport rep;
  bool ok = ax_superopt_axioms_proved(dir, &vo, solver, names, n, &rep);
  if (!ok) {
    fprintf(stderr, "axle: error: superopt: the pruner relies on axioms that are not all VERIFIED in %s:\n%s",
            dir, rep.failures ? rep.failures : "");
    fprintf(stderr, "(prove them with 'axle verify %s', or pass --no-gate to search anyway: "
                    "results are still checked, but pruning may then lose some)\n", dir);
  }
  ax_axiom_report_free(&rep);
  return ok;
}

static bool set_target(void *target, const char *v) {
  return (*(const AxTarget **)target = ax_cost_target(v)) != NULL;
}

static bool set_max_states(void *target, const char *v) {
  char *end;
  long n = strtol(v, &end, 10);
  if (!*v || *end || n < 1) return false;
  *(long *)target = n;
  return true;
}

static bool set_time_limit(void *target, const char *v) {
  char *end;
  double *t = target;
  *t = strtod(v, &end);
  return !*end && *t > 0;
}

int ax_cmd_superopt(int argc, char **argv) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  const char *prog_name = NULL, *output = NULL, *rules = "rules/superopt";
  const char *found_dir = NULL, *reach = NULL;
  bool no_prune = false, no_gate = false, no_greedy = false;
  int json = 0, progress = 0, first = 1;
  static const char *const formats[] = {"text", "json", NULL};
  static const char *const progresses[] = {"auto", "always", "never", NULL};   /* 0, 1, 2 */
  const AxOpt opts[] = {
      {.name = "--program", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog_name},
      {.name = "--output", .meta = "BEST.mug",
       .help = "where the best graph goes when it is modelled faster than\nthe naive one",
       .kind = AX_OPT_STR, .target = &output},
      {.name = "--jobs", .meta = "N", .help = "search threads, 1 to 256 (default 1)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 256, .target = &o.jobs, .err = "--jobs takes 1 to 256"},
      {.name = "--time-limit", .meta = "S", .help = "the whole run within S seconds: floor, search and final check (a graph not checked in time is not used)",
       .kind = AX_OPT_FN, .fn = set_time_limit, .target = &o.time_limit,
       .err = "--time-limit takes a positive number of seconds"},
      {.name = "--top", .meta = "K", .help = "candidates kept and filtered, 1 to 1000 (default 5)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 1000, .target = &o.top, .err = "--top takes 1 to 1000"},
      {.name = "--rules", .meta = "DIR",
       .help = "the rules that must prove the pruner's axioms\n(default rules/superopt)",
       .kind = AX_OPT_STR, .target = &rules},
      {.name = "--target", .meta = "h100|a100", .help = "the GPU modelled (default h100)",
       .kind = AX_OPT_FN, .fn = set_target, .target = &o.target, .err = "--target is h100 or a100"},
      {.name = "--format", .meta = "text|json", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &json, .err = "--format is text or json"},
      {.name = "--max-states", .meta = "N", .help = "stop after N states (prefixes) built",
       .kind = AX_OPT_FN, .fn = set_max_states, .target = &o.max_states,
       .err = "--max-states takes a positive integer"},
      {.name = "--no-prune", .help = "no abstract-expression pruning (for comparison)", .kind = AX_OPT_FLAG,
       .target = &no_prune},
      {.name = "--no-gate", .help = "search without checking that the axioms are VERIFIED",
       .kind = AX_OPT_FLAG, .target = &no_gate},
      {.name = "--no-greedy", .help = "no greedy fusion floor: the search alone",
       .kind = AX_OPT_FLAG, .target = &no_greedy},
      {.name = "--max-kernel-ops", .meta = "N", .help = "search limit: operators of a kernel, 1 to 6 (default 3)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 6, .target = &o.max_kernel_ops,
       .err = "--max-kernel-ops takes 1 to 6"},
      {.name = "--max-kernels", .meta = "N", .help = "search limit: kernels, 0 to 6 (default 2)",
       .kind = AX_OPT_INT, .lo = 0, .hi = 6, .target = &o.max_kernels,
       .err = "--max-kernels takes 0 to 6"},
      {.name = "--max-block-ops", .meta = "N", .help = "search limit: operators of a block graph, 2 to 12\n(default 10)",
       .kind = AX_OPT_INT, .lo = 2, .hi = 12, .target = &o.max_block_ops,
       .err = "--max-block-ops takes 2 to 12"},
      {.name = "--progress", .meta = "auto|always|never",
       .help = "progress on standard error (auto: when it is a terminal)",
       .kind = AX_OPT_CHOICE, .words = progresses, .target = &progress,
       .err = "--progress is auto, always or never"},
      {.name = "--found-dir", .meta = "DIR",
       .help = "write every kept graph there as found-NNN.mug, each\nchecked at full shape",
       .kind = AX_OPT_STR, .target = &found_dir},
      {.name = "--reach", .meta = "GRAPH.mug",
       .help = "no search: does the generator build GRAPH (its kernel\nheaders pinned)? exit 0 yes, 1 no",
       .kind = AX_OPT_STR, .target = &reach},
  };
  const AxOptTable t = {.usage = USAGE, .opts = opts, .n = AX_COUNTOF(opts),
                        .unknown = "unknown option", .missing = "option needs a value"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (argc - first > 1) return usage("too many arguments");
  const char *file = first < argc ? argv[first] : NULL;
  bool gate = !no_gate;
  if (no_prune) o.prune = false;
  if (found_dir) o.verify_all = true;   /* every graph written is checked at full shape */
  if (!file) return usage("superopt needs a program file");
  if (!output && !reach) return usage("superopt needs --output BEST.mug");
  if (progress == 1 || (progress == 0 && isatty(2)))
    o.progress = stderr;

  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *p = ax_files_load_program(a, &d, file, prog_name);
  if (!p || !ax_search_supported(p, &d)) {
    ax_arena_free(a);
    return 3;
  }
  if (reach) {
    AxMugraph *pin = ax_files_load_mug(a, &d, reach);
    if (!pin) {
      ax_arena_free(a);
      return 3;
    }
    o.pin = pin;
    AxSearchResult r;
    if (!ax_search_run(p, &o, &d, &r)) {
      ax_arena_free(a);
      return 3;
    }
    if (r.pin_reached)
      printf("%s: reached: the generator builds it (kernel headers pinned; %ld candidates, "
             "%ld states, %ld pruned, %.1f s)\n%s", reach, r.candidates, r.states, r.pruned,
             r.seconds, r.found[0].text);
    else
      printf("%s: not reached (kernel headers pinned; %ld candidates, %ld states, %ld pruned, "
             "%.1f s%s)\n", reach, r.candidates, r.states, r.pruned, r.seconds,
             r.timed_out ? ", time limit" : "");
    int st = r.pin_reached ? 0 : 1;
    ax_search_result_free(&r);
    ax_arena_free(a);
    return st;
  }
  /* Test hook (axle-test only, base/hooks.h): AXLE_TEST_GREEDY_ONLY=1 writes the greedy graph
   * unchecked and stops, so that tests can check the floor of programs whose full-shape
   * check takes minutes with a cheaper `axle equiv --tests N` of their own. */
  const char *gonly = ax_test_hook("AXLE_TEST_GREEDY_ONLY");
  if (gonly && *gonly && output) {
    double gt;
    int nk, nf;
    char *text = ax_greedy_build(p, o.target, &gt, &nk, &nf);
    FILE *f = text ? fopen(output, "w") : NULL;
    if (f) fputs(text, f), fclose(f);
    printf("greedy graph: %s%.4f us modelled, naive %.4f us, %d kernels fusing %d operators\n",
           text ? "" : "none, ", gt * 1e6, ax_cost_time(p, o.target) * 1e6, nk, nf);
    free(text);
    ax_arena_free(a);
    return f ? 0 : 1;
  }
  if (gate && !axioms_proved(rules)) {
    ax_arena_free(a);
    return 3;
  }
  if (!gate) fprintf(stderr, "axle: warning: superopt: --no-gate: pruning relies on axioms not checked in this run\n");
  /* the floor: the greedy fusion, checked, is the search's first incumbent. The time limit
   * bounds the whole run — the floor's check, the search and the final check: every
   * full-shape check stops starting field tests at the deadline (and is then no verdict:
   * the graph is dropped), and the search stops early enough to leave the final check the
   * time the floor's check took, three quarters of what is left at most (a quarter without a floor) */
  AxGreedyResult gr;
  memset(&gr, 0, sizeof gr);
  gr.check = -1;
  bool greedy = !no_greedy;
  double t_start = ax_clock_s();
  if (o.time_limit > 0) o.deadline = t_start + o.time_limit;
  if (greedy) {
    ax_greedy_floor(p, &o, &gr);
    if (gr.text) o.incumbent = gr.text, o.incumbent_s = gr.time_s;
  }
  if (o.time_limit > 0) {
    double left = o.deadline - ax_clock_s();
    double reserve = gr.check_s > 0 ? 1.5 * gr.check_s : 0.25 * left;
    if (reserve > 0.75 * left) reserve = 0.75 * left;
    o.time_limit = left - reserve;
    if (o.time_limit < 1e-3) o.time_limit = 1e-3;
  }
  AxSearchResult r;
  if (!ax_search_run(p, &o, &d, &r)) {
    ax_greedy_result_free(&gr);
    ax_arena_free(a);
    return 3;
  }
  int status = 1;
  bool best_greedy = gr.text && r.nfound && strcmp(r.found[0].text, gr.text) == 0;
  if (r.nfound && r.best_verified && r.found[0].time_s < r.naive_s) {
    FILE *f = fopen(output, "w");
    if (!f) {
      fprintf(stderr, "axle: error: cannot write %s\n", output);
      status = 3;
    } else {
      fputs(r.found[0].text, f);
      fclose(f);
      status = 0;
    }
  }
  /* every kept graph, each checked at full shape (--found-dir implies verify_all) */
  for (int i = 0; found_dir && i < r.nfound; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/found-%03d.mug", found_dir, i);
    FILE *f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "axle: error: cannot write %s\n", path);
      status = 3;
      break;
    }
    fputs(r.found[i].text, f);
    fclose(f);
  }
  double best = r.nfound ? r.found[0].time_s * 1e6 : -1;
  char greedy_us[32];
  snprintf(greedy_us, sizeof greedy_us, "%.4f", gr.time_s * 1e6);
  char greedy_us2[32];
  snprintf(greedy_us2, sizeof greedy_us2, "%.2f", gr.time_s * 1e6);
  if (json) {
    printf("{\"program\": \"%s\", \"target\": \"%s\", \"modelled\": true, \"status\": %d, "
           "\"candidates\": %ld, \"states\": %ld, \"pruned\": %ld, \"checked\": %ld, "
           "\"equivalent\": %ld, \"rejected_final\": %ld, \"late_final\": %ld, \"seconds\": %.3f, "
           "\"search_seconds\": %.3f, \"wall_seconds\": %.3f, "
           "\"best_found_seconds\": %.3f, \"check_seconds\": %.3f, \"ms_per_check\": %.2f, "
           "\"check_cpu_seconds\": %.3f, \"cpu_ms_per_check\": %.2f, "
           "\"final_check_seconds\": %.3f, \"timed_out\": %s, "
           "\"jobs\": %d, \"gated\": %s, \"naive_time_us\": %.4f, ",
           p->name, o.target->name, status, r.candidates, r.states, r.pruned, r.checked,
           r.equivalent, r.rejected_final, r.late_final, r.seconds, r.search_s, ax_clock_s() - t_start,
           r.best_found_s, r.check_s,
           r.checked ? r.check_s * 1e3 / (double)r.checked : 0.0, r.check_cpu_s,
           r.checked ? r.check_cpu_s * 1e3 / (double)r.checked : 0.0, r.final_s,
           r.timed_out ? "true" : "false", o.jobs,
           gate ? "true" : "false", r.naive_s * 1e6);
    if (!greedy) printf("\"greedy\": null, ");
    else
      printf("\"greedy\": {\"time_us\": %s, \"kernels\": %d, \"fused_ops\": %d, \"check\": %d, "
             "\"build_seconds\": %.3f, \"check_seconds\": %.3f}, \"best_is_greedy\": %s, ",
             gr.text ? greedy_us : "null", gr.kernels, gr.fused_ops, gr.check, gr.build_s, gr.check_s,
             best_greedy ? "true" : "false");
    if (best >= 0) printf("\"best_time_us\": %.4f, \"output\": \"%s\"}\n", best, status == 0 ? output : "");
    else printf("\"best_time_us\": null, \"output\": \"\"}\n");
  } else {
    printf("superopt %s: %ld candidates from %ld states (%ld pruned), %ld checked, %ld equivalent, "
           "%.1f s%s\n",
           p->name, r.candidates, r.states, r.pruned, r.checked, r.equivalent, r.seconds,
           r.timed_out ? " (time limit)" : "");
    printf("naive graph: %.2f us modelled on %s\n", r.naive_s * 1e6, o.target->name);
    if (!greedy)
      printf("greedy graph: off (--no-greedy)\n");
    else if (gr.text)
      printf("greedy graph: %.2f us modelled (%.2fx), %d kernel%s fusing %d operators, checked in %.1f s\n",
             gr.time_s * 1e6, r.naive_s / gr.time_s, gr.kernels, gr.kernels == 1 ? "" : "s", gr.fused_ops,
             gr.check_s);
    else if (gr.check == 4)
      printf("greedy graph: its check did not finish within the time limit (%.1f s), not used\n",
             gr.check_s);
    else if (gr.check > 0)
      printf("greedy graph: refused by the equivalence check (status %d), not used\n", gr.check);
    else
      printf("greedy graph: none (no fusion applies)\n");
    if (best >= 0) printf("best found after %.1f s of search (%.1f s searched)\n", r.best_found_s, r.search_s);
    if (r.checked)
      printf("filter: %ld checks, %.1f ms per check (%.1f ms CPU); final full-shape check %.1f s\n",
             r.checked, r.check_s * 1e3 / (double)r.checked, r.check_cpu_s * 1e3 / (double)r.checked,
             r.final_s);
    if (r.late_final)
      printf("time limit: %ld faster graph%s found but not checked in time, not used\n", r.late_final,
             r.late_final == 1 ? "" : "s");
    if (best >= 0)
      printf("best graph:  %.2f us modelled (%.2fx)%s%s%s\n", best, r.naive_s * 1e6 / best,
             best_greedy ? ", the greedy graph" : "",
             status == 0 ? ", written to " : ", not better than the naive graph",
             status == 0 ? output : "");
    else
      printf("no equivalent graph found\n");
    if (status == 0 && greedy)
      printf("modelled: naive %.2f us, greedy %s us, best %.2f us\n", r.naive_s * 1e6,
             gr.text ? greedy_us2 : "-", best);
    if (status == 1)
      printf("nothing better than the naive graph: %s, and the search found nothing faster%s\n",
             !greedy ? "greedy floor off" : gr.check == 4 ? "the greedy graph's check did not finish in time"
             : gr.check > 0 ? "the greedy graph was refused" : "no fusion applies", r.timed_out ? " in time" : "");
  }
  ax_search_result_free(&r);
  ax_greedy_result_free(&gr);
  ax_arena_free(a);
  return status;
}
