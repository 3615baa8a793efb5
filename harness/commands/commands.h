/* The scatterlab commands, one file each (cmd_*.c), dispatched by
 * commands.c. */
#ifndef SL_COMMANDS_H
#define SL_COMMANDS_H

#include "cli.h"
#include "options.h"

/* Runs `scatterlab argv[1] ...`; returns the exit status. */
int sl_cli_main(int argc, char **argv);

int sl_cmd_run(int argc, char **argv);
/* `scatterlab run` as command h->cmd (its name is the default run kind,
 * its help h) and, when args_fn is not NULL, its words that are not options
 * handed to args_fn, which pushes the case lines they stand for (`scatterlab
 * import` reads CSV files so). push takes where the line came from ("cases.csv
 * record 3"), for the message when it does not parse. args_fn returns 0, or
 * non-zero after printing a usage error. */
typedef int (*sl_run_args_fn)(const char *arg,
                              int (*push)(void *lines, const char *line,
                                          const char *where),
                              void *lines);
int sl_cmd_run_with(int argc, char **argv, const sl_command_help *h,
                    sl_run_args_fn args_fn);
int sl_cmd_import(int argc, char **argv);
int sl_cmd_compare(int argc, char **argv);
int sl_cmd_history(int argc, char **argv);
int sl_cmd_list(int argc, char **argv);
int sl_cmd_report(int argc, char **argv);
int sl_cmd_bench(int argc, char **argv);
int sl_cmd_ab(int argc, char **argv);
int sl_cmd_fuzz(int argc, char **argv);
int sl_cmd_merge(int argc, char **argv);
int sl_cmd_check(int argc, char **argv);

#endif
