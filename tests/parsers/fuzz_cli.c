/*
 * libFuzzer target: the command-line handling of every command. The input
 * is split into words at newlines; `scatterlab WORDS...` must return 0, 1
 * or 2 with nothing else happening: sl_cli_parse_only stops each command
 * after its argument checks (no store, no kernels, no files written).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int quiet;
  if (!quiet) { /* the commands' help and errors are not the point */
    quiet = 1;
    if (!freopen("/dev/null", "w", stdout)) return 0;
    if (!getenv("SL_FUZZ_CLI_STDERR") && !freopen("/dev/null", "w", stderr))
      return 0;
    sl_cli_parse_only = SL_CLI_PARSE_ONLY;
  }
  char buf[2048];
  if (size >= sizeof buf) size = sizeof buf - 1;
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *argv[66];
  int argc = 0;
  argv[argc++] = "scatterlab";
  for (char *save = NULL, *w = strtok_r(buf, "\n", &save); w && argc < 65;
       w = strtok_r(NULL, "\n", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  int rc = sl_cli_main(argc, argv);
  if (rc < 0 || rc > 2) abort(); /* exit statuses are 0, 1 or 2 */
  return 0;
}
