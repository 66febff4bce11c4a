/* optimize.c — schedule by depth, shared memory by lifetimes, layouts (Mirage §6). */
#include "superopt/cost/optimize.h"

#include <stdlib.h>

#include "superopt/ir/pop.h"

const char *ax_opt_layout_name(AxLayout l) {
  static const char *const names[] = {
      [AX_LAYOUT_NONE] = "-", [AX_LAYOUT_ROW] = "row", [AX_LAYOUT_SWIZZLED] = "swizzled"};
  return names[l];
}

/* A node that occupies shared memory: inputs, operators that are not fused into a later
 * member of their thread graph, accumulators. Savers write straight to device memory. */
static bool in_smem(const AxKernel *k, int i) {
  const AxBNode *n = &k->nodes[i];
  if (n->anon || n->kind == AX_BN_SAVE) return false;
  if (n->kind == AX_BN_OP && ax_pop_literal(n->op)) return false;
  if (n->thread >= 0 && i + 1 < k->nnodes && k->nodes[i + 1].thread == n->thread) return false;
  return true;
}

static int64_t align(int64_t x) {
  return (x + AX_OPT_SMEM_ALIGN - 1) / AX_OPT_SMEM_ALIGN * AX_OPT_SMEM_ALIGN;
}

/* The phase a node is scheduled in: a running max (accum max) is updated in the loop, where
 * later loop operators read it, though its final value belongs to the post phase. */
static AxPhase sched_phase(const AxBNode *b) { return ax_mug_running(b) ? AX_PH_LOOP : b->phase; }

typedef struct {
  int node;
  int64_t lo, hi, bytes;
} Live;

static int by_size(const void *a, const void *b) {
  const Live *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
  return x->node - y->node;
}

int ax_ring_stages_most(int64_t forloop, int most, bool (*fits)(void *ctx, int stages), void *ctx) {
  for (int s = most < 4 ? most : 4; s >= 2; s--)
    if (s <= forloop && fits(ctx, s)) return s;
  return 1;
}

int ax_ring_stages(int64_t forloop, bool (*fits)(void *ctx, int stages), void *ctx) {
  return ax_ring_stages_most(forloop, 4, fits, ctx);
}

/* What placing a kernel's buffers needs: the schedule's positions and the loop's span. */
typedef struct {
  const AxKernel *k;
  const int *pos;
  int ls, le;
  Live *lv;
  AxKPlan *p;
  int64_t limit;
} Place;

/* Places every shared-memory buffer with `stages` slots per iterating input of the loop
 * (1: one buffer each) into p's offset, bytes, smem_peak and smem_sum. */
static void place(const Place *c, int stages) {
  const AxKernel *k = c->k;
  const int *pos = c->pos;
  AxKPlan *p = c->p;
  Live *lv = c->lv;
  int n = k->nnodes, ls = c->ls, le = c->le, nl = 0;
  p->smem_peak = p->smem_sum = 0;
  for (int i = 0; i < n; i++) {
    const AxBNode *b = &k->nodes[i];
    p->offset[i] = -1;
    p->bytes[i] = 0;
    p->layout[i] = AX_LAYOUT_NONE;
    if (!in_smem(k, i)) continue;
    int64_t bytes = ax_shape_numel(&b->shape) *
                    (b->kind == AX_BN_ACCUM ? 4 : (int64_t)ax_dtype_bytes(b->dtype));
    if (b->rescaled) bytes += ax_shape_numel(&k->nodes[b->rescale].shape) * 4;   /* m_prev */
    p->smem_sum += bytes;
    /* an iterating input of the loop is a ring: later iterations' tiles load while this
     * one is used */
    if (b->kind == AX_BN_ITER && b->phase == AX_PH_LOOP) bytes *= stages;
    int64_t lo = pos[i], hi = pos[i];
    for (int j = 0; j < n; j++)
      for (int q = 0; q < k->nodes[j].nin; q++)
        if (k->nodes[j].in[q] == i && pos[j] > hi) hi = pos[j];
    if (b->kind == AX_BN_ACCUM && le >= 0 && ls < lo) lo = ls;   /* updated in the loop */
    if (b->phase == AX_PH_INVARIANT && le >= 0 && hi >= ls && hi < le) hi = le;
    lv[nl++] = (Live){i, lo, hi, align(bytes)};
    p->bytes[i] = bytes;
  }
  /* First fit in decreasing size: each buffer takes the lowest offset that overlaps no
   * placed buffer alive at the same time. */
  qsort(lv, (size_t)nl, sizeof *lv, by_size);
  for (int i = 0; i < nl; i++) {
    int64_t off = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (int j = 0; j < i; j++) {
        if (lv[j].hi < lv[i].lo || lv[i].hi < lv[j].lo) continue;
        int64_t o = p->offset[lv[j].node];
        if (off < o + lv[j].bytes && o < off + lv[i].bytes) {
          off = o + lv[j].bytes;
          moved = true;
        }
      }
    }
    p->offset[lv[i].node] = off;
    if (off + lv[i].bytes > p->smem_peak) p->smem_peak = off + lv[i].bytes;
  }
}

static bool place_fits(void *ctx, int stages) {
  const Place *c = ctx;
  place(c, stages);
  return c->p->smem_peak <= c->limit;
}

void ax_opt_plan(AxArena *a, const AxKernel *k, int64_t smem_limit, int most_stages, AxKPlan *p) {
  int n = k->nnodes;
  p->order = ax_arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  p->depth = ax_arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  p->offset = ax_arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
  p->bytes = ax_arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
  p->layout = ax_arena_alloc(a, sizeof(AxLayout) * (size_t)(n + 1));
  p->barriers[0] = p->barriers[1] = p->barriers[2] = 0;
  p->conflicts_avoided = 0;

  /* Depths: an input iterator is depth 0; an operator is one deeper than its deepest
   * operand of the same phase, except inside a thread graph, which is one fused step. */
  int maxd = 0;
  for (int i = 0; i < n; i++) {
    const AxBNode *b = &k->nodes[i];
    int d = 0;
    if (b->kind != AX_BN_ITER)
      for (int j = 0; j < b->nin; j++) {
        const AxBNode *o = &k->nodes[b->in[j]];
        if (sched_phase(o) != sched_phase(b) && b->kind != AX_BN_SAVE) continue;
        int od = p->depth[b->in[j]];
        bool fused = b->thread >= 0 && o->thread == b->thread;
        int nd = fused ? od : od + 1;
        if (nd > d) d = nd;
      }
    /* the accumulated value is ready after the loop; a running max, one step after its
     * operand in every iteration */
    if (b->kind == AX_BN_ACCUM && !ax_mug_running(b)) d = 0;
    p->depth[i] = d;
    if (d > maxd) maxd = d;
  }
  /* Order: phase, then depth, then text order (stable). */
  int m = 0;
  for (int ph = AX_PH_INVARIANT; ph <= AX_PH_POST; ph++)
    for (int d = 0; d <= maxd; d++) {
      bool any = false;
      for (int i = 0; i < n; i++) {
        const AxBNode *b = &k->nodes[i];
        AxPhase bp = sched_phase(b);
        if (b->kind == AX_BN_SAVE) bp = AX_PH_POST;
        if ((int)bp != ph || p->depth[i] != d) continue;
        p->order[m++] = i;
        if (b->kind != AX_BN_SAVE && !b->anon) any = true;
      }
      if (any) p->barriers[ph]++;
    }

  /* Lifetimes over schedule positions; the loop body is one span [ls, le]. */
  int *pos = ax_arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < m; i++) pos[p->order[i]] = i;
  int ls = m, le = -1;
  for (int i = 0; i < n; i++) {
    const AxBNode *b = &k->nodes[i];
    if (b->phase == AX_PH_LOOP && b->kind != AX_BN_SAVE) {
      if (pos[i] < ls) ls = pos[i];
      if (pos[i] > le) le = pos[i];
    }
  }
  Place pl = {k, pos, ls, le, ax_arena_alloc(a, sizeof(Live) * (size_t)(n + 1)), p, smem_limit};
  p->stages = 1;
  if (k->forloop > 1) p->stages = ax_ring_stages_most(k->forloop, most_stages > 0 ? most_stages : 4, place_fits, &pl);
  place(&pl, p->stages);

  /* Layouts and registers. */
  int threads = (int)(k->block[0] * k->block[1] * k->block[2]);
  if (threads < 32) threads = 32;
  int64_t frag = 0;
  for (int i = 0; i < n; i++) {
    const AxBNode *b = &k->nodes[i];
    if (b->kind != AX_BN_OP || !ax_pop_tensor_core(b->op)) continue;
    frag += ax_shape_numel(&b->shape);
    for (int q = 0; q < 2; q++) {
      int o = b->in[q];
      if (p->offset[o] < 0) continue;
      const AxBNode *ob = &k->nodes[o];
      int64_t row = ob->shape.rank ? ob->shape.dim[ob->shape.rank - 1] : 1;
      row *= (int64_t)(ob->kind == AX_BN_ACCUM ? 4 : ax_dtype_bytes(ob->dtype));
      if (row >= 128) {
        if (p->layout[o] != AX_LAYOUT_SWIZZLED) p->conflicts_avoided++;
        p->layout[o] = AX_LAYOUT_SWIZZLED;
      } else if (p->layout[o] == AX_LAYOUT_NONE) {
        p->layout[o] = AX_LAYOUT_ROW;
      }
    }
  }
  int64_t regs = 32 + (frag + threads - 1) / threads;
  p->regs = regs > 100000 ? 100000 : (int)regs;
}
