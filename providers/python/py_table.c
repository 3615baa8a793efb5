/* Reading a Python module's VARIANTS table into provider rows
 * (py_bridge.h). Each row is a dict (scatterlab_bridge.variant builds it):
 *   op, name, fn                      required
 *   dtypes         ["f32", ...] or "all"          default: all
 *   index_dtypes   ["i32", "i64"]                 default: both
 *   reduces        ["sum", ...]                   default: none
 *   include_self   [True, False]                  default: none
 *   max_rank       0..8                           default: 8
 *   layouts        ["strided", "broadcast"]       default: contiguous only
 *   deterministic, checks_index_values  bool     default: False
 */
#include "py_bridge.h" /* Python.h first, as CPython asks */
#include "py_tensor.h"

#include <string.h>

const sl_py_op sl_py_ops[SL_OP_COUNT] = {
#define SL_PY_OP_ROW(op, n, a, b, c, d) [op] = {n, {a, b, c, d}},
    SL_PY_OPS(SL_PY_OP_ROW)
#undef SL_PY_OP_ROW
};

static const char *const sl_py_status_names[] = {
#define SL_PY_STATUS_NAME(e, name, msg) #name,
    SL_STATUS_MAP(SL_PY_STATUS_NAME)
#undef SL_PY_STATUS_NAME
};
static const char *const sl_py_op_names[] = {
#define SL_PY_OP_NAME(e, name) #name,
    SL_OP_MAP(SL_PY_OP_NAME)
#undef SL_PY_OP_NAME
};
static const char *const sl_py_reduce_names[] = {
#define SL_PY_REDUCE_NAME(e, name) #name,
    SL_REDUCE_MAP(SL_PY_REDUCE_NAME)
#undef SL_PY_REDUCE_NAME
};

static int sl_py_lookup(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

int sl_py_status_from_name(const char *name) {
  return sl_py_lookup(sl_py_status_names, SL_STATUS_COUNT, name);
}

/* The words a row may use for each mask field. */
static const char *const sl_py_layout_names[] = {"strided", "broadcast"};

typedef int (*sl_py_word_fn)(const char *word);
static int sl_py_dtype_word(const char *w) { return sl_py_dtype_from_name(w); }
static int sl_py_reduce_word(const char *w) {
  return sl_py_lookup(sl_py_reduce_names, SL_REDUCE_COUNT, w);
}
static int sl_py_layout_word(const char *w) {
  return sl_py_lookup(sl_py_layout_names, 2, w);
}

/* A list of words into a bit mask; "all" gives `all`. */
static int sl_py_mask(PyObject *row, const char *key, sl_py_word_fn word,
                      uint32_t all, uint32_t dflt, uint32_t *mask) {
  PyObject *v = PyDict_GetItemString(row, key);
  *mask = dflt;
  if (!v) return 0;
  if (PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "all") == 0) {
    *mask = all;
    return 0;
  }
  PyObject *seq = PySequence_Fast(v, "");
  if (!seq || PyUnicode_Check(v)) {
    Py_XDECREF(seq);
    PyErr_Format(PyExc_TypeError,
                 "%s: expected a list of names or \"all\", got %R", key, v);
    return -1;
  }
  *mask = 0;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    const char *w = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
    int bit = w ? word(w) : -1;
    if (bit < 0) {
      PyErr_Format(PyExc_ValueError, "%s: unknown name %R", key, item);
      Py_DECREF(seq);
      return -1;
    }
    *mask |= 1u << (unsigned)bit;
  }
  Py_DECREF(seq);
  return 0;
}

/* include_self: a list of bools. */
static int sl_py_include_self(PyObject *row, uint32_t *mask) {
  PyObject *v = PyDict_GetItemString(row, "include_self");
  PyObject *seq = v ? PySequence_Fast(v, "include_self: expected a list of "
                                         "bools")
                    : NULL;
  *mask = 0;
  if (!v) return 0;
  if (!seq) return -1;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i)
    *mask |= PyObject_IsTrue(PySequence_Fast_GET_ITEM(seq, i))
                 ? SL_INCLUDE_SELF_TRUE
                 : SL_INCLUDE_SELF_FALSE;
  Py_DECREF(seq);
  return 0;
}

static const char *const sl_py_row_keys[] = {"op",
                                             "name",
                                             "fn",
                                             "dtypes",
                                             "index_dtypes",
                                             "reduces",
                                             "include_self",
                                             "max_rank",
                                             "layouts",
                                             "deterministic",
                                             "checks_index_values"};

/* A key the bridge does not know is a typo, not an option. */
static int sl_py_known_keys(PyObject *row) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  int n = (int)(sizeof sl_py_row_keys / sizeof *sl_py_row_keys);
  while (PyDict_Next(row, &pos, &key, &value)) {
    const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (!k || sl_py_lookup(sl_py_row_keys, n, k) < 0) {
      PyErr_Format(PyExc_KeyError, "unknown key %R", key);
      return -1;
    }
  }
  return 0;
}

static int sl_py_flag(PyObject *row, const char *key, unsigned bit,
                      unsigned *flags) {
  PyObject *v = PyDict_GetItemString(row, key);
  int on = v ? PyObject_IsTrue(v) : 0;
  if (on < 0) return -1;
  if (on) *flags |= bit;
  return 0;
}

/* A string field, copied (the table outlives the module's objects). */
static const char *sl_py_string(PyObject *row, const char *key) {
  PyObject *v = PyDict_GetItemString(row, key);
  const char *s = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
  if (!s) {
    PyErr_Format(PyExc_TypeError, "%s: expected a string, got %R", key,
                 v ? v : Py_None);
    return NULL;
  }
  char *copy = strdup(s);
  if (!copy) PyErr_NoMemory();
  return copy;
}

static int sl_py_read_row(PyObject *row, sl_py_variant *out) {
  sl_provider_variant *r = &out->row;
  memset(out, 0, sizeof *out);
  if (!PyDict_Check(row)) {
    PyErr_Format(PyExc_TypeError, "expected a dict, got %R", row);
    return -1;
  }
  if (sl_py_known_keys(row)) return -1;
  const char *op = sl_py_string(row, "op");
  int op_id = op ? sl_py_lookup(sl_py_op_names, SL_OP_COUNT, op) : -1;
  if (op && (op_id < 0 || !sl_py_ops[op_id].n_in))
    PyErr_Format(PyExc_ValueError,
                 "op: expected gather, gather_nd, scatter, scatter_reduce, "
                 "scatter_nd, index_reduce, select_scatter or masked_scatter "
                 "(the ops the bridge hands to Python), got '%s'",
                 op);
  free((void *)op);
  if (op_id < 0 || !sl_py_ops[op_id].n_in) return -1;
  r->op = (sl_op)op_id;
  r->device = SL_DEVICE_CPU;
  if (!(r->name = sl_py_string(row, "name"))) return -1;
  out->fn = PyDict_GetItemString(row, "fn");
  if (!out->fn || !PyCallable_Check(out->fn)) {
    PyErr_SetString(PyExc_TypeError, "fn: expected a callable");
    return -1;
  }
  Py_INCREF(out->fn);
  PyObject *rank = PyDict_GetItemString(row, "max_rank");
  r->caps.max_rank = rank ? (int32_t)PyLong_AsLong(rank) : SL_MAX_DIMS;
  if (PyErr_Occurred()) return -1;
  sl_caps *c = &r->caps;
  if (sl_py_mask(row, "dtypes", sl_py_dtype_word, SL_DTYPES_ALL, SL_DTYPES_ALL,
                 &c->dtypes) ||
      sl_py_mask(row, "index_dtypes", sl_py_dtype_word, SL_INDEX_DTYPES_ALL,
                 SL_INDEX_DTYPES_ALL, &c->index_dtypes) ||
      sl_py_mask(row, "reduces", sl_py_reduce_word, 0, 0, &c->reduces) ||
      sl_py_mask(row, "layouts", sl_py_layout_word, SL_LAYOUTS_ALL, 0,
                 &c->layouts) ||
      sl_py_include_self(row, &c->include_self) ||
      sl_py_flag(row, "deterministic", SL_DETERMINISTIC, &r->flags) ||
      sl_py_flag(row, "checks_index_values", SL_CHECKS_INDEX_VALUES, &r->flags))
    return -1;
  return 0;
}

int sl_py_read_table(PyObject *module, sl_py_variant *rows, size_t cap,
                     size_t *n) {
  PyObject *table = PyObject_GetAttrString(module, "VARIANTS");
  PyObject *seq =
      table ? PySequence_Fast(table, "VARIANTS: expected a list of dicts")
            : NULL;
  Py_XDECREF(table);
  if (!seq) return -1;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
  int rc = 0;
  if ((size_t)count > cap) {
    PyErr_Format(PyExc_ValueError,
                 "VARIANTS: expected at most %zu rows in this process (the "
                 "bridge's slots), got %zd",
                 cap, count);
    rc = -1;
  }
  for (Py_ssize_t i = 0; !rc && i < count; ++i)
    if (sl_py_read_row(PySequence_Fast_GET_ITEM(seq, i), &rows[i])) {
      /* Name the row in front of the field's message. */
      PyObject *type, *value, *tb;
      PyErr_Fetch(&type, &value, &tb);
      PyErr_Format(PyExc_ValueError, "VARIANTS[%zd]: %S", i,
                   value ? value : Py_None);
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(tb);
      rc = -1;
    }
  Py_DECREF(seq);
  *n = rc ? 0 : (size_t)count;
  return rc;
}
