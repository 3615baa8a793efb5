/* Forked worker processes that run cases (see worker.h). */
#include "worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Messages from the worker: a tag byte, then a fixed-size payload. */
enum {
  SL_MSG_REFERENCE = 'R', /* no payload */
  SL_MSG_START = 'S',     /* char name[32] */
  SL_MSG_VERDICT = 'V',   /* sl_variant_result */
  SL_MSG_DONE = 'D',      /* sl_case_result header: line, ref_message */
  SL_MSG_ERROR = 'E'      /* char err[512] */
};

typedef struct sl_request {
  int skip;
  char variants[256]; /* filter for this case; empty = the worker's own */
  char line[SL_CASE_LINE_MAX];
} sl_request;

typedef struct sl_done {
  char line[SL_CASE_LINE_MAX];
  char ref_message[512];
} sl_done;

struct sl_worker {
  pid_t pid;
  int to_child;   /* requests */
  int from_child; /* messages */
  sl_run_opts opts;
  int restarts;
};

/* Writes all of buf; the worker and the parent both use it. */
static int sl__write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static int sl__send(int fd, char tag, const void *payload, size_t n) {
  if (sl__write_all(fd, &tag, 1)) return -1;
  return n ? sl__write_all(fd, payload, n) : 0;
}

/* The worker's side: the callbacks turn progress into messages. */
static void sl__child_event(void *user, sl_run_event ev, const char *name,
                            const sl_variant_result *r) {
  int fd = *(int *)user;
  if (ev == SL_EVENT_REFERENCE_DONE) {
    sl__send(fd, SL_MSG_REFERENCE, NULL, 0);
  } else if (ev == SL_EVENT_VARIANT_START) {
    char buf[32] = {0};
    snprintf(buf, sizeof buf, "%s", name);
    sl__send(fd, SL_MSG_START, buf, sizeof buf);
  } else {
    sl__send(fd, SL_MSG_VERDICT, r, sizeof *r);
  }
}

/* Reads exactly n bytes; 0 on success, -1 on EOF or error. */
static int sl__read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static void sl__child_loop(int in, int out, sl_run_opts o) {
  const char *base_variants = o.variants;
  o.on_event = sl__child_event;
  o.user = &out;
  static sl_request req;
  static sl_case_result res;
  while (sl__read_all(in, &req, sizeof req) == 0) {
    sl_case c;
    char err[512];
    o.skip = req.skip;
    o.variants = req.variants[0] ? req.variants : base_variants;
    if (sl_case_parse(req.line, &c, err, sizeof err) ||
        sl_run_case(&c, &o, &res, err, sizeof err)) {
      sl__send(out, SL_MSG_ERROR, err, sizeof err);
      continue;
    }
    sl_done d;
    memcpy(d.line, res.line, sizeof d.line);
    memcpy(d.ref_message, res.ref_message, sizeof d.ref_message);
    sl__send(out, SL_MSG_DONE, &d, sizeof d);
  }
  _exit(0);
}

static int sl__spawn(sl_worker *w, char *err, size_t errlen) {
  int req[2], msg[2];
  if (pipe(req) || pipe(msg)) {
    snprintf(err, errlen, "worker: cannot create pipes (%s)", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "worker: cannot fork (%s)", strerror(errno));
    close(req[0]), close(req[1]), close(msg[0]), close(msg[1]);
    return -1;
  }
  if (pid == 0) {
    close(req[1]);
    close(msg[0]);
    /* The parent handles interruption; the worker just finishes or dies. */
    signal(SIGINT, SIG_IGN);
    sl__child_loop(req[0], msg[1], w->opts);
  }
  close(req[0]);
  close(msg[1]);
  w->pid = pid;
  w->to_child = req[1];
  w->from_child = msg[0];
  return 0;
}

int sl_worker_start(sl_worker **out, const sl_run_opts *o, char *err,
                    size_t errlen) {
  /* A dead worker must not kill the parent with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  sl_worker *w = calloc(1, sizeof *w);
  if (!w) {
    snprintf(err, errlen, "worker: out of memory");
    return -1;
  }
  w->opts = *o;
  w->opts.on_event = NULL;
  w->opts.user = NULL;
  if (sl__spawn(w, err, errlen)) {
    free(w);
    return -1;
  }
  *out = w;
  return 0;
}

/* Ends the worker process (killed when `force`) and reaps it; returns its
 * wait status. */
static int sl__reap(sl_worker *w, int force) {
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

void sl_worker_stop(sl_worker *w) {
  if (!w) return;
  sl__reap(w, 0);
  free(w);
}

int sl_worker_restarts(const sl_worker *w) { return w->restarts; }

static double sl__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for readable data until `deadline`; 1 readable, 0 timed out. */
static int sl__wait(int fd, double deadline) {
  for (;;) {
    double left = deadline - sl__now();
    if (left <= 0) return 0;
    struct pollfd p = {fd, POLLIN, 0};
    int ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
    int k = poll(&p, 1, ms);
    if (k > 0) return 1;
    if (k < 0 && errno != EINTR) return 1; /* let the read report it */
  }
}

static void sl__describe_death(int status, char *buf, size_t len) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    snprintf(buf, len, "worker killed by signal %d (%s)", sig, strsignal(sig));
  } else if (WIFEXITED(status)) {
    snprintf(buf, len, "worker exited with status %d", WEXITSTATUS(status));
  } else {
    snprintf(buf, len, "worker died");
  }
}

int sl_worker_run(sl_worker *w, const sl_case *c, double timeout_s,
                  sl_case_result *res, char *err, size_t errlen) {
  return sl_worker_run_variants(w, c, NULL, timeout_s, res, err, errlen);
}

int sl_worker_run_variants(sl_worker *w, const sl_case *c,
                           const char *variants, double timeout_s,
                           sl_case_result *res, char *err, size_t errlen) {
  static sl_request req;
  memset(res, 0, sizeof *res);
  snprintf(req.variants, sizeof req.variants, "%s", variants ? variants : "");
  sl_case_print(c, req.line, sizeof req.line);
  snprintf(res->line, sizeof res->line, "%s", req.line);
  int done_variants = 0; /* selected variants finished, incl. crashed ones */
  for (int attempt = 0; attempt <= SL_MAX_VERDICTS; ++attempt) {
    if (w->pid <= 0 && sl__spawn(w, err, errlen)) return -1;
    req.skip = done_variants;
    if (sl__write_all(w->to_child, &req, sizeof req)) {
      sl__reap(w, 1);
      ++w->restarts;
      continue;
    }
    char current[32] = "reference";
    double deadline = sl__now() + timeout_s;
    for (;;) {
      char tag;
      if (!sl__wait(w->from_child, deadline)) {
        /* Hung: the variant in flight (or the reference) gets `timeout`. */
        sl__reap(w, 1);
        ++w->restarts;
        sl_variant_result *r = &res->v[res->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->variant, sizeof r->variant, "%s", current);
        r->verdict = SL_VERDICT_TIMEOUT;
        r->seconds = timeout_s;
        snprintf(r->message, sizeof r->message,
                 "no answer within %.3g s; worker killed", timeout_s);
        ++res->failures;
        break;
      }
      if (sl__read_all(w->from_child, &tag, 1)) {
        /* Crashed: the worker is gone in the middle of `current`. */
        int status = sl__reap(w, 1);
        ++w->restarts;
        sl_variant_result *r = &res->v[res->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->variant, sizeof r->variant, "%s", current);
        r->verdict = SL_VERDICT_CRASHED;
        r->seconds = -1;
        sl__describe_death(status, r->message, sizeof r->message);
        ++res->failures;
        break;
      }
      if (tag == SL_MSG_REFERENCE) {
        deadline = sl__now() + timeout_s;
      } else if (tag == SL_MSG_START) {
        if (sl__read_all(w->from_child, current, sizeof current)) continue;
        current[sizeof current - 1] = '\0';
        deadline = sl__now() + timeout_s;
      } else if (tag == SL_MSG_VERDICT) {
        sl_variant_result r;
        if (sl__read_all(w->from_child, &r, sizeof r)) continue;
        if (res->n < SL_MAX_VERDICTS) res->v[res->n++] = r;
        if (sl_verdict_is_failure(r.verdict)) ++res->failures;
        ++done_variants;
      } else if (tag == SL_MSG_DONE) {
        sl_done d;
        if (sl__read_all(w->from_child, &d, sizeof d)) continue;
        memcpy(res->line, d.line, sizeof d.line);
        memcpy(res->ref_message, d.ref_message, sizeof d.ref_message);
        return 0;
      } else if (tag == SL_MSG_ERROR) {
        char e[512];
        if (sl__read_all(w->from_child, e, sizeof e)) continue;
        e[sizeof e - 1] = '\0';
        snprintf(err, errlen, "%s", e);
        return -1;
      }
    }
    /* A crash or hang before any variant ran is the reference's (or the
     * generator's): the case cannot go on. */
    if (strcmp(current, "reference") == 0) return 0;
    ++done_variants; /* the crashed variant; resume after it */
  }
  return 0;
}
