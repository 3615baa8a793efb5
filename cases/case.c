/* Case lines: parse and print (see case.h for the grammar). */
#include "case.h"

#include "text_lines.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slot numbers as in core/src/catalog.c. */
static const sl_case_spec sl__spec_gather = {
    SL_OP_GATHER, SL_KEY_IT | SL_KEY_DIM, 2, {0, 1}, -1, SL_REDUCE_NONE,
    SL_OP_GATHER, SL_ARG1_INDEX};
static const sl_case_spec sl__spec_gather_nd = {
    SL_OP_GATHER_ND, SL_KEY_IT | SL_KEY_DIMS, 2, {0, 1}, -1, SL_REDUCE_NONE,
    SL_OP_GATHER_ND, SL_ARG1_INDEX_TUPLE};
static const sl_case_spec sl__spec_scatter = {SL_OP_SCATTER,
                                              SL_KEY_IT | SL_KEY_DIM |
                                                  SL_KEY_VAL,
                                              3,
                                              {0, 1, 2},
                                              2,
                                              SL_REDUCE_NONE,
                                              SL_OP_SCATTER,
                                              SL_ARG1_INDEX};
static const sl_case_spec sl__spec_scatter_reduce = {
    SL_OP_SCATTER_REDUCE,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_SELF,
    3,
    {0, 1, 2},
    -1,
    SL_REDUCE_SUM,
    SL_OP_SCATTER_REDUCE,
    SL_ARG1_INDEX};
static const sl_case_spec sl__spec_scatter_reduce_backward = {
    SL_OP_SCATTER_REDUCE_BACKWARD,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_SELF,
    3,
    {1, 2, 3},
    -1,
    SL_REDUCE_SUM,
    SL_OP_SCATTER_REDUCE,
    SL_ARG1_INDEX};
static const sl_case_spec sl__spec_scatter_nd = {SL_OP_SCATTER_ND,
                                                 SL_KEY_IT | SL_KEY_DIMS |
                                                     SL_KEY_REDUCE,
                                                 3,
                                                 {0, 1, 2},
                                                 -1,
                                                 SL_REDUCE_NONE,
                                                 SL_OP_SCATTER_ND,
                                                 SL_ARG1_INDEX_TUPLE};
static const sl_case_spec sl__spec_index_reduce = {
    SL_OP_INDEX_REDUCE,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_SELF,
    3,
    {0, 1, 2},
    -1,
    SL_REDUCE_SUM,
    SL_OP_INDEX_REDUCE,
    SL_ARG1_INDEX_VECTOR};
static const sl_case_spec sl__spec_index_reduce_backward = {
    SL_OP_INDEX_REDUCE_BACKWARD,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_SELF,
    3,
    {1, 2, 3},
    -1,
    SL_REDUCE_SUM,
    SL_OP_INDEX_REDUCE,
    SL_ARG1_INDEX_VECTOR};
static const sl_case_spec sl__spec_select_scatter = {
    SL_OP_SELECT_SCATTER, SL_KEY_DIM | SL_KEY_AT, 2, {0, 1}, -1, SL_REDUCE_NONE,
    SL_OP_SELECT_SCATTER, SL_ARG1_SLICE};
static const sl_case_spec sl__spec_masked_scatter = {
    SL_OP_MASKED_SCATTER, 0,           3, {0, 1, 2}, -1, SL_REDUCE_NONE,
    SL_OP_MASKED_SCATTER, SL_ARG1_MASK};
static const sl_case_spec sl__spec_dynamic_scatter = {SL_OP_DYNAMIC_SCATTER,
                                                      SL_KEY_REDUCE |
                                                          SL_KEY_VOXELS,
                                                      2,
                                                      {0, 1},
                                                      -1,
                                                      SL_REDUCE_SUM,
                                                      SL_OP_DYNAMIC_SCATTER,
                                                      SL_ARG1_COORS};
static const sl_case_spec sl__spec_dynamic_scatter_backward = {
    SL_OP_DYNAMIC_SCATTER_BACKWARD,
    SL_KEY_REDUCE | SL_KEY_VOXELS,
    2,
    {1, 0},
    -1,
    SL_REDUCE_SUM,
    SL_OP_DYNAMIC_SCATTER,
    SL_ARG1_COORS};
static const sl_case_spec sl__spec_segment_reduce = {
    SL_OP_SEGMENT_REDUCE,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_VAL | SL_KEY_FORM,
    2,
    {0, 1},
    -1,
    SL_REDUCE_SUM,
    SL_OP_SEGMENT_REDUCE,
    SL_ARG1_LENGTHS};
static const sl_case_spec sl__spec_segment_reduce_backward = {
    SL_OP_SEGMENT_REDUCE_BACKWARD,
    SL_KEY_IT | SL_KEY_DIM | SL_KEY_REDUCE | SL_KEY_VAL | SL_KEY_FORM,
    2,
    {1, 2},
    -1,
    SL_REDUCE_SUM,
    SL_OP_SEGMENT_REDUCE,
    SL_ARG1_LENGTHS};

/* One row per op of SL_OP_MAP, by name: an op without its row does not
 * compile. */
static const sl_case_spec *const sl__specs[SL_OP_COUNT] = {
#define SL__ROW(e, name) [SL_OP_##e] = &sl__spec_##name,
    SL_OP_MAP(SL__ROW)
#undef SL__ROW
};

int sl_case_has_index(sl_op op) {
  const sl_case_spec *s = sl_case_spec_of(op);
  return s && (s->arg1 == SL_ARG1_INDEX || s->arg1 == SL_ARG1_INDEX_VECTOR ||
               s->arg1 == SL_ARG1_INDEX_TUPLE);
}

int sl_case_reduces_along_dim(sl_op op) {
  const sl_case_spec *s = sl_case_spec_of(op);
  return s && s->forward == op && (s->keys & SL_KEY_REDUCE) &&
         (s->arg1 == SL_ARG1_INDEX || s->arg1 == SL_ARG1_INDEX_VECTOR);
}

int sl_case_takes_values(sl_op op) {
  const sl_case_spec *s = sl_case_spec_of(op);
  return sl_case_has_index(op) || (s && s->arg1 == SL_ARG1_LENGTHS);
}

int sl_case_is_backward(sl_op op) {
  const sl_case_spec *s = sl_case_spec_of(op);
  return s && s->forward != op;
}

int sl_case_has_src(const sl_case *fw) {
  const sl_case_spec *s = sl_case_spec_of(fw->op);
  return s && sl_op_get(fw->op)->n_in > 2 &&
         !(s->optional_slot == 2 && fw->has_val);
}

/*
 * A line gives the forward's inputs, so the shape kept in slot
 * shape_slots[i] is named after the forward's input i. For most backward ops
 * that is the slot's own name; dynamic_scatter_backward's coors has no slot
 * of its own, and the parser keeps it in slot 0 (grad_voxel_feats, derived
 * anyway).
 */
static const char *sl__shape_name(sl_op op, int slot) {
  const sl_case_spec *spec = sl_case_spec_of(op);
  for (int i = 0; i < spec->n_shapes; ++i)
    if (spec->shape_slots[i] == slot)
      return sl_op_get(spec->forward)->arg_names[i];
  return sl_op_get(op)->arg_names[slot];
}

static const char *const sl__ip_names[] = {
#define SL__IP_NAME(e, name) #name,
    SL_INDEX_PATTERN_MAP(SL__IP_NAME)
#undef SL__IP_NAME
};
static const char *const sl__dp_names[] = {
#define SL__DP_NAME(e, name) #name,
    SL_DATA_PATTERN_MAP(SL__DP_NAME)
#undef SL__DP_NAME
};

const char *sl_index_pattern_name(sl_index_pattern p) {
  return (unsigned)p < SL_IP_COUNT ? sl__ip_names[p] : "?";
}
const char *sl_data_pattern_name(sl_data_pattern p) {
  return (unsigned)p < SL_DP_COUNT ? sl__dp_names[p] : "?";
}

const sl_case_spec *sl_case_spec_of(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__specs[op] : NULL;
}

void sl_case_init(sl_case *c, sl_op op) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->dt = SL_F32;
  c->it = SL_I64;
  c->include_self = 1;
  c->reduce = sl__specs[op]->default_reduce;
  c->ip = SL_IP_RAND;
  c->dp = SL_DP_RAND;
}

int64_t sl_case_numel(const sl_case_shape *s) {
  int64_t n = 1;
  for (int d = 0; d < s->ndim; ++d) {
    if (s->shape[d] == 0) return 0;
    if (n > INT64_MAX / s->shape[d]) return -1;
    n *= s->shape[d];
  }
  return n;
}

static int sl__fail(char *err, size_t len, const char *fmt, ...) {
  if (err && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Strict integer parse of the whole string. */
static int sl__parse_i64(const char *s, int64_t *out) {
  if (!*s) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

static int sl__parse_shape(const char *text, sl_case_shape *s, char *err,
                           size_t len, const char *key) {
  char buf[256];
  if (strlen(text) >= sizeof buf)
    return sl__fail(err, len,
                    "%s: expected a shape such as 4x3, got %zu "
                    "characters",
                    key, strlen(text));
  strcpy(buf, text);
  memset(s, 0, sizeof *s);
  char *colon = strchr(buf, ':');
  if (colon) {
    *colon = '\0';
    const char *l = colon + 1;
    if (strcmp(l, "t") == 0)
      s->layout = SL_LAYOUT_TRANSPOSED;
    else if (strcmp(l, "b") == 0)
      s->layout = SL_LAYOUT_BROADCAST;
    else if (l[0] == 's' || l[0] == 'o') {
      int64_t k;
      if (sl__parse_i64(l + 1, &k) || k < 2 || k > 16)
        return sl__fail(err, len,
                        "%s: expected layout %s2..%s16, got "
                        "\"%s\"",
                        key, l[0] == 's' ? "step s" : "overlap o",
                        l[0] == 's' ? "s" : "o", l);
      s->layout = l[0] == 's' ? SL_LAYOUT_STEPPED : SL_LAYOUT_OVERLAPPED;
      s->step = (int)k;
    } else
      return sl__fail(err, len,
                      "%s: expected layout t, b, s<k> or o<k>, got \"%s\"", key,
                      l);
  }
  s->present = 1;
  if (strcmp(buf, "scalar") == 0) return 0;
  char *p = buf;
  for (;;) {
    char *x = strchr(p, 'x');
    if (x) *x = '\0';
    int64_t e;
    if (s->ndim == SL_MAX_DIMS)
      return sl__fail(err, len, "%s: expected at most %d dims, got more", key,
                      SL_MAX_DIMS);
    if (sl__parse_i64(p, &e) || e < 0 || p[0] == '+' || p[0] == '-')
      return sl__fail(err, len,
                      "%s: expected extents >= 0 such as 4x3 or "
                      "`scalar`, got \"%s\"",
                      key, text);
    s->shape[s->ndim++] = e;
    if (!x) break;
    p = x + 1;
  }
  return 0;
}

static int sl__parse_dims(const char *text, sl_case *c, char *err, size_t len) {
  char buf[256];
  if (strlen(text) >= sizeof buf || !*text)
    return sl__fail(err, len, "dims: expected a list such as 0,1, got \"%s\"",
                    text);
  strcpy(buf, text);
  c->ndims = 0;
  for (char *p = buf;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = '\0';
    int64_t v;
    if (c->ndims == SL_MAX_DIMS || sl__parse_i64(p, &v) || v < -64 || v > 64)
      return sl__fail(err, len,
                      "dims: expected up to %d integers such as 0,1, "
                      "got \"%s\"",
                      SL_MAX_DIMS, text);
    c->dims[c->ndims++] = v;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

static int sl__parse_dtype(const char *v, sl_dtype *out, const char *key,
                           char *err, size_t len) {
  int d = sl_dtype_from_name(v);
  if (d < 0)
    return sl__fail(err, len,
                    "%s: expected a dtype (bool u8 i8 i16 i32 i64 "
                    "f16 bf16 f32 f64 c64 c128), got \"%s\"",
                    key, v);
  *out = (sl_dtype)d;
  return 0;
}

#define SL__IP_VALUE(v, label) v,
#define SL__IP_LABEL(v, label) label,
static const int64_t sl__oob_values[] = {SL_IP_OOB_VALUES(SL__IP_VALUE)};
static const int64_t sl__neg_values[] = {SL_IP_NEG_VALUES(SL__IP_VALUE)};
static const char *const sl__oob_labels[] = {SL_IP_OOB_VALUES(SL__IP_LABEL)};
static const char *const sl__neg_labels[] = {SL_IP_NEG_VALUES(SL__IP_LABEL)};
#undef SL__IP_VALUE
#undef SL__IP_LABEL

/* A table value of 0 stands for the extent (oob) or minus it (neg). */
int64_t sl_ip_bad_value(sl_index_pattern ip, int k, int64_t extent,
                        sl_dtype it) {
  if (ip == SL_IP_NEG) {
    if (k < 0 || k >= SL_IP_NEG_KINDS) k = 0;
    int64_t v = sl__neg_values[k] ? sl__neg_values[k] : -extent;
    return it == SL_I32 && v < INT32_MIN ? INT32_MIN : v;
  }
  if (k < 0 || k >= SL_IP_OOB_KINDS) k = 0;
  int64_t v = sl__oob_values[k] > extent ? sl__oob_values[k] : extent;
  return it == SL_I32 && v > INT32_MAX ? INT32_MAX : v;
}

const char *sl_ip_bad_label(sl_index_pattern ip, int k) {
  if (ip == SL_IP_NEG)
    return sl__neg_labels[k >= 0 && k < SL_IP_NEG_KINDS ? k : 0];
  return sl__oob_labels[k >= 0 && k < SL_IP_OOB_KINDS ? k : 0];
}

static int sl__parse_ip(const char *v, sl_case *c, char *err, size_t len) {
  for (int i = 0; i < SL_IP_COUNT; ++i)
    if (i != SL_IP_DUP && strcmp(v, sl__ip_names[i]) == 0) {
      c->ip = (sl_index_pattern)i;
      c->ip_param = 0;
      return 0;
    }
  int64_t p;
  if (strncmp(v, "dup", 3) == 0 && !sl__parse_i64(v + 3, &p) && p >= 1 &&
      p <= 100 && isdigit((unsigned char)v[3])) {
    c->ip = SL_IP_DUP;
    c->ip_param = (int)p;
    return 0;
  }
  /* oob<k>, neg<k>: the k-th bad value of sl_ip_bad_value (k >= 1). */
  for (int neg = 0; neg < 2; ++neg) {
    const char *name = neg ? "neg" : "oob";
    const int kinds = neg ? SL_IP_NEG_KINDS : SL_IP_OOB_KINDS;
    if (strncmp(v, name, 3) == 0 && isdigit((unsigned char)v[3]) &&
        !sl__parse_i64(v + 3, &p) && p >= 1 && p < kinds) {
      c->ip = neg ? SL_IP_NEG : SL_IP_OOB;
      c->ip_param = (int)p;
      return 0;
    }
  }
  return sl__fail(err, len,
                  "ip: expected rand, unique, sorted, zipf, one, "
                  "dup<1..100>, oob, oob<1..%d>, neg, neg<1..%d> or high, got "
                  "\"%s\"",
                  SL_IP_OOB_KINDS - 1, SL_IP_NEG_KINDS - 1, v);
}

static int sl__parse_word(sl_case *c, const sl_case_spec *spec, char *word,
                          unsigned *seen, char *err, size_t len) {
  char *eq = strchr(word, '=');
  if (!eq || eq == word)
    return sl__fail(err, len, "expected key=value, got \"%s\"", word);
  *eq = '\0';
  const char *k = word, *v = eq + 1;
  int64_t n;
  for (int i = 0; i < spec->n_shapes; ++i) {
    int slot = spec->shape_slots[i];
    if (strcmp(k, sl__shape_name(c->op, slot)) == 0) {
      if (c->arg[slot].present) return sl__fail(err, len, "%s: given twice", k);
      return sl__parse_shape(v, &c->arg[slot], err, len, k);
    }
  }
  struct {
    const char *key;
    unsigned bit;
  } keyed[] = {{"it", SL_KEY_IT},     {"dim", SL_KEY_DIM},
               {"dims", SL_KEY_DIMS}, {"reduce", SL_KEY_REDUCE},
               {"self", SL_KEY_SELF}, {"at", SL_KEY_AT},
               {"val", SL_KEY_VAL},   {"voxels", SL_KEY_VOXELS},
               {"form", SL_KEY_FORM}};
  for (size_t i = 0; i < sizeof keyed / sizeof keyed[0]; ++i)
    if (strcmp(k, keyed[i].key) == 0 && !(spec->keys & keyed[i].bit))
      return sl__fail(err, len, "%s: not a parameter of %s", k,
                      sl_op_name(c->op));
  unsigned bit = 0;
  int rc = 0;
  if (strcmp(k, "dt") == 0) {
    bit = 1u << 8;
    rc = sl__parse_dtype(v, &c->dt, k, err, len);
  } else if (strcmp(k, "it") == 0) {
    bit = 1u << 9;
    rc = sl__parse_dtype(v, &c->it, k, err, len);
  } else if (strcmp(k, "dim") == 0) {
    bit = 1u << 10;
    if (sl__parse_i64(v, &n) || n < -64 || n > 64)
      return sl__fail(err, len,
                      "dim: expected an integer in [-64,64], got "
                      "\"%s\"",
                      v);
    c->dim = n;
  } else if (strcmp(k, "dims") == 0) {
    bit = 1u << 11;
    rc = sl__parse_dims(v, c, err, len);
  } else if (strcmp(k, "reduce") == 0) {
    bit = 1u << 12;
    int r = sl_reduce_from_name(v);
    if (r < 0)
      return sl__fail(err, len,
                      "reduce: expected none, assign, sum, prod, "
                      "mean, amax, amin or max, got \"%s\"",
                      v);
    c->reduce = (sl_reduce)r;
  } else if (strcmp(k, "self") == 0) {
    bit = 1u << 13;
    if (strcmp(v, "0") && strcmp(v, "1"))
      return sl__fail(err, len, "self: expected 0 or 1, got \"%s\"", v);
    c->include_self = v[0] == '1';
  } else if (strcmp(k, "at") == 0) {
    bit = 1u << 14;
    if (sl__parse_i64(v, &n))
      return sl__fail(err, len, "at: expected an integer, got \"%s\"", v);
    c->at = n;
  } else if (strcmp(k, "val") == 0) {
    bit = 1u << 15;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || isspace((unsigned char)*v))
      return sl__fail(err, len, "val: expected a number, got \"%s\"", v);
    c->has_val = 1;
    c->val = d;
    c->val_is_int = !sl__parse_i64(v, &n);
    c->ival = c->val_is_int ? n : 0;
  } else if (strcmp(k, "voxels") == 0) {
    bit = 1u << 19;
    if (sl__parse_i64(v, &n) || n < 1)
      return sl__fail(err, len,
                      "voxels: expected a positive integer, got \"%s\"", v);
    c->voxels = n;
  } else if (strcmp(k, "form") == 0) {
    bit = 1u << 20;
    if (strcmp(v, "lengths") && strcmp(v, "offsets"))
      return sl__fail(err, len, "form: expected lengths or offsets, got \"%s\"",
                      v);
    c->offsets = v[0] == 'o';
  } else if (strcmp(k, "ip") == 0) {
    bit = 1u << 16;
    rc = sl__parse_ip(v, c, err, len);
  } else if (strcmp(k, "dp") == 0) {
    bit = 1u << 17;
    int found = -1;
    for (int i = 0; i < SL_DP_COUNT; ++i)
      if (strcmp(v, sl__dp_names[i]) == 0) found = i;
    if (found < 0) {
      char names[128];
      size_t at = 0;
      for (int i = 0; i < SL_DP_COUNT && at < sizeof names; ++i)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                               i == 0                ? ""
                               : i + 1 < SL_DP_COUNT ? ", "
                                                     : " or ",
                               sl__dp_names[i]);
      return sl__fail(err, len, "dp: expected %s, got \"%s\"", names, v);
    }
    c->dp = (sl_data_pattern)found;
  } else if (strcmp(k, "seed") == 0) {
    bit = 1u << 18;
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || v[0] == '+')
      return sl__fail(err, len,
                      "seed: expected an unsigned integer, got "
                      "\"%s\"",
                      v);
    c->seed = s;
  } else {
    return sl__fail(err, len,
                    "%s: not a key of a %s case (see `scatterlab run "
                    "--help`)",
                    k, sl_op_name(c->op));
  }
  if (rc) return rc;
  if (*seen & bit) return sl__fail(err, len, "%s: given twice", k);
  *seen |= bit;
  return 0;
}

/* voxels=V draws coors itself (datagen): V distinct coordinate rows of
 * D >= 1 columns, each given to at least one of the N rows, so V <= N. */
int sl_case_check_voxels(const sl_case *c, char *err, size_t len) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  if (!spec || !(spec->keys & SL_KEY_VOXELS))
    return sl__fail(err, len, "voxels: expected a dynamic op, got %s",
                    c ? sl_op_name(c->op) : "no case");
  if (c->voxels < 1)
    return sl__fail(err, len, "voxels: expected a positive count, got %lld",
                    (long long)c->voxels);
  if (c->ip != SL_IP_RAND)
    return sl__fail(err, len,
                    "voxels: draws coors itself, expected ip=rand (the "
                    "default), got ip=%s",
                    sl__ip_names[c->ip]);
  const sl_case_shape *coors = NULL;
  for (int i = 0; i < spec->n_shapes; ++i)
    if (strcmp(sl__shape_name(c->op, spec->shape_slots[i]), "coors") == 0)
      coors = &c->arg[spec->shape_slots[i]];
  if (!coors || coors->ndim != 2 || coors->shape[1] < 1)
    return sl__fail(err, len,
                    "voxels: expected coors of shape NxD with D >= 1, got "
                    "rank %d with %lld columns",
                    coors ? coors->ndim : 0,
                    coors && coors->ndim == 2 ? (long long)coors->shape[1]
                                              : 0LL);
  if (coors->layout == SL_LAYOUT_BROADCAST)
    return sl__fail(err, len,
                    "voxels: expected coors whose rows can differ, got the "
                    "broadcast layout (coors=...:b)");
  if (coors->layout == SL_LAYOUT_OVERLAPPED)
    return sl__fail(err, len,
                    "voxels: expected coors whose rows can differ, got the "
                    "overlapped layout (coors=...:o%d)",
                    coors->step);
  if (c->voxels > coors->shape[0])
    return sl__fail(err, len,
                    "voxels: expected at most coors' %lld rows (every "
                    "voxel holds a point), got %lld",
                    (long long)coors->shape[0], (long long)c->voxels);
  if (c->voxels > SL_CASE_MAX_VOXELS)
    return sl__fail(err, len, "voxels: expected at most %lld, got %lld",
                    (long long)SL_CASE_MAX_VOXELS, (long long)c->voxels);
  return 0;
}

int sl_case_parse(const char *line, sl_case *c, char *err, size_t errlen) {
  if (!line || !c)
    return sl__fail(err, errlen, "case: expected a line, got NULL");
  size_t n = strlen(line);
  if (n > 4096)
    return sl__fail(err, errlen,
                    "case: expected at most 4096 characters, got "
                    "%zu",
                    n);
  char buf[4097];
  memcpy(buf, line, n + 1);
  char *save = NULL;
  char *word = strtok_r(buf, " \t\r\n", &save);
  if (!word)
    return sl__fail(err, errlen,
                    "case: expected an op name, got an "
                    "empty line");
  int op = sl_op_from_name(word);
  if (op < 0) {
    char names[512] = "";
    for (int i = 0; i < SL_OP_COUNT; ++i)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
               i ? ", " : "", sl_op_name((sl_op)i));
    return sl__fail(err, errlen, "op: got \"%s\", expected one of %s", word,
                    names);
  }
  sl_case_init(c, (sl_op)op);
  const sl_case_spec *spec = sl__specs[op];
  unsigned seen = 0;
  while ((word = strtok_r(NULL, " \t\r\n", &save)))
    if (sl__parse_word(c, spec, word, &seen, err, errlen)) return -1;
  for (int i = 0; i < spec->n_shapes; ++i) {
    int slot = spec->shape_slots[i];
    if (c->arg[slot].present) continue;
    if (slot == spec->optional_slot && c->has_val) continue;
    return sl__fail(err, errlen,
                    "%s: expected its shape (e.g. %s=4x3), got "
                    "none",
                    sl__shape_name(c->op, slot), sl__shape_name(c->op, slot));
  }
  if (spec->optional_slot >= 0 && c->has_val &&
      c->arg[spec->optional_slot].present)
    return sl__fail(err, errlen, "val: expected either val= or %s=, got both",
                    sl__shape_name(c->op, spec->optional_slot));
  /* An integer x takes an integer scalar (sl_params.ivalue, exact): 1.5,
   * inf or a number past int64 cannot be represented. Handed over
   * truncated (1.5 -> 1, inf -> 0) they ran as another case than written,
   * and LibTorch, given the truncated integer, agreed. */
  if (c->has_val && !c->val_is_int && sl_dtype_is_int(c->dt))
    return sl__fail(err, errlen,
                    "val: expected an integer for dt=%s (an integer x holds "
                    "no other value), got %.17g",
                    sl_dtype_name(c->dt), c->val);
  return c->voxels ? sl_case_check_voxels(c, err, errlen) : 0;
}

/* Appends to buf as snprintf does, tracking the total length needed. */
typedef struct {
  char *buf;
  size_t len;
  size_t n;
} sl__out;

static void sl__put(sl__out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->n < o->len ? o->len - o->n : 0;
  int k = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
  va_end(ap);
  if (k > 0) o->n += (size_t)k;
}

int sl_case_print(const sl_case *c, char *buf, size_t len) {
  sl__out o = {buf, len, 0};
  if (buf && len) buf[0] = '\0';
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  if (!spec) return 0;
  sl__put(&o, "%s dt=%s", sl_op_name(c->op), sl_dtype_name(c->dt));
  if (spec->keys & SL_KEY_IT) sl__put(&o, " it=%s", sl_dtype_name(c->it));
  for (int i = 0; i < spec->n_shapes; ++i) {
    const sl_case_shape *s = &c->arg[spec->shape_slots[i]];
    if (!s->present) continue;
    sl__put(&o, " %s=", sl__shape_name(c->op, spec->shape_slots[i]));
    if (s->ndim == 0) sl__put(&o, "scalar");
    for (int d = 0; d < s->ndim; ++d)
      sl__put(&o, d ? "x%lld" : "%lld", (long long)s->shape[d]);
    if (s->layout == SL_LAYOUT_TRANSPOSED) sl__put(&o, ":t");
    if (s->layout == SL_LAYOUT_BROADCAST) sl__put(&o, ":b");
    if (s->layout == SL_LAYOUT_STEPPED) sl__put(&o, ":s%d", s->step);
    if (s->layout == SL_LAYOUT_OVERLAPPED) sl__put(&o, ":o%d", s->step);
  }
  if (spec->keys & SL_KEY_DIM) sl__put(&o, " dim=%lld", (long long)c->dim);
  if ((spec->keys & SL_KEY_DIMS) && c->ndims > 0) {
    sl__put(&o, " dims=");
    for (int i = 0; i < c->ndims; ++i)
      sl__put(&o, i ? ",%lld" : "%lld", (long long)c->dims[i]);
  }
  if (spec->keys & SL_KEY_REDUCE)
    sl__put(&o, " reduce=%s", sl_reduce_name(c->reduce));
  if (spec->keys & SL_KEY_SELF)
    sl__put(&o, " self=%d", c->include_self ? 1 : 0);
  if (spec->keys & SL_KEY_AT) sl__put(&o, " at=%lld", (long long)c->at);
  if ((spec->keys & SL_KEY_VAL) && c->has_val) {
    if (c->val_is_int)
      sl__put(&o, " val=%lld", (long long)c->ival);
    else { /* a float value must not read back as an integer: -0.0, 2.0 */
      char num[64];
      snprintf(num, sizeof num, "%.17g", c->val);
      sl__put(&o, " val=%s%s", num, strpbrk(num, ".eEni") ? "" : ".0");
    }
  }
  if ((spec->keys & SL_KEY_VOXELS) && c->voxels)
    sl__put(&o, " voxels=%lld", (long long)c->voxels);
  if ((spec->keys & SL_KEY_FORM) && c->offsets) sl__put(&o, " form=offsets");
  if (c->ip == SL_IP_DUP)
    sl__put(&o, " ip=dup%d", c->ip_param);
  else if ((c->ip == SL_IP_OOB || c->ip == SL_IP_NEG) && c->ip_param > 0)
    sl__put(&o, " ip=%s%d", sl__ip_names[c->ip], c->ip_param);
  else if (c->ip != SL_IP_RAND)
    sl__put(&o, " ip=%s", sl__ip_names[c->ip]);
  if (c->dp != SL_DP_RAND) sl__put(&o, " dp=%s", sl__dp_names[c->dp]);
  sl__put(&o, " seed=%" PRIu64, c->seed);
  return (int)o.n;
}

int sl_case_file_each(const char *path,
                      int (*fn)(void *user, const char *line, long line_no),
                      void *user, char *err, size_t errlen) {
  sl_text_reader r;
  if (sl_text_open(&r, path, err, errlen)) return -1;
  char *line;
  int rc = 0, got;
  while (!rc && (got = sl_text_next(&r, &line, err, errlen)) > 0) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *p = line;
    while (*p == ' ' || *p == '\t') ++p;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) p[--n] = '\0';
    if (*p) rc = fn(user, p, r.line_no);
  }
  if (!rc && got < 0) rc = -1;
  sl_text_close(&r);
  return rc;
}
