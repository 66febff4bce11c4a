/* check_instance.c — rank instantiation (verifier/instance.h): the variables made per named
 * axis of every class at its rank, their class, position and family, twins, the refusal of
 * a concat/iota class above rank 1, and the verification condition it assembles, decided
 * by z3 (a right rule's query is unsat at every rank tried, a wrong one's sat, the
 * preconditions say what the rule requires). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/instance.h"
#include "smt/solver.h"
#include "unit.h"

static const AxTerm *var(AxSymInstance *in, const char *name) {
  return ax_term_mk_var(in->tc, name, AX_SORT_INT);
}

/* z3 on f: sat or unsat (an unknown fails the test). */
static AxSmtResult z3(AxSymInstance *in, const AxTerm *f) {
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
  char reason[256] = "";
  AxSmtResult r = ax_solver_check(&o, in->tc, f, NULL, 0, NULL, reason, sizeof reason);
  ck_assert_msg(r != AX_SMT_UNKNOWN, "unknown: %s", reason);
  return r;
}

static const char *PAD =
    "rule r for T in num {\n"
    "  rclass x, y\n  map s, l over x nonneg\n  map t over y\n"
    "  tensor Y : T[x: s, y: t]\n"
    "  pad_low(Y, 0, {x: l}) => pad_low(Y, 0, {x: l})\n}\n";

/* One Int variable per named axis of a map or access axis, named "m.k"/"@a.k", with the
 * map's class, position k and one family per map. */
START_TEST(variables_per_axis) {
  const AxBlock *r = unit_rule(PAD);
  int rank[2] = {3, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  int rc, pos;
  long fam_s = -1, fam_l = -1, fam;
  for (int k = 0; k < 3; k++) {
    char name[16];
    snprintf(name, sizeof name, "s.%d", k);
    ck_assert(ax_instance_var_info(&in, var(&in, name), &rc, &pos, &fam));
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(pos, k);
    if (k == 0) fam_s = fam;
    ck_assert_int_eq(fam, fam_s);
    snprintf(name, sizeof name, "l.%d", k);
    ck_assert(ax_instance_var_info(&in, var(&in, name), &rc, &pos, &fam));
    ck_assert_int_eq(pos, k);
    if (k == 0) fam_l = fam;
    ck_assert_int_eq(fam, fam_l);
    snprintf(name, sizeof name, "@x.%d", k);
    ck_assert(ax_instance_var_info(&in, var(&in, name), &rc, &pos, &fam));
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(pos, k);
    ck_assert(fam != fam_s && fam != fam_l);
  }
  ck_assert(fam_s != fam_l);
  /* rank 3: no fourth named axis; y at rank 1: one */
  ck_assert(!ax_instance_var_info(&in, var(&in, "s.3"), &rc, &pos, &fam));
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "s.3")), -1);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "t.0")), 1);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "@y.0")), 1);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "t.1")), -1);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "@y.1")), -1);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "nothing")), -1);
  /* the maps array holds the same variables */
  size_t si = 0;
  while (strcmp(r->syms->syms[si].name, "s") != 0) si++;
  ck_assert_ptr_eq(ax_symbolic_term(in.maps[si][2]), var(&in, "s.2"));
  ax_instance_free(&in);
}
END_TEST

/* Twins: the same family at another position; none past the rank or for a stranger. */
START_TEST(twins) {
  const AxBlock *r = unit_rule(PAD);
  int rank[2] = {2, 2};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "s.0"), 1), var(&in, "s.1"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "s.1"), 0), var(&in, "s.0"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "s.1"), 1), var(&in, "s.1"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "l.0"), 1), var(&in, "l.1"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "@x.1"), 0), var(&in, "@x.0"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "t.0"), 1), var(&in, "t.1"));
  ck_assert_ptr_eq(ax_instance_twin(&in, var(&in, "@y.0"), 1), var(&in, "@y.1"));
  ck_assert_ptr_null(ax_instance_twin(&in, var(&in, "s.0"), 2));
  ck_assert_ptr_null(ax_instance_twin(&in, var(&in, "nothing"), 0));
  ax_instance_free(&in);
}
END_TEST

/* Summation variables belong to the class of the axis they range over and have twins. */
START_TEST(summation_variables) {
  const AxBlock *r = unit_rule("rule r for T in num {\n  rclass x, y\n  map sx over x\n  map sy over y\n"
                               "  tensor X : T[x: sx, y: sy]\n"
                               "  reduce(reduce(X, [x]), [y]) => reduce(X, [x, y])\n}\n");
  int rank[2] = {2, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  ck_assert(in.reduction);
  ck_assert_uint_eq(in.red[0].n, 3);   /* two on x, one on y */
  ck_assert_uint_eq(in.red[1].n, 3);
  for (int side = 0; side < 2; side++) {
    int on_x = 0, on_y = 0;
    for (size_t i = 0; i < in.red[side].n; i++) {
      const AxTerm *v = in.red[side].vars[i];
      int rc, pos;
      long fam;
      ck_assert(ax_instance_var_info(&in, v, &rc, &pos, &fam));
      if (rc == 0) {
        on_x++;
        const AxTerm *tw = ax_instance_twin(&in, v, 1 - pos);
        ck_assert_ptr_nonnull(tw);
        ck_assert_ptr_ne(tw, v);
        int rc2, pos2;
        long fam2;
        ck_assert(ax_instance_var_info(&in, tw, &rc2, &pos2, &fam2));
        ck_assert_int_eq(rc2, 0);
        ck_assert_int_eq(pos2, 1 - pos);
        ck_assert_int_eq(fam2, fam);
      } else {
        ck_assert_int_eq(rc, 1);
        on_y++;
        ck_assert_ptr_null(ax_instance_twin(&in, v, 1));
      }
    }
    ck_assert_int_eq(on_x, 2);
    ck_assert_int_eq(on_y, 1);
  }
  ax_instance_free(&in);
}
END_TEST

/* A class used as a concat axis is fixed at rank 1: another rank is refused, not built. */
START_TEST(singleton_class) {
  const AxBlock *r = unit_rule("rule r for T in num {\n"
                               "  rclass x, y\n  map a, b over y\n  map s over x\n"
                               "  tensor A : T[x: s, y: a]\n  tensor B : T[x: s, y: b]\n"
                               "  concat(A, B, axis=y) => concat(A, B, axis=y)\n}\n");
  ck_assert(r->syms->rclasses[1].singleton);
  AxSymInstance in;
  int two[2] = {1, 2};
  ax_instance_build(&in, r, AX_INT, two);
  ck_assert_ptr_nonnull(in.unsupported);
  ck_assert_str_eq(in.unsupported, "a rank class used as a concat or iota axis is instantiated above rank 1");
  ck_assert_ptr_null(in.query);
  ax_instance_free(&in);
  int ok[2] = {3, 1};
  ax_instance_build(&in, r, AX_INT, ok);
  ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "s.2")), 0);
  ck_assert_int_eq(ax_instance_var_rclass(&in, var(&in, "a.0")), 1);
  ck_assert_int_eq(z3(&in, in.query), AX_SMT_UNSAT);
  ax_instance_free(&in);
}
END_TEST

/* The verification condition: a true rule's query is unsat at ranks 1..3, a false one's
 * sat from the rank where it fails; preconditions carry nonneg and `require`. */
START_TEST(queries) {
  const AxBlock *good = unit_rule("rule r for T in num {\n"
                                  "  rclass x\n  map s over x\n  map l1, l2 over x nonneg\n"
                                  "  tensor Y : T[x: s]\n"
                                  "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1 + l2})\n}\n");
  const AxBlock *bad = unit_rule("rule r for T in num {\n"
                                 "  rclass x\n  map s over x\n  map l1, l2 over x nonneg\n"
                                 "  tensor Y : T[x: s]\n"
                                 "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1})\n}\n");
  for (int k = 1; k <= 3; k++) {
    AxSymInstance in;
    ax_instance_build(&in, good, AX_INT, &k);
    ck_assert_msg(in.unsupported == NULL, "%s", in.unsupported);
    ck_assert(!in.reduction);
    ck_assert_int_eq(z3(&in, in.query), AX_SMT_UNSAT);
    /* the context is satisfiable: the query is not unsat for want of a valid instance */
    ck_assert_int_eq(z3(&in, in.ctx), AX_SMT_SAT);
    /* nonneg is in pre: a negative l1 on the last axis contradicts it */
    char name[16];
    snprintf(name, sizeof name, "l1.%d", k - 1);
    const AxTerm *neg = ax_term_mk_lt(in.tc, var(&in, name), ax_term_mk_int_si(in.tc, 0));
    ck_assert_int_eq(z3(&in, ax_term_mk_and2(in.tc, in.pre, neg)), AX_SMT_UNSAT);
    ck_assert_int_eq(z3(&in, neg), AX_SMT_SAT);
    ax_instance_free(&in);
    ax_instance_build(&in, bad, AX_INT, &k);
    ck_assert_int_eq(z3(&in, in.query), AX_SMT_SAT);
    /* with l2 = 0 on every axis the wrong rule is right */
    const AxTerm *q = in.query;
    for (int j = 0; j < k; j++) {
      snprintf(name, sizeof name, "l2.%d", j);
      q = ax_term_mk_and2(in.tc, q, ax_term_mk_eq(in.tc, var(&in, name), ax_term_mk_int_si(in.tc, 0)));
    }
    ck_assert_int_eq(z3(&in, q), AX_SMT_UNSAT);
    ax_instance_free(&in);
  }
  /* a rule wrong only from rank 2: reversing equals the identity when every size is 1;
   * `exists x: s == 1` forces that at rank 1 and leaves the second axis free at rank 2 */
  const AxBlock *r2 = unit_rule("rule r for T in num {\n"
                                "  rclass x\n  map s over x\n"
                                "  tensor A : T[x: s]\n"
                                "  require exists x: s == 1\n"
                                "  reverse(A, [x]) => A\n}\n");
  int one = 1, two = 2;
  AxSymInstance in;
  ax_instance_build(&in, r2, AX_INT, &one);
  ck_assert_int_eq(z3(&in, in.query), AX_SMT_UNSAT);
  ax_instance_free(&in);
  ax_instance_build(&in, r2, AX_INT, &two);
  ck_assert_int_eq(z3(&in, in.query), AX_SMT_SAT);
  ax_instance_free(&in);
}
END_TEST

/* A `require` that no instance meets: the query is unsat and so is the context. */
START_TEST(vacuous_precondition) {
  const AxBlock *r = unit_rule("rule r for T in num {\n  rclass x\n  map s over x\n  tensor A : T[x: s]\n"
                               "  require forall x: s < 0\n  A => A + 1\n}\n");
  int k = 2;
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, &k);
  ck_assert_int_eq(z3(&in, in.query), AX_SMT_UNSAT);
  ck_assert_int_eq(z3(&in, ax_term_mk_and2(in.tc, in.pre, in.valid_lhs)), AX_SMT_UNSAT);
  ax_instance_free(&in);
}
END_TEST

int main(void) {
  Suite *s = suite_create("instance");
  TCase *t = tcase_create("instance");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, variables_per_axis);
  tcase_add_test(t, twins);
  tcase_add_test(t, summation_variables);
  tcase_add_test(t, singleton_class);
  tcase_add_test(t, queries);
  tcase_add_test(t, vacuous_precondition);
  suite_add_tcase(s, t);
  return unit_run(s);
}
