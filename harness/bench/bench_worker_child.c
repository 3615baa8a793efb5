/* The timing worker's side (bench_worker.h): the probes, the case's
 * inputs, the timing loops of bench and ab, answered on the shared page.
 * Every call stamps the page: which contender runs, since when. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "bench_case.h"
#include "bench_worker_page.h"
#include "child_exit.h"
#include "cpu_round_trip.h"
#include "datagen.h"
#include "device.h"
#include "fd_hygiene.h"
#include "interrupt.h"
#include "run_counters.h"
#include "run_lock.h"
#include "slref.h"
#include "variant_call.h"

static sl_bw_page *sl__pg;

void sl_bw_stamp(int who, int span) {
  sl__pg->current = who;
  sl__pg->span = span;
  sl__pg->started = sl_now();
}

void sl_bw_stamp_call(double t0) { sl__pg->started = t0; }

/* The case the timings run on (SL_BW_OPEN). */
static struct {
  int open;
  sl_case c0, c; /* as the line says it, and as built */
  uint64_t max_case_bytes;
  sl_bundle in;
} sl__case;

/* The guard of the open case's inputs, with copies (--cold) or none. */
static sl_bw_inputs sl__inputs_of(void *const *copies, int ncopies) {
  return (sl_bw_inputs){.in = &sl__case.in,
                        .copies = copies,
                        .ncopies = ncopies,
                        .c0 = &sl__case.c0,
                        .max_case_bytes = sl__case.max_case_bytes};
}

static void sl__open(const sl_bw_request *q) {
  sl_bw_page *pg = sl__pg;
  memset(&pg->bcase, 0, sizeof pg->bcase);
  if (sl__case.open) sl_bundle_free(&sl__case.in);
  sl__case.open = 0;
  malloc_trim(0); /* the last case's inputs back to the system */
  sl_case *c0 = &sl__case.c0;
  sl__case.max_case_bytes = q->max_case_bytes;
  if (sl_case_parse(q->line, c0, pg->err, sizeof pg->err) ||
      sl_prepare_case(c0, NULL, q->max_case_bytes, &sl__case.c, &sl__case.in,
                      pg->err, sizeof pg->err)) {
    pg->rc = -1;
    return;
  }
  sl__case.open = 1;
  sl_tensor ref[SL_MAX_ARGS];
  memset(ref, 0, sizeof ref);
  const sl_call *call = &sl__case.in.call;
  pg->bcase.ref_rc =
      slref_run(call, ref, pg->bcase.ref_msg, sizeof pg->bcase.ref_msg);
  if (pg->bcase.ref_rc == 0) pg->bcase.bytes = sl_useful_bytes(call, ref);
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(ref[s].data);
  const sl_op_info *info = sl_op_get(call->op);
  for (int s = 0; s < info->n_in; ++s)
    pg->bcase.layouts |= sl_input_layout(&call->arg[s]);
}

/* One timed contender: a variant, or LibTorch (row NULL). */
typedef struct sl__timed {
  sl_ctx ctx;
  int who;               /* its index in the request: the stamp */
  const sl_variant *row; /* NULL: LibTorch */
  const sl_call *calls;  /* ncalls copies (--cold), rotated through */
  int ncalls, threads;
  char msg[512]; /* why LibTorch failed */
} sl__timed;

/* The contenders of the TIME request in hand. */
static sl__timed sl__tm[SL_BW_MAX];

/* k runs of contender t from repetition rep on (sl_timed_fn). LibTorch's
 * run back to back inside the shim, which times them, as a kernel in a
 * loop would; with --cold, one at a time, each on its own copy. */
static int sl__run_timed(void *user, int rep, int k, double *samples) {
  sl__timed *t = user;
  const int at = rep < 0 ? 0 : rep;
  if (!t->row && t->ncalls == 1) {
    sl_bw_stamp(t->who, k);
    return slref_time(&t->calls[0], t->threads, k, samples, t->msg,
                      sizeof t->msg);
  }
  sl_bw_stamp(t->who, 1);
  for (int i = 0; i < k; ++i) {
    sl_call c = t->calls[(at + i) % t->ncalls];
    const double t0 = sl_now();
    sl_bw_stamp_call(t0);
    if (!t->row) {
      if (slref_time(&c, t->threads, 1, samples + i, t->msg, sizeof t->msg))
        return 1;
      continue;
    }
    if (sl_run_variant(&t->ctx, t->row, &c) != SL_STATUS_OK) return 1;
    samples[i] = sl_now() - t0;
  }
  return 0;
}

/* One set of outputs shared by the n copies of a call: with --cold only the
 * inputs rotate. LibTorch's allocator hands back the block it freed on the
 * previous call, so its outputs stay in cache; a variant writing to n cold
 * output copies would pay DRAM write-allocates LibTorch does not (it ran
 * select_scatter at half LibTorch's speed that way). */
static int sl__alloc_call_outputs(sl_call *calls, int n, const sl_hvariant *hv,
                                  void **mem) {
  if (sl_bench_alloc_outputs(&calls[0], sl_hvariant_lays_out_like_reference(hv),
                             mem))
    return -1;
  const sl_op_info *info = sl_op_get(calls[0].op);
  for (int k = 1; k < n; ++k) /* the copies differ in input addresses only */
    for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
      calls[k].arg[s] = calls[0].arg[s];
  return 0;
}

/* Copies of the open case's inputs (--cold: enough to exceed any cache;
 * same values, other addresses), shared by every contender, which only
 * reads them; their buffers in mem[k * SL_MAX_ARGS + s]. */
static int sl__input_copies(sl_call *inputs, int copies, void **mem) {
  const sl_bundle *in = &sl__case.in;
  const sl_op_info *info = sl_op_get(in->call.op);
  for (int k = 0; k < copies; ++k) {
    inputs[k] = in->call;
    for (int s = 0; k > 0 && s < info->n_in; ++s) {
      if (!in->call.arg[s].data || !in->bytes[s]) continue;
      void **m = &mem[k * SL_MAX_ARGS + s];
      if (!(*m = malloc(in->bytes[s]))) return -1;
      memcpy(*m, in->mem[s], in->bytes[s]);
      inputs[k].arg[s].data = *m;
    }
  }
  return 0;
}

/* After the rounds of contenders `left` (out[i] 0): their timings and
 * messages on the page. */
static void sl__rounds_answer(int n, const int *out, const sl_timing *t,
                              const int *rc) {
  sl_bw_page *pg = sl__pg;
  for (int i = 0, k = 0; i < n; ++i) {
    if (out[i]) continue;
    pg->t[i] = t[k], pg->trc[i] = rc[k++];
    snprintf(pg->tmsg[i], sizeof pg->tmsg[i], "%s",
             sl__tm[i].row ? sl_ctx_message(&sl__tm[i].ctx) : sl__tm[i].msg);
  }
}

/* The contenders' interleaved rounds, the inputs guarded
 * (bench_worker_inputs.c): one that wrote them is not timed
 * (SL_BW_WROTE_INPUTS, and where), and the others are timed again on the
 * inputs restored. LibTorch (row NULL) is not suspected. */
static void sl__rounds_guarded(int n, const sl_timed_fn *fns,
                               void *const *users, const sl_timing_opts *o,
                               sl_bw_inputs *x) {
  sl_bw_page *pg = sl__pg;
  static sl_timing t[SL_BW_MAX];
  static char why[SL_BW_MAX][512];
  int out[SL_BW_MAX] = {0}, skip[SL_BW_MAX], wrote[SL_BW_MAX];
  sl_bw_inputs_mark(x);
  for (;;) {
    sl_timed_fn f[SL_BW_MAX];
    void *u[SL_BW_MAX];
    int rc[SL_BW_MAX], m = 0;
    for (int i = 0; i < n; ++i)
      if (!out[i]) f[m] = fns[i], u[m++] = users[i];
    if (m == 0) return;
    sl_time_rounds(m, f, u, o, t, rc);
    sl__rounds_answer(n, out, t, rc);
    if (sl_interrupted() || !sl_bw_inputs_changed(x)) return;
    for (int i = 0; i < n; ++i) skip[i] = out[i] || !sl__tm[i].row;
    const int found = sl_bw_inputs_blame(x, n, fns, users, skip, wrote, why);
    for (int i = 0; i < n; ++i) {
      if (found > 0 && !wrote[i]) continue;
      if (out[i]) continue;
      out[i] = found > 0; /* a writer; with none found, every one */
      pg->trc[i] = found > 0 ? SL_BW_WROTE_INPUTS : 1;
      snprintf(pg->tmsg[i], sizeof pg->tmsg[i], "%s%.400s",
               found > 0   ? ""
               : found < 0 ? "the inputs changed during the "
                             "timing and could not be built "
                             "again: "
                           : "the inputs changed during the "
                             "timing, and no variant wrote them "
                             "when called once more alone",
               found > 0   ? why[i]
               : found < 0 ? why[0]
                           : "");
    }
    if (found <= 0) return;
  }
}

/* The CPU contenders of a TIME request, in interleaved rounds. */
static void sl__time_cpu(const sl_bw_request *q, const sl_run_counters *ctr) {
  sl_bw_page *pg = sl__pg;
  const int n = q->n;
  int copies = 1;
  if (q->timing.cold && pg->bcase.bytes > 0) {
    copies = (int)(((int64_t)512 << 20) / pg->bcase.bytes) + 1;
    if (copies > 64) copies = 64;
  }
  sl__timed *tm = sl__tm;
  sl_timed_fn fns[SL_BW_MAX];
  void *users[SL_BW_MAX];
  const size_t slots = ((size_t)n + (size_t)copies) * SL_MAX_ARGS;
  void **mem = calloc(slots, sizeof *mem);
  sl_call *inputs = calloc((size_t)copies, sizeof *inputs);
  sl_call *calls = calloc((size_t)copies * (size_t)n, sizeof *calls);
  int ok = mem && inputs && calls &&
           sl__input_copies(inputs, copies, mem + (size_t)n * SL_MAX_ARGS) == 0;
  for (int i = 0; ok && i < n; ++i) {
    memset(&tm[i], 0, sizeof tm[i]);
    sl_ctx_init(&tm[i].ctx);
    tm[i].ctx.threads = tm[i].threads = q->timing.threads;
    tm[i].who = i;
    tm[i].ncalls = copies;
    tm[i].calls = inputs;
    fns[i] = sl__run_timed, users[i] = &tm[i];
    if (!q->names[i][0]) continue; /* LibTorch: its own outputs */
    const sl_hvariant *hv = sl_hvariant_find(sl__case.c.op, q->names[i]);
    sl_call *mine = calls + (size_t)i * copies;
    memcpy(mine, inputs, sizeof *mine * (size_t)copies);
    if (!hv ||
        sl__alloc_call_outputs(mine, copies, hv, mem + i * SL_MAX_ARGS)) {
      ok = 0;
      break;
    }
    tm[i].row = &hv->v;
    tm[i].calls = mine;
  }
  if (!ok) {
    pg->rc = -1;
    snprintf(pg->err, sizeof pg->err, "out of memory for the inputs");
  } else {
    sl_timing_opts o;
    sl_timing_opts_init(&o);
    o.budget_s = q->timing.budget_s;
    o.min_reps = q->timing.min_reps;
    o.outpaced = q->timing.outpaced;
    o.counter = sl_run_counters_turn(ctr);
    sl_bw_inputs x = sl__inputs_of(mem + (size_t)n * SL_MAX_ARGS, copies);
    sl__rounds_guarded(n, fns, users, &o, &x);
  }
  for (size_t k = 0; mem && k < slots; ++k) free(mem[k]);
  free(mem);
  free(inputs);
  free(calls);
}

/* The device contenders of a TIME request, one after the other with CUDA
 * events ("" is LibTorch's CUDA op). */
static void sl__time_device(const sl_bw_request *q) {
  sl_bw_page *pg = sl__pg;
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.budget_s = q->timing.budget_s;
  o.min_reps = q->timing.min_reps;
  for (int i = 0; i < q->n && !sl_interrupted(); ++i) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_bw_stamp(i, o.max_reps + 8); /* the device times a whole series */
    const sl_hvariant *hv = sl_hvariant_find(sl__case.c.op, q->names[i]);
    pg->trc[i] = !q->names[i][0]
                     ? sl_device_time_torch(&ctx, &sl__case.in.call,
                                            q->timing.cold, &o, &pg->t[i])
                 : hv ? sl_device_time_variant(&ctx, &hv->v, &sl__case.in.call,
                                               q->timing.cold, &o, &pg->t[i])
                      : -1;
    snprintf(pg->tmsg[i], sizeof pg->tmsg[i], "%s",
             hv || !q->names[i][0] ? sl_ctx_message(&ctx) : "no such variant");
  }
  sl_device_release();
}

static void sl__time(const sl_bw_request *q, const sl_run_counters *ctr) {
  for (int i = 0; i < q->n; ++i) {
    sl__pg->trc[i] = 1;
    sl__pg->tmsg[i][0] = '\0';
    sl_timing_clear(&sl__pg->t[i]);
  }
  if (!sl__case.open) {
    sl__pg->rc = -1;
    snprintf(sl__pg->err, sizeof sl__pg->err, "no case open");
  } else if (q->device) {
    sl__time_device(q);
  } else {
    sl__time_cpu(q, ctr);
  }
}

/* The probes (bench_run.h). */
static void sl__probe(const sl_bw_request *q) {
  sl__pg->gbs = sl_copy_bandwidth_gbs((size_t)256 << 20, q->threads);
  sl__pg->rtt_ns = sl_cpu_round_trip_ns(q->threads);
}

static void sl__device(void) {
  sl_bw_page *pg = sl__pg;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  size_t l2 = 0;
  if (sl_cuda_device_count() <= 0) {
    pg->rc = -1;
    snprintf(pg->err, sizeof pg->err, "%s",
             !sl_cuda_built() ? "built without CUDA"
                              : "built with CUDA, none visible");
  } else if (sl_device_describe(&ctx, pg->device, sizeof pg->device, &l2)) {
    pg->rc = -1;
    snprintf(pg->err, sizeof pg->err, "the device cannot be described: %s",
             sl_ctx_message(&ctx));
  } else {
    pg->dev_gbs = sl_device_copy_bandwidth_gbs((size_t)256 << 20);
  }
}

static void sl__answer(const sl_bw_request *q, const sl_run_counters *ctr) {
  sl__pg->rc = 0;
  sl__pg->err[0] = '\0';
  switch (q->kind) {
  case SL_BW_HELLO:
    break;
  case SL_BW_PROBE:
    sl__probe(q);
    break;
  case SL_BW_DEVICE:
    sl__device();
    break;
  case SL_BW_OPEN:
    sl__open(q);
    break;
  case SL_BW_TIME:
    sl__time(q, ctr);
    break;
  case SL_BW_AB:
    if (!sl__case.open) {
      sl__pg->rc = -1;
      snprintf(sl__pg->err, sizeof sl__pg->err, "no case open");
    } else {
      sl_bw_inputs x = sl__inputs_of(NULL, 1);
      sl_bw_child_ab(sl__pg, q, &x, sl_run_counters_turn(ctr));
    }
    break;
  }
  sl__pg->current = -1;
}

_Noreturn void sl_bw_child_main(sl_bw_page *pg, const sl_bw_setup *s,
                                int parent, int in, int out) {
  sl_die_with_parent(parent);
  sl_child_exit_on_exit();
  /* Nothing of the command's: not the store, its -wal and -shm, nor the
   * engine worker's pipes (fork without exec keeps them all). */
  const int keep[2] = {in, out};
  sl_close_fds_except(keep, 2);
  /* SIGINT / SIGTERM end the timing at the next call, as they did in the
   * command's process (the command drops what was cut short). */
  sl_interrupt_install();
  sl__pg = pg;
  if (s->threads > 0) slref_set_threads(s->threads);
  /* Before any thread pool starts: threads that exist when the counters
   * open are not counted (perf_counters.h). */
  static sl_run_counters ctr;
  sl_run_counters_open(&ctr, !s->counters);
  pg->info.counted = sl_run_counters_turn(&ctr) != NULL;
  pg->info.instructions = ctr.instructions;
  snprintf(pg->info.counters, sizeof pg->info.counters, "%s", ctr.line);
  static sl_bw_request q;
  for (;;) {
    q = pg->req; /* the worker's own copy: a kernel may write the page */
    sl__answer(&q, &ctr);
    pg->answered = q.seq;
    const char done = 'A';
    char wake;
    if (write(out, &done, 1) != 1) break;
    ssize_t k;
    while ((k = read(in, &wake, 1)) < 0 && errno == EINTR) {
    }
    if (k != 1) break;
  }
  sl_run_counters_close(&ctr);
  sl_child_exit(0);
}
