/* check_pop.c — the table of program-level operators that are not element-wise
 * (superopt/ir/pop.h) and its CUDA twin (gpu/cuda.c): every such operator of AX_OP_LIST has a
 * complete row in both, and the rows compute what they say (shapes, values, reduced sizes,
 * the facts the cost model and the search read). */
#include <math.h>

#include "gpu/cuda.h"
#include "superopt/equiv/values.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"
#include "unit.h"

/* The operators that must have a pop.h row: at some program, block or source level, and
 * not element-wise (those are ewop.h's). */
static bool needs_row(AxOp op) {
  const AxOpSpec *sp = ax_op_spec(op);
  return (sp->levels & (AX_LV_PROG | AX_LV_BLOCK | AX_LV_SOURCE)) && sp->cls != AX_TC_UNARY &&
         sp->cls != AX_TC_BINARY;
}

/* A walk over AX_OP_LIST: a new program operator without its rows (or with half of them)
 * fails here, naming it. */
START_TEST(complete) {
  int rows = 0;
  for (int i = 0; i < AX_OP_COUNT; i++) {
    AxOp op = (AxOp)i;
    const AxOpSpec *sp = ax_op_spec(op);
    const AxPOp *p = ax_pop_get(op);
    const char *name = ax_op_name(op);
    if (!needs_row(op)) {
      ck_assert_msg(!p, "'%s' is element-wise or rule-only but has a pop.h row", name);
      ck_assert_msg(!ax_cuda_emits_op(op, false) && !ax_cuda_emits_op(op, true),
                    "'%s' has a CUDA row but no pop.h row", name);
      continue;
    }
    rows++;
    ck_assert_msg(p != NULL, "program operator '%s' has no row in superopt/ir/pop.c", name);
    ck_assert_int_eq(p->op, op);
    bool source = sp->cls == AX_TC_SOURCE;
    /* an input is given, never computed; everything else is evaluated */
    ck_assert_msg((p->apply == NULL) == (op == AX_OP_INPUT), "'%s': evaluator", name);
    ck_assert_msg(!p->literal || source, "'%s': only a source is a literal", name);
    ck_assert_msg(!(p->math == AX_POP_MATH_CUDA) || p->flops > 0, "'%s': CUDA-core math without FLOPs", name);
    ck_assert_msg(!(p->contract != AX_POP_CONTRACT_NONE) || p->math != AX_POP_MATH_NONE,
                  "'%s': sums without arithmetic", name);
    /* the CUDA backend: a pre-defined kernel for every computed program operator, a block
     * operator for every block-level one; sources are arguments or literals */
    if (source) {
      ck_assert_msg(!ax_cuda_emits_op(op, false) && !ax_cuda_emits_op(op, true),
                    "'%s' is a source: nothing to emit", name);
      ck_assert_msg(p->free, "'%s' is a source: it launches nothing", name);
      continue;
    }
    if (sp->levels & AX_LV_PROG)
      ck_assert_msg(ax_cuda_emits_op(op, false), "'%s' has no pre-defined kernel in gpu/cuda.c", name);
    ck_assert_msg(ax_cuda_emits_op(op, true) == ((sp->levels & AX_LV_BLOCK) != 0),
                  "'%s': a CUDA block operator iff it is one (ops.h levels)", name);
  }
  ck_assert_int_eq(rows, 18);   /* const, broadcast, concat, sum, matmul, input, mean,
                                 * rms_norm, reshape, repeat, reduce_max, reduce_min,
                                 * transpose, select, iota, slice, pad, reverse — and
                                 * nothing forgotten */
}
END_TEST

/* Shape rules through the rows: matmul, a sum to a size, mean's refusal of `to`. */
START_TEST(shapes) {
  AxTShape a = {3, {2, 4, 8}}, b = {2, {8, 5}}, o;
  const AxTShape *ab[2] = {&a, &b};
  char err[200] = "";
  AxTAttrs at = {0};
  ck_assert(ax_pop_get(AX_OP_DOT)->infer(&at, ab, 2, &o, err, sizeof err));
  ck_assert_int_eq(o.rank, 3);
  ck_assert(o.dim[0] == 2 && o.dim[1] == 4 && o.dim[2] == 5);
  at = (AxTAttrs){.axis = 2, .axis_set = true, .to = 4};
  const AxTShape *x[1] = {&a};
  ck_assert(ax_pop_get(AX_OP_REDUCE)->infer(&at, x, 1, &o, err, sizeof err));
  ck_assert(o.dim[2] == 4 && o.dim[1] == 4);
  ck_assert(!ax_pop_get(AX_OP_MEAN)->infer(&at, x, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "takes no 'to'");
  at = (AxTAttrs){.axis = 1, .axis_set = true, .to = 3};
  ck_assert(!ax_pop_get(AX_OP_REDUCE)->infer(&at, x, 1, &o, err, sizeof err));
  ck_assert_msg(strstr(err, "the size must divide it") != NULL, "%s", err);
}
END_TEST

/* Evaluators in the float domain: mean and rms_norm of [3, 4] along the row. */
START_TEST(values) {
  AxTDomain F = ax_values_float(false);
  double xv[2] = {3, 4}, m[1], r[2];
  AxTensor x = {{2, {1, 2}}, xv};
  const AxTensor *in[1] = {&x};
  AxTAttrs at = {.axis = 1, .axis_set = true};
  AxTensor mo = {{2, {1, 1}}, m}, ro = {{2, {1, 2}}, r};
  ax_pop_get(AX_OP_MEAN)->apply(&F, A, &at, in, 1, &mo);
  ck_assert(fabs(m[0] - 3.5) < 1e-12);
  ax_pop_get(AX_OP_RMS_NORM)->apply(&F, A, &at, in, 1, &ro);
  double rms = sqrt((9.0 + 16.0) / 2);
  ck_assert(fabs(r[0] - 3 / rms) < 1e-12 && fabs(r[1] - 4 / rms) < 1e-12);
}
END_TEST

/* reduce_max and reduce_min in doubles (NaN propagates, as XLA's maximum does), to a size,
 * and in the field, where each result is a fresh variable and a length-1 axis is a copy. */
START_TEST(max_values) {
  AxTDomain F = ax_values_float(false);
  double xv[6] = {3, -7, 5, 1, NAN, 2}, m[2], n[2], t[2];
  AxTensor x = {{2, {2, 3}}, xv};
  const AxTensor *in[1] = {&x};
  AxTAttrs at = {.axis = 1, .axis_set = true};
  AxTensor mo = {{2, {2, 1}}, m}, no = {{2, {2, 1}}, n}, to = {{2, {1, 3}}, NULL};
  ax_pop_get(AX_OP_REDUCE_MAX)->apply(&F, A, &at, in, 1, &mo);
  ax_pop_get(AX_OP_REDUCE_MIN)->apply(&F, A, &at, in, 1, &no);
  ck_assert(m[0] == 5 && isnan(m[1]) && n[0] == -7 && isnan(n[1]));
  double col[3];
  at.axis = 0;
  to.data = col;
  ax_pop_get(AX_OP_REDUCE_MAX)->apply(&F, A, &at, in, 1, &to);
  ck_assert(col[0] == 3 && isnan(col[1]) && col[2] == 5);
  double yv[4] = {1, 9, 4, 2};   /* to = 2: out[i] = max_j y[2j + i] */
  AxTensor y = {{1, {4}}, yv}, yo = {{1, {2}}, t};
  const AxTensor *yin[1] = {&y};
  AxTAttrs a2 = {.axis = 0, .axis_set = true, .to = 2};
  ax_pop_get(AX_OP_REDUCE_MAX)->apply(&F, A, &a2, yin, 1, &yo);
  ck_assert(t[0] == 4 && t[1] == 9);
  uint64_t P, Q;
  ax_field_draw_primes(2, &P, &Q);
  AxRng r;
  ax_rng_init(&r, 2, 2);
  AxField f;
  ax_field_init(&f, P, Q, &r);
  AxTDomain Z = ax_values_field(&f);
  AxFF zv[4] = {{1, 1}, {2, 2}, {3, 3}, {4, 4}}, zo[2], zc[4];
  AxTensor z = {{2, {2, 2}}, zv}, zm = {{2, {2, 1}}, zo}, zk = {{2, {2, 2}}, zc};
  const AxTensor *zin[1] = {&z};
  AxTAttrs a3 = {.axis = 1, .axis_set = true};
  ax_pop_get(AX_OP_REDUCE_MAX)->apply(&Z, A, &a3, zin, 1, &zm);
  ck_assert_uint_eq(f.fresh, 2);
  ck_assert(zo[0].p != zo[1].p && zo[0].q != AX_FF_UNDEF);
  AxTAttrs a4 = {.axis = 1, .axis_set = true, .to = 2};   /* one element per output: a copy */
  ax_pop_get(AX_OP_REDUCE_MAX)->apply(&Z, A, &a4, zin, 1, &zk);
  ck_assert_uint_eq(f.fresh, 2);
  ck_assert(zc[3].p == 4 && zc[3].q == 4);
  ax_field_fini(&f);
}
END_TEST

/* iota: the index along its axis (default the last), exact in doubles and in the field;
 * select: a branch per element in doubles, and in the field no branch at all (the test is
 * inconclusive); shapes that differ are refused. */
START_TEST(select_iota) {
  AxTDomain F = ax_values_float(false);
  AxTShape s23 = {2, {2, 3}}, o;
  char err[200] = "";
  AxTAttrs at = {.shape = s23, .axis = 0, .axis_set = true};
  ck_assert(ax_pop_get(AX_OP_IOTA)->infer(&at, NULL, 0, &o, err, sizeof err));
  ck_assert(ax_shape_equal(&o, &s23));
  double r[6], c[6], m[6], sel[6], a[6] = {10, 11, 12, 13, 14, 15}, b[6] = {-1, -1, -1, -1, -1, -1};
  AxTensor rt = {s23, r}, ct = {s23, c};
  ax_pop_get(AX_OP_IOTA)->apply(&F, A, &at, NULL, 0, &rt);
  AxTAttrs at1 = {.shape = s23};   /* the axis defaults to the last */
  ck_assert(ax_pop_get(AX_OP_IOTA)->infer(&at1, NULL, 0, &o, err, sizeof err) && at1.axis == 1);
  ax_pop_get(AX_OP_IOTA)->apply(&F, A, &at1, NULL, 0, &ct);
  double wr[6] = {0, 0, 0, 1, 1, 1}, wc[6] = {0, 1, 2, 0, 1, 2};
  for (int i = 0; i < 6; i++) ck_assert(r[i] == wr[i] && c[i] == wc[i]);
  AxTAttrs bad = {.shape = s23, .axis = 2, .axis_set = true};
  ck_assert(!ax_pop_get(AX_OP_IOTA)->infer(&bad, NULL, 0, &o, err, sizeof err));
  ck_assert_str_eq(err, "axis 2 is out of range for rank 2");
  ax_ewop_get(AX_OP_GE)->f64_bin(6, m, r, 1, c, 1);   /* the causal mask: row >= column */
  AxTensor mt = {s23, m}, at_ = {s23, a}, bt = {s23, b}, st = {s23, sel};
  const AxTensor *in[3] = {&mt, &at_, &bt};
  const AxTShape *sh[3] = {&s23, &s23, &s23};
  AxTAttrs none = {0};
  ck_assert(ax_pop_get(AX_OP_SELECT)->infer(&none, sh, 3, &o, err, sizeof err));
  ax_pop_get(AX_OP_SELECT)->apply(&F, A, &none, in, 3, &st);
  double want[6] = {10, -1, -1, 13, 14, -1};
  for (int i = 0; i < 6; i++) ck_assert(sel[i] == want[i]);
  AxTShape s32 = {2, {3, 2}};
  const AxTShape *sh2[3] = {&s23, &s23, &s32};
  ck_assert(!ax_pop_get(AX_OP_SELECT)->infer(&none, sh2, 3, &o, err, sizeof err));
  ck_assert_str_eq(err, "operand 3 has shape [3, 2], the mask [2, 3] (select takes three of one shape)");
  uint64_t P, Q;
  ax_field_draw_primes(3, &P, &Q);
  AxRng rng;
  ax_rng_init(&rng, 3, 3);
  AxField f;
  ax_field_init(&f, P, Q, &rng);
  AxTDomain Z = ax_values_field(&f);
  AxFF zr[6], zs[6];
  AxTensor zrt = {s23, zr}, zst = {s23, zs};
  ax_pop_get(AX_OP_IOTA)->apply(&Z, A, &at, NULL, 0, &zrt);
  ck_assert(zr[4].p == 1 && zr[4].q == 1 && zr[0].p == 0);
  const AxTensor *zin[3] = {&zrt, &zrt, &zrt};
  ck_assert_uint_eq(f.divzero, 0);
  ax_pop_get(AX_OP_SELECT)->apply(&Z, A, &none, zin, 3, &zst);
  ck_assert_uint_gt(f.divzero, 0);
  ax_field_fini(&f);
  ck_assert(ax_pop_get(AX_OP_SELECT)->lax == AX_POP_LAX_ORDER);
}
END_TEST

/* transpose: result dim k is operand dim perm[k]; values moved accordingly (a head split's
 * [1, 0, 2] and a rotation [1, 2, 0] of a [2, 3, 4] tensor); a list that is not a
 * permutation or has the wrong length is refused. */
START_TEST(transpose) {
  AxTShape xs = {3, {2, 3, 4}}, o;
  const AxTShape *in[1] = {&xs};
  char err[200] = "";
  AxTAttrs at = {.shape = {3, {1, 0, 2}}};
  ck_assert(ax_pop_get(AX_OP_TRANSPOSE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert(o.rank == 3 && o.dim[0] == 3 && o.dim[1] == 2 && o.dim[2] == 4);
  AxTDomain F = ax_values_float(false);
  double xv[24], ov[24];
  for (int i = 0; i < 24; i++) xv[i] = i;
  AxTensor x = {xs, xv}, out = {o, ov};
  const AxTensor *xin[1] = {&x};
  ax_pop_get(AX_OP_TRANSPOSE)->apply(&F, A, &at, xin, 1, &out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 4; k++) ck_assert(ov[(i * 2 + j) * 4 + k] == xv[(j * 3 + i) * 4 + k]);
  at = (AxTAttrs){.shape = {3, {1, 2, 0}}};
  ck_assert(ax_pop_get(AX_OP_TRANSPOSE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert(o.dim[0] == 3 && o.dim[1] == 4 && o.dim[2] == 2);
  out.shape = o;
  ax_pop_get(AX_OP_TRANSPOSE)->apply(&F, A, &at, xin, 1, &out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 2; k++) ck_assert(ov[(i * 4 + j) * 2 + k] == xv[(k * 3 + i) * 4 + j]);
  at = (AxTAttrs){.shape = {3, {0, 0, 2}}};
  ck_assert(!ax_pop_get(AX_OP_TRANSPOSE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "[0, 0, 2] is not a permutation of the axes 0..2");
  at = (AxTAttrs){.shape = {2, {1, 0}}};
  ck_assert(!ax_pop_get(AX_OP_TRANSPOSE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "the permutation lists 2 axes, the operand [2, 3, 4] has 3");
  ck_assert(!ax_pop_get(AX_OP_TRANSPOSE)->free && ax_pop_get(AX_OP_TRANSPOSE)->abs == AX_POP_ABS_NONE);
}
END_TEST

/* slice, pad, reverse: shapes and values of HLO's operators on a [3, 4] tensor x[i][j] =
 * 10i + j (a strided slice; a pad with interior 1 and a cropping negative low edge; a
 * reverse of the last axis), the value moved exactly in the field too; malformed lists
 * refused with a message. */
START_TEST(window) {
  AxTShape xs = {2, {3, 4}}, vs = {0, {0}}, o;
  const AxTShape *in[2] = {&xs, &vs};
  char err[200] = "";
  AxTDomain F = ax_values_float(false);
  double xv[12], pv = -1, ov[64];
  for (int i = 0; i < 12; i++) xv[i] = 10 * (i / 4) + i % 4;
  AxTensor x = {xs, xv}, v = {vs, &pv}, out;
  const AxTensor *xin[2] = {&x, &v};
  /* slice rows 1..3, columns 0, 2 */
  AxTAttrs at = {.lo = {1, 0}, .hi = {3, 4}, .step = {1, 2}, .nbound = 2};
  ck_assert(ax_pop_get(AX_OP_SLICE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert(o.rank == 2 && o.dim[0] == 2 && o.dim[1] == 2);
  out = (AxTensor){o, ov};
  ax_pop_get(AX_OP_SLICE)->apply(&F, A, &at, xin, 1, &out);
  ck_assert(ov[0] == 10 && ov[1] == 12 && ov[2] == 20 && ov[3] == 22);
  at.hi[1] = 5;
  ck_assert(!ax_pop_get(AX_OP_SLICE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "axis 1: [0:5] is not a nonempty part of 0..4");
  at.nbound = 1;
  ck_assert(!ax_pop_get(AX_OP_SLICE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "start, limit and stride list 1 axes, the operand [3, 4] has 2");
  /* pad: one row of -1 above, interior 1 between columns, the first column cropped */
  at = (AxTAttrs){.lo = {1, -1}, .hi = {0, 1}, .step = {0, 1}, .nbound = 2};
  ck_assert(ax_pop_get(AX_OP_PAD)->infer(&at, in, 2, &o, err, sizeof err));
  ck_assert(o.rank == 2 && o.dim[0] == 4 && o.dim[1] == 7);   /* -1 + 4 + 3 + 1 */
  out = (AxTensor){o, ov};
  ax_pop_get(AX_OP_PAD)->apply(&F, A, &at, xin, 2, &out);
  double want[7] = {-1, 1, -1, 2, -1, 3, -1};   /* row 1 of the result: x[0] interleaved */
  for (int j = 0; j < 7; j++) ck_assert(ov[j] == -1 && ov[7 + j] == want[j]);
  ck_assert(ov[3 * 7 + 1] == 21 && ov[3 * 7 + 5] == 23);
  at.step[0] = -1;
  ck_assert(!ax_pop_get(AX_OP_PAD)->infer(&at, in, 2, &o, err, sizeof err));
  ck_assert_str_eq(err, "axis 0: the interior padding -1 is negative");
  at = (AxTAttrs){.lo = {-3, 0}, .hi = {0, 0}, .nbound = 2};
  ck_assert(!ax_pop_get(AX_OP_PAD)->infer(&at, in, 2, &o, err, sizeof err));
  ck_assert_str_eq(err, "axis 0: padding -3, 0, 0 leaves 0 elements of 3");
  /* reverse of the last axis */
  at = (AxTAttrs){.shape = {1, {1}}};
  ck_assert(ax_pop_get(AX_OP_REVERSE)->infer(&at, in, 1, &o, err, sizeof err));
  out = (AxTensor){o, ov};
  ax_pop_get(AX_OP_REVERSE)->apply(&F, A, &at, xin, 1, &out);
  for (int i = 0; i < 12; i++) ck_assert(ov[i] == xv[i / 4 * 4 + 3 - i % 4]);
  at = (AxTAttrs){.shape = {1, {2}}};
  ck_assert(!ax_pop_get(AX_OP_REVERSE)->infer(&at, in, 1, &o, err, sizeof err));
  ck_assert_str_eq(err, "axis 2 is not an axis of [3, 4] or is listed twice");
  /* the field: the same moves of the same values */
  uint64_t P, Q;
  ax_field_draw_primes(3, &P, &Q);
  AxRng rng;
  ax_rng_init(&rng, 3, 3);
  AxField f;
  ax_field_init(&f, P, Q, &rng);
  AxTDomain Z = ax_values_field(&f);
  AxFF zx[12], zv = ax_field_random(&f, &rng), zo[12];
  for (int i = 0; i < 12; i++) zx[i] = ax_field_random(&f, &rng);
  AxTensor fx = {xs, zx}, fv = {vs, &zv}, fo = {o, zo};
  const AxTensor *fin[2] = {&fx, &fv};
  at = (AxTAttrs){.shape = {1, {0}}};
  ax_pop_get(AX_OP_REVERSE)->apply(&Z, A, &at, fin, 1, &fo);
  for (int i = 0; i < 12; i++) ck_assert(zo[i].p == zx[(2 - i / 4) * 4 + i % 4].p);
  at = (AxTAttrs){.lo = {0, 0}, .hi = {0, 1}, .step = {0, 0}, .nbound = 2};
  ck_assert(ax_pop_get(AX_OP_PAD)->infer(&at, in, 2, &o, err, sizeof err));
  AxFF zp[15];
  fo = (AxTensor){o, zp};
  ax_pop_get(AX_OP_PAD)->apply(&Z, A, &at, fin, 2, &fo);
  ck_assert(zp[4].p == zv.p && zp[4].q == zv.q && zp[5].p == zx[4].p);
  ax_field_fini(&f);
}
END_TEST

/* What prune.c and generate.c read: the contracted dim and the reduced size. */
START_TEST(reduced) {
  AxTShape a = {2, {6, 8}};
  ck_assert_int_eq(ax_pop_contracted_dim(AX_OP_DOT, &a, -1), 1);
  ck_assert_int_eq(ax_pop_reduced(AX_OP_DOT, &a, -1, 0), 8);
  ck_assert_int_eq(ax_pop_reduced(AX_OP_REDUCE, &a, 0, 2), 3);   /* 6 to 2: 3 per sum */
  ck_assert_int_eq(ax_pop_reduced(AX_OP_MEAN, &a, 1, 0), 8);
  ck_assert_int_eq(ax_pop_reduced(AX_OP_RMS_NORM, &a, 0, 0), 6);
  ck_assert_int_eq(ax_pop_contracted_dim(AX_OP_CONCAT, &a, 0), -1);
  ck_assert_int_eq(ax_pop_reduced(AX_OP_ADD, &a, 0, 0), 1);   /* element-wise: no row */
  ck_assert(ax_pop_literal(AX_OP_CONSTANT) && !ax_pop_literal(AX_OP_INPUT));
  ck_assert(ax_pop_tensor_core(AX_OP_DOT) && !ax_pop_tensor_core(AX_OP_REDUCE));
  ck_assert(ax_pop_get(AX_OP_MEAN)->also & ((uint64_t)1 << AX_OP_REDUCE));
  ck_assert(ax_pop_get(AX_OP_RMS_NORM)->also & ((uint64_t)1 << AX_OP_DIV));
  ck_assert(ax_pop_get(AX_OP_RESHAPE)->free && !ax_pop_get(AX_OP_BROADCAST)->free);
}
END_TEST

/* The pre-defined row kernels' plan (gpu/cuda.c emits it, cost.c prices it): whole warps
 * per row, about 16 elements a lane, at most 8 (a 256-thread block); short rows one warp
 * and 8 a block; a reduction with elements after its axis, or to a size, one thread per
 * column; the grid capped at 65535 blocks. */
START_TEST(rowplan) {
  AxPopRowPlan pl;
  AxTShape x = {2, {16, 4096}};
  ax_pop_rowplan(&x, 1, 0, &pl);
  ck_assert(pl.rows);
  ck_assert_int_eq(pl.outputs, 16);
  ck_assert_int_eq(pl.len, 4096);
  ck_assert_int_eq(pl.stride, 1);
  ck_assert_int_eq(pl.lanes, 256);
  ck_assert_int_eq(pl.per_block, 1);
  ck_assert_int_eq(pl.blocks, 16);
  static const int64_t lens[6] = {24, 512, 1024, 2047, 2048, 100000}, lanes[6] = {32, 32, 64, 64, 128, 256};
  for (int i = 0; i < 6; i++) {
    AxTShape r = {2, {37, lens[i]}};
    ax_pop_rowplan(&r, 1, 1, &pl);
    ck_assert_int_eq(pl.lanes, lanes[i]);
    ck_assert_int_eq(pl.per_block, 256 / lanes[i]);
    ck_assert_int_eq(pl.groups, (37 + pl.per_block - 1) / pl.per_block);
  }
  AxTShape k = {3, {2, 64, 4096}};   /* QKNorm's K over axis 1: 8192 columns of 64 */
  ax_pop_rowplan(&k, 1, 0, &pl);
  ck_assert(!pl.rows);
  ck_assert_int_eq(pl.outputs, 8192);
  ck_assert_int_eq(pl.len, 64);
  ck_assert_int_eq(pl.stride, 4096);
  ck_assert_int_eq(pl.lanes, 1);
  ck_assert_int_eq(pl.blocks, 32);
  AxTShape t = {2, {4, 1000}};   /* a sum to 8: 32 outputs of 125, 8 apart */
  ax_pop_rowplan(&t, 1, 8, &pl);
  ck_assert(!pl.rows);
  ck_assert_int_eq(pl.outputs, 32);
  ck_assert_int_eq(pl.len, 125);
  ck_assert_int_eq(pl.stride, 8);
  AxTShape big = {2, {1000000, 8}};   /* 125000 groups of 8 rows: the grid stops at 65535 */
  ax_pop_rowplan(&big, 1, 0, &pl);
  ck_assert_int_eq(pl.groups, 125000);
  ck_assert_int_eq(pl.blocks, 65535);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pop");
  TCase *t = tcase_create("pop");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_add_test(t, complete);
  tcase_add_test(t, shapes);
  tcase_add_test(t, values);
  tcase_add_test(t, max_values);
  tcase_add_test(t, reduced);
  tcase_add_test(t, rowplan);
  tcase_add_test(t, transpose);
  tcase_add_test(t, window);
  tcase_add_test(t, select_iota);
  suite_add_tcase(s, t);
  return unit_run(s);
}
