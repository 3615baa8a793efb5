/*
 * The two inference modes, asked for by name (sl__infer_mode): sl_infer
 * checks the index values, sl_infer_shapes does not, and sl_run_variant
 * leaves them to a variant flagged SL_CHECKS_INDEX_VALUES and checks them
 * for any other. Each of the eight ops with an index gets a call whose
 * only fault is one index value out of range, so that the mode is the
 * one thing that decides the status.
 */
#include <stdint.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_internal.h"
#include "sl_test.h"

/* Buffers of one call: every tensor is f32 [2] or [1], index i64. */
typedef struct bufs {
  float f[SL_MAX_ARGS][2];
  int64_t index[1];
} bufs;

static sl_tensor vec(float *d, int64_t n) {
  return sl_tensor_make(SL_F32, 1, &n, d);
}

/* A call of op whose one index value is 5 on an axis of extent 2. */
static sl_call bad_index_call(sl_op op, bufs *b) {
  sl_call c;
  sl_call_init(&c, op);
  b->index[0] = 5;
  for (int s = 0; s < SL_MAX_ARGS; ++s) b->f[s][0] = b->f[s][1] = 1;
  sl_tensor ix = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, b->index);
  sl_tensor ix_nd = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 1}, b->index);
  switch (op) {
  case SL_OP_GATHER: /* x index | out */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = ix, c.arg[2] = vec(b->f[2], 1);
    break;
  case SL_OP_GATHER_ND: /* x index[1,1] | out[1] */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = ix_nd, c.arg[2] = vec(b->f[2], 1);
    break;
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE:
  case SL_OP_INDEX_REDUCE: /* x index src | out */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = ix, c.arg[2] = vec(b->f[2], 1);
    c.arg[3] = vec(b->f[3], 2);
    if (op != SL_OP_SCATTER) c.p.reduce = SL_REDUCE_SUM;
    break;
  case SL_OP_SCATTER_ND: /* x index[1,1] src[1] | out */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = ix_nd, c.arg[2] = vec(b->f[2], 1);
    c.arg[3] = vec(b->f[3], 2);
    break;
  case SL_OP_SCATTER_REDUCE_BACKWARD:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    /* grad_out x index src result | grad_x grad_src */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = vec(b->f[1], 2), c.arg[2] = ix;
    c.arg[3] = vec(b->f[3], 1), c.arg[4] = vec(b->f[4], 2);
    c.arg[5] = vec(b->f[5], 2), c.arg[6] = vec(b->f[6], 1);
    c.p.reduce = SL_REDUCE_SUM;
    break;
  case SL_OP_SEGMENT_REDUCE: /* data lengths[1] | out[1]: lengths 5, N 2 */
    c.arg[0] = vec(b->f[0], 2), c.arg[1] = ix, c.arg[2] = vec(b->f[2], 1);
    c.p.reduce = SL_REDUCE_SUM;
    break;
  default:
    break;
  }
  return c;
}

/* What the refusal of bad_index_call's value says. */
static const char *bad_value_needle(sl_op op) {
  return op == SL_OP_SEGMENT_REDUCE ? "to sum to data.size(0) = 2, got 5"
                                    : "=5 out of range [0,2)";
}

static const sl_op index_ops[] = {
    SL_OP_GATHER,
    SL_OP_GATHER_ND,
    SL_OP_SCATTER,
    SL_OP_SCATTER_REDUCE,
    SL_OP_SCATTER_ND,
    SL_OP_INDEX_REDUCE,
    SL_OP_SCATTER_REDUCE_BACKWARD,
    SL_OP_INDEX_REDUCE_BACKWARD,
};
enum { N_INDEX_OPS = sizeof index_ops / sizeof index_ops[0] };

/* Each mode, through the internal entry point and the public ones. */
static void test_modes_by_name(void) {
  for (int i = 0; i < N_INDEX_OPS; ++i) {
    const char *name = sl_op_name(index_ops[i]);
    bufs b;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_call c = bad_index_call(index_ops[i], &b);
    sl_call all = c, shapes = c, pub_all = c, pub_shapes = c;
    sl_status st = sl__infer_call(&ctx, &all, SL__INFER_ALL);
    CHECK_MSG(st == SL_STATUS_INDEX_OUT_OF_RANGE, "%s all: %s (%s)", name,
              sl_status_name(st), sl_ctx_message(&ctx));
    CHECK_CONTAINS(sl_ctx_message(&ctx), "index");
    CHECK_CONTAINS(sl_ctx_message(&ctx), "=5 out of range [0,2)");
    st = sl__infer_call(&ctx, &shapes, SL__INFER_SHAPES);
    CHECK_MSG(st == SL_STATUS_OK, "%s shapes: %s (%s)", name,
              sl_status_name(st), sl_ctx_message(&ctx));
    /* The public pair reaches the same two modes. */
    CHECK_MSG(sl_infer(&ctx, &pub_all) == SL_STATUS_INDEX_OUT_OF_RANGE,
              "%s: sl_infer accepted a bad index", name);
    CHECK_MSG(sl_infer_shapes(&ctx, &pub_shapes) == SL_STATUS_OK,
              "%s: sl_infer_shapes refused: %s", name, sl_ctx_message(&ctx));
    /* And a call in one mode leaves nothing behind for the next. */
    sl_call again = c;
    CHECK_MSG(sl_infer(&ctx, &again) == SL_STATUS_INDEX_OUT_OF_RANGE,
              "%s: sl_infer after sl_infer_shapes accepted a bad index", name);
  }
}

/* A kernel that records that it ran, and checks that its own nested
 * sl_infer still refuses the value (no mode outlives its call). */
static int kernel_runs, nested_refusals;
static sl_status recording_kernel(sl_ctx *ctx, sl_call *c) {
  ++kernel_runs;
  sl_call copy = *c;
  if (sl_infer(ctx, &copy) == SL_STATUS_INDEX_OUT_OF_RANGE) ++nested_refusals;
  sl_ctx_init(ctx);
  return SL_STATUS_OK;
}

/* sl_run_variant picks the mode from the row's flags. */
static void test_run_variant_picks_mode(void) {
  for (int i = 0; i < N_INDEX_OPS; ++i) {
    const char *name = sl_op_name(index_ops[i]);
    for (int trusting = 0; trusting < 2; ++trusting) {
      sl_variant row = {index_ops[i], "test.recording", recording_kernel,
                        trusting ? SL_CHECKS_INDEX_VALUES : 0u};
      bufs b;
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      sl_call c = bad_index_call(index_ops[i], &b);
      kernel_runs = nested_refusals = 0;
      sl_status st = sl_run_variant(&ctx, &row, &c);
      if (trusting) {
        /* Shapes only: the kernel is handed the bad value to check. */
        CHECK_MSG(st == SL_STATUS_OK && kernel_runs == 1,
                  "%s, SL_CHECKS_INDEX_VALUES: %s, kernel ran %d times (%s)",
                  name, sl_status_name(st), kernel_runs, sl_ctx_message(&ctx));
        CHECK_MSG(nested_refusals == 1, "%s: nested sl_infer accepted", name);
      } else {
        CHECK_MSG(st == SL_STATUS_INDEX_OUT_OF_RANGE && kernel_runs == 0,
                  "%s, no flag: %s, kernel ran %d times", name,
                  sl_status_name(st), kernel_runs);
        CHECK_CONTAINS(sl_ctx_message(&ctx), "index");
      }
    }
  }
}

/* A kernel that fills its message without a terminating NUL. */
static sl_status unterminated_kernel(sl_ctx *ctx, sl_call *c) {
  (void)c;
  memset(ctx->msg, 'A', sizeof ctx->msg);
  ctx->status = SL_STATUS_INVALID_ARGUMENT;
  return SL_STATUS_INVALID_ARGUMENT;
}

/* sl_run_variant hands back a message that ends inside ctx->msg. */
static void test_unterminated_message(void) {
  sl_variant row = {index_ops[0], "test.unterminated", unterminated_kernel,
                    SL_CHECKS_INDEX_VALUES};
  bufs b;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 0x41414141; /* more 'A's past msg, were it read on */
  sl_call c = bad_index_call(index_ops[0], &b);
  CHECK(sl_run_variant(&ctx, &row, &c) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_MSG(memchr(ctx.msg, '\0', sizeof ctx.msg) != NULL,
            "the kernel's message has no NUL within its %zu bytes",
            sizeof ctx.msg);
}

/* The library's own flagged variants keep sl_infer's message (their own
 * pass finds the value the shapes-only inference left to them): the index
 * ops', and segment_reduce's lengths. */
static void test_flagged_variants_still_refuse(void) {
  int flagged = 0;
  for (size_t i = 0; i < sl_variant_count(); ++i) {
    const sl_variant *v = sl_variant_at(i);
    if (!(v->flags & SL_CHECKS_INDEX_VALUES) || (v->flags & SL_NEEDS_CUDA))
      continue;
    ++flagged;
    bufs b;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_call c = bad_index_call(v->op, &b);
    sl_status st = sl_run_variant(&ctx, v, &c);
    CHECK_MSG(st == SL_STATUS_INDEX_OUT_OF_RANGE, "%s %s: %s (%s)",
              sl_op_name(v->op), v->name, sl_status_name(st),
              sl_ctx_message(&ctx));
    CHECK_CONTAINS(sl_ctx_message(&ctx), bad_value_needle(v->op));
  }
  /* scatter_reduce and scatter_nd cpu.omp, segment_reduce's CPU pair */
  CHECK(flagged >= 4);
}

int main(void) {
  test_modes_by_name();
  test_run_variant_picks_mode();
  test_flagged_variants_still_refuse();
  test_unterminated_message();
  return sl_test_finish("test_infer_mode");
}
