/* mugraph.c — μGraph validation: shapes, partitions, phases, shared memory. */
#include "superopt/ir/mugraph.h"

#include <inttypes.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"
#include "superopt/ir/tensorop.h"

static const char *const gaxis = "xyz";

const char *ax_mug_acc_name(AxAccKind k) {
  static const char *const names[] = {
      [AX_ACC_SUM] = "sum", [AX_ACC_CONCAT] = "concat", [AX_ACC_RMS] = "rms", [AX_ACC_MAX] = "max"};
  return names[k];
}

bool ax_mug_running(const AxBNode *n) { return n->kind == AX_BN_ACCUM && n->acc == AX_ACC_MAX; }

const char *ax_mug_phase_name(AxPhase p) {
  static const char *const names[] = {
      [AX_PH_INVARIANT] = "invariant", [AX_PH_LOOP] = "loop", [AX_PH_POST] = "post"};
  return names[p];
}

void *ax_mug_grow(AxArena *a, void *arr, int n, int *cap, size_t esz) {
  if (n < *cap) return arr;
  int nc = *cap ? 2 * *cap : 8;
  void *na = ax_arena_alloc(a, (size_t)nc * esz);
  if (n) memcpy(na, arr, (size_t)n * esz);
  *cap = nc;
  return na;
}

int ax_mug_new_tensor(AxArena *a, AxMugraph *g, int *cap) {
  g->tensors = ax_mug_grow(a, g->tensors, g->ntensors, cap, sizeof *g->tensors);
  memset(&g->tensors[g->ntensors], 0, sizeof *g->tensors);
  return g->ntensors++;
}

AxKStmt *ax_mug_new_stmt(AxArena *a, AxMugraph *g, int *cap) {
  g->stmts = ax_mug_grow(a, g->stmts, g->nstmts, cap, sizeof *g->stmts);
  AxKStmt *s = &g->stmts[g->nstmts++];
  memset(s, 0, sizeof *s);
  return s;
}

int ax_mug_find(const AxMugraph *g, const char *name) {
  for (int i = 0; i < g->ntensors; i++)
    if (!g->tensors[i].anon && strcmp(g->tensors[i].name, name) == 0) return i;
  return -1;
}

int ax_mug_find_node(const AxKernel *k, const char *name, int before) {
  for (int i = before - 1; i >= 0; i--)
    if (!k->nodes[i].anon && k->nodes[i].kind != AX_BN_SAVE && strcmp(k->nodes[i].name, name) == 0)
      return i;
  return -1;
}

void ax_mug_tile(const AxTShape *full, const int *map, int fmap, const int64_t *grid, int64_t r,
                 const int64_t *b, int64_t it, AxTShape *tile, int64_t *off) {
  tile->rank = full->rank;
  for (int d = 0; d < full->rank; d++) {
    int64_t parts = 1, h = 0;
    for (int g = 0; g < 3; g++)
      if (map[g] == d) {
        parts *= grid[g];
        h = h * grid[g] + (b ? b[g] : 0);
      }
    int64_t chunk = full->dim[d] / parts;
    tile->dim[d] = chunk;
    if (off) off[d] = h * chunk;
    if (fmap == d) {
      tile->dim[d] = chunk / r;
      if (off) off[d] += it * tile->dim[d];
    }
  }
}

/* Checks that every dim of `full` divides by its partition; reports at span. */
static bool check_split(AxDiag *d, AxSpan at, const char *kname, const char *what,
                        const char *node, const char *tname, const AxTShape *full, const int *map,
                        int fmap, const int64_t *grid, int64_t r) {
  bool ok = true;
  for (int dim = 0; dim < full->rank; dim++) {
    int64_t parts = 1;
    char how[64] = "";
    size_t used = 0;
    for (int g = 0; g < 3; g++)
      if (map[g] == dim) {
        parts *= grid[g];
        used += (size_t)snprintf(how + used, sizeof how - used, "%sgrid.%c (%" PRId64 ")",
                                 used ? " x " : "", gaxis[g], grid[g]);
      }
    if (fmap == dim) {
      parts *= r;
      snprintf(how + used, sizeof how - used, "%sforloop (%" PRId64 ")", used ? " x " : "", r);
    }
    if (full->dim[dim] % parts != 0) {
      ax_diag_error(d, at,
                    "kernel '%s': %s '%s': dim %d of '%s' (size %" PRId64
                    ") is not divisible by %s",
                    kname, what, node, dim, tname, full->dim[dim], how);
      ok = false;
    }
  }
  return ok;
}

static bool check_maps(AxDiag *d, AxSpan at, const char *kname, const char *what,
                       const char *node, const int *map, int fmap, int rank) {
  bool ok = true;
  for (int g = 0; g < 3; g++)
    if (map[g] >= rank) {
      ax_diag_error(d, at, "kernel '%s': %s '%s': grid.%c maps to dim %d, but the tensor has rank %d",
                    kname, what, node, gaxis[g], map[g], rank);
      ok = false;
    }
  if (fmap >= rank) {
    ax_diag_error(d, at, "kernel '%s': %s '%s': fmap names dim %d, but the tensor has rank %d",
                  kname, what, node, fmap, rank);
    ok = false;
  }
  return ok;
}

/* Grid, block and for-loop sizes: positive and within the limits of one launch. */
static bool check_launch(const AxKernel *k, AxDiag *d) {
  for (int i = 0; i < 3; i++)
    if (k->grid[i] < 1 || k->block[i] < 1) {
      ax_diag_error(d, k->span, "kernel '%s': grid and block dimensions must be at least 1", k->name);
      return false;
    }
  if (k->forloop < 1) {
    ax_diag_error(d, k->span, "kernel '%s': the for-loop range must be at least 1", k->name);
    return false;
  }
  if (k->grid[0] * k->grid[1] * k->grid[2] > AX_MUG_MAX_BLOCKS || k->forloop > AX_MUG_MAX_BLOCKS ||
      k->block[0] * k->block[1] * k->block[2] > 1024) {
    ax_diag_error(d, k->span, "kernel '%s': at most %d blocks, %d iterations and 1024 threads per block",
                  k->name, AX_MUG_MAX_BLOCKS, AX_MUG_MAX_BLOCKS);
    return false;
  }
  return true;
}

/* One block node's check: sets its shape, dtype and phase from its (checked) operands and
 * reports what is wrong with it. Returns false after an error. ORDER: AxBNodeKind. */
typedef bool (*NodeCheck)(AxMugraph *g, AxKernel *k, AxBNode *n, AxDiag *d);

/* An input iterator: its maps fit the tensor, which its partition divides evenly. */
static bool check_iter(AxMugraph *g, AxKernel *k, AxBNode *n, AxDiag *d) {
  const AxKTensor *src = &g->tensors[n->src];
  bool ok = check_maps(d, n->span, k->name, "input", n->name, n->imap, n->fmap, src->shape.rank) &&
            check_split(d, n->span, k->name, "input", n->name, src->name, &src->shape, n->imap,
                        n->fmap, k->grid, k->forloop);
  if (ok) ax_mug_tile(&src->shape, n->imap, n->fmap, k->grid, k->forloop, NULL, 0, &n->shape, NULL);
  n->dtype = src->dtype;
  n->phase = n->fmap >= 0 ? AX_PH_LOOP : AX_PH_INVARIANT;
  return ok;
}

/* A block iota: the kernel-level iota of its shape (already inferred into n->shape), cut
 * by its imap and fmap as an input iterator cuts a tensor; its tile is the node's shape,
 * and like an iterator it is a loop value when the for-loop advances along it. */
static bool check_iota(AxKernel *k, AxBNode *n, AxDiag *d) {
  AxTShape full = n->shape;
  bool ok = check_maps(d, n->span, k->name, "iota", n->name, n->imap, n->fmap, full.rank) &&
            check_split(d, n->span, k->name, "iota", n->name, n->name, &full, n->imap, n->fmap,
                        k->grid, k->forloop);
  if (ok) ax_mug_tile(&full, n->imap, n->fmap, k->grid, k->forloop, NULL, 0, &n->shape, NULL);
  n->dtype = AX_DT_F32;
  n->phase = n->fmap >= 0 ? AX_PH_LOOP : AX_PH_INVARIANT;
  return ok;
}

/* The one element type of an operator's operands, as a program requires it (program.c):
 * every operand that is not an inline literal has the same type (a literal adapts), so that
 * a value is only ever rounded to a narrower type by an explicit conversion (to_f16,
 * to_bf16, to_f32). Otherwise the first operand's type would decide, and add(x_bf16, y_f32)
 * would store y's f32 value silently rounded to bf16, a rounding that no finite-field test
 * sees (the field reads only the conversion operators as roundings). Reports the first
 * operand whose type differs (at its span, else at `at`) and returns false; *dt gets the
 * type (f32 when every operand is a literal). */
static bool one_dtype(AxDiag *d, AxSpan at, const char *where, AxOp op, const char *name,
                      const AxDtype *dts, const bool *lit, const char *const *names,
                      const AxSpan *spans, int nin, AxDtype *dt) {
  int first = -1;
  *dt = AX_DT_F32;
  for (int j = 0; j < nin; j++) {
    if (lit[j]) continue;
    if (first < 0) {
      first = j;
      *dt = dts[j];
    } else if (dts[j] != *dt) {
      ax_diag_error(d, spans[j].src ? spans[j] : at,
                    "%s'%s' ('%s'): operands have different element types ('%s' is %s, '%s' is "
                    "%s); convert one explicitly (to_f16, to_bf16, to_f32)",
                    where, ax_op_pname(op), name, names[first], ax_dtype_name(*dt), names[j],
                    ax_dtype_name(dts[j]));
      return false;
    }
  }
  return true;
}

/* A block operator: allowed at the block level (element-wise inside a thread graph), of
 * one phase (never the loop's and the post phase's values together), shapes inferred. */
static bool check_op(AxMugraph *g, AxKernel *k, AxBNode *n, AxDiag *d) {
  (void)g;
  char msg[256];
  bool ok = true;
  if (ax_pop_literal(n->op)) {   /* an inline literal: a scalar, no memory */
    n->shape.rank = 0;
    n->phase = AX_PH_INVARIANT;
    n->dtype = AX_DT_F32;
    return true;
  }
  if (!(ax_op_spec(n->op)->levels & AX_LV_BLOCK)) {
    ax_diag_error(d, n->span, "kernel '%s': '%s' is not a block operator (use it at the kernel level)",
                  k->name, ax_op_pname(n->op));
    return false;
  }
  if (n->thread >= 0 && !ax_op_is_elementwise(n->op)) {
    ax_diag_error(d, n->span, "kernel '%s': thread graph: '%s' is not element-wise",
                  k->name, ax_op_pname(n->op));
    ok = false;
  }
  const AxTShape *ins[AX_MAXIN];
  AxDtype dts[AX_MAXIN];
  bool lit[AX_MAXIN];
  const char *names[AX_MAXIN];
  bool has_loop = false, has_post = false;
  int loop_in = -1, post_in = -1;
  bool has_running = false;
  for (int j = 0; j < n->nin; j++) {
    const AxBNode *a = &k->nodes[n->in[j]];
    ins[j] = &a->shape;
    dts[j] = a->dtype, lit[j] = a->anon, names[j] = a->name;
    /* a running max goes with either phase: the loop reads its running value, the post
     * phase its final one */
    if (ax_mug_running(a)) has_running = true;
    else if (a->phase == AX_PH_LOOP) has_loop = true, loop_in = n->in[j];
    else if (a->phase == AX_PH_POST) has_post = true, post_in = n->in[j];
  }
  char where[160];
  snprintf(where, sizeof where, "kernel '%s': operator ", k->name);
  if (!one_dtype(d, n->span, where, n->op, n->name, dts, lit, names, n->in_span, n->nin, &n->dtype))
    return false;
  /* the kernel level's rule and the program's: a conversion's result has its own type,
   * every other operator's its operands' (ax_ewop_result_dtype) */
  n->dtype = (AxDtype)ax_ewop_result_dtype(n->op, (int)n->dtype);
  if (has_running && !has_loop) has_post = true;
  if (has_loop && has_post && k->forloop > 1 && post_in >= 0) {
    ax_diag_error(d, n->span,
                  "kernel '%s': '%s' mixes '%s', computed in every iteration, with '%s', "
                  "computed after the loop",
                  k->name, n->name, k->nodes[loop_in].name, k->nodes[post_in].name);
    ok = false;
  }
  n->phase = has_loop ? AX_PH_LOOP : has_post ? AX_PH_POST : AX_PH_INVARIANT;
  if (has_post && (post_in >= 0 || k->forloop == 1)) n->phase = AX_PH_POST;
  if (!ok) return false;
  if (!ax_tensorop_infer(n->op, &n->at, ins, n->nin, &n->shape, msg, sizeof msg)) {
    ax_diag_error(d, n->span, "kernel '%s': operator '%s' ('%s'): %s", k->name,
                  ax_op_pname(n->op), n->name, msg);
    return false;
  }
  if (n->op == AX_OP_IOTA) return check_iota(k, n, d);
  return true;
}

/* `rescale = m`: only a sum is rescaled, and only by a max accumulator of the same kernel
 * (the parser resolves the name among the nodes before it, so m is updated first in every
 * iteration and the factor exp(m_prev - m_new) is this iteration's). */
static bool check_rescale(const AxKernel *k, const AxBNode *n, AxDiag *d) {
  if (!n->rescaled) return true;
  const AxBNode *m = &k->nodes[n->rescale];
  if (n->acc != AX_ACC_SUM) {
    ax_diag_error(d, n->span, "kernel '%s': accumulator '%s': only accum sum takes 'rescale'", k->name, n->name);
    return false;
  }
  if (!ax_mug_running(m)) {
    ax_diag_error(d, n->span,
                  "kernel '%s': accumulator '%s': rescale names '%s', which is not a max accumulator (accum max)",
                  k->name, n->name, m->name);
    return false;
  }
  return true;
}

/* The running max multiplies the state element-wise: its shape must broadcast onto the
 * state's (same rank, each dim equal or 1). */
static bool check_rescale_shape(const AxKernel *k, const AxBNode *n, AxDiag *d) {
  if (!n->rescaled) return true;
  const AxBNode *m = &k->nodes[n->rescale];
  bool ok = m->shape.rank == n->shape.rank;
  for (int i = 0; ok && i < n->shape.rank; i++)
    ok = m->shape.dim[i] == 1 || m->shape.dim[i] == n->shape.dim[i];
  if (!ok) {
    char b1[96], b2[96];
    ax_diag_error(d, n->span,
                  "kernel '%s': accumulator '%s': its rescale '%s' %s does not broadcast onto its state %s",
                  k->name, n->name, m->name, ax_shape_str(&m->shape, b1, sizeof b1),
                  ax_shape_str(&n->shape, b2, sizeof b2));
  }
  return ok;
}

/* An accumulator: of a value computed in the loop; its axis (last by default) in range;
 * concat multiplies the axis by the range, rms and max keep one element, sum keeps `to`
 * (max and sum without an axis: element-wise over the iterations). */
static bool check_accum(AxMugraph *g, AxKernel *k, AxBNode *n, AxDiag *d) {
  (void)g;
  char b1[96];
  const AxBNode *a = &k->nodes[n->in[0]];
  n->dtype = a->dtype;
  n->phase = AX_PH_POST;
  if (a->phase == AX_PH_POST) {
    ax_diag_error(d, n->span, "kernel '%s': accumulator '%s' accumulates '%s', which is computed after the loop",
                  k->name, n->name, a->name);
    return false;
  }
  n->shape = a->shape;
  if (!check_rescale(k, n, d)) return false;
  if ((n->acc == AX_ACC_SUM || n->acc == AX_ACC_MAX) && !n->at.axis_set) return check_rescale_shape(k, n, d);
  if (n->shape.rank == 0) {
    ax_diag_error(d, n->span, "kernel '%s': accumulator '%s' needs an operand with dimensions", k->name, n->name);
    return false;
  }
  if (!n->at.axis_set) n->at.axis = n->shape.rank - 1, n->at.axis_set = true;
  if (n->at.axis < 0) n->at.axis += n->shape.rank;
  if (n->at.axis < 0 || n->at.axis >= n->shape.rank) {
    ax_diag_error(d, n->span, "kernel '%s': accumulator '%s': axis out of range for %s", k->name,
                  n->name, ax_shape_str(&a->shape, b1, sizeof b1));
    return false;
  }
  int64_t len = n->shape.dim[n->at.axis];
  if (n->acc == AX_ACC_CONCAT) {
    n->shape.dim[n->at.axis] = len * k->forloop;
  } else if (n->acc == AX_ACC_RMS || n->acc == AX_ACC_MAX) {
    n->shape.dim[n->at.axis] = 1;
  } else {
    int64_t to = n->at.to ? n->at.to : 1;
    n->shape.dim[n->at.axis] = to;
    if (to < 1 || len % to) {
      ax_diag_error(d, n->span, "kernel '%s': accumulator '%s': cannot sum axis %d of size %" PRId64 " to %" PRId64,
                    k->name, n->name, n->at.axis, len, to);
      return false;
    }
  }
  return check_rescale_shape(k, n, d);
}

/* An output saver: of a value that is final after the loop, every grid axis of size > 1
 * mapped (else blocks overwrite each other); sets the saved tensor's shape and dtype. */
static bool check_save(AxMugraph *g, AxKernel *k, AxBNode *n, AxDiag *d) {
  const AxBNode *a = &k->nodes[n->in[0]];
  AxKTensor *t = &g->tensors[n->dst];
  bool ok = true;
  n->shape = a->shape;
  n->dtype = a->dtype;
  n->phase = AX_PH_POST;
  if (a->phase == AX_PH_LOOP && k->forloop > 1) {
    ax_diag_error(d, n->span, "kernel '%s': output '%s' saves '%s', which changes every iteration; accumulate it first",
                  k->name, t->name, a->name);
    ok = false;
  }
  if (!check_maps(d, n->span, k->name, "output", t->name, n->omap, -1, a->shape.rank)) ok = false;
  for (int gi = 0; gi < 3; gi++)
    if (k->grid[gi] > 1 && n->omap[gi] < 0) {
      ax_diag_error(d, n->span,
                    "kernel '%s': output '%s': grid.%c has size %" PRId64
                    " but its omap leaves it unmapped, so blocks would overwrite each other",
                    k->name, t->name, gaxis[gi], k->grid[gi]);
      ok = false;
    }
  if (!ok) return false;
  t->shape = a->shape;
  for (int gi = 0; gi < 3; gi++)
    if (n->omap[gi] >= 0) t->shape.dim[n->omap[gi]] *= k->grid[gi];
  t->dtype = a->dtype;
  return true;
}

static const NodeCheck node_checks[] = {
    [AX_BN_ITER] = check_iter,
    [AX_BN_OP] = check_op,
    [AX_BN_ACCUM] = check_accum,
    [AX_BN_SAVE] = check_save,
};

/* Shared memory: invariant tiles and accumulators live through the whole block; the loop
 * body's and the post phase's tiles are alive one phase at a time. Sets k->smem; reports
 * the largest tile when the H100's limit is exceeded. */
static bool check_smem(AxKernel *k, AxDiag *d) {
  char b1[96];
  int64_t inv = 0, loop = 0, post = 0, acc = 0;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->anon || n->kind == AX_BN_SAVE) continue;
    int64_t bytes = ax_shape_numel(&n->shape) * (int64_t)ax_dtype_bytes(n->dtype);
    if (n->kind == AX_BN_ACCUM) acc += ax_shape_numel(&n->shape) * 4;   /* f32 state */
    if (n->rescaled)   /* the max it was last rescaled to */
      acc += ax_shape_numel(&k->nodes[n->rescale].shape) * 4;
    else if (n->phase == AX_PH_INVARIANT) inv += bytes;
    else if (n->phase == AX_PH_LOOP) loop += bytes;
    else post += bytes;
  }
  k->smem = inv + acc + (loop > post ? loop : post);
  if (k->smem <= AX_MUG_SMEM_LIMIT) return true;
  int big = -1;
  int64_t bigb = -1;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->anon || n->kind == AX_BN_SAVE) continue;
    int64_t bytes = ax_shape_numel(&n->shape) * (int64_t)ax_dtype_bytes(n->dtype);
    if (bytes > bigb) bigb = bytes, big = i;
  }
  ax_diag_error(d, k->span,
                "kernel '%s': its block graph needs %" PRId64
                " bytes of shared memory per block, more than the H100's %d (227 KB); the "
                "largest tile is '%s' %s (%" PRId64 " bytes)",
                k->name, k->smem, AX_MUG_SMEM_LIMIT, k->nodes[big].name,
                ax_shape_str(&k->nodes[big].shape, b1, sizeof b1), bigb);
  return false;
}

/* A graph-defined kernel: its launch sizes, every node in order (a node whose operand
 * failed is skipped silently: its error would only repeat the operand's), then shared
 * memory. */
static bool check_kernel(AxMugraph *g, AxKernel *k, AxDiag *d) {
  if (!check_launch(k, d)) return false;
  bool ok = true;
  bool *bad = ax_xcalloc((size_t)k->nnodes + 1, 1);
  for (int i = 0; i < k->nnodes; i++) {
    AxBNode *n = &k->nodes[i];
    bool operands_ok = true;
    for (int j = 0; j < n->nin; j++)
      if (bad[n->in[j]]) operands_ok = false;
    if (!operands_ok || !node_checks[n->kind](g, k, n, d)) ok = false, bad[i] = true;
  }
  free(bad);
  return ok && check_smem(k, d);
}

bool ax_mug_check(AxMugraph *g, AxDiag *d) {
  bool ok = true;
  char msg[256];
  for (int s = 0; s < g->nstmts; s++) {
    AxKStmt *st = &g->stmts[s];
    switch (st->kind) {
    case AX_KS_INPUT: {
      AxKTensor *t = &g->tensors[st->t];
      int64_t n = 1;
      for (int i = 0; i < t->shape.rank; i++) {
        if (t->shape.dim[i] < 1 || t->shape.dim[i] > AX_MUG_MAX_ELEMS) {
          ax_diag_error(d, st->span, "input '%s': dimensions must be between 1 and %lld", t->name,
                        (long long)AX_MUG_MAX_ELEMS);
          ok = false;
          break;
        }
        if (t->shape.dim[i] > AX_MUG_MAX_ELEMS / n) {
          ax_diag_error(d, st->span, "input '%s' has more than %lld elements", t->name,
                        (long long)AX_MUG_MAX_ELEMS);
          ok = false;
          break;
        }
        n *= t->shape.dim[i];
      }
      break;
    }
    case AX_KS_OP: {
      AxKTensor *t = &g->tensors[st->t];
      const AxTShape *ins[AX_MAXIN];
      AxDtype dts[AX_MAXIN];
      bool lit[AX_MAXIN];
      const char *names[AX_MAXIN];
      for (int j = 0; j < st->nin; j++) {
        const AxKTensor *a = &g->tensors[st->in[j]];
        ins[j] = &a->shape;
        dts[j] = a->dtype, lit[j] = a->anon, names[j] = a->name;
      }
      if (!one_dtype(d, st->span, "operator ", st->op, t->name, dts, lit, names, st->in_span, st->nin,
                     &t->dtype)) {
        ok = false;
        break;
      }
      t->dtype = (AxDtype)ax_ewop_result_dtype(st->op, (int)t->dtype);
      if (!ax_tensorop_infer(st->op, &st->at, ins, st->nin, &t->shape, msg, sizeof msg)) {
        ax_diag_error(d, st->span, "operator '%s' ('%s'): %s", ax_op_pname(st->op), t->name, msg);
        ok = false;
      }
      break;
    }
    case AX_KS_KERNEL:
      if (!check_kernel(g, st->kernel, d)) ok = false;
      break;
    case AX_KS_OUTPUT:
      break;
    }
    if (!ok) return false;   /* later statements would only repeat the damage */
  }
  if (g->noutputs == 0) {
    ax_diag_error(d, g->span, "mugraph '%s' declares no output", g->name);
    return false;
  }
  return ok;
}
