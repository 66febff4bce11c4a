/* sim.c — list scheduling of a task graph, the per-kernel model and the memory bound
 * (sim.h). */
#include "mpk/sim.h"

#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "mpk/mkcuda.h"

void ax_sim_run(AxArena *a, const AxTaskGraph *tg, const AxTarget *t, int workers, AxSim *s) {
  AX_ASSERT(workers >= 1);
  memset(s, 0, sizeof *s);
  s->target = t;
  s->workers = workers;
  s->event_s = AX_SIM_EVENT_S;
  const AxMugraph *g = tg->g;
  AxCost c;
  ax_cost_run(a, g, t, &c);
  /* the cost model skips free operators as the task graph does: one entry per kernel */
  AX_ASSERT(c.nk == tg->nkernels);
  s->per_kernel_s = c.time_s;
  double *per_task = ax_arena_alloc(a, sizeof(double) * (size_t)(tg->nkernels + 1));
  for (int k = 0; k < tg->nkernels; k++) {
    const AxKCost *kc = &c.k[k];
    double body = kc->time_s - kc->t_launch;
    double rounds = ceil((double)kc->blocks / t->sms);
    per_task[k] = tg->kernels[k].graph_defined && rounds >= 1 ? body / rounds : body;
  }
  s->task_s = ax_arena_alloc(a, sizeof(double) * (size_t)(tg->ntasks + 1));
  s->worker = ax_arena_alloc(a, sizeof(int) * (size_t)(tg->ntasks + 1));
  double *fire = ax_arena_alloc(a, sizeof(double) * (size_t)tg->nevents);
  double *free_at = ax_arena_alloc(a, sizeof(double) * (size_t)workers);
  /* cross-task prefetch: per kernel the first-tile bytes loaded ahead (always, and once the
   * event has fired); per worker its previous task's start and time (-1: none yet) */
  double *pf_safe = ax_arena_alloc(a, sizeof(double) * (size_t)(tg->nkernels + 1));
  double *pf_all = ax_arena_alloc(a, sizeof(double) * (size_t)(tg->nkernels + 1));
  AxMkPrefetch pf;
  if (ax_mkcuda_prefetch(tg, strcmp(t->name, "a100") == 0 ? AX_CUDA_SM80 : AX_CUDA_SM90, &pf, pf_safe, pf_all))
    s->prefetch_tasks = pf.tasks;
  double *prev_start = ax_arena_alloc(a, sizeof(double) * (size_t)workers);
  double *prev_dur = ax_arena_alloc(a, sizeof(double) * (size_t)workers);
  for (int w = 0; w < workers; w++) prev_dur[w] = -1;
  double sm_bps = t->hbm_bps / t->sms;
  double makespan = 0, busy = 0;
  /* linear order is topological: an event's triggers all come before its first dependent */
  for (int i = 0; i < tg->ntasks; i++) {
    const AxTask *x = &tg->tasks[i];
    const AxTgKernel *k = &tg->kernels[x->kernel];
    double dur = per_task[x->kernel];
    s->task_s[i] = dur;
    double ready = x->dep == 0 ? 0 : fire[x->dep] + (k->launch == AX_LAUNCH_JIT ? 2 : 1) * s->event_s;
    double end;
    if (k->graph_defined) {
      int w = 0;
      for (int j = 1; j < workers; j++)
        if (free_at[j] < free_at[w]) w = j;
      double start = free_at[w] > ready ? free_at[w] : ready;
      if (prev_dur[w] >= 0 && s->prefetch_tasks > 0) {
        /* taken when the previous task started: its produced tiles only if the event had
         * fired by then */
        double bytes = x->dep == 0 || ready <= prev_start[w] ? pf_all[x->kernel] : pf_safe[x->kernel];
        double credit = bytes / sm_bps;
        if (credit > prev_dur[w]) credit = prev_dur[w];
        if (credit > dur) credit = dur;
        if (credit > 0) {
          dur -= credit;
          s->task_s[i] = dur;
          s->prefetched++;
          s->prefetch_s += credit;
        }
      }
      end = start + dur;
      free_at[w] = end;
      prev_start[w] = start;
      prev_dur[w] = dur;
      s->worker[i] = w;
      busy += dur;
    } else {
      double start = ready;
      for (int j = 0; j < workers; j++)
        if (free_at[j] > start) start = free_at[j];
      end = start + dur;
      for (int j = 0; j < workers; j++) free_at[j] = end, prev_dur[j] = -1;
      s->worker[i] = -1;
      busy += dur * workers;
    }
    for (int j = x->trig; j < x->trig + x->ntrig; j++)
      if (fire[tg->trigs[j]] < end) fire[tg->trigs[j]] = end;
    if (end > makespan) makespan = end;
  }
  s->makespan_s = makespan;
  s->megakernel_s = t->launch_s + makespan;
  s->busy = makespan > 0 ? busy / (makespan * workers) : 0;
  for (int i = 0; i < g->nstmts; i++)
    if (g->stmts[i].kind == AX_KS_INPUT) {
      const AxKTensor *x = &g->tensors[g->stmts[i].t];
      s->bytes += (double)ax_shape_numel(&x->shape) * (double)ax_dtype_bytes(x->dtype);
    }
  for (int i = 0; i < g->noutputs; i++) {
    const AxKTensor *x = &g->tensors[g->outputs[i]];
    s->bytes += (double)ax_shape_numel(&x->shape) * (double)ax_dtype_bytes(x->dtype);
  }
  s->bound_s = s->bytes / t->hbm_bps;
}

void ax_sim_print_text(FILE *out, const AxTaskGraph *tg, const AxSim *s) {
  const AxTarget *t = s->target;
  fprintf(out, "%s on %s: %d task%s, %d events, %d worker%s; every time modelled, not measured\n",
          tg->g->name, t->desc, tg->ntasks, tg->ntasks == 1 ? "" : "s", tg->nevents, s->workers,
          s->workers == 1 ? "" : "s");
  fprintf(out,
          "  megakernel  %10.2f us  one launch (%.2f us) + the list schedule (%.2f us; event "
          "latency %.2f us, workers busy %.0f%%)\n",
          s->megakernel_s * 1e6, t->launch_s * 1e6, s->makespan_s * 1e6, s->event_s * 1e6,
          s->busy * 100);
  fprintf(out, "  prefetch    %d of %d tasks may load their first tiles during the task before; %d credited, "
               "%.2f us of task time in all\n",
          s->prefetch_tasks, tg->ntasks, s->prefetched, s->prefetch_s * 1e6);
  fprintf(out, "  per-kernel  %10.2f us  %d launch%s in order, the cost model's sum (axle cost)\n",
          s->per_kernel_s * 1e6, tg->nkernels, tg->nkernels == 1 ? "" : "es");
  fprintf(out, "  bound       %10.2f us  %.0f bytes of inputs and outputs at %.2f TB/s of HBM\n",
          s->bound_s * 1e6, s->bytes, t->hbm_bps / 1e12);
}

void ax_sim_print_json(FILE *out, const AxTaskGraph *tg, const AxSim *s) {
  fprintf(out,
          "{\"graph\": \"%s\", \"target\": \"%s\", \"modelled\": true, \"workers\": %d, "
          "\"tasks\": %d, \"events\": %d, \"event_latency_us\": %.4f, \"launch_us\": %.4f, "
          "\"megakernel_us\": %.4f, \"schedule_us\": %.4f, \"busy\": %.4f, "
          "\"per_kernel_us\": %.4f, \"kernels\": %d, \"bound_us\": %.4f, \"bound_bytes\": %.0f, "
          "\"prefetch_tasks\": %d, \"prefetched\": %d, \"prefetch_us\": %.4f, \"assignment\": [",
          tg->g->name, s->target->name, s->workers, tg->ntasks, tg->nevents, s->event_s * 1e6,
          s->target->launch_s * 1e6, s->megakernel_s * 1e6, s->makespan_s * 1e6, s->busy,
          s->per_kernel_s * 1e6, tg->nkernels, s->bound_s * 1e6, s->bytes, s->prefetch_tasks, s->prefetched,
          s->prefetch_s * 1e6);
  /* each worker's tasks in the order it runs them: the schedule hands tasks out in linear
   * order and a worker's start times only grow, so linear order is its run order */
  for (int w = 0; w < s->workers; w++) {
    fprintf(out, "%s{\"worker\": %d, \"tasks\": [", w ? ", " : "", w);
    int n = 0;
    for (int t = 0; t < tg->ntasks; t++)
      if (s->worker[t] == w || s->worker[t] < 0) fprintf(out, "%s%d", n++ ? ", " : "", t);
    fprintf(out, "]}");
  }
  fprintf(out, "]}\n");
}
