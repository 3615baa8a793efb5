/*
 * What the case generator knows of the segment ops (segment_reduce and its
 * backward, through its forward view): shapes, breakers, the static
 * classifier, and the shrinker's repair and axis dropper. The lengths'
 * values come from the case layer (cases/segments.h).
 */
#include "casegen_internal.h"
#include "segments.h"

/* Rows of lengths (its extents before the axis a) and its last extent m. */
static int64_t sl__seg_rows(const sl_case_shape *len) {
  return len->ndim ? sl__prod(len->ndim - 1, len->shape) : 1;
}

/* An initial value: an odd number of quarters (exact in every float dtype,
 * never an integer). */
static double sl__pick_initial(sl__gen *g) {
  return (double)(2 * sl__range(g, -16, 15) + 1) / 4.0;
}

/* data [K] (K >= 1), an axis a, lengths data.shape[:a] + [S] (+1 for
 * offsets): S = 1 one time in five (one segment), else 0..n+2 segments for
 * an axis of n (empty segments, and all of them empty when n = 0). */
void sl__gen_segment(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS] = {0}, L[SL_MAX_DIMS] = {0};
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS);
  sl__gen_x(g, K, X);
  int64_t a;
  c->dim = sl__pick_dim(g, K, &a);
  c->offsets = sl__pct(g, 30);
  const int64_t n = X[a];
  int64_t S = sl__pct(g, 20) ? 1 : sl__range(g, n ? 1 : 0, n + 2);
  /* lengths stays within the case's size, keeping a segment for a
   * non-empty axis (and fewer rows where even that is too many) */
  const int64_t rows = sl__prod((int)a, X);
  if (rows > 0 && S + c->offsets > g->max / rows) {
    S = g->max / rows - c->offsets;
    if (S < (n ? 1 : 0)) S = n ? 1 : 0;
  }
  if (S + c->offsets > 0) sl__fit(X, (int)a, NULL, g->max / (S + c->offsets));
  for (int d = 0; d < a; ++d) L[d] = X[d];
  L[a] = S + c->offsets;
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], (int)a + 1, L);
  if (sl__pct(g, 30)) {
    c->has_val = 1;
    c->val_is_int = 0;
    c->val = sl__pick_initial(g);
  }
}

/* lengths' rows may share one memory row (broadcast: the rows before the
 * axis alias row 0, each a valid cut), its entries may not: a 1-D lengths
 * so laid out holds one value for every segment. */
void sl__segment_layouts(sl_case *fw) {
  sl_case_shape *len = &fw->arg[1];
  if (len->ndim == 1 && len->layout == SL_LAYOUT_BROADCAST)
    len->layout = SL_LAYOUT_CONTIGUOUS;
}

/* ------------------------------------------------------------------------ */
/* Breakers                                                                  */
/* ------------------------------------------------------------------------ */

/* An axis outside data's rank, or (from rank 2) inside it but not lengths'
 * last axis. */
int sl__break_dim_segment(sl__gen *g, sl_case *fw) {
  const int K = fw->arg[0].ndim;
  int64_t a;
  if (K >= 2 && sl__norm_dim(fw->dim, K, &a) && sl__pct(g, 50)) {
    fw->dim = (a + 1 + (int64_t)sl_rng_below(&g->r, (uint64_t)K - 1)) % K;
    return 0;
  }
  fw->dim =
      sl__pct(g, 50) ? K + sl__range(g, 0, 1) : -K - 1 - sl__range(g, 0, 1);
  return 0;
}

/* A 0-D data, or lengths of more axes than data. */
int sl__break_rank_segment(sl__gen *g, sl_case *fw, sl_op op) {
  (void)op;
  sl_case_shape *data = &fw->arg[0], *len = &fw->arg[1];
  if (sl__pct(g, 30)) {
    sl__shape_set(data, 0, NULL);
    data->layout = SL_LAYOUT_CONTIGUOUS;
    data->step = 0;
    fw->dim = 0;
    return 0;
  }
  const int K = data->ndim;
  if (K + 1 > SL_MAX_DIMS) return -1;
  int64_t e[SL_MAX_DIMS];
  for (int d = 0; d < K; ++d) e[d] = data->shape[d];
  e[K] = len->ndim ? len->shape[len->ndim - 1] : 1;
  sl__shape_set(len, K + 1, e);
  fw->dim = K;
  return sl__shape_numel(len) > g->max ? -1 : 0;
}

/* lengths' rows not data's (an extent before the axis one more), or
 * offsets with no entry per row. */
int sl__break_shape_segment(sl__gen *g, sl_case *fw) {
  sl_case_shape *len = &fw->arg[1];
  const int a = len->ndim - 1;
  if (a >= 1 && (!fw->offsets || sl__pct(g, 50))) {
    len->shape[sl_rng_below(&g->r, (uint64_t)a)] += 1;
    return sl__shape_numel(len) > g->max ? -1 : 0;
  }
  if (!fw->offsets || a < 0) return -1;
  len->shape[a] = 0;
  return 0;
}

/* The integers, bool and complex: PyTorch's kernel is for floats only. */
int sl__break_dtype_segment(sl__gen *g, sl_case *fw) {
  static const sl_dtype bad[] = {SL_I32, SL_I64, SL_U8, SL_BOOL, SL_C64};
  fw->dt = bad[sl_rng_below(&g->r, 5)];
  fw->has_val = 0; /* an integer data's line takes no fractional initial */
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The classifier                                                            */
/* ------------------------------------------------------------------------ */

sl_fuzz_class sl__classify_segment(const sl_case *fw, sl_op op) {
  (void)op;
  const sl_case_shape *data = &fw->arg[0], *len = &fw->arg[1];
  if (!data->present || !len->present) return SL_FUZZ_SHAPE;
  const int K = data->ndim;
  if (K == 0 || len->ndim == 0 || len->ndim > K) return SL_FUZZ_RANK;
  int64_t a;
  if (!sl__norm_dim(fw->dim, K, &a) || len->ndim != a + 1) return SL_FUZZ_DIM;
  for (int d = 0; d < a; ++d)
    if (len->shape[d] != data->shape[d]) return SL_FUZZ_SHAPE;
  const int64_t m = len->shape[a], rows = sl__seg_rows(len);
  if (fw->offsets && m == 0) return SL_FUZZ_SHAPE;
  if (rows == 0) return SL_FUZZ_VALID;
  if (sl_segment_spoiled(fw, rows, m))
    return fw->ip == SL_IP_OOB ? SL_FUZZ_OOB : SL_FUZZ_NEG;
  /* no segment to hold a non-empty axis: the rows cannot sum to it */
  if (m - fw->offsets == 0 && data->shape[a] > 0) return SL_FUZZ_OOB;
  return SL_FUZZ_VALID;
}

/* ------------------------------------------------------------------------ */
/* Shrinking                                                                 */
/* ------------------------------------------------------------------------ */

/* lengths' rows follow data's extents before the axis; a non-empty axis
 * keeps a segment. */
void sl__repair_segment(sl_case *fw, sl_op op) {
  (void)op;
  sl_case_shape *data = &fw->arg[0], *len = &fw->arg[1];
  int64_t a;
  if (!sl__norm_dim(fw->dim, data->ndim, &a) || len->ndim != a + 1) return;
  for (int d = 0; d < a; ++d) len->shape[d] = data->shape[d];
  if (data->shape[a] > 0 && len->shape[a] < 1 + fw->offsets)
    len->shape[a] = 1 + fw->offsets;
  sl__segment_layouts(fw);
}

/* An axis before the segments' one goes from both, one after it from data
 * alone; the segments' axis stays. */
int sl__drop_axis_segment(sl_case *fw, int k) {
  sl_case_shape *data = &fw->arg[0], *len = &fw->arg[1];
  const int K = data->ndim;
  int64_t a;
  if (K < 2 || !sl__norm_dim(fw->dim, K, &a) || k == a || len->ndim != a + 1)
    return -1;
  sl__drop(data, k);
  if (k < a) sl__drop(len, k);
  fw->dim = k < a ? a - 1 : a;
  sl__segment_layouts(fw);
  return 0;
}

const sl__fuzz_op sl__fuzz_segment_reduce = {
    .gen = sl__gen_segment,
    .break_dtype = sl__break_dtype_segment,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .break_dim = sl__break_dim_segment,
    .break_rank = sl__break_rank_segment,
    .break_shape = sl__break_shape_segment,
    .repair = sl__repair_segment,
    .drop_axis = sl__drop_axis_segment,
    .classify = sl__classify_segment,
    .classes = SL__INDEX_CLASSES};
const sl__fuzz_op sl__fuzz_segment_reduce_backward = {
    .break_dtype = sl__break_dtype_segment,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .classes = SL__INDEX_CLASSES};
