/*
 * One job of a fuzz campaign (see campaign.h): its share of the cases
 * on its own worker, failures shrunk and kept, results committed to the
 * store with the job's cursor, progress reported to the parent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "campaign_found.h"
#include "failure_group.h"
#include "interrupt.h"
#include "providers.h"
#include "runinfo.h"
#include "runner.h"
#include "safe_file.h"
#include "sl_store.h"
#include "store_verdicts.h"
#include "timing.h"
#include "worker.h"

int sl_fuzz_first_failure(const sl_case_result *r) {
  for (int i = 0; i < r->n; ++i)
    if (sl_verdict_is_failure(r->v[i].verdict)) return i;
  return -1;
}

static int sl__is_failure(const sl_case_result *r, int *which) {
  *which = sl_fuzz_first_failure(r);
  return *which >= 0;
}

/* Writes the minimal case into the corpus, once per failure group:
 * <dir>/<op>-<signature id>.txt holding the line (with the variant, verdict
 * and signature as comments), and for a wrong answer the .npy bundle of
 * `scatterlab run --save` in <dir>/<op>-<signature id>/, made by the worker
 * (never in this process: see sl_worker_save). A crash or hang gets no
 * bundle. The jobs are separate processes: the entry is created with
 * O_EXCL semantics (link() of the complete file fails when the name
 * exists), so the first member of a group found by any job keeps it and
 * the later ones add nothing. */
static void sl__corpus_add(sl_worker *w, double timeout, const char *dir,
                           const sl_case *c, const char *line,
                           const char *variant, sl_verdict verdict,
                           const sl_failure_sig *sig) {
  char path[1024];
  /* The folder and any missing parents (an installed CLI's default,
   * out/corpus, may be the first thing written under out/). */
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0777);
      *p = '/';
    }
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s-%s.txt", dir, sl_op_name(c->op), sig->id);
  struct stat sb;
  if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
    return; /* the group has its entry */
  /* Written beside, complete, then linked into place: link() fails when
   * the name exists (another job was first), never follows a planted
   * symbolic link, and a reader never sees half an entry. */
  char tmp[1100], text[2 * SL_CASE_LINE_MAX + 1024], err[512];
  snprintf(tmp, sizeof tmp, "%s.new.%ld", path, (long)getpid());
  snprintf(text, sizeof text,
           "# found by scatterlab fuzz: %s %s\n# group %s: %s\n%s\n", variant,
           sl_verdict_name(verdict), sig->id, sig->text, line);
  if (sl_safe_write_text(tmp, text, err, sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: corpus: %s\n", err);
    return;
  }
  /* Something else at the name (a planted symbolic link) is no entry: it
   * is replaced by rename(), never followed. */
  int taken = lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)
                  ? rename(tmp, path) != 0
                  : link(tmp, path) != 0;
  unlink(tmp);       /* after rename(): already gone */
  if (taken) return; /* EEXIST: another job's member was first */
  if (verdict != SL_VERDICT_FAILED && verdict != SL_VERDICT_REJECT_MISMATCH)
    return;
  path[strlen(path) - 4] = '\0'; /* the bundle folder: the name without .txt */
  sl_worker_save(w, c, variant, path, timeout, err, sizeof err);
}

/*
 * The results of the cases since the last commit, kept in memory and written
 * in one short transaction: a job that held the write lock while it ran
 * cases would starve the other jobs of it.
 */
typedef struct sl__pending {
  char *line;
  sl_op op;
  sl_dtype dt;
  uint64_t seed;
  int shrunk_from; /* index in the batch of the case it was shrunk from, or -1
                    */
  int n;
  sl_variant_result *v;
  /* A failing case's group (failure_group.h) and the variant it is of;
   * "" for a case that passed */
  char sig[768], sig_variant[SL_VARIANT_NAME_LEN];
} sl__pending;

typedef struct sl__batch {
  sl__pending *p;
  int n, cap;
} sl__batch;

/* Adds a case and its verdicts; returns its index, or -1 without memory. */
static int sl__batch_add(sl__batch *b, const sl_case *c,
                         const sl_case_result *res, int shrunk_from) {
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    sl__pending *p = realloc(b->p, sizeof *p * (size_t)cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
  }
  sl__pending *e = &b->p[b->n];
  e->line = strdup(res->line);
  e->v = malloc(sizeof *e->v * (size_t)(res->n ? res->n : 1));
  if (!e->line || !e->v) {
    free(e->line), free(e->v);
    return -1;
  }
  memcpy(e->v, res->v, sizeof *e->v * (size_t)res->n);
  e->n = res->n;
  e->op = c->op;
  e->dt = c->dt;
  e->seed = c->seed;
  e->shrunk_from = shrunk_from;
  e->sig[0] = e->sig_variant[0] = '\0';
  return b->n++;
}

static void sl__batch_clear(sl__batch *b) {
  for (int i = 0; i < b->n; ++i) free(b->p[i].line), free(b->p[i].v);
  b->n = 0;
}

/* Writes the batch's cases and results (inside the caller's transaction). */
static int sl__batch_write(sl_store *st, int64_t run_id, int keep_all,
                           const sl__batch *b) {
  int64_t *ids = malloc(sizeof *ids * (size_t)(b->n ? b->n : 1));
  if (!ids) return -1;
  int rc = 0;
  for (int i = 0; i < b->n && !rc; ++i) {
    const sl__pending *e = &b->p[i];
    int64_t from = e->shrunk_from >= 0 ? ids[e->shrunk_from] : 0;
    rc = sl_store_verdicts(st, run_id, e->op, e->dt, e->line, e->seed, from,
                           keep_all, e->v, e->n, &ids[i]);
    if (!rc && e->sig[0] && ids[i])
      rc = sl_store_set_signature(st, ids[i], e->sig_variant, e->sig);
  }
  free(ids);
  return rc;
}

/* The group onto the found case's verdict (batch entry at) and the
 * minimal case's; the minimal case into the corpus. -1 without memory. */
static int sl__found_record(const sl_fuzz_campaign *f, sl_worker *w,
                            sl__batch *b, int at, const sl_found *x) {
  if (f->db) {
    int m = f->shrink ? sl__batch_add(b, &x->minimal, &x->mres, at) : at;
    if (m < 0) return -1;
    for (int k = 0; k < 2; ++k) {
      sl__pending *e = &b->p[k ? m : at];
      snprintf(e->sig, sizeof e->sig, "%s", x->sig.text);
      snprintf(e->sig_variant, sizeof e->sig_variant, "%s", x->first.variant);
    }
  }
  if (f->corpus)
    sl__corpus_add(w, f->timeout, f->corpus, &x->minimal, x->line,
                   x->first.variant, x->first.verdict, &x->sig);
  return 0;
}

/* Handles one case's result in a job: batch, failure shrinking, corpus.
 * Returns -1 when out of memory. */
static int sl__job_result(const sl_fuzz_campaign *f, sl_worker *w, sl__batch *b,
                          sl_found_memory *memory, const sl_case *c,
                          sl_case_result *res, FILE *out, int64_t *failures) {
  int which;
  int at = f->db ? sl__batch_add(b, c, res, -1) : 0;
  if (at < 0) return -1;
  if (!sl__is_failure(res, &which)) return 0;
  ++*failures;
  static sl_found x; /* large: not on the stack */
  sl_found_make(f, w, c, res, which, memory, &x);
  if (sl__found_record(f, w, b, at, &x)) return -1;
  sl_found_send(f, &memory->shown, res->line, &x, out);
  return 0;
}

/* Resident size of this process in KiB, or -1. */
static long sl__self_rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "re");
  long size = 0, resident = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
  }
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Whether a selected variant met a case it supports (issue 48: one whose
 * capabilities no case meets ran an all-"unsupported" campaign that passed
 * without a word). Kept per op and position in the case's results, which
 * list the op's selected variants in one order, so that a case costs one
 * test per variant once each has been judged. */
typedef struct sl__met {
  char variant[SL_VARIANT_NAME_LEN];
  int64_t refused, judged; /* valid cases outside its capabilities; judged */
  int unavailable;         /* no device here: unsupported by nature */
} sl__met;

static void sl__count_met(sl__met (*met)[SL_MAX_VERDICTS], const sl_case *c,
                          const sl_case_result *res) {
  for (int i = 0; met && i < res->n; ++i) {
    sl__met *m = &met[c->op][i];
    const sl_variant_result *r = &res->v[i];
    if (m->judged) continue;
    if (!m->variant[0]) {
      const sl_hvariant *hv = sl_hvariant_find(c->op, r->variant);
      const char *why;
      snprintf(m->variant, sizeof m->variant, "%s", r->variant);
      m->unavailable = hv && !sl_variant_available(&hv->v, &why);
    } else if (strcmp(m->variant, r->variant) != 0) {
      continue; /* not the order met first: never expected */
    }
    /* both_rejected (an invalid case, refused before any kernel ran)
     * counts neither way: a short campaign may meet only such cases. */
    m->refused += r->verdict == SL_VERDICT_UNSUPPORTED;
    m->judged += r->verdict != SL_VERDICT_UNSUPPORTED &&
                 r->verdict != SL_VERDICT_BOTH_REJECTED;
  }
}

/* "V <variant>\t<refused>\t<judged>" of every available variant. */
static void sl__send_met(sl__met (*met)[SL_MAX_VERDICTS], FILE *out) {
  for (int op = 0; met && op < SL_OP_COUNT; ++op)
    for (int i = 0; i < SL_MAX_VERDICTS && met[op][i].variant[0]; ++i)
      if (!met[op][i].unavailable)
        fprintf(out, "V %s\t%" PRId64 "\t%" PRId64 "\n", met[op][i].variant,
                met[op][i].refused, met[op][i].judged);
}

/* The job's state between commits. */
typedef struct sl__job_state {
  sl_store *st;
  sl__batch batch;
  sl_fuzz_cells cells;
  int64_t done, failures, next_k;
  /* done and failures as of the last commit: after a store failure the
   * summary must count what the store holds, not what ran */
  int64_t done_committed, failures_committed;
  int64_t ref_defects[SL_REF_DEFECTS_MAX]; /* cases per defect row met */
  sl__met (*met)[SL_MAX_VERDICTS];         /* [SL_OP_COUNT]; NULL: no memory */
  sl_found_memory found;
} sl__job_state;

/* Commits what the job did since the last commit, in one transaction: the
 * batch, the coverage counted since, and the cursor. On failure nothing of it
 * is written. */
static int sl__commit(const sl_fuzz_campaign *f, int job, sl__job_state *s) {
  if (!s->st) {
    s->done_committed = s->done;
    s->failures_committed = s->failures;
    return 0;
  }
  int rc = sl_store_begin(s->st) ||
           sl__batch_write(s->st, f->run_id, f->keep_all, &s->batch);
  for (int i = 0; i < s->cells.n && !rc; ++i) {
    sl_fuzz_cell_count *c = &s->cells.v[i];
    rc =
        sl_store_add_coverage(s->st, f->run_id, c->name, c->cases, c->failures);
  }
  rc = rc || sl_store_set_cursor(s->st, f->run_id, job, s->next_k) ||
       sl_store_commit(s->st);
  if (rc) {
    char keep[1024]; /* the rollback must not hide the reason */
    snprintf(keep, sizeof keep, "%s", sl_store_errmsg(s->st));
    sl_store_rollback(s->st);
    fprintf(stderr, "scatterlab fuzz: job %d: %s\n", job, keep);
    return -1;
  }
  /* The store holds the counts now: a job's memory stays flat however many
   * cells a long campaign meets. */
  s->done_committed = s->done;
  s->failures_committed = s->failures;
  sl_fuzz_cells_clear(&s->cells);
  sl__batch_clear(&s->batch);
  return 0;
}

static int sl__stop_asked(const sl_fuzz_campaign *f) {
  return sl_interrupted() || (f->stop && *f->stop);
}

int sl_fuzz_job_threads(const sl_fuzz_campaign *f) {
  int t = sl_default_threads() / (f->jobs > 0 ? f->jobs : 1);
  return t > 0 ? t : 1;
}

int sl_fuzz_job(const sl_fuzz_campaign *f, int job, FILE *out) {
  char err[512];
  sl_run_opts ro = {0};
  ro.variants = f->variants;
  ro.threads = sl_fuzz_job_threads(f);
  ro.max_case_bytes = f->max_case_bytes;
  ro.rerun_every = SL_FUZZ_RERUN_EVERY;
  /* A parallel job reruns on one thread (thread-count invariance, which
   * SL_DETERMINISTIC promises); a one-thread job on its one thread
   * (run-to-run only): a second thread would oversubscribe the cores (it
   * spun against the other job: half the cases). */
  ro.rerun_threads = ro.threads > 1 ? 1 : ro.threads;
  /* The reference runs in the worker, which gives its team the job's
   * share of the threads too (worker.c): this process starts none. */
  sl_worker *w;
  if (sl_worker_start(&w, &ro, err, sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: job %d: %s\n", job, err);
    return 1;
  }
  sl__job_state s = {0};
  s.met = calloc(SL_OP_COUNT, sizeof *s.met);
  int failed = 0;
  if (f->db) {
    if (sl_store_open(f->db, SL_STORE_READWRITE, &s.st, err, sizeof err) ||
        (f->resume && sl_store_get_cursor(s.st, f->run_id, job, &s.next_k))) {
      fprintf(stderr, "scatterlab fuzz: job %d: %s\n", job,
              s.st ? sl_store_errmsg(s.st) : err);
      sl_store_close(s.st);
      sl_worker_stop(w);
      return 1;
    }
  }
  double start = sl_now(), last = start;
  long worker_warm = -1, job_warm = -1;
  static sl_case_result res;
  for (;;) {
    uint64_t k = (uint64_t)s.next_k;
    uint64_t i =
        (k * (uint64_t)f->jobs + (uint64_t)job) * (uint64_t)f->shard_n +
        (uint64_t)f->shard_k;
    if (f->cases >= 0 && i >= (uint64_t)f->cases) break;
    if (f->cases < 0 && sl_now() - start >= f->seconds) break;
    if (sl__stop_asked(f)) break;
    ++s.next_k; /* committed with this case's results */
    sl_case c;
    sl_fuzz_case(f->seed, i, &f->gen, &c);
    if (sl_worker_run(w, &c, f->timeout, &res, err, sizeof err)) {
      /* A generated case the harness cannot even build is a bug of the
       * generator: report it like a failure. */
      sl_failure_sig sig;
      sl_failure_signature(&c, "harness", "failed", err, &sig);
      fprintf(out, "F harness\tfailed\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
              res.line, res.line, sig.id, sig.text, err, sig.id, sig.text);
      ++s.failures;
      continue;
    }
    ++s.done;
    int defect = res.ref_defect[0] ? sl_ref_defect_index(res.ref_defect) : -1;
    if (defect >= 0) ++s.ref_defects[defect];
    int which;
    char cell[160];
    sl_fuzz_cell(&c, cell, sizeof cell);
    sl_fuzz_cell_count *cc = sl_fuzz_cells_get(&s.cells, cell);
    if (cc) {
      ++cc->cases;
      cc->failures += sl__is_failure(&res, &which);
    }
    sl__count_met(s.met, &c, &res);
    if (sl__job_result(f, w, &s.batch, &s.found, &c, &res, out, &s.failures)) {
      fprintf(stderr, "scatterlab fuzz: job %d: out of memory\n", job);
      failed = 1;
      break;
    }
    double now = sl_now();
    if (worker_warm < 0 && s.done >= 1000 && now - start >= 2) {
      worker_warm = sl_worker_rss_kib(w);
      job_warm = sl__self_rss_kib();
    }
    if (now - last >= 0.5 || s.batch.n >= 512) {
      /* Commit at least twice a second: an interruption loses little. */
      if (sl__commit(f, job, &s)) {
        failed = 1;
        break;
      }
      fprintf(out, "P %" PRId64 " %" PRId64 "\n", s.done, s.failures);
      fflush(out);
      last = now;
    }
  }
  if (!failed && sl__commit(f, job, &s)) failed = 1;
  if (failed)
    fprintf(stderr,
            "scatterlab fuzz: job %d stopped early; what it committed before "
            "is kept\n",
            job);
  sl_store_close(s.st);
  sl__batch_clear(&s.batch);
  free(s.batch.p);
  /* What the store holds: after a failed commit, the cases and cells since
   * the last good one were rolled back, and are not counted. */
  fprintf(out, "P %" PRId64 " %" PRId64 "\n", s.done_committed,
          s.failures_committed);
  for (int i = 0; i < s.cells.n && !failed; ++i)
    fprintf(out, "C %s\t%" PRId64 "\t%" PRId64 "\n", s.cells.v[i].name,
            s.cells.v[i].cases, s.cells.v[i].failures);
  for (int i = 0; i < SL_REF_DEFECTS_MAX; ++i)
    if (s.ref_defects[i])
      fprintf(out, "R %d %" PRId64 "\n", i, s.ref_defects[i]);
  sl__send_met(s.met, out);
  fprintf(out, "M %ld %ld %ld %ld\n", worker_warm, sl_worker_rss_kib(w),
          job_warm, sl__self_rss_kib());
  fflush(out);
  free(s.met);
  sl_fuzz_cells_free(&s.cells);
  sl_found_memory_end(&s.found);
  sl_worker_stop(w);
  return failed;
}
