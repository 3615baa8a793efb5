/* TEMPORARY during bring-up: ops whose folder is not written yet. */
#include "sl_internal.h"
#define SL__PENDING(name)                                                      \
  sl_status sl__##name##_infer(sl_ctx *ctx, sl_call *c) {                      \
    (void)c;                                                                   \
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_OP, #name ": not implemented");  \
  }
SL__PENDING(gather_nd)
SL__PENDING(scatter_reduce)
SL__PENDING(scatter_reduce_backward)
SL__PENDING(scatter_nd)
SL__PENDING(index_reduce)
SL__PENDING(index_reduce_backward)
SL__PENDING(select_scatter)
SL__PENDING(masked_scatter)
SL__PENDING(dynamic_scatter)
SL__PENDING(dynamic_scatter_backward)
