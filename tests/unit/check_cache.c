/* check_cache.c — the result cache (run/cache.h) and result records and reports
 * (run/report.h): a stored verdict comes back only under key material equal byte for
 * byte; layout and comments do not change the key, the rule, the type, the solver or its
 * options do; UNKNOWN, ERROR and disagreements are never stored; every corrupt, truncated,
 * forged or mismatched entry is ignored; JUnit XML escapes what it must. Results come from
 * real verifications with z3. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "dsl/print.h"
#include "run/cache.h"
#include "run/report.h"
#include "verifier/verify.h"

static const char RULES[] =
    "rule pad_low_combine for T in num {\n"
    "  rclass x\n"
    "  map s over x\n"
    "  map l1, l2 over x nonneg\n"
    "  tensor Y : T[x: s]\n"
    "\n"
    "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1 + l2})\n"
    "}\n"
    "rule off_by_one for T in num expect invalid {\n"
    "  rclass x\n"
    "  map s over x\n"
    "  map l1, l2 over x nonneg\n"
    "  tensor Y : T[x: s]\n"
    "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l1 + l2 + 1})\n"
    "}\n";

/* Sums without a written hint: axle infers the pairing of their indices. */
static const char SUMS[] =
    "rule reduce_of_reduce for T in num {\n"
    "  rclass x, y\n"
    "  map sx over x\n"
    "  map sy over y\n"
    "  tensor X : T[x: sx, y: sy]\n"
    "  reduce(reduce(X, [x]), [y]) => reduce(X, [x, y])\n"
    "}\n";

/* The first rule again: other layout, comments. */
static const char SAME[] =
    "# a comment\n"
    "rule pad_low_combine for T in num {   # on the header\n"
    "  rclass x\n\n\n"
    "  map s over x\n"
    "  map l1, l2 over x nonneg   # more\n"
    "  tensor Y : T[x: s]\n"
    "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) =>\n"
    "     pad_low(Y, 0, {x: (l1 + l2)})\n"
    "}\n";

/* The first rule with another right-hand side. */
static const char OTHER[] =
    "rule pad_low_combine for T in num {\n"
    "  rclass x\n"
    "  map s over x\n"
    "  map l1, l2 over x nonneg\n"
    "  tensor Y : T[x: s]\n"
    "  pad_low(pad_low(Y, 0, {x: l1}), 0, {x: l2}) => pad_low(Y, 0, {x: l2 + l1})\n"
    "}\n";

static AxArena *A;
static AxDiag D;
static char dir[64];
static AxVerifyOpts opts;
static AxCache *cache;

static AxFile *load(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.axl", text, strlen(text));
  AxFile *f = ax_parse(A, &D, src);
  ck_assert_int_eq(D.errors, 0);
  ck_assert(ax_check_file(A, &D, f));
  return f;
}

static void setup(void) {
  A = ax_arena_new();
  ax_diag_init(&D, stderr);
  snprintf(dir, sizeof dir, "/tmp/axle-cache-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  memset(&opts, 0, sizeof opts);
  opts.solver.kind = AX_SOLVER_Z3;
  opts.solver.timeout_ms = 10000;
  char why[256] = "";
  cache = ax_cache_open(dir, &opts, "z3", why, sizeof why);
  ck_assert_msg(cache != NULL, "%s", why);
}

static void teardown(void) {
  ax_cache_close(cache);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  ax_arena_free(A);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* FNV-1a 64 as cache.c computes an entry's checksum, to forge entries that pass it. */
static void checksum(const char *key, const char *record, char out[17]) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char *c = (const unsigned char *)key;; c++) {
    h ^= *c;
    h *= 0x100000001b3ULL;
    if (!*c) break;
  }
  for (const unsigned char *c = (const unsigned char *)record; *c; c++) {
    h ^= *c;
    h *= 0x100000001b3ULL;
  }
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* An entry for key with this record text and a correct checksum. */
static void forge(const char *key, const char *record, int format) {
  char sum[17], path[512];
  checksum(key, record, sum);
  cJSON *e = cJSON_CreateObject();
  cJSON_AddNumberToObject(e, "format", format);
  cJSON_AddStringToObject(e, "key", key);
  cJSON_AddStringToObject(e, "record", record);
  cJSON_AddStringToObject(e, "checksum", sum);
  char *text = cJSON_Print(e);
  write_file(ax_cache_entry_path(cache, key, path, sizeof path), text);
  cJSON_free(text);
  cJSON_Delete(e);
}

START_TEST(test_key_material) {
  AxFile *f = load(RULES), *same = load(SAME), *other = load(OTHER);
  char *k = ax_cache_key(cache, f->blocks[0], AX_INT);
  ck_assert_ptr_nonnull(strstr(k, "axle " AXLE_VERSION ", executable "));
  ck_assert_ptr_nonnull(strstr(k, "solver z3, kind 0, cross-check no\n"));
  ck_assert_ptr_nonnull(strstr(k, "z3 library: "));
  ck_assert_ptr_nonnull(strstr(k, "timeout 10000 ms"));
  ck_assert_ptr_nonnull(strstr(k, "element type int\nrule pad_low_combine for T in num {\n"));
  char *k_same = ax_cache_key(cache, same->blocks[0], AX_INT);
  ck_assert_str_eq(k, k_same);   /* layout and comments do not matter */
  char *k_other = ax_cache_key(cache, other->blocks[0], AX_INT);
  ck_assert_str_ne(k, k_other);
  char *k_real = ax_cache_key(cache, f->blocks[0], AX_REAL);
  ck_assert_str_ne(k, k_real);
  char *k_mut = ax_cache_key(cache, f->blocks[1], AX_INT);
  ck_assert_str_ne(k, k_mut);

  /* every option that can change a verdict is in the key */
  AxVerifyOpts o2[4];
  const char *names[4] = {"z3", "cvc5", "portfolio", "z3"};
  for (int i = 0; i < 4; i++) o2[i] = opts;
  o2[0].solver.timeout_ms = 5000;
  o2[1].solver.kind = AX_SOLVER_PIPE;
  o2[1].solver.binary = "cvc5";
  o2[2].solver.kind = AX_SOLVER_PORTFOLIO;
  o2[2].solver.binary = "cvc5";
  o2[3].solver.cross_check = true;
  o2[3].solver.binary = "cvc5";
  for (int i = 0; i < 4; i++) {
    char why[256];
    AxCache *c2 = ax_cache_open(dir, &o2[i], names[i], why, sizeof why);
    ck_assert_ptr_nonnull(c2);
    char *k2 = ax_cache_key(c2, f->blocks[0], AX_INT);
    ck_assert_msg(strcmp(k, k2) != 0, "option set %d gives the same key", i);
    if (i == 1) ck_assert_ptr_nonnull(strstr(k2, "solver binary: /"));
    free(k2);
    ax_cache_close(c2);
  }
  free(k);
  free(k_same);
  free(k_other);
  free(k_real);
  free(k_mut);
}
END_TEST

static void expect_same(const AxResult *a, const AxResult *b) {
  ck_assert_int_eq(a->verdict, b->verdict);
  ck_assert_int_eq(a->nrclasses, b->nrclasses);
  for (int i = 0; i < a->nrclasses; i++) {
    ck_assert_int_eq(a->bounds[i], b->bounds[i]);
    ck_assert_str_eq(a->rclass_names[i], b->rclass_names[i]);
  }
  ck_assert_int_eq(a->instances, b->instances);
  ck_assert_int_eq(a->queries, b->queries);
  double dt = a->time_ms - b->time_ms;   /* JSON keeps 15 significant digits */
  ck_assert(dt < 1e-6 && dt > -1e-6);
  ck_assert_int_eq(a->vacuous, b->vacuous);
  ck_assert_int_eq(a->disagreement, b->disagreement);
  if (a->cex_text) ck_assert_str_eq(a->cex_text, b->cex_text);
  else ck_assert_ptr_null(b->cex_text);
  if (a->cex_json) ck_assert_str_eq(a->cex_json, b->cex_json);
  if (a->reason) ck_assert_str_eq(a->reason, b->reason);
  else ck_assert_ptr_null(b->reason);
  if (a->inferred_hint) ck_assert_str_eq(a->inferred_hint, b->inferred_hint);
  else ck_assert_ptr_null(b->inferred_hint);
}

START_TEST(test_round_trip) {
  AxFile *f = load(RULES);
  for (int i = 0; i < 2; i++) {
    AxResult r, back;
    ax_verify_rule(f->blocks[i], AX_INT, &opts, &r);
    ck_assert_int_eq(r.verdict, i == 0 ? AX_VERIFIED : AX_INVALID);
    char *key = ax_cache_key(cache, f->blocks[i], AX_INT);
    ck_assert(!ax_cache_get(cache, key, f->blocks[i], AX_INT, &back));   /* empty cache */
    ck_assert(ax_cache_put(cache, key, &r));
    ck_assert(ax_cache_get(cache, key, f->blocks[i], AX_INT, &back));
    ck_assert(back.cached);
    expect_same(&r, &back);
    /* the same record through the worker path */
    char *rec = ax_report_record(&r);
    AxResult again;
    ck_assert(ax_report_unrecord(rec, f->blocks[i], AX_INT, &again));
    expect_same(&r, &again);
    ck_assert(!again.cached);
    free(rec);
    ax_result_free(&again);
    ax_result_free(&back);
    ax_result_free(&r);
    free(key);
  }
}
END_TEST

/* The inferred pairing travels with the result: records, cache, text and JSON; a record
 * written before the field existed reads as one without it. */
START_TEST(test_inferred_hint) {
  AxFile *f = load(SUMS), *plain = load(RULES);
  AxResult r, back, none;
  ax_verify_rule(f->blocks[0], AX_INT, &opts, &r);
  ck_assert_int_eq(r.verdict, AX_VERIFIED);
  ck_assert_str_eq(r.inferred_hint, "x == x, y == y");
  ax_verify_rule(plain->blocks[0], AX_INT, &opts, &none);   /* no sums: nothing inferred */
  ck_assert_ptr_null(none.inferred_hint);

  char *key = ax_cache_key(cache, f->blocks[0], AX_INT);
  ck_assert(ax_cache_put(cache, key, &r));
  ck_assert(ax_cache_get(cache, key, f->blocks[0], AX_INT, &back));
  expect_same(&r, &back);
  ax_result_free(&back);

  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  ax_report_text(m, &r, "t.axl");
  ax_report_text(m, &none, "t.axl");
  fclose(m);
  ck_assert_ptr_nonnull(strstr(text, "VERIFIED  bounds {x: 1, y: 1}"));
  ck_assert_ptr_nonnull(strstr(text, "ms\n    hint (inferred): x == x, y == y\n"));
  ck_assert_ptr_null(strstr(strstr(text, "pad_low_combine"), "hint (inferred)"));
  free(text);
  cJSON *j = ax_report_json(&r, "t.axl", "z3");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "inferred_hint")->valuestring, "x == x, y == y");
  cJSON_Delete(j);
  j = ax_report_json(&none, "t.axl", "z3");
  ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "inferred_hint")));
  cJSON_Delete(j);

  /* an older record, without the field: read, with no hint */
  char *rec = ax_report_record(&r);
  cJSON *o = cJSON_Parse(rec);
  ck_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "inferred_hint")));
  cJSON_DeleteItemFromObjectCaseSensitive(o, "inferred_hint");
  char *old = cJSON_PrintUnformatted(o);
  forge(key, old, 1);
  ck_assert(ax_cache_get(cache, key, f->blocks[0], AX_INT, &back));
  ck_assert_ptr_null(back.inferred_hint);
  ck_assert_int_eq(back.verdict, AX_VERIFIED);
  ax_result_free(&back);
  /* ... but one of the wrong type is no record */
  cJSON_AddNumberToObject(o, "inferred_hint", 3);
  char *bad = cJSON_PrintUnformatted(o);
  ck_assert(!ax_report_unrecord(bad, f->blocks[0], AX_INT, &back));
  ck_assert_ptr_null(back.inferred_hint);

  cJSON_free(old);
  cJSON_free(bad);
  cJSON_Delete(o);
  free(rec);
  free(key);
  ax_result_free(&r);
  ax_result_free(&none);
}
END_TEST

START_TEST(test_only_finished_verdicts) {
  AxFile *f = load(RULES);
  char *key = ax_cache_key(cache, f->blocks[0], AX_INT);
  AxResult r, back;
  ax_verify_rule(f->blocks[0], AX_INT, &opts, &r);
  AxVerdict v[] = {AX_UNKNOWN, AX_ERROR};
  for (size_t i = 0; i < 2; i++) {
    r.verdict = v[i];
    ck_assert(!ax_cache_put(cache, key, &r));
    ck_assert(!ax_cache_get(cache, key, f->blocks[0], AX_INT, &back));
  }
  r.verdict = AX_VERIFIED;
  r.disagreement = true;
  ck_assert(!ax_cache_put(cache, key, &r));
  r.disagreement = false;
  r.cached = true;   /* a cached result is not stored again */
  ck_assert(!ax_cache_put(cache, key, &r));
  r.cached = false;
  r.verdict = AX_INVALID;   /* INVALID without its counterexample */
  ck_assert(!ax_cache_put(cache, key, &r));
  ck_assert(!ax_cache_get(cache, key, f->blocks[0], AX_INT, &back));
  ax_result_free(&r);
  free(key);
}
END_TEST

START_TEST(test_corrupt_entries_ignored) {
  AxFile *f = load(RULES);
  AxBlock *valid = f->blocks[0], *wrong = f->blocks[1];
  char *key = ax_cache_key(cache, valid, AX_INT);
  char *wkey = ax_cache_key(cache, wrong, AX_INT);
  AxResult r, w, back;
  ax_verify_rule(valid, AX_INT, &opts, &r);
  ax_verify_rule(wrong, AX_INT, &opts, &w);
  char path[512], wpath[512];
  ax_cache_entry_path(cache, key, path, sizeof path);
  ax_cache_entry_path(cache, wkey, wpath, sizeof wpath);
  ck_assert(ax_cache_put(cache, key, &r));
  ck_assert(ax_cache_put(cache, wkey, &w));
  char *good = read_file(path), *wgood = read_file(wpath);
  ck_assert(ax_cache_get(cache, key, valid, AX_INT, &back));
  ax_result_free(&back);

  /* the same bytes, damaged in every way we can think of */
  char *half = strdup(good);
  half[strlen(half) / 2] = '\0';
  char *flipped = strdup(good);
  char *at = strstr(flipped, "\\\"queries\\\":");
  ck_assert_ptr_nonnull(at);
  at[strlen("\\\"queries\\\":")] ^= 1;   /* one digit of the record */
  char *sum = strdup(good);
  at = strstr(sum, "\"checksum\":");
  ck_assert_ptr_nonnull(at);
  at[strlen("\"checksum\":") + 3] = at[strlen("\"checksum\":") + 3] == '0' ? '1' : '0';
  const char *damaged[] = {"", "hello", "{}", "[1,2]", half, flipped, sum,
                           wgood /* an entry for another key in this file */};
  for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
    write_file(path, damaged[i]);
    ck_assert_msg(!ax_cache_get(cache, key, valid, AX_INT, &back), "damage %zu trusted", i);
    ck_assert_ptr_null(back.reason);
  }
  /* a checksum that matches does not make a bad record good */
  static const char *const forged[] = {
      /* INVALID without the counterexample axle replayed */
      "{\"verdict\":\"invalid\",\"bounds\":[2],\"instances\":2,\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
      /* bounds for two rank classes in a rule that has one */
      "{\"verdict\":\"verified\",\"bounds\":[2,2],\"instances\":2,\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
      /* a verdict never stored */
      "{\"verdict\":\"unknown\",\"bounds\":[2],\"instances\":2,\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":\"x\",\"cex_text\":null,\"cex_json\":null}",
      /* a disagreement dressed as a verdict */
      "{\"verdict\":\"verified\",\"bounds\":[2],\"instances\":2,\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":true,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
      /* a field missing, one of the wrong type */
      "{\"verdict\":\"verified\",\"bounds\":[2],\"instances\":2,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
      "{\"verdict\":\"verified\",\"bounds\":[2],\"instances\":\"2\",\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
      "{\"verdict\":\"proved\",\"bounds\":[2],\"instances\":2,\"queries\":8,\"time_ms\":1,"
      "\"vacuous\":false,\"disagreement\":false,\"reason\":null,\"cex_text\":null,\"cex_json\":null}",
  };
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    forge(key, forged[i], 1);
    ck_assert_msg(!ax_cache_get(cache, key, valid, AX_INT, &back), "forgery %zu trusted", i);
  }
  /* a good record under another format number */
  char *rec = ax_report_record(&r);
  forge(key, rec, 2);
  ck_assert(!ax_cache_get(cache, key, valid, AX_INT, &back));
  forge(key, rec, 1);   /* ... and the same one, well-formed, is read */
  ck_assert(ax_cache_get(cache, key, valid, AX_INT, &back));
  ax_result_free(&back);
  /* the next store repairs a damaged entry */
  write_file(path, "garbage");
  ck_assert(ax_cache_put(cache, key, &r));
  ck_assert(ax_cache_get(cache, key, valid, AX_INT, &back));
  ax_result_free(&back);
  /* an entry that is a directory, or unreadable, is no entry */
  unlink(path);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert(!ax_cache_get(cache, key, valid, AX_INT, &back));
  rmdir(path);

  free(rec);
  free(half);
  free(flipped);
  free(sum);
  free(good);
  free(wgood);
  ax_result_free(&r);
  ax_result_free(&w);
  free(key);
  free(wkey);
}
END_TEST

START_TEST(test_open_fails) {
  char why[256] = "";
  ck_assert_ptr_null(ax_cache_open("/dev/null/axle", &opts, "z3", why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "cannot create the cache directory '/dev/null/axle"));
  /* the default place: $XDG_CACHE_HOME/axle, else $HOME/.cache/axle */
  char xdg[128];
  snprintf(xdg, sizeof xdg, "%s/xdg", dir);
  setenv("XDG_CACHE_HOME", xdg, 1);
  AxCache *c = ax_cache_open(NULL, &opts, "z3", why, sizeof why);
  ck_assert_ptr_nonnull(c);
  ck_assert_str_eq(ax_cache_dir(c), strcat(xdg, "/axle/verify-1"));
  ax_cache_close(c);
  setenv("XDG_CACHE_HOME", "relative/ignored", 1);
  char home[128];
  snprintf(home, sizeof home, "%s/home", dir);
  setenv("HOME", home, 1);
  c = ax_cache_open(NULL, &opts, "z3", why, sizeof why);
  ck_assert_ptr_nonnull(c);
  ck_assert_str_eq(ax_cache_dir(c), strcat(home, "/.cache/axle/verify-1"));
  ax_cache_close(c);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  ck_assert_ptr_null(ax_cache_open(NULL, &opts, "z3", why, sizeof why));
  ck_assert_ptr_nonnull(strstr(why, "no cache directory"));
}
END_TEST

START_TEST(test_unrecord_rejects) {
  AxFile *f = load(RULES);
  AxResult out;
  ck_assert(!ax_report_unrecord("", f->blocks[0], AX_INT, &out));
  ck_assert(!ax_report_unrecord("null", f->blocks[0], AX_INT, &out));
  ck_assert(!ax_report_unrecord("{\"verdict\":\"verified\"}", f->blocks[0], AX_INT, &out));
  ck_assert_ptr_null(out.bounds);
}
END_TEST

START_TEST(test_junit) {
  AxFile *f = load(RULES);
  AxResult r[4];
  ax_verify_rule(f->blocks[0], AX_INT, &opts, &r[0]);   /* verified: passes */
  ax_verify_rule(f->blocks[1], AX_INT, &opts, &r[1]);   /* invalid as expected: passes */
  ax_verify_rule(f->blocks[1], AX_REAL, &opts, &r[2]);
  f->blocks[1]->expect = AX_EXPECT_VALID;                /* now it contradicts: failure */
  memset(&r[3], 0, sizeof r[3]);                        /* unknown: error */
  r[3].rule = f->blocks[0];
  r[3].type = AX_REAL;
  r[3].has_type = true;
  r[3].verdict = AX_UNKNOWN;
  r[3].reason = strdup("a <reason> with \"quotes\" & a \x01 control character");
  AxReportItem items[4] = {{&r[0], "a/b.axl"}, {&r[1], "a/c.axl"}, {&r[3], "a/c.axl"},
                           {&r[2], "a/c.axl"}};
  char *xml = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&xml, &len);
  ax_report_junit(m, items, 4, "axle gate", "z3", 1.5);
  fclose(m);
  ck_assert_ptr_nonnull(strstr(xml, "<testsuites name=\"axle gate\" tests=\"4\" failures=\"2\" errors=\"1\""));
  ck_assert_ptr_nonnull(strstr(xml, "<testsuite name=\"a/b.axl\" tests=\"1\" failures=\"0\" errors=\"0\""));
  ck_assert_ptr_nonnull(strstr(xml, "<testsuite name=\"a/c.axl\" tests=\"3\" failures=\"2\" errors=\"1\""));
  ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"a.b\" name=\"pad_low_combine [int]\""));
  ck_assert_ptr_nonnull(strstr(xml, "<failure type=\"invalid\" message=\"INVALID, expected valid\">"));
  ck_assert_ptr_nonnull(strstr(xml, "counterexample (replayed)"));
  ck_assert_ptr_nonnull(strstr(xml, "a &lt;reason&gt; with &quot;quotes&quot; &amp; a  control"));
  ck_assert_ptr_null(strchr(xml, '\x01'));
  free(xml);
  for (int i = 0; i < 4; i++) ax_result_free(&r[i]);
}
END_TEST

static Suite *cache_suite(void) {
  Suite *s = suite_create("cache");
  TCase *t = tcase_create("cache");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_key_material);
  tcase_add_test(t, test_round_trip);
  tcase_add_test(t, test_inferred_hint);
  tcase_add_test(t, test_only_finished_verdicts);
  tcase_add_test(t, test_corrupt_entries_ignored);
  tcase_add_test(t, test_open_fails);
  tcase_add_test(t, test_unrecord_rejects);
  tcase_add_test(t, test_junit);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(cache_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
