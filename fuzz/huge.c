/* The huge-offset schedule (see huge.h). */
#include "huge.h"

#include <string.h>

#include "casegen.h"
#include "casegen_internal.h"
#include "datagen.h"
#include "rng.h"

void sl__huge_shape(sl_case_shape *s, int ndim, int64_t a, int64_t b) {
  memset(s, 0, sizeof *s);
  s->present = 1;
  s->ndim = ndim;
  s->shape[0] = a;
  s->shape[1] = b;
}

int sl_fuzz_huge_op(sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(op);
  return f && f->huge;
}

int sl_fuzz_huge(const sl_fuzz_opts *o, uint64_t seed, uint64_t i, sl_op op,
                 sl_case *fw) {
  if (!o || !o->huge_bytes || op != fw->op || !sl_fuzz_huge_op(op)) return 0;
  const uint64_t es = sl_dtype_size(fw->dt);
  if (es > 2) return 0;
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x68756765ull /* "huge" */, i);
  /* Columns: one (a 1-D walk), a few, a row of a page, an odd wide row. */
  static const int64_t widths[] = {1, 3, 1024, 65537};
  const int64_t cols = widths[sl_rng_below(&r, 4)];
  /* Index rows and columns: few (the case's cost is x). */
  const int64_t m = 1 + (int64_t)sl_rng_below(&r, 32);
  const int64_t k = 1 + (int64_t)sl_rng_below(&r, cols < 8 ? cols : 8);
  /* Past 2^32 elements where the cap takes it (a tenth of the cases tries),
   * else past 2^31; else the case stays as drawn. */
  const int past = sl_rng_below(&r, 10) == 0 ? 32 : 31;
  for (int p = past; p >= 31; --p) {
    const int64_t want = ((int64_t)1 << p) / 8 * 9;
    const int64_t rows = (want + cols - 1) / cols;
    const uint64_t x_bytes = (uint64_t)(rows * cols) * es;
    /* inputs + 2 x outputs, as the runner counts them; the index and the
     * updates are small beside x (at most 32 x 65537 elements) */
    const uint64_t small = (uint64_t)m * (uint64_t)cols * 8;
    const uint64_t need =
        x_bytes + small +
        2 * (sl__fuzz_op_of(fw->op)->out_like_index ? small : x_bytes);
    if (need > o->huge_bytes || x_bytes > SL_GEN_MAX_BYTES) continue;
    sl__huge_shape(&fw->arg[0], 2, rows, cols);
    fw->dim = 0;
    /* Row numbers past INT32_MAX need an i64 index (an i32 one would hold
     * them wrapped: an invalid case, refused by both sides). */
    if (rows > INT32_MAX) fw->it = SL_I64;
    fw->ip = SL_IP_HIGH;
    fw->ip_param = 0;
    const sl__huge_dims h = {rows, cols, m, k};
    sl__fuzz_op_of(fw->op)->huge(fw, &h, &r);
    return 1;
  }
  return 0;
}

int sl_fuzz_huge_shape(const sl_case *c) {
  sl_case fw;
  if (!c) return 0;
  sl_case_forward(c, &fw);
  const sl_case_shape *x = &fw.arg[0];
  if (!x->present) return 0;
  int64_t n = 1;
  for (int d = 0; d < x->ndim; ++d) n *= x->shape[d];
  return n > ((int64_t)1 << 32) ? 32 : n > ((int64_t)1 << 31) ? 31 : 0;
}
