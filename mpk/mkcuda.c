/* mkcuda.c — the persistent megakernel's CUDA: task functions, tables, runtime, host entry
 * (mkcuda.h). */
#include "mpk/mkcuda.h"

#include <inttypes.h>

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

/* One worker's loop: take, wait, run, release. */
static void emit_worker(FILE *f, const AxTaskGraph *tg, const bool *any, const AxMkCudaOpts *o) {
  const AxMugraph *g = tg->g;
  const AxKernel *k0 = g->stmts[tg->kernels[0].stmt].kernel;
  int64_t nt = k0->block[0] * k0->block[1] * k0->block[2];
  fprintf(f, "\n// ---- the persistent kernel: one block per SM, each a worker\n");
  fprintf(f, "__global__ void __launch_bounds__(%" PRId64 ", 1) ax_mk(", nt);
  for (int ti = 0; ti < g->ntensors; ti++)
    if (any[ti])
      fprintf(f, "%s%s *p%d, ", is_input(g, ti) ? "const " : "", ax_cuda_ctype(g->tensors[ti].dtype), ti);
  fprintf(f, "int *ax_state) {\n");
  fprintf(f,
          "  // ax_state[0]: the queue head, the next task to take; ax_state[1 + e]: how many of\n"
          "  // event e's triggers have released it\n"
          "  AX_SMEM_STATIC(ax_mk_slot, 16);  // the task thread 0 took, for the whole block\n"
          "  int *const slot = (int *)ax_mk_slot;\n"
          "  const bool lead = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;\n"
          "  for (;;) {\n"
          "    if (lead) {\n"
          "      const int t = ax_mk_take(&ax_state[0]);\n"
          "      if (t < AX_MK_TASKS) {\n"
          "        AX_MK_POINT(0, t);  // the emulator may hold this worker back here (a slow SM)\n"
          "        const int e = ax_mk_task[t][4];\n"
          "        for (long long spins = 0; ax_mk_load_acquire(&ax_state[1 + e]) < ax_mk_event_triggers[e]; spins++)\n"
          "          AX_MK_PAUSE(spins, e);\n"
          "        AX_MK_POINT(1, t);\n"
          "      }\n"
          "      *slot = t;\n"
          "    }\n"
          "    __syncthreads();  // the task and, after thread 0's acquire, its inputs\n"
          "    const int t = *slot;\n"
          "    if (t >= AX_MK_TASKS) break;\n");
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
  bool *uses = ax_xcalloc((size_t)g->ntensors + 1, 1);
  for (int k = 0; k < tg->nkernels; k++) {
    int s = tg->kernels[k].stmt;
    kernel_uses(g, s, uses);
    fprintf(f, "    case %d: ax_k%d_task(b", k, s);
    for (int ti = 0; ti < g->ntensors; ti++)
      if (uses[ti]) fprintf(f, ", p%d", ti);
    fprintf(f, "); break;  // %s\n", tg->kernels[k].name);
  }
  free(uses);
  fprintf(f, "    }\n");
  fprintf(f, "    __syncthreads();  // every thread's stores before thread 0's release; the slot is free\n");
  if (!(o && o->early_release)) fprintf(f, "    if (lead) {\n%s    }\n", release);
  fprintf(f, "  }\n}\n");
}

/* The host entry: the per-kernel file's signature, one launch. */
static void emit_host(FILE *f, const AxTaskGraph *tg, const bool *any) {
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
  fprintf(f, "  int dev = 0, sms = 0, per_sm = 0;\n  size_t smem = 0;\n");
  for (int k = 0; k < tg->nkernels; k++)
    fprintf(f, "  if ((size_t)AX_SMEM_K%d > smem) smem = AX_SMEM_K%d;\n", tg->kernels[k].stmt,
            tg->kernels[k].stmt);
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
  emit_tables(out, tg);
  fputs(runtime_gpu, out);
  emit_worker(out, tg, any, o);
  emit_host(out, tg, any);
  free(any);
  return true;
}
