/* check_prune.c — abstract expressions in normal form and subexpression decisions. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/parse.h"
#include "superopt/ir/load.h"
#include "superopt/search/prune.h"

START_TEST(normal_forms) {
  AxAbs *t = ax_prune_new();
  AxAId x = ax_prune_var(t, 0), y = ax_prune_var(t, 1), z = ax_prune_var(t, 2);
  AxAId xy[2] = {x, y}, yx[2] = {y, x};
  /* eq_add_comm, eq_mul_comm */
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_ADD, xy, 2, 1), ax_prune_apply(t, AX_OP_ADD, yx, 2, 1));
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_MUL, xy, 2, 1), ax_prune_apply(t, AX_OP_MUL, yx, 2, 1));
  /* eq_mul_assoc */
  AxAId a = ax_prune_mul(t, x, ax_prune_mul(t, y, z)), b = ax_prune_mul(t, ax_prune_mul(t, x, y), z);
  ck_assert_int_eq(a, b);
  /* eq_sum_sum and eq_matmul_tiles: a 64-wide matmul summed over 64 iterations */
  AxAId mm = ax_prune_apply(t, AX_OP_DOT, xy, 2, 64);
  ck_assert_int_eq(ax_prune_sum(t, 64, mm), ax_prune_apply(t, AX_OP_DOT, xy, 2, 4096));
  /* eq_sum_one */
  ck_assert_int_eq(ax_prune_sum(t, 1, x), x);
  /* eq_sum_div, eq_matmul_div: (X / r) W = (X W) / r */
  AxAId r = ax_prune_rms_acc(t, 4096, x);
  AxAId xr[2] = {x, r};
  AxAId left = ax_prune_apply(t, AX_OP_DIV, xr, 2, 1);
  AxAId lw[2] = {left, y};
  AxAId xw_r[2] = {ax_prune_apply(t, AX_OP_DOT, xy, 2, 4096), r};
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_DOT, lw, 2, 4096), ax_prune_apply(t, AX_OP_DIV, xw_r, 2, 1));
  /* eq_rms_def */
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_RMS_NORM, &x, 1, 4096), left);
  /* eq_exp_add */
  AxAId s = ax_prune_apply(t, AX_OP_ADD, xy, 2, 1);
  AxAId ex = ax_prune_apply(t, AX_OP_EXP, &x, 1, 1), ey = ax_prune_apply(t, AX_OP_EXP, &y, 1, 1);
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_EXP, &s, 1, 1), ax_prune_mul(t, ex, ey));
  /* not applied: distributivity (documented) and distinct sizes stay distinct */
  AxAId yz[2] = {y, z};
  AxAId xs[2] = {x, ax_prune_apply(t, AX_OP_ADD, yz, 2, 1)};
  AxAId dist = ax_prune_apply(t, AX_OP_MUL, xs, 2, 1);
  ck_assert_int_ne(dist, ax_prune_apply(t, AX_OP_ADD, (AxAId[]){ax_prune_mul(t, x, y), ax_prune_mul(t, x, z)}, 2, 1));
  ck_assert_int_ne(ax_prune_sum(t, 16, x), ax_prune_sum(t, 32, x));
  ax_prune_free(t);
}
END_TEST

START_TEST(subexpressions) {
  AxAbs *t = ax_prune_new();
  AxAId x = ax_prune_var(t, 0), w = ax_prune_var(t, 1), v = ax_prune_var(t, 2);
  /* spec: rms_norm(X) W over 4096 */
  AxAId y = ax_prune_apply(t, AX_OP_RMS_NORM, &x, 1, 4096);
  AxAId yw[2] = {y, w};
  AxAId spec = ax_prune_apply(t, AX_OP_DOT, yw, 2, 4096);
  ax_prune_set_spec(t, &spec, 1);
  AxAId xw[2] = {x, w};
  ck_assert(ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_DOT, xw, 2, 64)));     /* a tile */
  ck_assert(ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_DOT, xw, 2, 4096)));
  ck_assert(ax_prune_is_sub(t, ax_prune_mul(t, x, x)));
  ck_assert(ax_prune_is_sub(t, ax_prune_rms_acc(t, 4096, x)));
  ck_assert(ax_prune_is_sub(t, ax_prune_sum(t, 4096, ax_prune_mul(t, x, x))));
  ck_assert(ax_prune_is_sub(t, spec));
  /* not subexpressions: a partial rms, an exp, a foreign input, a sum that does not divide */
  ck_assert(!ax_prune_is_sub(t, ax_prune_rms_acc(t, 64, x)));
  /* the root of the sum without its 1/n is another value */
  ck_assert(!ax_prune_is_sub(t, ax_prune_sqrt(t, ax_prune_sum(t, 4096, ax_prune_mul(t, x, x)))));
  ck_assert(!ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_EXP, &x, 1, 1)));
  ck_assert(!ax_prune_is_sub(t, ax_prune_mul(t, x, v)));
  ck_assert(!ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_DOT, xw, 2, 3)));
  /* decisions are cached */
  long computed, cached;
  ax_prune_stats(t, &computed, &cached);
  ck_assert(ax_prune_is_sub(t, spec));
  long c2, k2;
  ax_prune_stats(t, &c2, &k2);
  ck_assert_int_eq(c2, computed);
  ck_assert_int_eq(k2, cached + 1);
  ax_prune_free(t);
}
END_TEST

/* --- the hand-written examples survive pruning and reach their program's expression ---- */

typedef struct Walk {
  AxAbs *t;
  AxAId *kt;       /* per kernel tensor */
  int pruned;      /* tensors whose expression is not a subexpression */
} Walk;

static AxAId apply_op(AxAbs *t, AxOp op, const AxTAttrs *at, const AxAId *in, int nin,
                      const AxTShape *s0) {
  int64_t red = 1;
  if (op == AX_OP_DOT) red = s0->dim[s0->rank - 1];
  else if (op == AX_OP_REDUCE || op == AX_OP_MEAN || op == AX_OP_RMS_NORM || op == AX_OP_REDUCE_MAX)
    red = s0->dim[at->axis] / (at->to > 0 ? at->to : 1);
  return ax_prune_apply(t, op, in, nin, red);
}

/* Expressions of every tensor of validated g, inputs numbered in order. */
static void walk(Walk *w, const AxMugraph *g, bool check) {
  int input = 0;
  for (int t = 0; t < g->ntensors; t++)
    if (g->tensors[t].anon) w->kt[t] = ax_prune_const(w->t, g->tensors[t].value);
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *st = &g->stmts[i];
    if (st->kind == AX_KS_INPUT) {
      w->kt[st->t] = ax_prune_var(w->t, input++);
    } else if (st->kind == AX_KS_OP) {
      AxAId in[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) in[j] = w->kt[st->in[j]];
      w->kt[st->t] = apply_op(w->t, st->op, &st->at, in, st->nin,
                              st->nin ? &g->tensors[st->in[0]].shape : NULL);
      if (check && !ax_prune_is_sub(w->t, w->kt[st->t])) w->pruned++;
    } else if (st->kind == AX_KS_KERNEL) {
      const AxKernel *k = st->kernel;
      AxAId *e = calloc((size_t)k->nnodes + 1, sizeof(AxAId));
      for (int n = 0; n < k->nnodes; n++) {
        const AxBNode *b = &k->nodes[n];
        const AxBNode *a = b->nin ? &k->nodes[b->in[0]] : NULL;
        AxAId in[AX_MAXIN];
        for (int j = 0; j < b->nin; j++) in[j] = e[b->in[j]];
        switch (b->kind) {
        case AX_BN_ITER: e[n] = w->kt[b->src]; break;
        case AX_BN_OP:
          e[n] = b->anon ? ax_prune_const(w->t, b->at.value)
                         : apply_op(w->t, b->op, &b->at, in, b->nin, a ? &a->shape : NULL);
          break;
        case AX_BN_ACCUM: {
          int64_t r = a->phase == AX_PH_LOOP ? k->forloop : 1;
          int64_t m = b->at.axis_set ? a->shape.dim[b->at.axis] / (b->at.to > 0 ? b->at.to : 1) : 1;
          /* a rescaled sum is the sum its rescaling telescopes to; a running max is the
           * max over everything the loop walks (prune.h) */
          if (b->acc == AX_ACC_CONCAT) e[n] = in[0];
          else if (b->acc == AX_ACC_SUM) e[n] = ax_prune_sum(w->t, r * m, in[0]);
          else if (b->acc == AX_ACC_MAX) e[n] = ax_prune_extremum(w->t, AX_OP_REDUCE_MAX, r * a->shape.dim[b->at.axis], in[0]);
          else e[n] = ax_prune_rms_acc(w->t, r * a->shape.dim[b->at.axis], in[0]);
          break;
        }
        case AX_BN_SAVE: e[n] = in[0]; w->kt[b->dst] = in[0]; break;
        }
        if (check && b->kind != AX_BN_ITER && !ax_prune_is_sub(w->t, e[n])) w->pruned++;
      }
      free(e);
    }
  }
}

static AxMugraph *load(AxArena *a, const char *path, bool prog) {
  AxDiag d;
  ax_diag_init(&d, stderr);
  AxMugraph *g = ax_load_from_file(a, &d, path, &(AxLoadOpts){.kind = prog ? AX_LOAD_PROGRAM : AX_LOAD_MUGRAPH});
  ck_assert(g);
  return g;
}

/* Every tensor of graph DIR/MUG.mug survives pruning against program DIR/AXL.axl, and its
 * outputs reach the program's expressions. */
static void survives(const char *dir, const char *axl, const char *mug) {
  const char *root = getenv("AXLE_SRC");
  ck_assert(root);
  AxArena *a = ax_arena_new();
  char pp[1024], mp[1024];
  snprintf(pp, sizeof pp, "%s/%s/%s.axl", root, dir, axl);
  snprintf(mp, sizeof mp, "%s/%s/%s.mug", root, dir, mug);
  AxMugraph *p = load(a, pp, true), *m = load(a, mp, false);
  Walk w = {ax_prune_new(), NULL, 0};
  w.kt = calloc((size_t)p->ntensors, sizeof(AxAId));
  walk(&w, p, false);
  AxAId *spec = calloc((size_t)p->noutputs, sizeof(AxAId));
  for (int o = 0; o < p->noutputs; o++) spec[o] = w.kt[p->outputs[o]];
  ax_prune_set_spec(w.t, spec, p->noutputs);
  free(w.kt);
  w.kt = calloc((size_t)m->ntensors, sizeof(AxAId));
  walk(&w, m, true);
  ck_assert_msg(w.pruned == 0, "%s: %d tensors of the graph would be pruned", mug, w.pruned);
  for (int o = 0; o < m->noutputs; o++)
    ck_assert_msg(w.kt[m->outputs[o]] == spec[o], "%s: output %d does not reach the program's expression", mug, o);
  free(spec);
  free(w.kt);
  ax_prune_free(w.t);
  ax_arena_free(a);
}

START_TEST(examples_survive_pruning) {
  static const char *const names[] = {"rmsnorm_linear", "gated_mlp", "lora", "gqa", "qknorm", "ntrans"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) survives("superopt/examples", names[i], names[i]);
}
END_TEST

/* Online softmax: a max is an uninterpreted function of its operand and size; the shift
 * x - max(x), no node of the normal form (exp of it is a product), survives through its
 * exponential; the online graphs, hand-written and as the search builds them, survive and
 * reach the programs' expressions (running max = final max, rescaled sum = plain sum). */
START_TEST(online_softmax) {
  AxAbs *t = ax_prune_new();
  AxAId x = ax_prune_var(t, 0);
  AxAId m64 = ax_prune_apply(t, AX_OP_REDUCE_MAX, &x, 1, 64);
  ck_assert_int_eq(m64, ax_prune_extremum(t, AX_OP_REDUCE_MAX, 64, x));
  ck_assert_int_ne(m64, ax_prune_extremum(t, AX_OP_REDUCE_MAX, 16, x));
  ck_assert_int_ne(m64, ax_prune_apply(t, AX_OP_REDUCE_MIN, &x, 1, 64));
  AxAId xm[2] = {x, m64};
  AxAId d = ax_prune_apply(t, AX_OP_SUB, xm, 2, 1), e = ax_prune_apply(t, AX_OP_EXP, &d, 1, 1);
  AxAId se[2] = {e, ax_prune_sum(t, 64, e)};
  AxAId o = ax_prune_apply(t, AX_OP_DIV, se, 2, 1);
  ax_prune_set_spec(t, &o, 1);
  ck_assert(ax_prune_is_sub(t, d));
  ck_assert(ax_prune_is_sub(t, e));
  /* the shift by a max over a tile, or a sum of x shifted by a max, is no part of it */
  AxAId xm16[2] = {x, ax_prune_extremum(t, AX_OP_REDUCE_MAX, 16, x)};
  ck_assert(!ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_SUB, xm16, 2, 1)));
  ck_assert(!ax_prune_is_sub(t, ax_prune_sum(t, 64, d)));
  ax_prune_free(t);
  survives("tests/superopt", "softmax_max", "softmax_max.online");
  survives("tests/superopt", "softmax_max", "softmax_max.searched");
  survives("tests/superopt", "attn_max", "attn_max.flash");
  survives("tests/superopt", "attn_max", "attn_max.searched");
}
END_TEST

/* A masked select is opaque: one term per mask and operand, a subexpression only where the
 * spec has the same mask of the same operand, no axiom through it. */
START_TEST(masked_select) {
  AxAbs *t = ax_prune_new();
  AxAId x = ax_prune_var(t, 0), y = ax_prune_var(t, 1);
  AxAId m0 = ax_prune_masked(t, 0, x);
  ck_assert_int_eq(m0, ax_prune_masked(t, 0, x));
  ck_assert_int_ne(m0, ax_prune_masked(t, 1, x));
  ck_assert_int_ne(m0, ax_prune_masked(t, 0, y));
  ck_assert_int_ne(m0, x);
  ck_assert_int_eq(ax_prune_masked(t, 0, -1), -1);
  AxAId e = ax_prune_apply(t, AX_OP_EXP, &m0, 1, 1);
  AxAId o = ax_prune_sum(t, 64, e);
  ax_prune_set_spec(t, &o, 1);
  ck_assert(ax_prune_is_sub(t, m0));
  ck_assert(ax_prune_is_sub(t, e));
  ck_assert(!ax_prune_is_sub(t, ax_prune_masked(t, 1, x)));
  ck_assert(!ax_prune_is_sub(t, ax_prune_apply(t, AX_OP_EXP, &x, 1, 1)));
  /* a sum does not move through it: the mask of a sum is not the sum of masks */
  AxAId sx = ax_prune_sum(t, 4, x);
  ck_assert_int_ne(ax_prune_masked(t, 0, sx), ax_prune_sum(t, 4, m0));
  ax_prune_free(t);
}
END_TEST

static AxAId k(AxAbs *t, int64_t num, int64_t den) { return ax_prune_const(t, (AxRat){num, den}); }
static AxAId ap2(AxAbs *t, AxOp op, AxAId a, AxAId b, int64_t red) {
  AxAId in[2] = {a, b};
  return ax_prune_apply(t, op, in, 2, red);
}
static AxAId ap1(AxAbs *t, AxOp op, AxAId a) { return ax_prune_apply(t, op, &a, 1, 1); }

/* Constants: one term per value, folded in products and additions, moved through sums and
 * matmuls; hand-written forms meet their operators. */
START_TEST(constants) {
  AxAbs *t = ax_prune_new();
  AxAId a = ax_prune_var(t, 0), b = ax_prune_var(t, 1), y = ax_prune_var(t, 2);
  /* same value, same term: 8/16 = 1/2 = 0.5; 1 is the unit; other values differ */
  ck_assert_int_eq(k(t, 8, 16), k(t, 1, 2));
  ck_assert_int_eq(k(t, -3, -6), k(t, 1, 2));
  ck_assert_int_ne(k(t, 1, 2), k(t, -1, 2));
  ck_assert_int_ne(k(t, 1, 3), k(t, 333333, 1000000));
  AxRat v;
  ck_assert(ax_prune_const_value(t, ap2(t, AX_OP_DIV, k(t, 8, 1), k(t, 16, 1), 1), &v));
  ck_assert(v.num == 1 && v.den == 2);
  /* eq_const_mul, eq_const_div: (a · 8) / 16 = a · 0.5 = a / 2 */
  AxAId half_a = ap2(t, AX_OP_MUL, a, k(t, 1, 2), 1);
  ck_assert_int_eq(ap2(t, AX_OP_DIV, ap2(t, AX_OP_MUL, a, k(t, 8, 1), 1), k(t, 16, 1), 1), half_a);
  ck_assert_int_eq(ap2(t, AX_OP_DIV, a, k(t, 2, 1), 1), half_a);
  ck_assert_int_ne(ap2(t, AX_OP_MUL, a, k(t, 1, 3), 1), half_a);
  /* eq_const_add, eq_add_zero: (a + 0.25) + 0.75 = a + 1; a + 0 = a */
  ck_assert_int_eq(ap2(t, AX_OP_ADD, ap2(t, AX_OP_ADD, a, k(t, 1, 4), 1), k(t, 3, 4), 1),
                   ap2(t, AX_OP_ADD, a, k(t, 1, 1), 1));
  ck_assert_int_eq(ap2(t, AX_OP_ADD, a, k(t, 0, 1), 1), a);
  /* eq_matmul_scale, eq_sum_scale: c·(A@B) = (c·A)@B = A@(c·B) */
  AxAId c = k(t, 1, 8);
  AxAId cab = ap2(t, AX_OP_MUL, ap2(t, AX_OP_DOT, a, b, 64), c, 1);
  ck_assert_int_eq(ap2(t, AX_OP_DOT, ap2(t, AX_OP_MUL, a, c, 1), b, 64), cab);
  ck_assert_int_eq(ap2(t, AX_OP_DOT, a, ap2(t, AX_OP_MUL, c, b, 1), 64), cab);
  ck_assert_int_ne(ap2(t, AX_OP_DOT, a, b, 64), cab);
  /* the constant of a divisor: (c·sum(x))^-1 = c^-1 · sum(x)^-1 */
  AxAId s = ax_prune_apply(t, AX_OP_REDUCE, &a, 1, 64);
  ck_assert_int_eq(ap2(t, AX_OP_DIV, b, ap2(t, AX_OP_MUL, s, k(t, 4, 1), 1), 1),
                   ap2(t, AX_OP_DIV, ap2(t, AX_OP_MUL, b, k(t, 1, 4), 1), s, 1));
  /* eq_neg_def, eq_sub_def: a - b = a + (-b) = a + b · -1 */
  ck_assert_int_eq(ap2(t, AX_OP_SUB, a, b, 1), ap2(t, AX_OP_ADD, a, ap1(t, AX_OP_NEG, b), 1));
  ck_assert_int_ne(ap2(t, AX_OP_SUB, a, b, 1), ap2(t, AX_OP_ADD, a, b, 1));
  /* mean-centring: a - mean(a) = a - sum(a) / 64 */
  AxAId mean = ax_prune_apply(t, AX_OP_MEAN, &a, 1, 64);
  ck_assert_int_eq(ap2(t, AX_OP_SUB, a, mean, 1), ap2(t, AX_OP_SUB, a, ap2(t, AX_OP_DIV, s, k(t, 64, 1), 1), 1));
  ck_assert_int_ne(mean, s);
  /* eq_rsqrt_def: a · rsqrt(y) = a / sqrt(y) */
  ck_assert_int_eq(ap2(t, AX_OP_MUL, a, ap1(t, AX_OP_RSQRT, y), 1), ap2(t, AX_OP_DIV, a, ap1(t, AX_OP_SQRT, y), 1));
  /* eq_silu_def: silu(a) = a · logistic(a) = a / (1 + exp(-a)) */
  AxAId by_hand = ap2(t, AX_OP_DIV, a, ap2(t, AX_OP_ADD, k(t, 1, 1), ap1(t, AX_OP_EXP, ap1(t, AX_OP_NEG, a)), 1), 1);
  ck_assert_int_eq(ap1(t, AX_OP_SILU, a), by_hand);
  ck_assert_int_eq(ap2(t, AX_OP_MUL, a, ap1(t, AX_OP_LOGISTIC, a), 1), by_hand);
  ck_assert_int_ne(ap1(t, AX_OP_SILU, a), ap1(t, AX_OP_LOGISTIC, a));
  /* eq_rms_def: rms_norm(a) = a / sqrt(mean(square(a))) */
  AxAId sq = ap1(t, AX_OP_SQUARE, a);
  AxAId rms = ap2(t, AX_OP_DIV, a, ap1(t, AX_OP_SQRT, ax_prune_apply(t, AX_OP_MEAN, &sq, 1, 64)), 1);
  ck_assert_int_eq(ax_prune_apply(t, AX_OP_RMS_NORM, &a, 1, 64), rms);
  /* the spec offers its constants to the generator; a prefix with another constant is pruned */
  ax_prune_set_spec(t, &cab, 1);
  AxAId cs[4];
  ck_assert_int_eq(ax_prune_spec_consts(t, false, cs, 4), 1);
  ck_assert_int_eq(cs[0], c);
  ck_assert_int_eq(ax_prune_spec_consts(t, true, cs, 4), 0);
  ck_assert(ax_prune_is_sub(t, ap2(t, AX_OP_MUL, a, c, 1)));
  ck_assert(ax_prune_is_sub(t, ap2(t, AX_OP_DOT, a, b, 64)));
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_MUL, a, k(t, 1, 4), 1)));
  ax_prune_free(t);
}
END_TEST

/* Constants with a sign: c·A + B is B + c·A; in a − c·B the subtracted part carries −c, and
 * a prefix c·B (or −c·B) of it survives — a constant factor also stands for its negation —
 * while 2c·B, or c·B with a larger exponent, does not; an addition's constant term matches
 * only the same value. */
START_TEST(signed_constants) {
  AxAbs *t = ax_prune_new();
  AxAId a = ax_prune_var(t, 0), b = ax_prune_var(t, 1), x = ax_prune_var(t, 2);
  AxAId c = k(t, 3, 8), cb = ap2(t, AX_OP_MUL, c, b, 1);
  ck_assert_int_eq(ap2(t, AX_OP_ADD, ap2(t, AX_OP_MUL, c, a, 1), b, 1),
                   ap2(t, AX_OP_ADD, b, ap2(t, AX_OP_MUL, a, c, 1), 1));
  AxAId diff = ap2(t, AX_OP_SUB, a, cb, 1);
  ck_assert_int_eq(diff, ap2(t, AX_OP_ADD, a, ap2(t, AX_OP_MUL, b, k(t, -3, 8), 1), 1));
  ck_assert_int_ne(diff, ap2(t, AX_OP_ADD, a, cb, 1));
  /* spec: (a − c·B) · x and a sum with a constant term, a + x + 1/2 */
  AxAId half = k(t, 1, 2);
  AxAId spec[2] = {ap2(t, AX_OP_MUL, diff, x, 1), ap2(t, AX_OP_ADD, ap2(t, AX_OP_ADD, a, x, 1), half, 1)};
  ax_prune_set_spec(t, spec, 2);
  ck_assert(ax_prune_is_sub(t, diff));
  ck_assert(ax_prune_is_sub(t, cb));                                    /* c for −c */
  ck_assert(ax_prune_is_sub(t, ap2(t, AX_OP_MUL, b, k(t, -3, 8), 1)));   /* −c itself */
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_MUL, b, k(t, 3, 4), 1)));   /* 2c */
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_MUL, cb, b, 1)));           /* c·B² */
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_ADD, a, cb, 1)));           /* a + c·B */
  ck_assert(ax_prune_is_sub(t, ap2(t, AX_OP_ADD, a, half, 1)));          /* the same term */
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_ADD, a, k(t, -1, 2), 1)));  /* not its negation */
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_ADD, a, k(t, 1, 4), 1)));
  ck_assert(!ax_prune_is_sub(t, ap2(t, AX_OP_ADD, b, half, 1)));
  ax_prune_free(t);
}
END_TEST

START_TEST(axiom_names) {
  int n;
  const char *const *names = ax_prune_axioms(&n);
  ck_assert_int_ge(n, 10);
  for (int i = 0; i < n; i++) ck_assert(strncmp(names[i], "eq_", 3) == 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("prune");
  TCase *t = tcase_create("prune");
  tcase_add_test(t, normal_forms);
  tcase_add_test(t, constants);
  tcase_add_test(t, signed_constants);
  tcase_add_test(t, subexpressions);
  tcase_add_test(t, examples_survive_pruning);
  tcase_add_test(t, online_softmax);
  tcase_add_test(t, masked_select);
  tcase_add_test(t, axiom_names);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
