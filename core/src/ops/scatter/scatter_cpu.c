/* scatter on the CPU. */
#include "sl_internal.h"

/* The value written by a scalar scatter, encoded in x's dtype. */
static void sl__scatter_scalar(const sl_call *c, unsigned char *buf) {
  sl_dtype dt = c->arg[0].dtype;
  if (sl_dtype_is_int(dt))
    sl__store_i(dt, buf, c->p.ivalue);
  else
    sl__store_f(dt, buf, c->p.value);
}

/*
 * Scatters the index lines [begin, end) (lines along dim, see
 * sl__line_start). Within a line, positions go in increasing order along
 * dim, so for any output element the writer that comes last in row-major
 * order of index wins, whichever thread runs the line.
 */
static void sl__scatter_lines(const sl_call *c, int64_t begin, int64_t end) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  size_t es = sl_dtype_size(out->dtype);
  int dim = (int)c->p.dim;
  int rank = index->ndim;
  int64_t len = rank ? index->shape[dim] : 1;
  unsigned char scalar[16];
  if (c->p.has_value) sl__scatter_scalar(c, scalar);
  int64_t idx[SL_MAX_DIMS];
  for (int64_t l = begin; l < end; ++l) {
    sl__line_start(l, rank, index->shape, dim, idx);
    for (int64_t j = 0; j < len; ++j) {
      if (rank) idx[dim] = j;
      int64_t v = sl__load_index(index, sl__offset(index, idx));
      int64_t off = 0;
      for (int d = 0; d < out->ndim; ++d)
        off += (d == dim ? v : idx[d]) * out->strides[d];
      const void *from = c->p.has_value ? (const void *)scalar
                                        : sl__ptr(src, sl__offset(src, idx));
      sl__copy_elem(sl__ptr(out, off), from, es);
    }
  }
}

static int64_t sl__scatter_line_count(const sl_call *c) {
  const sl_tensor *index = &c->arg[1];
  int64_t n = sl__numel(index);
  int64_t len = index->ndim ? index->shape[c->p.dim] : 1;
  return len ? n / len : 0;
}

sl_status sl_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__copy_strided(&c->arg[3], &c->arg[0], 1);
  sl__scatter_lines(c, 0, sl__scatter_line_count(c));
  return SL_STATUS_OK;
}

sl_status sl_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  int threads = sl__threads(ctx);
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  int64_t lines = sl__scatter_line_count(c);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t l = 0; l < lines; ++l) sl__scatter_lines(c, l, l + 1);
  return SL_STATUS_OK;
}
