/*
 * scatterlab core: the one public header of the scatter/gather kernel library.
 *
 * Everything a caller needs is here: the tensor descriptor (sl_tensor), the
 * status codes and the context that carries error messages (sl_ctx), the
 * operator and variant catalogue, and one generic entry point (sl_run) plus a
 * typed convenience entry point per operator.
 *
 * Conventions
 * - Every function validates its arguments before touching memory and returns
 *   an sl_status; on failure sl_ctx_message() says which argument was wrong,
 *   what was expected and what was found.
 * - Tensors are plain descriptors: strides are in elements (not bytes), may be
 *   zero (broadcast) and are never negative. The library never allocates or
 *   frees tensor memory: outputs are provided by the caller with the shape
 *   that sl_infer() reports.
 * - Nothing here aborts on user input. assert() guards internal invariants.
 */
#ifndef SL_SL_H
#define SL_SL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SL_VERSION_STRING "0.1.0"
#define SL_MAX_DIMS 8
#define SL_MAX_ARGS 8
#define SL_MSG_LEN 512

/* ------------------------------------------------------------------------ */
/* Data types. X(ENUM, name, size in bytes)                                  */
/* ------------------------------------------------------------------------ */
#define SL_DTYPE_MAP(X)                                                        \
  X(BOOL, bool, 1)                                                             \
  X(U8, u8, 1)                                                                 \
  X(I8, i8, 1)                                                                 \
  X(I16, i16, 2)                                                               \
  X(I32, i32, 4)                                                               \
  X(I64, i64, 8)                                                               \
  X(F16, f16, 2)                                                               \
  X(BF16, bf16, 2)                                                             \
  X(F32, f32, 4)                                                               \
  X(F64, f64, 8)                                                               \
  X(C64, c64, 8)                                                               \
  X(C128, c128, 16)

typedef enum sl_dtype {
#define SL__DTYPE_ENUM(e, name, size) SL_##e,
  SL_DTYPE_MAP(SL__DTYPE_ENUM)
#undef SL__DTYPE_ENUM
      SL_DTYPE_COUNT
} sl_dtype;

const char *sl_dtype_name(sl_dtype dt);   /* "f32"; "?" if out of range */
size_t sl_dtype_size(sl_dtype dt);        /* bytes per element; 0 if invalid */
int sl_dtype_from_name(const char *name); /* sl_dtype or -1 */
int sl_dtype_is_float(sl_dtype dt);       /* f16 bf16 f32 f64 */
int sl_dtype_is_int(sl_dtype dt);         /* u8 i8 i16 i32 i64 (not bool) */
int sl_dtype_is_complex(sl_dtype dt);

/*
 * The scalars that scatter's value form takes for x of a dtype (LibTorch's
 * conversion rule; sl_infer refuses the others when index has an element):
 * bool takes any value (stored as value != 0); an integer dtype takes
 * ivalue in [lo, hi] (u8: [-255, 255], a negative value wraps); a float or
 * complex dtype takes value in [-max, max], inf or NaN.
 */
typedef enum sl_scalar_kind {
  SL_SCALAR_ANY,  /* bool */
  SL_SCALAR_INT,  /* u8 i8 i16 i32 i64: lo, hi */
  SL_SCALAR_FLOAT /* f16 bf16 f32 f64 c64 c128: max */
} sl_scalar_kind;
typedef struct sl_scalar_range {
  sl_scalar_kind kind;
  int64_t lo, hi;
  double max;
} sl_scalar_range;
const sl_scalar_range *sl_scalar_range_of(sl_dtype dt); /* NULL if invalid */
/* Whether dt takes the scalar (value for float, complex and bool dt, ivalue
 * for integer dt) by that rule; 1 for an invalid dt (nothing to refuse). */
int sl_scalar_fits(sl_dtype dt, double value, int64_t ivalue);

typedef enum sl_device { SL_DEVICE_CPU = 0, SL_DEVICE_CUDA = 1 } sl_device;

/* ------------------------------------------------------------------------ */
/* Status codes. X(ENUM, name, default message)                              */
/* ------------------------------------------------------------------------ */
#define SL_STATUS_MAP(X)                                                       \
  X(OK, ok, "success")                                                         \
  X(NULL_POINTER, null_pointer, "a required pointer is NULL")                  \
  X(RANK_MISMATCH, rank_mismatch, "tensor ranks do not match")                 \
  X(DIM_OUT_OF_RANGE, dim_out_of_range, "dimension out of range")              \
  X(SHAPE_MISMATCH, shape_mismatch, "tensor shapes do not match")              \
  X(INDEX_DTYPE, index_dtype, "index dtype is not an integer type")            \
  X(INDEX_OUT_OF_RANGE, index_out_of_range, "index value out of range")        \
  X(UNSUPPORTED_DTYPE, unsupported_dtype, "dtype not supported by the op")     \
  X(UNKNOWN_REDUCE, unknown_reduce, "unknown or unsupported reduce")           \
  X(BAD_MASK, bad_mask, "mask is not bool or not broadcastable")               \
  X(OVERFLOW, overflow, "element count overflows size_t")                      \
  X(INVALID_ARGUMENT, invalid_argument, "invalid argument")                    \
  X(UNKNOWN_OP, unknown_op, "unknown operator")                                \
  X(UNKNOWN_VARIANT, unknown_variant, "unknown variant")                       \
  X(NOT_BUILT, not_built, "variant not built into this library")               \
  X(NO_DEVICE, no_device, "no device available for this variant")              \
  X(WRONG_DEVICE, wrong_device, "tensor lives on the wrong device")            \
  X(OUT_OF_MEMORY, out_of_memory, "out of memory")                             \
  X(DEVICE_ERROR, device_error, "device runtime error")                        \
  X(INTERNAL, internal, "internal error")

typedef enum sl_status {
#define SL__STATUS_ENUM(e, name, msg) SL_STATUS_##e,
  SL_STATUS_MAP(SL__STATUS_ENUM)
#undef SL__STATUS_ENUM
      SL_STATUS_COUNT
} sl_status;

const char *sl_status_name(sl_status s); /* "index_out_of_range" */

/* ------------------------------------------------------------------------ */
/* Context: error message, thread count, CUDA stream. No global state.        */
/* ------------------------------------------------------------------------ */
typedef struct sl_ctx {
  sl_status status;     /* status of the last failed call (OK if none)   */
  char msg[SL_MSG_LEN]; /* its message, naming argument/expected/actual */
  int threads;          /* CPU threads for parallel variants; 0 = all    */
  void *cuda_stream;    /* cudaStream_t for cuda.* variants; NULL = default */
} sl_ctx;

void sl_ctx_init(sl_ctx *ctx);
const char *sl_ctx_message(const sl_ctx *ctx);
/* Records status and a printf-style message on ctx and returns status. */
sl_status sl_ctx_fail(sl_ctx *ctx, sl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------------ */
/* Tensor descriptor                                                         */
/* ------------------------------------------------------------------------ */
typedef struct sl_tensor {
  sl_dtype dtype;
  int ndim; /* 0..SL_MAX_DIMS; 0 is a scalar      */
  int64_t shape[SL_MAX_DIMS];
  int64_t strides[SL_MAX_DIMS]; /* in elements, >= 0                 */
  void *data;                   /* first element; may be NULL if numel == 0 */
  sl_device device;
} sl_tensor;

/* Fills a contiguous (row-major) descriptor. Does not validate. */
sl_tensor sl_tensor_make(sl_dtype dt, int ndim, const int64_t *shape,
                         void *data);
/* Row-major strides for shape[0..ndim). */
void sl_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* Number of elements; sets *numel. Fails with OVERFLOW when the product (or
 * the byte count) does not fit size_t, and INVALID_ARGUMENT for a negative
 * extent or an ndim outside 0..SL_MAX_DIMS. `name` is used in messages. */
sl_status sl_tensor_numel(sl_ctx *ctx, const char *name, const sl_tensor *t,
                          int64_t *numel);
int sl_tensor_is_contiguous(const sl_tensor *t);
/* Validates a descriptor: ndim, extents, strides, dtype, and data != NULL
 * unless the tensor is empty. */
sl_status sl_tensor_check(sl_ctx *ctx, const char *name, const sl_tensor *t);
/* Writes "[4,3]" into buf. Returns buf. */
char *sl_shape_str(int ndim, const int64_t *shape, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Operators. X(ENUM, name)                                                  */
/* ------------------------------------------------------------------------ */
#define SL_OP_MAP(X)                                                           \
  X(GATHER, gather)                                                            \
  X(GATHER_ND, gather_nd)                                                      \
  X(SCATTER, scatter)                                                          \
  X(SCATTER_REDUCE, scatter_reduce)                                            \
  X(SCATTER_REDUCE_BACKWARD, scatter_reduce_backward)                          \
  X(SCATTER_ND, scatter_nd)                                                    \
  X(INDEX_REDUCE, index_reduce)                                                \
  X(INDEX_REDUCE_BACKWARD, index_reduce_backward)                              \
  X(SELECT_SCATTER, select_scatter)                                            \
  X(MASKED_SCATTER, masked_scatter)                                            \
  X(DYNAMIC_SCATTER, dynamic_scatter)                                          \
  X(DYNAMIC_SCATTER_BACKWARD, dynamic_scatter_backward)                        \
  X(SEGMENT_REDUCE, segment_reduce)                                            \
  X(SEGMENT_REDUCE_BACKWARD, segment_reduce_backward)

typedef enum sl_op {
#define SL__OP_ENUM(e, name) SL_OP_##e,
  SL_OP_MAP(SL__OP_ENUM)
#undef SL__OP_ENUM
      SL_OP_COUNT
} sl_op;

/* Reductions. X(ENUM, name) */
#define SL_REDUCE_MAP(X)                                                       \
  X(NONE, none)                                                                \
  X(ASSIGN, assign)                                                            \
  X(SUM, sum)                                                                  \
  X(PROD, prod)                                                                \
  X(MEAN, mean)                                                                \
  X(AMAX, amax)                                                                \
  X(AMIN, amin)                                                                \
  X(MAX, max)

typedef enum sl_reduce {
#define SL__REDUCE_ENUM(e, name) SL_REDUCE_##e,
  SL_REDUCE_MAP(SL__REDUCE_ENUM)
#undef SL__REDUCE_ENUM
      SL_REDUCE_COUNT
} sl_reduce;

const char *sl_op_name(sl_op op);
int sl_op_from_name(const char *name); /* sl_op or -1 */
const char *sl_reduce_name(sl_reduce r);
int sl_reduce_from_name(const char *name); /* sl_reduce or -1 */

/*
 * Argument slots of each op, in order: inputs first, then outputs. The names
 * are used in case lines, .npy bundles and messages.
 *
 *   gather                   x index                      | out
 *   gather_nd                x index                      | out
 *   scatter                  x index src(*)               | out
 *   scatter_reduce           x index src                  | out
 *   scatter_reduce_backward  grad_out x index src result  | grad_x grad_src
 *   scatter_nd               x index src                  | out
 *   index_reduce             x index updates              | out
 *   index_reduce_backward    grad_out x index updates result | grad_x
 * grad_updates select_scatter           x value                      | out
 *   masked_scatter           x mask source                | out
 *   dynamic_scatter          feats coors | voxel_feats voxel_coors
 *                                          point2voxel_map voxel_points_count
 *   dynamic_scatter_backward grad_voxel_feats feats voxel_feats
 *                            point2voxel_map voxel_points_count | grad_feats
 *   segment_reduce           data lengths                 | out
 *   segment_reduce_backward  grad_out data lengths result | grad_data
 *
 * (*) scatter with a scalar value (sl_params.has_value) leaves src unused.
 */
typedef struct sl_op_info {
  sl_op op;
  const char *name;
  int n_in;
  int n_out;
  const char *arg_names[SL_MAX_ARGS];
  unsigned reduces;       /* the reduces it accepts, bit 1u << r; 0: none */
  int takes_include_self; /* reads sl_params.include_self */
  /* The data dtypes it takes: the one statement of docs/spec.md §3, which
   * sl_infer checks through (its message names data_arg, the set and the
   * dtype found) and the fuzz generator draws from (sl_op_dtypes).
   * data_arg is the slot whose dtype is checked against the set; the op's
   * other data tensors must share that dtype. The set depends on the
   * reduce's kind only: data_dtypes[0] for the reduces that move data
   * (none, assign; an op without reduces asks with none), data_dtypes[1]
   * for those that compute (sum, prod, mean, amax, amin, max). Bit
   * 1u << dtype. dtypes_note says why the set is narrower than the reduce
   * needs (NULL: nothing to say). */
  int data_arg;
  unsigned data_dtypes[2];
  const char *dtypes_note;
} sl_op_info;

const sl_op_info *sl_op_get(sl_op op); /* NULL if out of range */
/*
 * The data dtypes (bit 1u << dtype) that op takes with reduce r: 0 when op
 * does not take r (an op without reduces, sl_op_info.reduces == 0, takes
 * SL_REDUCE_NONE only) or op or r is out of range. sl_infer refuses any
 * other dtype of slot data_arg with SL_STATUS_UNSUPPORTED_DTYPE.
 */
unsigned sl_op_dtypes(sl_op op, sl_reduce r);
/* Slot of a named argument of op, or -1. */
int sl_op_arg(sl_op op, const char *arg_name);

/* Scalar parameters of a call; each op reads the ones its contract names. */
typedef struct sl_params {
  int64_t dim; /* gather/scatter dim, index_reduce axis, select_scatter axis */
  sl_reduce reduce;
  int include_self; /* scatter_reduce / index_reduce */
  int ndims; /* gather_nd / scatter_nd: number of dims given; 0 = leading */
  int64_t dims[SL_MAX_DIMS];
  int64_t index;  /* select_scatter's integer index (may be negative) */
  int has_value;  /* scatter: use value instead of src */
  double value;   /* scatter's scalar for float/complex/bool x */
  int64_t ivalue; /* scatter's scalar for integer x (exact)   */
  /* segment_reduce: has_value/value are PyTorch's `initial` (the start of
   * every segment's reduction). Its other parameter is sl_call.segment. */
} sl_params;

/* The parameters only segment_reduce and its backward take. */
typedef struct sl_segment_params {
  /* 1: the lengths slot holds offsets (S + 1 per row, from 0 to the axis's
   * extent), not lengths. */
  int offsets;
} sl_segment_params;

/* One operator call: the tensors in the op's slot order and the parameters.
 * sl_params holds what several ops share; a parameter of one op alone goes
 * in a struct of that op's, appended at the end of sl_call, so that a new op
 * moves no field an existing kernel reads (the provider ABI's rule,
 * sl/sl_provider.h). */
typedef struct sl_call {
  sl_op op;
  sl_tensor arg[SL_MAX_ARGS];
  sl_params p;
  /* dynamic_scatter only: outputs are given with capacity N rows; the kernel
   * stores the number of voxels M here and writes rows [0, M). */
  int64_t out_rows;
  sl_segment_params segment;
} sl_call;

void sl_call_init(sl_call *call, sl_op op);

/*
 * Validates the call's inputs (the op's contract in
 * core/src/ops/<op>/<op>.c; a failure names the argument) and fills in the
 * shape and dtype of every output slot (data pointers are left as they are).
 * For dynamic_scatter the outputs get capacity N rows. Nothing is written.
 * Checks that need the data (index values in range, the mask's true count
 * against the source's length, coors rows) read CPU inputs here; for CUDA
 * inputs they are made on the device by the variant, before it writes anything
 * or, in the one-pass data-movement kernels (gather, gather_nd, scatter,
 * masked_scatter), in the pass itself: an out-of-range index is then never
 * followed, no source element past the end is read, nothing outside the
 * outputs is written, the call fails with the same message, and the outputs'
 * contents are unspecified.
 */
sl_status sl_infer(sl_ctx *ctx, sl_call *call);

/*
 * As sl_infer, without checking the index values against their bounds:
 * shapes, dtypes, parameters and the other data checks only. For a caller
 * that leaves the values to a variant that checks them itself
 * (SL_CHECKS_INDEX_VALUES): sl_run_variant infers so for such a variant,
 * and the harness uses it to hand such a variant the cases with bad values.
 */
sl_status sl_infer_shapes(sl_ctx *ctx, sl_call *call);

/*
 * Runs `variant` ("cpu.serial", "cuda.atomic", …) of call->op. Validates
 * inputs and outputs (shapes must equal what sl_infer reports; outputs must
 * not overlap inputs), then dispatches through the variant table. A variant
 * may check the index values in its own pass instead of sl_infer's
 * (scatter_reduce cpu.omp, block by block as it streams the index in): the
 * same status and message, and nothing written when a value is bad.
 */
sl_status sl_run(sl_ctx *ctx, const char *variant, sl_call *call);

/* ------------------------------------------------------------------------ */
/* Variant table (core/src/variants.def)                                     */
/* ------------------------------------------------------------------------ */
enum sl_variant_flags {
  /* same inputs -> bitwise same outputs, whatever ctx.threads */
  SL_DETERMINISTIC = 1u << 0,
  SL_NEEDS_CUDA = 1u << 1, /* runs on the GPU, tensors on SL_DEVICE_CUDA */
  /* 1u << 2 was SL_TEST_ONLY, for a test-only registration hook that
   * providers replace (tests/buggy is one). */
  /* Checks the index values itself, in its own pass and with sl_infer's
   * messages, before it writes anything: validation then skips that check
   * (sl_run_variant). */
  SL_CHECKS_INDEX_VALUES = 1u << 3
};

typedef sl_status (*sl_kernel_fn)(sl_ctx *ctx, sl_call *call);

typedef struct sl_variant {
  sl_op op;
  const char *name; /* "cpu.serial" */
  sl_kernel_fn fn;  /* NULL when not built (e.g. CUDA in a CPU-only build) */
  unsigned flags;
} sl_variant;

/*
 * The sizes at which the CPU kernels change code path (a parallel team, a
 * wide-row loop, a copy by rep movsb...), one row per threshold of
 * core/src/thresholds.def. The fuzzer sizes a share of its cases past each;
 * a build configured with -DSL_SMALL_THRESHOLDS=ON (tests only: timings of
 * such a build mean nothing) uses the small values, so that small cases take
 * the big-case paths.
 */
typedef enum sl_threshold_unit {
  SL_TH_ELEMENTS,   /* elements of the case's largest tensor */
  SL_TH_PER_THREAD, /* elements per thread of a team of two or more */
  SL_TH_BYTES       /* bytes of the case's largest tensor */
} sl_threshold_unit;

typedef struct sl_threshold {
  const char *name; /* "team_min_elements" */
  long long value;  /* in this build */
  long long normal; /* in a normal build */
  long long small;  /* in a -DSL_SMALL_THRESHOLDS=ON build */
  sl_threshold_unit unit;
  const char *path; /* what happens at or past it */
  unsigned ops;     /* the ops whose paths it decides (bit sl_op); 0: any */
} sl_threshold;

int sl_threshold_count(void);
/* Row i, or NULL when i is out of [0, sl_threshold_count()). */
const sl_threshold *sl_threshold_at(int i);
/* 1 in a build configured with -DSL_SMALL_THRESHOLDS=ON. */
int sl_thresholds_small(void);

size_t sl_variant_count(void);
const sl_variant *sl_variant_at(size_t i);
const sl_variant *sl_variant_find(sl_op op, const char *name);
/* Whether the variant can run here; when not, *why gets a reason such as
 * "built without CUDA" or "no device". */
int sl_variant_available(const sl_variant *v, const char **why);
sl_device sl_variant_device(const sl_variant *v);

/*
 * Runs the row v (of this library's table or of a provider's, see
 * sl/sl_provider.h) on call: sl_run without the look-up by name. Validates
 * as sl_run does (inputs, output shapes, devices, overlap), with the index
 * values left to the kernel when v->flags has SL_CHECKS_INDEX_VALUES, then
 * calls v->fn with the normalized parameters. Returns what v->fn returns.
 */
sl_status sl_run_variant(sl_ctx *ctx, const sl_variant *v, sl_call *call);

/* CUDA helpers (all answer sensibly in a CPU-only build). */
int sl_cuda_built(void);
/* 0 if not built or no device. The first call counts in a short-lived child
 * process unless this process already uses CUDA, so that asking does not
 * initialise CUDA in a process that forks workers afterwards (a child of a
 * process that has initialised CUDA cannot use it). */
int sl_cuda_device_count(void);

/*
 * Device memory and timing for callers of cuda.* variants (the harness and
 * the GPU tests): plain C over the CUDA runtime, on ctx->cuda_stream. Every
 * function returns a status with a message on ctx: NOT_BUILT in a build
 * without CUDA, NO_DEVICE when there is no device, OUT_OF_MEMORY, or
 * DEVICE_ERROR naming the CUDA error. Copies are synchronous with respect to
 * the host (they return when the data has arrived).
 */
sl_status sl_device_alloc(sl_ctx *ctx, size_t bytes, void **ptr);
void sl_device_free(void *ptr); /* NULL is a no-op */
sl_status sl_device_copy_to(sl_ctx *ctx, void *dst_dev, const void *src_host,
                            size_t bytes);
sl_status sl_device_copy_from(sl_ctx *ctx, void *dst_host, const void *src_dev,
                              size_t bytes);
sl_status sl_device_copy(sl_ctx *ctx, void *dst_dev, const void *src_dev,
                         size_t bytes); /* device to device, asynchronous */
sl_status sl_device_memset(sl_ctx *ctx, void *dst_dev, int byte,
                           size_t bytes); /* asynchronous */
/* Waits for ctx's stream and reports any error of the work queued on it
 * (an illegal address in a kernel surfaces here). */
sl_status sl_device_sync(sl_ctx *ctx);
/* "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 50 MiB L2" and the L2 size. */
sl_status sl_device_describe(sl_ctx *ctx, char *buf, size_t len,
                             size_t *l2_bytes);

/* A pair of events on ctx's stream: start, stop, elapsed device time. */
typedef struct sl_device_timer sl_device_timer;
sl_status sl_device_timer_create(sl_ctx *ctx, sl_device_timer **timer);
sl_status sl_device_timer_start(sl_ctx *ctx, sl_device_timer *timer);
/* Records the stop event, waits for it and gives the seconds between. */
sl_status sl_device_timer_stop(sl_ctx *ctx, sl_device_timer *timer,
                               double *seconds);
void sl_device_timer_destroy(sl_device_timer *timer); /* NULL is a no-op */

/* ------------------------------------------------------------------------ */
/* Half-precision helpers (round to nearest even).                           */
/* ------------------------------------------------------------------------ */
float sl_f16_to_f32(uint16_t h);
uint16_t sl_f32_to_f16(float f);
float sl_bf16_to_f32(uint16_t h);
uint16_t sl_f32_to_bf16(float f);

/* Element conversions for callers that build or read tensors of any dtype.
 * Integer stores wrap modulo 2^bits; f16/bf16 round to nearest even; complex
 * reads give the real part and writes set the imaginary part to 0. */
double sl_elem_get_f(sl_dtype dt, const void *p);
void sl_elem_set_f(sl_dtype dt, void *p, double v);
int64_t sl_elem_get_i(sl_dtype dt, const void *p);
void sl_elem_set_i(sl_dtype dt, void *p, int64_t v);

/* ------------------------------------------------------------------------ */
/* Typed entry points: one per op, each a thin wrapper over sl_run.          */
/* ------------------------------------------------------------------------ */
/*
 * Each takes (ctx, variant) and then the arguments in the order its comment
 * lists: the op's tensors in slot order (the table above), the parameters
 * it reads among them, the outputs last (after the |). It fills an sl_call
 * with them and returns sl_run's status: the checks, messages and results
 * are sl_run's. A NULL tensor fails with NULL_POINTER naming its slot
 * ("index: expected a tensor, got NULL").
 */
/* x dim index | out */
sl_status sl_gather(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                    int64_t dim, const sl_tensor *index, sl_tensor *out);
/* x index (ndims, dims: the indexed axes, ndims in [0, SL_MAX_DIMS], 0 for
 * the leading ones) | out */
sl_status sl_gather_nd(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                       const sl_tensor *index, int ndims, const int64_t *dims,
                       sl_tensor *out);
/* x dim index src | out */
sl_status sl_scatter(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                     int64_t dim, const sl_tensor *index, const sl_tensor *src,
                     sl_tensor *out);
/* scatter's value form: x dim index value | out (no src) */
sl_status sl_scatter_value(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                           int64_t dim, const sl_tensor *index, double value,
                           sl_tensor *out);
/* x dim index src reduce include_self | out */
sl_status sl_scatter_reduce(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, int64_t dim,
                            const sl_tensor *index, const sl_tensor *src,
                            sl_reduce reduce, int include_self, sl_tensor *out);
/* grad_out x dim index src result reduce include_self | grad_x grad_src */
sl_status sl_scatter_reduce_backward(
    sl_ctx *ctx, const char *variant, const sl_tensor *grad_out,
    const sl_tensor *x, int64_t dim, const sl_tensor *index,
    const sl_tensor *src, const sl_tensor *result, sl_reduce reduce,
    int include_self, sl_tensor *grad_x, sl_tensor *grad_src);
/* x index src (ndims, dims as gather_nd's) reduce (none or sum) | out */
sl_status sl_scatter_nd(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                        const sl_tensor *index, const sl_tensor *src, int ndims,
                        const int64_t *dims, sl_reduce reduce, sl_tensor *out);
/* x dim index updates reduce include_self | out */
sl_status sl_index_reduce(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                          int64_t dim, const sl_tensor *index,
                          const sl_tensor *updates, sl_reduce reduce,
                          int include_self, sl_tensor *out);
/* grad_out x dim index updates result reduce include_self
 * | grad_x grad_updates */
sl_status sl_index_reduce_backward(
    sl_ctx *ctx, const char *variant, const sl_tensor *grad_out,
    const sl_tensor *x, int64_t dim, const sl_tensor *index,
    const sl_tensor *updates, const sl_tensor *result, sl_reduce reduce,
    int include_self, sl_tensor *grad_x, sl_tensor *grad_updates);
/* x value dim index (the integer position along dim) | out */
sl_status sl_select_scatter(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, const sl_tensor *value,
                            int64_t dim, int64_t index, sl_tensor *out);
/* x mask source | out */
sl_status sl_masked_scatter(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, const sl_tensor *mask,
                            const sl_tensor *source, sl_tensor *out);
/* feats coors reduce | voxel_feats voxel_coors point2voxel_map
 * voxel_points_count, and *voxels (when not NULL) the number of voxels M:
 * the rows [0, M) of the voxel outputs that were written (0 on failure). */
sl_status sl_dynamic_scatter(sl_ctx *ctx, const char *variant,
                             const sl_tensor *feats, const sl_tensor *coors,
                             sl_reduce reduce, sl_tensor *voxel_feats,
                             sl_tensor *voxel_coors, sl_tensor *point2voxel_map,
                             sl_tensor *voxel_points_count, int64_t *voxels);
/* grad_voxel_feats feats voxel_feats point2voxel_map voxel_points_count
 * reduce | grad_feats */
sl_status sl_dynamic_scatter_backward(sl_ctx *ctx, const char *variant,
                                      const sl_tensor *grad_voxel_feats,
                                      const sl_tensor *feats,
                                      const sl_tensor *voxel_feats,
                                      const sl_tensor *point2voxel_map,
                                      const sl_tensor *voxel_points_count,
                                      sl_reduce reduce, sl_tensor *grad_feats);
/* data dim(axis) lengths offsets(0: lengths holds lengths, 1: offsets)
 * reduce has_initial initial | out */
sl_status sl_segment_reduce(sl_ctx *ctx, const char *variant,
                            const sl_tensor *data, int64_t dim,
                            const sl_tensor *lengths, int offsets,
                            sl_reduce reduce, int has_initial, double initial,
                            sl_tensor *out);
/* grad_out data dim lengths offsets result reduce has_initial initial
 * | grad_data */
sl_status sl_segment_reduce_backward(
    sl_ctx *ctx, const char *variant, const sl_tensor *grad_out,
    const sl_tensor *data, int64_t dim, const sl_tensor *lengths, int offsets,
    const sl_tensor *result, sl_reduce reduce, int has_initial, double initial,
    sl_tensor *grad_data);

#ifdef __cplusplus
}
#endif
#endif /* SL_SL_H */
