/* arena.h — bump allocation for everything tied to one file or one verification task.
 *
 * An arena owns every block it hands out; ax_arena_free releases them all at once. Blocks
 * are aligned for any object and never move. Nothing allocated here is freed one by one.
 * Every chunk is taken from the memory budget (mem.h) before it is allocated and given back
 * by ax_arena_free: an arena cannot grow past --memory. */
#ifndef AX_ARENA_H
#define AX_ARENA_H

#include "base/base.h"

typedef struct AxArena AxArena;

AxArena *ax_arena_new(void);                       /* returns owned */
void ax_arena_free(AxArena *a);                    /* consumes a and all its blocks */
void *ax_arena_alloc(AxArena *a, size_t n);        /* zeroed; owned by a */
char *ax_arena_strndup(AxArena *a, const char *s, size_t n);
char *ax_arena_strdup(AxArena *a, const char *s);
char *ax_arena_printf(AxArena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
size_t ax_arena_bytes(const AxArena *a);           /* bytes handed out so far */

/* A growable array of pointers living in an arena (old storage is simply abandoned). */
typedef struct AxVec {
  void **items;
  size_t len, cap;
} AxVec;

void ax_vec_push(AxArena *a, AxVec *v, void *item);

#endif
