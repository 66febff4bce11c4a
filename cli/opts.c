/* opts.c — option tables (opts.h). */
#include "cli/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/mem.h"
#include "cli/args.h"
#include "cli/files.h"

bool ax_opts_max_input(void *unused, const char *value) {
  (void)unused;
  return ax_files_max_input(value);
}

void ax_opts_memory_default(void) { ax_mem_set_limit((uint64_t)AX_OPTS_MEMORY_DEFAULT << 20); }

bool ax_opts_memory(void *unused, const char *value) {
  (void)unused;
  char *end;
  if (*value < '0' || *value > '9') return false;
  errno = 0;
  long long mb = strtoll(value, &end, 10);
  if (*end || errno || mb < 0 || mb > AX_OPTS_MEMORY_MAX) return false;
  ax_mem_set_limit((uint64_t)mb << 20);
  return true;
}

long long ax_opts_memory_mb(void) { return (long long)(ax_mem_limit() >> 20); }

/* The option argument a names: "--name", or "-c" for its short name. */
static const AxOpt *find(const AxOptTable *t, const char *a) {
  for (size_t i = 0; i < t->n; i++) {
    const AxOpt *o = &t->opts[i];
    if (strcmp(a, o->name) == 0 || (o->short_name && a[1] == o->short_name && !a[2]))
      return o;
  }
  return NULL;
}

static bool is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* A decimal whole number, digits only (no sign, no space), in [lo, hi]. */
static bool whole(const char *s, long long lo, long long hi, long long *out) {
  if (*s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno || v > (unsigned long long)hi || (long long)v < lo) return false;
  *out = (long long)v;
  return true;
}

/* Stores value (NULL for a flag) as o says; false: refused. */
static bool apply(const AxOpt *o, const char *value) {
  switch (o->kind) {
  case AX_OPT_FLAG:
    *(bool *)o->target = true;
    return true;
  case AX_OPT_STR:
    *(const char **)o->target = value;
    return true;
  case AX_OPT_CHOICE:
    for (int k = 0; o->words[k]; k++)
      if (strcmp(value, o->words[k]) == 0) {
        *(int *)o->target = k;
        return true;
      }
    return false;
  case AX_OPT_INT: {
    long long v;
    if (!whole(value, o->lo, o->hi, &v)) return false;
    *(int *)o->target = (int)v;
    return true;
  }
  case AX_OPT_FN:
    return o->fn(o->target, value);
  }
  return false;
}

AxOptsStatus ax_opts_parse(const AxOptTable *t, int *argc, char **argv, int *first, char *msg,
                           size_t cap) {
  /* the options that take a value, by either name, for ax_args_permute */
  const char **with_value = ax_xcalloc(2 * t->n + 1, sizeof(char *));
  char (*shorts)[3] = ax_xcalloc(t->n + 1, sizeof *shorts);
  size_t nv = 0;
  for (size_t i = 0; i < t->n; i++) {
    const AxOpt *o = &t->opts[i];
    if (!o->meta) continue;
    with_value[nv++] = o->name;
    if (o->short_name) {
      shorts[i][0] = '-';
      shorts[i][1] = o->short_name;
      with_value[nv++] = shorts[i];
    }
  }
  /* An option that ends the line without its value stays the last option, and the first
   * operand then follows it: that is no value of it. */
  const char *dangling = NULL;
  for (int i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++) {
    const AxOpt *o = argv[i][0] == '-' && argv[i][1] ? find(t, argv[i]) : NULL;
    if (o && o->meta && i + 1 == *argc) dangling = argv[i];
    else if (o && o->meta) i++;
  }
  *argc = ax_args_permute(*argc, argv, with_value);
  free(with_value);
  free(shorts);
  int i = 1;
  for (; i < *argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *a = argv[i], *value = NULL;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (is_help(a)) {
      ax_opts_help(stdout, t);
      return AX_OPTS_HELP;
    }
    const AxOpt *o = find(t, a);
    if (!o) {
      snprintf(msg, cap, t->unknown, a);
      return AX_OPTS_ERROR;
    }
    if (o->meta) {
      if (a == dangling || i + 1 >= *argc) {
        if (t->missing || !o->err) snprintf(msg, cap, t->missing ? t->missing : "%s needs a value", a);
        else snprintf(msg, cap, "%s", o->err);
        return AX_OPTS_ERROR;
      }
      value = argv[++i];
    }
    if (!apply(o, value)) {
      if (o->err) snprintf(msg, cap, "%s", o->err);
      else snprintf(msg, cap, "%s does not take '%.40s'", a, value ? value : "");
      return AX_OPTS_ERROR;
    }
  }
  *first = i;
  return AX_OPTS_OK;
}

/* Help layout (opts.h): the name column is 22 wide after a 2-space indent. */
enum { NAME_COL = 22 };

void ax_opts_help(FILE *out, const AxOptTable *t) {
  fputs(t->usage, out);
  if (t->about) fputs(t->about, out);
  for (size_t i = 0; i < t->n; i++) {
    const AxOpt *o = &t->opts[i];
    char name[128];
    int len = o->short_name
                  ? snprintf(name, sizeof name, "-%c, %s%s%s", o->short_name, o->name,
                             o->meta ? " " : "", o->meta ? o->meta : "")
                  : snprintf(name, sizeof name, "%s%s%s", o->name, o->meta ? " " : "",
                             o->meta ? o->meta : "");
    if (len < NAME_COL) fprintf(out, "  %-*s", NAME_COL, name);
    else fprintf(out, "  %s\n%*s", name, NAME_COL + 2, "");
    for (const char *h = o->help ? o->help : "";;) {   /* '\n' continues at the help column */
      const char *nl = strchr(h, '\n');
      size_t n = nl ? (size_t)(nl - h) : strlen(h);
      fprintf(out, "%.*s\n", (int)n, h);
      if (!nl) break;
      h = nl + 1;
      fprintf(out, "%*s", NAME_COL + 2, "");
    }
  }
  if (t->tail) fputs(t->tail, out);
}

int ax_opts_usage_error(const char *usage_text, const char *msg) {
  fprintf(stderr, "axle: error: %s\n", msg);
  fputs(usage_text, stderr);
  return 3;
}

int ax_opts_run(const AxOptTable *t, int *argc, char **argv, int *first) {
  char msg[256];
  switch (ax_opts_parse(t, argc, argv, first, msg, sizeof msg)) {
  case AX_OPTS_HELP: return 0;
  case AX_OPTS_ERROR: return ax_opts_usage_error(t->usage, msg);
  case AX_OPTS_OK: break;
  }
  return -1;
}
