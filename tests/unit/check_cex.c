/* check_cex.c — counterexamples (verifier/cex.h): a wrong rule's z3 model replays, and the
 * replay's values agree with an evaluation of the rule written out here; a model altered
 * in any way that removes the failure (the offending map, the access, a precondition),
 * a model with a value missing, and random forged models of a right rule are all refused.
 * That is the soundness property: INVALID only with a replayed counterexample. */
#include <check.h>
#include <cjson/cJSON.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "verifier/cex.h"
#include "verifier/verify.h"
#include "unit.h"

/* pad_low twice against pad_low once: right when the outer padding value is 0, wrong
 * with 1 (where l2 > 0 and the access falls in the outer padding). */
static const char *PAD =
    "rule r for T in num {\n"
    "  rclass x\n  map s over x\n  map l1, l2 over x nonneg\n"
    "  tensor Y : T[x: s]\n%s"
    "  pad_low(pad_low(Y, 0, {x: l1}), %s, {x: l2}) => pad_low(Y, 0, {x: l1 + l2})\n}\n";

static const AxBlock *pad(const char *require, const char *outer) {
  char text[1024];
  snprintf(text, sizeof text, PAD, require, outer);
  return unit_rule(text);
}

/* The slot of watch w holding variable name, or -1. */
static int slot(const AxWatch *w, const char *name) {
  for (size_t i = 0; i < w->n; i++)
    if (ax_term_kind(w->terms[i]) == AX_TERM_VAR && strcmp(ax_term_var_name(w->terms[i]), name) == 0)
      return (int)i;
  return -1;
}

static long get(const AxModel *m, int i) {
  mpz_t z;
  mpz_init(z);
  ck_assert(ax_model_int(m, (size_t)i, z));
  long v = mpz_get_si(z);
  mpz_clear(z);
  return v;
}

/* A copy of m with slot `change` set to v (change < 0: none) and slot `drop` left empty. */
static AxModel *forge(const AxWatch *w, const AxModel *m, int change, long v, int drop) {
  AxModel *f = ax_model_new(w->terms, w->n);
  mpq_t q;
  mpq_init(q);
  for (size_t i = 0; i < w->n; i++) {
    if ((int)i == drop) continue;
    if (ax_term_sort(w->terms[i]) == AX_SORT_BOOL) {
      bool b;
      ck_assert(ax_model_bool(m, i, &b));
      ax_model_set_bool(f, i, b);
      continue;
    }
    ck_assert(ax_model_real(m, i, q));
    if ((int)i == change) mpq_set_si(q, v, 1);
    ck_assert(ax_model_set_rational(f, i, q));
  }
  mpq_clear(q);
  return f;
}

/* z3's model of the instance's query (it must be sat). */
static AxModel *model(AxSymInstance *in, AxWatch *w) {
  ax_cex_watch(in, in->query, w);
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
  AxModel *m = NULL;
  char reason[256] = "";
  ck_assert_int_eq(ax_solver_check(&o, in->tc, in->query, w->terms, w->n, &m, reason, sizeof reason),
                   AX_SMT_SAT);
  ck_assert_ptr_nonnull(m);
  return m;
}

static void replay_free(AxReplay *r) {
  free(r->text);
  free(r->json);
  free(r->failed);
}

/* The element pad_low(pad_low(Y, 0, l1), outer, l2) (lhs) or pad_low(Y, 0, l1 + l2) at
 * a, Y's points given by the replay's reads (others 0), at rank 1; *valid: the access is
 * in range. */
static long eval_pad(const cJSON *reads, long s, long l1, long l2, long a, bool lhs, long outer,
                     bool *valid) {
  *valid = a >= 0 && a < s + l1 + l2;
  long i = a - l1 - l2;
  if (lhs && a < l2) return outer;
  if (i < 0) return 0;
  const cJSON *rd;
  cJSON_ArrayForEach(rd, reads) {
    const cJSON *idx = cJSON_GetObjectItem(rd, "index");
    if ((long)cJSON_GetArrayItem(idx, 0)->valuedouble == i)
      return strtol(cJSON_GetObjectItem(rd, "value")->valuestring, NULL, 10);
  }
  return 0;
}

/* The wrong rule: z3's model replays; the JSON says what failed and its values are those
 * of an evaluation done here; the text names the same. */
START_TEST(wrong_rule_replays) {
  const AxBlock *r = pad("", "1");
  for (int k = 1; k <= 2; k++) {
    AxSymInstance in;
    ax_instance_build(&in, r, AX_INT, &k);
    AxWatch w;
    AxModel *m = model(&in, &w);
    /* watched: the maps, the access, and each read's index and value */
    ck_assert_int_ge(slot(&w, "s.0"), 0);
    ck_assert_int_ge(slot(&w, "@x.0"), 0);
    ck_assert_int_ge(w.nreads, 1);
    ck_assert_uint_eq(w.n, (size_t)(3 * k + k) + w.nreads * (size_t)(k + 1));
    AxReplay rep;
    ax_cex_replay(&in, &w, m, &rep);
    ck_assert(rep.confirmed);
    ck_assert_ptr_null(rep.unsupported);
    ck_assert_str_eq(rep.failed, "the values differ at the access");
    ck_assert_ptr_nonnull(strstr(rep.text, "counterexample (replayed): the values differ at the access"));
    cJSON *j = cJSON_Parse(rep.json);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "failed")->valuestring, "the values differ at the access");
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "ranks"), "x")->valueint, k);
    const cJSON *maps = cJSON_GetObjectItem(j, "maps"), *acc = cJSON_GetObjectItem(j, "access");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(maps, "l2")), k);
    /* at rank 1, our own evaluation of both sides from the JSON alone */
    if (k == 1) {
      long s = (long)cJSON_GetArrayItem(cJSON_GetObjectItem(maps, "s"), 0)->valuedouble;
      long l1 = (long)cJSON_GetArrayItem(cJSON_GetObjectItem(maps, "l1"), 0)->valuedouble;
      long l2 = (long)cJSON_GetArrayItem(cJSON_GetObjectItem(maps, "l2"), 0)->valuedouble;
      long a = (long)cJSON_GetArrayItem(cJSON_GetObjectItem(acc, "x"), 0)->valuedouble;
      ck_assert_int_gt(l2, 0);   /* with l2 = 0 the rule holds */
      bool vl, vr;
      long lv = eval_pad(cJSON_GetObjectItem(j, "reads"), s, l1, l2, a, true, 1, &vl);
      long rv = eval_pad(cJSON_GetObjectItem(j, "reads"), s, l1, l2, a, false, 1, &vr);
      ck_assert(vl && vr);
      ck_assert_int_ne(lv, rv);
      ck_assert_int_eq(lv, strtol(cJSON_GetObjectItem(j, "lhs")->valuestring, NULL, 10));
      ck_assert_int_eq(rv, strtol(cJSON_GetObjectItem(j, "rhs")->valuestring, NULL, 10));
    }
    cJSON_Delete(j);
    replay_free(&rep);
    ax_model_free(m);
    ax_instance_free(&in);
  }
}
END_TEST

/* The same model, altered so that the failure is gone or the instance is not one the
 * rule speaks of, is refused. */
START_TEST(altered_models_refused) {
  const AxBlock *r = pad("", "1");
  int k = 1;
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, &k);
  AxWatch w;
  AxModel *m = model(&in, &w);
  int l1 = slot(&w, "l1.0"), l2 = slot(&w, "l2.0"), s = slot(&w, "s.0"), a = slot(&w, "@x.0");
  ck_assert(l1 >= 0 && l2 >= 0 && s >= 0 && a >= 0);
  struct {
    int slot;
    long v;
    const char *why;
  } cases[] = {
      {l2, 0, "l2 = 0: the rule holds"},
      {l1, -1, "l1 < 0: not nonneg"},
      {l2, -1, "l2 < 0: not nonneg"},
      {a, -1, "the access before the first element"},
      {a, get(m, s) + get(m, l1) + get(m, l2), "the access past the last element"},
      {s, -1, "a negative size"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    AxModel *f = forge(&w, m, cases[i].slot, cases[i].v, -1);
    AxReplay rep;
    ax_cex_replay(&in, &w, f, &rep);
    ck_assert_msg(!rep.confirmed, "%s: confirmed", cases[i].why);
    ck_assert_ptr_null(rep.text);
    ck_assert_ptr_null(rep.json);
    replay_free(&rep);
    ax_model_free(f);
  }
  /* unaltered, the copy still replays: the forging is faithful */
  AxModel *f = forge(&w, m, -1, 0, -1);
  AxReplay rep;
  ax_cex_replay(&in, &w, f, &rep);
  ck_assert(rep.confirmed);
  replay_free(&rep);
  ax_model_free(f);
  /* a value missing: no replay at all, and it says why */
  f = forge(&w, m, -1, 0, l2);
  ax_cex_replay(&in, &w, f, &rep);
  ck_assert(!rep.confirmed);
  ck_assert_str_eq(rep.unsupported, "the model has no integer value for an index or a map");
  replay_free(&rep);
  ax_model_free(f);
  f = forge(&w, m, -1, 0, (int)w.n - 1);   /* the last read's value */
  ax_cex_replay(&in, &w, f, &rep);
  ck_assert(!rep.confirmed);
  ck_assert_str_eq(rep.unsupported, "the model has no exact value for a tensor element");
  replay_free(&rep);
  ax_model_free(f);
  ax_model_free(m);
  ax_instance_free(&in);
}
END_TEST

/* Random models — every slot, tensor values included, drawn from -3..3 — never replay
 * as a counterexample of the right rule; for the wrong rule some do, and each of those
 * has l2 > 0 (the only way it is wrong). */
START_TEST(forged_models_of_right_rule) {
  const AxBlock *right = pad("", "0"), *wrong = pad("", "1");
  uint64_t st = 12345;
  mpq_t q;
  mpq_init(q);
  for (int which = 0; which < 2; which++)
    for (int k = 1; k <= 2; k++) {
      AxSymInstance in;
      ax_instance_build(&in, which ? wrong : right, AX_INT, &k);
      AxWatch w;
      ax_cex_watch(&in, in.query, &w);
      int confirmed = 0;
      for (int n = 0; n < 400; n++) {
        AxModel *f = ax_model_new(w.terms, w.n);
        for (size_t i = 0; i < w.n; i++) {
          st = st * 6364136223846793005ULL + 1442695040888963407ULL;
          mpq_set_si(q, (long)((st >> 33) % 7) - 3, 1);
          ck_assert(ax_model_set_rational(f, i, q));
        }
        AxReplay rep;
        ax_cex_replay(&in, &w, f, &rep);
        ck_assert_ptr_null(rep.unsupported);
        if (rep.confirmed) {
          confirmed++;
          ck_assert_msg(which == 1, "rank %d: a forged model replays on a right rule:\n%s", k, rep.text);
          bool l2pos = false;
          for (int j = 0; j < k; j++) {
            char name[16];
            snprintf(name, sizeof name, "l2.%d", j);
            l2pos |= get(f, slot(&w, name)) > 0;
          }
          ck_assert(l2pos);
        }
        replay_free(&rep);
        ax_model_free(f);
      }
      if (which == 1) ck_assert_int_gt(confirmed, 0);
      ax_instance_free(&in);
    }
  mpq_clear(q);
}
END_TEST

/* The solver-free search: finds the wrong rule's counterexample from small values, and
 * none for the right one. */
START_TEST(search) {
  for (int which = 0; which < 2; which++) {
    int k = 1;
    AxSymInstance in;
    ax_instance_build(&in, pad("", which ? "1" : "0"), AX_INT, &k);
    AxWatch w;
    ax_cex_watch(&in, in.query, &w);
    AxReplay rep;
    bool found = ax_cex_search(&in, &w, 256, &rep);
    ck_assert_int_eq(found, which == 1);
    ck_assert_int_eq(rep.confirmed, which == 1);
    if (found) {
      ck_assert_str_eq(rep.failed, "the values differ at the access");
      ck_assert_ptr_nonnull(rep.json);
    }
    replay_free(&rep);
    ax_instance_free(&in);
  }
}
END_TEST

/* The search's inputs are nothing but fill (concrete.h): its counterexample lists the
 * tensor points the replay read, with their values, so that it can be checked by hand —
 * here ΣX against Σ(X + X) at rank 1: the listed values of X sum to the left-hand side,
 * and the right-hand side is twice that. The verifier asks the search before any query
 * for a reduction (verify.c), so a wrong sum is shown this way. */
START_TEST(search_lists_the_points_read) {
  const AxBlock *r = unit_rule("rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
                               "  tensor X : T[x: s, y: t]\n"
                               "  reduce(X, [x]) => reduce(X + X, [x])\n}\n");
  int rank[2] = {1, 1};
  AxSymInstance in;
  ax_instance_build(&in, r, AX_INT, rank);
  AxWatch w;
  ax_cex_watch(&in, in.query, &w);
  AxReplay rep;
  ck_assert(ax_cex_search(&in, &w, AX_CEX_SAMPLES, &rep));
  cJSON *j = cJSON_Parse(rep.json);
  ck_assert_ptr_nonnull(j);
  const cJSON *reads = cJSON_GetObjectItem(j, "reads"), *e;
  long sum = 0, s = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "maps"), "s"), 0)->valueint;
  ck_assert_int_eq(cJSON_GetArraySize(reads), s);   /* every summand of the left side, once */
  cJSON_ArrayForEach(e, reads) {
    ck_assert_str_eq(cJSON_GetObjectItem(e, "tensor")->valuestring, "X");
    sum += atol(cJSON_GetObjectItem(e, "value")->valuestring);
  }
  ck_assert_int_ne(sum, 0);
  ck_assert_int_eq(atol(cJSON_GetObjectItem(j, "lhs")->valuestring), sum);
  ck_assert_int_eq(atol(cJSON_GetObjectItem(j, "rhs")->valuestring), 2 * sum);
  ck_assert_ptr_nonnull(strstr(rep.text, "  X[0, "));
  cJSON_Delete(j);
  replay_free(&rep);
  ax_instance_free(&in);
}
END_TEST

/* Two tensors read at one index get different fill (concrete.h: the tensor's number is in
 * it): ΣX + ΣY against Σ(X + X) — a rule that confuses Y with X, as reduce_02's mutant
 * does — is refuted by the search, with a Y point that differs from X's at its index;
 * Σ(X + Y), the right rule, is not. Without the tensor in the fill, X and Y agreed at every
 * index and the wrong rule was left to the solvers (and to a model with 21 241 summands). */
START_TEST(search_tells_tensors_apart) {
  for (int wrong = 0; wrong < 2; wrong++) {
    char text[512];
    snprintf(text, sizeof text,
             "rule r for T in num {\n  rclass x, y\n  map s over x\n  map t over y\n"
             "  tensor X, Y : T[x: s, y: t]\n"
             "  reduce(X, [x]) + reduce(Y, [x]) => reduce(X + %s, [x])\n}\n",
             wrong ? "X" : "Y");
    int rank[2] = {1, 1};
    AxSymInstance in;
    ax_instance_build(&in, unit_rule(text), AX_INT, rank);
    AxWatch w;
    ax_cex_watch(&in, in.query, &w);
    AxReplay rep;
    ck_assert_int_eq(ax_cex_search(&in, &w, AX_CEX_SAMPLES, &rep), wrong);
    if (wrong) {
      cJSON *j = cJSON_Parse(rep.json);
      ck_assert_ptr_nonnull(j);
      const cJSON *e, *f;
      bool differs = false;
      cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "reads")) {
        if (strcmp(cJSON_GetObjectItem(e, "tensor")->valuestring, "Y") != 0) continue;
        char *yi = cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "index"));
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "reads")) {
          char *xi = cJSON_PrintUnformatted(cJSON_GetObjectItem(f, "index"));
          if (strcmp(cJSON_GetObjectItem(f, "tensor")->valuestring, "X") == 0 && strcmp(xi, yi) == 0 &&
              strcmp(cJSON_GetObjectItem(f, "value")->valuestring,
                     cJSON_GetObjectItem(e, "value")->valuestring) != 0)
            differs = true;
          free(xi);
        }
        free(yi);
      }
      ck_assert_msg(differs, "no Y point differs from X's at its index: %s", rep.text);
      cJSON_Delete(j);
    }
    replay_free(&rep);
    ax_instance_free(&in);
  }
}
END_TEST

/* A rule that assumes tensor values: the replay checks the precondition at every point of
 * its shape, on the model's values and on its fill where the model leaves points open. A
 * model whose open points the fill makes break it is no counterexample as it stands
 * (partial_pre, the reason said); completed at its sizes with the precondition at every
 * point (ax_verify_complete, one more query), it is one, and shows Y == 7 wherever it lists
 * Y. */
START_TEST(open_points_with_tensor_preconditions) {
  int k = 1;
  AxSymInstance in;
  ax_instance_build(&in, pad("  require forall x: s >= 2\n  require Y == 7\n", "1"), AX_INT, &k);
  AxWatch w;
  AxModel *m = model(&in, &w);
  /* the maps and access alone: every tensor point is open, and no fill is 7 everywhere */
  size_t n = 4;   /* s, l1, l2 and the access, at rank 1 */
  AxWatch sw = {.terms = w.terms, .n = n, .reads = NULL, .nreads = 0};
  AxReplay rep;
  ax_cex_replay(&in, &sw, m, &rep);
  ck_assert(!rep.confirmed);
  ck_assert(rep.partial_pre);
  ck_assert_str_eq(rep.unsupported, "the solver's model breaks a tensor precondition at a point the "
                                    "query did not look at");
  AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = 60000};
  int queries = 0;
  ck_assert(ax_verify_complete(&in, in.query, &sw, m, &o, &queries, &rep));
  ck_assert_int_eq(queries, 1);
  cJSON *j = cJSON_Parse(rep.json);
  ck_assert_ptr_nonnull(j);
  const cJSON *e;
  int ys = 0;
  int size = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "maps"), "s"), 0)->valueint;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "reads")) {
    if (strcmp(cJSON_GetObjectItem(e, "tensor")->valuestring, "Y") != 0) continue;
    int at = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "index"), 0)->valueint;
    if (at < 0 || at >= size) continue;   /* a point outside Y (a branch not taken): free */
    ck_assert_str_eq(cJSON_GetObjectItem(e, "value")->valuestring, "7");
    ys++;
  }
  ck_assert_int_ge(ys, 2);   /* s >= 2: the completion fixed every point of Y */
  cJSON_Delete(j);
  replay_free(&rep);
  ax_model_free(m);
  ax_instance_free(&in);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cex");
  TCase *t = tcase_create("cex");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, wrong_rule_replays);
  tcase_add_test(t, altered_models_refused);
  tcase_add_test(t, forged_models_of_right_rule);
  tcase_add_test(t, search);
  tcase_add_test(t, search_lists_the_points_read);
  tcase_add_test(t, search_tells_tensors_apart);
  tcase_add_test(t, open_points_with_tensor_preconditions);
  suite_add_tcase(s, t);
  return unit_run(s);
}
