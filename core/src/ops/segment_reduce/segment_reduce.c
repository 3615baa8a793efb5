/*
 * segment_reduce and segment_reduce_backward: PyTorch's
 * torch.segment_reduce(data, reduce, lengths | offsets, axis, initial) and
 * its gradient (docs/spec.md §1 is the contract).
 *
 * Slots: data lengths | out; grad_out data lengths result | grad_data.
 * Shape contract: data of rank K >= 1, f16, bf16, f32 or f64 (PyTorch's
 * CPU kernel refuses the integers); lengths i32 or i64 of rank axis + 1
 * (the axis is lengths' last one) and shape data.shape[:axis] + [S]
 * (offsets: + [S + 1], S + 1 >= 1); reduce sum, prod, mean, amax, amin;
 * initial (has_value/value) representable in data's dtype, as LibTorch's
 * checked conversion of the Scalar wants. out: data's shape with the
 * axis's extent S. Every row of lengths >= 0 summing to data.size(axis);
 * offsets from 0, non-decreasing, to data.size(axis): checked here for CPU
 * tensors (mode SL__INFER_ALL), by cuda.plain on a copy for CUDA ones.
 * PyTorch's unsafe=True (no check) has no equivalent: a kernel trusting
 * wrong lengths reads outside data.
 *
 * The backward takes grad_out and result of out's shape and data's dtype;
 * grad_data has data's shape and dtype.
 */
#include <stdio.h>
#include <stdlib.h>

#include "reduce.h"
#include "segment_reduce.h"

void sl__seg_geom_of(const sl_tensor *data, const sl_tensor *lengths, int axis,
                     int is_offsets, sl__seg_geom *g) {
  memset(g, 0, sizeof *g);
  g->axis = axis;
  g->k = data->ndim;
  g->Q = 1;
  g->R = 1;
  g->nlead = axis;
  for (int d = 0; d < axis; ++d) {
    g->lead[d] = data->shape[d];
    g->Q *= data->shape[d];
  }
  g->ninner = data->ndim - axis - 1;
  for (int d = axis + 1; d < data->ndim; ++d) {
    g->inner[d - axis - 1] = data->shape[d];
    g->R *= data->shape[d];
  }
  g->N = data->shape[axis];
  g->S = lengths->shape[axis] - (is_offsets ? 1 : 0);
}

/* "[1,2]": row q's multi-index over the lead axes, then k when k >= 0. */
static void sl__seg_pos(const sl__seg_geom *g, int64_t q, int64_t k, char *buf,
                        size_t len) {
  int64_t idx[SL_MAX_DIMS];
  sl__unravel(q, g->nlead, g->lead, idx);
  size_t n = (size_t)snprintf(buf, len, "[");
  for (int d = 0; d < g->nlead && n < len; ++d)
    n += (size_t)snprintf(buf + n, len - n, d ? ",%lld" : "%lld",
                          (long long)idx[d]);
  if (k >= 0 && n < len)
    n += (size_t)snprintf(buf + n, len - n, g->nlead ? ",%lld" : "%lld",
                          (long long)k);
  if (n < len) snprintf(buf + n, len - n, "]");
}

/* Whether every row of lengths is its row 0 (stride 0 along each lead axis
 * of more than one position). */
static int sl__seg_rows_shared(const sl__seg_geom *g,
                               const sl_tensor *lengths) {
  for (int d = 0; d < g->nlead; ++d)
    if (g->lead[d] > 1 && lengths->strides[d] != 0) return 0;
  return 1;
}

sl_status sl__seg_offsets(sl_ctx *ctx, const sl_tensor *lengths, int is_offsets,
                          const sl__seg_geom *g, int64_t *offs) {
  const int64_t S = g->S, N = g->N, step = lengths->strides[g->axis];
  const char *name = is_offsets ? "lengths (offsets)" : "lengths";
  char pos[160], prev[160];
  /* a check of rows that are all one row checks that row: the first bad
   * value in row order is in it */
  const int64_t rows =
      !offs && g->Q > 1 && sl__seg_rows_shared(g, lengths) ? 1 : g->Q;
  for (int64_t q = 0; q < rows; ++q) {
    const int64_t base = sl__seg_row_off(g, lengths, q);
    int64_t *o = offs ? offs + q * (S + 1) : NULL;
    if (is_offsets) {
      int64_t last = 0;
      for (int64_t k = 0; k <= S; ++k) {
        const int64_t v = sl__load_index(lengths, base + k * step);
        if (k == 0 && v != 0) {
          sl__seg_pos(g, q, 0, pos, sizeof pos);
          return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                             "%s: expected offsets%s = 0 (each row starts at "
                             "0), got %lld",
                             name, pos, (long long)v);
        }
        if (v < last) {
          sl__seg_pos(g, q, k, pos, sizeof pos);
          sl__seg_pos(g, q, k - 1, prev, sizeof prev);
          return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                             "%s: expected non-decreasing offsets, got "
                             "offsets%s = %lld after offsets%s = %lld",
                             name, pos, (long long)v, prev, (long long)last);
        }
        if (k == S && v != N) {
          sl__seg_pos(g, q, k, pos, sizeof pos);
          return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                             "%s: expected offsets%s = data.size(%d) = %lld "
                             "(each row ends at the extent), got %lld",
                             name, pos, g->axis, (long long)N, (long long)v);
        }
        last = v;
        if (o) o[k] = v;
      }
      continue;
    }
    /* Lengths: a running sum, saturated so that it cannot overflow (any
     * sum past N is wrong anyway). */
    int64_t sum = 0;
    if (o) o[0] = 0;
    for (int64_t k = 0; k < S; ++k) {
      const int64_t v = sl__load_index(lengths, base + k * step);
      if (v < 0) {
        sl__seg_pos(g, q, k, pos, sizeof pos);
        return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: expected every length >= 0, got lengths%s = "
                           "%lld",
                           name, pos, (long long)v);
      }
      sum = v > INT64_MAX - sum ? INT64_MAX : sum + v;
      if (o) o[k + 1] = sum;
    }
    if (sum != N) {
      sl__seg_pos(g, q, -1, pos, sizeof pos);
      if (g->nlead)
        return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                           "%s: expected row %s to sum to data.size(%d) = "
                           "%lld, got %lld",
                           name, pos, g->axis, (long long)N, (long long)sum);
      return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                         "%s: expected the lengths to sum to data.size(%d) "
                         "= %lld, got %lld",
                         name, g->axis, (long long)N, (long long)sum);
    }
  }
  return SL_STATUS_OK;
}

sl_status sl__seg_offsets_alloc(sl_ctx *ctx, const sl_call *c, int lengths_slot,
                                const sl__seg_geom *g, int checked,
                                int64_t **offs) {
  const sl_tensor *given = &c->arg[lengths_slot];
  if (c->segment.offsets && given->dtype == SL_I64 &&
      sl_tensor_is_contiguous(given)) {
    /* already Q rows of S + 1 offsets: no copy (one of a million
     * segments' offsets was 8 MB of fresh pages a call) */
    *offs = (int64_t *)given->data;
    return checked ? SL_STATUS_OK : sl__seg_offsets(ctx, given, 1, g, NULL);
  }
  const size_t n = (size_t)(g->Q * (g->S + 1));
  *offs = sl__malloc((n ? n : 1) * sizeof(int64_t));
  if (!*offs)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "%s: no memory for %zu offsets", sl_op_name(c->op), n);
  sl_status st =
      sl__seg_offsets(ctx, &c->arg[lengths_slot], c->segment.offsets, g, *offs);
  if (st) {
    sl__free(*offs);
    *offs = NULL;
  }
  return st;
}

sl_status sl__seg_offsets_rows(sl_ctx *ctx, const sl_call *c, int lengths_slot,
                               const sl__seg_geom *g, int checked,
                               int64_t **offs, int64_t *row_step) {
  *row_step = g->S + 1;
  if (g->Q <= 1 || !sl__seg_rows_shared(g, &c->arg[lengths_slot]))
    return sl__seg_offsets_alloc(ctx, c, lengths_slot, g, checked, offs);
  sl__seg_geom one = *g;
  one.Q = 1;
  *row_step = 0;
  return sl__seg_offsets_alloc(ctx, c, lengths_slot, &one, checked, offs);
}

void sl__seg_offsets_free(const sl_call *c, int lengths_slot, int64_t *offs) {
  if (offs != (const int64_t *)c->arg[lengths_slot].data) sl__free(offs);
}

/* data, lengths, axis, reduce, initial and form of a forward call c (slots
 * 0, 1 of c->op); writes the normalized axis. */
static sl_status sl__seg_check(sl_ctx *ctx, const sl_call *c,
                               const sl_tensor *data, const sl_tensor *lengths,
                               sl__infer_mode mode, int64_t *axis) {
  const sl_op op = c->op;
  const sl_params *p = &c->p;
  char a[160], b[160], w[160];
  if (data->ndim < 1)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "data: expected rank >= 1 (segments run along an "
                       "axis), got rank 0 %s",
                       sl_shape_str(data->ndim, data->shape, a, sizeof a));
  sl_status st = sl__check_op_dtype(ctx, op, p->reduce, "data", data->dtype);
  if (st) return st;
  st = sl__check_index_dtype(ctx, "lengths", lengths);
  if (st) return st;
  int64_t d;
  st = sl__normalize_dim(ctx, "dim", p->dim, data->ndim, &d);
  if (st) return st;
  sl_shape_str(lengths->ndim, lengths->shape, b, sizeof b);
  if (lengths->ndim != d + 1)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "lengths: expected rank %d (axis %lld is lengths' last "
                       "axis), got rank %d %s",
                       (int)d + 1, (long long)d, lengths->ndim, b);
  sl_shape_str(data->ndim, data->shape, a, sizeof a);
  const int off = c->segment.offsets != 0;
  int same = 1;
  for (int k = 0; k < d; ++k) same &= lengths->shape[k] == data->shape[k];
  if (!same || (off && lengths->shape[d] < 1)) {
    int64_t want[SL_MAX_DIMS];
    for (int k = 0; k < d; ++k) want[k] = data->shape[k];
    want[d] = off ? (lengths->shape[d] > 0 ? lengths->shape[d] : 1)
                  : lengths->shape[d];
    sl_shape_str((int)d + 1, want, w, sizeof w);
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "%s: expected shape %s (data %s's extents before axis "
                       "%lld, then %s), got %s",
                       off ? "lengths (offsets)" : "lengths", w, a,
                       (long long)d, off ? "S + 1 >= 1 offsets" : "S lengths",
                       b);
  }
  st = sl__check_reduce(ctx, p->reduce, SL__REDUCES_SEGMENT);
  if (st) return st;
  if (p->has_value) {
    st = sl__check_scalar(ctx, "initial", data->dtype, p);
    if (st) return st;
  }
  if (mode == SL__INFER_ALL && lengths->device == SL_DEVICE_CPU) {
    sl__seg_geom g;
    sl__seg_geom_of(data, lengths, (int)d, off, &g);
    st = sl__seg_offsets(ctx, lengths, off, &g, NULL);
    if (st) return st;
  }
  *axis = d;
  return SL_STATUS_OK;
}

/* out's shape: data's with the axis's extent S. */
static void sl__seg_out_shape(const sl_tensor *data, const sl_tensor *lengths,
                              int axis, int is_offsets, int64_t *shape) {
  for (int k = 0; k < data->ndim; ++k) shape[k] = data->shape[k];
  shape[axis] = lengths->shape[axis] - (is_offsets ? 1 : 0);
}

/* The forward's checks on data (slot ds) and lengths (ds + 1) of c, and
 * the shape of its output; c's axis normalized. */
static sl_status sl__seg_check_call(sl_ctx *ctx, sl_call *c, int ds,
                                    sl__infer_mode mode, int64_t *shape) {
  const sl_tensor *data = &c->arg[ds], *lengths = &c->arg[ds + 1];
  int64_t axis;
  sl_status st = sl__seg_check(ctx, c, data, lengths, mode, &axis);
  if (st) return st;
  sl__seg_out_shape(data, lengths, (int)axis, c->segment.offsets != 0, shape);
  c->p.dim = axis;
  return SL_STATUS_OK;
}

sl_status sl__segment_reduce_infer(sl_ctx *ctx, sl_call *c,
                                   sl__infer_mode mode) {
  int64_t shape[SL_MAX_DIMS];
  sl_status st = sl__seg_check_call(ctx, c, 0, mode, shape);
  if (st) return st;
  sl__set_out(&c->arg[2], c->arg[0].dtype, c->arg[0].ndim, shape);
  return SL_STATUS_OK;
}

/* grad_out and result: out's shape and data's dtype. */
static sl_status sl__seg_like_out(sl_ctx *ctx, const char *what,
                                  const sl_tensor *t, const sl_tensor *data,
                                  const int64_t *shape) {
  char a[160], b[160];
  if (t->dtype != data->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "%s: expected dtype %s (the dtype of data), got %s",
                       what, sl_dtype_name(data->dtype),
                       sl_dtype_name(t->dtype));
  int same = t->ndim == data->ndim;
  for (int d = 0; same && d < t->ndim; ++d) same = t->shape[d] == shape[d];
  if (!same)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "%s: expected shape %s (the forward output's), got %s",
                       what, sl_shape_str(data->ndim, shape, a, sizeof a),
                       sl_shape_str(t->ndim, t->shape, b, sizeof b));
  return SL_STATUS_OK;
}

sl_status sl__segment_reduce_backward_infer(sl_ctx *ctx, sl_call *c,
                                            sl__infer_mode mode) {
  const sl_tensor *data = &c->arg[1];
  int64_t shape[SL_MAX_DIMS];
  sl_status st = sl__seg_check_call(ctx, c, 1, mode, shape);
  if (st) return st;
  st = sl__seg_like_out(ctx, "grad_out", &c->arg[0], data, shape);
  if (st) return st;
  st = sl__seg_like_out(ctx, "result", &c->arg[3], data, shape);
  if (st) return st;
  sl__set_out(&c->arg[4], data->dtype, data->ndim, data->shape);
  return SL_STATUS_OK;
}
