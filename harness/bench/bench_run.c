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

/* One timed contender: a core variant, or LibTorch (variant NULL). */
typedef struct sl__timed {
  sl_ctx ctx;
  const char *variant;
  const sl_variant *row; /* the variant's row (providers.h) */
  const sl_call *calls;  /* ncalls copies (--cold), rotated through */
  int ncalls;
  int threads;   /* LibTorch's intra-op threads */
  char msg[512]; /* why LibTorch failed */
} sl__timed;

/* k runs of contender t from repetition rep on (sl_timed_fn). LibTorch's
 * run back to back inside the shim, which times them, as a kernel in a
 * loop would; with --cold, one at a time, each on its own copy. */
static int sl__run_timed(void *user, int rep, int k, double *samples) {
  sl__timed *t = user;
  int at = rep < 0 ? 0 : rep;
  if (!t->variant && t->ncalls == 1)
    return slref_time(&t->calls[0], t->threads, k, samples, t->msg,
                      sizeof t->msg);
  for (int i = 0; i < k; ++i) {
    sl_call c = t->calls[(at + i) % t->ncalls];
    if (!t->variant) {
      if (slref_time(&c, t->threads, 1, samples + i, t->msg, sizeof t->msg))
        return 1;
      continue;
    }
    double t0 = sl_now();
    if (sl_run_variant(&t->ctx, t->row, &c) != SL_STATUS_OK) return 1;
    samples[i] = sl_now() - t0;
  }
  return 0;
}

sl__probes sl__probe(int threads) {
  sl__probes p = {sl_copy_bandwidth_gbs((size_t)256 << 20, threads),
                  sl_cpu_round_trip_ns(threads)};
  return p;
}

/* The probes again after the suite. On a shared machine both move (the
 * 2-core development VM: copy 41-45 or 74-80 GB/s, round trip 85-140 or
 * 360 ns, from run to run and within one): a run that saw them move says
 * so, since its % of peak uses the first probe and its multi-threaded
 * timings follow the threads' placement, while the ratios between
 * contenders, timed in turns, still compare like with like. Returns the end
 * probes, which the run stores (runs.copy_gbs_end, core_rtt_ns_end). */
sl__probes sl__probe_again(const sl__probes *start, int threads) {
  const sl__probes end = sl__probe(threads);
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
  char vs[32] = "-";
  if (torch_median > 0 && med > 0)
    snprintf(vs, sizeof vs, "%.2fx", torch_median / med);
  printf("  %-12s %11.4f ms %6.1f%% %9.2f %7.1f%% %9s %5d", variant, med * 1e3,
         med > 0 ? 100.0 * t->iqr_s / med : 0.0, gbs,
         peak > 0 ? 100.0 * gbs / peak : 0.0, vs, t->reps);
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

/* Stores one timing: threads 0 (NULL) for a device row, % of peak against
 * `peak` (the CPU's or the device's copy bandwidth). */
static int sl__store_timing(sl__bench_ctx *b, int64_t case_id,
                            const char *variant, const sl_timing *t,
                            int64_t bytes, int threads, double peak) {
  double gbs = t->median_s > 0 ? (double)bytes / t->median_s / 1e9 : 0;
  if (b->jtimings) { /* every row timed is stored: the document says so too */
    fputs(b->jtn++ ? ", {\"variant\": " : "{\"variant\": ", b->jtimings);
    sl_json_str(b->jtimings, variant);
    fprintf(b->jtimings,
            ", \"threads\": %d, \"reps\": %d, \"median_s\": ", threads,
            t->reps);
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
  if (!b->st) return 0;
  sl_timing_row row = {
      variant,  threads,     t->reps,
      b->cold,  t->median_s, t->iqr_s,
      t->min_s, gbs,         peak > 0 ? 100.0 * gbs / peak : -1,
      bytes,    t->samples,  t->reps};
  const sl_timing_counts counts = {t->counts.instructions, t->counts.cycles,
                                   t->counts.cache_misses};
  int64_t id;
  if (sl_store_add_timing_counted(b->st, case_id, &row, &counts, &id)) {
    fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b->st));
    return -1;
  }
  return 0;
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

/* One set of outputs shared by the n copies of a call: with --cold only the
 * inputs rotate. LibTorch's allocator hands back the block it freed on the
 * previous call, so its outputs stay in cache; a variant writing to n cold
 * output copies would pay DRAM write-allocates LibTorch does not (it ran
 * select_scatter at half LibTorch's speed that way). */
static int sl__alloc_call_outputs(sl_call *calls, int n, void **mem) {
  if (sl_bench_alloc_outputs(&calls[0], mem)) return -1;
  const sl_op_info *info = sl_op_get(calls[0].op);
  for (int k = 1; k < n; ++k) /* the copies differ in input addresses only */
    for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
      calls[k].arg[s] = calls[0].arg[s];
  return 0;
}

/* "  NAME  not timed: why", the why a kernel's or provider's words: made
 * safe for the terminal and a CI log (clean_text.h). */
static void sl__print_untimed(const char *name, const char *why) {
  printf("  %-12s not timed: ", name);
  sl_text_put(stdout, why);
  putchar('\n');
}

/*
 * The device side of a case: LibTorch's CUDA op (torch.cuda) first, unless
 * --no-torch, then the cuda.* variants that passed (results cuda[0..n-1]),
 * one at a time with CUDA events on device copies of the inputs. Prints a
 * row each (after the header when *header is 0) and records them. Returns
 * 1 when a variant that passed could not be timed (a device error after a
 * clean check), else 0.
 */
static int sl__time_cuda(sl__bench_ctx *b, const sl_case_result *res,
                         const int *cuda, int n, const sl_bundle *in,
                         int64_t bytes, int64_t case_id, int *header) {
  static sl_timing t; /* samples: too large for the stack */
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.budget_s = b->budget;
  o.min_reps = b->min_reps;
  int failed = 0;
  double torch_s = 0;
  if (!*header) sl__print_header(0);
  *header = 1;
  if (!b->no_torch) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    if (sl_device_time_torch(&ctx, &in->call, b->cold, &o, &t)) {
      sl__print_untimed("torch.cuda", sl_ctx_message(&ctx));
    } else if (!sl_interrupted()) {
      torch_s = t.median_s;
      sl__print_row("torch.cuda", &t, bytes, b->dev_gbs, torch_s);
      sl__store_timing(b, case_id, "torch.cuda", &t, bytes, 0, b->dev_gbs);
    }
  }
  for (int k = 0; k < n && !sl_interrupted(); ++k) {
    const sl_variant_result *r = &res->v[cuda[k]];
    const sl_hvariant *hv = sl_hvariant_find(in->call.op, r->variant);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    if (sl_device_time_variant(&ctx, &hv->v, &in->call, b->cold, &o, &t)) {
      sl__print_untimed(r->variant, sl_ctx_message(&ctx));
      failed = 1;
      continue;
    }
    if (sl_interrupted()) break;
    sl__print_row(r->variant, &t, bytes, b->dev_gbs, torch_s);
    sl__store_timing(b, case_id, r->variant, &t, bytes, 0, b->dev_gbs);
  }
  if (sl_interrupted())
    printf("  interrupted: timings stopped short, not recorded\n");
  sl_device_release();
  return failed;
}

/*
 * Times LibTorch and every variant that passed, on the same inputs. The
 * CPU contenders (torch.cpu first, unless the run has no CPU side, then the
 * CPU variants) interleaved in rounds (sl_time_rounds): with --cold, enough
 * copies of the inputs to exceed any cache, shared by all (inputs are only
 * read), each contender writing its own one set of outputs. Then the
 * device side (sl__time_cuda) when the case has a cuda.* variant and the
 * run a device. Prints a row per contender and records them. Returns 1
 * when a cuda.* variant that passed could not be timed, else 0.
 */
static int sl__time_contenders(sl__bench_ctx *b, const sl_case_result *res,
                               const sl_bundle *in, int64_t bytes,
                               int64_t case_id, sl_bench_row *row) {
  int copies = 1;
  if (b->cpu && b->cold && bytes > 0) {
    int64_t want = (int64_t)512 << 20;
    copies = (int)(want / bytes) + 1;
    if (copies > 64) copies = 64;
  }
  const sl_op_info *info = sl_op_get(in->call.op);
  int n = 0, ok = 1, header = 0, failed = 0, ncuda = 0, any_cuda = 0;
  sl__timed *tm = calloc((size_t)res->n + 1, sizeof *tm);
  int *cuda = calloc((size_t)res->n + 1, sizeof *cuda);
  sl_call *inputs = calloc((size_t)copies, sizeof *inputs);
  /* Buffers, slot-indexed: a block of outputs per variant (block i + 1 for
   * result i), then the input copies. */
  size_t outs = ((size_t)res->n + 1) * SL_MAX_ARGS;
  size_t slots = outs + (size_t)copies * SL_MAX_ARGS;
  void **mem = calloc(slots, sizeof *mem);
  void **shared = mem ? mem + outs : 0;
  if (!tm || !cuda || !inputs || !mem) ok = 0;
  for (int k = 0; ok && k < copies; ++k) {
    inputs[k] = in->call;
    for (int s = 0; k > 0 && s < info->n_in; ++s) {
      /* Cold copies of the inputs: same values, other addresses. */
      if (!in->call.arg[s].data || !in->bytes[s]) continue;
      void **m = &shared[k * SL_MAX_ARGS + s];
      if (!(*m = malloc(in->bytes[s]))) {
        ok = 0;
        break;
      }
      memcpy(*m, in->mem[s], in->bytes[s]);
      inputs[k].arg[s].data = *m;
    }
  }
  if (!ok) {
    printf("  not timed: out of memory for the inputs\n");
    goto out;
  }
  /* LibTorch first, so every row can show its speed-up. */
  if (b->cpu) {
    tm[n].variant = NULL;
    tm[n].threads = b->threads;
    tm[n].calls = inputs;
    tm[n++].ncalls = copies;
  }
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    const sl_hvariant *hv = sl_hvariant_find(in->call.op, r->variant);
    const int on_device = hv && sl_variant_device(&hv->v) == SL_DEVICE_CUDA;
    any_cuda |= on_device;
    if (r->verdict != SL_VERDICT_PASSED &&
        r->verdict != SL_VERDICT_MISTRUSTED) {
      sl_print_untimed(r);
      continue;
    }
    unsigned layouts = 0;
    for (int s = 0; hv && s < info->n_in; ++s)
      layouts |= sl_input_layout(&in->call.arg[s]) & ~hv->caps.layouts;
    if (!hv || layouts) {
      /* It passed on contiguous copies; timing it on them would time
       * another case. */
      printf("  %-12s not timed: takes %s inputs as contiguous copies "
             "(capabilities); time it on a contiguous case\n",
             r->variant,
             layouts & SL_LAYOUT_BROADCAST ? "broadcast" : "strided");
      continue;
    }
    if (on_device) {
      if (b->cuda)
        cuda[ncuda++] = i;
      else
        printf("  %-12s not timed: no CUDA device to time it on\n", r->variant);
      continue;
    }
    sl_call *calls = calloc((size_t)copies, sizeof *calls);
    void **own = mem + (size_t)(i + 1) * SL_MAX_ARGS;
    if (calls) memcpy(calls, inputs, sizeof *calls * (size_t)copies);
    if (!calls || sl__alloc_call_outputs(calls, copies, own)) {
      printf("  %-12s not timed: out of memory\n", r->variant);
      free(calls);
      continue;
    }
    sl_ctx_init(&tm[n].ctx);
    tm[n].ctx.threads = b->threads;
    tm[n].variant = r->variant;
    tm[n].row = &hv->v;
    tm[n].calls = calls;
    tm[n++].ncalls = copies;
  }
  sl_timed_fn *fns = calloc((size_t)n + 1, sizeof *fns);
  void **users = calloc((size_t)n + 1, sizeof *users);
  sl_timing *t = calloc((size_t)n + 1, sizeof *t);
  int *rc = calloc((size_t)n + 1, sizeof *rc);
  if (!fns || !users || !t || !rc) {
    printf("  not timed: out of memory for the samples\n");
  } else if (n > 0) {
    for (int i = 0; i < n; ++i) {
      fns[i] = sl__run_timed;
      users[i] = &tm[i];
    }
    sl_timing_opts o;
    sl_timing_opts_init(&o);
    o.budget_s = b->budget;
    o.min_reps = b->min_reps;
    o.counter = sl_run_counters_turn(&b->counters);
    sl_time_rounds(n, fns, users, &o, t, rc);
    if (sl_interrupted()) {
      printf("  interrupted: timings stopped short, not recorded\n");
      goto done;
    }
    double torch_median = b->cpu && rc[0] == 0 ? t[0].median_s : 0;
    sl__print_header(o.counter != NULL);
    header = 1;
    for (int i = 0; i < n; ++i) {
      const char *name = tm[i].variant ? tm[i].variant : "torch.cpu";
      if (rc[i]) {
        sl__print_untimed(name, tm[i].variant ? sl_ctx_message(&tm[i].ctx)
                                              : tm[i].msg);
        continue;
      }
      sl__print_row(name, &t[i], bytes, b->peak_gbs, torch_median);
      sl__store_timing(b, case_id, name, &t[i], bytes, b->threads, b->peak_gbs);
      sl__table_set(b, row, name, &t[i], bytes);
    }
  }
  /* The device side: torch.cuda whenever the case has a cuda.* variant,
   * even one that failed (the peer of the next run's rows). */
  if (b->cuda && any_cuda && fns && users && t && rc)
    failed = sl__time_cuda(b, res, cuda, ncuda, in, bytes, case_id, &header);
done:
  free(fns);
  free(users);
  free(t);
  free(rc);
out:
  for (int i = b->cpu ? 1 : 0; tm && i < n; ++i) free((void *)tm[i].calls);
  for (size_t k = 0; mem && k < slots; ++k) free(mem[k]);
  free(mem);
  free(inputs);
  free(cuda);
  free(tm);
  return failed;
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
  if (sl_bench_case_open(&bc, c0, &ro, b->st, b->run_id, &res, err,
                         sizeof err)) {
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
  if (bc.ref_rc != 0)
    printf("  LibTorch rejects this case (%s): nothing to time\n", bc.ref_msg);
  else
    rc = sl__time_contenders(b, &res, &bc.in, bc.bytes, bc.case_id, row);
  sl_bench_case_close(&bc);
  /* A variant that fails its check is not timed, and is a failure found:
   * a benchmark of wrong code must not pass. */
  b->failing += res.failures > 0;
  if (b->jtimings) {
    fclose(b->jtimings);
    b->jtimings = NULL;
    fprintf(b->jcases, "%s{\"useful_bytes\": %lld, \"result\": ",
            b->jn++ ? ",\n  " : "\n  ", (long long)bc.bytes);
    sl_json_case_result(b->jcases, &res);
    fprintf(b->jcases, ", \"timings\": [%s]}", jbuf ? jbuf : "");
  }
  free(jbuf);
  return rc;
}
