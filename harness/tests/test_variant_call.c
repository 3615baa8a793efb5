/*
 * A CPU variant's call (variant_call.h): its outputs poisoned between
 * guard bytes, a write into them named, a write past them a fault in the
 * writer (the output ends against a guard page), and an input made
 * contiguous for the variant ends against one too.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sl_test.h"
#include "variant_call.h"

/* The signal a child dies of when it writes p[at] (reads when !write). */
static int touch_dies(unsigned char *p, size_t at, int write) {
  const pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned char *q = p;
    if (write)
      q[at] = 1;
    else
      (void)q[at];
    _exit(0);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int main(void) {
  static float x[12]; /* 6 elements stepped by 2: made contiguous */
  static int64_t idx[5] = {5, 0, 0, 3, 1};
  const int64_t xs[1] = {6}, is[1] = {5};
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.arg[0] = sl_tensor_make(SL_F32, 1, xs, x);
  c.arg[0].strides[0] = 2;
  c.arg[1] = sl_tensor_make(SL_I64, 1, is, idx);
  c.p.dim = 0;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_infer(&ctx, &c) == SL_STATUS_OK);
  sl_variant_call vc;
  char note[128], msg[256];
  CHECK(sl_variant_call_prepare(&vc, &c, ~0u, note, sizeof note) == 0);
  CHECK_CONTAINS(note, "x (strided)");
  unsigned char *out = vc.call.arg[2].data;
  const size_t bytes = 5 * sizeof(float);
  CHECK(out[0] == SL_POISON_BYTE && out[bytes - 1] == SL_POISON_BYTE);
  CHECK(sl_variant_call_guards_ok(&vc, msg, sizeof msg));
  out[bytes] = 0x11;
  CHECK(!sl_variant_call_guards_ok(&vc, msg, sizeof msg));
  CHECK_CONTAINS(msg, "wrote outside its output out: byte 1 after its end");
  out[bytes] = SL_CPU_GUARD_BYTE;
  /* Past the guard bytes and the slack: the guard page. */
  const size_t past = (bytes + 2 * SL_CPU_GUARD + 15) / 16 * 16;
  CHECK(touch_dies(out - SL_CPU_GUARD, past, 1) == SIGSEGV);
  CHECK(touch_dies(out - SL_CPU_GUARD, past - 1, 1) == 0);
  /* The contiguous copy of x: 6 floats, 24 bytes, slack to 32. */
  unsigned char *copy = vc.call.arg[0].data;
  CHECK(copy != (unsigned char *)x && vc.call.arg[0].strides[0] == 1);
  CHECK(touch_dies(copy, 32, 0) == SIGSEGV);
  sl_variant_call_free(&vc);
  return sl_test_finish("test_variant_call");
}
