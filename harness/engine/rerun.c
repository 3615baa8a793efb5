/* A second run of a variant, compared bit for bit (see rerun.h). */
#include "rerun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "op_facts.h"
#include "oracles.h"
#include "variant_call.h"

void sl_outputs_as_produced(sl_call *call) {
  const sl_harness_op *h = sl_harness_op_of(call->op);
  const unsigned rows = h ? h->out_rows_slots : 0;
  for (int s = 0; s < SL_MAX_ARGS; ++s)
    if ((rows >> s) & 1u) call->arg[s].shape[0] = call->out_rows;
}

int sl_first_output_differing(const sl_call *got, const sl_call *first,
                              const sl_case *c, sl_oracle o, sl_diff *d) {
  const sl_op_info *info = sl_op_get(got->op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
    if (!sl_compare(&got->arg[s], &first->arg[s], c ? sl_oracle_for(c, s) : o,
                    c ? got : NULL, d))
      return s;
  return -1;
}

int sl_rerun_threads(int threads) { return threads > 1 ? 1 : 2; }

int sl_rerun_selected(int every, unsigned long long seed) {
  return every > 0 && seed % (unsigned long long)every == 0;
}

sl_status sl_run_again(const sl_variant *v, const sl_call *call,
                       unsigned copies, int threads, sl_variant_call *vc,
                       sl_ctx *ctx, int *fault) {
  char note[256];
  *fault = 0;
  if (sl_variant_call_prepare(vc, call, copies, note, sizeof note)) {
    memset(vc, 0, sizeof *vc);
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "no memory for a second run's outputs");
  }
  ctx->threads = threads;
  sl_status st = sl_variant_device(v) == SL_DEVICE_CUDA
                     ? sl_device_run_variant(ctx, v, &vc->call, fault)
                     : sl_run_variant(ctx, v, &vc->call);
  if (st == SL_STATUS_OK && !*fault) sl_outputs_as_produced(&vc->call);
  return st;
}

int sl_rerun_agrees(const sl_variant *v, const sl_call *inferred,
                    unsigned copies, int first_threads, int threads,
                    const sl_call *first, double *spread, char *msg,
                    size_t len) {
  if (threads <= 0) threads = sl_rerun_threads(first_threads);
  *spread = 0;
  msg[0] = '\0';
  sl_variant_call vc;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int fault;
  sl_status st = sl_run_again(v, inferred, copies, threads, &vc, &ctx, &fault);
  int rc = 1;
  if (st != SL_STATUS_OK || fault) {
    /* The first run passed: refusing the same inputs now is itself a
     * difference between the runs, unless the machine ran short. */
    const int environment =
        !fault && (st == SL_STATUS_OUT_OF_MEMORY || st == SL_STATUS_NO_DEVICE ||
                   st == SL_STATUS_DEVICE_ERROR);
    snprintf(msg, len,
             "the second run (%d thread%s) %s, where the first (%d) "
             "passed: %s: %.200s",
             threads, threads == 1 ? "" : "s",
             fault ? "broke a device check" : "refused the inputs",
             first_threads, sl_status_name(st), sl_ctx_message(&ctx));
    rc = environment ? -1 : 0;
    if (!environment) *spread = INFINITY;
  } else {
    const sl_op_info *info = sl_op_get(inferred->op);
    for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
      sl_diff d;
      if (sl_compare(&vc.call.arg[s], &first->arg[s], SL_ORACLE_BITWISE, NULL,
                     &d))
        continue;
      if (d.diff3 > *spread || d.diff3 != d.diff3) *spread = d.diff3;
      if (rc == 1)
        snprintf(msg, len,
                 "%s differs between runs with %d and %d threads (%lld "
                 "elements; %s)",
                 info->arg_names[s], first_threads, threads,
                 (long long)d.mismatches, d.msg);
      rc = 0;
    }
  }
  sl_variant_call_free(&vc);
  return rc;
}

/* A contiguous copy of t over `shape` (t's own, or a smaller one) with the
 * axes of `mask` reversed; NULL without memory (n elements at *mem). */
static int sl__reversed(const sl_tensor *t, const int64_t *shape, unsigned mask,
                        sl_tensor *out, void **mem) {
  int64_t n = 1, idx[SL_MAX_DIMS];
  for (int k = 0; k < t->ndim; ++k) n *= shape[k];
  const size_t es = sl_dtype_size(t->dtype);
  unsigned char *buf = malloc((size_t)n * es + 1);
  if (!buf) return -1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (int k = t->ndim - 1; k >= 0; --k) {
      idx[k] = rest % shape[k];
      rest /= shape[k];
      const int64_t at = (mask >> k & 1u) ? shape[k] - 1 - idx[k] : idx[k];
      off += at * t->strides[k];
    }
    memcpy(buf + (size_t)i * es, (const char *)t->data + off * (int64_t)es, es);
  }
  *out = sl_tensor_make(t->dtype, t->ndim, shape, buf);
  *mem = buf;
  return 0;
}

int sl_permuted_agrees(const sl_variant *v, const sl_call *inferred,
                       unsigned copies, int threads, const sl_call *first,
                       int *applied, char *msg, size_t len) {
  sl_reversal rv = {0, 0, 0, 0};
  msg[0] = '\0';
  const sl_harness_op *h = sl_harness_op_of(inferred->op);
  *applied = h && h->reversal && h->reversal(inferred, &rv);
  if (!*applied) return 1;
  sl_call perm = *inferred;
  void *mem[2] = {NULL, NULL};
  const sl_tensor *index = &inferred->arg[1], *u = &inferred->arg[rv.uslot];
  if (sl__reversed(index, index->shape, rv.imask, &perm.arg[1], &mem[0]) ||
      sl__reversed(u, rv.cut ? index->shape : u->shape, rv.umask,
                   &perm.arg[rv.uslot], &mem[1])) {
    free(mem[0]);
    snprintf(msg, len, "no memory for the permuted updates");
    return -1;
  }
  sl_variant_call vc;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int fault, rc = 1;
  sl_status st = sl_run_again(v, &perm, copies, threads, &vc, &ctx, &fault);
  if (st != SL_STATUS_OK || fault) {
    snprintf(msg, len, "the same updates in reverse order were %s: %s: %.200s",
             fault ? "run into a device check" : "refused", sl_status_name(st),
             sl_ctx_message(&ctx));
    rc = st == SL_STATUS_OUT_OF_MEMORY ? -1 : 0;
  } else {
    sl_diff d;
    const int s =
        sl_first_output_differing(&vc.call, first, NULL, SL_ORACLE_EXACT, &d);
    if (s >= 0) {
      snprintf(msg, len,
               "not invariant under a permutation of the updates: with "
               "them in reverse order %s differs (%lld elements; %s)",
               sl_op_get(inferred->op)->arg_names[s], (long long)d.mismatches,
               d.msg);
      rc = 0;
    }
  }
  sl_variant_call_free(&vc);
  free(mem[0]);
  free(mem[1]);
  return rc;
}
