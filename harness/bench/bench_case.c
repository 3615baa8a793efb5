/* A case made ready for timing (see bench_case.h). */
#include "bench_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_facts.h"
#include "out_layout.h"

int64_t sl_tensor_bytes(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n * (int64_t)sl_dtype_size(t->dtype);
}

/* Whether the op reads input `slot` at all (sl_harness_op.reads_input). */
static int sl__reads_input(const sl_call *c, int slot) {
  const sl_harness_op *h = sl_harness_op_of(c->op);
  return !h || !h->reads_input || h->reads_input(c, slot);
}

int64_t sl_useful_bytes(const sl_call *call, const sl_tensor *ref) {
  const sl_op_info *info = sl_op_get(call->op);
  int64_t b = 0;
  for (int s = 0; s < info->n_in; ++s) {
    const sl_tensor *t = &call->arg[s];
    if (!t->data || !sl__reads_input(call, s)) continue;
    const sl_harness_op *h = sl_harness_op_of(call->op);
    int64_t taken = h && h->read_elems ? h->read_elems(call, s) : -1;
    b += taken >= 0 ? taken * (int64_t)sl_dtype_size(t->dtype)
                    : sl_tensor_bytes(t);
  }
  for (int s = 0; s < info->n_out; ++s) b += sl_tensor_bytes(&ref[s]);
  return b;
}

int sl_bench_case_open(sl_bench_case *bc, const sl_case *c0,
                       const sl_run_opts *ro, const sl_bench_workers *w,
                       sl_case_result *res, char *err, size_t errlen) {
  memset(bc, 0, sizeof *bc);
  if (sl_worker_run_variants(w->check, c0, ro->variants, w->timeout_s, res, err,
                             errlen))
    return -1;
  /* The case as the check ran it, built again in the timing worker. */
  if (sl_case_parse(res->line, &bc->c, err, errlen)) return -1;
  sl_bw_lost death;
  if (sl_bw_open(w->timing, res->line, ro->max_case_bytes, &bc->built, &death,
                 err, errlen)) {
    if (!death.lost) return -1;
    /* LibTorch or the inputs' generator killed the worker: nothing to
     * time, and the check's verdicts stand. */
    bc->built.ref_rc = -1;
    snprintf(bc->built.ref_msg, sizeof bc->built.ref_msg,
             "the timing worker died building the case: %.400s", death.message);
  }
  printf("\n%s\n  useful bytes %.3f MB\n", res->line,
         (double)bc->built.bytes / 1e6);
  return 0;
}

int sl_bench_alloc_outputs(sl_call *c, int like_reference, void **mem) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  if (sl_infer(&ctx, c)) return -1;
  if (like_reference) sl_outputs_like_reference(c);
  const sl_op_info *info = sl_op_get(c->op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    int64_t bytes = sl_tensor_bytes(&c->arg[s]);
    mem[s] = calloc(1, bytes > 0 ? (size_t)bytes : 16);
    if (!mem[s]) return -1;
    c->arg[s].data = mem[s];
  }
  return 0;
}

int sl_bench_workers_start(sl_bench_workers *w, const sl_run_opts *ro,
                           int counters, sl_bw_info *info, char *err,
                           size_t errlen) {
  const sl_bw_setup setup = {ro->threads, counters, w->timeout_s};
  if (sl_worker_start(&w->check, ro, err, errlen)) return -1;
  return sl_bw_start(&w->timing, &setup, info, err, errlen);
}

int sl_bench_workers_renew_timing(sl_bench_workers *w, const sl_run_opts *ro,
                                  int counters, sl_bw_info *info, char *err,
                                  size_t errlen) {
  const sl_bw_setup setup = {ro->threads, counters, w->timeout_s};
  sl_bw_stop(w->timing);
  w->timing = NULL;
  return sl_bw_start(&w->timing, &setup, info, err, errlen);
}

void sl_bench_workers_stop(sl_bench_workers *w) {
  sl_bw_stop(w->timing);
  sl_worker_stop(w->check);
  w->timing = NULL;
  w->check = NULL;
}
