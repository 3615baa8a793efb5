/* .npy reader and writer (see npy.h). */
#include "npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safe_file.h"

/* Most elements a loaded array may claim (8 TiB of bytes at one byte each):
 * beyond any machine here, and small enough that sizes never overflow. */
#define SL_NPY_MAX_ELEMS ((uint64_t)1 << 40)

static const char *sl__npy_descr(sl_dtype dt) {
  switch (dt) {
  case SL_BOOL: return "|b1";
  case SL_U8: return "|u1";
  case SL_I8: return "|i1";
  case SL_I16: return "<i2";
  case SL_I32: return "<i4";
  case SL_I64: return "<i8";
  case SL_F16: return "<f2";
  case SL_BF16: return "<f4"; /* widened, see npy.h */
  case SL_F32: return "<f4";
  case SL_F64: return "<f8";
  case SL_C64: return "<c8";
  case SL_C128: return "<c16";
  default: return NULL;
  }
}

static int sl__npy_dtype(const char *descr) {
  static const struct {
    const char *d;
    sl_dtype t;
  } map[] = {{"|b1", SL_BOOL}, {"|u1", SL_U8},   {"|i1", SL_I8},
             {"<i2", SL_I16},  {"<i4", SL_I32},  {"<i8", SL_I64},
             {"<f2", SL_F16},  {"<f4", SL_F32},  {"<f8", SL_F64},
             {"<c8", SL_C64},  {"<c16", SL_C128}, {"<u2", SL_BF16}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
    if (strcmp(descr, map[i].d) == 0) return (int)map[i].t;
  return -1;
}

int sl_npy_save(const char *path, const sl_tensor *t, char *err,
                size_t errlen) {
  const char *descr = sl__npy_descr(t->dtype);
  if (!descr) {
    snprintf(err, errlen, "%s: dtype %s cannot be written as .npy", path,
             sl_dtype_name(t->dtype));
    return -1;
  }
  char header[512];
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int d = 0; d < t->ndim; ++d)
    n += snprintf(header + n, sizeof header - (size_t)n, "%" PRId64 "%s",
                  t->shape[d], t->ndim == 1 ? "," : d + 1 < t->ndim ? ", " : "");
  n += snprintf(header + n, sizeof header - (size_t)n, "), }");
  /* Pad with spaces so that magic + header ends on a 64-byte boundary. */
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  sl_safe_file sf;
  if (sl_safe_open(&sf, path, err, errlen)) return -1;
  FILE *f = sf.f;
  uint16_t hlen = (uint16_t)(n + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i) fputc(' ', f);
  fputc('\n', f);
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; ++d) numel *= t->shape[d];
  size_t es = sl_dtype_size(t->dtype);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t off = 0, rem = i;
    for (int d = t->ndim - 1; d >= 0; --d) {
      off += (rem % t->shape[d]) * t->strides[d];
      rem /= t->shape[d];
    }
    const char *p = (const char *)t->data + off * (int64_t)es;
    if (t->dtype == SL_BF16) {
      float v = (float)sl_elem_get_f(SL_BF16, p);
      fwrite(&v, 4, 1, f);
    } else {
      fwrite(p, es, 1, f);
    }
  }
  return sl_safe_commit(&sf, err, errlen);
}

/* Finds 'key': in the header dict and returns a pointer past the colon. */
static const char *sl__npy_key(const char *h, const char *key) {
  const char *p = strstr(h, key);
  if (!p) return NULL;
  p = strchr(p + strlen(key), ':');
  return p ? p + 1 : NULL;
}

int sl_npy_load(const char *path, int want, sl_tensor *t, char *err,
                size_t errlen) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "rbe");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open file", path);
    return -1;
  }
  unsigned char pre[12];
  char header[4097];
  int rc = -1;
  void *data = NULL;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    snprintf(err, errlen, "%s: expected the .npy magic \\x93NUMPY, got "
                          "something else", path);
    goto done;
  }
  size_t hlen = pre[8] | ((size_t)pre[9] << 8);
  if (pre[6] >= 2) { /* format 2.0/3.0: 4-byte header length */
    if (fread(pre + 10, 1, 2, f) != 2) goto truncated;
    hlen |= ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
  }
  if (hlen >= sizeof header) {
    snprintf(err, errlen, "%s: expected a header under 4096 bytes, got %zu",
             path, hlen);
    goto done;
  }
  if (fread(header, 1, hlen, f) != hlen) goto truncated;
  header[hlen] = '\0';
  const char *d = sl__npy_key(header, "'descr'");
  const char *fo = sl__npy_key(header, "'fortran_order'");
  const char *sh = sl__npy_key(header, "'shape'");
  char descr[16] = {0};
  if (!d || !fo || !sh || sscanf(d, " '%15[^']'", descr) != 1) {
    snprintf(err, errlen, "%s: expected a header with descr, fortran_order "
                          "and shape, got \"%.200s\"", path, header);
    goto done;
  }
  while (*fo == ' ') ++fo;
  if (strncmp(fo, "False", 5) != 0) {
    snprintf(err, errlen, "%s: expected fortran_order False (save with "
                          "np.ascontiguousarray), got Fortran order", path);
    goto done;
  }
  int file_dt = sl__npy_dtype(descr);
  if (file_dt < 0) {
    snprintf(err, errlen, "%s: expected a dtype of |b1 |u1 |i1 <i2 <i4 <i8 "
                          "<f2 <f4 <f8 <c8 <c16, got '%s'", path, descr);
    goto done;
  }
  int target = want >= 0 ? want : file_dt;
  int bf16_from_f32 = target == SL_BF16 && file_dt == SL_F32;
  if (target != file_dt && !bf16_from_f32) {
    snprintf(err, errlen, "%s: expected dtype %s (%s), got '%s'", path,
             sl_dtype_name((sl_dtype)target),
             sl__npy_descr((sl_dtype)target), descr);
    goto done;
  }
  const char *p = strchr(sh, '(');
  if (!p) {
    snprintf(err, errlen, "%s: expected a shape tuple, got \"%.100s\"", path,
             sh);
    goto done;
  }
  ++p;
  t->dtype = (sl_dtype)target;
  /* The bound applies to the extents whatever their order: an empty array
   * of (0, 99999999999999) is as unusable as (99999999999999, 0), and
   * skipping the zeros in the product refuses both alike. */
  uint64_t numel = 1, nonzero = 1;
  for (;;) {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == ')') break;
    char *end;
    long long e = strtoll(p, &end, 10);
    if (end == p || e < 0 || t->ndim == SL_MAX_DIMS) {
      snprintf(err, errlen, "%s: expected up to %d extents >= 0 in the shape, "
                            "got \"%.100s\"", path, SL_MAX_DIMS, sh);
      goto done;
    }
    t->shape[t->ndim++] = e;
    if (e && nonzero > SL_NPY_MAX_ELEMS / (uint64_t)e) {
      snprintf(err, errlen,
               "%s: expected a shape of at most 2^40 elements (zero extents "
               "left out), got \"%.100s\"",
               path, sh);
      goto done;
    }
    if (e) nonzero *= (uint64_t)e;
    numel *= (uint64_t)e;
    p = end;
  }
  size_t file_es = sl_dtype_size((sl_dtype)file_dt);
  size_t es = sl_dtype_size(t->dtype);
  /* The header's shape is a claim: check it against the bytes that follow
   * before allocating for it. */
  long here = ftell(f);
  if (here >= 0 && fseek(f, 0, SEEK_END) == 0) {
    long end_pos = ftell(f);
    uint64_t avail = end_pos > here ? (uint64_t)(end_pos - here) : 0;
    if (fseek(f, here, SEEK_SET) != 0 || avail / file_es < numel) {
      snprintf(err, errlen,
               "%s: expected %llu bytes of data for the shape in the header, "
               "the file holds %llu",
               path, (unsigned long long)(numel * file_es),
               (unsigned long long)avail);
      goto done;
    }
  }
  data = calloc(1, numel > 0 ? numel * es : 16);
  if (!data) {
    snprintf(err, errlen, "%s: out of memory", path);
    goto done;
  }
  for (uint64_t i = 0; i < numel; ++i) {
    unsigned char buf[16];
    if (fread(buf, 1, file_es, f) != file_es) goto truncated;
    char *dst = (char *)data + i * es;
    if (bf16_from_f32)
      sl_elem_set_f(SL_BF16, dst, sl_elem_get_f(SL_F32, buf));
    else
      memcpy(dst, buf, es);
  }
  sl_contiguous_strides(t->ndim, t->shape, t->strides);
  t->data = data;
  t->device = SL_DEVICE_CPU;
  data = NULL;
  rc = 0;
  goto done;
truncated:
  snprintf(err, errlen, "%s: file ends before its data does (truncated)",
           path);
done:
  free(data);
  fclose(f);
  return rc;
}
