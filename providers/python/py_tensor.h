/*
 * scatterlab_bridge.Tensor: one tensor of a call as Python sees it, a view
 * of the harness's buffer, never a copy. It offers the DLPack protocol
 * (__dlpack__ / __dlpack_device__, a "dltensor" capsule: numpy.from_dlpack,
 * torch.from_dlpack, jax.dlpack) and the buffer protocol (memoryview,
 * numpy.asarray), read-only for inputs, writable for outputs. It lives for
 * one call: afterwards both protocols refuse it, since the buffers are the
 * harness's and are freed or reused.
 */
#ifndef SL_PY_TENSOR_H
#define SL_PY_TENSOR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sl/sl.h"

/* Readies the type; 0 or -1 with a Python error set. GIL held. */
int sl_py_tensor_init(void);
/* A new reference to a view of t, writable or not; NULL with an error. */
PyObject *sl_py_tensor_new(const sl_tensor *t, int writable);
/* Ends the view's life: the protocols refuse it from now on. */
void sl_py_tensor_expire(PyObject *tensor);
/* "f32" for a dtype, NULL when out of range. */
const char *sl_py_dtype_name(int dtype);
/* The sl_dtype of a name, or -1. */
int sl_py_dtype_from_name(const char *name);

#endif
