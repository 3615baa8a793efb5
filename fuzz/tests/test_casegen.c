/*
 * The case generator: reproducible campaigns, lines that parse back, the
 * invalid share, coverage of every op / dtype / pattern / shape class,
 * max_elems, the size mix and stress schedules, agreement with the core's
 * sl_infer (valid cases accepted, invalid ones rejected). The shrinker's
 * tests are in test_shrink.c.
 */
#include <inttypes.h>
#include <stdint.h>

#include "casegen_fixture.h"
#include "overlap.h"
#include "shrink.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* Generation                                                                */
/* ------------------------------------------------------------------------ */

static void test_determinism_and_round_trip(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  static char first[10000][160];
  char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX], err[256];
  int bad_rt = 0, bad_det = 0, bad_ret = 0;
  for (uint64_t i = 0; i < 10000; ++i) {
    sl_case c, d;
    int inv = sl_fuzz_case(SEED, i, &o, &c);
    print_line(&c, a);
    snprintf(first[i], sizeof first[i], "%.150s", a);
    bad_ret += inv != (sl_fuzz_classify(&c) != SL_FUZZ_VALID);
    if (sl_case_parse(a, &d, err, sizeof err) != 0) {
      if (bad_rt++ < 5) fprintf(stderr, "unparsable: %s: %s\n", a, err);
      continue;
    }
    print_line(&d, b);
    if (strcmp(a, b) != 0 && bad_rt++ < 5)
      fprintf(stderr, "round trip:\n  %s\n  %s\n", a, b);
  }
  /* Again, in reverse order: each case is a function of (seed, i) alone. */
  for (uint64_t i = 10000; i-- > 0;) {
    sl_case c;
    sl_fuzz_case(SEED, i, &o, &c);
    print_line(&c, a);
    if (strncmp(a, first[i], 150) != 0) ++bad_det;
  }
  CHECK_MSG(bad_rt == 0, "%d lines do not parse back", bad_rt);
  CHECK_MSG(bad_det == 0, "%d lines differ on a second run", bad_det);
  CHECK_MSG(bad_ret == 0, "%d return values disagree with the classifier",
            bad_ret);
  /* NULL options are the defaults. */
  for (uint64_t i = 0; i < 200; ++i) {
    sl_case c;
    sl_fuzz_case(SEED, i, NULL, &c);
    print_line(&c, a);
    if (strncmp(a, first[i], 150) != 0) ++bad_det;
  }
  CHECK(bad_det == 0);
  /* Another seed gives another campaign. */
  sl_case c;
  int same = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    sl_fuzz_case(SEED + 1, i, &o, &c);
    print_line(&c, a);
    same += strncmp(a, first[i], 150) == 0;
  }
  CHECK(same < 5);
}

static void test_invalid_share(void) {
  const int pcts[] = {0, 10, 30, 100};
  for (size_t p = 0; p < sizeof pcts / sizeof pcts[0]; ++p) {
    sl_fuzz_opts o;
    sl_fuzz_opts_init(&o);
    o.invalid_pct = pcts[p];
    int n = 20000, inv = 0;
    for (int i = 0; i < n; ++i) {
      sl_case c;
      inv += sl_fuzz_case(7, (uint64_t)i, &o, &c);
    }
    double share = 100.0 * inv / n;
    printf("invalid_pct=%d: %.2f%% invalid\n", pcts[p], share);
    CHECK_MSG(share >= pcts[p] - 2.0 && share <= pcts[p] + 2.0,
              "invalid_pct %d gave %.2f%%", pcts[p], share);
  }
}

/* Counts of everything the issue wants covered, over 20,000 cases. */
static void test_coverage(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  const int n = 20000;
  int op_n[SL_OP_COUNT] = {0}, op_inv[SL_OP_COUNT] = {0};
  int op_dt[SL_OP_COUNT][SL_DTYPE_COUNT] = {{0}};
  int op_red[SL_OP_COUNT][SL_REDUCE_COUNT] = {{0}};
  int gather_rank[SL_MAX_DIMS + 1] = {0}, ip_n[SL_IP_COUNT] = {0};
  int dp_n[SL_DP_COUNT] = {0}, cls_n[SL_FUZZ_CLASS_COUNT] = {0};
  int self_n[2] = {0}, it_n[2] = {0}, layout_n[SL_LAYOUT_OVERLAPPED + 1] = {0};
  int empty = 0, large = 0, unit = 0, rank0 = 0, val = 0, dims = 0;
  for (int i = 0; i < n; ++i) {
    sl_case c, fw;
    int inv = sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    char cell[256];
    sl_fuzz_cell(&c, cell, sizeof cell);
    sl_case_forward(&c, &fw);
    ++op_n[c.op];
    op_inv[c.op] += inv;
    ++cls_n[sl_fuzz_classify(&c)];
    if (!inv) {
      ++op_dt[c.op][c.dt];
      ++op_red[c.op][c.reduce];
    }
    if (c.op == SL_OP_GATHER) ++gather_rank[c.arg[0].ndim];
    ++ip_n[c.ip];
    ++dp_n[c.dp];
    const sl_case_spec *spec = sl_case_spec_of(c.op);
    if (spec->keys & SL_KEY_SELF) ++self_n[c.include_self];
    if (spec->keys & SL_KEY_IT) ++it_n[c.it == SL_I64];
    for (int s = 0; s < spec->n_shapes; ++s)
      ++layout_n[c.arg[spec->shape_slots[s]].layout];
    int bars = 0;
    for (const char *p = cell; *p; ++p) bars += *p == '|';
    CHECK(bars == 9);
    empty += strstr(cell, "|empty|") != NULL;
    large += strstr(cell, "|large|") != NULL || strstr(cell, "|past:") != NULL;
    unit += strstr(cell, "|unit|") != NULL;
    rank0 += strstr(cell, "|rank0|") != NULL;
    val += c.has_val;
    dims += c.ndims > 0;
  }
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    printf("  %-26s %5d cases, %4d invalid (%.1f%%)\n", sl_op_name((sl_op)op),
           op_n[op], op_inv[op],
           100.0 * op_inv[op] / (op_n[op] ? op_n[op] : 1));
    CHECK_MSG(op_n[op] > 1000, "%s: %d cases", sl_op_name((sl_op)op), op_n[op]);
    CHECK_MSG(op_inv[op] > 30, "%s: %d invalid", sl_op_name((sl_op)op),
              op_inv[op]);
    for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
      for (int r = 0; r < SL_REDUCE_COUNT; ++r)
        if (sl_fuzz_dtype_ok((sl_op)op, (sl_dtype)dt, (sl_reduce)r)) {
          CHECK_MSG(op_dt[op][dt] > 0, "%s never has dtype %s",
                    sl_op_name((sl_op)op), sl_dtype_name((sl_dtype)dt));
          CHECK_MSG(op_red[op][r] > 0, "%s never has reduce %s",
                    sl_op_name((sl_op)op), sl_reduce_name((sl_reduce)r));
        }
  }
  /* Valid cases never use a dtype or reduce the op does not take. */
  for (int op = 0; op < SL_OP_COUNT; ++op)
    for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt) {
      int ok = 0;
      for (int r = 0; r < SL_REDUCE_COUNT; ++r)
        ok |= sl_fuzz_dtype_ok((sl_op)op, (sl_dtype)dt, (sl_reduce)r);
      if (!ok)
        CHECK_MSG(op_dt[op][dt] == 0, "%s: valid case with dtype %s",
                  sl_op_name((sl_op)op), sl_dtype_name((sl_dtype)dt));
    }
  printf("  gather ranks:");
  for (int r = 0; r <= SL_MAX_DIMS; ++r) {
    printf(" %d:%d", r, gather_rank[r]);
    CHECK_MSG(gather_rank[r] > 0, "gather never has rank %d", r);
  }
  printf("\n  ip:");
  for (int p = 0; p < SL_IP_COUNT; ++p) {
    printf(" %s:%d", sl_index_pattern_name((sl_index_pattern)p), ip_n[p]);
    if (p == SL_IP_HIGH) continue; /* --huge's alone: test_huge.c */
    CHECK_MSG(ip_n[p] > 0, "ip=%s never appears",
              sl_index_pattern_name((sl_index_pattern)p));
  }
  printf("\n  dp:");
  for (int p = 0; p < SL_DP_COUNT; ++p) {
    printf(" %s:%d", sl_data_pattern_name((sl_data_pattern)p), dp_n[p]);
    CHECK_MSG(dp_n[p] > 0, "dp=%s never appears",
              sl_data_pattern_name((sl_data_pattern)p));
  }
  printf("\n  classes:");
  for (int k = 0; k < SL_FUZZ_CLASS_COUNT; ++k) {
    printf(" %s:%d", sl_fuzz_class_name((sl_fuzz_class)k), cls_n[k]);
    CHECK_MSG(cls_n[k] > 0, "class %s never appears",
              sl_fuzz_class_name((sl_fuzz_class)k));
  }
  printf("\n  layouts c:%d t:%d b:%d s:%d o:%d; shapes empty:%d large:%d "
         "unit:%d rank0:%d; self 0:%d 1:%d; it i32:%d i64:%d; val=%d dims=%d\n",
         layout_n[SL_LAYOUT_CONTIGUOUS], layout_n[SL_LAYOUT_TRANSPOSED],
         layout_n[SL_LAYOUT_BROADCAST], layout_n[SL_LAYOUT_STEPPED],
         layout_n[SL_LAYOUT_OVERLAPPED], empty, large, unit, rank0, self_n[0],
         self_n[1], it_n[0], it_n[1], val, dims);
  for (int l = 0; l <= SL_LAYOUT_OVERLAPPED; ++l) CHECK(layout_n[l] > 100);
  CHECK(empty > 500 && large > 500 && unit > 500 && rank0 > 100);
  CHECK(self_n[0] > 100 && self_n[1] > 100 && it_n[0] > 100 && it_n[1] > 100);
  CHECK(val > 50 && dims > 100);
}

/* The op and dtype masks restrict what is generated. */
static void test_masks(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.ops = 1u << SL_OP_SCATTER_REDUCE | 1u << SL_OP_MASKED_SCATTER;
  o.dtypes = 1u << SL_F16 | 1u << SL_BOOL;
  int seen[SL_OP_COUNT] = {0};
  for (int i = 0; i < 2000; ++i) {
    sl_case c;
    int inv = sl_fuzz_case(3, (uint64_t)i, &o, &c);
    ++seen[c.op];
    CHECK(c.op == SL_OP_SCATTER_REDUCE || c.op == SL_OP_MASKED_SCATTER);
    if (!inv)
      CHECK(c.dt == SL_F16 ||
            (c.dt == SL_BOOL && c.op == SL_OP_MASKED_SCATTER));
  }
  CHECK(seen[SL_OP_SCATTER_REDUCE] > 500 && seen[SL_OP_MASKED_SCATTER] > 500);
  /* A mask that leaves an op no dtype drops the op. */
  o.ops = 1u << SL_OP_DYNAMIC_SCATTER | 1u << SL_OP_GATHER;
  o.dtypes = 1u << SL_I8;
  for (int i = 0; i < 200; ++i) {
    sl_case c;
    sl_fuzz_case(3, (uint64_t)i, &o, &c);
    CHECK(c.op == SL_OP_GATHER);
  }
}

/* The reduce, index dtype and rank masks a provider's capabilities set. */
static void test_capability_masks(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.ops = 1u << SL_OP_SCATTER_REDUCE | 1u << SL_OP_GATHER;
  o.reduces = 1u << SL_REDUCE_AMIN;
  o.index_dtypes = 1u << SL_I32;
  o.max_rank = 2;
  int amin = 0, gathers = 0;
  for (int i = 0; i < 3000; ++i) {
    sl_case c;
    if (sl_fuzz_case(5, (uint64_t)i, &o, &c)) continue; /* invalid on purpose */
    gathers += c.op == SL_OP_GATHER;
    CHECK_MSG(c.it == SL_I32, "case %d: index dtype %s", i,
              sl_dtype_name(c.it));
    if (c.op == SL_OP_SCATTER_REDUCE) {
      CHECK_MSG(c.reduce == SL_REDUCE_AMIN, "case %d: reduce %s", i,
                sl_reduce_name(c.reduce));
      amin += c.reduce == SL_REDUCE_AMIN;
    }
    CHECK_MSG(c.arg[0].ndim <= 2, "case %d: x of rank %d", i, c.arg[0].ndim);
  }
  /* Ops without a reduce stay; the masked op is drawn. */
  CHECK(amin > 500 && gathers > 500);
}

static void check_max_elems(int64_t max, int n) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.max_elems = max;
  o.size_mix = 0; /* size-mix cases go past max_elems on purpose */
  o.stress = 0;   /* and so do contention cases */
  int64_t biggest = 0;
  int over = 0;
  for (int i = 0; i < n; ++i) {
    sl_case c;
    sl_fuzz_case(11, (uint64_t)i, &o, &c);
    const sl_case_spec *spec = sl_case_spec_of(c.op);
    for (int s = 0; s < spec->n_shapes; ++s) {
      const sl_case_shape *sh = &c.arg[spec->shape_slots[s]];
      if (!sh->present) continue;
      int64_t numel = 1;
      for (int d = 0; d < sh->ndim; ++d) numel *= sh->shape[d];
      if (numel > biggest) biggest = numel;
      if (numel > max && over++ < 3) {
        char line[SL_CASE_LINE_MAX];
        print_line(&c, line);
        fprintf(stderr, "over %lld elements: %s\n", (long long)max, line);
      }
    }
  }
  printf("max_elems=%lld: largest tensor %lld elements\n", (long long)max,
         (long long)biggest);
  CHECK_MSG(over == 0, "%d tensors over max_elems %lld", over, (long long)max);
  CHECK(biggest > max / 2);
}

/* Invalid dims of gather_nd / scatter_nd include an axis named twice, in
 * any pair of positions and spelled either way (d or d - K), and the
 * classifier calls it a dim error. */
static void test_repeated_dims(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.ops = (1u << SL_OP_GATHER_ND) | (1u << SL_OP_SCATTER_ND);
  o.invalid_pct = 100;
  int repeated = 0, later = 0, spelled_neg = 0, misclassified = 0;
  for (int i = 0; i < 6000; ++i) {
    sl_case c;
    sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    const int K = c.arg[0].ndim;
    for (int a = 0; a < c.ndims; ++a)
      for (int b = a + 1; b < c.ndims; ++b) {
        const int64_t da = c.dims[a] < 0 ? c.dims[a] + K : c.dims[a];
        const int64_t db = c.dims[b] < 0 ? c.dims[b] + K : c.dims[b];
        if (da != db || da < 0 || da >= K) continue;
        ++repeated;
        later += a > 0;
        spelled_neg += c.dims[a] < 0 || c.dims[b] < 0;
        misclassified += sl_fuzz_classify(&c) != SL_FUZZ_DIM;
      }
  }
  printf("repeated dims: %d cases (%d not at position 0, %d spelled "
         "negative)\n",
         repeated, later, spelled_neg);
  CHECK(repeated > 50 && later > 5 && spelled_neg > 10);
  CHECK(misclassified == 0);
}

/* The largest tensor of c, in elements. */
static int64_t largest(const sl_case *c) {
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  int64_t most = 0;
  for (int s = 0; s < spec->n_shapes; ++s) {
    const sl_case_shape *sh = &c->arg[spec->shape_slots[s]];
    if (!sh->present) continue;
    int64_t numel = 1;
    for (int d = 0; d < sh->ndim; ++d) numel *= sh->shape[d];
    if (numel > most) most = numel;
  }
  return most;
}

/* A size-mix case for a threshold of `need` elements: at most twice this. */
static int64_t window(int64_t need) {
  return need > SL_FUZZ_SIZE_MIX_MIN_ELEMS ? need : SL_FUZZ_SIZE_MIX_MIN_ELEMS;
}

/* Size mix: one valid case in size_mix is sized past a threshold of the
 * core's table, each threshold within reach is met (its case's largest
 * tensor between the threshold and twice it, or twice
 * SL_FUZZ_SIZE_MIX_MIN_ELEMS for smaller ones), and the other cases are the
 * ones a campaign without the mix draws. */
static void test_size_mix(void) {
  sl_fuzz_opts plain, mixed;
  sl_fuzz_opts_init(&plain);
  plain.size_mix = 0;
  /* The stress schedule reshapes a few cases after the size mix (its own
   * stream, so in both campaigns alike): a case both resized and stressed
   * has the stress shape, past no threshold by design. The overlapped
   * layouts (on with the mix only) are not what is compared here. */
  plain.stress = 0;
  plain.overlap = 0;
  mixed = plain;
  mixed.size_mix = 16;
  int changed = 0, changed_past = 0, n = 4000;
  char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX];
  for (int i = 0; i < n; ++i) {
    sl_case c, d;
    sl_fuzz_case(SEED, (uint64_t)i, &plain, &c);
    sl_fuzz_case(SEED, (uint64_t)i, &mixed, &d);
    print_line(&c, a);
    print_line(&d, b);
    if (strcmp(a, b) == 0) continue;
    ++changed;
    const int64_t most = largest(&d);
    for (int k = 0; k < sl_threshold_count(); ++k) {
      const int64_t need = sl_fuzz_threshold_elems(sl_threshold_at(k), d.dt);
      if (most >= need && most <= 2 * window(need)) {
        ++changed_past;
        break;
      }
    }
  }
  printf("size mix 1/16: %d of %d cases resized, %d of them past a "
         "threshold\n",
         changed, n, changed_past);
  /* About n / 16 (invalid cases are never resized). */
  CHECK(changed > n / 32 && changed < n / 8);
  CHECK(changed_past == changed);

  /* Every threshold within reach is met by cases of its ops: those that
   * name ops get their share of the mix (one draw in n) there, not the
   * share their ops would get by chance. */
  mixed.size_mix = 1;
  int met[64] = {0}, valid = 0, reachable = 0, all_met = 1;
  const int n_th = sl_threshold_count();
  for (int i = 0; i < 3000; ++i) {
    sl_case c;
    if (sl_fuzz_case(SEED, (uint64_t)i, &mixed, &c)) continue;
    ++valid;
    const int64_t most = largest(&c);
    for (int k = 0; k < n_th && k < 64; ++k) {
      const sl_threshold *t = sl_threshold_at(k);
      const int64_t need = sl_fuzz_threshold_elems(t, c.dt);
      const int its_op = !t->ops || ((t->ops >> c.op) & 1u);
      if (its_op && most >= need && most <= 2 * window(need)) ++met[k];
    }
  }
  for (int k = 0; k < n_th && k < 64; ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    /* Within reach for 8-byte elements at least. */
    if (2 * sl_fuzz_threshold_elems(t, SL_F64) > SL_FUZZ_SIZE_MIX_MAX_ELEMS)
      continue;
    ++reachable;
    /* a third of its share; chance alone gives an op-specific threshold
     * far less (measured, 3,000 cases: gather_wide_bytes met by 25 cases
     * of its ops without the op and dtype draws, 197 with them;
     * scatter_wide_bytes 8 and 198; 64 needed) */
    const int least = t->ops ? valid / n_th / 3 : 1;
    if (met[k] < least) {
      all_met = 0;
      fprintf(stderr,
              "size mix: %d cases sized for threshold %s (of its ops), "
              "expected at least %d\n",
              met[k], t->name, least);
    }
  }
  CHECK(reachable >= 10);
  CHECK(all_met);
}

/* Whether every input of c is contiguous. */
static int all_contiguous(const sl_case *c) {
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  for (int s = 0; s < spec->n_shapes; ++s)
    if (c->arg[spec->shape_slots[s]].layout != SL_LAYOUT_CONTIGUOUS) return 0;
  return 1;
}

/* Whether scatter_nd case c takes cpu.omp's split by target
 * (core/src/ops/scatter_nd/scatter_nd_split.c) on a team of two: a dtype
 * of the typed row loops, contiguous inputs, an index whose axes that are
 * not indexed have extent 1, and 2 x team_min_elements positions. */
static int nd_splits(const sl_case *c, int64_t team) {
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1];
  const int K = x->ndim, M = (int)index->shape[index->ndim - 1];
  if ((c->dt != SL_F32 && c->dt != SL_F64 && c->dt != SL_I32 &&
       c->dt != SL_I64) ||
      !all_contiguous(c) || index->ndim != K + 1)
    return 0;
  int indexed[SL_MAX_DIMS] = {0};
  for (int k = 0; k < M; ++k) indexed[c->ndims ? (c->dims[k] + K) % K : k] = 1;
  int64_t positions = 1;
  for (int d = 0; d < K; ++d) {
    if (!indexed[d] && index->shape[d] != 1) return 0;
    positions *= index->shape[d];
  }
  return positions >= 2 * team;
}

/* Large bad cases (casegen.c sl__large_bad): past max_elems, bad at the
 * bound (ip=oob: the extent, ip=neg: -1), contiguous; every op that is
 * given bad index values when small is given them large too (drawn per
 * op), and scatter_nd's meet its split by target with a value equal to
 * the extent (issue 48's planted nd_split_edge, missed before: 0 of
 * 250,000 cases of seed 1 qualified). */
static void test_large_bad(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.stress = 0;
  unsigned small_ops = 0, large_ops = 0;
  int large = 0, misdrawn = 0, n = 480000;
  for (int i = 0; i < n; ++i) {
    sl_case c;
    if (!sl_fuzz_case(SEED, (uint64_t)i, &o, &c)) continue;
    const sl_fuzz_class k = sl_fuzz_classify(&c);
    if (k != SL_FUZZ_OOB && k != SL_FUZZ_NEG) continue;
    if (largest(&c) <= o.max_elems) {
      small_ops |= 1u << c.op;
      continue;
    }
    ++large;
    large_ops |= 1u << c.op;
    misdrawn += c.ip_param != 0 || !all_contiguous(&c);
  }
  int64_t team = 0;
  for (int k = 0; k < sl_threshold_count(); ++k)
    if (strcmp(sl_threshold_at(k)->name, "team_min_elements") == 0)
      team = sl_threshold_at(k)->value;
  o.ops = 1u << SL_OP_SCATTER_ND;
  int nd_large = 0, nd_split = 0;
  for (int i = 0; i < 100000; ++i) {
    sl_case c;
    if (!sl_fuzz_case(SEED, (uint64_t)i, &o, &c) || largest(&c) <= o.max_elems)
      continue;
    ++nd_large;
    nd_split += c.ip == SL_IP_OOB && nd_splits(&c, team);
  }
  printf("large bad: %d of %d cases, ops %#x (small bad ones: %#x), %d not "
         "at the bound or not contiguous; scatter_nd alone: %d, %d of them "
         "oob on its split path\n",
         large, n, large_ops, small_ops, misdrawn, nd_large, nd_split);
  CHECK(team > 0);
  CHECK(large > n / 4096 && large < n / 1024);
  CHECK(large_ops == small_ops);
  CHECK(misdrawn == 0);
  /* measured: 30 of 167 (a seventh at least, or a 60-second campaign of
   * 250,000 cases meets the split with a bad value less than twice) */
  CHECK(nd_split >= nd_large / 7);
}

/* Overlapped inputs (overlap.h): about one valid case in `overlap` has
 * some, each on an input that may be overlapped, laid out so that
 * neighbours along dim 0 share memory (dim 0's stride below the n1 rows of
 * dim 1 it spans), printed and parsed back alike; never on an invalid
 * case, and never with the size mix off (the pinned case stream). */
static void test_overlap(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  int n = 16000, drawn = 0, bad = 0, off = 0;
  unsigned ops = 0;
  char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX], err[256];
  for (int i = 0; i < n; ++i) {
    sl_case c, back, fw;
    const int broken = sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    if (!sl_fuzz_overlapped(&c)) continue;
    ++drawn;
    ops |= 1u << c.op;
    bad += broken;
    print_line(&c, a);
    bad += sl_case_parse(a, &back, err, sizeof err) != 0;
    print_line(&back, b);
    bad += strcmp(a, b) != 0;
    sl_case_forward(&c, &fw);
    sl_bundle bun;
    sl_bundle_init(&bun, fw.op);
    for (int s = 0; s < SL_MAX_ARGS; ++s) {
      const sl_case_shape *sh = &fw.arg[s];
      if (!sh->present || sh->layout != SL_LAYOUT_OVERLAPPED) continue;
      bad += !sl_fuzz_overlap_eligible(&fw, s);
      if (sl_bundle_alloc(&bun, s, fw.dt, sh, "t", err, sizeof err)) {
        ++bad;
        continue;
      }
      const sl_tensor *t = &bun.call.arg[s];
      bad +=
          !(t->strides[0] > 0 && t->strides[0] < t->shape[1] * t->strides[1]);
    }
    sl_bundle_free(&bun);
  }
  o.size_mix = 0;
  for (int i = 0; i < 4000; ++i) {
    sl_case c;
    sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    off += sl_fuzz_overlapped(&c);
  }
  printf("overlap: %d of %d cases with overlapped inputs, ops %#x; %d "
         "misdrawn; %d with the size mix off\n",
         drawn, n, ops, bad, off);
  /* n / 16 of the valid cases that have an input to overlap (most) */
  CHECK(drawn > n / 40 && drawn < n / 12);
  CHECK(bad == 0);
  CHECK(off == 0);
  /* every op has an input that may be overlapped */
  CHECK(ops == (1u << SL_OP_COUNT) - 1);
}

/* Contention stress: one valid case in `stress` of a reducing op gets at
 * most SL_FUZZ_STRESS_MAX_DESTS targets and at least the core's largest
 * per-thread threshold times SL_FUZZ_STRESS_THREADS updates, its cell reads
 * stress:contention, the core accepts it, every stress op gets such cases,
 * and every other case is the one a campaign without the schedule draws. */
static void test_stress(void) {
  const int64_t need = sl_fuzz_stress_updates();
  int64_t per_thread = 0;
  for (int k = 0; k < sl_threshold_count(); ++k)
    if (sl_threshold_at(k)->unit == SL_TH_PER_THREAD &&
        sl_threshold_at(k)->value > per_thread)
      per_thread = sl_threshold_at(k)->value;
  CHECK(per_thread > 0 && need == per_thread * SL_FUZZ_STRESS_THREADS);
  sl_fuzz_opts plain, stressed;
  sl_fuzz_opts_init(&plain);
  plain.stress = 0;
  stressed = plain;
  stressed.stress = 16;
  int changed = 0, contention = 0, off_cells = 0, bad = 0, n = 4000;
  char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX], cell[256];
  for (int i = 0; i < n; ++i) {
    sl_case c, d;
    sl_fuzz_case(SEED, (uint64_t)i, &plain, &c);
    sl_fuzz_case(SEED, (uint64_t)i, &stressed, &d);
    off_cells += sl_fuzz_stress_shape(&c);
    print_line(&c, a);
    print_line(&d, b);
    if (strcmp(a, b) == 0) continue;
    ++changed;
    sl_fuzz_cell(&d, cell, sizeof cell);
    const int ok = sl_fuzz_stress_op(d.op) && sl_fuzz_stress_shape(&d) &&
                   strstr(cell, "|stress:contention|") &&
                   sl_fuzz_classify(&d) == SL_FUZZ_VALID;
    contention += ok;
    if (!ok && bad++ < 5)
      fprintf(stderr, "stress: not a contention case: %s\n  %s\n", b, cell);
  }
  printf("stress 1/16: %d of %d cases rewritten, %d contention cases (%lld "
         "updates or more, %d targets or fewer); %d contention cells with "
         "the schedule off\n",
         changed, n, contention, (long long)need, SL_FUZZ_STRESS_MAX_DESTS,
         off_cells);
  /* About n / 16 of the valid cases of the 8 stress ops of 12. */
  CHECK(changed > n / 64 && changed < n / 8);
  CHECK(contention == changed);
  /* Off, none: ordinary cases are far smaller (normal thresholds; in the
   * small-thresholds build a small case may meet the shape by chance). */
  if (!sl_thresholds_small()) CHECK(off_cells == 0);

  /* One in one: every stress op gets contention cases, which the core
   * accepts. */
  stressed.stress = 1;
  int met[SL_OP_COUNT] = {0}, rejected = 0, checked = 0;
  for (int i = 0; i < 1500; ++i) {
    sl_case c;
    if (sl_fuzz_case(SEED, (uint64_t)i, &stressed, &c)) continue;
    if (!sl_fuzz_stress_op(c.op)) continue;
    CHECK(sl_fuzz_stress_shape(&c));
    met[c.op] = 1;
    if (checked++ % 8) continue; /* sl_infer on one in 8: they are large */
    char msg[SL_MSG_LEN];
    int st = infer_case(&c, msg, sizeof msg);
    if (st != 0 && st != SL_STATUS_UNKNOWN_OP && rejected++ < 5) {
      print_line(&c, a);
      fprintf(stderr, "stress case rejected by sl_infer: %s\n  %s\n", msg, a);
    }
  }
  CHECK(rejected == 0);
  for (int op = 0; op < SL_OP_COUNT; ++op)
    if (sl_fuzz_stress_op((sl_op)op))
      CHECK_MSG(met[op], "no contention case of %s", sl_op_name((sl_op)op));
}

/* Every valid case is accepted by the core's infer, every invalid one is
 * rejected (ops the core does not have yet answer unknown_op: skipped). */
static void test_infer(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  int checked[SL_OP_COUNT][2] = {{0}}, skipped = 0, bad = 0;
  for (int i = 0; i < 20000; ++i) {
    sl_case c;
    int inv = sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    char msg[SL_MSG_LEN], line[SL_CASE_LINE_MAX];
    int st = infer_case(&c, msg, sizeof msg);
    if (st == SL_STATUS_UNKNOWN_OP) {
      ++skipped;
      continue;
    }
    ++checked[c.op][inv];
    int ok = inv ? st > 0 : st == 0;
    if (!ok && bad++ < 20) {
      print_line(&c, line);
      fprintf(stderr, "%s case %s by sl_infer: %s\n  %s\n",
              inv ? "invalid" : "valid",
              st < 0 ? "not built"
              : inv  ? "accepted"
                     : "rejected",
              msg, line);
    }
  }
  printf("sl_infer: %d skipped (unknown_op);", skipped);
  for (int op = 0; op < SL_OP_COUNT; ++op)
    if (checked[op][0] + checked[op][1])
      printf(" %s %d/%d", sl_op_name((sl_op)op), checked[op][0],
             checked[op][1]);
  printf(" (valid/invalid)\n");
  CHECK_MSG(bad == 0, "%d cases disagree with sl_infer", bad);
  /* gather and scatter are in the core from the start. */
  CHECK(checked[SL_OP_GATHER][0] > 1000 && checked[SL_OP_GATHER][1] > 50);
  CHECK(checked[SL_OP_SCATTER][0] > 1000 && checked[SL_OP_SCATTER][1] > 50);
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

static void test_cell(void) {
  sl_case c;
  char err[256], cell[256];
  CHECK(sl_case_parse("scatter_reduce dt=f32 it=i32 x=4x3 index=2x3:t src=2x3 "
                      "dim=0 reduce=amax self=0 ip=dup50 dp=nan seed=7",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell,
                 "scatter_reduce|f32|amax|self0|i32|t|rank2|dup|nan|valid");
  CHECK(sl_case_parse("gather dt=bool it=i64 x=scalar index=scalar dim=-1 "
                      "seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell, "gather|bool|-|-|i64|c|rank0|rand|rand|valid");
  CHECK(sl_case_parse("gather dt=f32 x=4x1 index=5x1:s2 dim=0 ip=oob seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell, "gather|f32|-|-|i64|s|unit|oob:extent|rand|invalid-oob");
  CHECK(sl_case_parse("masked_scatter dt=c64 x=2x0 mask=0:b source=3 seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell, "masked_scatter|c64|-|-|-|b|empty|-|rand|valid");
  CHECK(sl_case_parse("masked_scatter dt=f32 x=2x3 mask=3x3 source=6 seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell, "|invalid-mask");
  CHECK(sl_case_parse("index_reduce dt=i32 it=i64 x=40x30 index=5 "
                      "updates=40x5 dim=-1 reduce=mean self=1 seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  /* 1,200 elements of i32: past the largest threshold they reach. */
  const sl_threshold *reached = NULL;
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    if (sl_fuzz_threshold_elems(t, SL_I32) <= 1200 &&
        (!reached || sl_fuzz_threshold_elems(t, SL_I32) >
                         sl_fuzz_threshold_elems(reached, SL_I32)))
      reached = t;
  }
  char want[160];
  snprintf(want, sizeof want,
           "index_reduce|i32|mean|self1|i64|c|past:%s|rand|rand|valid",
           reached ? reached->name : "?");
  CHECK_CONTAINS(cell, want);
  CHECK(sl_case_parse("index_reduce dt=i32 it=i64 x=4x3 index=5 updates=4x6 "
                      "dim=1 reduce=mean seed=1",
                      &c, err, sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_SHAPE);
  CHECK(sl_case_parse("dynamic_scatter_backward dt=f64 feats=10x3 coors=10x3 "
                      "reduce=max ip=neg seed=1",
                      &c, err, sizeof err) == 0);
  sl_fuzz_cell(&c, cell, sizeof cell);
  CHECK_CONTAINS(cell,
                 "dynamic_scatter_backward|f64|max|-|-|c|rank2|neg|rand|valid");
  CHECK(sl_case_parse("scatter_reduce dt=bool x=4x3 index=2x3 src=2x3 dim=0 "
                      "reduce=mean seed=1",
                      &c, err, sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_DTYPE);
  CHECK(sl_case_parse("scatter_reduce dt=f32 x=4x3 index=2x3 src=2x3 dim=0 "
                      "reduce=none seed=1",
                      &c, err, sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_REDUCE);
  /* gather_nd: an indexed axis of index may be longer than x's, a
   * non-indexed one may not. */
  CHECK(sl_case_parse("gather_nd dt=f32 x=4x3 index=4x7x1 dims=1 seed=1", &c,
                      err, sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_VALID);
  CHECK(sl_case_parse("gather_nd dt=f32 x=4x3 index=5x4x1 seed=1", &c, err,
                      sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_SHAPE);
  CHECK(sl_case_parse("gather_nd dt=f32 x=4x3 index=5x3x1 seed=1", &c, err,
                      sizeof err) == 0);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_VALID);
}

/* voxels=V: coors holds exactly V distinct rows, every row valid, at the
 * seed's scale too, whatever the number of columns. */
static void test_voxels(void) {
  static const struct {
    const char *line;
    int64_t voxels;
  } cases[] = {
      {"dynamic_scatter dt=f32 feats=17176x4 coors=17176x3 voxels=13743 "
       "seed=4",
       13743},
      {"dynamic_scatter dt=f32 feats=9x2 coors=9x1 voxels=9 seed=1", 9},
      {"dynamic_scatter dt=f32 feats=9x2 coors=9x1 voxels=1 seed=2", 1},
      {"dynamic_scatter dt=f64 feats=500x2 coors=500x4:t voxels=37 seed=3", 37},
      {"dynamic_scatter dt=f32 feats=300x2 coors=300x40 voxels=299 seed=5",
       299},
      {"dynamic_scatter_backward dt=f32 feats=64x3 coors=64x3 reduce=max "
       "voxels=50 seed=6",
       50},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    sl_case c, fw;
    sl_bundle b;
    char err[256];
    CHECK_MSG(sl_case_parse(cases[k].line, &c, err, sizeof err) == 0, "%s: %s",
              cases[k].line, err);
    sl_case_forward(&c, &fw);
    CHECK_MSG(sl_gen_inputs(&fw, &b, err, sizeof err) == 0, "%s", err);
    const sl_tensor *coors = &b.call.arg[1];
    const int64_t n = coors->shape[0];
    int32_t *map = malloc(sizeof *map * (size_t)n), *counts = NULL;
    int64_t m = voxels(coors, map, &counts), unmapped = 0;
    for (int64_t r = 0; r < n; ++r) unmapped += map[r] < 0;
    CHECK_MSG(m == cases[k].voxels, "%s: %lld voxels", cases[k].line,
              (long long)m);
    CHECK_MSG(unmapped == 0, "%s: %lld rows invalid", cases[k].line,
              (long long)unmapped);
    free(map);
    free(counts);
    sl_bundle_free(&b);
  }
  /* The campaign draws some, and they shrink to cases that still parse:
   * fewer rows clamp V, and V can be dropped. */
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.ops = 1u << SL_OP_DYNAMIC_SCATTER | 1u << SL_OP_DYNAMIC_SCATTER_BACKWARD;
  int drawn = 0;
  char cell[256];
  for (uint64_t i = 0; i < 2000; ++i) {
    sl_case c;
    sl_fuzz_case(SEED, i, &o, &c);
    if (!c.voxels) continue;
    ++drawn;
    sl_fuzz_cell(&c, cell, sizeof cell);
    CHECK_MSG(strstr(cell, "|voxels|") != NULL, "cell %s", cell);
  }
  printf("voxels: %d of 2000 dynamic cases\n", drawn);
  CHECK(drawn > 100);
  sl_case c, cand[64];
  char err[256], line[SL_CASE_LINE_MAX];
  CHECK(sl_case_parse("dynamic_scatter dt=f32 feats=8x2 coors=8x3 reduce=max "
                      "voxels=8 seed=9",
                      &c, err, sizeof err) == 0);
  int n = sl_shrink_candidates(&c, cand, 64), halved = 0, dropped = 0;
  for (int j = 0; j < n; ++j) {
    print_line(&cand[j], line);
    halved |= strcmp(line, "dynamic_scatter dt=f32 feats=4x2 coors=4x3 "
                           "reduce=max voxels=4 seed=9") == 0;
    dropped |= strcmp(line, "dynamic_scatter dt=f32 feats=8x2 coors=8x3 "
                            "reduce=max seed=9") == 0;
  }
  CHECK(halved && dropped);
}

/* The threshold a shrunk case stays past (the note of a large repro). */
static void test_case_past(void) {
  sl_case c;
  char err[256];
  int64_t largest = -1;
  CHECK(sl_case_parse("gather dt=f32 x=4 index=4 dim=0 seed=1", &c, err,
                      sizeof err) == 0);
  CHECK(sl_fuzz_case_past(&c, &largest) == NULL && largest == 4);
  CHECK(sl_case_parse("gather dt=f32 x=40000 index=30000 dim=0 seed=1", &c, err,
                      sizeof err) == 0);
  const sl_threshold *t = sl_fuzz_case_past(&c, &largest);
  CHECK(t != NULL && largest == 40000);
  /* The largest one reached: none other lies between it and 40000. */
  const int64_t at = t ? sl_fuzz_threshold_elems(t, SL_F32) : -1;
  CHECK(at > 0 && at <= 40000);
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *o = sl_threshold_at(k);
    const int64_t e = sl_fuzz_threshold_elems(o, SL_F32);
    const int gathers = !o->ops || ((o->ops >> SL_OP_GATHER) & 1u);
    CHECK_MSG(!(gathers && e > at && e <= 40000), "%s (%lld) lies between",
              o->name, (long long)e);
  }
  /* Only a threshold of the case's own op (or of any op) is named. */
  CHECK(sl_case_parse("masked_scatter dt=f32 x=1458 mask=1458 source=749 "
                      "seed=1",
                      &c, err, sizeof err) == 0);
  t = sl_fuzz_case_past(&c, &largest);
  CHECK_MSG(t == NULL || !t->ops || ((t->ops >> SL_OP_MASKED_SCATTER) & 1u),
            "masked_scatter said past %s", t ? t->name : "-");
  CHECK(sl_fuzz_case_past(NULL, NULL) == NULL);
}

int main(void) {
  test_case_past();
  test_capability_masks();
  test_voxels();
  test_determinism_and_round_trip();
  test_invalid_share();
  test_coverage();
  test_masks();
  check_max_elems(4096, 20000);
  check_max_elems(256, 5000);
  test_size_mix();
  test_large_bad();
  test_overlap();
  test_stress();
  test_repeated_dims();
  test_infer();
  test_cell();
  return sl_test_finish("test_casegen");
}
