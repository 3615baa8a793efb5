/*
 * The panel walk of gather-like kernels (walk.h sl__for_panels), checked
 * the same way for gather and gather_nd: an x of 16 MiB f32 [64, 65536],
 * more than a panel (SL__PANEL_BYTES, 4 MiB), read along axis 0 through an
 * index of random rows, full-size and narrower than x, on 2 and 3 threads.
 * Every CPU variant of the op must give out[i][j] = x[index[i][j]][j].
 */
#ifndef SL_TEST_GATHER_PANELS_H
#define SL_TEST_GATHER_PANELS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sl/sl.h"
#include "sl_test.h"

/* Runs the op's variant on x with the [rows, cols] int32 index idx (its
 * own layout: gather's 2-D, gather_nd's [rows, cols, 1]) into out. */
typedef sl_status (*gather_panels_run)(sl_ctx *ctx, const char *variant,
                                       const sl_tensor *x, int64_t rows,
                                       int64_t cols, int32_t *idx, float *out);

static void check_gather_panels(sl_op op, gather_panels_run run) {
  enum { R = 64, C = 65536 };
  float *x = malloc(sizeof(float) * R * C);
  float *out = malloc(sizeof(float) * R * C);
  int32_t *idx = malloc(sizeof(int32_t) * R * C);
  CHECK(x && out && idx);
  uint32_t s = 4242;
  for (int64_t i = 0; x && idx && i < (int64_t)R * C; ++i) {
    x[i] = (float)i;
    s = s * 1103515245u + 12345u;
    idx[i] = (int32_t)((s >> 16) % R);
  }
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, x);
  const int64_t shapes[2][2] = {{R, C}, {48, 40000}};
  for (int k = 0; x && out && idx && k < 2; ++k) {
    const int64_t rows = shapes[k][0], cols = shapes[k][1];
    for (int threads = 2; threads <= 3; ++threads) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      ctx.threads = threads;
      for (size_t i = 0; i < sl_variant_count(); ++i) {
        const sl_variant *v = sl_variant_at(i);
        if (v->op != op || (v->flags & SL_NEEDS_CUDA)) continue;
        memset(out, 0x5a, sizeof(float) * R * C);
        CHECK(run(&ctx, v->name, &tx, rows, cols, idx, out) == SL_STATUS_OK);
        int64_t bad = 0;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j)
            bad += out[r * cols + j] != x[(int64_t)idx[r * cols + j] * C + j];
        CHECK_MSG(bad == 0, "%s on %d threads, index %lldx%lld: %lld wrong",
                  v->name, threads, (long long)rows, (long long)cols,
                  (long long)bad);
      }
    }
  }
  free(x);
  free(out);
  free(idx);
}

#endif /* SL_TEST_GATHER_PANELS_H */
