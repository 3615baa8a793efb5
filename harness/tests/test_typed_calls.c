/*
 * The typed entry points checked against cpu.serial (typed_calls.h): for a
 * case line of every forward op (scatter's value form, segment_reduce's
 * offsets with an initial value, dynamic_scatter's voxel count included),
 * cpu.serial through sl_run_variant and through the op's typed entry point
 * give the same bits; a first answer with one element changed is told
 * apart; an integer value a double cannot hold is left out; bad calls get
 * named errors.
 */
#include <string.h>

#include "serial_run.h"
#include "typed_calls.h"

static const char *const lines[] = {
    "gather dt=f32 x=5x4 index=3x4 dim=0 seed=1",
    "gather_nd dt=i32 x=4x3 index=2x3x1 seed=2",
    "scatter dt=f64 x=6x3 index=4x3 src=4x3 dim=0 ip=dup50 seed=3",
    "scatter dt=i64 x=6x3 index=4x3 dim=1 val=7 seed=4",
    "scatter_reduce dt=f32 x=6x3 index=8x3 src=8x3 dim=0 reduce=mean self=0 "
    "seed=5",
    "scatter_nd dt=f32 x=5x4 index=6x4x1 src=6x4 reduce=sum seed=6",
    "index_reduce dt=f64 x=5x3 index=7 updates=7x3 dim=0 reduce=prod self=0 "
    "seed=7",
    "select_scatter dt=u8 x=4x5 value=5 dim=0 at=2 seed=8",
    "masked_scatter dt=f32 x=4x5 mask=4x5 source=20 seed=9",
    "dynamic_scatter dt=f32 feats=30x4 coors=30x3 reduce=mean seed=10",
    "segment_reduce dt=f32 data=12x3 lengths=5 dim=0 reduce=sum form=offsets "
    "val=0.5 seed=11",
};

static void test_every_forward_op(void) {
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
    sl_bundle b;
    sl_call inferred;
    sl_variant_call vc;
    const sl_variant *v;
    if (sl_test_serial_run(lines[i], &b, &inferred, &vc, &v)) continue;
    char msg[400];
    int applied = 0;
    CHECK_MSG(sl_typed_agrees(&inferred, 0, &vc.call, &applied, msg,
                              sizeof msg) == 1 &&
                  applied,
              "%s: %s", lines[i], msg);
    /* One element of the first answer changed: told apart, naming it. */
    const sl_op_info *info = sl_op_get(inferred.op);
    sl_tensor *out = &vc.call.arg[info->n_in];
    unsigned char *p = out->data;
    p[0] ^= 0x10;
    CHECK_MSG(sl_typed_agrees(&inferred, 0, &vc.call, &applied, msg,
                              sizeof msg) == 0 &&
                  strstr(msg, info->arg_names[info->n_in]) &&
                  strstr(msg, "typed entry point"),
              "%s: %s", lines[i], msg);
    sl_variant_call_free(&vc);
    sl_bundle_free(&b);
  }
}

static void test_expressible(void) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  const int64_t s1[1] = {1};
  c.arg[0] = sl_tensor_make(SL_I64, 1, s1, NULL);
  CHECK(sl_typed_expressible(&c));
  c.p.has_value = 1;
  c.p.ivalue = ((int64_t)1 << 53) + 1; /* no double holds it */
  c.p.value = (double)c.p.ivalue;
  CHECK(!sl_typed_expressible(&c));
  c.p.ivalue = 7, c.p.value = 7;
  CHECK(sl_typed_expressible(&c));
  c.arg[0].dtype = SL_F32;
  c.p.ivalue = ((int64_t)1 << 53) + 1;
  CHECK(sl_typed_expressible(&c));
}

static void test_bad_calls(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_typed_run(&ctx, "cpu.serial", NULL) == SL_STATUS_NULL_POINTER);
  CHECK(strstr(sl_ctx_message(&ctx), "call:") != NULL);
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.op = (sl_op)SL_OP_COUNT;
  CHECK(sl_typed_run(&ctx, "cpu.serial", &c) == SL_STATUS_UNKNOWN_OP);
  CHECK(strstr(sl_ctx_message(&ctx), "call->op") != NULL);
}

int main(void) {
  test_every_forward_op();
  test_expressible();
  test_bad_calls();
  return sl_test_finish("test_typed_calls");
}
