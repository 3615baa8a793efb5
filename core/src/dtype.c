/* Data type catalogue and half-precision conversions. */
#include <math.h>
#include <string.h>

#include "sl_internal.h"

static const struct {
  const char *name;
  size_t size;
} sl__dtypes[] = {
#define SL__DTYPE_ROW(e, name, size) {#name, size},
    SL_DTYPE_MAP(SL__DTYPE_ROW)
#undef SL__DTYPE_ROW
};

const char *sl_dtype_name(sl_dtype dt) {
  return (unsigned)dt < SL_DTYPE_COUNT ? sl__dtypes[dt].name : "?";
}

size_t sl_dtype_size(sl_dtype dt) {
  return (unsigned)dt < SL_DTYPE_COUNT ? sl__dtypes[dt].size : 0;
}

int sl_dtype_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < SL_DTYPE_COUNT; ++i)
    if (strcmp(name, sl__dtypes[i].name) == 0) return i;
  return -1;
}

int sl_dtype_is_float(sl_dtype dt) {
  return dt == SL_F16 || dt == SL_BF16 || dt == SL_F32 || dt == SL_F64;
}

int sl_dtype_is_int(sl_dtype dt) {
  return dt == SL_U8 || dt == SL_I8 || dt == SL_I16 || dt == SL_I32 ||
         dt == SL_I64;
}

int sl_dtype_is_complex(sl_dtype dt) { return dt == SL_C64 || dt == SL_C128; }

float sl_f16_to_f32(uint16_t h) { return sl__f16_to_f32(h); }

uint16_t sl_f32_to_f16(float f) { return sl__f32_to_f16(f); }

float sl_bf16_to_f32(uint16_t h) { return sl__bf16_to_f32(h); }

uint16_t sl_f32_to_bf16(float f) { return sl__f32_to_bf16(f); }

/* double -> int64 without undefined behaviour: NaN gives 0 and values
 * beyond the range saturate. */
static int64_t sl__f2i(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

double sl__load_f_any(sl_dtype dt, const void *p) {
  switch (dt) {
  case SL_F16: return sl_f16_to_f32(*(const uint16_t *)p);
  case SL_BF16: return sl_bf16_to_f32(*(const uint16_t *)p);
  case SL_F32: return *(const float *)p;
  case SL_F64: return *(const double *)p;
  case SL_C64: return *(const float *)p;
  case SL_C128: return *(const double *)p;
  default: return (double)sl__load_i(dt, p);
  }
}

void sl__store_f_any(sl_dtype dt, void *p, double v) {
  switch (dt) {
  case SL_F16: *(uint16_t *)p = sl_f32_to_f16((float)v); break;
  case SL_BF16: *(uint16_t *)p = sl_f32_to_bf16((float)v); break;
  case SL_F32: *(float *)p = (float)v; break;
  case SL_F64: *(double *)p = v; break;
  case SL_C64: ((float *)p)[0] = (float)v, ((float *)p)[1] = 0.0f; break;
  case SL_C128: ((double *)p)[0] = v, ((double *)p)[1] = 0.0; break;
  case SL_BOOL: *(uint8_t *)p = v != 0.0; break;
  default: sl__store_i(dt, p, sl__f2i(v)); break;
  }
}

int64_t sl__load_i(sl_dtype dt, const void *p) {
  switch (dt) {
  case SL_BOOL: return *(const uint8_t *)p != 0;
  case SL_U8: return *(const uint8_t *)p;
  case SL_I8: return *(const int8_t *)p;
  case SL_I16: return *(const int16_t *)p;
  case SL_I32: return *(const int32_t *)p;
  case SL_I64: return *(const int64_t *)p;
  default: return sl__f2i(sl__load_f(dt, p));
  }
}

/* Narrowing goes through the unsigned type so that wrap-around is defined
 * (integer overflow wraps modulo 2^bits, as in reduce_ops.h). */
void sl__store_i(sl_dtype dt, void *p, int64_t v) {
  uint64_t u = (uint64_t)v;
  switch (dt) {
  case SL_BOOL: *(uint8_t *)p = v != 0; break;
  case SL_U8: *(uint8_t *)p = (uint8_t)u; break;
  case SL_I8: *(int8_t *)p = (int8_t)(uint8_t)u; break;
  case SL_I16: *(int16_t *)p = (int16_t)(uint16_t)u; break;
  case SL_I32: *(int32_t *)p = (int32_t)(uint32_t)u; break;
  case SL_I64: *(int64_t *)p = v; break;
  default: sl__store_f(dt, p, (double)v); break;
  }
}

double sl_elem_get_f(sl_dtype dt, const void *p) { return sl__load_f(dt, p); }
void sl_elem_set_f(sl_dtype dt, void *p, double v) { sl__store_f(dt, p, v); }
int64_t sl_elem_get_i(sl_dtype dt, const void *p) { return sl__load_i(dt, p); }
void sl_elem_set_i(sl_dtype dt, void *p, int64_t v) { sl__store_i(dt, p, v); }
