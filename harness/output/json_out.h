/*
 * `--format json` of fuzz, run, bench, history and list: one JSON document
 * on stdout, schema "scatterlab/1" (docs/json.md), written when the command
 * ends (it carries the exit status). The command's text goes to stderr
 * meanwhile, so that stdout parses whole. The JSON of `ab --json` uses the
 * same strings and numbers (ab_write.c).
 */
#ifndef SL_JSON_OUT_H
#define SL_JSON_OUT_H

#include <stdio.h>

struct sl_case_result;

/* A JSON string: quotes, backslashes and control characters escaped;
 * NULL is written as null. */
void sl_json_str(FILE *out, const char *s);
/* A JSON number, or null where the value is not finite. */
void sl_json_num(FILE *out, double v);

/* Sends what the command prints to stdout to stderr from now on and returns
 * a stream on the real stdout for the document; NULL (message printed) when
 * it cannot. */
FILE *sl_json_begin(const char *cmd);
/* Opens the document: {"schema": "scatterlab/1", "command": CMD,
 * "exit_status": N  (the caller adds its fields, then sl_json_end). */
void sl_json_head(FILE *out, const char *cmd, int exit_status);
/* Closes the document (the stream stays open). */
void sl_json_end(FILE *out);

/* `history --format json`'s fields after the head: the benchmarks that
 * the text lists (o->all: also those without change points), each with its
 * series and the levels between its change points. 0, or -1 with err; -2
 * when o->anchor has no timing in the store. */
struct sl_store;
struct sl_hist_opts;
int sl_json_history(FILE *out, struct sl_store *s, const struct sl_hist_opts *o,
                    char *err, size_t errlen);

/* One case's verdicts: {"case": LINE, "failures": N, "verdicts": [{"variant",
 * "verdict", "message", "repro"}]} (repro only for a failing verdict). */
void sl_json_case_result(FILE *out, const struct sl_case_result *r);

#endif
