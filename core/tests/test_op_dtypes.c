/*
 * The catalogue's data dtypes (sl_op_dtypes, sl_op_info.data_dtypes) are
 * what sl_infer checks: for every op, every reduce and every dtype, a small
 * call that is valid but for those two goes through sl_infer, which must
 * accept it exactly when sl_op_dtypes(op, reduce) has the dtype. A refusal
 * of a reduce the op takes is SL_STATUS_UNSUPPORTED_DTYPE, naming the row's
 * data_arg and the set; a reduce the op does not take is refused whatever
 * the dtype (and sl_op_dtypes gives 0). A wrong row fails here.
 */
#include <stdint.h>
#include <string.h>

#include "sl/sl.h"
#include "sl_test.h"

/* One buffer per slot, zeroed (index 0 is in range everywhere), large
 * enough for the shapes below in any dtype. */
static _Alignas(16) unsigned char bufs[SL_MAX_ARGS][512];

static sl_tensor T(int slot, sl_dtype dt, int ndim, const int64_t *shape) {
  return sl_tensor_make(dt, ndim, shape, bufs[slot]);
}

#define S(...)                                                                 \
  (int64_t[]) { __VA_ARGS__ }

/* A call of op whose data tensors have dtype dt, with reduce r; valid when
 * op takes r with dt. Outputs are left for sl_infer to fill in. */
static void make_call(sl_call *c, sl_op op, sl_dtype dt, sl_reduce r) {
  memset(bufs, 0, sizeof bufs);
  sl_call_init(c, op);
  c->p.reduce = r;
  const sl_op_info *info = sl_op_get(op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
    c->arg[s] = T(s, dt, 0, NULL);
  switch (op) {
  case SL_OP_GATHER:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_I64, 2, S(2, 2));
    break;
  case SL_OP_GATHER_ND:
    c->p.ndims = 1; /* dims = [0] */
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_I64, 3, S(2, 2, 1));
    break;
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_I64, 2, S(2, 2));
    c->arg[2] = T(2, dt, 2, S(2, 2));
    break;
  case SL_OP_SCATTER_REDUCE_BACKWARD:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, dt, 2, S(3, 2));
    c->arg[2] = T(2, SL_I64, 2, S(2, 2));
    c->arg[3] = T(3, dt, 2, S(2, 2));
    c->arg[4] = T(4, dt, 2, S(3, 2));
    break;
  case SL_OP_SCATTER_ND:
    c->p.ndims = 1;
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_I64, 3, S(2, 2, 1));
    c->arg[2] = T(2, dt, 2, S(2, 2));
    break;
  case SL_OP_INDEX_REDUCE:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_I64, 1, S(2));
    c->arg[2] = T(2, dt, 2, S(2, 2));
    break;
  case SL_OP_INDEX_REDUCE_BACKWARD:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, dt, 2, S(3, 2));
    c->arg[2] = T(2, SL_I64, 1, S(2));
    c->arg[3] = T(3, dt, 2, S(2, 2));
    c->arg[4] = T(4, dt, 2, S(3, 2));
    break;
  case SL_OP_SELECT_SCATTER:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, dt, 1, S(2));
    break;
  case SL_OP_MASKED_SCATTER:
    c->arg[0] = T(0, dt, 2, S(3, 2));
    c->arg[1] = T(1, SL_BOOL, 2, S(3, 2));
    c->arg[2] = T(2, dt, 1, S(6));
    break;
  case SL_OP_DYNAMIC_SCATTER:
    c->arg[0] = T(0, dt, 2, S(2, 2));
    c->arg[1] = T(1, SL_I32, 2, S(2, 3));
    break;
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    /* Both points in voxel 0, which counts 2. */
    c->arg[0] = T(0, dt, 2, S(1, 2));
    c->arg[1] = T(1, dt, 2, S(2, 2));
    c->arg[2] = T(2, dt, 2, S(1, 2));
    c->arg[3] = T(3, SL_I32, 1, S(2));
    c->arg[4] = T(4, SL_I32, 1, S(1));
    ((int32_t *)bufs[4])[0] = 2;
    break;
  case SL_OP_SEGMENT_REDUCE:
    /* One segment of the axis's 4 elements. */
    c->arg[0] = T(0, dt, 2, S(4, 2));
    c->arg[1] = T(1, SL_I64, 1, S(1));
    ((int64_t *)bufs[1])[0] = 4;
    break;
  case SL_OP_SEGMENT_REDUCE_BACKWARD:
    c->arg[0] = T(0, dt, 2, S(1, 2));
    c->arg[1] = T(1, dt, 2, S(4, 2));
    c->arg[2] = T(2, SL_I64, 1, S(1));
    ((int64_t *)bufs[2])[0] = 4;
    c->arg[3] = T(3, dt, 2, S(1, 2));
    break;
  default:
    break;
  }
}

/* The reduces op takes: its catalogue mask, or none alone. */
static unsigned takes(const sl_op_info *info) {
  return info->reduces ? info->reduces : 1u << SL_REDUCE_NONE;
}

static void test_infer_agrees(void) {
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    const sl_op_info *info = sl_op_get((sl_op)op);
    unsigned accepted_any = 0;
    for (int r = 0; r < SL_REDUCE_COUNT; ++r) {
      /* An op without reduces ignores sl_params.reduce: none only. */
      if (!info->reduces && r != SL_REDUCE_NONE) continue;
      unsigned set = sl_op_dtypes((sl_op)op, (sl_reduce)r);
      int taken = (takes(info) >> r) & 1;
      CHECK_MSG(taken || set == 0, "%s %s: a reduce it refuses has dtypes %#x",
                info->name, sl_reduce_name((sl_reduce)r), set);
      for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt) {
        sl_call c;
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        make_call(&c, (sl_op)op, (sl_dtype)dt, (sl_reduce)r);
        sl_status st = sl_infer(&ctx, &c);
        int want = (set >> dt) & 1;
        CHECK_MSG((st == SL_STATUS_OK) == want,
                  "%s %s %s: sl_op_dtypes says %s, sl_infer gave %s (%s)",
                  info->name, sl_reduce_name((sl_reduce)r),
                  sl_dtype_name((sl_dtype)dt), want ? "takes" : "refuses",
                  sl_status_name(st), sl_ctx_message(&ctx));
        if (st == SL_STATUS_OK) {
          accepted_any |= 1u << dt;
          /* The outputs the rows say are data take the data dtype. */
          CHECK_MSG(c.arg[info->n_in].dtype == (sl_dtype)dt ||
                        op == SL_OP_DYNAMIC_SCATTER,
                    "%s %s: out dtype %s", info->name,
                    sl_dtype_name((sl_dtype)dt),
                    sl_dtype_name(c.arg[info->n_in].dtype));
        } else if (taken && !want) {
          /* The refusal names data_arg and the set. */
          char head[80];
          snprintf(head, sizeof head, "%s: expected one of ",
                   info->arg_names[info->data_arg]);
          CHECK_MSG(st == SL_STATUS_UNSUPPORTED_DTYPE, "%s %s %s: got %s (%s)",
                    info->name, sl_reduce_name((sl_reduce)r),
                    sl_dtype_name((sl_dtype)dt), sl_status_name(st),
                    sl_ctx_message(&ctx));
          CHECK_CONTAINS(sl_ctx_message(&ctx), head);
        }
      }
    }
    CHECK_MSG(accepted_any != 0, "%s: no call accepted", info->name);
  }
}

/* docs/spec.md §3's table, written out once more here on purpose: a row
 * changed in the catalogue (and so in sl_infer) fails here until the spec
 * and this copy change with it. */
#define B(e) (1u << SL_##e)
static void test_spec_table(void) {
  const unsigned all = (1u << SL_DTYPE_COUNT) - 1u;
  const unsigned red = B(I32) | B(I64) | B(F16) | B(BF16) | B(F32) | B(F64);
  const unsigned flt = B(F16) | B(BF16) | B(F32) | B(F64);
  const unsigned f3264 = B(F32) | B(F64);
  /* Per op: the set of the reduces that move data (none, assign) and of
   * those that compute, as indices into sets[]; -1: it takes none such. */
  const unsigned sets[4] = {all, red, flt, f3264};
  static const int spec[SL_OP_COUNT][2] = {
      [SL_OP_GATHER] = {0, -1},
      [SL_OP_GATHER_ND] = {0, -1},
      [SL_OP_SCATTER] = {0, -1},
      [SL_OP_SCATTER_REDUCE] = {-1, 1},
      [SL_OP_SCATTER_REDUCE_BACKWARD] = {-1, 2},
      [SL_OP_SCATTER_ND] = {0, 1},
      [SL_OP_INDEX_REDUCE] = {0, 1},
      [SL_OP_INDEX_REDUCE_BACKWARD] = {2, 2},
      [SL_OP_SELECT_SCATTER] = {0, -1},
      [SL_OP_MASKED_SCATTER] = {0, -1},
      [SL_OP_DYNAMIC_SCATTER] = {-1, 3},
      [SL_OP_DYNAMIC_SCATTER_BACKWARD] = {-1, 3},
      [SL_OP_SEGMENT_REDUCE] = {-1, 2},
      [SL_OP_SEGMENT_REDUCE_BACKWARD] = {-1, 2},
  };
  for (int op = 0; op < SL_OP_COUNT; ++op)
    for (int r = 0; r < SL_REDUCE_COUNT; ++r) {
      unsigned got = sl_op_dtypes((sl_op)op, (sl_reduce)r);
      if (!got) continue; /* a reduce it does not take: test_infer_agrees */
      int k = spec[op][r == SL_REDUCE_NONE || r == SL_REDUCE_ASSIGN ? 0 : 1];
      unsigned want = k < 0 ? 0 : sets[k];
      CHECK_MSG(got == want, "%s %s: %#x, the spec says %#x",
                sl_op_name((sl_op)op), sl_reduce_name((sl_reduce)r), got, want);
    }
}
#undef B

/* Out-of-range arguments and the data_arg slots. */
static void test_query_edges(void) {
  CHECK(sl_op_dtypes(SL_OP_COUNT, SL_REDUCE_NONE) == 0);
  CHECK(sl_op_dtypes(SL_OP_GATHER, SL_REDUCE_COUNT) == 0);
  CHECK(sl_op_dtypes(SL_OP_GATHER, SL_REDUCE_SUM) == 0);
  CHECK(sl_op_dtypes(SL_OP_GATHER, SL_REDUCE_NONE) ==
        (1u << SL_DTYPE_COUNT) - 1u);
  CHECK(sl_op_dtypes(SL_OP_SCATTER_REDUCE, SL_REDUCE_NONE) == 0);
  CHECK(sl_op_dtypes(SL_OP_DYNAMIC_SCATTER, SL_REDUCE_AMAX) == 0);
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    const sl_op_info *info = sl_op_get((sl_op)op);
    /* Each op's row is its own: the row named after it carries its code. */
    CHECK_MSG(info->op == (sl_op)op, "op %d: its row holds op %d (%s)", op,
              (int)info->op, info->name);
    CHECK_MSG(info->data_arg >= 0 && info->data_arg < info->n_in,
              "%s: data_arg %d", info->name, info->data_arg);
  }
}

int main(void) {
  test_infer_agrees();
  test_spec_table();
  test_query_edges();
  return sl_test_finish("test_op_dtypes");
}
