/* merge.h — the JSON reports of the shards of one run (`axle verify --shard K/N --format
 * json`, one per K) joined back into that run's results: `axle gate --merge`.
 *
 * A sharded run's JSON lines carry, besides the result, a "shard" object (written by
 * ax_merge_stamp, last in the line):
 *     {"index": K, "of": N, "task": i, "tasks": T, "results": S, "contradicts": bool,
 *      "require_both": bool, "text": "...", "run": {"rules": H, "options": H, "axle": H},
 *      "check": H}
 * — the result's place i among the T results of the whole run, the S results of shard K,
 * whether the result contradicts its expectation (the exit status 1 kind), whether
 * --require-both was on (a VERIFIED one solver alone confirmed does not meet `expect valid`
 * then), its text form (the replayed counterexample is in no other field), from which the
 * text and JUnit reports are made; the run's identity, three 64-bit digests in hex (of the
 * rule files' paths and bytes and the --rule patterns; of the options that can change a
 * verdict; of the axle executable), and a checksum of the whole line and of that identity.
 *
 * Reading is strict, and nothing a line says about its own standing is taken on trust:
 *   - every line of every report must be such a result of `--numbers real` (an IEEE-mode
 *     result is a bounded check: it cannot gate, as `axle gate --numbers ieee` cannot);
 *   - "met" and "contradicts" are decided again from the verdict, the expectation and the
 *     flags (report.h ax_report_facts_met) — a line whose own differ was edited, and is
 *     refused; the line's checksum must match (any other edit);
 *   - all lines must carry one run identity and one shard count N (shards of another run:
 *     other rule files, options, axle binary or N, are refused, the part that differs
 *     named), each shard must come from one report and hold all S of its results, and
 *     every place 0..T-1 must be filled exactly once.
 * Anything else is an error, never a partial verdict. An empty report is a shard that got
 * no result (N larger than the run). The results are then in the order of the single run,
 * whatever order the reports came in.
 *
 * The checksum guards against damage and mistakes (a report of another run, edited by
 * hand or cut short), not against forgery: FNV-1a is no signature, and whoever can run
 * axle can write any report. */
#ifndef AX_MERGE_H
#define AX_MERGE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verifier/verify.h"

/* --- Writing (axle verify --shard K/N) --------------------------------------------------- */

/* What makes the shards' results one run's. */
typedef struct AxMergeRun {
  uint64_t rules;      /* the rule files, in run order: each path and its bytes; --rule */
  uint64_t options;    /* the verdict-changing options (see ax_merge_identify) */
  uint64_t axle;       /* the axle executable's bytes (ax_cache_executable) */
} AxMergeRun;

/* The identity of the run over files[0..nfiles) (their paths and bytes), restricted to
 * rules matching globs[0..nglobs), under v (solver: the --solver setting as reported),
 * require_both. Its options part digests what the result cache keys (cache.h: the solver
 * set-up by its options and binary name, ax_cache_write_settings), --require-both, --rule
 * and the IEEE options; not what only schedules or formats (--jobs, --format, ...), nor
 * where a solver binary sits on this machine (shards run on machines of their own). False
 * when the executable cannot be read. */
bool ax_merge_identify(AxMergeRun *out, const AxSource *const *files, size_t nfiles,
                       const char *const *globs, int nglobs, const AxVerifyOpts *v,
                       const char *solver, bool require_both);

/* One result's place in a sharded run. */
typedef struct AxMergeShard {
  int index, of;          /* shard K of N, 1 <= K <= N */
  size_t task, tasks;     /* its place among the run's tasks */
  size_t results;         /* how many results shard K has */
  bool contradicts;       /* ax_report_contradicts */
  bool require_both;
  const char *text;       /* its text form (ax_report_text) */
} AxMergeShard;

/* Adds to line, a result of ax_report_json, the "shard" object (above), checksum last. */
void ax_merge_stamp(cJSON *line, const AxMergeRun *run, const AxMergeShard *sh);

/* --- Reading (axle gate --merge) ---------------------------------------------------------- */

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
