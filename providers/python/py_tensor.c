/* The Tensor type of the Python bridge (py_tensor.h). */
#include "py_tensor.h" /* Python.h first, as CPython asks */

#include <stdlib.h>
#include <string.h>

#include "dlpack_abi.h"
#include "sl/sl_provider.h"

/* Each dtype: its name, its DLPack type code and bits, its buffer-protocol
 * format (struct module syntax; NULL where Python has none: bf16). */
#define SL_PY_DTYPES(X)                                                        \
  X(SL_BOOL, "bool", kDLBool, 8, "?")                                          \
  X(SL_U8, "u8", kDLUInt, 8, "B")                                              \
  X(SL_I8, "i8", kDLInt, 8, "b")                                               \
  X(SL_I16, "i16", kDLInt, 16, "h")                                            \
  X(SL_I32, "i32", kDLInt, 32, "i")                                            \
  X(SL_I64, "i64", kDLInt, 64, "q")                                            \
  X(SL_F16, "f16", kDLFloat, 16, "e")                                          \
  X(SL_BF16, "bf16", kDLBfloat, 16, NULL)                                      \
  X(SL_F32, "f32", kDLFloat, 32, "f")                                          \
  X(SL_F64, "f64", kDLFloat, 64, "d")                                          \
  X(SL_C64, "c64", kDLComplex, 64, "Zf")                                       \
  X(SL_C128, "c128", kDLComplex, 128, "Zd")

typedef struct {
  const char *name;
  uint8_t dl_code, dl_bits;
  const char *format;
} sl_py_dtype_row;

static const sl_py_dtype_row sl_py_dtypes[SL_DTYPE_COUNT] = {
#define SL_PY_DTYPE_ROW(e, n, code, bits, fmt) [e] = {n, code, bits, fmt},
    SL_PY_DTYPES(SL_PY_DTYPE_ROW)
#undef SL_PY_DTYPE_ROW
};

const char *sl_py_dtype_name(int dtype) {
  return dtype >= 0 && dtype < SL_DTYPE_COUNT ? sl_py_dtypes[dtype].name : NULL;
}

int sl_py_dtype_from_name(const char *name) {
  for (int d = 0; d < SL_DTYPE_COUNT; ++d)
    if (sl_py_dtypes[d].name && strcmp(sl_py_dtypes[d].name, name) == 0)
      return d;
  return -1;
}

typedef struct {
  PyObject_HEAD sl_tensor t;
  int writable;
  int alive;
} sl_py_tensor;

/* A zero-element tensor may have no data; both protocols want a pointer. */
static char sl_py_empty;

static void *sl_py_data(const sl_py_tensor *self) {
  return self->t.data ? self->t.data : &sl_py_empty;
}

static int sl_py_check_alive(const sl_py_tensor *self) {
  if (self->alive) return 0;
  PyErr_SetString(PyExc_BufferError,
                  "scatterlab tensor used after its call returned (its "
                  "buffer belongs to the harness again)");
  return -1;
}

/* --- DLPack ------------------------------------------------------------ */

/* The managed tensor and the arrays it points at, in one allocation; it
 * holds a reference to the Tensor until the consumer lets go. */
typedef struct {
  DLManagedTensor managed;
  int64_t shape[SL_MAX_DIMS], strides[SL_MAX_DIMS];
} sl_py_dl_block;

static void sl_py_dl_deleter(DLManagedTensor *managed) {
  /* Consumers may call it without the GIL (the spec allows any thread). */
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_XDECREF((PyObject *)managed->manager_ctx);
  PyGILState_Release(gil);
  free(managed);
}

/* An unconsumed capsule deletes its tensor; a consumed one was renamed
 * "used_dltensor" and its consumer owns the deleter call. */
static void sl_py_capsule_destructor(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
  if (m && m->deleter) m->deleter(m);
}

static PyObject *sl_py_dlpack(PyObject *obj, PyObject *args, PyObject *kw) {
  sl_py_tensor *self = (sl_py_tensor *)obj;
  static char *names[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *device = Py_None,
           *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", names, &stream,
                                   &max_version, &device, &copy))
    return NULL;
  if (sl_py_check_alive(self)) return NULL;
  if (copy == Py_True) {
    PyErr_SetString(PyExc_BufferError,
                    "scatterlab tensors are exported without copies "
                    "(copy=True refused)");
    return NULL;
  }
  sl_py_dl_block *b = calloc(1, sizeof *b);
  if (!b) return PyErr_NoMemory();
  const sl_py_dtype_row *dt = &sl_py_dtypes[self->t.dtype];
  DLTensor *dl = &b->managed.dl_tensor;
  dl->data = sl_py_data(self);
  dl->device = (DLDevice){kDLCPU, 0};
  dl->ndim = self->t.ndim;
  dl->dtype = (DLDataType){dt->dl_code, dt->dl_bits, 1};
  memcpy(b->shape, self->t.shape, sizeof b->shape);
  memcpy(b->strides, self->t.strides, sizeof b->strides);
  dl->shape = b->shape;
  dl->strides = b->strides;
  b->managed.manager_ctx = obj;
  b->managed.deleter = sl_py_dl_deleter;
  Py_INCREF(obj);
  PyObject *cap =
      PyCapsule_New(&b->managed, "dltensor", sl_py_capsule_destructor);
  if (!cap) sl_py_dl_deleter(&b->managed);
  return cap;
}

static PyObject *sl_py_dlpack_device(PyObject *obj, PyObject *unused) {
  (void)obj;
  (void)unused;
  return Py_BuildValue("(ii)", kDLCPU, 0);
}

/* --- Buffer protocol --------------------------------------------------- */

static int sl_py_c_contiguous(const sl_py_tensor *self) {
  int64_t want = 1;
  for (int d = self->t.ndim - 1; d >= 0; --d) {
    if (self->t.shape[d] != 1 && self->t.strides[d] != want) return 0;
    want *= self->t.shape[d];
  }
  return 1;
}

static int sl_py_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
  sl_py_tensor *self = (sl_py_tensor *)obj;
  if (sl_py_check_alive(self)) return -1;
  const sl_py_dtype_row *dt = &sl_py_dtypes[self->t.dtype];
  if (!dt->format) {
    PyErr_Format(PyExc_BufferError,
                 "dtype %s has no buffer-protocol format; use __dlpack__",
                 dt->name);
    return -1;
  }
  /* A consumer that takes no strides gets only a C-contiguous tensor. */
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !sl_py_c_contiguous(self)) {
    PyErr_SetString(PyExc_BufferError,
                    "scatterlab tensor is not C-contiguous: ask for strides");
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && !self->writable) {
    PyErr_SetString(PyExc_BufferError,
                    "scatterlab input tensors are read-only");
    return -1;
  }
  /* shape and strides (bytes) live in the view's internal block. */
  Py_ssize_t *dims = PyMem_Malloc(2 * SL_MAX_DIMS * sizeof *dims);
  if (!dims) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t item = (Py_ssize_t)sl_provider_dtype_size(self->t.dtype), len = 1;
  for (int d = 0; d < self->t.ndim; ++d) {
    dims[d] = (Py_ssize_t)self->t.shape[d];
    dims[SL_MAX_DIMS + d] = (Py_ssize_t)self->t.strides[d] * item;
    len *= dims[d];
  }
  *view = (Py_buffer){.buf = sl_py_data(self),
                      .obj = obj,
                      .len = len * item,
                      .itemsize = item,
                      .readonly = !self->writable,
                      .ndim = self->t.ndim,
                      .format = (char *)dt->format,
                      .shape = dims,
                      .strides = dims + SL_MAX_DIMS,
                      .internal = dims};
  Py_INCREF(obj);
  return 0;
}

static void sl_py_releasebuffer(PyObject *obj, Py_buffer *view) {
  (void)obj;
  PyMem_Free(view->internal);
}

/* --- Attributes and the type ------------------------------------------- */

static PyObject *sl_py_tuple(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int d = 0; t && d < n; ++d)
    PyTuple_SET_ITEM(t, d, PyLong_FromLongLong((long long)v[d]));
  return t;
}

static PyObject *sl_py_get_shape(PyObject *obj, void *unused) {
  (void)unused;
  return sl_py_tuple(((sl_py_tensor *)obj)->t.shape,
                     ((sl_py_tensor *)obj)->t.ndim);
}
static PyObject *sl_py_get_strides(PyObject *obj, void *unused) {
  (void)unused;
  return sl_py_tuple(((sl_py_tensor *)obj)->t.strides,
                     ((sl_py_tensor *)obj)->t.ndim);
}
static PyObject *sl_py_get_dtype(PyObject *obj, void *unused) {
  (void)unused;
  return PyUnicode_FromString(
      sl_py_dtypes[((sl_py_tensor *)obj)->t.dtype].name);
}
static PyObject *sl_py_get_writable(PyObject *obj, void *unused) {
  (void)unused;
  return PyBool_FromLong(((sl_py_tensor *)obj)->writable);
}

static PyGetSetDef sl_py_getset[] = {
    {"shape", sl_py_get_shape, NULL, "tuple of extents", NULL},
    {"strides", sl_py_get_strides, NULL, "tuple of strides in elements", NULL},
    {"dtype", sl_py_get_dtype, NULL, "scatterlab's dtype name", NULL},
    {"writable", sl_py_get_writable, NULL, "an output of the call", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef sl_py_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))sl_py_dlpack,
     METH_VARARGS | METH_KEYWORDS, "a 'dltensor' capsule, no copy"},
    {"__dlpack_device__", sl_py_dlpack_device, METH_NOARGS, "(kDLCPU, 0)"},
    {NULL, NULL, 0, NULL}};

static PyBufferProcs sl_py_as_buffer = {sl_py_getbuffer, sl_py_releasebuffer};

static PyTypeObject sl_py_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scatterlab_bridge.Tensor",
    .tp_basicsize = sizeof(sl_py_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A view of one tensor of a scatterlab call (py_tensor.h).",
    .tp_methods = sl_py_methods,
    .tp_getset = sl_py_getset,
    .tp_as_buffer = &sl_py_as_buffer,
};

int sl_py_tensor_init(void) { return PyType_Ready(&sl_py_tensor_type); }

PyObject *sl_py_tensor_new(const sl_tensor *t, int writable) {
  if ((unsigned)t->dtype >= SL_DTYPE_COUNT || t->ndim < 0 ||
      t->ndim > SL_MAX_DIMS) {
    PyErr_SetString(PyExc_ValueError, "scatterlab tensor out of range");
    return NULL;
  }
  sl_py_tensor *self = PyObject_New(sl_py_tensor, &sl_py_tensor_type);
  if (!self) return NULL;
  self->t = *t;
  self->writable = writable;
  self->alive = 1;
  return (PyObject *)self;
}

void sl_py_tensor_expire(PyObject *tensor) {
  if (tensor && Py_IS_TYPE(tensor, &sl_py_tensor_type))
    ((sl_py_tensor *)tensor)->alive = 0;
}
