/* The lock of a fuzz run and the jobs' parent-death signal (run_lock.h). */
#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static int sl__lock_path(const char *db, int64_t run_id, char *path, size_t n) {
  return snprintf(path, n, "%s.run%lld.lock", db, (long long)run_id) >= (int)n
             ? -1
             : 0;
}

int sl_run_lock(const char *db, int64_t run_id, int *fd, char *err,
                size_t errlen) {
  char path[4200];
  *fd = -1;
  if (sl__lock_path(db, run_id, path, sizeof path)) {
    snprintf(err, errlen,
             "%.64s...: expected a store path of at most %zu "
             "bytes, got a longer one",
             db, sizeof path - 32);
    return -1;
  }
  /* The holder removes the file when it is done: a lock taken on a file
   * that was removed meanwhile guards nothing, so take it again. */
  for (int attempt = 0; attempt < 8; ++attempt) {
    int f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (f < 0) {
      snprintf(err, errlen, "%s: cannot open the run's lock file (%s)", path,
               strerror(errno));
      return -1;
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      close(f);
      if (e == EWOULDBLOCK)
        snprintf(err, errlen,
                 "run %lld of %s is still being written: a process of its "
                 "campaign (the command, a job or a worker) holds %s; "
                 "expected a run whose processes have all ended",
                 (long long)run_id, db, path);
      else
        snprintf(err, errlen, "%s: cannot lock (%s)", path, strerror(e));
      return -1;
    }
    struct stat held, now;
    if (fstat(f, &held) == 0 && stat(path, &now) == 0 &&
        held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
      *fd = f;
      return 0;
    }
    close(f);
  }
  snprintf(err, errlen, "%s: the lock file kept being replaced", path);
  return -1;
}

void sl_run_unlock(const char *db, int64_t run_id, int fd) {
  char path[4200];
  if (fd < 0) return;
  if (sl__lock_path(db, run_id, path, sizeof path) == 0) unlink(path);
  close(fd);
}

void sl_die_with_parent(int parent_pid) {
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  /* The parent may have died before the call above took effect. */
  if (getppid() != parent_pid) _exit(137);
}
