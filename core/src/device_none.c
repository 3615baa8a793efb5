/* The CUDA queries of a build without CUDA: honest answers, no device. Every
 * device function fails with NOT_BUILT and says why. */
#include "sl_internal.h"

int sl_cuda_built(void) { return 0; }
int sl_cuda_device_count(void) { return 0; }

static sl_status sl__not_built(sl_ctx *ctx, const char *what) {
  return sl_ctx_fail(ctx, SL_STATUS_NOT_BUILT,
                     "%s: expected a build with CUDA, got one built without "
                     "CUDA",
                     what);
}

sl_status sl_device_alloc(sl_ctx *ctx, size_t bytes, void **ptr) {
  (void)bytes;
  if (ptr) *ptr = NULL;
  return sl__not_built(ctx, "sl_device_alloc");
}

void sl_device_free(void *ptr) { (void)ptr; }

sl_status sl_device_copy_to(sl_ctx *ctx, void *dst_dev, const void *src_host,
                            size_t bytes) {
  (void)dst_dev, (void)src_host, (void)bytes;
  return sl__not_built(ctx, "sl_device_copy_to");
}

sl_status sl_device_copy_from(sl_ctx *ctx, void *dst_host, const void *src_dev,
                              size_t bytes) {
  (void)dst_host, (void)src_dev, (void)bytes;
  return sl__not_built(ctx, "sl_device_copy_from");
}

sl_status sl_device_copy(sl_ctx *ctx, void *dst_dev, const void *src_dev,
                         size_t bytes) {
  (void)dst_dev, (void)src_dev, (void)bytes;
  return sl__not_built(ctx, "sl_device_copy");
}

sl_status sl_device_memset(sl_ctx *ctx, void *dst_dev, int byte, size_t bytes) {
  (void)dst_dev, (void)byte, (void)bytes;
  return sl__not_built(ctx, "sl_device_memset");
}

sl_status sl_device_sync(sl_ctx *ctx) {
  return sl__not_built(ctx, "sl_device_sync");
}

sl_status sl_device_describe(sl_ctx *ctx, char *buf, size_t len,
                             size_t *l2_bytes) {
  if (buf && len) buf[0] = '\0';
  if (l2_bytes) *l2_bytes = 0;
  return sl__not_built(ctx, "sl_device_describe");
}

sl_status sl_device_timer_create(sl_ctx *ctx, sl_device_timer **timer) {
  if (timer) *timer = NULL;
  return sl__not_built(ctx, "sl_device_timer_create");
}

sl_status sl_device_timer_start(sl_ctx *ctx, sl_device_timer *timer) {
  (void)timer;
  return sl__not_built(ctx, "sl_device_timer_start");
}

sl_status sl_device_timer_stop(sl_ctx *ctx, sl_device_timer *timer,
                               double *seconds) {
  (void)timer;
  if (seconds) *seconds = 0;
  return sl__not_built(ctx, "sl_device_timer_stop");
}

void sl_device_timer_destroy(sl_device_timer *timer) { (void)timer; }
