/* The machine's busy share, from /proc/stat (machine_load.h). */
#include "machine_load.h"

#include <stdio.h>
#include <time.h>

/* The aggregate "cpu" line: *busy and *total jiffies. 0, or -1. */
static int sl__cpu_jiffies(unsigned long long *busy,
                           unsigned long long *total) {
  FILE *f = fopen("/proc/stat", "re");
  if (!f) return -1;
  /* user nice system idle iowait irq softirq steal */
  unsigned long long v[8] = {0};
  const int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  if (n < 4) return -1;
  *total = 0;
  for (int i = 0; i < 8; ++i) *total += v[i];
  *busy = *total - v[3] - v[4]; /* all but idle and iowait */
  return 0;
}

double sl_machine_busy_share(double seconds) {
  unsigned long long b0, t0, b1, t1;
  if (sl__cpu_jiffies(&b0, &t0)) return -1;
  struct timespec ts = {(time_t)seconds,
                        (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
  if (sl__cpu_jiffies(&b1, &t1) || t1 <= t0) return -1;
  return (double)(b1 - b0) / (double)(t1 - t0);
}
