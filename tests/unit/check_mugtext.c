/* check_mugtext.c — the .mug text format (mugtext.h): parse then print gives a canonical
 * text back byte for byte, comments and single blank lines included, wherever they stand;
 * any parsed text prints to a fixed point; the examples print back to themselves; the
 * statement and map printers; and the parser's errors, each located at its token, parsing
 * going on after one. (Validation is check_mugraph's; the silent reader of generated texts,
 * check_load's.) */
#include <dirent.h>

#include "superopt/ir/mugtext.h"
#include "unit.h"

static AxMugraph *parse(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.mug", ax_arena_strdup(A, text), strlen(text));
  return ax_mugtext_parse(A, &D, src);
}

static char *print(const AxMugraph *g) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ax_mugtext_print(m, g);
  fclose(m);
  char *s = ax_arena_strdup(A, buf);
  free(buf);
  return s;
}

/* A canonical text with a comment in every place one can stand: before the graph, after
 * it, before and after statements, kernels, thread graphs and closing braces, in
 * paragraphs (a blank line between two comments), and a blank line between statements. */
static const char *CANON =
    "# a comment before the graph\n"
    "\n"
    "# its second paragraph\n"
    "mugraph g {\n"
    "  # before the first input\n"
    "  input X : f16[16, 64]\n"
    "  input W : f16[64, 32]  # trailing an input\n"
    "\n"
    "  # a comment before a kernel\n"
    "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 2 {\n"
    "    x = input X imap {} fmap 1  # trailing an iterator\n"
    "    w = input W imap {x: 1} fmap 0\n"
    "    xw = matmul(x, w)\n"
    "    a = accum sum(xw)\n"
    "    r = accum rms(x, axis = 1)\n"
    "    # before a thread graph\n"
    "    thread {\n"
    "      # inside it\n"
    "      o = div(a, r)\n"
    "      h = mul(o, 0.5)  # trailing a thread node\n"
    "      # before its brace\n"
    "    }  # trailing its brace\n"
    "    output O = h omap {x: 1}\n"
    "    # before the kernel's brace\n"
    "  }  # trailing the kernel\n"
    "  P = sum(O, axis = 1, to = 8)\n"
    "  Q = add(P, -0.25)\n"
    "  output O, Q\n"
    "  # before the graph's brace\n"
    "}  # trailing the graph\n"
    "# after the graph\n";

START_TEST(canonical_text_prints_back_byte_for_byte) {
  AxMugraph *g = parse(CANON);
  ck_assert_msg(g, "%s", unit_diagnostics());
  ck_assert_str_eq(print(g), CANON);
  char *s = ax_mugtext_string(g);
  ck_assert_str_eq(s, CANON);
  free(s);
  ck_assert_int_eq(g->nstmts, 6);
  ck_assert_int_eq(g->noutputs, 2);
}
END_TEST

/* Any text that parses prints, in canonical layout, to a text that prints to itself:
 * spacing and line breaks normalized, omitted defaults (block, forloop) written out, a
 * comment after an opening brace moved to a line of its own, two blank lines made one. */
START_TEST(any_parsed_text_reaches_a_fixed_point) {
  const char *loose = "mugraph g{input X:f16[4,4]  # x\n\n\n kernel k grid[2,1,1]{ # on the brace\n"
                      "x=input X imap{x:0}\ny=exp(x) output Y=y omap{x:0}} output Y}";
  AxMugraph *g = parse(loose);
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *once = print(g);
  ck_assert_str_eq(once, "mugraph g {\n"
                         "  input X : f16[4, 4]  # x\n"
                         "\n"
                         "  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 1 {\n"
                         "    # on the brace\n"
                         "    x = input X imap {x: 0} fmap -\n"
                         "    y = exp(x)\n"
                         "    output Y = y omap {x: 0}\n"
                         "  }\n"
                         "  output Y\n"
                         "}\n");
  AxMugraph *g2 = parse(once);
  ck_assert_msg(g2, "%s", unit_diagnostics());
  ck_assert_str_eq(print(g2), once);
}
END_TEST

/* Every example and mutant in superopt/examples prints back to itself. */
START_TEST(examples_print_back_to_themselves) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_ptr_nonnull(root);
  const char *dirs[] = {"superopt/examples", "superopt/examples/mutants"};
  int seen = 0;
  for (int di = 0; di < 2; di++) {
    char *dir = ax_arena_printf(A, "%s/%s", root, dirs[di]);
    DIR *dp = opendir(dir);
    ck_assert_ptr_nonnull(dp);
    struct dirent *e;
    while ((e = readdir(dp))) {
      size_t n = strlen(e->d_name);
      if (n < 5 || strcmp(e->d_name + n - 4, ".mug") != 0) continue;
      AxSource *src;
      ck_assert(ax_source_load(A, &D, ax_arena_printf(A, "%s/%s", dir, e->d_name), &src));
      AxMugraph *g = ax_mugtext_parse(A, &D, src);
      ck_assert_msg(g, "%s: %s", e->d_name, unit_diagnostics());
      ck_assert_msg(strcmp(print(g), src->text) == 0, "%s does not print back to itself", e->d_name);
      seen++;
    }
    closedir(dp);
  }
  ck_assert_int_ge(seen, 26);
}
END_TEST

/* The statement printer writes one statement's canonical line(s) without its comments or
 * the final newline (a kernel's lines keep the comments inside it); the map printer the
 * grammar's `map`, "{}" when nothing is mapped. */
START_TEST(statement_and_map_printers) {
  AxMugraph *g = parse(CANON);
  ck_assert_ptr_nonnull(g);
  const char *want[] = {"  input X : f16[16, 64]", "  input W : f16[64, 32]", NULL,
                        "  P = sum(O, axis = 1, to = 8)", "  Q = add(P, -0.25)", "  output O, Q"};
  for (int i = 0; i < g->nstmts; i++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ax_mugtext_print_stmt(m, g, &g->stmts[i]);
    fclose(m);
    if (want[i]) {
      ck_assert_str_eq(buf, want[i]);
    } else {   /* a kernel: its lines, the comments inside it, not those before or after it */
      ck_assert(strncmp(buf, "  kernel k1 grid [4, 1, 1] block [128, 1, 1] forloop 2 {\n", 57) == 0);
      ck_assert(len > 4 && strcmp(buf + len - 4, "\n  }") == 0);
      ck_assert_ptr_nonnull(strstr(buf, "    }  # trailing its brace\n"));
      ck_assert_ptr_null(strstr(buf, "# a comment before a kernel"));
      ck_assert_ptr_null(strstr(buf, "# trailing the kernel"));
    }
    free(buf);
  }
  const int maps[][3] = {{-1, -1, -1}, {1, -1, 0}, {0, 2, 1}};
  const char *texts[] = {"{}", "{x: 1, z: 0}", "{x: 0, y: 2, z: 1}"};
  for (int i = 0; i < 3; i++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ax_mugtext_print_map(m, maps[i]);
    fclose(m);
    ck_assert_str_eq(buf, texts[i]);
    free(buf);
  }
}
END_TEST

/* Each error `parse` reports for text, at line:col, with that message (and NULL). */
static void error_at(const char *text, const char *where_what) {
  int e0 = D.errors;
  ck_assert_ptr_null(parse(text));
  ck_assert_int_gt(D.errors, e0);
  ck_assert_msg(strstr(unit_diagnostics(), where_what), "'%s' not among:\n%s", where_what, unit_diagnostics());
}

/* The parser's errors, at the offending token, with the source line and a caret; after
 * an error parsing goes on, so a second one in the same text is reported too. */
START_TEST(located_errors) {
  error_at("mugraph g {\n  input X : f64[4]\n}\n", "t.mug:2:13: error: unknown element type 'f64' (expected f16, bf16 or f32)");
  error_at("mugraph g {\n  input X : f16[4]\n  Y = foo(X)\n  Z = exp(Q)\n}\n", "t.mug:3:7: error: unknown operator 'foo'");
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.mug:4:11: error: 'Q' is not defined"));   /* recovery */
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "    3 |   Y = foo(X)\n      |       ^~~"));
  error_at("mugraph g {\n  input X : f16[4]\n  kernel k grid [1, 1, 1] {\n    y = exp(X)\n  }\n}\n",
           "t.mug:4:13: error: kernel 'k': 'X' is not defined in this block graph (kernel tensors enter through 'input')");
  error_at("mugraph g {\n  input X : f16[4] $\n}\n",
           "t.mug:2:20: error: expected 'input', 'kernel', 'output', an operator statement or '}', found invalid character '$'");
  error_at("mugraph g {\n  input X : f16[4]\n  input X : f16[4]\n  output X\n}\n", "t.mug:3:9: error: 'X' is already defined");
  error_at("mugraph g {\n  input X : f16[4]\n  Y = exp(X)\n  output Y, Y\n}\n", "t.mug:4:13: error: 'Y' is already an output");
  error_at("mugraph g {\n  input X : f16[4]\n  output Z\n}\n", "t.mug:3:10: error: output 'Z' is not defined");
  error_at("mugraph g {\n  input X : f16[99999999999999999999]\n  output X\n}\n",
           "t.mug:2:17: error: integer 99999999999999999999 is too large");
  error_at("mugraph g {\n  input X : f16[4]\n  Y = mul(X, 1e999999999999)\n  output Y\n}\n",
           "t.mug:3:14: error: constant 1e999999999999 cannot be represented exactly");
  error_at("mugraph g {\n  input X : f16[4, 4]\n  Y = exp(X, axis = 1)\n  output Y\n}\n",
           "t.mug:3:14: error: 'exp' takes no attribute 'axis'");
  error_at("mugraph g {\n  input X : f16[4]\n  Y = exp(X, [4])\n  output Y\n}\n", "t.mug:3:14: error: 'exp' takes no shape");
  error_at("mugraph g {\n  input X : f16[4]\n  Y = exp(X\n  output Y\n}\n", "t.mug:4:3: error: expected ',', found 'output'");
  error_at("mugraph g {\n  input X : f16[4]\n  output X\n}\nextra\n",
           "t.mug:5:1: error: expected end of file (one mugraph per file), found 'extra'");
  const char *kernel = "mugraph g {\n  input X : f16[4, 4]\n  kernel k grid [2, 1, 1] forloop 2 {\n"
                       "    x = input X imap {x: 0} fmap 1\n%s    output Y = %s omap {x: 0}\n  }\n  output Y\n}\n";
  char text[512];
  snprintf(text, sizeof text, kernel, "    a = accum prod(x)\n", "a");
  error_at(text, "t.mug:5:15: error: unknown accumulator 'prod' (expected sum, concat, rms or max)");
  snprintf(text, sizeof text, kernel, "    x = exp(x)\n", "x");
  error_at(text, "t.mug:5:5: error: kernel 'k': 'x' is already defined");
  snprintf(text, sizeof text, kernel, "    thread {\n    }\n", "x");
  error_at(text, "t.mug:5:5: error: kernel 'k': empty thread graph");
  snprintf(text, sizeof text, kernel, "    q = input Q imap {x: 0} fmap -\n", "x");
  error_at(text, "t.mug:5:15: error: kernel 'k': 'Q' is not a kernel tensor");
  error_at("mugraph g {\n  input X : f16[4, 4]\n  kernel k grid [2, 1, 1] {\n    x = input X imap {x: 0} fmap -\n"
           "    output Y = x omap {x: 0}\n  }\n  kernel k grid [2, 1, 1] {\n    y = input Y imap {x: 0} fmap -\n"
           "    output Z = y omap {x: 0}\n  }\n  output Z\n}\n",
           "t.mug:7:3: error: kernel 'k' is already defined");
}
END_TEST

int main(void) {
  Suite *s = suite_create("mugtext");
  TCase *t = tcase_create("mugtext");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, canonical_text_prints_back_byte_for_byte);
  tcase_add_test(t, any_parsed_text_reaches_a_fixed_point);
  tcase_add_test(t, examples_print_back_to_themselves);
  tcase_add_test(t, statement_and_map_printers);
  tcase_add_test(t, located_errors);
  suite_add_tcase(s, t);
  return unit_run(s);
}
