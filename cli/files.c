/* files.c — expanding FILE|DIR arguments into .axl paths; see files.h. */
#include "cli/files.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void walk(AxArena *a, const char *dir, AxVec *out, int depth) {
  if (depth > 64) return;   /* a symlink loop cannot recurse forever */
  DIR *d = opendir(dir);
  if (!d) return;
  AxVec found = {0};
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char *path = ax_arena_printf(a, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && ends_with(path, ".axl")))
      ax_vec_push(a, &found, path);
  }
  closedir(d);
  if (found.len) qsort(found.items, found.len, sizeof(void *), cmp);
  for (size_t i = 0; i < found.len; i++) {
    struct stat st;
    const char *path = found.items[i];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      walk(a, path, out, depth + 1);
    else
      ax_vec_push(a, out, (void *)path);
  }
}

bool ax_files_collect(AxArena *a, AxDiag *d, char **args, int nargs, AxPathList *out) {
  AxVec v = {0};
  bool ok = true;
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    if (stat(args[i], &st) != 0) {
      ax_diag_error(d, (AxSpan){0}, "cannot open '%s': %s", args[i], strerror(errno));
      ok = false;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      char *dir = ax_arena_strdup(a, args[i]);
      size_t n = strlen(dir);
      while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
      walk(a, dir, &v, 0);
    } else {
      ax_vec_push(a, &v, args[i]);
    }
  }
  out->paths = (const char **)v.items;
  out->n = v.len;
  return ok;
}
