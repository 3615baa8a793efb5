/*
 * The huge-offset schedule (huge.h): with a cap, every valid case of the
 * ops it takes in a 1- or 2-byte dtype has an x past 2^31 elements, index
 * values from the top sixteenth (ip=high, so the offsets it reaches lie
 * past 2^31), fits the cap, and classifies valid; some pass 2^32; a small
 * cap leaves the scatters as drawn; no cap, no huge case. And datagen's
 * ip=high draws from the top sixteenth of the range.
 */
#include <stdint.h>
#include <string.h>

#include "case.h"
#include "casegen.h"
#include "datagen.h"
#include "huge.h"
#include "sl_test.h"

#define GIB ((uint64_t)1 << 30)

static int64_t numel(const sl_case_shape *s) {
  int64_t n = 1;
  for (int d = 0; d < s->ndim; ++d) n *= s->shape[d];
  return s->present ? n : 0;
}

/* Bytes of inputs plus twice the outputs, as the runner counts them. */
static uint64_t case_bytes(const sl_case *c) {
  uint64_t in = 0;
  char err[256];
  CHECK_MSG(sl_case_input_bytes(c, &in, err, sizeof err) == 0, "%s", err);
  const uint64_t es = sl_dtype_size(c->dt);
  const int gathers = c->op == SL_OP_GATHER || c->op == SL_OP_GATHER_ND;
  const uint64_t out = gathers ? (uint64_t)numel(&c->arg[1]) * es
                               : (uint64_t)numel(&c->arg[0]) * es;
  return in + 2 * out;
}

static void run(uint64_t cap, int *huge_n, int *past32, unsigned *ops_seen) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.huge_bytes = cap;
  /* the dtypes of 1 and 2 bytes */
  o.dtypes = 1u << SL_BOOL | 1u << SL_U8 | 1u << SL_I8 | 1u << SL_I16 |
             1u << SL_F16 | 1u << SL_BF16;
  *huge_n = *past32 = 0;
  *ops_seen = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    sl_case c, fw;
    const int invalid = sl_fuzz_case(5, i, &o, &c);
    const int huge = sl_fuzz_huge_shape(&c);
    sl_case_forward(&c, &fw);
    if (!huge) {
      /* Left as drawn: invalid, another op, or over the cap (which a
       * one-byte x of 2.25 GiB, and twice that for the output, is not). */
      CHECK_MSG(invalid || !sl_fuzz_huge_op(c.op) || cap < 8 * GIB ||
                    sl_dtype_size(c.dt) > 1,
                "case %llu: a valid %s case left small under an 8 GiB cap",
                (unsigned long long)i, sl_op_name(c.op));
      continue;
    }
    ++*huge_n;
    *past32 += huge == 32;
    *ops_seen |= 1u << c.op;
    char line[SL_CASE_LINE_MAX];
    sl_case_print(&c, line, sizeof line);
    CHECK_MSG(!invalid && sl_fuzz_classify(&c) == SL_FUZZ_VALID, "%s: %s", line,
              sl_fuzz_class_name(sl_fuzz_classify(&c)));
    CHECK(sl_fuzz_huge_op(c.op) && sl_dtype_size(c.dt) <= 2);
    CHECK(numel(&c.arg[0]) > (int64_t)1 << 31);
    CHECK_MSG(c.arg[0].shape[0] <= INT32_MAX || c.it == SL_I64,
              "%s: row numbers past INT32_MAX in an i32 index", line);
    CHECK_MSG(c.ip == (c.op == SL_OP_SELECT_SCATTER ? SL_IP_RAND : SL_IP_HIGH),
              "case %llu: ip=%s", (unsigned long long)i,
              sl_index_pattern_name(c.ip));
    /* the line is the repro: it parses back to the same line */
    sl_case back;
    char err[256], again[SL_CASE_LINE_MAX];
    CHECK_MSG(sl_case_parse(line, &back, err, sizeof err) == 0, "%s: %s", line,
              err);
    sl_case_print(&back, again, sizeof again);
    CHECK_MSG(strcmp(line, again) == 0, "%s printed back as %s", line, again);
    /* select_scatter's slice: one of the last sixteenth of the rows */
    if (c.op == SL_OP_SELECT_SCATTER)
      CHECK(c.at >= c.arg[0].shape[0] - c.arg[0].shape[0] / 16 &&
            c.at < c.arg[0].shape[0]);
    const uint64_t need = case_bytes(&c);
    CHECK_MSG(need <= cap, "case %llu needs %llu bytes, cap %llu",
              (unsigned long long)i, (unsigned long long)need,
              (unsigned long long)cap);
  }
}

static void test_schedule(void) {
  int n, p32;
  unsigned ops;
  run(8 * GIB, &n, &p32, &ops);
  printf("  8 GiB: %d huge cases, %d past 2^32\n", n, p32);
  CHECK(n > 0 && p32 > 0);
  /* scatter_reduce takes no 1-byte dtype (docs/spec.md §3): its f16 and
   * bf16 need 3 x 4.5 GiB */
  run(16 * GIB, &n, &p32, &ops);
  printf("  16 GiB: %d huge cases, %d past 2^32\n", n, p32);
  const sl_op all[] = {SL_OP_GATHER,        SL_OP_GATHER_ND,
                       SL_OP_SCATTER,       SL_OP_SCATTER_REDUCE,
                       SL_OP_SCATTER_ND,    SL_OP_INDEX_REDUCE,
                       SL_OP_SELECT_SCATTER};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k)
    CHECK_MSG(ops & 1u << all[k], "no huge %s case", sl_op_name(all[k]));
  /* 3 GiB: a 2.25 GiB x with a small output fits; twice it more does not */
  run(3 * GIB, &n, &p32, &ops);
  printf("  3 GiB: %d huge cases\n", n);
  CHECK(n > 0 && p32 == 0);
  CHECK(ops == (1u << SL_OP_GATHER | 1u << SL_OP_GATHER_ND));
  run(0, &n, &p32, &ops);
  CHECK(n == 0);
}

/* ip=high on a small gather: every index value in [937, 1000). */
static void test_ip_high(void) {
  sl_case c;
  char err[256];
  CHECK(sl_case_parse("gather dt=u8 it=i64 x=1000 index=500 dim=0 ip=high "
                      "seed=3",
                      &c, err, sizeof err) == 0);
  sl_bundle b;
  CHECK(sl_gen_inputs(&c, &b, err, sizeof err) == 0);
  const int64_t *v = b.call.arg[1].data;
  int low = 0, top = 0;
  for (int i = 0; i < 500; ++i) {
    low += v[i] < 937 || v[i] >= 1000;
    top += v[i] == 999;
  }
  CHECK_MSG(low == 0, "%d of 500 values outside [937, 1000)", low);
  CHECK(top > 0); /* the last row itself is drawn */
  sl_bundle_free(&b);
}

int main(void) {
  test_schedule();
  test_ip_high();
  return sl_test_finish("test_huge");
}
