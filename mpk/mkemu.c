/* mkemu.c — the task graph written for the emulated megakernel runtime, and its run
 * (mkemu.h). */
#include "mpk/mkemu.h"

#include <inttypes.h>
#include <string.h>

char *ax_mkemu_text(const AxTaskGraph *tg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  AX_ASSERT(f);
  fprintf(f, "axle-mk %d %d %d\n", tg->nkernels, tg->ntasks, tg->nevents);
  for (int k = 0; k < tg->nkernels; k++)
    fprintf(f, "%" PRId64 " %" PRId64 " %" PRId64 "\n", tg->kernels[k].grid[0],
            tg->kernels[k].grid[1], tg->kernels[k].grid[2]);
  for (int e = 0; e < tg->nevents; e++)
    fprintf(f, "%d %d %d\n", tg->events[e].ntriggers, tg->events[e].first, tg->events[e].last);
  for (int t = 0; t < tg->ntasks; t++) {
    const AxTask *x = &tg->tasks[t];
    fprintf(f, "%d %" PRId64 " %" PRId64 " %" PRId64 " %d %d", x->kernel, x->block[0], x->block[1],
            x->block[2], x->dep, x->ntrig);
    for (int j = 0; j < x->ntrig; j++) fprintf(f, " %d", tg->trigs[x->trig + j]);
    fputc('\n', f);
  }
  AX_ASSERT(fclose(f) == 0);
  return buf;
}

int ax_mkemu_run(const AxTaskGraph *tg, AxDiag *d, const AxEmuOpts *o) {
  for (int k = 0; k < tg->nkernels; k++)
    if (!tg->kernels[k].graph_defined) {
      ax_diag_error(d, tg->g->stmts[tg->kernels[k].stmt].span,
                    "the emulated megakernel runs graph-defined kernels only, and '%s' is a "
                    "pre-defined operator",
                    tg->kernels[k].name);
      return 3;
    }
  AxEmuOpts mo = *o;
  char *text = ax_mkemu_text(tg);
  mo.tasks = text;
  if (mo.workers < 1) mo.workers = 1;
  if (mo.runs < 1) mo.runs = 1;
  int status = ax_emu_run(tg->g, d, &mo);
  free(text);
  return status;
}

bool ax_mkemu_drop_edge(AxTaskGraph *tg, char *msg, size_t cap) {
  for (int e = 1; e < tg->nevents; e++) {
    if (e == tg->end || tg->events[e].first == tg->events[e].last) continue;
    for (int u = 0; u < tg->ntasks; u++) {
      AxTask *x = &tg->tasks[u];
      for (int j = x->trig; j < x->trig + x->ntrig; j++) {
        if (tg->trigs[j] != e) continue;
        /* the trigger list stays a range: the dropped entry moves to its end, outside */
        tg->trigs[j] = tg->trigs[x->trig + x->ntrig - 1];
        tg->trigs[x->trig + x->ntrig - 1] = e;
        x->ntrig--;
        tg->events[e].ntriggers--;
        char name[96];
        snprintf(msg, cap, "the edge from task %d (%s) to event %d", u,
                 ax_taskgraph_task_name(tg, u, name, sizeof name), e);
        return true;
      }
    }
  }
  return false;
}
