/*
 * `scatterlab fuzz`: a campaign of generated cases on every variant, each
 * failure shrunk to a minimal repro and kept in the corpus.
 *
 * Case i of a campaign is sl_fuzz_case(seed, i): shard K/N takes the i with
 * i % N == K, and job j of J takes the shard's cases with (i / N) % J == j.
 * Each job is a forked process with its own worker (crash isolation) and its
 * own connection to the store; the parent prints progress and the summary.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "casegen.h"
#include "cli.h"
#include "runinfo.h"
#include "runner.h"
#include "shrink.h"
#include "sl_store.h"
#include "timing.h"
#include "worker.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif

static const char *const sl__fuzz_help =
    "usage: scatterlab fuzz [options]\n"
    "\n"
    "Generates random valid and invalid cases (about one in ten invalid on\n"
    "purpose) for every op, runs every variant against LibTorch, shrinks each\n"
    "failure to a minimal case and saves it in the corpus. The corpus is\n"
    "replayed first. Exit status 1 when anything failed.\n"
    "\n"
    "options:\n"
    "  --ops LIST        ops to fuzz (comma-separated; default all)\n"
    "  --variants LIST   variants to run (default all; `cpu` = cpu.*)\n"
    "  --dtypes LIST     data dtypes (default all each op allows)\n"
    "  --seconds S       run for S seconds (default 10)\n"
    "  --cases N         run cases 0..N-1 instead (0: replay the corpus only)\n"
    "  --seed N          campaign seed (default 1)\n"
    "  --max-elems N     largest tensor in elements (default 4096)\n"
    "  --jobs J          parallel jobs (default 1)\n"
    "  --shard K/N       this process runs shard K of N (CI matrices)\n"
    "  --timeout SEC     per-variant time limit (default 10)\n"
    "  --corpus DIR      failure corpus (default fuzz/corpus of the source)\n"
    "  --no-corpus       neither replay nor extend a corpus\n"
    "  --no-shrink       record failures as found\n"
    "  --print           print the case lines of this shard (with --cases N)\n"
    "                    instead of running them\n"
    "  --db PATH         results database (default " SL_DEFAULT_DB ")\n"
    "  --no-db           record nothing\n";

typedef struct sl__fuzz {
  sl_fuzz_opts gen;
  const char *variants;
  uint64_t seed;
  double seconds;
  int64_t cases; /* -1: by time */
  int jobs, shard_k, shard_n, shrink, print;
  double timeout;
  const char *corpus; /* NULL: none */
  const char *db;     /* NULL: no store */
  int64_t run_id;
} sl__fuzz;

/* Progress and results that a job reports to the parent, one line each:
 *   P <cases> <failures>            every so often
 *   F <variant>\t<verdict>\t<minimal line>\t<original line>
 *   C <cell>\t<cases>\t<failures>   at the end
 */
typedef struct sl__cell {
  char name[160];
  int64_t cases, failures;
} sl__cell;

typedef struct sl__cells {
  sl__cell *v;
  int n, cap;
} sl__cells;

static sl__cell *sl__cell_get(sl__cells *t, const char *name) {
  for (int i = 0; i < t->n; ++i)
    if (strcmp(t->v[i].name, name) == 0) return &t->v[i];
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 256;
    sl__cell *v = realloc(t->v, sizeof *v * (size_t)cap);
    if (!v) return NULL;
    t->v = v;
    t->cap = cap;
  }
  sl__cell *c = &t->v[t->n++];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  return c;
}

static int sl__parse_list(const char *cmd, const char *opt, const char *v,
                          int (*lookup)(const char *), unsigned *mask) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  *mask = 0;
  for (char *save = NULL, *w = strtok_r(buf, ",", &save); w;
       w = strtok_r(NULL, ",", &save)) {
    int k = lookup(w);
    if (k < 0 || k >= 32) {
      sl_cli_usage_error(cmd, "%s: unknown name \"%s\"", opt, w);
      return -1;
    }
    *mask |= 1u << k;
  }
  return 0;
}

static int sl__is_failure(const sl_case_result *r, int *which) {
  for (int i = 0; i < r->n; ++i)
    if (sl_verdict_is_failure(r->v[i].verdict)) {
      *which = i;
      return 1;
    }
  return 0;
}

static const sl_variant_result *sl__find(const sl_case_result *r,
                                         const char *variant) {
  for (int i = 0; i < r->n; ++i)
    if (strcmp(r->v[i].variant, variant) == 0) return &r->v[i];
  return NULL;
}

/*
 * Shrinks c while `variant` keeps the verdict `verdict`: tries the candidate
 * smaller cases, most aggressive first, and restarts from the first that
 * still fails, until none does (or the step budget is spent). *out gets the
 * minimal case and res its result.
 */
static void sl__shrink(sl__fuzz *f, sl_worker *w, const sl_case *c,
                       const char *variant, sl_verdict verdict, sl_case *out,
                       sl_case_result *res) {
  *out = *c;
  static sl_case cand[64];
  int steps = 0;
  double deadline = sl_now() + 30;
  for (int progress = 1; progress && steps < 400 && sl_now() < deadline;) {
    progress = 0;
    int n = sl_shrink_candidates(out, cand, 64);
    for (int i = 0; i < n && steps < 400; ++i, ++steps) {
      static sl_case_result r;
      char err[512];
      if (sl_worker_run_variants(w, &cand[i], variant, f->timeout, &r, err,
                                 sizeof err))
        continue;
      const sl_variant_result *v = sl__find(&r, variant);
      if (v && v->verdict == verdict) {
        *out = cand[i];
        *res = r;
        progress = 1;
        break;
      }
    }
  }
}

/* Writes the minimal case into the corpus: <dir>/<op>-<hash>.txt holding the
 * line (with the variant and verdict as a comment), and for a wrong answer
 * the .npy bundle of `scatterlab run --save` in <dir>/<op>-<hash>/. A crash
 * or hang gets no bundle: making it would run the kernel in this process. */
static void sl__corpus_add(const char *dir, const sl_case *c, const char *line,
                           const char *variant, sl_verdict verdict) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the line */
  for (const char *p = line; *p; ++p) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  char op[64];
  sscanf(line, "%63s", op);
  mkdir(dir, 0777);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-%016" PRIx64 ".txt", dir, op, h);
  FILE *fp = fopen(path, "w");
  if (!fp) return;
  fprintf(fp, "# found by scatterlab fuzz: %s %s\n%s\n", variant,
          sl_verdict_name(verdict), line);
  fclose(fp);
  if (verdict != SL_VERDICT_FAILED && verdict != SL_VERDICT_REJECT_MISMATCH)
    return;
  path[strlen(path) - 4] = '\0'; /* the bundle folder: the name without .txt */
  sl_run_opts o = {0};
  o.variants = variant;
  o.save_dir = path;
  static sl_case_result res;
  char err[512];
  sl_run_case(c, &o, &res, err, sizeof err);
}

static int sl__record(sl_store *st, int64_t run_id, const sl_case *c,
                      const sl_case_result *res, int64_t shrunk_from,
                      int64_t *case_id) {
  if (sl_store_add_case(st, run_id, sl_op_name(c->op), res->line, c->seed,
                        shrunk_from, case_id))
    return -1;
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    sl_result_row row = {r->variant, sl_verdict_name(r->verdict), r->message,
                         r->has_diffs, r->diff1, r->diff2, r->diff3,
                         r->seconds};
    if (sl_store_add_result(st, *case_id, &row)) return -1;
  }
  return 0;
}

/* Handles one case's result in a job: store, failure shrinking, corpus. */
static void sl__job_result(sl__fuzz *f, sl_worker *w, sl_store *st,
                           const sl_case *c, sl_case_result *res, FILE *out,
                           int64_t *failures) {
  int which;
  int64_t case_id = 0;
  if (st) sl__record(st, f->run_id, c, res, 0, &case_id);
  if (!sl__is_failure(res, &which)) return;
  ++*failures;
  sl_variant_result first = res->v[which];
  sl_case minimal = *c;
  static sl_case_result mres;
  mres = *res;
  if (f->shrink && first.verdict != SL_VERDICT_TIMEOUT)
    sl__shrink(f, w, c, first.variant, first.verdict, &minimal, &mres);
  char line[SL_CASE_LINE_MAX];
  sl_case_print(&minimal, line, sizeof line);
  if (st && f->shrink) {
    int64_t mid;
    sl__record(st, f->run_id, &minimal, &mres, case_id, &mid);
  }
  if (f->corpus)
    sl__corpus_add(f->corpus, &minimal, line, first.variant, first.verdict);
  fprintf(out, "F %s\t%s\t%s\t%s\t%s\n", first.variant,
          sl_verdict_name(first.verdict), line, res->line, first.message);
  fflush(out);
}

/* One job: its share of the campaign, reported on `out`. */
static int sl__job(sl__fuzz *f, int job, FILE *out) {
  char err[512];
  sl_run_opts ro = {0};
  ro.variants = f->variants;
  sl_worker *w;
  if (sl_worker_start(&w, &ro, err, sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: %s\n", err);
    return 1;
  }
  sl_store *st = NULL;
  if (f->db && sl_store_open(f->db, SL_STORE_READWRITE, &st, err, sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: %s\n", err);
    sl_worker_stop(w);
    return 1;
  }
  sl__cells cells = {0};
  int64_t done = 0, failures = 0;
  double start = sl_now(), last = start;
  if (st) sl_store_begin(st);
  static sl_case_result res;
  for (uint64_t k = 0;; ++k) {
    /* The k-th case of this job within this shard. */
    uint64_t i = (k * (uint64_t)f->jobs + (uint64_t)job) * (uint64_t)f->shard_n +
                 (uint64_t)f->shard_k;
    if (f->cases >= 0 && i >= (uint64_t)f->cases) break;
    if (f->cases < 0 && sl_now() - start >= f->seconds) break;
    sl_case c;
    sl_fuzz_case(f->seed, i, &f->gen, &c);
    if (sl_worker_run(w, &c, f->timeout, &res, err, sizeof err)) {
      /* A generated case the harness cannot even build is a bug of the
       * generator: report it like a failure. */
      fprintf(out, "F harness\tfailed\t%s\t%s\t%s\n", res.line, res.line, err);
      ++failures;
      continue;
    }
    ++done;
    int which;
    char cell[160];
    sl_fuzz_cell(&c, cell, sizeof cell);
    sl__cell *cc = sl__cell_get(&cells, cell);
    if (cc) {
      ++cc->cases;
      cc->failures += sl__is_failure(&res, &which);
    }
    sl__job_result(f, w, st, &c, &res, out, &failures);
    double now = sl_now();
    if (now - last >= 0.5) {
      /* Commit at least twice a second: an interruption loses little. */
      if (st) sl_store_commit(st), sl_store_begin(st);
      fprintf(out, "P %" PRId64 " %" PRId64 "\n", done, failures);
      fflush(out);
      last = now;
    }
  }
  if (st) {
    for (int i = 0; i < cells.n; ++i)
      sl_store_add_coverage(st, f->run_id, cells.v[i].name, cells.v[i].cases,
                            cells.v[i].failures);
    sl_store_commit(st);
    sl_store_close(st);
  }
  fprintf(out, "P %" PRId64 " %" PRId64 "\n", done, failures);
  for (int i = 0; i < cells.n; ++i)
    fprintf(out, "C %s\t%" PRId64 "\t%" PRId64 "\n", cells.v[i].name,
            cells.v[i].cases, cells.v[i].failures);
  fflush(out);
  free(cells.v);
  sl_worker_stop(w);
  return 0;
}

typedef struct sl__failure {
  char *text;
} sl__failure;

/* Replays every corpus file (one case line each); returns failures. */
static int sl__replay_corpus(sl__fuzz *f, int *replayed) {
  DIR *d = f->corpus ? opendir(f->corpus) : NULL;
  *replayed = 0;
  if (!d) return 0;
  char err[512];
  sl_run_opts ro = {0};
  ro.variants = f->variants;
  sl_worker *w;
  if (sl_worker_start(&w, &ro, err, sizeof err)) {
    closedir(d);
    return 0;
  }
  int failures = 0;
  struct dirent *e;
  static sl_case_result res;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0) continue;
    char path[1024], line[4200];
    snprintf(path, sizeof path, "%s/%s", f->corpus, e->d_name);
    FILE *fp = fopen(path, "r");
    if (!fp) continue;
    while (fgets(line, sizeof line, fp)) {
      line[strcspn(line, "\r\n")] = '\0';
      if (!line[0] || line[0] == '#') continue;
      sl_case c;
      if (sl_case_parse(line, &c, err, sizeof err)) {
        printf("corpus %s: %s\n", path, err);
        ++failures;
        continue;
      }
      ++*replayed;
      int which;
      if (sl_worker_run(w, &c, f->timeout, &res, err, sizeof err)) {
        printf("corpus %s: %s\n", path, err);
        ++failures;
      } else if (sl__is_failure(&res, &which)) {
        char repro[1400];
        sl_repro(res.line, res.v[which].variant, repro, sizeof repro);
        printf("corpus %s: %s %s\n    %s\n    repro: %s\n", e->d_name,
               sl_verdict_name(res.v[which].verdict), res.v[which].variant,
               res.v[which].message, repro);
        ++failures;
      }
    }
    fclose(fp);
  }
  closedir(d);
  sl_worker_stop(w);
  return failures;
}

static int sl__dtype_lookup(const char *s) { return sl_dtype_from_name(s); }
static int sl__op_lookup(const char *s) { return sl_op_from_name(s); }

int sl_cmd_fuzz(int argc, char **argv) {
  sl__fuzz f;
  memset(&f, 0, sizeof f);
  sl_fuzz_opts_init(&f.gen);
  f.seed = 1;
  f.seconds = 10;
  f.cases = -1;
  f.jobs = 1;
  f.shard_n = 1;
  f.shrink = 1;
  f.timeout = 10;
  static char corpus_default[1024];
  snprintf(corpus_default, sizeof corpus_default, "%s/fuzz/corpus",
           SL_SOURCE_DIR);
  f.corpus = corpus_default;
  f.db = SL_DEFAULT_DB;
  const char *v;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    long long n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__fuzz_help, stdout);
      return SL_EXIT_OK;
    } else if (sl_cli_is(a, "--ops")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--ops", v, sl__op_lookup, &f.gen.ops))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--dtypes")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--dtypes", v, sl__dtype_lookup, &f.gen.dtypes))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--variants")) {
      if (!(f.variants = sl_cli_value("fuzz", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--seconds")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
      char *end;
      f.seconds = strtod(v, &end);
      if (!*v || *end || !(f.seconds > 0))
        return sl_cli_usage_error("fuzz", "--seconds: expected a number > 0, "
                                          "got \"%s\"", v);
    } else if (sl_cli_is(a, "--cases")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (f.cases = sl_cli_int("fuzz", "--cases", v)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--seed")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (n = sl_cli_int("fuzz", "--seed", v)) < 0)
        return SL_EXIT_USAGE;
      f.seed = (uint64_t)n;
    } else if (sl_cli_is(a, "--max-elems")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (n = sl_cli_int("fuzz", "--max-elems", v)) < 0)
        return SL_EXIT_USAGE;
      if (n < 1 || n > (INT64_C(1) << 28))
        return sl_cli_usage_error("fuzz", "--max-elems: expected 1..2^28, got "
                                          "%lld", n);
      f.gen.max_elems = n;
    } else if (sl_cli_is(a, "--jobs")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (n = sl_cli_int("fuzz", "--jobs", v)) < 0)
        return SL_EXIT_USAGE;
      if (n < 1 || n > 256)
        return sl_cli_usage_error("fuzz", "--jobs: expected 1..256, got %lld",
                                  n);
      f.jobs = (int)n;
    } else if (sl_cli_is(a, "--shard")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
      int k, m, used = 0;
      if (sscanf(v, "%d/%d%n", &k, &m, &used) != 2 || v[used] || m < 1 ||
          k < 0 || k >= m)
        return sl_cli_usage_error("fuzz", "--shard: expected K/N with 0 <= K "
                                          "< N, got \"%s\"", v);
      f.shard_k = k;
      f.shard_n = m;
    } else if (sl_cli_is(a, "--timeout")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
      char *end;
      f.timeout = strtod(v, &end);
      if (!*v || *end || !(f.timeout > 0))
        return sl_cli_usage_error("fuzz", "--timeout: expected seconds > 0, "
                                          "got \"%s\"", v);
    } else if (sl_cli_is(a, "--corpus")) {
      if (!(f.corpus = sl_cli_value("fuzz", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (strcmp(a, "--no-corpus") == 0) {
      f.corpus = NULL;
    } else if (strcmp(a, "--no-shrink") == 0) {
      f.shrink = 0;
    } else if (strcmp(a, "--print") == 0) {
      f.print = 1;
    } else if (sl_cli_is(a, "--db")) {
      if (!(f.db = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
    } else if (strcmp(a, "--no-db") == 0) {
      f.db = NULL;
    } else {
      return sl_cli_usage_error("fuzz", "%s: unknown argument", a);
    }
  }
  if (f.print) {
    if (f.cases < 0)
      return sl_cli_usage_error("fuzz", "--print: expected --cases N as well");
    for (int64_t i = f.shard_k; i < f.cases; i += f.shard_n) {
      sl_case c;
      char line[SL_CASE_LINE_MAX];
      sl_fuzz_case(f.seed, (uint64_t)i, &f.gen, &c);
      sl_case_print(&c, line, sizeof line);
      printf("%s\n", line);
    }
    return SL_EXIT_OK;
  }
  sl_store *st = NULL;
  if (f.db) {
    char err[512];
    if (sl_store_open(f.db, SL_STORE_READWRITE, &st, err, sizeof err)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", err);
      return SL_EXIT_FAIL;
    }
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, "fuzz", argc, argv, 0);
    if (sl_store_run_begin(st, &ri.info, &f.run_id)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(st));
      sl_store_close(st);
      return SL_EXIT_FAIL;
    }
  }
  int replayed = 0;
  int corpus_failures = sl__replay_corpus(&f, &replayed);
  if (f.corpus)
    printf("corpus: %d cases replayed from %s, %d failing\n", replayed,
           f.corpus, corpus_failures);
  int interactive = isatty(STDOUT_FILENO) && !getenv("CI");
  /* Jobs report on one pipe each; the parent merges their lines. */
  FILE **pipes = calloc((size_t)f.jobs, sizeof(FILE *));
  pid_t *pids = calloc((size_t)f.jobs, sizeof(pid_t));
  int64_t *done = calloc((size_t)f.jobs, sizeof(int64_t));
  int64_t *fails = calloc((size_t)f.jobs, sizeof(int64_t));
  if (!pipes || !pids || !done || !fails) return SL_EXIT_FAIL;
  fflush(NULL);
  for (int j = 0; j < f.jobs; ++j) {
    int fd[2];
    if (pipe(fd)) return SL_EXIT_FAIL;
    pids[j] = fork();
    if (pids[j] == 0) {
      close(fd[0]);
      FILE *out = fdopen(fd[1], "w");
      _exit(sl__job(&f, j, out));
    }
    close(fd[1]);
    pipes[j] = fdopen(fd[0], "r");
  }
  sl__cells cells = {0};
  char **failures = NULL;
  int nfail = 0, open_pipes = f.jobs;
  double start = sl_now(), last_print = start, first_failure = -1;
  char line[8192];
  while (open_pipes > 0) {
    struct pollfd *pf = calloc((size_t)f.jobs, sizeof *pf);
    for (int j = 0; j < f.jobs; ++j) {
      pf[j].fd = pipes[j] ? fileno(pipes[j]) : -1;
      pf[j].events = POLLIN;
    }
    poll(pf, (nfds_t)f.jobs, 1000);
    for (int j = 0; j < f.jobs; ++j) {
      if (!pipes[j] || !(pf[j].revents & (POLLIN | POLLHUP))) continue;
      if (!fgets(line, sizeof line, pipes[j])) {
        fclose(pipes[j]);
        pipes[j] = NULL;
        --open_pipes;
        continue;
      }
      line[strcspn(line, "\n")] = '\0';
      if (line[0] == 'P') {
        sscanf(line + 2, "%" SCNd64 " %" SCNd64, &done[j], &fails[j]);
      } else if (line[0] == 'F') {
        if (first_failure < 0) first_failure = sl_now() - start;
        char **nf = realloc(failures, sizeof(char *) * (size_t)(nfail + 1));
        if (nf) {
          failures = nf;
          failures[nfail++] = strdup(line + 2);
        }
      } else if (line[0] == 'C') {
        char *t1 = strchr(line + 2, '\t');
        if (!t1) continue;
        *t1 = '\0';
        sl__cell *c = sl__cell_get(&cells, line + 2);
        long long a = 0, b = 0;
        sscanf(t1 + 1, "%lld\t%lld", &a, &b);
        if (c) c->cases += a, c->failures += b;
      }
    }
    free(pf);
    double now = sl_now();
    int64_t total = 0, totfail = 0;
    for (int j = 0; j < f.jobs; ++j) total += done[j], totfail += fails[j];
    double el = now - start;
    if (interactive) {
      printf("\r%" PRId64 " cases  %.0f/s  %" PRId64 " failures  %.0f s left   ",
             total, el > 0 ? total / el : 0.0, totfail,
             f.cases < 0 && f.seconds > el ? f.seconds - el : 0.0);
      fflush(stdout);
    } else if (now - last_print >= 5) {
      printf("fuzz: %" PRId64 " cases, %.0f cases/s, %" PRId64 " failures, %.0f s "
             "elapsed\n", total, el > 0 ? total / el : 0.0, totfail, el);
      fflush(stdout);
      last_print = now;
    }
  }
  int job_failed = 0;
  for (int j = 0; j < f.jobs; ++j) {
    int status;
    waitpid(pids[j], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) job_failed = 1;
  }
  double elapsed = sl_now() - start;
  int64_t total = 0, totfail = 0;
  for (int j = 0; j < f.jobs; ++j) total += done[j], totfail += fails[j];
  if (interactive) printf("\n");
  /* Coverage: cells hit per op, and the number of distinct cells. */
  printf("\ncoverage: %d semantic cells hit "
         "(op|dt|reduce|self|it|layout|shape|ip|dp|validity)\n", cells.n);
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    int nc = 0;
    int64_t ncases = 0;
    size_t len = strlen(sl_op_name((sl_op)op));
    for (int i = 0; i < cells.n; ++i)
      if (strncmp(cells.v[i].name, sl_op_name((sl_op)op), len) == 0 &&
          cells.v[i].name[len] == '|')
        ++nc, ncases += cells.v[i].cases;
    if (nc) printf("  %-26s %5d cells %8" PRId64 " cases\n", sl_op_name((sl_op)op), nc, ncases);
  }
  printf("\n%" PRId64 " cases in %.1f s (%.0f cases/s), %" PRId64
         " failing, %d corpus failures\n",
         total, elapsed, elapsed > 0 ? total / elapsed : 0.0, totfail,
         corpus_failures);
  if (first_failure >= 0)
    printf("first failure found after %.1f s (shrinking included)\n",
           first_failure);
  for (int i = 0; i < nfail; ++i) {
    char *fields[5] = {0};
    char *p = failures[i];
    for (int k = 0; k < 5 && p; ++k) {
      fields[k] = p;
      p = strchr(p, '\t');
      if (p) *p++ = '\0';
    }
    char repro[1400];
    sl_repro(fields[2] ? fields[2] : "", fields[0], repro, sizeof repro);
    printf("FAIL %s %s\n    %s\n    minimal: %s\n    found as: %s\n",
           fields[1] ? fields[1] : "?", fields[0] ? fields[0] : "?",
           fields[4] ? fields[4] : "", repro, fields[3] ? fields[3] : "");
    free(failures[i]);
  }
  free(failures);
  free(cells.v);
  free(pipes);
  free(pids);
  free(done);
  free(fails);
  if (st) {
    sl_store_run_finish(st, f.run_id, job_failed ? "failed" : "finished");
    sl_store_close(st);
    printf("results: %s (run %lld)\n", f.db, (long long)f.run_id);
  }
  return (totfail || corpus_failures || job_failed) ? SL_EXIT_FAIL : SL_EXIT_OK;
}
