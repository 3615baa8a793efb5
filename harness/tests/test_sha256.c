/*
 * SHA-256 against FIPS 180-4's examples (and the standard one-million-'a'
 * vector), the padding edges (55, 56, 63, 64, 65 bytes ...), messages fed
 * in two pieces split at every offset, and files (several 64 KiB reads, an
 * exact block, empty, missing, a folder). The expected digests other than
 * FIPS's own were computed with Python's hashlib, not with this code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256.h"
#include "sl_test.h"

static void hex_of(const void *data, size_t n, char hex[65]) {
  uint8_t d[SL_SHA256_BYTES];
  sl_sha256(data, n, d);
  sl_sha256_hex(d, hex);
}

#define CHECK_HEX(got, want)                                                   \
  CHECK_MSG(strcmp((got), (want)) == 0, "got %s, want %s", (got), (want))

static void test_fips_vectors(void) {
  char hex[65];
  hex_of("", 0, hex);
  CHECK_HEX(hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* NULL with no bytes is the empty message too. */
  hex_of(NULL, 0, hex);
  CHECK_HEX(hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hex_of("abc", 3, hex);
  CHECK_HEX(hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  /* 448 bits: the padding no longer fits, a second block is needed. */
  static const char m448[] =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(strlen(m448) * 8 == 448);
  hex_of(m448, strlen(m448), hex);
  CHECK_HEX(hex,
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  static const char m896[] =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  hex_of(m896, strlen(m896), hex);
  CHECK_HEX(hex,
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  /* One million 'a': in one call, and in 1000 calls of 1000. */
  char *a = malloc(1000000);
  CHECK(a != NULL);
  if (!a) return;
  memset(a, 'a', 1000000);
  static const char million[] =
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  hex_of(a, 1000000, hex);
  CHECK_HEX(hex, million);
  sl_sha256_ctx c;
  sl_sha256_init(&c);
  for (int i = 0; i < 1000; ++i) sl_sha256_update(&c, a, 1000);
  uint8_t d[SL_SHA256_BYTES];
  sl_sha256_final(&c, d);
  sl_sha256_hex(d, hex);
  CHECK_HEX(hex, million);
  free(a);
}

/* The 200-byte message of the split tests: byte i is (7 i + 3) mod 256. */
static void pattern200(uint8_t m[200]) {
  for (int i = 0; i < 200; ++i) m[i] = (uint8_t)((i * 7 + 3) % 256);
}

static void test_padding_edges(void) {
  uint8_t m[200];
  pattern200(m);
  /* Lengths where the padding's 0x80 and the 8-byte length land on either
   * side of a block boundary. */
  static const struct {
    size_t n;
    const char *hex;
  } want[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
      {200, "2c7e18c942ef065b526a2d4e5546283749cd3ddfb51d8fc71f42717363685f46"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
    char hex[65];
    hex_of(m, want[i].n, hex);
    CHECK_MSG(strcmp(hex, want[i].hex) == 0, "%zu bytes: got %s, want %s",
              want[i].n, hex, want[i].hex);
  }
}

/* Any way of cutting the message into update calls gives the same digest:
 * two pieces cut at every offset 0..130 (across the first two block
 * boundaries), three pieces, and one byte at a time. */
static void test_split_updates(void) {
  uint8_t m[200];
  pattern200(m);
  static const char whole[] =
      "2c7e18c942ef065b526a2d4e5546283749cd3ddfb51d8fc71f42717363685f46";
  char hex[65];
  uint8_t d[SL_SHA256_BYTES];
  int bad = 0;
  for (size_t k = 0; k <= 130; ++k) {
    sl_sha256_ctx c;
    sl_sha256_init(&c);
    sl_sha256_update(&c, m, k);
    sl_sha256_update(&c, m + k, sizeof m - k);
    sl_sha256_final(&c, d);
    sl_sha256_hex(d, hex);
    if (strcmp(hex, whole) != 0) {
      if (++bad <= 3) fprintf(stderr, "split at %zu: got %s\n", k, hex);
    }
    /* Three pieces: k, then up to 61 more, then the rest. */
    size_t k2 = k + (k * 13) % 62;
    sl_sha256_init(&c);
    sl_sha256_update(&c, m, k);
    sl_sha256_update(&c, m + k, k2 - k);
    sl_sha256_update(&c, NULL, 0);
    sl_sha256_update(&c, m + k2, sizeof m - k2);
    sl_sha256_final(&c, d);
    sl_sha256_hex(d, hex);
    if (strcmp(hex, whole) != 0) {
      if (++bad <= 3)
        fprintf(stderr, "split at %zu, %zu: got %s\n", k, k2, hex);
    }
  }
  CHECK_MSG(bad == 0, "%d splits gave another digest", bad);
  sl_sha256_ctx c;
  sl_sha256_init(&c);
  for (size_t i = 0; i < sizeof m; ++i) sl_sha256_update(&c, m + i, 1);
  sl_sha256_final(&c, d);
  sl_sha256_hex(d, hex);
  CHECK_HEX(hex, whole);
}

static int write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t put = n ? fwrite(data, 1, n, f) : 0;
  return fclose(f) == 0 && put == n ? 0 : -1;
}

static void test_files(const char *dir) {
  /* Three full 64 KiB reads and a partial one; byte i is
   * (131 i + i / 256) mod 256. */
  enum { N = 3 * 65536 + 17 };
  uint8_t *m = malloc(N);
  CHECK(m != NULL);
  if (!m) return;
  for (size_t i = 0; i < N; ++i) m[i] = (uint8_t)((i * 131 + (i >> 8)) & 255);
  char path[512], hex[65], mem[65], err[512];
  snprintf(path, sizeof path, "%s/lib.so", dir);
  CHECK(write_file(path, m, N) == 0);
  CHECK_MSG(sl_sha256_file(path, hex, err, sizeof err) == 0, "%s", err);
  hex_of(m, N, mem);
  CHECK_HEX(hex, mem);
  CHECK_HEX(hex,
            "743bf0b4868d0fe7c44cf009d016ab4326232508cdba9bae6a84b8e7bd268adc");
  CHECK_MSG(strcmp(err, "") == 0, "%s", err);
  /* Exactly one read's worth. */
  CHECK(write_file(path, m, 65536) == 0);
  CHECK_MSG(sl_sha256_file(path, hex, err, sizeof err) == 0, "%s", err);
  CHECK_HEX(hex,
            "0b1920fd5be0f3e4af437b7fa14d7053c9b5a43b94942bdf206c6d3cee2e5a03");
  /* Empty. err may be NULL. */
  CHECK(write_file(path, m, 0) == 0);
  CHECK(sl_sha256_file(path, hex, NULL, 0) == 0);
  CHECK_HEX(hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  unlink(path);
  free(m);

  /* Missing: the path and strerror(ENOENT), and no digest. */
  char missing[512], want[700];
  snprintf(missing, sizeof missing, "%s/missing.so", dir);
  memset(hex, 'x', sizeof hex);
  CHECK(sl_sha256_file(missing, hex, err, sizeof err) == -1);
  snprintf(want, sizeof want, "%s: cannot open: %s", missing, strerror(ENOENT));
  CHECK_MSG(strcmp(err, want) == 0, "got \"%s\", want \"%s\"", err, want);
  CHECK(hex[0] == '\0');
  CHECK(sl_sha256_file(missing, hex, NULL, 0) == -1);
  /* A folder opens but cannot be read. */
  CHECK(sl_sha256_file(dir, hex, err, sizeof err) == -1);
  snprintf(want, sizeof want, "%s: cannot read: %s", dir, strerror(EISDIR));
  CHECK_MSG(strcmp(err, want) == 0, "got \"%s\", want \"%s\"", err, want);
  CHECK(sl_sha256_file(NULL, hex, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "path is NULL");
}

int main(void) {
  test_fips_vectors();
  test_padding_edges();
  test_split_updates();
  char dir[] = "/tmp/sl_sha256_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  test_files(dir);
  rmdir(dir);
  return sl_test_finish("test_sha256");
}
