/* The core's refusals of broken calls (see call_checks.h). */
#include "call_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"
#include "rng.h"
#include "runner.h"
#include "variant_call.h"

/* The call a break works on: what sl_run_variant is handed (a break may
 * set either pointer to NULL), the slots drawn, and memory a break points
 * tensors at (freed after the run). */
typedef struct sl__broken {
  sl_call c, *call;
  sl_variant w, *variant;
  int in, out;
  uint64_t pick; /* drawn, for a break that has several ways to choose */
  void *scratch;
} sl__broken;

/* Breaks b one way; 0 when that way does not apply to this call. */
typedef int (*sl__break_fn)(sl__broken *b);

static int sl__no_call(sl__broken *b) {
  b->call = NULL;
  return 1;
}
static int sl__no_variant(sl__broken *b) {
  b->variant = NULL;
  return 1;
}
static int sl__other_op(sl__broken *b) {
  b->w.op = (sl_op)((b->c.op + 1) % SL_OP_COUNT);
  return 1;
}
static int sl__unknown_op(sl__broken *b) {
  b->c.op = b->w.op = (sl_op)SL_OP_COUNT;
  return 1;
}
static int sl__not_built(sl__broken *b) {
  b->w.fn = NULL;
  return 1;
}
static int sl__in_rank(sl__broken *b) {
  b->c.arg[b->in].ndim = SL_MAX_DIMS + 1;
  return 1;
}
static int sl__in_extent(sl__broken *b) {
  sl_tensor *t = &b->c.arg[b->in];
  if (t->ndim < 1) return 0;
  t->shape[t->ndim - 1] = -1;
  return 1;
}
static int sl__in_overflow(sl__broken *b) {
  sl_tensor *t = &b->c.arg[b->in];
  t->ndim = 2;
  t->shape[0] = t->shape[1] = (int64_t)1 << 40;
  t->strides[0] = t->shape[1], t->strides[1] = 1;
  return 1;
}
static int sl__in_dtype(sl__broken *b) {
  b->c.arg[b->in].dtype = (sl_dtype)SL_DTYPE_COUNT;
  return 1;
}
static int sl__in_device(sl__broken *b) {
  b->c.arg[b->in].device = (sl_device)7;
  return 1;
}
static int sl__in_stride(sl__broken *b) {
  if (b->c.arg[b->in].ndim < 1) return 0;
  b->c.arg[b->in].strides[0] = -1;
  return 1;
}
static int sl__in_no_data(sl__broken *b) {
  if (!sl_tensor_span_bytes(&b->c.arg[b->in])) return 0;
  b->c.arg[b->in].data = NULL;
  return 1;
}
/* Whether slot `name` holds positions, which it takes as i32 or i64. */
static int sl__holds_positions(const char *name) {
  return strcmp(name, "index") == 0 || strcmp(name, "lengths") == 0;
}

/* An input of another valid dtype, of at most its element size (so that the
 * descriptor stays within its buffer if the refusal were missing), drawn:
 * an index that is not integer, a mask that is not bool, data of another
 * dtype than the op's data slot, in its set (f64 data beside f32) or out of
 * it. The data slot itself is left alone: its dtype is the one the others
 * are checked against, so the refusal would name another slot. */
static int sl__in_other_dtype(sl__broken *b) {
  const sl_op_info *info = sl_op_get(b->c.op);
  const char *name = info->arg_names[b->in];
  sl_tensor *t = &b->c.arg[b->in];
  if (b->in == info->data_arg) return 0;
  /* An empty index takes any dtype: LibTorch checks nothing of one, nor
   * do gather and the scatters (docs/spec.md, "Empty tensors"). */
  if (sl__holds_positions(name) && !sl_tensor_span_bytes(t)) return 0;
  sl_dtype other[SL_DTYPE_COUNT];
  int n = 0;
  for (int k = 0; k < SL_DTYPE_COUNT; ++k) {
    const sl_dtype o = (sl_dtype)k;
    const int position = o == SL_I32 || o == SL_I64;
    if (o != t->dtype && sl_dtype_size(o) <= sl_dtype_size(t->dtype) &&
        !(position && sl__holds_positions(name)))
      other[n++] = o;
  }
  if (!n) return 0;
  t->dtype = other[b->pick % (uint64_t)n];
  return 1;
}
static int sl__in_wrong_device(sl__broken *b) {
  b->c.arg[b->in].device = sl_variant_device(&b->w) == SL_DEVICE_CPU
                               ? SL_DEVICE_CUDA
                               : SL_DEVICE_CPU;
  return 1;
}
static int sl__out_dtype(sl__broken *b) {
  /* the same element size, so that the descriptor stays within its buffer
   * if the refusal were missing */
  sl_tensor *t = &b->c.arg[b->out];
  for (int k = 1; k < SL_DTYPE_COUNT; ++k) {
    const sl_dtype o = (sl_dtype)((t->dtype + k) % SL_DTYPE_COUNT);
    if (sl_dtype_size(o) == sl_dtype_size(t->dtype)) {
      t->dtype = o;
      return 1;
    }
  }
  return 0;
}
static int sl__out_shape(sl__broken *b) {
  sl_tensor *t = &b->c.arg[b->out];
  if (t->ndim >= SL_MAX_DIMS) return 0;
  /* one more axis of extent 1: the same elements, another shape */
  t->shape[t->ndim] = 1;
  t->strides[t->ndim] = 1;
  ++t->ndim;
  return 1;
}
static int sl__out_overlap(sl__broken *b) {
  sl_tensor *in = &b->c.arg[b->in], *out = &b->c.arg[b->out];
  const size_t a = sl_tensor_span_bytes(in), n = sl_tensor_span_bytes(out);
  if (!a || !n) return 0;
  /* Both in memory of their own, the output over a copy of the input (its
   * values, so that only the overlap is wrong): a kernel run by mistake
   * would write nothing the case still needs. */
  b->scratch = calloc(a > n ? a : n, 1);
  if (!b->scratch) return 0;
  memcpy(b->scratch, in->data, a);
  in->data = out->data = b->scratch;
  return 1;
}

/* What a break's message must name: the call, the variant, the op, or the
 * input or output slot drawn. */
enum {
  SL__NAMES_CALL,
  SL__NAMES_VARIANT,
  SL__NAMES_OP,
  SL__NAMES_IN,
  SL__NAMES_OUT
};

/* Statuses as a set: bit 1u << status. */
#define SL__ST(e) (1u << SL_STATUS_##e)
_Static_assert(SL_STATUS_COUNT <= 32, "a status set is one unsigned");
/* A dtype the slot does not take: refused as a data dtype, an index dtype or
 * a mask, by what the slot holds. */
#define SL__DTYPE_REFUSALS                                                     \
  (SL__ST(UNSUPPORTED_DTYPE) | SL__ST(INDEX_DTYPE) | SL__ST(BAD_MASK))

/* name, the break, the statuses it may get, what the message must name */
#define SL__CALL_BREAKS(X)                                                     \
  X("no call", sl__no_call, SL__ST(NULL_POINTER), SL__NAMES_CALL)              \
  X("no variant", sl__no_variant, SL__ST(NULL_POINTER), SL__NAMES_VARIANT)     \
  X("a variant of another op", sl__other_op, SL__ST(UNKNOWN_VARIANT),          \
    SL__NAMES_VARIANT)                                                         \
  X("an unknown op", sl__unknown_op, SL__ST(UNKNOWN_OP), SL__NAMES_OP)         \
  X("a variant without a kernel", sl__not_built, SL__ST(NOT_BUILT),            \
    SL__NAMES_VARIANT)                                                         \
  X("an input of rank SL_MAX_DIMS + 1", sl__in_rank, SL__ST(INVALID_ARGUMENT), \
    SL__NAMES_IN)                                                              \
  X("an input with a negative extent", sl__in_extent,                          \
    SL__ST(INVALID_ARGUMENT), SL__NAMES_IN)                                    \
  X("an input of 2^80 elements", sl__in_overflow, SL__ST(OVERFLOW),            \
    SL__NAMES_IN)                                                              \
  X("an input of an unknown dtype", sl__in_dtype, SL__ST(UNSUPPORTED_DTYPE),   \
    SL__NAMES_IN)                                                              \
  X("an input of another dtype", sl__in_other_dtype, SL__DTYPE_REFUSALS,       \
    SL__NAMES_IN)                                                              \
  X("an input on an unknown device", sl__in_device, SL__ST(INVALID_ARGUMENT),  \
    SL__NAMES_IN)                                                              \
  X("an input with a negative stride", sl__in_stride,                          \
    SL__ST(INVALID_ARGUMENT), SL__NAMES_IN)                                    \
  X("an input without data", sl__in_no_data, SL__ST(NULL_POINTER),             \
    SL__NAMES_IN)                                                              \
  X("an input on the other device", sl__in_wrong_device, SL__ST(WRONG_DEVICE), \
    SL__NAMES_IN)                                                              \
  X("an output of another dtype", sl__out_dtype, SL__ST(UNSUPPORTED_DTYPE),    \
    SL__NAMES_OUT)                                                             \
  X("an output of another shape", sl__out_shape, SL__ST(SHAPE_MISMATCH),       \
    SL__NAMES_OUT)                                                             \
  X("an output over an input", sl__out_overlap, SL__ST(INVALID_ARGUMENT),      \
    SL__NAMES_OUT)

typedef struct sl__call_break {
  const char *what;
  sl__break_fn fn;
  unsigned want; /* statuses, bit 1u << status */
  int names;
} sl__call_break;

static const sl__call_break sl__breaks[] = {
#define SL__BREAK_ROW(what, fn, want, names) {what, fn, want, names},
    SL__CALL_BREAKS(SL__BREAK_ROW)
#undef SL__BREAK_ROW
};

/* "a", "a or b", "one of a, b, c" for a set of statuses. */
static void sl__status_set_text(unsigned set, char *buf, size_t len) {
  int n = 0, total = 0;
  for (unsigned e = set; e; e &= e - 1) ++total;
  size_t at = 0;
  buf[0] = '\0';
  for (int st = 0; st < 32 && at < len; ++st) {
    if (!(set >> st & 1u)) continue;
    const char *sep = n == 0       ? (total > 2 ? "one of " : "")
                      : total == 2 ? " or "
                                   : ", ";
    at += (size_t)snprintf(buf + at, len - at, "%s%s", sep,
                           sl_status_name((sl_status)st));
    ++n;
  }
}

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
  const char *const names[] = {"call", "variant", "op",
                               in >= 0 ? info->arg_names[in] : "",
                               info->arg_names[out]};
  for (size_t k = 0; k < sizeof sl__breaks / sizeof sl__breaks[0]; ++k) {
    const sl__call_break *brk = &sl__breaks[k];
    if (brk->names == SL__NAMES_IN && in < 0) continue;
    sl__broken b = {
        .c = *call, .w = *v, .in = in, .out = out, .pick = sl_rng_next(&r)};
    b.call = &b.c, b.variant = &b.w;
    if (!brk->fn(&b)) continue;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    char phase[160];
    snprintf(phase, sizeof phase, SL_CALL_CHECKS_PREFIX "%s", brk->what);
    sl_runner_phase(phase);
    const sl_status st = sl_run_variant(&ctx, b.variant, b.call);
    sl_runner_phase("");
    free(b.scratch);
    ++*applied;
    const char *name = names[brk->names], *m = sl_ctx_message(&ctx);
    if ((unsigned)st < 32 && (brk->want >> st & 1u) && strstr(m, name))
      continue;
    char want[128];
    sl__status_set_text(brk->want, want, sizeof want);
    snprintf(msg, len,
             SL_CALL_CHECKS_PREFIX "%s (%s): expected %s with a message "
                                   "naming %s, got %s: \"%.160s\"",
             brk->what, brk->names >= SL__NAMES_IN ? name : info->name, want,
             name, sl_status_name(st), m);
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
