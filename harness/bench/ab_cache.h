/*
 * The cache of `ab --base-ref` (ab_ref.h): one entry per commit and build,
 * trusted only as far as it can be checked (issue 48, point 5).
 *
 * - Keyed by the commit and every build option that changes the kernels
 *   (generator, build type, compilers and their versions, flags, CUDA,
 *   sanitizers, thresholds: sl_ab_build.h), so that a Debug build's entry
 *   is never a RelWithDebInfo build's base.
 * - Every folder of it (the root, ab/, the entry) is a real folder, this
 *   user's, writable by nobody else: an entry someone else could have
 *   planted is refused, never loaded (a library's constructors run at
 *   load).
 * - The library loaded is a copy made when it was built, opened without
 *   following links, whose size and SHA-256 were recorded then and are
 *   checked before each load: a truncated or replaced copy is built again.
 */
#ifndef SL_AB_CACHE_H
#define SL_AB_CACHE_H

#include <stddef.h>

/* The entry folder of commit `sha` for this build, <root>/ab/<sha>-<key>
 * (key: 16 hex digits of the SHA-256 of the options; options.txt in it
 * lists them), made when missing, every folder checked as above. 0, or -1
 * with err naming the folder, what was expected and what was found. */
int sl_ab_cache_entry(const char *root, const char *sha, char *dir, size_t len,
                      char *err, size_t errlen);

/* The entry's library if it is there and intact: 1 with its path in lib;
 * 0 when it was never stored, or when it is damaged (why says which file
 * and what differs; the damaged copy is removed), -1 on an error. */
int sl_ab_cache_lookup(const char *dir, char *lib, size_t len, char *why,
                       size_t whylen);

/* Stores `built` (the build's output, not followed if it is a link) as the
 * entry's library, with its size and SHA-256; its path to lib. 0, or -1
 * with err. */
int sl_ab_cache_store(const char *dir, const char *built, char *lib, size_t len,
                      char *err, size_t errlen);

#endif /* SL_AB_CACHE_H */
