/*
 * `scatterlab check [--db PATH] [--quick]`: whether a result store is sound,
 * without writing to it: SQLite's integrity check (every page, index and
 * constraint) and its foreign-key check, or with --quick the quick check
 * that every writing command runs when it opens a store. Each problem is
 * printed; exit 0 when sound, 1 when damaged or unreadable.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "sl_store.h"

static const char *const sl__check_help =
    "usage: scatterlab check [--db PATH] [--quick]\n"
    "\n"
    "Checks a result store without writing to it: SQLite's integrity_check\n"
    "and foreign_key_check (--quick: quick_check, which every command that\n"
    "writes runs when it opens a store, and refuses a damaged one).\n"
    "Prints every problem found.\n";

int sl_cmd_check(int argc, char **argv) {
  static const sl_command_help help = {
      SL_CMD_CHECK, sl__check_help,
      "exit status: 0 sound, 1 damaged or unreadable, 2 usage error\n", NULL};
  sl_options opt;
  int rc = sl_options_parse(&help, argc, argv, &opt);
  if (!rc && opt.nwords)
    rc = sl_cli_usage_error("check", "%s: unknown argument", opt.words[0]);
  const char *db = sl_opt_text(&opt, SL_OPT_DB);
  const int quick = sl_opt_on(&opt, SL_OPT_QUICK);
  sl_options_free(&opt);
  if (rc) return rc == SL_OPTIONS_HELP ? SL_EXIT_OK : rc;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  /* What check finds is a damaged store (1); a store that is not there is
   * a mistyped --db (2). */
  struct stat sb;
  if (stat(db, &sb) && errno == ENOENT)
    return sl_cli_usage_error("check",
                              "--db %s: expected a store, got no "
                              "such file",
                              db);
  char err[1024];
  int v = sl_store_verify(db, !quick, stdout, err, sizeof err);
  if (v == 0) {
    printf("%s: sound (%s)\n", db,
           quick ? "quick_check" : "integrity_check, foreign_key_check");
    return SL_EXIT_OK;
  }
  fprintf(stderr, "scatterlab check: %s\n", err);
  return SL_EXIT_FAIL;
}
