/* cache.h — verdicts that need not be computed again.
 *
 * A rule's verdict at an element type depends on nothing but the rule itself (rules are
 * self-contained), the element type, the verifier and the solvers with their options. The
 * key material of an entry spells all of that out in full:
 *     the cache format; the axle version and a hash of the axle executable's bytes (a
 *     rebuilt verifier is another verifier); the solver set-up (--solver, --cross-check,
 *     the solver binary's path, size and modification time, libz3's likewise); the time
 *     limit per query, the instance limit, the bound slack, the confirmation policy (grace,
 *     floor, whether cvc5 is waited for on the queries it never confirms); the test hooks'
 *     values in the binary that reads them (base/hooks.h); the element type; the canonical
 *     text of the rule (ax_print_block: layout and comments do not matter).
 *     tests/e2e/cache_keys.sh fails when an option of `axle verify` is neither keyed nor
 *     known to leave stored verdicts alone.
 * An entry is a file named after a hash of the key material, holding the key material in
 * full, the result's record (report.h) and a checksum of both. It is reused only when the
 * stored key material equals the current one byte for byte, the checksum matches and the
 * record reads back; anything else is ignored (and overwritten by the next store). An
 * entry file is opened so that it cannot block (a FIFO planted there is not read).
 *
 * Only finished verifications are stored: VERIFIED (vacuous or not), INVALID with its
 * replayed counterexample, INVALID-HINT. UNKNOWN and ERROR -- a timeout, a crash, a solver
 * disagreement -- are computed again every time. Entries are written to a temporary file
 * and renamed into place, so a reader never sees half an entry, even across processes. */
#ifndef AX_CACHE_H
#define AX_CACHE_H

#include "verifier/verify.h"

typedef struct AxCache AxCache;

/* The cache in dir, or when dir is NULL in $XDG_CACHE_HOME/axle (when that is an absolute
 * path), else $HOME/.cache/axle; created if missing. solver names the --solver setting.
 * Returns owned, or NULL with why[0..len) saying why there is no cache. Borrows o. */
AxCache *ax_cache_open(const char *dir, const AxVerifyOpts *o, const char *solver, char *why,
                       size_t len);
void ax_cache_close(AxCache *c);   /* NULL is fine */

/* From now on, an entry that is there but cannot be used (not a regular file, unreadable,
 * truncated, corrupt, damaged) is reported on out as a warning naming the file and why,
 * and so is the first store that fails (a read-only or full cache directory). Either way
 * the cache only misses: nothing blocks, nothing fails. out NULL: silent (the default). */
void ax_cache_warn_to(AxCache *c, FILE *out);

/* The directory the entries are in (borrowed). */
const char *ax_cache_dir(const AxCache *c);

/* The complete key material of rule (checked) at type t. Returns owned. */
char *ax_cache_key(const AxCache *c, const AxBlock *rule, AxType t);

/* The result stored under key, if any and intact: true with *out filled (out->cached set;
 * free with ax_result_free); else false with *out zeroed. Borrows rule. */
bool ax_cache_get(const AxCache *c, const char *key, const AxBlock *rule, AxType t,
                  AxResult *out);

/* Stores r under key when it is a finished verification (see above). Returns true when
 * an entry was written; false when r is not to be stored or writing failed. */
bool ax_cache_put(AxCache *c, const char *key, const AxResult *r);

/* The verdict-changing settings of o besides the solver set-up, one per line: the time
 * limit per query, the instance limit, the bound slack, the confirmation policy, the test
 * hooks' values. Part of every key; `axle verify --shard` digests them too (merge.h). */
void ax_cache_write_settings(FILE *out, const AxVerifyOpts *o);

/* The hash (ax_cache_hash) of the running executable's bytes, read once per process;
 * false if it cannot be read. */
bool ax_cache_executable(uint64_t *h);

/* FNV-1a, 64 bits, of p[0..n) continuing from h (AX_CACHE_HASH_START to begin): a
 * checksum against damage and mistakes, not against someone who forges on purpose. */
#define AX_CACHE_HASH_START 0xcbf29ce484222325ULL
uint64_t ax_cache_hash(uint64_t h, const void *p, size_t n);

/* The path of the entry file for key ("<dir>/<hash of key>.json"), written to buf and
 * returned. For tests and tools. */
const char *ax_cache_entry_path(const AxCache *c, const char *key, char *buf, size_t len);

#endif
