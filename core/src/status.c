/* Status names and the error context. */
#include <stdarg.h>
#include <stdio.h>

#include "sl_internal.h"

static const char *const sl__status_names[] = {
#define SL__STATUS_NAME(e, name, msg) #name,
    SL_STATUS_MAP(SL__STATUS_NAME)
#undef SL__STATUS_NAME
};

const char *sl_status_name(sl_status s) {
  return (unsigned)s < SL_STATUS_COUNT ? sl__status_names[s] : "unknown_status";
}

void sl_ctx_init(sl_ctx *ctx) {
  if (!ctx) return;
  ctx->status = SL_STATUS_OK;
  ctx->msg[0] = '\0';
  ctx->threads = 0;
  ctx->cuda_stream = NULL;
}

const char *sl_ctx_message(const sl_ctx *ctx) {
  return ctx ? ctx->msg : "ctx: expected a context, got NULL";
}

sl_status sl_ctx_fail(sl_ctx *ctx, sl_status status, const char *fmt, ...) {
  if (!ctx) return status;
  ctx->status = status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
  va_end(ap);
  return status;
}
