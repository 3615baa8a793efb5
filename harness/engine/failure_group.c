/* Failure signatures (failure_group.h). */
#include "failure_group.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "clean_text.h"

static int sl__digit(char ch) { return ch >= '0' && ch <= '9'; }

void sl_failure_message_class(const char *m, char *out, size_t len) {
  size_t n = 0;
  if (!len) return;
  for (const char *p = m ? m : ""; *p && n + 1 < len;) {
    /* A number: [-+]digits[.digits][e[-+]digits], or .digits, or inf/nan
     * are left as words (they name a kind of mismatch). */
    const char *q = p;
    if ((*q == '-' || *q == '+') && (sl__digit(q[1]) || q[1] == '.')) ++q;
    if (sl__digit(*q) || (*q == '.' && sl__digit(q[1]))) {
      while (sl__digit(*q)) ++q;
      if (*q == '.' && sl__digit(q[1]))
        for (++q; sl__digit(*q);) ++q;
      if ((*q == 'e' || *q == 'E') &&
          (sl__digit(q[1]) ||
           ((q[1] == '-' || q[1] == '+') && sl__digit(q[2]))))
        for (q += 2; sl__digit(*q);) ++q;
      out[n++] = '#';
      p = q;
      /* A list of numbers (a position "3, 1, 2", a shape "4x3") is one
       * '#': its length is the rank, which the shape class tells. */
      const char *r = p;
      if (*r == ',' || *r == 'x') ++r;
      if (r > p && *r == ' ') ++r;
      if (r > p && (sl__digit(*r) || *r == '-')) p = r, --n;
      continue;
    }
    out[n++] = *p++;
  }
  out[n] = '\0';
}

void sl_failure_shape_class(const sl_case *c, char *out, size_t len) {
  size_t n = 0;
  if (!len) return;
  out[0] = '\0';
  /* The dtype's kind, not the dtype: a bug met in f16, f32 and f64 alike
   * is one bug (an off-by-one met in every dtype made 12 groups). */
  n += (size_t)snprintf(out, len, "%s",
                        sl_dtype_is_float(c->dt)     ? "float"
                        : sl_dtype_is_int(c->dt)     ? "int"
                        : sl_dtype_is_complex(c->dt) ? "complex"
                                                     : "bool");
  for (int a = 0; a < SL_MAX_ARGS && n + 1 < len; ++a) {
    const sl_case_shape *s = &c->arg[a];
    if (!s->present) continue;
    n += (size_t)snprintf(out + n, len - n, " [");
    for (int d = 0; d < s->ndim && n + 1 < len; ++d)
      n += (size_t)snprintf(out + n, len - n, "%s%s", d ? "," : "",
                            s->shape[d] == 0   ? "0"
                            : s->shape[d] == 1 ? "1"
                                               : "N");
    if (n + 1 < len) n += (size_t)snprintf(out + n, len - n, "]");
  }
}

void sl_failure_signature(const sl_case *c, const char *variant,
                          const char *verdict, const char *message,
                          sl_failure_sig *out) {
  char shape[256], msg[512];
  sl_failure_shape_class(c, shape, sizeof shape);
  sl_failure_message_class(message, msg, sizeof msg);
  /* Tabs and newlines would break the lines the jobs send and the
   * corpus comment: a signature is one line of spaces. */
  sl_text_one_line(msg);
  /* Bounded so that the whole fits text: a longer message is cut, at a
   * character's boundary (a cut inside one is no UTF-8 for the writers). */
  msg[300] = '\0';
  sl_utf8_cut(msg);
  snprintf(out->text, sizeof out->text, "%.40s %.100s %.40s | %.200s | %.300s",
           sl_op_name(c->op), variant ? variant : "?", verdict ? verdict : "?",
           shape, msg);
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const char *p = out->text; *p; ++p)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  snprintf(out->id, sizeof out->id, "%016" PRIx64, h);
}
