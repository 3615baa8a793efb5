/*
 * The timing worker's guard of the inputs (bench_worker_page.h): every
 * contender of a request reads the same input buffers, so a kernel that
 * writes them (as scratch, say) has every contender after it timed on other
 * inputs, and in `ab` the other build judged on them. The run's guard
 * (input_guard.h) hashes them after each call; here a hash of each input
 * buffer before the rounds and after them, outside the timed rounds, so
 * that the timings do not change. When one differs, the inputs are built
 * again and each variant is called once more alone on them, its writes
 * looked for after its call: the one that wrote is named.
 */
#include <stdio.h>
#include <string.h>

#include "bench_worker_page.h"
#include "hash64.h"

/* Slot s's buffer in copy k (0: the case's own). */
static void *sl__buf(const sl_bw_inputs *x, int k, int s) {
  return k == 0 ? x->in->mem[s] : x->copies[k * SL_MAX_ARGS + s];
}

void sl_bw_inputs_mark(sl_bw_inputs *x) {
  sl_input_guard_mark(&x->g, x->in, sl_op_get(x->in->call.op)->n_in);
}

int sl_bw_inputs_changed(const sl_bw_inputs *x) {
  for (int k = 0; k < x->ncopies; ++k)
    for (int s = 0; s < x->g.n_in; ++s) {
      const void *b = sl__buf(x, k, s);
      const size_t n = x->in->bytes[s];
      if ((b && n ? sl_hash64(b, n) : 0) != x->g.hash[s]) return 1;
    }
  return 0;
}

/* Every copy as the case builds it. 0, or -1 with why. */
static int sl__restore(sl_bw_inputs *x, char *why, size_t len) {
  sl_case c;
  sl_bundle fresh;
  if (sl_prepare_case(x->c0, NULL, x->max_case_bytes, &c, &fresh, why, len))
    return -1;
  for (int k = 0; k < x->ncopies; ++k)
    for (int s = 0; s < x->g.n_in; ++s) {
      void *b = sl__buf(x, k, s);
      if (b && fresh.mem[s] && fresh.bytes[s] == x->in->bytes[s])
        memcpy(b, fresh.mem[s], fresh.bytes[s]);
    }
  sl_bundle_free(&fresh);
  return 0;
}

int sl_bw_inputs_blame(sl_bw_inputs *x, int n, const sl_timed_fn *fns,
                       void *const *users, const int *skip, int *wrote,
                       char (*why)[512]) {
  int found = 0;
  for (int i = 0; i < n; ++i) wrote[i] = 0;
  if (sl__restore(x, why[0], sizeof why[0])) return -1;
  for (int i = 0; i < n; ++i) {
    if (skip[i]) continue;
    double sample;
    /* Repetition 0: the call reads copy 0, the case's own buffers. */
    if (fns[i](users[i], 0, 1, &sample) != 0) continue;
    if (sl_input_guard_check(&x->g, x->in, x->c0, NULL, x->max_case_bytes,
                             why[i], sizeof why[i]) != 0)
      wrote[i] = 1, ++found;
  }
  return found; /* copy 0 restored after each writer by the check */
}
