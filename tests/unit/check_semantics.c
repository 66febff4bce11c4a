/* check_semantics.c — operator denotations on the concrete domain, against XLA examples
 * computed by hand (XLA-HLO operation semantics). */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "semantics/concrete.h"
#include "semantics/denote.h"
#include "semantics/float.h"
#include "semantics/fpsym.h"
#include "semantics/symbolic.h"

static AxArena *A;
static AxConcrete *C;
static AxDomain *D;
static AxInst in;
static int ranks[8];
static AxV *maps[64];
static const AxRuleSyms *S;

/* Parses and checks `rule t for T in int { <decls> <expr> => <expr> }` and prepares a
 * rank-`rank` instance whose element type is `t`. */
static void setup_rule(const char *body, int rank, AxType t) {
  A = ax_arena_new();
  C = ax_concrete_new();
  D = ax_concrete_domain(C);
  char *text = ax_arena_printf(A, "rule t for T in %s {\n%s\n}\n",
                               t == AX_BOOL ? "bool" : t == AX_INT ? "int" : "real", body);
  AxDiag d;
  ax_diag_init(&d, stderr);
  d.out = NULL;   /* warnings (T unused by iota) are not this test's business */
  AxSource *src = ax_source_from_text(A, "t.axl", text, strlen(text));
  AxFile *f = ax_parse(A, &d, src);
  ck_assert_int_eq(d.errors, 0);
  ck_assert(ax_check_file(A, &d, f));
  S = f->blocks[0]->syms;
  for (int i = 0; i < 8; i++) ranks[i] = rank;
  memset(maps, 0, sizeof maps);
  in = (AxInst){.a = A, .syms = S, .rank = ranks, .T = t, .d = D, .maps = maps};
}

static void teardown_rule(void) {
  ax_concrete_free(C);
  ax_arena_free(A);
}

static int sym_of(const char *name) {
  for (size_t i = 0; i < S->nsyms; i++)
    if (strcmp(S->syms[i].name, name) == 0) return (int)i;
  ck_abort_msg("no symbol %s", name);
  return -1;
}

static AxV num(long v) { return D->int_small(D, v); }

/* map NAME := values per named axis */
static void set_map(const char *name, int n, ...) {
  va_list ap;
  va_start(ap, n);
  AxV *v = ax_arena_alloc(A, (size_t)n * sizeof(AxV));
  for (int i = 0; i < n; i++) v[i] = num(va_arg(ap, long));
  va_end(ap);
  maps[sym_of(name)] = v;
}

static AxV elem(AxType t, long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", v < 0 ? -v : v);
  AxV e = D->elem_lit(D, t, buf, 0);
  return v < 0 ? D->elem_unary(D, AX_OP_NEG, t, e) : e;
}

/* rank-1 tensor NAME := values */
static void set_vec(const char *name, AxType t, int n, const long *vals) {
  for (int i = 0; i < n; i++) {
    AxV idx[1] = {num(i)};
    ax_concrete_set(C, sym_of(name), idx, 1, elem(t, vals[i]));
  }
}

static long size1(const AxShape *s, int axis) {
  mpz_t z;
  mpz_init(z);
  ax_concrete_get_int(s->size[axis][0], z);
  long r = mpz_get_si(z);
  mpz_clear(z);
  return r;
}

static char *at1(const AxExpr *e, AxType t, long i) {
  AxIndex idx = {0};
  AxV v[1] = {num(i)};
  idx.at[0] = ax_arena_alloc(A, sizeof(AxV));
  idx.at[0][0] = v[0];
  return ax_concrete_text(ax_den_at(&in, e, t, &idx));
}

/* Checks the rank-1 value of the rule's LHS against `want` (texts), its size and validity. */
static void expect_vec(AxType t, int n, const char *const *want) {
  const AxShape *s = ax_den_shape(&in, S->lhs);
  ck_assert_msg(ax_concrete_get_bool(s->valid), "expected a valid expression");
  ck_assert_int_eq(size1(s, 0), n);
  for (int i = 0; i < n; i++) {
    char *got = at1(S->lhs, t, i);
    ck_assert_msg(strcmp(got, want[i]) == 0, "element %d: got %s, want %s", i, got, want[i]);
    free(got);
  }
}

static void expect_invalid(void) {
  const AxShape *s = ax_den_shape(&in, S->lhs);
  ck_assert(!ax_concrete_get_bool(s->valid));
}

#define VEC "  rclass x\n  map n over x\n  tensor A : T[x: n]\n"

START_TEST(pad_interior_and_edges) {
  /* XLA: pad([1,2,3], 0, low=1, interior=1, high=2) = [0,1,0,2,0,3,0,0] */
  setup_rule(VEC "  map l, i, h over x\n  pad(A, 0, {x: l}, {x: i}, {x: h}) => A", 1, AX_INT);
  set_map("n", 1, 3L);
  set_map("l", 1, 1L);
  set_map("i", 1, 1L);
  set_map("h", 1, 2L);
  set_vec("A", AX_INT, 3, (long[]){1, 2, 3});
  expect_vec(AX_INT, 8, (const char *[]){"0", "1", "0", "2", "0", "3", "0", "0"});
  teardown_rule();
}
END_TEST

START_TEST(pad_negative_edges) {
  /* pad([1,2,3,4], 0, low=-1, interior=1, high=-2): dilated [1,0,2,0,3,0,4], drop 1 low
   * and 2 high = [0,2,0,3]; size -1 - 2 + 4 + 3 = 4 */
  setup_rule(VEC "  map l, i, h over x\n  pad(A, 0, {x: l}, {x: i}, {x: h}) => A", 1, AX_INT);
  set_map("n", 1, 4L);
  set_map("l", 1, -1L);
  set_map("i", 1, 1L);
  set_map("h", 1, -2L);
  set_vec("A", AX_INT, 4, (long[]){1, 2, 3, 4});
  expect_vec(AX_INT, 4, (const char *[]){"0", "2", "0", "3"});
  /* cropping more than there is makes the pad invalid: size -3 - 3 + 4 + 3 < 0 */
  set_map("l", 1, -4L);
  set_map("h", 1, -4L);
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();
}
END_TEST

START_TEST(pad_low_and_value) {
  setup_rule(VEC "  map l over x\n  scalar v : T\n  pad_low(A, v, {x: l}) => A", 1, AX_REAL);
  set_map("n", 1, 2L);
  set_map("l", 1, 2L);
  set_vec("A", AX_REAL, 2, (long[]){5, 6});
  ax_concrete_set(C, sym_of("v"), NULL, 0, elem(AX_REAL, 7));
  expect_vec(AX_REAL, 4, (const char *[]){"7", "7", "5", "6"});
  teardown_rule();
}
END_TEST

START_TEST(slice_with_stride) {
  /* slice([0..9], start 1, end 8, stride 3) = [1, 4, 7]: size (8 - 1 + 2) div 3 = 3 */
  setup_rule(VEC "  map s, e, p over x\n  slice(A, {x: s}, {x: e}, {x: p}) => A", 1, AX_INT);
  set_map("n", 1, 10L);
  set_map("s", 1, 1L);
  set_map("e", 1, 8L);
  set_map("p", 1, 3L);
  set_vec("A", AX_INT, 10, (long[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_vec(AX_INT, 3, (const char *[]){"1", "4", "7"});
  set_map("e", 1, 11L);   /* end beyond the size */
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();
}
END_TEST

START_TEST(slice_defaults) {
  setup_rule(VEC "  slice(A, stride={x: 2}) => A", 1, AX_INT);
  set_map("n", 1, 5L);
  set_vec("A", AX_INT, 5, (long[]){10, 11, 12, 13, 14});
  expect_vec(AX_INT, 3, (const char *[]){"10", "12", "14"});
  teardown_rule();
}
END_TEST

START_TEST(dynamic_slice_and_update) {
  setup_rule(VEC "  map s, l over x\n  dynamic_slice(A, {x: s}, {x: l}) => A", 1, AX_INT);
  set_map("n", 1, 5L);
  set_map("s", 1, 1L);
  set_map("l", 1, 3L);
  set_vec("A", AX_INT, 5, (long[]){1, 2, 3, 4, 5});
  expect_vec(AX_INT, 3, (const char *[]){"2", "3", "4"});
  set_map("s", 1, 3L);   /* 3 + 3 > 5: out of bounds */
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();

  /* dynamic_update_slice([1,2,3,4,5], [9,8], 2) = [1,2,9,8,5] */
  setup_rule(VEC "  map m, s over x\n  tensor U : T[x: m]\n  dynamic_update_slice(A, U, {x: s}) => A",
             1, AX_INT);
  set_map("n", 1, 5L);
  set_map("m", 1, 2L);
  set_map("s", 1, 2L);
  set_vec("A", AX_INT, 5, (long[]){1, 2, 3, 4, 5});
  set_vec("U", AX_INT, 2, (long[]){9, 8});
  expect_vec(AX_INT, 5, (const char *[]){"1", "2", "9", "8", "5"});
  set_map("s", 1, 4L);
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();
}
END_TEST

START_TEST(concat_three) {
  setup_rule(VEC "  map m, k over x\n  tensor B : T[x: m]\n  tensor E : T[x: k]\n"
                 "  concat(A, B, E, axis=x) => A", 1, AX_INT);
  set_map("n", 1, 2L);
  set_map("m", 1, 1L);
  set_map("k", 1, 2L);
  set_vec("A", AX_INT, 2, (long[]){1, 2});
  set_vec("B", AX_INT, 1, (long[]){3});
  set_vec("E", AX_INT, 2, (long[]){4, 5});
  expect_vec(AX_INT, 5, (const char *[]){"1", "2", "3", "4", "5"});
  teardown_rule();
}
END_TEST

START_TEST(reverse_iota_broadcast_select_clamp) {
  setup_rule(VEC "  reverse(A, [x]) => A", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){1, 2, 3});
  expect_vec(AX_INT, 3, (const char *[]){"3", "2", "1"});
  teardown_rule();

  setup_rule("  rclass x\n  map n over x\n  iota({x: n}, x) => iota({x: n}, x)", 1, AX_INT);
  set_map("n", 1, 4L);
  expect_vec(AX_INT, 4, (const char *[]){"0", "1", "2", "3"});
  teardown_rule();

  setup_rule(VEC "  clamp(2, A, 4) => A", 1, AX_INT);
  set_map("n", 1, 5L);
  set_vec("A", AX_INT, 5, (long[]){1, 2, 3, 4, 5});
  expect_vec(AX_INT, 5, (const char *[]){"2", "2", "3", "4", "4"});
  teardown_rule();

  setup_rule(VEC "  tensor B : T[x: n]\n  select(A > B, A, B) => A", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){1, 5, 3});
  set_vec("B", AX_INT, 3, (long[]){4, 2, 3});
  expect_vec(AX_INT, 3, (const char *[]){"4", "5", "3"});
  teardown_rule();
}
END_TEST

START_TEST(relabel_is_transpose) {
  /* rank 1 per axis: A is 2x3, relabel swaps the axes: R[j][i] = A[i][j] */
  setup_rule("  rclass c\n  axes x1, x2 : c\n  map m, k over c\n  tensor A : T[x1: m, x2: k]\n"
             "  relabel(A, {x1: x2, x2: x1}) => A", 1, AX_INT);
  set_map("m", 1, 2L);
  set_map("k", 1, 3L);
  int a_sym = sym_of("A");
  for (long i = 0; i < 2; i++)
    for (long j = 0; j < 3; j++) {
      AxV idx[2] = {num(i), num(j)};
      ax_concrete_set(C, a_sym, idx, 2, elem(AX_INT, 10 * i + j));
    }
  const AxShape *s = ax_den_shape(&in, S->lhs);
  /* axis indices: c = 0, x1 = 1, x2 = 2 */
  ck_assert_int_eq(size1(s, 1), 3);
  ck_assert_int_eq(size1(s, 2), 2);
  for (long i = 0; i < 2; i++)
    for (long j = 0; j < 3; j++) {
      AxIndex idx = {0};
      idx.at[1] = ax_arena_alloc(A, sizeof(AxV));
      idx.at[2] = ax_arena_alloc(A, sizeof(AxV));
      idx.at[1][0] = num(j);   /* R's x1 runs over A's x2 */
      idx.at[2][0] = num(i);
      char *got = ax_concrete_text(ax_den_at(&in, S->lhs, AX_INT, &idx));
      char want[16];
      snprintf(want, sizeof want, "%ld", 10 * i + j);
      ck_assert_str_eq(got, want);
      free(got);
    }
  teardown_rule();
}
END_TEST

START_TEST(rank_two_pad_is_per_axis) {
  /* rank 2 of one class: pad_low by {1, 0} of a 1x2 tensor gives [[0,0],[a,b]] */
  setup_rule(VEC "  map l over x\n  pad_low(A, 0, {x: l}) => A", 2, AX_INT);
  set_map("n", 2, 1L, 2L);
  set_map("l", 2, 1L, 0L);
  int a_sym = sym_of("A");
  for (long j = 0; j < 2; j++) {
    AxV idx[2] = {num(0), num(j)};
    ax_concrete_set(C, a_sym, idx, 2, elem(AX_INT, 7 + j));
  }
  const AxShape *s = ax_den_shape(&in, S->lhs);
  const char *want[2][2] = {{"0", "0"}, {"7", "8"}};
  for (long i = 0; i < 2; i++)
    for (long j = 0; j < 2; j++) {
      AxIndex idx = {0};
      idx.at[0] = ax_arena_alloc(A, 2 * sizeof(AxV));
      idx.at[0][0] = num(i);
      idx.at[0][1] = num(j);
      char *got = ax_concrete_text(ax_den_at(&in, S->lhs, AX_INT, &idx));
      ck_assert_str_eq(got, want[i][j]);
      free(got);
    }
  mpz_t z;
  mpz_init(z);
  ax_concrete_get_int(s->size[0][0], z);
  ck_assert_int_eq(mpz_get_si(z), 2);
  ax_concrete_get_int(s->size[0][1], z);
  ck_assert_int_eq(mpz_get_si(z), 2);
  mpz_clear(z);
  teardown_rule();
}
END_TEST

START_TEST(division_by_zero_and_infinities) {
  /* int: x / 0 = -1, x % 0 = x (XLA); truncation toward zero */
  setup_rule(VEC "  tensor B : T[x: n]\n  A / B => A", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){7, -7, 5});
  set_vec("B", AX_INT, 3, (long[]){0, 2, -2});
  expect_vec(AX_INT, 3, (const char *[]){"-1", "-3", "-2"});
  teardown_rule();

  setup_rule(VEC "  tensor B : T[x: n]\n  A % B => A", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){7, -7, 5});
  set_vec("B", AX_INT, 3, (long[]){0, 2, -2});
  expect_vec(AX_INT, 3, (const char *[]){"7", "-1", "1"});
  teardown_rule();

  /* real: x / 0 = ±inf, 0 / 0 = NaN */
  setup_rule(VEC "  tensor B : T[x: n]\n  A / B => A", 1, AX_REAL);
  set_map("n", 1, 4L);
  set_vec("A", AX_REAL, 4, (long[]){3, -3, 0, 1});
  set_vec("B", AX_REAL, 4, (long[]){0, 0, 0, 4});
  expect_vec(AX_REAL, 4, (const char *[]){"+inf", "-inf", "NaN", "1/4"});
  teardown_rule();

  /* max(A, -inf) = A; min(A, inf) = A; inf - inf = NaN; -(+inf) = -inf */
  setup_rule(VEC "  max(A, -inf) + min(A, inf) => A", 1, AX_INT);
  set_map("n", 1, 2L);
  set_vec("A", AX_INT, 2, (long[]){-4, 6});
  expect_vec(AX_INT, 2, (const char *[]){"-8", "12"});
  teardown_rule();

  setup_rule(VEC "  A * 0 + (inf - inf) => A", 1, AX_REAL);
  set_map("n", 1, 1L);
  set_vec("A", AX_REAL, 1, (long[]){2});
  expect_vec(AX_REAL, 1, (const char *[]){"NaN"});
  teardown_rule();
}
END_TEST

START_TEST(sqrt_and_rms_norm) {
  /* sqrt: exact where the root is rational; NaN below 0; +inf at +inf */
  setup_rule(VEC "  sqrt(A) => A", 1, AX_REAL);
  set_map("n", 1, 3L);
  set_vec("A", AX_REAL, 3, (long[]){9, 0, -1});
  expect_vec(AX_REAL, 3, (const char *[]){"3", "0", "NaN"});
  ck_assert_ptr_null(D->unsupported);
  teardown_rule();

  setup_rule(VEC "  sqrt(A + inf) => A", 1, AX_REAL);
  set_map("n", 1, 1L);
  set_vec("A", AX_REAL, 1, (long[]){5});
  expect_vec(AX_REAL, 1, (const char *[]){"+inf"});
  teardown_rule();

  /* an irrational root has no exact value: the domain says so (replay -> UNKNOWN) */
  setup_rule(VEC "  sqrt(A) => A", 1, AX_REAL);
  set_map("n", 1, 1L);
  set_vec("A", AX_REAL, 1, (long[]){2});
  free(at1(S->lhs, AX_REAL, 0));
  ck_assert_ptr_nonnull(D->unsupported);
  teardown_rule();

  /* rms_norm(A, x) = A / sqrt((1 + 49) / 2) = A / 5 */
  setup_rule(VEC "  rms_norm(A, axis=x) => A", 1, AX_REAL);
  set_map("n", 1, 2L);
  set_vec("A", AX_REAL, 2, (long[]){1, 7});
  expect_vec(AX_REAL, 2, (const char *[]){"1/5", "7/5"});
  teardown_rule();
}
END_TEST

START_TEST(log_pow_rsqrt_exact) {
  /* pow as C99's on exact numbers: pow(0, 0) = 1, a negative base with an integer exponent,
   * 0^-1 = +inf */
  setup_rule(VEC "  tensor B : T[x: n]\n  pow(A, B) => A", 1, AX_REAL);
  set_map("n", 1, 5L);
  set_vec("A", AX_REAL, 5, (long[]){0, -2, 2, 0, -1});
  set_vec("B", AX_REAL, 5, (long[]){0, 3, -2, -1, 5});
  expect_vec(AX_REAL, 5, (const char *[]){"1", "-8", "1/4", "+inf", "-1"});
  teardown_rule();

  /* XLA's integer pow: 0^0 = 1, (-2)^3 = -8, 1^-5 = 1, and 0 for every other negative
   * exponent — (-1)^-1 = 0 and 0^-1 = 0, where the real power gives -1 and +inf */
  setup_rule(VEC "  tensor B : T[x: n]\n  pow(A, B) => A", 1, AX_INT);
  set_map("n", 1, 7L);
  set_vec("A", AX_INT, 7, (long[]){0, -2, 1, -1, 0, 2, -1});
  set_vec("B", AX_INT, 7, (long[]){0, 3, -5, -1, -1, -2, 4});
  expect_vec(AX_INT, 7, (const char *[]){"1", "-8", "1", "0", "0", "0", "1"});
  ck_assert_ptr_null(D->unsupported);
  teardown_rule();

  /* a rational root where there is one; NaN for a negative base and a non-integer exponent */
  setup_rule(VEC "  pow(A, 0.5) => A", 1, AX_REAL);
  set_map("n", 1, 3L);
  set_vec("A", AX_REAL, 3, (long[]){4, -4, 0});
  expect_vec(AX_REAL, 3, (const char *[]){"2", "NaN", "0"});
  ck_assert_ptr_null(D->unsupported);
  teardown_rule();

  setup_rule(VEC "  rsqrt(A) => A", 1, AX_REAL);
  set_map("n", 1, 3L);
  set_vec("A", AX_REAL, 3, (long[]){4, 0, -1});
  expect_vec(AX_REAL, 3, (const char *[]){"1/2", "+inf", "NaN"});
  teardown_rule();

  setup_rule(VEC "  log(A) => A", 1, AX_REAL);
  set_map("n", 1, 4L);
  set_vec("A", AX_REAL, 4, (long[]){1, 0, -3, 2});
  static const char *const want[] = {"0", "-inf", "NaN"};
  for (int i = 0; i < 3; i++) {
    char *got = at1(S->lhs, AX_REAL, i);
    ck_assert_str_eq(got, want[i]);
    free(got);
  }
  ck_assert_ptr_null(D->unsupported);
  free(at1(S->lhs, AX_REAL, 3));   /* log 2 has no exact value: the replay is refused */
  ck_assert_ptr_nonnull(D->unsupported);
  teardown_rule();
}
END_TEST

/* rank-1 tensor NAME := values given as text: "+inf", "-inf", "NaN" or a rational "p/q" —
 * the concrete domain holds any extended value, though a rule's inputs are finite: this
 * is the domain's table, not a rule's instance. */
static void set_ext(const char *name, int n, const char *const *vals) {
  for (int i = 0; i < n; i++) {
    AxV idx[1] = {num(i)};
    mpq_t q;
    mpq_init(q);
    AxNumClass c = strcmp(vals[i], "+inf") == 0   ? AX_PINF
                   : strcmp(vals[i], "-inf") == 0 ? AX_NINF
                   : strcmp(vals[i], "NaN") == 0  ? AX_NAN
                                                  : AX_FIN;
    if (c == AX_FIN) {
      ck_assert_int_eq(mpq_set_str(q, vals[i], 10), 0);
      mpq_canonicalize(q);
    }
    ax_concrete_set(C, sym_of(name), idx, 1, ax_concrete_elem(C, AX_REAL, c, q, false));
    mpq_clear(q);
  }
}

/* The elementary functions at their special values in the reals (docs/semantics.md,
 * "Special values": XLA's values, with no signed zero): each row is the rule `F => A` over
 * inputs chosen so that every value is exact (no irrational exp), so the domain answers
 * without leaving its fragment. tanh is ±1 at ±inf as XLA's is, not the inf / inf = NaN
 * its exp form would give. */
START_TEST(elementary_functions_at_special_values) {
  static const char *const x[] = {"-inf", "0", "+inf", "NaN", "1", "-1"};
  static const struct {
    const char *f;
    int n;   /* how many of x it is exact at */
    const char *want[6];
  } rows[] = {
      {"tanh(A)", 4, {"-1", "0", "1", "NaN"}},
      {"logistic(A)", 4, {"0", "1/2", "1", "NaN"}},
      {"silu(A)", 4, {"NaN", "0", "+inf", "NaN"}},
      {"A * logistic(A)", 4, {"NaN", "0", "+inf", "NaN"}},
      {"exp(A)", 4, {"0", "1", "+inf", "NaN"}},
      {"log(A)", 6, {"NaN", "-inf", "+inf", "NaN", "0", "NaN"}},
      {"sqrt(A)", 6, {"NaN", "0", "+inf", "NaN", "1", "NaN"}},
      {"rsqrt(A)", 6, {"NaN", "+inf", "0", "NaN", "1", "NaN"}},
      {"max(A, 0)", 6, {"0", "0", "+inf", "NaN", "1", "0"}},
      {"min(0, A)", 6, {"-inf", "0", "0", "NaN", "0", "-1"}},
      {"to_f16(A)", 6, {"-inf", "0", "+inf", "NaN", "1", "-1"}},
      {"to_bf16(A)", 6, {"-inf", "0", "+inf", "NaN", "1", "-1"}},
      {"to_f32(A)", 6, {"-inf", "0", "+inf", "NaN", "1", "-1"}},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    char body[256];
    snprintf(body, sizeof body, VEC "  %s => A", rows[r].f);
    setup_rule(body, 1, AX_REAL);
    set_map("n", 1, 6L);
    set_ext("A", 6, x);
    for (int i = 0; i < rows[r].n; i++) {
      char *got = at1(S->lhs, AX_REAL, i);
      ck_assert_msg(strcmp(got, rows[r].want[i]) == 0, "%s at %s: got %s, want %s", rows[r].f, x[i], got,
                    rows[r].want[i]);
      free(got);
    }
    ck_assert_msg(!D->unsupported, "%s: %s", rows[r].f, D->unsupported);
    teardown_rule();
  }

  /* pow (C's, F.10.4.4) on pairs: x^±0 and 1^y are 1 even for NaN; ±inf exponents by |x|
   * against 1; the pole at 0; ±inf bases by the sign and parity of y; a negative base with
   * a non-integer exponent is NaN */
  static const char *const px[] = {"NaN", "1", "-1", "-1", "0", "0", "2", "1/2",
                                   "+inf", "+inf", "-inf", "-inf", "-inf", "-2", "NaN", "0"};
  static const char *const py[] = {"0", "NaN", "+inf", "-inf", "-inf", "+inf", "-inf", "-inf",
                                   "-1", "1/2", "3", "2", "-1", "1/2", "1", "-1"};
  static const char *const pw[] = {"1", "1", "1", "1", "+inf", "0", "0", "+inf",
                                   "0", "+inf", "-inf", "+inf", "0", "NaN", "NaN", "+inf"};
  setup_rule(VEC "  tensor B : T[x: n]\n  pow(A, B) => A", 1, AX_REAL);
  set_map("n", 1, 16L);
  set_ext("A", 16, px);
  set_ext("B", 16, py);
  for (int i = 0; i < 16; i++) {
    char *got = at1(S->lhs, AX_REAL, i);
    ck_assert_msg(strcmp(got, pw[i]) == 0, "pow(%s, %s): got %s, want %s", px[i], py[i], got, pw[i]);
    free(got);
  }
  ck_assert_ptr_null(D->unsupported);
  teardown_rule();

  /* conversions of finite values at the edges: f16's overflow threshold 65520 (2^16 -
   * 2^4) becomes +inf, 65519 rounds to 65504; a half of f16's least subnormal 2^-24 is a
   * tie to 0; 3 · 2^-25 rounds up to 2^-23 */
  static const char *const cx[] = {"65520", "65519", "-65520", "1/33554432", "3/33554432"};
  static const char *const cw[] = {"+inf", "65504", "-inf", "0", "1/8388608"};
  setup_rule(VEC "  to_f16(A) => A", 1, AX_REAL);
  set_map("n", 1, 5L);
  set_ext("A", 5, cx);
  for (int i = 0; i < 5; i++) {
    char *got = at1(S->lhs, AX_REAL, i);
    ck_assert_msg(strcmp(got, cw[i]) == 0, "to_f16(%s): got %s, want %s", cx[i], got, cw[i]);
    free(got);
  }
  teardown_rule();
}
END_TEST

START_TEST(reshape_split_and_merge) {
  /* split a of size 6 by 2: element (hi, lo) = A[hi * 2 + lo]; the merge back reads it */
  setup_rule("  rclass x\n  axes xh, xl : x\n  map n over x\n  tensor A : T[x: n]\n"
             "  reshape_merge(reshape_split(A, {x: 2}, [xh, xl]), [xl, xh], x) => A", 1, AX_INT);
  set_map("n", 1, 6L);
  set_vec("A", AX_INT, 6, (long[]){10, 11, 12, 13, 14, 15});
  /* merged minor-major: index i = lo * 3 + hi, so i = 1 is (hi 1, lo 0) = A[2] */
  expect_vec(AX_INT, 6, (const char *[]){"10", "12", "14", "11", "13", "15"});
  teardown_rule();

  setup_rule("  rclass x\n  axes xh, xl : x\n  map n over x\n  tensor A : T[x: n]\n"
             "  reshape_merge(reshape_split(A, {x: 4}, [xh, xl]), [xh, xl], x) => A", 1, AX_INT);
  set_map("n", 1, 6L);   /* 4 does not divide 6 */
  expect_invalid();
  teardown_rule();
}
END_TEST

#define GATHER "  rclass z, x\n  map m over z\n  map n over x\n  tensor A : T[x: n]\n  tensor I : int[z: m]\n"

START_TEST(gather_clamps_like_xla) {
  /* gather([10, 20, 30], I, axis=x) = A[clamp(I, 0, 2)]: out-of-range indices clamp */
  for (AxType t = AX_INT; t <= AX_REAL; t++) {
    setup_rule(GATHER "  gather(A, I, axis=x) => gather(A, I, axis=x)", 1, t);
    set_map("m", 1, 6L);
    set_map("n", 1, 3L);
    set_vec("A", t, 3, (long[]){10, 20, 30});
    set_vec("I", AX_INT, 6, (long[]){-5, 0, 1, 2, 3, 99});
    expect_vec(t, 6, (const char *[]){"10", "10", "20", "30", "30", "30"});
    teardown_rule();
  }
  /* axle's extended ints: +inf clamps to n - 1, -inf to 0, NaN (inf - inf) reads 0 */
  setup_rule(GATHER "  let G = gather(A, concat(constant(inf, {z: 1}), constant(-inf, {z: 1}),\n"
                    "    constant(inf, {z: 1}) - constant(inf, {z: 1}), axis=z), axis=x)\n  G => G", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){10, 20, 30});
  expect_vec(AX_INT, 3, (const char *[]){"30", "10", "10"});
  teardown_rule();
  /* a scalar index (rank 0) and a gather of a gather: A[J[I[z]]] */
  setup_rule(GATHER "  tensor J : int[x: n]\n  let G = gather(A, gather(J, I, axis=x), axis=x)\n  G => G", 1, AX_INT);
  set_map("m", 1, 3L);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){10, 20, 30});
  set_vec("J", AX_INT, 3, (long[]){2, -1, 7});
  set_vec("I", AX_INT, 3, (long[]){1, 5, 0});
  expect_vec(AX_INT, 3, (const char *[]){"10", "30", "30"});
  teardown_rule();
  /* an operand empty along the gathered axis: no row to clamp into, invalid */
  setup_rule(GATHER "  gather(A, I, axis=x) => gather(A, I, axis=x)", 1, AX_INT);
  set_map("m", 1, 2L);
  set_map("n", 1, 0L);
  expect_invalid();
  teardown_rule();
}
END_TEST

#define SCATTER "  rclass x, z\n  map n over x\n  map m over z\n  tensor A : T[x: n]\n  tensor I : int[z: m]\n"

START_TEST(scatter_adds_like_xla) {
  /* scatter([10, 20, 30], I, U, axis=x): each U[z] added at row I[z]; repeated indices add
   * up, an index that is no row (-1, 3) adds nothing */
  for (AxType t = AX_INT; t <= AX_REAL; t++) {
    setup_rule(SCATTER "  tensor U : T[z: m]\n  scatter(A, I, U, axis=x) => A", 1, t);
    set_map("m", 1, 5L);
    set_map("n", 1, 3L);
    set_vec("A", t, 3, (long[]){10, 20, 30});
    set_vec("I", AX_INT, 5, (long[]){2, 0, 2, -1, 3});
    set_vec("U", t, 5, (long[]){1, 2, 4, 8, 16});
    expect_vec(t, 3, (const char *[]){"12", "20", "35"});
    teardown_rule();
  }
  /* axle's extended ints: +inf, -inf and NaN (inf - inf) are no row */
  setup_rule(SCATTER "  let S = scatter(A, concat(constant(inf, {z: 1}), constant(-inf, {z: 1}),\n"
                     "    constant(inf, {z: 1}) - constant(inf, {z: 1}), axis=z), constant(1, {z: 3}), axis=x)\n"
                     "  S => S", 1, AX_INT);
  set_map("n", 1, 3L);
  set_vec("A", AX_INT, 3, (long[]){10, 20, 30});
  expect_vec(AX_INT, 3, (const char *[]){"10", "20", "30"});
  teardown_rule();
  /* updates whose size differs from the indices' along z: invalid (XLA's update shape) */
  setup_rule(SCATTER "  map k over z\n  tensor U : T[z: k]\n  scatter(A, I, U, axis=x) => A", 1, AX_INT);
  set_map("m", 1, 2L);
  set_map("k", 1, 3L);
  set_map("n", 1, 3L);
  expect_invalid();
  teardown_rule();
}
END_TEST

START_TEST(flatten_is_row_major) {
  /* x at rank 2 with sizes (2, 3), A[i][j] = 10 i + j: flatten reads the last named axis
   * fastest, as XLA's row-major reshape does */
  setup_rule("  rclass f, x\n  map s over x\n  tensor A : T[x: s]\n  flatten(A, x, into=f) => flatten(A, x, into=f)",
             1, AX_INT);
  ranks[1] = 2;
  set_map("s", 2, 2L, 3L);
  int a_sym = sym_of("A");
  for (long i = 0; i < 2; i++)
    for (long j = 0; j < 3; j++) {
      AxV idx[2] = {num(i), num(j)};
      ax_concrete_set(C, a_sym, idx, 2, elem(AX_INT, 10 * i + j));
    }
  expect_vec(AX_INT, 6, (const char *[]){"0", "1", "2", "10", "11", "12"});
  teardown_rule();
  /* unflatten: B of 6 into (2, 3) reads B[3 i + j] at (i, j); 5 elements into (2, 3) is invalid */
  setup_rule("  rclass f, x\n  map n over f\n  map s over x\n  tensor B : T[f: n]\n"
             "  flatten(unflatten(B, f, {x: s}), x, into=f) => B", 1, AX_INT);
  ranks[1] = 2;
  set_map("s", 2, 2L, 3L);
  set_map("n", 1, 6L);
  set_vec("B", AX_INT, 6, (long[]){7, 8, 9, 4, 5, 6});
  expect_vec(AX_INT, 6, (const char *[]){"7", "8", "9", "4", "5", "6"});
  const AxExpr *un = S->lhs->ty.opnds[0];
  AxIndex idx = {0};
  idx.at[1] = ax_arena_alloc(A, 2 * sizeof(AxV));
  idx.at[1][0] = num(1);
  idx.at[1][1] = num(0);
  char *got = ax_concrete_text(ax_den_at(&in, un, AX_INT, &idx));
  ck_assert_str_eq(got, "4");   /* (1, 0) is B[3] */
  free(got);
  set_map("n", 1, 5L);
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();
}
END_TEST

START_TEST(reshape_degenerate_and_broadcast) {
  setup_rule("  rclass x, y\n  map n over x\n  map m over y\n  tensor A : T[x: n, y: m]\n"
             "  reshape_degenerate(A, remove=[y]) => reshape_degenerate(A, remove=[y])", 1, AX_INT);
  set_map("n", 1, 2L);
  set_map("m", 1, 1L);
  int a_sym = sym_of("A");
  for (long i = 0; i < 2; i++) {
    AxV idx[2] = {num(i), num(0)};
    ax_concrete_set(C, a_sym, idx, 2, elem(AX_INT, 3 + i));
  }
  expect_vec(AX_INT, 2, (const char *[]){"3", "4"});
  set_map("m", 1, 2L);   /* a removed axis must have size 1 */
  in.memo.len = 0;
  expect_invalid();
  teardown_rule();
}
END_TEST

/* Adding a rule-level operator means adding its rows to the checker's and the denotation's
 * tables (dsl/check.c checks, semantics/denote.c dens): every operator of AX_OP_LIST
 * with the level AX_LV_RULE has both, no other operator has either. */
START_TEST(every_rule_operator_has_its_rows) {
  for (int i = 0; i < AX_OP_COUNT; i++) {
    const AxOpSpec *s = ax_op_spec((AxOp)i);
    bool rule = (s->levels & AX_LV_RULE) != 0;
    ck_assert_msg(ax_check_knows((AxOp)i) == rule, "operator '%s': %s", s->name,
                  rule ? "no axes rule in dsl/check.c" : "an axes rule, but not at the rule level");
    ck_assert_msg(ax_den_knows((AxOp)i) == rule, "operator '%s': %s", s->name,
                  rule ? "no denotation in semantics/denote.c" : "a denotation, but not at the rule level");
  }
  ck_assert(!ax_check_knows(AX_OP_COUNT) && !ax_den_knows(AX_OP_COUNT));
}
END_TEST

/* ---- the domains' operator tables ------------------------------------------------------
 * Every element-wise operator of AX_OP_LIST — a rule-level operator with one or two
 * operands whose element rule is arithmetic, real, bool or a comparison — must have a row
 * in every domain's table of its family (unary, binary, compare), so that adding one to
 * AX_OP_LIST without its rows fails here, not in a verification. The operators below are
 * element-shaped by ops.h's columns but denote.c builds them from other primitives (sums,
 * mul, div, exp, sqrt): a domain has no row for them. */
static const AxOp composite[] = {AX_OP_REDUCE,   AX_OP_DOT,    AX_OP_CONV, AX_OP_MEAN,
                                 AX_OP_RMS_NORM, AX_OP_SQUARE, AX_OP_SILU, AX_OP_TANH,
                                 AX_OP_LOGISTIC};

static const AxOp all_ops[] = {
#define X(e, ...) AX_OP_##e,
    AX_OP_LIST(X)
#undef X
};

typedef enum { NOT_ELEMENTWISE, UNARY, BINARY, COMPARE } Family;

static Family family(AxOp op) {
  const AxOpSpec *sp = ax_op_spec(op);
  for (size_t i = 0; i < sizeof composite / sizeof *composite; i++)
    if (composite[i] == op) return NOT_ELEMENTWISE;
  if (!(sp->levels & AX_LV_RULE) || sp->min_operands != sp->max_operands) return NOT_ELEMENTWISE;
  if (sp->elem != AX_ET_NUM && sp->elem != AX_ET_REAL && sp->elem != AX_ET_BOOL && sp->elem != AX_ET_CMP &&
      sp->elem != AX_ET_EQ)
    return NOT_ELEMENTWISE;
  if (sp->min_operands == 1) return UNARY;
  if (sp->min_operands != 2) return NOT_ELEMENTWISE;
  return sp->elem == AX_ET_CMP || sp->elem == AX_ET_EQ ? COMPARE : BINARY;
}

/* Applies op through the entry point of family f on two operands of type t; true when
 * the domain found a row (whatever it then says of the values: exp(2) has no exact
 * rational, log has no IEEE model — those are answers, not missing rows). */
static bool has_row(AxDomain *d, Family f, AxOp op, AxType t) {
  AxV x = d->elem_lit(d, t, t == AX_BOOL ? "1" : "2", 0), y = d->elem_lit(d, t, t == AX_BOOL ? "0" : "3", 0);
  d->unsupported = NULL;
  AxV r = f == UNARY ? d->elem_unary(d, op, t, x) : f == BINARY ? d->elem_binary(d, op, t, x, y)
                                                   : d->elem_compare(d, op, t, x, y);
  ck_assert_ptr_nonnull(r);
  bool missing = d->unsupported && strncmp(d->unsupported, "internal: operator '", 20) == 0;
  if (missing) ck_assert_ptr_nonnull(strstr(d->unsupported, "has no row in the"));
  d->unsupported = NULL;
  return !missing;
}

static void walk_ops(AxDomain *d, const char *name) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof all_ops / sizeof *all_ops; i++) {
    AxOp op = all_ops[i];
    Family f = family(op);
    AxType t = ax_op_spec(op)->elem == AX_ET_BOOL ? AX_BOOL : AX_REAL;
    for (Family g = UNARY; g <= COMPARE; g++)
      ck_assert_msg(has_row(d, g, op, t) == (g == f), "%s domain: operator '%s' %s a row in the %s table", name,
                    ax_op_name(op), g == f ? "lacks" : "has", g == UNARY ? "unary" : g == BINARY ? "binary" : "compare");
    n += f != NOT_ELEMENTWISE;
  }
  ck_assert_uint_eq(n, 26);   /* 10 unary (3 conversions), 10 binary, 6 comparisons today */
}

START_TEST(every_elementwise_op_has_a_row_in_every_domain) {
  AxConcrete *c = ax_concrete_new();
  walk_ops(ax_concrete_domain(c), "concrete");
  AxTermCtx *tc = ax_term_ctx_new();
  const char *names[] = {"A"};
  AxSymbolic *s = ax_symbolic_new(tc, names);
  walk_ops(ax_symbolic_domain(s), "symbolic");
  AxFloatDom *fd = ax_float_dom_new(ax_concrete_domain(c), AX_SORT_BF16);
  walk_ops(ax_float_dom_domain(fd), "IEEE replay");
  AxFpSym *ie = ax_fpsym_new(tc, names, AX_SORT_F16, 2);
  walk_ops(ax_fpsym_domain(ie), "IEEE");
  ax_fpsym_free(ie);
  ax_float_dom_free(fd);
  ax_symbolic_free(s);
  ax_term_ctx_free(tc);
  ax_concrete_free(c);
}
END_TEST

/* A missing row is reported as the domain's `unsupported`, named, never a call through
 * NULL: an operator outside the enum, and pad asked for as a unary operator. */
START_TEST(a_missing_row_is_an_internal_unsupported) {
  AxConcrete *c = ax_concrete_new();
  AxDomain *d = ax_concrete_domain(c);
  AxV x = d->elem_lit(d, AX_REAL, "1", 0);
  d->elem_unary(d, AX_OP_PAD, AX_REAL, x);
  ck_assert_str_eq(d->unsupported, "internal: operator 'pad' has no row in the concrete domain's unary table");
  d->unsupported = NULL;
  d->elem_binary(d, (AxOp)AX_OP_COUNT, AX_REAL, x, x);
  ck_assert_str_eq(d->unsupported, "internal: operator '?' has no row in the concrete domain's binary table");
  AxFloatDom *fd = ax_float_dom_new(d, AX_SORT_F32);
  AxDomain *f = ax_float_dom_domain(fd);
  f->elem_compare(f, AX_OP_ADD, AX_REAL, f->elem_lit(f, AX_REAL, "1", 0), f->elem_lit(f, AX_REAL, "1", 0));
  ck_assert_str_eq(f->unsupported, "internal: operator 'add' has no row in the IEEE replay's compare table");
  ax_float_dom_free(fd);
  ax_concrete_free(c);
}
END_TEST

/* The comparison rows on an ordering outcome, which the concrete domain and the IEEE
 * replay share: a NaN (outcome 2) is unordered, so only ne holds. */
START_TEST(comparison_rows_on_outcomes) {
  const AxOp ops[6] = {AX_OP_EQ, AX_OP_NE, AX_OP_LT, AX_OP_LE, AX_OP_GT, AX_OP_GE};
  const char *want[4] = {"011100", "100101", "010011", "010000"};   /* outcome -1, 0, 1, 2 */
  for (int c = -1; c <= 2; c++)
    for (int k = 0; k < 6; k++)
      ck_assert_int_eq(ax_concrete_compare_row(ops[k])(c), want[c + 1][k] == '1');
  ck_assert_ptr_null(ax_concrete_compare_row(AX_OP_ADD));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("semantics");
  TCase *t = tcase_create("concrete");
  tcase_add_test(t, log_pow_rsqrt_exact);
  tcase_add_test(t, elementary_functions_at_special_values);
  tcase_add_test(t, reshape_split_and_merge);
  tcase_add_test(t, pad_interior_and_edges);
  tcase_add_test(t, pad_negative_edges);
  tcase_add_test(t, pad_low_and_value);
  tcase_add_test(t, slice_with_stride);
  tcase_add_test(t, slice_defaults);
  tcase_add_test(t, dynamic_slice_and_update);
  tcase_add_test(t, concat_three);
  tcase_add_test(t, reverse_iota_broadcast_select_clamp);
  tcase_add_test(t, relabel_is_transpose);
  tcase_add_test(t, rank_two_pad_is_per_axis);
  tcase_add_test(t, division_by_zero_and_infinities);
  tcase_add_test(t, reshape_degenerate_and_broadcast);
  tcase_add_test(t, gather_clamps_like_xla);
  tcase_add_test(t, scatter_adds_like_xla);
  tcase_add_test(t, flatten_is_row_major);
  tcase_add_test(t, sqrt_and_rms_norm);
  tcase_add_test(t, every_rule_operator_has_its_rows);
  suite_add_tcase(s, t);
  TCase *tables = tcase_create("operator tables");
  tcase_add_test(tables, every_elementwise_op_has_a_row_in_every_domain);
  tcase_add_test(tables, a_missing_row_is_an_internal_unsupported);
  tcase_add_test(tables, comparison_rows_on_outcomes);
  suite_add_tcase(s, tables);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
