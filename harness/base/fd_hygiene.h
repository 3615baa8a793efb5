/*
 * Descriptors and the processes that run kernels. Every descriptor the
 * harness opens is close-on-exec; a forked process that runs kernels (the
 * worker: fork() without exec, where close-on-exec does nothing) closes
 * every descriptor it was not handed on purpose, so that no kernel can
 * write to the store, its -wal and -shm files or a run's lock (a log line
 * to fd 3 once wiped a whole store).
 */
#ifndef SL_FD_HYGIENE_H
#define SL_FD_HYGIENE_H

/* pipe(2) with both ends close-on-exec. 0, or -1 with errno. */
int sl_pipe_cloexec(int fd[2]);

/* Closes every descriptor from 3 up but the n in keep (stdin, stdout and
 * stderr stay: they are the user's). */
void sl_close_fds_except(const int *keep, int n);

#endif
