/* Shared option handling of the scatterlab commands. */
#include "cli.h"

#include "byte_size.h"
#include "safe_file.h"
#include "sl_store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sl_cli_warn_small_thresholds(const char *cmd) {
  if (sl_thresholds_small())
    fprintf(stderr,
            "scatterlab %s: warning: a small-thresholds test build "
            "(-DSL_SMALL_THRESHOLDS=ON): the kernels take their big-case "
            "paths at every size, so these timings mean nothing\n",
            cmd);
}

int sl_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "scatterlab %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(see `scatterlab %s --help`)\n", cmd);
  return SL_EXIT_USAGE;
}

int sl_cli_shard(const char *cmd, const char *text, int base, int *k, int *n) {
  int kk, nn, used = 0;
  if (sscanf(text, "%d/%d%n", &kk, &nn, &used) != 2 || text[used] || nn < 1 ||
      kk < base || kk >= nn + base)
    return sl_cli_usage_error(cmd,
                              "--shard: expected K/N with %d <= K <= N%s, "
                              "got \"%s\"",
                              base, base ? "" : " - 1", text);
  *k = kk - base;
  *n = nn;
  return 0;
}

int sl_cli_open_store(const char *cmd, const char *path, int readonly,
                      sl_store **st) {
  char err[1024];
  *st = NULL;
  if (!sl_store_open(path, readonly ? SL_STORE_READONLY : SL_STORE_READWRITE,
                     st, err, sizeof err))
    return SL_EXIT_OK;
  fprintf(stderr, "scatterlab %s: %s\n", cmd, err);
  /* A store to read that is not there is the command line's mistake; one
   * that is there and cannot be used is the store's. */
  struct stat sb;
  return readonly && stat(path, &sb) && errno == ENOENT ? SL_EXIT_USAGE
                                                        : SL_EXIT_INCOMPLETE;
}

int sl_cli_parse_only;

int sl_cli_is(const char *arg, const char *name) {
  size_t n = strlen(name);
  return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

const char *sl_cli_value(const char *cmd, int argc, char **argv, int *i) {
  const char *eq = strchr(argv[*i], '=');
  if (eq && strncmp(argv[*i], "--", 2) == 0) return eq + 1;
  if (*i + 1 >= argc) {
    sl_cli_usage_error(cmd,
                       "%s: expected a value after it, got the end of "
                       "the command line",
                       argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

int sl_cli_max_threads(void) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const long bound = 4 * (cpus > 0 ? cpus : 1);
  return bound > 64 ? (int)(bound < 1 << 20 ? bound : 1 << 20) : 64;
}

int sl_cli_output_check(const char *cmd, const char *opt, const char *path,
                        const char *store, int argc, char **argv) {
  char err[8400];
  if (sl_safe_output_check(opt, path, store, argc, argv, err, sizeof err))
    return sl_cli_usage_error(cmd, "%s", err);
  /* A CI file's check: the folder the file is written into must be there
   * (nothing makes it) and writable, or the job would fail at its end. */
  if (sl_cli_parse_only != SL_CLI_CHECK_ARGS || !path || !strcmp(path, "-"))
    return 0;
  char dir[4200];
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path)
    snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return sl_cli_usage_error(
        cmd,
        "%s %s: expected a file in an existing folder, "
        "got folder %s, which %s",
        opt, path, dir, stat(dir, &sb) ? "does not exist" : "is not a folder");
  if (access(dir, W_OK | X_OK) != 0)
    return sl_cli_usage_error(cmd,
                              "%s %s: expected a folder this user can write "
                              "into, got %s (%s)",
                              opt, path, dir, strerror(errno));
  return 0;
}
