/* tgprint.c — text, JSON and DOT of a task graph (tgprint.h). */
#include "mpk/tgprint.h"

#include <inttypes.h>

const char *ax_tgprint_launch_name(AxLaunch l) { return l == AX_LAUNCH_JIT ? "jit" : "aot"; }

static int first_task_of(const AxTaskGraph *tg, int k) {
  for (int t = 0; t < tg->ntasks; t++)
    if (tg->tasks[t].kernel == k) return t;
  return -1;
}

void ax_tgprint_text(FILE *out, const AxTaskGraph *tg) {
  char name[96];
  fprintf(out,
          "task graph of %s: %d tasks in %d kernel%s, %d events (%" PRId64
          " producer-consumer pairs before fusion), %d triggers\n",
          tg->g->name, tg->ntasks, tg->nkernels, tg->nkernels == 1 ? "" : "s", tg->nevents,
          tg->pairs, tg->ntrigs);
  for (int k = 0; k < tg->nkernels; k++) {
    const AxTgKernel *K = &tg->kernels[k];
    fprintf(out, "kernel %s: %s, grid %" PRId64 "x%" PRId64 "x%" PRId64 ", %d task%s, %s\n",
            K->name, K->graph_defined ? "graph-defined" : "pre-defined operator", K->grid[0],
            K->grid[1], K->grid[2], K->ntasks, K->ntasks == 1 ? "" : "s",
            K->launch == AX_LAUNCH_JIT ? "JIT" : "AOT");
  }
  for (int e = 0; e < tg->nevents; e++) {
    const AxEvent *ev = &tg->events[e];
    fprintf(out, "event %d%s: %d trigger%s, launches tasks [%d, %d)\n", e,
            e == 0 ? " (start)" : e == tg->end ? " (end)" : "", ev->ntriggers,
            ev->ntriggers == 1 ? "" : "s", ev->first, ev->last);
  }
  for (int t = 0; t < tg->ntasks; t++) {
    const AxTask *x = &tg->tasks[t];
    fprintf(out, "task %d: %s, waits for event %d, triggers", t,
            ax_taskgraph_task_name(tg, t, name, sizeof name), x->dep);
    for (int j = 0; j < x->ntrig; j++) fprintf(out, "%s %d", j ? "," : "", tg->trigs[x->trig + j]);
    fputc('\n', out);
  }
}

void ax_tgprint_json(FILE *out, const AxTaskGraph *tg) {
  fprintf(out,
          "{\"graph\": \"%s\", \"ntasks\": %d, \"nevents\": %d, \"start_event\": 0, "
          "\"end_event\": %d, \"unfused_events\": %" PRId64 ", \"kernels\": [",
          tg->g->name, tg->ntasks, tg->nevents, tg->end, tg->pairs);
  for (int k = 0; k < tg->nkernels; k++) {
    const AxTgKernel *K = &tg->kernels[k];
    fprintf(out,
            "%s{\"name\": \"%s\", \"graph_defined\": %s, \"grid\": [%" PRId64 ", %" PRId64
            ", %" PRId64 "], \"tasks\": %d, \"first_task\": %d, \"launch\": \"%s\"}",
            k ? ", " : "", K->name, K->graph_defined ? "true" : "false", K->grid[0], K->grid[1],
            K->grid[2], K->ntasks, first_task_of(tg, k), ax_tgprint_launch_name(K->launch));
  }
  fprintf(out, "], \"events\": [");
  for (int e = 0; e < tg->nevents; e++) {
    const AxEvent *ev = &tg->events[e];
    fprintf(out, "%s{\"id\": %d, \"triggers\": %d, \"first\": %d, \"last\": %d}", e ? ", " : "",
            e, ev->ntriggers, ev->first, ev->last);
  }
  fprintf(out, "], \"tasks\": [");
  for (int t = 0; t < tg->ntasks; t++) {
    const AxTask *x = &tg->tasks[t];
    fprintf(out,
            "%s{\"id\": %d, \"kernel\": \"%s\", \"block\": [%" PRId64 ", %" PRId64 ", %" PRId64
            "], \"wait\": %d, \"trigger\": [",
            t ? ", " : "", t, tg->kernels[x->kernel].name, x->block[0], x->block[1], x->block[2],
            x->dep);
    for (int j = 0; j < x->ntrig; j++) fprintf(out, "%s%d", j ? ", " : "", tg->trigs[x->trig + j]);
    fprintf(out, "], \"launch\": \"%s\"}", ax_tgprint_launch_name(tg->kernels[x->kernel].launch));
  }
  fprintf(out, "]}\n");
}

/* Tasks t and u wait for the same event and trigger the same events. */
static bool same_edges(const AxTaskGraph *tg, int t, int u) {
  const AxTask *x = &tg->tasks[t], *y = &tg->tasks[u];
  if (x->kernel != y->kernel || x->dep != y->dep || x->ntrig != y->ntrig) return false;
  for (int j = 0; j < x->ntrig; j++)
    if (tg->trigs[x->trig + j] != tg->trigs[y->trig + j]) return false;
  return true;
}

/* A run of consecutive tasks with the same edges is one box "T4-T7 (4 blocks)": the picture
 * loses no dependency, and a decoder layer's hundreds of tasks become a few dozen boxes. */
void ax_tgprint_dot(FILE *out, const AxTaskGraph *tg) {
  fprintf(out,
          "// the task graph of %s: tasks grouped by kernel (a box is a run of consecutive tasks "
          "with the same events), events as circles\n",
          tg->g->name);
  fprintf(out, "digraph \"%s_tasks\" {\n  rankdir=TB; node [fontname=\"Helvetica\", fontsize=9];\n",
          tg->g->name);
  for (int k = 0; k < tg->nkernels; k++) {
    const AxTgKernel *K = &tg->kernels[k];
    fprintf(out,
            "  subgraph cluster_k%d {\n    label=\"%s (%s, %d task%s)\"; style=rounded;\n", k,
            K->name, K->launch == AX_LAUNCH_JIT ? "JIT" : "AOT", K->ntasks,
            K->ntasks == 1 ? "" : "s");
    for (int t = 0; t < tg->ntasks; t++) {
      const AxTask *x = &tg->tasks[t];
      if (x->kernel != k) continue;
      int u = t;
      while (u + 1 < tg->ntasks && same_edges(tg, t, u + 1)) u++;
      const AxTask *y = &tg->tasks[u];
      if (u == t)
        fprintf(out, "    t%d [shape=box, label=\"T%d\\n%" PRId64 ",%" PRId64 ",%" PRId64 "\"];\n",
                t, t, x->block[0], x->block[1], x->block[2]);
      else
        fprintf(out,
                "    t%d [shape=box3d, label=\"T%d-T%d (%d blocks)\\n%" PRId64 ",%" PRId64
                ",%" PRId64 " .. %" PRId64 ",%" PRId64 ",%" PRId64 "\"];\n",
                t, t, u, u - t + 1, x->block[0], x->block[1], x->block[2], y->block[0],
                y->block[1], y->block[2]);
      t = u;
    }
    fprintf(out, "  }\n");
  }
  for (int e = 0; e < tg->nevents; e++)
    fprintf(out, "  e%d [shape=circle, width=0.3, label=\"%s%d\\n/%d\"];\n", e,
            e == 0 ? "start " : e == tg->end ? "end " : "e", e, tg->events[e].ntriggers);
  for (int t = 0; t < tg->ntasks; t++) {
    const AxTask *x = &tg->tasks[t];
    fprintf(out, "  e%d -> t%d;\n", x->dep, t);
    for (int j = 0; j < x->ntrig; j++) fprintf(out, "  t%d -> e%d;\n", t, tg->trigs[x->trig + j]);
    while (t + 1 < tg->ntasks && same_edges(tg, t, t + 1)) t++;
  }
  fprintf(out, "}\n");
}
