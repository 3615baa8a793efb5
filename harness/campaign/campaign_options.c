/* `scatterlab fuzz`'s options: parsing, the config a run stores, --resume and
 * the shard from a CI's environment (campaign_cmd.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
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
    "replayed first. Exit status 1 when anything failed.\n"
    "\n"
    "options:\n"
    "  --ops LIST        ops to fuzz (comma-separated; default all)\n"
    "  --variants LIST   variants to run (default all; `cpu` = cpu.*,\n"
    "                    `mylib:*` = a provider's): cases are drawn within\n"
    "                    what the selected variants take (capabilities)\n"
    "  --provider [ALIAS=]PATH  load a kernel provider (docs/providers.md;\n"
    "                    repeatable; also SCATTERLAB_PROVIDERS)\n"
    "  --dtypes LIST     data dtypes (default all each op allows)\n"
    "  --index-dtypes LIST  index dtypes: i32, i64 (default both)\n"
    "  --reduces LIST    reduces of the ops that take one (default all)\n"
    "  --seconds S       run for S seconds (default 10)\n"
    "  --cases N         run cases 0..N-1 instead (0: replay the corpus only)\n"
    "  --seed N          campaign seed (default 1)\n"
    "  --max-elems N     largest tensor in elements (default 4096)\n"
    "  --size-mix N      one valid case in N is sized past one of the\n"
    "                    kernels' size thresholds (`scatterlab list\n"
    "                    --thresholds`), beyond --max-elems (default 4096;\n"
    "                    8 in a -DSL_SMALL_THRESHOLDS=ON build; 0: never)\n"
    "  --stress N        one valid case in N of the reducing ops (scatter,\n"
    "                    scatter_reduce, scatter_nd, index_reduce,\n"
    "                    dynamic_scatter and their backward ops) is a\n"
    "                    contention case: 1-4 targets, enough updates for\n"
    "                    a slab on each of 4 threads (the kernels'\n"
    "                    per-thread thresholds), beyond --max-elems; cells\n"
    "                    read stress:contention (default 512; 8 in a\n"
    "                    -DSL_SMALL_THRESHOLDS=ON build; 0: never)\n"
    "  --huge            huge-offset cases: every valid case of gather,\n"
    "                    gather_nd, scatter, scatter_reduce, scatter_nd,\n"
    "                    index_reduce and select_scatter in a 1- or 2-byte\n"
    "                    dtype gets an x of more than 2^31 elements (2^32\n"
    "                    in one case of ten, where it fits) and index\n"
    "                    values past 2^31 (ip=high), within\n"
    "                    --max-case-bytes (scatters need about 3 x 2.25\n"
    "                    GiB: raise it); cells read huge:2^31 or huge:2^32.\n"
    "                    Seconds a case: pass --dtypes u8,i8,bool,i16,f16,\n"
    "                    bf16 to make every case one\n"
    "  --jobs J          parallel jobs (default 1); they share the cores:\n"
    "                    each job's parallel variants get cores/J threads\n"
    "                    (--jobs 1 fuzzes them on every core)\n"
    "  --shard K/N       this process runs shard K of N, K counted from 1\n"
    "                    (1 <= K <= N, as CI matrices count). Without it, the\n"
    "                    shard is read from the environment, first found of:\n"
    "                    CI_NODE_INDEX/CI_NODE_TOTAL (GitLab, 1-based),\n"
    "                    JOB_COMPLETION_INDEX/SCATTERLAB_SHARD_TOTAL\n"
    "                    (Kubernetes indexed Job, 0-based; the total is\n"
    "                    yours to set), GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS\n"
    "                    (0-based); stderr names the source\n"
    "  --timeout SEC     per-variant time limit (default 10)\n"
    "  --tolerance DT=V[,DT=V...]  the tolerance oracle's threshold on diff1\n"
    "                    and diff2 for float dtype DT (as `run --help`\n"
    "                    says); stored in the run's config: --resume keeps\n"
    "                    it and refuses a different one\n"
    "  --max-case-bytes SIZE  most memory a case's tensors may take (512M,\n"
    "                    6G; default: a quarter of physical memory); checked\n"
    "                    against --max-elems before the campaign starts\n"
    "  --corpus DIR      failure corpus (default: $SCATTERLAB_CORPUS, else\n"
    "                    fuzz/corpus of the source tree for the CLI of a "
    "build\n"
    "                    tree, out/corpus here for an installed CLI)\n"
    "  --no-corpus       neither replay nor extend a corpus\n"
    "  --no-shrink       record failures as found\n"
    "  --keep WHAT       what the store keeps of the cases: failures (the\n"
    "                    default: cases with a failing verdict and their\n"
    "                    shrunk cases, every verdict counted in tallies) or\n"
    "                    all (every case and verdict: about 120 bytes a\n"
    "                    verdict)\n"
    "  --print           print the case lines of this shard (with --cases N)\n"
    "                    instead of running them\n"
    "  --resume RUN      go on with fuzz run RUN of --db after an "
    "interruption\n"
    "                    or a crash: same options, no case repeated or\n"
    "                    skipped (--seconds, --timeout, --corpus may change;\n"
    "                    --seed, --ops, --jobs... may be given again when\n"
    "                    they say what the run does, as a CI retry does)\n"
    "  --db PATH         results database (default " SL_DEFAULT_DB ")\n"
    "  --no-db           record nothing\n"
    "  --format F        text (default) or json: one JSON document on stdout\n"
    "                    at the end (docs/json.md), the text on stderr\n"
    "  --junit FILE      also write JUnit XML: one test case per failure\n"
    "                    group (with its repro line and minimal case), one\n"
    "                    for the cases that passed\n"
    "  --fail-on WHAT    any (default): every failure group makes the exit\n"
    "                    status 1; new: only groups the store (--db) has not\n"
    "                    met in an earlier run (each group is reported new\n"
    "                    or known: first seen in run N, at commit C)\n"
    "  --known FILE      failure groups accepted on purpose, one a line by\n"
    "                    signature id or signature text (# comments): they\n"
    "                    are reported known and never fail the run\n"
    "\n"
    "Failures are grouped by signature (op, variant, verdict, reduce, the\n"
    "output that went wrong first and the kind of wrongness; not shapes,\n"
    "ranks or dtypes: docs/fuzzing.md): one FAIL block and one corpus\n"
    "entry per group. Under GitHub Actions (GITHUB_ACTIONS=true) each\n"
    "group is also an ::error annotation, and a table of the groups is\n"
    "appended to $GITHUB_STEP_SUMMARY.\n"
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

void sl__defaults(sl_fuzz_campaign *f) {
  memset(f, 0, sizeof *f);
  sl_fuzz_opts_init(&f->gen);
  f->seed = 1;
  f->seconds = 10;
  f->cases = -1;
  f->jobs = 1;
  f->shard_n = 1;
  f->shrink = 1;
  f->timeout = 10;
  f->corpus = sl__default_corpus();
  f->db = SL_DEFAULT_DB;
}

/* Options that decide which cases a job runs, and what the run keeps of
 * them: they cannot change when a run is resumed. */
static const char *const sl__schedule_options[] = {
    "--ops",       "--dtypes",    "--variants",     "--seed",
    "--max-elems", "--jobs",      "--shard",        "--cases",
    "--provider",  "--reduces",   "--index-dtypes", "--keep",
    "--size-mix",  "--tolerance", "--stress",       "--huge"};

static int sl__is_schedule_option(const char *a) {
  for (size_t k = 0; k < sizeof sl__schedule_options / sizeof(char *); ++k)
    if (sl_cli_is(a, sl__schedule_options[k])) return 1;
  return 0;
}

/* The config format a run stores (sl__config). Version 4 adds --stress
 * (earlier runs had no contention cases: 0); version 3 adds --size-mix
 * (earlier runs had no size mix: 0); version 2 stores --shard 1-based, as
 * the command line takes it; version 1 (runs stored before the word
 * "--config-version" existed) stored it 0-based. */
enum { SL__CONFIG_VERSION = 4 };

/* Parses argv[1..] into f. config_version is NULL for a command line, else
 * the words are a stored config (sl__config) and it receives the config's
 * format version (1 until a "--config-version" word says otherwise).
 * Returns 0, SL_EXIT_USAGE, or -1 after --help. */
int sl__parse(sl_fuzz_campaign *f, int argc, char **argv, int *config_version) {
  const char *v;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    long long n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__fuzz_help, stdout);
      return -1;
    } else if (sl_cli_is(a, "--ops")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--ops", v, sl__op_lookup, &f->gen.ops))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--dtypes")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--dtypes", v, sl__dtype_lookup,
                         &f->gen.dtypes))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--index-dtypes")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--index-dtypes", v, sl__index_dtype_lookup,
                         &f->gen.index_dtypes))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--reduces")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          sl__parse_list("fuzz", "--reduces", v, sl__reduce_lookup,
                         &f->gen.reduces))
        return SL_EXIT_USAGE;
    } else if (sl_cli_skip_provider(argc, argv, &i)) {
    } else if (sl_cli_is(a, "--variants")) {
      if (!(f->variants = sl_cli_value("fuzz", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--seconds")) {
      if ((f->seconds = sl_cli_positive_option("fuzz", argc, argv, &i, 1e9)) <
          0)
        return SL_EXIT_USAGE;
      f->cases = -1;
    } else if (sl_cli_is(a, "--cases")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (f->cases = sl_cli_int("fuzz", "--cases", v)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--seed")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (n = sl_cli_int("fuzz", "--seed", v)) < 0)
        return SL_EXIT_USAGE;
      f->seed = (uint64_t)n;
    } else if (sl_cli_is(a, "--max-elems")) {
      if ((f->gen.max_elems = sl_cli_int_option("fuzz", argc, argv, &i, 1,
                                                INT64_C(1) << 28)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--size-mix")) {
      if ((f->gen.size_mix = sl_cli_int_option("fuzz", argc, argv, &i, 0,
                                               INT64_C(1) << 30)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--stress")) {
      if ((f->gen.stress = sl_cli_int_option("fuzz", argc, argv, &i, 0,
                                             INT64_C(1) << 30)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--jobs")) {
      if ((f->jobs = (int)sl_cli_int_option("fuzz", argc, argv, &i, 1, 256)) <
          0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--shard")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
      /* Only configs stored before version 2 count shards from 0. */
      int base = config_version && *config_version < 2 ? 0 : 1;
      int k, m, used = 0;
      if (sscanf(v, "%d/%d%n", &k, &m, &used) != 2 || v[used] || m < 1 ||
          k < base || k >= m + base)
        return sl_cli_usage_error("fuzz",
                                  "--shard: expected K/N with %d <= K "
                                  "<= N%s, got \"%s\"",
                                  base, base ? "" : " - 1", v);
      f->shard_k = k - base;
      f->shard_n = m;
      f->shard_set = 1;
    } else if (config_version && sl_cli_is(a, "--config-version")) {
      if ((n = sl_cli_int_option("fuzz", argc, argv, &i, 1,
                                 SL__CONFIG_VERSION)) < 0)
        return SL_EXIT_USAGE;
      *config_version = (int)n;
    } else if (sl_cli_is(a, "--timeout")) {
      if ((f->timeout = sl_cli_positive_option("fuzz", argc, argv, &i, 1e6)) <
          0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--max-case-bytes")) {
      if (sl_cli_bytes_option("fuzz", argc, argv, &i, &f->max_case_bytes))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--tolerance")) {
      if (sl_tolerance_option("fuzz", argc, argv, &i, &f->tol))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--corpus")) {
      if (!(f->corpus = sl_cli_value("fuzz", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--keep")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
      if (strcmp(v, "all") && strcmp(v, "failures"))
        return sl_cli_usage_error("fuzz",
                                  "--keep: expected all or failures, got "
                                  "\"%s\"",
                                  v);
      f->keep_all = strcmp(v, "all") == 0;
    } else if (strcmp(a, "--no-corpus") == 0) {
      f->corpus = NULL;
    } else if (strcmp(a, "--no-shrink") == 0) {
      f->shrink = 0;
    } else if (strcmp(a, "--huge") == 0) {
      f->huge = 1;
    } else if (strcmp(a, "--print") == 0) {
      f->print = 1;
    } else if (sl_cli_is(a, "--resume")) {
      if (!(v = sl_cli_value("fuzz", argc, argv, &i)) ||
          (n = sl_cli_int("fuzz", "--resume", v)) < 0)
        return SL_EXIT_USAGE;
      if (n < 1)
        return sl_cli_usage_error("fuzz",
                                  "--resume: expected a run id >= 1, "
                                  "got %lld",
                                  n);
      f->resume = n;
    } else if (sl_cli_is(a, "--db")) {
      if (!(f->db = sl_cli_value("fuzz", argc, argv, &i))) return SL_EXIT_USAGE;
    } else if (strcmp(a, "--no-db") == 0) {
      f->db = NULL;
    } else if (sl_cli_is(a, "--format")) {
      if (sl_json_format_option("fuzz", argc, argv, &i, &f->json))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--junit")) {
      if (!(f->junit = sl_cli_value("fuzz", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--fail-on") || sl_cli_is(a, "--known")) {
      sl_triage_opts t = {f->fail_on_new, f->known, {0}};
      int taken = sl_triage_option("fuzz", argc, argv, &i, &t);
      if (taken != 1) return SL_EXIT_USAGE;
      f->fail_on_new = t.fail_on_new;
      f->known = t.known_path;
    } else {
      return sl_cli_usage_error("fuzz", "%s: unknown argument", a);
    }
  }
  return 0;
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
           " --size-mix %" PRId64 " --stress %" PRId64
           " --jobs %d --shard %d/%d --timeout %.17g",
           SL__CONFIG_VERSION, f->seed, f->gen.max_elems, f->gen.size_mix,
           f->gen.stress, f->jobs, f->shard_k + 1, f->shard_n, f->timeout);
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

/* A schedule option given again to --resume must say what the run already
 * does: each is applied alone over the run's campaign f and the two configs
 * compared, so `--seed 7` of a seed-7 run is taken and `--seed 8` refused
 * (it would change which cases run). Returns 0 or SL_EXIT_USAGE. */
static int sl__same_schedule(const sl_fuzz_campaign *f, const char *run_config,
                             int argc, char **argv) {
  static char before[16384], after[16384];
  sl__config(f, before, sizeof before);
  for (int i = 1; i < argc; ++i) {
    if (!sl__is_schedule_option(argv[i])) continue;
    /* --huge alone takes no value */
    int first = i,
        has_eq = strchr(argv[i], '=') != NULL || strcmp(argv[i], "--huge") == 0;
    if (!has_eq && i + 1 < argc) ++i; /* the option's value */
    int same;
    if (sl_cli_is(argv[first], "--provider")) {
      same =
          sl__provider_loaded(has_eq ? strchr(argv[first], '=') + 1 : argv[i]);
    } else {
      sl_fuzz_campaign g = *f;
      char *one[3] = {"fuzz", argv[first], argv[i]};
      if (sl__parse(&g, has_eq ? 2 : 3, one, NULL)) return SL_EXIT_USAGE;
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
  rc = sl__parse(f, argc, argv, NULL);
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
