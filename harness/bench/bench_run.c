/* The timing side of `scatterlab bench` (bench_run.h): probes, each case's
 * correctness check and timings, CPU in rounds and CUDA with events, and the
 * rows printed and stored. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bandwidth.h"
#include "bench_case.h"
#include "bench_store.h"
#include "bench_table.h"
#include "case.h"
#include "clean_text.h"
#include "cli.h"
#include "cpu_round_trip.h"
#include "datagen.h"
#include "device.h"
#include "interrupt.h"
#include "json_out.h"
#include "providers.h"
#include "run_counters.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_report.h"
#include "sl_store.h"
#include "slref.h"
#include "timing.h"
#include "tolerance.h"
#include "variant_call.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif
#include "bench_run.h"

sl__probes sl__probe(sl_bench_worker *w, int threads) {
  sl__probes p;
  sl_bw_probe(w, threads, &p.gbs, &p.rtt_ns);
  return p;
}

/* The probes again after the suite. On a shared machine both move (the
 * 2-core development VM: copy 41-45 or 74-80 GB/s, round trip 85-140 or
 * 360 ns, from run to run and within one): a run that saw them move says
 * so, since its % of peak uses the first probe and its multi-threaded
 * timings follow the threads' placement, while the ratios between
 * contenders, timed in turns, still compare like with like. Returns the end
 * probes, which the run stores (runs.copy_gbs_end, core_rtt_ns_end). */
sl__probes sl__probe_again(sl_bench_worker *w, const sl__probes *start,
                           int threads) {
  const sl__probes end = sl__probe(w, threads);
  if (end.gbs > 0)
    printf("\ncopy bandwidth at the end: %.2f GB/s (%.2f at the start)\n",
           end.gbs, start->gbs);
  if (sl_copy_probes_apart(start->gbs, end.gbs))
    printf("the machine's copy bandwidth moved by more than 20%% during the "
           "run: %% of peak is against the start's probe; compare variants and "
           "torch.cpu by their ratios, which were timed in turns\n");
  if (end.rtt_ns > 0 && start->rtt_ns > 0)
    printf("core-to-core round trip at the end: %.0f ns (%.0f at the start)\n",
           end.rtt_ns, start->rtt_ns);
  if (sl_core_rtts_apart(start->rtt_ns, end.rtt_ns))
    printf("the threads' cores moved during the run (round trip more than 2x "
           "apart): multi-threaded timings, torch.cpu's too, moved with them; "
           "compare variants and torch.cpu by their ratios, which were timed "
           "in turns\n");
  return end;
}

/* One row of a case's table, CPU or CUDA: torch_median > 0 adds the
 * speed-up over that LibTorch row (torch.cpu's median for CPU rows,
 * torch.cuda's for cuda rows), peak > 0 the % of that copy bandwidth. */
static void sl__print_row(const char *variant, const sl_timing *t,
                          int64_t bytes, double peak, double torch_median) {
  const double med = t->median_s;
  double gbs = med > 0 ? (double)bytes / med / 1e9 : 0;
  char vs[32] = "-", reps[16];
  if (torch_median > 0 && med > 0)
    snprintf(vs, sizeof vs, "%.2fx", torch_median / med);
  snprintf(reps, sizeof reps, "%d%s", t->reps, t->outpaced ? "*" : "");
  printf("  %-12s %11.4f ms %6.1f%% %9.2f %7.1f%% %9s %5s", variant, med * 1e3,
         med > 0 ? 100.0 * t->iqr_s / med : 0.0, gbs,
         peak > 0 ? 100.0 * gbs / peak : 0.0, vs, reps);
  if (t->counts.instructions >= 0)
    printf(" %12.4g %6.2f", t->counts.instructions,
           t->counts.cycles > 0 ? t->counts.instructions / t->counts.cycles
                                : NAN);
  putchar('\n');
}

/* counted: the CPU rows carry counts (instructions per call and per
 * cycle). */
static void sl__print_header(int counted) {
  printf("  %-12s %14s %7s %9s %8s %9s %5s", "variant", "median", "IQR", "GB/s",
         "%peak", "vs torch", "reps");
  if (counted) printf(" %12s %6s", "instr/call", "IPC");
  putchar('\n');
}

/* The timings of the case in hand, stored after its verdicts
 * (bench_store.h). */
static sl_kept_timings sl__kept;

/* Stores one timing (its JSON now, its row with the case's verdicts:
 * sl__store_kept): threads 0 (NULL) for a device row, % of peak against
 * `peak` (the CPU's or the device's copy bandwidth). */
static void sl__store_timing(sl__bench_ctx *b, const char *variant,
                             const sl_timing *t, int64_t bytes, int threads,
                             double peak) {
  double gbs = t->median_s > 0 ? (double)bytes / t->median_s / 1e9 : 0;
  if (b->jtimings) { /* every row timed is stored: the document says so too */
    fputs(b->jtn++ ? ", {\"variant\": " : "{\"variant\": ", b->jtimings);
    sl_json_str(b->jtimings, variant);
    fprintf(b->jtimings,
            ", \"threads\": %d, \"reps\": %d, \"outpaced\": %s, "
            "\"median_s\": ",
            threads, t->reps, t->outpaced ? "true" : "false");
    sl_json_num(b->jtimings, t->median_s);
    fputs(", \"iqr_s\": ", b->jtimings);
    sl_json_num(b->jtimings, t->iqr_s);
    fputs(", \"min_s\": ", b->jtimings);
    sl_json_num(b->jtimings, t->min_s);
    fputs(", \"gbs\": ", b->jtimings);
    sl_json_num(b->jtimings, gbs);
    fputs(", \"pct_peak\": ", b->jtimings);
    sl_json_num(b->jtimings, peak > 0 ? 100.0 * gbs / peak : NAN);
    const double c[3] = {t->counts.instructions, t->counts.cycles,
                         t->counts.cache_misses};
    static const char *const names[3] = {"instructions", "cycles",
                                         "cache_misses"};
    for (int k = 0; k < 3; ++k) {
      fprintf(b->jtimings, ", \"%s\": ", names[k]);
      sl_json_num(b->jtimings, c[k] >= 0 ? c[k] : NAN);
    }
    fputc('}', b->jtimings);
  }
  if (!b->st) return;
  sl_kept_timing k = {.t = *t,
                      .bytes = bytes,
                      .threads = threads,
                      .cold = b->cold,
                      .peak = peak};
  snprintf(k.variant, sizeof k.variant, "%s", variant);
  if (sl_kept_timings_add(&sl__kept, &k))
    fprintf(stderr,
            "scatterlab bench: out of memory: the timing of %s is "
            "not stored\n",
            variant);
}

/* The case and its verdicts (res) into the store, then its timings. */
static void sl__store_kept(sl__bench_ctx *b, const sl_bench_case *bc,
                           const sl_case_result *res) {
  if (b->st && sl_bench_case_store(b->st, b->run_id, bc, res, &sl__kept))
    fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b->st));
  sl__kept.n = 0;
}

/* Keeps a timing for the closing tables (row may be NULL: out of memory). */
static void sl__table_set(sl__bench_ctx *b, sl_bench_row *row,
                          const char *variant, const sl_timing *t,
                          int64_t bytes) {
  if (!row) return;
  double gbs = (double)bytes / t->median_s / 1e9;
  sl_bench_row_set(row, variant, t->median_s, gbs,
                   b->peak_gbs > 0 ? 100.0 * gbs / b->peak_gbs : -1);
}

/* "  NAME  not timed: why", the why a kernel's or provider's words: made
 * safe for the terminal and a CI log (clean_text.h). */
static void sl__print_untimed(const char *name, const char *why) {
  printf("  %-12s not timed: ", name);
  sl_text_put(stdout, why);
  putchar('\n');
}

/* A contender the timing worker lost, and so a failure of the case:
 * "  NAME  not timed: crashed: why" (or timeout). When it is a variant
 * that passed its check, its verdict in res becomes the death (the JSON
 * document's, and the run's failure). */
static void sl__print_death(sl__bench_ctx *b, sl_case_result *res,
                            const char *name, const sl_bw_lost *d) {
  char why[600];
  sl_bench_case_lost(res, name, d, why, sizeof why);
  sl__print_untimed(name, why);
  b->died = 1;
}

/* The timings of names[0..n) in the worker ("" is LibTorch: torch.cpu, or
 * torch.cuda when device); a contender that died is said so and gets rc 2.
 * Returns 0, or 1 when nothing could be timed. */
static int sl__time_in_worker(sl__bench_ctx *b, sl_case_result *res, int device,
                              const char (*names)[SL_VARIANT_NAME_LEN], int n,
                              sl_timing *t, int *rc, char (*msg)[512]) {
  static sl_bw_lost death[SL_BW_MAX];
  const sl_bw_timing o = {b->budget, b->min_reps, b->cold, b->threads,
                          device ? 0 : b->outpaced};
  const int lost =
      sl_bw_time(b->workers.timing, device, names, n, &o, t, rc, msg, death);
  for (int i = 0; i < n; ++i)
    if (death[i].lost) {
      sl__print_death(b, res,
                      names[i][0] ? names[i]
                      : device    ? "torch.cuda"
                                  : "torch.cpu",
                      &death[i]);
      rc[i] = 2;
    }
  return lost;
}

/* A verdict read on timings that scatter this much (an IQR over its median)
 * is timed again (--retime). */
#define SL__SCATTERED 0.5

/* How far the CPU speed-up of a case scatters: the larger IQR over median
 * of the two timings it is read from, torch.cpu's (t[0]) and the fastest
 * variant's; *who gets that timing's index. 0 without both. */
static double sl__speedup_scatter(const sl_timing *t, const int *rc, int n,
                                  int *who) {
  int best = -1;
  for (int i = 1; i < n; ++i)
    if (rc[i] == 0 && (best < 0 || t[i].median_s < t[best].median_s)) best = i;
  if (rc[0] != 0 || best < 0 || !(t[0].median_s > 0) || !(t[best].median_s > 0))
    return 0;
  const double torch = t[0].iqr_s / t[0].median_s;
  const double ours = t[best].iqr_s / t[best].median_s;
  *who = torch >= ours ? 0 : best;
  return torch >= ours ? torch : ours;
}

/* Whether a contender could not be timed (rc: a death, inputs it
 * changed): news a timing must not lose to a calmer one. */
static int sl__any_failed(const int *rc, int n) {
  for (int i = 0; i < n; ++i)
    if (rc[i] != 0) return 1;
  return 0;
}

/* The CPU contenders' timings (torch.cpu first), timed again up to
 * b->retime times while the speed-up's two timings scatter (a noisy minute
 * of the machine, which a case timed once reads as its verdict). The
 * calmest timing is kept: the choice looks at the scatter only, never at
 * which way the speed-up went; one where a contender could not be timed is
 * kept whatever its scatter, and ends the retiming. */
static void sl__time_cpu_calm(sl__bench_ctx *b, sl_case_result *res,
                              const char (*names)[SL_VARIANT_NAME_LEN], int n,
                              sl_timing *t, int *rc, char (*msg)[512]) {
  static sl_timing again[SL_BW_MAX];
  static char again_msg[SL_BW_MAX][512];
  int again_rc[SL_BW_MAX], who = 0, k = 0;
  int lost = sl__time_in_worker(b, res, 0, names, n, t, rc, msg);
  double scatter = b->cpu ? sl__speedup_scatter(t, rc, n, &who) : 0;
  while (!lost && scatter > SL__SCATTERED && k < b->retime &&
         !sl__any_failed(rc, n) && !sl_interrupted()) {
    printf("  %s's IQR is %.0f%% of its median: timed again (%d of %d)\n",
           names[who][0] ? names[who] : "torch.cpu", 100 * scatter, ++k,
           b->retime);
    lost = sl__time_in_worker(b, res, 0, names, n, again, again_rc, again_msg);
    int again_who = 0;
    const double s = sl__speedup_scatter(again, again_rc, n, &again_who);
    if (lost || sl__any_failed(again_rc, n) || s < scatter) {
      memcpy(t, again, sizeof *t * (size_t)n);
      memcpy(rc, again_rc, sizeof *rc * (size_t)n);
      memcpy(msg, again_msg, sizeof *msg * (size_t)n);
      scatter = s, who = again_who;
    }
  }
  b->retimed = k;
  b->retimed_n += k > 0;
  b->scattered = scatter > SL__SCATTERED && !lost;
  if (k && b->scattered)
    printf("  still scattered after %d more timing%s: the calmest is kept; "
           "read its speed-up with care\n",
           k, k == 1 ? "" : "s");
}

/*
 * The device side of a case: LibTorch's CUDA op (torch.cuda) first, unless
 * --no-torch, then the cuda.* variants that passed (results cuda[0..n-1]),
 * one at a time with CUDA events on device copies of the inputs, in the
 * timing worker. Prints a row each (after the header when *header is 0)
 * and records them. Returns 1 when a variant that passed could not be
 * timed (a device error after a clean check), else 0.
 */
static int sl__time_cuda(sl__bench_ctx *b, sl_case_result *res, const int *cuda,
                         int n, int64_t bytes, int *header) {
  static char names[SL_BW_MAX][SL_VARIANT_NAME_LEN];
  static sl_timing t[SL_BW_MAX];
  static char msg[SL_BW_MAX][512];
  int rc[SL_BW_MAX], m = 0, failed = 0;
  if (!b->no_torch) names[m++][0] = '\0';
  for (int k = 0; k < n && m < SL_BW_MAX; ++k)
    snprintf(names[m++], sizeof names[0], "%s", res->v[cuda[k]].variant);
  if (!*header) sl__print_header(0);
  *header = 1;
  sl__time_in_worker(b, res, 1, (const char(*)[SL_VARIANT_NAME_LEN])names, m, t,
                     rc, msg);
  double torch_s = 0;
  for (int i = 0; i < m && !sl_interrupted(); ++i) {
    const char *name = names[i][0] ? names[i] : "torch.cuda";
    if (rc[i] == 2) continue; /* said so */
    if (rc[i]) {
      sl__print_untimed(name, msg[i]);
      failed |= names[i][0] != '\0';
      continue;
    }
    if (!names[i][0]) torch_s = t[i].median_s;
    sl__print_row(name, &t[i], bytes, b->dev_gbs, torch_s);
    sl__store_timing(b, name, &t[i], bytes, 0, b->dev_gbs);
  }
  if (sl_interrupted())
    printf("  interrupted: timings stopped short, not recorded\n");
  return failed;
}

/* Where result r of the case is timed: 1 on the CPU, 2 on the device, 0
 * not at all (said why); *on_device set for a cuda.* variant. */
static int sl__timed_where(const sl__bench_ctx *b, const sl_bench_case *bc,
                           const sl_variant_result *r, int *on_device) {
  const sl_hvariant *hv = sl_hvariant_find(bc->c.op, r->variant);
  *on_device = hv && sl_variant_device(&hv->v) == SL_DEVICE_CUDA;
  if (r->verdict != SL_VERDICT_PASSED && r->verdict != SL_VERDICT_MISTRUSTED) {
    sl_print_untimed(r);
    return 0;
  }
  const unsigned layouts = hv ? bc->built.layouts & ~hv->caps.layouts : 0;
  if (!hv || layouts) {
    /* It passed on contiguous copies; timing it on them would time
     * another case. */
    printf("  %-12s not timed: takes %s inputs as contiguous copies "
           "(capabilities); time it on a contiguous case\n",
           r->variant, layouts & SL_LAYOUT_BROADCAST ? "broadcast" : "strided");
    return 0;
  }
  if (*on_device && !b->cuda) {
    printf("  %-12s not timed: no CUDA device to time it on\n", r->variant);
    return 0;
  }
  return *on_device ? 2 : 1;
}

/*
 * Times LibTorch and every variant that passed, on the same inputs, in the
 * timing worker. The CPU contenders (torch.cpu first, unless the run has
 * no CPU side, then the CPU variants) interleaved in rounds
 * (sl_time_rounds): with --cold, enough copies of the inputs to exceed any
 * cache. Then the device side (sl__time_cuda) when the case has a cuda.*
 * variant and the run a device. Prints a row per contender and records
 * them. Returns 1 when a cuda.* variant that passed could not be timed,
 * else 0.
 */
static int sl__time_contenders(sl__bench_ctx *b, sl_case_result *res,
                               const sl_bench_case *bc, sl_bench_row *row) {
  static char names[SL_BW_MAX][SL_VARIANT_NAME_LEN];
  static sl_timing t[SL_BW_MAX];
  static char msg[SL_BW_MAX][512];
  int rc[SL_BW_MAX], cuda[SL_BW_MAX];
  int n = 0, ncuda = 0, any_cuda = 0, header = 0;
  const int64_t bytes = bc->built.bytes;
  if (b->cpu) names[n++][0] = '\0'; /* LibTorch first: every row's peer */
  for (int i = 0; i < res->n && n < SL_BW_MAX; ++i) {
    int on_device;
    const int where = sl__timed_where(b, bc, &res->v[i], &on_device);
    any_cuda |= on_device;
    if (where == 2) cuda[ncuda++] = i;
    if (where == 1)
      snprintf(names[n++], sizeof names[0], "%s", res->v[i].variant);
  }
  if (n > 0) {
    sl__time_cpu_calm(b, res, (const char(*)[SL_VARIANT_NAME_LEN])names, n, t,
                      rc, msg);
    if (sl_interrupted()) {
      printf("  interrupted: timings stopped short, not recorded\n");
      return 0;
    }
    const double torch_median = b->cpu && rc[0] == 0 ? t[0].median_s : 0;
    sl__print_header(b->counted);
    header = 1;
    for (int i = 0; i < n; ++i) {
      const char *name = names[i][0] ? names[i] : "torch.cpu";
      if (rc[i] == 2) continue; /* its death is said */
      if (rc[i]) {
        sl__print_untimed(name, msg[i]);
        continue;
      }
      sl__print_row(name, &t[i], bytes, b->peak_gbs, torch_median);
      b->outpaced_n += t[i].outpaced;
      sl__store_timing(b, name, &t[i], bytes, b->threads, b->peak_gbs);
      sl__table_set(b, row, name, &t[i], bytes);
    }
    if (row) row->scattered = b->scattered;
  }
  /* The device side: torch.cuda whenever the case has a cuda.* variant,
   * even one that failed (the peer of the next run's rows). */
  if (b->cuda && any_cuda)
    return sl__time_cuda(b, res, cuda, ncuda, bytes, &header);
  return 0;
}

/* Correctness first (every variant through the reference), then LibTorch
 * and the variants that passed, timed. 0, 1 when a cuda.* variant that
 * passed could not be timed, -1 when the case could not be built. Counts
 * the case in b->failing when a variant failed its check. */
int sl__bench_case(sl__bench_ctx *b, const sl_case *c0) {
  char err[512];
  static sl_case_result res;
  sl_run_opts ro = {0};
  ro.variants = b->variants;
  ro.threads = b->threads;
  ro.max_case_bytes = b->max_case_bytes;
  sl_bench_case bc;
  /* Stored after the timing (sl__store_kept), with any death in it. */
  if (sl_bench_case_open(&bc, c0, &ro, &b->workers, &res, err, sizeof err)) {
    fprintf(stderr, "scatterlab bench: %s\n", err);
    return -1;
  }
  char *jbuf = NULL;
  size_t jlen = 0;
  if (b->jcases) {
    b->jtimings = open_memstream(&jbuf, &jlen);
    b->jtn = 0;
  }
  /* The closing tables compare CPU timings with torch.cpu's. */
  sl_bench_row *row =
      b->cpu ? sl_bench_table_add(&b->table, &bc.c, res.line) : NULL;
  int rc = 0;
  b->retimed = b->scattered = 0;
  if (bc.built.ref_rc != 0)
    printf("  LibTorch rejects this case (%s): nothing to time\n",
           bc.built.ref_msg);
  else
    rc = sl__time_contenders(b, &res, &bc, row);
  /* A variant that fails its check is not timed, and is a failure found:
   * a benchmark of wrong code must not pass. */
  b->failing += res.failures > 0;
  sl__store_kept(b, &bc, &res);
  if (b->jtimings) {
    fclose(b->jtimings);
    b->jtimings = NULL;
    fprintf(b->jcases,
            "%s{\"useful_bytes\": %lld, \"retimed\": %d, \"scattered\": %s, "
            "\"result\": ",
            b->jn++ ? ",\n  " : "\n  ", (long long)bc.built.bytes, b->retimed,
            b->scattered ? "true" : "false");
    sl_json_case_result(b->jcases, &res);
    fprintf(b->jcases, ", \"timings\": [%s]}", jbuf ? jbuf : "");
  }
  free(jbuf);
  return rc;
}
