/* The campaign's case generator: case i of a seed (see casegen.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "huge.h"
#include "overlap.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* The campaign                                                              */
/* ------------------------------------------------------------------------ */

/* The invalid classes that op can be given with certainty: its row's
 * classes (sl__fuzz_op.classes), the dtype class where it refuses a dtype and
 * the reduce class where it takes a reduce. */
static int sl__class_applies(sl_op op, sl_fuzz_class k) {
  const sl__fuzz_op *f = sl__fuzz_op_of(op);
  if (k == SL_FUZZ_DTYPE) return f->break_dtype != NULL;
  if (k == SL_FUZZ_REDUCE)
    return (sl_case_spec_of(op)->keys & SL_KEY_REDUCE) != 0;
  return (unsigned)k < 32 && ((f->classes >> k) & 1u);
}

static int sl__popcount(unsigned v) {
  int n = 0;
  for (; v; v &= v - 1) ++n;
  return n;
}

/* The k-th set bit of v (k < popcount(v)). */
static int sl__nth_bit(unsigned v, int k) {
  for (int b = 0; b < 32; ++b)
    if ((v >> b) & 1u) {
      if (k-- == 0) return b;
    }
  return 0;
}

/*
 * Size mix: one valid case in o->size_mix is sized past one of the core's
 * size thresholds, so that every campaign takes the paths that small cases
 * never reach (a parallel team, the wide-row loops...). The threshold is
 * drawn first, uniformly, and the case's op and dtype among those it
 * decides and can reach within SL_FUZZ_SIZE_MIX_MAX_ELEMS (drawn after
 * the op, gather's wide rows fell on another op 12 times in 14, and on a
 * dtype too narrow to reach them half the time). The draws have a stream
 * of their own: the other cases stay as they were.
 */
typedef struct sl__mix {
  sl_rng r;
  int first; /* the threshold drawn, or -1: not a size-mix case */
  int bad;   /* to be given a bad index value once built (sl__large_bad) */
  int op;    /* a large bad case's op, drawn first; -1 otherwise */
  int most;  /* sized past the largest threshold within reach instead */
  int typed; /* in a dtype of the typed fast paths (SL__TYPED) */
} sl__mix;

/*
 * One case in SL__LARGE_BAD is sized as a size-mix case and then given a
 * bad index value at the bound: the large-size paths must check their
 * indexes as the small ones do, and invalid cases are otherwise never
 * large (issue 48: a check on scatter_nd's split path that let value ==
 * bound through was never met). Drawn per op: the op first, uniformly,
 * then one of the thresholds that decide its paths (thresholds.def's ops
 * column), so that every op meets each of its large paths; drawn by
 * threshold first, an op with only the any-op thresholds got 1 in 40 of
 * them. Three in four are sized past the largest threshold of their op
 * within reach instead, where every size-switched path is on at once (a
 * parallel team, the parallel check, scatter_nd's split by target, which
 * needs both 2 x team_min_elements positions and the team), and three in
 * four take a dtype of the typed fast paths (the row loops of
 * core/src/reduce_rows.c and that split: f32, f64, i32, i64) where the op
 * has one: drawn among all twelve, 2 in 3 missed them. Their layouts are
 * contiguous (sl__large_bad). Its own stream, on when the size mix is.
 * One in 2048: each is tens of ordinary cases' work (one in 512 took 7%
 * of a small-case campaign's throughput); figures in docs/fuzzing.md.
 */
enum { SL__LARGE_BAD = 2048 };
#define SL__TYPED                                                              \
  (SL__BIT(SL_F32) | SL__BIT(SL_F64) | SL__BIT(SL_I32) | SL__BIT(SL_I64))

/* A large bad case: its op among `usable`, then a threshold of that op. */
static void sl__large_bad_draw(sl_rng *r, unsigned usable, sl__mix *m) {
  m->bad = 1;
  m->op =
      sl__nth_bit(usable, (int)sl_rng_below(r, (uint64_t)sl__popcount(usable)));
  int mine[64], n = 0;
  for (int k = 0; k < sl_threshold_count() && n < 64; ++k)
    if (sl__th_decides(sl_threshold_at(k), (sl_op)m->op)) mine[n++] = k;
  m->first = n ? mine[sl_rng_below(r, (uint64_t)n)] : 0;
  m->most = sl_rng_below(r, 4) != 0;
  m->typed = sl_rng_below(r, 4) != 0;
  m->r = *r;
}

static void sl__size_mix_draw(const sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                              unsigned usable, sl__mix *m) {
  m->first = -1;
  m->bad = 0;
  m->op = -1;
  m->most = m->typed = 0;
  if (o->size_mix <= 0) return;
  sl_rng_seed(&m->r, seed ^ 0x73697a656d6978ull /* "sizemix" */, i);
  if (sl_rng_below(&m->r, (uint64_t)o->size_mix) == 0) {
    m->first = (int)sl_rng_below(&m->r, (uint64_t)sl_threshold_count());
    return;
  }
  sl_rng bad;
  sl_rng_seed(&bad, seed ^ 0x626967626164ull /* "bigbad" */, i);
  if (sl_rng_below(&bad, SL__LARGE_BAD) == 0)
    sl__large_bad_draw(&bad, usable, m);
}

/* Whether threshold t can size a case of op in dtype dt. */
static int sl__mix_fits(const sl_threshold *t, sl_op op, sl_dtype dt) {
  return (!t->ops || ((t->ops >> op) & 1u)) &&
         2 * sl_fuzz_threshold_elems(t, dt) <= SL_FUZZ_SIZE_MIX_MAX_ELEMS;
}

/* The ops of `usable` whose paths the drawn threshold decides (all of
 * them when it names none, or none of these). */
static unsigned sl__mix_ops(const sl__mix *m, unsigned usable) {
  if (m->first < 0) return usable;
  if (m->op >= 0) return SL__BIT(m->op);
  const unsigned ops = sl_threshold_at(m->first)->ops & usable;
  return ops ? ops : usable;
}

/* The dtypes of `dts` in which the drawn threshold is within reach (of
 * SL__TYPED, for a large bad case drawn so). */
static unsigned sl__mix_dtypes(const sl__mix *m, sl_op op, unsigned dts) {
  if (m->first < 0) return dts;
  if (m->typed && (dts & SL__TYPED)) dts &= SL__TYPED;
  unsigned fit = 0;
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
    if (((dts >> dt) & 1u) &&
        sl__mix_fits(sl_threshold_at(m->first), op, (sl_dtype)dt))
      fit |= 1u << dt;
  return fit ? fit : dts;
}

/* Past the largest threshold, a large bad case keeps within this many
 * elements: beyond it lie only gather's wide-row loops (4 and 2 MiB, met
 * by the other half), and a case of 2^21 elements took 0.25 s here. */
#define SL__MOST_ELEMS ((int64_t)1 << 17)

/* The largest threshold that fits op in dt within SL__MOST_ELEMS, or
 * `first` when none does. */
static int sl__largest_fit(int first, sl_op op, sl_dtype dt) {
  int64_t most = -1;
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    const int64_t need = sl_fuzz_threshold_elems(t, dt);
    if (sl__mix_fits(t, op, dt) && 2 * need <= SL__MOST_ELEMS && need > most) {
      most = need;
      first = k;
    }
  }
  return first;
}

/* Sizes the case past the drawn threshold (or the largest, sl__mix.most),
 * or past the next one that fits its op and dtype. */
static void sl__size_mix(sl__mix *m, sl_dtype dt, sl__gen *g) {
  if (m->first < 0) return;
  const int n = sl_threshold_count();
  const int first = m->most ? sl__largest_fit(m->first, g->op, dt) : m->first;
  for (int j = 0; j < n; ++j) {
    const sl_threshold *t = sl_threshold_at((first + j) % n);
    if (!sl__mix_fits(t, g->op, dt)) continue;
    int64_t need = sl_fuzz_threshold_elems(t, dt);
    if (need < SL_FUZZ_SIZE_MIX_MIN_ELEMS) need = SL_FUZZ_SIZE_MIX_MIN_ELEMS;
    /* The largest tensor in [need, 2 * need]: past the threshold, not so
     * far past it that the case costs more than it must. */
    g->sc = SL__SC_LARGE;
    g->min = need + (int64_t)sl_rng_below(&m->r, (uint64_t)need / 2 + 1);
    g->max = 2 * need;
    return;
  }
}

/* The bad index value of a case drawn so (sl__mix.bad): out of range or
 * negative, at the bound (the extent, or -1; the other kinds are far past
 * it, and small cases draw them all). 1 when the case was broken. */
static int sl__large_bad(sl__mix *m, sl__gen *g, sl_case *fw, sl_op op) {
  if (!m->bad || m->first < 0) return 0;
  const sl_fuzz_class k = sl_rng_below(&m->r, 2) ? SL_FUZZ_OOB : SL_FUZZ_NEG;
  sl_case t = *fw, full;
  /* Contiguous: the fast paths take contiguous inputs only (scatter_nd's
   * split, the typed row loops); the strided walks share their checks
   * with the small cases, which meet every layout. */
  const sl_case_spec *spec = sl_case_spec_of(t.op);
  for (int s = 0; s < spec->n_shapes; ++s) {
    t.arg[spec->shape_slots[s]].layout = SL_LAYOUT_CONTIGUOUS;
    t.arg[spec->shape_slots[s]].step = 0;
  }
  g->r = m->r;
  if (!sl__class_applies(op, k) || sl__break(g, &t, op, k) != 0) return 0;
  if (t.ip == SL_IP_OOB || t.ip == SL_IP_NEG) t.ip_param = 0;
  sl_case_from_forward(&t, op, &full);
  if (sl_fuzz_classify(&full) != k) return 0;
  *fw = t;
  return 1;
}

int sl_fuzz_case(uint64_t seed, uint64_t i, const sl_fuzz_opts *o, sl_case *c) {
  sl_fuzz_opts def;
  if (!o) {
    sl_fuzz_opts_init(&def);
    o = &def;
  }
  sl__gen g;
  memset(&g, 0, sizeof g);
  /* One stream per case: case i is independent of every other case. */
  sl_rng_seed(&g.r, seed, i);
  g.max = o->max_elems > 0 ? o->max_elems : 4096;
  g.max_rank =
      o->max_rank > 0 && o->max_rank < SL_MAX_DIMS ? o->max_rank : SL_MAX_DIMS;
  if (g.max < SL__MIN_MAX_ELEMS) g.max = SL__MIN_MAX_ELEMS;
  int invalid_pct = o->invalid_pct < 0     ? 0
                    : o->invalid_pct > 100 ? 100
                                           : o->invalid_pct;
  const unsigned all_ops = SL__BIT(SL_OP_COUNT) - 1;
  unsigned ops = o->ops & all_ops ? o->ops & all_ops : all_ops;
  unsigned dmask = o->dtypes & sl__all_dtypes;
  unsigned rmask = o->reduces & (SL__BIT(SL_REDUCE_COUNT) - 1);
  /* Ops that the dtype and reduce masks leave some dtype; if none, the
   * masks are ignored rather than generating nothing. */
  unsigned usable = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op)
    if ((ops & SL__BIT(op)) && sl__usable_dtypes((sl_op)op, dmask, rmask))
      usable |= SL__BIT(op);
  if (!usable) {
    usable = ops;
    dmask = rmask = 0;
  }

  sl__mix mix;
  sl__size_mix_draw(o, seed, i, usable, &mix);
  /* A case drawn invalid is never resized, so it keeps the op and dtype
   * drawn without the mix: the draw after the op's decides it (a case
   * drawn as a large bad one is broken once built: sl__large_bad). */
  sl_rng peek = g.r;
  (void)sl_rng_next(&peek);
  if ((int)sl_rng_below(&peek, 100) < invalid_pct) mix.first = -1;
  const unsigned pick = sl__mix_ops(&mix, usable);
  const sl_op op = (sl_op)sl__nth_bit(
      pick, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(pick)));
  const sl_op fwop = sl_case_spec_of(op)->forward;
  g.op = op;
  const int invalid = (int)sl_rng_below(&g.r, 100) < invalid_pct;

  sl_case fw;
  sl_case_init(&fw, fwop);
  fw.seed = sl_rng_next(&g.r) >> 32;

  /* dtype, reduce, include_self, index dtype */
  unsigned dts = sl__mix_dtypes(&mix, op, sl__usable_dtypes(op, dmask, rmask));
  fw.dt = (sl_dtype)sl__nth_bit(
      dts, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(dts)));
  unsigned reds = sl__op_reduces(op, fw.dt);
  if (reds & rmask) reds &= rmask;
  fw.reduce = (sl_reduce)sl__nth_bit(
      reds, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(reds)));
  fw.include_self = (int)sl_rng_below(&g.r, 2);
  fw.it = sl_rng_below(&g.r, 2) ? SL_I64 : SL_I32;
  if (o->index_dtypes && !(o->index_dtypes & SL__BIT(fw.it)))
    fw.it = fw.it == SL_I64 ? SL_I32 : SL_I64;
  /* Keys that the line does not print keep their parse defaults, so that
   * a printed line parses back to the same struct. include_self means
   * nothing to assign: it stays 1 there. */
  const unsigned keys = sl_case_spec_of(op)->keys;
  if (!(keys & SL_KEY_SELF) || fw.reduce == SL_REDUCE_ASSIGN)
    fw.include_self = 1;
  if (!(keys & SL_KEY_IT)) fw.it = SL_I64;

  /* shape class: invalid cases are never empty, so that their defect is
   * certain to be looked at */
  int u = (int)sl_rng_below(&g.r, 100);
  g.sc = u < 60   ? SL__SC_NORMAL
         : u < 75 ? SL__SC_UNIT
         : u < 90 ? SL__SC_EMPTY
                  : SL__SC_LARGE;
  if (invalid && g.sc == SL__SC_EMPTY) g.sc = SL__SC_NORMAL;
  if (g.sc == SL__SC_LARGE && g.max < SL__LARGE_NUMEL) g.sc = SL__SC_NORMAL;
  if (!invalid) sl__size_mix(&mix, fw.dt, &g);
  g.empty_index = sl_case_has_index(fwop) && sl__pct(&g, 40);

  sl__gen_shapes(&g, &fw);
  const sl_case_spec *fspec = sl_case_spec_of(fwop);
  for (int s = 0; s < fspec->n_shapes; ++s)
    if (fw.arg[fspec->shape_slots[s]].present)
      sl__pick_layout(&g, &fw.arg[fspec->shape_slots[s]]);
  if (sl_case_spec_of(fwop)->arg1 == SL_ARG1_LENGTHS) sl__segment_layouts(&fw);
  sl__pick_ip(&g, &fw, fwop);
  sl__pick_dp(&g, &fw);
  sl__pick_tie(seed, i, &fw); /* a stream of its own */

  int broken = 0;
  if (invalid) {
    sl_fuzz_class cand[SL_FUZZ_CLASS_COUNT];
    int n = 0;
    for (int k = 1; k < SL_FUZZ_CLASS_COUNT; ++k)
      if (sl__class_applies(op, (sl_fuzz_class)k)) cand[n++] = (sl_fuzz_class)k;
    int first = (int)sl_rng_below(&g.r, (uint64_t)n);
    for (int j = 0; j < n && !broken; ++j) {
      sl_case t = fw;
      sl_fuzz_class k = cand[(first + j) % n];
      if (sl__break(&g, &t, op, k) == 0) {
        sl_case full;
        sl_case_from_forward(&t, op, &full);
        /* Keep only a break that the classifier sees as that class. */
        if (sl_fuzz_classify(&full) == k) {
          fw = t;
          broken = 1;
        }
      }
    }
  }
  /* Drawn last, so that every other case keeps the stream it had. */
  if ((sl_case_spec_of(fwop)->keys & SL_KEY_VOXELS) && !broken)
    sl__pick_voxels(&g, &fw);
  if (!invalid) broken = sl__large_bad(&mix, &g, &fw, op);
  /* Each a stream of its own; a huge or stress case keeps its layouts. */
  const int stressed = !broken && sl_fuzz_stress(o, seed, i, &fw);
  const int huge = !broken && sl_fuzz_huge(o, seed, i, op, &fw);
  if (!broken && !stressed && !huge) sl_fuzz_overlap(o, seed, i, &fw);
  sl_case_from_forward(&fw, op, c);
  return broken;
}
