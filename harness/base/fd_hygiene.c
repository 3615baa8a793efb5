/* Close-on-exec pipes and a forked child's clean slate (fd_hygiene.h). */
#define _GNU_SOURCE /* pipe2 */
#include "fd_hygiene.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int sl_pipe_cloexec(int fd[2]) { return pipe2(fd, O_CLOEXEC); }

/* Closes [lo, hi]: close_range where the kernel has it (Linux 5.9), else
 * one at a time up to the descriptor limit. */
static void sl__close_span(unsigned lo, unsigned hi) {
  if (lo > hi) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, lo, hi, 0) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > (1L << 20)) max = 1L << 20;
  for (unsigned long fd = lo; fd <= hi && fd < (unsigned long)max; ++fd)
    close((int)fd);
}

static int sl__cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void sl_close_fds_except(const int *keep, int n) {
  int sorted[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; ++i) sorted[i] = keep[i];
  qsort(sorted, (size_t)n, sizeof *sorted, sl__cmp_int);
  unsigned from = 3;
  for (int i = 0; i < n; ++i) {
    if (sorted[i] < (int)from) continue;
    sl__close_span(from, (unsigned)sorted[i] - 1);
    from = (unsigned)sorted[i] + 1;
  }
  sl__close_span(from, ~0U);
}
