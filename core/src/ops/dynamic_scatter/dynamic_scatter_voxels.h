/*
 * dynamic_scatter's voxelization (steps 1-3 of dynamic_scatter_cpu.c),
 * shared by every CPU variant of the op: the valid points sorted by
 * (coordinates, point index) and cut into voxels. The variants differ only
 * in how they reduce the features of a voxel's points: cpu.serial, cpu.omp
 * and cpu.sorted walk each voxel's sorted run; cpu.atomic and cpu.lock walk
 * the points in point order and combine into the voxel's row
 * (dynamic_scatter_conflict.c).
 */
#ifndef SL_DYNAMIC_SCATTER_VOXELS_H
#define SL_DYNAMIC_SCATTER_VOXELS_H

#include "sl_internal.h"

/* Workspace of one call. Positions are i32: infer limits N to INT32_MAX. */
typedef struct sl__dyn {
  const sl_call *c;
  int64_t D;
  int32_t *keys;   /* [nv,D]: coors of the valid points, in point order */
  int32_t *point;  /* [nv]: point index of each valid position */
  int32_t *order;  /* [nv]: valid positions sorted by key (or scratch) */
  int32_t *tmp;    /* [nv]: the other merge buffer */
  int32_t *sorted; /* order or tmp, whichever holds the sorted positions */
  int32_t *starts; /* [nv+1]: first sorted slot of each voxel, then nv */
} sl__dyn;

/* feats are f32 or f64 (checked by infer); values travel as double. A sum
 * rounded back to f32 after each addition is bitwise the f32 sum: double
 * has more than 2 * 24 + 2 bits of precision, so the double rounding is
 * innocuous for +, / (and comparisons are exact). */
static inline double sl__dyn_getf(const sl_tensor *t, int64_t off) {
  if (t->dtype == SL_F32) return ((const float *)t->data)[off];
  return ((const double *)t->data)[off];
}

static inline void sl__dyn_setf(const sl_tensor *t, int64_t off, double v) {
  if (t->dtype == SL_F32)
    ((float *)t->data)[off] = (float)v;
  else
    ((double *)t->data)[off] = v;
}

static inline int32_t *sl__dyn_i32(const sl_tensor *t, int64_t off) {
  return (int32_t *)t->data + off;
}

/* Steps 1-3 on `threads` threads: on success *M voxels, voxel v owning the
 * sorted slots [starts[v], starts[v+1]) of w->sorted (positions into
 * w->point and w->keys), and point2voxel_map = -1 for every invalid point.
 * N = 0 or no valid point gives *M = 0. sl__dyn_free releases w. */
sl_status sl__dyn_voxelize(sl_ctx *ctx, sl_call *c, int threads, sl__dyn *w,
                           int64_t *M);
void sl__dyn_free(sl__dyn *w);

/* Writes voxel v's row of voxel_coors, its voxel_points_count and the map
 * entry of each of its points. */
void sl__dyn_label_voxel(const sl__dyn *w, int64_t v);

#endif /* SL_DYNAMIC_SCATTER_VOXELS_H */
