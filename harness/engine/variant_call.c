/* A CPU variant's guarded call (variant_call.h). */
#include "variant_call.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_mem.h"
#include "sl/sl_provider.h"

static int64_t sl__numel(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

unsigned sl_input_layout(const sl_tensor *t) {
  if (!t->data) return 0;
  for (int d = 0; d < t->ndim; ++d)
    if (t->strides[d] == 0 && t->shape[d] > 1) return SL_LAYOUT_BROADCAST;
  return sl_tensor_is_contiguous(t) ? 0 : SL_LAYOUT_STRIDED;
}

/* A row-major copy of t's elements into a new buffer, against a guard
 * page as every input is (guarded_mem.h); NULL when memory runs out. */
static void *sl__contiguous_copy(const sl_tensor *t) {
  int64_t n = sl__numel(t);
  size_t es = sl_dtype_size(t->dtype);
  char *dst = sl_guarded_calloc(n > 0 ? (size_t)n * es : 0);
  if (!dst) return NULL;
  int64_t idx[SL_MAX_DIMS] = {0};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
    memcpy(dst + (size_t)i * es, (const char *)t->data + (size_t)off * es, es);
    for (int d = t->ndim - 1; d >= 0; --d) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  return dst;
}

double sl_poison_value(sl_dtype dt, int *plain) {
  unsigned char bytes[16];
  memset(bytes, SL_POISON_BYTE, sizeof bytes);
  const double v = sl_elem_get_f(dt, bytes);
  *plain = sl_dtype_size(dt) <= 1 || isnan(v);
  return v;
}

int sl_variant_call_prepare(sl_variant_call *vc, const sl_call *inferred,
                            unsigned copy_layouts, char *note, size_t len) {
  const sl_op_info *info = sl_op_get(inferred->op);
  memset(vc, 0, sizeof *vc);
  vc->call = *inferred;
  note[0] = '\0';
  size_t k = 0;
  for (int s = 0; s < info->n_in; ++s) {
    sl_tensor *t = &vc->call.arg[s];
    unsigned lay = sl_input_layout(t) & copy_layouts;
    if (!lay) continue;
    if (!(vc->copies[s] = sl__contiguous_copy(t))) goto oom;
    t->data = vc->copies[s];
    sl_contiguous_strides(t->ndim, t->shape, t->strides);
    k += (size_t)snprintf(note + k, k < len ? len - k : 0, "%s%s (%s)",
                          k ? ", " : "inputs made contiguous for the variant: ",
                          info->arg_names[s],
                          lay == SL_LAYOUT_BROADCAST ? "broadcast" : "strided");
  }
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    sl_tensor *t = &vc->call.arg[s];
    size_t bytes = (size_t)sl__numel(t) * sl_dtype_size(t->dtype);
    /* Against a guard page too: a write past the guard bytes faults in
     * the kernel that made it, instead of damaging the heap for whatever
     * runs next in the worker (the reference, another variant). */
    if (!(vc->block[s] = sl_guarded_calloc(bytes + 2 * SL_CPU_GUARD))) goto oom;
    memset(vc->block[s], SL_CPU_GUARD_BYTE, SL_CPU_GUARD);
    /* Poison: an element a kernel forgets to write shows up as 0xA5. */
    memset(vc->block[s] + SL_CPU_GUARD, SL_POISON_BYTE, bytes);
    memset(vc->block[s] + SL_CPU_GUARD + bytes, SL_CPU_GUARD_BYTE,
           SL_CPU_GUARD);
    vc->bytes[s] = bytes;
    t->data = vc->block[s] + SL_CPU_GUARD;
    t->device = SL_DEVICE_CPU;
  }
  return 0;
oom:
  sl_variant_call_free(vc);
  return -1;
}

int sl_variant_call_guards_ok(const sl_variant_call *vc, char *msg,
                              size_t len) {
  const sl_op_info *info = sl_op_get(vc->call.op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    const unsigned char *b = vc->block[s];
    /* Nearest the output first: the likeliest stray write. */
    for (int i = SL_CPU_GUARD - 1; i >= 0; --i)
      if (b[i] != SL_CPU_GUARD_BYTE) {
        snprintf(msg, len,
                 SL_WROTE_OUTSIDE_PREFIX " %s: byte %d before its start "
                                         "changed from 0x%02x to 0x%02x",
                 info->arg_names[s], SL_CPU_GUARD - i, SL_CPU_GUARD_BYTE, b[i]);
        return 0;
      }
    const unsigned char *after = b + SL_CPU_GUARD + vc->bytes[s];
    for (int i = 0; i < SL_CPU_GUARD; ++i)
      if (after[i] != SL_CPU_GUARD_BYTE) {
        snprintf(msg, len,
                 SL_WROTE_OUTSIDE_PREFIX " %s: byte %d after its end "
                                         "changed from 0x%02x to 0x%02x",
                 info->arg_names[s], i + 1, SL_CPU_GUARD_BYTE, after[i]);
        return 0;
      }
  }
  return 1;
}

void sl_variant_call_free(sl_variant_call *vc) {
  for (int s = 0; s < SL_MAX_ARGS; ++s) {
    sl_guarded_free(vc->block[s]);
    sl_guarded_free(vc->copies[s]);
    vc->block[s] = NULL;
    vc->copies[s] = NULL;
  }
}
