/*
 * What each CUDA runtime call costs inside one call of a cuda.* variant, as
 * the bench measures it: events recorded on the stream before and after the
 * host code, so on small inputs the host's API calls (and any wait for the
 * device) are the time, not the kernels. Run by hand on a GPU machine:
 *
 *   nvcc -O2 -arch=sm_90 -o /tmp/cuda_api_costs tests/perf/cuda_api_costs.cu
 *   /tmp/cuda_api_costs
 *
 * Prints, per sequence, the median over 2,000 repetitions of the event time
 * (what bench reports) and of the host time, in microseconds.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void empty_k(unsigned long long *p) {
  if (p && threadIdx.x == 1000) *p = 0;
}

__global__ void coop_k(unsigned long long *p) {
  cooperative_groups::this_grid().sync();
  if (p && threadIdx.x == 1000) *p = 0;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static cudaStream_t s;
static unsigned long long *dslot, *pinned;
static int blocks_coop;

enum {
  SEQ_NOTHING,
  SEQ_LAUNCH,
  SEQ_LAUNCH3,
  SEQ_COOP,
  SEQ_MALLOC_FREE,
  SEQ_MEMSET,
  SEQ_D2H_PAGEABLE,
  SEQ_D2H_PINNED,
  SEQ_SYNC,
  SEQ_GETDEVICE,
  SEQ_ATTRIBUTE,
  SEQ_OCCUPANCY,
  SEQ_CHECKED_CALL,
  SEQ_LEAN_CALL,
  SEQ_N
};
static const char *names[SEQ_N] = {
    "nothing (two events)",
    "one kernel launch",
    "three kernel launches",
    "one cooperative launch (grid sync)",
    "cudaMallocAsync + cudaFreeAsync",
    "cudaMemsetAsync 8 B",
    "D2H 8 B to pageable + sync",
    "D2H 8 B to pinned + sync",
    "cudaStreamSynchronize (idle)",
    "cudaGetDevice",
    "cudaDeviceGetAttribute",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "malloc+memset, 3 launches, D2H pageable, free",
    "3 launches, D2H pinned",
};

static void seq(int k) {
  int dev = 0, v = 0;
  unsigned long long h = 0, *q = 0;
  switch (k) {
  case SEQ_NOTHING:
    break;
  case SEQ_LAUNCH:
    empty_k<<<1, 32, 0, s>>>(dslot);
    break;
  case SEQ_LAUNCH3:
    for (int i = 0; i < 3; ++i) empty_k<<<1, 32, 0, s>>>(dslot);
    break;
  case SEQ_COOP: {
    void *args[] = {&dslot};
    CK(cudaLaunchCooperativeKernel((const void *)coop_k, dim3(blocks_coop),
                                   dim3(256), args, 0, s));
    break;
  }
  case SEQ_MALLOC_FREE:
    CK(cudaMallocAsync((void **)&q, 8, s));
    CK(cudaFreeAsync(q, s));
    break;
  case SEQ_MEMSET:
    CK(cudaMemsetAsync(dslot, 0xff, 8, s));
    break;
  case SEQ_D2H_PAGEABLE:
    CK(cudaMemcpyAsync(&h, dslot, 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    break;
  case SEQ_D2H_PINNED:
    CK(cudaMemcpyAsync(pinned, dslot, 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    break;
  case SEQ_SYNC:
    CK(cudaStreamSynchronize(s));
    break;
  case SEQ_GETDEVICE:
    CK(cudaGetDevice(&dev));
    break;
  case SEQ_ATTRIBUTE:
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, 0));
    break;
  case SEQ_OCCUPANCY:
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, coop_k, 256, 0));
    break;
  case SEQ_CHECKED_CALL:
    CK(cudaMallocAsync((void **)&q, 8, s));
    CK(cudaMemsetAsync(q, 0xff, 8, s));
    for (int i = 0; i < 3; ++i) empty_k<<<1, 32, 0, s>>>(q);
    CK(cudaMemcpyAsync(&h, q, 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFreeAsync(q, s));
    break;
  case SEQ_LEAN_CALL:
    for (int i = 0; i < 3; ++i) empty_k<<<1, 32, 0, s>>>(dslot);
    CK(cudaMemcpyAsync(pinned, dslot, 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    break;
  }
}

int main(void) {
  enum { REPS = 2000 };
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  /* As sl__cuda_begin: freed workspace stays in the pool across syncs. */
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t keep = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  CK(cudaMalloc((void **)&dslot, 8));
  CK(cudaMallocHost((void **)&pinned, 8));
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, coop_k, 256, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  blocks_coop = per_sm * sms;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  static double ev[REPS], host[REPS];
  printf("%-48s %10s %10s\n", "sequence (medians of 2000)", "event us",
         "host us");
  for (int k = 0; k < SEQ_N; ++k) {
    for (int r = -100; r < REPS; ++r) {
      CK(cudaStreamSynchronize(s));
      double t0 = now_us();
      CK(cudaEventRecord(a, s));
      seq(k);
      CK(cudaEventRecord(b, s));
      double t1 = now_us();
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 0) {
        ev[r] = ms * 1e3;
        host[r] = t1 - t0;
      }
    }
    qsort(ev, REPS, sizeof ev[0], cmp);
    qsort(host, REPS, sizeof host[0], cmp);
    printf("%-48s %10.2f %10.2f\n", names[k], ev[REPS / 2], host[REPS / 2]);
  }
  printf("cooperative grid: %d blocks of 256 (%d per SM)\n", blocks_coop,
         per_sm);
  return 0;
}
