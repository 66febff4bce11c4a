/* cost.c — the modelled GPU time of a μGraph (cost.h; constants in docs/superopt.md). */
#include "superopt/cost/cost.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

/* Published figures (docs/superopt.md §8 names the sources). H200 SXM 141 GB: the GH100 die
 * and clocks of the H100 SXM5 with HBM3e — 132 SMs, 4.8 TB/s, 989.4 TFLOP/s dense f16/bf16
 * tensor (the datasheet's 1,979 is with 2:4 sparsity), 66.9 TFLOP/s f32, 50 MB L2. H100
 * SXM5: 132 SMs, 3.35 TB/s HBM3, 989.4 TFLOP/s, 66.9 TFLOP/s f32, 50 MB L2. Both compute
 * capability 9.0: 228 KB shared memory per SM (227 KB per block, opt-in), 64 K registers,
 * 2048 threads and 32 blocks per SM; shared memory 128 B/clock/SM at 1.98 GHz. A100 SXM4
 * 80 GB: 108 SMs, 2.0 TB/s (2.039), 312 TFLOP/s, 19.5 TFLOP/s f32, 40 MB L2, 164 KB per SM
 * (163 KB per block), 128 B/clock at 1.41 GHz. Launch overhead and barrier cost are typical
 * measured orders of magnitude, not vendor figures. The gen_ constants are fitted to axle's
 * own kernels measured on an H200 (tools/calibrate-cost.py); the H100 shares them (the same
 * SMs and clocks: only the device memory differs, and the generated code is not bound by
 * it), the A100's are those scaled by its clock, not measured. The floor is the least
 * device time one kernel took on the H200 (tools/calibrate-cost.py --refit), the H100's the
 * same, the A100's scaled by clock. */
static const AxTarget targets[] = {
    {.name = "h200", .desc = "NVIDIA H200 SXM 141GB (modelled)", .sms = 132, .hbm_bps = 4.8e12,
     .tc_flops = 989.4e12, .cuda_flops = 66.9e12, .smem_bps = 132 * 128 * 1.98e9,
     .smem_per_sm = 228 * 1024, .smem_per_block = 227 * 1024, .regs_per_sm = 65536,
     .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .l2_bytes = 50e6, .launch_s = 3.0e-6,
     .floor_s = 0.77e-6, .barrier_s = 20e-9, .gen_smem_bps_per_block = 23.5e9,
     .gen_resident_exp = 0.35, .gen_block_s = 1.4e-6},
    {.name = "h100", .desc = "NVIDIA H100 SXM5 (modelled)", .sms = 132, .hbm_bps = 3.35e12,
     .tc_flops = 989.4e12, .cuda_flops = 66.9e12, .smem_bps = 132 * 128 * 1.98e9,
     .smem_per_sm = 228 * 1024, .smem_per_block = 227 * 1024, .regs_per_sm = 65536,
     .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .l2_bytes = 50e6, .launch_s = 3.0e-6,
     .floor_s = 0.77e-6, .barrier_s = 20e-9, .gen_smem_bps_per_block = 23.5e9,
     .gen_resident_exp = 0.35, .gen_block_s = 1.4e-6},
    {.name = "a100", .desc = "NVIDIA A100 SXM4 80GB (modelled)", .sms = 108, .hbm_bps = 2.0e12,
     .tc_flops = 312e12, .cuda_flops = 19.5e12, .smem_bps = 108 * 128 * 1.41e9,
     .smem_per_sm = 164 * 1024, .smem_per_block = 163 * 1024, .regs_per_sm = 65536,
     .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .l2_bytes = 40e6, .launch_s = 3.0e-6,
     .floor_s = 0.77e-6 * 1.98 / 1.41, .barrier_s = 25e-9,
     .gen_smem_bps_per_block = 23.5e9 * 1.41 / 1.98, .gen_resident_exp = 0.35,
     .gen_block_s = 1.4e-6 * 1.98 / 1.41},
};

/* An SM alone may draw up to this multiple of its even share of device bandwidth. */
#define SM_HBM_BURST 2.0
/* Warps an SM needs resident to hide device-memory latency at full bandwidth. */
#define WARPS_TO_HIDE 4.0
/* Threads of a library kernel's block, and elements per thread of element-wise kernels. */
#define LIB_THREADS 256
#define LIB_ELEMS 8
#define LIB_TILE 128

const AxTarget *ax_cost_target(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i].name, name) == 0) return &targets[i];
  return NULL;
}

static double dbytes(const AxTShape *s, AxDtype t) {
  return (double)ax_shape_numel(s) * (double)ax_dtype_bytes(t);
}

/* Math of one application, by its row: tensor-core FLOPs for matmul, CUDA-core FLOPs per
 * element otherwise (a transcendental costs a few special-function slots). */
static void op_math(AxOp op, const AxTShape *out, const AxTShape *const *in, int nin, double *tc,
                    double *cuda) {
  const AxEwOp *e = ax_ewop_get(op);
  if (e) {
    *cuda += e->flops * (double)ax_shape_numel(out);
    return;
  }
  const AxPOp *p = ax_pop_get(op);
  switch (p->math) {
  case AX_POP_MATH_NONE: return;
  case AX_POP_MATH_TENSOR: {
    int64_t k = in[0]->rank ? in[0]->dim[in[0]->rank - 1] : 1;
    *tc += 2.0 * (double)ax_shape_numel(out) * (double)k;
    return;
  }
  case AX_POP_MATH_CUDA: *cuda += p->flops * (double)ax_shape_numel(nin ? in[0] : out); return;
  }
  AX_UNREACHABLE();
}

/* Times one kernel from per-block demands (and the residency already in kc). */
static void finish(const AxTarget *t, AxKCost *kc, double threads, double executions_sync) {
  double sms = t->sms;
  double B = (double)kc->blocks;
  double rounds = ceil(B / sms);              /* blocks the busiest SM runs */
  double active = B < sms ? B : sms;
  double per_sm_hbm = t->hbm_bps / sms * SM_HBM_BURST;
  if (per_sm_hbm > t->hbm_bps / active) per_sm_hbm = t->hbm_bps / active;
  double resident = (double)(kc->blocks_per_sm < rounds ? kc->blocks_per_sm : rounds);
  double warps = resident * ceil(threads / 32.0);
  kc->threads = (int64_t)threads;
  kc->warps_per_sm = warps;
  double hide = warps / WARPS_TO_HIDE;
  if (hide > 1) hide = 1;
  if (hide < 0.05) hide = 0.05;
  kc->waves = (int64_t)ceil(B / (sms * (double)kc->blocks_per_sm));
  kc->t_hbm = rounds * (kc->hbm_bytes / B) / (per_sm_hbm * hide);
  double smem_rate = t->smem_bps / sms;
  kc->t_block = 0;
  if (kc->graph_defined) {
    /* The generated code is latency-bound, not bandwidth-bound: measured, a block moved
     * its shared-memory traffic at ~1/10 of the SM's peak (short-scoreboard stalls on
     * shared memory) whether it had 128, 256 or 512 threads (its tile loops, not its
     * threads, set the pace), r blocks resident on one SM together moved ~r^0.35 times
     * what one does (split-K graphs of 256 to 1024 blocks), and a round of blocks took
     * ~1.4 µs however little it did. */
    double gen = pow(resident, t->gen_resident_exp) * t->gen_smem_bps_per_block;
    if (gen < smem_rate) smem_rate = gen;
    kc->t_block = ceil(rounds / resident) * t->gen_block_s;   /* blocks resident together wait together */
  }
  kc->t_smem = rounds * (kc->smem_traffic / B) / smem_rate;
  kc->t_math = rounds * ((kc->tc_flops / B) / (t->tc_flops / sms) +
                         (kc->cuda_flops / B) / (t->cuda_flops / sms));
  kc->t_launch = t->launch_s;
  kc->t_sync = rounds * executions_sync * t->barrier_s;
  double body = kc->t_hbm;
  kc->bound = "memory";
  if (kc->t_smem > body) body = kc->t_smem, kc->bound = "shared";
  if (kc->t_math > body) body = kc->t_math, kc->bound = "compute";
  if (kc->t_launch > body + kc->t_block + kc->t_sync) kc->bound = "launch";
  kc->time_s = kc->t_launch + kc->t_block + body + kc->t_sync;
}

double ax_cost_kernel_floor(const AxTarget *t, int64_t blocks, double bytes) {
  /* finish() of a graph-defined kernel with hide = 1 (its largest value), the shared rate
   * at the SM's peak (its largest), only these bytes and as many blocks resident together
   * as an SM can hold: every term it adds is at least this, and it takes the larger of the
   * memory terms */
  double sms = t->sms, B = (double)(blocks > 0 ? blocks : 1);
  double rounds = ceil(B / sms), active = B < sms ? B : sms;
  double per_sm_hbm = t->hbm_bps / sms * SM_HBM_BURST;
  if (per_sm_hbm > t->hbm_bps / active) per_sm_hbm = t->hbm_bps / active;
  double hbm = rounds * (bytes / B) / per_sm_hbm;
  double smem = rounds * (bytes / B) / (t->smem_bps / sms);
  double waves = ceil(rounds / t->max_blocks_per_sm);   /* the fewest finish() can charge */
  return t->launch_s + waves * t->gen_block_s + (hbm > smem ? hbm : smem);
}

/* Blocks resident per SM: the tightest of shared memory, registers, threads, blocks. */
static void residency(const AxTarget *t, AxKCost *kc, int64_t threads) {
  int64_t bps = t->max_blocks_per_sm;
  kc->limit = "blocks";
  if (kc->smem_bytes > 0 && t->smem_per_sm / kc->smem_bytes < bps)
    bps = t->smem_per_sm / kc->smem_bytes, kc->limit = "smem";
  int64_t regs = (int64_t)kc->regs * threads;
  if (regs > 0 && t->regs_per_sm / regs < bps) bps = t->regs_per_sm / regs, kc->limit = "regs";
  if (threads > 0 && t->max_threads_per_sm / threads < bps)
    bps = t->max_threads_per_sm / threads, kc->limit = "threads";
  if (bps < 1) bps = 1;
  kc->blocks_per_sm = bps;
}

static void cost_operator(const AxMugraph *g, const AxKStmt *s, const AxTarget *t, AxKCost *kc) {
  const AxKTensor *o = &g->tensors[s->t];
  const AxTShape *ins[AX_MAXIN];
  kc->graph_defined = false;
  kc->name = o->name;
  kc->fits = true;
  kc->hbm_bytes = dbytes(&o->shape, o->dtype);
  for (int j = 0; j < s->nin; j++) {
    const AxKTensor *a = &g->tensors[s->in[j]];
    ins[j] = &a->shape;
    if (!a->anon) kc->hbm_bytes += dbytes(&a->shape, a->dtype);
  }
  op_math(s->op, &o->shape, ins, s->nin, &kc->tc_flops, &kc->cuda_flops);
  int64_t threads = LIB_THREADS;
  if (ax_pop_tensor_core(s->op)) {
    /* a cuBLAS-like kernel: 128 x 128 output tiles, one block per tile */
    const AxTShape *os = &o->shape;
    int64_t m = os->rank >= 2 ? os->dim[os->rank - 2] : 1, n = os->dim[os->rank - 1];
    int64_t batch = ax_shape_numel(os) / (m * n);
    kc->blocks = batch * ((m + LIB_TILE - 1) / LIB_TILE) * ((n + LIB_TILE - 1) / LIB_TILE);
    kc->smem_bytes = 2 * 2 * LIB_TILE * 32 * 2;   /* double-buffered 128 x 32 f16 tiles */
    kc->regs = 128;
    kc->smem_traffic = kc->hbm_bytes;
  } else if (ax_pop_get(s->op) && ax_pop_get(s->op)->contract == AX_POP_CONTRACT_AXIS) {
    /* a reduction or rms_norm: the row kernel gpu/cuda.c emits, on its plan's grid. Each
     * element is read from device memory once: rms_norm's second read of its row (or
     * column) finds it in L1/L2, which the block has just filled (modelled, not measured) */
    AxPopRowPlan pl;
    ax_pop_rowplan(ins[0], s->at.axis, s->at.to, &pl);
    kc->blocks = pl.blocks;
    kc->smem_bytes = pl.lanes > 32 ? AX_POP_ROW_THREADS / 32 * 4 : 0;   /* the warps' partials */
    kc->regs = 32;
  } else {
    int64_t work = ax_shape_numel(&o->shape);
    if (s->nin && ax_shape_numel(ins[0]) > work) work = ax_shape_numel(ins[0]);
    kc->blocks = (work + LIB_THREADS * LIB_ELEMS - 1) / (LIB_THREADS * LIB_ELEMS);
    if (kc->blocks < 1) kc->blocks = 1;
    kc->smem_bytes = 0;
    kc->regs = 32;
  }
  residency(t, kc, threads);
  finish(t, kc, (double)threads, 0);
}

static void cost_kernel(AxArena *a, const AxMugraph *g, const AxKernel *k, const AxTarget *t,
                        AxKCost *kc) {
  AxKPlan p;
  ax_opt_plan(a, k, t->smem_per_block, t->ring_stages, &p);
  kc->graph_defined = true;
  kc->name = k->name;
  kc->blocks = k->grid[0] * k->grid[1] * k->grid[2];
  kc->smem_bytes = p.smem_peak;
  kc->regs = p.regs;
  kc->fits = p.smem_peak <= t->smem_per_block && p.regs <= AX_OPT_MAX_REGS;
  double R = (double)(k->forloop > 0 ? k->forloop : 1);
  double B = (double)kc->blocks;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->anon) continue;
    double reps = n->phase == AX_PH_LOOP ? R : 1;
    double tile = dbytes(&n->shape, n->dtype);
    switch (n->kind) {
    case AX_BN_ITER:
      kc->hbm_bytes += B * reps * tile;
      kc->smem_traffic += B * reps * tile;   /* stored into shared memory */
      break;
    case AX_BN_SAVE:
      kc->hbm_bytes += B * dbytes(&k->nodes[n->in[0]].shape, g->tensors[n->dst].dtype);
      kc->smem_traffic += B * tile;
      break;
    case AX_BN_ACCUM: {
      const AxBNode *src = &k->nodes[n->in[0]];
      double r = src->phase == AX_PH_LOOP ? R : 1;
      /* read the value, read-modify-write the f32 state, every iteration */
      kc->smem_traffic += B * r * (dbytes(&src->shape, src->dtype) +
                                   2.0 * 4 * (double)ax_shape_numel(&n->shape));
      kc->cuda_flops += B * r * (double)ax_shape_numel(&src->shape) * (n->acc == AX_ACC_RMS ? 2 : 1);
      if (n->rescaled) {
        /* online softmax: exp(m_prev − m_new) per element of the max, and a multiply per
         * state element, every iteration; the previous max is read and written too */
        double mel = (double)ax_shape_numel(&k->nodes[n->rescale].shape);
        kc->cuda_flops += B * r * (mel + (double)ax_shape_numel(&n->shape));
        kc->smem_traffic += B * r * 2.0 * 4 * mel;
      }
      break;
    }
    case AX_BN_OP: {
      if (ax_pop_literal(n->op)) break;
      const AxTShape *ins[AX_MAXIN];
      double rd = 0;
      for (int j = 0; j < n->nin; j++) {
        const AxBNode *o = &k->nodes[n->in[j]];
        ins[j] = &o->shape;
        if (p.offset[n->in[j]] >= 0) {
          double f = 1;
          /* a row-major operand of a matmul with wide rows: 8-way bank conflicts */
          if (ax_pop_tensor_core(n->op) && p.layout[n->in[j]] == AX_LAYOUT_ROW &&
              o->shape.rank && o->shape.dim[o->shape.rank - 1] * 2 >= 128)
            f = 8;
          rd += f * dbytes(&o->shape, o->dtype);
        }
      }
      double wr = p.offset[i] >= 0 ? tile : 0;
      kc->smem_traffic += B * reps * (rd + wr);
      double tc = 0, cu = 0;
      op_math(n->op, &n->shape, ins, n->nin, &tc, &cu);
      kc->tc_flops += B * reps * tc;
      kc->cuda_flops += B * reps * cu;
      break;
    }
    }
  }
  int64_t threads = k->block[0] * k->block[1] * k->block[2];
  if (threads < 1) threads = 128;
  residency(t, kc, threads);
  double sync = p.barriers[AX_PH_INVARIANT] + R * p.barriers[AX_PH_LOOP] + p.barriers[AX_PH_POST];
  finish(t, kc, (double)threads, sync);
}

void ax_cost_run(AxArena *a, const AxMugraph *g, const AxTarget *t, AxCost *c) {
  c->target = t;
  c->k = ax_arena_alloc(a, sizeof(AxKCost) * (size_t)(g->nstmts + 1));
  c->nk = 0;
  c->time_s = 0;
  c->fits = true;
  for (int i = 0; i < g->nstmts; i++) {
    const AxKStmt *s = &g->stmts[i];
    AxKCost *kc = &c->k[c->nk];
    memset(kc, 0, sizeof *kc);
    if (s->kind == AX_KS_OP) {
      /* a constant is an argument and a reshape a view: neither launches a kernel */
      const AxPOp *p = ax_pop_get(s->op);
      if (p && p->free) continue;
      cost_operator(g, s, t, kc);
    } else if (s->kind == AX_KS_KERNEL) {
      cost_kernel(a, g, s->kernel, t, kc);
    } else {
      continue;
    }
    c->time_s += kc->time_s;
    if (!kc->fits) c->fits = false;
    c->nk++;
  }
}

double ax_cost_time(const AxMugraph *g, const AxTarget *t) {
  AxArena *a = ax_arena_new();
  AxCost c;
  ax_cost_run(a, g, t, &c);
  double s = c.time_s;
  ax_arena_free(a);
  return s;
}

void ax_cost_print_text(FILE *out, const AxMugraph *g, const AxCost *c) {
  fprintf(out, "mugraph '%s' on %s: modelled time %.2f us (%d kernel%s)%s\n", g->name,
          c->target->desc, c->time_s * 1e6, c->nk, c->nk == 1 ? "" : "s",
          c->fits ? "" : " -- DOES NOT FIT the target's limits");
  for (int i = 0; i < c->nk; i++) {
    const AxKCost *k = &c->k[i];
    fprintf(out,
            "  %-10s %-13s %6.2f us  %s-bound  blocks %" PRId64 " (%" PRId64 "/SM by %s, %" PRId64
            " wave%s)\n",
            k->name, k->graph_defined ? "graph-defined" : "operator", k->time_s * 1e6, k->bound,
            k->blocks, k->blocks_per_sm, k->limit, k->waves, k->waves == 1 ? "" : "s");
    fprintf(out,
            "             hbm %.0f B (%.2f us)  smem %.0f B (%.2f us)  tensor %.3g + cuda %.3g FLOP "
            "(%.2f us)  launch %.2f us  sync %.2f us",
            k->hbm_bytes, k->t_hbm * 1e6, k->smem_traffic, k->t_smem * 1e6, k->tc_flops,
            k->cuda_flops, k->t_math * 1e6, k->t_launch * 1e6, k->t_sync * 1e6);
    if (k->graph_defined) fprintf(out, "  block latency %.2f us", k->t_block * 1e6);
    fputc('\n', out);
    if (k->graph_defined)
      fprintf(out, "             shared memory %" PRId64 " B per block, ~%d registers per thread%s\n",
              k->smem_bytes, k->regs, k->fits ? "" : " (over the limit)");
  }
}

void ax_cost_print_json(FILE *out, const AxMugraph *g, const AxCost *c) {
  const AxTarget *t = c->target;
  fprintf(out, "{\"mugraph\": \"%s\", \"target\": \"%s\", \"modelled\": true, \"time_us\": %.4f, "
               "\"fits\": %s, ",
          g->name, t->name, c->time_s * 1e6, c->fits ? "true" : "false");
  /* the constants the times came from (tools/calibrate-cost.py --refit recomputes with them) */
  fprintf(out, "\"model\": {\"sms\": %d, \"hbm_bps\": %.4g, \"smem_bps_per_sm\": %.6g, "
               "\"gen_smem_bps_per_block\": %.6g, \"gen_resident_exp\": %.6g, \"gen_block_us\": %.6g, "
               "\"launch_us\": %.6g, \"floor_us\": %.6g}, \"kernels\": [",
          t->sms, t->hbm_bps, t->smem_bps / t->sms, t->gen_smem_bps_per_block, t->gen_resident_exp,
          t->gen_block_s * 1e6, t->launch_s * 1e6, t->floor_s * 1e6);
  for (int i = 0; i < c->nk; i++) {
    const AxKCost *k = &c->k[i];
    fprintf(out,
            "%s\n  {\"name\": \"%s\", \"kind\": \"%s\", \"time_us\": %.4f, \"bound\": \"%s\", "
            "\"blocks\": %" PRId64 ", \"blocks_per_sm\": %" PRId64 ", \"occupancy_limit\": \"%s\", "
            "\"waves\": %" PRId64 ", \"smem_bytes\": %" PRId64 ", \"regs_per_thread\": %d, "
            "\"hbm_bytes\": %.0f, \"smem_traffic_bytes\": %.0f, \"tensor_flops\": %.0f, "
            "\"cuda_flops\": %.0f, \"hbm_us\": %.4f, \"smem_us\": %.4f, \"math_us\": %.4f, "
            "\"launch_us\": %.4f, \"sync_us\": %.4f, \"block_us\": %.4f, \"threads\": %" PRId64 ", "
            "\"warps_per_sm\": %.0f, \"fits\": %s}",
            i ? "," : "", k->name, k->graph_defined ? "graph-defined" : "operator", k->time_s * 1e6,
            k->bound, k->blocks, k->blocks_per_sm, k->limit, k->waves, k->smem_bytes, k->regs,
            k->hbm_bytes, k->smem_traffic, k->tc_flops, k->cuda_flops, k->t_hbm * 1e6,
            k->t_smem * 1e6, k->t_math * 1e6, k->t_launch * 1e6, k->t_sync * 1e6,
            k->t_block * 1e6, k->threads,
            k->warps_per_sm, k->fits ? "true" : "false");
  }
  fprintf(out, "%s]}\n", c->nk ? "\n" : "");
}
