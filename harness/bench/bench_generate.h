/* `bench --generate N`: the cases of a performance campaign, drawn by the
 * fuzz generator (fuzz/casegen.h) at sizes where a timing means something,
 * instead of a hand-picked suite. */
#ifndef SL_BENCH_GENERATE_H
#define SL_BENCH_GENERATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sl_bench_gen {
  int64_t n;            /* cases wanted */
  uint64_t seed;        /* the generator's campaign seed */
  uint64_t lo, hi;      /* a case's input bytes, in [lo, hi] */
  const char *variants; /* --variants: only ops with a selected variant */
  int64_t drawn, kept;  /* after sl_bench_generate: cases drawn, kept */
} sl_bench_gen;

/* Parses --sizes "MIN-MAX" (byte_size.h forms: 1M-64M) into g->lo, g->hi.
 * 0, or -1 with the reason in err. */
int sl_bench_gen_sizes(sl_bench_gen *g, const char *text, char *err,
                       size_t errlen);

/* Appends g->n case lines to *lines (*count of them): valid cases of the
 * generator's stream `g->seed`, in order, whose forward inputs take between
 * g->lo and g->hi bytes (the useful bytes' main part: each input is read
 * once). Cases outside the range are skipped; a stream that yields too few
 * within a bounded number of draws is an error. 0, or -1 with err. */
int sl_bench_generate(sl_bench_gen *g, char ***lines, int *count, char *err,
                      size_t errlen);

#endif
