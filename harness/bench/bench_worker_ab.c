/* The timing worker's side of `ab` (bench_worker.h): one pair, base and
 * candidate, and LibTorch as a third arm when asked, in paired rounds
 * (ab.h) on the open case's inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "bench_case.h"
#include "bench_worker_page.h"
#include "datagen.h"
#include "device.h"
#include "interrupt.h"
#include "providers.h"
#include "slref.h"

/* One arm: a variant row and its call, with outputs of its own. */
typedef struct sl__arm {
  sl_ctx ctx;
  const sl_hvariant *v;
  int who; /* 0 base, 1 cand: the stamp */
  sl_call call;
  void *mem[SL_MAX_ARGS];
  double plant; /* --plant-slowdown: extra busy time, a share of the call's */
} sl__arm;

/* The pair in hand. */
static sl__arm arms[2];

static int sl__arm_run(void *user, int rep, int k, double *samples) {
  (void)rep;
  sl__arm *a = user;
  sl_bw_stamp(a->who, 1);
  for (int i = 0; i < k; ++i) {
    sl_call c = a->call;
    const double t0 = sl_now();
    sl_bw_stamp_call(t0);
    if (sl_run_variant(&a->ctx, &a->v->v, &c) != SL_STATUS_OK) return 1;
    if (a->plant > 0) { /* busy, as slower code keeps its core */
      const double until = sl_now() + (sl_now() - t0) * a->plant;
      while (sl_now() < until) {
      }
    }
    samples[i] = sl_now() - t0;
  }
  return 0;
}

/* --torch: LibTorch on the same inputs, as bench times it (the shim times
 * its k calls back to back). */
typedef struct sl__torch_arm {
  const sl_call *call;
  int threads;
  char msg[512];
} sl__torch_arm;

static int sl__torch_run(void *user, int rep, int k, double *samples) {
  (void)rep;
  sl__torch_arm *t = user;
  sl_bw_stamp(2, k);
  return slref_time(t->call, t->threads, k, samples, t->msg, sizeof t->msg) ? 1
                                                                            : 0;
}

/* After the rounds: when the inputs changed, the arm that wrote them
 * (bench_worker_inputs.c) fails the pair by name (pg->ab_wrote), restored
 * for the pairs after it. */
static void sl__ab_guard(sl_bw_page *pg, sl_bw_inputs *x) {
  if (!sl_bw_inputs_changed(x)) return;
  static char why[2][512];
  const sl_timed_fn fns[2] = {sl__arm_run, sl__arm_run};
  void *const users[2] = {&arms[0], &arms[1]};
  const int skip[2] = {0, 0};
  int wrote[2];
  const int found = sl_bw_inputs_blame(x, 2, fns, users, skip, wrote, why);
  pg->rc = 1;
  pg->ab_wrote = found > 0 ? (wrote[0] ? 0 : 1) : -1;
  snprintf(pg->err, sizeof pg->err, "%s%.400s",
           found > 0   ? ""
           : found < 0 ? "the inputs changed during the timing and could not "
                         "be built again: "
                       : "the inputs changed during the timing, and neither "
                         "arm wrote them when called once more alone",
           found > 0   ? why[pg->ab_wrote]
           : found < 0 ? why[0]
                       : "");
}

/* The arms of a pair of cuda.* variants, and LibTorch's CUDA op as the
 * third: turns on the device copies of the inputs (device.h). */
typedef struct sl__dev_arm {
  sl_ctx ctx;
  const sl_hvariant *v; /* NULL: torch.cuda */
  int who;
  sl_device_turns *turns;
} sl__dev_arm;

static int sl__dev_arm_run(void *user, int rep, int k, double *samples) {
  (void)rep;
  sl__dev_arm *a = user;
  sl_bw_stamp(a->who, k);
  return sl_device_turn(&a->ctx, a->turns, a->v ? &a->v->v : NULL, k, samples)
             ? 1
             : 0;
}

/* sl_bw_child_ab for device arms. The CPU's input guard becomes a check of
 * the inputs' device copies after the rounds (a run that wrote one changed
 * what every later turn read). No copy probe (probe_gbs 0): the CPU's says
 * nothing of the device, and the device's beside CPU rows would be the
 * run's best by far, every CPU row "disturbed" under it. */
static void sl__child_ab_device(sl_bw_page *pg, const sl_bw_request *q,
                                const sl_bundle *in,
                                const sl_hvariant *const v[2]) {
  static sl__dev_arm arm[3];
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_device_turns *turns = NULL;
  pg->ab_wrote = -1;
  if (sl_device_turns_open(&ctx, &in->call, &turns)) {
    pg->rc = 1;
    snprintf(pg->err, sizeof pg->err, "%s", sl_ctx_message(&ctx));
    sl_device_release();
    return;
  }
  for (int k = 0; k < 3; ++k) {
    sl_ctx_init(&arm[k].ctx);
    arm[k].v = k < 2 ? v[k] : NULL;
    arm[k].who = k;
    arm[k].turns = turns;
  }
  sl_ab_opts o = q->pair.o;
  o.counter = NULL; /* the CPU's counters say nothing of the device */
  int rc = sl_ab_time_ref(sl__dev_arm_run, &arm[0], sl__dev_arm_run, &arm[1],
                          q->pair.torch ? sl__dev_arm_run : NULL, &arm[2], &o,
                          &pg->ab);
  if (!rc && sl_device_turns_inputs_intact(&ctx, turns)) rc = 1;
  pg->rc = rc;
  const char *m = ctx.msg[0]          ? ctx.msg
                  : arm[0].ctx.msg[0] ? arm[0].ctx.msg
                  : arm[1].ctx.msg[0] ? arm[1].ctx.msg
                  : arm[2].ctx.msg[0] ? arm[2].ctx.msg
                                      : "a call failed";
  if (rc) snprintf(pg->err, sizeof pg->err, "%s", m);
  sl_device_turns_close(turns);
  sl_device_release();
}

void sl_bw_child_ab(sl_bw_page *pg, const sl_bw_request *q, sl_bw_inputs *x,
                    const sl_turn_counter *counter) {
  const sl_bundle *in = x->in;
  const sl_bw_pair *p = &q->pair;
  const sl_hvariant *v[2] = {sl_hvariant_find(in->call.op, q->names[0]),
                             sl_hvariant_find(in->call.op, q->names[1])};
  if (v[0] && v[1] && sl_variant_device(&v[0]->v) == SL_DEVICE_CUDA) {
    sl__child_ab_device(pg, q, in, v);
    return;
  }
  for (int k = 0; k < 2; ++k) {
    memset(&arms[k], 0, sizeof arms[k]);
    sl_ctx_init(&arms[k].ctx);
    arms[k].ctx.threads = p->threads;
    arms[k].v = v[k];
    arms[k].who = k;
    arms[k].plant = k == 1 ? p->plant : 0;
  }
  /* One set of outputs for both arms (owned by arm 0): the arms run one
   * after the other, never at once, and every call writes its outputs
   * whole. With outputs of its own each arm stored to other pages, placed
   * otherwise (huge pages or not, cache sets), and an A/A run of one
   * library against its copy read select_scatter 1.53x slower on a quiet
   * machine (7 of 58 benchmarks slower, 2 faster). */
  arms[0].call = in->call;
  const int ok = v[0] && v[1] &&
                 sl_bench_alloc_outputs(&arms[0].call, 0, arms[0].mem) == 0;
  arms[1].call = arms[0].call;
  static sl__torch_arm t;
  t = (sl__torch_arm){&in->call, p->threads, ""};
  sl_ab_opts o = p->o;
  o.counter = counter;
  pg->ab_wrote = -1;
  sl_bw_inputs_mark(x);
  const int rc =
      ok ? sl_ab_time_ref(sl__arm_run, &arms[0], sl__arm_run, &arms[1],
                          p->torch ? sl__torch_run : NULL, &t, &o, &pg->ab)
         : -1;
  pg->rc = rc;
  if (ok && !rc) pg->ab.probe_gbs = sl_copy_probe_gbs(p->threads);
  if (ok && !sl_interrupted()) sl__ab_guard(pg, x);
  if (rc && pg->ab_wrote < 0) {
    const char *m0 = sl_ctx_message(&arms[0].ctx);
    const char *m1 = sl_ctx_message(&arms[1].ctx);
    snprintf(pg->err, sizeof pg->err, "%s",
             !ok        ? "out of memory"
             : rc <= 0  ? "bad options or out of memory"
             : m0[0]    ? m0
             : m1[0]    ? m1
             : t.msg[0] ? t.msg
                        : "a call failed");
  }
  for (int k = 0; k < 2; ++k)
    for (int s = 0; s < SL_MAX_ARGS; ++s) free(arms[k].mem[s]);
}
