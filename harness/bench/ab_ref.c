/*
 * `scatterlab ab --base-ref GITREF`: the base commit's kernels library,
 * built once into a cache and reused (ab_ref.h).
 *
 * The base is checked out as a git worktree of the repository the command
 * runs in (else of the one this scatterlab was built from) under
 * <cache>/ab/<commit>-<key>/src (ab_cache.h: the key is this build's
 * options, the entry is checked before its library is loaded), configured
 * with this build's own options (generator, build type, compilers, flags,
 * reference, CUDA: sl_ab_build.h) and built for one target,
 * scatterlab_kernels. Commands run without a shell: the ref is only ever an
 * argument of git.
 */
#include "ab_ref.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab_cache.h"
#include "fd_hygiene.h"
#include "sl_ab_build.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif

enum { SL__MAX_ARGV = 40 };

/* Runs argv (PATH lookup); stdout into out (NUL-terminated, trailing
 * newlines cut) when out is not NULL, else stdout and stderr appended to
 * log (or /dev/null). Returns the exit status, or -1 when it did not run. */
static int sl__exec(char *const argv[], char *out, size_t len,
                    const char *log) {
  int fd[2] = {-1, -1};
  if (out && sl_pipe_cloexec(fd) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    if (out) close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    int sink =
        open(log ? log : "/dev/null",
             O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out) {
      dup2(fd[1], 1);
      close(fd[0]);
      close(fd[1]);
    } else if (sink >= 0) {
      dup2(sink, 1);
    }
    if (sink >= 0) dup2(sink, 2);
    execvp(argv[0], argv);
    _exit(127);
  }
  size_t got = 0;
  if (out) {
    close(fd[1]);
    ssize_t k;
    while ((k = read(fd[0], out + got, len - 1 - got)) > 0 ||
           (k < 0 && errno == EINTR))
      if (k > 0) got += (size_t)k;
    close(fd[0]);
    out[got] = '\0';
    while (got && (out[got - 1] == '\n' || out[got - 1] == '\r'))
      out[--got] = '\0';
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The cache root: SCATTERLAB_CACHE, $XDG_CACHE_HOME/scatterlab or
 * ~/.cache/scatterlab. */
static int sl__cache_root(char *out, size_t len, char *err, size_t errlen) {
  const char *c = getenv("SCATTERLAB_CACHE");
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (c && *c)
    snprintf(out, len, "%s", c);
  else if (x && *x == '/')
    snprintf(out, len, "%s/scatterlab", x);
  else if (h && *h == '/')
    snprintf(out, len, "%s/.cache/scatterlab", h);
  else {
    snprintf(err, errlen, "no cache folder: set SCATTERLAB_CACHE or HOME");
    return -1;
  }
  return 0;
}

int sl_ab_build_ref(const char *ref, char *lib, size_t len, char *err,
                    size_t errlen) {
  if (!ref || !*ref || ref[0] == '-') {
    snprintf(err, errlen, "--base-ref: expected a git revision, got \"%s\"",
             ref ? ref : "");
    return -1;
  }
  /* The repository: the one the command runs in, else the build's. */
  char top[4096];
  char *show[] = {"git", "rev-parse", "--show-toplevel", NULL};
  if (sl__exec(show, top, sizeof top, NULL) != 0 || !top[0])
    snprintf(top, sizeof top, "%s", SL_SOURCE_DIR);
  char rev[512], sha[128];
  snprintf(rev, sizeof rev, "%s^{commit}", ref);
  char *parse[] = {"git",      "-C",      top, "rev-parse",
                   "--verify", "--quiet", rev, NULL};
  if (sl__exec(parse, sha, sizeof sha, NULL) != 0 || strlen(sha) < 40) {
    snprintf(err, errlen,
             "--base-ref %s: expected a commit of the git repository %s, "
             "git knows none",
             ref, top);
    return -1;
  }
  char root[4096], dir[4400], src[4500], build[4500], log[4500], lk[4500];
  char built[4600], why[8400];
  if (sl__cache_root(root, sizeof root, err, errlen) ||
      sl_ab_cache_entry(root, sha, dir, sizeof dir, err, errlen))
    return -1;
  snprintf(src, sizeof src, "%s/src", dir);
  snprintf(build, sizeof build, "%s/build", dir);
  snprintf(log, sizeof log, "%s/build.log", dir);
  snprintf(lk, sizeof lk, "%s/lock", dir);
  snprintf(built, sizeof built, "%s/" SL_KERNELS_SONAME, build);
  /* One builder per commit at a time; the others wait, then reuse. */
  int lock = open(lk, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    snprintf(err, errlen, "cannot lock %s (%s)", lk, strerror(errno));
    if (lock >= 0) close(lock);
    return -1;
  }
  int rc = 0;
  struct stat sb;
  if (sl_ab_cache_lookup(dir, lib, len, why, sizeof why) == 1) {
    fprintf(stderr, "base: %.12s, built before (%s)\n", sha, dir);
    goto out;
  }
  if (why[0]) fprintf(stderr, "base: %s; building it again\n", why);
  fprintf(stderr, "base: building the kernels of %.12s in %s (log: %s)\n", sha,
          dir, log);
  if (lstat(src, &sb) != 0) {
    char *add[] = {"git",      "-C",      top, "worktree", "add",
                   "--detach", "--force", src, sha,        NULL};
    if (sl__exec(add, NULL, 0, log) != 0) {
      snprintf(err, errlen, "--base-ref %s: git worktree add failed (see %s)",
               ref, log);
      rc = -1;
      goto out;
    }
  }
  char *conf[SL__MAX_ARGV] = {"cmake",           "-S", src, "-B", build, "-G",
                              SL_BUILD_GENERATOR};
  int n = 7;
  static char opts[] = SL_BUILD_OPTIONS;
  for (char *save = NULL, *o = strtok_r(opts, "\n", &save);
       o && n < SL__MAX_ARGV - 1; o = strtok_r(NULL, "\n", &save))
    conf[n++] = o;
  conf[n] = NULL;
  char *make[] = {"cmake", "--build", build, "--target", "scatterlab_kernels",
                  NULL};
  if (sl__exec(conf, NULL, 0, log) != 0 || sl__exec(make, NULL, 0, log) != 0 ||
      lstat(built, &sb) != 0) {
    snprintf(err, errlen,
             "--base-ref %s: building the base's kernels library failed (see "
             "%s; a commit from before the kernels library has no target "
             "scatterlab_kernels)",
             ref, log);
    rc = -1;
  } else {
    rc = sl_ab_cache_store(dir, built, lib, len, err, errlen);
  }
out:
  flock(lock, LOCK_UN);
  close(lock);
  return rc;
}
