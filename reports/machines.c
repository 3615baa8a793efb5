/* Runs' machines: their text and their differences (see machines.h). */
#include "machines.h"

#include <stdio.h>
#include <string.h>

#include "sl_report.h"

#define SL__PROBES_APART 1.2

int sl_copy_probes_apart(double a, double b) {
  return a > 0 && b > 0 &&
         (a > b * SL__PROBES_APART || b > a * SL__PROBES_APART);
}

#define SL__RTTS_APART 2.0

int sl_core_rtts_apart(double a, double b) {
  return a > 0 && b > 0 && (a > b * SL__RTTS_APART || b > a * SL__RTTS_APART);
}

/* "a -> b" of a probe taken at a run's start and end, "a" without an end,
 * "?" without either. */
static void sl__probe_pair(double a, double b, const char *fmt, char *buf,
                           size_t len) {
  char one[32] = "?", two[32] = "";
  if (a > 0) snprintf(one, sizeof one, fmt, a);
  if (a > 0 && b > 0) {
    snprintf(two, sizeof two, " -> ");
    snprintf(two + 4, sizeof two - 4, fmt, b);
  }
  snprintf(buf, len, "%s%s", one, two);
}

void sl__machine_text(const sl_run_brief *m, char *buf, size_t len) {
  char cores[32] = "?", threads[32] = "?", gbs[72], rtt[96] = "", ns[72];
  if (m->cores > 0) snprintf(cores, sizeof cores, "%d", m->cores);
  if (m->threads > 0) snprintf(threads, sizeof threads, "%d", m->threads);
  sl__probe_pair(m->copy_gbs, m->copy_gbs_end, "%.1f", gbs, sizeof gbs);
  if (m->core_rtt_ns > 0) {
    sl__probe_pair(m->core_rtt_ns, m->core_rtt_ns_end, "%.0f", ns, sizeof ns);
    snprintf(rtt, sizeof rtt, ", core round trip %s ns", ns);
  }
  snprintf(buf, len, "%s, %s cores, %s threads, copy %s GB/s%s, reference %s",
           m->cpu_model[0] ? m->cpu_model : "?", cores, threads, gbs, rtt,
           m->reference[0] ? m->reference : SL_REFERENCE_UNKNOWN);
}

/* Whether one run's own two probes (start and end) moved apart: then its
 * timings straddle two machines. */
static int sl__moved_within(const sl_run_brief *m, const char *name, char *buf,
                            size_t len) {
  if (sl_copy_probes_apart(m->copy_gbs, m->copy_gbs_end))
    snprintf(buf, len,
             "the %s's copy bandwidth moved %.1f -> %.1f GB/s during its run",
             name, m->copy_gbs, m->copy_gbs_end);
  else if (sl_core_rtts_apart(m->core_rtt_ns, m->core_rtt_ns_end))
    snprintf(buf, len,
             "the %s's core-to-core round trip moved %.0f -> %.0f ns during "
             "its run",
             name, m->core_rtt_ns, m->core_rtt_ns_end);
  else
    return 0;
  return 1;
}

int sl__machines_differ(const sl_run_brief *a, const sl_run_brief *b,
                        const char *a_name, const char *b_name, char *buf,
                        size_t len) {
  /* First: another LibTorch moves every torch.cpu timing and every "x
   * LibTorch" ratio, whatever the machine did. A run that did not record its
   * reference may have had either. */
  if (strcmp(a->reference, b->reference) != 0)
    snprintf(buf, len, "reference %s vs %s", a->reference, b->reference);
  else if (strcmp(a->cpu_model, b->cpu_model) != 0)
    snprintf(buf, len, "CPU '%s' vs '%s'", a->cpu_model, b->cpu_model);
  else if (a->cores != b->cores || a->threads != b->threads)
    snprintf(buf, len, "%d vs %d cores, %d vs %d threads", a->cores, b->cores,
             a->threads, b->threads);
  else if (sl_copy_probes_apart(a->copy_gbs, b->copy_gbs))
    snprintf(buf, len, "copy bandwidth %.1f vs %.1f GB/s", a->copy_gbs,
             b->copy_gbs);
  else if (sl_core_rtts_apart(a->core_rtt_ns, b->core_rtt_ns))
    snprintf(buf, len,
             "core-to-core round trip %.0f vs %.0f ns: the threads ran on "
             "cores placed otherwise",
             a->core_rtt_ns, b->core_rtt_ns);
  else if (!sl__moved_within(a, a_name, buf, len) &&
           !sl__moved_within(b, b_name, buf, len)) {
    if (len) buf[0] = '\0';
    return 0;
  }
  return 1;
}

/* A run's providers as recorded: name and SHA-256, in load order. */
#define SL__KERNELS_MAX 32
typedef struct sl__kernels {
  int n;
  char name[SL__KERNELS_MAX][64];
  char sha[SL__KERNELS_MAX][65];
} sl__kernels;

static int sl__kernel_row(void *user, const sl_provider_record *p) {
  sl__kernels *k = user;
  if (k->n >= SL__KERNELS_MAX) return 0;
  snprintf(k->name[k->n], sizeof k->name[0], "%s", p->name);
  snprintf(k->sha[k->n], sizeof k->sha[0], "%s", p->sha256);
  ++k->n;
  return 0;
}

static int sl__kernel_find(const sl__kernels *k, const char *name) {
  for (int i = 0; i < k->n; ++i)
    if (strcmp(k->name[i], name) == 0) return i;
  return -1;
}

int sl__kernels_differ(sl_store *sa, int64_t a, sl_store *sb, int64_t b,
                       const char *a_name, const char *b_name, char *buf,
                       size_t len) {
  static sl__kernels ka, kb; /* about 4 KiB each: off the stack */
  memset(&ka, 0, sizeof ka);
  memset(&kb, 0, sizeof kb);
  if (len) buf[0] = '\0';
  if (sl_store_run_providers(sa, a, sl__kernel_row, &ka) < 0) return -1;
  if (sl_store_run_providers(sb, b, sl__kernel_row, &kb) < 0) return -2;
  /* A run stored before providers were recorded (schema < 7) tells
   * nothing either way. */
  if (ka.n == 0 || kb.n == 0) return 2;
  for (int i = 0; i < ka.n; ++i) {
    int j = sl__kernel_find(&kb, ka.name[i]);
    if (j < 0) {
      snprintf(buf, len, "provider %s loaded by the %s only", ka.name[i],
               a_name);
      return 1;
    }
    if (strcmp(ka.sha[i], kb.sha[j]) != 0) {
      snprintf(buf, len, "provider %s: sha256 %.12s vs %.12s", ka.name[i],
               ka.sha[i], kb.sha[j]);
      return 1;
    }
  }
  for (int j = 0; j < kb.n; ++j)
    if (sl__kernel_find(&ka, kb.name[j]) < 0) {
      snprintf(buf, len, "provider %s loaded by the %s only", kb.name[j],
               b_name);
      return 1;
    }
  return 0;
}
