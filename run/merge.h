/* merge.h — the JSON reports of the shards of one run (`axle verify --shard K/N --format
 * json`, one per K) joined back into that run's results: `axle gate --merge`.
 *
 * A sharded run's JSON lines carry, besides the result, a "shard" object: {"index": K,
 * "of": N, "task": i, "tasks": T, "contradicts": bool, "text": "..."} — the result's place i
 * among the T results of the whole run, whether it contradicts its expectation (the exit
 * status 1 kind; "met" is already in the line) and its text form (the replayed
 * counterexample is in no other field), from which the text and JUnit reports are made. Reading is strict: every line of every report must be
 * such a result, all must agree on N and T, and every place 0..T-1 must be filled exactly
 * once — a shard missing, repeated, or run on other rules or options is an error, never a
 * partial verdict. An empty report is a shard that got no result (N larger than the run).
 * The results are then in the order of the single run, whatever order the reports came in. */
#ifndef AX_MERGE_H
#define AX_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct AxMerge AxMerge;

/* Reads the reports paths[0..n). Returns owned (ax_merge_free), or NULL with err[0..cap)
 * saying what is wrong, "FILE:LINE: ..." where a line is at fault. */
AxMerge *ax_merge_read(const char *const *paths, size_t n, char *err, size_t cap);
void ax_merge_free(AxMerge *m);   /* NULL is fine */

/* What the run's summary line counts. */
typedef struct AxMergeTotals {
  size_t results;
  int verified, invalid, unknown, errors, trivial, bounded, cached;
  int met, contradicted;
} AxMergeTotals;

void ax_merge_totals(const AxMerge *m, AxMergeTotals *t);

/* The results as `axle verify --format json` prints them: one line each, in run order,
 * without the "shard" object. */
void ax_merge_json(FILE *out, const AxMerge *m);

/* The text form of each result that did not meet its expectation (all of them: unmet_only
 * false), as `axle verify` printed it. */
void ax_merge_text(FILE *out, const AxMerge *m, bool unmet_only);

/* A JUnit document as ax_report_junit writes it (name: the <testsuites> name); its time is
 * the sum of the results' times. */
void ax_merge_junit(FILE *out, const AxMerge *m, const char *name);

#endif
