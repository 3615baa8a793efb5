/* Loading kernel providers and checking their tables (providers.h). */
#include "providers.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clean_text.h"
#include "cli.h"
#include "elf_intact.h"
#include "runner.h"
#include "sha256.h"
#include "variant_call.h"

#ifndef SL_KERNELS_SONAME /* harness/CMakeLists.txt: carries the ABI */
#error "SL_KERNELS_SONAME: expected the kernels library's soname"
#endif
#ifndef SL_KERNELS_BUILD_DIR
#define SL_KERNELS_BUILD_DIR ""
#endif
/* Where the installed CLI finds the installed library: bindir to libdir. */
#ifndef SL_KERNELS_REL_LIBDIR
#define SL_KERNELS_REL_LIBDIR "../lib"
#endif

/* Most variants one provider may declare: a bound on a table that could be
 * garbage, far above any real library. */
#define SL__MAX_PROVIDER_VARIANTS 4096

static sl_provider_loaded *sl__prov;
static void **sl__handles;
static size_t sl__n_prov;
static sl_hvariant *sl__var;
static size_t sl__n_var;

size_t sl_provider_count(void) { return sl__n_prov; }

size_t sl_providers_release_scratch(void) {
  size_t bytes = 0;
  for (size_t i = 0; i < sl__n_prov; ++i)
    if (sl__prov[i].release_scratch) bytes += sl__prov[i].release_scratch();
  return bytes;
}

const sl_provider_loaded *sl_provider_at(size_t i) {
  return i < sl__n_prov ? &sl__prov[i] : NULL;
}
const char *sl_provider_sha256(size_t i, char *err, size_t errlen) {
  if (i >= sl__n_prov) return NULL;
  sl_provider_loaded *pl = &sl__prov[i];
  if (!pl->sha256[0] && sl_sha256_file(pl->path, pl->sha256, err, errlen))
    return NULL;
  return pl->sha256;
}

size_t sl_hvariant_count(void) { return sl__n_var; }
const sl_hvariant *sl_hvariant_at(size_t i) {
  return i < sl__n_var ? &sl__var[i] : NULL;
}

const sl_hvariant *sl_hvariant_find(sl_op op, const char *name) {
  for (size_t i = 0; name && i < sl__n_var; ++i)
    if (sl__var[i].v.op == op && strcmp(sl__var[i].name, name) == 0)
      return &sl__var[i];
  return NULL;
}

static int sl__fail(char *err, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int sl__fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  sl_text_clean(err, len, err); /* a table's names are the provider's text */
  return -1;
}

/* Lower-case letters, digits and '_', 1..max characters. */
static int sl__valid_word(const char *s, size_t max) {
  size_t n = 0;
  for (; s[n]; ++n)
    if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
          s[n] == '_'))
      return 0;
  return n >= 1 && n <= max;
}

void sl_caps_dtypes_text(unsigned mask, unsigned all, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = '\0';
  if ((mask & all) == all) {
    snprintf(buf, len, "all");
    return;
  }
  for (int d = 0; d < SL_DTYPE_COUNT && k < len; ++d)
    if (mask & SL_DTYPE_BIT(d))
      k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "",
                            sl_dtype_name((sl_dtype)d));
  if (!k) snprintf(buf, len, "none");
}

void sl_caps_reduces_text(unsigned mask, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = '\0';
  for (int r = 0; r < SL_REDUCE_COUNT && k < len; ++r)
    if (mask & SL_REDUCE_BIT(r))
      k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "",
                            sl_reduce_name((sl_reduce)r));
  if (!k) snprintf(buf, len, "-");
}

/* Checks one row of a provider's table; err names the row and the field. */
static int sl__check_row(const char *path, size_t i,
                         const sl_provider_variant *row, char *err,
                         size_t len) {
  const sl_op_info *info = sl_op_get(row->op);
  if (!info)
    return sl__fail(err, len,
                    "provider %s: variants[%zu].op: expected an sl_op in "
                    "[0,%d), got %d",
                    path, i, SL_OP_COUNT, (int)row->op);
  char where[96];
  snprintf(where, sizeof where, "variants[%zu] (%s)", i, info->name);
  if (!row->name)
    return sl__fail(err, len,
                    "provider %s: %s.name: expected a string, got "
                    "NULL",
                    path, where);
  const char *dot = strchr(row->name, '.');
  const char *dev = row->device == SL_DEVICE_CPU    ? "cpu"
                    : row->device == SL_DEVICE_CUDA ? "cuda"
                                                    : NULL;
  if (!dev)
    return sl__fail(err, len,
                    "provider %s: %s.device: expected SL_DEVICE_CPU or "
                    "SL_DEVICE_CUDA, got %d",
                    path, where, (int)row->device);
  size_t nlen = strnlen(row->name, SL_PROVIDER_VARIANT_NAME_MAX + 1);
  if (!dot || (size_t)(dot - row->name) != strlen(dev) ||
      strncmp(row->name, dev, strlen(dev)) != 0 ||
      nlen > SL_PROVIDER_VARIANT_NAME_MAX || !sl__valid_word(dot + 1, 64))
    return sl__fail(err, len,
                    "provider %s: %s.name: expected \"%s.<strategy>\" "
                    "(lower-case letters, digits, '_'; at most %d "
                    "characters), got \"%.40s\"",
                    path, where, dev, SL_PROVIDER_VARIANT_NAME_MAX, row->name);
  snprintf(where, sizeof where, "%s %s", info->name, row->name);
  if (!row->fn)
    return sl__fail(err, len,
                    "provider %s: variant %s: fn: expected a kernel function, "
                    "got NULL",
                    path, where);
  unsigned known = SL_DETERMINISTIC | SL_NEEDS_CUDA | SL_CHECKS_INDEX_VALUES;
  if (row->flags & ~known)
    return sl__fail(err, len,
                    "provider %s: variant %s: flags: expected bits of "
                    "0x%x, got 0x%x",
                    path, where, known, row->flags);
  const sl_caps *c = &row->caps;
  if (!c->dtypes || (c->dtypes & ~SL_DTYPES_ALL))
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.dtypes: expected a "
                    "non-zero subset of 0x%x, got 0x%x",
                    path, where, SL_DTYPES_ALL, c->dtypes);
  int has_index = (sl_case_spec_of(row->op)->keys & SL_KEY_IT) != 0;
  if (c->index_dtypes & ~SL_INDEX_DTYPES_ALL || (has_index && !c->index_dtypes))
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.index_dtypes: expected a "
                    "non-zero subset of 0x%x (i32, i64), got 0x%x",
                    path, where, SL_INDEX_DTYPES_ALL, c->index_dtypes);
  char ok[96];
  sl_caps_reduces_text(info->reduces, ok, sizeof ok);
  if ((c->reduces & ~info->reduces) || (info->reduces && !c->reduces))
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.reduces: expected %s "
                    "(the op takes: %s; bits of 0x%x), got 0x%x",
                    path, where,
                    info->reduces ? "a non-zero subset of the op's" : "0", ok,
                    info->reduces, c->reduces);
  unsigned self_ok = info->takes_include_self ? SL_INCLUDE_SELF_BOTH : 0;
  if ((c->include_self & ~self_ok) || (self_ok && !c->include_self))
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.include_self: expected "
                    "%s, got 0x%x",
                    path, where,
                    self_ok ? "a non-zero subset of SL_INCLUDE_SELF_BOTH (0x3)"
                            : "0 (the op takes no include_self)",
                    c->include_self);
  if (c->max_rank < 0 || c->max_rank > SL_MAX_DIMS)
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.max_rank: expected 0..%d, "
                    "got %d",
                    path, where, SL_MAX_DIMS, (int)c->max_rank);
  if (c->layouts & ~SL_LAYOUTS_ALL)
    return sl__fail(err, len,
                    "provider %s: variant %s: caps.layouts: expected bits of "
                    "0x%x, got 0x%x",
                    path, where, SL_LAYOUTS_ALL, c->layouts);
  return 0;
}

/* Undoes everything after the first `keep_prov` providers. */
static void sl__truncate(size_t keep_prov) {
  size_t keep_var =
      keep_prov ? sl__prov[keep_prov - 1].first + sl__prov[keep_prov - 1].n : 0;
  for (size_t p = keep_prov; p < sl__n_prov; ++p)
    if (sl__handles[p]) dlclose(sl__handles[p]);
  sl__n_prov = keep_prov;
  sl__n_var = keep_var;
}

void sl_providers_unload(void) { sl__truncate(0); }

/* Grows the arrays; variant names are re-pointed after a move. */
static int sl__reserve(size_t n_var) {
  sl_provider_loaded *p = realloc(sl__prov, (sl__n_prov + 1) * sizeof *p);
  if (p) sl__prov = p;
  void **h = realloc(sl__handles, (sl__n_prov + 1) * sizeof *h);
  if (h) sl__handles = h;
  sl_hvariant *v = realloc(sl__var, (sl__n_var + n_var + 1) * sizeof *v);
  if (v) sl__var = v;
  for (size_t i = 0; i < sl__n_var && sl__var; ++i)
    sl__var[i].v.name = sl__var[i].name;
  return p && h && v ? 0 : -1;
}

/* Loads one library; on failure it leaves nothing behind. */
static int sl__load_one(const char *alias, const char *path, int builtin,
                        int from_env, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0)
    return sl__fail(err, len, "provider %s: cannot load: %s", path,
                    errno == ENOENT ? "no such file" : strerror(errno));
  if (!S_ISREG(st.st_mode))
    return sl__fail(err, len,
                    "provider %s: cannot load: expected a shared library "
                    "file, got %s",
                    path,
                    S_ISDIR(st.st_mode) ? "a directory" : "a special file");
  char abs[PATH_MAX];
  if (!realpath(path, abs))
    return sl__fail(err, len, "provider %s: cannot load: %s", path,
                    strerror(errno));
  for (size_t p = 0; p < sl__n_prov; ++p)
    if (strcmp(sl__prov[p].path, abs) == 0 && alias &&
        strcmp(sl__prov[p].name, alias) == 0)
      return 0; /* the same library under the same name: loaded already */
  for (size_t p = 0; p < sl__n_prov; ++p)
    if (strcmp(sl__prov[p].path, abs) == 0 && !alias)
      return sl__fail(err, len,
                      "provider %s: already loaded (as \"%s\"); load it "
                      "again only under another name: --provider ALIAS=%s",
                      path, sl__prov[p].name, path);
  char cut[256];
  if (sl_elf_intact(abs, cut, sizeof cut))
    return sl__fail(err, len, "provider %s: cannot load: %s", path, cut);
  dlerror();
  void *h = dlopen(abs, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return sl__fail(err, len, "provider %s: cannot load: %s", path,
                    why ? why : "dlopen failed");
  }
  sl_provider_entry_fn entry;
  *(void **)&entry = dlsym(h, SL_PROVIDER_ENTRY_NAME);
  if (!entry) {
    dlclose(h);
    return sl__fail(err, len,
                    "provider %s: expected an exported function %s (see "
                    "sl/sl_provider.h), found none",
                    path, SL_PROVIDER_ENTRY_NAME);
  }
  const sl_provider *t = entry();
  int rc = -1;
  if (!t) {
    sl__fail(err, len, "provider %s: %s() returned NULL, expected its table",
             path, SL_PROVIDER_ENTRY_NAME);
  } else if (t->abi_version != SL_PROVIDER_ABI_VERSION) {
    sl__fail(err, len,
             "provider %s: ABI version: expected %u, got %u (rebuild it "
             "against this scatterlab's sl/sl_provider.h)",
             path, SL_PROVIDER_ABI_VERSION, t->abi_version);
  } else if (t->size < SL_PROVIDER_MIN_SIZE) {
    sl__fail(err, len,
             "provider %s: size: expected at least %zu (sizeof(sl_provider) "
             "up to variants), got %u",
             path, (size_t)SL_PROVIDER_MIN_SIZE, t->size);
  } else if (!t->name || !sl__valid_word(t->name, SL_PROVIDER_NAME_MAX)) {
    sl__fail(err, len,
             "provider %s: name: expected 1..%d lower-case letters, digits or "
             "'_', got \"%.40s\"",
             path, SL_PROVIDER_NAME_MAX, t->name ? t->name : "(NULL)");
  } else if (!t->variants || t->n_variants < 1 ||
             t->n_variants > SL__MAX_PROVIDER_VARIANTS) {
    sl__fail(err, len, "provider %s: variants: expected 1..%d rows, got %zu%s",
             path, SL__MAX_PROVIDER_VARIANTS, t->n_variants,
             t->variants ? "" : " (NULL)");
  } else {
    rc = 0;
  }
  const char *prefix = alias ? alias : t ? t->name : "";
  for (size_t p = 0; !rc && p < sl__n_prov; ++p)
    if (!sl__prov[p].builtin && strcmp(sl__prov[p].name, prefix) == 0)
      rc = sl__fail(err, len,
                    "provider %s: name \"%s\": expected a name no other "
                    "provider has, got the one of %s (load one under another "
                    "name: --provider ALIAS=PATH)",
                    path, prefix, sl__prov[p].path);
  for (size_t i = 0; !rc && i < t->n_variants; ++i) {
    rc = sl__check_row(path, i, &t->variants[i], err, len);
    for (size_t j = 0; !rc && j < i; ++j)
      if (t->variants[j].op == t->variants[i].op &&
          strcmp(t->variants[j].name, t->variants[i].name) == 0)
        rc = sl__fail(err, len,
                      "provider %s: duplicate variant %s %s (variants[%zu] "
                      "and [%zu]): expected each op and name once",
                      path, sl_op_name(t->variants[i].op), t->variants[i].name,
                      j, i);
  }
  if (!rc && sl__reserve(t->n_variants))
    rc = sl__fail(err, len, "provider %s: out of memory", path);
  if (rc) {
    dlclose(h);
    return -1;
  }
  sl_provider_loaded *pl = &sl__prov[sl__n_prov];
  memset(pl, 0, sizeof *pl);
  snprintf(pl->name, sizeof pl->name, "%s", prefix);
  snprintf(pl->own_name, sizeof pl->own_name, "%s", t->name);
  snprintf(pl->path, sizeof pl->path, "%s", abs);
  /* Printed by list, stored with every run: the provider's own text. */
  sl_text_clean(pl->version, sizeof pl->version, t->version ? t->version : "");
  pl->abi = t->abi_version;
  pl->builtin = builtin;
  pl->from_env = from_env;
  pl->alloc_faults =
      t->size >= offsetof(sl_provider, alloc_faults) + sizeof t->alloc_faults
          ? t->alloc_faults
          : NULL;
  pl->release_scratch = t->size >= offsetof(sl_provider, release_scratch) +
                                       sizeof t->release_scratch
                            ? t->release_scratch
                            : NULL;
  pl->first = sl__n_var;
  pl->n = t->n_variants;
  sl__handles[sl__n_prov] = h;
  for (size_t i = 0; i < t->n_variants; ++i) {
    const sl_provider_variant *row = &t->variants[i];
    sl_hvariant *hv = &sl__var[sl__n_var++];
    memset(hv, 0, sizeof *hv);
    if (builtin)
      snprintf(hv->name, sizeof hv->name, "%s", row->name);
    else
      snprintf(hv->name, sizeof hv->name, "%s:%s", prefix, row->name);
    hv->v.op = row->op;
    hv->v.name = hv->name;
    hv->v.fn = row->fn;
    hv->v.flags =
        row->flags | (row->device == SL_DEVICE_CUDA ? SL_NEEDS_CUDA : 0u);
    hv->caps = row->caps;
    hv->provider = (int)sl__n_prov;
  }
  ++sl__n_prov;
  return 0;
}

/* A library of scatterlab's (`file`: the kernels library, the Python
 * bridge): beside the executable, in the install's libdir, or in the build
 * tree this binary came from. `what` names it in the error. */
static int sl__find_own_lib(const char *file, const char *what, char *path,
                            size_t len, char *err, size_t errlen) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  char tried[3][PATH_MAX + 64];
  int k = 0;
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(tried[k++], sizeof tried[0], "%s/%s", exe, file);
    snprintf(tried[k++], sizeof tried[0], "%s/%s/%s", exe,
             SL_KERNELS_REL_LIBDIR, file);
  }
  if (SL_KERNELS_BUILD_DIR[0])
    snprintf(tried[k++], sizeof tried[0], "%s/%s", SL_KERNELS_BUILD_DIR, file);
  for (int i = 0; i < k; ++i)
    if (access(tried[i], R_OK) == 0) {
      snprintf(path, len, "%.4095s", tried[i]);
      return 0;
    }
  return sl__fail(err, errlen,
                  "%s %s: expected it beside the "
                  "executable, in %s/%s or in the build tree, found none "
                  "(looked at %s%s%s%s%s)",
                  what, file, n > 0 ? exe : "?", SL_KERNELS_REL_LIBDIR,
                  k > 0 ? tried[0] : "", k > 1 ? ", " : "",
                  k > 1 ? tried[1] : "", k > 2 ? ", " : "",
                  k > 2 ? tried[2] : "");
}

/* "py:MODULE" (docs/providers.md, "Kernels in Python"): the Python bridge
 * library, told the module's name through SL_PY_MODULE_ENV, which its entry
 * point reads. The prefix is the alias, else the module's last component,
 * so that each module is a provider of its own name. */
static int sl__load_python(const char *alias, const char *module, char *err,
                           size_t len) {
  size_t n = strspn(module, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                            "XYZ0123456789_.");
  if (!module[0] || module[n] || n >= sizeof sl__prov->py_module)
    return sl__fail(err, len,
                    "--provider py:%s: expected a Python module name "
                    "(letters, digits, '_', '.'), got \"%s\"",
                    module, module);
  const char *dot = strrchr(module, '.');
  const char *prefix = alias ? alias : dot ? dot + 1 : module;
  if (!sl__valid_word(prefix, SL_PROVIDER_NAME_MAX))
    return sl__fail(err, len,
                    "--provider py:%s: expected a module whose last name is "
                    "a provider name (1..%d lower-case letters, digits or "
                    "'_'), got \"%s\"; name it: --provider ALIAS=py:%s",
                    module, SL_PROVIDER_NAME_MAX, prefix, module);
  char path[PATH_MAX + 64];
  if (sl__find_own_lib(SL_PY_BRIDGE_FILE, "scatterlab's Python bridge", path,
                       sizeof path, err, len))
    return -1;
  setenv(SL_PY_MODULE_ENV, module, 1);
  size_t before = sl__n_prov;
  if (sl__load_one(prefix, path, 0, 0, err, len)) {
    size_t e = strlen(err);
    snprintf(err + e, len - e, " (python module %s)", module);
    return -1;
  }
  if (sl__n_prov > before)
    snprintf(sl__prov[before].py_module, sizeof sl__prov->py_module, "%s",
             module);
  return 0;
}

void sl_provider_spec(const sl_provider_loaded *pl, char *buf, size_t len) {
  if (pl->py_module[0])
    snprintf(buf, len, "%s=%s%s", pl->name, SL_PY_PREFIX, pl->py_module);
  else
    snprintf(buf, len, "%s=%s", pl->name, pl->path);
}

/* "ALIAS=PATH" or "PATH"; the alias is checked like a provider's name. */
static int sl__load_spec(const char *spec, const char *origin, char *err,
                         size_t len) {
  const int from_env = strcmp(origin, SL_PROVIDERS_ENV) == 0;
  if (!spec[0])
    return sl__fail(err, len, "%s: expected a provider library path, got \"\"",
                    origin);
  const char *eq = strchr(spec, '=');
  const char *slash = strchr(spec, '/');
  if (strncmp(spec, SL_PY_PREFIX, strlen(SL_PY_PREFIX)) == 0)
    return sl__load_python(NULL, spec + strlen(SL_PY_PREFIX), err, len);
  if (!eq || (slash && slash < eq))
    return sl__load_one(NULL, spec, 0, from_env, err, len);
  char alias[SL_PROVIDER_NAME_MAX + 1] = "";
  size_t an = (size_t)(eq - spec);
  if (an <= SL_PROVIDER_NAME_MAX) memcpy(alias, spec, an);
  if (!sl__valid_word(alias, SL_PROVIDER_NAME_MAX))
    return sl__fail(err, len,
                    "%s %s: expected ALIAS=PATH with an ALIAS of 1..%d "
                    "lower-case letters, digits or '_', got \"%.*s\"",
                    origin, spec, SL_PROVIDER_NAME_MAX, (int)an, spec);
  if (!eq[1])
    return sl__fail(err, len, "%s %s: expected a path after '=', got none",
                    origin, spec);
  if (strncmp(eq + 1, SL_PY_PREFIX, strlen(SL_PY_PREFIX)) == 0)
    return sl__load_python(alias, eq + 1 + strlen(SL_PY_PREFIX), err, len);
  return sl__load_one(alias, eq + 1, 0, from_env, err, len);
}

int sl_providers_load(const char *const *specs, int n, char *err,
                      size_t errlen) {
  size_t keep = sl__n_prov;
  if (sl__n_prov == 0) {
    char path[PATH_MAX + 64];
    if (sl__find_own_lib(SL_KERNELS_SONAME, "scatterlab's kernels library",
                         path, sizeof path, err, errlen) ||
        sl__load_one(NULL, path, 1, 0, err, errlen))
      return -1;
  }
  const char *env = getenv(SL_PROVIDERS_ENV);
  if (env && keep == 0) {
    char *copy = strdup(env);
    if (!copy) return sl__fail(err, errlen, "out of memory");
    int rc = 0;
    for (char *save = NULL, *p = strtok_r(copy, ":", &save); p && !rc;
         p = strtok_r(NULL, ":", &save))
      rc = sl__load_spec(p, SL_PROVIDERS_ENV, err, errlen);
    free(copy);
    if (rc) {
      size_t e = strlen(err);
      snprintf(err + e, errlen - e, " (from %s)", SL_PROVIDERS_ENV);
      sl__truncate(keep);
      return -1;
    }
  }
  for (int i = 0; i < n; ++i)
    if (sl__load_spec(specs[i], "--provider", err, errlen)) {
      sl__truncate(keep);
      return -1;
    }
  return 0;
}

int sl_hvariant_lays_out_like_reference(const sl_hvariant *v) {
  return sl_provider_at((size_t)v->provider)->builtin &&
         !(v->v.flags & SL_NEEDS_CUDA);
}

int sl_hvariant_admits(const sl_hvariant *v, const sl_case *c,
                       const sl_call *call, unsigned *copies, char *why,
                       size_t len) {
  const sl_caps *k = &v->caps;
  const sl_op_info *info = sl_op_get(call->op);
  char have[160];
  *copies = 0;
  if (!(k->dtypes & SL_DTYPE_BIT(c->dt))) {
    sl_caps_dtypes_text(k->dtypes, SL_DTYPES_ALL, have, sizeof have);
    snprintf(why, len, "dtype %s is outside its capabilities (dtypes: %s)",
             sl_dtype_name(c->dt), have);
    return 0;
  }
  if ((sl_case_spec_of(c->op)->keys & SL_KEY_IT) &&
      !(k->index_dtypes & SL_DTYPE_BIT(c->it))) {
    sl_caps_dtypes_text(k->index_dtypes, SL_INDEX_DTYPES_ALL, have,
                        sizeof have);
    snprintf(why, len,
             "index dtype %s is outside its capabilities (index_dtypes: %s)",
             sl_dtype_name(c->it), have);
    return 0;
  }
  if (info->reduces && !(k->reduces & SL_REDUCE_BIT(call->p.reduce))) {
    sl_caps_reduces_text(k->reduces, have, sizeof have);
    snprintf(why, len, "reduce %s is outside its capabilities (reduces: %s)",
             sl_reduce_name(call->p.reduce), have);
    return 0;
  }
  if (info->takes_include_self &&
      !(k->include_self & (call->p.include_self ? SL_INCLUDE_SELF_TRUE
                                                : SL_INCLUDE_SELF_FALSE))) {
    snprintf(why, len,
             "include_self=%d is outside its capabilities (include_self: %s)",
             call->p.include_self ? 1 : 0,
             k->include_self & SL_INCLUDE_SELF_TRUE ? "1" : "0");
    return 0;
  }
  for (int s = 0; s < info->n_in + info->n_out; ++s)
    if (call->arg[s].ndim > k->max_rank) {
      snprintf(why, len,
               "rank %d (%s) is outside its capabilities (max_rank: %d)",
               call->arg[s].ndim, info->arg_names[s], (int)k->max_rank);
      return 0;
    }
  for (int s = 0; s < info->n_in; ++s)
    *copies |= sl_input_layout(&call->arg[s]) & ~k->layouts;
  return 1;
}

/* Edit distance of a and b (each cut at 127 bytes): insertions,
 * deletions, substitutions and transpositions of two neighbours ("cdua"
 * is one from "cuda"), each 1 (the optimal string alignment distance). */
static size_t sl__edit_distance(const char *a, const char *b) {
  size_t na = strnlen(a, 127), nb = strnlen(b, 127);
  size_t rows[3][128], *two = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= nb; ++j) prev[j] = j;
  for (size_t i = 1; i <= na; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= nb; ++j) {
      size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
      if (prev[j] + 1 < best) best = prev[j] + 1;
      if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          two[j - 2] + 1 < best)
        best = two[j - 2] + 1;
      cur[j] = best;
    }
    size_t *t = two;
    two = prev, prev = cur, cur = t;
  }
  return prev[nb];
}

/* Keeps name among the closest to item so far (up to 3 distinct names at
 * the least distance). */
typedef struct sl__closest {
  size_t d;
  int n;
  char names[3][SL_VARIANT_NAME_LEN];
} sl__closest;

static void sl__consider(sl__closest *c, const char *item, const char *name) {
  size_t d = sl__edit_distance(item, name);
  if (d > c->d) return;
  if (d < c->d) c->d = d, c->n = 0;
  for (int k = 0; k < c->n; ++k)
    if (strcmp(c->names[k], name) == 0) return;
  if (c->n < 3) snprintf(c->names[c->n++], sizeof c->names[0], "%s", name);
}

int sl_variants_unmatched(const char *filter, int plain, char *msg,
                          size_t len) {
  for (const char *p = filter ? filter : ""; *p;) {
    const char *comma = strchr(p, ',');
    size_t k = comma ? (size_t)(comma - p) : strlen(p);
    char item[128];
    snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item ? k : 0), p);
    p = comma ? comma + 1 : p + k;
    if (!item[0]) continue;
    int hit = 0;
    for (size_t i = 0; i < sl__n_var && !hit; ++i) {
      const char *name = sl__var[i].name, *colon = strchr(name, ':');
      hit = sl_variant_selected(item, plain && colon ? colon + 1 : name);
    }
    /* scatterlab's own variants, those a build without CUDA does not
     * serve included: a cuda.* name is known there (bench and run say
     * "no device" of it). */
    for (size_t i = 0; i < sl_variant_count() && !hit; ++i)
      hit = sl_variant_selected(item, sl_variant_at(i)->name);
    if (hit) continue;
    /* A provider's variant whose provider is not loaded: say which. */
    const char *colon = strchr(item, ':');
    const size_t pn = colon ? (size_t)(colon - item) : 0;
    if (!plain && colon && strcspn(item, "*?[") > pn) {
      int loaded = 0;
      for (size_t q = 0; q < sl__n_prov; ++q)
        loaded |= !sl__prov[q].builtin && strlen(sl__prov[q].name) == pn &&
                  strncmp(sl__prov[q].name, item, pn) == 0;
      if (!loaded) {
        snprintf(msg, len,
                 "--variants %s: provider '%.*s' is not loaded; add "
                 "--provider %.*s=PATH (or its library to %s)",
                 item, (int)pn, item, (int)pn, item, SL_PROVIDERS_ENV);
        return 1;
      }
    }
    /* A typo: the closest names of the loaded variants (full, and without
     * their provider's prefix) and of the devices. */
    sl__closest c = {(size_t)-1, 0, {{0}}};
    if (!strpbrk(item, "*?[")) {
      for (size_t i = 0; i < sl__n_var; ++i) {
        const char *name = sl__var[i].name, *at = strchr(name, ':');
        if (!plain || !at) sl__consider(&c, item, name);
        if (at) sl__consider(&c, item, at + 1);
      }
      for (size_t i = 0; i < sl_variant_count(); ++i)
        sl__consider(&c, item, sl_variant_at(i)->name);
      sl__consider(&c, item, "cpu");
      sl__consider(&c, item, "cuda");
    }
    const size_t n = strlen(item);
    const int close = c.n && (c.d <= 2 || 3 * c.d <= n) && c.d < n;
    int w = snprintf(msg, len,
                     "--variants %s: expected a variant's name, a device or "
                     "a glob of the loaded variants, matched none%s",
                     item, close ? "; did you mean " : "");
    for (int j = 0; close && j < c.n && w >= 0 && (size_t)w < len; ++j)
      w += snprintf(msg + w, len - (size_t)w, "%s%s",
                    j ? (j + 1 == c.n ? " or " : ", ") : "", c.names[j]);
    if (w >= 0 && (size_t)w < len)
      snprintf(msg + w, len - (size_t)w, "%s (`scatterlab list` names them)",
               close ? "?" : "");
    return 1;
  }
  return 0;
}

int sl_providers_load_argv(const char *cmd, int argc, char **argv) {
  enum { SL__MAX_SPECS = 64 };
  const char *specs[SL__MAX_SPECS], *filters[SL__MAX_SPECS];
  int n = 0, nf = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return 0; /* the help needs no kernels */
    if (sl_cli_is(argv[i], "--variants") && nf < SL__MAX_SPECS) {
      const char *v = sl_cli_value(cmd, argc, argv, &i);
      if (!v) return SL_EXIT_USAGE;
      filters[nf++] = v;
      continue;
    }
    if (!sl_cli_is(argv[i], "--provider")) continue;
    const char *v = sl_cli_value(cmd, argc, argv, &i);
    if (!v) return SL_EXIT_USAGE;
    if (n == SL__MAX_SPECS)
      return sl_cli_usage_error(cmd,
                                "--provider: expected at most %d, got "
                                "more",
                                SL__MAX_SPECS);
    specs[n++] = v;
  }
  /* Loaded under SCATTERLAB_CHECK_ARGS too (checked, never run), so that
   * a provider that does not load and a --variants item that names
   * nothing stop a CI file's check, not its job. */
  if (sl_cli_parse_only == SL_CLI_PARSE_ONLY) return 0;
  char err[1024];
  if (sl_providers_load(specs, n, err, sizeof err))
    return sl_cli_usage_error(cmd, "%s", err);
  for (int f = 0; f < nf; ++f)
    if (sl_variants_unmatched(filters[f], 0, err, sizeof err))
      return sl_cli_usage_error(cmd, "%s", err);
  return 0;
}
