/* The scatterlab command line: exit statuses and shared option handling
 * (the commands themselves: commands/commands.h). */
#ifndef SL_CLI_H
#define SL_CLI_H

#include <stdint.h>
#include <stdio.h>

/* The store without --db: in out/ of the current folder, the folder of
 * outputs (git-ignored in the source tree), never among the sources;
 * results/ holds the store's code. The store's open makes out/ when
 * missing. */
#define SL_DEFAULT_DB "out/scatterlab.db"

/* Exit statuses of every command (the table in README.md, "Exit
 * statuses"): CI tells "the code is broken" (1) from "the job is broken"
 * (2: its command line; 3: its machine or store). */
enum {
  SL_EXIT_OK = 0,
  /* failures found: a failing verdict, a slower benchmark, a damaged store
   * (check) */
  SL_EXIT_FAIL = 1,
  /* usage or input error: an option, a case line, an input file or store
   * named on the command line that is missing or malformed */
  SL_EXIT_USAGE = 2,
  /* environment or store error, or an incomplete gate: the command could not
   * do all of its work (a store that cannot be read or written, a job or
   * worker that died, an output that cannot be written; compare, ab:
   * nothing was compared, or a base benchmark has no candidate), so it
   * cannot say that nothing failed */
  SL_EXIT_INCOMPLETE = 3,
  /* ab: a kernel of either build died (crashed, aborted, called exit() or
   * passed --timeout): a gate that could not time what it was given */
  SL_EXIT_KERNEL_DIED = 4
};

struct sl_store;
/* Opens store `path` for command `cmd` (readonly: 0 to write, 1 to read),
 * printing "scatterlab <cmd>: <error>" when it cannot. Returns 0,
 * SL_EXIT_USAGE when a store to read does not exist (a mistyped --db), or
 * SL_EXIT_INCOMPLETE (damaged, unreadable, from a newer scatterlab, not
 * writable). */
int sl_cli_open_store(const char *cmd, const char *path, int readonly,
                      struct sl_store **st);

/* Timing commands in a -DSL_SMALL_THRESHOLDS=ON build: one line on stderr
 * saying that the kernels take their big-case paths at every size there,
 * so the timings mean nothing (nothing in other builds). */
void sl_cli_warn_small_thresholds(const char *cmd);

/* Prints "scatterlab <cmd>: <message>" and a hint to stderr; returns 2. */
int sl_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parses --shard "K/N", K counted from base (1 as CI matrices count; 0 for
 * configs stored before fuzz's version 2): *k gets K - base (from 0), *n
 * gets N. 0, or SL_EXIT_USAGE after a usage error naming cmd and the
 * range. */
int sl_cli_shard(const char *cmd, const char *text, int base, int *k, int *n);

/* Reads the value of option argv[*i] ("--db PATH" or "--db=PATH"); advances
 * *i. Returns NULL (after printing a usage error) when it is missing. */
const char *sl_cli_value(const char *cmd, int argc, char **argv, int *i);
/* Whether argv[i] is option `name` (also as "name=value"). */
int sl_cli_is(const char *arg, const char *name);
/* Four threads per online CPU, at least 64: more only queue (4096 made
 * LibTorch's pool start slower than a case's timeout, judged a timeout of
 * the reference). The bound of --threads (options.def). */
int sl_cli_max_threads(void);

/* Output option `opt` of command `cmd` with value `path` (NULL or "-":
 * standard output) checked before any work (safe_file.h,
 * sl_safe_output_check: not the store, not an input named in argv, not a
 * link, device or someone else's file; under SL_CLI_CHECK_ARGS also a
 * folder that exists and can be written). 0, or SL_EXIT_USAGE after a
 * message. */
int sl_cli_output_check(const char *cmd, const char *opt, const char *path,
                        const char *store, int argc, char **argv);

/* Non-zero: every command checks its arguments, then returns before it
 * does any work (no store, no kernel run, no files). SL_CLI_PARSE_ONLY (the
 * CLI fuzz target) checks the words alone; SL_CLI_CHECK_ARGS
 * (SCATTERLAB_CHECK_ARGS=1) also loads the providers (their tables
 * checked, no kernel called), checks --variants against them and each
 * output's folder. */
extern int sl_cli_parse_only;
#define SL_CLI_PARSE_ONLY 1
#define SL_CLI_CHECK_ARGS 2

#endif
