/*
 * Deliberately wrong variants, in a provider library of their own
 * (libsl_buggy.so, provider "buggy"; tests only): the proof that the harness
 * finds bugs, shrinks them to small repros and survives crashes and hangs.
 * White-box: it links the kernel library's internals to be wrong in
 * realistic ways. Loaded by `scatterlab --provider` like any other.
 *
 *   scatter_reduce cpu.lost_update   sum with include_self: a duplicate target
 *                                    loses the contributions before it (a
 *                                    racy read-modify-write)
 *   scatter_reduce cpu.bad_identity  amax without include_self starts from 0
 *                                    instead of -inf
 *   scatter_reduce cpu.scaled        every float sum 1e-4 too large
 *                                    relative (within the f16 tolerance,
 *                                    beyond f32's: for --tolerance)
 *   scatter_reduce cpu.thread_order  flagged deterministic, but with more
 *                                    than one thread it combines the
 *                                    contributions in reverse order (right
 *                                    within the tolerance, other bits)
 *   gather cpu.off_by_one            the last dim's last column is skipped
 *   gather cpu.ignores_strides       reads x as if it were contiguous (right
 *                                    only on contiguous x: a stride bug)
 *   gather cpu.offset32              element offsets in 32 bits (an int,
 *                                    as TensorFlow #127164): right below
 *                                    2^31 elements, past it wraps negative
 *                                    (found by `fuzz --huge` only)
 *   gather cpu.leaks_on_oom          right, but when its second scratch
 *                                    allocation fails it returns
 *                                    out_of_memory without freeing the
 *                                    first (found by allocation faults,
 *                                    alloc_faults.h: the provider serves
 *                                    the core's counted allocator's hook)
 *   gather cpu.oom_ignored           when its scratch allocation fails it
 *                                    returns ok without writing out
 *   gather cpu.crash                 writes through a null pointer (SIGSEGV)
 *   gather cpu.hang                  never returns
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "wrong_variants.h"

static void sl__lost_update_step(const sl_call *c, int64_t out_off,
                                 int64_t src_off, void *user) {
  unsigned char *touched = user;
  const sl_tensor *x = &c->arg[0], *src = &c->arg[2], *out = &c->arg[3];
  sl_dtype dt = out->dtype;
  /* The out offset of a contiguous out is its linear position: the x
   * element it started from has the same position in x's row-major order. */
  int64_t xoff = sl__offset_linear(x, out_off);
  double base = touched[out_off] ? sl__load_f(dt, sl__ptr(x, xoff))
                                 : sl__load_f(dt, sl__ptr(out, out_off));
  sl__store_f(dt, sl__ptr(out, out_off),
              base + sl__load_f(dt, sl__ptr(src, src_off)));
  touched[out_off] = 1;
}

static sl_status sl_buggy_lost_update(sl_ctx *ctx, sl_call *c) {
  if (c->p.reduce != SL_REDUCE_SUM || !c->p.include_self ||
      !sl_tensor_is_contiguous(&c->arg[3]) || sl_dtype_is_int(c->arg[0].dtype))
    return sl_scatter_reduce_cpu_serial(ctx, c);
  int64_t n = sl__numel(&c->arg[3]);
  unsigned char *touched = calloc((size_t)(n > 0 ? n : 1), 1);
  if (!touched) return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY, "no memory");
  sl__copy_strided(&c->arg[3], &c->arg[0], 1);
  sl_wrong_each_target(c, 0, sl__lost_update_step, touched);
  free(touched);
  return SL_STATUS_OK;
}

static void sl__clamp_at_zero(const sl_call *c, int64_t out_off,
                              int64_t src_off, void *user) {
  (void)src_off;
  (void)user;
  const sl_tensor *out = &c->arg[3];
  double v = sl__load_f(out->dtype, sl__ptr(out, out_off));
  if (v < 0) sl__store_f(out->dtype, sl__ptr(out, out_off), 0.0);
}

static sl_status sl_buggy_bad_identity(sl_ctx *ctx, sl_call *c) {
  sl_status st = sl_scatter_reduce_cpu_serial(ctx, c);
  if (st || c->p.reduce != SL_REDUCE_AMAX || c->p.include_self) return st;
  /* max(0, ...) at every targeted position: the identity 0 took part. */
  sl_wrong_each_target(c, 0, sl__clamp_at_zero, NULL);
  return SL_STATUS_OK;
}

static void sl__scale(const sl_call *c, int64_t out_off, int64_t src_off,
                      void *user) {
  (void)src_off;
  unsigned char *done = user;
  const sl_tensor *out = &c->arg[3];
  if (done[out_off]) return;
  done[out_off] = 1;
  double v = sl__load_f(out->dtype, sl__ptr(out, out_off));
  sl__store_f(out->dtype, sl__ptr(out, out_off), v * (1 + 1e-4));
}

static sl_status sl_buggy_scaled(sl_ctx *ctx, sl_call *c) {
  sl_status st = sl_scatter_reduce_cpu_serial(ctx, c);
  /* Sums only: the tolerance oracle judges them (amax and amin exactly). */
  if (st || c->p.reduce != SL_REDUCE_SUM ||
      !sl_dtype_is_float(c->arg[3].dtype) ||
      !sl_tensor_is_contiguous(&c->arg[3]))
    return st;
  int64_t n = sl__numel(&c->arg[3]);
  unsigned char *done = calloc((size_t)(n > 0 ? n : 1), 1);
  if (!done) return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY, "no memory");
  /* Each targeted position once (a contiguous out: offset = position). */
  sl_wrong_each_target(c, 0, sl__scale, done);
  free(done);
  return SL_STATUS_OK;
}

static sl_status sl_buggy_off_by_one(sl_ctx *ctx, sl_call *c) {
  sl_call shorter = *c;
  sl_tensor *index = &shorter.arg[1], *out = &shorter.arg[2];
  if (index->ndim > 0 && index->shape[index->ndim - 1] > 0) {
    --index->shape[index->ndim - 1];
    --out->shape[out->ndim - 1];
  }
  return sl_gather_cpu_serial(ctx, &shorter);
}

/* gather with x's element offset held in an int32_t: the wrap a kernel
 * with `int` offsets makes, computed without undefined behaviour. */
static sl_status sl_buggy_offset32(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  const size_t es = sl_dtype_size(x->dtype);
  const int dim = (int)c->p.dim;
  int64_t idx[SL_MAX_DIMS], n = sl__numel(index);
  for (int64_t i = 0; i < n; ++i) {
    sl__unravel(i, index->ndim, index->shape, idx);
    int64_t v = sl__load_index(index, sl__offset(index, idx));
    int64_t off = 0;
    for (int d = 0; d < x->ndim; ++d)
      off += (d == dim ? v : idx[d]) * x->strides[d];
    const int32_t off32 = (int32_t)(uint32_t)(uint64_t)off;
    memcpy((char *)out->data + sl__offset(out, idx) * (int64_t)es,
           (const char *)x->data + (int64_t)off32 * (int64_t)es, es);
  }
  return SL_STATUS_OK;
}

/* The core's gather, behind two scratch buffers of index positions. */
static sl_status sl_buggy_leaks_on_oom(sl_ctx *ctx, sl_call *c) {
  const size_t n = (size_t)sl__numel(&c->arg[1]) + 1;
  int64_t *a = sl__malloc(n * sizeof *a);
  if (!a) return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY, "no memory");
  int64_t *b = sl__malloc(n * sizeof *b);
  if (!b) /* the bug: a is not freed */
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY, "no memory");
  sl__free(b);
  sl__free(a);
  return sl_gather_cpu_serial(ctx, c);
}

static sl_status sl_buggy_oom_ignored(sl_ctx *ctx, sl_call *c) {
  int64_t *a = sl__malloc((size_t)sl__numel(&c->arg[1]) * 8 + 8);
  if (!a) return SL_STATUS_OK; /* the bug: out never written */
  sl__free(a);
  return sl_gather_cpu_serial(ctx, c);
}

static sl_status sl_buggy_ignores_strides(sl_ctx *ctx, sl_call *c) {
  sl_call row_major = *c;
  sl_tensor *x = &row_major.arg[0];
  /* A broadcast x (a zero stride) holds fewer elements than row-major
   * reading would walk: left alone, so that the bug reads wrong values,
   * never outside the buffer. */
  for (int d = 0; d < x->ndim; ++d)
    if (x->strides[d] == 0) return sl_gather_cpu_serial(ctx, c);
  sl_contiguous_strides(x->ndim, x->shape, x->strides);
  return sl_gather_cpu_serial(ctx, &row_major);
}

/* With more than one thread, the serial kernel on index and src copied
 * with `dim` reversed (src cut to index's shape): the same pairs of target
 * and value, combined in the other order, as a reduction split among
 * threads would combine them. */
static sl_status sl_buggy_thread_order(sl_ctx *ctx, sl_call *c) {
  if (ctx->threads <= 1 || c->arg[1].ndim == 0)
    return sl_scatter_reduce_cpu_serial(ctx, c);
  const int dim = (int)c->p.dim;
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2];
  const int64_t n = sl__numel(index);
  const size_t is = sl_dtype_size(index->dtype), ss = sl_dtype_size(src->dtype);
  unsigned char *ri = malloc((size_t)n * is + 1),
                *rs = malloc((size_t)n * ss + 1);
  if (!ri || !rs) {
    free(ri);
    free(rs);
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY, "no memory");
  }
  int64_t idx[SL_MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) {
    sl__unravel(i, index->ndim, index->shape, idx);
    idx[dim] = index->shape[dim] - 1 - idx[dim];
    memcpy(ri + (size_t)i * is, sl__ptr(index, sl__offset(index, idx)), is);
    memcpy(rs + (size_t)i * ss, sl__ptr(src, sl__offset(src, idx)), ss);
  }
  sl_call r = *c;
  r.arg[1].data = ri;
  sl_contiguous_strides(index->ndim, index->shape, r.arg[1].strides);
  r.arg[2].data = rs;
  for (int d = 0; d < index->ndim; ++d) r.arg[2].shape[d] = index->shape[d];
  sl_contiguous_strides(index->ndim, index->shape, r.arg[2].strides);
  sl_status st = sl_scatter_reduce_cpu_serial(ctx, &r);
  free(ri);
  free(rs);
  return st;
}

static sl_status sl_buggy_crash(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  raise(SIGSEGV);
  return SL_STATUS_INTERNAL;
}

static sl_status sl_buggy_hang(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  for (;;) sleep(1);
  return SL_STATUS_INTERNAL;
}

#define SL__BUGGY_FLAGS SL_WRONG_ROW
#define SL__BUGGY(op, name, fn) SL_WRONG_ROW(op, name, fn, 0)

static sl_provider_variant sl__rows[] = {
    SL__BUGGY(SL_OP_SCATTER_REDUCE, "cpu.lost_update", sl_buggy_lost_update),
    SL__BUGGY(SL_OP_SCATTER_REDUCE, "cpu.bad_identity", sl_buggy_bad_identity),
    SL__BUGGY(SL_OP_SCATTER_REDUCE, "cpu.scaled", sl_buggy_scaled),
    SL__BUGGY_FLAGS(SL_OP_SCATTER_REDUCE, "cpu.thread_order",
                    sl_buggy_thread_order, SL_DETERMINISTIC),
    SL__BUGGY(SL_OP_GATHER, "cpu.off_by_one", sl_buggy_off_by_one),
    SL__BUGGY(SL_OP_GATHER, "cpu.ignores_strides", sl_buggy_ignores_strides),
    SL__BUGGY(SL_OP_GATHER, "cpu.offset32", sl_buggy_offset32),
    SL__BUGGY(SL_OP_GATHER, "cpu.leaks_on_oom", sl_buggy_leaks_on_oom),
    SL__BUGGY(SL_OP_GATHER, "cpu.oom_ignored", sl_buggy_oom_ignored),
    SL__BUGGY(SL_OP_GATHER, "cpu.crash", sl_buggy_crash),
    SL__BUGGY(SL_OP_GATHER, "cpu.hang", sl_buggy_hang),
};

static const sl_provider sl__buggy = {SL_PROVIDER_ABI_VERSION,
                                      sizeof(sl_provider),
                                      "buggy",
                                      "test",
                                      sizeof sl__rows / sizeof sl__rows[0],
                                      sl__rows,
                                      sl__alloc_faults,
                                      sl__alloc_release};

SL_PROVIDER_ENTRY {
  /* scatter_reduce takes reduces and include_self: its rows declare the
   * op's own. */
  sl_wrong_declare_reduces(sl__rows, sizeof sl__rows / sizeof sl__rows[0]);
  return &sl__buggy;
}
