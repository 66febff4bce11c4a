/* cmd_superopt.c — `axle superopt`: search for a fused μGraph (superopt/search/search.h).
 *
 *   axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]
 *                 [--time-limit S] [--top K] [--rules DIR] [--target T]
 *                 [--format text|json] [--max-states N] [--no-prune] [--no-gate]
 *                 [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]
 *                 [--progress auto|always|never] [--found-dir DIR] [--no-greedy]
 *   mpirun -n N axle superopt --mpi [the options above, --output or --output-dir]
 *       one search shared by N ranks (superopt/search/spread.h; --output-dir: the regions
 *       dealt to the ranks); rank 0 alone reports,
 *       writes files and runs the axiom gate; the same exit status on every rank.
 *   axle superopt MODULE.hlo|PROGRAM.axl --output-dir DIR [--max-region-ops N] [--time-limit S]
 *                 [--jobs N] [--format text|json] [the search's options]
 *       a whole module, region by region (superopt/search/partition.h, run_module below):
 *       DIR/R.axl and DIR/R.mug per region, DIR/module.axl and module.mug, report.json;
 *       0 some region's graph written, 1 none, 3 bad input or an unusable DIR.
 *   axle superopt PROGRAM.axl --reach GRAPH.mug [--no-prune] [--jobs N] [--time-limit S]
 *       reachability, not a search: does the generator build GRAPH (its kernel headers
 *       pinned, search.h AxSearchOpts.pin)? 0 yes, 1 no, 3 bad input.
 *       0 found a graph modelled faster than the naive one (written to --output, checked by
 *       the equivalence checker first): the search's best, or the greedy fusion floor
 *       (superopt/search/greedy.h) the search starts from; 1 nothing better: no fusion applies and
 *       the search found nothing faster in time; 3 bad input, or the axioms the pruner
 *       relies on are not all VERIFIED (each one named). --no-greedy: the search alone.
 *   axle superopt PROGRAM.axl --seed-from-egraph --output BEST.mug [the search's options]
 *       the program saturated with the proved rules of --rules first (superopt/eqsat/seed.h),
 *       the search run on the input and on the cheapest variants within the one time limit,
 *       the fastest graph checked against the input; 3 also when a rule of --rules is not
 *       proved (each named). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "dsl/parse.h"
#include "hlo/import.h"
#include "run/mpi.h"
#include "superopt/eqsat/seed.h"
#include "superopt/eqsat/tile.h"
#include "superopt/equiv/equiv.h"
#include "superopt/search/axioms.h"
#include "superopt/search/best.h"
#include "superopt/search/greedy.h"
#include "superopt/search/partition.h"
#include "superopt/ir/dead.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"
#include "superopt/search/prune.h"
#include "superopt/search/search.h"

#define USAGE                                                                                      \
  "usage: axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]\n"               \
  "       axle superopt MODULE.hlo|PROGRAM.axl --output-dir DIR [--max-region-ops N] [...]\n"     \
  "                     [--time-limit S] [--top K] [--rules DIR] [--target " AX_COST_TARGETS "]\n" \
  "                     [--format text|json] [--max-states N] [--no-prune] [--no-gate]\n"         \
  "                     [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]\n"             \
  "                     [--progress auto|always|never] [--found-dir DIR] [--no-greedy] [--mpi]\n"   \
  "                     [--seed-from-egraph] [--memory MB]\n"                                                   \
  "       axle superopt PROGRAM.axl --reach GRAPH.mug [--no-prune] [--jobs N]\n"

/* --mpi: whether this process writes files and reports (rank 0; every process without
 * --mpi). The other ranks search, check and agree, and write nothing. */
static bool writer = true;

/* --mpi: ok on every rank (a collective, run/mpi.h: every rank asks at the same point), so
 * that the ranks take the same branch; ok itself alone. */
static bool agree(const AxSearchOpts *o, bool ok) {
  if (o->ranks <= 1) return ok;
  double v = ok;
  ax_mpi_reduce_all(&v, 1, AX_MPI_MIN);
  return v > 0;
}

/* ax_partition_check_cut's check: the acceptance rule of the module graph */
static int accept_cut(const AxMugraph *prog, const AxMugraph *mod, void *ctx) {
  AxDiag quiet;
  ax_diag_init(&quiet, NULL);
  return ax_equiv_accept(prog, mod, &quiet, ctx);
}

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

/* ---- a whole module: --output-dir DIR (superopt/search/partition.h) ---- */

/* One file of DIR, written whole or not at all (cli/out.h). */
static bool write_file(AxArena *a, const char *dir, const char *base, const char *text) {
  if (!writer) return true;
  AxOut o;
  if (!ax_out_open(&o, ax_arena_printf(a, "%s/%s", dir, base))) return false;
  fputs(text, o.f);
  return ax_out_commit(&o);
}

/* DIR usable for writing: created when absent (its parent must exist), refused when it is
 * not a directory or not writable — before any search is spent. */
static bool output_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT && mkdir(dir, 0777) == 0) return true;
    fprintf(stderr, "axle: error: superopt: cannot create --output-dir %s: %s\n", dir, strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "axle: error: superopt: --output-dir %s is not a directory\n", dir);
    return false;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "axle: error: superopt: --output-dir %s is not writable: %s\n", dir, strerror(errno));
    return false;
  }
  return true;
}

/* The source lines region r comes from, as "3-5,9": the HLO instructions of its lets for an
 * imported module (hp), else the program's lines. */
static const char *region_lines(AxArena *a, const AxMugraph *g, const AxRegion *r, const AxHloProgram *hp) {
  int *ln = ax_arena_alloc(a, sizeof *ln * (size_t)(r->nstmts + 1)), n = 0;
  for (int i = 0; i < r->nstmts; i++) {
    AxSpan sp = g->stmts[r->stmts[i]].span;
    int l = 0, col;
    if (sp.src) ax_source_linecol(sp.src, sp.start, &l, &col);
    if (hp) l = ax_hlo_program_line(hp, l);
    if (l <= 0) continue;
    int k = n++;
    while (k > 0 && ln[k - 1] > l) ln[k] = ln[k - 1], k--;   /* insertion: a handful of lines */
    ln[k] = l;
  }
  char *s = "";
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && ln[j + 1] <= ln[j] + 1) j++;
    s = ln[j] == ln[i] ? ax_arena_printf(a, "%s%s%d", s, *s ? "," : "", ln[i])
                       : ax_arena_printf(a, "%s%s%d-%d", s, *s ? "," : "", ln[i], ln[j]);
    i = j + 1;
  }
  return *s ? s : "-";
}

typedef struct RegionRun {
  double found_us;      /* < 0: nothing written */
  double seconds;       /* the floor and the search */
  int rank;             /* 1: searched first */
  bool greedy;          /* the written graph is the floor's */
  const char *reason;   /* why nothing was written */
  char *graph;          /* the written graph's text (owned) */
  bool in_module;       /* the graph is in module.mug */
  const char *module_reason;   /* a graph that is not: why (join_module) */
} RegionRun;

/* The first error a refused search reported (diagnostics captured in buf), without its
 * location: "the search does not handle 'x' yet". */
static const char *first_error(AxArena *a, const char *buf) {
  const char *e = buf ? strstr(buf, "error: ") : NULL;
  if (!e) return "the search refused the region";
  e += 7;
  size_t n = strcspn(e, "\n");
  return ax_arena_printf(a, "%.*s", (int)n, e);
}

static void json_region(cJSON *arr, const AxRegion *r, const RegionRun *rr, const char *lines) {
  char path[64];
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "name", r->name);
  cJSON_AddStringToObject(j, "lines", lines);
  cJSON_AddNumberToObject(j, "operators", r->nstmts);
  cJSON_AddNumberToObject(j, "rank", rr->rank);
  cJSON_AddNumberToObject(j, "naive_time_us", r->naive_s * 1e6);
  cJSON_AddNumberToObject(j, "estimate_time_us", r->estimate_s * 1e6);
  if (rr->found_us >= 0) cJSON_AddNumberToObject(j, "found_time_us", rr->found_us);
  else cJSON_AddNullToObject(j, "found_time_us");
  cJSON_AddNumberToObject(j, "seconds", rr->seconds);
  cJSON_AddStringToObject(j, "verdict", rr->found_us >= 0 ? "equivalent" : "none");
  if (rr->reason) cJSON_AddStringToObject(j, "reason", rr->reason);
  else cJSON_AddNullToObject(j, "reason");
  cJSON_AddBoolToObject(j, "best_is_greedy", rr->greedy);
  cJSON_AddBoolToObject(j, "in_module", rr->in_module);
  if (rr->module_reason) cJSON_AddStringToObject(j, "module_reason", rr->module_reason);
  else cJSON_AddNullToObject(j, "module_reason");
  snprintf(path, sizeof path, "%s.axl", r->name);
  cJSON_AddStringToObject(j, "program", path);
  snprintf(path, sizeof path, "%s.mug", r->name);
  if (rr->found_us >= 0) cJSON_AddStringToObject(j, "graph", path);
  else cJSON_AddNullToObject(j, "graph");
  cJSON_AddItemToArray(arr, j);
}

/* --mpi, every rank: the regions' results joined — each rank's own regions (runs[i] for
 * the k-th region of part.order with k mod ranks its rank) sent to every rank — and status 0
 * when any region has a graph. False when some rank stopped early (ok false there). */
static bool join_regions(AxArena *a, const AxPartition *part, RegionRun *runs, int *status) {
  int me = 0, ranks = 1;
  ax_mpi_start(&me, &ranks);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  /* per own region: "i found_us seconds greedy " (times exactly: %a), reason NUL, graph NUL */
  for (int k = me; k < part->n; k += ranks) {
    int i = part->order[k];
    const RegionRun *rr = &runs[i];
    fprintf(m, "%d %a %a %d %s%c%s%c", i, rr->found_us, rr->seconds, rr->greedy,
            rr->reason ? rr->reason : "", '\0', rr->graph ? rr->graph : "", '\0');
  }
  fclose(m);
  size_t *lens;
  char *all = ax_mpi_gather_all(buf, len, &lens);
  size_t total = 0;
  for (int r = 0; r < ranks; r++) total += lens[r];
  free(lens);
  free(buf);
  int got = 0;
  for (const char *p = all; p < all + total; got++) {
    int i, greedy;
    double found, secs;
    int n = 0;
    if (sscanf(p, "%d %la %la %d %n", &i, &found, &secs, &greedy, &n) != 4 || i < 0 || i >= part->n) break;
    const char *reason = p + n, *graph = reason + strlen(reason) + 1;
    RegionRun *rr = &runs[i];
    rr->found_us = found;
    rr->seconds = secs;
    rr->greedy = greedy != 0;
    if (!rr->graph) {   /* another rank's region */
      rr->reason = *reason ? ax_arena_printf(a, "%s", reason) : NULL;
      rr->graph = *graph ? strdup(graph) : NULL;
    }
    if (rr->graph) *status = 0;
    p = graph + strlen(graph) + 1;
  }
  free(all);
  return got == part->n;
}

/* How module.mug came to be (join_module). */
typedef struct Joined {
  char *text;          /* module.mug (owned: free()) */
  AxMugraph *g;        /* it, parsed and validated (arena) */
  const char *how;     /* "cut": established cut at the shared statements; "whole": established
                          whole; "naive": the program itself, no region's graph in it */
  int first;           /* the check of every region's graph joined: its status (0 established,
                          1 refused, 2 not established, 3 cannot decide, 4 the deadline); -1
                          when no region had a graph */
  int used;            /* regions whose graph is in it */
} Joined;

/* The check of joined graph mg against program p, as the search checks a result: cut at the
 * statements both hold first (ax_partition_check_cut), then whole — rank 0's, agreed by every
 * rank. *how says which established it. refused (the test hook, join_module) answers 1
 * without checking. */
static int check_joined(AxArena *a, const AxMugraph *p, const AxMugraph *mg, const AxEquivOpts *eo,
                        const AxSearchOpts *o, bool refused, const char **how) {
  int st = 0;   /* --mpi: rank 0's check */
  *how = "cut";
  if (writer && refused) {
    st = 1;
  } else if (writer) {
    /* first the check cut at the statements both graphs hold unchanged (partition.h): it
     * tests only what the regions changed, so a module whose kept matmuls dominate is not
     * tested through them again; where that does not establish it, the whole module (which
     * also decides a module whose cut graphs do not build) */
    st = ax_partition_check_cut(a, p, mg, accept_cut, (void *)eo);
    if (st != 0) {
      AxDiag quiet;
      ax_diag_init(&quiet, NULL);
      int whole = ax_equiv_accept(p, mg, &quiet, eo);
      if (whole != 3 || st == 3) st = whole;
      *how = "whole";
    }
  }
  if (!agree(o, st == 0)) st = st ? st : 1;
  return st;
}

/* The module's graph with the region graphs of `with` (NULL: the region's operators), parsed
 * and validated; NULL after reporting through d (a bug: regions' checked graphs joined by
 * name are valid unless a program name looks like a renamed inner one, R__x). */
static AxMugraph *joined_graph(AxArena *a, AxDiag *d, const AxMugraph *p, const AxPartition *part,
                               const char *const *with, const char *dir, char **text) {
  *text = ax_partition_stitch(a, d, p, part, with, p->name);
  if (!*text) return NULL;
  AxMugraph *mg = ax_load_from_text(a, d, ax_arena_printf(a, "%s/module.mug", dir), *text, NULL);
  if (mg) return mg;
  free(*text);
  *text = NULL;
  return NULL;
}

static const char *left_naive(int st) {
  switch (st) {
  case 1: return "the joined check refused the module with it";
  case 2: return "the joined check did not establish the module with it";
  case 4: return "the joined check did not finish within the time limit";
  default: return "the joined check cannot decide the module with it";
  }
}

/* module.mug: every region's graph in place of its operators (graphs[i], NULL for a region
 * without one), checked against the whole program p before it is used — each region's
 * graph was checked against its region, but the stitching is code, and a graph nothing
 * checked is never written. Where the joined graph is not established (refused, outside
 * what one field test decides, or not in time), the regions are added back one at a time in
 * the search's order (largest modelled gain first), each trial checked the same way, and a
 * region whose trial is not established is left naive — its operators as the program has
 * them — with the reason in runs[i].module_reason; the last established trial is the module.
 * With no region left, module.mug is the program itself, which needs no check: a graph is
 * equivalent to itself. Every check stops at deadline (0: none; --time-limit's end): a check
 * it stops is no verdict, and once it has passed no trial starts. Test hook (axle-test only,
 * base/hooks.h): AXLE_TEST_JOINED_REFUSE=R answers every joined graph holding region R's
 * graph with a refusal, unchecked — a verdict bent toward refusal only. False after reporting
 * through d when a joined graph does not build (a bug). */
static bool join_module(AxArena *a, AxDiag *d, const AxMugraph *p, const AxPartition *part, RegionRun *runs,
                        const char **graphs, const char *dir, const AxSearchOpts *o, double deadline,
                        Joined *jn) {
  AxEquivOpts eo;
  ax_equiv_defaults(&eo);
  eo.seed = o->seed;
  eo.out = NULL;
  eo.jobs = o->jobs < 1 ? 1 : o->jobs;
  eo.deadline = deadline;
  const char *hook = ax_test_hook("AXLE_TEST_JOINED_REFUSE");
  int hooked = -1, nwith = 0;
  for (int i = 0; i < part->n; i++) {
    if (hook && strcmp(hook, part->regions[i].name) == 0) hooked = i;
    nwith += graphs[i] != NULL;
  }
  memset(jn, 0, sizeof *jn);
  jn->first = -1;
  if (nwith) {
    char *text;
    AxMugraph *mg = joined_graph(a, d, p, part, graphs, dir, &text);
    if (!mg) return false;
    const char *how;
    int st = check_joined(a, p, mg, &eo, o, hooked >= 0 && graphs[hooked], &how);
    jn->first = st;
    if (st == 0) {
      *jn = (Joined){text, mg, how, 0, nwith};
      for (int i = 0; i < part->n; i++) runs[i].in_module = graphs[i] != NULL;
      return true;
    }
    free(text);
    if (writer)
      fprintf(stderr, "axle: warning: superopt: %s/module.mug: the regions' graphs joined are not established as "
                      "equivalent to the module (%s); %s\n",
              dir, st == 4 ? "the check did not finish within the time limit"
                   : st == 1 ? "refused" : ax_arena_printf(a, "status %d", st),
              st == 4 ? "no time is left to check fewer of them" : "the regions are added back one by one");
    const char **with = ax_arena_alloc(a, sizeof *with * (size_t)(part->n + 1));   /* zeroed */
    for (int k = 0; k < part->n; k++) {
      int i = part->order[k];
      if (!graphs[i]) continue;
      /* --mpi: every rank takes the same branch (a clock read on each would not) */
      if (!agree(o, !(deadline > 0 && ax_clock_s() > deadline))) {
        runs[i].module_reason = left_naive(4);
        continue;
      }
      with[i] = graphs[i];
      AxMugraph *tg = joined_graph(a, d, p, part, with, dir, &text);
      if (!tg) return false;
      int ts = check_joined(a, p, tg, &eo, o, hooked >= 0 && with[hooked], &how);
      if (ts != 0) {
        with[i] = NULL;
        runs[i].module_reason = left_naive(ts);
        free(text);
        continue;
      }
      free(jn->text);
      jn->text = text, jn->g = tg, jn->how = how;
      jn->used++;
      runs[i].in_module = true;
    }
    for (int i = 0; writer && i < part->n; i++)
      if (graphs[i] && !runs[i].in_module)
        fprintf(stderr, "axle: warning: superopt: region %s left naive in %s/module.mug: %s (%s.mug is still "
                        "written: it was proved against %s.axl)\n",
                part->regions[i].name, dir, runs[i].module_reason, part->regions[i].name, part->regions[i].name);
  }
  if (jn->used == 0) {
    /* the program itself, in the program's order: equivalent to itself, no check needed */
    jn->text = ax_mugtext_string(p);
    jn->g = ax_load_from_text(a, d, ax_arena_printf(a, "%s/module.mug", dir), jn->text, NULL);
    if (!jn->g) return false;
    jn->how = "naive";
  }
  return true;
}

/* The module mode: partition, search every region in the order of its modelled gain with
 * its share of the time budget, write DIR/R.axl for every region and DIR/R.mug for every
 * region a graph was found for, the module's program and graph (module.axl, module.mug:
 * the regions' graphs in place of their operators) and report.json. 0 some region's graph
 * written, 1 none, 3 bad input or a file that cannot be written. */
static int run_module(const char *file, const char *prog_name, const char *dir, AxSearchOpts *o,
                      bool no_greedy, bool gate, const char *rules, int max_ops, bool time_given,
                      bool json) {
  if (!agree(o, !writer || output_dir(dir))) return 3;
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxHloProgram hp;
  size_t fl = strlen(file);
  bool hlo = fl > 4 && strcmp(file + fl - 4, ".hlo") == 0;   /* its lines are reported */
  AxMugraph *p = hlo ? ax_files_import_hlo(a, &d, file, &hp) : ax_files_load_program(a, &d, file, prog_name);
  /* dead code first (superopt/ir/dead.h): the regions, the module's graph and its check are
   * of the program without it */
  AxDead dead = {0};
  if (p) p = ax_files_drop_dead(a, &d, p, file, hlo ? &hp : NULL, &dead);
  AxPartition part;
  if (!p || !ax_partition_split(a, &d, p, max_ops, o->target, &part)) {
    ax_arena_free(a);
    return 3;
  }
  if (hlo && hp.ncuts > 0)
    ax_diag_note(&d, (AxSpan){0}, "%s: imported with %d cut%s (axle import %s lists them)", file,
                 hp.ncuts, hp.ncuts == 1 ? "" : "s", file);
  if (part.n && gate && !agree(o, !writer || axioms_proved(rules))) {
    ax_arena_free(a);
    return 3;
  }
  if (part.n && !gate)
    fprintf(stderr, "axle: warning: superopt: --no-gate: pruning relies on axioms not checked in this run\n");
  /* the budget: --time-limit for the whole module, else 10 s a region; each region gets
   * the share of what is left that its modelled gain is of the gains left (at least a
   * tenth of its naive time counts, so that no region gets nothing) */
  /* --mpi: the regions are dealt to the ranks in that order (the k-th to rank k mod ranks),
   * each searched by its rank alone with the rank's budget shared among its own regions
   * as above; the results are joined after the loop and rank 0 writes the files */
  int me = o->ranks > 1 ? o->rank : 0, ranks = o->ranks > 1 ? o->ranks : 1, own = 0;
  for (int k = me; k < part.n; k += ranks) own++;
  double budget = time_given ? o->time_limit : 10.0 * (ranks > 1 ? own : part.n), t0 = ax_clock_s();
  /* --time-limit bounds the whole module, its joined check included (join_module: every check
   * stops at t0 + budget): the regions share three quarters of it, and what they leave flows
   * to the joined check. Without it, the joined check runs after the regions' 10 s each, as
   * long as it takes. */
  double region_budget = time_given ? 0.75 * budget : budget;
  double *w = ax_arena_alloc(a, sizeof *w * (size_t)(part.n + 1)), wleft = 0;
  for (int k = 0; k < part.n; k++) {
    int i = part.order[k];
    const AxRegion *r = &part.regions[i];
    w[i] = r->naive_s - r->estimate_s;
    if (w[i] < 0.1 * r->naive_s) w[i] = 0.1 * r->naive_s;
    if (w[i] <= 0) w[i] = 1e-9;
    if (k % ranks == me) wleft += w[i];
  }
  RegionRun *runs = ax_arena_alloc(a, sizeof *runs * (size_t)(part.n + 1));
  memset(runs, 0, sizeof *runs * (size_t)(part.n + 1));
  for (int k = 0; k < part.n; k++) runs[part.order[k]].rank = k + 1, runs[part.order[k]].found_us = -1;
  int status = 1;
  bool ok = true;
  for (int k = me; k < part.n && ok; k += ranks) {
    int i = part.order[k];
    const AxRegion *r = &part.regions[i];
    RegionRun *rr = &runs[i];
    double left = region_budget - (ax_clock_s() - t0);
    AxSearchOpts so = *o;
    so.ranks = 1;   /* --mpi: this rank's region, searched by this rank alone */
    so.time_limit = left * w[i] / wleft;
    if (so.time_limit < 0.05) so.time_limit = 0.05;
    wleft -= w[i];
    /* a region starts only while the regions' share of --time-limit lasts: the 0.05 s a
     * region gets at least may overrun it by one region, never by one per region left */
    if (time_given && left <= 0) {
      rr->reason = "not searched: the regions before it took the module's time limit";
      if (ranks == 1) ok = write_file(a, dir, ax_arena_printf(a, "%s.axl", r->name), r->text);
      continue;
    }
    if (so.progress)
      fprintf(so.progress, "region %s (%d of %d, %d operator%s, %.1f s)\n", r->name, k + 1, part.n,
              r->nstmts, r->nstmts == 1 ? "" : "s", so.time_limit);
    char *dbuf = NULL;
    size_t dlen = 0;
    FILE *dm = open_memstream(&dbuf, &dlen);
    AxDiag rd;
    ax_diag_init(&rd, dm);
    AxBestResult br;
    double rs = ax_clock_s();
    bool ran = ax_best_run(r->prog, &so, no_greedy, &rd, &br);
    rr->seconds = ax_clock_s() - rs;
    fclose(dm);
    if (!ran) {
      rr->reason = ax_arena_printf(a, "refused by the search: %s", first_error(a, dbuf));
    } else if (br.better) {
      rr->graph = strdup(br.search.found[0].text);
      rr->found_us = br.search.found[0].time_s * 1e6;
      rr->greedy = br.best_is_greedy;
      if (ranks == 1) ok = write_file(a, dir, ax_arena_printf(a, "%s.mug", r->name), rr->graph);
      status = 0;
    } else {
      const AxSearchResult *sr = &br.search;
      rr->reason = sr->nfound && sr->found[0].time_s < sr->naive_s && !sr->best_verified
                       ? (sr->late_final ? "the best graph's full-shape check did not finish within the region's time"
                                         : "the best graph was refused by the full-shape check")
                   : no_greedy ? "the search found nothing faster than the naive graph"
                   : br.greedy.check == 4 ? "the greedy graph's check did not finish within the region's time, "
                                            "and the search found nothing faster"
                   : br.greedy.check > 0 ? "the greedy graph was refused, and the search found nothing faster"
                   : ax_arena_printf(a, "no fusion applies, and the search found nothing faster%s",
                                     br.search.timed_out ? " in time" : "");
    }
    free(dbuf);
    if (ran) ax_best_free(&br);
    if (ok && ranks == 1) ok = write_file(a, dir, ax_arena_printf(a, "%s.axl", r->name), r->text);
  }
  if (ranks > 1) {
    ok = join_regions(a, &part, runs, &status);
    for (int k = 0; k < part.n && ok; k++) {
      const AxRegion *r = &part.regions[part.order[k]];
      const RegionRun *rr = &runs[part.order[k]];
      if (rr->graph) ok = write_file(a, dir, ax_arena_printf(a, "%s.mug", r->name), rr->graph);
      if (ok) ok = write_file(a, dir, ax_arena_printf(a, "%s.axl", r->name), r->text);
    }
    ok = agree(o, ok);   /* a file rank 0 could not write: every rank stops here */
  }
  /* the module: its program and its graph, every region's graph in place — or, where the
   * joined graph is not established, as many of them as can be (joined) */
  const char **graphs = ax_arena_alloc(a, sizeof *graphs * (size_t)(part.n + 1));
  for (int i = 0; i < part.n; i++) graphs[i] = runs[i].graph;
  char *ptext = ok ? ax_partition_program_text(p) : NULL;
  Joined jn = {0};
  if (ok) ok = join_module(a, &d, p, &part, runs, graphs, dir, o, time_given ? t0 + budget : 0, &jn);
  char *mtext = jn.text;
  double found_us = ok ? ax_cost_time(jn.g, o->target) * 1e6 : -1;
  if (ok && !jn.used) status = 1;   /* no region's graph in the module */
  ok = ok && write_file(a, dir, "module.mug", mtext) && write_file(a, dir, "module.axl", ptext);
  /* the module's naive time: its live operators, one kernel each (the dead ones are not
   * in module.mug either) */
  double naive_us = -1;
  const char **none = ax_arena_alloc(a, sizeof *none * (size_t)(part.n + 1));   /* zeroed */
  char *ntext = ok && jn.used ? ax_partition_stitch(a, &d, p, &part, none, p->name) : NULL;
  if (ok && !jn.used) naive_us = found_us;   /* module.mug is the program itself */
  if (ntext) {
    AxMugraph *ng = ax_load_from_text(a, &d, "<naive module>", ntext, NULL);
    if (ng) naive_us = ax_cost_time(ng, o->target) * 1e6;
    free(ntext);
  }
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "module", file);
  cJSON_AddStringToObject(j, "program", p->name);
  cJSON_AddStringToObject(j, "target", o->target->name);
  cJSON_AddBoolToObject(j, "modelled", true);
  cJSON_AddNumberToObject(j, "status", ok ? status : 3);
  cJSON_AddNumberToObject(j, "time_limit", budget);
  cJSON_AddNumberToObject(j, "seconds", ax_clock_s() - t0);
  cJSON_AddNumberToObject(j, "cuts", hlo ? hp.ncuts : 0);
  cJSON_AddNumberToObject(j, "left_operators", part.nleft);
  /* dead code: what the program's outputs do not reach (dropped before the partition), and
   * broadcasts its readers see through (the partition's own) */
  cJSON_AddNumberToObject(j, "dead_operators", dead.nstmts + part.ndead);
  cJSON *jd = cJSON_AddArrayToObject(j, "dead");
  for (int i = 0; i < dead.nstmts; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", dead.stmts[i].name);
    cJSON_AddNumberToObject(e, "line", ax_files_dead_line(&dead.stmts[i], hlo ? &hp : NULL));
    cJSON_AddItemToArray(jd, e);
  }
  cJSON_AddNumberToObject(j, "naive_time_us", naive_us);
  cJSON_AddStringToObject(j, "module_check", jn.how ? jn.how : "none");
  cJSON_AddNumberToObject(j, "module_check_status", jn.first);
  cJSON_AddNumberToObject(j, "regions_in_module", jn.used);
  if (found_us >= 0) cJSON_AddNumberToObject(j, "found_time_us", found_us);
  else cJSON_AddNullToObject(j, "found_time_us");
  cJSON_AddStringToObject(j, "graph", "module.mug");
  cJSON_AddStringToObject(j, "program_file", "module.axl");
  cJSON *arr = cJSON_AddArrayToObject(j, "regions");
  const char **lines = ax_arena_alloc(a, sizeof *lines * (size_t)(part.n + 1));
  for (int i = 0; i < part.n; i++) {
    lines[i] = region_lines(a, p, &part.regions[i], hlo ? &hp : NULL);
    json_region(arr, &part.regions[i], &runs[i], lines[i]);
  }
  char *js = cJSON_Print(j);
  cJSON_Delete(j);
  if (ok) ok = write_file(a, dir, "report.json", ax_arena_printf(a, "%s\n", js));
  if (ok && json) {
    printf("%s\n", js);
  } else if (ok) {
    printf("superopt %s: %d region%s, %d operator%s left as pre-defined kernels, %d dead, %d cut%s "
           "in the import\n", p->name, part.n, part.n == 1 ? "" : "s", part.nleft,
           part.nleft == 1 ? "" : "s", dead.nstmts + part.ndead, hlo ? hp.ncuts : 0, (hlo ? hp.ncuts : 0) == 1 ? "" : "s");
    int lw = 9;
    if (part.n == 0) printf("no region: no operator the search handles\n");
    for (int i = 0; i < part.n; i++)
      if ((int)strlen(lines[i]) > lw) lw = (int)strlen(lines[i]);
    if (part.n) printf("%-7s %-*s %4s %5s %11s %11s %8s  %s\n", "region", lw, hlo ? "HLO lines" : "lines", "ops",
           "rank", "naive us", "found us", "search s", "verdict");
    for (int i = 0; i < part.n; i++) {
      const AxRegion *r = &part.regions[i];
      const RegionRun *rr = &runs[i];
      char found[32];
      if (rr->found_us >= 0) snprintf(found, sizeof found, "%.2f", rr->found_us);
      else snprintf(found, sizeof found, "-");
      printf("%-7s %-*s %4d %5d %11.2f %11s %8.1f  %s%s%s%s\n", r->name, lw, lines[i], r->nstmts, rr->rank,
             r->naive_s * 1e6, found, rr->seconds, rr->found_us >= 0 ? "equivalent" : "none: ",
             rr->found_us >= 0 ? (rr->greedy ? " (the greedy graph)" : "") : rr->reason,
             rr->module_reason ? "; left naive in the module: " : "", rr->module_reason ? rr->module_reason : "");
    }
    printf("module: naive %.2f us, found %.2f us modelled on %s (%.2fx); %s/module.mug, report.json\n",
           naive_us, found_us, o->target->name, found_us > 0 ? naive_us / found_us : 1.0, dir);
    if (jn.first > 0)
      printf("module check: the regions' graphs joined were %s; %d of them in module.mug (%s)\n",
             jn.first == 4 ? "not checked within the time limit" : jn.first == 1 ? "refused" : "not established",
             jn.used, jn.used ? "each trial checked" : "the program itself");
  }
  free(js);
  for (int i = 0; i < part.n; i++) free(runs[i].graph);
  free(mtext);
  free(ptext);
  ax_arena_free(a);
  return ok ? status : 3;
}

/* ---- --seed-from-egraph: the search on the program's variants (superopt/eqsat/seed.h) ---- */

/* Variants searched: the input and the cheapest three others. */
#define SEED_VARIANTS 4

typedef struct SeedRun {
  bool ran, better;
  double time_s;    /* the best graph's modelled time */
  char *graph;      /* its text (owned) */
  bool greedy;
  double seconds;
  int tile;         /* rewrites applied to the graph at tile level (tile.h): fusions, scale-outs, loops */
  int tile_scale;     /* of them, scales moved out of a matmul */
  int tile_fused;     /* of them, producer kernels fused into their consumers */
  int64_t tile_loop;  /* the for-loop inserted at tile level (0: none) */
  bool tile_refused;  /* a cheaper tile-level graph the check did not prove */
  double search_s;  /* the graph's modelled time as the search found it, before them */
} SeedRun;

/* the searches' part of a seeded run's time limit; the rest is for the checks after them */
static const double seed_search_share = 0.75;

/* The search (floor included) on every variant of p with a share of o's time limit each, the
 * fastest graph checked against p itself — the original program — and written to output.
 * 0 written, 1 nothing better than p's naive graph, 3 bad input or a rule not proved. */
static int run_seeded(AxArena *a, const AxMugraph *p, const AxSearchOpts *o, bool no_greedy, const char *rules,
                      const char *output, bool json) {
  double t0 = ax_clock_s();
  AxSeedResult sr;
  if (ax_seed_variants(a, p, rules, o->target, SEED_VARIANTS, 10000, 30, &sr) != 0) return 3;
  SeedRun runs[AX_SEED_MAX];
  memset(runs, 0, sizeof runs);
  double naive_s = ax_cost_time(p, o->target);
  for (int i = 0; i < sr.n; i++) {
    AxDiag quiet;
    ax_diag_init(&quiet, NULL);
    if (!ax_search_supported(sr.v[i].prog, &quiet)) continue;
    AxSearchOpts so = *o;
    /* the searches' part of the time left (a quarter of the limit stays for the tile-level
     * and final checks against the original program), shared evenly among the variants
     * not searched yet */
    if (o->time_limit > 0) {
      so.time_limit = (seed_search_share * o->time_limit - (ax_clock_s() - t0)) / (sr.n - i);
      if (so.time_limit < 0.05) so.time_limit = 0.05;
    }
    AxBestResult br;
    double rs = ax_clock_s();
    if (!ax_best_run(sr.v[i].prog, &so, no_greedy, &quiet, &br)) continue;
    SeedRun *r = &runs[i];
    r->ran = true;
    r->seconds = ax_clock_s() - rs;
    if (br.better) {
      r->better = true;
      r->time_s = br.search.found[0].time_s;
      r->graph = strdup(br.search.found[0].text);
      r->greedy = br.best_is_greedy;
      r->search_s = r->time_s;
      /* the tile level (tile.h): the scale moved out of a matmul, a loop inserted, the
       * result kept where the cost model prices it lower and the check proves it equivalent
       * to the original program when applied (a graph it refuses leaves the search's) */
      AxTileCounts tcn;
      char *tt = ax_tile_rewrite(a, r->graph, o->target, &tcn);
      AxMugraph *tg = tt ? ax_load_from_text(a, NULL, "<tile rewrite>", tt, NULL) : NULL;
      double tc = tg ? ax_cost_time(tg, o->target) : INFINITY;
      AxEquivOpts teo;
      ax_equiv_defaults(&teo);
      teo.seed = o->seed;
      teo.out = NULL;
      teo.jobs = o->jobs < 1 ? 1 : o->jobs;
      if (o->time_limit > 0) teo.deadline = t0 + o->time_limit;   /* late: refused, as §11 */
      if (tg && tc < r->time_s * (1 - 1e-9) && ax_equiv_accept(p, tg, &quiet, &teo) == 0) {
        free(r->graph);
        r->graph = tt, r->time_s = tc, r->tile = tcn.scale_out + tcn.loops + tcn.fused;
        r->tile_loop = tcn.forloop, r->tile_scale = tcn.scale_out, r->tile_fused = tcn.fused;
      } else {
        r->tile_refused = tg && tc < r->time_s * (1 - 1e-9);
        free(tt);
      }
    }
    ax_best_free(&br);
  }
  /* the fastest graph that the check accepts against the original program */
  int best = -1;
  for (;;) {
    int b = -1;
    for (int i = 0; i < sr.n; i++)
      /* ties: a graph the search built before one rewritten at tile level */
      if (runs[i].better && runs[i].time_s < naive_s &&
          (b < 0 || runs[i].time_s < runs[b].time_s * (1 - 1e-9) ||
           (runs[i].time_s <= runs[b].time_s * (1 + 1e-9) && runs[i].tile < runs[b].tile)))
        b = i;
    if (b < 0) break;
    /* the input's own graph was checked against this very program by its run (and a tile
     * rewrite of it when applied): no second check that a late deadline could void */
    if (sr.v[b].prog == p) {
      best = b;
      break;
    }
    AxDiag d;
    ax_diag_init(&d, stderr);
    AxMugraph *g = ax_load_from_text(a, &d, "<seeded graph>", runs[b].graph, NULL);
    AxEquivOpts eo;
    ax_equiv_defaults(&eo);
    eo.seed = o->seed;
    eo.out = NULL;
    eo.jobs = o->jobs < 1 ? 1 : o->jobs;
    if (o->time_limit > 0) eo.deadline = t0 + o->time_limit;
    AxDiag quiet;
    ax_diag_init(&quiet, NULL);
    int st = g ? ax_equiv_accept(p, g, &quiet, &eo) : 1;
    if (st == 0) {
      best = b;
      break;
    }
    if (st == 4)
      fprintf(stderr, "axle: warning: superopt: the check of the graph found for variant %d against "
                      "the original program did not finish within the time limit; not used\n", b);
    else
      fprintf(stderr, "axle: warning: superopt: the graph found for variant %d is not established as "
                      "equivalent to the original program; not used\n", b);
    runs[b].better = false;
  }
  int status = best >= 0 ? 0 : 1;
  if (best >= 0) {
    AxOut out;
    if (!ax_out_open(&out, output)) status = 3;
    else {
      fputs(runs[best].graph, out.f);
      if (!ax_out_commit(&out)) status = 3;
    }
  }
  double alone = runs[0].better ? runs[0].search_s : naive_s;
  if (json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "program", p->name);
    cJSON_AddStringToObject(j, "target", o->target->name);
    cJSON_AddBoolToObject(j, "modelled", true);
    cJSON_AddNumberToObject(j, "status", status);
    cJSON_AddNumberToObject(j, "rules_proved", sr.nproved);
    cJSON_AddNumberToObject(j, "rules_translated", sr.ntranslated + (sr.scale_out ? 1 : 0));
    cJSON_AddStringToObject(j, "stop", sr.stop ? sr.stop : "");
    cJSON_AddNumberToObject(j, "nodes_in", (double)sr.nodes0);
    cJSON_AddNumberToObject(j, "nodes", (double)sr.nodes);
    cJSON_AddNumberToObject(j, "naive_time_us", naive_s * 1e6);
    cJSON_AddNumberToObject(j, "search_alone_time_us", alone * 1e6);
    cJSON *arr = cJSON_AddArrayToObject(j, "variants");
    for (int i = 0; i < sr.n; i++) {
      cJSON *v = cJSON_CreateObject();
      cJSON_AddNumberToObject(v, "variant", i);
      cJSON_AddNumberToObject(v, "program_cost_us", sr.v[i].cost_s * 1e6);
      if (runs[i].better) cJSON_AddNumberToObject(v, "found_time_us", runs[i].time_s * 1e6);
      else cJSON_AddNullToObject(v, "found_time_us");
      cJSON_AddBoolToObject(v, "searched", runs[i].ran);
      cJSON_AddNumberToObject(v, "tile_rewrites", runs[i].tile);
      cJSON_AddNumberToObject(v, "tile_scale_outs", runs[i].tile_scale);
      cJSON_AddNumberToObject(v, "tile_fusions", runs[i].tile_fused);
      cJSON_AddNumberToObject(v, "tile_forloop", (double)runs[i].tile_loop);
      if (runs[i].better) cJSON_AddNumberToObject(v, "search_time_us", runs[i].search_s * 1e6);
      else cJSON_AddNullToObject(v, "search_time_us");
      cJSON_AddNumberToObject(v, "seconds", runs[i].seconds);
      cJSON_AddStringToObject(v, "program_text", sr.v[i].text);
      cJSON *steps = cJSON_AddArrayToObject(v, "rules");
      for (int k = 0; k < sr.v[i].nsteps; k++) cJSON_AddItemToArray(steps, cJSON_CreateString(sr.v[i].steps[k]));
      cJSON_AddItemToArray(arr, v);
    }
    if (best >= 0) {
      cJSON_AddNumberToObject(j, "chosen_variant", best);
      cJSON_AddNumberToObject(j, "best_time_us", runs[best].time_s * 1e6);
      cJSON_AddBoolToObject(j, "best_is_greedy", runs[best].greedy);
      cJSON_AddStringToObject(j, "output", output);
    } else {
      cJSON_AddNullToObject(j, "chosen_variant");
      cJSON_AddNullToObject(j, "best_time_us");
    }
    cJSON_AddNumberToObject(j, "seconds", ax_clock_s() - t0);
    char *js = cJSON_Print(j);
    printf("%s\n", js);
    free(js);
    cJSON_Delete(j);
  } else {
    printf("seed %s: %d rules proved, e-graph %zu -> %zu e-nodes (%s), %d variant%s searched\n", p->name,
           sr.nproved, sr.nodes0, sr.nodes, sr.stop ? sr.stop : "-", sr.n, sr.n == 1 ? "" : "s");
    for (int i = 0; i < sr.n; i++) {
      char found[32];
      if (runs[i].better) snprintf(found, sizeof found, "%.2f us", runs[i].time_s * 1e6);
      else snprintf(found, sizeof found, "-");
      printf("variant %d%s: program %.2f us, best graph %s%s%s\n", i, i == 0 ? " (the input)" : "",
             sr.v[i].cost_s * 1e6, found, runs[i].ran ? "" : " (not searched: the search refuses it)",
             !runs[i].tile ? "" : runs[i].tile_loop ? " (rewritten at tile level: a for-loop inserted)"
             : runs[i].tile_scale ? " (scale moved out of a matmul at tile level)" : " (kernels fused at tile level)");
      for (int k = 0; k < sr.v[i].nsteps; k++) printf("    %d. %s\n", k + 1, sr.v[i].steps[k]);
    }
    printf("naive graph: %.2f us modelled on %s; the input searched alone: %.2f us\n", naive_s * 1e6,
           o->target->name, alone * 1e6);
    if (best >= 0)
      printf("best graph:  %.2f us modelled (%.2fx), from variant %d%s, equivalent to the input; written to %s\n",
             runs[best].time_s * 1e6, naive_s / runs[best].time_s, best, runs[best].greedy ? " (the greedy graph)" : "",
             output);
    else
      printf("nothing better than the naive graph\n");
  }
  for (int i = 0; i < sr.n; i++) free(runs[i].graph);
  return status;
}

static int superopt(int argc, char **argv) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  const char *prog_name = NULL, *output = NULL, *rules = "rules/superopt";
  const char *found_dir = NULL, *reach = NULL, *output_dir_path = NULL;
  int max_region_ops = 8;
  bool no_prune = false, no_gate = false, no_greedy = false, mpi = false, seed = false;
  int json = 0, progress = 0, first = 1;
  static const char *const formats[] = {"text", "json", NULL};
  static const char *const progresses[] = {"auto", "always", "never", NULL};   /* 0, 1, 2 */
  ax_opts_memory_default();
  const AxOpt opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--program", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog_name},
      {.name = "--output", .meta = "BEST.mug",
       .help = "where the best graph goes when it is modelled faster than\nthe naive one",
       .kind = AX_OPT_STR, .target = &output},
      {.name = "--output-dir", .meta = "DIR",
       .help = "a whole module: split into regions, search each, write\nDIR/R.mug, DIR/R.axl, module.mug, report.json",
       .kind = AX_OPT_STR, .target = &output_dir_path},
      {.name = "--max-region-ops", .meta = "N",
       .help = "with --output-dir: operators of a region, 1 to 64 (default 8)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 64, .target = &max_region_ops,
       .err = "--max-region-ops takes 1 to 64"},
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
      {.name = "--target", .meta = AX_COST_TARGETS, .help = "the GPU modelled (default " AX_COST_DEFAULT ")",
       .kind = AX_OPT_FN, .fn = set_target, .target = &o.target, .err = "--target is " AX_COST_TARGETS_SAID},
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
      {.name = "--mpi",
       .help = "under mpirun: one search shared by the ranks (prefixes\ndealt round robin, the bound shared, the final checks\nspread); rank 0 reports and writes",
       .kind = AX_OPT_FLAG, .target = &mpi},
      {.name = "--seed-from-egraph",
       .help = "saturate the program with the proved rules of --rules first\nand search it and its cheapest variants",
       .kind = AX_OPT_FLAG, .target = &seed},
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
  if (output_dir_path && (output || reach || found_dir))
    return usage("--output-dir is not used with --output, --reach or --found-dir");
  if (!output && !reach && !output_dir_path) return usage("superopt needs --output BEST.mug or --output-dir DIR");
  if (mpi && !ax_mpi_built()) return usage("--mpi needs an axle built with MPI (axle --version says mpi: no)");
  if (mpi && reach) return usage("--mpi is not used with --reach");
  if (seed && (mpi || reach || output_dir_path || found_dir))
    return usage("--seed-from-egraph is not used with --mpi, --reach, --output-dir or --found-dir");
  if (progress == 1 || (progress == 0 && isatty(2)))
    o.progress = stderr;
  if (mpi) {
    if (!ax_mpi_start(&o.rank, &o.ranks)) {
      fprintf(stderr, "axle: error: superopt: --mpi: MPI did not start\n");
      return 3;
    }
    if (o.rank != 0) {
      /* the other ranks: every message they would print, rank 0 prints too */
      writer = false;
      o.progress = NULL;
      int null = open("/dev/null", O_WRONLY);
      if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) return 3;
      close(null);
    }
  }

  if (output_dir_path)
    return run_module(file, prog_name, output_dir_path, &o, no_greedy, gate, rules, max_region_ops,
                      o.time_limit > 0, json);
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *p = ax_files_load_live_program(a, &d, file, prog_name);
  /* the memory its checks need is known from the shapes: refused before the gate, the floor
   * or the search spend anything (superopt/search/best.h) */
  if (!p || !ax_search_supported(p, &d) || !ax_best_fits(p, &o, &d)) {
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
  /* --mpi: rank 0 alone runs the gate (and writes the result cache) */
  if (gate && !agree(&o, !writer || axioms_proved(rules))) {
    ax_arena_free(a);
    return 3;
  }
  if (!gate) fprintf(stderr, "axle: warning: superopt: --no-gate: pruning relies on axioms not checked in this run\n");
  if (seed) {
    int st = run_seeded(a, p, &o, no_greedy, rules, output, json);
    ax_arena_free(a);
    return st;
  }
  /* the floor, then the search from it (superopt/search/best.h) */
  bool greedy = !no_greedy;
  double t_start = ax_clock_s();
  AxBestResult br;
  if (!ax_best_run(p, &o, no_greedy, &d, &br)) {
    ax_arena_free(a);
    return 3;
  }
  AxGreedyResult gr = br.greedy;
  AxSearchResult r = br.search;
  int status = 1;
  bool best_greedy = br.best_is_greedy;
  if (br.better && !writer) {
    status = 0;
  } else if (br.better) {
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
  for (int i = 0; found_dir && writer && i < r.nfound; i++) {
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
             "\"build_seconds\": %.3f, \"check_seconds\": %.3f, \"check_groups\": %d, "
             "\"dropped_groups\": %d}, \"best_is_greedy\": %s, ",
             gr.text ? greedy_us : "null", gr.kernels, gr.fused_ops, gr.check, gr.build_s, gr.check_s,
             gr.groups, gr.dropped, best_greedy ? "true" : "false");
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
  ax_best_free(&br);
  ax_arena_free(a);
  return status;
}

int ax_cmd_superopt(int argc, char **argv) {
  int st = superopt(argc, argv);
  ax_mpi_stop();   /* after --mpi started it; nothing otherwise */
  return st;
}
