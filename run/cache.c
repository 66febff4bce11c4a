/* cache.c — the result cache; see cache.h. */
#define _GNU_SOURCE   /* dl_iterate_phdr */

#include "run/cache.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hooks.h"
#include "dsl/print.h"
#include "run/report.h"

#define FORMAT 1
#define MAX_ENTRY ((long)64 << 20)

struct AxCache {
  char *dir;      /* where the entries are */
  char *header;   /* the key material every rule of this run shares */
  FILE *warn;     /* warnings about unusable entries go here; NULL: none */
  bool put_failed;   /* a store failed already (warned once) */
};

/* FNV-1a, 64 bits: names entry files and checks their contents (not a defence against
 * someone who rewrites the cache on purpose; see cache.h for what is trusted). */
uint64_t ax_cache_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    h ^= c[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static char *cat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *s = ax_xmalloc(na + nb + 1);
  memcpy(s, a, na);
  memcpy(s + na, b, nb + 1);
  return s;
}

/* mkdir -p; false with errno set when some level cannot be made. */
static bool make_dirs(char *path) {
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
    *p = c;
    if (!ok) return false;
    if (!c) break;
  }
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --- Identities ------------------------------------------------------------------------ */

/* "<path> <size> bytes, modified <sec>.<nsec>" or "<path>: <error>". */
static void identify_file(FILE *out, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    fprintf(out, "%s: %s", path, strerror(errno));
  else
    fprintf(out, "%s %lld bytes, modified %lld.%09ld", path, (long long)st.st_size,
            (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

bool ax_cache_executable(uint64_t *h) {
  /* read once per process: the bytes do not change under a running axle (a rebuild
   * replaces the file, and /proc/self/exe stays the one that runs) */
  static bool done, ok;
  static uint64_t self;
  if (!done) {
    FILE *f = fopen("/proc/self/exe", "rb");
    if (f) {
      char buf[65536];
      self = AX_CACHE_HASH_START;
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, f)) > 0) self = ax_cache_hash(self, buf, n);
      ok = !ferror(f);
      fclose(f);
    }
    done = true;
  }
  *h = self;
  return ok;
}

static int find_z3(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "libz3")) {
    snprintf(data, PATH_MAX, "%s", info->dlpi_name);
    return 1;
  }
  return 0;
}

/* The solver binary as pipe.c finds it: itself when it has a '/', else the first
 * executable of that name in PATH. */
static void identify_binary(FILE *out, const char *name) {
  char path[PATH_MAX];
  if (strchr(name, '/')) {
    identify_file(out, name);
    return;
  }
  const char *dirs = getenv("PATH");
  if (!dirs || !*dirs) dirs = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = dirs;; p++) {
    size_t n = strcspn(p, ":");
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name) <
            sizeof path &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) {
      identify_file(out, path);
      return;
    }
    p += n;
    if (!*p) break;
  }
  fprintf(out, "%s: not found in PATH", name);
}

void ax_cache_write_settings(FILE *f, const AxVerifyOpts *o) {
  const AxSolverOpts *s = &o->solver;
  fprintf(f, "timeout %u ms, max instances %d, bound slack %d, confirm %s (grace %u ms, floor %u ms)\n",
          s->timeout_ms, o->max_instances, o->bound_slack, s->confirm ? "yes" : "no",
          s->confirm_grace_ms, s->confirm_floor_ms);
  /* who stands behind a VERIFIED: --require-both waits for cvc5 where the default does not */
  fprintf(f, "skip hopeless %s, first sat %s\n", s->skip_hopeless ? "yes" : "no", s->first_sat ? "yes" : "no");
  /* a test hook changes verdicts (the bound cap): its value is part of the key, in the one
   * binary that reads hooks (base/hooks.h) */
  if (ax_test_hooks_on()) {
    const char *cap = ax_test_hook("AXLE_TEST_BOUND_CAP");
    fprintf(f, "test hooks: AXLE_TEST_BOUND_CAP=%s\n", cap ? cap : "(unset)");
  } else {
    fputs("test hooks: none read\n", f);
  }
}

/* --- Opening ----------------------------------------------------------------------------- */

AxCache *ax_cache_open(const char *dir, const AxVerifyOpts *o, const char *solver, char *why,
                       size_t len) {
  char *base = NULL;
  if (dir) {
    base = ax_xstrdup(dir);
  } else {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') base = cat(xdg, "/axle");
    else if (home && home[0] == '/') base = cat(home, "/.cache/axle");
  }
  if (!base) {
    snprintf(why, len, "no cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path");
    return NULL;
  }
  char sub[32];
  snprintf(sub, sizeof sub, "/verify-%d", FORMAT);
  char *entries = cat(base, sub);
  free(base);
  if (!make_dirs(entries)) {
    snprintf(why, len, "cannot create the cache directory '%s': %s", entries, strerror(errno));
    free(entries);
    return NULL;
  }
  uint64_t self;
  if (!ax_cache_executable(&self)) {
    snprintf(why, len, "cannot read the axle executable to identify it: %s", strerror(errno));
    free(entries);
    return NULL;
  }

  char *header = NULL;
  size_t hlen = 0;
  FILE *f = open_memstream(&header, &hlen);
  AX_ASSERT(f);
  fprintf(f, "axle result cache, format %d\n", FORMAT);
  fprintf(f, "axle %s, executable %016llx\n", AXLE_VERSION, (unsigned long long)self);
  const AxSolverOpts *s = &o->solver;
  bool api = s->kind != AX_SOLVER_PIPE || s->cross_check;
  bool binary = s->kind != AX_SOLVER_Z3 || s->cross_check;
  fprintf(f, "solver %s, kind %d, cross-check %s\n", solver, (int)s->kind,
          s->cross_check ? "yes" : "no");
  if (api) {
    char z3[PATH_MAX] = "";
    fputs("z3 library: ", f);
    if (dl_iterate_phdr(find_z3, z3) && z3[0]) identify_file(f, z3);
    else fputs("linked into the executable", f);
    fputc('\n', f);
  }
  if (binary) {
    fputs("solver binary: ", f);
    identify_binary(f, s->binary ? s->binary : "cvc5");
    fputc('\n', f);
  }
  ax_cache_write_settings(f, o);
  fclose(f);

  AxCache *c = ax_xcalloc(1, sizeof *c);
  c->dir = entries;
  c->header = header;
  return c;
}

void ax_cache_close(AxCache *c) {
  if (!c) return;
  free(c->dir);
  free(c->header);
  free(c);
}

const char *ax_cache_dir(const AxCache *c) { return c->dir; }

void ax_cache_warn_to(AxCache *c, FILE *out) { c->warn = out; }

static void warn(const AxCache *c, const char *path, const char *why) {
  if (c->warn)
    fprintf(c->warn, "axle: warning: cache entry '%s' ignored (computed again): %s\n", path, why);
}

char *ax_cache_key(const AxCache *c, const AxBlock *rule, AxType t) {
  char *key = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&key, &len);
  AX_ASSERT(f);
  fputs(c->header, f);
  fprintf(f, "element type %s%s\n", ax_type_name(t), rule->tvar.name ? "" : " (no type variable)");
  ax_print_block(f, rule);
  fclose(f);
  return key;
}

const char *ax_cache_entry_path(const AxCache *c, const char *key, char *buf, size_t len) {
  snprintf(buf, len, "%s/%016llx.json", c->dir,
           (unsigned long long)ax_cache_hash(AX_CACHE_HASH_START, key, strlen(key)));
  return buf;
}

/* The checksum of an entry: over the key material and the record, with a separator. */
static void checksum(const char *key, const char *record, char out[17]) {
  uint64_t h = ax_cache_hash(AX_CACHE_HASH_START, key, strlen(key) + 1);
  h = ax_cache_hash(h, record, strlen(record));
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* --- Reading and writing ------------------------------------------------------------------ */

/* The entry file at path, owned; NULL when there is none (silently) or it cannot be used
 * (warned). Never blocks: a FIFO or a device where an entry should be is not read. */
static char *slurp(const AxCache *c, const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno != ENOENT) warn(c, path, strerror(errno));
    return NULL;
  }
  struct stat st;
  char *buf = NULL;
  const char *why = NULL;
  if (fstat(fd, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_size > MAX_ENTRY) why = "larger than 64 MiB";
  if (!why) {
    size_t n = (size_t)st.st_size, got = 0;
    buf = ax_xmalloc(n + 1);
    while (got < n) {
      ssize_t r = read(fd, buf + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        why = r < 0 ? strerror(errno) : "shorter than its size (changed while read)";
        break;
      }
      got += (size_t)r;
    }
    buf[got] = '\0';
  }
  close(fd);
  if (why) {
    warn(c, path, why);
    free(buf);
    return NULL;
  }
  return buf;
}

static bool storable(const AxResult *r) {
  return !r->cached && !r->disagreement &&
         (r->verdict == AX_VERIFIED ||
          ((r->verdict == AX_INVALID || r->verdict == AX_INVALID_HINT) && r->cex_text && r->cex_json));
}

bool ax_cache_get(const AxCache *c, const char *key, const AxBlock *rule, AxType t,
                  AxResult *out) {
  memset(out, 0, sizeof *out);
  char path[PATH_MAX + 32];
  char *text = slurp(c, ax_cache_entry_path(c, key, path, sizeof path));
  if (!text) return false;
  cJSON *e = cJSON_Parse(text);
  free(text);
  const cJSON *format = cJSON_GetObjectItemCaseSensitive(e, "format");
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "key");
  const cJSON *rec = cJSON_GetObjectItemCaseSensitive(e, "record");
  const cJSON *sum = cJSON_GetObjectItemCaseSensitive(e, "checksum");
  const char *why = NULL;
  if (!cJSON_IsObject(e) || !cJSON_IsNumber(format) || format->valuedouble != FORMAT ||
      !cJSON_IsString(k) || !cJSON_IsString(rec) || !cJSON_IsString(sum))
    why = "not an entry of this cache format (truncated or corrupt)";
  else if (strcmp(k->valuestring, key) != 0)
    why = "written for other key material";
  if (!why) {
    char want[17];
    checksum(k->valuestring, rec->valuestring, want);
    if (strcmp(sum->valuestring, want) != 0) why = "its checksum does not match (damaged)";
    else if (!ax_report_unrecord(rec->valuestring, rule, t, out)) why = "its result cannot be read";
  }
  cJSON_Delete(e);
  if (!why && !storable(out)) {   /* only what put stores may come back */
    ax_result_free(out);
    why = "it holds a result that is never cached";
  }
  if (why) {
    warn(c, path, why);
    memset(out, 0, sizeof *out);
    return false;
  }
  out->cached = true;
  return true;
}

bool ax_cache_put(AxCache *c, const char *key, const AxResult *r) {
  if (!storable(r)) return false;
  char *record = ax_report_record(r);
  char sum[17];
  checksum(key, record, sum);
  cJSON *e = cJSON_CreateObject();
  cJSON_AddNumberToObject(e, "format", FORMAT);
  cJSON_AddStringToObject(e, "key", key);
  cJSON_AddStringToObject(e, "record", record);
  cJSON_AddStringToObject(e, "checksum", sum);
  char *text = cJSON_Print(e);
  cJSON_Delete(e);
  free(record);

  char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
  ax_cache_entry_path(c, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", c->dir);
  int fd = mkstemp(tmp);
  bool ok = false;
  int err = errno;
  if (fd >= 0) {
    FILE *f = fdopen(fd, "w");
    if (f) {
      ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
      ok = fflush(f) == 0 && ok;
      err = errno;
      ok = fclose(f) == 0 && ok;
    } else {
      err = errno;
      close(fd);
    }
    if (ok && rename(tmp, path) != 0) {
      ok = false;
      err = errno;
    }
    if (!ok) unlink(tmp);
  }
  cJSON_free(text);
  if (!ok && !c->put_failed && c->warn)   /* once: every later store fails alike */
    fprintf(c->warn, "axle: warning: cannot write to the result cache '%s': %s; results are not cached\n",
            c->dir, strerror(err ? err : EIO));
  if (!ok) c->put_failed = true;
  return ok;
}
