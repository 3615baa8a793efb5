/* The verdict table's accessors (sl_verdict.h), all read from
 * verdicts.def. */
#include "sl_verdict.h"

#include <stdio.h>
#include <string.h>

/* `fails` is a flag: 0 or 1. */
#define SL_VERDICT(e, name, fails, description)                                \
  _Static_assert((fails) == 0 || (fails) == 1, #name ": fails is 0 or 1");
#include "verdicts.def"
#undef SL_VERDICT

typedef struct sl__verdict_row {
  const char *name, *description;
  int fails;
} sl__verdict_row;

static const sl__verdict_row sl__verdicts[SL_VERDICT_COUNT] = {
#define SL_VERDICT(e, name, fails, description)                                \
  [SL_VERDICT_##e] = {#name, description, fails},
#include "verdicts.def"
#undef SL_VERDICT
};

const char *sl_verdict_name(sl_verdict v) {
  return (unsigned)v < SL_VERDICT_COUNT ? sl__verdicts[v].name : "?";
}

const char *sl_verdict_description(sl_verdict v) {
  return (unsigned)v < SL_VERDICT_COUNT ? sl__verdicts[v].description : "";
}

int sl_verdict_is_failure(sl_verdict v) {
  return (unsigned)v < SL_VERDICT_COUNT && sl__verdicts[v].fails;
}

int sl_verdict_from_name(const char *name) {
  if (!name) return -1;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v)
    if (strcmp(sl__verdicts[v].name, name) == 0) return v;
  return -1;
}

int sl_verdict_name_is_failure(const char *name) {
  int v = sl_verdict_from_name(name);
  return v >= 0 && sl__verdicts[v].fails;
}

/* Joins the names of the selected rows, each between quote marks, after
 * `open` and before `close`; -1 (buf "") when it does not fit. */
static int sl__join(int failing, const char *open, const char *quote,
                    const char *sep, const char *close, char *buf, size_t len) {
  size_t at = 0;
  int first = 1, n = snprintf(buf, len, "%s", open);
  if (n < 0 || (size_t)n >= len) goto too_small;
  at = (size_t)n;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    if (failing && !sl__verdicts[v].fails) continue;
    n = snprintf(buf + at, len - at, "%s%s%s%s", first ? "" : sep, quote,
                 sl__verdicts[v].name, quote);
    if (n < 0 || (size_t)n >= len - at) goto too_small;
    at += (size_t)n;
    first = 0;
  }
  n = snprintf(buf + at, len - at, "%s", close);
  if (n < 0 || (size_t)n >= len - at) goto too_small;
  return (int)(at + (size_t)n);
too_small:
  if (len) buf[0] = '\0';
  return -1;
}

int sl_verdict_sql_list(int failing, char *buf, size_t len) {
  /* Names are identifiers ([a-z_]): quoting them needs no escapes. */
  return sl__join(failing, "(", "'", ", ", ")", buf, len);
}

int sl_verdict_names_joined(const char *sep, char *buf, size_t len) {
  return sl__join(0, "", "", sep ? sep : ", ", "", buf, len);
}
