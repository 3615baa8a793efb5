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
    "ambiguous otherwise, or with too few samples.\n"
    "options:\n"
    "  --db PATH          database of run ids (default " SL_DEFAULT_DB ")\n"
    "  --threshold PCT    smallest change that counts, in % (default 5)\n"
    "  --alpha P          significance level (default 0.05)\n"
    "  --min-samples N    fewer per side: too few samples (default 5)\n"
    "  --anchor VARIANT   compare each time over VARIANT's median on the\n"
    "                     same case in the same run (torch.cpu: bench times\n"
    "                     it in turns with the others), so that a machine\n"
    "                     slower in one run than in the other cancels out\n"
    "  --format F         text (default), markdown, csv or html\n"
    "  -o FILE            write to FILE (new, or a regular file of yours)\n"
    "                     instead of standard output (- for it)\n"
    "exit status: 1 when a benchmark is slower, 0 otherwise, 2 usage error\n"
    "3 when no benchmark is in both runs (nothing compared)\n"
    "or unreadable input\n";

/* A number option in (lo, hi]; trailing '%' allowed when pct. */
static int sl__number(const char *opt, const char *v, double lo, double hi,
                      int pct, double *out) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (pct && *end == '%') ++end;
  if (!*v || *end || errno || !(x > lo && x <= hi)) {
    sl_cli_usage_error("compare",
                       "%s: expected a number in (%g, %g], got "
                       "\"%s\"",
                       opt, lo, hi, v);
    return -1;
  }
  *out = x;
  return 0;
}

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

static int sl__format(const char *v, sl_cmp_format *f) {
  static const struct {
    const char *name;
    sl_cmp_format f;
  } formats[] = {{"text", SL_CMP_TEXT},
                 {"markdown", SL_CMP_MARKDOWN},
                 {"csv", SL_CMP_CSV},
                 {"html", SL_CMP_HTML}};
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i)
    if (strcmp(v, formats[i].name) == 0) {
      *f = formats[i].f;
      return 0;
    }
  sl_cli_usage_error("compare",
                     "--format: expected text, markdown, csv or "
                     "html, got \"%s\"",
                     v);
  return -1;
}

/* Reads the options; 0, or an exit status. */
static int sl__compare_args(int argc, char **argv, const char **db,
                            const char **outpath, sl_cmp_opts *o,
                            sl_cmp_format *fmt, const char **sides) {
  int nsides = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v;
    double x;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__compare_help, stdout);
      return -1;
    } else if (sl_cli_is(a, "--db")) {
      if (!(*db = sl_cli_value("compare", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--threshold")) {
      if (!(v = sl_cli_value("compare", argc, argv, &i)) ||
          sl__number("--threshold", v, 0, 1000, 1, &x))
        return SL_EXIT_USAGE;
      o->threshold = x / 100;
    } else if (sl_cli_is(a, "--alpha")) {
      if (!(v = sl_cli_value("compare", argc, argv, &i)) ||
          sl__number("--alpha", v, 0, 0.5, 0, &o->alpha))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--min-samples")) {
      if ((o->min_samples = (int)sl_cli_int_option("compare", argc, argv, &i, 2,
                                                   1000000)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--format")) {
      if (!(v = sl_cli_value("compare", argc, argv, &i)) || sl__format(v, fmt))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--anchor")) {
      if (!(o->anchor = sl_cli_value("compare", argc, argv, &i)))
        return SL_EXIT_USAGE;
      if (!o->anchor[0] || strlen(o->anchor) >= 64)
        return sl_cli_usage_error("compare",
                                  "--anchor: expected a variant name "
                                  "(torch.cpu), got \"%.80s\"",
                                  o->anchor);
    } else if (strcmp(a, "-o") == 0 || sl_cli_is(a, "--output")) {
      if (!(*outpath = sl_cli_value("compare", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (a[0] == '-' && a[1] == '-') {
      return sl_cli_usage_error("compare", "%s: unknown option", a);
    } else if (nsides == 2) {
      return sl_cli_usage_error("compare",
                                "%s: expected two runs (BASE "
                                "CAND), got a third",
                                a);
    } else {
      sides[nsides++] = a;
    }
  }
  if (nsides != 2)
    return sl_cli_usage_error("compare",
                              "expected BASE and CAND, got %d of "
                              "them",
                              nsides);
  return 0;
}

int sl_cmd_compare(int argc, char **argv) {
  const char *db = SL_DEFAULT_DB, *outpath = NULL, *sides[2];
  sl_cmp_opts o;
  sl_cmp_opts_init(&o);
  sl_cmp_format fmt = SL_CMP_TEXT;
  int rc = sl__compare_args(argc, argv, &db, &outpath, &o, &fmt, sides);
  if (rc) return rc < 0 ? SL_EXIT_OK : rc;
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
