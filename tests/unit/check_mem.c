/* check_mem.c — the memory budget (base/mem.h): what is taken and given back, a take past the
 * limit refused before the allocation (the handler called, nothing taken), arenas taking
 * their chunks and giving them back at the free, ax_mem_fits as a question that takes
 * nothing, and a forked child without the limit. */
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mem.h"
#include "unit.h"

static jmp_buf back;
static uint64_t asked, held_then, limit_then;

/* The test's handler: records what was refused and jumps back into the test. */
static void refused(uint64_t bytes, uint64_t held, uint64_t limit) {
  asked = bytes, held_then = held, limit_then = limit;
  longjmp(back, 1);
}

static void setup(void) {
  unit_setup();
  ax_mem_set_handler(refused);
  ax_mem_set_limit(0);
  asked = 0;
}

static void teardown(void) {
  ax_mem_set_limit(0);
  ax_mem_set_handler(NULL);
  unit_teardown();
}

START_TEST(take_and_give) {
  uint64_t h0 = ax_mem_held();
  ax_mem_set_limit(h0 + 1000);
  ck_assert(ax_mem_fits(1000));
  ck_assert(!ax_mem_fits(1001));
  ck_assert_uint_eq(ax_mem_held(), h0);   /* a question takes nothing */
  ax_mem_take(600);
  ck_assert_uint_eq(ax_mem_held(), h0 + 600);
  ck_assert(!ax_mem_fits(401));
  if (setjmp(back) == 0) {
    ax_mem_take(401);
    ck_abort_msg("a take past the limit returned");
  }
  ck_assert_uint_eq(asked, 401);
  ck_assert_uint_eq(held_then, h0 + 600);
  ck_assert_uint_eq(limit_then, h0 + 1000);
  ck_assert_uint_eq(ax_mem_held(), h0 + 600);   /* the refused take took nothing */
  ax_mem_take(400);                             /* exactly up to the limit */
  ax_mem_give(1000);
  ck_assert_uint_eq(ax_mem_held(), h0);
  /* no limit: everything fits, the counter still runs */
  ax_mem_set_limit(0);
  ck_assert(ax_mem_fits(UINT64_MAX));
  ax_mem_take((uint64_t)1 << 40);
  ck_assert_uint_eq(ax_mem_held(), h0 + ((uint64_t)1 << 40));
  ax_mem_give((uint64_t)1 << 40);
}
END_TEST

/* An arena takes each chunk before it allocates it and gives all back when freed; a block
 * past the limit is refused before any of it exists. */
START_TEST(arenas) {
  uint64_t h0 = ax_mem_held();
  AxArena *a = ax_arena_new();
  ax_arena_alloc(a, 100);
  uint64_t h1 = ax_mem_held();
  ck_assert_uint_gt(h1, h0 + 100);          /* a whole chunk */
  ax_arena_alloc(a, 1 << 20);
  ck_assert_uint_ge(ax_mem_held(), h1 + (1 << 20));
  ax_mem_set_limit(ax_mem_held() + (4 << 20));
  if (setjmp(back) == 0) {
    ax_arena_alloc(a, 8 << 20);
    ck_abort_msg("an arena grew past the limit");
  }
  ck_assert_uint_ge(asked, 8 << 20);
  ax_arena_alloc(a, 2 << 20);               /* what fits still does */
  ax_arena_free(a);
  ck_assert_uint_eq(ax_mem_held(), h0);
}
END_TEST

/* A forked child runs under limits of its own: the parent's --memory is not applied there. */
START_TEST(child_has_no_limit) {
  ax_mem_set_limit(ax_mem_held() + 1000);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) _exit(ax_mem_limit() == 0 && ax_mem_fits((uint64_t)1 << 40) ? 0 : 1);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  ck_assert_uint_ne(ax_mem_limit(), 0);     /* the parent keeps its own */
}
END_TEST

int main(void) {
  Suite *s = suite_create("mem");
  TCase *t = tcase_create("mem");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, take_and_give);
  tcase_add_test(t, arenas);
  tcase_add_test(t, child_has_no_limit);
  suite_add_tcase(s, t);
  return unit_run(s);
}
