/* The scatterlab command line: shared option handling and the commands. */
#ifndef SL_CLI_H
#define SL_CLI_H

#include <stdio.h>

#define SL_DEFAULT_DB "results/scatterlab.db"

/* Exit statuses of every command. */
enum { SL_EXIT_OK = 0, SL_EXIT_FAIL = 1, SL_EXIT_USAGE = 2 };

/* Prints "scatterlab <cmd>: <message>" and a hint to stderr; returns 2. */
int sl_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reads the value of option argv[*i] ("--db PATH" or "--db=PATH"); advances
 * *i. Returns NULL (after printing a usage error) when it is missing. */
const char *sl_cli_value(const char *cmd, int argc, char **argv, int *i);
/* Whether argv[i] is option `name` (also as "name=value"). */
int sl_cli_is(const char *arg, const char *name);
/* Parses a non-negative integer option value; -1 with a usage message when
 * it is not one. */
long long sl_cli_int(const char *cmd, const char *opt, const char *v);

int sl_cmd_run(int argc, char **argv);
int sl_cmd_list(int argc, char **argv);
int sl_cmd_report(int argc, char **argv);
int sl_cmd_bench(int argc, char **argv);
int sl_cmd_fuzz(int argc, char **argv);
int sl_cmd_merge(int argc, char **argv);

#endif
