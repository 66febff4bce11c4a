/* cmd_search.c — `axle superopt`: search for a fused μGraph (superopt/search.h).
 *
 *   axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]
 *                 [--time-limit S] [--top K] [--rules DIR] [--target T]
 *                 [--format text|json] [--max-states N] [--no-prune] [--no-gate]
 *                 [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]
 *                 [--progress auto|always|never] [--found-dir DIR]
 *       0 found a graph modelled faster than the naive one (written to --output, checked by
 *       the equivalence checker first), 1 nothing better in time, 3 bad input, or the
 *       axioms the pruner relies on are not all VERIFIED (each one named). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "dsl/parse.h"
#include "superopt/program.h"
#include "superopt/prune.h"
#include "superopt/search.h"

static int usage(const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fprintf(stderr,
          "usage: axle superopt PROGRAM.axl [--program NAME] --output BEST.mug [--jobs N]\n"
          "                     [--time-limit S] [--top K] [--rules DIR] [--target h100|a100]\n"
          "                     [--format text|json] [--max-states N] [--no-prune] [--no-gate]\n"
          "                     [--max-kernel-ops N] [--max-kernels N] [--max-block-ops N]\n"
          "                     [--progress auto|always|never] [--found-dir DIR]\n");
  return 3;
}

static AxMugraph *load_prog(AxArena *a, AxDiag *d, const char *path, const char *name) {
  AxSource *src;
  if (!ax_source_load(a, d, path, &src)) return NULL;
  AxFile *f = ax_parse(a, d, src);
  if (d->errors) return NULL;
  const AxBlock *b = ax_prog_find(f, name, d);
  if (!b) return NULL;
  AxMugraph *g = ax_prog_lower(a, d, b);
  if (!g || !ax_mug_check(g, d)) return NULL;
  return g;
}

/* Gating (until superopt/axioms.h lands with ax_superopt_axioms_proved): verifies rules
 * DIR with this binary's own `axle verify` (result cache on) and returns true when every
 * axiom the pruner relies on is a rule there whose every verdict is VERIFIED; otherwise
 * names each one that is not, with its verdict, and returns false. */
static bool axioms_proved(const char *dir, int jobs) {
  int n;
  const char *const *names = ax_prune_axioms(&n);
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) {
    fprintf(stderr, "axle: error: superopt: cannot find the axle binary to verify the axioms\n");
    return false;
  }
  self[len] = 0;
  char *cmd = NULL;
  size_t cl = 0;
  FILE *c = open_memstream(&cmd, &cl);
  fprintf(c, "'%s' verify --format json --progress never --jobs %d", self, jobs < 1 ? 1 : jobs);
  for (int i = 0; i < n; i++) fprintf(c, " --rule '%s'", names[i]);
  fprintf(c, " '%s' 2>/dev/null", dir);
  fclose(c);
  const char **verdict = calloc((size_t)n, sizeof(char *));
  FILE *p = access(dir, R_OK) == 0 ? popen(cmd, "r") : NULL;
  char line[8192];
  while (p && fgets(line, sizeof line, p)) {
    cJSON *j = cJSON_Parse(line);
    if (!j) continue;
    const cJSON *r = cJSON_GetObjectItem(j, "rule"), *v = cJSON_GetObjectItem(j, "verdict");
    if (cJSON_IsString(r) && cJSON_IsString(v))
      for (int i = 0; i < n; i++)
        if (strcmp(names[i], r->valuestring) == 0) {
          /* one line per element type: the rule is VERIFIED only if every line says so */
          if (!verdict[i] || strcmp(verdict[i], "verified") == 0) verdict[i] = strdup(v->valuestring);
        }
    cJSON_Delete(j);
  }
  if (p) pclose(p);
  free(cmd);
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (!verdict[i] || strcmp(verdict[i], "verified")) bad++;
  if (bad) {
    fprintf(stderr,
            "axle: error: superopt: the pruner relies on %d axiom%s that %s not VERIFIED in %s:\n",
            bad, bad == 1 ? "" : "s", bad == 1 ? "is" : "are", dir);
    for (int i = 0; i < n; i++)
      if (!verdict[i] || strcmp(verdict[i], "verified"))
        fprintf(stderr, "  %s: %s\n", names[i], verdict[i] ? verdict[i] : "no such rule");
    fprintf(stderr, "(prove them with 'axle verify %s', or pass --no-gate to search anyway: "
                    "results are still checked, but pruning may then lose some)\n", dir);
  }
  for (int i = 0; i < n; i++) free((char *)verdict[i]);
  free(verdict);
  return bad == 0;
}

static bool parse_long(const char *s, long *out, long lo) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo) return false;
  *out = v;
  return true;
}

int ax_cmd_superopt(int argc, char **argv) {
  AxSearchOpts o;
  ax_search_defaults(&o);
  const char *file = NULL, *prog_name = NULL, *output = NULL, *rules = "rules/superopt";
  const char *format = "text", *progress = "auto", *found_dir = NULL;
  bool gate = true;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strcmp(s, "--no-prune") == 0) {
      o.prune = false;
      continue;
    }
    if (strcmp(s, "--no-gate") == 0) {
      gate = false;
      continue;
    }
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      usage("help");
      return 0;
    }
    if (s[0] == '-' && s[1] == '-') {
      if (i + 1 >= argc) return usage("option needs a value");
      const char *v = argv[++i];
      long n;
      if (strcmp(s, "--program") == 0) prog_name = v;
      else if (strcmp(s, "--output") == 0) output = v;
      else if (strcmp(s, "--rules") == 0) rules = v;
      else if (strcmp(s, "--format") == 0) format = v;
      else if (strcmp(s, "--progress") == 0) progress = v;
      else if (strcmp(s, "--found-dir") == 0) found_dir = v, o.verify_all = true;
      else if (strcmp(s, "--target") == 0) {
        if (!(o.target = ax_cost_target(v))) return usage("--target is h100 or a100");
      } else if (strcmp(s, "--jobs") == 0) {
        if (!parse_long(v, &n, 1) || n > 256) return usage("--jobs takes 1 to 256");
        o.jobs = (int)n;
      } else if (strcmp(s, "--top") == 0) {
        if (!parse_long(v, &n, 1) || n > 1000) return usage("--top takes 1 to 1000");
        o.top = (int)n;
      } else if (strcmp(s, "--max-states") == 0) {
        if (!parse_long(v, &n, 1)) return usage("--max-states takes a positive integer");
        o.max_states = n;
      } else if (strcmp(s, "--max-kernel-ops") == 0) {
        if (!parse_long(v, &n, 1) || n > 6) return usage("--max-kernel-ops takes 1 to 6");
        o.max_kernel_ops = (int)n;
      } else if (strcmp(s, "--max-kernels") == 0) {
        if (!parse_long(v, &n, 0) || n > 6) return usage("--max-kernels takes 0 to 6");
        o.max_kernels = (int)n;
      } else if (strcmp(s, "--max-block-ops") == 0) {
        if (!parse_long(v, &n, 2) || n > 12) return usage("--max-block-ops takes 2 to 12");
        o.max_block_ops = (int)n;
      } else if (strcmp(s, "--time-limit") == 0) {
        char *end;
        o.time_limit = strtod(v, &end);
        if (*end || !(o.time_limit > 0)) return usage("--time-limit takes a positive number of seconds");
      } else {
        return usage("unknown option");
      }
    } else if (!file) {
      file = s;
    } else {
      return usage("too many arguments");
    }
  }
  if (!file) return usage("superopt needs a program file");
  if (!output) return usage("superopt needs --output BEST.mug");
  if (strcmp(format, "text") && strcmp(format, "json")) return usage("--format is text or json");
  if (strcmp(progress, "auto") && strcmp(progress, "always") && strcmp(progress, "never"))
    return usage("--progress is auto, always or never");
  if (strcmp(progress, "always") == 0 || (strcmp(progress, "auto") == 0 && isatty(2)))
    o.progress = stderr;

  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *p = load_prog(a, &d, file, prog_name);
  if (!p) {
    ax_arena_free(a);
    return 3;
  }
  if (gate && !axioms_proved(rules, o.jobs)) {
    ax_arena_free(a);
    return 3;
  }
  if (!gate) fprintf(stderr, "axle: warning: superopt: --no-gate: pruning relies on axioms not checked in this run\n");
  AxSearchResult r;
  if (!ax_search_run(p, &o, &d, &r)) {
    ax_arena_free(a);
    return 3;
  }
  int status = 1;
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
  if (strcmp(format, "json") == 0) {
    printf("{\"program\": \"%s\", \"target\": \"%s\", \"modelled\": true, \"status\": %d, "
           "\"candidates\": %ld, \"states\": %ld, \"pruned\": %ld, \"checked\": %ld, "
           "\"equivalent\": %ld, \"rejected_final\": %ld, \"seconds\": %.3f, \"search_seconds\": %.3f, "
           "\"best_found_seconds\": %.3f, \"timed_out\": %s, "
           "\"jobs\": %d, \"gated\": %s, \"naive_time_us\": %.4f, ",
           p->name, o.target->name, status, r.candidates, r.states, r.pruned, r.checked,
           r.equivalent, r.rejected_final, r.seconds, r.search_s, r.best_found_s,
           r.timed_out ? "true" : "false", o.jobs,
           gate ? "true" : "false", r.naive_s * 1e6);
    if (best >= 0) printf("\"best_time_us\": %.4f, \"output\": \"%s\"}\n", best, status == 0 ? output : "");
    else printf("\"best_time_us\": null, \"output\": \"\"}\n");
  } else {
    printf("superopt %s: %ld candidates from %ld states (%ld pruned), %ld checked, %ld equivalent, "
           "%.1f s%s\n",
           p->name, r.candidates, r.states, r.pruned, r.checked, r.equivalent, r.seconds,
           r.timed_out ? " (time limit)" : "");
    printf("naive graph: %.2f us modelled on %s\n", r.naive_s * 1e6, o.target->name);
    if (best >= 0) printf("best found after %.1f s of search (%.1f s searched)\n", r.best_found_s, r.search_s);
    if (best >= 0)
      printf("best graph:  %.2f us modelled (%.2fx)%s%s\n", best, r.naive_s * 1e6 / best,
             status == 0 ? ", written to " : ", not better than the naive graph",
             status == 0 ? output : "");
    else
      printf("no equivalent graph found\n");
  }
  ax_search_result_free(&r);
  ax_arena_free(a);
  return status;
}
