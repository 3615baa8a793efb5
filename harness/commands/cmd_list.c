/* `scatterlab list`: ops, variants, and whether each can run here; the
 * providers they come from and what each variant takes. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "json_out.h"
#include "providers.h"
#include "runinfo.h"
#include "sl/sl.h"
#include "slref.h"

static const char *const sl__list_help =
    "usage: scatterlab list [--op OP] [--provider [ALIAS=]PATH ...]\n"
    "                       [--format text|json]\n"
    "       scatterlab list --thresholds\n"
    "\n"
    "Lists every op and its variants, and whether each is available in this\n"
    "build on this machine (e.g. \"no device\" for a cuda variant without a\n"
    "GPU). Flags: deterministic = bitwise repeatable. Then the providers the\n"
    "variants come from (scatterlab's own kernels library, "
    "SCATTERLAB_PROVIDERS\n"
    "and each --provider): path, ABI version, version, SHA-256 and, for the\n"
    "variants of other providers, their capabilities (docs/providers.md).\n";

/* The size-threshold table of the core (sl_threshold_at). */
static int sl__list_thresholds(void) {
  static const char *const unit[] = {"elements", "elements per thread",
                                     "bytes"};
  printf("size thresholds (%s build)\n",
         sl_thresholds_small() ? "small-thresholds test" : "normal");
  printf("  %-24s %10s %10s  %-20s %s\n", "name", "value", "normal", "unit",
         "path taken at or past it (ops)");
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    char ops[256] = "any op";
    for (int op = 0, n = 0; t->ops && op < SL_OP_COUNT; ++op)
      if ((t->ops >> op) & 1u)
        n += snprintf(ops + n, sizeof ops - (size_t)n, "%s%s", n ? ", " : "",
                      sl_op_name((sl_op)op));
    printf("  %-24s %10lld %10lld  %-20s %s (%s)\n", t->name, t->value,
           t->normal, unit[t->unit], t->path, ops);
  }
  return SL_EXIT_OK;
}

/* One variant's capabilities on one line. */
static void sl__print_caps(const sl_hvariant *v) {
  const sl_caps *k = &v->caps;
  const sl_op_info *info = sl_op_get(v->v.op);
  char dt[160], it[64], rd[96];
  sl_caps_dtypes_text(k->dtypes, SL_DTYPES_ALL, dt, sizeof dt);
  sl_caps_dtypes_text(k->index_dtypes, SL_INDEX_DTYPES_ALL, it, sizeof it);
  sl_caps_reduces_text(k->reduces, rd, sizeof rd);
  printf("    %-24s %-26s dtypes %s; index %s", sl_op_name(v->v.op), v->name,
         dt, (sl_case_spec_of(v->v.op)->keys & SL_KEY_IT) ? it : "-");
  if (info->reduces) printf("; reduces %s", rd);
  if (info->takes_include_self)
    printf("; include_self %s", k->include_self == SL_INCLUDE_SELF_BOTH  ? "0,1"
                                : k->include_self & SL_INCLUDE_SELF_TRUE ? "1"
                                                                         : "0");
  printf("; max_rank %d; layouts %s\n", (int)k->max_rank,
         k->layouts == SL_LAYOUTS_ALL       ? "strided,broadcast"
         : k->layouts & SL_LAYOUT_STRIDED   ? "strided (broadcast copied)"
         : k->layouts & SL_LAYOUT_BROADCAST ? "broadcast (strided copied)"
                                            : "contiguous (others copied)");
}

static void sl__print_providers(const char *only) {
  char err[512];
  printf("\nproviders:\n");
  for (size_t p = 0; p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    printf("  %s%s%s%s: %s\n    ABI %u, version %s, %zu variants, sha256 %s\n",
           pl->name, pl->builtin ? " (built-in)" : "",
           strcmp(pl->name, pl->own_name) ? " = " : "",
           strcmp(pl->name, pl->own_name) ? pl->own_name : "", pl->path,
           pl->abi, pl->version[0] ? pl->version : "-", pl->n,
           sl_provider_sha256(p, err, sizeof err) ? pl->sha256 : err);
    if (pl->builtin) {
      printf("    capabilities: every case of its op's contract\n");
      continue;
    }
    for (size_t i = pl->first; i < pl->first + pl->n; ++i) {
      const sl_hvariant *v = sl_hvariant_at(i);
      if (!only || strcmp(only, sl_op_name(v->v.op)) == 0) sl__print_caps(v);
    }
  }
}

/* The reference's known defects (references/slref_defects.def): where the
 * linked LibTorch has one, its answers are not the expected ones. */
static void sl__print_ref_defects(void) {
  for (int i = 0; i < slref_defect_count(); ++i) {
    const slref_defect *d = slref_defect_at(i);
    char fixed[32] = "no fix known";
    if (d->fixed_in[0])
      snprintf(fixed, sizeof fixed, "fixed in %s", d->fixed_in);
    printf("  %s %-24s %s (%s%s%s)\n",
           d->active ? "worked around:" : "not present:  ", d->name, d->what,
           fixed, d->upstream[0] ? ", " : "", d->upstream);
  }
}

/* --format json: the variants, providers and reference as one document. */
static int sl__list_json(const char *only) {
  FILE *out = sl_json_begin("list");
  if (!out) return SL_EXIT_INCOMPLETE;
  sl_json_head(out, "list", SL_EXIT_OK);
  fputs(", \"reference\": ", out);
  sl_json_str(out, sl_reference_text());
  fprintf(out, ", \"cuda_built\": %s, \"devices\": %d, \"variants\": [",
          sl_cuda_built() ? "true" : "false", sl_cuda_device_count());
  int n = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    if (only && strcmp(only, sl_op_name((sl_op)op)) != 0) continue;
    for (size_t i = 0; i < sl_hvariant_count(); ++i) {
      const sl_hvariant *v = sl_hvariant_at(i);
      if ((int)v->v.op != op) continue;
      const char *why = NULL;
      int ok = sl_variant_available(&v->v, &why);
      fputs(n++ ? ",\n  {\"op\": " : "\n  {\"op\": ", out);
      sl_json_str(out, sl_op_name((sl_op)op));
      fputs(", \"variant\": ", out);
      sl_json_str(out, v->name);
      fprintf(out, ", \"deterministic\": %s, \"available\": %s, \"why\": ",
              (v->v.flags & SL_DETERMINISTIC) ? "true" : "false",
              ok ? "true" : "false");
      sl_json_str(out, ok ? NULL : why);
      fputc('}', out);
    }
  }
  fputs("\n], \"providers\": [", out);
  for (size_t p = 0; p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    fputs(p ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
    sl_json_str(out, pl->name);
    fputs(", \"path\": ", out);
    sl_json_str(out, pl->path);
    fprintf(out, ", \"builtin\": %s, \"abi\": %u, \"version\": ",
            pl->builtin ? "true" : "false", pl->abi);
    sl_json_str(out, pl->version);
    fprintf(out, ", \"variants\": %zu}", pl->n);
  }
  fputs("\n]", out);
  sl_json_end(out);
  fclose(out);
  return SL_EXIT_OK;
}

int sl_cmd_list(int argc, char **argv) {
  static const sl_command_help help = {SL_CMD_LIST, sl__list_help, NULL, NULL};
  sl_options opt;
  int rc = sl_options_parse(&help, argc, argv, &opt);
  if (!rc && opt.nwords)
    rc = sl_cli_usage_error("list", "%s: unknown argument", opt.words[0]);
  const char *only = sl_opt_text(&opt, SL_OPT_OP);
  if (!rc && only && sl_op_from_name(only) < 0)
    rc = sl_cli_usage_error("list", "--op: expected an op name, got \"%s\"",
                            only);
  const int json = opt.v[SL_OPT_FORMAT].n == 1;
  const int thresholds = sl_opt_on(&opt, SL_OPT_THRESHOLDS);
  sl_options_free(&opt); /* the values are argv's words */
  if (rc) return rc == SL_OPTIONS_HELP ? SL_EXIT_OK : rc;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  if (thresholds) return sl__list_thresholds();
  if (json) return sl__list_json(only);
  int width = 12;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    int n = (int)strlen(sl_hvariant_at(i)->name);
    if (n > width) width = n;
  }
  printf("%-26s %-*s %-14s %s\n", "op", width, "variant", "flags", "available");
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    if (only && strcmp(only, sl_op_name((sl_op)op)) != 0) continue;
    for (size_t i = 0; i < sl_hvariant_count(); ++i) {
      const sl_hvariant *v = sl_hvariant_at(i);
      if ((int)v->v.op != op) continue;
      const char *why;
      int ok = sl_variant_available(&v->v, &why);
      printf("%-26s %-*s %-14s %s\n", sl_op_name((sl_op)op), width, v->name,
             (v->v.flags & SL_DETERMINISTIC) ? "deterministic" : "-",
             ok ? "yes" : why);
    }
  }
  sl__print_providers(only);
  printf("\nreference: %s (the expected answers, and torch.cpu in bench)\n",
         sl_reference_text());
  sl__print_ref_defects();
  printf("CUDA: %s; devices: %d\n",
         sl_cuda_built() ? "built" : "built without CUDA",
         sl_cuda_device_count());
  return SL_EXIT_OK;
}
