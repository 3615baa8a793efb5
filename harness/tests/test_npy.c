/*
 * The .npy loader's header checks, on hand-made files: shapes are bounded
 * whatever the order of their extents, and a good file loads with the shape
 * and values it states.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"
#include "sl_test.h"

static char dir[] = "/tmp/sl_test_npy_XXXXXX", path[64];

/* Writes a format-1.0 .npy with header dict `dict` (padded as NumPy pads)
 * followed by `n` data bytes. */
static void write_npy(const char *dict, const void *data, size_t n) {
  char header[256];
  int len = snprintf(header, sizeof header, "%s", dict);
  while ((10 + len + 1) % 64) header[len++] = ' ';
  header[len++] = '\n';
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(len & 0xff),
                           (unsigned char)(len >> 8)};
  fwrite(pre, 1, sizeof pre, f);
  fwrite(header, 1, (size_t)len, f);
  if (n) fwrite(data, 1, n, f);
  fclose(f);
}

int main(void) {
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/x.npy", dir);
  sl_tensor t;
  char err[512];

  /* Both orders of an empty but huge shape are refused alike (the zero
   * first used to end the size check). */
  write_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, "
            "99999999999999), }",
            NULL, 0);
  CHECK(sl_npy_load(path, -1, &t, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "expected a shape of at most 2^40 elements");
  write_npy("{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(99999999999999, 0), }",
            NULL, 0);
  CHECK(sl_npy_load(path, -1, &t, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "expected a shape of at most 2^40 elements");

  /* An empty shape of sane extents loads, with its shape. */
  write_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }",
            NULL, 0);
  CHECK_MSG(sl_npy_load(path, -1, &t, err, sizeof err) == 0, "%s", err);
  CHECK(t.ndim == 2 && t.shape[0] == 0 && t.shape[1] == 5);
  free(t.data);

  /* A 2x3 int32 array loads with its values in row-major order. */
  int v[6] = {1, -2, 3, -4, 5, 600000};
  write_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", v,
            sizeof v);
  CHECK_MSG(sl_npy_load(path, -1, &t, err, sizeof err) == 0, "%s", err);
  CHECK(t.dtype == SL_I32 && t.ndim == 2 && t.shape[0] == 2 &&
        t.shape[1] == 3 && t.strides[0] == 3 && t.strides[1] == 1);
  CHECK(t.data && memcmp(t.data, v, sizeof v) == 0);
  free(t.data);

  /* A shape claiming more data than the file holds. */
  write_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 4), }", v,
            sizeof v);
  CHECK(sl_npy_load(path, -1, &t, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "expected 32 bytes of data for the shape in the header, "
                      "the file holds 24");

  remove(path);
  rmdir(dir);
  return sl_test_finish("test_npy");
}
