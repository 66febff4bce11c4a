/* report.h — verification results written out: text for people, JSON lines for programs,
 * JUnit XML for CI systems (docs/cli.md), and a result's complete record, the form in which
 * a result crosses from a worker process to the caller (jobs.h) and sits in the cache
 * (cache.h).
 *
 * A record is a JSON object with every field of AxResult that is not borrowed from the
 * AST. Reading one back is strict: a missing or ill-typed field, bounds that do not fit the
 * rule, or an INVALID verdict without its replayed counterexample make the whole record
 * unreadable, and the caller treats it as no result at all. The one exception is
 * `inferred_hint`, added later: a record without it (an older cache entry) reads as NULL. */
#ifndef AX_REPORT_H
#define AX_REPORT_H

#include <cjson/cJSON.h>

#include "verifier/verify.h"

/* What "met" and "contradicts" are decided from, and nothing else: a result's verdict,
 * its rule's expectation and three flags. `axle gate --merge` rebuilds these from a JSON
 * line (merge.h) and decides both again rather than reading them. */
typedef struct AxReportFacts {
  AxVerdict verdict;
  AxExpect expect;
  bool vacuous, trivial;
  bool single_refused;   /* one solver alone stands behind it, under --require-both */
} AxReportFacts;

AxReportFacts ax_report_facts(const AxResult *r);

/* Whether a result of these facts meets its rule's expectation (`expect valid` by
 * default; a vacuous or trivial VERIFIED never does), and whether it contradicts it
 * (INVALID where valid was expected, VERIFIED where invalid was). A contradicting result
 * makes `axle verify` exit 1; one that is merely not met (UNKNOWN, ERROR, vacuous) 2. */
bool ax_report_facts_met(const AxReportFacts *f);
bool ax_report_facts_contradict(const AxReportFacts *f);

/* The same of r. */
bool ax_report_met(const AxResult *r);
bool ax_report_contradicts(const AxResult *r);

/* "valid", "invalid", "invalid-hint", "trivial": the "expected" of the JSON report. */
const char *ax_report_expect_name(AxExpect e);

/* "VERIFIED", "INVALID", "INVALID-HINT", "UNKNOWN", "ERROR", "HOLDS-BOUNDED". */
const char *ax_report_verdict_upper(AxVerdict v);

/* The element type as reported: "real", "int", "bool", or in IEEE mode "f32", "f16",
 * "bf16". */
const char *ax_report_type_name(const AxResult *r);

/* The source line of r's rule. */
int ax_report_line(const AxResult *r);

/* The text form: one line per result, then, indented, the inferred hint (if any) and the
 * counterexample or the reason. */
void ax_report_text(FILE *out, const AxResult *r, const char *path);

/* The JSON object of `axle verify --format json` (docs/cli.md), owned by the caller
 * (cJSON_Delete). solver names the back-end ("z3", "portfolio+cross-check", ...). */
cJSON *ax_report_json(const AxResult *r, const char *path, const char *solver);

/* r's complete record as JSON text, owned (free). */
char *ax_report_record(const AxResult *r);

/* Rebuilds into *out the result that ax_report_record wrote for rule at type t. False,
 * with *out zeroed, if text is no such record. Borrows rule. */
bool ax_report_unrecord(const char *text, const AxBlock *rule, AxType t, AxResult *out);

/* One result of a run, for the JUnit writer. */
typedef struct AxReportItem {
  const AxResult *r;
  const char *path;
} AxReportItem;

/* A JUnit XML document: one <testsuite> per file (consecutive items of one path), one
 * <testcase> per item. A result that contradicts its expectation is a <failure>, one that
 * merely does not meet it (UNKNOWN, ERROR, vacuous) an <error>; either carries the text
 * report (the counterexample, or the reason). */
void ax_report_junit(FILE *out, const AxReportItem *items, size_t n, const char *name,
                     const char *solver, double seconds);

/* Where a result stands against its rule's expectation: the exit status it asks for is 0,
 * 1 and 2 in this order (docs/cli.md). */
typedef enum { AX_OUTCOME_MET, AX_OUTCOME_CONTRADICTS, AX_OUTCOME_NOT_MET } AxOutcome;

AxOutcome ax_report_outcome(const AxResult *r);

/* One <testcase> as the JUnit writer needs it, whatever it was made from (a result, or a
 * line of a JSON report when shards are merged); every string borrowed. */
typedef struct AxReportCase {
  const char *path;      /* the rule's file: consecutive cases of one path form a testsuite */
  const char *name;      /* "RULE [TYPE]", or "RULE" for an untyped rule */
  int line;
  double time_ms;
  AxOutcome outcome;     /* met: <system-out>; contradicts: <failure>; not met: <error> */
  const char *verdict;   /* the failure's or error's type: ax_verdict_name */
  const char *message;   /* its message attribute: "INVALID, expected valid" */
  const char *text;      /* the result in text form */
} AxReportCase;

/* The JUnit document of ax_report_junit, from cases. */
void ax_report_junit_cases(FILE *out, const AxReportCase *c, size_t n, const char *name,
                           const char *solver, double seconds);

#endif
