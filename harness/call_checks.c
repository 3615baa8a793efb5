/* The core's refusals of broken calls (see call_checks.h). */
#include "call_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"
#include "rng.h"
#include "variant_call.h"

/* What a break does to the call (and the variant row it runs with); 0
 * when it does not apply to this call. `in`/`out`: the slots drawn;
 * *scratch: memory the break points tensors at (freed by the caller). */
typedef int (*sl__break_fn)(sl_call *c, sl_variant *w, int in, int out,
                            void **scratch);

static int sl__no_variant(sl_call *c, sl_variant *w, int in, int out,
                          void **scratch) {
  (void)c, (void)w, (void)in, (void)out, (void)scratch;
  return 1; /* run with v = NULL (sl__run_broken) */
}
static int sl__other_op(sl_call *c, sl_variant *w, int in, int out,
                        void **scratch) {
  (void)in, (void)out, (void)scratch;
  w->op = (sl_op)((c->op + 1) % SL_OP_COUNT);
  return 1;
}
static int sl__unknown_op(sl_call *c, sl_variant *w, int in, int out,
                          void **scratch) {
  (void)in, (void)out, (void)scratch;
  c->op = w->op = (sl_op)SL_OP_COUNT;
  return 1;
}
static int sl__not_built(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)c, (void)in, (void)out, (void)scratch;
  w->fn = NULL;
  return 1;
}
static int sl__in_rank(sl_call *c, sl_variant *w, int in, int out,
                       void **scratch) {
  (void)w, (void)out, (void)scratch;
  c->arg[in].ndim = SL_MAX_DIMS + 1;
  return 1;
}
static int sl__in_extent(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)w, (void)out, (void)scratch;
  if (c->arg[in].ndim < 1) return 0;
  c->arg[in].shape[c->arg[in].ndim - 1] = -1;
  return 1;
}
static int sl__in_overflow(sl_call *c, sl_variant *w, int in, int out,
                           void **scratch) {
  (void)w, (void)out, (void)scratch;
  sl_tensor *t = &c->arg[in];
  t->ndim = 2;
  t->shape[0] = t->shape[1] = (int64_t)1 << 40;
  t->strides[0] = t->shape[1], t->strides[1] = 1;
  return 1;
}
static int sl__in_dtype(sl_call *c, sl_variant *w, int in, int out,
                        void **scratch) {
  (void)w, (void)out, (void)scratch;
  c->arg[in].dtype = (sl_dtype)SL_DTYPE_COUNT;
  return 1;
}
static int sl__in_device(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)w, (void)out, (void)scratch;
  c->arg[in].device = (sl_device)7;
  return 1;
}
static int sl__in_stride(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)w, (void)out, (void)scratch;
  if (c->arg[in].ndim < 1) return 0;
  c->arg[in].strides[0] = -1;
  return 1;
}
static int sl__in_no_data(sl_call *c, sl_variant *w, int in, int out,
                          void **scratch) {
  (void)w, (void)out, (void)scratch;
  if (!sl_tensor_span_bytes(&c->arg[in])) return 0;
  c->arg[in].data = NULL;
  return 1;
}
static int sl__in_wrong_device(sl_call *c, sl_variant *w, int in, int out,
                               void **scratch) {
  (void)out, (void)scratch;
  c->arg[in].device =
      sl_variant_device(w) == SL_DEVICE_CPU ? SL_DEVICE_CUDA : SL_DEVICE_CPU;
  return 1;
}
static int sl__out_dtype(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)w, (void)in, (void)scratch;
  /* the same element size, so that the descriptor stays within its buffer
   * if the refusal were missing */
  const sl_dtype dt = c->arg[out].dtype;
  for (int k = 1; k < SL_DTYPE_COUNT; ++k) {
    const sl_dtype o = (sl_dtype)((dt + k) % SL_DTYPE_COUNT);
    if (sl_dtype_size(o) == sl_dtype_size(dt)) {
      c->arg[out].dtype = o;
      return 1;
    }
  }
  return 0;
}
static int sl__out_shape(sl_call *c, sl_variant *w, int in, int out,
                         void **scratch) {
  (void)w, (void)in, (void)scratch;
  sl_tensor *t = &c->arg[out];
  if (t->ndim >= SL_MAX_DIMS) return 0;
  /* one more axis of extent 1: the same elements, another shape */
  t->shape[t->ndim] = 1;
  t->strides[t->ndim] = 1;
  ++t->ndim;
  return 1;
}
static int sl__out_overlap(sl_call *c, sl_variant *w, int in, int out,
                           void **scratch) {
  (void)w;
  const size_t a = sl_tensor_span_bytes(&c->arg[in]),
               b = sl_tensor_span_bytes(&c->arg[out]);
  if (!a || !b) return 0;
  /* Both in memory of their own, the output over a copy of the input: a
   * kernel run by mistake would write nothing the case still needs. */
  *scratch = calloc(a > b ? a : b, 1);
  if (!*scratch) return 0;
  /* the input's values, so that only the overlap is wrong */
  memcpy(*scratch, c->arg[in].data, a);
  c->arg[in].data = c->arg[out].data = *scratch;
  return 1;
}

/* Slot classes a break names in its message. */
enum {
  SL__NAMES_CALL,
  SL__NAMES_VARIANT,
  SL__NAMES_OP,
  SL__NAMES_IN,
  SL__NAMES_OUT
};

/* name, the break, the status it must get, what the message must name */
#define SL__CALL_BREAKS(X)                                                     \
  X("no call", NULL, NULL_POINTER, SL__NAMES_CALL)                             \
  X("no variant", sl__no_variant, NULL_POINTER, SL__NAMES_VARIANT)             \
  X("a variant of another op", sl__other_op, UNKNOWN_VARIANT,                  \
    SL__NAMES_VARIANT)                                                         \
  X("an unknown op", sl__unknown_op, UNKNOWN_OP, SL__NAMES_OP)                 \
  X("a variant without a kernel", sl__not_built, NOT_BUILT, SL__NAMES_VARIANT) \
  X("an input of rank SL_MAX_DIMS + 1", sl__in_rank, INVALID_ARGUMENT,         \
    SL__NAMES_IN)                                                              \
  X("an input with a negative extent", sl__in_extent, INVALID_ARGUMENT,        \
    SL__NAMES_IN)                                                              \
  X("an input of 2^80 elements", sl__in_overflow, OVERFLOW, SL__NAMES_IN)      \
  X("an input of an unknown dtype", sl__in_dtype, UNSUPPORTED_DTYPE,           \
    SL__NAMES_IN)                                                              \
  X("an input on an unknown device", sl__in_device, INVALID_ARGUMENT,          \
    SL__NAMES_IN)                                                              \
  X("an input with a negative stride", sl__in_stride, INVALID_ARGUMENT,        \
    SL__NAMES_IN)                                                              \
  X("an input without data", sl__in_no_data, NULL_POINTER, SL__NAMES_IN)       \
  X("an input on the other device", sl__in_wrong_device, WRONG_DEVICE,         \
    SL__NAMES_IN)                                                              \
  X("an output of another dtype", sl__out_dtype, UNSUPPORTED_DTYPE,            \
    SL__NAMES_OUT)                                                             \
  X("an output of another shape", sl__out_shape, SHAPE_MISMATCH,               \
    SL__NAMES_OUT)                                                             \
  X("an output over an input", sl__out_overlap, INVALID_ARGUMENT, SL__NAMES_OUT)

typedef struct sl__call_break {
  const char *what;
  sl__break_fn fn; /* NULL: the call itself is NULL */
  sl_status want;
  int names;
} sl__call_break;

static const sl__call_break sl__breaks[] = {
#define SL__BREAK_ROW(what, fn, st, names) {what, fn, SL_STATUS_##st, names},
    SL__CALL_BREAKS(SL__BREAK_ROW)
#undef SL__BREAK_ROW
};

/* The input slot a break of an input takes: one with data (the value form
 * of scatter leaves src without any), drawn from r; -1 when none. */
static int sl__pick_input(const sl_call *c, sl_rng *r) {
  const sl_op_info *info = sl_op_get(c->op);
  int with[SL_MAX_ARGS], n = 0;
  for (int s = 0; s < info->n_in; ++s)
    if (c->arg[s].data) with[n++] = s;
  return n ? with[sl_rng_below(r, (uint64_t)n)] : -1;
}

/* The checks on `call`, a valid call with its outputs. */
static int sl__checks(const sl_variant *v, const sl_call *call, uint64_t seed,
                      int *applied, char *msg, size_t len) {
  const sl_op_info *info = sl_op_get(call->op);
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x63616c6c73ull /* "calls" */, 0);
  const int in = sl__pick_input(call, &r);
  const int out = info->n_in + (int)sl_rng_below(&r, (uint64_t)info->n_out);
  for (size_t k = 0; k < sizeof sl__breaks / sizeof sl__breaks[0]; ++k) {
    const sl__call_break *b = &sl__breaks[k];
    if (b->names == SL__NAMES_IN && in < 0) continue;
    sl_call c = *call;
    sl_variant w = *v;
    void *scratch = NULL;
    if (b->fn && !b->fn(&c, &w, in, out, &scratch)) continue;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    const int no_variant = b->fn == sl__no_variant;
    const sl_status st =
        sl_run_variant(&ctx, no_variant ? NULL : &w, b->fn ? &c : NULL);
    free(scratch);
    ++*applied;
    const char *name = b->names == SL__NAMES_CALL      ? "call"
                       : b->names == SL__NAMES_VARIANT ? "variant"
                       : b->names == SL__NAMES_OP      ? "op"
                       : b->names == SL__NAMES_IN      ? info->arg_names[in]
                                                       : info->arg_names[out];
    const char *m = sl_ctx_message(&ctx);
    if (st == b->want && strstr(m, name)) continue;
    snprintf(msg, len,
             "sl_run_variant given %s (%s): expected %s with a message "
             "naming %s, got %s: \"%.160s\"",
             b->what,
             b->names == SL__NAMES_IN || b->names == SL__NAMES_OUT ? name
                                                                   : info->name,
             sl_status_name(b->want), name, sl_status_name(st), m);
    return 0;
  }
  return 1;
}

int sl_call_checks_agree(const sl_variant *v, const sl_call *inferred,
                         unsigned copies, uint64_t seed, int *applied,
                         char *msg, size_t len) {
  *applied = 0;
  msg[0] = '\0';
  sl_variant_call vc;
  char note[256];
  if (sl_variant_call_prepare(&vc, inferred, copies, note, sizeof note)) {
    snprintf(msg, len, "no memory for the call checks' outputs");
    return -1;
  }
  const int rc = sl__checks(v, &vc.call, seed, applied, msg, len);
  sl_variant_call_free(&vc);
  return rc;
}
