/* A variant's error paths, by allocation faults (see alloc_faults.h). */
#include "alloc_faults.h"

#include <stdio.h>
#include <string.h>

#include "providers.h"
#include "rerun.h"
#include "runner.h"

typedef sl_alloc_counts (*sl__faults_fn)(int64_t fail_after);

/* The hook of the provider that serves v, or NULL. */
static sl__faults_fn sl__hook_of(const sl_variant *v) {
  const sl_hvariant *hv = sl_hvariant_find(v->op, v->name);
  const sl_provider_loaded *p = hv ? sl_provider_at((size_t)hv->provider) : 0;
  return p ? p->alloc_faults : NULL;
}

int sl_alloc_faults_agree(const sl_variant *v, const sl_case *c,
                          const sl_call *inferred, unsigned copies, int threads,
                          const sl_call *first, uint64_t seed, int *applied,
                          char *msg, size_t len) {
  *applied = 0;
  msg[0] = '\0';
  const sl__faults_fn hook = sl__hook_of(v);
  if (!hook) return 1;
  sl_variant_call vc;
  sl_ctx ctx;
  int fault;
  /* Counting: how many allocations the call makes. */
  hook(-1);
  sl_ctx_init(&ctx);
  sl_status st = sl_run_again(v, inferred, copies, threads, &vc, &ctx, &fault);
  sl_variant_call_free(&vc);
  const sl_alloc_counts counted = hook(-1);
  if (st != SL_STATUS_OK || fault) {
    snprintf(msg, len, "allocation faults: the counting run refused: %s",
             sl_ctx_message(&ctx));
    return -1;
  }
  if (counted.made <= 0) return 1;
  *applied = 1;
  /* The k-th and every later allocation fail: a machine out of memory. */
  const int64_t k =
      (int64_t)((seed * 0x9e3779b97f4a7c15ull) >> 33) % counted.made;
  char what[96], guard[256];
  snprintf(what, sizeof what, SL_ALLOC_FAULTS_PREFIX "%lld of %lld failing",
           (long long)k + 1, (long long)counted.made);
  hook(k);
  sl_ctx_init(&ctx);
  sl_runner_phase(what);
  st = sl_run_again(v, inferred, copies, threads, &vc, &ctx, &fault);
  sl_runner_phase("");
  const sl_alloc_counts after = hook(-1);
  int rc = 1;
  sl_diff d;
  int s;
  if (fault) {
    snprintf(msg, len, "%s: broke a device check: %.200s", what,
             sl_ctx_message(&ctx));
    rc = 0;
  } else if (!sl_variant_call_guards_ok(&vc, guard, sizeof guard)) {
    snprintf(msg, len, "%s: %s", what, guard);
    rc = 0;
  } else if (after.live != counted.live) {
    snprintf(msg, len,
             "%s: returned %s and left %lld allocation%s unfreed (a leak on "
             "the error path)",
             what, sl_status_name(st), (long long)(after.live - counted.live),
             after.live - counted.live == 1 ? "" : "s");
    rc = 0;
  } else if (st == SL_STATUS_OUT_OF_MEMORY) {
    if (!sl_ctx_message(&ctx)[0]) {
      snprintf(msg, len, "%s: returned out_of_memory without a message", what);
      rc = 0;
    }
  } else if (st != SL_STATUS_OK) {
    snprintf(msg, len,
             "%s: returned %s (%.160s), expected out_of_memory or the "
             "answer of a path that needs less",
             what, sl_status_name(st), sl_ctx_message(&ctx));
    rc = 0;
  } else if ((s = sl_first_output_differing(&vc.call, first, c, SL_ORACLE_EXACT,
                                            &d)) >= 0) {
    snprintf(msg, len,
             "%s: returned ok with %s wrong against the first run (%lld "
             "elements; %.160s)",
             what, sl_op_get(inferred->op)->arg_names[s],
             (long long)d.mismatches, d.msg);
    rc = 0;
  }
  sl_variant_call_free(&vc);
  return rc;
}
