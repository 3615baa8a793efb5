/*
 * SIGINT and SIGTERM: a command that writes results finishes the case in
 * hand, commits, prints its summary and exits with 128 + the signal (130,
 * 143), so an interrupted campaign loses nothing it had finished. A second
 * signal ends the process at once.
 */
#ifndef SL_INTERRUPT_H
#define SL_INTERRUPT_H

/* Installs the handlers (inherited by forked jobs). */
void sl_interrupt_install(void);
/* The signal received so far (SIGINT or SIGTERM), or 0. */
int sl_interrupted(void);
/* A run's last status in the store: "interrupted" once a signal came,
 * else "failed" or "finished". */
const char *sl_interrupt_run_status(int failed);
/* 128 + the signal received, or `otherwise` when none was. */
int sl_interrupt_exit_status(int otherwise);

#endif
