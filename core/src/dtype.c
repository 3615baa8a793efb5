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

/* IEEE binary16 <-> binary32, round to nearest even, NaN kept quiet. */
float sl_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: normalize */
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while (!(man & 0x400u));
      bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t sl_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) /* inf or NaN */
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
  if (absx >= 0x477ff000u) return sign | 0x7c00u; /* rounds to >= 65520: inf */
  if (absx < 0x38800000u) { /* below the smallest normal half: subnormal */
    if (absx < 0x33000000u) return sign; /* < 2^-25 rounds to zero */
    uint32_t man = (absx & 0x7fffffu) | 0x800000u;
    /* f32 exponent e maps to half subnormal mantissa man >> (126 - e). */
    int shift = 126 - (int)(absx >> 23);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return sign | (uint16_t)half;
  }
  uint32_t half = ((absx >> 13) - (112u << 10)) & 0xffffu;
  uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return sign | (uint16_t)half;
}

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
