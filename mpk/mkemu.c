/* mkemu.c — the megakernel run by the emulator, and the mutation its test uses (mkemu.h). */
#include "mpk/mkemu.h"

#include <inttypes.h>
#include <string.h>

int ax_mkemu_run(const AxTaskGraph *tg, AxDiag *d, const AxEmuOpts *o, const AxMkCudaOpts *mo) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  AX_ASSERT(f);
  /* the emulator runs sm_90's code (as `axle emulate` does) */
  bool ok = ax_mkcuda_emit(f, tg, AX_CUDA_SM90, mo, d);
  AX_ASSERT(fclose(f) == 0);
  int status = 3;
  if (ok) {
    AxEmuOpts eo = *o;
    eo.megakernel = text;
    if (eo.workers < 1) eo.workers = 1;
    if (eo.runs < 1) eo.runs = 1;
    status = ax_emu_run(tg->g, d, &eo);
  }
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
