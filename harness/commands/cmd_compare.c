/* `scatterlab compare`: the timings of two runs, benchmark by benchmark,
 * with an exit status a CI job can gate on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "safe_file.h"
#include "sl_report.h"
#include "sl_store.h"

static const char *const sl__compare_help =
    "usage: scatterlab compare [options] BASE CAND\n"
    "\n"
    "Compares the timings of two runs (the raw samples of every benchmark:\n"
    "case line, variant, threads, warm or cold). BASE and CAND are each\n"
    "  ID         a run in --db\n"
    "  FILE       a database file: its newest run with timings\n"
    "  FILE:ID    run ID in that database file\n"
    "Per benchmark: ratio = candidate / base time (Hodges-Lehmann on log\n"
    "times) with its 95% interval, the Mann-Whitney U p-value, the noise\n"
    "(larger relative IQR) and a verdict: slower or faster only when the\n"
    "change is significant (p < alpha, interval excludes 1), at least the\n"
    "threshold and beyond the noise; same when it is below the threshold;\n"
    "ambiguous otherwise, or with too few samples.\n";

static const char *const sl__compare_help_after =
    "exit status: 1 when a benchmark is slower, 0 otherwise, 2 usage error\n"
    "3 when no benchmark is in both runs (nothing compared)\n"
    "or unreadable input\n";

/* Whether s is a run id: decimal digits only. */
static int sl__is_id(const char *s) {
  if (!*s) return 0;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* One side: opens its store (or reuses `shared` for a bare id) and picks
 * the run. 0, or an exit status. */
static int sl__open_side(const char *arg, const char *db, sl_store **shared,
                         sl_store **own, sl_cmp_side *side) {
  char path[4096];
  long long id = 0;
  *own = NULL;
  const char *colon = strrchr(arg, ':');
  struct stat sb;
  if (sl__is_id(arg)) {
    id = strtoll(arg, NULL, 10);
    snprintf(path, sizeof path, "%s", db);
  } else if (colon && sl__is_id(colon + 1) && stat(arg, &sb) != 0) {
    snprintf(path, sizeof path, "%.*s", (int)(colon - arg), arg);
    id = strtoll(colon + 1, NULL, 10);
  } else {
    snprintf(path, sizeof path, "%s", arg);
  }
  sl_store **slot = sl__is_id(arg) ? shared : own;
  int open_rc = *slot ? 0 : sl_cli_open_store("compare", path, 1, slot);
  if (open_rc) return open_rc;
  side->store = *slot;
  if (id == 0) {
    int64_t last = sl_store_last_timed_run(*slot);
    if (last <= 0) {
      fprintf(stderr, "scatterlab compare: %s: %s\n", path,
              last < 0 ? sl_store_errmsg(*slot) : "no run with timings");
      return SL_EXIT_USAGE;
    }
    id = last;
  }
  side->run_id = id;
  return 0;
}

/* Reads the options; 0, SL_OPTIONS_HELP, or an exit status. */
static int sl__compare_args(int argc, char **argv, const char **db,
                            const char **outpath, sl_cmp_opts *o,
                            sl_cmp_format *fmt, const char **sides) {
  static const sl_command_help help = {SL_CMD_COMPARE, sl__compare_help,
                                       sl__compare_help_after, NULL};
  /* the order of COMPARE_FORMAT's words in options.def */
  static const sl_cmp_format formats[] = {SL_CMP_TEXT, SL_CMP_MARKDOWN,
                                          SL_CMP_CSV, SL_CMP_HTML};
  sl_options opt;
  int rc = sl_options_parse(&help, argc, argv, &opt);
  *db = sl_opt_text(&opt, SL_OPT_DB);
  *outpath = sl_opt_text(&opt, SL_OPT_OUTPUT);
  o->threshold = opt.v[SL_OPT_THRESHOLD].x;
  o->alpha = opt.v[SL_OPT_COMPARE_ALPHA].x;
  o->min_samples = (int)opt.v[SL_OPT_MIN_SAMPLES].n;
  o->anchor = sl_opt_text(&opt, SL_OPT_ANCHOR);
  *fmt = formats[opt.v[SL_OPT_COMPARE_FORMAT].n];
  if (!rc && o->anchor && (!o->anchor[0] || strlen(o->anchor) >= 64))
    rc = sl_cli_usage_error("compare",
                            "--anchor: expected a variant name (torch.cpu), "
                            "got \"%.80s\"",
                            o->anchor);
  if (!rc && opt.nwords != 2)
    rc = sl_cli_usage_error("compare", "expected BASE and CAND, got %d of them",
                            opt.nwords);
  if (!rc) sides[0] = opt.words[0], sides[1] = opt.words[1];
  sl_options_free(&opt); /* the values are argv's words */
  return rc;
}

int sl_cmd_compare(int argc, char **argv) {
  const char *db, *outpath, *sides[2];
  sl_cmp_opts o;
  sl_cmp_opts_init(&o);
  sl_cmp_format fmt = SL_CMP_TEXT;
  int rc = sl__compare_args(argc, argv, &db, &outpath, &o, &fmt, sides);
  if (rc) return rc == SL_OPTIONS_HELP ? SL_EXIT_OK : rc;
  if (sl_cli_output_check("compare", "-o", outpath, db, argc, argv))
    return SL_EXIT_USAGE;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  sl_store *shared = NULL, *own[2] = {NULL, NULL};
  sl_cmp_side side[2];
  sl_cmp_set set;
  memset(&set, 0, sizeof set);
  for (int k = 0; k < 2 && !rc; ++k)
    rc = sl__open_side(sides[k], db, &shared, &own[k], &side[k]);
  char err[1024];
  if (!rc && sl_cmp_runs(&side[0], &side[1], &o, &set, err, sizeof err)) {
    fprintf(stderr, "scatterlab compare: %s\n", err);
    rc = SL_EXIT_USAGE;
  }
  sl_safe_file sf;
  if (!rc && sl_safe_open_out(&sf, outpath, err, sizeof err)) {
    fprintf(stderr, "scatterlab compare: -o %s\n", err);
    rc = SL_EXIT_INCOMPLETE;
  }
  if (!rc) {
    int werr = sl_cmp_write(&set, &o, fmt, sf.f) != 0;
    if (werr) {
      sl_safe_abort(&sf);
      snprintf(err, sizeof err, "%s: write error",
               outpath ? outpath : "standard output");
    } else {
      werr = sl_safe_commit(&sf, err, sizeof err) != 0;
    }
    if (werr) {
      fprintf(stderr, "scatterlab compare: %s\n", err);
      rc = SL_EXIT_INCOMPLETE;
    } else if (set.n == 0) {
      /* A gate that compared nothing must not pass: the runs timed other
       * cases, variants, threads or warm/cold settings. */
      fprintf(stderr,
              "scatterlab compare: expected benchmarks in both runs (same "
              "case line, variant, threads, warm/cold), got none: %d only in "
              "%s, %d only in %s; nothing was compared\n",
              set.only_base, set.base_name ? set.base_name : "the base",
              set.only_cand, set.cand_name ? set.cand_name : "the candidate");
      rc = SL_EXIT_INCOMPLETE;
    } else {
      rc = set.counts[SL_CMP_SLOWER] ? SL_EXIT_FAIL : SL_EXIT_OK;
    }
  }
  sl_cmp_set_free(&set);
  sl_store_close(shared);
  sl_store_close(own[0]);
  sl_store_close(own[1]);
  return rc;
}
