/*
 * The case descriptor: one operator call described by one line of text.
 *
 *   scatter_reduce dt=f32 it=i64 x=4x3 index=2x3:t src=2x3 dim=0 reduce=amax
 *       self=0 ip=dup50 dp=nan seed=7
 *
 * Keys, printed in this order (parse -> print is the identity on them):
 *   dt=DTYPE        data dtype (x, src, updates, value, source, feats)
 *   it=DTYPE        index dtype (ops with an index tensor)
 *   NAME=SHAPE[:L]  shape of each generated input, named as in docs/spec.md
 *                   (x=4x3, index=2x3, src=..., updates=..., value=...,
 *                   mask=..., source=..., feats=NxC, coors=NxD); SHAPE is
 *                   `4x3`, `0x5` or `scalar`; L is the memory layout: t
 *                   (transposed: column-major), s<k> (the last dim stepped
 *                   by k), b (broadcast: dim 0 has stride 0), o<k>
 *                   (overlapped, k = 2..16: dim 0 steps by ceil(n1 / k)
 *                   of dim 1's rows, n1 its extent, so that neighbours
 *                   along dim 0 share rows, as unfold and as_strided
 *                   views do; rank < 2: contiguous); contiguous when
 *                   absent
 *   dim=N dims=A,B reduce=NAME self=0|1 at=N val=NUMBER   op parameters
 *                   (val= for an integer dt= must be an integer literal)
 *   form=offsets    segment ops: the lengths tensor holds offsets (S + 1 per
 *                   row) rather than lengths; val= is their `initial`
 *   voxels=V        dynamic ops: coors holds exactly V distinct voxels, every
 *                   row valid and every voxel hit (seed 004: 17176 points,
 *                   13743 voxels); absent, the index pattern shapes coors
 *   ip=PATTERN      index values: rand unique sorted zipf one dup<P> (P% of
 *                   positions repeat a few targets) oob (one value out of
 *                   range: an invalid case) neg (one negative value) high
 *                   (values from the top sixteenth of the range: the
 *                   offsets past 2^31 of a --huge case)
 *   dp=PATTERN      data values: rand nan inf negzero ext (integer extremes)
 *                   zero
 *   seed=N          the seed of every generated value
 *
 * The printed line is the repro: `scatterlab run '<line>'`.
 */
#ifndef SL_CASE_H
#define SL_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "sl/sl.h"

/* Most voxels a case may ask for: their coordinates stay below 2^31. */
#define SL_CASE_MAX_VOXELS ((int64_t)1 << 30)

/* Longest printed case line (with the terminating NUL). */
#define SL_CASE_LINE_MAX 1024

typedef enum sl_layout {
  SL_LAYOUT_CONTIGUOUS = 0,
  SL_LAYOUT_TRANSPOSED,
  SL_LAYOUT_STEPPED,
  SL_LAYOUT_BROADCAST,
  SL_LAYOUT_OVERLAPPED
} sl_layout;

#define SL_INDEX_PATTERN_MAP(X)                                                \
  X(RAND, rand)                                                                \
  X(UNIQUE, unique)                                                            \
  X(SORTED, sorted)                                                            \
  X(ZIPF, zipf)                                                                \
  X(ONE, one)                                                                  \
  X(DUP, dup)                                                                  \
  X(OOB, oob)                                                                  \
  X(NEG, neg)                                                                  \
  X(HIGH, high)

typedef enum sl_index_pattern {
#define SL__IP_ENUM(e, name) SL_IP_##e,
  SL_INDEX_PATTERN_MAP(SL__IP_ENUM)
#undef SL__IP_ENUM
      SL_IP_COUNT
} sl_index_pattern;

/*
 * The bad value of ip=oob<k> / ip=neg<k> (k = 0 prints as plain oob / neg),
 * the classes of index values that real kernels got wrong (32-bit offsets,
 * sign handling): oob: the axis's extent, INT32_MAX, 2^31, 2^32,
 * INT64_MAX; neg: -1, minus the extent, INT32_MIN, INT64_MIN. An i32 index
 * takes the nearest value it holds. Label: the name in coverage cells.
 */
#define SL_IP_OOB_VALUES(X)                                                    \
  X(0, "extent")                                                               \
  X(INT32_MAX, "int32_max")                                                    \
  X((int64_t)1 << 31, "2^31")                                                  \
  X((int64_t)1 << 32, "2^32")                                                  \
  X(INT64_MAX, "int64_max")
#define SL_IP_NEG_VALUES(X)                                                    \
  X(-1, "-1")                                                                  \
  X(0, "-extent")                                                              \
  X(INT32_MIN, "int32_min")                                                    \
  X(INT64_MIN, "int64_min")
#define SL__IP_COUNT_ONE(v, label) +1
enum {
  SL_IP_OOB_KINDS = 0 SL_IP_OOB_VALUES(SL__IP_COUNT_ONE),
  SL_IP_NEG_KINDS = 0 SL_IP_NEG_VALUES(SL__IP_COUNT_ONE)
};

/* The bad index value of pattern ip (SL_IP_OOB or SL_IP_NEG) with param k,
 * for an axis of `extent`, in an index of dtype it (SL_I32 clamps). */
int64_t sl_ip_bad_value(sl_index_pattern ip, int k, int64_t extent,
                        sl_dtype it);
/* Its label ("2^31"), for coverage cells. */
const char *sl_ip_bad_label(sl_index_pattern ip, int k);

#define SL_DATA_PATTERN_MAP(X)                                                 \
  X(RAND, rand)                                                                \
  X(NAN, nan)                                                                  \
  X(INF, inf)                                                                  \
  X(NEGZERO, negzero)                                                          \
  X(EXT, ext)                                                                  \
  X(ZERO, zero)                                                                \
  X(TIE, tie)                                                                  \
  X(SUB, sub)

typedef enum sl_data_pattern {
#define SL__DP_ENUM(e, name) SL_DP_##e,
  SL_DATA_PATTERN_MAP(SL__DP_ENUM)
#undef SL__DP_ENUM
      SL_DP_COUNT
} sl_data_pattern;

/* Shape and layout of one generated input. */
typedef struct sl_case_shape {
  int present;
  int ndim;
  int64_t shape[SL_MAX_DIMS];
  sl_layout layout;
  int step; /* SL_LAYOUT_STEPPED: the step, >= 2; SL_LAYOUT_OVERLAPPED: k */
} sl_case_shape;

/* Whether s is laid out broadcast (:b). For files that also include
 * sl/sl_provider.h, whose capability macro SL_LAYOUT_BROADCAST (1u << 1)
 * hides this enum's constant of the same name from there on. */
static inline int sl_case_shape_broadcast(const sl_case_shape *s) {
  return s->layout == SL_LAYOUT_BROADCAST;
}

typedef struct sl_case {
  sl_op op;
  sl_dtype dt;
  sl_dtype it;
  sl_case_shape arg[SL_MAX_ARGS]; /* by the op's slot (sl_op_arg) */
  int64_t dim;
  int ndims;
  int64_t dims[SL_MAX_DIMS];
  sl_reduce reduce;
  int include_self;
  int64_t at;
  int has_val;
  int val_is_int; /* the value was written as an integer: ival is exact */
  double val;
  int64_t ival;
  sl_index_pattern ip;
  int ip_param;   /* dup<P>: P in 1..100 */
  int64_t voxels; /* voxels=V (dynamic ops): 1..coors rows; 0: not given */
  int offsets;    /* form=offsets (segment ops): lengths holds offsets */
  sl_data_pattern dp;
  uint64_t seed;
} sl_case;

/* What a case line of an op may contain. */
enum sl_case_keys {
  SL_KEY_IT = 1u << 0,
  SL_KEY_DIM = 1u << 1,
  SL_KEY_DIMS = 1u << 2,
  SL_KEY_REDUCE = 1u << 3,
  SL_KEY_SELF = 1u << 4,
  SL_KEY_AT = 1u << 5,
  SL_KEY_VAL = 1u << 6,
  SL_KEY_VOXELS = 1u << 7,
  SL_KEY_FORM = 1u << 8
};

/* What a forward op's second input (slot 1) holds. The layers above pick
 * their generic rules by it (index breakers and cells, the value classes,
 * shrink steps) instead of by the op's name. */
#define SL_CASE_ARG1_MAP(X)                                                    \
  X(INDEX)        /* positions along dim, shaped as src (gather, scatter) */   \
  X(INDEX_VECTOR) /* one position along dim per slice (index_reduce) */        \
  X(INDEX_TUPLE)  /* coordinate tuples along dims (gather_nd, scatter_nd) */   \
  X(LENGTHS)      /* segment lengths or offsets (segment_reduce) */            \
  X(SLICE)        /* the slice written at `at` (select_scatter) */             \
  X(MASK)         /* a mask broadcast to x (masked_scatter) */                 \
  X(COORS)        /* voxel coordinates of the points (dynamic_scatter) */
typedef enum sl_case_arg1 {
#define SL__ARG1_ENUM(e) SL_ARG1_##e,
  SL_CASE_ARG1_MAP(SL__ARG1_ENUM)
#undef SL__ARG1_ENUM
} sl_case_arg1;

typedef struct sl_case_spec {
  sl_op op;
  unsigned keys;
  int n_shapes;
  int shape_slots[4]; /* slots whose shapes the line gives */
  int optional_slot;  /* a slot that may be absent (scatter's src), or -1 */
  sl_reduce default_reduce;
  /* The op whose inputs the line's shapes are: op itself, or the forward
   * op of a backward one (its input i is this op's slot shape_slots[i]; the
   * other slots are derived from the forward's result). */
  sl_op forward;
  sl_case_arg1 arg1; /* what the forward's slot 1 holds */
} sl_case_spec;

/* The forward's slot 1 holds index values that can be out of range:
 * positions or coordinate tuples. */
int sl_case_has_index(sl_op op);
/* The forward's slot 1 holds integer values that a bad case can put out of
 * range (index positions, tuples or segment lengths). */
int sl_case_takes_values(sl_op op);
/* op is a backward op (its line gives its forward's inputs). */
int sl_case_is_backward(sl_op op);
/* A forward op that reduces its updates into x along dim through an index
 * (scatter_reduce, index_reduce): the contention grids' ops. */
int sl_case_reduces_along_dim(sl_op op);
/* A forward view's slot 2 holds a source tensor: the op reads one and the
 * case does not give a scalar in its place (scatter's val=). */
int sl_case_has_src(const sl_case *fw);

const sl_case_spec *sl_case_spec_of(sl_op op);

/* Sets defaults for op (dt=f32, it=i64, self=1, seed=0, ...). */
void sl_case_init(sl_case *c, sl_op op);

/* Parses one line. Returns 0, or -1 with a message in err that names the
 * offending word, what was expected and what was found. */
int sl_case_parse(const char *line, sl_case *c, char *err, size_t errlen);

/* Whether c's voxels=V can be drawn: a dynamic op, ip=rand, coors of rank 2
 * with at least one column and at least V rows, not broadcast. Returns 0,
 * or -1 with a message in err naming what was expected and found. */
int sl_case_check_voxels(const sl_case *c, char *err, size_t errlen);

/* Prints the canonical line. Returns the length that the full line needs
 * (as snprintf does). */
int sl_case_print(const sl_case *c, char *buf, size_t len);

/* The case lines of a batch file: one per line (read whole: text_lines.h),
 * '#' starts a comment, blanks around a line are dropped, empty lines
 * skipped. Calls fn for each with its line number in the file (from 1); a
 * non-zero value from fn stops the walk and is returned. -1 with the reason
 * in err when the file cannot be opened or read, or holds a line too long
 * or with a NUL byte (naming the line). */
int sl_case_file_each(const char *path,
                      int (*fn)(void *user, const char *line, long line_no),
                      void *user, char *err, size_t errlen);

const char *sl_index_pattern_name(sl_index_pattern p);
const char *sl_data_pattern_name(sl_data_pattern p);

/* Number of elements of a case shape (0 for empty); -1 if it overflows. */
int64_t sl_case_numel(const sl_case_shape *s);

#endif
