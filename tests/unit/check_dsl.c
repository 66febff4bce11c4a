/* check_dsl.c — the front end: scanner, parser, printer and checker. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/decimal.h"
#include "dsl/check.h"
#include "dsl/ops.h"
#include "dsl/parse.h"
#include "dsl/print.h"
#include "unit.h"

static AxFile *parse(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.axl", text, strlen(text));
  return ax_parse(A, &D, src);
}

static AxFile *parse_check(const char *text) {
  AxFile *f = parse(text);
  if (D.errors == 0) ax_check_file(A, &D, f);
  return f;
}

static char *print(const AxFile *f) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ax_print_file(m, f);
  fclose(m);
  char *s = ax_arena_strdup(A, buf);
  free(buf);
  return s;
}

/* The rewrite of the first block. */
static AxStmt *rewrite(AxFile *f) {
  AxBlock *b = f->blocks[0];
  for (size_t i = 0; i < b->nstmts; i++)
    if (b->stmts[i]->kind == AX_S_REWRITE) return b->stmts[i];
  return NULL;
}

#define RULE_HEAD "rule r for T in num {\n  rclass x\n  map s, l over x\n  tensor A, B : T[x: s]\n"

START_TEST(precedence) {
  AxFile *f = parse(RULE_HEAD "  require -s + l * 2 >= 0 and not s == l or l < 1\n  A => A\n}\n");
  ck_assert_int_eq(D.errors, 0);
  AxExpr *e = f->blocks[0]->stmts[3]->exprs[0];
  /* ((-s + (l * 2) >= 0) and not (s == l)) or (l < 1) */
  ck_assert_int_eq(e->kind, AX_E_BINARY);
  ck_assert_int_eq(e->u.binary.op, AX_BIN_OR);
  AxExpr *l = e->u.binary.lhs;
  ck_assert_int_eq(l->u.binary.op, AX_BIN_AND);
  AxExpr *ge = l->u.binary.lhs;
  ck_assert_int_eq(ge->u.binary.op, AX_BIN_GE);
  ck_assert_int_eq(ge->u.binary.lhs->u.binary.op, AX_BIN_ADD);
  ck_assert_int_eq(ge->u.binary.lhs->u.binary.lhs->kind, AX_E_UNARY);
  ck_assert_int_eq(ge->u.binary.lhs->u.binary.rhs->u.binary.op, AX_BIN_MUL);
  AxExpr *nt = l->u.binary.rhs;
  ck_assert_int_eq(nt->kind, AX_E_UNARY);
  ck_assert_int_eq(nt->u.unary.op, AX_UN_NOT);
  ck_assert_int_eq(nt->u.unary.arg->u.binary.op, AX_BIN_EQ);
  ck_assert_str_eq(ax_print_expr_str(A, e), "-s + l * 2 >= 0 and not s == l or l < 1");
}
END_TEST

START_TEST(parentheses_kept_where_needed) {
  AxFile *f = parse(RULE_HEAD "  require (s - (l - 1)) * (s + 1) == -(-s)\n  A => A\n}\n");
  ck_assert_int_eq(D.errors, 0);
  ck_assert_str_eq(ax_print_expr_str(A, f->blocks[0]->stmts[3]->exprs[0]),
                   "(s - (l - 1)) * (s + 1) == -(-s)");
}
END_TEST

START_TEST(calls_and_named_arguments) {
  AxFile *f = parse(RULE_HEAD "  pad(A, 0, {x: l}, high={x: l + 1}) => A\n}\n");
  ck_assert_int_eq(D.errors, 0);
  AxExpr *lhs = rewrite(f)->lhs;
  ck_assert_int_eq(lhs->kind, AX_E_CALL);
  ck_assert_str_eq(lhs->u.call.fn.name, "pad");
  ck_assert_uint_eq(lhs->u.call.nargs, 4);
  ck_assert_ptr_null(lhs->u.call.args[2].name.name);
  ck_assert_str_eq(lhs->u.call.args[3].name.name, "high");
  ck_assert_int_eq(lhs->u.call.args[3].value->kind, AX_E_AXMAP);
  ck_assert_str_eq(lhs->u.call.args[3].value->u.axmap.entries[0].axis.name, "x");
}
END_TEST

START_TEST(newlines_end_statements_except_continuations) {
  AxFile *f = parse("rule r for T in num {\n  rclass x; map s over x\n  tensor A : T[x: s]\n"
                    "  add(A,\n      A) =>\n    A\n}\n");
  ck_assert_int_eq(D.errors, 0);
  ck_assert_uint_eq(f->blocks[0]->nstmts, 4);
  ck_assert_int_eq(f->blocks[0]->stmts[3]->kind, AX_S_REWRITE);
  /* a line that starts with else, an operator or => continues the statement above */
  f = parse("rule r for T in num {\n  rclass x\n  map s over x\n  map h over x = if s > 0 then s\n"
            "    else 0\n  tensor A : T[x: s]\n  A\n    + A\n    => A\n}\n");
  ck_assert_int_eq(D.errors, 0);
  ck_assert_uint_eq(f->blocks[0]->nstmts, 5);
  ck_assert_int_eq(f->blocks[0]->stmts[2]->value->kind, AX_E_IF);
  ck_assert_int_eq(f->blocks[0]->stmts[4]->lhs->kind, AX_E_BINARY);
}
END_TEST

START_TEST(several_errors_are_reported) {
  AxFile *f = parse("rule r for T in num {\n  rclass x x\n  map s over\n  tensor A : T[x: s]\n  A => A\n}\n"
                    "rule q for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n  A => A\n}\n");
  ck_assert_int_eq(D.errors, 2);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:2:12: error: unexpected identifier"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:3:13: error: unexpected end of line"));
  ck_assert_uint_eq(f->nblocks, 2);   /* recovery kept both rules */
}
END_TEST

START_TEST(printer_keeps_comments_and_blank_lines) {
  const char *text = "# header\nrule r for T in num expect invalid {  # trailing\n  rclass x\n\n"
                     "  # about s\n  map s over x\n  tensor A : T[x: s]\n  A => A  # same\n}\n# end\n";
  AxFile *f = parse(text);
  ck_assert_int_eq(D.errors, 0);
  ck_assert_str_eq(print(f), text);
}
END_TEST

START_TEST(printer_breaks_long_rewrites) {
  AxFile *f = parse(RULE_HEAD "  pad(A, 0, low={x: l + l + l + l}, interior={x: l + l + l}, "
                    "high={x: l + l + l + l + l}) => pad(A, 0, low={x: l + l + l + l}, interior={x: "
                    "l + l + l}, high={x: l + l + l + l + l})\n}\n");
  ck_assert_int_eq(D.errors, 0);
  char *out = print(f);
  ck_assert_ptr_nonnull(strstr(out, " =>\n    pad("));
  for (char *line = out; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    char *end = strchr(line, '\n');
    ck_assert_int_le(end ? end - line : (long)strlen(line), 100);
  }
  AxFile *g = parse(out);
  ck_assert_int_eq(D.errors, 0);
  ck_assert(ax_ast_equal(f, g));
}
END_TEST

/* Every file in rules/ prints to text that parses to an equal tree and prints the same. */
static void roundtrip_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    stat(path, &st);
    if (S_ISDIR(st.st_mode)) {
      roundtrip_dir(path, count);
      continue;
    }
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".axl") != 0) continue;
    AxSource *src;
    ck_assert(ax_source_load(A, &D, path, &src));
    AxFile *f = ax_parse(A, &D, src);
    ck_assert_msg(D.errors == 0, "%s does not parse:\n%s", path, unit_diagnostics());
    char *once = print(f);
    AxFile *g = parse(once);
    ck_assert_msg(D.errors == 0, "printed %s does not parse:\n%s", path, unit_diagnostics());
    ck_assert_msg(ax_ast_equal(f, g), "printing %s changed its tree", path);
    ck_assert_str_eq(print(g), once);
    (*count)++;
  }
  closedir(d);
}

START_TEST(fmt_roundtrips_every_rule_file) {
  const char *root = getenv("AXLE_SRC");
  ck_assert_ptr_nonnull(root);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/rules", root);
  int count = 0;
  roundtrip_dir(dir, &count);
  ck_assert_int_ge(count, 7);
}
END_TEST

START_TEST(checker_types_and_axes) {
  AxFile *f = parse_check("rule r for T in num {\n  rclass x, c\n  map s over x\n  map t, u over c\n"
                          "  tensor A : T[x: s, c: t]\n  tensor B : T[x: s, c: u]\n"
                          "  concat(A + 1, B, axis=c) => concat(A, B * 2, axis=c)\n}\n");
  ck_assert_msg(D.errors == 0, "%s", unit_diagnostics());
  AxRuleSyms *s = f->blocks[0]->syms;
  ck_assert_uint_eq(s->nrclasses, 2);
  ck_assert(!s->rclasses[0].singleton);
  ck_assert(s->rclasses[1].singleton);   /* the concat axis is fixed to rank 1 */
  ck_assert_int_eq(s->lhs->ty.kind, AX_K_TENSOR);
  ck_assert_int_eq(s->lhs->ty.op, AX_OP_CONCAT);
  ck_assert_uint_eq(s->lhs->ty.axes, 3);
  ck_assert_int_eq(s->elem, AX_ELEM_VAR);
  AxExpr *a1 = s->lhs->u.call.args[0].value;   /* A + 1: literal adapts to T */
  ck_assert_int_eq(a1->ty.op, AX_OP_ADD);
  ck_assert_int_eq(a1->ty.elem, AX_ELEM_VAR);
}
END_TEST

START_TEST(checker_maps_and_conditions) {
  AxFile *f = parse_check("rule r for T in num {\n  rclass x, y\n  map s, l over x\n  map t over y\n"
                          "  map h over x = max(s - l, 0)\n  tensor A : T[x: s, y: t]\n"
                          "  require l >= 0 and l <= s, exists y: t == 0, A > 0\n  A => A\n}\n");
  ck_assert_msg(D.errors == 0, "%s", unit_diagnostics());
  AxRuleSyms *s = f->blocks[0]->syms;
  ck_assert_uint_eq(s->nrequires, 3);
  ck_assert_int_eq(s->requires[0]->ty.kind, AX_K_COND);
  ck_assert_int_eq(s->requires[0]->ty.rclass, 0);   /* per axis of x */
  ck_assert_int_eq(s->requires[1]->ty.kind, AX_K_COND);
  ck_assert_int_eq(s->requires[1]->ty.rclass, -1);  /* closed by 'exists' */
  ck_assert_int_eq(s->requires[2]->ty.kind, AX_K_TENSOR);   /* holds at every index */
  ck_assert_int_eq(s->requires[2]->ty.elem, AX_ELEM_BOOL);
}
END_TEST

START_TEST(checker_reports_rule_and_operator) {
  parse_check(RULE_HEAD "  slice(A, start={x: l}, stop={x: s}) => A\n}\n");
  ck_assert_int_eq(D.errors, 1);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
      "t.axl:5:26: error: rule 'r': 'slice' has no attribute 'stop' (its attributes: start, end, stride)"));
}
END_TEST

START_TEST(nul_bytes_and_garbage_do_not_crash) {
  const char text[] = "rule r {\0\xff\x01 rclass x }\n";
  AxSource *src = ax_source_from_text(A, "t.axl", text, sizeof text - 1);
  ax_parse(A, &D, src);
  ck_assert_int_ge(D.errors, 1);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "invalid byte 0x00"));
}
END_TEST

/* One operator table: an operator at several levels is one entry; each level finds it by
 * its own spelling, and a level never finds what may not appear there. */
START_TEST(one_operator_table_for_every_level) {
  AxOp r, p;
  ck_assert(ax_op_lookup("dot", &r));
  ck_assert(ax_op_lookup_prog("matmul", &p));
  ck_assert_int_eq(r, p);
  ck_assert(ax_op_lookup("reduce", &r) && ax_op_lookup_prog("sum", &p) && r == p);
  ck_assert(ax_op_lookup("add", &r) && ax_op_lookup_prog("add", &p) && r == p);
  ck_assert(ax_op_lookup("broadcast", &r) && ax_op_lookup_prog("broadcast", &p) && r == p);
  ck_assert(ax_op_lookup("concat", &r) && ax_op_lookup_prog("concat", &p) && r == p);
  ck_assert_str_eq(ax_op_pname(AX_OP_DOT), "matmul");
  ck_assert_str_eq(ax_op_name(AX_OP_DOT), "dot");
  ck_assert_str_eq(ax_op_pname(AX_OP_ADD), "add");
  ck_assert(!ax_op_lookup("matmul", &r));       /* rules keep their spelling */
  ck_assert(!ax_op_lookup_prog("clamp", &p));   /* rule-only operators stay out of programs */
  ck_assert(!ax_op_lookup_prog("input", &p));   /* sources are not called by name */
  ck_assert(!ax_op_lookup_prog("const", &p));
  ck_assert(ax_op_lookup_prog("reshape", &p));
  ck_assert(!(ax_op_spec(p)->levels & AX_LV_BLOCK));   /* layout: kernel level only */
  for (int i = 0; i < AX_OP_COUNT; i++) {
    const AxOpSpec *s = ax_op_spec((AxOp)i);
    ck_assert(s->levels != 0);
    /* a program-level operator has a program class, a rule-only one none */
    ck_assert_int_eq(s->cls != AX_TC_NONE, (s->levels & (AX_LV_PROG | AX_LV_BLOCK | AX_LV_SOURCE)) != 0);
    if (s->levels & AX_LV_RULE) ck_assert(ax_op_lookup(s->name, &r) && r == (AxOp)i);
    if (s->levels & (AX_LV_PROG | AX_LV_BLOCK)) ck_assert(ax_op_lookup_prog(s->pname, &p) && p == (AxOp)i);
  }
}
END_TEST

/* base/decimal.h's limits, at and one past each bound; the parser reports a literal past
 * them at the literal and keeps going. */
START_TEST(literal_limits) {
  long digits, e;
  ck_assert_int_eq(ax_decimal_limit("1e4096", &digits, &e), AX_DECIMAL_OK);
  ck_assert_int_eq(digits, 1);
  ck_assert_int_eq(e, 4096);
  ck_assert_int_eq(ax_decimal_limit("1.5E-4096", NULL, &e), AX_DECIMAL_OK);
  ck_assert_int_eq(e, -4096);
  ck_assert_int_eq(ax_decimal_limit("1e+4097", NULL, NULL), AX_DECIMAL_EXPONENT_RANGE);
  ck_assert_int_eq(ax_decimal_limit("1e-4097", NULL, NULL), AX_DECIMAL_EXPONENT_RANGE);
  ck_assert_int_eq(ax_decimal_limit("1e99999999999999999999999999", NULL, &e), AX_DECIMAL_EXPONENT_RANGE);
  ck_assert_int_eq(e, 4097);   /* saturated, never overflowed */
  ck_assert_int_eq(ax_decimal_limit("2e0000000000000000000000000000007", NULL, &e), AX_DECIMAL_OK);
  ck_assert_int_eq(e, 7);
  char *lit = ax_arena_alloc(A, 4100);
  memset(lit, '9', 4096);
  lit[4096] = '\0';
  ck_assert_int_eq(ax_decimal_limit(lit, &digits, NULL), AX_DECIMAL_OK);
  ck_assert_int_eq(digits, 4096);
  lit[1] = '.';   /* the point is no digit */
  ck_assert_int_eq(ax_decimal_limit(lit, &digits, NULL), AX_DECIMAL_OK);
  ck_assert_int_eq(digits, 4095);
  lit[1] = '9';
  lit[4096] = '9';
  lit[4097] = '\0';
  ck_assert_int_eq(ax_decimal_limit(lit, NULL, NULL), AX_DECIMAL_TOO_MANY_DIGITS);

  /* the parser: both literals of the line are reported, located, and the file's other
   * rule still parses */
  AxFile *f = parse(RULE_HEAD "  A * 1e4097 + 1e-5000 => A * 1e4096\n}\n"
                    "rule q for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n  A => A\n}\n");
  ck_assert_int_eq(D.errors, 2);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:5:7: error: number's exponent out of range "
                                                   "(at most 4096 in absolute value)"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:5:16: error: number's exponent out of range"));
  ck_assert_uint_eq(f->nblocks, 2);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("dsl");
  TCase *t = tcase_create("parse");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, precedence);
  tcase_add_test(t, parentheses_kept_where_needed);
  tcase_add_test(t, calls_and_named_arguments);
  tcase_add_test(t, newlines_end_statements_except_continuations);
  tcase_add_test(t, several_errors_are_reported);
  tcase_add_test(t, printer_keeps_comments_and_blank_lines);
  tcase_add_test(t, printer_breaks_long_rewrites);
  tcase_add_test(t, fmt_roundtrips_every_rule_file);
  tcase_add_test(t, checker_types_and_axes);
  tcase_add_test(t, checker_maps_and_conditions);
  tcase_add_test(t, checker_reports_rule_and_operator);
  tcase_add_test(t, nul_bytes_and_garbage_do_not_crash);
  tcase_add_test(t, one_operator_table_for_every_level);
  tcase_add_test(t, literal_limits);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return unit_run(suite());
}
