/*
 * The lock of a fuzz run being written: DB.run<ID>.lock beside the store,
 * held with flock(LOCK_EX) by the campaign from before it forks its jobs.
 * The jobs inherit the open file (fork shares the open file description,
 * and with it the lock), so the lock is free only once the last job has
 * ended, however each one ended; their workers close it (no kernel may
 * write to it: fd_hygiene.h) and die with their job. A
 * --resume takes the lock first and refuses while it is held: two sets of
 * jobs on one run would both take its cursors' cases.
 */
#ifndef SL_RUN_LOCK_H
#define SL_RUN_LOCK_H

#include <stddef.h>
#include <stdint.h>

/* Takes the lock of run_id in the store at db; *fd holds it. 0, or -1 with
 * err naming the lock file and why (another live process holds it). */
int sl_run_lock(const char *db, int64_t run_id, int *fd, char *err,
                size_t errlen);

/* Releases it once the campaign's processes have ended (removes the file;
 * a lock file left by a killed campaign is harmless and reused). */
void sl_run_unlock(const char *db, int64_t run_id, int fd);

/* In a forked job or worker: SIGKILL when the parent dies (Linux
 * PR_SET_PDEATHSIG), at once if it died already. A campaign killed with -9
 * takes its jobs and workers with it instead of leaving them writing. */
void sl_die_with_parent(int parent_pid);

#endif /* SL_RUN_LOCK_H */
