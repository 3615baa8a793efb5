/* The option table (base/options.def) and its parser and help: every row
 * sound for every command that takes it, values checked by kind, repeated
 * options joined, unknown ones named with the nearest, and each command's
 * help listing exactly its rows within 78 columns. */
#include "cli.h"
#include "options.h"
#include "sl_test.h"

#include <stdint.h>

/* Parses the words (argv[0] is the command) as command cmd; the status. */
static int parse(sl_command cmd, sl_options *o, int argc, char **argv) {
  const sl_command_help h = {cmd, "usage\n", NULL, NULL};
  FILE *saved = stderr;
  stderr = fopen("/dev/null", "w"); /* the usage messages */
  int rc = sl_options_parse(&h, argc, argv, o);
  fclose(stderr);
  stderr = saved;
  return rc;
}

/* No command takes two rows of one name or alias, every row has a name,
 * help and commands, and every default passes its own row's check (a
 * default that did not would abort every run of its command). */
static void test_rows(void) {
  for (int a = 0; a < SL_OPT_COUNT; ++a) {
    const sl_option *r = sl_option_row((sl_option_id)a);
    CHECK_MSG(r->name && strncmp(r->name, "--", 2) == 0, "row %d", a);
    CHECK_MSG(r->help && r->help[0] && r->commands, "%s", r->name);
    CHECK_MSG((r->kind == SL_OPTK_FLAG) == (r->arg == NULL), "%s", r->name);
    for (int b = a + 1; b < SL_OPT_COUNT; ++b) {
      const sl_option *q = sl_option_row((sl_option_id)b);
      const int same = strcmp(r->name, q->name) == 0 ||
                       (r->alias && q->alias && !strcmp(r->alias, q->alias));
      CHECK_MSG(!same || !(r->commands & q->commands), "%s twice", r->name);
    }
  }
  for (int c = 0; c < SL_CMD_COUNT; ++c) {
    sl_options o;
    char *argv[] = {"cmd", NULL};
    CHECK(parse((sl_command)c, &o, 1, argv) == 0);
    sl_options_free(&o);
  }
}

static void test_values(void) {
  sl_options o;
  char *ok[] = {
      "run", "--threads=3", "--timeout", "2.5",      "--max-case-bytes",
      "6G",  "-q",          "CASE",      "--format", "json"};
  CHECK(parse(SL_CMD_RUN, &o, 10, ok) == 0);
  CHECK(o.v[SL_OPT_THREADS].n == 3 && o.v[SL_OPT_RUN_TIMEOUT].x == 2.5);
  CHECK(o.v[SL_OPT_MAX_CASE_BYTES].bytes == (uint64_t)6 << 30);
  CHECK(sl_opt_on(&o, SL_OPT_QUIET) && o.v[SL_OPT_FORMAT].n == 1);
  CHECK(o.nwords == 1 && strcmp(o.words[0], "CASE") == 0);
  CHECK(o.v[SL_OPT_FAIL_ON].n == 0 && !o.v[SL_OPT_FAIL_ON].given);
  sl_options_free(&o);
  /* each wrong value is a usage error, and so is an option of another
   * command (--seconds is fuzz's) */
  char *bad[][3] = {
      {"run", "--threads", "100000000"}, {"run", "--timeout", "0"},
      {"run", "--format", "xml"},        {"run", "--seconds", "1"},
      {"run", "--quiet=1", NULL},        {"run", "--timeout", NULL},
      {"run", "--max-case-bytes", "0"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
    CHECK_MSG(parse(SL_CMD_RUN, &o, bad[k][2] ? 3 : 2, bad[k]) == SL_EXIT_USAGE,
              "%s %s", bad[k][1], bad[k][2] ? bad[k][2] : "");
    sl_options_free(&o);
  }
  /* a refused choice leaves the default: a command reading it before the
   * status (compare's format table) reads an index, never -1 */
  char *xml[] = {"compare", "--format", "xml"};
  CHECK(parse(SL_CMD_COMPARE, &o, 3, xml) == SL_EXIT_USAGE);
  CHECK(o.v[SL_OPT_COMPARE_FORMAT].n == 0 &&
        strcmp(o.v[SL_OPT_COMPARE_FORMAT].text, "text") == 0);
  sl_options_free(&o);
  char *pct[] = {"ab", "--threshold", "7.5%", "--plant-slowdown", "10"};
  CHECK(parse(SL_CMD_AB, &o, 5, pct) == 0);
  CHECK(fabs(o.v[SL_OPT_THRESHOLD].x - 0.075) < 1e-12);
  CHECK(fabs(o.v[SL_OPT_PLANT_SLOWDOWN].x - 0.1) < 1e-12);
  sl_options_free(&o);
}

/* A repeatable option's values joined; the later of two options known by
 * its position; a config-only option refused on the command line. */
static void test_repeat_and_order(void) {
  sl_options o;
  char *rep[] = {"fuzz",        "--tolerance", "f16=0.1",   "--cases", "5",
                 "--tolerance", "f32=1e-3",    "--seconds", "2"};
  CHECK(parse(SL_CMD_FUZZ, &o, 9, rep) == 0);
  CHECK(strcmp(sl_opt_text(&o, SL_OPT_TOLERANCE), "f16=0.1,f32=1e-3") == 0);
  CHECK(o.v[SL_OPT_SECONDS].pos > o.v[SL_OPT_CASES].pos);
  sl_options_free(&o);
  char *cfg[] = {"fuzz", "--config-version", "2"};
  CHECK(parse(SL_CMD_FUZZ, &o, 3, cfg) == SL_EXIT_USAGE);
  sl_options_free(&o);
  CHECK(sl_options_parse_config(SL_CMD_FUZZ, 3, cfg, &o) == 0);
  CHECK(o.v[SL_OPT_CONFIG_VERSION].n == 2);
  sl_options_free(&o);
}

/* The unknown option's message names the nearest one of the command. */
static void test_unknown(void) {
  char path[] = "/tmp/sl_test_options_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  FILE *saved = stderr;
  stderr = fdopen(fd, "w");
  sl_options o;
  const sl_command_help h = {SL_CMD_BENCH, "", NULL, NULL};
  char *argv[] = {"bench", "--budjet", "1"};
  CHECK(sl_options_parse(&h, 3, argv, &o) == SL_EXIT_USAGE);
  sl_options_free(&o);
  fclose(stderr);
  stderr = saved;
  char text[512] = "";
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f) fclose(f);
  remove(path);
  CHECK_CONTAINS(text, "--budjet: unknown option (did you mean --budget?)");
}

/* Each command's help holds every row it takes (and no other's), no line
 * wider than 78 columns. */
static void test_help(void) {
  for (int c = 0; c < SL_CMD_COUNT; ++c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    const sl_command_help h = {(sl_command)c, "usage\n", "after\n", NULL};
    sl_options_help(&h, out);
    fclose(out);
    for (int id = 0; id < SL_OPT_COUNT; ++id) {
      const sl_option *r = sl_option_row((sl_option_id)id);
      if (r->flags & SL_OPTF_CONFIG) continue;
      char head[96];
      snprintf(head, sizeof head, "%s%s%s", r->name, r->arg ? " " : "",
               r->arg ? r->arg : "");
      const int takes = (r->commands >> c) & 1u;
      if (takes) CHECK_CONTAINS(buf, head);
      if (takes && r->default_value) CHECK_CONTAINS(buf, r->default_value);
    }
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
      nl = strchr(line, '\n');
      const size_t w = nl ? (size_t)(nl - line) : strlen(line);
      CHECK_MSG(w <= 78, "%s: %.*s", sl_command_name((sl_command)c), (int)w,
                line);
    }
    free(buf);
  }
}

int main(void) {
  test_rows();
  test_values();
  test_repeat_and_order();
  test_unknown();
  test_help();
  return sl_test_finish("options");
}
