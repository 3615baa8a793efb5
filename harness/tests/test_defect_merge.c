/*
 * The defect above the ops' groups (failure_group.h: sl_defect_signature,
 * defect_relation.h): groups of two ops merge when the outputs of their
 * minimal cases relate to the right ones alike (the same named other call
 * answers them), and stay apart when they do not, however alike the rest.
 * The relations are checked on hand-computed tensors against LibTorch.
 */
#include <math.h>
#include <string.h>

#include "defect_relation.h"
#include "failure_group.h"
#include "failure_report.h"
#include "sl_test.h"
#include "variant_call.h"

/* x = [5, 1], index = [0, 0, 1], src = [3, 7, 2] along dim 0, amin with
 * include_self: the right answer is [3, 1]; amax's would be [7, 2],
 * include_self=0's [3, 2], x unchanged [5, 1]. */
static float x_[2] = {5, 1}, src_[3] = {3, 7, 2};
static int64_t index_[3] = {0, 0, 1};
static int self_ = 1; /* include_self of the calls */

static sl_case case_of(const char *op) {
  char line[256], err[256];
  /* index_reduce names its third input updates */
  snprintf(line, sizeof line,
           "%s dt=f32 it=i64 x=2 index=3 %s=3 dim=0 reduce=amin self=1 seed=1",
           op, strcmp(op, "index_reduce") == 0 ? "updates" : "src");
  sl_case c;
  memset(&c, 0, sizeof c);
  CHECK_MSG(sl_case_parse(line, &c, err, sizeof err) == 0, "%s: %s", line, err);
  c.include_self = self_;
  return c;
}

/* The relation of `got` as op's output on the inputs above. */
static void relation(sl_op op, const float got[2], char *out, size_t len) {
  const sl_case c = case_of(sl_op_name(op));
  const int64_t two = 2, three = 3;
  static float out_[2];
  memcpy(out_, got, sizeof out_);
  sl_call call;
  memset(&call, 0, sizeof call);
  call.op = op;
  call.arg[0] = sl_tensor_make(SL_F32, 1, &two, x_);
  call.arg[1] = sl_tensor_make(SL_I64, 1, &three, index_);
  call.arg[2] = sl_tensor_make(SL_F32, 1, &three, src_);
  call.arg[3] = sl_tensor_make(SL_F32, 1, &two, out_);
  call.p.reduce = SL_REDUCE_AMIN;
  call.p.include_self = self_;
  sl_defect_relation(&c, &call, out, len);
}

/* The defect of a failure of op with the variants key, message, relation
 * and reduce; *key_len (when not NULL) the length of the key it starts
 * with (0: the group's own). */
static sl_failure_sig defect_of(const char *op, const char *key,
                                const char *message, const char *rel,
                                const char *reduce, size_t *key_len) {
  sl_case c = case_of(op);
  for (int r = 0; r < SL_REDUCE_COUNT; ++r)
    if (strcmp(sl_reduce_name((sl_reduce)r), reduce) == 0) c.reduce = r;
  sl_failure_sig group, d;
  sl_failure_signature(&c, "cpu.serial,cpu.omp", "failed", message, &group);
  const size_t n =
      sl_defect_signature(&c, key, "failed", message, rel, &group, &d);
  if (key_len) *key_len = n;
  return d;
}

static sl_failure_sig defect(const char *op, const char *key,
                             const char *message, const char *rel,
                             const char *reduce) {
  return defect_of(op, key, message, rel, reduce, NULL);
}

/* Adds a group of op (ids 1, 2, ... in the order added) whose defect has
 * the variants key, the message and the relation; the groups' defects. */
static int add_group(sl_failure_groups *g, const char *op, const char *key,
                     const char *message, const char *rel) {
  size_t len;
  const sl_failure_sig d = defect_of(op, key, message, rel, "amin", &len);
  char id[17], sig[128];
  snprintf(id, sizeof id, "%016x", g->n + 1);
  snprintf(sig, sizeof sig, "%s %s failed | amin out | a value wrong", op, key);
  const sl_failure_defect def = {d.id, d.text, len};
  CHECK(sl_failure_groups_add(g, id, sig, key, "failed", op, op, message,
                              &def) == 0);
  return g->defects;
}

/* The same defect met in overlapping variant sets (an f32 path that only
 * some variants take) is one, named by the union; disjoint sets stay two
 * defects until a third set bridges them. */
static void overlapping_variants(const char *m1, const char *rel) {
  sl_failure_groups g = {0};
  CHECK(add_group(&g, "scatter_reduce", "cpu.atomic,cpu.lock", m1, rel) == 1);
  CHECK(add_group(&g, "index_reduce", "cpu.serial", m1, rel) == 2);
  CHECK(add_group(&g, "index_reduce", "cpu.lock,cpu.sorted", m1, rel) == 2);
  CHECK_MSG(strncmp(g.v[0].defect, "cpu.atomic,cpu.lock,cpu.sorted failed",
                    37) == 0 &&
                strcmp(g.v[0].defect_id, g.v[2].defect_id) == 0,
            "union: %s", g.v[0].defect);
  /* "every variant" shares a variant with any set: all three join. */
  CHECK(add_group(&g, "scatter_reduce", "every variant", m1, rel) == 1);
  CHECK_MSG(strncmp(g.v[1].defect, "every variant failed", 20) == 0,
            "every: %s", g.v[1].defect);
  /* Another relation is another defect, whatever its variants. */
  CHECK(add_group(&g, "scatter_reduce", "cpu.atomic", m1, "= x") == 2);
  sl_failure_groups_free(&g);
  char out[64];
  CHECK(!sl_failure_variants_union("cpu.a,cpu.b", 11, "cpu.c", 5, out,
                                   sizeof out));
  CHECK(sl_failure_variants_union("cpu.c,cpu.d", 11, "cpu.a,cpu.c", 11, out,
                                  sizeof out) &&
        strcmp(out, "cpu.a,cpu.c,cpu.d") == 0);
}

/* A check on the code every op goes through (the entry's refusals, the
 * allocation error paths) is one defect in every op and reduce, without a
 * relation; a value wrong without one is not. */
static void shared_checks(void) {
  const char *refused =
      "sl_run_variant given an output over an input (out): expected "
      "invalid_argument with a message naming out, got ok: \"\"";
  const char *leak = "with allocation 2 of 3 failing: returned out_of_memory "
                     "and left 1 allocations unfreed (a leak on the error "
                     "path)";
  size_t len;
  sl_failure_sig a =
      defect_of("scatter_reduce", "cpu.serial", refused, "", "amin", &len);
  sl_failure_sig b = defect("index_reduce", "cpu.serial", refused, "", "sum");
  CHECK_MSG(strcmp(a.id, b.id) == 0 && len == strlen("cpu.serial"),
            "refusal: %s / %s", a.text, b.text);
  sl_failure_sig c = defect("scatter_reduce", "cpu.serial", leak, "", "amin");
  sl_failure_sig d = defect("index_reduce", "cpu.serial", leak, "", "amin");
  CHECK_MSG(strcmp(c.id, d.id) == 0 && strcmp(c.id, a.id) != 0, "leak: %s",
            c.text);
  CHECK(sl_failure_shared_check(refused) && sl_failure_shared_check(leak) &&
        !sl_failure_shared_check("out: exact mismatch at [0]: got 1"));
  /* A broken adjoint identity whose helper gather is what differs from
   * LibTorch: the helper's defect in every op that leans on it; a broken
   * identity with a right helper stays the op's. */
  const char *helper = "the adjoint identity's helper, the cpu.serial "
                       "gather, differs from LibTorch's on this case (bitwise "
                       "mismatch at [1]): the defect is the helper's";
  CHECK(strcmp(defect("scatter_reduce", "every variant", helper, "", "sum").id,
               defect("index_reduce", "every variant", helper, "", "sum").id) ==
        0);
  CHECK(!sl_failure_shared_check("adjoint identity broken: <out - x, y> = 1"));
  /* A wrong helper whose outputs hold a relation: the defect its own op's
   * failures show, not the shared helper's. */
  const char *taken_in =
      "the adjoint identity's helper, the cpu.serial forward, differs from "
      "LibTorch's on this case (tolerance mismatch at []: got 2.625, "
      "expected 0.25; its outputs = include_self=1): the defect is the "
      "helper's, not the variant's";
  const char *own = "out: exact mismatch at [0]: got 7, expected 3";
  const sl_failure_sig via = defect("scatter_reduce", "every variant", taken_in,
                                    "", "sum"),
                       direct = defect("index_reduce", "every variant", own,
                                       "= include_self=1", "amin");
  CHECK_MSG(strcmp(via.id, direct.id) == 0, "%s / %s", via.text, direct.text);
  CHECK(
      strcmp(via.id,
             defect("scatter_reduce", "every variant", helper, "", "sum").id) !=
      0);
}

/* The defect of a failure (verdict) of the case `line` with message m
 * and relation rel. */
static sl_failure_sig judged_as(const char *line, const char *verdict,
                                const char *m, const char *rel) {
  sl_case c;
  char err[256];
  memset(&c, 0, sizeof c);
  CHECK_MSG(sl_case_parse(line, &c, err, sizeof err) == 0, "%s", err);
  sl_failure_sig group, d;
  sl_failure_signature(&c, "cpu.serial", verdict, m, &group);
  sl_defect_signature(&c, "cpu.serial", verdict, m, rel, &group, &d);
  return d;
}

static sl_failure_sig judged(const char *line, const char *verdict,
                             const char *m) {
  return judged_as(line, verdict, m, "");
}

static sl_failure_sig rejected(const char *line, const char *m) {
  return judged(line, "reject_mismatch", m);
}

/* An index out of range accepted where LibTorch refuses it: the bounds
 * check the ops share, one defect whatever LibTorch's words in each op;
 * the same message on a case the generator made valid says nothing. */
static void accepted_invalid(void) {
  const char *sr = "scatter_reduce dt=f32 it=i64 x=2 index=3 src=3 dim=0 "
                   "reduce=amin self=1 ip=oob seed=1",
             *ir = "index_reduce dt=f32 it=i64 x=2 index=3 updates=3 dim=0 "
                   "reduce=sum self=1 ip=oob seed=1",
             *valid = "index_reduce dt=f32 it=i64 x=2 index=3 updates=3 "
                      "dim=0 reduce=sum self=1 seed=1";
  const sl_failure_sig a = rejected(
      sr, "kernel accepted, LibTorch rejected: index 2 is out of bounds for "
          "dimension 0 with size 2");
  const sl_failure_sig b =
      rejected(ir, "kernel accepted, LibTorch rejected: index out of range");
  CHECK_MSG(strcmp(a.id, b.id) == 0, "%s / %s", a.text, b.text);
  CHECK_CONTAINS(a.text, "accepted an invalid case (oob)");
  const sl_failure_sig v =
      rejected(valid, "kernel accepted, LibTorch rejected: index out of range");
  CHECK(strcmp(v.id, b.id) != 0 && strncmp(v.text, "index_reduce ", 13) == 0);
  /* A kernel that went on past the missing check and died there: the
   * same defect; a death on a valid case stays its op's. */
  const sl_failure_sig crash =
      judged(ir, "crashed", "worker killed by signal 11 (Segmentation fault)");
  CHECK_MSG(strcmp(crash.id, a.id) == 0, "%s / %s", crash.text, a.text);
  CHECK(strcmp(judged(sr, "timeout", "no answer within 10 s; worker killed").id,
               a.id) == 0);
  const char *outside = "wrote outside its output out: byte 1 after its end "
                        "changed from 0x5c to 0x00";
  CHECK(strcmp(judged(sr, "failed", outside).id, a.id) == 0);
  CHECK(strcmp(judged(valid, "failed", outside).id, a.id) != 0);
  const sl_failure_sig died = judged(
      valid, "crashed", "worker killed by signal 11 (Segmentation fault)");
  CHECK(strcmp(died.id, a.id) != 0 && strstr(died.text, "crashed"));
  /* LibTorch dying on the invalid case lacks a check of its own: not the
   * kernels' defect. */
  sl_case c;
  char err[256];
  memset(&c, 0, sizeof c);
  CHECK(sl_case_parse(ir, &c, err, sizeof err) == 0);
  const char *m = "worker killed by signal 11 (Segmentation fault)";
  sl_failure_sig group, ref;
  sl_failure_signature(&c, "reference", "crashed", m, &group);
  sl_defect_signature(&c, "reference", "crashed", m, "", &group, &ref);
  CHECK_MSG(strcmp(ref.id, a.id) != 0 && strstr(ref.text, "reference crashed"),
            "%s", ref.text);
}

/* Crashes in one function of a kernel library (crash_state.h) are one
 * defect whatever the op and reduce; in another function, another. */
static void crash_state(void) {
  const char *sr = "scatter_reduce dt=f32 it=i64 x=2 index=3 src=3 dim=0 "
                   "reduce=amin self=1 seed=1",
             *ir = "index_reduce dt=f32 it=i64 x=2 index=3 updates=3 dim=0 "
                   "reduce=sum self=1 seed=1";
  const char *walk = "worker killed by signal 11 in function sl__walk of "
                     "libscatterlab_kernels.so.2 (Segmentation fault)",
             *other = "worker killed by signal 11 in function sl__other of "
                      "libscatterlab_kernels.so.2 (Segmentation fault)";
  const sl_failure_sig a = judged(sr, "crashed", walk),
                       b = judged(ir, "crashed", walk),
                       c = judged(ir, "crashed", other);
  CHECK_MSG(strcmp(a.id, b.id) == 0, "%s / %s", a.text, b.text);
  CHECK_CONTAINS(a.text, "any reduce");
  CHECK(strcmp(b.id, c.id) != 0);
  /* A death inside a shared check is the check's, wherever it died. */
  const char *in_check = "sl_run_variant given an output over an input: "
                         "worker killed by signal 11 in function sl__walk "
                         "of libscatterlab_kernels.so.2 (Segmentation fault)",
             *in_other = "sl_run_variant given an output over an input: "
                         "worker killed by signal 11 in function sl__other "
                         "of libscatterlab_kernels.so.2 (Segmentation fault)";
  CHECK(strcmp(judged(sr, "crashed", in_check).id,
               judged(ir, "crashed", in_other).id) == 0);
}

/* On 0 and 1, as a minimal case often holds, sum's answer is amax's too:
 * amin answering as amax is still named by its dual. x = [0, 1], src =
 * [1, 0, 0]: amin [0, 0], amax [1, 1], sum [1, 1]. */
static void dual_first(void) {
  const float x01[2] = {0, 1}, src01[3] = {1, 0, 0}, got[2] = {1, 1};
  float x_keep[2], src_keep[3];
  memcpy(x_keep, x_, sizeof x_), memcpy(src_keep, src_, sizeof src_);
  memcpy(x_, x01, sizeof x_), memcpy(src_, src01, sizeof src_);
  char rel[32];
  relation(SL_OP_SCATTER_REDUCE, got, rel, sizeof rel);
  CHECK_MSG(strcmp(rel, "= reduce=amax") == 0, "0/1: '%s'", rel);
  /* Right outputs (a failure of another check, an adjoint identity): no
   * relation, though include_self=0 answers [0, 0] here too. */
  const float right[2] = {0, 0};
  relation(SL_OP_SCATTER_REDUCE, right, rel, sizeof rel);
  CHECK_MSG(rel[0] == '\0', "right outputs: '%s'", rel);
  memcpy(x_, x_keep, sizeof x_), memcpy(src_, src_keep, sizeof src_);
}

/* amin with include_self=0 whose comparison keeps the larger value never
 * leaves its start, +inf: the right answer is [3, 2], got [inf, inf]. */
static void start_value(void) {
  const float got[2] = {INFINITY, INFINITY}, half[2] = {3, INFINITY};
  char rel[32], rel_half[32];
  self_ = 0;
  relation(SL_OP_SCATTER_REDUCE, got, rel, sizeof rel);
  relation(SL_OP_INDEX_REDUCE, half, rel_half, sizeof rel_half);
  self_ = 1;
  CHECK_MSG(strcmp(rel, "= the start value where wrong") == 0, "start: '%s'",
            rel);
  CHECK_MSG(strcmp(rel_half, rel) == 0, "start, one wrong: '%s'", rel_half);
}

/* A write skipped: the wrong element still holds the poison the outputs
 * start as, whatever the op; a wrong element that holds anything else is
 * no such evidence. */
static void unwritten(void) {
  int plain;
  const float poison = (float)sl_poison_value(SL_F32, &plain);
  CHECK(!plain && poison != 0 && sl_poison_value(SL_U8, &plain) == 165 &&
        plain);
  const float skipped[2] = {poison, 1}, other[2] = {poison, 9};
  char rel[32];
  relation(SL_OP_SCATTER_REDUCE, skipped, rel, sizeof rel);
  CHECK_MSG(strcmp(rel, "= never written where wrong") == 0, "'%s'", rel);
  relation(SL_OP_INDEX_REDUCE, skipped, rel, sizeof rel);
  CHECK_MSG(strcmp(rel, "= never written where wrong") == 0, "'%s'", rel);
  relation(SL_OP_SCATTER_REDUCE, other, rel, sizeof rel);
  CHECK_MSG(rel[0] == '\0', "poison and a value wrong: '%s'", rel);
  /* A loop that stops one short is a walk's: one defect for any reduce
   * (a gather's, met again in the backward ops that lean on it). */
  const char *m = "out: bitwise mismatch at [1]: got -2.87e-16, expected 2";
  CHECK(strcmp(defect("scatter_reduce", "every variant", m,
                      "= never written where wrong", "amin")
                   .id,
               defect("index_reduce", "every variant", m,
                      "= never written where wrong", "sum")
                   .id) == 0);
  /* A rounding the other way: the right value's neighbour, and only it. */
  const float up = nextafterf(3, 4), ulp[2] = {up, 1},
              two[2] = {nextafterf(up, 4), 1};
  relation(SL_OP_INDEX_REDUCE, ulp, rel, sizeof rel);
  CHECK_MSG(strcmp(rel, "= one ulp off where wrong") == 0, "'%s'", rel);
  relation(SL_OP_INDEX_REDUCE, two, rel, sizeof rel);
  CHECK_MSG(rel[0] == '\0', "two ulps: '%s'", rel);
  /* A wrong identity (an integer prod from 0): zero where wrong. */
  const float zero[2] = {0, 1};
  relation(SL_OP_SCATTER_REDUCE, zero, rel, sizeof rel);
  CHECK_MSG(strcmp(rel, "= zero where wrong") == 0, "'%s'", rel);
}

/* A NaN rule broken: src [NaN, 7, 2] makes amin's answer [NaN, 1]; a
 * number where the NaN belongs is a NaN lost whatever the number, and a
 * wrong number besides is no such evidence. */
static void nan_lost(void) {
  const float dropped[2] = {3, 1}, start[2] = {INFINITY, 1}, more[2] = {3, 9};
  char rel[3][32];
  src_[0] = NAN;
  relation(SL_OP_SCATTER_REDUCE, dropped, rel[0], 32);
  relation(SL_OP_INDEX_REDUCE, start, rel[1], 32);
  relation(SL_OP_SCATTER_REDUCE, more, rel[2], 32);
  src_[0] = 3;
  CHECK_MSG(strcmp(rel[0], "= a NaN lost where wrong") == 0, "'%s'", rel[0]);
  CHECK_MSG(strcmp(rel[1], rel[0]) == 0, "NaN lost to the start: '%s'", rel[1]);
  CHECK_MSG(rel[2][0] == '\0', "NaN lost and a value wrong: '%s'", rel[2]);
  /* dynamic_scatter's max is amax's helper: one defect with it. */
  const char *m = "out: exact mismatch at [0]: got 2, expected nan";
  const sl_failure_sig ds = judged_as("dynamic_scatter dt=f32 feats=2x2 "
                                      "coors=2x1 reduce=max dp=nan seed=1",
                                      "failed", m, rel[0]),
                       sr = judged_as("scatter_reduce dt=f32 it=i64 x=2 "
                                      "index=3 src=3 dim=0 reduce=amax self=1 "
                                      "seed=1",
                                      "failed", m, rel[0]);
  CHECK_MSG(strcmp(ds.id, sr.id) == 0, "%s / %s", ds.text, sr.text);
}

/* An index read with its stride ignored: index [0, 0, 1] stepped by 2 in
 * the buffer {0, 1, 0, 1, 1, 0}; read as if contiguous it is [0, 1, 0],
 * whose amin answer is [2, 1] (the right one [3, 1]). Named so in
 * scatter_reduce and in gather (x [5, 1], index [0, 1] stepped, read as
 * [0, 0]: [5, 5] for the right [5, 1]), one defect of any reduce; a value
 * that no such reading gives is no relation. */
static void strides_ignored(void) {
  static int64_t stepped[6] = {0, 1, 0, 1, 1, 0};
  const int64_t two = 2, three = 3;
  float out[2] = {2, 1};
  sl_call call;
  memset(&call, 0, sizeof call);
  call.op = SL_OP_SCATTER_REDUCE;
  call.arg[0] = sl_tensor_make(SL_F32, 1, &two, x_);
  call.arg[1] = sl_tensor_make(SL_I64, 1, &three, stepped);
  call.arg[1].strides[0] = 2;
  call.arg[2] = sl_tensor_make(SL_F32, 1, &three, src_);
  call.arg[3] = sl_tensor_make(SL_F32, 1, &two, out);
  call.p.reduce = SL_REDUCE_AMIN;
  call.p.include_self = 1;
  char rel[3][32];
  const sl_case c = case_of("scatter_reduce");
  sl_defect_relation(&c, &call, rel[0], 32);
  out[0] = 4;
  sl_defect_relation(&c, &call, rel[2], 32);
  /* gather: x, index [0, 1] at stride 3 ({0, 0, 0, 1}), out */
  static int64_t gstep[4] = {0, 0, 0, 1};
  call.op = SL_OP_GATHER;
  call.arg[1] = sl_tensor_make(SL_I64, 1, &two, gstep);
  call.arg[1].strides[0] = 3;
  out[0] = 5, out[1] = 5;
  call.arg[2] = sl_tensor_make(SL_F32, 1, &two, out);
  memset(&call.arg[3], 0, sizeof call.arg[3]);
  char err[256];
  sl_case g;
  memset(&g, 0, sizeof g);
  CHECK(sl_case_parse("gather dt=f32 it=i64 x=2 index=2 dim=0 seed=1", &g, err,
                      sizeof err) == 0);
  sl_defect_relation(&g, &call, rel[1], 32);
  CHECK_MSG(strcmp(rel[0], "= index, strides ignored") == 0, "'%s'", rel[0]);
  CHECK_MSG(strcmp(rel[1], rel[0]) == 0, "gather: '%s'", rel[1]);
  CHECK_MSG(rel[2][0] == '\0', "no reading gives it: '%s'", rel[2]);
  const char *m = "out: bitwise mismatch at [0]: got 2, expected 3";
  CHECK(strcmp(defect("scatter_reduce", "every variant", m, rel[0], "amin").id,
               defect("index_reduce", "every variant", m, rel[1], "sum").id) ==
        0);
}

/* A mean with include_self=0 that takes the output's value in but
 * divides by its contributions alone: x [5, 1], index [1, 0], src [3, 7]
 * give [12, 4] for the right [7, 3], which is the sum's answer with
 * include_self=1: the same defect as a start value taken in. A mean
 * answer with a wrong count ([6, 2], include_self=1's own) is that
 * relation too; [13, 4] is none. [3.5, 1.5] divides each sum by one
 * more than its count: the sum over a wrong count. */
static void mean_taken_in(void) {
  static float xm[2] = {5, 1}, srcm[2] = {3, 7};
  static int64_t im[2] = {1, 0};
  const int64_t two = 2;
  const char *ops[2] = {"scatter_reduce", "index_reduce"};
  const float gots[4][2] = {{12, 4}, {6, 2}, {13, 4}, {3.5f, 1.5f}};
  const char *want[4] = {"= include_self=1", "= include_self=1", "",
                         "= the sum over a wrong count"};
  for (int k = 0; k < 2; ++k)
    for (int g = 0; g < 4; ++g) {
      char line[160], err[256], rel[32];
      snprintf(line, sizeof line,
               "%s dt=f32 it=i64 x=2 index=2 %s=2 dim=0 reduce=mean self=0 "
               "seed=1",
               ops[k], k ? "updates" : "src");
      sl_case c;
      memset(&c, 0, sizeof c);
      CHECK_MSG(sl_case_parse(line, &c, err, sizeof err) == 0, "%s", err);
      float out[2];
      memcpy(out, gots[g], sizeof out);
      sl_call call;
      memset(&call, 0, sizeof call);
      call.op = c.op;
      call.arg[0] = sl_tensor_make(SL_F32, 1, &two, xm);
      call.arg[1] = sl_tensor_make(SL_I64, 1, &two, im);
      call.arg[2] = sl_tensor_make(SL_F32, 1, &two, srcm);
      call.arg[3] = sl_tensor_make(SL_F32, 1, &two, out);
      call.p.reduce = SL_REDUCE_MEAN;
      call.p.include_self = 0;
      sl_defect_relation(&c, &call, rel, sizeof rel);
      CHECK_MSG(strcmp(rel, want[g]) == 0, "%s got [%g, %g]: '%s'", ops[k],
                gots[g][0], gots[g][1], rel);
    }
}

static void relations(char rel[5][32]) {
  const float amax[2] = {7, 2}, no_self[2] = {3, 2}, x[2] = {5, 1},
              other[2] = {3, 9};
  relation(SL_OP_SCATTER_REDUCE, amax, rel[0], 32);
  relation(SL_OP_INDEX_REDUCE, amax, rel[1], 32);
  relation(SL_OP_INDEX_REDUCE, no_self, rel[2], 32);
  relation(SL_OP_SCATTER_REDUCE, x, rel[3], 32);
  relation(SL_OP_SCATTER_REDUCE, other, rel[4], 32);
  const char *want[5] = {"= reduce=amax", "= reduce=amax", "= include_self=0",
                         "= x", ""};
  for (int k = 0; k < 5; ++k)
    CHECK_MSG(strcmp(rel[k], want[k]) == 0, "relation %d: '%s', expected '%s'",
              k, rel[k], want[k]);
}

int main(void) {
  char rel[5][32];
  relations(rel);
  dual_first();
  start_value();
  unwritten();
  nan_lost();
  crash_state();
  strides_ignored();
  mean_taken_in();

  const char *m1 = "out: exact mismatch at [0]: got 7, expected 3 (2 elements "
                   "wrong)";
  const char *m2 = "out: exact mismatch at [1]: got 2, expected 1 (1 elements "
                   "wrong)";
  /* One defect: amin answering as amax in two ops. */
  sl_failure_sig a =
      defect("scatter_reduce", "every variant", m1, rel[0], "amin");
  sl_failure_sig b =
      defect("index_reduce", "every variant", m2, rel[1], "amin");
  CHECK_MSG(strcmp(a.id, b.id) == 0, "one defect, two:\n  %s\n  %s", a.text,
            b.text);
  CHECK_CONTAINS(a.text, "| amin | = reduce=amax");
  CHECK(!strstr(a.text, "scatter_reduce")); /* no op: stable across runs */
  /* The kind of the first wrong element is the values', not the defect's:
   * a NaN lost where amax's answer holds no NaN is the same swap. */
  const char *nan_lost = "out: exact mismatch at [1]: got 2, expected nan (1 "
                         "elements wrong)";
  CHECK(strcmp(a.id, defect("scatter_reduce", "every variant", nan_lost, rel[0],
                            "amin")
                         .id) == 0);
  /* Two planted-like wrongnesses with the same reduce and the same kind in
   * two ops: amax's answer, include_self ignored. Apart. */
  sl_failure_sig c =
      defect("index_reduce", "every variant", m2, rel[2], "amin");
  CHECK_MSG(strcmp(a.id, c.id) != 0, "two defects merged: %s", a.text);
  /* include_self ignored is one start value whatever the reduce: sum in
   * one op, amin in the other, one defect; amin answering as amax is
   * amin's, and a sum group with that relation is another defect. */
  sl_failure_sig sum_self =
      defect("scatter_reduce", "every variant", m1, "= include_self=0", "sum");
  CHECK_MSG(strcmp(sum_self.id, c.id) == 0, "include_self: %s / %s",
            sum_self.text, c.text);
  CHECK(strcmp(
            a.id,
            defect("scatter_reduce", "every variant", m1, rel[0], "amax").id) !=
        0);
  /* The same relation in other variants, or another verdict: apart. */
  CHECK(strcmp(a.id,
               defect("index_reduce", "cpu.atomic", m2, rel[1], "amin").id));
  /* No relation: "a value wrong" in two ops is no evidence; each group is
   * its own defect. */
  sl_failure_sig d =
      defect("scatter_reduce", "every variant", m1, rel[4], "amin");
  sl_failure_sig e =
      defect("index_reduce", "every variant", m2, rel[4], "amin");
  CHECK(strcmp(d.id, e.id) != 0 && strncmp(d.text, "scatter_reduce ", 15) == 0);

  /* The groups of one defect are counted once and walked together. */
  sl_failure_groups g = {0};
  const sl_failure_defect da = {a.id, a.text, 0}, dc = {c.id, c.text, 0};
  CHECK(sl_failure_groups_add(
            &g, "0000000000000001",
            "scatter_reduce cpu.serial failed | amin out | a value wrong",
            "cpu.serial", "failed", "scatter_reduce x=1", "scatter_reduce x=1",
            m1, &da) == 0);
  CHECK(sl_failure_groups_add(
            &g, "0000000000000002",
            "index_reduce cpu.serial failed | amin out | a value wrong",
            "cpu.serial", "failed", "index_reduce x=1", "index_reduce x=1", m2,
            &dc) == 0);
  CHECK(sl_failure_groups_add(
            &g, "0000000000000003",
            "index_reduce cpu.omp failed | amin out | a value wrong", "cpu.omp",
            "failed", "index_reduce x=1", "index_reduce x=1", m2, &da) == 0);
  CHECK(g.n == 3 && g.defects == 2);
  int at = -1;
  CHECK(sl_failure_groups_next_defect(&g, &at) == 0);
  sl_defect_tally t;
  sl_failure_groups_tally(&g, 0, &t);
  CHECK_MSG(t.groups == 2 && t.cases == 2 &&
                strcmp(t.ops, "scatter_reduce, index_reduce") == 0,
            "tally: %d groups, ops %s", t.groups, t.ops);
  CHECK(sl_failure_groups_next_defect(&g, &at) == 1);
  CHECK(sl_failure_groups_next_defect(&g, &at) == -1);
  sl_failure_groups_free(&g);
  overlapping_variants(m1, rel[0]);
  shared_checks();
  accepted_invalid();
  return sl_test_finish("test_defect_merge");
}
