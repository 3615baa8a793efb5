/*
 * The corpus replay that opens a fuzz campaign: every case line of every
 * `.txt` file of the corpus folder is run again before new cases are drawn, so
 * a bug found once is checked on every later campaign. A failing replay is a
 * failure like any other: it is counted into the campaign's failure groups (so
 * the summary, JSON, JUnit and the GitHub annotations count it), and with a
 * store it is recorded in the run with its signature (so `report` and `report
 * --failures` count it too). A corpus entry that cannot be read, parsed or
 * run is a corpus error, counted apart: it says nothing of a kernel.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "failure_group.h"
#include "failure_report.h"
#include "interrupt.h"
#include "store_verdicts.h"
#include "text_lines.h"
#include "worker.h"

/* One replayed case: judged, recorded, and counted when it failed. Returns
 * -1 on a store error (message on stderr), else 0. */
static int sl__replay_one(const sl_fuzz_campaign *f, sl_worker *w, sl_store *st,
                          const char *file, const sl_case *c,
                          sl_fuzz_corpus_tally *t) {
  static sl_case_result res; /* large: not on the stack */
  char err[512];
  ++t->replayed;
  if (sl_worker_run(w, c, f->timeout, &res, err, sizeof err)) {
    printf("corpus %s: %s\n", file, err);
    ++t->errors;
    return 0;
  }
  int which = sl_fuzz_first_failure(&res);
  sl_failure_sig sig = {{0}, {0}};
  if (which >= 0) {
    const sl_variant_result *r = &res.v[which];
    const char *verdict = sl_verdict_name(r->verdict);
    sl_failure_signature(c, r->variant, verdict, r->message, &sig);
    if (sl_failure_groups_add(t->groups, sig.id, sig.text, r->variant, verdict,
                              res.line, res.line, r->message, NULL))
      fprintf(stderr, "scatterlab fuzz: out of memory\n");
    char repro[1400];
    sl_repro(res.line, r->variant, repro, sizeof repro);
    printf("corpus %s: %s %s\n    %s\n    repro: %s\n", file, verdict,
           r->variant, r->message, repro);
    ++t->failing;
  }
  if (!st) return 0;
  int64_t case_id = 0;
  if (sl_store_verdicts(st, f->run_id, c->op, c->dt, res.line, c->seed, 0,
                        f->keep_all, res.v, res.n, &case_id) ||
      (which >= 0 && case_id &&
       sl_store_set_signature(st, case_id, res.v[which].variant, sig.text))) {
    fprintf(stderr, "scatterlab fuzz: corpus %s: %s\n", file,
            sl_store_errmsg(st));
    return -1;
  }
  return 0;
}

/* The case lines of one corpus file. Returns -1 on a store error. */
static int sl__replay_file(const sl_fuzz_campaign *f, sl_worker *w,
                           sl_store *st, const char *name,
                           sl_fuzz_corpus_tally *t) {
  char path[1024], err[512], *line;
  snprintf(path, sizeof path, "%s/%s", f->corpus, name);
  sl_text_reader fp;
  if (sl_text_open(&fp, path, err, sizeof err)) {
    printf("corpus %s\n", err);
    ++t->errors;
    return 0;
  }
  int got, rc = 0;
  while (!rc && (got = sl_text_next(&fp, &line, err, sizeof err)) != 0) {
    if (got < 0) { /* a line too long or with a NUL byte */
      printf("corpus %s\n", err);
      ++t->errors;
      break;
    }
    if (!line[0] || line[0] == '#') continue;
    sl_case c;
    if (sl_case_parse(line, &c, err, sizeof err)) {
      printf("corpus %s: %s\n", path, err);
      ++t->errors;
      continue;
    }
    if (f->gen.ops && !(f->gen.ops & (1u << c.op)))
      continue; /* an op this campaign does not fuzz */
    rc = sl__replay_one(f, w, st, name, &c, t);
  }
  sl_text_close(&fp);
  return rc;
}

int sl_fuzz_replay_corpus(const sl_fuzz_campaign *f, sl_store *st,
                          sl_fuzz_corpus_tally *t) {
  t->replayed = t->failing = t->errors = 0;
  DIR *d = f->corpus ? opendir(f->corpus) : NULL;
  if (!d) return 0;
  char err[512];
  sl_run_opts ro = {0};
  ro.variants = f->variants;
  ro.rerun_every = 1; /* a corpus entry may be a determinism failure */
  sl_worker *w;
  if (sl_worker_start(&w, &ro, err, sizeof err)) {
    printf("corpus: %s\n", err);
    ++t->errors;
    closedir(d);
    return 0;
  }
  /* One transaction: the replay is a few dozen cases. */
  int rc = st && sl_store_begin(st) ? -1 : 0;
  struct dirent *e;
  while (!rc && (e = readdir(d)) && !sl_interrupted()) {
    size_t n = strlen(e->d_name);
    if (n >= 5 && strcmp(e->d_name + n - 4, ".txt") == 0)
      rc = sl__replay_file(f, w, st, e->d_name, t);
  }
  if (st && !rc && sl_store_commit(st)) rc = -1;
  if (rc && st)
    fprintf(stderr, "scatterlab fuzz: corpus: %s\n", sl_store_errmsg(st));
  closedir(d);
  sl_worker_stop(w);
  return rc;
}
