/*
 * The case generator: campaign `seed`, case `i` -> one case line.
 *
 * Every case is a pure function of (seed, i, options): a campaign replays
 * byte for byte and shards by i (case i belongs to shard i % N). Cases cover
 * the semantic cells of the issue: op x dtype x reduce x include_self x index
 * dtype x layout (contiguous, transposed, stepped, broadcast) x shape class
 * (rank 0..8 where the op allows it, size-0 dims, size-1 dims, large
 * extents) x index pattern x data pattern. About invalid_pct percent of the
 * cases are invalid on purpose: a valid case broken in exactly one way
 * (one class of docs/spec.md §4), and only in ways that both the core and
 * LibTorch 1.13 certainly reject, so the both-rejected oracle can judge them.
 *
 * The shape rules that valid cases follow (and that sl_fuzz_classify checks)
 * are the intersection of the core's contracts and LibTorch 1.13's checks:
 *   gather, scatter, scatter_reduce(_backward): index and src have x's rank
 *     (rank 0 counts as 1); index.size(k) <= x.size(k) for k != dim and
 *     <= src.size(k) for every k; dim in [-rank, rank).
 *   gather_nd, scatter_nd: x rank K >= 1, index rank K+1 with last extent M
 *     in 1..K, dims (optional) M distinct axes; index.shape[d] <= x.shape[d]
 *     on the axes that are not indexed; scatter_nd's src is index.shape[:-1].
 *   index_reduce(_backward): x rank >= 1, index 1-D [L] (updates = x's shape
 *     with L at the axis) or 0-D (updates = x's shape without the axis).
 *   select_scatter: x rank >= 1, value = x's shape without dim, at in
 *     [-size, size).
 *   masked_scatter: the mask broadcasts to x (fewer leading dims, extents
 *     equal or 1); source has at least numel(x) elements.
 *   dynamic_scatter(_backward): feats [N,C] f32/f64, coors [N,D], D in 1..4.
 *   scatter's value (val=): one that x's dtype holds (sl_scalar_range_of);
 *     valid cases draw its ends too, invalid ones one past them.
 * A non-empty index needs a non-empty axis to point into.
 */
#ifndef SL_CASEGEN_H
#define SL_CASEGEN_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "sl/sl.h"

typedef struct sl_fuzz_opts {
  unsigned ops;          /* bitmask of 1u << sl_op; 0 = all */
  unsigned dtypes;       /* bitmask of 1u << sl_dtype; 0 = all the op allows */
  unsigned index_dtypes; /* of 1u << SL_I32 / SL_I64; 0 = both */
  unsigned reduces;      /* of 1u << sl_reduce, for the ops that take one; 0 =
                            all the op allows (ops without a reduce ignore it) */
  int64_t max_elems;     /* largest tensor, in elements (default 4096; at least
                            64 is used) */
  int invalid_pct;       /* percent of cases invalid on purpose (default 10) */
  int max_rank;        /* highest rank drawn for an op's main tensor (x, or the
                          index of the nd ops); 0 = SL_MAX_DIMS. Tensors derived
                          from it may have one more. */
  int64_t size_mix;    /* one valid case in size_mix is sized past one of the
                          core's size thresholds (sl_threshold_at), whatever
                          max_elems says; 0 = never. Default
                          sl_fuzz_size_mix_default(). */
  int64_t stress;      /* one valid case in stress of a reducing op is a
                          contention case (stress.h: few targets, many
                          updates); 0 = never. Default sl_fuzz_stress_default().
                        */
  int64_t overlap;     /* one valid case in overlap has some read-only inputs
                          overlapped (overlap.h: views whose elements share
                          memory); 0 = never, and so when size_mix is 0.
                          Default sl_fuzz_overlap_default(). */
  uint64_t huge_bytes; /* `fuzz --huge`: every valid case that can be is a
                          huge-offset case (huge.h) within this many bytes
                          (inputs and twice the outputs); 0 = never */
} sl_fuzz_opts;

/* The default share of size-mix cases: one in 4096 in a normal build (such
 * a case holds up to millions of elements), one in 8 in a build with the
 * small thresholds, whose big-case paths start at a few elements. */
int64_t sl_fuzz_size_mix_default(void);

/* The elements a tensor of dtype dt needs to reach threshold t (bytes over
 * dt's size; per-thread counts for a team of two). */
int64_t sl_fuzz_threshold_elems(const sl_threshold *t, sl_dtype dt);

/* The least largest tensor of a size-mix case, in elements: below it the
 * generators' large-case shapes do not apply (ordinary cases reach such
 * thresholds anyway). */
#define SL_FUZZ_SIZE_MIX_MIN_ELEMS ((int64_t)1024)

/* The largest tensor of a size-mix case, in elements: a threshold beyond
 * it is not drawn. */
#define SL_FUZZ_SIZE_MIX_MAX_ELEMS ((int64_t)1 << 21)

void sl_fuzz_opts_init(sl_fuzz_opts *o);

/*
 * The i-th case of campaign `seed`: a pure function of (seed, i, opts).
 * o may be NULL (defaults). Returns 1 if the case is invalid on purpose, 0 if
 * it is valid. The dtypes mask restricts the data dtype of valid cases; an
 * invalid case of the "unsupported dtype" class uses a dtype outside the
 * op's set, whatever the mask says.
 */
int sl_fuzz_case(uint64_t seed, uint64_t i, const sl_fuzz_opts *o, sl_case *c);

/*
 * The semantic cell of a case, ten fields joined by '|':
 *   op|dt|reduce|self|it|layout|shape|ip|dp|validity
 * e.g. "scatter_reduce|f32|amax|self0|i32|t|rank2|dup|nan|valid".
 *   reduce   the reduce name, "-" for ops without one;
 *   self     self0 / self1, "-" for ops without include_self;
 *   it       the index dtype, "-" for ops without an index dtype key;
 *   layout   c, t, s or b: the layout of the first non-contiguous input of
 *            the line, c when all are contiguous;
 *   shape    huge:2^31 or huge:2^32 (x has more elements than that:
 *            huge.h), stress:contention (at most
 *            SL_FUZZ_STRESS_MAX_DESTS targets and sl_fuzz_stress_updates()
 *            updates or more: stress.h), empty (an input has no element),
 *            past:<threshold> (the largest input reaches the core's
 *            largest size threshold it can, sl_threshold_at, named as
 *            there), large (an input has >= 1024 elements), rank0 (x is a
 *            scalar), unit (x has an extent 1), else rank<N> (x's rank;
 *            feats for dynamic_scatter);
 *   ip       the index pattern (dup without its ratio; oob and neg with
 *            their bad value, e.g. oob:2^31), "-" for ops without
 *            an index (select_scatter, masked_scatter);
 *   dp       the data pattern;
 *   validity "valid" or "invalid-<class>" (sl_fuzz_class_name).
 */
void sl_fuzz_cell(const sl_case *c, char *buf, size_t len);

/* The largest size threshold of the kernels (core/src/thresholds.def)
 * that c's largest input reaches, or NULL (also below 1024 elements, a
 * "large" case of the cells); *largest (when not NULL) gets
 * that input's elements. Why a shrunk case may stay large: a smaller one
 * takes another code path, where the bug is not. */
const sl_threshold *sl_fuzz_case_past(const sl_case *c, int64_t *largest);

/* The docs/spec.md §4 class of a case as far as its line tells (without the
 * data). */
typedef enum sl_fuzz_class {
  SL_FUZZ_VALID = 0,
  SL_FUZZ_OOB,    /* index value out of range (ip=oob, at, an empty axis) */
  SL_FUZZ_NEG,    /* a negative index value (ip=neg) */
  SL_FUZZ_DIM,    /* dim / axis / dims out of range (or dims malformed) */
  SL_FUZZ_RANK,   /* rank mismatch */
  SL_FUZZ_SHAPE,  /* shape mismatch */
  SL_FUZZ_ITYPE,  /* index dtype not i32/i64 */
  SL_FUZZ_DTYPE,  /* data dtype not supported by the op (with its reduce) */
  SL_FUZZ_REDUCE, /* reduce unknown to the op */
  SL_FUZZ_MASK,   /* mask not broadcastable to x */
  SL_FUZZ_SHORT,  /* masked_scatter's source shorter than x */
  SL_FUZZ_SCALAR, /* scatter's value beyond what x's dtype holds */
  SL_FUZZ_CLASS_COUNT
} sl_fuzz_class;

const char *sl_fuzz_class_name(sl_fuzz_class k); /* "valid", "oob", ... */

/*
 * Checks a case against the shape, dtype and parameter rules above and
 * returns its class: SL_FUZZ_VALID, or the first rule it breaks. Index
 * values are judged by pattern (ip=oob, ip=neg) and by empty target axes.
 * A masked_scatter source shorter than x is judged by the true count of the
 * mask that datagen makes from the seed (the only data this looks at).
 */
sl_fuzz_class sl_fuzz_classify(const sl_case *c);

/* Whether op takes data dtype dt with reduce r as a valid case. */
int sl_fuzz_dtype_ok(sl_op op, sl_dtype dt, sl_reduce r);

#endif
