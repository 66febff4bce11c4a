/* tgprint.h — the task graph (taskgraph.h) printed for people and programs
 * (`axle mpk GRAPH.mug --task-graph`; docs/mpk.md describes each format).
 *
 *   text  a summary line, one line per kernel, per event and per task;
 *   json  one object: graph, tasks, events, kernels (fields in docs/mpk.md);
 *   dot   Graphviz: a cluster of task boxes per kernel, events as small circles, edges
 *         task -> event (it triggers) and event -> task (it launches); a run of
 *         consecutive tasks with the same edges is one box ("T4-T7 (4 blocks)").
 * All borrow tg and write to out. */
#ifndef AX_TGPRINT_H
#define AX_TGPRINT_H

#include <stdio.h>

#include "mpk/taskgraph.h"

void ax_tgprint_text(FILE *out, const AxTaskGraph *tg);
void ax_tgprint_json(FILE *out, const AxTaskGraph *tg);
void ax_tgprint_dot(FILE *out, const AxTaskGraph *tg);

/* "aot" or "jit" */
const char *ax_tgprint_launch_name(AxLaunch l);

#endif
