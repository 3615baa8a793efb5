/*
 * Internals shared by the files of the case generator (casegen.h is the
 * public face): capabilities.c (what each op takes, shape helpers, the
 * forward view), classify.c (the static classifier), cells.c (coverage
 * cells), generate.c (valid cases), break.c (breaking a valid case one
 * class at a time) and casegen.c (the campaign: case i of a seed).
 */
#ifndef SL_CASEGEN_INTERNAL_H
#define SL_CASEGEN_INTERNAL_H

#include <stdint.h>

#include "casegen.h"
#include "rng.h"

/* An input with at least this many elements makes a case "large". */
#define SL__LARGE_NUMEL 1024
#define SL__MIN_MAX_ELEMS 64

#define SL__BIT(x) (1u << (x))

static inline int64_t sl__min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t sl__max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Whether threshold t decides a path of op (its ops column names op, or
 * none: any op). */
static inline int sl__th_decides(const sl_threshold *t, sl_op op) {
  return !t->ops || ((t->ops >> op) & 1u);
}
#define SL__ALL_DTYPES (SL__BIT(SL_DTYPE_COUNT) - 1)

typedef enum {
  SL__SC_NORMAL,
  SL__SC_UNIT,
  SL__SC_EMPTY,
  SL__SC_LARGE
} sl__shape_class;

typedef struct sl__gen {
  sl_rng r;
  sl_op op;        /* the op of the case (a backward op, maybe) */
  int64_t max;     /* largest tensor, in elements */
  int64_t min;     /* SL__SC_LARGE: the least of the main tensor, 0 for the
                      class's own floor (the size mix sets it) */
  int sc;          /* sl__shape_class */
  int empty_index; /* SL__SC_EMPTY: the index, not x, gets the zero extent */
  int max_rank;    /* sl_fuzz_opts.max_rank, 1..SL_MAX_DIMS */
} sl__gen;

/* capabilities.c */
/* Reduces that op takes with data dtype dt. */
unsigned sl__op_reduces(sl_op op, sl_dtype dt);

/* The dtypes of op within dmask (0: all) that leave it a reduce in rmask
 * (0: all; ignored by an op without a reduce). */
unsigned sl__usable_dtypes(sl_op op, unsigned dmask, unsigned rmask);

/* Every reduce that op knows, with some dtype. */
unsigned sl__op_reduce_union(sl_op op);

/* Product of extents, saturating at INT64_MAX. */
int64_t sl__prod(int nd, const int64_t *e);

int64_t sl__shape_numel(const sl_case_shape *s);

void sl__shape_set(sl_case_shape *s, int nd, const int64_t *e);

/*
 * Halves the extent with the most room above its floor (lo[d], or 1) until
 * the product is at most max. Returns 0 when it fits, -1 when the floors
 * themselves are too large.
 */
int sl__fit(int64_t *e, int nd, const int64_t *lo, int64_t max);

/* Removes axis k of s (a no-op when s has no such axis). */
void sl__drop(sl_case_shape *s, int k);

extern const unsigned sl__all_dtypes;

/* classify.c */
/* Whether dim lies in [-n, n); *out gets it normalized. */
int sl__norm_dim(int64_t dim, int n, int64_t *out);
/* classify.c: the extent of t in dim k as LibTorch sees it (a scalar has
 * extent 1), and the index-value classes of c (empty_target: a non-empty
 * index points into an empty axis). */
int64_t sl__ext(const sl_case_shape *t, int k);
sl_fuzz_class sl__value_class(const sl_case *c, int empty_target);

/*
 * How many true elements the mask that datagen makes for case fw has after
 * broadcasting to x: each element of a broadcast mask stands for
 * numel(x) / numel(mask) positions. -1 when it cannot be built.
 */
int64_t sl__mask_true_count(const sl_case *fw);

/* generate.c */
/* Uniform in [lo, hi]; lo when hi <= lo. */
int64_t sl__range(sl__gen *g, int64_t lo, int64_t hi);

int sl__pct(sl__gen *g, int p);

void sl__pick_layout(sl__gen *g, sl_case_shape *s);

void sl__pick_ip(sl__gen *g, sl_case *c, sl_op fwop);

/* dynamic_scatter with ip=rand: a third of the cases ask for an exact
 * number of voxels (voxels=V, 1 <= V <= N) instead of the small grid. */
void sl__pick_voxels(sl__gen *g, sl_case *fw);

void sl__pick_dp(sl__gen *g, sl_case *c);

/* A float case with random data takes dp=tie one time in five (halfway
 * sums: the rounding of results, docs/spec.md), and dp=sub one time in
 * eight of the others (subnormals: flushed to zero, or converted wrong).
 * Drawn on a stream of its own (seed ^ "tie", case i), so no other choice
 * of the case moves. */
void sl__pick_tie(uint64_t seed, uint64_t i, sl_case *c);

/* An end of the scalars that c's dtype takes (sl_scalar_range_of: the
 * lowest or highest integer, -max or max), or with `past` one past it (the
 * integer or the double beyond). -1 when there is none: bool takes any
 * value, and nothing lies past i64's, f64's or c128's ends but inf, which
 * they take. */
int sl__edge_val(sl__gen *g, sl_case *c, int past);

/* Fills the forward view fw (op fwop) of a valid case with dtype, reduce
 * and the other parameters already in place (the op's sl__fuzz_op.gen). */
void sl__gen_shapes(sl__gen *g, sl_case *fw);

/* Shape helpers of the generators (generate.c): a rank in [rmin, rmax]
 * under the case's class, x's extents for rank R, and an axis in [0, n)
 * (written negative a third of the time; *norm gets it normalized). */
/* Index extents: on an axis bounded by x's extent e (not the indexed
 * one: 1..e, near e for large cases), and on one whose values point into
 * e (any length 1..e+2); both 0 when x's axis is empty. */
int64_t sl__bounded_extent(sl__gen *g, int64_t e);
int64_t sl__free_extent(sl__gen *g, int64_t e);
int sl__pick_rank(sl__gen *g, int rmin, int rmax);
void sl__gen_x(sl__gen *g, int R, int64_t *e);
int64_t sl__pick_dim(sl__gen *g, int n, int64_t *norm);

/* The forward ops' shape generators. */
void sl__gen_gather(sl__gen *g, sl_case *fw);
void sl__gen_gather_nd(sl__gen *g, sl_case *fw);
void sl__gen_scatter(sl__gen *g, sl_case *fw);
void sl__gen_scatter_reduce(sl__gen *g, sl_case *fw);
void sl__gen_scatter_nd(sl__gen *g, sl_case *fw);
void sl__gen_index_reduce(sl__gen *g, sl_case *c);
void sl__gen_select(sl__gen *g, sl_case *c);
void sl__gen_masked(sl__gen *g, sl_case *c);
void sl__gen_dynamic(sl__gen *g, sl_case *c);
void sl__gen_segment(sl__gen *g, sl_case *c);
/* segment.c: a 1-D lengths is never broadcast (after sl__pick_layout). */
void sl__segment_layouts(sl_case *fw);

/* break.c */
/* scatter: a value one past what x's dtype holds; a case with src takes
 * the value form instead. */
int sl__break_scalar(sl__gen *g, sl_case *fw);

int sl__break(sl__gen *g, sl_case *fw, sl_op op, sl_fuzz_class k);

/* A dtype the op refuses (with the reduce that makes it wrong), drawn into
 * fw: the reducing ops', the dynamic ops'. 0. */
int sl__break_dtype_reducing(sl__gen *g, sl_case *fw);
int sl__break_dtype_dynamic(sl__gen *g, sl_case *fw);

/* The breakers of the dim, rank and shape classes by family of forward op
 * (sl__fuzz_op.break_dim, break_rank, break_shape): dimwise (gather,
 * scatter, scatter_reduce; index_reduce and select_scatter for dim), nd
 * (gather_nd, scatter_nd) and the ops of their own. 0, or -1 when the class
 * does not apply to this case. `op` is the real op (a backward op breaks
 * through its forward view). */
int sl__break_dim_dimwise(sl__gen *g, sl_case *fw);
int sl__break_dim_nd(sl__gen *g, sl_case *fw);
int sl__break_rank_dimwise(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_rank_nd(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_rank_index_reduce(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_rank_select(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_rank_dynamic(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_shape_dimwise(sl__gen *g, sl_case *fw);
int sl__break_shape_nd(sl__gen *g, sl_case *fw);
int sl__break_shape_index_reduce(sl__gen *g, sl_case *fw);
int sl__break_shape_select(sl__gen *g, sl_case *fw);
int sl__break_shape_dynamic(sl__gen *g, sl_case *fw);

/* segment.c: the segment ops' breakers, classifier, repair and axis
 * dropper. */
int sl__break_dim_segment(sl__gen *g, sl_case *fw);
int sl__break_rank_segment(sl__gen *g, sl_case *fw, sl_op op);
int sl__break_shape_segment(sl__gen *g, sl_case *fw);
int sl__break_dtype_segment(sl__gen *g, sl_case *fw);
sl_fuzz_class sl__classify_segment(const sl_case *fw, sl_op op);
void sl__repair_segment(sl_case *fw, sl_op op);
int sl__drop_axis_segment(sl_case *fw, int k);

/* classify.c: the static classifiers by family of forward op
 * (sl__fuzz_op.classify): the class of forward view fw of a case of op. */
sl_fuzz_class sl__classify_dimwise(const sl_case *fw, sl_op op);
sl_fuzz_class sl__classify_nd(const sl_case *fw, sl_op op);
sl_fuzz_class sl__classify_index_reduce(const sl_case *fw, sl_op op);
sl_fuzz_class sl__classify_select(const sl_case *fw, sl_op op);
sl_fuzz_class sl__classify_masked(const sl_case *fw, sl_op op);
sl_fuzz_class sl__classify_dynamic(const sl_case *fw, sl_op op);

/* shrink.c: the shrinker's repairs and axis droppers by family of forward
 * op (see sl__fuzz_op.repair and drop_axis). */
void sl__repair_dimwise(sl_case *fw, sl_op op);
void sl__repair_nd(sl_case *fw, sl_op op);
void sl__repair_index_reduce(sl_case *fw, sl_op op);
void sl__repair_select(sl_case *fw, sl_op op);
void sl__repair_masked(sl_case *fw, sl_op op);
void sl__repair_dynamic(sl_case *fw, sl_op op);
/* shrink.c's helpers of the families' hooks: sl__drop (a shape that
 * became a scalar is contiguous), and new extents keeping the layout. */
void sl__shrink_drop(sl_case_shape *s, int k);
void sl__reshape(sl_case_shape *s, int nd, const int64_t *e);
int sl__drop_axis_dimwise(sl_case *fw, int k);
int sl__drop_axis_nd(sl_case *fw, int k);
int sl__drop_axis_index_reduce(sl_case *fw, int k);
int sl__drop_axis_select(sl_case *fw, int k);
int sl__drop_axis_masked(sl_case *fw, int k);
/* Axes k and k + 1 of s as one (their product); and the family mergers. */
void sl__shrink_merge(sl_case_shape *s, int k);
int sl__merge_axes_dimwise(sl_case *fw, int k);
int sl__merge_axes_index_reduce(sl_case *fw, int k);

/* huge.c: the huge-offset case's extents, and the ops' shapes for it. */
typedef struct sl__huge_dims {
  int64_t rows, cols; /* x */
  int64_t m, k;       /* index rows and columns */
} sl__huge_dims;
/* A 1-D (a) or 2-D (a x b) contiguous shape of the huge case. */
void sl__huge_shape(sl_case_shape *s, int ndim, int64_t a, int64_t b);
void sl__huge_dimwise(sl_case *fw, const sl__huge_dims *h, sl_rng *r);
void sl__huge_nd(sl_case *fw, const sl__huge_dims *h, sl_rng *r);
void sl__huge_index_reduce(sl_case *fw, const sl__huge_dims *h, sl_rng *r);
void sl__huge_select(sl_case *fw, const sl__huge_dims *h, sl_rng *r);

/* What the generator knows of each op: one row per op of the core's list
 * (SL_OP_MAP), sl__fuzz_<op>, defined in its family's file (families/)
 * beside the hooks it names; op_table.c builds the table from the list, so
 * that an op without its row does not compile. The rows and their hooks
 * are the only place in fuzz/ that tells ops apart by name. */
typedef struct sl__fuzz_op {
  /* The shapes and the op's own parameters of a valid case's forward view
   * (sl__gen_shapes); NULL for a backward op, drawn through its forward. */
  void (*gen)(sl__gen *g, sl_case *fw);
  /* A dtype it refuses (sl__break_dtype_*), or NULL: it takes them all. */
  int (*break_dtype)(sl__gen *g, sl_case *fw);
  const sl_reduce *bad_reduces; /* reduces it refuses, drawn uniformly */
  int n_bad_reduces;
  /* A forward op's breakers of the dim, rank and shape classes (NULL: the
   * class does not apply to it; NULL for a backward op, which breaks
   * through its forward). */
  int (*break_dim)(sl__gen *g, sl_case *fw);
  int (*break_rank)(sl__gen *g, sl_case *fw, sl_op op);
  int (*break_shape)(sl__gen *g, sl_case *fw);
  /* The shrinker's hooks for a forward op (shrink.c): restore a valid
   * case's rules after an extent got smaller (op: the real op), and drop
   * axis k of x with the matching axes (-1: not allowed here). NULL: no
   * repair / no axis dropped. */
  void (*repair)(sl_case *fw, sl_op op);
  int (*drop_axis)(sl_case *fw, int k);
  /* Merge axes k and k + 1 of x (and the matching axes of the other
   * inputs) into one of their product: a lower rank with the same elements,
   * the move that takes a rank-7 case to the 1-D one of the same count.
   * -1: not allowed here; NULL: the family has no merge. */
  int (*merge_axes)(sl_case *fw, int k);
  /* The shapes of a huge-offset case (huge.h) past x's [rows, cols];
   * NULL: the op has none. */
  void (*huge)(sl_case *fw, const struct sl__huge_dims *h, sl_rng *r);
  int stress; /* has contention-stress cases (stress.h) */
  /* Its output is the size of the index, not of x (the gathers): what a
   * huge case's outputs cost. */
  int out_like_index;
  /* The invalid classes that apply to it, bit 1u << k (docs/spec.md §4
   * minus what a case line cannot express); the dtype and reduce classes
   * follow from break_dtype and the reduce key. */
  unsigned classes;
  /* A forward op's static classifier (docs/spec.md §4 class of its
   * forward view); NULL for a backward op, classified through its
   * forward. */
  sl_fuzz_class (*classify)(const sl_case *fw, sl_op op);
} sl__fuzz_op;

#define SL__FUZZ_ROW_DECL(e, name) extern const sl__fuzz_op sl__fuzz_##name;
SL_OP_MAP(SL__FUZZ_ROW_DECL)
#undef SL__FUZZ_ROW_DECL
const sl__fuzz_op *sl__fuzz_op_of(sl_op op);

/* Invalid classes (sl__fuzz_op.classes). The value classes (oob, neg) and
 * the index dtype class apply to an op whose slot 1 holds values (index
 * positions, tuples, lengths), and so do the dim, rank and shape ones. */
#define SL__CL(k) (1u << SL_FUZZ_##k)
#define SL__INDEX_CLASSES                                                      \
  (SL__CL(OOB) | SL__CL(NEG) | SL__CL(ITYPE) | SL__CL(DIM) | SL__CL(RANK) |    \
   SL__CL(SHAPE))
#define SL__COUNT(a) (int)(sizeof a / sizeof a[0])
/* The reduces that scatter_reduce (and so segment_reduce, which takes the
 * same ones) refuses, in the order the breaker draws them (pinned by
 * e2e.case_stream): the complement of the catalogue's reduces in
 * SL_REDUCE_MAP order. families/dimwise.c. */
extern const sl_reduce sl__bad_sr[3];
/* The data dtypes of a valid case of op, and the reduces it takes with dt:
 * the core's catalogue (sl_op_dtypes), not restated here. */
unsigned sl__fuzz_dtypes(sl_op op);
unsigned sl__fuzz_reduces(sl_op op, sl_dtype dt);

#endif
