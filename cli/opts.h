/* opts.h — one option table per verb: the parsing, ax_args_permute's list of the options
 * that take a value, and the text of --help all come from it.
 *
 * A verb declares its options as an array of AxOpt (long name, short name, the value's
 * metavariable, help, where the value goes and the message when it is refused) inside an
 * AxOptTable with its usage line. ax_opts_parse moves the options in front of the operands
 * (args.h), applies them in order and stops at the first operand or `--`; -h and --help are
 * every verb's and print the help on standard output. What spans several options (one that
 * needs another) stays in the verb, after the table has been applied.
 *
 * Help layout: each option on a line "  --name META", its help from column 25 (on the next
 * line when the name is wider); a '\n' in the help continues it on a line of its own at
 * column 25. */
#ifndef AX_OPTS_H
#define AX_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
  AX_OPT_FLAG,    /* no value: *(bool *)target = true */
  AX_OPT_STR,     /* *(const char **)target = the value (borrowed from argv) */
  AX_OPT_CHOICE,  /* *(int *)target = the index of the value in words */
  AX_OPT_INT,     /* *(int *)target = a decimal whole number (digits only) in [lo, hi] */
  AX_OPT_FN,      /* fn(target, value); a flag's value is NULL */
} AxOptKind;

/* Stores what value means (NULL for a flag); false refuses it with the option's err. */
typedef bool (*AxOptFn)(void *target, const char *value);

typedef struct AxOpt {
  const char *name;          /* "--seed" */
  char short_name;           /* 'q' for -q, or 0 */
  const char *meta;          /* the value's metavariable ("N", "text|json"); NULL: a flag */
  const char *help;          /* one line; '\n' continues it on the next */
  AxOptKind kind;
  void *target;
  AxOptFn fn;                /* AX_OPT_FN */
  const char *const *words;  /* AX_OPT_CHOICE: the values, NULL-terminated */
  long long lo, hi;          /* AX_OPT_INT: the range */
  const char *err;           /* the usage error when the value is refused (an option whose
                                value can be refused must have one) */
} AxOpt;

typedef struct AxOptTable {
  const char *usage;    /* "usage: axle VERB ...\n" lines, the first thing --help prints */
  const char *about;    /* printed after the usage, before the options; may be NULL */
  const AxOpt *opts;
  size_t n;
  const char *tail;     /* printed after the options; may be NULL */
  const char *unknown;  /* the error for an unknown option: a format with one %s, its name */
  const char *missing;  /* the error for a value missing: a format with one %s, the option's
                           name; NULL: the option's err */
} AxOptTable;

typedef enum { AX_OPTS_OK, AX_OPTS_HELP, AX_OPTS_ERROR } AxOptsStatus;

/* Reorders argv[1..*argc) (ax_args_permute: *argc may shrink by a dropped `--`), applies
 * the options and sets *first to the index of the first operand. AX_OPTS_HELP: the help
 * was printed on stdout. AX_OPTS_ERROR: msg (cap bytes) holds the usage error, without
 * "axle: error: "; options before the faulty one are applied. */
AxOptsStatus ax_opts_parse(const AxOptTable *t, int *argc, char **argv, int *first, char *msg,
                           size_t cap);

/* A usage error: "axle: error: MSG" and then the usage lines (usage_text, e.g. a table's
 * .usage) on standard error; returns the exit status of a usage error, 3. */
int ax_opts_usage_error(const char *usage_text, const char *msg);

/* ax_opts_parse with the outcome most verbs give it: -1 go on (the options are applied);
 * 0 the help was printed; 3 the usage error was printed by ax_opts_usage_error. */
int ax_opts_run(const AxOptTable *t, int *argc, char **argv, int *first);

/* Prints the usage, about, the option lines and the tail. */
void ax_opts_help(FILE *out, const AxOptTable *t);

/* --max-input MIB of every verb that reads files (ax_files_max_input); err: its message. */
bool ax_opts_max_input(void *unused, const char *value);
#define AX_OPT_MAX_INPUT(message)                                                          \
  {.name = "--max-input", .meta = "MIB", .kind = AX_OPT_FN, .fn = ax_opts_max_input,       \
   .help = "refuse input files larger than MIB MiB (default 64, at most 1024)", .err = message}

/* --memory MB of every verb that allocates tensors, e-graphs, search state or large IR
 * (equiv, superopt, optimize, import, cuda, emulate, cost, mugraph): the process's memory
 * budget (base/mem.h), 0 to AX_OPTS_MEMORY_MAX MB, 0 meaning no limit. Such a verb calls
 * ax_opts_memory_default() before its options are parsed (the default, AX_OPTS_MEMORY_DEFAULT
 * MB, is then in force unless --memory is given); ax_opts_memory_mb() is the limit for
 * messages. */
#define AX_OPTS_MEMORY_DEFAULT 4096
#define AX_OPTS_MEMORY_MAX (1 << 22)
void ax_opts_memory_default(void);
bool ax_opts_memory(void *unused, const char *value);
long long ax_opts_memory_mb(void);
#define AX_OPT_MEMORY(message)                                                              \
  {.name = "--memory", .meta = "MB", .kind = AX_OPT_FN, .fn = ax_opts_memory,              \
   .help = "refuse work that would hold more memory (default 4096;\n0: no limit)", .err = message}
#define AX_OPT_MEMORY_ERR "--memory takes megabytes from 0 (no limit) to 4194304"

#endif
