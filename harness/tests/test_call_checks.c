/*
 * The core's refusals of broken calls (call_checks.h): for a valid call of
 * every forward op and a backward one (scatter's value form, whose src has
 * no data, included), every break that applies is refused with its status
 * and a message naming the argument; a call that was already invalid
 * (an input on the wrong device) makes the checks report the break whose
 * refusal came out otherwise.
 */
#include <string.h>

#include "call_checks.h"
#include "serial_run.h"

static const char *const lines[] = {
    "gather dt=f32 x=5x4 index=3x4 dim=0 seed=1",
    "gather_nd dt=i32 x=4x3 index=2x3x1 seed=2",
    "scatter dt=i64 x=6x3 index=4x3 dim=1 val=7 seed=4",
    "scatter_reduce dt=f32 x=6x3 index=8x3 src=8x3 dim=0 reduce=mean self=0 "
    "seed=5",
    "scatter_nd dt=f32 x=5x4 index=6x4x1 src=6x4 reduce=sum seed=6",
    "gather dt=c128 x=5x4 index=3x4 dim=1 seed=3",
    "index_reduce dt=f64 x=5x3 index=7 updates=7x3 dim=0 reduce=prod self=0 "
    "seed=7",
    "select_scatter dt=u8 x=4x5 value=5 dim=0 at=2 seed=8",
    "masked_scatter dt=f32 x=4x5 mask=4x5 source=20 seed=9",
    "dynamic_scatter dt=f32 feats=30x4 coors=30x3 reduce=mean seed=10",
    "segment_reduce dt=f32 data=12x3 lengths=5 dim=0 reduce=sum form=offsets "
    "val=0.5 seed=11",
    "scatter_reduce_backward dt=f64 it=i32 x=6x3 index=8x3 src=8x3 dim=0 "
    "reduce=amax self=1 seed=12",
    "index_reduce_backward dt=f32 x=5x3 index=7 updates=7x3 dim=0 "
    "reduce=mean self=1 seed=13",
    "dynamic_scatter_backward dt=f64 feats=30x4 coors=30x3 reduce=max seed=14",
    "segment_reduce_backward dt=f64 data=12x3 lengths=5 dim=0 reduce=amin "
    "seed=15",
};

static void test_every_op(void) {
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
    /* the input slot a break takes is drawn by seed: 24 seeds meet each
     * slot of these calls */
    for (uint64_t seed = 1; seed <= 24; ++seed) {
      sl_bundle b;
      sl_call inferred;
      sl_variant_call vc;
      const sl_variant *v;
      if (sl_test_serial_run(lines[i], &b, &inferred, &vc, &v)) break;
      char msg[400];
      int applied = 0;
      const int rc = sl_call_checks_agree(v, &inferred, 0, seed, &applied, msg,
                                          sizeof msg);
      /* 17 breaks; c128 has no other dtype of its size (an output's
       * dtype break), x (the data slot) takes no other-dtype break, an
       * output or input of rank 0 no extent or stride break */
      CHECK_MSG(rc == 1 && applied >= 12, "%s seed %llu: %d applied: %s",
                lines[i], (unsigned long long)seed, applied, msg);
      sl_variant_call_free(&vc);
      sl_bundle_free(&b);
    }
  }
}

static void test_reports_a_wrong_refusal(void) {
  sl_bundle b;
  sl_call inferred;
  sl_variant_call vc;
  const sl_variant *v;
  if (sl_test_serial_run(lines[4], &b, &inferred, &vc, &v)) return;
  /* index on the wrong device already: an output of another dtype is now
   * refused for the device, not the dtype */
  inferred.arg[1].device = SL_DEVICE_CUDA;
  char msg[400];
  int applied = 0;
  CHECK(sl_call_checks_agree(v, &inferred, 0, 1, &applied, msg, sizeof msg) ==
        0);
  CHECK_MSG(strstr(msg, "sl_run_variant given ") &&
                strstr(msg, "got wrong_device"),
            "%s", msg);
  sl_variant_call_free(&vc);
  sl_bundle_free(&b);
}

int main(void) {
  test_every_op();
  test_reports_a_wrong_refusal();
  return sl_test_finish("test_call_checks");
}
