/*
 * The variants this process can run: every kernel provider it has loaded
 * (sl/sl_provider.h). First scatterlab's own kernels library
 * (libscatterlab_kernels, found beside the executable, in the install's
 * library directory, or in the build tree), whose variants keep their plain
 * names; then each path of SCATTERLAB_PROVIDERS (':'-separated); then each
 * --provider option in order, whose variants are named "<provider>:<name>".
 * The runner, fuzz, bench and list reach every variant through here: one
 * path for scatterlab's kernels and everyone else's.
 */
#ifndef SL_PROVIDERS_H
#define SL_PROVIDERS_H

#include <stddef.h>

#include "case.h"
#include "sl/sl.h"
#include "sl/sl_provider.h"

/* Longest full variant name ("<provider>:<device>.<strategy>") + NUL. */
#define SL_VARIANT_NAME_LEN                                                    \
  (SL_PROVIDER_NAME_MAX + 1 + SL_PROVIDER_VARIANT_NAME_MAX + 1)

/* The environment variable of extra providers. */
#define SL_PROVIDERS_ENV "SCATTERLAB_PROVIDERS"
/* --provider py:MODULE: the Python bridge library, and the variable that
 * tells it the module (providers/python/py_bridge.h). */
#define SL_PY_PREFIX "py:"
#define SL_PY_BRIDGE_FILE "libscatterlab_python.so"
#define SL_PY_MODULE_ENV "SCATTERLAB_PY_MODULE"

typedef struct sl_hvariant {
  /* The row sl_run_variant takes: op, the full name, the provider's kernel,
   * its flags (SL_NEEDS_CUDA set for a cuda variant). */
  sl_variant v;
  char name[SL_VARIANT_NAME_LEN];
  sl_caps caps;
  int provider; /* index for sl_provider_at */
} sl_hvariant;

typedef struct sl_provider_loaded {
  char name[SL_PROVIDER_NAME_MAX + 1]; /* the prefix: its own or the alias */
  char own_name[SL_PROVIDER_NAME_MAX + 1]; /* the name its table gives */
  char path[4096];                         /* absolute */
  char version[64];                        /* "" when it gives none */
  unsigned abi;
  char sha256[65]; /* of the library file, hex; "" until sl_provider_sha256 */
  int builtin;     /* scatterlab's own kernels: plain variant names */
  /* Found through SCATTERLAB_PROVIDERS: a repro names it by its variants'
   * prefix only, which that variable resolves where the repro is pasted. */
  int from_env;
  /* Its allocation-fault hook (sl_provider.alloc_faults), or NULL. */
  sl_alloc_counts (*alloc_faults)(int64_t fail_after);
  /* Its scratch-release hook (sl_provider.release_scratch), or NULL. */
  size_t (*release_scratch)(void);
  size_t first, n;     /* its variants: sl_hvariant_at(first .. first+n-1) */
  char py_module[128]; /* a Python bridge's module (py:MODULE), or "" */
} sl_provider_loaded;

/*
 * Loads scatterlab's kernels library (once per process), then the paths of
 * SCATTERLAB_PROVIDERS, then specs[0..n) ("PATH", "ALIAS=PATH",
 * "py:MODULE" or "ALIAS=py:MODULE"). All or
 * nothing: on any error nothing of this call stays loaded, err names the
 * file (or the option), what was expected and what was found, and -1 is
 * returned (a usage error: exit 2).
 */
int sl_providers_load(const char *const *specs, int n, char *err,
                      size_t errlen);

/* Closes every loaded provider (their libraries' destructors run); the
 * variant table is then empty. For a child's exit in a coverage build
 * (child_exit.h), where a library's gcov counts are written by its own
 * destructor, which _exit skips. */
void sl_providers_unload(void);

size_t sl_provider_count(void);
/* Every loaded provider's kept scratch handed back (its release_scratch);
 * returns the bytes. Between kernel calls only. */
size_t sl_providers_release_scratch(void);
/* The --provider value that loads pl again: "NAME=PATH", or
 * "NAME=py:MODULE" for a Python module. */
void sl_provider_spec(const sl_provider_loaded *pl, char *buf, size_t len);
const sl_provider_loaded *sl_provider_at(size_t i);

/* The SHA-256 (hex) of provider i's library file, computed at the first
 * call (when a run is recorded or listed, not at every load: scatterlab's
 * own library with its CUDA code is about 90 MB, a third of a second to
 * hash). NULL with err when the file cannot be read any more. */
const char *sl_provider_sha256(size_t i, char *err, size_t errlen);

size_t sl_hvariant_count(void);
const sl_hvariant *sl_hvariant_at(size_t i);
const sl_hvariant *sl_hvariant_find(sl_op op, const char *name);

/*
 * Whether case c (a valid call, already inferred into call) lies within v's
 * capabilities. Returns 1, or 0 with the capability it lacks in why ("dtype
 * f16 (the variant takes f32, f64)"). *copies gets the SL_LAYOUT_* bits of
 * the inputs it does not take as they are: the runner hands it contiguous
 * copies of those.
 */
int sl_hvariant_admits(const sl_hvariant *v, const sl_case *c,
                       const sl_call *call, unsigned *copies, char *why,
                       size_t len);

/* Whether v is one of scatterlab's own CPU kernels, whose outputs are laid
 * out as LibTorch's result (out_layout.h); a provider's get row-major ones,
 * and the device path copies row-major ones back. */
int sl_hvariant_lays_out_like_reference(const sl_hvariant *v);

/* "f32,f64" or "all" for a dtype mask; "amin,amax" for a reduce mask. */
void sl_caps_dtypes_text(unsigned mask, unsigned all, char *buf, size_t len);
void sl_caps_reduces_text(unsigned mask, char *buf, size_t len);

/* The first item of a --variants filter (runner.h's sl_variant_selected)
 * that selects no loaded variant of any op, by its full name (plain: by its
 * name without the provider's prefix, as `ab` filters) nor any of
 * scatterlab's own (the core's table: its cuda.* rows too in a build
 * without CUDA): 1 with why in msg, for a usage error ("provider 'x' is not
 * loaded; add --provider x=PATH ...", or "... matched none; did you mean
 * cpu.serial?": the closest names by edit distance among those and the
 * devices), 0 when every item selects one. */
int sl_variants_unmatched(const char *filter, int plain, char *msg, size_t len);

/* Loads the providers of a command that runs variants: the built-in
 * kernels, SCATTERLAB_PROVIDERS and every --provider of argv (cli.h's
 * option rules), then checks each --variants of argv against them
 * (sl_variants_unmatched); under SCATTERLAB_CHECK_ARGS too. Returns 0, or
 * SL_EXIT_USAGE after printing the error. */
int sl_providers_load_argv(const char *cmd, int argc, char **argv);

#endif
