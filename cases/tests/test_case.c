/* Case lines: print -> parse -> print is the identity on many generated
 * cases; malformed lines get messages that name the offending word. */
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "datagen.h"
#include "rng.h"
#include "sl_test.h"
#include "text_lines.h"

static void random_shape(sl_rng *r, sl_case_shape *s) {
  memset(s, 0, sizeof *s);
  s->present = 1;
  s->ndim = (int)sl_rng_below(r, SL_MAX_DIMS + 1);
  for (int d = 0; d < s->ndim; ++d) s->shape[d] = (int64_t)sl_rng_below(r, 50);
  s->layout = (sl_layout)sl_rng_below(r, 5);
  if (s->layout == SL_LAYOUT_STEPPED || s->layout == SL_LAYOUT_OVERLAPPED)
    s->step = 2 + (int)sl_rng_below(r, 15);
}

/* A random case using every key its op allows. */
static void random_case(sl_rng *r, sl_case *c) {
  sl_op op = (sl_op)sl_rng_below(r, SL_OP_COUNT);
  sl_case_init(c, op);
  const sl_case_spec *spec = sl_case_spec_of(op);
  c->dt = (sl_dtype)sl_rng_below(r, SL_DTYPE_COUNT);
  if (spec->keys & SL_KEY_IT) c->it = (sl_dtype)sl_rng_below(r, SL_DTYPE_COUNT);
  if ((spec->keys & SL_KEY_VAL) && sl_rng_below(r, 2)) {
    c->has_val = 1;
    /* An integer dt takes integer literals only (parse refuses others). */
    c->val_is_int = sl_dtype_is_int(c->dt) || (int)sl_rng_below(r, 2);
    if (c->val_is_int) {
      c->ival = (int64_t)sl_rng_next(r);
      c->val = (double)c->ival;
    } else {
      c->val = (sl_rng_unit(r) - 0.5) * 1e6;
    }
  }
  for (int i = 0; i < spec->n_shapes; ++i) {
    int slot = spec->shape_slots[i];
    if (slot == spec->optional_slot && c->has_val) continue;
    random_shape(r, &c->arg[slot]);
  }
  if (spec->keys & SL_KEY_DIM) c->dim = (int64_t)sl_rng_below(r, 17) - 8;
  if (spec->keys & SL_KEY_DIMS) {
    c->ndims = (int)sl_rng_below(r, SL_MAX_DIMS + 1);
    for (int i = 0; i < c->ndims; ++i)
      c->dims[i] = (int64_t)sl_rng_below(r, 9) - 4;
  }
  if (spec->keys & SL_KEY_REDUCE)
    c->reduce = (sl_reduce)sl_rng_below(r, SL_REDUCE_COUNT);
  if (spec->keys & SL_KEY_SELF) c->include_self = (int)sl_rng_below(r, 2);
  if (spec->keys & SL_KEY_AT) c->at = (int64_t)sl_rng_below(r, 1000) - 500;
  c->ip = (sl_index_pattern)sl_rng_below(r, SL_IP_COUNT);
  if (c->ip == SL_IP_DUP) c->ip_param = 1 + (int)sl_rng_below(r, 100);
  c->dp = (sl_data_pattern)sl_rng_below(r, SL_DP_COUNT);
  c->seed = sl_rng_next(r);
  if (spec->keys & SL_KEY_VOXELS) { /* where coors can hold them */
    const sl_case_shape *coors =
        &c->arg[op == SL_OP_DYNAMIC_SCATTER_BACKWARD ? 0 : 1];
    c->voxels = coors->ndim == 2 && coors->shape[0] > 0
                    ? 1 + (int64_t)sl_rng_below(r, (uint64_t)coors->shape[0])
                    : 0;
    if (c->voxels && sl_case_check_voxels(c, NULL, 0)) c->voxels = 0;
  }
}

static void test_round_trip(void) {
  sl_rng r;
  sl_rng_seed(&r, 42, 0);
  for (int i = 0; i < 20000; ++i) {
    sl_case c, d;
    char a[2048], b[2048], err[256];
    random_case(&r, &c);
    int n = sl_case_print(&c, a, sizeof a);
    CHECK(n > 0 && (size_t)n < sizeof a);
    int rc = sl_case_parse(a, &d, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", a, err);
    if (rc) continue;
    sl_case_print(&d, b, sizeof b);
    CHECK_MSG(strcmp(a, b) == 0, "\n  %s\n  %s", a, b);
    CHECK(d.seed == c.seed && d.op == c.op && d.dt == c.dt);
    if (c.has_val && c.val_is_int) CHECK(d.ival == c.ival);
    if (c.has_val && !c.val_is_int) CHECK(d.val == c.val);
  }
}

static void test_examples(void) {
  sl_case c;
  char err[256], buf[512];
  const char *line = "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=0";
  CHECK(sl_case_parse(line, &c, err, sizeof err) == 0);
  sl_case_print(&c, buf, sizeof buf);
  CHECK(strcmp(buf, line) == 0);
  CHECK(c.arg[0].ndim == 2 && c.arg[0].shape[0] == 4 && c.arg[1].shape[1] == 3);
  /* Defaults are printed, so a short line becomes its canonical form. */
  CHECK(sl_case_parse("scatter x=4x3 index=2x3 val=2.5", &c, err, sizeof err) ==
        0);
  sl_case_print(&c, buf, sizeof buf);
  CHECK(strcmp(buf,
               "scatter dt=f32 it=i64 x=4x3 index=2x3 dim=0 val=2.5 seed=0") ==
        0);
  CHECK(sl_case_parse(
            "scatter_reduce dt=bf16 it=i32 x=scalar index=0x5:t src=3x4:s3 "
            "dim=-1 reduce=amin self=0 ip=dup30 dp=negzero "
            "seed=18446744073709551615",
            &c, err, sizeof err) == 0);
  CHECK(c.seed == UINT64_MAX && c.ip_param == 30 && c.arg[2].step == 3);
  CHECK(c.arg[0].ndim == 0 && c.arg[1].layout == SL_LAYOUT_TRANSPOSED);
  /* voxels= prints after the op's parameters, before the patterns. */
  CHECK(sl_case_parse("dynamic_scatter_backward seed=4 voxels=13743 "
                      "coors=17176x3 feats=17176x128 reduce=max",
                      &c, err, sizeof err) == 0);
  CHECK(c.voxels == 13743);
  sl_case_print(&c, buf, sizeof buf);
  CHECK(strcmp(buf, "dynamic_scatter_backward dt=f32 feats=17176x128 "
                    "coors=17176x3 reduce=max voxels=13743 seed=4") == 0);
  CHECK(sl_case_parse("dynamic_scatter feats=5x2 coors=5x3 voxels=5", &c, err,
                      sizeof err) == 0);
  CHECK(c.voxels == 5);
}

static void test_errors(void) {
  sl_case c;
  char err[256];
  CHECK(sl_case_parse("", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "expected an op name");
  CHECK(sl_case_parse("gathr x=1", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "got \"gathr\"");
  CHECK(sl_case_parse("gather x=4x3", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "index: expected its shape");
  CHECK(sl_case_parse("gather x=4xx3 index=1", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "x: expected extents");
  CHECK(sl_case_parse("gather x=4x-3 index=1", &c, err, sizeof err) == -1);
  CHECK(sl_case_parse("gather x=1x1x1x1x1x1x1x1x1 index=1", &c, err,
                      sizeof err) == -1);
  CHECK_CONTAINS(err, "at most 8 dims");
  CHECK(sl_case_parse("gather x=4 index=4 dt=f128", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "dt: expected a dtype");
  CHECK(sl_case_parse("gather x=4 index=4 reduce=sum", &c, err, sizeof err) ==
        -1);
  CHECK_CONTAINS(err, "reduce: not a parameter of gather");
  CHECK(sl_case_parse("gather x=4 index=4 dim=0 dim=1", &c, err, sizeof err) ==
        -1);
  CHECK_CONTAINS(err, "dim: given twice");
  CHECK(sl_case_parse("gather x=4 index=4 seed=-1", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "seed: expected an unsigned integer");
  CHECK(sl_case_parse("gather x=4 index=4 bogus", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "expected key=value");
  /* An integer x takes integer scalars only: 1.5, inf, nan and a number
   * past int64 ran truncated (as 1, 0, 0, 0) before; bool and float take
   * them. */
  const char *not_int[] = {"1.5", "inf", "nan", "10000000000000000000"};
  for (int i = 0; i < 4; ++i) {
    char line[128];
    snprintf(line, sizeof line, "scatter dt=i32 x=4 index=2 dim=0 val=%s",
             not_int[i]);
    CHECK_MSG(sl_case_parse(line, &c, err, sizeof err) == -1, "%s", line);
    CHECK_CONTAINS(err, "val: expected an integer for dt=i32");
  }
  CHECK(sl_case_parse("scatter val=2.5 x=4 index=2 dim=0 dt=u8", &c, err,
                      sizeof err) == -1);
  CHECK(sl_case_parse("scatter dt=i64 x=4 index=2 dim=0 val=-7", &c, err,
                      sizeof err) == 0);
  CHECK(sl_case_parse("scatter dt=bool x=4 index=2 dim=0 val=0.5", &c, err,
                      sizeof err) == 0);
  CHECK(sl_case_parse("scatter dt=f16 x=4 index=2 dim=0 val=inf", &c, err,
                      sizeof err) == 0);
  CHECK(sl_case_parse("scatter x=4 index=4 src=4 val=1", &c, err, sizeof err) ==
        -1);
  CHECK_CONTAINS(err, "got both");
  CHECK(sl_case_parse("gather x=4:q index=4", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "x: expected layout");
  CHECK(sl_case_parse("gather x=4x3:o1 index=4", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "x: expected layout overlap o2..o16, got \"o1\"");
  CHECK(sl_case_parse("gather x=4x3 index=4x3:o17", &c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "index: expected layout overlap o2..o16, got \"o17\"");
  CHECK(sl_case_parse("gather x=4 index=4 ip=dup0", &c, err, sizeof err) == -1);
  CHECK(sl_case_parse("gather x=4 index=4 voxels=2", &c, err, sizeof err) ==
        -1);
  CHECK_CONTAINS(err, "voxels: not a parameter of gather");
  const struct {
    const char *line, *says;
  } vox[] = {
      {"dynamic_scatter feats=5x2 coors=5x3 voxels=0",
       "voxels: expected a positive integer, got \"0\""},
      {"dynamic_scatter feats=5x2 coors=5x3 voxels=x",
       "voxels: expected a positive integer, got \"x\""},
      {"dynamic_scatter feats=5x2 coors=5x3 voxels=6",
       "voxels: expected at most coors' 5 rows (every voxel holds a point), "
       "got 6"},
      {"dynamic_scatter feats=5x2 coors=5x3 voxels=2 ip=unique",
       "voxels: draws coors itself, expected ip=rand (the default), got "
       "ip=unique"},
      {"dynamic_scatter feats=5x2 coors=5x3:b voxels=2",
       "voxels: expected coors whose rows can differ, got the broadcast "
       "layout"},
      {"dynamic_scatter feats=5x2 coors=5x3:o2 voxels=2",
       "voxels: expected coors whose rows can differ, got the overlapped "
       "layout (coors=...:o2)"},
      {"dynamic_scatter feats=5x2 coors=5 voxels=2",
       "voxels: expected coors of shape NxD with D >= 1, got rank 1"},
      {"dynamic_scatter feats=5x2 coors=5x0 voxels=2",
       "voxels: expected coors of shape NxD with D >= 1, got rank 2 with 0 "
       "columns"},
      {"dynamic_scatter_backward feats=5x2 coors=5x3 voxels=2 voxels=3",
       "voxels: given twice"},
  };
  for (size_t i = 0; i < sizeof vox / sizeof vox[0]; ++i) {
    CHECK_MSG(sl_case_parse(vox[i].line, &c, err, sizeof err) == -1, "%s",
              vox[i].line);
    CHECK_CONTAINS(err, vox[i].says);
  }
  c.op = SL_OP_GATHER;
  CHECK(sl_case_check_voxels(&c, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "voxels: expected a dynamic op, got gather");
  CHECK(sl_case_check_voxels(NULL, err, sizeof err) == -1);
  CHECK(sl_case_parse("gather x=99999999999999999999 index=4", &c, err,
                      sizeof err) == -1);
}

/* Collects the lines sl_case_file_each hands over. */
typedef struct seen_lines {
  int n;
  char first[64], last[64];
} seen_lines;

static int collect(void *user, const char *line, long line_no) {
  seen_lines *s = user;
  (void)line_no;
  snprintf(s->n++ ? s->last : s->first, 64, "%s", line);
  return 0;
}

/* Writes n bytes of data to path. */
static void write_file(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, n, f) == n);
  fclose(f);
}

/*
 * Batch files are read a line at a time, whole: a comment padded past 4,200
 * bytes once ran its tail as a second case (fgets into a fixed buffer), and
 * an embedded NUL cut a line short (`dim=0\0 seed=5` ran with seed 0). Now
 * the long comment stays a comment, a NUL or a line past SL_TEXT_LINE_MAX
 * is an error naming the line, and /dev/zero is refused at once.
 */
static void test_batch_lines(void) {
  char dir[] = "/tmp/sl_case_XXXXXX";
  if (!mkdtemp(dir)) return;
  char path[64], err[512];
  snprintf(path, sizeof path, "%s/b.txt", dir);
  static char big[80000];
  const char *a = "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1";
  int k = snprintf(big, sizeof big, "%s\n# ", a);
  memset(big + k, 'x', 5000);
  k += 5000;
  k += snprintf(big + k, sizeof big - k, " scatter x=4 index=4 dim=0\n%s\n",
                "gather dt=f32 it=i64 x=4 index=2 dim=0 seed=2");
  write_file(path, big, (size_t)k);
  seen_lines s = {0};
  CHECK_MSG(sl_case_file_each(path, collect, &s, err, sizeof err) == 0, "%s",
            err);
  CHECK_MSG(s.n == 2 && strcmp(s.first, a) == 0 &&
                strcmp(s.last, "gather dt=f32 it=i64 x=4 index=2 dim=0 "
                               "seed=2") == 0,
            "%d lines: '%s' ... '%s'", s.n, s.first, s.last);

  /* A NUL inside the second line. */
  const char nul[] = "gather dt=f32 it=i64 x=4 index=2 dim=0 seed=1\n"
                     "gather dt=f32 it=i64 x=4 index=2 dim=0\0 seed=5\n";
  write_file(path, nul, sizeof nul - 1);
  memset(&s, 0, sizeof s);
  CHECK(sl_case_file_each(path, collect, &s, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "line 2: expected text, got a NUL byte at column 39");

  /* A line past the limit. */
  memset(big, 'a', SL_TEXT_LINE_MAX + 10);
  big[SL_TEXT_LINE_MAX + 10] = '\n';
  write_file(path, big, SL_TEXT_LINE_MAX + 11);
  CHECK(sl_case_file_each(path, collect, &s, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "line 1: expected at most 65536 bytes, got more");
  /* Exactly at the limit (with a CRLF ending) is a line. */
  big[SL_TEXT_LINE_MAX] = '\r';
  big[SL_TEXT_LINE_MAX + 1] = '\n';
  write_file(path, big, SL_TEXT_LINE_MAX + 2);
  memset(&s, 0, sizeof s);
  CHECK_MSG(sl_case_file_each(path, collect, &s, err, sizeof err) == 0 &&
                s.n == 1,
            "%s", err);

  CHECK(sl_case_file_each("/dev/zero", collect, &s, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "line 1: expected text, got a NUL byte at column 1");
  CHECK(sl_case_file_each("/nonexistent/b.txt", collect, &s, err, sizeof err) ==
        -1);
  CHECK_CONTAINS(err, "/nonexistent/b.txt: cannot open");
  remove(path);
  rmdir(dir);
}

/* ip=oob<k> / neg<k>: parsed, printed back, refused past the table, and
 * the values real kernels got wrong (hand-written here), an i32 index
 * clamped to what it holds. */
static void test_bad_index_values(void) {
  sl_case c;
  char err[256], line[SL_CASE_LINE_MAX];
  CHECK(sl_case_parse("gather dt=f32 x=4x3 index=2x3 dim=0 ip=oob3 seed=1", &c,
                      err, sizeof err) == 0);
  CHECK(c.ip == SL_IP_OOB && c.ip_param == 3);
  CHECK(sl_case_print(&c, line, sizeof line) > 0);
  CHECK_CONTAINS(line, " ip=oob3 ");
  CHECK(sl_case_parse("gather dt=f32 x=4x3 index=2x3 dim=0 ip=neg seed=1", &c,
                      err, sizeof err) == 0);
  CHECK(c.ip == SL_IP_NEG && c.ip_param == 0);
  CHECK(sl_case_print(&c, line, sizeof line) > 0);
  CHECK_CONTAINS(line, " ip=neg ");
  CHECK(sl_case_parse("gather dt=f32 x=4x3 index=2x3 dim=0 ip=oob9 seed=1", &c,
                      err, sizeof err) != 0);
  CHECK_CONTAINS(err, "oob<1..4>");
  CHECK(sl_case_parse("gather dt=f32 x=4x3 index=2x3 dim=0 ip=neg0 seed=1", &c,
                      err, sizeof err) != 0);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 0, 4, SL_I64) == 4);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 1, 4, SL_I64) == 2147483647);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 2, 4, SL_I64) == 2147483648);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 3, 4, SL_I64) == 4294967296);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 3, 4, SL_I32) == 2147483647);
  CHECK(sl_ip_bad_value(SL_IP_OOB, 4, 4, SL_I64) == INT64_MAX);
  CHECK(sl_ip_bad_value(SL_IP_NEG, 0, 4, SL_I64) == -1);
  CHECK(sl_ip_bad_value(SL_IP_NEG, 1, 4, SL_I64) == -4);
  CHECK(sl_ip_bad_value(SL_IP_NEG, 3, 4, SL_I64) == INT64_MIN);
  CHECK(sl_ip_bad_value(SL_IP_NEG, 3, 4, SL_I32) == -2147483647 - 1);
  CHECK(strcmp(sl_ip_bad_label(SL_IP_OOB, 2), "2^31") == 0);
}

/* What each forward op's slot 1 holds, against the core's name for it, so
 * that a row naming the wrong role fails; a backward op's row has its
 * forward's role. */
static void test_arg1_roles(void) {
  static const char *const names[] = {
#define SL__ARG1_NAME(e) #e,
      SL_CASE_ARG1_MAP(SL__ARG1_NAME)
#undef SL__ARG1_NAME
  };
  static const struct {
    sl_case_arg1 role;
    const char *slot1;
  } expect[] = {{SL_ARG1_INDEX, "index"},       {SL_ARG1_INDEX_VECTOR, "index"},
                {SL_ARG1_INDEX_TUPLE, "index"}, {SL_ARG1_LENGTHS, "lengths"},
                {SL_ARG1_SLICE, "value"},       {SL_ARG1_MASK, "mask"},
                {SL_ARG1_COORS, "coors"}};
  int vectors = 0, tuples = 0, backward = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    const sl_case_spec *s = sl_case_spec_of((sl_op)op);
    CHECK_MSG(s->op == (sl_op)op, "op %s: its row holds op %d",
              sl_op_name((sl_op)op), (int)s->op);
    const sl_case_spec *f = sl_case_spec_of(s->forward);
    CHECK_MSG(s->arg1 == f->arg1, "%s: role %s, its forward's %s",
              sl_op_name((sl_op)op), names[s->arg1], names[f->arg1]);
    if (sl_case_is_backward((sl_op)op)) {
      ++backward;
      continue;
    }
    const char *slot1 = sl_op_get((sl_op)op)->arg_names[1];
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; ++k)
      if (expect[k].role == s->arg1)
        CHECK_MSG(strcmp(slot1, expect[k].slot1) == 0, "%s: role %s, slot 1 %s",
                  sl_op_name((sl_op)op), names[s->arg1], slot1);
    /* a tuple index comes with dims, a vector index is index_reduce's */
    CHECK_MSG((s->arg1 == SL_ARG1_INDEX_TUPLE) == !!(s->keys & SL_KEY_DIMS),
              "%s", sl_op_name((sl_op)op));
    vectors += s->arg1 == SL_ARG1_INDEX_VECTOR;
    tuples += s->arg1 == SL_ARG1_INDEX_TUPLE;
  }
  CHECK(vectors == 1 && tuples == 2 && backward == 4);
  CHECK(sl_case_spec_of(SL_OP_INDEX_REDUCE)->arg1 == SL_ARG1_INDEX_VECTOR);
  CHECK(sl_case_reduces_along_dim(SL_OP_SCATTER_REDUCE) &&
        sl_case_reduces_along_dim(SL_OP_INDEX_REDUCE) &&
        !sl_case_reduces_along_dim(SL_OP_SCATTER_ND) &&
        !sl_case_reduces_along_dim(SL_OP_SCATTER) &&
        !sl_case_reduces_along_dim(SL_OP_SCATTER_REDUCE_BACKWARD));
  /* the source slot: scatter's only without val=, never gather's */
  sl_case c;
  sl_case_init(&c, SL_OP_SCATTER);
  CHECK(sl_case_has_src(&c));
  c.has_val = 1;
  CHECK(!sl_case_has_src(&c));
  sl_case_init(&c, SL_OP_GATHER);
  CHECK(!sl_case_has_src(&c));
  sl_case_init(&c, SL_OP_SEGMENT_REDUCE);
  c.has_val = 1;
  CHECK(!sl_case_has_src(&c) && sl_case_takes_values(SL_OP_SEGMENT_REDUCE) &&
        !sl_case_has_index(SL_OP_SEGMENT_REDUCE));
}

/* Layout o<k> (overlapped): parsed and printed back, and laid out as an
 * unfold view: dim 0 steps by ceil(n1 / k) rows of dim 1, so that
 * neighbours along dim 0 share memory, in a buffer that holds each shared
 * row once; contiguous where there is nothing to share. */
static void test_overlapped(void) {
  sl_case c;
  char err[256], buf[512];
  const char *line = "gather dt=f32 it=i64 x=3x5x2:o2 index=3x4x2:o4 dim=1 "
                     "seed=0";
  CHECK(sl_case_parse(line, &c, err, sizeof err) == 0);
  sl_case_print(&c, buf, sizeof buf);
  CHECK(strcmp(buf, line) == 0);
  CHECK(c.arg[0].layout == SL_LAYOUT_OVERLAPPED && c.arg[0].step == 2);
  sl_bundle b;
  sl_bundle_init(&b, SL_OP_GATHER);
  CHECK(sl_bundle_alloc(&b, 0, SL_F32, &c.arg[0], "x", err, sizeof err) == 0);
  const sl_tensor *x = &b.call.arg[0];
  /* n1 = 5, k = 2: 3 rows of 2 elements on; rows 0..4, 3..7, 6..10 */
  CHECK(x->strides[0] == 6 && x->strides[1] == 2 && x->strides[2] == 1);
  CHECK(b.bytes[0] == (size_t)(11 * 2) * sizeof(float));
  /* x[0][3] and x[1][0] are one element */
  CHECK(3 * x->strides[1] == x->strides[0]);
  CHECK(sl_bundle_alloc(&b, 1, SL_I64, &c.arg[1], "index", err, sizeof err) ==
        0);
  CHECK(b.call.arg[1].strides[0] == 2 && b.bytes[1] == 12 * sizeof(int64_t));
  /* nothing to share: rank 1, an empty extent */
  const char *plain[] = {"gather x=7:o3 index=4", "gather x=0x5:o2 index=4"};
  for (int i = 0; i < 2; ++i) {
    CHECK(sl_case_parse(plain[i], &c, err, sizeof err) == 0);
    CHECK(sl_bundle_alloc(&b, 0, SL_F32, &c.arg[0], "x", err, sizeof err) == 0);
    CHECK(b.call.arg[0].strides[0] == (i ? 5 : 1));
  }
  sl_bundle_free(&b);
}

int main(void) {
  test_overlapped();
  test_arg1_roles();
  test_bad_index_values();
  test_round_trip();
  test_examples();
  test_errors();
  test_batch_lines();
  return sl_test_finish("test_case");
}
