/*
 * Forked worker processes that run cases (see worker.h).
 *
 * The worker reports progress through a page of memory shared with the
 * parent (mapped before the fork): which variant is running and since when,
 * and every verdict as soon as it is known. That costs no system call, so a
 * case needs one wake-up of the parent (the end-of-case byte on the pipe)
 * however many variants it has; and when the worker dies, what it wrote to
 * the shared page survives it, so the parent knows which variant crashed.
 */
#include "worker.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_exit.h"
#include "clean_text.h"
#include "crash_state.h"
#include "datagen.h"
#include "fd_hygiene.h"
#include "providers.h"
#include "run_lock.h"
#include "runinfo.h"
#include "slref.h"
#include "stdio_capture.h"
#include "worker_guard.h"

/* End-of-case bytes on the pipe. */
enum { SL_MSG_DONE = 'D', SL_MSG_ERROR = 'E' };

typedef struct sl_request {
  unsigned seq; /* answered in sl_shared.answered */
  int skip;
  /* filter for this case; empty = the worker's own (ab's lists every
   * pair's two names) */
  char variants[4096];
  char save_dir[1024]; /* --save for this case; empty = the worker's own */
  int show;            /* write the case's tensors into sl_shared.shown */
  char line[SL_CASE_LINE_MAX];
} sl_request;

/* The shared page. The worker writes, the parent reads after the worker
 * has answered or died; `started` and `current` are also read while it
 * runs, to apply the per-variant time limit (a torn read there only delays
 * the check by one round). */
typedef struct sl_shared {
  volatile double started; /* when `current` began (CLOCK_MONOTONIC) */
  char current[SL_VARIANT_NAME_LEN]; /* "reference" or the running variant */
  int n;                             /* verdicts in v */
  sl_variant_result v[SL_MAX_VERDICTS];
  char line[SL_CASE_LINE_MAX];
  char ref_message[512];
  char ref_defect[48];
  /* What `current` runs for besides its call (runner.h: sl_runner_phase) */
  char phase[160];
  char err[512];
  char shown[SL_WORKER_SHOWN_MAX]; /* the tensors of a request with show */
  sl_crash_frames crash;           /* where a kernel died (crash_state.h) */
  /* The answer to request `answered`: its end-of-case byte. The byte on the
   * pipe only wakes the parent; what counts is here, so that bytes a
   * kernel writes to the pipe are never taken for an answer. */
  volatile unsigned answered;
  volatile char tag;
  /* `current` has returned and its verdict is in v (a death from here on
   * is still its doing: it ran last). */
  volatile int current_done;
  /* The worker ended itself after `current` damaged it (worker_guard.h):
   * its verdict says so, and the case goes on in a fresh worker. */
  volatile int retired;
  /* What each verdict's kernel printed (its stdout and stderr, kept off the
   * user's: stdio_capture.h), and what the reference and the case's
   * generator printed: the first bytes, and how many in all. */
  unsigned said_bytes[SL_MAX_VERDICTS], ref_said_bytes;
  char said[SL_MAX_VERDICTS][1024], ref_said[1024];
} sl_shared;

struct sl_worker {
  pid_t pid;
  int to_child;   /* requests */
  int from_child; /* end-of-case bytes */
  sl_shared *sh;
  sl_run_opts opts;
  int restarts;
  unsigned seq;              /* of the last request */
  int reaped, reaped_status; /* waited for already (sl__how_stopped) */
  int taken;      /* verdicts of the shared page collected (sl__collect) */
  sl_capture out; /* the worker's stdout and stderr */
};

static double sl__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

/* The worker's side: the shared page, and its guard (worker_guard.h). */
typedef struct sl__child {
  sl_shared *sh;
  sl_capture out; /* its stdout and stderr */
  sl_worker_guard guard;
  /* The variant running starts a runtime whose threads are not the
   * kernel's: a cuda.* one, or this worker's first Python call. */
  int runtime_threads;
  /* The variant running is a Python bridge's: the bit of its provider
   * (sl__python_bit), else 0. */
  uint64_t python_variant;
  /* The Python providers whose kernel has run here, one bit each: two
   * modules in one process each start their own runtime (ONNX Runtime's
   * first call starts none, JAX's first starts XLA's pools after it). */
  uint64_t python_started;
} sl__child;

/* A Python provider's bit in sl__child's masks; providers past the 64th
 * share the last (their runtimes' first calls are then forgiven once for
 * all of them). */
static uint64_t sl__python_bit(int provider) {
  return (uint64_t)1 << (provider < 63 ? provider : 63);
}

/* Whether the variant of this name starts a runtime's threads: a device's
 * runtime does on its first call, and so may a Python variant's on the
 * first call of its module in the worker (XLA's pools under JAX: 15
 * threads that stay for the process; the bridge itself fails a variant
 * that leaves a Python thread running, on every call). */
static int sl__runtime_variant(sl__child *ch, const char *name) {
  ch->python_variant = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (strcmp(v->name, name) != 0) continue;
    if (sl_variant_device(&v->v) != SL_DEVICE_CPU) return 1;
    if (sl_provider_at((size_t)v->provider)->py_module[0])
      ch->python_variant = sl__python_bit(v->provider);
    return ch->python_variant && !(ch->python_started & ch->python_variant);
  }
  return 0;
}

/* A Python variant's verdict that says its kernel ran: the runtime has
 * started. Not `unsupported` nor `both_rejected`: the harness answers
 * those without the call (a dtype not declared, an input refused by the
 * op's checks), so the next call may still be the runtime's first. */
static void sl__python_ran(sl__child *ch, const sl_variant_result *r) {
  if (ch->python_variant && r->verdict != SL_VERDICT_UNSUPPORTED &&
      r->verdict != SL_VERDICT_BOTH_REJECTED)
    ch->python_started |= ch->python_variant;
}

/* Reports r to the parent, failed when its kernel left the worker damaged;
 * then a damaged worker ends itself (the parent starts a fresh one for
 * what is left of the case). */
static void sl__child_done(sl__child *ch, const sl_variant_result *r) {
  sl_shared *sh = ch->sh;
  char why[256];
  if (ch->runtime_threads) sl_worker_guard_mark(&ch->guard);
  sl__python_ran(ch, r);
  const int damaged = sl_worker_guard_check(&ch->guard, why, sizeof why);
  if (sh->n < SL_MAX_VERDICTS) {
    sh->said_bytes[sh->n] = (unsigned)sl_capture_take(&ch->out, sh->said[sh->n],
                                                      sizeof sh->said[0]);
    sl_variant_result *out = &sh->v[sh->n];
    *out = *r;
    if (damaged) {
      const size_t k = strlen(out->message);
      if (!sl_verdict_is_failure(out->verdict)) {
        out->verdict = SL_VERDICT_FAILED;
        snprintf(out->message, sizeof out->message, "%s", why);
      } else {
        snprintf(out->message + k, sizeof out->message - k, "; %s", why);
      }
    }
    ++sh->n;
  }
  sh->current_done = 1;
  if (damaged) {
    sh->retired = 1;
    sl_child_exit(0);
  }
}

static void sl__child_event(void *user, sl_run_event ev, const char *name,
                            const sl_variant_result *r) {
  sl__child *ch = user;
  /* A copy of the worker that a kernel's fork() returned into: not ours. */
  if (sl_worker_guard_is_copy()) _exit(0);
  if (ev == SL_EVENT_REFERENCE_DONE) {
    sl_worker_guard_mark(&ch->guard);
    ch->sh->ref_said_bytes = (unsigned)sl_capture_take(
        &ch->out, ch->sh->ref_said, sizeof ch->sh->ref_said);
  } else if (ev == SL_EVENT_VARIANT_START) {
    snprintf(ch->sh->current, sizeof ch->sh->current, "%s", name);
    ch->sh->phase[0] = '\0';
    ch->sh->current_done = 0;
    ch->runtime_threads = sl__runtime_variant(ch, name);
    ch->sh->started = sl__now();
  } else if (ev == SL_EVENT_VARIANT_DONE) {
    sl__child_done(ch, r);
  }
}

/* Inputs past this many bytes: once the case is done, the worker hands its
 * free heap back to the system. glibc keeps freed memory of a big case
 * (its mmap threshold rises after the first large free), so one size-mix
 * case of millions of elements (fuzz --size-mix) left the worker 30 MiB
 * larger for good, which the campaign's resident-size check reads as a
 * leak. The kernels' kept scratch goes back after every case, for the same
 * reason: kept, it grew with the largest scratch met (index_reduce alone:
 * +10.7% in 90 s), and e2e.fuzz failed CI on it. */
#define SL__TRIM_AFTER_BYTES ((uint64_t)1 << 20)

static void sl__trim_after(const sl_case *c) {
  sl_case fw;
  uint64_t bytes;
  char err[8];
  sl_case_forward(c, &fw);
  const size_t released = sl_providers_release_scratch();
  if (released > 0 || (!sl_case_input_bytes(&fw, &bytes, err, sizeof err) &&
                       bytes > SL__TRIM_AFTER_BYTES))
    malloc_trim(0);
}

static void sl__child_loop(int in, int out, sl__child *ch, sl_run_opts o) {
  sl_shared *sh = ch->sh;
  const char *base_variants = o.variants, *base_save = o.save_dir;
  const int base_force = o.save_force;
  o.on_event = sl__child_event;
  o.user = ch;
  static sl_request req;
  static sl_case_result res;
  while (sl__read_all(in, &req, sizeof req) == 0) {
    sl_case c;
    o.skip = req.skip;
    o.variants = req.variants[0] ? req.variants : base_variants;
    o.save_dir = req.save_dir[0] ? req.save_dir : base_save;
    /* A corpus bundle's folder is named by its case: found again, it is
     * the same bundle, rewritten. */
    o.save_force = req.save_dir[0] ? 1 : base_force;
    o.shown = req.show ? sh->shown : NULL;
    o.shown_len = req.show ? sizeof sh->shown : 0;
    sh->shown[0] = '\0';
    char tag = SL_MSG_DONE;
    if (sl_case_parse(req.line, &c, sh->err, sizeof sh->err) ||
        sl_run_case(&c, &o, &res, sh->err, sizeof sh->err)) {
      tag = SL_MSG_ERROR;
    } else {
      memcpy(sh->line, res.line, sizeof sh->line);
      memcpy(sh->ref_message, res.ref_message, sizeof sh->ref_message);
      memcpy(sh->ref_defect, res.ref_defect, sizeof sh->ref_defect);
      sl__trim_after(&c);
    }
    sh->tag = tag;
    sh->answered = req.seq;
    if (sl__write_all(out, &tag, 1)) break;
  }
  sl_child_exit(0);
}

/* The worker's first steps: nothing of the parent's but its two pipes, and
 * the guard set up (worker_guard.h). */
static void sl__child_main(sl_worker *w, pid_t parent, int in, int out) {
  sl_die_with_parent(parent);
  sl_child_exit_on_exit();
  /* Not the store, its -wal and -shm, a run's lock nor another job's
   * pipes: a kernel that writes to a descriptor it does not own must not
   * reach any of them (fork without exec keeps them all). */
  const int keep[3] = {in, out, w->out.fd};
  sl_close_fds_except(keep, 3);
  static sl__child ch;
  sl_runner_phase_to(w->sh->phase, sizeof w->sh->phase);
  sl_crash_state_arm(&w->sh->crash);
  ch.out = w->out;
  sl_capture_attach(&ch.out);
  /* The parent handles interruption (it finishes the case in hand, then
   * stops the worker); a worker killed by the user's signal would turn
   * into a false `crashed` verdict. */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  /* The reference runs here: its team gets the worker's threads. Set in
   * the worker, not before the fork: LibTorch starts its thread pool
   * when told its thread count, and a process forked from one with
   * threads is one ThreadSanitizer cannot watch (it ignores everything
   * in such a child), so the parent stays single-threaded. */
  if (w->opts.threads > 0) slref_set_threads(w->opts.threads);
  /* Fixed malloc thresholds: glibc otherwise raises its mmap threshold
   * to the largest block freed (up to 32 MiB), after which the blocks of
   * later cases come from the heap and stay there, so the resident size
   * grows by the largest case met and reads as a leak (e2e.fuzz's check
   * saw +8.5% under load). Blocks of 256 KiB and more are mapped and
   * given back when freed; the heap's top is trimmed past 1 MiB. */
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
  ch.sh = w->sh;
  /* The most threads a variant is asked for: the case's, or a rerun's 2. */
  int threads = w->opts.threads > 0 ? w->opts.threads : sl_default_threads();
  sl_worker_guard_init(&ch.guard, in, out, threads > 2 ? threads : 2);
  sl__child_loop(in, out, &ch, w->opts);
}

static int sl__spawn(sl_worker *w, char *err, size_t errlen) {
  int req[2], msg[2];
  if (sl_pipe_cloexec(req)) {
    snprintf(err, errlen, "worker: cannot create pipes (%s)", strerror(errno));
    return -1;
  }
  if (sl_pipe_cloexec(msg)) {
    snprintf(err, errlen, "worker: cannot create pipes (%s)", strerror(errno));
    close(req[0]), close(req[1]);
    return -1;
  }
  fflush(NULL);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "worker: cannot fork (%s)", strerror(errno));
    close(req[0]), close(req[1]), close(msg[0]), close(msg[1]);
    return -1;
  }
  if (pid == 0) {
    close(req[1]);
    close(msg[0]);
    sl__child_main(w, parent, req[0], msg[1]);
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
  w->sh = mmap(NULL, sizeof(sl_shared), PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (w->sh == MAP_FAILED) {
    snprintf(err, errlen, "worker: cannot map shared memory (%s)",
             strerror(errno));
    free(w);
    return -1;
  }
  w->opts = *o;
  w->opts.on_event = NULL;
  w->opts.user = NULL;
  sl_capture_open(&w->out);
  if (sl__spawn(w, err, errlen)) {
    sl_capture_close(&w->out);
    munmap(w->sh, sizeof(sl_shared));
    free(w);
    return -1;
  }
  *out = w;
  return 0;
}

/* Ends the worker process (killed when `force`) and reaps it; returns its
 * wait status. */
static int sl__reap(sl_worker *w, int force) {
  int status = w->reaped_status;
  if (w->pid <= 0) return 0;
  close(w->to_child);
  if (!w->reaped && force) kill(w->pid, SIGKILL);
  while (!w->reaped && waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  w->reaped = 0;
  close(w->from_child);
  w->pid = -1;
  return status;
}

long sl_worker_rss_kib(const sl_worker *w) {
  if (!w || w->pid <= 0) return -1;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", (int)w->pid);
  FILE *f = fopen(path, "re");
  long size = 0, resident = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
  }
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* What the worker printed and did not hand over (it died: a crash report;
 * or it ended), said as `who`'s. */
static void sl__report_left(sl_worker *w, const char *who) {
  static char said[8192];
  const size_t n = sl_capture_take(&w->out, said, sizeof said);
  sl_capture_report(&w->out, stderr, who, said, n);
}

void sl_worker_stop(sl_worker *w) {
  if (!w) return;
  sl__reap(w, 0);
  sl__report_left(w, "the worker, as it ended,");
  sl_capture_close(&w->out);
  munmap(w->sh, sizeof(sl_shared));
  free(w);
}

void sl_worker_renew(sl_worker *w) {
  if (w->pid <= 0) return;
  sl__reap(w, 1);
  sl__report_left(w, "the worker, as it was renewed,");
}

int sl_worker_restarts(const sl_worker *w) { return w->restarts; }

/* A death in words, with where (crash_state.h: " in function F of LIB",
 * or "") before the signal's name: a failure's kind ends at its first
 * note. */
static void sl__death_words(int status, const char *where, char *buf,
                            size_t len) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    snprintf(buf, len, SL_WORKER_DEATH_WORDS "killed by signal %d%s (%s)", sig,
             where, strsignal(sig));
  } else if (WIFEXITED(status)) {
    snprintf(buf, len, SL_WORKER_DEATH_WORDS "exited with status %d",
             WEXITSTATUS(status));
  } else {
    snprintf(buf, len, SL_WORKER_DEATH_WORDS "died");
  }
}

void sl_worker_describe_death(int status, char *buf, size_t len) {
  sl__death_words(status, "", buf, len);
}

/*
 * Waits for the answer to the last request. Returns its tag, 0 when the
 * running variant (or the reference) passed its time limit, or -1 when the
 * worker died. Bytes on the pipe only wake the parent: the answer is the
 * shared page's, so bytes that a kernel wrote there are read and dropped.
 */
static int sl__await(sl_worker *w, double timeout_s) {
  for (;;) {
    double left = w->sh->started + timeout_s - sl__now();
    if (left <= 0) return 0;
    struct pollfd p = {w->from_child, POLLIN, 0};
    int ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
    int k = poll(&p, 1, ms);
    if (k < 0 && errno != EINTR) return -1;
    if (k <= 0) continue; /* re-check: a new variant restarts the clock */
    char bytes[64];
    ssize_t got = read(w->from_child, bytes, sizeof bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    if (w->sh->answered == w->seq) return w->sh->tag;
  }
}

int sl_worker_run(sl_worker *w, const sl_case *c, double timeout_s,
                  sl_case_result *res, char *err, size_t errlen) {
  return sl_worker_run_variants(w, c, NULL, timeout_s, res, err, errlen);
}

/* Appends the verdicts the worker reported for this attempt since the last
 * call. */
static void sl__collect(sl_worker *w, sl_case_result *res, int *done) {
  for (; w->taken < w->sh->n && res->n < SL_MAX_VERDICTS; ++w->taken) {
    const int k = w->taken;
    w->sh->said[k][sizeof w->sh->said[k] - 1] = '\0';
    sl_capture_report(&w->out, stderr, w->sh->v[k].variant, w->sh->said[k],
                      w->sh->said_bytes[k]);
    res->v[res->n++] = w->sh->v[w->taken];
    if (sl_verdict_is_failure(w->sh->v[w->taken].verdict)) ++res->failures;
    ++*done;
  }
}

/* What the reference and the case's generator printed in the worker. */
static void sl__report_ref(sl_worker *w) {
  w->sh->ref_said[sizeof w->sh->ref_said - 1] = '\0';
  sl_capture_report(&w->out, stderr, "the reference (LibTorch)",
                    w->sh->ref_said, w->sh->ref_said_bytes);
  w->sh->ref_said_bytes = 0;
}

/* How a worker stopped answering. */
typedef enum sl__stop { SL__HUNG, SL__DIED, SL__CUT } sl__stop;

/* After its pipe closed: whether the worker ended within a bound (a death;
 * its wait status in *status), or lives on with its end of the pipe closed
 * (a kernel closed a descriptor it does not own). */
static sl__stop sl__how_stopped(sl_worker *w, int *status) {
  const double until = sl__now() + 0.5;
  for (;;) {
    const pid_t got = waitpid(w->pid, status, WNOHANG);
    if (got == w->pid || (got < 0 && errno != EINTR)) {
      w->reaped = 1, w->reaped_status = *status;
      return SL__DIED;
    }
    if (sl__now() >= until) return SL__CUT;
    const struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

/* How the worker stopped, in words: a death says where the kernel died
 * when the worker's record names a kernel library's function. */
static void sl__stopped_words(const sl_worker *w, sl__stop how, int status,
                              double timeout_s, char *what, size_t len) {
  if (how == SL__HUNG) {
    snprintf(what, len, SL_WORKER_HANG_WORDS "%.3g s; worker killed",
             timeout_s);
  } else if (how == SL__CUT) {
    snprintf(what, len,
             "closed the worker's pipe to the harness (a descriptor it does "
             "not own); the worker was replaced");
  } else {
    char where[200] = "";
    if (WIFSIGNALED(status))
      sl_crash_state_name(&w->sh->crash, where, sizeof where);
    sl__death_words(status, where, what, len);
  }
}

/* The verdict of a worker's death, hang or cut pipe (`what`: in words)
 * while `current` ran (for `phase`, when not "": a check's call, said
 * first), or, when `after` (it had returned), in place of its verdict:
 * what it left behind (a thread, a heap it wrote over) stopped the
 * worker. */
static void sl__blame(sl_case_result *res, const char *current,
                      const char *phase, int after, sl__stop how,
                      const char *what, double timeout_s) {
  sl_variant_result *r = NULL;
  for (int i = res->n - 1; after && i >= 0 && !r; --i)
    if (strcmp(res->v[i].variant, current) == 0) r = &res->v[i];
  if (r && sl_verdict_is_failure(r->verdict)) --res->failures;
  if (!r) r = &res->v[res->n < SL_MAX_VERDICTS ? res->n++ : res->n - 1];
  memset(r, 0, sizeof *r);
  snprintf(r->variant, sizeof r->variant, "%s", current);
  static const sl_verdict verdicts[] = {SL_VERDICT_TIMEOUT, SL_VERDICT_CRASHED,
                                        SL_VERDICT_FAILED};
  r->verdict = verdicts[how];
  r->seconds = how == SL__HUNG ? timeout_s : -1;
  /* Cut to the message's size when long: its start says what stopped. */
  if (snprintf(r->message, sizeof r->message, "%s%s%s%s", phase,
               phase[0] ? ": " : "", what,
               after ? " after it had returned (what it left running stopped "
                       "the worker)"
                     : "") < 0)
    r->message[0] = '\0';
  ++res->failures;
}

static int sl__run_request(sl_worker *w, const sl_case *c, const char *variants,
                           const char *save_dir, int show, double timeout_s,
                           sl_case_result *res, char *err, size_t errlen) {
  static sl_request req;
  memset(res, 0, sizeof *res);
  req.show = show;
  if (variants && strlen(variants) >= sizeof req.variants) {
    snprintf(err, errlen,
             "worker: variant list: expected under %zu bytes, got %zu",
             sizeof req.variants, strlen(variants));
    return -1;
  }
  snprintf(req.variants, sizeof req.variants, "%s", variants ? variants : "");
  if (save_dir && strlen(save_dir) >= sizeof req.save_dir) {
    snprintf(err, errlen,
             "worker: save folder: expected a path under %zu bytes, got %zu",
             sizeof req.save_dir, strlen(save_dir));
    return -1;
  }
  snprintf(req.save_dir, sizeof req.save_dir, "%s", save_dir ? save_dir : "");
  sl_case_print(c, req.line, sizeof req.line);
  snprintf(res->line, sizeof res->line, "%s", req.line);
  int done_variants = 0; /* selected variants finished, incl. crashed ones */
  for (int attempt = 0; attempt <= SL_MAX_VERDICTS; ++attempt) {
    if (w->pid <= 0 && sl__spawn(w, err, errlen)) return -1;
    req.skip = done_variants;
    req.seq = ++w->seq;
    w->sh->n = 0;
    w->taken = 0;
    w->sh->current_done = 0;
    w->sh->retired = 0;
    w->sh->crash.n = 0;
    snprintf(w->sh->current, sizeof w->sh->current, SL_WORKER_REFERENCE);
    w->sh->started = sl__now();
    if (sl__write_all(w->to_child, &req, sizeof req)) {
      sl__reap(w, 1);
      ++w->restarts;
      continue;
    }
    w->sh->ref_said_bytes = 0;
    int tag = sl__await(w, timeout_s);
    sl__report_ref(w);
    sl__collect(w, res, &done_variants);
    if (tag == SL_MSG_DONE) {
      memcpy(res->line, w->sh->line, sizeof res->line);
      memcpy(res->ref_message, w->sh->ref_message, sizeof res->ref_message);
      memcpy(res->ref_defect, w->sh->ref_defect, sizeof res->ref_defect);
      return 0;
    }
    if (tag == SL_MSG_ERROR) {
      snprintf(err, errlen, "%s", w->sh->err);
      return -1;
    }
    /* Crashed (-1) or hung (0), or ended itself after a kernel damaged
     * it: the verdicts go to the kernel that ran last. */
    int status = 0;
    const sl__stop how = tag == 0 ? SL__HUNG : sl__how_stopped(w, &status);
    status = sl__reap(w, 1);
    /* Read once it is dead: a worker whose pipe a kernel closed goes on to
     * retire itself after that variant. */
    sl__collect(w, res, &done_variants);
    const int retired = w->sh->retired, after = w->sh->current_done;
    char current[SL_VARIANT_NAME_LEN], phase[sizeof w->sh->phase];
    memcpy(current, w->sh->current, sizeof current);
    current[sizeof current - 1] = '\0';
    memcpy(phase, w->sh->phase, sizeof phase);
    phase[sizeof phase - 1] = '\0';
    sl_text_one_line(phase); /* the page is the kernel's to write over */
    sl__report_left(w, current);
    ++w->restarts;
    if (retired) continue; /* its verdict says why; resume after it */
    char what[320];
    sl__stopped_words(w, how, status, timeout_s, what, sizeof what);
    sl__blame(res, current, after ? "" : phase, after, how, what, timeout_s);
    /* A crash or hang before any variant ran is the reference's (or the
     * generator's): the case cannot go on. */
    if (strcmp(current, SL_WORKER_REFERENCE) == 0) return 0;
    /* The crashed variant; resume after it (once: a death after it
     * returned was counted with its verdict). */
    if (!after) ++done_variants;
  }
  return 0;
}

int sl_worker_run_variants(sl_worker *w, const sl_case *c, const char *variants,
                           double timeout_s, sl_case_result *res, char *err,
                           size_t errlen) {
  return sl__run_request(w, c, variants, NULL, 0, timeout_s, res, err, errlen);
}

int sl_worker_show(sl_worker *w, const sl_case *c, const char *variants,
                   double timeout_s, char *shown, size_t len,
                   sl_case_result *res, char *err, size_t errlen) {
  if (sl__run_request(w, c, variants, NULL, 1, timeout_s, res, err, errlen))
    return -1;
  /* Only a worker that answered wrote it: after a crash the page is the
   * fresh worker's, and holds nothing. */
  w->sh->shown[sizeof w->sh->shown - 1] = '\0';
  snprintf(shown, len, "%s", w->sh->shown);
  return 0;
}

int sl_worker_save(sl_worker *w, const sl_case *c, const char *variant,
                   const char *dir, double timeout_s, char *err,
                   size_t errlen) {
  static sl_case_result res;
  return sl__run_request(w, c, variant, dir, 0, timeout_s, &res, err, errlen);
}
