/* bench --generate (bench_generate.h). */
#include "bench_generate.h"

#include <stdio.h>
#include <string.h>

#include "bench_table.h"
#include "byte_size.h"
#include "casegen.h"
#include "datagen.h"
#include "providers.h"
#include "runner.h"

/* Draws per case wanted before the stream is judged too poor for the size
 * range (a range no op reaches, or a filter that leaves one tiny op). */
enum { SL__GEN_DRAWS_PER_CASE = 4000 };

int sl_bench_gen_sizes(sl_bench_gen *g, const char *text, char *err,
                       size_t errlen) {
  char lo[64];
  const char *dash = strchr(text, '-');
  size_t n = dash ? (size_t)(dash - text) : 0;
  if (!dash || n == 0 || n >= sizeof lo) {
    snprintf(err, errlen, "expected MIN-MAX (1M-64M), got \"%s\"", text);
    return -1;
  }
  memcpy(lo, text, n);
  lo[n] = '\0';
  if (sl_bytes_parse(lo, &g->lo) || sl_bytes_parse(dash + 1, &g->hi) ||
      g->lo == 0 || g->hi < g->lo) {
    snprintf(err, errlen,
             "expected MIN-MAX with 0 < MIN <= MAX, sizes such as 512K or "
             "64M, got \"%s\"",
             text);
    return -1;
  }
  return 0;
}

/* The ops that have a variant the filter selects (all: 0). */
static unsigned sl__ops_of(const char *variants) {
  if (!variants) return 0;
  unsigned ops = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (sl_variant_selected(variants, v->name)) ops |= 1u << v->v.op;
  }
  return ops;
}

/* The generator set for timing: valid cases only, tensors up to the size
 * range's top in 1-byte elements (the generator draws every size below
 * it), no size-mix (the range says the sizes). */
static void sl__gen_opts(const sl_bench_gen *g, sl_fuzz_opts *o) {
  sl_fuzz_opts_init(o);
  o->ops = sl__ops_of(g->variants);
  o->invalid_pct = 0;
  o->size_mix = 0;
  o->max_elems = (int64_t)(g->hi < ((uint64_t)1 << 30) ? g->hi : 1u << 30);
}

/* Whether case c's forward inputs take bytes within [lo, hi]. */
static int sl__in_range(const sl_bench_gen *g, const sl_case *c) {
  sl_case fw;
  uint64_t bytes;
  char err[256];
  sl_case_forward(c, &fw);
  return sl_fuzz_classify(c) == SL_FUZZ_VALID &&
         sl_case_input_bytes(&fw, &bytes, err, sizeof err) == 0 &&
         bytes >= g->lo && bytes <= g->hi;
}

int sl_bench_generate(sl_bench_gen *g, char ***lines, int *count, char *err,
                      size_t errlen) {
  sl_fuzz_opts o;
  sl__gen_opts(g, &o);
  if (g->variants && !o.ops) {
    snprintf(err, errlen,
             "--variants %s: expected a filter that selects a "
             "variant, got one that selects none",
             g->variants);
    return -1;
  }
  const int64_t limit = g->n * SL__GEN_DRAWS_PER_CASE;
  g->drawn = g->kept = 0;
  for (uint64_t i = 0; g->kept < g->n && g->drawn < limit; ++i, ++g->drawn) {
    sl_case c;
    char line[SL_CASE_LINE_MAX];
    sl_fuzz_case(g->seed, i, &o, &c);
    if (!sl__in_range(g, &c)) continue;
    sl_case_print(&c, line, sizeof line);
    if (sl_bench_lines_push(lines, count, line)) {
      snprintf(err, errlen, "out of memory after %lld cases",
               (long long)g->kept);
      return -1;
    }
    ++g->kept;
  }
  if (g->kept == g->n) return 0;
  char a[32], b[32];
  snprintf(err, errlen,
           "expected %lld cases with inputs of %s to %s, got %lld in %lld "
           "draws of seed %llu: widen --sizes",
           (long long)g->n, sl_bytes_str(g->lo, a, sizeof a),
           sl_bytes_str(g->hi, b, sizeof b), (long long)g->kept,
           (long long)g->drawn, (unsigned long long)g->seed);
  return -1;
}
