/* mkcuda.c — the persistent megakernel's CUDA: task functions, tables, runtime, host entry
 * (mkcuda.h). */
#include "mpk/mkcuda.h"

#include <inttypes.h>
#include <string.h>

/* Whether kernel tensor ti is one of the graph's inputs. */
static bool is_input(const AxMugraph *g, int ti) {
  return g->stmts[g->tensors[ti].stmt].kind == AX_KS_INPUT;
}

/* uses[ti] for every kernel tensor that kernel statement s reads or writes: the parameters of
 * its task function, in tensor order (gpu/cuda.c's emit_signature). */
static void kernel_uses(const AxMugraph *g, int s, bool *uses) {
  const AxKernel *k = g->stmts[s].kernel;
  for (int ti = 0; ti < g->ntensors; ti++) uses[ti] = false;
  for (int i = 0; i < k->nnodes; i++) {
    if (k->nodes[i].kind == AX_BN_ITER) uses[k->nodes[i].src] = true;
    if (k->nodes[i].kind == AX_BN_SAVE) uses[k->nodes[i].dst] = true;
  }
}

/* The graph's shape limits: graph-defined kernels only, all of one block shape. */
static bool fits(const AxTaskGraph *tg, AxDiag *d) {
  const AxMugraph *g = tg->g;
  const AxKernel *k0 = NULL;
  for (int k = 0; k < tg->nkernels; k++) {
    const AxKStmt *st = &g->stmts[tg->kernels[k].stmt];
    if (!tg->kernels[k].graph_defined) {
      ax_diag_error(d, st->span,
                    "the megakernel runs graph-defined kernels only, and '%s' is a pre-defined "
                    "operator",
                    tg->kernels[k].name);
      return false;
    }
    const AxKernel *K = st->kernel;
    if (!k0) {
      k0 = K;
    } else if (K->block[0] != k0->block[0] || K->block[1] != k0->block[1] ||
               K->block[2] != k0->block[2]) {
      ax_diag_error(d, st->span,
                    "the megakernel's workers have one block shape, and kernel '%s' has block "
                    "[%" PRId64 ", %" PRId64 ", %" PRId64 "] where '%s' has [%" PRId64 ", %" PRId64
                    ", %" PRId64 "]",
                    K->name, K->block[0], K->block[1], K->block[2], k0->name, k0->block[0],
                    k0->block[1], k0->block[2]);
      return false;
    }
  }
  if (!k0) {
    ax_diag_error(d, g->span, "mugraph '%s' has no kernel to run as a megakernel", g->name);
    return false;
  }
  return true;
}

/* Bytes rounded up to the 128 that shared-memory tiles are aligned to. */
static int64_t align128(int64_t x) { return (x + 127) / 128 * 128; }

/* The rule (docs/mpk.md, "Cross-task prefetch"): the worker's two prefetch buffers sit above
 * the largest task's shared memory, so no task's own tiles ever overlap them, whatever task
 * runs while the next one's tiles fly. The pair (running task, next task) therefore fits
 * when that base plus two buffers of the next task's first tiles (and the worker's 16-byte
 * slot) is within the target's limit, whatever the running task is: the rule is decided per
 * kernel of the next task. Kernel k's masks: safe[k], the first tiles of tensors no task
 * writes (graph inputs), which are prefetched always; all[k], every first tile, the rest of
 * which are prefetched only once the next task's event has fired. Both 0 where nothing fits.
 * safe and all have room for tg->nkernels; false after reporting through d when a kernel
 * does not fit the target at all. */
static bool pf_rule(const AxTaskGraph *tg, AxCudaTarget t, AxMkPrefetch *pf, unsigned *safe, unsigned *all,
                    double *safe_bytes, double *all_bytes, AxDiag *d) {
  const AxMugraph *g = tg->g;
  AxCudaTaskPlan *plan = ax_xcalloc((size_t)tg->nkernels + 1, sizeof *plan);
  int64_t base = 0, one = 0;
  bool ok = true;
  for (int k = 0; k < tg->nkernels && ok; k++) {
    ok = ax_cuda_task_plan(g, tg->kernels[k].stmt, t, &plan[k], d);
    if (ok && plan[k].smem > base) base = plan[k].smem;
  }
  base = align128(base);
  memset(pf, 0, sizeof *pf);
  for (int k = 0; ok && k < tg->nkernels; k++) {
    safe[k] = all[k] = 0;
    if (plan[k].pf_bytes == 0 || base + 2 * plan[k].pf_bytes + 16 > ax_cuda_smem_limit(t)) continue;
    for (int j = 0; j < plan[k].npf; j++) {
      all[k] |= 1u << j;
      if (is_input(g, plan[k].pf_tensor[j])) safe[k] |= 1u << j;
      if (all_bytes) all_bytes[k] += (double)plan[k].pf_tile_bytes[j];
      if (safe_bytes && is_input(g, plan[k].pf_tensor[j])) safe_bytes[k] += (double)plan[k].pf_tile_bytes[j];
    }
    if (plan[k].pf_bytes > one) one = plan[k].pf_bytes;
  }
  if (ok) {
    pf->base = base;
    pf->bytes = one;
    for (int x = 0; x < tg->ntasks; x++) pf->tasks += all[tg->tasks[x].kernel] != 0;
  }
  free(plan);
  return ok;
}

bool ax_mkcuda_prefetch(const AxTaskGraph *tg, AxCudaTarget t, AxMkPrefetch *out, double *safe_bytes,
                        double *all_bytes) {
  memset(out, 0, sizeof *out);
  AxDiag quiet;   /* the megakernel's own errors are ax_mkcuda_emit's to report */
  ax_diag_init(&quiet, NULL);
  if (!fits(tg, &quiet)) return false;
  unsigned *m = ax_xcalloc(2 * (size_t)tg->nkernels + 2, sizeof *m);
  for (int k = 0; k < tg->nkernels; k++) {
    if (safe_bytes) safe_bytes[k] = 0;
    if (all_bytes) all_bytes[k] = 0;
  }
  bool ok = pf_rule(tg, t, out, m, m + tg->nkernels + 1, safe_bytes, all_bytes, &quiet);
  free(m);
  return ok;
}

/* The task graph as constant tables in global memory. */
static void emit_tables(FILE *f, const AxTaskGraph *tg) {
  fprintf(f, "\n// ---- the task graph (axle mpk --task-graph), linearized: every task's dependencies\n"
             "// come before it, so a worker that takes tasks in index order never waits for a later one\n");
  fprintf(f, "#define AX_MK_TASKS %d\n#define AX_MK_EVENTS %d\n", tg->ntasks, tg->nevents);
  fprintf(f, "// per task: kernel, block x, y, z, the event it waits for, its triggers' first index\n"
             "// in ax_mk_trigs and their number\n");
  fprintf(f, "static __device__ const int ax_mk_task[AX_MK_TASKS][7] = {\n");
  for (int t = 0; t < tg->ntasks; t++) {
    const AxTask *x = &tg->tasks[t];
    fprintf(f, "  {%d, %" PRId64 ", %" PRId64 ", %" PRId64 ", %d, %d, %d},\n", x->kernel, x->block[0],
            x->block[1], x->block[2], x->dep, x->trig, x->ntrig);
  }
  fprintf(f, "};\n// per event: the triggers it waits for (0: the start event)\n");
  fprintf(f, "static __device__ const int ax_mk_event_triggers[AX_MK_EVENTS] = {");
  for (int e = 0; e < tg->nevents; e++) fprintf(f, "%s%d", e ? ", " : "", tg->events[e].ntriggers);
  fprintf(f, "};\nstatic __device__ const int ax_mk_trigs[%d] = {", tg->ntrigs > 0 ? tg->ntrigs : 1);
  for (int j = 0; j < tg->ntrigs; j++) fprintf(f, "%s%d", j ? ", " : "", tg->trigs[j]);
  if (tg->ntrigs == 0) fprintf(f, "0");
  fprintf(f, "};\n");
}

/* The memory-ordering primitives on the GPU; the emulator defines its own. */
static const char runtime_gpu[] =
    "\n// ---- the runtime's synchronization (docs/gpu.md, \"The megakernel runtime\")\n"
    "#ifndef AXLE_EMU\n"
    "// Acquire at GPU scope: the loads after it see every store released before the counter\n"
    "// value it read (and it bypasses a stale L1).\n"
    "__device__ __forceinline__ int ax_mk_load_acquire(const int *p) {\n"
    "  int v;\n"
    "  asm volatile(\"ld.acquire.gpu.global.b32 %0, [%1];\" : \"=r\"(v) : \"l\"(p) : \"memory\");\n"
    "  return v;\n"
    "}\n"
    "// Release: the fence orders this thread's stores (and, through the barrier before it,\n"
    "// the whole block's) before the increment.\n"
    "__device__ __forceinline__ void ax_mk_add_release(int *p) {\n"
    "  __threadfence();\n"
    "  atomicAdd(p, 1);\n"
    "}\n"
    "__device__ __forceinline__ int ax_mk_take(int *head) { return atomicAdd(head, 1); }\n"
    "#define AX_MK_PAUSE(spins, event) __nanosleep(64)\n"
    "#define AX_MK_POINT(where, task) ((void)0)\n"
    "#endif\n";

/* The prefetch rule's tables: per kernel the two masks (pf_rule), the buffers' place. */
static void emit_pf_tables(FILE *f, const AxTaskGraph *tg, const AxMkPrefetch *pf, const unsigned *safe,
                           const unsigned *all) {
  fprintf(f, "\n// ---- cross-task prefetch (docs/mpk.md): per kernel, the first tiles of a task that its worker\n"
             "// loads while the previous task runs: [0] those of tensors no task writes (always safe), [1] all\n"
             "// (the rest safe once the task's event has fired); 0 where two buffers do not fit. %d task%s may\n"
             "// be prefetched.\n",
          pf->tasks, pf->tasks == 1 ? "" : "s");
  fprintf(f, "static __device__ const unsigned ax_mk_pf[%d][2] = {", tg->nkernels);
  for (int k = 0; k < tg->nkernels; k++) fprintf(f, "%s{%uu, %uu}", k ? ", " : "", safe[k], all[k]);
  fprintf(f, "};\n#define AX_MK_PF_BASE %" PRId64 "  // above the largest task's shared memory\n"
             "#define AX_MK_PF_BYTES %" PRId64 "  // one buffer; a worker has two, the running task's and the next's\n",
          pf->base, pf->bytes);
}

/* The arguments of kernel k's task or prefetch function after its block and buffer. */
static void emit_args(FILE *f, const AxTaskGraph *tg, int k, bool *uses) {
  kernel_uses(tg->g, tg->kernels[k].stmt, uses);
  for (int ti = 0; ti < tg->g->ntensors; ti++)
    if (uses[ti]) fprintf(f, ", p%d", ti);
}

/* One worker's loop: wait, take the next task and start its prefetch, run, release. */
static void emit_worker(FILE *f, const AxTaskGraph *tg, const bool *any, const unsigned *all,
                        const AxMkCudaOpts *o) {
  const AxMugraph *g = tg->g;
  const AxKernel *k0 = g->stmts[tg->kernels[0].stmt].kernel;
  int64_t nt = k0->block[0] * k0->block[1] * k0->block[2];
  bool early_pf = o && o->early_prefetch;
  fprintf(f, "\n// ---- the persistent kernel: one block per SM, each a worker\n");
  fprintf(f, "__global__ void __launch_bounds__(%" PRId64 ", 1) ax_mk(", nt);
  for (int ti = 0; ti < g->ntensors; ti++)
    if (any[ti])
      fprintf(f, "%s%s *p%d, ", is_input(g, ti) ? "const " : "", ax_cuda_ctype(g->tensors[ti].dtype), ti);
  fprintf(f, "int *ax_state) {\n");
  fprintf(f,
          "  // ax_state[0]: the queue head, the next task to take; ax_state[1 + e]: how many of\n"
          "  // event e's triggers have released it\n"
          "  AX_SMEM_STATIC(ax_mk_slot, 16);  // for the whole block: the task, the next one, the next one's prefetch\n"
          "  AX_SMEM_DYNAMIC(ax_mk_smem);\n"
          "  int *const slot = (int *)ax_mk_slot;\n"
          "  const bool lead = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;\n"
          "  int next = 0;         // thread 0: the task taken ahead, which runs after this one\n"
          "  unsigned pfm = 0;     // every thread: the running task's prefetched first tiles\n"
          "  int par = 0;          // the buffer they are in\n"
          "  if (lead) next = ax_mk_take(&ax_state[0]);\n"
          "  for (;;) {\n"
          "    if (lead) {\n"
          "      const int t = next;\n"
          "      if (t < AX_MK_TASKS) {\n"
          "        AX_MK_POINT(0, t);  // the emulator may hold this worker back here (a slow SM)\n"
          "        const int e = ax_mk_task[t][4];\n"
          "        for (long long spins = 0; ax_mk_load_acquire(&ax_state[1 + e]) < ax_mk_event_triggers[e]; spins++)\n"
          "          AX_MK_PAUSE(spins, e);\n"
          "        AX_MK_POINT(1, t);\n"
          "        // the task after this one, taken now so that its first tiles load while this one runs:\n"
          "        // those of tensors no task writes, and the rest only if its event has fired (acquire)\n"
          "        next = ax_mk_take(&ax_state[0]);\n"
          "        unsigned m = 0;\n"
          "        if (next < AX_MK_TASKS) {\n"
          "          const int nk = ax_mk_task[next][0], ne = ax_mk_task[next][4];\n");
  if (early_pf)
    fprintf(f, "          // MUTANT (a test hook): every first tile, its event not checked\n"
               "          m = ax_mk_pf[nk][1];\n          (void)ne;\n");
  else
    fprintf(f, "          m = ax_mk_pf[nk][0];\n"
               "          if (ax_mk_pf[nk][1] != m && ax_mk_load_acquire(&ax_state[1 + ne]) >= ax_mk_event_triggers[ne])\n"
               "            m = ax_mk_pf[nk][1];\n");
  fprintf(f,
          "        }\n"
          "        slot[1] = next;\n"
          "        slot[2] = (int)m;\n"
          "      }\n"
          "      *slot = t;\n"
          "    }\n"
          "    ax_cp_async_wait<0>();  // this thread's copies of the task's prefetched tiles have landed\n"
          "    __syncthreads();  // the task; after thread 0's acquires its inputs, and every thread's prefetched tiles\n"
          "    const int t = *slot;\n"
          "    if (t >= AX_MK_TASKS) break;\n"
          "    const int nx = slot[1];\n"
          "    const unsigned npfm = (unsigned)slot[2];\n"
          "    unsigned char *const pf = ax_mk_smem + AX_MK_PF_BASE + par * AX_MK_PF_BYTES;\n");
  bool *uses = ax_xcalloc((size_t)g->ntensors + 1, 1);
  bool some = false;
  for (int k = 0; k < tg->nkernels; k++) some |= all[k] != 0;
  if (!some) {
    fprintf(f, "    (void)nx;  // no kernel's first tiles fit beside the largest task: nothing is prefetched\n");
  } else {
    fprintf(f, "    if (npfm) {  // the next task's first tiles, in flight while this task runs\n"
               "      unsigned char *const npf = ax_mk_smem + AX_MK_PF_BASE + (par ^ 1) * AX_MK_PF_BYTES;\n"
               "      const uint3 nb = {(unsigned)ax_mk_task[nx][1], (unsigned)ax_mk_task[nx][2], "
               "(unsigned)ax_mk_task[nx][3]};\n"
               "      switch (ax_mk_task[nx][0]) {\n");
    for (int k = 0; k < tg->nkernels; k++) {
      if (!all[k]) continue;
      fprintf(f, "      case %d: ax_k%d_prefetch(nb, npf, npfm", k, tg->kernels[k].stmt);
      emit_args(f, tg, k, uses);
      fprintf(f, "); break;\n");
    }
    fprintf(f, "      }\n"
               "    }\n");
  }
  fprintf(f, "    ax_cp_async_commit();\n");
  const char *release =
      "      AX_MK_POINT(2, t);  // the emulator may stall here, between the writes and the release\n"
      "      for (int j = ax_mk_task[t][5]; j < ax_mk_task[t][5] + ax_mk_task[t][6]; j++)\n"
      "        ax_mk_add_release(&ax_state[1 + ax_mk_trigs[j]]);\n"
      "      AX_MK_POINT(3, t);\n";
  if (o && o->early_release)
    fprintf(f, "    // MUTANT (a test hook): the events are released before the task's stores\n"
               "    if (lead) {\n%s    }\n", release);
  fprintf(f, "    const uint3 b = {(unsigned)ax_mk_task[t][1], (unsigned)ax_mk_task[t][2], "
             "(unsigned)ax_mk_task[t][3]};\n");
  fprintf(f, "    switch (ax_mk_task[t][0]) {\n");
  for (int k = 0; k < tg->nkernels; k++) {
    fprintf(f, "    case %d: ax_k%d_task(b, pf, pfm", k, tg->kernels[k].stmt);
    emit_args(f, tg, k, uses);
    fprintf(f, "); break;  // %s\n", tg->kernels[k].name);
  }
  free(uses);
  fprintf(f, "    }\n");
  fprintf(f, "    __syncthreads();  // every thread's stores before thread 0's release; the slot and the buffer are free\n");
  if (!(o && o->early_release)) fprintf(f, "    if (lead) {\n%s    }\n", release);
  fprintf(f, "    pfm = npfm;\n    par ^= 1;\n  }\n}\n");
}

/* The host entry: the per-kernel file's signature, one launch. */
static void emit_host(FILE *f, const AxTaskGraph *tg, const bool *any, const AxMkPrefetch *pf) {
  const AxMugraph *g = tg->g;
  const AxKernel *k0 = g->stmts[tg->kernels[0].stmt].kernel;
  char id[128];
  ax_cuda_ident(g->name, id, sizeof id);
  fprintf(f, "\n// ---- host entry: workers 0 is one per SM; more than fit on the device at once are\n"
             "// never launched (they would only wait: see ax_mk's deadlock freedom in docs/gpu.md)\n");
  fprintf(f, "extern \"C\" int axle_run_%s_workers(const void *const *inputs, void *const *outputs, "
             "cudaStream_t stream, int workers) {\n", id);
  bool *is_out = ax_xcalloc((size_t)g->ntensors + 1, 1);
  int ni = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      int ti = g->stmts[s].t;
      fprintf(f, "  %s *const p%d = (%s *)inputs[%d];  // %s\n  (void)p%d;\n", ax_cuda_ctype(g->tensors[ti].dtype),
              ti, ax_cuda_ctype(g->tensors[ti].dtype), ni++, g->tensors[ti].name, ti);
    }
  for (int i = 0; i < g->noutputs; i++) {
    int ti = g->outputs[i];
    if (is_input(g, ti) || is_out[ti]) continue;
    is_out[ti] = true;
    fprintf(f, "  %s *const p%d = (%s *)outputs[%d];  // %s\n", ax_cuda_ctype(g->tensors[ti].dtype), ti,
            ax_cuda_ctype(g->tensors[ti].dtype), i, g->tensors[ti].name);
  }
  fprintf(f, "  cudaError_t err = cudaSuccess;\n  int *ax_state = NULL;\n");
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || is_input(g, ti)) continue;
    fprintf(f, "  %s *p%d = NULL;  // '%s', intermediate\n", ax_cuda_ctype(t->dtype), ti, t->name);
  }
  fprintf(f, "  int dev = 0, sms = 0, per_sm = 0;\n");
  fprintf(f, "  // the largest task's shared memory, then the worker's two prefetch buffers\n"
             "  const size_t smem = %" PRId64 ";\n", pf->base + 2 * pf->bytes);
  fprintf(f,
          "  if ((err = cudaGetDevice(&dev)) != cudaSuccess) goto done;\n"
          "  if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) goto done;\n"
          "  if (smem > 48 * 1024 &&\n"
          "      (err = cudaFuncSetAttribute(ax_mk, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess)\n"
          "    goto done;\n"
          "  if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ax_mk, %" PRId64 ", smem)) != cudaSuccess)\n"
          "    goto done;\n"
          "  if (per_sm < 1) {\n    err = cudaErrorInvalidConfiguration;\n    goto done;\n  }\n"
          "  if (workers <= 0) workers = sms;\n"
          "  if (workers > sms * per_sm) workers = sms * per_sm;\n",
          k0->block[0] * k0->block[1] * k0->block[2]);
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || is_input(g, ti)) continue;
    fprintf(f, "  if ((err = cudaMallocAsync((void **)&p%d, %" PRId64 ", stream)) != cudaSuccess) goto done;\n", ti,
            ax_shape_numel(&t->shape) * (int64_t)ax_dtype_bytes(t->dtype));
  }
  fprintf(f, "  if ((err = cudaMallocAsync((void **)&ax_state, %d * sizeof(int), stream)) != cudaSuccess) goto done;\n"
             "  if ((err = cudaMemsetAsync(ax_state, 0, %d * sizeof(int), stream)) != cudaSuccess) goto done;\n",
          1 + tg->nevents, 1 + tg->nevents);
  fprintf(f, "  AX_LAUNCH(ax_mk, dim3((unsigned)workers), dim3(%" PRId64 ", %" PRId64 ", %" PRId64 "), smem, stream",
          k0->block[0], k0->block[1], k0->block[2]);
  for (int ti = 0; ti < g->ntensors; ti++)
    if (any[ti]) fprintf(f, ", p%d", ti);
  fprintf(f, ", ax_state);\n  if ((err = cudaGetLastError()) != cudaSuccess) goto done;\n");
  for (int i = 0; i < g->noutputs; i++) {
    int ti = g->outputs[i];
    bool again = false;
    for (int j = 0; j < i; j++) again |= g->outputs[j] == ti;
    if (!is_input(g, ti) && !again) continue;
    fprintf(f, "  if ((err = cudaMemcpyAsync(outputs[%d], p%d, %" PRId64 ", cudaMemcpyDeviceToDevice, stream)) != "
               "cudaSuccess) goto done;\n",
            i, ti, ax_shape_numel(&g->tensors[ti].shape) * (int64_t)ax_dtype_bytes(g->tensors[ti].dtype));
  }
  fprintf(f, "done:\n  if (ax_state) cudaFreeAsync(ax_state, stream);\n");
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || is_input(g, ti)) continue;
    fprintf(f, "  if (p%d) cudaFreeAsync(p%d, stream);\n", ti, ti);
  }
  fprintf(f, "  return (int)err;\n}\n");
  fprintf(f, "extern \"C\" int axle_run_%s(const void *const *inputs, void *const *outputs, cudaStream_t stream) {\n"
             "  return axle_run_%s_workers(inputs, outputs, stream, 0);\n}\n", id, id);
  free(is_out);
}

bool ax_mkcuda_emit(FILE *out, const AxTaskGraph *tg, AxCudaTarget t, const AxMkCudaOpts *o,
                    AxDiag *d) {
  if (!fits(tg, d)) return false;
  const AxMugraph *g = tg->g;
  AxCudaOpts co = {.task_body = true};
  if (!ax_cuda_emit_opts(out, g, t, &co, d)) return false;
  /* the persistent kernel's parameters: every tensor some task reads or writes */
  bool *any = ax_xcalloc((size_t)g->ntensors + 1, 1), *uses = ax_xcalloc((size_t)g->ntensors + 1, 1);
  for (int k = 0; k < tg->nkernels; k++) {
    kernel_uses(g, tg->kernels[k].stmt, uses);
    for (int ti = 0; ti < g->ntensors; ti++) any[ti] |= uses[ti];
  }
  free(uses);
  unsigned *safe = ax_xcalloc(2 * (size_t)tg->nkernels + 2, sizeof *safe), *all = safe + tg->nkernels + 1;
  AxMkPrefetch pf;
  bool ok = pf_rule(tg, t, &pf, safe, all, NULL, NULL, d);
  if (ok) {
    emit_tables(out, tg);
    emit_pf_tables(out, tg, &pf, safe, all);
    fputs(runtime_gpu, out);
    emit_worker(out, tg, any, all, o);
    emit_host(out, tg, any, &pf);
  }
  free(safe);
  free(any);
  return ok;
}
