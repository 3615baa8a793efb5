/*
 * The Python bridge's shared pieces: the ops it hands to Python with the
 * names of their slots, and the table reader (py_table.c).
 */
#ifndef SL_PY_BRIDGE_H
#define SL_PY_BRIDGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sl/sl_provider.h"

/* The module named on the command line (--provider py:NAME). */
#define SL_PY_MODULE_ENV "SCATTERLAB_PY_MODULE"
/* The helper module shipped with the bridge (Unsupported, variant). */
#define SL_PY_HELPER "scatterlab_bridge"

/* The ops a Python variant may implement, with their slots in sl_call order
 * (core/src/catalog.c's names: a provider cannot call sl_op_get), inputs
 * then the one output. The backward ops and dynamic_scatter (several
 * outputs) are not bridged at this version. */
#define SL_PY_OPS(X)                                                           \
  X(SL_OP_GATHER, 2, "x", "index", "out", NULL)                                \
  X(SL_OP_GATHER_ND, 2, "x", "index", "out", NULL)                             \
  X(SL_OP_SCATTER, 3, "x", "index", "src", "out")                              \
  X(SL_OP_SCATTER_REDUCE, 3, "x", "index", "src", "out")                       \
  X(SL_OP_SCATTER_ND, 3, "x", "index", "updates", "out")                       \
  X(SL_OP_INDEX_REDUCE, 3, "x", "index", "src", "out")                         \
  X(SL_OP_SELECT_SCATTER, 2, "x", "value", "out", NULL)                        \
  X(SL_OP_MASKED_SCATTER, 3, "x", "mask", "source", "out")                     \
  X(SL_OP_SEGMENT_REDUCE, 2, "data", "lengths", "out", NULL)

typedef struct {
  int n_in; /* 0: the op is not bridged */
  const char *slots[4];
} sl_py_op;

extern const sl_py_op sl_py_ops[SL_OP_COUNT];

/* One variant read from the module: its row and its callable. */
typedef struct {
  sl_provider_variant row;
  PyObject *fn;
} sl_py_variant;

/* Reads module.VARIANTS into rows[0..*n) (at most cap), the kernel of row
 * k being fns[first + k]. 0, or -1 with a Python error naming the row and
 * the field. GIL held. */
int sl_py_read_table(PyObject *module, sl_py_variant *rows, size_t cap,
                     size_t *n);

/* The status of an sl_status name ("invalid_argument"), or -1. */
int sl_py_status_from_name(const char *name);

#endif
