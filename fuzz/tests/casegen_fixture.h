/*
 * What the generator's and the shrinker's tests share (test_casegen.c,
 * test_shrink.c): a case's line, and sl_infer run on a case's tensors.
 */
#ifndef SL_CASEGEN_FIXTURE_H
#define SL_CASEGEN_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "casegen.h"
#include "datagen.h"
#include "sl_test.h"

#define SEED UINT64_C(20240611)

static inline void print_line(const sl_case *c, char *buf) {
  sl_case_print(c, buf, SL_CASE_LINE_MAX);
}

/* ------------------------------------------------------------------------ */
/* Running sl_infer on a case                                                */
/* ------------------------------------------------------------------------ */

/* A zeroed contiguous tensor of shape (nd, e) in slot `slot` of b. */
static inline void alloc_zero(sl_bundle *b, int slot, sl_dtype dt, int nd,
                              const int64_t *e) {
  sl_case_shape s;
  memset(&s, 0, sizeof s);
  s.present = 1;
  s.ndim = nd;
  for (int d = 0; d < nd; ++d) s.shape[d] = e[d];
  char err[256];
  int rc = sl_bundle_alloc(b, slot, dt, &s, "derived", err, sizeof err);
  CHECK_MSG(rc == 0, "%s", err);
}

/* dynamic_scatter's voxels, computed plainly: a row with a negative entry
 * belongs to no voxel; equal rows share one (ids in order of appearance,
 * enough for the shape and range checks of infer). Returns M. */
static inline int64_t voxels(const sl_tensor *coors, int32_t *map,
                             int32_t **counts) {
  const int64_t n = coors->shape[0], dcols = coors->shape[1];
  int64_t m = 0;
  int64_t *first = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  *counts = calloc((size_t)(n ? n : 1), sizeof(int32_t));
  for (int64_t r = 0; r < n; ++r) {
    int valid = 1;
    for (int64_t j = 0; j < dcols; ++j)
      valid &= sl_elem_get_i(SL_I32, (const int32_t *)coors->data +
                                         r * coors->strides[0] +
                                         j * coors->strides[1]) >= 0;
    map[r] = -1;
    if (!valid) continue;
    for (int64_t v = 0; v < m && map[r] < 0; ++v) {
      int same = 1;
      for (int64_t j = 0; j < dcols; ++j)
        same &=
            ((const int32_t *)coors->data)[first[v] * coors->strides[0] +
                                           j * coors->strides[1]] ==
            ((const int32_t *)
                 coors->data)[r * coors->strides[0] + j * coors->strides[1]];
      if (same) map[r] = (int32_t)v;
    }
    if (map[r] < 0) {
      first[m] = r;
      map[r] = (int32_t)m++;
    }
    ++(*counts)[map[r]];
  }
  free(first);
  return m;
}

/*
 * Builds the case's tensors (a backward op gets its inputs derived by hand,
 * as the harness derives them through LibTorch: result and grad_out of x's
 * shape; voxels from coors) and runs sl_infer on a copy of the call.
 * Returns its status, or -1 when the tensors could not be built.
 */
static inline int infer_case(const sl_case *c, char *msg, size_t msglen) {
  sl_case fw;
  sl_bundle f, b;
  char err[256];
  msg[0] = '\0';
  int backward = sl_case_forward(c, &fw);
  if (sl_gen_inputs(&fw, &f, err, sizeof err)) {
    snprintf(msg, msglen, "sl_gen_inputs: %s", err);
    return -1;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_call call;
  sl_status st;
  if (!backward) {
    call = f.call;
    st = sl_infer(&ctx, &call);
    snprintf(msg, msglen, "%s", sl_ctx_message(&ctx));
    sl_bundle_free(&f);
    return (int)st;
  }
  sl_bundle_init(&b, c->op);
  sl_case_call_params(c, &b.call);
  if (c->op == SL_OP_DYNAMIC_SCATTER_BACKWARD) {
    /* grad_voxel_feats feats voxel_feats point2voxel_map voxel_points_count */
    const sl_tensor *feats = &f.call.arg[0], *coors = &f.call.arg[1];
    int ok = feats->ndim == 2 && coors->ndim == 2 && coors->dtype == SL_I32 &&
             coors->shape[0] == feats->shape[0];
    int64_t n = feats->ndim == 2 ? feats->shape[0] : 0;
    int64_t ch = feats->ndim == 2 ? feats->shape[1] : 0;
    int32_t *map = calloc((size_t)(n ? n : 1), sizeof *map), *counts = NULL;
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) map[i] = -1;
    if (ok && sl_fuzz_dtype_ok(SL_OP_DYNAMIC_SCATTER, c->dt, c->reduce))
      m = voxels(coors, map, &counts);
    b.call.arg[1] = f.call.arg[0];
    b.mem[1] = f.mem[0];
    f.mem[0] = NULL;
    alloc_zero(&b, 0, c->dt, 2, (int64_t[]){m, ch});
    alloc_zero(&b, 2, c->dt, 2, (int64_t[]){m, ch});
    alloc_zero(&b, 3, SL_I32, 1, &n);
    alloc_zero(&b, 4, SL_I32, 1, &m);
    memcpy(b.mem[3], map, sizeof(int32_t) * (size_t)n);
    if (counts) memcpy(b.mem[4], counts, sizeof(int32_t) * (size_t)m);
    free(map);
    free(counts);
  } else {
    /* grad_out, the forward's inputs, result (of the forward's output
     * shape: x's for scatter_reduce and index_reduce) */
    const int n_fw = sl_op_get(fw.op)->n_in;
    sl_call fwd = f.call;
    sl_ctx fctx;
    sl_ctx_init(&fctx);
    const int fw_ok = sl_infer(&fctx, &fwd) == SL_STATUS_OK;
    for (int s = 0; s < n_fw; ++s) {
      b.call.arg[s + 1] = f.call.arg[s];
      b.mem[s + 1] = f.mem[s];
      f.mem[s] = NULL;
    }
    const sl_tensor *out = fw_ok ? &fwd.arg[n_fw] : &b.call.arg[1];
    alloc_zero(&b, n_fw + 1, out->dtype, out->ndim, out->shape);
    alloc_zero(&b, 0, c->dt, out->ndim, out->shape);
  }
  sl_bundle_free(&f);
  call = b.call;
  st = sl_infer(&ctx, &call);
  snprintf(msg, msglen, "%s", sl_ctx_message(&ctx));
  sl_bundle_free(&b);
  return (int)st;
}

#endif /* SL_CASEGEN_FIXTURE_H */
