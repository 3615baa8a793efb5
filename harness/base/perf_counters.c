/* Hardware counters with perf_event_open(2) (see perf_counters.h). */
#include "perf_counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t sl_counter_scale(uint64_t count, uint64_t enabled, uint64_t running,
                         int *scaled) {
  if (scaled) *scaled = 0;
  if (running == 0) return -1;
  if (running >= enabled) return count > INT64_MAX ? INT64_MAX : (int64_t)count;
  if (scaled) *scaled = 1;
  /* long double: count * enabled overflows 64 bits long before the counts
   * of a benchmark do, and a double's 53 bits would round large counts. */
  long double est =
      (long double)count * (long double)enabled / (long double)running + 0.5L;
  return est >= (long double)INT64_MAX ? INT64_MAX : (int64_t)est;
}

/* why = a followed by b, truncated to whylen; why may be NULL. */
static void sl__say(char *why, size_t whylen, const char *a, const char *b) {
  if (why && whylen) snprintf(why, whylen, "%s%s", a, b);
}

#ifdef __linux__

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { SL__INSTRUCTIONS, SL__CYCLES, SL__CACHE_MISSES, SL__NCOUNTERS };

static const char *const sl__names[SL__NCOUNTERS] = {"instructions", "cycles",
                                                     "cache_misses"};
static const uint64_t sl__configs[SL__NCOUNTERS] = {PERF_COUNT_HW_INSTRUCTIONS,
                                                    PERF_COUNT_HW_CPU_CYCLES,
                                                    PERF_COUNT_HW_CACHE_MISSES};

/* What read(2) returns for read_format TOTAL_TIME_ENABLED|RUNNING. */
typedef struct sl__reading {
  uint64_t value, enabled, running;
} sl__reading;

struct sl_counters {
  int fd[SL__NCOUNTERS];           /* -1: that counter did not open */
  sl__reading base[SL__NCOUNTERS]; /* read at start, subtracted at stop */
  int base_ok[SL__NCOUNTERS];      /* base[i] was read */
  int started;                     /* a window is open */
};

static const char *sl__errno_name(int e) {
  switch (e) {
  case ENOENT:
    return "ENOENT";
  case EOPNOTSUPP:
    return "EOPNOTSUPP";
  case ENODEV:
    return "ENODEV";
  case EACCES:
    return "EACCES";
  case EPERM:
    return "EPERM";
  case ENOSYS:
    return "ENOSYS";
  case EINVAL:
    return "EINVAL";
  case E2BIG:
    return "E2BIG";
  case EBUSY:
    return "EBUSY";
  case EMFILE:
    return "EMFILE";
  case ENFILE:
    return "ENFILE";
  default:
    return NULL;
  }
}

/* /proc/sys/kernel/perf_event_paranoid, or 0 when it cannot be read. */
static int sl__paranoid(int *level) {
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  if (!f) return 0;
  int ok = fscanf(f, "%d", level) == 1;
  fclose(f);
  return ok;
}

/*
 * Why perf_event_open failed with err, as a phrase after "NAME: ".
 * only_some: other counters opened, so the PMU exists and ENOENT means this
 * one event is missing rather than the whole PMU.
 */
static void sl__cause(int err, int only_some, char *buf, size_t n) {
  int level;
  switch (err) {
  case ENOENT:
  case EOPNOTSUPP:
  case ENODEV:
    snprintf(buf, n, "%s",
             only_some ? "the CPU's PMU has no such event"
                       : "no hardware PMU is exposed to this (virtual) "
                         "machine, so there are no hardware counters to open");
    return;
  case EACCES:
  case EPERM:
    if (!sl__paranoid(&level))
      snprintf(buf, n,
               "permission denied, and /proc/sys/kernel/perf_event_paranoid "
               "could not be read (a seccomp filter or a security module "
               "may forbid perf_event_open)");
    else if (level >= 3)
      snprintf(
          buf, n,
          "permission denied: perf_event_paranoid is %d, which forbids "
          "perf_event_open to processes without CAP_PERFMON (2 would "
          "allow user-space counting: sysctl kernel.perf_event_paranoid=2)",
          level);
    else
      snprintf(buf, n,
               "permission denied, though perf_event_paranoid is %d, which "
               "allows a process to count itself in user space: a seccomp "
               "filter (a container's default profile answers EPERM) or a "
               "security module forbids perf_event_open",
               level);
    return;
  case ENOSYS:
    snprintf(buf, n,
             "no perf_event_open system call here (a kernel built without "
             "CONFIG_PERF_EVENTS, or a seccomp filter answering ENOSYS)");
    return;
  case EINVAL:
  case E2BIG:
    snprintf(buf, n,
             "the kernel rejected the event's attributes (inherit, "
             "exclude_hv or the read format unsupported here)");
    return;
  case EBUSY:
    snprintf(buf, n, "the PMU is held exclusively by another user");
    return;
  case EMFILE:
  case ENFILE:
    snprintf(buf, n, "out of file descriptors");
    return;
  default:
    snprintf(buf, n, "%s (errno %d)", strerror(err), err);
    return;
  }
}

/* The line for a counter that did not open: "perf_event_open(NAME): ERR:
 * cause". */
static void sl__describe(int i, int err, int only_some, char *buf, size_t n) {
  char cause[400];
  sl__cause(err, only_some, cause, sizeof cause);
  const char *name = sl__errno_name(err);
  if (name)
    snprintf(buf, n, "perf_event_open(%s): %s: %s", sl__names[i], name, cause);
  else
    snprintf(buf, n, "perf_event_open(%s): %s", sl__names[i], cause);
}

/* One counter of the calling process on any CPU; an fd, or -1 with errno. */
static int sl__open_one(uint64_t config) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.disabled = 1; /* counts only between start and stop */
  attr.inherit = 1;  /* threads created later (the OpenMP pool) count too */
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  /* Close-on-exec, so that a child running another program does not keep
   * the counters open; kernels before 3.14 lack the flag (EINVAL). */
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
                    (unsigned long)PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && errno == EINVAL) {
    fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0UL);
    if (fd >= 0) fcntl((int)fd, F_SETFD, FD_CLOEXEC);
  }
  return (int)fd;
}

int sl_counters_open(sl_counters **out, char *why, size_t whylen) {
  if (why && whylen) why[0] = '\0';
  if (!out) {
    sl__say(why, whylen, "sl_counters_open: ", "out is NULL");
    return -1;
  }
  *out = NULL;
  sl_counters *c = calloc(1, sizeof *c);
  if (!c) {
    sl__say(why, whylen, "sl_counters_open: ", "out of memory");
    return -1;
  }
  int err[SL__NCOUNTERS] = {0}, nopen = 0;
  for (int i = 0; i < SL__NCOUNTERS; ++i) {
    c->fd[i] = sl__open_one(sl__configs[i]);
    if (c->fd[i] >= 0)
      ++nopen;
    else
      err[i] = errno;
  }
  char line[512];
  if (nopen == 0) {
    /* The first counter's cause: the three fail alike in practice. */
    sl__describe(SL__INSTRUCTIONS, err[SL__INSTRUCTIONS], 0, line, sizeof line);
    sl__say(why, whylen, line, "");
    free(c);
    return -1;
  }
  /* Some opened: say which did not, so that a -1 in the results has its
   * reason beside it. */
  size_t used = 0;
  for (int i = 0; i < SL__NCOUNTERS && why && whylen; ++i) {
    if (c->fd[i] >= 0) continue;
    sl__describe(i, err[i], 1, line, sizeof line);
    int k = snprintf(why + used, whylen - used, "%s%s", used ? "; " : "", line);
    if (k < 0 || (size_t)k >= whylen - used) break; /* truncated */
    used += (size_t)k;
  }
  *out = c;
  return 0;
}

static int sl__read(int fd, sl__reading *r) {
  ssize_t k = read(fd, r, sizeof *r);
  return k == (ssize_t)sizeof *r ? 0 : -1;
}

int sl_counters_start(sl_counters *c) {
  if (!c) return -1;
  c->started = 0;
  int rc = 0;
  for (int i = 0; i < SL__NCOUNTERS; ++i) {
    c->base_ok[i] = 0;
    if (c->fd[i] < 0) continue;
    /* RESET zeroes the live counts, but not the counts that exited threads
     * handed back (the kernel's child_count) nor time_enabled/time_running,
     * which run on from the open. The window is therefore this reading,
     * taken while the counter is still disabled, subtracted from the one at
     * stop; RESET only keeps the live counts small. */
    if (ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0) != 0 ||
        sl__read(c->fd[i], &c->base[i]) != 0) {
      rc = -1;
      continue;
    }
    c->base_ok[i] = 1;
  }
  /* Enabled last and back to back, so the counters share one window. */
  for (int i = 0; i < SL__NCOUNTERS; ++i)
    if (c->base_ok[i] && ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0) != 0)
      rc = -1;
  c->started = 1;
  return rc;
}

int sl_counters_stop(sl_counters *c, sl_counter_values *v) {
  if (v) {
    v->instructions = v->cycles = v->cache_misses = -1;
    v->scaled = 0;
  }
  if (!c || !v) return -1;
  int rc = c->started ? 0 : -1;
  int64_t got[SL__NCOUNTERS] = {-1, -1, -1};
  for (int i = 0; i < SL__NCOUNTERS; ++i)
    if (c->fd[i] >= 0 && ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0) != 0)
      rc = -1;
  for (int i = 0; i < SL__NCOUNTERS && c->started; ++i) {
    if (c->fd[i] < 0) continue;
    sl__reading end;
    if (!c->base_ok[i] || sl__read(c->fd[i], &end) != 0) {
      rc = -1;
      continue;
    }
    const sl__reading *b = &c->base[i];
    int scaled = 0;
    got[i] = sl_counter_scale(end.value - b->value, end.enabled - b->enabled,
                              end.running - b->running, &scaled);
    v->scaled |= scaled;
  }
  c->started = 0;
  v->instructions = got[SL__INSTRUCTIONS];
  v->cycles = got[SL__CYCLES];
  v->cache_misses = got[SL__CACHE_MISSES];
  return rc;
}

int sl_counters_counts_instructions(const sl_counters *c) {
  return c && c->fd[SL__INSTRUCTIONS] >= 0;
}

void sl_counters_close(sl_counters *c) {
  if (!c) return;
  for (int i = 0; i < SL__NCOUNTERS; ++i)
    if (c->fd[i] >= 0) close(c->fd[i]);
  free(c);
}

#else /* not Linux: no perf_event_open */

struct sl_counters {
  int unused;
};

int sl_counters_open(sl_counters **out, char *why, size_t whylen) {
  if (out) *out = NULL;
  sl__say(why, whylen, out ? "" : "sl_counters_open: out is NULL; ",
          "hardware counters need Linux's perf_event_open(2)");
  return -1;
}

int sl_counters_start(sl_counters *c) {
  (void)c;
  return -1;
}

int sl_counters_stop(sl_counters *c, sl_counter_values *v) {
  (void)c;
  if (v) {
    v->instructions = v->cycles = v->cache_misses = -1;
    v->scaled = 0;
  }
  return -1;
}

int sl_counters_counts_instructions(const sl_counters *c) {
  (void)c;
  return 0;
}

void sl_counters_close(sl_counters *c) { (void)c; }

#endif
