/* Oracles and accuracy metrics (docs/spec.md §5). */
#include "oracles.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op_facts.h"
#include "tolerance.h"
#include "writes.h"

/* The one tolerance table: threshold on diff1 and diff2 by dtype, unless
 * --tolerance installed another for dt (tolerance.h). */
double sl_tolerance(sl_dtype dt) {
  double chosen = sl_tolerance_override(dt);
  if (chosen >= 0) return chosen;
  switch (dt) {
  case SL_F16:
  case SL_BF16:
    return 1e-2;
  case SL_F32:
  case SL_C64:
    return 1e-5;
  case SL_F64:
  case SL_C128:
    return 1e-12;
  default:
    return 0.0;
  }
}

const char *sl_oracle_name(sl_oracle o) {
  switch (o) {
  case SL_ORACLE_EXACT:
    return "exact";
  case SL_ORACLE_BITWISE:
    return "bitwise";
  case SL_ORACLE_TOLERANCE:
    return "tolerance";
  case SL_ORACLE_ANY_VALID:
    return "any_valid";
  }
  return "?";
}

/* Unit roundoff and smallest subnormal of a real float dtype. */
static void sl__roundoff(sl_dtype dt, double *u, double *tiny) {
  switch (dt) {
  case SL_F16:
    *u = ldexp(1, -11), *tiny = ldexp(1, -24);
    return;
  case SL_BF16:
    *u = ldexp(1, -8), *tiny = ldexp(1, -133);
    return;
  case SL_F32:
    *u = ldexp(1, -24), *tiny = ldexp(1, -149);
    return;
  default:
    *u = ldexp(1, -53), *tiny = ldexp(1, -1074);
    return;
  }
}

/* gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability, 3.4): the
 * relative error bound of n roundings. */
static double sl__gamma(int64_t n, double u) {
  return (double)n * u / (1 - (double)n * u);
}

/*
 * The largest |got - want| that accumulation order explains at a position
 * with k.n >= 2 contributions, for reduce r of dtype dt. Each of got and
 * want is within gamma * sum|terms| of the exact sum (n - 1 additions and
 * a final rounding, all at the output's unit roundoff u: conservative for
 * kernels that accumulate wider), so they are within twice that of each
 * other; a mean adds the division and its rounding (gamma_{n+2}, divided
 * by the count); a product is within gamma_n relative (its under- and
 * overflows are order_dependent, not judged here). Where n u nears 1
 * (f16 sums of 2048 terms, bf16 of 256) that bound says nothing, and the
 * accumulator of docs/spec.md §3 (f32 for the half types) gives u instead, plus
 * the output's rounding. Each side's final rounding into the subnormals adds up
 * to half the smallest subnormal. `how` names the bound used.
 */
static double sl__order_bound(sl_dtype dt, sl_reduce r, sl_contrib k,
                              double want, const char **how) {
  double u, tiny, ua = dt == SL_F64 ? ldexp(1, -53) : ldexp(1, -24);
  sl__roundoff(dt, &u, &tiny);
  int64_t m = r == SL_REDUCE_MEAN ? k.n + 2 : k.n;
  double g = (double)m * u <= 0.1 ? sl__gamma(m, u) : sl__gamma(m, ua) + u;
  double per_side;
  if (r == SL_REDUCE_PROD) {
    per_side = g / (1 - g) * fabs(want);
    *how = "product bound gamma_n|want|";
  } else if (r == SL_REDUCE_MEAN) {
    per_side = g * k.abs_sum / (double)k.count;
    *how = "mean bound gamma_(n+2)*sum|terms|/n";
  } else {
    per_side = g * k.abs_sum;
    *how = "sum bound gamma_n*sum|terms|";
  }
  return 2 * per_side + tiny;
}

/* A sum of k's terms is exact in the accumulator of docs/spec.md §3 (f32
 * for f16, bf16 and f32; f64 for f64) in every order: every partial sum is
 * a multiple of the grain below 2^p grains. Then got and want are the one
 * rounding of the same value, and any difference is a bug (a one-ulp
 * rounding error of the result included). */
static int sl__sum_exact(sl_dtype dt, sl_contrib k) {
  const int p = dt == SL_F64 ? 53 : 24;
  return k.grain > 0 && (double)k.abs_sum < ldexp(k.grain, p);
}

static const void *sl__elem(const sl_tensor *t, int64_t i) {
  int64_t off = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    off += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return (const char *)t->data + off * (int64_t)sl_dtype_size(t->dtype);
}

/* Value equality: NaN matches NaN, -0.0 matches 0.0; integers exactly. */
static int sl__same_value(sl_dtype dt, const void *a, const void *b) {
  if (sl_dtype_is_complex(dt)) {
    size_t h = sl_dtype_size(dt) / 2;
    sl_dtype part = dt == SL_C64 ? SL_F32 : SL_F64;
    return sl__same_value(part, a, b) &&
           sl__same_value(part, (const char *)a + h, (const char *)b + h);
  }
  if (!sl_dtype_is_float(dt))
    return sl_elem_get_i(dt, a) == sl_elem_get_i(dt, b);
  double x = sl_elem_get_f(dt, a), y = sl_elem_get_f(dt, b);
  return x == y || (isnan(x) && isnan(y));
}

/* Bitwise equality as docs/spec.md §5 defines it for the exact oracles: the
 * same bytes, except that a NaN matches any NaN (sign and payload are not
 * values). The exception is needed because references do not preserve NaN
 * bits: LibTorch 2.11's CPU gather turns a bf16 0x7FC0 into 0xFFFF
 * (docs/reference-differences.md). */
static int sl__same_bits(sl_dtype dt, const void *a, const void *b, size_t es) {
  if (memcmp(a, b, es) == 0) return 1;
  if (sl_dtype_is_complex(dt)) {
    size_t h = es / 2;
    sl_dtype part = dt == SL_C64 ? SL_F32 : SL_F64;
    return sl__same_bits(part, a, b, h) &&
           sl__same_bits(part, (const char *)a + h, (const char *)b + h, h);
  }
  return sl_dtype_is_float(dt) && isnan(sl_elem_get_f(dt, a)) &&
         isnan(sl_elem_get_f(dt, b));
}

static void sl__position(const sl_tensor *t, int64_t i, char *buf, size_t n) {
  int64_t idx[SL_MAX_DIMS];
  for (int d = t->ndim - 1; d >= 0; --d) {
    idx[d] = i % t->shape[d];
    i /= t->shape[d];
  }
  sl_shape_str(t->ndim, idx, buf, n);
}

/* Whether got x for expected y is the work of flushing adds (SL_CMP_FTZ_ADDS):
 * a sum or mean of float data below f64, off by at most one smallest normal
 * f32 per contribution (n of them, or one when the writes are unknown). */
static int sl__flushed(sl_dtype dt, sl_reduce red, double x, double y,
                       int64_t n) {
  if (!sl_dtype_is_float(dt) || dt == SL_F64 || !isfinite(x) || !isfinite(y))
    return 0;
  if (red != SL_REDUCE_SUM && red != SL_REDUCE_MEAN) return 0;
  return fabs(x - y) <= (double)(n > 1 ? n : 1) * FLT_MIN;
}

int sl_compare(const sl_tensor *got, const sl_tensor *want, sl_oracle o,
               const sl_call *call, sl_diff *d) {
  return sl_compare_as(got, want, o, call, 0, d);
}

int sl_compare_as(const sl_tensor *got, const sl_tensor *want, sl_oracle o,
                  const sl_call *call, unsigned flags, sl_diff *d) {
  char a[160], b[160];
  memset(d, 0, sizeof *d);
  d->first_bad = -1;
  int same_shape = got->ndim == want->ndim && got->dtype == want->dtype;
  for (int k = 0; same_shape && k < got->ndim; ++k)
    same_shape = got->shape[k] == want->shape[k];
  if (!same_shape) {
    snprintf(d->msg, sizeof d->msg,
             "expected %s %s (the reference's), got %s %s",
             sl_dtype_name(want->dtype),
             sl_shape_str(want->ndim, want->shape, a, sizeof a),
             sl_dtype_name(got->dtype),
             sl_shape_str(got->ndim, got->shape, b, sizeof b));
    d->mismatches = 1;
    return 0;
  }
  int64_t n = 1;
  for (int k = 0; k < got->ndim; ++k) n *= got->shape[k];
  size_t es = sl_dtype_size(got->dtype);
  sl_dtype dt = got->dtype;
  /* Most outputs equal the reference's bit for bit. One memcmp then says
   * what the element loop below would, under every oracle: no mismatch and
   * every metric 0. (It took 5% of a small-case campaign's time.) */
  if (n > 0 && sl_tensor_is_contiguous(got) && sl_tensor_is_contiguous(want) &&
      memcmp(got->data, want->data, (size_t)n * es) == 0)
    return 1;
  sl_writes writes = {0};
  int have_writes =
      o == SL_ORACLE_ANY_VALID && call && sl_writes_build(call, &writes) == 0;
  /* Tolerance per position where the contributions are known (the ops
   * writes.h maps, real floats, no --tolerance override for dt): exact
   * with at most one contribution, within the order bound above with
   * more. Elsewhere (the backward ops, complex, an override) the
   * per-dtype table judges diff1 and diff2. */
  int derived = o == SL_ORACLE_TOLERANCE && call && sl_dtype_is_float(dt) &&
                sl_tolerance_override(dt) < 0 && sl_harness_op_of(call->op) &&
                sl_harness_op_of(call->op)->writes != NULL;
  /* (scatter_nd is judged by tolerance only with reduce=sum) */
  sl_reduce red = call ? call->p.reduce : SL_REDUCE_NONE;
  const char *why = "";
  char bound_msg[96] = "";
  /* For tolerance, the writes are needed only once an element differs. */
  int writes_tried = o != SL_ORACLE_TOLERANCE || !call;
  double sum_abs_diff = 0, sum_abs_ref = 0, sum_sq_diff = 0, sum_sq_ref = 0;
  double max_diff = 0;
  /* diff1 and diff2 are ratios, so their sums are taken over values divided
   * by the reference's largest finite magnitude: with values near 1e300
   * (dp=ext) the sums of squares overflowed, and a one-ulp difference of a
   * product summed in another order (cuda.lock, f64 prod) was judged by
   * inf/inf = NaN, a failure. */
  double scale = 0;
  for (int64_t i = 0; o == SL_ORACLE_TOLERANCE && i < n; ++i) {
    double y = fabs(sl_elem_get_f(dt, sl__elem(want, i)));
    if (isfinite(y) && y > scale) scale = y;
  }
  if (!(scale > 0)) scale = 1;
  for (int64_t i = 0; i < n; ++i) {
    const void *g = sl__elem(got, i), *w = sl__elem(want, i);
    double x = sl_elem_get_f(dt, g), y = sl_elem_get_f(dt, w);
    int ok;
    if (o == SL_ORACLE_BITWISE)
      ok = sl__same_bits(dt, g, w, es);
    else if (o == SL_ORACLE_ANY_VALID)
      ok = sl__same_bits(dt, g, w, es) ||
           (have_writes && sl_writes_has(&writes, i, g, es));
    else
      ok = sl__same_value(dt, g, w);
    if (o == SL_ORACLE_TOLERANCE && !ok) {
      if (!writes_tried) {
        writes_tried = 1;
        have_writes = sl_writes_build(call, &writes) == 0;
      }
      if (have_writes && sl_writes_order_dependent(&writes, call, i)) {
        ++d->order_dependent; /* proves nothing either way */
        continue;
      }
      /* A NaN or inf where the reference has a finite value (or the
       * reverse) always counts. */
      ok = !(isnan(x) != isnan(y) || (isinf(x) || isinf(y)));
      if (!ok && isinf(x) && isinf(y)) ok = x == y;
      if (ok && (flags & SL_CMP_FTZ_ADDS)) {
        sl_contrib k = {0};
        if (have_writes) sl_writes_contributions(&writes, call, i, &k);
        if (sl__flushed(dt, red, x, y, k.n)) {
          ++d->flushed;
          continue;
        }
      }
      if (ok && derived && have_writes) {
        sl_contrib k;
        sl_writes_contributions(&writes, call, i, &k);
        if (k.writes <= 1) {
          ok = 0;
          why = k.writes ? "; exact: one value written, order cannot matter"
                         : "; exact: no value written, x untouched";
        } else if (red == SL_REDUCE_SUM && sl__sum_exact(dt, k)) {
          ok = 0;
          why = "; exact: the sum of these terms is exact in the "
                "accumulator, in any order";
        } else {
          const char *how;
          double bound = sl__order_bound(dt, red, k, y, &how);
          ok = fabs(x - y) <= bound;
          if (!ok && d->first_bad < 0)
            snprintf(bound_msg, sizeof bound_msg,
                     "; |diff| %.3g above the %s %.3g (n=%lld)", fabs(x - y),
                     how, bound, (long long)k.n);
          why = bound_msg;
        }
      }
      /* Otherwise (no derived bound) judged by the metrics below. */
    }
    /* Metrics over real values; positions where both are NaN or the same
     * infinity carry no difference. */
    int both_special = (isnan(x) && isnan(y)) || (isinf(x) && x == y);
    if (!both_special) {
      double e = fabs(x - y);
      if (isnan(x) != isnan(y) || isinf(x) != isinf(y)) e = INFINITY;
      const double es = e / scale, ys = y / scale;
      sum_abs_diff += es;
      sum_sq_diff += es * es;
      sum_abs_ref += fabs(ys);
      sum_sq_ref += ys * ys;
      if (e > max_diff || isnan(e)) max_diff = e;
    }
    if (!ok) {
      if (d->first_bad < 0) {
        char pos[160];
        sl__position(got, i, pos, sizeof pos);
        d->first_bad = i;
        snprintf(d->msg, sizeof d->msg,
                 "%s mismatch at %.64s: got %.9g, expected %.9g%s",
                 sl_oracle_name(o), pos, x, y,
                 o == SL_ORACLE_TOLERANCE ? why : "");
      }
      ++d->mismatches;
    }
  }
  if (have_writes) sl_writes_free(&writes);
  d->diff1 = sum_abs_ref > 0 ? sum_abs_diff / sum_abs_ref : sum_abs_diff;
  d->diff2 =
      sum_sq_ref > 0 ? sqrt(sum_sq_diff / sum_sq_ref) : sqrt(sum_sq_diff);
  d->diff3 = max_diff;
  /* The table, where no position had a derived bound. */
  if (o == SL_ORACLE_TOLERANCE && d->mismatches == 0 &&
      !(derived && have_writes)) {
    double tol = sl_tolerance(dt);
    if (!(d->diff1 <= tol && d->diff2 <= tol)) {
      snprintf(d->msg, sizeof d->msg,
               "diff1 %.3g / diff2 %.3g above the %s tolerance %.3g (%s)",
               d->diff1, d->diff2, sl_dtype_name(dt), tol,
               sl_tolerance_override(dt) >= 0 ? "--tolerance override"
                                              : "per-dtype table");
      d->mismatches = 1;
    }
  }
  return d->mismatches == 0;
}
