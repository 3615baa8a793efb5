/* Typed row loops of the scatter-like reductions (see reduce_rows.h). */
#include "reduce_rows.h"
#include "walk_order.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "walk.h"

/* The combine steps on an accumulator *a and a value b of type T (U: the
 * unsigned type of the same width, for the wrapping integer sum/prod). */
#define SL__STEP_ASSIGN(T, U) *a = b
#define SL__STEP_SUM_F(T, U) *a = *a + b
#define SL__STEP_PROD_F(T, U) *a = *a * b
#define SL__STEP_AMAX_F(T, U) *a = b != b ? b : (*a < b ? b : *a)
#define SL__STEP_AMIN_F(T, U) *a = b != b ? b : (b < *a ? b : *a)
#define SL__STEP_SUM_I(T, U) *a = (T)((U)*a + (U)b)
#define SL__STEP_PROD_I(T, U) *a = (T)((U)*a * (U)b)
#define SL__STEP_AMAX_I(T, U) *a = *a < b ? b : *a
#define SL__STEP_AMIN_I(T, U) *a = b < *a ? b : *a

/* Whether the step leaves accumulator acc as it is for every value b (1 or
 * 0, for a vectorized test of a block): an extreme's step leaves it unless
 * b is past it or a NaN (a NaN accumulator only changes for a NaN b, which
 * is the one case the test then sends on). A sum or product always steps. */
#define SL__KEEPS_NEVER(acc, b) 0
#define SL__KEEPS_AMAX_F(acc, b) ((b == b) & !(acc < b))
#define SL__KEEPS_AMIN_F(acc, b) ((b == b) & !(b < acc))
#define SL__KEEPS_AMAX_I(acc, b) (!(acc < b))
#define SL__KEEPS_AMIN_I(acc, b) (!(b < acc))

/* f16/bf16 amax and amin on the halves themselves (T uint16_t): the
 * extreme of halves is one of them, so out accumulates without the
 * widening to f32 and back that their sums need. f16 by sl__takes_half's
 * integer form of the float rule, bf16 as floats (a shift each). */
#define SL__STEP_HALF(r, bf, T, U) *a = sl__takes_half(r, bf, *a, b) ? b : *a
#define SL__STEP_AMAX_F16(T, U) SL__STEP_HALF(SL_REDUCE_AMAX, 0, T, U)
#define SL__STEP_AMIN_F16(T, U) SL__STEP_HALF(SL_REDUCE_AMIN, 0, T, U)
#define SL__TAKES_BF16(r, a, b)                                                \
  sl__takes_f32(r, sl__bf16_to_f32(a), sl__bf16_to_f32(b))
#define SL__STEP_AMAX_BF16(T, U)                                               \
  *a = SL__TAKES_BF16(SL_REDUCE_AMAX, *a, b) ? b : *a
#define SL__STEP_AMIN_BF16(T, U)                                               \
  *a = SL__TAKES_BF16(SL_REDUCE_AMIN, *a, b) ? b : *a
#define SL__KEEPS_AMAX_F16(acc, b) (!sl__takes_half(SL_REDUCE_AMAX, 0, acc, b))
#define SL__KEEPS_AMIN_F16(acc, b) (!sl__takes_half(SL_REDUCE_AMIN, 0, acc, b))
#define SL__KEEPS_AMAX_BF16(acc, b) (!SL__TAKES_BF16(SL_REDUCE_AMAX, acc, b))
#define SL__KEEPS_AMIN_BF16(acc, b) (!SL__TAKES_BF16(SL_REDUCE_AMIN, acc, b))

/* Values a block of the one-target row tests at once. */
#define SL__KEEP_BLOCK 16

/*
 * A row whose every position goes to one element (oc == 0 and d0 == 0: out
 * has extent 1 on the decided axis, so every valid index is 0): the
 * element's steps in order in a register, the same operations as through
 * memory, where each step waited on the last one's store (1M updates into
 * one f32 element: 2.6 ms against LibTorch's 1.6). An extreme skips the
 * blocks of contiguous values that cannot move it (KEEPS), so the row
 * streams src.
 */
/* The block of src[j, j + SL__KEEP_BLOCK) stepped into the register acc
 * (a = &acc, b in scope), unless an extreme keeps acc for all of it. */
#define SL__STEP_BLOCK(T, U, STEP, KEEPS)                                      \
  do {                                                                         \
    int keep = 1;                                                              \
    for (int k = 0; k < SL__KEEP_BLOCK; ++k) keep &= KEEPS(acc, src[j + k]);   \
    if (!keep)                                                                 \
      for (int k = 0; k < SL__KEEP_BLOCK; ++k) {                               \
        b = src[j + k];                                                        \
        STEP(T, U);                                                            \
      }                                                                        \
  } while (0)

#define SL__ONE_TARGET_ROW(T, U, STEP, KEEPS)                                  \
  do {                                                                         \
    T acc = *out, *a = &acc, b;                                                \
    int64_t j = 0;                                                             \
    if (sc == 1)                                                               \
      for (; j + SL__KEEP_BLOCK <= n; j += SL__KEEP_BLOCK)                     \
        SL__STEP_BLOCK(T, U, STEP, KEEPS);                                     \
    for (; j < n; ++j) {                                                       \
      b = src[j * sc];                                                         \
      STEP(T, U);                                                              \
    }                                                                          \
    *out = acc;                                                                \
  } while (0)

/*
 * A row along its own axis (every target in one row of out, src and index
 * contiguous), a block of SL__KEEP_BLOCK positions at a time: a block
 * whose index values are all one target (a sorted or repeated index) takes
 * the element's steps in a register, skipped whole where an extreme keeps
 * it (KEEPS), as SL__ONE_TARGET_ROW; any other block steps through memory
 * in order. Each step waited on the last one's store where a target
 * repeated (bf16 amin of 1.2M contributions to one target of 1.8M: 0.30x
 * LibTorch).
 *
 * CHECKED (a constant): each value is tested against [0, bound) before its
 * step and the row stops at the first that fails, returning its position
 * (-1: none failed), as LibTorch's loop tests inside its walk. A separate
 * pass over a block before its walk read the index from memory with
 * nothing to overlap it: the standard last-axis sum went at 0.70-0.83x
 * LibTorch, the branch, never taken, costs next to nothing.
 */
#define SL__OWN_AXIS_FN(name, T, U, I, STEP, KEEPS, CHECKED)                   \
  static inline int64_t name(T *out, const I *index, const T *src, int64_t n,  \
                             int64_t d0, uint64_t bound) {                     \
    (void)bound;                                                               \
    int64_t j = 0;                                                             \
    for (; j + SL__KEEP_BLOCK <= n; j += SL__KEEP_BLOCK) {                     \
      /* the ends first: a random index rarely passes them */                  \
      const I first = index[j];                                                \
      int same = index[j + SL__KEEP_BLOCK - 1] == first;                       \
      for (int k = 1; same && k < SL__KEEP_BLOCK - 1; ++k)                     \
        same = index[j + k] == first;                                          \
      if (!same) {                                                             \
        for (int k = 0; k < SL__KEEP_BLOCK; ++k) {                             \
          const I v = index[j + k];                                            \
          if ((CHECKED) && (uint64_t)(int64_t)v >= bound) return j + k;        \
          T *a = out + (int64_t)v * d0, b = src[j + k];                        \
          STEP(T, U);                                                          \
        }                                                                      \
        continue;                                                              \
      }                                                                        \
      if ((CHECKED) && (uint64_t)(int64_t)first >= bound) return j;            \
      T *target = out + (int64_t)first * d0, acc = *target, *a = &acc, b;      \
      SL__STEP_BLOCK(T, U, STEP, KEEPS);                                       \
      *target = acc; /* the same bits where the block kept it */               \
    }                                                                          \
    for (; j < n; ++j) {                                                       \
      const I v = index[j];                                                    \
      if ((CHECKED) && (uint64_t)(int64_t)v >= bound) return j;                \
      T *a = out + (int64_t)v * d0, b = src[j];                                \
      STEP(T, U);                                                              \
    }                                                                          \
    return -1;                                                                 \
  }

/*
 * One contiguous row of out (index_reduce's target row) stepped with src
 * contiguous (sc 1) or one broadcast value (sc 0). Both loops vectorize;
 * the clones give them AVX2/AVX-512 where the CPU has it (SSE2 has no
 * 32-bit multiply: an i32 prod went through shuffles at half the speed).
 */
#define SL__LINE_FN(name, T, U, STEP)                                          \
  SL__SIMD_CLONES static void name(T *row, const T *src, int64_t n,            \
                                   int64_t sc) {                               \
    if (sc == 1)                                                               \
      for (int64_t j = 0; j < n; ++j) {                                        \
        T *a = row + j, b = src[j];                                            \
        STEP(T, U);                                                            \
      }                                                                        \
    else {                                                                     \
      const T value = src[0];                                                  \
      for (int64_t j = 0; j < n; ++j) {                                        \
        T *a = row + j, b = value;                                             \
        STEP(T, U);                                                            \
      }                                                                        \
    }                                                                          \
  }

/* Whether the index decides one axis (m == 1). Loops of ND == 0 are only
 * handed m == 1 (sl__reduce_row_for), so their test is the constant 1 and
 * their loops over other counts of axes are not compiled. */
#define SL__ONE_AXIS(ND) (!(ND) || m == 1)

#define SL__REDUCE_ROW(name, T, U, I, STEP, KEEPS, ND)                         \
  SL__OWN_AXIS_FN(name##_own, T, U, I, STEP, KEEPS, 0)                         \
  SL__LINE_FN(name##_line, T, U, STEP)                                         \
  static void name(char *o, const char *ip, const char *sp,                    \
                   const sl__rows_block *blk) {                                \
    const int64_t n = blk->n, oc = blk->oc, ic = blk->ic, sc = blk->sc;        \
    const int64_t *od = blk->od;                                               \
    const int m = blk->m;                                                      \
    const int64_t ik = blk->ik, d0 = od[0];                                    \
    const int unit = oc == 1 && ic == 1 && sc == 1;                            \
    for (int64_t r = 0; r < blk->rows; ++r) {                                  \
      T *out = (T *)sl__at(o, r * blk->or_ * (int64_t)sizeof(T));              \
      const I *index =                                                         \
          (const I *)sl__at(ip, r * blk->ir * (int64_t)sizeof(I));             \
      const T *src = (const T *)sl__at(sp, r * blk->sr * (int64_t)sizeof(T));  \
      if (oc == 0 && (ic == 0 || (SL__ONE_AXIS(ND) && d0 == 0))) {             \
        /* one element: a broadcast index, or extent 1 */                      \
        for (int k = 0; k < (SL__ONE_AXIS(ND) ? 1 : m); ++k)                   \
          out += (int64_t)index[k * ik] * od[k];                               \
        SL__ONE_TARGET_ROW(T, U, STEP, KEEPS);                                 \
      } else if (SL__ONE_AXIS(ND) && unit) { /* contiguous rows */             \
        for (int64_t j = 0; j < n; ++j) {                                      \
          T *a = out + j + (int64_t)index[j] * d0, b = src[j];                 \
          STEP(T, U);                                                          \
        }                                                                      \
      } else if (SL__ONE_AXIS(ND) && ic == 0) {                                \
        /* one target row: index_reduce */                                     \
        T *row = out + (int64_t)index[0] * d0;                                 \
        if (oc == 1 && (sc == 1 || sc == 0))                                   \
          name##_line(row, src, n, sc);                                        \
        else                                                                   \
          for (int64_t j = 0; j < n; ++j) {                                    \
            T *a = row + j * oc, b = src[j * sc];                              \
            STEP(T, U);                                                        \
          }                                                                    \
      } else if (SL__ONE_AXIS(ND) && oc == 0 && ic == 1 && sc == 1) {          \
        name##_own(out, index, src, n, d0, 0);                                 \
      } else if (SL__ONE_AXIS(ND)) {                                           \
        /* scatter_reduce, scatter_nd with one column */                       \
        for (int64_t j = 0; j < n; ++j) {                                      \
          T *a = out + j * oc + (int64_t)index[j * ic] * d0, b = src[j * sc];  \
          STEP(T, U);                                                          \
        }                                                                      \
      } else if (m == 2) { /* scatter_nd of a matrix's elements */             \
        const int64_t d1 = od[1];                                              \
        for (int64_t j = 0; j < n; ++j) {                                      \
          const I *at = index + j * ic;                                        \
          T *a = out + j * oc + (int64_t)at[0] * d0 + (int64_t)at[ik] * d1,    \
            b = src[j * sc];                                                   \
          STEP(T, U);                                                          \
        }                                                                      \
      } else {                                                                 \
        for (int64_t j = 0; j < n; ++j) {                                      \
          int64_t t = j * oc;                                                  \
          for (int k = 0; k < m; ++k)                                          \
            t += (int64_t)index[j * ic + k * ik] * od[k];                      \
          T *a = out + t, b = src[j * sc];                                     \
          STEP(T, U);                                                          \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* A row loop of sl__rows and its checked own-axis row (sl__checked_rows). */
#define SL__TYPED_ROW(name, T, U, I, STEP, KEEPS, ND)                          \
  SL__REDUCE_ROW(name, T, U, I, STEP, KEEPS, ND)                               \
  SL__OWN_AXIS_FN(name##_own_checked, T, U, I, STEP, KEEPS, 1)                 \
  static int64_t name##_checked(char *o, const char *ip, const char *sp,       \
                                int64_t n, int64_t d0, uint64_t bound) {       \
    return name##_own_checked((T *)o, (const I *)ip, (const T *)sp, n, d0,     \
                              bound);                                          \
  }

/* Every (dtype, index dtype) pair for one step: [f32, f64, i32, i64][i32,
 * i64], named sl__rr_<step>_<dtype>_<index>; FS, FK: the float step and
 * its KEEPS, IS, IK the integer ones. ND: whether the step has the loops
 * over several decided axes (scatter_nd's, which writes or sums). */
#define SL__REDUCE_ROWS(step, FS, FK, IS, IK, ND)                              \
  SL__TYPED_ROW(sl__rr_##step##_f32_i32, float, uint32_t, int32_t, FS, FK, ND) \
  SL__TYPED_ROW(sl__rr_##step##_f32_i64, float, uint32_t, int64_t, FS, FK, ND) \
  SL__TYPED_ROW(sl__rr_##step##_f64_i32, double, uint64_t, int32_t, FS, FK,    \
                ND)                                                            \
  SL__TYPED_ROW(sl__rr_##step##_f64_i64, double, uint64_t, int64_t, FS, FK,    \
                ND)                                                            \
  SL__TYPED_ROW(sl__rr_##step##_i32_i32, int32_t, uint32_t, int32_t, IS, IK,   \
                ND)                                                            \
  SL__TYPED_ROW(sl__rr_##step##_i32_i64, int32_t, uint32_t, int64_t, IS, IK,   \
                ND)                                                            \
  SL__TYPED_ROW(sl__rr_##step##_i64_i32, int64_t, uint64_t, int32_t, IS, IK,   \
                ND)                                                            \
  SL__TYPED_ROW(sl__rr_##step##_i64_i64, int64_t, uint64_t, int64_t, IS, IK, ND)
/* The steps that have a loop over several axes, by row of sl__rows. */
#define SL__ROWS_ND(s) ((s) <= 1)
SL__REDUCE_ROWS(assign, SL__STEP_ASSIGN, SL__KEEPS_NEVER, SL__STEP_ASSIGN,
                SL__KEEPS_NEVER, 1)
SL__REDUCE_ROWS(sum, SL__STEP_SUM_F, SL__KEEPS_NEVER, SL__STEP_SUM_I,
                SL__KEEPS_NEVER, 1)
SL__REDUCE_ROWS(prod, SL__STEP_PROD_F, SL__KEEPS_NEVER, SL__STEP_PROD_I,
                SL__KEEPS_NEVER, 0)
SL__REDUCE_ROWS(amax, SL__STEP_AMAX_F, SL__KEEPS_AMAX_F, SL__STEP_AMAX_I,
                SL__KEEPS_AMAX_I, 0)
SL__REDUCE_ROWS(amin, SL__STEP_AMIN_F, SL__KEEPS_AMIN_F, SL__STEP_AMIN_I,
                SL__KEEPS_AMIN_I, 0)

/* sl__rows and sl__checked_rows: suffix empty or _checked. */
#define SL__ROW_TABLE(step, suffix)                                            \
  {                                                                            \
    {sl__rr_##step##_f32_i32##suffix, sl__rr_##step##_f32_i64##suffix},        \
        {sl__rr_##step##_f64_i32##suffix, sl__rr_##step##_f64_i64##suffix},    \
        {sl__rr_##step##_i32_i32##suffix, sl__rr_##step##_i32_i64##suffix},    \
        {sl__rr_##step##_i64_i32##suffix, sl__rr_##step##_i64_i64##suffix},    \
  }
static const sl__reduce_row_fn sl__rows[5][4][2] = {
    SL__ROW_TABLE(assign, ), SL__ROW_TABLE(sum, ), SL__ROW_TABLE(prod, ),
    SL__ROW_TABLE(amax, ), SL__ROW_TABLE(amin, )};
static const sl__checked_row_fn sl__checked_rows[5][4][2] = {
    SL__ROW_TABLE(assign, _checked), SL__ROW_TABLE(sum, _checked),
    SL__ROW_TABLE(prod, _checked), SL__ROW_TABLE(amax, _checked),
    SL__ROW_TABLE(amin, _checked)};

/* The half extremes: [amax, amin][f16, bf16][i32, i64]. */
#define SL__HALF_ROWS(step, STEP)                                              \
  SL__REDUCE_ROW(sl__rr_##step##_f16_i32, uint16_t, uint16_t, int32_t,         \
                 SL__STEP_##STEP##_F16, SL__KEEPS_##STEP##_F16, 0)             \
  SL__REDUCE_ROW(sl__rr_##step##_f16_i64, uint16_t, uint16_t, int64_t,         \
                 SL__STEP_##STEP##_F16, SL__KEEPS_##STEP##_F16, 0)             \
  SL__REDUCE_ROW(sl__rr_##step##_bf16_i32, uint16_t, uint16_t, int32_t,        \
                 SL__STEP_##STEP##_BF16, SL__KEEPS_##STEP##_BF16, 0)           \
  SL__REDUCE_ROW(sl__rr_##step##_bf16_i64, uint16_t, uint16_t, int64_t,        \
                 SL__STEP_##STEP##_BF16, SL__KEEPS_##STEP##_BF16, 0)
SL__HALF_ROWS(amax, AMAX)
SL__HALF_ROWS(amin, AMIN)
#define SL__HALF_TABLE(step)                                                   \
  {                                                                            \
    {sl__rr_##step##_f16_i32, sl__rr_##step##_f16_i64},                        \
        {sl__rr_##step##_bf16_i32, sl__rr_##step##_bf16_i64},                  \
  }
static const sl__reduce_row_fn sl__half_rows[2][2][2] = {SL__HALF_TABLE(amax),
                                                         SL__HALF_TABLE(amin)};

/* Plain writes move bytes: a dtype of 4 or 8 bytes takes the integer row
 * of its width (c64 the i64 one), and those of 1, 2 and 16 bytes have rows
 * of their own, [u8, u16, e16][i32, i64]. */
SL__REDUCE_ROW(sl__rr_assign_u8_i32, uint8_t, uint8_t, int32_t, SL__STEP_ASSIGN,
               SL__KEEPS_NEVER, 1)
SL__REDUCE_ROW(sl__rr_assign_u8_i64, uint8_t, uint8_t, int64_t, SL__STEP_ASSIGN,
               SL__KEEPS_NEVER, 1)
SL__REDUCE_ROW(sl__rr_assign_u16_i32, uint16_t, uint16_t, int32_t,
               SL__STEP_ASSIGN, SL__KEEPS_NEVER, 1)
SL__REDUCE_ROW(sl__rr_assign_u16_i64, uint16_t, uint16_t, int64_t,
               SL__STEP_ASSIGN, SL__KEEPS_NEVER, 1)
/* c128, 16 bytes: without a row of its own a plain write took the generic
 * per-element path (a division per decided axis). */
SL__REDUCE_ROW(sl__rr_assign_e16_i32, sl__e16, sl__e16, int32_t,
               SL__STEP_ASSIGN, SL__KEEPS_NEVER, 1)
SL__REDUCE_ROW(sl__rr_assign_e16_i64, sl__e16, sl__e16, int64_t,
               SL__STEP_ASSIGN, SL__KEEPS_NEVER, 1)
static const sl__reduce_row_fn sl__odd_copy_rows[3][2] = {
    {sl__rr_assign_u8_i32, sl__rr_assign_u8_i64},
    {sl__rr_assign_u16_i32, sl__rr_assign_u16_i64},
    {sl__rr_assign_e16_i32, sl__rr_assign_e16_i64}};

/* Where the row loop of (dt, r, index dtype, m) lies: 1 with sl__rows[*s]
 * [*d][*wide], 2 with sl__odd_copy_rows[*d][*wide], 0 for none. */
static int sl__row_slot(sl_dtype dt, sl_reduce r, sl_dtype index_dtype, int m,
                        int *s, int *d, int *wide) {
  const size_t es = sl_dtype_size(dt);
  const int copy = r == SL_REDUCE_NONE || r == SL_REDUCE_ASSIGN;
  *d = copy && es == 4   ? 2
       : copy && es == 8 ? 3
       : dt == SL_F32    ? 0
       : dt == SL_F64    ? 1
       : dt == SL_I32    ? 2
       : dt == SL_I64    ? 3
                         : -1;
  *s = copy                  ? 0
       : r == SL_REDUCE_SUM  ? 1
       : r == SL_REDUCE_PROD ? 2
       : r == SL_REDUCE_AMAX ? 3
       : r == SL_REDUCE_AMIN ? 4
                             : -1;
  *wide = index_dtype == SL_I64;
  if ((index_dtype != SL_I32 && !*wide) || m < 0 ||
      (m != 1 && !SL__ROWS_ND(*s)))
    return 0;
  if (copy && (es == 1 || es == 2 || es == 16)) {
    *d = es == 1 ? 0 : es == 2 ? 1 : 2;
    return 2;
  }
  return *d >= 0 && *s >= 0;
}

sl__reduce_row_fn sl__reduce_row_for(sl_dtype dt, sl_reduce r,
                                     sl_dtype index_dtype, int m) {
  int s, d, wide;
  switch (sl__row_slot(dt, r, index_dtype, m, &s, &d, &wide)) {
  case 1:
    return sl__rows[s][d][wide];
  case 2:
    return sl__odd_copy_rows[d][wide];
  default:
    return NULL;
  }
}

sl__checked_row_fn sl__checked_row_for(sl_dtype dt, sl_reduce r,
                                       sl_dtype index_dtype) {
  int s, d, wide;
  if (sl__row_slot(dt, r, index_dtype, 1, &s, &d, &wide) != 1) return NULL;
  return sl__checked_rows[s][d][wide];
}

/*
 * The bytes out moves a step along named axis d (an estimate, for
 * sl__row_axis_cost): none where the index does not move along d; where
 * it does, a line each unless the lookups of a row along d share lines
 * (out's span along d over the positions), those then `near` (o->near):
 * the next row's lookups land in the lines this row's did, if L1 holds
 * them (sl__row_axis_cost). Column-major updates into a last axis of 58
 * f32 (232 bytes a row of out) otherwise ran their rows along that axis,
 * a line of updates an element.
 */
static int64_t sl__lookup_step(const sl__scatter_walk *s, sl__row_order *o,
                               int d, unsigned varying) {
  if (!(varying >> d & 1u)) return 0;
  const int64_t per = o->shape[d] > 0 ? s->span[d] / o->shape[d] : 0;
  if (s->span[d] <= 0 || per >= 64) return 64;
  o->near |= 1u << d;
  o->near_lines[d] = (s->span[d] + 63) / 64;
  return per;
}

/*
 * The axis the slab's rows run along (walk_order.h), in a walk whose
 * shape is `shape`. Positions that may share a target agree on every axis
 * out moves along, and must keep their row-major order: rows may run along
 * any axis out moves along, or along the one axis it does not (scatter's
 * dim: a target's contributions then come in one row, in order), never
 * along one of several. A scatter i32 through a column-major src
 * [42,45,27,41] along dim 0 read src a line an element along the last
 * axis. Where only the last write counts (last_wins), a decided axis the
 * index does not move along changes no target: it is free to take the
 * rows, a row of one element each (scatter_nd u8 through an index
 * broadcast along axis 0 of a column-major src read src a line an
 * element along the last axis, at 0.5x LibTorch).
 */
static int sl__scatter_row_axis(const sl__scatter_walk *s,
                                const int64_t *shape) {
  const int K = s->ndim;
  const int64_t es = (int64_t)s->es, ies = (int64_t)s->ies;
  const int64_t *const st[3] = {s->ost, s->ist, s->sst};
  sl__row_order o = {.ndim = K, .shape = shape, .index = 1, .lookup = 0};
  o.row_start = s->row_start;
  o.index_lines = sl__row_index_lines(s->m, s->ik * ies);
  unsigned varying = 0; /* named axes along which the target may move */
  for (int d = 0; d < K; ++d) {
    if (s->ost[d] != 0 || shape[d] < 2) continue;
    o.named |= 1u << d;
    if (s->ist[d] != 0 || !s->last_wins) varying |= 1u << d;
  }
  o.movable = (varying & (varying - 1)) ? ~varying : ~0u;
  sl__row_order_steps(&o, st, es, ies);
  for (int d = 0; d < K; ++d)
    if (o.named >> d & 1u) o.step[0][d] = sl__lookup_step(s, &o, d, varying);
  return sl__row_axis(&o);
}

void sl__scatter_walk_slab(const sl__scatter_walk *s, int axis, int64_t a0,
                           int64_t a1) {
  const int K = s->ndim;
  int64_t shape[SL_MAX_DIMS], moved[4][SL_MAX_DIMS], base[3];
  for (int d = 0; d < K; ++d) shape[d] = s->shape[d];
  if (axis >= 0) shape[axis] = a1 - a0;
  const int r = sl__scatter_row_axis(s, shape);
  const int64_t *given[4] = {s->shape, s->ost, s->ist, s->sst};
  for (int k = 0; k < 4; ++k) sl__move_axis_last(K, r, given[k], moved[k]);
  const int64_t *st[3] = {moved[1], moved[2], moved[3]};
  const int at = axis < 0 || axis < r ? axis : axis == r ? K - 1 : axis - 1;
  sl__walk w;
  int64_t all = sl__walk_slab(&w, K, moved[0], 3, st, at, a0, a1, base);
  int64_t es = (int64_t)s->es, ies = (int64_t)s->ies;
  sl__rows_block b = {0};
  b.od = s->od;
  b.m = s->m;
  b.ik = s->ik;
  b.wide = s->wide;
  b.oc = sl__walk_step(&w, 0);
  b.ic = sl__walk_step(&w, 1);
  b.sc = sl__walk_step(&w, 2);
  b.or_ = sl__walk_row_step(&w, 0);
  b.ir = sl__walk_row_step(&w, 1);
  b.sr = sl__walk_row_step(&w, 2);
  for (int64_t left = all; left > 0; sl__walk_next_rows(&w, b.rows)) {
    b.rows = sl__walk_rows(&w, left, &b.n);
    left -= b.rows * b.n;
    s->row(sl__at(s->out, (base[0] + sl__walk_at(&w, 0)) * es),
           sl__at(s->index, (base[1] + sl__walk_at(&w, 1)) * ies),
           sl__at(s->src, (base[2] + sl__walk_at(&w, 2)) * es), &b);
  }
}

unsigned sl__scatter_walk_init(sl__scatter_walk *s, const sl_call *c, int ndim,
                               int m, const int64_t *axes, int64_t ik,
                               int64_t *ost, int64_t *od) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  unsigned fixed = 0;
  for (int d = 0; d < ndim; ++d) ost[d] = out->strides[d];
  for (int k = 0; k < m; ++k) {
    /* A rank-0 scatter decides "axis 0" of a scalar out: stride 0. */
    /* Extent 1: every valid index is 0, so the stride is 0 too, which tells
     * the rows that all of a row's positions go to one element. */
    od[k] = axes[k] < out->ndim && out->shape[axes[k]] > 1
                ? out->strides[axes[k]]
                : 0;
    if (axes[k] < ndim) ost[axes[k]] = 0; /* the index decides there */
    fixed |= 1u << axes[k];
  }
  memset(s, 0, sizeof *s);
  s->row_start = SL__ROWS_ROW_START;
  s->ndim = ndim;
  s->shape = index->shape;
  s->out = (char *)out->data;
  s->ost = ost;
  s->od = od;
  s->m = m;
  s->es = sl_dtype_size(out->dtype);
  s->index = (const char *)index->data;
  s->ist = index->strides;
  s->ik = ik;
  s->ies = sl_dtype_size(index->dtype);
  s->src = (const char *)src->data;
  s->sst = src->strides;
  s->out_bytes = sl__numel(out) * (int64_t)s->es;
  for (int k = 0; k < m; ++k)
    if (axes[k] < ndim && axes[k] < out->ndim)
      s->span[axes[k]] =
          out->shape[axes[k]] * (od[k] < 0 ? -od[k] : od[k]) * (int64_t)s->es;
  s->last_wins =
      c->p.reduce == SL_REDUCE_NONE || c->p.reduce == SL_REDUCE_ASSIGN;
  return fixed;
}

void sl__scatter_walk_run(const sl__scatter_walk *s, const sl__slabs *sl) {
  const int last =
      sl->axis >= 0 && sl->axis == s->ndim - 1 && s->ost[sl->axis] == 1;
  const int64_t panel =
      last ? sl__panel_width(s->out_bytes, s->shape[sl->axis], s->es) : 0;
#pragma omp parallel for num_threads(sl->team)                                 \
    schedule(static) if (sl->team > 1)
  for (int t = 0; t < sl->team; ++t) {
    const int64_t a0 = sl->cut[t], a1 = sl->cut[t + 1];
    if (!panel) { /* also the whole walk of axis -1 */
      sl__scatter_walk_slab(s, sl->axis, a0, a1);
      continue;
    }
    const int64_t count = sl__panel_count(a0, a1, panel);
    for (int64_t k = 0; k < count; ++k) {
      int64_t p0, p1;
      sl__panel_at(a0, a1, count, k, &p0, &p1);
      sl__scatter_walk_slab(s, sl->axis, p0, p1);
    }
  }
}

/* Rows of out copied at a time ahead of the walk: about a core's L2 share
 * before the walk's other streams push them out. */
#define SL__COPY_AHEAD_BYTES ((int64_t)SL__TH_COPY_AHEAD)

int sl__scatter_walk_run_copying(const sl__scatter_walk *s, const sl__slabs *sl,
                                 sl_tensor *out, const sl_tensor *x,
                                 int threads) {
  if (s->ndim < 2 || out->ndim != s->ndim || s->ost[0] == 0 ||
      (sl->team > 1 && sl->axis != 0) || x->dtype != out->dtype ||
      !sl_tensor_is_contiguous(out) || !sl_tensor_is_contiguous(x))
    return 0;
  for (int d = 0; d < out->ndim; ++d)
    if (x->shape[d] != out->shape[d]) return 0;
  const int64_t rows = s->shape[0],
                row_bytes = out->strides[0] * (int64_t)s->es;
  if (rows <= 0 || row_bytes <= 0) return 0;
  if (out->shape[0] > rows) { /* rows no position reaches */
    sl_tensor to = *out, from = *x;
    to.shape[0] = from.shape[0] = out->shape[0] - rows;
    to.data = (char *)out->data + rows * row_bytes;
    from.data = (char *)x->data + rows * row_bytes; /* only read */
    sl__copy_strided(&to, &from, threads);
  }
  const int64_t step = SL__COPY_AHEAD_BYTES / row_bytes > 1
                           ? SL__COPY_AHEAD_BYTES / row_bytes
                           : 1;
  const int team = sl->axis == 0 ? sl->team : 1;
  const int64_t whole[2] = {0, rows}, *cut = sl->axis == 0 ? sl->cut : whole;
  char *o = out->data;
  const char *from = x->data;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int t = 0; t < team; ++t)
    for (int64_t a = cut[t]; a < cut[t + 1]; a += step) {
      const int64_t e = a + step < cut[t + 1] ? a + step : cut[t + 1];
      memcpy(o + a * row_bytes, from + a * row_bytes,
             (size_t)((e - a) * row_bytes));
      sl__scatter_walk_slab(s, 0, a, e);
    }
  return 1;
}

/* An element-wise pass over n contiguous elements of out: out[j] =
 * out[j] ⊕ src[j * sc] (sc = 0: one value for all), by a row loop whose
 * index is a single zero. */
static void sl__rows_elementwise(sl__reduce_row_fn row, char *out,
                                 const char *src, int64_t n, int64_t sc) {
  static const int64_t zero = 0;
  sl__rows_block b = {0};
  b.n = n;
  b.rows = 1;
  b.oc = 1;
  b.sc = sc;
  b.od = &zero;
  b.m = 1;
  row(out, (const char *)&zero, src, &b);
}

/* The combine of the private copies: [begin, end) of out gets copy 1, 2,
 * ... in part order. */
typedef struct sl__private_merge {
  sl__reduce_row_fn row;
  char *out;
  const char *copies;
  int64_t numel, stride; /* stride: bytes from one copy to the next */
  int count;
  size_t es;
} sl__private_merge;

static void sl__private_merge_chunk(void *user, int64_t begin, int64_t end) {
  const sl__private_merge *m = user;
  int64_t at = begin * (int64_t)m->es;
  for (int k = 0; k < m->count; ++k)
    sl__rows_elementwise(m->row, m->out + at, m->copies + k * m->stride + at,
                         end - begin, 1);
}

/* Worth privatizing: many contributions per element of a contiguous out
 * small enough to copy per part. */
#define SL__PRIVATE_MIN_RATIO 4
#define SL__PRIVATE_MAX_BYTES ((int64_t)64 << 20)
/* A float sum or product is cut into at most this many parts, and one
 * more part per 32 contributions per element of out: filling and merging
 * a copy costs two passes over out, so the copies add at most a sixteenth
 * of the walk (half at the 4:1 minimum, where there are two parts).
 * Measured with `scatterlab ab` against one part per thread on 2 threads:
 * at 8 contributions per part the standard scatter_reduce sum (64 per
 * element) read 1.086 [1.077, 1.097] slower; at 32 its two parts are the
 * two threads' of before. */
#define SL__PRIVATE_MAX_PARTS 16
#define SL__PRIVATE_RATIO_PER_PART 32

/*
 * How many parts the privatized reduction cuts index axis 0 into, 0 when
 * the call does not qualify. For a float sum or product (reassoc) a
 * function of the call alone, never of the thread count, so that the
 * terms, re-associated part by part, give the same bits on any number of
 * threads, and cpu.omp's SL_DETERMINISTIC holds across thread counts (a
 * campaign once read other bits with 4 threads than with 1, when there was
 * one part per thread). For the reduces where grouping cannot change a bit
 * (amax, amin, integers): one part per thread of the team.
 */
static int sl__private_parts(int64_t rows, int64_t positions, int64_t numel,
                             size_t es, int own, int reassoc, int threads) {
  if (positions < SL__PRIVATE_MIN_RATIO * numel) return 0;
  int64_t parts = reassoc ? positions / (SL__PRIVATE_RATIO_PER_PART * numel)
                          : sl__team(threads, positions);
  if (reassoc && parts < 2) parts = 2;
  if (reassoc && parts > SL__PRIVATE_MAX_PARTS) parts = SL__PRIVATE_MAX_PARTS;
  if (parts > rows) parts = rows;
  if (parts > positions / SL__TH_TEAM) parts = positions / SL__TH_TEAM;
  /* parts - 1 + own copies of out within the memory cap */
  const int64_t most = SL__PRIVATE_MAX_BYTES / (int64_t)es / numel + 1 - own;
  if (parts > most) parts = most;
  return parts < 2 ? 0 : (int)parts;
}

/* Whether the reduce's result depends on the grouping of its terms: a
 * float sum or product (f32, f64: the row path's float types). */
static int sl__reduce_reassociates(sl_dtype dt, sl_reduce r) {
  return (dt == SL_F32 || dt == SL_F64) &&
         (r == SL_REDUCE_SUM || r == SL_REDUCE_PROD);
}

/* Index positions checked per block by the fused check: 64 KiB of int64,
 * still in L1/L2 when the walk reads them right after. The vectorized
 * check streams the block in faster than the scattered walk would, so the
 * fused pass beats even an unchecked walk (10 vs 12.5 ms on the standard
 * scatter_reduce sum, a hand-written pair of loops). */
#define SL__CHECK_BLOCK ((int64_t)SL__TH_CHECK_BLOCK)

static int64_t sl__walk_slab_checked(const sl__scatter_walk *s,
                                     const sl_tensor *index, int64_t bound,
                                     int64_t a0, int64_t a1);

/* Rows [a0, a1) of axis 0 one at a time, each walked as a walk of the
 * other axes a block at a time (a row's positions in row-major order are
 * the row's own): a row of many blocks, checked whole, would be out of
 * the caches again when the walk reads it. */
static int64_t sl__walk_rows_checked(const sl__scatter_walk *s,
                                     const sl_tensor *index, int64_t bound,
                                     int64_t a0, int64_t a1) {
  const int64_t inner = sl__numel(index) / index->shape[0];
  const int64_t es = (int64_t)s->es, ies = (int64_t)s->ies;
  sl__scatter_walk row = *s;
  row.ndim = s->ndim - 1;
  row.shape = s->shape + 1;
  row.ost = s->ost + 1, row.ist = s->ist + 1, row.sst = s->sst + 1;
  sl_tensor sub = *index;
  sub.ndim = index->ndim - 1;
  for (int d = 0; d < sub.ndim; ++d)
    sub.shape[d] = index->shape[d + 1], sub.strides[d] = index->strides[d + 1];
  for (int64_t r = a0; r < a1; ++r) {
    row.out = s->out + r * s->ost[0] * es;
    row.index = s->index + r * s->ist[0] * ies;
    row.src = s->src + r * s->sst[0] * es;
    sub.data = (char *)index->data + r * index->strides[0] * ies;
    const int64_t bad =
        sl__walk_slab_checked(&row, &sub, bound, 0, sub.shape[0]);
    if (bad >= 0) return r * inner + bad;
  }
  return -1;
}

/* Walks index rows [a0, a1) of axis 0 a block at a time, checking each
 * block's values against [0, bound) before walking it; a row along its own
 * axis goes by its checked row loop (s->checked), which tests each value
 * as it steps. Returns the first bad position (row-major) having stopped
 * there, or -1. */
static int64_t sl__walk_slab_checked(const sl__scatter_walk *s,
                                     const sl_tensor *index, int64_t bound,
                                     int64_t a0, int64_t a1) {
  if (s->checked && s->ndim == 1 && s->m == 1 && s->ost[0] == 0 &&
      s->ist[0] == 1 && s->sst[0] == 1) { /* a row along its own axis */
    const int64_t at = s->checked(s->out, s->index + a0 * (int64_t)s->ies,
                                  s->src + a0 * (int64_t)s->es, a1 - a0,
                                  s->od[0], (uint64_t)bound);
    return at < 0 ? -1 : a0 + at;
  }
  const int64_t inner = sl__numel(index) / index->shape[0];
  if (inner >= 2 * SL__CHECK_BLOCK && index->ndim >= 2 && s->ndim >= 2)
    return sl__walk_rows_checked(s, index, bound, a0, a1);
  const int64_t rows = inner >= SL__CHECK_BLOCK ? 1 : SL__CHECK_BLOCK / inner;
  for (int64_t r0 = a0; r0 < a1; r0 += rows) {
    const int64_t r1 = a1 - r0 < rows ? a1 : r0 + rows;
    const int64_t bad =
        sl__index_first_bad(index, r0 * inner, r1 * inner, bound);
    if (bad >= 0) return bad;
    sl__scatter_walk_slab(s, 0, r0, r1);
  }
  return -1;
}

/*
 * Privatized reduction: index axis 0 is cut into parts (sl__private_parts),
 * contiguous stretches of the row-major order; part 0 is reduced into out
 * itself and the others into buffers of the reduce's neutral element, by a
 * team of threads, then the copies are combined into out in part order.
 * Every element thus takes its contributions in row-major order, grouped by
 * part: exact for amax, amin and the integer reduces, re-associated (a
 * deterministic sum of partial sums, the same on any number of threads)
 * for float sum and prod, which therefore take this plan on one thread
 * too. For calls with many contributions per output element, where slabs
 * that never share an element are few or none (a 1-D index cannot be split
 * at all). Returns 0, having done nothing, when the call does not qualify.
 *
 * With bad != NULL the index values are unchecked: part 0 gets a copy too,
 * each block is checked before it is walked (sl__walk_slab_checked), and
 * out (x copied, then the copies combined) is written only when every value
 * passed; *bad is the first bad position or -1.
 */
static int sl__scatter_reduce_private(const sl__scatter_walk *s, sl_call *c,
                                      int threads, int64_t *bad) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[3];
  const sl_reduce r = c->p.reduce;
  const int64_t numel = sl__numel(out), positions = sl__numel(index);
  if (r == SL_REDUCE_NONE || r == SL_REDUCE_ASSIGN || index->ndim == 0 ||
      numel == 0 || !sl_tensor_is_contiguous(out) ||
      (threads < 2 && !sl__reduce_reassociates(out->dtype, r)))
    return 0;
  const int own = bad != NULL; /* part 0 works in a copy as well */
  const int parts =
      sl__private_parts(index->shape[0], positions, numel, s->es, own,
                        sl__reduce_reassociates(out->dtype, r), threads);
  if (!parts) return 0;
  const int team = threads < parts ? threads : parts;
  const int ncopies = parts - 1 + own;
  /* Each copy on lines of its own: a small out's copies, packed, shared
   * lines that every thread's writes pulled back and forth. */
  const size_t bytes = ((size_t)numel * s->es + 63) & ~(size_t)63;
  char *block = sl__malloc((size_t)ncopies * bytes + 63);
  if (!block) return 0; /* the slabs do without */
  char *copies = block + (-(uintptr_t)block & 63);
  _Alignas(16) unsigned char neutral[16];
  sl__reduce_set_identity(out->dtype, r, neutral);
  if (r == SL_REDUCE_SUM && out->dtype == SL_F32) {
    const float nz = -0.0f; /* x + -0 is x for every x, -0 included */
    memcpy(neutral, &nz, sizeof nz);
  } else if (r == SL_REDUCE_SUM && out->dtype == SL_F64) {
    const double nz = -0.0;
    memcpy(neutral, &nz, sizeof nz);
  }
  sl__reduce_row_fn fill =
      sl__reduce_row_for(out->dtype, SL_REDUCE_ASSIGN, SL_I64, 1);
  const int64_t bound = x->ndim ? x->shape[c->p.dim] : 1;
  int64_t first_bad = INT64_MAX;
#pragma omp parallel for num_threads(team) schedule(static)                    \
    reduction(min                                                              \
              : first_bad)
  for (int p = 0; p < parts; ++p) {
    sl__scatter_walk mine = *s;
    if (p > 0 || own) {
      mine.out = copies + (size_t)(p - 1 + own) * bytes;
      sl__rows_elementwise(fill, mine.out, (const char *)neutral, numel, 0);
    }
    int64_t a0, a1;
    sl__chunk(index->shape[0], parts, p, &a0, &a1);
    if (!own) {
      sl__scatter_walk_slab(&mine, 0, a0, a1);
      continue;
    }
    /* Parts run in row-major order: the earliest bad part holds the first. */
    const int64_t at = sl__walk_slab_checked(&mine, index, bound, a0, a1);
    if (at >= 0 && at < first_bad) first_bad = at;
  }
  if (own) {
    *bad = first_bad == INT64_MAX ? -1 : first_bad;
    if (*bad < 0) sl__copy_strided(&c->arg[3], x, threads);
  }
  if (!own || *bad < 0) {
    sl__private_merge m = {sl__reduce_row_for(out->dtype, r, SL_I64, 1),
                           s->out,
                           copies,
                           numel,
                           (int64_t)bytes,
                           ncopies,
                           s->es};
    sl__for_chunks(threads, numel, sl__private_merge_chunk, &m);
  }
  sl__free(block);
  return 1;
}

/* A slice (the positions at one coordinate on dim) worth a walk of its
 * own: below this, the per-slice set-up outweighs the rows. */
#define SL__TARGET_MIN_SLICE ((int64_t)SL__TH_TARGET_SLICE)

int sl__index_along_dim_only(const sl_tensor *index, const sl_tensor *out,
                             int dim) {
  if (index->ndim == 0 || out->ndim != index->ndim) return 0;
  for (int d = 0; d < index->ndim; ++d)
    if (d != dim && index->strides[d] != 0 && index->shape[d] > 1) return 0;
  return 1;
}

/* The team that splits by target (below) would take, or 0 when the call
 * does not qualify. */
static int sl__by_target_team(const sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  if (threads < 2 || !sl__index_along_dim_only(index, out, dim)) return 0;
  const int64_t m = index->shape[dim], targets = out->shape[dim];
  const int64_t positions = sl__numel(index);
  if (m == 0 || positions / m < SL__TARGET_MIN_SLICE) return 0;
  int team = sl__team(threads, positions);
  if (team > targets) team = (int)targets;
  /* With fewer index values than threads some thread has no slice; the
   * slabs keep every thread busy. */
  return team < 2 || m < team ? 0 : team;
}

/*
 * Split by target: when the index varies along dim only (index_reduce's
 * broadcast view), the positions at coordinate i on dim all go to out's
 * slice index[i]. Thread t takes the slices whose target lies in its share
 * of out's dim, in increasing i: no element has two writers and each keeps
 * the order of its contributions, as in the serial walk, while every
 * thread streams whole slices (the slabs would cut every row in two).
 * Returns 0, having done nothing, when the call does not qualify.
 */
static int sl__scatter_reduce_by_target(const sl__scatter_walk *s,
                                        const sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  const int dim = (int)c->p.dim, team = sl__by_target_team(c, threads);
  if (!team) return 0;
  const int64_t m = index->shape[dim], targets = out->shape[dim];
  const int64_t step = index->strides[dim];
#pragma omp parallel for num_threads(team) schedule(static)
  for (int t = 0; t < team; ++t) {
    int64_t d0, d1;
    sl__chunk(targets, team, t, &d0, &d1);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t v = sl__load_index(index, i * step);
      if (v >= d0 && v < d1) sl__scatter_walk_slab(s, dim, i, i + 1);
    }
  }
  return 1;
}

/*
 * include_self=false's identity, written once per target slice when the
 * index varies along dim only (index_reduce's broadcast view): the slice
 * index[i] gets first's walk (the identity, no src) once, from any i naming
 * it. The general pass writes every position instead, rewriting a slice
 * once per index value naming it: 16 times on the standard index_reduce
 * amax, 1.3 of its 2.5 ms. Each thread first marks, in a table of its own,
 * one i naming each target of its share of the index (namer[v] = i + 1,
 * 0: none; every i naming v walks the same positions); then the threads
 * split the targets and walk each one that some table marks. Each thread
 * testing every index value against its own range of targets instead cost
 * twice as much (with a random index half of those tests mispredict), and
 * one table for all threads bounced its lines between them. Returns 0,
 * having done nothing, when the call does not qualify.
 */
static int sl__fill_targets_once(const sl__scatter_walk *first,
                                 const sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  if (!sl__index_along_dim_only(index, out, dim)) return 0;
  /* No position (an index like [6, 0]): no target, and no index value to
   * read either, though index's extent on dim is 6. */
  if (sl__numel(index) == 0) return 1;
  /* Positions whose values passed the check: out has a target at least. */
  const int64_t m = index->shape[dim], targets = out->shape[dim];
  /* The general pass does without; it is cheaper than the tables when out
   * has more targets than the index has positions. */
  if (m >= (int64_t)UINT32_MAX || targets > sl__numel(index)) return 0;
  const int team = sl__team(threads, sl__numel(index));
  uint32_t *namers = sl__calloc((size_t)team * (size_t)targets, sizeof *namers);
  if (!namers) return 0;
  const int64_t step = index->strides[dim];
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int t = omp_get_thread_num(), parts = omp_get_num_threads();
    uint32_t *namer = namers + (size_t)t * (size_t)targets;
    int64_t b, e;
    sl__chunk(m, parts, t, &b, &e);
    for (int64_t i = b; i < e; ++i)
      namer[sl__load_index(index, i * step)] = (uint32_t)(i + 1);
#pragma omp barrier
    sl__chunk(targets, parts, t, &b, &e);
    for (int64_t v = b; v < e; ++v) {
      int64_t i = 0;
      for (int k = 0; k < parts && !i; ++k)
        i = namers[(size_t)k * (size_t)targets + (size_t)v];
      if (i) sl__scatter_walk_slab(first, dim, i - 1, i);
    }
  }
  sl__free(namers);
  return 1;
}

/* Whether the slabs cut index (and src) on an axis other than the last,
 * into contiguous stretches: then each thread streams its own part and
 * owns its part of out, which beats private copies and their merge
 * (scatter_reduce sum along the last axis, 64x65536 i64 into 64x4096 f32,
 * cpu.omp: 2.0 -> 1.3 ms). A cut of the last axis would have every thread
 * stream every row. */
static int sl__slabs_stream(const sl__slabs *sl, int ndim) {
  return sl->team >= 2 && sl->axis >= 0 && sl->axis < ndim - 1;
}

/* Whether the call goes by streamed slabs (sl__slabs_stream) rather than
 * the private copies. Slabs keep each element's terms in row-major order,
 * the copies group them by part, so for a float sum or product the choice
 * must not depend on the thread count, nor on where out lies: it is the
 * choice two threads would make for an out at address 0. */
static int sl__rows_stream(const sl__slabs *sl, const sl_call *c,
                           unsigned fixed) {
  const sl_tensor *index = &c->arg[1];
  if (!sl__reduce_reassociates(c->arg[3].dtype, c->p.reduce))
    return sl__slabs_stream(sl, index->ndim);
  sl_tensor nowhere = c->arg[3];
  nowhere.data = NULL;
  sl__slabs two;
  sl__slabs_plan(&two, index->ndim, index->shape, &nowhere, fixed, 2);
  return sl__slabs_stream(&two, index->ndim);
}

/*
 * Slabs along index axis 0 with an out small beside the index: the walk
 * goes into a copy of x, each block of the index checked as it streams in
 * (sl__walk_slab_checked), and out takes the copy only when every value
 * passed, so nothing is written before the check. Saves the separate pass
 * over the index, which on the standard last-axis scatter_reduce sum (an
 * i64 index 32 times out's bytes) was a third of cpu.omp's time. Returns
 * 0, having done nothing, when the call does not qualify; else 1 and *bad
 * as sl__scatter_reduce_private.
 */
#define SL__CHECKED_MIN_RATIO 4
static int sl__scatter_reduce_slabs_checked(const sl__scatter_walk *s,
                                            sl_call *c, const sl__slabs *sl,
                                            int threads, int64_t *bad) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[3];
  const int64_t bytes = sl__numel(out) * (int64_t)s->es;
  const int64_t index_bytes = sl__numel(index) * (int64_t)s->ies;
  if (sl->axis != 0 || index->ndim < 2 || !sl_tensor_is_contiguous(out) ||
      index_bytes < SL__CHECKED_MIN_RATIO * bytes ||
      bytes > SL__PRIVATE_MAX_BYTES)
    return 0;
  sl_tensor copy = *out;
  if (!(copy.data = sl__malloc((size_t)bytes))) return 0;
  sl__copy_strided(&copy, x, threads);
  sl__scatter_walk mine = *s;
  mine.out = copy.data;
  const int64_t bound = x->shape[c->p.dim];
  int64_t first_bad = INT64_MAX;
#pragma omp parallel for num_threads(sl->team) schedule(static)                \
    reduction(min                                                              \
              : first_bad) if (sl->team > 1)
  for (int t = 0; t < sl->team; ++t) {
    const int64_t at =
        sl__walk_slab_checked(&mine, index, bound, sl->cut[t], sl->cut[t + 1]);
    if (at >= 0 && at < first_bad) first_bad = at;
  }
  *bad = first_bad == INT64_MAX ? -1 : first_bad;
  if (*bad < 0) sl__copy_strided(&c->arg[3], &copy, threads);
  sl__free(copy.data);
  return 1;
}

/* The index walked in row-major order a block of rows at a time, split among
 * threads in slabs that never share an output element (sl__slabs_plan), so
 * each element still combines its contributions in row-major order. */
static int sl__scatter_reduce_rows_with(sl_call *c, sl__reduce_row_fn row,
                                        int threads, int parted) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  if (!row) return 0;
  int64_t ost[SL_MAX_DIMS], zero[SL_MAX_DIMS] = {0}, od;
  sl__scatter_walk s;
  unsigned fixed =
      sl__scatter_walk_init(&s, c, index->ndim, 1, &c->p.dim, 0, ost, &od);
  s.row = row;
  sl__slabs sl;
  sl__slabs_plan(&sl, index->ndim, index->shape, out, fixed, threads);
  const int assign =
      c->p.reduce == SL_REDUCE_NONE || c->p.reduce == SL_REDUCE_ASSIGN;
  /* The plain slab walk, with nothing before it but the copy of x: each
   * slab right after its rows are copied, while they are still cached. */
  if ((assign || (c->p.include_self && !parted)) &&
      !sl__by_target_team(c, threads) &&
      sl__scatter_walk_run_copying(&s, &sl, &c->arg[3], &c->arg[0], threads))
    return 1;
  const int fill = !c->p.include_self && !assign;
  _Alignas(16) unsigned char identity[16];
  if (fill) sl__reduce_set_identity(out->dtype, c->p.reduce, identity);
  /* out := x, with the identity where the walk goes when fill */
  const int started = fill && sl__copy_identity_targets(c, identity, threads);
  if (!started) sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (fill && !started) {
    sl__scatter_walk first = s;
    first.row =
        sl__reduce_row_for(out->dtype, SL_REDUCE_ASSIGN, index->dtype, 1);
    first.src = (const char *)identity;
    first.sst = zero;
    if (!sl__fill_targets_once(&first, c, threads))
      sl__scatter_walk_run(&first, &sl);
  }
  if (sl__rows_stream(&sl, c, fixed) ||
      ((!parted || !sl__scatter_reduce_private(&s, c, threads, NULL)) &&
       !sl__scatter_reduce_by_target(&s, c, threads)))
    sl__scatter_walk_run(&s, &sl);
  return 1;
}

int sl__scatter_reduce_rows(sl_call *c, int threads, int parted) {
  return sl__scatter_reduce_rows_with(
      c, sl__reduce_row_for(c->arg[3].dtype, c->p.reduce, c->arg[1].dtype, 1),
      threads, parted);
}

int sl__scatter_reduce_half_extremes(sl_call *c, int threads, int parted) {
  const sl_dtype dt = c->arg[3].dtype;
  const sl_reduce r = c->p.reduce;
  if ((dt != SL_F16 && dt != SL_BF16) ||
      (r != SL_REDUCE_AMAX && r != SL_REDUCE_AMIN) ||
      (c->arg[1].dtype != SL_I32 && c->arg[1].dtype != SL_I64) ||
      sl__numel(&c->arg[1]) * 4 >= sl__numel(&c->arg[3]))
    return 0;
  const sl__reduce_row_fn row =
      sl__half_rows[r == SL_REDUCE_AMIN][dt == SL_BF16]
                   [c->arg[1].dtype == SL_I64];
  return sl__scatter_reduce_rows_with(c, row, threads, parted);
}

int sl__scatter_reduce_rows_unchecked(sl_call *c, int threads, int64_t *bad) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  sl__reduce_row_fn row =
      sl__reduce_row_for(out->dtype, c->p.reduce, index->dtype, 1);
  if (!row || !c->p.include_self) return 0;
  int64_t ost[SL_MAX_DIMS], od;
  sl__scatter_walk s;
  unsigned fixed =
      sl__scatter_walk_init(&s, c, index->ndim, 1, &c->p.dim, 0, ost, &od);
  sl__slabs sl;
  sl__slabs_plan(&sl, index->ndim, index->shape, out, fixed, threads);
  s.row = row;
  s.checked = sl__checked_row_for(out->dtype, c->p.reduce, index->dtype);
  if (sl__rows_stream(&sl, c, fixed))
    return sl__scatter_reduce_slabs_checked(&s, c, &sl, threads, bad);
  return sl__scatter_reduce_private(&s, c, threads, bad);
}
