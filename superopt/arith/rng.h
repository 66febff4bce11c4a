/* rng.h — ChaCha20 as a seeded random stream and as a keyed function.
 *
 * Random tests draw their inputs from a ChaCha20 keystream (RFC 8439 block function) so
 * that a run is reproducible from its 64-bit seed and the draws have cryptographic
 * quality: no structure of the inputs can line up with a wrong μGraph. The same block
 * function keyed differently serves as the random function that stands for sqrt in the
 * finite field (field.h). */
#ifndef AX_RNG_H
#define AX_RNG_H

#include "base/base.h"

typedef struct AxRng {
  uint32_t key[8];
  uint32_t nonce[3];
  uint32_t counter;
  uint32_t buf[16];
  int used;          /* words of buf consumed; 16 = empty */
} AxRng;

/* A stream determined by (seed, stream): distinct stream numbers give independent
 * streams from one seed. */
void ax_rng_init(AxRng *r, uint64_t seed, uint64_t stream);
uint32_t ax_rng_u32(AxRng *r);
uint64_t ax_rng_u64(AxRng *r);
/* Uniform in [0, n), n >= 1, without modulo bias. */
uint64_t ax_rng_below(AxRng *r, uint64_t n);
/* Uniform double in [0, 1). */
double ax_rng_unit(AxRng *r);

/* The keyed function: 64 pseudo-random bits for (key of r, tag, x); r is not advanced. */
uint64_t ax_rng_hash(const AxRng *r, uint32_t tag, uint64_t x);

/* Test vector check of the block function (RFC 8439 §2.3.2); used by unit tests. */
bool ax_rng_selftest(void);

#endif
