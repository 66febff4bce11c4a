/* mpi.c — the MPI transport of `axle verify --mpi` and the collectives of `axle superopt
 * --mpi`; see mpi.h.
 *
 * Messages (MPI_COMM_WORLD): a rank asks with TAG_ASK (one int: how many tasks it takes);
 * rank 0 answers TAG_TASKS, an array of uint64 task numbers, empty when there are no more
 * (the rank then stops asking); a result is TAG_RESULT: uint64 task, double ms, one byte
 * 'R' (a record follows) or 'F' (a failure's reason follows), the text, a NUL; TAG_BEAT,
 * empty, says a rank is alive while it works or waits. Open MPI 4.1 tells no rank that
 * another died (no ULFM), so rank 0 declares a rank dead after a lease of silence (every
 * message counts) and drops whatever that rank sends later. */
#include "run/mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "base/base.h"
#include "base/clock.h"
#include "base/hooks.h"

#ifdef AXLE_HAVE_MPI
#include <mpi.h>

enum { TAG_ASK = 1, TAG_TASKS, TAG_RESULT, TAG_BEAT };

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

/* Whether mpirun was told to keep the job going past a dead rank (--enable-recovery or
 * --mca orte_enable_recovery 1: Open MPI 4.1 passes the setting to each rank this way). */
bool ax_mpi_recovering(void) {
  const char *e = getenv("OMPI_MCA_orte_enable_recovery");
  return e && (strcmp(e, "1") == 0 || strcmp(e, "true") == 0);
}

static unsigned lease_ms = AX_MPI_LEASE_MS;   /* the lease of this run (coordinate, serve) */

/* The watchdog of MPI_Finalize under recovery: what was to be written is flushed. */
static void give_up(int sig) {
  (void)sig;
  _exit(0);
}

void ax_mpi_stop(void) {
  int on = 0, off = 0;
  MPI_Initialized(&on);
  MPI_Finalized(&off);
  if (!on || off) return;
  /* Under recovery a rank may be dead, and Open MPI 4.1's MPI_Finalize, which waits for
   * every rank, then hangs now and then (seen in about one run of seven): after a lease it
   * gives up. mpirun's status is 0 under recovery whatever a rank returns, so the watchdog's
   * status does not matter; the report is written and flushed before this. */
  if (ax_mpi_recovering()) {
    fflush(NULL);
    signal(SIGALRM, give_up);
    alarm(lease_ms / 1000 + 1);
  }
  MPI_Finalize();
  alarm(0);
}

static void nap(void) { nanosleep(&(struct timespec){0, 1000 * 1000}, NULL); }

/* Rank 0's view of one other rank. */
typedef struct Peer {
  int64_t heard;         /* when its last message arrived */
  bool dead;             /* silent past the lease: never heard again */
  bool stopped;          /* told there is no more */
  bool asking;           /* its request waits for an answer */
  int64_t beat;          /* when rank 0 last told it, held back, that rank 0 is alive */
  int want;              /* ... for that many tasks */
  uint64_t *task;        /* the tasks it holds, not yet answered */
  int *tries;            /* ... and how many ranks were given each, this one included */
  size_t nheld, cap;
} Peer;

/* Rank 0: what is still to hand out — tasks taken back from a dead rank first (they were
 * the longest when first handed out), then order[next..n). */
typedef struct Queue {
  const size_t *order;
  size_t n, next;
  uint64_t *back;        /* taken back, FIFO */
  int *back_tries;
  size_t head, tail;
} Queue;

static bool queue_empty(const Queue *q) { return q->head == q->tail && q->next == q->n; }

static uint64_t queue_take(Queue *q, int *tries) {
  if (q->head < q->tail) {
    *tries = q->back_tries[q->head];
    return q->back[q->head++];
  }
  *tries = 0;
  return q->order[q->next++];
}

static void hold(Peer *p, uint64_t task, int tries) {
  if (p->nheld == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 8;
    p->task = ax_xrealloc(p->task, p->cap * sizeof *p->task);
    p->tries = ax_xrealloc(p->tries, p->cap * sizeof *p->tries);
  }
  p->task[p->nheld] = task;
  p->tries[p->nheld++] = tries;
}

/* Rank r went silent: the tasks it held go back to the queue, or, those a dead rank held
 * before, fail; it is told to stop (a merely slow rank then stops when it next asks; a
 * dead one never reads it, and the send does not wait). Returns the tasks that failed. */
static size_t bury(Peer *p, int r, Queue *q, AxMpiGot *got, void *ctx) {
  p->dead = true;
  size_t failed = 0;
  char why[64];
  snprintf(why, sizeof why, "rank %d died", r);
  for (size_t k = 0; k < p->nheld; k++) {
    if (p->tries[k] >= 2) {   /* a second rank died with it: it may be what kills them */
      got(ctx, (size_t)p->task[k], NULL, 0, why, 0);
      failed++;
    } else {
      q->back[q->tail] = p->task[k];
      q->back_tries[q->tail++] = p->tries[k];
    }
  }
  fprintf(stderr, "axle: warning: verify --mpi: rank %d sent nothing for %.3g s: declared dead; "
                  "%zu of its results go to other ranks, %zu are UNKNOWN\n",
          r, lease_ms / 1000.0, p->nheld - failed, failed);
  p->nheld = 0;
  MPI_Request rq;
  MPI_Isend(NULL, 0, MPI_UINT64_T, r, TAG_TASKS, MPI_COMM_WORLD, &rq);
  MPI_Request_free(&rq);
  return failed;
}

/* Test hook (axle-test only, base/hooks.h): AXLE_TEST_MPI_KILL_RANK listing rank 0 kills
 * rank 0 at the first result it receives, so that a test can show the other ranks end
 * instead of waiting for it for ever. */
static bool rank0_doomed(void) {
  const char *s = ax_test_hook("AXLE_TEST_MPI_KILL_RANK");
  while (s && *s) {
    char *end;
    long r = strtol(s, &end, 10);
    if (end == s) break;
    if (r == 0) return true;
    s = *end == ',' ? end + 1 : end;
  }
  return false;
}

size_t ax_mpi_coordinate(const size_t *order, size_t n, unsigned lease, AxMpiGot *got,
                         void (*tick)(void *), void *ctx, size_t *left) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {
    for (size_t k = 0; k < n; k++)
      got(ctx, order[k], NULL, 0, "no rank to verify it: run axle verify --mpi under mpirun -n 2 or more", 0);
    return 0;
  }
  if (lease) lease_ms = lease;
  Queue q = {.order = order, .n = n};
  q.back = ax_xcalloc(n + 1, sizeof *q.back);
  q.back_tries = ax_xcalloc(n + 1, sizeof *q.back_tries);
  Peer *peer = ax_xcalloc((size_t)size, sizeof *peer);
  int64_t now = ax_clock_ms(), last_tick = now;
  for (int r = 1; r < size; r++) {   /* from now on rank 0 is heard: its lease starts */
    peer[r].heard = now;
    MPI_Send(NULL, 0, MPI_BYTE, r, TAG_BEAT, MPI_COMM_WORLD);
  }
  size_t ndone = 0, held = 0;
  uint64_t *batch = NULL;
  for (;;) {
    int live = 0;
    for (int r = 1; r < size; r++) live += !peer[r].dead && !peer[r].stopped;
    if (live == 0) break;

    MPI_Status st;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      int count, src = st.MPI_SOURCE;
      MPI_Get_count(&st, MPI_BYTE, &count);
      char *buf = ax_xmalloc((size_t)count + 1);
      MPI_Recv(buf, count, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      buf[count] = '\0';
      Peer *p = &peer[src];
      if (src > 0 && !p->dead) {   /* a late word from a rank declared dead is dropped */
        p->heard = ax_clock_ms();
        if (st.MPI_TAG == TAG_ASK && (size_t)count >= sizeof(int)) {
          memcpy(&p->want, buf, sizeof(int));
          p->asking = true;
        } else if (st.MPI_TAG == TAG_RESULT) {
          uint64_t task;
          double ms;
          size_t head = sizeof task + sizeof ms + 1;
          AX_ASSERT((size_t)count > head);
          memcpy(&task, buf, sizeof task);
          memcpy(&ms, buf + sizeof task, sizeof ms);
          size_t k = 0;
          while (k < p->nheld && p->task[k] != task) k++;
          if (k < p->nheld) {   /* else not this rank's to answer: dropped */
            p->task[k] = p->task[p->nheld - 1];
            p->tries[k] = p->tries[p->nheld - 1];
            p->nheld--;
            held--;
            const char *body = buf + head;
            size_t len = (size_t)count - head - 1;   /* the sender's NUL */
            if (buf[sizeof task + sizeof ms] == 'R') got(ctx, (size_t)task, body, len, NULL, ms);
            else got(ctx, (size_t)task, NULL, 0, body, ms);
            ndone++;
            if (ndone == 1 && rank0_doomed()) raise(SIGKILL);
          }
        }   /* TAG_BEAT, or anything else: only that it is alive */
      }
      free(buf);
    }

    now = ax_clock_ms();
    for (int r = 1; r < size; r++) {
      Peer *p = &peer[r];
      if (p->dead || p->stopped) continue;
      if (now - p->heard > (int64_t)lease_ms) {
        held -= p->nheld;
        ndone += bury(p, r, &q, got, ctx);
        continue;
      }
      if (!p->asking) continue;
      /* answer: tasks while there are any; "no more" only once nothing is out, since a
       * rank that dies yet gives its tasks back to those still asking */
      size_t give = 0, want = p->want < 1 ? 1 : (size_t)p->want;
      batch = ax_xrealloc(batch, (want + 1) * sizeof *batch);
      while (give < want && !queue_empty(&q)) {
        int tries;
        batch[give] = queue_take(&q, &tries);
        hold(p, batch[give++], tries + 1);
        held++;
      }
      if (give == 0 && held > 0) {   /* it waits (and beats) meanwhile, and so does rank 0: */
        if (now - p->beat >= (int64_t)(lease_ms / 5 < 1000 ? lease_ms / 5 : 1000)) {
          /* a rank kept waiting learns that rank 0 lives (ax_mpi_serve) */
          MPI_Send(NULL, 0, MPI_BYTE, r, TAG_BEAT, MPI_COMM_WORLD);
          p->beat = now;
        }
        continue;
      }
      MPI_Send(batch, (int)give, MPI_UINT64_T, r, TAG_TASKS, MPI_COMM_WORLD);
      p->asking = false;
      p->stopped = give == 0;
    }
    if (tick && now - last_tick >= 100) {
      tick(ctx);
      last_tick = now;
    }
    if (!flag) nap();
  }
  /* every rank that could verify is dead: the caller runs what is left */
  size_t nleft = 0;
  while (!queue_empty(&q)) {
    int tries;
    left[nleft++] = (size_t)queue_take(&q, &tries);
  }
  AX_ASSERT(ndone + nleft == n);
  for (int r = 1; r < size; r++) {
    free(peer[r].task);
    free(peer[r].tries);
  }
  free(peer);
  free(q.back);
  free(q.back_tries);
  free(batch);
  return nleft;
}

/* Another rank under recovery: rank 0 has been silent for a lease. The report dies with it;
 * waiting on would be for ever. */
static _Noreturn void rank0_dead(void) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  fprintf(stderr, "axle: error: verify --mpi: rank %d: rank 0 sent nothing for %g s: it died, and with "
                  "it the report; this rank stops\n", me, lease_ms / 1000.0);
  fflush(NULL);
  _exit(3);
}

/* Another rank: tells rank 0 that it is alive, at most every lease / 5 (and at least every
 * second). */
void ax_mpi_beat(void) {
  static int64_t sent;
  int64_t now = ax_clock_ms(), every = lease_ms / 5 < 1000 ? lease_ms / 5 : 1000;
  if (now - sent < every) return;
  sent = now;
  MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BEAT, MPI_COMM_WORLD);
}

void ax_mpi_serve(int jobs, unsigned lease, AxMpiBatch *batch, void *ctx) {
  if (lease) lease_ms = lease;
  size_t *tasks = ax_xcalloc((size_t)(jobs < 1 ? 1 : jobs) + 1, sizeof *tasks);
  uint64_t *got = ax_xcalloc((size_t)(jobs < 1 ? 1 : jobs) + 1, sizeof *got);
  bool live0 = false;   /* rank 0 coordinates: heard from once (its lease holds from then) */
  for (;;) {
    MPI_Send(&jobs, 1, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
    MPI_Status st;
    /* rank 0 may hold the answer back while other ranks' tasks are out: beat meanwhile, and
     * hear its beats; under recovery a rank 0 silent for a lease is dead (without recovery
     * mpirun would have ended this rank with it), and waiting on would be for ever */
    int64_t heard = ax_clock_ms();
    for (int flag = 0; !flag;) {
      MPI_Iprobe(0, TAG_TASKS, MPI_COMM_WORLD, &flag, &st);
      if (flag) break;
      int bflag = 0;
      MPI_Iprobe(0, TAG_BEAT, MPI_COMM_WORLD, &bflag, MPI_STATUS_IGNORE);
      if (bflag) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_BEAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        heard = ax_clock_ms();
        live0 = true;
      } else if (live0 && ax_clock_ms() - heard > (int64_t)lease_ms && ax_mpi_recovering()) {
        rank0_dead();
      }
      ax_mpi_beat();
      nap();
    }
    int count;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    AX_ASSERT(count >= 0 && count <= (jobs < 1 ? 1 : jobs));
    MPI_Recv(got, count, MPI_UINT64_T, 0, TAG_TASKS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    live0 = true;
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
  /* A large message waits for rank 0 to take it (rendezvous): rank 0 polls all the time,
   * so under recovery one not taken within a lease went to a dead rank 0 */
  MPI_Request rq;
  MPI_Isend(buf, (int)(head + n + 1), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &rq);
  int64_t t0 = ax_clock_ms();
  for (int flag = 0; !flag;) {
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    if (ax_clock_ms() - t0 > (int64_t)lease_ms && ax_mpi_recovering()) rank0_dead();
    nap();
  }
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

bool ax_mpi_recovering(void) { return false; }

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

size_t ax_mpi_coordinate(const size_t *order, size_t n, unsigned lease, AxMpiGot *got,
                         void (*tick)(void *), void *ctx, size_t *left) {
  (void)order, (void)n, (void)lease, (void)got, (void)tick, (void)ctx, (void)left;
  AX_ASSERT(!"axle was built without MPI");
  return 0;
}

void ax_mpi_serve(int jobs, unsigned lease, AxMpiBatch *batch, void *ctx) {
  (void)jobs, (void)lease, (void)batch, (void)ctx;
  AX_ASSERT(!"axle was built without MPI");
}

void ax_mpi_beat(void) { AX_ASSERT(!"axle was built without MPI"); }

void ax_mpi_send(size_t task, const char *data, size_t len, const char *failure, double ms) {
  (void)task, (void)data, (void)len, (void)failure, (void)ms;
  AX_ASSERT(!"axle was built without MPI");
}

#endif
