/*
 * The CUDA queries and the device-memory API of a build with CUDA (sl.h):
 * plain C over the CUDA runtime, every call checked, errors as messages on
 * the ctx.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda/cuda_common.cuh"

extern "C" int sl_cuda_built(void) { return 1; }

/* cudaGetDeviceCount initialises the CUDA driver in the calling process,
 * and a process that has done so cannot use CUDA in the children it forks
 * afterwards (the harness forks its workers). So unless this process already
 * uses CUDA, the count is taken in a child that reports it through a pipe
 * and exits. A machine without a driver answers an error: no device. */
static int sl__count_here(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

static int sl__count_in_child(void) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    int n = sl__count_here();
    ssize_t w = write(fd[1], &n, sizeof n);
    _exit(w == (ssize_t)sizeof n ? 0 : 1);
  }
  close(fd[1]);
  int n = -1;
  ssize_t got;
  do {
    got = read(fd[0], &n, sizeof n);
  } while (got < 0 && errno == EINTR);
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return got == (ssize_t)sizeof n ? n : -1;
}

extern "C" int sl_cuda_device_count(void) {
  static int cached = -1;
  if (cached < 0) {
    int n = sl__cuda_used ? -1 : sl__count_in_child();
    cached = n >= 0 ? n : sl__count_here();
  }
  return cached;
}

/* ------------------------------------------------------------------------ */
/* Device memory                                                             */
/* ------------------------------------------------------------------------ */

/* First use: the same setup as a kernel's (sl__cuda_begin). */
static sl_status sl__dev_begin(sl_ctx *ctx, cudaStream_t *s) {
  return sl__cuda_begin(ctx, s);
}

extern "C" sl_status sl_device_alloc(sl_ctx *ctx, size_t bytes, void **ptr) {
  cudaStream_t s;
  *ptr = NULL;
  SL__TRY(sl__dev_begin(ctx, &s));
  SL__CUDA_TRY(ctx, cudaMalloc(ptr, bytes ? bytes : 1), "sl_device_alloc");
  return SL_STATUS_OK;
}

extern "C" void sl_device_free(void *ptr) {
  if (ptr) cudaFree(ptr);
}

extern "C" sl_status sl_device_copy_to(sl_ctx *ctx, void *dst_dev,
                                       const void *src_host, size_t bytes) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  if (!bytes) return SL_STATUS_OK;
  SL__CUDA_TRY(
      ctx, cudaMemcpyAsync(dst_dev, src_host, bytes, cudaMemcpyHostToDevice, s),
      "sl_device_copy_to");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "sl_device_copy_to: wait");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_copy_from(sl_ctx *ctx, void *dst_host,
                                         const void *src_dev, size_t bytes) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  if (!bytes) return SL_STATUS_OK;
  SL__CUDA_TRY(
      ctx, cudaMemcpyAsync(dst_host, src_dev, bytes, cudaMemcpyDeviceToHost, s),
      "sl_device_copy_from");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "sl_device_copy_from: wait");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_copy(sl_ctx *ctx, void *dst_dev,
                                    const void *src_dev, size_t bytes) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  if (!bytes) return SL_STATUS_OK;
  SL__CUDA_TRY(
      ctx,
      cudaMemcpyAsync(dst_dev, src_dev, bytes, cudaMemcpyDeviceToDevice, s),
      "sl_device_copy");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_memset(sl_ctx *ctx, void *dst_dev, int byte,
                                      size_t bytes) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  if (!bytes) return SL_STATUS_OK;
  SL__CUDA_TRY(ctx, cudaMemsetAsync(dst_dev, byte, bytes, s),
               "sl_device_memset");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_sync(sl_ctx *ctx) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "sl_device_sync");
  SL__CUDA_TRY(ctx, cudaGetLastError(), "sl_device_sync: last error");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_describe(sl_ctx *ctx, char *buf, size_t len,
                                        size_t *l2_bytes) {
  cudaStream_t s;
  if (buf && len) buf[0] = '\0';
  if (l2_bytes) *l2_bytes = 0;
  SL__TRY(sl__dev_begin(ctx, &s));
  int dev = 0;
  cudaDeviceProp p;
  SL__CUDA_TRY(ctx, cudaGetDevice(&dev), "sl_device_describe: cudaGetDevice");
  SL__CUDA_TRY(ctx, cudaGetDeviceProperties(&p, dev),
               "sl_device_describe: cudaGetDeviceProperties");
  if (buf && len)
    snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB", p.name,
             p.major, p.minor, p.multiProcessorCount, p.l2CacheSize / 1048576.0,
             p.totalGlobalMem / 1073741824.0);
  if (l2_bytes) *l2_bytes = (size_t)p.l2CacheSize;
  return SL_STATUS_OK;
}

/* ------------------------------------------------------------------------ */
/* Event timing                                                              */
/* ------------------------------------------------------------------------ */
struct sl_device_timer {
  cudaEvent_t start, stop;
};

extern "C" sl_status sl_device_timer_create(sl_ctx *ctx,
                                            sl_device_timer **timer) {
  cudaStream_t s;
  *timer = NULL;
  SL__TRY(sl__dev_begin(ctx, &s));
  sl_device_timer *t = (sl_device_timer *)calloc(1, sizeof *t);
  if (!t)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "sl_device_timer_create: expected memory for a timer, "
                       "got none");
  cudaError_t e = cudaEventCreate(&t->start);
  if (e == cudaSuccess) {
    e = cudaEventCreate(&t->stop);
    if (e != cudaSuccess) cudaEventDestroy(t->start);
  }
  if (e != cudaSuccess) {
    free(t);
    return sl__cuda_fail(ctx, e, "sl_device_timer_create: cudaEventCreate");
  }
  *timer = t;
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_timer_start(sl_ctx *ctx,
                                           sl_device_timer *timer) {
  cudaStream_t s;
  SL__TRY(sl__dev_begin(ctx, &s));
  SL__CUDA_TRY(ctx, cudaEventRecord(timer->start, s),
               "sl_device_timer_start: cudaEventRecord");
  return SL_STATUS_OK;
}

extern "C" sl_status sl_device_timer_stop(sl_ctx *ctx, sl_device_timer *timer,
                                          double *seconds) {
  cudaStream_t s;
  *seconds = 0;
  SL__TRY(sl__dev_begin(ctx, &s));
  SL__CUDA_TRY(ctx, cudaEventRecord(timer->stop, s),
               "sl_device_timer_stop: cudaEventRecord");
  SL__CUDA_TRY(ctx, cudaEventSynchronize(timer->stop),
               "sl_device_timer_stop: cudaEventSynchronize");
  float ms = 0;
  SL__CUDA_TRY(ctx, cudaEventElapsedTime(&ms, timer->start, timer->stop),
               "sl_device_timer_stop: cudaEventElapsedTime");
  *seconds = ms * 1e-3;
  return SL_STATUS_OK;
}

extern "C" void sl_device_timer_destroy(sl_device_timer *timer) {
  if (!timer) return;
  cudaEventDestroy(timer->start);
  cudaEventDestroy(timer->stop);
  free(timer);
}
