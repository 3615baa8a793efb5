/*
 * The Python provider bridge: a provider (sl/sl_provider.h) whose variants
 * are Python callables. `scatterlab --provider py:NAME` loads this library
 * with SCATTERLAB_PY_MODULE=NAME (harness/engine/providers.c); its entry
 * point starts CPython once, imports NAME (from the working folder,
 * PYTHONPATH, and the folder of the helper module scatterlab_bridge), and
 * turns NAME.VARIANTS into the provider's table (py_table.c). Each call
 * hands the variant its tensors as views (py_tensor.c), never copies.
 *
 * A kernel function has no pointer of its own (sl_kernel_fn), so each row
 * gets one of SL_PY_MAX_VARIANTS fixed trampolines, which knows its slot.
 * The library is linked with -z nodelete: CPython cannot be unloaded and
 * started again in one process.
 */
#define _GNU_SOURCE
#include "py_bridge.h" /* Python.h first, as CPython asks */
#include "py_tensor.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SL_PY_HELPER_BUILD_DIR /* providers/python/CMakeLists.txt */
#define SL_PY_HELPER_BUILD_DIR ""
#endif
#ifndef SL_PY_HELPER_REL_DIR /* from the installed library's folder */
#define SL_PY_HELPER_REL_DIR "../share/scatterlab/python"
#endif

#define SL_PY_MAX_VARIANTS 256

typedef struct {
  PyObject *fn;
  sl_op op;
} sl_py_slot;

static sl_py_slot sl_py_slots[SL_PY_MAX_VARIANTS];
static size_t sl_py_n_slots;
static PyObject *sl_py_namespace;   /* types.SimpleNamespace */
static PyObject *sl_py_unsupported; /* scatterlab_bridge.Unsupported or NULL */

static sl_status sl_py_call(size_t slot, sl_ctx *ctx, sl_call *call);

/* The trampolines: 16 x 16 functions, each calling sl_py_call(its slot). */
/* Kept by hand: clang-format's layout of these lines does not settle. */
/* clang-format off */
#define SL_PY_16(X, h)                                                         \
  X(h, 0) X(h, 1) X(h, 2) X(h, 3) X(h, 4) X(h, 5) X(h, 6) X(h, 7)              \
  X(h, 8) X(h, 9) X(h, 10) X(h, 11) X(h, 12) X(h, 13) X(h, 14) X(h, 15)
#define SL_PY_256(X)                                                           \
  SL_PY_16(X, 0) SL_PY_16(X, 1) SL_PY_16(X, 2) SL_PY_16(X, 3)                  \
  SL_PY_16(X, 4) SL_PY_16(X, 5) SL_PY_16(X, 6) SL_PY_16(X, 7)                  \
  SL_PY_16(X, 8) SL_PY_16(X, 9) SL_PY_16(X, 10) SL_PY_16(X, 11)                \
  SL_PY_16(X, 12) SL_PY_16(X, 13) SL_PY_16(X, 14) SL_PY_16(X, 15)
/* clang-format on */
#define SL_PY_TRAMPOLINE(h, l)                                                 \
  static sl_status sl_py_tramp_##h##_##l(sl_ctx *ctx, sl_call *call) {         \
    return sl_py_call((h)*16 + (l), ctx, call);                                \
  }
SL_PY_256(SL_PY_TRAMPOLINE)
#define SL_PY_TRAMPOLINE_PTR(h, l) sl_py_tramp_##h##_##l,
static const sl_kernel_fn sl_py_trampolines[SL_PY_MAX_VARIANTS] = {
    SL_PY_256(SL_PY_TRAMPOLINE_PTR)};

/* --- Python's messages ------------------------------------------------- */

/* Cuts s (NUL-terminated, at most len-1 bytes) back to whole UTF-8
 * characters: snprintf may have cut one in two. */
static void sl_py_utf8_trim(char *s) {
  size_t n = strlen(s), k = n;
  while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) --k;
  if (k == 0) return;
  unsigned char lead = (unsigned char)s[k - 1];
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n - (k - 1) < want) s[k - 1] = '\0';
}

/* The pending exception as one line, "TypeName: text", into buf; clears
 * it. */
static void sl_py_take_error(char *buf, size_t len) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  PyObject *bytes =
      text ? PyUnicode_AsEncodedString(text, "utf-8", "backslashreplace")
           : NULL;
  PyErr_Clear();
  const char *name = type ? ((PyTypeObject *)type)->tp_name : "error";
  const char *dot = strrchr(name, '.');
  snprintf(buf, len, "%s%s%s", dot ? dot + 1 : name,
           bytes && PyBytes_GET_SIZE(bytes) ? ": " : "",
           bytes ? PyBytes_AS_STRING(bytes) : "");
  for (char *p = buf; *p; ++p)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
  sl_py_utf8_trim(buf);
  Py_XDECREF(bytes);
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
}

/* A failure in the entry point: the loader's message says only that the
 * entry returned NULL, so this line says why. */
static void sl_py_report(const char *module, const char *what) {
  char msg[1024];
  sl_py_take_error(msg, sizeof msg);
  fprintf(stderr, "scatterlab python bridge: module %s: %s: %s\n", module, what,
          msg);
}

/* --- One call ---------------------------------------------------------- */

/* call's parameters as keyword arguments of the namespace. */
static int sl_py_params(PyObject *kw, const sl_call *call) {
  const sl_params *p = &call->p;
  PyObject *dims = PyTuple_New(p->ndims > 0 ? p->ndims : 0);
  for (int d = 0; dims && d < p->ndims; ++d)
    PyTuple_SET_ITEM(dims, d, PyLong_FromLongLong((long long)p->dims[d]));
  const char *reduces[] = {
#define SL_PY_REDUCE_NAME(e, name) #name,
      SL_REDUCE_MAP(SL_PY_REDUCE_NAME)
#undef SL_PY_REDUCE_NAME
  };
  /* Named apart from every slot: select_scatter's slot is `value`, most
   * ops' `index`. */
  PyObject *values = Py_BuildValue(
      "{s:L,s:s,s:O,s:N,s:L,s:O,s:d,s:L,s:O}", "dim", (long long)p->dim,
      "reduce",
      (unsigned)p->reduce < SL_REDUCE_COUNT ? reduces[p->reduce] : "?",
      "include_self", p->include_self ? Py_True : Py_False, "dims",
      dims ? dims : Py_None, "select_index", (long long)p->index, "has_value",
      p->has_value ? Py_True : Py_False, "scalar", p->value, "iscalar",
      (long long)p->ivalue, "offsets",
      call->segment.offsets ? Py_True : Py_False);
  if (!dims || !values || PyDict_Update(kw, values)) {
    Py_XDECREF(values);
    return -1;
  }
  Py_DECREF(values);
  return 0;
}

/* The call as a namespace: one Tensor per slot (inputs read-only), the
 * parameters, and `inputs`/`outputs` tuples. tensors[] gets the views so
 * that the caller can expire them. */
static PyObject *sl_py_make_call(const sl_py_slot *s, sl_call *call,
                                 PyObject **tensors) {
  const sl_py_op *op = &sl_py_ops[s->op];
  int n = op->n_in + 1;
  PyObject *kw = PyDict_New(), *ns = NULL;
  PyObject *in = PyTuple_New(op->n_in), *out = PyTuple_New(1);
  int ok = kw && in && out;
  for (int a = 0; ok && a < n; ++a) {
    tensors[a] = sl_py_tensor_new(&call->arg[a], a >= op->n_in);
    ok = tensors[a] && !PyDict_SetItemString(kw, op->slots[a], tensors[a]);
    if (ok) {
      Py_INCREF(tensors[a]);
      PyTuple_SET_ITEM(a < op->n_in ? in : out, a < op->n_in ? a : 0,
                       tensors[a]);
    }
  }
  ok = ok && !PyDict_SetItemString(kw, "inputs", in) &&
       !PyDict_SetItemString(kw, "outputs", out) && !sl_py_params(kw, call);
  PyObject *empty = ok ? PyTuple_New(0) : NULL;
  if (empty) ns = PyObject_Call(sl_py_namespace, empty, kw);
  Py_XDECREF(empty);
  Py_XDECREF(in);
  Py_XDECREF(out);
  Py_XDECREF(kw);
  return ns;
}

/* The status an Unsupported exception names (its `status` attribute, an
 * sl_status name), invalid_argument when it names none; the exception
 * stays pending. */
static int sl_py_refusal_status(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *attr = value ? PyObject_GetAttrString(value, "status") : NULL;
  const char *name =
      attr && PyUnicode_Check(attr) ? PyUnicode_AsUTF8(attr) : NULL;
  int st = name ? sl_py_status_from_name(name) : -1;
  Py_XDECREF(attr);
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
  return st > 0 ? st : SL_STATUS_INVALID_ARGUMENT;
}

/* The status of the pending exception: a scatterlab_bridge.Unsupported is
 * a refusal with its own status, anything else (SystemExit included) is
 * internal. The message is "python TypeName: text". */
static sl_status sl_py_fail(sl_ctx *ctx) {
  int refusal = sl_py_unsupported && PyErr_ExceptionMatches(sl_py_unsupported);
  int st = refusal ? sl_py_refusal_status() : SL_STATUS_INTERNAL;
  char msg[SL_MSG_LEN - 8];
  sl_py_take_error(msg, sizeof msg);
  return sl_provider_fail(ctx, (sl_status)st, "python %s", msg);
}

/* Python threads alive (thread states). The worker's guard forgives the
 * threads of a Python runtime's first call in a worker (XLA's pools,
 * harness/engine/worker.c); a Python thread left running is caught here,
 * on every call. GIL held. */
static int sl_py_thread_count(void) {
  int n = 0;
  PyThreadState *t = PyInterpreterState_ThreadHead(PyInterpreterState_Get());
  for (; t; t = PyThreadState_Next(t)) ++n;
  return n;
}

static sl_status sl_py_run(const sl_py_slot *s, sl_ctx *ctx, sl_call *call) {
  PyObject *tensors[SL_MAX_ARGS] = {NULL};
  const int threads = sl_py_thread_count();
  PyObject *ns = sl_py_make_call(s, call, tensors);
  PyObject *result = ns ? PyObject_CallOneArg(s->fn, ns) : NULL;
  for (int a = 0; a < SL_MAX_ARGS; ++a) {
    sl_py_tensor_expire(tensors[a]);
    Py_XDECREF(tensors[a]);
  }
  Py_XDECREF(ns);
  if (!result) return sl_py_fail(ctx);
  const int returned_value = result != Py_None;
  const int left = sl_py_thread_count() - threads;
  if (returned_value)
    PyErr_Format(PyExc_TypeError,
                 "the variant returned %.60s, expected None (a variant "
                 "writes its answer into call.out)",
                 Py_TYPE(result)->tp_name);
  else if (left > 0)
    PyErr_Format(PyExc_RuntimeError,
                 "the variant left %d Python thread%s running after it "
                 "returned",
                 left, left == 1 ? "" : "s");
  Py_DECREF(result);
  return returned_value || left > 0 ? sl_py_fail(ctx) : SL_STATUS_OK;
}

static sl_status sl_py_call(size_t slot, sl_ctx *ctx, sl_call *call) {
  if (slot >= sl_py_n_slots)
    return sl_provider_fail(ctx, SL_STATUS_INTERNAL,
                            "python bridge: slot %zu has no variant", slot);
  PyGILState_STATE gil = PyGILState_Ensure();
  sl_status st = sl_py_run(&sl_py_slots[slot], ctx, call);
  PyGILState_Release(gil);
  return st;
}

/* --- Starting CPython, reading a module -------------------------------- */

/* Appends dir to sys.path (at the front when first), if it exists. */
static void sl_py_path_add(const char *dir, int first) {
  PyObject *path = PySys_GetObject("path"); /* borrowed */
  PyObject *d = dir[0] ? PyUnicode_FromString(dir) : NULL;
  if (path && d && access(dir, R_OK) == 0)
    first ? PyList_Insert(path, 0, d) : PyList_Append(path, d);
  Py_XDECREF(d);
  PyErr_Clear();
}

/* An activated virtual environment's packages (VIRTUAL_ENV, which
 * `activate` sets): an embedded CPython finds its prefix from libpython,
 * never from a venv's pyvenv.cfg. site.addsitedir reads its .pth files
 * too. The venv must be of this Python's version (its extension modules
 * are built for it): another version's folder is not there. */
static void sl_py_venv(void) {
  const char *venv = getenv("VIRTUAL_ENV");
  char dir[PATH_MAX];
  if (!venv || !venv[0] ||
      snprintf(dir, sizeof dir, "%s/lib/python%d.%d/site-packages", venv,
               PY_MAJOR_VERSION, PY_MINOR_VERSION) >= (int)sizeof dir ||
      access(dir, R_OK) != 0)
    return;
  PyObject *site = PyImport_ImportModule("site");
  PyObject *r = site ? PyObject_CallMethod(site, "addsitedir", "s", dir) : NULL;
  Py_XDECREF(r);
  Py_XDECREF(site);
  PyErr_Clear();
}

/* The module search path: the working folder first (then PYTHONPATH, which
 * CPython reads), then an activated venv's packages, then the helper
 * module's folder: the source tree's in a build,
 * <libdir>/../share/scatterlab/python when installed. */
static void sl_py_paths(void) {
  char cwd[PATH_MAX], self[PATH_MAX + 64];
  if (getcwd(cwd, sizeof cwd)) sl_py_path_add(cwd, 1);
  sl_py_venv();
  sl_py_path_add(SL_PY_HELPER_BUILD_DIR, 0);
  Dl_info info;
  if (dladdr((void *)sl_py_paths, &info) && info.dli_fname) {
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    snprintf(self, sizeof self, "%s/%s", dirname(lib), SL_PY_HELPER_REL_DIR);
    sl_py_path_add(self, 0);
  }
}

/* Starts CPython once per process, without its signal handlers (the
 * harness owns SIGINT and SIGTERM), and leaves the GIL released. */
static int sl_py_start(void) {
  if (sl_py_namespace) return 0;
  /* numpy's BLAS would start a thread pool at import: a pool left running
   * after a call fails the variant (worker_guard.c). A user's value wins. */
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  setenv("MKL_NUM_THREADS", "1", 0);
  /* libpython came in RTLD_LOCAL with this library; extension modules
   * (numpy's) resolve Py* symbols globally, so promote it. */
  Dl_info info;
  if (dladdr((void *)Py_InitializeEx, &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  Py_InitializeEx(0);
  sl_py_paths();
  PyObject *types = PyImport_ImportModule("types");
  sl_py_namespace =
      types ? PyObject_GetAttrString(types, "SimpleNamespace") : NULL;
  Py_XDECREF(types);
  PyObject *helper = PyImport_ImportModule(SL_PY_HELPER);
  sl_py_unsupported =
      helper ? PyObject_GetAttrString(helper, "Unsupported") : NULL;
  Py_XDECREF(helper);
  if (!sl_py_unsupported) sl_py_report(SL_PY_HELPER, "cannot import");
  int rc = sl_py_namespace && sl_py_tensor_init() == 0 ? 0 : -1;
  if (rc) sl_py_report("types", "cannot start");
  PyEval_SaveThread();
  return rc;
}

/* The provider's name: module.PROVIDER, or the module's last component. */
static const char *sl_py_provider_name(PyObject *module, const char *name) {
  PyObject *own = PyObject_GetAttrString(module, "PROVIDER");
  PyErr_Clear();
  const char *dot = strrchr(name, '.');
  const char *s = own && PyUnicode_Check(own) ? PyUnicode_AsUTF8(own)
                  : dot                       ? dot + 1
                                              : name;
  char *copy = strndup(s ? s : name, SL_PROVIDER_NAME_MAX);
  Py_XDECREF(own);
  return copy;
}

/* module.VERSION, else the Python version, for the reports. */
static const char *sl_py_version(PyObject *module) {
  PyObject *v = PyObject_GetAttrString(module, "VERSION");
  PyErr_Clear();
  PyObject *text = v ? PyObject_Str(v) : NULL;
  const char *s = text ? PyUnicode_AsUTF8(text) : NULL;
  char buf[64];
  snprintf(buf, sizeof buf, "%s%spython %s", s ? s : "", s ? " " : "",
           PY_VERSION);
  PyErr_Clear();
  Py_XDECREF(text);
  Py_XDECREF(v);
  return strdup(buf);
}

/* Imports `name` and builds its table; NULL with a Python error. */
static const sl_provider *sl_py_load(const char *name) {
  PyObject *module = PyImport_ImportModule(name);
  if (!module) return NULL;
  size_t cap = SL_PY_MAX_VARIANTS - sl_py_n_slots, n = 0;
  sl_py_variant *rows = calloc(cap ? cap : 1, sizeof *rows);
  sl_provider *t = calloc(1, sizeof *t);
  sl_provider_variant *vars = calloc(cap ? cap : 1, sizeof *vars);
  if (!rows || !t || !vars || sl_py_read_table(module, rows, cap, &n)) {
    if (!PyErr_Occurred()) PyErr_NoMemory();
    free(rows), free(t), free(vars);
    Py_DECREF(module);
    return NULL;
  }
  for (size_t k = 0; k < n; ++k) {
    size_t slot = sl_py_n_slots++;
    sl_py_slots[slot] = (sl_py_slot){rows[k].fn, rows[k].row.op};
    vars[k] = rows[k].row;
    vars[k].fn = sl_py_trampolines[slot];
  }
  free(rows);
  *t = (sl_provider){.abi_version = SL_PROVIDER_ABI_VERSION,
                     .size = sizeof *t,
                     .name = sl_py_provider_name(module, name),
                     .version = sl_py_version(module),
                     .n_variants = n,
                     .variants = vars};
  Py_DECREF(module); /* sys.modules keeps it */
  return t;
}

SL_PROVIDER_ENTRY {
  const char *name = getenv(SL_PY_MODULE_ENV);
  if (!name || !name[0]) {
    fprintf(stderr,
            "scatterlab python bridge: %s: expected the name of the module "
            "of variants (load the bridge as --provider py:MODULE), got "
            "none\n",
            SL_PY_MODULE_ENV);
    return NULL;
  }
  if (sl_py_start()) return NULL;
  PyGILState_STATE gil = PyGILState_Ensure();
  const sl_provider *t = sl_py_load(name);
  if (!t) sl_py_report(name, "cannot load its variants");
  PyGILState_Release(gil);
  return t;
}
