/* mpi.h — axle under mpirun: `axle verify --mpi`, the rule results of one run spread over
 * the ranks of an MPI job, and the collectives of `axle superopt --mpi` (below, and
 * superopt/search/spread.h). Every MPI call of axle is in mpi.c; a build without MPI (Open
 * MPI not found by CMake) has the same functions, ax_mpi_built false, and must not call
 * verify's transport (coordinate, serve, send); its collectives act as one rank.
 *
 * Every rank builds the same task list (the same files and options give the same tasks in
 * the same order). Rank 0 coordinates and verifies nothing itself (unless every other rank
 * died, below): it answers what the result cache knows, then hands out the other tasks in
 * the order it is given (longest predicted first, plan.h) to ranks that ask, a batch of up
 * to their --jobs at a time; every other rank runs its batch on its own pool of --jobs
 * worker processes (jobs.h) and sends each result to rank 0 as soon as it is in, then asks
 * again until rank 0 has no more. Rank 0 alone reads and writes the cache and writes the
 * report, so the ranks of one node never write the cache at the same time and the results
 * of ranks on other nodes reach it too.
 * A verification that crashes or runs out of time or memory fails in its worker process as
 * in a single process (UNKNOWN with the reason). A rank that dies ends the whole job (Open
 * MPI's default: mpirun exits non-zero and no report is completed) unless mpirun was told
 * --enable-recovery; then the other ranks go on, and since MPI never says that a rank died,
 * every other rank sends rank 0 a heartbeat while it works or waits, and rank 0 declares a
 * rank that is silent for a lease dead: the tasks it held go to the live ranks (to rank 0's
 * caller when none is left), a task that a second dead rank held is UNKNOWN ("rank N
 * died"), and whatever a dead rank sends later is dropped. So no result is lost silently.
 * Waits poll with short sleeps: Open MPI's blocking calls spin a core, which the worker
 * processes need. */
#ifndef AX_MPI_H
#define AX_MPI_H

#include <stdbool.h>
#include <stddef.h>

/* The default lease (--mpi-lease): a rank silent this long is dead. */
#define AX_MPI_LEASE_MS 10000u

/* Whether this axle was built with MPI. */
bool ax_mpi_built(void);

/* Initializes MPI (once per process, MPI_THREAD_FUNNELED: a process's other threads never
 * call MPI; also without mpirun: one rank). *rank, *size: this
 * process's rank and the number of ranks. False if MPI could not start. */
bool ax_mpi_start(int *rank, int *size);

/* Whether mpirun keeps the job going past a dead rank (--enable-recovery): then mpirun's
 * own exit status is 0 whatever the ranks return, and rank 0 says which status it meant. */
bool ax_mpi_recovering(void);

/* Ends MPI (after ax_mpi_start, on every path of every rank), flushing stdio first. Under
 * mpirun --enable-recovery a dead rank can make MPI_Finalize hang: after the lease the
 * process exits (status 0: mpirun's status is 0 under recovery whatever a rank returns). */
void ax_mpi_stop(void);

/* Rank 0: a result of task `task` arrived from a rank: data[0..len) its record (borrowed,
 * NUL-terminated), or data NULL and failure the reason there is none; ms the time it took. */
typedef void AxMpiGot(void *ctx, size_t task, const char *data, size_t len, const char *failure,
                      double ms);

/* Rank 0: hands out tasks order[0..n) (the tasks not yet answered, in the order they are to
 * start) to the other ranks and calls got once per task as results arrive (or fail: a task
 * held by a second rank that died); tick (may be NULL) about every 100 ms. lease_ms (0: the
 * default) is the silence after which a rank is dead. Returns when every other rank has been
 * told there is no more or is dead: the number of tasks no rank could run, because every
 * other rank died, written to left (the caller's, room for n) in the order to run them (the
 * caller runs them; got is not called for them). With n 0 it only tells them (an error on
 * rank 0 alone). With one rank, tasks cannot run: each fails with that reason. */
size_t ax_mpi_coordinate(const size_t *order, size_t n, unsigned lease_ms, AxMpiGot *got,
                         void (*tick)(void *), void *ctx, size_t *left);

/* The collectives of a search shared by the ranks (`axle superopt --mpi`, superopt/search/
 * spread.h). Each is called by every rank, the same number of times and in the same order
 * (a rank that skips one leaves the others waiting for it), from the thread that started
 * MPI; each waits by polling with short sleeps, as above. In a build without MPI, or with
 * one rank, they return what one rank would get. */

typedef enum AxMpiOp { AX_MPI_MIN, AX_MPI_MAX, AX_MPI_SUM } AxMpiOp;

/* v[0..n) becomes its element-wise minimum, maximum or sum over the ranks. */
void ax_mpi_reduce_all(double *v, int n, AxMpiOp op);

/* The bytes data[0..len) of every rank, concatenated in rank order: returned owned
 * (malloc'd, NUL-terminated); *lens (owned, one entry per rank) their lengths. */
char *ax_mpi_gather_all(const char *data, size_t len, size_t **lens);

/* Another rank: runs tasks[0..n) (task numbers of the run) and calls ax_mpi_send for each. */
typedef void AxMpiBatch(void *ctx, const size_t *tasks, size_t n);

/* Another rank: asks rank 0 for up to `jobs` tasks at a time and runs each batch, until
 * rank 0 has none left; lease_ms as rank 0's (the same options give the same lease). */
void ax_mpi_serve(int jobs, unsigned lease_ms, AxMpiBatch *batch, void *ctx);

/* Another rank, inside batch: tells rank 0 it is alive; call it about every 100 ms (it sends
 * at most every lease / 5 and at least every second). */
void ax_mpi_beat(void);

/* Another rank, inside batch: sends task's result (as AxMpiGot describes it) to rank 0. */
void ax_mpi_send(size_t task, const char *data, size_t len, const char *failure, double ms);

#endif
