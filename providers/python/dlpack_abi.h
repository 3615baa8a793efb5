/*
 * The DLPack structs the Python bridge hands to Python consumers, written
 * from the DLPack specification (https://dmlc.github.io/dlpack/latest/
 * c_api.html, "C API", the unversioned DLManagedTensor of DLPack 0.x that
 * the Python protocol's "dltensor" capsule carries: https://dmlc.github.io/
 * dlpack/latest/python_spec.html). Only the few definitions the bridge
 * needs, with the spec's names and numeric values, so that the layout is
 * the one every consumer (numpy, PyTorch, JAX, CuPy) reads.
 */
#ifndef SL_PY_DLPACK_ABI_H
#define SL_PY_DLPACK_ABI_H

#include <stdint.h>

/* DLDeviceType: the bridge hands host memory only. */
enum { kDLCPU = 1 };

typedef struct {
  int32_t device_type; /* a DLDeviceType value (an enum of int size) */
  int32_t device_id;
} DLDevice;

/* DLDataTypeCode values. */
enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};

typedef struct {
  uint8_t code;   /* a DLDataTypeCode */
  uint8_t bits;   /* bits of one lane */
  uint16_t lanes; /* 1: scalar elements */
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements, as scatterlab's; NULL: compact row-major */
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#endif
