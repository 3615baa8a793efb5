/*
 * SHA-256 as FIPS 180-4 defines it: the constants of section 4.2.2, the
 * functions of 4.1.2, the padding of 5.1.1, the initial hash value of 5.3.3
 * and the computation of 6.2.2, one 512-bit block at a time. Words are read
 * and written big-endian byte by byte, so the code does not depend on the
 * machine's byte order or on the alignment of the caller's buffer.
 */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Section 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t sl__k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu,
    0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u,
    0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u,
    0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
    0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u,
    0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
    0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u,
    0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u, 0x1e376c08u,
    0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu,
    0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
    0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

/* Section 5.3.3: the first 32 bits of the fractional parts of the square
 * roots of the first 8 primes. */
static const uint32_t sl__h0[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u,
                                   0xa54ff53au, 0x510e527fu, 0x9b05688cu,
                                   0x1f83d9abu, 0x5be0cd19u};

/* Section 3.2 and 4.1.2. n is 1..31 everywhere it is used, so neither
 * shift is by 32. */
static uint32_t sl__rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32u - n));
}
static uint32_t sl__ch(uint32_t x, uint32_t y, uint32_t z) {
  return (x & y) ^ (~x & z);
}
static uint32_t sl__maj(uint32_t x, uint32_t y, uint32_t z) {
  return (x & y) ^ (x & z) ^ (y & z);
}
static uint32_t sl__bsig0(uint32_t x) {
  return sl__rotr(x, 2) ^ sl__rotr(x, 13) ^ sl__rotr(x, 22);
}
static uint32_t sl__bsig1(uint32_t x) {
  return sl__rotr(x, 6) ^ sl__rotr(x, 11) ^ sl__rotr(x, 25);
}
static uint32_t sl__ssig0(uint32_t x) {
  return sl__rotr(x, 7) ^ sl__rotr(x, 18) ^ (x >> 3);
}
static uint32_t sl__ssig1(uint32_t x) {
  return sl__rotr(x, 17) ^ sl__rotr(x, 19) ^ (x >> 10);
}

static uint32_t sl__load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

static void sl__store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* Section 6.2.2: one 64-byte block M(i) folded into the hash value. */
static void sl__compress(uint32_t h[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t) w[t] = sl__load_be32(block + 4 * t);
  for (int t = 16; t < 64; ++t)
    w[t] = sl__ssig1(w[t - 2]) + w[t - 7] + sl__ssig0(w[t - 15]) + w[t - 16];
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
           hh = h[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t t1 = hh + sl__bsig1(e) + sl__ch(e, f, g) + sl__k[t] + w[t];
    uint32_t t2 = sl__bsig0(a) + sl__maj(a, b, c);
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

void sl_sha256_init(sl_sha256_ctx *c) {
  memcpy(c->h, sl__h0, sizeof c->h);
  c->nbytes = 0;
  c->fill = 0;
}

void sl_sha256_update(sl_sha256_ctx *c, const void *data, size_t n) {
  if (n == 0) return; /* data may then be NULL, which memcpy must not see */
  const uint8_t *p = data;
  c->nbytes += n;
  /* Top up a partial block first: blocks are compressed in message order. */
  if (c->fill > 0) {
    size_t take = 64 - c->fill < n ? 64 - c->fill : n;
    memcpy(c->block + c->fill, p, take);
    c->fill += (unsigned)take;
    p += take;
    n -= take;
    if (c->fill < 64) return;
    sl__compress(c->h, c->block);
    c->fill = 0;
  }
  /* Whole blocks straight from the caller's buffer, without a copy. */
  for (; n >= 64; p += 64, n -= 64) sl__compress(c->h, p);
  if (n > 0) {
    memcpy(c->block, p, n);
    c->fill = (unsigned)n;
  }
}

void sl_sha256_final(sl_sha256_ctx *c, uint8_t out[SL_SHA256_BYTES]) {
  /* Section 5.1.1: a 1 bit, zeros up to 56 bytes mod 64, then the message
   * length in bits as a 64-bit big-endian integer (mod 2^64, as the
   * standard's limit of 2^64 bits allows). */
  uint64_t bits = c->nbytes * 8u;
  c->block[c->fill++] = 0x80;
  if (c->fill > 56) {
    memset(c->block + c->fill, 0, 64 - c->fill);
    sl__compress(c->h, c->block);
    c->fill = 0;
  }
  memset(c->block + c->fill, 0, 56 - c->fill);
  sl__store_be32(c->block + 56, (uint32_t)(bits >> 32));
  sl__store_be32(c->block + 60, (uint32_t)bits);
  sl__compress(c->h, c->block);
  for (int i = 0; i < 8; ++i) sl__store_be32(out + 4 * i, c->h[i]);
  c->fill = 0;
}

void sl_sha256(const void *data, size_t n, uint8_t out[SL_SHA256_BYTES]) {
  sl_sha256_ctx c;
  sl_sha256_init(&c);
  sl_sha256_update(&c, data, n);
  sl_sha256_final(&c, out);
}

void sl_sha256_hex(const uint8_t digest[SL_SHA256_BYTES],
                   char hex[SL_SHA256_HEX_LEN + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < SL_SHA256_BYTES; ++i) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[SL_SHA256_HEX_LEN] = '\0';
}

/* The block size of the file reads: large enough that the system calls
 * cost nothing beside the hashing, small enough for any thread. */
#define SL__SHA256_FILE_BLOCK (64 * 1024)

int sl_sha256_file(const char *path, char hex[SL_SHA256_HEX_LEN + 1], char *err,
                   size_t errlen) {
  char dummy[8];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (hex) hex[0] = '\0';
  if (!path || !hex) {
    snprintf(err, errlen, "sl_sha256_file: %s is NULL", !path ? "path" : "hex");
    return -1;
  }
  /* O_CLOEXEC: a worker forked and exec'd meanwhile must not inherit it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  /* On the heap: 64 KiB is more than some threads' stacks can spare. */
  uint8_t *buf = malloc(SL__SHA256_FILE_BLOCK);
  if (!buf) {
    snprintf(err, errlen, "%s: out of memory for the read buffer", path);
    close(fd);
    return -1;
  }
  sl_sha256_ctx c;
  sl_sha256_init(&c);
  int ret = 0;
  for (;;) {
    ssize_t got = read(fd, buf, SL__SHA256_FILE_BLOCK);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      /* A folder opens fine and fails here, with EISDIR. */
      snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
      ret = -1;
      break;
    }
    if (got == 0) break;
    sl_sha256_update(&c, buf, (size_t)got);
  }
  free(buf);
  close(fd);
  if (ret == 0) {
    uint8_t digest[SL_SHA256_BYTES];
    sl_sha256_final(&c, digest);
    sl_sha256_hex(digest, hex);
  }
  return ret;
}
