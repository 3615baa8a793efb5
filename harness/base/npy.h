/*
 * .npy files (NumPy format 1.0), loadable by numpy.load and torch (via
 * numpy). bf16 has no NumPy dtype: it is written as float32 (exact) and read
 * back from float32 or uint16 bit patterns.
 */
#ifndef SL_NPY_H
#define SL_NPY_H

#include <stddef.h>

#include "sl/sl.h"

/* Writes t (any strides; written in row-major order) to path. */
int sl_npy_save(const char *path, const sl_tensor *t, char *err,
                size_t errlen);

/* Reads path into a freshly malloc'd contiguous tensor of dtype `want`
 * (-1: the file's dtype). Caller frees t->data. Errors name the file, what
 * was expected and what was found. */
int sl_npy_load(const char *path, int want, sl_tensor *t, char *err,
                size_t errlen);

#endif
