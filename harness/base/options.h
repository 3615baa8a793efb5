/* The options of every scatterlab command, each declared once in
 * options.def (its name, argument, default, help and the commands that take
 * it), as libFuzzer declares its flags: the parser, every command's
 * `--help` and the checks of SCATTERLAB_CHECK_ARGS come from those rows, so
 * an option cannot be parsed one way and documented another. */
#ifndef SL_OPTIONS_H
#define SL_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

/* The commands, in the order of the top-level help. */
#define SL_COMMANDS(X)                                                         \
  X(RUN, "run")                                                                \
  X(LIST, "list")                                                              \
  X(FUZZ, "fuzz")                                                              \
  X(BENCH, "bench")                                                            \
  X(AB, "ab")                                                                  \
  X(REPORT, "report")                                                          \
  X(IMPORT, "import")                                                          \
  X(COMPARE, "compare")                                                        \
  X(HISTORY, "history")                                                        \
  X(MERGE, "merge")                                                            \
  X(CHECK, "check")

typedef enum sl_command {
#define SL__CMD_ENUM(id, name) SL_CMD_##id,
  SL_COMMANDS(SL__CMD_ENUM)
#undef SL__CMD_ENUM
      SL_CMD_COUNT
} sl_command;

/* Sets of commands, the last column of options.def. */
#define SL__CMD_BIT(id, name) SL_IN_##id = 1u << SL_CMD_##id,
enum { SL_COMMANDS(SL__CMD_BIT) };
#undef SL__CMD_BIT

/* What an option's argument is, and how it is checked. */
typedef enum sl_option_kind {
  SL_OPTK_FLAG,    /* no argument */
  SL_OPTK_TEXT,    /* any text (a path, a list the command reads) */
  SL_OPTK_INT,     /* an integer in [lo, hi] */
  SL_OPTK_REAL,    /* a number in (lo, hi] */
  SL_OPTK_BYTES,   /* a size above 0: "6G", "512MiB", "1000000" */
  SL_OPTK_THREADS, /* an integer in [0, sl_cli_max_threads()]; 0: all cores */
  SL_OPTK_PCT,     /* a percentage in (lo, hi], "5" or "5%"; x: 0.05 */
  SL_OPTK_CHOICE   /* one of the words of its argument "a|b|c" */
} sl_option_kind;

/* Row flags. */
enum {
  SL_OPTF_REPEAT = 1,   /* repeatable: the values joined with ',' */
  SL_OPTF_SCHEDULE = 2, /* fuzz: decides which cases run; fixed by --resume */
  SL_OPTF_CONFIG = 4    /* only in a stored fuzz config, never typed */
};

/* id, name ("--db"), short alias ("-o" or NULL), kind, argument as the help
 * shows it, lo, hi, default (as typed; NULL: none or one the help explains),
 * flags, commands, help. */
#define SL__OPT_ENUM(id, ...) SL_OPT_##id,
typedef enum sl_option_id {
#define SL_OPTION SL__OPT_ENUM
#include "options.def"
#undef SL_OPTION
  SL_OPT_COUNT
} sl_option_id;
#undef SL__OPT_ENUM

typedef struct sl_option {
  const char *name, *alias;
  sl_option_kind kind;
  const char *arg;
  double lo, hi;
  const char *default_value;
  unsigned flags, commands;
  const char *help;
} sl_option;

/* Row id of options.def. */
const sl_option *sl_option_row(sl_option_id id);

/* An option's value after parsing: as given (the last time; a repeatable
 * option's values joined), else its default, else unset (text NULL). */
typedef struct sl_option_value {
  int given;        /* times on the command line */
  int pos;          /* argv index of the last time (0: not given) */
  const char *text; /* the value as typed; a flag: NULL */
  long long n;      /* INT, THREADS; CHOICE: the word's index; FLAG: given */
  double x;         /* REAL; PCT as a fraction */
  uint64_t bytes;   /* BYTES */
} sl_option_value;

typedef struct sl_options {
  sl_option_value v[SL_OPT_COUNT];
  char **words; /* the words that are not options, in order */
  int nwords;
  char *joined[SL_OPT_COUNT]; /* repeatable options' joined values */
} sl_options;

/* What a command's help says around its generated options: the usage
 * lines and what it does (before), exit statuses and notes (after). */
typedef struct sl_command_help {
  sl_command cmd;
  const char *before, *after;
  void (*more)(FILE *out); /* printed after the options, before `after` */
} sl_command_help;

#define SL_OPTIONS_HELP (-1)

/* Parses argv[1..] for command h->cmd into o (zeroed first; free with
 * sl_options_free). --help and -h print the help and return
 * SL_OPTIONS_HELP; an option the command does not take, a missing or
 * malformed value: SL_EXIT_USAGE after a message naming the option, what it
 * expects and what it got (and the nearest option of the command). */
int sl_options_parse(const sl_command_help *h, int argc, char **argv,
                     sl_options *o);
/* The same over a stored fuzz config's words: SL_OPTF_CONFIG rows taken,
 * no help. */
int sl_options_parse_config(sl_command cmd, int argc, char **argv,
                            sl_options *o);
void sl_options_free(sl_options *o);

/* Whether argv word `arg` is option `id` (also "--name=value"), and how
 * many words it takes with its value (1 or 2; 0: not it). */
int sl_option_words(sl_option_id id, int argc, char **argv, int i);

/* The help of h->cmd: before, "options:" and a row per option the command
 * takes (its argument, help and default), after. */
void sl_options_help(const sl_command_help *h, FILE *out);

/* The command's name ("run"). */
const char *sl_command_name(sl_command cmd);

/* Accessors: an option's text (NULL when unset), number, flag. */
static inline const char *sl_opt_text(const sl_options *o, sl_option_id id) {
  return o->v[id].text;
}
static inline int sl_opt_on(const sl_options *o, sl_option_id id) {
  return o->v[id].given > 0;
}

#endif
