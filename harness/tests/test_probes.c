/* The machine probes a bench run stores: the copy bandwidth and the
 * core-to-core round trip. Their figures depend on the machine, so only
 * what holds anywhere is checked: a measurement where there is something
 * to measure, 0 where there is not, and an end within the caps. */
#include <math.h>

#include "bandwidth.h"
#include "cpu_round_trip.h"
#include "sl_test.h"
#include "timing.h"

static void test_copy_bandwidth(void) {
  const double gbs = sl_copy_bandwidth_gbs((size_t)1 << 20, 2);
  CHECK_MSG(gbs > 0 && isfinite(gbs), "%g GB/s", gbs);
}

static void test_round_trip(void) {
  /* No pair: nothing to measure. */
  CHECK(sl_cpu_round_trip_ns(1) == 0);
  CHECK(sl_cpu_round_trip_ns(0) == 0);
  CHECK(sl_cpu_round_trip_ns(-3) == 0);
#ifdef _OPENMP
  /* A pair, whether its threads share a core or not: a figure, in a time
   * bounded by the per-try cap (5 tries of 20 ms, and the hand-overs that
   * finish a try) even with more threads than cores. */
  const int teams[] = {2, 8};
  for (int k = 0; k < 2; ++k) {
    const double t0 = sl_now();
    const double ns = sl_cpu_round_trip_ns(teams[k]);
    const double took = sl_now() - t0;
    CHECK_MSG(ns > 0 && isfinite(ns), "%d threads: %g ns", teams[k], ns);
    CHECK_MSG(took < 2.0, "%d threads: %g s", teams[k], took);
  }
#endif
}

int main(void) {
  test_copy_bandwidth();
  test_round_trip();
  return sl_test_finish("test_probes");
}
