/*
 * A small test runner: CHECK records a failure with file:line and goes on;
 * main() returns non-zero when any check failed, 77 (CTest's skip code, set
 * as SKIP_RETURN_CODE) when a test calls SL_TEST_SKIP.
 */
#ifndef SL_TEST_H
#define SL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sl_test_failures;
static int sl_test_checks;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++sl_test_checks;                                                          \
    if (!(cond)) {                                                             \
      ++sl_test_failures;                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_MSG(cond, ...)                                                   \
  do {                                                                         \
    ++sl_test_checks;                                                          \
    if (!(cond)) {                                                             \
      ++sl_test_failures;                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* The message on ctx contains `needle`. */
#define CHECK_CONTAINS(hay, needle)                                            \
  CHECK_MSG(strstr((hay), (needle)) != NULL, "\"%s\" lacks \"%s\"", (hay),     \
            (needle))

#define SL_TEST_SKIP_CODE 77

/* A test's scratch folder and what it holds, removed (tests leave no
 * folders in /tmp behind them). */
static inline void sl_test_remove_dir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static inline int sl_test_finish(const char *name) {
  printf("%s: %d checks, %d failed\n", name, sl_test_checks, sl_test_failures);
  return sl_test_failures ? 1 : 0;
}

#endif
