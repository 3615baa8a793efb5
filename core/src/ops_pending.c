/* TEMPORARY during bring-up: ops whose folder is not written yet. */
#include "sl_internal.h"
#define SL__PENDING(name)                                                      \
  sl_status sl__##name##_infer(sl_ctx *ctx, sl_call *c) {                      \
    (void)c;                                                                   \
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_OP, #name ": not implemented");  \
  }
