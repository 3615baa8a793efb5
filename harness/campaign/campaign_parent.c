/* The parent of a fuzz campaign: forks the jobs, gathers their lines, prints
 * coverage, failures and memory (campaign_cmd.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "byte_size.h"
#include "campaign.h"
#include "child_exit.h"
#include "cli.h"
#include "failure_report.h"
#include "fd_hygiene.h"
#include "interrupt.h"
#include "json_out.h"
#include "providers.h"
#include "run_lock.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_report.h"
#include "sl_store.h"
#include "text_lines.h"
#include "timing.h"
#include "worker.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif
#include "campaign_cmd.h"

int64_t sl__sum(const int64_t *v, int n) {
  int64_t t = 0;
  for (int j = 0; j < n; ++j) t += v[j];
  return t;
}

static void sl__take_line(sl__gathered *g, int j, char *line, double t) {
  if (line[0] == 'P') {
    sscanf(line + 2, "%" SCNd64 " %" SCNd64, &g->done[j], &g->fails[j]);
  } else if (line[0] == 'F') {
    if (g->first_failure < 0) g->first_failure = t;
    char **nf = realloc(g->failures, sizeof(char *) * (size_t)(g->nfail + 1));
    if (nf) {
      g->failures = nf;
      g->failures[g->nfail++] = strdup(line + 2);
    }
  } else if (line[0] == 'C' || line[0] == 'V') {
    char *t1 = strchr(line + 2, '\t');
    if (!t1) return;
    *t1 = '\0';
    sl_fuzz_cell_count *c =
        sl_fuzz_cells_get(line[0] == 'C' ? &g->cells : &g->met, line + 2);
    long long a = 0, b = 0;
    sscanf(t1 + 1, "%lld\t%lld", &a, &b);
    if (c) c->cases += a, c->failures += b;
  } else if (line[0] == 'R') {
    int row = -1;
    long long n = 0;
    if (sscanf(line + 2, "%d %lld", &row, &n) == 2 && row >= 0 &&
        row < SL_REF_DEFECTS_MAX)
      g->ref_defects[row] += n;
  } else if (line[0] == 'M') {
    long m[4];
    if (sscanf(line + 2, "%ld %ld %ld %ld", &m[0], &m[1], &m[2], &m[3]) == 4)
      for (int k = 0; k < 4; ++k)
        if (m[k] > g->mem[k]) g->mem[k] = m[k];
  }
}

int sl__stored_cell(void *user, const sl_coverage_view *v) {
  sl_fuzz_cell_count *c = sl_fuzz_cells_get(user, v->cell);
  if (c) c->cases += v->cases, c->failures += v->failures;
  return 0;
}

void sl__print_coverage(const sl_fuzz_cells *cells) {
  printf("\ncoverage: %d semantic cells hit "
         "(op|dt|reduce|self|it|layout|shape|ip|dp|validity)\n",
         cells->n);
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    int nc = 0;
    int64_t ncases = 0;
    size_t len = strlen(sl_op_name((sl_op)op));
    for (int i = 0; i < cells->n; ++i)
      if (strncmp(cells->v[i].name, sl_op_name((sl_op)op), len) == 0 &&
          cells->v[i].name[len] == '|')
        ++nc, ncases += cells->v[i].cases;
    if (nc)
      printf("  %-26s %5d cells %8" PRId64 " cases\n", sl_op_name((sl_op)op),
             nc, ncases);
  }
}

/* The F line's tensors field back to lines: the job joined them with the
 * two characters '\\' 'n' (campaign_job.c). In place. */
static void sl__tensor_lines(char *field) {
  char *w = field;
  for (const char *r = field; r && *r; ++r)
    if (r[0] == '\\' && r[1] == 'n')
      *w++ = '\n', ++r;
    else
      *w++ = *r;
  if (w) *w = '\0';
}

/* Prints each failure (and frees it); with json, writes it there too as
 * {"variant", "verdict", "minimal", "found_as", "message", "repro"}. */
void sl__print_failures(sl__gathered *g, FILE *json) {
  for (int i = 0; i < g->nfail; ++i) {
    /* variant, verdict, minimal, found as, group id, group, message,
     * defect id, defect, its variants key's length, the minimal case's
     * tensors (campaign_job.c; a harness failure has no tensors) */
    enum { SL__F_FIELDS = 11 };
    char *part[SL__F_FIELDS] = {0};
    char *p = g->failures[i];
    for (int k = 0; k < SL__F_FIELDS && p; ++k) {
      part[k] = p;
      p = k < SL__F_FIELDS - 1 ? strchr(p, '\t') : NULL;
      if (p) *p++ = '\0';
    }
    sl__tensor_lines(part[10]);
    const char *gid = part[4] ? part[4] : "?";
    const char *dtext = part[8] ? part[8] : part[5];
    size_t key_len = part[9] ? strtoul(part[9], NULL, 10) : 0;
    if (!dtext || key_len >= strlen(dtext)) key_len = 0;
    const sl_failure_defect defect = {part[7] ? part[7] : gid, dtext, key_len};
    if (sl_failure_groups_add(&g->groups, gid, part[5], part[0], part[1],
                              part[2], part[3], part[6], &defect) ||
        sl_failure_groups_show(&g->groups, gid, part[10]))
      fprintf(stderr, "scatterlab fuzz: out of memory\n");
    char *fields[5] = {part[0], part[1], part[2], part[3], part[6]};
    char repro[1400];
    sl_repro(fields[2] ? fields[2] : "", fields[0], repro, sizeof repro);
    if (json) {
      static const char *const keys[5] = {"variant", "verdict", "minimal",
                                          "found_as", "message"};
      fputs(i ? ",\n  {" : "\n  {", json);
      for (int k = 0; k < 5; ++k) {
        fprintf(json, "\"%s\": ", keys[k]);
        sl_json_str(json, fields[k] ? fields[k] : "");
        fputs(", ", json);
      }
      fputs("\"repro\": ", json);
      sl_json_str(json, repro);
      fputc('}', json);
    }
    free(g->failures[i]);
  }
}

/* Memory of the campaign: flat after warm-up is the target. */
int sl__print_unmet(const sl__gathered *g) {
  int n = 0;
  for (int i = 0; i < g->met.n; ++i) {
    const sl_fuzz_cell_count *m = &g->met.v[i];
    if (m->failures > 0 || m->cases == 0) continue;
    fprintf(stderr,
            "scatterlab fuzz: %s: expected cases it supports, got none: "
            "%" PRId64 " valid case%s outside its capabilities, nothing of it "
            "tested (scatterlab list shows them; --ops, --dtypes, "
            "--index-dtypes and --reduces choose the cases)\n",
            m->name, m->cases, m->cases == 1 ? "" : "s");
    ++n;
  }
  return n;
}

void sl__print_memory(const sl__gathered *g) {
  if (g->mem[0] <= 0 || g->mem[1] <= 0) return;
  printf("memory: worker RSS %.1f MiB after warm-up, %.1f MiB at the end "
         "(%+.1f%%); job %.1f -> %.1f MiB\n",
         g->mem[0] / 1024.0, g->mem[1] / 1024.0,
         100.0 * (double)(g->mem[1] - g->mem[0]) / (double)g->mem[0],
         g->mem[2] / 1024.0, g->mem[3] / 1024.0);
}

/* The parent's end of one job's pipe. Lines are cut out of raw reads (not
 * stdio): poll() cannot see what a FILE has already buffered. */
typedef struct sl__reader {
  int fd; /* -1 once the job closed it */
  char *buf;
  size_t len, cap;
} sl__reader;

/* Reads what job j has written and hands over every complete line. Returns
 * 1 at the end of the pipe. */
static int sl__pump(sl__reader *r, sl__gathered *g, int j, double t) {
  if (r->cap - r->len < 4096) {
    size_t cap = r->cap ? 2 * r->cap : 65536;
    char *b = realloc(r->buf, cap);
    if (!b) return 0; /* try again later, with what we have */
    r->buf = b;
    r->cap = cap;
  }
  ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
  if (k < 0) return errno == EINTR || errno == EAGAIN ? 0 : 1;
  if (k == 0) return 1;
  r->len += (size_t)k;
  char *start = r->buf, *nl;
  while ((nl = memchr(start, '\n', r->len - (size_t)(start - r->buf)))) {
    *nl = '\0';
    sl__take_line(g, j, start, t);
    start = nl + 1;
  }
  r->len -= (size_t)(start - r->buf);
  memmove(r->buf, start, r->len);
  return 0;
}

/* Forks the jobs, follows their progress until all have ended. Returns 1 if
 * a job failed. */
int sl__run_jobs(sl_fuzz_campaign *f, sl__gathered *g) {
  int interactive = isatty(STDOUT_FILENO) && !getenv("CI");
  sl__reader *pipes = calloc((size_t)f->jobs, sizeof *pipes);
  pid_t *pids = calloc((size_t)f->jobs, sizeof(pid_t));
  struct pollfd *pf = calloc((size_t)f->jobs, sizeof *pf);
  if (!pipes || !pids || !pf) {
    free(pipes), free(pids), free(pf);
    fprintf(stderr, "scatterlab fuzz: out of memory\n");
    return 1;
  }
  int open_pipes = 0, job_failed = 0;
  fflush(NULL);
  for (int j = 0; j < f->jobs; ++j) {
    int fd[2];
    if (sl_pipe_cloexec(fd)) {
      fprintf(stderr, "scatterlab fuzz: cannot create a pipe: %s\n",
              strerror(errno));
      job_failed = 1;
      break;
    }
    const pid_t parent = getpid();
    pids[j] = fork();
    if (pids[j] == 0) {
      sl_die_with_parent(parent); /* no job outlives a killed campaign */
      close(fd[0]);
      FILE *out = fdopen(fd[1], "w");
      sl_child_exit(sl_fuzz_job(f, j, out));
    }
    close(fd[1]);
    if (pids[j] < 0) {
      fprintf(stderr, "scatterlab fuzz: cannot fork: %s\n", strerror(errno));
      close(fd[0]);
      job_failed = 1;
      break;
    }
    pipes[j].fd = fd[0];
    ++open_pipes;
  }
  for (int j = 0; j < f->jobs; ++j)
    if (pids[j] <= 0) pipes[j].fd = -1;
  double start = sl_now(), last_print = start;
  while (open_pipes > 0) {
    if (sl_interrupted()) *f->stop = 1; /* jobs finish their case and commit */
    for (int j = 0; j < f->jobs; ++j) {
      pf[j].fd = pipes[j].fd;
      pf[j].events = POLLIN;
      pf[j].revents = 0;
    }
    poll(pf, (nfds_t)f->jobs, 1000); /* EINTR: look at the flag again */
    for (int j = 0; j < f->jobs; ++j) {
      if (pipes[j].fd < 0 || !(pf[j].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      if (sl__pump(&pipes[j], g, j, sl_now() - start)) {
        close(pipes[j].fd);
        pipes[j].fd = -1;
        --open_pipes;
      }
    }
    double now = sl_now(), el = now - start;
    int64_t total = sl__sum(g->done, f->jobs);
    int64_t totfail = sl__sum(g->fails, f->jobs);
    if (interactive) {
      printf("\r%" PRId64 " cases  %.0f/s  %" PRId64
             " failures  %.0f s left   ",
             total, el > 0 ? total / el : 0.0, totfail,
             f->cases < 0 && f->seconds > el ? f->seconds - el : 0.0);
      fflush(stdout);
    } else if (now - last_print >= 5) {
      printf("fuzz: %" PRId64 " cases, %.0f cases/s, %" PRId64
             " failures, %.0f s elapsed\n",
             total, el > 0 ? total / el : 0.0, totfail, el);
      fflush(stdout);
      last_print = now;
    }
  }
  for (int j = 0; j < f->jobs; ++j) {
    int status;
    if (pids[j] <= 0) continue;
    while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) job_failed = 1;
  }
  if (interactive) printf("\n");
  for (int j = 0; j < f->jobs; ++j) free(pipes[j].buf);
  free(pipes), free(pids), free(pf);
  return job_failed;
}
