/*
 * The hardware counters (perf_counters.h). Argument checks and the scaling
 * arithmetic run everywhere. The counting checks need hardware counters:
 * where sl_counters_open refuses (a VM without a PMU, perf_event_paranoid,
 * a seccomp filter) the test prints the reason, checks that it names one,
 * and exits 77 (skipped, SKIP_RETURN_CODE) rather than calling the counting
 * checks passed.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "perf_counters.h"
#include "sl_test.h"

/* Iterations of the counted loop: large enough that the few hundred
 * instructions of the ioctls around it are noise. */
#define SL_SPIN_N 10000000L

/* A loop that cannot be folded away: every iteration loads and stores the
 * volatile accumulator, so it retires at least one instruction per
 * iteration whatever the optimizer does. */
static long spin(long n) {
  volatile long acc = 0;
  for (long i = 0; i < n; ++i) acc += i;
  return acc;
}

static void *spin_thread(void *arg) {
  (void)spin(*(const long *)arg);
  return NULL;
}

static int all_unavailable(const sl_counter_values *v) {
  return v->instructions == -1 && v->cycles == -1 && v->cache_misses == -1 &&
         v->scaled == 0;
}

static void test_arguments(void) {
  char why[256];
  CHECK(sl_counters_open(NULL, why, sizeof why) == -1);
  CHECK_CONTAINS(why, "out is NULL");
  CHECK(sl_counters_open(NULL, NULL, 0) == -1);
  CHECK(sl_counters_start(NULL) == -1);
  sl_counter_values v = {1, 2, 3, 1};
  CHECK(sl_counters_stop(NULL, &v) == -1);
  CHECK(all_unavailable(&v));
  CHECK(sl_counters_stop(NULL, NULL) == -1);
  sl_counters_close(NULL);
}

static void test_scale(void) {
  int scaled = -1;
  CHECK(sl_counter_scale(100, 10, 10, &scaled) == 100 && scaled == 0);
  CHECK(sl_counter_scale(100, 20, 10, &scaled) == 200 && scaled == 1);
  CHECK(sl_counter_scale(1, 3, 2, &scaled) == 2 && scaled == 1); /* 1.5 */
  CHECK(sl_counter_scale(5, 10, 0, &scaled) == -1 && scaled == 0);
  CHECK(sl_counter_scale(0, 0, 0, NULL) == -1);
  /* count * enabled does not fit 64 bits; the estimate does. */
  CHECK(sl_counter_scale(UINT64_C(1) << 40, UINT64_C(3) << 30,
                         UINT64_C(1) << 30, NULL) == (INT64_C(3) << 40));
  CHECK(sl_counter_scale(UINT64_MAX, 2, 1, NULL) == INT64_MAX);
}

/* The refusal line names perf_event_open and a cause. */
static int names_cause(const char *why) {
  static const char *const causes[] = {
      "ENOENT", "EOPNOTSUPP", "ENODEV", "EACCES", "EPERM",  "ENOSYS",
      "EINVAL", "E2BIG",      "EBUSY",  "EMFILE", "ENFILE", "errno"};
  if (!strstr(why, "perf_event_open(")) return 0;
  for (size_t i = 0; i < sizeof causes / sizeof causes[0]; ++i)
    if (strstr(why, causes[i])) return 1;
  return 0;
}

/* Counts spin(n), in the calling thread or in a thread created for it. */
static int measure(sl_counters *c, long n, int in_thread,
                   sl_counter_values *v) {
  if (sl_counters_start(c) != 0) return -1;
  if (in_thread) {
    pthread_t t;
    if (pthread_create(&t, NULL, spin_thread, &n) != 0) {
      sl_counters_stop(c, v);
      return -1;
    }
    pthread_join(t, NULL);
  } else {
    (void)spin(n);
  }
  return sl_counters_stop(c, v);
}

static double ratio(int64_t a, int64_t b) { return (double)a / (double)b; }

/* The counting checks; returns 1 when they were skipped (the instructions
 * counter did not open: why names it), 0 when they ran. A counter that
 * opened and then reads -1 fails (a missing ENABLE reads so). */
static int test_counting(sl_counters *c, const char *why) {
  const long n = SL_SPIN_N;
  sl_counter_values a, b, t;
  CHECK(measure(c, n, 0, &a) == 0);
  printf("test_perf_counters: %ld iterations: instructions %lld, cycles "
         "%lld, cache misses %lld%s\n",
         n, (long long)a.instructions, (long long)a.cycles,
         (long long)a.cache_misses, a.scaled ? " (scaled)" : "");
  if (strstr(why, "perf_event_open(instructions)")) {
    printf("test_perf_counters: no instructions counter: counting checks "
           "SKIPPED\n");
    return 1;
  }
  CHECK_MSG(a.instructions >= n, "%lld instructions for %ld iterations",
            (long long)a.instructions, n);
  if (strstr(why, "perf_event_open(cycles)"))
    printf("test_perf_counters: no cycles counter: its check SKIPPED\n");
  else
    CHECK_MSG(a.cycles > 0, "cycles %lld", (long long)a.cycles);
  CHECK(a.cache_misses >= -1);
  CHECK(a.scaled == 0 || a.scaled == 1);

  /* Four times the work, four times the instructions. */
  CHECK(measure(c, 4 * n, 0, &b) == 0);
  CHECK_MSG(ratio(b.instructions, a.instructions) >= 3 &&
                ratio(b.instructions, a.instructions) <= 5,
            "4x the loop: %lld vs %lld instructions", (long long)b.instructions,
            (long long)a.instructions);

  /* Each window starts from zero, not from the last one's total. */
  CHECK(measure(c, n, 0, &b) == 0);
  CHECK_MSG(ratio(b.instructions, a.instructions) >= 0.8 &&
                ratio(b.instructions, a.instructions) <= 1.25,
            "the same loop again: %lld vs %lld instructions",
            (long long)b.instructions, (long long)a.instructions);

  /*
   * A thread created after the open is counted (inherit), and once it has
   * exited its counts stay out of later windows: the kernel hands them back
   * to the opened counter, where RESET does not clear them. Twice: the first
   * thread may swap perf contexts with the caller (the kernel's context
   * switch optimization) and leave its counts where RESET does clear them.
   * The pause: the joiner wakes before the kernel hands the thread's counts
   * back, and a RESET that still finds the thread alive zeroes them, so
   * without it the check would pass by luck of timing.
   */
  for (int round = 0; round < 2; ++round) {
    CHECK(measure(c, 4 * n, 1, &t) == 0);
    CHECK_MSG(t.instructions >= 4 * n, "%lld instructions for %ld in a thread",
              (long long)t.instructions, 4 * n);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK(measure(c, n, 0, &b) == 0);
    CHECK_MSG(ratio(b.instructions, a.instructions) >= 0.8 &&
                  ratio(b.instructions, a.instructions) <= 1.25,
              "after thread %d: %lld vs %lld instructions", round + 1,
              (long long)b.instructions, (long long)a.instructions);
  }

  /* stop without a window, and a NULL v, are errors. */
  sl_counter_values v = {1, 2, 3, 1};
  CHECK(sl_counters_stop(c, &v) == -1);
  CHECK(all_unavailable(&v));
  CHECK(sl_counters_stop(c, NULL) == -1);
  return 0;
}

int main(void) {
  test_arguments();
  test_scale();

  /* Opened before any thread exists, as perf_counters.h asks. */
  char why[512];
  sl_counters *c = (sl_counters *)&why; /* must be set to NULL on failure */
  if (sl_counters_open(&c, why, sizeof why) != 0) {
    printf("test_perf_counters: counters refused: %s\n", why);
    CHECK(c == NULL);
    CHECK(why[0] != '\0');
    CHECK_MSG(names_cause(why), "\"%s\" names no cause", why);
    int rc = sl_test_finish("test_perf_counters");
    if (rc) return rc;
    printf("test_perf_counters: counting checks SKIPPED (no counters)\n");
    return SL_TEST_SKIP_CODE;
  }
  CHECK(c != NULL);
  if (why[0]) printf("test_perf_counters: partly available: %s\n", why);
  int skipped = test_counting(c, why);
  sl_counters_close(c);
  int rc = sl_test_finish("test_perf_counters");
  return rc ? rc : skipped ? SL_TEST_SKIP_CODE : 0;
}
