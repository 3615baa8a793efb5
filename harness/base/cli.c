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

int sl_cli_skip_provider(int argc, char **argv, int *i) {
  if (!sl_cli_is(argv[*i], "--provider")) return 0;
  if (!strchr(argv[*i], '=') && *i + 1 < argc) ++*i;
  return 1;
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

long long sl_cli_int(const char *cmd, const char *opt, const char *v) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < 0) {
    sl_cli_usage_error(cmd, "%s: expected a non-negative integer, got \"%s\"",
                       opt, v);
    return -1;
  }
  return n;
}

/* The value of option argv[*i] (sl_cli_value), its name (argv[*i] up to a
 * '=') in name[len] for the messages, and errno cleared for the parse. */
static const char *sl__option_value(const char *cmd, int argc, char **argv,
                                    int *i, char *name, size_t len) {
  size_t n = strcspn(argv[*i], "=");
  if (n >= len) n = len - 1;
  memcpy(name, argv[*i], n);
  name[n] = '\0';
  errno = 0;
  return sl_cli_value(cmd, argc, argv, i);
}

long long sl_cli_int_option(const char *cmd, int argc, char **argv, int *i,
                            long long lo, long long hi) {
  char opt[64], *end;
  const char *v = sl__option_value(cmd, argc, argv, i, opt, sizeof opt);
  if (!v) return -1;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < lo || n > hi) {
    sl_cli_usage_error(cmd,
                       "%s: expected an integer in [%lld, %lld], got \"%s\"",
                       opt, lo, hi, v);
    return -1;
  }
  return n;
}

int sl_cli_max_threads(void) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const long bound = 4 * (cpus > 0 ? cpus : 1);
  return bound > 64 ? (int)(bound < 1 << 20 ? bound : 1 << 20) : 64;
}

long long sl_cli_threads_option(const char *cmd, int argc, char **argv,
                                int *i) {
  return sl_cli_int_option(cmd, argc, argv, i, 0, sl_cli_max_threads());
}

int sl_cli_bytes_option(const char *cmd, int argc, char **argv, int *i,
                        uint64_t *bytes) {
  char opt[64];
  const char *v = sl__option_value(cmd, argc, argv, i, opt, sizeof opt);
  if (!v) return SL_EXIT_USAGE;
  if (sl_bytes_parse(v, bytes) || *bytes == 0)
    return sl_cli_usage_error(cmd,
                              "%s: expected a size above 0 in bytes, "
                              "optionally with K, M, G or T (powers of "
                              "1024: 512M, 6GiB), got \"%s\"",
                              opt, v);
  return 0;
}

double sl_cli_positive_option(const char *cmd, int argc, char **argv, int *i,
                              double hi) {
  char opt[64], *end;
  const char *v = sl__option_value(cmd, argc, argv, i, opt, sizeof opt);
  if (!v) return -1;
  double x = strtod(v, &end);
  if (!*v || *end || errno || !(x > 0 && x <= hi)) {
    sl_cli_usage_error(cmd, "%s: expected a number in (0, %g], got \"%s\"", opt,
                       hi, v);
    return -1;
  }
  return x;
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
