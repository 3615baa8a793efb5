/* `scatterlab fuzz`'s options: parsing, the config a run stores, --resume and
 * the shard from a CI's environment (campaign_cmd.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "byte_size.h"
#include "campaign.h"
#include "child_exit.h"
#include "cli.h"
#include "failure_report.h"
#include "interrupt.h"
#include "json_out.h"
#include "known_groups.h"
#include "options.h"
#include "providers.h"
#include "run_lock.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_report.h"
#include "sl_store.h"
#include "text_lines.h"
#include "timing.h"
#include "worker.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif
#include "campaign_cmd.h"

static const char *const sl__fuzz_help =
    "usage: scatterlab fuzz [options]\n"
    "\n"
    "Generates random valid and invalid cases (about one in ten invalid on\n"
    "purpose) for every op, runs every variant against LibTorch, shrinks each\n"
    "failure to a minimal case and saves it in the corpus. The corpus is\n"
    "replayed first. Exit status 1 when anything failed.\n";

static const char *const sl__fuzz_help_after =
    "Failures are grouped by signature (op, variant, verdict, reduce, the\n"
    "output that went wrong first and the kind of wrongness; not shapes,\n"
    "ranks or dtypes: docs/fuzzing.md): one FAIL block and one corpus\n"
    "entry per group; groups of several ops with one cause (the outputs\n"
    "relate to the right ones alike) are one defect, counted first. Under\n"
    "GitHub Actions (GITHUB_ACTIONS=true) each defect is also an ::error\n"
    "annotation, and a table of the groups is appended to\n"
    "$GITHUB_STEP_SUMMARY.\n"
    "\n"
    "SIGINT / SIGTERM finish the cases in hand, commit, print the summary and\n"
    "exit 130 / 143; a second signal stops at once.\n";

static int sl__parse_list(const char *cmd, const char *opt, const char *v,
                          int (*lookup)(const char *), unsigned *mask) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  *mask = 0;
  for (char *save = NULL, *w = strtok_r(buf, ",", &save); w;
       w = strtok_r(NULL, ",", &save)) {
    int k = lookup(w);
    if (k < 0 || k >= 32) {
      sl_cli_usage_error(cmd, "%s: unknown name \"%s\"", opt, w);
      return -1;
    }
    *mask |= 1u << k;
  }
  return 0;
}

/* A mask narrowed to what the selected variants take: the user's mask (0:
 * all) within their union; 0 again when that is everything. */
static unsigned sl__narrow(unsigned user, unsigned caps, unsigned all) {
  unsigned m = (user ? user : all) & caps;
  return m == all ? 0 : m;
}

/* With --variants, fuzz only the ops that have a selected variant (a case of
 * another op would have nothing to run), and only the dtypes, index dtypes
 * and reduces that some selected variant takes (its capabilities): a
 * campaign on one provider spends no case on what it declares it cannot
 * do. Returns -1 when no op is left. */
int sl__restrict_ops(sl_fuzz_campaign *f) {
  unsigned want = f->gen.ops ? f->gen.ops : ~0u, ops = 0;
  unsigned dts = 0, its = 0, reds = 0, op_reds = 0;
  int max_rank = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (!(want & (1u << v->v.op)) || !sl_variant_selected(f->variants, v->name))
      continue;
    ops |= 1u << v->v.op;
    dts |= v->caps.dtypes;
    its |= v->caps.index_dtypes;
    reds |= v->caps.reduces;
    op_reds |= sl_op_get(v->v.op)->reduces;
    if (v->caps.max_rank > max_rank) max_rank = v->caps.max_rank;
  }
  f->gen.ops = ops;
  f->gen.dtypes = sl__narrow(f->gen.dtypes, dts, SL_DTYPES_ALL);
  f->gen.index_dtypes =
      sl__narrow(f->gen.index_dtypes, its ? its : SL_INDEX_DTYPES_ALL,
                 SL_INDEX_DTYPES_ALL);
  if (max_rank < SL_MAX_DIMS) f->gen.max_rank = max_rank > 0 ? max_rank : 1;
  if (reds != op_reds)
    f->gen.reduces = (f->gen.reduces ? f->gen.reduces : ~0u) & reds;
  return ops ? 0 : -1;
}

static int sl__dtype_lookup(const char *s) { return sl_dtype_from_name(s); }
static int sl__index_dtype_lookup(const char *s) {
  int d = sl_dtype_from_name(s);
  return d == SL_I32 || d == SL_I64 ? d : -1;
}
static int sl__reduce_lookup(const char *s) { return sl_reduce_from_name(s); }
static int sl__op_lookup(const char *s) { return sl_op_from_name(s); }

/* Whether this process is the CLI of the build tree it was built in (not
 * an installed copy): its executable lies in SL_BUILD_DIR. */
static int sl__from_build_tree(void) {
  char exe[PATH_MAX], dir[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || !realpath(SL_BUILD_DIR, dir)) return 0;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  *slash = '\0';
  return strcmp(exe, dir) == 0;
}

/* The corpus without --corpus: $SCATTERLAB_CORPUS; else the source tree's
 * fuzz/corpus for the CLI of a build tree (the corpus the tests replay and
 * found bugs are committed to); else, for an installed CLI, out/corpus
 * in the current folder, beside the default store (the source tree it was
 * built from may be gone, or another user's to write). */
static const char *sl__default_corpus(void) {
  static char path[PATH_MAX + 16];
  const char *env = getenv("SCATTERLAB_CORPUS");
  if (env && env[0]) return env;
  if (sl__from_build_tree()) {
    snprintf(path, sizeof path, "%s/fuzz/corpus", SL_SOURCE_DIR);
    return path;
  }
  return "out/corpus";
}

/* What the option table does not hold: the dynamic defaults (the
 * generator's, the corpus) and the campaign's own state. */
void sl__defaults(sl_fuzz_campaign *f) {
  memset(f, 0, sizeof *f);
  sl_fuzz_opts_init(&f->gen);
  f->cases = -1;
  f->shard_n = 1;
  f->shrink = 1;
  f->corpus = sl__default_corpus();
}

/* The config format a run stores (sl__config). Version 5 adds --overlap
 * (earlier runs had no overlapped inputs: 0); version 4 adds --stress
 * (earlier runs had no contention cases: 0); version 3 adds --size-mix
 * (earlier runs had no size mix: 0); version 2 stores --shard 1-based, as
 * the command line takes it; version 1 (runs stored before the word
 * "--config-version" existed) stored it 0-based. */
enum { SL__CONFIG_VERSION = 5 };

/* --shard K/N; only configs stored before version 2 count from 0. */
static int sl__shard(sl_fuzz_campaign *f, const char *v, int config_version) {
  const int base = config_version && config_version < 2 ? 0 : 1;
  if (sl_cli_shard("fuzz", v, base, &f->shard_k, &f->shard_n))
    return SL_EXIT_USAGE;
  f->shard_set = 1;
  return 0;
}

/* Whether option id is to be applied: given, or (a fresh campaign) its
 * table default. */
#define SL__TAKE(id)                                                           \
  (o->v[SL_OPT_##id].given ||                                                  \
   (!overlay && sl_option_row(SL_OPT_##id)->default_value))

/* The lists of what to fuzz (--ops, --dtypes, --index-dtypes, --reduces). */
static int sl__apply_lists(sl_fuzz_campaign *f, const sl_options *o) {
  static const struct {
    sl_option_id id;
    int (*lookup)(const char *);
    size_t field; /* offset in sl_fuzz_opts */
  } lists[] = {
      {SL_OPT_OPS, sl__op_lookup, offsetof(sl_fuzz_opts, ops)},
      {SL_OPT_DTYPES, sl__dtype_lookup, offsetof(sl_fuzz_opts, dtypes)},
      {SL_OPT_INDEX_DTYPES, sl__index_dtype_lookup,
       offsetof(sl_fuzz_opts, index_dtypes)},
      {SL_OPT_REDUCES, sl__reduce_lookup, offsetof(sl_fuzz_opts, reduces)}};
  for (size_t k = 0; k < sizeof lists / sizeof *lists; ++k) {
    const char *v = o->v[lists[k].id].text;
    unsigned *mask = (unsigned *)((char *)&f->gen + lists[k].field);
    if (o->v[lists[k].id].given &&
        sl__parse_list("fuzz", sl_option_row(lists[k].id)->name, v,
                       lists[k].lookup, mask))
      return SL_EXIT_USAGE;
  }
  return 0;
}

/* What decides which cases run. */
static int sl__apply_schedule(sl_fuzz_campaign *f, const sl_options *o,
                              int overlay, int config_version) {
  if (sl__apply_lists(f, o)) return SL_EXIT_USAGE;
  if (SL__TAKE(VARIANTS)) f->variants = sl_opt_text(o, SL_OPT_VARIANTS);
  if (SL__TAKE(SECONDS)) f->seconds = o->v[SL_OPT_SECONDS].x;
  /* the later of --seconds and --cases says how the run ends */
  if (o->v[SL_OPT_SECONDS].given &&
      o->v[SL_OPT_SECONDS].pos > o->v[SL_OPT_CASES].pos)
    f->cases = -1;
  else if (o->v[SL_OPT_CASES].given)
    f->cases = o->v[SL_OPT_CASES].n;
  if (SL__TAKE(FUZZ_SEED)) f->seed = (uint64_t)o->v[SL_OPT_FUZZ_SEED].n;
  if (SL__TAKE(MAX_ELEMS)) f->gen.max_elems = o->v[SL_OPT_MAX_ELEMS].n;
  if (SL__TAKE(SIZE_MIX)) f->gen.size_mix = o->v[SL_OPT_SIZE_MIX].n;
  if (SL__TAKE(STRESS)) f->gen.stress = o->v[SL_OPT_STRESS].n;
  if (SL__TAKE(OVERLAP)) f->gen.overlap = o->v[SL_OPT_OVERLAP].n;
  if (SL__TAKE(JOBS)) f->jobs = (int)o->v[SL_OPT_JOBS].n;
  if (SL__TAKE(SHARD) &&
      sl__shard(f, sl_opt_text(o, SL_OPT_SHARD), config_version))
    return SL_EXIT_USAGE;
  if (SL__TAKE(MAX_CASE_BYTES))
    f->max_case_bytes = o->v[SL_OPT_MAX_CASE_BYTES].bytes;
  if (SL__TAKE(TOLERANCE) &&
      sl_tolerances_parse(&f->tol, "fuzz", sl_opt_text(o, SL_OPT_TOLERANCE)))
    return SL_EXIT_USAGE;
  if (SL__TAKE(KEEP)) f->keep_all = o->v[SL_OPT_KEEP].n == 1;
  if (SL__TAKE(HUGE)) f->huge = 1;
  return 0;
}

/* Option values into f: a fresh campaign's (overlay 0: the table's
 * defaults too), or only those given (overlay 1: a resumed run's command
 * line over its stored config, one option over a copy). config_version:
 * a stored config's format, 0 for a command line. */
static int sl__apply(sl_fuzz_campaign *f, const sl_options *o, int overlay,
                     int config_version) {
  if (sl__apply_schedule(f, o, overlay, config_version)) return SL_EXIT_USAGE;
  if (SL__TAKE(FUZZ_TIMEOUT)) f->timeout = o->v[SL_OPT_FUZZ_TIMEOUT].x;
  if (SL__TAKE(CORPUS)) f->corpus = sl_opt_text(o, SL_OPT_CORPUS);
  if (SL__TAKE(NO_CORPUS)) f->corpus = NULL;
  if (SL__TAKE(NO_SHRINK)) f->shrink = 0;
  if (SL__TAKE(PRINT)) f->print = 1;
  if (SL__TAKE(RESUME)) f->resume = o->v[SL_OPT_RESUME].n;
  if (SL__TAKE(DB)) f->db = sl_opt_text(o, SL_OPT_DB);
  if (SL__TAKE(NO_DB)) f->db = NULL;
  if (SL__TAKE(FORMAT)) f->json = o->v[SL_OPT_FORMAT].n == 1;
  if (SL__TAKE(JUNIT)) f->junit = sl_opt_text(o, SL_OPT_JUNIT);
  if (SL__TAKE(FAIL_ON)) f->fail_on_new = o->v[SL_OPT_FAIL_ON].n == 1;
  if (SL__TAKE(KNOWN)) f->known = sl_opt_text(o, SL_OPT_KNOWN);
  return 0;
}
#undef SL__TAKE

/* The format version of a stored config's options (1 before the word
 * existed); 0, or SL_EXIT_USAGE for a newer one. */
static int sl__config_version(const sl_options *o, int *version) {
  *version = o->v[SL_OPT_CONFIG_VERSION].given
                 ? (int)o->v[SL_OPT_CONFIG_VERSION].n
                 : 1;
  if (*version <= SL__CONFIG_VERSION) return 0;
  return sl_cli_usage_error("fuzz",
                            "--config-version: expected at most %d, got %d",
                            SL__CONFIG_VERSION, *version);
}

/* The words' options (options.def) applied to f (sl__apply); -1 after
 * --help. config_version: NULL for a command line, else the words are a
 * stored config and it receives its format version. The values' text
 * stays in argv's words, which outlive f. */
static int sl__parse_words(sl_fuzz_campaign *f, int argc, char **argv,
                           int overlay, int *config_version) {
  static const sl_command_help help = {SL_CMD_FUZZ, sl__fuzz_help,
                                       sl__fuzz_help_after, NULL};
  static sl_options o; /* large; fuzz parses on one thread */
  int rc = config_version ? sl_options_parse_config(SL_CMD_FUZZ, argc, argv, &o)
                          : sl_options_parse(&help, argc, argv, &o);
  if (!rc && o.nwords)
    rc = sl_cli_usage_error("fuzz",
                            "%s: unknown argument (fuzz takes "
                            "options only)",
                            o.words[0]);
  if (!rc && config_version) rc = sl__config_version(&o, config_version);
  if (!rc) rc = sl__apply(f, &o, overlay, config_version ? *config_version : 0);
  sl_options_free(&o);
  return rc == SL_OPTIONS_HELP ? -1 : rc;
}

int sl__parse(sl_fuzz_campaign *f, int argc, char **argv, int *config_version) {
  return sl__parse_words(f, argc, argv, 0, config_version);
}

/* Appends "name1,name2" of the set bits of mask. */
static void sl__names(char *buf, size_t len, unsigned mask,
                      const char *(*name)(int)) {
  size_t used = strlen(buf);
  for (int k = 0; k < 32; ++k)
    if (mask & (1u << k)) {
      snprintf(buf + used, len - used, "%s%s",
               used && buf[used - 1] != ' ' ? "," : "", name(k));
      used = strlen(buf);
    }
}

static const char *sl__op_name_of(int k) { return sl_op_name((sl_op)k); }
static const char *sl__reduce_name_of(int k) {
  return sl_reduce_name((sl_reduce)k);
}
static const char *sl__dtype_name_of(int k) {
  return sl_dtype_name((sl_dtype)k);
}

/* Appends " --opt a,b" for a non-empty mask. */
static void sl__config_list(char *buf, size_t len, const char *opt,
                            unsigned mask, const char *(*name)(int)) {
  if (!mask) return;
  strncat(buf, opt, len - strlen(buf) - 1);
  sl__names(buf, len, mask, name);
}

/* The options a resumed run needs, as command-line words. */
void sl__config(const sl_fuzz_campaign *f, char *buf, size_t len) {
  snprintf(buf, len,
           "--config-version %d --seed %" PRIu64 " --max-elems %" PRId64
           " --size-mix %" PRId64 " --stress %" PRId64 " --overlap %" PRId64
           " --jobs %d --shard %d/%d --timeout %.17g",
           SL__CONFIG_VERSION, f->seed, f->gen.max_elems, f->gen.size_mix,
           f->gen.stress, f->gen.overlap, f->jobs, f->shard_k + 1, f->shard_n,
           f->timeout);
  size_t n = strlen(buf);
  if (f->cases >= 0)
    snprintf(buf + n, len - n, " --cases %" PRId64, f->cases);
  else
    snprintf(buf + n, len - n, " --seconds %.17g", f->seconds);
  if (!f->shrink) strncat(buf, " --no-shrink", len - strlen(buf) - 1);
  if (f->huge) strncat(buf, " --huge", len - strlen(buf) - 1);
  if (f->max_case_bytes) {
    n = strlen(buf);
    snprintf(buf + n, len - n, " --max-case-bytes %" PRIu64, f->max_case_bytes);
  }
  if (f->keep_all) strncat(buf, " --keep all", len - strlen(buf) - 1);
  char tol[600];
  sl_tolerances_config(&f->tol, tol, sizeof tol);
  if (tol[0]) {
    n = strlen(buf);
    snprintf(buf + n, len - n, " %s", tol);
  }
  if (f->variants) {
    n = strlen(buf);
    snprintf(buf + n, len - n, " --variants %s", f->variants);
  }
  sl__config_list(buf, len, " --ops ", f->gen.ops, sl__op_name_of);
  sl__config_list(buf, len, " --dtypes ", f->gen.dtypes, sl__dtype_name_of);
  sl__config_list(buf, len, " --index-dtypes ", f->gen.index_dtypes,
                  sl__dtype_name_of);
  sl__config_list(buf, len, " --reduces ", f->gen.reduces, sl__reduce_name_of);
  /* Every provider but the built-in one, by name and absolute path: a
   * resumed run loads the same ones (from SCATTERLAB_PROVIDERS too). */
  for (size_t p = 0; p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    if (pl->builtin) continue;
    char spec[4096 + 64];
    sl_provider_spec(pl, spec, sizeof spec);
    n = strlen(buf);
    snprintf(buf + n, len - n, " --provider %.4095s", spec);
  }
}

/* Most bytes a generated case can take per element of --max-elems: eight
 * tensors (SL_MAX_ARGS) of 16-byte elements (c128), stepped up to 4 wide. */
#define SL__CASE_BYTES_PER_ELEM (SL_MAX_ARGS * 16 * 4)

/* A campaign whose largest case could pass --max-case-bytes is refused
 * before it starts: a generated case refused mid-campaign would read as a
 * harness failure. Returns 0 or SL_EXIT_USAGE. */
int sl__settle_case_cap(sl_fuzz_campaign *f) {
  uint64_t cap = sl_case_bytes_cap(f->max_case_bytes);
  f->gen.huge_bytes = f->huge ? cap : 0;
  uint64_t worst = (uint64_t)f->gen.max_elems * SL__CASE_BYTES_PER_ELEM;
  if (worst <= cap) return 0;
  char a[32], b[32];
  return sl_cli_usage_error("fuzz",
                            "--max-elems %" PRId64 ": expected cases that "
                            "fit --max-case-bytes %s, got cases of up to %s "
                            "(8 tensors of 16-byte elements, stepped 4 "
                            "wide); lower --max-elems or raise "
                            "--max-case-bytes",
                            f->gen.max_elems, sl_bytes_str(cap, a, sizeof a),
                            sl_bytes_str(worst, b, sizeof b));
}

/* Whether provider spec "[ALIAS=]PATH" names a provider already loaded
 * (by the run's config): the same file, and the same alias if one is given. */
static int sl__provider_loaded(const char *spec) {
  const char *eq = strchr(spec, '=');
  const char *path = eq ? eq + 1 : spec;
  char real[PATH_MAX];
  if (!realpath(path, real)) return 0;
  for (size_t p = 0; p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    if (pl->builtin || strcmp(pl->path, real) != 0) continue;
    if (!eq || (strlen(pl->name) == (size_t)(eq - spec) &&
                strncmp(pl->name, spec, (size_t)(eq - spec)) == 0))
      return 1;
  }
  return 0;
}

/* Words of argv[i] when it is an option that decides which cases run
 * (SL_OPTF_SCHEDULE in options.def) with its value: 1 or 2; else 0. */
static int sl__schedule_words(int argc, char **argv, int i) {
  for (int id = 0; id < SL_OPT_COUNT; ++id) {
    const sl_option *r = sl_option_row((sl_option_id)id);
    if ((r->flags & SL_OPTF_SCHEDULE) && (r->commands & SL_IN_FUZZ)) {
      int n = sl_option_words((sl_option_id)id, argc, argv, i);
      if (n) return n;
    }
  }
  return 0;
}

/* A schedule option given again to --resume must say what the run already
 * does: each is applied alone over the run's campaign f and the two configs
 * compared, so `--seed 7` of a seed-7 run is taken and `--seed 8` refused
 * (it would change which cases run). Returns 0 or SL_EXIT_USAGE. */
static int sl__same_schedule(const sl_fuzz_campaign *f, const char *run_config,
                             int argc, char **argv) {
  static char before[16384], after[16384];
  sl__config(f, before, sizeof before);
  for (int i = 1; i < argc; ++i) {
    const int words = sl__schedule_words(argc, argv, i);
    if (!words) continue;
    int first = i, has_eq = words == 1;
    i += words - 1; /* the option's value */
    int same;
    if (sl_cli_is(argv[first], "--provider")) {
      same = sl__provider_loaded(
          strchr(argv[first], '=') ? strchr(argv[first], '=') + 1 : argv[i]);
    } else {
      sl_fuzz_campaign g = *f;
      char *one[3] = {"fuzz", argv[first], argv[i]};
      if (sl__parse_words(&g, has_eq ? 2 : 3, one, 1, NULL))
        return SL_EXIT_USAGE;
      sl__config(&g, after, sizeof after);
      same = strcmp(before, after) == 0;
    }
    if (!same)
      return sl_cli_usage_error("fuzz",
                                "--resume: %s%s%s differs from the run's "
                                "own options (\"%.900s\"); a resumed run "
                                "keeps the options that decide which cases "
                                "run and how they are judged",
                                argv[first], has_eq ? "" : " ",
                                has_eq ? "" : argv[i], run_config);
  }
  return 0;
}

/* A provider of the resumed run whose library changed since it was
 * recorded (rebuilt at the same path): its message in err. */
typedef struct sl__changed {
  char err[9000];
} sl__changed;

static int sl__provider_changed(void *user, const sl_provider_record *r) {
  sl__changed *x = user;
  char err[512];
  for (size_t p = 0; p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    if (pl->builtin || r->builtin || strcmp(pl->path, r->path) != 0) continue;
    const char *now = sl_provider_sha256(p, err, sizeof err);
    if (now && r->sha256 && strcmp(now, r->sha256) == 0) return 0;
    snprintf(x->err, sizeof x->err,
             "--resume: provider %s (%s): expected the library the run "
             "recorded (sha256 %.16s...), got %s%.16s%s; its verdicts would "
             "mix two builds' kernels under one record: start a new run",
             r->name, r->path, r->sha256 ? r->sha256 : "?",
             now ? "sha256 " : "", now ? now : err, now ? "..." : "");
    return 1;
  }
  return 0;
}

/* --resume: reads the run's config into f, then lets the command line
 * change what does not decide the schedule. */
int sl__load_resume(sl_fuzz_campaign *f, sl_store *st, int argc, char **argv,
                    char *config, size_t len) {
  sl_run_brief b;
  if (sl_store_get_run(st, f->resume, &b)) {
    fprintf(stderr, "scatterlab fuzz: --resume: %s\n", sl_store_errmsg(st));
    return SL_EXIT_USAGE;
  }
  if (strcmp(b.kind, "fuzz") != 0 || !b.config[0])
    return sl_cli_usage_error("fuzz",
                              "--resume: run %lld is a \"%s\" run "
                              "without a fuzz config; expected a "
                              "fuzz run",
                              (long long)f->resume, b.kind);
  /* Two processes on one run would both take its cursors' cases. */
  if (b.pid)
    return sl_cli_usage_error("fuzz",
                              "--resume: run %lld is still being written by "
                              "pid %lld on this machine; expected a run "
                              "that has stopped",
                              (long long)f->resume, b.pid);
  snprintf(config, len, "%s", b.config);
  /* Static: f keeps pointers into the words (--variants) after we return. */
  static char words[16384];
  char *w[64];
  int nw = 0;
  w[nw++] = "fuzz";
  snprintf(words, sizeof words, "%s", b.config);
  for (char *save = NULL, *t = strtok_r(words, " ", &save); t && nw < 63;
       t = strtok_r(NULL, " ", &save))
    w[nw++] = t;
  w[nw] = NULL;
  sl_fuzz_campaign saved = *f;
  sl__defaults(f);
  f->gen.size_mix = 0; /* a config before version 3 had no size mix */
  f->gen.stress = 0;   /* nor one before version 4 contention cases */
  f->gen.overlap = 0;  /* nor one before version 5 overlapped inputs */
  if (sl_providers_load_argv("fuzz", nw, w)) return SL_EXIT_USAGE;
  /* A provider rebuilt at the same path since: refused (the run's record
   * and its verdicts belong to the library it hashed then). */
  sl__changed changed = {""};
  if (sl_store_run_providers(st, saved.resume, sl__provider_changed, &changed))
    return sl_cli_usage_error(
        "fuzz", "%s", changed.err[0] ? changed.err : sl_store_errmsg(st));
  int version = 1;
  int rc = sl__parse(f, nw, w, &version);
  if (rc) return SL_EXIT_USAGE; /* a config this build cannot read */
  int64_t resume = saved.resume;
  if ((rc = sl__same_schedule(f, b.config, argc, argv))) return rc;
  /* The command line again, over the config (seconds, timeout, corpus...). */
  rc = sl__parse_words(f, argc, argv, 1, NULL);
  f->resume = resume;
  f->db = saved.db;
  return rc ? rc : sl__settle_case_cap(f);
}

/* CI conventions that hand each job of a matrix its shard, in the order
 * they are looked for: the index variable, the total variable, and the
 * base of the index. Kubernetes sets only the index of an indexed Job (the
 * number of completions is not in the environment), so its total is ours
 * to name. */
static const struct {
  const char *index, *total;
  int base;
} sl__shard_envs[] = {{"CI_NODE_INDEX", "CI_NODE_TOTAL", 1},
                      {"JOB_COMPLETION_INDEX", "SCATTERLAB_SHARD_TOTAL", 0},
                      {"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", 0}};

/* Reads environment variable `name` as a decimal integer in [lo, hi]; -1
 * with a usage error naming it, the range and the value otherwise. */
static long long sl__env_int(const char *name, const char *v, long long lo,
                             long long hi) {
  char *end;
  errno = 0;
  long long n = v[0] >= '0' && v[0] <= '9' ? strtoll(v, &end, 10) : -1;
  if (n < 0 || errno || *end || n < lo || n > hi) {
    sl_cli_usage_error("fuzz",
                       "environment variable %s: expected an integer in "
                       "[%lld, %lld], got \"%s\"",
                       name, lo, hi, v);
    return -1;
  }
  return n;
}

/* Without --shard, takes the shard from the first CI convention whose index
 * variable is set (sl__shard_envs), and writes where it came from to
 * `from` ("" when unsharded). Returns 0 or SL_EXIT_USAGE. */
int sl__shard_from_env(sl_fuzz_campaign *f, char *from, size_t len) {
  if (f->shard_set) {
    if (f->shard_n > 1) snprintf(from, len, "--shard");
    return 0;
  }
  for (size_t c = 0; c < sizeof sl__shard_envs / sizeof *sl__shard_envs; ++c) {
    const char *iname = sl__shard_envs[c].index;
    const char *tname = sl__shard_envs[c].total;
    int base = sl__shard_envs[c].base;
    const char *iv = getenv(iname), *tv = getenv(tname);
    if (!iv) continue;
    if (!tv)
      return sl_cli_usage_error("fuzz",
                                "environment variable %s is set (\"%s\"): "
                                "expected %s as well (the number of "
                                "shards), got none",
                                iname, iv, tname);
    long long n = sl__env_int(tname, tv, 1, 1000000), k;
    if (n < 0 || (k = sl__env_int(iname, iv, base, n - 1 + base)) < 0)
      return SL_EXIT_USAGE;
    f->shard_k = (int)(k - base);
    f->shard_n = (int)n;
    snprintf(from, len, "%s=%s, %s=%s (%d-based)", iname, iv, tname, tv, base);
    return 0;
  }
  return 0;
}
