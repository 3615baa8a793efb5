/* Interruption by SIGINT / SIGTERM: record it, let the loops stop. */
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t sl__signal;

static void sl__on_signal(int sig) {
  if (sl__signal) { /* the second one: the user insists */
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  sl__signal = sig;
}

void sl_interrupt_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = sl__on_signal;
  sigemptyset(&sa.sa_mask);
  /* No SA_RESTART: a blocking wait returns EINTR and its loop looks at the
   * flag. */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int sl_interrupted(void) { return (int)sl__signal; }

const char *sl_interrupt_run_status(int failed) {
  return sl__signal ? "interrupted" : failed ? "failed" : "finished";
}

int sl_interrupt_exit_status(int otherwise) {
  return sl__signal ? 128 + (int)sl__signal : otherwise;
}
