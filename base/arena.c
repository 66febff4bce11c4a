/* arena.c — bump allocator with a chain of chunks; see arena.h. */
#include "base/arena.h"

#include <stdarg.h>

#include "base/mem.h"
#include <string.h>

#define CHUNK (64 * 1024)
#define ALIGN 16

typedef struct Chunk {
  struct Chunk *next;
  size_t used, size;
  _Alignas(ALIGN) unsigned char data[];
} Chunk;

struct AxArena {
  Chunk *head;
  size_t bytes;
  uint64_t taken;   /* from the memory budget (mem.h): every chunk, given back at the free */
};

void ax_unreachable(const char *file, int line) {
  fprintf(stderr, "axle: internal error: %s:%d: reached unreachable code\n", file, line);
  abort();
}

static AxOomHandler *oom_handler;

void ax_set_oom_handler(AxOomHandler *h) { oom_handler = h; }

_Noreturn static void out_of_memory(size_t n) {
  if (oom_handler) oom_handler(n);
  fprintf(stderr, "axle: out of memory\n");
  abort();
}

void *ax_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) out_of_memory(n);
  return p;
}

void *ax_xcalloc(size_t count, size_t n) {
  void *p = calloc(count ? count : 1, n ? n : 1);
  if (!p) out_of_memory(count * n);
  return p;
}

void *ax_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) out_of_memory(n);
  return q;
}

char *ax_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(ax_xmalloc(n), s, n);
}

AxArena *ax_arena_new(void) { return ax_xcalloc(1, sizeof(AxArena)); }

void ax_arena_free(AxArena *a) {
  if (!a) return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  ax_mem_give(a->taken);
  free(a);
}

void *ax_arena_alloc(AxArena *a, size_t n) {
  n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  Chunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > CHUNK ? n : CHUNK;
    ax_mem_take(sizeof(Chunk) + size);   /* before the allocation: a chunk past the limit is never made */
    a->taken += sizeof(Chunk) + size;
    c = ax_xmalloc(sizeof(Chunk) + size);
    c->used = 0;
    c->size = size;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  a->bytes += n;
  memset(p, 0, n);
  return p;
}

char *ax_arena_strndup(AxArena *a, const char *s, size_t n) {
  char *p = ax_arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *ax_arena_strdup(AxArena *a, const char *s) { return ax_arena_strndup(a, s, strlen(s)); }

char *ax_arena_printf(AxArena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  AX_ASSERT(n >= 0);
  char *p = ax_arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

size_t ax_arena_bytes(const AxArena *a) { return a->bytes; }

void ax_vec_push(AxArena *a, AxVec *v, void *item) {
  if (v->len == v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 4;
    void **items = ax_arena_alloc(a, cap * sizeof(void *));
    if (v->len) memcpy(items, v->items, v->len * sizeof(void *));
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = item;
}
