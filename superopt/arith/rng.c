/* rng.c — ChaCha20 block function (RFC 8439) as a stream and as a keyed hash. */
#include "superopt/arith/rng.h"

#include <string.h>

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                                                                 \
  (a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, b = ROTL(b, 12), a += b, d ^= a,   \
   d = ROTL(d, 8), c += d, b ^= c, b = ROTL(b, 7))

/* RFC 8439 §2.3: 20 rounds over constants, key, counter, nonce; output = state + input. */
static void block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                  uint32_t out[16]) {
  uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  memcpy(in + 4, key, 32);
  in[12] = counter;
  memcpy(in + 13, nonce, 12);
  uint32_t x[16];
  memcpy(x, in, sizeof x);
  for (int i = 0; i < 10; i++) {
    QR(x[0], x[4], x[8], x[12]);
    QR(x[1], x[5], x[9], x[13]);
    QR(x[2], x[6], x[10], x[14]);
    QR(x[3], x[7], x[11], x[15]);
    QR(x[0], x[5], x[10], x[15]);
    QR(x[1], x[6], x[11], x[12]);
    QR(x[2], x[7], x[8], x[13]);
    QR(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
}

/* SplitMix64: spreads the 64-bit seed over the 256-bit key. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void ax_rng_init(AxRng *r, uint64_t seed, uint64_t stream) {
  memset(r, 0, sizeof *r);
  uint64_t s = seed;
  for (int i = 0; i < 4; i++) {
    uint64_t v = splitmix(&s);
    r->key[2 * i] = (uint32_t)v;
    r->key[2 * i + 1] = (uint32_t)(v >> 32);
  }
  r->nonce[1] = (uint32_t)stream;
  r->nonce[2] = (uint32_t)(stream >> 32);
  r->used = 16;
}

uint32_t ax_rng_u32(AxRng *r) {
  if (r->used == 16) {
    block(r->key, r->counter++, r->nonce, r->buf);
    if (r->counter == 0) r->nonce[0]++;   /* 2^32 blocks: move to the next nonce */
    r->used = 0;
  }
  return r->buf[r->used++];
}

uint64_t ax_rng_u64(AxRng *r) {
  uint64_t lo = ax_rng_u32(r);
  return lo | (uint64_t)ax_rng_u32(r) << 32;
}

uint64_t ax_rng_below(AxRng *r, uint64_t n) {
  AX_ASSERT(n >= 1);
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;   /* reject the incomplete last copy */
  for (;;) {
    uint64_t v = ax_rng_u64(r);
    if (v < limit) return v % n;
  }
}

double ax_rng_unit(AxRng *r) { return (double)(ax_rng_u64(r) >> 11) * 0x1.0p-53; }

uint64_t ax_rng_hash(const AxRng *r, uint32_t tag, uint64_t x) {
  uint32_t nonce[3] = {tag, (uint32_t)x, (uint32_t)(x >> 32)};
  uint32_t out[16];
  block(r->key, 0xFFFFFFFFu, nonce, out);
  return out[0] | (uint64_t)out[1] << 32;
}

bool ax_rng_selftest(void) {
  /* RFC 8439 §2.3.2: key 00..1f, counter 1, nonce 000000090000004a00000000 */
  uint32_t key[8], nonce[3] = {0x09000000, 0x4a000000, 0x00000000}, out[16];
  for (int i = 0; i < 8; i++)
    key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 |
             (uint32_t)(4 * i + 3) << 24;
  block(key, 1, nonce, out);
  return out[0] == 0xe4e7f110 && out[1] == 0x15593bd1 && out[15] == 0x4e3c50a2;
}
