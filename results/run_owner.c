/*
 * Which process writes a run, and whether it is gone.
 *
 * A run stays 'running' when its process dies without finishing it (kill
 * -9, a CI timeout, the OOM killer, a power cut). The run records its
 * owner as "boot=<id> pidns=<inode> pid=<n> start=<ticks>": the kernel's
 * boot id and pid namespace say where the pid means something, the start
 * time (field 22 of /proc/PID/stat) tells the process from a later one
 * that got the same pid. A process of another boot, namespace or machine
 * cannot be looked at, so its runs are never judged: only a pid of this
 * boot and namespace that no longer exists, belongs to a younger process
 * or is a zombie makes its run gone (sl_store_open then marks the run
 * 'interrupted'; the reads show it so, read-only stores included).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store_internal.h"

/* The first line of path into buf, without its newline; 0 on success. */
static int sl__read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  int ok = fgets(buf, (int)n, f) != NULL;
  fclose(f);
  if (!ok) return -1;
  buf[strcspn(buf, "\n")] = '\0';
  return buf[0] ? 0 : -1;
}

/* The state letter and start time of process pid; 0 on success. The
 * command name (field 2) may hold spaces and parentheses, so the fields
 * are counted from the last ')'. */
static int sl__proc_stat(long long pid, char *state,
                         unsigned long long *start) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%lld/stat", pid);
  if (sl__read_line(path, line, sizeof line)) return -1;
  const char *p = strrchr(line, ')');
  if (!p) return -1;
  /* Fields 3 (state) to 22 (starttime): skip 18 between them. */
  int used = 0;
  if (sscanf(p + 1, " %c%n", state, &used) != 1) return -1;
  p += 1 + used;
  for (int field = 4; field < 22; ++field) {
    p = strchr(p + 1, ' ');
    if (!p) return -1;
  }
  return sscanf(p, " %llu", start) == 1 ? 0 : -1;
}

/* "boot=<id> pidns=<inode>": where this process's pids mean something. */
static int sl__scope_self(char *buf, size_t n) {
  char boot[64], ns[64];
  if (sl__read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot))
    return -1;
  ssize_t len = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
  if (len <= 0) return -1;
  ns[len] = '\0';
  unsigned long long inode = 0;
  if (sscanf(ns, "pid:[%llu]", &inode) != 1) return -1;
  snprintf(buf, n, "boot=%s pidns=%llu", boot, inode);
  return 0;
}

void sl__run_owner_self(char *buf, size_t n) {
  char scope[160], state;
  unsigned long long start = 0;
  long long pid = (long long)getpid();
  buf[0] = '\0';
  if (sl__scope_self(scope, sizeof scope) == 0 &&
      sl__proc_stat(pid, &state, &start) == 0)
    snprintf(buf, n, "%s pid=%lld start=%llu", scope, pid, start);
}

/* What can be said here of the process `owner` names. */
typedef enum { SL__OWNER_UNKNOWN, SL__OWNER_GONE, SL__OWNER_LIVE } sl__owner;

static sl__owner sl__owner_state(const char *owner, long long *pid) {
  char scope[160], state;
  unsigned long long start = 0, now = 0;
  *pid = 0;
  if (!owner || sl__scope_self(scope, sizeof scope)) return SL__OWNER_UNKNOWN;
  size_t k = strlen(scope);
  if (strncmp(owner, scope, k) != 0 || owner[k] != ' ')
    return SL__OWNER_UNKNOWN;
  if (sscanf(owner + k, " pid=%lld start=%llu", pid, &start) != 2 || *pid <= 0)
    return SL__OWNER_UNKNOWN;
  if (kill((pid_t)*pid, 0) != 0 && errno == ESRCH) return SL__OWNER_GONE;
  /* Alive, or a stat hidden from us (hidepid): only a readable one can
   * show a younger process or a zombie. */
  if (sl__proc_stat(*pid, &state, &now)) return SL__OWNER_UNKNOWN;
  return now != start || state == 'Z' ? SL__OWNER_GONE : SL__OWNER_LIVE;
}

int sl__run_owner_gone(const char *owner) {
  long long pid;
  return sl__owner_state(owner, &pid) == SL__OWNER_GONE;
}

const char *sl__run_status_seen(const char *status, const char *owner,
                                long long *live_pid) {
  long long pid = 0;
  const sl__owner st = status && strcmp(status, "running") == 0
                           ? sl__owner_state(owner, &pid)
                           : SL__OWNER_UNKNOWN;
  if (live_pid) *live_pid = st == SL__OWNER_LIVE ? pid : 0;
  if (!status) return "";
  return st == SL__OWNER_GONE ? "interrupted" : status;
}
