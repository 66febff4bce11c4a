/* plan.h — who verifies what when the work is split: the predicted cost of a task (one rule
 * at one element type) and a deterministic, balanced split of the tasks into shards.
 *
 * The predictor is a size estimate of the rule and nothing else: it depends only on the
 * rule's text and the mode, never on the machine, the clock or the result cache, so that
 * every CI job of `axle verify --shard K/N`, each on its own machine with its own cache,
 * computes the same split from the same checkout (a prediction from recorded times would
 * split differently on a job whose cache differs, and lose or repeat results). The
 * estimate: the number of expression nodes of the rule (both sides, the preconditions, the
 * hints, the definitions), doubled for every rank class (the rank vectors to check grow
 * with the product of the classes' bounds, about 2 each), times 4 in IEEE mode (a
 * bit-blasted bounded check). It orders the work; it promises nothing about seconds. */
#ifndef AX_PLAN_H
#define AX_PLAN_H

#include <stdint.h>

#include "dsl/ast.h"

/* The predicted cost of verifying rule (checked, without errors) at one element type; at
 * least 1. ieee: in IEEE mode (--numbers ieee). Borrows rule. */
uint64_t ax_plan_cost(const AxBlock *rule, bool ieee);

/* Fills order[0..n) with 0..n-1 sorted longest first: by cost[] descending, then by index
 * (a total order, so the result depends on nothing but cost). */
void ax_plan_order(const uint64_t *cost, size_t n, size_t *order);

/* Splits tasks 0..n-1 into nshards shards (>= 1) by longest-first greedy assignment: in
 * ax_plan_order's order, each task goes to the shard with the least predicted cost so far,
 * the lowest-numbered on a tie. shard_of[i] is task i's shard, 0-based. Every task is in
 * exactly one shard; the result depends only on cost and nshards. */
void ax_plan_shard(const uint64_t *cost, size_t n, int nshards, int *shard_of);

/* Reads "K/N" (decimal digits only, 1 <= K <= N <= 4096) into *k and *n; false if s is not
 * one. */
bool ax_plan_parse_shard(const char *s, int *k, int *n);

#endif
