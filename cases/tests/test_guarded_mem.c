/* Buffers against a guard page (guarded_mem.h): zeroed, 16-byte aligned,
 * the slack past the end poison, the first byte past the slack a fault,
 * every time, for fresh and reused buffers; sl_bundle_adopt copies into
 * one. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datagen.h"
#include "guarded_mem.h"
#include "sl_test.h"

/* The signal a child dies of when it reads p[at]; 0 when it survives. */
static int read_dies(const unsigned char *p, size_t at) {
  const pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned char v = p[at];
    (void)v;
    _exit(0);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void one_size(size_t bytes) {
  unsigned char *p = sl_guarded_calloc(bytes);
  CHECK_MSG(p != NULL, "%zu bytes", bytes);
  if (!p) return;
  CHECK_MSG((uintptr_t)p % 16 == 0, "%zu bytes: %p", bytes, (void *)p);
  size_t zero = 0;
  for (size_t i = 0; i < bytes; ++i) zero += p[i] == 0;
  CHECK_MSG(zero == bytes, "%zu bytes: %zu zero", bytes, zero);
  const size_t end = (bytes + 15) & ~(size_t)15;
  for (size_t i = bytes; i < end; ++i)
    CHECK_MSG(p[i] == SL_GUARDED_SLACK_BYTE, "%zu bytes: slack %zu", bytes, i);
  CHECK_MSG(read_dies(p, end) == SIGSEGV, "%zu bytes: read at %zu", bytes, end);
  if (bytes) CHECK(read_dies(p, bytes - 1) == 0);
  memset(p, 0x5c, bytes); /* dirty: a reused buffer must come back zeroed */
  sl_guarded_free(p);
}

int main(void) {
  const size_t sizes[] = {0, 1, 8, 15, 16, 17, 4000, 4064, 4065, 4096, 100000};
  for (int round = 0; round < 2; ++round) /* the second reuses the first's */
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k)
      one_size(sizes[k]);
  sl_guarded_free(NULL);
  /* A head written over (a kernel far before an output) is left alone:
   * p's head made to name q's mapping, with a stale check word, unmaps
   * nothing of q's. */
  unsigned char *p = sl_guarded_calloc(100), *q = sl_guarded_calloc(100);
  memcpy(p - 24, q - 24, 16); /* base and length, not the check */
  sl_guarded_free(p);
  unsigned char *more[20];
  int shared = 0;
  for (int k = 0; k < 20; ++k)
    shared += (more[k] = sl_guarded_calloc(100)) == q;
  CHECK_MSG(shared == 0, "q's mapping handed out again %d times", shared);
  for (int k = 0; k < 20; ++k) sl_guarded_free(more[k]);
  CHECK(read_dies(q, 0) == 0);
  sl_guarded_free(q);
  /* A tensor adopted into a bundle lands against a guard page. */
  sl_bundle b;
  sl_bundle_init(&b, SL_OP_GATHER);
  const int64_t three = 3;
  float *data = malloc(3 * sizeof *data);
  data[0] = 1, data[1] = 2, data[2] = 3;
  char err[128];
  CHECK(sl_bundle_adopt(&b, 0, sl_tensor_make(SL_F32, 1, &three, data), err,
                        sizeof err) == 0);
  const float *got = b.call.arg[0].data;
  CHECK(got == b.mem[0] && b.bytes[0] == 12 && got[2] == 3.0f);
  CHECK(read_dies(b.mem[0], 16) == SIGSEGV);
  sl_bundle_free(&b);
  return sl_test_finish("test_guarded_mem");
}
