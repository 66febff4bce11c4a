/* check_interp.c — programs, interpreters and the equivalence checker on tiny shapes. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/parse.h"
#include "superopt/equiv/lax.h"
#include "superopt/equiv/equiv.h"
#include "superopt/arith/field.h"
#include "superopt/equiv/interp.h"
#include "superopt/ir/load.h"
#include "unit.h"

static AxMugraph *prog(const char *text) { return ax_load_from_text(A, &D, "t.axl", text, NULL); }

static AxMugraph *mug(const char *text) { return ax_load_from_text(A, &D, "t.mug", text, NULL); }

/* Runs g in the float domain on inputs filled by position (input i, element k -> f(i, k)),
 * with every stored tensor rounded to its type when storage is set. */
static double *run_float_in(const AxMugraph *g, int out, bool storage) {
  AxTDomain d = ax_values_float(storage);
  AxTensor *v = ax_arena_alloc(A, (size_t)g->ntensors * sizeof *v);
  int in = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      const AxKTensor *t = &g->tensors[g->stmts[s].t];
      int64_t n = ax_shape_numel(&t->shape);
      double *x = ax_arena_alloc(A, (size_t)n * sizeof *x);
      for (int64_t k = 0; k < n; k++) x[k] = sin(1.0 + 3.0 * in + 0.7 * (double)k);
      v[g->stmts[s].t] = (AxTensor){t->shape, x};
      in++;
    }
  ax_interp_run(g, &d, A, v);
  return v[g->outputs[out]].data;
}

static double *run_float(const AxMugraph *g, int out) { return run_float_in(g, out, false); }

static const char *RMS_PROG =
    "program p {\n"
    "  input X : f16[4, 8]\n"
    "  input W : f16[8, 6]\n"
    "  output O = matmul(rms_norm(X), W)\n"
    "}\n";

static const char *RMS_MUG =
    "mugraph p {\n"
    "  input X : f16[4, 8]\n"
    "  input W : f16[8, 6]\n"
    "  kernel k1 grid [3, 1, 1] block [128, 1, 1] forloop 2 {\n"
    "    x = input X imap {} fmap 1\n"
    "    w = input W imap {x: 1} fmap 0\n"
    "    xw = matmul(x, w)\n"
    "    acc = accum sum(xw)\n"
    "    r = accum rms(x, axis = 1)\n"
    "    o = div(acc, r)\n"
    "    output O = o omap {x: 1}\n"
    "  }\n"
    "  output O\n"
    "}\n";

/* The program interpreter against a direct evaluation written out here. */
START_TEST(program_direct) {
  AxMugraph *g = prog(RMS_PROG);
  ck_assert_msg(g, "%s", unit_diagnostics());
  const double *o = run_float(g, 0);
  for (int i = 0; i < 4; i++) {
    double ss = 0;
    for (int k = 0; k < 8; k++) ss += pow(sin(1.0 + 0.7 * (i * 8 + k)), 2);
    double r = sqrt(ss / 8);
    for (int j = 0; j < 6; j++) {
      double acc = 0;
      for (int k = 0; k < 8; k++) acc += sin(1.0 + 0.7 * (i * 8 + k)) / r * sin(4.0 + 0.7 * (k * 6 + j));
      ck_assert_double_eq_tol(o[i * 6 + j], acc, 1e-12);
    }
  }
}
END_TEST

/* The block-by-block interpreter agrees with the program in floats. */
START_TEST(mugraph_float) {
  AxMugraph *p = prog(RMS_PROG), *m = mug(RMS_MUG);
  ck_assert_msg(p && m, "%s", unit_diagnostics());
  const double *a = run_float(p, 0), *b = run_float(m, 0);
  for (int i = 0; i < 24; i++) ck_assert_double_eq_tol(a[i], b[i], 1e-12);
}
END_TEST

/* The running max and a sum rescaled by it, against a direct evaluation: after the loop m
 * is the row max and l = Σ exp(x − max) (the rescales telescope); in the loop m is read
 * after this iteration's update (c sums x − m_it with m_it the max of the tiles so far). */
START_TEST(online_softmax_float) {
  AxMugraph *g = mug("mugraph t {\n"
                     "  input X : f32[2, 8]\n"
                     "  kernel k grid [1, 1, 1] forloop 4 {\n"
                     "    x = input X imap {} fmap 1\n"
                     "    m = accum max(x, axis = 1)\n"
                     "    d = sub(x, m)\n"
                     "    e = exp(d)\n"
                     "    l = accum sum(e, axis = 1, rescale = m)\n"
                     "    c = accum sum(d, axis = 1)\n"
                     "    output M = m omap {}\n"
                     "    output L = l omap {}\n"
                     "    output C = c omap {}\n"
                     "  }\n"
                     "  output M, L, C\n"
                     "}\n");
  ck_assert_msg(g, "%s", unit_diagnostics());
  const double *m = run_float(g, 0), *l = run_float(g, 1), *c = run_float(g, 2);
  for (int i = 0; i < 2; i++) {
    double mx = -INFINITY, run = -INFINITY, cs = 0, ls = 0;
    for (int k = 0; k < 8; k++) mx = fmax(mx, sin(1.0 + 0.7 * (i * 8 + k)));
    for (int it = 0; it < 4; it++) {
      for (int k = 2 * it; k < 2 * it + 2; k++) run = fmax(run, sin(1.0 + 0.7 * (i * 8 + k)));
      for (int k = 2 * it; k < 2 * it + 2; k++) cs += sin(1.0 + 0.7 * (i * 8 + k)) - run;
    }
    for (int k = 0; k < 8; k++) ls += exp(sin(1.0 + 0.7 * (i * 8 + k)) - mx);
    ck_assert_double_eq_tol(m[i], mx, 1e-12);
    ck_assert_double_eq_tol(l[i], ls, 1e-12);
    ck_assert_double_eq_tol(c[i], cs, 1e-12);
  }
}
END_TEST

/* Every layout operator against a direct evaluation. */
START_TEST(layout_ops) {
  AxMugraph *g = prog("program p {\n"
                      "  input X : f32[2, 6]\n"
                      "  output S = sum(X, axis = 1, to = 3)\n"
                      "  output R = repeat(X, axis = 0, times = 2)\n"
                      "  output C = concat(X, X * 2, axis = 0)\n"
                      "  output B = broadcast(sum(X), [3, 2, 1])\n"
                      "  output M = mean(reshape(X, [3, 4]), axis = 0)\n"
                      "}\n");
  ck_assert_msg(g, "%s", unit_diagnostics());
  double x[12];
  for (int k = 0; k < 12; k++) x[k] = sin(1.0 + 0.7 * k);
  const double *s = run_float(g, 0);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) ck_assert_double_eq_tol(s[i * 3 + j], x[i * 6 + j] + x[i * 6 + 3 + j], 1e-12);
  const double *r = run_float(g, 1);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++) ck_assert_double_eq_tol(r[i * 6 + j], x[(i / 2) * 6 + j], 1e-12);
  const double *c = run_float(g, 2);
  for (int k = 0; k < 12; k++) {
    ck_assert_double_eq_tol(c[k], x[k], 1e-12);
    ck_assert_double_eq_tol(c[12 + k], 2 * x[k], 1e-12);
  }
  const double *b = run_float(g, 3);
  for (int k = 0; k < 6; k++) {
    double row = 0;
    for (int j = 0; j < 6; j++) row += x[(k % 2) * 6 + j];
    ck_assert_double_eq_tol(b[k], row, 1e-12);
  }
  const double *m = run_float(g, 4);
  for (int j = 0; j < 4; j++) ck_assert_double_eq_tol(m[j], (x[j] + x[4 + j] + x[8 + j]) / 3, 1e-12);
}
END_TEST

/* Runs g in the field domain of f on random inputs; returns output out's elements. */
static const AxFF *run_field(const AxMugraph *g, AxField *f, AxRng *r, int out) {
  AxTDomain d = ax_values_field(f);
  AxTensor *v = ax_arena_alloc(A, (size_t)g->ntensors * sizeof *v);
  memset(v, 0, (size_t)g->ntensors * sizeof *v);
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      const AxKTensor *t = &g->tensors[g->stmts[s].t];
      int64_t n = ax_shape_numel(&t->shape);
      AxFF *x = ax_arena_alloc(A, (size_t)n * sizeof *x);
      for (int64_t k = 0; k < n; k++) x[k] = ax_field_random(f, r);
      v[g->stmts[s].t] = (AxTensor){t->shape, x};
    }
  ax_interp_run(g, &d, A, v);
  return v[g->outputs[out]].data;
}

/* Iotas in the field: each element the residues of its integer index, as a constant made
 * through the general route (a fraction, its inverse) gives them — kernel-level iotas along
 * an inner and an outer axis, and block iotas cut by the grid and by the for-loop, whose
 * tiles hold the global index. Outputs are compared on the primary component. */
START_TEST(iota_field_residues) {
  AxMugraph *gp = prog("program p {\n"
                       "  input X : f32[3, 4, 5]\n"
                       "  output O = X * 0 + iota([3, 4, 5], axis = 1) * 100 + iota([3, 4, 5], axis = 2)\n"
                       "}\n");
  ck_assert_msg(gp, "%s", unit_diagnostics());
  AxMugraph *gm = mug("mugraph p {\n"
                      "  input X : f32[8, 6]\n"
                      "  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 2 {\n"
                      "    x = input X imap {x: 0} fmap 1\n"
                      "    r = iota([8, 6], axis = 0) imap {x: 0} fmap 1\n"
                      "    c = iota([8, 6], axis = 1) imap {x: 0} fmap 1\n"
                      "    z = mul(x, 0)\n"
                      "    y = mul(r, 100)\n"
                      "    s = add(y, c)\n"
                      "    o = add(z, s)\n"
                      "    a = accum concat(o, axis = 1)\n"
                      "    output O = a omap {x: 0}\n"
                      "  }\n"
                      "  output O\n"
                      "}\n");
  ck_assert_msg(gm, "%s", unit_diagnostics());
  uint64_t fp, fq;
  ax_field_draw_primes(5, &fp, &fq);
  AxRng r;
  ax_rng_init(&r, 5, 1);
  AxField f;
  ax_field_init(&f, fp, fq, &r);
  AxTDomain d = ax_values_field(&f);
  const AxFF *o = run_field(gp, &f, &r, 0);
  for (int i = 0; i < 3; i++)
    for (int b = 0; b < 4; b++)
      for (int c = 0; c < 5; c++) {
        AxFF want;
        d.constant(&d, (AxRat){3 * (100 * b + c), 3}, &want);
        ck_assert_uint_eq(o[(i * 4 + b) * 5 + c].p, want.p);
      }
  const AxFF *m = run_field(gm, &f, &r, 0);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 6; j++) {
      AxFF want;
      d.constant(&d, (AxRat){7 * (100 * i + j), 7}, &want);
      ck_assert_uint_eq(m[i * 6 + j].p, want.p);
    }
  AxFF neg, frac;   /* a negative integer: its residue is the negated one */
  d.constant(&d, (AxRat){-1000, 1}, &neg);
  d.constant(&d, (AxRat){-3000, 3}, &frac);
  ck_assert_uint_eq(neg.p, frac.p);
  ck_assert_uint_eq(neg.q, frac.q);
  ax_field_fini(&f);
}
END_TEST

static int equiv(const char *p, const char *m, FILE *out) {
  AxMugraph *gp = prog(p), *gm = mug(m);
  if (!gp || !gm) return -1;
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 99;
  o.out = out;
  return ax_equiv_run(gp, gm, &D, &o);
}

START_TEST(equiv_verdicts) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  ck_assert_int_eq(equiv(RMS_PROG, RMS_MUG, out), 0);
  /* a wrong fmap: W's tile walks the wrong dim */
  char *bad = strdup(RMS_MUG);
  char *at = strstr(bad, "imap {x: 1} fmap 0");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "imap {x: 1} fmap 1", 18);
  ck_assert_int_eq(equiv(RMS_PROG, bad, out), -1);   /* W's tile becomes 4 x 1: matmul fails */
  free(bad);
  /* swapped operands validate and are rejected */
  bad = strdup(RMS_MUG);
  at = strstr(bad, "div(acc, r)");
  memcpy(at, "div(r, acc)", 11);
  ck_assert_int_eq(equiv(RMS_PROG, bad, out), 1);
  free(bad);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buf, "not equivalent: output 'O' differs at [0, 0]"));
  ck_assert_ptr_nonnull(strstr(buf, "equivalent (probability of a wrong verdict <= 9.31e-10"));
  free(buf);
}
END_TEST

/* Element types through a fused kernel: a bf16 input widened by to_f32 inside the kernel
 * keeps f32 to the output, so the graph stores what the program stores (its float run with
 * storage rounding is the program's, bit for bit: the sum is not rounded to bf16), and a
 * graph without the conversion, whose output is bf16, is refused before any test (status 3,
 * located at its saver), as one whose output has another name is. */
static const char *DT_PROG = "program dt {\n  input x : bf16[2, 16]\n  let y = to_f32(x)\n"
                             "  let s = sum(y, axis = 1)\n  output r = rsqrt(s * s + 1)\n}\n";
static const char *DT_MUG = "mugraph dt {\n  input x : bf16[2, 16]\n"
                            "  kernel k grid [2, 1, 1] block [128, 1, 1] forloop 1 {\n"
                            "    i = input x imap {x: 0} fmap -\n    y = to_f32(i)\n"
                            "    s = sum(y, axis = 1)\n    q = mul(s, s)\n    p = add(q, 1)\n"
                            "    v = rsqrt(p)\n    output r = v omap {x: 0}\n  }\n  output r\n}\n";

START_TEST(equiv_types) {
  AxMugraph *gp = prog(DT_PROG), *gm = mug(DT_MUG);
  ck_assert_msg(gp && gm, "%s", unit_diagnostics());
  ck_assert_int_eq(gm->tensors[ax_mug_find(gm, "r")].dtype, AX_DT_F32);
  const double *pr = run_float_in(gp, 0, true), *mr = run_float_in(gm, 0, true);
  for (int i = 0; i < 2; i++) ck_assert_msg(pr[i] == mr[i], "r[%d]: %.17g vs %.17g", i, mr[i], pr[i]);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  ck_assert_int_eq(equiv(DT_PROG, DT_MUG, out), 0);
  fclose(out);
  free(buf);
  /* the conversion dropped: s, p and the output r are bf16 */
  char *bad = strdup(DT_MUG);
  char *at = strstr(bad, "    y = to_f32(i)\n");
  memmove(at, at + strlen("    y = to_f32(i)\n"), strlen(at + strlen("    y = to_f32(i)\n")) + 1);
  at = strstr(bad, "sum(y,");
  at[4] = 'i';
  buf = NULL, len = 0;
  out = open_memstream(&buf, &len);
  ck_assert_int_eq(equiv(DT_PROG, bad, out), 3);
  fclose(out);
  ck_assert_ptr_null(strstr(buf, "field tests"));   /* refused before any test */
  free(buf);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.mug:9:12: error: output 'r' is bf16[2, 1] here but f32[2, 1] in program 'dt'"));
  free(bad);
  bad = strdup(DT_MUG);
  at = strstr(bad, "output r = v");
  at[7] = 'o';
  at = strstr(bad, "  output r\n}");
  at[9] = 'o';
  ck_assert_int_eq(equiv(DT_PROG, bad, NULL), 3);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "error: mugraph 'dt' has no output 'r' (program 'dt' has)"));
  free(bad);
}
END_TEST

/* A deadline stops the field tests between tests, and a check it stops is no verdict
 * (status 2, AX_EQUIV_LATE) — for an equivalent pair and for a wrong one alike: a time
 * limit never becomes "equivalent". A deadline far off changes nothing. */
START_TEST(equiv_deadline) {
  AxMugraph *gp = prog(RMS_PROG), *gm = mug(RMS_MUG);
  ck_assert(gp && gm);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 99;
  o.out = out;
  o.jobs = 2;
  o.deadline = 1e-9;   /* long past */
  AxEquivHow how = AX_EQUIV_BOUNDED;
  ck_assert_int_eq(ax_equiv_run_how(gp, gm, &D, &o, &how), 2);
  ck_assert_int_eq(how, AX_EQUIV_LATE);
  char *bad = strdup(RMS_MUG);
  char *at = strstr(bad, "div(acc, r)");
  memcpy(at, "div(r, acc)", 11);
  AxMugraph *gb = mug(bad);
  ck_assert_ptr_nonnull(gb);
  ck_assert_int_eq(ax_equiv_run_how(gp, gb, &D, &o, &how), 2);
  ck_assert_int_eq(how, AX_EQUIV_LATE);
  o.deadline = 1e12;   /* far off */
  ck_assert_int_eq(ax_equiv_run_how(gp, gm, &D, &o, &how), 0);
  ck_assert_int_eq(how, AX_EQUIV_BOUNDED);
  ck_assert_int_eq(ax_equiv_run_how(gp, gb, &D, &o, &how), 1);
  free(bad);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buf, "not established: the time limit passed after 0 of "));
  free(buf);
}
END_TEST

/* What a tool that writes its result accepts: sqrt(A) * sqrt(A) against A is a law of
 * square roots, which the field (sqrt uninterpreted) cannot see and only the doubles
 * agree with — ax_equiv_run says not established (2, the doubles' agreement named, how
 * AX_EQUIV_SQRT_LAW), ax_equiv_accept refuses (2). An exact equivalence is accepted by both. */
START_TEST(equiv_accept_refuses_sqrt_law) {
  const char *p = "program s {\n  input X : f32[4, 8]\n  let A = X * X + 1\n"
                  "  output O = sqrt(A) * sqrt(A)\n}\n";
  const char *m = "mugraph s {\n  input X : f32[4, 8]\n  a = mul(X, X)\n  O = add(a, 1)\n  output O\n}\n";
  AxMugraph *gp = prog(p), *gm = mug(m);
  ck_assert(gp && gm);
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 5;
  o.out = NULL;
  AxEquivHow how;
  ck_assert_int_eq(ax_equiv_run_how(gp, gm, &D, &o, &how), 2);
  ck_assert_int_eq(how, AX_EQUIV_SQRT_LAW);
  ck_assert_int_eq(ax_equiv_accept(gp, gm, &D, &o), 2);
  AxMugraph *rp = prog(RMS_PROG), *rm = mug(RMS_MUG);
  ck_assert(rp && rm);
  ck_assert_int_eq(ax_equiv_accept(rp, rm, &D, &o), 0);
  o.deadline = 1e-9;
  ck_assert_int_eq(ax_equiv_accept(rp, rm, &D, &o), 4);
}
END_TEST

/* A conversion dropped is no law of square roots: the field reads to_f32 as a keyed
 * function, and in doubles the f32 rounding of a product is within 1e-6 of it (6e-8), so
 * before conversions were kept out of the doubles' excuse this pair was "equivalent by
 * testing". It differs over the reals (to_f32 rounds X * Y), and it is not equivalent,
 * with sqrt in both graphs too; without the conversion the pair is equivalent. */
START_TEST(equiv_conversion_not_excused) {
  const char *p = "program c {\n  input X, Y : f32[4, 8]\n  output O = to_f32(X * Y) + sqrt(X * X + 1)\n}\n";
  const char *m = "mugraph c {\n  input X, Y : f32[4, 8]\n  a = mul(X, Y)\n  b = mul(X, X)\n"
                  "  c = add(b, 1)\n  d = sqrt(c)\n  O = add(a, d)\n  output O\n}\n";
  const char *m2 = "mugraph c {\n  input X, Y : f32[4, 8]\n  a0 = mul(X, Y)\n  a = to_f32(a0)\n"
                   "  b = mul(X, X)\n  c = add(b, 1)\n  d = sqrt(c)\n  O = add(a, d)\n  output O\n}\n";
  AxMugraph *gp = prog(p), *gm = mug(m), *gm2 = mug(m2);
  ck_assert(gp && gm && gm2);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 5;
  o.out = out;
  AxEquivHow how = AX_EQUIV_BOUNDED;
  ck_assert_int_eq(ax_equiv_run_how(gp, gm, &D, &o, &how), 1);
  ck_assert_int_eq(ax_equiv_run_how(gp, gm2, &D, &o, &how), 0);
  ck_assert_int_eq(how, AX_EQUIV_BOUNDED);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buf, "replayed in interval arithmetic"));
  ck_assert_ptr_null(strstr(buf, "equivalent by testing"));
  free(buf);
}
END_TEST

/* The doubles' excuse is per output, tight, and needs a judgement. O differs by a
 * relative 1e-12 and takes no square root: the field's difference is exact and refutes it,
 * though S beside it takes one and the doubles cannot see 1e-12. R's epsilon beside a
 * square under a root changed by a thousandth moves R by about 1.5e-8 relative on inputs
 * in [-1, 1], and interval arithmetic proves the difference at such a point (a witness).
 * The pair with the same
 * constants is equivalent. */
START_TEST(equiv_sqrt_excuse_per_output) {
  const char *p = "program r {\n  input X : f32[4, 8]\n  output O = X * 3\n"
                  "  output S = sqrt(X * X + 1)\n  output R = rsqrt(mean(X * X * 100, axis = 1) + 0.001)\n}\n";
  const char *m = "mugraph r {\n  input X : f32[4, 8]\n  O = mul(X, %s)\n  a = mul(X, X)\n  b = add(a, 1)\n"
                  "  S = sqrt(b)\n  c = mul(a, 100)\n  d = mean(c, axis = 1)\n  e = add(d, %s)\n  R = rsqrt(e)\n"
                  "  output O, S, R\n}\n";
  char text[512];
  AxMugraph *gp = prog(p);
  ck_assert_ptr_nonnull(gp);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 5;
  o.out = out;
  snprintf(text, sizeof text, m, "3", "0.001");
  ck_assert_int_eq(ax_equiv_run(gp, mug(text), &D, &o), 0);
  snprintf(text, sizeof text, m, "3.000000000003", "0.001");
  ck_assert_int_eq(ax_equiv_run(gp, mug(text), &D, &o), 1);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buf, "not equivalent: output 'O' differs"));
  ck_assert_ptr_nonnull(strstr(buf, "(no square root or conversion on this output's paths"));
  free(buf);
  buf = NULL;
  out = open_memstream(&buf, &len);
  o.out = out;
  snprintf(text, sizeof text, m, "3", "0.001001");
  ck_assert_int_eq(ax_equiv_run(gp, mug(text), &D, &o), 1);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buf, "replayed in interval arithmetic"));
  ck_assert_ptr_nonnull(strstr(buf, "output 'R' at ["));
  free(buf);
  /* rsqrt(X) against X: NaN in doubles wherever an input in [-1, 1] or [-4, 4] is negative,
   * so those draws may not judge; inputs in [0, 1] do, and refute it. A program not finite
   * on any draw (sqrt(-1 - X * X)) is "cannot decide" (3), never a law of sqrt. */
  AxMugraph *gq = prog("program q {\n  input X : f32[2, 2]\n  output O = rsqrt(X)\n}\n");
  ck_assert_ptr_nonnull(gq);
  o.out = NULL;
  ck_assert_int_eq(ax_equiv_run(gq, mug("mugraph q {\n  input X : f32[2, 2]\n  O = mul(X, 1)\n  output O\n}\n"), &D, &o), 1);
  AxMugraph *gn = prog("program n {\n  input X : f32[2, 2]\n  output O = sqrt(-1 - X * X)\n}\n");
  ck_assert_ptr_nonnull(gn);
  ck_assert_int_eq(ax_equiv_run(gn, mug("mugraph n {\n  input X : f32[2, 2]\n  a = mul(X, X)\n  b = sub(-2, a)\n"
                                        "  O = sqrt(b)\n  output O\n}\n"), &D, &o), 3);
}
END_TEST

/* The planning figure of a time budget: a comparable pair gets a positive estimate; a
 * deadline already past, or a pair that cannot be compared, gets -1 (never a figure that
 * looks like a fast check). */
START_TEST(equiv_estimate) {
  AxMugraph *gp = prog(RMS_PROG), *gm = mug(RMS_MUG);
  ck_assert(gp && gm);
  AxEquivOpts o;
  ax_equiv_defaults(&o);
  o.seed = 7;
  o.tests = 1;
  o.float_tests = 0;
  double one = ax_equiv_estimate(gp, gm, &o);
  ck_assert(one > 0);
  o.tests = 8;
  ck_assert(ax_equiv_estimate(gp, gm, &o) > 0);
  o.deadline = 1e-9;
  ck_assert(ax_equiv_estimate(gp, gm, &o) == -1);
  o.deadline = 0;
  AxMugraph *other = mug("mugraph s {\n  input Y : f32[4, 8]\n  O = add(Y, 1)\n  output O\n}\n");
  ck_assert_ptr_nonnull(other);
  ck_assert(ax_equiv_estimate(gp, other, &o) == -1);
}
END_TEST

/* exp of exp is outside the Lax fragment: refused with a located error. */
START_TEST(lax_refusal) {
  FILE *out = fopen("/dev/null", "w");
  int st = equiv("program p {\n  input X : f32[2, 4]\n  output O = exp(exp(X))\n}\n",
                 "mugraph p {\n  input X : f32[2, 4]\n  E = exp(X)\n  O = exp(E)\n  output O\n}\n", out);
  fclose(out);
  ck_assert_int_eq(st, 3);
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:3:14: error: exp in 'O': an exponential on a path"));
}
END_TEST

/* The test count of Theorem 2: exp-free graphs need few tests; silu (k = 4) more. */
START_TEST(test_counts) {
  AxLaxVal a = {1, 1, 3, false, 0, 0, 0, 0, 0}, b = a;
  AxLaxBound r;
  ax_lax_tests(&a, &b, ldexp(1.0, -30), AX_FIELD_LEGACY_Q, AX_FIELD_LEGACY_P, &r);
  ck_assert_double_eq(r.k, 1);
  ck_assert_double_eq(r.tests, 2);
  a.exp = b.exp = true;
  a.kd = b.kd = 2;
  ax_lax_tests(&a, &b, ldexp(1.0, -30), AX_FIELD_LEGACY_Q, AX_FIELD_LEGACY_P, &r);
  ck_assert_double_eq(r.k, 4);
  ck_assert_double_eq(r.tests, 16);
  a.kn = b.kn = 4096;
  ax_lax_tests(&a, &b, ldexp(1.0, -30), AX_FIELD_LEGACY_Q, AX_FIELD_LEGACY_P, &r);
  ck_assert(isinf(r.tests));
}
END_TEST

START_TEST(program_errors) {
  ck_assert_ptr_null(prog("program p {\n  input X : f16[4, 8]\n  output O = matmul(X, X)\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(),
                               "t.axl:3:14: error: program 'p': matmul: inner dimensions differ: [4, 8] x [4, 8] (8 vs 4)"));
  ck_assert_ptr_null(prog("program q {\n  input X : f16[4, 8]\n  output O = rms_norm(Y, axis = 2)\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "t.axl:3:23: error: program 'q': unknown name 'Y'"));
  ck_assert_ptr_null(prog("program r {\n  input X : f16[4, 8]\n  input Z : f32[4, 8]\n  output O = X + Z\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "add: operands have different element types (f16 and f32)"));
  ck_assert_ptr_null(prog("program s {\n  input X : f16[4, 8]\n  output O = sum(X, axis = 1, to = 3)\n}\n"));
  ck_assert_ptr_nonnull(strstr(unit_diagnostics(), "program 's': sum: cannot sum axis 1 of size 8 to size 3"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("interp");
  TCase *t = tcase_create("interp");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, program_direct);
  tcase_add_test(t, equiv_estimate);
  tcase_add_test(t, mugraph_float);
  tcase_add_test(t, online_softmax_float);
  tcase_add_test(t, layout_ops);
  tcase_add_test(t, iota_field_residues);
  tcase_add_test(t, equiv_verdicts);
  tcase_add_test(t, equiv_types);
  tcase_add_test(t, equiv_deadline);
  tcase_add_test(t, equiv_accept_refuses_sqrt_law);
  tcase_add_test(t, equiv_conversion_not_excused);
  tcase_add_test(t, equiv_sqrt_excuse_per_output);
  tcase_add_test(t, lax_refusal);
  tcase_add_test(t, test_counts);
  tcase_add_test(t, program_errors);
  suite_add_tcase(s, t);
  return unit_run(s);
}
