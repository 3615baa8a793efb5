/*
 * Accumulators of the parallel-over-inputs variants (conflict.h) where the
 * targets are few beside out: f16/bf16 accumulators and mean counts then
 * live in a table of the targets, sized by the contributions, not in one
 * entry per element of out (a --huge case's 20 updates into 2.4e9 elements
 * asked 29 GB of them and met the OOM killer).
 *
 * 1. Bitwise: scatter_reduce, index_reduce and scatter_nd with 16384
 *    contributions (4 threads, so the table takes concurrent inserts) into
 *    2^20 elements, every CPU variant against cpu.serial. The data are
 *    small multiples of 1/8, so every f32 partial sum is exact and the
 *    order of arrival of cpu.atomic and cpu.lock cannot show.
 * 2. Memory: 8 updates into 2^27 f16 elements, under an address-space limit
 *    (RLIMIT_AS) of what the process holds plus 768 MiB. Dense accumulators
 *    would ask 1.5 GiB (2^27 f32 accumulators and int64 counts) and fail
 *    with OUT_OF_MEMORY; the table asks a few hundred bytes. An address-
 *    space limit fails the allocation itself, deterministically, where a
 *    peak-RSS measure would not see dense arrays at all (calloc'd pages
 *    that are never touched are never resident).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

#define SHAPE(...) ((int64_t[]){__VA_ARGS__})

/* Sanitizers reserve terabytes of shadow address space: no address-space
 * limit fits beside them (gcc says so by macros, clang by __has_feature). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static uint32_t rng = 12345;
static uint32_t next(void) {
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

/* k/8 for k in [-64, 64]: exact in f16, bf16 and f32, and so is any sum
 * of a few thousand of them. */
static double small_value(void) { return ((int)(next() % 129) - 64) / 8.0; }

static void fill(sl_dtype dt, void *p, int64_t n) {
  const size_t es = sl_dtype_size(dt);
  for (int64_t k = 0; k < n; ++k)
    sl_elem_set_f(dt, (char *)p + k * es, small_value());
}

typedef enum { OP_SR, OP_IR, OP_ND } op_kind;

typedef struct {
  op_kind op;
  sl_reduce r;
  int self;
  int64_t dim;
  const sl_tensor *x, *index, *src;
  sl_tensor *out;
  int threads;
} call;

static sl_status run(const call *c, const char *variant) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = c->threads;
  sl_status st;
  if (c->op == OP_SR)
    st = sl_scatter_reduce(&ctx, variant, c->x, c->dim, c->index, c->src, c->r,
                           c->self, c->out);
  else if (c->op == OP_IR)
    st = sl_index_reduce(&ctx, variant, c->x, c->dim, c->index, c->src, c->r,
                         c->self, c->out);
  else /* index tuples of the leading dims */
    st = sl_scatter_nd(&ctx, variant, c->x, c->index, c->src,
                       (int)c->index->shape[c->index->ndim - 1],
                       SHAPE(0, 1, 2, 3), c->r, c->out);
  if (st) fprintf(stderr, "%s: %s\n", variant, ctx.msg);
  return st;
}

static sl_op op_of(op_kind k) {
  return k == OP_SR   ? SL_OP_SCATTER_REDUCE
         : k == OP_IR ? SL_OP_INDEX_REDUCE
                      : SL_OP_SCATTER_ND;
}

/* Every CPU variant of c's op against cpu.serial, bitwise; `bytes` of out. */
static void check_against_serial(const call *c, size_t bytes,
                                 const char *what) {
  void *want = malloc(bytes);
  CHECK(want != NULL);
  if (!want) return;
  memset(c->out->data, 0xA5, bytes);
  CHECK(run(c, "cpu.serial") == SL_STATUS_OK);
  memcpy(want, c->out->data, bytes);
  FOR_EACH_VARIANT(op_of(c->op), v) {
    if (strcmp(v->name, "cpu.serial") == 0) continue;
    memset(c->out->data, 0xA5, bytes);
    CHECK_MSG(run(c, v->name) == SL_STATUS_OK, "%s %s", what, v->name);
    size_t wrong = 0, first = bytes;
    for (size_t k = 0; k < bytes; ++k)
      if (((const unsigned char *)c->out->data)[k] !=
          ((const unsigned char *)want)[k]) {
        if (!wrong) first = k;
        ++wrong;
      }
    CHECK_MSG(wrong == 0,
              "%s self=%d %s: %zu bytes differ from cpu.serial, "
              "the first at byte %zu",
              what, c->self, v->name, wrong, first);
  }
  free(want);
}

enum { E_LOG = 20, E_ALL = 1 << E_LOG, CONTRIB = 16384, POOL = 512 };

/* Destinations: POOL positions spread over [0, limit), each contribution
 * taking one of them (about 32 contributions per target). */
static void targets(int64_t *idx, int64_t n, int64_t limit) {
  static int64_t pool[POOL];
  for (int k = 0; k < POOL; ++k)
    pool[k] = (int64_t)(((uint64_t)next() << 8 ^ next()) % (uint64_t)limit);
  for (int64_t i = 0; i < n; ++i) idx[i] = pool[next() % POOL];
}

/* A dtype and reduce to run, and their name in messages. */
typedef struct {
  sl_dtype dt;
  sl_reduce r;
  const char *name;
} red_case;

/* scatter_reduce, 1-D (one line) and 2-D along either dim (the
 * destination numbers t*L + l and l*n + t). */
static void test_scatter_reduce(void) {
  static const red_case cases[] = {{SL_F16, SL_REDUCE_SUM, "f16 sum"},
                                   {SL_BF16, SL_REDUCE_MEAN, "bf16 mean"},
                                   {SL_F32, SL_REDUCE_MEAN, "f32 mean"},
                                   {SL_F16, SL_REDUCE_AMAX, "f16 amax"}};
  static const struct {
    int ndim;
    int64_t xs[2], is[2], dim;
  } shapes[] = {{1, {E_ALL, 1}, {CONTRIB, 1}, 0},
                {2, {E_ALL / 8, 8}, {CONTRIB / 8, 8}, 0},
                {2, {4, E_ALL / 4}, {4, CONTRIB / 4}, 1}};
  void *x = malloc((size_t)E_ALL * 4), *out = malloc((size_t)E_ALL * 4);
  void *src = malloc(CONTRIB * 4);
  int64_t *idx = malloc(CONTRIB * sizeof *idx);
  CHECK(x && out && src && idx);
  if (!(x && out && src && idx)) goto done;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
      const sl_dtype dt = cases[c].dt;
      fill(dt, x, E_ALL);
      fill(dt, src, CONTRIB);
      /* index [I0, I1] into x [X0, X1] along dim: values below x's extent
       * along dim */
      targets(idx, CONTRIB, shapes[s].xs[shapes[s].dim]);
      const int nd = shapes[s].ndim;
      sl_tensor tx = sl_tensor_make(dt, nd, shapes[s].xs, x);
      sl_tensor to = sl_tensor_make(dt, nd, shapes[s].xs, out);
      sl_tensor ti = sl_tensor_make(SL_I64, nd, shapes[s].is, idx);
      sl_tensor ts = sl_tensor_make(dt, nd, shapes[s].is, src);
      char what[64];
      snprintf(what, sizeof what, "scatter_reduce %s shape %zu", cases[c].name,
               s);
      for (int self = 0; self <= 1; ++self) {
        call k = {OP_SR, cases[c].r, self, shapes[s].dim, &tx, &ti,
                  &ts,   &to,        4};
        check_against_serial(&k, (size_t)E_ALL * sl_dtype_size(dt), what);
      }
    }
done:
  free(x), free(out), free(src), free(idx);
}

/* index_reduce: rows of 4 along dim 0 and columns along dim 1; 4096 rows
 * (or columns) of 4 elements: 16384 contributions into 2^20 elements. */
static void test_index_reduce(void) {
  static const red_case cases[] = {{SL_F16, SL_REDUCE_AMAX, "f16 amax"},
                                   {SL_F16, SL_REDUCE_MEAN, "f16 mean"},
                                   {SL_BF16, SL_REDUCE_SUM, "bf16 sum"},
                                   {SL_F32, SL_REDUCE_MEAN, "f32 mean"}};
  enum { W = 4, M = CONTRIB / W };
  void *x = malloc((size_t)E_ALL * 4), *out = malloc((size_t)E_ALL * 4);
  void *upd = malloc(CONTRIB * 4);
  int64_t *idx = malloc(M * sizeof *idx);
  CHECK(x && out && upd && idx);
  if (!(x && out && upd && idx)) goto done;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
    for (int dim = 0; dim <= 1; ++dim) {
      const sl_dtype dt = cases[c].dt;
      fill(dt, x, E_ALL);
      fill(dt, upd, CONTRIB);
      targets(idx, M, E_ALL / W);
      const int64_t *xs = dim ? SHAPE(W, E_ALL / W) : SHAPE(E_ALL / W, W);
      const int64_t *us = dim ? SHAPE(W, M) : SHAPE(M, W);
      sl_tensor tx = sl_tensor_make(dt, 2, xs, x);
      sl_tensor to = sl_tensor_make(dt, 2, xs, out);
      sl_tensor ti = sl_tensor_make(SL_I64, 1, SHAPE(M), idx);
      sl_tensor tu = sl_tensor_make(dt, 2, us, upd);
      char what[64];
      snprintf(what, sizeof what, "index_reduce %s dim %d", cases[c].name, dim);
      for (int self = 0; self <= 1; ++self) {
        call k = {OP_IR, cases[c].r, self, dim, &tx, &ti, &tu, &to, 4};
        check_against_serial(&k, (size_t)E_ALL * sl_dtype_size(dt), what);
      }
    }
done:
  free(x), free(out), free(upd), free(idx);
}

/* scatter_nd sum of f16 and bf16 (f32 accumulators): 16384 = 128 x 128
 * positions into a [1024, 1024] x. */
static void test_scatter_nd(void) {
  enum { R = 1024 };
  uint16_t *x = malloc((size_t)E_ALL * 2), *out = malloc((size_t)E_ALL * 2);
  uint16_t *src = malloc(CONTRIB * 2);
  int64_t *idx = malloc(2 * CONTRIB * sizeof *idx),
          *flat = malloc(CONTRIB * sizeof *flat);
  CHECK(x && out && src && idx && flat);
  if (!(x && out && src && idx && flat)) goto done;
  for (int d = 0; d < 2; ++d) {
    const sl_dtype dt = d ? SL_BF16 : SL_F16;
    fill(dt, x, E_ALL);
    fill(dt, src, CONTRIB);
    targets(flat, CONTRIB, E_ALL);
    for (int i = 0; i < CONTRIB; ++i) {
      idx[2 * i] = flat[i] / R;
      idx[2 * i + 1] = flat[i] % R;
    }
    sl_tensor tx = sl_tensor_make(dt, 2, SHAPE(R, R), x);
    sl_tensor to = sl_tensor_make(dt, 2, SHAPE(R, R), out);
    /* index rank 3 (x's plus one): positions [128, 128], tuples of 2 */
    sl_tensor ti = sl_tensor_make(SL_I64, 3, SHAPE(128, 128, 2), idx);
    sl_tensor ts = sl_tensor_make(dt, 2, SHAPE(128, 128), src);
    call k = {OP_ND, SL_REDUCE_SUM, 1, 0, &tx, &ti, &ts, &to, 4};
    check_against_serial(&k, (size_t)E_ALL * 2,
                         d ? "scatter_nd bf16 sum" : "scatter_nd f16 sum");
  }
done:
  free(x), free(out), free(src), free(idx), free(flat);
}

#ifndef SANITIZED
/* The process's address space now, in bytes (VmSize), or -1. */
static long long vm_size(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %lld kB", &kb) == 1) break;
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}
#endif

/* 8 updates into 2^27 f16 (or bf16) elements under an address-space limit
 * that dense accumulators (1.5 GiB) cannot fit into. */
static void test_memory(void) {
#ifdef SANITIZED
  printf("test_memory: skipped (a sanitizer's shadow memory defeats an "
         "address-space limit)\n");
  return;
#else
  enum { LOG = 27, U = 8 };
  const int64_t n = INT64_C(1) << LOG;
  const long long margin = 768ll << 20;
  uint16_t *x = calloc((size_t)n, 2), *out = malloc((size_t)n * 2);
  uint16_t *want = malloc((size_t)n * 2);
  static const int64_t idx[U] = {
      5, (INT64_C(1) << LOG) - 1, 1 << 20, 5, 77777777, 1 << 20, 123, 5};
  uint16_t src[U];
  int64_t nd_idx[U];
  CHECK(x && out && want);
  if (!(x && out && want)) goto done;
  for (int i = 0; i < U; ++i) nd_idx[i] = idx[i];
  static const struct {
    op_kind op;
    sl_dtype dt;
    sl_reduce r;
    int self;
    const char *name;
  } cases[] = {{OP_SR, SL_F16, SL_REDUCE_SUM, 1, "scatter_reduce f16 sum"},
               {OP_SR, SL_BF16, SL_REDUCE_MEAN, 0, "scatter_reduce bf16 mean"},
               {OP_IR, SL_F16, SL_REDUCE_AMAX, 0, "index_reduce f16 amax"},
               {OP_IR, SL_F16, SL_REDUCE_MEAN, 1, "index_reduce f16 mean"},
               {OP_ND, SL_F16, SL_REDUCE_SUM, 1, "scatter_nd f16 sum"}};
  static const char *const strategies[] = {"cpu.atomic", "cpu.lock",
                                           "cpu.sorted"};
  struct rlimit old;
  CHECK(getrlimit(RLIMIT_AS, &old) == 0);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    const sl_dtype dt = cases[c].dt;
    fill(dt, src, U);
    sl_tensor tx = sl_tensor_make(dt, 1, SHAPE(n), x);
    sl_tensor to = sl_tensor_make(dt, 1, SHAPE(n), out);
    sl_tensor ti = cases[c].op == OP_ND
                       ? sl_tensor_make(SL_I64, 2, SHAPE(U, 1), nd_idx)
                       : sl_tensor_make(SL_I64, 1, SHAPE(U), (void *)idx);
    sl_tensor ts = sl_tensor_make(dt, 1, SHAPE(U), src);
    call k = {cases[c].op, cases[c].r, cases[c].self, 0, &tx, &ti, &ts, &to, 2};
    /* cpu.serial's f16 line kernel keeps a scratch of n doubles: it runs
     * unlimited, as does a first run of every strategy (its threads and
     * their malloc arenas are then in place before the limit). */
    CHECK(run(&k, "cpu.serial") == SL_STATUS_OK);
    memcpy(want, out, (size_t)n * 2);
    for (int s = 0; s < 3; ++s) run(&k, strategies[s]);
    for (int s = 0; s < 3; ++s) {
      const long long vm = vm_size();
      CHECK(vm > 0);
      struct rlimit lim = old;
      lim.rlim_cur = (rlim_t)(vm + margin);
      if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < lim.rlim_cur)
        lim.rlim_cur = old.rlim_cur;
      CHECK(setrlimit(RLIMIT_AS, &lim) == 0);
      memset(out, 0xA5, (size_t)n * 2);
      const sl_status st = run(&k, strategies[s]);
      CHECK(setrlimit(RLIMIT_AS, &old) == 0);
      CHECK_MSG(st == SL_STATUS_OK,
                "%s %s: status %d within %lld MiB beyond the process",
                cases[c].name, strategies[s], (int)st, margin >> 20);
      CHECK_MSG(memcmp(out, want, (size_t)n * 2) == 0,
                "%s %s: out differs from cpu.serial", cases[c].name,
                strategies[s]);
    }
  }
done:
  free(x), free(out), free(want);
#endif
}

int main(void) {
  test_scatter_reduce();
  test_index_reduce();
  test_scatter_nd();
  test_memory();
  return sl_test_finish("test_acc_sparse");
}
