/* --tolerance: parsing, the canonical form, the installed overrides (see
 * tolerance.h). */
#include "tolerance.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "oracles.h"

/* Set before any worker or job is forked, read by the oracle in each. */
static sl_tolerances sl__installed;

static int sl__float_dtype(int dt) {
  return dt >= 0 &&
         (sl_dtype_is_float((sl_dtype)dt) || sl_dtype_is_complex((sl_dtype)dt));
}

int sl_tolerances_parse(sl_tolerances *t, const char *cmd, const char *value) {
  const char *p = value;
  for (;;) {
    size_t k = strcspn(p, ",");
    char item[128];
    snprintf(item, sizeof item, "%.*s", (int)(k < 127 ? k : 127), p);
    char *eq = strchr(item, '=');
    if (!eq || eq == item)
      return sl_cli_usage_error(cmd,
                                "--tolerance %s: expected DTYPE=VALUE items "
                                "separated by commas (f16=1e-3), got \"%s\"",
                                value, item);
    *eq = '\0';
    int dt = sl_dtype_from_name(item);
    if (dt < 0)
      return sl_cli_usage_error(cmd,
                                "--tolerance %s: expected a dtype of f16 bf16 "
                                "f32 f64 c64 c128, got \"%s\"",
                                value, item);
    if (!sl__float_dtype(dt))
      return sl_cli_usage_error(cmd,
                                "--tolerance %s: expected a floating dtype "
                                "(f16 bf16 f32 f64 c64 c128), got \"%s\": %s "
                                "outputs are compared exactly, a tolerance "
                                "has no meaning there",
                                value, item, item);
    const char *num = eq + 1;
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (!*num || *end || errno || !(v >= 0 && v <= 1))
      return sl_cli_usage_error(cmd,
                                "--tolerance %s: expected a number in [0, 1] "
                                "for %s (the most diff1 and diff2 may be), "
                                "got \"%s\"",
                                value, item, num);
    t->set |= 1u << dt;
    t->value[dt] = v;
    if (!p[k]) return 0;
    p += k + 1;
  }
}

/* The shortest of %.15g..%.17g that reads back as v: 0.001, not
 * 0.0010000000000000000208. */
static void sl__shortest(char *buf, size_t len, double v) {
  static const char *const fmt[] = {"%.15g", "%.16g", "%.17g"};
  for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; ++i) {
    snprintf(buf, len, fmt[i], v);
    if (strtod(buf, NULL) == v) return;
  }
}

void sl_tolerances_format(const sl_tolerances *t, char *buf, size_t len) {
  size_t n = 0;
  if (len) buf[0] = '\0';
  char num[32];
  for (int dt = 0; dt < SL_DTYPE_COUNT && n < len; ++dt)
    if (t->set & (1u << dt)) {
      sl__shortest(num, sizeof num, t->value[dt]);
      n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? "," : "",
                            sl_dtype_name((sl_dtype)dt), num);
    }
}

void sl_tolerances_config(const sl_tolerances *t, char *buf, size_t len) {
  char v[512];
  sl_tolerances_format(t, v, sizeof v);
  snprintf(buf, len, "%s%s", v[0] ? "--tolerance " : "", v);
}

void sl_tolerances_install(const sl_tolerances *t) { sl__installed = *t; }

double sl_tolerance_override(sl_dtype dt) {
  return (unsigned)dt < SL_DTYPE_COUNT && (sl__installed.set & (1u << dt))
             ? sl__installed.value[dt]
             : -1;
}

void sl_tolerances_json(FILE *out) {
  fputs("\"tolerances\": {", out);
  int first = 1;
  char num[32];
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt) {
    if (!sl__float_dtype(dt)) continue;
    sl__shortest(num, sizeof num, sl_tolerance((sl_dtype)dt));
    fprintf(out, "%s\"%s\": %s", first ? "" : ", ", sl_dtype_name((sl_dtype)dt),
            num);
    first = 0;
  }
  fputc('}', out);
}
