/* A case made ready for timing (see bench_case.h). */
#include "bench_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slref.h"

int64_t sl_tensor_bytes(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n * (int64_t)sl_dtype_size(t->dtype);
}

/* Each input read once, each output (the reference's shape) written once. */
static int64_t sl__useful_bytes(const sl_call *call, const sl_tensor *ref) {
  const sl_op_info *info = sl_op_get(call->op);
  int64_t b = 0;
  for (int s = 0; s < info->n_in; ++s)
    if (call->arg[s].data) b += sl_tensor_bytes(&call->arg[s]);
  for (int s = 0; s < info->n_out; ++s) b += sl_tensor_bytes(&ref[s]);
  return b;
}

static void sl__store_verdicts(sl_bench_case *bc, sl_store *st,
                               int64_t run_id) {
  const sl_case_result *res = bc->res;
  sl_store_add_case(st, run_id, sl_op_name(bc->c.op), res->line, bc->c.seed, 0,
                    &bc->case_id);
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    sl_result_row row = {r->variant, sl_verdict_name(r->verdict),
                         r->message, r->has_diffs,
                         r->diff1,   r->diff2,
                         r->diff3,   r->seconds};
    sl_store_add_result(st, bc->case_id, &row);
  }
}

int sl_bench_case_open(sl_bench_case *bc, const sl_case *c0,
                       const sl_run_opts *ro, sl_store *st, int64_t run_id,
                       sl_case_result *res, char *err, size_t errlen) {
  memset(bc, 0, sizeof *bc);
  bc->res = res;
  if (sl_run_case(c0, ro, res, err, errlen)) return -1;
  if (sl_prepare_case(c0, NULL, &bc->c, &bc->in, err, errlen)) return -1;
  sl_tensor ref[SL_MAX_ARGS];
  memset(ref, 0, sizeof ref);
  bc->ref_rc = slref_run(&bc->in.call, ref, bc->ref_msg, sizeof bc->ref_msg);
  if (bc->ref_rc == 0) bc->bytes = sl__useful_bytes(&bc->in.call, ref);
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(ref[s].data);
  printf("\n%s\n  useful bytes %.3f MB\n", res->line, (double)bc->bytes / 1e6);
  if (st) sl__store_verdicts(bc, st, run_id);
  return 0;
}

void sl_bench_case_close(sl_bench_case *bc) { sl_bundle_free(&bc->in); }
