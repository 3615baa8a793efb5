/*
 * Counts the threads the process starts, for tests that a kernel call draws
 * on OpenMP's pool instead of starting threads of its own (a nested team
 * does: libgomp starts it on new threads every call, which cost about
 * 150 us and were still exiting when the call returned, so the fuzz
 * worker's guard saw threads left running).
 *
 * It defines pthread_create, which the executable's own definition makes
 * the one libgomp calls: include it first (it needs _GNU_SOURCE for
 * RTLD_NEXT), and in one file of a test only. The sanitizers intercept
 * pthread_create themselves, so under them nothing is counted.
 */
#ifndef SL_THREAD_STARTS_H
#define SL_THREAD_STARTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SL_TEST_COUNTS_THREADS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SL_TEST_COUNTS_THREADS 0
#endif
#endif
#ifndef SL_TEST_COUNTS_THREADS
#define SL_TEST_COUNTS_THREADS 1
#endif

#if SL_TEST_COUNTS_THREADS
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static int sl_test_thread_start_count;

typedef int (*sl_test_pthread_create_fn)(pthread_t *, const pthread_attr_t *,
                                         void *(*)(void *), void *);

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg) {
  static sl_test_pthread_create_fn real;
  if (!real) {
    /* dlsym's object pointer to a function pointer, the way POSIX allows */
    void *found = dlsym(RTLD_NEXT, "pthread_create");
    memcpy(&real, &found, sizeof real);
  }
  __atomic_add_fetch(&sl_test_thread_start_count, 1, __ATOMIC_RELAXED);
  return real(thread, attr, start, arg);
}
#endif

/* The threads started so far, or -1 where they are not counted. */
static inline int sl_test_thread_starts(void) {
#if SL_TEST_COUNTS_THREADS
  return __atomic_load_n(&sl_test_thread_start_count, __ATOMIC_RELAXED);
#else
  return -1;
#endif
}

#endif
