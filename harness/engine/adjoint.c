/* The adjoint identity of the adding scatters (see adjoint.h). */
#include "adjoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "defect_relation.h"
#include "op_facts.h"
#include "oracles.h"
#include "slref.h"
#include "tolerance.h"
#include "variant_call.h"

static int64_t sl__numel(const sl_tensor *t) {
  int64_t n = 1;
  for (int k = 0; k < t->ndim; ++k) n *= t->shape[k];
  return n;
}

/* Element offset of row-major position i of `shape` (t's own, or a smaller
 * one laid over t, as scatter_reduce's index over src). */
static int64_t sl__offset(const sl_tensor *t, const int64_t *shape, int64_t i) {
  int64_t off = 0;
  for (int k = t->ndim - 1; k >= 0; --k) {
    off += (i % shape[k]) * t->strides[k];
    i /= shape[k];
  }
  return off;
}

static double sl__get(const sl_tensor *t, const int64_t *shape, int64_t i) {
  return sl_elem_get_f(t->dtype, (const char *)t->data +
                                     sl__offset(t, shape, i) *
                                         (int64_t)sl_dtype_size(t->dtype));
}

/* Unit roundoff of the output dtype, and of what the kernels accumulate in
 * (f32 for the half types, docs/spec.md §3); *tiny: the most a rounding
 * into the output's subnormals can move a value (half its smallest
 * subnormal), which no relative bound covers. */
static void sl__units(sl_dtype dt, double *u_out, double *u_acc, double *tiny) {
  *u_acc = dt == SL_F64 ? ldexp(1, -53) : ldexp(1, -24);
  *u_out = dt == SL_F16 ? ldexp(1, -11) : dt == SL_BF16 ? ldexp(1, -8) : *u_acc;
  *tiny = dt == SL_F16    ? ldexp(1, -25)
          : dt == SL_BF16 ? ldexp(1, -134)
          : dt == SL_F32  ? ldexp(1, -150)
                          : ldexp(1, -1075);
}

static double sl__gamma(double n, double u) { return n * u / (1 - n * u); }

/* y: x's shape, f64, values in [-1, 1) drawn from seed. */
static double *sl__draw_y(int64_t n, uint64_t seed) {
  double *y = malloc(sizeof *y * (size_t)(n > 0 ? n : 1));
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  for (int64_t i = 0; y && i < n; ++i) {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    y[i] =
        (double)((s * 0x2545F4914F6CDD1Dull) >> 11) / 4503599627370496.0 - 1.0;
  }
  return y;
}

/* G(y): the core's cpu.serial gather or gather_nd on y by the call's
 * index; for index_reduce, a gather by the index spread along the axis
 * over the updates' shape (*spread: free it after gc). The call into *gc,
 * its output (f64, shaped as the updates read) gc->arg[2], data in *mem.
 * Returns 0, or -1 with msg. */
static int sl__gather_y(const sl_call *c, const sl_tensor *y, sl_call *gc_out,
                        void **mem, int64_t **spread_out, char *msg,
                        size_t len) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 1;
  sl_call gc;
  const sl_tensor *index = &c->arg[1];
  int64_t *spread = NULL;
  *spread_out = NULL;
  const sl_case_arg1 arg1 = sl_case_spec_of(c->op)->arg1;
  if (arg1 == SL_ARG1_INDEX_TUPLE) {
    sl_call_init(&gc, SL_OP_GATHER_ND);
    gc.p.ndims = c->p.ndims;
    memcpy(gc.p.dims, c->p.dims, sizeof gc.p.dims);
    gc.arg[1] = *index;
  } else {
    sl_call_init(&gc, SL_OP_GATHER);
    gc.p.dim = c->p.dim;
    gc.arg[1] = *index;
    if (arg1 == SL_ARG1_INDEX_VECTOR) {
      const sl_tensor *u = &c->arg[2];
      const int64_t n = sl__numel(u);
      const int axis = (int)(c->p.dim < 0 ? c->p.dim + u->ndim : c->p.dim);
      spread = malloc(sizeof *spread * (size_t)(n > 0 ? n : 1));
      if (!spread) {
        snprintf(msg, len, "no memory for the spread index");
        return -1;
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, at = 0;
        for (int k = u->ndim - 1; k >= 0; --k) {
          if (k == axis) at = rest % u->shape[k];
          rest /= u->shape[k];
        }
        spread[i] = (int64_t)sl__get(index, index->shape, at);
      }
      gc.arg[1] = sl_tensor_make(SL_I64, u->ndim, u->shape, spread);
    }
  }
  gc.arg[0] = *y;
  sl_status st = sl_infer(&ctx, &gc);
  const int64_t n = st ? 0 : sl__numel(&gc.arg[2]);
  *mem = st ? NULL : malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!st && !*mem)
    st = sl_ctx_fail(&ctx, SL_STATUS_OUT_OF_MEMORY, "no memory for G(y)");
  if (!st) {
    /* Poisoned as a variant's outputs are: an element the helper never
     * writes shows as one (defect_relation.h), not as stale heap bytes. */
    memset(*mem, SL_POISON_BYTE, sizeof(double) * (size_t)n);
    gc.arg[2].data = *mem;
    st = sl_run(&ctx, "cpu.serial", &gc);
  }
  if (st) {
    snprintf(msg, len, "the gather of y failed: %s", sl_ctx_message(&ctx));
    free(spread);
    free(*mem);
    *mem = NULL;
    return -1;
  }
  *gc_out = gc;
  *spread_out = spread;
  return 0;
}

/* The relation of the helper hc's outputs to LibTorch's (defect_relation.h)
 * into rel, judged as a case of hc's own op, dtype and reduce would be. */
static void sl__helper_relation(const sl_call *hc, char *rel, size_t len) {
  const sl_op_info *info = sl_op_get(hc->op);
  sl_case hcase;
  memset(&hcase, 0, sizeof hcase);
  hcase.op = hc->op;
  hcase.dt = hc->arg[info->n_in].dtype;
  hcase.it = hc->arg[1].dtype;
  hcase.reduce = hc->p.reduce;
  hcase.include_self = hc->p.include_self;
  sl_defect_relation(&hcase, hc, rel, len);
}

/* Whether hc, a helper the identity is computed with (the core's cpu.serial
 * gather or forward), answered otherwise than LibTorch does to the same
 * call, by more than oracle o allows: then the identity broke in the
 * helper, the same code for every op that leans on it, and msg says so
 * (SL_ADJOINT_HELPER_PREFIX, failure_group.h: a shared check). Run only
 * after the identity broke. */
static int sl__helper_wrong(const sl_call *hc, const char *what, sl_oracle o,
                            char *msg, size_t len) {
  const sl_op_info *info = sl_op_get(hc->op);
  sl_tensor want[SL_MAX_ARGS];
  memset(want, 0, sizeof want);
  char err[256];
  sl_diff d;
  const int slot = info->n_in;
  const int wrong = slref_run(hc, want, err, sizeof err) == SLREF_OK &&
                    !sl_compare(&hc->arg[slot], &want[0], o, hc, &d);
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(want[s].data);
  if (!wrong) return 0;
  char rel[32];
  sl__helper_relation(hc, rel, sizeof rel);
  snprintf(msg, len,
           SL_ADJOINT_HELPER_PREFIX "%s, differs from LibTorch's on this "
                                    "case (%.200s%s%s): the defect is the "
                                    "helper's, not the variant's",
           what, d.msg, rel[0] ? SL_ADJOINT_HELPER_RELATION : "", rel);
  return 1;
}

/* Whether the two sides agree within bound: 1 when they do or no
 * judgement can be made (values near the f64 range, dp=ext, overflow the
 * sums), *applied then 0; else 0, *applied 1. --tolerance for dt loosens
 * (or tightens) every judgement of it, this one too: the bound becomes that
 * share of `size`, the terms' size, plus `at_least`. */
static int sl__holds(double left, double right, double bound, sl_dtype dt,
                     double size, double at_least, int *applied) {
  if (!isfinite(left) || !isfinite(right) || !isfinite(bound)) return 1;
  const double chosen = sl_tolerance_override(dt);
  if (chosen >= 0) bound = chosen * size + at_least;
  *applied = 1;
  return fabs(left - right) <= bound;
}

/* The adding scatters: <out - x, y> = <src, G(y)>, for a sum that starts
 * from x (include_self where the op has it). */
int sl_adjoint_scatter(const sl_call *c, const sl_call *first, uint64_t seed,
                       int *applied, char *msg, size_t len) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2],
                  *out = &first->arg[3];
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  const int adds = c->p.reduce == SL_REDUCE_SUM &&
                   (!(spec->keys & SL_KEY_SELF) || c->p.include_self);
  if (!adds || !sl_dtype_is_float(x->dtype) ||
      (spec->arg1 == SL_ARG1_INDEX_VECTOR && index->ndim == 0))
    return 1;
  double u_out, u_acc, tiny;
  sl__units(x->dtype, &u_out, &u_acc, &tiny);
  const int64_t nx = sl__numel(x), np = sl__numel(index);
  const double terms = (double)np + 1;
  if (terms * u_acc > 0.1) return 1; /* the bound would say nothing */
  double *y = sl__draw_y(nx, seed);
  if (!y) {
    snprintf(msg, len, "no memory for y");
    return -1;
  }
  const sl_tensor yt = sl_tensor_make(SL_F64, x->ndim, x->shape, y);
  sl_call gc;
  void *gmem;
  int64_t *spread;
  if (sl__gather_y(c, &yt, &gc, &gmem, &spread, msg, len)) {
    free(y);
    return -1;
  }
  const sl_tensor g = gc.arg[2];
  /* Left: <out - x, y>; right: <src, G(y)>, src read over G's shape. */
  double left = 0, right = 0, abs_x = 0, abs_src = 0, abs_out = 0, abs_y = 0;
  int finite = 1;
  for (int64_t i = 0; i < nx && finite; ++i) {
    const double o = sl__get(out, out->shape, i), v = sl__get(x, x->shape, i);
    finite = isfinite(o) && isfinite(v);
    left += (o - v) * y[i];
    abs_x += fabs(v * y[i]);
    abs_out += fabs(o * y[i]);
    abs_y += fabs(y[i]);
  }
  const int64_t ng = sl__numel(&g);
  for (int64_t i = 0; i < ng && finite; ++i) {
    const double s = sl__get(src, g.shape, i), gy = ((const double *)g.data)[i];
    finite = isfinite(s);
    right += s * gy;
    abs_src += fabs(s * gy);
  }
  /* The two sums' own f64 roundings, over nx + ng terms. */
  const double sums = sl__gamma((double)(nx + ng + 2), ldexp(1, -53));
  double bound = (sl__gamma(terms, u_acc) + u_out) * (abs_x + abs_src) +
                 sums * (abs_x + abs_src + abs_out) + tiny * abs_y;
  /* NaN and inf carry no inner product */
  const int held = !finite || sl__holds(left, right, bound, x->dtype,
                                        abs_x + abs_src, tiny * abs_y, applied);
  const int helper =
      !held && sl__helper_wrong(&gc, "gather", SL_ORACLE_BITWISE, msg, len);
  free(y);
  free(gmem);
  free(spread);
  if (held || helper) return held;
  snprintf(msg, len,
           "adjoint identity broken: <out - x, y> = %.9g but <src, G(y)> = "
           "%.9g with G the cpu.serial gather by the same index (|diff| "
           "%.3g above the rounding bound %.3g): an update sent to the "
           "wrong place, dropped or added twice",
           left, right, fabs(left - right), bound);
  return 0;
}

/* The core's cpu.serial forward of a scatter_reduce or index_reduce
 * backward call (grad_out x index src|updates result): the call into
 * *fc_out, its result fc_out->arg[3], data in *mem. Returns 0, or -1 with
 * msg. */
static int sl__forward(const sl_call *c, sl_call *fc_out, void **mem, char *msg,
                       size_t len) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 1;
  sl_call fc;
  sl_call_init(&fc, sl_case_spec_of(c->op)->forward);
  fc.p = c->p;
  for (int s = 0; s < 3; ++s) fc.arg[s] = c->arg[s + 1];
  sl_status st = sl_infer(&ctx, &fc);
  const int64_t n = st ? 0 : sl__numel(&fc.arg[3]);
  *mem = st ? NULL
            : malloc(sl_dtype_size(fc.arg[3].dtype) * (size_t)(n > 0 ? n : 1));
  if (!st && !*mem)
    st = sl_ctx_fail(&ctx, SL_STATUS_OUT_OF_MEMORY, "no memory for F(v)");
  if (!st) {
    memset(*mem, SL_POISON_BYTE, sl_dtype_size(fc.arg[3].dtype) * (size_t)n);
    fc.arg[3].data = *mem;
    st = sl_run(&ctx, "cpu.serial", &fc);
  }
  if (st) {
    snprintf(msg, len, "the cpu.serial forward failed: %s",
             sl_ctx_message(&ctx));
    free(*mem);
    *mem = NULL;
    return -1;
  }
  *fc_out = fc;
  return 0;
}

/* sum_i t_i * u_i over t's shape (t and u of one shape), and the sum of
 * |t_i * u_i| into *abs; 0 when a term is not finite. */
static int sl__dot(const sl_tensor *t, const sl_tensor *u, double *dot,
                   double *abs) {
  const int64_t n = sl__numel(t);
  for (int64_t i = 0; i < n; ++i) {
    const double a = sl__get(t, t->shape, i), b = sl__get(u, t->shape, i);
    if (!isfinite(a) || !isfinite(b)) return 0;
    *dot += a * b;
    *abs += fabs(a * b);
  }
  return 1;
}

/*
 * The backward ops against their forward (Euler's identity, adjoint.h):
 * <F(v), g> = <v, B(g)> for the reduces whose forward F is positively
 * homogeneous of degree 1 in its inputs v (sum, mean, amax, amin; max for
 * dynamic_scatter). F is the core's cpu.serial forward for scatter_reduce
 * and index_reduce; dynamic_scatter_backward's call carries no coordinates
 * to run its forward on, so its voxel_feats input stands for F(feats);
 * segment_reduce_backward's result input stands for F(data) (an initial
 * value makes F not homogeneous: those calls are not judged here).
 */
static int sl__backward_agrees(const sl_call *c, const sl_call *first,
                               int given_f, double terms, int *applied,
                               char *msg, size_t len) {
  const sl_op_info *info = sl_op_get(c->op);
  const sl_reduce r = c->p.reduce;
  /* amax and amin without self: LibTorch's rule (which the ops follow,
   * docs/spec.md) counts an x equal to the result among the ties that
   * share the gradient, then gives x none: the shares sum to less than 1. */
  const int homogeneous =
      r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN ||
      ((r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN) && c->p.include_self) ||
      r == SL_REDUCE_MAX; /* dynamic_scatter's */
  /* grad_out (grad_voxel_feats), one input per gradient, F(v) */
  const sl_tensor *g = &c->arg[0];
  if (!homogeneous || !sl_dtype_is_float(g->dtype) || c->p.has_value) return 1;
  double u_out, u_acc, tiny;
  sl__units(g->dtype, &u_out, &u_acc, &tiny);
  if (terms * u_acc > 0.1) return 1; /* the bound would say nothing */
  sl_tensor f = c->arg[given_f > 0 ? given_f : 2];
  sl_call fc;
  void *fmem = NULL;
  if (given_f <= 0 && sl__forward(c, &fc, &fmem, msg, len)) return -1;
  if (given_f <= 0) f = fc.arg[3];
  double left = 0, abs_left = 0, right = 0, abs_right = 0;
  int finite = sl__dot(&f, g, &left, &abs_left);
  /* x (feats, data) and its gradient; src (updates) and its gradient */
  finite = finite &&
           sl__dot(&c->arg[1], &first->arg[info->n_in], &right, &abs_right);
  if (info->n_out > 1)
    finite = finite && sl__dot(&c->arg[3], &first->arg[info->n_in + 1], &right,
                               &abs_right);
  if (!finite) { /* NaN and inf carry no inner product */
    free(fmem);
    return 1;
  }
  double abs_g = 0;
  const int64_t ng = sl__numel(g);
  for (int64_t i = 0; i < ng; ++i) abs_g += fabs(sl__get(g, g->shape, i));
  /* F(v)'s roundings (a sum's, a mean's division) and the gradients'
   * (a mean's or a tie's share), relative to the terms' size, and the two
   * f64 sums' own. */
  const double sums = sl__gamma((double)(ng + 2 * terms + 2), ldexp(1, -53));
  double bound =
      (sl__gamma(terms, u_acc) + 3 * u_out) * (abs_left + abs_right) +
      sums * (abs_left + abs_right) + tiny * abs_g;
  const int held = sl__holds(left, right, bound, g->dtype, abs_left + abs_right,
                             tiny * abs_g, applied);
  const int helper =
      !held && given_f <= 0 &&
      sl__helper_wrong(&fc, "forward", SL_ORACLE_TOLERANCE, msg, len);
  free(fmem);
  if (held || helper) return held;
  char f_name[64] = "cpu.serial";
  if (given_f > 0)
    snprintf(f_name, sizeof f_name, "given %s as the",
             info->arg_names[given_f]);
  snprintf(msg, len,
           "adjoint identity broken: <F(v), grad_out> = %.9g but <v, "
           "gradients> = %.9g with F the %s forward (|diff| %.3g above the "
           "rounding bound %.3g): a gradient sent to the wrong input, "
           "dropped, or not the forward's",
           left, right, f_name, fabs(left - right), bound);
  return 0;
}

/* Terms per element below: the contributions any one element can meet. */

/* scatter_reduce's and index_reduce's: F is the core's cpu.serial forward;
 * an element meets at most every index entry. */
int sl_adjoint_backward(const sl_call *c, const sl_call *first, uint64_t seed,
                        int *applied, char *msg, size_t len) {
  (void)seed;
  return sl__backward_agrees(c, first, 0, (double)sl__numel(&c->arg[2]) + 1,
                             applied, msg, len);
}

/* dynamic_scatter_backward's call carries no coordinates to run its forward
 * on: its voxel_feats input stands for F(feats); a voxel meets at most every
 * point. */
int sl_adjoint_dynamic_backward(const sl_call *c, const sl_call *first,
                                uint64_t seed, int *applied, char *msg,
                                size_t len) {
  (void)seed;
  const double points = c->arg[1].ndim ? (double)c->arg[1].shape[0] : 1;
  return sl__backward_agrees(c, first, 2, points + 1, applied, msg, len);
}

/* segment_reduce_backward's result input stands for F(data) (an initial
 * value makes F not homogeneous: those calls are not judged); a segment
 * meets at most every element of data. */
int sl_adjoint_segment_backward(const sl_call *c, const sl_call *first,
                                uint64_t seed, int *applied, char *msg,
                                size_t len) {
  (void)seed;
  return sl__backward_agrees(c, first, 3, (double)sl__numel(&c->arg[1]) + 1,
                             applied, msg, len);
}

int sl_adjoint_agrees(const sl_call *c, const sl_call *first, uint64_t seed,
                      int *applied, char *msg, size_t len) {
  msg[0] = '\0';
  *applied = 0;
  const sl_harness_op *h = sl_harness_op_of(c->op);
  if (!h || !h->adjoint) return 1;
  return h->adjoint(c, first, seed, applied, msg, len);
}
