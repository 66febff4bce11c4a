/* cmd_import.c — `axle import`: an XLA HLO text module to a tensor program (hlo/import.h).
 *
 *   axle import MODULE.hlo [--output PROGRAM.axl] [--format text|json]
 *       0 imported (cuts are not failures), 3 bad input (located error) or bad usage.
 *
 * Text: the program goes to PROGRAM.axl or standard output; every cut is one line on
 * standard error, `FILE:LINE: cut: %name = opcode: reason`. JSON (standard output): the
 * program's name, path (null when it is printed) and text, the counts and the cuts. The
 * program is checked (lowered to a μGraph) before anything is written. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/opts.h"
#include "cli/out.h"
#include "hlo/import.h"

#define USAGE "usage: axle import MODULE.hlo [--output PROGRAM.axl] [--format text|json] [--memory MB]\n"

static int usage(const char *msg) { return ax_opts_usage_error(USAGE, msg); }

static int cut_line(const AxHloCut *c) {
  int line, col;
  ax_source_linecol(c->at.src, c->at.start, &line, &col);
  return line;
}

/* The array key of n cuts or notes: each its line, name and text (under field); a cut also
 * its opcode. */
static void add_entries(cJSON *j, const char *key, const AxHloCut *e, int n, const char *field) {
  cJSON *arr = cJSON_AddArrayToObject(j, key);
  for (int k = 0; k < n; k++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "line", cut_line(&e[k]));
    cJSON_AddStringToObject(c, "name", e[k].name);
    if (strcmp(key, "cuts") == 0) cJSON_AddStringToObject(c, "opcode", e[k].opcode);
    cJSON_AddStringToObject(c, field, e[k].reason);
    cJSON_AddItemToArray(arr, c);
  }
}

static bool write_json(AxOut *o, const char *file, const char *output, const AxHloProgram *p) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "module", file);
  cJSON_AddStringToObject(j, "program", p->name);
  if (output) cJSON_AddStringToObject(j, "path", output);
  else cJSON_AddNullToObject(j, "path");
  cJSON_AddNumberToObject(j, "inputs", p->ninputs);
  cJSON_AddNumberToObject(j, "lets", p->nlets);
  cJSON_AddNumberToObject(j, "outputs", p->noutputs);
  cJSON_AddNumberToObject(j, "ncuts", p->ncuts);
  add_entries(j, "cuts", p->cuts, p->ncuts, "reason");
  add_entries(j, "notes", p->notes, p->nnotes, "note");
  if (!output) cJSON_AddStringToObject(j, "text", p->text);
  char *s = cJSON_Print(j);
  fprintf(o->f, "%s\n", s);
  free(s);
  cJSON_Delete(j);
  return ax_out_commit(o);
}

int ax_cmd_import(int argc, char **argv) {
  const char *output = NULL;
  int json = 0, first = 1;
  static const char *const formats[] = {"text", "json", NULL};
  ax_opts_memory_default();
  const AxOpt opts[] = {
      AX_OPT_MEMORY(AX_OPT_MEMORY_ERR),
      {.name = "--output", .meta = "PROGRAM.axl",
       .help = "write the program there (default: standard output)", .kind = AX_OPT_STR,
       .target = &output},
      {.name = "--format", .meta = "text|json", .help = "report format (default text)",
       .kind = AX_OPT_CHOICE, .words = formats, .target = &json, .err = "--format is text or json"},
  };
  const AxOptTable t = {
      .usage = USAGE,
      .about = "Imports the ENTRY computation of an XLA HLO text module as a tensor program;\n"
               "what the program language cannot express is cut (listed on stderr) and\n"
               "its result becomes an input. docs/hlo.md has the mapping.\n",
      .opts = opts, .n = AX_COUNTOF(opts), .unknown = "unknown option",
      .missing = "option needs a value"};
  int parsed = ax_opts_run(&t, &argc, argv, &first);
  if (parsed >= 0) return parsed;
  if (argc - first > 1) return usage("too many arguments");
  const char *file = first < argc ? argv[first] : NULL;
  if (!file) return usage("import needs an .hlo file");
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxHloProgram p;
  int status = 3;
  if (ax_files_import_hlo(a, &d, file, &p)) {
    if (!json)
      for (int k = 0; k < p.ncuts; k++)
        fprintf(stderr, "%s:%d: cut: %%%s = %s: %s\n", file, cut_line(&p.cuts[k]), p.cuts[k].name,
                p.cuts[k].opcode, p.cuts[k].reason);
    if (!json)
      for (int k = 0; k < p.nnotes; k++)
        fprintf(stderr, "%s:%d: note: %%%s = %s: %s\n", file, cut_line(&p.notes[k]), p.notes[k].name,
                p.notes[k].opcode, p.notes[k].reason);
    AxOut prog, rep;
    bool ok = true;
    if (output) {
      ok = ax_out_open(&prog, output);
      if (ok) {
        fputs(p.text, prog.f);
        ok = ax_out_commit(&prog);
      }
    }
    if (ok && json) {
      ok = ax_out_open(&rep, NULL) && write_json(&rep, file, output, &p);
    } else if (ok && !output) {
      fputs(p.text, stdout);
    } else if (ok) {
      fprintf(stderr, "%s: program '%s' written to %s (%d inputs, %d lets, %d outputs, %d cuts)\n",
              file, p.name, output, p.ninputs, p.nlets, p.noutputs, p.ncuts);
    }
    status = ok ? 0 : 3;
  }
  ax_arena_free(a);
  return status;
}
