/* Copy-bandwidth probe (see bandwidth.h). */
#include "bandwidth.h"

#include <stdlib.h>
#include <string.h>

#include "timing.h"

typedef struct sl__copy {
  char *dst;
  const char *src;
  size_t bytes;
  int threads;
} sl__copy;

static void sl__copy_once(const sl__copy *c) {
  size_t chunk = (c->bytes + (size_t)c->threads - 1) / (size_t)c->threads;
#pragma omp parallel for num_threads(c->threads) schedule(static)
  for (int t = 0; t < c->threads; ++t) {
    size_t b = (size_t)t * chunk;
    size_t e = b + chunk < c->bytes ? b + chunk : c->bytes;
    if (b < e) memcpy(c->dst + b, c->src + b, e - b);
  }
}

static int sl__copy_timed(void *user, int rep, int k, double *samples) {
  (void)rep;
  for (int i = 0; i < k; ++i) {
    double t0 = sl_now();
    sl__copy_once(user);
    samples[i] = sl_now() - t0;
  }
  return 0;
}

double sl_copy_bandwidth_gbs(size_t bytes, int threads) {
  sl__copy c = {malloc(bytes), malloc(bytes), bytes, threads > 0 ? threads : 1};
  double gbs = -1;
  if (c.dst && c.src) {
    /* Touch both buffers first so page faults are not timed. */
    memset(c.dst, 1, bytes);
    memset((char *)c.src, 2, bytes);
    sl_timing_opts o;
    sl_timing_opts_init(&o);
    o.budget_s = 0.5;
    o.min_reps = 5;
    o.max_reps = 50;
    static sl_timing t;
    if (sl_time(sl__copy_timed, &c, &o, &t) == 0 && t.min_s > 0)
      gbs = 2.0 * (double)bytes / t.min_s / 1e9;
  }
  free(c.dst);
  free((char *)c.src);
  return gbs;
}

/* Larger than this VM's 32 MiB L3, so that the probe reads memory. */
enum { SL__PROBE_BYTES = 64 << 20, SL__PROBE_COPIES = 3 };

double sl_copy_probe_gbs(int threads) {
  static sl__copy c; /* kept: the probe runs after every benchmark */
  if (!c.dst) {
    char *dst = malloc(SL__PROBE_BYTES), *src = malloc(SL__PROBE_BYTES);
    if (!dst || !src) {
      free(dst);
      free(src);
      return -1;
    }
    memset(dst, 1, SL__PROBE_BYTES);
    memset(src, 2, SL__PROBE_BYTES);
    c = (sl__copy){dst, src, SL__PROBE_BYTES, 1};
  }
  c.threads = threads > 0 ? threads : 1;
  double s[SL__PROBE_COPIES], fastest = 0;
  sl__copy_timed(&c, 0, SL__PROBE_COPIES, s);
  for (int i = 0; i < SL__PROBE_COPIES; ++i)
    if (s[i] > 0 && (fastest == 0 || s[i] < fastest)) fastest = s[i];
  return fastest > 0 ? 2.0 * SL__PROBE_BYTES / fastest / 1e9 : -1;
}
