/* The command's side of the timing worker (bench_worker.h): forking it,
 * handing it requests, telling an answer from a death or a hang, and
 * replacing a worker a kernel killed. */
#include "bench_worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_worker_page.h"
#include "fd_hygiene.h"
#include "interrupt.h"
#include "stdio_capture.h"
#include "worker.h"

/* How long a worker may take to stop after the command was interrupted
 * (it stops at its next call), before it is killed. */
#define SL__BW_GRACE_S 3.0

struct sl_bench_worker {
  sl_bw_page *pg;
  sl_bw_setup setup;
  pid_t pid;
  int to_child, from_child;
  unsigned seq;
  int restarts;
  int opened; /* a case is open: built again in a fresh worker */
  int cases;  /* cases opened so far */
  uint64_t max_case_bytes;
  char line[SL_CASE_LINE_MAX];
  sl_capture out; /* the worker's stdout and stderr (stdio_capture.h) */
};

/* How a request ended. */
typedef enum sl__bw_end {
  SL__BW_ANSWERED,
  SL__BW_HUNG,
  SL__BW_DIED,
  SL__BW_INTERRUPTED
} sl__bw_end;

static int sl__spawn(sl_bench_worker *w, char *err, size_t errlen) {
  int req[2], ans[2];
  if (sl_pipe_cloexec(req)) {
    snprintf(err, errlen, "timing worker: cannot create pipes (%s)",
             strerror(errno));
    return -1;
  }
  if (sl_pipe_cloexec(ans)) {
    snprintf(err, errlen, "timing worker: cannot create pipes (%s)",
             strerror(errno));
    close(req[0]), close(req[1]);
    return -1;
  }
  fflush(NULL);
  const pid_t parent = getpid();
  /* The first request, answered once the worker is set up. */
  w->pg->req.kind = SL_BW_HELLO;
  w->pg->req.seq = ++w->seq;
  w->pg->answered = 0;
  w->pg->current = -1, w->pg->span = 1;
  w->pg->started = sl_now();
  const pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "timing worker: cannot fork (%s)", strerror(errno));
    close(req[0]), close(req[1]), close(ans[0]), close(ans[1]);
    return -1;
  }
  if (pid == 0) {
    close(req[1]);
    close(ans[0]);
    sl_capture_attach(&w->out);
    sl_bw_child_main(w->pg, &w->setup, (int)parent, req[0], ans[1]);
  }
  close(req[0]);
  close(ans[1]);
  w->pid = pid;
  w->to_child = req[1];
  w->from_child = ans[0];
  return 0;
}

/* Ends the worker (killed when force) and reaps it; its wait status. */
static int sl__reap(sl_bench_worker *w, int force) {
  int status = 0;
  if (w->pid <= 0) return 0;
  close(w->to_child);
  if (force) kill(w->pid, SIGKILL);
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(w->from_child);
  w->pid = -1;
  return status;
}

/* Waits for the answer to the request in hand. Bytes on the pipe only wake
 * the command; the answer is the page's (a kernel may write to the pipe). */
static sl__bw_end sl__await(sl_bench_worker *w) {
  double interrupted_at = 0;
  for (;;) {
    if (w->pg->answered == w->pg->req.seq) return SL__BW_ANSWERED;
    const double now = sl_now();
    if (sl_interrupted() && interrupted_at == 0) {
      /* A signal sent to the command alone (kill, a CI's time limit): the
       * worker stops at its next call, as the command would have. */
      interrupted_at = now;
      kill(w->pid, sl_interrupted());
    }
    const int span = w->pg->span > 1 ? w->pg->span : 1;
    double left = w->pg->started + w->setup.timeout_s * span - now;
    if (interrupted_at > 0 && interrupted_at + SL__BW_GRACE_S - now < left)
      left = interrupted_at + SL__BW_GRACE_S - now;
    if (left <= 0) return interrupted_at > 0 ? SL__BW_INTERRUPTED : SL__BW_HUNG;
    struct pollfd p = {w->from_child, POLLIN, 0};
    const int ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
    const int k = poll(&p, 1, ms);
    if (k < 0 && errno != EINTR) return SL__BW_DIED;
    if (k <= 0) continue;
    char bytes[64];
    const ssize_t got = read(w->from_child, bytes, sizeof bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return w->pg->answered == w->pg->req.seq ? SL__BW_ANSWERED : SL__BW_DIED;
  }
}

/* What the worker printed and did not hand over, said as `who`'s. */
static void sl__say(sl_bench_worker *w, const char *who) {
  static char said[8192];
  const size_t n = sl_capture_take(&w->out, said, sizeof said);
  sl_capture_report(&w->out, stderr, who, said, n);
}

/* What the worker printed during the request in hand: the contender that
 * died, when one did, else the request's contenders (the rounds interleave
 * them: which one printed is not known). */
static void sl__report_said(sl_bench_worker *w, int died) {
  static const char *const what[] = {
#define SL__BW_WHAT(e, text) "the timing worker (" text ")",
      SL_BW_REQUEST_MAP(SL__BW_WHAT)
#undef SL__BW_WHAT
  };
  const sl_bw_request *q = &w->pg->req;
  const int cur = w->pg->current;
  const int many = q->kind == SL_BW_AB ? 2 : q->kind == SL_BW_TIME ? q->n : 0;
  char who[SL_BW_MAX * (SL_VARIANT_NAME_LEN + 2) + 64] = "";
  size_t k = 0;
  for (int i = 0; i < many && i < SL_BW_MAX; ++i) {
    if (died && cur >= 0 && cur != i) continue;
    k += (size_t)snprintf(who + k, sizeof who - k, "%s%s", k ? " or " : "",
                          q->names[i][0] ? q->names[i] : "LibTorch");
    if (k >= sizeof who) break;
  }
  sl__say(w, who[0] ? who : what[q->kind]);
}

/* Sends the request on the page and waits. On a death or hang the worker
 * is reaped, *death (when not NULL) says how, and the next request forks a
 * fresh one. */
static sl__bw_end sl__request(sl_bench_worker *w, sl_bw_lost *death) {
  char err[512];
  if (w->pid <= 0) { /* a fresh worker: its start is a request too */
    static sl_bw_request saved;
    saved = w->pg->req;
    if (sl__spawn(w, err, sizeof err) == 0 && sl__await(w) != SL__BW_ANSWERED)
      sl__reap(w, 1);
    w->pg->req = saved;
  }
  if (w->pid <= 0) {
    if (death) {
      death->lost = 1;
      death->verdict = SL_VERDICT_CRASHED;
      snprintf(death->message, sizeof death->message,
               "the timing worker could not be started again");
    }
    return SL__BW_DIED;
  }
  w->pg->req.seq = ++w->seq;
  w->pg->current = -1, w->pg->span = 1;
  w->pg->started = sl_now();
  const char wake = 'R';
  sl__bw_end end =
      write(w->to_child, &wake, 1) == 1 ? sl__await(w) : SL__BW_DIED;
  const int status = end == SL__BW_ANSWERED ? 0 : sl__reap(w, 1);
  sl__report_said(w, end != SL__BW_ANSWERED);
  if (end == SL__BW_ANSWERED) return end;
  ++w->restarts;
  if (death) {
    death->lost = 1;
    death->verdict =
        end == SL__BW_HUNG ? SL_VERDICT_TIMEOUT : SL_VERDICT_CRASHED;
    if (end == SL__BW_HUNG)
      snprintf(death->message, sizeof death->message,
               "no answer within %.3g s; the timing worker was killed",
               w->setup.timeout_s);
    else
      sl_worker_describe_death(status, death->message, sizeof death->message);
  }
  return end;
}

int sl_bw_start(sl_bench_worker **out, const sl_bw_setup *s, sl_bw_info *info,
                char *err, size_t errlen) {
  signal(SIGPIPE, SIG_IGN); /* a dead worker must not kill the command */
  sl_bench_worker *w = calloc(1, sizeof *w);
  if (!w) {
    snprintf(err, errlen, "timing worker: out of memory");
    return -1;
  }
  w->pg = mmap(NULL, sizeof *w->pg, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (w->pg == MAP_FAILED) {
    snprintf(err, errlen, "timing worker: cannot map shared memory (%s)",
             strerror(errno));
    free(w);
    return -1;
  }
  w->setup = *s;
  sl_capture_open(&w->out);
  if (sl__spawn(w, err, errlen) || sl__await(w) != SL__BW_ANSWERED) {
    if (w->pid > 0) {
      sl__reap(w, 1);
      snprintf(err, errlen, "timing worker: died while starting");
    }
    sl_capture_close(&w->out);
    munmap(w->pg, sizeof *w->pg);
    free(w);
    return -1;
  }
  *info = w->pg->info;
  *out = w;
  return 0;
}

void sl_bw_stop(sl_bench_worker *w) {
  if (!w) return;
  sl__reap(w, 0);
  sl__say(w, "the timing worker, as it ended,");
  sl_capture_close(&w->out);
  munmap(w->pg, sizeof *w->pg);
  free(w);
}

int sl_bw_restarts(const sl_bench_worker *w) { return w->restarts; }

void sl_bw_probe(sl_bench_worker *w, int threads, double *gbs, double *rtt_ns) {
  w->pg->req.kind = SL_BW_PROBE;
  w->pg->req.threads = threads;
  const int ok = sl__request(w, NULL) == SL__BW_ANSWERED;
  *gbs = ok ? w->pg->gbs : 0;
  *rtt_ns = ok ? w->pg->rtt_ns : 0;
}

int sl_bw_device(sl_bench_worker *w, char *desc, size_t len, double *dev_gbs,
                 char *why, size_t whylen) {
  w->pg->req.kind = SL_BW_DEVICE;
  sl_bw_lost death = {0};
  if (sl__request(w, &death) != SL__BW_ANSWERED) {
    snprintf(why, whylen, "the device's probe killed the worker: %s",
             death.message);
    return -1;
  }
  if (w->pg->rc) {
    snprintf(why, whylen, "%s", w->pg->err);
    return -1;
  }
  snprintf(desc, len, "%s", w->pg->device);
  *dev_gbs = w->pg->dev_gbs;
  return 0;
}

/* Builds w->line in the worker; its answer on the page. */
static int sl__open(sl_bench_worker *w, sl_bw_lost *death, char *err,
                    size_t errlen) {
  w->pg->req.kind = SL_BW_OPEN;
  w->pg->req.max_case_bytes = w->max_case_bytes;
  snprintf(w->pg->req.line, sizeof w->pg->req.line, "%s", w->line);
  w->opened = 0;
  if (sl__request(w, death) != SL__BW_ANSWERED) {
    snprintf(err, errlen, "building the case killed the timing worker: %.400s",
             death->message);
    return -1;
  }
  if (w->pg->rc) {
    snprintf(err, errlen, "%s", w->pg->err);
    return -1;
  }
  w->opened = 1;
  return 0;
}

int sl_bw_open(sl_bench_worker *w, const char *line, uint64_t max_case_bytes,
               sl_bw_case *out, sl_bw_lost *death, char *err, size_t errlen) {
  memset(death, 0, sizeof *death);
  /* Every case in a fresh worker (the next request forks it): LibTorch's
   * outputs come from malloc, whose state the cases before left (glibc
   * raises its mmap threshold to the largest block freed and keeps freed
   * heap), so one f16 case's torch.cpu took 26 ms alone and 3.3 ms after
   * 17 others, its output faulted in afresh or not; a case's times must
   * not depend on its neighbours. */
  if (w->cases++ > 0 && w->pid > 0) {
    sl__reap(w, 0);
    sl__say(w, "the timing worker, as it ended,");
  }
  snprintf(w->line, sizeof w->line, "%s", line);
  w->max_case_bytes = max_case_bytes;
  if (sl__open(w, death, err, errlen)) return -1;
  *out = w->pg->bcase;
  return 0;
}

/* After a death: the open case built again in the fresh worker. */
static int sl__revive(sl_bench_worker *w, char *err, size_t errlen) {
  sl_bw_lost death = {0};
  return sl__open(w, &death, err, errlen);
}

/* A contender that wrote its inputs in the timing (the worker said where):
 * failed. */
static void sl__wrote(sl_bw_lost *lost, const char *why) {
  lost->lost = 1;
  lost->verdict = SL_VERDICT_FAILED;
  snprintf(lost->message, sizeof lost->message, "%s", why);
}

int sl_bw_time(sl_bench_worker *w, int device,
               const char (*names)[SL_VARIANT_NAME_LEN], int n,
               const sl_bw_timing *o, sl_timing *t, int *rc, char (*msg)[512],
               sl_bw_lost *death) {
  int left[SL_BW_MAX], m = 0; /* the contenders still to time */
  for (int i = 0; i < n && i < SL_BW_MAX; ++i) {
    rc[i] = 1, msg[i][0] = '\0', left[m++] = i;
    memset(&death[i], 0, sizeof death[i]);
  }
  while (m > 0) {
    sl_bw_request *q = &w->pg->req;
    q->kind = SL_BW_TIME;
    q->device = device;
    q->timing = *o;
    q->n = m;
    for (int k = 0; k < m; ++k)
      memcpy(q->names[k], names[left[k]], sizeof q->names[k]);
    sl_bw_lost d = {0};
    const sl__bw_end end = sl__request(w, &d);
    if (end == SL__BW_ANSWERED) {
      for (int k = 0; k < m; ++k) {
        rc[left[k]] = w->pg->trc[k];
        memcpy(msg[left[k]], w->pg->tmsg[k], sizeof msg[0]);
        t[left[k]] = w->pg->t[k];
        if (rc[left[k]] == SL_BW_WROTE_INPUTS)
          sl__wrote(&death[left[k]], msg[left[k]]);
      }
      return 0;
    }
    const int cur = w->pg->current;
    char err[512] = "";
    if (end == SL__BW_INTERRUPTED) return 0; /* the caller drops the case */
    if (cur >= 0 && cur < m) { /* that contender's doing: the rest again */
      death[left[cur]] = d;
      memmove(&left[cur], &left[cur + 1], sizeof *left * (size_t)(m - cur - 1));
      --m;
      if (m == 0 || sl__revive(w, err, sizeof err) == 0) continue;
    }
    for (int k = 0; k < m; ++k)
      snprintf(msg[left[k]], sizeof msg[0], "the timing worker died: %.400s",
               err[0] ? err : d.message);
    return 1;
  }
  return 0;
}

int sl_bw_ab(sl_bench_worker *w, const sl_bw_pair *p, sl_ab_result *r,
             char *why, size_t whylen, int *dead_arm, sl_bw_lost *death) {
  sl_bw_request *q = &w->pg->req;
  q->kind = SL_BW_AB;
  q->pair = *p;
  snprintf(q->names[0], sizeof q->names[0], "%s", p->base);
  snprintf(q->names[1], sizeof q->names[1], "%s", p->cand);
  *dead_arm = -1;
  memset(death, 0, sizeof *death);
  const sl__bw_end end = sl__request(w, death);
  if (end == SL__BW_ANSWERED) {
    *r = w->pg->ab;
    if (w->pg->rc) snprintf(why, whylen, "%s", w->pg->err);
    *dead_arm = w->pg->ab_wrote;
    if (*dead_arm >= 0) sl__wrote(death, w->pg->err);
    return w->pg->rc;
  }
  memset(r, 0, sizeof *r);
  if (end == SL__BW_INTERRUPTED) {
    snprintf(why, whylen, "interrupted");
    return -1;
  }
  const int cur = w->pg->current;
  *dead_arm = cur >= 0 && cur <= 2 ? cur : -1;
  snprintf(why, whylen, "%s", death->message);
  char err[512];
  if (w->opened && sl__revive(w, err, sizeof err))
    fprintf(stderr, "scatterlab: timing worker: %s\n", err);
  return -1;
}
