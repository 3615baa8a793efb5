/* `scatterlab list`: ops, variants, and whether each can run here. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "runinfo.h"
#include "sl/sl.h"

static const char *const sl__list_help =
    "usage: scatterlab list [--op OP]\n"
    "\n"
    "Lists every op and its variants, and whether each is available in this\n"
    "build on this machine (e.g. \"cuda.atomic: built without CUDA\", \"no\n"
    "device\"). Flags: deterministic = bitwise repeatable.\n";

int sl_cmd_list(int argc, char **argv) {
  const char *only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(sl__list_help, stdout);
      return SL_EXIT_OK;
    } else if (sl_cli_is(argv[i], "--op")) {
      if (!(only = sl_cli_value("list", argc, argv, &i))) return SL_EXIT_USAGE;
      if (sl_op_from_name(only) < 0)
        return sl_cli_usage_error("list",
                                  "--op: expected an op name, got "
                                  "\"%s\"",
                                  only);
    } else {
      return sl_cli_usage_error("list", "%s: unknown argument", argv[i]);
    }
  }
  if (sl_cli_parse_only) return SL_EXIT_OK;
  printf("%-26s %-12s %-14s %s\n", "op", "variant", "flags", "available");
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    if (only && strcmp(only, sl_op_name((sl_op)op)) != 0) continue;
    for (size_t i = 0; i < sl_variant_count(); ++i) {
      const sl_variant *v = sl_variant_at(i);
      if ((int)v->op != op) continue;
      const char *why;
      int ok = sl_variant_available(v, &why);
      printf("%-26s %-12s %-14s %s\n", sl_op_name((sl_op)op), v->name,
             (v->flags & SL_DETERMINISTIC) ? "deterministic" : "-",
             ok ? "yes" : why);
    }
  }
  printf("\nreference: %s (the expected answers, and torch.cpu in bench)\n",
         sl_reference_text());
  printf("CUDA: %s; devices: %d\n",
         sl_cuda_built() ? "built" : "built without CUDA",
         sl_cuda_device_count());
  return SL_EXIT_OK;
}
