/* The option table's parser and help (options.h). */
#include "options.h"

#include "byte_size.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const sl_option sl__rows[SL_OPT_COUNT] = {
#define SL_OPTION(id, name, alias, kind, arg, lo, hi, def, flags, cmds, help)  \
  [SL_OPT_##id] = {name, alias, kind, arg, lo, hi, def, flags, cmds, help},
#include "options.def"
#undef SL_OPTION
};

static const char *const sl__command_names[SL_CMD_COUNT] = {
#define SL__CMD_NAME(id, name) [SL_CMD_##id] = name,
    SL_COMMANDS(SL__CMD_NAME)
#undef SL__CMD_NAME
};

const sl_option *sl_option_row(sl_option_id id) { return &sl__rows[id]; }

const char *sl_command_name(sl_command cmd) { return sl__command_names[cmd]; }

/* Whether word `arg` names option `name` or its alias (the name also as
 * "--name=value"). */
static int sl__names(const sl_option *r, const char *arg) {
  return sl_cli_is(arg, r->name) || (r->alias && strcmp(arg, r->alias) == 0);
}

static int sl__takes(const sl_option *r, sl_command cmd, int config) {
  return (r->commands & (1u << cmd)) &&
         (config || !(r->flags & SL_OPTF_CONFIG));
}

/* The row of cmd that word `arg` names, or -1. */
static int sl__find(sl_command cmd, const char *arg, int config) {
  for (int id = 0; id < SL_OPT_COUNT; ++id)
    if (sl__takes(&sl__rows[id], cmd, config) && sl__names(&sl__rows[id], arg))
      return id;
  return -1;
}

/* A CHOICE value's index among the row's "a|b|c" words, or -1. */
static int sl__choice(const char *words, const char *v) {
  int k = 0;
  for (const char *w = words; w; ++k) {
    const char *bar = strchr(w, '|');
    size_t n = bar ? (size_t)(bar - w) : strlen(w);
    if (strlen(v) == n && strncmp(w, v, n) == 0) return k;
    w = bar ? bar + 1 : NULL;
  }
  return -1;
}

/* A number in (lo, hi] (a PCT one may end in '%'); 0, or -1. */
static int sl__real(const char *v, double lo, double hi, int pct, double *x) {
  char *end;
  errno = 0;
  *x = strtod(v, &end);
  if (pct && *end == '%') ++end;
  return !*v || *end || errno || !(*x > lo && *x <= hi) ? -1 : 0;
}

/* What a value of row r must be, for the messages. */
static void sl__expected(const sl_option *r, char *buf, size_t len) {
  switch (r->kind) {
  case SL_OPTK_INT:
  case SL_OPTK_THREADS:
    snprintf(buf, len, "an integer in [%.0f, %.0f]", r->lo,
             r->kind == SL_OPTK_THREADS ? (double)sl_cli_max_threads() : r->hi);
    break;
  case SL_OPTK_REAL:
  case SL_OPTK_PCT:
    snprintf(buf, len, "a number in (%g, %g]%s", r->lo, r->hi,
             r->kind == SL_OPTK_PCT ? " (a percentage)" : "");
    break;
  case SL_OPTK_BYTES:
    snprintf(buf, len,
             "a size above 0 in bytes, optionally with K, M, G or "
             "T (powers of 1024: 512M, 6GiB)");
    break;
  case SL_OPTK_CHOICE: { /* "a|b|c" as "a, b or c" */
    size_t n = 0;
    for (const char *w = r->arg; *w && n + 4 < len; ++w) {
      if (*w != '|') {
        buf[n++] = *w;
        continue;
      }
      const char *sep = strchr(w + 1, '|') ? ", " : " or ";
      n += (size_t)snprintf(buf + n, len - n, "%s", sep);
    }
    buf[n < len ? n : len - 1] = '\0';
    break;
  }
  default:
    snprintf(buf, len, "a value");
  }
}

/* Checks value v of row id and stores it in o->v[id]; 0, or -1. */
static int sl__store(sl_options *o, int id, const char *v) {
  const sl_option *r = &sl__rows[id];
  sl_option_value *out = &o->v[id];
  char *end;
  out->text = v;
  switch (r->kind) {
  case SL_OPTK_FLAG:
    out->n = 1;
    return 0;
  case SL_OPTK_TEXT:
    return 0;
  case SL_OPTK_INT:
  case SL_OPTK_THREADS: {
    const double hi =
        r->kind == SL_OPTK_THREADS ? (double)sl_cli_max_threads() : r->hi;
    errno = 0;
    out->n = strtoll(v, &end, 10);
    return !*v || *end || errno || out->n < r->lo || (double)out->n > hi ? -1
                                                                         : 0;
  }
  case SL_OPTK_REAL:
    return sl__real(v, r->lo, r->hi, 0, &out->x);
  case SL_OPTK_PCT:
    if (sl__real(v, r->lo, r->hi, 1, &out->x)) return -1;
    out->x /= 100;
    return 0;
  case SL_OPTK_BYTES:
    return sl_bytes_parse(v, &out->bytes) || out->bytes == 0 ? -1 : 0;
  case SL_OPTK_CHOICE:
    return (out->n = sl__choice(r->arg, v)) < 0 ? -1 : 0;
  }
  return -1;
}

/* A repeatable option's values joined with ',' (--tolerance f16=0.1
 * --tolerance f32=1e-3 is --tolerance f16=0.1,f32=1e-3). */
static int sl__join(sl_options *o, int id, const char *v) {
  char *prev = o->joined[id];
  size_t n = (prev ? strlen(prev) + 1 : 0) + strlen(v) + 1;
  char *s = malloc(n);
  if (!s) return -1;
  snprintf(s, n, "%s%s%s", prev ? prev : "", prev ? "," : "", v);
  free(prev);
  o->joined[id] = s;
  o->v[id].text = s;
  return 0;
}

/* Levenshtein distance of a and b (option names: short). */
static int sl__distance(const char *a, const char *b) {
  int row[64], n = (int)strlen(b);
  if (n > 63) n = 63;
  for (int j = 0; j <= n; ++j) row[j] = j;
  for (int i = 1; a[i - 1]; ++i) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= n; ++j) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      if (up + 1 < best) best = up + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[n];
}

static int sl__unknown(sl_command cmd, const char *arg) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
  const char *best = NULL;
  int best_d = 3; /* at most two edits away: a typo, not another option */
  for (int id = 0; id < SL_OPT_COUNT; ++id) {
    if (!sl__takes(&sl__rows[id], cmd, 0)) continue;
    int d = sl__distance(name, sl__rows[id].name);
    if (d < best_d) best_d = d, best = sl__rows[id].name;
  }
  return sl_cli_usage_error(sl_command_name(cmd), "%s: unknown option%s%s%s",
                            name, best ? " (did you mean " : "",
                            best ? best : "", best ? "?)" : "");
}

/* Takes option argv[*i] (row id) and its value; 0 or SL_EXIT_USAGE. */
static int sl__take(sl_command cmd, int id, int argc, char **argv, int *i,
                    sl_options *o) {
  const sl_option *r = &sl__rows[id];
  const char *cname = sl_command_name(cmd);
  o->v[id].pos = *i;
  if (r->kind == SL_OPTK_FLAG) {
    if (strchr(argv[*i], '='))
      return sl_cli_usage_error(cname, "%s: expected no value, got \"%s\"",
                                r->name, strchr(argv[*i], '=') + 1);
    ++o->v[id].given;
    return sl__store(o, id, NULL) ? SL_EXIT_USAGE : 0;
  }
  const char *v = sl_cli_value(cname, argc, argv, i);
  if (!v) return SL_EXIT_USAGE;
  ++o->v[id].given;
  const sl_option_value before = o->v[id];
  if (sl__store(o, id, v)) {
    /* A refused value leaves the one before (the default), so a command
     * that reads its options before it looks at the status reads a value
     * of its kind (a choice's index, never -1). */
    o->v[id] = before;
    char expected[160];
    sl__expected(r, expected, sizeof expected);
    return sl_cli_usage_error(cname, "%s: expected %s, got \"%s\"", r->name,
                              expected, v);
  }
  if ((r->flags & SL_OPTF_REPEAT) && sl__join(o, id, v))
    return sl_cli_usage_error(cname, "%s: out of memory", r->name);
  return 0;
}

/* Every row of cmd with a default takes it, as if typed (not given). */
static void sl__defaults(sl_command cmd, sl_options *o) {
  for (int id = 0; id < SL_OPT_COUNT; ++id) {
    const sl_option *r = &sl__rows[id];
    if (!sl__takes(r, cmd, 1) || !r->default_value) continue;
    if (sl__store(o, id, r->default_value)) {
      /* A row whose default its own check refuses: options.def's mistake,
       * which harness.test_options catches before a user can. */
      fprintf(stderr,
              "scatterlab: options.def: %s's default \"%s\" fails "
              "its own check\n",
              r->name, r->default_value);
      abort();
    }
  }
}

static int sl__parse(sl_command cmd, const sl_command_help *h, int argc,
                     char **argv, sl_options *o, int config) {
  memset(o, 0, sizeof *o);
  sl__defaults(cmd, o);
  if (argc > 1 && !(o->words = calloc((size_t)argc, sizeof *o->words)))
    return sl_cli_usage_error(sl_command_name(cmd), "out of memory");
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (h && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      sl_options_help(h, stdout);
      return SL_OPTIONS_HELP;
    }
    int id = sl__find(cmd, a, config);
    if (id >= 0) {
      int rc = sl__take(cmd, id, argc, argv, &i, o);
      if (rc) return rc;
    } else if (a[0] == '-' && a[1] != '\0') {
      return sl__unknown(cmd, a);
    } else {
      o->words[o->nwords++] = argv[i];
    }
  }
  return 0;
}

int sl_options_parse(const sl_command_help *h, int argc, char **argv,
                     sl_options *o) {
  return sl__parse(h->cmd, h, argc, argv, o, 0);
}

int sl_options_parse_config(sl_command cmd, int argc, char **argv,
                            sl_options *o) {
  return sl__parse(cmd, NULL, argc, argv, o, 1);
}

void sl_options_free(sl_options *o) {
  for (int id = 0; id < SL_OPT_COUNT; ++id) free(o->joined[id]);
  free(o->words);
  memset(o, 0, sizeof *o);
}

int sl_option_words(sl_option_id id, int argc, char **argv, int i) {
  const sl_option *r = &sl__rows[id];
  if (i >= argc || !sl__names(r, argv[i])) return 0;
  return r->kind == SL_OPTK_FLAG || strchr(argv[i], '=') || i + 1 >= argc ? 1
                                                                          : 2;
}
