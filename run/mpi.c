/* mpi.c — the MPI transport of `axle verify --mpi` and the collectives of `axle superopt
 * --mpi`; see mpi.h.
 *
 * Messages (MPI_COMM_WORLD): a rank asks with TAG_ASK (one int: how many tasks it takes);
 * rank 0 answers TAG_TASKS, an array of uint64 task numbers, empty when there are no more
 * (the rank then stops asking); a result is TAG_RESULT: uint64 task, double ms, one byte
 * 'R' (a record follows) or 'F' (a failure's reason follows), the text, a NUL. */
#include "run/mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/clock.h"

#ifdef AXLE_HAVE_MPI
#include <mpi.h>

enum { TAG_ASK = 1, TAG_TASKS, TAG_RESULT };

bool ax_mpi_built(void) { return true; }

bool ax_mpi_start(int *rank, int *size) {
  int on = 0;
  MPI_Initialized(&on);
  /* FUNNELED: the search's threads never call MPI, only the thread that started it */
  int got = 0;
  if (!on && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &got) != MPI_SUCCESS) return false;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return true;
}

void ax_mpi_stop(void) {
  int on = 0, off = 0;
  MPI_Initialized(&on);
  MPI_Finalized(&off);
  if (on && !off) MPI_Finalize();
}

static void nap(void) { nanosleep(&(struct timespec){0, 1000 * 1000}, NULL); }

/* Waits, without spinning a core, for a message of tag (MPI_ANY_TAG) from src
 * (MPI_ANY_SOURCE); tick about every 100 ms meanwhile. */
static void wait_for(int src, int tag, MPI_Status *st, void (*tick)(void *), void *ctx) {
  int64_t last = ax_clock_ms();
  for (;;) {
    int flag = 0;
    MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, st);
    if (flag) return;
    if (tick && ax_clock_ms() - last >= 100) {
      tick(ctx);
      last = ax_clock_ms();
    }
    nap();
  }
}

void ax_mpi_coordinate(const size_t *order, size_t n, AxMpiGot *got, void (*tick)(void *),
                       void *ctx) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {
    for (size_t k = 0; k < n; k++)
      got(ctx, order[k], NULL, 0, "no rank to verify it: run axle verify --mpi under mpirun -n 2 or more", 0);
    return;
  }
  size_t next = 0, ndone = 0;
  int stopped = 0;
  uint64_t *batch = NULL;
  while (ndone < n || stopped < size - 1) {
    MPI_Status st;
    wait_for(MPI_ANY_SOURCE, MPI_ANY_TAG, &st, tick, ctx);
    int count;
    if (st.MPI_TAG == TAG_ASK) {
      int want = 0;
      MPI_Recv(&want, 1, MPI_INT, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      size_t give = want < 1 ? 1 : (size_t)want;
      if (give > n - next) give = n - next;
      batch = ax_xrealloc(batch, (give + 1) * sizeof *batch);
      for (size_t k = 0; k < give; k++) batch[k] = order[next++];
      MPI_Send(batch, (int)give, MPI_UINT64_T, st.MPI_SOURCE, TAG_TASKS, MPI_COMM_WORLD);
      stopped += give == 0;
    } else if (st.MPI_TAG == TAG_RESULT) {
      MPI_Get_count(&st, MPI_BYTE, &count);
      char *buf = ax_xmalloc((size_t)count + 1);
      MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      buf[count] = '\0';
      uint64_t task;
      double ms;
      size_t head = sizeof task + sizeof ms + 1;
      AX_ASSERT((size_t)count > head);
      memcpy(&task, buf, sizeof task);
      memcpy(&ms, buf + sizeof task, sizeof ms);
      const char *body = buf + head;
      size_t len = (size_t)count - head - 1;   /* the sender's NUL */
      if (buf[sizeof task + sizeof ms] == 'R') got(ctx, (size_t)task, body, len, NULL, ms);
      else got(ctx, (size_t)task, NULL, 0, body, ms);
      free(buf);
      ndone++;
    } else {   /* nothing else is sent to rank 0: drop it */
      MPI_Get_count(&st, MPI_BYTE, &count);
      char *junk = ax_xmalloc((size_t)count + 1);
      MPI_Recv(junk, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      free(junk);
    }
  }
  free(batch);
}

void ax_mpi_serve(int jobs, AxMpiBatch *batch, void *ctx) {
  size_t *tasks = ax_xcalloc((size_t)(jobs < 1 ? 1 : jobs) + 1, sizeof *tasks);
  uint64_t *got = ax_xcalloc((size_t)(jobs < 1 ? 1 : jobs) + 1, sizeof *got);
  for (;;) {
    MPI_Send(&jobs, 1, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
    MPI_Status st;
    wait_for(0, TAG_TASKS, &st, NULL, NULL);
    int count;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    AX_ASSERT(count >= 0 && count <= (jobs < 1 ? 1 : jobs));
    MPI_Recv(got, count, MPI_UINT64_T, 0, TAG_TASKS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (count == 0) break;
    for (int k = 0; k < count; k++) tasks[k] = (size_t)got[k];
    batch(ctx, tasks, (size_t)count);
  }
  free(got);
  free(tasks);
}

void ax_mpi_send(size_t task, const char *data, size_t len, const char *failure, double ms) {
  const char *body = data ? data : failure ? failure : "worker sent no result";
  size_t n = data ? len : strlen(body);
  uint64_t t = task;
  size_t head = sizeof t + sizeof ms + 1;
  AX_ASSERT(head + n + 1 <= (size_t)INT32_MAX);
  char *buf = ax_xmalloc(head + n + 1);
  memcpy(buf, &t, sizeof t);
  memcpy(buf + sizeof t, &ms, sizeof ms);
  buf[sizeof t + sizeof ms] = data ? 'R' : 'F';
  memcpy(buf + head, body, n);
  buf[head + n] = '\0';
  MPI_Send(buf, (int)(head + n + 1), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
  free(buf);
}

/* Waits for a non-blocking collective without spinning a core: the search's threads of this
 * rank still need it while the other ranks catch up. */
static void settle(MPI_Request *rq) {
  for (;;) {
    int flag = 0;
    MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    nap();
  }
}

void ax_mpi_reduce_all(double *v, int n, AxMpiOp op) {
  double *out = ax_xcalloc((size_t)n + 1, sizeof *out);
  MPI_Request rq;
  MPI_Iallreduce(v, out, n, MPI_DOUBLE, op == AX_MPI_MIN ? MPI_MIN : op == AX_MPI_MAX ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD, &rq);
  settle(&rq);
  memcpy(v, out, sizeof *v * (size_t)n);
  free(out);
}

char *ax_mpi_gather_all(const char *data, size_t len, size_t **lens) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  AX_ASSERT(len <= (size_t)INT32_MAX);
  int mine = (int)len, *counts = ax_xcalloc((size_t)size, sizeof *counts);
  int *displs = ax_xcalloc((size_t)size, sizeof *displs);
  MPI_Request rq;
  MPI_Iallgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD, &rq);
  settle(&rq);
  size_t total = 0;
  *lens = ax_xcalloc((size_t)size, sizeof **lens);
  for (int r = 0; r < size; r++) {
    AX_ASSERT(total + (size_t)counts[r] <= (size_t)INT32_MAX);
    displs[r] = (int)total;
    (*lens)[r] = (size_t)counts[r];
    total += (size_t)counts[r];
  }
  char *all = ax_xmalloc(total + 1);
  MPI_Iallgatherv(data, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD, &rq);
  settle(&rq);
  all[total] = '\0';
  free(counts);
  free(displs);
  return all;
}

#else   /* a build without MPI: only ax_mpi_built may be called */

bool ax_mpi_built(void) { return false; }

bool ax_mpi_start(int *rank, int *size) {
  *rank = 0;
  *size = 1;
  return false;
}

void ax_mpi_stop(void) {}

void ax_mpi_reduce_all(double *v, int n, AxMpiOp op) { (void)v, (void)n, (void)op; }

char *ax_mpi_gather_all(const char *data, size_t len, size_t **lens) {
  *lens = ax_xcalloc(1, sizeof **lens);
  (*lens)[0] = len;
  char *all = ax_xmalloc(len + 1);
  if (len) memcpy(all, data, len);
  all[len] = '\0';
  return all;
}

void ax_mpi_coordinate(const size_t *order, size_t n, AxMpiGot *got, void (*tick)(void *),
                       void *ctx) {
  (void)order, (void)n, (void)got, (void)tick, (void)ctx;
  AX_ASSERT(!"axle was built without MPI");
}

void ax_mpi_serve(int jobs, AxMpiBatch *batch, void *ctx) {
  (void)jobs, (void)batch, (void)ctx;
  AX_ASSERT(!"axle was built without MPI");
}

void ax_mpi_send(size_t task, const char *data, size_t len, const char *failure, double ms) {
  (void)task, (void)data, (void)len, (void)failure, (void)ms;
  AX_ASSERT(!"axle was built without MPI");
}

#endif
