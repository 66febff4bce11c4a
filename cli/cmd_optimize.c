/* cmd_optimize.c — `axle optimize`: equality saturation of a program with proved rules
 * (superopt/eqsat; docs/egraph.md, docs/cli.md).
 *
 *   axle optimize [--rules DIR]... PROGRAM.axl|MODULE.hlo --output OUT.axl|OUT.hlo
 *                 [--format text|json] [--skip-unproved] [--program NAME]
 *                 [--target h200|h100|a100] [--node-limit N] [--iter-limit N] [--explain]
 *                 [--extract greedy|ilp] [--ilp-time-limit S] [--dry-run]
 *       0 the extracted program is written (checked equivalent first); 1 the extracted
 *       program is not equivalent to the input (nothing written: a bug in a translation);
 *       3 bad input, a rule that `axle verify` does not prove (each named) without
 *       --skip-unproved, or an output the equivalence check cannot decide (nothing
 *       written). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "base/mem.h"
#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "dsl/parse.h"
#include "hlo/import.h"
#include "hlo/print.h"
#include "run/cache.h"
#include "egraph/explain.h"
#include "egraph/extract.h"
#include "egraph/ilp.h"
#include "egraph/run.h"
#include "superopt/eqsat/lang.h"
#include "superopt/eqsat/rules.h"
#include "superopt/eqsat/tohlo.h"
#include "superopt/equiv/equiv.h"
#include "superopt/ir/load.h"
#include "superopt/search/axioms.h"
#include "superopt/search/partition.h"

#define USAGE                                                                                      \
  "usage: axle optimize [--rules DIR]... PROGRAM.axl|MODULE.hlo --output OUT.axl|OUT.hlo\n"        \
  "                     [--format text|json] [--skip-unproved] [--program NAME]\n"                 \
  "                     [--target " AX_COST_TARGETS "] [--node-limit N] [--iter-limit N]\n"        \
  "                     [--explain] [--extract greedy|ilp] [--ilp-time-limit S]\n"                \
  "                     [--dry-run] [--memory MB]\n"

#define MAX_DIRS 32

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

typedef struct Dirs {
  const char *dir[MAX_DIRS];
  int n;
} Dirs;

static bool add_dir(void *target, const char *v) {
  Dirs *d = target;
  if (d->n == MAX_DIRS) return false;
  d->dir[d->n++] = v;
  return true;
}

static bool set_target(void *target, const char *v) {
  return (*(const AxTarget **)target = ax_cost_target(v)) != NULL;
}

/* What the gate and the translation found, rule by rule. */
typedef struct Gate {
  AxEqRules rules;
  FILE *unproved, *skipped, *untranslated;   /* one line per rule */
  int nunproved, nskipped, nproved, ntranslated, nuntranslated;
} Gate;

static void on_rule(void *ctx, const char *path, const AxSource *src, const AxBlock *rule,
                    AxGateStatus status, const char *failure) {
  Gate *g = ctx;
  int line, col;
  ax_source_linecol(src, rule->span.start, &line, &col);
  if (status == AX_GATE_SKIPPED) {
    fprintf(g->skipped, "(expect %s): %s:%d: %s\n", rule->expect == AX_EXPECT_TRIVIAL ? "trivial" : "invalid",
            path, line, rule->name.name);
    g->nskipped++;
    return;
  }
  if (status == AX_GATE_FAILED) {
    fprintf(g->unproved, "%s\n", failure);
    g->nunproved++;
    return;
  }
  g->nproved++;
  char where[512];
  snprintf(where, sizeof where, "%s:%d", path, line);
  const char *why = NULL;
  if (ax_eq_rules_add(&g->rules, rule, where, &why) > 0) {
    g->ntranslated++;
  } else {
    fprintf(g->untranslated, "%s: %s: %s\n", where, rule->name.name, why);
    g->nuntranslated++;
  }
}

/* The lines of a memstream buffer, each prefixed (stderr). */
static void lines(const char *prefix, const char *text) {
  for (const char *s = text; *s;) {
    size_t n = strcspn(s, "\n");
    fprintf(stderr, "%s%.*s\n", prefix, (int)n, s);
    s += n + (s[n] == '\n');
  }
}

/* The scalars of the input module, held as [1] by the importer, made scalars again in the
 * module printed: a parameter by its program name, an output by its position (the output
 * program's outputs are the input's, in order). A value of other dims is left alone. */
static void scalars_back(AxArena *a, AxHloPProg *out, const AxHloProgram *in) {
  AxHloPVal *vals = (AxHloPVal *)out->vals;
  for (int i = 0; i < out->nvals; i++) {
    AxHloPVal *v = &vals[i];
    if (v->kind != AX_HP_PARAM || v->rank != 1 || v->dims[0] != 1) continue;
    for (int k = 0; k < in->nscalar_inputs && !v->scalar; k++) v->scalar = !strcmp(in->scalar_inputs[k], v->name);
  }
  if (!in->output_scalar || in->noutputs != out->nouts) return;
  bool *sc = ax_arena_alloc(a, sizeof *sc * ((size_t)out->nouts + 1));
  for (int k = 0; k < out->nouts; k++) {
    const AxHloPVal *v = &out->vals[out->outs[k]];
    sc[k] = in->output_scalar[k] && v->rank == 1 && v->dims[0] == 1;
  }
  out->out_scalar = sc;
}

/* The HLO module `text` (printed here) imported and lowered, as any .hlo is read; NULL after
 * reporting through stderr (an internal error: the printer writes what the importer reads). */
static AxMugraph *reimport(AxArena *a, const char *path, const char *text) {
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxSource *src = ax_source_from_text(a, path, text, strlen(text));
  AxHloModule *m = ax_hlo_parse(a, &d, src);
  AxHloProgram hp;
  if (!m || !ax_hlo_import(a, &d, m, &hp)) return NULL;
  AxMugraph *g = ax_load_from_text(a, &d, ax_arena_printf(a, "%s (imported program)", path), hp.text,
                                   &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
  return g && hp.ncuts == 0 ? g : NULL;
}

/* The program term t prints as, lowered quietly (NULL when it does not lower), and its text
 * (owned by the caller) in *text. */
static AxMugraph *lower_term(AxArena *a, const AxEqLang *L, const char *name, const char *path,
                             const AxEgTerm *t, char **text, size_t *tlen) {
  *text = NULL;
  FILE *tf = open_memstream(text, tlen);
  ax_eq_print_program(tf, L, name, t);
  fclose(tf);
  return ax_load_from_text(a, NULL, path, *text, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
}

/* The explanation of one run: the steps from the input's term to the extracted one. */
typedef struct Explained {
  bool ok;               /* found within the step bound */
  size_t replay;         /* ax_eg_explain_replay's answer (0: the steps give the output) */
  AxEgExplanation x;
} Explained;

/* A flattened explanation can grow exponentially with nested congruences; beyond this many
 * steps it is not printed (said). */
#define MAX_STEPS 100000

static bool conflicts_free(const AxEqLang *L) { return L->conflicts == 0; }

static void explain_run(Explained *ex, AxEgraph *eg, AxEgId root, const AxEgTerm *out, AxArena *a) {
  AxEgTerm in;
  ax_eg_exact_term(eg, root, a, &in);
  AxEgId o = ax_eg_add_term_exact(eg, out);
  ax_eg_rebuild(eg);
  ex->ok = ax_eg_explain(eg, root, o, MAX_STEPS, a, &ex->x);
  /* a step with no rule is constant folding (lang.c's analysis), replayed by arithmetic; a
   * relabel rule's (an applier's) by composing the permutations */
  if (ex->ok) ex->replay = ax_eg_explain_replay_with(eg, &in, &ex->x, out, ax_eq_step_check, NULL);
}

/* One step's rule: its index in rs, name (the file's), key, and the direction in the file. */
typedef struct StepInfo {
  size_t i;
  const char *rule, *at, *dir, *output, *before, *after;
  char key[17];
} StepInfo;

static void step_info(StepInfo *si, const AxEgStep *st, const AxEqRules *rs, AxCache *cache,
                      AxEgraph *eg, const AxEqLang *L, AxArena *a) {
  const AxEgRewrite *rw = st->rule;
  const AxBlock *b = NULL;
  snprintf(si->key, sizeof si->key, "-");
  if (!rw) {
    /* the analysis's union: exact arithmetic of literals, no rule behind it */
    si->i = SIZE_MAX;
    si->rule = "constant folding";
    si->at = "exact arithmetic of literals";
    si->dir = "folded";
  } else {
    si->i = (size_t)(rw - rs->rw);
    b = rs->block[si->i];
    si->rule = b->name.name;
    si->at = rs->origin[si->i];
    si->dir = st->forward != rs->reversed[si->i] ? "lhs => rhs" : "rhs => lhs";
  }
  /* the key of the result at real (the element type the rewrite is applied at): the name
   * of its entry in the cache of `axle verify` */
  if (cache && b) {
    char *key = ax_cache_key(cache, b, AX_REAL), path[4096];
    const char *e = strrchr(ax_cache_entry_path(cache, key, path, sizeof path), '/');
    snprintf(si->key, sizeof si->key, "%.16s", e ? e + 1 : path);
    free(key);
  }
  si->output = st->depth ? L->prog->tensors[L->prog->outputs[st->path[0]]].name : NULL;
  for (int k = 0; k < 2; k++) {
    AxEgTerm t;
    ax_eg_exact_term(eg, k ? st->after : st->before, a, &t);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ax_eq_print_expr(f, L, &t);
    fclose(f);
    *(k ? &si->after : &si->before) = ax_arena_strdup(a, text);
    free(text);
  }
}

int ax_cmd_optimize(int argc, char **argv) {
  Dirs dirs = {0};
  const char *output = NULL, *prog_name = NULL;
  const AxTarget *target = ax_cost_target(AX_COST_DEFAULT);
  bool skip = false, explain = false, dry = false;
  int json = 0, first = 1, node_limit = 10000, iter_limit = 30, use_ilp = 0, ilp_limit = 10;
  static const char *const formats[] = {"text", "json", NULL};
  static const char *const extracts[] = {"greedy", "ilp", NULL};
  ax_opts_memory_default();
  const AxOpt opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--rules", .meta = "DIR",
       .help = "a directory of rules to apply, repeatable (default rules/xla,\nrules/xla-extra and rules/superopt)",
       .kind = AX_OPT_FN, .fn = add_dir, .target = &dirs, .err = "at most 32 --rules directories"},
      {.name = "--output", .meta = "OUT.axl|OUT.hlo", .help = "where the optimized program goes (.hlo: as an HLO module)",
       .kind = AX_OPT_STR, .target = &output},
      {.name = "--format", .meta = "text|json", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &json, .err = "--format is text or json"},
      {.name = "--skip-unproved", .help = "drop rules that are not proved (a warning each) instead of\nstopping",
       .kind = AX_OPT_FLAG, .target = &skip},
      {.name = "--program", .meta = "NAME", .help = "the program of a .axl file that has several",
       .kind = AX_OPT_STR, .target = &prog_name},
      {.name = "--target", .meta = AX_COST_TARGETS, .help = "the GPU the cost model prices (default " AX_COST_DEFAULT ")",
       .kind = AX_OPT_FN, .fn = set_target, .target = &target, .err = "--target is " AX_COST_TARGETS_SAID},
      {.name = "--node-limit", .meta = "N", .help = "stop saturating above N e-nodes, 1 to 10000000 (default\n10000)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 10000000, .target = &node_limit,
       .err = "--node-limit takes 1 to 10000000"},
      {.name = "--iter-limit", .meta = "N", .help = "stop saturating after N iterations, 1 to 100000 (default 30)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 100000, .target = &iter_limit,
       .err = "--iter-limit takes 1 to 100000"},
      {.name = "--extract", .meta = "greedy|ilp",
       .help = "greedy by tree cost, or exact by ILP (GLPK): shared subterms\ncounted once (default greedy)",
       .kind = AX_OPT_CHOICE, .words = extracts, .target = &use_ilp, .err = "--extract is greedy or ilp"},
      {.name = "--ilp-time-limit", .meta = "S",
       .help = "seconds the ILP may take, then greedy is used, 1 to 3600\n(default 10)",
       .kind = AX_OPT_INT, .lo = 1, .hi = 3600, .target = &ilp_limit,
       .err = "--ilp-time-limit takes 1 to 3600"},
      {.name = "--dry-run", .help = "report only: no --output, nothing checked or written (figures)",
       .kind = AX_OPT_FLAG, .target = &dry},
      {.name = "--explain", .help = "print the chain of proved rules from the input to the output",
       .kind = AX_OPT_FLAG, .target = &explain},
  };
  const AxOptTable t = {.usage = USAGE, .opts = opts, .n = AX_COUNTOF(opts),
                        .unknown = "unknown option", .missing = "option needs a value"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (argc - first > 1) return usage("too many arguments");
  const char *file = first < argc ? argv[first] : NULL;
  if (!file) return usage("optimize needs a program file");
  if (dry && output) return usage("--dry-run writes nothing: no --output with it");
  if (dry) output = "dry-run.axl";
  if (!output) return usage("optimize needs --output OUT.axl");
  if (use_ilp && !ax_eg_ilp_built()) {
    /* before the gate and the saturation: nothing is run that the request cannot use */
    fprintf(stderr, "axle: error: optimize: --extract ilp needs GLPK, and this axle was built without it "
                    "(install libglpk-dev and rebuild; `axle --version` says ilp: yes|no)\n");
    return 3;
  }
  size_t olen = strlen(output), flen = strlen(file);
  bool hlo_out = olen >= 4 && strcmp(output + olen - 4, ".hlo") == 0;
  bool hlo_in = flen >= 4 && strcmp(file + flen - 4, ".hlo") == 0;
  if (!hlo_out && (olen < 4 || strcmp(output + olen - 4, ".axl") != 0))
    return usage("optimize writes a program: --output must name a .axl or .hlo file");
  if (dirs.n == 0) {
    dirs.dir[dirs.n++] = "rules/xla";
    dirs.dir[dirs.n++] = "rules/xla-extra";
    dirs.dir[dirs.n++] = "rules/superopt";
  }

  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  int status = 3;
  AxMugraph *p;
  AxHloProgram hp = {0};   /* a .hlo input: what the printer needs of it (its scalars) */
  if (hlo_in && hlo_out) {
    /* A cut is an instruction the program does not hold (its result became an input): an
     * HLO module printed from the program would have a parameter in its place. Refused
     * rather than written unfaithfully (docs/hlo.md, "Printing"). */
    p = ax_files_import_hlo(a, &d, file, &hp);
    if (p && prog_name && strcmp(prog_name, hp.name) != 0) {
      fprintf(stderr, "axle: error: optimize: %s: the imported program is '%s', not '%s'\n", file, hp.name,
              prog_name);
      p = NULL;
    } else if (p && hp.ncuts > 0) {
      fprintf(stderr, "axle: error: optimize: %s: imported with %d cut%s (axle import %s lists them); an HLO "
                      "output would lose %s: write a .axl output instead\n",
              file, hp.ncuts, hp.ncuts == 1 ? "" : "s", file, hp.ncuts == 1 ? "it" : "them");
      p = NULL;
    }
    if (p) p = ax_files_drop_dead(a, &d, p, file, &hp, NULL);
  } else {
    p = ax_files_load_live_program(a, &d, file, prog_name);   /* dead code dropped first */
  }
  /* the check of the rewritten program against the input needs what the shapes say (equiv.h):
   * refused before the gate and the saturation spend anything */
  if (p && !ax_mem_fits((uint64_t)ax_equiv_bytes(p, p, 1))) {
    fprintf(stderr, "axle: error: optimize: checking a rewritten program against '%.64s' needs about %lld MB, more "
                    "than the --memory limit of %lld MB\n",
            p->name, (long long)(ax_equiv_bytes(p, p, 1) >> 20) + 1, ax_opts_memory_mb());
    p = NULL;
  }
  if (!p) {
    ax_arena_free(a);
    return 3;
  }

  /* the gate: every rule `axle verify` proves (the cache first), the others named */
  Gate g = {0};
  char *unproved_t = NULL, *skipped_t = NULL, *untr_t = NULL;
  size_t n1 = 0, n2 = 0, n3 = 0;
  g.unproved = open_memstream(&unproved_t, &n1);
  g.skipped = open_memstream(&skipped_t, &n2);
  g.untranslated = open_memstream(&untr_t, &n3);
  AxVerifyOpts vo;
  const char *solver;
  ax_axioms_default_opts(&vo, &solver);
  bool input_ok = true;
  int cached = 0, results = 0;
  for (int i = 0; i < dirs.n; i++) {
    AxAxiomReport rep;
    ax_axioms_gate(dirs.dir[i], &vo, solver, true, on_rule, &g, a, &rep);
    cached += rep.cached, results += rep.results;
    /* failures that are no rule's (a directory that cannot be read, a file that does not
     * parse) are bad input whatever --skip-unproved says; a directory whose rules are all
     * `expect invalid` has nothing to verify and is fine */
    for (const char *s = rep.failures; s && *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != 0)) {
      char line[1024];
      snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
      bool nothing = strstr(line, ": no rule to verify") != NULL;
      if (nothing && rep.skipped > 0) continue;
      if (nothing || strstr(line, ": does not parse") || strstr(line, ": cannot read")) {
        fprintf(stderr, "axle: error: optimize: %s\n", line);
        input_ok = false;
      }
    }
    ax_axiom_report_free(&rep);
  }
  fclose(g.unproved);
  fclose(g.skipped);
  fclose(g.untranslated);
  if (skipped_t[0]) lines("axle: note: optimize: skipped ", skipped_t);
  if (!input_ok) goto done;
  if (g.nunproved > 0 && !skip) {
    fprintf(stderr, "axle: error: optimize: %d rule%s not proved by `axle verify` (pass --skip-unproved to drop %s):\n",
            g.nunproved, g.nunproved == 1 ? " is" : "s are", g.nunproved == 1 ? "it" : "them");
    lines("  ", unproved_t);
    goto done;
  }
  if (g.nunproved > 0) lines("axle: warning: optimize: dropped, not proved: ", unproved_t);

  /* saturation with the rewrites of the proved rules, then greedy extraction */
  AxEqLang L = {.prog = p, .target = target};
  AxEgAnalysis an = ax_eq_analysis(&L);
  AxEgraph *eg = ax_eg_new(&an);
  if (explain) ax_eg_explain_enable(eg);
  AxEgId root;
  if (!ax_eq_add_program(&L, eg, &root)) {
    fprintf(stderr, "axle: error: optimize: %s: only programs of pre-defined operators are optimized\n", file);
    ax_eg_free(eg);
    ax_eq_lang_free(&L);
    goto done;
  }
  size_t nodes0 = ax_eg_nnodes(eg);
  AxEgLimits lim = ax_eg_limits_default();
  lim.nodes = (size_t)node_limit;
  lim.iters = (size_t)iter_limit;
  AxEgReport er;
  ax_eg_run(eg, g.rules.rw, g.rules.n, &lim, &er);
  double t0 = ax_clock_s();
  AxEgTerm term;
  AxEgIlpStatus ilp = AX_EG_ILP_FAILED;
  size_t ilp_vars = 0, ilp_rows = 0;
  /* greedy always (the fallback, and the comparison the report gives), the ILP on demand */
  AxEgExtractor *gx = ax_eg_extractor_new(eg, ax_eq_cost, &L);
  bool extracted = ax_eg_extractor_term(gx, root, a, &term);
  double greedy_dag = ax_eg_extractor_dag_cost(gx, root, ax_eq_cost, &L);
  ax_eg_extractor_free(gx);
  double t_greedy = ax_clock_s() - t0, ilp_dag = NAN;
  if (use_ilp) {
    AxEgTerm it;
    ilp = ax_eg_extract_ilp(eg, root, ax_eq_cost, &L, ilp_limit, a, &it, &ilp_dag, &ilp_vars, &ilp_rows);
    if (ilp == AX_EG_ILP_OPTIMAL) term = it, extracted = true;
  }
  double t_extract = ax_clock_s() - t0, t_ilp = t_extract - t_greedy;
  if (use_ilp && ilp == AX_EG_ILP_TIMEOUT)
    fprintf(stderr, "axle: note: optimize: the ILP extraction reached its time limit (%d s) before proving "
                    "a cheapest program; extracted greedily\n", ilp_limit);
  else if (use_ilp && ilp == AX_EG_ILP_FAILED)
    fprintf(stderr, "axle: note: optimize: the ILP extraction failed (GLPK); extracted greedily\n");
  double programs = ax_eg_count_terms(eg, root);
  const char *how_x = !use_ilp ? "greedy" : ilp == AX_EG_ILP_OPTIMAL ? "ilp" : "greedy (the ilp did not finish)";
  /* Greedy chooses by tree cost (a shared subterm paid per use); the program pays a shared
   * subterm once. Where no proved-optimal ILP term is at hand, a second candidate — the
   * DAG-aware greedy choice — is lowered too, and the program cost model (the one that
   * prices what is written) picks between the two (docs/egraph.md, "Extraction by the
   * program's cost"). */
  double t1 = ax_clock_s(), dag_s = NAN;
  if (extracted && conflicts_free(&L) && !(use_ilp && ilp == AX_EG_ILP_OPTIMAL)) {
    AxEgTerm dt;
    double dag_total;
    if (ax_eg_extract_dag(eg, root, ax_eq_cost, &L, 64, a, &dt, &dag_total)) {
      char *t_g = NULL, *t_d = NULL;
      size_t l_g = 0, l_d = 0;
      AxMugraph *qg = lower_term(a, &L, p->name, output ? output : file, &term, &t_g, &l_g);
      AxMugraph *qd = lower_term(a, &L, p->name, output ? output : file, &dt, &t_d, &l_d);
      double cg = qg ? ax_cost_time(qg, target) : INFINITY, cd = qd ? ax_cost_time(qd, target) : INFINITY;
      dag_s = cd;
      if (cd < cg * (1 - 1e-9)) {
        term = dt;
        how_x = use_ilp ? "greedy-dag (the ilp did not finish)" : "greedy-dag";
      }
      free(t_g);
      free(t_d);
    }
  }
  t_extract += ax_clock_s() - t1;
  Explained ex = {0};
  if (explain && extracted) explain_run(&ex, eg, root, &term, a);
  char *text = NULL;
  size_t tlen = 0;
  FILE *tf = open_memstream(&text, &tlen);
  if (extracted) ax_eq_print_program(tf, &L, p->name, &term);
  fclose(tf);
  size_t conflicts = L.conflicts;

  /* the extracted program, lowered and checked against the input before it is written.
   * Greedy extraction prices each e-node alone, the cost model prices the program: where
   * the program it picks is modelled slower than the input, the input is written instead
   * (the same check runs on it), never a slowdown. */
  AxMugraph *q = NULL;
  bool keep_input = false;
  double before_s = ax_cost_time(p, target);
  for (int pass = 0; pass < 2 && extracted && conflicts == 0; pass++) {
    AxDiag d2;
    ax_diag_init(&d2, stderr);
    q = ax_load_from_text(a, &d2, output, text, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
    if (pass || !q || ax_cost_time(q, target) <= before_s * (1 + 1e-9)) break;
    keep_input = true;
    free(text);
    text = ax_partition_program_text(p);
  }
  /* an .hlo output: the program printed as a module, which is re-imported, and that — what
   * is written — is what the check compares with the input */
  char *hlo_text = NULL;
  const char *hlo_why = NULL;
  if (q && hlo_out) {
    AxHloPProg hpp;
    if (ax_eq_to_hlo(q, a, &hpp, &hlo_why)) {
      scalars_back(a, &hpp, &hp);
      size_t hl = 0;
      FILE *hf = open_memstream(&hlo_text, &hl);
      ax_hlo_print(hf, &hpp);
      fclose(hf);
      q = reimport(a, output, hlo_text);
    } else {
      q = NULL;
    }
  }
  int eq = 3;
  AxEquivHow how = AX_EQUIV_NONE;
  if (q && !dry) {
    AxEquivOpts eo;
    ax_equiv_defaults(&eo);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    eo.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
    eo.out = NULL;
    /* A cross-check, not the proof: every rewrite applied is a VERIFIED rule whose requires
     * held at the match. So a square-root law (sqrt(4) = 2: the field reads sqrt as an
     * uninterpreted function, only the doubles agree) is accepted here — where the search,
     * whose graphs no proof stands behind, refuses it (ax_equiv_accept) — and said. */
    eq = ax_equiv_run_how(p, q, &d, &eo, &how);
  }
  double after_s = q ? ax_cost_time(q, target) : NAN;
  if (keep_input) {
    fprintf(stderr, "axle: note: optimize: the extracted program is modelled slower than the input (greedy "
                    "extraction prices each e-node alone); the input is written unchanged\n");
    ex.x.n = 0;   /* no step leads from the input to what is written */
    ex.replay = 0;
  }
  if (hlo_why) {
    fprintf(stderr, "axle: error: optimize: the optimized program cannot be written as HLO: %s; nothing "
                    "written (write a .axl output)\n", hlo_why);
    status = 3;
  } else if (dry && extracted && !conflicts && q) {
    status = 0;
  } else if (!extracted || conflicts || !q) {
    fprintf(stderr, "axle: error: optimize: internal error: the extracted program is not valid%s\n",
            conflicts ? " (classes of different shapes were merged)" : "");
    status = 1;
  } else if (eq == 1) {
    fprintf(stderr, "axle: error: optimize: the extracted program is not equivalent to %s; nothing written\n", file);
    status = 1;
  } else if (eq != 0) {   /* the check cannot decide (exp and logistic on one path, a comparison) */
    fprintf(stderr, "axle: error: optimize: the program is not established as equivalent to %s (axle equiv "
                    "cannot decide it, status %d); nothing written\n", file, eq);
    status = 3;
  } else {
    AxOut o;
    status = ax_out_open(&o, output) && (fputs(hlo_out ? hlo_text : text, o.f), ax_out_commit(&o)) ? 0 : 3;
    if (how == AX_EQUIV_SQRT_LAW)
      fprintf(stderr, "axle: note: optimize: the field tests cannot see a square-root law the rules "
                      "used; the check in doubles agrees, and each rewrite is a proved rule\n");
  }
  if (er.stop != AX_EG_SATURATED)
    fprintf(stderr, "axle: warning: optimize: saturation stopped at the %s (%zu e-nodes, %zu iterations); "
                    "the program extracted is the best found so far\n",
            ax_eg_stop_name(er.stop), er.nodes, er.iterations);
  if (json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "program", p->name);
    cJSON_AddNumberToObject(j, "rules_proved", g.nproved);
    cJSON_AddNumberToObject(j, "rules_unproved", g.nunproved);
    cJSON_AddNumberToObject(j, "rules_skipped", g.nskipped);
    cJSON_AddNumberToObject(j, "rules_translated", g.ntranslated);
    cJSON_AddNumberToObject(j, "rules_untranslated", g.nuntranslated);
    cJSON_AddNumberToObject(j, "rewrites", (double)g.rules.n);
    cJSON_AddNumberToObject(j, "results_cached", cached);
    cJSON_AddNumberToObject(j, "results", results);
    cJSON_AddStringToObject(j, "stop", ax_eg_stop_name(er.stop));
    cJSON_AddNumberToObject(j, "iterations", (double)er.iterations);
    cJSON_AddNumberToObject(j, "nodes_in", (double)nodes0);
    cJSON_AddNumberToObject(j, "nodes", (double)er.nodes);
    cJSON_AddNumberToObject(j, "classes", (double)er.classes);
    cJSON_AddNumberToObject(j, "saturate_s", er.seconds);
    cJSON_AddNumberToObject(j, "extract_s", t_extract);
    cJSON_AddStringToObject(j, "extraction", how_x);
    cJSON_AddBoolToObject(j, "kept_input", keep_input);
    cJSON_AddNumberToObject(j, "greedy_extract_s", t_greedy);
    if (isfinite(greedy_dag)) cJSON_AddNumberToObject(j, "greedy_dag_cost_us", greedy_dag * 1e6);
    if (isfinite(dag_s)) cJSON_AddNumberToObject(j, "dag_candidate_cost_us", dag_s * 1e6);
    if (use_ilp) {
      cJSON_AddNumberToObject(j, "ilp_extract_s", t_ilp);
      if (ilp == AX_EG_ILP_OPTIMAL) cJSON_AddNumberToObject(j, "ilp_dag_cost_us", ilp_dag * 1e6);
      cJSON_AddStringToObject(j, "ilp_status", ax_eg_ilp_status_name(ilp));
      cJSON_AddNumberToObject(j, "ilp_variables", (double)ilp_vars);
      cJSON_AddNumberToObject(j, "ilp_constraints", (double)ilp_rows);
    }
    if (isfinite(programs)) cJSON_AddNumberToObject(j, "programs", programs);
    else cJSON_AddStringToObject(j, "programs", "unbounded");
    cJSON_AddNumberToObject(j, "cost_before_us", before_s * 1e6);
    if (q) cJSON_AddNumberToObject(j, "cost_after_us", after_s * 1e6);
    cJSON_AddStringToObject(j, "equivalence", dry ? "not checked (--dry-run)" : eq != 0 ? "not established"
                                              : how == AX_EQUIV_SQRT_LAW ? "equivalent in doubles (a square-root law)"
                                                                         : "equivalent");
    if (status == 0 && !dry) cJSON_AddStringToObject(j, "output", output);
    cJSON *un = cJSON_AddArrayToObject(j, "untranslated");
    for (const char *s = untr_t; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != 0)) {
      char line[1024];
      snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
      cJSON_AddItemToArray(un, cJSON_CreateString(line));
    }
    cJSON *app = cJSON_AddArrayToObject(j, "applied");
    for (size_t i = 0; i < g.rules.n; i++) {
      if (!er.rules[i].applied) continue;
      cJSON *r = cJSON_CreateObject();
      cJSON_AddStringToObject(r, "rule", g.rules.rw[i].name);
      cJSON_AddStringToObject(r, "at", g.rules.origin[i]);
      cJSON_AddNumberToObject(r, "merges", (double)er.rules[i].applied);
      cJSON_AddItemToArray(app, r);
    }
    if (explain && ex.ok) {
      char why[256];
      AxCache *cache = ax_cache_open(NULL, &vo, solver, why, sizeof why);
      cJSON_AddBoolToObject(j, "explanation_replayed", ex.replay == 0);
      cJSON *xs = cJSON_AddArrayToObject(j, "explanation");
      for (size_t k = 0; k < ex.x.n; k++) {
        const AxEgStep *st = &ex.x.steps[k];
        StepInfo si;
        step_info(&si, st, &g.rules, cache, eg, &L, a);
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "rule", si.rule);
        cJSON_AddStringToObject(r, "at", si.at);
        cJSON_AddStringToObject(r, "key", si.key);
        cJSON_AddStringToObject(r, "direction", si.dir);
        if (si.output) cJSON_AddStringToObject(r, "output", si.output);
        cJSON *pa = cJSON_AddArrayToObject(r, "path");
        for (uint32_t lv = 0; lv < st->depth; lv++) cJSON_AddItemToArray(pa, cJSON_CreateNumber(st->path[lv]));
        cJSON_AddStringToObject(r, "before", si.before);
        cJSON_AddStringToObject(r, "after", si.after);
        cJSON_AddItemToArray(xs, r);
      }
      ax_cache_close(cache);
    }
    char *s = cJSON_Print(j);
    printf("%s\n", s);
    free(s);
    cJSON_Delete(j);
  } else {
    printf("%s: program '%s': %d rules proved (%d results, %d from the cache), %d skipped (expect invalid or trivial), "
           "%d unproved dropped\n",
           file, p->name, g.nproved, results, cached, g.nskipped, skip ? g.nunproved : 0);
    printf("rewrites: %zu from %d rules; %d proved rules not translated\n", g.rules.n, g.ntranslated,
           g.nuntranslated);
    printf("e-graph: %zu -> %zu e-nodes, %zu classes, %zu iterations, %s, %.3f s; extraction %.3f s\n",
           nodes0, er.nodes, er.classes, er.iterations, ax_eg_stop_name(er.stop), er.seconds, t_extract);
    if (use_ilp)
      printf("extraction: %s; ILP %s, %zu variables, %zu constraints\n", how_x, ax_eg_ilp_status_name(ilp),
             ilp_vars, ilp_rows);
    if (isfinite(programs)) printf("programs represented: %.6g\n", programs);
    else printf("programs represented: unbounded (a cycle)\n");
    for (size_t i = 0; i < g.rules.n; i++)
      if (er.rules[i].applied)
        printf("  applied %s (%s): %zu merges\n", g.rules.rw[i].name, g.rules.origin[i], er.rules[i].applied);
    printf("refused matches: %zu outside the rule's ranks or sizes, %zu with a require false or\n"
           "undecided, %zu with operands of other shapes\n",
           g.rules.refused_rank, g.rules.refused_require, g.rules.refused_shape);
    if (q)
      printf("modelled cost (%s): %.4f us -> %.4f us\n", target->name, before_s * 1e6,
             after_s * 1e6);
    if (status == 0 && !dry)
      printf("equivalent to the input (axle equiv, delta 2^-30); written to %s\n", output);
    if (dry) printf("--dry-run: not checked, nothing written\n");
  }
  if (explain && extracted && !ex.ok)
    fprintf(stderr, "axle: warning: optimize: the explanation is longer than %d steps; not printed\n",
            MAX_STEPS);
  if (explain && ex.ok && ex.replay)
    fprintf(stderr, "axle: error: optimize: internal error: the explanation does not replay to the "
                    "output (%s %zu)\n", ex.replay <= ex.x.n ? "step" : "after step", ex.replay <= ex.x.n ? ex.replay : ex.x.n);
  if (explain && ex.ok && !json) {
    char why[256];
    AxCache *cache = ax_cache_open(NULL, &vo, solver, why, sizeof why);
    printf("explanation: %zu step%s from the input to the output%s\n", ex.x.n, ex.x.n == 1 ? "" : "s",
           ex.replay ? "" : " (replayed: the steps give the output)");
    for (size_t k = 0; k < ex.x.n; k++) {
      StepInfo si;
      step_info(&si, &ex.x.steps[k], &g.rules, cache, eg, &L, a);
      printf("  %zu. %s (%s, %s, key %s)%s%s:\n       %s\n    => %s\n", k + 1, si.rule, si.at, si.dir,
             si.key, si.output ? " in " : "", si.output ? si.output : "", si.before, si.after);
    }
    ax_cache_close(cache);
  }
  free(text);
  free(hlo_text);
  ax_eg_report_free(&er);
  ax_eg_free(eg);
  ax_eq_lang_free(&L);
done:
  free(unproved_t);
  free(skipped_t);
  free(untr_t);
  ax_eq_rules_free(&g.rules);
  ax_arena_free(a);
  return status;
}
