/* A small case's tensors as text (show_tensors.h). */
#include "show_tensors.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The text being written into buf; full once a piece did not fit. */
typedef struct sl__text {
  char *buf;
  size_t len, used;
  int full;
} sl__text;

static void sl__put(sl__text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sl__put(sl__text *t, const char *fmt, ...) {
  if (t->full) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= t->len - t->used) {
    t->full = 1;
    return;
  }
  t->used += (size_t)n;
}

static void sl__value(sl__text *t, const sl_tensor *x, const int64_t *at) {
  int64_t off = 0;
  for (int d = 0; d < x->ndim; ++d) off += at[d] * x->strides[d];
  const char *p =
      (const char *)x->data + off * (int64_t)sl_dtype_size(x->dtype);
  if (!sl_dtype_is_float(x->dtype))
    sl__put(t, "%" PRId64, sl_elem_get_i(x->dtype, p));
  else
    sl__put(t, x->dtype == SL_F64 ? "%.17g" : "%.9g",
            sl_elem_get_f(x->dtype, p));
}

/* The values of x from axis d on, at[0..d) fixed: nested brackets. */
static void sl__values(sl__text *t, const sl_tensor *x, int64_t *at, int d) {
  if (d == x->ndim) {
    sl__value(t, x, at);
    return;
  }
  sl__put(t, "[");
  for (at[d] = 0; at[d] < x->shape[d]; ++at[d]) {
    if (at[d]) sl__put(t, ", ");
    sl__values(t, x, at, d + 1);
  }
  sl__put(t, "]");
}

static void sl__tensor(sl__text *t, const char *label, const sl_tensor *x) {
  int64_t n = 1;
  sl__put(t, "%s %s [", label, sl_dtype_name(x->dtype));
  for (int d = 0; d < x->ndim; ++d) {
    sl__put(t, "%s%" PRId64, d ? "x" : "", x->shape[d]);
    n *= x->shape[d];
  }
  sl__put(t, x->ndim ? "]" : "scalar]");
  if (n > SL_SHOW_MAX_ELEMENTS) {
    sl__put(t, ": %" PRId64 " elements, not shown\n", n);
    return;
  }
  int64_t at[SL_MAX_DIMS] = {0};
  sl__put(t, " = ");
  sl__values(t, x, at, 0);
  sl__put(t, "\n");
}

void sl_show_slots(char *buf, size_t len, const char *prefix, sl_op op,
                   const sl_tensor *tensors, int from, int to, int first_slot) {
  const sl_op_info *info = sl_op_get(op);
  if (!buf || len < 8 || !info) return;
  sl__text t = {buf, len, strlen(buf), 0};
  for (int s = from; s < to && s < SL_MAX_ARGS; ++s) {
    const sl_tensor *x = &tensors[s - first_slot];
    /* an argument the case does not give; device memory is not ours to
     * read here */
    if (!x->data || x->device != SL_DEVICE_CPU) continue;
    char label[96];
    snprintf(label, sizeof label, "%s%s", prefix, info->arg_names[s]);
    const size_t line_start = t.used;
    sl__tensor(&t, label, x);
    if (t.full) {
      /* cut at the last whole line, and say so */
      t.used = line_start;
      buf[t.used] = '\0';
      if (len - t.used >= 5) strcpy(buf + t.used, "...\n");
      return;
    }
  }
}

uint64_t sl_outputs_digest(const sl_tensor *t, int n) {
  uint64_t h = 1469598103934665603ull;
  for (int k = 0; k < n; ++k) {
    const sl_tensor *x = &t[k];
    if (!x->data || x->device != SL_DEVICE_CPU) continue;
    const size_t es = sl_dtype_size(x->dtype);
    int64_t numel = 1, idx[SL_MAX_DIMS] = {0};
    for (int d = 0; d < x->ndim; ++d) numel *= x->shape[d];
    for (int64_t i = 0; i < numel; ++i) {
      int64_t off = 0;
      for (int d = 0; d < x->ndim; ++d) off += idx[d] * x->strides[d];
      const unsigned char *p =
          (const unsigned char *)x->data + off * (int64_t)es;
      for (size_t b = 0; b < es; ++b) h = (h ^ p[b]) * 1099511628211ull;
      for (int d = x->ndim - 1; d >= 0 && ++idx[d] == x->shape[d]; --d)
        idx[d] = 0;
    }
  }
  return h;
}
