/*
 * libFuzzer target: the .npy loader. Any bytes either load into a tensor
 * whose size matches its header or fail with a message; the loaded tensor
 * saves and loads back equal.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* In a private directory made once (mkdtemp, mode 0700): a fixed name in
 * /tmp such as /tmp/sl_fuzz_npy_<pid>.npy can be planted beforehand as a
 * symlink by another user, and the fuzzer would write through it. */
static char sl__dir[] = "/tmp/sl_fuzz_npy_XXXXXX";
static char sl__path[64], sl__back[64];

static void sl__cleanup(void) {
  remove(sl__path);
  remove(sl__back);
  rmdir(sl__dir);
}

/* bf16 travels as float32 (npy.h): every value survives, NaN payloads need
 * not; every other dtype must come back bit for bit. */
static int sl__same_data(const sl_tensor *t, const sl_tensor *u, size_t bytes) {
  if (t->dtype != SL_BF16)
    return !bytes || memcmp(t->data, u->data, bytes) == 0;
  for (size_t i = 0; i < bytes / 2; ++i) {
    double a = sl_elem_get_f(SL_BF16, (const char *)t->data + 2 * i);
    double b = sl_elem_get_f(SL_BF16, (const char *)u->data + 2 * i);
    if (!(a == b && signbit(a) == signbit(b)) && !(isnan(a) && isnan(b)))
      return 0;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!sl__path[0]) {
    if (!mkdtemp(sl__dir)) {
      perror("mkdtemp /tmp/sl_fuzz_npy_XXXXXX");
      abort();
    }
    snprintf(sl__path, sizeof sl__path, "%s/in.npy", sl__dir);
    snprintf(sl__back, sizeof sl__back, "%s/back.npy", sl__dir);
    atexit(sl__cleanup);
  }
  FILE *f = fopen(sl__path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  sl_tensor t, u;
  char err[512];
  err[0] = '\0';
  if (sl_npy_load(sl__path, -1, &t, err, sizeof err)) {
    if (!err[0]) {
      fprintf(stderr, "rejected without a message\n");
      abort();
    }
    return 0;
  }
  size_t bytes = sl_dtype_size(t.dtype);
  for (int d = 0; d < t.ndim; ++d) bytes *= (size_t)t.shape[d];
  if (sl_npy_save(sl__back, &t, err, sizeof err) ||
      sl_npy_load(sl__back, (int)t.dtype, &u, err, sizeof err)) {
    fprintf(stderr, "a loaded tensor does not save and load back: %s\n", err);
    abort();
  }
  if (u.ndim != t.ndim ||
      memcmp(u.shape, t.shape, sizeof t.shape[0] * (size_t)t.ndim) ||
      !sl__same_data(&t, &u, bytes)) {
    fprintf(stderr, "save/load changed the tensor\n");
    abort();
  }
  free(t.data);
  free(u.data);
  return 0;
}
