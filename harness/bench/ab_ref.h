/* `scatterlab ab --base-ref GITREF`: the base build from git, cached. */
#ifndef SL_AB_REF_H
#define SL_AB_REF_H

#include <stddef.h>

/*
 * Makes sure the kernels library of commit `ref` (any revision git takes)
 * is built, and writes its path to lib. The first call for a commit checks
 * it out as a worktree of the current git repository (else of the one this
 * scatterlab was built from) in <cache>/ab/<commit>-<key>/src and builds
 * the target scatterlab_kernels there with this build's CMake options;
 * later calls reuse its checked copy (ab_cache.h). The cache is
 * SCATTERLAB_CACHE, $XDG_CACHE_HOME/scatterlab or ~/.cache/scatterlab. Progress
 * goes to stderr, the build's output to <cache>/ab/<commit>-<key>/build.log.
 * Returns 0, or -1 with err.
 */
int sl_ab_build_ref(const char *ref, char *lib, size_t len, char *err,
                    size_t errlen);

#endif
