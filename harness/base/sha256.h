/*
 * SHA-256 (FIPS 180-4, section 6.2): the content hash a run records for
 * every provider library it loaded, so that two runs that name the same
 * path can be told apart when the file behind it was rebuilt.
 *
 * One-shot (sl_sha256), incremental (init, update any number of times,
 * final) and a whole file (sl_sha256_file). Not for secrets: no attempt is
 * made to run in constant time or to wipe the context.
 */
#ifndef SL_SHA256_H
#define SL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SL_SHA256_BYTES 32
/* Length of the hex digest, without its terminating NUL. */
#define SL_SHA256_HEX_LEN 64

/* The state between update calls. Treat it as opaque. */
typedef struct sl_sha256_ctx {
  uint32_t h[8];     /* the hash value H(i) so far */
  uint64_t nbytes;   /* message bytes seen, for the length in the padding */
  uint8_t block[64]; /* a partial block not yet compressed */
  unsigned fill;     /* bytes in block, 0..63 */
} sl_sha256_ctx;

void sl_sha256_init(sl_sha256_ctx *c);
/* Adds n bytes (data may be NULL when n is 0). */
void sl_sha256_update(sl_sha256_ctx *c, const void *data, size_t n);
/* Writes the digest; c must be initialized again before it is reused. */
void sl_sha256_final(sl_sha256_ctx *c, uint8_t out[SL_SHA256_BYTES]);

/* The digest of n bytes at data. */
void sl_sha256(const void *data, size_t n, uint8_t out[SL_SHA256_BYTES]);

/* The digest as 64 lower-case hex digits and a NUL. */
void sl_sha256_hex(const uint8_t digest[SL_SHA256_BYTES],
                   char hex[SL_SHA256_HEX_LEN + 1]);

/* The hex digest of the file at path, read in 64 KiB blocks. 0, or -1 with
 * hex set to "" and err naming the path and the reason ("libx.so: cannot
 * open: No such file or directory"); err may be NULL when errlen is 0. */
int sl_sha256_file(const char *path, char hex[SL_SHA256_HEX_LEN + 1], char *err,
                   size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
