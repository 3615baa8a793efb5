/* Counting masked_scatter's true positions, a row of x at a time. */
#include "ops/masked_scatter/masked_scatter.h"
#include "walk.h"

int64_t sl__mask_count(const sl_tensor *x, const sl_tensor *mask,
                       const int64_t *ms, int64_t begin, int64_t end) {
  const unsigned char *m = mask->data;
  const int64_t *st[1] = {ms};
  sl__walk w;
  sl__walk_init(&w, x->ndim, x->shape, 1, st, begin);
  int64_t count = 0;
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    const unsigned char *row = m + sl__walk_at(&w, 0);
    int64_t step = sl__walk_step(&w, 0);
    if (step == 1) /* a plain byte loop, which the compiler vectorizes */
      for (int64_t j = 0; j < n; ++j) count += row[j] != 0;
    else
      for (int64_t j = 0; j < n; ++j) count += row[j * step] != 0;
  }
  return count;
}
