/* check_load.c — the door into the IR (load.h): a program file, a μGraph file and either as
 * text come out lowered and validated; the program is picked by name or as the file's only
 * one; each failing step (reading, parsing, picking, lowering, validating) stops the door
 * with its own located message and nothing after it; a quiet load counts and prints
 * nothing; a text is copied, so the caller may free it. */
#include <unistd.h>

#include "superopt/ir/load.h"
#include "unit.h"

static const char *PROG =
    "program p {\n"
    "  input X : f16[16, 64]\n"
    "  input W : f16[64, 32]\n"
    "  output O = matmul(X, W) * 2\n"
    "}\n";

static const char *MUG =
    "mugraph g {\n"
    "  input X : f16[16, 64]\n"
    "  input W : f16[64, 32]\n"
    "  Y = matmul(X, W)\n"
    "  output Y\n"
    "}\n";

/* Two programs in one file: the name picks one. */
static const char *TWO =
    "program first {\n"
    "  input X : f16[4, 8]\n"
    "  output Y = exp(X)\n"
    "}\n"
    "program second {\n"
    "  input X : f16[4, 8]\n"
    "  output Y = X + X\n"
    "}\n";

static char dir[64];

static void setup(void) {
  unit_setup();
  snprintf(dir, sizeof dir, "/tmp/axle-load-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  unit_teardown();
}

/* text written to dir/name; its path (in A). */
static const char *file(const char *name, const char *text) {
  const char *path = ax_arena_printf(A, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* The diagnostics, with dir replaced by "DIR" (the goldens name no temporary folder). */
static const char *diagnostics(void) {
  const char *s = unit_diagnostics();
  size_t n = strlen(dir);
  char *out = ax_arena_alloc(A, strlen(s) + 1);
  char *o = out;
  while (*s) {
    if (strncmp(s, dir, n) == 0) {
      o = stpcpy(o, "DIR");
      s += n;
    } else {
      *o++ = *s++;
    }
  }
  return out;
}

static const AxLoadOpts AS_PROGRAM = {.kind = AX_LOAD_PROGRAM};
static const AxLoadOpts AS_MUGRAPH = {.kind = AX_LOAD_MUGRAPH};

/* A program file comes out lowered and validated: the matmul's shape is inferred (that is
 * validation's), the output named as the program names it. */
START_TEST(program_file) {
  AxMugraph *g = ax_load_from_file(A, &D, file("p.axl", PROG), NULL);
  ck_assert_msg(g != NULL, "%s", unit_diagnostics());
  ck_assert_str_eq(g->name, "p");
  ck_assert_int_eq(g->noutputs, 1);
  const AxKTensor *o = &g->tensors[g->outputs[0]];
  ck_assert_str_eq(o->name, "O");
  ck_assert_int_eq(o->shape.rank, 2);
  ck_assert_int_eq(o->shape.dim[0], 16);
  ck_assert_int_eq(o->shape.dim[1], 32);
  ck_assert_int_eq(D.errors, 0);
  ck_assert_str_eq(unit_diagnostics(), "");
}
END_TEST

START_TEST(mugraph_file) {
  AxMugraph *g = ax_load_from_file(A, &D, file("g.mug", MUG), NULL);
  ck_assert_msg(g != NULL, "%s", unit_diagnostics());
  ck_assert_str_eq(g->name, "g");
  ck_assert_int_eq(g->nstmts, 4);
  const AxKTensor *y = &g->tensors[g->outputs[0]];
  ck_assert_int_eq(y->shape.dim[0], 16);
  ck_assert_int_eq(y->shape.dim[1], 32);
  ck_assert_int_eq(D.errors, 0);
  /* the kind by the name: a file of another ending is a μGraph, unless said otherwise */
  ck_assert_ptr_nonnull(ax_load_from_file(A, &D, file("g.txt", MUG), NULL));
  ck_assert_ptr_nonnull(ax_load_from_file(A, &D, file("p.txt", PROG), &AS_PROGRAM));
  ck_assert_str_eq(unit_diagnostics(), "");
}
END_TEST

/* Texts, of either kind, by their name or by the kind given; the text is copied. */
START_TEST(text) {
  char *buf = strdup(MUG);
  AxMugraph *g = ax_load_from_text(A, &D, "<made>", buf, NULL);
  ck_assert_ptr_nonnull(g);
  ck_assert_ptr_ne(g->span.src->text, buf);
  memset(buf, '#', strlen(buf));
  free(buf);
  ck_assert_str_eq(g->span.src->text, MUG);
  ck_assert_str_eq(g->span.src->path, "<made>");
  ck_assert_ptr_nonnull(ax_load_from_text(A, &D, "x.axl", PROG, NULL));
  AxMugraph *p = ax_load_from_text(A, &D, "<made>", PROG, &AS_PROGRAM);
  ck_assert_ptr_nonnull(p);
  ck_assert_str_eq(p->name, "p");
  ck_assert_int_eq(D.errors, 0);
  /* a program read as a μGraph: the μGraph parser's error, at the first word */
  ck_assert_ptr_null(ax_load_from_text(A, &D, "<made>", PROG, &AS_MUGRAPH));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_msg(strstr(unit_diagnostics(), "<made>:1:1: error: "), "%s", unit_diagnostics());
}
END_TEST

/* The program picked by name from a file of two; without a name, the file's only one. */
START_TEST(program_by_name) {
  const char *path = file("two.axl", TWO);
  AxMugraph *g = ax_load_from_file(A, &D, path, &(AxLoadOpts){.program = "second"});
  ck_assert_ptr_nonnull(g);
  ck_assert_str_eq(g->name, "second");
  ck_assert_int_eq(D.errors, 0);
}
END_TEST

START_TEST(program_name_missing) {
  const char *path = file("two.axl", TWO);
  ck_assert_ptr_null(ax_load_from_file(A, &D, path, &(AxLoadOpts){.program = "third"}));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_str_eq(diagnostics(), "DIR/two.axl:1:1: error: no program named 'third' in this file\n"
                                  "    1 | program first {\n"
                                  "      | ^\n");
}
END_TEST

START_TEST(two_programs_no_name) {
  ck_assert_ptr_null(ax_load_from_file(A, &D, file("two.axl", TWO), NULL));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_str_eq(diagnostics(), "DIR/two.axl:1:1: error: this file holds 2 programs; choose one with --program NAME\n"
                                  "    1 | program first {\n"
                                  "      | ^\n");
}
END_TEST

START_TEST(no_program) {
  ck_assert_ptr_null(ax_load_from_text(A, &D, "r.axl", "# nothing here\n", NULL));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_str_eq(unit_diagnostics(), "r.axl:1:1: error: this file holds no program block\n"
                                       "    1 | # nothing here\n"
                                       "      | ^\n");
}
END_TEST

/* A μGraph that parses but does not validate: validation's message at the operator; with
 * parse_only the same text is a graph (what `axle mugraph fmt` prints). */
START_TEST(mugraph_fails_validation) {
  const char *bad = "mugraph g {\n  input X : f16[16, 64]\n  input W : f16[32, 64]\n  Y = matmul(X, W)\n  output Y\n}\n";
  const char *path = file("bad.mug", bad);
  ck_assert_ptr_null(ax_load_from_file(A, &D, path, NULL));
  ck_assert_int_eq(D.errors, 1);
  const char *msg = diagnostics();
  ck_assert_msg(strncmp(msg, "DIR/bad.mug:4:3: error: operator 'matmul' ('Y'): ", 49) == 0, "%s", msg);
  AxMugraph *g = ax_load_from_file(A, &D, path, &(AxLoadOpts){.parse_only = true});
  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(D.errors, 1);
}
END_TEST

/* A program that parses but does not lower: the lowering's located message, one. */
START_TEST(program_fails_lowering) {
  const char *bad = "program p {\n  input X : f16[4, 8]\n  output Y = exp(Z)\n}\n";
  ck_assert_ptr_null(ax_load_from_text(A, &D, "p.axl", bad, NULL));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_str_eq(unit_diagnostics(), "p.axl:3:18: error: program 'p': unknown name 'Z'\n"
                                       "    3 |   output Y = exp(Z)\n"
                                       "      |                  ^\n");
}
END_TEST

/* A syntax error stops the door before the pick: no "holds no program" after it. */
START_TEST(parse_error_stops) {
  ck_assert_ptr_null(ax_load_from_text(A, &D, "p.axl", "program p {\n  input X : f16[4\n}\n", NULL));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_msg(strstr(unit_diagnostics(), "p.axl:3:1: error: ") == unit_diagnostics(), "%s", unit_diagnostics());
}
END_TEST

START_TEST(missing_file) {
  const char *path = ax_arena_printf(A, "%s/absent.axl", dir);
  ck_assert_ptr_null(ax_load_from_file(A, &D, path, NULL));
  ck_assert_int_eq(D.errors, 1);
  ck_assert_str_eq(diagnostics(), "axle: error: cannot open 'DIR/absent.axl': No such file or directory\n");
}
END_TEST

/* d NULL: a generated text is read silently — a graph when it parses and validates, NULL
 * when it does not, nothing reported anywhere. */
START_TEST(quiet) {
  ck_assert_ptr_nonnull(ax_load_from_text(A, NULL, "<gen>", "mugraph g {\n  input X : f16[4]\n  Y = exp(X)\n  output Y\n}\n", NULL));
  ck_assert_ptr_null(ax_load_from_text(A, NULL, "<gen>", "mugraph g {\n  input X : f16[4]\n  Y = exp(Z)\n  output Y\n}\n", NULL));
  ck_assert_ptr_null(ax_load_from_text(A, NULL, "<gen>", "mugraph g {\n  input X : f16[4]\n  Y = matmul(X)\n  output Y\n}\n", NULL));
  ck_assert_ptr_null(ax_load_from_text(A, NULL, "<gen>", "program p {\n  input X : f16[4]\n}\n", &AS_PROGRAM));
  ck_assert_ptr_null(ax_load_from_file(A, NULL, "/nonexistent/x.mug", NULL));
  ck_assert_int_eq(D.errors, 0);
  ck_assert_str_eq(unit_diagnostics(), "");
}
END_TEST

/* Errors a sink holds already (a verb's earlier file) do not fail the next load. */
START_TEST(earlier_errors_are_not_this_loads) {
  ck_assert_ptr_null(ax_load_from_text(A, &D, "<gen>", "nonsense", &AS_MUGRAPH));
  int e = D.errors;
  ck_assert_int_gt(e, 0);
  ck_assert_ptr_nonnull(ax_load_from_text(A, &D, "p.axl", PROG, NULL));
  ck_assert_ptr_nonnull(ax_load_from_text(A, &D, "g.mug", MUG, NULL));
  ck_assert_int_eq(D.errors, e);
}
END_TEST

/* The block door: a parsed file's program lowered and validated. */
START_TEST(block) {
  AxSource *src = ax_source_from_text(A, "two.axl", TWO, strlen(TWO));
  AxFile *f = ax_parse(A, &D, src);
  ck_assert_int_eq(D.errors, 0);
  ck_assert_int_eq((int)f->nblocks, 2);
  AxMugraph *g = ax_load_block(A, &D, f->blocks[1]);
  ck_assert_ptr_nonnull(g);
  ck_assert_str_eq(g->name, "second");
  ck_assert_int_eq(g->tensors[g->outputs[0]].shape.dim[1], 8);
}
END_TEST

int main(void) {
  Suite *s = suite_create("load");
  TCase *t = tcase_create("load");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, program_file);
  tcase_add_test(t, mugraph_file);
  tcase_add_test(t, text);
  tcase_add_test(t, program_by_name);
  tcase_add_test(t, program_name_missing);
  tcase_add_test(t, two_programs_no_name);
  tcase_add_test(t, no_program);
  tcase_add_test(t, mugraph_fails_validation);
  tcase_add_test(t, program_fails_lowering);
  tcase_add_test(t, parse_error_stops);
  tcase_add_test(t, missing_file);
  tcase_add_test(t, quiet);
  tcase_add_test(t, earlier_errors_are_not_this_loads);
  tcase_add_test(t, block);
  suite_add_tcase(s, t);
  return unit_run(s);
}
