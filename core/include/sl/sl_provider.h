/*
 * scatterlab provider ABI, version 2: how a kernel library joins the harness.
 *
 * A provider is a shared library that exports one C function,
 *
 *     const sl_provider *sl_provider_entry(void);
 *
 * returning a table (static storage, valid until the library is unloaded)
 * that names the provider and lists its variants: for each one the op, a
 * name, the device, the kernel function and what it can do (capabilities).
 * `scatterlab --provider PATH` (or SCATTERLAB_PROVIDERS) loads it with
 * dlopen(RTLD_NOW | RTLD_LOCAL), so two providers that define the same
 * symbols (two builds of one library, say) live side by side; each variant
 * then runs in `run`, `fuzz`, `bench` and the reports as
 * "<provider>:<name>", e.g. "mylib:cpu.min". scatterlab's own kernels are a
 * provider built the same way (libscatterlab_kernels), whose variants keep
 * their plain names ("cpu.serial").
 *
 * Building a provider needs this header and sl/sl.h only: include them,
 * compile with -fPIC, link with -shared. Nothing of the harness, LibTorch or
 * SQLite. The functions *declared* in sl/sl.h live in the harness, which
 * does not export them to providers: a provider that calls one fails to load
 * ("undefined symbol"). What a kernel needs is inline here (sl_provider_fail,
 * sl_provider_dtype_size) or in the structs themselves.
 *
 * Contract of a kernel (`sl_kernel_fn`, the same one scatterlab's own
 * kernels follow):
 * - It is called only with a valid call: the harness has checked the
 *   arguments against the op's contract (sl/sl.h's slot table, shapes,
 *   dtypes, dims, the index values in range unless the variant sets
 *   SL_CHECKS_INDEX_VALUES) and against the variant's capabilities, has
 *   normalized the parameters (p.dim >= 0, p.dims filled in) and has
 *   allocated every output with the shape and dtype the op defines.
 * - Tensors are descriptors: strides in elements (not bytes), >= 0, and 0
 *   for a broadcast dimension when the capabilities allow it; data points at
 *   the first element; for a cuda variant every data pointer is device
 *   memory. The kernel writes only the outputs (slots n_in..n_in+n_out-1 of
 *   the op) and never allocates or frees them; scratch memory is its own
 *   business (freed before it returns). Outputs arrive poisoned (0xA5 bytes)
 *   and guarded: a write past either end is judged `failed`.
 * - ctx->threads is the number of CPU threads it may use (0: all);
 *   ctx->cuda_stream is the cudaStream_t a cuda variant must run on (NULL:
 *   the default stream). A cuda kernel may return before its work finishes;
 *   the harness synchronizes the stream and judges any error it reports.
 * - It returns SL_STATUS_OK, or a status code of sl/sl.h with a message in
 *   ctx->msg (sl_provider_fail) when it refuses the call. Any other value is
 *   judged `failed` ("undefined status code N"). A kernel that crashes,
 *   hangs or calls exit() is judged `crashed` or `timeout`; the campaign
 *   goes on in a fresh worker process.
 * - It may be called from several threads at once on different calls: it
 *   keeps no unsynchronized global state.
 *
 * Versioning: SL_PROVIDER_ABI_VERSION changes when any struct of this header
 * or of sl/sl.h that a kernel sees (sl_ctx, sl_tensor, sl_params, sl_call,
 * the meaning of an enum value) changes layout or meaning; the harness loads
 * only providers built for its version and names both numbers when they
 * differ. Within a version only additions are made: new ops, dtypes,
 * reduces, status codes and flag or capability bits are appended (a
 * provider that does not declare them never sees them); fields are added
 * to the end of sl_provider, whose `size` member tells the harness how much
 * of it the provider filled in; a new op's own parameters go in a struct of
 * their own appended to the end of sl_call (sl_params and sl_tensor keep
 * their layout for the whole version). core/abi/ holds the dump of this
 * layout that CI compares with libabigail's abidiff (CTest layers.abi), so
 * that a change breaks the build until the version moves. See
 * docs/providers.md.
 *
 * Version 2 (from version 1): segment_reduce's `offsets` flag moved from
 * sl_params to sl_call.segment (in version 1's first form sl_params had no
 * such field, and adding it moved sl_call.out_rows under built providers);
 * sl_provider.alloc_faults, added within version 1, is part of the table.
 */
#ifndef SL_SL_PROVIDER_H
#define SL_SL_PROVIDER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sl/sl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_PROVIDER_ABI_VERSION 2u
/* The exported symbol's name, for dlsym. */
#define SL_PROVIDER_ENTRY_NAME "sl_provider_entry"
/* Longest provider name and longest variant name (without the provider
 * prefix), in characters. */
#define SL_PROVIDER_NAME_MAX 15
#define SL_PROVIDER_VARIANT_NAME_MAX 31

/* Capability bit of a dtype, of a reduce. */
#define SL_DTYPE_BIT(dt) (1u << (unsigned)(dt))
#define SL_REDUCE_BIT(r) (1u << (unsigned)(r))
/* Every dtype of this ABI version; every floating dtype. */
#define SL_DTYPES_ALL ((1u << (unsigned)SL_DTYPE_COUNT) - 1u)
#define SL_DTYPES_FLOAT                                                        \
  (SL_DTYPE_BIT(SL_F16) | SL_DTYPE_BIT(SL_BF16) | SL_DTYPE_BIT(SL_F32) |       \
   SL_DTYPE_BIT(SL_F64))
/* Both index dtypes the ops accept. */
#define SL_INDEX_DTYPES_ALL (SL_DTYPE_BIT(SL_I32) | SL_DTYPE_BIT(SL_I64))

/* sl_caps.include_self: which values of sl_params.include_self it takes. */
#define SL_INCLUDE_SELF_FALSE (1u << 0)
#define SL_INCLUDE_SELF_TRUE (1u << 1)
#define SL_INCLUDE_SELF_BOTH (SL_INCLUDE_SELF_FALSE | SL_INCLUDE_SELF_TRUE)

/* sl_caps.layouts: input layouts it takes besides contiguous. Without a
 * bit, the harness hands the variant contiguous copies of such inputs and
 * says so in the verdict's message. Outputs are always contiguous. */
#define SL_LAYOUT_STRIDED (1u << 0)   /* any strides >= 1 (transposed, steps) */
#define SL_LAYOUT_BROADCAST (1u << 1) /* stride 0 in some dimension */
#define SL_LAYOUTS_ALL (SL_LAYOUT_STRIDED | SL_LAYOUT_BROADCAST)

/*
 * What a variant can do. A case outside it is judged `unsupported` (naming
 * the capability) and never run; `fuzz` and `bench` do not draw such cases
 * for it. Every field must be set: a zero mask where the op needs one is a
 * malformed table (the harness refuses the provider and says which field).
 */
typedef struct sl_caps {
  /* Data dtypes (x, src, updates, value, source, feats, grad_*):
   * SL_DTYPE_BIT(SL_F32) | ..., or SL_DTYPES_ALL. Non-zero. */
  uint32_t dtypes;
  /* Index dtypes (index, coors, point2voxel_map): a non-zero subset of
   * SL_INDEX_DTYPES_ALL; ops without an index tensor ignore it. */
  uint32_t index_dtypes;
  /* Reduces, SL_REDUCE_BIT(SL_REDUCE_AMIN) | ...: for the ops that take one
   * (scatter_reduce and its backward, scatter_nd, index_reduce and its
   * backward, dynamic_scatter), a non-zero subset of what the op accepts;
   * 0 for the others. */
  uint32_t reduces;
  /* For scatter_reduce, index_reduce and their backward ops: a non-zero
   * subset of SL_INCLUDE_SELF_BOTH; 0 for the others. */
  uint32_t include_self;
  /* Highest rank of any tensor of the call, 0..SL_MAX_DIMS. */
  int32_t max_rank;
  /* SL_LAYOUT_* bits; 0 = contiguous inputs only. */
  uint32_t layouts;
} sl_caps;

/* One variant. */
typedef struct sl_provider_variant {
  sl_op op;
  /* "<device>.<strategy>": "cpu.min", "cuda.warp". Lower-case letters,
   * digits and '_'; the device part is "cpu" or "cuda" and matches
   * `device`. At most SL_PROVIDER_VARIANT_NAME_MAX characters. */
  const char *name;
  sl_device device;
  sl_kernel_fn fn;
  /* sl/sl.h's flags: SL_DETERMINISTIC (bitwise the same output for the same
   * input, on any number of threads: `list` shows it, and the harness
   * reruns passing cases to hold the kernel to it),
   * SL_CHECKS_INDEX_VALUES (checks
   * the index values itself, in its own pass, with sl/sl.h's messages,
   * refusing a bad value before writing anything: the harness then skips
   * that check). SL_NEEDS_CUDA is implied by device SL_DEVICE_CUDA. */
  unsigned flags;
  sl_caps caps;
} sl_provider_variant;

/* What a provider's allocation counter saw (sl_provider.alloc_faults). */
typedef struct sl_alloc_counts {
  int64_t made; /* scratch allocations attempted since the previous call */
  int64_t live; /* allocations not yet freed (0 between kernel calls) */
} sl_alloc_counts;

/* The table sl_provider_entry returns. */
typedef struct sl_provider {
  uint32_t abi_version; /* SL_PROVIDER_ABI_VERSION */
  uint32_t size;        /* sizeof(sl_provider) */
  /* "mylib": lower-case letters, digits, '_'; 1..SL_PROVIDER_NAME_MAX
   * characters. The prefix of its variants' names. */
  const char *name;
  const char *version; /* free text for the reports ("1.4.0+g2c1f"), or NULL */
  size_t n_variants;   /* >= 1 */
  const sl_provider_variant *variants;
  /* Fields below may be left out (`size` then ends before them): the
   * harness reads one only when `size` covers it. Fields added within a
   * version come after these. */
  /* Optional (NULL: none): allocation faults, so that a fuzz campaign tests
   * the kernels' error paths (docs/providers.md). alloc_faults(k) returns
   * the counts since its previous call and from now on fails every scratch
   * allocation of the provider's kernels after the first k (k < 0: none
   * fails; the counting goes on). A kernel whose allocation failed must
   * return SL_STATUS_OUT_OF_MEMORY, or the right answer by a path that
   * needs less, and free what it took. Called between kernel calls only. */
  sl_alloc_counts (*alloc_faults)(int64_t fail_after);
  /* Optional (NULL: none; added within version 2): frees the memory the
   * provider's kernels keep from one call for the next (a cached
   * workspace) and returns its bytes. A fuzz worker calls it after each
   * case, so that its resident size measures leaks, not the largest
   * workspace met. Called between kernel calls only. */
  size_t (*release_scratch)(void);
} sl_provider;

/* The size a provider fills in at least (up to `variants`). */
#define SL_PROVIDER_MIN_SIZE (offsetof(sl_provider, variants) + sizeof(void *))

typedef const sl_provider *(*sl_provider_entry_fn)(void);

#if defined(_WIN32)
#define SL_PROVIDER_EXPORT __declspec(dllexport)
#else
#define SL_PROVIDER_EXPORT __attribute__((visibility("default")))
#endif

/* Declares the entry point; a provider defines it after this line:
 *   SL_PROVIDER_ENTRY { return &my_table; } */
#ifdef __cplusplus
#define SL__PROVIDER_LINKAGE extern "C"
#else
#define SL__PROVIDER_LINKAGE
#endif
#define SL_PROVIDER_ENTRY                                                      \
  SL__PROVIDER_LINKAGE SL_PROVIDER_EXPORT const sl_provider *                  \
  sl_provider_entry(void)

/* Records status and a printf-style message on ctx and returns status: the
 * kernel's way to refuse a call ("index: expected ..., got ..."). */
static inline sl_status sl_provider_fail(sl_ctx *ctx, sl_status status,
                                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline sl_status sl_provider_fail(sl_ctx *ctx, sl_status status,
                                         const char *fmt, ...) {
  if (!ctx) return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
  va_end(ap);
  ctx->status = status;
  return status;
}

/* Bytes per element of dt (0 when out of range), as sl_dtype_size. */
static inline size_t sl_provider_dtype_size(sl_dtype dt) {
  static const unsigned char sizes[] = {
#define SL__PROVIDER_DTYPE_SIZE(e, name, size) size,
      SL_DTYPE_MAP(SL__PROVIDER_DTYPE_SIZE)
#undef SL__PROVIDER_DTYPE_SIZE
  };
  return (unsigned)dt < sizeof sizes ? sizes[dt] : 0;
}

#ifdef __cplusplus
}
#endif
#endif /* SL_SL_PROVIDER_H */
