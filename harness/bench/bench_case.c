/* A case made ready for timing (see bench_case.h). */
#include "bench_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_facts.h"
#include "slref.h"
#include "store_verdicts.h"

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
                       const sl_run_opts *ro, sl_store *st, int64_t run_id,
                       sl_case_result *res, char *err, size_t errlen) {
  memset(bc, 0, sizeof *bc);
  if (sl_run_case(c0, ro, res, err, errlen)) return -1;
  if (sl_prepare_case(c0, NULL, ro->max_case_bytes, &bc->c, &bc->in, err,
                      errlen))
    return -1;
  sl_tensor ref[SL_MAX_ARGS];
  memset(ref, 0, sizeof ref);
  bc->ref_rc = slref_run(&bc->in.call, ref, bc->ref_msg, sizeof bc->ref_msg);
  if (bc->ref_rc == 0) bc->bytes = sl_useful_bytes(&bc->in.call, ref);
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(ref[s].data);
  printf("\n%s\n  useful bytes %.3f MB\n", res->line, (double)bc->bytes / 1e6);
  if (st && sl_store_verdicts(st, run_id, bc->c.op, bc->c.dt, res->line,
                              bc->c.seed, 0, 1, res->v, res->n, &bc->case_id))
    fprintf(stderr, "scatterlab: store: %s\n", sl_store_errmsg(st));
  return 0;
}

void sl_bench_case_close(sl_bench_case *bc) { sl_bundle_free(&bc->in); }

int sl_bench_alloc_outputs(sl_call *c, void **mem) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  if (sl_infer(&ctx, c)) return -1;
  const sl_op_info *info = sl_op_get(c->op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    int64_t bytes = sl_tensor_bytes(&c->arg[s]);
    mem[s] = calloc(1, bytes > 0 ? (size_t)bytes : 16);
    if (!mem[s]) return -1;
    c->arg[s].data = mem[s];
  }
  return 0;
}
