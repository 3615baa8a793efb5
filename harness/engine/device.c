/* cuda.* variants from host cases: device buffers, checks, timing (see
 * device.h). */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"
#include "hash64.h"
#include "op_facts.h"
#include "slref.h"

/* ------------------------------------------------------------------------ */
/* Tensors                                                                   */
/* ------------------------------------------------------------------------ */

static int64_t sl__numel_of(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

/* ------------------------------------------------------------------------ */
/* The inputs of the current case, on the device                             */
/* ------------------------------------------------------------------------ */
typedef struct sl__dev_input {
  const void *host;
  size_t bytes;
  uint64_t hash;
  void *dev;
} sl__dev_input;

static struct {
  int valid;
  sl_op op;
  sl__dev_input in[SL_MAX_ARGS];
} sl__cache;

void sl_device_release(void) {
  for (int s = 0; s < SL_MAX_ARGS; ++s) sl_device_free(sl__cache.in[s].dev);
  memset(&sl__cache, 0, sizeof sl__cache);
}

/* Points the inputs of dc (a copy of the host call) at device copies,
 * uploading them unless the cached ones are this case's. */
static sl_status sl__inputs_to_device(sl_ctx *ctx, const sl_call *host,
                                      sl_call *dc) {
  const sl_op_info *info = sl_op_get(host->op);
  sl__dev_input want[SL_MAX_ARGS];
  memset(want, 0, sizeof want);
  int same = sl__cache.valid && sl__cache.op == host->op;
  for (int s = 0; s < info->n_in; ++s) {
    const sl_tensor *t = &host->arg[s];
    want[s].host = t->data;
    want[s].bytes = t->data ? (size_t)sl_tensor_span_bytes(t) : 0;
    want[s].hash = want[s].bytes ? sl_hash64(t->data, want[s].bytes) : 0;
    same = same && want[s].host == sl__cache.in[s].host &&
           want[s].bytes == sl__cache.in[s].bytes &&
           want[s].hash == sl__cache.in[s].hash;
  }
  if (!same) {
    sl_device_release();
    for (int s = 0; s < info->n_in; ++s) {
      if (!want[s].bytes) continue;
      sl_status st = sl_device_alloc(ctx, want[s].bytes, &want[s].dev);
      if (!st)
        st = sl_device_copy_to(ctx, want[s].dev, want[s].host, want[s].bytes);
      if (st) {
        sl_device_free(want[s].dev);
        sl_device_release();
        return st;
      }
      sl__cache.in[s] = want[s];
    }
    sl__cache.valid = 1;
    sl__cache.op = host->op;
  }
  for (int s = 0; s < info->n_in; ++s) {
    if (!host->arg[s].data) continue;
    dc->arg[s].data = sl__cache.in[s].dev; /* NULL for an empty tensor */
    dc->arg[s].device = SL_DEVICE_CUDA;
  }
  return SL_STATUS_OK;
}

/* ------------------------------------------------------------------------ */
/* Outputs with guards                                                       */
/* ------------------------------------------------------------------------ */
typedef struct sl__dev_outputs {
  void *buf[SL_MAX_ARGS]; /* [guard | data | guard] */
  size_t bytes[SL_MAX_ARGS];
} sl__dev_outputs;

static void sl__outputs_free(sl__dev_outputs *o) {
  for (int s = 0; s < SL_MAX_ARGS; ++s) sl_device_free(o->buf[s]);
  memset(o, 0, sizeof *o);
}

static sl_status sl__outputs_alloc(sl_ctx *ctx, const sl_call *host,
                                   sl_call *dc, sl__dev_outputs *o) {
  const sl_op_info *info = sl_op_get(host->op);
  memset(o, 0, sizeof *o);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    o->bytes[s] = (size_t)sl_tensor_span_bytes(&host->arg[s]);
    sl_status st =
        sl_device_alloc(ctx, o->bytes[s] + 2 * SL_DEVICE_GUARD, &o->buf[s]);
    if (st) {
      sl__outputs_free(o);
      return st;
    }
    dc->arg[s].data = (char *)o->buf[s] + SL_DEVICE_GUARD;
    dc->arg[s].device = SL_DEVICE_CUDA;
  }
  return SL_STATUS_OK;
}

/* Guards to their pattern, data to the poison. */
static sl_status sl__outputs_poison(sl_ctx *ctx, const sl_call *host,
                                    sl__dev_outputs *o, int poison) {
  const sl_op_info *info = sl_op_get(host->op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    char *b = o->buf[s];
    sl_status st =
        sl_device_memset(ctx, b, SL_DEVICE_GUARD_BYTE, SL_DEVICE_GUARD);
    if (!st)
      st = sl_device_memset(ctx, b + SL_DEVICE_GUARD, poison, o->bytes[s]);
    if (!st)
      st = sl_device_memset(ctx, b + SL_DEVICE_GUARD + o->bytes[s],
                            SL_DEVICE_GUARD_BYTE, SL_DEVICE_GUARD);
    if (st) return st;
  }
  return SL_STATUS_OK;
}

/* Both guards of every output still hold their pattern. */
static sl_status sl__guards_check(sl_ctx *ctx, const sl_call *host,
                                  const sl__dev_outputs *o,
                                  const char *variant) {
  const sl_op_info *info = sl_op_get(host->op);
  static unsigned char g[SL_DEVICE_GUARD];
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
    for (int side = 0; side < 2; ++side) {
      const char *b =
          (const char *)o->buf[s] + (side ? SL_DEVICE_GUARD + o->bytes[s] : 0);
      sl_status st = sl_device_copy_from(ctx, g, b, SL_DEVICE_GUARD);
      if (st) return st;
      for (size_t i = 0; i < SL_DEVICE_GUARD; ++i)
        if (g[i] != SL_DEVICE_GUARD_BYTE)
          return sl_ctx_fail(
              ctx, SL_STATUS_INTERNAL,
              "harness check: %s wrote out of bounds of %s: byte %lld %s "
              "its data changed from 0x%02x to 0x%02x",
              variant, info->arg_names[s],
              (long long)(side ? (long long)i
                               : (long long)(SL_DEVICE_GUARD - i)),
              side ? "after" : "before", SL_DEVICE_GUARD_BYTE, g[i]);
    }
  return SL_STATUS_OK;
}

/* Rows of output slot s that the kernel must write (dynamic_scatter leaves
 * the voxel outputs' rows [out_rows, N) alone: sl_harness_op's
 * out_rows_slots). */
static int64_t sl__must_write(const sl_call *dc, int s) {
  const sl_tensor *t = &dc->arg[s];
  int64_t n = sl__numel_of(t);
  const sl_harness_op *h = sl_harness_op_of(dc->op);
  if (h && ((h->out_rows_slots >> s) & 1u) && t->ndim >= 1 && t->shape[0] > 0)
    n = n / t->shape[0] * dc->out_rows;
  return n;
}

static int sl__all_bytes(const unsigned char *p, size_t n, int byte) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != (unsigned char)byte) return 0;
  return 1;
}

/* Runs dc once with the given poison and copies its outputs into `into`
 * (per output slot, host buffers of o->bytes[s]). */
static sl_status sl__run_once(sl_ctx *ctx, const sl_variant *v,
                              const sl_call *host, sl_call *dc,
                              sl__dev_outputs *o, int poison, void *const *into,
                              int *fault) {
  const sl_op_info *info = sl_op_get(host->op);
  sl_status st = sl__outputs_poison(ctx, host, o, poison);
  if (st) return st;
  sl_call run = *dc;
  st = sl_run_variant(ctx, v, &run);
  const char *variant = v->name;
  /* An asynchronous error (an illegal address, a trap) shows at the sync. */
  sl_ctx sync_ctx;
  sl_ctx_init(&sync_ctx);
  sl_status sst = sl_device_sync(&sync_ctx);
  if (sst) {
    sl_ctx_fail(ctx, sst, "harness check: %s failed on the device: %s", variant,
                sl_ctx_message(&sync_ctx));
    *fault = 1;
    return sst;
  }
  sl_ctx gctx;
  sl_ctx_init(&gctx);
  sl_status gst = sl__guards_check(&gctx, host, o, variant);
  if (gst) {
    sl_ctx_fail(ctx, gst, "%s", sl_ctx_message(&gctx));
    *fault = 1; /* a guard overwritten, or the device broken since the run */
    return gst;
  }
  if (st) return st; /* the variant rejected the call */
  dc->p = run.p;
  dc->out_rows = run.out_rows;
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    st = sl_device_copy_from(ctx, into[s], (char *)o->buf[s] + SL_DEVICE_GUARD,
                             o->bytes[s]);
    if (st) return st;
  }
  return SL_STATUS_OK;
}

sl_status sl_device_run_variant(sl_ctx *ctx, const sl_variant *v, sl_call *call,
                                int *fault) {
  *fault = 0;
  const char *variant = v->name;
  const sl_op_info *info = sl_op_get(call->op);
  if (!info)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_OP,
                       "op: expected a code in [0,%d), got %d", SL_OP_COUNT,
                       (int)call->op);
  sl_call dc = *call;
  sl_status st = sl__inputs_to_device(ctx, call, &dc);
  if (st) return st;
  sl__dev_outputs o;
  st = sl__outputs_alloc(ctx, call, &dc, &o);
  if (st) return st;
  void *first[SL_MAX_ARGS] = {0}, *second[SL_MAX_ARGS] = {0};
  for (int s = info->n_in; s < info->n_in + info->n_out && !st; ++s) {
    first[s] = call->arg[s].data;
    second[s] = malloc(o.bytes[s] ? o.bytes[s] : 1);
    if (!second[s])
      st = sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "harness: expected host memory for a second copy of "
                       "%s (%zu bytes), got none",
                       info->arg_names[s], o.bytes[s]);
  }
  if (!st)
    st = sl__run_once(ctx, v, call, &dc, &o, SL_DEVICE_POISON_A, first, fault);
  if (!st) {
    const sl_call after_first = dc;
    st = sl__run_once(ctx, v, call, &dc, &o, SL_DEVICE_POISON_B, second, fault);
    /* Every element the kernel must write: poison in neither run. */
    for (int s = info->n_in; !st && s < info->n_in + info->n_out; ++s) {
      const size_t es = sl_dtype_size(dc.arg[s].dtype);
      const int64_t n = sl__must_write(&after_first, s);
      for (int64_t i = 0; i < n; ++i) {
        const unsigned char *a = (const unsigned char *)first[s] + i * es;
        const unsigned char *b = (const unsigned char *)second[s] + i * es;
        if (!sl__all_bytes(a, es, SL_DEVICE_POISON_A) ||
            !sl__all_bytes(b, es, SL_DEVICE_POISON_B))
          continue;
        char pos[160];
        int64_t idx[SL_MAX_DIMS], r = i;
        const sl_tensor *t = &dc.arg[s];
        for (int d = t->ndim - 1; d >= 0; --d) {
          idx[d] = t->shape[d] ? r % t->shape[d] : 0;
          r = t->shape[d] ? r / t->shape[d] : 0;
        }
        st = sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                         "harness check: %s never wrote %s%s (it still holds "
                         "the poison 0x%02x, then 0x%02x)",
                         variant, info->arg_names[s],
                         sl_shape_str(t->ndim, idx, pos, sizeof pos),
                         SL_DEVICE_POISON_A, SL_DEVICE_POISON_B);
        *fault = 1;
        break;
      }
    }
    if (!st && after_first.out_rows != dc.out_rows)
      st = sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                       "harness check: %s reported %lld rows, then %lld, on "
                       "the same inputs",
                       variant, (long long)after_first.out_rows,
                       (long long)dc.out_rows);
    *fault |= st != SL_STATUS_OK;
    call->p = after_first.p;
    call->out_rows = after_first.out_rows;
  }
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(second[s]);
  sl__outputs_free(&o);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */
/* ------------------------------------------------------------------------ */

/* One timed run: a variant of the core's kind, or LibTorch's CUDA op. */
typedef sl_status (*sl__dev_run_fn)(sl_ctx *ctx, const void *what,
                                    sl_call *run);

static sl_status sl__run_kernel(sl_ctx *ctx, const void *what, sl_call *run) {
  return sl_run_variant(ctx, (const sl_variant *)what, run);
}

static sl_status sl__run_torch(sl_ctx *ctx, const void *what, sl_call *run) {
  (void)what;
  char err[512];
  int rc = slref_run_device(run, err, sizeof err);
  if (rc == SLREF_OK) return SL_STATUS_OK;
  return sl_ctx_fail(ctx,
                     rc == SLREF_REJECTED ? SL_STATUS_INVALID_ARGUMENT
                                          : SL_STATUS_INTERNAL,
                     "torch.cuda: %s", err);
}

/* sl_device_time_variant's loop, for either kind of run. */
static int sl__device_time(sl_ctx *ctx, sl__dev_run_fn fn, const void *what,
                           const sl_call *call, int cold,
                           const sl_timing_opts *o, sl_timing *t) {
  sl_timing_clear(t);
  sl_call dc = *call;
  sl_status st = sl_infer(ctx, &dc);
  if (!st) st = sl__inputs_to_device(ctx, call, &dc);
  sl__dev_outputs outs;
  memset(&outs, 0, sizeof outs);
  if (!st) st = sl__outputs_alloc(ctx, &dc, &dc, &outs);
  void *flush = NULL;
  size_t flush_bytes = 0;
  if (!st && cold) {
    char name[256];
    st = sl_device_describe(ctx, name, sizeof name, &flush_bytes);
    flush_bytes = 2 * (flush_bytes ? flush_bytes : ((size_t)64 << 20));
    if (!st) st = sl_device_alloc(ctx, flush_bytes, &flush);
  }
  sl_device_timer *timer = NULL;
  if (!st) st = sl_device_timer_create(ctx, &timer);
  const int max_reps =
      o->max_reps < SL_TIMING_MAX_SAMPLES ? o->max_reps : SL_TIMING_MAX_SAMPLES;
  /* Warm-up: module load, the memory pool's first allocations. Two runs,
   * or one when it alone took longer than the whole budget (a lock variant
   * at full contention can take seconds a call). */
  double start = sl_now();
  for (int k = 0; !st && (k < 1 || (k < 2 && sl_now() - start < o->budget_s) ||
                          sl_now() - start < o->warmup_s);
       ++k) {
    sl_call run = dc;
    st = fn(ctx, what, &run);
    if (!st) st = sl_device_sync(ctx);
  }
  double spent = 0;
  while (!st && t->reps < max_reps) {
    if (flush) st = sl_device_memset(ctx, flush, t->reps & 0xff, flush_bytes);
    sl_call run = dc;
    double sec = 0;
    if (!st) st = sl_device_timer_start(ctx, timer);
    if (!st) st = fn(ctx, what, &run);
    if (!st) st = sl_device_timer_stop(ctx, timer, &sec);
    if (st) break;
    t->samples[t->reps++] = sec;
    spent += sec;
    if (t->reps < o->min_reps) continue;
    if (spent >= o->budget_s) break;
    if (t->reps % 4 == 0) {
      double q1, med, q3;
      sl_quartiles(t->samples, t->reps, &q1, &med, &q3);
      if (med > 0 && (q3 - q1) / med < o->target_rel) break;
    }
  }
  if (!st && t->reps > 0) {
    double q1, q3;
    sl_quartiles(t->samples, t->reps, &q1, &t->median_s, &q3);
    t->iqr_s = q3 - q1;
    t->min_s = t->samples[0];
    for (int i = 1; i < t->reps; ++i)
      if (t->samples[i] < t->min_s) t->min_s = t->samples[i];
  }
  sl_device_timer_destroy(timer);
  sl_device_free(flush);
  sl__outputs_free(&outs);
  return st ? -1 : 0;
}

int sl_device_time_variant(sl_ctx *ctx, const sl_variant *v,
                           const sl_call *call, int cold,
                           const sl_timing_opts *o, sl_timing *t) {
  return sl__device_time(ctx, sl__run_kernel, v, call, cold, o, t);
}

int sl_device_time_torch(sl_ctx *ctx, const sl_call *call, int cold,
                         const sl_timing_opts *o, sl_timing *t) {
  return sl__device_time(ctx, sl__run_torch, NULL, call, cold, o, t);
}

/* ------------------------------------------------------------------------ */
/* Timing in turns (ab)                                                      */
/* ------------------------------------------------------------------------ */
struct sl_device_turns {
  sl_call dc; /* the case on the device: cached inputs, outputs below */
  sl__dev_outputs outs;
  sl_device_timer *timer;
};

int sl_device_turns_open(sl_ctx *ctx, const sl_call *call,
                         sl_device_turns **out) {
  *out = NULL;
  sl_device_turns *t = calloc(1, sizeof *t);
  if (!t) {
    sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                "device turns: expected %zu bytes of host memory, got none",
                sizeof *t);
    return -1;
  }
  t->dc = *call;
  sl_status st = sl_infer(ctx, &t->dc);
  if (!st) st = sl__inputs_to_device(ctx, call, &t->dc);
  if (!st) st = sl__outputs_alloc(ctx, &t->dc, &t->dc, &t->outs);
  if (!st) st = sl_device_timer_create(ctx, &t->timer);
  if (st) {
    sl_device_turns_close(t);
    return -1;
  }
  *out = t;
  return 0;
}

int sl_device_turn(sl_ctx *ctx, sl_device_turns *t, const sl_variant *v, int k,
                   double *samples) {
  for (int i = 0; i < k; ++i) {
    sl_call run = t->dc;
    sl_status st = sl_device_timer_start(ctx, t->timer);
    if (!st)
      st = v ? sl__run_kernel(ctx, v, &run) : sl__run_torch(ctx, NULL, &run);
    if (!st) st = sl_device_timer_stop(ctx, t->timer, &samples[i]);
    if (st) return -1;
  }
  return 0;
}

int sl_device_turns_inputs_intact(sl_ctx *ctx, const sl_device_turns *t) {
  const sl_op_info *info = sl_op_get(t->dc.op);
  for (int s = 0; s < info->n_in; ++s) {
    const sl__dev_input *in = &sl__cache.in[s];
    if (!in->bytes) continue;
    void *back = malloc(in->bytes);
    if (!back) {
      sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                  "device turns: expected %zu bytes of host memory to read "
                  "%s back, got none",
                  in->bytes, info->arg_names[s]);
      return -1;
    }
    sl_status st = sl_device_copy_from(ctx, back, in->dev, in->bytes);
    const int same = !st && sl_hash64(back, in->bytes) == in->hash;
    free(back);
    if (st) return -1;
    if (!same) {
      sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                  "harness check: the device copy of %s changed during the "
                  "turns: an arm wrote its input",
                  info->arg_names[s]);
      return 1;
    }
  }
  return 0;
}

void sl_device_turns_close(sl_device_turns *t) {
  if (!t) return;
  sl_device_timer_destroy(t->timer);
  sl__outputs_free(&t->outs);
  free(t);
}

double sl_device_copy_bandwidth_gbs(size_t bytes) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  void *a = NULL, *b = NULL;
  sl_device_timer *timer = NULL;
  double gbs = -1;
  sl_status st = sl_device_alloc(&ctx, bytes, &a);
  if (!st) st = sl_device_alloc(&ctx, bytes, &b);
  if (!st) st = sl_device_memset(&ctx, a, 1, bytes);
  if (!st) st = sl_device_memset(&ctx, b, 2, bytes);
  if (!st) st = sl_device_timer_create(&ctx, &timer);
  enum { REPS = 25 };
  double samples[REPS];
  for (int k = -3; !st && k < REPS; ++k) {
    double sec = 0;
    st = sl_device_timer_start(&ctx, timer);
    if (!st) st = sl_device_copy(&ctx, b, a, bytes);
    if (!st) st = sl_device_timer_stop(&ctx, timer, &sec);
    if (!st && k >= 0) samples[k] = sec;
  }
  if (!st) {
    double q1, med, q3;
    sl_quartiles(samples, REPS, &q1, &med, &q3);
    if (med > 0) gbs = 2.0 * (double)bytes / med / 1e9;
  }
  sl_device_timer_destroy(timer);
  sl_device_free(a);
  sl_device_free(b);
  return gbs;
}
