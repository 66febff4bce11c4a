/* check_opts.c — option tables (cli/opts.h): options apply in order wherever they stand
 * (before or after the operands, with a value of either name's option kept beside it),
 * `--` ends them, -h and --help print the help and stop; an unknown option, a missing
 * value or a refused one is the table's message; the help lays the table out in columns. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli/opts.h"

/* A verb of the tests: every kind of option once. */
typedef struct Got {
  bool flag;
  const char *str;
  int choice, n;
  int calls;
  const char *last;
} Got;

static bool even(void *target, const char *v) {
  Got *g = target;
  g->calls++;
  g->last = v;
  return strlen(v) % 2 == 0;
}

static const char *const words[] = {"text", "json", NULL};

/* The table over g (opts: room for 8); missing NULL: a missing value reports the option's
 * err. */
static AxOptTable table(Got *g, AxOpt *opts, const char *missing) {
  AxOpt o[] = {
      {.name = "--flag", .short_name = 'f', .help = "a flag", .kind = AX_OPT_FLAG, .target = &g->flag},
      {.name = "--str", .short_name = 's', .meta = "S", .help = "a string\nover two lines",
       .kind = AX_OPT_STR, .target = &g->str},
      {.name = "--format", .meta = "text|json", .help = "a choice", .kind = AX_OPT_CHOICE,
       .words = words, .target = &g->choice, .err = "--format takes text or json"},
      {.name = "--n", .meta = "N", .help = "1 to 9", .kind = AX_OPT_INT, .lo = 1, .hi = 9,
       .target = &g->n, .err = "--n takes 1 to 9"},
      {.name = "--even-length-value", .meta = "VALUE", .help = "a callback", .kind = AX_OPT_FN,
       .fn = even, .target = g, .err = "--even-length-value takes an even length"},
  };
  memcpy(opts, o, sizeof o);
  return (AxOptTable){.usage = "usage: axle t [options] FILE...\n", .about = "About.\n",
                      .opts = opts, .n = AX_COUNTOF(o), .tail = "Tail.\n",
                      .unknown = "unknown option '%s'", .missing = missing};
}

/* Parses the words of line (space-separated, at most 16) with a fresh table. */
typedef struct Parsed {
  AxOptsStatus st;
  Got g;
  int argc, first;
  char *argv[18];
  char msg[128];
  char buf[256];
} Parsed;

static void parse(Parsed *p, const char *line, const char *missing) {
  memset(p, 0, sizeof *p);
  snprintf(p->buf, sizeof p->buf, "t %s", line);
  for (char *save = NULL, *w = strtok_r(p->buf, " ", &save); w && p->argc < 17; w = strtok_r(NULL, " ", &save))
    p->argv[p->argc++] = w;
  AxOpt opts[8];
  AxOptTable t = table(&p->g, opts, missing);
  p->st = ax_opts_parse(&t, &p->argc, p->argv, &p->first, p->msg, sizeof p->msg);
}

START_TEST(test_every_kind) {
  Parsed p;
  parse(&p, "-f --str x --format json --n 7 --even-length-value ab a.txt b.txt", NULL);
  ck_assert_int_eq(p.st, AX_OPTS_OK);
  ck_assert(p.g.flag);
  ck_assert_str_eq(p.g.str, "x");
  ck_assert_int_eq(p.g.choice, 1);
  ck_assert_int_eq(p.g.n, 7);
  ck_assert_int_eq(p.g.calls, 1);
  ck_assert_str_eq(p.g.last, "ab");
  ck_assert_int_eq(p.argc - p.first, 2);
  ck_assert_str_eq(p.argv[p.first], "a.txt");
}
END_TEST

START_TEST(test_options_after_operands) {
  Parsed p;
  parse(&p, "a.txt -s -v b.txt --flag", NULL);   /* -s takes "-v" as its value */
  ck_assert_int_eq(p.st, AX_OPTS_OK);
  ck_assert(p.g.flag);
  ck_assert_str_eq(p.g.str, "-v");
  ck_assert_int_eq(p.argc - p.first, 2);
  ck_assert_str_eq(p.argv[p.first], "a.txt");
  ck_assert_str_eq(p.argv[p.first + 1], "b.txt");
}
END_TEST

START_TEST(test_double_dash) {
  Parsed p;
  parse(&p, "-f -- -x --n", NULL);
  ck_assert_int_eq(p.st, AX_OPTS_OK);
  ck_assert(p.g.flag);
  ck_assert_int_eq(p.g.n, 0);
  ck_assert_int_eq(p.argc - p.first, 2);
  ck_assert_str_eq(p.argv[p.first], "-x");
  ck_assert_str_eq(p.argv[p.first + 1], "--n");
}
END_TEST

START_TEST(test_help) {
  Parsed p;
  parse(&p, "a.txt -h", NULL);
  ck_assert_int_eq(p.st, AX_OPTS_HELP);
  parse(&p, "--help --bogus", NULL);
  ck_assert_int_eq(p.st, AX_OPTS_HELP);
}
END_TEST

START_TEST(test_errors) {
  Parsed p;
  parse(&p, "--bogus a.txt", NULL);
  ck_assert_int_eq(p.st, AX_OPTS_ERROR);
  ck_assert_str_eq(p.msg, "unknown option '--bogus'");
  parse(&p, "-x a.txt", NULL);
  ck_assert_str_eq(p.msg, "unknown option '-x'");
  parse(&p, "--format xml a.txt", NULL);
  ck_assert_str_eq(p.msg, "--format takes text or json");
  for (const char *const *v = (const char *const[]){"0", "10", "+5", "-1", "5x", "0x5", "99999999999999999999", NULL}; *v; v++) {
    char line[64];
    snprintf(line, sizeof line, "--n %s a.txt", *v);
    parse(&p, line, NULL);
    ck_assert_msg(p.st == AX_OPTS_ERROR, "--n '%s' accepted", *v);
    ck_assert_str_eq(p.msg, "--n takes 1 to 9");
  }
  parse(&p, "--even-length-value abc a.txt", NULL);
  ck_assert_str_eq(p.msg, "--even-length-value takes an even length");
  parse(&p, "a.txt --n", NULL);   /* the value missing: the option's err */
  ck_assert_int_eq(p.st, AX_OPTS_ERROR);
  ck_assert_str_eq(p.msg, "--n takes 1 to 9");
  parse(&p, "a.txt --n", "%s needs a value");
  ck_assert_str_eq(p.msg, "--n needs a value");
  parse(&p, "--flag --n 3 --format xml --str late", NULL);   /* in order, up to the fault */
  ck_assert(p.g.flag);
  ck_assert_int_eq(p.g.n, 3);
  ck_assert_ptr_null(p.g.str);
}
END_TEST

START_TEST(test_help_layout) {
  Got g;
  AxOpt opts[8];
  AxOptTable t = table(&g, opts, NULL);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ax_opts_help(f, &t);
  fclose(f);
  ck_assert_str_eq(buf,
                   "usage: axle t [options] FILE...\n"
                   "About.\n"
                   "  -f, --flag            a flag\n"
                   "  -s, --str S           a string\n"
                   "                        over two lines\n"
                   "  --format text|json    a choice\n"
                   "  --n N                 1 to 9\n"
                   "  --even-length-value VALUE\n"
                   "                        a callback\n"
                   "Tail.\n");
  free(buf);
}
END_TEST

static Suite *opts_suite(void) {
  Suite *s = suite_create("opts");
  TCase *t = tcase_create("table");
  tcase_add_test(t, test_every_kind);
  tcase_add_test(t, test_options_after_operands);
  tcase_add_test(t, test_double_dash);
  tcase_add_test(t, test_help);
  tcase_add_test(t, test_errors);
  tcase_add_test(t, test_help_layout);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(opts_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
