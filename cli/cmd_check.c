/* cmd_check.c — `axle check` and `axle fmt`: the front end on its own. */
#include <string.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "dsl/check.h"
#include "dsl/parse.h"
#include "dsl/print.h"
#include "superopt/ir/load.h"

/* Loads, parses and (if `check`) checks one file; NULL when it has errors. */
static AxFile *load(AxArena *a, AxDiag *d, const char *path, bool check) {
  AxSource *src;
  if (!ax_source_load(a, d, path, &src)) return NULL;
  int before = d->errors;
  AxFile *f = ax_parse(a, d, src);
  if (d->errors == before && check) {
    ax_check_file(a, d, f);   /* rules */
    for (size_t i = 0; i < f->nblocks; i++)   /* programs: lowered and validated, as every reader takes them */
      if (f->blocks[i]->kind == AX_B_PROGRAM) ax_load_block(a, d, f->blocks[i]);
  }
  return d->errors == before ? f : NULL;
}

int ax_cmd_check(int argc, char **argv) {
  AxDiag d;
  ax_diag_init(&d, stderr);
  int first = 1;
  bool quiet = false;
  const AxOpt opts[] = {
      {.name = "--quiet", .short_name = 'q', .help = "print nothing but the errors",
       .kind = AX_OPT_FLAG, .target = &quiet},
      AX_OPT_MAX_INPUT("check: --max-input takes MiB from 1 to 1024"),
  };
  const AxOptTable t = {
      .usage = "usage: axle check [-q] [--max-input MIB] FILE|DIR...\n",
      .about = "Parses and checks every rule and program; exit 0 if all are well formed, 3 if not.\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "check: unknown option '%.40s'"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (first == argc) {
    fprintf(stderr, "axle: error: check: no FILE or DIR given\nusage: axle check [-q] FILE|DIR...\n");
    return 3;
  }
  AxArena *a = ax_arena_new();
  AxPathList files;
  bool ok = ax_files_collect(a, &d, argv + first, argc - first, &files);
  size_t rules = 0, programs = 0;
  for (size_t i = 0; i < files.n; i++) {
    AxArena *fa = ax_arena_new();
    AxFile *f = load(fa, &d, files.paths[i], true);
    for (size_t j = 0; f && j < f->nblocks; j++) {
      if (f->blocks[j]->kind == AX_B_RULE) rules++;
      else programs++;
    }
    ax_arena_free(fa);
  }
  ax_arena_free(a);
  if (!quiet)
    printf("axle check: %zu rule%s, %zu program%s in %zu file%s: %s\n", rules, rules == 1 ? "" : "s",
           programs, programs == 1 ? "" : "s", files.n, files.n == 1 ? "" : "s",
           d.errors ? "errors" : "ok");
  if (d.errors) fprintf(stderr, "axle: %d error%s\n", d.errors, d.errors == 1 ? "" : "s");
  return ok && d.errors == 0 ? 0 : 3;
}

/* fmt prints the canonical text; --write replaces files whose text differs, --check only
 * names them and exits 1. A file with a syntax error is left alone (exit 3). */
int ax_cmd_fmt(int argc, char **argv) {
  AxDiag d;
  ax_diag_init(&d, stderr);
  bool write = false, check = false;
  int first = 1;
  const AxOpt opts[] = {
      {.name = "--check", .help = "list the files that are not canonical; exit 1 if there are any",
       .kind = AX_OPT_FLAG, .target = &check},
      {.name = "--write", .short_name = 'w', .help = "rewrite the files that are not canonical in place",
       .kind = AX_OPT_FLAG, .target = &write},
      AX_OPT_MAX_INPUT("fmt: --max-input takes MiB from 1 to 1024"),
  };
  const AxOptTable t = {
      .usage = "usage: axle fmt [--check | --write] [--max-input MIB] FILE|DIR...\n",
      .about = "Prints files in canonical form (comments kept).\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "fmt: unknown option '%.40s'"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (first == argc || (write && check)) {
    fprintf(stderr, "axle: error: fmt: %s\nusage: axle fmt [--check | --write] FILE|DIR...\n",
            first == argc ? "no FILE given" : "--check and --write exclude each other");
    return 3;
  }
  AxArena *a = ax_arena_new();
  AxPathList files;
  bool ok = ax_files_collect(a, &d, argv + first, argc - first, &files);
  int differ = 0;
  for (size_t i = 0; i < files.n; i++) {
    AxArena *fa = ax_arena_new();
    AxFile *f = load(fa, &d, files.paths[i], false);
    if (f) {
      char *buf = NULL;
      size_t len = 0;
      FILE *m = open_memstream(&buf, &len);
      ax_print_file(m, f);
      fclose(m);
      bool same = len == f->src->len && memcmp(buf, f->src->text, len) == 0;
      if (check) {
        if (!same) {
          printf("%s\n", files.paths[i]);
          differ++;
        }
      } else if (write) {
        if (!same && !ax_out_replace(files.paths[i], buf, len)) d.errors++;
      } else {
        fwrite(buf, 1, len, stdout);
      }
      free(buf);
    }
    ax_arena_free(fa);
  }
  ax_arena_free(a);
  if (!ok || d.errors) return 3;
  return differ ? 1 : 0;
}
