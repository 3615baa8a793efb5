/*
 * A small, fast, seedable generator (splitmix64 to seed, xoshiro256** to
 * draw). Everything generated from a case's seed goes through this, so a
 * seed reproduces the same values on every machine and compiler.
 */
#ifndef SL_RNG_H
#define SL_RNG_H

#include <stdint.h>

typedef struct sl_rng {
  uint64_t s[4];
} sl_rng;

static inline uint64_t sl_splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Seeds a stream; `stream` separates independent streams of one seed. */
static inline void sl_rng_seed(sl_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * UINT64_C(0xd1b54a32d192ed03));
  for (int i = 0; i < 4; ++i) r->s[i] = sl_splitmix64(&x);
}

static inline uint64_t sl_rng_next(sl_rng *r) {
  uint64_t *s = r->s;
  uint64_t t = s[1] << 17, x = s[1] * 5;
  uint64_t result = ((x << 7) | (x >> 57)) * 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}

/* Uniform in [0, n); n > 0. Lemire's multiply-shift, bias below 2^-64 n. */
static inline uint64_t sl_rng_below(sl_rng *r, uint64_t n) {
  return (uint64_t)(((unsigned __int128)sl_rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double sl_rng_unit(sl_rng *r) {
  return (double)(sl_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
