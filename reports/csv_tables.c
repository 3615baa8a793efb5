/*
 * The column lists of the CSV exports: the one place a header is spelled.
 * The writers print their headers from here and `report --help` lists them
 * from here (sl_csv_tables_help), so the three never disagree. Columns are
 * only ever appended, in the order of their first release: a column moved
 * or removed breaks every consumer that reads by position, and
 * tests/data/csv_headers.txt pins each list (reports.test_csv_tables).
 */
#include <string.h>

#include "sl_report.h"

/* Each list as first released, later columns after it in the order they
 * came: results' shrunk_from (issue 29); runs' copy_gbs_end (schema v4),
 * core_rtt_ns and core_rtt_ns_end (v5), reference (v6), config (issue 29:
 * a fuzz run's options, any run's --tolerance). */
static const char *const sl__results[] = {
    "run_id", "case_id", "op",   "variant",   "verdict", "diff1",       "diff2",
    "diff3",  "seconds", "seed", "case_line", "message", "shrunk_from", NULL};
static const char *const sl__timings[] = {
    "run_id", "case_id",  "timing_id", "op",      "variant", "threads",
    "cold",   "reps",     "median_s",  "iqr_s",   "min_s",   "bytes",
    "gbs",    "pct_peak", "case_line", "samples", NULL};
static const char *const sl__tallies[] = {
    "run_id", "op", "dtype", "variant", "verdict", "count", NULL};
static const char *const sl__coverage[] = {"run_id", "cell", "cases",
                                           "failures", NULL};
static const char *const sl__runs[] = {"run_id",      "kind",
                                       "started_at",  "finished_at",
                                       "status",      "git_commit",
                                       "host",        "cpu_model",
                                       "cores",       "threads",
                                       "compiler",    "flags",
                                       "version",     "device",
                                       "copy_gbs",    "command_line",
                                       "cases",       "results",
                                       "failed",      "copy_gbs_end",
                                       "core_rtt_ns", "core_rtt_ns_end",
                                       "reference",   "config",
                                       NULL};

static const sl_csv_table sl__tables[] = {
    {"results",
     "(default) one row per stored (case, variant); a fuzz run keeps "
     "failing cases only, unless --keep all",
     sl__results},
    {"tallies", "every verdict counted, stored or not", sl__tallies},
    {"timings", "one row per timing, raw samples space-separated", sl__timings},
    {"coverage", "fuzz generator cells", sl__coverage},
    {"runs", "one row per run", sl__runs},
};

const sl_csv_table *sl_csv_table_at(size_t i) {
  return i < sizeof sl__tables / sizeof sl__tables[0] ? &sl__tables[i] : NULL;
}

const sl_csv_table *sl_csv_table_find(const char *name) {
  for (size_t i = 0; sl_csv_table_at(i); ++i)
    if (strcmp(sl__tables[i].name, name) == 0) return &sl__tables[i];
  return NULL;
}

void sl_csv_header(FILE *out, const sl_csv_table *t) {
  for (size_t c = 0; t->columns[c]; ++c)
    fprintf(out, "%s%s", c ? "," : "", t->columns[c]);
  fputc('\n', out);
}

/* Prints word at column *col, first breaking the line (to `indent`
 * spaces) when it would pass column 76; `space`: a blank separates it from
 * the word before on the same line. */
static void sl__word(FILE *out, int *col, int indent, const char *word,
                     int space) {
  int len = (int)strlen(word);
  if (*col > indent && *col + space + len > 76) {
    fprintf(out, "\n%*s", indent, "");
    *col = indent;
  } else if (space && *col > indent) {
    fputc(' ', out);
    ++*col;
  }
  fputs(word, out);
  *col += len;
}

void sl_csv_tables_help(FILE *out) {
  for (size_t i = 0; sl_csv_table_at(i); ++i) {
    const sl_csv_table *t = &sl__tables[i];
    int col = fprintf(out, "  %-9s ", t->name);
    /* The description word by word, then the header a column at a time
     * (each with its comma: a line breaks after one). */
    char what[256], word[64];
    snprintf(what, sizeof what, "%s:", t->what);
    for (char *w = strtok(what, " "); w; w = strtok(NULL, " "))
      sl__word(out, &col, 12, w, 1);
    for (size_t c = 0; t->columns[c]; ++c) {
      snprintf(word, sizeof word, "%s%s", t->columns[c],
               t->columns[c + 1] ? "," : "");
      sl__word(out, &col, 12, word, c == 0);
    }
    fputc('\n', out);
  }
}
