/* The checked cache of `ab --base-ref` (ab_cache.h). */
#include "ab_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"
#include "sha256.h"
#include "sl_ab_build.h"

#ifndef SL_COMPILER
#define SL_COMPILER ""
#endif

/* What the entry's key hashes: everything of this build that changes the
 * kernels' code (the options are the ones the base is configured with). */
static const char sl__key_text[] =
    "generator " SL_BUILD_GENERATOR "\ncompiler " SL_COMPILER
    "\n" SL_BUILD_OPTIONS;

/* A folder of the cache: a real folder (not a link), this user's, that
 * nobody else can write. */
static int sl__own_folder(const char *path, char *err, size_t errlen) {
  struct stat sb;
  if (lstat(path, &sb) != 0) {
    snprintf(err, errlen, "ab cache %s: cannot inspect (%s)", path,
             strerror(errno));
    return -1;
  }
  const char *got = S_ISLNK(sb.st_mode)    ? "a symbolic link"
                    : !S_ISDIR(sb.st_mode) ? "another kind of file"
                                           : NULL;
  if (got) {
    snprintf(err, errlen, "ab cache %s: expected a folder, got %s", path, got);
    return -1;
  }
  if (sb.st_uid != geteuid() || (sb.st_mode & 022)) {
    snprintf(err, errlen,
             "ab cache %s: expected a folder of yours (uid %ld) that only you "
             "can write, got one of uid %ld with mode %04o; its libraries "
             "would run as you (remove it, or chmod go-w it)",
             path, (long)geteuid(), (long)sb.st_uid,
             (unsigned)(sb.st_mode & 07777));
    return -1;
  }
  return 0;
}

/* mkdir -p of path's parents (theirs to check: /home may be a link), then
 * path itself, which must be one of ours. */
static int sl__make_own(const char *path, int parents, char *err,
                        size_t errlen) {
  char p[4400];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; parents && *s; ++s)
    if (*s == '/') {
      *s = '\0';
      mkdir(p, 0700); /* an error shows at the folder itself */
      *s = '/';
    }
  if (mkdir(path, 0700) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "ab cache %s: cannot create (%s)", path,
             strerror(errno));
    return -1;
  }
  return sl__own_folder(path, err, errlen);
}

int sl_ab_cache_entry(const char *root, const char *sha, char *dir, size_t len,
                      char *err, size_t errlen) {
  uint8_t d[SL_SHA256_BYTES];
  char key[SL_SHA256_HEX_LEN + 1], ab[4300], path[4400];
  sl_sha256(sl__key_text, strlen(sl__key_text), d);
  sl_sha256_hex(d, key);
  snprintf(ab, sizeof ab, "%s/ab", root);
  snprintf(dir, len, "%s/%.40s-%.16s", ab, sha, key);
  if (sl__make_own(root, 1, err, errlen) || sl__make_own(ab, 0, err, errlen) ||
      sl__make_own(dir, 0, err, errlen))
    return -1;
  snprintf(path, sizeof path, "%s/options.txt", dir);
  struct stat sb;
  if (lstat(path, &sb) == 0) return 0;
  return sl_safe_write_text(path, sl__key_text, err, errlen);
}

/* Size and SHA-256 of the open file fd, read from its start. */
static int sl__hash_fd(int fd, char hex[SL_SHA256_HEX_LEN + 1], int64_t *size) {
  sl_sha256_ctx c;
  sl_sha256_init(&c);
  char buf[1 << 16];
  ssize_t k;
  *size = 0;
  while ((k = read(fd, buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0) sl_sha256_update(&c, buf, (size_t)k), *size += k;
  uint8_t d[SL_SHA256_BYTES];
  sl_sha256_final(&c, d);
  sl_sha256_hex(d, hex);
  return k < 0 ? -1 : 0;
}

/* Why the library copy at lib (recorded as size, hex) cannot be loaded;
 * NULL when it can. */
static const char *sl__damage(const char *lib, int64_t size, const char *hex,
                              char *why, size_t whylen) {
  int fd = open(lib, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  char got[SL_SHA256_HEX_LEN + 1];
  int64_t n = 0;
  if (fd < 0)
    snprintf(why, whylen, "%s", errno == ELOOP ? "a symbolic link" : "missing");
  else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
    snprintf(why, whylen, "not a regular file");
  else if (sb.st_uid != geteuid() || (sb.st_mode & 022))
    snprintf(why, whylen, "a file of uid %ld, mode %04o", (long)sb.st_uid,
             (unsigned)(sb.st_mode & 07777));
  else if (sl__hash_fd(fd, got, &n) || n != size)
    snprintf(why, whylen, "%" PRId64 " bytes (recorded: %" PRId64 ")", n, size);
  else if (strcmp(got, hex) != 0)
    snprintf(why, whylen, "SHA-256 %.16s... (recorded: %.16s...)", got, hex);
  else
    why = NULL;
  if (fd >= 0) close(fd);
  return why;
}

int sl_ab_cache_lookup(const char *dir, char *lib, size_t len, char *why,
                       size_t whylen) {
  char stamp[4400], hex[SL_SHA256_HEX_LEN + 1] = "", what[128];
  long long size = -1;
  snprintf(stamp, sizeof stamp, "%s/kernels.sha256", dir);
  snprintf(lib, len, "%s/kernels.so", dir);
  why[0] = '\0';
  int fd = open(stamp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return 0; /* never stored */
  FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
  const int read_ok = f && fscanf(f, "%lld %64s", &size, hex) == 2;
  if (f)
    fclose(f);
  else if (fd >= 0)
    close(fd);
  const char *bad = !read_ok ? "no readable record of it"
                             : sl__damage(lib, size, hex, what, sizeof what);
  if (!bad) return 1;
  snprintf(why, whylen,
           "cached library %s: expected the file recorded when it was built "
           "(%lld bytes, SHA-256 %.16s...), got %s",
           lib, size, hex, bad);
  unlink(lib), unlink(stamp); /* unlink follows no link */
  return 0;
}

int sl_ab_cache_store(const char *dir, const char *built, char *lib, size_t len,
                      char *err, size_t errlen) {
  char stamp[4400], hex[SL_SHA256_HEX_LEN + 1], text[128];
  snprintf(lib, len, "%s/kernels.so", dir);
  snprintf(stamp, sizeof stamp, "%s/kernels.sha256", dir);
  unlink(lib), unlink(stamp);
  int in = open(built, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  sl_safe_file sf;
  if (in < 0) {
    snprintf(err, errlen, "%s: cannot open the built library (%s)", built,
             strerror(errno));
    return -1;
  }
  if (sl_safe_open(&sf, lib, err, errlen)) {
    close(in);
    return -1;
  }
  char buf[1 << 16];
  ssize_t k;
  while ((k = read(in, buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0) fwrite(buf, 1, (size_t)k, sf.f);
  close(in);
  if (k < 0 || sl_safe_commit(&sf, err, errlen)) {
    if (k < 0) sl_safe_abort(&sf);
    if (k < 0) snprintf(err, errlen, "%s: read error", built);
    return -1;
  }
  /* The record is of the copy as it now lies on disk. */
  int64_t size = 0;
  int fd = open(lib, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || sl__hash_fd(fd, hex, &size)) {
    snprintf(err, errlen, "%s: cannot read back the copy", lib);
    if (fd >= 0) close(fd);
    return -1;
  }
  close(fd);
  snprintf(text, sizeof text, "%" PRId64 " %s\n", size, hex);
  return sl_safe_write_text(stamp, text, err, errlen);
}
