/* spread.h — one search shared by the ranks of an MPI job (`axle superopt --mpi`); every
 * MPI call goes through run/mpi.h's collectives.
 *
 * Every rank runs the same search (the same program, options and floor) with its own
 * threads. The generator numbers the top-level choices of each level the same way on every
 * rank and deals them round robin to ranks x threads (the driver gives thread t of rank r
 * worker id r * jobs + t of ranks * jobs; generate.c's prefix split does the rest): a
 * static split, which needs no message while searching. The driver's thread then calls
 * ax_spread_wait, which shares the branch-and-bound bound at short intervals so that a
 * good graph found by one rank cuts prefixes on all; ax_spread_merge joins the kept
 * candidates in an order that does not depend on which rank found what; ax_spread_checks
 * spreads the final full-shape checks. Each of these is a collective: every rank calls
 * each once per search, in this order.
 *
 * Private to superopt/search: it reads the driver's state (generate.h). */
#ifndef AX_SPREAD_H
#define AX_SPREAD_H

#include "superopt/search/generate.h"

/* Waits until done[0..n) (set, with __atomic stores, by this rank's threads as each
 * ends) are all true and every other rank's threads have ended too; about every 50 ms
 * meanwhile s->bound_s becomes the least over the ranks (0, no bound yet, counts as none).
 * Sound: a rank's bound is the worst time of its full top list or its floor, and the top
 * list of all ranks together is no worse. */
void ax_spread_wait(SearchState *s, const bool *done, int n);

/* s->found[0..nfound) becomes the best s->o->top candidates kept by all ranks together (a
 * text kept by several ranks counted once), ordered by modelled time and, among equal
 * times, by text; the same on every rank, and the same order a single process gives the
 * same candidates (search.c sorts them alike). s's counters become the sums over the
 * ranks, best_at the earliest, *timed_out true when any rank's time limit stopped it.
 * s->found must have room for s->o->top + 2 entries. */
void ax_spread_merge(SearchState *s, bool *timed_out);

/* The full-shape checks of the merged list: need[0..n) says which of its candidates a
 * single process would check (a rank that needs one makes every rank check it); the k-th
 * needed candidate is checked by rank k mod ranks through check(ctx, i) (i its index in
 * the list) in rounds of one per rank, and st[i] becomes its status on every rank (-1
 * where none was checked). With first_pass the first round is the first needed candidate
 * alone, and no round starts after one in which a check passed (status 0), as a single
 * process stops at the first graph that passes. */
void ax_spread_checks(int n, bool *need, bool first_pass, int *st, int (*check)(void *ctx, int i),
                      void *ctx);

#endif
